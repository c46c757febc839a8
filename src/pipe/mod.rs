//! The translation pipe: complex tools go to the main model as one plain-English field, and
//! the calls it makes come back structured and validated.
//!
//! - [`select`]: which tools are rewritten; [`schema_text`]: the schema in words;
//! - [`Pipe::plan`]: the request the main model sees (tools and history rewritten);
//! - [`translate`]: one description to arguments (translator call, validation, retries, cache);
//! - [`drive`]: the driver of every turn (upstream turns, translations, repair turns), streamed
//!   or whole; [`event`]: what it emits; [`history`]: the next turn.

pub(crate) mod assemble;
pub(crate) mod call_form;
pub(crate) mod chunks;
pub(crate) mod conversation;
pub(crate) mod dates;
pub(crate) mod described_format;
pub(crate) mod drive;
pub(crate) mod engine;
pub(crate) mod event;
pub(crate) mod extract;
pub(crate) mod fold;
pub mod gbnf;
pub mod grammar;
pub(crate) mod grounding;
pub(crate) mod history;
pub(crate) mod prompt_mode;
pub(crate) mod repair;
pub(crate) mod resolve;
pub(crate) mod runaway;
pub mod schema_text;
pub(crate) mod select;
pub(crate) mod split;
pub(crate) mod text_calls;
pub(crate) mod translate;
pub(crate) mod translator;
pub(crate) mod validate;
pub(crate) mod warm;

pub(crate) use crate::json::canonical;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::config::{CheckMode, Config, OutputMode, TranslationConfig};
use crate::error::ProxyError;
use crate::openai::{self, ChatRequest, FunctionTool, RawObject};
use crate::prompts::Prompts;
use crate::upstream::UpstreamClient;
use prompt_mode::PromptTools;

/// A tool the main model sees in plain-English form, with what translation needs of it.
#[derive(Debug)]
pub struct NlTool {
    pub name: String,
    /// Why it is rewritten, for logs and `plaincall explain`.
    pub reason: String,
    /// The description the main model is shown (to recognise it copied back).
    pub shown: String,
    pub description: String,
    pub parameters: Value,
    pub schema_hash: u64,
    pub validator: Arc<jsonschema::Validator>,
    /// Shown in the one-field form; `false` for a tool whose calls are only checked.
    pub rewritten: bool,
    /// The one field's name: `description`, or a name the tool's own properties do not use.
    pub field: String,
    /// How a call with real arguments that fail the schema is fixed.
    pub check: CheckMode,
}

/// The tools of one request that plaincall handles, by name: the rewritten ones, and those
/// whose calls are checked against their schema.
#[derive(Debug, Default)]
pub struct ToolSet {
    by_name: HashMap<String, Arc<NlTool>>,
    checked: HashMap<String, Arc<NlTool>>,
    /// The name of every function tool the request offers, handled or not.
    functions: Vec<String>,
}

impl ToolSet {
    /// Whether the request offers a function tool of this name.
    pub fn offers(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f == name)
    }
    /// Whether the request offers a function tool of another name than this one.
    pub fn offers_another(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f != name)
    }
    /// A rewritten tool.
    pub fn get(&self, name: &str) -> Option<&Arc<NlTool>> {
        self.by_name.get(name)
    }
    /// A tool whose calls plaincall reads before the client does: rewritten, or checked.
    pub fn handled(&self, name: &str) -> Option<&Arc<NlTool>> {
        self.by_name.get(name).or_else(|| self.checked.get(name))
    }
    /// The names of every tool plaincall handles, sorted (prompts built from them are stable).
    pub fn handled_names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self
            .by_name
            .keys()
            .chain(self.checked.keys())
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.into_iter()
    }
    /// No rewritten tool (tools only checked do not count).
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
    /// The rewritten tools, by name (an order that does not change from one request to the
    /// next).
    pub fn rewritten(&self) -> impl Iterator<Item = &Arc<NlTool>> {
        let mut tools: Vec<&Arc<NlTool>> = self.by_name.values().collect();
        tools.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        tools.into_iter()
    }
}

/// What the chat route does with a request.
pub enum Plan {
    /// Nothing to change: the request's bytes go upstream as the route passes them (a
    /// `[models]` alias or `drop_params` applied) and the response is relayed as it comes.
    Forward,
    Rewrite(Box<Rewrite>),
}

pub struct Rewrite {
    /// The request the main model sees.
    pub body: RawObject,
    pub tools: Arc<ToolSet>,
    pub stream: bool,
    /// Choices asked for (`n`, 1 when absent).
    pub choices: u64,
    /// `stream_options.include_usage`: the client asked for the usage chunk.
    pub include_usage: bool,
    /// The request's model: the translator's model when no backend is configured.
    pub model: String,
    /// Set in prompt mode: the tools whose calls are parsed out of the reply text.
    pub prompt: Option<Arc<PromptTools>>,
    /// Set in native mode with `tool_calling.text_calls` on and a tool plaincall handles: the
    /// tools whose calls a turn may write as text (see [`text_calls`]).
    pub text_calls: Option<Arc<PromptTools>>,
    /// The upstream may reject native tools for this model (`auto` mode): report it rather
    /// than passing the error on.
    pub watch_rejection: bool,
    /// Descriptions that failed earlier in this request (repair turns), with what the main
    /// model was told.
    pub tried: Tried,
    /// The latest user message, bounded: the translator sees it beside the description.
    pub user_message: Option<String>,
    /// The user's messages before it in the same exchange, oldest first, bounded, one
    /// `User's earlier message:` line each: the translator sees them too (see [`UserWords`]).
    pub earlier_user: Option<String>,
    /// What the conversation said (its user, system and tool messages, bounded): what a
    /// translated value must be traced to (see [`grounding`]), read once for all its calls.
    pub evidence: Said,
    /// The client's body, when the main model sees it unchanged (only calls are checked): the
    /// first turn sends these bytes as they came.
    pub original: Option<bytes::Bytes>,
    /// The client's query string, sent on with every turn.
    pub query: Option<String>,
    /// When the request's translation budget (`translation.budget`) runs out.
    pub deadline: tokio::time::Instant,
}

impl Rewrite {
    /// Whether the main model sees the client's body unchanged (only calls are checked).
    pub fn body_unchanged(&self) -> bool {
        self.tools.is_empty() && self.prompt.is_none()
    }

    /// The bytes of a turn's request: the client's own on the first turn when nothing in the
    /// body changed, else `body` serialised.
    pub fn turn_bytes(
        original: &mut Option<bytes::Bytes>,
        body: &RawObject,
    ) -> Result<bytes::Bytes, serde_json::Error> {
        match original.take() {
            Some(bytes) => Ok(bytes),
            None => openai::to_bytes(body),
        }
    }
}

/// What a request's conversation said: its text, and the evidence grounding reads in it (see
/// [`grounding::Evidence`]), read by the first call grounded in it and shared by the request's
/// other calls. One per request, of a bounded text ([`EVIDENCE_LIMIT`]); never shared between
/// requests.
#[derive(Debug, Default)]
pub struct Said {
    text: Arc<str>,
    /// Where the text holds a tool's result ([`grounding::Evidence::with_tool_results`]).
    tool_results: Vec<std::ops::Range<usize>>,
    /// What the assistant's earlier turns wrote (their text and their calls' arguments): no
    /// evidence for a value, but a call's values the user accepted may stand only there
    /// ("Shall I remind you daily at 9?" "Yes."), so a call is not judged to be for another
    /// request by its values alone when they do (see `translate::nothing_said`).
    proposed: Arc<str>,
    /// The conversation holds parts no words are read from (an image, audio, a file).
    opaque: bool,
    /// The assistant's questions the user's next message answered with a no
    /// ([`grounding::Evidence::declining`]), bounded.
    declined: Arc<str>,
    /// Where the text holds a system or developer message: instructions, not what the
    /// conversation is about.
    instructions: Vec<std::ops::Range<usize>>,
    /// The user's messages since the assistant last called a tool, newest first, bounded:
    /// where a translator's question may already be answered. `None` where no conversation
    /// was read.
    exchange: Option<Arc<str>>,
    /// The tools the request offers that plaincall handles, each name with its description:
    /// a call or a question judged for another request needs another of them named (see
    /// `translate::nothing_said`).
    offered: Vec<(String, String)>,
    /// Where the text holds the user's messages, newest first (a correction of the earlier
    /// ones may open the newest, [`grounding::Evidence::correcting`]).
    users: Vec<std::ops::Range<usize>>,
    /// The evidence read, with the day relative dates were read against.
    read: std::sync::Mutex<Option<(jiff::civil::Date, Arc<grounding::Evidence>)>>,
}

impl Said {
    pub fn new(text: impl Into<Arc<str>>) -> Said {
        Said::with_tool_results(text, Vec::new())
    }

    /// The conversation's text, where the byte ranges `tool_results` hold tools' results.
    pub fn with_tool_results(
        text: impl Into<Arc<str>>,
        tool_results: Vec<std::ops::Range<usize>>,
    ) -> Said {
        Said {
            text: text.into(),
            tool_results,
            proposed: Arc::from(""),
            opaque: false,
            declined: Arc::from(""),
            instructions: Vec::new(),
            exchange: None,
            offered: Vec::new(),
            users: Vec::new(),
            read: std::sync::Mutex::default(),
        }
    }

    /// The same conversation, for a request that offers `tools` (each name with its
    /// description).
    fn offering(mut self, tools: impl Iterator<Item = (String, String)>) -> Said {
        self.offered = tools.collect();
        self
    }

    /// The tools the request offers that plaincall handles, each name with its description.
    pub fn offered(&self) -> &[(String, String)] {
        &self.offered
    }

    /// The user's messages since the assistant last called a tool (or a tool answered),
    /// newest first: empty when none came since; `None` when no conversation was read
    /// (grounding is off for every tool of the request).
    pub fn exchange(&self) -> Option<&str> {
        self.exchange.as_deref()
    }

    /// Whether the conversation holds parts no words are read from (an image, audio, a
    /// file): values may come from them.
    pub fn opaque(&self) -> bool {
        self.opaque
    }

    /// The evidence of the conversation without its system and developer messages: what it
    /// is about, not how the assistant is told to work (read on each call: it is asked for
    /// only when no value of a call was said).
    pub fn without_instructions(&self, today: jiff::civil::Date) -> grounding::Evidence {
        let mut text = String::with_capacity(self.text.len());
        let mut at = 0;
        for range in &self.instructions {
            text.push_str(self.text.get(at..range.start).unwrap_or_default());
            at = range.end;
        }
        text.push_str(self.text.get(at..).unwrap_or_default());
        grounding::Evidence::new(&text, today)
    }

    /// The evidence of what the assistant's earlier turns wrote, when they wrote anything
    /// (read on each call: it is asked for only when no value of a call was said).
    pub fn proposed(&self, today: jiff::civil::Date) -> Option<grounding::Evidence> {
        (!self.proposed.trim().is_empty()).then(|| grounding::Evidence::new(&self.proposed, today))
    }

    /// The conversation's text, shared, not copied (what the runaway watch compares
    /// descriptions with).
    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    /// The evidence of the text with relative dates read against `today`: read on the first
    /// call, then shared (read again only for another day, a request that ran past midnight).
    pub fn evidence(&self, today: jiff::civil::Date) -> Arc<grounding::Evidence> {
        // Held while reading: a second call of the request waits for the evidence rather than
        // reading it too.
        let mut read = self
            .read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match read.as_ref() {
            Some((day, evidence)) if *day == today => Arc::clone(evidence),
            _ => {
                let evidence =
                    grounding::Evidence::with_tool_results(&self.text, &self.tool_results, today)
                        .declining(&self.declined);
                let evidence = Arc::new(evidence.correcting(&self.users));
                *read = Some((today, Arc::clone(&evidence)));
                evidence
            }
        }
    }
}

/// A request's messages, the bulk of it, taken out of its body to be read as slices of their
/// one copy (see [`split_messages`]); their place in the body is kept for [`put_messages`].
fn take_messages(body: &mut RawObject) -> Option<Box<serde_json::value::RawValue>> {
    body.get_mut("messages")
        .map(|slot| std::mem::replace(slot, openai::null_raw()))
}

/// The messages of a request, each a slice of `raw`; `None` when there are none.
fn split_messages(
    raw: Option<&serde_json::value::RawValue>,
) -> Result<Option<Vec<&serde_json::value::RawValue>>, serde_json::Error> {
    match raw {
        Some(raw) if raw.get() != "null" => serde_json::from_str(raw.get()).map(Some),
        _ => Ok(None),
    }
}

/// The messages back in the place [`take_messages`] took them from.
fn put_messages(body: &mut RawObject, messages: Option<Box<serde_json::value::RawValue>>) {
    if let (Some(slot), Some(messages)) = (body.get_mut("messages"), messages) {
        *slot = messages;
    }
}

/// The user's words a translator is given: the text of the last `user` message, and the
/// user's messages before it in the same exchange (since the assistant last called a tool or
/// a tool answered), each at most [`call_form::USER_MESSAGE_LIMIT`] characters in all.
/// A main model's description often leaves out a fact an earlier message gave ("every Monday
/// at 08:00" ... "Water the plants."): the translator reads it there.
#[derive(Debug, Default)]
struct UserWords {
    latest: Option<String>,
    /// Oldest first, one `User's earlier message:` line each.
    earlier: Option<String>,
}

fn user_words(messages: &[&serde_json::value::RawValue]) -> UserWords {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        role: Option<String>,
        #[serde(borrow)]
        content: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow)]
        tool_calls: Option<&'a serde_json::value::RawValue>,
        /// The legacy form of a call (`functions` clients).
        #[serde(borrow)]
        function_call: Option<&'a serde_json::value::RawValue>,
    }
    let bounded =
        |text: &str, limit: usize| -> String { text.trim().chars().take(limit).collect() };
    let mut words = UserWords::default();
    let mut earlier: Vec<String> = Vec::new();
    let mut room = call_form::USER_MESSAGE_LIMIT;
    for raw in messages.iter().rev() {
        let Ok(message) = serde_json::from_str::<Message>(raw.get()) else {
            continue;
        };
        let called = [message.tool_calls, message.function_call]
            .into_iter()
            .flatten()
            .any(|calls| !matches!(calls.get().trim(), "null" | "[]"));
        match message.role.as_deref() {
            Some("user") => {
                let text = without_client_boilerplate(&openai::content_text(message.content));
                match &words.latest {
                    None => {
                        let text = bounded(&text, call_form::USER_MESSAGE_LIMIT);
                        words.latest = (!text.is_empty()).then_some(text);
                    }
                    Some(_) if room > 0 => {
                        let text = bounded(&text, room);
                        room -= text.chars().count();
                        if !text.is_empty() {
                            earlier.push(text);
                        }
                    }
                    Some(_) => break,
                }
            }
            // A call made, or a tool's answer, before the latest user message ends its
            // exchange; one after it (an agent's loop) does not.
            Some("tool" | "function") if words.latest.is_some() => break,
            Some("assistant") if called && words.latest.is_some() => break,
            _ => {}
        }
    }
    if !earlier.is_empty() {
        earlier.reverse();
        let lines: Vec<String> = earlier
            .iter()
            .map(|text| format!("User's earlier message: {text}"))
            .collect();
        words.earlier = Some(lines.join("\n"));
    }
    words
}

/// The most of a conversation's words grounding reads: its latest messages first.
const EVIDENCE_LIMIT: usize = 32 * 1024;

/// The text of the conversation's user, tool and system messages, newest first, at most
/// [`EVIDENCE_LIMIT`] bytes: what the values of a translated call must come from. The
/// assistant's own turns are not: what the main model wrote is its claim, not the user's;
/// but for a question the user's next message answers with a yes ("Shall I book the 7pm
/// table?" "Yes please"): what it asked, the user said.
/// With it, where the tools' results stand in it, and what the assistant's turns wrote
/// (`Said::proposed`, as bounded).
fn conversation_evidence(messages: &[&serde_json::value::RawValue]) -> Said {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        role: Option<String>,
        #[serde(borrow)]
        content: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow)]
        tool_calls: Option<&'a serde_json::value::RawValue>,
        /// The legacy form of a call (`functions` clients).
        #[serde(borrow)]
        function_call: Option<&'a serde_json::value::RawValue>,
    }
    let mut read = Reading {
        exchange_open: true,
        ..Reading::default()
    };
    for raw in messages.iter().rev() {
        let Ok(message) = serde_json::from_str::<Message>(raw.get()) else {
            continue;
        };
        let full = match message.role.as_deref() {
            Some("assistant") => {
                read.assistant(message.content, message.tool_calls, message.function_call);
                false
            }
            Some(role @ ("user" | "tool" | "system" | "developer")) => {
                !read.said(role, message.content)
            }
            // A legacy function's result is a tool's.
            Some("function") => !read.said("tool", message.content),
            _ => false,
        };
        if full {
            break;
        }
    }
    let mut said = Said::with_tool_results(read.out, read.tool_results);
    said.proposed = read.proposed.into();
    said.opaque = read.opaque;
    said.declined = read.declined.into();
    said.instructions = read.instructions;
    said.exchange = Some(read.exchange.into());
    said.users = read.users;
    said
}

/// The evidence grounding reads from a conversation's `messages` (chat messages as JSON), as
/// a served request's is read: for tests and evaluations that ground outside a request.
pub fn evidence_of(
    messages: &[Box<serde_json::value::RawValue>],
    today: jiff::civil::Date,
) -> Arc<grounding::Evidence> {
    let refs: Vec<&serde_json::value::RawValue> = messages.iter().map(|m| &**m).collect();
    conversation_evidence(&refs).evidence(today)
}

/// What [`conversation_evidence`] reads, message by message, newest first.
#[derive(Default)]
struct Reading {
    out: String,
    tool_results: Vec<std::ops::Range<usize>>,
    instructions: Vec<std::ops::Range<usize>>,
    proposed: String,
    exchange: String,
    /// No assistant call or tool result met yet: a user message is of the exchange.
    exchange_open: bool,
    opaque: bool,
    /// The message read last (the next one in the conversation) is the user's, and starts
    /// with a yes.
    affirmed: bool,
    /// The same, starting with a no.
    declining: bool,
    /// The questions so answered.
    declined: String,
    /// Where the user's messages are in `out`, newest first.
    users: Vec<std::ops::Range<usize>>,
}

impl Reading {
    /// An assistant turn: its text and its calls' arguments are what it proposed; one that
    /// called a tool closes the exchange.
    fn assistant(
        &mut self,
        content: Option<&serde_json::value::RawValue>,
        tool_calls: Option<&serde_json::value::RawValue>,
        function_call: Option<&serde_json::value::RawValue>,
    ) {
        let text = openai::content_text(content);
        if std::mem::take(&mut self.affirmed) && text.contains('?') {
            self.evidence("assistant", &text);
        }
        if std::mem::take(&mut self.declining) && text.contains('?') {
            push_bounded(&mut self.declined, &text, EXCHANGE_LIMIT);
        }
        push_bounded(&mut self.proposed, &text, EVIDENCE_LIMIT);
        let mut calls: Vec<Value> = tool_calls
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default();
        // The legacy form: one call, its arguments under `arguments`.
        if let Some(Value::Object(call)) =
            function_call.and_then(|raw| serde_json::from_str(raw.get()).ok())
        {
            calls.push(serde_json::json!({ "function": call }));
        }
        self.exchange_open &= calls.is_empty();
        for call in &calls {
            if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str) {
                push_bounded(&mut self.proposed, arguments, EVIDENCE_LIMIT);
            }
        }
    }

    /// A user, tool, system or developer message, as evidence; `false` once the evidence
    /// is full.
    fn said(&mut self, role: &str, content: Option<&serde_json::value::RawValue>) -> bool {
        let (text, opaque) = openai::content_read(content);
        self.opaque |= opaque;
        let text = without_client_boilerplate(&text);
        match role {
            "tool" => self.exchange_open = false,
            "user" if self.exchange_open => push_bounded(&mut self.exchange, &text, EXCHANGE_LIMIT),
            _ => {}
        }
        self.affirmed = role == "user" && grounding::affirms(&text);
        self.declining = role == "user" && grounding::declines(&text);
        let start = self.out.len();
        let room = self.evidence(role, &text);
        if role == "user" && self.out.len() > start {
            // Without the line break the message ends with.
            self.users.push(start..self.out.len() - 1);
        }
        room
    }

    /// `text` of a message of `role` added to the evidence; `false` once it is full.
    fn evidence(&mut self, role: &str, text: &str) -> bool {
        let room = EVIDENCE_LIMIT.saturating_sub(self.out.len());
        if room == 0 {
            return false;
        }
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let span = self.out.len()..self.out.len() + end;
        match role {
            "system" | "developer" => self.instructions.push(span),
            "tool" => self.tool_results.push(span),
            _ => {}
        }
        self.out.push_str(&text[..end]);
        self.out.push('\n');
        true
    }
}

/// The most of the user's messages of the exchange [`Said::exchange`] holds.
const EXCHANGE_LIMIT: usize = 8 * 1024;

/// `text` and a line's end after what `out` holds, as much as `limit` leaves room for.
fn push_bounded(out: &mut String, text: &str, limit: usize) {
    let mut end = text.len().min(limit.saturating_sub(out.len()));
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end > 0 {
        out.push_str(&text[..end]);
        out.push('\n');
    }
}

/// Blocks coding agents add to the user's turn for their model (Claude Code's
/// `<system-reminder>`): not the user's words, so not evidence for the translator.
const BOILERPLATE_TAGS: &[&str] = &["system-reminder"];

/// `text` without any [`BOILERPLATE_TAGS`] block; an unclosed block runs to the end.
fn without_client_boilerplate(text: &str) -> String {
    let mut out = text.to_owned();
    for tag in BOILERPLATE_TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        while let Some(start) = out.find(&open) {
            let end = out[start..]
                .find(&close)
                .map_or(out.len(), |i| start + i + close.len());
            out.replace_range(start..end, "");
        }
    }
    out
}

/// The failed descriptions of one request, so that a repair turn that repeats one gets no
/// second, identical translator call, and the tools whose call was already asked of the main
/// model directly. Bounded by the request's repair turns and calls.
#[derive(Debug, Default, Clone)]
pub struct Tried(Arc<std::sync::Mutex<TriedState>>);

#[derive(Debug, Default)]
struct TriedState {
    answers: HashMap<TriedKey, TriedAnswer>,
    asked_directly: std::collections::HashSet<String>,
    objected: std::collections::HashSet<String>,
    /// No repair turn can follow the turn being resolved (set by the driver): an objection
    /// to the main model's own call would lose the call, not ask again.
    no_repair_left: bool,
}

/// (tool, description)
type TriedKey = (String, String);
/// (what the main model was told, the reason the client reads)
type TriedAnswer = (String, String);

impl Tried {
    /// What the main model was told, and the reason given to the client, last time.
    pub fn previous(&self, tool: &str, description: &str) -> Option<(String, String)> {
        let tried = self.0.lock().ok()?;
        tried
            .answers
            .get(&(tool.to_owned(), description.trim().to_owned()))
            .cloned()
    }

    /// True the first time in this request: the main model is asked for a `tool` call
    /// directly once, not on every repair turn.
    pub fn first_direct(&self, tool: &str) -> bool {
        self.0
            .lock()
            .is_ok_and(|mut tried| tried.asked_directly.insert(tool.to_owned()))
    }

    /// Whether a repair turn can follow the turn being resolved (the driver says so before
    /// each turn).
    pub fn set_repair_left(&self, left: bool) {
        if let Ok(mut tried) = self.0.lock() {
            tried.no_repair_left = !left;
        }
    }

    /// True the first time in this request that grounding objects to the main model's own
    /// call to `tool`, and a repair turn can follow: it is told once; its next call goes as
    /// written. With no repair turn left the call goes out as written now.
    pub fn first_objection_to_own(&self, tool: &str) -> bool {
        self.0
            .lock()
            .is_ok_and(|mut tried| !tried.no_repair_left && tried.objected.insert(tool.to_owned()))
    }

    /// Whether grounding or the translator already objected to a call of `tool` in this
    /// request.
    pub fn objected_to(&self, tool: &str) -> bool {
        self.0
            .lock()
            .is_ok_and(|tried| tried.objected.contains(tool))
    }

    /// True the first time in this request that the translator (or grounding) finds a
    /// request is not for `tool`: the main model is told once; should it call the tool
    /// again, its own call is asked for (the worst case is the model alone, one turn later).
    pub fn first_objection(&self, tool: &str) -> bool {
        self.0
            .lock()
            .is_ok_and(|mut tried| tried.objected.insert(tool.to_owned()))
    }

    pub fn record(&self, tool: &str, description: &str, message: &str, reason: &str) {
        if let Ok(mut tried) = self.0.lock() {
            tried.answers.insert(
                (tool.to_owned(), description.trim().to_owned()),
                (message.to_owned(), reason.to_owned()),
            );
        }
    }
}

/// Tool selection, the translator and its caches: built once, shared by every request.
/// Other modules read the settings and prompts (and the chat route prefetches remembered
/// descriptions through `memory`); the rest is the pipe's own.
pub struct Pipe {
    settings: TranslationConfig,
    prompts: Prompts,
    pub(crate) validators: validate::Validators,
    pub(crate) translator: translator::Translator,
    pub(crate) cache: translate::TranslationCache,
    pub(crate) memory: history::Memory,
    /// Translator prompts read recently (see [`warm`]).
    pub(crate) warmed: warm::Warmed,
    prompt_grammar: bool,
    /// `tool_calling.text_calls`: a native-mode turn may write a handled tool's call as text.
    text_calls: bool,
}

impl Pipe {
    pub fn new(
        config: &Config,
        upstream: UpstreamClient,
        shared: crate::shared::Shared,
    ) -> Result<Pipe, crate::error::StartupError> {
        let settings = config.translation.clone();
        let prompts = Prompts::load(settings.prompts_dir.as_deref()).map_err(|source| {
            crate::error::StartupError::Prompts {
                dir: settings.prompts_dir.as_ref().map_or_else(
                    || "the built-in ones".to_owned(),
                    |d| format!("translation.prompts_dir = {}", d.display()),
                ),
                source,
            }
        })?;
        let translator = translator::Translator::new(&settings, upstream, config)?;
        Ok(Pipe {
            cache: translate::TranslationCache::new(
                settings.cache_capacity,
                settings.cache_ttl,
                shared.clone(),
            ),
            memory: history::Memory::new(settings.cache_capacity, settings.cache_ttl, shared),
            validators: validate::Validators::new(1024),
            warmed: warm::Warmed::default(),
            prompt_grammar: config.tool_calling.grammar,
            text_calls: config.tool_calling.text_calls,
            translator,
            prompts,
            settings,
        })
    }

    /// The tools whose calls a native-mode turn may write as text: those plaincall handles,
    /// when `tool_calling.text_calls` is on. Built once per request.
    fn text_calls_of(&self, set: &ToolSet, prompt_mode: bool) -> Option<Arc<PromptTools>> {
        let mut names = set.handled_names().peekable();
        (self.text_calls && !prompt_mode && names.peek().is_some())
            .then(|| Arc::new(PromptTools::of_names(names)))
    }

    pub fn settings(&self) -> &TranslationConfig {
        &self.settings
    }

    pub fn prompts(&self) -> &Prompts {
        &self.prompts
    }

    /// Decides whether the request changes, and builds the changed request. `prompt_mode`:
    /// tools go into the system prompt (see [`crate::pipe::prompt_mode`]); `watch_rejection`: the
    /// upstream may reject native tools, and the caller wants to know. The request is taken:
    /// the changed request is built in it, never beside a copy of it.
    pub(crate) fn plan(
        &self,
        request: ChatRequest,
        switched_off: bool,
        prompt_mode: bool,
        watch_rejection: bool,
    ) -> Result<Plan, ProxyError> {
        let bad = |param: &str, e: serde_json::Error| ProxyError::InvalidRequest {
            message: format!("`{param}` is malformed: {e}"),
            param: Some(param.to_owned()),
        };
        let ChatRequest {
            mut body,
            model,
            stream,
            choices,
            tools,
            tool_choice,
            include_usage,
        } = request;
        let raw_messages = take_messages(&mut body);
        let messages = split_messages(raw_messages.as_deref()).map_err(|e| bad("messages", e))?;
        let translate = self.settings.enabled && !switched_off;
        let (set, rewritten_tools) =
            self.tool_set(tools.as_deref().unwrap_or_default(), translate)?;
        let history_has_tools = messages.iter().flatten().any(|m| {
            let text = m.get();
            text.contains("\"tool_calls\"") || text.contains("\"tool\"")
        });
        let prompt_mode = prompt_mode && (tools.is_some() || history_has_tools);
        if set.is_empty() && set.checked.is_empty() && !prompt_mode {
            return Ok(Plan::Forward);
        }
        let words = messages.as_deref().map(user_words).unwrap_or_default();
        let evidence = self.evidence(&set, messages.as_deref());
        let rewritten_messages = match messages {
            Some(messages) if !set.is_empty() => Some(
                history::rewrite(messages, &set, &self.memory)
                    .and_then(|messages| openai::raw_array(&messages))
                    .map_err(|e| bad("messages", e))?,
            ),
            _ => None,
        };
        put_messages(&mut body, rewritten_messages.or(raw_messages));
        if !set.is_empty() {
            openai::set(&mut body, "tools", &rewritten_tools).map_err(internal)?;
        }
        let prompt = if prompt_mode {
            let tools = prompt_mode::render_request(
                &mut body,
                &rewritten_tools,
                tool_choice.as_ref(),
                &self.prompts,
                self.prompt_grammar,
            )?;
            Some(Arc::new(tools))
        } else {
            None
        };
        let text_calls = self.text_calls_of(&set, prompt.is_some());
        Ok(Plan::Rewrite(Box::new(Rewrite {
            body,
            tools: Arc::new(set),
            text_calls,
            stream,
            choices,
            include_usage,
            model,
            prompt,
            watch_rejection: watch_rejection && !prompt_mode && tools.is_some(),
            tried: Tried::default(),
            user_message: words.latest,
            earlier_user: words.earlier,
            evidence,
            original: None,
            query: None,
            deadline: tokio::time::Instant::now() + self.settings.budget,
        })))
    }

    /// The request's tools as the main model sees them (rewritten ones in their one-field
    /// form), and those plaincall handles: rewritten, or only checked.
    fn tool_set(
        &self,
        tools: &[RawObject],
        translate: bool,
    ) -> Result<(ToolSet, Vec<RawObject>), ProxyError> {
        let mut set = ToolSet::default();
        let mut shown = Vec::with_capacity(tools.len());
        for (at, tool) in tools.iter().enumerate() {
            let function = FunctionTool::read(tool).map_err(|e| ProxyError::InvalidRequest {
                message: format!("`tools[{at}]`: {e}"),
                param: Some("tools".to_owned()),
            })?;
            if let Some(function) = &function {
                set.functions.push(function.name.clone());
            }
            let Some(function) = function.filter(|_| translate) else {
                shown.push(tool.clone());
                continue;
            };
            match self.nl_form_of(tool, &function, false)? {
                Some((nl_tool, nl_definition)) => {
                    shown.push(nl_definition);
                    set.by_name.insert(nl_tool.name.clone(), Arc::new(nl_tool));
                }
                None => {
                    if let Some(checked) = self.checked_form(function) {
                        set.checked.insert(checked.name.clone(), Arc::new(checked));
                    }
                    shown.push(tool.clone());
                }
            }
        }
        Ok((set, shown))
    }

    /// What the conversation said, copied only when a call will be grounded in it.
    fn evidence(&self, set: &ToolSet, messages: Option<&[&serde_json::value::RawValue]>) -> Said {
        let grounded = set
            .by_name
            .keys()
            .chain(set.checked.keys())
            .any(|name| self.settings.grounding_for(name) != crate::config::Grounding::Off);
        match messages {
            Some(messages) if grounded => {
                conversation_evidence(messages).offering(set.handled_names().map(|name| {
                    let description = set
                        .by_name
                        .get(name)
                        .or_else(|| set.checked.get(name))
                        .map(|tool| tool.description.clone())
                        .unwrap_or_default();
                    (name.to_owned(), description)
                }))
            }
            _ => Said::default(),
        }
    }

    /// A tool that is not rewritten, with what checking its calls needs; `None` when its calls
    /// are not checked (switched off, or no schema to check them against).
    fn checked_form(&self, tool: FunctionTool) -> Option<NlTool> {
        let check = self.settings.check_for(&tool.name);
        if check == CheckMode::Off
            || !tool.has_parameters
            || grammar::past_limits(&tool.parameters).is_some()
        {
            return None;
        }
        let schema_hash = validate::schema_hash(&tool.parameters);
        let validator = self.validators.get(schema_hash, &tool.parameters).ok()?;
        Some(NlTool {
            reason: "its calls are checked against its schema".to_owned(),
            shown: String::new(),
            description: tool.description,
            name: tool.name,
            parameters: tool.parameters,
            schema_hash,
            validator,
            rewritten: false,
            field: NL_FIELD.to_owned(),
            check,
        })
    }

    /// The NL tool and its one-field definition, or `None` when the tool stays as it is.
    /// `force` rewrites whatever the configuration says (the CLI's tools for people). A
    /// function tool that does not read is an error.
    pub fn nl_form(
        &self,
        tool: &RawObject,
        force: bool,
    ) -> Result<Option<(NlTool, RawObject)>, ProxyError> {
        let function = FunctionTool::read(tool).map_err(|message| ProxyError::InvalidRequest {
            message,
            param: Some("tools".to_owned()),
        })?;
        match function {
            Some(function) => self.nl_form_of(tool, &function, force),
            None => Ok(None),
        }
    }

    /// [`Pipe::nl_form`] of a tool already read.
    fn nl_form_of(
        &self,
        tool: &RawObject,
        function: &FunctionTool,
        force: bool,
    ) -> Result<Option<(NlTool, RawObject)>, ProxyError> {
        let FunctionTool {
            name, parameters, ..
        } = function;
        if let Some(limit) = grammar::past_limits(parameters) {
            tracing::warn!(tool = %name, reason = %limit, "tool passed through as the client sent it");
            return Ok(None);
        }
        let reason = match (self.decision(name, parameters), force) {
            (Ok(reason), _) => reason,
            (Err(reason), true) => format!("not rewritten by this configuration ({reason})"),
            (Err(_), false) => return Ok(None),
        };
        let check = self.settings.check_for(name);
        let schema_hash = validate::schema_hash(parameters);
        let validator = match self.validators.get(schema_hash, parameters) {
            Ok(v) => v,
            Err(error) => {
                tracing::warn!(tool = %name, %error, "tool schema does not compile; passing the tool through unchanged");
                return Ok(None);
            }
        };
        let description = function.description.clone();
        let nl_description = match self.prompts.nl_description(name) {
            Some(text) => text.to_owned(),
            None => schema_text::nl_tool_description(&description, parameters),
        };
        let mut shown_function = function.function.clone();
        openai::set(&mut shown_function, "description", &nl_description).map_err(internal)?;
        let field = nl_field(parameters);
        openai::set(&mut shown_function, "parameters", &nl_parameters(&field)).map_err(internal)?;
        let mut definition = tool.clone();
        openai::set(&mut definition, "function", &shown_function).map_err(internal)?;
        let name = name.clone();
        let parameters = parameters.clone();
        Ok(Some((
            NlTool {
                name,
                reason,
                shown: nl_description.clone(),
                description,
                parameters,
                schema_hash,
                validator,
                rewritten: true,
                field,
                check,
            },
            definition,
        )))
    }

    /// Why the tool named `name` is rewritten (`Ok`) or passed through (`Err`), naming the
    /// setting that decided.
    pub fn decision(&self, name: &str, parameters: &Value) -> Result<String, String> {
        let (mode, setting) = match self.settings.tools.get(name) {
            Some(mode) => (*mode, format!("translation.tools.{name}")),
            None => (
                self.settings.default_mode,
                "translation.default_mode".to_owned(),
            ),
        };
        let mode_name = crate::config::tool_mode_name(mode);
        match select::is_rewritten(mode, parameters, &self.settings.thresholds) {
            Some(_) if mode == crate::config::ToolMode::Nl => {
                Ok(format!("{setting} = \"{mode_name}\""))
            }
            Some(reason) => Ok(format!("{reason} ({setting} = \"{mode_name}\")")),
            None if mode == crate::config::ToolMode::Passthrough => {
                Err(format!("{setting} = \"{mode_name}\""))
            }
            None => Err(select::simple_reason(parameters, &self.settings.thresholds)),
        }
    }

    /// The output mode and model label of the translator that would serve `request_model`.
    pub fn translator_label(&self, request_model: &str) -> (String, OutputMode) {
        self.translator.first_label(request_model)
    }
}

/// What the main model is told to put in `description`: the request, not instructions.
pub(crate) const GUIDE: &str = "What the user asked for, in their own words, with every value they gave (names, numbers, dates, times, places).";

/// The plain-English field's usual name.
pub(crate) const NL_FIELD: &str = "description";

/// The plain-English field of a tool: `description`, unless the tool has a `description` of
/// its own (an issue tracker's `create_issue`); then a name none of its properties use, so
/// that the two can never be taken for each other.
pub fn nl_field(parameters: &Value) -> String {
    let taken = |name: &str| {
        parameters
            .get("properties")
            .and_then(|p| p.get(name))
            .is_some()
    };
    ["description", "request", "plain_request"]
        .into_iter()
        .map(str::to_owned)
        .chain((2..).map(|n| format!("plain_request_{n}")))
        .find(|name| !taken(name))
        .unwrap_or_else(|| NL_FIELD.to_owned())
}

/// The one-field schema. It satisfies OpenAI's strict mode, so `strict: true` keeps working.
fn nl_parameters(field: &str) -> Value {
    let mut properties = Map::new();
    properties.insert(
        field.into(),
        json!({
            "type": "string",
            "description": GUIDE
        }),
    );
    json!({
        "type": "object",
        "properties": properties,
        "required": [field],
        "additionalProperties": false
    })
}

fn internal(error: serde_json::Error) -> ProxyError {
    ProxyError::Internal(format!("serialising the rewritten request: {error}"))
}

#[cfg(test)]
mod said_tests {
    use super::*;

    #[test]
    fn the_evidence_is_read_once_per_request_and_day() {
        let said = Said::new("Book a table for four tomorrow at 8pm");
        let today = jiff::civil::date(2026, 11, 25);
        let first = said.evidence(today);
        assert!(Arc::ptr_eq(&first, &said.evidence(today)));
        let next_day = said.evidence(jiff::civil::date(2026, 11, 26));
        assert!(!Arc::ptr_eq(&first, &next_day));
        assert!(Arc::ptr_eq(
            &next_day,
            &said.evidence(jiff::civil::date(2026, 11, 26))
        ));
        assert_eq!(&**said.text(), "Book a table for four tomorrow at 8pm");
    }
}

#[cfg(test)]
mod boilerplate_tests {
    use super::*;

    #[test]
    fn system_reminders_are_not_the_users_words() {
        let text = "<system-reminder>The date is 2026-11-25.</system-reminder>\nBook a table for 4 at 8pm<system-reminder>Use tools</system-reminder>";
        assert_eq!(
            without_client_boilerplate(text).trim(),
            "Book a table for 4 at 8pm"
        );
        assert_eq!(without_client_boilerplate("hi <system-reminder>cut"), "hi ");
        let message = openai::to_raw(&json!({"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            {"type": "text", "text": "remind me at 9"}]}))
        .unwrap_or_default();
        assert_eq!(
            user_words(&[&message]).latest.as_deref(),
            Some("remind me at 9")
        );
    }

    fn messages(list: Value) -> Vec<Box<serde_json::value::RawValue>> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| openai::to_raw(m).ok())
            .collect()
    }

    #[test]
    fn the_exchange_s_earlier_user_messages_go_with_the_latest() {
        let read = |list: Value| {
            let owned = messages(list);
            let refs: Vec<&serde_json::value::RawValue> = owned.iter().map(|m| &**m).collect();
            let words = user_words(&refs);
            (words.latest, words.earlier)
        };
        // An assistant's question in between keeps the exchange open.
        assert_eq!(
            read(json!([
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "I need a reminder every Monday at 08:00."},
                {"role": "assistant", "content": "What should it say?"},
                {"role": "user", "content": "Water the plants."}])),
            (
                Some("Water the plants.".into()),
                Some("User's earlier message: I need a reminder every Monday at 08:00.".into())
            )
        );
        // A call made before the latest message ends the exchange: what came before it was
        // another request, already served.
        let call = json!({"id": "c1", "type": "function",
            "function": {"name": "f", "arguments": "{}"}});
        assert_eq!(
            read(json!([
                {"role": "user", "content": "book a table for 4"},
                {"role": "assistant", "content": null, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "booked"},
                {"role": "user", "content": "first thing"},
                {"role": "user", "content": "now remind me at 9"}])),
            (
                Some("now remind me at 9".into()),
                Some("User's earlier message: first thing".into())
            )
        );
        // A call after the latest message (an agent's loop) does not end it.
        assert_eq!(
            read(json!([
                {"role": "user", "content": "on Friday"},
                {"role": "user", "content": "book it"},
                {"role": "assistant", "content": null, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "done"}])),
            (
                Some("book it".into()),
                Some("User's earlier message: on Friday".into())
            )
        );
        // The legacy call form ends it too.
        assert_eq!(
            read(json!([
                {"role": "user", "content": "book a flight"},
                {"role": "assistant", "content": null,
                    "function_call": {"name": "f", "arguments": "{}"}},
                {"role": "function", "name": "f", "content": "booked"},
                {"role": "user", "content": "now remind me at 9"}])),
            (Some("now remind me at 9".into()), None)
        );
        // Grounding's reading of the exchange agrees, and a legacy function's result is a
        // tool's.
        let owned = messages(json!([
            {"role": "user", "content": "book a flight to Rome on May 3"},
            {"role": "assistant", "content": null,
                "function_call": {"name": "f", "arguments": "{\"day\": \"May 3\"}"}},
            {"role": "function", "name": "f", "content": "booked FL-204"},
            {"role": "user", "content": "now remind me at 9"}]));
        let refs: Vec<&serde_json::value::RawValue> = owned.iter().map(|m| &**m).collect();
        let said = conversation_evidence(&refs);
        assert_eq!(said.exchange().map(str::trim), Some("now remind me at 9"));
        assert_eq!(said.tool_results.len(), 1);
        // The assistant's question the user's next message answers with a yes is evidence;
        // one answered otherwise, or no question, is not.
        let evidence = |list: Value| {
            let owned = messages(list);
            let refs: Vec<&serde_json::value::RawValue> = owned.iter().map(|m| &**m).collect();
            conversation_evidence(&refs).text().to_string()
        };
        let asked = json!({"role": "assistant", "content": "Shall I book the 7pm table?"});
        let yes = evidence(json!([
            {"role": "user", "content": "a table at Luigi's tonight"}, asked,
            {"role": "user", "content": "Yes please"}]));
        assert!(yes.contains("7pm"), "{yes}");
        let other = evidence(json!([
            {"role": "user", "content": "a table at Luigi's tonight"}, asked,
            {"role": "user", "content": "Hmm, later if you can"}]));
        assert!(!other.contains("7pm"), "{other}");
        let no_question = evidence(json!([
            {"role": "user", "content": "a table at Luigi's tonight"},
            {"role": "assistant", "content": "I booked the 7pm table."},
            {"role": "user", "content": "ok thanks"}]));
        assert!(!no_question.contains("7pm"), "{no_question}");
        // A question answered with a no is no evidence, only what was declined: a flag its
        // subject names is off, and no value of it ("12 €") is said.
        let owned = messages(json!([
            {"role": "user", "content": "book the train to Lyon"},
            {"role": "assistant", "content": "Do you want the refundable fare? It is 12 € more."},
            {"role": "user", "content": "nah, the normal one"}]));
        let refs: Vec<&serde_json::value::RawValue> = owned.iter().map(|m| &**m).collect();
        let said = conversation_evidence(&refs);
        assert!(!said.text().contains("refundable"), "{}", said.text());
        assert!(said.declined.contains("refundable"), "{}", said.declined);
        let flag = json!({"type": "object", "properties": {"refundable": {"type": "boolean"}, "surcharge": {"type": "number"}}});
        let evidence = said.evidence(jiff::civil::date(2026, 12, 10));
        let kept = |args: Value| {
            let mut args = args;
            grounding::ground(&mut args, &flag, &evidence, grounding::Rules::default());
            args
        };
        assert_eq!(
            kept(json!({"refundable": false})),
            json!({"refundable": false})
        );
        assert_eq!(kept(json!({"refundable": true})), json!({}));
        assert_eq!(kept(json!({"surcharge": 12})), json!({}));
        let agreed = messages(json!([
            {"role": "assistant", "content": "Do you want the refundable fare?"},
            {"role": "user", "content": "No problem, go for it"}]));
        let refs: Vec<&serde_json::value::RawValue> = agreed.iter().map(|m| &**m).collect();
        assert!(conversation_evidence(&refs).declined.is_empty());
        // Oldest first, bounded in all.
        let long = "x".repeat(call_form::USER_MESSAGE_LIMIT);
        let (_, earlier) = read(json!([
            {"role": "user", "content": long},
            {"role": "user", "content": "second"},
            {"role": "user", "content": "latest"}]));
        let earlier = earlier.unwrap_or_default();
        assert!(
            earlier.starts_with("User's earlier message: xxx"),
            "{earlier}"
        );
        assert!(
            earlier.ends_with("User's earlier message: second"),
            "{earlier}"
        );
        assert!(earlier.len() < call_form::USER_MESSAGE_LIMIT + 100);
        assert_eq!(read(json!([{"role": "user", "content": "only"}])).1, None);
    }

    /// `args` of a tool of `schema` grounded in `conversation` (chat messages), today
    /// 2026-12-12.
    fn grounded(schema: &Value, conversation: Value, args: Value) -> Value {
        let owned = messages(conversation);
        let refs: Vec<&serde_json::value::RawValue> = owned.iter().map(|m| &**m).collect();
        let evidence = conversation_evidence(&refs).evidence(jiff::civil::date(2026, 12, 12));
        let mut args = args;
        grounding::ground(&mut args, schema, &evidence, grounding::Rules::default());
        args
    }

    /// The user's newest message, opening with a correction, takes back what the earlier ones
    /// said of its kinds; only when it is the newest, and not one that adds to the request.
    #[test]
    fn a_newest_message_that_corrects_takes_back_the_earlier_ones() {
        let schema = json!({"type": "object", "properties": {
            "quantity": {"type": "integer"}, "colour": {"type": "string"},
            "day": {"type": "string", "format": "date"}}});
        let kept = |conversation: Value, args: Value| grounded(&schema, conversation, args);
        let order = json!({"role": "user", "content": "Commande 3 cartouches d'encre noire."});
        let noted = json!({"role": "assistant", "content": "3 cartouches noires, c'est noté."});
        let corrected = json!([order, noted,
            {"role": "user", "content": "Finalement mets-en 2 seulement, il m'en reste une."}]);
        assert_eq!(kept(corrected.clone(), json!({"quantity": 3})), json!({}));
        assert_eq!(
            kept(corrected, json!({"quantity": 2})),
            json!({"quantity": 2})
        );
        // Another kind stays: the correction says a number, not a colour.
        let said = json!([{"role": "user", "content": "Order 3 black cartridges."}, noted,
            {"role": "user", "content": "Actually, make it 2."}]);
        assert_eq!(
            kept(said, json!({"quantity": 3, "colour": "black"})),
            json!({"colour": "black"})
        );
        let day = json!([{"role": "user", "content": "Set the meeting for the 3rd."},
            {"role": "assistant", "content": "January 3rd, got it."},
            {"role": "user", "content": "Sorry, not the 3rd, on the 4th."}]);
        assert_eq!(kept(day.clone(), json!({"day": "2027-01-03"})), json!({}));
        assert_eq!(
            kept(day, json!({"day": "2027-01-04"})),
            json!({"day": "2027-01-04"})
        );
        // Not a correction: a message that adds, one that opens otherwise, a correction
        // that is not the newest message.
        for newest in [
            "Actually, also add 2 of the colour ones.",
            "And 2 colour ones please.",
            "Actually I need them for the printer on the second floor, which takes the big 2-packs, so please check",
        ] {
            let conversation = json!([order, noted, {"role": "user", "content": newest}]);
            assert_eq!(
                kept(conversation, json!({"quantity": 3})),
                json!({"quantity": 3}),
                "{newest}"
            );
        }
        let older = json!([{"role": "user", "content": "Finalement 2."}, order]);
        assert_eq!(kept(older, json!({"quantity": 3})), json!({"quantity": 3}));
        // Only the user's own earlier messages are taken back, never a tool's result.
        let counted = json!({"type": "object", "properties": {
            "order_id": {"type": "integer"}, "quantity": {"type": "integer"},
            "party_size": {"type": "integer"}}});
        let kept_by = |conversation: Value, args: Value| grounded(&counted, conversation, args);
        let returned = json!([{"role": "user", "content": "Find my last order"},
            {"role": "tool", "tool_call_id": "c1", "content": "order 88123: 3 items"},
            {"role": "assistant", "content": "Return all 3?"},
            {"role": "user", "content": "No, just 2."}]);
        assert_eq!(
            kept_by(returned, json!({"order_id": 88123, "quantity": 2})),
            json!({"order_id": 88123, "quantity": 2})
        );
        // An hour, a day or a count of another thing corrects no count.
        let nights = json!([{"role": "user", "content": "Book a room for 4 people for 3 nights."},
            {"role": "user", "content": "Actually, make it 2 nights."}]);
        assert_eq!(
            kept_by(nights, json!({"party_size": 4})),
            json!({"party_size": 4})
        );
        let table = json!([{"role": "user", "content": "Book a table for 4 at Luigi's on Friday."},
            {"role": "assistant", "content": "Is 7pm OK?"},
            {"role": "user", "content": "No, 8pm please."}]);
        assert_eq!(
            kept_by(table, json!({"party_size": 4})),
            json!({"party_size": 4})
        );
        // The newest message's correction, opening it or inside it, goes before an earlier
        // message's own.
        let inside = json!([
            {"role": "user", "content": "Get 3 tickets, no wait, 4."},
            {"role": "assistant", "content": "4 tickets. Which day?"},
            {"role": "user", "content": "Book it for the 18th, no, the 19th."}]);
        assert_eq!(kept(inside, json!({"day": "2026-12-18"})), json!({}));
        let twice = json!([
            {"role": "user", "content": "Order 3 black cartridges, no wait, 4."},
            {"role": "assistant", "content": "4 noted."},
            {"role": "user", "content": "Actually, make it 2."}]);
        assert_eq!(kept_by(twice, json!({"quantity": 4})), json!({}));
        // Keeping one thing cancels none of the others.
        let room = json!([
            {"role": "user", "content": "Book room A on the 18th at 3pm for the budget review"},
            {"role": "assistant", "content": "3pm is taken, book 4pm instead?"},
            {"role": "user", "content": "No, keep 3pm, any room is fine."}]);
        assert_eq!(
            kept(room, json!({"day": "2026-12-18"})),
            json!({"day": "2026-12-18"})
        );
    }
}

#[cfg(test)]
mod field_tests {
    use super::*;

    #[test]
    fn the_plain_english_field_never_takes_a_name_the_tool_uses() {
        assert_eq!(
            nl_field(&json!({"properties": {"city": {}}})),
            "description"
        );
        assert_eq!(
            nl_field(&json!({"properties": {"description": {}}})),
            "request"
        );
        assert_eq!(
            nl_field(
                &json!({"properties": {"description": {}, "request": {}, "plain_request": {}}})
            ),
            "plain_request_2"
        );
        assert_eq!(nl_parameters("request")["required"], json!(["request"]));
    }
}
