//! Values moved away from. "move my standup from 9:15 to 9:45", "décale la réunion de 10h à
//! 11h", "verschieb das Meeting von 10 auf 11 Uhr", "sposta la cena dalle 20 alle 21": the
//! day or time after "from" in a request to move a thing is where it stands now, not where
//! it goes; a field about where it goes (`new_start_time`, `time`) takes none said only
//! there. The part moved from runs from its "from" to the "to" within a few words after it,
//! in a line with a word of moving before it.

use super::evidence::Evidence;
use super::tokens::{Kind, Token};

/// Words of moving a thing in time (folded, whole words: "shift", "report" and "movies" are
/// nouns, "pasaje" no "pasa").
#[rustfmt::skip]
const MOVING: &[&str] = &[
    "move", "moved", "moving", "reschedule", "rescheduled", "postpone", "postponed", "bump",
    "push", "change", "changed",
    "mover", "mueve", "muevela", "muevelo", "movemos", "cambia", "cambiar", "cambiamos",
    "pasa", "pasar", "pasamos", "adelanta", "adelantar", "retrasa", "retrasar", "aplaza",
    "aplazar",
    "deplace", "deplacer", "deplacez", "decale", "decaler", "decalez", "reporte", "reportez",
    "avance", "avancer", "recule", "reculer", "change", "changer",
    "verschieb", "verschiebe", "verschieben", "verleg", "verlege", "verlegen", "schieb",
    "schiebe", "andere", "andern",
    "muda", "mudar", "mudamos", "passa", "passar", "adia", "adiar", "antecipa", "antecipar",
    "sposta", "spostare", "spostiamo", "anticipa", "anticipare", "posticipa", "posticipare",
    "rinvia", "rinviare",
];

/// Starts of words of moving that start no other word ("muéveme", "reschedules",
/// "verschiebst", "décalons", "spostiamo").
#[rustfmt::skip]
const MOVING_STEMS: &[&str] = &[
    "muev", "reschedul", "postpon", "verschieb", "verleg", "deplac", "decal", "spost",
    "posticip", "antecip", "adelant", "retras", "aplaz",
];

/// Words that open where a thing is moved from (folded).
#[rustfmt::skip]
const FROM: &[&str] = &[
    "from", "de", "desde", "del", "du", "des", "von", "vom", "da", "dal", "dalle", "dalla",
    "das", "do", "dos",
];

/// Words that open where it goes (folded).
#[rustfmt::skip]
const TO: &[&str] = &[
    "to", "till", "until", "a", "al", "au", "aux", "auf", "zu", "zum", "nach", "bis", "alle",
    "alla", "ai", "para", "pra", "pro", "ao", "as",
];

/// Words a field about where a thing is now is named by.
#[rustfmt::skip]
const FIELD_NOW: &[&str] = &[
    "old", "current", "previous", "original", "from", "existing", "prior", "initial", "source",
];

/// Whether a field's folded words name where a thing is now.
pub fn about_now(words: &[String]) -> bool {
    words.iter().any(|w| FIELD_NOW.contains(&w.as_str()))
}

/// How far after its "from" a "to" may stand.
const REACH: usize = 6;

/// Articles between "from" and its day or time ("from the 12th", "de las 10").
const ARTICLES: &[&str] = &[
    "the", "las", "la", "le", "el", "den", "dem", "il", "o", "a", "os",
];

/// Whether a day or a time starts at token `at` (after an article): a number, a weekday or a
/// month ("from 9:15", "de las 10", "from Tuesday"); "das Meeting" names none.
fn names_when(tokens: &[Token], at: usize) -> bool {
    let at = match tokens.get(at) {
        Some(t) if ARTICLES.contains(&t.folded.as_str()) => at + 1,
        _ => at,
    };
    tokens.get(at).is_some_and(|t| {
        t.kind == Kind::Number
            || super::dates::is_weekday(&t.folded)
            || super::dates::is_month(&t.folded)
    })
}

/// The byte ranges of `text` moved from: each [`FROM`] after a word of [`MOVING`] on its
/// line and before a day or time ([`names_when`]), to the [`TO`] at most [`REACH`] words
/// after it.
fn moved_from(text: &str, tokens: &[Token]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut moving = false;
    for (i, token) in tokens.iter().enumerate() {
        if i > 0 && text[tokens[i - 1].end..token.start].contains('\n') {
            moving = false;
        }
        if token.kind != Kind::Word {
            continue;
        }
        let word = token.folded.as_str();
        if MOVING.contains(&word) || MOVING_STEMS.iter().any(|stem| word.starts_with(stem)) {
            moving = true;
            continue;
        }
        // Where it goes said first ("to Friday from 14:00 to 15:00"): the "from" that follows
        // is the new slot's start.
        if moving && TO.contains(&token.folded.as_str()) && names_when(tokens, i + 1) {
            moving = false;
            continue;
        }
        let taken = out
            .last()
            .is_some_and(|r: &std::ops::Range<usize>| token.start < r.end);
        if !moving || taken || !FROM.contains(&token.folded.as_str()) || !names_when(tokens, i + 1)
        {
            continue;
        }
        let to = tokens[i + 1..]
            .iter()
            .take(REACH)
            .take_while(|t| !text[token.end..t.start].contains('\n'))
            .find(|t| t.kind == Kind::Word && TO.contains(&t.folded.as_str()));
        if let Some(to) = to {
            out.push(token.start..to.start);
        }
    }
    out
}

/// Words of what a thing was (folded): "era dia 15", "it was on the 15th", "c'était lundi".
const WAS: &[&str] = &[
    "was", "were", "era", "eram", "estaba", "estava", "fue", "foi", "etait", "war", "stava",
];

/// Words that set what follows against what was, as written: "era dia 15 mas desmarcaram"
/// (never "más", "more"); Italian "ma" only in Italian (French "ma" is "my").
const BUT: &[&str] = &["but", "pero", "mas", "mais", "aber", "however"];

/// The byte ranges of `text` that say when a thing was, where a "but" follows on its line:
/// from a word of [`WAS`] with a day or a time within its next three words to the [`BUT`]
/// at most [`REACH`] words after it ("Minha consulta era dia 15 mas desmarcaram", "la cita
/// era el lunes pero la pasamos al martes"). Without the "but", what was may still be
/// ("it was the 15th I booked").
fn was_but(evidence: &Evidence) -> Vec<std::ops::Range<usize>> {
    let (text, tokens) = (&evidence.text, &evidence.tokens);
    let italian = evidence.languages.main == Some("it");
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if token.kind != Kind::Word || !WAS.contains(&token.folded.as_str()) {
            continue;
        }
        let but = tokens[i + 1..]
            .iter()
            .take(REACH + 2)
            .take_while(|t| !text[token.end..t.start].contains('\n'))
            .find(|t| {
                t.kind == Kind::Word
                    && (BUT.contains(&t.lower.as_str()) || (italian && t.lower == "ma"))
            });
        let Some(but) = but else {
            continue;
        };
        // What was is a day or a time ("era a las 10 más o menos" names no "but"; "it was 3
        // people but" no day).
        let was = Evidence::new(&text[token.start..but.start], evidence.today);
        let when = !was.facts.dates.is_empty()
            || !was.facts.times.is_empty()
            || !was.facts.weekdays.is_empty();
        if when {
            out.push(token.start..but.start);
        }
    }
    out
}

/// The conversation split where it says what a thing is moved from: the evidence of those
/// parts and of the rest, or `None` where it moves nothing.
pub fn split(evidence: &Evidence) -> Option<(Evidence, Evidence)> {
    let text = &evidence.text;
    let mut from = moved_from(text, &evidence.tokens);
    for was in was_but(evidence) {
        if !from.iter().any(|r| r.start < was.end && was.start < r.end) {
            from.push(was);
        }
    }
    from.sort_by_key(|r| r.start);
    if from.is_empty() {
        return None;
    }
    Some(evidence.parted(&from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Option<(String, String)> {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 12, 10));
        split(&evidence).map(|(from, rest)| (from.text, rest.text))
    }

    #[test]
    fn when_a_thing_was_before_a_but() {
        let was = parts("Minha consulta era dia 15 mas desmarcaram, remarca pra quando tiver vaga");
        assert!(was.is_some_and(|(from, _)| from.starts_with("era dia 15")));
        let was = parts("la cita era el lunes pero la pasamos al martes");
        assert!(was.is_some_and(|(from, rest)| from.contains("lunes") && rest.contains("martes")));
        // No "but", or no day: nothing was set against.
        assert_eq!(parts("it was the 15th I booked, please confirm"), None);
        assert_eq!(
            parts("the room was fine but book another for the 15th"),
            None
        );
        assert_eq!(
            parts("Le rendez-vous était le 15 avec ma dentiste, confirme-le"),
            None
        );
        assert_eq!(
            parts("La reunión era a las 10 más o menos, ponme un recordatorio"),
            None
        );
        assert_eq!(parts("we were 3 people but now 4"), None);
        let was = parts("la riunione era lunedì ma l'hanno spostata");
        assert!(was.is_some_and(|(from, _)| from.contains("lunedì")));
    }

    #[test]
    fn what_a_thing_is_moved_from() {
        let pair = |from: &str, rest: &str| Some((from.to_owned(), rest.to_owned()));
        assert_eq!(
            parts("move my standup tomorrow from 9:15 to 9:45, i've got the school run"),
            pair(
                "from 9:15 . ",
                "move my standup tomorrow to 9:45, i've got the school run"
            )
        );
        assert_eq!(
            parts("sposta la cena dalle 20 alle 21"),
            pair("dalle 20 . ", "sposta la cena alle 21")
        );
        assert_eq!(
            parts("verschieb das Meeting von 10 auf 11 Uhr"),
            pair("von 10 . ", "verschieb das Meeting auf 11 Uhr")
        );
        // Nothing moved: a "from" with no moving, none before a day or time, or no "to"; a
        // noun that looks like moving; where it goes said before the "from".
        assert!(parts("Add my shift from 9:00 to 17:00 on Friday").is_none());
        assert!(parts("Generate the sales report from Monday to Friday").is_none());
        assert!(parts("Ich brauche einen anderen Termin von 10 bis 11 Uhr").is_none());
        assert!(parts("Reschedule the meeting to Friday from 14:00 to 15:00").is_none());
        assert!(parts("a flight from Lisbon to Madrid at 9:15").is_none());
        assert!(parts("move the call from the sales team, whenever").is_none());
        assert!(parts("move it from 3 whenever you like").is_none());
    }
}
