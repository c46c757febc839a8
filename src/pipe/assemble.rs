//! The calls of one choice, assembled in one place whether they arrive as whole messages or
//! as stream deltas. Calls that plaincall resolves (see [`Resolver::holds`]) are held until
//! their arguments are complete and resolved concurrently; the others go on as they come.
//! Calls are released in upstream order with client indices contiguous from 0 across repair
//! turns. The driver ([`super::drive`]) emits what is released as events, which a stream and
//! a whole answer render alike, so both get the same calls, ids and order by construction.

use serde_json::Value;
use tokio::task::{AbortHandle, JoinSet};
use tracing::Instrument;

use super::chunks::CallPiece;
use super::conversation::Failure;
use super::resolve::{Resolved, Resolver};
use super::runaway::{self, Cut, Watch};
use super::split;
use crate::error::ProxyError;
use crate::openai::ToolCall;

/// The highest tool-call `index` taken from an upstream: indices count a message's calls, and
/// one past any real count would only overflow the arithmetic that follows them.
pub(crate) const MAX_CALL_INDEX: u64 = 4096;

/// What goes to the client.
#[derive(Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // released one at a time, never stored in bulk
pub(crate) enum Release {
    /// A call's first appearance: its client index and its text so far (all of it, unless it
    /// streams live and more follows).
    Open { index: usize, call: ToolCall },
    /// More argument text of a live call already open.
    More { index: usize, arguments: String },
}

/// One upstream call being assembled.
struct Slot {
    upstream_index: Option<u64>,
    call: ToolCall,
    kind: Kind,
    /// The arguments' length when last watched for a runaway description.
    watched: usize,
}

#[allow(clippy::large_enum_variant)] // a handful of slots per choice
enum Kind {
    /// Passed on as it comes, once every call before it is out.
    Live {
        client_index: Option<usize>,
        sent: usize,
    },
    /// Resolved when its arguments are complete.
    Held {
        task: Option<Task>,
        result: Option<Resolved>,
    },
}

/// A running resolution; a newer generation replaces it if the arguments grow afterwards.
struct Task {
    handle: AbortHandle,
    generation: usize,
    arguments_len: usize,
}

/// The calls of one choice over one upstream turn and the repair turns after it.
pub(crate) struct Assembly {
    resolver: Resolver,
    slots: Vec<Slot>,
    /// Slots before `head` are out (or failed).
    head: usize,
    tasks: JoinSet<(usize, usize, Resolved)>,
    generation: usize,
    /// The next client index: calls of a repair turn follow those already out.
    next_index: usize,
    /// The translator was asked which actions the calls left out (once per choice).
    split_asked: bool,
    /// This turn's slot for that question: started once every call before it is out, so that
    /// it sees the calls as the client gets them (a fan-out included).
    split_slot: Option<usize>,
    /// The resolved calls released this turn.
    turn_calls: Vec<ToolCall>,
    /// The main model's calls to tools plaincall handles that went out in earlier turns, as
    /// it wrote them (name, parsed arguments): a repair turn that writes one again repeats a
    /// call the client already has.
    sent_before: Vec<(String, Value)>,
    /// This turn's main-model calls that went out, the same way.
    sent_now: Vec<(String, Value)>,
}

impl Assembly {
    pub(crate) fn new(resolver: Resolver) -> Assembly {
        Assembly {
            resolver,
            slots: Vec::new(),
            head: 0,
            tasks: JoinSet::new(),
            generation: 0,
            next_index: 0,
            split_asked: false,
            split_slot: None,
            turn_calls: Vec::new(),
            sent_before: Vec::new(),
            sent_now: Vec::new(),
        }
    }

    /// A new upstream turn (a repair turn): its calls follow those already released.
    pub(crate) fn next_turn(&mut self) {
        self.tasks.abort_all();
        self.tasks = JoinSet::new();
        self.slots.clear();
        self.head = 0;
        self.split_slot = None;
        self.turn_calls.clear();
        self.sent_before.append(&mut self.sent_now);
    }

    /// The tools this turn's calls name.
    pub(crate) fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.slots.iter().map(|s| s.call.function.name.as_str())
    }

    /// How many calls went to the client.
    pub(crate) fn released(&self) -> usize {
        self.next_index
    }

    /// Whether resolutions are still running.
    pub(crate) fn pending(&self) -> bool {
        !self.tasks.is_empty()
    }

    /// A call as the upstream gave it, whole or a stream's fragment; a live call's new
    /// argument text comes back at once.
    pub(crate) fn push(&mut self, piece: CallPiece) -> Result<Option<Release>, ProxyError> {
        match piece {
            CallPiece::Whole(call) => {
                self.push_call(call);
                Ok(None)
            }
            CallPiece::Delta(delta) => self.push_delta(&delta),
        }
    }

    /// A whole call (a message's `tool_calls` entry, or one parsed out of text).
    pub(crate) fn push_call(&mut self, call: ToolCall) {
        let kind = self.kind_for(&call.function.name);
        self.slots.push(Slot {
            upstream_index: None,
            call,
            kind,
            watched: 0,
        });
        let slot = self.slots.len() - 1;
        if matches!(self.slots[slot].kind, Kind::Held { .. }) {
            self.start(slot);
        }
    }

    /// One streamed `tool_calls` delta; a live call's new argument text comes back at once.
    pub(crate) fn push_delta(&mut self, delta: &Value) -> Result<Option<Release>, ProxyError> {
        check_index(delta)?;
        let slot_index = self.slot_for(delta);
        let slot = &mut self.slots[slot_index];
        absorb(slot, delta);
        match &mut slot.kind {
            Kind::Live {
                client_index: Some(index),
                sent,
            } => {
                let fresh = slot.call.function.arguments[*sent..].to_owned();
                *sent = slot.call.function.arguments.len();
                Ok((!fresh.is_empty()).then_some(Release::More {
                    index: *index,
                    arguments: fresh,
                }))
            }
            Kind::Live { .. } => Ok(None),
            Kind::Held { .. } => {
                // Complete arguments (a whole JSON value: no prefix of an object is one)
                // start the resolution; arguments that grow afterwards (not seen in
                // practice) restart it.
                let arguments = &slot.call.function.arguments;
                let complete = serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok();
                if complete && self.is_stale(slot_index) {
                    self.start(slot_index);
                }
                Ok(None)
            }
        }
    }

    /// A held call still streaming whose description ran away ([`Watch`]): its arguments
    /// become the description as cut, whole, so that it resolves like any other. Returns the
    /// tool and the cut. Looked at every [`runaway::CHECK_EVERY`] bytes a call grows.
    pub(crate) fn cut_runaway(&mut self, watch: &Watch) -> Option<(String, Cut)> {
        let tools = &self.resolver.rewrite.tools;
        for slot in &mut self.slots {
            let arguments = &slot.call.function.arguments;
            if !matches!(slot.kind, Kind::Held { task: None, .. })
                || arguments.len() < slot.watched + runaway::CHECK_EVERY
            {
                continue;
            }
            slot.watched = arguments.len();
            let name = &slot.call.function.name;
            let Some(tool) = tools.handled(name).filter(|t| t.rewritten) else {
                continue;
            };
            if let Some(cut) = watch.check(arguments, &tool.field) {
                let mut whole = serde_json::Map::new();
                whole.insert(tool.field.clone(), Value::String(cut.text.clone()));
                slot.call.function.arguments = Value::Object(whole).to_string();
                return Some((name.clone(), cut));
            }
        }
        None
    }

    /// A delta that went to the client as the upstream sent it, before plaincall had anything
    /// to change: later calls' indices follow on from it.
    pub(crate) fn passed_as_is(&mut self, delta: &Value) -> Result<(), ProxyError> {
        check_index(delta)?;
        let slot_index = self.slot_for(delta);
        let slot = &mut self.slots[slot_index];
        absorb(slot, delta);
        let index = slot.upstream_index.unwrap_or(slot_index as u64) as usize;
        slot.kind = Kind::Live {
            client_index: Some(index),
            sent: slot.call.function.arguments.len(),
        };
        self.next_index = self.next_index.max(index + 1);
        if self.head == slot_index {
            self.head += 1;
        }
        Ok(())
    }

    /// The upstream turn ended: every held call not yet resolving (or grown since) starts;
    /// on the first turn with calls, a last slot waits for the question about the actions
    /// they leave out (asked once they are all out; its calls come last).
    pub(crate) fn input_done(&mut self) {
        for slot in 0..self.slots.len() {
            if matches!(self.slots[slot].kind, Kind::Held { result: None, .. })
                && self.is_stale(slot)
                && Some(slot) != self.split_slot
            {
                self.start(slot);
            }
        }
        if !self.split_asked && split::applies(&self.resolver, !self.slots.is_empty()) {
            self.split_asked = true;
            self.slots.push(Slot {
                upstream_index: None,
                call: ToolCall::new(String::new(), String::new(), String::new()),
                kind: Kind::Held {
                    task: None,
                    result: None,
                },
                watched: 0,
            });
            self.split_slot = Some(self.slots.len() - 1);
        }
    }

    /// Waits for the next resolution to finish (cancel-safe: a select may drop it).
    pub(crate) async fn settle_next(&mut self) -> Result<(), ProxyError> {
        let Some(joined) = self.tasks.join_next().await else {
            return Ok(());
        };
        let (slot, generation, resolved) = match joined {
            Ok(done) => done,
            Err(error) if error.is_cancelled() => return Ok(()),
            Err(error) => return Err(ProxyError::Internal(format!("translation task: {error}"))),
        };
        if let Kind::Held { task, result } = &mut self.slots[slot].kind {
            if task.as_ref().is_some_and(|t| t.generation == generation) {
                *result = Some(resolved);
            }
        }
        Ok(())
    }

    /// Every call that is ready, in upstream order; stops at the first one still resolving.
    pub(crate) fn release(&mut self) -> Vec<Release> {
        let mut out = Vec::new();
        while self.head < self.slots.len() {
            if Some(self.head) == self.split_slot {
                self.start_split();
            }
            let slot = &mut self.slots[self.head];
            match &mut slot.kind {
                Kind::Live { client_index, sent } => {
                    if client_index.is_none() {
                        *client_index = Some(self.next_index);
                        *sent = slot.call.function.arguments.len();
                        out.push(Release::Open {
                            index: self.next_index,
                            call: slot.call.clone(),
                        });
                        self.next_index += 1;
                    }
                }
                Kind::Held { result, .. } => match result.take() {
                    None => break,
                    Some(failed @ Resolved::Failed { .. }) => *result = Some(failed),
                    Some(done) if self.repeats_earlier(self.head) => {
                        drop(done);
                        tracing::info!(
                            tool = %self.slots[self.head].call.function.name,
                            "a repair turn repeated a call that already went out: it is not sent twice"
                        );
                    }
                    Some(Resolved::Kept(call)) => {
                        self.note_sent(self.head);
                        out.push(self.open(call));
                    }
                    Some(Resolved::Translated(calls)) => {
                        self.note_sent(self.head);
                        // The main model asked directly may answer with a call this turn
                        // holds already (`get_weather` beside the described tool): once.
                        let others = self.others_written(self.head);
                        let fresh: Vec<ToolCall> = calls
                            .into_iter()
                            .filter(|call| !others.contains(&written_as(call)))
                            .collect();
                        out.extend(fresh.into_iter().map(|call| self.open(call)))
                    }
                },
            }
            self.head += 1;
        }
        out
    }

    /// The calls that could not be resolved this turn, for the conversation to repair.
    pub(crate) fn failures(&mut self) -> Vec<Failure> {
        self.slots
            .iter_mut()
            .filter_map(|slot| match &mut slot.kind {
                Kind::Held { result, .. } => match result.take() {
                    Some(Resolved::Failed {
                        call,
                        tool_message,
                        reason,
                    }) => Some(Failure {
                        call,
                        tool_message,
                        reason,
                    }),
                    _ => None,
                },
                Kind::Live { .. } => None,
            })
            .collect()
    }

    /// The main model's call in `slot` as compared across turns: its name and arguments.
    fn written(&self, slot: usize) -> (String, Value) {
        written_as(&self.slots[slot].call)
    }

    /// The calls of this turn's other slots so far, as written.
    fn others_written(&self, slot: usize) -> Vec<(String, Value)> {
        (0..self.slots.len())
            .filter(|&i| i != slot)
            .map(|i| self.written(i))
            .collect()
    }

    /// Whether the call in `slot` is one an earlier turn already sent, as the model wrote it.
    fn repeats_earlier(&self, slot: usize) -> bool {
        !self.sent_before.is_empty() && self.sent_before.contains(&self.written(slot))
    }

    fn note_sent(&mut self, slot: usize) {
        let written = self.written(slot);
        self.sent_now.push(written);
    }

    fn open(&mut self, call: ToolCall) -> Release {
        let index = self.next_index;
        self.next_index += 1;
        // Kept only for the question about left-out actions, when one waits.
        if self.split_slot.is_some() {
            self.turn_calls.push(call.clone());
        }
        Release::Open { index, call }
    }

    /// Asks which actions this turn's calls leave out, once they are all out: the live ones as
    /// they came (the turn's input is over, so they are whole), the others as resolved.
    fn start_split(&mut self) {
        let Some(slot) = self.split_slot else { return };
        if !matches!(
            self.slots[slot].kind,
            Kind::Held {
                task: None,
                result: None
            }
        ) {
            return;
        }
        let mut made: Vec<ToolCall> = self.slots[..slot]
            .iter()
            .filter(|s| matches!(s.kind, Kind::Live { .. }))
            .map(|s| s.call.clone())
            .collect();
        made.extend(self.turn_calls.iter().cloned());
        let resolver = self.resolver.clone();
        self.spawn(slot, 0, split::missing_calls(resolver, made));
    }

    fn kind_for(&self, name: &str) -> Kind {
        match self.resolver.holds(name) {
            true => Kind::Held {
                task: None,
                result: None,
            },
            false => Kind::Live {
                client_index: None,
                sent: 0,
            },
        }
    }

    /// Not resolving yet, or resolving arguments that have grown since.
    fn is_stale(&self, slot: usize) -> bool {
        let slot = &self.slots[slot];
        match &slot.kind {
            Kind::Held { task, .. } => task
                .as_ref()
                .is_none_or(|t| t.arguments_len != slot.call.function.arguments.len()),
            Kind::Live { .. } => false,
        }
    }

    fn start(&mut self, slot_index: usize) {
        let call = self.slots[slot_index].call.clone();
        let arguments_len = call.function.arguments.len();
        let resolver = self.resolver.clone();
        self.spawn(slot_index, arguments_len, async move {
            resolver.resolve(call).await
        });
    }

    /// Runs `resolution` for a held slot, replacing any older one.
    fn spawn(
        &mut self,
        slot_index: usize,
        arguments_len: usize,
        resolution: impl std::future::Future<Output = Resolved> + Send + 'static,
    ) {
        self.generation += 1;
        let generation = self.generation;
        let handle = self
            .tasks
            .spawn(async move { (slot_index, generation, resolution.await) }.in_current_span());
        if let Kind::Held { task, .. } = &mut self.slots[slot_index].kind {
            if let Some(old) = task.replace(Task {
                handle,
                generation,
                arguments_len,
            }) {
                old.handle.abort();
            }
        }
    }

    /// The slot a delta belongs to: by `index`, else by `id`, else a new one.
    fn slot_for(&mut self, delta: &Value) -> usize {
        let index = delta.get("index").and_then(Value::as_u64);
        let id = delta
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let found = self.slots.iter().position(|s| match (index, id) {
            (Some(i), _) => s.upstream_index == Some(i),
            (None, Some(id)) => s.call.id == id,
            (None, None) => false,
        });
        if let Some(found) = found {
            return found;
        }
        if index.is_none() && id.is_none() && !self.slots.is_empty() {
            // A continuation without index or id belongs to the last call.
            return self.slots.len() - 1;
        }
        let name = delta
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = self.kind_for(name);
        self.slots.push(Slot {
            upstream_index: index,
            call: ToolCall::new(String::new(), String::new(), String::new()),
            kind,
            watched: 0,
        });
        self.slots.len() - 1
    }
}

/// Refuses a delta whose `index` is past [`MAX_CALL_INDEX`].
fn check_index(delta: &Value) -> Result<(), ProxyError> {
    match delta.get("index").and_then(Value::as_u64) {
        Some(index) if index > MAX_CALL_INDEX => Err(ProxyError::UpstreamProtocol(format!(
            "a tool call's index {index} is out of range (at most {MAX_CALL_INDEX})"
        ))),
        _ => Ok(()),
    }
}

/// Folds one delta into its slot: `id` and `name` from the first delta that carries them,
/// `arguments` appended as OpenAI clients do; `arguments: null` adds nothing.
fn absorb(slot: &mut Slot, delta: &Value) {
    if let Some(index) = delta.get("index").and_then(Value::as_u64) {
        slot.upstream_index.get_or_insert(index);
    }
    if let Some(id) = delta.get("id").and_then(Value::as_str) {
        if slot.call.id.is_empty() {
            slot.call.id = id.to_owned();
        }
    }
    if let Some(name) = delta.pointer("/function/name").and_then(Value::as_str) {
        if slot.call.function.name.is_empty() {
            slot.call.function.name = name.to_owned();
        }
    }
    if let Some(fragment) = delta.pointer("/function/arguments").and_then(Value::as_str) {
        slot.call.function.arguments.push_str(fragment);
    }
}

/// A call as compared with another: its name and its arguments, parsed where they parse.
fn written_as(call: &ToolCall) -> (String, Value) {
    let arguments = serde_json::from_str(&call.function.arguments)
        .unwrap_or_else(|_| Value::String(call.function.arguments.clone()));
    (call.function.name.clone(), arguments)
}
