//! A native-mode main model that writes its call as text (a JSON object naming the tool,
//! bare, fenced or in tags) instead of as a tool call: the client gets the call, translated
//! like any other, streamed or not. Text that only looks like it (other JSON, code, a tool
//! the request did not offer) reaches the client as it was written, and prose still streams
//! chunk by chunk.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::{json, Value};
use support::{
    backend_toml, chat, completion, stream_chunk, text_message, translator_reply, MockServer,
    Proxy, Reply,
};

use support::{reminder_args as email_args, reminder_request as request};

/// The main model's answer: `text` as its content, whole or in `piece`-character chunks.
fn text_reply(stream: bool, text: &str, piece: usize) -> Reply {
    if !stream {
        return Reply::ok(completion(text_message(text), "stop"));
    }
    let mut events = vec![stream_chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    let chars: Vec<char> = text.chars().collect();
    for part in chars.chunks(piece) {
        let part: String = part.iter().collect();
        events.push(stream_chunk(json!({"content": part}), None));
    }
    events.push(stream_chunk(json!({}), Some("stop")));
    Reply::sse(events)
}

/// What the client saw: its calls (assembled from a stream), its text, how many chunks
/// carried text, and the finish reason.
struct Seen {
    calls: Vec<Value>,
    content: String,
    text_chunks: usize,
    finish: String,
}

async fn ask(proxy: &Proxy, stream: bool) -> Seen {
    ask_with(proxy, &request(stream), stream).await
}

/// [`ask`] with the request `body` (its `stream` set as `stream` says).
async fn ask_with(proxy: &Proxy, body: &Value, stream: bool) -> Seen {
    if !stream {
        let (status, body) = chat(proxy, body).await;
        assert_eq!(status, 200, "{body}");
        let choice = &body["choices"][0];
        let content = choice["message"]["content"].as_str().unwrap_or("");
        return Seen {
            calls: choice["message"]["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
            content: content.to_owned(),
            text_chunks: usize::from(!content.is_empty()),
            finish: choice["finish_reason"].as_str().unwrap_or("").to_owned(),
        };
    }
    let response = support::post_json(&proxy.url("/v1/chat/completions"), body).await;
    assert_eq!(response.status(), 200);
    let mut seen = Seen {
        calls: Vec::new(),
        content: String::new(),
        text_chunks: 0,
        finish: String::new(),
    };
    for event in support::sse_events(response).await {
        if event == "[DONE]" {
            continue;
        }
        let chunk: Value = serde_json::from_str(&event).unwrap();
        let Some(choice) = chunk["choices"].get(0) else {
            continue;
        };
        let text = choice["delta"]["content"].as_str().unwrap_or("");
        seen.text_chunks += usize::from(!text.is_empty());
        seen.content.push_str(text);
        if let Some(finish) = choice["finish_reason"].as_str() {
            seen.finish = finish.to_owned();
        }
        for d in choice["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let at = d["index"].as_u64().unwrap() as usize;
            if seen.calls.len() <= at {
                seen.calls.push(json!({"id": d["id"], "function": {"name": d["function"]["name"], "arguments": ""}}));
            }
            let joined = seen.calls[at]["function"]["arguments"]
                .as_str()
                .unwrap()
                .to_owned()
                + d["function"]["arguments"].as_str().unwrap_or("");
            seen.calls[at]["function"]["arguments"] = json!(joined);
        }
    }
    seen
}

async fn proxy_for(reply: Reply, extra: &str) -> (Proxy, MockServer, MockServer) {
    let main = MockServer::scripted(vec![reply]).await;
    let answer = email_args().to_string();
    let translator = MockServer::start(move |_| translator_reply(&answer)).await;
    let toml = format!("{}{extra}", backend_toml(&translator.url()));
    let proxy = Proxy::start(&main.url(), &toml).await;
    (proxy, main, translator)
}

fn weather_tool() -> Value {
    json!({"type": "function", "function": {"name": "get_current_weather",
        "description": "Retrieves the current weather conditions for a specified city and state.",
        "parameters": {"type": "object", "required": ["location"], "properties": {
            "location": {"type": "string", "description": "The location, in the format of 'City, State', such as 'San Francisco, CA'."}}}}})
}

const WRITTEN_WEATHER: &str =
    r#"{"name": "get_current_weather", "arguments": {"location": "San Francisco, CA"}}"#;

/// A call written as text that holds nothing the user gave is no call the model alone would
/// have made: its text goes out as written, with no repair turn (BFCL's
/// live_irrelevance_407-89-0: the 0.5B's weather call for "Hi", and live_irrelevance_25-2-13
/// for "What's 1+1?", the city the schema's own example). The same call with the city said
/// is a call.
#[tokio::test]
async fn a_call_written_as_text_that_holds_nothing_said_stays_text() {
    for stream in [false, true] {
        for question in ["Hi", "What's 1+1?"] {
            let main = MockServer::scripted(vec![text_reply(stream, WRITTEN_WEATHER, 7)]).await;
            let proxy = Proxy::start(&main.url(), "").await;
            let body = json!({"model": "m", "stream": stream, "tools": [weather_tool()],
                "messages": [{"role": "user", "content": question}]});
            let seen = ask_with(&proxy, &body, stream).await;
            assert!(
                seen.calls.is_empty(),
                "{question} stream={stream}: {:?}",
                seen.calls
            );
            assert_eq!(seen.content, WRITTEN_WEATHER, "{question} stream={stream}");
            assert_eq!(main.chat_requests().len(), 1, "{question}: no repair turn");
        }
        let main = MockServer::scripted(vec![text_reply(stream, WRITTEN_WEATHER, 7)]).await;
        let proxy = Proxy::start(&main.url(), "").await;
        let body = json!({"model": "m", "stream": stream, "tools": [weather_tool()],
            "messages": [{"role": "user", "content": "Weather in San Francisco, CA?"}]});
        let seen = ask_with(&proxy, &body, stream).await;
        assert_eq!(seen.calls.len(), 1, "stream={stream}: {:?}", seen.content);
        assert_eq!(seen.calls[0]["function"]["name"], "get_current_weather");
    }
}

/// A call written as text whose required value is a name nobody wrote is no call either
/// ("London" for a request that names no city, the fourth question set's q02): its text goes
/// out. One whose required value is worked out from the request ("cargo test" for "run the
/// tests") is a call, as is the same weather call where the user names the city.
#[tokio::test]
async fn a_call_written_as_text_for_a_name_nobody_wrote_stays_text() {
    let weather = json!({"type": "function", "function": {"name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "required": ["city"],
            "properties": {"city": {"type": "string"}}}}});
    let shell = json!({"type": "function", "function": {"name": "run_command",
        "description": "Run a shell command in the project.",
        "parameters": {"type": "object", "required": ["command"],
            "properties": {"command": {"type": "string"}}}}});
    let london = r#"{"name": "get_weather", "arguments": {"city": "London"}}"#;
    let tests = r#"{"name": "run_command", "arguments": {"command": "cargo test"}}"#;
    for stream in [false, true] {
        for (tool, written, question, called) in [
            (
                &weather,
                london,
                "Is it sunny enough to hang the laundry outside?",
                false,
            ),
            (&weather, london, "Is it sunny in London right now?", true),
            (&shell, tests, "Run the tests", true),
        ] {
            let main = MockServer::scripted(vec![text_reply(stream, written, 7)]).await;
            let proxy = Proxy::start(&main.url(), "").await;
            let body = json!({"model": "m", "stream": stream, "tools": [tool.clone()],
                "messages": [{"role": "user", "content": question}]});
            let seen = ask_with(&proxy, &body, stream).await;
            assert_eq!(
                seen.calls.len(),
                usize::from(called),
                "{question} stream={stream}"
            );
            if !called {
                assert_eq!(seen.content, written, "{question} stream={stream}");
            }
            assert_eq!(main.chat_requests().len(), 1, "{question}: no repair turn");
        }
    }
}

/// A value worked out from the request is no call made up whole: written as text, it gets
/// the repair turn any own call with a required number nobody said gets ("radius 5" for "a
/// diameter of ten"), where the model may call again or ask.
#[tokio::test]
async fn a_call_written_as_text_with_a_worked_out_value_gets_its_repair_turn() {
    let circle = json!({"type": "function", "function": {"name": "circle_area",
        "description": "The area of a circle.",
        "parameters": {"type": "object", "required": ["radius"], "properties": {
            "radius": {"type": "number", "description": "The radius, such as 2.5"}}}}});
    let written = r#"{"name": "circle_area", "arguments": {"radius": 5}}"#;
    for stream in [false, true] {
        let main = MockServer::scripted(vec![
            text_reply(stream, written, 7),
            text_reply(stream, written, 7),
        ])
        .await;
        let proxy = Proxy::start(&main.url(), "").await;
        let body = json!({"model": "m", "stream": stream, "tools": [circle],
            "messages": [{"role": "user", "content": "Area of a circle with a diameter of ten?"}]});
        let seen = ask_with(&proxy, &body, stream).await;
        let requests = main.chat_requests();
        assert_eq!(requests.len(), 2, "stream={stream}: a repair turn");
        let told = requests[1].json()["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["content"].to_string())
            .unwrap_or_default();
        assert!(told.contains("[NOT SAID]"), "stream={stream}: {told}");
        // Written again as text after the objection, it stays text (as the model alone).
        assert!(seen.calls.is_empty(), "stream={stream}: {:?}", seen.calls);
        assert!(seen.content.contains("circle_area"), "stream={stream}");
    }
}

/// Told once that the user gave none of it, a main model that writes the same call again as
/// text gets no call made of it: the text goes out as the model alone would have left it.
#[tokio::test]
async fn a_call_written_as_text_after_an_objection_stays_text() {
    let arguments = r#"{"location": "San Francisco, CA"}"#;
    for stream in [false, true] {
        let native = if stream {
            support::streamed_call("call_1", "get_current_weather", arguments, 9)
        } else {
            Reply::ok(completion(
                support::calls_message(vec![json!({"id": "call_1", "type": "function",
                    "function": {"name": "get_current_weather", "arguments": arguments}})]),
                "tool_calls",
            ))
        };
        let main = MockServer::scripted(vec![native, text_reply(stream, WRITTEN_WEATHER, 7)]).await;
        let proxy = Proxy::start(&main.url(), "").await;
        let body = json!({"model": "m", "stream": stream, "tools": [weather_tool()],
            "messages": [{"role": "user", "content": "What's 1+1?"}]});
        let seen = ask_with(&proxy, &body, stream).await;
        assert!(seen.calls.is_empty(), "stream={stream}: {:?}", seen.calls);
        assert!(
            seen.content.contains("San Francisco, CA"),
            "stream={stream}: {:?}",
            seen.content
        );
        let requests = main.chat_requests();
        assert_eq!(requests.len(), 2, "stream={stream}: one repair turn");
        let repair = requests[1].json();
        let told = repair["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["content"].to_string())
            .unwrap_or_default();
        assert!(told.contains("[NOT SAID]"), "stream={stream}: {told}");
    }
}

#[tokio::test]
async fn a_call_written_as_text_is_read_translated_and_delivered_as_a_call() {
    let written = [
        r#"{"name": "set_reminder", "arguments": {"description": "daily at 9:00: check email"}}"#,
        "```json\n{\"name\": \"set_reminder\", \"arguments\": {\"description\": \"daily at 9:00: check email\"}}\n```",
        "\n<tool_call>\n{\"name\": \"set_reminder\", \"arguments\": {\"description\": \"daily at 9:00: check email\"}}\n</tool_call>",
    ];
    for text in written {
        for stream in [false, true] {
            let (proxy, _main, translator) = proxy_for(text_reply(stream, text, 5), "").await;
            let seen = ask(&proxy, stream).await;
            assert_eq!(
                seen.calls.len(),
                1,
                "stream={stream} {text}: {}",
                seen.content
            );
            assert_eq!(seen.calls[0]["function"]["name"], "set_reminder");
            let arguments: Value =
                serde_json::from_str(seen.calls[0]["function"]["arguments"].as_str().unwrap())
                    .unwrap();
            assert_eq!(arguments, email_args(), "stream={stream} {text}");
            assert!(
                seen.content.trim().is_empty(),
                "no JSON as text: {:?}",
                seen.content
            );
            assert_eq!(seen.finish, "tool_calls", "stream={stream} {text}");
            let asked = translator.chat_requests()[0].json().to_string();
            assert!(
                asked.contains("check email"),
                "the description is translated: {asked}"
            );
            assert!(proxy.metrics().contains("plaincall_text_calls_total 1"));
        }
    }
}

#[tokio::test]
async fn text_that_only_looks_like_a_call_reaches_the_client_as_written() {
    let long_json = format!(
        "{{\"config\": \"{}\", \"name\": \"set_reminder\"}}",
        "x".repeat(400)
    );
    let texts = [
        "```python\nprint('set_reminder')\n```".to_owned(),
        // A tool the request did not offer.
        r#"{"name": "delete_everything", "arguments": {}}"#.to_owned(),
        // An object that names no tool in its opening.
        long_json,
        // A call in the middle of prose: only a reply that opens with one is read.
        r#"I would call {"name": "set_reminder", "arguments": {"description": "x"}} now."#
            .to_owned(),
    ];
    for text in &texts {
        for stream in [false, true] {
            let (proxy, _main, translator) = proxy_for(text_reply(stream, text, 5), "").await;
            let seen = ask(&proxy, stream).await;
            assert!(
                seen.calls.is_empty(),
                "stream={stream} {text}: {:?}",
                seen.calls
            );
            assert_eq!(&seen.content, text, "stream={stream}");
            assert_eq!(seen.finish, "stop");
            assert!(translator.chat_requests().is_empty());
        }
    }
}

#[tokio::test]
async fn prose_and_text_past_the_opening_stream_chunk_by_chunk() {
    // Prose is never held: every upstream chunk reaches the client as its own.
    let prose = "Sure, I will remind you every day at nine to check your email.";
    let (proxy, _main, _translator) = proxy_for(text_reply(true, prose, 5), "").await;
    let seen = ask(&proxy, true).await;
    assert_eq!(seen.content, prose);
    assert_eq!(seen.text_chunks, prose.chars().count().div_ceil(5));

    // JSON that names no tool is held only for its opening, then streams.
    let json_text = format!("{{\"config\": \"{}\"}}", "y".repeat(600));
    let (proxy, _main, _translator) = proxy_for(text_reply(true, &json_text, 10), "").await;
    let seen = ask(&proxy, true).await;
    assert_eq!(seen.content, json_text);
    let pieces = json_text.len().div_ceil(10);
    let held = text_calls_window_pieces(10);
    assert!(
        seen.text_chunks >= pieces - held,
        "{} chunks of {pieces}: only the opening is held",
        seen.text_chunks
    );
}

/// How many `piece`-byte chunks the held opening takes at most (256 bytes, and the one that
/// decides).
fn text_calls_window_pieces(piece: usize) -> usize {
    256_usize.div_ceil(piece) + 1
}

#[tokio::test]
async fn switched_off_a_call_written_as_text_stays_text() {
    let text = r#"{"name": "set_reminder", "arguments": {"description": "daily at 9:00"}}"#;
    for stream in [false, true] {
        let off = "[tool_calling]\ntext_calls = false\n";
        let (proxy, _main, translator) = proxy_for(text_reply(stream, text, 5), off).await;
        let seen = ask(&proxy, stream).await;
        assert!(seen.calls.is_empty(), "stream={stream}");
        assert_eq!(seen.content, text);
        assert!(translator.chat_requests().is_empty());
    }
}

#[tokio::test]
async fn a_call_written_as_text_beside_a_native_call_is_neither_a_second_call_nor_text() {
    // The 0.5B calls natively and writes the call out as its text too: the native call is
    // the one meant, and a client never reads a call's JSON as the answer. Prose after the
    // written call is still the turn's text.
    let written =
        r#"{"name": "set_reminder", "arguments": {"description": "daily at 9:00: check email"}}"#;
    for (text, kept) in [
        (written.to_owned(), ""),
        (format!("{written}\nDone."), "Done."),
    ] {
        let mut message = text_message(&text);
        message["tool_calls"] = json!([support::nl_call(
            "c1",
            "set_reminder",
            "daily at 9:00: check email"
        )]);
        let (proxy, _main, translator) =
            proxy_for(Reply::ok(completion(message, "tool_calls")), "").await;
        let seen = ask(&proxy, false).await;
        assert_eq!(seen.calls.len(), 1, "{:?}", seen.calls);
        assert_eq!(seen.content.trim(), kept);
        assert_eq!(translator.chat_requests().len(), 1);
        assert!(proxy.metrics().contains("plaincall_text_calls_total 0"));
    }
}

#[tokio::test]
async fn a_repair_turn_shows_a_call_read_from_text_as_a_call_only() {
    // The call written as text fails (the translator finds it is for another tool); the
    // repair turn shows the model its call and the reason, not its JSON a second time as
    // the turn's text, which a small model copies into its next answer.
    // In prompt mode the history shows a call as text: once, not after its own JSON again.
    let written =
        r#"{"name": "set_reminder", "arguments": {"description": "the weather in Paris"}}"#;
    let modes = ["", "[tool_calling]\ndefault = \"prompt\"\n"];
    for (stream, mode) in [false, true]
        .into_iter()
        .flat_map(|s| modes.map(|m| (s, m)))
    {
        let main = MockServer::scripted(vec![
            text_reply(stream, written, 7),
            text_reply(stream, "I cannot check the weather.", 7),
        ])
        .await;
        let translator = MockServer::start(|_| {
            translator_reply(r#"{"error": "wrong_tool", "reason": "a weather question"}"#)
        })
        .await;
        let toml = format!("{}{mode}", backend_toml(&translator.url()));
        let proxy = Proxy::start(&main.url(), &toml).await;
        let seen = ask(&proxy, stream).await;
        assert!(seen.calls.is_empty(), "stream={stream}: {:?}", seen.calls);
        assert_eq!(
            seen.content, "I cannot check the weather.",
            "stream={stream}"
        );
        let requests = main.chat_requests();
        assert_eq!(requests.len(), 2, "stream={stream}");
        let repair = requests[1].json();
        let assistant = repair["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "assistant")
            .cloned()
            .unwrap();
        if mode.is_empty() {
            assert!(assistant["content"].is_null(), "{assistant}");
            assert_eq!(
                assistant["tool_calls"][0]["function"]["name"], "set_reminder",
                "stream={stream}: {assistant}"
            );
        } else {
            let shown = assistant["content"].as_str().unwrap();
            assert_eq!(shown.matches("the weather in Paris").count(), 1, "{shown}");
        }
    }
}

#[tokio::test]
async fn another_choice_opening_a_call_leaves_a_choice_of_prose_as_text() {
    let chunk = |index: u64, delta: Value| {
        json!({"id": "s", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": index, "delta": delta, "finish_reason": null}]})
    };
    let call = r#"{"name": "set_reminder", "arguments": {"description": "daily at 9:00"}} now."#;
    let events = vec![
        chunk(0, json!({"role": "assistant", "content": "I would call "})),
        chunk(1, json!({"role": "assistant", "content": "{"})),
        chunk(0, json!({"content": call})),
        chunk(1, json!({"content": "\"x\": 1}"})),
    ];
    let (proxy, _main, translator) = proxy_for(Reply::sse(events), "").await;
    let mut body = request(true);
    body["n"] = json!(2);
    let response = support::post_json(&proxy.url("/v1/chat/completions"), &body).await;
    let mut text = [String::new(), String::new()];
    for event in support::sse_events(response).await {
        let Ok(chunk) = serde_json::from_str::<Value>(&event) else {
            continue;
        };
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            let at = choice["index"].as_u64().unwrap() as usize;
            assert!(choice["delta"]["tool_calls"].is_null(), "no call: {choice}");
            text[at].push_str(choice["delta"]["content"].as_str().unwrap_or(""));
        }
    }
    assert_eq!(text[0], format!("I would call {call}"));
    assert_eq!(text[1], "{\"x\": 1}");
    assert!(translator.chat_requests().is_empty());
}
