//! A fast mock OpenAI upstream for `scripts/bench-overhead.sh`: answers instantly, so that a
//! benchmark through plaincall measures plaincall.
//!
//! Usage: `cargo run --release --example bench_upstream -- [PORT]` (default 0: any free port).
//! The first line on stdout is the bound address, e.g. `127.0.0.1:40123`.
//!
//! - `POST /v1/chat/completions`
//!   - first message a system message containing "You convert a request into the JSON arguments" (plaincall's
//!     translator prompt): content `{"message":"Check email","schedule_type":"daily","at":"09:00"}`;
//!   - a tool whose parameters have exactly one property, `description` (plaincall's
//!     plain-English form): a call to that tool with
//!     `{"description":"daily at 09:00 to check email"}`. When the last user message contains
//!     `nonce=TOKEN`, the description ends with ` (ref TOKEN)`, so that every request can be a
//!     translation-cache miss;
//!   - the last user message containing `big=N` (checked first): a completion whose content is
//!     N bytes, for the memory benchmark (scripts/bench-stream.py);
//!   - `"stream": true`: `BENCH_CHUNKS` (default 32) SSE content chunks, then `data: [DONE]`;
//!   - otherwise a fixed chat completion of about 400 bytes.
//! - `GET /v1/models`: a one-model list.
//! - `POST /v1/traces`: an OTLP collector that takes every batch (scripts/bench-traces.sh).
//!
//! `BENCH_MOCK_THREADS` sets the runtime's worker threads (default: the number of CPUs).
//!
//! `bench_upstream relay PORT UPSTREAM` (UPSTREAM like `http://127.0.0.1:40123`) runs instead a
//! minimal relay built like plaincall (axum server, hyper-util client, body streamed back) but
//! with no middleware, parsing or logging: the floor for what a proxy on this stack costs.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};

const TRANSLATOR_MARKER: &str = "You convert a request into the JSON arguments";
const DESCRIPTION: &str = "daily at 09:00 to check email";
const TRANSLATION: &str = r#"{"message":"Check email","schedule_type":"daily","at":"09:00"}"#;
const CREATED: u64 = 1_760_000_000;

struct Canned {
    completion: Bytes,
    translation: Bytes,
    tool_call: Bytes,
    /// The SSE body, one piece per event, `[DONE]` last.
    stream: Vec<Bytes>,
    models: Bytes,
}

fn completion_with(message: &Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-bench-0001",
        "object": "chat.completion",
        "created": CREATED,
        "model": "bench-model",
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 24, "completion_tokens": 18, "total_tokens": 42}
    })
}

fn tool_call_completion(tool: &str, description: &str) -> Bytes {
    let arguments = json!({ "description": description }).to_string();
    let message = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{"id": "call_bench_0001", "type": "function",
                        "function": {"name": tool, "arguments": arguments}}]
    });
    Bytes::from(completion_with(&message, "tool_calls").to_string())
}

impl Canned {
    fn new(chunks: usize) -> Canned {
        let completion = completion_with(
            &json!({
                "role": "assistant",
                "content": "Hello! This is a fixed answer from the benchmark upstream. It has no meaning; it is here to make the body about four hundred bytes long."
            }),
            "stop",
        );
        let translation = completion_with(
            &json!({"role": "assistant", "content": TRANSLATION}),
            "stop",
        );
        let mut stream = Vec::with_capacity(chunks + 1);
        for i in 0..chunks {
            let mut delta = json!({"content": format!("word{i} ")});
            if i == 0 {
                delta["role"] = json!("assistant");
            }
            let finish = if i + 1 == chunks {
                json!("stop")
            } else {
                Value::Null
            };
            let chunk = json!({
                "id": "chatcmpl-bench-0001",
                "object": "chat.completion.chunk",
                "created": CREATED,
                "model": "bench-model",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
            });
            stream.push(Bytes::from(format!("data: {chunk}\n\n")));
        }
        stream.push(Bytes::from_static(b"data: [DONE]\n\n"));
        let models = json!({
            "object": "list",
            "data": [{"id": "bench-model", "object": "model", "created": CREATED, "owned_by": "bench"}]
        });
        Canned {
            completion: Bytes::from(completion.to_string()),
            translation: Bytes::from(translation.to_string()),
            tool_call: tool_call_completion("set_reminder", DESCRIPTION),
            stream,
            models: Bytes::from(models.to_string()),
        }
    }
}

fn json_response(body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn sse_response(pieces: Vec<Bytes>) -> Response {
    let stream = futures_util::stream::iter(pieces.into_iter().map(Ok::<_, std::io::Error>));
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The name of the first tool in plain-English form (one property, `description`).
fn nl_tool(request: &Value) -> Option<&str> {
    request.get("tools")?.as_array()?.iter().find_map(|tool| {
        let function = tool.get("function")?;
        let properties = function.get("parameters")?.get("properties")?.as_object()?;
        (properties.len() == 1 && properties.contains_key("description"))
            .then(|| function.get("name")?.as_str())
            .flatten()
    })
}

fn is_translator(request: &Value) -> bool {
    let Some(first) = request
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.first())
    else {
        return false;
    };
    first.get("role").and_then(Value::as_str) == Some("system")
        && first
            .get("content")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(TRANSLATOR_MARKER))
}

/// `TOKEN` from `nonce=TOKEN` in the last user message.
fn nonce(request: &Value) -> Option<&str> {
    marker(request, "nonce=")
}

/// `TOKEN` from `{prefix}TOKEN` in the last user message.
fn marker<'a>(request: &'a Value, prefix: &str) -> Option<&'a str> {
    let content = request
        .get("messages")?
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?
        .get("content")?
        .as_str()?;
    let rest = &content[content.find(prefix)? + prefix.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

async fn chat(State(canned): State<Arc<Canned>>, body: Bytes) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(error) => {
            let body = json!({"error": {"message": format!("not JSON: {error}"), "type": "invalid_request_error"}});
            return (StatusCode::BAD_REQUEST, body.to_string()).into_response();
        }
    };
    if is_translator(&request) {
        return json_response(canned.translation.clone());
    }
    if let Some(size) = marker(&request, "big=").and_then(|n| n.parse::<usize>().ok()) {
        let message = json!({"role": "assistant", "content": "x".repeat(size)});
        return json_response(Bytes::from(completion_with(&message, "stop").to_string()));
    }
    if let Some(tool) = nl_tool(&request) {
        return json_response(match nonce(&request) {
            Some(token) => tool_call_completion(tool, &format!("{DESCRIPTION} (ref {token})")),
            None if tool == "set_reminder" => canned.tool_call.clone(),
            None => tool_call_completion(tool, DESCRIPTION),
        });
    }
    if request.get("stream").and_then(Value::as_bool) == Some(true) {
        return sse_response(canned.stream.clone());
    }
    json_response(canned.completion.clone())
}

async fn models(State(canned): State<Arc<Canned>>) -> Response {
    json_response(canned.models.clone())
}

#[derive(Clone)]
struct Relay {
    client: Client<HttpConnector, Body>,
    upstream: String,
}

/// The whole request body is read and forwarded, the response streamed back: what plaincall
/// does for a request it does not change, minus everything else.
async fn relay(State(relay): State<Relay>, request: axum::extract::Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let Ok(uri) = format!("{}{}", relay.upstream, parts.uri.path()).parse::<Uri>() else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    parts.uri = uri;
    parts.headers.remove(header::HOST);
    let forward = axum::http::Request::from_parts(parts, Body::from(body));
    match relay.client.request(forward).await {
        Ok(upstream) => {
            let (mut parts, body) = upstream.into_parts();
            parts.headers.remove(header::TRANSFER_ENCODING);
            parts.headers.remove(header::CONNECTION);
            Response::from_parts(parts, Body::new(body))
        }
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}

fn port_arg(arg: Option<String>) -> std::io::Result<u16> {
    match arg {
        None => Ok(0),
        Some(arg) => arg.parse().map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("`{arg}` is not a port number"),
            )
        }),
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1).peekable();
    let relay_to = if args.peek().map(String::as_str) == Some("relay") {
        args.next();
        let port = args.next();
        let upstream = args.next().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "usage: bench_upstream relay PORT UPSTREAM",
            )
        })?;
        Some((port, upstream.trim_end_matches('/').to_owned()))
    } else {
        None
    };
    let port = match &relay_to {
        Some((port, _)) => port_arg(port.clone())?,
        None => port_arg(args.next())?,
    };
    let chunks: usize = std::env::var("BENCH_CHUNKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let threads: usize = std::env::var("BENCH_MOCK_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let app = match relay_to {
            Some((_, upstream)) => {
                let mut connector = HttpConnector::new();
                connector.set_nodelay(true);
                let client = Client::builder(TokioExecutor::new()).build(connector);
                Router::new()
                    .fallback(relay)
                    .with_state(Relay { client, upstream })
            }
            None => Router::new()
                .route("/v1/chat/completions", post(chat))
                .route("/v1/models", get(models))
                // A collector that takes every batch of spans (scripts/bench-traces.sh).
                .route("/v1/traces", post(|_: axum::body::Bytes| async {}))
                .with_state(Arc::new(Canned::new(chunks))),
        };
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
        // The first line on stdout: where it listens.
        println!("{}", listener.local_addr()?);
        std::io::stdout().flush()?;
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, app).await
    })
}
