//! Wire formats other than Chat Completions, converted at the edge: a request in the client's
//! format becomes a Chat Completions request served by the one pipe, and the reply (whole or
//! streamed) is converted back. Only the conversion lives here, never a copy of the pipe; and
//! plaincall's errors in each format's shape ([`WireError`]), which the serving layer makes
//! into responses.

pub(crate) mod anthropic;
pub(crate) mod anthropic_stream;
pub(crate) mod responses;
pub(crate) mod responses_stream;

use std::collections::VecDeque;
use std::convert::Infallible;

use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt};
use http::StatusCode;
use serde_json::{Map, Value};

use crate::error::ProxyError;
use crate::openai::RawObject;
use crate::pipe::event::{Event, Part};
use crate::sse;

/// The wire format a client spoke, which decides the shape of the errors it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    Chat,
    Responses,
    Anthropic,
}

impl Wire {
    /// The format of a request path: the routes are fixed, so the path decides.
    pub(crate) fn of_path(path: &str) -> Wire {
        let under = |route: &str| {
            path.strip_prefix(route)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        if under("/v1/messages") {
            Wire::Anthropic
        } else if under("/v1/responses") {
            Wire::Responses
        } else {
            Wire::Chat
        }
    }
}

impl Wire {
    /// How an event stream of this format that plaincall ends early ends.
    pub(crate) fn error_event(self) -> crate::error::ErrorEvent {
        match self {
            Wire::Chat => ProxyError::chat_event,
            Wire::Responses => |error| error.stream_event(Wire::Responses),
            Wire::Anthropic => |error| error.stream_event(Wire::Anthropic),
        }
    }
}

/// A format served through the chat pipe: how a whole completion and a chat event stream
/// become the client's reply.
pub(crate) trait Adapter: Send + 'static {
    const WIRE: Wire;
    /// The client's reply for a whole chat completion.
    fn reply(self, completion: &Value) -> Value;
    /// The client's event stream for the driver's events of a streamed answer.
    fn stream(
        self,
        events: BoxStream<'static, Event>,
    ) -> BoxStream<'static, Result<Bytes, Infallible>>;
    /// The chat request as it goes to the pipe (shared, not copied), for a format that keeps
    /// the conversation.
    fn sent(&mut self, _chat: &Bytes) {}
    /// What the reply writes to shared state, which must land before the client reads the
    /// reply: it may continue the conversation on another replica at once.
    fn written(&self) -> Written {
        Written::default()
    }
}

/// A write to shared state a reply waits for (see [`Adapter::written`]).
#[derive(Clone, Default)]
pub(crate) struct Written(std::sync::Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>);

impl Written {
    fn set(&self, write: Option<tokio::task::JoinHandle<()>>) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = write;
        }
    }

    /// Resolves once the write is done (or failed, which the shared state counts and logs).
    pub(crate) async fn wait(&self) {
        let write = self.0.lock().ok().and_then(|mut slot| slot.take());
        if let Some(write) = write {
            let _ = write.await;
        }
    }
}

/// plaincall's errors in each wire format: the error type itself knows only the Chat
/// Completions shape. The serving layer makes the response (`routes::IntoWireResponse`).
pub(crate) trait WireError {
    /// The error body in the shape `wire`'s SDKs read.
    fn wire_body(&self, wire: Wire) -> String;
    /// The `error` event that ends an event stream of `wire`.
    fn stream_event(&self, wire: Wire) -> Bytes;
}

impl WireError for ProxyError {
    fn wire_body(&self, wire: Wire) -> String {
        match wire {
            Wire::Anthropic => anthropic::error_body(self.status(), &self.to_string()),
            // The Responses API's errors have the Chat Completions shape.
            Wire::Chat | Wire::Responses => self.to_json(),
        }
    }

    fn stream_event(&self, wire: Wire) -> Bytes {
        let data = match wire {
            Wire::Chat => return self.chat_event(),
            Wire::Responses => serde_json::json!({
                "type": "error",
                "code": self.code(),
                "message": self.to_string(),
                "param": self.param(),
                "error": {"message": self.to_string(), "type": self.kind(), "param": self.param(), "code": self.code()},
            })
            .to_string(),
            Wire::Anthropic => anthropic::error_body(self.status(), &self.to_string()),
        };
        Bytes::from(format!("event: error\ndata: {data}\n\n"))
    }
}

/// An error body in the shape a format's SDKs read.
pub(crate) fn error_body(wire: Wire, status: StatusCode, message: &str, code: &str) -> String {
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

/// Whether the request has tools and every one's `type` is a kind `accepted` takes: the
/// converted formats serve only the tools a Chat Completions upstream can run.
fn only_tools_of_kind(
    request: &Map<String, Value>,
    accepted: impl Fn(Option<&str>) -> bool,
) -> bool {
    let Some(tools) = request.get("tools").and_then(Value::as_array) else {
        return false;
    };
    !tools.is_empty()
        && tools
            .iter()
            .all(|tool| accepted(tool.get("type").and_then(Value::as_str)))
}

/// Removes the tools a Chat Completions upstream cannot run (those `accepted` refuses: hosted
/// web search, code execution, MCP, ...) and names them, for the log and the client's header.
fn drop_hosted_tools(
    request: &mut Map<String, Value>,
    accepted: impl Fn(Option<&str>) -> bool,
) -> Vec<String> {
    let Some(Value::Array(tools)) = request.get_mut("tools") else {
        return Vec::new();
    };
    let mut dropped = Vec::new();
    tools.retain(|tool| {
        let kind = tool.get("type").and_then(Value::as_str);
        if accepted(kind) {
            return true;
        }
        dropped.push(kind.unwrap_or("unknown").to_owned());
        false
    });
    if tools.is_empty() {
        request.remove("tools");
        request.remove("tool_choice");
    }
    dropped.sort();
    dropped.dedup();
    dropped
}

/// `stream` as the converted formats pass it on: a stream also asks for the usage, which
/// arrives in a last chunk only when asked for and which their final events carry.
fn stream_to_chat(value: Value, chat: &mut Map<String, Value>) {
    if value == Value::Bool(true) {
        chat.insert(
            "stream_options".into(),
            serde_json::json!({"include_usage": true}),
        );
    }
    chat.insert("stream".into(), value);
}

/// Top-level fields a converted request keeps as they are: Chat Completions' own and the
/// sampling extras llama-server and vLLM read. Any other field is the client format's own,
/// which a chat upstream does not know (a strict one refuses it): dropped, logged at DEBUG.
const CHAT_FIELDS: &[&str] = &[
    "model",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "typical_p",
    "seed",
    "user",
    "parallel_tool_calls",
    "presence_penalty",
    "frequency_penalty",
    "repetition_penalty",
    "repeat_penalty",
    "logit_bias",
    "cache_prompt",
    "chat_template_kwargs",
];

/// Passes on `key` when a chat upstream knows it; else drops it, saying so at DEBUG.
fn keep_if_chat(key: String, value: Value, chat: &mut Map<String, Value>, format: &str) {
    if CHAT_FIELDS.contains(&key.as_str()) {
        chat.insert(key, value);
    } else {
        tracing::debug!(
            field = %key,
            format,
            "a field a Chat Completions upstream does not take is dropped"
        );
    }
}

/// A tool definition as any of the three formats writes it (a tool file, a captured request)
/// in the Chat Completions shape the pipe reads: `{"type": "function", "function": {...}}`
/// as it is; Anthropic's `{name, description, input_schema}`; Responses' flat
/// `{"type": "function", name, description, parameters, strict}`; a bare function object.
/// Anything else (a hosted tool) is returned unchanged.
pub(crate) fn tool_in_chat_shape(tool: Value) -> Value {
    if tool.get("function").is_some() {
        return tool;
    }
    let Value::Object(mut map) = tool else {
        return tool;
    };
    if let Some(schema) = map.remove("input_schema") {
        map.insert("parameters".into(), schema);
        map.remove("type");
        map.remove("cache_control");
    } else if map.get("type").and_then(Value::as_str) == Some("function") {
        map.remove("type");
    } else if map.contains_key("type") || !map.contains_key("name") {
        return Value::Object(map);
    }
    serde_json::json!({"type": "function", "function": map})
}

/// The JSON kinds a field may have.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Number,
    Bool,
    Array,
    Object,
    Null,
}

fn kind_of(value: &Value) -> Kind {
    match value {
        Value::String(_) => Kind::String,
        Value::Number(_) => Kind::Number,
        Value::Bool(_) => Kind::Bool,
        Value::Array(_) => Kind::Array,
        Value::Object(_) => Kind::Object,
        Value::Null => Kind::Null,
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::String => "a string",
        Kind::Number => "a number",
        Kind::Bool => "a boolean",
        Kind::Array => "an array",
        Kind::Object => "an object",
        Kind::Null => "null",
    }
}

/// Checks the kinds of the fields a format's own server insists on, before anything is sent
/// anywhere: a malformed request is the client's error, not the upstream's to guess at.
/// Fields not listed (and fields plaincall does not know) are not judged.
fn check_kinds(
    request: &Map<String, Value>,
    required: &[&str],
    fields: &[(&str, &[Kind])],
) -> Result<(), ProxyError> {
    for name in required {
        if !request.contains_key(*name) {
            return Err(invalid(format!("{name}: this field is required"), name));
        }
    }
    for (name, kinds) in fields {
        let Some(value) = request.get(*name) else {
            continue;
        };
        if !kinds.contains(&kind_of(value)) {
            let expected: Vec<&str> = kinds.iter().map(|k| kind_name(*k)).collect();
            return Err(invalid(
                format!(
                    "{name}: {} is required, not {}",
                    expected.join(" or "),
                    kind_name(kind_of(value))
                ),
                name,
            ));
        }
    }
    Ok(())
}

/// The body of a converted route: JSON, and an object. Anything else is answered here, in
/// the route's format, and never sent upstream.
pub(crate) fn request_object(bytes: &[u8]) -> Result<Map<String, Value>, ProxyError> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ProxyError::InvalidRequest {
            message: format!(
                "the request body must be a JSON object, not {}",
                kind_name(kind_of(&other))
            ),
            param: None,
        }),
        Err(error) => Err(ProxyError::InvalidJson(error.to_string())),
    }
}

/// A 400 for a field of a converted request, naming it.
pub(crate) fn invalid(message: impl Into<String>, param: &str) -> ProxyError {
    ProxyError::InvalidRequest {
        message: message.into(),
        param: Some(param.to_owned()),
    }
}

/// The message of an error body the pipe passed on (the upstream's, OpenAI-shaped or not).
pub(crate) fn error_message(body: &[u8]) -> String {
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

/// An upstream's chat event stream, its body's `chunks` (a request the pipe forwarded as it
/// came), as the driver's events; it ends after `Done` or an error, whichever comes first.
pub(crate) fn chat_events<E: std::fmt::Display>(
    chunks: impl Stream<Item = Result<Bytes, E>> + Send + 'static,
) -> impl Stream<Item = Event> + Send + 'static {
    struct Reading<S> {
        chunks: S,
        parser: sse::Parser,
        pending: VecDeque<Event>,
        over: bool,
    }
    let start = Reading {
        chunks: Box::pin(chunks),
        parser: sse::Parser::new(sse::MAX_EVENT_BYTES),
        pending: VecDeque::new(),
        over: false,
    };
    let broken = |message: String| Event::Error(ProxyError::UpstreamProtocol(message));
    futures_util::stream::unfold(start, move |mut r| async move {
        loop {
            if let Some(event) = r.pending.pop_front() {
                if ends(&event) {
                    r.over = true;
                    r.pending.clear();
                }
                return Some((event, r));
            }
            if r.over {
                return None;
            }
            match r.chunks.next().await {
                Some(Ok(bytes)) => match r.parser.push(&bytes) {
                    Ok(events) => {
                        for event in events {
                            upstream_event(event, &mut r.pending);
                        }
                    }
                    Err(error) => r.pending.push_back(broken(error.to_string())),
                },
                Some(Err(error)) => r.pending.push_back(broken(error.to_string())),
                None => r.pending.push_back(broken(
                    "the upstream's stream ended before it was complete".into(),
                )),
            }
        }
    })
}

/// Whether nothing follows `event` in a stream.
pub(crate) fn ends(event: &Event) -> bool {
    matches!(
        event,
        Event::Done | Event::Error(_) | Event::UpstreamError(_)
    )
}

/// One upstream chat event as the driver's events.
fn upstream_event(event: sse::Event, out: &mut VecDeque<Event>) {
    if event.data.trim() == "[DONE]" {
        return out.push_back(Event::Done);
    }
    let chunk: RawObject = match serde_json::from_str(&event.data) {
        Ok(chunk) => chunk,
        Err(error) => {
            return out.push_back(Event::Error(ProxyError::UpstreamProtocol(format!(
                "a chunk is not JSON: {error}"
            ))))
        }
    };
    if event.event.as_deref() == Some("error") || chunk.contains_key("error") {
        return out.push_back(Event::UpstreamError(event.data));
    }
    // Read as the driver reads a chunk: a malformed field is an error here too.
    match crate::pipe::chunks::Chunk::streamed(chunk) {
        Ok(chunk) => {
            let parts = chunk.parts();
            out.push_back(Event::Envelope(chunk.envelope));
            out.push_back(Event::Passed {
                frame: Bytes::new(),
                parts,
            });
        }
        Err(error) => out.push_back(Event::Error(error)),
    }
}

/// The message a client of another format reads for an event that ends a stream in error.
pub(crate) fn failure(event: &Event) -> Option<String> {
    match event {
        Event::UpstreamError(data) => Some(error_message(data.as_bytes())),
        Event::Error(error) => Some(error.to_string()),
        _ => None,
    }
}

/// The parts of the first choice an event carries for the client's format, in order (the
/// converted formats have one choice).
pub(crate) fn parts(event: Event) -> Vec<Part> {
    match event {
        Event::Passed { parts, .. } | Event::Choice { parts, .. } => parts,
        Event::Part(0, part) => vec![part],
        _ => Vec::new(),
    }
}

/// A JSON object for the tests' requests.
#[cfg(test)]
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_of_every_format_take_the_chat_shape() {
        let chat = json!({"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}});
        let anthropic =
            json!({"name": "f", "description": "d", "input_schema": {"type": "object"}});
        let responses = json!({"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}});
        let bare = json!({"name": "f", "description": "d", "parameters": {"type": "object"}});
        for tool in [chat.clone(), anthropic, responses, bare] {
            assert_eq!(tool_in_chat_shape(tool), chat);
        }
        let hosted = json!({"type": "web_search"});
        assert_eq!(tool_in_chat_shape(hosted.clone()), hosted);
    }
}
