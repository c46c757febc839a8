//! Which tools are rewritten into the plain-English form.

use serde_json::Value;

use crate::config::{ComplexityThresholds, ToolMode};

const CONDITIONAL_KEYWORDS: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "not",
];

/// Why `auto` rewrites a schema, or `None` when it is simple enough for a small model.
fn complexity_reason(parameters: &Value, t: &ComplexityThresholds) -> Option<String> {
    let properties = parameters.get("properties").and_then(Value::as_object);
    let count = properties.map_or(0, |p| p.len());
    if t.min_properties > 0 && count >= t.min_properties {
        return Some(format!("{count} properties"));
    }
    if t.refs && contains_key(parameters, "$ref") {
        return Some("uses $ref".into());
    }
    if t.conditionals {
        if let Some(keyword) = CONDITIONAL_KEYWORDS
            .iter()
            .find(|k| contains_key(parameters, k))
        {
            return Some(format!("uses {keyword}"));
        }
    }
    if t.nested {
        if let Some(props) = properties {
            let required = |name: &str| {
                parameters
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|n| n == name))
            };
            for (name, schema) in props {
                if !t.optional_nested && !required(name) {
                    continue;
                }
                let schema = ["anyOf", "oneOf"]
                    .iter()
                    .find_map(|k| schema.get(*k).and_then(nullable_branch))
                    .unwrap_or(schema);
                if is_object_schema(schema) {
                    return Some(format!("`{name}` is a nested object"));
                }
                if schema.get("items").is_some_and(is_object_schema) {
                    return Some(format!("`{name}` is an array of objects"));
                }
            }
        }
    }
    None
}

/// Why the tool is shown to the main model in plain-English form, or `None` when it is not.
pub(crate) fn is_rewritten(
    mode: ToolMode,
    parameters: &Value,
    t: &ComplexityThresholds,
) -> Option<String> {
    match mode {
        ToolMode::Nl => Some("mode nl".into()),
        ToolMode::Passthrough => None,
        ToolMode::Auto => complexity_reason(parameters, t),
    }
}

/// Why a schema `auto` leaves alone is simple enough, in the thresholds' terms.
pub(crate) fn simple_reason(parameters: &Value, t: &ComplexityThresholds) -> String {
    let count = parameters
        .get("properties")
        .and_then(Value::as_object)
        .map_or(0, |p| p.len());
    format!(
        "simple schema: {count} properties (auto rewrites from translation.min_properties = {}), no nested objects, $ref or conditionals",
        t.min_properties
    )
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").is_some_and(|t| {
        t == "object"
            || t.as_array()
                .is_some_and(|a| a.iter().any(|x| x == "object"))
    }) || schema.get("properties").is_some()
}

/// `anyOf`/`oneOf` of one schema and `{"type": "null"}`: an optional value (pydantic's
/// `Optional[X]`), which a small model handles as well as the plain type.
fn nullable_branch(alternatives: &Value) -> Option<&Value> {
    let [a, b] = alternatives.as_array()?.as_slice() else {
        return None;
    };
    let is_null = |s: &Value| s.get("type").is_some_and(|t| t == "null");
    match (is_null(a), is_null(b)) {
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ => None,
    }
}

/// A keyword anywhere in the schema, but not a property that happens to carry its name, nor
/// the `anyOf`/`oneOf` of an optional value (searched inside instead).
fn contains_key(schema: &Value, key: &str) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(k, v)| {
            if k == "anyOf" || k == "oneOf" {
                if let Some(inner) = nullable_branch(v) {
                    return contains_key(inner, key);
                }
            }
            if k == key {
                return true;
            }
            if k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" {
                return v
                    .as_object()
                    .is_some_and(|props| props.values().any(|s| contains_key(s, key)));
            }
            contains_key(v, key)
        }),
        Value::Array(items) => items.iter().any(|v| contains_key(v, key)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defaults() -> ComplexityThresholds {
        ComplexityThresholds {
            min_properties: 6,
            nested: true,
            optional_nested: true,
            conditionals: true,
            refs: true,
        }
    }

    #[test]
    fn simple_schema_is_left_alone() {
        let p =
            json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]});
        assert_eq!(complexity_reason(&p, &defaults()), None);
    }

    #[test]
    fn each_trigger_is_reported() {
        let many = json!({"properties":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{}}});
        assert_eq!(
            complexity_reason(&many, &defaults()).as_deref(),
            Some("6 properties")
        );
        let nested = json!({"properties":{"a":{"type":"object","properties":{}}}});
        assert!(complexity_reason(&nested, &defaults()).is_some_and(|r| r.contains("nested")));
        let array = json!({"properties":{"a":{"type":"array","items":{"type":"object"}}}});
        assert!(complexity_reason(&array, &defaults()).is_some_and(|r| r.contains("array")));
        let cond = json!({"properties":{"a":{}},"if":{},"then":{}});
        assert!(complexity_reason(&cond, &defaults()).is_some());
        let reference = json!({"properties":{"a":{"$ref":"#/$defs/x"}}});
        assert_eq!(
            complexity_reason(&reference, &defaults()).as_deref(),
            Some("uses $ref")
        );
    }

    #[test]
    fn optional_values_are_not_conditionals() {
        let optional = json!({"properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
            "b": {"oneOf": [{"type": "null"}, {"type": "integer"}]}
        }});
        assert_eq!(complexity_reason(&optional, &defaults()), None);
        // A real union, or something complex inside the optional, still counts.
        let union =
            json!({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}});
        assert!(complexity_reason(&union, &defaults()).is_some());
        let inner =
            json!({"properties": {"a": {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]}}});
        assert_eq!(
            complexity_reason(&inner, &defaults()).as_deref(),
            Some("uses $ref")
        );
    }

    #[test]
    fn an_optional_nested_property_counts_only_when_asked_to() {
        // BFCL's find_card_in_deck: `rank` and `suit`, and an optional array of objects.
        let p = json!({"properties": {
            "rank": {"type": "string"}, "suit": {"type": "string"},
            "deck": {"type": "array", "items": {"type": "object", "properties": {}}}
        }, "required": ["rank", "suit"]});
        assert!(complexity_reason(&p, &defaults()).is_some_and(|r| r.contains("`deck`")));
        let required_only = ComplexityThresholds {
            optional_nested: false,
            ..defaults()
        };
        assert_eq!(complexity_reason(&p, &required_only), None);
        let mut required = p.clone();
        required["required"] = json!(["rank", "suit", "deck"]);
        assert!(complexity_reason(&required, &required_only).is_some());
    }

    #[test]
    fn a_property_named_like_a_keyword_is_not_a_keyword() {
        let p = json!({"properties":{"not":{"type":"string"},"if":{"type":"string"}}});
        assert_eq!(complexity_reason(&p, &defaults()), None);
    }

    #[test]
    fn modes_decide_before_the_schema() {
        let simple = json!({"properties":{"city":{"type":"string"}}});
        let many = json!({"properties":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{}}});
        assert_eq!(is_rewritten(ToolMode::Auto, &simple, &defaults()), None);
        assert_eq!(
            is_rewritten(ToolMode::Auto, &many, &defaults()).as_deref(),
            Some("6 properties")
        );
        assert_eq!(
            is_rewritten(ToolMode::Nl, &simple, &defaults()).as_deref(),
            Some("mode nl")
        );
        assert_eq!(
            is_rewritten(ToolMode::Passthrough, &many, &defaults()),
            None
        );
        assert!(simple_reason(&simple, &defaults()).starts_with("simple schema: 1 properties"));
    }

    #[test]
    fn thresholds_turn_triggers_off() {
        let t = ComplexityThresholds {
            min_properties: 0,
            nested: false,
            optional_nested: false,
            conditionals: false,
            refs: false,
        };
        let p = json!({"properties":{"a":{"type":"object"},"b":{},"c":{},"d":{},"e":{},"f":{}},"allOf":[]});
        assert_eq!(complexity_reason(&p, &t), None);
    }
}
