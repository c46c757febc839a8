//! Several actions asked for in one message, fewer calls made: a weak main model often calls
//! one tool and drops the rest of the request ("book the hotel and find a cab"). After the
//! main model's first turn with calls, the translator is asked which actions of the user's
//! latest message no call covers; each becomes a call of its own, translated like any other.
//! Bounded: one question per choice, at most [`MAX_ACTIONS`] actions, only to tools plaincall
//! handles; a failed question or translation adds nothing and never blocks the real calls.

use serde_json::{json, Value};

use super::extract::extract_json;
use super::resolve::{Resolved, Resolver};
use crate::openai::ToolCall;

/// The most calls one question may add.
pub const MAX_ACTIONS: usize = 8;
/// The most of a call's arguments shown to the translator.
const ARGUMENTS_SHOWN: usize = 400;
/// The most of a tool's description shown in the list.
const DESCRIPTION_SHOWN: usize = 200;

/// One action the calls left out: the tool, and the user's words for it.
#[derive(Debug, PartialEq)]
pub struct Action {
    pub tool: String,
    pub request: String,
}

/// Whether to ask at all: on, a user message to read, calls made, and another tool they could
/// have used or the same tool again.
pub fn applies(resolver: &Resolver, made: &[ToolCall]) -> bool {
    let rewrite = &resolver.rewrite;
    resolver.state.pipe.settings().split_actions
        && rewrite.choices == 1
        && rewrite.user_message.is_some()
        && !made.is_empty()
        && rewrite.tools.handled_names().next().is_some()
}

/// The calls for the actions that `made` leaves out, translated; failures are dropped.
pub async fn missing_calls(resolver: Resolver, made: Vec<ToolCall>) -> Resolved {
    let actions = missing_actions(&resolver, &made).await;
    let mut calls = Vec::new();
    for action in actions {
        let call = ToolCall::new(
            format!("call_{}", uuid::Uuid::new_v4().simple()),
            action.tool.clone(),
            json!({"description": action.request}).to_string(),
        );
        match resolver.resolve_planned(call, &action.request).await {
            Resolved::Translated(more) => calls.extend(more),
            Resolved::Kept(call) => calls.push(call),
            Resolved::Failed { reason, .. } => {
                tracing::info!(tool = %action.tool, %reason, "a split action was dropped");
            }
        }
    }
    Resolved::Translated(calls)
}

async fn missing_actions(resolver: &Resolver, made: &[ToolCall]) -> Vec<Action> {
    let rewrite = &resolver.rewrite;
    let Some(user) = rewrite.user_message.as_deref() else {
        return Vec::new();
    };
    let names: Vec<&str> = rewrite.tools.handled_names().collect();
    let messages = question(resolver, user, made);
    let state = &resolver.state;
    let reply = state
        .pipe
        .translator
        .complete(
            &messages,
            &answer_schema(&names),
            "split",
            &rewrite.model,
            &resolver.headers,
            &state.metrics,
        )
        .await;
    match reply {
        Ok(reply) => {
            let actions = read_answer(&reply.text, &names);
            tracing::info!(
                made = made.len(),
                added = actions.len(),
                "asked which actions the calls left out"
            );
            actions
        }
        Err(error) => {
            tracing::warn!(%error, "could not ask which actions the calls left out");
            Vec::new()
        }
    }
}

fn question(resolver: &Resolver, user: &str, made: &[ToolCall]) -> Vec<Value> {
    let tools = &resolver.rewrite.tools;
    let mut listed = String::new();
    for name in tools.handled_names() {
        let description = tools
            .handled(name)
            .map(|t| bounded(&t.description, DESCRIPTION_SHOWN))
            .unwrap_or_default();
        listed.push_str(&format!("- {name}: {description}\n"));
    }
    let mut calls = String::new();
    for call in made {
        calls.push_str(&format!(
            "- {}({})\n",
            call.function.name,
            bounded(&call.function.arguments, ARGUMENTS_SHOWN)
        ));
    }
    let system = format!(
        "You check that every action a user asked for gets its own tool call.\n\
         Tools:\n{listed}\n\
         Answer with JSON only: {{\"missing\": [{{\"tool\": \"<tool name>\", \"request\": \"<the user's words for that one action, with every value it needs>\"}}]}}.\n\
         List an action only when the user clearly asked for it and no call made covers it: a \
         second city, date or item for the same tool is a missing action too. When the calls \
         made cover the whole message, answer {{\"missing\": []}}."
    );
    let user_turn = format!("User's message: {user}\n\nCalls made:\n{calls}");
    vec![
        json!({"role": "system", "content": system}),
        json!({"role": "user", "content": user_turn}),
    ]
}

fn answer_schema(names: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {"missing": {"type": "array", "maxItems": MAX_ACTIONS, "items": {
            "type": "object",
            "properties": {"tool": {"enum": names}, "request": {"type": "string"}},
            "required": ["tool", "request"]
        }}},
        "required": ["missing"]
    })
}

/// The actions in the translator's answer: known tools, non-empty requests, no repeats, at
/// most [`MAX_ACTIONS`]. Anything unreadable is no action.
pub fn read_answer(text: &str, names: &[&str]) -> Vec<Action> {
    let Some(answer) = extract_json(text) else {
        return Vec::new();
    };
    let items = match &answer {
        Value::Object(map) => map.get("missing").and_then(Value::as_array),
        Value::Array(items) => Some(items),
        _ => None,
    };
    let mut actions: Vec<Action> = Vec::new();
    for item in items.into_iter().flatten() {
        let tool = item.get("tool").and_then(Value::as_str).unwrap_or_default();
        let request = item
            .get("request")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default();
        let action = Action {
            tool: tool.to_owned(),
            request: request.to_owned(),
        };
        if names.contains(&tool) && !request.is_empty() && !actions.contains(&action) {
            actions.push(action);
        }
        if actions.len() == MAX_ACTIONS {
            break;
        }
    }
    actions
}

fn bounded(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_known_tools_without_repeats_and_bounded() {
        let names = ["book_hotel", "find_cab"];
        let text = r#"Sure: {"missing": [
            {"tool": "find_cab", "request": "a cab to the airport"},
            {"tool": "find_cab", "request": "a cab to the airport"},
            {"tool": "rm_rf", "request": "everything"},
            {"tool": "book_hotel", "request": "  "}
        ]}"#;
        assert_eq!(
            read_answer(text, &names),
            vec![Action {
                tool: "find_cab".into(),
                request: "a cab to the airport".into()
            }]
        );
        assert!(read_answer("no idea", &names).is_empty());
        assert!(read_answer(r#"{"missing": []}"#, &names).is_empty());
        let many: Vec<Value> = (0..20)
            .map(|i| json!({"tool": "find_cab", "request": format!("cab {i}")}))
            .collect();
        let text = json!({ "missing": many }).to_string();
        assert_eq!(read_answer(&text, &names).len(), MAX_ACTIONS);
    }

    #[test]
    fn bounds_text_on_a_character_boundary() {
        assert_eq!(bounded("héllo", 2), "hé...");
        assert_eq!(bounded("hé", 2), "hé");
    }
}
