//! The shared plain-English cases run through the whole pipe. The translator is a mock that
//! answers each case's expected arguments, so a call coming back equal to them would prove
//! nothing; what is asserted is what plaincall does around that answer:
//! - the main model is shown the tool in its one-field form (its name and purpose, one required
//!   string field) and the user's words as they were;
//! - the translator is sent the case's words as the request, with a system prompt that names
//!   the tool and carries its full schema, and a `json_schema` response format that admits the
//!   case's expected answer (a translator held to that format could write it);
//! - grounding: the translator's answer also carries an optional value the case never says
//!   (every tool but `add_skill`, which has no optional property), and that value is left out
//!   (counted in `plaincall_grounding_dropped_total`) while every value the case says is kept;
//! - the delivered calls are valid against the full schema, under the main model's call id
//!   (`<id>__<k>of<n>` when an answer fans out into several actions);
//! - a clarification goes back to the main model as a `[TRANSLATION AMBIGUITY]` tool result,
//!   and the client gets the main model's question, not a call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, completion, fixture_tool, text_message, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

pub fn cases() -> Vec<Value> {
    let path = format!("{}/tests/fixtures/cases.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What a good translator answers for a case. A `partial` case names only some fields; the
/// answer fills the other required ones, as a real translator would.
fn answer(case: &Value) -> Value {
    if let Some(expected) = case.get("expect") {
        let mut full = expected.clone();
        if case["partial"] == true {
            let tool = fixture_tool(case["tool"].as_str().unwrap());
            for name in tool["function"]["parameters"]["required"]
                .as_array()
                .unwrap()
            {
                let name = name.as_str().unwrap();
                if full.get(name).is_none() {
                    full[name] = json!(format!("Written by the translator for {name}."));
                }
            }
        }
        full
    } else if let Some(expected) = case.get("expect_array") {
        expected.clone()
    } else {
        json!({"error": "missing_info", "clarification_needed": "When should it happen?"})
    }
}

/// An optional value no case of the tool says, as (the object it goes in, its key, the
/// value): a weak translator's invention, which grounding must leave out.
fn unsaid(tool: &str) -> Option<(&'static str, &'static str, Value)> {
    match tool {
        "set_reminder" => Some(("", "timezone", json!("Asia/Tokyo"))),
        "spawn_sub_session" => Some(("", "profile", json!("orchestrator"))),
        "task" => Some(("", "status", json!("paused"))),
        "add_recurring_task" => Some(("/execution_data", "limit", json!(5))),
        _ => None,
    }
}

/// The translator's answer: [`answer`] with the tool's unsaid value added to every call that
/// lacks its key; and how many were added.
fn answer_with_unsaid(case: &Value) -> (Value, usize) {
    let mut answer = answer(case);
    let Some((parent, key, value)) = unsaid(case["tool"].as_str().unwrap()) else {
        return (answer, 0);
    };
    if answer.get("error").is_some() {
        return (answer, 0);
    }
    let mut added = 0;
    let calls: Vec<&mut Value> = match &mut answer {
        Value::Array(calls) => calls.iter_mut().collect(),
        call => vec![call],
    };
    for call in calls {
        if let Some(Value::Object(object)) = call.pointer_mut(parent) {
            if !object.contains_key(key) {
                object.insert(key.to_owned(), value.clone());
                added += 1;
            }
        }
    }
    (answer, added)
}

/// The schema in the translator's system prompt: the JSON on the line after its heading.
fn prompt_schema(system: &str) -> Value {
    let line = system
        .lines()
        .skip_while(|l| *l != "Parameters (JSON Schema):")
        .nth(1)
        .unwrap_or_else(|| panic!("no schema in the translator prompt:\n{system}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn metric(proxy: &Proxy, name: &str) -> u64 {
    let metrics = proxy.metrics();
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn every_shared_case_is_sent_whole_grounded_and_delivered_valid() {
    let all = cases();
    assert!(all.len() >= 15, "the shared set is there");
    let by_description: Vec<(String, Value)> = all
        .iter()
        .map(|c| {
            let description = c["description"].as_str().unwrap().to_owned();
            (description, answer_with_unsaid(c).0)
        })
        .collect();
    let translator = MockServer::start(move |r| {
        let description = r.user_message();
        match by_description.iter().find(|(d, _)| *d == description) {
            Some((_, answer)) => translator_reply(&answer.to_string()),
            None => Reply::text(500, r#"{"error":{"message":"not a case's description"}}"#),
        }
    })
    .await;
    for (i, case) in all.iter().enumerate() {
        let tool_name = case["tool"].as_str().unwrap();
        let description = case["description"].as_str().unwrap().to_owned();
        let tool = fixture_tool(tool_name);
        let parameters = &tool["function"]["parameters"];
        // The tool's plain-English field: `request` where it has a `description` of its own.
        let field = plaincall::parts::nl_field(parameters);
        let call = tool_call(
            &format!("call_{i}"),
            tool_name,
            &json!({field.clone(): description}),
        );
        let main = MockServer::scripted(vec![
            Reply::ok(completion(calls_message(vec![call]), "tool_calls")),
            Reply::ok(completion(text_message("Could you tell me when?"), "stop")),
        ])
        .await;
        let proxy = Proxy::start(
            &main.url(),
            &format!(
                "[translation.tools]\n{tool_name} = \"nl\"\n{}",
                backend_toml(&translator.url())
            ),
        )
        .await;
        let body = json!({"model": "m", "messages": [{"role": "user", "content": description}], "tools": [tool.clone()]});
        let (status, response) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{description}: {response}");
        let message = &response["choices"][0]["message"];

        // What the main model was shown: the user's words, and the one-field form of the tool.
        let shown = main.chat_requests()[0].json();
        assert_eq!(
            shown["messages"],
            json!([{"role": "user", "content": description}]),
            "{description}"
        );
        let shown_tools = shown["tools"].as_array().unwrap();
        assert_eq!(shown_tools.len(), 1, "{description}");
        let shown_tool = &shown_tools[0]["function"];
        assert_eq!(shown_tool["name"], tool_name);
        assert!(
            shown_tool["description"]
                .as_str()
                .unwrap()
                .contains(tool["function"]["description"].as_str().unwrap()),
            "{description}: the tool's purpose is shown: {shown_tool}"
        );
        let properties = shown_tool["parameters"]["properties"].as_object().unwrap();
        assert_eq!(
            properties.keys().collect::<Vec<_>>(),
            [&field],
            "{description}: one field: {shown_tool}"
        );
        assert_eq!(properties[&field]["type"], "string", "{shown_tool}");
        assert_eq!(shown_tool["parameters"]["required"], json!([field]));

        // What the translator was sent: the case's words, the tool and its whole schema, and
        // an output format the expected answer fits.
        let sent: Vec<Value> = translator
            .chat_requests()
            .into_iter()
            .filter(|r| r.user_message() == description)
            .map(|r| r.json())
            .collect();
        assert_eq!(sent.len(), 1, "{description}: translated once");
        let sent = &sent[0];
        assert_eq!(sent["model"], "translator-model");
        let messages = sent["messages"].as_array().unwrap();
        assert_eq!(
            messages.last().unwrap(),
            &json!({"role": "user", "content": description})
        );
        let system = messages[0]["content"].as_str().unwrap();
        assert_eq!(messages[0]["role"], "system");
        assert!(
            system.contains(&format!("Tool: {tool_name}\n")),
            "{description}: {system}"
        );
        assert_eq!(
            &prompt_schema(system),
            parameters,
            "{description}: the full schema"
        );
        let format = &sent["response_format"];
        assert_eq!(format["type"], "json_schema", "{description}: {format}");
        let constrained = jsonschema::validator_for(&format["json_schema"]["schema"]).unwrap();
        let expected_answer = answer(case);
        assert!(
            constrained.is_valid(&expected_answer),
            "{description}: the response format refuses the right answer {expected_answer}: {format}"
        );

        // What the client got: valid calls under the main model's id, the unsaid value left
        // out and every said one kept.
        let validator = jsonschema::validator_for(parameters).unwrap();
        let calls = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let returned: Vec<Value> = calls
            .iter()
            .map(|c| serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap())
            .collect();
        for (call, args) in calls.iter().zip(&returned) {
            assert_eq!(call["function"]["name"], tool_name, "{description}");
            assert!(validator.is_valid(args), "{description}: {args} is invalid");
        }
        let (_, added) = answer_with_unsaid(case);
        assert_eq!(
            metric(&proxy, "plaincall_grounding_dropped_total"),
            added as u64,
            "{description}: the unsaid values were left out, nothing else"
        );
        if let Some(expected) = case.get("expect") {
            assert_eq!(returned.len(), 1, "{description}");
            assert_eq!(calls[0]["id"], format!("call_{i}"));
            if case["partial"] == true {
                for (key, value) in expected.as_object().unwrap() {
                    assert_eq!(&returned[0][key], value, "{description}: {key}");
                }
            } else {
                assert_eq!(returned[0], *expected, "{description}");
            }
        } else if let Some(expected) = case.get("expect_array") {
            assert_eq!(returned, *expected.as_array().unwrap(), "{description}");
            let ids: Vec<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
            let n = ids.len();
            assert!(
                ids.iter()
                    .enumerate()
                    .all(|(k, id)| *id == format!("call_{i}__{}of{n}", k + 1)),
                "{ids:?}"
            );
        } else {
            assert!(
                returned.is_empty(),
                "{description}: a clarification is not a call"
            );
            assert_eq!(message["content"], "Could you tell me when?");
            let repair = main.chat_requests()[1].json();
            let last = repair["messages"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()
                .clone();
            assert_eq!(last["role"], "tool");
            assert_eq!(last["tool_call_id"], format!("call_{i}"));
            assert_eq!(
                last["content"],
                "[TRANSLATION AMBIGUITY] When should it happen?"
            );
        }
    }
}
