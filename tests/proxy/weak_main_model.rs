//! What a weak main model does to a rewritten tool's call (cuts it off, writes the real
//! arguments, repeats itself after a question) never puts the one-field form in front of the
//! client, and never costs a second identical translator call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, completion, fixture_tool, nl_call, text_message, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

use support::{reminder_args as email_args, reminder_request as request};

fn raw_call(id: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": "set_reminder", "arguments": arguments}})
}

/// The same completion as an SSE stream: the call's arguments in 7-character pieces.
fn as_stream(id: &str, arguments: &str, finish: &str) -> Reply {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "s", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": "set_reminder", "arguments": ""}}]}),
        None,
    )];
    let chars: Vec<char> = arguments.chars().collect();
    for piece in chars.chunks(7) {
        let text: String = piece.iter().collect();
        events.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": text}}]}),
            None,
        ));
    }
    events.push(chunk(json!({}), Some(finish)));
    Reply::sse(events)
}

/// The main model's answer: one `set_reminder` call with `arguments`, streamed or not.
fn call_reply(stream: bool, arguments: &str, finish: &str) -> Reply {
    if stream {
        as_stream("c1", arguments, finish)
    } else {
        Reply::ok(completion(
            calls_message(vec![raw_call("c1", arguments)]),
            finish,
        ))
    }
}

/// Every tool call the client saw, non-streaming or assembled from the stream.
async fn client_calls(proxy: &Proxy, stream: bool) -> (Vec<Value>, String) {
    if !stream {
        let (status, body) = chat(proxy, &request(false)).await;
        assert_eq!(status, 200, "{body}");
        let message = &body["choices"][0]["message"];
        let calls = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        return (calls, message["content"].as_str().unwrap_or("").to_owned());
    }
    let response = support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap();
    let mut calls: Vec<Value> = Vec::new();
    let mut content = String::new();
    for event in support::sse_events(response).await {
        if event == "[DONE]" {
            continue;
        }
        let chunk: Value = serde_json::from_str(&event).unwrap();
        let Some(delta) = chunk["choices"].get(0).map(|c| &c["delta"]) else {
            continue;
        };
        content.push_str(delta["content"].as_str().unwrap_or(""));
        for d in delta["tool_calls"].as_array().into_iter().flatten() {
            let i = d["index"].as_u64().unwrap() as usize;
            if calls.len() <= i {
                calls.push(json!({"id": d["id"], "function": {"name": d["function"]["name"], "arguments": ""}}));
            }
            let piece = d["function"]["arguments"].as_str().unwrap_or("");
            let joined = calls[i]["function"]["arguments"]
                .as_str()
                .unwrap()
                .to_owned()
                + piece;
            calls[i]["function"]["arguments"] = json!(joined);
        }
    }
    (calls, content)
}

fn args(call: &Value) -> Value {
    serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn a_call_cut_off_at_max_tokens_is_translated_from_what_was_written() {
    let cut = r#"{"description": "daily at 09:00 to check email, and also make sure that the"#;
    for stream in [false, true] {
        let reply = call_reply(stream, cut, "length");
        let main = MockServer::scripted(vec![reply]).await;
        let translator = MockServer::start(|_| translator_reply(&email_args().to_string())).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let (calls, _) = client_calls(&proxy, stream).await;
        assert_eq!(calls.len(), 1, "stream={stream}");
        assert_eq!(args(&calls[0]), email_args(), "stream={stream}");
        let asked = translator.chat_requests()[0].json().to_string();
        assert!(
            asked.contains("make sure that the"),
            "the cut text is what gets translated"
        );
    }
}

#[tokio::test]
async fn an_unreadable_call_never_reaches_the_client_in_the_one_field_form() {
    for stream in [false, true] {
        let first = call_reply(stream, r#"{"descri"#, "length");
        let question = "Shall I set a daily 9:00 email reminder?";
        let second = if stream {
            Reply::sse(vec![
                json!({"id": "s2", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": question}, "finish_reason": "stop"}]}),
            ])
        } else {
            Reply::ok(completion(text_message(question), "stop"))
        };
        let main = MockServer::scripted(vec![first, second]).await;
        let translator = MockServer::start(|_| translator_reply("{}")).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let (calls, content) = client_calls(&proxy, stream).await;
        assert!(calls.is_empty(), "stream={stream}: {calls:?}");
        assert!(
            content.contains("Shall I set"),
            "stream={stream}: {content}"
        );
        assert!(
            translator.chat_requests().is_empty(),
            "nothing readable to translate"
        );
        let repair = main.chat_requests()[1].json().to_string();
        assert!(repair.contains("was cut off or is not JSON"), "{repair}");
    }
}

#[tokio::test]
async fn real_arguments_pass_when_valid_and_are_fixed_when_not() {
    // Valid real arguments: the call stands, no translator call, the response untouched.
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![tool_call("c1", "set_reminder", &email_args())]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::start(|_| translator_reply("{}")).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (calls, _) = client_calls(&proxy, false).await;
    assert_eq!(args(&calls[0]), email_args());
    assert!(translator.chat_requests().is_empty());

    // Invalid real arguments (a weekly reminder without its day, for "remind me daily at 9"):
    // translated with the errors.
    let bad = json!({"message": "Check email", "schedule_type": "weekly", "at": "09:00"});
    let fixed = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"});
    for stream in [false, true] {
        let reply = call_reply(stream, &bad.to_string(), "tool_calls");
        let main = MockServer::scripted(vec![reply]).await;
        let answer = fixed.to_string();
        let translator = MockServer::start(move |_| translator_reply(&answer)).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let (calls, _) = client_calls(&proxy, stream).await;
        assert_eq!(args(&calls[0]), fixed, "stream={stream}");
        let asked = translator.chat_requests()[0].json().to_string();
        assert!(
            asked.contains("day_of_week"),
            "the errors go to the translator: {asked}"
        );
    }
}

#[tokio::test]
async fn the_same_description_after_a_question_is_not_translated_again() {
    let description = "set a reminder";
    let nl = || {
        Reply::ok(completion(
            calls_message(vec![nl_call("c", "set_reminder", description)]),
            "tool_calls",
        ))
    };
    let main = MockServer::scripted(vec![nl(), nl(), nl()]).await;
    let translator = MockServer::start(|_| {
        translator_reply(r#"{"error": "missing_info", "clarification_needed": "What should the reminder say, and when?"}"#)
    })
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    // A message that holds neither: a question the user's words answer is translated again
    // instead (see `clarifications`).
    let mut asked = request(false);
    asked["messages"] = json!([{"role": "user", "content": "set a reminder"}]);
    let (status, body) = chat(&proxy, &asked).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        translator.chat_requests().len(),
        1,
        "one question, not three"
    );
    let third = main.chat_requests()[2].json();
    let told = third["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(told.contains("What should the reminder say"), "{told}");
    assert!(told.contains("same as before"), "{told}");
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(!content.contains("{\"description\""), "{content}");
}

#[tokio::test]
async fn fields_the_translator_set_are_kept_even_when_they_equal_the_default() {
    let mut tool = fixture_tool("set_reminder");
    tool["function"]["parameters"]["properties"]["background"]["default"] = json!(false);
    let with_default = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00", "ai_prompt": "summarise", "background": false});
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call(
            "c",
            "set_reminder",
            "daily 9:00 summarise my email",
        )]),
        "tool_calls",
    ))])
    .await;
    let answer = with_default.to_string();
    let translator = MockServer::start(move |_| translator_reply(&answer)).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let mut body = request(false);
    body["tools"] = json!([tool]);
    let (status, answer) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        args(&answer["choices"][0]["message"]["tool_calls"][0]),
        with_default
    );
}

#[tokio::test]
async fn a_description_that_copies_the_tool_text_is_replaced_by_the_users_words() {
    // What a 0.5B model did on BFCL: the tool's own text in `description`, no user value.
    let translator = MockServer::start(|_| translator_reply(&email_args().to_string())).await;
    let main = MockServer::start(|r| {
        let body = r.json();
        let tool = &body["tools"][0]["function"];
        let copied = format!(
            "{} {}",
            tool["description"].as_str().unwrap(),
            tool["parameters"]["properties"]["description"]["description"]
                .as_str()
                .unwrap()
        );
        if body["messages"].as_array().unwrap().len() > 1 {
            return Reply::ok(completion(text_message("done"), "stop"));
        }
        Reply::ok(completion(
            calls_message(vec![nl_call("c", "set_reminder", &copied)]),
            "tool_calls",
        ))
    })
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (calls, _) = client_calls(&proxy, false).await;
    assert_eq!(args(&calls[0]), email_args());
    let asked = translator.chat_requests()[0].json();
    assert_eq!(
        asked["messages"][1]["content"],
        "User's latest message: remind me daily at 9 to check email",
        "the copy is not translated as if it were the request"
    );
}

#[tokio::test]
async fn real_arguments_with_unambiguous_mistakes_are_repaired_without_the_translator() {
    let written =
        json!({"message": "Check email", "schedule_type": "Daily", "at": "09:00", "x_note": 1});
    for stream in [false, true] {
        let reply = call_reply(stream, &written.to_string(), "tool_calls");
        let main = MockServer::scripted(vec![reply]).await;
        let translator = MockServer::start(|_| translator_reply("{}")).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let (calls, _) = client_calls(&proxy, stream).await;
        assert_eq!(
            args(&calls[0]),
            email_args(),
            "stream={stream}: enum case fixed, unknown field dropped"
        );
        assert!(translator.chat_requests().is_empty(), "stream={stream}");
    }
}
