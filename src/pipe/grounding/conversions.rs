//! The two ends of a translation or a conversion. "Translate this from German into Dutch"
//! names German as the source and Dutch as the target; "convert 100 dollars to euros" names
//! the dollars as what is converted and the euros as what it becomes. A code named only as
//! one end is no value for a field about the other (`target_language: de`, `from_currency:
//! EUR`). The end is read from the preposition right before the name, and only where it is
//! plain: "in German" (the text's language, or the one to say it in), Spanish and French
//! "de" (also "of": "una clase de inglés") and English "a" decide nothing, unless the text
//! names the other end too.

use super::tokens::{Kind, Token};

/// Which end of a translation or conversion.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum End {
    Source,
    Target,
}

/// Words of a field about what is translated or converted, and about what it becomes
/// (folded; `from_currency`, `source_language`, `target_lang`, `idioma_destino`).
const FIELD_SOURCE: &[&str] = &[
    "from",
    "source",
    "input",
    "original",
    "origin",
    "origen",
    "origem",
    "origine",
    "quelle",
    "fuente",
    "fonte",
    "sorgente",
    "ausgangssprache",
];
const FIELD_TARGET: &[&str] = &[
    "to",
    "target",
    "output",
    "into",
    "destination",
    "destino",
    "destinazione",
    "cible",
    "ziel",
    "zielsprache",
    "objetivo",
    "alvo",
];

/// The end a field is about, if one alone, by its name's words, else its description's.
pub fn end_of(key_words: &[String], words: &[String]) -> Option<End> {
    let of = |words: &[String]| {
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        match (has(FIELD_SOURCE), has(FIELD_TARGET)) {
            (true, false) => Some(End::Source),
            (false, true) => Some(End::Target),
            _ => None,
        }
    };
    of(key_words).or_else(|| {
        // "to" is too common in a description to tell ("the language to translate into").
        let words: Vec<String> = words
            .iter()
            .filter(|w| !matches!(w.as_str(), "to" | "from"))
            .cloned()
            .collect();
        of(&words)
    })
}

/// Prepositions that plainly start a source, or a target (folded).
const PLAIN_SOURCE: &[&str] = &[
    "from", "desde", "depuis", "von", "vom", "aus", "dal", "dall", "dalla", "dallo",
];
const PLAIN_TARGET: &[&str] = &[
    "into", "to", "al", "ins", "nach", "zu", "zum", "zur", "vers", "para", "pra", "pro", "ao",
    "all", "alla", "allo", "au", "aux",
];
/// Prepositions that start a source only where the text names a target too: "de l'anglais
/// vers le français", "do inglês para o português", "del inglés al español".
const SOURCE_BESIDE_A_TARGET: &[&str] = &["de", "del", "du", "des", "da", "do", "dos", "das"];

/// Words between a preposition and the name (an article, an elision's mark).
const BETWEEN: &[&str] = &[
    "the", "el", "la", "le", "l", "les", "lo", "il", "o", "os", "a", "as", "der", "die", "das",
    "dem", "den", "'",
];

/// The end the name at token `at` is said as, by the preposition before it: `Some((end,
/// plain))`, `plain` false where it decides only beside a name of the other end.
fn said_as(tokens: &[Token], at: usize) -> Option<(End, bool)> {
    let mut i = at.checked_sub(1)?;
    for _ in 0..2 {
        let t = &tokens[i];
        if !(BETWEEN.contains(&t.folded.as_str()) || t.lower == "'" || t.lower == "\u{2019}") {
            break;
        }
        i = i.checked_sub(1)?;
    }
    let word = tokens.get(i).filter(|t| t.kind == Kind::Word)?;
    let word = word.folded.as_str();
    // "200 Franken in Euro", "50 dólares en euros": "in" after an amount and its unit is
    // what the amount becomes.
    let after_an_amount =
        i >= 2 && tokens[i - 1].kind == Kind::Word && tokens[i - 2].kind == Kind::Number;
    if matches!(word, "in" | "en" | "em") && after_an_amount {
        return Some((End::Target, true));
    }
    if PLAIN_SOURCE.contains(&word) {
        Some((End::Source, true))
    } else if PLAIN_TARGET.contains(&word) {
        Some((End::Target, true))
    } else if SOURCE_BESIDE_A_TARGET.contains(&word) {
        Some((End::Source, false))
    } else {
        None
    }
}

/// Whether every name of the code (at the token positions `named`, among `all_names`, the
/// positions of every code name in the text) says it as the other end than `field`'s.
pub fn only_the_other_end(
    field: End,
    named: &[usize],
    all_names: &[usize],
    tokens: &[Token],
) -> bool {
    let other = match field {
        End::Source => End::Target,
        End::Target => End::Source,
    };
    let target_named = all_names
        .iter()
        .any(|at| matches!(said_as(tokens, *at), Some((End::Target, _))));
    !named.is_empty()
        && named.iter().all(|at| match said_as(tokens, *at) {
            Some((end, plain)) => end == other && (plain || target_named),
            None => false,
        })
}
