//! A request the upstream's connection closes without answering (a keep-alive connection the
//! server was closing as plaincall wrote on it): a turn or translator call plaincall built is
//! sent once more and the conversation goes on; the second loss is the client's 502, and so is
//! a connection closed after the server worked on the request; a request plaincall relays byte
//! for byte is sent once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::{
    backend_toml, chat, chat_stream_text, completion, described_reminder, first_call_arguments,
    fold_stream, reminder_args, reminder_request, streamed_call, text_message, translator_reply,
    MockServer, Proxy, Reply,
};

/// A TCP front to `behind` that reads each of its first `lose` requests whole and closes the
/// connection without a byte of answer; later connections are spliced through.
struct Losing {
    addr: SocketAddr,
    lost: Arc<AtomicUsize>,
}

impl Losing {
    async fn start(behind: SocketAddr, lose: usize) -> Losing {
        Losing::start_after(behind, lose, Duration::ZERO).await
    }

    /// The same, working on each lost request for `after` before closing its connection.
    async fn start_after(behind: SocketAddr, lose: usize, after: Duration) -> Losing {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let lost = Arc::new(AtomicUsize::new(0));
        let counted = lost.clone();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let counted = counted.clone();
                tokio::spawn(async move {
                    if counted.load(Ordering::SeqCst) < lose {
                        read_request(&mut client).await;
                        tokio::time::sleep(after).await;
                        counted.fetch_add(1, Ordering::SeqCst);
                        let _ = client.shutdown().await;
                        return;
                    }
                    let mut upstream = TcpStream::connect(behind).await.unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                });
            }
        });
        Losing { addr, lost }
    }

    fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    fn lost(&self) -> usize {
        self.lost.load(Ordering::SeqCst)
    }
}

/// Reads one request: its head, then the `Content-Length` bytes of its body.
async fn read_request(stream: &mut TcpStream) {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the connection closed before a whole request head");
        seen.extend_from_slice(&buffer[..n]);
        if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&seen[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map(|value| value.trim().parse().unwrap())
        .expect("plaincall sends a whole body with its length");
    while seen.len() < head_end + length {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the connection closed before the whole body");
        seen.extend_from_slice(&buffer[..n]);
    }
}

#[tokio::test]
async fn a_lost_turn_is_sent_once_more() {
    for stream in [false, true] {
        let described = if stream {
            let description = json!({"description": "daily at 09:00 to check email"});
            streamed_call("call_1", "set_reminder", &description.to_string(), 16)
        } else {
            described_reminder()
        };
        let main = MockServer::scripted(vec![described]).await;
        let losing = Losing::start(main.addr, 1).await;
        let translator =
            MockServer::scripted(vec![translator_reply(&reminder_args().to_string())]).await;
        let proxy = Proxy::start(&losing.url(), &backend_toml(&translator.url())).await;

        let message = if stream {
            fold_stream(&chat_stream_text(&proxy, &reminder_request(true)).await)
        } else {
            let (status, body) = chat(&proxy, &reminder_request(false)).await;
            assert_eq!(status, 200, "{body}");
            body["choices"][0]["message"].clone()
        };
        assert_eq!(first_call_arguments(&message), reminder_args(), "{message}");
        assert_eq!(losing.lost(), 1);
        assert_eq!(
            main.chat_requests().len(),
            1,
            "answered once, on the second try"
        );
    }
}

#[tokio::test]
async fn a_lost_translator_call_is_sent_once_more() {
    let main = MockServer::scripted(vec![described_reminder()]).await;
    let translator =
        MockServer::scripted(vec![translator_reply(&reminder_args().to_string())]).await;
    let losing = Losing::start(translator.addr, 1).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&losing.url())).await;

    let (status, body) = chat(&proxy, &reminder_request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        first_call_arguments(&body["choices"][0]["message"]),
        reminder_args()
    );
    assert_eq!(losing.lost(), 1);
    assert_eq!(translator.chat_requests().len(), 1);
}

#[tokio::test]
async fn a_turn_lost_twice_is_a_502_in_the_client_s_format() {
    let main = MockServer::scripted(vec![described_reminder()]).await;
    let losing = Losing::start(main.addr, 2).await;
    let proxy = Proxy::start(&losing.url(), "").await;

    let (status, body) = chat(&proxy, &reminder_request(false)).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "upstream_unreachable", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("connection closed"), "{message}");
    assert_eq!(losing.lost(), 2, "sent twice, not a third time");
    assert!(main.chat_requests().is_empty());
}

#[tokio::test]
async fn a_turn_closed_after_the_server_worked_on_it_is_sent_once() {
    let main = MockServer::scripted(vec![described_reminder()]).await;
    // Past the 2 s in which a closing keep-alive connection fails.
    let losing = Losing::start_after(main.addr, 1, Duration::from_millis(2200)).await;
    let proxy = Proxy::start(&losing.url(), "").await;

    let (status, body) = chat(&proxy, &reminder_request(false)).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "upstream_unreachable", "{body}");
    assert_eq!(losing.lost(), 1);
    assert!(main.chat_requests().is_empty(), "not sent again");
}

#[tokio::test]
async fn a_forwarded_request_is_sent_once() {
    let main = MockServer::scripted(vec![Reply::ok(completion(text_message("hi"), "stop"))]).await;
    let losing = Losing::start(main.addr, 1).await;
    let proxy = Proxy::start(&losing.url(), "").await;

    let plain = json!({"model": "m", "messages": [{"role": "user", "content": "hello"}]});
    let (status, body) = chat(&proxy, &plain).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "upstream_unreachable", "{body}");
    assert_eq!(losing.lost(), 1);
    // The next request is answered: nothing was held back for a retry.
    let (status, body) = chat(&proxy, &plain).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(main.chat_requests().len(), 1);
}
