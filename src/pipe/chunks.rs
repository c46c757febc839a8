//! An upstream turn as the driver reads it: typed chunks, whatever shape the upstream answered
//! in. A stream's events are chunks as they come; a whole answer is one chunk whose choices
//! carry their whole message as the delta. Every field the driver acts on (`choices`, `index`,
//! `finish_reason`, `delta` or `message`, `content`, `role`, `tool_calls` and each call's own
//! fields, `usage`) is typed here, once: a malformed one is an error, streamed or whole, and
//! everything else stays raw and in place (the span reads `model` where it is text).

use std::collections::VecDeque;

use serde_json::Value;

use crate::error::ProxyError;
use crate::openai::{self, RawObject, ToolCall, Usage};
use crate::pipe::event::{self, Part};
use crate::sse;
use crate::upstream::{UpstreamClient, UpstreamResponse};

/// One chunk of an upstream turn.
pub(crate) struct Chunk {
    /// The chunk's fields other than `choices` (`id`, `model`, `usage`, ...), in order.
    pub(crate) envelope: RawObject,
    pub(crate) choices: Vec<ChoiceChunk>,
    /// The usage the chunk reports (an object; anything else reports none).
    pub(crate) usage: Option<Value>,
    /// A whole answer's one chunk: each choice's delta is its whole message.
    pub(crate) whole: bool,
}

/// One choice of a chunk.
pub(crate) struct ChoiceChunk {
    pub(crate) index: u64,
    pub(crate) finish_reason: Option<String>,
    /// The delta (or whole message) without its `tool_calls`.
    pub(crate) delta: RawObject,
    /// The delta's text (`content`, when it is a string).
    pub(crate) content: Option<String>,
    pub(crate) calls: Vec<CallPiece>,
    /// The delta carries a `role`.
    pub(crate) role: bool,
    /// `logprobs` is given (not `null`).
    pub(crate) logprobs: bool,
    /// The choice as it came, its keys in place (`delta` among them).
    pub(crate) raw: RawObject,
}

/// A call as the upstream gave it: whole in a message, or a fragment in a stream.
#[derive(Debug)]
pub(crate) enum CallPiece {
    Whole(ToolCall),
    Delta(Value),
}

impl CallPiece {
    /// The tool it calls, when this piece names it.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            CallPiece::Whole(call) => Some(call.function.name.as_str()),
            CallPiece::Delta(delta) => delta.pointer("/function/name").and_then(Value::as_str),
        }
    }

    /// The piece as a stream's delta; `index` is a whole call's place in its message.
    pub(crate) fn as_delta(&self, index: u64) -> std::borrow::Cow<'_, Value> {
        use std::borrow::Cow;
        match self {
            CallPiece::Whole(call) => Cow::Owned(serde_json::json!({
                "index": index,
                "id": call.id,
                "type": call.kind,
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            })),
            CallPiece::Delta(delta) => Cow::Borrowed(delta),
        }
    }

    /// The piece as the other formats read it; `index` is a whole call's place in its message.
    pub(crate) fn part(&self, index: u64) -> Part {
        match self {
            CallPiece::Whole(call) => Part::CallBegun {
                index,
                id: call.id.clone(),
                name: call.function.name.clone(),
                arguments: call.function.arguments.clone(),
            },
            CallPiece::Delta(delta) => event::call_part(delta),
        }
    }
}

fn malformed(what: &str, error: impl std::fmt::Display) -> ProxyError {
    ProxyError::UpstreamProtocol(format!("`{what}` is malformed: {error}"))
}

/// A streamed call fragment with the fields the driver reads typed as a whole call's are
/// ([`ToolCall`]): `index` a number, `id`, `type` and `function.name` text, `function` an
/// object (each may be absent or `null`); `arguments` that are not text (an object some
/// servers send) become their JSON text, as a whole call's do. Anything else is malformed,
/// never dropped: a streamed call is refused where the same call whole would be.
fn typed_delta(
    mut delta: serde_json::Map<String, Value>,
) -> Result<serde_json::Map<String, Value>, ProxyError> {
    let bad = |what: &str, kind: &str| {
        malformed("tool_calls", format!("a call's `{what}` is not {kind}"))
    };
    let text_or_null = |v: Option<&Value>| matches!(v, None | Some(Value::Null | Value::String(_)));
    match delta.get("index") {
        None | Some(Value::Null) => {}
        Some(index) if index.is_u64() => {}
        Some(_) => return Err(bad("index", "a whole number")),
    }
    for field in ["id", "type"] {
        if !text_or_null(delta.get(field)) {
            return Err(bad(field, "text"));
        }
    }
    match delta.get_mut("function") {
        None | Some(Value::Null) => {}
        Some(Value::Object(function)) => {
            if !text_or_null(function.get("name")) {
                return Err(bad("function.name", "text"));
            }
            if let Some(arguments) = function.get_mut("arguments") {
                if !matches!(arguments, Value::Null | Value::String(_)) {
                    *arguments = Value::String(arguments.to_string());
                }
            }
        }
        Some(_) => return Err(bad("function", "an object")),
    }
    Ok(delta)
}

impl Chunk {
    /// A streamed chunk.
    pub(crate) fn streamed(object: RawObject) -> Result<Chunk, ProxyError> {
        Chunk::read(object, false)
    }

    /// A whole answer, as one chunk.
    pub(crate) fn whole(answer: RawObject) -> Result<Chunk, ProxyError> {
        Chunk::read(answer, true)
    }

    fn read(mut envelope: RawObject, whole: bool) -> Result<Chunk, ProxyError> {
        let choices: Vec<RawObject> = openai::get(&envelope, "choices")
            .map_err(|e| malformed("choices", e))?
            .unwrap_or_default();
        envelope.shift_remove("choices");
        let usage = openai::get::<Value>(&envelope, "usage")
            .map_err(|e| malformed("usage", e))?
            .filter(Value::is_object);
        let choices = choices
            .into_iter()
            .map(|choice| ChoiceChunk::read(choice, whole))
            .collect::<Result<_, _>>()?;
        Ok(Chunk {
            envelope,
            choices,
            usage,
            whole,
        })
    }

    /// What the other formats read of the chunk: its first choice's text, call pieces and
    /// finish reason, then its usage.
    pub(crate) fn parts(&self) -> Vec<Part> {
        let mut parts = Vec::new();
        if let Some(first) = self.choices.iter().find(|c| c.index == 0) {
            if let Some(text) = first.content.as_ref().filter(|t| !t.is_empty()) {
                parts.push(Part::Text(text.clone()));
            }
            parts.extend(first.calls.iter().zip(0..).map(|(call, at)| call.part(at)));
            parts.extend(first.finish_reason.clone().map(Part::Finish));
        }
        parts.extend(self.usage.clone().map(Part::Usage));
        parts
    }

    /// The usage, as plaincall sums it; one it cannot read counts as none.
    pub(crate) fn typed_usage(&self) -> Option<Usage> {
        self.usage
            .as_ref()
            .and_then(|u| serde_json::from_value(u.clone()).ok())
    }
}

impl ChoiceChunk {
    fn read(mut raw: RawObject, whole: bool) -> Result<ChoiceChunk, ProxyError> {
        if whole {
            // A whole message reads as the delta that carries all of it.
            if let Some(message) = raw.shift_remove("message") {
                raw.insert("delta".into(), message);
            }
        }
        let what = |field: &'static str| match (whole, field) {
            (true, "delta") => "message",
            _ => field,
        };
        let index = openai::get::<u64>(&raw, "index")
            .map_err(|e| malformed("index", e))?
            .unwrap_or(0);
        let finish_reason = openai::get::<String>(&raw, "finish_reason")
            .map_err(|e| malformed("finish_reason", e))?;
        let logprobs = raw.get("logprobs").is_some_and(|l| l.get() != "null");
        let mut delta: RawObject = openai::get(&raw, "delta")
            .map_err(|e| malformed(what("delta"), e))?
            .unwrap_or_default();
        let calls = match delta.shift_remove("tool_calls") {
            Some(calls) if calls.get() != "null" && whole => {
                serde_json::from_str::<Vec<ToolCall>>(calls.get())
                    .map_err(|e| malformed("tool_calls", e))?
                    .into_iter()
                    .map(CallPiece::Whole)
                    .collect()
            }
            Some(calls) if calls.get() != "null" => {
                serde_json::from_str::<Vec<serde_json::Map<String, Value>>>(calls.get())
                    .map_err(|e| malformed("tool_calls", e))?
                    .into_iter()
                    .map(|delta| typed_delta(delta).map(|d| CallPiece::Delta(Value::Object(d))))
                    .collect::<Result<_, _>>()?
            }
            _ => Vec::new(),
        };
        // Text is a string; other content (parts some servers send) goes on untouched.
        let content = openai::get::<String>(&delta, "content").ok().flatten();
        let role = delta.contains_key("role");
        Ok(ChoiceChunk {
            index,
            finish_reason,
            delta,
            content,
            calls,
            role,
            logprobs,
            raw,
        })
    }
}

/// What reading a turn gives, piece by piece.
pub(crate) enum Piece {
    /// A chunk; `data` is its event's data as it came (a stream's), to pass on untouched.
    Chunk {
        chunk: Box<Chunk>,
        data: Option<String>,
    },
    /// The upstream's own error event's data, as it came.
    UpstreamError(String),
    /// The turn is whole: `[DONE]`, or a whole answer read.
    Done,
}

/// An upstream turn being read.
pub(crate) enum Chunks {
    Stream {
        response: Box<UpstreamResponse>,
        parser: sse::Parser,
        ready: VecDeque<sse::Event>,
    },
    /// A whole answer: its one chunk, then the end.
    Whole(Option<Box<Chunk>>),
}

impl Chunks {
    pub(crate) fn stream(response: UpstreamResponse) -> Chunks {
        Chunks::Stream {
            response: Box::new(response),
            parser: sse::Parser::new(sse::MAX_EVENT_BYTES),
            ready: VecDeque::new(),
        }
    }

    /// A whole answer's bytes, as one chunk.
    pub(crate) fn whole(bytes: &[u8]) -> Result<Chunks, ProxyError> {
        let answer: RawObject = serde_json::from_slice(bytes).map_err(|e| {
            ProxyError::UpstreamProtocol(format!("the completion is not JSON: {e}"))
        })?;
        Ok(Chunks::Whole(Some(Box::new(Chunk::whole(answer)?))))
    }

    /// The next piece. Cancel-safe: events already read wait for the next call. A stream that
    /// ends before its `[DONE]` is an error: a finish reason may still be followed by usage.
    pub(crate) async fn next(&mut self, upstream: &UpstreamClient) -> Result<Piece, ProxyError> {
        match self {
            Chunks::Whole(chunk) => Ok(match chunk.take() {
                Some(chunk) => Piece::Chunk { chunk, data: None },
                None => Piece::Done,
            }),
            Chunks::Stream {
                response,
                parser,
                ready,
            } => loop {
                if let Some(event) = ready.pop_front() {
                    return piece(event);
                }
                let Some(bytes) = upstream.next_chunk(response).await? else {
                    return Err(ProxyError::UpstreamProtocol(
                        "the upstream's stream ended before its `[DONE]`".into(),
                    ));
                };
                let events = parser
                    .push(&bytes)
                    .map_err(|e| ProxyError::UpstreamProtocol(e.to_string()))?;
                ready.extend(events);
            },
        }
    }
}

/// One event of a stream, read.
fn piece(event: sse::Event) -> Result<Piece, ProxyError> {
    let data = event.data.trim();
    if data == "[DONE]" {
        return Ok(Piece::Done);
    }
    let object: RawObject = serde_json::from_str(data)
        .map_err(|e| ProxyError::UpstreamProtocol(format!("a stream chunk is not JSON: {e}")))?;
    if object.contains_key("error") || event.event.as_deref() == Some("error") {
        return Ok(Piece::UpstreamError(event.data));
    }
    let chunk = Chunk::streamed(object)?;
    Ok(Piece::Chunk {
        chunk: Box::new(chunk),
        data: Some(event.data),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn object(text: &str) -> RawObject {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn a_chunk_comes_apart_into_its_first_choices_parts() {
        let chunk = object(
            r#"{"id":"c","choices":[{"index":1,"delta":{"content":"other"}},
            {"index":0,"delta":{"content":"Hi","tool_calls":[
              {"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":"{"}},
              {"index":0,"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}],
            "usage":{"completion_tokens":3}}"#,
        );
        assert_eq!(
            Chunk::streamed(chunk).unwrap().parts(),
            vec![
                Part::Text("Hi".into()),
                Part::CallBegun {
                    index: 0,
                    id: "call_a".into(),
                    name: "f".into(),
                    arguments: "{".into()
                },
                Part::CallArguments {
                    index: 0,
                    arguments: "}".into()
                },
                Part::Finish("tool_calls".into()),
                Part::Usage(serde_json::json!({"completion_tokens": 3})),
            ]
        );
    }

    fn error_of(result: Result<Chunk, ProxyError>) -> String {
        match result {
            Ok(_) => panic!("read a malformed chunk"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn a_streamed_chunk_reads_its_choices_and_keeps_the_rest_in_place() {
        let chunk = Chunk::streamed(object(
            r#"{"id":"c1","choices":[{"index":1,"delta":{"role":"assistant","content":"hi",
            "tool_calls":[{"index":0,"id":"a","function":{"name":"t","arguments":""}}],
            "reasoning":"r"},"logprobs":{"x":1},"finish_reason":null,"extra":12345678901234567890}],
            "usage":{"prompt_tokens":3},"system_fingerprint":"fp"}"#,
        ))
        .unwrap();
        let keys: Vec<&str> = chunk.envelope.keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "usage", "system_fingerprint"]);
        assert_eq!(chunk.typed_usage().unwrap().prompt_tokens, 3);
        let choice = &chunk.choices[0];
        assert_eq!(choice.index, 1);
        assert_eq!(choice.content.as_deref(), Some("hi"));
        assert!(choice.role && choice.logprobs && choice.finish_reason.is_none());
        assert_eq!(choice.calls.len(), 1);
        assert_eq!(choice.calls[0].name(), Some("t"));
        let delta_keys: Vec<&str> = choice.delta.keys().map(String::as_str).collect();
        assert_eq!(delta_keys, ["role", "content", "reasoning"]);
        assert_eq!(choice.raw["extra"].get(), "12345678901234567890");
        assert!(!chunk.whole);
    }

    #[test]
    fn a_whole_answer_is_one_chunk_whose_delta_is_the_message() {
        let chunk = Chunk::whole(object(
            r#"{"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"a","type":"function","function":{"name":"t","arguments":"{}"}}]},
            "finish_reason":"tool_calls"}]}"#,
        ))
        .unwrap();
        assert!(chunk.whole);
        let choice = &chunk.choices[0];
        assert!(choice.raw.contains_key("delta") && !choice.raw.contains_key("message"));
        assert_eq!(choice.finish_reason.as_deref(), Some("tool_calls"));
        match &choice.calls[..] {
            [CallPiece::Whole(call)] => assert_eq!(call.function.arguments, "{}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            choice.calls[0].part(0),
            Part::CallBegun {
                index: 0,
                id: "a".into(),
                name: "t".into(),
                arguments: "{}".into()
            }
        );
    }

    #[test]
    fn a_malformed_field_is_an_error_streamed_or_whole() {
        for (text, field) in [
            (r#"{"choices":{"index":0}}"#, "choices"),
            (r#"{"choices":[{"index":"0","delta":{}}]}"#, "index"),
            (
                r#"{"choices":[{"delta":{},"finish_reason":7}]}"#,
                "finish_reason",
            ),
            (r#"{"choices":[{"delta":"text"}]}"#, "delta"),
            (
                r#"{"choices":[{"delta":{"tool_calls":{"index":0}}}]}"#,
                "tool_calls",
            ),
            (
                r#"{"choices":[{"delta":{"tool_calls":["x"]}}]}"#,
                "tool_calls",
            ),
            // A call's own fields, as a whole call's are read.
            (
                r#"{"choices":[{"delta":{"tool_calls":[{"index":"0","function":{"arguments":"{}"}}]}}]}"#,
                "tool_calls",
            ),
            (
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":5}}]}}]}"#,
                "tool_calls",
            ),
            (
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":7}]}}]}"#,
                "tool_calls",
            ),
            (
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":"f"}]}}]}"#,
                "tool_calls",
            ),
        ] {
            let error = error_of(Chunk::streamed(object(text)));
            assert!(error.contains(&format!("`{field}`")), "{text}: {error}");
        }
        for (text, field) in [
            (r#"{"choices":[{"message":"text"}]}"#, "message"),
            (
                r#"{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":5}}]}}]}"#,
                "tool_calls",
            ),
            (
                r#"{"choices":[{"message":{"tool_calls":[{"id":"a"}]}}]}"#,
                "tool_calls",
            ),
            (
                r#"{"choices":[{"message":{"tool_calls":"x"}}]}"#,
                "tool_calls",
            ),
        ] {
            let error = error_of(Chunk::whole(object(text)));
            assert!(error.contains(&format!("`{field}`")), "{text}: {error}");
        }
    }

    #[test]
    fn a_streamed_call_s_object_arguments_are_its_text_as_a_whole_call_s_are() {
        let arguments = r#"{"city":"Paris"}"#;
        let streamed = Chunk::streamed(object(&format!(
            r#"{{"choices":[{{"delta":{{"tool_calls":[{{"index":0,"id":"a","function":{{"name":"t","arguments":{arguments}}}}}]}}}}]}}"#
        )))
        .unwrap();
        let whole = Chunk::whole(object(&format!(
            r#"{{"choices":[{{"message":{{"tool_calls":[{{"id":"a","function":{{"name":"t","arguments":{arguments}}}}}]}}}}]}}"#
        )))
        .unwrap();
        let (CallPiece::Delta(delta), CallPiece::Whole(call)) =
            (&streamed.choices[0].calls[0], &whole.choices[0].calls[0])
        else {
            panic!("a delta and a whole call");
        };
        assert_eq!(delta["function"]["arguments"], arguments);
        assert_eq!(call.function.arguments, arguments);
        let null = Chunk::streamed(object(
            r#"{"choices":[{"delta":{"tool_calls":[{"index":null,"id":null,"function":{"name":null,"arguments":null}}]}}]}"#,
        ));
        assert!(null.is_ok());
    }

    #[test]
    fn a_whole_call_s_null_fields_are_absent_as_a_delta_s_are() {
        let whole = Chunk::whole(object(
            r#"{"choices":[{"message":{"tool_calls":[{"id":null,"type":null,"function":{"name":"t","arguments":null}}]}}]}"#,
        ))
        .unwrap();
        let CallPiece::Whole(call) = &whole.choices[0].calls[0] else {
            panic!("a whole call");
        };
        assert_eq!((call.id.as_str(), call.kind.as_str()), ("", "function"));
        assert_eq!(call.function.arguments, "");
    }

    #[test]
    fn absent_and_null_fields_are_absent_not_malformed() {
        let chunk = Chunk::streamed(object(
            r#"{"choices":[{"delta":{"content":null,"tool_calls":null},"finish_reason":null,
            "logprobs":null}],"usage":null}"#,
        ))
        .unwrap();
        let choice = &chunk.choices[0];
        assert_eq!(choice.index, 0);
        assert!(choice.calls.is_empty() && choice.content.is_none() && !choice.logprobs);
        assert!(chunk.usage.is_none());
        let usage_only = Chunk::streamed(object(r#"{"choices":[],"usage":{"total_tokens":9}}"#));
        assert_eq!(usage_only.unwrap().typed_usage().unwrap().total_tokens, 9);
    }

    #[test]
    fn stream_events_read_as_pieces() {
        let event = |event: Option<&str>, data: &str| sse::Event {
            event: event.map(str::to_owned),
            data: data.to_owned(),
        };
        assert!(matches!(piece(event(None, " [DONE]")), Ok(Piece::Done)));
        assert!(matches!(
            piece(event(None, r#"{"error":{"message":"x"}}"#)),
            Ok(Piece::UpstreamError(data)) if data.contains("\"x\"")
        ));
        assert!(matches!(
            piece(event(Some("error"), r#"{"message":"x"}"#)),
            Ok(Piece::UpstreamError(_))
        ));
        assert!(piece(event(None, "not json")).is_err());
        match piece(event(None, r#"{"choices":[]}"#)) {
            Ok(Piece::Chunk { data, chunk }) => {
                assert_eq!(data.as_deref(), Some(r#"{"choices":[]}"#));
                assert!(chunk.choices.is_empty());
            }
            _ => panic!("a chunk"),
        }
    }
}
