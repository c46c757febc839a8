//! A main-model turn whose plain-English description runs away is cut: streamed or whole, the
//! turn ends where the loop began (or at `translation.description_limit`), the upstream is
//! left, and what was written is translated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{
    self, backend_toml, chat, completion, eventually, fixture_tool, nl_call, stream_chunk,
    translator_reply, MockServer, Proxy, Recorded, Reply,
};

const ASKED: &str = "remind me daily at 09:00 to check email";
const UNIT: &str = "and remind me again tomorrow, ";
/// What the unit says, whatever the phase a loop is cut at.
const SAID: &str = "remind me again tomorrow";

fn args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

fn request(stream: bool) -> Value {
    json!({"model": "main-model", "stream": stream, "tools": [fixture_tool("set_reminder")],
        "messages": [{"role": "user", "content": ASKED}]})
}

/// A streamed call to `set_reminder` whose description is `start`, then `more` piece after
/// piece, a few milliseconds apart (seconds in all, were it read to its end).
fn runaway(start: &str, more: Vec<String>) -> Reply {
    let opened = stream_chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_r",
            "type": "function", "function": {"name": "set_reminder",
            "arguments": format!("{{\"description\": \"{start}")}}]}),
        None,
    );
    let mut events = vec![(Duration::ZERO, opened.to_string())];
    for piece in more {
        let delta = json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]});
        events.push((
            Duration::from_millis(3),
            stream_chunk(delta, None).to_string(),
        ));
    }
    let closed = json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"}"}}]});
    events.push((Duration::ZERO, stream_chunk(closed, None).to_string()));
    events.push((
        Duration::ZERO,
        stream_chunk(json!({}), Some("tool_calls")).to_string(),
    ));
    events.push((Duration::ZERO, "[DONE]".into()));
    Reply::Sse {
        events,
        cut_after: None,
    }
}

fn looping() -> Reply {
    runaway(
        "daily at 09:00 to check email, ",
        vec![UNIT.to_owned(); 1000],
    )
}

/// The main model: `reply` when asked for a stream, a plain call otherwise.
async fn main_model(reply: Reply) -> MockServer {
    MockServer::start(
        move |recorded: &Recorded| match recorded.json()["stream"] == true {
            true => reply.clone(),
            false => Reply::ok(completion(
                json!({"role": "assistant", "content": null,
                "tool_calls": [nl_call("call_w", "set_reminder", ASKED)]}),
                "tool_calls",
            )),
        },
    )
    .await
}

/// A main model answering streamed asks with `reply`, a translator that answers with
/// [`args`], and plaincall between them with `settings` added to its `[translation]`.
async fn serve(reply: Reply, settings: &str) -> (MockServer, MockServer, Proxy) {
    let main = main_model(reply).await;
    let translator = MockServer::scripted(vec![translator_reply(&args().to_string())]).await;
    let toml = format!(
        "{}[translation]\n{settings}",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &toml).await;
    (main, translator, proxy)
}

/// What the translator was asked to translate.
fn translated(translator: &MockServer) -> String {
    translator.requests()[0].user_message()
}

async fn cut_counted(proxy: &Proxy, why: &str) {
    let line = format!("plaincall_turns_cut_total{{why=\"{why}\"}} 1");
    eventually(&line, async || proxy.metrics().contains(&line)).await;
}

#[tokio::test]
async fn a_streamed_loop_is_cut_after_its_first_round_and_translated() {
    let (main, translator, proxy) = serve(looping(), "").await;
    let text = support::chat_stream_text(&proxy, &request(true)).await;
    let answer = support::fold_stream(&text);
    let call = &answer["tool_calls"][0];
    assert_eq!(call["id"], "call_r");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, args());
    assert_eq!(answer["finish_reason"], "tool_calls");
    let asked = translated(&translator);
    assert_eq!(asked.matches(SAID).count(), 1, "{asked}");
    assert!(asked.contains("daily at 09:00 to check email, and remind me again tomorrow"));
    // The upstream's stream was left, not read to its end.
    eventually("the upstream's stream dropped", async || {
        main.stream_dropped.load(Ordering::SeqCst)
    })
    .await;
    cut_counted(&proxy, "repeats").await;
}

#[tokio::test]
async fn a_whole_request_is_asked_as_a_stream_and_its_loop_cut() {
    let (main, translator, proxy) = serve(looping(), "").await;
    let (status, answer) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["object"], "chat.completion");
    assert_eq!(answer["id"], "chatcmpl-s");
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["tool_calls"][0]["id"], "call_r");
    assert_eq!(support::first_call_arguments(message), args());
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");
    let sent = main.chat_requests()[0].json();
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["stream_options"], json!({"include_usage": true}));
    assert_eq!(translated(&translator).matches(SAID).count(), 1);
    eventually("the upstream's stream dropped", async || {
        main.stream_dropped.load(Ordering::SeqCst)
    })
    .await;
    cut_counted(&proxy, "repeats").await;
}

#[tokio::test]
async fn a_description_past_the_limit_is_cut_there() {
    let words: Vec<String> = (0..600).map(|i| format!("detail{i} ")).collect();
    let (_main, translator, proxy) = serve(
        runaway("daily at 09:00 to check email ", words),
        "description_limit = 300\n",
    )
    .await;
    let (status, answer) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        support::first_call_arguments(&answer["choices"][0]["message"]),
        args()
    );
    let asked = translated(&translator);
    let description = asked.split("Description: ").nth(1).unwrap();
    let bound = 300 + ASKED.len();
    assert!(description.chars().count() <= bound, "{description}");
    assert!(description.chars().count() > bound - 20, "{description}");
    assert!(description.starts_with("daily at 09:00 to check email detail0 detail1"));
    cut_counted(&proxy, "length").await;
}

#[tokio::test]
async fn a_description_that_ends_in_time_is_not_cut() {
    let words: Vec<String> = (0..30).map(|i| format!("detail{i} ")).collect();
    let (main, translator, proxy) =
        serve(runaway("daily at 09:00 to check email ", words), "").await;
    let (status, answer) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{answer}");
    assert!(translated(&translator).contains("detail28 detail29"));
    assert_eq!(main.streams_finished.load(Ordering::SeqCst), 1);
    assert!(!proxy.metrics().contains("plaincall_turns_cut_total{"));
}

/// The streamed ask's error is the upstream's answer, as the whole ask's was.
#[tokio::test]
async fn an_error_to_the_streamed_ask_reaches_the_client_as_sent() {
    let error = r#"{"error":{"message":"context too long","type":"invalid_request_error"}}"#;
    let main = MockServer::scripted(vec![Reply::text(400, error)]).await;
    let translator = MockServer::scripted(vec![]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, answer) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 400);
    assert_eq!(answer, serde_json::from_str::<Value>(error).unwrap());
    assert_eq!(main.chat_requests().len(), 1);
}

#[tokio::test]
async fn with_the_watch_off_a_whole_request_is_asked_whole() {
    let (main, _translator, proxy) = serve(looping(), "description_limit = 0\n").await;
    let (status, answer) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["choices"][0]["message"]["tool_calls"][0]["id"],
        "call_w"
    );
    let sent = main.chat_requests()[0].json();
    assert_eq!(sent["stream"], false);
    assert!(sent.get("stream_options").is_none());
}
