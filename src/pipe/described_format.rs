//! Formats a tool's descriptions ask for in words ("in the format 'YYYY-MM-DD'", "in the
//! format of 'City, State', such as 'Berkeley, CA'"): a rule the JSON Schema does not carry, so
//! validation passes a value that breaks it. Weak models break it often (`"Phoenix"` where the
//! tool wants `"Phoenix, AZ"`, `12/01/2026` for `YYYY-MM-DD`); a valid call the main model
//! wrote itself with such a value has that value fixed by the translator under
//! `check_calls = "translate"` (`pipe/resolve.rs`), and the translator's prompt states the
//! format among the tool's rules.
//!
//! Only the quoted text right after "format" counts, and only a shape it makes plain: runs of
//! date and time letters (`YYYY`, `MM`, `HH`) or of digits, and the separators between words
//! (the comma of `City, State`). A quote with no separator and no digits says nothing checkable.

use serde_json::Value;

/// Longest quoted template read.
const TEMPLATE_LIMIT: usize = 40;
/// Most characters between "format" and its quote.
const GAP_LIMIT: usize = 24;
/// Deepest nesting of properties walked.
const DEPTH_LIMIT: usize = 8;

/// One value of a call not in the format its property's description asks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OffFormat {
    /// Where it is, as a JSON pointer (`/city`, `/stops/0/date`).
    pub pointer: String,
    pub value: String,
    /// The formats the description gives, as written there.
    pub formats: Vec<String>,
}

impl OffFormat {
    /// The property's name as a reader writes it: `city`, `legs.1.date`.
    pub(crate) fn name(&self) -> String {
        self.pointer
            .trim_start_matches('/')
            .split('/')
            .map(|part| part.replace("~1", "/").replace("~0", "~"))
            .collect::<Vec<_>>()
            .join(".")
    }
}

#[derive(Debug, PartialEq)]
enum Piece {
    Digits(usize),
    Sep(char),
}

/// A shape a value must have.
#[derive(Debug, PartialEq)]
enum Shape {
    /// Digits of fixed counts and the separators between them, the whole value.
    Digits(Vec<Piece>),
    /// These separators in this order, each with words before it when the template has
    /// them (`+1-XXX` has none before `+`); and words after the last when it has.
    Separated(Vec<(char, bool)>, bool),
}

impl Shape {
    fn of(template: &str) -> Option<Shape> {
        let template = template.trim();
        let date_letters = |c: char| matches!(c.to_ascii_lowercase(), 'y' | 'm' | 'd' | 'h' | 's');
        if template.chars().any(|c| c.is_ascii_alphanumeric())
            && template
                .chars()
                .all(|c| c.is_ascii_digit() || date_letters(c) || is_separator(c))
        {
            let mut pieces = Vec::new();
            for c in template.chars() {
                if is_separator(c) {
                    pieces.push(Piece::Sep(c));
                } else if let Some(Piece::Digits(n)) = pieces.last_mut() {
                    *n += 1;
                } else {
                    pieces.push(Piece::Digits(1));
                }
            }
            return Some(Shape::Digits(pieces));
        }
        let mut separators = Vec::new();
        let mut words = false;
        for c in template.chars() {
            if is_separator(c) {
                separators.push((c, words));
                words = false;
            } else if !c.is_whitespace() {
                words = true;
            }
        }
        (!separators.is_empty()).then_some(Shape::Separated(separators, words))
    }

    fn fits(&self, value: &str) -> bool {
        let value = value.trim();
        match self {
            Shape::Digits(pieces) => {
                let mut rest = value;
                for piece in pieces {
                    match piece {
                        Piece::Sep(c) => match rest.strip_prefix(*c) {
                            Some(after) => rest = after,
                            None => return false,
                        },
                        Piece::Digits(n) => {
                            let digits = rest.chars().take_while(char::is_ascii_digit).count();
                            if digits != *n {
                                return false;
                            }
                            rest = &rest[digits..];
                        }
                    }
                }
                rest.is_empty()
            }
            Shape::Separated(separators, words_after) => {
                let mut rest = value;
                for (c, words_before) in separators {
                    match rest.split_once(*c) {
                        Some((before, after)) if !words_before || !before.trim().is_empty() => {
                            rest = after
                        }
                        _ => return false,
                    }
                }
                !words_after || !rest.trim().is_empty()
            }
        }
    }
}

/// Punctuation that shapes a value (`,` `-` `/` `:` `.`), not white space or letters.
fn is_separator(c: char) -> bool {
    c.is_ascii_punctuation() && !matches!(c, '\'' | '"' | '`' | '_')
}

/// The quoted formats a description gives right after "format" (`formatted as`, `in the
/// format of`, `24-hour format (e.g., '18:30')`), alternatives joined by "or" included.
pub(crate) fn templates(description: &str) -> Vec<String> {
    let lower = description.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = lower.get(from..).and_then(|rest| rest.find("format")) {
        let start = from + at;
        from = start + "format".len();
        // The rest of the word: "formatted", "formats".
        let after_word = from
            + lower[from..]
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(lower.len() - from);
        let Some(gap_end) = lower[after_word..]
            .char_indices()
            .take(GAP_LIMIT)
            .find(|(_, c)| matches!(c, '\'' | '"' | '`'))
            .map(|(i, _)| after_word + i)
        else {
            continue;
        };
        if !connecting(&lower[after_word..gap_end]) {
            continue;
        }
        let mut at = gap_end;
        while let Some((template, next)) = quoted(description, at) {
            found.push(template);
            // "'City, State' or 'City, Country'"
            let rest = &lower[next..];
            let trimmed = rest.trim_start();
            let Some(after_or) = trimmed.strip_prefix("or ") else {
                break;
            };
            let skipped = rest.len() - after_or.trim_start().len();
            at = next + skipped;
        }
    }
    found.dedup();
    found
}

/// Whether the words between "format" and a quote only lead up to it ("of", "as", "e.g.").
fn connecting(gap: &str) -> bool {
    gap.split(|c: char| c.is_whitespace() || matches!(c, '(' | ':' | ',' | '.'))
        .filter(|w| !w.is_empty())
        .all(|w| {
            matches!(
                w,
                "of" | "as" | "like" | "is" | "e" | "g" | "eg" | "i" | "ie"
            )
        })
}

/// The text of the quote opening at `at` and the index after its closing mark.
fn quoted(text: &str, at: usize) -> Option<(String, usize)> {
    let mark = text.get(at..)?.chars().next()?;
    if !matches!(mark, '\'' | '"' | '`') {
        return None;
    }
    let body = &text[at + 1..];
    let end = body.find(mark)?;
    let inner = &body[..end];
    (!inner.trim().is_empty() && inner.chars().count() <= TEMPLATE_LIMIT)
        .then(|| (inner.to_owned(), at + 1 + end + 1))
}

/// The translator's rule for a property whose description asks a format: "city is in the
/// format 'City, State' (its description asks it): write the State too." Naming the parts
/// after the first is what gets a small translator to write them (measured with the 1.5B:
/// "Phoenix, AZ" with it, "Phoenix" without).
pub(crate) fn rule(name: &str, schema: &Value) -> Option<String> {
    if !is_free_string(schema) {
        return None;
    }
    let description = schema.get("description").and_then(Value::as_str)?;
    let formats = templates(description);
    let first = formats.iter().find(|t| Shape::of(t).is_some())?;
    let quoted: Vec<String> = formats.iter().map(|f| format!("'{f}'")).collect();
    let mut rule = format!(
        "{name} is in the format {} (its description asks it)",
        quoted.join(" or ")
    );
    if let Some(Shape::Separated(..)) = Shape::of(first) {
        let parts: Vec<&str> = first
            .split(is_separator)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let words = |p: &&str| p.chars().all(|c| c.is_alphabetic() || c == ' ');
        if parts.len() >= 2 && parts.iter().all(words) {
            rule.push_str(&format!(": write the {} too", parts[1..].join(" and the ")));
        }
    }
    rule.push('.');
    Some(rule)
}

/// A string property the schema leaves free (no `enum`, `const`, `format` or `pattern`).
pub(crate) fn is_free_string(schema: &Value) -> bool {
    !["enum", "const", "format", "pattern"]
        .iter()
        .any(|k| schema.get(k).is_some())
        && schema.get("type").is_none_or(|t| {
            t == "string"
                || t.as_array()
                    .is_some_and(|a| a.iter().any(|x| x == "string"))
        })
}

/// The values of `args` not in the format their property's description asks. A property
/// with an `enum`, `const`, `format` or `pattern` is left to the schema.
pub(crate) fn off_format(parameters: &Value, args: &Value) -> Vec<OffFormat> {
    let mut out = Vec::new();
    walk(parameters, args, String::new(), 0, &mut out);
    out
}

fn walk(schema: &Value, value: &Value, pointer: String, depth: usize, out: &mut Vec<OffFormat>) {
    if depth > DEPTH_LIMIT {
        return;
    }
    match value {
        Value::Object(members) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (key, member) in members {
                if let Some(property) = properties.get(key) {
                    let pointer =
                        format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                    walk(property, member, pointer, depth + 1, out);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.get("items") else {
                return;
            };
            for (i, item) in items.iter().enumerate() {
                walk(item_schema, item, format!("{pointer}/{i}"), depth + 1, out);
            }
        }
        Value::String(text) => {
            if !is_free_string(schema) || text.trim().is_empty() {
                return;
            }
            let Some(description) = schema.get("description").and_then(Value::as_str) else {
                return;
            };
            let formats = templates(description);
            let shapes: Vec<Shape> = formats.iter().filter_map(|t| Shape::of(t)).collect();
            if !shapes.is_empty() && !shapes.iter().any(|s| s.fits(text)) {
                out.push(OffFormat {
                    pointer,
                    value: text.clone(),
                    formats,
                });
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn city(description: &str) -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string", "description": description}}})
    }

    #[test]
    fn the_quote_after_format_is_the_format() {
        assert_eq!(
            templates("The location, in the format of 'City, State', such as 'Berkeley, CA' or 'New York, NY'."),
            vec!["City, State"]
        );
        assert_eq!(
            templates("Formatted as 'City, State' or 'City, Country' if abroad."),
            vec!["City, State", "City, Country"]
        );
        assert_eq!(
            templates("The start time, in 24-hour format 'HH:MM'."),
            vec!["HH:MM"]
        );
        assert_eq!(
            templates("The time in 24-hour format (e.g., '18:30' for 6:30 PM)."),
            vec!["18:30"]
        );
        assert_eq!(
            templates("The date, formatted as \"MM/DD/YYYY\"."),
            vec!["MM/DD/YYYY"]
        );
        // A quote that is no format: "the format of the movie showing, such as 'IMAX'".
        assert!(templates("The format of the movie showing, such as 'regular', '3D'.").is_empty());
        assert!(templates("The city name, e.g. 'Paris, France'.").is_empty());
    }

    #[test]
    fn shapes_of_dates_times_and_words() {
        let date = Shape::of("YYYY-MM-DD").unwrap();
        assert!(date.fits("2026-12-01"));
        assert!(!date.fits("12/01/2026"));
        assert!(!date.fits("2026-12-1"));
        assert!(!date.fits("2026-12-01T10:00:00"));
        let us = Shape::of("MM/DD/YYYY").unwrap();
        assert!(us.fits("12/01/2026") && !us.fits("2026-12-01"));
        let time = Shape::of("HH:MM").unwrap();
        assert!(time.fits("09:30") && !time.fits("9:30") && !time.fits("9:30 PM"));
        assert_eq!(Shape::of("18:30"), Shape::of("HH:MM"));
        let place = Shape::of("City, State").unwrap();
        assert!(place.fits("Phoenix, AZ") && place.fits("New York, NY"));
        assert!(!place.fits("Phoenix") && !place.fits(", AZ") && !place.fits("Phoenix,"));
        assert_eq!(Shape::of("regular"), None);
        let phone = Shape::of("+1-XXX-XXX-XXXX").unwrap();
        assert!(phone.fits("+1-555-123-4567") && !phone.fits("555 123 4567"));
    }

    #[test]
    fn the_translator_s_rule_names_the_parts_to_write() {
        let schema = |d: &str| json!({"type": "string", "description": d});
        assert_eq!(
            rule("city", &schema("The city, in the format 'City, State', such as 'Berkeley, CA'.")).as_deref(),
            Some("city is in the format 'City, State' (its description asks it): write the State too.")
        );
        assert_eq!(
            rule("date", &schema("The day, in the format 'YYYY-MM-DD'.")).as_deref(),
            Some("date is in the format 'YYYY-MM-DD' (its description asks it).")
        );
        assert_eq!(rule("city", &schema("The city.")), None);
        let mut listed = schema("The city, in the format of 'City, State'.");
        listed["enum"] = json!(["Phoenix, AZ"]);
        assert_eq!(rule("city", &listed), None);
    }

    #[test]
    fn a_call_s_values_off_their_described_format() {
        let schema = city("The city, in the format of 'City, State', such as 'Berkeley, CA'.");
        let off = off_format(&schema, &json!({"city": "Phoenix"}));
        assert_eq!(off.len(), 1);
        assert_eq!(off[0].pointer, "/city");
        assert_eq!(off[0].name(), "city");
        assert_eq!(off[0].formats, vec!["City, State"]);
        assert!(off_format(&schema, &json!({"city": "Phoenix, AZ"})).is_empty());
        // The schema's own rules come first.
        let mut with_enum = schema.clone();
        with_enum["properties"]["city"]["enum"] = json!(["Phoenix"]);
        assert!(off_format(&with_enum, &json!({"city": "Phoenix"})).is_empty());
        // Nested and in arrays.
        let nested = json!({"type": "object", "properties": {"legs": {"type": "array", "items":
            {"type": "object", "properties": {"date": {"type": "string",
            "description": "Departure, in the format 'YYYY-MM-DD'."}}}}}});
        let off = off_format(
            &nested,
            &json!({"legs": [{"date": "2026-12-01"}, {"date": "Dec 2"}]}),
        );
        assert_eq!(off.len(), 1);
        assert_eq!(off[0].pointer, "/legs/1/date");
        assert_eq!(off[0].name(), "legs.1.date");
        // No description, no format asked: nothing to say.
        assert!(off_format(&city("The city."), &json!({"city": "Phoenix"})).is_empty());
    }
}
