//! A plain-English description that runs away. A weak main model writing the one field of a
//! rewritten tool sometimes does not stop: it writes the same sentence again and again, or
//! ever more detail, for thousands of tokens, while the client waits (the 1.5B past 3,000
//! tokens, a minute and more on a CPU, where it stops at once when shown the real schema).
//! The driver watches each such call as it streams and cuts it here: the turn ends, the
//! upstream is left, and what was written (one copy of a loop, or the text up to the bound)
//! is translated as the call's description.

use crate::config::TranslationConfig;

/// How much more a description grows before it is looked at again: the check reads the whole
/// description, so it runs every so many bytes, not on every token.
pub(crate) const CHECK_EVERY: usize = 256;
/// A loop is cut only once it is this long: a short repeat ("at 7:00, then at 7:00") may be
/// what the user asked for; a run of this length that the user never wrote is not.
const LOOP_MIN_CHARS: usize = 200;
/// The shortest unit a loop repeats (shorter ones are tokens of a list: "0, 0, 0").
const LOOP_MIN_UNIT: usize = 8;
/// How many times the unit must follow itself.
const LOOP_MIN_REPEATS: usize = 3;

/// Why a description was cut; a metric label, so a closed set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// The same text over and over.
    Repeats,
    /// Longer than any description of the request needs.
    Length,
}

impl Why {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Why::Repeats => "repeats",
            Why::Length => "length",
        }
    }
}

/// A description cut short: what is kept, and why.
#[derive(Debug, PartialEq)]
pub(crate) struct Cut {
    pub text: String,
    pub why: Why,
    /// Characters written before the cut.
    pub written: usize,
}

/// What a request's descriptions may be: `limit` characters
/// (`translation.description_limit`) beyond the conversation's own text, which a description
/// may quote; 0 turns the watch off.
#[derive(Clone, Debug)]
pub(crate) struct Watch {
    limit: usize,
    /// The conversation's text (user, system and tool messages): a repeat it holds is quoted,
    /// not a loop.
    conversation: std::sync::Arc<str>,
}

impl Watch {
    pub(crate) fn new(config: &TranslationConfig, conversation: std::sync::Arc<str>) -> Watch {
        Watch {
            limit: config.description_limit,
            conversation,
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.limit > 0
    }

    /// The description in `arguments` (whole, or the readable start of one still streaming)
    /// cut short when it ran away; `None` while it has not.
    pub(crate) fn check(&self, arguments: &str, field: &str) -> Option<Cut> {
        if !self.enabled() {
            return None;
        }
        let text = crate::openai::nl_description(arguments, field)
            .or_else(|| super::call_form::cut_off_description(arguments, field))?;
        self.cut(&text)
    }

    fn cut(&self, text: &str) -> Option<Cut> {
        let written = text.chars().count();
        if let Some(kept) = loop_cut(text).filter(|kept| !self.quoted(&text[kept.len()..])) {
            return Some(Cut {
                text: kept.trim_end().to_owned(),
                why: Why::Repeats,
                written,
            });
        }
        let bound = self.limit + self.conversation.chars().count();
        if written <= bound {
            return None;
        }
        Some(Cut {
            text: cut_at_word(text, bound).to_owned(),
            why: Why::Length,
            written,
        })
    }

    /// Whether the conversation holds the start of `repeated` (a repeat the user wrote).
    fn quoted(&self, repeated: &str) -> bool {
        let start: String = repeated.chars().take(LOOP_MIN_CHARS).collect();
        let start = start.trim();
        !start.is_empty() && self.conversation.contains(start)
    }
}

/// When `text` ends in a loop (a unit of at least [`LOOP_MIN_UNIT`] characters following
/// itself at least [`LOOP_MIN_REPEATS`] times over at least [`LOOP_MIN_CHARS`]), the text
/// up to the loop's first unit; the rest is the repeats.
fn loop_cut(text: &str) -> Option<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    if n < LOOP_MIN_CHARS {
        return None;
    }
    // The prefix function of the reversed text: for each length `len` of the text's end,
    // its smallest period is `len - pi[len - 1]`.
    let reversed: Vec<char> = chars.iter().rev().map(|&(_, c)| c).collect();
    let mut pi = vec![0usize; n];
    for i in 1..n {
        let mut k = pi[i - 1];
        while k > 0 && reversed[i] != reversed[k] {
            k = pi[k - 1];
        }
        if reversed[i] == reversed[k] {
            k += 1;
        }
        pi[i] = k;
    }
    // The longest looping end wins: it leaves the least of the loop in.
    let (len, period) = (LOOP_MIN_CHARS..=n).rev().find_map(|len| {
        let period = len - pi[len - 1];
        (period >= LOOP_MIN_UNIT && len >= period * LOOP_MIN_REPEATS).then_some((len, period))
    })?;
    let keep = n - len + period;
    Some(&text[..chars.get(keep).map_or(text.len(), |&(at, _)| at)])
}

/// `text` up to `limit` characters, ended at the last word boundary before it.
fn cut_at_word(text: &str, limit: usize) -> &str {
    let end = text
        .char_indices()
        .nth(limit)
        .map_or(text.len(), |(at, _)| at);
    let head = &text[..end];
    match head.rfind(char::is_whitespace) {
        Some(at) if at > end / 2 => head[..at].trim_end(),
        _ => head.trim_end(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use super::*;

    fn watch(limit: usize, conversation: &str) -> Watch {
        Watch {
            limit,
            conversation: Arc::from(conversation),
        }
    }

    fn arguments(text: &str) -> String {
        serde_json::json!({ "description": text }).to_string()
    }

    #[test]
    fn a_loop_keeps_its_first_unit() {
        let unit = "then check the weather in Rome again, ";
        let text = format!("Book a table for two. {}", unit.repeat(12));
        let cut = watch(2000, "a table for two").cut(&text);
        assert_eq!(
            cut,
            Some(Cut {
                text: format!("Book a table for two. {}", unit.trim_end()),
                why: Why::Repeats,
                written: text.chars().count(),
            })
        );
    }

    #[test]
    fn a_loop_still_streaming_is_cut_at_any_phase() {
        let unit = "and remind me at 8, ";
        let text = format!("Remind me every Monday {}", unit.repeat(15));
        // Cut off in the middle of a unit, and of the JSON string.
        let streamed = &arguments(&text)[..arguments(&text).len() - 9];
        let cut = watch(2000, "").check(streamed, "description").unwrap();
        assert_eq!(cut.why, Why::Repeats);
        assert_eq!(cut.text, "Remind me every Monday and remind me at 8,");
    }

    #[test]
    fn a_long_description_is_cut_past_the_limit_and_the_conversation() {
        let words: Vec<String> = (0..400).map(|i| format!("field{i}")).collect();
        let text = words.join(" ");
        let cut = watch(300, "short request").cut(&text).unwrap();
        assert_eq!(cut.why, Why::Length);
        assert!(cut.text.chars().count() <= 300 + "short request".len());
        assert!(cut.text.starts_with("field0 field1"));
        assert!(!cut.text.ends_with(' '));
        assert!(text.starts_with(&cut.text));
    }

    #[test]
    fn what_is_not_a_runaway_is_left_alone() {
        let w = watch(2000, "");
        // A list of different items that share their words.
        let items: Vec<String> = (0..12)
            .map(|i| format!("create ticket {i} for the login bug with priority high, "))
            .collect();
        assert_eq!(w.cut(&items.concat()), None);
        // A short repeat, under the loop's length.
        assert_eq!(w.cut("at 7:00, then at 7:00, then at 7:00"), None);
        // Repeats of a unit shorter than a loop's: a list of zeros.
        assert_eq!(w.cut(&"0, ".repeat(100)), None);
        // Long, but within the limit.
        assert_eq!(
            w.cut(&"word ".repeat(300)[..1500].replace("word", "wörd")),
            None
        );
        // Not the one-field form at all.
        assert_eq!(w.check(r#"{"city": "Rome"}"#, "description"), None);
        // Off.
        assert_eq!(
            watch(0, "").check(&arguments(&"go on, ".repeat(99)), "description"),
            None
        );
    }

    #[test]
    fn a_repeat_the_conversation_holds_is_quoted_not_a_loop() {
        let data = "row: alpha beta gamma delta; ".repeat(10);
        let w = watch(2000, &format!("Store these rows: {data}"));
        assert_eq!(w.cut(&format!("Store the rows {data}")), None);
        // The same text, not in the conversation, is a loop.
        assert_eq!(
            watch(2000, "Store some rows")
                .cut(&format!("Store the rows {data}"))
                .map(|c| c.why),
            Some(Why::Repeats)
        );
    }

    #[test]
    fn a_long_description_the_conversation_accounts_for_is_kept() {
        let body = "lorem ipsum dolor sit amet ".repeat(3).to_owned()
            + &(0..200).map(|i| format!("w{i} ")).collect::<String>();
        let w = watch(100, &body);
        assert_eq!(
            w.cut(&format!("Send an email with this body: {body}")),
            None
        );
    }
}
