//! What a chat-only upstream cannot take, per route: unknown top-level fields
//! (`upstream.keep_params`, `upstream.drop_params`: a converted request drops what a chat
//! server does not define unless told to keep it; a chat request passes everything on unless
//! told to drop it), and hosted tools (`upstream.hosted_tools`: dropped or refused, by kind).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{completion, post_json, MockServer, Proxy, Reply};

async fn upstream() -> MockServer {
    MockServer::start(|_| Reply::ok(completion(support::text_message("ok"), "stop"))).await
}

async fn post(proxy: &Proxy, path: &str, body: Value) {
    let response = post_json(&proxy.url(path), &body).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

fn fields(seen: &Value) -> Vec<&str> {
    seen.as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

#[tokio::test]
async fn a_converted_request_drops_its_formats_own_fields_and_keeps_what_it_is_told() {
    let main = upstream().await;
    let proxy = Proxy::start(&main.url(), "keep_params = [\"guided_json\"]\n").await;
    let guided = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    post(
        &proxy,
        "/v1/responses",
        json!({"model": "m", "input": "hi", "guided_json": guided, "top_k": 20,
               "client_metadata": {"session_id": "s"}, "prompt_cache_key": "k"}),
    )
    .await;
    post(
        &proxy,
        "/v1/messages",
        json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}],
               "guided_json": guided, "output_config": {"effort": "low"}, "context_management": {}}),
    )
    .await;
    let seen = main.chat_requests();
    for request in &seen {
        let body = request.json();
        assert_eq!(body["guided_json"], guided, "{body}");
        for dropped in [
            "client_metadata",
            "prompt_cache_key",
            "output_config",
            "context_management",
        ] {
            assert!(body.get(dropped).is_none(), "{dropped}: {body}");
        }
    }
    assert_eq!(
        seen[0].json()["top_k"],
        20,
        "a sampling extra is kept by default"
    );
}

#[tokio::test]
async fn a_chat_request_keeps_every_field_but_those_it_is_told_to_drop() {
    let main = upstream().await;
    let plain = Proxy::start(&main.url(), "").await;
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                      "store": true, "metadata": {"k": "v"}, "x_vendor": {"a": 1}});
    post(&plain, "/v1/chat/completions", body.clone()).await;
    let dropping = Proxy::start(
        &main.url(),
        "drop_params = [\"store\", \"metadata\"]\nkeep_params = [\"metadata\"]\n",
    )
    .await;
    post(&dropping, "/v1/chat/completions", body.clone()).await;
    // Converted too: dropping wins over keeping.
    post(
        &dropping,
        "/v1/responses",
        json!({"model": "m", "input": "hi", "metadata": {"k": "v"}, "store": false}),
    )
    .await;
    let seen = main.chat_requests();
    assert_eq!(seen[0].json(), body, "passed on as it came");
    assert_eq!(
        fields(&seen[1].json()),
        vec!["model", "messages", "x_vendor"],
        "the order of the rest kept"
    );
    let converted = seen[2].json();
    assert!(
        converted.get("metadata").is_none() && converted.get("store").is_none(),
        "{converted}"
    );
}

#[tokio::test]
async fn a_body_changed_on_the_forward_path_goes_with_its_own_length() {
    // An alias lengthens the body, `drop_params` shortens it: the upstream must get a
    // `Content-Length` that matches, or it waits for bytes that never come (or cuts the JSON).
    let main = upstream().await;
    let proxy = Proxy::start(
        &main.url(),
        "drop_params = [\"store\"]\n[models]\n\"m\" = \"a-much-longer-upstream-model-name\"\n",
    )
    .await;
    for body in [
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
        json!({"model": "other", "messages": [{"role": "user", "content": "hi"}], "store": true}),
    ] {
        let sent = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            post(&proxy, "/v1/chat/completions", body),
        )
        .await;
        assert!(sent.is_ok(), "the upstream waited for the rest of a body");
    }
    let seen = main.chat_requests();
    assert_eq!(seen[0].json()["model"], "a-much-longer-upstream-model-name");
    assert!(seen[1].json().get("store").is_none());
    for request in &seen {
        assert_eq!(request.headers.get_all("content-length").iter().count(), 1);
        let length: usize = request.headers["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(length, request.body.len());
    }
}

#[tokio::test]
async fn hosted_tools_are_dropped_or_refused_by_kind() {
    let main = upstream().await;
    let proxy = Proxy::start(
        &main.url(),
        "[upstream.hosted_tools]\ndefault = \"drop\"\nweb_search = \"refuse\"\n",
    )
    .await;
    let function = json!({"type": "function", "name": "f", "parameters": {"type": "object"}});
    // Responses: `file_search` follows the default, `web_search` its own entry.
    let dropped = post_json(&proxy.url("/v1/responses"), &json!({"model": "m", "input": "hi", "tools": [function, {"type": "file_search", "vector_store_ids": ["v"]}]})).await;
    assert_eq!(dropped.status(), 200);
    assert_eq!(
        dropped.headers()["x-plaincall-dropped-tools"],
        "file_search"
    );
    let refused = post_json(
        &proxy.url("/v1/responses"),
        &json!({"model": "m", "input": "hi", "tools": [function, {"type": "web_search"}]}),
    )
    .await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["param"], "tools", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("web_search") && message.contains("upstream.hosted_tools"),
        "{message}"
    );
    // Messages: Anthropic's versioned kind falls under its unversioned entry, in its own shape.
    let refused = post_json(
        &proxy.url("/v1/messages"),
        &json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "web_search_20250305", "name": "web_search"}]}),
    )
    .await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["type"], "error", "{body}");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(
        main.chat_requests().len(),
        1,
        "only the request that dropped a tool went on"
    );
}

/// A field the operator drops is never read: a malformed one the upstream would refuse is
/// taken out, not answered with a 400 for the client.
#[tokio::test]
async fn a_dropped_field_is_not_read_first() {
    let main = upstream().await;
    let proxy = Proxy::start(&main.url(), "drop_params = [\"stream_options\", \"n\"]\n").await;
    let body = json!({"model": "m", "n": "2", "stream_options": {"include_usage": "yes"},
        "messages": [{"role": "user", "content": "hi"}]});
    post(&proxy, "/v1/chat/completions", body).await;
    let seen = main.chat_requests()[0].json();
    assert_eq!(fields(&seen), vec!["model", "messages"], "{seen}");
}
