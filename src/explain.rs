//! `plaincall explain FILE...`: for each tool in tool files or a captured request body, whether
//! the configuration rewrites it and why, and the plain-English form the main model sees.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::openai::RawObject;
use crate::pipe::Pipe;

/// The tool definitions in one file: a tool, an array of tools, or a request with `tools`,
/// each in any format's shape (Chat Completions, Responses, Anthropic Messages).
pub(crate) fn tools_in(path: &Path) -> Result<Vec<Value>, String> {
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

/// What `explain` found for one tool, as `--json` prints it.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Report {
    pub name: String,
    /// `rewritten`, `passed_through` or `unreadable`.
    pub verdict: &'static str,
    pub reason: String,
    /// The one field's name, when rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The description the main model sees, when rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
}

impl Report {
    /// The text `explain` prints without `--json`.
    pub(crate) fn text(&self) -> String {
        match (self.verdict, &self.field, &self.shown) {
            ("rewritten", Some(field), Some(shown)) => {
                let mut out = format!(
                    "{name}: rewritten: {reason}\n  the main model sees `{name}({field}: string)`, described as:\n",
                    name = self.name,
                    reason = self.reason
                );
                for line in shown.lines() {
                    let _ = writeln!(out, "    {line}");
                }
                out
            }
            ("unreadable", _, _) => format!("{}: cannot be read: {}\n", self.name, self.reason),
            _ => format!("{}: passed through: {}\n", self.name, self.reason),
        }
    }
}

/// The report for one tool definition.
pub(crate) fn report(pipe: &Pipe, tool: &Value) -> Report {
    let name = tool
        .pointer("/function/name")
        .and_then(Value::as_str)
        .unwrap_or("(unnamed)");
    let passed = |reason: &str| Report {
        name: name.to_owned(),
        verdict: "passed_through",
        reason: reason.to_owned(),
        field: None,
        shown: None,
    };
    if tool.get("type").and_then(Value::as_str) != Some("function") {
        return passed("not a function tool");
    }
    let parameters = tool
        .pointer("/function/parameters")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    if !pipe.settings().enabled {
        return passed("translation.enabled = false");
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
            Report {
                name: name.to_owned(),
                verdict: "rewritten",
                reason,
                field: Some(nl.field.clone()),
                shown: Some(description),
            }
        }
        (Ok(_), Ok(None)) => passed("its schema does not compile, so it goes as it is"),
        (Err(reason), _) => passed(&reason),
        (Ok(_), Err(error)) => Report {
            name: name.to_owned(),
            verdict: "unreadable",
            reason: error,
            field: None,
            shown: None,
        },
    }
}
