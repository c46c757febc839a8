//! Streaming in prompt mode: text goes out as it comes until something that may open a tool
//! call appears; from there it is held until the end, when it becomes calls or text.

/// What may start a call: fences, tags, or JSON.
const MARKERS: &[&str] = &[
    "```",
    "<tool_call",
    "<tool_calls",
    "<function_call",
    "<functioncall",
    "{",
    "[",
];

#[derive(Debug, Default)]
pub struct HoldBack {
    text: String,
    emitted: usize,
    holding: bool,
}

impl HoldBack {
    /// Adds a fragment; returns the text that can go to the client now.
    pub fn push(&mut self, fragment: &str) -> String {
        self.text.push_str(fragment);
        if self.holding {
            return String::new();
        }
        let pending = &self.text[self.emitted..];
        let safe = match MARKERS.iter().filter_map(|m| pending.find(m)).min() {
            Some(start) => {
                self.holding = true;
                start
            }
            // A marker may be cut in two: keep back a tail that could begin one.
            None => pending.len() - partial_marker_len(pending),
        };
        let out = pending[..safe].to_owned();
        self.emitted += safe;
        out
    }

    /// Holds a fragment whatever it holds (a whole answer is parsed whole).
    pub fn hold_all(&mut self, fragment: &str) {
        self.text.push_str(fragment);
        self.holding = true;
    }

    /// Lets go of what is held: it is returned, and later text goes on as it comes.
    pub fn release(&mut self) -> String {
        let out = self.text[self.emitted..].to_owned();
        self.emitted = self.text.len();
        self.holding = false;
        out
    }

    /// The text held back, for parsing at the end of the reply.
    pub fn held(&self) -> &str {
        &self.text[self.emitted..]
    }
}

/// The length of the longest tail of `text` that is a proper prefix of a marker.
fn partial_marker_len(text: &str) -> usize {
    MARKERS
        .iter()
        .flat_map(|m| (1..m.len()).rev().map(move |n| &m[..n]))
        .filter(|prefix| text.ends_with(prefix))
        .map(str::len)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_flows_and_a_marker_holds_the_rest() {
        let mut h = HoldBack::default();
        assert_eq!(h.push("Hello "), "Hello ");
        assert_eq!(h.push("there, I'll check.\n`"), "there, I'll check.\n");
        assert_eq!(h.push("``json\n{\"name\""), "");
        assert_eq!(h.push(": 1}\n```\nbye"), "");
        assert_eq!(h.held(), "```json\n{\"name\": 1}\n```\nbye");
    }

    #[test]
    fn a_cut_tag_is_held_until_it_is_clear() {
        let mut h = HoldBack::default();
        assert_eq!(h.push("ok <tool"), "ok ");
        assert_eq!(h.push("_call>{}"), "");
        assert_eq!(h.held(), "<tool_call>{}");
        let mut h = HoldBack::default();
        assert_eq!(h.push("a <to"), "a ");
        assert_eq!(h.push("day> is fine"), "<today> is fine");
        assert_eq!(h.held(), "");
    }

    #[test]
    fn every_split_gives_the_same_text() {
        let text = "Sure. <tool_call>{\"name\":\"x\"}</tool_call> done";
        for cut in 0..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut h = HoldBack::default();
            let mut out = h.push(&text[..cut]);
            out.push_str(&h.push(&text[cut..]));
            assert_eq!(out, "Sure. ", "cut at {cut}");
            assert_eq!(h.held(), &text[6..]);
        }
    }
}
