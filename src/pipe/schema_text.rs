//! Plain-English renderings of a JSON Schema: the hints in the tool description the main model
//! sees, and the rules in the translator's prompt. Both come from the same reading of the schema.

use crate::json::required;
use serde_json::{Map, Value};

/// The description of the one-field tool the main model sees: the tool's own purpose and the
/// facts a request must carry. Kept short and free of instructions: a weak model copies
/// whatever instructions it is shown into `description` instead of the user's words.
pub fn nl_tool_description(original: &str, parameters: &Value) -> String {
    let mut out = original.trim().to_owned();
    if !out.is_empty() && !out.ends_with('.') {
        out.push('.');
    }
    let props = properties(parameters);
    let needed: Vec<String> = required(parameters)
        .iter()
        .map(|name| match props.and_then(|p| p.get(*name)) {
            Some(schema) => describe_property(name, schema),
            None => (*name).to_owned(),
        })
        .collect();
    if !needed.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("Needs: {}.", needed.join("; ")));
    }
    // What else a value brings with it: the facts to gather, stated once.
    for condition in conditional_rules(parameters) {
        out.push(' ');
        out.push_str(&condition);
    }
    out.trim_start().to_owned()
}

/// The rules listed in the translator prompt.
pub fn translator_rules(parameters: &Value) -> Vec<String> {
    let mut rules = Vec::new();
    let required = required(parameters);
    if !required.is_empty() {
        rules.push(format!("Always required: {}.", required.join(", ")));
    }
    if let Some(props) = properties(parameters) {
        for (name, schema) in props {
            rules.extend(value_rules(name, schema));
        }
    }
    rules.extend(conditional_rules(parameters));
    if parameters.get("additionalProperties") == Some(&Value::Bool(false)) {
        rules.push("No properties other than those in the schema.".into());
    }
    rules
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

fn list(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `name` with what the main model must know to phrase it: allowed values, units, limits.
fn describe_property(name: &str, schema: &Value) -> String {
    let mut text = name.to_owned();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        text.push_str(&format!(" (one of {})", list(values)));
    } else if let Some(desc) = schema.get("description").and_then(Value::as_str) {
        // The whole description when short; else its first sentence ("e.g." is no sentence end).
        let short = if desc.len() <= 120 {
            desc
        } else {
            desc.match_indices(". ")
                .map(|(i, _)| &desc[..i])
                .find(|head| head.len() >= 20 && !head.ends_with("e.g") && !head.ends_with("i.e"))
                .unwrap_or(desc)
        };
        let short = short.trim().trim_end_matches('.');
        if short.len() <= 120 {
            text.push_str(&format!(" ({short})"));
        }
    }
    text
}

fn value_rules(name: &str, schema: &Value) -> Vec<String> {
    let mut rules = Vec::new();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        rules.push(format!("{name} must be one of: {}.", list(values)));
    }
    if let Some(value) = schema.get("const") {
        rules.push(format!("{name} must be {value}."));
    }
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let (min, max) = (schema.get("minimum"), schema.get("maximum"));
    match (kind, min, max) {
        ("integer" | "number", Some(lo), Some(hi)) => {
            rules.push(format!("{name} is {} from {lo} to {hi}.", article(kind)));
        }
        ("integer" | "number", Some(lo), None) => {
            rules.push(format!("{name} is {} of at least {lo}.", article(kind)));
        }
        ("integer" | "number", None, Some(hi)) => {
            rules.push(format!("{name} is {} of at most {hi}.", article(kind)));
        }
        ("integer", None, None) => rules.push(format!("{name} is an integer (not quoted).")),
        ("boolean", ..) => rules.push(format!("{name} is true or false (not quoted).")),
        _ => {}
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        rules.push(format!("{name} must match the pattern {pattern}."));
    }
    rules.extend(super::described_format::rule(name, schema));
    if let Some(max) = schema.get("maxLength") {
        rules.push(format!("{name} has at most {max} characters."));
    }
    match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => rules.push(format!(
            "{name} is an RFC 3339 date-time with a UTC offset, such as 2026-03-15T10:00:00+00:00."
        )),
        Some("date") => rules.push(format!("{name} is a date, YYYY-MM-DD.")),
        Some("time") => rules.push(format!("{name} is a time with offset, HH:MM:SS+00:00.")),
        Some(other) => rules.push(format!("{name} has the format {other}.")),
        None => {}
    }
    if kind == "array" {
        if let Some(items) = schema.get("items") {
            if let Some(values) = items.get("enum").and_then(Value::as_array) {
                rules.push(format!("{name} items must be among: {}.", list(values)));
            }
        }
    }
    rules
}

fn article(kind: &str) -> &'static str {
    if kind == "integer" {
        "an integer"
    } else {
        "a number"
    }
}

/// `if`/`then` (at the top or in `allOf`) and `dependentRequired`, in words.
fn conditional_rules(schema: &Value) -> Vec<String> {
    let mut rules = Vec::new();
    let mut branches: Vec<&Value> = vec![schema];
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        branches.extend(all.iter());
    }
    for branch in branches {
        if let (Some(condition), Some(then)) = (branch.get("if"), branch.get("then")) {
            let when = describe_condition(condition);
            let needs = describe_requirement(then);
            if let (Some(when), Some(needs)) = (when, needs) {
                rules.push(format!("When {when}, {needs}."));
            }
        }
    }
    if let Some(deps) = schema.get("dependentRequired").and_then(Value::as_object) {
        for (name, needed) in deps {
            if let Some(needed) = needed.as_array() {
                rules.push(format!(
                    "When {name} is given, {} also required.",
                    plural(&list(needed), needed.len())
                ));
            }
        }
    }
    rules
}

fn plural(names: &str, count: usize) -> String {
    if count == 1 {
        format!("{names} is")
    } else {
        format!("{names} are")
    }
}

fn describe_condition(condition: &Value) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(props) = properties(condition) {
        for (name, schema) in props {
            if let Some(value) = schema.get("const") {
                parts.push(format!(
                    "{name} is {}",
                    value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned)
                ));
            } else if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                parts.push(format!("{name} is one of {}", list(values)));
            }
        }
    }
    let named: Vec<&str> = required(condition);
    for name in named {
        if !parts.iter().any(|p| p.starts_with(&format!("{name} "))) {
            parts.push(format!("{name} is given"));
        }
    }
    (!parts.is_empty()).then(|| parts.join(" and "))
}

fn describe_requirement(then: &Value) -> Option<String> {
    let mut parts = Vec::new();
    let needed = required(then);
    if !needed.is_empty() {
        parts.push(format!(
            "{} required",
            plural(&needed.join(" and "), needed.len())
        ));
    }
    if let Some(props) = properties(then) {
        for (name, schema) in props {
            let inner = required(schema);
            if !inner.is_empty() {
                parts.push(format!("{name} needs {}", inner.join(" and ")));
            }
            if let Some(value) = schema.get("const") {
                parts.push(format!("{name} must be {value}"));
            }
        }
    }
    (!parts.is_empty()).then(|| parts.join(", and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reminder() -> Value {
        json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "Short reminder text."},
                "schedule_type": {"type": "string", "enum": ["once", "daily", "weekly"]},
                "day_of_week": {"type": "string", "enum": ["mon", "tue"]},
                "background": {"type": "boolean"},
                "ai_prompt": {"type": "string"}
            },
            "required": ["message", "schedule_type"],
            "additionalProperties": false,
            "allOf": [
                {"if": {"properties": {"schedule_type": {"const": "weekly"}}}, "then": {"required": ["day_of_week"]}},
                {"if": {"required": ["background"]}, "then": {"required": ["ai_prompt"]}}
            ]
        })
    }

    #[test]
    fn conditionals_in_words() {
        let rules = translator_rules(&reminder());
        assert!(
            rules.contains(&"When schedule_type is weekly, day_of_week is required.".to_owned()),
            "{rules:?}"
        );
        assert!(
            rules.contains(&"When background is given, ai_prompt is required.".to_owned()),
            "{rules:?}"
        );
        assert!(rules.contains(&"schedule_type must be one of: once, daily, weekly.".to_owned()));
        assert!(rules.contains(&"Always required: message, schedule_type.".to_owned()));
    }

    #[test]
    fn nl_description_is_the_purpose_and_the_needed_facts() {
        let text = nl_tool_description("Schedule a reminder", &reminder());
        assert!(text.starts_with("Schedule a reminder. Needs: "), "{text}");
        assert!(
            text.contains("schedule_type (one of once, daily, weekly)"),
            "{text}"
        );
        // No instructions and no optional fields: nothing to copy instead of the user's words.
        assert!(!text.contains("description"), "{text}");
        assert!(
            !text.contains("Optional") && !text.contains("day_of_week (one of"),
            "{text}"
        );
        assert!(
            text.contains("When schedule_type is weekly, day_of_week is required."),
            "{text}"
        );
        assert_eq!(nl_tool_description("", &json!({})), "");
    }

    #[test]
    fn nested_requirements_are_named() {
        let schema = json!({"allOf": [{"if": {"properties": {"task_type": {"const": "api_call"}}},
            "then": {"required": ["execution_data"], "properties": {"execution_data": {"required": ["url", "method"]}}}}]});
        assert_eq!(
            conditional_rules(&schema),
            vec!["When task_type is api_call, execution_data is required, and execution_data needs url and method.".to_owned()]
        );
    }
}
