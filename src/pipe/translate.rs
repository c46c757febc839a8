//! One plain-English description to validated arguments: prompt, translator call, extraction,
//! validation against the full schema, retries with the errors spelled out, and the cache.

use std::sync::Arc;
use std::time::Duration;

use http::HeaderMap;
use serde_json::{json, Value};

use super::extract::{coerce_stringified, extract_json, unwrap_call_envelope};
use super::{canonical, grammar, grounding, repair, schema_text, validate, NlTool, Pipe, Said};
use crate::config::Grounding;
use crate::metrics::Metrics;
use crate::prompts::TranslatorContext;
use crate::shared::{hashed, Shared, Space};
use crate::telemetry::spans;

/// How much of a bad answer is shown back to the translator.
const PREVIOUS_ANSWER_LIMIT: usize = 2000;

/// The result of translating one call.
#[derive(Debug, Clone)]
pub enum Outcome {
    Calls(Arc<Translated>),
    /// The translator asks for a fact the description lacks: a question for the user.
    Clarification(String),
    /// The translator finds the request is not for this tool: what it asks for instead. The
    /// main model is told, and offered the tools again (see `resolve`).
    WrongTool(String),
    /// No valid call after every attempt; says what went wrong.
    Failed(String),
}

/// Valid calls from one description. `calls` holds each valid element with its 1-based
/// position in the translator's answer; `total` is how many elements the answer had.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Translated {
    pub calls: Vec<(usize, Value)>,
    pub total: usize,
    /// Why the missing positions were dropped.
    pub dropped: Vec<String>,
    pub attempts: u32,
    #[serde(skip)]
    pub from_cache: bool,
    /// Optional values nothing in the conversation traces, left out (their paths).
    #[serde(skip)]
    pub ungrounded: Vec<String>,
    /// Grounding's decision on each value, with the rule that made it.
    #[serde(skip)]
    pub grounding: Vec<grounding::Decision>,
    /// The tool these calls are for when it is not the one described: the main model, asked
    /// directly with every tool in full, chose another (never cached: no translator wrote it).
    #[serde(skip)]
    pub tool: Option<String>,
}

impl Translated {
    /// One call that did not come from the translator (the main model's own).
    pub fn single(args: Value) -> Translated {
        Translated {
            calls: vec![(1, args)],
            total: 1,
            dropped: Vec::new(),
            attempts: 0,
            from_cache: false,
            ungrounded: Vec::new(),
            grounding: Vec::new(),
            tool: None,
        }
    }

    /// Grounding's decisions as the log line shows them: `path=rule:outcome`, joined.
    pub fn grounding_line(&self) -> String {
        self.grounding
            .iter()
            .map(|d| format!("{}={}:{}", d.path, d.rule.name(), d.outcome.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Clone, Hash, PartialEq, Eq)]
struct CacheKey {
    tool: String,
    schema_hash: u64,
    description: String,
    model: String,
    /// The prompt carries today's date, so "tomorrow" means something else the next day.
    date: String,
}

/// Translations by what they were made from: in the process, and in Redis when configured
/// (looked up on a miss here, under a hash of everything the translator was given).
pub(crate) struct TranslationCache {
    entries: moka::future::Cache<CacheKey, Arc<Translated>>,
    shared: Shared,
    ttl: Duration,
}

impl TranslationCache {
    pub(crate) fn new(capacity: u64, ttl: Duration, shared: Shared) -> TranslationCache {
        TranslationCache {
            entries: moka::future::Cache::builder()
                .max_capacity(capacity)
                .time_to_live(ttl)
                .build(),
            shared,
            ttl,
        }
    }
}

/// Today in the configured zone: (`YYYY-MM-DD`, weekday name).
pub(crate) fn today(tz: &jiff::tz::TimeZone) -> (String, String) {
    let now = jiff::Timestamp::now().to_zoned(tz.clone());
    (now.date().to_string(), format!("{:?}", now.weekday()))
}

/// One translator exchange, for `plaincall translate` to show.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub backend: String,
    pub reply: String,
    pub errors: Vec<String>,
}

/// The question for required values the conversation does not hold.
pub(crate) fn not_said(missing: &[String]) -> String {
    format!(
        "The request does not say {}: ask the user for {} rather than guess.",
        missing.join(", "),
        if missing.len() == 1 { "it" } else { "them" }
    )
}

/// A conversation as grounding reads it: its words, the day relative dates are read against,
/// and the rules in force.
struct Conversation<'a> {
    said: &'a Said,
    day: jiff::civil::Date,
    rules: grounding::Rules,
}

/// A translated call to a rewritten tool with at least this many values, none of them said in
/// the conversation, is for another request (see [`nothing_said`]). Two is too few: a value
/// worked out from what was said ("AAPL" and "NASDAQ" for "What's Apple trading at?", "JFK"
/// and "LAX" for "from New York to LA") is traced by no rule either.
const NOTHING_SAID_VALUES: usize = 3;

/// A translated call to a rewritten tool that is for another request ([`nothing_said`]; its
/// values as `grounded` judged them), counted and logged.
fn call_for_another(
    tool: &NlTool,
    grounded: &Translated,
    translated: &Translated,
    said: &Conversation,
    metrics: &Metrics,
) -> Option<Outcome> {
    let calls: Vec<&Value> = translated.calls.iter().map(|(_, args)| args).collect();
    let reason = tool
        .rewritten
        .then(|| nothing_said(tool, &grounded.grounding, &calls, said))
        .flatten()?;
    metrics.grounding_nothing_said.inc();
    tracing::info!(tool = %tool.name, grounding = %grounded.grounding_line(), %reason, "the translated call is for another request");
    Some(Outcome::WrongTool(reason))
}

/// A question about a rewritten tool the request is not for (the translator's, or plaincall's
/// own for a fact nobody said): where the
/// conversation names another offered tool's subject and nothing this tool acts on ("find me
/// a concert" sent to a bus tool, the translator asking for the departure city), the main
/// model is told and offered the tools again, as for a call for another request
/// ([`Outcome::WrongTool`]), never the user asked about a tool they did not want. Read on the
/// user's messages since the assistant last called a tool (where grounding read them). Not
/// where an image or a file may name what it is for.
fn question_for_another_tool(
    tool: &NlTool,
    conversation: &Said,
    date: &str,
    question: String,
    metrics: &Metrics,
) -> Outcome {
    if !tool.rewritten || conversation.opaque() {
        return Outcome::Clarification(question);
    }
    // What the user asked since the assistant last called a tool: a subject of an earlier
    // request ("book a flight" ... "now a hotel there") is no sign of this one's.
    let day = date.parse().unwrap_or_default();
    let facts = match conversation.exchange().filter(|e| !e.trim().is_empty()) {
        Some(exchange) => grounding::Evidence::new(exchange, day),
        None => conversation.without_instructions(day),
    };
    let Some(other) = for_another_tool(tool, conversation, &facts) else {
        return Outcome::Clarification(question);
    };
    metrics.questions_for_another_tool.inc();
    tracing::info!(tool = %tool.name, %other, %question, "a question about a tool whose subject the conversation does not name, where it names another tool's, goes back to the main model");
    Outcome::WrongTool(format!(
        "it would ask \"{question}\", but the conversation names what {other} acts on, and nothing this tool acts on"
    ))
}

/// Why a translation is no call for this request, when the conversation holds none of its
/// values: a weak main model reaches for a tool shown as one free-text field ("What is the
/// weather in Paris?" sent to `set_reminder`), and a translator fills every field with what
/// it makes up; a weak model also calls a tool it saw in full with values it makes up ("I'd
/// like to look for a rental vehicle." sent to a car search with a city and dates nobody
/// gave). Only for one call of [`NOTHING_SAID_VALUES`] values or more (its leaves: an object or an
/// array is no value of its own), never where grounding cannot read the conversation (its
/// values are then unverified, not unsaid, and an image or a file may hold them), never when
/// a text value is about what the conversation is about ([`grounding::touches`], its system
/// and developer messages aside), and never when what the assistant's earlier turns wrote
/// holds one of them (the user may have accepted a call the assistant proposed). The same
/// for a call whose two or more required values are all unsaid ([`required_unsaid`]) when the
/// conversation names nothing the tool acts on and does name another tool the request offers
/// ([`grounding::names_tool`]), for a rewritten tool only. `decisions` are grounding's on
/// the `calls` (as written, before any value was left out).
fn nothing_said(
    tool: &NlTool,
    decisions: &[grounding::Decision],
    calls: &[&Value],
    conversation: &Conversation,
) -> Option<String> {
    let unsaid = |d: &grounding::Decision| d.rule == grounding::Rule::Unsaid;
    let leaves: Vec<&str> = decisions
        .iter()
        .map(|d| d.path.as_str())
        .filter(|path| !decisions.iter().any(|d| contains(path, &d.path)))
        .collect();
    if calls.len() != 1 || conversation.said.opaque() || leaves.len() < NOTHING_SAID_VALUES {
        return None;
    }
    let required = required_unsaid(&tool.parameters, decisions);
    let nothing = decisions.iter().all(unsaid);
    // The cheap checks first: the conversation is read again only when one may hold.
    if !(nothing || tool.rewritten && required.len() >= 2) {
        return None;
    }
    // Text the translator wrote about what was said, in words of its own ("Search the web
    // for the latest news on AI regulation" for "search for the latest news about AI
    // regulation"), ties the call to the request even where no value is traced. Not a word
    // of the instructions: "Use the tools" in a system prompt is no request for one.
    let facts = conversation.said.without_instructions(conversation.day);
    // Worked-out values are traced by no rule ("JFK" for "from New York"): only where the
    // request names another offered tool and nothing of this one is it for another request,
    // and only for a rewritten tool (one the model saw in full was its own choice).
    let none_required = || {
        tool.rewritten
            && required.len() >= 2
            && for_another_tool(tool, conversation.said, &facts).is_some()
    };
    if !nothing && !none_required() || tied(tool, calls, conversation, &facts) {
        return None;
    }
    if nothing {
        return Some(format!(
            "nothing the conversation says is among its values ({})",
            leaves.join(", ")
        ));
    }
    Some(format!(
        "the conversation gives none of what it requires ({}) and names another tool's subject, not its own",
        required.join(", ")
    ))
}

/// The other tool the request offers whose subject the conversation (`facts`: its evidence
/// without its instructions) names, where it names nothing `tool` acts on
/// ([`grounding::names_tool`]: their names and their descriptions' first sentences).
fn for_another_tool<'a>(
    tool: &NlTool,
    said: &'a Said,
    facts: &grounding::Evidence,
) -> Option<&'a str> {
    said.offered()
        .iter()
        .find(|(other, description)| {
            *other != tool.name && grounding::names_tool(other, description, facts)
        })
        .map(|(other, _)| other.as_str())
        .filter(|_| !grounding::names_tool(&tool.name, &tool.description, facts))
}

/// Whether a call whose values no rule traces is still tied to the request: a text value
/// about what the conversation is about (`facts`: its evidence without its instructions), or
/// a value the assistant's earlier turns proposed.
fn tied(
    tool: &NlTool,
    calls: &[&Value],
    conversation: &Conversation,
    facts: &grounding::Evidence,
) -> bool {
    if calls.iter().any(|args| grounding::touches(args, facts)) {
        return true;
    }
    conversation
        .said
        .proposed(conversation.day)
        .is_some_and(|proposed| {
            calls.iter().any(|args| {
                let report = grounding::ground(
                    &mut (*args).clone(),
                    &tool.parameters,
                    &proposed,
                    conversation.rules,
                );
                !report
                    .decisions
                    .iter()
                    .all(|d| d.rule == grounding::Rule::Unsaid)
            })
        })
}

/// Whether `text`, the value of property `name` nobody said, is an example the tool's own
/// description or the property's gives, quoted or listed in `examples` ("San Francisco, CA" of
/// "in the format of 'City, State', such as 'San Francisco, CA'" for "What's 1+1?"): a place,
/// a name or an address of two words or more, each with a capital or a digit, copied from the
/// schema, not worked out from the request. Never a command, a path or a code a model works
/// out ("ls -la", "AAPL"), nor one of the property's members or its default, nor one the
/// conversation says by its initials (in capitals: "the SF area").
fn copied_from_schema(tool: &NlTool, name: &str, text: &str, conversation: &str) -> bool {
    let text = text.trim();
    let words: Vec<&str> = text.split_whitespace().collect();
    let a_fact = words.len() >= 2
        && words.iter().all(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        });
    if !a_fact || initials_said(text, conversation) {
        return false;
    }
    let property = tool
        .parameters
        .get("properties")
        .and_then(|properties| properties.get(name));
    let offered = property.is_some_and(|p| {
        p.get("default").and_then(Value::as_str) == Some(text)
            || p.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|members| members.iter().any(|m| m.as_str() == Some(text)))
    });
    let listed = property
        .and_then(|p| p.get("examples"))
        .and_then(Value::as_array)
        .is_some_and(|examples| examples.iter().any(|e| e.as_str() == Some(text)));
    let described = property
        .and_then(|p| p.get("description"))
        .and_then(Value::as_str)
        .is_some_and(|d| quotes(d, text))
        || quotes(&tool.description, text);
    !offered && (listed || described)
}

/// Whether `description` holds `text` in quotes ('...', "...", ‘...’, “...”).
fn quotes(description: &str, text: &str) -> bool {
    [('\'', '\''), ('"', '"'), ('‘', '’'), ('“', '”')]
        .iter()
        .any(|(open, close)| description.contains(&format!("{open}{text}{close}")))
}

/// Whether a value is a name: one to four words, each capitalized and of letters (a comma,
/// a dot, a hyphen or an apostrophe within): "London", "San Francisco, CA"; not "cargo
/// test", "README.md" or "src/".
fn a_name(value: &str) -> bool {
    let words: Vec<&str> = value.split_whitespace().collect();
    (1..=4).contains(&words.len())
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.trim_end_matches([',', '.'])
                    .chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’'))
        })
}

/// Whether the conversation says a place or a name by its initials, in capitals: "SF" for
/// "San Francisco, CA", "NYC" for "New York City" (the words before a comma, two or more).
fn initials_said(value: &str, conversation: &str) -> bool {
    let name = value.split(',').next().unwrap_or_default();
    let words: Vec<&str> = name.split_whitespace().collect();
    if words.len() < 2 {
        return false;
    }
    let initials: String = words.iter().filter_map(|w| w.chars().next()).collect();
    conversation
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| word == initials)
}

/// The required values of the main model's own call `args` that nobody said, when every one
/// is unsaid and one of them is a number, a day or a time, or an example copied from the
/// schema ([`copied_from_schema`]) (nobody works those out from
/// nothing: "2023-04-01" and "12:00" for "I'd like to look for a rental vehicle", `minutes:
/// 10` for "set a timer"), never where grounding cannot read the conversation or the call is
/// tied to it ([`tied`]); empty otherwise. Its optional values do not count (they are left
/// out when unsaid). A number worked out from others ("radius 5" for "a diameter of ten")
/// is objected to once too: told, the model's next call goes as written.
/// Free text, names and paths are left alone: a model works out a command or a file's
/// path from the request, and grounding traces no such work.
fn facts_not_said(
    tool: &NlTool,
    decisions: &[grounding::Decision],
    args: &Value,
    conversation: &Conversation,
) -> Vec<String> {
    let required = required_unsaid(&tool.parameters, decisions);
    let a_number_or_a_when = required.iter().any(|name| match args.get(*name) {
        Some(Value::Number(_)) => true,
        Some(Value::String(text)) => {
            grounding::is_day_or_time(text)
                || copied_from_schema(tool, name, text, conversation.said.text())
        }
        _ => false,
    });
    if required.is_empty() || !a_number_or_a_when || conversation.said.opaque() {
        return Vec::new();
    }
    let facts = conversation.said.without_instructions(conversation.day);
    if tied(tool, &[args], conversation, &facts) {
        return Vec::new();
    }
    required.into_iter().map(str::to_owned).collect()
}

/// The paths of `missing` (required values no evidence traces) whose value in a call is a
/// fact nobody can work out from the request ([`grounding::unworkable`]).
fn facts_among(missing: Vec<String>, translated: &Translated) -> Vec<String> {
    missing
        .into_iter()
        .filter(|path| {
            translated
                .calls
                .iter()
                .any(|(_, args)| grounding::at_path(args, path).is_some_and(grounding::unworkable))
        })
        .collect()
}

/// The schema's required properties when the call holds every one and grounding traced none
/// of them (with two or more, a call for another request: a hotel search sent to a flight
/// tool, its airports and dates made up, only the count of rooms said); empty otherwise.
fn required_unsaid<'a>(schema: &'a Value, decisions: &[grounding::Decision]) -> Vec<&'a str> {
    let required = crate::json::required(schema);
    let unsaid = |name: &&str| {
        decisions
            .iter()
            .any(|d| d.path == *name && d.rule == grounding::Rule::Unsaid)
    };
    if required.iter().all(unsaid) {
        required
    } else {
        Vec::new()
    }
}

/// Whether the value at report path `outer` holds the one at `inner` ("budget" holds
/// "budget.min", "tags" holds "tags[0]").
fn contains(outer: &str, inner: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.starts_with(['.', '[']))
}

impl AttemptRecord {
    fn of(reply: super::translator::Reply, judged: &Attempt) -> AttemptRecord {
        AttemptRecord {
            backend: reply.backend,
            reply: reply.text,
            errors: match judged {
                Attempt::Invalid { errors, .. } => errors.clone(),
                Attempt::Done(Outcome::Calls(t)) => t.dropped.clone(),
                Attempt::Done(_) => Vec::new(),
            },
        }
    }
}

enum Attempt {
    Done(Outcome),
    Invalid { errors: Vec<String>, answer: String },
}

impl Pipe {
    /// Translates `description` for `tool`, grounds the result in `evidence` (what the
    /// conversation said; never the description, the main model's claim about it), and logs one
    /// `info` line saying how it
    /// went (every call the driver resolves comes here, streamed or not). Never fails: problems
    /// become an [`Outcome`].
    pub async fn translate(
        &self,
        tool: &NlTool,
        description: &str,
        evidence: &Said,
        request_model: &str,
        client_headers: &HeaderMap,
        metrics: &Metrics,
    ) -> Outcome {
        let started = std::time::Instant::now();
        let outcome = self
            .translate_cached(tool, description, request_model, client_headers, metrics)
            .await;
        let outcome = self
            .grounded_in(
                tool,
                description,
                evidence,
                outcome,
                request_model,
                client_headers,
                metrics,
            )
            .await;
        let ms = started.elapsed().as_millis() as u64;
        let (label, attempts, detail) = match &outcome {
            Outcome::Calls(t) if t.from_cache => ("cached", Some(t.attempts), String::new()),
            Outcome::Calls(t) => ("ok", Some(t.attempts), t.dropped.join("; ")),
            // The error says how many attempts it took where that is known.
            Outcome::Clarification(question) => ("clarification", None, question.clone()),
            Outcome::WrongTool(reason) => ("wrong_tool", None, reason.clone()),
            Outcome::Failed(error) => ("failed", None, error.clone()),
        };
        let (ungrounded, decisions) = match &outcome {
            Outcome::Calls(t) => (t.ungrounded.join(", "), t.grounding_line()),
            _ => (String::new(), String::new()),
        };
        tracing::info!(
            tool = %tool.name, why = %tool.reason, outcome = label, attempts, ms, detail,
            left_out_unsaid = %ungrounded, grounding = %decisions,
            "translation"
        );
        // On the call's `translate` span (see `resolve`), when traces are on.
        let span = tracing::Span::current();
        if !span.is_disabled() {
            let translated = match &outcome {
                Outcome::Calls(t) => Some(t.as_ref()),
                _ => None,
            };
            spans::record_translation(
                &span,
                spans::TranslationEnd {
                    outcome: label,
                    attempts,
                    detail: &detail,
                    left_out: translated.map_or(&[][..], |t| &t.ungrounded),
                    decisions: translated.map_or_else(Vec::new, |t| {
                        t.grounding
                            .iter()
                            .map(|d| (d.path.as_str(), d.rule.name(), d.outcome.name()))
                            .collect()
                    }),
                    description,
                    arguments: translated.map_or_else(Vec::new, |t| {
                        t.calls.iter().map(|(_, args)| args.to_string()).collect()
                    }),
                },
            );
        }
        outcome
    }

    /// [`Pipe::grounded_in`] a conversation of its own: `translate --json`'s, whose evidence
    /// is the request text.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn grounded(
        &self,
        tool: &NlTool,
        description: &str,
        conversation: &str,
        outcome: Outcome,
        request_model: &str,
        client_headers: &HeaderMap,
        metrics: &Metrics,
    ) -> Outcome {
        let conversation = Said::new(conversation);
        self.grounded_in(
            tool,
            description,
            &conversation,
            outcome,
            request_model,
            client_headers,
            metrics,
        )
        .await
    }

    /// Grounding (see [`super::grounding`]): untraced optional values left out of each call
    /// (when the call stays valid without them); untraced required values (in `strict` mode
    /// every one, in `facts` mode the facts nobody can work out) asked back to the translator
    /// once, then a question for the main model.
    #[allow(clippy::too_many_arguments)]
    async fn grounded_in(
        &self,
        tool: &NlTool,
        description: &str,
        conversation: &Said,
        outcome: Outcome,
        request_model: &str,
        client_headers: &HeaderMap,
        metrics: &Metrics,
    ) -> Outcome {
        let mode = self.settings.grounding_for(&tool.name);
        if mode == Grounding::Off {
            return outcome;
        }
        let (date, _) = today(&self.settings.timezone);
        let translated = match outcome {
            Outcome::Calls(translated) => translated,
            Outcome::Clarification(question) => {
                return question_for_another_tool(tool, conversation, &date, question, metrics)
            }
            other => return other,
        };
        // The conversation alone: the description is the main model's claim about it.
        let facts = conversation.evidence(date.parse().unwrap_or_default());
        let (grounded, missing) = self.ground_calls(tool, &translated, &facts, metrics);
        let said = Conversation {
            said: conversation,
            day: date.parse().unwrap_or_default(),
            rules: self.rules(),
        };
        if let Some(wrong) = call_for_another(tool, &grounded, &translated, &said, metrics) {
            return wrong;
        }
        // Strict: every required value; facts: those nobody can work out (a number, a day, a
        // time, a weekday, a web or mail address), unless an image or a file may hold them.
        let asked = |missing: Vec<String>, calls: &Translated| match mode {
            Grounding::Strict => missing,
            Grounding::Facts if !conversation.opaque() => facts_among(missing, calls),
            _ => Vec::new(),
        };
        let missing = asked(missing, &translated);
        if missing.is_empty() {
            return Outcome::Calls(Arc::new(grounded));
        }
        // Once more, with the finding; then a question, never a guess.
        let finding = format!(
            "{description}\nNote: the request gives no value for {}. Do not invent one: if the request does not say it, answer with the question for the user.",
            missing.join(", ")
        );
        let mut attempts = Vec::new();
        let retried = self
            .translate_uncached(
                tool,
                &finding,
                request_model,
                client_headers,
                metrics,
                today(&self.settings.timezone),
                &mut attempts,
            )
            .await;
        if let Outcome::Calls(again) = &retried {
            let (grounded, still) = self.ground_calls(tool, again, &facts, metrics);
            if asked(still, again).is_empty() {
                return Outcome::Calls(Arc::new(grounded));
            }
        }
        // The translator's question, or plaincall's own for what nobody said: either is
        // about this tool, and goes back to the main model where the request is for another.
        let question = match retried {
            Outcome::Clarification(question) => question,
            _ => not_said(&missing),
        };
        question_for_another_tool(tool, conversation, &date, question, metrics)
    }

    /// One call the main model made itself, grounded as a translation is: `None` when, in
    /// `strict` mode, a required value is one nobody said.
    pub(crate) fn ground_one(
        &self,
        tool: &NlTool,
        args: Value,
        evidence: &Said,
        metrics: &Metrics,
    ) -> Option<Value> {
        let mode = self.settings.grounding_for(&tool.name);
        if mode == Grounding::Off {
            return Some(args);
        }
        let (date, _) = today(&self.settings.timezone);
        let facts = evidence.evidence(date.parse().unwrap_or_default());
        let single = Translated::single(args);
        let (grounded, missing) = self.ground_calls(tool, &single, &facts, metrics);
        if mode == Grounding::Strict && !missing.is_empty() {
            return None;
        }
        grounded.calls.into_iter().next().map(|(_, args)| args)
    }

    /// A valid call the main model wrote itself (to a tool only checked, or real arguments
    /// for a rewritten one), grounded once as a translation is: `None` when grounding is off
    /// for the tool. Its required values stay (the model's own valid call beats a question; a
    /// required member the conversation contradicts is replaced, as a translation's is), but
    /// under `strict` a rewritten tool's unsaid ones are asked about first
    /// ([`OwnGrounding::strictly_missing`]).
    pub(crate) fn ground_own(
        &self,
        tool: &NlTool,
        args: &Value,
        evidence: &Said,
    ) -> Option<OwnGrounding> {
        if self.settings.grounding_for(&tool.name) == Grounding::Off || !args.is_object() {
            return None;
        }
        let (date, _) = today(&self.settings.timezone);
        let facts = evidence.evidence(date.parse().unwrap_or_default());
        let mut delivered = args.clone();
        let replaced = self.members_named(tool, &mut delivered, &facts);
        let mut candidate = delivered.clone();
        let mut report = grounding::ground(&mut candidate, &tool.parameters, &facts, self.rules());
        mark_replaced(&mut report.decisions, &replaced);
        let gone = leave_out(&mut delivered, candidate, &report.dropped, &tool.validator);
        let strict = self.settings.grounding_for(&tool.name) == Grounding::Strict;
        let conversation = Conversation {
            said: evidence,
            day: date.parse().unwrap_or_default(),
            rules: self.rules(),
        };
        let for_another = nothing_said(tool, &report.decisions, &[args], &conversation);
        let not_said = match for_another {
            Some(_) => Vec::new(),
            None => facts_not_said(tool, &report.decisions, args, &conversation),
        };
        // Every required value nobody said, and each the schema's own example or a name the
        // conversation never wrote ("London" for "is it sunny enough to hang the laundry
        // out?"): made up whole. Not a command or a path, which a model works out.
        let required = required_unsaid(&tool.parameters, &report.decisions);
        let names_made_up = !required.is_empty()
            && !evidence.opaque()
            && required.iter().all(|name| {
                args.get(*name).and_then(Value::as_str).is_some_and(|text| {
                    copied_from_schema(tool, name, text, evidence.text()) || a_name(text)
                })
            });
        Some(OwnGrounding {
            for_another,
            not_said,
            names_made_up,
            replaced,
            needed: if strict {
                needed(&report, &gone)
            } else {
                Vec::new()
            },
            delivered,
            gone,
            decisions: report.decisions,
        })
    }

    /// `args` with each required enum member the conversation contradicts replaced by the one
    /// it names ([`grounding::said_members`]), where the call stays valid; the paths replaced.
    fn members_named(
        &self,
        tool: &NlTool,
        args: &mut Value,
        facts: &grounding::Evidence,
    ) -> Vec<String> {
        let mut candidate = args.clone();
        let replaced =
            grounding::said_members(&mut candidate, &tool.parameters, facts, self.rules());
        if replaced.is_empty() || !validate::errors(&tool.validator, &candidate).is_empty() {
            return Vec::new();
        }
        *args = candidate;
        replaced
    }

    /// The grounding rules in force (all but those `grounding_rules_off` names).
    fn rules(&self) -> grounding::Rules {
        grounding::Rules::from_config(&self.settings.grounding_rules_off)
    }

    /// Each call with its untraced optional values left out, and the required values no
    /// evidence traces.
    fn ground_calls(
        &self,
        tool: &NlTool,
        translated: &Translated,
        facts: &grounding::Evidence,
        metrics: &Metrics,
    ) -> (Translated, Vec<String>) {
        let mut out = translated.clone();
        let mut missing = Vec::new();
        out.grounding.clear();
        for (_, args) in &mut out.calls {
            let replaced = self.members_named(tool, args, facts);
            if !replaced.is_empty() {
                tracing::info!(
                    tool = %tool.name,
                    replaced = %replaced.join(", "),
                    "a required member the conversation contradicts is replaced by the one it names"
                );
            }
            let mut candidate = args.clone();
            let mut report =
                grounding::ground(&mut candidate, &tool.parameters, facts, self.rules());
            mark_replaced(&mut report.decisions, &replaced);
            let gone = leave_out(args, candidate, &report.dropped, &tool.validator);
            count_decisions(metrics, &report.decisions, &gone);
            metrics.grounding_dropped.inc_by(gone.len() as u64);
            missing.extend(needed(&report, &gone));
            out.grounding
                .extend(decisions_as_applied(report.decisions, &gone));
            out.ungrounded.extend(gone);
        }
        missing.sort();
        missing.dedup();
        (out, missing)
    }

    async fn translate_cached(
        &self,
        tool: &NlTool,
        description: &str,
        request_model: &str,
        client_headers: &HeaderMap,
        metrics: &Metrics,
    ) -> Outcome {
        let (model, _) = self.translator_label(request_model);
        let (date, weekday) = today(&self.settings.timezone);
        let key = CacheKey {
            tool: tool.name.clone(),
            schema_hash: tool.schema_hash,
            description: description.to_owned(),
            model,
            date: date.clone(),
        };
        let mut hit = self.cache.entries.get(&key).await;
        let shared_key = (hit.is_none() && self.cache.shared.is_enabled())
            .then(|| self.shared_cache_key(tool, description, &key, &weekday))
            .flatten();
        if let (None, Some(shared_key)) = (&hit, &shared_key) {
            hit = self.shared_translation(shared_key).await;
            if let Some(found) = &hit {
                self.cache.entries.insert(key.clone(), found.clone()).await;
            }
        }
        if let Some(hit) = hit {
            metrics.cache_hits.inc();
            metrics.translation(&tool.name, "ok");
            let mut translated = (*hit).clone();
            translated.from_cache = true;
            return Outcome::Calls(Arc::new(translated));
        }
        metrics.cache_misses.inc();
        let mut attempts = Vec::new();
        let outcome = self
            .translate_uncached(
                tool,
                description,
                request_model,
                client_headers,
                metrics,
                (date, weekday),
                &mut attempts,
            )
            .await;
        let label = match &outcome {
            Outcome::Calls(t) if t.attempts > 1 => "retried",
            Outcome::Calls(_) => "ok",
            Outcome::Clarification(_) => "clarification",
            Outcome::WrongTool(_) => "wrong_tool",
            Outcome::Failed(_) => "failed",
        };
        metrics.translation(&tool.name, label);
        if let Outcome::Calls(translated) = &outcome {
            if let (Some(shared_key), Ok(json)) = (shared_key, serde_json::to_vec(&**translated)) {
                self.cache.shared.put_later(
                    Space::Translation,
                    shared_key,
                    json.into(),
                    self.cache.ttl,
                );
            }
            self.cache.entries.insert(key, translated.clone()).await;
        }
        outcome
    }

    /// The key of a translation in Redis: a hash of everything the translator is given and
    /// of how it is asked (the rendered prompt holds the tool, its schema, the rules, the
    /// examples and the date), so that replicas share only what would come out the same.
    fn shared_cache_key(
        &self,
        tool: &NlTool,
        description: &str,
        key: &CacheKey,
        weekday: &str,
    ) -> Option<String> {
        let system = self
            .system_prompt(tool, key.date.clone(), weekday.to_owned())
            .ok()?;
        let settings = format!(
            "{}|{}|{}|{}",
            self.settings.temperature,
            self.settings.max_tokens,
            self.settings.attempts,
            self.settings.repair_turns
        );
        Some(hashed(&[
            env!("CARGO_PKG_VERSION"),
            &key.model,
            &settings,
            &system,
            description,
        ]))
    }

    /// A translation another replica made; Redis away or the entry unreadable: a miss.
    async fn shared_translation(&self, key: &str) -> Option<Arc<Translated>> {
        let json = self
            .cache
            .shared
            .get(Space::Translation, key)
            .await
            .ok()??;
        serde_json::from_slice::<Translated>(&json)
            .ok()
            .map(Arc::new)
    }

    /// Translates without the cache, recording every exchange in `attempts`.
    #[allow(clippy::too_many_arguments)]
    pub async fn translate_uncached(
        &self,
        tool: &NlTool,
        description: &str,
        request_model: &str,
        client_headers: &HeaderMap,
        metrics: &Metrics,
        (today, weekday): (String, String),
        attempts: &mut Vec<AttemptRecord>,
    ) -> Outcome {
        let date = today.parse().unwrap_or_default();
        let system = match self.system_prompt(tool, today, weekday) {
            Ok(text) => text,
            Err(error) => {
                return Outcome::Failed(format!("the translator prompt failed to render: {error}"))
            }
        };
        let read = self.warm_key(tool);
        let response_schema = grammar::response_schema(&tool.parameters);
        let mut messages = vec![
            json!({"role": "system", "content": system}),
            json!({"role": "user", "content": description}),
        ];
        // An invalid answer whose fault is a value nobody said (`insured_value: 0` under an
        // exclusive minimum) is fixed by leaving that value out, not by asking again.
        let facts = (self.settings.grounding_for(&tool.name) != Grounding::Off)
            .then(|| grounding::Evidence::new(description, date));
        let said = facts.as_ref().map(|facts| (facts, self.rules()));
        let mut last_errors = Vec::new();
        for attempt in 1..=self.settings.attempts {
            let reply = match self
                .translator
                .complete(
                    &messages,
                    &response_schema,
                    &tool.name,
                    request_model,
                    client_headers,
                    metrics,
                )
                .await
            {
                Ok(reply) => reply,
                // Every backend failed: another attempt now would fail the same way.
                Err(error) => return Outcome::Failed(error),
            };
            tracing::debug!(tool = %tool.name, backend = %reply.backend, attempt, "translator replied");
            // The backend has read this prompt: no warm-up needs to send it for a while.
            self.warmed.mark(read);
            let cut_off = reply.cut_off;
            let judged = judge(tool, &reply.text, attempt, said, &self.settings.timezone);
            attempts.push(AttemptRecord::of(reply, &judged));
            match judged {
                Attempt::Done(outcome) => return outcome,
                // A weak model that loops fills `max_tokens` again on a retry: no second wait.
                Attempt::Invalid { .. } if cut_off => {
                    return Outcome::Failed(format!(
                        "the translator's answer was cut off at translation.max_tokens ({}) before it was complete",
                        self.settings.max_tokens
                    ))
                }
                Attempt::Invalid { errors, answer } => {
                    tracing::info!(tool = %tool.name, attempt, errors = ?errors, "translation invalid");
                    if let Err(error) = self.ask_again(&mut messages, &errors, answer) {
                        return Outcome::Failed(error);
                    }
                    last_errors = errors;
                }
            }
        }
        Outcome::Failed(format!(
            "no valid arguments after {} attempt{}: {}",
            self.settings.attempts,
            if self.settings.attempts == 1 { "" } else { "s" },
            last_errors.join("; ")
        ))
    }

    /// The next attempt's messages: the first two, the invalid answer, and what was wrong
    /// with it.
    fn ask_again(
        &self,
        messages: &mut Vec<Value>,
        errors: &[String],
        answer: String,
    ) -> Result<(), String> {
        let retry = self
            .prompts
            .retry(errors, &crate::text::cut(&answer, PREVIOUS_ANSWER_LIMIT))
            .map_err(|error| format!("the retry prompt failed to render: {error}"))?;
        messages.truncate(2);
        messages.push(json!({"role": "assistant", "content": answer}));
        messages.push(json!({"role": "user", "content": retry}));
        Ok(())
    }

    /// The key under which `tool`'s prompt today counts as read by the first backend (see
    /// [`super::warm`]): what the prompt is made of, without rendering it.
    pub(crate) fn warm_key(&self, tool: &NlTool) -> u64 {
        use std::hash::{Hash, Hasher};
        let (date, _) = today(&self.settings.timezone);
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.translator.first_backend().hash(&mut hasher);
        (&tool.name, tool.schema_hash, &tool.description, date).hash(&mut hasher);
        hasher.finish()
    }

    /// Has the first backend read `tool`'s prompt (`key`, from [`Pipe::warm_key`]).
    pub(crate) async fn warm_up(&self, tool: &NlTool, key: u64) {
        let _turn = self.warmed.turn().await;
        // Read meanwhile (by a translation, or another request's warm-up).
        if self.warmed.contains(key) {
            return;
        }
        let (date, weekday) = today(&self.settings.timezone);
        let Ok(system) = self.system_prompt(tool, date, weekday) else {
            return;
        };
        let started = std::time::Instant::now();
        match self.translator.warm(&system).await {
            Ok(()) => {
                self.warmed.mark(key);
                let ms = started.elapsed().as_millis() as u64;
                tracing::debug!(tool = %tool.name, ms, "translator prompt read ahead");
            }
            Err(error) => {
                tracing::debug!(tool = %tool.name, %error, "translator prompt not read ahead")
            }
        }
    }

    /// The translator's system prompt for `tool`: constant instructions first, so that an
    /// server's prefix cache reuses them across tools.
    pub(crate) fn system_prompt(
        &self,
        tool: &NlTool,
        today: String,
        weekday: String,
    ) -> Result<String, crate::prompts::PromptError> {
        // Compact: pretty-printing costs tokens, and prompt evaluation dominates on a CPU.
        let schema_text = serde_json::to_string(&tool.parameters).unwrap_or_default();
        self.prompts.translator_system(&TranslatorContext {
            tool_name: &tool.name,
            tool_description: &tool.description,
            schema: schema_text,
            rules: schema_text::translator_rules(&tool.parameters),
            examples: self.prompts.examples(&tool.name),
            today,
            weekday,
            timezone: &self.settings.timezone_name,
        })
    }
}

/// A call the main model wrote itself, grounded ([`Pipe::ground_own`]).
pub(crate) struct OwnGrounding {
    /// The call with the optional values nobody said left out.
    pub delivered: Value,
    /// The paths left out.
    pub gone: Vec<String>,
    /// The paths of members replaced by the ones the conversation names.
    pub replaced: Vec<String>,
    /// Under `strict`, the values it cannot go without that the conversation does not hold.
    needed: Vec<String>,
    /// Why the call is for another request, when nothing the conversation says is among its
    /// values ([`nothing_said`]).
    pub for_another: Option<String>,
    /// The required values nobody said, when no required value is said and one of them is a
    /// number, a day or a time ([`facts_not_said`]): the main model is asked to ask.
    pub not_said: Vec<String>,
    /// Every required value is unsaid, and each is an example copied from the schema ("San
    /// Francisco, CA" for "Hi") or a name nobody wrote ("London"): nothing of it was worked
    /// out from the conversation.
    pub names_made_up: bool,
    decisions: Vec<grounding::Decision>,
}

impl OwnGrounding {
    /// Whether grounding changed the call.
    pub(crate) fn changed(&self) -> bool {
        !self.gone.is_empty() || !self.replaced.is_empty()
    }

    /// Whether the call does not go as the model wrote it: values left out or replaced, a
    /// question under `strict`, or a call for another request.
    pub(crate) fn goes_changed(&self, tool: &NlTool) -> bool {
        self.changed()
            || !self.strictly_missing(tool).is_empty()
            || self.for_another.is_some()
            || !self.not_said.is_empty()
    }

    /// The unsaid values a call to `tool` cannot go without, when it is rewritten and under
    /// `strict` grounding: a question, not a call. Empty otherwise.
    pub(crate) fn strictly_missing(&self, tool: &NlTool) -> &[String] {
        match tool.rewritten {
            true => &self.needed,
            false => &[],
        }
    }

    /// Counts its decisions by rule and outcome.
    pub(crate) fn count(&self, metrics: &Metrics) {
        count_decisions(metrics, &self.decisions, &self.gone);
    }
}

/// The decisions on the `replaced` paths say so.
fn mark_replaced(decisions: &mut [grounding::Decision], replaced: &[String]) {
    for decision in decisions.iter_mut() {
        if replaced.contains(&decision.path) {
            decision.outcome = grounding::Outcome::Replaced;
        }
    }
}

/// Counts each decision by rule and outcome; a left-out value grounding could not take out
/// (the call would break without it) counts as kept.
fn count_decisions(metrics: &Metrics, decisions: &[grounding::Decision], gone: &[String]) {
    for decision in decisions {
        let outcome = match decision.outcome {
            grounding::Outcome::LeftOut if !gone.contains(&decision.path) => {
                grounding::Outcome::Kept
            }
            other => other,
        };
        metrics.count_grounding(decision.rule.name(), outcome.name());
    }
}

/// The decisions as delivered: an untraced value that stays because leaving it out would
/// break the call says so.
fn decisions_as_applied<'a>(
    decisions: Vec<grounding::Decision>,
    gone: &'a [String],
) -> impl Iterator<Item = grounding::Decision> + 'a {
    decisions.into_iter().map(move |mut d| {
        if d.outcome == grounding::Outcome::LeftOut && !gone.contains(&d.path) {
            d.outcome = grounding::Outcome::Kept;
        }
        d
    })
}

/// Takes the untraced optional values (`dropped`, as paths) out of `args` where the call
/// stays valid, and returns the paths taken out. `grounded` is `args` with all of them out:
/// used when valid. Otherwise each goes on its own where the call stays valid without it,
/// so a value some condition of the schema requires stays (`at` of a daily reminder) and
/// the invented ones beside it still go (its `day_of_week`).
/// The values of a call no evidence traces that it cannot go without: the required ones, and
/// the optional ones whose absence the schema refuses (an `at` that a `then` requires for
/// `daily`), given the paths `gone` that could be left out.
fn needed(report: &grounding::Report, gone: &[String]) -> Vec<String> {
    let kept = report.dropped.iter().filter(|path| !gone.contains(path));
    report.missing.iter().chain(kept).cloned().collect()
}

fn leave_out(
    args: &mut Value,
    grounded: Value,
    dropped: &[String],
    validator: &jsonschema::Validator,
) -> Vec<String> {
    if dropped.is_empty() {
        return Vec::new();
    }
    if validate::errors(validator, &grounded).is_empty() {
        *args = grounded;
        return dropped.to_vec();
    }
    let mut gone = Vec::new();
    // Last first: an array item taken out does not move the ones before it.
    for path in dropped.iter().rev() {
        let mut trial = args.clone();
        if grounding::remove_at(&mut trial, path) && validate::errors(validator, &trial).is_empty()
        {
            *args = trial;
            gone.push(path.clone());
        }
    }
    gone.reverse();
    gone
}

/// Reads one translator answer: a call, several, a question, or what is wrong with it.
fn judge(
    tool: &NlTool,
    text: &str,
    attempt: u32,
    said: Option<(&grounding::Evidence, grounding::Rules)>,
    tz: &jiff::tz::TimeZone,
) -> Attempt {
    let Some(value) = extract_json(text) else {
        return Attempt::Invalid {
            errors: vec!["the answer is not a JSON object or array".into()],
            answer: text.to_owned(),
        };
    };
    let answer = value.to_string();
    if let Some(reason) = objection(&value) {
        return Attempt::Done(Outcome::WrongTool(reason));
    }
    if let Some(question) = clarification(&value) {
        return Attempt::Done(Outcome::Clarification(question));
    }
    let elements: Vec<Value> = match value {
        Value::Array(items) if items.is_empty() => {
            return Attempt::Invalid {
                errors: vec!["the answer is an empty array".into()],
                answer,
            }
        }
        Value::Array(items) => items,
        other => vec![other],
    };
    let total = elements.len();
    let mut calls = Vec::new();
    let mut errors = Vec::new();
    let mut ungrounded = Vec::new();
    for (index, element) in elements.into_iter().enumerate() {
        let mut args = unwrap_call_envelope(element, &tool.name, &tool.parameters);
        coerce_stringified(&mut args, &tool.parameters);
        for fixed in repair::repair(&mut args, &tool.parameters, tz) {
            tracing::debug!(tool = %tool.name, %fixed, "translator answer repaired");
        }
        let mut found = validate::errors(&tool.validator, &args);
        if let (false, Some((facts, rules))) = (found.is_empty(), said) {
            let mut candidate = args.clone();
            let report = grounding::ground(&mut candidate, &tool.parameters, facts, rules);
            if !report.dropped.is_empty()
                && validate::errors(&tool.validator, &candidate).is_empty()
            {
                args = candidate;
                found.clear();
                ungrounded.extend(report.dropped);
            }
        }
        if found.is_empty() {
            calls.push((index + 1, args));
        } else if total == 1 {
            errors.extend(found);
        } else {
            errors.extend(
                found
                    .into_iter()
                    .map(|e| format!("element {}: {e}", index + 1)),
            );
        }
    }
    if calls.is_empty() {
        return Attempt::Invalid { errors, answer };
    }
    Attempt::Done(Outcome::Calls(Arc::new(Translated {
        calls,
        total,
        dropped: errors,
        attempts: attempt,
        from_cache: false,
        ungrounded,
        grounding: Vec::new(),
        tool: None,
    })))
}

/// `{"error": "missing_info", "clarification_needed": "..."}`, leniently: any object with an
/// `error` key, its question (`clarification_needed` or `question`) or a generic one.
fn clarification(value: &Value) -> Option<String> {
    let object = value.as_object()?;
    object.get("error")?;
    let question = object
        .get("clarification_needed")
        .or_else(|| object.get("question"))
        .and_then(Value::as_str)
        .unwrap_or("Please provide more detail.");
    Some(question.to_owned())
}

/// `{"error": "wrong_tool", "reason": "..."}`: the translator finds the request is not for
/// this tool. Its reason, or a generic one.
fn objection(value: &Value) -> Option<String> {
    let object = value.as_object()?;
    (object.get("error")?.as_str()? == "wrong_tool").then(|| {
        object
            .get("reason")
            .and_then(Value::as_str)
            .filter(|r| !r.trim().is_empty())
            .unwrap_or("the request asks for something else")
            .to_owned()
    })
}

/// The text a translated call is remembered by (see [`super::history::Memory`]).
pub(crate) fn calls_key(calls: &[(usize, Value)]) -> String {
    if let [(_, single)] = calls {
        return canonical(single);
    }
    canonical(&Value::Array(
        calls.iter().map(|(_, v)| v.clone()).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_capitalized_words_of_letters() {
        for name in [
            "London",
            "San Francisco, CA",
            "New York, NY",
            "St. Louis",
            "O'Hare",
        ] {
            assert!(a_name(name), "{name}");
        }
        for other in [
            "cargo test",
            "README.md",
            "src/",
            "ls -la",
            "42",
            "",
            "a b c d e",
        ] {
            assert!(!a_name(other), "{other}");
        }
    }

    const UTC: jiff::tz::TimeZone = jiff::tz::TimeZone::UTC;

    fn tool() -> Result<NlTool, String> {
        let parameters = json!({
            "type": "object",
            "properties": {"kind": {"enum": ["daily", "weekly"]}, "day": {"type": "string"}, "mode": {"type": "string", "default": "x"}},
            "required": ["kind"],
            "additionalProperties": false,
            "allOf": [{"if": {"properties": {"kind": {"const": "weekly"}}}, "then": {"required": ["day"]}}]
        });
        let validators = validate::Validators::new(4);
        let validator = validators.get(1, &parameters)?;
        Ok(NlTool {
            name: "t".into(),
            reason: "test".into(),
            shown: String::new(),
            description: String::new(),
            parameters,
            schema_hash: 1,
            validator,
            rewritten: true,
            field: crate::pipe::NL_FIELD.to_owned(),
            check: crate::config::CheckMode::Translate,
        })
    }

    #[test]
    fn what_a_condition_requires_stays_and_the_rest_goes() -> Result<(), String> {
        let t = tool()?;
        let validator = &t.validator;
        // "weekly" requires `day`: it stays, the untraced `mode` beside it goes.
        let mut args = json!({"kind": "weekly", "day": "mon", "mode": "y"});
        let all_out = json!({"kind": "weekly"});
        let gone = leave_out(
            &mut args,
            all_out,
            &["day".into(), "mode".into()],
            validator,
        );
        assert_eq!(gone, ["mode"]);
        assert_eq!(args, json!({"kind": "weekly", "day": "mon"}));
        // Valid with all out: all go at once.
        let mut args = json!({"kind": "daily", "day": "mon", "mode": "y"});
        let all_out = json!({"kind": "daily"});
        let gone = leave_out(
            &mut args,
            all_out.clone(),
            &["day".into(), "mode".into()],
            validator,
        );
        assert_eq!(gone, ["day", "mode"]);
        assert_eq!(args, all_out);
        Ok(())
    }

    #[test]
    fn a_report_path_is_taken_out_where_it_points() {
        let mut value = json!({"a": {"b": [1, {"c": 2, "d": 3}]}, "e": 4});
        assert!(grounding::remove_at(&mut value, "a.b[1].c"));
        assert!(grounding::remove_at(&mut value, "e"));
        assert!(grounding::remove_at(&mut value, "a.b[0]"));
        assert_eq!(value, json!({"a": {"b": [{"d": 3}]}}));
        assert!(!grounding::remove_at(&mut value, "a.b[5]"));
        assert!(!grounding::remove_at(&mut value, "x.y"));
        assert!(!grounding::remove_at(&mut value, "a.b[x]"));
    }

    #[test]
    fn single_call_is_validated_and_defaults_kept() -> Result<(), String> {
        let t = tool()?;
        match judge(
            &t,
            "```json\n{\"kind\": \"daily\", \"mode\": \"x\"}\n```",
            1,
            None,
            &UTC,
        ) {
            Attempt::Done(Outcome::Calls(c)) => {
                // `mode` equals its schema default: the translator set it, so it stays.
                assert_eq!(c.calls, vec![(1, json!({"kind": "daily", "mode": "x"}))]);
                assert_eq!(c.total, 1);
            }
            _ => return Err("expected a call".into()),
        }
        match judge(&t, "{\"kind\": \"weekly\"}", 1, None, &UTC) {
            Attempt::Invalid { errors, .. } => assert!(errors[0].contains("day"), "{errors:?}"),
            _ => return Err("expected invalid".into()),
        }
        Ok(())
    }

    #[test]
    fn arrays_keep_valid_elements_and_report_the_rest() -> Result<(), String> {
        let t = tool()?;
        match judge(&t, "[{\"kind\": \"daily\"}, {\"kind\": \"weekly\"}, {\"kind\": \"weekly\", \"day\": \"mon\"}]", 2, None, &UTC) {
            Attempt::Done(Outcome::Calls(c)) => {
                assert_eq!(c.calls.iter().map(|(p, _)| *p).collect::<Vec<_>>(), vec![1, 3]);
                assert_eq!(c.total, 3);
                assert_eq!(c.attempts, 2);
                assert!(c.dropped[0].starts_with("element 2:"), "{:?}", c.dropped);
            }
            _ => return Err("expected calls".into()),
        }
        Ok(())
    }

    #[test]
    fn clarification_and_garbage() -> Result<(), String> {
        let t = tool()?;
        match judge(
            &t,
            "{\"error\": \"missing_info\", \"clarification_needed\": \"When?\"}",
            1,
            None,
            &UTC,
        ) {
            Attempt::Done(Outcome::Clarification(q)) => assert_eq!(q, "When?"),
            _ => return Err("expected a clarification".into()),
        }
        match judge(
            &t,
            r#"{"error": "wrong_tool", "reason": "a lock check"}"#,
            1,
            None,
            &UTC,
        ) {
            Attempt::Done(Outcome::WrongTool(r)) => assert_eq!(r, "a lock check"),
            _ => return Err("expected the objection".into()),
        }
        assert!(matches!(
            judge(&t, "I cannot do that.", 1, None, &UTC),
            Attempt::Invalid { .. }
        ));
        assert!(matches!(
            judge(&t, "[]", 1, None, &UTC),
            Attempt::Invalid { .. }
        ));
        Ok(())
    }
}
