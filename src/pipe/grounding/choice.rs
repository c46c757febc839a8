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
use super::tokens::{stem, words_of, Kind};
use super::words::{is, EVERY, NEGATIONS, STOPWORDS};

/// Frequency members and the adverbs and units that say them, in the six languages.
const FREQUENCIES: &[(&[&str], &[&str], &[&str])] = &[
    (
        &["daily", "day", "everyday"],
        &[
            "daily",
            "diario",
            "diaria",
            "diariamente",
            "quotidien",
            "quotidienne",
            "quotidiennement",
            "taglich",
            "giornaliero",
            "giornaliera",
            "quotidiano",
            "quotidianamente",
        ],
        &[
            "day", "days", "dia", "dias", "jour", "jours", "tag", "tage", "giorno", "giorni",
        ],
    ),
    (
        &["weekly", "week"],
        &[
            "weekly",
            "semanal",
            "semanalmente",
            "hebdomadaire",
            "wochentlich",
            "settimanale",
            "settimanalmente",
        ],
        &[
            "week",
            "weeks",
            "semana",
            "semanas",
            "semaine",
            "semaines",
            "woche",
            "wochen",
            "settimana",
            "settimane",
        ],
    ),
    (
        &["monthly", "month"],
        &[
            "monthly",
            "mensual",
            "mensualmente",
            "mensuel",
            "mensuelle",
            "monatlich",
            "mensal",
            "mensile",
            "mensilmente",
        ],
        &[
            "month", "months", "mes", "meses", "mois", "monat", "monate", "mese", "mesi",
        ],
    ),
    (
        &["yearly", "annually", "annual", "year"],
        &[
            "yearly",
            "annually",
            "annual",
            "anual",
            "anualmente",
            "annuel",
            "annuelle",
            "jahrlich",
            "annuale",
            "annualmente",
        ],
        &[
            "year", "years", "ano", "anos", "an", "ans", "annee", "jahr", "jahre", "anno", "anni",
        ],
    ),
    (
        &["hourly", "hour"],
        &["hourly", "stundlich", "orario"],
        &[
            "hour", "hours", "hora", "horas", "heure", "heures", "stunde", "stunden", "ora", "ore",
        ],
    ),
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
    if named(member, evidence) || frequency(member, evidence) || weekday(member, evidence) {
        return true;
    }
    let another_named = members
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| !m.eq_ignore_ascii_case(member))
        .any(|m| evidence.written(m) || frequency(m, evidence));
    !another_named && subject_spoken(key, evidence)
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
    !words.is_empty()
        && words
            .iter()
            .all(|w| w.chars().count() >= 3 && !is(STOPWORDS, w) && said_word(w, evidence))
}

/// The English `word`, its abbreviation's word, or a word for it in another of the six.
pub(super) fn said_word(word: &str, evidence: &Evidence) -> bool {
    evidence.has_word(word)
        || evidence.has_word(lexicon::full(word))
        || lexicon::translations(lexicon::full(word))
            .iter()
            .any(|t| evidence.has_word(t))
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
                .any(|n| is(NEGATIONS, n))
    })
}

/// A day of the week (`mon`, `Monday`, `MO`) the text names in any of the six languages.
fn weekday(member: &str, evidence: &Evidence) -> bool {
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
        _ => return false,
    };
    let english = format!("{day:?}").to_lowercase();
    // The member is the day's name or a cut of it ("mon", "tues", "thu"), not another word.
    english.starts_with(&member) && evidence.facts.weekdays.contains(&day)
}

/// `member` is a frequency the text says: an adverb ("täglich"), or a unit after a word for
/// "every" ("every day", "cada semana", "tous les jours").
fn frequency(member: &str, evidence: &Evidence) -> bool {
    let member = member.to_lowercase();
    let Some((_, adverbs, units)) = FREQUENCIES
        .iter()
        .find(|(names, _, _)| names.contains(&member.as_str()))
    else {
        return false;
    };
    let words: Vec<&str> = evidence
        .tokens
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.folded.as_str())
        .collect();
    words.iter().enumerate().any(|(i, word)| {
        is(adverbs, word)
            || (is(units, word)
                && (i >= 1 && is(EVERY, words[i - 1]) || i >= 2 && is(EVERY, words[i - 2])))
    })
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

    #[test]
    fn frequencies_in_six_languages() {
        let members = json!(["once", "daily", "weekly", "monthly"]);
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
        assert!(!chosen("remind me in 3 days", "daily", members, "repeat"));
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
        // "type" alone is no subject.
        assert!(!chosen(
            "what type of thing",
            "vegan",
            json!(["vegan", "meat"]),
            "meal_type"
        ));
    }
}
