//! A required member the schema branches on, worked out from the values its branch alone
//! requires. "Every 15 minutes, send a GET request to https://status.example.com/health" never
//! names `task_type: api_call`, but the URL and the method it says are what only the
//! `if task_type = api_call then require url, method` branch asks for: the member is what the
//! request says, in the schema's own terms, not a guess.
//!
//! Only a required member no rule traced is reconsidered, only at the call's top level, and
//! only when every value its branch alone requires is traced and one of them is written out
//! (verbatim, or free text whose words were said): a URL, a prompt, a query. A day or a number
//! is not enough: "on Friday" gives `day_of_week` without making a reminder weekly.

use serde_json::{Map, Value};

use super::rules::{Rule, Rules};
use super::walk::{Outcome, Report};
use crate::json::resolved;

/// Turns the `Missing` decision of each top-level member its branch's own values evidence into
/// a kept choice, and takes it out of `report.missing`.
pub(super) fn derive(args: &Value, schema: &Value, rules: Rules, report: &mut Report) {
    if !rules.on(Rule::Choice) {
        return;
    }
    let (Some(call), schema) = (args.as_object(), resolved(schema, schema)) else {
        return;
    };
    let conditions: Vec<&Value> = schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(std::iter::once(schema))
        .map(|s| resolved(s, schema))
        .filter(|s| s.get("if").is_some())
        .collect();
    let derived: Vec<String> = report
        .missing
        .iter()
        .filter(|path| !path.contains(['.', '[']))
        .filter(|path| {
            call.get(path.as_str())
                .is_some_and(|member| evidenced(path, member, &conditions, schema, report))
        })
        .cloned()
        .collect();
    for path in derived {
        report.missing.retain(|p| *p != path);
        for decision in report.decisions.iter_mut().filter(|d| d.path == path) {
            decision.rule = Rule::Choice;
            decision.outcome = Outcome::Kept;
        }
    }
}

/// Whether `key: member` keys a branch whose own required values are all traced, one of them
/// written out.
fn evidenced(
    key: &str,
    member: &Value,
    conditions: &[&Value],
    root: &Value,
    report: &Report,
) -> bool {
    let (mine, others): (Vec<&Value>, Vec<&Value>) = conditions
        .iter()
        .partition(|c| keys_on(c, key, member, root));
    if mine.is_empty() {
        return false;
    }
    let then = |c: &&Value| c.get("then").cloned().unwrap_or(Value::Null);
    let otherwise = |c: &&Value| c.get("else").cloned().unwrap_or(Value::Null);
    let mut own = Vec::new();
    for branch in &mine {
        required_paths(&then(branch), "", root, &mut own);
    }
    let mut elsewhere = Vec::new();
    required_paths(root, "", root, &mut elsewhere);
    for condition in &others {
        required_paths(&then(condition), "", root, &mut elsewhere);
    }
    // What an `else` requires is required where the member is not this one.
    for condition in mine.iter().chain(others.iter()) {
        required_paths(&otherwise(condition), "", root, &mut elsewhere);
    }
    own.retain(|path| !elsewhere.contains(path));
    let leaves: Vec<&String> = own
        .iter()
        .filter(|path| !own.iter().any(|p| p.starts_with(&format!("{path}."))))
        .collect();
    let rule_of = |path: &String| {
        report
            .decisions
            .iter()
            .find(|d| d.path == *path && d.outcome == Outcome::Kept)
            .map(|d| d.rule)
    };
    !leaves.is_empty()
        && leaves.iter().all(|path| rule_of(path).is_some())
        && leaves
            .iter()
            .any(|path| matches!(rule_of(path), Some(Rule::Verbatim | Rule::Text)))
}

/// Whether `condition`'s `if` holds exactly when `key` is `member` (a `const`, or an `enum`
/// of that one member).
fn keys_on(condition: &Value, key: &str, member: &Value, root: &Value) -> bool {
    let Some(test) = condition
        .get("if")
        .and_then(|i| i.get("properties"))
        .and_then(|p| p.get(key))
        .map(|s| resolved(s, root))
    else {
        return false;
    };
    // An `if` that tests more than this member is not keyed on it alone.
    let alone = condition
        .get("if")
        .and_then(Value::as_object)
        .is_some_and(|test| {
            test.keys().all(|k| k == "properties" || k == "required")
                && test
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.len() == 1)
        });
    alone
        && (test.get("const") == Some(member)
            || test
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.as_slice() == std::slice::from_ref(member)))
}

/// How deep [`required_paths`] reads: a schema that requires itself (`next` of a `$ref`'d
/// node) is a client's to send, and must not recurse without end.
const MOST_DEPTH: usize = 6;

/// The paths `schema` requires (`required`, and inside each required property's own schema),
/// prefixed with `at`, down to [`MOST_DEPTH`].
fn required_paths(schema: &Value, at: &str, root: &Value, out: &mut Vec<String>) {
    if at.matches('.').count() >= MOST_DEPTH {
        return;
    }
    let schema = resolved(schema, root);
    let properties = schema.get("properties").and_then(Value::as_object);
    for key in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let path = if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        };
        if !out.contains(&path) {
            out.push(path.clone());
        }
        if let Some(inner) = properties.and_then(|p: &Map<String, Value>| p.get(key)) {
            required_paths(inner, &path, root, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ground, Evidence, Rules};
    use serde_json::{json, Value};

    fn recurring_task() -> Value {
        json!({
            "type": "object",
            "properties": {
                "schedule": {"type": "string"},
                "task_type": {"type": "string", "enum": ["reminder", "agent_task", "api_call", "web_search"]},
                "execution_data": {"type": "object", "properties": {
                    "prompt": {"type": "string"}, "url": {"type": "string"},
                    "method": {"type": "string", "enum": ["GET", "POST"]},
                    "query": {"type": "string"}}}
            },
            "required": ["schedule", "task_type"],
            "allOf": [
                {"if": {"properties": {"task_type": {"const": "api_call"}}},
                 "then": {"required": ["execution_data"], "properties": {"execution_data": {"required": ["url", "method"]}}}},
                {"if": {"properties": {"task_type": {"const": "agent_task"}}},
                 "then": {"required": ["execution_data"], "properties": {"execution_data": {"required": ["prompt"]}}}},
                {"if": {"properties": {"task_type": {"const": "web_search"}}},
                 "then": {"required": ["execution_data"], "properties": {"execution_data": {"required": ["query"]}}}}
            ]
        })
    }

    fn reminder() -> Value {
        json!({
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "schedule_type": {"type": "string", "enum": ["once", "weekly", "monthly"]},
                "at": {"type": "string"},
                "day_of_week": {"type": "string", "enum": ["mon", "fri"]},
                "day_of_month": {"type": "integer"}
            },
            "required": ["message", "schedule_type"],
            "allOf": [
                {"if": {"properties": {"schedule_type": {"const": "once"}}}, "then": {"required": ["at"]}},
                {"if": {"properties": {"schedule_type": {"const": "weekly"}}}, "then": {"required": ["at", "day_of_week"]}},
                {"if": {"properties": {"schedule_type": {"const": "monthly"}}}, "then": {"required": ["at", "day_of_month"]}}
            ]
        })
    }

    fn missing(text: &str, args: Value, schema: &Value) -> Vec<String> {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
        let mut args = args;
        ground(&mut args, schema, &evidence, Rules::default()).missing
    }

    const STATUS_CHECK: &str = "Every 15 minutes, send a GET request to https://status.example.com/health so we can tell whether the service is up.";

    #[test]
    fn a_member_whose_branch_alone_needs_values_said_is_worked_out() {
        let call = json!({"schedule": "*/15 * * * *", "task_type": "api_call",
            "execution_data": {"url": "https://status.example.com/health", "method": "GET"}});
        assert_eq!(
            missing(STATUS_CHECK, call, &recurring_task()),
            Vec::<String>::new()
        );
        let inbox = "Every Monday at 10am, have an agent go through my inbox and draft a summary of anything that still needs a reply.";
        let call = json!({"schedule": "monday 10am", "task_type": "agent_task",
            "execution_data": {"prompt": "Go through my inbox and draft a summary of anything that still needs a reply"}});
        assert_eq!(
            missing(inbox, call, &recurring_task()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_member_is_not_worked_out_from_invented_or_shared_values() {
        // The URL is the translator's own: nothing said needs that branch.
        let text = "Every 15 minutes, check whether the service is up.";
        let call = json!({"schedule": "*/15 * * * *", "task_type": "api_call",
            "execution_data": {"url": "https://example.com/health", "method": "GET"}});
        assert!(missing(text, call, &recurring_task()).contains(&"task_type".to_owned()));
        // The branch of another member: a prompt said does not make an API call.
        let text = "Every Monday, have an agent go through my inbox and summarise it.";
        let call = json!({"schedule": "monday 9am", "task_type": "api_call",
            "execution_data": {"prompt": "go through my inbox and summarise it", "url": "x", "method": "GET"}});
        assert!(missing(text, call, &recurring_task()).contains(&"task_type".to_owned()));
        // Only part of the branch's own values said: a URL without its method.
        let text = "Every hour, hit https://status.example.com/health for me.";
        let call = json!({"schedule": "0 * * * *", "task_type": "api_call",
            "execution_data": {"url": "https://status.example.com/health", "method": "POST"}});
        assert!(missing(text, call, &recurring_task()).contains(&"task_type".to_owned()));
    }

    #[test]
    fn a_schema_that_requires_itself_is_read_to_a_depth() {
        let schema = json!({
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": ["list", "leaf"]},
                "node": {"$ref": "#/$defs/Node"}},
            "required": ["kind", "node"],
            "allOf": [{"if": {"properties": {"kind": {"const": "list"}}},
                "then": {"required": ["node"]}}],
            "$defs": {"Node": {"type": ["object", "null"], "required": ["next"],
                "properties": {"next": {"$ref": "#/$defs/Node"}}}}
        });
        let call = json!({"kind": "list", "node": {"next": null}});
        let found = missing(
            "I would like you to build the thing we talked about, please.",
            call,
            &schema,
        );
        assert!(found.contains(&"kind".to_owned()), "{found:?}");
    }

    #[test]
    fn a_day_or_a_number_does_not_make_a_schedule_recurring() {
        // "on Friday" is a day, not "every week"; "on the 5th" a date, not "every month".
        let call = json!({"message": "call the bank", "schedule_type": "weekly", "at": "17:00", "day_of_week": "fri"});
        assert_eq!(
            missing(
                "Remind me on Friday at 5pm to call the bank.",
                call,
                &reminder()
            ),
            ["schedule_type"]
        );
        let call = json!({"message": "pay the rent", "schedule_type": "monthly", "at": "09:00", "day_of_month": 5});
        assert_eq!(
            missing(
                "Remind me on the 5th at 9am to pay the rent.",
                call,
                &reminder()
            ),
            ["schedule_type"]
        );
    }
}
