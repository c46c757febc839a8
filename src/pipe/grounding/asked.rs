//! A translator's question checked against the user's words: which of the tool's fields it
//! asks for ([`asked_fields`]), and which sentence of the user's message already holds a value
//! of such a field's kind ([`answered`]), read by the recognizers the rest of grounding uses. A
//! translator that asks for what the user wrote ("When should I remind you?" for "Every Monday
//! at 08:00") is then pointed at those words instead of its question going back.
//!
//! What counts as holding a field's value, by the field's schema: a number not read as a time
//! of day for an `integer` or `number`; a day for a `date` (`format`, a layout its description
//! spells, a name about a day); a time of day for a `time`; a member said for an `enum`; a run
//! of words its `pattern` takes, as written or with the separators dropped ("+44 20 7946 0958"
//! for E.164); for any other string, the field's own words. A number is not told apart by what
//! it counts: "3 boxes" holds a value for any number field the question is about.

use std::collections::HashSet;

use jiff::civil::Date;
use serde_json::Value;

use super::evidence::Evidence;
use super::facts::Role;
use super::tokens::{stem, words_of};
use super::words::{is, STOPWORDS};

/// Words of a field's name that say nothing about which field it is: a name made only of them
/// ("id", "type") is asked for by all of its words, any other by one of the rest.
const GENERIC: &[&str] = &[
    "value", "type", "name", "id", "number", "data", "info", "text", "string", "list", "field",
    "item", "mode", "kind", "of", "the", "a", "an", "to", "in", "on", "at", "for", "by", "is",
];

/// The longest run of words a `pattern` is tried on ("+1 (555) 010 0199 ext 2").
const PATTERN_WORDS: usize = 8;

/// At most this many sentences are pointed out for one question.
const MOST_SENTENCES: usize = 3;

/// A sentence of the user's message that holds a value for `fields` (top-level properties).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub fields: Vec<String>,
    pub sentence: String,
}

/// The sentences of `text` (the user's message) that hold a value for a field `question` asks
/// for, with those fields: only the fields some `required` of the schema names (at any depth,
/// `then` included) when any of those is held. Empty when the question names no field of
/// `schema`, or the text holds none of the fields it names: then the question is one to ask.
pub fn answered(question: &str, schema: &Value, text: &str, today: Date) -> Vec<Answer> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let sentences: Vec<(&str, Evidence)> = sentences(text)
        .into_iter()
        .map(|s| (s, Evidence::new(s, today)))
        .collect();
    let mut held: Vec<(&str, &str)> = Vec::new();
    for name in asked_fields(question, schema) {
        let Some(field) = properties.get(&name) else {
            continue;
        };
        let kinds = kinds(&name, field);
        if let Some((sentence, _)) = sentences
            .iter()
            .find(|(_, evidence)| kinds.iter().any(|k| k.held(&name, field, evidence)))
        {
            let name = properties
                .get_key_value(&name)
                .map_or("", |(k, _)| k.as_str());
            held.push((name, sentence));
        }
    }
    let required = required_anywhere(schema);
    if held.iter().any(|(name, _)| required.contains(*name)) {
        held.retain(|(name, _)| required.contains(*name));
    }
    let mut answers: Vec<Answer> = Vec::new();
    for (name, sentence) in held {
        match answers.iter_mut().find(|a| a.sentence == sentence) {
            Some(answer) => answer.fields.push(name.to_owned()),
            None => answers.push(Answer {
                fields: vec![name.to_owned()],
                sentence: crate::text::cut(sentence, 400),
            }),
        }
    }
    answers.truncate(MOST_SENTENCES);
    answers
}

/// The top-level properties of `schema` that `question` asks for: those whose name's words it
/// says most of (by stem, whole words, any case: "the day of the month" is `day_of_month`, not
/// `day_of_week`); else those two content words of whose description it says; else those of
/// the kind it asks about ("when" a date or time, "how many" or "how much" a number).
fn asked_fields(question: &str, schema: &Value) -> Vec<String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let said: HashSet<String> = words_of(question)
        .iter()
        .flat_map(|w| [w.clone(), stem(w)])
        .collect();
    let has = |word: &str| said.contains(word) || said.contains(&stem(word));
    let scores: Vec<(&String, usize)> = properties
        .keys()
        .map(|name| (name, name_said(name, &has)))
        .collect();
    let best = scores.iter().map(|(_, score)| *score).max().unwrap_or(0);
    let mut asked: Vec<String> = scores
        .iter()
        .filter(|(_, score)| best > 0 && *score == best)
        .map(|(name, _)| (*name).clone())
        .collect();
    if asked.is_empty() {
        asked = properties
            .iter()
            .filter(|(_, field)| description_said(field, &has))
            .map(|(name, _)| name.clone())
            .collect();
    }
    if !asked.is_empty() {
        return asked;
    }
    let lower = question.to_lowercase();
    let when = has("when");
    let how_many = lower.contains("how many") || lower.contains("how much");
    properties
        .iter()
        .filter(|(name, field)| {
            let kinds = kinds(name, field);
            (when && kinds.iter().any(|k| k.temporal(name)))
                || (how_many && kinds.contains(&Kind::Number))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// How many of a name's distinctive words are said; for a name of generic words only, 1 when
/// all of them are, else 0.
fn name_said(name: &str, has: &impl Fn(&str) -> bool) -> usize {
    let words = words_of(name);
    let distinctive: Vec<&String> = words.iter().filter(|w| !is(GENERIC, w)).collect();
    if distinctive.is_empty() {
        return usize::from(!words.is_empty() && words.iter().all(|w| has(w)));
    }
    distinctive.iter().filter(|w| has(w)).count()
}

/// Two content words of the field's description are said.
fn description_said(field: &Value, has: &impl Fn(&str) -> bool) -> bool {
    let Some(description) = field.get("description").and_then(Value::as_str) else {
        return false;
    };
    let content: HashSet<String> = words_of(description)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !is(STOPWORDS, w) && !is(GENERIC, w))
        .map(|w| stem(&w))
        .collect();
    content.iter().filter(|w| has(w)).count() >= 2
}

/// What a value of a field is, as far as telling whether a sentence holds one.
#[derive(Debug, PartialEq)]
enum Kind {
    Number,
    Date,
    Time,
    Member,
    Pattern(String),
    Words,
}

impl Kind {
    /// A date or time: what "when" asks for. An enum is one when its name is about a day.
    fn temporal(&self, name: &str) -> bool {
        match self {
            Kind::Date | Kind::Time => true,
            Kind::Member | Kind::Number => about_a_day(name),
            _ => false,
        }
    }

    /// `evidence` (one sentence) holds a value of this kind for the field `name`.
    fn held(&self, name: &str, field: &Value, evidence: &Evidence) -> bool {
        let facts = &evidence.facts;
        match self {
            Kind::Number => facts
                .number_spans
                .iter()
                .any(|s| facts.roles.get(&s.start) != Some(&Role::Time)),
            Kind::Date => !facts.dates.is_empty() || !facts.weekdays.is_empty(),
            Kind::Time => !facts.times.is_empty(),
            Kind::Member => member_said(field, evidence),
            Kind::Pattern(pattern) => pattern_held(pattern, &evidence.text),
            Kind::Words => {
                let content: Vec<String> = words_of(name)
                    .into_iter()
                    .filter(|w| w.chars().count() >= 3 && !is(GENERIC, w))
                    .collect();
                !content.is_empty() && content.iter().all(|w| evidence.has_word(w))
            }
        }
    }
}

/// The kinds a value of the field `name` may be of (none for an object, an array, a boolean).
fn kinds(name: &str, field: &Value) -> Vec<Kind> {
    let types = types(field);
    let typed = |t: &str| types.is_empty() || types.contains(t);
    if field.get("enum").is_some() || types.contains("enum") {
        return vec![Kind::Member];
    }
    if types.contains("integer") || types.contains("number") {
        return vec![Kind::Number];
    }
    if !typed("string") {
        return Vec::new();
    }
    let mut kinds = Vec::new();
    let format = field.get("format").and_then(Value::as_str).unwrap_or("");
    let layout = field
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    let date_time = format == "date-time" || layout.contains("date-time") || layout.contains("iso");
    if format == "date" || date_time || layout.contains("yyyy") || about_a_day(name) {
        kinds.push(Kind::Date);
    }
    if format == "time" || date_time || layout.contains("hh:mm") {
        kinds.push(Kind::Time);
    }
    if let Some(pattern) = field.get("pattern").and_then(Value::as_str) {
        kinds.push(Kind::Pattern(pattern.to_owned()));
    }
    if kinds.is_empty() {
        kinds.push(Kind::Words);
    }
    kinds
}

/// The JSON types a field admits, pydantic's `anyOf` with `null` read through; `enum` when
/// one of its branches is an enum.
fn types(field: &Value) -> HashSet<&str> {
    let mut out = HashSet::new();
    match field.get("type") {
        Some(Value::String(t)) => {
            out.insert(t.as_str());
        }
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str)),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        for branch in field
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.extend(types(branch));
            if branch.get("enum").is_some() {
                out.insert("enum");
            }
        }
    }
    out.remove("null");
    out
}

/// A name about a day ("date", "due_day", "birthday", "deadline").
fn about_a_day(name: &str) -> bool {
    words_of(name).iter().any(|w| {
        matches!(w.as_str(), "date" | "day" | "deadline" | "birthday" | "dob")
            || w.ends_with("date")
    })
}

/// One of the field's `enum` members is said (as grounding's `choice` rule reads it, without
/// the field's subject standing in for a member).
fn member_said(field: &Value, evidence: &Evidence) -> bool {
    let members: Vec<Value> = std::iter::once(field)
        .chain(
            field
                .get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        )
        .filter_map(|f| f.get("enum").and_then(Value::as_array))
        .flatten()
        .cloned()
        .collect();
    members.iter().any(|member| match member {
        Value::String(m) => super::choice::said(m, &members, "", field, evidence),
        other => evidence.written_alone(&other.to_string()),
    })
}

/// A run of up to [`PATTERN_WORDS`] words of `text` matches `pattern`, as written or with the
/// separators between digits and letters dropped.
fn pattern_held(pattern: &str, text: &str) -> bool {
    let Ok(check) = jsonschema::validator_for(&serde_json::json!({ "pattern": pattern })) else {
        return false;
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    let edge = |c: char| matches!(c, ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '.');
    (0..words.len()).any(|from| {
        (from + 1..=words.len().min(from + PATTERN_WORDS)).any(|to| {
            let run = words[from..to].join(" ");
            let run = run.trim_matches(edge);
            let bare: String = run
                .chars()
                .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '.' | '(' | ')' | '/'))
                .collect();
            [run, bare.as_str()]
                .iter()
                .any(|r| !r.is_empty() && check.is_valid(&Value::from(*r)))
        })
    })
}

/// Every property name some `required` of `schema` names, at any depth (`allOf`, `then`, ...).
fn required_anywhere(schema: &Value) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(object) => {
                for (key, value) in object {
                    match (key.as_str(), value) {
                        ("required", Value::Array(names)) => {
                            out.extend(names.iter().filter_map(Value::as_str).map(str::to_owned))
                        }
                        ("properties", _) => {}
                        _ => stack.push(value),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

/// The sentences of `text`: ended by a line break, or by `.`, `!` or `?` before white space
/// or the end ("E.164" and "3.5" stay whole).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends =
            c == '\n' || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace));
        if ends {
            let end = at + c.len_utf8();
            out.push(text[start..end].trim());
            start = end;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn today() -> Date {
        jiff::civil::date(2026, 11, 25)
    }

    fn reminder() -> Value {
        json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "Short human-readable reminder text."},
                "schedule_type": {"type": "string", "enum": ["once", "daily", "weekly", "monthly"]},
                "at": {"type": "string", "description": "HH:MM for recurring schedules, ISO-8601 date-time for once."},
                "day_of_week": {"type": "string", "enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
                "day_of_month": {"type": "integer", "minimum": 1, "maximum": 31},
                "window_start": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "description": "For interval: earliest fire time (HH:MM)."}
            },
            "required": ["message", "schedule_type"],
            "allOf": [
                {"if": {"properties": {"schedule_type": {"const": "weekly"}}}, "then": {"required": ["at", "day_of_week"]}},
                {"if": {"properties": {"schedule_type": {"const": "monthly"}}}, "then": {"required": ["at", "day_of_month"]}}
            ]
        })
    }

    fn fields(question: &str, schema: &Value, text: &str) -> Vec<String> {
        answered(question, schema, text, today())
            .into_iter()
            .flat_map(|a| a.fields)
            .collect()
    }

    #[test]
    fn a_question_is_about_the_fields_it_names_or_the_kind_it_asks() {
        let schema = reminder();
        assert_eq!(
            asked_fields("What day of the month?", &schema),
            vec!["day_of_month"]
        );
        assert_eq!(
            asked_fields("Which days of the week?", &schema),
            vec!["day_of_week"],
            "a plural is the field's word"
        );
        assert_eq!(
            asked_fields("Which day?", &schema),
            vec!["day_of_week", "day_of_month"],
            "as many words of each"
        );
        // Nothing named: "when" asks for the dates and times.
        assert_eq!(
            asked_fields("When should I remind you?", &schema),
            vec!["at", "day_of_week", "day_of_month", "window_start"]
        );
        // Two words of a description name its field; one does not.
        let phone = json!({"properties": {"to": {"type": "string", "description": "Recipient phone number in E.164"}}});
        assert_eq!(
            asked_fields("Which phone number, in E.164?", &phone),
            vec!["to"]
        );
        assert!(asked_fields("Which number?", &phone).is_empty());
        // A name of generic words is asked for by all of them; "at" in a question is no `at`.
        assert!(!asked_fields(
            "Look at what?",
            &json!({"properties": {"id": {"type": "string"}}})
        )
        .contains(&"id".to_owned()));
    }

    #[test]
    fn what_the_user_wrote_is_pointed_out() {
        let schema = reminder();
        let found = answered(
            "When should I remind you?",
            &schema,
            "Remind me to water the plants. Every Monday at 08:00",
            today(),
        );
        assert_eq!(
            found,
            vec![Answer {
                fields: vec!["at".into(), "day_of_week".into()],
                sentence: "Every Monday at 08:00".into()
            }],
            "the required fields held, not the optional window"
        );
        assert_eq!(
            fields(
                "Please give the day of the month.",
                &schema,
                "On the 1st of every month, remind me to pay rent"
            ),
            vec!["day_of_month"]
        );
        let alert = json!({"properties": {"metric": {"type": "string"}, "percentile": {"type": "number"}}, "required": ["metric", "percentile"]});
        assert_eq!(
            fields(
                "percentile is required",
                &alert,
                "Alert me when the 99th percentile of latency is over 2 s"
            ),
            vec!["percentile"]
        );
        let sms = json!({"properties": {"phone": {"type": "string", "pattern": "^\\+[1-9][0-9]{6,14}$"}, "body": {"type": "string"}}});
        let found = answered(
            "What is the phone number in E.164 format?",
            &sms,
            "Text +44 20 7946 0958: the build failed.",
            today(),
        );
        assert_eq!(found[0].fields, vec!["phone"]);
        assert_eq!(
            found[0].sentence,
            "Text +44 20 7946 0958: the build failed."
        );
        // A plain string is held by its own words.
        let ship = json!({"properties": {"delivery_address": {"type": "string"}}});
        assert_eq!(
            fields(
                "What is the delivery address?",
                &ship,
                "Ship it. My delivery address is 5 Main St."
            ),
            vec!["delivery_address"]
        );
    }

    #[test]
    fn what_the_user_did_not_write_is_still_asked() {
        let schema = reminder();
        let ship = json!({"properties": {"delivery_address": {"type": "string"}, "boxes": {"type": "integer"}}});
        for (question, schema, text) in [
            (
                "What is the delivery address?",
                &ship,
                "Ship 3 boxes of paper to me tomorrow",
            ),
            (
                "When should I remind you?",
                &schema,
                "remind me to call John",
            ),
            // 08:00 is a time of day, not a day of the month.
            (
                "What day of the month?",
                &schema,
                "remind me at 08:00 to pay rent",
            ),
            ("How many boxes?", &ship, "Ship paper to my office"),
        ] {
            assert!(
                fields(question, schema, text).is_empty(),
                "{question} / {text}"
            );
        }
        let sms = json!({"properties": {"phone": {"type": "string", "pattern": "^\\+[1-9][0-9]{6,14}$"}}});
        assert!(fields(
            "What is the phone number?",
            &sms,
            "text my mother that I am late"
        )
        .is_empty());
        // A question that names no field of the tool is asked as it is.
        assert!(fields("Are you sure?", &schema, "Every Monday at 08:00").is_empty());
    }

    /// The limit: a number is not told apart by what it counts, so a number the user gave
    /// for another field is pointed out for the one asked about (the translator, pointed at
    /// it, still decides; asked once more, it may ask again).
    #[test]
    fn a_number_of_another_field_is_pointed_out_too() {
        let order =
            json!({"properties": {"guests": {"type": "integer"}, "boxes": {"type": "integer"}}});
        assert_eq!(
            fields("How many guests?", &order, "Send 3 boxes of wine"),
            vec!["guests"]
        );
    }

    #[test]
    fn sentences_end_at_a_mark_before_a_space_or_a_line_break() {
        assert_eq!(
            sentences("Call +1 555. Use E.164, 3.5 stays!\nNext line? yes"),
            vec!["Call +1 555.", "Use E.164, 3.5 stays!", "Next line?", "yes"]
        );
        assert!(sentences("  ").is_empty());
    }
}
