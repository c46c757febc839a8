//! Calls to tools plaincall does not rewrite are checked against the tool's own schema before
//! the client sees them: unambiguous mistakes are fixed in place, the rest by the translator
//! with the errors or by a repair turn (`translation.check_calls`, per tool
//! `[translation.checks]`), streamed or not; a valid call loses the optional values the
//! conversation never gave (`translation.grounding`); the rest go as they came.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, chat_stream_text, client, completion, first_call_arguments,
    fold_stream, stream_chunk, streamed_call, tool_call, translator_reply, MockServer, Proxy,
    Reply,
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
        "messages": [{"role": "user", "content": "A VIP table for four on 2026-12-01, outside."}],
        "tools": [book_table()]})
}

/// A main model whose first call to `book_table` carries `arguments`, and whose repair turn
/// answers with a valid one.
async fn invalid_then_valid(arguments: Value) -> MockServer {
    MockServer::scripted(vec![
        Reply::ok(completion(
            calls_message(vec![tool_call("call_1", "book_table", &arguments)]),
            "tool_calls",
        )),
        valid_second_turn(),
    ])
    .await
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
        first_call_arguments(message),
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
        first_call_arguments(message),
        json!({"party": 4, "date": "2026-12-01", "seating": "outdoor"})
    );
    let asked = translator.requests()[0].user_message();
    assert!(asked.contains("four people"), "{asked}");
    assert!(asked.contains("fail the schema"), "{asked}");
}

#[tokio::test]
async fn repair_mode_asks_the_main_model_again_with_the_errors() {
    let main = invalid_then_valid(json!({"party": "four"})).await;
    let translator = MockServer::scripted(vec![]).await;
    let config = format!(
        "{}[translation.checks]\nbook_table = \"repair\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &config).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        first_call_arguments(&body["choices"][0]["message"]),
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
        "{{ \"model\":\"m\", \"top_k\": 40, \"messages\":[{{\"role\":\"user\",\"content\":\"a table for 4 on 2026-12-01\"}}], \"tools\": [{}] }}",
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

#[tokio::test]
async fn streamed_calls_are_checked_before_the_client_sees_them() {
    let written = r#"{"party":"4","date":"2026-12-01","seating":"OUTDOOR"}"#;
    let mut chunks = vec![
        stream_chunk(json!({"role": "assistant", "content": "Booking. "}), None),
        stream_chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_s", "type": "function",
                "function": {"name": "book_table", "arguments": ""}}]}),
            None,
        ),
    ];
    for piece in written.as_bytes().chunks(6) {
        chunks.push(stream_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": String::from_utf8_lossy(piece)}}]}),
            None,
        ));
    }
    chunks.push(stream_chunk(json!({}), Some("tool_calls")));
    let main = MockServer::scripted(vec![Reply::sse(chunks)]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let raw = chat_stream_text(&proxy, &request(true)).await;
    assert!(
        !raw.contains("OUTDOOR"),
        "the written arguments leaked: {raw}"
    );
    let folded = fold_stream(&raw);
    assert_eq!(folded["content"], "Booking. ");
    assert_eq!(folded["tool_calls"][0]["id"], "call_s");
    assert_eq!(
        first_call_arguments(&folded),
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
    assert_eq!(
        first_call_arguments(&body["choices"][0]["message"]),
        written
    );
    assert_eq!(main.chat_requests().len(), 1);
}

/// The main model's own valid call, with an optional value the user never gave (`seating`:
/// nobody said where to sit) beside one the user did (`vip`).
fn own_call_reply() -> Reply {
    Reply::ok(completion(
        calls_message(vec![tool_call(
            "call_o",
            "book_table",
            &json!({"party": 4, "date": "2026-12-01", "vip": true, "seating": "indoor"}),
        )]),
        "tool_calls",
    ))
}

fn unsaid_seating(stream: bool) -> Value {
    let mut request = request(stream);
    request["messages"][0]["content"] = json!("A VIP table for 4 on 2026-12-01, please.");
    request
}

#[tokio::test]
async fn a_valid_call_loses_the_optional_values_nobody_said() {
    let main = MockServer::scripted(vec![own_call_reply()]).await;
    let translator = MockServer::scripted(vec![]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &unsaid_seating(false)).await;
    assert_eq!(status, 200, "{body}");
    let message = &body["choices"][0]["message"];
    assert_eq!(message["tool_calls"][0]["id"], "call_o");
    assert_eq!(
        first_call_arguments(message),
        json!({"party": 4, "date": "2026-12-01", "vip": true})
    );
    assert!(translator.requests().is_empty());
    assert_eq!(main.chat_requests().len(), 1);
    let metrics = client()
        .get(proxy.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("plaincall_grounding_dropped_total 1"),
        "{metrics}"
    );

    // Said, the same value stays, and the answer goes out as it came.
    let main = MockServer::scripted(vec![own_call_reply()]).await;
    let proxy = Proxy::start(&main.url(), "").await;
    let mut said = unsaid_seating(false);
    said["messages"][0]["content"] = json!("A VIP table for 4 on 2026-12-01, indoors.");
    let (status, body) = chat(&proxy, &said).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        first_call_arguments(&body["choices"][0]["message"]),
        json!({"party": 4, "date": "2026-12-01", "vip": true, "seating": "indoor"})
    );
}

#[tokio::test]
async fn a_streamed_valid_call_loses_them_too_and_off_keeps_them() {
    let arguments = r#"{"party":4,"date":"2026-12-01","vip":true,"seating":"indoor"}"#;
    let script = || vec![streamed_call("call_s", "book_table", arguments, 7)];
    for (grounding, expected) in [
        (
            "optional",
            json!({"party": 4, "date": "2026-12-01", "vip": true}),
        ),
        (
            "off",
            json!({"party": 4, "date": "2026-12-01", "vip": true, "seating": "indoor"}),
        ),
    ] {
        let main = MockServer::scripted(script()).await;
        let config = format!("[translation]\ngrounding = \"{grounding}\"\n");
        let proxy = Proxy::start(&main.url(), &config).await;
        let response = client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&unsaid_seating(true))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let raw = response.text().await.unwrap();
        let folded = fold_stream(&raw);
        assert_eq!(folded["tool_calls"][0]["id"], "call_s", "{raw}");
        assert_eq!(
            first_call_arguments(&folded),
            expected,
            "grounding {grounding}: {raw}"
        );
    }
}

#[tokio::test]
async fn a_value_some_condition_requires_stays_in_the_model_s_own_call() {
    // `seating` is optional, but a VIP booking must say it: leaving it out would break the call.
    let tool = json!({"type": "function", "function": {"name": "book_table",
        "parameters": {"type": "object", "properties": {
            "party": {"type": "integer"}, "vip": {"type": "boolean"},
            "seating": {"enum": ["indoor", "outdoor"]}, "date": {"type": "string"}},
        "required": ["party", "date"],
        "dependentRequired": {"vip": ["seating"]}}}});
    let main = MockServer::scripted(vec![own_call_reply()]).await;
    let proxy = Proxy::start(
        &main.url(),
        "[translation.tools]\nbook_table = \"passthrough\"\n",
    )
    .await;
    let mut asked = unsaid_seating(false);
    asked["tools"] = json!([tool]);
    let (status, body) = chat(&proxy, &asked).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        first_call_arguments(&body["choices"][0]["message"]),
        json!({"party": 4, "date": "2026-12-01", "vip": true, "seating": "indoor"})
    );
}

#[tokio::test]
async fn a_call_a_repair_turn_repeats_goes_out_once() {
    let lock = json!({"type": "function", "function": {"name": "check_lock",
        "description": "Tell whether a lock is locked.",
        "parameters": {"type": "object", "properties": {"lock": {"type": "string"}},
            "required": ["lock"]}}});
    let lock_call = |id: &str| tool_call(id, "check_lock", &json!({"lock": "lock.front_door"}));
    for stream in [false, true] {
        let turn = |calls: Vec<Value>| {
            let arguments: Vec<(String, String, String)> = calls
                .iter()
                .map(|c| {
                    (
                        c["id"].as_str().unwrap().to_owned(),
                        c["function"]["name"].as_str().unwrap().to_owned(),
                        c["function"]["arguments"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            if !stream {
                return Reply::ok(completion(calls_message(calls), "tool_calls"));
            }
            let mut chunks = Vec::new();
            for (at, (id, name, args)) in arguments.iter().enumerate() {
                chunks.push(stream_chunk(
                    json!({"tool_calls": [{"index": at, "id": id, "type": "function",
                        "function": {"name": name, "arguments": args}}]}),
                    None,
                ));
            }
            chunks.push(stream_chunk(json!({}), Some("tool_calls")));
            Reply::sse(chunks)
        };
        // The first turn: the lock call is fine, the table's is not; the repair turn writes
        // both again, the table's fixed.
        let main = MockServer::scripted(vec![
            turn(vec![
                lock_call("call_1"),
                tool_call("call_2", "book_table", &json!({"party": "four"})),
            ]),
            turn(vec![
                lock_call("call_3"),
                tool_call(
                    "call_4",
                    "book_table",
                    &json!({"party": 4, "date": "2026-12-01"}),
                ),
            ]),
        ])
        .await;
        let translator = MockServer::scripted(vec![]).await;
        let config = format!(
            "{}[translation.checks]\nbook_table = \"repair\"\n",
            backend_toml(&translator.url())
        );
        let proxy = Proxy::start(&main.url(), &config).await;
        let mut body = request(stream);
        body["messages"][0]["content"] =
            json!("A VIP table for four on 2026-12-01, outside. And is lock.front_door locked?");
        body["tools"] = json!([book_table(), lock]);
        let message = if stream {
            fold_stream(&chat_stream_text(&proxy, &body).await)
        } else {
            let (status, answer) = chat(&proxy, &body).await;
            assert_eq!(status, 200, "{answer}");
            answer["choices"][0]["message"].clone()
        };
        let names: Vec<&str> = message["tool_calls"]
            .as_array()
            .unwrap_or_else(|| panic!("stream={stream}: no calls: {message}"))
            .iter()
            .map(|c| c["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["check_lock", "book_table"],
            "stream={stream}: {message}"
        );
        assert_eq!(main.chat_requests().len(), 2, "one repair turn");
    }
}

#[tokio::test]
async fn a_translator_s_objection_to_a_tool_the_model_chose_is_no_wrong_tool() {
    let main = invalid_then_valid(json!({"party": "a few"})).await;
    let translator = MockServer::start(|_| {
        translator_reply(r#"{"error": "wrong_tool", "reason": "this is no booking"}"#)
    })
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        first_call_arguments(&body["choices"][0]["message"]),
        json!({"party": 4, "date": "2026-12-01"})
    );
    assert_eq!(translator.chat_requests().len(), 1);
    let told = main.chat_requests()[1].last_message()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(told.contains("arguments do not fit its schema"), "{told}");
    assert!(
        !told.contains("WRONG TOOL") && !told.contains("not for"),
        "{told}"
    );
}
