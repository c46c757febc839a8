//! A Chat Completions event stream (as the pipe writes it) rewritten as an Anthropic Messages
//! stream: `message_start`, one `content_block_*` run per text or `tool_use` block,
//! `message_delta` with the stop reason and usage, `message_stop`; keep-alives as `ping`.

use axum::body::Body;
use axum::http::StatusCode;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::{json, Value};

use super::anthropic::{error_body, message_id, stop_reason};
use super::{chat_events, ChatEvent};

/// Which content block is open, if any.
enum Open {
    None,
    Text(usize),
    /// A `tool_use` block and the chat call index it carries.
    Tool(usize, u64),
}

/// What the stream has seen so far.
pub(crate) struct MessageEvents {
    model: String,
    started: bool,
    open: Open,
    next_block: usize,
    finish_reason: Option<String>,
    has_calls: bool,
    usage: Option<Value>,
}

type Out = Vec<(&'static str, Value)>;

impl MessageEvents {
    pub(crate) fn new(model: &str) -> MessageEvents {
        MessageEvents {
            model: model.to_owned(),
            started: false,
            open: Open::None,
            next_block: 0,
            finish_reason: None,
            has_calls: false,
            usage: None,
        }
    }

    fn start(&mut self, id: Option<&str>, out: &mut Out) {
        if self.started {
            return;
        }
        self.started = true;
        out.push((
            "message_start",
            json!({"type": "message_start", "message": {
                "id": message_id(id), "type": "message", "role": "assistant",
                "model": self.model, "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 0, "output_tokens": 0}}}),
        ));
    }

    fn close(&mut self, out: &mut Out) {
        let index = match std::mem::replace(&mut self.open, Open::None) {
            Open::None => return,
            Open::Text(index) | Open::Tool(index, _) => index,
        };
        out.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }

    fn open_block(
        &mut self,
        block: Value,
        open: impl FnOnce(usize) -> Open,
        out: &mut Out,
    ) -> usize {
        self.close(out);
        let index = self.next_block;
        self.next_block += 1;
        self.open = open(index);
        out.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        ));
        index
    }

    /// The events for one chat chunk (its first choice).
    pub(crate) fn chunk(&mut self, chunk: &Value) -> Out {
        let mut out = Vec::new();
        self.start(chunk.get("id").and_then(Value::as_str), &mut out);
        let parts = super::chunk_parts(chunk);
        if let Some(usage) = parts.usage {
            self.usage = Some(usage.clone());
        }
        if let Some(text) = parts.text {
            self.text(text, &mut out);
        }
        for call in parts.calls {
            self.call_delta(call, &mut out);
        }
        if let Some(reason) = parts.finish {
            self.finish_reason = Some(reason.to_owned());
        }
        out
    }

    fn text(&mut self, text: &str, out: &mut Out) {
        let index = match self.open {
            Open::Text(index) => index,
            _ => self.open_block(json!({"type": "text", "text": ""}), Open::Text, out),
        };
        out.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                   "delta": {"type": "text_delta", "text": text}}),
        ));
    }

    fn call_delta(&mut self, call: &Value, out: &mut Out) {
        let call_index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
        let index = match self.open {
            Open::Tool(index, open) if open == call_index => index,
            _ => {
                self.has_calls = true;
                let block = json!({"type": "tool_use",
                    "id": call.get("id").cloned().unwrap_or(Value::Null),
                    "name": call.pointer("/function/name").cloned().unwrap_or(Value::Null),
                    "input": {}});
                self.open_block(block, |i| Open::Tool(i, call_index), out)
            }
        };
        if let Some(part) = call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        {
            out.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": part}}),
            ));
        }
    }

    /// The closing events, after the chat stream's `[DONE]`.
    pub(crate) fn finish(&mut self) -> Out {
        let mut out = Vec::new();
        self.start(None, &mut out);
        self.close(&mut out);
        let output_tokens = self
            .usage
            .as_ref()
            .and_then(|u| u.get("completion_tokens"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let reason = stop_reason(self.finish_reason.as_deref(), self.has_calls);
        out.push((
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
                   "usage": {"output_tokens": output_tokens}}),
        ));
        out.push(("message_stop", json!({"type": "message_stop"})));
        out
    }
}

fn frame((name, data): (&'static str, Value)) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// The chat event stream in `body` as a Messages event stream.
pub(crate) fn convert(
    body: Body,
    model: &str,
) -> impl Stream<Item = Result<Bytes, axum::Error>> + Send + 'static {
    let mut events = MessageEvents::new(model);
    chat_events(body).map(move |event| {
        let frames = match event {
            ChatEvent::KeepAlive => vec![("ping", json!({"type": "ping"}))],
            ChatEvent::Chunk(chunk) => events.chunk(&chunk),
            ChatEvent::Done => events.finish(),
            ChatEvent::Failed(message) => {
                let body = error_body(StatusCode::BAD_GATEWAY, &message);
                return Ok(Bytes::from(format!("event: error\ndata: {body}\n\n")));
            }
        };
        Ok(frames
            .into_iter()
            .map(frame)
            .collect::<Vec<_>>()
            .concat()
            .into())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn names(out: &Out) -> Vec<&'static str> {
        out.iter().map(|(n, _)| *n).collect()
    }

    #[test]
    fn text_then_two_calls_make_three_blocks() {
        let mut events = MessageEvents::new("m");
        let mut all = events.chunk(
            &json!({"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}),
        );
        all.extend(
            events.chunk(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "function": {"name": "f", "arguments": "{\"a\":"}}]}}]})),
        );
        all.extend(
            events.chunk(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "1}"}}]}}]})),
        );
        all.extend(events.chunk(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 1, "id": "call_b", "function": {"name": "g", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]})));
        all.extend(
            events.chunk(
                &json!({"choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 9}}),
            ),
        );
        all.extend(events.finish());
        assert_eq!(
            names(&all),
            vec![
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(all[0].1["message"]["id"], "msg_1");
        assert_eq!(
            all[4].1["content_block"],
            json!({"type": "tool_use", "id": "call_a", "name": "f", "input": {}})
        );
        assert_eq!(all[6].1["delta"]["partial_json"], "1}");
        assert_eq!(all[8].1["index"], 2);
        assert_eq!(all[11].1["delta"]["stop_reason"], "tool_use");
        assert_eq!(all[11].1["usage"]["output_tokens"], 9);
    }
}
