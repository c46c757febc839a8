//! Several actions asked for in one message, fewer calls made: a weak main model often calls
//! one tool and drops the rest of the request ("book the hotel and find a cab"). After the
//! main model's first turn with calls, the translator lists the actions of the user's latest
//! message, one tool each (listing is a task a small model does better than telling what is
//! missing); where it lists more actions for a tool than calls were made to it, the extra ones
//! become calls of their own, translated like any other. Bounded: one question per request
//! (and only with one choice), at most [`MAX_ACTIONS`] actions, only tools plaincall handles; a
//! failed question or
//! translation adds nothing and never blocks the real calls, and an added call that repeats
//! one already in the turn is dropped.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::extract::extract_json;
use super::resolve::{Resolved, Resolver};
use crate::openai::ToolCall;

/// The most calls one question may add.
const MAX_ACTIONS: usize = 8;
/// The most of a tool's description shown in the list.
const DESCRIPTION_SHOWN: usize = 200;

/// One action of the user's message: the tool, and the user's words for it.
#[derive(Debug, PartialEq)]
pub(crate) struct Action {
    pub tool: String,
    pub request: String,
}

/// Whether to ask at all: on, one choice, a user message to read, calls made, and a tool
/// plaincall handles (another the calls could have used, or the same again).
pub(crate) fn applies(resolver: &Resolver, calls_made: bool) -> bool {
    let rewrite = &resolver.rewrite;
    resolver.engine.pipe.settings().split_actions
        && rewrite.choices == 1
        && rewrite.user_message.is_some()
        && calls_made
        && rewrite.tools.handled_names().next().is_some()
}

/// The calls for the actions that `made` leaves out, translated; failures and repeats are
/// dropped.
pub(crate) async fn missing_calls(resolver: Resolver, made: Vec<ToolCall>) -> Resolved {
    let listed = listed_actions(&resolver).await;
    let actions = left_out(listed, &made);
    tracing::info!(
        made = made.len(),
        added = actions.len(),
        "listed the actions of the user's message"
    );
    let mut calls = Vec::new();
    for action in actions {
        let mut translated = Vec::new();
        let field = resolver
            .rewrite
            .tools
            .get(&action.tool)
            .map_or(super::NL_FIELD, |tool| tool.field.as_str());
        let mut arguments = serde_json::Map::new();
        arguments.insert(field.to_owned(), json!(action.request));
        let call = ToolCall::new(
            format!("call_{}", uuid::Uuid::new_v4().simple()),
            action.tool.clone(),
            Value::Object(arguments).to_string(),
        );
        match resolver.resolve_planned(call, &action.request).await {
            Resolved::Translated(more) => translated.extend(more),
            Resolved::Kept(call) => translated.push(call),
            Resolved::Failed { reason, .. } => {
                tracing::info!(tool = %action.tool, %reason, "a split action was dropped");
            }
        }
        for call in translated {
            if !repeats(&call, made.iter().chain(&calls)) {
                calls.push(call);
            }
        }
    }
    Resolved::Translated(calls)
}

/// Whether `call` is one of `others` again: same tool, same arguments as JSON values (key
/// order and spacing aside). The list often names an action the main model already called,
/// in other words; its translation then repeats that call, and running it twice is wrong.
fn repeats<'a>(call: &ToolCall, mut others: impl Iterator<Item = &'a ToolCall>) -> bool {
    let arguments = |c: &ToolCall| serde_json::from_str::<Value>(&c.function.arguments).ok();
    let mine = arguments(call);
    others.any(|other| {
        other.function.name == call.function.name
            && match (&mine, arguments(other)) {
                (Some(a), Some(b)) => *a == b,
                _ => other.function.arguments == call.function.arguments,
            }
    })
}

async fn listed_actions(resolver: &Resolver) -> Vec<Action> {
    let rewrite = &resolver.rewrite;
    let Some(user) = rewrite.user_message.as_deref() else {
        return Vec::new();
    };
    let names: Vec<&str> = rewrite.tools.handled_names().collect();
    let messages = question(resolver, user);
    let state = &resolver.engine;
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
        Ok(reply) => read_answer(&reply.text, &names),
        Err(error) => {
            tracing::warn!(%error, "could not list the actions of the user's message");
            Vec::new()
        }
    }
}

/// The listed actions beyond the calls made: per tool, those after the first as many as it
/// got calls, in the listed order.
pub(crate) fn left_out(listed: Vec<Action>, made: &[ToolCall]) -> Vec<Action> {
    let mut calls: HashMap<&str, usize> = HashMap::new();
    for call in made {
        *calls.entry(call.function.name.as_str()).or_default() += 1;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    listed
        .into_iter()
        .filter(|action| {
            let n = seen.entry(action.tool.clone()).or_default();
            *n += 1;
            *n > calls.get(action.tool.as_str()).copied().unwrap_or(0)
        })
        .collect()
}

fn question(resolver: &Resolver, user: &str) -> Vec<Value> {
    let tools = &resolver.rewrite.tools;
    let mut listed = String::new();
    for name in tools.handled_names() {
        let description = tools
            .handled(name)
            .map(|t| bounded(&t.description, DESCRIPTION_SHOWN))
            .unwrap_or_default();
        listed.push_str(&format!("- {name}: {description}\n"));
    }
    let system = format!(
        "You list the actions a user's message asks for, one tool call each.\n\
         Tools:\n{listed}\n\
         Answer with JSON only: {{\"actions\": [{{\"tool\": \"<tool name>\", \"request\": \"<the user's words for that one action, with every value it needs>\"}}]}}, \
         in the order the user gave them. One entry per separate action: the same tool twice \
         when the user asks for it twice (two cities, two dates, two items). List only what the \
         user asked for, with the tools above; answer {{\"actions\": []}} when no tool fits."
    );
    vec![
        json!({"role": "system", "content": system}),
        json!({"role": "user", "content": format!("User's message: {user}")}),
    ]
}

fn answer_schema(names: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {"actions": {"type": "array", "maxItems": MAX_ACTIONS, "items": {
            "type": "object",
            "properties": {"tool": {"enum": names}, "request": {"type": "string"}},
            "required": ["tool", "request"]
        }}},
        "required": ["actions"]
    })
}

/// The actions in the translator's answer: known tools, non-empty requests, no repeats, at
/// most [`MAX_ACTIONS`]. Anything unreadable is no action.
fn read_answer(text: &str, names: &[&str]) -> Vec<Action> {
    let Some(answer) = extract_json(text) else {
        return Vec::new();
    };
    let items = match &answer {
        Value::Object(map) => map.get("actions").and_then(Value::as_array),
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
        let text = r#"Sure: {"actions": [
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
        assert!(read_answer(r#"{"actions": []}"#, &names).is_empty());
        let many: Vec<Value> = (0..20)
            .map(|i| json!({"tool": "find_cab", "request": format!("cab {i}")}))
            .collect();
        let text = json!({ "actions": many }).to_string();
        assert_eq!(read_answer(&text, &names).len(), MAX_ACTIONS);
    }

    #[test]
    fn only_actions_beyond_the_calls_made_are_left_out() {
        let action = |tool: &str, request: &str| Action {
            tool: tool.into(),
            request: request.into(),
        };
        let made = vec![
            ToolCall::new("a".into(), "weather".into(), "{}".into()),
            ToolCall::new("b".into(), "weather".into(), "{}".into()),
        ];
        let listed = vec![
            action("weather", "Paris"),
            action("cab", "to the airport"),
            action("weather", "Rome"),
            action("weather", "Oslo"),
        ];
        assert_eq!(
            left_out(listed, &made),
            vec![action("cab", "to the airport"), action("weather", "Oslo")]
        );
        assert!(left_out(vec![action("weather", "Paris")], &made).is_empty());
    }

    #[test]
    fn a_call_repeating_another_is_recognised_whatever_its_spacing() {
        let call =
            |name: &str, arguments: &str| ToolCall::new("x".into(), name.into(), arguments.into());
        let made = [
            call("weather", r#"{"city": "Paris", "unit": "c"}"#),
            call("cab", "not json"),
        ];
        assert!(repeats(
            &call("weather", r#"{"unit":"c","city":"Paris"}"#),
            made.iter()
        ));
        assert!(!repeats(
            &call("weather", r#"{"city":"Rome","unit":"c"}"#),
            made.iter()
        ));
        assert!(!repeats(
            &call("forecast", r#"{"city":"Paris","unit":"c"}"#),
            made.iter()
        ));
        assert!(repeats(&call("cab", "not json"), made.iter()));
        assert!(!repeats(&call("cab", "{}"), made.iter()));
    }

    #[test]
    fn bounds_text_on_a_character_boundary() {
        assert_eq!(bounded("héllo", 2), "hé...");
        assert_eq!(bounded("hé", 2), "hé");
    }
}
