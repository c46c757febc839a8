//! Shared test helpers: scriptable mock servers (main model, translator, any `/v1` route) on
//! `127.0.0.1:0`, plaincall itself started in-process on a real socket or as its binary, and
//! [`eventually`], how a test waits for something to happen (never a fixed pause).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod redis_server;
pub use redis_server::RedisServer;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use axum::Router;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// One request a mock received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
    /// The last message's content (for chat requests).
    pub fn last_message(&self) -> Value {
        self.json()["messages"]
            .as_array()
            .and_then(|m| m.last().cloned())
            .unwrap_or(Value::Null)
    }
    pub fn user_message(&self) -> String {
        let body = self.json();
        body["messages"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned()
    }
}

/// What a mock answers.
#[derive(Clone, Debug)]
pub enum Reply {
    Json {
        status: u16,
        body: String,
    },
    /// SSE events (each the text after `data: `), with a delay before each.
    Sse {
        events: Vec<(Duration, String)>,
        cut_after: Option<usize>,
    },
    /// Raw bytes as an SSE body, sent in the given pieces.
    SseRaw(Vec<String>),
    /// A JSON body sent in pieces, each after its pause.
    Trickle(Vec<(Duration, String)>),
    /// Never answers.
    Hang,
    /// Answers after a pause (without blocking the mock's other requests).
    Delayed(Duration, Box<Reply>),
    /// The inner reply with one more response header.
    WithHeader(&'static str, String, Box<Reply>),
    /// A redirect (`302`, `307`, ...) to `location`.
    Redirect {
        status: u16,
        location: String,
    },
}

impl Reply {
    pub fn ok(body: Value) -> Reply {
        Reply::Json {
            status: 200,
            body: body.to_string(),
        }
    }
    pub fn text(status: u16, body: &str) -> Reply {
        Reply::Json {
            status,
            body: body.to_owned(),
        }
    }
    pub fn sse(events: Vec<Value>) -> Reply {
        let mut all: Vec<(Duration, String)> = events
            .into_iter()
            .map(|e| (Duration::ZERO, e.to_string()))
            .collect();
        all.push((Duration::ZERO, "[DONE]".into()));
        Reply::Sse {
            events: all,
            cut_after: None,
        }
    }
}

type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

pub struct MockServer {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    warm_ups: WarmUps,
    /// Set when a streamed body was dropped before its end (the client went away).
    pub stream_dropped: Arc<AtomicBool>,
    pub streams_finished: Arc<AtomicUsize>,
    /// The most requests it was answering at the same time.
    pub max_in_flight: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    accepted: Arc<AtomicUsize>,
    _shutdown: oneshot::Sender<()>,
}

/// A translator's warm-ups (plaincall sending a tool's prompt ahead, `max_tokens: 1` and an
/// empty request): answered by the mock itself, after `delay`, and kept apart from
/// `requests()`, so that a test about anything else sees only the translations it scripts.
#[derive(Clone, Default)]
struct WarmUps {
    seen: Arc<Mutex<Vec<Recorded>>>,
    delay: Arc<Mutex<Duration>>,
    /// Warm-ups answered in full (not given up by plaincall first).
    answered: Arc<AtomicUsize>,
    /// Warm-ups still waiting for their answer (plaincall's cancel drops them).
    open: Arc<AtomicUsize>,
    /// The most warm-ups waiting at the same time.
    max_open: Arc<AtomicUsize>,
}

fn is_warm_up(recorded: &Recorded) -> bool {
    let Ok(body) = serde_json::from_slice::<Value>(&recorded.body) else {
        return false;
    };
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    body["max_tokens"] == 1
        && matches!(messages, [system, user] if system["role"] == "system"
            && user["role"] == "user" && user["content"] == "")
}

#[derive(Clone)]
struct MockState {
    requests: Arc<Mutex<Vec<Recorded>>>,
    warm_ups: WarmUps,
    responder: Responder,
    stream_dropped: Arc<AtomicBool>,
    streams_finished: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl MockServer {
    /// A mock whose every request is answered by `responder`.
    pub async fn start(
        responder: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
    ) -> MockServer {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stream_dropped = Arc::new(AtomicBool::new(false));
        let streams_finished = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let warm_ups = WarmUps::default();
        let state = MockState {
            requests: requests.clone(),
            warm_ups: warm_ups.clone(),
            responder: Arc::new(responder),
            stream_dropped: stream_dropped.clone(),
            streams_finished: streams_finished.clone(),
            in_flight: in_flight.clone(),
            max_in_flight: max_in_flight.clone(),
        };
        let app = Router::new().fallback(handle).with_state(state);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let listener = {
            use axum::serve::ListenerExt;
            let accepted = accepted.clone();
            listener.tap_io(move |_| {
                accepted.fetch_add(1, Ordering::SeqCst);
            })
        };
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .await
                .ok();
        });
        MockServer {
            addr,
            requests,
            warm_ups,
            stream_dropped,
            streams_finished,
            max_in_flight,
            in_flight,
            accepted,
            _shutdown: tx,
        }
    }

    /// A mock that answers with `replies` in order, then 500s.
    pub async fn scripted(replies: Vec<Reply>) -> MockServer {
        let queue = Mutex::new(VecDeque::from(replies));
        MockServer::start(move |_| {
            queue.lock().unwrap().pop_front().unwrap_or_else(|| {
                Reply::text(500, r#"{"error":{"message":"mock script exhausted"}}"#)
            })
        })
        .await
    }

    /// `http://127.0.0.1:port/v1`
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// The warm-ups plaincall sent (see [`WarmUps`]), and how many were answered in full.
    pub fn warm_ups(&self) -> (Vec<Recorded>, usize) {
        let seen = self.warm_ups.seen.lock().unwrap().clone();
        (seen, self.warm_ups.answered.load(Ordering::SeqCst))
    }

    /// Warm-ups still waiting for their answer.
    pub fn open_warm_ups(&self) -> usize {
        self.warm_ups.open.load(Ordering::SeqCst)
    }

    /// The most warm-ups that were waiting for their answer at the same time.
    pub fn max_open_warm_ups(&self) -> usize {
        self.warm_ups.max_open.load(Ordering::SeqCst)
    }

    /// Warm-ups are answered after `delay` from now on.
    pub fn delay_warm_ups(&self, delay: Duration) {
        *self.warm_ups.delay.lock().unwrap() = delay;
    }

    /// TCP connections accepted so far.
    pub fn accepted_connections(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Requests still being answered (a client that went away no longer counts).
    pub fn open_connections(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    pub fn chat_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .collect()
    }
}

struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

struct DropFlag {
    flag: Arc<AtomicBool>,
    finished: Arc<AtomicUsize>,
    done: bool,
}

impl Drop for DropFlag {
    fn drop(&mut self) {
        if self.done {
            self.finished.fetch_add(1, Ordering::SeqCst);
        } else {
            self.flag.store(true, Ordering::SeqCst);
        }
    }
}

async fn handle(State(state): State<MockState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let recorded = Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts.headers,
        body,
    };
    if is_warm_up(&recorded) {
        state.warm_ups.seen.lock().unwrap().push(recorded);
        let delay = *state.warm_ups.delay.lock().unwrap();
        let now = state.warm_ups.open.fetch_add(1, Ordering::SeqCst) + 1;
        state.warm_ups.max_open.fetch_max(now, Ordering::SeqCst);
        let waiting = InFlight(state.warm_ups.open.clone());
        tokio::time::sleep(delay).await;
        drop(waiting);
        state.warm_ups.answered.fetch_add(1, Ordering::SeqCst);
        let body = json!({"id": "warm", "object": "chat.completion", "created": 1, "model": "translator",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "{"}, "finish_reason": "length"}]});
        return Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
    }
    state.requests.lock().unwrap().push(recorded.clone());
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.max_in_flight.fetch_max(now, Ordering::SeqCst);
    // Counts down when the answer is ready or when the server drops the request (the client
    // closed the connection).
    let answering = InFlight(state.in_flight.clone());
    let mut reply = (state.responder)(&recorded);
    let mut extra_headers = Vec::new();
    loop {
        match reply {
            Reply::Delayed(pause, inner) => {
                tokio::time::sleep(pause).await;
                reply = *inner;
            }
            Reply::WithHeader(name, value, inner) => {
                extra_headers.push((name, value));
                reply = *inner;
            }
            _ => break,
        }
    }
    if let Reply::Hang = reply {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    drop(answering);
    let mut response = match reply {
        Reply::Delayed(..) | Reply::WithHeader(..) => unreachable!("unwrapped above"),
        Reply::Json { status, body } => Response::builder()
            .status(StatusCode::from_u16(status).unwrap())
            .header("content-type", "application/json")
            .header("x-mock", "yes")
            .body(Body::from(body))
            .unwrap(),
        Reply::Hang => Response::new(Body::empty()),
        Reply::Redirect { status, location } => Response::builder()
            .status(StatusCode::from_u16(status).unwrap())
            .header("location", location)
            .body(Body::empty())
            .unwrap(),
        Reply::Trickle(pieces) => {
            let stream = futures_util::stream::iter(pieces).then(|(pause, piece)| async move {
                tokio::time::sleep(pause).await;
                Ok::<_, std::io::Error>(Bytes::from(piece))
            });
            Response::builder()
                .header("content-type", "application/json")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        Reply::SseRaw(pieces) => {
            let stream = futures_util::stream::iter(
                pieces
                    .into_iter()
                    .map(|p| Ok::<_, std::io::Error>(Bytes::from(p))),
            );
            sse(Body::from_stream(stream))
        }
        Reply::Sse { events, cut_after } => {
            let guard = DropFlag {
                flag: state.stream_dropped.clone(),
                finished: state.streams_finished.clone(),
                done: false,
            };
            let stream = futures_util::stream::unfold(
                (events.into_iter().enumerate(), guard),
                move |(mut it, mut guard)| async move {
                    match it.next() {
                        Some((i, (delay, data))) => {
                            if cut_after.is_some_and(|c| i >= c) {
                                guard.done = true;
                                return Some((Err(std::io::Error::other("cut")), (it, guard)));
                            }
                            tokio::time::sleep(delay).await;
                            Some((
                                Ok::<_, std::io::Error>(Bytes::from(format!("data: {data}\n\n"))),
                                (it, guard),
                            ))
                        }
                        None => {
                            guard.done = true;
                            drop(guard);
                            None
                        }
                    }
                },
            );
            sse(Body::from_stream(stream))
        }
    };
    for (name, value) in extra_headers {
        response
            .headers_mut()
            .insert(name, HeaderValue::from_str(&value).unwrap());
    }
    response
}

fn sse(body: Body) -> Response {
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(body)
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// plaincall in-process
// ---------------------------------------------------------------------------------------------

pub struct Proxy {
    pub addr: SocketAddr,
    pub state: Arc<plaincall::AppState>,
    shutdown: Option<oneshot::Sender<()>>,
    pub done: Option<tokio::task::JoinHandle<std::io::Result<plaincall::Stopped>>>,
}

impl Proxy {
    /// plaincall in front of `upstream`, with extra TOML appended to the config.
    pub async fn start(upstream: &str, extra_toml: &str) -> Proxy {
        let toml =
            format!("listen = \"127.0.0.1:0\"\n[upstream]\nurl = \"{upstream}\"\n{extra_toml}");
        let config = plaincall::Config::from_toml(&toml).expect("test config is valid");
        Proxy::with_config(config).await
    }

    pub async fn with_config(config: plaincall::Config) -> Proxy {
        plaincall::install_crypto_provider();
        let state = plaincall::AppState::new(config).expect("app builds");
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let done = tokio::spawn(plaincall::serve(listener, state.clone(), async move {
            let _ = rx.await;
        }));
        Proxy {
            addr,
            state,
            shutdown: Some(tx),
            done: Some(done),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `http://127.0.0.1:port/v1`, for OpenAI clients.
    pub fn base_url(&self) -> String {
        self.url("/v1")
    }

    pub fn shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    pub fn metrics(&self) -> String {
        self.state.metrics.render()
    }
}

/// Waits until `check` holds, asking again every 20 ms; panics with `what` after 10 s. Tests
/// wait on an event the code emits this way (a counter, a recorded request, a key in Redis),
/// never on a fixed pause that hopes the event came.
pub async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let limit = Duration::from_secs(10);
    let deadline = tokio::time::Instant::now() + limit;
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "not within {limit:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Posts JSON to `/v1/chat/completions`; returns status and parsed body.
pub async fn chat(proxy: &Proxy, body: &Value) -> (u16, Value) {
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// POSTs `body` as JSON to `url`.
/// Posts a streamed chat request; asserts a 200 and returns the event stream as text.
pub async fn chat_stream_text(proxy: &Proxy, body: &Value) -> String {
    let response = post_json(&proxy.url("/v1/chat/completions"), body).await;
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

pub async fn post_json(url: &str, body: &Value) -> reqwest::Response {
    client().post(url).json(body).send().await.unwrap()
}

/// Posts `body` as it is (any bytes, labelled JSON) to `path`; returns status and the answer,
/// parsed when it is JSON.
pub async fn post_raw(proxy: &Proxy, path: &str, body: &str) -> (u16, Value) {
    let response = client()
        .post(proxy.url(path))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Reads an SSE response to its end: the `data:` payloads, in order.
pub async fn sse_events(response: reqwest::Response) -> Vec<String> {
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// OpenAI-shaped bodies
// ---------------------------------------------------------------------------------------------

pub fn fixture_tool(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/tools/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .unwrap()
}

pub fn completion(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-upstream-1",
        "object": "chat.completion",
        "created": 1_760_000_000,
        "model": "main-model",
        "system_fingerprint": "fp_mock",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        "timings": {"predicted_per_second": 61.5}
    })
}

pub fn tool_call(id: &str, name: &str, arguments: &Value) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
}

pub fn nl_call(id: &str, name: &str, description: &str) -> Value {
    tool_call(id, name, &json!({"description": description}))
}

/// The arguments of a message's first tool call, parsed.
pub fn first_call_arguments(message: &Value) -> Value {
    serde_json::from_str(
        message["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap()
}

/// What a translator answers for "remind me daily at 9 to check email".
pub fn reminder_args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

/// The main model's turn that describes [`reminder_args`]: one plain-English `set_reminder`
/// call, `call_1`.
pub fn described_reminder() -> Reply {
    Reply::ok(completion(
        calls_message(vec![nl_call(
            "call_1",
            "set_reminder",
            "daily at 09:00 to check email",
        )]),
        "tool_calls",
    ))
}

/// "remind me daily at 9 to check email" with the `set_reminder` fixture, streamed or not.
pub fn reminder_request(stream: bool) -> Value {
    json!({
        "model": "main-model",
        "messages": [{"role": "user", "content": "remind me daily at 9 to check email"}],
        "tools": [fixture_tool("set_reminder")],
        "stream": stream,
    })
}

/// One Chat Completions stream chunk of choice 0.
pub fn stream_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "main-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// A streamed answer of one call `id` to `name` whose `arguments` come `piece` bytes a chunk.
pub fn streamed_call(id: &str, name: &str, arguments: &str, piece: usize) -> Reply {
    let mut chunks = vec![stream_chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "id": id,
            "type": "function", "function": {"name": name, "arguments": ""}}]}),
        None,
    )];
    for part in arguments.as_bytes().chunks(piece) {
        chunks.push(stream_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": String::from_utf8_lossy(part)}}]}),
            None,
        ));
    }
    chunks.push(stream_chunk(json!({}), Some("tool_calls")));
    Reply::sse(chunks)
}

pub fn calls_message(calls: Vec<Value>) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

pub fn text_message(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// The main model's answer when plaincall asks it for a call directly (after a translation
/// failed): no call, so the failure goes back to it as a repair turn.
pub fn no_direct_call() -> Reply {
    Reply::ok(completion(text_message("(no call)"), "stop"))
}

/// A translator backend's reply carrying `content`.
pub fn translator_reply(content: &str) -> Reply {
    translator_reply_ending(content, "stop")
}

/// A translator's answer with its `finish_reason` ("length": cut off at `max_tokens`).
pub fn translator_reply_ending(content: &str, finish_reason: &str) -> Reply {
    Reply::ok(json!({
        "id": "chatcmpl-translator",
        "object": "chat.completion",
        "created": 1,
        "model": "translator",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}]
    }))
}

/// TOML for one translator backend at `url`.
pub fn backend_toml(url: &str) -> String {
    format!("[[translation.backends]]\nurl = \"{url}\"\nmodel = \"translator-model\"\n")
}

// ---------------------------------------------------------------------------------------------
// The real binary
// ---------------------------------------------------------------------------------------------

/// The binary, run from the repository root, with no inherited `PLAINCALL_*` or `RUST_LOG`.
pub fn plaincall_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_plaincall"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, _) in std::env::vars_os() {
        let key_text = key.to_string_lossy();
        if key_text.starts_with("PLAINCALL_") || key_text.starts_with("OTEL_") || key == "RUST_LOG"
        {
            command.env_remove(&key);
        }
    }
    command.stdin(std::process::Stdio::null());
    command
}

/// Runs a one-shot command within 30 s; returns (exit code, stdout, stderr).
pub async fn run_command(command: std::process::Command) -> (Option<i32>, String, String) {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(30), command.output())
        .await
        .expect("the command finishes in time")
        .expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `plaincall serve` as a child process, its stderr collected line by line.
pub struct Served {
    child: tokio::process::Child,
    lines: Arc<Mutex<Vec<String>>>,
    /// Reads stderr into `lines`; ends when the process has exited and its last line is in.
    reader: tokio::task::JoinHandle<()>,
    pub addr: String,
}

impl Served {
    /// Starts `serve` on `127.0.0.1:0` with `env`, and waits for the line that says where.
    pub async fn start(env: &[(&str, &str)]) -> Served {
        use tokio::io::AsyncBufReadExt;
        // The test's own HTTP client needs it.
        plaincall::install_crypto_provider();
        let mut command = plaincall_command();
        command
            .arg("serve")
            .env("PLAINCALL_LISTEN", "127.0.0.1:0")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        let mut child = command.spawn().expect("serve starts");
        let stderr = child.stderr.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let collected = lines.clone();
        let reader = tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                collected.lock().unwrap().push(line);
            }
        });
        let mut served = Served {
            child,
            lines,
            reader,
            addr: String::new(),
        };
        let line = served.wait_for_line("plaincall listening").await;
        let start = line.find("127.0.0.1:").expect("the line names the address");
        served.addr = line[start..]
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
            .next()
            .unwrap()
            .to_owned();
        served
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn logs(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// The first log line containing `needle`, waiting up to 10 s for it.
    pub async fn wait_for_line(&self, needle: &str) -> String {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(line) = self.logs().into_iter().find(|l| l.contains(needle)) {
                return line;
            }
            if tokio::time::Instant::now() > deadline {
                panic!("no log line with `{needle}`:\n{}", self.logs().join("\n"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Kills the process; every line it wrote (the reader has reached the end of stderr).
    pub async fn stop(mut self) -> Vec<String> {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        tokio::time::timeout(Duration::from_secs(10), &mut self.reader)
            .await
            .expect("stderr ends once the process is gone")
            .expect("the stderr reader does not panic");
        self.logs()
    }
}

/// An address where nothing listens: bound, then let go.
pub fn closed_address() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Raw sockets and the real binary
// ---------------------------------------------------------------------------------------------

/// Reads from a raw client socket until the server closes it (or resets it); `None` when it
/// is still open after `limit`. Returns what was read and when the close came.
pub async fn read_until_closed(
    socket: &mut tokio::net::TcpStream,
    limit: Duration,
) -> Option<(String, std::time::Instant)> {
    use tokio::io::AsyncReadExt;
    let deadline = tokio::time::Instant::now() + limit;
    let mut all = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => {
                return Some((
                    String::from_utf8_lossy(&all).into_owned(),
                    std::time::Instant::now(),
                ))
            }
            Ok(Ok(n)) => all.extend_from_slice(&buffer[..n]),
        }
    }
}

/// `plaincall serve` as a child process with JSON logs, configured by `PLAINCALL_*` variables.
pub struct Binary {
    pub addr: String,
    child: tokio::process::Child,
    logs: tokio::task::JoinHandle<Vec<String>>,
}

impl Binary {
    pub async fn serve(env: &[(&str, &str)]) -> Binary {
        use tokio::io::AsyncBufReadExt;
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_plaincall"));
        command.arg("serve");
        for (key, _) in std::env::vars_os() {
            let key_text = key.to_string_lossy();
            if key_text.starts_with("PLAINCALL_") || key_text.starts_with("OTEL_") {
                command.env_remove(&key);
            }
        }
        command
            .env_remove("RUST_LOG")
            .env("PLAINCALL_LISTEN", "127.0.0.1:0")
            .env("PLAINCALL_LOG_FORMAT", "json")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().expect("serve starts");
        let stderr = child.stderr.take().unwrap();
        let (addr_tx, addr_rx) = oneshot::channel::<String>();
        let logs = tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            let mut all = Vec::new();
            let mut addr_tx = Some(addr_tx);
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(event) = serde_json::from_str::<Value>(&line) {
                    if let (Some(listen), true) = (
                        event["listen"].as_str(),
                        event["message"] == "plaincall listening",
                    ) {
                        if let Some(tx) = addr_tx.take() {
                            let _ = tx.send(listen.to_owned());
                        }
                    }
                }
                all.push(line);
            }
            all
        });
        let addr = tokio::time::timeout(Duration::from_secs(30), addr_rx)
            .await
            .expect("serve logs its address in time")
            .expect("serve logs its address");
        Binary { addr, child, logs }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn terminate(&self) {
        let pid = self.child.id().expect("a pid");
        let killed = std::process::Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status()
            .expect("kill runs");
        assert!(killed.success());
    }

    /// Waits for the exit; the exit code and every log line.
    pub async fn wait(mut self) -> (Option<i32>, Vec<String>) {
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .expect("serve exits in time")
            .unwrap();
        (status.code(), self.logs.await.unwrap())
    }
}

// ---------------------------------------------------------------------------------------------
// Streamed completions, folded as the OpenAI SDKs fold them
// ---------------------------------------------------------------------------------------------

/// A streamed completion's text folded into what a non-streamed one carries: `content`,
/// `tool_calls` (by index), the last `finish_reason`, and the `usage` chunk.
pub fn fold_stream(raw: &str) -> Value {
    let mut content = String::new();
    let mut calls: Vec<Value> = Vec::new();
    let (mut finish, mut usage) = (Value::Null, Value::Null);
    for block in raw.split("\n\n") {
        let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) else {
            continue;
        };
        if data == "[DONE]" {
            break;
        }
        let chunk: Value = serde_json::from_str(data).unwrap();
        assert!(chunk.get("error").is_none(), "error event: {chunk}");
        if chunk["usage"].is_object() {
            usage = chunk["usage"].clone();
        }
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else {
            continue;
        };
        if let Some(text) = choice["delta"]["content"].as_str() {
            content.push_str(text);
        }
        for d in choice["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let index = d["index"].as_u64().unwrap() as usize;
            if calls.len() <= index {
                calls.resize(index + 1, json!({"function": {"arguments": ""}}));
            }
            let call = &mut calls[index];
            for key in ["id", "type"] {
                if let Some(v) = d.get(key) {
                    call[key] = v.clone();
                }
            }
            if let Some(name) = d["function"]["name"].as_str() {
                call["function"]["name"] = json!(name);
            }
            if let Some(part) = d["function"]["arguments"].as_str() {
                let so_far = call["function"]["arguments"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                call["function"]["arguments"] = json!(so_far + part);
            }
        }
        if !choice["finish_reason"].is_null() {
            finish = choice["finish_reason"].clone();
        }
    }
    json!({"content": content, "tool_calls": calls, "finish_reason": finish, "usage": usage})
}
