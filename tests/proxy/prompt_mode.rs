//! Prompt-based tool calling: tools in the system prompt, calls parsed out of the reply text,
//! the client still speaking native tools; with and without translation, streaming and not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, chat, completion, fixture_tool, text_message, translator_reply, MockServer,
    Proxy, Reply,
};

const PROMPT_MODE: &str = "[tool_calling]\ndefault = \"prompt\"\n";

fn fenced(name: &str, arguments: Value) -> String {
    format!(
        "```json\n{}\n```",
        json!({"name": name, "arguments": arguments})
    )
}

fn request(tools: Vec<Value>, messages: Vec<Value>) -> Value {
    json!({"model": "small-model", "messages": messages, "tools": tools, "tool_choice": "auto"})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn system_text(seen: &Value) -> String {
    let first = &seen["messages"][0];
    assert_eq!(first["role"], "system", "{seen}");
    first["content"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn tools_go_into_the_prompt_and_calls_come_back_native() {
    let reply = format!(
        "I'll look that up.\n{}",
        fenced("get_weather", json!({"city": "Paris"}))
    );
    let main =
        MockServer::scripted(vec![Reply::ok(completion(text_message(&reply), "stop"))]).await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let messages = vec![
        json!({"role": "system", "content": "You are terse."}),
        user("weather in Paris?"),
    ];
    let (status, body) = chat(
        &proxy,
        &request(vec![fixture_tool("get_weather")], messages),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    let seen = main.chat_requests()[0].json();
    for key in ["tools", "tool_choice"] {
        assert!(seen.get(key).is_none(), "{key} is not sent in prompt mode");
    }
    let system = system_text(&seen);
    assert!(system.starts_with("You are terse.\n\n# Tools"), "{system}");
    assert!(
        system.contains("## get_weather") && system.contains("\"city\""),
        "{system}"
    );
    assert!(
        system.contains(r#"{"name":"get_weather","arguments":{"city":"..."}}"#),
        "one example per tool: {system}"
    );

    let choice = &body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "I'll look that up.");
    let call = &choice["message"]["tool_calls"][0];
    assert!(call["id"].as_str().unwrap().starts_with("call_"));
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "get_weather");
    assert_eq!(call["function"]["arguments"], r#"{"city":"Paris"}"#);
}

#[tokio::test]
async fn text_without_calls_and_calls_to_unknown_tools_stay_text() {
    let reply = format!(
        "No tool needed. {}\nThe set {{1, 2}} is small.",
        fenced("rm_rf", json!({}))
    );
    let upstream_body = completion(text_message(&reply), "stop");
    let main = MockServer::scripted(vec![Reply::ok(upstream_body.clone())]).await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let (_, body) = chat(
        &proxy,
        &request(vec![fixture_tool("get_weather")], vec![user("hi")]),
    )
    .await;
    assert_eq!(body, upstream_body, "the response is passed on unchanged");
}

#[tokio::test]
async fn the_second_turn_reaches_the_upstream_as_text() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        text_message("It is 21C in Paris."),
        "stop",
    ))])
    .await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let history = vec![
        user("weather in Paris?"),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
        ]}),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "21C, sunny"}),
    ];
    let (_, body) = chat(&proxy, &request(vec![fixture_tool("get_weather")], history)).await;
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "It is 21C in Paris."
    );
    let seen = main.chat_requests()[0].json();
    let messages = seen["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        4,
        "catalog system message, user, assistant, tool result"
    );
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": fenced("get_weather", json!({"city": "Paris"}))})
    );
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": "[Tool result for get_weather, call call_1]\n21C, sunny"})
    );
}

#[tokio::test]
async fn prompt_mode_composes_with_translation() {
    let reply = fenced(
        "set_reminder",
        json!({"description": "daily at 09:00 to check email"}),
    );
    let main =
        MockServer::scripted(vec![Reply::ok(completion(text_message(&reply), "stop"))]).await;
    let args = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"});
    let translator = MockServer::scripted(vec![translator_reply(&args.to_string())]).await;
    let proxy = Proxy::start(
        &main.url(),
        &format!("{PROMPT_MODE}{}", backend_toml(&translator.url())),
    )
    .await;
    let (_, body) = chat(
        &proxy,
        &request(
            vec![fixture_tool("set_reminder")],
            vec![user("remind me daily at 9 to check email")],
        ),
    )
    .await;
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "set_reminder");
    assert_eq!(
        serde_json::from_str::<Value>(call["function"]["arguments"].as_str().unwrap()).unwrap(),
        args
    );
    let system = system_text(&main.chat_requests()[0].json());
    assert!(
        system.contains(r#"{"name":"set_reminder","arguments":{"description":"..."}}"#),
        "the NL form is in the prompt: {system}"
    );
    assert!(
        !system.contains("day_of_week\":{"),
        "the full schema is not: {system}"
    );
}

#[tokio::test]
async fn required_tool_choice_becomes_an_instruction_and_a_grammar() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        text_message(r#"{"name": "get_weather", "arguments": {"city": "Oslo"}}"#),
        "stop",
    ))])
    .await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let mut body = request(vec![fixture_tool("get_weather")], vec![user("Oslo")]);
    body["tool_choice"] = json!({"type": "function", "function": {"name": "get_weather"}});
    let (_, response) = chat(&proxy, &body).await;
    assert_eq!(
        response["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        r#"{"city":"Oslo"}"#
    );
    let seen = main.chat_requests()[0].json();
    assert!(system_text(&seen).contains("In this reply you must call the tool `get_weather`."));
    let schema = &seen["response_format"]["json_schema"]["schema"]["anyOf"][0];
    assert_eq!(schema["properties"]["name"]["const"], "get_weather");
    assert_eq!(
        schema["properties"]["arguments"]["properties"]["city"]["type"],
        "string"
    );
}

#[tokio::test]
async fn auto_mode_switches_after_the_upstream_rejects_tools() {
    let main = MockServer::start(|r| {
        if r.json().get("tools").is_some() {
            Reply::text(500, r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#)
        } else {
            Reply::ok(completion(text_message(&fenced("get_weather", json!({"city": "Rome"}))), "stop"))
        }
    })
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    for round in 0..2 {
        let (status, body) = chat(
            &proxy,
            &request(vec![fixture_tool("get_weather")], vec![user("Rome?")]),
        )
        .await;
        assert_eq!(status, 200, "round {round}: {body}");
        assert_eq!(
            body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            r#"{"city":"Rome"}"#
        );
    }
    let requests = main.chat_requests();
    assert_eq!(
        requests.len(),
        3,
        "one rejection, then prompt mode from the start"
    );
    assert!(requests[0].json().get("tools").is_some());
    assert!(requests[1].json().get("tools").is_none() && requests[2].json().get("tools").is_none());
    assert!(
        proxy
            .metrics()
            .contains("plaincall_prompt_mode_switches_total{model=\"small-model\"} 1"),
        "{}",
        proxy.metrics()
    );

    // Another model keeps native tools, and errors unrelated to tools pass through.
    let other =
        MockServer::start(|_| Reply::text(503, r#"{"error":{"message":"loading model"}}"#)).await;
    let proxy = Proxy::start(&other.url(), "").await;
    let (status, body) = chat(
        &proxy,
        &request(vec![fixture_tool("get_weather")], vec![user("x")]),
    )
    .await;
    assert_eq!(status, 503);
    assert_eq!(body["error"]["message"], "loading model");
}

#[tokio::test]
async fn a_glob_picks_the_mode_per_model() {
    let main = MockServer::start(|_| Reply::ok(completion(text_message("ok"), "stop"))).await;
    let config = "[[tool_calling.models]]\npattern = \"qwen2.5-coder-*\"\nmode = \"prompt\"\n";
    let proxy = Proxy::start(&main.url(), config).await;
    for model in ["qwen2.5-coder-0.5b", "gpt-4o"] {
        let mut body = request(vec![fixture_tool("get_weather")], vec![user("x")]);
        body["model"] = json!(model);
        chat(&proxy, &body).await;
    }
    let requests = main.chat_requests();
    assert!(
        requests[0].json().get("tools").is_none(),
        "prompt mode for the matching model"
    );
    assert!(
        requests[1].json().get("tools").is_some(),
        "native for the others"
    );
}

fn stream_chunk(content: &str) -> Value {
    json!({"id": "s1", "object": "chat.completion.chunk", "created": 1, "model": "small-model",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
}

fn text_stream(text: &str, piece: usize) -> Reply {
    let chars: Vec<char> = text.chars().collect();
    let mut chunks: Vec<Value> = vec![
        json!({"id": "s1", "object": "chat.completion.chunk", "created": 1, "model": "small-model",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}),
    ];
    chunks.extend(
        chars
            .chunks(piece)
            .map(|p| stream_chunk(&p.iter().collect::<String>())),
    );
    chunks.push(
        json!({"id": "s1", "object": "chat.completion.chunk", "created": 1, "model": "small-model",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    );
    Reply::sse(chunks)
}

async fn stream(proxy: &Proxy, body: &Value) -> Vec<Value> {
    let response = support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap();
    support::sse_events(response)
        .await
        .into_iter()
        .filter(|e| e != "[DONE]")
        .map(|e| serde_json::from_str(&e).unwrap())
        .collect()
}

#[tokio::test]
async fn streaming_holds_back_only_what_may_be_a_call() {
    let text = format!(
        "Checking the weather.\n{}",
        fenced("get_weather", json!({"city": "Paris"}))
    );
    let main = MockServer::scripted(vec![text_stream(&text, 4)]).await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let mut body = request(vec![fixture_tool("get_weather")], vec![user("x")]);
    body["stream"] = json!(true);
    let chunks = stream(&proxy, &body).await;
    let contents: Vec<&str> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .filter(|c| !c.is_empty())
        .collect();
    assert!(
        contents.len() >= 4,
        "text streamed in pieces before the call: {contents:?}"
    );
    assert_eq!(contents.concat(), "Checking the weather.\n");
    let calls: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].as_array())
        .flatten()
        .collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["index"], 0);
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert_eq!(calls[0]["function"]["arguments"], r#"{"city":"Paris"}"#);
    let finish: Vec<&str> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["finish_reason"].as_str())
        .collect();
    assert_eq!(finish, vec!["tool_calls"]);
}

#[tokio::test]
async fn streamed_text_that_only_looks_like_a_call_is_released_at_the_end() {
    let text = "Sets look like {1, 2} and lists like [3, 4]; no tools today.";
    let main = MockServer::scripted(vec![text_stream(text, 5)]).await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let mut body = request(vec![fixture_tool("get_weather")], vec![user("x")]);
    body["stream"] = json!(true);
    let chunks = stream(&proxy, &body).await;
    let content: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(content, text);
    assert!(chunks
        .iter()
        .all(|c| c["choices"][0]["delta"].get("tool_calls").is_none()));
    let finish: Vec<&str> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["finish_reason"].as_str())
        .collect();
    assert_eq!(finish, vec!["stop"]);
}

/// Schemas a client can send to take the process down: one that refers to itself from every
/// property, and one whose definitions double at every level. Served in prompt mode (no model
/// call needed to expand them) and in the translated form, each request stays small.
#[tokio::test]
async fn recursive_and_exploding_schemas_stay_small_in_every_mode() {
    let mut properties = serde_json::Map::new();
    for name in ["a", "b", "c", "d", "e", "f"] {
        properties.insert(name.into(), json!({"$ref": "#"}));
    }
    let recursive = json!({"type": "function", "function": {"name": "tree",
        "parameters": {"type": "object", "properties": properties, "required": ["a", "b", "c", "d", "e", "f"]}}});
    let mut defs = serde_json::Map::new();
    for level in 0..7 {
        let next = format!("#/$defs/d{}", level + 1);
        defs.insert(
            format!("d{level}"),
            json!({"type": "object",
            "properties": {"l": {"$ref": next}, "r": {"$ref": next}}, "required": ["l", "r"]}),
        );
    }
    let values: Vec<String> = (0..300).map(|i| format!("value number {i}")).collect();
    defs.insert("d7".into(), json!({"type": "string", "enum": values}));
    let doubling = json!({"type": "function", "function": {"name": "doubling",
        "parameters": {"$ref": "#/$defs/d0", "$defs": defs}}});

    for config in [PROMPT_MODE.to_owned(), String::new()] {
        let main = MockServer::start(|_| Reply::ok(completion(text_message("ok"), "stop"))).await;
        let proxy = Proxy::start(&main.url(), &config).await;
        let mut body = request(
            vec![recursive.clone(), doubling.clone()],
            vec![user("grow a tree")],
        );
        body["tool_choice"] = json!("required");
        let (status, answer) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{config}: {answer}");
        let sent = &main.chat_requests()[0];
        assert!(
            sent.body.len() < 64 * 1024,
            "{config}: {} bytes went upstream",
            sent.body.len()
        );
        if config.is_empty() {
            // Past the limits: the doubling tool goes as the client sent it.
            let tools = sent.json()["tools"].clone();
            let doubled = tools
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["function"]["name"] == "doubling");
            assert_eq!(doubled, Some(&doubling), "{tools}");
        }
    }
}

/// The history as text reads each message as the native history does: a call or a call id
/// that does not read is the client's 400 naming `messages`, never a message passed on as if
/// it held no call.
#[tokio::test]
async fn a_malformed_history_is_refused_in_prompt_mode_as_in_native_mode() {
    let main = MockServer::start(|_| Reply::ok(completion(text_message("ok"), "stop"))).await;
    let proxy = Proxy::start(&main.url(), PROMPT_MODE).await;
    let weather = json!({"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    for message in [
        json!({"role": "assistant", "tool_calls": "get_weather"}),
        json!({"role": "assistant", "tool_calls": [{"id": "c", "type": "function"}]}),
        json!({"role": "tool", "tool_call_id": 7, "content": "sunny"}),
        json!("hello"),
    ] {
        let body = request(
            vec![weather.clone()],
            vec![user("weather?"), message.clone()],
        );
        let (status, answer) = chat(&proxy, &body).await;
        assert_eq!(status, 400, "{message}: {answer}");
        assert_eq!(answer["error"]["param"], "messages", "{answer}");
    }
    assert!(
        main.chat_requests().is_empty(),
        "nothing reached the upstream"
    );
    // A well-formed history goes on, its call as text.
    let body = request(
        vec![weather],
        vec![
            user("weather?"),
            json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"}),
        ],
    );
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    let sent = main.chat_requests()[0].json().to_string();
    assert!(
        sent.contains("[Tool result for get_weather, call c1]"),
        "{sent}"
    );
}
