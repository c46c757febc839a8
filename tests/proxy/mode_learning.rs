//! Only the upstream's own words for "no native tools" switch a model to prompt mode; a
//! client's bad request or a passing failure never changes how other clients are served, and
//! what was learned expires.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{chat, completion, fixture_tool, text_message, MockServer, Proxy, Reply};

const JINJA: &str =
    r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#;

fn request(model: &str) -> Value {
    json!({
        "model": model,
        "messages": [{"role": "user", "content": "weather in Rome?"}],
        "tools": [fixture_tool("get_weather")],
    })
}

/// How many of the mock's chat requests carried native `tools`.
fn native(main: &MockServer) -> usize {
    main.chat_requests()
        .iter()
        .filter(|r| r.json().get("tools").is_some())
        .count()
}

#[tokio::test]
async fn errors_that_mention_tools_but_are_not_rejections_teach_nothing() {
    let errors: Vec<(u16, &str)> = vec![
        (
            400,
            r#"{"error":{"message":"Invalid value for 'tool_choice': no function named foo","type":"invalid_request_error"}}"#,
        ),
        (
            500,
            r#"{"error":{"message":"Failed to parse tool call arguments as JSON"}}"#,
        ),
        (
            422,
            r#"{"detail":[{"loc":["body","tools",0],"msg":"field required"}]}"#,
        ),
        (
            501,
            r#"{"error":{"message":"tool streaming not implemented"}}"#,
        ),
        (502, JINJA),
        (
            404,
            r#"{"error":{"message":"the model `x` does not exist; tools unavailable"}}"#,
        ),
    ];
    for (status, body) in errors {
        let main = MockServer::start(move |_| Reply::text(status, body)).await;
        let proxy = Proxy::start(&main.url(), "").await;
        for _ in 0..2 {
            let (got, answer) = chat(&proxy, &request("small-model")).await;
            assert_eq!(got, status, "{answer}");
        }
        assert_eq!(
            native(&main),
            2,
            "status {status}: both requests stay native"
        );
        assert!(
            !proxy.metrics().contains("prompt_mode_switches_total{"),
            "{status}"
        );
    }
}

#[tokio::test]
async fn a_malformed_tools_list_cannot_teach_a_rejection() {
    let main = MockServer::start(|_| Reply::text(500, JINJA)).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let mut bad = request("small-model");
    bad["tools"] =
        json!([{"type": "function", "function": {"name": "has spaces!", "parameters": {}}}]);
    let (status, _) = chat(&proxy, &bad).await;
    assert_eq!(status, 500, "the upstream's answer, unchanged");
    // A well-formed request from another client still goes native first.
    chat(&proxy, &request("small-model")).await;
    let first_good = &main.chat_requests()[1];
    assert!(first_good.json().get("tools").is_some());
}

#[tokio::test]
async fn a_learned_rejection_expires_and_native_tools_are_tried_again() {
    let jinja_fixed = Arc::new(AtomicBool::new(false));
    let fixed = jinja_fixed.clone();
    let main = MockServer::start(move |r| {
        if r.json().get("tools").is_some() && !fixed.load(Ordering::SeqCst) {
            Reply::text(500, JINJA)
        } else {
            Reply::ok(completion(text_message("sunny"), "stop"))
        }
    })
    .await;
    let native_retry = Duration::from_secs(1);
    let proxy = Proxy::start(&main.url(), "[tool_calling]\nnative_retry = \"1s\"\n").await;
    let learned = Instant::now();
    let (status, _) = chat(&proxy, &request("small-model")).await;
    assert_eq!(status, 200);
    assert_eq!(
        native(&main),
        1,
        "rejected once, then served in prompt mode"
    );
    chat(&proxy, &request("small-model")).await;
    let asked_again = learned.elapsed();
    assert_eq!(
        native(&main),
        1,
        "remembered: prompt mode again {asked_again:?} after learning"
    );
    // The operator restarts llama-server with --jinja; once native_retry has passed, the next
    // request tries native tools again (until then each is served in prompt mode).
    jinja_fixed.store(true, Ordering::SeqCst);
    support::eventually("native tools are tried again", async || {
        let (status, _) = chat(&proxy, &request("small-model")).await;
        assert_eq!(status, 200);
        native(&main) == 2
    })
    .await;
    assert!(
        learned.elapsed() >= native_retry,
        "tried again after {:?}, before native_retry",
        learned.elapsed()
    );
}

#[tokio::test]
async fn learned_models_and_their_metric_labels_are_bounded() {
    let main = MockServer::start(|r| {
        if r.json().get("tools").is_some() {
            Reply::text(500, JINJA)
        } else {
            Reply::ok(completion(text_message("ok"), "stop"))
        }
    })
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    for i in 0..300 {
        let (status, _) = chat(&proxy, &request(&format!("model-{i}"))).await;
        assert_eq!(status, 200);
    }
    let metrics = proxy.metrics();
    let series = metrics
        .lines()
        .filter(|l| l.starts_with("plaincall_prompt_mode_switches_total{"))
        .count();
    assert!(series <= plaincall::CLIENT_LABELS + 1, "{series} series");
    assert!(metrics.contains("plaincall_prompt_mode_switches_total{model=\"other\"}"));
}

/// vLLM quotes the offending input in its 400s: a client who writes a rejection phrase into
/// its own message must not switch the model to prompt mode for every other client.
#[tokio::test]
async fn an_upstream_that_echoes_the_clients_words_teaches_nothing() {
    let main = MockServer::start(|r| {
        let body = r.json();
        let content = body["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if content.to_lowercase().contains("support tools") {
            let message =
                format!("1 validation error: messages.0.content: '{content}' is not allowed");
            Reply::text(400, &json!({"error": {"message": message}}).to_string())
        } else {
            Reply::ok(completion(text_message("fine"), "stop"))
        }
    })
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let mut attack = request("shared-model");
    attack["messages"][0]["content"] = json!("this model does not support tools");
    let (status, _) = chat(&proxy, &attack).await;
    assert_eq!(status, 400, "the client's own error reaches it");
    let mut escaped = request("shared-model");
    escaped["messages"][0]["content"] = json!("Ollama said: model Does Not Support Tools");
    let (status, _) = chat(&proxy, &escaped).await;
    assert_eq!(status, 400);

    let (status, answer) = chat(&proxy, &request("shared-model")).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(native(&main), 3, "every request kept native tools");
    assert!(!proxy.metrics().contains("prompt_mode_switches_total{"));
}
