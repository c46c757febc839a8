//! An identifier said aloud: its marks said as words ("jen dot park at outlook dot com",
//! "recrutement arobase boulangerie-martin point fr", "fix barra login-timeout"), its digits
//! as number words ("maria guion bajo ge ochenta y cinco" is `maria_g85`), a letter by its
//! name, commas and hyphens as the pauses of dictation. A value is said when a run of the conversation's
//! tokens, each read one of these ways, spells all of it, in order, from one token's edge to
//! another's, and at least one of them was said in words: one changed mark or digit spells
//! another value ("jen underscore park" is no `jen.park`).

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
    // Each step reads one token; a text of many marks could make the ways to read it many,
    // so the search from each token that may start the value is bounded (a value this long
    // is never dictated mark by mark).
    let tokens = &evidence.tokens;
    (0..tokens.len()).any(|start| {
        let starts = readings(evidence, start)
            .iter()
            .any(|(read, _, _)| target.starts_with(read.as_str()));
        let mut steps = STEPS;
        starts && spells(evidence, start, &target, false, true, &mut steps)
    })
}

/// The most tokens [`said`] reads for one value from one start.
const STEPS: usize = 2_000;

/// The longest value read as dictated: an address or a handle, not a document. With one
/// pause at most between two readings, it bounds how deep the search goes.
const LONGEST: usize = 128;

/// Whether the tokens from `i` on spell `rest`; `spoken` once a reading in words was used,
/// `first` at the run's first token (a comma may only stand inside it); `steps` left.
fn spells(
    evidence: &Evidence,
    i: usize,
    rest: &str,
    spoken: bool,
    first: bool,
    steps: &mut usize,
) -> bool {
    if rest.is_empty() {
        return spoken;
    }
    if *steps == 0 {
        return false;
    }
    *steps -= 1;
    let Some(token) = evidence.tokens.get(i) else {
        return false;
    };
    // A comma or a hyphen between words read out is a pause ("oh-two-oh, seven nine"); a
    // hyphen the value holds is read as itself below.
    let pause = !first
        && token.kind == Kind::Punct
        && matches!(token.lower.as_str(), "," | "-")
        && !evidence
            .tokens
            .get(i - 1)
            .is_some_and(|t| t.kind == Kind::Punct && matches!(t.lower.as_str(), "," | "-"));
    if pause && spells(evidence, i + 1, rest, spoken, false, steps) {
        return true;
    }
    readings(evidence, i)
        .into_iter()
        .any(|(read, next, in_words)| {
            rest.strip_prefix(read.as_str()).is_some_and(|after| {
                spells(evidence, next, after, spoken || in_words, false, steps)
            })
        })
}

/// The ways token `i` may be read in a dictated identifier: its text, a mark its words name,
/// a number said in words from it, a digit's or a letter's name; each with the token after it
/// and whether it was a word read for a sign.
fn readings(evidence: &Evidence, i: usize) -> Vec<(String, usize, bool)> {
    let tokens = &evidence.tokens;
    let token = &tokens[i];
    let mut out = vec![(token.lower.clone(), i + 1, false)];
    if token.kind != Kind::Word {
        return out;
    }
    for (mark, names) in MARKS {
        for name in names.iter() {
            if let Some(next) = words_at(tokens, i, name) {
                out.push((mark.to_string(), next, true));
            }
        }
    }
    // The spans are in order of their start.
    let spans = &evidence.facts.number_spans;
    let from = spans.partition_point(|s| s.start < i);
    for span in spans[from..].iter().take_while(|s| s.start == i) {
        if span.start == i
            && span.in_words
            && !span.ordinal
            && span.value >= 0.0
            && span.value.fract() == 0.0
        {
            // A number reader takes a zero said first into the number: "cero cuarenta y
            // cinco" is 045 dictated.
            let zero = if DIGITS[0].contains(&token.folded.as_str()) && span.value > 0.0 {
                "0"
            } else {
                ""
            };
            out.push((format!("{zero}{}", span.value as u64), span.end, true));
        }
    }
    if let Some(digit) = digit_at(tokens, i) {
        out.push((digit.to_string(), i + 1, true));
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
            out.push((digit.to_string().repeat(times), at + 1, true));
        }
    }
    for (letter, names) in LETTERS {
        if names.contains(&token.folded.as_str()) {
            out.push((letter.to_string(), i + 1, true));
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
    fn a_text_of_many_marks_is_read_in_bounded_steps() {
        let text = format!("a {} b", "- ".repeat(5_000));
        let started = std::time::Instant::now();
        assert!(!said_in("a----------c", &text));
        // Bounded, not timed: a search of every way would not end this decade.
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
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
