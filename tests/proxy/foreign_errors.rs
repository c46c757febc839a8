//! A translator's error body is foreign text that may echo the key it was sent: only a short,
//! scrubbed summary reaches the main model, the client, the logs and `plaincall translate`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::process::Stdio;

use serde_json::json;
use support::{
    calls_message, chat, completion, fixture_tool, nl_call, text_message, MockServer, Proxy, Reply,
};

const KEY: &str = "sk-translator-very-secret-42";

/// A server that refuses every request with a 401 whose body `body` builds from the
/// `Authorization` it received, echoing credentials as some gateways do.
async fn echoing(body: fn(&str) -> serde_json::Value) -> MockServer {
    MockServer::start(move |r| {
        let auth = r
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        Reply::text(401, &body(auth).to_string())
    })
    .await
}

async fn echoing_translator() -> MockServer {
    echoing(|auth| {
        json!({
            "error": {
                "message": format!("Incorrect API key provided: {KEY}. Header: {auth}"),
                "type": "invalid_request_error",
                "code": "invalid_api_key"
            },
            "debug": {"headers": {"authorization": auth}, "padding": "p".repeat(5000)}
        })
    })
    .await
}

fn backend(url: &str) -> String {
    format!(
        "[[translation.backends]]\nbase_url = \"{url}\"\nmodel = \"translator-model\"\napi_key = \"{KEY}\"\n"
    )
}

#[tokio::test]
async fn the_repair_message_and_the_answer_carry_a_scrubbed_summary() {
    let translator = echoing_translator().await;
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "c1",
                "set_reminder",
                "daily at 9 check email",
            )]),
            "tool_calls",
        )),
        support::no_direct_call(),
        Reply::ok(completion(
            text_message("Sorry, I could not set it."),
            "stop",
        )),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), &backend(&translator.url())).await;
    let request = json!({
        "model": "m",
        "messages": [{"role": "user", "content": "remind me daily at 9 to check email"}],
        "tools": [fixture_tool("set_reminder")],
    });
    let (status, answer) = chat(&proxy, &request).await;
    assert_eq!(status, 200, "{answer}");
    assert!(!answer.to_string().contains(KEY), "{answer}");

    let repair = main.chat_requests()[2].json().to_string();
    assert!(
        repair.contains("HTTP 401 (invalid_request_error, invalid_api_key)"),
        "{repair}"
    );
    assert!(
        repair.contains("Incorrect API key provided: [redacted]"),
        "{repair}"
    );
    assert!(!repair.contains(KEY), "{repair}");
    assert!(
        !repair.contains("padding"),
        "the body is summarised, not copied"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_and_its_logs_never_print_the_key() {
    let translator = echoing_translator().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("proxy.toml");
    std::fs::write(&config, backend(&translator.url())).unwrap();
    let tool = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tools/set_reminder.json"
    );
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_plaincall"));
    command
        .args(["translate", "--tool", tool, "--config"])
        .arg(&config)
        .arg("daily at 9 to check email")
        .env("RUST_LOG", "debug")
        .env("PLAINCALL_LOG_LEVEL", "debug")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), command.output())
        .await
        .unwrap()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("HTTP 401"), "{text}");
    assert!(!text.contains(KEY), "the key leaked:\n{text}");
}

const UPSTREAM_KEY: &str = "sk-upstream-do-not-show-7";

/// The main upstream refuses every request, echoing the key plaincall sent it.
async fn echoing_upstream() -> MockServer {
    echoing(|auth| {
        json!({"error": {"message": format!("key {UPSTREAM_KEY} rejected (got {auth})"), "type": "invalid_request_error"}})
    })
    .await
}

#[tokio::test]
async fn the_upstream_key_never_comes_back_in_an_error_body_on_any_path() {
    let upstream = echoing_upstream().await;
    let proxy = Proxy::start(&upstream.url(), &format!("api_key = \"{UPSTREAM_KEY}\"")).await;
    let plain = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let mut rewritten = plain.clone();
    rewritten["tools"] = json!([fixture_tool("set_reminder")]);
    let mut streamed = rewritten.clone();
    streamed["stream"] = json!(true);
    let cases = [
        ("/v1/chat/completions", plain),
        ("/v1/chat/completions", rewritten),
        ("/v1/chat/completions", streamed),
        ("/v1/embeddings", json!({"model": "e", "input": "x"})),
    ];
    for (path, body) in cases {
        let response = support::client()
            .post(proxy.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{path}");
        let text = response.text().await.unwrap();
        assert!(!text.contains(UPSTREAM_KEY), "{path}: {text}");
        assert!(
            text.contains("key [redacted] rejected (got Bearer [redacted])"),
            "{path}: {text}"
        );
    }
    assert_eq!(
        upstream.requests().len(),
        4,
        "each request reached the upstream"
    );
}
