//! Calls a native-mode model wrote as text. Small models given native tools sometimes answer
//! with the call written out (`{"name": "set_reminder", "arguments": {...}}`, bare, fenced or
//! in `<tool_call>` tags) instead of as a tool call, and the request ends without one. A reply
//! that *opens* with such a call to a tool plaincall handles is read as that call, with prompt
//! mode's parser ([`crate::pipe::prompt_mode::parse`]). Only the opening is held back, and
//! only until it names a known tool or shows it cannot ([`LOOK`] bytes at most), so a reply of
//! ordinary text, or one that opens with other JSON or code, streams as before.

/// What the start of a reply says about a call written as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opening {
    /// Too little written to tell.
    Undecided,
    /// An object that names a known tool: held to the end and parsed.
    Call,
    /// Anything else: it goes on as it came.
    Text,
}

/// Fences and tags a call written as text comes in; longest first where one begins another.
const OPENERS: &[&str] = &[
    "```",
    "<tool_calls>",
    "<tool_call>",
    "<function_call>",
    "<functioncall>",
    "[TOOL_CALLS]",
];

/// The bytes of a reply's start within which a call names its tool. A model's call opens with
/// the name (`{"name": ...`, `{"function": {"name": ...`); past this, the text is no call.
const LOOK: usize = 256;

/// Reads the start of a reply's text (white space first is skipped).
pub(crate) fn opening(text: &str, known: &dyn Fn(&str) -> bool) -> Opening {
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Opening::Undecided;
    }
    match OPENERS
        .iter()
        .find_map(|o| rest.strip_prefix(o).map(|r| (*o, r)))
    {
        Some((opener, after)) => {
            rest = after;
            if opener == "```" {
                // The fence's language word ("json", "tool_call"), then its line's end.
                let word = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                rest = &rest[word..];
            }
        }
        None if OPENERS.iter().any(|o| o.starts_with(rest)) => return undecided(text),
        None => {}
    }
    rest = rest.trim_start();
    if let Some(after) = rest.strip_prefix('[') {
        rest = after.trim_start();
    }
    if rest.is_empty() {
        return undecided(text);
    }
    if !rest.starts_with('{') {
        return Opening::Text;
    }
    let window = &rest[..floor_boundary(rest, LOOK)];
    if strings(window).any(known) {
        return Opening::Call;
    }
    // The window is the object's first bytes, whatever fence stood before it: a stream and a
    // whole reply are judged alike.
    undecided(rest)
}

/// Undecided while `text` (trimmed) is shorter than [`LOOK`]; past it, text.
fn undecided(text: &str) -> Opening {
    match text.trim_start().len() < LOOK {
        true => Opening::Undecided,
        false => Opening::Text,
    }
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The JSON string literals of `text` that are closed, without their quotes (escapes are left
/// as written: a tool's name holds none).
fn strings(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find('"')? + 1;
        let body = &rest[start..];
        let mut escaped = false;
        let end = body.char_indices().find_map(|(at, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes.then_some(at)
        })?;
        rest = &body[end + 1..];
        Some(&body[..end])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Opening {
        opening(text, &|name| name == "set_reminder" || name == "check_lock")
    }

    #[test]
    fn a_call_to_a_known_tool_opens_a_call() {
        for text in [
            r#"{"name": "set_reminder", "arguments": {"description": "x"}}"#,
            "\n  ```json\n{\"name\": \"check_lock\"",
            "```\n[{\"function\": {\"name\": \"set_reminder\"",
            "<tool_call>\n{\"name\": \"check_lock\", \"arguments\": {}}",
            "[TOOL_CALLS] [{\"name\": \"set_reminder\"",
            "{\"tool\":\"check_lock\"}",
        ] {
            assert_eq!(read(text), Opening::Call, "{text}");
        }
    }

    #[test]
    fn a_start_that_may_still_become_a_call_is_undecided() {
        for text in [
            "",
            "  \n",
            "`",
            "``",
            "```",
            "```json\n",
            "<tool",
            "{",
            "{\"na",
            "[\n",
        ] {
            assert_eq!(read(text), Opening::Undecided, "{text:?}");
        }
    }

    #[test]
    fn prose_code_and_other_json_are_text() {
        for text in [
            "Sure! I set the reminder.",
            "The lock is engaged.",
            "```python\nprint(1)",
            "<html>",
            "[1, 2, 3]",
            "- item",
            // An object that names no known tool within its first bytes.
            &format!(
                "{{\"config\": \"{}\", \"name\": \"set_reminder\"}}",
                "x".repeat(300)
            ),
            // A name that only begins with a tool's.
            &format!("{{\"name\": \"set_reminders\"{}", " ".repeat(300)),
        ] {
            assert_eq!(read(text), Opening::Text, "{text}");
        }
    }

    #[test]
    fn no_prefix_of_a_call_is_text() {
        // The name late in the window, after a fence: every prefix a stream holds is
        // undecided or a call, as the whole reply is a call.
        let object = format!(
            "{{\"arguments\": {{\"description\": \"{}\"}}, \"name\": \"set_reminder\"}}",
            "x".repeat(196)
        );
        let whole = format!("```json\n{object}\n```");
        assert_eq!(read(&whole), Opening::Call);
        for end in (1..whole.len()).filter(|e| whole.is_char_boundary(*e)) {
            assert_ne!(read(&whole[..end]), Opening::Text, "{end}");
        }
    }

    #[test]
    fn strings_are_read_whole_with_their_escapes() {
        let found: Vec<&str> = strings(r#"{"a": "b \" c", "set_reminder"#).collect();
        assert_eq!(found, vec!["a", "b \\\" c"]);
    }

    #[test]
    fn the_window_is_cut_on_a_char_boundary() {
        let text = format!("{{\"x\": \"{}\"", "é".repeat(200));
        assert_eq!(read(&text), Opening::Text);
    }
}
