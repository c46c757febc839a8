//! The translator's answer as a llama.cpp GBNF grammar, for `output = "grammar"`: the same
//! simplified schema that `json_schema` output sends ([`super::grammar::response_schema`]),
//! with no free whitespace between tokens. llama.cpp's own conversion of a JSON schema lets
//! the model indent, and a small model does: a third of its tokens on a short answer were
//! newlines and spaces, and on a CPU every output token costs (measured in
//! docs/measurements.md). A grammar engine that takes GBNF is llama.cpp's; nothing else is
//! sent one.
//!
//! Like llama.cpp's conversion, an object takes the properties it lists, in the schema's
//! order, and others only where `additionalProperties` allows them.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The longest `minLength`/`maxLength` written as a counted repetition; past it, a string
/// of any length (the validator still checks the bound).
const MAX_COUNTED: u64 = 256;

/// JSON's own tokens, without whitespace.
const PRIMITIVES: &str = r#"string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
integer ::= "-"? ([0-9] | [1-9] [0-9]{0,15})
number ::= "-"? ([0-9] | [1-9] [0-9]{0,15}) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" (string ":" value ("," string ":" value)*)? "}"
array ::= "[" (value ("," value)*)? "]"
"#;

/// The grammar of a (simplified) schema.
pub fn gbnf(schema: &Value) -> String {
    let mut builder = Builder::default();
    let root = builder.schema(schema);
    let mut out = format!("root ::= {root}\n");
    for (name, body) in &builder.rules {
        let _ = writeln!(out, "{name} ::= {body}");
    }
    out.push_str(PRIMITIVES);
    out
}

#[derive(Default)]
struct Builder {
    rules: Vec<(String, String)>,
    /// Rules already written for an object schema, by its JSON: a call's schema appears
    /// twice in a response schema (one call, and the items of several).
    objects: HashMap<String, String>,
}

impl Builder {
    fn rule(&mut self, body: String) -> String {
        let name = format!("r{}", self.rules.len());
        self.rules.push((name.clone(), body));
        name
    }

    /// An expression for `schema`: a rule's name, a primitive, or a group.
    fn schema(&mut self, schema: &Value) -> String {
        let Some(object) = schema.as_object() else {
            return "value".into();
        };
        if let Some(constant) = object.get("const") {
            return literal(&constant.to_string());
        }
        if let Some(Value::Array(members)) = object.get("enum") {
            if !members.is_empty() {
                return group(members.iter().map(|m| literal(&m.to_string())).collect());
            }
        }
        if let Some(Value::Array(branches)) = object.get("anyOf") {
            if !branches.is_empty() {
                let alternatives = branches.iter().map(|b| self.schema(b)).collect();
                return group(alternatives);
            }
        }
        let types: Vec<&str> = match object.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(several)) => several.iter().filter_map(Value::as_str).collect(),
            _ if object.contains_key("properties") => vec!["object"],
            _ if object.contains_key("items") => vec!["array"],
            _ => Vec::new(),
        };
        if types.is_empty() {
            return "value".into();
        }
        let alternatives = types.iter().map(|t| self.typed(t, object)).collect();
        group(alternatives)
    }

    fn typed(&mut self, kind: &str, schema: &Map<String, Value>) -> String {
        match kind {
            "string" => string(schema),
            "integer" | "number" | "boolean" | "null" => kind.into(),
            "object" => self.object(schema),
            "array" => self.array(schema),
            _ => "value".into(),
        }
    }

    fn array(&mut self, schema: &Map<String, Value>) -> String {
        let item = schema
            .get("items")
            .map_or_else(|| "value".to_owned(), |items| self.schema(items));
        let list = format!("{item} (\",\" {item})*");
        let non_empty = schema
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 0);
        if non_empty {
            format!("\"[\" {list} \"]\"")
        } else {
            format!("\"[\" ({list})? \"]\"")
        }
    }

    /// The listed properties in order, each required one present, each optional one
    /// present or not, with commas only between those written; then others where
    /// `additionalProperties` allows them.
    fn object(&mut self, schema: &Map<String, Value>) -> String {
        let key = Value::Object(schema.clone()).to_string();
        if let Some(name) = self.objects.get(&key) {
            return name.clone();
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let listed = schema.get("properties").and_then(Value::as_object);
        let extra = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some("value".to_owned()),
            Some(other @ Value::Object(_)) => Some(self.schema(other)),
            // Absent: llama.cpp's rule, any member where nothing is listed, none beside a list.
            _ => listed.is_none().then(|| "value".to_owned()),
        };
        let properties: Vec<(bool, String)> = listed
            .into_iter()
            .flatten()
            .filter(|(_, s)| **s != Value::Bool(false))
            .map(|(name, s)| {
                let expression = self.schema(s);
                let member = format!("{} {expression}", literal(&format!("{}:", quoted(name))));
                (required.contains(&name.as_str()), member)
            })
            .collect();
        // `after`: the rest once a member is written (each one after it needs its comma);
        // `first`: the rest while none is written yet.
        let (mut after, mut first) = match &extra {
            Some(value) => (
                Some(format!("(\",\" string \":\" {value})*")),
                Some(format!(
                    "(string \":\" {value} (\",\" string \":\" {value})*)?"
                )),
            ),
            None => (None, None),
        };
        // The members before which none is required: only there can a member be the first.
        let leading_optional = properties
            .iter()
            .position(|(is_required, _)| *is_required)
            .map_or(properties.len(), |at| at + 1);
        for (at, (is_required, member)) in properties.into_iter().enumerate().rev() {
            let rest = after.clone().unwrap_or_default();
            let new_after = if is_required {
                format!("\",\" {member} {rest}")
            } else {
                format!("(\",\" {member})? {rest}")
            };
            let new_first = if is_required {
                format!("{member} {rest}")
            } else {
                match &first {
                    Some(none_yet) => format!("{member} {rest} | {none_yet}"),
                    None => format!("({member} {rest})?"),
                }
            };
            // Rules nothing would use are not written: no member comes before the first one,
            // and none is first after a required one.
            if at > 0 {
                after = Some(self.rule(new_after.trim_end().to_owned()));
            }
            if at < leading_optional {
                first = Some(self.rule(new_first.trim_end().to_owned()));
            }
        }
        let body = match first {
            Some(members) => format!("\"{{\" {members} \"}}\""),
            None => "\"{\" \"}\"".to_owned(),
        };
        let name = self.rule(body);
        self.objects.insert(key, name.clone());
        name
    }
}

fn string(schema: &Map<String, Value>) -> String {
    let bound = |key: &str| schema.get(key).and_then(Value::as_u64);
    let min = bound("minLength").unwrap_or(0);
    match bound("maxLength") {
        Some(max) if max <= MAX_COUNTED && min <= max => {
            format!("\"\\\"\" char{{{min},{max}}} \"\\\"\"")
        }
        _ if min > 0 && min <= MAX_COUNTED => format!("\"\\\"\" char{{{min},}} \"\\\"\""),
        _ => "string".into(),
    }
}

/// `text` as JSON: a key with its quotes.
fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// A GBNF literal that matches `text` exactly (JSON text: no raw control characters).
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out.push('"');
    out
}

fn group(alternatives: Vec<String>) -> String {
    match alternatives.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", alternatives.join(" | ")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::collections::{BTreeSet, HashMap};

    use serde_json::json;

    use super::*;
    use crate::pipe::grammar::response_schema;

    /// A small GBNF recognizer, enough for what [`gbnf`] writes: the grammar is checked by
    /// the texts it takes and refuses, not by how it is spelled.
    enum Node {
        Literal(Vec<char>),
        Class {
            negated: bool,
            ranges: Vec<(char, char)>,
        },
        Rule(String),
        Sequence(Vec<Node>),
        Either(Vec<Node>),
        Repeat(Box<Node>, usize, Option<usize>),
    }

    struct Parser<'a> {
        text: &'a [char],
        at: usize,
    }

    impl Parser<'_> {
        fn peek(&self) -> Option<char> {
            self.text.get(self.at).copied()
        }
        fn next(&mut self) -> char {
            let c = self.text[self.at];
            self.at += 1;
            c
        }
        fn skip_spaces(&mut self) {
            while self.peek() == Some(' ') {
                self.at += 1;
            }
        }
        fn escaped(&mut self) -> char {
            match self.next() {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'x' => {
                    let hex: String = [self.next(), self.next()].iter().collect();
                    char::from(u8::from_str_radix(&hex, 16).unwrap())
                }
                other => other,
            }
        }
        fn either(&mut self) -> Node {
            let mut alternatives = vec![self.sequence()];
            while self.peek() == Some('|') {
                self.at += 1;
                alternatives.push(self.sequence());
            }
            Node::Either(alternatives)
        }
        fn sequence(&mut self) -> Node {
            let mut items = Vec::new();
            loop {
                self.skip_spaces();
                match self.peek() {
                    None | Some(')') | Some('|') => return Node::Sequence(items),
                    _ => {
                        let item = self.item();
                        items.push(self.postfix(item));
                    }
                }
            }
        }
        fn item(&mut self) -> Node {
            match self.next() {
                '"' => {
                    let mut literal = Vec::new();
                    loop {
                        match self.next() {
                            '"' => return Node::Literal(literal),
                            '\\' => literal.push(self.escaped()),
                            c => literal.push(c),
                        }
                    }
                }
                '[' => {
                    let negated = self.peek() == Some('^');
                    if negated {
                        self.at += 1;
                    }
                    let mut ranges = Vec::new();
                    loop {
                        let from = match self.next() {
                            ']' => return Node::Class { negated, ranges },
                            '\\' => self.escaped(),
                            c => c,
                        };
                        let mut to = from;
                        if self.peek() == Some('-') && self.text.get(self.at + 1) != Some(&']') {
                            self.at += 1;
                            to = match self.next() {
                                '\\' => self.escaped(),
                                c => c,
                            };
                        }
                        ranges.push((from, to));
                    }
                }
                '(' => {
                    let inner = self.either();
                    assert_eq!(self.next(), ')');
                    inner
                }
                c => {
                    let mut name = String::from(c);
                    while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '-') {
                        name.push(c);
                        self.at += 1;
                    }
                    Node::Rule(name)
                }
            }
        }
        fn number(&mut self) -> Option<usize> {
            let mut digits = String::new();
            while let Some(c) = self.peek().filter(char::is_ascii_digit) {
                digits.push(c);
                self.at += 1;
            }
            digits.parse().ok()
        }
        fn postfix(&mut self, item: Node) -> Node {
            let (min, max) = match self.peek() {
                Some('?') => (0, Some(1)),
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('{') => {
                    self.at += 1;
                    let min = self.number().unwrap();
                    let max = if self.peek() == Some(',') {
                        self.at += 1;
                        self.number()
                    } else {
                        Some(min)
                    };
                    assert_eq!(self.peek(), Some('}'));
                    (min, max)
                }
                _ => return item,
            };
            self.at += 1;
            Node::Repeat(Box::new(item), min, max)
        }
    }

    struct Grammar(HashMap<String, Node>);

    impl Grammar {
        fn parse(text: &str) -> Grammar {
            let mut rules = HashMap::new();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let (name, body) = line.split_once(" ::= ").unwrap();
                let chars: Vec<char> = body.chars().collect();
                let mut parser = Parser {
                    text: &chars,
                    at: 0,
                };
                let node = parser.either();
                assert_eq!(parser.at, chars.len(), "unparsed rest in {line}");
                assert!(
                    rules.insert(name.to_owned(), node).is_none(),
                    "{name} twice"
                );
            }
            Grammar(rules)
        }

        fn ends(&self, node: &Node, text: &[char], at: usize) -> BTreeSet<usize> {
            match node {
                Node::Literal(literal) => text[at..]
                    .starts_with(literal)
                    .then_some(at + literal.len())
                    .into_iter()
                    .collect(),
                Node::Class { negated, ranges } => text
                    .get(at)
                    .filter(|c| ranges.iter().any(|(a, b)| (a..=b).contains(c)) != *negated)
                    .map(|_| at + 1)
                    .into_iter()
                    .collect(),
                Node::Rule(name) => {
                    let rule = self.0.get(name).unwrap_or_else(|| panic!("no rule {name}"));
                    self.ends(rule, text, at)
                }
                Node::Sequence(items) => {
                    let mut here = BTreeSet::from([at]);
                    for item in items {
                        here = here
                            .iter()
                            .flat_map(|&p| self.ends(item, text, p))
                            .collect();
                    }
                    here
                }
                Node::Either(alternatives) => alternatives
                    .iter()
                    .flat_map(|a| self.ends(a, text, at))
                    .collect(),
                Node::Repeat(item, min, max) => {
                    let mut out = BTreeSet::new();
                    let mut here = BTreeSet::from([at]);
                    for count in 0..=text.len() + 1 {
                        if count >= *min {
                            out.extend(&here);
                        }
                        if max.is_some_and(|m| count >= m) || here.is_empty() {
                            break;
                        }
                        here = here
                            .iter()
                            .flat_map(|&p| self.ends(item, text, p))
                            .filter(|&e| e > at || *min > count)
                            .collect();
                    }
                    out
                }
            }
        }

        fn takes(&self, text: &str) -> bool {
            let chars: Vec<char> = text.chars().collect();
            self.ends(&self.0["root"], &chars, 0).contains(&chars.len())
        }
    }

    fn grammar_of(parameters: Value) -> Grammar {
        Grammar::parse(&gbnf(&response_schema(&parameters)))
    }

    #[test]
    fn every_rule_written_is_used() {
        let text = gbnf(&response_schema(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"}, "b": {"type": "integer"},
                "c": {"type": "object", "properties": {"d": {"type": "boolean"}, "e": {"type": "string"}}}},
            "required": ["a"]})));
        let lines: Vec<(&str, &str)> = text
            .lines()
            .filter_map(|line| line.split_once(" ::= "))
            .collect();
        for (name, _) in &lines {
            let used = lines.iter().any(|(other, body)| {
                other != name
                    && body
                        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                        .any(|word| word == *name)
            });
            assert!(*name == "root" || used, "`{name}` is never used:\n{text}");
        }
    }

    #[test]
    fn required_members_in_order_and_optional_ones_in_any_subset() {
        let g = grammar_of(json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "string", "enum": ["x", "y z"]},
                "c": {"type": "boolean"},
                "d": {"type": "number"}
            },
            "required": ["b"]
        }));
        for taken in [
            r#"{"b":"x"}"#,
            r#"{"a":-3,"b":"y z"}"#,
            r#"{"b":"x","d":1.5e3}"#,
            r#"{"a":0,"b":"x","c":true,"d":2}"#,
            r#"[{"b":"x"},{"a":1,"b":"y z","c":false}]"#,
            r#"{"error":"missing_info","clarification_needed":"Which one?"}"#,
            r#"{"error":"wrong_tool","reason":"a lock check, not a shipment"}"#,
        ] {
            assert!(g.takes(taken), "{taken}");
        }
        for refused in [
            r#"{ "b":"x"}"#,
            "{\n\"b\":\"x\"}",
            r#"{"b": "x"}"#,
            r#"{"a":1}"#,
            r#"{"b":"z"}"#,
            r#"{"b":"x","a":1}"#,
            r#"{"b":"x",}"#,
            r#"{,"b":"x"}"#,
            r#"{"b":"x","e":1}"#,
            r#"{"a":01,"b":"x"}"#,
            r#"{"a":1.5,"b":"x"}"#,
            r#"[]"#,
            r#"[{"b":"x"} ]"#,
            r#"{"error":"missing_info"}"#,
            r#"{"error":"wrong_tool"}"#,
            r#"{"error":"wrong_tool","clarification_needed":"x"}"#,
        ] {
            assert!(!g.takes(refused), "{refused}");
        }
    }

    #[test]
    fn nested_objects_arrays_maps_and_unions() {
        let g = grammar_of(json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string", "maxLength": 3}, "qty": {"type": "integer"}},
                    "required": ["sku"],
                    "additionalProperties": false
                }},
                "tags": {"type": "array", "items": {"type": "string"}},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "meta": {"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": true},
                "note": {"type": ["string", "null"]},
                "when": {"anyOf": [{"type": "integer"}, {"const": "now"}]},
                "free": {}
            },
            "required": ["items"]
        }));
        for taken in [
            r#"{"items":[{"sku":"a1"}]}"#,
            r#"{"items":[{"sku":"","qty":2},{"sku":"xyz"}],"tags":[]}"#,
            r#"{"items":[{"sku":"a"}],"headers":{"X-A":"1","b":"q\"uote"}}"#,
            r#"{"items":[{"sku":"a"}],"headers":{}}"#,
            r#"{"items":[{"sku":"a"}],"meta":{"k":"v","other":[1,{"x":null}]}}"#,
            r#"{"items":[{"sku":"a"}],"meta":{"other":1}}"#,
            r#"{"items":[{"sku":"a"}],"note":null,"when":"now"}"#,
            r#"{"items":[{"sku":"a"}],"when":12,"free":{"any":[true,"x"]}}"#,
            r#"{"items":[{"sku":"\u00e9\n"}]}"#,
        ] {
            assert!(g.takes(taken), "{taken}");
        }
        for refused in [
            r#"{"items":[]}"#,
            r#"{"items":[{"sku":"abcd"}]}"#,
            r#"{"items":[{"sku":"a","x":1}]}"#,
            r#"{"items":[{"sku":"a"}],"headers":{"a":1}}"#,
            r#"{"items":[{"sku":"a"}],"when":"later"}"#,
            r#"{"items":[{"sku":"a"}],"note":3}"#,
            "{\"items\":[{\"sku\":\"a\u{1}\"}]}",
        ] {
            assert!(!g.takes(refused), "{refused}");
        }
    }

    #[test]
    fn keys_and_values_that_need_escaping_are_matched_exactly() {
        let g = grammar_of(json!({
            "type": "object",
            "properties": {
                "say \"hi\"": {"const": "back\\slash"},
                "é": {"enum": ["naïve", 1, null, true]}
            },
            "required": ["say \"hi\"", "é"]
        }));
        assert!(g.takes(r#"{"say \"hi\"":"back\\slash","é":"naïve"}"#));
        assert!(g.takes(r#"{"say \"hi\"":"back\\slash","é":null}"#));
        assert!(g.takes(r#"{"say \"hi\"":"back\\slash","é":1}"#));
        assert!(!g.takes(r#"{"say \"hi\"":"backslash","é":1}"#));
        assert!(!g.takes(r#"{"say \"hi\"":"back\\slash","é":"naive"}"#));
    }

    #[test]
    fn a_schema_cut_by_the_limits_takes_any_json() {
        let g = grammar_of(json!({
            "type": "object",
            "properties": {"node": {"$ref": "#"}},
        }));
        assert!(g.takes(r#"{"node":{"node":{"anything":[1,2]}}}"#));
        assert!(g.takes(r#"{}"#));
    }
}
