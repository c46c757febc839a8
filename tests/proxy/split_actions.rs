//! Several actions in one message, one call made: with `translation.split_actions`, the
//! translator lists the message's actions, and those beyond the calls made become calls of
//! their own, after the main model's, streamed or not. Off, nothing is asked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, client, completion, fold_stream, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

const ASKED: &str = "A hotel in Rome for 2 nights, and a cab to the airport.";

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {"name": "book_hotel", "description": "Book a hotel.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
            "required": ["city", "nights"]}}}),
        json!({"type": "function", "function": {"name": "find_cab", "description": "Order a cab.",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}}}),
    ]
}

/// Its `nights` is text: repaired to a number before the client, and the question, see it.
fn hotel_call() -> Value {
    tool_call(
        "call_h",
        "book_hotel",
        &json!({"city": "Rome", "nights": "2"}),
    )
}

/// The translator: the split question gets the cab, a translation of the cab gets arguments.
fn translator() -> impl Fn(&support::Recorded) -> Reply + Send + Sync + 'static {
    |request| {
        let body = request.json();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        if system.contains("You list the actions a user's message asks for") {
            let user = body["messages"][1]["content"].as_str().unwrap();
            assert!(user.contains(ASKED), "{user}");
            // The hotel has its call already: only the cab is left out.
            return translator_reply(
                r#"{"actions": [{"tool": "book_hotel", "request": "a hotel in Rome for 2 nights"},
                    {"tool": "find_cab", "request": "a cab to the airport"}]}"#,
            );
        }
        assert!(body.to_string().contains("find_cab"), "{body}");
        translator_reply(r#"{"to": "airport"}"#)
    }
}

/// A main model that books the hotel and forgets the cab.
async fn main_model() -> MockServer {
    MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![hotel_call()]),
        "tool_calls",
    ))])
    .await
}

fn config(translator: &str) -> String {
    format!(
        "[translation]\nsplit_actions = true\n{}",
        backend_toml(translator)
    )
}

fn request(stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "tools": tools(),
        "messages": [{"role": "user", "content": ASKED}]})
}

fn names_and_arguments(calls: &Value) -> Vec<(String, Value)> {
    calls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["function"]["name"].as_str().unwrap().to_owned(),
                serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_left_out_action_becomes_a_call_after_the_main_models() {
    let main = main_model().await;
    let translator = MockServer::start(translator()).await;
    let proxy = Proxy::start(&main.url(), &config(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let calls = &body["choices"][0]["message"]["tool_calls"];
    assert_eq!(
        names_and_arguments(calls),
        vec![
            ("book_hotel".into(), json!({"city": "Rome", "nights": 2})),
            ("find_cab".into(), json!({"to": "airport"})),
        ]
    );
    assert_eq!(calls[0]["id"], "call_h");
    assert!(calls[1]["id"].as_str().unwrap().starts_with("call_"));
    assert_ne!(calls[0]["id"], calls[1]["id"]);
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(translator.requests().len(), 2, "the question and the cab");
}

#[tokio::test]
async fn streamed_the_added_call_follows_with_the_next_index() {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "s", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let call = hotel_call();
    let main = MockServer::scripted(vec![Reply::sse(vec![
        chunk(json!({"role": "assistant"}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_h", "type": "function",
                "function": {"name": "book_hotel", "arguments": call["function"]["arguments"]}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
    ])])
    .await;
    let translator = MockServer::start(translator()).await;
    let proxy = Proxy::start(&main.url(), &config(&translator.url())).await;
    let raw = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let folded = fold_stream(&raw);
    assert_eq!(
        names_and_arguments(&folded["tool_calls"]),
        vec![
            ("book_hotel".into(), json!({"city": "Rome", "nights": 2})),
            ("find_cab".into(), json!({"to": "airport"})),
        ]
    );
    assert_eq!(folded["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn off_by_default_nothing_is_asked() {
    let main = main_model().await;
    let translator = MockServer::start(translator()).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(translator.requests().is_empty());
}

#[tokio::test]
async fn an_unreadable_answer_adds_nothing_and_keeps_the_call() {
    let main = main_model().await;
    let translator = MockServer::start(|_| translator_reply("I am not sure.")).await;
    let proxy = Proxy::start(&main.url(), &config(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let calls = &body["choices"][0]["message"]["tool_calls"];
    assert_eq!(
        names_and_arguments(calls),
        vec![("book_hotel".into(), json!({"city": "Rome", "nights": 2}))]
    );
}

#[tokio::test]
async fn an_added_call_that_repeats_one_made_is_dropped() {
    let main = main_model().await;
    // The list names the hotel twice in other words; its second translation is the call the
    // main model made (once repaired), so only the cab is new.
    let translator = MockServer::start(|request: &support::Recorded| {
        let body = request.json();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        if system.contains("You list the actions a user's message asks for") {
            return translator_reply(
                r#"{"actions": [{"tool": "book_hotel", "request": "a hotel in Rome for 2 nights"},
                    {"tool": "book_hotel", "request": "two nights in Rome"},
                    {"tool": "find_cab", "request": "a cab to the airport"}]}"#,
            );
        }
        if body.to_string().contains("two nights in Rome") {
            return translator_reply(r#"{"nights": 2, "city": "Rome"}"#);
        }
        translator_reply(r#"{"to": "airport"}"#)
    })
    .await;
    let proxy = Proxy::start(&main.url(), &config(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        names_and_arguments(&body["choices"][0]["message"]["tool_calls"]),
        vec![
            ("book_hotel".into(), json!({"city": "Rome", "nights": 2})),
            ("find_cab".into(), json!({"to": "airport"})),
        ]
    );
    assert_eq!(
        translator.requests().len(),
        3,
        "the question, the hotel again, the cab"
    );
}
