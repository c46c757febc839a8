//! One `info` line per translated call, streaming or not: the tool, why it was rewritten, the
//! outcome, attempts and milliseconds, inside the request's span (so with its request id).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    calls_message, client, completion, fixture_tool, nl_call, translator_reply, MockServer, Reply,
    Served,
};

const DESCRIPTION: &str = "daily at 09:00 to check email";

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// The main model describes a set_reminder call, streamed when asked.
fn main_model(request: &support::Recorded) -> Reply {
    if request.method == "GET" {
        return Reply::ok(json!({"object": "list", "data": []}));
    }
    let stream = request.json()["stream"] == true;
    // Another description for the streamed request, so that its translation is not the
    // cached one (plaincall asks for a stream either way).
    let streamed = request.user_message().contains("streamed");
    let description = format!("{DESCRIPTION}{}", if streamed { ", streamed" } else { "" });
    let call = nl_call("call_1", "set_reminder", &description);
    if stream {
        let mut delta = call.clone();
        delta["index"] = json!(0);
        return Reply::sse(vec![
            chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [delta]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
        ]);
    }
    Reply::ok(completion(calls_message(vec![call]), "tool_calls"))
}

/// The translation lines logged so far, as JSON.
fn translation_lines(served: &Served) -> Vec<Value> {
    served
        .logs()
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["message"] == "translation")
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_translated_call_logs_one_info_line_with_its_request_id() {
    let main = MockServer::start(main_model).await;
    let answer = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"});
    let translator = MockServer::start(move |request| {
        if request.method == "GET" {
            return Reply::ok(json!({"object": "list", "data": []}));
        }
        translator_reply(&answer.to_string())
    })
    .await;
    let served = Served::start(&[
        ("PLAINCALL_UPSTREAM_URL", &main.url()),
        ("PLAINCALL_TRANSLATOR_URL", &translator.url()),
        ("PLAINCALL_TRANSLATOR_MODEL", "tiny"),
        ("PLAINCALL_LOG_FORMAT", "json"),
    ])
    .await;
    for (stream, id) in [(false, "req-plain-1"), (true, "req-stream-2")] {
        let body = json!({"model": "main", "stream": stream,
            "messages": [{"role": "user", "content": format!("remind me daily at 09:00 to check email{}", if stream { ", streamed" } else { "" })}],
            "tools": [fixture_tool("set_reminder")]});
        let response = client()
            .post(served.url("/v1/chat/completions"))
            .header("x-request-id", id)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let text = response.text().await.unwrap();
        assert!(text.contains("Check email"), "translated: {text}");
        served.wait_for_line(id).await;
    }
    support::eventually("both translation lines are logged", async || {
        translation_lines(&served).len() >= 2
    })
    .await;
    let lines = translation_lines(&served);
    let logs = served.stop().await.join("\n");
    assert_eq!(lines.len(), 2, "one line per call:\n{logs}");
    assert_eq!(translator.chat_requests().len(), 2);
    for (line, id) in lines.iter().zip(["req-plain-1", "req-stream-2"]) {
        assert_eq!(line["level"], "INFO", "{line}");
        assert_eq!(line["tool"], "set_reminder", "{line}");
        assert_eq!(
            line["why"],
            "11 properties (translation.default_mode = \"auto\")"
        );
        assert!(
            line["outcome"] == "ok" || line["outcome"] == "cached",
            "{line}"
        );
        assert_eq!(line["attempts"], 1, "{line}");
        assert!(line["ms"].is_u64(), "{line}");
        assert!(line.to_string().contains(id), "the request id: {line}");
    }
}
