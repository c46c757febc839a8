//! One call of the main model resolved: a call to a tool plaincall handles is read (the
//! one-field form, real arguments, or cut off), translated or repaired, and becomes the
//! structured call(s) the client gets or the failure a repair turn reports. Both the
//! streaming and the whole-answer path resolve calls only through here.

use std::sync::Arc;

use http::HeaderMap;

use super::call_form::{read_call, translator_input, CallForm};
use super::history::{fanout_id, Remembered};
use super::translate::{calls_key, Outcome};
use super::{NlTool, Rewrite};
use crate::config::CheckMode;
use crate::openai::ToolCall;
use crate::pipe::engine::Engine;

/// What resolving a call needs, shared by the tasks that resolve a request's calls.
#[derive(Clone)]
pub struct Resolver {
    pub engine: Arc<Engine>,
    pub rewrite: Arc<Rewrite>,
    pub headers: Arc<HeaderMap>,
}

impl Resolver {
    /// Whether calls to `name` are held until complete and resolved here (rather than passed
    /// on as they come).
    pub fn holds(&self, name: &str) -> bool {
        self.rewrite.tools.handled(name).is_some()
    }

    pub async fn resolve(&self, call: ToolCall) -> Resolved {
        resolve_call(&self.engine, &self.rewrite, call, &self.headers).await
    }

    /// A call plaincall adds for an action the main model left out: translated from the
    /// user's words for it, whatever form the tool is shown in.
    pub async fn resolve_planned(&self, call: ToolCall, request: &str) -> Resolved {
        let Some(tool) = self.rewrite.tools.handled(&call.function.name) else {
            return Resolved::Kept(call);
        };
        let user = self.rewrite.user_message.as_deref();
        let request = translator_input(tool, request, user).unwrap_or_else(|_| request.to_owned());
        let engine = &self.engine;
        let outcome = engine
            .pipe
            .translate(
                tool,
                &request,
                &self.rewrite.evidence,
                &self.rewrite.model,
                &self.headers,
                &engine.metrics,
            )
            .await;
        resolved_from(engine, tool, call, &request, outcome)
    }
}

/// One call of the main model after translation.
pub enum Resolved {
    /// Not a rewritten tool, or not in plain-English form: passed on as it came.
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

pub async fn resolve_call(
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
    let description = match read_call(tool, &call.function.arguments) {
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
        CallForm::Valid => return Resolved::Kept(call),
        CallForm::Repaired(arguments) => {
            call.function.arguments = arguments.to_string();
            return Resolved::Kept(call);
        }
        CallForm::Unreadable => return unreadable(tool, call),
    };
    let request = match translator_input(tool, &description, rewrite.user_message.as_deref()) {
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
    let outcome = engine
        .pipe
        .translate(
            tool,
            &request,
            &rewrite.evidence,
            &rewrite.model,
            client_headers,
            &engine.metrics,
        )
        .await;
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
            // Only a rewritten tool's calls are turned back into descriptions next turn.
            if tool.rewritten {
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
        Outcome::Failed(error) => Resolved::Failed {
            tool_message: format!(
                "[TRANSLATION ERROR] {error}. Describe the call again with every detail it needs, or ask the user."
            ),
            reason: format!("the {} call could not be translated: {error}", tool.name),
            call,
        },
    }
}
