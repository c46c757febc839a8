//! The walk over a call's arguments and its schema: every leaf traced by the rules, untraced
//! optional members taken out as it goes, and each decision recorded with the rule that made
//! it.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::defaults;
use super::evidence::Evidence;
use super::rules::{trace, Leaf, Rule, Rules};
use super::tokens::{compact, words_of};
use crate::json::{branches, resolved};

/// What became of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Traced, delivered.
    Kept,
    /// Optional and untraced: taken out of the call.
    LeftOut,
    /// Required and untraced: left in the call as written, reported missing.
    Missing,
    /// Untraced where grounding cannot read the conversation: delivered, logged.
    Unverified,
    /// A required member the conversation contradicts, replaced by the one it names (see
    /// [`super::said_members`]).
    Replaced,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Kept => "kept",
            Outcome::LeftOut => "left_out",
            Outcome::Missing => "missing",
            Outcome::Unverified => "unverified",
            Outcome::Replaced => "replaced",
        }
    }
}

/// One value's decision: where it is, the rule that decided it, what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub path: String,
    pub rule: Rule,
    pub outcome: Outcome,
}

/// What grounding found in one call.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Report {
    /// Optional values no evidence traces, taken out of the call (their paths).
    pub dropped: Vec<String>,
    /// Required values no evidence traces (their paths): the request does not give them.
    pub missing: Vec<String>,
    /// Every leaf's decision, in the order the walk met them.
    pub decisions: Vec<Decision>,
}

impl Report {
    /// The paths of values kept unverified.
    pub fn unverified(&self) -> Vec<String> {
        self.decisions
            .iter()
            .filter(|d| d.outcome == Outcome::Unverified)
            .map(|d| d.path.clone())
            .collect()
    }
}

/// Takes the value at a report path ("at", "budget.min", "conditions[0].operation") out of
/// `value`: a member out of its object, an item out of its array. `false` when there is none.
pub fn remove_at(value: &mut Value, path: &str) -> bool {
    let Some(steps) = steps(path) else {
        return false;
    };
    let Some((last, parents)) = steps.split_last() else {
        return false;
    };
    let mut at = value;
    for step in parents {
        let next = match (step, at) {
            (Step::Key(key), Value::Object(map)) => map.get_mut(*key),
            (Step::Index(i), Value::Array(items)) => items.get_mut(*i),
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => return false,
        }
    }
    match (last, at) {
        (Step::Key(key), Value::Object(map)) => map.remove(*key).is_some(),
        (Step::Index(i), Value::Array(items)) if *i < items.len() => {
            items.remove(*i);
            true
        }
        _ => false,
    }
}

/// The value at a report path of `value`, read as [`remove_at`] reads it.
pub fn at_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    steps(path)?
        .iter()
        .try_fold(value, |at, step| match (step, at) {
            (Step::Key(key), Value::Object(map)) => map.get(*key),
            (Step::Index(i), Value::Array(items)) => items.get(*i),
            _ => None,
        })
}

/// The steps of a report path ("budget.min", "conditions[0].operation"); `None` for an index
/// that is no number.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            steps.push(Step::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            steps.push(Step::Index(index.parse().ok()?));
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Some(steps)
}

/// One step of a report path.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

pub(super) struct Walk<'a> {
    pub evidence: &'a Evidence,
    pub rules: Rules,
    pub root: &'a Value,
    /// Every string value of the call, as the translator wrote it.
    pub strings: Vec<String>,
    /// Narrowed texts already read (see `only_inside_another`).
    pub narrowed: Vec<(String, Evidence)>,
    pub report: Report,
}

impl Walk<'_> {
    fn decide(&mut self, path: &str, rule: Rule, outcome: Outcome) {
        self.report.decisions.push(Decision {
            path: path.to_owned(),
            rule,
            outcome,
        });
        match outcome {
            Outcome::LeftOut => self.report.dropped.push(path.to_owned()),
            Outcome::Missing => self.report.missing.push(path.to_owned()),
            Outcome::Kept | Outcome::Unverified | Outcome::Replaced => {}
        }
    }

    /// Undoes the decisions made since `mark` (a required whole put back).
    fn undo(&mut self, mark: (usize, usize)) {
        let (decisions, dropped) = mark;
        self.report.decisions.truncate(decisions);
        self.report.dropped.truncate(dropped);
    }

    fn mark(&self) -> (usize, usize) {
        (self.report.decisions.len(), self.report.dropped.len())
    }

    /// Checks `value` under `path`; returns whether it stays. Untraced optional members are
    /// taken out of objects and arrays as it goes.
    pub fn value(
        &mut self,
        value: &mut Value,
        schema: &Value,
        key: &str,
        required: bool,
        path: &str,
    ) -> bool {
        let schema = resolved(schema, self.root);
        match value {
            Value::Object(object) => self.object(object, schema, required, path),
            Value::Array(items) => {
                if items.is_empty() {
                    return true;
                }
                let item_schema = schema.get("items").unwrap_or(&Value::Null);
                let whole = required.then(|| items.clone());
                let mark = self.mark();
                let mut kept = Vec::with_capacity(items.len());
                for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
                    let item_path = format!("{path}[{i}]");
                    // Items are checked as optional: one untraced item goes, the rest stay.
                    if self.value(&mut item, item_schema, key, false, &item_path) {
                        kept.push(item);
                    }
                }
                *items = kept;
                if let (true, Some(whole)) = (items.is_empty(), whole) {
                    // A required value stays as written, as a required leaf does: missing.
                    *items = whole;
                    self.undo(mark);
                    self.decide(path, Rule::Unsaid, Outcome::Missing);
                    return true;
                }
                !items.is_empty()
            }
            leaf => {
                let leaf = Leaf {
                    value: leaf,
                    schema,
                    key,
                };
                let mut rule = trace(&leaf, self.evidence, self.rules);
                if !required && is_traced(rule) && self.only_inside_another(&leaf) {
                    rule = Rule::Piece;
                }
                // A required value nobody said that is the default its description gives in
                // words is the tool's own choice for when the user says none, not a fact to ask
                // for. (An optional one is left out: the tool falls back to it anyway.)
                if required
                    && matches!(rule, Rule::Unsaid)
                    && self.rules.on(Rule::Schema)
                    && defaults::described(leaf.value, schema)
                {
                    rule = Rule::Schema;
                }
                let outcome = match (is_traced(rule), rule, required) {
                    (true, _, _) => Outcome::Kept,
                    (false, Rule::Unread, _) => Outcome::Unverified,
                    (false, _, true) => Outcome::Missing,
                    (false, _, false) => Outcome::LeftOut,
                };
                self.decide(path, rule, outcome);
                outcome != Outcome::LeftOut
            }
        }
    }

    /// Whether an optional value is said only as a piece of a longer value the request gives
    /// and the call already carries whole: a host copied out of the URL it came in, a name cut
    /// out of an email address. The request gave one value there, not two. Only a whole of
    /// one token counts (an address, a path, an id): a phrase ("3 apples") is made of words
    /// that may each be said for a field of their own.
    fn only_inside_another(&mut self, leaf: &Leaf) -> bool {
        let text = match leaf.value {
            Value::String(text) => text.trim().to_owned(),
            Value::Number(number) => number.to_string(),
            _ => return false,
        };
        let piece = compact(&text);
        if piece.is_empty() {
            return false;
        }
        let original = self.evidence.text.to_lowercase();
        let mut narrowed = original.clone();
        for whole in &self.strings {
            let whole = whole.trim().to_lowercase();
            if whole.contains(char::is_whitespace) {
                continue;
            }
            let whole_compact = compact(&whole);
            if whole_compact.len() > piece.len() && whole_compact.contains(&piece) {
                narrowed = narrowed.replace(&whole, " ");
            }
        }
        if narrowed == original {
            return false;
        }
        if !self.narrowed.iter().any(|(text, _)| *text == narrowed) {
            let rest = Evidence::new(&narrowed, self.evidence.today);
            self.narrowed.push((narrowed.clone(), rest));
        }
        let rules = self.rules;
        self.narrowed
            .iter()
            .find(|(text, _)| *text == narrowed)
            .is_some_and(|(_, rest)| !is_traced(trace(leaf, rest, rules)))
    }

    pub fn object(
        &mut self,
        object: &mut Map<String, Value>,
        schema: &Value,
        required: bool,
        path: &str,
    ) -> bool {
        if object.is_empty() {
            return true;
        }
        // A required object (not the call itself) is put back whole should nothing in it be
        // said, as a required leaf stays: reported missing, never emptied.
        let whole = (required && !path.is_empty()).then(|| object.clone());
        let mark = self.mark();
        let required_here = required_keys(schema, self.root);
        let mut any = false;
        let keys: Vec<String> = object.keys().cloned().collect();
        for key in keys {
            let child_required = required && required_here.contains(&key);
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            // A key the schema does not list (a map's, a free object's) is a value the
            // translator chose: said, or in the schema's own words, or it goes with its value.
            if !required_here.contains(&key)
                && !listed(schema, &key, self.root)
                && !self.evidence.written(&key)
                && !words_of(&key).iter().all(|w| self.evidence.has_word(w))
                && !described(schema, &key, self.root)
            {
                object.remove(&key);
                self.decide(&child_path, Rule::MapKey, Outcome::LeftOut);
                continue;
            }
            let child_schema = property_schema(schema, &key, self.root);
            let Some(child) = object.get_mut(&key) else {
                continue;
            };
            let container = child.is_object() || child.is_array();
            if self.value(child, child_schema, &key, child_required, &child_path) {
                any = true;
            } else {
                object.remove(&key);
                // An object or array left with nothing said goes too, and says so.
                if container {
                    self.decide(&child_path, Rule::Unsaid, Outcome::LeftOut);
                }
            }
        }
        let any_said = self.report.decisions[mark.0..]
            .iter()
            .any(|d| d.outcome == Outcome::Kept || d.outcome == Outcome::Unverified);
        if let (true, Some(whole)) = (object.is_empty() || !any_said && !any, whole) {
            *object = whole;
            self.undo(mark);
            self.decide(path, Rule::Unsaid, Outcome::Missing);
            return true;
        }
        any || !object.is_empty()
    }
}

pub(super) fn is_traced(rule: Rule) -> bool {
    !matches!(
        rule,
        Rule::Unsaid | Rule::Unread | Rule::MapKey | Rule::Piece
    )
}

/// Whether the schema names `key` among its properties (in any branch).
fn listed(schema: &Value, key: &str, root: &Value) -> bool {
    branches(schema, root)
        .into_iter()
        .any(|branch| branch.get("properties").and_then(|p| p.get(key)).is_some())
}

/// Whether the schema's own words (its descriptions, in any branch) name `key`: a map's
/// description may list the keys it takes.
fn described(schema: &Value, key: &str, root: &Value) -> bool {
    let words = words_of(key);
    let mut text = String::new();
    for branch in branches(schema, root) {
        for part in [Some(branch), branch.get("additionalProperties")]
            .into_iter()
            .flatten()
        {
            if let Some(description) = part.get("description").and_then(Value::as_str) {
                text.push_str(description);
                text.push(' ');
            }
        }
    }
    let said: HashSet<String> = words_of(&text).into_iter().collect();
    !words.is_empty() && words.iter().all(|w| said.contains(w))
}

pub(super) fn property_schema<'a>(schema: &'a Value, key: &str, root: &'a Value) -> &'a Value {
    const ANY: &Value = &Value::Null;
    branches(schema, root)
        .into_iter()
        .find_map(|branch| branch.get("properties").and_then(|p| p.get(key)))
        .map_or(ANY, |s| resolved(s, root))
}

/// Keys the schema requires without a condition (`required`, and in `allOf`).
fn required_keys(schema: &Value, root: &Value) -> HashSet<String> {
    let schema = resolved(schema, root);
    let mut keys = HashSet::new();
    let mut add = |s: &Value| {
        for key in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(key) = key.as_str() {
                keys.insert(key.to_owned());
            }
        }
    };
    add(schema);
    for branch in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        add(resolved(branch, root));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_report_path_reads_and_removes_the_same_value() {
        let mut call = json!({"a/b": {"list": [1, {"x~y": "v"}]}, "at": "09:00"});
        assert_eq!(at_path(&call, "a/b.list[1].x~y"), Some(&json!("v")));
        assert_eq!(at_path(&call, "a/b.list[0]"), Some(&json!(1)));
        assert_eq!(at_path(&call, "a/b.list[5]"), None);
        assert_eq!(at_path(&call, "a/b.list[z]"), None);
        assert!(remove_at(&mut call, "a/b.list[1].x~y"));
        assert_eq!(at_path(&call, "a/b.list[1]"), Some(&json!({})));
        assert!(!remove_at(&mut call, "missing"));
    }
}
