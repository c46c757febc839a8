//! Bounded concurrent work: past `server.max_in_flight` requests (streams count until they
//! end) plaincall answers 503 in the OpenAI shape with `Retry-After`, at once; the
//! operational routes are never refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{client, MockServer, Proxy, Reply};

/// `count` content chunks 100 ms apart, then `[DONE]`.
fn long_stream(count: usize) -> Reply {
    let mut events: Vec<(Duration, String)> = (0..count)
        .map(|i| {
            let chunk = json!({"choices": [{"index": 0, "delta": {"content": format!("{i}")}}]});
            (Duration::from_millis(100), chunk.to_string())
        })
        .collect();
    events.push((Duration::ZERO, "[DONE]".into()));
    Reply::Sse {
        events,
        cut_after: None,
    }
}

async fn open_stream(proxy: &Proxy) -> reqwest::Response {
    let mut response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "stream": true, "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.chunk().await.unwrap().is_some());
    response
}

#[tokio::test]
async fn past_the_limit_requests_get_503_with_retry_after_until_a_stream_ends() {
    let upstream = MockServer::start(|_| long_stream(20)).await;
    let proxy = Proxy::start(&upstream.url(), "[server]\nmax_in_flight = 2\n").await;
    let first = open_stream(&proxy).await;
    let _second = open_stream(&proxy).await;

    let started = Instant::now();
    let refused = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "stream": true, "messages": []}))
        .send()
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_millis(500), "it queued");
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "overloaded", "{body}");
    assert_eq!(body["error"]["type"], "server_error");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("server.max_in_flight"));
    for path in ["/healthz", "/metrics", "/readyz"] {
        let status = client().get(proxy.url(path)).send().await.unwrap().status();
        assert_ne!(status, 503, "{path} was refused");
    }
    assert_eq!(
        upstream.chat_requests().len(),
        2,
        "the refused one went upstream"
    );

    // A stream holds its slot until it ends (here: its client goes away); then its slot is
    // back and a new request is served.
    drop(first);
    support::eventually("the first stream's slot comes back", async || {
        proxy.state.in_flight.available_permits() == 1
    })
    .await;
    let again = open_stream(&proxy).await;
    drop(again);
}

/// Bodies read whole are charged to `server.max_buffered_bytes` as they arrive and until their
/// response ends: past it a request waits a little for memory to come back, then gets 503 in
/// its route's own shape, not more memory.
#[tokio::test]
async fn bodies_past_the_memory_budget_wait_then_get_503_in_the_routes_shape() {
    // A stream that outlasts the wait for memory (5 s).
    let upstream = MockServer::start(|_| long_stream(150)).await;
    let proxy = Proxy::start(
        &upstream.url(),
        "[server]\nmax_body_bytes = 262144\nmax_buffered_bytes = 1572864\n",
    )
    .await;
    let big = |stream: bool| {
        json!({
            "model": "m", "stream": stream,
            "input": "x".repeat(200 * 1024),
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
        })
    };
    // 200 KiB, charged at four times: 800 KiB of the 1.5 MiB, held while it streams.
    let mut first = client()
        .post(proxy.url("/v1/responses"))
        .json(&big(true))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    assert!(first.chunk().await.unwrap().is_some());

    let started = Instant::now();
    let responses = client()
        .post(proxy.url("/v1/responses"))
        .json(&big(false))
        .send();
    let anthropic = client()
        .post(proxy.url("/v1/messages"))
        .json(&json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x".repeat(200 * 1024)}]}))
        .send();
    let (refused, anthropic) = tokio::join!(responses, anthropic);
    assert!(
        started.elapsed() >= Duration::from_secs(4),
        "refused without waiting"
    );
    let refused = refused.unwrap();
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "overloaded", "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("server.max_buffered_bytes"));
    let anthropic = anthropic.unwrap();
    assert_eq!(anthropic.status(), 503);
    let body: Value = anthropic.json().await.unwrap();
    assert_eq!(body["type"], "error", "{body}");
    assert_eq!(body["error"]["type"], "overloaded_error", "{body}");
    assert_eq!(upstream.requests().len(), 1, "a refused body went upstream");

    // Small requests still fit beside it.
    let small = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(small.status(), 200);
    drop(small);

    // Once the stream has ended (its client went away) its charge is back.
    drop(first.chunk().await);
    drop(first);
    support::eventually("the stream's charge comes back", async || {
        proxy.state.budget.taken() == 0
    })
    .await;
    let again = client()
        .post(proxy.url("/v1/responses"))
        .json(&big(true))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
}
