//! Slow and idle clients cannot hold connections: the request head must arrive in time, a
//! request body must keep coming, idle keep-alive connections close, the number of
//! connections is capped, and shutdown closes connections that have no request in flight.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{client, read_until_closed, MockServer, Proxy, Reply};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

async fn proxy_with(server_toml: &str) -> (MockServer, Proxy) {
    let upstream = MockServer::start(|_| Reply::ok(json!({"data": []}))).await;
    let proxy = Proxy::start(&upstream.url(), &format!("[server]\n{server_toml}")).await;
    (upstream, proxy)
}

#[tokio::test]
async fn a_client_that_trickles_its_headers_is_cut_off() {
    let (_upstream, proxy) = proxy_with("header_read_timeout = \"400ms\"\n").await;
    let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
    let started = Instant::now();
    let trickle = tokio::spawn(async move {
        for byte in b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
            if socket.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        socket
    });
    let mut socket = trickle.await.unwrap();
    let closed = read_until_closed(&mut socket, Duration::from_secs(3)).await;
    let (answer, at) = closed.expect("a trickling client kept its connection");
    let held = at - started;
    assert!(answer.is_empty(), "{answer}");
    assert!(
        held >= Duration::from_millis(350) && held < Duration::from_millis(1500),
        "closed after {held:?}"
    );
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed() {
    let (_upstream, proxy) = proxy_with("header_read_timeout = \"300ms\"\n").await;
    let started = Instant::now();
    let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
    let (_, at) = read_until_closed(&mut socket, Duration::from_secs(3))
        .await
        .expect("a silent connection stayed open");
    assert!(
        at - started >= Duration::from_millis(250),
        "{:?}",
        at - started
    );
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let (_upstream, proxy) =
        proxy_with("header_read_timeout = \"5s\"\nidle_timeout = \"400ms\"\n").await;
    let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
    socket
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let (answer, at) = read_until_closed(&mut socket, Duration::from_secs(3))
        .await
        .expect("an idle keep-alive connection stayed open");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let idle = at - started;
    assert!(
        idle >= Duration::from_millis(350) && idle < Duration::from_secs(2),
        "closed after {idle:?}"
    );
}

/// Headers for a body that never finishes: 10 of 100 announced bytes.
async fn stalled_body(proxy: &Proxy, path: &str) -> String {
    let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"model\":"
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    let (answer, _) = read_until_closed(&mut socket, Duration::from_secs(3))
        .await
        .expect("a stalled body kept the connection");
    answer
}

fn error_of(answer: &str) -> Value {
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {answer}"))
}

#[tokio::test]
async fn a_stalled_request_body_gets_408_on_both_paths() {
    let (upstream, proxy) = proxy_with("body_read_timeout = \"300ms\"\n").await;
    for path in ["/v1/chat/completions", "/v1/embeddings"] {
        let answer = stalled_body(&proxy, path).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
        let error = error_of(&answer);
        assert_eq!(error["error"]["code"], "request_timeout", "{error}");
        assert_eq!(error["error"]["type"], "invalid_request_error");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("300ms") && message.contains("server.body_read_timeout"),
            "{message}"
        );
    }
    assert!(upstream.chat_requests().is_empty());
}

#[tokio::test]
async fn a_body_trickled_a_byte_at_a_time_is_cut_at_the_whole_body_deadline() {
    let (upstream, proxy) =
        proxy_with("body_read_timeout = \"500ms\"\nbody_timeout = \"1200ms\"\n").await;
    for path in ["/v1/chat/completions", "/v1/embeddings"] {
        let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        let started = Instant::now();
        // One byte every 200 ms, never silent for body_read_timeout, until plaincall answers.
        let mut answer = Vec::new();
        let mut buffer = [0u8; 4096];
        while started.elapsed() < Duration::from_secs(5) {
            tokio::select! {
                read = tokio::io::AsyncReadExt::read(&mut socket, &mut buffer) => match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => answer.extend_from_slice(&buffer[..n]),
                },
                () = tokio::time::sleep(Duration::from_millis(200)) => {
                    let _ = socket.write_all(b" ").await;
                }
            }
        }
        let elapsed = started.elapsed();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert!(
            elapsed < Duration::from_secs(4),
            "{path}: cut after {elapsed:?}"
        );
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
        let message = error_of(&answer)["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(message.contains("server.body_timeout"), "{path}: {message}");
    }
    assert!(upstream.chat_requests().is_empty());
}

#[tokio::test]
async fn at_the_connection_cap_new_connections_wait_for_a_free_slot() {
    let (_upstream, proxy) =
        proxy_with("max_connections = 2\nheader_read_timeout = \"600ms\"\n").await;
    // The listener accepts connections in the order they were made, so these two take both
    // slots before the client's request is accepted, however soon it follows.
    let _idle: Vec<TcpStream> = vec![
        TcpStream::connect(proxy.addr).await.unwrap(),
        TcpStream::connect(proxy.addr).await.unwrap(),
    ];
    let started = Instant::now();
    let status = client()
        .get(proxy.url("/healthz"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .expect("served once a slot was free")
        .status();
    assert_eq!(status, 200);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(400),
        "served after {waited:?}, past the cap of 2"
    );
}

#[tokio::test]
async fn shutdown_closes_half_read_connections_at_once() {
    let (_upstream, mut proxy) =
        proxy_with("shutdown_grace = \"10s\"\nheader_read_timeout = \"10s\"\n").await;
    let mut half = TcpStream::connect(proxy.addr).await.unwrap();
    half.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-le")
        .await
        .unwrap();
    let mut idle = TcpStream::connect(proxy.addr).await.unwrap();
    // Both are accepted (not left in the listen queue, where closing the listener would reset
    // them for free): a request on a connection made after them is answered.
    let probe = client().get(proxy.url("/healthz")).send().await.unwrap();
    assert_eq!(probe.status(), 200);
    drop(probe);
    let started = Instant::now();
    proxy.shutdown();
    let done = proxy.done.take().unwrap();
    let stopped = tokio::time::timeout(Duration::from_secs(2), done)
        .await
        .expect("shutdown waited on a half-read request")
        .unwrap()
        .unwrap();
    assert_eq!(stopped, plaincall::Stopped::Drained);
    assert!(started.elapsed() < Duration::from_secs(1));
    for socket in [&mut half, &mut idle] {
        assert!(read_until_closed(socket, Duration::from_secs(1))
            .await
            .is_some());
    }
}

#[tokio::test]
async fn shutdown_refuses_a_request_whose_body_is_still_arriving() {
    for path in ["/v1/chat/completions", "/v1/embeddings"] {
        let (_upstream, mut proxy) =
            proxy_with("shutdown_grace = \"10s\"\nbody_read_timeout = \"10s\"\n").await;
        let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
        let head = format!("POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{{\"mo");
        socket.write_all(head.as_bytes()).await.unwrap();
        // Its head is read and the request admitted: its body is what is still arriving.
        support::eventually("the request is admitted", async || {
            proxy.state.metrics.in_flight.get() == 1
        })
        .await;
        let started = Instant::now();
        proxy.shutdown();
        let (answer, _) = read_until_closed(&mut socket, Duration::from_secs(2))
            .await
            .expect("the half-sent request kept its connection");
        assert!(answer.starts_with("HTTP/1.1 503"), "{path}: {answer}");
        assert_eq!(error_of(&answer)["error"]["code"], "shutting_down");
        let stopped = tokio::time::timeout(Duration::from_secs(2), proxy.done.take().unwrap())
            .await
            .expect("shutdown waited on a half-sent body")
            .unwrap()
            .unwrap();
        assert_eq!(stopped, plaincall::Stopped::Drained);
        assert!(started.elapsed() < Duration::from_secs(1), "{path}");
    }
}
