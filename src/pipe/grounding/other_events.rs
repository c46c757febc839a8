//! Days and times of another event than the one a call books. "caduca el 15 de enero, pídeme
//! cita" says when a document expires, not when the appointment is; "stell mir den Wecker,
//! ich muss um 7 am Flughafen sein" says when the user must be somewhere, not when the alarm
//! rings. A day or time said only in such a clause is evidence for a field about that event
//! (`expiry_date`, `arrive_by`) and for a reminder of an expiry, not for the rest.

use super::evidence::Evidence;
use super::tokens::{Kind, Token};
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

/// The clauses that say another event's day or time, as byte ranges: from the word that
/// opens one to the end of its clause.
fn clauses(tokens: &[Token], field: &[String]) -> Vec<std::ops::Range<usize>> {
    let expiry = !field.iter().any(|w| is(ABOUT_EXPIRY, w));
    let being_there = field.iter().any(|w| is(BEFORE_BEING_THERE, w));
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
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
        } else {
            i += 1;
        }
    }
    out
}

fn starts_with(tokens: &[Token], at: usize, words: &[&str]) -> bool {
    tokens
        .get(at..at + words.len())
        .is_some_and(|run| run.iter().zip(words).all(|(t, w)| t.folded == *w))
}

/// The token after the clause that starts at `at`: its sentence mark, comma or join; not the
/// dot of a German ordinal ("am 3. März").
fn clause_end(tokens: &[Token], at: usize) -> usize {
    (at + 1..tokens.len())
        .find(|&k| {
            let t = &tokens[k];
            let ordinal = t.lower == "." && !t.spaced && tokens[k - 1].kind == Kind::Number;
            (t.kind == Kind::Punct
                && matches!(t.lower.as_str(), "," | "." | ";" | "!" | "?")
                && !ordinal)
                || (t.kind == Kind::Word && is(JOINS, &t.folded))
        })
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
}
