//! The thing a number is said for. "Fai bollire la pasta per 9 minuti e il sugo per 20" says
//! 20 minutes for the sauce, not the pasta; "Mach einen Timer fürs Ei, sieben Minuten, und
//! danach 20 Minuten für den Kuchen" says 20 for the cake, not the egg. A field that names a
//! thing (`pasta_minutes`, "Egg timer duration") takes a number said where that thing is
//! named; one said only in a part that does not name it, where a part that names it says a
//! number of its own, is another thing's.
//!
//! Parts are sentences and the clauses a join starts ("and", "y", "und", "e"); not commas,
//! which set off what a clause says of its thing ("fürs Ei, sieben Minuten").

use super::evidence::Evidence;
use super::facts::Role;
use super::tokens::{stem, Kind, Token};
use super::words::{is, JOINS, STOPWORDS};

/// Words of a field that say what is measured or how, not a thing (folded).
#[rustfmt::skip]
const MEASURES: &[&str] = &[
    "number", "count", "quantity", "qty", "num", "amount", "total", "value", "size",
    "duration", "length", "weight", "price", "cost", "time", "date", "each", "max", "min",
    "maximum", "minimum", "limit", "per", "how", "many", "much", "in", "of", "to", "for",
    "the", "a", "an", "target", "desired", "new", "set", "integer", "float", "positive",
];

/// Whether the token at `k` ends a part: a sentence mark (not a decimal point nor a German
/// ordinal's dot) or a join.
fn ends_part(tokens: &[Token], k: usize) -> bool {
    let t = &tokens[k];
    let after_number = k > 0 && tokens[k - 1].kind == Kind::Number && !t.spaced;
    (t.kind == Kind::Punct && matches!(t.lower.as_str(), "." | ";" | "!" | "?") && !after_number)
        || (t.kind == Kind::Word && is(JOINS, &t.folded))
}

/// The field's words that name a thing: not a measure, a unit, a function word or a number.
fn thing_words(field: &[String]) -> Vec<&String> {
    field
        .iter()
        .filter(|w| {
            w.chars().count() > 2
                && w.chars().all(char::is_alphabetic)
                && !is(MEASURES, w)
                && !is(STOPWORDS, w)
                && !super::quantity::is_unit(w)
        })
        .collect()
}

/// Whether `token` names the thing of one of `things`: the word, its stem, one the other's
/// start of four letters or more ("child" of "children"), or its translation in the lexicon.
fn names(token: &Token, things: &[&String]) -> bool {
    let starts = |long: &str, short: &str| short.chars().count() >= 4 && long.starts_with(short);
    token.kind == Kind::Word
        && things.iter().any(|w| {
            token.folded == **w
                || stem(&token.folded) == stem(w)
                || starts(w, &token.folded)
                || starts(&token.folded, w)
                || super::lexicon::translations(w).contains(&token.folded.as_str())
        })
}

/// The conversation split into the parts that name the field's thing (for a field of
/// `field`'s words) and the rest, or `None` where no part names it, every part does, or no
/// part that names it says a number.
pub fn split(evidence: &Evidence, field: &[String]) -> Option<(Evidence, Evidence)> {
    let things = thing_words(field);
    if things.is_empty() {
        return None;
    }
    let tokens = &evidence.tokens;
    let mut own = Vec::new();
    let mut others = false;
    let mut start = 0;
    for k in 0..=tokens.len() {
        // A join before a number joins items of one list ("IDs 102 for size L and 103 for
        // size M"), not clauses.
        let item_follows = tokens.get(k + 1).is_some_and(|t| t.kind == Kind::Number)
            && tokens[k].kind == Kind::Word;
        let end = k == tokens.len() || (ends_part(tokens, k) && !item_follows);
        if !end {
            continue;
        }
        let part = &tokens[start..k];
        if let (Some(first), Some(last)) = (part.first(), part.last()) {
            if part.iter().any(|t| names(t, &things)) {
                own.push(first.start..last.end);
            } else {
                others = true;
            }
        }
        start = k + 1;
    }
    if own.is_empty() || !others {
        return None;
    }
    let (own, rest) = evidence.parted(&own);
    // A count of its own: not a day, a time or a rank ("my birthday party on the 12th").
    let counted = own.facts.number_spans.iter().any(|n| {
        !n.ordinal && !matches!(own.facts.roles.get(&n.start), Some(Role::Date | Role::Time))
    });
    counted.then_some((own, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str, field: &[&str]) -> Option<(String, String)> {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
        let field: Vec<String> = field.iter().map(|w| w.to_string()).collect();
        split(&evidence, &field).map(|(own, rest)| (own.text.clone(), rest.text.clone()))
    }

    #[test]
    fn a_number_said_where_another_thing_is_named() {
        let (own, rest) = parts(
            "Fai bollire la pasta per 9 minuti e il sugo per 20",
            &["pasta", "minutes"],
        )
        .unwrap_or_default();
        assert!(own.contains("pasta per 9"), "{own}");
        assert!(
            rest.contains("sugo per 20") && !rest.contains("pasta"),
            "{rest}"
        );
        // A comma sets off what the clause says of its thing.
        let (own, _) = parts(
            "Mach einen Timer fürs Ei, sieben Minuten, und danach 20 Minuten für den Kuchen",
            &["duration", "minutes", "egg", "timer", "duration"],
        )
        .unwrap_or_default();
        assert!(own.contains("sieben Minuten"), "{own}");
    }

    #[test]
    fn no_split_without_a_thing_named_with_a_number_of_its_own() {
        // The field names no thing, or nothing the conversation names.
        assert!(parts(
            "Cook it for 9 minutes and the sauce for 20",
            &["duration", "minutes"]
        )
        .is_none());
        assert!(parts("Table for 4 and a cake for 2", &["party", "size"]).is_none());
        // The part that names it says no number, or only a day, a time or a rank: the
        // number may be its.
        assert!(parts(
            "Book a table for Friday and we are 4 people",
            &["table", "size"]
        )
        .is_none());
        assert!(parts(
            "Book a table for my birthday party on the 12th at 8. We'll be 6.",
            &["party", "size"]
        )
        .is_none());
        // Every part names it.
        assert!(parts("3 rooms and each room 10 chairs", &["room", "count"]).is_none());
        // A join before a number joins a list's items, not clauses.
        assert!(parts(
            "inventory levels for item IDs 102 for size L and 103 for size M, threshold 20",
            &["item", "ids", "identifiers", "items", "inventory"]
        )
        .is_none());
        // A decimal point ends no part.
        assert!(parts("the pasta weighs 0.5 kg", &["pasta", "weight"]).is_none());
    }
}
