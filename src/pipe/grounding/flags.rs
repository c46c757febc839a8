//! Rule `flag`: a boolean is said when the conversation speaks of its subject (a word of the
//! field's name, by stem, its cognate or its word in another of the six languages ([`super::
//! lexicon`]): "effective immediately", "con efecto inmediato", "mit sofortiger Wirkung" for
//! `immediate`), `true` when no negation
//! stands right before that word, `false` when one does ("without SSL" for `require_ssl:
//! false`, "ohne Bestätigung"). A flag about order (`depends_on_previous`), true or false,
//! rests on a word that sequences ("then", "luego", "danach"). Only the conversation's words count: a tool's
//! own description speaks of every flag it has, and the main model shown it names them
//! unasked (`enabled: true`, `with_grant_option: false`).

use serde_json::Value;

use super::evidence::Evidence;
use super::lexicon;
use super::tokens::{cognate, fold, stem, words_of, Kind};
use super::words::{is, NEGATIONS, SEQUENCE, STOPWORDS};

/// Words of a flag's name that are no subject: `is_public` is about "public".
const GENERIC: &[&str] = &[
    "is", "has", "should", "use", "allow", "flag", "option", "setting", "with", "on", "do",
];

/// Subjects whose opposite is a word of its own.
const ANTONYMS: &[(&str, &str)] = &[
    ("private", "public"),
    ("hidden", "visible"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("locked", "unlocked"),
    ("open", "closed"),
    ("online", "offline"),
    ("active", "inactive"),
    ("include", "exclude"),
];

/// How many words before the subject a negation reaches: "no SSL", "do not require SSL",
/// "sans me demander de confirmation".
const REACH: usize = 5;

pub fn said(key: &str, _schema: &Value, flag: bool, evidence: &Evidence) -> bool {
    let subject_words: Vec<String> = words_of(key)
        .into_iter()
        .filter(|w| w.chars().count() > 2 && !is(GENERIC, w) && !is(STOPWORDS, w))
        .collect();
    let subject: Vec<String> = subject_words.iter().map(|w| stem(w)).collect();
    let about_order = subject.iter().any(|w| {
        ["depend", "previou", "wait", "sequential", "order"]
            .iter()
            .any(|o| w.starts_with(o))
    });
    // A request that puts things in order ("X, then Y") says for each whether it waits: the
    // first does not, the next does.
    if about_order && SEQUENCE.iter().any(|w| evidence.has_word(w)) {
        return true;
    }
    let (word_at, words): (Vec<usize>, Vec<&str>) = evidence
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::Word)
        .map(|(i, t)| (i, t.folded.as_str()))
        .unzip();
    if opposite_said(&subject_words, &words, flag) {
        return true;
    }
    let named = |word: &str| {
        let word_stem = stem(word);
        subject.iter().any(|s| cognate(s, &word_stem))
            || subject_words.iter().any(|s| {
                lexicon::translations(s)
                    .iter()
                    .any(|t| cognate(&stem(t), &word_stem))
            })
    };
    // A state written after the subject ("motion detection off") says it, whatever stands
    // before.
    let states: Vec<bool> = (0..words.len())
        .filter(|&i| named(words[i]))
        .filter_map(|i| state_after(evidence, word_at[i]))
        .collect();
    if !states.is_empty() {
        return states.contains(&flag);
    }
    words.iter().enumerate().any(|(i, word)| {
        if !named(word) {
            return false;
        }
        let negated = words[i.saturating_sub(REACH)..i]
            .iter()
            .any(|w| is(NEGATIONS, &fold(w)));
        negated != flag
    })
}

/// A subject's opposite, said, says the flag the other way: "keep it public" is `private:
/// false`, "öffentlich" too.
fn opposite_said(subject_words: &[String], words: &[&str], flag: bool) -> bool {
    subject_words.iter().any(|s| {
        ANTONYMS
            .iter()
            .filter_map(|(a, b)| {
                if a == s {
                    Some(b)
                } else if b == s {
                    Some(a)
                } else {
                    None
                }
            })
            .any(|other| {
                words.iter().enumerate().any(|(i, word)| {
                    let named = stem(word) == stem(other)
                        || lexicon::translations(other)
                            .iter()
                            .any(|t| cognate(&stem(t), &stem(word)));
                    let negated = words[i.saturating_sub(REACH)..i]
                        .iter()
                        .any(|w| is(NEGATIONS, &fold(w)));
                    named && negated == flag
                })
            })
    })
}

/// Words that say a thing is off, or on, written right after it at the end of a clause:
/// "motion detection off", "Bewegungserkennung aus", "notificaciones: apagadas".
const OFF_AFTER: &[&str] = &[
    "off",
    "aus",
    "apagado",
    "apagada",
    "apagados",
    "apagadas",
    "desactivado",
    "desactivada",
    "desactivados",
    "desactivadas",
    "desactive",
    "desactivee",
    "desactives",
    "eteint",
    "eteinte",
    "deaktiviert",
    "ausgeschaltet",
    "spento",
    "spenta",
    "spenti",
    "disattivato",
    "disattivata",
    "disattivati",
    "desligado",
    "desligada",
    "desativado",
    "desativada",
    "disabled",
];
const ON_AFTER: &[&str] = &[
    "on",
    "an",
    "ein",
    "encendido",
    "encendida",
    "activado",
    "activada",
    "activados",
    "activadas",
    "active",
    "activee",
    "allume",
    "allumee",
    "aktiviert",
    "eingeschaltet",
    "acceso",
    "accesa",
    "attivato",
    "attivata",
    "ligado",
    "ligada",
    "ativado",
    "ativada",
    "enabled",
];

/// The state a word right after the token at `at` gives it, where that word ends its clause
/// (a mark or the end of the text follows): "aus" of "Bewegungserkennung aus.", not of "aus
/// dem Haus".
fn state_after(evidence: &Evidence, at: usize) -> Option<bool> {
    let tokens = &evidence.tokens;
    let mut next = at + 1;
    if tokens.get(next).is_some_and(|t| t.lower == ":") {
        next += 1;
    }
    let word = tokens.get(next).filter(|t| t.kind == Kind::Word)?;
    let ends = tokens
        .get(next + 1)
        .is_none_or(|t| t.kind == Kind::Punct && t.lower != "-");
    if !ends {
        return None;
    }
    if is(OFF_AFTER, &word.folded) {
        Some(false)
    } else if is(ON_AFTER, &word.folded) {
        Some(true)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flag(text: &str, key: &str, value: bool) -> bool {
        said(
            key,
            &json!({}),
            value,
            &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
        )
    }

    #[test]
    fn affirmed_and_negated_subjects() {
        assert!(flag(
            "the change is effective immediately",
            "immediate",
            true
        ));
        assert!(flag("connect without SSL", "require_ssl", false));
        assert!(!flag("connect without SSL", "require_ssl", true));
        assert!(flag("conectar sin SSL", "require_ssl", false));
        assert!(flag("con efecto inmediato", "immediate", true));
        assert!(flag("vale con effetto immediato", "immediate", true));
        assert!(flag("gilt mit sofortiger Wirkung", "immediate", true));
        assert!(flag(
            "ohne Benachrichtigung der Teilnehmer",
            "notify_attendees",
            false
        ));
        assert!(flag("bitte ohne SSL verbinden", "require_ssl", false));
        assert!(flag("create the repo and keep it public", "private", false));
        assert!(flag("Mach die Umfrage öffentlich", "private", false));
        assert!(!flag("create the repo and keep it public", "private", true));
        assert!(flag("make it private, not public", "private", true));
        assert!(flag("make the repo public", "is_public", true));
        assert!(flag("build it, then deploy", "depends_on_previous", true));
        assert!(flag(
            "Disattiva la notifica del campanello",
            "doorbell_notifications",
            false
        ));
    }

    #[test]
    fn a_state_said_after_its_subject() {
        assert!(flag(
            "hallway camera: motion detection off.",
            "motion_detection",
            false
        ));
        assert!(!flag(
            "hallway camera: motion detection off.",
            "motion_detection",
            true
        ));
        assert!(flag("Notifications: on", "notifications", true));
        assert!(flag(
            "Kamera im Flur: Benachrichtigung aus",
            "notifications",
            false
        ));
        // Only where it ends the clause: "aus" of "aus dem Urlaub" is no "off".
        assert!(!flag(
            "Benachrichtigung aus dem Urlaub schicken",
            "notifications",
            false
        ));
        assert!(!flag(
            "turn the notifications on the phone",
            "notifications",
            false
        ));
    }

    #[test]
    fn subjects_nobody_spoke_of() {
        assert!(!flag("create an alert for high CPU", "enabled", true));
        assert!(!flag(
            "grant read access to bob",
            "with_grant_option",
            false
        ));
        assert!(!flag(
            "create an alert for high CPU",
            "notify_on_resolve",
            true
        ));
        assert!(!flag("connect to the database", "require_ssl", false));
    }
}
