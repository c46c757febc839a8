//! Tool calls out of reply text, in the forms small models really write: ```json fences, bare
//! objects with `name`/`tool` and `arguments`/`parameters`, arrays of calls, `<tool_call>` and
//! similar tags, several calls in one reply, text around them. Only calls to known tools
//! count; everything else stays text. JSON itself is read by serde_json's stream
//! deserializer, which also says where each value ends.

use serde_json::{Map, Value};

/// One call found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedCall {
    pub name: String,
    pub arguments: Value,
}

/// The reply split into calls and the text that remains.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedReply {
    pub content: String,
    pub calls: Vec<ParsedCall>,
}

/// Tags small models wrap calls in.
const TAGS: &[(&str, &str)] = &[
    ("<tool_call>", "</tool_call>"),
    ("<tool_calls>", "</tool_calls>"),
    ("<function_call>", "</function_call>"),
    ("<functioncall>", "</functioncall>"),
    ("[TOOL_CALLS]", ""),
];

/// Bounds the work on hostile input: JSON starts tried per reply.
const MAX_CANDIDATES: usize = 256;
/// Replies longer than this are text: each candidate may scan to the end, so the work grows
/// with the length (1.7 s for 1 MiB of crafted input), and no model writes calls that long.
const MAX_PARSED_BYTES: usize = 256 * 1024;

pub fn parse_calls(text: &str, known: &dyn Fn(&str) -> bool) -> ParsedReply {
    if text.len() > MAX_PARSED_BYTES {
        return ParsedReply {
            content: text.to_owned(),
            calls: Vec::new(),
        };
    }
    parse_nested(text, known, 0)
}

/// `depth` counts tags and fences inside one another: only one level is looked into.
fn parse_nested(text: &str, known: &dyn Fn(&str) -> bool, depth: usize) -> ParsedReply {
    let mut calls = Vec::new();
    // Byte ranges of `text` that held calls and are cut from the content.
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut position = 0;
    let mut candidates = 0;
    while position < text.len() && candidates < MAX_CANDIDATES {
        let Some((start, kind)) = next_candidate(text, position) else {
            break;
        };
        candidates += 1;
        let (found, region_end, skip_to) = candidate(text, start, kind, known, depth);
        if found.is_empty() {
            position = skip_to;
        } else {
            calls.extend(found);
            taken.push((start, region_end));
            position = region_end;
        }
    }
    let mut content = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in taken {
        content.push_str(&text[last..start]);
        last = end;
    }
    content.push_str(&text[last..]);
    ParsedReply {
        content: tidy(&content),
        calls,
    }
}

/// The calls in the candidate at `start`, where its region ends, and where to look on from
/// when it holds none.
fn candidate(
    text: &str,
    start: usize,
    kind: Candidate,
    known: &dyn Fn(&str) -> bool,
    depth: usize,
) -> (Vec<ParsedCall>, usize, usize) {
    match kind {
        Candidate::Tag(open, close) => {
            let body_start = start + open.len();
            let body_end = if close.is_empty() {
                text.len()
            } else {
                text[body_start..]
                    .find(close)
                    .map_or(text.len(), |i| body_start + i)
            };
            let region_end = (body_end + close.len()).min(text.len());
            let found = calls_in_json_text(&text[body_start..body_end], known, depth);
            // Whatever the tag holds, it is not a call: the region stays text.
            (found, region_end, region_end.max(start + 1))
        }
        Candidate::Fence => {
            let after = start + 3;
            let body_start = text[after..]
                .find('\n')
                .map_or(text.len(), |i| after + i + 1);
            let body_end = text[body_start..]
                .find("```")
                .map_or(text.len(), |i| body_start + i);
            let region_end = (body_end + 3).min(text.len());
            let found = calls_in_json_text(&text[body_start..body_end], known, depth);
            (found, region_end, region_end)
        }
        Candidate::Json => match crate::json::value_at(text, start) {
            // JSON that is not a call is data: not looked inside.
            Some((value, end)) => (calls_in_value(&value, known), end, end),
            None => (Vec::new(), start + 1, start + 1),
        },
    }
}

enum Candidate {
    Tag(&'static str, &'static str),
    Fence,
    Json,
}

fn next_candidate(text: &str, from: usize) -> Option<(usize, Candidate)> {
    let rest = &text[from..];
    let mut best: Option<(usize, Candidate)> = None;
    let mut consider = |offset: Option<usize>, kind: Candidate| {
        if let Some(offset) = offset {
            if best.as_ref().is_none_or(|(b, _)| offset < *b) {
                best = Some((offset, kind));
            }
        }
    };
    for (open, close) in TAGS {
        consider(rest.find(open), Candidate::Tag(open, close));
    }
    consider(rest.find("```"), Candidate::Fence);
    consider(rest.find(['{', '[']), Candidate::Json);
    best.map(|(offset, kind)| (from + offset, kind))
}

/// Calls in a block that should be JSON: one value, several values one after another (one
/// per line, say), or JSON inside more prose.
fn calls_in_json_text(block: &str, known: &dyn Fn(&str) -> bool, depth: usize) -> Vec<ParsedCall> {
    let trimmed = block.trim();
    let mut calls = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<Value>();
    while let Some(Ok(value)) = stream.next() {
        calls.extend(calls_in_value(&value, known));
    }
    if calls.is_empty() && depth == 0 && !trimmed.starts_with(['{', '[']) {
        return parse_nested(trimmed, known, depth + 1).calls;
    }
    calls
}

fn calls_in_value(value: &Value, known: &dyn Fn(&str) -> bool) -> Vec<ParsedCall> {
    match value {
        Value::Array(items) => {
            let calls: Vec<ParsedCall> = items
                .iter()
                .filter_map(|item| call_in_object(item, known))
                .collect();
            // A list counts only when every element is a call: otherwise it is data.
            if calls.len() == items.len() {
                calls
            } else {
                Vec::new()
            }
        }
        Value::Object(map) => {
            for key in ["tool_calls", "calls"] {
                if let Some(inner) = map.get(key) {
                    if map.len() == 1 {
                        return calls_in_value(inner, known);
                    }
                }
            }
            if let Some(inner) = map.get("tool_call") {
                if map.len() == 1 {
                    return calls_in_value(inner, known);
                }
            }
            call_in_object(value, known).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

fn call_in_object(value: &Value, known: &dyn Fn(&str) -> bool) -> Option<ParsedCall> {
    let map = value.as_object()?;
    // OpenAI's own shape: {"type": "function", "function": {"name", "arguments"}}.
    if let Some(function) = map.get("function").and_then(Value::as_object) {
        return call_from_parts(function, known);
    }
    call_from_parts(map, known)
}

fn call_from_parts(map: &Map<String, Value>, known: &dyn Fn(&str) -> bool) -> Option<ParsedCall> {
    let name = ["name", "tool", "tool_name", "function"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))?;
    if !known(name) {
        return None;
    }
    let arguments = ["arguments", "parameters", "args", "input"]
        .iter()
        .find_map(|k| map.get(*k));
    let arguments = match arguments {
        None => {
            // Only the name and perhaps an id: a call without arguments.
            let extra = map
                .keys()
                .filter(|k| {
                    !matches!(
                        k.as_str(),
                        "name" | "tool" | "tool_name" | "function" | "id" | "type"
                    )
                })
                .count();
            if extra > 0 {
                return None;
            }
            Value::Object(Map::new())
        }
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ if text.trim().is_empty() => Value::Object(Map::new()),
            _ => return None,
        },
        Some(object @ Value::Object(_)) => object.clone(),
        Some(Value::Null) => Value::Object(Map::new()),
        Some(_) => return None,
    };
    Some(ParsedCall {
        name: name.to_owned(),
        arguments,
    })
}

/// JSON's whitespace: trimming only this never joins text into a call the parser rejected.
fn json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Trims and collapses the blank lines left where calls were cut out.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.trim_matches(json_space).lines() {
        if line.trim_matches(json_space).is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line.trim_end_matches(json_space));
        out.push('\n');
    }
    out.trim_end_matches(json_space).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn known(name: &str) -> bool {
        matches!(name, "get_weather" | "set_reminder" | "search")
    }

    fn call(name: &str, arguments: Value) -> ParsedCall {
        ParsedCall {
            name: name.into(),
            arguments,
        }
    }

    /// (reply, expected calls, expected remaining content)
    fn table() -> Vec<(&'static str, Vec<ParsedCall>, &'static str)> {
        let paris = || call("get_weather", json!({"city": "Paris"}));
        let rome = || call("get_weather", json!({"city": "Rome"}));
        vec![
            // Fences
            ("```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", vec![paris()], ""),
            ("```\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", vec![paris()], ""),
            ("```tool_call\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n```", vec![paris()], ""),
            ("I'll check.\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", vec![paris()], "I'll check."),
            ("```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nThis gets the weather.", vec![paris()], "This gets the weather."),
            ("```json\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}]\n```", vec![paris(), rome()], ""),
            ("```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n```", vec![paris(), rome()], ""),
            ("```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n```", vec![paris(), rome()], ""),
            ("```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("```python\nprint({\"a\": 1})\n```", vec![], "```python\nprint({\"a\": 1})\n```"),
            ("```json\n{\"city\": \"Paris\", \"temp\": 21}\n```", vec![], "```json\n{\"city\": \"Paris\", \"temp\": 21}\n```"),
            // Bare objects, other key names
            ("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("{\"tool\": \"get_weather\", \"args\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("{\"tool_name\": \"get_weather\", \"input\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}", vec![paris()], ""),
            ("{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}}", vec![paris()], ""),
            ("{\"tool_call\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}}", vec![paris()], ""),
            ("{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}]}", vec![paris(), rome()], ""),
            ("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", vec![paris()], ""),
            ("Sure, calling it now: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}} and that's it.", vec![paris()], "Sure, calling it now:  and that's it."),
            ("{\"name\": \"search\"}", vec![call("search", json!({}))], ""),
            ("{\"name\": \"search\", \"arguments\": null}", vec![call("search", json!({}))], ""),
            ("{\"name\": \"search\", \"arguments\": \"\"}", vec![call("search", json!({}))], ""),
            // Tags
            ("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![paris()], ""),
            ("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call>", vec![paris(), rome()], ""),
            ("Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", vec![paris()], "Let me look."),
            ("<tool_call>\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\n</tool_call>", vec![paris()], ""),
            ("<function_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</function_call>", vec![paris()], ""),
            ("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", vec![paris()], ""),
            ("[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]", vec![paris()], ""),
            // Unknown tools, lookalikes and broken JSON stay text
            ("{\"name\": \"delete_everything\", \"arguments\": {}}", vec![], "{\"name\": \"delete_everything\", \"arguments\": {}}"),
            ("```json\n{\"name\": \"rm_rf\", \"arguments\": {}}\n```", vec![], "```json\n{\"name\": \"rm_rf\", \"arguments\": {}}\n```"),
            ("The set {1, 2, 3} has three elements.", vec![], "The set {1, 2, 3} has three elements."),
            ("Use [brackets] and {braces} freely.", vec![], "Use [brackets] and {braces} freely."),
            ("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}", vec![], "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}"),
            ("{\"name\": \"get_weather\", \"arguments\": [1, 2]}", vec![], "{\"name\": \"get_weather\", \"arguments\": [1, 2]}"),
            ("{\"name\": \"get_weather\", \"arguments\": \"Paris\"}", vec![], "{\"name\": \"get_weather\", \"arguments\": \"Paris\"}"),
            ("{\"name\": \"get_weather\", \"city\": \"Paris\"}", vec![], "{\"name\": \"get_weather\", \"city\": \"Paris\"}"),
            ("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, 42]", vec![], "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, 42]"),
            ("<tool_call>not json at all</tool_call>", vec![], "<tool_call>not json at all</tool_call>"),
            ("My name is Bob.", vec![], "My name is Bob."),
            ("", vec![], ""),
            // Mixed: a known call and an unknown one
            ("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n{\"name\": \"nope\", \"arguments\": {}}", vec![paris()], "{\"name\": \"nope\", \"arguments\": {}}"),
            ("First: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\nSecond: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}", vec![paris(), rome()], "First:\nSecond:"),
            ("{\"name\": \"set_reminder\", \"arguments\": {\"description\": \"daily at 9 {check} email\"}}", vec![call("set_reminder", json!({"description": "daily at 9 {check} email"}))], ""),
        ]
    }

    #[test]
    fn real_world_shaped_replies() {
        let table = table();
        assert!(table.len() >= 40);
        for (reply, calls, content) in table {
            let parsed = parse_calls(reply, &known);
            assert_eq!(parsed.calls, calls, "calls of {reply:?}");
            assert_eq!(parsed.content, content, "content of {reply:?}");
        }
    }

    #[test]
    fn replies_past_the_limit_are_text() {
        let call = "{\"name\": \"search\"}";
        let long = format!("{call}{}", " ".repeat(MAX_PARSED_BYTES));
        let parsed = parse_calls(&long, &known);
        assert!(parsed.calls.is_empty());
        assert_eq!(parsed.content, long);
        assert_eq!(parse_calls(call, &known).calls.len(), 1);
    }

    #[test]
    fn hostile_input_stays_text() {
        for text in [
            "{".repeat(100_000),
            "[".repeat(100_000),
            "```".repeat(10_000),
            "<tool_call>".repeat(10_000),
        ] {
            let parsed = parse_calls(&text, &known);
            assert!(parsed.calls.is_empty());
        }
    }
}
