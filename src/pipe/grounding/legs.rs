//! The legs of a trip: a field about the outbound leg (`departure_date`, "Hinfahrt") takes
//! no day said only for the way back ("on the 18th and back on the 27th" gives no outbound
//! 27th), and a field about the way back none said only for the outbound leg. The way back
//! is each clause that starts with a word of returning ("back", "vuelta", "zurück", "retour",
//! "volta", "ritorno") and runs to the clause's end; the rest is the outbound leg. A way back
//! spoken of without a day ("la vuelta aún no la sé", "and come back") has none.

use super::evidence::Evidence;
use super::tokens::{Kind, Token};

/// One leg of a trip.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Leg {
    Out,
    Back,
}

/// Words of a field about the outbound leg, and about the way back (folded).
#[rustfmt::skip]
const FIELD_OUT: &[&str] = &[
    "departure", "departing", "outbound", "depart", "ida", "salida", "aller", "hinflug",
    "hinfahrt", "hinreise", "partida", "andata", "partenza",
];
#[rustfmt::skip]
const FIELD_BACK: &[&str] = &[
    "return", "returning", "inbound", "back", "vuelta", "regreso", "retour", "ruckflug",
    "ruckfahrt", "ruckreise", "volta", "regresso", "ritorno",
];

/// The leg a field's folded name and description words are about, if one alone.
pub fn of_field(words: &[String]) -> Option<Leg> {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    match (has(FIELD_OUT), has(FIELD_BACK)) {
        (true, false) => Some(Leg::Out),
        (false, true) => Some(Leg::Back),
        _ => None,
    }
}

/// Words of the outbound leg in a conversation (folded).
const OUTBOUND: &[&str] = &[
    "outbound", "ida", "aller", "hinflug", "hinfahrt", "hinreise", "andata",
];

/// Whether the conversation names the outbound leg ("la ida todavía no la tengo clara"), not
/// as part of a kind of ticket ("ida y vuelta", "aller-retour", "solo ida", "aller simple").
pub fn outbound_named(evidence: &Evidence) -> bool {
    let tokens = &evidence.tokens;
    (0..tokens.len()).any(|i| {
        tokens[i].kind == Kind::Word
            && OUTBOUND.contains(&tokens[i].folded.as_str())
            && !round_trip_at(tokens, i)
            && !i
                .checked_sub(1)
                .is_some_and(|k| matches!(tokens[k].folded.as_str(), "solo" | "only" | "just"))
            && !tokens
                .get(i + 1)
                .is_some_and(|t| matches!(t.folded.as_str(), "simple" | "sencillo"))
    })
}

/// Whether the outbound word at token `i` begins a round trip: "ida y vuelta", "ida e
/// volta", "aller-retour", "andata e ritorno", "hin und zurück".
fn round_trip_at(tokens: &[Token], i: usize) -> bool {
    let outbound = tokens
        .get(i)
        .is_some_and(|t| OUTBOUND.contains(&t.folded.as_str()) || t.folded == "hin");
    let joined = tokens
        .get(i + 1)
        .is_some_and(|t| matches!(t.folded.as_str(), "y" | "e" | "et" | "und" | "-" | "and"));
    outbound
        && joined
        && tokens
            .get(i + 2)
            .is_some_and(|t| RETURNING.contains(&t.folded.as_str()))
}

/// Words that start the way back in the six languages (folded).
const RETURNING: &[&str] = &[
    "back",
    "return",
    "returning",
    "vuelta",
    "volver",
    "regreso",
    "regresar",
    "retour",
    "revenir",
    "rentrer",
    "zuruck",
    "ruckfahrt",
    "ruckflug",
    "ruckreise",
    "volta",
    "voltar",
    "regresso",
    "ritorno",
    "tornare",
    "rientro",
];

/// Marks that end a clause.
const CLAUSE_ENDS: &[&str] = &[".", ";", "!", "?", ","];

/// The byte ranges of `text` that speak of the way back: from each word of [`RETURNING`] to
/// its clause's end (a mark or a line's end).
fn way_back(text: &str, tokens: &[Token]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // The way back of a round trip's name is no leg of its own ("ida y vuelta").
        let round_trip = i >= 2 && round_trip_at(tokens, i - 2);
        if tokens[i].kind == Kind::Word
            && RETURNING.contains(&tokens[i].folded.as_str())
            && !round_trip
        {
            let floor = out.last().map_or(0, |r: &std::ops::Range<usize>| r.end);
            let start = tokens[clause_start(text, tokens, i, floor)].start;
            let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
            let end = (i + 1..tokens.len())
                .find(|&k| {
                    tokens[k].start >= line_end
                        || (CLAUSE_ENDS.contains(&tokens[k].lower.as_str())
                            && !ordinal_dot(tokens, k))
                })
                .map_or(line_end, |k| tokens[k].start.min(line_end));
            out.push(start..end);
            i = tokens.partition_point(|t| t.start < end);
            continue;
        }
        i += 1;
    }
    out
}

/// Whether token `k` is the dot of a German ordinal day before its month ("am 3. Januar"),
/// which ends no clause.
fn ordinal_dot(tokens: &[Token], k: usize) -> bool {
    tokens[k].lower == "."
        && !tokens[k].spaced
        && k >= 1
        && tokens[k - 1].kind == Kind::Number
        && tokens
            .get(k + 1)
            .is_some_and(|t| super::dates::is_month(&t.folded))
}

/// Where the way back whose word is token `i` starts: at that word, or, for German
/// "zurück" at its clause's end ("Ich fliege am 3. Januar zurück"), a separable verb's
/// particle, at the clause's start (after a mark, a line's start or "und"; the dot of an
/// ordinal day, "3.", ends nothing), never before `floor` (where the way back before it
/// ends).
fn clause_start(text: &str, tokens: &[Token], i: usize, floor: usize) -> usize {
    let ends_clause =
        |t: &Token| CLAUSE_ENDS.contains(&t.lower.as_str()) || text[t.start..].starts_with('\n');
    let last = tokens
        .get(i + 1)
        .is_none_or(|next| ends_clause(next) || text[tokens[i].start..next.start].contains('\n'));
    if tokens[i].folded != "zuruck" || !last {
        return i;
    }
    let mut at = i;
    while at > 0 {
        let before = &tokens[at - 1];
        let ordinal_dot =
            before.lower == "." && at >= 2 && tokens[at - 2].kind == Kind::Number && !before.spaced;
        let line_break = text[before.start..tokens[at].start].contains('\n');
        // Never into the way back before it: the ranges stay apart.
        if before.start < floor
            || line_break
            || before.folded == "und"
            || (ends_clause(before) && !ordinal_dot)
        {
            break;
        }
        at -= 1;
    }
    at
}

/// The conversation split into its legs: the evidence of the way back and of the rest, or
/// `None` where it says no way back.
pub fn split(evidence: &Evidence) -> Option<(Evidence, Evidence)> {
    let text = &evidence.text;
    let back = way_back(text, &evidence.tokens);
    if back.is_empty() {
        return None;
    }
    Some(evidence.parted(&back))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legs(text: &str) -> Option<(String, String)> {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 12, 5));
        split(&evidence).map(|(back, out)| (back.text, out.text))
    }

    #[test]
    fn the_way_back_runs_to_its_clause_s_end() {
        let pair = |back: &str, out: &str| Some((back.to_owned(), out.to_owned()));
        assert_eq!(
            legs("flying out to austin on the 18th and back on the 27th. just book the outbound"),
            pair(
                "back on the 27th. ",
                "flying out to austin on the 18th and . just book the outbound"
            )
        );
        assert_eq!(
            legs("vuelo a Lima el martes 8 y vuelta el domingo 20"),
            pair("vuelta el domingo 20. ", "vuelo a Lima el martes 8 y ")
        );
        assert!(legs("a one-way flight to Lima on Tuesday").is_none());
        // German "zurück" ends its clause: the clause is the way back, its ordinal day in it.
        assert_eq!(
            legs("Ich fliege am 3. Januar zurück, such mir was Günstiges"),
            pair(
                "Ich fliege am 3. Januar zurück. ",
                ", such mir was Günstiges"
            )
        );
        // A way back before it ends where this one may start: no overlap.
        assert_eq!(
            legs("Für den Rückflug: am 3. Januar geht's zurück."),
            pair("Rückflug: am 3. Januar geht's zurück. ", "Für den .")
        );
        assert_eq!(
            legs("Hin am 20. Dezember und am 3. Januar zurück"),
            pair("am 3. Januar zurück. ", "Hin am 20. Dezember und ")
        );
        // A round trip's name is no way back.
        assert!(legs("Quiero un vuelo de ida y vuelta a Roma el 12 de diciembre").is_none());
        assert!(legs("Je voudrais un aller-retour pour Rome le 12 décembre").is_none());
    }

    #[test]
    fn a_field_s_leg() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(of_field(&words(&["departure", "date"])), Some(Leg::Out));
        assert_eq!(of_field(&words(&["return", "date"])), Some(Leg::Back));
        assert_eq!(
            of_field(&words(&["fecha", "de", "vuelta"])),
            Some(Leg::Back)
        );
        assert_eq!(of_field(&words(&["hinfahrt"])), Some(Leg::Out));
        assert_eq!(of_field(&words(&["ruckfahrt"])), Some(Leg::Back));
        assert_eq!(of_field(&words(&["date"])), None);
        assert_eq!(of_field(&words(&["hinweis"])), None);
    }
}
