//! A stream plaincall ends early ends with an SSE `error` event in the OpenAI shape: when the
//! shutdown grace period runs out (and then `serve` exits non-zero) and when the upstream
//! resets a relayed stream, or sends a tool-call index out of range. Log lines written while
//! streaming carry the `request_id`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{client, fixture_tool, Binary, MockServer, Proxy, Reply};

fn chunks(n: usize, gap: Duration) -> Vec<(Duration, String)> {
    (0..n)
        .map(|i| {
            let chunk = json!({"id": "s", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": format!("t{i} ")}, "finish_reason": null}]});
            (if i == 0 { Duration::ZERO } else { gap }, chunk.to_string())
        })
        .collect()
}

fn slow_stream() -> Reply {
    Reply::Sse {
        events: chunks(100, Duration::from_millis(100)),
        cut_after: None,
    }
}

/// The raw SSE text, and the last event's data as JSON.
/// The stream to its end, after `read` (what was already read of it): all of it, and its last
/// event's data.
async fn read_to_end(response: reqwest::Response, read: String) -> (String, Value) {
    let raw = read + &response.text().await.expect("the stream ends cleanly");
    let last = raw
        .split("\n\n")
        .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
        .last()
        .unwrap_or_else(|| panic!("no events: {raw}"))
        .to_owned();
    let last = serde_json::from_str(&last).unwrap_or_else(|_| panic!("last event: {last}"));
    (raw, last)
}

/// A stream started: its response, and its first chunk (events that are ready together come
/// in one chunk, so this may hold the whole stream).
async fn start_stream(proxy: &Proxy, body: &Value) -> (reqwest::Response, String) {
    let mut response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let first = response.chunk().await.unwrap().expect("a first chunk");
    (response, String::from_utf8_lossy(&first).into_owned())
}

#[tokio::test]
async fn grace_expiry_ends_open_streams_with_an_error_event() {
    let upstream = MockServer::start(|_| slow_stream()).await;
    let mut proxy = Proxy::start(&upstream.url(), "[server]\nshutdown_grace = \"300ms\"\n").await;
    // One relayed as it is, one through the translating stream (a rewritten tool).
    let relayed = start_stream(
        &proxy,
        &json!({"model": "m", "stream": true, "messages": []}),
    )
    .await;
    let translated = start_stream(
        &proxy,
        &json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}], "tools": [fixture_tool("set_reminder")]}),
    )
    .await;
    proxy.shutdown();
    for (response, first) in [relayed, translated] {
        let (raw, last) =
            tokio::time::timeout(Duration::from_secs(3), read_to_end(response, first))
                .await
                .expect("the stream ended after the grace period");
        assert!(raw.contains("event: error\ndata: "), "{raw}");
        assert_eq!(last["error"]["code"], "shutting_down", "{last}");
        assert!(last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("server.shutdown_grace"));
    }
    let stopped = tokio::time::timeout(Duration::from_secs(3), proxy.done.take().unwrap())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(stopped, plaincall::Stopped::GraceExpired);
}

#[tokio::test]
async fn an_upstream_reset_ends_a_relayed_stream_with_an_error_event() {
    let upstream = MockServer::start(|_| Reply::Sse {
        events: chunks(10, Duration::from_millis(20)),
        cut_after: Some(4),
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    for path in ["/v1/chat/completions", "/v1/completions"] {
        let response = client()
            .post(proxy.url(path))
            .json(&json!({"model": "m", "stream": true, "messages": []}))
            .send()
            .await
            .unwrap();
        let (raw, last) = read_to_end(response, String::new()).await;
        assert!(raw.contains("t0 "), "{path}: {raw}");
        assert!(raw.contains("event: error\ndata: "), "{path}: {raw}");
        assert_eq!(last["error"]["type"], "upstream_error", "{path}: {last}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_logs_carry_the_request_id_and_a_cut_stream_exits_3() {
    let upstream = MockServer::start(|request| {
        if request.json()["messages"][0]["content"] == "broken" {
            Reply::SseRaw(vec!["data: {not json\n\n".into()])
        } else {
            slow_stream()
        }
    })
    .await;
    let upstream_url = upstream.url();
    let binary = Binary::serve(&[
        ("PLAINCALL_UPSTREAM_URL", upstream_url.as_str()),
        ("PLAINCALL_SERVER_SHUTDOWN_GRACE", "300ms"),
    ])
    .await;
    let body = |content: &str| json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": content}], "tools": [fixture_tool("set_reminder")]});
    let broken = client()
        .post(binary.url("/v1/chat/completions"))
        .header("x-request-id", "rid-broken-stream")
        .json(&body("broken"))
        .send()
        .await
        .unwrap();
    let (_, last) = read_to_end(broken, String::new()).await;
    assert_eq!(last["error"]["code"], "upstream_protocol_error", "{last}");

    let mut open = client()
        .post(binary.url("/v1/chat/completions"))
        .json(&body("fine"))
        .send()
        .await
        .unwrap();
    assert!(open.chunk().await.unwrap().is_some());
    binary.terminate();
    let (_, last) = read_to_end(open, String::new()).await;
    assert_eq!(last["error"]["code"], "shutting_down", "{last}");
    let (code, logs) = binary.wait().await;
    assert_eq!(code, Some(3), "{logs:?}");
    let line = logs
        .iter()
        .find(|l| l.contains("stream ended with an error"))
        .unwrap_or_else(|| panic!("no stream error logged: {logs:?}"));
    assert!(line.contains("rid-broken-stream"), "{line}");
}

#[tokio::test]
async fn a_tool_call_index_out_of_range_ends_the_stream_with_an_error_event() {
    // u64::MAX, as a broken or hostile upstream might send it: an error event, not a panic.
    let call = json!({"index": u64::MAX, "id": "call_x", "type": "function",
        "function": {"name": "get_weather", "arguments": "{}"}});
    let upstream = MockServer::scripted(vec![Reply::sse(vec![json!({"id": "s",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": null}]})])])
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let body = json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}],
        "tools": [fixture_tool("set_reminder"), fixture_tool("get_weather")]});
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let (raw, last) =
        tokio::time::timeout(Duration::from_secs(5), read_to_end(response, String::new()))
            .await
            .expect("the stream ends");
    assert!(raw.contains("event: error\ndata: "), "{raw}");
    assert_eq!(last["error"]["code"], "upstream_protocol_error", "{last}");
    assert!(last["error"]["message"]
        .as_str()
        .unwrap()
        .contains("out of range"));
    assert!(
        !raw.contains("call_x"),
        "the bad call is not passed on: {raw}"
    );
}

const KEY: &str = "sk-upstream-secret-4242";

/// An upstream that echoes its key in an error event inside a 200 stream: relayed as is or
/// through the translating stream, the client never reads the key.
#[tokio::test]
async fn an_error_event_inside_a_stream_is_scrubbed_of_the_upstream_key() {
    let echo =
        json!({"error": {"message": format!("invalid key {KEY}"), "type": "auth"}}).to_string();
    let upstream = MockServer::start(move |_| {
        Reply::SseRaw(vec![
            "data: {\"id\":\"s\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n".into(),
            format!("event: error\ndata: {echo}\n\n"),
        ])
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), &format!("api_key = \"{KEY}\"")).await;
    for tools in [json!([]), json!([fixture_tool("set_reminder")])] {
        let body = json!({"model": "m", "stream": true, "tools": tools,
            "messages": [{"role": "user", "content": "x"}]});
        let response = client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&body)
            .send()
            .await
            .unwrap();
        let raw = response.text().await.unwrap();
        assert!(raw.contains("invalid key [redacted]"), "{raw}");
        assert!(!raw.contains(KEY), "the key reached the client: {raw}");
    }
}

/// A translated stream whose upstream closes after a finish reason but without `[DONE]` is
/// cut (its usage chunk, say, never came): it ends with an error event, not as complete.
#[tokio::test]
async fn a_translated_stream_closed_without_done_ends_with_an_error_event() {
    let finished = json!({"id": "s", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": "stop"}]});
    let upstream =
        MockServer::start(move |_| Reply::SseRaw(vec![format!("data: {finished}\n\n")])).await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let body = json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}],
        "tools": [fixture_tool("set_reminder")]});
    let (response, first) = start_stream(&proxy, &body).await;
    let (raw, last) = read_to_end(response, first).await;
    assert!(!raw.contains("data: [DONE]"), "{raw}");
    assert_eq!(last["error"]["code"], "upstream_protocol_error", "{raw}");
}

/// A `tool_calls` that is not a list is an error streamed as it is whole, never read as no
/// calls: the stream ends with an error event, the whole answer is a 502.
#[tokio::test]
async fn a_malformed_tool_calls_is_an_error_streamed_or_whole() {
    let opening = json!({"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "set_reminder", "arguments": "{\"description\": \"daily"}});
    let chunk = |delta: Value| {
        json!({"id": "s", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    };
    let malformed = json!({"index": 0, "function": {"arguments": " at 9\"}"}});
    let upstream = MockServer::scripted(vec![
        Reply::sse(vec![
            chunk(json!({"role": "assistant", "tool_calls": [opening]})),
            // An object where the list belongs.
            chunk(json!({"tool_calls": malformed})),
        ]),
        Reply::ok(
            json!({"id": "w", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                "message": {"role": "assistant", "tool_calls": {"id": "call_1"}}}]}),
        ),
    ])
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let body = |stream: bool| {
        json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": "x"}],
            "tools": [fixture_tool("set_reminder")]})
    };
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&body(true))
        .send()
        .await
        .unwrap();
    let (raw, last) =
        tokio::time::timeout(Duration::from_secs(5), read_to_end(response, String::new()))
            .await
            .expect("the stream ends");
    assert!(raw.contains("event: error\ndata: "), "{raw}");
    assert_eq!(last["error"]["code"], "upstream_protocol_error", "{last}");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`tool_calls` is malformed"),
        "{last}"
    );
    let (status, whole) = support::chat(&proxy, &body(false)).await;
    assert_eq!(status, 502, "{whole}");
    assert!(whole["error"]["message"]
        .as_str()
        .unwrap()
        .contains("`tool_calls` is malformed"));
}

/// Before any call plaincall handles, a stream's chunks go on as they came; a malformed field
/// in one is still an error, as it is once plaincall handles a call: never read as no calls
/// (which the other formats would render as nothing).
#[tokio::test]
async fn a_malformed_field_before_any_handled_call_is_an_error_too() {
    let chunk =
        |choice: Value| json!({"id": "s", "object": "chat.completion.chunk", "choices": [choice]});
    for (bad, field) in [
        (
            json!({"index": 0, "delta": {"tool_calls": {"index": 0}}}),
            "tool_calls",
        ),
        (json!({"index": "0", "delta": {"content": "x"}}), "index"),
        (
            json!({"index": 0, "delta": {}, "finish_reason": 1}),
            "finish_reason",
        ),
        // A call's own fields, typed as a whole call's are.
        (
            json!({"index": 0, "delta": {"tool_calls": [{"index": "0", "function": {"arguments": "{}"}}]}}),
            "tool_calls",
        ),
        (
            json!({"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": 5}}]}}),
            "tool_calls",
        ),
    ] {
        let upstream = MockServer::scripted(vec![Reply::sse(vec![
            chunk(json!({"index": 0, "delta": {"role": "assistant", "content": "Hi"}})),
            chunk(bad),
        ])])
        .await;
        let proxy = Proxy::start(&upstream.url(), "").await;
        let body = json!({"model": "m", "stream": true,
            "messages": [{"role": "user", "content": "x"}],
            "tools": [fixture_tool("set_reminder")]});
        let (response, first) = start_stream(&proxy, &body).await;
        let (raw, last) =
            tokio::time::timeout(Duration::from_secs(5), read_to_end(response, first))
                .await
                .expect("the stream ends");
        // What came before it went on as it came.
        assert!(raw.contains(r#""content":"Hi""#), "{raw}");
        assert!(!raw.contains("data: [DONE]"), "{raw}");
        assert_eq!(last["error"]["code"], "upstream_protocol_error", "{raw}");
        let message = last["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("`{field}` is malformed")),
            "{message}"
        );
    }
}

/// A stream forwarded as it came for another format's client (nothing to translate) is read
/// as the driver reads one: a malformed field is an error event in the client's format, never
/// read as absent.
#[tokio::test]
async fn a_malformed_field_in_a_forwarded_stream_is_an_error_in_the_clients_format() {
    let chunk =
        |choice: Value| json!({"id": "s", "object": "chat.completion.chunk", "choices": [choice]});
    let upstream = MockServer::scripted(vec![Reply::sse(vec![
        chunk(json!({"index": 0, "delta": {"role": "assistant", "content": "Hi"}})),
        chunk(json!({"index": 0, "delta": {}, "finish_reason": 1})),
    ])])
    .await;
    let proxy = Proxy::start(&upstream.url(), "").await;
    let body = json!({"model": "m", "max_tokens": 50, "stream": true,
        "messages": [{"role": "user", "content": "x"}]});
    let response = client()
        .post(proxy.url("/v1/messages"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let raw = tokio::time::timeout(Duration::from_secs(5), response.text())
        .await
        .expect("the stream ends")
        .unwrap();
    assert!(raw.contains("\"text\":\"Hi\""), "{raw}");
    assert!(raw.contains("event: error\n"), "{raw}");
    assert!(raw.contains("`finish_reason` is malformed"), "{raw}");
    assert!(!raw.contains("message_stop"), "{raw}");
}
