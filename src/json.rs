//! JSON helpers the pipe shares: a value found inside text, a schema's required keys, its
//! local `$ref`s followed (and the branches its combinators hold), and canonical (sorted-key)
//! text.

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

/// The schema a local reference points to (`#/$defs/x`, `#/definitions/x`, `#`, any JSON
/// pointer into the root); `None` for a remote or broken one.
pub(crate) fn resolve_ref<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// `schema` with its `$ref` followed, a chain of them at most 8 deep (a client's schema is
/// untrusted: a reference to itself must not loop).
pub(crate) fn resolved<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..8 {
        match current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve_ref(r, root))
        {
            Some(target) => current = target,
            None => return current,
        }
    }
    current
}

/// The schema and the branches its keywords combine (`allOf`, `anyOf`, `oneOf`, `then`,
/// `else`), references followed; at most 64.
pub(crate) fn branches<'a>(schema: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    let mut out = vec![resolved(schema, root)];
    let mut i = 0;
    while i < out.len() && out.len() < 64 {
        let current = out[i];
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(list) = current.get(keyword).and_then(Value::as_array) {
                out.extend(list.iter().map(|s| resolved(s, root)));
            }
        }
        for keyword in ["then", "else"] {
            if let Some(branch) = current.get(keyword) {
                out.push(resolved(branch, root));
            }
        }
        i += 1;
    }
    out
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
