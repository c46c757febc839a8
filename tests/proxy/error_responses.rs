//! Every error plaincall produces is OpenAI-shaped, with the right status; the upstream's own
//! errors pass through unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{client, MockServer, Proxy, Reply};

fn assert_openai_error(body: &Value, code: &str) {
    let error = &body["error"];
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(error["type"].is_string(), "{body}");
    assert!(error.get("param").is_some(), "{body}");
    assert_eq!(error["code"], code, "{body}");
}

async fn post_raw(proxy: &Proxy, path: &str, body: &'static str) -> (u16, Value) {
    let response = client()
        .post(proxy.url(path))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn malformed_json_is_400() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let (status, body) = post_raw(&proxy, "/v1/chat/completions", "{\"model\": ").await;
    assert_eq!(status, 400);
    assert_openai_error(&body, "invalid_json");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert!(
        upstream.requests().is_empty(),
        "nothing reached the upstream"
    );
}

/// A body that is JSON but not an object is refused, never forwarded (a typed look at the body
/// would read a struct from an array); a malformed `messages` is named.
#[tokio::test]
async fn chat_bodies_that_are_not_objects_or_have_malformed_messages_are_400() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    for body in [
        r#"["m", null, [{"role": "user"}]]"#,
        r#" "text" "#,
        "42",
        "null",
    ] {
        let (status, answer) = post_raw(&proxy, "/v1/chat/completions", body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_openai_error(&answer, "invalid_json");
    }
    let (status, answer) = post_raw(
        &proxy,
        "/v1/chat/completions",
        r#"{"model": "m", "messages": "hi"}"#,
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["param"], "messages", "{answer}");
    // A field plaincall reads is read or refused, never taken for its default.
    let (status, answer) = post_raw(
        &proxy,
        "/v1/chat/completions",
        r#"{"model": "m", "n": "2", "messages": [{"role": "user", "content": "x"}]}"#,
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["param"], "n", "{answer}");
    // Read in the one place the request is read, whether it streams or not.
    for (options, param) in [
        (json!("yes"), "stream_options"),
        (
            json!({"include_usage": "yes"}),
            "stream_options.include_usage",
        ),
    ] {
        for stream in [false, true] {
            let body = json!({"model": "m", "stream": stream, "stream_options": options,
                "messages": [{"role": "user", "content": "x"}]});
            let (status, answer) = support::chat(&proxy, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
            assert_eq!(answer["error"]["param"], param, "{answer}");
            assert_openai_error(&answer, "invalid_request");
        }
    }
    // The history plaincall rewrites: a call it cannot read is refused, not passed on as if
    // the message held none.
    for message in [
        json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function"}]}),
        json!({"role": "assistant", "tool_calls": "set_reminder"}),
        json!({"role": "tool", "tool_call_id": 7, "content": "done"}),
        json!({"role": ["user"], "content": "x"}),
        json!("hello"),
    ] {
        let body = json!({"model": "m", "tools": [support::fixture_tool("set_reminder")],
            "messages": [{"role": "user", "content": "x"}, message]});
        let (status, answer) = support::chat(&proxy, &body).await;
        assert_eq!(status, 400, "{message}: {answer}");
        assert_eq!(answer["error"]["param"], "messages", "{answer}");
    }
    assert!(
        upstream.requests().is_empty(),
        "nothing reached the upstream"
    );
}

/// A function tool whose fields plaincall reads (name, description, schema) does not read is
/// a 400 that names the tool, whether translation is on for the request or not; a tool of
/// another type goes on as it came.
#[tokio::test]
async fn a_malformed_function_tool_is_400_and_names_it() {
    let upstream = MockServer::start(|_| {
        Reply::ok(
            json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}),
        )
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let good = json!({"type": "function", "function": {"name": "ok", "parameters": {}}});
    for (bad, says) in [
        (
            json!({"type": "function", "function": {"name": 7}}),
            "function.name",
        ),
        (
            json!({"type": "function", "function": {"name": "t", "parameters": "{}"}}),
            "parameters",
        ),
        (json!({"type": "function"}), "without `function`"),
    ] {
        for switch in ["on", "off"] {
            let response = client()
                .post(proxy.url("/v1/chat/completions"))
                .header("x-plaincall-translate", switch)
                .json(
                    &json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
                    "tools": [good, bad]}),
                )
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 400, "{bad}");
            let answer: Value = response.json().await.unwrap();
            assert_openai_error(&answer, "invalid_request");
            assert_eq!(answer["error"]["param"], "tools", "{answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("`tools[1]`") && message.contains(says),
                "{message}"
            );
        }
    }
    assert!(
        upstream.requests().is_empty(),
        "a malformed tool went upstream"
    );
    let (status, _) = support::chat(
        &proxy,
        &json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
            "tools": [good, {"type": "web_search"}]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(upstream.requests().len(), 1);
}

#[tokio::test]
async fn bodies_over_the_limit_are_413_on_every_route() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "[server]\nmax_body_bytes = 64\n").await;
    let big = "x".repeat(200);
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .body(format!("{{\"m\":\"{big}\"}}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_openai_error(&response.json().await.unwrap(), "request_too_large");

    let response = client()
        .post(proxy.url("/v1/embeddings"))
        .body(big.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_openai_error(&response.json().await.unwrap(), "request_too_large");

    // Chunked, so the size is only known while streaming it on.
    let stream =
        futures_util::stream::iter((0..10).map(|_| Ok::<_, std::io::Error>("x".repeat(20))));
    let response = client()
        .post(proxy.url("/v1/embeddings"))
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_openai_error(&response.json().await.unwrap(), "request_too_large");
}

#[tokio::test]
async fn an_unreachable_upstream_is_502() {
    // Bind then drop: the port is closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = Proxy::start(&format!("http://{closed}/v1"), "").await;
    let (status, body) = post_raw(
        &proxy,
        "/v1/chat/completions",
        r#"{"model":"m","messages":[]}"#,
    )
    .await;
    assert_eq!(status, 502);
    assert_openai_error(&body, "upstream_unreachable");
    // The message names the address tried, the cause and the setting that changes it.
    let message = body["error"]["message"].as_str().unwrap_or_default();
    for needle in [
        format!("http://{closed}/v1/chat/completions"),
        "refused".to_owned(),
        "`upstream.url`".to_owned(),
        "PLAINCALL_UPSTREAM_URL".to_owned(),
    ] {
        assert!(message.contains(&needle), "{needle} not in {message}");
    }
    let response = client().get(proxy.url("/v1/models")).send().await.unwrap();
    assert_eq!(response.status(), 502);
    assert!(
        proxy
            .metrics()
            .contains("plaincall_upstream_errors_total{code=\"upstream_unreachable\"} 2"),
        "{}",
        proxy.metrics()
    );
}

#[tokio::test]
async fn a_slow_upstream_is_504() {
    let upstream = MockServer::start(|_| Reply::Hang).await;
    let proxy = Proxy::start(&upstream.url(), "timeout = \"300ms\"\n").await;
    let started = std::time::Instant::now();
    let (status, body) = post_raw(
        &proxy,
        "/v1/chat/completions",
        r#"{"model":"m","messages":[]}"#,
    )
    .await;
    assert_eq!(status, 504);
    assert_openai_error(&body, "upstream_timeout");
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
}

#[tokio::test]
async fn upstream_errors_pass_through_unchanged() {
    let upstream_error = r#"{"error":{"code":429,"message":"slot unavailable","type":"unavailable_error"},"retry":3}"#;
    let upstream = MockServer::start(move |_| Reply::text(429, upstream_error)).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .body(r#"{"model":"m","messages":[]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.text().await.unwrap(), upstream_error);
}

#[tokio::test]
async fn unknown_routes_are_404_in_openai_form() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let response = client().get(proxy.url("/nope")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    assert_openai_error(&response.json().await.unwrap(), "not_found");
}
