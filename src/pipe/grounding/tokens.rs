//! The conversation as tokens, once: Unicode word boundaries (UAX #29), never substrings or
//! prefixes of words. Every recognizer reads these spans; the one that reads numbers in words
//! also hands the text to `text2num` and lays what it finds back on them.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// What a token is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Letters (and digits after a letter: "mp3", "h2o").
    Word,
    /// Starts with a digit: "42", "3.5", "1,200", "5m", "16h", "25th".
    Number,
    /// One mark that is neither a letter, a digit nor white space: ":", "+", "€", "@", "/".
    Punct,
}

/// One token of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lowercased, as written ("mañana").
    pub lower: String,
    /// Lowercased with accents folded ("manana"): what the lexicons are keyed by.
    pub folded: String,
    /// Byte offsets in the text it was read from.
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
    /// White space (or the start of the text) right before it: "10 : 30" is no time, "10:30" is.
    pub spaced: bool,
}

/// Lowercase, accents folded: "Ñandú" is "nandu", "Straße" stays "straße".
pub fn fold(text: &str) -> String {
    // ASCII has no accents to fold: its lowercase is all (and much cheaper).
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether the tokens before index `end` end with one of the phrases `words` (folded; a
/// curly apostrophe is the straight one: "I’m at").
pub fn ends_with(tokens: &[Token], end: usize, words: &[&[&str]]) -> bool {
    words.iter().any(|words| {
        end.checked_sub(words.len()).is_some_and(|from| {
            words.iter().enumerate().all(|(k, w)| {
                tokens
                    .get(from + k)
                    .is_some_and(|t| t.folded == *w || (*w == "'" && t.lower == "\u{2019}"))
            })
        })
    })
}

/// The length of the first of the phrases `words` that starts at token `at`, if one does.
pub fn phrase_at(tokens: &[Token], at: usize, words: &[&[&str]]) -> Option<usize> {
    words
        .iter()
        .find(|w| at + w.len() <= tokens.len() && ends_with(tokens, at + w.len(), &[w]))
        .map(|w| w.len())
}

/// The tokens of `text`, in order. An apostrophe inside a word splits it ("l'heure" is "l"
/// and "heure", "o'clock" is "o" and "clock") so French and Italian elisions read as words.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut spaced = true;
    for (start, segment) in text.split_word_bound_indices() {
        if segment.chars().all(char::is_whitespace) {
            spaced = true;
            continue;
        }
        let mut offset = start;
        for piece in segment.split_inclusive(['\'', '’']) {
            let word = piece.trim_end_matches(['\'', '’']);
            if !word.is_empty() {
                push(&mut out, word, offset, spaced);
                spaced = false;
            }
            if word.len() < piece.len() {
                push(&mut out, &piece[word.len()..], offset + word.len(), false);
            }
            offset += piece.len();
        }
        spaced = false;
    }
    out
}

fn push(out: &mut Vec<Token>, piece: &str, start: usize, spaced: bool) {
    let Some(first) = piece.chars().next() else {
        return;
    };
    let kind = if first.is_numeric() {
        Kind::Number
    } else if first.is_alphabetic() || piece.chars().any(char::is_alphabetic) {
        Kind::Word
    } else {
        Kind::Punct
    };
    // A run of marks (a segment UAX #29 keeps whole, such as "..." or "=="): one each.
    if kind == Kind::Punct && piece.chars().count() > 1 {
        let mut offset = start;
        for (i, c) in piece.chars().enumerate() {
            let len = c.len_utf8();
            push(
                out,
                &piece[offset - start..offset - start + len],
                offset,
                spaced && i == 0,
            );
            offset += len;
        }
        return;
    }
    let lower = piece.to_lowercase();
    // ASCII lowercase is folded already.
    let folded = if piece.is_ascii() {
        lower.clone()
    } else {
        fold(piece)
    };
    out.push(Token {
        lower,
        folded,
        start,
        end: start + piece.len(),
        kind,
        spaced,
    });
}

/// A crude stem shared by every language grounding reads: plural and verb endings off, so
/// "reminders" meets "reminder" and "immediately" meets "immediate". Only ever compared with
/// another stem, never used as a prefix.
pub fn stem(word: &str) -> String {
    const SUFFIXES: &[&str] = &["ingly", "edly", "ing", "ies", "ly", "es", "ed", "s"];
    let mut out = word.to_owned();
    for suffix in SUFFIXES {
        if word.chars().count() > suffix.len() + 3 {
            if let Some(stripped) = word.strip_suffix(suffix) {
                out = if *suffix == "ies" {
                    format!("{stripped}y")
                } else {
                    stripped.to_owned()
                };
                break;
            }
        }
    }
    // "enable" and "enabled", "immediate" and "immediately" meet without their final e.
    if out.chars().count() > 4 && out.ends_with('e') {
        out.pop();
    }
    out
}

/// Inflectional endings of the six languages and of the unread ones a line of free text may
/// be in (plural, case, gender, verb person), and Romance object pronouns written onto a verb
/// ("prenderla", "prenderti"), folded.
#[rustfmt::skip]
const ENDINGS: &[&str] = &[
    "s", "es", "n", "en", "e", "er", "ern", "em", "t", "st", "a", "o", "as", "os", "i", "he",
    "ing", "ed", "la", "lo", "le", "li", "ti", "mi", "ci", "vi", "si", "me", "te", "se", "nos",
];

/// Words people cut short in free text, folded ("10 min", "in jan").
#[rustfmt::skip]
const ABBREVIATIONS: &[&str] = &[
    "min", "mins", "sec", "secs", "hr", "hrs", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "mon", "tue", "tues", "wed", "thu", "thur", "thurs",
    "fri", "sat", "sun", "approx", "dept", "info", "msg", "pic", "pics", "appt", "mtg", "admin",
    "doc", "docs", "prefs", "config", "repo", "repos",
];

/// Two forms of one word in free text: one the other with an inflectional ending
/// ("Wanderwegen" and "Wanderwege", "szállást" and "szállás", "Budapesten"), four letters of
/// stem at least, or two endings on six letters ("prenderla", "prenderti"; never "Drucker"
/// and "druckt": "er" and "t" on "druck"); or `said` a common abbreviation of `written`
/// ("min" for "minutes", "jan" for "January"). Never a prefix alone: "zqz" says no "zqzjjz".
/// Free text only: an identifier is its letters.
pub fn word_form(said: &str, written: &str) -> bool {
    let shared = said
        .chars()
        .zip(written.chars())
        .take_while(|(x, y)| x == y)
        .count();
    if shared < 3 {
        return false;
    }
    let at = |word: &str| {
        word.char_indices()
            .nth(shared)
            .map_or(word.len(), |(i, _)| i)
    };
    let (end_a, end_b) = (&said[at(said)..], &written[at(written)..]);
    let ending = |e: &str| e.is_empty() || ENDINGS.contains(&e);
    let one_ending = shared >= 4 && (end_a.is_empty() || end_b.is_empty());
    let two_endings = shared >= 6 && !end_a.is_empty() && !end_b.is_empty();
    let inflected = (one_ending || two_endings) && ending(end_a) && ending(end_b);
    // A common abbreviation, cut from the word it stands for ("jan" for "January").
    let cut = end_a.is_empty()
        && ABBREVIATIONS.contains(&said)
        && written.chars().count() <= said.chars().count() + 7;
    let cut_plural = said.strip_suffix('s').is_some_and(|one| {
        ABBREVIATIONS.contains(&one) && written.starts_with(one) && one.chars().count() >= 3
    });
    inflected || cut || cut_plural
}

/// Where the folded words `words` stand one after another in `tokens`: the index of each
/// first token.
pub fn places_of(tokens: &[Token], words: &[String]) -> Vec<usize> {
    (0..tokens.len())
        .filter(|&i| {
            words
                .iter()
                .enumerate()
                .all(|(k, w)| tokens.get(i + k).is_some_and(|t| t.folded == *w))
        })
        .collect()
}

/// Two stems of one word in two of the six languages ("immediat", "inmediat", "imediat"):
/// equal, or long and a letter or two apart with the same first letter. Short words never:
/// one letter makes another word of them.
pub fn cognate(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // Romance endings off: "inmediato", "immediato", "immediate" meet as "inmediat".
    let ending = |w: &str| -> String {
        w.trim_end_matches('s')
            .trim_end_matches(['a', 'e', 'i', 'o'])
            .to_owned()
    };
    // German and Romance inflections: "sofortig", "sofortiger", "sofortigen".
    const INFLECTIONS: [&str; 7] = ["e", "en", "er", "es", "em", "n", "s"];
    let inflected = |long: &str, short: &str| {
        short.chars().count() >= 6
            && long
                .strip_prefix(short)
                .is_some_and(|rest| INFLECTIONS.contains(&rest))
    };
    if inflected(a, b) || inflected(b, a) {
        return true;
    }
    let (a, b) = (ending(a), ending(b));
    let (a, b) = (a.as_str(), b.as_str());
    if a == b && a.chars().count() >= 4 {
        return true;
    }
    let shorter = a.chars().count().min(b.chars().count());
    let reach = match shorter {
        0..=5 => return false,
        6..=8 => 1,
        _ => 2,
    };
    a.chars().next() == b.chars().next() && strsim::levenshtein(a, b) <= reach
}

/// Words of an identifier or a phrase as grounding compares them: camelCase and snake_case
/// split, folded. "importPath" is "import" and "path"; "notes_final.txt" is "notes", "final",
/// "txt".
pub fn words_of(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && previous_lower && !current.is_empty() {
                words.push(fold(&std::mem::take(&mut current)));
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            current.push(c);
        } else {
            previous_lower = false;
            if !current.is_empty() {
                words.push(fold(&std::mem::take(&mut current)));
            }
        }
    }
    if !current.is_empty() {
        words.push(fold(&current));
    }
    words
}

/// Letters and digits only, folded: a code or a number written with any separators.
pub fn compact(text: &str) -> String {
    let mut out = String::new();
    compact_into(&mut out, text);
    out
}

/// [`compact`], written at the end of `out`.
pub fn compact_into(out: &mut String, text: &str) {
    if text.is_ascii() {
        // Nothing to fold but the case.
        out.extend(
            text.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
    } else {
        out.extend(fold(text).chars().filter(|c| c.is_alphanumeric()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowers(text: &str) -> Vec<String> {
        tokenize(text).into_iter().map(|t| t.lower).collect()
    }

    #[test]
    fn words_numbers_and_marks_by_unicode_boundaries() {
        assert_eq!(
            lowers("Book 4 seats, 10:30!"),
            ["book", "4", "seats", ",", "10", ":", "30", "!"]
        );
        assert_eq!(
            lowers("a 5m cable, 3.5 kg"),
            ["a", "5m", "cable", ",", "3.5", "kg"]
        );
        assert_eq!(lowers("Rename notes.txt"), ["rename", "notes.txt"]);
        // Never a prefix: "important" is one word, not "import".
        assert_eq!(lowers("This is important"), ["this", "is", "important"]);
    }

    #[test]
    fn elisions_split_and_accents_fold() {
        assert_eq!(lowers("à l'heure"), ["à", "l", "'", "heure"]);
        let tokens = tokenize("Mañana Übermorgen");
        assert_eq!(tokens[0].folded, "manana");
        assert_eq!(tokens[1].folded, "ubermorgen");
        assert_eq!(tokens[1].lower, "übermorgen");
    }

    #[test]
    fn spacing_is_kept() {
        let tokens = tokenize("10:30 and 10 : 30");
        assert!(!tokens[1].spaced && !tokens[2].spaced);
        assert!(tokens[5].spaced && tokens[6].spaced);
    }

    #[test]
    fn stems_meet_only_stems() {
        assert_eq!(stem("reminders"), "reminder");
        assert_eq!(stem("immediately"), stem("immediate"));
        assert_eq!(stem("enabled"), stem("enable"));
        assert_ne!(stem("important"), stem("import"));
        assert_eq!(stem("us"), "us");
        assert_eq!(words_of("importPath"), ["import", "path"]);
        assert_eq!(compact("+44 20 7946-0958"), "442079460958");
        assert!(cognate(&stem("inmediato"), &stem("immediate")));
        assert!(cognate(&stem("imediato"), &stem("immediate")));
        assert!(!cognate(&stem("important"), &stem("import")));
        assert!(cognate("sofortiger", "sofortig"));
        assert!(!cognate(&stem("public"), &stem("publish")));
    }
}
