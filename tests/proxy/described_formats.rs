//! A checked tool's call whose value breaks the format its description asks in words ("in the
//! format of 'City, State'") has that value written again by the translator; the rest of the
//! main model's call stays as it wrote it, and a value the translator cannot fix goes as it was.
//! A translation with the right values in the wrong layout (a date-time without its offset, a
//! phone number with spaces) is repaired before validation, not sent back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, calls_message, chat, chat_stream_text, completion, first_call_arguments,
    fold_stream, nl_call, streamed_call, tool_call, translator_reply, MockServer, Proxy, Reply,
};

/// Three flat properties: `auto` leaves it as it is, so its calls are only checked.
fn find_provider() -> Value {
    json!({"type": "function", "function": {"name": "find_provider",
        "description": "Find a hair stylist in a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description":
                "The city, in the format of 'City, State', such as 'Berkeley, CA' or 'New York, NY'."},
            "is_unisex": {"type": "boolean", "description": "Whether the salon is unisex."},
            "rating": {"type": "number"}},
        "required": ["city"]}}})
}

fn request(stream: bool) -> Value {
    json!({"model": "main-model", "stream": stream,
        "messages": [{"role": "user", "content": "Find me a unisex salon in Phoenix."}],
        "tools": [find_provider()]})
}

fn main_calls(arguments: &Value) -> Reply {
    Reply::ok(completion(
        calls_message(vec![tool_call("call_f", "find_provider", arguments)]),
        "tool_calls",
    ))
}

#[tokio::test]
async fn a_value_off_its_described_format_is_written_again_by_the_translator() {
    let main = MockServer::scripted(vec![main_calls(
        &json!({"city": "Phoenix", "is_unisex": true}),
    )])
    .await;
    // The translator also changes what it was not asked about: only the city is taken.
    let translator = MockServer::scripted(vec![translator_reply(
        r#"{"city": "Phoenix, AZ", "is_unisex": false}"#,
    )])
    .await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let (status, body) = chat(&proxy, &request(false)).await;
    assert_eq!(status, 200, "{body}");
    let message = &body["choices"][0]["message"];
    assert_eq!(message["tool_calls"][0]["id"], "call_f");
    assert_eq!(
        first_call_arguments(message),
        json!({"city": "Phoenix, AZ", "is_unisex": true})
    );
    // The value to write again in words, the format among the tool's rules.
    let translation = &translator.requests()[0];
    let asked = translation.user_message();
    assert!(
        asked.contains("city: Phoenix") && !asked.contains(r#""city""#),
        "{asked}"
    );
    let system = translation.json()["messages"][0]["content"].to_string();
    assert!(
        system.contains(
            "city is in the format 'City, State' (its description asks it): write the State too."
        ),
        "{system}"
    );
    assert!(
        proxy
            .metrics()
            .contains("plaincall_described_format_fixed_total 1"),
        "{}",
        proxy.metrics()
    );
}

#[tokio::test]
async fn a_streamed_call_is_fixed_before_the_client_sees_it() {
    let written = r#"{"city":"Phoenix","is_unisex":true}"#;
    let main =
        MockServer::scripted(vec![streamed_call("call_s", "find_provider", written, 5)]).await;
    let translator =
        MockServer::scripted(vec![translator_reply(r#"{"city": "Phoenix, AZ"}"#)]).await;
    let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
    let raw = chat_stream_text(&proxy, &request(true)).await;
    assert!(
        !raw.contains(r#"Phoenix\""#),
        "the value off its format leaked: {raw}"
    );
    let folded = fold_stream(&raw);
    assert_eq!(
        first_call_arguments(&folded),
        json!({"city": "Phoenix, AZ", "is_unisex": true})
    );
}

#[tokio::test]
async fn the_call_goes_as_written_when_the_translator_cannot_fix_it() {
    let written = json!({"city": "Phoenix", "is_unisex": true});
    // Still off the format, then a translator that fails: each time the call goes as written.
    for replies in [
        vec![translator_reply(r#"{"city": "Phoenix"}"#)],
        vec![
            Reply::text(500, r#"{"error":{"message":"down"}}"#),
            Reply::text(500, r#"{"error":{"message":"down"}}"#),
        ],
    ] {
        let main = MockServer::scripted(vec![main_calls(&written)]).await;
        let translator = MockServer::scripted(replies).await;
        let proxy = Proxy::start(&main.url(), &backend_toml(&translator.url())).await;
        let (status, body) = chat(&proxy, &request(false)).await;
        assert_eq!(status, 200, "{body}");
        let message = &body["choices"][0]["message"];
        assert_eq!(first_call_arguments(message), written);
        assert!(!translator.requests().is_empty());
        assert_eq!(main.chat_requests().len(), 1, "no repair turn");
        assert!(proxy
            .metrics()
            .contains("plaincall_described_format_fixed_total 0"));
    }
}

#[tokio::test]
async fn a_value_in_its_format_or_repair_mode_asks_no_translator() {
    let cases = [
        (json!({"city": "Phoenix, AZ", "is_unisex": true}), ""),
        (
            json!({"city": "Phoenix", "is_unisex": true}),
            "[translation.checks]\nfind_provider = \"repair\"\n",
        ),
    ];
    for (written, extra) in cases {
        let main = MockServer::scripted(vec![main_calls(&written)]).await;
        let translator = MockServer::scripted(vec![]).await;
        let config = format!("{}{extra}", backend_toml(&translator.url()));
        let proxy = Proxy::start(&main.url(), &config).await;
        let (status, body) = chat(&proxy, &request(false)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            first_call_arguments(&body["choices"][0]["message"]),
            written
        );
        assert!(translator.requests().is_empty());
    }
}

#[tokio::test]
async fn a_translation_in_the_wrong_layout_is_repaired_on_the_first_attempt() {
    let asked = "Call me back on +44 20 7946 0958 on 25 November 2026 at 9am.";
    let callback = json!({"type": "function", "function": {"name": "schedule_callback",
        "description": "Schedule a phone call back.",
        "parameters": {"type": "object", "required": ["phone", "at"], "properties": {
            "phone": {"type": "string", "pattern": "^\\+[1-9][0-9]{6,14}$",
                "description": "The number to call, E.164."},
            "at": {"type": "string", "format": "date-time"}}}}});
    let main = MockServer::scripted(vec![Reply::ok(completion(
        calls_message(vec![nl_call("call_c", "schedule_callback", asked)]),
        "tool_calls",
    ))])
    .await;
    let translator = MockServer::scripted(vec![translator_reply(
        r#"{"phone": "+44 20 7946 0958", "at": "2026-11-25T09:00:00"}"#,
    )])
    .await;
    let config = format!(
        "[translation]\ntimezone = \"Europe/Paris\"\n{}\n[translation.tools]\nschedule_callback = \"nl\"\n",
        backend_toml(&translator.url())
    );
    let proxy = Proxy::start(&main.url(), &config).await;
    let body = json!({"model": "main-model", "messages": [{"role": "user", "content": asked}],
        "tools": [callback]});
    let (status, body) = chat(&proxy, &body).await;
    assert_eq!(status, 200, "{body}");
    let message = &body["choices"][0]["message"];
    assert_eq!(
        message["tool_calls"][0]["function"]["name"],
        "schedule_callback"
    );
    assert_eq!(
        first_call_arguments(message),
        json!({"phone": "+442079460958", "at": "2026-11-25T09:00:00+01:00"})
    );
    assert_eq!(
        translator.chat_requests().len(),
        1,
        "one translation, no retry"
    );
    assert_eq!(main.chat_requests().len(), 1, "no repair turn");
}
