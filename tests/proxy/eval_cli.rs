//! `plaincall eval` against a scripted upstream whose "model" fumbles full schemas but
//! describes calls well: the report shows the difference, per case and in total.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use support::{completion, text_message, translator_reply, MockServer, Reply};

fn cases() -> Vec<Value> {
    let path = format!("{}/tests/fixtures/cases.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The scripted model: translator requests get the case's expected answer; the main model
/// describes the call when it sees the one-field schema, and with full schemas writes the
/// call with its first required field missing.
fn model(request: &support::Recorded, cases: &[Value]) -> Reply {
    // eval first checks that the upstream is there, as any OpenAI-compatible server is.
    if request.method == "GET" && request.path == "/v1/models" {
        return Reply::ok(json!({"object": "list", "data": []}));
    }
    let body = request.json();
    let messages = body["messages"].as_array().unwrap();
    let user = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    if body.get("response_format").is_some() {
        let case = cases
            .iter()
            // The translator gets the description, after the user's own message when it differs.
            .find(|c| user.ends_with(c["description"].as_str().unwrap()))
            .expect("translator asked about a known case");
        let answer = case
            .get("expect")
            .or_else(|| case.get("expect_array"))
            .cloned()
            .unwrap_or_else(|| json!({"error": "missing_info", "clarification_needed": "When?"}));
        let mut answer = answer;
        if case["partial"] == true {
            answer["documentation"] = json!("How to use the gcal CLI.");
        }
        return translator_reply(&answer.to_string());
    }
    if messages
        .last()
        .and_then(|m| m["content"].as_str())
        .is_some_and(|c| c.starts_with("[TRANSLATION"))
    {
        return Reply::ok(completion(text_message("When should that happen?"), "stop"));
    }
    let case = cases
        .iter()
        .find(|c| user.ends_with(c["description"].as_str().unwrap()))
        .expect("a known case");
    let tool = case["tool"].as_str().unwrap();
    let definition = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == tool)
        .unwrap();
    let parameters = &definition["function"]["parameters"];
    let arguments = if parameters["properties"].as_object().unwrap().len() == 1
        && parameters["properties"].get("description").is_some()
    {
        json!({"description": case["description"]})
    } else {
        let mut args = case.get("expect").cloned().unwrap_or_else(|| json!({}));
        let first_required = parameters["required"][0].as_str().unwrap();
        args.as_object_mut().unwrap().remove(first_required);
        args
    };
    let call = json!({"id": "call_1", "type": "function", "function": {"name": tool, "arguments": arguments.to_string()}});
    Reply::ok(completion(
        json!({"role": "assistant", "content": null, "tool_calls": [call]}),
        "tool_calls",
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn eval_reports_direct_against_plaincall() {
    let all = cases();
    let script = all.clone();
    let upstream = MockServer::start(move |r| model(r, &script)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("proxy.toml");
    std::fs::write(
        &config,
        // add_skill's calls are not checked either, so that there plaincall is direct.
        format!(
            "[upstream]\nurl = \"{}\"\n[translation.checks]\nadd_skill = \"off\"\n",
            upstream.url()
        ),
    )
    .unwrap();
    let json_out = dir.path().join("results.json");
    let report = dir.path().join("report");
    let manifest = env!("CARGO_MANIFEST_DIR");
    let mut command = Command::new(env!("CARGO_BIN_EXE_plaincall"));
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("PLAINCALL_")) {
        command.env_remove(key);
    }
    command.args([
        "eval",
        "--tools",
        &format!("{manifest}/tests/fixtures/tools"),
        "--cases",
        &format!("{manifest}/tests/fixtures/cases.jsonl"),
        "--model",
        "scripted",
    ]);
    command
        .arg("--config")
        .arg(&config)
        .arg("--json")
        .arg(&json_out)
        .arg("--report")
        .arg(&report);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    let n = all.len() as u64;
    let calls = all
        .iter()
        .filter(|c| c.get("expect_clarification").is_none())
        .count() as u64;
    let plaincall = &results["modes"]["plaincall"];
    let direct = &results["modes"]["direct"];
    assert_eq!(results["cases"], n);
    // `auto` leaves add_skill (three plain properties) alone, so there plaincall is direct.
    let simple = all.iter().filter(|c| c["tool"] == "add_skill").count() as u64;
    assert_eq!(plaincall["passed"], n - simple, "{plaincall}");
    assert_eq!(plaincall["exact_match"], calls - simple);
    assert_eq!(plaincall["schema_valid"], calls - simple);
    assert_eq!(plaincall["clarified"], plaincall["clarification_cases"]);
    let skill = results["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["tool"] == "add_skill")
        .collect::<Vec<_>>();
    assert_eq!(
        skill[0]["calls"], skill[1]["calls"],
        "the same call both ways"
    );
    assert_eq!(direct["exact_match"], 0, "{direct}");
    assert_eq!(
        direct["right_tool"], n,
        "the fumbling model still picks the right tool"
    );
    assert_eq!(results["outcomes"].as_array().unwrap().len() as u64, 2 * n);

    assert!(
        stdout.contains("| plaincall |") && stdout.contains("| direct |"),
        "{stdout}"
    );
    let markdown = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(markdown.contains("![direct vs plaincall](chart.svg)"));
    let svg = std::fs::read_to_string(report.join("chart.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.matches("<rect").count() >= 11,
        "{svg}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_eval_timeout_names_the_setting_it_waited_on() {
    // Headers at once, then a body that falls silent for longer than `upstream.timeout`: both
    // runs wait that one setting for each step, so both name it, never a setting they did not
    // use (`upstream.read_timeout`).
    let upstream = MockServer::start(|_| {
        Reply::Trickle(vec![
            (Duration::ZERO, "{\"id\": \"x\",".into()),
            (Duration::from_secs(3), "\"choices\": []}".into()),
        ])
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("proxy.toml");
    std::fs::write(
        &config,
        format!(
            "[upstream]\nurl = \"{}\"\ntimeout = \"300ms\"\nread_timeout = \"2s\"\n",
            upstream.url()
        ),
    )
    .unwrap();
    let cases = dir.path().join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"tool\": \"set_reminder\", \"description\": \"daily at 09:00 to check email\"}\n",
    )
    .unwrap();
    let json_out = dir.path().join("results.json");
    let manifest = env!("CARGO_MANIFEST_DIR");
    let mut command = Command::new(env!("CARGO_BIN_EXE_plaincall"));
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("PLAINCALL_")) {
        command.env_remove(key);
    }
    command
        .args([
            "eval",
            "--tools",
            &format!("{manifest}/tests/fixtures/tools"),
        ])
        .arg("--cases")
        .arg(&cases)
        .args(["--model", "scripted", "--config"])
        .arg(&config)
        .arg("--json")
        .arg(&json_out);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    let outcomes = results["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 2);
    for outcome in outcomes {
        let error = outcome["error"].as_str().unwrap_or_default();
        assert!(error.contains("upstream.timeout"), "{outcome}");
        assert!(!error.contains("read_timeout"), "{outcome}");
    }
}
