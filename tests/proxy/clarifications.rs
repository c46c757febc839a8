//! A question only for what is missing: a translator's clarification about a value the user's
//! message holds is not relayed; the translation is tried once more with the user's words for
//! it pointed out, then the main model is asked directly. A question about what the message
//! does not hold still goes back.

use serde_json::{json, Value};

use crate::support::{
    backend_toml, calls_message, chat, completion, fixture_tool, nl_call, text_message, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

const SAID: &str = "Remind me to water the plants. Every Monday at 08:00";
const WHEN: &str =
    r#"{"error": "missing_info", "clarification_needed": "When should I remind you?"}"#;

fn request(user: &str) -> Value {
    json!({"model": "main-model",
        "messages": [{"role": "user", "content": user}],
        "tools": [fixture_tool("set_reminder")]})
}

fn weekly() -> Value {
    json!({"message": "Water the plants", "schedule_type": "weekly", "at": "08:00", "day_of_week": "mon"})
}

fn args_of(call: &Value) -> Value {
    serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap()
}

/// A main model that describes the call without its time, then writes `then`.
async fn main_model(then: Reply) -> MockServer {
    MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_1",
                "set_reminder",
                "remind me to water the plants",
            )]),
            "tool_calls",
        )),
        then,
    ])
    .await
}

/// Sends `body` to a main model that describes the call without its time and a translator
/// that asks when: the question must go back (the main model's text, no call, one
/// translation). Returns the main model's server, to look at the repair turn.
async fn asked_back(body: &Value) -> MockServer {
    let main = main_model(Reply::ok(completion(
        text_message("When should I remind you to water the plants?"),
        "stop",
    )))
    .await;
    let translator = MockServer::scripted(vec![translator_reply(WHEN)]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, response) = chat(&proxy, body).await;
    assert_eq!(status, 200, "{response}");
    let message = &response["choices"][0]["message"];
    assert_eq!(
        message["content"],
        "When should I remind you to water the plants?"
    );
    assert!(message.get("tool_calls").is_none(), "{response}");
    assert_eq!(translator.chat_requests().len(), 1, "not translated again");
    assert!(!proxy
        .metrics()
        .contains("plaincall_clarifications_answered_total{"));
    main
}

/// Sends `body` to a main model that describes the call without its time and a translator
/// that asks when, then answers once pointed at the user's words: the weekly call must go out
/// under the main model's id, with no repair turn. Returns the second translator input and
/// the proxy's metrics.
async fn answered(body: &Value) -> (String, String) {
    let main = main_model(Reply::ok(completion(text_message("unused"), "stop"))).await;
    let translator = MockServer::scripted(vec![
        translator_reply(WHEN),
        translator_reply(&weekly().to_string()),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, response) = chat(&proxy, body).await;
    assert_eq!(status, 200, "{response}");
    let call = &response["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["id"], "call_1");
    assert_eq!(args_of(call), weekly());
    assert_eq!(
        main.chat_requests().len(),
        1,
        "no repair turn, no direct ask"
    );
    let asked = translator.chat_requests();
    assert_eq!(asked.len(), 2);
    let again = asked[1].json()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    (again, proxy.metrics())
}

#[tokio::test]
async fn a_question_the_user_s_words_answer_is_translated_again_with_them_pointed_out() {
    let (again, metrics) = answered(&request(SAID)).await;
    assert!(
        again.ends_with(
            "\nThe user's message gives at, day_of_week here: \"Every Monday at 08:00\""
        ),
        "{again}"
    );
    assert!(metrics.contains("plaincall_clarifications_answered_total{outcome=\"translated\"} 1"));
}

#[tokio::test]
async fn a_question_asked_again_after_the_pointer_goes_to_the_direct_ask() {
    let main = main_model(Reply::ok(completion(
        calls_message(vec![tool_call("call_direct", "set_reminder", &weekly())]),
        "tool_calls",
    )))
    .await;
    let translator =
        MockServer::scripted(vec![translator_reply(WHEN), translator_reply(WHEN)]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(SAID)).await;
    assert_eq!(status, 200, "{body}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["id"], "call_1");
    assert_eq!(args_of(call), weekly());
    let direct = main.chat_requests()[1].json();
    assert!(direct["tools"][0]["function"]["parameters"]["properties"]
        .get("schedule_type")
        .is_some());
    assert_eq!(translator.chat_requests().len(), 2);
    assert!(proxy
        .metrics()
        .contains("plaincall_clarifications_answered_total{outcome=\"direct\"} 1"));
}

#[tokio::test]
async fn a_question_about_what_the_user_did_not_say_still_reaches_the_client() {
    let main = asked_back(&request("remind me to water the plants")).await;
    let repair = main.chat_requests()[1].json();
    let messages = repair["messages"].as_array().unwrap();
    assert_eq!(
        messages[messages.len() - 1]["content"],
        "[TRANSLATION AMBIGUITY] When should I remind you?"
    );
}

#[tokio::test]
async fn a_fact_said_a_message_before_the_latest_answers_the_question_too() {
    let mut body = request("Just: water the plants. Set it up.");
    let earlier = [
        json!({"role": "user", "content": "I need a reminder every Monday at 08:00."}),
        json!({"role": "assistant", "content": "Sure! What should it say?"}),
    ];
    body["messages"]
        .as_array_mut()
        .unwrap()
        .splice(0..0, earlier);
    let (again, _) = answered(&body).await;
    assert!(
        again.ends_with("here: \"I need a reminder every Monday at 08:00.\""),
        "{again}"
    );
}

/// A reminder set before: the user's words for it, the call and its result.
fn done_before() -> [Value; 3] {
    let done = json!({"message": "Call the bank", "schedule_type": "weekly", "at": "08:00", "day_of_week": "mon"});
    [
        json!({"role": "user", "content": "Remind me every Monday at 08:00 to call the bank."}),
        json!({"role": "assistant", "content": null,
            "tool_calls": [tool_call("call_0", "set_reminder", &done)]}),
        json!({"role": "tool", "tool_call_id": "call_0", "content": "Reminder set."}),
    ]
}

#[tokio::test]
async fn a_fact_of_a_request_already_done_does_not_answer_a_new_one() {
    // The 08:00 was for the reminder set before (a call and its result since): the new
    // request's question goes back.
    let mut body = request("Now remind me to water the plants.");
    body["messages"]
        .as_array_mut()
        .unwrap()
        .splice(0..0, done_before());
    asked_back(&body).await;
}

#[tokio::test]
async fn after_a_tool_s_result_no_earlier_message_answers_the_question() {
    // The model calls the tool again after its result, with no new user message: the 08:00
    // the user gave for the call already made is not pointed out for this one.
    let mut body = request("unused");
    body["messages"] = json!(done_before());
    asked_back(&body).await;
}
