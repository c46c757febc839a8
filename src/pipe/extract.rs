//! From a translator's reply text to candidate arguments: strip reasoning, code fences and
//! prose, parse, and undo the usual small-model slips before validation.

use serde_json::Value;

/// How many `{`/`[` positions are tried before giving up on a reply.
const MAX_CANDIDATES: usize = 64;

/// The first JSON object or array in `text`, found in a fence, as the whole text, or inside
/// prose. A JSON string that itself holds JSON is opened.
pub(crate) fn extract_json(text: &str) -> Option<Value> {
    let text = strip_reasoning(text);
    let text = text.trim();
    if let Some(inner) = fenced(text) {
        if let Some(value) = parse_structured(inner.trim()) {
            return Some(value);
        }
    }
    if let Some(value) = parse_structured(text) {
        return Some(value);
    }
    for (start, _) in text
        .char_indices()
        .filter(|(_, c)| *c == '{' || *c == '[')
        .take(MAX_CANDIDATES)
    {
        if let Some((value @ (Value::Object(_) | Value::Array(_)), _)) =
            crate::json::value_at(text, start)
        {
            return Some(value);
        }
    }
    None
}

fn parse_structured(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text).ok()? {
        Value::String(inner) => parse_structured(inner.trim()),
        value @ (Value::Object(_) | Value::Array(_)) => Some(value),
        _ => None,
    }
}

/// `<think>…</think>` blocks that reasoning models put before the answer.
fn strip_reasoning(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("<think>") {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out.into()
}

/// The body of the first ``` fence (any info string), or `None`.
fn fenced(text: &str) -> Option<&str> {
    let open = text.find("```")?;
    let after = &text[open + 3..];
    let body_start = after.find('\n').map_or(0, |i| i + 1);
    let body = &after[body_start..];
    let close = body.find("```").unwrap_or(body.len());
    Some(&body[..close])
}

/// `{"name": "<tool>", "arguments": {...}}` written instead of the bare arguments.
pub(crate) fn unwrap_call_envelope(value: Value, tool: &str, parameters: &Value) -> Value {
    let has_property = |name: &str| parameters.pointer(&format!("/properties/{name}")).is_some();
    let Value::Object(map) = &value else {
        return value;
    };
    let names_tool = map.get("name").and_then(Value::as_str) == Some(tool)
        || map.get("tool").and_then(Value::as_str) == Some(tool);
    if !names_tool || has_property("name") || has_property("tool") {
        return value;
    }
    for key in ["arguments", "parameters", "args"] {
        if let Some(inner) = map.get(key) {
            if has_property(key) {
                continue;
            }
            return match inner {
                Value::String(s) => parse_structured(s).unwrap_or_else(|| inner.clone()),
                other => other.clone(),
            };
        }
    }
    value
}

/// Where the schema wants an object or array and the value is a string holding one, parse it.
pub(crate) fn coerce_stringified(value: &mut Value, schema: &Value) {
    let Value::Object(map) = value else {
        return;
    };
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, prop_schema) in props {
        let Some(field) = map.get_mut(name) else {
            continue;
        };
        let wants = prop_schema.get("type").and_then(Value::as_str);
        if let (Value::String(text), Some("object" | "array")) = (&*field, wants) {
            if let Some(parsed) = parse_structured(text.trim()) {
                if (wants == Some("object")) == parsed.is_object() {
                    *field = parsed;
                }
            }
        }
        if field.is_object() {
            coerce_stringified(field, prop_schema);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fences_prose_and_reasoning_are_stripped() {
        let cases = [
            ("{\"a\":1}", json!({"a":1})),
            ("```json\n{\"a\":1}\n```", json!({"a":1})),
            ("```\n[{\"a\":1}]\n```\nDone.", json!([{"a":1}])),
            (
                "Sure! Here it is: {\"a\": {\"b\": [1,2]}} Hope that helps.",
                json!({"a":{"b":[1,2]}}),
            ),
            ("<think>maybe {\"x\":0}</think>\n{\"a\":1}", json!({"a":1})),
            ("\"{\\\"a\\\":1}\"", json!({"a":1})),
            ("Use {braces} wisely: {\"a\":2}", json!({"a":2})),
        ];
        for (text, expected) in cases {
            assert_eq!(extract_json(text), Some(expected), "{text}");
        }
    }

    #[test]
    fn garbage_yields_nothing() {
        for text in [
            "",
            "no json here",
            "{not json",
            "42",
            "\"just a string\"",
            "```\n```",
        ] {
            assert_eq!(extract_json(text), None, "{text}");
        }
    }

    #[test]
    fn envelope_is_unwrapped_only_for_this_tool() {
        let schema = json!({"properties": {"message": {}}});
        let wrapped = json!({"name": "set_reminder", "arguments": {"message": "x"}});
        assert_eq!(
            unwrap_call_envelope(wrapped.clone(), "set_reminder", &schema),
            json!({"message": "x"})
        );
        assert_eq!(
            unwrap_call_envelope(wrapped.clone(), "other", &schema),
            wrapped
        );
        let stringly = json!({"name": "t", "arguments": "{\"message\":\"y\"}"});
        assert_eq!(
            unwrap_call_envelope(stringly, "t", &schema),
            json!({"message": "y"})
        );
    }

    #[test]
    fn stringified_objects_are_parsed_where_the_schema_wants_them() {
        let schema = json!({"properties": {"data": {"type": "object", "properties": {"h": {"type": "object"}}}, "text": {"type": "string"}}});
        let mut value = json!({"data": "{\"url\": \"u\", \"h\": \"{\\\"k\\\": \\\"v\\\"}\"}", "text": "{\"keep\": 1}"});
        coerce_stringified(&mut value, &schema);
        assert_eq!(
            value,
            json!({"data": {"url": "u", "h": {"k": "v"}}, "text": "{\"keep\": 1}"})
        );
    }
}
