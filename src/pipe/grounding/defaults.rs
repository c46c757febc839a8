//! A default a property's description states in words: "If user doesn't specify, please use
//! 100", "Defaults to 'celsius'", "(default: 25)", "use 'en' when none is given". For a
//! required property nobody gave a value for, a value equal to it is the tool's own choice for
//! when the user says none: kept, not asked for (`walk`). An optional one is left out as
//! unsaid, since the tool falls back to it anyway.
//!
//! Read: the value right after a word of default ("default", "defaults to", "default value
//! is"), right after "otherwise", or right after a verb of using ("use", "assume", "set") in a
//! sentence that says the user gave none ("if not specified", "if user doesn't specify", "if
//! none") or before "unless". A value is a quoted text, a number, or one word. Not read: a use
//! with no absence ("if the user wants more, use 200"), or after another negation ("if the
//! passenger is not an adult, use 'child'"), a range ("between 3 and 100"), an example ("such
//! as 100"), "no default".

use serde_json::Value;

use super::tokens::{fold, tokenize, Kind};

/// Longest description read.
const DESCRIPTION_LIMIT: usize = 2_000;
/// Longest quoted default.
const QUOTED_LIMIT: usize = 64;
/// Most filler words between the trigger and its value ("defaults to the value of 5").
const FILLER_LIMIT: usize = 4;

/// Words between a trigger and the value it names.
const FILLER: &[&str] = &[
    "to", "is", "value", "of", "be", "will", "as", "it", "the", "a", "please", "set", "=", ":",
    "equal", "at", "always",
];

/// Verbs that name the value to use when none is given.
const USE: &[&str] = &[
    "use", "assume", "set", "choose", "pick", "pass", "put", "fill", "enter",
];

/// Words that say on their own, after "if" or "when", that the user gave no value.
const ABSENT: &[&str] = &[
    "none",
    "omitted",
    "unspecified",
    "unknown",
    "missing",
    "absent",
    "empty",
    "unset",
    "null",
    "blank",
    "nothing",
    "unsure",
    "unclear",
    "unprovided",
];

/// Negations that say so before a verb of giving ([`GIVEN`]): "if not specified", "if user
/// doesn't specify" ("t" of "doesn't").
const NOT: &[&str] = &["not", "t", "no", "never"];

/// Verbs of giving a value, as the start of their forms ("specif" of "specify", "specified").
const GIVEN: &[&str] = &[
    "specif", "give", "given", "provide", "mention", "state", "suppl", "pass", "set", "indicat",
    "say", "said", "know", "enter", "choose", "chose", "select", "request", "ask",
];

/// Whether `value` is the default the property's description states in words.
pub(super) fn described(value: &Value, schema: &Value) -> bool {
    let Some(description) = schema.get("description").and_then(Value::as_str) else {
        return false;
    };
    let wanted = match value {
        Value::Number(n) => n.as_f64().map(Wanted::Number),
        Value::String(s) if !s.trim().is_empty() && s.len() <= QUOTED_LIMIT => {
            Some(Wanted::Text(fold(s.trim())))
        }
        Value::Bool(b) => Some(Wanted::Text(b.to_string())),
        _ => None,
    };
    let Some(wanted) = wanted else {
        return false;
    };
    let description = head(description, DESCRIPTION_LIMIT);
    sentences(description).any(|sentence| defaults_in(sentence).iter().any(|said| wanted.is(said)))
}

enum Wanted {
    Number(f64),
    Text(String),
}

impl Wanted {
    fn is(&self, said: &str) -> bool {
        match self {
            Wanted::Number(n) => said
                .replace(',', "")
                .parse::<f64>()
                .is_ok_and(|s| (s - n).abs() < 1e-9),
            Wanted::Text(t) => fold(said.trim()) == *t,
        }
    }
}

/// The first `limit` bytes of `text`, cut at a character boundary.
fn head(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Sentences: split at a stop, a semicolon or a new line followed by white space (a decimal
/// point or a dotted code stays whole).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        let ends = matches!(b, b'\n')
            || (matches!(b, b'.' | b';' | b'!' | b'?')
                && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()));
        if ends {
            out.push(&text[start..i]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out.into_iter()
}

/// The defaults one sentence states.
fn defaults_in(sentence: &str) -> Vec<String> {
    let tokens = tokenize(sentence);
    // "if user doesn't specify", "if not given", "if none": the user gave no value. Not any
    // negation ("if the passenger is not an adult, use 'child'").
    let absent = tokens.iter().enumerate().any(|(i, t)| {
        matches!(t.folded.as_str(), "if" | "when" | "where")
            && tokens[i + 1..].iter().take(6).enumerate().any(|(k, t)| {
                let word = t.folded.as_str();
                ABSENT.contains(&word)
                    || (NOT.contains(&word)
                        && tokens[i + 2 + k..]
                            .iter()
                            .take(3)
                            .any(|g| GIVEN.iter().any(|v| g.folded.starts_with(v))))
            })
    });
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let word = t.folded.as_str();
        // "no default" names none; "by default, all types are retrieved" names no value.
        let before = tokens[..i].last().map(|p| p.folded.as_str());
        let named = matches!(word, "default" | "defaults" | "defaulted")
            && !matches!(before, Some("no" | "by"));
        // "use 'en' unless the user names another": the use before "unless".
        let unless_after = tokens[i + 1..].iter().any(|t| t.folded == "unless");
        let used = USE.contains(&word) && (absent || unless_after);
        // "true to include archived items, otherwise false": the value after "otherwise".
        let otherwise = word == "otherwise";
        if named || used || otherwise {
            if let Some(value) = value_after(sentence, t.end) {
                out.push(value);
            }
        }
    }
    out
}

/// The value right after byte `at` of `sentence`, past a few filler words.
fn value_after(sentence: &str, at: usize) -> Option<String> {
    let mut rest = &sentence[at..];
    for _ in 0..=FILLER_LIMIT {
        rest = rest.trim_start();
        if let Some(quote) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '\'' | '"' | '`'))
        {
            let inner = &rest[quote.len_utf8()..];
            let close = inner.find(quote)?;
            return (close > 0 && close <= QUOTED_LIMIT).then(|| inner[..close].to_owned());
        }
        let tokens = tokenize(rest);
        let first = tokens.first()?;
        if FILLER.contains(&first.folded.as_str()) {
            rest = &rest[first.end..];
            continue;
        }
        return match first.kind {
            Kind::Number => Some(first.lower.clone()),
            Kind::Word => Some(rest[first.start..first.end].to_owned()),
            Kind::Punct => None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn said(description: &str, value: Value) -> bool {
        described(&value, &json!({ "description": description }))
    }

    #[test]
    fn a_default_said_in_words() {
        let per_page = "Specifies the number of entries per page returned. Value must be between 3 and 100. If user doesn't specify, please use 100.";
        assert!(said(per_page, json!(100)));
        assert!(!said(per_page, json!(3)), "a bound is no default");
        assert!(!said(per_page, json!(50)));
        assert!(said(
            "Unit of temperature. Defaults to 'celsius'.",
            json!("Celsius")
        ));
        assert!(said("The page size (default: 25)", json!(25)));
        assert!(said("Results per page; default is 10.", json!(10.0)));
        assert!(said("Language code. Use 'en' if not given.", json!("en")));
        assert!(said("Use 'en' unless the user names another.", json!("en")));
        assert!(said("Whether to notify. Defaults to false.", json!(false)));
        assert!(said(
            "Currency. If none is given, assume USD.",
            json!("USD")
        ));
        assert!(said(
            "Set to true to include archived items, otherwise false.",
            json!(false)
        ));
    }

    #[test]
    fn what_is_no_default() {
        // A use with no absence, an example, a bound, "no default", "by default".
        assert!(!said(
            "If the user wants more results, use 200.",
            json!(200)
        ));
        assert!(!said("Number of entries, such as 100.", json!(100)));
        assert!(!said("Value must be between 3 and 100.", json!(100)));
        assert!(!said("There is no default 5 here.", json!(5)));
        assert!(!said("By default, all types are retrieved.", json!("all")));
        assert!(!said("Defaults to 'celsius'.", json!("fahrenheit")));
        // A value in another sentence than the trigger's.
        assert!(!said(
            "If not specified, use the current date. Example: 7.",
            json!(7)
        ));
        assert!(!described(&json!(100), &json!({"type": "integer"})));
        // A value to set for a case, or under another negation, is no default.
        assert!(!said(
            "Set to true to include archived items, otherwise false.",
            json!(true)
        ));
        assert!(!said(
            "If the passenger is not an adult, use 'child'.",
            json!("child")
        ));
    }
}
