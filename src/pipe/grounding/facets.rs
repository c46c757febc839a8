//! Facets of one thing set apart. "Ponme los subtítulos en catalán, el audio déjalo en
//! castellano", "stell die Untertitel auf Englisch, der Ton bleibt auf Deutsch", "switch my
//! phone to Spanish but keep the keyboard in English": a value said only in the clause of
//! another facet (the audio, the keyboard) is that facet's, not the one a field is about
//! (`subtitle_language`, `display_language`).

use super::evidence::Evidence;
use super::other_events::ends_clause;
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

/// The facet a field's key words name, if one.
pub fn of_field(words: &[String]) -> Option<usize> {
    FACETS
        .iter()
        .position(|facet| words.iter().any(|w| is(facet, w)))
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
            clause
                .iter()
                .any(|t| t.kind == Kind::Word && is(FACETS[f], &t.folded))
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
        let facet = of_field(&[field.to_owned()]).unwrap_or(usize::MAX);
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
        assert!(other("audio and subtitles in French", "subtitle")
            .iter()
            .all(|part| !part.contains("French")));
        assert_eq!(of_field(&["language".into()]), None);
    }
}
