//! `translation.warm_prefixes` (off by default): each rewritten tool's translator prompt is
//! sent ahead while the main model answers, one at a time, once in a while, and cancelled for
//! the tools it does not call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, chat, completion, described_reminder, eventually, fixture_tool, text_message,
    translator_reply, MockServer, Proxy, Reply,
};

fn request(tools: &[&str]) -> Value {
    let tools: Vec<Value> = tools.iter().map(|t| fixture_tool(t)).collect();
    json!({"model": "main-model", "messages": [{"role": "user", "content": "remind me daily at 9 to check email"}], "tools": tools})
}

/// The translator backend of the tests, with warm-ups on (they are off by default).
fn warm_backend(url: &str) -> String {
    format!("[translation]\nwarm_prefixes = true\n{}", backend_toml(url))
}

fn text_reply() -> Reply {
    Reply::ok(completion(text_message("ok"), "stop"))
}

const REMINDER: &str = r#"{"message": "Check email", "schedule_type": "daily", "at": "09:00"}"#;

#[tokio::test]
async fn a_tools_prompt_is_read_ahead_once_and_is_the_one_translated_with() {
    // The main model takes a moment, as a model does: the warm-up is answered meanwhile.
    let main = MockServer::scripted(vec![
        Reply::Delayed(Duration::from_millis(300), Box::new(text_reply())),
        described_reminder(),
    ])
    .await;
    let translator = MockServer::start(|_| translator_reply(REMINDER)).await;
    let proxy = Proxy::start(&main.url(), &warm_backend(&translator.url())).await;

    let (status, _) = chat(&proxy, &request(&["set_reminder"])).await;
    assert_eq!(status, 200);
    let (warm_ups, answered) = translator.warm_ups();
    assert_eq!((warm_ups.len(), answered), (1, 1));
    let warm_up = warm_ups[0].json();
    assert_eq!(warm_up["model"], "translator-model");
    assert!(translator.requests().is_empty(), "no translation yet");

    // The next request translates a call: with the very prompt read ahead, and no second
    // warm-up (the prompt was read a moment ago).
    let (status, body) = chat(&proxy, &request(&["set_reminder"])).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(translator.warm_ups().0.len(), 1);
    let translation = translator.requests()[0].json();
    assert_eq!(translation["messages"][0], warm_up["messages"][0]);
    assert!(warm_up["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("set_reminder"));
}

/// Warm-ups go out one at a time, by tool name: `add_recurring_task`'s is out when the main
/// model's turn ends with a call to `set_reminder`, so it is dropped there and then, and
/// `set_reminder`'s goes next and is answered before the translation.
#[tokio::test]
async fn the_warm_ups_of_tools_not_called_are_cancelled_when_the_turn_ends() {
    let main = MockServer::start(|_| {
        Reply::Delayed(Duration::from_millis(200), Box::new(described_reminder()))
    })
    .await;
    let translator = MockServer::start(|_| {
        Reply::Delayed(
            Duration::from_millis(1500),
            Box::new(translator_reply(REMINDER)),
        )
    })
    .await;
    translator.delay_warm_ups(Duration::from_millis(700));
    let proxy = Proxy::start(&main.url(), &warm_backend(&translator.url())).await;

    let (status, body) = chat(&proxy, &request(&["set_reminder", "add_recurring_task"])).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "set_reminder"
    );
    let (warm_ups, answered) = translator.warm_ups();
    let read: Vec<bool> = warm_ups
        .iter()
        .map(|w| {
            w.json()["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("set_reminder")
        })
        .collect();
    assert_eq!(
        read,
        [false, true],
        "add_recurring_task's first, then set_reminder's"
    );
    assert_eq!(
        answered, 1,
        "add_recurring_task's was dropped before its answer"
    );
    assert_eq!(translator.open_warm_ups(), 0);
}

/// At most one warm-up is out at a time, whatever the number of tools.
#[tokio::test]
async fn warm_ups_go_out_one_at_a_time() {
    let main =
        MockServer::start(|_| Reply::Delayed(Duration::from_millis(600), Box::new(text_reply())))
            .await;
    let translator = MockServer::start(|_| translator_reply(REMINDER)).await;
    translator.delay_warm_ups(Duration::from_millis(100));
    let proxy = Proxy::start(&main.url(), &warm_backend(&translator.url())).await;
    let tools = [
        "set_reminder",
        "task",
        "spawn_sub_session",
        "add_recurring_task",
    ];
    chat(&proxy, &request(&tools)).await;
    let (warm_ups, answered) = translator.warm_ups();
    assert!(warm_ups.len() >= 3, "{} warm-ups in 600 ms", warm_ups.len());
    assert!(answered >= 3);
    assert_eq!(translator.max_open_warm_ups(), 1);
}

#[tokio::test]
async fn a_warm_up_still_running_when_the_request_ends_is_cancelled_and_sent_again() {
    let main = MockServer::start(|_| text_reply()).await;
    let translator = MockServer::start(|_| translator_reply(REMINDER)).await;
    translator.delay_warm_ups(Duration::from_secs(30));
    let proxy = Proxy::start(&main.url(), &warm_backend(&translator.url())).await;

    chat(&proxy, &request(&["set_reminder"])).await;
    assert_eq!(translator.warm_ups().0.len(), 1);
    // Not left to run for its 30 s: the connection is dropped.
    eventually("the warm-up is closed", async || {
        translator.open_warm_ups() == 0
    })
    .await;
    // Never answered, so never counted as read: the next request sends it again.
    chat(&proxy, &request(&["set_reminder"])).await;
    let (warm_ups, answered) = translator.warm_ups();
    assert_eq!((warm_ups.len(), answered), (2, 0));
}

#[tokio::test]
async fn nothing_is_read_ahead_when_off_or_when_the_upstream_translates() {
    // The main model takes a moment, as in the first test: long enough for a warm-up to go
    // out and be answered before its answer, as the first proxy here shows. So once a request
    // has its answer, a warm-up not seen is one that was never sent.
    let main =
        MockServer::start(|_| Reply::Delayed(Duration::from_millis(200), Box::new(text_reply())))
            .await;

    // On, with a translator backend: read ahead while the main model answers.
    let translator = MockServer::start(|_| translator_reply(REMINDER)).await;
    let proxy = Proxy::start(&main.url(), &warm_backend(&translator.url())).await;
    let (status, _) = chat(&proxy, &request(&["set_reminder"])).await;
    assert_eq!(status, 200);
    assert_eq!(
        translator.warm_ups().1,
        1,
        "the warm-up was answered meanwhile"
    );

    // Off by default.
    let translator = MockServer::start(|_| translator_reply(REMINDER)).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, _) = chat(&proxy, &request(&["set_reminder"])).await;
    assert_eq!(status, 200);
    assert!(translator.warm_ups().0.is_empty());
    // On, but with the upstream translating for itself.
    let proxy = Proxy::start(&main.url(), "[translation]\nwarm_prefixes = true\n").await;
    let (status, _) = chat(&proxy, &request(&["set_reminder"])).await;
    assert_eq!(status, 200);
    assert!(main.warm_ups().0.is_empty());
}
