//! What the main model put in a call to a rewritten tool. The one-field form is the usual
//! case, but a weak model also writes the real arguments, or runs out of tokens mid-call; none
//! of these may reach the client in the one-field form.

use serde_json::Value;

use super::{validate, NlTool};
use crate::openai::nl_description;

/// The most errors listed when arguments are handed to the translator for fixing.
const ERRORS_SHOWN: usize = 8;

#[derive(Debug, PartialEq)]
pub enum CallForm {
    /// `{"description": ...}`, or the readable start of one that was cut off.
    Description(String),
    /// Real arguments, valid against the full schema: the call stands as written.
    Valid,
    /// Real arguments that fail the schema: translated, with the errors, into valid ones.
    Invalid(String),
    /// Nothing readable (cut off before the description began, or not JSON).
    Unreadable,
}

pub fn read_call(tool: &NlTool, arguments: &str) -> CallForm {
    if let Some(description) = nl_description(arguments) {
        return CallForm::Description(description);
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => {
            let errors = validate::errors(&tool.validator, &value);
            if errors.is_empty() {
                return CallForm::Valid;
            }
            if let Some(Value::String(text)) = value.get("description") {
                // The one-field form plus stray fields: the description is what counts.
                if !text.trim().is_empty() && !tool_has_property(tool, "description") {
                    return CallForm::Description(text.clone());
                }
            }
            let shown: Vec<&str> = errors
                .iter()
                .take(ERRORS_SHOWN)
                .map(String::as_str)
                .collect();
            CallForm::Invalid(format!(
                "Call {} with these arguments, corrected so that they are valid: {value}. They fail the schema: {}.",
                tool.name,
                shown.join("; ")
            ))
        }
        Ok(_) => CallForm::Unreadable,
        Err(_) => {
            cut_off_description(arguments).map_or(CallForm::Unreadable, CallForm::Description)
        }
    }
}

fn tool_has_property(tool: &NlTool, name: &str) -> bool {
    tool.parameters
        .get("properties")
        .and_then(|p| p.get(name))
        .is_some()
}

/// The text of `{"description": "...` when the call stopped inside the string (the main
/// model hit `max_tokens`): whatever escapes decode, up to the cut.
fn cut_off_description(arguments: &str) -> Option<String> {
    let rest = arguments.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix("\"description\"")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let body = rest.strip_prefix('"')?;
    // Drop up to a few trailing characters: a cut may fall inside an escape (`\u00`).
    let mut end = body.len();
    for _ in 0..8 {
        if let Ok(text) = serde_json::from_str::<String>(&format!("\"{}\"", &body[..end])) {
            let text = text.trim().to_owned();
            return (!text.is_empty()).then_some(text);
        }
        end = body[..end].char_indices().last()?.0;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn tool() -> Result<NlTool, String> {
        let parameters = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
            "additionalProperties": false
        });
        let validator =
            Arc::new(jsonschema::validator_for(&parameters).map_err(|e| e.to_string())?);
        Ok(NlTool {
            name: "forecast".into(),
            reason: "test".into(),
            description: String::new(),
            parameters,
            schema_hash: 0,
            validator,
        })
    }

    #[test]
    fn each_form_is_recognised() -> Result<(), String> {
        let t = tool()?;
        assert_eq!(
            read_call(&t, r#"{"description":"Rome, 3 days"}"#),
            CallForm::Description("Rome, 3 days".into())
        );
        assert_eq!(
            read_call(&t, r#"{"city":"Rome","days":3}"#),
            CallForm::Valid
        );
        let form = read_call(&t, r#"{"city":"Rome","days":"three"}"#);
        let CallForm::Invalid(text) = form else {
            return Err(format!("invalid arguments are translated, not {form:?}"));
        };
        assert!(
            text.contains(r#""days":"three""#) && text.contains("/days"),
            "{text}"
        );
        assert_eq!(
            read_call(&t, r#"{"description":"Rome","days":3}"#),
            CallForm::Description("Rome".into())
        );
        assert_eq!(read_call(&t, "[1,2]"), CallForm::Unreadable);
        assert_eq!(read_call(&t, r#"{"descr"#), CallForm::Unreadable);
        assert_eq!(read_call(&t, r#"{"description": ""#), CallForm::Unreadable);
        Ok(())
    }

    #[test]
    fn a_cut_off_description_keeps_what_was_written() -> Result<(), String> {
        let t = tool()?;
        for (cut, expected) in [
            (
                r#"{"description": "weather in Rome for 3 da"#,
                "weather in Rome for 3 da",
            ),
            (
                r#"{"description":"say \"hi\" to Ana\u00"#,
                r#"say "hi" to Ana"#,
            ),
            (
                r#"{ "description" : "line one\nline two\"#,
                "line one\nline two",
            ),
            ("{\"description\":\"caf\u{e9} at 9", "caf\u{e9} at 9"),
        ] {
            assert_eq!(
                read_call(&t, cut),
                CallForm::Description(expected.into()),
                "{cut}"
            );
        }
        Ok(())
    }
}
