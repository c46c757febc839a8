//! Streams are forwarded chunk by chunk as the upstream sends them, and a client that goes
//! away cancels the upstream request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{client, MockServer, Proxy, Reply};

fn slow_stream(n: usize, gap: Duration) -> Reply {
    let mut events: Vec<(Duration, String)> = (0..n)
        .map(|i| {
            let chunk = json!({"id": "s", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": format!("t{i} ")}, "finish_reason": null}]});
            (if i == 0 { Duration::ZERO } else { gap }, chunk.to_string())
        })
        .collect();
    events.push((Duration::ZERO, "[DONE]".into()));
    Reply::Sse {
        events,
        cut_after: None,
    }
}

#[tokio::test]
async fn chunks_reach_the_client_as_they_arrive() {
    let upstream = MockServer::start(|_| slow_stream(4, Duration::from_millis(300))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let started = Instant::now();
    let mut response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "stream": true, "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut arrivals = Vec::new();
    let mut text = String::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        arrivals.push(started.elapsed());
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    assert!(text.contains("t0 ") && text.contains("t3 ") && text.ends_with("data: [DONE]\n\n"));
    let first = arrivals[0];
    let last = *arrivals.last().unwrap();
    assert!(
        first < Duration::from_millis(250),
        "first chunk after {first:?}"
    );
    assert!(
        last - first >= Duration::from_millis(800),
        "chunks were batched: {arrivals:?}"
    );
}

#[tokio::test]
async fn a_client_that_disconnects_cancels_the_upstream_stream() {
    let upstream = MockServer::start(|_| slow_stream(50, Duration::from_millis(100))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let mut response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&json!({"model": "m", "stream": true, "messages": []}))
        .send()
        .await
        .unwrap();
    let first = response.chunk().await.unwrap();
    assert!(first.is_some());
    drop(response);
    support::eventually(
        "the upstream stream is dropped, not kept streaming to nobody",
        async || upstream.stream_dropped.load(Ordering::SeqCst),
    )
    .await;
    assert_eq!(upstream.streams_finished.load(Ordering::SeqCst), 0);
}
