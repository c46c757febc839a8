//! The driver's events of a streamed answer as a Responses stream:
//! `response.created` and `response.in_progress`, then per output item `output_item.added`,
//! its deltas and `output_item.done`, then `response.completed` (`response.incomplete` when
//! the answer was cut at its token limit); every event with its `sequence_number`, in order,
//! and item ids that stay the same from `added` to the end.

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::{json, Value};

use super::responses::{
    assistant_message, freeform_input, function_call_item, message_output, Reply,
};
use crate::pipe::event::{Event, Part};
/// The most text and arguments held for `response.completed` (which repeats the whole
/// output): the pipe's limit for a whole completion.
const HELD_LIMIT: usize = crate::pipe::drive::RESPONSE_LIMIT as usize;

/// The output item being written.
enum Open {
    None,
    Text {
        id: String,
        text: String,
    },
    Call {
        index: u64,
        call_id: String,
        name: String,
        arguments: String,
    },
}

pub(crate) struct ResponseEvents {
    reply: Reply,
    sequence: u64,
    open: Open,
    /// Finished items, in output order.
    output: Vec<Value>,
    /// The assistant's turn in chat form, remembered for `previous_response_id`.
    text: String,
    calls: Vec<Value>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    /// `response.completed` or an error went out: nothing follows.
    ended: bool,
    /// Bytes of text and arguments held so far, and the most allowed.
    held: usize,
    limit: usize,
}

impl ResponseEvents {
    pub(crate) fn new(reply: Reply) -> ResponseEvents {
        ResponseEvents {
            reply,
            sequence: 0,
            open: Open::None,
            output: Vec::new(),
            text: String::new(),
            calls: Vec::new(),
            finish_reason: None,
            usage: None,
            ended: false,
            held: 0,
            limit: HELD_LIMIT,
        }
    }

    fn event(&mut self, kind: &str, mut data: Value) -> Bytes {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        Bytes::from(format!("event: {kind}\ndata: {data}\n\n"))
    }

    /// `response.created` and `response.in_progress`.
    pub(crate) fn start(&mut self) -> Vec<Bytes> {
        let response = self.reply.response("in_progress", Vec::new(), None);
        vec![
            self.event("response.created", json!({"response": response})),
            self.event("response.in_progress", json!({"response": response})),
        ]
    }

    fn output_index(&self) -> usize {
        self.output.len()
    }

    /// The frames for the parts of one of the driver's events.
    fn parts(&mut self, parts: Vec<Part>) -> Vec<Bytes> {
        let mut out = Vec::new();
        for part in parts {
            match part {
                Part::Text(text) => self.text_delta(&text, &mut out),
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

    fn text_delta(&mut self, text: &str, out: &mut Vec<Bytes>) {
        if !matches!(self.open, Open::Text { .. }) {
            self.close(out);
            let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
            let index = self.output_index();
            let item = message_output(&id, "", "in_progress");
            out.push(self.event(
                "response.output_item.added",
                json!({"output_index": index, "item": item}),
            ));
            let part =
                json!({"type": "output_text", "text": "", "annotations": [], "logprobs": []});
            out.push(self.event(
                "response.content_part.added",
                json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
            ));
            self.open = Open::Text {
                id,
                text: String::new(),
            };
        }
        let index = self.output_index();
        self.held += text.len();
        if let Open::Text { id, text: written } = &mut self.open {
            written.push_str(text);
            let id = id.clone();
            out.push(self.event("response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": text, "logprobs": []})));
        }
    }

    fn call_delta(
        &mut self,
        index: u64,
        begun: Option<(String, String)>,
        part: &str,
        out: &mut Vec<Bytes>,
    ) {
        if !matches!(&self.open, Open::Call { index: open, .. } if *open == index) {
            self.close(out);
            let (call_id, name) = begun.unwrap_or_default();
            let mut item = function_call_item(&call_id, &name, "", "in_progress");
            self.reply.tools.restore(&mut item);
            let output_index = self.output_index();
            out.push(self.event(
                "response.output_item.added",
                json!({"output_index": output_index, "item": item}),
            ));
            self.open = Open::Call {
                index,
                call_id,
                name,
                arguments: String::new(),
            };
        }
        if part.is_empty() {
            return;
        }
        let output_index = self.output_index();
        self.held += part.len();
        if let Open::Call {
            call_id,
            name,
            arguments,
            ..
        } = &mut self.open
        {
            arguments.push_str(part);
            // A freeform call's input is a field of the chat arguments, known whole only at
            // the end: it goes out then, in one delta.
            if self.reply.tools.is_freeform(name) {
                return;
            }
            let item_id = format!("fc_{call_id}");
            out.push(self.event(
                "response.function_call_arguments.delta",
                json!({"item_id": item_id, "output_index": output_index, "delta": part}),
            ));
        }
    }

    /// Ends the open item with its `.done` events.
    fn close(&mut self, out: &mut Vec<Bytes>) {
        let index = self.output_index();
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None => {}
            Open::Text { id, text } => {
                out.push(self.event("response.output_text.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "text": text, "logprobs": []})));
                let part =
                    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []});
                out.push(self.event(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
                ));
                let item = message_output(&id, &text, "completed");
                out.push(self.event(
                    "response.output_item.done",
                    json!({"output_index": index, "item": item}),
                ));
                self.text.push_str(&text);
                self.output.push(item);
            }
            Open::Call {
                call_id,
                name,
                arguments,
                ..
            } => {
                if self.reply.tools.is_freeform(&name) {
                    let item_id = format!("ctc_{call_id}");
                    let input = freeform_input(&arguments);
                    out.push(self.event(
                        "response.custom_tool_call_input.delta",
                        json!({"item_id": item_id, "output_index": index, "delta": input}),
                    ));
                    out.push(self.event(
                        "response.custom_tool_call_input.done",
                        json!({"item_id": item_id, "output_index": index, "input": input}),
                    ));
                } else {
                    let item_id = format!("fc_{call_id}");
                    let shown = self.reply.tools.name_of(&name).to_owned();
                    out.push(self.event("response.function_call_arguments.done",
                        json!({"item_id": item_id, "output_index": index, "name": shown, "arguments": arguments})));
                }
                let mut item = function_call_item(&call_id, &name, &arguments, "completed");
                self.reply.tools.restore(&mut item);
                out.push(self.event(
                    "response.output_item.done",
                    json!({"output_index": index, "item": item}),
                ));
                self.calls.push(json!({"id": call_id, "type": "function",
                    "function": {"name": name, "arguments": arguments}}));
                self.output.push(item);
            }
        }
    }

    /// The closing events, after the chat stream's `[DONE]`; the conversation is remembered.
    pub(crate) fn finish(&mut self) -> Vec<Bytes> {
        let mut out = Vec::new();
        self.close(&mut out);
        self.ended = true;
        let status = match self.finish_reason.as_deref() {
            Some("length") => "incomplete",
            _ => "completed",
        };
        let content = (!self.text.is_empty()).then(|| self.text.clone());
        self.reply.remember(assistant_message(
            &json!({"content": content, "tool_calls": self.calls}),
        ));
        let response = self
            .reply
            .response(status, self.output.clone(), self.usage.as_ref());
        let kind = if status == "completed" {
            "response.completed"
        } else {
            "response.incomplete"
        };
        out.push(self.event(kind, json!({"response": response})));
        out
    }

    /// An `error` event: the Responses shape, with the `error` object OpenAI SDKs raise from.
    pub(crate) fn error(&mut self, message: &str) -> Bytes {
        self.ended = true;
        let error = json!({"message": message, "type": "server_error", "code": "upstream_error", "param": null});
        self.event(
            "error",
            json!({"code": "upstream_error", "message": message, "param": null, "error": error}),
        )
    }
}

/// The driver's events as a Responses event stream.
pub(crate) fn convert(
    events: impl Stream<Item = Event> + Send + 'static,
    reply: Reply,
) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + Send + 'static {
    let written = super::Adapter::written(&reply);
    let mut responses = ResponseEvents::new(reply);
    let start = Bytes::from(responses.start().concat());
    // Ends with the event that ends the response (completed, or an error); the stored
    // conversation is written before the client reads that it is complete.
    let rest = events.scan(responses, move |events, event| {
        let frames = (!events.ended).then(|| Ok(Bytes::from(events.on(event).concat())));
        let written = events.ended.then(|| written.clone());
        async move {
            if let Some(written) = written {
                written.wait().await;
            }
            frames
        }
    });
    futures_util::stream::once(futures_util::future::ready(Ok(start))).chain(rest)
}

impl ResponseEvents {
    /// The Responses frames for one of the driver's events; past the output limit, an error
    /// ends it.
    fn on(&mut self, event: Event) -> Vec<Bytes> {
        if let Some(message) = super::failure(&event) {
            return vec![self.error(&message)];
        }
        match event {
            // Keep-alive comments: SSE clients skip them.
            Event::KeepAlive => vec![Bytes::from_static(b": plaincall translating\n\n")],
            Event::Done => self.finish(),
            event => {
                let mut out = self.parts(super::parts(event));
                if self.held > self.limit {
                    let message = format!("the response exceeds {} bytes", self.limit);
                    out.push(self.error(&message));
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::wire::responses::{to_chat, Store};

    fn events(limit: usize) -> ResponseEvents {
        let request = json!({"model": "m", "input": "hi"});
        let Value::Object(request) = request else {
            unreachable!()
        };
        let mut events = ResponseEvents::new(
            to_chat(
                request,
                &Store::default(),
                &crate::wire::responses::caller("k"),
            )
            .unwrap()
            .reply,
        );
        events.limit = limit;
        events
    }

    fn text_event(text: &str) -> Event {
        Event::Part(0, Part::Text(text.to_owned()))
    }

    #[test]
    fn output_past_the_limit_ends_the_stream_with_an_error() {
        let mut under = events(10);
        under.on(text_event("0123456789"));
        assert!(!under.ended);
        let out = under.on(text_event("!"));
        assert!(under.ended);
        let last = String::from_utf8(out.last().unwrap().to_vec()).unwrap();
        assert!(last.starts_with("event: error\n"), "{last}");
        assert!(last.contains("exceeds 10 bytes"), "{last}");
    }
}
