//! One call of the main model resolved: a call to a tool plaincall handles is read (the
//! one-field form, real arguments, or cut off), translated or repaired, and becomes the
//! structured call(s) the client gets or the failure a repair turn reports. Both the
//! streaming and the whole-answer path resolve calls only through here.

use std::sync::Arc;

use http::HeaderMap;

use super::call_form::{read_call, translator_input, CallForm};
use super::described_format::{off_format, OffFormat};
use super::history::{fanout_id, Remembered};
use super::translate::{calls_key, today, Outcome, OwnGrounding, Translated};
use super::{grounding, repair, validate};
use super::{NlTool, Rewrite};
use crate::config::CheckMode;
use crate::metrics::AnsweredLabel;
use crate::openai;
use crate::openai::{RawObject, ToolCall};
use crate::pipe::engine::Engine;
use crate::telemetry::spans;
use tracing::Instrument;

/// What resolving a call needs, shared by the tasks that resolve a request's calls.
#[derive(Clone)]
pub(crate) struct Resolver {
    pub engine: Arc<Engine>,
    pub rewrite: Arc<Rewrite>,
    pub headers: Arc<HeaderMap>,
}

impl Resolver {
    /// Whether calls to `name` are held until complete and resolved here (rather than passed
    /// on as they come).
    pub(crate) fn holds(&self, name: &str) -> bool {
        self.rewrite.tools.handled(name).is_some()
    }

    pub(crate) async fn resolve(&self, call: ToolCall) -> Resolved {
        resolve_call(&self.engine, &self.rewrite, call, &self.headers).await
    }

    /// A call plaincall adds for an action the main model left out: translated from the
    /// user's words for it, whatever form the tool is shown in.
    pub(crate) async fn resolve_planned(&self, call: ToolCall, request: &str) -> Resolved {
        let Some(tool) = self.rewrite.tools.handled(&call.function.name) else {
            return Resolved::Kept(call);
        };
        let user = self.rewrite.user_message.as_deref();
        let earlier = self.rewrite.earlier_user.as_deref();
        let request =
            translator_input(tool, request, user, earlier).unwrap_or_else(|_| request.to_owned());
        let engine = &self.engine;
        let outcome = translation(engine, &self.rewrite, tool, &request, &self.headers).await;
        resolved_from(engine, tool, call, &request, outcome)
    }
}

/// One call of the main model after translation.
pub(crate) enum Resolved {
    /// Not a tool plaincall handles, or the main model's own valid call: passed on as it
    /// came, or with its unambiguous fixes, its described formats and its unsaid optional
    /// values applied ([`own_call`]).
    Kept(ToolCall),
    /// The structured call(s) that replace it.
    Translated(Vec<ToolCall>),
    /// Needs a repair turn: the main model's call and the tool message it gets.
    Failed {
        call: ToolCall,
        tool_message: String,
        reason: String,
    },
}

async fn resolve_call(
    engine: &Engine,
    rewrite: &Rewrite,
    mut call: ToolCall,
    client_headers: &HeaderMap,
) -> Resolved {
    let Some(tool) = rewrite.tools.handled(&call.function.name) else {
        return Resolved::Kept(call);
    };
    if call.id.is_empty() {
        call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
    }
    let tz = &engine.pipe.settings().timezone;
    let description = match read_call(tool, &call.function.arguments, tz) {
        CallForm::Description(text) => text,
        // A tool that is only checked, set to fix what is unambiguous: the rest goes back to
        // the main model with the errors.
        CallForm::Invalid(text) if !tool.rewritten && tool.check == CheckMode::Repair => {
            return Resolved::Failed {
                tool_message: format!("[INVALID ARGUMENTS] {text}"),
                reason: format!("the {} call's arguments are not valid", tool.name),
                call,
            }
        }
        CallForm::Invalid(text) => text,
        CallForm::Valid => return own_call(engine, rewrite, tool, call, None),
        CallForm::Repaired(arguments) => {
            return own_call(engine, rewrite, tool, call, Some(arguments))
        }
        CallForm::Unreadable => return unreadable(tool, call),
        CallForm::OffFormat { own, off } => {
            let fixed = formats_fixed(engine, rewrite, tool, &own, &off, client_headers).await;
            return own_call(engine, rewrite, tool, call, Some(fixed.unwrap_or(own)));
        }
    };
    let request = match translator_input(
        tool,
        &description,
        rewrite.user_message.as_deref(),
        rewrite.earlier_user.as_deref(),
    ) {
        Ok(request) => request,
        Err(tool_message) => {
            return Resolved::Failed {
                reason: format!("the {} call repeated the tool's text", tool.name),
                tool_message,
                call,
            }
        }
    };
    if let Some((previous, reason)) = rewrite.tried.previous(&tool.name, &request) {
        // The same words would get the same answer: say so instead of asking again.
        return Resolved::Failed {
            tool_message: format!(
                "{previous} Your description was the same as before, so it was not translated again: add the missing facts from the conversation, or ask the user for them."
            ),
            reason,
            call,
        };
    }
    let outcome = translated(engine, rewrite, tool, &request, client_headers).await;
    // A question depends only on the words: the same words would get the same question. (A
    // failed translator call may be transient, so it is not remembered.)
    let asked = matches!(outcome, Outcome::Clarification(_));
    let resolved = resolved_from(engine, tool, call, &description, outcome);
    if let (
        true,
        Resolved::Failed {
            tool_message,
            reason,
            ..
        },
    ) = (asked, &resolved)
    {
        rewrite
            .tried
            .record(&tool.name, &request, tool_message, reason);
    }
    resolved
}

/// The call's translation within the budget, then the direct ask when it failed or asks a
/// question (see [`no_dead_end`]), all under
/// the call's `translate` span, which says how it ended.
async fn translated(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    request: &str,
    client_headers: &HeaderMap,
) -> Outcome {
    let span = spans::translation(&tool.name, &tool.reason);
    let outcome = async {
        let pending = translation(engine, rewrite, tool, request, client_headers);
        let outcome = match within_budget(engine, rewrite, tool, client_headers, pending).await {
            Outcome::Clarification(question) => {
                let asked = Asked { request, question };
                answered_from_words(engine, rewrite, tool, asked, client_headers).await
            }
            // A tool the main model saw in full was its own choice: only its arguments are
            // the translator's job, and an objection to the tool says only that it could not
            // fix them.
            Outcome::WrongTool(reason) if !tool.rewritten => {
                tracing::info!(tool = %tool.name, %reason, "the translator objects to a tool the main model chose with its full schema; its arguments stay unfixed");
                Outcome::Failed(format!(
                    "the {} call's arguments do not fit its schema, and they could not be fixed from the conversation",
                    tool.name
                ))
            }
            // Told once, the main model called the tool again: it is asked for its own call
            // with the full schema below, as it would write one alone.
            Outcome::WrongTool(reason) if !rewrite.tried.first_objection(&tool.name) => {
                tracing::info!(tool = %tool.name, %reason, "the translator objects again after the main model was told; asking the main model directly");
                Outcome::Failed(format!("the translator found the request is not for {}: {reason}", tool.name))
            }
            other => other,
        };
        no_dead_end(engine, rewrite, tool, outcome, client_headers).await
    }
    .instrument(span.clone())
    .await;
    spans::record_resolution(
        &span,
        match &outcome {
            // The main model's own call, asked with the full schema.
            Outcome::Calls(t) if t.attempts == 0 => Ok("direct"),
            Outcome::Calls(_) => Ok("calls"),
            Outcome::Clarification(_) => Ok("clarification"),
            Outcome::WrongTool(_) => Ok("wrong_tool"),
            Outcome::Failed(error) => Err(error.as_str()),
        },
    );
    outcome
}

/// What a failed translation or a question becomes before it goes back: no dead end.
async fn no_dead_end(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    outcome: Outcome,
    client_headers: &HeaderMap,
) -> Outcome {
    // No dead end: a call the translator could not make is asked of the main model
    // itself, once, with the tool's whole schema; the failure is relayed only when that
    // fails too.
    match outcome {
        Outcome::Failed(error)
            if tool.rewritten
                && rewrite.prompt.is_none()
                && rewrite.tried.first_direct(&tool.name) =>
        {
            after_failure(
                tool,
                Outcome::Failed(error),
                direct_call(engine, rewrite, tool, client_headers).await,
            )
        }
        // A question ends the request, so it is asked only about a tool the main model
        // wants: shown as one text field, a tool looks fit for anything ("find a music
        // event" sent to a bus-ticket tool, then a question for the bus's departure). Shown
        // every tool in full, the main model may call another one instead: that call goes,
        // as it would from the model alone. Where it calls this tool again, the question
        // stands (its made-up value is what the question is about).
        Outcome::Clarification(question)
            if tool.rewritten
                && rewrite.prompt.is_none()
                && rewrite.tools.offers_another(&tool.name)
                && rewrite.tried.first_direct(&tool.name) =>
        {
            match direct_call(engine, rewrite, tool, client_headers).await {
                Some(direct) if direct.tool.is_some() => {
                    tracing::info!(tool = %tool.name, %question, "instead of a question about a tool it described, the main model, shown every tool in full, called another one");
                    Outcome::Calls(Arc::new(direct))
                }
                _ => Outcome::Clarification(question),
            }
        }
        other => other,
    }
}

/// A translator's question and the translator input it was asked about.
struct Asked<'a> {
    request: &'a str,
    question: String,
}

/// A question for what the user's messages of this exchange already hold (see
/// [`grounding::answered`], [`crate::pipe::Said::exchange`]) is not asked: the translation is tried once more, within the budget, with a line pointing out the
/// user's words for each field; when that still asks or fails, the main model is asked for
/// the call directly (where it may be). The question goes back only when the message holds
/// none of what it asks for, or both of those fail.
async fn answered_from_words(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    asked: Asked<'_>,
    client_headers: &HeaderMap,
) -> Outcome {
    let Asked { request, question } = asked;
    // The user's words since the assistant last called a tool: a fact said a message before
    // the latest ("every Monday at 8" ... "just: water the plants") answers it too, and one
    // said before a call that has been made answers nothing. (Where grounding read no
    // conversation, the latest user message.)
    let Some(user) = rewrite
        .evidence
        .exchange()
        .or(rewrite.user_message.as_deref())
        .filter(|u| !u.trim().is_empty())
    else {
        return Outcome::Clarification(question);
    };
    let (date, _) = today(&engine.pipe.settings().timezone);
    let found = grounding::answered(
        &question,
        &tool.parameters,
        user,
        date.parse().unwrap_or_default(),
    );
    if found.is_empty() {
        return Outcome::Clarification(question);
    }
    let fields = found
        .iter()
        .flat_map(|a| a.fields.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(", ");
    tracing::info!(tool = %tool.name, %question, %fields, "the translator asked for what the user's message holds: translating once more with those words pointed out");
    let pointed = found.iter().fold(request.to_owned(), |text, answer| {
        format!(
            "{text}\nThe user's message gives {} here: \"{}\"",
            answer.fields.join(", "),
            answer.sentence
        )
    });
    let pending = translation(engine, rewrite, tool, &pointed, client_headers);
    let outcome = match within_budget(engine, rewrite, tool, client_headers, pending).await {
        Outcome::Calls(translated) => Outcome::Calls(translated),
        _ if tool.rewritten
            && rewrite.prompt.is_none()
            && rewrite.tried.first_direct(&tool.name) =>
        {
            match direct_call(engine, rewrite, tool, client_headers).await {
                Some(direct) => Outcome::Calls(Arc::new(direct)),
                None => Outcome::Clarification(question),
            }
        }
        _ => Outcome::Clarification(question),
    };
    answered_counted(engine, tool, &fields, &outcome);
    outcome
}

/// Counts and logs how a question the user's message answers ended.
fn answered_counted(engine: &Engine, tool: &NlTool, fields: &str, outcome: &Outcome) {
    let label = match outcome {
        Outcome::Calls(t) if t.attempts == 0 => "direct",
        Outcome::Calls(_) => "translated",
        _ => "asked",
    };
    engine
        .metrics
        .clarifications_answered
        .get_or_create(&AnsweredLabel { outcome: label })
        .inc();
    match label {
        "asked" => {
            tracing::info!(tool = %tool.name, %fields, "the clarification could not be answered from the user's message either; it goes back to the main model")
        }
        how => {
            tracing::info!(tool = %tool.name, %fields, how, "a clarification was answered from the user's message")
        }
    }
}

/// The translation, within the request's budget (`translation.budget`). Past it, the main
/// model is asked for the call directly while the translation goes on: the first valid of the
/// two is delivered, so a slow translator costs no call that it would have made, and a
/// translation that fails, or objects to the tool, while the direct ask is out waits for that
/// answer: the direct ask, offering every tool, may bring the call the translation could not
/// (the failure or objection goes on only when it brings none).
async fn within_budget(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    client_headers: &HeaderMap,
    translation: impl std::future::Future<Output = Outcome>,
) -> Outcome {
    tokio::pin!(translation);
    tokio::select! {
        outcome = &mut translation => return outcome,
        () = tokio::time::sleep_until(rewrite.deadline) => {}
    }
    let may_ask =
        tool.rewritten && rewrite.prompt.is_none() && rewrite.tried.first_direct(&tool.name);
    if !may_ask {
        return translation.await;
    }
    tracing::info!(tool = %tool.name, "the request's translation budget ran out: asking the main model for the call directly while the translation goes on");
    let direct = direct_call(engine, rewrite, tool, client_headers);
    tokio::pin!(direct);
    tokio::select! {
        outcome = &mut translation => match outcome {
            // The direct ask is this tool's one: dropping it here would leave nothing.
            failed @ (Outcome::Failed(_) | Outcome::WrongTool(_)) => {
                after_failure(tool, failed, direct.await)
            }
            // A question waits for the direct ask too, as it would have been asked before
            // the question went back ([`no_dead_end`]): another tool's call goes instead.
            Outcome::Clarification(question) if rewrite.tools.offers_another(&tool.name) => {
                match direct.await {
                    Some(direct) if direct.tool.is_some() => Outcome::Calls(Arc::new(direct)),
                    _ => Outcome::Clarification(question),
                }
            }
            other => other,
        },
        answer = &mut direct => match answer {
            Some(direct) => {
                tracing::info!(tool = %tool.name, "the main model's own call, asked with every tool in full, is delivered");
                Outcome::Calls(Arc::new(direct))
            }
            None => translation.await,
        },
    }
}

/// A failed translation's outcome (a failure or an objection to the tool) once the direct ask
/// has answered: its call, or that outcome.
fn after_failure(tool: &NlTool, failed: Outcome, direct: Option<Translated>) -> Outcome {
    match direct {
        Some(direct) => {
            let after = match &failed {
                Outcome::WrongTool(reason) => format!("not for this tool: {reason}"),
                Outcome::Failed(error) => error.clone(),
                _ => String::new(),
            };
            tracing::info!(tool = %tool.name, %after, "translation failed; the main model's own call, asked with every tool in full, is delivered");
            Outcome::Calls(Arc::new(direct))
        }
        None => {
            tracing::info!(tool = %tool.name, "the main model's direct call failed too; the failure goes back to it");
            failed
        }
    }
}

/// The direct ask's request: the client's as the main model alone would get it, every tool
/// in full (the rewritten ones given their schemas back) and the client's own `tool_choice`,
/// so the main model may choose another tool than the one it described; not streamed, and its
/// length capped as a translator's answer is. Written from the request's own fields, without
/// a copy of its conversation.
fn direct_body(engine: &Engine, rewrite: &Rewrite) -> Option<bytes::Bytes> {
    // The client's limits, to be capped; then what the direct ask changes.
    let mut changes: RawObject = ["max_completion_tokens", "max_tokens"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), rewrite.body.get(key)?.clone())))
        .collect();
    let shown = openai::get::<Vec<RawObject>>(&rewrite.body, "tools").ok()??;
    let tools = shown
        .into_iter()
        .map(|definition| in_full(definition, &rewrite.tools))
        .collect::<Option<Vec<_>>>()?;
    openai::set(&mut changes, "tools", &tools).ok()?;
    openai::set(&mut changes, "stream", &false).ok()?;
    // One call's arguments, as a translator writes them: a model that loops here (seen with a
    // 1.5B on a grammar-bound schema, thousands of tokens) stops where a translator would.
    openai::cap_tokens(
        &mut changes,
        u64::from(engine.config.translation.max_tokens),
    )
    .ok()?;
    openai::to_bytes_with(
        &rewrite.body,
        &changes,
        &["stream_options", "n", "response_format"],
    )
    .ok()
}

/// A tool's definition as the main model sees it, with a rewritten tool's description and
/// schema put back; every other member as it was.
fn in_full(mut definition: RawObject, tools: &super::ToolSet) -> Option<RawObject> {
    let Some(tool) = openai::FunctionTool::read(&definition)
        .ok()?
        .and_then(|read| tools.get(&read.name).cloned().map(|tool| (read, tool)))
    else {
        return Some(definition);
    };
    let (read, tool) = tool;
    let mut function = read.function;
    openai::set(&mut function, "description", &tool.description).ok()?;
    openai::set(&mut function, "parameters", &tool.parameters).ok()?;
    openai::set(&mut definition, "function", &function).ok()?;
    Some(definition)
}

/// The main model asked once more, as it would be alone: with every tool's whole schema (see
/// [`direct_body`]). Its call to `tool`, or its one call to another tool the request offers
/// (then named by that tool), when it is valid (after the unambiguous fixes) and grounded for
/// a tool plaincall handles, else `None`.
async fn direct_call(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    client_headers: &HeaderMap,
) -> Option<Translated> {
    let bytes = direct_body(engine, rewrite)?;
    let asked = super::drive::ask_once(engine, bytes, rewrite, client_headers, spans::Turn::Direct);
    let (status, _, answer) = asked.await.ok()?;
    if !status.is_success() {
        return None;
    }
    // Read as every turn is (`chunks.rs`): a malformed answer is no call.
    let answer = super::chunks::Chunk::whole(serde_json::from_slice(&answer).ok()?).ok()?;
    let calls: Vec<&ToolCall> = answer
        .choices
        .iter()
        .find(|c| c.index == 0)?
        .calls
        .iter()
        .filter_map(|piece| match piece {
            super::chunks::CallPiece::Whole(call) => Some(call),
            super::chunks::CallPiece::Delta(_) => None,
        })
        .collect();
    // The described tool's one call where the answer holds one. Another tool's only where it
    // is the answer's one call: answering its whole turn again, the main model repeats the
    // calls it already made beside the described one (of this tool too), and they must not
    // go out twice.
    let mut own = calls.iter().filter(|c| c.function.name == tool.name);
    let call = match (own.next(), own.next(), calls.as_slice()) {
        (Some(call), None, _) => call,
        (None, _, [only]) if rewrite.tools.offers(&only.function.name) => only,
        _ => return None,
    };
    let mut args: serde_json::Value = serde_json::from_str(&call.function.arguments).ok()?;
    let mut direct = match rewrite.tools.handled(&call.function.name) {
        Some(chosen) => {
            // The one-field form again is no call.
            if openai::nl_description(&call.function.arguments, &chosen.field).is_some() {
                return None;
            }
            let tz = &engine.pipe.settings().timezone;
            repair::repair(&mut args, &chosen.parameters, tz);
            if !validate::errors(&chosen.validator, &args).is_empty() {
                return None;
            }
            let args = engine
                .pipe
                .ground_one(chosen, args, &rewrite.evidence, &engine.metrics)?;
            Translated::single(args)
        }
        // A tool plaincall does not handle: the call goes as the main model wrote it.
        None => Translated::single(args),
    };
    if call.function.name != tool.name {
        tracing::info!(tool = %tool.name, chosen = %call.function.name, "asked with every tool in full, the main model called another tool than the one it described");
        direct.tool = Some(call.function.name.clone());
    }
    Some(direct)
}

/// A valid call the main model wrote itself (`repaired`: its arguments after the unambiguous
/// fixes): delivered as it is, less the optional values nobody said and with a required
/// member the conversation contradicts replaced (see [`crate::pipe::Pipe::ground_own`]).
fn own_call(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    mut call: ToolCall,
    repaired: Option<serde_json::Value>,
) -> Resolved {
    let was_repaired = repaired.is_some();
    let args = match repaired {
        Some(args) => args,
        None => match serde_json::from_str(&call.function.arguments) {
            Ok(args) => args,
            Err(_) => return Resolved::Kept(call),
        },
    };
    let own = engine.pipe.ground_own(tool, &args, &rewrite.evidence);
    // Under `strict` grounding a required value nobody gave is a question, also where the
    // main model wrote it into a rewritten tool's real arguments itself.
    if let Some(missing) = own.as_ref().map(|own| own.strictly_missing(tool)) {
        if !missing.is_empty() {
            let question = crate::pipe::translate::not_said(missing);
            return Resolved::Failed {
                tool_message: format!("[TRANSLATION AMBIGUITY] {question}"),
                reason: format!("the {} call needs more information: {question}", tool.name),
                call,
            };
        }
    }
    // A call nothing the conversation says is in, made up whole for another request: the
    // main model is told once; should it call the tool again, its call goes as written.
    if let Some(reason) = own.as_ref().and_then(|own| own.for_another.as_deref()) {
        if rewrite.tried.first_objection_to_own(&tool.name) {
            engine.metrics.grounding_nothing_said.inc();
            tracing::info!(tool = %tool.name, %reason, "the main model's own call is for another request");
            return wrong_tool(tool, reason, call);
        }
    }
    // Its required facts all made up, a number, a day or a time among them: the main model
    // is asked to ask for them (or to pick the tool that fits), once.
    if let Some(missing) = own.as_ref().map(|own| own.not_said.as_slice()) {
        if !missing.is_empty() && rewrite.tried.first_objection_to_own(&tool.name) {
            engine.metrics.grounding_nothing_said.inc();
            tracing::info!(tool = %tool.name, not_said = %missing.join(", "), "the main model's own call holds no required value the user gave");
            return not_said(tool, missing, call);
        }
    }
    if let Some(own) = &own {
        own.count(&engine.metrics);
    }
    match own.filter(OwnGrounding::changed) {
        Some(own) => {
            engine
                .metrics
                .grounding_dropped
                .inc_by(own.gone.len() as u64);
            if !own.replaced.is_empty() {
                tracing::info!(
                    tool = %tool.name,
                    replaced = %own.replaced.join(", "),
                    "the main model's own call: a required member the conversation contradicts is replaced by the one it names"
                );
            }
            if !own.gone.is_empty() {
                tracing::info!(
                    tool = %tool.name,
                    left_out_unsaid = %own.gone.join(", "),
                    "the main model's own call is delivered without values the conversation never gave"
                );
            }
            call.function.arguments = own.delivered.to_string();
        }
        // Untouched, a valid call keeps the model's own text.
        None if was_repaired => call.function.arguments = args.to_string(),
        None => {}
    }
    Resolved::Kept(call)
}

/// The main model is told that `call` is not for `tool`, and why: a repair turn.
fn wrong_tool(tool: &NlTool, reason: &str, call: ToolCall) -> Resolved {
    let name = &tool.name;
    let reason = reason.trim_end_matches('.');
    Resolved::Failed {
        tool_message: format!(
            "[WRONG TOOL] This request is not for {name}: {reason}. Call the tool that does what the user asked, or answer without a tool; call {name} again only if it is right after all."
        ),
        reason: format!("the {name} call is not for this tool: {reason}"),
        call,
    }
}

/// The main model is told that the user gave none of the required values `missing` of its
/// call to `tool`: a repair turn that asks it to ask, or to pick the tool that fits.
fn not_said(tool: &NlTool, missing: &[String], call: ToolCall) -> Resolved {
    let name = &tool.name;
    let fields = missing.join(", ");
    let them = if missing.len() == 1 { "it" } else { "them" };
    Resolved::Failed {
        tool_message: format!(
            "[NOT SAID] The user did not give {fields}: ask the user for {them} rather than guess, or call the tool that does what the user asked, or answer without a tool; call {name} again only if the user gave {them} after all."
        ),
        reason: format!("the {name} call holds no required value the user gave ({fields})"),
        call,
    }
}

/// A valid call's values that are not in the format their descriptions ask (`"Phoenix"` for
/// `'City, State'`), written again by the translator: the call with those values replaced
/// where the translator's are in the format, or `None` (the call goes as it is) when none is,
/// the translation fails, or the request's translation budget runs out first. Nothing else of
/// the main model's call changes.
async fn formats_fixed(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    own: &serde_json::Value,
    off: &[OffFormat],
    client_headers: &HeaderMap,
) -> Option<serde_json::Value> {
    // The values to write again in words, not in the JSON: given as JSON, a small translator
    // copies them as they are.
    let mut rest = own.clone();
    let mut said = Vec::new();
    for value in off {
        let (parent, key) = value
            .pointer
            .rsplit_once('/')
            .unwrap_or(("", value.pointer.as_str()));
        if let Some(serde_json::Value::Object(members)) = rest.pointer_mut(parent) {
            members.remove(&key.replace("~1", "/").replace("~0", "~"));
        }
        said.push(format!("{}: {}", value.name(), value.value));
    }
    let request = format!("Call {} with {rest} and {}", tool.name, said.join(", "));
    let request = translator_input(
        tool,
        &request,
        rewrite.user_message.as_deref(),
        rewrite.earlier_user.as_deref(),
    )
    .ok()?;
    let pending = translation(engine, rewrite, tool, &request, client_headers);
    let Ok(Outcome::Calls(translated)) = tokio::time::timeout_at(rewrite.deadline, pending).await
    else {
        tracing::info!(tool = %tool.name, "a value not in its described format could not be fixed in time or at all; the call goes as the main model wrote it");
        return None;
    };
    let (_, theirs) = translated.calls.first()?;
    let still_off: Vec<String> = off_format(&tool.parameters, theirs)
        .into_iter()
        .map(|o| o.pointer)
        .collect();
    let mut fixed = own.clone();
    let mut changed = Vec::new();
    for value in off {
        let Some(better) = theirs.pointer(&value.pointer).filter(|v| v.is_string()) else {
            continue;
        };
        if still_off.contains(&value.pointer) {
            continue;
        }
        if let Some(slot) = fixed.pointer_mut(&value.pointer) {
            *slot = better.clone();
            changed.push(value.pointer.trim_start_matches('/').to_owned());
        }
    }
    if changed.is_empty() || !validate::errors(&tool.validator, &fixed).is_empty() {
        return None;
    }
    engine
        .metrics
        .described_format_fixed
        .inc_by(changed.len() as u64);
    tracing::info!(tool = %tool.name, fixed = %changed.join(", "), "values of the main model's call put in the format their descriptions ask");
    Some(fixed)
}

/// The translation of `request` for `tool`, in this request's context.
async fn translation(
    engine: &Engine,
    rewrite: &Rewrite,
    tool: &NlTool,
    request: &str,
    client_headers: &HeaderMap,
) -> Outcome {
    engine
        .pipe
        .translate(
            tool,
            request,
            &rewrite.evidence,
            &rewrite.model,
            client_headers,
            &engine.metrics,
        )
        .await
}

/// A call whose arguments cannot be read: the main model is asked for it again.
fn unreadable(tool: &NlTool, call: ToolCall) -> Resolved {
    let name = &tool.name;
    let tool_message = match tool.rewritten {
        true => format!("[TRANSLATION ERROR] The {name} call was cut off or is not JSON. Call {name} again with one field, `description`: a short plain-English request with every value it needs."),
        false => format!("[INVALID ARGUMENTS] The {name} call's arguments were cut off or are not a JSON object. Call {name} again with complete arguments."),
    };
    Resolved::Failed {
        tool_message,
        reason: format!("the {name} call could not be read"),
        call,
    }
}

fn resolved_from(
    engine: &Engine,
    tool: &NlTool,
    call: ToolCall,
    description: &str,
    outcome: Outcome,
) -> Resolved {
    match outcome {
        Outcome::Calls(translated) => {
            // Only a rewritten tool's calls are turned back into descriptions next turn; a
            // call to another tool goes back as its arguments' summary.
            if tool.rewritten && translated.tool.is_none() {
              engine.pipe.memory.remember(
                &tool.name,
                calls_key(&translated.calls),
                Remembered {
                    description: description.to_owned(),
                    dropped: translated.dropped.clone(),
                },
              );
            }
            let fanned = translated.total > 1;
            let calls = translated
                .calls
                .iter()
                .map(|(position, args)| {
                    let mut out = call.clone();
                    out.extra.remove("index");
                    if fanned {
                        out.id = fanout_id(&call.id, *position, translated.total);
                    }
                    out.function.arguments = args.to_string();
                    if let Some(other) = &translated.tool {
                        out.function.name.clone_from(other);
                    }
                    out
                })
                .collect();
            Resolved::Translated(calls)
        }
        Outcome::Clarification(question) => Resolved::Failed {
            tool_message: format!("[TRANSLATION AMBIGUITY] {question}"),
            reason: format!("the {} call needs more information: {question}", tool.name),
            call,
        },
        Outcome::WrongTool(reason) => wrong_tool(tool, &reason, call),
        Outcome::Failed(error) => Resolved::Failed {
            tool_message: format!(
                "[TRANSLATION ERROR] {error}. Describe the call again with every detail it needs, or ask the user."
            ),
            reason: format!("the {} call could not be translated: {error}", tool.name),
            call,
        },
    }
}
