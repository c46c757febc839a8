//! Days turned down. "not tomorrow, make it Friday", "pásame la entrega a pasado mañana,
//! mañana no estoy en casa", "Hoje não dá, pode ser amanhã?", "pas demain, jeudi": a day
//! named with a negation right before it or a word or two after it, where the conversation
//! says another day, is the day the user cannot do, not the one asked for.

use super::evidence::Evidence;
use super::tokens::{Kind, Token};

/// Days named by a word of their own (folded): today and tomorrow in the six languages
/// ("aujourd" of "aujourd'hui"); weekdays are read by [`super::dates::is_weekday`].
#[rustfmt::skip]
const DAYS: &[&str] = &[
    "today", "hoy", "aujourd", "heute", "hoje", "oggi", "tomorrow", "manana", "demain", "morgen",
    "amanha", "domani", "tonight",
];

/// Words before a day word that make it another day ("pasado mañana", "après-demain",
/// "depois de amanhã", "the day after tomorrow").
const FURTHER: &[&str] = &["pasado", "apres", "depois", "after"];

/// Negations (folded; "t" of "can't", "don't").
const NOT: &[&str] = &[
    "not", "no", "nao", "non", "nicht", "pas", "t", "kein", "keine",
];

/// Words after a negation that agree ("tomorrow is no problem", "mañana no hay problema").
const AGREEING: &[&str] = &["problem", "problema", "probleme", "worries", "hay"];

/// Whether the word at `k` is a "no" right after a sound ([`super::taken_back::LEAD_INS`]):
/// a correction of what came before, not a negation of what follows ("mardi, ah non
/// mercredi", "Tuesday, oh no, Wednesday"). A comma alone does not: "el martes, no
/// miércoles" turns Wednesday down.
fn correction_at(tokens: &[Token], k: usize) -> bool {
    super::taken_back::REFUSED.contains(&tokens[k].folded.as_str())
        && k.checked_sub(1)
            .is_some_and(|j| super::taken_back::LEAD_INS.contains(&tokens[j].folded.as_str()))
}

fn day_at(tokens: &[Token], i: usize) -> bool {
    let t = &tokens[i];
    // The word before it, past a hyphen or "de" ("après-demain", "depois de amanhã").
    let mut k = i.checked_sub(1);
    if k.is_some_and(|k| matches!(tokens[k].folded.as_str(), "-" | "de")) {
        k = k.and_then(|k| k.checked_sub(1));
    }
    let further = k.is_some_and(|k| FURTHER.contains(&tokens[k].folded.as_str()));
    t.kind == Kind::Word
        && (DAYS.contains(&t.folded.as_str()) || super::dates::is_weekday(&t.folded))
        && !further
}

/// Whether the day word at `i` is turned down: a negation right before it, or one of the
/// two words after it (no mark between), not followed by a word that agrees.
fn turned_down(tokens: &[Token], i: usize) -> bool {
    let before = i.checked_sub(1).is_some_and(|k| {
        tokens[k].kind == Kind::Word
            && NOT.contains(&tokens[k].folded.as_str())
            && !correction_at(tokens, k)
    });
    // "mardi, ah non mercredi": the day a correction's "no" and another day come after.
    let corrected = (i + 1..tokens.len().min(i + 5)).any(|k| {
        correction_at(tokens, k) && (k + 1..tokens.len().min(k + 4)).any(|j| day_at(tokens, j))
    });
    let after: Vec<&Token> = tokens[i + 1..]
        .iter()
        .take_while(|t| t.kind != Kind::Punct || t.lower == "'" || t.lower == "’")
        .filter(|t| t.kind == Kind::Word)
        .take(4)
        .collect();
    let negated_after = after.iter().take(3).enumerate().any(|(k, t)| {
        NOT.contains(&t.folded.as_str())
            && (k < 2 || t.folded == "t")
            && !after
                .iter()
                .skip(k + 1)
                .take(2)
                .any(|n| AGREEING.contains(&n.folded.as_str()))
    });
    before || negated_after || corrected
}

/// The conversation split where it turns a day down: the evidence of those day words and of
/// the rest, or `None` where it turns none down or says no other day.
pub fn split(evidence: &Evidence) -> Option<(Evidence, Evidence)> {
    let tokens = &evidence.tokens;
    let down: Vec<std::ops::Range<usize>> = (0..tokens.len())
        .filter(|&i| day_at(tokens, i) && turned_down(tokens, i))
        .map(|i| tokens[i].start..tokens[i].end)
        .collect();
    if down.is_empty() {
        return None;
    }
    let (refused, rest) = evidence.parted(&down);
    let other_day = !rest.facts.dates.is_empty() || !rest.facts.weekdays.is_empty();
    other_day.then_some((refused, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Option<String> {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 12, 10));
        split(&evidence).map(|(down, _)| down.text)
    }

    #[test]
    fn a_day_turned_down_beside_another() {
        let day = |d: &str| Some(format!("{d}. "));
        assert_eq!(
            refused("pásame la entrega a pasado mañana, mañana no estoy en casa"),
            day("mañana")
        );
        assert_eq!(refused("not tomorrow, make it Friday"), day("tomorrow"));
        assert_eq!(refused("Hoje não dá, pode ser amanhã?"), day("Hoje"));
        assert_eq!(refused("tomorrow I can't, Friday works"), day("tomorrow"));
        // No other day, a day that agrees, or "the day after tomorrow": nothing turned down.
        assert!(refused("mañana no puedo").is_none());
        assert!(refused("tomorrow is no problem, or Friday").is_none());
        assert!(refused("not the day after tomorrow, Friday").is_none());
        // A "no" after a sound corrects the day before it.
        assert_eq!(refused("yoga de mardi, ah non mercredi"), day("mardi"));
        assert_eq!(refused("yoga on Tuesday, oh no, Wednesday"), day("Tuesday"));
        assert_eq!(refused("el martes, ay no, el miércoles"), day("martes"));
        // Without the sound it is a negation of what follows.
        assert_eq!(refused("el martes, no miércoles"), day("miércoles"));
        assert_eq!(refused("Tuesday, not Wednesday"), day("Wednesday"));
    }
}
