//! What the main model put in a call to a tool plaincall handles. For a rewritten tool the
//! one-field form is the usual case, but a weak model also writes the real arguments, or runs
//! out of tokens mid-call; none of these may reach the client in the one-field form. A tool
//! only checked is read the same way, less the one-field form.

use serde_json::Value;

use super::described_format::{off_format, OffFormat};
use super::{repair, validate, NlTool};
use crate::config::CheckMode;
use crate::openai::nl_description;

/// The most of the user's latest message given to the translator.
pub(crate) const USER_MESSAGE_LIMIT: usize = 2000;
/// A description sharing this share of its words with the text the main model was shown,
/// and less than half with the user's message, is a copy of the instructions.
const COPIED_SHARE: f64 = 0.7;

/// The most errors listed when arguments are handed to the translator for fixing.
const ERRORS_SHOWN: usize = 8;

#[derive(Debug, PartialEq)]
pub(crate) enum CallForm {
    /// `{"description": ...}`, or the readable start of one that was cut off.
    Description(String),
    /// Real arguments, valid against the full schema: the call stands as written.
    Valid,
    /// Real arguments made valid by repairs the schema leaves no doubt about (`"2"` to `2`).
    Repaired(Value),
    /// Real arguments that fail the schema: translated, with the errors, into valid ones.
    Invalid(String),
    /// Real arguments, valid (`own`, after the unambiguous fixes), with values not in the
    /// format their descriptions ask (`off`): those values are asked of the translator.
    OffFormat { own: Value, off: Vec<OffFormat> },
    /// Nothing readable (cut off before the description began, or not JSON).
    Unreadable,
}

pub(crate) fn read_call(tool: &NlTool, arguments: &str, tz: &jiff::tz::TimeZone) -> CallForm {
    // The one-field form means something only for a tool shown in it.
    if let Some(description) = nl_description(arguments, &tool.field).filter(|_| tool.rewritten) {
        return CallForm::Description(description);
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => {
            let errors = validate::errors(&tool.validator, &value);
            if errors.is_empty() {
                return described(tool, value, CallForm::Valid);
            }
            let mut repaired = value.clone();
            if !repair::repair(&mut repaired, &tool.parameters, tz).is_empty()
                && validate::errors(&tool.validator, &repaired).is_empty()
            {
                return described(tool, repaired.clone(), CallForm::Repaired(repaired));
            }
            if let Some(Value::String(text)) = value.get(&tool.field) {
                // The one-field form plus stray fields: the description is what counts.
                if tool.rewritten
                    && !text.trim().is_empty()
                    && !tool_has_property(tool, &tool.field)
                {
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
        Err(_) => cut_off_description(arguments, &tool.field)
            .filter(|_| tool.rewritten)
            .map_or(CallForm::Unreadable, CallForm::Description),
    }
}

/// A valid call (`form`), unless a value is not in the format its description asks and the
/// translator may fix it (`check_calls = "translate"`).
fn described(tool: &NlTool, own: Value, form: CallForm) -> CallForm {
    if tool.check != CheckMode::Translate {
        return form;
    }
    let off = off_format(&tool.parameters, &own);
    if off.is_empty() {
        form
    } else {
        CallForm::OffFormat { own, off }
    }
}

/// What the translator is asked to convert: the main model's description and, for the values
/// it left out, the user's latest message and the user's earlier messages of the same
/// exchange (`earlier`, already one `User's earlier message:` line each). A description that
/// copies the tool's text instead of the request is replaced by the user's messages, or
/// refused (`Err`) when there are none.
pub(crate) fn translator_input(
    tool: &NlTool,
    description: &str,
    user_message: Option<&str>,
    earlier: Option<&str>,
) -> Result<String, String> {
    let user = user_message.map(str::trim).filter(|u| !u.is_empty());
    let description = description.trim();
    let earlier = earlier.filter(|e| !e.is_empty());
    let with_earlier = |text: String| match earlier {
        Some(earlier) => format!("{earlier}\n{text}"),
        None => text,
    };
    if is_copy_of_instructions(description, &tool.shown, user) {
        return match user {
            Some(user) => Ok(with_earlier(format!("User's latest message: {user}"))),
            None => Err(format!(
                "[TRANSLATION ERROR] The description repeats the {} tool's own text instead of the request. Call it again with what the user asked for, in their words, with every value they gave.",
                tool.name
            )),
        };
    }
    Ok(match user {
        Some(user) if user != description => with_earlier(format!(
            "User's latest message: {user}\nDescription: {description}"
        )),
        _ if earlier.is_some() => with_earlier(format!("Description: {description}")),
        _ => description.to_owned(),
    })
}

fn words(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

fn is_copy_of_instructions(description: &str, shown: &str, user: Option<&str>) -> bool {
    let said = words(description);
    if said.len() < 6 {
        return false;
    }
    let share = |other: &str| {
        let other = words(other);
        said.iter().filter(|w| other.contains(*w)).count() as f64 / said.len() as f64
    };
    let instructions = format!("{shown} {}", super::GUIDE);
    share(&instructions) >= COPIED_SHARE && user.is_none_or(|u| share(u) < 0.5)
}

fn tool_has_property(tool: &NlTool, name: &str) -> bool {
    tool.parameters
        .get("properties")
        .and_then(|p| p.get(name))
        .is_some()
}

/// The text of `{"<field>": "...` when the call stopped inside the string (the main model hit
/// `max_tokens`): whatever escapes decode, up to the cut.
pub(crate) fn cut_off_description(arguments: &str, field: &str) -> Option<String> {
    let rest = arguments.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix(&format!("\"{field}\""))?.trim_start();
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

    const UTC: jiff::tz::TimeZone = jiff::tz::TimeZone::UTC;

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
            shown: "Weather forecast for a city. Needs: city (the city name).".into(),
            description: String::new(),
            parameters,
            schema_hash: 0,
            validator,
            rewritten: true,
            field: crate::pipe::NL_FIELD.to_owned(),
            check: crate::config::CheckMode::Translate,
        })
    }

    #[test]
    fn a_checked_tool_has_no_one_field_form() -> Result<(), String> {
        let t = NlTool {
            rewritten: false,
            ..tool()?
        };
        assert!(matches!(
            read_call(&t, r#"{"description":"Rome, 3 days"}"#, &UTC),
            CallForm::Invalid(_)
        ));
        assert_eq!(
            read_call(&t, r#"{"description":"Rome"#, &UTC),
            CallForm::Unreadable
        );
        assert_eq!(
            read_call(&t, r#"{"city":"Rome","days":"3"}"#, &UTC),
            CallForm::Repaired(serde_json::json!({"city": "Rome", "days": 3}))
        );
        assert_eq!(read_call(&t, r#"{"city":"Rome"}"#, &UTC), CallForm::Valid);
        Ok(())
    }

    #[test]
    fn each_form_is_recognised() -> Result<(), String> {
        let t = tool()?;
        assert_eq!(
            read_call(&t, r#"{"description":"Rome, 3 days"}"#, &UTC),
            CallForm::Description("Rome, 3 days".into())
        );
        assert_eq!(
            read_call(&t, r#"{"city":"Rome","days":3}"#, &UTC),
            CallForm::Valid
        );
        assert_eq!(
            read_call(&t, r#"{"city":"Rome","days":"3"}"#, &UTC),
            CallForm::Repaired(json!({"city": "Rome", "days": 3}))
        );
        let form = read_call(&t, r#"{"city":"Rome","days":"three"}"#, &UTC);
        let CallForm::Invalid(text) = form else {
            return Err(format!("invalid arguments are translated, not {form:?}"));
        };
        assert!(
            text.contains(r#""days":"three""#) && text.contains("/days"),
            "{text}"
        );
        assert_eq!(
            read_call(&t, r#"{"description":"Rome","days":3}"#, &UTC),
            CallForm::Description("Rome".into())
        );
        assert_eq!(read_call(&t, "[1,2]", &UTC), CallForm::Unreadable);
        assert_eq!(read_call(&t, r#"{"descr"#, &UTC), CallForm::Unreadable);
        assert_eq!(
            read_call(&t, r#"{"description": ""#, &UTC),
            CallForm::Unreadable
        );
        Ok(())
    }

    #[test]
    fn the_user_message_goes_along_and_copied_instructions_are_not_the_request(
    ) -> Result<(), String> {
        let t = tool()?;
        assert_eq!(
            translator_input(&t, "Rome, 3 days", Some("weather in Rome for the next 3 days?"), None),
            Ok("User's latest message: weather in Rome for the next 3 days?\nDescription: Rome, 3 days".into())
        );
        assert_eq!(translator_input(&t, "Rome", None, None), Ok("Rome".into()));
        assert_eq!(
            translator_input(&t, "Rome", Some("Rome"), None),
            Ok("Rome".into())
        );
        let copied = "Weather forecast for a city. Needs: city (the city name). What the user asked for, in their own words";
        assert_eq!(
            translator_input(&t, copied, Some("how warm is Oslo tomorrow"), None),
            Ok("User's latest message: how warm is Oslo tomorrow".into())
        );
        assert!(translator_input(&t, copied, None, None).is_err_and(|e| e.contains("repeats")));
        // Words the user said themselves are no copy, even where the tool's text has them.
        let echo = "weather forecast for the city of Oslo tomorrow";
        assert!(translator_input(
            &t,
            echo,
            Some("weather forecast for the city of Oslo tomorrow please"),
            None,
        )
        .is_ok_and(|r| r.contains("Description: weather")));
        Ok(())
    }

    #[test]
    fn the_user_s_earlier_messages_of_the_exchange_go_along() -> Result<(), String> {
        let t = tool()?;
        let earlier = "User's earlier message: I'm going to Rome";
        assert_eq!(
            translator_input(&t, "weather, 3 days", Some("for the next 3 days"), Some(earlier)),
            Ok(format!("{earlier}\nUser's latest message: for the next 3 days\nDescription: weather, 3 days"))
        );
        // The description is the latest message: the earlier ones still go along.
        assert_eq!(
            translator_input(&t, "Rome", Some("Rome"), Some(earlier)),
            Ok(format!("{earlier}\nDescription: Rome"))
        );
        let copied = "Weather forecast for a city. Needs: city (the city name). What the user asked for, in their own words";
        assert_eq!(
            translator_input(&t, copied, Some("tomorrow"), Some(earlier)),
            Ok(format!("{earlier}\nUser's latest message: tomorrow"))
        );
        assert_eq!(
            translator_input(&t, "Rome", None, Some("")),
            Ok("Rome".into())
        );
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
                read_call(&t, cut, &UTC),
                CallForm::Description(expected.into()),
                "{cut}"
            );
        }
        Ok(())
    }
}
