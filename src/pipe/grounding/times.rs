//! Recognizer `time`: the times of day the text says with a time cue, in English, Spanish,
//! French, German, Portuguese and Italian, as (hour, minute) on a 24-hour clock. A cue is a
//! clock ("10:30", "16h30", "9am", "20.30 Uhr", "2024-02-23T10:30"), a word before the number
//! ("at", "a las", "vers", "um", "às", "alle"), a word after it ("pm", "o'clock", "Uhr",
//! "heures", "horas", "ore"), a named hour ("noon", "medianoche", "Mitternacht") or a
//! fraction ("half past seven", "y media", "moins le quart", "halb acht" = 7:30). An hour of
//! 1 to 12 is read in the half of the day a meridiem or a day-part word next to it says
//! ("de la tarde", "abends"), and in both halves when nothing says which.
//!
//! Refused, because each is a number that is no time of day: a bare number ("room 12", "a
//! table for 4 people tonight"); a count or a duration after a cue word ("at 4 people", "in 2
//! hours", "dans 2 heures", "tra 2 ore"); an ordinal ("the 3rd"); a decimal with no cue
//! ("version 3.10"); "I am 10" ("am" before the number is a verb, not a meridiem).

use super::facts::{Context, Facts, Role};
use super::tokens::{Kind, Token};

/// Which half of the day an hour of 1 to 12 is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Half {
    /// Nothing says: both.
    Both,
    Am,
    Pm,
    /// "at night", "de la noche": 6 to 11 in the evening, 12 and 1 to 5 after midnight.
    Night,
    /// Written on a 24-hour clock ("08:30", "16h") or named ("noon").
    Exact,
}

/// How the number says it is a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cue {
    /// Not by itself: only after a cue word ("at 8").
    None,
    /// By an hour word that may also count hours ("8 heures", "20h", "8 horas"): not after a
    /// word of duration ("dans 2 heures").
    HourWord,
    /// A clock, a meridiem, "Uhr", "o'clock", a named hour or a fraction.
    Strong,
}

/// One time read at a token.
#[derive(Debug, Clone, Copy)]
struct Reading {
    hour: i64,
    minute: i64,
    /// The token after it.
    end: usize,
    half: Half,
    cue: Cue,
}

/// Words before a number that make it a time ("'" stands for either apostrophe). Words with
/// accents are matched as written ("às", "à": "as" and "a" are other words).
const BEFORE: &[&[&str]] = &[
    // English
    &["at"],
    &["@"],
    &["by"],
    &["until"],
    &["till"],
    &["til"],
    &["around"],
    &["about"],
    &["before"],
    &["after"],
    &["from"],
    // Spanish
    &["a", "las"],
    &["a", "la"],
    &["sobre", "las"],
    &["sobre", "la"],
    &["hacia", "las"],
    &["hacia", "la"],
    &["desde", "las"],
    &["desde", "la"],
    &["hasta", "las"],
    &["hasta", "la"],
    &["para", "las"],
    &["para", "la"],
    &["de", "las"],
    &["son", "las"],
    &["es", "la"],
    // French
    &["à"],
    &["vers"],
    &["avant"],
    &["apres"],
    &["dès"],
    // German
    &["um"],
    &["ab"],
    &["gegen"],
    &["bis"],
    // Portuguese
    &["às"],
    &["por", "volta", "das"],
    &["por", "volta", "da"],
    &["ate", "as"],
    &["depois", "das"],
    &["antes", "das"],
    &["a", "partir", "das"],
    &["pelas"],
    &["para", "as"],
    &["pras"],
    &["pra", "as"],
    &["da"],
    &["das"],
    // Italian
    &["alle"],
    &["ore"],
    &["verso", "le"],
    &["verso", "l", "'"],
    &["per", "le"],
    &["dopo", "le"],
    &["entro", "le"],
    &["delle"],
    &["dalle"],
    &["all", "'"],
];

/// Words that join the two ends of a range of times ("from 9 to 5", "de 8 a 10", "von 8 bis
/// 10"): the second end is a time when the first one is.
const RANGE_LINKS: &[&str] = &[
    "to", "till", "until", "-", "a", "à", "bis", "às", "as", "alle", "ate", "and", "y", "e", "et",
    "und",
];

/// Words that start a range of times, a cue only when the range goes on: "de 8 a 10".
const RANGE_STARTS: &[&str] = &["de", "von", "entre", "between", "zwischen", "desde", "tra"];

/// Words of duration before a number: "in 2 hours", "dans 2 heures", "für 2 Stunden".
const DURATION: &[&str] = &[
    "in", "en", "dans", "em", "tra", "fra", "within", "for", "durante", "pendant", "fur",
    "wahrend", "por", "per", "depuis", "seit", "hace", "dentro", "daqui", "cada", "every",
];

/// What a number counts when it is no hour: "at 4 people", "about 10 minutes".
const COUNTED: &[&str] = &[
    "second",
    "seconds",
    "sec",
    "secs",
    "minute",
    "minutes",
    "min",
    "mins",
    "hour",
    "hours",
    "hr",
    "hrs",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "night",
    "nights",
    "segundo",
    "segundos",
    "minuto",
    "minutos",
    "dia",
    "dias",
    "semana",
    "semanas",
    "mes",
    "meses",
    "ano",
    "anos",
    "noche",
    "noches",
    "noite",
    "noites",
    "seconde",
    "secondes",
    "jour",
    "jours",
    "semaine",
    "semaines",
    "mois",
    "an",
    "ans",
    "annee",
    "annees",
    "nuit",
    "nuits",
    "sekunde",
    "sekunden",
    "minuten",
    "stunde",
    "stunden",
    "tag",
    "tage",
    "tagen",
    "woche",
    "wochen",
    "monat",
    "monate",
    "monaten",
    "jahr",
    "jahre",
    "jahren",
    "nacht",
    "nachte",
    "secondo",
    "secondi",
    "minuti",
    "giorno",
    "giorni",
    "settimana",
    "settimane",
    "mese",
    "mesi",
    "anno",
    "anni",
    "notte",
    "notti",
    "people",
    "person",
    "persons",
    "guest",
    "guests",
    "adult",
    "adults",
    "kid",
    "kids",
    "child",
    "children",
    "persona",
    "personas",
    "personne",
    "personnes",
    "personen",
    "leute",
    "gaste",
    "pessoa",
    "pessoas",
    "persone",
    "ospiti",
    "adultos",
    "adultes",
    "erwachsene",
    "adulti",
    "%",
    "percent",
    "times",
    "veces",
    "fois",
    "mal",
    "vezes",
    "volte",
    "m",
    "km",
    "cm",
    "mm",
    "kg",
    "g",
    "l",
    "ml",
    "euro",
    "euros",
    "dollars",
    "usd",
    "eur",
    "€",
    "$",
    "x",
    "items",
    "tickets",
    "rooms",
    "seats",
    "stars",
    "points",
    "votes",
];

/// Words after the number that say it is an hour, and how strongly.
const AFTER: &[(&[&str], Cue)] = &[
    (&["uhr"], Cue::Strong),
    (&["o", "'", "clock"], Cue::Strong),
    (&["oclock"], Cue::Strong),
    (&["h"], Cue::HourWord),
    (&["hs"], Cue::HourWord),
    (&["heure"], Cue::HourWord),
    (&["heures"], Cue::HourWord),
    (&["hora"], Cue::HourWord),
    (&["horas"], Cue::HourWord),
    (&["ore"], Cue::HourWord),
];

/// Meridiems after the number.
const MERIDIEMS: &[(&[&str], Half)] = &[
    (&["am"], Half::Am),
    (&["a.m"], Half::Am),
    (&["a", ".", "m"], Half::Am),
    (&["pm"], Half::Pm),
    (&["p.m"], Half::Pm),
    (&["p", ".", "m"], Half::Pm),
    (&["noon"], Half::Pm),
    (&["midnight"], Half::Am),
];

/// Words German puts after "am" ("on the"): day parts, weekdays.
const GERMAN_AFTER_AM: &[&str] = &[
    "morgen",
    "vormittag",
    "mittag",
    "nachmittag",
    "nomittag",
    "namittag",
    "abend",
    "montag",
    "dienstag",
    "mittwoch",
    "donnerstag",
    "freitag",
    "samstag",
    "sonntag",
    "wochenende",
];

/// Fractions after the hour, in minutes: "ocho y media", "huit heures moins le quart".
const FRACTIONS: &[(&[&str], i64)] = &[
    (&["y", "media"], 30),
    (&["y", "cuarto"], 15),
    (&["menos", "cuarto"], -15),
    (&["et", "demie"], 30),
    (&["et", "demi"], 30),
    (&["et", "quart"], 15),
    (&["moins", "le", "quart"], -15),
    (&["moins", "quart"], -15),
    (&["e", "mezza"], 30),
    (&["e", "mezzo"], 30),
    (&["e", "un", "quarto"], 15),
    (&["e", "tre", "quarti"], 45),
    (&["meno", "un", "quarto"], -15),
    (&["e", "meia"], 30),
    (&["e", "um", "quarto"], 15),
    (&["menos", "um", "quarto"], -15),
];

/// Words between the hour and a number of minutes after it or before it: "las ocho y diez",
/// "neuf heures moins dix".
const MINUTES_AFTER: &[&str] = &["y", "e", "et"];
const MINUTES_BEFORE: &[&str] = &["menos", "moins", "meno"];

/// Fractions before the hour, in minutes: "half past seven", "Viertel vor acht", "halb acht".
const PREFIXES: &[(&[&str], i64)] = &[
    (&["half", "past"], 30),
    // British "half six" is 6:30 (German "halb sieben" is 6:30 too, counted back from 7).
    (&["half"], 30),
    (&["quarter", "past"], 15),
    (&["quarter", "after"], 15),
    (&["quarter", "to"], -15),
    (&["quarter", "of"], -15),
    (&["quarter", "till"], -15),
    (&["viertel", "nach"], 15),
    (&["viertel", "vor"], -15),
    (&["dreiviertel"], -15),
    // Austrian and Eastern German "viertel acht" is 7:15, counted back from 8.
    (&["viertel"], -45),
    (&["halb"], -30),
];

/// Words between a number of minutes and the hour: "twenty past seven", "zehn vor acht",
/// "quinze para as oito", and whether they count back.
const MINUTE_LINKS: &[(&[&str], bool)] = &[
    (&["past"], false),
    (&["minutes", "past"], false),
    (&["minutes", "to"], true),
    (&["nach"], false),
    (&["vor"], true),
    (&["para", "as"], true),
    (&["para", "a"], true),
    // Spoken Brazilian: "quinze pras sete", "dez pra uma".
    (&["pras"], true),
    (&["pra", "as"], true),
    (&["pra", "a"], true),
    (&["pra"], true),
    // Latin American Spanish: "veinte para las ocho", "diez para la una".
    (&["para", "las"], true),
    (&["para", "la"], true),
];

/// Named hours of the six languages.
const NAMED: &[(&[&str], i64)] = &[
    (&["noon"], 12),
    (&["midday"], 12),
    (&["midnight"], 0),
    (&["mediodia"], 12),
    (&["medianoche"], 0),
    (&["midi"], 12),
    (&["minuit"], 0),
    (&["mittag"], 12),
    (&["mitternacht"], 0),
    (&["meio", "-", "dia"], 12),
    (&["meio", "dia"], 12),
    (&["meia", "-", "noite"], 0),
    (&["meia", "noite"], 0),
    (&["mezzogiorno"], 12),
    (&["mezzanotte"], 0),
];

/// Day-part words that say the half of the day.
const DAY_PARTS: &[(&[&str], Half)] = &[
    (&["morning"], Half::Am),
    (&["mornings"], Half::Am),
    (&["la", "manana"], Half::Am),
    (&["esta", "manana"], Half::Am),
    (&["madrugada"], Half::Am),
    (&["matin"], Half::Am),
    (&["am", "morgen"], Half::Am),
    (&["heute", "morgen"], Half::Am),
    (&["morgens"], Half::Am),
    (&["vormittag"], Half::Am),
    (&["vormittags"], Half::Am),
    (&["fruh"], Half::Am),
    (&["manha"], Half::Am),
    (&["mattina"], Half::Am),
    (&["mattino"], Half::Am),
    (&["stamattina"], Half::Am),
    (&["afternoon"], Half::Pm),
    (&["evening"], Half::Pm),
    (&["tarde"], Half::Pm),
    (&["apres", "-", "midi"], Half::Pm),
    (&["apres", "midi"], Half::Pm),
    (&["soir"], Half::Pm),
    (&["soiree"], Half::Pm),
    (&["nachmittag"], Half::Pm),
    (&["nachmittags"], Half::Pm),
    // Swiss German.
    (&["nomittag"], Half::Pm),
    (&["namittag"], Half::Pm),
    (&["abend"], Half::Pm),
    (&["abends"], Half::Pm),
    (&["pomeriggio"], Half::Pm),
    // The evening meal says the evening ("le souper est à six heures": Québec's supper).
    (&["dinner"], Half::Pm),
    (&["supper"], Half::Pm),
    (&["souper"], Half::Pm),
    (&["cena"], Half::Pm),
    (&["abendessen"], Half::Pm),
    (&["jantar"], Half::Pm),
    (&["sera"], Half::Pm),
    (&["stasera"], Half::Pm),
    (&["tonight"], Half::Night),
    (&["night"], Half::Night),
    (&["noche"], Half::Night),
    (&["nuit"], Half::Night),
    (&["nacht"], Half::Night),
    (&["nachts"], Half::Night),
    (&["noite"], Half::Night),
    (&["notte"], Half::Night),
    (&["stanotte"], Half::Night),
];

/// The phrases of a day part that follow an hour and make it one ("make it 4 in the
/// afternoon", "las 8 de la tarde", "9 du matin", "8 abends", "9 da manhã", "8 di sera").
const DAY_PART_AFTER: &[&[&str]] = &[
    &["in", "the", "morning"],
    &["in", "the", "afternoon"],
    &["in", "the", "evening"],
    &["at", "night"],
    &["de", "la", "manana"],
    &["de", "la", "tarde"],
    &["de", "la", "noche"],
    &["du", "matin"],
    &["du", "soir"],
    &["de", "l", "'", "apres", "-", "midi"],
    &["abends"],
    &["morgens"],
    &["nachmittags"],
    &["da", "manha"],
    &["da", "tarde"],
    &["da", "noite"],
    &["di", "mattina"],
    &["del", "mattino"],
    &["del", "pomeriggio"],
    &["di", "pomeriggio"],
    &["di", "sera"],
    &["della", "sera"],
    &["di", "notte"],
];

/// Words before a number that count people: "for 4 in the evening" is a party of four.
const FOR_PEOPLE: &[&str] = &["for", "para", "pour", "per", "fur", "pra"];

/// Whether an hour of 1 to 12 at `at` has a day part right after it, and no word before it
/// that makes it a count of people.
fn day_part_right_after(tokens: &[Token], at: usize, reading: &Reading) -> bool {
    (1..=12).contains(&reading.hour)
        && !(at >= 1 && is_one_of(&tokens[at - 1], FOR_PEOPLE))
        && DAY_PART_AFTER
            .iter()
            .any(|phrase| phrase_at(tokens, reading.end, phrase))
}

/// "una prova de 4 horas", "un viaggio di 3 ore": a number of hours after "de" or "di" is how
/// long a thing lasts, unless a range goes on from it ("de 8 horas a 10 horas"). Not French
/// "heures", whose "le train de 8 heures" is a time.
fn hours_long(tokens: &[Token], facts: &Facts, i: usize, reading: &Reading) -> bool {
    let of = i >= 1 && matches!(tokens[i - 1].folded.as_str(), "de" | "di");
    let hours = tokens
        .get(reading.end.saturating_sub(1))
        .is_some_and(|t| matches!(t.folded.as_str(), "hora" | "horas" | "ora" | "ore"));
    // "sono otto ore avanti", "they're 8 hours ahead": a difference between clocks.
    let apart = tokens
        .get(reading.end)
        .is_some_and(|t| is_one_of(t, AHEAD_OR_BEHIND));
    (of && hours && !range_after(tokens, facts, i, reading)) || apart
}

/// Words after a number of hours that make it a difference between clocks: "8 hours ahead",
/// "otto ore avanti", "6 Stunden voraus", "3 heures de décalage".
const AHEAD_OR_BEHIND: &[&str] = &[
    "ahead",
    "behind",
    "avanti",
    "indietro",
    "adelante",
    "adelantados",
    "atras",
    "atrasados",
    "voraus",
    "zuruck",
    "hinterher",
    "decalage",
    "frente",
    "diferenca",
    "diferencia",
    "differenza",
    "unterschied",
    "difference",
];

/// Fills [`Facts::times`].
pub fn read(tokens: &[Token], _context: &Context, facts: &mut Facts) {
    let mut accepted_ends: Vec<usize> = Vec::new();
    let mut found = Vec::new();
    // Past a time read, its own tokens ("seven" of "twenty past seven") are not read again.
    let mut next = 0;
    for i in 0..tokens.len() {
        if i < next {
            continue;
        }
        if let Some(reading) = prefixed_at(tokens, facts, i) {
            found.push((i, reading));
            accepted_ends.push(reading.end);
            next = reading.end;
            continue;
        }
        let Some(reading) = reading_at(tokens, facts, i) else {
            continue;
        };
        let duration = i >= 1 && is_one_of(&tokens[i - 1], DURATION);
        let accepted = match reading.cue {
            Cue::Strong => true,
            Cue::HourWord => !duration && !hours_long(tokens, facts, i, &reading),
            Cue::None => {
                !duration
                    && (cue_before(tokens, i)
                        || day_part_right_after(tokens, i, &reading)
                        || range_after(tokens, facts, i, &reading)
                        || (i >= 2
                            && accepted_ends.contains(&(i - 1))
                            && is_one_of(&tokens[i - 1], RANGE_LINKS)))
            }
        };
        if accepted && !counted_after(tokens, facts, reading.end) {
            found.push((i, reading));
            accepted_ends.push(reading.end);
            next = reading.end;
        }
    }
    // "duas horas antes" is a duration, no two o'clock.
    let durations = offsets(tokens, facts, &found);
    found.retain(|(start, reading)| {
        !durations
            .iter()
            .any(|span| *start < span.end && span.start < reading.end)
    });
    for (start, reading) in found {
        emit(facts, reading);
        // Its numbers are an hour and minutes: "a las ocho" says no party of 8. But a bare
        // number that a thing is set to ("mets le chauffage à dix-neuf"), or that only a day
        // part follows ("I ran 10 in the morning"), may be the setting or a count: both
        // readings stay.
        let bare = reading.cue == Cue::None
            && (set_to(tokens, start)
                || (!cue_before(tokens, start) && day_part_right_after(tokens, start, &reading)));
        if !bare {
            facts.bind(start..reading.end, Role::Time);
        }
    }
}

/// Words after a duration that put a time that long before another: "une demi-heure
/// avant", "duas horas antes", "an hour earlier".
const EARLIER: &[&str] = &[
    "before", "earlier", "antes", "avant", "vorher", "fruher", "davor", "prima",
];
/// And after it: "two hours later", "una hora después", "eine Stunde danach".
const LATER: &[&str] = &[
    "after", "later", "despues", "apres", "danach", "spater", "depois", "dopo",
];
/// Units of a duration before [`EARLIER`] or [`LATER`], in minutes.
const UNITS: &[(&[&str], i64)] = &[
    (
        &[
            "hour", "hours", "hora", "horas", "heure", "heures", "h", "stunde", "stunden", "ora",
            "ore", "hr", "hrs",
        ],
        60,
    ),
    (
        &[
            "minute", "minutes", "min", "mins", "minuto", "minutos", "minuten", "minuti",
        ],
        1,
    ),
];

/// Times said as a duration before or after the times said ("le rdv est à 14h30, rappelle-
/// moi une demi-heure avant" says 14:00): each time read, moved by each such duration. Returns
/// the durations' tokens.
fn offsets(
    tokens: &[Token],
    facts: &mut Facts,
    found: &[(usize, Reading)],
) -> Vec<std::ops::Range<usize>> {
    // Each duration's minutes, and the tokens it stands in: "duas horas" read as a time too
    // is no time to move.
    let mut moves: Vec<(i64, std::ops::Range<usize>)> = Vec::new();
    for (j, token) in tokens.iter().enumerate() {
        let sign = if is_one_of(token, EARLIER) {
            -1
        } else if is_one_of(token, LATER) {
            1
        } else {
            continue;
        };
        // The duration's word ends its clause: "une demi-heure avant", never "à 8 heures
        // avant l'ouverture" (a time before a thing).
        if tokens.get(j + 1).is_some_and(|t| t.kind != Kind::Punct) {
            continue;
        }
        if let Some((minutes, from)) = duration_ending(tokens, facts, j) {
            moves.push((sign * minutes, from..j));
        }
    }
    if moves.is_empty() {
        return Vec::new();
    }
    let said: Vec<(i8, i8)> = found
        .iter()
        .filter(|(start, reading)| {
            !moves
                .iter()
                .any(|(_, span)| *start < span.end && span.start < reading.end)
        })
        .flat_map(|(_, reading)| clock_times(*reading))
        .collect();
    for (hour, minute) in said {
        facts.anchors.insert((hour, minute));
        for (by, _) in &moves {
            let at = (i64::from(hour) * 60 + i64::from(minute) + by).rem_euclid(24 * 60);
            if let (Ok(hour), Ok(minute)) = (i8::try_from(at / 60), i8::try_from(at % 60)) {
                facts.times.insert((hour, minute));
            }
        }
    }
    moves.into_iter().map(|(_, span)| span).collect()
}

/// The minutes of a duration said right before the token at `j`: a number and its unit
/// ("duas horas", "30 min"), "an hour", or a phrase ("une demi-heure", "a quarter of an
/// hour").
fn duration_ending(tokens: &[Token], facts: &Facts, j: usize) -> Option<(i64, usize)> {
    let unit = j.checked_sub(1).and_then(|i| tokens.get(i))?;
    if let Some((_, per)) = UNITS.iter().find(|(words, _)| is_one_of(unit, words)) {
        let number = facts
            .number_spans
            .iter()
            .find(|n| n.end == j - 1 && n.value > 0.0 && n.value <= 48.0)
            .map(|n| (n.value, n.start))
            .or_else(|| {
                // "an hour", "una hora", "eine Stunde": one, where no number was read.
                (j >= 2
                    && matches!(
                        tokens[j - 2].folded.as_str(),
                        "an" | "a" | "un" | "una" | "une" | "um" | "uma" | "ein" | "eine"
                    ))
                .then_some((1.0, j - 2))
            });
        if let Some((number, from)) = number {
            #[allow(clippy::cast_possible_truncation)]
            return Some(((number * *per as f64).round() as i64, from));
        }
    }
    super::quantity::PHRASES
        .iter()
        .find_map(|(words, minutes)| {
            let from = j.checked_sub(words.len())?;
            let matches = tokens[from..j]
                .iter()
                .zip(words.iter())
                .all(|(t, w)| t.folded == *w);
            #[allow(clippy::cast_possible_truncation)]
            (matches && *minutes < 24.0 * 60.0).then_some((*minutes as i64, from))
        })
}

/// Verbs that set a thing to a value, in the six languages (imperatives and infinitives).
pub(super) const SET_VERBS: &[&str] = &[
    "set",
    "put",
    "turn",
    "adjust",
    "change",
    "mets",
    "mettez",
    "mettre",
    "regle",
    "reglez",
    "regler",
    "passe",
    "passez",
    "monte",
    "baisse",
    "pon",
    "ponga",
    "ponle",
    "poner",
    "ajusta",
    "sube",
    "baja",
    "stell",
    "stelle",
    "stellen",
    "setz",
    "setze",
    "dreh",
    "coloca",
    "coloque",
    "poe",
    "ponha",
    "ajuste",
    "muda",
    "metti",
    "imposta",
    "regola",
    "porta",
    // Set back, and with the thing as a pronoun: "redescends à 20", "mettilo a 22".
    "redescends",
    "descends",
    "remonte",
    "remets",
    "rimetti",
    "riporta",
    "mettilo",
    "mettila",
    "ponlo",
    "ponla",
    "poelo",
    "poela",
];

/// "at"/"à" before the number at `at`, with a verb that sets a thing earlier in its sentence:
/// "set the heating at 19", "mets le chauffage à dix-neuf".
fn set_to(tokens: &[Token], at: usize) -> bool {
    at >= 1
        && is_one_of(&tokens[at - 1], &["at", "à"])
        && tokens[..at - 1]
            .iter()
            .rev()
            .take_while(|t| !matches!(t.lower.as_str(), "." | "!" | "?" | ";"))
            .any(|t| SET_VERBS.contains(&t.folded.as_str()))
}

/// Whether `token` is `word`: by its folded form, or as written when `word` has accents.
fn word_is(token: &Token, word: &str) -> bool {
    if word == "'" {
        return matches!(token.lower.as_str(), "'" | "’");
    }
    if word.is_ascii() {
        token.folded == word
    } else {
        token.lower == word
    }
}

fn is_one_of(token: &Token, words: &[&str]) -> bool {
    words.iter().any(|w| word_is(token, w))
}

/// Whether `words` are the tokens from `at` on.
fn phrase_at(tokens: &[Token], at: usize, words: &[&str]) -> bool {
    words
        .iter()
        .enumerate()
        .all(|(k, word)| tokens.get(at + k).is_some_and(|t| word_is(t, word)))
}

/// Whether `words` are the tokens right before `at`.
fn phrase_before(tokens: &[Token], at: usize, words: &[&str]) -> bool {
    at.checked_sub(words.len())
        .is_some_and(|start| phrase_at(tokens, start, words))
}

/// The longest entry of `table` at `at`, with the token after it.
fn longest_at<T: Copy>(tokens: &[Token], at: usize, table: &[(&[&str], T)]) -> Option<(T, usize)> {
    table
        .iter()
        .filter(|(words, _)| phrase_at(tokens, at, words))
        .max_by_key(|(words, _)| words.len())
        .map(|(words, value)| (*value, at + words.len()))
}

fn cue_before(tokens: &[Token], at: usize) -> bool {
    BEFORE.iter().any(|words| phrase_before(tokens, at, words))
}

/// "de 8 a 10", "von 8 bis 10", "between 9 and 11": a range start, then a link and a number.
fn range_after(tokens: &[Token], facts: &Facts, at: usize, reading: &Reading) -> bool {
    at >= 1
        && is_one_of(&tokens[at - 1], RANGE_STARTS)
        && tokens
            .get(reading.end)
            .is_some_and(|t| is_one_of(t, RANGE_LINKS))
        && reading_at(tokens, facts, reading.end + 1).is_some()
}

/// A count after the number ("4 people", "2 hours"), also at the far end of a range ("from 2
/// to 4 people").
fn counted_after(tokens: &[Token], facts: &Facts, end: usize) -> bool {
    let Some(next) = tokens.get(end) else {
        return false;
    };
    if is_one_of(next, COUNTED) {
        return true;
    }
    if is_one_of(next, RANGE_LINKS) {
        if let Some(far) = reading_at(tokens, facts, end + 1) {
            return tokens.get(far.end).is_some_and(|t| is_one_of(t, COUNTED));
        }
    }
    false
}

/// An hour in digits: "9", "09", "23" (and "23t10" of "2026-11-23T10", which is 10).
fn clock_hour(token: &Token) -> Option<(i64, bool)> {
    if token.kind != Kind::Number {
        return None;
    }
    let text = token
        .lower
        .split_once('t')
        .map_or(token.lower.as_str(), |(_, hour)| hour);
    if text.is_empty() || text.len() > 2 || !text.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let hour: i64 = text.parse().ok()?;
    (hour <= 24).then_some((hour, text.len() == 2 && text.starts_with('0')))
}

/// A suffix written onto the digits: "9am", "16h", "30pm".
fn suffix_cue(suffix: &str) -> Option<(Half, Cue)> {
    match suffix {
        "" => Some((Half::Both, Cue::None)),
        "am" | "a.m" => Some((Half::Am, Cue::Strong)),
        "pm" | "p.m" => Some((Half::Pm, Cue::Strong)),
        "uhr" => Some((Half::Both, Cue::Strong)),
        "h" | "hs" => Some((Half::Both, Cue::HourWord)),
        _ => None,
    }
}

/// Two digits of minutes and what is written onto them: "30", "30am", "30h".
fn minutes_of(text: &str) -> Option<(i64, &str)> {
    let digits = text.get(..2)?;
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let minute: i64 = digits.parse().ok()?;
    (minute < 60).then_some((minute, &text[2..]))
}

/// One token holding a time: "16h", "16h30", "9am", "9.30pm", "20.30", "8".
fn compact(token: &Token) -> Option<(i64, i64, Half, Cue)> {
    if token.kind != Kind::Number {
        return None;
    }
    let text = token.lower.as_str();
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (hour_text, rest) = text.split_at(end);
    if hour_text.is_empty() || hour_text.len() > 2 {
        return None;
    }
    let hour: i64 = hour_text.parse().ok()?;
    let leading_zero = hour_text.len() == 2 && hour_text.starts_with('0');
    let (minute, suffix, marked) = if let Some(after) = rest.strip_prefix('.') {
        let (minute, suffix) = minutes_of(after)?;
        (minute, suffix, false)
    } else if let Some(after) = rest
        .strip_prefix('h')
        .filter(|a| !a.is_empty() && *a != "s")
    {
        let (minute, suffix) = minutes_of(after)?;
        (minute, suffix, true)
    } else {
        (0, rest, false)
    };
    let (mut half, mut cue) = suffix_cue(suffix)?;
    if marked {
        cue = Cue::HourWord;
    }
    if leading_zero && half == Half::Both {
        half = Half::Exact;
    }
    (hour <= 24).then_some((hour, minute, half, cue))
}

/// A whole number of 0 to 24 written in words at `at` ("ocho", "twenty"), or "una", "uma",
/// "une" where the words around make it one o'clock ("a la una", "à uma", "une heure").
fn word_hour(tokens: &[Token], facts: &Facts, at: usize) -> Option<(i64, usize)> {
    if let Some(span) = facts
        .number_spans
        .iter()
        .filter(|s| {
            s.start == at
                && s.in_words
                && !s.ordinal
                && s.value.fract() == 0.0
                && (0.0..=24.0).contains(&s.value)
        })
        .max_by_key(|s| s.end)
    {
        return Some((span.value as i64, span.end));
    }
    let token = tokens.get(at)?;
    let hour_word_after = longest_at(tokens, at + 1, AFTER).is_some();
    let one = match token.folded.as_str() {
        "una" => hour_word_after || (at >= 1 && is_one_of(&tokens[at - 1], &["la", "'"])),
        "uma" => hour_word_after || (at >= 1 && is_one_of(&tokens[at - 1], &["à", "da", "pela"])),
        "une" | "eins" | "ein" => hour_word_after,
        _ => false,
    };
    one.then_some((1, at + 1))
}

/// A named hour at `at`: "noon", "meia-noite"; not the "midi" of "après-midi".
fn named_at(tokens: &[Token], at: usize) -> Option<(i64, usize)> {
    let (hour, end) = longest_at(tokens, at, NAMED)?;
    if tokens[at].folded == "midi"
        && (phrase_before(tokens, at, &["apres", "-"]) || phrase_before(tokens, at, &["apres"]))
    {
        return None;
    }
    Some((hour, end))
}

/// The time read from token `at`: its hour (a clock, digits, words or a name), then what
/// follows it (an hour word and minutes, a fraction, a meridiem), then the half of the day.
fn reading_at(tokens: &[Token], facts: &Facts, at: usize) -> Option<Reading> {
    let token = tokens.get(at)?;
    // Not the minutes or seconds of a clock begun before.
    if at >= 1 && tokens[at - 1].lower == ":" && !token.spaced {
        return None;
    }
    let mut reading = hour_at(tokens, facts, at)?;
    hour_word_after(tokens, facts, &mut reading);
    minutes_after(tokens, facts, at, &mut reading);
    meridiem_after(tokens, &mut reading);
    normalize(&mut reading)?;
    if reading.half == Half::Both {
        if let Some(half) = day_part_near(tokens, at, reading.end) {
            reading.half = half;
        }
    }
    Some(reading)
}

/// A colon at `i` with no space around it: the ":" of "10:30" and of "10:30:00".
fn clock_colon(tokens: &[Token], i: usize) -> bool {
    let joined = |i: usize| tokens.get(i).is_some_and(|t| !t.spaced);
    tokens.get(i).is_some_and(|t| t.lower == ":") && joined(i) && joined(i + 1)
}

/// The hour at token `at`, as a clock, a name, one token or words, before what follows it.
fn hour_at(tokens: &[Token], facts: &Facts, at: usize) -> Option<Reading> {
    let token = tokens.get(at)?;
    Some(
        if let (Some((hour, zero)), true) = (clock_hour(token), clock_colon(tokens, at + 1)) {
            clock_at(tokens, at, hour, zero)?
        } else if let Some((hour, end)) = named_at(tokens, at) {
            Reading {
                hour,
                minute: 0,
                end,
                half: Half::Exact,
                cue: Cue::Strong,
            }
        } else if let Some((hour, minute, half, cue)) = compact(token) {
            Reading {
                hour,
                minute,
                end: at + 1,
                half,
                cue,
            }
        } else if let Some((hour, end)) = word_hour(tokens, facts, at) {
            Reading {
                hour,
                minute: 0,
                end,
                half: Half::Both,
                cue: Cue::None,
            }
        } else {
            return None;
        },
    )
}

/// A clock of `hour` (`zero`: written with a leading zero) at `at`: "10:30", "10:30:00",
/// "9:30pm".
fn clock_at(tokens: &[Token], at: usize, hour: i64, zero: bool) -> Option<Reading> {
    let (minute, suffix) = minutes_of(&tokens.get(at + 2)?.lower)?;
    let (half, _) = suffix_cue(suffix)?;
    let mut end = at + 3;
    if clock_colon(tokens, end) {
        end += 2;
    }
    let half = if zero && half == Half::Both {
        Half::Exact
    } else {
        half
    };
    Some(Reading {
        hour,
        minute,
        end,
        half,
        cue: Cue::Strong,
    })
}

/// "8 heures", "20 Uhr", "9 o'clock" after a plain hour, then maybe its minutes: "8 heures
/// 30", "20 Uhr 15".
fn hour_word_after(tokens: &[Token], facts: &Facts, reading: &mut Reading) {
    if reading.cue != Cue::None || reading.minute != 0 {
        return;
    }
    if let Some((cue, end)) = longest_at(tokens, reading.end, AFTER) {
        reading.cue = cue;
        reading.end = end;
        if let Some(minute) = minutes_at(tokens, facts, end) {
            reading.minute = minute.0;
            reading.end = minute.1;
        }
    }
}

/// "y media", "et quart", "meno un quarto"; or "y diez", "moins dix" after a cued hour
/// (the hour read from `at`).
fn minutes_after(tokens: &[Token], facts: &Facts, at: usize, reading: &mut Reading) {
    if reading.minute != 0 {
        return;
    }
    if let Some((delta, end)) = longest_at(tokens, reading.end, FRACTIONS) {
        reading.minute = delta;
        reading.end = end;
        reading.cue = Cue::Strong;
    } else if let Some(link) = tokens.get(reading.end) {
        let sign = if is_one_of(link, MINUTES_AFTER) {
            Some(1)
        } else if is_one_of(link, MINUTES_BEFORE) {
            Some(-1)
        } else {
            None
        };
        if let Some(sign) = sign {
            if let Some((minute, end)) = minutes_at(tokens, facts, reading.end + 1) {
                if minute > 0 && (reading.cue != Cue::None || cue_before(tokens, at)) {
                    reading.minute = sign * minute;
                    reading.end = end;
                }
            }
        }
    }
}

/// "9 pm", "9 a.m.", "12 noon": the half of the day written after the time.
fn meridiem_after(tokens: &[Token], reading: &mut Reading) {
    if !(reading.half == Half::Both || reading.half == Half::Exact && reading.hour <= 12) {
        return;
    }
    if let Some((half, end)) = longest_at(tokens, reading.end, MERIDIEMS) {
        // German "am" before a day part, a weekday or a day is "on the": "drei am
        // Nachmittag" is 15:00, "um 9 am Montag" no a.m.
        let german_am = tokens[reading.end].folded == "am"
            && tokens.get(end).is_some_and(|t| {
                t.kind == Kind::Number || GERMAN_AFTER_AM.contains(&t.folded.as_str())
            });
        if german_am {
            return;
        }
        if reading.half == Half::Both || reading.cue == Cue::HourWord {
            reading.half = half;
            reading.cue = Cue::Strong;
            reading.end = end;
            if tokens.get(end).is_some_and(|t| t.lower == "." && !t.spaced) {
                reading.end += 1;
            }
        }
    }
}

/// Minutes after an hour word or a link: "30", "quince", from 0 to 59.
fn minutes_at(tokens: &[Token], facts: &Facts, at: usize) -> Option<(i64, usize)> {
    let token = tokens.get(at)?;
    if token.kind == Kind::Number {
        if !token.lower.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let minute: i64 = token.lower.parse().ok()?;
        return (minute < 60).then_some((minute, at + 1));
    }
    facts
        .number_spans
        .iter()
        .filter(|s| s.start == at && s.in_words && !s.ordinal && s.value.fract() == 0.0)
        .filter(|s| (0.0..60.0).contains(&s.value))
        .max_by_key(|s| s.end)
        .map(|s| (s.value as i64, s.end))
}

/// "half past seven", "quarter to 8", "twenty past seven", "Viertel vor acht", "halb acht",
/// "zehn nach acht", "quinze para as oito", starting at `at`.
fn prefixed_at(tokens: &[Token], facts: &Facts, at: usize) -> Option<Reading> {
    let (delta, hour_at) = if let Some((delta, end)) = longest_at(tokens, at, PREFIXES) {
        (delta, end)
    } else if let Some((delta, end)) = ["a", "an"]
        .iter()
        .any(|a| word_is(&tokens[at], a))
        .then(|| longest_at(tokens, at + 1, PREFIXES))
        .flatten()
    {
        // "a quarter past seven".
        (delta, end)
    } else {
        let (minutes, end) = minutes_at(tokens, facts, at)?;
        if !(1..=30).contains(&minutes) {
            return None;
        }
        let in_words = facts
            .number_spans
            .iter()
            .any(|s| s.start == at && s.in_words);
        if let Some((back, link_end)) = longest_at(tokens, end, MINUTE_LINKS) {
            // "para"/"pra" also mean "for": only minutes in words, in fives, and not right
            // after another "para" ("mesa para 4 para las 9" is a party of 4 at nine).
            let spoken = tokens
                .get(end)
                .is_some_and(|t| matches!(t.folded.as_str(), "para" | "pra" | "pras"));
            let end = link_end;
            let for_before = at >= 1 && is_one_of(&tokens[at - 1], &["para", "pra", "for", "por"]);
            if spoken && (!in_words || minutes % 5 != 0 || for_before) {
                return None;
            }
            (if back { -minutes } else { minutes }, end)
        } else {
            // "ten to eight", in words only: "9 to 5", "from ten to eight" are ranges.
            let range = at >= 1 && is_one_of(&tokens[at - 1], &["from", "between"]);
            if !(phrase_at(tokens, end, &["to"])
                && in_words
                && !range
                && [5, 10, 20, 25].contains(&minutes))
            {
                return None;
            }
            (-minutes, end + 1)
        }
    };
    let mut reading = reading_at(tokens, facts, hour_at)?;
    if reading.minute != 0 {
        return None;
    }
    if counted_after(tokens, facts, reading.end) {
        return None;
    }
    // Bare "half" before a number is an hour only where no thing follows ("half 12 eggs").
    if hour_at == at + 1 && word_is(&tokens[at], "half") && names_a_thing(tokens, reading.end) {
        return None;
    }
    reading.minute = delta;
    reading.cue = Cue::Strong;
    normalize(&mut reading)?;
    if reading.half == Half::Both {
        if let Some(half) = day_part_near(tokens, at, reading.end) {
            reading.half = half;
        }
    }
    Some(reading)
}

/// A content word at `at` that is no word of time: what a number before it counts.
fn names_a_thing(tokens: &[Token], at: usize) -> bool {
    tokens.get(at).is_some_and(|t| {
        t.kind == Kind::Word
            && !super::language::function_word(&t.folded)
            && longest_at(tokens, at, DAY_PARTS).is_none()
            && !is_one_of(
                t,
                &[
                    "tomorrow", "tonight", "today", "pm", "am", "o'clock", "sharp",
                ],
            )
    })
}

/// Minutes out of 0..60 carried into the hour ("halb acht" is 7:30, "la una menos cuarto"
/// 12:45); `None` when it is no time of day.
fn normalize(reading: &mut Reading) -> Option<()> {
    if reading.hour > 24 || reading.minute.abs() >= 60 {
        return None;
    }
    if reading.hour == 24 {
        if reading.minute != 0 {
            return None;
        }
        reading.half = Half::Exact;
    }
    let total = (reading.hour * 60 + reading.minute).rem_euclid(24 * 60);
    let mut hour = total / 60;
    // "la una menos cuarto" on a 12-hour clock: 12:45 (and 0:45).
    if reading.minute < 0 && hour == 0 && reading.half != Half::Exact {
        hour = 12;
    }
    reading.hour = hour;
    reading.minute = total % 60;
    Some(())
}

/// The half of the day a day-part word near tokens `start..end` says: "tonight at 8", "a las
/// 8 de la tarde", "um 8 Uhr abends"; or, where none is that near, the nearest one in the
/// same sentence ("a las 9 para sacar al perro esta noche").
fn day_part_near(tokens: &[Token], start: usize, end: usize) -> Option<Half> {
    let ends_sentence = |j: usize| matches!(tokens[j].lower.as_str(), "." | "!" | "?" | ";");
    let from = (0..start)
        .rev()
        .find(|&j| ends_sentence(j))
        .map_or(0, |j| j + 1);
    let to = (end..tokens.len())
        .find(|&j| ends_sentence(j))
        .unwrap_or(tokens.len());
    (from..to)
        .filter(|&j| j < start || j >= end)
        .filter_map(|j| {
            let (half, after) = longest_at(tokens, j, DAY_PARTS)?;
            // "mañana", "Morgen" alone are tomorrow; the entries above say "la mañana".
            let distance = j.abs_diff(start).min(j.abs_diff(end));
            // "tarde" alone away from the time is late, no afternoon ("a las 7, que mañana
            // entro más tarde"), unless an article or a preposition says it is one ("a las 5
            // para salir esta tarde").
            let late = after == j + 1
                && tokens[j].folded == "tarde"
                && distance > 1
                && !j.checked_sub(1).is_some_and(|k| {
                    is_one_of(
                        &tokens[k],
                        &[
                            "la", "esta", "de", "da", "na", "a", "por", "pela", "essa", "nesta",
                            "toda",
                        ],
                    )
                });
            if late {
                return None;
            }
            Some((distance, half))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, half)| half)
}

/// The (hour, minute) pairs of a reading on a 24-hour clock.
fn emit(facts: &mut Facts, reading: Reading) {
    facts.times.extend(clock_times(reading));
}

/// The times of day a reading says, on a 24-hour clock (both halves of the day where it
/// names neither).
fn clock_times(reading: Reading) -> Vec<(i8, i8)> {
    let (hour, minute) = (reading.hour % 24, reading.minute);
    let (Ok(minute), true) = (i8::try_from(minute), (0..60).contains(&minute)) else {
        return Vec::new();
    };
    let hours: Vec<i64> = match reading.half {
        Half::Exact => vec![hour],
        Half::Both if hour == 0 || hour == 12 => vec![0, 12],
        Half::Both if hour < 12 => vec![hour, hour + 12],
        Half::Am if hour == 12 => vec![0],
        Half::Pm if hour == 0 => vec![12],
        Half::Pm if hour < 12 => vec![hour + 12],
        Half::Night if hour == 12 => vec![0],
        Half::Night if (6..12).contains(&hour) => vec![hour + 12],
        _ => vec![hour],
    };
    hours
        .into_iter()
        .filter_map(|hour| i8::try_from(hour).ok())
        .map(|hour| (hour, minute))
        .collect()
}

#[cfg(test)]
mod tests {

    fn times(text: &str) -> Vec<(i8, i8)> {
        let facts = super::super::facts::read_for_test(text);
        let mut out: Vec<(i8, i8)> = facts.times.into_iter().collect();
        out.sort();
        out
    }

    #[test]
    fn a_time_said_as_a_duration_before_or_after_another() {
        assert_eq!(
            times("le rdv est à 14h30, rappelle-moi une demi-heure avant"),
            [(14, 0), (14, 30)]
        );
        assert_eq!(
            times("meu voo sai 22h10, chama o uber pra duas horas antes"),
            [(20, 10), (22, 10)]
        );
        assert_eq!(
            times("Termin um 9 Uhr, erinnere mich eine Stunde vorher"),
            [(8, 0), (9, 0), (20, 0), (21, 0)]
        );
        assert_eq!(
            times("at 3pm, and ping me 15 minutes after"),
            [(15, 0), (15, 15)]
        );
        // A duration with no time said moves nothing; nor does a time with no duration
        // before "before".
        assert!(times("remind me 2 hours before the flight").is_empty());
        assert_eq!(times("at 3pm, before the rush"), [(15, 0)]);
        assert_eq!(
            times("Réserve la salle à 8 heures avant l'ouverture"),
            [(8, 0), (20, 0)]
        );
    }

    #[test]
    fn clocks() {
        assert_eq!(times("10:30"), [(10, 30), (22, 30)]);
        assert_eq!(times("10:30:00"), [(10, 30), (22, 30)]);
        assert_eq!(times("16:45"), [(16, 45)]);
        assert_eq!(times("08:30"), [(8, 30)]);
        assert_eq!(times("24:00"), [(0, 0)]);
        assert_eq!(times("16h"), [(16, 0)]);
        assert_eq!(times("16h30"), [(16, 30)]);
        assert_eq!(times("16 h"), [(16, 0)]);
        assert_eq!(times("9am"), [(9, 0)]);
        assert_eq!(times("9 am"), [(9, 0)]);
        assert_eq!(times("9 a.m."), [(9, 0)]);
        assert_eq!(times("9pm"), [(21, 0)]);
        assert_eq!(times("9:30pm"), [(21, 30)]);
        assert_eq!(times("12 am"), [(0, 0)]);
        assert_eq!(times("12 pm"), [(12, 0)]);
        assert_eq!(times("9 o'clock"), [(9, 0), (21, 0)]);
        assert_eq!(times("um 20.30 Uhr"), [(20, 30)]);
        assert_eq!(times("2024-02-23 10:30:00"), [(10, 30), (22, 30)]);
        assert_eq!(times("2024-02-23T10:30"), [(10, 30), (22, 30)]);
    }

    #[test]
    fn the_evening_meal_says_the_evening() {
        assert_eq!(times("le souper est à six heures"), [(18, 0)]);
        assert_eq!(times("dinner at 7"), [(19, 0)]);
        assert_eq!(times("la cena alle otto"), [(20, 0)]);
        // No meal, no half of the day.
        assert_eq!(times("la réunion est à six heures"), [(6, 0), (18, 0)]);
    }

    #[test]
    fn english() {
        assert_eq!(times("at 8"), [(8, 0), (20, 0)]);
        assert_eq!(times("@ 8"), [(8, 0), (20, 0)]);
        assert_eq!(times("by eight tonight"), [(20, 0)]);
        // A day part further off in the same sentence, not in the next one.
        assert_eq!(
            times("pon alarma a las 9 para sacar al perro esta noche"),
            [(21, 0)]
        );
        assert_eq!(
            times("Call me at 9. The flight is tonight."),
            [(9, 0), (21, 0)]
        );
        assert_eq!(
            times("Friseurtermin um Viertel nach drei am Nachmittag."),
            [(15, 15)]
        );
        assert_eq!(times("um 9 am Montag"), [(9, 0), (21, 0)]);
        assert_eq!(times("at 7 am tomorrow"), [(7, 0)]);
        assert_eq!(times("until 5 in the afternoon"), [(17, 0)]);
        // A day part right after the hour is its cue; not after a count of people.
        assert_eq!(times("no, make it 4 in the afternoon"), [(16, 0)]);
        assert_eq!(times("quedamos 8 de la tarde"), [(20, 0)]);
        assert_eq!(times("rappelle-moi demain 9 du matin"), [(9, 0)]);
        assert!(times("a table for 4 in the evening").is_empty());
        assert!(times("mesa para 4 de la noche").is_empty());
        // Read as a time too, but the number stays a count ("ran 10": kilometres or laps).
        let facts = super::super::facts::read_for_test("I ran 10 in the morning");
        assert!(facts.roles.is_empty(), "{:?}", facts.roles);
        assert_eq!(times("around 7 in the morning"), [(7, 0)]);
        assert_eq!(times("from 9 to 11am"), [(9, 0), (11, 0), (21, 0)]);
        assert_eq!(times("at noon"), [(12, 0)]);
        assert_eq!(times("midnight"), [(0, 0)]);
        assert_eq!(times("half past seven"), [(7, 30), (19, 30)]);
        assert_eq!(times("quarter past 7"), [(7, 15), (19, 15)]);
        assert_eq!(times("a quarter to 8"), [(7, 45), (19, 45)]);
        assert_eq!(times("twenty past seven pm"), [(19, 20)]);
        assert_eq!(times("ten to eight"), [(7, 50), (19, 50)]);
        assert_eq!(
            times("open from 9 to 5"),
            [(5, 0), (9, 0), (17, 0), (21, 0)]
        );
        assert_eq!(times("this evening at 7"), [(19, 0)]);
    }

    #[test]
    fn minutes_counted_back_from_the_hour_as_spoken() {
        assert!(times("me acorda quinze pras sete").contains(&(6, 45)));
        assert!(times("dez pras oito").contains(&(7, 50)));
        assert!(times("despiértame veinte para las ocho").contains(&(7, 40)));
        // "Para las ocho" alone is eight, not a count back; nor is a party before it.
        assert!(!times("reserva para las ocho, somos veinte").contains(&(7, 40)));
        let party = times("Reserva una mesa para 4 para las 9 de la noche");
        assert!(party.contains(&(21, 0)), "{party:?}");
        assert!(!party.contains(&(20, 56)), "{party:?}");
        assert!(!times("mesa para dos para las nueve").contains(&(8, 58)));
        assert!(!times("mesa pra 4 pra 20h").iter().any(|(_, m)| *m != 0));
    }

    #[test]
    fn portuguese_for_the_hour() {
        // "pras 9 da noite", "para as 9": the hour asked for.
        assert!(times("reserva pras 9 da noite no japonês").contains(&(21, 0)));
        assert!(times("reserva para as 9 da noite").contains(&(21, 0)));
        // A count back keeps its own reading; a party before it is no hour.
        let back = times("me acorda quinze pras sete");
        assert!(
            back.contains(&(6, 45)) && !back.contains(&(7, 0)),
            "{back:?}"
        );
        assert!(!times("mesa pra 4 pras 8 da noite").contains(&(4, 0)));
        assert!(!times("mesa para as 4 pessoas").contains(&(16, 0)));
    }

    #[test]
    fn spanish() {
        assert_eq!(times("a las ocho"), [(8, 0), (20, 0)]);
        assert_eq!(times("a la una"), [(1, 0), (13, 0)]);
        assert_eq!(times("sobre las 8"), [(8, 0), (20, 0)]);
        assert_eq!(times("hacia las 8 de la tarde"), [(20, 0)]);
        assert_eq!(times("a las 10 de la mañana"), [(10, 0)]);
        assert_eq!(times("a las 11 de la noche"), [(23, 0)]);
        assert_eq!(times("a las ocho y media"), [(8, 30), (20, 30)]);
        assert_eq!(times("a las nueve y cuarto"), [(9, 15), (21, 15)]);
        assert_eq!(times("a las ocho menos cuarto"), [(7, 45), (19, 45)]);
        assert_eq!(times("a las ocho y diez"), [(8, 10), (20, 10)]);
        assert_eq!(times("al mediodía"), [(12, 0)]);
        assert_eq!(times("a medianoche"), [(0, 0)]);
        assert_eq!(times("a las 20 horas"), [(20, 0)]);
    }

    #[test]
    fn french() {
        assert_eq!(times("à 8 heures"), [(8, 0), (20, 0)]);
        assert_eq!(times("à 20h"), [(20, 0)]);
        assert_eq!(times("vers 20 heures"), [(20, 0)]);
        assert_eq!(times("à huit heures et demie"), [(8, 30), (20, 30)]);
        assert_eq!(times("à 8 heures et quart du matin"), [(8, 15)]);
        assert_eq!(times("à 9 heures moins le quart du soir"), [(20, 45)]);
        assert_eq!(times("à 3 heures de l'après-midi"), [(15, 0)]);
        assert_eq!(times("à midi"), [(12, 0)]);
        assert_eq!(times("à minuit"), [(0, 0)]);
        assert!(times("cet après-midi").is_empty());
        assert_eq!(times("à 8 heures 30"), [(8, 30), (20, 30)]);
    }

    #[test]
    fn a_quarter_counted_back_and_swiss_afternoons() {
        assert_eq!(
            times("Weck mich morgen um viertel acht"),
            [(7, 15), (19, 15)]
        );
        assert_eq!(times("um viertel nach acht"), [(8, 15), (20, 15)]);
        assert_eq!(times("ist um halb drei am Nomittag"), [(14, 30)]);
        assert!(times("ein Viertel der Kosten").is_empty());
    }

    #[test]
    fn british_half_an_hour_after() {
        assert_eq!(
            times("wake me up at half six tomorrow"),
            [(6, 30), (18, 30)]
        );
        assert_eq!(times("meet at half 7 tonight"), [(19, 30)]);
        assert!(times("it takes half an hour").is_empty());
        assert!(times("cut half 3 times").is_empty());
        assert!(times("half 12 eggs").is_empty());
    }

    #[test]
    fn a_number_a_thing_is_set_to_is_both_a_time_and_the_setting() {
        let facts = super::super::facts::read_for_test("Mets le chauffage à dix-neuf");
        assert!(facts.times.contains(&(19, 0)));
        assert!(facts.roles.is_empty());
        // No setting verb: the number is the hour only.
        let facts = super::super::facts::read_for_test("On dîne à huit");
        assert!(!facts.roles.is_empty());
        let facts = super::super::facts::read_for_test("Order pizzas for the party at 7");
        assert!(!facts.roles.is_empty());
        // A cue of its own keeps it an hour.
        let facts = super::super::facts::read_for_test("Mets le réveil à 7 heures");
        assert!(!facts.roles.is_empty());
    }

    #[test]
    fn german() {
        assert_eq!(times("um 9 Uhr"), [(9, 0), (21, 0)]);
        assert_eq!(times("ab 9 Uhr"), [(9, 0), (21, 0)]);
        assert_eq!(times("gegen 9"), [(9, 0), (21, 0)]);
        assert_eq!(times("um halb acht"), [(7, 30), (19, 30)]);
        assert_eq!(times("Viertel nach acht"), [(8, 15), (20, 15)]);
        assert_eq!(times("Viertel vor acht"), [(7, 45), (19, 45)]);
        assert_eq!(times("um acht Uhr abends"), [(20, 0)]);
        assert_eq!(times("um 7 Uhr morgens"), [(7, 0)]);
        assert_eq!(times("um 3 nachmittags"), [(15, 0)]);
        assert_eq!(times("zu Mittag"), [(12, 0)]);
        assert_eq!(times("um Mitternacht"), [(0, 0)]);
        assert_eq!(times("um zwei"), [(2, 0), (14, 0)]);
    }

    #[test]
    fn portuguese() {
        assert_eq!(times("às 8 horas"), [(8, 0), (20, 0)]);
        assert_eq!(times("às 20h"), [(20, 0)]);
        assert_eq!(times("por volta das 8"), [(8, 0), (20, 0)]);
        assert_eq!(times("às oito e meia"), [(8, 30), (20, 30)]);
        assert_eq!(times("às 9 e um quarto da manhã"), [(9, 15)]);
        assert_eq!(times("às 7 da noite"), [(19, 0)]);
        assert_eq!(times("às 3 da tarde"), [(15, 0)]);
        assert_eq!(times("ao meio-dia"), [(12, 0)]);
        assert_eq!(times("à meia-noite"), [(0, 0)]);
        assert_eq!(times("à uma"), [(1, 0), (13, 0)]);
    }

    #[test]
    fn italian() {
        assert_eq!(times("alle 8"), [(8, 0), (20, 0)]);
        assert_eq!(times("alle ore 20"), [(20, 0)]);
        assert_eq!(times("verso le 8"), [(8, 0), (20, 0)]);
        assert_eq!(times("per le 8 di sera"), [(20, 0)]);
        assert_eq!(times("alle 8 e mezza"), [(8, 30), (20, 30)]);
        assert_eq!(times("alle nove e un quarto di mattina"), [(9, 15)]);
        assert_eq!(times("alle 3 del pomeriggio"), [(15, 0)]);
        assert_eq!(times("stasera alle 9"), [(21, 0)]);
        assert_eq!(times("a mezzogiorno"), [(12, 0)]);
        assert_eq!(times("a mezzanotte"), [(0, 0)]);
        assert_eq!(times("all'una"), [(1, 0), (13, 0)]);
    }

    #[test]
    fn no_times() {
        assert!(times("a table for 4 people tonight").is_empty());
        assert!(times("two nights").is_empty());
        assert!(times("a 5 m cable").is_empty());
        assert!(times("version 3.10").is_empty());
        assert!(times("room 12").is_empty());
        assert!(times("I am 10 years old").is_empty());
        assert!(times("the 3rd").is_empty());
        assert!(times("in 2 hours").is_empty());
        assert!(times("dans 2 heures").is_empty());
        assert!(times("en 2 horas").is_empty());
        assert!(times("tra 2 ore").is_empty());
        assert!(times("at 4 people").is_empty());
        assert!(times("from 2 to 4 people").is_empty());
        assert!(times("à une table").is_empty());
        assert!(times("call +44 20 7946 0958").is_empty());
        assert!(times("alle 8 Wochen").is_empty());
        assert!(times("on 2026-11-25").is_empty());
        assert!(times("2 to 3 hours").is_empty());
        assert!(times("ten to twenty people").is_empty());
        assert!(times("Me acorda amanhã cedo, tenho prova de 4 horas").is_empty());
        assert!(times("una reunión de 2 horas").is_empty());
        assert!(times("un viaggio di 3 ore").is_empty());
        // A difference between clocks.
        assert!(times("il cliente giapponese, loro sono otto ore avanti").is_empty());
        assert!(times("they're 8 hours ahead of us").is_empty());
        assert!(times("alle 9, loro sono otto ore avanti").contains(&(9, 0)));
        assert!(!times("alle 9, loro sono otto ore avanti").contains(&(8, 0)));
    }

    #[test]
    fn a_number_of_hours_after_de_is_a_time_where_a_range_goes_on_or_in_french() {
        assert!(!times("abierto de 8 horas a 14 horas").is_empty());
        assert!(!times("le train de 8 heures").is_empty());
        assert!(!times("a las 4 horas").is_empty());
    }
}
