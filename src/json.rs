//! JSON helpers with one home each: a value found inside text, a schema's required keys, and
//! canonical (sorted-key) text.

use serde_json::Value;

/// The JSON value that starts at byte `start` of `text`, and the byte where it ends.
pub(crate) fn value_at(text: &str, start: usize) -> Option<(Value, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text.get(start..)?).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => Some((value, start + stream.byte_offset())),
        _ => None,
    }
}

/// The names a schema's `required` lists (none when it has no such list).
pub(crate) fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Sorted-key JSON text: the same value always gives the same text, whatever its key order.
pub(crate) fn canonical(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), sort(v)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_inside_text_and_where_it_ends() {
        let text = r#"call {"a": [1, 2]} then"#;
        assert_eq!(value_at(text, 5), Some((json!({"a": [1, 2]}), 18)));
        assert_eq!(value_at(text, 0), None);
        assert_eq!(value_at(text, 999), None);
    }

    #[test]
    fn canonical_text_ignores_key_order() {
        assert_eq!(
            canonical(&json!({"b": 1, "a": {"d": 2, "c": 3}})),
            r#"{"a":{"c":3,"d":2},"b":1}"#
        );
        assert_eq!(
            required(&json!({"required": ["x", 3, "y"]})),
            vec!["x", "y"]
        );
    }
}
