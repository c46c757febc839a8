//! Recognizer `number`: numbers in digits ("42", "3.5", "1,200", "3,5", "25th") and in words
//! in the six languages `text2num` reads ("twenty five", "ochenta y cinco", "vingt-deux",
//! "zweiundvierzig", "trinta e dois", "ventitré"). The hour and minute of a time of day
//! ("10:30") and the parts of a written date ("2026-11-25") are no numbers of their own: an
//! age of 10 is not said by "at 10:30". A lone article ("un", "une", "ein", "um") is no one.

use std::sync::OnceLock;

use std::borrow::Cow;

use text2num::{find_numbers, BasicAnnotate, LangInterpreter, Language};

use super::facts::{Context, Facts, NumberSpan};
use super::tokens::{Kind, Token};

/// Words that are "one" and also an article: alone, they count nothing.
const ARTICLES: &[&str] = &[
    "a", "an", "un", "une", "una", "uno", "um", "uma", "ein", "eine", "einen", "einem", "einer",
    "eines",
];

fn languages() -> &'static [Language] {
    static LANGUAGES: OnceLock<Vec<Language>> = OnceLock::new();
    LANGUAGES.get_or_init(|| {
        vec![
            Language::english(),
            Language::spanish(),
            Language::french(),
            Language::german(),
            Language::portugese(),
            Language::italian(),
        ]
    })
}

/// Fills [`Facts::number_spans`], in token order.
pub fn read(text: &str, tokens: &[Token], context: &Context, facts: &mut Facts) {
    for (i, token) in tokens.iter().enumerate() {
        if token.kind != Kind::Number || part_of_clock_or_date(tokens, i) {
            continue;
        }
        let negative = i > 0
            && tokens[i - 1].lower == "-"
            && !token.spaced
            && (i == 1 || tokens[i - 1].spaced);
        for (value, ordinal) in digit_values(&token.lower) {
            facts.number_spans.push(NumberSpan {
                start: i,
                end: i + 1,
                value: if negative { -value } else { value },
                ordinal,
                in_words: false,
            });
        }
    }
    read_words(text, tokens, context, facts);
    facts
        .number_spans
        .sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    facts.number_spans.dedup();
}

/// "10" and "30" of "10:30"; "2026", "11" and "25" of "2026-11-25" or "25/11/2026".
fn part_of_clock_or_date(tokens: &[Token], i: usize) -> bool {
    let joined = |a: usize, b: usize, marks: &[&str]| {
        tokens
            .get(a)
            .zip(tokens.get(b))
            .is_some_and(|(mark, next)| {
                marks.contains(&mark.lower.as_str())
                    && !mark.spaced
                    && !next.spaced
                    && next.kind == Kind::Number
            })
    };
    let clock = [":", "h"];
    let date = ["-", "/"];
    let number = |j: usize| tokens.get(j).is_some_and(|t| t.kind == Kind::Number);
    (joined(i + 1, i + 2, &clock) || (i >= 2 && number(i - 2) && joined(i - 1, i, &clock)))
        || (joined(i + 1, i + 2, &date) && joined(i + 3, i + 4, &date))
        || (i >= 2 && joined(i - 1, i, &date) && joined(i + 1, i + 2, &date))
        || (i >= 4 && joined(i - 1, i, &date) && joined(i - 3, i - 2, &date))
}

/// The values a digit token may mean: "1,200" is 1200 (or 1.2 where a comma is the decimal
/// mark), "3,5" is 3.5, "1.200" is 1.2 or 1200, "25th" and "1er" are ranks; a unit or suffix
/// after the digits ("5m", "16h", "15%") is the quantity recognizer's.
fn digit_values(token: &str) -> Vec<(f64, bool)> {
    let end = token
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(token.len());
    let (digits, suffix) = token.split_at(end);
    let digits = digits.trim_end_matches(['.', ',']);
    if digits.is_empty() {
        return Vec::new();
    }
    let ordinal = matches!(
        suffix,
        "st" | "nd" | "rd" | "th" | "er" | "re" | "e" | "eme" | "ème" | "º" | "ª" | "o" | "a"
    );
    let mut out = Vec::new();
    let mut push = |text: String| {
        if let Ok(value) = text.parse::<f64>() {
            if value.is_finite() && !out.iter().any(|(v, _)| *v == value) {
                out.push((value, ordinal));
            }
        }
    };
    let commas = digits.matches(',').count();
    let dots = digits.matches('.').count();
    let grouped = |mark: char| {
        let mut parts = digits.split(mark);
        parts.next().is_some_and(|p| !p.is_empty() && p.len() <= 3)
            && parts.all(|p| p.len() == 3 && p.chars().all(|c| c.is_ascii_digit()))
    };
    match (commas, dots) {
        (0, 0 | 1) => push(digits.to_owned()),
        (_, 0) => {
            if grouped(',') {
                push(digits.replace(',', ""));
            }
            if commas == 1 {
                push(digits.replace(',', "."));
            }
        }
        (0, _) => {
            if grouped('.') {
                push(digits.replace('.', ""));
            }
        }
        _ => {
            // "1,234.5" or "1.234,5": the last mark is the decimal one.
            let (thousands, decimal) = if digits.rfind('.') > digits.rfind(',') {
                (',', '.')
            } else {
                ('.', ',')
            };
            push(digits.replace(thousands, "").replace(decimal, "."));
        }
    }
    if (commas, dots) == (0, 1) && grouped('.') {
        push(digits.replace('.', ""));
    }
    out
}

/// Numbers written in words, in the six languages `text2num` reads (English alone for a text
/// whose function words are all English: most of what coding agents send): each found over
/// the byte range it covers, then laid on this text's tokens.
fn read_words(text: &str, tokens: &[Token], context: &Context, facts: &mut Facts) {
    if !tokens.iter().any(|t| t.kind == Kind::Word) {
        return;
    }
    let base = pieces(text);
    for (code, language) in ["en", "es", "fr", "de", "pt", "it"].iter().zip(languages()) {
        if *code != "en" && !context.languages.may_be(code) {
            continue;
        }
        let mut stream: Vec<Piece> = base
            .iter()
            .map(|p| Piece {
                text: p.text.clone(),
                lowercase: p.lowercase.clone(),
                nan: false,
            })
            .collect();
        language.basic_annotate(&mut stream);
        let mut offsets = Vec::with_capacity(stream.len() + 1);
        let mut at = 0;
        for piece in &stream {
            offsets.push(at);
            at += piece.text.len();
        }
        offsets.push(at);
        for found in find_numbers(stream.iter(), language, 0.0) {
            let (Some(&from), Some(&to)) = (offsets.get(found.start), offsets.get(found.end))
            else {
                continue;
            };
            let words = &text[from..to];
            // Digits are read above; a lone article counts nothing.
            if words
                .trim()
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
                || ARTICLES.contains(&words.trim().to_lowercase().as_str())
            {
                continue;
            }
            let start = tokens.iter().position(|t| t.end > from && t.start < to);
            let end = tokens.iter().rposition(|t| t.start < to && t.end > from);
            if let (Some(start), Some(end)) = (start, end) {
                facts.number_spans.push(NumberSpan {
                    start,
                    end: end + 1,
                    value: found.value,
                    ordinal: found.is_ordinal,
                    in_words: true,
                });
            }
        }
    }
}

/// A word or a run of separators, as `text2num` reads a text: words keep their inner hyphens
/// and apostrophes ("vingt-deux"), and the pieces put together are the text again.
struct Piece {
    text: String,
    lowercase: String,
    nan: bool,
}

impl text2num::Token for &Piece {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.text)
    }
    fn text_lowercase(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.lowercase)
    }
    fn not_a_number_part(&self) -> bool {
        self.nan
    }
}

impl BasicAnnotate for Piece {
    fn text_lowercase(&self) -> &str {
        &self.lowercase
    }
    fn set_nan(&mut self, val: bool) {
        self.nan = val;
    }
}

fn pieces(text: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let flush = |current: &mut String, out: &mut Vec<Piece>| {
        if !current.is_empty() {
            let text = std::mem::take(current);
            out.push(Piece {
                lowercase: text.to_lowercase(),
                text,
                nan: false,
            });
        }
    };
    for c in text.chars() {
        let word_char = c.is_alphanumeric() || (in_word && (c == '-' || c == '\''));
        if word_char != in_word {
            flush(&mut current, &mut out);
            in_word = word_char;
        }
        current.push(c);
    }
    flush(&mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {

    fn numbers(text: &str) -> Vec<f64> {
        let facts = super::super::facts::read_for_test(text);
        facts.number_spans.iter().map(|s| s.value).collect()
    }

    #[test]
    fn digits_with_either_decimal_mark() {
        assert_eq!(numbers("42 items at 3.5 each"), [42.0, 3.5]);
        assert!(numbers("1,200 people").contains(&1200.0));
        assert!(numbers("3,5 kilos").contains(&3.5));
        assert!(numbers("1.200 Personen").contains(&1200.0));
        assert_eq!(numbers("the 25th"), [25.0]);
        assert_eq!(numbers("-5 degrees"), [-5.0]);
        assert_eq!(numbers("a 5-star hotel"), [5.0]);
    }

    #[test]
    fn words_in_six_languages() {
        assert!(numbers("twenty five guests").contains(&25.0));
        assert!(numbers("para cuatro personas").contains(&4.0));
        assert!(numbers("ochenta y cinco").contains(&85.0));
        assert!(numbers("vingt-deux euros").contains(&22.0));
        assert!(numbers("für zweiundvierzig Gäste").contains(&42.0));
        assert!(numbers("trinta e dois").contains(&32.0));
        assert!(numbers("ventitré").contains(&23.0));
    }

    #[test]
    fn clocks_dates_and_articles_are_no_numbers() {
        assert!(numbers("at 10:30").is_empty());
        assert_eq!(numbers("math:90"), [90.0]);
        assert!(numbers("on 2026-11-25").is_empty());
        assert!(numbers("on 25/11/2026").is_empty());
        assert!(numbers("une table, un rendez-vous, a flight, ein Tisch").is_empty());
        assert!(!numbers("This is important").contains(&1.0));
    }
}
