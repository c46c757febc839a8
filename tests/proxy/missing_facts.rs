//! A fact nobody said is asked for, not made up, under `grounding = "facts"` (the default): a
//! translated call
//! whose required number, day, time, weekday or address no rule traces to the conversation is
//! translated once more with the finding, then goes back as a question. Required free text,
//! names and members are worked out and go as translated; so do facts where the conversation
//! holds parts no words are read from (an image).

use serde_json::{json, Value};

use crate::support::{
    backend_toml, calls_message, chat, completion, fixture_tool, nl_call, text_message,
    translator_reply, MockServer, Proxy, Reply,
};

fn made_up_time() -> Value {
    json!({"message": "Water the plants", "schedule_type": "daily", "at": "09:00"})
}

/// Serves `user` (text, or content parts) under `grounding` (`None`: the default) to a main
/// model that describes a daily reminder and a translator that answers `answers` in turn.
/// Returns the client's message, the main model's and the translator's servers.
async fn served_under(
    grounding: Option<&str>,
    user: Value,
    answers: Vec<Value>,
) -> (Value, MockServer, MockServer) {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_1",
                "set_reminder",
                "every day to water the plants",
            )]),
            "tool_calls",
        )),
        Reply::ok(completion(
            text_message("At what time should I remind you?"),
            "stop",
        )),
    ])
    .await;
    let replies = answers
        .iter()
        .map(|a| translator_reply(&a.to_string()))
        .collect();
    let translator = MockServer::scripted(replies).await;
    // No setting is the default, `facts`.
    let setting = grounding.map_or(String::new(), |g| format!("grounding = \"{g}\"\n"));
    let config = format!(
        "[translation]\n{setting}{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &config).await;
    let body = json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}],
        "tools": [fixture_tool("set_reminder")]});
    let (status, response) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{response}");
    (response["choices"][0]["message"].clone(), main, translator)
}

async fn served(user: Value, answers: Vec<Value>) -> (Value, MockServer, MockServer) {
    served_under(None, user, answers).await
}

fn last_content(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    messages[messages.len() - 1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_required_time_nobody_said_is_asked_for_not_made_up() {
    let (message, main, translator) = served(
        json!("Remind me every day to water the plants."),
        vec![made_up_time(), made_up_time()],
    )
    .await;
    assert!(message.get("tool_calls").is_none(), "{message}");
    assert_eq!(message["content"], "At what time should I remind you?");
    // Translated once more with the finding, then the main model told what to ask.
    let asked = translator.chat_requests();
    assert_eq!(asked.len(), 2);
    let again = last_content(&asked[1].json());
    assert!(
        again.contains("the request gives no value for at"),
        "{again}"
    );
    let repair = last_content(&main.chat_requests()[1].json());
    assert!(
        repair.contains("The request does not say at: ask the user for it"),
        "{repair}"
    );
}

#[tokio::test]
async fn optional_grounding_keeps_a_made_up_required_time() {
    let (message, main, translator) = served_under(
        Some("optional"),
        json!("Remind me every day to water the plants."),
        vec![made_up_time()],
    )
    .await;
    assert_eq!(message["tool_calls"].as_array().map(Vec::len), Some(1));
    assert_eq!(translator.chat_requests().len(), 1);
    assert_eq!(main.chat_requests().len(), 1);
}

#[tokio::test]
async fn a_translator_that_asks_once_told_is_relayed() {
    let when = json!({"error": "missing_info", "clarification_needed": "At what time?"});
    let (message, main, translator) = served(
        json!("Remind me every day to water the plants."),
        vec![made_up_time(), when],
    )
    .await;
    assert!(message.get("tool_calls").is_none(), "{message}");
    assert_eq!(translator.chat_requests().len(), 2);
    let repair = last_content(&main.chat_requests()[1].json());
    assert!(repair.contains("At what time?"), "{repair}");
}

#[tokio::test]
async fn a_said_time_unsaid_free_text_or_an_image_goes_out() {
    let image = json!([
        {"type": "text", "text": "Set this as a reminder."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    ]);
    for user in [
        // The time said.
        json!("Remind me every day at 9 to water the plants."),
        // The time said, the message worked out in the translator's words (free text).
        json!("Every day at 9, the plants."),
        // The time may be in the picture.
        image,
    ] {
        let (message, main, translator) = served(user.clone(), vec![made_up_time()]).await;
        let calls = message["tool_calls"].as_array();
        assert_eq!(calls.map(Vec::len), Some(1), "{user}: {message}");
        assert_eq!(translator.chat_requests().len(), 1, "{user}");
        assert_eq!(main.chat_requests().len(), 1, "{user}: no repair turn");
    }
}

#[tokio::test]
async fn a_made_up_day_of_the_week_or_interval_is_asked_for_too() {
    for (user, args, field) in [
        (
            "Remind me weekly at 8 to take out the bins.",
            json!({"message": "Take out the bins", "schedule_type": "weekly", "at": "08:00", "day_of_week": "mon"}),
            "day_of_week",
        ),
        (
            "Remind me regularly to stretch.",
            json!({"message": "Stretch", "schedule_type": "interval", "interval_seconds": 3600}),
            "interval_seconds",
        ),
    ] {
        let (message, main, _) = served(json!(user), vec![args.clone(), args]).await;
        assert!(message.get("tool_calls").is_none(), "{user}: {message}");
        let repair = last_content(&main.chat_requests()[1].json());
        assert!(
            repair.contains(&format!("does not say {field}")),
            "{user}: {repair}"
        );
    }
}

/// A sensor-readings tool whose required page size has a default its description gives only
/// in words (as BFCL's `get_sensor_readings_latest` does).
fn readings_tool() -> Value {
    let list =
        |what: &str| json!({"type": "array", "items": {"type": "string"}, "description": what});
    json!({"type": "function", "function": {
    "name": "get_sensor_readings",
    "description": "Return the latest reading of each metric from each sensor.",
    "parameters": {"type": "object", "required": ["perPage"], "properties": {
        "perPage": {"type": "integer", "description": "Entries per page. Value must be between 3 and 100. If user doesn't specify, please use 100."},
        "startingAfter": {"type": "string", "description": "Page start token"},
        "endingBefore": {"type": "string", "description": "Page end token"},
        "networkId": list("network IDs to filter by"),
        "serials": list("sensor serials to filter by"),
        "metrics": list("reading types, such as 'temperature'")
    }}}})
}

#[tokio::test]
async fn a_default_the_description_gives_in_words_is_no_fact_to_ask_for() {
    // The description's own default goes out; any other page size nobody said is asked for.
    for (per_page, asked) in [(100, false), (50, true)] {
        let args = json!({"perPage": per_page, "metrics": ["temperature"]});
        let main = MockServer::scripted(vec![
            Reply::ok(completion(
                calls_message(vec![nl_call(
                    "call_1",
                    "get_sensor_readings",
                    "latest temperature readings",
                )]),
                "tool_calls",
            )),
            Reply::ok(completion(text_message("How many per page?"), "stop")),
        ])
        .await;
        let translator = MockServer::scripted(vec![
            translator_reply(&args.to_string()),
            translator_reply(&args.to_string()),
        ])
        .await;
        let config = format!("[translation]\n{}", backend_toml(&translator.url()));
        let proxy = Proxy::start(&main.url(), &config).await;
        let body = json!({"model": "main-model",
            "messages": [{"role": "user", "content": "What is the lowest temperature across all my sensors right now?"}],
            "tools": [readings_tool()]});
        let (status, response) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{response}");
        let message = &response["choices"][0]["message"];
        if asked {
            assert!(message.get("tool_calls").is_none(), "{per_page}: {message}");
            let repair = last_content(&main.chat_requests()[1].json());
            assert!(repair.contains("does not say perPage"), "{repair}");
        } else {
            let calls = message["tool_calls"].as_array();
            assert_eq!(calls.map(Vec::len), Some(1), "{message}");
            let sent: Value = serde_json::from_str(
                message["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .unwrap_or("{}"),
            )
            .unwrap_or_default();
            assert_eq!(sent["perPage"], 100, "{sent}");
            assert_eq!(translator.chat_requests().len(), 1);
        }
    }
}
