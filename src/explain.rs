//! `plaincall explain FILE...`: for each tool in tool files or a captured request body, whether
//! the configuration rewrites it and why, and the plain-English form the main model sees.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::openai::RawObject;
use crate::pipe::Pipe;

/// The tool definitions in one file: a tool, an array of tools, or a request with `tools`,
/// each in any format's shape (Chat Completions, Responses, Anthropic Messages).
pub fn tools_in(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let list = match value {
        Value::Array(items) => items,
        Value::Object(ref map) if map.contains_key("tools") => match map.get("tools") {
            Some(Value::Array(items)) => items.clone(),
            _ => return Err(format!("{}: `tools` is not an array", path.display())),
        },
        other => vec![other],
    };
    Ok(list
        .into_iter()
        .map(crate::wire::tool_in_chat_shape)
        .collect())
}

/// The report for one tool definition.
pub fn explain(pipe: &Pipe, tool: &Value) -> String {
    let name = tool
        .pointer("/function/name")
        .and_then(Value::as_str)
        .unwrap_or("(unnamed)");
    if tool.get("type").and_then(Value::as_str) != Some("function") {
        return format!("{name}: passed through: not a function tool\n");
    }
    let parameters = tool
        .pointer("/function/parameters")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    if !pipe.settings().enabled {
        return format!("{name}: passed through: translation.enabled = false\n");
    }
    let decision = pipe.decision(name, &parameters);
    let raw: Result<RawObject, _> = serde_json::from_value(tool.clone());
    let form = raw
        .map_err(|e| e.to_string())
        .and_then(|raw| pipe.nl_form(&raw, false).map_err(|e| e.to_string()));
    match (decision, form) {
        (Ok(reason), Ok(Some((nl, definition)))) => {
            let description = serde_json::to_value(&definition)
                .ok()
                .and_then(|d| {
                    d.pointer("/function/description")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            let mut out = format!(
                "{name}: rewritten: {reason}\n  the main model sees `{name}({field}: string)`, described as:\n",
                field = nl.field
            );
            for line in description.lines() {
                let _ = writeln!(out, "    {line}");
            }
            out
        }
        (Ok(_), Ok(None)) => {
            format!("{name}: passed through: its schema does not compile, so it goes as it is\n")
        }
        (Err(reason), _) => format!("{name}: passed through: {reason}\n"),
        (Ok(_), Err(error)) => format!("{name}: cannot be read: {error}\n"),
    }
}
