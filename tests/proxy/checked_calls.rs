//! Calls to tools plaincall does not rewrite are checked against the tool's own schema before
//! the client sees them: unambiguous mistakes are fixed in place, the rest by the translator
//! with the errors or by a repair turn (`translation.check_calls`, per tool
//! `[translation.checks]`), streamed or not; valid calls and their requests go as they came.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, client, completion, fold_stream, tool_call,
    translator_reply, MockServer, Proxy, Reply,
};

/// Four flat properties: `auto` leaves it as it is, so its calls are only checked.
fn book_table() -> Value {
    json!({"type": "function", "function": {"name": "book_table", "description": "Book a table.",
        "parameters": {"type": "object", "properties": {
            "party": {"type": "integer"},
            "vip": {"type": "boolean"},
            "seating": {"enum": ["indoor", "outdoor"]},
            "date": {"type": "string"}},
        "required": ["party", "date"], "additionalProperties": false}}})
}

fn request(stream: bool) -> Value {
    json!({"model": "main-model", "stream": stream,
        "messages": [{"role": "user", "content": "A table for four on 2026-12-01, outside."}],
        "tools": [book_table()]})
}

/// The repair turn's answer: a valid call.
fn valid_second_turn() -> Reply {
    Reply::ok(completion(
        calls_message(vec![tool_call(
            "call_2",
            "book_table",
            &json!({"party": 4, "date": "2026-12-01"}),
        )]),
        "tool_calls",
    ))
}

fn arguments_of(message: &Value) -> Value {
    serde_json::from_str(
        message["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn unambiguous_mistakes_are_fixed_without_a_translator_call() {
    let written = json!({"party": "4", "vip": "true", "seating": "Outdoor", "date": "2026-12-01", "note": "x"});
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![tool_call("call_b", "book_table", &written)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let message = &body["choices"][0]["message"];
    assert_eq!(message["tool_calls"][0]["id"], "call_b");
    assert_eq!(
        arguments_of(message),
        json!({"party": 4, "vip": true, "seating": "outdoor", "date": "2026-12-01"})
    );
    assert!(translator.requests().is_empty());
    assert_eq!(main.chat_requests().len(), 1);
}

#[tokio::test]
async fn the_translator_fixes_what_the_schema_leaves_open() {
    let written = json!({"party": "four people", "date": "2026-12-01"});
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![tool_call("call_b", "book_table", &written)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(
        r#"{"party": 4, "date": "2026-12-01", "seating": "outdoor"}"#,
    )])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let message = &body["choices"][0]["message"];
    assert_eq!(message["tool_calls"][0]["id"], "call_b");
    // `outdoor`: the user asked to sit outside (grounding keeps what the request names).
    assert_eq!(
        arguments_of(message),
        json!({"party": 4, "date": "2026-12-01", "seating": "outdoor"})
    );
    let asked = translator.requests()[0].user_message();
    assert!(asked.contains("four people"), "{asked}");
    assert!(asked.contains("fail the schema"), "{asked}");
}

#[tokio::test]
async fn repair_mode_asks_the_main_model_again_with_the_errors() {
    let main = MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![tool_call(
                "call_1",
                "book_table",
                &json!({"party": "four"}),
            )]),
            "tool_calls",
        )),
        valid_second_turn(),
    ])
    .await;
    let translator = MockServer::scripted(vec![]).await;
    let config = format!(
        "{}[translation.checks]\nbook_table = \"repair\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &config).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        arguments_of(&body["choices"][0]["message"]),
        json!({"party": 4, "date": "2026-12-01"})
    );
    assert!(translator.requests().is_empty());
    let second = main.chat_requests()[1].last_message();
    assert_eq!(second["role"], "tool");
    assert_eq!(second["tool_call_id"], "call_1");
    let told = second["content"].as_str().unwrap();
    assert!(told.starts_with("[INVALID ARGUMENTS]"), "{told}");
    assert!(told.contains("date"), "the missing field is named: {told}");
}

#[tokio::test]
async fn arguments_cut_off_get_a_repair_turn_not_the_client() {
    let cut = json!({"id": "call_1", "type": "function",
        "function": {"name": "book_table", "arguments": "{\"party\": 4, \"da"}});
    let main = MockServer::scripted(vec![
        Reply::ok(completion(calls_message(vec![cut]), "length")),
        valid_second_turn(),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["choices"][0]["message"]["tool_calls"][0]["id"],
        "call_2"
    );
    let told = main.chat_requests()[1].last_message();
    assert!(
        told["content"].as_str().unwrap().contains("cut off"),
        "{told}"
    );
}

#[tokio::test]
async fn a_valid_call_and_its_request_go_as_they_came() {
    let reply = completion(
        calls_message(vec![tool_call(
            "call_b",
            "book_table",
            &json!({"party": 4, "date": "2026-12-01"}),
        )]),
        "tool_calls",
    )
    .to_string();
    let sent = reply.clone();
    let main = MockServer::start(move |_| Reply::text(200, &sent)).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let request = format!(
        "{{ \"model\":\"m\", \"top_k\": 40, \"messages\":[{{\"role\":\"user\",\"content\":\"hi\"}}], \"tools\": [{}] }}",
        book_table()
    );
    let response = client()
        .post(proxy.url("/v1/chat/completions?api-version=2"))
        .header("content-type", "application/json")
        .header("x-custom", "kept")
        .body(request.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), reply);
    let seen = &main.requests()[0];
    assert_eq!(seen.body, request.as_bytes());
    assert_eq!(seen.headers["x-custom"], "kept");
    assert_eq!(seen.query.as_deref(), Some("api-version=2"));
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "main-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

#[tokio::test]
async fn streamed_calls_are_checked_before_the_client_sees_them() {
    let written = r#"{"party":"4","date":"2026-12-01","seating":"OUTDOOR"}"#;
    let mut chunks = vec![
        chunk(json!({"role": "assistant", "content": "Booking. "}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_s", "type": "function",
                "function": {"name": "book_table", "arguments": ""}}]}),
            None,
        ),
    ];
    for piece in written.as_bytes().chunks(6) {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": String::from_utf8_lossy(piece)}}]}),
            None,
        ));
    }
    chunks.push(chunk(json!({}), Some("tool_calls")));
    let main = MockServer::scripted(vec![Reply::sse(chunks)]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let response = client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let raw = response.text().await.unwrap();
    assert!(
        !raw.contains("OUTDOOR"),
        "the written arguments leaked: {raw}"
    );
    let folded = fold_stream(&raw);
    assert_eq!(folded["content"], "Booking. ");
    assert_eq!(folded["tool_calls"][0]["id"], "call_s");
    assert_eq!(
        arguments_of(&folded),
        json!({"party": 4, "date": "2026-12-01", "seating": "outdoor"})
    );
    assert_eq!(folded["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn off_leaves_calls_as_the_model_wrote_them() {
    let written = json!({"party": "four"});
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![tool_call("call_b", "book_table", &written)]),
        "tool_calls",
    ))])
    .await;
    let proxy = Proxy::start(&main.url(), "[translation]\ncheck_calls = \"off\"\n").await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200);
    assert_eq!(arguments_of(&body["choices"][0]["message"]), written);
    assert_eq!(main.chat_requests().len(), 1);
}
