//! The translation pipe over SSE: whatever the upstream's fragmentation, the client sees the
//! chunk shape OpenAI clients accumulate, and the same message as without streaming.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, completion, fixture_tool, tool_call, translator_reply,
    MockServer, Proxy, Reply,
};

const EMAIL: &str = "daily at 09:00 to check email";

fn email_args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-stream-1", "object": "chat.completion.chunk", "created": 1_760_000_000,
        "model": "main-model", "system_fingerprint": "fp_s", "x_vendor": {"k": 1},
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
    })
}

fn usage_chunk(total: u64) -> Value {
    json!({"id": "chatcmpl-stream-1", "object": "chat.completion.chunk", "created": 1_760_000_000, "model": "main-model",
        "choices": [], "usage": {"prompt_tokens": total - 5, "completion_tokens": 5, "total_tokens": total}})
}

/// The deltas of one call: id, type and name first, then the arguments in `piece`-sized parts.
fn call_deltas(index: usize, id: &str, name: &str, arguments: &str, piece: usize) -> Vec<Value> {
    let mut out = vec![
        json!({"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}),
    ];
    let chars: Vec<char> = arguments.chars().collect();
    for part in chars.chunks(piece.max(1)) {
        out.push(
            json!({"index": index, "function": {"arguments": part.iter().collect::<String>()}}),
        );
    }
    out
}

fn nl_args(description: &str) -> String {
    json!({"description": description}).to_string()
}

fn tool_chunks(deltas: Vec<Value>) -> Vec<Value> {
    deltas
        .into_iter()
        .map(|d| chunk(json!({"tool_calls": [d]}), None))
        .collect()
}

fn stream_of(mut chunks: Vec<Value>, finish: &str) -> Vec<Value> {
    let mut all = vec![chunk(json!({"role": "assistant", "content": null}), None)];
    all.append(&mut chunks);
    all.push(chunk(json!({}), Some(finish)));
    all
}

fn request(tools: Vec<Value>, stream: bool) -> Value {
    let mut body = json!({"model": "main-model", "messages": [{"role": "user", "content": "remind me daily at 09:00 to check email"}], "tools": tools, "stream": stream});
    if stream {
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

async fn stream_chat(proxy: &Proxy, body: &Value) -> (Vec<String>, String) {
    let response = support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let raw = response.text().await.unwrap();
    let events = raw
        .split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .collect();
    (events, raw)
}

/// Accumulates chunks as the OpenAI SDKs do, checking the rules they rely on along the way.
fn accumulate(events: &[String]) -> (Value, Option<Value>) {
    assert_eq!(
        events.last().map(String::as_str),
        Some("[DONE]"),
        "the stream ends with [DONE]"
    );
    let mut content = String::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut finish: Option<String> = None;
    let mut usage = None;
    let mut roles = 0;
    for (n, event) in events[..events.len() - 1].iter().enumerate() {
        let chunk: Value = serde_json::from_str(event).unwrap();
        assert!(chunk.get("error").is_none(), "error event: {chunk}");
        assert_eq!(
            chunk["id"], "chatcmpl-stream-1",
            "every chunk keeps the upstream id"
        );
        assert_eq!(chunk["model"], "main-model");
        let choices = chunk["choices"].as_array().unwrap();
        if choices.is_empty() {
            assert_eq!(n, events.len() - 2, "the usage chunk comes last");
            usage = Some(chunk["usage"].clone());
            continue;
        }
        assert!(
            finish.is_none(),
            "nothing after finish_reason but usage: {chunk}"
        );
        let delta = &choices[0]["delta"];
        if delta.get("role").is_some() {
            roles += 1;
        }
        if let Some(text) = delta["content"].as_str() {
            content.push_str(text);
        }
        for d in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = d["index"]
                .as_u64()
                .expect("every tool-call delta has an index") as usize;
            if index == calls.len() {
                assert!(
                    d["id"].is_string()
                        && d["type"] == "function"
                        && d["function"]["name"].is_string(),
                    "first delta carries id, type and name: {d}"
                );
                calls.push(json!({"id": d["id"], "type": "function", "function": {"name": d["function"]["name"], "arguments": ""}}));
            } else {
                assert!(index < calls.len(), "indices are contiguous: {d}");
                assert!(
                    d.get("id").is_none() && d["function"].get("name").is_none(),
                    "id and name are not repeated: {d}"
                );
            }
            if let Some(part) = d["function"]["arguments"].as_str() {
                let args = calls[index]["function"]["arguments"]
                    .as_str()
                    .unwrap()
                    .to_owned()
                    + part;
                calls[index]["function"]["arguments"] = json!(args);
            }
        }
        if let Some(reason) = choices[0]["finish_reason"].as_str() {
            finish = Some(reason.to_owned());
        }
    }
    assert!(roles <= 1, "the role is sent once");
    let mut message = json!({"role": "assistant", "content": if content.is_empty() { Value::Null } else { json!(content) }});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    (
        json!({"message": message, "finish_reason": finish.expect("a finish_reason")}),
        usage,
    )
}

fn arguments(message: &Value) -> Vec<Value> {
    message["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap()
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn translator_with(answer: Value) -> MockServer {
    MockServer::start(move |_| translator_reply(&answer.to_string())).await
}

/// Streams `chunks` and checks the result equals the non-streaming pipe on the same calls.
async fn streamed_equals_unstreamed(
    chunks: Vec<Value>,
    complete_message: Value,
    answer: Value,
    tools: Vec<Value>,
) -> Value {
    let mut events = chunks;
    events.push(usage_chunk(15));
    let main = MockServer::scripted(vec![
        Reply::sse(events),
        Reply::ok(completion(complete_message, "tool_calls")),
    ])
    .await;
    let translator = translator_with(answer).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (events, _) = stream_chat(&proxy, &request(tools.clone(), true)).await;
    let (streamed, usage) = accumulate(&events);
    assert_eq!(usage.unwrap()["total_tokens"], 15);
    let (_, body) = chat(&proxy, &request(tools, false)).await;
    let unstreamed = &body["choices"][0];
    assert_eq!(streamed["finish_reason"], unstreamed["finish_reason"]);
    assert_eq!(
        streamed["message"]["tool_calls"], unstreamed["message"]["tool_calls"],
        "same calls, ids and arguments"
    );
    assert_eq!(
        streamed["message"]["content"],
        unstreamed["message"]["content"]
    );
    streamed
}

#[tokio::test]
async fn fragmented_arguments_are_assembled_and_translated() {
    let streamed = streamed_equals_unstreamed(
        stream_of(
            tool_chunks(call_deltas(0, "call_f", "set_reminder", &nl_args(EMAIL), 3)),
            "tool_calls",
        ),
        calls_message(vec![support::nl_call("call_f", "set_reminder", EMAIL)]),
        email_args(),
        vec![fixture_tool("set_reminder")],
    )
    .await;
    assert_eq!(arguments(&streamed["message"]), vec![email_args()]);
    assert_eq!(streamed["message"]["tool_calls"][0]["id"], "call_f");
}

#[tokio::test]
async fn a_whole_call_in_one_delta_keeps_its_id_and_name() {
    let whole = json!({"index": 0, "id": "call_w", "type": "function", "function": {"name": "set_reminder", "arguments": nl_args(EMAIL)}});
    let streamed = streamed_equals_unstreamed(
        stream_of(tool_chunks(vec![whole]), "tool_calls"),
        calls_message(vec![support::nl_call("call_w", "set_reminder", EMAIL)]),
        email_args(),
        vec![fixture_tool("set_reminder")],
    )
    .await;
    assert_eq!(
        streamed["message"]["tool_calls"][0]["function"]["name"],
        "set_reminder"
    );
}

#[tokio::test]
async fn arguments_null_in_the_first_delta_adds_nothing() {
    let mut deltas = call_deltas(0, "call_n", "set_reminder", &nl_args(EMAIL), 7);
    deltas[0]["function"]["arguments"] = Value::Null;
    let streamed = streamed_equals_unstreamed(
        stream_of(tool_chunks(deltas), "tool_calls"),
        calls_message(vec![support::nl_call("call_n", "set_reminder", EMAIL)]),
        email_args(),
        vec![fixture_tool("set_reminder")],
    )
    .await;
    assert_eq!(arguments(&streamed["message"]), vec![email_args()]);
}

#[tokio::test]
async fn interleaved_calls_are_kept_apart() {
    let a = call_deltas(0, "call_a", "set_reminder", &nl_args("one"), 4);
    let b = call_deltas(1, "call_b", "set_reminder", &nl_args("two"), 4);
    let mut interleaved = Vec::new();
    for i in 0..a.len().max(b.len()) {
        interleaved.extend(a.get(i).cloned());
        interleaved.extend(b.get(i).cloned());
    }
    let main = MockServer::scripted(vec![Reply::sse(stream_of(
        tool_chunks(interleaved),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::start(|r| {
        let message = if r.user_message().ends_with("one") {
            "One"
        } else {
            "Two"
        };
        translator_reply(
            &json!({"message": message, "schedule_type": "daily", "at": "08:00"}).to_string(),
        )
    })
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let mut body = request(vec![fixture_tool("set_reminder")], true);
    body["messages"][0]["content"] = json!("every day at 8: one, and two");
    let (events, _) = stream_chat(&proxy, &body).await;
    let (streamed, _) = accumulate(&events);
    let args = arguments(&streamed["message"]);
    assert_eq!(args[0]["message"], "One");
    assert_eq!(args[1]["message"], "Two");
    let ids: Vec<&str> = streamed["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["call_a", "call_b"]);
}

#[tokio::test]
async fn plain_and_nl_calls_in_either_order_match_the_unstreamed_order() {
    let weather_args = json!({"city": "Paris"}).to_string();
    for nl_first in [true, false] {
        let nl = call_deltas(0, "call_r", "set_reminder", &nl_args(EMAIL), 5);
        let plain = call_deltas(0, "call_w", "get_weather", &weather_args, 5);
        let (first, second) = if nl_first { (nl, plain) } else { (plain, nl) };
        let reindex = |deltas: Vec<Value>, i: usize| -> Vec<Value> {
            deltas
                .into_iter()
                .map(|mut d| {
                    d["index"] = json!(i);
                    d
                })
                .collect()
        };
        let mut deltas = reindex(first, 0);
        deltas.extend(reindex(second, 1));
        let nl_call = support::nl_call("call_r", "set_reminder", EMAIL);
        let plain_call = tool_call("call_w", "get_weather", &json!({"city": "Paris"}));
        let calls = if nl_first {
            vec![nl_call, plain_call]
        } else {
            vec![plain_call, nl_call]
        };
        let streamed = streamed_equals_unstreamed(
            stream_of(tool_chunks(deltas), "tool_calls"),
            calls_message(calls),
            email_args(),
            vec![fixture_tool("set_reminder"), fixture_tool("get_weather")],
        )
        .await;
        let names: Vec<&str> = streamed["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            if nl_first {
                vec!["set_reminder", "get_weather"]
            } else {
                vec!["get_weather", "set_reminder"]
            }
        );
    }
}

#[tokio::test]
async fn fanned_out_calls_get_contiguous_indices() {
    let answer = json!([{"objective": "Research X. Write data/x.md."}, {"objective": "Review data/x.md.", "depends_on_previous": true}]);
    let streamed = streamed_equals_unstreamed(
        stream_of(
            tool_chunks(call_deltas(
                0,
                "call_s",
                "spawn_sub_session",
                &nl_args("research then review"),
                9,
            )),
            "tool_calls",
        ),
        calls_message(vec![support::nl_call(
            "call_s",
            "spawn_sub_session",
            "research then review",
        )]),
        answer.clone(),
        vec![fixture_tool("spawn_sub_session")],
    )
    .await;
    // The user said only "x": "then" is the main model's word, no evidence of an order.
    let mut delivered = answer.as_array().unwrap().clone();
    delivered[1]
        .as_object_mut()
        .unwrap()
        .remove("depends_on_previous");
    assert_eq!(arguments(&streamed["message"]), delivered);
}

#[tokio::test]
async fn content_is_streamed_before_and_not_held_back() {
    let mut events: Vec<(Duration, String)> = vec![
        (
            Duration::ZERO,
            chunk(json!({"role": "assistant", "content": "Let me "}), None).to_string(),
        ),
        (
            Duration::ZERO,
            chunk(json!({"content": "set that up."}), None).to_string(),
        ),
    ];
    for (i, c) in tool_chunks(call_deltas(
        0,
        "call_g",
        "set_reminder",
        &nl_args(EMAIL),
        10,
    ))
    .into_iter()
    .enumerate()
    {
        events.push((
            if i == 0 {
                Duration::from_millis(300)
            } else {
                Duration::ZERO
            },
            c.to_string(),
        ));
    }
    events.push((
        Duration::ZERO,
        chunk(json!({}), Some("tool_calls")).to_string(),
    ));
    events.push((Duration::ZERO, "[DONE]".into()));
    let main = MockServer::scripted(vec![Reply::Sse {
        events,
        cut_after: None,
    }])
    .await;
    let translator = translator_with(email_args()).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let started = Instant::now();
    let mut response = support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(vec![fixture_tool("set_reminder")], true))
        .send()
        .await
        .unwrap();
    let mut text = String::new();
    let mut content_at = None;
    while let Some(bytes) = response.chunk().await.unwrap() {
        text.push_str(std::str::from_utf8(&bytes).unwrap());
        if content_at.is_none() && text.contains("set that up.") {
            content_at = Some(started.elapsed());
        }
    }
    let total = started.elapsed();
    let content_at = content_at.unwrap();
    assert!(
        total - content_at >= Duration::from_millis(250),
        "content waited for the tool call: {content_at:?} of {total:?}"
    );
    let events: Vec<String> = text
        .split("\n\n")
        .filter_map(|b| b.strip_prefix("data: ").map(str::to_owned))
        .collect();
    let (streamed, _) = accumulate(&events);
    assert_eq!(streamed["message"]["content"], "Let me set that up.");
    assert_eq!(arguments(&streamed["message"]), vec![email_args()]);
}

#[tokio::test]
async fn a_stream_without_nl_calls_is_forwarded_untouched() {
    let chunks = stream_of(
        tool_chunks(call_deltas(
            0,
            "call_w",
            "get_weather",
            r#"{"city":"Oslo"}"#,
            4,
        )),
        "tool_calls",
    );
    let expected: String = chunks
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n";
    let main = MockServer::scripted(vec![Reply::sse(chunks)]).await;
    // Calls to get_weather are not checked either (tests/checked_calls.rs has them checked).
    let proxy = Proxy::start(&main.url(), "[translation.checks]\nget_weather = \"off\"\n").await;
    let (_, raw) = stream_chat(
        &proxy,
        &request(
            vec![fixture_tool("set_reminder"), fixture_tool("get_weather")],
            true,
        ),
    )
    .await;
    assert_eq!(raw, expected);
}

#[tokio::test]
async fn the_repair_turn_runs_inside_the_same_stream() {
    let first = stream_of(
        tool_chunks(call_deltas(
            0,
            "call_c",
            "set_reminder",
            &nl_args("remind me to call John"),
            6,
        )),
        "tool_calls",
    );
    let mut first_events = first;
    first_events.push(usage_chunk(15));
    let mut second = vec![
        json!({"id": "chatcmpl-stream-2", "object": "chat.completion.chunk", "created": 1_760_000_001, "model": "main-model",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "When should "}, "finish_reason": null}]}),
        json!({"id": "chatcmpl-stream-2", "object": "chat.completion.chunk", "created": 1_760_000_001, "model": "main-model",
            "choices": [{"index": 0, "delta": {"content": "I remind you?"}, "finish_reason": null}]}),
        json!({"id": "chatcmpl-stream-2", "object": "chat.completion.chunk", "created": 1_760_000_001, "model": "main-model",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ];
    second.push(usage_chunk(25));
    let main = MockServer::scripted(vec![Reply::sse(first_events), Reply::sse(second)]).await;
    let translator = translator_with(
        json!({"error": "missing_info", "clarification_needed": "What should the reminder say?"}),
    )
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (events, _) = stream_chat(&proxy, &request(vec![fixture_tool("set_reminder")], true)).await;
    let (streamed, usage) = accumulate(&events);
    assert_eq!(streamed["message"]["content"], "When should I remind you?");
    assert!(streamed["message"].get("tool_calls").is_none());
    assert_eq!(streamed["finish_reason"], "stop");
    assert_eq!(
        usage.unwrap()["total_tokens"],
        40,
        "usage summed over both main-model calls"
    );
    let repair = main.chat_requests()[1].json();
    assert_eq!(repair["stream"], true);
    let last = repair["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last,
        json!({"role": "tool", "tool_call_id": "call_c", "content": "[TRANSLATION AMBIGUITY] What should the reminder say?"})
    );
}

#[tokio::test]
async fn keep_alive_comments_flow_while_translating() {
    let main = MockServer::scripted(vec![Reply::sse(stream_of(
        tool_chunks(call_deltas(0, "c", "set_reminder", &nl_args(EMAIL), 50)),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::start(|_| {
        Reply::Delayed(
            Duration::from_millis(700),
            Box::new(translator_reply(&email_args().to_string())),
        )
    })
    .await;
    let proxy = Proxy::start(
        &main.url(),
        &format!(
            "[translation]\nkeepalive_interval = \"100ms\"\n{}",
            backend_toml(&translator.url())
        ),
    )
    .await;
    let (events, raw) =
        stream_chat(&proxy, &request(vec![fixture_tool("set_reminder")], true)).await;
    let comments = raw.lines().filter(|l| l.starts_with(':')).count();
    assert!(comments >= 3, "{comments} keep-alive comments in {raw}");
    let (streamed, _) = accumulate(&events);
    assert_eq!(arguments(&streamed["message"]), vec![email_args()]);
}

#[tokio::test]
async fn a_stream_cut_in_the_middle_ends_with_an_error_event() {
    let mut events: Vec<(Duration, String)> = stream_of(
        tool_chunks(call_deltas(0, "c", "set_reminder", &nl_args(EMAIL), 4)),
        "tool_calls",
    )
    .into_iter()
    .map(|c| (Duration::ZERO, c.to_string()))
    .collect();
    events.push((Duration::ZERO, "[DONE]".into()));
    let main = MockServer::scripted(vec![Reply::Sse {
        events,
        cut_after: Some(5),
    }])
    .await;
    let translator = translator_with(email_args()).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (events, _) = stream_chat(&proxy, &request(vec![fixture_tool("set_reminder")], true)).await;
    let last: Value = serde_json::from_str(events.last().unwrap()).unwrap();
    assert_eq!(last["error"]["type"], "upstream_error", "{last}");
    assert!(last["error"]["message"].as_str().unwrap().len() > 10);
    assert!(
        proxy
            .metrics()
            .contains("plaincall_stream_errors_total{code="),
        "{}",
        proxy.metrics()
    );
}

#[tokio::test]
async fn malformed_chunks_end_with_an_error_event() {
    let main = MockServer::scripted(vec![Reply::SseRaw(vec![
        format!(
            "data: {}\n\n",
            chunk(
                json!({"tool_calls": call_deltas(0, "c", "set_reminder", "", 1)[..1]}),
                None
            )
        ),
        "data: {not json\n\n".into(),
    ])])
    .await;
    let proxy = Proxy::start(&main.url(), "").await;
    let (events, _) = stream_chat(&proxy, &request(vec![fixture_tool("set_reminder")], true)).await;
    let last: Value = serde_json::from_str(events.last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], "upstream_protocol_error");
}

#[tokio::test]
async fn a_client_that_leaves_cancels_the_upstream_and_the_translation() {
    let mut events: Vec<(Duration, String)> =
        tool_chunks(call_deltas(0, "c", "set_reminder", &nl_args(EMAIL), 100))
            .into_iter()
            .map(|c| (Duration::ZERO, c.to_string()))
            .collect();
    for i in 0..40 {
        events.push((
            Duration::from_millis(50),
            chunk(json!({"content": format!("{i}")}), None).to_string(),
        ));
    }
    let main = MockServer::scripted(vec![Reply::Sse {
        events,
        cut_after: None,
    }])
    .await;
    let translator = MockServer::start(|_| Reply::Hang).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let mut response = support::client()
        .post(proxy.url("/v1/chat/completions"))
        .json(&request(vec![fixture_tool("set_reminder")], true))
        .send()
        .await
        .unwrap();
    // Wait until the translation has started, then leave.
    let deadline = Instant::now() + Duration::from_secs(3);
    while translator.chat_requests().is_empty() {
        assert!(Instant::now() < deadline, "the translation never started");
        let _ = tokio::time::timeout(Duration::from_millis(20), response.chunk()).await;
    }
    drop(response);
    support::eventually("the upstream stream is cancelled", async || {
        main.stream_dropped.load(Ordering::SeqCst)
    })
    .await;
    support::eventually("the stream is no longer counted in flight", async || {
        proxy
            .metrics()
            .lines()
            .any(|l| l == "plaincall_http_requests_in_flight 0")
    })
    .await;
    support::eventually("the translator call is closed", async || {
        translator.open_connections() == 0
    })
    .await;
}
