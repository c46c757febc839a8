//! Grounding end to end: a value of a translated call that nothing in the conversation says is
//! left out (`optional`, and `facts`, the default, which asks for a required fact too: see
//! missing_facts.rs), a required one is asked back to the translator once and then becomes a
//! question for the main model (`strict`), `off` keeps everything, and a per-tool setting
//! wins.

use serde_json::{json, Value};

use crate::support::{
    backend_toml, calls_message, chat, completion, nl_call, text_message, translator_reply,
    MockServer, Proxy, Reply,
};

/// Rewritten (`nl`), with a required passenger name and optional extras.
fn book_flight() -> Value {
    json!({"type": "function", "function": {"name": "book_flight", "description": "Book a flight.",
        "parameters": {"type": "object", "required": ["destination", "passenger"], "properties": {
            "destination": {"type": "string"},
            "passenger": {"type": "string"},
            "flexible_dates": {"type": "boolean"},
            "max_stops": {"type": "integer"},
            "date_of_birth": {"type": "string"}}}}})
}

const ASKED: &str = "book a flight to Rome for Ana Lima";

fn request() -> Value {
    json!({"model": "main-model", "messages": [{"role": "user", "content": ASKED}],
        "tools": [book_flight()]})
}

fn main_model() -> Vec<Reply> {
    vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "book_flight", ASKED)]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("Who is flying?"), "stop")),
    ]
}

fn arguments(body: &Value) -> Value {
    serde_json::from_str(
        body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap()
}

/// `translation` holds the top-level keys of `[translation]` (before its sub-tables).
fn settings(translator: &MockServer, translation: &str, extra: &str) -> String {
    format!(
        "[translation]\n{translation}\n{}\n[translation.tools]\nbook_flight = \"nl\"\n{extra}",
        backend_toml(&translator.url())
    )
}

#[tokio::test]
async fn invented_optional_values_are_left_out_and_the_rest_is_delivered() {
    let main = MockServer::scripted(main_model()).await;
    let invented = json!({"destination": "Rome", "passenger": "Ana Lima", "flexible_dates": true,
        "max_stops": 1, "date_of_birth": "1990-05-10"});
    let translator = MockServer::scripted(vec![translator_reply(&invented.to_string())]).await;
    let proxy = Proxy::start(&main.url(), &settings(&translator, "", "")).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        arguments(&body),
        json!({"destination": "Rome", "passenger": "Ana Lima"})
    );
    assert!(proxy
        .metrics()
        .contains("plaincall_grounding_dropped_total 3"));
}

#[tokio::test]
async fn off_delivers_what_the_translator_wrote() {
    let main = MockServer::scripted(main_model()).await;
    let invented = json!({"destination": "Rome", "passenger": "Ana Lima", "max_stops": 1});
    let translator = MockServer::scripted(vec![translator_reply(&invented.to_string())]).await;
    let toml = settings(&translator, "grounding = \"off\"", "");
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(arguments(&body), invented);
}

#[tokio::test]
async fn strict_asks_the_translator_again_then_the_main_model_never_a_guess() {
    let main = MockServer::scripted(main_model()).await;
    // The user never named the passenger; the translator invents one, twice.
    let asked = "book a flight to Rome";
    let invented = json!({"destination": "Rome", "passenger": "John Smith"});
    let translator = MockServer::scripted(vec![
        translator_reply(&invented.to_string()),
        translator_reply(&invented.to_string()),
    ])
    .await;
    let toml = settings(
        &translator,
        "",
        "[translation.grounding_tools]\nbook_flight = \"strict\"\n",
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let mut body = request();
    body["messages"][0]["content"] = json!(asked);
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["message"]["content"], "Who is flying?");
    assert!(answer["choices"][0]["message"]["tool_calls"].is_null());
    // The second translator call carried the finding.
    let retry = translator.chat_requests()[1].json();
    let said = retry["messages"][1]["content"].as_str().unwrap().to_owned();
    assert!(said.contains("no value for passenger"), "{said}");
    // The main model's repair turn names what is missing.
    let turn = main.chat_requests()[1].json();
    let tool_message = turn["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .to_string();
    assert!(tool_message.contains("passenger"), "{tool_message}");
}

#[tokio::test]
async fn strict_delivers_a_required_value_the_conversation_gives() {
    let main = MockServer::scripted(main_model()).await;
    let translator = MockServer::scripted(vec![translator_reply(
        &json!({"destination": "Rome", "passenger": "Ana Lima"}).to_string(),
    )])
    .await;
    let toml = settings(
        &translator,
        "",
        "[translation.grounding_tools]\nbook_flight = \"strict\"\n",
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        arguments(&body),
        json!({"destination": "Rome", "passenger": "Ana Lima"})
    );
    assert_eq!(translator.chat_requests().len(), 1);
}

#[tokio::test]
async fn strict_asks_where_the_main_model_writes_an_invented_required_value_itself() {
    // The main model writes the rewritten tool's real arguments, with a passenger nobody
    // named: under `strict` that is a question too; under `optional` the call goes out.
    let own = json!({"destination": "Rome", "passenger": "John Smith"});
    for (mode, asks) in [("strict", true), ("optional", false)] {
        let main = MockServer::scripted(vec![
            Reply::ok(completion(
                calls_message(vec![crate::support::tool_call(
                    "call_1",
                    "book_flight",
                    &own,
                )]),
                "tool_calls",
            )),
            Reply::ok(completion(text_message("Who is flying?"), "stop")),
        ])
        .await;
        let translator = MockServer::scripted(vec![]).await;
        let grounding = format!("[translation.grounding_tools]\nbook_flight = \"{mode}\"\n");
        let proxy = Proxy::start(&main.url(), &settings(&translator, "", &grounding)).await;
        let mut body = request();
        body["messages"][0]["content"] = json!("book a flight to Rome");
        let (status, answer) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{answer}");
        let message = &answer["choices"][0]["message"];
        if asks {
            assert_eq!(message["content"], "Who is flying?", "{answer}");
            let turn = main.chat_requests()[1].json();
            let told = turn["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
            assert!(told.contains("does not say passenger"), "{told}");
        } else {
            assert_eq!(arguments(&answer), own, "{answer}");
            assert_eq!(main.chat_requests().len(), 1);
        }
        assert!(translator.chat_requests().is_empty());
    }
}

#[tokio::test]
async fn an_unsaid_value_that_breaks_the_schema_is_left_out_not_retried() {
    let ship = json!({"type": "function", "function": {"name": "ship_parcel", "description": "Ship a parcel.",
        "parameters": {"type": "object", "required": ["to", "weight_kg"], "properties": {
            "to": {"type": "string"},
            "weight_kg": {"type": "number"},
            "insured_value": {"type": "number", "exclusiveMinimum": 0},
            "signature": {"type": "boolean"}}}}});
    let asked = "ship a 2 kg parcel to Lisbon";
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_1", "ship_parcel", asked)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(
        &json!({"to": "Lisbon", "weight_kg": 2, "insured_value": 0}).to_string(),
    )])
    .await;
    let toml = format!(
        "{}\n[translation.tools]\nship_parcel = \"nl\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let body = json!({"model": "main-model", "messages": [{"role": "user", "content": asked}],
        "tools": [ship]});
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(arguments(&answer), json!({"to": "Lisbon", "weight_kg": 2}));
    assert_eq!(translator.chat_requests().len(), 1, "not retried");
}

#[tokio::test]
async fn each_decision_is_counted_by_rule_and_outcome() {
    let main = MockServer::scripted(main_model()).await;
    let invented = json!({"destination": "Rome", "passenger": "Ana Lima", "max_stops": 1});
    let translator = MockServer::scripted(vec![translator_reply(&invented.to_string())]).await;
    let proxy = Proxy::start(&main.url(), &settings(&translator, "", "")).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    let metrics = proxy.metrics();
    assert!(
        metrics
            .contains("plaincall_grounding_decisions_total{rule=\"verbatim\",outcome=\"kept\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains(
            "plaincall_grounding_decisions_total{rule=\"unsaid\",outcome=\"left_out\"} 1"
        ),
        "{metrics}"
    );
}

/// The main model's description is its claim about the conversation, not the conversation:
/// a value only it states is left out.
#[tokio::test]
async fn the_main_model_s_description_is_no_evidence() {
    let claimed = "book a flight to Rome for Ana Lima with at most 2 stops";
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "book_flight", claimed)]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("Done."), "stop")),
    ])
    .await;
    let translated = json!({"destination": "Rome", "passenger": "Ana Lima", "max_stops": 2});
    let translator = MockServer::scripted(vec![translator_reply(&translated.to_string())]).await;
    let proxy = Proxy::start(&main.url(), &settings(&translator, "", "")).await;
    let (status, body) = chat(&proxy, &request()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        arguments(&body),
        json!({"destination": "Rome", "passenger": "Ana Lima"})
    );
}

/// A rule switched off traces nothing: the value only it traced is left out, the rest stays.
#[tokio::test]
async fn a_rule_switched_off_no_longer_traces_its_values() {
    let asked = "book a flight to Rome for Ana Lima with at most 2 stops";
    let request = json!({"model": "main-model", "messages": [{"role": "user", "content": asked}],
        "tools": [book_flight()]});
    let translated = json!({"destination": "Rome", "passenger": "Ana Lima", "max_stops": 2});
    for (off, expected) in [
        ("", translated.clone()),
        (
            "grounding_rules_off = [\"number\"]",
            json!({"destination": "Rome", "passenger": "Ana Lima"}),
        ),
    ] {
        let main = MockServer::scripted(main_model()).await;
        let translator =
            MockServer::scripted(vec![translator_reply(&translated.to_string())]).await;
        let proxy = Proxy::start(&main.url(), &settings(&translator, off, "")).await;
        let (status, body) = chat(&proxy, &request).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(arguments(&body), expected, "{off}");
    }
}

/// A list in a tool's result is rows the user picks from: a value of a row they did not pick
/// is left out; the same list in the user's own words says every item.
#[tokio::test]
async fn a_value_of_a_tool_result_s_row_the_user_did_not_pick_is_left_out() {
    let list = "0 stops €320; 1 stop €180; 2 stops €150";
    let asked = "I will take the one for 180, please book it to Rome for Ana Lima";
    let conversation = |list_role: &str| {
        let mut messages = vec![json!({"role": "user", "content": "flights to Rome?"})];
        if list_role == "tool" {
            messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "s1", "type": "function",
                 "function": {"name": "search_flights", "arguments": "{}"}}]}));
            messages.push(json!({"role": "tool", "tool_call_id": "s1", "content": list}));
        } else {
            messages.push(json!({"role": "user", "content": list}));
        }
        messages.push(json!({"role": "user", "content": asked}));
        json!({"model": "main-model", "messages": messages, "tools": [book_flight()]})
    };
    for (list_role, stops, delivered) in [("tool", 2, false), ("tool", 1, true), ("user", 2, true)]
    {
        let main = MockServer::scripted(main_model()).await;
        let translated =
            json!({"destination": "Rome", "passenger": "Ana Lima", "max_stops": stops});
        let translator =
            MockServer::scripted(vec![translator_reply(&translated.to_string())]).await;
        let proxy = Proxy::start(&main.url(), &settings(&translator, "", "")).await;
        let (status, body) = chat(&proxy, &conversation(list_role)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            arguments(&body).get("max_stops").is_some(),
            delivered,
            "{list_role} {stops}: {body}"
        );
    }
}

#[tokio::test]
async fn strict_asks_for_a_value_only_a_condition_of_the_schema_requires() {
    // `at` is required for a daily reminder only (an `if`/`then`): nobody said it, and the
    // call cannot go without it, so under `strict` it is asked for like a required one.
    let invented = json!({"message": "Water the plants", "schedule_type": "daily", "at": "08:00"});
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_1",
                "set_reminder",
                "water the plants daily",
            )]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("At what time?"), "stop")),
    ])
    .await;
    let answer = invented.to_string();
    let translator = MockServer::start(move |_| translator_reply(&answer)).await;
    let toml = format!(
        "{}[translation.grounding_tools]\nset_reminder = \"strict\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let body = json!({"model": "main-model", "tools": [crate::support::fixture_tool("set_reminder")],
        "messages": [{"role": "user", "content": "remind me every day to water the plants"}]});
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["choices"][0]["message"]["content"], "At what time?",
        "{answer}"
    );
    let turn = main.chat_requests()[1].json();
    let told = turn["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(told.contains("does not say at:"), "{told}");
}

#[tokio::test]
async fn strict_delivers_a_member_its_branchs_said_values_work_out() {
    // Nobody says "api_call", but the URL and the method said are what only that member's
    // `if`/`then` requires: the call goes out under `strict`. With the URL made up, it is
    // asked about.
    let request = "Every 15 minutes, send a GET request to https://status.example.com/health so we can tell whether the service is up.";
    for (url, delivered) in [
        ("https://status.example.com/health", true),
        ("https://example.org/ping", false),
    ] {
        let args = json!({"schedule": "*/15 * * * *", "task_type": "api_call",
            "description": "tell whether the service is up",
            "execution_data": {"url": url, "method": "GET"}});
        let main = MockServer::scripted(vec![
            Reply::ok(completion(
                calls_message(vec![nl_call("call_1", "add_recurring_task", request)]),
                "tool_calls",
            )),
            Reply::ok(completion(text_message("Which kind of task?"), "stop")),
        ])
        .await;
        let answer = args.to_string();
        let translator = MockServer::start(move |_| translator_reply(&answer)).await;
        let toml = format!(
            "{}[translation.grounding_tools]\nadd_recurring_task = \"strict\"\n",
            backend_toml(&translator.url())
        );
        let proxy = Proxy::start(&main.url(), &toml).await;
        let body = json!({"model": "main-model",
            "tools": [crate::support::fixture_tool("add_recurring_task")],
            "messages": [{"role": "user", "content": request}]});
        let (status, reply) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{reply}");
        if delivered {
            assert_eq!(arguments(&reply), args, "{reply}");
        } else {
            assert_eq!(
                reply["choices"][0]["message"]["content"], "Which kind of task?",
                "{reply}"
            );
        }
    }
}

#[tokio::test]
async fn a_required_member_the_request_contradicts_is_the_one_it_names() {
    // "every Monday": the translator's `daily` (beside `day_of_week: mon`) is not what was
    // asked; the request names `weekly`, and the call is valid with it. Translated or the
    // main model's own call, the client gets the weekly one.
    // "tomorrow at half past six", no recurrence: `once`, not the translator's `daily`.
    for (request, wrong, member) in [
        (
            "Remind me every Monday at 08:00 to water the plants.",
            json!({"message": "Water the plants", "schedule_type": "daily", "at": "08:00", "day_of_week": "mon"}),
            "weekly",
        ),
        (
            "remind me tomorrow at half past six in the evening to pick up the dry cleaning",
            json!({"message": "Pick up the dry cleaning", "schedule_type": "daily", "at": "18:30"}),
            "once",
        ),
    ] {
        let mut right = wrong.clone();
        right["schedule_type"] = json!(member);
        a_member_replaced(request, &wrong, &right).await;
    }
}

/// `request`, with the translator's (and then the main model's own) `wrong` call: the client
/// gets `right`.
async fn a_member_replaced(request: &str, wrong: &Value, right: &Value) {
    let translated = nl_call("call_1", "set_reminder", request);
    let own = crate::support::tool_call("call_1", "set_reminder", wrong);
    for call in [translated, own] {
        let main = MockServer::scripted(vec![Reply::ok(completion(
            calls_message(vec![call]),
            "tool_calls",
        ))])
        .await;
        let answer = wrong.to_string();
        let translator = MockServer::start(move |_| translator_reply(&answer)).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let body = json!({"model": "main-model", "tools": [crate::support::fixture_tool("set_reminder")],
            "messages": [{"role": "user", "content": request}]});
        let (status, reply) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(&arguments(&reply), right, "{reply}");
        let metrics = proxy.metrics();
        assert!(
            metrics.contains(r#"outcome="replaced""#),
            "the replacement is counted: {metrics}"
        );
    }
}
