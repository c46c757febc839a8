//! What a streamed answer is made of, as the driver emits it, and its Chat Completions
//! rendering. The other formats render the same events in `wire/`: nothing downstream of the
//! driver parses bytes it wrote.

use bytes::Bytes;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::error::ProxyError;
use crate::openai::{self, RawObject};

/// One step of a streamed answer, in the order the client gets it.
#[derive(Debug)]
pub(crate) enum Event {
    /// The fields of an upstream chunk other than its `choices` (`id`, `model`, `created`,
    /// ...): the chunks the driver writes carry them.
    Envelope(RawObject),
    /// An upstream chunk that goes on as it came: Chat Completions clients get `frame` byte for
    /// byte (scrubbed of the configured secrets); the other formats read `parts`, its first
    /// choice's.
    Passed { frame: Bytes, parts: Vec<Part> },
    /// A choice of an upstream chunk after the driver took out what it handles (its calls; in
    /// prompt mode the text that may hold one), and `parts`, what the other formats read of it.
    Choice { choice: RawObject, parts: Vec<Part> },
    /// A part of a choice (by index) the driver wrote itself.
    Part(u64, Part),
    /// Written while a translation runs, so that idle timeouts do not cut the stream.
    KeepAlive,
    /// The upstream's own error event, as it came (scrubbed): the stream ends with it.
    UpstreamError(String),
    /// plaincall's error: the stream ends with it.
    Error(ProxyError),
    /// The answer is whole.
    Done,
}

/// What a choice of an answer says, piece by piece.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Text(String),
    /// A call's first piece: its id and name, and the start of its arguments.
    CallBegun {
        index: u64,
        id: String,
        name: String,
        arguments: String,
    },
    /// More of a call's arguments.
    CallArguments {
        index: u64,
        arguments: String,
    },
    Finish(String),
    Usage(Value),
}

/// A call delta as a client accumulates it: the one with an id or a name begins a call.
pub(crate) fn call_part(delta: &Value) -> Part {
    let index = delta.get("index").and_then(Value::as_u64).unwrap_or(0);
    let text = |pointer: &str| {
        delta
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let arguments = text("/function/arguments").unwrap_or_default();
    match (text("/id"), text("/function/name")) {
        (None, None) => Part::CallArguments { index, arguments },
        (id, name) => Part::CallBegun {
            index,
            id: id.unwrap_or_default(),
            name: name.unwrap_or_default(),
            arguments,
        },
    }
}

/// The events of one streamed answer, as the driver sends them.
pub(crate) struct Events(pub(crate) mpsc::Receiver<Event>);

impl Events {
    /// The events as a stream that ends when the driver's task does.
    pub(crate) fn into_stream(self) -> impl futures_util::Stream<Item = Event> + Send + 'static {
        let mut rx = self.0;
        futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
    }
}

/// The Chat Completions rendering of the events: chunks the driver writes carry the latest
/// upstream envelope, with the first chunk's id (after repair turns, the answer keeps it).
#[derive(Default)]
pub(crate) struct ChatChunks {
    envelope: RawObject,
    first_id: Option<Box<RawValue>>,
}

impl ChatChunks {
    pub(crate) fn render(&mut self, event: Event) -> Option<Bytes> {
        Some(match event {
            Event::Envelope(envelope) => {
                if self.first_id.is_none() {
                    self.first_id = envelope.get("id").cloned();
                }
                self.envelope = envelope;
                return None;
            }
            Event::Passed { frame, .. } => frame,
            Event::Choice { choice, .. } => self.chunk(openai::to_raw(&[choice]), None),
            Event::Part(index, part) => self.part(index, part),
            Event::KeepAlive => Bytes::from_static(b": plaincall translating\n\n"),
            Event::UpstreamError(data) => Bytes::from(format!("data: {data}\n\n")),
            Event::Error(error) => crate::sse::error_event(&error),
            Event::Done => Bytes::from_static(b"data: [DONE]\n\n"),
        })
    }

    fn part(&self, index: u64, part: Part) -> Bytes {
        let (delta, finish) = match part {
            Part::Text(text) => (json!({"content": text}), Value::Null),
            Part::CallBegun {
                index,
                id,
                name,
                arguments,
            } => (
                json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments}}]}),
                Value::Null,
            ),
            Part::CallArguments { index, arguments } => (
                json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
                Value::Null,
            ),
            Part::Finish(reason) => (json!({}), Value::String(reason)),
            Part::Usage(usage) => return self.chunk(openai::to_raw(&[] as &[Value]), Some(usage)),
        };
        let choice = json!([{"index": index, "delta": delta, "finish_reason": finish}]);
        self.chunk(openai::to_raw(&choice), None)
    }

    /// A chunk of the driver's: the envelope, `choices`, and the usage when given.
    fn chunk(
        &self,
        choices: Result<Box<RawValue>, serde_json::Error>,
        usage: Option<Value>,
    ) -> Bytes {
        let mut chunk = self.envelope.clone();
        if let Some(id) = &self.first_id {
            chunk.insert("id".into(), id.clone());
        }
        if chunk.get("usage").is_some_and(|u| u.get() != "null") {
            chunk.shift_remove("usage");
        }
        let written = choices
            .map(|choices| {
                chunk.insert("choices".into(), choices);
            })
            .and_then(|()| match &usage {
                Some(usage) => openai::set(&mut chunk, "usage", usage),
                None => Ok(()),
            })
            .and_then(|()| serde_json::to_string(&chunk));
        match written {
            Ok(text) => Bytes::from(format!("data: {text}\n\n")),
            // Serialising values that came from JSON does not fail.
            Err(_) => Bytes::new(),
        }
    }
}

/// A whole answer folded from the driver's events, as a client folds a stream: the last
/// turn's envelope with the first turn's id; per choice its message (text of every turn, then
/// the calls released), its other fields and its finish reason; the usage, summed over repair
/// turns (else the upstream's own).
#[derive(Default)]
pub(crate) struct Completion {
    envelope: RawObject,
    first_id: Option<Box<RawValue>>,
    choices: Vec<WholeChoice>,
    usage: Option<Value>,
}

/// `key` in its place, its value to come.
fn placeholder(object: &mut RawObject, key: &str) {
    if !object.contains_key(key) {
        let _ = openai::set(object, key, &Value::Null);
    }
}

struct WholeChoice {
    index: u64,
    /// The choice's fields, its message under `message` (without `content` and
    /// `tool_calls`, which are written at the end).
    choice: RawObject,
    message: RawObject,
    text: String,
    calls: Vec<Value>,
    finish: Option<String>,
}

impl Completion {
    pub(crate) fn add(&mut self, event: Event) {
        match event {
            Event::Envelope(envelope) => {
                if self.first_id.is_none() {
                    self.first_id = envelope.get("id").cloned();
                }
                self.envelope = envelope;
            }
            Event::Choice { choice, .. } => {
                let index = openai::get(&choice, "index").ok().flatten().unwrap_or(0);
                let delta: RawObject = openai::get(&choice, "delta")
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                let whole = self.choice(index);
                // `message` and `content` keep their places; their values are written last.
                for (key, value) in choice {
                    match key.as_str() {
                        "delta" => placeholder(&mut whole.choice, "message"),
                        _ => drop(whole.choice.insert(key, value)),
                    }
                }
                for (key, value) in delta {
                    if key == "content" {
                        if let Ok(text) = serde_json::from_str::<String>(value.get()) {
                            whole.text.push_str(&text);
                        }
                        placeholder(&mut whole.message, "content");
                        continue;
                    }
                    whole.message.insert(key, value);
                }
            }
            Event::Part(index, part) => self.part(index, part),
            Event::Passed { .. }
            | Event::KeepAlive
            | Event::UpstreamError(_)
            | Event::Error(_)
            | Event::Done => {}
        }
    }

    fn choice(&mut self, index: u64) -> &mut WholeChoice {
        let at = match self.choices.iter().position(|c| c.index == index) {
            Some(at) => at,
            None => {
                self.choices.push(WholeChoice {
                    index,
                    choice: RawObject::new(),
                    message: RawObject::new(),
                    text: String::new(),
                    calls: Vec::new(),
                    finish: None,
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[at]
    }

    fn part(&mut self, index: u64, part: Part) {
        if let Part::Usage(usage) = part {
            self.usage = Some(usage);
            return;
        }
        let whole = self.choice(index);
        match part {
            Part::Text(text) => whole.text.push_str(&text),
            Part::CallBegun {
                id,
                name,
                arguments,
                ..
            } => whole.calls.push(json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments}})),
            Part::CallArguments { index, arguments } => {
                if let Some(call) = whole.calls.get_mut(index as usize) {
                    if let Some(Value::String(text)) = call.pointer_mut("/function/arguments") {
                        text.push_str(&arguments);
                    }
                }
            }
            Part::Finish(reason) => whole.finish = Some(reason),
            Part::Usage(_) => {}
        }
    }

    /// The completion, as the client reads it.
    pub(crate) fn finish(self) -> Result<RawObject, serde_json::Error> {
        let mut completion = self.envelope;
        if let Some(id) = self.first_id {
            completion.insert("id".into(), id);
        }
        let mut choices = Vec::with_capacity(self.choices.len());
        for whole in self.choices {
            let mut message = whole.message;
            let text = (!whole.text.is_empty()).then_some(whole.text);
            openai::set(&mut message, "content", &text)?;
            if !whole.calls.is_empty() {
                openai::set(&mut message, "tool_calls", &whole.calls)?;
            }
            let mut choice = whole.choice;
            openai::set(&mut choice, "index", &whole.index)?;
            openai::set(&mut choice, "message", &message)?;
            openai::set(&mut choice, "finish_reason", &whole.finish)?;
            choices.push(choice);
        }
        openai::set(&mut completion, "choices", &choices)?;
        if let Some(usage) = self.usage {
            openai::set(&mut completion, "usage", &usage)?;
        }
        Ok(completion)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn object(text: &str) -> RawObject {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn engine_chunks_keep_the_first_id_and_the_latest_envelope() {
        let mut chat = ChatChunks::default();
        assert!(chat
            .render(Event::Envelope(object(
                r#"{"id":"first","model":"m","usage":null}"#
            )))
            .is_none());
        chat.render(Event::Envelope(object(
            r#"{"id":"second","model":"m2","usage":{"total_tokens":1}}"#,
        )));
        let text = chat.render(Event::Part(0, Part::Text("x".into()))).unwrap();
        assert_eq!(
            std::str::from_utf8(&text).unwrap(),
            "data: {\"id\":\"first\",\"model\":\"m2\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}\n\n"
        );
        let usage = chat
            .render(Event::Part(0, Part::Usage(json!({"total_tokens": 5}))))
            .unwrap();
        assert!(std::str::from_utf8(&usage)
            .unwrap()
            .ends_with("\"choices\":[],\"usage\":{\"total_tokens\":5}}\n\n"));
    }
}
