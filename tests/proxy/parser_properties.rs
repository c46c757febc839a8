//! Property tests for the text parsers that see model and upstream output: prompt-mode call
//! parsing (`parse_calls`), stream hold-back (`HoldBack`) and the SSE parser. Inputs are built
//! from fragments a reply really holds (fences, tags, JSON calls to known and unknown tools,
//! stray braces, prose), so the cases reach the parsers' branches quickly. The same invariants
//! are fuzzed without a grammar by fuzz/ (scripts/fuzz.sh); this file is the part that runs in
//! every `cargo test`, 256 cases per property (PROPTEST_CASES overrides).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use plaincall::parts::{parse_calls, HoldBack, ParsedCall};
use plaincall::sse::{Event, Parser, SseError};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const KNOWN: [&str; 2] = ["get_weather", "search"];

/// What may open a call: `HoldBack` never lets one out.
const MARKERS: [&str; 7] = [
    "```",
    "<tool_call",
    "<tool_calls",
    "<function_call",
    "<functioncall",
    "{",
    "[",
];

fn known(name: &str) -> bool {
    KNOWN.contains(&name)
}

/// 256 cases per property (well under a second in all); PROPTEST_CASES=N for a longer hunt.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

// ---- the grammar ----

/// Short strings over an alphabet that is mostly the parsers' own punctuation.
fn small_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec![
            "a", "Paris", " ", "{", "}", "[", "]", "\"", "\\", ":", ",", "`", "<", ">", "\n", "é",
            "😀", "name",
        ]),
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

fn arguments_value() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        small_text().prop_map(|s| Some(json!({"city": s}))),
        small_text().prop_map(|s| Some(Value::String(json!({"query": s}).to_string()))),
        Just(Some(json!({}))),
        Just(Some(Value::Null)),
        Just(Some(json!(""))),
        Just(Some(json!("Paris"))),
        Just(Some(json!([1, 2]))),
        Just(Some(json!(7))),
        Just(None),
    ]
}

/// A call object: some name key, some arguments key, any tool name.
fn call_object() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["get_weather", "search", "delete_everything", ""]),
        prop::sample::select(vec!["name", "tool", "tool_name", "function"]),
        prop::sample::select(vec!["arguments", "parameters", "args", "input"]),
        arguments_value(),
        any::<bool>(),
    )
        .prop_map(|(name, name_key, args_key, arguments, with_id)| {
            let mut map = Map::new();
            map.insert(name_key.into(), json!(name));
            if let Some(arguments) = arguments {
                map.insert(args_key.into(), arguments);
            }
            if with_id {
                map.insert("id".into(), json!("call_1"));
            }
            Value::Object(map)
        })
}

/// A call in one of the JSON shapes models write.
fn call_json() -> impl Strategy<Value = String> {
    prop_oneof![
        call_object().prop_map(|c| c.to_string()),
        call_object().prop_map(|c| serde_json::to_string_pretty(&c).unwrap()),
        call_object().prop_map(|c| json!({"type": "function", "function": c}).to_string()),
        proptest::collection::vec(call_object(), 0..3).prop_map(|v| json!(v).to_string()),
        proptest::collection::vec(call_object(), 0..3)
            .prop_map(|v| json!({"tool_calls": v}).to_string()),
        call_object().prop_map(|c| json!({"tool_call": c}).to_string()),
        call_object().prop_map(|c| json!({"data": c}).to_string()),
    ]
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => call_json(),
        2 => prop::sample::select(vec![
            "```", "```json\n", "```python\n", "\n```", "```\n",
            "<tool_call>", "</tool_call>", "<tool_calls>", "</tool_calls>",
            "<function_call>", "</function_call>", "<functioncall>", "</functioncall>",
            "[TOOL_CALLS]", "<tool_ca", "``",
        ])
        .prop_map(String::from),
        2 => prop::sample::select(vec![
            "{", "}", "[", "]", "{}", "[]", "\"", ":", ",", "{\"name\": ", "\"search\"}",
            "{\"a\": 1}", "[1, 2, 3]", "null",
        ])
        .prop_map(String::from),
        3 => prop::sample::select(vec![
            "Sure, I'll check. ", "The set {1, 2, 3} has three elements.", "Done",
            "\n", "\n\n\n", "  ", "\r\n", "\t", " ", "Voilà ", "😀", "My name is Bob.",
            "\u{a0}", "\u{b}",
        ])
        .prop_map(String::from),
        1 => small_text(),
    ]
}

fn reply() -> impl Strategy<Value = String> {
    proptest::collection::vec(fragment(), 0..12).prop_map(|parts| parts.concat())
}

// ---- parse_calls ----

fn non_whitespace(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(|c| !c.is_whitespace())
}

fn is_subsequence(small: &str, big: &str) -> bool {
    let mut big = non_whitespace(big);
    non_whitespace(small).all(|c| big.any(|b| b == c))
}

/// The invariants fuzz/fuzz_targets/parse_calls.rs checks too.
fn check_parse(text: &str) -> Result<(), TestCaseError> {
    let parsed = parse_calls(text, &known);
    for call in &parsed.calls {
        prop_assert!(known(&call.name), "unknown tool {:?}", call.name);
        prop_assert!(call.arguments.is_object(), "arguments {}", call.arguments);
    }
    prop_assert!(parsed.content.len() <= text.len());
    prop_assert!(
        is_subsequence(&parsed.content, text),
        "content {:?} is not the input with parts cut out",
        parsed.content
    );
    if parsed.calls.is_empty() {
        prop_assert!(
            non_whitespace(&parsed.content).eq(non_whitespace(text)),
            "no call, yet content {:?} differs beyond whitespace",
            parsed.content
        );
        prop_assert!(
            parse_calls(&parsed.content, &known).calls.is_empty(),
            "text without calls became calls once tidied: {:?}",
            parsed.content
        );
    }
    prop_assert_eq!(parse_calls(text, &known), parsed);
    Ok(())
}

/// Prose that holds nothing the parser looks at.
fn plain_prose() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec![
            "Sure", "I'll", "check", "the", "weather", ".", " ", "\n", "é", "😀", "name", "()",
        ]),
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

/// A known call with an object of string arguments, and how it is wrapped.
fn known_call() -> impl Strategy<Value = (ParsedCall, String)> {
    (
        prop::sample::select(KNOWN.to_vec()),
        prop::sample::select(vec!["name", "tool", "tool_name", "function"]),
        prop::sample::select(vec!["arguments", "parameters", "args", "input"]),
        small_text(),
        any::<bool>(),
        0..6usize,
    )
        .prop_map(|(name, name_key, args_key, value, as_string, wrap)| {
            let arguments = json!({"q": value});
            let encoded = if as_string {
                Value::String(arguments.to_string())
            } else {
                arguments.clone()
            };
            let object = json!({name_key: name, args_key: encoded}).to_string();
            let text = match wrap {
                0 => object,
                1 => format!("```json\n{object}\n```"),
                2 => format!("<tool_call>\n{object}\n</tool_call>"),
                3 => format!("[TOOL_CALLS][{object}]"),
                4 => format!("[{object}]"),
                _ => format!("<function_call>{object}</function_call>"),
            };
            let call = ParsedCall {
                name: name.to_owned(),
                arguments,
            };
            (call, text)
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parse_calls_invariants_on_grammar(text in reply()) {
        check_parse(&text)?;
    }

    #[test]
    fn parse_calls_invariants_on_any_string(text in any::<String>()) {
        check_parse(&text)?;
    }

    #[test]
    fn a_known_call_amid_prose_is_found(
        before in plain_prose(),
        (call, text) in known_call(),
        after in plain_prose(),
    ) {
        let reply = format!("{before}{text}\n{after}");
        let parsed = parse_calls(&reply, &known);
        prop_assert_eq!(parsed.calls, vec![call]);
    }

    // ---- HoldBack ----

    #[test]
    fn holdback_keeps_every_byte_and_emits_no_marker(
        text in reply(),
        cuts in proptest::collection::vec(0..64usize, 0..8),
    ) {
        let mut pieces = Vec::new();
        let mut at = 0;
        for length in cuts {
            let mut end = (at + length).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            pieces.push(&text[at..end]);
            at = end;
        }
        pieces.push(&text[at..]);

        let mut holdback = HoldBack::default();
        let mut emitted = String::new();
        for piece in pieces {
            let holding = MARKERS.iter().any(|m| holdback.held().starts_with(m));
            let out = holdback.push(piece);
            prop_assert!(!holding || out.is_empty(), "emitted {:?} while holding", out);
            emitted.push_str(&out);
        }
        prop_assert_eq!(format!("{emitted}{}", holdback.held()), text);
        for marker in MARKERS {
            prop_assert!(!emitted.contains(marker), "emitted {:?} holds {:?}", emitted, marker);
        }
    }

    // ---- SSE ----

    #[test]
    fn sse_chunking_changes_nothing(
        stream in proptest::collection::vec(
            prop_oneof![
                Just(b"data: ".to_vec()),
                Just(b"data:".to_vec()),
                Just(b"event: error".to_vec()),
                Just(b": keep-alive".to_vec()),
                Just(b"retry: 10".to_vec()),
                Just(b"\n".to_vec()),
                Just(b"\r".to_vec()),
                Just(b"\r\n".to_vec()),
                Just(b"\n\n".to_vec()),
                Just(b"{\"a\":1}".to_vec()),
                Just(b"[DONE]".to_vec()),
                Just(vec![0xff, 0xc3]),
                Just("é😀".as_bytes().to_vec()),
                proptest::collection::vec(any::<u8>(), 0..8),
            ],
            0..24,
        ).prop_map(|parts| parts.concat()),
        cuts in proptest::collection::vec(0..32usize, 0..8),
        max in prop::sample::select(vec![1usize, 8, 32, 4096]),
    ) {
        fn run(max: usize, pieces: &[&[u8]]) -> Result<Vec<Event>, SseError> {
            let mut parser = Parser::new(max);
            let mut events = Vec::new();
            for piece in pieces {
                events.extend(parser.push(piece)?);
            }
            Ok(events)
        }
        let mut pieces: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        for length in cuts {
            let end = (at + length).min(stream.len());
            pieces.push(&stream[at..end]);
            at = end;
        }
        pieces.push(&stream[at..]);
        // Both fail (perhaps at different bytes) or both give the same events.
        prop_assert_eq!(run(max, &pieces), run(max, &[&stream]));
    }
}

/// Why "the content holds no call" is not asserted: cutting a call out can join the text
/// around it into a new one.
#[test]
fn cutting_a_call_out_can_leave_a_new_one() {
    let text = r#"{"name": {"name": "search"}"search"}"#;
    let parsed = parse_calls(text, &known);
    assert_eq!(parsed.calls.len(), 1);
    assert_eq!(parsed.content, r#"{"name": "search"}"#);
    assert_eq!(parse_calls(&parsed.content, &known).calls.len(), 1);
}

/// Why "text without calls stays without calls" is asserted only for JSON's whitespace: the
/// content is tidied with Rust's (wider) whitespace, so a vertical tab or a no-break space at a
/// line's end, which makes the JSON invalid, is trimmed away and leaves a valid call. Found by
/// fuzz/fuzz_targets/parse_calls.rs.
#[test]
fn tidying_never_turns_text_into_a_call() {
    // Vertical tab and no-break space are not JSON whitespace: the text is no call, and
    // tidying (which trims JSON whitespace only) must not make it one.
    for text in [
        "{\"name\": \"search\"\u{b}\n}",
        "{\"name\": \"search\"\u{a0}\n}",
    ] {
        let parsed = parse_calls(text, &known);
        assert!(parsed.calls.is_empty(), "{text:?}");
        assert_eq!(parsed.content, text);
        assert!(parse_calls(&parsed.content, &known).calls.is_empty());
    }
}
