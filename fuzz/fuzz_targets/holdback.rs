//! `HoldBack` fed the input in pieces. The first byte says how many cuts (0..=15), the next
//! that many bytes are the piece lengths, the rest (lossy UTF-8) is the text; a cut inside a
//! multi-byte character moves to the character's end.
//!
//! Invariants:
//! - the text emitted along the way followed by `held()` is the whole input;
//! - the emitted text holds no marker that may open a call (```, <tool_call, <tool_calls,
//!   <function_call, <functioncall, {, [), not even one cut across two pieces;
//! - once something is held, nothing more is emitted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plaincall::parts::HoldBack;

const MARKERS: &[&str] = &[
    "```",
    "<tool_call",
    "<tool_calls",
    "<function_call",
    "<functioncall",
    "{",
    "[",
];

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let count = usize::from(count % 16).min(rest.len());
    let (lengths, body) = rest.split_at(count);
    let text = String::from_utf8_lossy(body);

    let mut pieces = Vec::new();
    let mut at = 0;
    for &length in lengths {
        let mut end = (at + usize::from(length)).min(text.len());
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
        // Holding starts at a marker, so a held text opening with one means holding.
        let holding = MARKERS.iter().any(|m| holdback.held().starts_with(m));
        let out = holdback.push(piece);
        assert!(
            !holding || out.is_empty(),
            "emitted {out:?} after holding began"
        );
        emitted.push_str(&out);
    }
    assert_eq!(
        format!("{emitted}{}", holdback.held()),
        text,
        "emitted + held is not the input"
    );
    for marker in MARKERS {
        assert!(
            !emitted.contains(marker),
            "emitted text {emitted:?} contains {marker:?}"
        );
    }
});
