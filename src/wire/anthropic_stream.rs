//! The driver's events of a streamed answer as an Anthropic Messages stream: `message_start`, one `content_block_*` run per text or `tool_use` block,
//! `message_delta` with the stop reason and usage, `message_stop`; keep-alives as `ping`.

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use http::StatusCode;
use serde_json::{json, Value};

use super::anthropic::{error_body, message_id, stop_reason};
use crate::openai;
use crate::pipe::event::{Event, Part};

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

    /// The frames for one of the driver's events. An event that ends the stream in error is
    /// not given to it: the caller writes its `error` frame.
    pub(crate) fn on(&mut self, event: Event) -> Out {
        let mut out = Vec::new();
        if let Event::Envelope(envelope) = &event {
            let id: Option<String> = openai::get(envelope, "id").ok().flatten();
            self.start(id.as_deref(), &mut out);
            return out;
        }
        if matches!(event, Event::Done) {
            return self.finish();
        }
        if matches!(event, Event::KeepAlive) {
            return vec![("ping", json!({"type": "ping"}))];
        }
        self.start(None, &mut out);
        for part in super::parts(event) {
            match part {
                Part::Text(text) => self.text(&text, &mut out),
                Part::CallBegun {
                    index,
                    id,
                    name,
                    arguments,
                } => self.call_delta(index, Some((id, name)), &arguments, &mut out),
                Part::CallArguments { index, arguments } => {
                    self.call_delta(index, None, &arguments, &mut out)
                }
                Part::Finish(reason) => self.finish_reason = Some(reason),
                Part::Usage(usage) => self.usage = Some(usage),
            }
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

    fn call_delta(
        &mut self,
        call_index: u64,
        begun: Option<(String, String)>,
        part: &str,
        out: &mut Out,
    ) {
        let index = match self.open {
            Open::Tool(index, open) if open == call_index => index,
            _ => {
                self.has_calls = true;
                let (id, name) = begun.unwrap_or_default();
                let block = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
                self.open_block(block, |i| Open::Tool(i, call_index), out)
            }
        };
        if !part.is_empty() {
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

/// The driver's events as a Messages event stream.
pub(crate) fn convert(
    events: impl Stream<Item = Event> + Send + 'static,
    model: &str,
) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + Send + 'static {
    let mut messages = MessageEvents::new(model);
    events.map(move |event| {
        if let Some(message) = super::failure(&event) {
            let body = error_body(StatusCode::BAD_GATEWAY, &message);
            return Ok(Bytes::from(format!("event: error\ndata: {body}\n\n")));
        }
        Ok(messages
            .on(event)
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

    fn passed(chunk: &str) -> Vec<Event> {
        let chunk: crate::openai::RawObject = serde_json::from_str(chunk).unwrap();
        let chunk = crate::pipe::chunks::Chunk::streamed(chunk).unwrap();
        let parts = chunk.parts();
        vec![
            Event::Envelope(chunk.envelope),
            Event::Passed {
                frame: Bytes::new(),
                parts,
            },
        ]
    }

    #[test]
    fn text_then_two_calls_make_three_blocks() {
        let mut events = MessageEvents::new("m");
        let mut all = Vec::new();
        for chunk in [
            r#"{"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}"#,
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "function": {"name": "f", "arguments": "{\"a\":"}}]}}]}"#,
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "1}"}}]}}]}"#,
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 1, "id": "call_b", "function": {"name": "g", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}"#,
            r#"{"choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 9}}"#,
        ] {
            for event in passed(chunk) {
                all.extend(events.on(event));
            }
        }
        all.extend(events.on(Event::Done));
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
