//! One meaning per upstream timeout, the same on every path, and answers that name the
//! setting that fired: `connect_timeout` (establishing the connection), `timeout` (until the
//! response headers), `read_timeout` (the longest silence inside a response body).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
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

/// A keep-alive HTTP/1.1 server on a raw socket that answers every request with `answer` and
/// reports each connection's close by its client, so a test can watch plaincall let go of an
/// idle connection instead of sleeping past a timeout.
struct KeepAliveServer {
    url: String,
    accepted: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
}

impl KeepAliveServer {
    async fn start(answer: Value) -> KeepAliveServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let (accepted, closed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let body = answer.to_string();
        let (seen, gone) = (accepted.clone(), closed.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                seen.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(answer_until_closed(socket, body.clone(), gone.clone()));
            }
        });
        KeepAliveServer {
            url,
            accepted,
            closed,
        }
    }

    /// Every connection it accepted has been closed by its client.
    fn all_closed(&self) -> bool {
        let accepted = self.accepted.load(Ordering::SeqCst);
        accepted > 0 && self.closed.load(Ordering::SeqCst) == accepted
    }
}

async fn answer_until_closed(
    mut socket: tokio::net::TcpStream,
    body: String,
    closed: Arc<AtomicUsize>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        // One request: headers, then `Content-Length` bytes of body.
        let request_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffer[..at]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if buffer.len() >= at + 4 + length {
                    break at + 4 + length;
                }
            }
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => {
                    closed.fetch_add(1, Ordering::SeqCst);
                    return;
                }
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        buffer.drain(..request_end);
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if socket.write_all(response.as_bytes()).await.is_err() {
            closed.fetch_add(1, Ordering::SeqCst);
            return;
        }
    }
}

#[tokio::test]
async fn an_idle_upstream_connection_is_closed_after_pool_idle_timeout() {
    // llama-server and uvicorn close an idle connection after 5 s; plaincall must let go of
    // its own first, or a request can go out on a connection the server is closing.
    let upstream = KeepAliveServer::start(completion(text_message("hello"), "stop")).await;
    let proxy = Proxy::start(&upstream.url, "pool_idle_timeout = \"150ms\"\n").await;
    let (status, answer) = post(&proxy, &json!({"model": "m", "messages": []})).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["message"]["content"], "hello");
    support::eventually(
        "plaincall closes its idle upstream connection",
        async || upstream.all_closed(),
    )
    .await;
}

#[tokio::test]
async fn a_pooled_connection_is_reused_within_pool_idle_timeout() {
    // The other half of the timeout: before it runs out, the next request takes the same
    // connection (so the close above is the timeout's, not a pool that keeps nothing).
    let upstream = KeepAliveServer::start(completion(text_message("hello"), "stop")).await;
    let proxy = Proxy::start(&upstream.url, "pool_idle_timeout = \"60s\"\n").await;
    for _ in 0..3 {
        let (status, answer) = post(&proxy, &json!({"model": "m", "messages": []})).await;
        assert_eq!(status, 200, "{answer}");
    }
    assert_eq!(upstream.accepted.load(Ordering::SeqCst), 1);
    assert_eq!(upstream.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_idle_translator_connection_is_closed_after_pool_idle_timeout() {
    let upstream = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call(
            "c1",
            "set_reminder",
            "daily at 9, check email",
        )]),
        "tool_calls",
    ))])
    .await;
    let arguments = support::reminder_args().to_string();
    let translator = KeepAliveServer::start(json!({
        "id": "chatcmpl-translator", "object": "chat.completion", "created": 1, "model": "translator",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": arguments}, "finish_reason": "stop"}]
    }))
    .await;
    let toml = format!(
        "pool_idle_timeout = \"150ms\"\n{}",
        backend_toml(&translator.url)
    );
    let proxy = Proxy::start(&upstream.url(), &toml).await;
    let (status, answer) = post(&proxy, &support::reminder_request(false)).await;
    assert_eq!(status, 200, "{answer}");
    let call = support::first_call_arguments(&answer["choices"][0]["message"]);
    assert_eq!(call, support::reminder_args());
    support::eventually(
        "plaincall closes its idle translator connections",
        async || translator.all_closed(),
    )
    .await;
}

#[test]
fn the_default_pool_idle_timeout_is_under_common_servers_keep_alive() {
    let config = plaincall::Config::from_toml("").unwrap();
    // llama-server (cpp-httplib), uvicorn (vLLM) and Node keep an idle connection 5 s.
    assert!(config.upstream.pool_idle_timeout < Duration::from_secs(5));
    let invalid = plaincall::Config::from_toml("[upstream]\npool_idle_timeout = \"0s\"\n");
    assert!(invalid
        .unwrap_err()
        .to_string()
        .contains("upstream.pool_idle_timeout"));
}
