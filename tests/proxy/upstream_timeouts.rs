//! One meaning per upstream timeout, the same on every path, and answers that name the
//! setting that fired: `connect_timeout` (establishing the connection), `timeout` (until the
//! response headers), `read_timeout` (the longest silence inside a response body).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, client, completion, fixture_tool, nl_call, text_message,
    MockServer, Proxy, Reply,
};

const TIMEOUTS: &str =
    "connect_timeout = \"300ms\"\ntimeout = \"400ms\"\nread_timeout = \"500ms\"\n";

fn proxy_toml(extra: &str) -> String {
    format!("{TIMEOUTS}{extra}")
}

async fn post(proxy: &Proxy, body: &Value) -> (u16, Value) {
    support::chat(proxy, body).await
}

fn assert_timeout(status: u16, body: &Value, expected: &str) {
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["error"]["code"], "upstream_timeout", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert_eq!(message, expected);
}

fn tools_request(stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": "x"}], "tools": [fixture_tool("set_reminder")]})
}

/// A body that starts, then goes silent for longer than `read_timeout`.
fn stalling_body() -> Reply {
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": "hi"}}]}).to_string();
    Reply::Sse {
        events: vec![
            (Duration::ZERO, chunk.clone()),
            (Duration::from_secs(3), chunk),
        ],
        cut_after: None,
    }
}

#[tokio::test]
async fn timeout_bounds_the_wait_for_headers_and_says_so() {
    let upstream = MockServer::start(|_| Reply::Hang).await;
    let proxy = Proxy::start(&upstream.url(), &proxy_toml("")).await;
    let expected = "the upstream sent no response headers within 400ms (upstream.timeout)";
    for body in [
        json!({"model": "m", "messages": []}),
        tools_request(false),
        tools_request(true),
    ] {
        let started = Instant::now();
        let (status, answer) = post(&proxy, &body).await;
        assert_timeout(status, &answer, expected);
        assert!(started.elapsed() < Duration::from_millis(1500));
    }
    let response = client().get(proxy.url("/v1/models")).send().await.unwrap();
    assert_eq!(response.status(), 504);
}

#[tokio::test]
async fn read_timeout_bounds_silence_in_a_body_on_every_path() {
    let upstream = MockServer::start(|_| stalling_body()).await;
    let proxy = Proxy::start(&upstream.url(), &proxy_toml("")).await;
    let expected = "the upstream's response stalled: nothing for 500ms (upstream.read_timeout)";
    // The non-streaming rewrite path reads the body whole: a 504.
    let (status, answer) = post(&proxy, &tools_request(false)).await;
    assert_timeout(status, &answer, expected);
    // Streams (relayed and translated) end with an error event naming it.
    for body in [
        json!({"model": "m", "stream": true, "messages": []}),
        tools_request(true),
    ] {
        let response = client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&body)
            .send()
            .await
            .unwrap();
        let started = Instant::now();
        let events = support::sse_events(response).await;
        let last: Value = serde_json::from_str(events.last().unwrap()).unwrap();
        assert_eq!(last["error"]["message"], expected, "{events:?}");
        assert!(started.elapsed() < Duration::from_millis(2000));
    }
}

#[tokio::test]
async fn a_long_stream_is_not_cut_by_timeout() {
    // Chunks keep coming for longer than `timeout`, never silent past `read_timeout`.
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": "x"}}]}).to_string();
    let mut events: Vec<(Duration, String)> = (0..8)
        .map(|_| (Duration::from_millis(150), chunk.clone()))
        .collect();
    events.push((Duration::ZERO, "[DONE]".into()));
    let upstream = MockServer::start(move |_| Reply::Sse {
        events: events.clone(),
        cut_after: None,
    })
    .await;
    let proxy = Proxy::start(&upstream.url(), &proxy_toml("")).await;
    for body in [
        json!({"model": "m", "stream": true, "messages": []}),
        tools_request(true),
    ] {
        let response = client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let text = response.text().await.unwrap();
        assert!(text.contains("[DONE]"), "{text}");
    }
}

#[tokio::test]
async fn a_slow_whole_body_is_not_cut_by_timeout() {
    // The non-streaming rewrite path reads the body whole: 8 pieces 150ms apart take
    // longer than `timeout` (400ms) but are never silent past `read_timeout` (500ms).
    let body = completion(text_message("a slow but steady answer"), "stop").to_string();
    let pieces: Vec<(Duration, String)> = body
        .as_bytes()
        .chunks(body.len() / 8 + 1)
        .map(|c| {
            (
                Duration::from_millis(150),
                String::from_utf8(c.to_vec()).unwrap(),
            )
        })
        .collect();
    let upstream = MockServer::start(move |_| Reply::Trickle(pieces.clone())).await;
    let proxy = Proxy::start(&upstream.url(), &proxy_toml("")).await;
    let (status, answer) = post(&proxy, &tools_request(false)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        "a slow but steady answer"
    );
}

#[tokio::test]
async fn connect_timeout_bounds_connecting_and_says_so() {
    // A listener whose accept queue is full: the kernel drops further SYNs, so connecting
    // hangs (loopback only).
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut held = Vec::new();
    loop {
        match tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(addr),
        )
        .await
        {
            Ok(Ok(stream)) => held.push(stream),
            _ => break,
        }
        assert!(held.len() < 64, "the accept queue never filled");
    }
    let proxy = Proxy::start(&format!("http://{addr}/v1"), &proxy_toml("")).await;
    let (status, answer) = post(&proxy, &json!({"model": "m", "messages": []})).await;
    assert_timeout(
        status,
        &answer,
        "could not connect to the upstream within 300ms (upstream.connect_timeout)",
    );
}

#[tokio::test]
async fn a_translator_backend_timeout_names_its_setting() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("c", "set_reminder", "daily at 09:00")]),
            "tool_calls",
        )),
        crate::support::no_direct_call(),
        Reply::ok(completion(text_message("ok"), "stop")),
    ])
    .await;
    let translator = MockServer::start(|_| Reply::Hang).await;
    let toml = format!("{}timeout = \"300ms\"\n", backend_toml(&translator.url()));
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, _) = post(&proxy, &tools_request(false)).await;
    assert_eq!(status, 200);
    let repair = main.chat_requests()[2].last_message().to_string();
    assert!(
        repair.contains("no response headers within 300ms (translation.backends[0].timeout)"),
        "{repair}"
    );
}
