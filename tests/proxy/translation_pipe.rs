//! The non-streaming translation pipe end to end: a mock main model, a mock translator, and
//! plaincall between a client and both.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, completion, fixture_tool, nl_call, text_message, tool_call,
    translator_reply, translator_reply_ending, MockServer, Proxy, Reply,
};

const EMAIL: &str = "daily at 09:00 to check email";
/// What the user asked, in words that hold the values of [`email_args`].
const ASKED: &str = "remind me daily at 9 to check email";

fn email_args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

fn request(tools: Vec<Value>, messages: Vec<Value>) -> Value {
    json!({"model": "main-model", "messages": messages, "tools": tools, "temperature": 0, "top_k": 1})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn args_of(call: &Value) -> Value {
    serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap()
}

fn tool_named<'a>(request: &'a Value, name: &str) -> &'a Value {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == name)
        .unwrap()
}

#[tokio::test]
async fn a_single_nl_call_comes_back_structured() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let tools = vec![fixture_tool("set_reminder"), fixture_tool("get_weather")];
    let (status, body) = chat(&proxy, &request(tools.clone(), vec![user(ASKED)])).await;
    assert_eq!(status, 200, "{body}");
    let choice = &body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["id"], "call_a");
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "set_reminder");
    assert_eq!(
        call["function"]["arguments"],
        email_args().to_string(),
        "compact JSON"
    );
    // The upstream's envelope survives: id, model, usage, unknown fields.
    assert_eq!(body["id"], "chatcmpl-upstream-1");
    assert_eq!(body["system_fingerprint"], "fp_mock");
    assert_eq!(body["usage"]["total_tokens"], 15);
    assert_eq!(body["timings"]["predicted_per_second"], 61.5);

    // What the main model saw: the one-field schema, the simple tool untouched.
    let seen = main.chat_requests()[0].json();
    let nl = tool_named(&seen, "set_reminder");
    assert_eq!(
        nl["function"]["parameters"],
        json!({"type": "object", "properties": {"description": {"type": "string", "description": nl["function"]["parameters"]["properties"]["description"]["description"]}}, "required": ["description"], "additionalProperties": false})
    );
    let nl_description = nl["function"]["description"].as_str().unwrap();
    assert!(
        nl_description.starts_with("Schedule a reminder"),
        "{nl_description}"
    );
    assert!(
        nl_description.contains("When schedule_type is weekly, at and day_of_week are required."),
        "{nl_description}"
    );
    assert_eq!(
        tool_named(&seen, "get_weather"),
        &fixture_tool("get_weather")
    );
    assert_eq!(seen["top_k"], 1, "unknown request fields pass through");

    // What the translator got: its own model, a grammar, the schema and the description.
    let asked = translator.chat_requests()[0].json();
    assert_eq!(asked["model"], "translator-model");
    assert_eq!(asked["response_format"]["type"], "json_schema");
    let grammar = asked["response_format"]["json_schema"]["schema"].to_string();
    assert!(
        !grammar.contains("\"if\"") && !grammar.contains("allOf"),
        "conditionals are not sent to grammar engines"
    );
    let system = asked["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("\"day_of_week\""),
        "the full schema is in the prompt"
    );
    // The description, after the user's own latest message (the translator takes values from both).
    assert_eq!(
        asked["messages"][1],
        json!({"role": "user", "content": format!("User's latest message: {ASKED}\nDescription: {EMAIL}")})
    );
}

#[tokio::test]
async fn the_translator_reads_the_user_s_earlier_messages_of_the_exchange() {
    // The main model's description leaves out when; the user said it a message earlier.
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call(
            "call_a",
            "set_reminder",
            "Remind me to water the plants",
        )]),
        "tool_calls",
    ))])
    .await;
    let weekly = json!({"message": "Water the plants", "schedule_type": "weekly",
        "day_of_week": "mon", "at": "08:00"});
    let translator = MockServer::scripted(vec![translator_reply(&weekly.to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let messages = vec![
        user("I need a reminder every Monday at 08:00."),
        json!({"role": "assistant", "content": "What should it say?"}),
        user("Water the plants."),
    ];
    let (status, body) = chat(
        &proxy,
        &request(vec![fixture_tool("set_reminder")], messages),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        args_of(&body["choices"][0]["message"]["tool_calls"][0]),
        weekly
    );
    let asked = translator.chat_requests()[0].json();
    assert_eq!(
        asked["messages"][1]["content"],
        "User's earlier message: I need a reminder every Monday at 08:00.\nUser's latest message: Water the plants.\nDescription: Remind me to water the plants"
    );
}

#[tokio::test]
async fn grammar_output_sends_llama_cpp_a_grammar_without_free_whitespace() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let config = format!("{}output = \"grammar\"\n", backend_toml(&translator.url()));
    let proxy = Proxy::start(&main.url(), &config).await;
    let tools = vec![fixture_tool("set_reminder")];
    let (status, body) = chat(&proxy, &request(tools, vec![user(ASKED)])).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        args_of(&body["choices"][0]["message"]["tool_calls"][0]),
        email_args()
    );

    let asked = translator.chat_requests()[0].json();
    assert!(asked.get("response_format").is_none(), "{asked}");
    let grammar = asked["grammar"].as_str().unwrap();
    assert!(grammar.starts_with("root ::= "), "{grammar}");
    // Every member and value as the schema has it, and no rule that lets whitespace in.
    for piece in [
        r#""\"message\":" string"#,
        r#""\"schedule_type\":" ("\"once\"" | "\"daily\"""#,
        r#""\"day_of_month\":" integer"#,
        r#""\"error\":" "\"missing_info\"""#,
    ] {
        assert!(grammar.contains(piece), "{piece} in\n{grammar}");
    }
    for whitespace in ["ws ", "space", "\\n", "[ ", "\" \" |", "\"\\t\""] {
        assert!(!grammar.contains(whitespace), "{whitespace} in\n{grammar}");
    }
}

/// A translator reply as llama.cpp's llama-server writes it: with its `timings`.
fn llama_cpp_reply(content: &str) -> Reply {
    Reply::ok(json!({
        "id": "chatcmpl-translator",
        "object": "chat.completion",
        "created": 1,
        "model": "translator",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "timings": {"prompt_n": 12, "predicted_n": 20, "predicted_per_second": 9.5}
    }))
}

/// Two requests through plaincall, each with one NL call to `set_reminder`; the translator's
/// requests and the arguments delivered.
async fn two_translations(
    translator_replies: Vec<Reply>,
    backend: &str,
) -> (Vec<Value>, Vec<Value>) {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
            "tool_calls",
        )),
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_b",
                "set_reminder",
                "daily at 10:00 to stretch",
            )]),
            "tool_calls",
        )),
    ])
    .await;
    let translator = MockServer::scripted(translator_replies).await;
    let config = backend.replace("{url}", &translator.url());
    let proxy = Proxy::start(&main.url(), &config).await;
    let mut delivered = Vec::new();
    for text in [ASKED, "remind me daily at 10 to stretch"] {
        let (status, body) = chat(
            &proxy,
            &request(vec![fixture_tool("set_reminder")], vec![user(text)]),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        delivered.push(args_of(&body["choices"][0]["message"]["tool_calls"][0]));
    }
    let asked = translator
        .chat_requests()
        .iter()
        .map(|r| r.json())
        .collect();
    (asked, delivered)
}

fn stretch_args() -> Value {
    json!({"message": "Stretch", "schedule_type": "daily", "at": "10:00"})
}

const AUTO: &str =
    "[[translation.backends]]\nurl = \"{url}\"\nmodel = \"translator-model\"\noutput = \"auto\"\n";

#[tokio::test]
async fn auto_output_asks_llama_cpp_for_a_grammar_once_it_has_answered() {
    let (asked, delivered) = two_translations(
        vec![
            llama_cpp_reply(&email_args().to_string()),
            llama_cpp_reply(&stretch_args().to_string()),
        ],
        AUTO,
    )
    .await;
    assert_eq!(delivered, vec![email_args(), stretch_args()]);
    assert_eq!(asked.len(), 2);
    // Before its first answer nothing is known: the schema goes as `response_format`.
    assert_eq!(
        asked[0]["response_format"]["type"], "json_schema",
        "{}",
        asked[0]
    );
    assert!(asked[0].get("grammar").is_none());
    // The answer carried llama.cpp's `timings`: from then on, a grammar.
    assert!(asked[1].get("response_format").is_none(), "{}", asked[1]);
    assert!(asked[1]["grammar"]
        .as_str()
        .unwrap()
        .starts_with("root ::= "));
}

#[tokio::test]
async fn auto_output_keeps_json_schema_for_other_servers_and_as_configured() {
    // A server that is not llama.cpp.
    let (asked, delivered) = two_translations(
        vec![
            translator_reply(&email_args().to_string()),
            translator_reply(&stretch_args().to_string()),
        ],
        AUTO,
    )
    .await;
    assert_eq!(delivered, vec![email_args(), stretch_args()]);
    for request in &asked {
        assert_eq!(
            request["response_format"]["type"], "json_schema",
            "{request}"
        );
        assert!(request.get("grammar").is_none());
    }
    // llama.cpp, but `json_schema`, the default.
    let configured = backend_toml("{url}");
    let (asked, _) = two_translations(
        vec![
            llama_cpp_reply(&email_args().to_string()),
            llama_cpp_reply(&stretch_args().to_string()),
        ],
        &configured,
    )
    .await;
    for request in &asked {
        assert_eq!(
            request["response_format"]["type"], "json_schema",
            "{request}"
        );
    }
}

#[tokio::test]
async fn a_grammar_llama_cpp_refuses_costs_one_call_not_the_translation() {
    let (asked, delivered) = two_translations(
        vec![
            llama_cpp_reply(&email_args().to_string()),
            Reply::text(400, r#"{"error":{"code":400,"message":"Failed to parse grammar","type":"invalid_request_error"}}"#),
            llama_cpp_reply(&stretch_args().to_string()),
        ],
        AUTO,
    )
    .await;
    assert_eq!(delivered, vec![email_args(), stretch_args()]);
    assert_eq!(asked.len(), 3);
    assert!(asked[1].get("grammar").is_some());
    // The same call again at once, the schema as `response_format`, same messages.
    assert!(asked[2].get("grammar").is_none());
    assert_eq!(asked[2]["response_format"]["type"], "json_schema");
    assert_eq!(asked[2]["messages"], asked[1]["messages"]);
}

#[tokio::test]
async fn an_nl_call_beside_a_plain_call() {
    let weather = tool_call("call_w", "get_weather", &json!({"city": "Paris"}));
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![
            weather.clone(),
            nl_call("call_r", "set_reminder", EMAIL),
        ]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (_, body) = chat(
        &proxy,
        &request(
            vec![fixture_tool("set_reminder"), fixture_tool("get_weather")],
            vec![user(ASKED)],
        ),
    )
    .await;
    let calls = body["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0], weather,
        "the plain call is exactly as the upstream sent it"
    );
    assert_eq!(calls[1]["id"], "call_r");
    assert_eq!(args_of(&calls[1]), email_args());
}

#[tokio::test]
async fn several_nl_calls_are_translated_concurrently() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![
            nl_call("c1", "set_reminder", "one"),
            nl_call("c2", "set_reminder", "two"),
        ]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::start(|r| {
        let message = if r.user_message().ends_with("one") {
            "One"
        } else {
            "Two"
        };
        let reply = translator_reply(
            &json!({"message": message, "schedule_type": "daily", "at": "08:00"}).to_string(),
        );
        Reply::Delayed(std::time::Duration::from_millis(300), Box::new(reply))
    })
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (_, body) = chat(
        &proxy,
        &request(
            vec![fixture_tool("set_reminder")],
            vec![user("every day at 8: one, and two")],
        ),
    )
    .await;
    let calls = body["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(
        args_of(&calls[0])["message"],
        "One",
        "results keep the main model's order"
    );
    assert_eq!(args_of(&calls[1])["message"], "Two");
    assert_eq!(
        translator
            .max_in_flight
            .load(std::sync::atomic::Ordering::SeqCst),
        2,
        "both translations were in flight together"
    );
}

fn spawn_array() -> Value {
    json!([
        {"objective": "Research asyncio. Write data/a.md.", "depends_on_previous": false},
        {"objective": "Review data/a.md and add examples.", "depends_on_previous": true}
    ])
}

const RESEARCH: &str = "research asyncio into data/a.md, then review it and add examples";

#[tokio::test]
async fn an_array_fans_out_and_the_next_turn_merges_it_back() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_s", "spawn_sub_session", RESEARCH)]),
            "tool_calls",
        )),
        Reply::ok(completion(
            text_message("Both workers are running."),
            "stop",
        )),
    ])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&spawn_array().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let tools = vec![fixture_tool("spawn_sub_session")];
    let (_, body) = chat(&proxy, &request(tools.clone(), vec![user(RESEARCH)])).await;
    let message = body["choices"][0]["message"].clone();
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"], "call_s__1of2");
    assert_eq!(calls[1]["id"], "call_s__2of2");
    assert_eq!(args_of(&calls[1]), spawn_array()[1]);

    let history = vec![
        user(RESEARCH),
        message.clone(),
        json!({"role": "tool", "tool_call_id": "call_s__1of2", "content": "session s1 started"}),
        json!({"role": "tool", "tool_call_id": "call_s__2of2", "content": "session s2 started"}),
    ];
    let (_, body) = chat(&proxy, &request(tools, history)).await;
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "Both workers are running."
    );
    let seen = main.chat_requests()[1].json();
    let messages = seen["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        3,
        "the fanned-out calls and results are merged: {messages:?}"
    );
    let merged_call = &messages[1]["tool_calls"];
    assert_eq!(merged_call.as_array().unwrap().len(), 1);
    assert_eq!(merged_call[0]["id"], "call_s");
    assert_eq!(
        args_of(&merged_call[0]),
        json!({"description": RESEARCH}),
        "the original description"
    );
    assert_eq!(messages[2]["tool_call_id"], "call_s");
    let content = messages[2]["content"].as_str().unwrap();
    assert_eq!(
        content,
        "[Translated to: objective=\"Research asyncio. Write data/a.md.\", depends_on_previous=false]\nsession s1 started\n---\n[Translated to: objective=\"Review data/a.md and add examples.\", depends_on_previous=true]\nsession s2 started"
    );
}

#[tokio::test]
async fn invalid_array_elements_are_dropped_and_reported_next_turn() {
    let answer = json!([
        {"action": "add", "content": "Buy milk"},
        {"action": "complete", "task_id": 3},
        {"action": "add", "content": "Book dentist"}
    ]);
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call(
                "call_t",
                "task",
                "add milk, finish 3, book dentist",
            )]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("done"), "stop")),
        Reply::ok(completion(text_message("done"), "stop")),
    ])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&answer.to_string())]).await;
    let backend = backend_toml(&translator.url());
    let proxy = Proxy::start(&main.url(), &backend).await;
    let tools = vec![fixture_tool("task")];
    let (_, body) = chat(&proxy, &request(tools.clone(), vec![user("go")])).await;
    let message = body["choices"][0]["message"].clone();
    let ids: Vec<&str> = message["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["call_t__1of3", "call_t__3of3"]);

    let history = vec![
        user("go"),
        message,
        json!({"role": "tool", "tool_call_id": "call_t__1of3", "content": "task 1 added"}),
        json!({"role": "tool", "tool_call_id": "call_t__3of3", "content": "task 2 added"}),
    ];
    chat(&proxy, &request(tools.clone(), history.clone())).await;
    let content = main.chat_requests()[1].json()["messages"][2]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(content.contains("[Note: 1 of the 3 calls translated from your description was invalid and was not made: element 2:"), "{content}");
    assert!(
        content.contains("reason"),
        "the validation error is named: {content}"
    );

    // Another process knows nothing of the translation, yet still reports the drop.
    let other = Proxy::start(&main.url(), &backend).await;
    chat(&other, &request(tools, history)).await;
    let content = main.chat_requests()[2].json()["messages"][2]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(content.ends_with("[Note: 1 of the 3 calls translated from your description was invalid and was not made]"), "{content}");
}

#[tokio::test]
async fn the_second_turn_works_on_another_instance() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("Reminder set."), "stop")),
    ])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let first = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let second = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let tools = vec![fixture_tool("set_reminder")];
    let (_, body) = chat(&first, &request(tools.clone(), vec![user(ASKED)])).await;
    let history = vec![
        user(ASKED),
        body["choices"][0]["message"].clone(),
        json!({"role": "tool", "tool_call_id": "call_a", "content": "Reminder set: job 7"}),
    ];
    let (status, body) = chat(&second, &request(tools, history)).await;
    assert_eq!(status, 200);
    assert_eq!(body["choices"][0]["message"]["content"], "Reminder set.");
    let seen = main.chat_requests()[1].json();
    let call = &seen["messages"][1]["tool_calls"][0];
    assert_eq!(call["id"], "call_a");
    assert_eq!(
        args_of(call),
        json!({"description": "message=\"Check email\", schedule_type=\"daily\", at=\"09:00\""}),
        "derived from the arguments when the description is not known"
    );
    assert_eq!(
        seen["messages"][2]["content"],
        "[Translated to: message=\"Check email\", schedule_type=\"daily\", at=\"09:00\"]\nReminder set: job 7"
    );
    assert_eq!(translator.chat_requests().len(), 1);
}

/// The main model's first turn of the repair tests: one plain-English `set_reminder` call.
fn reminder_call() -> Reply {
    Reply::ok(completion(
        calls_message(vec![nl_call(
            "call_c",
            "set_reminder",
            "remind me to call John",
        )]),
        "tool_calls",
    ))
}

/// The translator's answer to it: a question about when.
fn when_clarification() -> Reply {
    translator_reply(
        r#"{"error": "missing_info", "clarification_needed": "When should the reminder fire?"}"#,
    )
}

fn reminder_request() -> Value {
    request(
        vec![fixture_tool("set_reminder")],
        vec![user("remind me to call John")],
    )
}

#[tokio::test]
async fn a_clarification_runs_a_repair_turn() {
    let main = MockServer::scripted(vec![
        reminder_call(),
        Reply::ok(completion(
            text_message("When should I remind you to call John?"),
            "stop",
        )),
    ])
    .await;
    let translator = MockServer::scripted(vec![when_clarification()]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &reminder_request()).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "When should I remind you to call John?"
    );
    assert!(body["choices"][0]["message"].get("tool_calls").is_none());
    assert_eq!(
        body["usage"]["total_tokens"], 30,
        "usage is summed over both main-model calls"
    );
    assert_eq!(body["id"], "chatcmpl-upstream-1");

    let repair = main.chat_requests()[1].json();
    let messages = repair["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(messages[n - 2]["role"], "assistant");
    assert_eq!(
        args_of(&messages[n - 2]["tool_calls"][0]),
        json!({"description": "remind me to call John"})
    );
    assert_eq!(
        messages[n - 1],
        json!({"role": "tool", "tool_call_id": "call_c", "content": "[TRANSLATION AMBIGUITY] When should the reminder fire?"})
    );
    assert!(proxy.metrics().contains(
        "plaincall_translations_total{tool=\"set_reminder\",outcome=\"clarification\"} 1"
    ));
    assert!(proxy.metrics().contains("plaincall_repair_turns_total 1"));
    // plaincall asked for the repair turn, so it bounds it: the client set no limit.
    assert_eq!(repair["max_tokens"], 4096);
    assert!(main.chat_requests()[0].json().get("max_tokens").is_none());
}

/// A whole client's repair turn is asked as a stream, like every turn the driver reads, and
/// folded into the answer; one whose stream ends with the upstream's error event is that error
/// (a 502 that carries it), never a partial answer.
#[tokio::test]
async fn a_whole_clients_repair_turn_is_read_as_a_stream() {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-repair", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let error = json!({"error": {"message": "the model crashed", "type": "server_error"}});
    let main = MockServer::scripted(vec![
        reminder_call(),
        Reply::sse(vec![
            chunk(
                json!({"role": "assistant", "content": "When should"}),
                Value::Null,
            ),
            chunk(json!({"content": " I remind you?"}), json!("stop")),
            json!({"id": "chatcmpl-repair", "choices": [],
                "usage": {"prompt_tokens": 7, "completion_tokens": 4, "total_tokens": 11}}),
        ]),
        reminder_call(),
        Reply::SseRaw(vec![
            format!(
                "data: {}\n\n",
                chunk(json!({"content": "When"}), Value::Null)
            ),
            format!("data: {error}\n\n"),
        ]),
    ])
    .await;
    let translator = MockServer::scripted(vec![when_clarification(), when_clarification()]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let body = reminder_request();
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["content"], "When should I remind you?", "{answer}");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    // The first turn's 15 tokens and the repair turn's 11.
    assert_eq!(answer["usage"]["total_tokens"], 26, "{answer}");
    assert_eq!(answer["id"], "chatcmpl-upstream-1");
    let repair = main.chat_requests()[1].json();
    assert_eq!(repair["stream"], true);
    assert_eq!(repair["stream_options"]["include_usage"], true);

    let (status, failed) = chat(&proxy, &body).await;
    assert_eq!(status, 502, "{failed}");
    assert_eq!(
        failed["error"]["code"], "upstream_protocol_error",
        "{failed}"
    );
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the model crashed"),
        "{failed}"
    );
}

/// With the runaway watch off (`description_limit = 0`, for an upstream that cannot stream),
/// a whole client's repair turn is asked whole, as its first turn is.
#[tokio::test]
async fn with_the_watch_off_a_whole_clients_repair_turn_is_asked_whole() {
    let main = MockServer::scripted(vec![
        reminder_call(),
        Reply::ok(completion(text_message("When?"), "stop")),
    ])
    .await;
    let translator = MockServer::scripted(vec![when_clarification()]).await;
    let settings = format!(
        "{}[translation]\ndescription_limit = 0\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &settings).await;
    let body = reminder_request();
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["choices"][0]["message"]["content"], "When?");
    for turn in main.chat_requests() {
        let sent = turn.json();
        assert_ne!(sent["stream"], true, "{sent}");
        assert!(sent.get("stream_options").is_none(), "{sent}");
    }
    assert_eq!(main.chat_requests().len(), 2);
}

/// A repair turn is bounded by `translation.repair_max_tokens`, under the client's own name
/// for the limit; a client's lower limit stays.
#[tokio::test]
async fn a_repair_turn_writes_at_most_repair_max_tokens() {
    for (key, asked, sent) in [
        ("max_tokens", 9000, 300),
        ("max_completion_tokens", 9000, 300),
        ("max_tokens", 120, 120),
    ] {
        let main = MockServer::scripted(vec![
            reminder_call(),
            Reply::ok(completion(text_message("When?"), "stop")),
        ])
        .await;
        let translator = MockServer::scripted(vec![when_clarification()]).await;
        let settings = format!(
            "{}[translation]\nrepair_max_tokens = 300\n",
            backend_toml(&translator.url())
        );
        let proxy = Proxy::start(&main.url(), &settings).await;
        let mut body = reminder_request();
        body[key] = json!(asked);
        let (status, _) = chat(&proxy, &body).await;
        assert_eq!(status, 200);
        let turns = main.chat_requests();
        assert_eq!(
            turns[0].json()[key],
            asked,
            "the client's own turn is as it asked"
        );
        let repair = turns[1].json();
        assert_eq!(repair[key], sent, "{key} {asked}");
        let other = if key == "max_tokens" {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        assert!(repair.get(other).is_none(), "{repair}");
    }
}

#[tokio::test]
async fn an_invalid_answer_is_retried_with_the_errors_spelled_out() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call(
            "call_w",
            "set_reminder",
            "every Monday at 14:00 to review pulse",
        )]),
        "tool_calls",
    ))])
    .await;
    let good = json!({"message": "Review pulse", "schedule_type": "weekly", "at": "14:00", "day_of_week": "mon"});
    let translator = MockServer::scripted(vec![
        translator_reply(
            r#"{"message": "Review pulse", "schedule_type": "weekly", "at": "14:00"}"#,
        ),
        translator_reply(&good.to_string()),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (_, body) = chat(
        &proxy,
        &request(
            vec![fixture_tool("set_reminder")],
            vec![user("every Monday at 14:00, review pulse")],
        ),
    )
    .await;
    assert_eq!(
        args_of(&body["choices"][0]["message"]["tool_calls"][0]),
        good
    );
    let retry = translator.chat_requests()[1].json();
    let messages = retry["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[2]["role"], "assistant");
    let feedback = messages[3]["content"].as_str().unwrap();
    assert!(feedback.contains("day_of_week"), "{feedback}");
    assert!(proxy.metrics().contains("outcome=\"retried\"} 1"));
}

#[tokio::test]
async fn fences_and_prose_around_the_answer_are_stripped() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("c", "set_reminder", EMAIL)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&format!(
        "Sure! Here are the arguments:\n```json\n{}\n```\nLet me know if you need more.",
        serde_json::to_string_pretty(&email_args()).unwrap()
    ))])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (_, body) = chat(
        &proxy,
        &request(vec![fixture_tool("set_reminder")], vec![user(ASKED)]),
    )
    .await;
    assert_eq!(
        args_of(&body["choices"][0]["message"]["tool_calls"][0]),
        email_args()
    );
}

/// One call to `set_reminder` after some text, translated by `translator` with no repair turn
/// (`settings` go into `[translation]`): the answer the client gets.
async fn without_repair_turns(translator: &MockServer, settings: &str) -> (u16, Value) {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        json!({"role": "assistant", "content": "Setting that up.", "tool_calls": [nl_call("c", "set_reminder", EMAIL)]}),
        "tool_calls",
    ))])
    .await;
    let proxy = Proxy::start(
        &main.url(),
        &format!(
            "[translation]\nrepair_turns = 0\n{settings}{}",
            backend_toml(&translator.url())
        ),
    )
    .await;
    chat(
        &proxy,
        &request(vec![fixture_tool("set_reminder")], vec![user(ASKED)]),
    )
    .await
}

#[tokio::test]
async fn garbage_from_the_translator_ends_as_assistant_text() {
    let translator =
        MockServer::start(|_| translator_reply("I am not able to produce JSON today.")).await;
    let (status, body) = without_repair_turns(&translator, "").await;
    assert_eq!(status, 200);
    let message = &body["choices"][0]["message"];
    let content = message["content"].as_str().unwrap();
    assert!(content.starts_with("Setting that up.\n\nI could not complete the tool call: the set_reminder call could not be translated"), "{content}");
    assert!(message.get("tool_calls").is_none());
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        translator.chat_requests().len(),
        2,
        "attempts = 2 by default"
    );
}

#[tokio::test]
async fn a_translator_answer_with_a_malformed_field_says_which() {
    // The content is a good translation, but `finish_reason` is not text: read as every turn
    // is, the answer is malformed, not a call nor "no content".
    let answer = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"});
    let translator = MockServer::start(move |_| {
        Reply::ok(json!({"id": "t", "object": "chat.completion", "created": 1, "model": "translator",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.to_string()},
                "finish_reason": 7}]}))
    })
    .await;
    let (status, body) = without_repair_turns(&translator, "").await;
    assert_eq!(status, 200, "{body}");
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(
        content.contains("`finish_reason` is malformed"),
        "{content}"
    );
    assert!(body["choices"][0]["message"].get("tool_calls").is_none());
}

#[tokio::test]
async fn an_answer_cut_off_at_max_tokens_is_not_retried() {
    // A looping model: it fills max_tokens, and would fill them again on a retry.
    let translator = MockServer::start(|_| {
        translator_reply_ending(
            r#"{"message": "Review review review review review"#,
            "length",
        )
    })
    .await;
    let (status, body) = without_repair_turns(&translator, "max_tokens = 64\n").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(translator.chat_requests().len(), 1, "no second attempt");
    assert_eq!(translator.chat_requests()[0].json()["max_tokens"], 64);
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(
        content.contains("cut off at translation.max_tokens (64)"),
        "{content}"
    );
    assert!(body["choices"][0]["message"].get("tool_calls").is_none());
}

#[tokio::test]
async fn a_dead_translator_becomes_a_repair_turn_then_text() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let nl = || {
        Reply::ok(completion(
            calls_message(vec![nl_call("c", "set_reminder", EMAIL)]),
            "tool_calls",
        ))
    };
    // The first failure also asks the main model for the call directly, once.
    let main = MockServer::scripted(vec![nl(), support::no_direct_call(), nl(), nl()]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&format!("http://{closed}/v1"))).await;
    let (status, body) = chat(
        &proxy,
        &request(vec![fixture_tool("set_reminder")], vec![user(ASKED)]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(
        content.contains("could not be translated") && content.contains("translator failed"),
        "{content}"
    );
    let requests = main.chat_requests();
    assert_eq!(
        requests.len(),
        4,
        "the first call, the direct ask, two repair turns"
    );
    let last = requests[3].json();
    let tool_message = last["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        tool_message.starts_with("[TRANSLATION ERROR] the translator failed"),
        "{tool_message}"
    );
    assert!(
        !tool_message.contains(&closed.to_string()) || tool_message.contains("translator-model"),
        "{tool_message}"
    );
}

#[tokio::test]
async fn identical_translations_are_served_from_the_cache() {
    let reply = || {
        Reply::ok(completion(
            calls_message(vec![nl_call("c", "set_reminder", EMAIL)]),
            "tool_calls",
        ))
    };
    let main = MockServer::scripted(vec![reply(), reply(), reply()]).await;
    let translator = MockServer::start(|_| translator_reply(&email_args().to_string())).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    for _ in 0..3 {
        let (_, body) = chat(
            &proxy,
            &request(vec![fixture_tool("set_reminder")], vec![user(ASKED)]),
        )
        .await;
        assert_eq!(
            args_of(&body["choices"][0]["message"]["tool_calls"][0]),
            email_args()
        );
    }
    assert_eq!(translator.chat_requests().len(), 1);
    let metrics = proxy.metrics();
    assert!(
        metrics.contains("plaincall_translation_cache_hits_total 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("plaincall_translation_cache_misses_total 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn auto_selection_on_the_shared_fixtures() {
    let main = MockServer::scripted(vec![Reply::ok(completion(text_message("ok"), "stop"))]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let names = [
        "set_reminder",
        "task",
        "spawn_sub_session",
        "add_recurring_task",
        "get_weather",
        "add_skill",
    ];
    let tools: Vec<Value> = names.iter().map(|n| fixture_tool(n)).collect();
    chat(&proxy, &request(tools, vec![user(ASKED)])).await;
    let seen = main.chat_requests()[0].json();
    for name in &names[..4] {
        let params = &tool_named(&seen, name)["function"]["parameters"];
        // add_recurring_task has a `description` of its own: its one field is `request`.
        let field = if *name == "add_recurring_task" {
            "request"
        } else {
            "description"
        };
        assert_eq!(params["required"], json!([field]), "{name} is rewritten");
    }
    for name in &names[4..] {
        assert_eq!(
            tool_named(&seen, name),
            &fixture_tool(name),
            "{name} is left alone"
        );
    }
}

/// BFCL's `find_card_in_deck`: the request gives `rank` and `suit`; only the optional `deck`
/// is an array of objects. Shown as one string field, the 0.5B picked another tool; so by
/// default it stays native (its calls still checked), and `rewrite_optional_nested` brings
/// the old rule back.
#[tokio::test]
async fn a_tool_whose_only_nested_property_is_optional_stays_native() {
    let tool = json!({"type": "function", "function": {"name": "find_card_in_deck",
        "description": "Locate a particular card in a deck.",
        "parameters": {"type": "object", "properties": {
            "rank": {"type": "string"}, "suit": {"type": "string"},
            "deck": {"type": "array", "items": {"type": "object", "properties": {
                "rank": {"type": "string"}, "suit": {"type": "string"}}}}},
        "required": ["rank", "suit"]}}});
    for (settings, rewritten) in [
        ("", false),
        ("[translation]\nrewrite_optional_nested = true\n", true),
    ] {
        let main =
            MockServer::scripted(vec![Reply::ok(completion(text_message("ok"), "stop"))]).await;
        let proxy = Proxy::start(&main.url(), settings).await;
        chat(&proxy, &request(vec![tool.clone()], vec![user(ASKED)])).await;
        let seen = main.chat_requests()[0].json();
        let shown = tool_named(&seen, "find_card_in_deck");
        assert_eq!(shown != &tool, rewritten, "{settings:?}: {shown}");
    }
}

#[tokio::test]
async fn per_tool_modes_and_the_header_switch() {
    let main = MockServer::start(|_| Reply::ok(completion(text_message("ok"), "stop"))).await;
    let proxy = Proxy::start(
        &main.url(),
        "[translation.tools]\nget_weather = \"nl\"\nset_reminder = \"passthrough\"\n",
    )
    .await;
    let tools = vec![fixture_tool("set_reminder"), fixture_tool("get_weather")];
    chat(&proxy, &request(tools.clone(), vec![user(ASKED)])).await;
    let seen = main.chat_requests()[0].json();
    assert_eq!(
        tool_named(&seen, "set_reminder"),
        &fixture_tool("set_reminder")
    );
    assert_eq!(
        tool_named(&seen, "get_weather")["function"]["parameters"]["required"],
        json!(["description"])
    );

    let raw = request(tools, vec![user(ASKED)]).to_string();
    support::client()
        .post(proxy.url("/v1/chat/completions"))
        .header("x-plaincall-translate", "off")
        .body(raw.clone())
        .send()
        .await
        .unwrap();
    let second = &main.chat_requests()[1];
    assert_eq!(
        second.body,
        raw.as_bytes(),
        "translation off: forwarded byte for byte"
    );
    assert!(second.headers.get("x-plaincall-translate").is_none());
}

#[tokio::test]
async fn strict_and_tool_choice_keep_working() {
    let main = MockServer::scripted(vec![Reply::ok(completion(text_message("ok"), "stop"))]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let mut tool = fixture_tool("set_reminder");
    tool["function"]["strict"] = json!(true);
    let mut body = request(vec![tool], vec![user(ASKED)]);
    body["tool_choice"] = json!({"type": "function", "function": {"name": "set_reminder"}});
    body["parallel_tool_calls"] = json!(false);
    chat(&proxy, &body).await;
    let seen = main.chat_requests()[0].json();
    assert_eq!(seen["tool_choice"], body["tool_choice"]);
    assert_eq!(seen["parallel_tool_calls"], false);
    let function = &seen["tools"][0]["function"];
    assert_eq!(function["strict"], true);
    assert_eq!(
        function["parameters"]["additionalProperties"], false,
        "strict mode needs a closed schema"
    );
}

#[tokio::test]
async fn a_response_without_nl_calls_is_returned_unchanged() {
    let upstream_body = r#"{"id":"u","choices":[{"index":0,"message":{"role":"assistant","content":"no tools needed"},"finish_reason":"stop"}],"n":12345678901234567890}"#;
    let main = MockServer::start(move |_| Reply::text(200, upstream_body)).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let response = support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(
            vec![fixture_tool("set_reminder")],
            vec![user("hi")],
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), upstream_body);
}

#[tokio::test]
async fn the_upstream_translates_when_no_backend_is_configured() {
    let main = MockServer::start(|r| {
        let body = r.json();
        if body.get("response_format").is_some() {
            assert_eq!(
                body["model"], "main-model",
                "the request's own model translates"
            );
            translator_reply(&email_args().to_string())
        } else {
            Reply::ok(completion(
                calls_message(vec![nl_call("c", "set_reminder", EMAIL)]),
                "tool_calls",
            ))
        }
    })
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let (_, body) = chat(
        &proxy,
        &request(vec![fixture_tool("set_reminder")], vec![user(ASKED)]),
    )
    .await;
    assert_eq!(
        args_of(&body["choices"][0]["message"]["tool_calls"][0]),
        email_args()
    );
    assert_eq!(main.chat_requests().len(), 2);
}

#[tokio::test]
async fn backends_fall_back_in_order() {
    let broken = MockServer::start(|_| Reply::text(503, "overloaded")).await;
    let good = MockServer::start(|_| translator_reply(&email_args().to_string())).await;
    // The main model describes whatever the user said, so each request needs a translation.
    let main = MockServer::start(|r| {
        Reply::ok(completion(
            calls_message(vec![nl_call("c", "set_reminder", &r.user_message())]),
            "tool_calls",
        ))
    })
    .await;
    let config = format!(
        "{}{}",
        backend_toml(&broken.url()),
        backend_toml(&good.url())
    );
    let proxy = Proxy::start(&main.url(), &config).await;
    for description in ["daily at 9 check email", "daily at nine, check the email"] {
        let (_, response) = chat(
            &proxy,
            &request(vec![fixture_tool("set_reminder")], vec![user(description)]),
        )
        .await;
        assert_eq!(
            args_of(&response["choices"][0]["message"]["tool_calls"][0]),
            email_args()
        );
    }
    // The broken backend was tried once, then rested while the second one served.
    assert_eq!(broken.chat_requests().len(), 1);
    assert_eq!(good.chat_requests().len(), 2);
}

/// A tool with a `description` property of its own (an issue tracker's `create_issue`): the
/// plain-English field takes another name, so the two are never taken for each other, in the
/// call the main model makes or in the history that comes back.
#[tokio::test]
async fn a_tool_with_its_own_description_keeps_it() {
    let create_issue = json!({"type": "function", "function": {
        "name": "create_issue", "description": "Open an issue in the tracker.",
        "parameters": {"type": "object", "required": ["title", "description"], "properties": {
            "title": {"type": "string"}, "description": {"type": "string"},
            "labels": {"type": "array", "items": {"type": "string"}},
            "assignee": {"type": "string"}, "priority": {"enum": ["low", "high"]},
            "milestone": {"type": "string"}}}}});
    let asked = "Open an issue: login fails on Safari, users see a blank page";
    let issue = json!({"title": "Login fails on Safari", "description": "Users see a blank page."});
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![tool_call(
                "call_i",
                "create_issue",
                &json!({"request": asked}),
            )]),
            "tool_calls",
        )),
        Reply::ok(completion(text_message("Opened."), "stop")),
    ])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&issue.to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let tools = vec![create_issue];
    let (status, body) = chat(&proxy, &request(tools.clone(), vec![user(asked)])).await;
    assert_eq!(status, 200, "{body}");
    let seen = main.chat_requests()[0].json();
    let shown = &tool_named(&seen, "create_issue")["function"]["parameters"];
    assert_eq!(shown["required"], json!(["request"]), "{shown}");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(args_of(call), issue);

    // Next turn: the structured call, `description` and all, goes back to the one field.
    let history = vec![
        user(asked),
        body["choices"][0]["message"].clone(),
        json!({"role": "tool", "tool_call_id": "call_i", "content": "issue #12"}),
    ];
    let (status, _) = chat(&proxy, &request(tools, history)).await;
    assert_eq!(status, 200);
    let seen = main.chat_requests()[1].json();
    let sent = args_of(&seen["messages"][1]["tool_calls"][0]);
    assert_eq!(sent, json!({"request": asked}), "{seen}");
}
