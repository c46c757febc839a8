//! Deterministic repairs of call arguments, made only where the schema leaves one reading:
//! `"2"` to `2` for a number, `"true"` to `true` for a boolean, an enum value in the wrong
//! case, `null` for a field that strict mode requires and that allows null, and an unknown
//! field dropped under `additionalProperties: false`. Each repair is named, so it can be
//! logged; nothing else is touched. Strict schemas as pydantic writes them are read through:
//! `Optional[X]` as `anyOf: [X, {"type": "null"}]`, nested models as `$ref` into `$defs`.

use serde_json::{Map, Value};

/// The most nesting levels repaired (a client's schema can nest without end).
const MAX_DEPTH: usize = 16;

/// Repairs `value` in place against `schema`; returns what was changed, one line each.
pub(crate) fn repair(value: &mut Value, schema: &Value) -> Vec<String> {
    let mut done = Vec::new();
    let at_root = Spot {
        root: schema,
        path: String::new(),
        depth: 0,
    };
    repair_at(value, schema, &at_root, &mut done);
    done
}

/// Where a repair is: the root schema (for `$ref`), the path for the log, the depth.
struct Spot<'a> {
    root: &'a Value,
    path: String,
    depth: usize,
}

impl<'a> Spot<'a> {
    fn child(&self, name: impl std::fmt::Display) -> Spot<'a> {
        Spot {
            root: self.root,
            path: format!("{}/{name}", self.path),
            depth: self.depth + 1,
        }
    }
}

/// The schema a value meets: a local `$ref` followed, and of an `anyOf`/`oneOf` whose
/// branches but one are `null`, that one (for a value that is not null).
fn effective<'a>(schema: &'a Value, root: &'a Value, value: &Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..MAX_DEPTH {
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            schema = target;
            continue;
        }
        if value.is_null() {
            return schema;
        }
        let branches = ["anyOf", "oneOf"]
            .iter()
            .find_map(|k| schema.get(*k).and_then(Value::as_array));
        let mut others = branches
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        match (others.next(), others.next()) {
            (Some(only), None) => schema = only,
            _ => return schema,
        }
    }
    schema
}

fn repair_at(value: &mut Value, schema: &Value, spot: &Spot, done: &mut Vec<String>) {
    if spot.depth > MAX_DEPTH {
        return;
    }
    let schema = effective(schema, spot.root, value);
    if let Some(fixed) = scalar(value, schema) {
        done.push(format!("{} {value} -> {fixed}", at(&spot.path)));
        *value = fixed;
        return;
    }
    match value {
        Value::Object(map) => object(map, schema, spot, done),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (i, item) in items.iter_mut().enumerate() {
                    repair_at(item, item_schema, &spot.child(i), done);
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

fn object(map: &mut Map<String, Value>, schema: &Value, spot: &Spot, done: &mut Vec<String>) {
    let path = spot.path.as_str();
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
            Some(field) => repair_at(field, prop_schema, &spot.child(name), done),
            // Strict mode lists optional fields as required and nullable: null says "not given".
            None if required.contains(&name.as_str()) && nullable(prop_schema, spot.root) => {
                map.insert(name.clone(), Value::Null);
                done.push(format!("{} set the absent `{name}` to null", at(path)));
            }
            None => {}
        }
    }
}

/// Whether a schema takes `null`: by its `type`, or by an `anyOf`/`oneOf` branch (pydantic's
/// `Optional`), references followed.
fn nullable(schema: &Value, root: &Value) -> bool {
    let schema = effective(schema, root, &Value::Null);
    allows(schema, "null")
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| {
                    branches
                        .iter()
                        .any(|b| allows(effective(b, root, &Value::Null), "null"))
                })
        })
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

    /// What pydantic writes for `strict=True` (the Agents SDK, LangChain): `Optional` as
    /// `anyOf` with null, nested models as `$ref` into `$defs`, every field required.
    #[test]
    fn pydantic_strict_schemas_are_read_through() -> Result<(), String> {
        let schema = json!({
            "type": "object", "additionalProperties": false,
            "required": ["city", "days", "unit", "window"],
            "properties": {
                "city": {"type": "string"},
                "days": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]},
                "window": {"anyOf": [{"$ref": "#/$defs/Window"}, {"type": "null"}]}
            },
            "$defs": {
                "Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "Window": {"type": "object", "additionalProperties": false,
                           "required": ["start", "hours"],
                           "properties": {"start": {"type": "string"},
                                          "hours": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}
            }
        });
        let mut value = json!({"city": "Paris", "days": "3", "unit": "Celsius",
                               "window": {"start": "09:00", "extra": 1}});
        let done = repair(&mut value, &schema);
        assert_eq!(
            value,
            json!({"city": "Paris", "days": 3, "unit": "celsius",
                   "window": {"start": "09:00", "hours": null}})
        );
        assert_eq!(done.len(), 4, "{done:?}");
        let mut absent = json!({"city": "Rome"});
        repair(&mut absent, &schema);
        assert_eq!(
            absent,
            json!({"city": "Rome", "days": null, "unit": null, "window": null})
        );
        let validator = jsonschema::validator_for(&schema).map_err(|e| e.to_string())?;
        assert!(validator.is_valid(&value) && validator.is_valid(&absent));
        Ok(())
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
