//! `parse_calls` on arbitrary text (bytes read as lossy UTF-8), with two known tools.
//!
//! Invariants checked (each must hold for every input):
//! - it returns (no panic, no hang past libFuzzer's timeout);
//! - every call names a known tool and its arguments are a JSON object;
//! - the content is never longer than the input, and its non-whitespace characters are a
//!   subsequence of the input's (calls are cut out, whitespace is tidied, nothing is added);
//! - with no call found, the content is the input up to whitespace (same non-whitespace
//!   characters in the same order); and, when all of the input's whitespace is JSON
//!   whitespace (space, tab, CR, LF), parsing that content again finds no call either;
//! - the same input gives the same result twice.
//!
//! Not invariants, so not checked (tests/parser_properties.rs pins both examples):
//! - "the content holds no call": cutting a call out can join the text around it into a new
//!   one: `{"name": ` + a call + `"search"}` leaves `{"name": "search"}`;
//! - "text without calls stays without calls once tidied", for any whitespace: the content
//!   is trimmed with Rust's notion of whitespace, wider than JSON's, so
//!   `{"name": "search"<VT or NBSP>\n}` (not JSON) comes back as `{"name": "search"\n}` (a
//!   call). Found by this target.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plaincall::parts::parse_calls;

const KNOWN: [&str; 2] = ["get_weather", "search"];

fn known(name: &str) -> bool {
    KNOWN.contains(&name)
}

fn non_whitespace(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(|c| !c.is_whitespace())
}

fn is_subsequence(small: &str, big: &str) -> bool {
    let mut big = non_whitespace(big);
    non_whitespace(small).all(|c| big.any(|b| b == c))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = parse_calls(&text, &known);
    for call in &parsed.calls {
        assert!(known(&call.name), "unknown tool {:?} returned", call.name);
        assert!(
            call.arguments.is_object(),
            "arguments of {} are not an object: {}",
            call.name,
            call.arguments
        );
    }
    assert!(
        parsed.content.len() <= text.len(),
        "content ({} bytes) longer than the input ({} bytes)",
        parsed.content.len(),
        text.len()
    );
    assert!(
        is_subsequence(&parsed.content, &text),
        "content {:?} is not the input with parts cut out",
        parsed.content
    );
    if parsed.calls.is_empty() {
        assert!(
            non_whitespace(&parsed.content).eq(non_whitespace(&text)),
            "no call found, yet the content {:?} differs from the input beyond whitespace",
            parsed.content
        );
        let json_whitespace_only = text
            .chars()
            .all(|c| !c.is_whitespace() || matches!(c, ' ' | '\t' | '\n' | '\r'));
        let again = parse_calls(&parsed.content, &known);
        assert!(
            !json_whitespace_only || again.calls.is_empty(),
            "text without calls became calls once tidied: {:?} -> {:?}",
            parsed.content,
            again.calls
        );
    }
    assert_eq!(parse_calls(&text, &known), parsed, "not deterministic");
});
