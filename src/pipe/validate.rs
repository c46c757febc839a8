//! Validation of translated arguments against the tool's full schema (every keyword, the
//! conditionals included), with compiled validators cached by schema hash.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

pub(crate) struct Validators {
    compiled: moka::sync::Cache<u64, Arc<jsonschema::Validator>>,
}

impl Validators {
    pub(crate) fn new(capacity: u64) -> Validators {
        Validators {
            compiled: moka::sync::Cache::new(capacity),
        }
    }

    /// The validator for `schema`, compiled once. Drafts are taken from `$schema`, 2020-12
    /// when absent; `format` is enforced; remote `$ref`s are not fetched (the crate is built
    /// without its HTTP resolver), so a client's schema cannot make plaincall fetch URLs.
    pub(crate) fn get(
        &self,
        schema_hash: u64,
        schema: &Value,
    ) -> Result<Arc<jsonschema::Validator>, String> {
        if let Some(found) = self.compiled.get(&schema_hash) {
            return Ok(found);
        }
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|e| e.to_string())?;
        let validator = Arc::new(validator);
        self.compiled.insert(schema_hash, validator.clone());
        Ok(validator)
    }
}

/// Every error, as "at /path: message" (or "at the top level: ...").
pub(crate) fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                format!("at the top level: {e}")
            } else {
                format!("at {path}: {e}")
            }
        })
        .collect()
}

/// A hash of the schema's text as sent (key order kept: a client sends the same tool the same
/// way each time), stable within a process.
pub(crate) fn schema_hash(schema: &Value) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    schema.to_string().hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conditionals_and_formats_are_enforced() -> Result<(), String> {
        let schema = json!({
            "type": "object",
            "properties": {"kind": {"enum": ["weekly", "daily"]}, "day": {"type": "string"},
                           "when": {"type": "string", "format": "date-time"}},
            "allOf": [{"if": {"properties": {"kind": {"const": "weekly"}}}, "then": {"required": ["day"]}}]
        });
        let validators = Validators::new(8);
        let v = validators.get(schema_hash(&schema), &schema)?;
        assert!(errors(&v, &json!({"kind": "daily"})).is_empty());
        let e = errors(&v, &json!({"kind": "weekly"}));
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("day"), "{e:?}");
        let e = errors(&v, &json!({"kind": "daily", "when": "tomorrow"}));
        assert!(e.iter().any(|m| m.starts_with("at /when")), "{e:?}");
        Ok(())
    }

    #[test]
    fn invalid_schema_is_an_error_not_a_panic() {
        let validators = Validators::new(8);
        let schema = json!({"type": 12});
        assert!(validators.get(schema_hash(&schema), &schema).is_err());
    }
}
