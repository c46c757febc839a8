//! A required enum member the conversation contradicts, replaced by the one it names. The
//! 1.5B translator writes `schedule_type: daily` beside `day_of_week: mon` for "every Monday
//! at 8": the value is untraced, and the conversation says exactly one other member of the
//! same enum (`weekly`, by "every Monday"). Leaving it would deliver a call the user did not
//! ask for (optional grounding keeps a required value), asking would ask for what was said.
//!
//! Only a value grounding reports missing (required, traced by no rule, not kept unverified
//! for a language it cannot read, not worked out from its branch: see [`super::ground`]), only
//! when the rules trace exactly one other member by what the conversation says (not by being
//! the schema's `default`, `const` or `null`), and never a member another field of the call
//! already holds or has just been given (two fields of one enum, one said). The caller keeps
//! the replacement only when the call stays valid.

use serde_json::{Map, Value};

use super::evidence::Evidence;
use super::rules::{trace, Leaf, Rule, Rules};
use super::walk::{is_traced, property_schema};
use crate::json::resolved;

/// Replaces in `args` each required enum member grounding finds missing by the one other
/// member the conversation names; returns the paths replaced.
pub fn said_members(
    args: &mut Value,
    schema: &Value,
    evidence: &Evidence,
    rules: Rules,
) -> Vec<String> {
    let missing = super::ground(&mut args.clone(), schema, evidence, rules).missing;
    if missing.is_empty() {
        return Vec::new();
    }
    let mut taken = Vec::new();
    collect_leaves(args, &mut taken);
    let mut reading = Reading {
        evidence,
        rules,
        root: schema,
        taken,
        missing: &missing,
    };
    let mut replaced = Vec::new();
    if let Value::Object(object) = args {
        reading.object(object, schema, "", &mut replaced);
    }
    replaced
}

struct Reading<'a> {
    evidence: &'a Evidence,
    rules: Rules,
    root: &'a Value,
    /// Every leaf value of the call: as the translator wrote it, then as replaced.
    taken: Vec<Value>,
    /// The paths grounding reports missing.
    missing: &'a [String],
}

impl Reading<'_> {
    fn object(
        &mut self,
        object: &mut Map<String, Value>,
        schema: &Value,
        path: &str,
        replaced: &mut Vec<String>,
    ) {
        for (key, value) in object.iter_mut() {
            let field = property_schema(schema, key, self.root);
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match value {
                Value::Object(inner) => self.object(inner, field, &at, replaced),
                Value::String(_) | Value::Number(_) if self.missing.contains(&at) => {
                    if let Some(member) = self.named_instead(value, field, key) {
                        self.taken.push(member.clone());
                        *value = member;
                        replaced.push(at);
                    }
                }
                _ => {}
            }
        }
    }

    /// The one member of `field`'s enum the conversation names, where no field of the call
    /// holds it.
    fn named_instead(&self, value: &Value, field: &Value, key: &str) -> Option<Value> {
        let field = resolved(field, self.root);
        let members = field.get("enum").and_then(Value::as_array)?;
        let named = |v: &Value| {
            let leaf = Leaf {
                value: v,
                schema: field,
                key,
            };
            let rule = trace(&leaf, self.evidence, self.rules);
            is_traced(rule) && rule != Rule::Schema
        };
        let mut others = members
            .iter()
            .filter(|m| *m != value && !self.taken.contains(m) && named(m));
        let first = others.next()?;
        others.next().is_none().then(|| first.clone())
    }
}

fn collect_leaves(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect_leaves(item, out)),
        Value::Object(object) => object.values().for_each(|item| collect_leaves(item, out)),
        leaf => out.push(leaf.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reminder() -> Value {
        json!({
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "schedule_type": {"type": "string", "enum": ["once", "daily", "weekly", "monthly"]},
                "at": {"type": "string"},
                "day_of_week": {"type": "string", "enum": ["mon", "tue", "fri"]},
                "priority": {"type": "string", "enum": ["low", "normal", "high"]}
            },
            "required": ["message", "schedule_type"]
        })
    }

    fn replaced(text: &str, args: Value, schema: &Value) -> (Value, Vec<String>) {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
        let mut args = args;
        let paths = said_members(&mut args, schema, &evidence, Rules::default());
        (args, paths)
    }

    #[test]
    fn a_required_member_the_conversation_contradicts_is_the_one_it_names() {
        let call = json!({"message": "Water the plants", "schedule_type": "daily", "at": "08:00", "day_of_week": "mon"});
        let (args, paths) = replaced(
            "Remind me every Monday at 08:00 to water the plants.",
            call,
            &reminder(),
        );
        assert_eq!(paths, ["schedule_type"]);
        assert_eq!(args["schedule_type"], "weekly");
        let call = json!({"message": "Stretch", "schedule_type": "weekly", "at": "10:00"});
        let (args, _) = replaced("Remind me every day at 10 to stretch.", call, &reminder());
        assert_eq!(args["schedule_type"], "daily");
    }

    #[test]
    fn a_member_is_left_as_it_is_unless_exactly_one_other_is_named() {
        // Traced itself: never touched.
        let call = json!({"message": "Stretch", "schedule_type": "daily", "at": "10:00"});
        assert!(
            replaced("Every day at 10, remind me to stretch.", call, &reminder())
                .1
                .is_empty()
        );
        // No member named: nothing to replace it with (a question's business, or grounding's).
        let call = json!({"message": "Call John", "schedule_type": "daily", "at": "10:00"});
        assert!(replaced("Remind me to call John.", call, &reminder())
            .1
            .is_empty());
        // Two members named ("daily ... or weekly"): not ours to choose.
        let call = json!({"message": "Call John", "schedule_type": "once", "at": "10:00"});
        assert!(replaced(
            "Remind me daily, or weekly if that is too much, to call John.",
            call,
            &reminder()
        )
        .1
        .is_empty());
        // An optional member is grounding's to leave out, not this to change.
        let call = json!({"message": "Call John", "schedule_type": "daily", "priority": "low"});
        let (args, paths) = replaced(
            "Every day, remind me to call John. It's urgent.",
            call,
            &reminder(),
        );
        assert!(paths.is_empty() && args["priority"] == "low", "{args}");
    }

    #[test]
    fn a_member_the_schema_alone_traces_is_no_replacement() {
        // `null` and the schema's default are traced by the schema, not by the conversation.
        let schema = json!({
            "type": "object",
            "properties": {"unit": {"type": ["string", "null"], "enum": ["metric", "imperial", null], "default": "metric"}},
            "required": ["unit"]
        });
        let (args, paths) = replaced(
            "What's the weather in Oslo?",
            json!({"unit": "imperial"}),
            &schema,
        );
        assert!(paths.is_empty(), "{args}");
    }

    #[test]
    fn a_member_kept_unverified_or_worked_out_from_its_branch_is_not_replaced() {
        // A conversation grounding cannot read: the member is kept unverified, not missing.
        let call = json!({"message": "Llamar a Juan", "schedule_type": "weekly", "at": "09:00"});
        let (_, paths) = replaced(
            "Хочу напоминание daily: позвонить Ивану, пожалуйста.",
            call,
            &reminder(),
        );
        assert!(paths.is_empty());
        // Worked out from its branch (a URL and a method said): "remind" names `reminder`, but
        // `api_call` is what the request's values need.
        let schema = json!({
            "type": "object",
            "properties": {
                "task_type": {"type": "string", "enum": ["reminder", "api_call"]},
                "url": {"type": "string"}, "method": {"type": "string", "enum": ["GET", "POST"]}
            },
            "required": ["task_type"],
            "allOf": [{"if": {"properties": {"task_type": {"const": "api_call"}}},
                "then": {"required": ["url", "method"]}}]
        });
        let call = json!({"task_type": "api_call", "url": "https://status.example.com/health", "method": "GET"});
        let text =
            "Send a GET request to https://status.example.com/health and remind me if it's down.";
        let (args, paths) = replaced(text, call, &schema);
        assert!(
            paths.is_empty() && args["task_type"] == "api_call",
            "{args}"
        );
    }

    #[test]
    fn a_member_another_field_holds_is_not_taken_twice() {
        let schema = json!({
            "type": "object",
            "properties": {
                "from": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]},
                "to": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]}
            },
            "required": ["from", "to"]
        });
        // "fahrenheit" is said and already `to`; `from` is not made the same.
        let call = json!({"from": "kelvin", "to": "fahrenheit"});
        let (args, paths) = replaced("Convert 30 degrees to fahrenheit.", call, &schema);
        assert!(paths.is_empty(), "{args}");
        // Neither holds it: the first is given it, the second not the same one again.
        let call = json!({"from": "kelvin", "to": "celsius"});
        let (args, paths) = replaced("Convert 30 degrees to fahrenheit.", call, &schema);
        assert!(paths.len() <= 1 && args["from"] != args["to"], "{args}");
    }
}
