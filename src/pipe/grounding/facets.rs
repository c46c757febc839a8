//! Facets of one thing set apart. "Ponme los subtítulos en catalán, el audio déjalo en
//! castellano", "stell die Untertitel auf Englisch, der Ton bleibt auf Deutsch", "switch my
//! phone to Spanish but keep the keyboard in English": a value said only in the clause of
//! another facet (the audio, the keyboard) is that facet's, not the one a field is about
//! (`subtitle_language`, `display_language`).

use super::evidence::Evidence;
use super::tokens::{Kind, Token};
use super::words::is;

/// Facets of a setting, each with its words in the six languages (folded).
#[rustfmt::skip]
const FACETS: &[&[&str]] = &[
    &["subtitle", "subtitles", "caption", "captions", "subtitulo", "subtitulos", "sous",
        "soustitres", "untertitel", "legenda", "legendas", "sottotitoli", "sottotitolo"],
    &["audio", "sound", "dub", "dubbing", "dubbed", "doblaje", "doblada", "doblado", "son",
        "ton", "tonspur", "doppiaggio", "doppiato", "dublagem", "dublado", "voice", "voix",
        "stimme"],
    &["keyboard", "teclado", "clavier", "tastatur", "tastiera"],
    &["display", "interface", "ui", "screen", "phone", "menu", "menus", "pantalla", "interfaz",
        "ecran", "affichage", "oberflache", "anzeige", "bildschirm", "interfaccia", "schermo",
        "tela", "celular", "telefono", "telephone", "handy"],
];

/// Facet words of another meaning too ("son" is French "his", "Ton" German clay, "tela"
/// cloth): a facet's only after an article or a possessive ("le son", "der Ton", "my phone").
const AMBIGUOUS: &[&str] = &["son", "ton", "phone", "menu", "tela", "handy", "sous"];
const ARTICLES: &[&str] = &[
    "the", "my", "le", "la", "les", "el", "los", "der", "den", "dem", "die", "o", "a", "il", "mon",
    "mi", "mein", "meu", "mio", "du", "del", "do", "da", "des",
];

/// Words of a field that make it a language's: the facets set apart only for such a field
/// (`subtitle_language`, `display_lang`), never for a `phone_number` or a `display_name`.
const LANGUAGE: &[&str] = &[
    "language",
    "languages",
    "lang",
    "locale",
    "idioma",
    "langue",
    "sprache",
    "lingua",
];

/// The facet a language field's key words name, if one.
pub fn of_field(words: &[String]) -> Option<usize> {
    if !words.iter().any(|w| is(LANGUAGE, w)) {
        return None;
    }
    FACETS
        .iter()
        .position(|facet| words.iter().any(|w| is(facet, w)))
}

/// Whether the clause ends at token `k`: a mark, or a "but" ("switch my phone to Spanish but
/// keep the keyboard in English"). Not "and": "the audio and the subtitles in French" share
/// one value.
fn ends_clause(tokens: &[Token], k: usize) -> bool {
    const BUT: &[&str] = &["but", "pero", "mais", "aber", "mas", "ma", "sondern"];
    let t = &tokens[k];
    (t.kind == Kind::Punct && matches!(t.lower.as_str(), "," | "." | ";" | "!" | "?"))
        || (t.kind == Kind::Word && is(BUT, &t.folded))
}

/// The clauses that name a facet other than `facet` and not `facet` itself, as byte ranges.
fn other_facets(tokens: &[Token], facet: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in 0..=tokens.len() {
        if end < tokens.len() && !ends_clause(tokens, end) {
            continue;
        }
        let clause = &tokens[start..end];
        let names = |f: usize| {
            clause.iter().enumerate().any(|(i, t)| {
                t.kind == Kind::Word
                    && is(FACETS[f], &t.folded)
                    && (!is(AMBIGUOUS, &t.folded)
                        || i.checked_sub(1)
                            .is_some_and(|b| is(ARTICLES, &clause[b].folded)))
            })
        };
        let other = (0..FACETS.len()).any(|f| f != facet && names(f));
        if other && !names(facet) {
            if let (Some(first), Some(last)) = (clause.first(), clause.last()) {
                out.push(first.start..last.end);
            }
        }
        start = end + 1;
    }
    out
}

/// The conversation split into the clauses of other facets than `facet` and the rest, or
/// `None` where no clause names another facet.
pub fn split(evidence: &Evidence, facet: usize) -> Option<(Evidence, Evidence)> {
    let ranges = other_facets(&evidence.tokens, facet);
    (!ranges.is_empty()).then(|| evidence.parted(&ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn other(text: &str, field: &str) -> Vec<String> {
        let tokens = super::super::tokens::tokenize(text);
        let facet = of_field(&[field.to_owned(), "language".to_owned()]).unwrap_or(usize::MAX);
        other_facets(&tokens, facet)
            .into_iter()
            .map(|r| text[r].to_owned())
            .collect()
    }

    #[test]
    fn a_value_in_another_facet_s_clause_is_that_facet_s() {
        assert_eq!(
            other(
                "Ponme los subtítulos en catalán, el audio déjalo en castellano",
                "subtitle"
            ),
            ["el audio déjalo en castellano"]
        );
        assert_eq!(
            other(
                "switch my phone to Spanish but keep the keyboard in English",
                "display"
            ),
            ["keep the keyboard in English"]
        );
        assert_eq!(
            other(
                "stell die Untertitel auf Englisch, der Ton bleibt auf Deutsch",
                "audio"
            ),
            ["stell die Untertitel auf Englisch"]
        );
        // One facet named, or a clause naming the field's own facet too: nothing apart.
        assert!(other("subtitles in Catalan please", "subtitle").is_empty());
        // Facets joined by "and" share their value.
        assert!(other("Put the audio and subtitles in French", "audio").is_empty());
        assert!(other(
            "Set both the keyboard and the display to German",
            "keyboard"
        )
        .is_empty());
        // A facet word of another meaning, or a field of no language: nothing apart.
        assert!(other(
            "mets l'interface en espagnol, son ami parle anglais",
            "display"
        )
        .is_empty());
        assert_eq!(of_field(&["language".into()]), None);
        assert_eq!(of_field(&["phone".into(), "number".into()]), None);
        assert_eq!(of_field(&["display".into(), "name".into()]), None);
    }
}
