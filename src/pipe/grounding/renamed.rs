//! A thing renamed. "Rename notes.txt to notes_final.txt", "Benenn die Datei Angebot_final.pdf
//! in Angebot_Mueller_v2.pdf um", "renomme rapport.docx en bilan.docx": the name before the
//! link is the old one, the name after it the new one. A name said only as the old one is no
//! new name, and one said only as the new one no old name.

use super::evidence::Evidence;
use super::other_events::ends_clause;
use super::tokens::{Kind, Token};
use super::words::is;

/// Which name of a renamed thing a field is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Name {
    Old,
    New,
}

/// Words of a field about the new name (folded).
#[rustfmt::skip]
const NEW: &[&str] = &[
    "new", "nuevo", "nueva", "nouveau", "nouvelle", "neu", "neue", "neuer", "neuen", "novo",
    "nova", "nuovo", "nuova", "target",
];

/// Words of a field about the old name (folded).
#[rustfmt::skip]
const OLD: &[&str] = &[
    "old", "current", "original", "existing", "source", "antiguo", "antigua", "actual",
    "ancien", "ancienne", "actuel", "alt", "alte", "alter", "alten", "aktuell", "antigo",
    "antiga", "atual", "vecchio", "vecchia", "attuale",
];

/// The name of a renamed thing a field's words are about, if any.
pub fn of_field(words: &[String]) -> Option<Name> {
    if words.iter().any(|w| is(NEW, w)) {
        Some(Name::New)
    } else if words.iter().any(|w| is(OLD, w)) {
        Some(Name::Old)
    } else {
        None
    }
}

/// Verbs of renaming (folded; German "benenn ... um" takes its "um" at the clause's end).
#[rustfmt::skip]
const RENAME: &[&str] = &[
    "rename", "renames", "renaming", "renombra", "renombrar", "renombre", "renomme",
    "renommer", "renommez", "umbenennen", "benenn", "benenne", "benennen", "rinomina",
    "rinominare", "renomeia", "renomear", "renomeie",
];

/// Words between the old name and the new one.
const LINKS: &[&str] = &["to", "as", "en", "in", "a", "para", "pra", "zu", "into"];

/// The parts of a renaming sentence: the old name's tokens and the new name's, as token
/// ranges (the verb's clause, split at its first link after the old name; the new name
/// ends at the next link: "to budget_2025.xlsx in the Finance folder").
fn parts(tokens: &[Token]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for (v, token) in tokens.iter().enumerate() {
        if token.kind != Kind::Word || !is(RENAME, &token.folded) {
            continue;
        }
        let end = (v + 1..tokens.len())
            .find(|&k| ends_clause(tokens, k) && tokens[k].lower != ".")
            .unwrap_or(tokens.len());
        // A full stop may sit inside a file name ("notes.txt" is one token; "v2 ." is not).
        let end = (v + 1..end)
            .find(|&k| tokens[k].lower == "." && tokens.get(k + 1).is_none_or(|t| t.spaced))
            .unwrap_or(end);
        let link_at = |k: usize| tokens[k].kind == Kind::Word && is(LINKS, &tokens[k].folded);
        // The old name is at least one word: "rename the file in Downloads to x" links at "in".
        let Some(link) = (v + 2..end).find(|&k| link_at(k)) else {
            continue;
        };
        let new_end = (link + 2..end).find(|&k| link_at(k)).unwrap_or(end);
        if link + 1 < new_end {
            out.push((v + 1..link, link + 1..new_end));
        }
    }
    out
}

/// The conversation split into what names the other name than `name` and the rest, or
/// `None` where nothing is renamed.
pub fn split(evidence: &Evidence, name: Name) -> Option<(Evidence, Evidence)> {
    let tokens = &evidence.tokens;
    let ranges: Vec<std::ops::Range<usize>> = parts(tokens)
        .into_iter()
        .map(|(old, new)| match name {
            Name::New => old,
            Name::Old => new,
        })
        .map(|r| tokens[r.start].start..tokens[r.end - 1].end)
        .collect();
    (!ranges.is_empty()).then(|| evidence.parted(&ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(text: &str) -> Vec<(String, String)> {
        let tokens = super::super::tokens::tokenize(text);
        parts(&tokens)
            .into_iter()
            .map(|(old, new)| {
                let at = |r: std::ops::Range<usize>| {
                    text[tokens[r.start].start..tokens[r.end - 1].end].to_owned()
                };
                (at(old), at(new))
            })
            .collect()
    }

    #[test]
    fn the_old_name_stands_before_the_link_and_the_new_after() {
        let pair = |a: &str, b: &str| vec![(a.to_owned(), b.to_owned())];
        assert_eq!(
            named("Benenn die Datei Angebot_final.pdf in Angebot_Mueller_v2.pdf um"),
            pair("die Datei Angebot_final.pdf", "Angebot_Mueller_v2.pdf um")
        );
        assert_eq!(
            named("Rename notes.txt to notes_final.txt. Thanks"),
            pair("notes.txt", "notes_final.txt")
        );
        assert_eq!(
            named("Rename budget.xlsx to budget_2025.xlsx in the Finance folder"),
            pair("budget.xlsx", "budget_2025.xlsx")
        );
        assert_eq!(
            named("Renombra informe.docx a informe_final.docx en la carpeta Proyectos"),
            pair("informe.docx", "informe_final.docx")
        );
        // No link, or no verb of renaming: nothing apart.
        assert!(named("rename it").is_empty());
        assert!(named("move notes.txt to Archive").is_empty());
        assert_eq!(of_field(&["new".into(), "name".into()]), Some(Name::New));
        assert_eq!(of_field(&["old".into(), "path".into()]), Some(Name::Old));
        assert_eq!(of_field(&["path".into()]), None);
    }
}
