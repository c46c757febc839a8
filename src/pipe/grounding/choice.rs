//! Rule `choice`: an enum member the request chose in other words. A member written as it is
//! is rule `verbatim`'s; this rule traces a member said as a frequency ("every day", "cada
//! semana", "täglich" for `daily`, `weekly`), and a member chosen for a subject the request
//! speaks of in words no member spells ("the strongest wind" for `windStrength: HIGH`, "it's
//! urgent" for `priority: high`): the schema bounds the choice, the user asked for one. A
//! request that names another member has chosen that one, and a subject spoken of only in
//! the tool's own words (its field names, its description) chose nothing.

use serde_json::Value;

use super::evidence::Evidence;
use super::lexicon;
use super::taken_back::CORRECTING;
use super::tokens::{stem, words_of, Kind, Token};
use super::words::{is, EVERY, STOPWORDS};

/// Frequency members, the adverbs that say them in the six languages, and their period in
/// days.
#[rustfmt::skip]
const FREQUENCIES: &[(&[&str], &[&str], f64)] = &[
    (&["daily", "day", "everyday"], &["daily", "diario", "diaria", "diariamente", "quotidien",
        "quotidienne", "quotidiennement", "taglich", "giornaliero", "giornaliera", "quotidiano",
        "quotidianamente"], 1.0),
    (&["weekly", "week"], &["weekly", "semanal", "semanalmente", "hebdomadaire", "wochentlich",
        "settimanale", "settimanalmente"], 7.0),
    (&["biweekly", "fortnightly", "every_two_weeks", "every_other_week"], &["biweekly",
        "fortnightly", "quincenal", "quincenalmente", "quinzenal", "quinzenalmente",
        "vierzehntagig", "vierzehntaglich", "quindicinale"], 14.0),
    (&["monthly", "month"], &["monthly", "mensual", "mensualmente", "mensuel", "mensuelle",
        "monatlich", "mensal", "mensile", "mensilmente"], 30.0),
    (&["quarterly", "quarter"], &["quarterly", "trimestral", "trimestralmente", "trimestriel",
        "trimestrielle", "vierteljahrlich", "quartalsweise", "trimestrale"], 91.0),
    (&["yearly", "annually", "annual", "year"], &["yearly", "annually", "annual", "anual",
        "anualmente", "annuel", "annuelle", "jahrlich", "annuale", "annualmente"], 365.0),
    (&["hourly", "hour"], &["hourly", "stundlich", "orario"], 1.0 / 24.0),
];

/// Units a frequency is said in ("every 2 weeks", "tous les quinze jours"), in days.
#[rustfmt::skip]
const PERIODS: &[(&[&str], f64)] = &[
    (&["hour", "hours", "hora", "horas", "heure", "heures", "stunde", "stunden", "ora", "ore"],
        1.0 / 24.0),
    (&["day", "days", "dia", "dias", "jour", "jours", "tag", "tage", "giorno", "giorni"], 1.0),
    (&["week", "weeks", "semana", "semanas", "semaine", "semaines", "woche", "wochen",
        "settimana", "settimane"], 7.0),
    (&["month", "months", "mes", "meses", "mois", "monat", "monate", "mese", "mesi"], 30.0),
    (&["year", "years", "ano", "anos", "an", "ans", "annee", "jahr", "jahre", "anno", "anni"],
        365.0),
];

/// Articles between "every" and its period: "tous les jours", "todos los días".
const ARTICLES: &[&str] = &[
    "the", "les", "los", "las", "os", "as", "die", "den", "der", "gli", "le", "i",
];

/// Words between "every" and its period that only stress it: "every single day", "todos
/// los santos días".
const STRESSING: &[&str] = &["single", "santo", "santos", "santa", "santas"];

/// Words for "other" in "every other week": two.
const OTHER: &[&str] = &[
    "other", "otra", "otro", "autre", "altra", "altro", "outra", "outro",
];

/// Words of a field's name that say nothing of its subject on their own: "type" in a request
/// is no word about `meal_type`.
const GENERIC: &[&str] = &[
    "type", "mode", "kind", "value", "option", "setting", "status", "flag", "enabled", "name",
    "level", "category", "format",
];

/// Words of urgency, for a field about priority, urgency, severity or importance.
const URGENCY_FIELDS: &[&str] = &["priority", "urgency", "severity", "importance"];
const URGENCY: &[&str] = &[
    "urgent",
    "urgently",
    "asap",
    "critical",
    "important",
    "minor",
    "trivial",
    "blocker",
    "whenever",
    "urgente",
    "urgencia",
    "critico",
    "critica",
    "importante",
    "urgence",
    "critique",
    "dringend",
    "eilig",
    "wichtig",
    "kritisch",
    "urgenza",
];

pub fn said(
    member: &str,
    members: &[Value],
    key: &str,
    _schema: &Value,
    evidence: &Evidence,
) -> bool {
    // A frequency is said as one ("weekly" is no stem of "every other week").
    let is_frequency = FREQUENCIES
        .iter()
        .any(|(names, _, _)| names.contains(&member.to_lowercase().as_str()));
    if let Some(first) = end_said_first(member, evidence) {
        return first;
    }
    // "none" of a field said by its subject turned down: "sin leche" for `milk: none`.
    if is(NONE, &member.to_lowercase())
        && words_of(key)
            .iter()
            .any(|w| w.chars().count() >= 3 && negated(w, evidence))
    {
        return true;
    }
    // A thing's state ("on"/"off", "enabled"/"disabled"), said by switching the thing:
    // "desliga a luz", "accendi la luce".
    if let Some(way) = super::flags::state_member(member) {
        if super::flags::switched(evidence) == Some(way) {
            return true;
        }
    }
    if let Some(end) = tier_end(member, members, evidence) {
        return end;
    }
    // A priority said by what the user says of the need: "pas pressé" is low, "urgentísimo"
    // urgent.
    if urgency_meant(member, members, key, evidence) {
        return true;
    }
    // "once a month" names no one-time member: it is a count per period.
    if is(ONE_TIME, &member.to_lowercase())
        && FREQUENCIES
            .iter()
            .any(|(names, _, _)| frequency(names[0], evidence))
    {
        return false;
    }
    if frequency(member, evidence)
        || once(member, members, evidence)
        || (!is_frequency
            && (named(member, evidence)
                || told_apart(member, members, evidence)
                || weekday(member, evidence)))
        || sort_order(member, evidence)
    {
        return true;
    }
    let another_named = members
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| !m.eq_ignore_ascii_case(member))
        .any(|m| {
            evidence.written(m)
                || named(m, evidence)
                || told_apart(m, members, evidence)
                || frequency(m, evidence)
                || once(m, members, evidence)
                || sort_order(m, evidence)
        });
    // A day is chosen by naming it: "every week" speaks of `day_of_week` and chose no day.
    !another_named
        && weekday_of(member).is_none()
        && ((!shares_said_word(member, members, evidence) && subject_spoken(key, evidence))
            || moved(member, members, evidence))
}

/// Verbs that raise a thing, and that lower it, in the six languages (folded): "sube las
/// persianas", "monte le store", "alza le tapparelle".
const RAISING: &[&str] = &[
    "raise",
    "sube",
    "subir",
    "subid",
    "monte",
    "monter",
    "remonte",
    "sobe",
    "levanta",
    "alza",
    "alzare",
    "hochfahren",
    "hochziehen",
];
const LOWERING: &[&str] = &[
    "lower",
    "baja",
    "bajar",
    "bajad",
    "baisse",
    "baisser",
    "descends",
    "baixa",
    "baixar",
    "abaixa",
    "abbassa",
    "abbassare",
    "runterlassen",
    "herunterlassen",
];
/// German particles that close the clause of a verb that raises or lowers: "fahr die
/// Rollläden hoch", "mach die Rollläden runter".
const UP_PARTICLES: &[&str] = &["hoch", "rauf"];
const DOWN_PARTICLES: &[&str] = &["runter", "herunter"];

/// Things that cover a window or a door (folded).
const COVERS: &[&str] = &[
    "blind",
    "blinds",
    "shutter",
    "shutters",
    "shade",
    "shades",
    "awning",
    "persiana",
    "persianas",
    "toldo",
    "estor",
    "estores",
    "store",
    "stores",
    "volet",
    "volets",
    "rollladen",
    "rolllade",
    "rollo",
    "rollos",
    "jalousie",
    "jalousien",
    "markise",
    "estore",
    "tapparella",
    "tapparelle",
    "serranda",
    "tenda",
    "tende",
    "garage",
];

/// Which way the conversation moves a cover: a verb with the cover within three words after
/// it ("sube las persianas", "lower the blinds"), or a German particle closing a clause that
/// names the cover ("mach die Rollläden runter,"). Never an adjective ("the lower floor", "la
/// planta baja", "wie hoch ist die Markise?").
fn cover_moved(evidence: &Evidence) -> Option<bool> {
    let tokens = &evidence.tokens;
    let cover = |t: &super::tokens::Token| is(COVERS, &t.folded);
    let (mut up, mut down) = (false, false);
    for (i, token) in tokens.iter().enumerate() {
        let word = token.folded.as_str();
        if (is(RAISING, word) || is(LOWERING, word)) && tokens[i + 1..].iter().take(3).any(cover) {
            up |= is(RAISING, word);
            down |= is(LOWERING, word);
        }
        let particle = is(UP_PARTICLES, word) || is(DOWN_PARTICLES, word);
        let closes = tokens
            .get(i + 1)
            .is_none_or(|t| t.kind == Kind::Punct && t.lower != "?");
        let mut clause = tokens[..i]
            .iter()
            .rev()
            .take_while(|t| t.kind != Kind::Punct)
            .take(6);
        if particle && closes && clause.any(cover) {
            up |= is(UP_PARTICLES, word);
            down |= is(DOWN_PARTICLES, word);
        }
    }
    match (up, down) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// A cover's member (`open`/`up`, `close`/`closed`/`down`) said by raising or lowering the
/// cover ([`cover_moved`]), where the members hold both ways: "sube las persianas" is `open`,
/// "mach die Rollläden runter" `close`.
fn moved(member: &str, members: &[Value], evidence: &Evidence) -> bool {
    let way = |m: &str| match m.to_lowercase().as_str() {
        "open" | "up" | "raise" | "opened" => Some(true),
        "close" | "closed" | "down" | "lower" | "shut" => Some(false),
        _ => None,
    };
    let Some(wanted) = way(member) else {
        return false;
    };
    let ways: Vec<bool> = members
        .iter()
        .filter_map(Value::as_str)
        .filter_map(way)
        .collect();
    ways.contains(&true) && ways.contains(&false) && cover_moved(evidence) == Some(wanted)
}

/// Words of a member that turn its thing down: `no_preference`, `non_smoking`.
const TURNING: &[&str] = &["no", "not", "non", "without", "none"];

/// Members that say the field's thing is left out: "none" of `milk`.
const NONE: &[&str] = &["none", "no", "without", "nothing", "zero", "off"];

/// A word `member` shares with another member is said ("price" of "sort by price" for
/// `price_asc` and `price_desc`): the subject spoken does not choose between them, only the
/// word that tells them apart would.
fn shares_said_word(member: &str, members: &[Value], evidence: &Evidence) -> bool {
    let own = words_of(member);
    members
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| !m.eq_ignore_ascii_case(member))
        .flat_map(words_of)
        .any(|w| own.contains(&w) && w.chars().count() >= 3 && said_word(&w, evidence))
}

/// Every word of `member` is a word of the text, by stem, in any order, or one of the
/// six languages' words for it ([`lexicon`]): "POSTing" for `POST`, "search the web" for
/// `web_search`, "aufsteigend" for `asc`, "junto a la ventana" for `window`. A member that is
/// something "free" is said by that something negated: "sin gluten" for `gluten_free`.
fn named(member: &str, evidence: &Evidence) -> bool {
    let words = words_of(member);
    if let [thing, free] = words.as_slice() {
        if free == "free" && said_word(thing, evidence) && negated(thing, evidence) {
            return true;
        }
    }
    // Its words that carry meaning ("on" of `cash_on_delivery` carries none): every one said.
    let meaning: Vec<&String> = words
        .iter()
        .filter(|w| w.chars().count() >= 3 && !is(STOPWORDS, w))
        .collect();
    // A member that turns its thing down (`no_preference`) is said only turned down too: "my
    // preference is the aisle" names no `no_preference`.
    let turns_down = words.iter().any(|w| is(TURNING, w));
    if turns_down && !meaning.iter().any(|w| negated(w, evidence)) {
        return false;
    }
    // None said only to be turned down ("sem banho" names no `banho_e_tosa`).
    !meaning.is_empty()
        && meaning
            .iter()
            .all(|w| said_word(w, evidence) || agent_said(w, evidence) || said_longer(w, evidence))
        && (meaning.len() < 2 || !meaning.iter().any(|w| turned_down(w, evidence)))
}

/// Words that name the kind of thing a member is, not which one: "point" of `pickup_point`.
const HEADS: &[&str] = &[
    "point", "place", "location", "station", "option", "type", "mode", "level", "plan", "class",
    "service", "method", "spot",
];

/// A member of several words said by the words that tell it from the others, where its other
/// words are shared with another member or only name its kind: "warm" for `warm_white` among
/// `neutral_white` and `cool_white`, "punto di ritiro" for `pickup_point`, "premium" for
/// `premium_economy` beside `economy`. Not `cash_on_delivery` for "delivery": "cash", which
/// tells it apart too, is not said.
fn told_apart(member: &str, members: &[Value], evidence: &Evidence) -> bool {
    let meaningful = |m: &str| -> Vec<String> {
        words_of(m)
            .into_iter()
            .filter(|w| w.chars().count() >= 3 && !is(STOPWORDS, w))
            .collect()
    };
    let own = meaningful(member);
    if own.len() < 2 || own.iter().any(|w| is(TURNING, w)) {
        return false;
    }
    let others: Vec<String> = members
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| !m.eq_ignore_ascii_case(member))
        .flat_map(meaningful)
        .collect();
    // Words that order or count tell nothing apart in a sentence ("First, find me a flight"
    // is no `first_class`, "by next week" no `next_day`).
    const ORDERING: &[&str] = &[
        "first", "second", "third", "next", "last", "same", "new", "old", "other", "one", "two",
        "three", "any", "all", "this", "that", "day", "week", "month",
    ];
    let telling: Vec<&String> = own
        .iter()
        .filter(|w| !others.contains(w) && !is(HEADS, w))
        .collect();
    if telling.iter().any(|w| is(ORDERING, w)) {
        return false;
    }
    !telling.is_empty()
        && telling.len() < own.len()
        && telling
            .iter()
            .all(|w| said_word(w, evidence) && !turned_down(w, evidence))
}

/// A member's word of six letters or more said as the start of a word at most three letters
/// longer: "PostgreSQL" for `postgres`, "Kubernetes" for no `kube` (too short).
fn said_longer(word: &str, evidence: &Evidence) -> bool {
    let length = word.chars().count();
    length >= 6
        && evidence.tokens.iter().any(|t| {
            t.kind == Kind::Word
                && t.folded.starts_with(word)
                && (length + 1..=length + 3).contains(&t.folded.chars().count())
        })
}

/// Whether a word is said, and only where a refusal or "without" stands right before it.
fn turned_down(word: &str, evidence: &Evidence) -> bool {
    let places = said_at(word, evidence);
    let without = |at: usize| {
        at > 0
            && evidence
                .tokens
                .get(at - 1)
                .is_some_and(|t| is(WITHOUT, &t.folded))
    };
    !places.is_empty()
        && places
            .iter()
            .all(|at| negated_before(*at, evidence) || without(*at))
}

/// The English `word`, its abbreviation's word, or a word for it in another of the six.
pub(super) fn said_word(word: &str, evidence: &Evidence) -> bool {
    evidence.has_word(word)
        || evidence.has_word(lexicon::full(word))
        || lexicon::translations(lexicon::full(word))
            .iter()
            .any(|t| evidence.has_word(t))
        || other_gender_said(word, evidence)
}

/// A member in a Romance language said in another gender or number: "sessão dublada" for
/// `dublado`, "les plats épicés" for `epice`. Only a long word: its base has four letters
/// or more.
fn other_gender_said(word: &str, evidence: &Evidence) -> bool {
    fn base(word: &str) -> Option<&str> {
        let base = ["os", "as", "es", "o", "a", "e", "s"]
            .iter()
            .find_map(|ending| word.strip_suffix(ending))
            .unwrap_or(word);
        (base.chars().count() >= 4).then_some(base)
    }
    let folded = super::tokens::fold(word);
    let Some(wanted) = base(&folded) else {
        return false;
    };
    evidence
        .tokens
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .any(|t| base(&t.folded) == Some(wanted))
}

/// `word` (or a word for it) stands right after a negation: "sin gluten", "ohne Zucker".
fn negated(word: &str, evidence: &Evidence) -> bool {
    let mut forms: Vec<String> = vec![stem(word)];
    forms.extend(lexicon::translations(word).iter().map(|t| stem(t)));
    let words = evidence.folded_words();
    words.iter().enumerate().any(|(i, w)| {
        forms.contains(&stem(w))
            && words[i.saturating_sub(2)..i]
                .iter()
                .any(|n| evidence.negates(n))
    })
}

/// A one-word member the request names only to turn it down: each time it is said, a
/// negation stands up to three words before it in the same clause ("not the express one",
/// "no la doble", "Nicht die Expresszustellung", "non la pizza grande"), or a correction
/// follows it with another member ("con tarjeta... ay no, mejor en efectivo").
pub(super) fn refused(member: &str, members: &[Value], evidence: &Evidence) -> bool {
    // Most requests hold no word that turns anything down.
    let turning = evidence.tokens.iter().any(|t| {
        is(REFUSALS, &t.folded)
            || is(NONE_OF, &t.folded)
            || is(CORRECTING, &t.folded)
            || is(LEAVING_OUT, &t.folded)
            || is(NEEDING, &t.folded)
            || is(USUALLY, &t.folded)
            || is(WANTING, &t.folded)
    });
    if !turning {
        return false;
    }
    let places = said_at(member, evidence);
    !places.is_empty()
        && places.iter().all(|at| {
            negated_before(*at, evidence)
                || negated_after(*at, evidence)
                || corrected_after(*at, member, members, evidence)
                || usual_set_aside(*at, member, members, evidence)
        })
}

/// A refusal right after the member, ending its clause: "spedizione express no, va bene la
/// normale", "frío no que hace fresquito" (never "el modo frío no funciona", "el turbo no
/// da problemas", nor a tag question: "lo mandas express no?").
fn negated_after(at: usize, evidence: &Evidence) -> bool {
    let tokens = &evidence.tokens;
    let refusal = tokens
        .get(at + 1)
        .is_some_and(|t| matches!(t.folded.as_str(), "no" | "non" | "nao"));
    let ends = tokens
        .get(at + 2)
        .is_none_or(|t| (t.kind == Kind::Punct && t.lower != "?") || is(BECAUSE, &t.folded));
    // The member as the topic of a refusal that takes it up again: "el correo no lo miro
    // nunca", "la doble no la quiero", "l'express non lo voglio".
    let taken_up = tokens.get(at + 2).is_some_and(|t| {
        matches!(
            t.folded.as_str(),
            "lo" | "la" | "los" | "las" | "li" | "le" | "o"
        ) && tokens.get(at + 3).is_some_and(|v| v.kind == Kind::Word)
    }) && !asked_or_supposed(at, evidence);
    refusal && (ends || taken_up)
}

/// Whether the clause of token `at` is a question (it ends with "?", or opens with "¿") or a
/// condition ("si", "se", "if" opens it): "¿El exprés no lo hacen los sábados?", "si el exprés
/// no lo cobran aparte", "Who wouldn't want express shipping?".
fn asked_or_supposed(at: usize, evidence: &Evidence) -> bool {
    let tokens = &evidence.tokens;
    let mark = |t: &&super::tokens::Token| {
        t.kind == Kind::Punct && !matches!(t.lower.as_str(), "'" | "’" | "-")
    };
    let ends_asking = tokens[at..]
        .iter()
        .find(mark)
        .is_some_and(|t| t.lower == "?");
    let opened_asking = tokens[..at]
        .iter()
        .rev()
        .find(mark)
        .is_some_and(|t| t.lower == "¿");
    let opening = tokens[..at]
        .iter()
        .rev()
        .take_while(|t| !mark(t))
        .filter(|t| t.kind == Kind::Word)
        .last()
        .map(|t| t.folded.as_str());
    ends_asking || opened_asking || matches!(opening, Some("si" | "se" | "if"))
}

/// Words that give a refusal's reason right after it: "frío no que hace fresquito".
const BECAUSE: &[&str] = &[
    "que", "porque", "che", "perche", "because", "weil", "parce", "pois",
];

/// Where a one-word member is said by its word, a word for it, or a compound's part.
fn said_at(member: &str, evidence: &Evidence) -> Vec<usize> {
    let words = words_of(member);
    let [word] = words.as_slice() else {
        return Vec::new();
    };
    if word.chars().count() < 3 {
        return Vec::new();
    }
    let full = lexicon::full(word);
    let mut forms: Vec<String> = vec![stem(word), stem(full)];
    forms.extend(lexicon::translations(full).iter().map(|t| stem(t)));
    // Most members are not said at all: the text's words (and compounds' parts) tell at once.
    if !forms.iter().any(|f| evidence.has_word(f)) {
        return Vec::new();
    }
    evidence
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::Word)
        .filter(|(_, t)| {
            evidence.word_and_parts(&t.folded).iter().any(|part| {
                // A word and its stem share their first letters: only a word that begins
                // like a form is stemmed.
                forms.iter().any(|f| part.get(..3) == f.get(..3)) && forms.contains(&stem(part))
            })
        })
        .map(|(at, _)| at)
        .collect()
}

/// Words that turn a choice down; no "off", which says a state ("off sick"), nor "without",
/// which a member may mean ("sin nada de leche" is `none`).
const REFUSALS: &[&str] = &[
    "not", "no", "dont", "never", "nicht", "kein", "keine", "keinen", "pas", "non", "nao", "nunca",
    "jamais", "nie", "mai", "nem",
];

/// Words that leave a member out ("skip the bedroom", "sauf la cuisine"), unless a negation
/// stands before them in their clause ("don't skip the kitchen").
const LEAVING_OUT: &[&str] = &[
    "skip", "except", "excepto", "sauf", "ausser", "tranne", "exceto",
];

/// Words for none, which turn down the member right after them or after "de"/"di" ("nada de
/// azúcar", "niente zucchero", "aucun supplément", "nenhuma cebola"), never one after
/// "but" ("rien que du caramel", "nada más que azúcar").
const NONE_OF: &[&str] = &[
    "nada", "ninguno", "ninguna", "ningun", "niente", "nessun", "nessuno", "nessuna", "aucun",
    "aucune", "rien", "nenhum", "nenhuma",
];

/// "without" in the six: it turns down a part of a member of several words ("sem banho").
const WITHOUT: &[&str] = &["without", "sin", "sans", "ohne", "sem", "senza"];

/// A refusal among the three words before token `at`, with no mark between. "no" right
/// before the member is Portuguese "in the" as often ("paga no pix"): it refuses with a word
/// between ("no la doble").
fn negated_before(at: usize, evidence: &Evidence) -> bool {
    let tokens = &evidence.tokens;
    let none_of = |w: usize| {
        is(NONE_OF, &tokens[w].folded)
            && (w + 1 == at
                || (w + 2 == at && matches!(tokens[w + 1].folded.as_str(), "de" | "di" | "d")))
    };
    if (at.saturating_sub(2)..at).any(none_of) {
        return true;
    }
    evidence.tokens[..at]
        .iter()
        .rev()
        .take_while(|t| t.kind != Kind::Punct)
        .filter(|t| t.kind == Kind::Word)
        .take(3)
        .enumerate()
        .any(|(i, t)| {
            is(REFUSALS, &t.folded)
                && (t.folded != "no"
                    || i > 0 && evidence.negates(&t.folded) && article_after_no(at, i, evidence))
        })
        || left_out_before(at, evidence)
        || not_needed_before(at, evidence)
        || not_wanted_before(at, evidence)
}

/// Words only Portuguese of the six writes (folded): where one is, or "ã" or "õ", "no" may be
/// "in the".
#[rustfmt::skip]
const PORTUGUESE: &[&str] = &[
    "o", "os", "das", "dos", "uma", "nao", "voce", "ta", "pra", "pro", "meu", "minha", "isso",
    "aqui", "tambem", "obrigado", "obrigada",
];

/// Whether the word after a "no" that stands `back` words before token `at` (in its clause)
/// is an article or a determiner, as in a refusal ("no la doble", "no el exprés", "no the
/// express one"), not a noun, as after Portuguese "no" (in the: "no modo aquecimento").
fn article_after_no(at: usize, back: usize, evidence: &Evidence) -> bool {
    // Only where Portuguese is written: "a large pizza, no extra cheese" refuses.
    let portuguese = evidence.languages.main == Some("pt")
        || evidence.text.contains(['ã', 'õ', 'Ã', 'Õ'])
        || evidence
            .tokens
            .iter()
            .any(|t| t.kind == Kind::Word && PORTUGUESE.contains(&t.folded.as_str()));
    if !portuguese {
        return true;
    }
    let words = words_back(at, back + 1, evidence);
    // Nearest first: the word after the "no" is the one before it in this list.
    words.get(back.wrapping_sub(1)).is_some_and(|w| {
        matches!(
            *w,
            "la" | "el"
                | "los"
                | "las"
                | "lo"
                | "le"
                | "les"
                | "il"
                | "un"
                | "una"
                | "uno"
                | "the"
                | "a"
                | "an"
                | "ese"
                | "esa"
                | "este"
                | "esta"
                | "that"
                | "this"
                | "mas"
                | "more"
        )
    })
}

/// Verbs of wanting a thing, in the six (folded).
const WANTING: &[&str] = &[
    "want", "wanna", "like", "quiero", "quiere", "queremos", "veux", "veut", "voulons", "voglio",
    "vuole", "vogliamo", "quero", "quer", "will", "mochte", "mochten", "wollen",
];

/// Up to `count` words (folded) before token `at` in its clause, nearest first: an elided
/// article's apostrophe is no mark ("pas besoin de l'express").
fn words_back(at: usize, count: usize, evidence: &Evidence) -> Vec<&str> {
    evidence.tokens[..at]
        .iter()
        .rev()
        .take_while(|t| t.kind != Kind::Punct || t.lower == "'" || t.lower == "’")
        .filter(|t| t.kind == Kind::Word)
        .take(count)
        .map(|t| t.folded.as_str())
        .collect()
}

/// A verb of [`WANTING`] among the three words before token `at` in its clause (an elided
/// article's apostrophe is no mark: "je ne veux pas l'express"), with a refusal right before
/// it or one word further ("No quiero el envío exprés", "I don't want express", "I really
/// don't want the express"); never "I want express, not standard" (no refusal before the
/// verb) nor "no, I want express" (a refusal the mark parts from it).
fn not_wanted_before(at: usize, evidence: &Evidence) -> bool {
    let words = words_back(at, 6, evidence);
    let refusal = |w: &&str| is(REFUSALS, w) || evidence.negates(w) || *w == "t";
    if asked_or_supposed(at, evidence) {
        return false;
    }
    words.iter().take(3).enumerate().any(|(i, w)| {
        is(WANTING, w)
            && (words.iter().skip(i + 1).take(2).any(refusal)
                // French "ne veux pas l'express".
                || words[..i].contains(&"pas"))
    })
}

/// Words of needing a thing: "no need for", "pas besoin de", "no hace falta", "não precisa
/// de", "non serve", "I don't need".
const NEEDING: &[&str] = &[
    "need", "needed", "besoin", "falta", "necesito", "necesita", "precisa", "preciso", "serve",
    "bisogno", "brauche", "brauchen", "notig",
];

/// A word of [`NEEDING`] among the four words before token `at` (an elided article's
/// apostrophe between is no mark: "pas besoin de l'express"), a negation right before it
/// ("no hace falta el express" past its "hace"; never "no I need the express").
fn not_needed_before(at: usize, evidence: &Evidence) -> bool {
    let words = words_back(at, 5, evidence);
    words.iter().take(4).enumerate().any(|(i, w)| {
        is(NEEDING, w) && {
            // The negation right before it, past "hace" of "no hace falta".
            let at = if *w == "falta" && words.get(i + 1) == Some(&"hace") {
                i + 2
            } else {
                i + 1
            };
            words
                .get(at)
                .is_some_and(|b| is(REFUSALS, b) || evidence.negates(b) || *b == "t")
        }
    })
}

/// A word of [`LEAVING_OUT`] among the three words before token `at`, with no mark between
/// and no negation before it in the clause.
fn left_out_before(at: usize, evidence: &Evidence) -> bool {
    let words: Vec<&str> = evidence.tokens[..at]
        .iter()
        .rev()
        .take_while(|t| t.kind != Kind::Punct || t.lower == "'" || t.lower == "’")
        .filter(|t| t.kind == Kind::Word)
        .take(8)
        .map(|t| t.folded.as_str())
        .collect();
    words.iter().take(3).enumerate().any(|(i, w)| {
        // Not after a negation in its clause ("I don't want you to skip the kitchen"), nor
        // "skip to the kitchen" (go there), nor "nothing except the vegan menu" (only it).
        let before = words.get(i + 1..).unwrap_or_default();
        let negated = before.iter().any(|b| evidence.negates(b) || *b == "t");
        let moving = i >= 1 && words.get(i - 1).is_some_and(|next| *next == "to");
        let nothing = before
            .first()
            .is_some_and(|b| matches!(*b, "nothing" | "nada" | "rien" | "nichts" | "niente"));
        is(LEAVING_OUT, w) && !negated && !moving && !nothing
    })
}

/// Words of what one usually does (folded).
#[rustfmt::skip]
const USUALLY: &[&str] = &[
    "usually", "normally", "always", "generally", "normalmente", "generalmente", "siempre",
    "habitude", "normalement", "toujours", "generalement", "normalerweise", "meistens", "immer",
    "sonst", "geralmente", "sempre", "solito", "solitamente",
];

/// Words of "but" (folded).
const BUT: &[&str] = &["but", "pero", "mais", "aber", "mas", "ma"];

/// The member at token `at` said as what one usually takes, with another member after a
/// "but": "I usually go aisle but this time give me one by the window", "normalmente pido
/// la grande, pero hoy la mediana".
fn usual_set_aside(at: usize, member: &str, members: &[Value], evidence: &Evidence) -> bool {
    let tokens = &evidence.tokens;
    let usual = tokens[..at]
        .iter()
        .rev()
        .take_while(|t| t.kind != Kind::Punct || t.lower == "'")
        .filter(|t| t.kind == Kind::Word)
        .take(4)
        .any(|t| is(USUALLY, &t.folded));
    if !usual {
        return false;
    }
    let after: Vec<(usize, &str)> = tokens[at + 1..]
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::Word)
        .map(|(i, t)| (at + 1 + i, t.folded.as_str()))
        .take(16)
        .collect();
    let Some(but) = after
        .iter()
        .take(6)
        .position(|(_, w)| is(BUT, w) && evidence.joins(w))
    else {
        return false;
    };
    let window: Vec<usize> = after[but + 1..].iter().take(10).map(|(i, _)| *i).collect();
    members
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| !m.eq_ignore_ascii_case(member))
        .any(|other| said_at(other, evidence).iter().any(|p| window.contains(p)))
}

/// A correction after token `at`, followed within four words by another member.
fn corrected_after(at: usize, member: &str, members: &[Value], evidence: &Evidence) -> bool {
    let words: Vec<(usize, &str)> = evidence.tokens[at + 1..]
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::Word)
        .map(|(i, t)| (at + 1 + i, t.folded.as_str()))
        .collect();
    let Some(mark) = words.iter().position(|(_, w)| is(CORRECTING, w)) else {
        return false;
    };
    let window: Vec<usize> = words[mark + 1..].iter().take(4).map(|(i, _)| *i).collect();
    members
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| !m.eq_ignore_ascii_case(member))
        .any(|other| said_at(other, evidence).iter().any(|p| window.contains(p)))
}

/// A day of the week (`mon`, `Monday`, `MO`) the text names in any of the six languages.
fn weekday(member: &str, evidence: &Evidence) -> bool {
    weekday_of(member).is_some_and(|day| evidence.facts.weekdays.contains(&day))
}

/// The day a member names: the day's English name or a cut of it ("mon", "tues", "thu"),
/// not another word.
fn weekday_of(member: &str) -> Option<jiff::civil::Weekday> {
    use jiff::civil::Weekday::*;
    let member = member.to_lowercase();
    let day = match member.get(..2) {
        Some("mo") => Monday,
        Some("tu") => Tuesday,
        Some("we") => Wednesday,
        Some("th") => Thursday,
        Some("fr") => Friday,
        Some("sa") => Saturday,
        Some("su") => Sunday,
        _ => return None,
    };
    format!("{day:?}")
        .to_lowercase()
        .starts_with(&member)
        .then_some(day)
}

/// `member` is a frequency the text says: an adverb ("täglich", "quincenal"), or a period
/// after a word for "every", with its count ("every day", "every 2 weeks", "every other
/// week", "tous les quinze jours", "alle zwei Wochen"): a count of two weeks is no `weekly`.
fn frequency(member: &str, evidence: &Evidence) -> bool {
    let member = member.to_lowercase();
    if member == "interval" {
        return every_unit(evidence).is_some_and(|(days, count)| days < 1.0 || count > 1.0);
    }
    // "every Monday", "cada lunes", "tous les lundis", "jeden Montag": weekly.
    if matches!(member.as_str(), "weekly" | "week") && every_weekday(evidence) {
        return true;
    }
    let Some((_, adverbs, days)) = FREQUENCIES
        .iter()
        .find(|(names, _, _)| names.contains(&member.as_str()))
    else {
        return false;
    };
    let tokens = words_at(evidence);
    let count_at = |index: usize, word: &str| -> Option<f64> {
        if is(OTHER, word) {
            return Some(2.0);
        }
        evidence
            .facts
            .number_spans
            .iter()
            .find(|s| s.start == index)
            .map(|s| s.value)
    };
    // "pas tous les jours", "not every day", "nicht täglich": the frequency turned down.
    let refused_at = |k: usize| {
        k.checked_sub(1)
            .and_then(|j| tokens.get(j))
            .is_some_and(|(index, before)| {
                *index + 1 == tokens[k].0 && (is(REFUSALS, before) || *before == "pas")
            })
    };
    tokens.iter().enumerate().any(|(k, (_, word))| {
        if is(adverbs, word) {
            return !refused_at(k);
        }
        let Some((_, unit)) = PERIODS.iter().find(|(words, _)| words.contains(word)) else {
            return false;
        };
        // Back from the unit: articles skipped, one count at most, then "every".
        let mut count = None;
        let mut said = None;
        for back in 1..=3 {
            let Some(&(index, before)) = k.checked_sub(back).and_then(|j| tokens.get(j)) else {
                break;
            };
            if is(EVERY, before) {
                if !refused_at(k - back) {
                    said = Some(count.unwrap_or(1.0) * unit);
                }
                break;
            }
            // Articles, and words that only stress it ("every single day").
            if is(ARTICLES, before) || is(STRESSING, before) {
                continue;
            }
            match (count, count_at(index, before)) {
                (None, Some(n)) => count = Some(n),
                _ => break,
            }
        }
        // Portuguese "de quinze em quinze dias": every fifteen days.
        if said.is_none() && k >= 4 && tokens[k - 2].1 == "em" && tokens[k - 4].1 == "de" {
            let first = count_at(tokens[k - 3].0, tokens[k - 3].1);
            if first.is_some() && first == count_at(tokens[k - 1].0, tokens[k - 1].1) {
                said = first.map(|n| n * unit);
            }
        }
        if said.is_none() {
            said = times_per(&tokens, k, &count_at).map(|times| unit / times);
        }
        // Fifteen days are a fortnight as people say it.
        said.is_some_and(|said| (said - days).abs() <= days * 0.1)
    })
}

/// An English agent noun said by its verb with an object after it: "remind me" for
/// `reminder`, "print it" for `printer`. Only where the verb has five letters or more ("time"
/// says no `timer`), and never by an adjective or a noun: "too bright" names no `brighter`,
/// "it contains" no `container`.
fn agent_said(word: &str, evidence: &Evidence) -> bool {
    const OBJECTS: &[&str] = &["me", "us", "him", "her", "them", "it", "you"];
    let Some(verb) = word
        .strip_suffix("er")
        .filter(|verb| verb.chars().count() >= 5)
    else {
        return false;
    };
    let words = evidence.folded_words();
    words.iter().enumerate().any(|(k, w)| {
        (w == verb || stem(w) == verb) && words.get(k + 1).is_some_and(|next| is(OBJECTS, next))
    })
}

/// Members for a thing done one time ("single" is also a room, a ticket: not here).
const ONE_TIME: &[&str] = &[
    "once", "one_time", "onetime", "one-time", "one_off", "oneoff", "one-off",
];

/// Words of a habit or a span of days: "weekdays", "wochentags", "the weekend".
const HABITUAL: &[&str] = &[
    "weekday",
    "weekdays",
    "weekend",
    "weekends",
    "workday",
    "workdays",
    "werktags",
    "wochentags",
    "wochenende",
    "wochenenden",
    "feriados",
    "laborables",
    "ouvres",
    "feriali",
];

/// Words between the ends of a span of days: "to", "through", "a", "au", "bis", "al".
const SPAN: &[&str] = &[
    "to", "through", "thru", "till", "until", "a", "au", "bis", "al", "ao", "ate",
];

/// Articles that make a weekday a habit in Spanish, French and Italian: "los lunes", "le
/// lundi", "il lunedì".
const HABIT_ARTICLES: &[&str] = &["los", "las", "le", "il", "la"];

/// `member` is a one-time one of an enum that also has a frequency (`daily`, `weekly`, ...),
/// and the text gives a day other than today (a date, "tomorrow", a weekday: a system prompt
/// that gives today's date says nothing of when) with no word of recurrence: no "every",
/// "each", "cada", no adverb such as "daily" or "täglich", no count of times ("once a month"),
/// no weekday as a habit ("on Mondays", "montags", "los lunes", "le lundi") and no span of
/// days ("Monday to Friday", "weekdays"). "Remind me tomorrow at half past six" is `once`; a
/// time without a day ("at 9") says nothing of how often.
fn once(member: &str, members: &[Value], evidence: &Evidence) -> bool {
    let recurring = |m: &str| {
        m.eq_ignore_ascii_case("interval")
            || FREQUENCIES
                .iter()
                .any(|(names, _, _)| names.contains(&m.to_lowercase().as_str()))
    };
    let facts = &evidence.facts;
    // Today's weekday named ("Today is Wednesday") reads as next week's too: not another day.
    let today = evidence.today;
    let next_week = today.checked_add(jiff::Span::new().days(7)).ok();
    let todays_weekday = facts.weekdays.contains(&today.weekday());
    let another_day = facts
        .dates
        .iter()
        .any(|d| *d != today && !(todays_weekday && Some(*d) == next_week))
        || facts.weekdays.iter().any(|w| *w != today.weekday());
    let words = evidence.folded_words();
    let weekday = |w: &String| super::dates::is_weekday(w);
    let habit = words.iter().enumerate().any(|(k, word)| {
        is(HABITUAL, word)
            || word
                .strip_suffix('s')
                .is_some_and(|one| one.chars().count() >= 5 && super::dates::is_weekday(one))
            || (weekday(word) && k > 0 && is(HABIT_ARTICLES, &words[k - 1]))
            // A span: "Monday to Friday", "de lunes a viernes", "von Montag bis Freitag".
            || (weekday(word)
                && words.get(k + 1).is_some_and(|w| is(SPAN, w))
                && words.get(k + 2).is_some_and(weekday))
    });
    is(ONE_TIME, &member.to_lowercase())
        && members.iter().filter_map(Value::as_str).any(recurring)
        && another_day
        && !habit
        && !words.iter().any(|word| {
            is(EVERY, word)
                || FREQUENCIES.iter().any(|(_, adverbs, _)| is(adverbs, word))
                // "once a month", "twice a week", "zweimal pro Woche": a count of times.
                || is(ONCE, word)
                || is(TIMES, word)
                || is(&["twice", "thrice", "zweimal", "dreimal"], word)
        })
}

/// Units of time below a day an interval is said in ("every 15 minutes", "every 3600
/// seconds"), in days.
#[rustfmt::skip]
const SHORT_PERIODS: &[(&[&str], f64)] = &[
    (&["second", "seconds", "sec", "secs", "segundo", "segundos", "seconde", "secondes",
        "sekunde", "sekunden", "secondo", "secondi"], 1.0 / 86_400.0),
    (&["minute", "minutes", "min", "mins", "minuto", "minutos", "minuten", "minuti"],
        1.0 / 1_440.0),
];

/// The text's words (folded), each with its token index: marks left out, so "every, day"
/// still reads as one phrase while numbers keep their place among the tokens.
fn words_at(evidence: &Evidence) -> Vec<(usize, &str)> {
    evidence
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind != Kind::Punct)
        .map(|(i, t)| (i, t.folded.as_str()))
        .collect()
}

/// The first "every" + count + unit said ("every 3600 seconds", "every hour", "alle 2
/// Tage"): the unit in days and the count (1 where none is said).
fn every_unit(evidence: &Evidence) -> Option<(f64, f64)> {
    let tokens = words_at(evidence);
    tokens.iter().enumerate().find_map(|(k, (_, word))| {
        if !is(EVERY, word) {
            return None;
        }
        let mut next = k + 1;
        while tokens.get(next).is_some_and(|(_, w)| is(ARTICLES, w)) {
            next += 1;
        }
        let (index, _) = *tokens.get(next)?;
        let count = evidence
            .facts
            .number_spans
            .iter()
            .find(|s| s.start == index)
            .map(|s| (s.value, s.end));
        let (count, unit_at) = match count {
            Some((value, end)) => (value, tokens.iter().position(|(i, _)| *i == end)?),
            None => (1.0, next),
        };
        let (_, unit) = *tokens.get(unit_at)?;
        PERIODS
            .iter()
            .chain(SHORT_PERIODS)
            .find(|(words, _)| words.contains(&unit))
            .map(|(_, days)| (*days, count))
    })
}

/// A weekday after a word for "every", articles skipped: "every Monday", "todos los lunes".
fn every_weekday(evidence: &Evidence) -> bool {
    let words = evidence.folded_words();
    words.iter().enumerate().any(|(k, word)| {
        is(EVERY, word) && {
            let mut next = k + 1;
            while words.get(next).is_some_and(|w| is(ARTICLES, w)) {
                next += 1;
            }
            words.get(next).is_some_and(|w| super::dates::is_weekday(w))
        }
    })
}

/// Words between a count of times and its period: "once a month", "une fois par mois",
/// "einmal im Monat", "dos veces por semana", "una volta al mese".
const PER: &[&str] = &[
    "a", "an", "per", "por", "al", "par", "im", "pro", "in", "ao", "na", "no", "alla", "la", "el",
    "le", "der", "die", "den",
];
/// Single words for once: "once", "einmal".
const ONCE: &[&str] = &["once", "einmal"];
/// The word for "time(s)" after a count: "una vez", "trois fois", "zweimal" is one word.
const TIMES: &[&str] = &[
    "times", "vez", "veces", "fois", "mal", "vezes", "volta", "volte",
];

/// How many times per period the words before the period word at `k` say ("once a month"
/// is 1, "twice a week" 2, "tres veces por semana" 3); `None` when they say no count of
/// times.
fn times_per(
    tokens: &[(usize, &str)],
    k: usize,
    count_at: &dyn Fn(usize, &str) -> Option<f64>,
) -> Option<f64> {
    let mut at = k;
    let mut skipped = 0;
    while at > 0 && skipped < 2 && is(PER, tokens[at - 1].1) {
        at -= 1;
        skipped += 1;
    }
    // The words in a row, no mark between them ("once, a month from now" is no frequency).
    if skipped == 0 || at == 0 || tokens[k].0 - tokens[at - 1].0 != k - (at - 1) {
        return None;
    }
    let word = tokens[at - 1].1;
    match word {
        _ if is(ONCE, word) => Some(1.0),
        "twice" | "zweimal" => Some(2.0),
        _ if is(TIMES, word) && at >= 2 => {
            let (index, count) = tokens[at - 2];
            match count {
                "una" | "une" | "uma" | "un" | "um" | "ein" | "eine" => Some(1.0),
                _ => count_at(index, count),
            }
        }
        _ => None,
    }
}

/// The ends of the scales a list is sorted by, in the six languages (folded), with what
/// each scale sorts: the low end ("cheapest", "más barato", "kleinsten", "oldest") and the
/// high end ("most expensive", "teuersten", "newest", "più recente").
#[rustfmt::skip]
const SCALES: &[(&str, &[&str], &[&str])] = &[
    ("price",
        &["cheapest", "cheaper", "cheap", "barato", "barata", "baratos", "baratas", "economico",
          "economica", "economicos", "gunstig", "gunstigste", "gunstigsten", "billig", "billigste",
          "billigsten"],
        &["expensive", "priciest", "pricier", "caro", "cara", "caros", "caras", "cher", "chers",
          "chere", "teuer", "teuerste", "teuersten", "costoso", "costosa"]),
    ("size",
        &["smallest", "smaller", "small", "pequeno", "pequena", "pequenos", "petit", "petits",
          "petite", "klein", "kleinste", "kleinsten", "piccolo", "piccola", "piccoli", "menor"],
        &["largest", "biggest", "bigger", "larger", "big", "large", "grande", "grandes", "grand",
          "grands", "gross", "groß", "grosste", "grossten", "großte", "großten", "maior"]),
    ("date",
        &["oldest", "older", "old", "earliest", "antiguo", "antigua", "antiguos", "antigo",
          "antiga", "ancien", "anciens", "ancienne", "alt", "alteste", "altesten", "vecchio",
          "vecchia", "vecchi"],
        &["newest", "newer", "new", "latest", "recent", "nuevo", "nueva", "nuevos", "reciente",
          "recientes", "recent", "recents", "nouveau", "nouveaux", "neu", "neueste", "neuesten",
          "novo", "nova", "novos", "recente", "recenti", "nuovo", "nuova", "nuovi"]),
    ("rating",
        &["worst", "lowest", "peor", "peores", "pire", "pires", "schlechteste", "schlechtesten",
          "pior", "piores", "peggiore", "peggiori"],
        &["best", "top", "highest", "mejor", "mejores", "mieux", "meilleur", "meilleurs",
          "meilleure", "meilleures", "beste", "besten", "bestbewertet", "bestbewerteten",
          "melhor", "melhores", "migliore", "migliori"]),
];

/// Service tiers, slowest and cheapest first: a delivery's or a plan's speed.
#[rustfmt::skip]
const TIERS: &[&[&str]] = &[
    &["economy", "saver", "budget", "slow", "eco", "economico", "economica", "economique",
        "economisch", "sparversand"],
    &["standard", "regular", "ground", "normal", "estandar", "padrao", "normale", "standardversand"],
    &["express", "expedited", "priority", "fast", "rush", "expreso", "expresso", "expres",
        "rapido", "rapide", "espresso", "prioritario", "prioritaire"],
    &["next_day", "nextday", "overnight", "next_business_day"],
    &["same_day", "sameday"],
];

/// A seat's classes, cheapest first: another family of tiers ("the cheapest seat" is
/// `economy` among `premium_economy`, `business` and `first`).
const CABINS: &[&[&str]] = &[
    &[
        "economy",
        "basic_economy",
        "coach",
        "economica",
        "economico",
        "economique",
        "turista",
    ],
    &["premium_economy", "premium"],
    &["business", "ejecutiva", "affaires", "executiva"],
    &[
        "first",
        "first_class",
        "primera",
        "premiere",
        "primeira",
        "prima",
    ],
];

/// Words that ask for the fastest of a service's tiers (folded): "the fastest way", "lo
/// más rápido", "schnellstmöglich".
#[rustfmt::skip]
const FASTEST: &[&str] = &[
    "fastest", "quickest", "soonest", "asap", "rapidisimo", "rapidissimo", "schnellste",
    "schnellsten", "schnellstmoglich", "velocissimo", "velocissima",
];
/// Words that make "fast" the fastest: "el más rápido", "le plus rapide", "o mais rápido",
/// "il più veloce".
const MOST: &[&str] = &["mas", "plus", "mais", "piu", "most"];
const FAST: &[&str] = &[
    "rapido", "rapida", "rapide", "vite", "veloce", "fast", "quick", "schnell",
];

/// A member that is a service tier (`economy`, `express`, `overnight`), in an enum of two
/// tiers or more, where the text asks for the fastest or the cheapest: said when it is that
/// end of the enum's tiers. `None` when the member is no tier or neither end is asked for.
fn tier_end(member: &str, members: &[Value], evidence: &Evidence) -> Option<bool> {
    let tiers_in = |family: &[&[&str]]| -> Option<(usize, Vec<usize>)> {
        let tier_of = |m: &str| {
            let m = super::tokens::fold(m).replace(['-', ' '], "_");
            family.iter().position(|names| names.contains(&m.as_str()))
        };
        let tiers: Vec<usize> = members
            .iter()
            .filter_map(Value::as_str)
            .filter_map(tier_of)
            .collect();
        (tiers.len() >= 2).then_some((tier_of(member)?, tiers))
    };
    // The family most of the members are in: `economy` is a parcel's tier and a seat's.
    let (own, tiers) = [TIERS, CABINS]
        .into_iter()
        .filter_map(tiers_in)
        .max_by_key(|(_, tiers)| tiers.len())?;
    let words = evidence.folded_words();
    // Not turned down: "express, not the cheapest".
    let negated = |i: usize| {
        words[i.saturating_sub(3)..i]
            .iter()
            .any(|w| evidence.negates(w))
    };
    let fastest = (0..words.len()).any(|i| {
        !negated(i)
            && (is(FASTEST, &words[i]) || (is(FAST, &words[i]) && i > 0 && is(MOST, &words[i - 1])))
    });
    // The cheapest, not something cheap ("a cheap hotel" chose no cabin): a superlative, or
    // a cheap word after "most" ("la entrega más barata").
    let (_, cheap, _) = SCALES.iter().find(|(scale, _, _)| *scale == "price")?;
    const CHEAPEST: &[&str] = &[
        "cheapest",
        "gunstigste",
        "gunstigsten",
        "billigste",
        "billigsten",
    ];
    let cheapest = (0..words.len()).any(|i| {
        !negated(i)
            && (is(CHEAPEST, &words[i])
                || (cheap.contains(&words[i].as_str()) && i > 0 && is(MOST, &words[i - 1])))
    });
    match (fastest, cheapest) {
        (true, false) => Some(Some(own) == tiers.iter().max().copied()),
        (false, true) => Some(Some(own) == tiers.iter().min().copied()),
        _ => None,
    }
}

/// Words that turn a scale word around: "moins cher" is cheaper, "menos caro" too.
const LESS: &[&str] = &["less", "least", "menos", "moins", "meno", "weniger"];
/// Words that put an end first: "newest first", "le plus récent d'abord".
const FIRST: &[&str] = &[
    "first", "primero", "primera", "primeros", "premier", "premiere", "abord", "zuerst", "erst",
    "primeiro", "primeira", "primo", "prima",
];
/// What a sort key is called in an enum member, by scale.
const KEYS: &[(&str, &[&str])] = &[
    ("price", &["price", "cost", "amount", "fare"]),
    ("size", &["size", "length", "bytes"]),
    ("rating", &["rating", "rated", "score", "stars", "reviews"]),
    (
        "date",
        &[
            "date", "time", "created", "updated", "modified", "recent", "newest", "age",
        ],
    ),
];

/// A sort order said as the ends of its scale: "from cheapest to most expensive" (`asc`,
/// `price_asc`), "newest first" (`desc`, `date_desc`), "del más barato al más caro". A member
/// that also names its key (`price_asc`) needs that key to be the scale said ("cheapest" sorts
/// by price, not by size).
fn sort_order(member: &str, evidence: &Evidence) -> bool {
    let words = words_of(member);
    let ascending = words
        .iter()
        .any(|w| matches!(w.as_str(), "asc" | "ascending"));
    let descending = words
        .iter()
        .any(|w| matches!(w.as_str(), "desc" | "descending"));
    if ascending == descending {
        return false;
    }
    let keys: Vec<&String> = words
        .iter()
        .filter(|w| {
            !matches!(
                w.as_str(),
                "asc" | "ascending" | "desc" | "descending" | "by" | "sort" | "order"
            )
        })
        .collect();
    let text = evidence.folded_words();
    SCALES.iter().any(|(scale, low, high)| {
        let key_fits = keys.is_empty()
            || keys.iter().all(|k| {
                KEYS.iter()
                    .any(|(s, names)| s == scale && names.contains(&k.as_str()))
            });
        if !key_fits {
            return false;
        }
        let ends = ends_said(&text, low, high);
        let Some(&(at, first_low)) = ends.first() else {
            return false;
        };
        let goes_up = match ends.iter().find(|(_, low)| *low != first_low) {
            // "from cheapest to most expensive": the first end said is where it starts.
            Some(_) => first_low,
            // One end said: it must come first ("newest first", "le moins cher d'abord",
            // "primero los más baratos").
            None => {
                let said_first = text[at + 1..]
                    .iter()
                    .take(3)
                    .chain(text[at.saturating_sub(3)..at].iter())
                    .any(|w| FIRST.contains(&w.as_str()));
                if !said_first {
                    return false;
                }
                first_low
            }
        };
        goes_up == ascending
    })
}

/// A member that is an end of a scale (`newest`, `oldest`, `cheapest`), where the text says
/// both ends ("dal più vecchio al più recente", "from oldest to newest"): said when its end
/// is the one said first, where the order starts. `None` when the member is no end or the
/// text says one end at most.
fn end_said_first(member: &str, evidence: &Evidence) -> Option<bool> {
    let member = member.to_lowercase();
    let (_, low, high) = SCALES
        .iter()
        .find(|(_, low, high)| low.contains(&member.as_str()) || high.contains(&member.as_str()))?;
    let member_low = low.contains(&member.as_str());
    let ends = ends_said(&evidence.folded_words(), low, high);
    let &(_, first) = ends.first()?;
    ends.iter()
        .any(|&(_, low)| low != first)
        .then_some(first == member_low)
}

/// A scale's ends in the order the text says them: each end's word position and whether it
/// is the low end, turned by a "less" before it ("the least expensive" is the low end).
fn ends_said(text: &[String], low: &[&str], high: &[&str]) -> Vec<(usize, bool)> {
    text.iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let is_low = low.contains(&w.as_str());
            if !is_low && !high.contains(&w.as_str()) {
                return None;
            }
            let turned = i >= 1 && LESS.contains(&text[i - 1].as_str());
            Some((i, is_low != turned))
        })
        .collect()
}

/// What says there is no hurry (folded words, in order): the low end of a priority. Not a
/// bare "whenever" or "irgendwann" ("whenever I open the app it crashes").
#[rustfmt::skip]
const NO_HURRY: &[&[&str]] = &[
    &["no", "rush"], &["no", "hurry"], &["not", "urgent"], &["not", "an", "emergency"],
    &["when", "you", "have", "time"], &["pas", "presse"], &["pas", "pressee"],
    &["pas", "urgent"], &["rien", "d", "'", "urgent"], &["pas", "d", "'", "urgence"],
    &["sans", "urgence"], &["quand", "t", "'", "as", "le", "temps"],
    &["quand", "tu", "as", "le", "temps"], &["sin", "prisa"], &["no", "corre", "prisa"],
    &["no", "es", "urgente"], &["no", "es", "una", "emergencia"], &["keine", "eile"],
    &["nicht", "dringend"], &["kein", "notfall"], &["wenn", "du", "zeit", "hast"],
    &["sem", "pressa"], &["nao", "e", "urgente"], &["senza", "fretta"],
    &["non", "e", "urgente"], &["quando", "hai", "tempo"],
];

/// What says the need is pressing beyond a plain "urgent" (folded words, in order).
#[rustfmt::skip]
const PRESSING: &[&[&str]] = &[
    &["urgentisimo"], &["urgentisima"], &["urgentissimo"], &["urgentissima"],
    &["urgentissime"], &["super", "urgent"], &["asap"], &["emergency"], &["emergencia"],
    &["urgence"], &["notfall"], &["emergenza"], &["socorro"], &["au", "secours"],
];

/// Negations that turn a pressing word around ("not an emergency", "kein Notfall").
const NEGATIONS: &[&str] = &[
    "not", "no", "pas", "kein", "keine", "nicht", "non", "nao", "sans", "sin",
];

/// Members at the low end of a priority, and at its top.
const LOWEST: &[&str] = &["low", "lowest", "minor", "trivial"];
const TOP: &[&str] = &["urgent", "critical", "highest", "emergency", "blocker"];

/// Where `phrases` stand in `tokens`, as token ranges.
fn phrases_at(tokens: &[Token], phrases: &[&[&str]]) -> Vec<std::ops::Range<usize>> {
    (0..tokens.len())
        .filter_map(|at| super::tokens::phrase_at(tokens, at, phrases).map(|len| at..at + len))
        .collect()
}

/// Whether `member` of a priority is the end what the user says of the need names: "pas
/// pressé, quand t'as le temps" the low end, "es urgentísimo" the top (or "high" where no
/// member is above it). Never where both are said, where a pressing word is negated ("pas
/// d'urgence"), or where a word of urgency or another member's name stands outside what
/// says there is no hurry ("no rush, but mark it high priority").
fn urgency_meant(member: &str, members: &[Value], key: &str, evidence: &Evidence) -> bool {
    if !words_of(key)
        .iter()
        .any(|w| URGENCY_FIELDS.iter().any(|f| stem(w) == stem(f)))
    {
        return false;
    }
    let tokens = &evidence.tokens;
    let calm_at = phrases_at(tokens, NO_HURRY);
    let inside_calm = |i: usize| calm_at.iter().any(|r| r.contains(&i));
    let negated = |i: usize| (i.saturating_sub(3)..i).any(|k| is(NEGATIONS, &tokens[k].folded));
    let pressing = phrases_at(tokens, PRESSING)
        .into_iter()
        .any(|r| !inside_calm(r.start) && !negated(r.start));
    let calm = !calm_at.is_empty();
    let member = member.to_lowercase();
    let names: Vec<String> = members
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_lowercase)
        .filter(|m| *m != member)
        .collect();
    // A member named in other words ("mach mittlere Priorität"), but the top's names, which
    // a calm phrase turns around ("nicht dringend").
    let top = |m: &str| TOP.contains(&m) || m == "high";
    let spoken_outside = tokens.iter().enumerate().any(|(i, t)| {
        t.kind == Kind::Word
            && !inside_calm(i)
            && (URGENCY.contains(&t.folded.as_str()) || names.contains(&t.folded))
    }) || names.iter().any(|m| !top(m) && named(m, evidence));
    if calm == pressing || spoken_outside {
        return false;
    }
    let top_named = members
        .iter()
        .filter_map(Value::as_str)
        .any(|m| TOP.contains(&m.to_lowercase().as_str()));
    if calm {
        LOWEST.contains(&member.as_str())
    } else {
        TOP.contains(&member.as_str()) || (member == "high" && !top_named)
    }
}

/// A field about priority, urgency, severity or importance, and a word of urgency said.
pub fn urgency(key: &str, evidence: &Evidence) -> bool {
    words_of(key)
        .iter()
        .any(|w| URGENCY_FIELDS.iter().any(|f| stem(w) == stem(f)))
        && URGENCY.iter().any(|w| evidence.has_word(w))
}

/// The conversation speaks of the field's subject: a word of its name that is no generic one,
/// or a word of urgency for a field about priority.
fn subject_spoken(key: &str, evidence: &Evidence) -> bool {
    if urgency(key, evidence) {
        return true;
    }
    words_of(key).iter().any(|w| {
        w.chars().count() > 2 && !is(GENERIC, w) && !is(STOPWORDS, w) && evidence.has_word(w)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chosen(text: &str, member: &str, members: Value, key: &str) -> bool {
        let members = members.as_array().cloned().unwrap_or_default();
        said(
            member,
            &members,
            key,
            &json!({}),
            &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
        )
    }

    fn turned_down(text: &str, member: &str, members: Value) -> bool {
        let members = members.as_array().cloned().unwrap_or_default();
        refused(
            member,
            &members,
            &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
        )
    }

    #[test]
    fn a_member_said_by_the_words_that_tell_it_apart() {
        let whites = || json!(["warm_white", "neutral_white", "cool_white"]);
        let text = "Mach das Licht im Wohnzimmer schön gemütlich warm";
        assert!(chosen(text, "warm_white", whites(), "color"));
        assert!(!chosen(text, "cool_white", whites(), "color"));
        let places = || json!(["home", "pickup_point", "locker"]);
        let text = "Quando spedisci il pacco, mandalo al punto di ritiro, non a casa";
        assert!(chosen(text, "pickup_point", places(), "delivery_type"));
        let cabins = || json!(["economy", "premium_economy", "business"]);
        assert!(chosen(
            "Book premium seats to Austin",
            "premium_economy",
            cabins(),
            "cabin_class"
        ));
        // A word that orders or counts tells nothing apart.
        let classes = || json!(["first_class", "business_class", "economy_class"]);
        assert!(!chosen(
            "First, find me a flight to Rome",
            "first_class",
            classes(),
            "cabin"
        ));
        let speeds = || json!(["next_day", "two_day", "ground"]);
        assert!(!chosen(
            "I need it by next week",
            "next_day",
            speeds(),
            "shipping"
        ));
        // A word that tells it apart is not said, or only turned down.
        let payments = || json!(["card", "cash_on_delivery", "paypal"]);
        assert!(!chosen(
            "Use the delivery address on Main St",
            "cash_on_delivery",
            payments(),
            "payment"
        ));
        assert!(!chosen(
            "Set the light to a white that is not warm",
            "warm_white",
            whites(),
            "color"
        ));
    }

    #[test]
    fn a_member_said_as_the_start_of_a_longer_word() {
        let kinds = || json!(["all", "graphql", "postgres", "rds", "sql"]);
        let text = "Could you list all the PostgreSQL servers in our environment?";
        assert!(chosen(text, "postgres", kinds(), "db_engine"));
        // Another word, or a word much longer than the member, says nothing.
        assert!(!chosen(
            "List the MySQL servers",
            "postgres",
            kinds(),
            "db_engine"
        ));
        assert!(!chosen(
            "list the postgresqlreplica servers",
            "postgres",
            kinds(),
            "db_engine"
        ));
    }

    #[test]
    fn a_member_turned_down_by_a_word_for_none() {
        let sweetener = json!(["none", "sugar", "caramel", "stevia"]);
        let text = "un café con leche de avena, nada de azúcar pero sí un chorrito de caramelo";
        assert!(turned_down(text, "sugar", sweetener.clone()));
        assert!(!turned_down(text, "caramel", sweetener.clone()));
        assert!(turned_down(
            "un cappuccino, niente zucchero",
            "sugar",
            sweetener.clone()
        ));
        // "Nothing else" past a mark turns down nothing after it, nor does "nothing but".
        assert!(!turned_down(
            "no quiero nada más, solo azúcar",
            "sugar",
            sweetener.clone()
        ));
        assert!(!turned_down(
            "rien que du caramel",
            "caramel",
            sweetener.clone()
        ));
        assert!(!turned_down(
            "no le pongas nada más que azúcar",
            "sugar",
            sweetener
        ));
    }

    #[test]
    fn a_no_before_an_article_refuses_not_portuguese_no_before_a_noun() {
        let modes = json!(["cool", "heat", "fan", "auto"]);
        assert!(!turned_down(
            "Liga o ar-condicionado no modo aquecimento, tá gelado aqui.",
            "heat",
            modes.clone()
        ));
        let rooms = json!(["single", "double"]);
        assert!(turned_down("no la doble, la individual", "double", rooms));
        let toppings = json!(["cheese", "ham", "mushrooms"]);
        assert!(turned_down(
            "a large pizza, no extra cheese",
            "cheese",
            toppings
        ));
    }

    #[test]
    fn a_member_in_the_user_s_own_word() {
        let doneness = json!(["rare", "medium_rare", "medium", "well_done"]);
        let text = "l'entrecôte je la veux saignante";
        assert!(chosen(text, "rare", doneness.clone(), "doneness"));
        assert!(!chosen(text, "well_done", doneness, "doneness"));
        let dough = json!(["classic", "wholewheat", "gluten_free"]);
        let text = "la pizza la voglio con impasto integrale";
        assert!(chosen(text, "wholewheat", dough.clone(), "dough"));
        assert!(!chosen(text, "classic", dough, "dough"));
    }

    #[test]
    fn a_member_left_out() {
        let rooms = json!(["kitchen", "living_room", "bedroom", "bathroom"]);
        let text = "tell the roomba to do the kitchen only, skip the bedroom the baby's napping";
        assert!(turned_down(text, "bedroom", rooms.clone()));
        assert!(!turned_down(text, "kitchen", rooms.clone()));
        assert!(turned_down(
            "passe partout sauf la cuisine",
            "cuisine",
            json!(["cuisine", "chambre"])
        ));
        // A negation before the word of leaving out asks for the member.
        assert!(!turned_down(
            "Vacuum the bedroom and don't skip the kitchen this time",
            "kitchen",
            rooms.clone()
        ));
        for text in [
            "I don't want you to skip the kitchen again",
            "Skip to the kitchen first, it's the messiest",
        ] {
            assert!(!turned_down(text, "kitchen", rooms.clone()), "{text}");
        }
        // Leaving out something else turns down no member.
        assert!(!turned_down(
            "skip the rugs and do the bedroom",
            "bedroom",
            rooms
        ));
    }

    #[test]
    fn a_member_named_to_be_turned_down() {
        let shipping = json!(["standard", "express", "overnight"]);
        let rooms = json!(["single", "double", "suite"]);
        let pay = json!(["card", "cash", "transfer"]);
        let sizes = json!(["small", "medium", "large"]);
        assert!(turned_down(
            "not the express one, just regular shipping is fine",
            "express",
            shipping.clone()
        ));
        assert!(turned_down(
            "la habitación individual, no la doble",
            "double",
            rooms.clone()
        ));
        assert!(turned_down(
            "Nicht die Expresszustellung, normal reicht",
            "express",
            shipping.clone()
        ));
        assert!(turned_down(
            "non la pizza grande, la media",
            "large",
            sizes.clone()
        ));
        assert!(turned_down(
            "paga con tarjeta... ay no, mejor en efectivo",
            "card",
            pay.clone()
        ));
        // A refusal right after it, ending its clause.
        assert!(turned_down(
            "spedizione express no, va bene la normale",
            "express",
            shipping.clone()
        ));
        assert!(turned_down(
            "en efectivo no, mejor con tarjeta",
            "cash",
            pay.clone()
        ));
        assert!(!turned_down(
            "lo mandas express no? así llega antes",
            "express",
            shipping.clone()
        ));
        // A refusal that takes the member up again.
        let channels = json!(["email", "sms", "push"]);
        assert!(turned_down(
            "Avísame por SMS, el correo no lo miro nunca",
            "email",
            channels.clone()
        ));
        assert!(!turned_down(
            "Avísame por correo, no lo olvides",
            "email",
            channels
        ));
        for text in [
            "Si el exprés no lo cobran aparte, mándalo así",
            "¿El exprés no lo hacen los sábados?",
            "el exprés no lo hacen los sábados?",
        ] {
            assert!(!turned_down(text, "express", shipping.clone()), "{text}");
        }
        // A refusal before a verb of wanting it.
        for text in [
            "No quiero el envío exprés, con el normal me vale",
            "I don't want express shipping, normal is fine",
            "je ne veux pas l'express, le standard suffit",
            "non voglio la spedizione express",
        ] {
            assert!(turned_down(text, "express", shipping.clone()), "{text}");
        }
        for text in [
            "I want express, not standard",
            "no, I want express",
            "quiero el exprés, no el normal",
            "Who wouldn't want express shipping?",
        ] {
            assert!(!turned_down(text, "express", shipping.clone()), "{text}");
        }
        assert!(!turned_down(
            "is express no longer an option?",
            "express",
            shipping.clone()
        ));
        // Said and not turned down; a negation of something else; a "no" that answers.
        assert!(!turned_down(
            "send it express, no signature needed",
            "express",
            shipping.clone()
        ));
        assert!(!turned_down(
            "No, la doble por favor",
            "double",
            rooms.clone()
        ));
        assert!(!turned_down("la doble, no la individual", "double", rooms));
        assert!(!turned_down(
            "paga con tarjeta, no en efectivo",
            "card",
            pay.clone()
        ));
        assert!(!turned_down(
            "en efectivo no, mejor con tarjeta",
            "card",
            pay.clone()
        ));
        // Said twice, once turned down: it was said.
        assert!(!turned_down(
            "not the small one... the small one with the lid",
            "small",
            sizes
        ));
        // "without": "sem banho" names no bath.
        assert!(!chosen(
            "Leva o Thor pra tosa higiênica, só isso, sem banho",
            "banho_e_tosa",
            json!(["banho", "banho_e_tosa", "tosa_higienica"]),
            "service"
        ));
        assert!(chosen(
            "pago alla consegna, in contanti",
            "cash_on_delivery",
            json!(["card", "paypal", "cash_on_delivery"]),
            "payment_method"
        ));
        // Portuguese "no" (in the).
        assert!(!turned_down(
            "paga no pix",
            "pix",
            json!(["card", "pix", "boleto"])
        ));
        // A state, not a refusal.
        assert!(!turned_down(
            "Hi, I'm off sick today, can you log it with HR?",
            "sick",
            json!(["vacation", "sick", "parental", "unpaid"])
        ));
        // Not named at all: nothing to turn down.
        assert!(!turned_down("pay however you like", "cash", pay));
    }

    #[test]
    fn a_spoken_subject_does_not_choose_between_members_it_shares_a_word_with() {
        let members = json!(["price_asc", "price_desc", "rating", "newest"]);
        assert!(!chosen(
            "Sort these laptops by price",
            "price_desc",
            members.clone(),
            "sort"
        ));
        assert!(!chosen(
            "Sort these laptops by price",
            "price_asc",
            members.clone(),
            "sort"
        ));
        assert!(chosen(
            "Sort by price, ascending",
            "price_asc",
            members,
            "sort"
        ));
    }

    #[test]
    fn a_count_of_times_per_period_is_a_frequency() {
        let members = json!(["daily", "weekly", "monthly"]);
        for (text, member) in [
            ("Send me the statement once a month.", "monthly"),
            ("Envoie-moi le relevé une fois par mois.", "monthly"),
            ("Schick mir den Bericht einmal im Monat.", "monthly"),
            ("Mándamelo una vez por semana.", "weekly"),
            ("Mandamelo una volta al mese.", "monthly"),
            ("Manda-me uma vez por semana.", "weekly"),
        ] {
            assert!(chosen(text, member, members.clone(), "frequency"), "{text}");
        }
        for (text, member) in [
            // Twice a week is neither weekly nor daily.
            ("Back it up twice a week.", "weekly"),
            ("Haz la copia dos veces por semana.", "weekly"),
            ("Send it once, a month from now.", "monthly"),
            ("Le loyer est de 900 euros par mois.", "monthly"),
            ("Once the month ends, send me the report.", "monthly"),
        ] {
            assert!(
                !chosen(text, member, members.clone(), "frequency"),
                "{text}"
            );
        }
    }

    #[test]
    fn sort_orders_by_rating_first_said_before_and_both_ends() {
        let members = json!(["rating_desc", "rating_asc", "distance", "price_asc"]);
        let sort = |text: &str, member: &str| chosen(text, member, members.clone(), "sort");
        assert!(sort(
            "Trie les restaurants par note, les mieux notés d'abord.",
            "rating_desc"
        ));
        assert!(!sort(
            "Trie les restaurants par note, les mieux notés d'abord.",
            "rating_asc"
        ));
        assert!(sort("Show the best rated first", "rating_desc"));
        assert!(sort(
            "Busca vuelos a Lima, primero los más baratos.",
            "price_asc"
        ));
        assert!(!sort("Busca vuelos a Lima, los más baratos.", "price_asc"));
        let ages = json!(["newest", "oldest", "relevance"]);
        let age = |text: &str, member: &str| chosen(text, member, ages.clone(), "sort");
        assert!(age(
            "Ordina i risultati dal più vecchio al più recente.",
            "oldest"
        ));
        assert!(!age(
            "Ordina i risultati dal più vecchio al più recente.",
            "newest"
        ));
        assert!(age("from newest to oldest", "newest"));
        assert!(!age("from newest to oldest", "oldest"));
        assert!(age("show me the newest ones", "newest"));
    }

    #[test]
    fn a_member_said_in_another_gender() {
        let members = json!(["legendado", "dublado"]);
        let audio =
            |text: &str, member: &str| chosen(text, member, members.clone(), "audio_version");
        assert!(audio("Compra dois ingressos pra sessão dublada", "dublado"));
        assert!(!audio(
            "Compra dois ingressos pra sessão dublada",
            "legendado"
        ));
        // Short words have no base to share: "mesa" is no "meso".
        let sizes = json!(["meso", "alto"]);
        assert!(!chosen("una mesa alta", "meso", sizes, "size"));
    }

    #[test]
    fn every_weekday_is_weekly_and_every_few_units_an_interval() {
        let members = json!(["once", "daily", "weekly", "monthly", "interval"]);
        let kind =
            |text: &str, member: &str| chosen(text, member, members.clone(), "schedule_type");
        assert!(kind("every Monday at 14:00 to review pulse", "weekly"));
        assert!(kind("todos los lunes a las ocho", "weekly"));
        assert!(kind("tous les lundis", "weekly"));
        assert!(kind("jeden Montag um 9", "weekly"));
        assert!(kind("every 3600 seconds between 08:00-18:00", "interval"));
        assert!(kind("every hour between 08:00 and 18:00", "interval"));
        assert!(kind("alle 2 Tage", "interval"));
        // A day is daily, not an interval; a Monday alone is no weekly.
        assert!(!kind("every day at 9", "interval"));
        assert!(!kind("on Monday at 14:00", "weekly"));
        assert!(!kind("every Monday at 14:00", "daily"));
    }

    #[test]
    fn once_needs_a_frequency_beside_it_and_a_day_other_than_today() {
        // A room or a ticket: "single" is no one-time member, and an enum without a frequency
        // has no "once" to choose by a day.
        assert!(!chosen(
            "a ticket to Lyon for tomorrow, please",
            "single",
            json!(["single", "return", "daily"]),
            "fare"
        ));
        assert!(!chosen(
            "book it for tomorrow",
            "once",
            json!(["once", "never"]),
            "mode"
        ));
        // Today's date (a system prompt gives it) is no day said.
        let members = json!(["once", "daily"]);
        assert!(!chosen(
            "Today is Wednesday, November 25, 2026. Remind me to call John.",
            "once",
            members.clone(),
            "kind"
        ));
        assert!(chosen(
            "Today is Wednesday, November 25, 2026. Remind me on Friday to call John.",
            "once",
            members,
            "kind"
        ));
    }

    #[test]
    fn an_agent_noun_is_said_by_its_verb() {
        let members = json!(["reminder", "agent_task", "api_call", "timer", "worker"]);
        let kind = |text: &str, member: &str| chosen(text, member, members.clone(), "task_type");
        assert!(kind(
            "every weekday at 7:45 remind me to take my vitamins",
            "reminder"
        ));
        assert!(kind("Recordatorio: remind me at 9", "reminder"));
        // A short verb is too common a word to name its noun.
        assert!(!kind("what time is it in Tokyo", "timer"));
        assert!(!kind("I work from home on Fridays", "worker"));
        assert!(!kind("send a GET request to the status page", "reminder"));
        let light = json!(["dimmer", "brighter"]);
        assert!(!chosen(
            "it's too bright in here",
            "brighter",
            light,
            "level"
        ));
        let kinds = json!(["container", "vm"]);
        assert!(!chosen(
            "the box contains two cables",
            "container",
            kinds,
            "target"
        ));
    }

    #[test]
    fn a_day_without_a_recurrence_is_once() {
        let members = json!(["once", "daily", "weekly", "monthly"]);
        let kind =
            |text: &str, member: &str| chosen(text, member, members.clone(), "schedule_type");
        for text in [
            "remind me tomorrow at half past six in the evening to pick up the dry cleaning",
            "Remind me on Tuesday, December 1st at 7:30 pm to call Mum",
            "Recuérdame mañana a las ocho que llame a mamá",
            "Erinnere mich am Freitag um 17 Uhr an die Bank",
        ] {
            assert!(kind(text, "once"), "{text}");
            assert!(!kind(text, "daily") && !kind(text, "weekly"), "{text}");
        }
        // Recurring, or no day at all: not once.
        for text in [
            "every Monday at 8, remind me to water the plants",
            "starting tomorrow, remind me daily at 9 to stretch",
            "todos los días a partir de mañana a las 9",
            "remind me at 9 to call John",
            "remind me to call John",
            "once a month, on the 1st, remind me to pay the rent",
            "twice a week, on Monday and Thursday, remind me to run",
            "tres veces por semana, el lunes, recuérdame correr",
            "on Mondays at 9, remind me to stretch",
            "recuérdame los lunes a las nueve que estire",
            "rappelle-moi le lundi à 9 heures de m'étirer",
            "erinnere mich montags um 9 ans Dehnen",
            "from Monday to Friday at 7, remind me to take my vitamins",
            "on weekdays at 7 remind me to take my vitamins",
        ] {
            assert!(!kind(text, "once"), "{text}");
        }
    }

    #[test]
    fn frequencies_in_six_languages() {
        let members = json!(["once", "daily", "weekly", "monthly"]);
        // Stressed, and turned down.
        let repeat = |text: &str, member: &str| chosen(text, member, members.clone(), "repeat");
        assert!(repeat("every single day, 9am", "daily"));
        let weekly = "Envoie-moi les rappels chaque semaine, pas tous les jours";
        assert!(!repeat(weekly, "daily"));
        assert!(repeat(weekly, "weekly"));
        assert!(!repeat("not every day, just on Mondays", "daily"));
        assert!(!repeat("erinnere mich nicht täglich", "daily"));
        assert!(repeat("every day, not only on Mondays", "daily"));
        assert!(chosen(
            "remind me every day at 9",
            "daily",
            members.clone(),
            "repeat"
        ));
        assert!(chosen(
            "recuérdamelo cada semana",
            "weekly",
            members.clone(),
            "repeat"
        ));
        assert!(chosen(
            "rappelle-moi tous les jours",
            "daily",
            members.clone(),
            "repeat"
        ));
        assert!(chosen(
            "erinnere mich täglich",
            "daily",
            members.clone(),
            "repeat"
        ));
        assert!(chosen(
            "lembre-me todos os meses",
            "monthly",
            members.clone(),
            "repeat"
        ));
        assert!(chosen(
            "ricordamelo ogni settimana",
            "weekly",
            members.clone(),
            "repeat"
        ));
        // A unit alone is no frequency: "in 3 days" is a date.
        assert!(!chosen(
            "remind me in 3 days",
            "daily",
            members.clone(),
            "repeat"
        ));
        // A count: every two weeks is no weekly.
        let fortnight = json!(["weekly", "biweekly", "monthly"]);
        for text in [
            "every other week",
            "every 2 weeks",
            "tous les quinze jours",
            "alle zwei Wochen",
            "de quinze em quinze dias",
            "ogni due settimane",
            "quincenal",
        ] {
            assert!(
                chosen(text, "biweekly", fortnight.clone(), "repeat"),
                "{text}"
            );
            assert!(
                !chosen(text, "weekly", fortnight.clone(), "repeat"),
                "{text}"
            );
        }
    }

    #[test]
    fn sort_orders_said_as_the_ends_of_their_scale() {
        let order = json!(["price_asc", "price_desc", "size_asc", "size_desc"]);
        let said = |text: &str, member: &str| chosen(text, member, order.clone(), "sort_by");
        assert!(said("from cheapest to most expensive", "price_asc"));
        assert!(!said("from cheapest to most expensive", "price_desc"));
        assert!(!said("from cheapest to most expensive", "size_asc"));
        assert!(said("del más barato al más caro", "price_asc"));
        assert!(said("du plus cher au moins cher", "price_desc"));
        assert!(said("dal più grande al più piccolo", "size_desc"));
        assert!(said("vom günstigsten zum teuersten", "price_asc"));
        let plain = json!(["asc", "desc"]);
        assert!(chosen(
            "newest first please",
            "desc",
            plain.clone(),
            "order"
        ));
        assert!(chosen(
            "les plus récents d'abord",
            "desc",
            plain.clone(),
            "order"
        ));
        assert!(!chosen(
            "show me the newest one",
            "desc",
            plain.clone(),
            "order"
        ));
        assert!(!chosen("a cheap hotel", "asc", plain, "order"));
    }

    #[test]
    fn a_cover_raised_or_lowered() {
        let covers = json!(["open", "close", "stop"]);
        let said = |text: &str, member: &str| chosen(text, member, covers.clone(), "action");
        assert!(said("sube las persianas del cuarto", "open"));
        assert!(said(
            "mach mal die Rollläden runter, die Sonne blendet",
            "close"
        ));
        assert!(said("lower the blinds please", "close"));
        assert!(!said("sube las persianas del cuarto", "close"));
        // Both ways said, an adjective, or members that are no cover's.
        assert!(!said("sube y baja la persiana", "open"));
        assert!(!said("Para la persiana de la planta baja", "close"));
        assert!(!said("check the blind on the lower floor", "close"));
        assert!(!said("Wie hoch ist die Markise?", "open"));
        assert!(!chosen(
            "sube el volumen",
            "loud",
            json!(["loud", "quiet"]),
            "level"
        ));
    }

    #[test]
    fn a_state_member_said_by_switching_the_thing() {
        let states = json!(["on", "off"]);
        assert!(chosen(
            "desliga a luz da cozinha",
            "off",
            states.clone(),
            "state"
        ));
        assert!(chosen(
            "accendi la luce in camera",
            "on",
            states.clone(),
            "state"
        ));
        assert!(chosen(
            "kill the living room lights",
            "off",
            states.clone(),
            "state"
        ));
        // The other way, or no switch said.
        assert!(!chosen(
            "accendi la luce in camera",
            "off",
            states.clone(),
            "state"
        ));
        assert!(!chosen(
            "desliga a luz da cozinha",
            "on",
            states.clone(),
            "state"
        ));
        assert!(!chosen(
            "how bright is the kitchen light?",
            "on",
            states,
            "state"
        ));
        // Another thing switched: the member said as it is still is.
        assert!(chosen(
            "deactivate my old card and keep notifications enabled",
            "enabled",
            json!(["enabled", "disabled"]),
            "notifications"
        ));
        let modes = json!(["enabled", "disabled"]);
        assert!(chosen(
            "désactive le mode nuit",
            "disabled",
            modes.clone(),
            "mode"
        ));
        assert!(!chosen("désactive le mode nuit", "enabled", modes, "mode"));
    }

    #[test]
    fn members_said_in_other_forms() {
        let days = json!(["mon", "tue", "wed"]);
        assert!(chosen(
            "every Monday at 14:00",
            "mon",
            days.clone(),
            "day_of_week"
        ));
        assert!(chosen(
            "todos los lunes",
            "mon",
            days.clone(),
            "day_of_week"
        ));
        assert!(!chosen("every Monday at 14:00", "tue", days, "day_of_week"));
        let methods = json!(["GET", "POST"]);
        assert!(chosen(
            "by POSTing to the hook",
            "POST",
            methods.clone(),
            "method"
        ));
        assert!(!chosen("fetch the page", "POST", methods, "method"));
        let order = json!(["asc", "desc"]);
        assert!(chosen(
            "sort by price, ascending",
            "asc",
            order.clone(),
            "sort_order"
        ));
        assert!(chosen(
            "nach Preis, aufsteigend",
            "asc",
            order.clone(),
            "sort_order"
        ));
        assert!(!chosen("nach Preis sortieren", "asc", order, "sort_order"));
        let seat = json!(["window", "aisle"]);
        assert!(chosen(
            "un asiento junto a la ventana",
            "window",
            seat.clone(),
            "seat"
        ));
        assert!(chosen(
            "einen Fensterplatz bitte",
            "window",
            seat.clone(),
            "seat"
        ));
        assert!(!chosen("un asiento por favor", "window", seat, "seat"));
        let meal = json!(["standard", "gluten_free"]);
        assert!(chosen(
            "um prato sem glúten",
            "gluten_free",
            meal.clone(),
            "meal"
        ));
        assert!(chosen(
            "a gluten free meal",
            "gluten_free",
            meal.clone(),
            "meal"
        ));
        assert!(!chosen("pasta with gluten", "gluten_free", meal, "meal"));
        let kinds = json!(["reminder", "web_search"]);
        assert!(chosen(
            "search the web for news",
            "web_search",
            kinds.clone(),
            "task"
        ));
        assert!(!chosen("search my files", "web_search", kinds, "task"));
    }

    #[test]
    fn a_day_is_chosen_by_naming_it_not_by_speaking_of_the_week() {
        let days = json!(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]);
        let text = "Add a task to review my budget every week at 8pm, priority 7.";
        assert!(!chosen(text, "sun", days.clone(), "day_of_week"));
        assert!(!chosen(text, "mon", days.clone(), "day_of_week"));
        assert!(chosen(
            "review my budget every Sunday at 8pm",
            "sun",
            days.clone(),
            "day_of_week"
        ));
        // Members that name no day still follow their subject ("urgent" for a priority).
        assert!(chosen(
            "it's urgent, fix the build",
            "high",
            json!(["low", "high"]),
            "urgency"
        ));
    }

    #[test]
    fn a_subject_spoken_of_chooses_when_no_member_is_named() {
        let strength = json!(["LOW", "MID", "HIGH"]);
        assert!(chosen(
            "the strongest wind please",
            "HIGH",
            strength.clone(),
            "windStrength"
        ));
        assert!(!chosen(
            "a low wind please",
            "HIGH",
            strength.clone(),
            "windStrength"
        ));
        assert!(!chosen("a movie tonight", "HIGH", strength, "windStrength"));
        let priority = json!(["low", "normal", "high"]);
        assert!(chosen(
            "this is urgent",
            "high",
            priority.clone(),
            "priority"
        ));
        assert!(!chosen("book a flight", "high", priority, "priority"));
        // Another member named in another language chose that one.
        let levels = json!(["low", "medium", "high", "critical"]);
        let pref = json!(["window", "aisle", "no_preference"]);
        assert!(!chosen(
            "my preference is the aisle",
            "no_preference",
            pref,
            "seat"
        ));
        // "none" said by the field's thing turned down.
        let milk = json!(["none", "whole", "skim", "oat"]);
        assert!(chosen(
            "el café me lo pides sin leche",
            "none",
            milk.clone(),
            "milk"
        ));
        assert!(!chosen("el café con leche de avena", "none", milk, "milk"));
        let bug = "Der Bug ist nicht dringend, mach mittlere Priorität";
        assert!(!chosen(bug, "low", levels.clone(), "priority"));
        assert!(chosen(bug, "medium", levels.clone(), "priority"));
        assert!(chosen("the bug is not urgent", "low", levels, "priority"));
        // Said by what the user says of the need.
        let four = json!(["low", "normal", "high", "urgent"]);
        for (text, member) in [
            ("pas pressé, quand t'as le temps : le robinet goutte", "low"),
            (
                "nicht dringend, aber irgendwann die Jalousie reparieren",
                "low",
            ),
            ("es urgentísimo, la caldera está perdiendo agua", "urgent"),
            ("emergency, the pipe burst", "urgent"),
        ] {
            assert!(chosen(text, member, four.clone(), "priority"), "{text}");
        }
        assert!(chosen(
            "asap please",
            "high",
            json!(["low", "high"]),
            "priority"
        ));
        // Not the other end, nor another field, nor both said at once.
        assert!(!chosen(
            "no rush, the tap drips",
            "urgent",
            four.clone(),
            "priority"
        ));
        assert!(!chosen(
            "no rush, the tap drips",
            "low",
            four.clone(),
            "speed"
        ));
        assert!(!chosen(
            "no rush, but it is an emergency",
            "low",
            four.clone(),
            "priority"
        ));
        let p = |text: &str, member: &str| chosen(text, member, four.clone(), "priority");
        assert!(p("Pas d\u{2019}urgence, le robinet goutte", "low"));
        assert!(!p("No rush, but mark it high priority", "low"));
        // "type" alone is no subject.
        assert!(!chosen(
            "what type of thing",
            "vegan",
            json!(["vegan", "meat"]),
            "meal_type"
        ));
    }

    #[test]
    fn the_fastest_or_the_cheapest_of_a_services_tiers() {
        // Tiers named in another language, and a seat's classes.
        let fretes = || json!(["economico", "padrao", "expresso"]);
        let text = "Quero o frete mais rápido que tiver.";
        assert!(chosen(text, "expresso", fretes(), "shipping"));
        assert!(!chosen(text, "padrao", fretes(), "shipping"));
        let cabins = || json!(["economy", "premium_economy", "business", "first"]);
        let text = "Book me the cheapest seat on the flight to Austin";
        assert!(chosen(text, "economy", cabins(), "cabin_class"));
        assert!(!chosen(text, "business", cabins(), "cabin_class"));
        assert!(!chosen(
            "Book me a seat on the flight to Austin",
            "economy",
            cabins(),
            "cabin_class"
        ));
        assert!(!chosen(
            "Book a flight to Lisbon and find a cheap hotel near the old town",
            "economy",
            cabins(),
            "cabin_class"
        ));
        let speeds = json!(["standard", "express", "overnight"]);
        let shipping = json!(["economy", "standard", "express"]);
        let fastest = "Ship it the fastest way you've got";
        assert!(chosen(
            fastest,
            "overnight",
            speeds.clone(),
            "shipping_speed"
        ));
        assert!(!chosen(
            fastest,
            "express",
            speeds.clone(),
            "shipping_speed"
        ));
        assert!(chosen(
            "Manda pela entrega mais barata",
            "economy",
            shipping.clone(),
            "shipping"
        ));
        assert!(!chosen(
            "Manda pela entrega mais barata",
            "standard",
            shipping.clone(),
            "shipping"
        ));
        assert!(chosen(
            "envíalo lo más rápido posible",
            "express",
            shipping.clone(),
            "shipping"
        ));
        // Turned down, or both asked for: no end chosen.
        assert!(!chosen(
            "express, not the cheapest",
            "economy",
            shipping.clone(),
            "shipping"
        ));
        assert!(!chosen(
            "the cheapest and the fastest",
            "express",
            shipping,
            "shipping"
        ));
        // Members that are no tiers.
        assert!(!chosen(
            "the fastest route",
            "car",
            json!(["car", "bike"]),
            "mode"
        ));
    }
}
