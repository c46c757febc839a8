//! A client's tool schema through everything plaincall derives from it: the limits check, the
//! grammar sent to a translator, the schema in words, the prompt-mode example call. The input
//! is JSON (anything else is skipped); the seeds are the shapes that once took the process
//! down: a `$ref` to the root from every property, definitions doubling at each level, deep
//! nesting, wide objects, huge enums.
//!
//! Invariants: nothing panics, and what is derived stays within plaincall's limits however the
//! schema expands (a grammar of at most twice `MAX_SCHEMA_BYTES` plus its fixed frame, an
//! example call and a description of bounded size).
#![no_main]

use libfuzzer_sys::fuzz_target;
use plaincall::parts::{grammar, schema_text};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let limit = grammar::MAX_SCHEMA_BYTES;
    let _ = grammar::past_limits(&schema);
    let simplified = grammar::simplified(&schema).to_string();
    assert!(simplified.len() <= limit + 4096, "simplified: {} bytes", simplified.len());
    let response = grammar::response_schema(&schema).to_string();
    assert!(response.len() <= 2 * limit + 8192, "response schema: {} bytes", response.len());
    let example = plaincall::parts::example_of(&schema).to_string();
    assert!(
        example.len() <= data.len().saturating_mul(300) + 65536,
        "example: {} bytes from {}",
        example.len(),
        data.len()
    );
    let words = schema_text::nl_tool_description("A tool.", &schema);
    let rules = schema_text::translator_rules(&schema);
    let told = words.len() + rules.iter().map(String::len).sum::<usize>();
    assert!(told <= data.len().saturating_mul(20) + 65536, "words: {told} bytes");
});
