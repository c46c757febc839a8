//! The schema sent as `response_format` to a translator backend (and, as GBNF, as `grammar`:
//! `pipe/gbnf.rs`). Grammar engines (llama.cpp, vLLM's xgrammar/outlines) silently drop or
//! reject `if`/`then`/`else`, `not`, `oneOf` beside `properties` and nested `$ref`, so the
//! backend gets a simplified copy; the full schema is still enforced afterwards by the
//! validator.
//!
//! A client's schema is untrusted: a `$ref` back into itself (`{"$ref": "#"}`) or a chain of
//! definitions each used twice would expand without end. So a reference already being
//! expanded on the current path is cut to `{}` (any value: the validator still checks the real
//! recursion), and everything derived is charged against `MAX_SCHEMA_BYTES` (256 KiB); a
//! schema whose derived copy would be larger is past the limits, and its tool is left as the
//! client sent it.

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
/// References expanded inside each other on one path, at most.
const MAX_REF_DEPTH: usize = 8;
/// The most JSON a tool's schema may hold for plaincall to rewrite or check it, and the most
/// any schema it derives from one (grammar, prompt example) may hold.
pub const MAX_SCHEMA_BYTES: usize = 256 * 1024;

/// Bytes of JSON still allowed in a derived schema.
struct Budget {
    left: usize,
    exceeded: bool,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            left: MAX_SCHEMA_BYTES,
            exceeded: false,
        }
    }

    fn charge(&mut self, bytes: usize) -> bool {
        if self.exceeded || bytes > self.left {
            self.exceeded = true;
            self.left = 0;
            return false;
        }
        self.left -= bytes;
        true
    }
}

/// About the length of `value` as JSON, without writing it; stops counting past `cap`.
fn json_size(value: &Value, cap: usize) -> usize {
    fn walk(value: &Value, total: &mut usize, cap: usize) {
        if *total > cap {
            return;
        }
        match value {
            Value::Null | Value::Bool(_) => *total += 5,
            Value::Number(_) => *total += 8,
            Value::String(s) => *total += s.len() + 2,
            Value::Array(items) => {
                *total += 2;
                for item in items {
                    *total += 1;
                    walk(item, total, cap);
                }
            }
            Value::Object(map) => {
                *total += 2;
                for (key, item) in map {
                    *total += key.len() + 4;
                    walk(item, total, cap);
                }
            }
        }
    }
    let mut total = 0;
    walk(value, &mut total, cap);
    total
}

/// Why plaincall leaves a tool's schema alone: larger than `MAX_SCHEMA_BYTES` (256 KiB) as it
/// came, or once its references are expanded. `None` when it is within the limits.
pub fn past_limits(parameters: &Value) -> Option<String> {
    let size = json_size(parameters, MAX_SCHEMA_BYTES);
    if size > MAX_SCHEMA_BYTES {
        return Some(format!(
            "its schema is larger than plaincall's limit of {MAX_SCHEMA_BYTES} bytes"
        ));
    }
    let mut budget = Budget::new();
    simplify(parameters, parameters, &mut vec!["#"], &mut budget);
    budget.exceeded.then(|| {
        format!("its schema expands past plaincall's limit of {MAX_SCHEMA_BYTES} bytes (its $refs)")
    })
}

/// One call, several calls, the clarification object, or the objection that the request is
/// not for this tool.
pub fn response_schema(parameters: &Value) -> Value {
    let call = simplified(parameters);
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
            },
            {
                "type": "object",
                "properties": {
                    "error": {"const": "wrong_tool"},
                    "reason": {"type": "string"}
                },
                "required": ["error", "reason"]
            }
        ]
    })
}

/// The simplified copy of one schema; `{}` (any value) where it would pass the limits.
pub fn simplified(parameters: &Value) -> Value {
    let mut budget = Budget::new();
    // The root is being expanded: `{"$ref": "#"}` inside it is the recursion, cut at once.
    let out = simplify(parameters, parameters, &mut vec!["#"], &mut budget);
    if budget.exceeded {
        return json!({});
    }
    out
}

/// `expanding`: the references being expanded on the path from the root to `schema`.
fn simplify<'a>(
    schema: &'a Value,
    root: &'a Value,
    expanding: &mut Vec<&'a str>,
    budget: &mut Budget,
) -> Value {
    if !budget.charge(2) {
        return json!({});
    }
    let Some(object) = schema.as_object() else {
        // `true`/`false` schemas pass through.
        return schema.clone();
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        if expanding.len() > MAX_REF_DEPTH || expanding.contains(&reference) {
            return json!({});
        }
        return match crate::json::resolve_ref(reference, root) {
            Some(target) => {
                expanding.push(reference);
                let out = simplify(target, root, expanding, budget);
                expanding.pop();
                out
            }
            None => json!({}),
        };
    }
    let mut out = Map::new();
    for key in KEPT {
        if let Some(value) = object.get(*key) {
            if !budget.charge(key.len() + 4 + json_size(value, budget.left)) {
                return json!({});
            }
            out.insert((*key).to_owned(), value.clone());
        }
    }
    if let Some(props) = object.get("properties").and_then(Value::as_object) {
        let mut simplified = Map::new();
        for (name, s) in props {
            if !budget.charge(name.len() + 4) {
                return json!({});
            }
            simplified.insert(name.clone(), simplify(s, root, expanding, budget));
        }
        out.insert("properties".into(), Value::Object(simplified));
    }
    if let Some(items) = object.get("items") {
        out.insert("items".into(), simplify(items, root, expanding, budget));
    }
    match object.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            out.insert("additionalProperties".into(), Value::Bool(*b));
        }
        Some(other @ Value::Object(_)) => {
            out.insert(
                "additionalProperties".into(),
                simplify(other, root, expanding, budget),
            );
        }
        _ => {}
    }
    // A bare union is the only kind grammar engines take; beside `properties` it is dropped.
    if !out.contains_key("properties") {
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = object.get(key).and_then(Value::as_array) {
                let simplified: Vec<Value> = branches
                    .iter()
                    .map(|b| simplify(b, root, expanding, budget))
                    .collect();
                out.insert("anyOf".into(), Value::Array(simplified));
                break;
            }
        }
    }
    Value::Object(out)
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
        let simple = simplified(&schema);
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
        let simple = simplified(&schema);
        assert_eq!(
            simple.pointer("/properties/node/type"),
            Some(&json!("object"))
        );
        // The recursion is cut where it comes back to a reference being expanded.
        assert_eq!(
            simple.pointer("/properties/node/properties/child"),
            Some(&json!({}))
        );
        assert!(!simple.to_string().contains("$ref"));
    }

    #[test]
    fn a_schema_that_refers_to_itself_stays_small() {
        let mut properties = Map::new();
        for name in ["a", "b", "c", "d", "e", "f"] {
            properties.insert(name.into(), json!({"$ref": "#"}));
        }
        let schema = json!({"type": "object", "properties": properties});
        assert_eq!(past_limits(&schema), None);
        let simple = simplified(&schema);
        assert!(simple.to_string().len() < 200, "{simple}");
        assert_eq!(simple.pointer("/properties/a"), Some(&json!({})));
    }

    #[test]
    fn definitions_that_double_at_every_level_are_past_the_limits() {
        // d0 uses d1 twice, d1 uses d2 twice, ...: 2^7 copies of a 5 KB enum once expanded.
        let mut defs = Map::new();
        for level in 0..7 {
            let next = format!("#/$defs/d{}", level + 1);
            defs.insert(
                format!("d{level}"),
                json!({"type": "object", "properties": {"l": {"$ref": next}, "r": {"$ref": next}}}),
            );
        }
        let values: Vec<String> = (0..300).map(|i| format!("value number {i}")).collect();
        defs.insert("d7".into(), json!({"type": "string", "enum": values}));
        let schema = json!({"$ref": "#/$defs/d0", "$defs": defs});
        assert!(past_limits(&schema).is_some_and(|r| r.contains("expands")));
        assert_eq!(simplified(&schema), json!({}));
        assert!(response_schema(&schema).to_string().len() < 1024);
    }

    #[test]
    fn a_large_schema_is_past_the_limits_as_it_came() {
        let names: Vec<Value> = (0..30_000).map(|i| json!(format!("value-{i}"))).collect();
        let schema = json!({"type": "object", "properties": {"k": {"enum": names}}});
        assert!(past_limits(&schema).is_some_and(|r| r.contains("larger")));
    }

    #[test]
    fn response_admits_array_clarification_and_wrong_tool() {
        let schema = response_schema(&json!({"type": "object"}));
        let branches = schema["anyOf"].as_array().map(Vec::len);
        assert_eq!(branches, Some(4));
        assert_eq!(
            schema["anyOf"][3]["properties"]["error"]["const"],
            "wrong_tool"
        );
        assert_eq!(schema["anyOf"][1]["type"], "array");
    }
}
