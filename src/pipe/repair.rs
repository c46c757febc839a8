//! Deterministic repairs of call arguments, made only where the schema leaves one reading:
//! `"2"` to `2` for a number, `"true"` to `true` for a boolean, an enum value in the wrong
//! case, `null` for a field that strict mode requires and that allows null, and an unknown
//! field dropped under `additionalProperties: false`. Each repair is named, so it can be
//! logged; nothing else is touched.

use serde_json::{Map, Value};

/// The most nesting levels repaired (a client's schema can nest without end).
const MAX_DEPTH: usize = 16;

/// Repairs `value` in place against `schema`; returns what was changed, one line each.
pub fn repair(value: &mut Value, schema: &Value) -> Vec<String> {
    let mut done = Vec::new();
    repair_at(value, schema, "", 0, &mut done);
    done
}

fn repair_at(value: &mut Value, schema: &Value, path: &str, depth: usize, done: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(fixed) = scalar(value, schema) {
        done.push(format!("{} {value} -> {fixed}", at(path)));
        *value = fixed;
        return;
    }
    match value {
        Value::Object(map) => object(map, schema, path, depth, done),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (i, item) in items.iter_mut().enumerate() {
                    repair_at(item, item_schema, &format!("{path}/{i}"), depth + 1, done);
                }
            }
        }
        _ => {}
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "at the top level:".into()
    } else {
        format!("at {path}:")
    }
}

fn object(
    map: &mut Map<String, Value>,
    schema: &Value,
    path: &str,
    depth: usize,
    done: &mut Vec<String>,
) {
    let props = schema.get("properties").and_then(Value::as_object);
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let known = |k: &String| props.is_some_and(|p| p.contains_key(k));
        let unknown: Vec<String> = map.keys().filter(|k| !known(k)).cloned().collect();
        for key in unknown {
            map.shift_remove(&key);
            done.push(format!("{} dropped the unknown field `{key}`", at(path)));
        }
    }
    let Some(props) = props else { return };
    let required = crate::json::required(schema);
    for (name, prop_schema) in props {
        match map.get_mut(name) {
            Some(field) => repair_at(
                field,
                prop_schema,
                &format!("{path}/{name}"),
                depth + 1,
                done,
            ),
            // Strict mode lists optional fields as required and nullable: null says "not given".
            None if required.contains(&name.as_str()) && allows(prop_schema, "null") => {
                map.insert(name.clone(), Value::Null);
                done.push(format!("{} set the absent `{name}` to null", at(path)));
            }
            None => {}
        }
    }
}

/// The types a schema allows, from `type` (a name or a list).
fn allows(schema: &Value, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(types)) => types.iter().any(|t| t == kind),
        _ => false,
    }
}

/// The one value a mistyped scalar can only have meant, or `None`.
fn scalar(value: &Value, schema: &Value) -> Option<Value> {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        let text = value.as_str()?;
        if options.iter().any(|o| o.as_str() == Some(text)) {
            return None;
        }
        let matching: Vec<&Value> = options
            .iter()
            .filter(|o| {
                o.as_str()
                    .is_some_and(|o| o.eq_ignore_ascii_case(text.trim()))
            })
            .collect();
        return match matching.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        };
    }
    let Value::String(text) = value else {
        return None;
    };
    if allows(schema, "string") {
        return None;
    }
    let text = text.trim();
    if allows(schema, "integer") {
        if let Ok(n) = text.parse::<i64>() {
            return Some(Value::from(n));
        }
    }
    if allows(schema, "number") {
        if let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            return Some(Value::Number(n));
        }
    }
    if allows(schema, "boolean") {
        match text {
            "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
            "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "on": {"type": "boolean"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "note": {"type": ["string", "null"]},
                "id": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}
            },
            "required": ["count", "note"],
            "additionalProperties": false
        })
    }

    #[test]
    fn unambiguous_mistakes_are_repaired() {
        let mut value = json!({"count": "2", "ratio": " 0.5", "on": "true", "unit": "Celsius",
            "id": "42", "items": [{"n": "7"}], "extra": 1});
        let done = repair(&mut value, &schema());
        assert_eq!(
            value,
            json!({"count": 2, "ratio": 0.5, "on": true, "unit": "celsius", "id": "42",
                "items": [{"n": 7}], "note": null})
        );
        assert_eq!(done.len(), 7, "{done:?}");
        assert!(done.iter().any(|d| d.contains("`extra`")), "{done:?}");
    }

    #[test]
    fn anything_with_two_readings_is_left_alone() {
        let mut value =
            json!({"count": "two", "ratio": "1,5", "on": "yes", "unit": "kelvin", "note": "x"});
        let before = value.clone();
        assert!(repair(&mut value, &schema()).is_empty());
        assert_eq!(value, before);
        // Two enum values equal but for case: no single reading.
        let s = json!({"properties": {"m": {"enum": ["Auto", "AUTO"]}}});
        let mut v = json!({"m": "auto"});
        assert!(repair(&mut v, &s).is_empty());
    }
}
