//! Days and times of another event than the one a call books. "caduca el 15 de enero, pídeme
//! cita" says when a document expires, not when the appointment is; "stell mir den Wecker,
//! ich muss um 7 am Flughafen sein" says when the user must be somewhere, not when the alarm
//! rings; "la farmacia cierra a las 20:00", "o voo sai às 14h", "my shift ends at 6" say when
//! a thing keeps its own schedule, not when the reminder, the taxi or the court is. A day or
//! time said only in such a clause is evidence for a field about that event (`expiry_date`,
//! `arrive_by`, `closing_time`, `departure_time`, a field that names the thing) and for a
//! reminder of an expiry, not for the rest.

use super::evidence::Evidence;
use super::tokens::{ends_with, Kind, Token};
use super::words::{is, JOINS};

/// Words that say a thing expires (folded): "expires", "caduca", "expira", "läuft … ab"
/// (with its "ab"). Not a day a thing falls due ("vence", "scade"): a payment's own day.
#[rustfmt::skip]
const EXPIRES: &[&str] = &[
    "expire", "expires", "expired", "expiring", "expiry", "expiration", "caduca", "caducan",
    "caducidad", "expira", "expiran", "expirent", "ablauf", "ablaufdatum", "validade",
];

/// German "läuft ... ab": expires only with its "ab" ("der Film läuft heute" is showing).
const RUNS: &[&str] = &["lauft", "laufen"];

/// The start of a clause that says the user must already be somewhere, with its subject
/// (folded): "I need to be at the airport at 7", "tengo que estar", "je dois être", "devo
/// essere", "preciso estar". Not the thing itself ("it has to be at 5:45").
#[rustfmt::skip]
const MUST_BE: &[&[&str]] = &[
    &["i", "need", "to", "be"], &["we", "need", "to", "be"], &["i", "have", "to", "be"],
    &["we", "have", "to", "be"], &["i", "must", "be"], &["we", "must", "be"],
    &["i", "'", "ve", "got", "to", "be"], &["i", "gotta", "be"], &["i", "should", "be"],
    &["tengo", "que", "estar"], &["tenemos", "que", "estar"], &["debo", "estar"],
    &["debemos", "estar"],
    &["dois", "etre"], &["devons", "etre"],
    &["devo", "essere"], &["dobbiamo", "essere"], &["devo", "stare"],
    &["preciso", "estar"], &["tenho", "que", "estar"], &["tenho", "de", "estar"],
    &["precisamos", "estar"], &["temos", "que", "estar"],
];

/// German puts the verb last: "ich muss um 7 am Flughafen sein", "wir müssen ... sein".
const MUSS: &[&str] = &["muss", "mussen"];
const WE_OR_I: &[&str] = &["ich", "wir"];

/// Words of a field's name or description about an expiry (folded): such a day is its own.
#[rustfmt::skip]
const ABOUT_EXPIRY: &[&str] = &[
    "expiry", "expiration", "expire", "expires", "expiring", "due", "deadline", "valid",
    "validity", "until", "end", "caducidad", "vencimiento", "vence", "echeance", "ablauf",
    "gultig", "scadenza", "validade", "vencimento", "remind", "reminder", "reminders",
    "recordatorio", "rappel", "erinnerung", "lembrete", "promemoria", "renewal", "renew",
];

/// Words of a field that make it a thing done before the user must be somewhere (folded): an
/// alarm, a pick-up, a departure.
#[rustfmt::skip]
const BEFORE_BEING_THERE: &[&str] = &[
    "alarm", "wake", "wakeup", "wecker", "despertador", "sveglia", "reveil", "pickup", "pick",
    "departure", "depart", "leave", "leaving", "salida", "abfahrt", "abholung", "partenza",
    "saida", "recogida", "ramassage",
];

/// Verbs in the third person that say when a thing keeps its own schedule (folded), each
/// kind with the words of a field about it. Not a day a thing falls due on ("vence",
/// "scade"), which is a payment's own day too, nor a thing expiring ([`EXPIRES`]).
#[rustfmt::skip]
const SCHEDULE: &[(&[&str], &[&str])] = &[
    // Starts.
    (&["starts", "begins", "empieza", "empiezan", "comienza", "comienzan", "commence",
        "commencent", "debute", "debutent", "beginnt", "beginnen", "startet", "starten",
        "comeca", "comecam", "inizia", "iniziano", "comincia", "cominciano"],
     &["start", "starts", "begin", "beginning", "inicio", "comienzo", "debut", "beginn",
        "anfang", "inizio", "show", "showtime", "screening", "session", "sesion", "seance",
        "vorstellung", "sessao", "spettacolo"]),
    // Ends. Not French "termine", a German noun too ("die Termine am Montag").
    (&["ends", "finishes", "termina", "terminan", "acaba", "acaban", "finit", "finissent",
        "endet", "enden", "terminam", "acabam", "finisce", "finiscono", "terminano"],
     &["end", "ends", "until", "finish", "fin", "final", "ende", "bis", "fine", "termino",
        "termine", "fim"]),
    // Opens.
    (&["opens", "abre", "abren", "ouvre", "ouvrent", "offnet", "offnen", "abrem", "apre",
        "aprono"],
     &["open", "opening", "opens", "apertura", "ouverture", "offnung", "abertura"]),
    // Closes.
    // Not Portuguese "fecha", Spanish for a date.
    (&["closes", "cierra", "cierran", "ferme", "ferment", "schließt", "schliesst",
        "schließen", "schliessen", "chiude", "chiudono"],
     &["close", "closing", "closes", "cierre", "fermeture", "schluss", "schließung",
        "fechamento", "chiusura"]),
    // Leaves. Not "leaves" (the tree's: "rake the fallen leaves at 9") nor "sale" (Italian
    // rooms, English sales), but after a pronoun ([`LEAVES_A_PLACE`]).
    (&["departs", "part", "partent", "sai", "saem", "parte", "partem", "partono"],
     LEAVE_FIELDS),
    // Arrives. A pick-up is when one arrives.
    (&["arrives", "lands", "llega", "llegan", "aterriza", "arrive", "arrivent", "atterrit",
        "landet", "landen", "chega", "chegam", "pousa", "arriva", "arrivano", "atterra"],
     ARRIVE_FIELDS),
];

/// Words of a field about leaving.
#[rustfmt::skip]
const LEAVE_FIELDS: &[&str] = &[
    "departure", "depart", "departs", "leave", "leaves", "leaving", "salida", "abfahrt",
    "abflug", "saida", "partenza", "outbound",
];

/// Words of a field about arriving.
#[rustfmt::skip]
const ARRIVE_FIELDS: &[&str] = &[
    "arrival", "arrive", "arrives", "arriving", "land", "landing", "llegada", "arrivee",
    "ankunft", "landung", "chegada", "arrivo", "pickup", "pick", "recogida", "abholung",
    "ramassage", "busca",
];

/// Words of a field about someone leaving a place: a pick-up is when they leave ("book a taxi
/// for my mom, she leaves the hotel at 7").
#[rustfmt::skip]
const PERSON_LEAVE_FIELDS: &[&str] = &[
    "departure", "depart", "departs", "leave", "leaves", "leaving", "salida", "abfahrt",
    "abflug", "saida", "partenza", "outbound", "pickup", "pick", "recogida", "abholung",
    "ramassage", "busca",
];

/// Someone else as a subject (folded): "ella sale del curro a las 2", "il arrive vers 8h".
/// Not "I" or "we": the user's own leaving is often what the call books (a taxi, an alarm).
#[rustfmt::skip]
const THIRD_PERSON: &[&str] = &[
    "she", "he", "they", "ella", "ellas", "ellos", "elle", "elles", "il", "ils", "sie", "er", "ela",
    "ele", "elas", "eles", "lei", "lui", "loro",
];

/// Verbs of leaving a place, said of someone only after a [`THIRD_PERSON`] pronoun (folded):
/// "ella sale del curro a las 2", "il quitte le bureau à 18h", "lui esce alle 6".
#[rustfmt::skip]
const LEAVES_A_PLACE: &[&str] = &[
    "sale", "salen", "quitte", "quittent", "sort", "sortent", "verlasst", "verlassen", "esce",
    "escono", "leaves",
];

/// Words right after a schedule's verb that say when (folded): "cierra a las 20:00", "ends
/// at 6", "endet am 31. Januar", "inizia alle 20:45"; or a number right after it. Not "on",
/// which a noun takes as often ("the fallen leaves on Saturday").
#[rustfmt::skip]
const WHEN_CUES: &[&str] = &[
    "at", "by", "around", "a", "as", "al", "el", "hasta", "um", "am", "gegen", "ab", "alle",
    "all", "verso", "ao", "aos", "dia", "le", "vers", "des",
];

/// Words before a thing named as a subject (folded): articles, possessives and
/// demonstratives of the six ("la farmacia cierra", "my shift ends", "o voo sai").
#[rustfmt::skip]
const DETERMINERS: &[&str] = &[
    // Not "that", which opens a clause too ("the showing that ends before 11").
    "the", "my", "our", "your", "his", "her", "their", "this",
    "el", "la", "los", "las", "mi", "mis", "su", "sus", "tu", "nuestro", "nuestra", "este",
    "esta", "del",
    "le", "les", "l", "mon", "ma", "mes", "ton", "ta", "son", "sa", "notre", "ce", "cette", "du",
    "der", "die", "das", "dem", "mein", "meine", "unser", "unsere", "sein", "seine", "ihr",
    "ihre", "dein", "deine", "dieser", "diese", "dieses",
    "o", "a", "os", "as", "meu", "minha", "meus", "minhas", "seu", "nosso", "nossa", "do", "da",
    "esse", "essa",
    "il", "lo", "gli", "mio", "mia", "suo", "nostro", "della", "dello", "questo", "questa",
];

/// Words of a field that say only a day or a time: such a field may be any event's.
#[rustfmt::skip]
const ONLY_WHEN: &[&str] = &[
    "time", "date", "datetime", "day", "hour", "when", "at", "on", "hora", "fecha", "dia",
    "heure", "jour", "zeit", "uhrzeit", "datum", "tag", "data", "ora", "giorno", "hh", "mm",
    "yyyy", "dd", "iso", "format", "the", "of", "in",
];

/// Whether the verb at `at` says a thing's own schedule with its subject before it (an
/// article and its noun, or a name): "la farmacia cierra", not "cierra la persiana", which
/// asks. Returns the kind's field words.
fn schedule_verb(tokens: &[Token], at: usize, start: usize) -> Option<&'static [&'static str]> {
    let word = tokens[at].folded.as_str();
    // Italian "il" is an article ("comprare il sale alle 18"): a pronoun only in French.
    let pronoun = at > start
        && is(THIRD_PERSON, &tokens[at - 1].folded)
        && !(tokens[at - 1].folded == "il" && matches!(word, "sale" | "salen"));
    // "my train gets in at 7:15": arrives.
    let gets_in =
        matches!(word, "gets" | "comes") && tokens.get(at + 1).is_some_and(|t| t.folded == "in");
    let (about, after) = if gets_in {
        (ARRIVE_FIELDS, at + 2)
    } else if let Some((_, about)) = SCHEDULE.iter().find(|(verbs, _)| is(verbs, word)) {
        (*about, at + 1)
    } else if pronoun && is(LEAVES_A_PLACE, word) {
        (PERSON_LEAVE_FIELDS, at + 1)
    } else {
        return None;
    };
    // A time right after the verb; after a pronoun, past the place left ("sale del curro a
    // las 2"), within its clause. Right after "gets in": "he gets in the car at 8" is none.
    let reach = if pronoun && !gets_in { 4 } else { 1 };
    let when = (after..tokens.len().min(after + reach))
        .take_while(|&k| !ends_clause(tokens, k))
        .any(|k| tokens[k].kind == Kind::Number || is(WHEN_CUES, &tokens[k].folded));
    if !when {
        return None;
    }
    if pronoun {
        return Some(about);
    }
    let words: Vec<&Token> = tokens[start..at]
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .collect();
    // An article or a possessive two or three words back, its noun right before the verb.
    let determined = words.len() >= 2
        && words[words.len().saturating_sub(3)..words.len() - 1]
            .iter()
            .any(|t| is(DETERMINERS, &t.folded))
        && !is(DETERMINERS, &words[words.len() - 1].folded);
    determined.then_some(about)
}

/// Words of a field about telling the user of a thing (folded): its time is the thing's own
/// ("Le train part à 18h30, préviens-moi").
#[rustfmt::skip]
const TELLING: &[&str] = &[
    "remind", "reminder", "reminders", "notify", "notification", "notifications", "alert",
    "recordatorio", "aviso", "avisar", "rappel", "notifier", "prevenir", "erinnerung",
    "benachrichtigung", "lembrete", "avisar", "promemoria", "avviso", "notifica",
];

/// Words that put what the user asks before the event (folded): a reminder "before it
/// closes" is at no time said ("recuérdame ir antes de que cierre", "ricordami di comprare la
/// pizza prima").
const BEFORE: &[&[&str]] = &[
    &["before"],
    &["antes", "de"],
    &["antes", "que"],
    &["avant", "de"],
    &["avant", "que"],
    &["avant", "qu"],
    &["vorher"],
    &["bevor"],
    &["davor"],
    &["prima", "di"],
    &["prima", "che"],
    &["antes", "do"],
    &["antes", "da"],
];

/// Whether the field is about the schedule kind `about` or about telling the user of it (at
/// the event's time: not where the conversation asks for it `before`), or names something
/// the clause `clause` names ("flight" of `flight_time` in "my flight leaves at 7"), or says
/// only a day or a time (its format's digits aside: "HH:MM 24h").
fn field_takes(field: &[String], about: &[&str], clause: &[Token], before: bool) -> bool {
    let named = |w: &String| {
        clause.iter().any(|t| {
            t.kind == Kind::Word
                && (t.folded == *w || super::lexicon::translations(w).contains(&t.folded.as_str()))
        })
    };
    field
        .iter()
        .any(|w| is(about, w) || (!before && is(TELLING, w)))
        || field
            .iter()
            .all(|w| is(ONLY_WHEN, w) || w.chars().any(|c| c.is_ascii_digit()))
        || field
            .iter()
            .filter(|w| !is(ONLY_WHEN, w) && w.chars().count() > 2)
            .any(named)
}

/// The clauses that say another event's day or time, as byte ranges: from the word that
/// opens one to the end of its clause; for a thing's own schedule, the whole clause.
fn clauses(tokens: &[Token], field: &[String]) -> Vec<std::ops::Range<usize>> {
    let expiry = !field.iter().any(|w| is(ABOUT_EXPIRY, w));
    let being_there = field.iter().any(|w| is(BEFORE_BEING_THERE, w));
    let mut out = Vec::new();
    // A reminder's "before" may end its sentence too ("comprare la pizza prima").
    let before = (0..tokens.len()).any(|k| {
        BEFORE.iter().any(|words| starts_with(tokens, k, words))
            || (matches!(tokens[k].folded.as_str(), "prima" | "antes" | "avant")
                && tokens.get(k + 1).is_none_or(|t| t.kind == Kind::Punct))
    });
    let mut i = 0;
    // The first token of the clause `i` is in.
    let mut start = 0;
    while i < tokens.len() {
        if ends_clause(tokens, i) {
            start = i + 1;
            i += 1;
            continue;
        }
        let clause = &tokens[i..clause_end(tokens, i)];
        let has = |word: &str| clause.iter().any(|t| t.folded == word);
        let expires = is(EXPIRES, &tokens[i].folded) || (is(RUNS, &tokens[i].folded) && has("ab"));
        let opens = (expiry && expires)
            || (being_there && MUST_BE.iter().any(|words| starts_with(tokens, i, words)));
        // "ich muss um 7 am Flughafen sein": its subject beside it, up to its verb.
        let subject = |k: Option<usize>| {
            k.and_then(|k| tokens.get(k))
                .is_some_and(|t| is(WE_OR_I, &t.folded))
        };
        let german = being_there
            && is(MUSS, &tokens[i].folded)
            && (subject(i.checked_sub(1)) || subject(Some(i + 1)))
            && has("sein");
        if opens || german {
            let end = clause_end(tokens, i);
            if let Some(last) = end.checked_sub(1).filter(|last| *last >= i) {
                out.push(tokens[i].start..tokens[last].end);
            }
            i = end.max(i + 1);
        } else if let Some(end) = schedule_verb(tokens, i, start)
            .map(|about| (about, clause_end(tokens, i)))
            .filter(|(about, end)| !field_takes(field, about, &tokens[start..*end], before))
            .map(|(_, end)| end)
        {
            out.push(tokens[start].start..tokens[end - 1].end);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether the phrase `words` starts at `at`.
fn starts_with(tokens: &[Token], at: usize, words: &[&str]) -> bool {
    at + words.len() <= tokens.len() && ends_with(tokens, at + words.len(), &[words])
}

/// Whether the token at `k` ends a clause: a sentence mark, a comma or a join; not the dot of
/// a German ordinal before its month ("am 3. März"), which "ends at 6. Book" is not.
pub(super) fn ends_clause(tokens: &[Token], k: usize) -> bool {
    let t = &tokens[k];
    let ordinal = t.lower == "."
        && !t.spaced
        && k > 0
        && tokens[k - 1].kind == Kind::Number
        && tokens
            .get(k + 1)
            .is_some_and(|next| super::dates::is_month(&next.folded));
    (t.kind == Kind::Punct && matches!(t.lower.as_str(), "," | "." | ";" | "!" | "?") && !ordinal)
        || (t.kind == Kind::Word && is(JOINS, &t.folded) && !and_a_half(tokens, k))
        || (t.kind == Kind::Word && is(SO, &t.folded))
        || (t.folded == "asi" && tokens.get(k + 1).is_some_and(|n| n.folded == "que"))
}

/// Words that open what follows from a clause (folded): "my train gets in at 7:15 so
/// sometime after that", "... a las 2, así que a las 3" (with its "que"). Not "also", English
/// "too" ("my shift also ends at 6").
const SO: &[&str] = &["so", "entonces", "donc", "alors", "entao", "quindi"];

/// Whether the join at `k` adds a half or a quarter to the number before it: "las 2 y
/// media", "2 and a half", "9 e mezza", "8 et quart". No clause ends there.
fn and_a_half(tokens: &[Token], k: usize) -> bool {
    const PARTS: &[&str] = &[
        "half", "quarter", "media", "medio", "cuarto", "demie", "demi", "quart", "halb", "viertel",
        "meia", "meio", "quarto", "mezza", "mezzo",
    ];
    let after = match tokens.get(k + 1) {
        Some(t) if matches!(t.folded.as_str(), "a" | "un" | "une" | "ein") => k + 2,
        _ => k + 1,
    };
    k.checked_sub(1)
        .is_some_and(|b| tokens[b].kind == Kind::Number)
        && tokens.get(after).is_some_and(|t| is(PARTS, &t.folded))
}

/// The token after the clause that starts at `at`: the next that ends a clause.
fn clause_end(tokens: &[Token], at: usize) -> usize {
    (at + 1..tokens.len())
        .find(|&k| ends_clause(tokens, k))
        .unwrap_or(tokens.len())
}

/// The conversation split into the clauses of another event (for a field of `field`'s words)
/// and the rest, or `None` where it holds none.
pub fn split(evidence: &Evidence, field: &[String]) -> Option<(Evidence, Evidence)> {
    let ranges = clauses(&evidence.tokens, field);
    (!ranges.is_empty()).then(|| evidence.parted(&ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str, field: &[&str]) -> Vec<String> {
        let tokens = super::super::tokens::tokenize(text);
        let field: Vec<String> = field.iter().map(|w| w.to_string()).collect();
        clauses(&tokens, &field)
            .into_iter()
            .map(|r| text[r].to_owned())
            .collect()
    }

    #[test]
    fn an_expiry_and_a_place_to_be_are_other_events() {
        let dni = "Tengo que renovar el DNI, caduca el 15 de enero, pídeme cita";
        assert_eq!(
            parts(dni, &["appointment", "date"]),
            ["caduca el 15 de enero"]
        );
        // The expiry's own field and a reminder of it take it; a day a thing falls due on is
        // no expiry ("vence"), nor is a film that runs.
        assert!(parts(dni, &["expiry", "date"]).is_empty());
        assert!(parts(dni, &["reminder", "date"]).is_empty());
        assert!(parts("O aluguel vence todo dia 5", &["payment", "date"]).is_empty());
        assert!(parts("Karten für Dune, der läuft heute um 20 Uhr", &["showtime"]).is_empty());
        assert_eq!(
            parts(
                "Mein Pass läuft am 3. März ab, mach einen Termin",
                &["appointment", "date"]
            ),
            ["läuft am 3. März ab"]
        );
        assert!(parts(dni, &["reminder", "date"]).is_empty());
        let airport = "Stell mir den Wecker für morgen, ich muss um 7 am Flughafen sein";
        assert_eq!(
            parts(airport, &["alarm", "time"]),
            ["muss um 7 am Flughafen sein"]
        );
        assert_eq!(
            parts(
                "book a taxi, I need to be at the airport at 7",
                &["pickup", "time"]
            ),
            ["I need to be at the airport at 7"]
        );
        // Being there is what a booking's time is.
        assert!(parts("book a table, we need to be there at 8", &["time"]).is_empty());
        // "muss" without its "sein" is no place to be; the thing itself has to be at a time.
        assert!(parts("ich muss um 7 los", &["alarm", "time"]).is_empty());
        assert!(parts("Die Abholung muss um 9 Uhr sein", &["pickup", "time"]).is_empty());
        assert!(parts(
            "Set an alarm for tomorrow, it has to be at 5:45",
            &["alarm", "time"]
        )
        .is_empty());
    }

    #[test]
    fn a_noun_like_a_schedule_s_verb_or_a_sentence_ending_in_a_number_is_none() {
        // The verb needs a time right after it; homographs are out.
        let appointment = &["appointment", "time"];
        assert!(parts("Rake the fallen leaves on Saturday at 9", appointment).is_empty());
        assert!(parts(
            "Prenota le due sale riunioni per martedì alle 10",
            appointment
        )
        .is_empty());
        assert!(parts("Verschieb die beiden Termine auf Montag um 9", appointment).is_empty());
        // A number ending its sentence ends the clause.
        assert_eq!(
            parts(
                "My shift ends at 6. Book the squash court for 7 pm.",
                &["start", "time"]
            ),
            ["My shift ends at 6"]
        );
        // "Prima" and "antes" of another meaning are no "before".
        assert!(parts(
            "La prima partita inizia alle 20:45, avvisami",
            &["reminder", "time"]
        )
        .is_empty());
    }

    #[test]
    fn a_thing_s_own_schedule_is_another_event() {
        let pharmacy = "La farmacia cierra a las 20:00, recuérdame ir antes";
        assert_eq!(
            parts(pharmacy, &["visit", "time"]),
            ["La farmacia cierra a las 20:00"]
        );
        assert_eq!(
            parts(
                "O voo sai às 14h, chama um Uber pra me levar",
                &["pickup", "time"]
            ),
            ["O voo sai às 14h"]
        );
        assert_eq!(
            parts(
                "Book the squash court Thursday evening. My shift ends at 6 and it takes 40 min",
                &["start", "time"]
            ),
            ["My shift ends at 6"]
        );
        assert_eq!(
            parts(
                "Le film commence à 20h30, réserve le resto avant",
                &["reservation", "time"]
            ),
            ["Le film commence à 20h30"]
        );
        // A field about that schedule, or about the thing named, or about a time only, takes it.
        assert!(parts(pharmacy, &["closing", "time"]).is_empty());
        assert!(parts(
            "Le train part à 18h30, préviens-moi",
            &["time", "to", "notify"]
        )
        .is_empty());
        // Not a reminder asked for before the event.
        assert_eq!(
            parts(
                "La partita inizia alle 20:45, ricordami di comprare la pizza prima",
                &["reminder", "time"]
            ),
            ["La partita inizia alle 20:45"]
        );
        assert!(parts("La partita inizia alle 20:45", &["time", "hh", "mm", "24h"]).is_empty());
        assert!(parts("the showing that still ends before 11", &["showtime"]).is_empty());
        assert!(parts("my flight leaves at 7, track it", &["flight", "time"]).is_empty());
        assert!(parts("The meeting starts at 3, add it", &["start", "time"]).is_empty());
        assert!(parts("The train leaves at 9:15, book a seat", &["time"]).is_empty());
        // A request, not a statement: the verb opens its clause, or has no subject before it.
        assert!(parts("Cierra la persiana a las 8", &["appointment", "time"]).is_empty());
        assert!(parts(
            "Por favor cierra la persiana a las 8",
            &["appointment", "time"]
        )
        .is_empty());
        assert!(parts("y abre la puerta a las 7", &["appointment", "time"]).is_empty());
    }

    #[test]
    fn someone_else_leaving_or_a_train_getting_in_is_another_event() {
        let lunch = "Quedamos con Lucía a comer mañana, ella sale del curro a las 2 y media así que a las 3";
        assert_eq!(parts(lunch, &["time"]).len(), 0);
        assert_eq!(
            parts(lunch, &["meeting", "time"]),
            ["ella sale del curro a las 2 y media"]
        );
        assert_eq!(
            parts(
                "il quitte le bureau à 18h, réserve pour 19h",
                &["reservation", "time"]
            ),
            ["il quitte le bureau à 18h"]
        );
        assert_eq!(
            parts(
                "Book us a table for 4, my train gets in at 7:15 so sometime after that",
                &["reservation", "time"]
            ),
            ["my train gets in at 7:15"]
        );
        // The user's own leaving, a verb with no time after it, or a pronoun of another
        // meaning ("la sale", the room) is none.
        assert!(parts("je quitte le bureau à 18h", &["reservation", "time"]).is_empty());
        assert!(parts("ella sale mañana con su madre", &["reservation", "time"]).is_empty());
        assert!(parts("Prenota la sala, lei esce", &["reservation", "time"]).is_empty());
        assert!(parts("he gets in the car at 8", &["reservation", "time"]).is_empty());
        // Someone leaving is when a pick-up is; a tree's leaves or the salt leave nothing.
        assert!(parts(
            "Book a taxi for my mom, she leaves the hotel at 7",
            &["pickup", "time"]
        )
        .is_empty());
        assert!(parts(
            "Schedule the gardener to rake the fallen leaves at 9",
            &["appointment", "time"]
        )
        .is_empty());
        assert!(parts("devo comprare il sale alle 18", &["start", "time"]).is_empty());
    }
}
