//! What grounding costs per translated call: the evidence indexed from a conversation of a
//! few kilobytes, then one call of a complex fixture tool checked against it.
//!
//!     cargo run --release --example bench_grounding
//!
//! Prints the mean time per call (index + check) and for the check alone, over 20,000 runs;
//! then per request of three calls, the evidence read once for all three (as a request's
//! calls share it) against read for each.

use std::time::Instant;

use plaincall::parts::{ground, Evidence, Rules};
use serde_json::json;

fn main() {
    let tool: serde_json::Value = serde_json::from_str(include_str!(
        "../tests/fixtures/tools/spawn_sub_session.json"
    ))
    .unwrap_or_default();
    let schema = tool["function"]["parameters"].clone();
    let mut text = String::from(
        "Research the Python asyncio docs and write a cheatsheet to data/asyncio_cheatsheet.md, \
         then after that's done review it and add three practical examples. Use the researcher \
         profile, start tomorrow at 9am, and give it 2 hours at most. ",
    );
    for i in 0..20 {
        text.push_str(&format!(
            "Tool result {i}: wrote 1,2{i}0 bytes to data/notes_{i}.md on 2026-11-2{}; ",
            i % 10
        ));
    }
    let call = json!({"objective": "Research the Python asyncio documentation and write a cheatsheet to data/asyncio_cheatsheet.md",
        "profile": "researcher", "depends_on_previous": true, "not_before": "2026-11-26T09:00:00",
        "timeout_seconds": 7200, "tool_names": ["web_search", "write_file"]});
    let today = "2026-11-25".parse().unwrap_or_default();
    let runs = 20_000u32;
    let started = Instant::now();
    let mut kept = 0usize;
    for _ in 0..runs {
        let evidence = Evidence::new(&text, today);
        let mut args = call.clone();
        kept += ground(&mut args, &schema, &evidence, Rules::default())
            .dropped
            .len();
    }
    let whole = started.elapsed() / runs;
    let evidence = Evidence::new(&text, today);
    let started = Instant::now();
    for _ in 0..runs {
        let mut args = call.clone();
        kept += ground(&mut args, &schema, &evidence, Rules::default())
            .dropped
            .len();
    }
    let check = started.elapsed() / runs;
    println!(
        "evidence of {} bytes: index + check {:?} per call, check alone {:?} ({} values left out per run)",
        text.len(),
        whole,
        check,
        kept / (2 * runs as usize)
    );
    let calls = 3u32;
    let started = Instant::now();
    for _ in 0..runs {
        let evidence = Evidence::new(&text, today);
        for _ in 0..calls {
            let mut args = call.clone();
            std::hint::black_box(ground(&mut args, &schema, &evidence, Rules::default()));
        }
    }
    let request = started.elapsed() / runs;
    println!(
        "a request of {calls} calls: {request:?} with the evidence read once, {:?} read for each",
        whole * calls
    );
}
