//! Bounded concurrent work: past `server.max_in_flight` requests (streams count until they
//! end) plaincall answers 503 in the OpenAI shape with `Retry-After`, at once; the
//! operational routes are never refused.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{client, MockServer, Proxy, Reply};

fn long_stream() -> Reply {
    let mut events: Vec<(Duration, String)> = (0..20)
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
    let upstream = MockServer::start(|_| long_stream()).await;
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

    // A stream holds its slot until it ends; then a new request is served.
    drop(first);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let again = open_stream(&proxy).await;
    drop(again);
}
