//! Grounds recorded calls offline: one JSON line per call on stdin,
//! `{"id", "text", "today"?, "tool_results"?, "schema", "arguments"}` (`tool_results`: the
//! parts of `text` that are tools' results, each as written there; or `"messages"`, the chat
//! messages, in place of `text`, read as a served request's are), and one line per call
//! on stdout,
//! `{"id", "kept", "replaced", "dropped", "missing", "asked", "decisions": [{"path", "rule", "outcome"}]}`
//! (`replaced`: required members the text contradicts, replaced by the one it names where the
//! call stays valid, before grounding, as a served request has them; `asked`: the missing
//! values the default grounding asks the user about, facts nobody can work out)
//! (or `{"id", "error"}`). No model: scripts/bfcl/reground.py feeds it BFCL runs' calls.
//!
//!     cargo run --quiet --example reground < calls.jsonl

use std::io::{self, BufRead, Write};

use plaincall::parts::{at_path, evidence_of, ground, said_members, unworkable, Evidence, Rules};
use serde_json::{json, Value};

fn reground(line: &str) -> Result<Value, (Value, String)> {
    let input: Value = serde_json::from_str(line).map_err(|e| (Value::Null, e.to_string()))?;
    let id = input.get("id").cloned().unwrap_or(Value::Null);
    let fail = |why: String| (id.clone(), why);
    let today = input["today"].as_str().unwrap_or("2026-11-25");
    let today = today.parse().map_err(|e| fail(format!("today: {e}")))?;
    if let Some(messages) = input.get("messages") {
        let messages: Vec<Box<serde_json::value::RawValue>> =
            serde_json::from_value(messages.clone()).map_err(|e| fail(e.to_string()))?;
        let evidence = evidence_of(&messages, today);
        return Ok(decided(
            id,
            input["arguments"].clone(),
            &input["schema"],
            &evidence,
        ));
    }
    let text = input["text"]
        .as_str()
        .ok_or_else(|| fail("no \"text\"".into()))?;
    let args = input["arguments"].clone();
    let mut tool_results = Vec::new();
    for part in input["tool_results"].as_array().into_iter().flatten() {
        let part = part.as_str().unwrap_or_default();
        let at = text
            .find(part)
            .ok_or_else(|| fail(format!("tool result not in the text: {part}")))?;
        tool_results.push(at..at + part.len());
    }
    let evidence = Evidence::with_tool_results(text, &tool_results, today);
    Ok(decided(id, args, &input["schema"], &evidence))
}

/// The call grounded against `evidence`, as the output line says it.
fn decided(id: Value, mut args: Value, schema: &Value, evidence: &Evidence) -> Value {
    let arguments = args.clone();
    let mut replaced = Vec::new();
    if let Ok(validator) = jsonschema::validator_for(schema) {
        let mut candidate = args.clone();
        let paths = said_members(&mut candidate, schema, evidence, Rules::default());
        if !paths.is_empty() && validator.is_valid(&candidate) {
            args = candidate;
            replaced = paths;
        }
    }
    let report = ground(&mut args, schema, evidence, Rules::default());
    let decisions: Vec<Value> = report
        .decisions
        .iter()
        .map(|d| json!({"path": d.path, "rule": d.rule.name(), "outcome": d.outcome.name()}))
        .collect();
    // What the default grounding asks about: a missing fact nobody can work out.
    let asked: Vec<&String> = report
        .missing
        .iter()
        .filter(|path| at_path(&arguments, path).is_some_and(unworkable))
        .collect();
    json!({"id": id, "kept": args, "replaced": replaced, "dropped": report.dropped,
          "missing": report.missing, "asked": asked, "decisions": decisions})
}

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = match line {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => line,
            Err(e) => {
                eprintln!("reground: reading stdin: {e}");
                break;
            }
        };
        let row = reground(&line).unwrap_or_else(|(id, error)| json!({"id": id, "error": error}));
        if writeln!(out, "{row}").is_err() {
            break;
        }
    }
}
