//! Health, readiness, metrics, request ids, and graceful draining on shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{client, MockServer, Proxy, Reply};

#[tokio::test]
async fn healthz_and_readyz() {
    let upstream = MockServer::start(|_| Reply::ok(json!({"data": []}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    for path in ["/healthz", "/health"] {
        let response = client().get(proxy.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
    assert_eq!(
        client()
            .get(proxy.url("/readyz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        client()
            .get(proxy.url("/readyz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(upstream.requests().len(), 1, "the probe result is cached");
    assert_eq!(upstream.requests()[0].path, "/v1/models");

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = Proxy::start(&format!("http://{closed}/v1"), "").await;
    let response = client().get(proxy.url("/readyz")).send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(
        client()
            .get(proxy.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_status() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    for _ in 0..3 {
        client().get(proxy.url("/v1/models")).send().await.unwrap();
    }
    client()
        .post(proxy.url("/v1/chat/completions"))
        .body("{bad")
        .send()
        .await
        .unwrap();
    let text = client()
        .get(proxy.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains(r#"plaincall_http_requests_total{route="/v1/{*rest}",status="200"} 3"#),
        "{text}"
    );
    assert!(
        text.contains(
            r#"plaincall_http_requests_total{route="/v1/chat/completions",status="400"} 1"#
        ),
        "{text}"
    );
    assert!(
        text.contains("plaincall_http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(text.contains("plaincall_http_requests_in_flight"), "{text}");
}

/// Requests are labelled by the route that serves them, known before routing: refusals
/// (a missing key) count under their route, and paths no route takes share one label.
#[tokio::test]
async fn every_request_is_labelled_by_its_route_and_unknown_paths_share_one_label() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "[server]\naccess_keys = [\"pk-one\"]\n").await;
    let post = |path: &str| {
        client()
            .post(proxy.url(path))
            .json(&json!({"messages": []}))
    };
    assert_eq!(post("/v1/messages").send().await.unwrap().status(), 401);
    let answered = post("/v1/chat/completions")
        .bearer_auth("pk-one")
        .send()
        .await;
    assert_eq!(answered.unwrap().status(), 200);
    for path in ["/v1/", "/v1", "/nowhere", "/v1x/chat", "/healthz/more"] {
        let response = client().get(proxy.url(path)).send().await.unwrap();
        assert_eq!(
            response.status(),
            404,
            "{path}: no route, and no key asked for"
        );
    }
    let nested = client()
        .get(proxy.url("/v1/files/abc"))
        .send()
        .await
        .unwrap();
    assert_eq!(nested.status(), 401, "every /v1 route needs the key");
    let text = proxy.metrics();
    for line in [
        r#"plaincall_http_requests_total{route="/v1/messages",status="401"} 1"#,
        r#"plaincall_http_requests_total{route="/v1/chat/completions",status="200"} 1"#,
        r#"plaincall_http_requests_total{route="unmatched",status="404"} 5"#,
        r#"plaincall_http_requests_total{route="/v1/{*rest}",status="401"} 1"#,
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}

#[tokio::test]
async fn request_ids_are_propagated_or_generated() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let response = client()
        .get(proxy.url("/v1/models"))
        .header("x-request-id", "req-42")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "req-42");
    assert_eq!(upstream.requests()[0].headers["x-request-id"], "req-42");

    let response = client().get(proxy.url("/v1/models")).send().await.unwrap();
    let generated = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(generated.len(), 36, "a UUID: {generated}");
    assert_eq!(
        upstream.requests()[1].headers["x-request-id"],
        generated.as_str()
    );
}

#[tokio::test]
async fn shutdown_lets_streams_finish_then_stops() {
    let mut events: Vec<(Duration, String)> = (0..5)
        .map(|i| {
            (
                Duration::from_millis(150),
                json!({"choices": [{"index": 0, "delta": {"content": format!("{i}")}}]})
                    .to_string(),
            )
        })
        .collect();
    events.push((Duration::ZERO, "[DONE]".into()));
    let upstream = MockServer::start(move |_| Reply::Sse {
        events: events.clone(),
        cut_after: None,
    })
    .await;
    let mut proxy = Proxy::start(&upstream.url(), "[server]\nshutdown_grace = \"10s\"\n").await;
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&json!({"stream": true, "messages": []}))
        .send()
        .await
        .unwrap();
    proxy.shutdown();
    // No new connections once draining has begun (the listener is closed before it begins).
    tokio::time::timeout(Duration::from_secs(5), proxy.state.drain.began())
        .await
        .expect("draining begins");
    let refused = client()
        .get(proxy.url("/healthz"))
        .timeout(Duration::from_secs(1))
        .send()
        .await;
    assert!(
        refused.is_err(),
        "a new connection was accepted during shutdown"
    );
    let events = support::sse_events(response).await;
    assert_eq!(events.len(), 6, "the in-flight stream finished: {events:?}");
    let done = proxy.done.take().unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), done).await;
    assert!(
        matches!(result, Ok(Ok(Ok(plaincall::Stopped::Drained)))),
        "the server stopped cleanly"
    );
}

#[tokio::test]
async fn the_grace_period_bounds_shutdown() {
    let upstream = MockServer::start(|_| Reply::Hang).await;
    let mut proxy = Proxy::start(&upstream.url(), "[server]\nshutdown_grace = \"300ms\"\n").await;
    let url = proxy.url("/v1/models");
    let pending = tokio::spawn(async move { client().get(url).send().await });
    // In flight: it reached the upstream, which never answers.
    support::eventually("the request reaches the upstream", async || {
        upstream.requests().len() == 1
    })
    .await;
    proxy.shutdown();
    let done = proxy.done.take().unwrap();
    let result = tokio::time::timeout(Duration::from_secs(3), done).await;
    assert!(
        matches!(result, Ok(Ok(Ok(plaincall::Stopped::GraceExpired)))),
        "shutdown waited past its grace period"
    );
    pending.abort();
}
