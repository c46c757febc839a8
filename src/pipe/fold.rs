//! A whole answer read as a stream. To watch a main-model turn while it is written (and cut a
//! description that runs away, [`super::runaway`]), a client's whole request that carries a
//! rewritten tool is asked of the upstream as a stream, and its chunks are folded back into
//! the completion the upstream would have sent: strings appended (`content`, reasoning,
//! a call's `arguments`), a call's `id` and `name` from its first delta, the rest as the
//! chunks gave it (unknown fields kept), `usage` asked for and kept. An upstream that answers
//! whole anyway, or with an error, is read as it answered (one that cannot stream at all
//! needs `translation.description_limit = 0`).

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue};
use serde_json::{Map, Value};

use super::runaway::{Cut, Watch};
use super::ToolSet;
use crate::error::ProxyError;
use crate::sse;
use crate::upstream::{UpstreamClient, UpstreamResponse};

/// The chunks of one streamed answer, folded.
#[derive(Default)]
struct Fold {
    /// The first chunk's keys (its id, model, created), less `choices` and `usage`.
    envelope: Map<String, Value>,
    /// By choice index, in the order they first came.
    choices: Vec<(u64, Choice)>,
    usage: Option<Value>,
    done: bool,
}

#[derive(Default)]
struct Choice {
    /// The choice's keys other than `delta` (its finish reason, logprobs).
    keys: Map<String, Value>,
    message: Map<String, Value>,
    /// By call index, in the order they first came.
    calls: Vec<(u64, Value)>,
    /// The calls' lengths when last watched for a runaway.
    watched: Vec<usize>,
}

impl Fold {
    /// Adds one chunk; an `error` chunk is the upstream's error, as it gave it.
    fn push(&mut self, chunk: Value) -> Result<(), ProxyError> {
        let Value::Object(mut chunk) = chunk else {
            return Err(protocol("a stream chunk is not an object"));
        };
        if let Some(error) = chunk.get("error") {
            return Err(ProxyError::UpstreamProtocol(format!(
                "the upstream's stream ended with an error: {error}"
            )));
        }
        let choices = match chunk.remove("choices") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(choices)) => choices,
            Some(_) => return Err(protocol("`choices` is malformed: not an array")),
        };
        if let Some(usage @ Value::Object(_)) = chunk.remove("usage") {
            self.usage = Some(usage);
        }
        for (key, value) in chunk {
            self.envelope.entry(key).or_insert(value);
        }
        for choice in choices {
            self.push_choice(choice)?;
        }
        Ok(())
    }

    fn push_choice(&mut self, choice: Value) -> Result<(), ProxyError> {
        let Value::Object(mut choice) = choice else {
            return Err(protocol("a choice is not an object"));
        };
        let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
        let at = match self.choices.iter().position(|(i, _)| *i == index) {
            Some(at) => at,
            None => {
                self.choices.push((index, Choice::default()));
                self.choices.len() - 1
            }
        };
        let whole = &mut self.choices[at].1;
        match choice.remove("delta") {
            None | Some(Value::Null) => {}
            Some(Value::Object(delta)) => whole.push_delta(delta)?,
            Some(_) => return Err(protocol("`delta` is malformed: not an object")),
        }
        for (key, value) in choice {
            match (key.as_str(), whole.keys.get_mut(&key), value) {
                ("logprobs", Some(Value::Object(had)), Value::Object(more)) => {
                    append_lists(had, more);
                }
                // A later chunk's `null` does not undo a finish reason.
                (_, Some(_), Value::Null) => {}
                (_, _, value) => drop(whole.keys.insert(key, value)),
            }
        }
        Ok(())
    }

    /// The stream said `[DONE]`.
    fn end(&mut self) {
        self.done = true;
    }

    /// A call to a rewritten tool whose description ran away: its arguments become the
    /// description as cut, and its choice ends with its calls.
    fn cut_runaway(&mut self, watch: &Watch, tools: &ToolSet) -> Option<(String, Cut)> {
        for (_, choice) in &mut self.choices {
            if let Some(cut) = choice.cut_runaway(watch, tools) {
                choice
                    .keys
                    .insert("finish_reason".into(), "tool_calls".into());
                self.done = true;
                return Some(cut);
            }
        }
        None
    }

    /// The completion, as a whole answer has it; an error when the stream ended before its
    /// `[DONE]` (a cut stream's answer is not whole).
    fn finish(self) -> Result<Value, ProxyError> {
        if !self.done {
            return Err(protocol("the upstream's stream ended before its `[DONE]`"));
        }
        let mut answer = self.envelope;
        answer.insert("object".into(), "chat.completion".into());
        let choices = self.choices.into_iter().map(|(index, c)| c.finish(index));
        answer.insert("choices".into(), Value::Array(choices.collect()));
        if let Some(usage) = self.usage {
            answer.insert("usage".into(), usage);
        }
        Ok(Value::Object(answer))
    }
}

impl Choice {
    fn push_delta(&mut self, delta: Map<String, Value>) -> Result<(), ProxyError> {
        for (key, value) in delta {
            match (key.as_str(), value) {
                ("tool_calls", Value::Null) => {}
                ("tool_calls", Value::Array(calls)) => {
                    for call in calls {
                        self.push_call(call)?;
                    }
                }
                ("tool_calls", _) => {
                    return Err(protocol("`tool_calls` is malformed: not an array"))
                }
                // Said once, in the first delta.
                ("role", value) => drop(self.message.entry(key).or_insert(value)),
                (_, Value::String(more)) => match self.message.get_mut(&key) {
                    Some(Value::String(text)) => text.push_str(&more),
                    _ => drop(self.message.insert(key, Value::String(more))),
                },
                (_, Value::Null) => drop(self.message.entry(key).or_insert(Value::Null)),
                (_, value) => drop(self.message.insert(key, value)),
            }
        }
        Ok(())
    }

    fn push_call(&mut self, delta: Value) -> Result<(), ProxyError> {
        let Value::Object(delta) = delta else {
            return Err(protocol(
                "`tool_calls` is malformed: a call is not an object",
            ));
        };
        let index = match delta.get("index") {
            Some(index) => index
                .as_u64()
                .filter(|i| *i <= super::assemble::MAX_CALL_INDEX)
                .ok_or_else(|| protocol("a tool call's `index` is malformed or out of range"))?,
            None => self.calls.len() as u64,
        };
        let at = match self.calls.iter().position(|(i, _)| *i == index) {
            Some(at) => at,
            None => {
                self.calls.push((index, Value::Object(Map::new())));
                self.watched.push(0);
                self.calls.len() - 1
            }
        };
        let Value::Object(call) = &mut self.calls[at].1 else {
            return Err(ProxyError::Internal(
                "a folded call is not an object".into(),
            ));
        };
        merge_call(call, delta);
        Ok(())
    }

    fn cut_runaway(&mut self, watch: &Watch, tools: &ToolSet) -> Option<(String, Cut)> {
        for ((_, call), watched) in self.calls.iter_mut().zip(self.watched.iter_mut()) {
            let name = call.pointer("/function/name").and_then(Value::as_str);
            let Some(tool) = name.and_then(|n| tools.handled(n)).filter(|t| t.rewritten) else {
                continue;
            };
            let Some(arguments) = call.pointer_mut("/function/arguments") else {
                continue;
            };
            let Value::String(text) = arguments else {
                continue;
            };
            if text.len() < *watched + super::runaway::CHECK_EVERY {
                continue;
            }
            *watched = text.len();
            if let Some(cut) = watch.check(text, &tool.field) {
                let mut whole = Map::new();
                whole.insert(tool.field.clone(), Value::String(cut.text.clone()));
                *arguments = Value::String(Value::Object(whole).to_string());
                return Some((tool.name.clone(), cut));
            }
        }
        None
    }

    fn finish(mut self, index: u64) -> Value {
        let mut message = Map::new();
        message.insert(
            "role".into(),
            self.message.remove("role").unwrap_or("assistant".into()),
        );
        message.insert(
            "content".into(),
            self.message.remove("content").unwrap_or(Value::Null),
        );
        message.extend(self.message);
        if !self.calls.is_empty() {
            let calls = self.calls.into_iter().map(|(_, call)| call).collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        let mut choice = Map::new();
        choice.insert("index".into(), index.into());
        choice.insert("message".into(), Value::Object(message));
        for key in ["logprobs", "finish_reason"] {
            let value = self.keys.remove(key).unwrap_or(Value::Null);
            choice.insert(key.into(), value);
        }
        choice.extend(self.keys.into_iter().filter(|(k, _)| k != "index"));
        Value::Object(choice)
    }
}

/// A call's delta into the call: `id`, `type` and `name` from the first that carries them,
/// `arguments` appended, anything else as the latest gave it.
fn merge_call(call: &mut Map<String, Value>, delta: Map<String, Value>) {
    for (key, value) in delta {
        match (key.as_str(), value) {
            ("index", _) | (_, Value::Null) => {}
            ("function", Value::Object(function)) => {
                let into = call
                    .entry("function")
                    .or_insert_with(|| Value::Object(Map::new()));
                let Value::Object(into) = into else {
                    continue;
                };
                for (key, value) in function {
                    match (key.as_str(), into.get_mut(&key), value) {
                        ("arguments", Some(Value::String(text)), Value::String(more)) => {
                            text.push_str(&more)
                        }
                        (_, Some(_), _) if key != "arguments" => {}
                        (_, _, Value::Null) => {}
                        (_, _, value) => drop(into.insert(key, value)),
                    }
                }
            }
            ("id" | "type", value) => drop(call.entry(key).or_insert(value)),
            (_, value) => drop(call.insert(key, value)),
        }
    }
    if let Some(Value::Object(function)) = call.get_mut("function") {
        function
            .entry("arguments")
            .or_insert_with(|| Value::String(String::new()));
    }
}

/// Logprobs' lists (`content`, `refusal`) appended; anything else as the latest gave it.
fn append_lists(had: &mut Map<String, Value>, more: Map<String, Value>) {
    for (key, value) in more {
        match (had.get_mut(&key), value) {
            (Some(Value::Array(list)), Value::Array(more)) => list.extend(more),
            (_, Value::Null) => {}
            (_, value) => drop(had.insert(key, value)),
        }
    }
}

fn protocol(what: &str) -> ProxyError {
    ProxyError::UpstreamProtocol(what.to_owned())
}

/// The request's body asking for a stream, with the usage a whole answer carries: written
/// from the body's own fields, not from a copy of them.
pub(crate) fn streamed(body: &crate::openai::RawObject) -> Result<Bytes, serde_json::Error> {
    let mut changes = crate::openai::RawObject::new();
    crate::openai::set(&mut changes, "stream", &true)?;
    crate::openai::set(
        &mut changes,
        "stream_options",
        &serde_json::json!({"include_usage": true}),
    )?;
    crate::openai::to_bytes_with(body, &changes, &[])
}

/// Reads a streamed answer into the whole answer it stands for, watching its calls: a
/// runaway one is cut there and the rest of the stream left unread. Returns the answer's
/// bytes and the cut, if any.
pub(crate) async fn read(
    upstream: &UpstreamClient,
    mut response: UpstreamResponse,
    watch: &Watch,
    tools: &ToolSet,
    limit: u64,
) -> Result<(Bytes, Option<(String, Cut)>), ProxyError> {
    let mut parser = sse::Parser::new(sse::MAX_EVENT_BYTES);
    let mut fold = Fold::default();
    let mut read = 0u64;
    let mut cut = None;
    'read: while let Some(chunk) = upstream.next_chunk(&mut response).await? {
        read += chunk.len() as u64;
        if read > limit {
            return Err(protocol(&format!("response body exceeds {limit} bytes")));
        }
        let events = parser
            .push(&chunk)
            .map_err(|e| ProxyError::UpstreamProtocol(e.to_string()))?;
        for event in events {
            let data = event.data.trim();
            if data == "[DONE]" {
                fold.end();
                break 'read;
            }
            let chunk = serde_json::from_str(data).map_err(|e| {
                ProxyError::UpstreamProtocol(format!("a stream chunk is not JSON: {e}"))
            })?;
            fold.push(chunk)?;
        }
        cut = fold.cut_runaway(watch, tools);
        if cut.is_some() {
            break;
        }
    }
    let answer = serde_json::to_vec(&fold.finish()?)
        .map_err(|e| ProxyError::Internal(format!("a folded answer: {e}")))?;
    Ok((Bytes::from(answer), cut))
}

/// The headers of a folded answer: the upstream's, typed as the JSON it now is.
pub(crate) fn whole_headers(mut headers: HeaderMap) -> HeaderMap {
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::TRANSFER_ENCODING);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn fold(chunks: Vec<Value>) -> Value {
        let mut fold = Fold::default();
        for chunk in chunks {
            fold.push(chunk).unwrap();
        }
        fold.end();
        fold.finish().unwrap()
    }

    fn chunk(delta: Value, finish: Value) -> Value {
        json!({"id": "c1", "object": "chat.completion.chunk", "created": 7, "model": "m",
            "system_fingerprint": "fp", "choices": [{"index": 0, "delta": delta,
            "logprobs": null, "finish_reason": finish}]})
    }

    #[test]
    fn text_calls_and_usage_fold_into_the_whole_answer() {
        let answer = fold(vec![
            chunk(json!({"role": "assistant", "content": ""}), Value::Null),
            chunk(
                json!({"content": "Hel", "reasoning_content": "th"}),
                Value::Null,
            ),
            chunk(
                json!({"content": "lo", "reasoning_content": "ink"}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "f", "arguments": "{\"a\""}}]}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}),
                Value::Null,
            ),
            chunk(json!({}), json!("tool_calls")),
            json!({"id": "c1", "object": "chat.completion.chunk", "choices": [],
                "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}),
        ]);
        assert_eq!(
            answer,
            json!({"id": "c1", "object": "chat.completion", "created": 7, "model": "m",
                "system_fingerprint": "fp",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello",
                    "reasoning_content": "think", "tool_calls": [{"id": "call_1",
                    "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
                    "logprobs": null, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
        );
    }

    #[test]
    fn choices_logprobs_and_unknown_fields_are_kept() {
        let lp = |t: &str| json!({"content": [{"token": t, "logprob": -0.1}]});
        let answer = fold(vec![
            json!({"id": "c", "x_extra": 1, "choices": [
                {"index": 1, "delta": {"content": "b", "x_note": "n"}, "logprobs": lp("b")},
                {"index": 0, "delta": {"content": "a"}, "logprobs": lp("a")}]}),
            json!({"id": "c", "choices": [
                {"index": 1, "delta": {"content": "2"}, "logprobs": lp("2"), "finish_reason": "stop"},
                {"index": 0, "delta": {}, "finish_reason": "length", "matched_stop": 2}]}),
        ]);
        assert_eq!(answer["x_extra"], 1);
        assert_eq!(answer["choices"][0]["index"], 1);
        assert_eq!(answer["choices"][0]["message"]["content"], "b2");
        assert_eq!(answer["choices"][0]["message"]["x_note"], "n");
        assert_eq!(
            answer["choices"][0]["logprobs"]["content"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(answer["choices"][0]["finish_reason"], "stop");
        assert_eq!(answer["choices"][1]["finish_reason"], "length");
        assert_eq!(answer["choices"][1]["matched_stop"], 2);
        assert_eq!(answer["choices"][1]["message"]["content"], "a");
    }

    #[test]
    fn a_stream_that_is_not_whole_is_an_error() {
        let mut cut_short = Fold::default();
        cut_short
            .push(chunk(json!({"content": "a"}), Value::Null))
            .unwrap();
        assert!(cut_short.finish().is_err());
        let mut fold = Fold::default();
        assert!(fold.push(json!({"error": {"message": "boom"}})).is_err());
        assert!(fold.push(json!({"choices": {"index": 0}})).is_err());
        assert!(fold
            .push(chunk(json!({"tool_calls": {"index": 0}}), Value::Null))
            .is_err());
        assert!(fold
            .push(chunk(
                json!({"tool_calls": [{"index": 99999}]}),
                Value::Null
            ))
            .is_err());
    }

    #[test]
    fn the_request_asks_for_a_stream_with_usage_and_keeps_the_rest() {
        let body = br#"{"model":"m","stream":false,"x":{"y": 1},"messages":[]}"#;
        let body: crate::openai::RawObject = serde_json::from_slice(body).unwrap();
        let streamed = streamed(&body).unwrap();
        // In place, in order, every other value as it was written.
        assert_eq!(
            std::str::from_utf8(&streamed).unwrap(),
            r#"{"model":"m","stream":true,"x":{"y": 1},"messages":[],"stream_options":{"include_usage":true}}"#
        );
    }
}
