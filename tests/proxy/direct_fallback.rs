//! No dead ends: a call the translator cannot make is asked of the main model itself, once,
//! as the model alone would be asked (every tool with its whole schema, the client's own
//! `tool_choice`); its call is delivered when it is valid and grounded, also where it is to
//! another tool than the one described, and only when it is not does the failure go back to
//! the main model.

use serde_json::{json, Value};

use crate::support::{
    backend_toml, calls_message, chat, completion, fixture_tool, nl_call, text_message, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

const ASKED: &str = "remind me daily at 9 to check email";

fn request(stream: bool) -> Value {
    json!({"model": "main-model", "stream": stream,
        "messages": [{"role": "user", "content": ASKED}],
        "tools": [fixture_tool("set_reminder")]})
}

/// The structured call the main model makes when asked directly.
fn own_call() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

/// A main model that first calls in plain English, then (asked directly) with `own_call`.
async fn nl_call_then_own_call() -> (Value, MockServer) {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "set_reminder", ASKED)]),
            "tool_calls",
        )),
        Reply::ok(completion(
            calls_message(vec![tool_call("call_direct", "set_reminder", &own_call())]),
            "tool_calls",
        )),
    ])
    .await;
    (own_call(), main)
}

fn garbage_translator() -> Vec<Reply> {
    vec![
        translator_reply("no idea"),
        translator_reply("still no idea"),
    ]
}

#[tokio::test]
async fn the_main_model_s_own_call_is_delivered_when_translation_fails() {
    let (own, main) = nl_call_then_own_call().await;
    let translator = MockServer::scripted(garbage_translator()).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(
        call["id"], "call_1",
        "the client sees the call it was told about"
    );
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, own);
    // The direct request: the whole schema, the client's `tool_choice` (none), no stream.
    let direct = main.chat_requests()[1].json();
    assert!(direct.get("tool_choice").is_none(), "{direct}");
    let parameters = &direct["tools"][0]["function"]["parameters"];
    assert_eq!(
        parameters,
        &fixture_tool("set_reminder")["function"]["parameters"]
    );
    assert_eq!(direct["stream"], false);
    // One call's arguments: no longer than a translator may write (`translation.max_tokens`).
    assert_eq!(direct["max_tokens"], 1024);
    assert_eq!(translator.chat_requests().len(), 2);
}

#[tokio::test]
async fn a_direct_call_whose_arguments_come_as_an_object_is_read_as_a_first_turn_s_is() {
    // Some servers send `arguments` as an object: the direct ask reads its answer as every
    // turn is read, where that is the object's text.
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "set_reminder", ASKED)]),
            "tool_calls",
        )),
        Reply::ok(completion(
            calls_message(vec![json!({"id": "call_direct", "type": "function",
                "function": {"name": "set_reminder", "arguments": own_call()}})]),
            "tool_calls",
        )),
    ])
    .await;
    let translator = MockServer::scripted(garbage_translator()).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, own_call());
}

#[tokio::test]
async fn the_direct_ask_keeps_the_client_s_lower_limit_under_its_own_name() {
    for (key, asked, sent) in [
        ("max_completion_tokens", 200, 200),
        ("max_completion_tokens", 5000, 300),
        ("max_tokens", 5000, 300),
    ] {
        let (_, main) = nl_call_then_own_call().await;
        let translator = MockServer::scripted(garbage_translator()).await;
        let config = format!(
            "[translation]\nmax_tokens = 300\n{}",
            backend_toml(&translator.url())
        );
        let proxy = Proxy::start(&main.url(), &config).await;
        let mut asking = request(false);
        asking[key] = json!(asked);
        let (status, body) = chat(&proxy, &asking).await;
        assert_eq!(status, 200, "{body}");
        let direct = main.chat_requests()[1].json();
        assert_eq!(direct[key], sent, "{key} {asked}");
        if key == "max_completion_tokens" {
            assert!(direct.get("max_tokens").is_none(), "{direct}");
        }
    }
}

#[tokio::test]
async fn a_streamed_request_gets_the_direct_call_too() {
    let own = own_call();
    let main = MockServer::scripted(vec![
        Reply::sse(vec![json!({"id": "c", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0,
                "id": "call_1", "type": "function", "function": {"name": "set_reminder",
                "arguments": json!({"description": ASKED}).to_string()}}]},
                "finish_reason": "tool_calls"}]})]),
        Reply::ok(completion(
            calls_message(vec![tool_call("call_direct", "set_reminder", &own)]),
            "tool_calls",
        )),
    ])
    .await;
    let translator = MockServer::scripted(garbage_translator()).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let response = crate::support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap();
    let folded = crate::support::fold_stream(&response.text().await.unwrap());
    let call = &folded["tool_calls"][0];
    assert_eq!(call["id"], "call_1");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, own);
}

#[tokio::test]
async fn an_invalid_direct_call_leaves_the_failure_to_the_main_model() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "set_reminder", ASKED)]),
            "tool_calls",
        )),
        // Asked directly, it writes the one-field form again: no call.
        Reply::ok(completion(
            calls_message(vec![nl_call("call_2", "set_reminder", ASKED)]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("I could not set it."), "stop")),
    ])
    .await;
    let translator = MockServer::scripted(garbage_translator()).await;
    let toml = format!(
        "[translation]\nrepair_turns = 1\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "I could not set it."
    );
    let repair = main.chat_requests()[2].json();
    let tool_message = repair["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        tool_message.starts_with("[TRANSLATION ERROR]"),
        "{tool_message}"
    );
}

#[tokio::test]
async fn past_the_translation_budget_the_main_model_s_own_call_goes_out() {
    let (own, main) = nl_call_then_own_call().await;
    // A translator that never answers, with its own timeout far away.
    let translator = MockServer::start(|_| Reply::Hang).await;
    let toml = format!(
        "[translation]\nbudget = \"300ms\"\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let started = std::time::Instant::now();
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "bounded by the budget, not by the backend's 60 s timeout"
    );
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, own);
}

#[tokio::test]
async fn past_the_budget_a_slow_translation_still_counts_when_the_direct_ask_fails() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "set_reminder", ASKED)]),
            "tool_calls",
        )),
        // Asked directly, it makes no call.
        crate::support::no_direct_call(),
    ])
    .await;
    // The translator answers, well after the budget.
    let translator = MockServer::scripted(vec![Reply::Delayed(
        std::time::Duration::from_millis(800),
        Box::new(translator_reply(&own_call().to_string())),
    )])
    .await;
    let toml = format!(
        "[translation]\nbudget = \"200ms\"\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, own_call(), "the translation, not a dead end");
    assert_eq!(
        main.chat_requests().len(),
        2,
        "the first turn and the direct ask"
    );
}

/// Past the budget the direct ask goes out; when the translation then fails before that ask
/// is answered, the ask is waited for, not dropped with the request ending in no call.
#[tokio::test]
async fn a_translation_failing_while_the_direct_ask_is_out_waits_for_it() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_1", "set_reminder", ASKED)]),
            "tool_calls",
        )),
        // Asked directly, it answers after the translation has failed.
        Reply::Delayed(
            std::time::Duration::from_millis(900),
            Box::new(Reply::ok(completion(
                calls_message(vec![tool_call("call_direct", "set_reminder", &own_call())]),
                "tool_calls",
            ))),
        ),
    ])
    .await;
    // Past the budget, both attempts come back unreadable.
    let slow = |text: &str| {
        Reply::Delayed(
            std::time::Duration::from_millis(150),
            Box::new(translator_reply(text)),
        )
    };
    let translator = MockServer::scripted(vec![slow("no idea"), slow("still no idea")]).await;
    let toml = format!(
        "[translation]\nbudget = \"100ms\"\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        translator.requests().len(),
        2,
        "both attempts ran out first"
    );
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["id"], "call_1", "{body}");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, own_call(), "the direct call, not a dead end: {body}");
    assert_eq!(
        main.chat_requests().len(),
        2,
        "the first turn and one direct ask"
    );
}

const WEATHER: &str = "what's the weather in Paris?";

/// A main model that describes a reminder for a weather question, then, asked directly with
/// every tool in full, makes the calls `answer`, then (in a repair turn) gives up in words.
async fn reminder_then(answer: Vec<Value>, stream: bool) -> MockServer {
    let first = calls_message(vec![nl_call("call_1", "set_reminder", WEATHER)]);
    let first = match stream {
        false => Reply::ok(completion(first, "tool_calls")),
        true => Reply::sse(vec![json!({"id": "c", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant",
                "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "set_reminder",
                        "arguments": json!({"description": WEATHER}).to_string()}}]},
                "finish_reason": "tool_calls"}]})]),
    };
    MockServer::scripted(vec![
        first,
        Reply::ok(completion(calls_message(answer), "tool_calls")),
        Reply::ok(completion(text_message("I could not do that."), "stop")),
    ])
    .await
}

/// The weather question asked of `tools` (not streamed), its translation failing and one
/// repair turn allowed, when asked directly the main model makes the calls `answer`: the
/// answer's message, and the main model's server.
async fn asked_directly(tools: Vec<Value>, answer: Vec<Value>) -> (Value, MockServer) {
    let main = reminder_then(answer, false).await;
    let translator = MockServer::scripted(garbage_translator()).await;
    let toml = format!(
        "[translation]\nrepair_turns = 1\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &weather_request(false, tools)).await;
    assert_eq!(status, 200, "{body}");
    (body["choices"][0]["message"].clone(), main)
}

fn weather_tools() -> Vec<Value> {
    vec![fixture_tool("set_reminder"), fixture_tool("get_weather")]
}

fn weather_request(stream: bool, tools: Vec<Value>) -> Value {
    json!({"model": "main-model", "stream": stream,
        "messages": [{"role": "user", "content": WEATHER}], "tools": tools})
}

#[tokio::test]
async fn asked_directly_the_main_model_may_choose_another_tool() {
    for stream in [false, true] {
        let weather = json!({"city": "Paris"});
        let main = reminder_then(
            vec![tool_call("call_direct", "get_weather", &weather)],
            stream,
        )
        .await;
        let translator = MockServer::scripted(garbage_translator()).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let tools = weather_tools();
        let response = crate::support::client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&weather_request(stream, tools.clone()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let text = response.text().await.unwrap();
        let message = match stream {
            true => crate::support::fold_stream(&text),
            false => serde_json::from_str::<Value>(&text).unwrap()["choices"][0]["message"].clone(),
        };
        let calls = message["tool_calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{message}");
        assert_eq!(
            calls[0]["id"], "call_1",
            "the call the client was told about"
        );
        assert_eq!(calls[0]["function"]["name"], "get_weather", "{message}");
        let args: Value =
            serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, weather);
        // Asked as the model alone is: every tool as the client sent it, the client's own
        // `tool_choice` (none here).
        let direct = main.chat_requests()[1].json();
        assert_eq!(direct["tools"], json!(tools), "stream {stream}");
        assert!(direct.get("tool_choice").is_none(), "{direct}");
        assert_eq!(main.chat_requests().len(), 2, "no repair turn");
    }
}

#[tokio::test]
async fn the_direct_ask_keeps_the_client_s_tool_choice() {
    for choice in [
        json!("required"),
        json!({"type": "function", "function": {"name": "set_reminder"}}),
    ] {
        let (own, main) = nl_call_then_own_call().await;
        let translator = MockServer::scripted(garbage_translator()).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let mut asking = request(false);
        asking["tool_choice"] = choice.clone();
        let (status, body) = chat(&proxy, &asking).await;
        assert_eq!(status, 200, "{body}");
        let call = &body["choices"][0]["message"]["tool_calls"][0];
        let args: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, own, "{choice}");
        let requests = main.chat_requests();
        assert_eq!(requests.len(), 2, "the first turn and the direct ask");
        assert_eq!(requests[1].json()["tool_choice"], choice);
    }
}

#[tokio::test]
async fn another_tool_s_direct_call_is_checked_against_that_tool_s_schema() {
    // The other tool is one plaincall rewrites: its call is valid for its own schema or is no
    // call, and a value the conversation never gave is grounded away as in any call.
    let task = |task_type: &str| {
        json!({"schedule": "daily 9am", "task_type": task_type,
            "description": "weather in Paris", "execution_data": {"query": "weather in Paris"}})
    };
    let tools = vec![
        fixture_tool("set_reminder"),
        fixture_tool("add_recurring_task"),
    ];
    let invalid = tool_call("call_direct", "add_recurring_task", &task("weather_report"));
    let (message, main) = asked_directly(tools.clone(), vec![invalid]).await;
    assert_eq!(
        message["content"], "I could not do that.",
        "an invalid member is no call: the failure goes back to the main model"
    );
    assert_eq!(main.chat_requests().len(), 3, "the repair turn");

    let valid = tool_call("call_direct", "add_recurring_task", &task("web_search"));
    let (message, _) = asked_directly(tools, vec![valid]).await;
    let call = &message["tool_calls"][0];
    assert_eq!(call["function"]["name"], "add_recurring_task", "{message}");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["task_type"], "web_search");
    assert_eq!(args["execution_data"]["query"], "weather in Paris");
}

#[tokio::test]
async fn a_direct_call_to_a_tool_the_request_does_not_offer_is_no_call() {
    let unknown = tool_call("call_direct", "delete_everything", &json!({"really": true}));
    let (message, _) = asked_directly(weather_tools(), vec![unknown]).await;
    assert_eq!(message["content"], "I could not do that.");
    assert!(message.get("tool_calls").is_none(), "{message}");
}

/// Past the budget no repair turn starts: an objection to the tool that comes while the
/// direct ask is out waits for it, and the main model, shown every tool, may call the right one.
#[tokio::test]
async fn an_objection_past_the_budget_waits_for_the_direct_ask() {
    let weather = json!({"city": "Paris"});
    let first = calls_message(vec![nl_call("call_1", "set_reminder", WEATHER)]);
    let main = MockServer::scripted(vec![
        Reply::ok(completion(first, "tool_calls")),
        // Asked directly, it answers after the translator has objected.
        Reply::Delayed(
            std::time::Duration::from_millis(600),
            Box::new(Reply::ok(completion(
                calls_message(vec![tool_call("call_direct", "get_weather", &weather)]),
                "tool_calls",
            ))),
        ),
    ])
    .await;
    let objection = json!({"error": "wrong_tool", "reason": "this asks for the weather"});
    let translator = MockServer::scripted(vec![Reply::Delayed(
        std::time::Duration::from_millis(250),
        Box::new(translator_reply(&objection.to_string())),
    )])
    .await;
    let toml = format!(
        "[translation]\nbudget = \"100ms\"\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    let (status, body) = chat(&proxy, &weather_request(false, weather_tools())).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(translator.requests().len(), 1, "the objection came first");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_weather", "{body}");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, weather);
    assert_eq!(
        main.chat_requests().len(),
        2,
        "the first turn and the direct ask"
    );
}

/// Asked directly, a main model may answer its whole turn again: the described tool's call is
/// taken from it, and another tool's call only where it is the answer's one call, so that the
/// calls the turn already made do not go out twice.
#[tokio::test]
async fn a_direct_answer_of_several_calls_gives_only_the_described_tool_s() {
    let weather = json!({"city": "Paris"});
    for (answer, expected) in [
        (
            vec![
                tool_call("d1", "get_weather", &weather),
                tool_call("d2", "set_reminder", &own_call()),
            ],
            Some(("set_reminder", own_call())),
        ),
        (
            vec![
                tool_call("d1", "get_weather", &weather),
                tool_call("d2", "get_weather", &json!({"city": "Lyon"})),
            ],
            None,
        ),
        // Two calls of the described tool: which one this call was is unknown.
        (
            vec![
                tool_call("d1", "set_reminder", &own_call()),
                tool_call("d2", "set_reminder", &own_call()),
            ],
            None,
        ),
    ] {
        let (message, _) = asked_directly(weather_tools(), answer).await;
        match expected {
            Some((name, args)) => {
                let calls = message["tool_calls"].as_array().unwrap();
                assert_eq!(calls.len(), 1, "{message}");
                assert_eq!(calls[0]["function"]["name"], name);
                let got: Value =
                    serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap())
                        .unwrap();
                assert_eq!(got, args);
            }
            None => {
                assert!(message.get("tool_calls").is_none(), "{message}");
                assert_eq!(message["content"], "I could not do that.");
            }
        }
    }
}
