//! `/v1/messages`: Anthropic Messages requests converted to the one pipe and back, streaming
//! and not; requests without client tools forwarded untouched; errors in Anthropic's shape.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, client, completion, fixture_tool, nl_call, translator_reply,
    MockServer, Proxy, Reply,
};

const EMAIL: &str = "daily at 09:00 to check email";

fn email_args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

/// A fixture tool in the Messages shape.
fn anthropic_tool(name: &str) -> Value {
    let tool = fixture_tool(name);
    json!({"name": tool["function"]["name"], "description": tool["function"]["description"],
           "input_schema": tool["function"]["parameters"]})
}

fn request(messages: Value, stream: bool) -> Value {
    json!({"model": "main-model", "max_tokens": 256, "stream": stream,
           "system": "You are terse.", "tools": [anthropic_tool("set_reminder")], "messages": messages})
}

async fn post(proxy: &Proxy, body: &Value, key: Option<&str>) -> reqwest::Response {
    let mut builder = client()
        .post(proxy.url("/v1/messages"))
        .header("anthropic-version", "2023-06-01")
        .json(body);
    if let Some(key) = key {
        builder = builder.header("x-api-key", key);
    }
    builder.send().await.unwrap()
}

/// `(event name, data)` of each SSE event.
async fn events(response: reqwest::Response) -> Vec<(String, Value)> {
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let name = block
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .unwrap_or_default();
            let data = block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap_or("null");
            (name.to_owned(), serde_json::from_str(data).unwrap())
        })
        .collect()
}

#[tokio::test]
async fn a_translated_call_comes_back_as_a_tool_use_block() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let response = post(
        &proxy,
        &request(
            json!([{"role": "user", "content": "remind me daily at 9 to check email"}]),
            false,
        ),
        None,
    )
    .await;
    assert_eq!(response.status(), 200);
    let message: Value = response.json().await.unwrap();
    assert_eq!(message["type"], "message");
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(
        message["content"],
        json!([{"type": "tool_use", "id": "call_a", "name": "set_reminder", "input": email_args()}])
    );
    assert_eq!(
        message["usage"],
        json!({"input_tokens": 10, "output_tokens": 5})
    );

    // The main model saw a chat request: the system prompt, the one-field schema.
    let seen = main.chat_requests()[0].json();
    assert_eq!(
        seen["messages"][0],
        json!({"role": "system", "content": "You are terse."})
    );
    assert_eq!(seen["max_tokens"], 256);
    let schema = &seen["tools"][0]["function"]["parameters"];
    assert_eq!(schema["required"], json!(["description"]));
}

#[tokio::test]
async fn the_next_turn_shows_the_main_model_its_own_description() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        json!({"role": "assistant", "content": "Done."}),
        "stop",
    ))])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let turns = json!([
        {"role": "user", "content": "remind me daily at 9 to check email"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "call_a", "name": "set_reminder", "input": email_args()}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "reminder 7 created"}]}
    ]);
    let response = post(&proxy, &request(turns, false), None).await;
    assert_eq!(response.status(), 200);
    let message: Value = response.json().await.unwrap();
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "Done."}])
    );
    assert_eq!(message["stop_reason"], "end_turn");

    let seen = main.chat_requests()[0].json();
    let call = &seen["messages"][2]["tool_calls"][0];
    assert_eq!(call["id"], "call_a");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert!(
        arguments.get("description").is_some(),
        "the history is rewritten into the one-field form: {arguments}"
    );
    let result = &seen["messages"][3];
    assert_eq!(result["role"], "tool");
    assert_eq!(result["tool_call_id"], "call_a");
    let content = result["content"].as_str().unwrap();
    assert!(content.ends_with("reminder 7 created"), "{content}");
}

#[tokio::test]
async fn a_streamed_call_arrives_as_anthropic_events() {
    let main = MockServer::scripted(vec![Reply::sse(vec![
        json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "main-model",
               "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                   {"index": 0, "id": "call_s", "type": "function",
                    "function": {"name": "set_reminder", "arguments": json!({"description": EMAIL}).to_string()}}]},
                 "finish_reason": null}]}),
        json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "main-model",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "main-model",
               "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 6, "total_tokens": 17}}),
    ])])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let response = post(
        &proxy,
        &request(
            json!([{"role": "user", "content": "remind me daily at 9"}]),
            true,
        ),
        None,
    )
    .await;
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let events: Vec<(String, Value)> = events(response)
        .await
        .into_iter()
        .filter(|(name, _)| name != "ping")
        .collect();
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    for (name, data) in &events {
        assert_eq!(data["type"], name.as_str(), "each event names its own type");
    }
    assert_eq!(
        events[1].1["content_block"],
        json!({"type": "tool_use", "id": "call_s", "name": "set_reminder", "input": {}})
    );
    let partial = events[2].1["delta"]["partial_json"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(partial).unwrap(),
        email_args()
    );
    assert_eq!(events[4].1["delta"]["stop_reason"], "tool_use");
    assert_eq!(events[4].1["usage"]["output_tokens"], 6);
    // The chat request asked for usage, which `message_delta` carries.
    assert_eq!(
        main.chat_requests()[0].json()["stream_options"],
        json!({"include_usage": true})
    );
}

#[tokio::test]
async fn a_request_without_client_tools_goes_to_the_upstream_messages_route_untouched() {
    let upstream =
        MockServer::scripted(vec![Reply::ok(json!({"id": "msg_up", "type": "message"}))]).await;
    let proxy = Proxy::start(
        &upstream.url(),
        "api_key = \"sk-upstream\"\nformats = [\"chat\", \"messages\"]\n",
    )
    .await;
    let body = SERVER_TOOL;
    let response = client()
        .post(proxy.url("/v1/messages"))
        .header("x-api-key", "sk-client")
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["id"], "msg_up");
    let seen = &upstream.requests()[0];
    assert_eq!(seen.path, "/v1/messages");
    assert_eq!(seen.body, body.as_bytes(), "byte for byte");
    assert_eq!(
        seen.headers["x-api-key"], "sk-upstream",
        "the configured key, the client's way"
    );
    assert_eq!(seen.headers["anthropic-version"], "2023-06-01");
}

const SERVER_TOOL: &str = r#"{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search_20250305","name":"web_search"}],"x_field":1}"#;

/// A chat-only upstream (the default `upstream.formats`): server tools are left out, said in a
/// header, and the request converted, as Claude Code's plain chats are.
#[tokio::test]
async fn on_a_chat_only_upstream_server_tools_are_dropped_and_the_request_converted() {
    let main =
        MockServer::start(|_| Reply::ok(completion(support::text_message("hello"), "stop"))).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let response = client()
        .post(proxy.url("/v1/messages?beta=true"))
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(SERVER_TOOL)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["x-plaincall-dropped-tools"],
        "web_search_20250305"
    );
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["type"], "message");
    assert_eq!(answer["content"][0]["text"], "hello");
    let seen = &main.requests()[0];
    assert_eq!(seen.path, "/v1/chat/completions");
    let sent = seen.json();
    assert!(sent.get("tools").is_none(), "{sent}");
    assert!(sent.get("x_field").is_none(), "{sent}");
    assert_eq!(sent["max_tokens"], 5);
}

#[tokio::test]
async fn errors_have_the_anthropic_shape() {
    let main = MockServer::scripted(vec![Reply::text(
        404,
        r#"{"error":{"message":"model not found","type":"invalid_request_error"}}"#,
    )])
    .await;
    let proxy = Proxy::start(&main.url(), "[server]\naccess_keys = [\"pc-key\"]\n").await;

    // A plaincall access key is accepted as `x-api-key`; a wrong one is refused in kind.
    let refused = post(
        &proxy,
        &request(json!([{"role": "user", "content": "x"}]), false),
        Some("wrong"),
    )
    .await;
    assert_eq!(refused.status(), 401);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "authentication_error");

    let mut missing = request(json!([{"role": "user", "content": "x"}]), false);
    missing.as_object_mut().unwrap().remove("max_tokens");
    let invalid = post(&proxy, &missing, Some("pc-key")).await;
    assert_eq!(invalid.status(), 400);
    let body: Value = invalid.json().await.unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("max_tokens"));

    let upstream_error = post(
        &proxy,
        &request(json!([{"role": "user", "content": "x"}]), false),
        Some("pc-key"),
    )
    .await;
    assert_eq!(upstream_error.status(), 404);
    let body: Value = upstream_error.json().await.unwrap();
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "not_found_error", "message": "model not found"}})
    );
    // plaincall's own key never reaches the upstream.
    let seen = &main.chat_requests()[0];
    assert!(seen.headers.get("authorization").is_none());
    assert!(seen.headers.get("x-api-key").is_none());
}

#[tokio::test]
async fn a_clarification_runs_a_repair_turn_before_the_client_answer() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![nl_call("call_a", "set_reminder", "remind me")]),
            "tool_calls",
        )),
        Reply::ok(completion(
            json!({"role": "assistant", "content": "When should I remind you?"}),
            "stop",
        )),
    ])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(
        r#"{"error": "missing_info", "clarification_needed": "When should the reminder fire?"}"#,
    )])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let response = post(
        &proxy,
        &request(json!([{"role": "user", "content": "remind me"}]), false),
        None,
    )
    .await;
    assert_eq!(response.status(), 200);
    let message: Value = response.json().await.unwrap();
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "When should I remind you?"}])
    );
    assert_eq!(message["stop_reason"], "end_turn");
    // The repair turn told the main model what was missing, in the chat form it speaks.
    let repair = main.chat_requests()[1].json();
    let last = repair["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert!(last["content"]
        .as_str()
        .unwrap()
        .contains("When should the reminder fire?"));
}

#[tokio::test]
async fn prompt_mode_serves_an_anthropic_client_too() {
    // An upstream without native tools: the tools go into the prompt, the call is parsed out
    // of the reply's text, translated, and reaches the client as a `tool_use` block.
    let reply = format!(
        "On it.\n```json\n{}\n```",
        json!({"name": "set_reminder", "arguments": {"description": EMAIL}})
    );
    let main = MockServer::scripted(vec![Reply::ok(completion(
        json!({"role": "assistant", "content": reply}),
        "stop",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let config = format!(
        "[tool_calling]\ndefault = \"prompt\"\n{}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &config).await;

    let response = post(
        &proxy,
        &request(
            json!([{"role": "user", "content": "remind me daily at 9 to check email"}]),
            false,
        ),
        None,
    )
    .await;
    assert_eq!(response.status(), 200);
    let message: Value = response.json().await.unwrap();
    assert_eq!(message["stop_reason"], "tool_use", "{message}");
    let tool_use = message["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_use")
        .cloned()
        .unwrap();
    assert_eq!(tool_use["name"], "set_reminder");
    assert_eq!(tool_use["input"], email_args());
    let seen = main.chat_requests()[0].json();
    assert!(
        seen.get("tools").is_none(),
        "tools went into the prompt: {seen}"
    );
}

/// Bodies that are not a Messages request get Anthropic's own 400, the field named, and the
/// upstream receives nothing.
#[tokio::test]
async fn malformed_bodies_are_refused_in_anthropics_shape() {
    let main = MockServer::start(|_| Reply::ok(json!({"type": "message"}))).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let cases = [
        "{not json",
        "[1]",
        r#"{"model": "m", "max_tokens": 5, "messages": "x"}"#,
        r#"{"model": "m", "max_tokens": 5}"#,
        r#"{"model": "m", "max_tokens": "5", "messages": []}"#,
    ];
    for body in cases {
        let (status, error) = support::post_raw(&proxy, "/v1/messages", body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(error["type"], "error", "{body}: {error}");
        assert_eq!(
            error["error"]["type"], "invalid_request_error",
            "{body}: {error}"
        );
    }
    assert!(main.requests().is_empty(), "a malformed body went upstream");
}

/// A refused key on any Messages route, `count_tokens` included, is answered in Anthropic's
/// shape; so is a forwarded stream the upstream cuts short.
#[tokio::test]
async fn refusals_and_cut_streams_of_forwarded_requests_are_in_anthropics_shape() {
    let main = MockServer::start(|r| {
        if r.path.ends_with("/messages") {
            Reply::Sse {
                events: vec![
                    (
                        std::time::Duration::ZERO,
                        json!({"type": "message_start"}).to_string(),
                    ),
                    (
                        std::time::Duration::ZERO,
                        json!({"type": "ping"}).to_string(),
                    ),
                ],
                cut_after: Some(1),
            }
        } else {
            Reply::ok(json!({"input_tokens": 3}))
        }
    })
    .await;
    let proxy = Proxy::start(
        &main.url(),
        "formats = [\"chat\", \"messages\"]\n[server]\naccess_keys = [\"sk-proxy-key\"]\n",
    )
    .await;
    let refused = client()
        .post(proxy.url("/v1/messages/count_tokens"))
        .header("x-api-key", "wrong")
        .json(&json!({"model": "m", "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let error: Value = refused.json().await.unwrap();
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["error"]["type"], "authentication_error", "{error}");

    // No tools: forwarded to the upstream's own /v1/messages, which cuts the stream.
    let response = post(
        &proxy,
        &json!({"model": "m", "max_tokens": 5, "stream": true, "messages": [{"role": "user", "content": "hi"}]}),
        Some("sk-proxy-key"),
    )
    .await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let last = text.trim_end().rsplit("\n\n").next().unwrap();
    assert!(last.starts_with("event: error\ndata: "), "{text}");
    let data: Value =
        serde_json::from_str(last.trim_start_matches("event: error\ndata: ")).unwrap();
    assert_eq!(data["type"], "error", "{data}");
    assert!(data["error"]["type"].is_string(), "{data}");
}

/// `[models]`: a client that insists on its own model names (Claude Code asks for Claude)
/// reaches the upstream's model, and reads its own name back.
#[tokio::test]
async fn a_model_alias_sends_the_upstreams_model_and_echoes_the_clients() {
    let main =
        MockServer::start(|_| Reply::ok(completion(support::text_message("hi"), "stop"))).await;
    let proxy = Proxy::start(
        &main.url(),
        "[models]\n\"claude-*-haiku-*\" = \"small\"\n\"claude-*\" = \"qwen2.5-coder-0.5b\"\n",
    )
    .await;
    for (asked, sent) in [
        ("claude-sonnet-4-5", "qwen2.5-coder-0.5b"),
        ("claude-3-5-haiku-latest", "small"),
        ("gpt-4o", "gpt-4o"),
    ] {
        let body = json!({"model": asked, "max_tokens": 5,
                          "messages": [{"role": "user", "content": "hi"}]});
        let response = post(&proxy, &body, None).await;
        assert_eq!(response.status(), 200);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["model"], asked);
        let seen = main.requests().last().unwrap().json();
        assert_eq!(seen["model"], sent, "{asked}");
    }
}
