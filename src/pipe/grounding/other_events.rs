//! Days and times of another event than the one a call books. "caduca el 15 de enero, pídeme
//! cita" says when a document expires, not when the appointment is; "stell mir den Wecker,
//! ich muss um 7 am Flughafen sein" says when the user must be somewhere, not when the alarm
//! rings. A day or time said only in such a clause is evidence for a field about that event
//! (`expiry_date`, `arrive_by`), for a reminder of an expiry and for a payment falling due,
//! not for the rest.

use super::evidence::Evidence;
use super::tokens::{Kind, Token};
use super::words::{is, JOINS};

/// Words that say a thing expires or falls due (folded): "expires", "caduca", "vence",
/// "expire", "läuft … ab", "scade", "vence".
#[rustfmt::skip]
const EXPIRES: &[&str] = &[
    "expire", "expires", "expired", "expiring", "expiry", "expiration", "caduca", "caducan",
    "caducidad", "vence", "vencen", "vencimiento", "expira", "expiran", "expirent", "echeance",
    "lauft", "laufen", "ablauf", "ablaufdatum", "scade", "scadono", "scadenza", "vencimento",
    "validade",
];

/// The start of a clause that says the user must already be somewhere (folded): "I need to be
/// at the airport at 7", "tengo que estar", "je dois être", "ich muss ... sein", "devo
/// essere", "preciso estar".
#[rustfmt::skip]
const MUST_BE: &[&[&str]] = &[
    &["need", "to", "be"], &["have", "to", "be"], &["has", "to", "be"], &["must", "be"],
    &["got", "to", "be"], &["gotta", "be"], &["should", "be"],
    &["tengo", "que", "estar"], &["tenemos", "que", "estar"], &["debo", "estar"],
    &["hay", "que", "estar"],
    &["dois", "etre"], &["doit", "etre"], &["devons", "etre"], &["faut", "etre"],
    &["devo", "essere"], &["dobbiamo", "essere"], &["devo", "stare"],
    &["preciso", "estar"], &["tenho", "que", "estar"], &["tenho", "de", "estar"],
    &["precisamos", "estar"],
];

/// German puts the verb last: "ich muss um 7 am Flughafen sein".
const MUSS: &[&str] = &["muss", "mussen", "musst"];

/// Words of a field's name or description about an expiry (folded): such a day is its own.
#[rustfmt::skip]
const ABOUT_EXPIRY: &[&str] = &[
    "expiry", "expiration", "expire", "expires", "expiring", "due", "deadline", "valid",
    "validity", "until", "end", "caducidad", "vencimiento", "vence", "echeance", "expiration",
    "ablauf", "gultig", "scadenza", "validade", "vencimento", "remind", "reminder", "reminders",
    "recordatorio", "rappel", "erinnerung", "lembrete", "promemoria",
    // What falls due is paid then ("o aluguel vence todo dia 5" is the payment's day).
    "payment", "pay", "pago", "pagar", "paiement", "zahlung", "pagamento", "bill", "factura",
    "facture", "rechnung", "fattura", "invoice", "renewal", "renew",
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
        let opens = (expiry && is(EXPIRES, &tokens[i].folded))
            || (being_there && MUST_BE.iter().any(|words| starts_with(tokens, i, words)));
        // "ich muss um 7 am Flughafen sein": up to its verb.
        let german = being_there
            && is(MUSS, &tokens[i].folded)
            && clause_end(tokens, i)
                .checked_sub(1)
                .is_some_and(|last| tokens[i..=last].iter().any(|t| t.folded == "sein"));
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

/// The token after the clause that starts at `at`: its sentence mark, comma or join.
fn clause_end(tokens: &[Token], at: usize) -> usize {
    tokens[at + 1..]
        .iter()
        .position(|t| {
            (t.kind == Kind::Punct && matches!(t.lower.as_str(), "," | "." | ";" | "!" | "?"))
                || (t.kind == Kind::Word && is(JOINS, &t.folded))
        })
        .map_or(tokens.len(), |k| at + 1 + k)
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
        // The expiry's own field, a reminder of it and a payment falling due take it.
        assert!(parts(dni, &["expiry", "date"]).is_empty());
        assert!(parts("O aluguel vence todo dia 5", &["payment", "date"]).is_empty());
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
            ["need to be at the airport at 7"]
        );
        // Being there is what a booking's time is.
        assert!(parts("book a table, we need to be there at 8", &["time"]).is_empty());
        // "muss" without its "sein" is no place to be.
        assert!(parts("ich muss um 7 los", &["alarm", "time"]).is_empty());
    }
}
