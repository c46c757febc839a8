//! Routes plaincall does not interpret, and chat completions it has nothing to change in, are
//! forwarded byte for byte in both directions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{client, MockServer, Proxy, Reply};

const WEIRD_JSON: &str = r#"{"input":"hé","big":123456789012345678901234567890,"f":1.10,"z":{"b":1,"a":2},"extra_field":[true,null]}"#;

#[tokio::test]
async fn other_v1_routes_are_forwarded_byte_for_byte() {
    let upstream = MockServer::start(|r| Reply::Json {
        status: 201,
        body: format!(r#"{{"seen_path":"{}","weird":{WEIRD_JSON}}}"#, r.path),
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;

    let response = client()
        .post(proxy.url("/v1/embeddings?api-version=2&x=%20y"))
        .header("content-type", "application/json")
        .header("x-custom", "kept")
        .header("connection", "keep-alive, x-hop")
        .header("x-hop", "dropped")
        .body(WEIRD_JSON)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["x-mock"], "yes");
    let body = response.text().await.unwrap();
    assert_eq!(
        body,
        format!(r#"{{"seen_path":"/v1/embeddings","weird":{WEIRD_JSON}}}"#)
    );

    let seen = &upstream.requests()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.path, "/v1/embeddings");
    assert_eq!(seen.query.as_deref(), Some("api-version=2&x=%20y"));
    assert_eq!(seen.body, WEIRD_JSON.as_bytes());
    assert_eq!(seen.headers["x-custom"], "kept");
    assert!(
        seen.headers.get("x-hop").is_none(),
        "headers named by Connection are hop-by-hop"
    );
    assert_eq!(
        seen.headers["host"],
        upstream.addr.to_string(),
        "Host is the upstream's"
    );
}

#[tokio::test]
async fn get_routes_and_methods_pass_through() {
    let upstream = MockServer::start(|r| {
        Reply::ok(json!({"method": r.method, "path": r.path, "body_len": r.body.len()}))
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    for (method, path) in [
        ("GET", "/v1/models"),
        ("DELETE", "/v1/files/abc"),
        ("POST", "/v1/embeddings"),
        ("POST", "/v1/completions"),
    ] {
        let response = client()
            .request(method.parse().unwrap(), proxy.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{method} {path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["method"], method);
        assert_eq!(body["path"], path);
    }
}

#[tokio::test]
async fn an_upstream_base_url_with_a_path_prefix_is_kept() {
    let upstream = MockServer::start(|r| Reply::ok(json!({"path": r.path}))).await;
    let proxy = Proxy::start(&format!("http://{}/gateway/openai/v1", upstream.addr), "").await;
    let body: Value = client()
        .get(proxy.url("/v1/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["path"], "/gateway/openai/v1/models");
    let (_, body) = support::chat(&proxy, &json!({"model": "m", "messages": []})).await;
    assert_eq!(body["path"], "/gateway/openai/v1/chat/completions");
}

#[tokio::test]
async fn chat_completions_without_anything_to_translate_are_byte_identical() {
    let upstream_body = r#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"timings":{"predicted_ms":12.5},"big":98765432109876543210}"#;
    let upstream = MockServer::start(move |_| Reply::text(200, upstream_body)).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    // A simple tool (not rewritten by `auto`), vLLM and llama-server extensions, a big integer,
    // odd spacing: all must reach the upstream exactly as sent.
    let request = r#"{ "model":"m","messages":[{"role":"user","content":"weather in Paris?"}],
        "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],
        "top_k": 40, "chat_template_kwargs": {"enable_thinking": false}, "seed": 18446744073709551615 }"#;
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .header("content-type", "application/json")
        .body(request)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), upstream_body);
    assert_eq!(upstream.requests()[0].body, request.as_bytes());
}

/// A request without tools is forwarded before plaincall builds anything from it: as sent,
/// escapes, a duplicate unknown key and all, without plaincall's own header; the fields the
/// pipe reads of every request are still refused when malformed, and a `[models]` alias still
/// applies.
#[tokio::test]
async fn a_request_without_tools_goes_on_as_sent_and_its_fields_are_still_checked() {
    let upstream = MockServer::start(|_| Reply::text(200, r#"{"id":"x","choices":[]}"#)).await;
    let proxy = Proxy::start(&upstream.url(), "[models]\nclaude-x = \"local-model\"\n").await;
    let request = r#"{"model":"m\u00e9","messages":[{"role":"user","content":"caf\u00e9"}],
        "extra":1,"extra":2, "stream":false, "n":1, "tools":null}"#;
    let post = |body: &'static str| {
        client()
            .post(proxy.url("/v1/chat/completions"))
            .header("content-type", "application/json")
            .header("x-plaincall-translate", "off")
            .body(body)
            .send()
    };
    let response = post(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let seen = &upstream.requests()[0];
    assert_eq!(seen.body, request.as_bytes());
    assert!(seen.headers.get("x-plaincall-translate").is_none());
    for (body, param) in [
        (r#"{"model":"m","messages":"hi"}"#, "messages"),
        (r#"{"model":"m","messages":[],"n":"2"}"#, "n"),
        (r#"{"model":"m","messages":[],"stream":"yes"}"#, "stream"),
        (r#"{"model":7,"messages":[]}"#, "model"),
    ] {
        let response = post(body).await.unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let answer: serde_json::Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["param"], param, "{answer}");
    }
    assert_eq!(
        upstream.requests().len(),
        1,
        "a malformed request went upstream"
    );
    post(r#"{"model":"claude-x","messages":[]}"#).await.unwrap();
    let aliased: serde_json::Value = serde_json::from_slice(&upstream.requests()[1].body).unwrap();
    assert_eq!(aliased["model"], "local-model");
}

#[tokio::test]
async fn a_tool_call_the_proxy_does_not_translate_is_passed_through() {
    let call = json!({"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}});
    let reply = support::completion(
        json!({"role": "assistant", "content": null, "tool_calls": [call]}),
        "tool_calls",
    );
    let expected = reply.to_string();
    let upstream = MockServer::start(move |_| Reply::text(200, &expected)).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let tool = support::fixture_tool("get_weather");
    let (status, body) = support::chat(&proxy, &json!({"model": "m", "messages": [{"role": "user", "content": "weather?"}], "tools": [tool]})).await;
    assert_eq!(status, 200);
    assert_eq!(body, reply);
}

/// The upstream connections of a burst are kept for the next one: a pool that kept fewer
/// than the requests in flight would close some and open them again, a connection set up
/// and torn down for a share of all requests under steady load.
#[tokio::test]
async fn steady_concurrency_reuses_upstream_connections() {
    const AT_ONCE: usize = 48;
    let upstream = MockServer::start(|_| {
        Reply::Delayed(
            std::time::Duration::from_millis(150),
            Box::new(Reply::ok(support::completion(
                json!({"role": "assistant", "content": "hi"}),
                "stop",
            ))),
        )
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let burst = || async {
        let all = (0..AT_ONCE).map(|_| support::chat(&proxy, &body));
        for (status, _) in futures_util::future::join_all(all).await {
            assert_eq!(status, 200);
        }
    };
    burst().await;
    let first = upstream.accepted_connections();
    assert!(first >= AT_ONCE / 2, "the burst overlapped: {first}");
    burst().await;
    burst().await;
    assert_eq!(
        upstream.accepted_connections(),
        first,
        "the same upstream connections serve the later bursts"
    );
}

/// An upstream connection's read buffer is bounded (16 KiB, what a response head must fit
/// in): a head within it passes, a bigger one is a 502 in the client's format, not a buffer
/// that grows with whatever the upstream sends.
#[tokio::test]
async fn upstream_response_heads_are_read_into_a_bounded_buffer() {
    let upstream = MockServer::start(|r| {
        let size = if r.body.windows(5).any(|w| w == b"small") {
            8 * 1024
        } else {
            32 * 1024
        };
        Reply::WithHeader(
            "x-padding",
            "p".repeat(size),
            Box::new(Reply::ok(support::completion(
                json!({"role": "assistant", "content": "hi"}),
                "stop",
            ))),
        )
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let ask =
        |content: &str| json!({"model": "m", "messages": [{"role": "user", "content": content}]});
    let (status, body) = support::chat(&proxy, &ask("small")).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = support::chat(&proxy, &ask("large")).await;
    assert_eq!(status, 502, "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}
