//! Wire formats other than Chat Completions, converted at the edge: a request in the client's
//! format becomes a Chat Completions request served by the one pipe, and the reply (whole or
//! streamed) is converted back. Only the conversion lives here, never a copy of the pipe.

pub mod anthropic;
pub mod anthropic_stream;
pub mod responses;
pub mod responses_stream;

use axum::body::Body;
use axum::http::StatusCode;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use serde_json::Value;

/// The wire format a client spoke, which decides the shape of the errors it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Chat,
    Responses,
    Anthropic,
}

impl Wire {
    /// The format of a request path: the routes are fixed, so the path decides.
    pub fn of_path(path: &str) -> Wire {
        match path {
            "/v1/messages" => Wire::Anthropic,
            "/v1/responses" => Wire::Responses,
            _ => Wire::Chat,
        }
    }
}

/// A format served through the chat pipe: how a whole completion and a chat event stream
/// become the client's reply.
pub trait Adapter: Send + 'static {
    const WIRE: Wire;
    /// The client's reply for a whole chat completion.
    fn reply(self, completion: &Value) -> Value;
    /// The client's event stream for the pipe's chat event stream.
    fn stream(self, chat: Body) -> BoxStream<'static, Result<Bytes, axum::Error>>;
}

/// An error body in the shape a format's SDKs read.
pub fn error_body(wire: Wire, status: StatusCode, message: &str, code: &str) -> String {
    match wire {
        Wire::Anthropic => anthropic::error_body(status, message),
        Wire::Chat | Wire::Responses => serde_json::json!({"error": {
            "message": message, "type": chat_error_type(status), "param": null, "code": code}})
        .to_string(),
    }
}

fn chat_error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        400..=499 => "invalid_request_error",
        _ => "server_error",
    }
}

/// The message of an error body the pipe passed on (the upstream's, OpenAI-shaped or not).
pub fn error_message(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    parsed
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error"))
        })
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(2048)]).into_owned())
}
