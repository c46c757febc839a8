//! The schema sent as `response_format` to a translator backend. Grammar engines (llama.cpp,
//! vLLM's xgrammar/outlines) silently drop or reject `if`/`then`/`else`, `not`, `oneOf` beside
//! `properties` and nested `$ref`, so the backend gets a simplified copy; the full schema is
//! still enforced afterwards by the validator.

use serde_json::{json, Map, Value};

const KEPT: &[&str] = &[
    "type",
    "enum",
    "const",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
];
const MAX_REF_DEPTH: usize = 8;

/// One call, several calls, or the clarification object.
pub fn response_schema(parameters: &Value) -> Value {
    let call = simplify(parameters, parameters, 0);
    json!({
        "anyOf": [
            call,
            {"type": "array", "items": call, "minItems": 1},
            {
                "type": "object",
                "properties": {
                    "error": {"const": "missing_info"},
                    "clarification_needed": {"type": "string"}
                },
                "required": ["error", "clarification_needed"]
            }
        ]
    })
}

/// The simplified copy of one schema.
pub fn simplified(parameters: &Value) -> Value {
    simplify(parameters, parameters, 0)
}

fn simplify(schema: &Value, root: &Value, depth: usize) -> Value {
    let Some(object) = schema.as_object() else {
        // `true`/`false` schemas pass through.
        return schema.clone();
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        if depth >= MAX_REF_DEPTH {
            return json!({});
        }
        return match resolve(reference, root) {
            Some(target) => simplify(target, root, depth + 1),
            None => json!({}),
        };
    }
    let mut out = Map::new();
    for key in KEPT {
        if let Some(value) = object.get(*key) {
            out.insert((*key).to_owned(), value.clone());
        }
    }
    if let Some(props) = object.get("properties").and_then(Value::as_object) {
        let simplified: Map<String, Value> = props
            .iter()
            .map(|(name, s)| (name.clone(), simplify(s, root, depth)))
            .collect();
        out.insert("properties".into(), Value::Object(simplified));
    }
    if let Some(items) = object.get("items") {
        out.insert("items".into(), simplify(items, root, depth));
    }
    match object.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            out.insert("additionalProperties".into(), Value::Bool(*b));
        }
        Some(other @ Value::Object(_)) => {
            out.insert("additionalProperties".into(), simplify(other, root, depth));
        }
        _ => {}
    }
    // A bare union is the only kind grammar engines take; beside `properties` it is dropped.
    if !out.contains_key("properties") {
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = object.get(key).and_then(Value::as_array) {
                let simplified: Vec<Value> =
                    branches.iter().map(|b| simplify(b, root, depth)).collect();
                out.insert("anyOf".into(), Value::Array(simplified));
                break;
            }
        }
    }
    Value::Object(out)
}

/// Local references only (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root).
fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditionals_are_removed_and_structure_kept() {
        let schema = json!({
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": ["a", "b"], "description": "x"},
                           "when": {"type": "string", "format": "date-time", "pattern": "^x$"}},
            "required": ["kind"],
            "additionalProperties": false,
            "allOf": [{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["when"]}}],
            "not": {"required": ["x"]},
            "oneOf": [{"required": ["kind"]}]
        });
        let simple = simplify(&schema, &schema, 0);
        assert_eq!(
            simple,
            json!({
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string", "enum": ["a", "b"]}, "when": {"type": "string"}},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn local_refs_are_inlined_and_cycles_bounded() {
        let schema = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/node"}},
            "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}}
        });
        let simple = simplify(&schema, &schema, 0);
        assert_eq!(
            simple.pointer("/properties/node/type"),
            Some(&json!("object"))
        );
        assert!(simple
            .pointer("/properties/node/properties/child/properties")
            .is_some());
        assert!(!simple.to_string().contains("$ref"));
    }

    #[test]
    fn response_admits_array_and_clarification() {
        let schema = response_schema(&json!({"type": "object"}));
        let branches = schema["anyOf"].as_array().map(Vec::len);
        assert_eq!(branches, Some(3));
        assert_eq!(schema["anyOf"][1]["type"], "array");
    }
}
