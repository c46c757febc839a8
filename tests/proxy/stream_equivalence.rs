//! The same conversation served streamed and not: the same calls (ids, names, arguments,
//! order), finish reason, note, usage, and the same repair turns sent to the main model,
//! through a repair turn, a fan-out and prompt mode.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, chat, client, fixture_tool, fold_stream, translator_reply, MockServer, Proxy,
    Reply,
};

/// One upstream turn, given once and sent in both encodings.
struct Turn {
    content: Option<&'static str>,
    calls: Vec<(&'static str, &'static str, Value)>,
    finish: &'static str,
    usage: (u64, u64),
}

fn usage(turn: &Turn) -> Value {
    let (prompt, completion) = turn.usage;
    json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
}

fn calls(turn: &Turn) -> Vec<Value> {
    turn.calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect()
}

fn whole(turn: &Turn) -> Reply {
    let mut message = json!({"role": "assistant", "content": turn.content});
    if !turn.calls.is_empty() {
        message["tool_calls"] = json!(calls(turn));
    }
    Reply::ok(
        json!({"id": "chatcmpl-eq", "object": "chat.completion", "model": "main-model",
        "choices": [{"index": 0, "message": message, "finish_reason": turn.finish}], "usage": usage(turn)}),
    )
}

fn streamed(turn: &Turn) -> Reply {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-eq", "object": "chat.completion.chunk",
        "model": "main-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut chunks = vec![chunk(json!({"role": "assistant"}), Value::Null)];
    if let Some(text) = turn.content {
        for piece in text.as_bytes().chunks(7) {
            chunks.push(chunk(
                json!({"content": String::from_utf8_lossy(piece)}),
                Value::Null,
            ));
        }
    }
    for (index, call) in calls(turn).into_iter().enumerate() {
        let arguments = call["function"]["arguments"].as_str().unwrap().to_owned();
        chunks.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""}}]}),
            Value::Null,
        ));
        for piece in arguments.as_bytes().chunks(5) {
            chunks.push(chunk(
                json!({"tool_calls": [{"index": index,
                "function": {"arguments": String::from_utf8_lossy(piece)}}]}),
                Value::Null,
            ));
        }
    }
    chunks.push(chunk(json!({}), json!(turn.finish)));
    chunks.push(
        json!({"id": "chatcmpl-eq", "object": "chat.completion.chunk", "model": "main-model",
        "choices": [], "usage": usage(turn)}),
    );
    Reply::sse(chunks)
}

/// What a client ends up with, and the requests the main model received after the first.
struct Outcome {
    message: Value,
    repairs: Vec<Value>,
}

/// What the user asked: words of the scripted translations (never their time, which the
/// repair cases ask for).
const ASKED: &str =
    "please remind me daily at 09:00 to check email; research asyncio, then review it";

async fn serve(turns: &[Turn], translator: Vec<Reply>, extra: &str, stream: bool) -> Outcome {
    let replies = turns
        .iter()
        .map(|t| if stream { streamed(t) } else { whole(t) })
        .collect();
    let main = MockServer::scripted(replies).await;
    let translator = MockServer::scripted(translator).await;
    let config = format!("{extra}{}", backend_toml(&translator.url()));
    let proxy = Proxy::start(&main.url(), &config).await;
    let mut body = json!({"model": "main-model", "messages": [{"role": "user", "content": ASKED}],
        "tools": [fixture_tool("set_reminder"), fixture_tool("spawn_sub_session")]});
    let message = if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
        let response = client()
            .post(proxy.url("/v1/chat/completions"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        fold_stream(&response.text().await.unwrap())
    } else {
        let (status, reply) = chat(&proxy, &body).await;
        assert_eq!(
            status,
            200,
            "{reply} after {} main and {} translator requests: {:?}",
            main.requests().len(),
            translator.chat_requests().len(),
            translator
                .chat_requests()
                .iter()
                .map(|r| r.last_message())
                .collect::<Vec<_>>()
        );
        let choice = &reply["choices"][0];
        json!({"content": choice["message"]["content"].as_str().unwrap_or(""),
            "tool_calls": choice["message"]["tool_calls"].as_array().cloned().unwrap_or_default()
                .into_iter().map(|c| json!({"id": c["id"], "type": c["type"], "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}})).collect::<Vec<_>>(),
            "finish_reason": choice["finish_reason"], "usage": reply["usage"]})
    };
    let repairs = main.chat_requests()[1..]
        .iter()
        .map(|r| {
            let mut body = r.json();
            let object = body.as_object_mut().unwrap();
            object.remove("stream");
            object.remove("stream_options");
            body
        })
        .collect();
    Outcome { message, repairs }
}

async fn assert_same(turns: Vec<Turn>, translator: Vec<Reply>, extra: &str) -> Value {
    let mut whole = serve(&turns, translator.clone(), extra, false).await;
    let mut streamed = serve(&turns, translator, extra, true).await;
    for outcome in [&mut whole, &mut streamed] {
        let message = &mut outcome.message;
        // Whitespace around text that a call was cut out of is not part of the answer.
        message["content"] = json!(message["content"].as_str().unwrap().trim());
        if !extra.is_empty() {
            // Prompt mode: plaincall makes the ids up, fresh each time; they must exist.
            for call in message["tool_calls"].as_array_mut().unwrap() {
                assert!(call["id"].as_str().unwrap().starts_with("call_"), "{call}");
                call["id"] = json!("generated");
            }
        }
    }
    assert_eq!(whole.message, streamed.message, "what the client gets");
    assert_eq!(
        whole.repairs, streamed.repairs,
        "the repair turns sent to the main model"
    );
    whole.message
}

fn nl(id: &'static str, description: &str) -> (&'static str, &'static str, Value) {
    (id, "set_reminder", json!({"description": description}))
}

/// The main model's answer to the direct ask made once before a question goes back: words,
/// no call.
fn direct_ask_declined() -> Turn {
    Turn {
        content: Some("Which details do you need?"),
        calls: vec![],
        finish: "stop",
        usage: (0, 0),
    }
}

#[tokio::test]
async fn a_repair_turn_is_the_same_streamed_or_not() {
    let turns = vec![
        Turn {
            content: Some("Let me set that."),
            calls: vec![nl("call_1", "remind me")],
            finish: "tool_calls",
            usage: (20, 5),
        },
        // Before the question goes back, the main model is asked with every tool in full
        // (another tool may be the one it wanted); it answers in words, so the question stands.
        direct_ask_declined(),
        Turn {
            content: None,
            calls: vec![nl("call_2", "daily at 09:00 to check email")],
            finish: "tool_calls",
            usage: (30, 6),
        },
    ];
    let translator = vec![
        translator_reply(
            r#"{"error": "missing_info", "clarification_needed": "What should the reminder say?"}"#,
        ),
        translator_reply(
            &json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"}).to_string(),
        ),
    ];
    let message = assert_same(turns, translator, "").await;
    assert_eq!(message["finish_reason"], "tool_calls");
    assert_eq!(message["tool_calls"][0]["id"], "call_2");
    assert_eq!(
        message["usage"]["prompt_tokens"], 50,
        "usage summed over both turns"
    );
}

#[tokio::test]
async fn failed_repairs_end_with_the_same_note() {
    // Three turns: the first and the two repair turns `repair_turns = 2` allows.
    let turns = vec![
        Turn {
            content: None,
            calls: vec![nl("call_1", "remind me")],
            finish: "tool_calls",
            usage: (20, 5),
        },
        direct_ask_declined(),
        Turn {
            content: None,
            calls: vec![nl("call_2", "remind me please")],
            finish: "tool_calls",
            usage: (30, 6),
        },
        Turn {
            content: Some("Trying again."),
            calls: vec![nl("call_3", "remind me soon")],
            finish: "tool_calls",
            usage: (40, 7),
        },
    ];
    let ask = || {
        translator_reply(
            r#"{"error": "missing_info", "clarification_needed": "What should the reminder say?"}"#,
        )
    };
    let message = assert_same(turns, vec![ask(), ask(), ask()], "").await;
    assert_eq!(message["finish_reason"], "stop");
    assert!(message["content"]
        .as_str()
        .unwrap()
        .contains("I could not complete the tool call"));
}

#[tokio::test]
async fn a_fan_out_is_the_same_streamed_or_not() {
    let turns = vec![Turn {
        content: None,
        calls: vec![(
            "call_s",
            "spawn_sub_session",
            json!({"description": "research asyncio, then review it"}),
        )],
        finish: "tool_calls",
        usage: (10, 2),
    }];
    let two = json!([
        {"objective": "Research asyncio. Write data/a.md.", "depends_on_previous": false},
        {"objective": "Review data/a.md and add examples.", "depends_on_previous": true}
    ]);
    let message = assert_same(turns, vec![translator_reply(&two.to_string())], "").await;
    let ids: Vec<&str> = message["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_s__1of2", "call_s__2of2"]);
}

#[tokio::test]
async fn prompt_mode_is_the_same_streamed_or_not() {
    let text = format!(
        "Setting it.\n```json\n{}\n```",
        json!({"name": "set_reminder", "arguments": {"description": "daily at 09:00 to check email"}})
    );
    let turns = vec![Turn {
        content: Some(Box::leak(text.into_boxed_str())),
        calls: vec![],
        finish: "stop",
        usage: (40, 9),
    }];
    let args = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"});
    let message = assert_same(
        turns,
        vec![translator_reply(&args.to_string())],
        "[tool_calling]\ndefault = \"prompt\"\n",
    )
    .await;
    assert_eq!(message["finish_reason"], "tool_calls");
    let arguments: Value = serde_json::from_str(
        message["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(arguments, args);
}

/// `n` = 2: every choice's call is translated, streamed or not, by the same engine (the
/// upstream streams the choices' deltas interleaved).
#[tokio::test]
async fn two_choices_are_translated_alike_streamed_or_not() {
    let args = |at: &str| json!({"message": "Check email", "schedule_type": "daily", "at": at});
    let described = [
        ("call_a", "daily at 09:00 to check email"),
        ("call_b", "daily at 10:00 to check email"),
    ];
    let arguments = |description: &str| json!({"description": description}).to_string();
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18});
    let two_choices = |stream: bool| {
        if stream {
            // The choices' deltas interleaved, as an upstream streams `n: 2`.
            let chunk = |choices: Value| json!({"id": "chatcmpl-n2", "object": "chat.completion.chunk", "model": "main-model", "choices": choices});
            let mut events = Vec::new();
            for (index, (id, _)) in described.iter().enumerate() {
                events.push(chunk(json!([{"index": index, "delta": {"role": "assistant", "content": null,
                    "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": "set_reminder", "arguments": ""}}]}, "finish_reason": null}])));
            }
            for (index, (_, description)) in described.iter().enumerate() {
                events.push(chunk(json!([{"index": index, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": arguments(description)}}]}, "finish_reason": null}])));
            }
            events.push(chunk(json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}, {"index": 1, "delta": {}, "finish_reason": "tool_calls"}])));
            let mut last = chunk(json!([]));
            last["usage"] = usage.clone();
            events.push(last);
            return Reply::sse(events);
        }
        let choice = |index: usize, (id, description): (&str, &str)| {
            json!({"index": index, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "set_reminder", "arguments": arguments(description)}}]}})
        };
        Reply::ok(
            json!({"id": "chatcmpl-n2", "object": "chat.completion", "model": "main-model",
            "choices": [choice(0, described[0]), choice(1, described[1])], "usage": usage}),
        )
    };
    let mut answers = Vec::new();
    for stream in [false, true] {
        let main = MockServer::scripted(vec![two_choices(stream)]).await;
        // Both choices are translated concurrently: the translator answers by description.
        let translator = MockServer::start(move |r| {
            let asked = r.last_message()["content"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            let at = if asked.contains("10:00") {
                "10:00"
            } else {
                "09:00"
            };
            translator_reply(&args(at).to_string())
        })
        .await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let mut body = json!({"model": "main-model", "n": 2, "messages": [{"role": "user", "content": "remind me daily at 09:00 or at 10:00 to check email"}],
            "tools": [fixture_tool("set_reminder")]});
        let choices: Vec<(Value, Value)> = if stream {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
            let response = client()
                .post(proxy.url("/v1/chat/completions"))
                .json(&body)
                .send()
                .await
                .unwrap();
            assert!(response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream"));
            let raw = response.text().await.unwrap();
            assert!(raw.trim_end().ends_with("data: [DONE]"), "{raw}");
            (0..2)
                .map(|i| {
                    let only: String = raw
                        .split("\n\n")
                        .filter(|b| b.contains(&format!("\"index\":{i},\"delta\"")))
                        .map(|b| format!("{b}\n\n"))
                        .collect();
                    let folded = fold_stream(&only);
                    (
                        folded["tool_calls"].clone(),
                        folded["finish_reason"].clone(),
                    )
                })
                .collect()
        } else {
            let (status, reply) = chat(&proxy, &body).await;
            assert_eq!(status, 200, "{reply}");
            reply["choices"].as_array().unwrap().iter().map(|c| {
                let calls: Vec<Value> = c["message"]["tool_calls"].as_array().unwrap().iter()
                    .map(|k| json!({"id": k["id"], "type": k["type"], "function": {"name": k["function"]["name"], "arguments": k["function"]["arguments"]}}))
                    .collect();
                (json!(calls), c["finish_reason"].clone())
            }).collect()
        };
        // One engine for both: the upstream is asked for a stream, which a whole answer is
        // folded from (so that a runaway description can be cut).
        let seen = main.chat_requests()[0].json();
        assert_eq!(seen["stream"], true, "{seen}");
        answers.push(choices);
    }
    assert_eq!(answers[0], answers[1], "streamed and whole answers");
    let (calls, finish) = &answers[0][1];
    assert_eq!(finish, "tool_calls");
    assert_eq!(calls[0]["id"], "call_b");
    let second: Value =
        serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(second, args("10:00"), "the second choice is translated too");
}
