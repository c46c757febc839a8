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
use super::tokens::{cognate, fold, stem, words_of, Kind, Token};
use super::words::{is, SEQUENCE, STOPWORDS};

/// Words of a flag's name that are no subject: `is_public` is about "public".
const GENERIC: &[&str] = &[
    "is", "has", "should", "use", "allow", "allowed", "allows", "flag", "option", "setting",
    "with", "on", "do",
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
    ("express", "standard"),
];

/// How many words before the subject a negation reaches: "no SSL", "do not require SSL",
/// "sans me demander de confirmation".
const REACH: usize = 5;

/// Words of a flag's name that turn its subject around: `avoid_tolls` is true where the user
/// says no tolls ("keep me off toll roads", "ohne Maut"), `gluten_free` where they say
/// without gluten ("senza glutine").
const INVERTING: &[&str] = &[
    "avoid", "skip", "exclude", "no", "not", "dont", "never", "without", "disable", "free",
    "ignore", "omit", "block", "hide", "suppress", "prevent", "disallow",
];

pub fn said(key: &str, schema: &Value, flag: bool, evidence: &Evidence) -> bool {
    let key_words = words_of(key);
    let inverted = key_words.len() > 1 && key_words.iter().any(|w| is(INVERTING, w));
    let flag = flag != inverted;
    // A thing's state (`on`, `power_on`, `is_powered`) names no subject: "power" is no
    // word a request to switch a light off says.
    if is_state(key) {
        return switched(evidence) == Some(flag);
    }
    let subject_words = subject_of(&key_words, schema, inverted);
    if subject_words.is_empty() {
        return false;
    }
    // `enabled`, `active`: a thing's state too, said by switching the thing ("turn off the
    // motion sensor", "active le mode ne pas déranger"), or else by its own word.
    if subject_words.iter().all(|w| is(ENABLED, w)) && switched(evidence) == Some(flag) {
        return true;
    }
    let turning = turning_forms(key, inverted);
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
    // The opposite said decides: "keep it public" is `private: false` and no `private: true`,
    // "livraison standard" no `express_delivery: true`.
    let opposite = opposite_said(evidence, &subject_words, &words);
    if opposite.contains(&flag) {
        return true;
    }
    if !opposite.is_empty() {
        return false;
    }
    // A word names the subject, or a part of it does ("Kindersitz" for `child_seat`).
    let named_directly = |word: &str| {
        evidence
            .word_and_parts(word)
            .into_iter()
            .any(|word| names_subject(word, &subject, &subject_words))
    };
    // Or what follows its undoing prefix does, which turns it ("unsubscribe" for
    // `subscribed`, "desactivar" for `active`).
    let undone_at = |i: usize| !named_directly(words[i]) && undone(words[i]).any(&named_directly);
    let named_at = |i: usize| named_directly(words[i]) || undone_at(i);
    // A subject the user says either way suits them says neither way ("I don't mind if it
    // has a garage or not", "peu importe le parking").
    if (0..words.len()).any(|i| named_at(i) && indifferent(&words, i)) {
        return false;
    }
    // A subject the user took back afterwards ("abonne-moi à la newsletter... enfin non,
    // laisse tomber") says neither way.
    let mentioned = |i: usize| named_at(i) && !retracted_after(&words[i + 1..]);
    // A state written after the subject ("motion detection off") says it, whatever stands
    // before.
    let states: Vec<bool> = (0..words.len())
        .filter(|&i| mentioned(i))
        .filter_map(|i| state_after(evidence, word_at[i]))
        .collect();
    if !states.is_empty() {
        return states.contains(&flag);
    }
    // A negation before an undone subject turns it back ("don't unsubscribe me").
    (0..words.len()).any(|i| {
        mentioned(i) && (negated_in_clause(evidence, word_at[i], &turning) != undone_at(i)) != flag
    })
}

/// Whether a word (folded) names a flag's subject (`subject`, its words' stems): by stem, by
/// the word in another of the six languages (stemmed, or whole: English endings cut from
/// "avises" leave "avis", which no form of "avisar" meets; a verb's plural, "avisen", as
/// its singular), or as a word of its kind
/// ("suitable for children" for `good_for_kids`).
fn names_subject(word: &str, subject: &[String], subject_words: &[String]) -> bool {
    let word_stem = stem(word);
    subject.iter().any(|s| cognate(s, &word_stem))
        || subject_words.iter().any(|s| participle_of(s, word))
        || subject_words.iter().any(|s| {
            lexicon::translations(s)
                .iter()
                .any(|t| cognate(&stem(t), &word_stem) || cognate(t, singular(word)))
        })
        || super::counted::same_kind(word, subject_words)
}

/// A Romance verb of six letters or more without its plural's "n" ("avisen", "avisan"), which
/// then meets its other forms ("aviso"); any other word as it is.
fn singular(word: &str) -> &str {
    match word.strip_suffix('n') {
        Some(rest) if word.chars().count() >= 6 && rest.ends_with(['a', 'e']) => rest,
        _ => word,
    }
}

/// Whether an English past participle of five letters or more (`muted`, `locked`, `pinned`)
/// is the participle of `verb` ("Mute the chat", "lock it", "pin this"): the stem is too
/// short to meet them.
fn participle_of(participle: &str, verb: &str) -> bool {
    let Some(base) = participle
        .strip_suffix("ed")
        .filter(|_| participle.chars().count() >= 5)
    else {
        return false;
    };
    // A doubled last letter is the participle's, but for those English keeps doubled
    // ("call", "pass", "miss": `missed` is no Spanish "mis", `passed` no French "pas").
    let mut chars = base.chars().rev();
    let doubled = matches!((chars.next(), chars.next()),
        (Some(a), Some(b)) if a == b && !matches!(a, 'l' | 's' | 'f' | 'z'));
    !super::language::function_word(verb)
        && (verb == base
            || verb.strip_suffix('e') == Some(base)
            || (doubled
                && verb.get(..base.len() - 1) == base.get(..base.len() - 1)
                && verb.len() + 1 == base.len()))
}

/// Prefixes that undo what the rest of a word names, in the six languages (folded):
/// "unsubscribe", "disconnect", "desactivar", "desuscribir", "désabonner", "desligar",
/// "disattivare". English "de-" and German "ab-" are left out: they make nouns and undo
/// little ("dehumidifier", "abholen").
const UNDOING: &[&str] = &["un", "dis", "des"];

/// What may follow an undoing prefix of `word`, five letters or more ("subscribe" of
/// "unsubscribe", "abonne" and "sabonne" of "desabonne"; "tail" of "detail" is too short to
/// name anything).
fn undone(word: &str) -> impl Iterator<Item = &str> {
    UNDOING
        .iter()
        .filter_map(move |p| word.strip_prefix(p))
        .filter(|rest| rest.chars().count() >= 5)
}

/// The name's own turning word and its translations, by stem: said, it negates the subject
/// ("toll roads avoided", "evitar peajes").
fn turning_forms(key: &str, inverted: bool) -> Vec<String> {
    words_of(key)
        .into_iter()
        .filter(|w| inverted && is(INVERTING, w) && w.chars().count() > 3)
        .flat_map(|w| {
            let mut forms: Vec<String> =
                lexicon::translations(&w).iter().map(|t| stem(t)).collect();
            forms.push(stem(&w));
            forms
        })
        .collect()
}

/// "Or not" after a subject, in the six languages, folded.
const OR_NOT: &[[&str; 2]] = &[
    ["or", "not"],
    ["o", "no"],
    ["ou", "pas"],
    ["ou", "non"],
    ["oder", "nicht"],
    ["ou", "nao"],
    ["o", "meno"],
];

/// Words of indifference before a subject: "don't mind", "doesn't matter", "whether",
/// "me da igual", "no me importa", "peu importe", "egal ob", "tanto faz", "non importa".
const EITHER_WAY: &[&str] = &[
    "whether",
    "igual",
    "importa",
    "importe",
    "egal",
    "faz",
    "indifferent",
    "indiferente",
    "indifferente",
];

/// Words of indifference only after a negation: "don't mind", "doesn't matter", "no
/// matter", "don't care" (never "I mind the noise").
const NEGATED_EITHER_WAY: &[&str] = &["mind", "matter", "care"];

/// Whether the subject at word `i` is said either way: "or not" within three words after
/// it, or a word of indifference within five before it in the same words.
fn indifferent(words: &[&str], i: usize) -> bool {
    let after = &words[i + 1..words.len().min(i + 5)];
    after
        .windows(2)
        .any(|pair| OR_NOT.iter().any(|or_not| pair == or_not))
        || (i.saturating_sub(REACH)..i).any(|j| {
            is(EITHER_WAY, words[j])
                || (is(NEGATED_EITHER_WAY, words[j])
                    && words[j.saturating_sub(2)..j]
                        .iter()
                        .any(|w| is(super::words::NEGATIONS, w)))
        })
}

/// The words of a flag's subject: its name's, less generic and turning words, and a short
/// label's in the tool's language ([`label_words`]).
fn subject_of(key_words: &[String], schema: &Value, inverted: bool) -> Vec<String> {
    let mut subject: Vec<String> = key_words
        .iter()
        .filter(|w| {
            // Two letters are a subject where they are no word of their own: "cc" of
            // `cc_self`.
            (w.chars().count() > 2
                || (w.chars().count() == 2 && !super::language::function_word(w)))
                && !is(GENERIC, w)
                && !is(STOPWORDS, w)
                && (!inverted || !is(INVERTING, w))
        })
        .cloned()
        .collect();
    // "allowed" names nothing beside a subject (`pets_allowed`), and is the subject alone
    // (`allowed`, `is_allowed`).
    if subject.is_empty() {
        subject = key_words
            .iter()
            .filter(|w| matches!(w.as_str(), "allowed" | "allows"))
            .cloned()
            .collect();
    }
    // "send the invite" says no `send_reminder`: beside its object, the verb of what the
    // request does anyway names no subject.
    if subject.len() > 1 && subject.iter().any(|w| !is(ACTIONS, w)) {
        subject.retain(|w| !is(ACTIONS, w));
    }
    if !subject.is_empty() {
        subject.extend(label_words(schema));
    }
    subject
}

/// Verbs of what a request does, in flag names beside their object (`send_reminder`,
/// `create_backup`, `add_insurance`).
const ACTIONS: &[&str] = &[
    "send", "create", "make", "book", "add", "get", "set", "request", "generate", "issue",
    "include",
];

/// Phrases that take back what was asked before them, in the six languages (folded).
const RETRACTIONS: &[&[&str]] = &[
    &["never", "mind"],
    &["nevermind"],
    &["forget", "it"],
    &["scratch", "that"],
    &["olvidalo"],
    &["olvida", "eso"],
    &["dejalo"],
    &["laisse", "tomber"],
    &["oublie", "ca"],
    &["vergiss", "es"],
    &["vergiss", "das"],
    &["lascia", "perdere"],
    &["lascia", "stare"],
    &["deixa", "pra", "la"],
    &["deixa", "para", "la"],
    &["esquece"],
    &["deixa", "estar"],
    &["afinal", "nao"],
];

/// Whether `after` (the words after a mention) holds a phrase that takes it back.
fn retracted_after(after: &[&str]) -> bool {
    (0..after.len()).any(|i| {
        RETRACTIONS
            .iter()
            .any(|phrase| after[i..].starts_with(phrase))
    })
}

/// The subject's words in a short description written as a label in another of the six
/// languages than English ("Incluir cebolla", "Demander un accusé de réception"): a
/// dictionary for the subject where the field's English name has no entry in the lexicon,
/// never evidence that it was said. Its first word is left out where there are more (a
/// label's verb: "Incluir", "Demander"); a German label's last noun is left out instead. An English description, or a longer one (a
/// sentence), speaks of more than the subject ("Include the original attachments when
/// forwarding" is no flag said by "Forward this email").
fn label_words(schema: &Value) -> Vec<String> {
    let Some(description) = schema.get("description").and_then(Value::as_str) else {
        return Vec::new();
    };
    let words: Vec<String> = words_of(description)
        .into_iter()
        .map(|w| fold(&w))
        .filter(|w| {
            w.chars().count() >= 4
                && !is(GENERIC, w)
                && !is(STOPWORDS, w)
                && !super::language::function_word(w)
        })
        .collect();
    // The language last: reading it costs more than counting words.
    if !(1..=3).contains(&words.len()) {
        return Vec::new();
    }
    let last_capitalized = description
        .split_whitespace()
        .last()
        .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase));
    match super::language::of(description).main {
        None | Some("en") => Vec::new(),
        _ if words.len() == 1 => words,
        // A German adjective before the label's last word, a noun, qualifies it: "Ganztägiger
        // Termin" is about all day, not the appointment every request for one names
        // ("Ordner öffentlich" is about public, "Sende Lesebestätigung" about the receipt).
        Some("de") if last_capitalized && german_adjective(&words[0]) => {
            words[..words.len() - 1].to_vec()
        }
        _ => words[1..].to_vec(),
    }
}

/// Whether a folded German word ends as an adjective does before a noun ("ganztagiger",
/// "offentliche", "automatisches"), which no verb does.
fn german_adjective(word: &str) -> bool {
    ["", "e", "er", "es", "en", "em"].iter().any(|ending| {
        word.strip_suffix(ending).is_some_and(|stem| {
            ["ig", "lich", "isch", "bar", "los"]
                .iter()
                .any(|end| stem.ends_with(end))
        })
    })
}

/// Words of a flag that is a thing's state and names no subject (`on`, `is_on`, `power`):
/// the thing is the tool's (a light, a heater), the state is said by switching it.
const STATE: &[&str] = &[
    "is", "on", "power", "powered", "turned", "switched", "lit", "state",
];

/// Words of a flag that say a thing works, whatever the thing: `enabled`, `is_active`.
const ENABLED: &[&str] = &["enabled", "enable", "active", "activated", "armed"];

fn is_state(key: &str) -> bool {
    let words = words_of(key);
    !words.is_empty() && words.iter().all(|w| is(STATE, w))
}

/// Verbs that switch a thing on, and off, in the six languages (folded): "enciende la luz",
/// "spegni le luci", "éteins le chauffage".
const SWITCH_ON: &[&str] = &[
    "encender",
    "enciende",
    "enciendan",
    "encienda",
    "prende",
    "prender",
    "allume",
    "allumer",
    "allumez",
    "einschalten",
    "anschalten",
    "anmachen",
    "liga",
    "ligar",
    "ligue",
    "acende",
    "acender",
    "accendi",
    "accendere",
    "accenda",
    "active",
    "activer",
    "activez",
    "activa",
    "activar",
    "ative",
    "ativa",
    "ativar",
    "attiva",
    "attivare",
    "aktiviere",
    "aktivieren",
    "enable",
    "activate",
];
const SWITCH_OFF: &[&str] = &[
    "apagar",
    "apaga",
    "apague",
    "apaguen",
    "eteins",
    "eteindre",
    "eteignez",
    "ausschalten",
    "abschalten",
    "ausmachen",
    "desliga",
    "desligar",
    "desligue",
    "spegni",
    "spegnere",
    "spenga",
    "desactive",
    "desactiver",
    "desactivez",
    "desactiva",
    "desactivar",
    "desativa",
    "desativar",
    "disattiva",
    "disattivare",
    "deaktiviere",
    "deaktivieren",
    "disable",
    "deactivate",
    "kill",
];
/// German verbs whose particle, at the clause's end, says which way: "schalt das Licht
/// aus", "mach die Heizung an".
const SWITCH_STEM: &[&str] = &["schalt", "schalte", "schaltet", "mach", "mache", "macht"];

/// Which way a member of a choice sets a thing's state: `on`, `enabled` one way, `off`,
/// `disabled` the other; `None` for a member that is no state.
pub(super) fn state_member(member: &str) -> Option<bool> {
    match member.to_lowercase().as_str() {
        "on" | "enabled" | "enable" | "active" | "activated" => Some(true),
        "off" | "disabled" | "disable" | "inactive" | "deactivated" => Some(false),
        _ => None,
    }
}

/// Which way the conversation switches a thing: `Some(true)` on, `Some(false)` off, `None`
/// when it says neither or both. "turn/switch/power on|off" in English.
pub(super) fn switched(evidence: &Evidence) -> Option<bool> {
    let words: Vec<&str> = evidence
        .tokens
        .iter()
        .filter(|t| t.kind != Kind::Punct || CLAUSE_ENDS.contains(&t.lower.as_str()))
        .map(|t| t.folded.as_str())
        .collect();
    let (mut on, mut off) = (false, false);
    for (i, word) in words.iter().enumerate() {
        on |= is(SWITCH_ON, word);
        off |= is(SWITCH_OFF, word);
        if matches!(*word, "turn" | "switch" | "power" | "shut") {
            // "turn on the lights", "turn the lights off": the particle within the clause.
            let clause = words[i + 1..]
                .iter()
                .take(4)
                .take_while(|w| !is(CLAUSE_ENDS, w));
            for particle in clause {
                on |= *particle == "on";
                off |= *particle == "off";
            }
        }
        if is(SWITCH_STEM, word) {
            // The particle closes the clause: "schalt die Heizung ein."
            let end = words[i + 1..]
                .iter()
                .take_while(|w| !is(CLAUSE_ENDS, w))
                .last();
            on |= end.is_some_and(|w| matches!(*w, "ein" | "an"));
            off |= end.is_some_and(|w| *w == "aus");
        }
    }
    match (on, off) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// Words that end the clause a negation reaches over.
const CLAUSE_ENDS: &[&str] = &[".", ",", ";", ":", "!", "?"];
/// How many words after the subject a negation reaches: "einen Kindersitz brauche ich
/// nicht", "le petit-déjeuner n'est pas nécessaire".
const REACH_AFTER: usize = 4;

/// Whether a negation stands before the token at `at`, within [`REACH`] words of its clause,
/// or after it within [`REACH_AFTER`] words of its clause (a mark or a joining word ends
/// one: "notifications on, but no sound" negates the sound only).
fn negated_in_clause(evidence: &Evidence, at: usize, turning: &[String]) -> bool {
    let tokens = &evidence.tokens;
    let scan = |range: &mut dyn Iterator<Item = usize>, reach: usize| {
        let mut seen = 0;
        for j in range {
            let token = &tokens[j];
            if token.kind == Kind::Punct {
                if CLAUSE_ENDS.contains(&token.lower.as_str()) {
                    return false;
                }
                continue;
            }
            // "e" of "e-mail" is no Portuguese "and".
            if (evidence.joins(&token.folded) && !hyphened(tokens, j)) || seen == reach {
                return false;
            }
            if evidence.negates(&fold(&token.folded)) && !forget_next(tokens, j) {
                return true;
            }
            if turning.iter().any(|t| cognate(t, &stem(&token.folded))) {
                return true;
            }
            // A contraction's letter ("t" of "don't", "s" of "it's") is no word of its own,
            // and a need's word only carries the negation on ("pas besoin de me mettre en
            // copie", "no hace falta que me pongas en copia").
            if token.folded.chars().count() > 1 && !is(NEED, &token.folded) {
                seen += 1;
            }
        }
        false
    };
    scan(&mut (0..at).rev(), REACH) || scan(&mut (at + 1..tokens.len()), REACH_AFTER)
}

/// Whether the word at `j` is joined to the next by a hyphen, with no space: "e-mail".
fn hyphened(tokens: &[Token], j: usize) -> bool {
    matches!(
        (tokens.get(j + 1), tokens.get(j + 2)),
        (Some(dash), Some(next)) if dash.lower == "-" && !dash.spaced && !next.spaced
    )
}

/// Words of a need, which a negation before them turns on what is needed: "no need to",
/// "pas besoin de", "no hace falta", "não precisa", "nicht nötig", "non serve" (folded).
const NEED: &[&str] = &[
    "need",
    "needed",
    "besoin",
    "falta",
    "necesario",
    "precisa",
    "preciso",
    "necessario",
    "notig",
    "bisogno",
    "serve",
    "necessaire",
];

/// Words of forgetting or leaving off: a negation before one asks for the thing ("no dejes
/// de avisarme", "don't forget to", "n'oublie pas de", "vergiss nicht", "não deixes de", "non
/// dimenticare di").
const FORGET: &[&str] = &[
    "forget",
    "stop",
    "fail",
    "dejes",
    "olvides",
    "olvidar",
    "oublie",
    "oubliez",
    "oublier",
    "vergiss",
    "vergessen",
    "deixes",
    "esquecas",
    "esqueca",
    "esquece",
    "esquecer",
    "dimenticare",
    "dimenticarti",
    "smettere",
];

/// Whether the negation at token `at` is one of forgetting ([`FORGET`] within a word of it,
/// either side: "vergiss nicht", "don't forget"): no negation of what follows.
fn forget_next(tokens: &[super::tokens::Token], at: usize) -> bool {
    let near = at.saturating_sub(1)..(at + 3).min(tokens.len());
    tokens[near]
        .iter()
        .any(|t| t.kind == Kind::Word && is(FORGET, &t.folded))
}

/// What a subject's opposite, said, says of the flag, once for each time it is said: "keep
/// it public" is `private: false`, "öffentlich" too; "not public" is `private: true`.
fn opposite_said(evidence: &Evidence, subject_words: &[String], words: &[&str]) -> Vec<bool> {
    let opposites = subject_words.iter().flat_map(|s| {
        ANTONYMS.iter().filter_map(move |(a, b)| {
            if a == s {
                Some(b)
            } else if b == s {
                Some(a)
            } else {
                None
            }
        })
    });
    let mut said = Vec::new();
    for other in opposites {
        for (i, word) in words.iter().enumerate() {
            let named = stem(word) == stem(other)
                || lexicon::translations(other)
                    .iter()
                    .any(|t| cognate(&stem(t), &stem(word)));
            if named {
                let negated = words[i.saturating_sub(REACH)..i]
                    .iter()
                    .any(|w| evidence.negates(&fold(w)));
                said.push(negated);
            }
        }
    }
    said
}

/// "Of" (and its article) between a subject and a phrase it belongs to, folded.
#[rustfmt::skip]
const OF_THE: &[&str] = &[
    "of", "de", "del", "do", "da", "dos", "das", "du", "des", "di", "della", "dello", "dei",
    "delle", "von", "vom", "der",
];

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
    "desligados",
    "desligadas",
    "desativado",
    "desativada",
    "desativados",
    "desativadas",
    "eteints",
    "eteintes",
    "spente",
    "disattivate",
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
/// dem Haus". Past what the subject is of, only a participle that agrees with the subject in
/// number ("as notificações do app do banco desligadas"; not "de câmera desligada", which is
/// the camera's, nor "reminders of my days off").
fn state_after(evidence: &Evidence, at: usize) -> Option<bool> {
    let tokens = &evidence.tokens;
    let mut next = at + 1;
    if tokens.get(next).is_some_and(|t| t.lower == ":") {
        next += 1;
    }
    // Past what the subject is of, two words at most each time ("as notificações do app do
    // banco desligadas", "las alertas de la cámara apagadas").
    for _ in 0..3 {
        let of = tokens.get(next).is_some_and(|t| is(OF_THE, &t.folded));
        let words = tokens.get(next + 1..next + 3).map_or(0, |run| {
            run.iter().take_while(|t| t.kind == Kind::Word).count()
        });
        if !of || words == 0 {
            break;
        }
        // The state word itself is no word of the phrase.
        let phrase = tokens[next + 1..next + 1 + words]
            .iter()
            .take_while(|t| {
                !is(OFF_AFTER, &t.folded) && !is(ON_AFTER, &t.folded) && !is(OF_THE, &t.folded)
            })
            .count();
        if phrase == 0 {
            break;
        }
        next += 1 + phrase;
    }
    let word = tokens.get(next).filter(|t| t.kind == Kind::Word)?;
    if next > at + 2 && !agrees(&tokens[at].folded, &word.folded) {
        return None;
    }
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

/// Whether a participle (folded) agrees in number with the noun it follows: both plural
/// ("-s", Italian "-i" and "-e") or neither; not a particle ("off", "aus"), which agrees with
/// anything.
fn agrees(noun: &str, participle: &str) -> bool {
    if participle.chars().count() <= 3 {
        return false;
    }
    let plural = |w: &str| w.ends_with('s') || w.ends_with('i');
    // Italian feminine plurals end in "-e" as French singulars do: "notifiche spente".
    let italian = participle.ends_with('e') && noun.ends_with('e');
    italian || plural(noun) == plural(participle)
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

    fn labelled(text: &str, key: &str, label: &str, value: bool) -> bool {
        said(
            key,
            &json!({"type": "boolean", "description": label}),
            value,
            &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
        )
    }

    #[test]
    fn a_subject_said_in_a_romance_verb_s_other_persons() {
        assert!(flag("no me avises, gracias", "notify", false));
        assert!(flag(
            "Cuando llegue el paquete no hace falta que me avisen",
            "notify_on_delivery",
            false
        ));
        assert!(!flag("no me avises, gracias", "notify", true));
        // A plural's "n" comes off a word of six letters or more after "a" or "e" only; what
        // is left must still meet a translation of the subject.
        assert_eq!(singular("avisen"), "avise");
        assert_eq!(singular("plan"), "plan");
        assert_eq!(singular("camion"), "camion");
        assert!(!flag("listen to the message", "notify", false));
    }

    #[test]
    fn a_hyphened_word_joins_no_clauses() {
        assert!(flag("não precisa mandar por e-mail", "email", false));
        assert!(flag(
            "Quero a nota fiscal só no app, não precisa mandar por e-mail.",
            "send_email",
            false
        ));
        // "e" alone joins: the negation is the other clause's.
        assert!(!flag("não quero papel e mandar por email", "email", false));
    }

    #[test]
    fn the_verb_beside_a_flag_s_object_is_no_subject() {
        let invite = "Send the invite for Friday's team lunch to the whole team";
        assert!(!flag(invite, "send_reminder", true));
        assert!(flag(
            "Send the invite and a reminder the day before",
            "send_reminder",
            true
        ));
        assert!(flag(
            "Book the car and add insurance please",
            "add_insurance",
            true
        ));
        assert!(!flag(
            "Book the car, add a child seat",
            "add_insurance",
            true
        ));
        // A verb alone is its flag's subject.
        assert!(flag("send it now", "send", true));
    }

    #[test]
    fn an_undoing_prefix_turns_the_subject() {
        for text in [
            "unsubscribe me from the newsletter",
            "désabonne-moi de la newsletter",
        ] {
            assert!(flag(text, "subscribed", false), "{text}");
            assert!(!flag(text, "subscribed", true), "{text}");
        }
        assert!(flag("disconnect the printer", "connected", false));
        // A negation before it turns it back; a word that holds the subject is no prefix's.
        assert!(flag("don't unsubscribe me", "subscribed", true));
        assert!(flag("subscribe me to the newsletter", "subscribed", true));
        assert!(!flag("show the details", "tailored", false));
        assert!(!flag("turn on the dehumidifier", "humidifier_on", false));
    }

    #[test]
    fn a_participle_said_by_its_verb() {
        assert!(flag(
            "Mute the family group chat, it's way too noisy",
            "muted",
            true
        ));
        assert!(flag("don't mute the family chat", "muted", false));
        assert!(flag("lock the front door", "locked", true));
        assert!(flag("pin this message", "pinned", true));
        // Another verb sharing its letters is none.
        assert!(!flag("mutate the record", "muted", true));
        assert!(!flag("pine for it", "pinned", true));
        assert!(!flag("lockers are full", "locked", true));
        assert!(!flag("Muéstrame mis llamadas de hoy", "missed", true));
        assert!(!flag("je ne passe pas", "passed", true));
    }

    #[test]
    fn a_subject_said_either_way_says_neither() {
        let either = "2 bedrooms, and I don't mind if it has a garage or not";
        assert!(!flag(either, "has_garage", false));
        assert!(!flag(either, "has_garage", true));
        assert!(!flag("me da igual si tiene garaje", "has_garage", true));
        assert!(!flag("egal ob mit Balkon", "has_balcony", true));
        // A want said plainly, or a negation with no alternative, still says it.
        assert!(flag("it must have a garage", "has_garage", true));
        assert!(flag("no garage needed", "has_garage", false));
        assert!(flag(
            "I mind the noise, so no pets please",
            "pets_allowed",
            false
        ));
    }

    #[test]
    fn a_labels_words_name_the_subject_in_the_tools_language() {
        assert!(labelled(
            "una hamburguesa sin cebolla porfa",
            "include_onion",
            "Incluir cebolla",
            false
        ));
        assert!(!labelled(
            "una hamburguesa sin cebolla porfa",
            "include_onion",
            "Incluir cebolla",
            true
        ));
        assert!(labelled(
            "envoie-le sans accusé de réception",
            "read_receipt",
            "Demander un accusé de réception",
            false
        ));
        // The label's verb is no subject; nor is an English sentence's every word.
        assert!(!labelled(
            "pide un taxi para las ocho",
            "read_receipt",
            "Pedir confirmación de lectura",
            true
        ));
        assert!(!labelled(
            "Forward this email to accounting.",
            "include_attachments",
            "Include the original attachments when forwarding",
            true
        ));
        // Taken back.
        assert!(!labelled(
            "abonne-moi à la newsletter... enfin non, laisse tomber",
            "subscribe",
            "Abonner à la newsletter",
            true
        ));
        assert!(labelled(
            "abonne-moi à la newsletter, et laisse le reste",
            "subscribe",
            "Abonner à la newsletter",
            true
        ));
        // A German label's last noun is what its first word qualifies, which every request
        // for one names; a word after the noun is the subject.
        assert!(!labelled(
            "Erstell einen Termin fürs Elterngespräch am Donnerstag.",
            "all_day",
            "Ganztägiger Termin",
            true
        ));
        assert!(labelled(
            "Erstell einen ganztägigen Termin am Donnerstag.",
            "all_day",
            "Ganztägiger Termin",
            true
        ));
        assert!(labelled(
            "mach den Ordner öffentlich",
            "shared",
            "Ordner öffentlich",
            true
        ));
        // A verb first is no adjective: the noun is the subject.
        assert!(!labelled(
            "Sende die Mail an Anna",
            "read_receipt",
            "Sende Lesebestätigung",
            true
        ));
        // Only a dictionary: a label the user never spoke of says nothing.
        assert!(!labelled(
            "una hamburguesa doble",
            "include_onion",
            "Incluir cebolla",
            false
        ));
    }

    #[test]
    fn a_state_is_said_by_switching_its_thing() {
        for (text, on) in [
            ("Spegni le luci del salotto.", false),
            ("Turn on the kitchen lights", true),
            ("turn the lights off please", false),
            ("Enciende la lámpara del salón", true),
            ("Éteins le chauffage.", false),
            ("Schalt das Licht im Flur aus.", false),
            ("Mach die Lampe an.", true),
            ("Liga o ar condicionado.", true),
        ] {
            assert!(flag(text, "on", on), "{text}");
            assert!(!flag(text, "on", !on), "{text}");
            assert!(flag(text, "is_on", on), "{text}");
            // "power" is a state's word, no subject a request says.
            assert!(flag(text, "power_on", on), "{text}");
            assert!(!flag(text, "power_on", !on), "{text}");
        }
        // No switching said, or both ways: no state.
        for text in [
            "Set the power limit to 40 watts.",
            "Set the living room lights to 40%.",
            "Turn on the fan and turn off the heater.",
            "Das Licht aus dem Flur ist hell.",
        ] {
            assert!(
                !flag(text, "on", true) && !flag(text, "on", false),
                "{text}"
            );
        }
    }

    #[test]
    fn the_opposite_said_decides_and_an_avoided_thing_in_other_words() {
        let text = "Commande les courses, livraison standard ça ira";
        assert!(!flag(text, "express_delivery", true));
        assert!(flag(text, "express_delivery", false));
        assert!(flag("Envío exprés, por favor", "express_delivery", true));
        assert!(!flag("Keep the folder public", "private", true));
        assert!(flag("Keep the folder public", "private", false));
        assert!(flag(
            "Percorso per Firenze evitando i pedaggi",
            "avoid_tolls",
            true
        ));
        assert!(flag("Ruta a Sevilla evitando peajes", "avoid_tolls", true));
        assert!(!flag(
            "Percorso per Firenze con i pedaggi",
            "avoid_tolls",
            true
        ));
    }

    #[test]
    fn no_need_negates_what_is_needed_and_dont_forget_asks_for_it() {
        let cc = "envoie la facture à la compta, pas besoin de me mettre en copie";
        assert!(flag(cc, "cc_me", false));
        assert!(!flag(cc, "cc_me", true));
        // A need said, no negation: asked for.
        assert!(flag("send it, and I need a copy in cc", "cc_me", true));
        let link = "marca a reunião e não esquece de colocar o link do meet";
        assert!(flag(link, "add_video_link", true));
        assert!(!flag(link, "add_video_link", false));
    }

    #[test]
    fn a_contraction_counts_as_one_word() {
        let text = "Route me to Boston, and I really don't want to pay any tolls.";
        assert!(flag(text, "avoid_tolls", true));
        assert!(!flag(text, "avoid_tolls", false));
        // Beyond reach even so: the negation is of something else.
        let text = "I don't care which road you take to get there or which tolls.";
        assert!(!flag(text, "avoid_tolls", true));
    }

    #[test]
    fn french_ma_is_my_not_but() {
        let text = "Ne garde pas ma carte bancaire pour la prochaine fois.";
        assert!(flag(text, "save_card", false));
        assert!(!flag(text, "save_card", true));
        // Italian "ma" still ends the clause: the negation is of the first part only.
        let text = "Non salvare la ricevuta, ma salva la carta.";
        assert!(flag(text, "save_card", true));
    }

    #[test]
    fn portuguese_no_is_in_the_not_a_negation() {
        assert!(flag(
            "Procura hotéis com piscina no Algarve.",
            "has_pool",
            true
        ));
        assert!(!flag(
            "Procura hotéis com piscina no Algarve.",
            "has_pool",
            false
        ));
        assert!(flag(
            "Procura hotéis sem piscina no Algarve.",
            "has_pool",
            false
        ));
        assert!(flag(
            "Procura hotéis que não têm piscina.",
            "has_pool",
            false
        ));
        // Spanish "no" still negates.
        assert!(flag(
            "Busca hoteles, la piscina no me importa.",
            "has_pool",
            false
        ));
        assert!(!flag(
            "Busca hoteles, la piscina no me importa.",
            "has_pool",
            true
        ));
    }

    #[test]
    fn a_german_compound_names_its_parts() {
        let text = "Bestell mir ein Taxi, einen Kindersitz brauche ich nicht.";
        assert!(flag(text, "child_seat", false));
        assert!(!flag(text, "child_seat", true));
        assert!(flag(
            "Route nach München, aber bitte ohne Autobahn.",
            "avoid_highways",
            true
        ));
        // Only where German is written: a line of English is not split.
        let day = jiff::civil::date(2026, 11, 25);
        assert!(Evidence::new("Ich brauche einen Kindersitz.", day).has_word("sitz"));
        assert!(!Evidence::new("I need the kindersitz.", day).has_word("sitz"));
        // A part that is no word of the lexicon names nothing.
        assert!(!flag(
            "Bestell mir ein Taxi mit Gepäckträger.",
            "child_seat",
            true
        ));
    }

    #[test]
    fn a_short_plural_and_an_allowed_thing_name_their_subject() {
        let pets = "Reserva el Airbnb, y que acepte mascotas porque vamos con la perra";
        assert!(flag(pets, "pets_allowed", true));
        assert!(!flag(pets, "pets_allowed", false));
        assert!(!flag(
            "Reserva el Airbnb para dos noches",
            "pets_allowed",
            true
        ));
        assert!(!flag("Reserva uno sin mascotas", "pets_allowed", true));
        let seat = "Buch den ICE nach Hamburg, mit Sitzplatzreservierung bitte";
        assert!(flag(seat, "seat_reservation", true));
        assert!(!flag("Buch den ICE nach Hamburg", "seat_reservation", true));
        // "include" beside its object names nothing ("compra" is no "compris").
        assert!(!flag(
            "Compra el vuelo más barato a Madrid",
            "include_checked_bag",
            true
        ));
        assert!(flag(
            "Compra el vuelo a Madrid con maleta facturada",
            "include_checked_bag",
            true
        ));
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
    fn names_that_turn_their_subject_around() {
        assert!(flag("keep me off toll roads please", "avoid_tolls", true));
        assert!(flag("with toll roads avoided", "avoid_tolls", true));
        assert!(!flag(
            "take the toll road, it is faster",
            "avoid_tolls",
            true
        ));
        assert!(flag("un ristorante senza glutine", "gluten_free", true));
        assert!(!flag("un ristorante senza glutine", "gluten_free", false));
        assert!(!flag("a gluten cake", "gluten_free", true));
    }

    #[test]
    fn a_negation_after_its_subject_within_the_clause() {
        assert!(flag(
            "le petit-déjeuner n'est pas nécessaire",
            "breakfast_included",
            false
        ));
        assert!(!flag(
            "le petit-déjeuner n'est pas nécessaire",
            "breakfast_included",
            true
        ));
        // A mark or a joining word ends the clause the negation reaches over.
        assert!(flag("notifications on, no sound", "notifications", true));
        assert!(flag(
            "turn notifications on but not the sound",
            "notifications",
            true
        ));
        assert!(flag(
            "Desliga as notificações de promoções",
            "promotional_notifications",
            false
        ));
    }

    #[test]
    fn a_state_said_after_its_subject() {
        // Past what the subject is of.
        let bank = "Pode deixar as notificações do app do banco desligadas";
        assert!(flag(bank, "notifications_enabled", false));
        assert!(!flag(bank, "notifications_enabled", true));
        assert!(flag(
            "deja las notificaciones de la app activadas",
            "notifications_enabled",
            true
        ));
        assert!(!flag(
            "manda las notificaciones de la app del banco ahora",
            "notifications_enabled",
            false
        ));
        // The phrase's own state says nothing of the subject.
        assert!(flag(
            "Ative as notificações de câmera desligada",
            "notifications_enabled",
            true
        ));
        assert!(!flag(
            "Ative as notificações de câmera desligada",
            "notifications_enabled",
            false
        ));
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

    #[test]
    fn a_flag_named_by_its_negation_and_in_other_words() {
        assert!(flag(
            "Iscrivimi al corso di yoga, niente newsletter grazie",
            "newsletter",
            false
        ));
        assert!(!flag(
            "Iscrivimi al corso di yoga, niente newsletter grazie",
            "newsletter",
            true
        ));
        assert!(flag("Activa el modo no molestar", "do_not_disturb", true));
        assert!(!flag("Activa el modo no molestar", "do_not_disturb", false));
        assert!(flag("turn on do not disturb", "do_not_disturb", true));
        assert!(flag(
            "Manda el correo sin confirmación de lectura",
            "read_receipt",
            false
        ));
        assert!(!flag(
            "Manda el correo sin confirmación de lectura",
            "read_receipt",
            true
        ));
        assert!(flag("Liga o modo avião", "airplane_mode", true));
        assert!(!flag("Desliga o modo avião", "airplane_mode", true));
        assert!(flag("e pode repetir todo mês", "recurring", true));
    }

    #[test]
    fn a_negation_of_forgetting_asks_for_the_thing() {
        assert!(flag(
            "no dejes de avisarme cuando llegue el paquete",
            "notify",
            true
        ));
        assert!(!flag(
            "no dejes de avisarme cuando llegue el paquete",
            "notify",
            false
        ));
        assert!(flag(
            "vergiss nicht, die Push-Benachrichtigungen auszuschalten",
            "push_enabled",
            false
        ));
        // A plain negation still negates.
        assert!(flag("no notifications please", "notify", false));
        // Two letters are a subject: "cc" of `cc_self`.
        assert!(flag(
            "send the invoice to Mark and cc me on it",
            "cc_self",
            true
        ));
        assert!(flag("email it to Maria but don't cc me", "cc_self", false));
        // English contractions negate as their long forms do.
        let bucket = "make sure it isn't publicly accessible";
        assert!(flag(bucket, "public_access", false));
        assert!(!flag(bucket, "public_access", true));
        assert!(flag("it shouldn't be public", "public", false));
        // `enabled` said by switching the thing, in any of the six.
        assert!(flag("turn off the motion sensor", "enabled", false));
        assert!(!flag("turn off the motion sensor", "enabled", true));
        assert!(flag("active le mode ne pas déranger", "enabled", true));
        assert!(!flag("send the invoice", "enabled", true));
        assert!(flag(
            "mach die Kindersicherung am Herd an",
            "child_lock",
            true
        ));
        assert!(!flag("email it to Maria", "cc_self", true));
    }
}
