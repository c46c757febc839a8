//! The common words of the six languages grounding reads, to tell a line in another language
//! written in the same letters. Function words and letter statistics miss such a line when
//! it is short and its few short words happen to be the six's ("Hokona mai he miraka, kia
//! rua rita" holds Italian "mai" and Portuguese "rua"; "Ou te manaʻo e totogi i le
//! tinoitupe" holds French "ou", "te" and "le"), and grounding may only strip what it can
//! read: a line whose longer words are mostly none of the six's is unread.
//!
//! The words are wordfreq's 20,000 most frequent of each language (data CC-BY-SA 4.0),
//! written by `scripts/grounding-vocabulary.py` to `vocabulary.txt`: letters only, three or
//! more, folded as [`super::tokens::fold`] folds, sorted byte-wise.

use std::sync::OnceLock;

use super::tokens::{tokenize, Kind, Token};

const WORDS: &str = include_str!("vocabulary.txt");

/// Letters from which a word is read as an inflection of a known one (its first letters are
/// a known word's: "spostami" of "spostare", "überweis" of "überweisen"), and from which a
/// word is a candidate at all (shorter words coincide across languages by chance: "mai",
/// "rua", "kia").
const STEM: usize = 6;
const SHORTEST: usize = 3;

/// Candidate words a line needs before its words tell anything. Two may be slang ("cya
/// tmrw"), which reads as unread then: its values are kept unverified, where a line of
/// another language read as one of the six would lose the values it says.
const FEWEST: usize = 2;

/// Letters taken off a word's end to find its stem (a clitic, an ending: "conéctate",
/// "reinicia").
const ENDINGS: usize = 4;

fn words() -> &'static [&'static str] {
    static WORDS_SORTED: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS_SORTED.get_or_init(|| {
        let mut words: Vec<&'static str> = WORDS.lines().filter(|w| !w.is_empty()).collect();
        // The file is sorted; sorting again keeps the lookup right if it was edited by hand.
        words.sort_unstable();
        words.dedup();
        words
    })
}

/// Whether some known word begins with `prefix`.
fn begins_a_word(prefix: &str) -> bool {
    let words = words();
    let at = words.partition_point(|w| *w < prefix);
    words.get(at).is_some_and(|w| w.starts_with(prefix))
}

/// Whether `folded` (a folded word) is a common word of the six, an inflection of one, or a
/// compound of two ("bestellnummer", "geburtstagsgeschenk").
pub fn known(folded: &str) -> bool {
    words().binary_search(&folded).is_ok() || inflected(folded) || compound(folded)
}

/// Letters each part of a compound has at least: its head the start of a known word, its
/// tail a known word, with German's joining "s" between them.
const HEAD: usize = 5;
const TAIL: usize = 4;

fn compound(folded: &str) -> bool {
    let bounds: Vec<usize> = folded.char_indices().map(|(at, _)| at).collect();
    if bounds.len() < HEAD + TAIL {
        return false;
    }
    bounds[HEAD..=bounds.len() - TAIL].iter().any(|at| {
        let (head, tail) = folded.split_at(*at);
        let known_tail = |tail: &str| words().binary_search(&tail).is_ok();
        begins_a_word(head)
            && (known_tail(tail)
                || tail
                    .strip_prefix('s')
                    .is_some_and(|t| t.len() >= TAIL && known_tail(t)))
    })
}

/// Whether `folded` is a known word's start, or is one once a few letters of its end are off.
fn inflected(folded: &str) -> bool {
    let letters: Vec<(usize, char)> = folded.char_indices().collect();
    if letters.len() < STEM {
        return false;
    }
    // The word itself, then without one to four letters at its end, down to a stem of six.
    (0..=ENDINGS)
        .map_while(|cut| {
            let keep = letters.len().checked_sub(cut).filter(|k| *k >= STEM)?;
            Some(match letters.get(keep) {
                Some((at, _)) => &folded[..*at],
                None => folded,
            })
        })
        .any(begins_a_word)
}

/// Whether a word token is a name or part of an identifier, which tell no language: a
/// capital inside the line ("Keala", "Mere"), two capitals ("RAM"), or written against a
/// mark or a digit with no space ("vpc-0a12", "nginx-proxy", "rina.putri_").
fn no_word(tokens: &[Token], at: usize, text: &str) -> bool {
    let token = &tokens[at];
    let written = &text[token.start..token.end];
    let capitals = written.chars().filter(|c| c.is_uppercase()).count();
    let first = tokens[..at].iter().all(|t| t.kind != Kind::Word);
    if capitals >= 2 || (capitals == 1 && !first) {
        return true;
    }
    let joined = |t: &Token| {
        t.kind == Kind::Number || matches!(t.lower.as_str(), "-" | "." | "_" | "/" | "@" | ":")
    };
    let before = at
        .checked_sub(1)
        .and_then(|k| tokens.get(k))
        .is_some_and(|t| !token.spaced && joined(t));
    let after = tokens
        .get(at + 1)
        .is_some_and(|t| !t.spaced && joined(t) && tokens.get(at + 2).is_some_and(|n| !n.spaced));
    before || after
}

/// Whether `line` is in a language none of the six: of its distinct words of three letters or
/// more (names and identifiers aside), two or more, fewer than half are words of the six, or
/// a word `also_known` knows (a function word, a calendar word, a unit, a number word).
pub fn unfamiliar(line: &str, also_known: impl Fn(&Token) -> bool) -> bool {
    let tokens = tokenize(line);
    let mut candidates: Vec<&Token> = tokens
        .iter()
        .enumerate()
        .filter(|(at, t)| {
            t.kind == Kind::Word
                && t.folded.chars().count() >= SHORTEST
                && t.folded.chars().all(char::is_alphabetic)
                && !no_word(&tokens, *at, line)
        })
        .map(|(_, t)| t)
        .collect();
    candidates.sort_unstable_by(|a, b| a.folded.cmp(&b.folded));
    candidates.dedup_by(|a, b| a.folded == b.folded);
    if candidates.len() < FEWEST {
        return false;
    }
    let familiar = |t: &Token| known(&t.folded) || also_known(t);
    // A known word of three letters is as likely another language's by chance ("mai", "rua",
    // "kia"): it counts for neither side. An unknown one counts against.
    candidates.retain(|t| t.folded.chars().count() > SHORTEST || !familiar(t));
    if candidates.len() < FEWEST {
        return false;
    }
    let familiar = candidates.iter().filter(|t| familiar(t)).count();
    familiar * 2 < candidates.len()
}

#[cfg(test)]
mod tests {
    use super::super::tokens::fold;
    use super::*;

    fn known_written(word: &str) -> bool {
        known(&fold(word))
    }

    fn unfamiliar(line: &str) -> bool {
        super::unfamiliar(line, |_| false)
    }

    #[test]
    fn the_words_of_the_six_and_their_inflections_are_known() {
        for word in [
            "bestellnummer",
            "geburtstagsgeschenk",
            "geschenk",
            "appuntamento",
            "reiniciar",
            "reinicia",
            "spostami",
            "uberweis",
            "demain",
            "lavadora",
            "thermostat",
        ] {
            assert!(known_written(word), "{word}");
        }
        // Words of other languages, and a stem too short to say anything.
        for word in ["tinoitupe", "totogi", "hokona", "miraka", "sonten", "xyz"] {
            assert!(!known_written(word), "{word}");
        }
    }

    #[test]
    fn a_line_mostly_of_other_words_is_unfamiliar() {
        for line in [
            "Ou te manaʻo e totogi i le tinoitupe",
            "Hokona mai he miraka, kia rua rita",
            "Daptarkeun abdi ka dokter gigi pageto",
            "Patayin mo ang ilaw sa kusina",
        ] {
            assert!(unfamiliar(line), "{line}");
        }
        // Lines of the six, with names, identifiers, clitics and compounds.
        for line in [
            "Überweis Oma fünfundzwanzig Euro fürs Geschenk.",
            "Spostami l'appuntamento a domani.",
            "Conéctate a db-prod-03 y reinicia postgres.",
            "Add a subnet to vpc-0a12 in eu-west-1a.",
            "Book a table for 4 at Casa Lucio tonight",
            "Riavvia il container nginx-proxy.",
            "Ponme la lavadora ahora",
            "Erinnerung: Müll rausbringen",
        ] {
            assert!(!unfamiliar(line), "{line}");
        }
        // One word tells nothing either way.
        assert!(!unfamiliar("tinoitupe"));
        assert!(!unfamiliar("Call Keala"));
    }
}
