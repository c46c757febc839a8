//! Deterministic repairs of call arguments, made only where the schema leaves one reading:
//! `"2"` to `2` for a number, `"true"` to `true` for a boolean, an enum value in the wrong
//! case, `null` for a field that strict mode requires and that allows null, and an unknown
//! field dropped under `additionalProperties: false`. Strings keep their value in the layout
//! asked: a date or time to RFC 3339 for its `format` (a date-time without an offset gets the
//! configured zone's) or to the layout its description spells ('DD/MM/YYYY'), and a string
//! that breaks its `pattern` only by separators written without them (`+44 20 7946 0958` to
//! `+442079460958`). A field that is no object, given as an object of itself alone (`{"lock":
//! {"lock": "front_door"}}`, as small models write), is unwrapped; one value where the schema
//! takes only a list (`"metrics": "temperature"`) becomes a list of it. Each repair is named, so it
//! can be logged; nothing else is touched.
//! Strict schemas as pydantic writes them are read through: `Optional[X]` as
//! `anyOf: [X, {"type": "null"}]`, nested models as `$ref` into `$defs`.

use jiff::tz::TimeZone;
use serde_json::{Map, Value};

use super::dates::{self, Layout};
use super::described_format;

/// The most nesting levels repaired (a client's schema can nest without end).
const MAX_DEPTH: usize = 16;

/// Repairs `value` in place against `schema`; returns what was changed, one line each. `tz`
/// (`[translation] timezone`) gives a date-time without an offset the user's.
pub(crate) fn repair(value: &mut Value, schema: &Value, tz: &TimeZone) -> Vec<String> {
    let mut done = Vec::new();
    let at_root = Spot {
        root: schema,
        tz,
        path: String::new(),
        depth: 0,
    };
    repair_at(value, schema, &at_root, &mut done);
    done
}

/// Where a repair is: the root schema (for `$ref`), the zone, the path for the log, the depth.
struct Spot<'a> {
    root: &'a Value,
    tz: &'a TimeZone,
    path: String,
    depth: usize,
}

impl<'a> Spot<'a> {
    fn child(&self, name: impl std::fmt::Display) -> Spot<'a> {
        Spot {
            root: self.root,
            tz: self.tz,
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
        schema = crate::json::resolved(schema, root);
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
    // One value where only a list is taken ("metrics": "temperature"): a list of it.
    if only_an_array(schema) && !value.is_array() && !value.is_null() {
        done.push(format!("{} {value} -> [{value}]", at(&spot.path)));
        *value = Value::Array(vec![value.take()]);
    }
    let fixed = match value {
        Value::String(text) => string(text, schema, spot.tz).map(Value::String),
        _ => None,
    };
    if let Some(fixed) = fixed.or_else(|| scalar(value, schema)) {
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

/// Whether `schema` takes an array and nothing else.
fn only_an_array(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => {
            types.iter().all(|t| t == "array" || t == "null") && types.iter().any(|t| t == "array")
        }
        _ => false,
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
            Some(field) => {
                if let Some(inner) = wrapped_in_itself(field, name, prop_schema, spot.root) {
                    done.push(format!(
                        "{} unwrapped `{name}` from an object of itself",
                        at(path)
                    ));
                    *field = inner;
                }
                repair_at(field, prop_schema, &spot.child(name), done)
            }
            // Strict mode lists optional fields as required and nullable: null says "not given".
            None if required.contains(&name.as_str()) && nullable(prop_schema, spot.root) => {
                map.insert(name.clone(), Value::Null);
                done.push(format!("{} set the absent `{name}` to null", at(path)));
            }
            None => {}
        }
    }
}

/// The value of a field `name` given as `{name: value}` where the field takes no object.
fn wrapped_in_itself(field: &Value, name: &str, schema: &Value, root: &Value) -> Option<Value> {
    let Value::Object(inner) = field else {
        return None;
    };
    let schema = effective(schema, root, field);
    let takes_objects = allows(schema, "object") || schema.get("properties").is_some();
    let typed = schema.get("type").is_some() || schema.get("enum").is_some();
    match (inner.len(), inner.get(name)) {
        (1, Some(value)) if typed && !takes_objects && !value.is_object() => Some(value.clone()),
        _ => None,
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

/// A string in the layout its schema asks, where only the layout was wrong: a date or time
/// (`format`, or a layout its description spells), then the separators of a `pattern`.
fn string(text: &str, schema: &Value, tz: &TimeZone) -> Option<String> {
    let typed = schema.get("type").is_none() || allows(schema, "string");
    if !typed || schema.get("enum").is_some() || schema.get("const").is_some() {
        return None;
    }
    let dated = dated(text, schema, tz);
    let current = dated.as_deref().unwrap_or(text);
    schema
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(|pattern| unseparated(current, pattern))
        .or(dated)
}

/// A date or time written again as its `format` asks (RFC 3339), or, for a string the schema
/// leaves free, in the first layout its description spells that can carry it. `None` for a
/// value already so written, or one with two readings or none.
fn dated(text: &str, schema: &Value, tz: &TimeZone) -> Option<String> {
    let written = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => dates::read(text)?.date_time(tz)?,
        Some("date") => dates::read(text)?.date()?,
        Some("time") => dates::read(text)?.time(tz)?,
        Some(_) => return None,
        None if described_format::is_free_string(schema) => {
            let description = schema.get("description").and_then(Value::as_str)?;
            let layouts: Vec<Layout> = described_format::templates(description)
                .iter()
                .filter_map(|t| Layout::of(t))
                .collect();
            if layouts.iter().any(|l| l.fits(text)) {
                return None;
            }
            let moment = dates::read(text)?;
            layouts.iter().find_map(|l| l.write(&moment))?
        }
        None => return None,
    };
    // `t` and `z` are RFC 3339 too.
    (!written.eq_ignore_ascii_case(text)).then_some(written)
}

/// What only separates a string's digits and letters; the one thing a `pattern` repair drops.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '.' | '(' | ')' | '/')
}

/// `text` without its white space, else without any separator, when that and not `text`
/// matches `pattern` (compiled by jsonschema, so it reads it as validation does).
fn unseparated(text: &str, pattern: &str) -> Option<String> {
    if !text.chars().any(is_separator) {
        return None;
    }
    let check = jsonschema::validator_for(&serde_json::json!({ "pattern": pattern })).ok()?;
    if check.is_valid(&Value::from(text)) {
        return None;
    }
    let spaceless: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let bare: String = text.chars().filter(|c| !is_separator(*c)).collect();
    [spaceless, bare]
        .into_iter()
        .find(|c| !c.is_empty() && c != text && check.is_valid(&Value::from(c.as_str())))
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
        let done = repair(&mut value, &schema(), &TimeZone::UTC);
        assert_eq!(
            value,
            json!({"count": 2, "ratio": 0.5, "on": true, "unit": "celsius", "id": "42",
                "items": [{"n": 7}], "note": null})
        );
        assert_eq!(done.len(), 7, "{done:?}");
        assert!(done.iter().any(|d| d.contains("`extra`")), "{done:?}");
    }

    #[test]
    fn one_value_where_only_a_list_is_taken_becomes_a_list_of_it() {
        let schema = json!({"type": "object", "properties": {
            "metrics": {"type": "array", "items": {"type": "string", "enum": ["temperature", "humidity"]}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "either": {"type": ["array", "string"]},
            "maybe": {"type": ["array", "null"], "items": {"type": "string"}}}});
        let mut value = json!({"metrics": "Temperature", "ids": "7", "either": "x", "maybe": null});
        let done = repair(&mut value, &schema, &TimeZone::UTC);
        // Wrapped, then its item repaired as any item is; a string the schema takes stays one.
        assert_eq!(
            value,
            json!({"metrics": ["temperature"], "ids": [7], "either": "x", "maybe": null}),
            "{done:?}"
        );
    }

    #[test]
    fn a_field_wrapped_in_an_object_of_itself_is_unwrapped() {
        let schema = json!({"type": "object", "properties": {
            "lock": {"type": "string"}, "count": {"type": "integer"},
            "where": {"type": "object", "properties": {"where": {"type": "string"}}},
            "free": {}}});
        let mut value = json!({"lock": {"lock": "front_door"}, "count": {"count": "3"}});
        let done = repair(&mut value, &schema, &TimeZone::UTC);
        assert_eq!(value, json!({"lock": "front_door", "count": 3}), "{done:?}");
        // An object field, an object of other keys, or a field of no type stay as written.
        for kept in [
            json!({"where": {"where": "Rome"}}),
            json!({"lock": {"id": "front_door"}}),
            json!({"lock": {"lock": "a", "mode": "b"}}),
            json!({"free": {"free": 1}}),
        ] {
            let mut value = kept.clone();
            repair(&mut value, &schema, &TimeZone::UTC);
            assert_eq!(value, kept);
        }
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
        let done = repair(&mut value, &schema, &TimeZone::UTC);
        assert_eq!(
            value,
            json!({"city": "Paris", "days": 3, "unit": "celsius",
                   "window": {"start": "09:00", "hours": null}})
        );
        assert_eq!(done.len(), 4, "{done:?}");
        let mut absent = json!({"city": "Rome"});
        repair(&mut absent, &schema, &TimeZone::UTC);
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
        assert!(repair(&mut value, &schema(), &TimeZone::UTC).is_empty());
        assert_eq!(value, before);
        // Two enum values equal but for case: no single reading.
        let s = json!({"properties": {"m": {"enum": ["Auto", "AUTO"]}}});
        let mut v = json!({"m": "auto"});
        assert!(repair(&mut v, &s, &TimeZone::UTC).is_empty());
    }

    fn one(schema: Value, value: &str, tz: &TimeZone) -> (Value, Vec<String>) {
        let schema = json!({"type": "object", "properties": {"v": schema}});
        let mut args = json!({ "v": value });
        let done = repair(&mut args, &schema, tz);
        (args["v"].clone(), done)
    }

    #[test]
    fn a_date_time_without_an_offset_gets_the_zone_s() -> Result<(), String> {
        let paris = TimeZone::get("Europe/Paris").map_err(|e| e.to_string())?;
        let format = |f: &str| json!({"type": "string", "format": f});
        for written in [
            "2026-11-25T09:00:00",
            "2026-11-25 09:00",
            "2026-11-25T09:00",
        ] {
            let (fixed, done) = one(format("date-time"), written, &paris);
            assert_eq!(fixed, "2026-11-25T09:00:00+01:00", "{written}");
            assert_eq!(
                done,
                vec![format!(
                    "at /v: \"{written}\" -> \"2026-11-25T09:00:00+01:00\""
                )]
            );
        }
        // Summer time, by the date's own offset.
        let (fixed, _) = one(format("date-time"), "2026-07-01 09:00", &paris);
        assert_eq!(fixed, "2026-07-01T09:00:00+02:00");
        let (fixed, _) = one(format("date"), "2026-11-25T09:00:00", &paris);
        assert_eq!(fixed, "2026-11-25");
        let (fixed, _) = one(format("time"), "9:00", &TimeZone::UTC);
        assert_eq!(fixed, "09:00:00+00:00");
        // What validation says of the results.
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&json!({"format": "time"}))
            .map_err(|e| e.to_string())?;
        assert!(validator.is_valid(&fixed));
        Ok(())
    }

    #[test]
    fn a_date_time_with_an_offset_or_no_reading_is_left_alone() -> Result<(), String> {
        let paris = TimeZone::get("Europe/Paris").map_err(|e| e.to_string())?;
        let format = |f: &str| json!({"type": "string", "format": f});
        for (f, written) in [
            ("date-time", "2026-11-25T09:00:00-05:00"),
            ("date-time", "2026-11-25t09:00:00z"),
            ("date-time", "tomorrow at 9"),
            ("date-time", "2026-11-25"),
            ("date-time", "03/04/2026 09:00"),
            // No 02:30 that day in Paris: the clocks go from 02:00 to 03:00.
            ("date-time", "2026-03-29T02:30:00"),
            ("date", "2026-11-25"),
            ("date", "next Friday"),
            ("time", "09:00:00+01:00"),
            ("time", "nine"),
            ("email", "2026-11-25 09:00"),
        ] {
            let (fixed, done) = one(format(f), written, &paris);
            assert_eq!(fixed, written, "{f}");
            assert!(done.is_empty(), "{done:?}");
        }
        Ok(())
    }

    #[test]
    fn a_layout_the_description_spells_is_written() {
        let described = |layout: &str| json!({"type": "string", "description": format!("The day, in the format '{layout}'.")});
        let utc = TimeZone::UTC;
        for (layout, written, fixed) in [
            (
                "YYYY-MM-DD HH:mm:ss",
                "2026-11-25T09:00",
                "2026-11-25 09:00:00",
            ),
            ("DD/MM/YYYY", "2026-11-05", "05/11/2026"),
            ("DD/MM/YYYY", "11/25/2026", "25/11/2026"),
            ("MM-DD-YYYY", "Nov 5, 2026", "11-05-2026"),
            ("HH:MM", "9:30 PM", "21:30"),
            (
                "YYYY-MM-DDTHH:MM:SS",
                "2026-11-25 09:00",
                "2026-11-25T09:00:00",
            ),
        ] {
            assert_eq!(one(described(layout), written, &utc).0, fixed, "{layout}");
        }
        for (layout, written) in [
            // In the layout already; two readings; no date; an offset the layout cannot carry.
            ("DD/MM/YYYY", "05/11/2026"),
            ("YYYY-MM-DD", "03/04/2026"),
            ("YYYY-MM-DD", "soon"),
            ("HH:MM", "09:30+02:00"),
            ("City, State", "2026-11-25"),
        ] {
            let (fixed, done) = one(described(layout), written, &utc);
            assert_eq!(fixed, written, "{layout}");
            assert!(done.is_empty(), "{done:?}");
        }
        // The schema's own rules come first.
        let mut listed = described("YYYY-MM-DD");
        listed["enum"] = json!(["11/25/2026"]);
        assert_eq!(one(listed, "11/25/2026", &utc).0, "11/25/2026");
    }

    #[test]
    fn separators_a_pattern_does_not_take_are_dropped() {
        let utc = TimeZone::UTC;
        let phone = json!({"type": "string", "pattern": "^\\+[1-9][0-9]{6,14}$"});
        let (fixed, done) = one(phone.clone(), "+44 20 7946 0958", &utc);
        assert_eq!(fixed, "+442079460958");
        assert_eq!(
            done,
            vec!["at /v: \"+44 20 7946 0958\" -> \"+442079460958\""]
        );
        assert_eq!(
            one(phone.clone(), "+1 (555) 123-4567", &utc).0,
            "+15551234567"
        );
        let card = json!({"type": "string", "pattern": "^[0-9]{16}$"});
        assert_eq!(
            one(card.clone(), "4111 1111 1111 1111", &utc).0,
            "4111111111111111"
        );
        assert_eq!(
            one(card.clone(), "4111-1111-1111-1111", &utc).0,
            "4111111111111111"
        );
        // Only white space goes where the pattern keeps the dashes.
        let dashed = json!({"type": "string", "pattern": "^[A-Z]{2}-[0-9]{4}$"});
        assert_eq!(one(dashed, "AB - 1234", &utc).0, "AB-1234");
        for (schema, written) in [
            // A letter or a digit would have to change: left alone.
            (phone.clone(), "+44 20 7946 095O"),
            (phone.clone(), "0044 20 7946 0958"),
            (card.clone(), "4111 1111 1111 111"),
            // Matching already, or nothing to drop.
            (phone.clone(), "+442079460958"),
            (card, "41111111111111112"),
            // An invalid pattern is validation's to report.
            (json!({"type": "string", "pattern": "(["}), "1 2"),
        ] {
            let (fixed, done) = one(schema, written, &utc);
            assert_eq!(fixed, written);
            assert!(done.is_empty(), "{done:?}");
        }
    }

    /// A `format` and a `pattern` together: the date first, then the pattern on the result.
    #[test]
    fn a_date_is_written_before_its_pattern_is_checked() {
        let schema = json!({"type": "string", "format": "date", "pattern": "^2026-"});
        assert_eq!(one(schema, "Nov 25, 2026", &TimeZone::UTC).0, "2026-11-25");
    }
}
