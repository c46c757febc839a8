//! `/v1/responses`: Responses requests converted to the one pipe and back, streaming and not;
//! requests with built-in tools forwarded untouched; errors in the client's shape.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, client, completion, fixture_tool, nl_call, post_json,
    translator_reply, MockServer, Proxy, Reply,
};

const EMAIL: &str = "daily at 09:00 to check email";

fn email_args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

fn flat_tool(name: &str) -> Value {
    let tool = fixture_tool(name);
    json!({"type": "function", "name": tool["function"]["name"], "description": tool["function"]["description"],
           "parameters": tool["function"]["parameters"], "strict": false})
}

fn request(stream: bool) -> Value {
    json!({"model": "main-model", "input": "remind me daily at 9 to check email", "stream": stream,
           "tools": [flat_tool("set_reminder")], "x_vendor": {"k": 1}})
}

async fn post(proxy: &Proxy, body: &Value) -> reqwest::Response {
    client()
        .post(proxy.url("/v1/responses"))
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_translated_call_is_a_function_call_item() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["object"], "response");
    assert_eq!(body["status"], "completed");
    assert!(body["id"].as_str().unwrap().starts_with("resp_"));
    let item = &body["output"][0];
    assert_eq!(item["type"], "function_call");
    assert_eq!(item["call_id"], "call_a");
    assert_eq!(item["name"], "set_reminder");
    let arguments: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, email_args());
    assert_eq!(body["usage"]["total_tokens"], 15);
    // The client's tools are echoed as it sent them, not as the main model saw them.
    assert_eq!(body["tools"][0], flat_tool("set_reminder"));

    let seen = main.chat_requests()[0].json();
    assert_eq!(
        seen["messages"],
        json!([{"role": "user", "content": "remind me daily at 9 to check email"}])
    );
    assert_eq!(
        seen.get("x_vendor"),
        None,
        "a field a chat upstream does not take is dropped"
    );
    assert_eq!(
        seen["tools"][0]["function"]["parameters"]["required"],
        json!(["description"])
    );
}

#[tokio::test]
async fn streamed_events_are_numbered_and_keep_their_item_ids() {
    let main = MockServer::scripted(vec![Reply::sse(vec![
        json!({"id": "c", "object": "chat.completion.chunk", "model": "main-model",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Setting it."}, "finish_reason": null}]}),
        json!({"id": "c", "object": "chat.completion.chunk", "model": "main-model",
               "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_s", "type": "function",
                   "function": {"name": "set_reminder", "arguments": json!({"description": EMAIL}).to_string()}}]},
                 "finish_reason": "tool_calls"}]}),
    ])])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(&email_args().to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let response = post(&proxy, &request(true)).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let events: Vec<Value> = text
        .split("\n\n")
        .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let numbers: Vec<u64> = events
        .iter()
        .map(|e| e["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (0..events.len() as u64).collect::<Vec<_>>());
    assert_eq!(events[0]["response"]["id"], events[12]["response"]["id"]);
    assert_eq!(events[8]["item"]["id"], events[11]["item"]["id"]);
    assert_eq!(events[8]["output_index"], 1);
    let done: Value = serde_json::from_str(events[10]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(done, email_args());
    let output = &events[12]["response"]["output"];
    assert_eq!(output[0]["content"][0]["text"], "Setting it.");
    assert_eq!(output[1]["call_id"], "call_s");
}

#[tokio::test]
async fn built_in_tools_go_to_the_upstream_responses_route_untouched() {
    let upstream = MockServer::scripted(vec![Reply::ok(
        json!({"id": "resp_up", "object": "response"}),
    )])
    .await;
    let proxy = Proxy::start(&upstream.url(), "formats = [\"chat\", \"responses\"]\n").await;
    let (status, answer) = support::post_raw(&proxy, "/v1/responses", BUILT_IN).await;
    assert_eq!(status, 200);
    assert_eq!(answer["id"], "resp_up");
    let seen = &upstream.requests()[0];
    assert_eq!(seen.path, "/v1/responses");
    assert_eq!(seen.body, BUILT_IN.as_bytes());
}

const BUILT_IN: &str = r#"{"model":"m","input":"news?","client_metadata":{"a":1},"tools":[{"type":"web_search"},{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}}]}"#;

/// A chat-only upstream (the default `upstream.formats`): built-in tools are left out, said in
/// a header, and the rest is converted; so is a plain chat with no tools at all.
#[tokio::test]
async fn on_a_chat_only_upstream_built_in_tools_are_dropped_and_the_rest_converted() {
    let main =
        MockServer::start(|_| Reply::ok(completion(support::text_message("hi"), "stop"))).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let response = client()
        .post(proxy.url("/v1/responses?beta=true"))
        .header("content-type", "application/json")
        .body(BUILT_IN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["x-plaincall-dropped-tools"],
        "web_search"
    );
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["object"], "response");
    assert_eq!(answer["output"][0]["content"][0]["text"], "hi");
    let seen = &main.requests()[0];
    assert_eq!(seen.path, "/v1/chat/completions");
    assert_eq!(seen.query, None, "the client's query is its own route's");
    let sent = seen.json();
    let tools = sent["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["function"]["name"], "f");
    assert!(sent.get("client_metadata").is_none(), "{sent}");

    let (status, plain) =
        support::post_raw(&proxy, "/v1/responses", r#"{"model":"m","input":"hello"}"#).await;
    assert_eq!(status, 200, "{plain}");
    assert_eq!(plain["output"][0]["content"][0]["text"], "hi");
    let sent = main.requests()[1].json();
    assert_eq!(main.requests()[1].path, "/v1/chat/completions");
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": "hello"}])
    );
    assert!(sent.get("tools").is_none());
}

#[tokio::test]
async fn an_unknown_previous_response_is_a_clear_400() {
    let main = MockServer::scripted(vec![]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let mut body = request(false);
    body["previous_response_id"] = json!("resp_missing");
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["param"], "previous_response_id");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("resp_missing"));
    assert!(main.requests().is_empty());
}

#[tokio::test]
async fn several_actions_fan_out_into_several_function_call_items() {
    let research = "research asyncio into data/a.md, then review it and add examples";
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_s", "spawn_sub_session", research)]),
        "tool_calls",
    ))])
    .await;
    let two = json!([
        {"objective": "Research asyncio. Write data/a.md.", "depends_on_previous": false},
        {"objective": "Review data/a.md and add examples.", "depends_on_previous": true}
    ]);
    let translator = MockServer::scripted(vec![translator_reply(&two.to_string())]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;

    let body = json!({"model": "main-model", "input": research, "tools": [flat_tool("spawn_sub_session")]});
    let response: Value = post(&proxy, &body).await.json().await.unwrap();
    let items = response["output"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{response}");
    assert_eq!(items[0]["call_id"], "call_s__1of2");
    assert_eq!(items[1]["call_id"], "call_s__2of2");
    assert_ne!(items[0]["id"], items[1]["id"]);
    let second: Value = serde_json::from_str(items[1]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(second, two[1]);
}

/// A stored conversation belongs to the key that wrote it: another key is told it does not
/// exist, as for an unknown id, and the upstream hears nothing of it.
#[tokio::test]
async fn a_stored_conversation_is_continued_only_with_the_key_that_stored_it() {
    let main =
        MockServer::start(|_| Reply::ok(completion(support::text_message("noted"), "stop"))).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let send = |key: &'static str, body: Value| {
        let proxy_url = proxy.url("/v1/responses");
        async move {
            client()
                .post(proxy_url)
                .bearer_auth(key)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let first: Value = send("sk-alice", request(false)).await.json().await.unwrap();
    let id = first["id"].as_str().unwrap().to_owned();
    let next = json!({"model": "main-model", "previous_response_id": id, "input": "and again",
                      "tools": [flat_tool("set_reminder")]});
    let stolen = send("sk-mallory", next.clone()).await;
    assert_eq!(stolen.status(), 400);
    let error: Value = stolen.json().await.unwrap();
    assert_eq!(error["error"]["param"], "previous_response_id", "{error}");
    assert_eq!(
        error["error"]["message"],
        format!("Previous response with id '{id}' not found.")
    );
    assert_eq!(main.chat_requests().len(), 1);
    let own = send("sk-alice", next).await;
    assert_eq!(own.status(), 200);
    let sent = main.chat_requests()[1].json();
    assert_eq!(sent["messages"].as_array().unwrap().len(), 3, "{sent}");
}

/// A conversation built turn by turn, each turn under the body limit, cannot become a request
/// above it: the turn that would pass it gets a 400 naming the setting, and nothing goes up.
#[tokio::test]
async fn stored_history_cannot_grow_a_request_past_the_body_limit() {
    let main =
        MockServer::start(|_| Reply::ok(completion(support::text_message("noted"), "stop"))).await;
    let proxy = Proxy::start(&main.url(), "[server]\nmax_body_bytes = 65536\n").await;
    let mut previous: Option<String> = None;
    let mut refused = None;
    for turn in 0..6 {
        let mut body = json!({"model": "main-model", "input": "y".repeat(20_000),
                              "tools": [flat_tool("set_reminder")]});
        if let Some(id) = &previous {
            body["previous_response_id"] = json!(id);
        }
        let response = post(&proxy, &body).await;
        if response.status() != 200 {
            refused = Some((
                turn,
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            ));
            break;
        }
        let answer: Value = response.json().await.unwrap();
        previous = answer["id"].as_str().map(str::to_owned);
    }
    let (turn, status, error) = refused.expect("a turn past the limit was refused");
    assert!(turn >= 2, "refused at turn {turn}");
    assert_eq!(status, 400);
    assert_eq!(error["error"]["param"], "previous_response_id", "{error}");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("server.max_body_bytes"));
    assert_eq!(main.chat_requests().len(), turn);
    for sent in main.chat_requests() {
        assert!(
            sent.body.len() <= 65536 + 8192,
            "{} bytes went up",
            sent.body.len()
        );
    }
}

/// Bodies that are not a Responses request are answered here, in the Responses shape, with
/// the field named; the upstream receives nothing.
#[tokio::test]
async fn malformed_bodies_are_refused_before_anything_is_sent() {
    let main = MockServer::start(|_| Reply::ok(json!({"id": "resp_up"}))).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let cases: Vec<(&str, Option<&str>)> = vec![
        ("{not json", None),
        ("[1, 2]", None),
        (r#"{"model": "m", "input": 5}"#, Some("input")),
        (
            r#"{"model": "m", "input": "hi", "previous_response_id": 123}"#,
            Some("previous_response_id"),
        ),
        (
            r#"{"model": "m", "input": "hi", "tools": {"type": "function"}}"#,
            Some("tools"),
        ),
        (
            r#"{"model": "m", "input": "hi", "stream": "yes"}"#,
            Some("stream"),
        ),
    ];
    for (body, param) in cases {
        let (status, error) = support::post_raw(&proxy, "/v1/responses", body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            error["error"]["type"], "invalid_request_error",
            "{body}: {error}"
        );
        assert_eq!(error["error"]["param"], json!(param), "{body}: {error}");
    }
    assert!(main.requests().is_empty(), "a malformed body went upstream");
}

/// The shape of Codex CLI 0.169's tools with a custom `wire_api = "responses"` provider:
/// function tools, a `namespace` of functions, and a hosted `web_search`.
fn codex_tools() -> Value {
    json!([
        {"type": "function", "name": "exec_command", "description": "Run a command.", "strict": false,
         "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}},
        {"type": "namespace", "name": "multi_agent_v1", "description": "", "tools": [
            {"type": "function", "name": "wait_agent", "description": "Wait for agents.", "strict": false,
             "parameters": {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]}},
            {"type": "custom", "name": "freeform", "description": "x", "format": {"type": "text"}}]},
        {"type": "web_search", "external_web_access": false}
    ])
}

/// The main model's turns: one call, then a closing text.
fn a_call_then_done(id: &str, name: &str, arguments: Value) -> Vec<Reply> {
    vec![
        Reply::ok(completion(
            calls_message(vec![support::tool_call(id, name, &arguments)]),
            "tool_calls",
        )),
        Reply::ok(completion(support::text_message("done"), "stop")),
    ]
}

#[tokio::test]
async fn namespaced_tools_are_flattened_and_their_calls_named_back() {
    let main = MockServer::scripted(a_call_then_done(
        "call_w",
        "multi_agent_v1__wait_agent",
        json!({"target": "a1"}),
    ))
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let body =
        json!({"model": "m", "input": "wait for agent a1", "tools": codex_tools(), "store": false});
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    let dropped = response
        .headers()
        .get("x-plaincall-dropped-tools")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(dropped, "web_search");
    let answer: Value = response.json().await.unwrap();
    let item = &answer["output"][0];
    assert_eq!(item["type"], "function_call");
    assert_eq!(item["name"], "wait_agent");
    assert_eq!(item["namespace"], "multi_agent_v1");
    // The upstream saw flat function tools only.
    let seen = main.chat_requests()[0].json();
    let names: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["exec_command", "multi_agent_v1__wait_agent", "freeform"]
    );

    // The next turn carries the call back under its namespace: the main model sees its own.
    let next = json!({"model": "m", "tools": codex_tools(), "store": false, "input": [
        {"type": "message", "role": "user", "content": "wait for agent a1"},
        {"type": "function_call", "call_id": "call_w", "name": "wait_agent", "namespace": "multi_agent_v1",
         "arguments": "{\"target\":\"a1\"}"},
        {"type": "function_call_output", "call_id": "call_w", "output": "a1 finished"}]});
    let response = post(&proxy, &next).await;
    assert_eq!(response.status(), 200);
    let seen = main.chat_requests()[1].json();
    assert_eq!(
        seen["messages"][1]["tool_calls"][0]["function"]["name"],
        "multi_agent_v1__wait_agent"
    );
}

#[tokio::test]
async fn a_streamed_namespaced_call_is_named_back_in_every_event() {
    let main = MockServer::scripted(vec![Reply::sse(vec![
        json!({"id": "c", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_w",
                   "type": "function", "function": {"name": "multi_agent_v1__wait_agent",
                   "arguments": "{\"target\":\"a1\"}"}}]}, "finish_reason": "tool_calls"}]}),
    ])])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let body = json!({"model": "m", "input": "wait", "tools": codex_tools(), "stream": true, "store": false});
    let events: Vec<Value> = support::sse_events(post(&proxy, &body).await)
        .await
        .iter()
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect();
    let items: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["type"] == "response.output_item.added" || e["type"] == "response.output_item.done"
        })
        .map(|e| &e["item"])
        .collect();
    assert_eq!(items.len(), 2, "{events:?}");
    for item in items {
        assert_eq!(item["name"], "wait_agent", "{item}");
        assert_eq!(item["namespace"], "multi_agent_v1", "{item}");
    }
    let done = events
        .iter()
        .find(|e| e["type"] == "response.function_call_arguments.done")
        .unwrap();
    assert_eq!(done["name"], "wait_agent");
    let completed = events
        .iter()
        .find(|e| e["type"] == "response.completed")
        .unwrap();
    assert_eq!(
        completed["response"]["output"][0]["namespace"],
        "multi_agent_v1"
    );
}

const PATCH: &str = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n";

/// Codex's freeform `apply_patch` (sent for its default model): a `custom` tool whose input
/// is a raw patch that a lark grammar describes.
fn apply_patch_tool() -> Value {
    json!({"type": "custom", "name": "apply_patch",
           "description": "Edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.",
           "format": {"type": "grammar", "syntax": "lark",
                      "definition": "start: begin_patch hunk+ end_patch\nbegin_patch: \"*** Begin Patch\" LF"}})
}

#[tokio::test]
async fn a_freeform_tool_is_one_string_to_the_main_model_and_its_call_a_custom_tool_call() {
    let main = MockServer::scripted(a_call_then_done(
        "call_p",
        "apply_patch",
        json!({"input": PATCH}),
    ))
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let body = json!({"model": "m", "input": "add hello.txt", "store": false,
                      "tools": [apply_patch_tool()], "tool_choice": {"type": "custom", "name": "apply_patch"}});
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    assert!(response
        .headers()
        .get("x-plaincall-dropped-tools")
        .is_none());
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["output"].as_array().unwrap().len(), 1, "{answer}");
    let item = &answer["output"][0];
    assert_eq!(item["type"], "custom_tool_call", "{item}");
    assert_eq!(item["call_id"], "call_p");
    assert_eq!(item["name"], "apply_patch");
    assert_eq!(item["input"], PATCH, "the patch as it is, not JSON");
    assert!(item.get("arguments").is_none(), "{item}");

    let seen = main.chat_requests()[0].json();
    let function = &seen["tools"][0]["function"];
    assert_eq!(function["name"], "apply_patch");
    assert_eq!(function["parameters"]["required"], json!(["input"]));
    assert_eq!(
        function["parameters"]["properties"]["input"]["type"],
        "string"
    );
    let description = function["description"].as_str().unwrap();
    assert!(description.starts_with("Edit files."), "{description}");
    assert!(
        description.contains("lark grammar") && description.contains("begin_patch hunk+"),
        "{description}"
    );
    assert_eq!(
        seen["tool_choice"],
        json!({"type": "function", "function": {"name": "apply_patch"}})
    );

    // The next turn: the call and its output in the client's form, in chat form upstream.
    let next = json!({"model": "m", "tools": [apply_patch_tool()], "store": false, "input": [
        {"type": "message", "role": "user", "content": "add hello.txt"},
        {"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": PATCH},
        {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Success. Updated: A hello.txt"}]});
    assert_eq!(post(&proxy, &next).await.status(), 200);
    let seen = main.chat_requests()[1].json();
    let call = &seen["messages"][1]["tool_calls"][0];
    assert_eq!(call["id"], "call_p");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"input": PATCH}));
    assert_eq!(seen["messages"][2]["role"], "tool");
    assert_eq!(seen["messages"][2]["tool_call_id"], "call_p");
    assert_eq!(
        seen["messages"][2]["content"],
        "Success. Updated: A hello.txt"
    );
}

#[tokio::test]
async fn a_streamed_freeform_call_has_the_custom_tool_call_events() {
    let arguments = json!({"input": PATCH}).to_string();
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let main = MockServer::scripted(vec![Reply::sse(vec![
        chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_p", "type": "function",
                   "function": {"name": "apply_patch", "arguments": head}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": tail}}]}),
            json!("tool_calls"),
        ),
    ])])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let body = json!({"model": "m", "input": "add hello.txt", "tools": [apply_patch_tool()],
                      "stream": true, "store": false});
    let events: Vec<Value> = support::sse_events(post(&proxy, &body).await)
        .await
        .iter()
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("response.function_call")),
        "{kinds:?}"
    );
    let find = |kind: &str| events.iter().find(|e| e["type"] == kind).unwrap();
    assert_eq!(
        find("response.output_item.added")["item"]["type"],
        "custom_tool_call"
    );
    assert_eq!(
        find("response.custom_tool_call_input.delta")["delta"],
        PATCH
    );
    let done = find("response.custom_tool_call_input.done");
    assert_eq!(done["input"], PATCH);
    assert_eq!(done["item_id"], "ctc_call_p");
    let item = &find("response.output_item.done")["item"];
    assert_eq!(item["type"], "custom_tool_call");
    assert_eq!(item["id"], "ctc_call_p");
    assert_eq!(item["input"], PATCH);
    let completed = &find("response.completed")["response"]["output"][0];
    assert_eq!(completed, item);
}

#[tokio::test]
async fn a_websocket_upgrade_is_told_to_use_http_at_once() {
    let main = MockServer::scripted(vec![]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let upgrade = client()
        .get(proxy.url("/v1/responses"))
        .header("connection", "Upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .unwrap();
    // 426, not 405: Codex's default provider then goes on over HTTP at once instead of
    // retrying the WebSocket five times (about 6 s on every start).
    assert_eq!(upgrade.status(), 426);
    let body: Value = upgrade.json().await.unwrap();
    assert_eq!(body["error"]["code"], "websocket_not_supported", "{body}");
    let plain = client()
        .get(proxy.url("/v1/responses"))
        .send()
        .await
        .unwrap();
    assert_eq!(plain.status(), 404);
    assert!(main.requests().is_empty());
}

/// A plain "hi", no tools, on `/v1/responses` and on `/v1/messages`.
fn hi_responses() -> Value {
    json!({"model": "m", "input": "hi"})
}

fn hi_messages() -> Value {
    json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]})
}

/// The JSON of a 200 answer to `body` at `url`.
async fn answer(url: &str, body: &Value) -> Value {
    let response = post_json(url, body).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_404_on_the_upstreams_own_route_turns_the_format_to_conversion() {
    let main = MockServer::start(|r| {
        if r.path.ends_with("/responses") || r.path.ends_with("/messages") {
            Reply::text(404, r#"{"error": "not found"}"#)
        } else {
            Reply::ok(completion(support::text_message("converted"), "stop"))
        }
    })
    .await;
    let proxy = Proxy::start(
        &main.url(),
        "formats = [\"chat\", \"responses\", \"messages\"]\n",
    )
    .await;
    for _ in 0..2 {
        let body = answer(&proxy.url("/v1/responses"), &hi_responses()).await;
        assert_eq!(body["output"][0]["content"][0]["text"], "converted");
    }
    answer(&proxy.url("/v1/messages"), &hi_messages()).await;
    let own: Vec<String> = main
        .requests()
        .iter()
        .map(|r| r.path.clone())
        .filter(|p| !p.ends_with("/chat/completions"))
        .collect();
    assert_eq!(
        own,
        vec!["/v1/responses", "/v1/messages"],
        "each own route is tried once, then learned"
    );
    assert_eq!(main.chat_requests().len(), 3);
}

#[tokio::test]
async fn the_formats_named_are_probed_at_start_up() {
    // The upstream serves Messages (an empty request is a 400 there) but not Responses.
    let main = MockServer::start(|r| {
        if r.path.ends_with("/responses") {
            Reply::text(404, r#"{"error": "not found"}"#)
        } else if r.path.ends_with("/messages") && r.body.as_ref() == b"{}" {
            Reply::text(400, r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "model: required"}}"#)
        } else if r.path.ends_with("/messages") {
            Reply::ok(json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                             "content": [{"type": "text", "text": "from its own route"}],
                             "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}))
        } else {
            Reply::ok(completion(support::text_message("converted"), "stop"))
        }
    })
    .await;
    let served = support::Served::start(&[
        ("PLAINCALL_UPSTREAM_URL", main.url().as_str()),
        ("PLAINCALL_UPSTREAM_FORMATS", "chat,responses,messages"),
    ])
    .await;
    served.wait_for_line("answered 404 to POST").await;
    served.wait_for_line("serves POST").await;

    let body = answer(&served.url("/v1/responses"), &hi_responses()).await;
    assert_eq!(body["output"][0]["content"][0]["text"], "converted");
    let body = answer(&served.url("/v1/messages"), &hi_messages()).await;
    assert_eq!(body["content"][0]["text"], "from its own route");

    let own: Vec<(String, usize)> = main
        .requests()
        .iter()
        .filter(|r| !r.path.ends_with("/chat/completions") && !r.path.ends_with("/models"))
        .map(|r| (r.path.clone(), r.body.len()))
        .collect();
    // The probes (`{}`), then only the Messages request: the Responses request was converted
    // at once, with no 404 of its own.
    assert_eq!(own.len(), 3, "{own:?}");
    assert!(own.contains(&("/v1/responses".to_owned(), 2)), "{own:?}");
    assert!(own.contains(&("/v1/messages".to_owned(), 2)), "{own:?}");
    assert_eq!(own.iter().filter(|(p, _)| p == "/v1/responses").count(), 1);
    served.stop().await;
}

#[tokio::test]
async fn tools_sent_as_an_additional_tools_input_item_reach_the_main_model() {
    let main = MockServer::scripted(vec![Reply::ok(completion(
        support::text_message("hi"),
        "stop",
    ))])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let body = json!({"model": "m", "store": false, "input": [
        {"type": "additional_tools", "role": "developer", "tools": codex_tools()},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]});
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    let seen = main.chat_requests()[0].json();
    let names: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["exec_command", "multi_agent_v1__wait_agent", "freeform"]
    );
    assert_eq!(seen["messages"].as_array().unwrap().len(), 1, "{seen}");
}
