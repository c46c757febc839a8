//! The next turn: the client sends back the structured calls it received; the main model must
//! see the plain-English calls it made. Everything needed is derivable from the history
//! itself, so any plaincall process can serve the next turn:
//!
//! - a call to a rewritten tool with structured arguments goes back to the one-field form
//!   (`{"description": ...}`): the original description when this process remembers it (with
//!   Redis, when any replica does), else one rendered from the arguments;
//! - calls fanned out from one description carry ids `<original>__<position>of<total>` and are
//!   merged back into one call with the original id;
//! - their tool results are merged under the original id, each prefixed with
//!   `[Translated to: ...]`, plus a notice when some elements of the answer were dropped.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::Value;

use super::{canonical, ToolSet};
use crate::openai::{self, nl_description, Message, RawObject, ToolCall};
use crate::shared::{hashed, Shared, Space};

const FANOUT_SEPARATOR: &str = "__";

/// The client-facing id of element `position` of `total` calls made from call `base`.
pub(crate) fn fanout_id(base: &str, position: usize, total: usize) -> String {
    format!("{base}{FANOUT_SEPARATOR}{position}of{total}")
}

/// `(base, position, total)` for a fanned-out id.
fn split_fanout_id(id: &str) -> Option<(&str, usize, usize)> {
    let (base, suffix) = id.rsplit_once(FANOUT_SEPARATOR)?;
    let (position, total) = suffix.split_once("of")?;
    let position: usize = position.parse().ok()?;
    let total: usize = total.parse().ok()?;
    (position >= 1 && position <= total && !base.is_empty()).then_some((base, position, total))
}

/// What a translation leaves behind for the next turn, in this process and, with Redis, for
/// every replica.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Remembered {
    pub description: String,
    pub dropped: Vec<String>,
}

pub(crate) struct Memory {
    entries: moka::sync::Cache<(String, String), Arc<Remembered>>,
    shared: Shared,
    ttl: Duration,
}

/// The most remembered descriptions one request looks up in Redis: its latest groups of calls.
const SHARED_LOOKUPS: usize = 64;

impl Memory {
    pub(crate) fn new(capacity: u64, ttl: Duration, shared: Shared) -> Memory {
        Memory {
            entries: moka::sync::Cache::builder()
                .max_capacity(capacity)
                .time_to_live(ttl)
                .build(),
            shared,
            ttl,
        }
    }

    /// `calls_key`: see [`super::translate::calls_key`].
    pub(crate) fn remember(&self, tool: &str, calls_key: String, remembered: Remembered) {
        let key = (tool.to_owned(), calls_key);
        // A cache hit remembers what is already remembered: Redis is not written again.
        if self
            .entries
            .get(&key)
            .is_some_and(|known| known.description == remembered.description)
        {
            return;
        }
        if let Ok(json) = serde_json::to_vec(&remembered) {
            self.shared.put_later(
                Space::Description,
                hashed(&[&key.0, &key.1]),
                json.into(),
                self.ttl,
            );
        }
        self.entries.insert(key, Arc::new(remembered));
    }

    /// With Redis: brings in what other replicas remember of the calls in `messages` (the
    /// history's groups of calls this process does not know), before the history is
    /// rewritten. Redis away: the descriptions are rendered from the arguments, as always.
    pub(crate) async fn prefetch(&self, messages: &[&RawValue]) {
        if !self.shared.is_enabled() {
            return;
        }
        let mut wanted: Vec<(String, String)> = Vec::new();
        for raw in messages.iter().rev() {
            let Ok(message) = serde_json::from_str::<RawObject>(raw.get()) else {
                continue;
            };
            let Ok(Some(calls)) = openai::get::<Vec<ToolCall>>(&message, "tool_calls") else {
                continue;
            };
            for (name, members) in call_groups(calls) {
                let key = (name, group_key(&members));
                if !self.entries.contains_key(&key) && !wanted.contains(&key) {
                    wanted.push(key);
                }
            }
            if wanted.len() >= SHARED_LOOKUPS {
                wanted.truncate(SHARED_LOOKUPS);
                break;
            }
        }
        let keys: Vec<String> = wanted.iter().map(|(t, k)| hashed(&[t, k])).collect();
        let Ok(found) = self.shared.get_many(Space::Description, &keys).await else {
            return;
        };
        for (key, json) in wanted.into_iter().zip(found) {
            if let Some(remembered) = json.and_then(|j| serde_json::from_slice(&j).ok()) {
                self.entries.insert(key, Arc::new(remembered));
            }
        }
    }

    fn recall(&self, tool: &str, calls_key: &str) -> Option<Arc<Remembered>> {
        self.entries.get(&(tool.to_owned(), calls_key.to_owned()))
    }
}

/// `message="Check email", schedule_type="daily", at="09:00"`: the arguments as the client
/// sent them, in their order.
pub(crate) fn summary(arguments: &str) -> String {
    match serde_json::from_str::<RawObject>(arguments) {
        Ok(object) => object
            .iter()
            .map(|(k, v)| format!("{k}={}", compact(v)))
            .collect::<Vec<_>>()
            .join(", "),
        Err(_) => arguments.to_owned(),
    }
}

fn compact(raw: &RawValue) -> String {
    let text = raw.get();
    if text.contains('\n') {
        serde_json::from_str::<Value>(text).map_or_else(|_| text.to_owned(), |v| v.to_string())
    } else {
        text.to_owned()
    }
}

/// A group of client calls that was one main-model call.
struct Group {
    base: String,
    total: usize,
    /// Summaries by client id, in call order.
    parts: Vec<(String, String)>,
    dropped: Vec<String>,
}

/// The history with the calls to rewritten tools as the main model made them (see the module
/// documentation).
pub(crate) fn rewrite<'a>(
    messages: Vec<&'a RawValue>,
    tools: &ToolSet,
    memory: &Memory,
) -> Result<Vec<Cow<'a, RawValue>>, serde_json::Error> {
    let mut rewriter = Rewriter {
        groups: Vec::new(),
        group_of: HashMap::new(),
        out: Vec::with_capacity(messages.len()),
        merged: HashMap::new(),
    };
    // The fields read here are read or refused: a malformed one is the client's error, never
    // a message passed on as if it held no call.
    for raw in messages {
        let message = Message::read(raw)?;
        match message.role.as_deref() {
            Some("assistant") => rewriter.assistant(raw, message, tools, memory)?,
            Some("tool") => rewriter.tool_result(raw, message)?,
            _ => rewriter.out.push(Cow::Borrowed(raw)),
        }
    }
    rewriter.finish()
}

/// The history being rewritten, message by message.
struct Rewriter<'a> {
    groups: Vec<Group>,
    /// Client call id → index in `groups`.
    group_of: HashMap<String, usize>,
    /// The messages as they go on: the client's own, borrowed, where nothing changed.
    out: Vec<Cow<'a, RawValue>>,
    /// Tool results being merged: group index → (position in `out`, parts).
    merged: HashMap<usize, (usize, Vec<String>)>,
}

impl<'a> Rewriter<'a> {
    /// An assistant message: its structured calls to rewritten tools go back to descriptions.
    fn assistant(
        &mut self,
        raw: &'a RawValue,
        message: Message,
        tools: &ToolSet,
        memory: &Memory,
    ) -> Result<(), serde_json::Error> {
        let Message {
            mut object,
            tool_calls,
            ..
        } = message;
        let Some(calls) = tool_calls else {
            self.out.push(Cow::Borrowed(raw));
            return Ok(());
        };
        let (rewritten, changed) =
            rewrite_calls(calls, tools, memory, &mut self.groups, &mut self.group_of);
        if changed {
            openai::set(&mut object, "tool_calls", &rewritten)?;
            self.out.push(Cow::Owned(openai::to_raw(&object)?));
        } else {
            self.out.push(Cow::Borrowed(raw));
        }
        Ok(())
    }

    /// A tool result for a call of a group: the first one becomes the group's result under
    /// the original id, later ones join its parts.
    fn tool_result(
        &mut self,
        raw: &'a RawValue,
        message: Message,
    ) -> Result<(), serde_json::Error> {
        let content = openai::content_text(message.content());
        let Message {
            mut object,
            tool_call_id: id,
            ..
        } = message;
        let Some(group_index) = id.as_ref().and_then(|id| self.group_of.get(id)).copied() else {
            self.out.push(Cow::Borrowed(raw));
            return Ok(());
        };
        let group = &self.groups[group_index];
        let id = id.unwrap_or_default();
        let summary = group
            .parts
            .iter()
            .find(|(client_id, _)| *client_id == id)
            .map(|(_, s)| s.clone())
            .unwrap_or_default();
        let part = format!("[Translated to: {summary}]\n{content}");
        match self.merged.get_mut(&group_index) {
            Some((_, parts)) => parts.push(part),
            None => {
                openai::set(&mut object, "tool_call_id", &group.base)?;
                self.out.push(Cow::Owned(openai::to_raw(&object)?));
                self.merged
                    .insert(group_index, (self.out.len() - 1, vec![part]));
            }
        }
        Ok(())
    }

    /// The merged tool results written into their messages.
    fn finish(mut self) -> Result<Vec<Cow<'a, RawValue>>, serde_json::Error> {
        for (group_index, (position, parts)) in self.merged {
            let content = merged_content(&self.groups[group_index], &parts);
            let mut message: RawObject = serde_json::from_str(self.out[position].get())?;
            openai::set(&mut message, "content", &content)?;
            self.out[position] = Cow::Owned(openai::to_raw(&message)?);
        }
        Ok(self.out)
    }
}

/// A group's tool results as one, with a note on the calls that were not made.
fn merged_content(group: &Group, parts: &[String]) -> String {
    let mut content = parts.join("\n---\n");
    let missing = group.total.saturating_sub(group.parts.len());
    if missing > 0 {
        content.push_str(&format!(
            "\n[Note: {missing} of the {} calls translated from your description {} invalid and {} not made",
            group.total,
            if missing == 1 { "was" } else { "were" },
            if missing == 1 { "was" } else { "were" },
        ));
        if !group.dropped.is_empty() {
            content.push_str(": ");
            content.push_str(&group.dropped.join("; "));
        }
        content.push(']');
    }
    content
}

/// Rewrites the structured calls to rewritten tools; returns whether anything changed.
fn rewrite_calls(
    calls: Vec<ToolCall>,
    tools: &ToolSet,
    memory: &Memory,
    groups: &mut Vec<Group>,
    group_of: &mut HashMap<String, usize>,
) -> (Vec<ToolCall>, bool) {
    let mut out: Vec<ToolCall> = Vec::with_capacity(calls.len());
    let mut changed = false;
    // Base id → index in `out` of the merged call, for fanned-out calls of this message.
    let mut merged_at: HashMap<(String, String), (usize, usize)> = HashMap::new();
    let mut pending: Vec<(usize, Vec<ToolCall>)> = Vec::new();

    for call in calls {
        let rewritten = tools
            .get(&call.function.name)
            .is_some_and(|tool| nl_description(&call.function.arguments, &tool.field).is_none());
        if !rewritten {
            out.push(call);
            continue;
        }
        changed = true;
        let (base, total) = match split_fanout_id(&call.id) {
            Some((base, _, total)) => (base.to_owned(), total),
            None => (call.id.clone(), 1),
        };
        let key = (base.clone(), call.function.name.clone());
        match merged_at.get(&key) {
            Some(&(_, pending_index)) => pending[pending_index].1.push(call),
            None => {
                let mut placeholder = call.clone();
                placeholder.id = base.clone();
                out.push(placeholder);
                pending.push((total, vec![call]));
                merged_at.insert(key, (out.len() - 1, pending.len() - 1));
            }
        }
    }

    for ((base, name), (out_index, pending_index)) in merged_at {
        let (total, members) = &pending[pending_index];
        let summaries: Vec<(String, String)> = members
            .iter()
            .map(|c| (c.id.clone(), summary(&c.function.arguments)))
            .collect();
        let (description, dropped) = recalled(memory, &name, members, &summaries);
        let field = tools
            .get(&name)
            .map_or(super::NL_FIELD, |tool| tool.field.as_str());
        let mut nl = serde_json::Map::new();
        nl.insert(field.to_owned(), Value::String(description));
        let nl_arguments = Value::Object(nl).to_string();
        out[out_index].function.arguments = nl_arguments;
        out[out_index].id = base.clone();
        let group_index = groups.len();
        for (client_id, _) in &summaries {
            group_of.insert(client_id.clone(), group_index);
        }
        groups.push(Group {
            base,
            total: *total,
            parts: summaries,
            dropped,
        });
    }
    (out, changed)
}

/// The description the calls made from one call go back to, and the elements dropped from
/// it: as remembered for these arguments, else the description rendered from the summaries.
fn recalled(
    memory: &Memory,
    name: &str,
    members: &[ToolCall],
    summaries: &[(String, String)],
) -> (String, Vec<String>) {
    let key = group_key(members);
    if let Some(remembered) = memory.recall(name, &key) {
        return (remembered.description.clone(), remembered.dropped.clone());
    }
    let description = match summaries {
        [(_, single)] => single.clone(),
        _ => summaries
            .iter()
            .enumerate()
            .map(|(i, (_, s))| format!("({}) {s}", i + 1))
            .collect::<Vec<_>>()
            .join("; "),
    };
    (description, Vec::new())
}

/// What the calls made from one call are remembered by: their arguments, canonical (see
/// [`super::translate::calls_key`], which makes the same key from a translation).
fn group_key(members: &[ToolCall]) -> String {
    let arguments: Vec<Value> = members
        .iter()
        .map(|c| serde_json::from_str(&c.function.arguments).unwrap_or(Value::Null))
        .collect();
    if let [single] = arguments.as_slice() {
        canonical(single)
    } else {
        canonical(&Value::Array(arguments))
    }
}

/// One message's calls grouped as [`rewrite`] merges them: by tool and original id (calls
/// fanned out from one carry `<id>__<n>of<total>`), in order.
fn call_groups(calls: Vec<ToolCall>) -> Vec<(String, Vec<ToolCall>)> {
    let mut groups: Vec<((String, String), Vec<ToolCall>)> = Vec::new();
    for call in calls {
        let base = split_fanout_id(&call.id).map_or(call.id.as_str(), |(base, _, _)| base);
        let key = (base.to_owned(), call.function.name.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(call),
            None => groups.push((key, vec![call])),
        }
    }
    groups
        .into_iter()
        .map(|((_, name), members)| (name, members))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fanout_ids_round_trip() {
        assert_eq!(fanout_id("call_1", 2, 3), "call_1__2of3");
        assert_eq!(split_fanout_id("call_1__2of3"), Some(("call_1", 2, 3)));
        assert_eq!(split_fanout_id("call__x__1of2"), Some(("call__x", 1, 2)));
        for plain in [
            "call_1", "call__", "__1of2", "a__3of2", "a__0of2", "a__1ofx",
        ] {
            assert_eq!(split_fanout_id(plain), None, "{plain}");
        }
    }

    #[test]
    fn summary_keeps_the_clients_order_and_text() {
        assert_eq!(
            summary(r#"{"message":"Check email","schedule_type":"daily","at":"09:00"}"#),
            r#"message="Check email", schedule_type="daily", at="09:00""#
        );
        assert_eq!(
            summary(r#"{"n": 1, "o": {"a": [1, 2]}}"#),
            r#"n=1, o={"a": [1, 2]}"#
        );
    }
}
