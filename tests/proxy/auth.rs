//! Upstream keys replace the client's; proxy access keys gate `/v1`; keys never leak.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use support::{client, MockServer, Proxy, Reply};

#[tokio::test]
async fn the_clients_authorization_is_forwarded_without_an_upstream_key() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    client()
        .get(proxy.url("/v1/models"))
        .bearer_auth("client-key")
        .send()
        .await
        .unwrap();
    assert_eq!(
        upstream.requests()[0].headers["authorization"],
        "Bearer client-key"
    );
}

#[tokio::test]
async fn a_configured_upstream_key_replaces_the_clients() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let proxy = Proxy::start(&upstream.url(), "api_key = \"sk-upstream-secret\"\n").await;
    client()
        .get(proxy.url("/v1/models"))
        .bearer_auth("client-key")
        .send()
        .await
        .unwrap();
    support::chat(&proxy, &json!({"model": "m", "messages": []})).await;
    for request in upstream.requests() {
        assert_eq!(
            request.headers["authorization"],
            "Bearer sk-upstream-secret"
        );
    }
    assert!(!proxy.metrics().contains("sk-upstream-secret"));
}

/// Credentials written into `upstream.url` go as `Authorization: Basic` when nothing else
/// authorizes the request, never in the request line, and never in an answer.
#[tokio::test]
async fn credentials_in_the_upstream_url_go_as_basic_auth() {
    let upstream = MockServer::start(|_| Reply::ok(json!({}))).await;
    let url = format!("http://bob:hunter2%40x@{}/v1", upstream.addr);
    let proxy = Proxy::start(&url, "").await;
    client().get(proxy.url("/v1/models")).send().await.unwrap();
    client()
        .get(proxy.url("/v1/models"))
        .bearer_auth("client-key")
        .send()
        .await
        .unwrap();
    let requests = upstream.requests();
    // base64("bob:hunter2@x")
    assert_eq!(
        requests[0].headers["authorization"],
        "Basic Ym9iOmh1bnRlcjJAeA=="
    );
    assert_eq!(requests[0].path, "/v1/models");
    assert_eq!(requests[1].headers["authorization"], "Bearer client-key");

    let keyed = Proxy::start(&url, "api_key = \"sk-upstream-secret\"\n").await;
    client().get(keyed.url("/v1/models")).send().await.unwrap();
    assert_eq!(
        upstream.requests()[2].headers["authorization"],
        "Bearer sk-upstream-secret"
    );

    // An error names the upstream without them.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let gone = Proxy::start(&format!("http://bob:hunter2@{closed}/v1"), "").await;
    let (status, body) = support::chat(&gone, &json!({"model": "m", "messages": []})).await;
    assert_eq!(status, 502, "{body}");
    assert!(!body.to_string().contains("hunter2"), "{body}");
    assert!(
        body.to_string()
            .contains(&format!("http://{closed}/v1/chat/completions")),
        "{body}"
    );
}

#[tokio::test]
async fn access_keys_gate_v1_and_are_not_forwarded() {
    let upstream = MockServer::start(|_| Reply::ok(json!({"ok": true}))).await;
    let proxy = Proxy::start(
        &upstream.url(),
        "[server]\naccess_keys = [\"pk-one\", \"pk-two\"]\n",
    )
    .await;

    for key in [None, Some("wrong"), Some("pk-on"), Some("pk-one-and-more")] {
        let mut request = client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&json!({"messages": []}));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{key:?}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_api_key");
        assert_eq!(body["error"]["type"], "authentication_error");
        assert!(
            !body.to_string().contains("pk-one"),
            "the error names no key"
        );
    }
    assert!(upstream.requests().is_empty());

    let response = client()
        .get(proxy.url("/v1/models"))
        .bearer_auth("pk-two")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        upstream.requests()[0]
            .headers
            .get("authorization")
            .is_none(),
        "the proxy key stays with the proxy"
    );

    // Operations endpoints stay open for probes.
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
