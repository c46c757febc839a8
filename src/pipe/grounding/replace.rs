//! A required enum member the conversation contradicts, replaced by the one it names. The
//! 1.5B translator writes `schedule_type: daily` beside `day_of_week: mon` for "every Monday
//! at 8": the value is untraced, and the conversation says exactly one other member of the
//! same enum (`weekly`, by "every Monday"). Leaving it would deliver a call the user did not
//! ask for (optional grounding keeps a required value), asking would ask for what was said.
//!
//! Only a required value, only when no rule traces it, only when the rules trace exactly one
//! other member, and never a member another field of the call already holds (two fields of
//! one enum, one said). The caller keeps the replacement only when the call stays valid.

use serde_json::{Map, Value};

use super::evidence::Evidence;
use super::rules::{trace, Leaf, Rules};
use super::walk::{is_traced, property_schema, required_keys};
use crate::json::resolved;

/// Replaces in `args` each required enum member no rule traces by the one other member the
/// conversation names; returns the paths replaced.
pub fn said_members(
    args: &mut Value,
    schema: &Value,
    evidence: &Evidence,
    rules: Rules,
) -> Vec<String> {
    let mut taken = Vec::new();
    collect_leaves(args, &mut taken);
    let mut replaced = Vec::new();
    if let Value::Object(object) = args {
        let reading = Reading {
            evidence,
            rules,
            root: schema,
            taken: &taken,
        };
        reading.object(object, schema, "", &mut replaced);
    }
    replaced
}

struct Reading<'a> {
    evidence: &'a Evidence,
    rules: Rules,
    root: &'a Value,
    /// Every leaf value of the call, as the translator wrote it.
    taken: &'a [Value],
}

impl Reading<'_> {
    fn object(
        &self,
        object: &mut Map<String, Value>,
        schema: &Value,
        path: &str,
        replaced: &mut Vec<String>,
    ) {
        let required = required_keys(schema, self.root);
        for (key, value) in object.iter_mut() {
            if !required.contains(key) {
                continue;
            }
            let field = property_schema(schema, key, self.root);
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match value {
                Value::Object(inner) => self.object(inner, field, &at, replaced),
                Value::String(_) | Value::Number(_) => {
                    if let Some(member) = self.named_instead(value, field, key) {
                        *value = member;
                        replaced.push(at);
                    }
                }
                _ => {}
            }
        }
    }

    /// The one member of `field`'s enum the conversation names, where `value` is untraced
    /// and no other field of the call holds that member.
    fn named_instead(&self, value: &Value, field: &Value, key: &str) -> Option<Value> {
        let field = resolved(field, self.root);
        let members = field.get("enum").and_then(Value::as_array)?;
        let traced = |v: &Value| {
            let leaf = Leaf {
                value: v,
                schema: field,
                key,
            };
            is_traced(trace(&leaf, self.evidence, self.rules))
        };
        if traced(value) {
            return None;
        }
        let mut named = members
            .iter()
            .filter(|m| *m != value && !self.taken.contains(m) && traced(m));
        let first = named.next()?;
        named.next().is_none().then(|| first.clone())
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
    }
}
