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
    let words: Vec<&str> = evidence
        .tokens
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.folded.as_str())
        .collect();
    // A subject's opposite, said, says the flag the other way: "keep it public" is
    // `private: false`, "öffentlich" too.
    let opposite = subject_words.iter().any(|s| {
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
    });
    if opposite {
        return true;
    }
    words.iter().enumerate().any(|(i, word)| {
        let word_stem = stem(word);
        let named = subject.iter().any(|s| cognate(s, &word_stem))
            || subject_words.iter().any(|s| {
                lexicon::translations(s)
                    .iter()
                    .any(|t| cognate(&stem(t), &word_stem))
            });
        if !named {
            return false;
        }
        let negated = words[i.saturating_sub(REACH)..i]
            .iter()
            .any(|w| is(NEGATIONS, &fold(w)));
        negated != flag
    })
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
