//! What a newcomer meets in the first hour: start-up that says what plaincall fronts and warns,
//! with the URL and the setting, about what is not there; errors that name the fix in `serve`,
//! `health`, `translate`, `eval` and `check`; `explain`; and logs fit for a file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use support::{client, closed_address, plaincall_command, run_command, MockServer, Reply, Served};

fn tool_path(name: &str) -> String {
    format!(
        "{}/tests/fixtures/tools/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_summarises_and_warns_with_the_url_and_the_setting() {
    let upstream = closed_address();
    let translator = closed_address();
    // The upstream URL lacks /v1, a warning of its own.
    let upstream_url = format!("http://{upstream}");
    let translator_url = format!("http://{translator}/v1");
    let served = Served::start(&[
        ("PLAINCALL_UPSTREAM_URL", &upstream_url),
        ("PLAINCALL_TRANSLATOR_URL", &translator_url),
        ("PLAINCALL_TRANSLATOR_MODEL", "tiny"),
    ])
    .await;
    let summary = served.wait_for_line("plaincall listening").await;
    for needle in [
        format!("http://{}/v1", served.addr),
        format!("upstream=http://{upstream}/"),
        format!("tiny at http://{translator}/v1/"),
        "tool_calling=\"auto".to_owned(),
    ] {
        assert!(summary.contains(&needle), "{needle} not in {summary}");
    }
    let v1 = served.wait_for_line("has no /v1").await;
    assert!(
        v1.contains(&format!("set upstream.url to `http://{upstream}/v1`")),
        "{v1}"
    );
    let up = served.wait_for_line("cannot reach the upstream").await;
    assert!(up.contains(&format!("http://{upstream}/models")), "{up}");
    assert!(
        up.contains("upstream.url (env PLAINCALL_UPSTREAM_URL)"),
        "{up}"
    );
    let tr = served
        .wait_for_line("cannot reach the translator tiny")
        .await;
    assert!(
        tr.contains(&format!("http://{translator}/v1/models")),
        "{tr}"
    );
    assert!(
        tr.contains("translation.backends[0].url (env PLAINCALL_TRANSLATOR_URL)"),
        "{tr}"
    );
    assert!(up.contains(" WARN "), "{up}");

    // A failed request: a 502 naming the URL and setting, logged once.
    let response = client()
        .post(served.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body: serde_json::Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("http://{upstream}/chat/completions")),
        "{message}"
    );
    assert!(message.contains("`upstream.url`"), "{message}");
    // Failed readiness probes: 503, and no ERROR line (probes come every few seconds).
    for _ in 0..2 {
        let ready = client().get(served.url("/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 503);
    }
    served.wait_for_line("request failed").await;
    let logs = served.stop().await;
    let text = logs.join("\n");
    assert_eq!(
        logs.iter()
            .filter(|l| l.contains("/v1/chat/completions"))
            .count(),
        1,
        "one line per failed request:\n{text}"
    );
    assert!(!text.contains("ERROR"), "{text}");
    // stderr is a pipe here, not a terminal: no colour codes.
    assert!(
        !text.contains('\u{1b}'),
        "ANSI codes in piped logs:\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_without_a_translator_says_the_upstream_translates() {
    let upstream = MockServer::start(|_| Reply::ok(json!({"object": "list", "data": []}))).await;
    let served = Served::start(&[("PLAINCALL_UPSTREAM_URL", &upstream.url())]).await;
    let summary = served.wait_for_line("plaincall listening").await;
    assert!(
        summary.contains("the upstream translates with the request's model"),
        "{summary}"
    );
    let reachable = served.wait_for_line("upstream reachable").await;
    assert!(reachable.contains(" INFO "), "{reachable}");
    let text = served.stop().await.join("\n");
    assert!(!text.contains("WARN"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn health_names_the_url_and_the_cause() {
    let closed = closed_address();
    let mut command = plaincall_command();
    command
        .arg("health")
        .arg("--url")
        .arg(format!("http://{closed}/healthz"));
    let (code, _, err) = run_command(command).await;
    assert_eq!(code, Some(1), "{err}");
    for needle in [
        format!("http://{closed}/healthz"),
        "refused".into(),
        "--url".into(),
    ] {
        assert!(err.contains(&needle), "{needle} not in {err}");
    }
    assert!(!err.contains("error sending request"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_with_nothing_configured_asks_for_a_model_or_a_translator() {
    let upstream = MockServer::start(|_| Reply::text(500, "{}")).await;
    let mut command = plaincall_command();
    command
        .env("PLAINCALL_UPSTREAM_URL", upstream.url())
        .args(["translate", "--tool"])
        .arg(tool_path("set_reminder"))
        .arg("remind me at nine");
    let (code, _, err) = run_command(command).await;
    assert_eq!(code, Some(2), "{err}");
    for needle in [
        "--model",
        "[[translation.backends]]",
        "PLAINCALL_TRANSLATOR_URL",
    ] {
        assert!(err.contains(needle), "{needle} not in {err}");
    }
    assert!(upstream.requests().is_empty(), "no request with model \"\"");
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_against_an_unreachable_translator_names_the_url() {
    let closed = closed_address();
    let mut command = plaincall_command();
    command
        .env("PLAINCALL_TRANSLATOR_URL", format!("http://{closed}/v1"))
        .env("PLAINCALL_TRANSLATOR_MODEL", "tiny")
        .args(["translate", "--tool"])
        .arg(tool_path("set_reminder"))
        .arg("remind me at nine");
    let (code, _, err) = run_command(command).await;
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("http://{closed}/v1/chat/completions")),
        "{err}"
    );
    assert!(err.contains("PLAINCALL_TRANSLATOR_URL"), "{err}");
    assert!(
        !err.contains("`upstream.url`"),
        "not the upstream's setting: {err}"
    );
}

async fn eval_against(
    upstream: &str,
    translator: Option<&str>,
) -> (Option<i32>, String, String, bool) {
    let report = tempfile::tempdir().unwrap();
    let folder = report.path().join("report");
    let mut command = plaincall_command();
    command.env("PLAINCALL_UPSTREAM_URL", upstream);
    if let Some(url) = translator {
        command
            .env("PLAINCALL_TRANSLATOR_URL", url)
            .env("PLAINCALL_TRANSLATOR_MODEL", "tiny");
    }
    command
        .args(["eval", "--tools"])
        .arg(format!(
            "{}/tests/fixtures/tools",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg("--cases")
        .arg(format!(
            "{}/tests/fixtures/cases.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg("--report")
        .arg(&folder);
    let (code, out, err) = run_command(command).await;
    (code, out, err, folder.exists())
}

#[tokio::test(flavor = "multi_thread")]
async fn eval_stops_when_the_upstream_or_the_translator_is_not_there() {
    let closed = closed_address();
    let (code, out, err, wrote) = eval_against(&format!("http://{closed}/v1"), None).await;
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(err.contains(&format!("http://{closed}/v1/models")), "{err}");
    assert!(err.contains("upstream.url"), "{err}");
    assert!(out.is_empty(), "no table: {out}");
    assert!(!wrote, "no report");
    assert!(
        err.lines().count() < 5,
        "a few lines, not one per case:\n{err}"
    );

    let upstream = MockServer::start(|_| Reply::ok(json!({"object": "list", "data": []}))).await;
    let (code, out, err, wrote) =
        eval_against(&upstream.url(), Some(&format!("http://{closed}/v1"))).await;
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(err.contains("translation.backends[0].url"), "{err}");
    assert!(!wrote);
    assert!(
        upstream.chat_requests().is_empty(),
        "no case ran: {:?}",
        upstream.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn explain_says_which_tools_are_rewritten_and_why() {
    let mut command = plaincall_command();
    command
        .arg("explain")
        .arg(tool_path("set_reminder"))
        .arg(tool_path("add_skill"));
    let (code, out, err) = run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(
            "set_reminder: rewritten: 11 properties (translation.default_mode = \"auto\")"
        ),
        "{out}"
    );
    assert!(
        out.contains("the main model sees `set_reminder(description: string)`"),
        "{out}"
    );
    assert!(
        out.contains("Needs: message"),
        "the plain-English form: {out}"
    );
    assert!(
        out.contains("add_skill: passed through: simple schema: 3 properties"),
        "{out}"
    );

    // A captured request body, and a per-tool setting that decides.
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("request.json");
    let tools = json!({"model": "m", "messages": [], "tools": [
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(tool_path("add_skill")).unwrap()).unwrap(),
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(tool_path("task")).unwrap()).unwrap(),
    ]});
    std::fs::write(&body, tools.to_string()).unwrap();
    let config = dir.path().join("proxy.toml");
    std::fs::write(
        &config,
        "[translation.tools]\nadd_skill = \"nl\"\ntask = \"passthrough\"\n",
    )
    .unwrap();
    let mut command = plaincall_command();
    command
        .arg("explain")
        .arg(&body)
        .arg("--config")
        .arg(&config);
    let (code, out, err) = run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("add_skill: rewritten: translation.tools.add_skill = \"nl\""),
        "{out}"
    );
    assert!(
        out.contains("task: passed through: translation.tools.task = \"passthrough\""),
        "{out}"
    );

    let mut command = plaincall_command();
    command.arg("explain").arg(dir.path().join("missing.json"));
    let (code, _, err) = run_command(command).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing.json"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn prompts_show_says_when_auto_would_not_rewrite_the_tool() {
    let mut command = plaincall_command();
    command
        .args(["prompts", "show", "--tool"])
        .arg(tool_path("add_skill"));
    let (code, out, err) = run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(
            "== Note ==\nadd_skill is not rewritten by this configuration (simple schema"
        ),
        "{out}"
    );

    let mut command = plaincall_command();
    command
        .args(["prompts", "show", "--tool"])
        .arg(tool_path("set_reminder"));
    let (_, out, _) = run_command(command).await;
    assert!(!out.contains("== Note =="), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn check_warns_about_an_upstream_url_without_v1() {
    let mut command = plaincall_command();
    command
        .arg("check")
        .env("PLAINCALL_UPSTREAM_URL", "http://127.0.0.1:8080");
    let (code, out, err) = run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("configuration is valid"), "{out}");
    assert!(
        err.contains("upstream.url `http://127.0.0.1:8080/` has no /v1")
            && err.contains("`http://127.0.0.1:8080/v1`"),
        "{err}"
    );
    let mut command = plaincall_command();
    command.arg("check");
    let (_, _, err) = run_command(command).await;
    assert!(!err.contains("/v1"), "the default has /v1: {err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_warns_when_the_upstream_answers_but_not_as_expected() {
    // A server without the OpenAI routes under this path (a URL missing /v1 on vLLM).
    let upstream = MockServer::start(|_| Reply::text(404, "not found")).await;
    let served = Served::start(&[("PLAINCALL_UPSTREAM_URL", &upstream.url())]).await;
    let line = served.wait_for_line("answered 404").await;
    assert!(line.contains(" WARN "), "{line}");
    assert!(
        line.contains("is the path right? set upstream.url (env PLAINCALL_UPSTREAM_URL)"),
        "{line}"
    );
    served.stop().await;

    let upstream = MockServer::start(|_| Reply::text(401, "{}")).await;
    let served = Served::start(&[("PLAINCALL_UPSTREAM_URL", &upstream.url())]).await;
    let line = served.wait_for_line("answered 401").await;
    assert!(
        line.contains("fine if clients send their own key"),
        "{line}"
    );
    served.stop().await;
}

/// `./proxy.toml` is read without a flag (and said so); `--config` names another.
#[tokio::test(flavor = "multi_thread")]
async fn a_proxy_toml_in_the_working_directory_is_read_without_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("proxy.toml"),
        "[upstream]\nurl = \"http://127.0.0.1:9/v1\"\n",
    )
    .unwrap();
    let mut command = plaincall_command();
    command.current_dir(dir.path()).arg("check");
    let (code, out, err) = run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("url = \"http://127.0.0.1:9/v1/\""), "{out}");
    assert!(err.contains("./proxy.toml"), "{err}");

    let empty = tempfile::tempdir().unwrap();
    let mut command = plaincall_command();
    command.current_dir(empty.path()).arg("check");
    let (code, out, err) = run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("url = \"http://127.0.0.1:8080/v1/\""), "{out}");
    assert!(!err.contains("proxy.toml"), "{err}");
}

/// `serve --listen --upstream --translator --translator-model`: the common settings as flags,
/// winning over the environment.
#[tokio::test(flavor = "multi_thread")]
async fn serve_flags_set_the_listen_address_the_upstream_and_the_translator() {
    use tokio::io::AsyncBufReadExt;
    let upstream = MockServer::start(|_| Reply::ok(json!({"object": "list", "data": []}))).await;
    let translator = MockServer::start(|_| Reply::ok(json!({"object": "list", "data": []}))).await;
    let mut command = plaincall_command();
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(upstream.url())
        .arg("--translator")
        .arg(translator.url())
        .args(["--translator-model", "flag-model"])
        .env("PLAINCALL_UPSTREAM_URL", "http://127.0.0.1:9/v1")
        .stderr(std::process::Stdio::piped());
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let summary = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("plaincall listening") {
                return line;
            }
        }
        String::new()
    })
    .await
    .unwrap();
    assert!(summary.contains(&upstream.url()), "{summary}");
    assert!(summary.contains("flag-model"), "{summary}");
    assert!(
        !summary.contains("127.0.0.1:9/"),
        "the flag wins: {summary}"
    );
    child.kill().await.ok();

    let mut command = plaincall_command();
    command.args(["serve", "--translator", "http://127.0.0.1:1/v1"]);
    let (code, _, err) = run_command(command).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--translator-model"), "{err}");
}

/// `explain` reads tools as Anthropic and Responses clients write them, not only the Chat
/// Completions shape: a captured Claude Code or Codex request explains as it is.
#[tokio::test(flavor = "multi_thread")]
async fn explain_reads_anthropic_and_responses_tool_shapes() {
    let chat: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tool_path("set_reminder")).unwrap()).unwrap();
    let function = chat.get("function").unwrap_or(&chat).clone();
    let dir = tempfile::tempdir().unwrap();
    let anthropic = json!({"model": "m", "max_tokens": 5, "messages": [], "tools": [{
        "name": function["name"], "description": function["description"],
        "input_schema": function["parameters"]}]});
    let responses = json!({"model": "m", "input": "x", "tools": [{
        "type": "function", "name": function["name"], "description": function["description"],
        "parameters": function["parameters"], "strict": false}]});
    for (name, body) in [("anthropic.json", anthropic), ("responses.json", responses)] {
        let path = dir.path().join(name);
        std::fs::write(&path, body.to_string()).unwrap();
        let mut command = plaincall_command();
        command.arg("explain").arg(&path);
        let (code, out, err) = run_command(command).await;
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(
            out.contains("set_reminder: rewritten: 11 properties"),
            "{name}: {out}"
        );
    }
}
