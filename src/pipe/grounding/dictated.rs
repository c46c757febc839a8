//! An identifier said aloud: its marks said as words ("jen dot park at outlook dot com",
//! "recrutement arobase boulangerie-martin point fr", "fix barra login-timeout"), its digits
//! as number words ("maria guion bajo ge ochenta y cinco" is `maria_g85`), a letter by its
//! name, commas and hyphens as the pauses of dictation. A value is said when a run of the
//! conversation's tokens, each read one of these ways, spells all of it, in order, from one
//! token's edge to another's, and at least one of them was said in words: one changed mark
//! or digit spells another value ("jen underscore park" is no `jen.park`). Two words as
//! written are two words ("jen park" spells no `jenpark`), and an address needs its domain
//! dotted ("Jen at Acme" is no `jen@acme`).

use super::evidence::Evidence;
use super::tokens::{Kind, Token};

/// Whether `value`, an identifier with a mark or a digit in it, is spelled out in words in
/// the evidence.
pub(super) fn said(value: &str, evidence: &Evidence) -> bool {
    let target = value.trim().to_lowercase();
    if target.is_empty()
        || target.len() > LONGEST
        || target.chars().any(char::is_whitespace)
        || !target
            .chars()
            .any(|c| MARKS.iter().any(|(mark, _)| *mark == c) || c.is_numeric())
    {
        return false;
    }
    // An address said with "at" is one with its domain dotted: "Jen at Acme" is no
    // `jen@acme`.
    if target
        .split_once('@')
        .is_some_and(|(_, domain)| !domain.contains('.'))
    {
        return false;
    }
    let tokens = &evidence.tokens;
    (0..tokens.len()).any(|start| {
        may_start(evidence, start, &target)
            && readings(evidence, start)
                .iter()
                .any(|reading| target.starts_with(reading.text.as_str()))
            && Search::new(evidence, &target).spells(start, 0, false, Last::Start)
    })
}

/// Whether token `i` may read as the start of `target`, told without building its
/// readings: most tokens of a conversation are not (grounding runs on every call).
fn may_start(evidence: &Evidence, i: usize, target: &str) -> bool {
    let token = &evidence.tokens[i];
    if target.starts_with(token.lower.as_str()) {
        return true;
    }
    if token.kind != Kind::Word {
        return false;
    }
    let Some(first) = target.chars().next() else {
        return false;
    };
    let folded = token.folded.as_str();
    if first.is_ascii_digit() {
        return digit_at(&evidence.tokens, i).is_some()
            || matches!(folded, "double" | "triple")
            || evidence.facts.number_spans.iter().any(|s| s.start == i);
    }
    MARKS.iter().any(|(mark, names)| {
        *mark == first
            && names
                .iter()
                .any(|name| name.split(' ').next() == Some(folded))
    }) || LETTERS
        .iter()
        .any(|(letter, names)| *letter == first && names.contains(&folded))
}

/// The longest value read as dictated: an address or a handle, not a document. With one
/// pause at most between two readings, it bounds how deep the search goes.
const LONGEST: usize = 128;

/// What the reading before stood for: the run's start, a pause, a word read as written, or
/// anything else (a mark, a digit, a letter, a number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Last {
    Start,
    Pause,
    Word,
    Other,
}

/// One way to read a token.
struct Reading {
    text: String,
    /// The token after it.
    next: usize,
    /// Said in words for a sign: a mark's name, a number or a digit in words, a letter's name.
    in_words: bool,
    /// A word read as it is written.
    plain_word: bool,
}

/// A search for one value from one token, remembering the states that failed: each state
/// (token, how much of the value is spelled, whether words were read for signs, what the
/// last reading was) is tried once, so the search is linear in the text it reads.
struct Search<'a> {
    evidence: &'a Evidence,
    target: &'a str,
    failed: std::collections::HashSet<(usize, usize, bool, Last)>,
}

impl<'a> Search<'a> {
    fn new(evidence: &'a Evidence, target: &'a str) -> Search<'a> {
        Search {
            evidence,
            target,
            failed: std::collections::HashSet::new(),
        }
    }

    /// Whether the tokens from `i` on spell the value from byte `at` on.
    fn spells(&mut self, i: usize, at: usize, spoken: bool, last: Last) -> bool {
        if at == self.target.len() {
            return spoken;
        }
        let state = (i, at, spoken, last);
        if self.failed.contains(&state) {
            return false;
        }
        let found = self.step(i, at, spoken, last);
        if !found {
            self.failed.insert(state);
        }
        found
    }

    fn step(&mut self, i: usize, at: usize, spoken: bool, last: Last) -> bool {
        let Some(token) = self.evidence.tokens.get(i) else {
            return false;
        };
        // A comma or a hyphen between words read out is a pause ("oh-two-oh, seven nine");
        // one at most in a row. A hyphen the value holds is read as itself below.
        let pause = !matches!(last, Last::Start | Last::Pause)
            && token.kind == Kind::Punct
            && matches!(token.lower.as_str(), "," | "-");
        if pause && self.spells(i + 1, at, spoken, Last::Pause) {
            return true;
        }
        let rest = &self.target[at..];
        for reading in readings(self.evidence, i) {
            // Two words as written are two words: "jen park" spells no "jenpark".
            if reading.plain_word && last == Last::Word {
                continue;
            }
            if !rest.starts_with(reading.text.as_str()) {
                continue;
            }
            let next = if reading.plain_word {
                Last::Word
            } else {
                Last::Other
            };
            if self.spells(
                reading.next,
                at + reading.text.len(),
                spoken || reading.in_words,
                next,
            ) {
                return true;
            }
        }
        false
    }
}

/// The ways token `i` may be read in a dictated identifier: its text, a mark its words name,
/// a number said in words from it, a digit's or a letter's name, each once.
fn readings(evidence: &Evidence, i: usize) -> Vec<Reading> {
    let tokens = &evidence.tokens;
    let token = &tokens[i];
    let mut out = vec![Reading {
        text: token.lower.clone(),
        next: i + 1,
        in_words: false,
        plain_word: token.kind == Kind::Word,
    }];
    if token.kind != Kind::Word {
        return out;
    }
    let mut said = |text: String, next: usize| {
        // "one" is a digit and a number of one word: one reading.
        if !out.iter().any(|r| r.text == text && r.next == next) {
            out.push(Reading {
                text,
                next,
                in_words: true,
                plain_word: false,
            });
        }
    };
    for (mark, names) in MARKS {
        for name in names.iter() {
            if let Some(next) = words_at(tokens, i, name) {
                said(mark.to_string(), next);
            }
        }
    }
    // The spans are in order of their start.
    let spans = &evidence.facts.number_spans;
    let from = spans.partition_point(|s| s.start < i);
    for span in spans[from..].iter().take_while(|s| s.start == i) {
        if span.in_words && !span.ordinal && span.value >= 0.0 && span.value.fract() == 0.0 {
            // A number reader takes a zero said first into the number: "cero cuarenta y
            // cinco" is 045 dictated.
            let zero = if DIGITS[0].contains(&token.folded.as_str()) && span.value > 0.0 {
                "0"
            } else {
                ""
            };
            said(format!("{zero}{}", span.value as u64), span.end);
        }
    }
    if let Some(digit) = digit_at(tokens, i) {
        said(digit.to_string(), i + 1);
    }
    // "double oh", "triple-five": a digit said twice or three times.
    let times = match token.folded.as_str() {
        "double" => 2,
        "triple" => 3,
        _ => 0,
    };
    if times > 0 {
        let at = if tokens.get(i + 1).is_some_and(|t| t.lower == "-") {
            i + 2
        } else {
            i + 1
        };
        if let Some(digit) = digit_at(tokens, at) {
            said(digit.to_string().repeat(times), at + 1);
        }
    }
    for (letter, names) in LETTERS {
        if names.contains(&token.folded.as_str()) {
            said(letter.to_string(), i + 1);
        }
    }
    out
}

/// The digit token `i` names by its word ("oh", "cero", "vier").
fn digit_at(tokens: &[Token], i: usize) -> Option<usize> {
    let token = tokens.get(i).filter(|t| t.kind == Kind::Word)?;
    DIGITS
        .iter()
        .position(|names| names.contains(&token.folded.as_str()))
}

/// The token after the words of `name` (folded, space-separated) when they stand from `i`.
fn words_at(tokens: &[Token], i: usize, name: &str) -> Option<usize> {
    let mut at = i;
    for word in name.split(' ') {
        let token = tokens.get(at).filter(|t| t.kind == Kind::Word)?;
        if token.folded != word {
            return None;
        }
        at += 1;
    }
    Some(at)
}

/// The marks of addresses and names, and their names in the six languages (folded).
#[rustfmt::skip]
const MARKS: [(char, &[&str]); 5] = [
    ('@', &["at", "arroba", "arobase", "chiocciola", "klammeraffe"]),
    ('.', &["dot", "punto", "point", "punkt", "ponto"]),
    ('_', &["underscore", "guion bajo", "tiret bas", "unterstrich", "sublinhado", "underline",
            "trattino basso"]),
    ('-', &["dash", "hyphen", "guion", "tiret", "bindestrich", "traco", "hifen", "trattino"]),
    ('/', &["slash", "barra", "barre", "schragstrich"]),
];

/// The digits' own words, which a number reader may read otherwise ("zero" of "zero one").
#[rustfmt::skip]
const DIGITS: [&[&str]; 10] = [
    &["zero", "cero", "null", "oh"],
    &["one", "uno", "un", "une", "eins", "um", "uma"],
    &["two", "dos", "deux", "zwei", "zwo", "dois", "duas", "due"],
    &["three", "tres", "trois", "drei", "tre"],
    &["four", "cuatro", "quatre", "vier", "quatro", "quattro"],
    &["five", "cinco", "cinq", "funf", "cinque"],
    &["six", "seis", "sechs", "sei"],
    &["seven", "siete", "sept", "sieben", "sete", "sette"],
    &["eight", "ocho", "huit", "acht", "oito", "otto"],
    &["nine", "nueve", "neuf", "neun", "nove"],
];

/// Letters by their names where a name is not the letter itself (folded): "ge" is g in
/// Spanish, "acca" h in Italian.
#[rustfmt::skip]
const LETTERS: [(char, &[&str]); 20] = [
    ('b', &["be", "bi", "bee"]), ('c', &["ce", "ci", "cee"]), ('d', &["de", "di", "dee"]),
    ('f', &["efe", "effe", "ef"]), ('g', &["ge", "gi", "gee"]),
    ('h', &["hache", "acca", "aga", "aitch"]), ('j', &["jota", "ji", "jay"]),
    ('k', &["ka", "kappa", "kay"]), ('l', &["ele", "elle"]), ('m', &["eme", "emme"]),
    ('n', &["ene", "enne"]), ('p', &["pe", "pi", "pee"]), ('q', &["cu", "qu", "ku", "cue"]),
    ('r', &["erre"]), ('s', &["ese", "esse", "ess"]), ('t', &["te", "ti", "tee"]),
    ('v', &["uve", "ve", "vu", "vee"]), ('x', &["equis", "ics", "ixe", "ex"]),
    ('y', &["ye", "ypsilon", "wye"]), ('z', &["zeta", "zede", "zed", "zee"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn said_in(value: &str, text: &str) -> bool {
        said(value, &Evidence::new(text, jiff::civil::date(2026, 12, 8)))
    }

    #[test]
    fn an_identifier_spelled_out_in_words_is_said() {
        let cases = [
            (
                "jen.park@outlook.com",
                "Share the folder with jen dot park at outlook dot com.",
            ),
            (
                "recrutement@boulangerie-martin.fr",
                "Envoie le CV à recrutement arobase boulangerie-martin point fr.",
            ),
            (
                "info@mueller-bau.de",
                "Leite das an info at mueller-bau punkt de weiter.",
            ),
            (
                "supporto@fibraweb.it",
                "Scrivi a supporto chiocciola fibraweb punto it.",
            ),
            (
                "maria_g85",
                "Sigue a arroba maria guion bajo ge ochenta y cinco.",
            ),
            (
                "fix/login-timeout",
                "Cria uma branch chamada fix barra login-timeout.",
            ),
            ("01310-100", "O meu CEP é zero um três um zero, traço, cem."),
            (
                "28045",
                "Mi código postal es el veintiocho cero cuarenta y cinco.",
            ),
            (
                "02079460012",
                "Call my GP, it's oh-two-oh, seven nine four six, double-oh one two.",
            ),
        ];
        for (value, text) in cases {
            assert!(said_in(value, text), "{value} in {text}");
        }
    }

    #[test]
    fn a_search_reads_each_state_once() {
        // Many marks, or digits that read two ways each ("one" is a digit and a number): a
        // search of every way would not end this decade, one that tries each state once ends
        // at once. Not timed: it ends, or the test hangs.
        let text = format!("a {} b", "- ".repeat(5_000));
        assert!(!said_in("a----------c", &text));
        let text = format!("my card is {}", "one ".repeat(40));
        assert!(!said_in(&format!("{}2", "1".repeat(39)), &text));
        assert!(said_in(&"1".repeat(40), &text));
        // A value longer than any dictation is not searched for.
        let path: String = (0..200).map(|n| format!("a{n}/")).collect();
        assert!(!said_in(&format!("{path}z"), &format!("open {path}")));
    }

    #[test]
    fn another_mark_digit_or_name_is_not_said() {
        let cases = [
            // A changed mark, domain, digit or letter spells another identifier.
            (
                "jen_park@outlook.com",
                "Share the folder with jen dot park at outlook dot com.",
            ),
            (
                "jen.park@outlook.es",
                "Share the folder with jen dot park at outlook dot com.",
            ),
            (
                "maria_g86",
                "Sigue a arroba maria guion bajo ge ochenta y cinco.",
            ),
            // A digit said twice is two of it, never one or three.
            (
                "0207946012",
                "Call my GP, it's oh-two-oh, seven nine four six, double-oh one two.",
            ),
            // A zero said is a digit: never dropped, never moved.
            (
                "2845",
                "Mi código postal es el veintiocho cero cuarenta y cinco.",
            ),
            (
                "28450",
                "Mi código postal es el veintiocho cero cuarenta y cinco.",
            ),
            (
                "maria-g85",
                "Sigue a arroba maria guion bajo ge ochenta y cinco.",
            ),
            (
                "mariag85",
                "Sigue a arroba maria guion bajo ge ochenta y cinco.",
            ),
            // Written as it is, with no word read for a sign: for the verbatim rule to judge
            // ("notes.txt" in "notes txt" adds a mark the user never wrote).
            ("notes.txt", "Rename notes txt please."),
            ("team@corp.io", "Mail the team at corp io."),
            // "at" between a name and a place is no address; two words are two words.
            ("jen@acme", "Send the invite to Jen at Acme"),
            ("tom@nobu", "Book dinner for Tom at Nobu"),
            ("jenpark@outlook.com", "mail jen park at outlook dot com"),
            // Nothing at the run's start or end may be dropped.
            (
                "park@outlook.com",
                "Mail jen dot park dot x at outlook dot com.",
            ),
        ];
        for (value, text) in cases {
            assert!(!said_in(value, text), "{value} in {text}");
        }
    }
}
