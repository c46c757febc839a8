//! The two ends of a ride or a trip. "Pede um Uber pro aeroporto, eu tô no Shopping
//! Eldorado", "Fahr mich zum Hauptbahnhof, ich steh vor der Goethestraße 12", "from the mall
//! to the airport": a place said only where the user is, or where the ride starts, is no
//! destination; a place said only where it goes is no pick-up.

use super::evidence::Evidence;
use super::other_events::ends_clause;
use super::tokens::{phrase_at, Token};
use super::words::is;

/// Which end of a route a field is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum End {
    Start,
    Destination,
}

/// Words of a field about where a ride goes (folded). Not "to", a message's recipient too.
#[rustfmt::skip]
const DESTINATION_FIELDS: &[&str] = &[
    "destination", "dest", "dropoff", "drop", "destino", "ziel", "fahrtziel", "zielort",
    "zieladresse", "destinazione", "arrivee",
];

/// Words of a field about where a ride starts (folded). Not "from", a message's sender too.
#[rustfmt::skip]
const START_FIELDS: &[&str] = &[
    "pickup", "pick", "origin", "recogida", "origen", "abholort", "abholung", "abholadresse",
    "prise", "origem", "embarque", "partenza", "ritiro", "depart", "departure", "starting",
];

/// The end of a route a field's words are about, if any.
pub fn of_field(words: &[String]) -> Option<End> {
    if words.iter().any(|w| is(DESTINATION_FIELDS, w)) {
        Some(End::Destination)
    } else if words.iter().any(|w| is(START_FIELDS, w)) {
        Some(End::Start)
    } else {
        None
    }
}

/// The end of a route a field's description names, by words that name nothing else
/// ("Last 4 digits of destination account"); not "origin" ("e.g. origin", a git remote) nor
/// "drop" ("the table to drop the column from").
pub fn of_description(words: &[String]) -> Option<End> {
    const DESTINATION: &[&str] = &["destination", "destino", "fahrtziel", "destinazione"];
    const START: &[&str] = &["pickup", "recogida", "abholort"];
    if words.iter().any(|w| is(DESTINATION, w)) {
        Some(End::Destination)
    } else if words.iter().any(|w| is(START, w)) {
        Some(End::Start)
    } else {
        None
    }
}

/// Words that say where the user is, or where a ride starts, right before the place
/// (folded): "I'm at", "eu tô no", "ich steh vor", "je suis devant", "from", "desde".
#[rustfmt::skip]
const HERE: &[&[&str]] = &[
    &["i", "'", "m", "at"], &["i", "'", "m", "in"], &["i", "am", "at"], &["i", "am", "in"],
    &["i", "'", "m", "outside"], &["pick", "me", "up", "at"], &["pick", "me", "up", "from"],
    &["from"],
    &["estoy", "en"], &["estoy", "frente", "a"], &["recogeme", "en"], &["desde"],
    &["je", "suis", "a"], &["je", "suis", "au"], &["je", "suis", "devant"], &["depuis"],
    &["ich", "bin", "am"], &["ich", "bin", "im"], &["ich", "bin", "in"], &["ich", "bin", "an"],
    &["ich", "bin", "vor"], &["ich", "steh", "vor"], &["ich", "stehe", "vor"],
    &["ich", "steh", "am"], &["ich", "stehe", "am"], &["ich", "steh", "an"],
    &["ich", "stehe", "an"], &["von"],
    &["to", "no"], &["to", "na"], &["to", "em"], &["estou", "no"], &["estou", "na"],
    &["estou", "em"],
    &["sono", "a"], &["sono", "al"], &["sono", "alla"], &["sono", "in"], &["sono", "davanti"],
    // Leaving a place: "voo pra Lisboa saindo de Guarulhos".
    &["saindo", "de"], &["saindo", "do"], &["saindo", "da"], &["saliendo", "de"],
    &["saliendo", "del"], &["partant", "de"], &["partant", "du"], &["partendo", "da"],
    &["partendo", "dal"],
];

/// Words that say where a ride goes, right before the place (folded): "to", "pro", "zum".
#[rustfmt::skip]
const THERE: &[&[&str]] = &[
    &["to"], &["hasta"], &["al"], &["jusqu"], &["zum"], &["zur"], &["nach"], &["pro"],
    &["pra"], &["ao"], &["para", "o"], &["para", "a"], &["alla"], &["allo"],
];

/// The clauses that name the end other than `end`: from the words that open one to the end
/// of its clause or the words of the other end, as byte ranges.
fn other_end(tokens: &[Token], end: End) -> Vec<std::ops::Range<usize>> {
    let (other, own) = match end {
        End::Destination => (HERE, THERE),
        End::Start => (THERE, HERE),
    };
    let opens = |words: &[&[&str]], at: usize| phrase_at(tokens, at, words);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // The own end's words are read past whole: "sono alla stazione" is where the user
        // is, its "alla" no destination; "tô no" is no "to".
        if let Some(len) = opens(own, i).filter(|len| opens(other, i).is_none_or(|l| l <= *len)) {
            i += len;
            continue;
        }
        let Some(len) = opens(other, i).filter(|_| !not_a_place(tokens, i)) else {
            i += 1;
            continue;
        };
        let from = i + len;
        let to = (from..tokens.len())
            .find(|&k| ends_clause(tokens, k) || tokens[k].lower == ":" || opens(own, k).is_some())
            .unwrap_or(tokens.len());
        if to > from {
            out.push(tokens[from].start..tokens[to - 1].end);
        }
        i = to.max(i + 1);
    }
    out
}

/// Whether the route word at `at` leads to no place: an infinitive's "to" ("I need to be
/// picked up", "pra mim"), or a place beside another ("next to the Starbucks", "al lado").
fn not_a_place(tokens: &[Token], at: usize) -> bool {
    const BESIDE: &[&str] = &[
        "next", "close", "near", "lado", "frente", "junto", "cerca", "vicino", "davanti",
        "accanto", "neben", "perto", "proche",
    ];
    const NO_PLACE_AFTER: &[&str] = &[
        "be", "get", "go", "come", "pick", "fly", "take", "have", "make", "see", "meet", "drive",
        "ride", "leave", "mim", "me", "you", "salir", "llegar", "lado",
    ];
    at.checked_sub(1)
        .is_some_and(|k| is(BESIDE, &tokens[k].folded))
        || tokens
            .get(at + 1)
            .is_some_and(|t| is(NO_PLACE_AFTER, &t.folded))
}

/// The conversation split into what names the route's other end than `end` and the rest,
/// or `None` where nothing names it.
pub fn split(evidence: &Evidence, end: End) -> Option<(Evidence, Evidence)> {
    let ranges = other_end(&evidence.tokens, end);
    (!ranges.is_empty()).then(|| evidence.parted(&ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn other(text: &str, end: End) -> Vec<String> {
        let tokens = super::super::tokens::tokenize(text);
        other_end(&tokens, end)
            .into_iter()
            .map(|r| text[r].to_owned())
            .collect()
    }

    #[test]
    fn where_the_user_is_is_the_start_and_where_it_goes_the_destination() {
        use End::{Destination, Start};
        assert_eq!(
            other(
                "Pede um Uber pro aeroporto de Guarulhos, eu tô no Shopping Eldorado",
                Destination
            ),
            ["Shopping Eldorado"]
        );
        assert_eq!(
            other(
                "Fahr mich zum Hauptbahnhof, ich steh vor der Goethestraße 12",
                Destination
            ),
            ["der Goethestraße 12"]
        );
        assert_eq!(
            other("a cab from the Eldorado mall to the airport", Destination),
            ["the Eldorado mall"]
        );
        assert_eq!(
            other("a cab from the Eldorado mall to the airport", Start),
            ["the airport"]
        );
        // Nothing said of the other end: nothing apart.
        assert!(other("a cab to the airport", Destination).is_empty());
        assert!(other("I'm at the mall", Start).is_empty());
        assert_eq!(
            other("a cab to the airport, I\u{2019}m at the mall", Destination),
            ["the mall"]
        );
        assert!(other("eu tô no Shopping Eldorado", Start).is_empty());
        assert_eq!(
            other("voo pra Lisboa saindo de Guarulhos", Start),
            ["Lisboa"]
        );
        // Where the user is, read whole; a "to" that leads to no place.
        assert!(other("Sono alla stazione Termini, portami all'aeroporto", Start).is_empty());
        assert!(other("I need to be picked up at the Marriott", Start).is_empty());
        assert!(other("Pick me up next to the Starbucks on Main", Start).is_empty());
        assert!(other("Chama um Uber pra mim na Rua Augusta 500", Start).is_empty());
        assert_eq!(
            other(
                "Take me to the address from the email: 12 Baker Street",
                Destination
            ),
            ["the email"]
        );
        assert_eq!(of_field(&["pickup".into(), "location".into()]), Some(Start));
        assert_eq!(of_field(&["destination".into()]), Some(Destination));
        // A message's "to" and "from" are no route's.
        assert_eq!(of_field(&["to".into()]), None);
        assert_eq!(of_field(&["from".into(), "address".into()]), None);
    }
}
