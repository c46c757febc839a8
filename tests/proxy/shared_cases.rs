//! The shared plain-English cases run through the whole pipe, with a translator that answers
//! each case's expected arguments: every call comes back valid against the full schema and
//! equal to what the case expects; clarification cases end as the main model's question.
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

#[tokio::test]
async fn every_shared_case_comes_back_valid_and_equal() {
    let all = cases();
    assert!(all.len() >= 15, "the shared set is there");
    let by_description: Vec<(String, Value)> = all
        .iter()
        .map(|c| (c["description"].as_str().unwrap().to_owned(), answer(c)))
        .collect();
    let translator = MockServer::start(move |r| {
        let description = r.user_message();
        let found = by_description
            .iter()
            .find(|(d, _)| *d == description)
            .map(|(_, a)| a.clone());
        translator_reply(&found.expect("a known description").to_string())
    })
    .await;
    for (i, case) in all.iter().enumerate() {
        let tool_name = case["tool"].as_str().unwrap();
        let description = case["description"].as_str().unwrap().to_owned();
        // The tool's plain-English field: `request` where it has a `description` of its own.
        let field = plaincall::parts::nl_field(&fixture_tool(tool_name)["function"]["parameters"]);
        let call = tool_call(
            &format!("call_{i}"),
            tool_name,
            &json!({field: description}),
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
        let tool = fixture_tool(tool_name);
        let body = json!({"model": "m", "messages": [{"role": "user", "content": description}], "tools": [tool.clone()]});
        let (status, response) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{description}: {response}");
        let message = &response["choices"][0]["message"];
        let validator = jsonschema::validator_for(&tool["function"]["parameters"]).unwrap();
        let returned: Vec<Value> = message["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| {
                        serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap()
                    })
                    .collect()
            })
            .unwrap_or_default();
        for args in &returned {
            assert!(validator.is_valid(args), "{description}: {args} is invalid");
        }
        if let Some(expected) = case.get("expect") {
            assert_eq!(returned.len(), 1, "{description}");
            if case["partial"] == true {
                for (key, value) in expected.as_object().unwrap() {
                    assert_eq!(&returned[0][key], value, "{description}: {key}");
                }
            } else {
                assert_eq!(returned[0], *expected, "{description}");
            }
        } else if let Some(expected) = case.get("expect_array") {
            assert_eq!(returned, *expected.as_array().unwrap(), "{description}");
            let ids: Vec<&str> = message["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap())
                .collect();
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
            assert_eq!(
                last["content"],
                "[TRANSLATION AMBIGUITY] When should it happen?"
            );
        }
    }
}
