//! The label a run of digits was said under. "Meine Kundennummer ist 7734 0092", "the
//! tracking number in the email was 9400 1118 ...", "entidade 21312, referência 123 456 789":
//! digits said under another thing's label are that thing's (a customer number is no order
//! number), and where the field's own label stands before other digits, those are the
//! field's. Digits said under no label stay free: grounding may only strip what it can show
//! was not said.

use super::lexicon;
use super::tokens::{cognate, ends_with, stem, words_of, Kind, Token};
use super::words::{is, STOPWORDS};

/// Words that say "number" or "identifier" after a label ("order number", "customer id"), or
/// end a compound label ("Kundennummer", "Bestellnr").
const NUMBER_WORDS: &[&str] = &[
    "number", "no", "nr", "num", "id", "code", "ref", "numero", "nummer", "n", "codigo", "code",
    "kennung", "codice",
];

/// Words between a label and its digits that say nothing: "is", "ist", "é", "was".
const LINKS: &[&str] = &[
    "is", "was", "ist", "war", "es", "era", "est", "etait", "e", "sera", "be",
];

/// Words that join a number word to what it is of: "número de pedido", "il codice della
/// carta".
const OF: &[&str] = &[
    "de", "do", "da", "di", "del", "du", "d", "of", "della", "dello", "dei", "degli", "delle",
    "des", "dos", "das",
];

/// Words of a field's name that are no label of their own (`order_id` is about "order").
const GENERIC: &[&str] = &[
    "id",
    "number",
    "num",
    "no",
    "nr",
    "code",
    "from",
    "to",
    "the",
    "my",
    "your",
    "source",
    "target",
    "destination",
    "new",
    "old",
];

/// How many words before its digits a label may stand, within its clause.
const REACH: usize = 8;

/// A label read before a run of digits.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Label {
    /// Said as a label: "Kundennummer", "tracking number", "número de pedido".
    Named(String),
    /// Only the word right before the digits ("entidade 21312").
    Next(String),
}

impl Label {
    fn word(&self) -> &str {
        match self {
            Label::Named(w) | Label::Next(w) => w,
        }
    }
}

/// The label before the digits that start at byte `start`, read from `tokens`.
pub(super) fn before(tokens: &[Token], start: usize) -> Option<Label> {
    let (clause, adjacent) = clause_before(tokens, start)?;
    for (at, token) in clause.iter().enumerate() {
        let word = token.folded.as_str();
        // A compound that ends in its number word: "kundennummer", "bestellnr".
        if let Some(prefix) = NUMBER_WORDS
            .iter()
            .filter(|n| n.len() >= 3)
            .find_map(|n| word.strip_suffix(n).filter(|p| p.chars().count() >= 4))
        {
            return Some(Label::Named(prefix.to_owned()));
        }
        if is(NUMBER_WORDS, word) {
            // "order number": the word right before it; "número de pedido": the word after
            // "de". An article before it is none ("o número do pedido").
            if let Some(label) = clause
                .get(at + 1)
                .filter(|_| adjacent[at])
                .map(|t| t.folded.as_str())
            {
                if !is(STOPWORDS, label)
                    && !super::language::function_word(label)
                    && label.chars().count() >= 3
                {
                    return Some(Label::Named(label.to_owned()));
                }
            }
            if let Some(label) = named_after(&clause, &adjacent, at) {
                return Some(label);
            }
            let after = at.checked_sub(2).and_then(|i| clause.get(i));
            let linked = at
                .checked_sub(1)
                .and_then(|i| clause.get(i))
                .is_some_and(|t| is(OF, &t.folded));
            // "il numero del tecnico" is the technician's number, which may be a phone's:
            // only a label of the word next to the digits.
            if let (true, Some(label)) = (linked, after) {
                return Some(Label::Next(label.folded.clone()));
            }
        }
    }
    // Else the nearest word that says something: "la facture c'est la 77120" is the
    // invoice's.
    clause
        .iter()
        .map(|t| t.folded.as_str())
        .find(|w| {
            !is(LINKS, w)
                && !is(STOPWORDS, w)
                && !super::language::function_word(w)
                && w.chars().count() >= 3
        })
        .map(|w| Label::Next(w.to_owned()))
}

/// The words of the clause before byte `start`, nearest first and at most [`REACH`], each
/// with whether the word before it in the text stands right against it (no mark between:
/// "order number", not "récentes : n°").
fn clause_before(tokens: &[Token], start: usize) -> Option<(Vec<&Token>, Vec<bool>)> {
    let end = tokens.iter().position(|t| t.start >= start)?;
    let all: Vec<&Token> = tokens[..end]
        .iter()
        .rev()
        // A clause ends at a sentence's marks; JSON's marks end it too (a key is read by
        // the tables of [`super::rows`], not here).
        .take_while(|t| {
            !matches!(
                t.lower.as_str(),
                "." | "," | ";" | "!" | "?" | "\n" | "\"" | "{" | "[" | "="
            )
        })
        .collect();
    let mut clause: Vec<&Token> = Vec::new();
    let mut adjacent: Vec<bool> = Vec::new();
    for (at, token) in all.iter().enumerate() {
        if token.kind != Kind::Word {
            continue;
        }
        clause.push(token);
        adjacent.push(all.get(at + 1).is_some_and(|t| t.kind == Kind::Word));
        if clause.len() == REACH {
            break;
        }
    }
    Some((clause, adjacent))
}

/// "il codice cliente", "numéro client": the word right after the number word at `at` of
/// `clause` (nearest the digits first), against it; only after a number word of four letters
/// or more ("no" and "n" are words of their own).
fn named_after(clause: &[&Token], adjacent: &[bool], at: usize) -> Option<Label> {
    if clause.get(at)?.folded.chars().count() < 4 {
        return None;
    }
    let i = at.checked_sub(1).filter(|i| adjacent[*i])?;
    let label = clause.get(i)?.folded.as_str();
    let names = !is(LINKS, label)
        && !is(STOPWORDS, label)
        && !is(OF, label)
        && !super::language::function_word(label)
        && label.chars().count() >= 3;
    names.then(|| Label::Named(label.to_owned()))
}

/// The words of a field's name that label what it holds (`order_id`: "order").
fn field_words(key: &str) -> Vec<String> {
    words_of(key)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !is(GENERIC, w) && !is(STOPWORDS, w))
        .collect()
}

/// Whether `label` names what `field` (its [`field_words`]) holds: the same word by stem, its
/// word in another of the six languages, or a compound of it ("bestell" of "bestellung").
pub(super) fn fits(label: &str, field: &[String]) -> bool {
    let label = stem(label);
    let meets = |word: &str| {
        let word = stem(word);
        cognate(&word, &label)
            || (label.chars().count() >= 5
                && word.chars().count() >= 5
                && (word.starts_with(&label) || label.starts_with(&word)))
    };
    field
        .iter()
        .any(|f| meets(f) || lexicon::translations(f).iter().any(|t| meets(t)))
}

/// Whether the digits `digits` were said under another label than the field's: every run
/// that holds them named as another thing's, or the field's own label before other digits.
pub(super) fn another_thing_s(
    digits: &str,
    key: &str,
    tokens: &[Token],
    runs: &[(String, usize)],
) -> bool {
    let field = field_words(key);
    if field.is_empty() {
        return false;
    }
    let starts: Vec<usize> = runs
        .iter()
        .filter(|(run, _)| super::evidence::run_holds(run, digits))
        .map(|(_, start)| *start)
        .collect();
    if starts.is_empty() {
        return false;
    }
    // "alte PIN war 5521, die neue ist 9034": the old one for a new one's field, and back;
    // the field's own age is its label.
    let age = |words: &[&str]| {
        (
            words.iter().any(|w| is(OLD, w)),
            words.iter().any(|w| is(NEW, w)),
        )
    };
    let key_words = words_of(key);
    let key_refs: Vec<&str> = key_words.iter().map(String::as_str).collect();
    let (field_old, field_new) = age(&key_refs);
    let aged = |start: usize| {
        if field_old == field_new {
            return None;
        }
        let (old, new) = age(&words_before(tokens, start));
        let other = (old && field_new && !new) || (new && field_old && !old);
        let own = (old && field_old && !new) || (new && field_new && !old);
        Some(other).filter(|_| other || own)
    };
    if starts.iter().any(|start| aged(*start) == Some(false)) {
        return false;
    }
    if starts.iter().all(|start| aged(*start) == Some(true)) {
        return true;
    }
    let holding: Vec<Option<Label>> = starts.iter().map(|start| before(tokens, *start)).collect();
    let fitting = |label: &Option<Label>| label.as_ref().is_some_and(|l| fits(l.word(), &field));
    if holding.iter().any(fitting) {
        return false;
    }
    let all_named_otherwise = holding.iter().all(|l| matches!(l, Some(Label::Named(_))));
    let own_label_elsewhere = runs
        .iter()
        .filter(|(run, start)| {
            !super::evidence::run_holds(run, digits) && run.len() >= 4 && aged(*start) != Some(true)
        })
        .any(|(_, start)| fitting(&before(tokens, *start)));
    all_named_otherwise || own_label_elsewhere
}

/// Words of a field's name that make it about a postal code (folded).
const POSTAL: &[&str] = &[
    "zip",
    "zipcode",
    "postal",
    "postcode",
    "plz",
    "postleitzahl",
    "cap",
    "cp",
    "cep",
    "postale",
];

/// Words right before a postal code and its town ("in 10115 Berlin", "à 75011 Paris").
const IN_TOWN: &[&str] = &[
    "in", "a", "en", "em", "nach", "bei", "aus", ",", "de", "di", "da",
];

/// Whether the digits are said only as a postal code before its town, for a field of an
/// identifier: "Ich wohne in 10115 Berlin" gives no parcel's tracking number. Four or five digits,
/// right after "in" or a comma and right before a capitalized word; four that may be a year
/// (1900 to 2099) never.
pub(super) fn postcode_only(digits: &str, key: &str, tokens: &[Token], text: &str) -> bool {
    // Only a field of an identifier: a place's field ("location") may hold a postal code.
    const IDENTIFIERS: &[&str] = &[
        "tracking",
        "shipment",
        "parcel",
        "order",
        "booking",
        "ticket",
        "invoice",
        "confirmation",
        "sendungsnummer",
        "sendung",
        "pedido",
        "commande",
        "ordine",
        "encomenda",
        "bestellung",
    ];
    let key_words = words_of(key);
    let identifier = key_words
        .iter()
        .any(|w| is(IDENTIFYING, w) || is(IDENTIFIERS, w));
    if !(4..=5).contains(&digits.len()) || key_words.iter().any(|w| is(POSTAL, w)) || !identifier {
        return false;
    }
    if digits.len() == 4
        && digits
            .parse::<u32>()
            .is_ok_and(|y| (1900..2100).contains(&y))
    {
        return false;
    }
    let places: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].kind == Kind::Number && tokens[i].lower == digits)
        .collect();
    let capitalized = |t: &Token| {
        t.kind == Kind::Word
            && text
                .get(t.start..t.end)
                .and_then(|w| w.chars().next())
                .is_some_and(char::is_uppercase)
    };
    !places.is_empty()
        && places.iter().all(|&at| {
            at > 0
                && is(IN_TOWN, &tokens[at - 1].folded)
                && tokens.get(at + 1).is_some_and(capitalized)
        })
}

/// Words that end an identifier's last digits said on their own ("la que termina en 4512",
/// "ending in 0421"), folded, the word right before the digits last.
#[rustfmt::skip]
const ENDING_IN: &[&[&str]] = &[
    &["ending", "in"], &["ends", "in"], &["ending", "with"], &["ends", "with"],
    &["termina", "en"], &["terminada", "en"], &["acaba", "en"], &["finit", "par"],
    &["finissant", "par"], &["terminant", "par"], &["endet", "auf"], &["endend", "auf"],
    &["endet", "mit"], &["termina", "em"], &["terminado", "em"], &["terminada", "em"],
    &["acaba", "em"], &["finisce", "con"], &["finisce", "per"], &["termina", "con"],
    &["termina", "per"],
];

/// Words for a number that identifies ("Kundennummer" ends with one).
const CODE_WORDS: &[&str] = &[
    "number",
    "numero",
    "nummer",
    "code",
    "codigo",
    "codice",
    "id",
    "ref",
    "reference",
    "referencia",
    "kennung",
];

/// Words of a field's name that make it about an identifier: the digits of one are its own.
#[rustfmt::skip]
const IDENTIFYING: &[&str] = &[
    "last", "last4", "digits", "ending", "suffix", "card", "account", "iban", "pin", "code",
    "id", "number", "no", "nr", "num", "reference", "ref", "customer", "client", "cliente",
];

/// Whether a whole number of four digits or more is said only as another thing's identifier,
/// for a field that is about none (an amount, a quantity): under another thing's label ("il
/// codice cliente è 3300") or as an identifier's last digits ("la tarjeta, la que termina en
/// 4512").
pub(super) fn number_of_another_thing(
    value: f64,
    key: &str,
    tokens: &[Token],
    runs: &[(String, usize)],
) -> bool {
    if value.fract() != 0.0 || !(1000.0..1e15).contains(&value) {
        return false;
    }
    if words_of(key).iter().any(|w| is(IDENTIFYING, w)) {
        return false;
    }
    let digits = format!("{}", value as u64);
    let starts: Vec<usize> = runs
        .iter()
        .filter(|(run, _)| *run == digits)
        .map(|(_, start)| *start)
        .collect();
    let tail = |start: usize| {
        let at = tokens.partition_point(|t| t.start < start);
        ends_with(tokens, at, ENDING_IN)
    };
    // Named as another thing ("codice cliente"): every time, by a label not the field's,
    // with a word for a number or a code among the few words before it ("no" of "gastar no
    // máximo 1500" is no number's).
    let field = field_words(key);
    let coded = |start: usize| {
        let at = tokens.partition_point(|t| t.start < start);
        tokens[at.saturating_sub(4)..at].iter().any(|t| {
            is(CODE_WORDS, &t.folded)
                || CODE_WORDS
                    .iter()
                    .any(|w| w.len() >= 6 && t.folded.ends_with(w))
        })
    };
    let named_otherwise = |start: usize| match before(tokens, start) {
        Some(Label::Named(label)) => coded(start) && !fits(&label, &field),
        _ => false,
    };
    !starts.is_empty() && starts.iter().all(|s| tail(*s) || named_otherwise(*s))
}

/// Words that say a thing is the old one (folded).
#[rustfmt::skip]
const OLD: &[&str] = &[
    "old", "former", "previous", "current", "alte", "alten", "alter", "altes", "bisherige",
    "ancien", "ancienne", "antiguo", "antigua", "viejo", "vieja", "anterior", "actual", "antigo",
    "antiga", "velho", "velha", "atual", "vecchio", "vecchia", "precedente", "attuale",
];

/// Words that say a thing is the new one (folded).
#[rustfmt::skip]
const NEW: &[&str] = &[
    "new", "neue", "neuen", "neuer", "neues", "nouveau", "nouvelle", "nouvel", "nuevo", "nueva",
    "novo", "nova", "nuovo", "nuova",
];

/// The four words before the digits starting at byte `start`, in its clause and after any
/// number before them ("current PIN 5521 to 9034": nothing before 9034 is its age).
fn words_before(tokens: &[Token], start: usize) -> Vec<&str> {
    let end = tokens
        .iter()
        .position(|t| t.start >= start)
        .unwrap_or(tokens.len());
    tokens[..end]
        .iter()
        .rev()
        .take_while(|t| (t.kind != Kind::Punct || t.lower == ":") && t.kind != Kind::Number)
        .filter(|t| t.kind == Kind::Word)
        .take(4)
        .map(|t| t.folded.as_str())
        .collect()
}

/// Words that turn down the digits after them: "no al 912 345 687", "not 555 1243".
const REFUSING: &[&str] = &["no", "not", "nicht", "non", "nao", "pas", "never", "nunca"];

/// Whether `token` is a word that turns down what follows it (not "no", which needs a word
/// between: "no 4471" is a number).
pub(super) fn refuses(token: &Token) -> bool {
    token.kind == Kind::Word && token.folded != "no" && is(REFUSING, &token.folded)
}

/// Words that may stand between a refusal and its digits: an article or a preposition ("no
/// al", "not to", "pas au", "non al", "não o").
const BETWEEN: &[&str] = &[
    "al", "a", "el", "la", "le", "the", "to", "il", "o", "um", "uma", "an", "ao", "au", "alla",
    "zu", "die", "der", "den", "el", "del", "lo", "on",
];

/// Words of forgetting before a refusal, which then asks ("vergiss nicht die 0171 ...").
const FORGETTING: &[&str] = &[
    "forget",
    "vergiss",
    "olvides",
    "oublie",
    "esquece",
    "dimenticare",
];

/// Whether every run that holds `digits` is turned down: a refusal right before it, or with
/// one article or preposition between ("llama al 912 345 678, no al 912 345 687"). "No" needs
/// a word between ("no 4471" is a number); a refusal with a mark after it corrects ("no, 555
/// 1243" asks for them), and so does one after a lead-in ("euh non 4512"); one after a word
/// of forgetting asks ("vergiss nicht die 0171").
pub(super) fn turned_down(digits: &str, tokens: &[Token], runs: &[(String, usize)]) -> bool {
    let holding: Vec<usize> = runs
        .iter()
        .filter(|(run, _)| super::evidence::run_holds(run, digits))
        .map(|(_, start)| *start)
        .collect();
    let refused_at = |at: usize| {
        let t = &tokens[at];
        // After a lead-in an answer word corrects ("4521, euh non 4512"); a negation still
        // turns down ("ach nicht die 0171 ...", "oh not 555 1234").
        let answer = matches!(t.folded.as_str(), "no" | "non" | "nao");
        is(REFUSING, &t.folded)
            && !at.checked_sub(1).is_some_and(|k| {
                is(FORGETTING, &tokens[k].folded)
                    || (answer && is(super::taken_back::LEAD_INS, &tokens[k].folded))
            })
    };
    !holding.is_empty()
        && holding.iter().all(|start| {
            let Some(end) = tokens.iter().position(|t| t.start >= *start) else {
                return false;
            };
            let direct = end.checked_sub(1).is_some_and(|k| {
                tokens[k].kind == Kind::Word && tokens[k].folded != "no" && refused_at(k)
            });
            let one_between = end.checked_sub(2).is_some_and(|k| {
                tokens[k].kind == Kind::Word
                    && refused_at(k)
                    && tokens[k + 1].kind == Kind::Word
                    && is(BETWEEN, &tokens[k + 1].folded)
            });
            direct || one_between || set_against(tokens, end, *start, runs, &refused_at)
        })
}

/// A refusal among the five tokens before the run starting at token `end` (`start` in
/// bytes), all words, where another run of digits about as long (three digits or more, at
/// least the run's length less one) stands before the refusal: the one chosen,
/// this one set against it ("the visa ending 4417, not the mastercard ending 1180").
/// Without one, a refusal so far off says something else ("not sure, but the code is 4417",
/// "I ordered 2 items but have not received order 55123").
fn set_against(
    tokens: &[Token],
    end: usize,
    start: usize,
    runs: &[(String, usize)],
    refused_at: &dyn Fn(usize) -> bool,
) -> bool {
    let refusal = (end.saturating_sub(5)..end)
        .rev()
        .take_while(|&k| tokens[k].kind == Kind::Word)
        .find(|&k| refused_at(k));
    let length = runs
        .iter()
        .find(|(_, at)| *at == start)
        .map_or(0, |(run, _)| run.len());
    refusal.is_some_and(|k| {
        runs.iter().any(|(run, other)| {
            *other < tokens[k].start && *other != start && run.len() >= 3 && run.len() + 1 >= length
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn label(text: &str, digits_at: &str) -> Option<Label> {
        let start = text.find(digits_at).unwrap_or_default();
        before(&tokenize(text), start)
    }

    #[test]
    fn labels_before_digits() {
        let named = |w: &str| Some(Label::Named(w.to_owned()));
        assert_eq!(
            label("Meine Kundennummer ist 7734 0092", "7734"),
            named("kunden")
        );
        assert_eq!(
            label("the tracking number in the email was 9400 1118", "9400"),
            named("tracking")
        );
        assert_eq!(
            label("mi número de pedido es 4471", "4471"),
            Some(Label::Next("pedido".to_owned()))
        );
        // An article before the number word is no label: the word after "do" is.
        assert_eq!(
            label("o número do pedido é 883021", "883021"),
            Some(Label::Next("pedido".to_owned()))
        );
        assert_eq!(label("order no. 4471", "4471"), None);
        assert_eq!(label("order no 4471", "4471"), named("order"));
        assert_eq!(
            label(
                "paga a fatura da luz: entidade 21312, referência 123",
                "21312"
            ),
            Some(Label::Next("entidade".to_owned()))
        );
        assert_eq!(label("il codice cliente è 3300", "3300"), named("cliente"));
        assert_eq!(
            label("call 555 0199", "555"),
            Some(Label::Next("call".to_owned()))
        );
    }

    #[test]
    fn digits_said_under_another_things_label() {
        let other = |text: &str, digits: &str, key: &str| {
            let tokens = tokenize(text);
            let runs = super::super::evidence::digit_runs_for_test(text);
            another_thing_s(digits, key, &tokens, &runs)
        };
        let parcel = "wo bleibt mein Paket? Meine Kundennummer ist 7734 0092, die Bestellnummer hab ich nicht";
        assert!(other(parcel, "77340092", "order_number"));
        assert!(!other(parcel, "77340092", "customer_number"));
        let email = "My order 4417-2290 was late. The tracking number in the email was 9400 1118 9922 3300 4512 77.";
        assert!(other(email, "9400111899223300451277", "order_id"));
        assert!(!other(email, "44172290", "order_id"));
        assert!(!other(email, "9400111899223300451277", "tracking_number"));
        let bill = "paga a fatura da luz: entidade 21312, referência 123 456 789, valor 47,30 €";
        assert!(other(bill, "21312", "reference"));
        assert!(!other(bill, "123456789", "reference"));
        // A phone by another word for it; the number "of" someone is no other thing's.
        assert!(!other(
            "Meine Handynummer ist 0171 234 56 78.",
            "01712345678",
            "phone"
        ));
        let boiler = "Il numero del tecnico della caldaia è 347 123 4567, salvalo in rubrica.";
        assert!(!other(boiler, "3471234567", "phone_number"));
        // "n°" with no word right before it labels nothing.
        let orders = "Commandes récentes : n° 58120443 – tasse ; n° 58120467 – plaid";
        assert!(!other(orders, "58120443", "order_number"));
        // A label past a link and an article ("la facture c'est la 77120"), and a label
        // joined by "della".
        let client = "mon numéro client c'est le 553 018, la facture c'est la 77120";
        assert!(other(client, "77120", "customer_number"));
        assert!(!other(client, "553018", "customer_number"));
        let card = "il codice della carta fedeltà è 7720 3318, il PIN 4402";
        assert!(other(card, "4402", "card_number"));
        assert!(!other(card, "77203318", "card_number"));
        // No label, or a field that names nothing: free.
        assert!(!other("ruf 0171 2345678 an", "01712345678", "phone"));
        assert!(!other(parcel, "77340092", "id"));
    }

    #[test]
    fn digits_said_as_a_postal_code_before_its_town() {
        let postcode =
            |text: &str, digits: &str, key: &str| postcode_only(digits, key, &tokenize(text), text);
        let home = "Mein DHL-Paket ist nicht da. Ich wohne in 10115 Berlin, kannst du nachsehen?";
        assert!(postcode(home, "10115", "tracking_number"));
        assert!(postcode("Livrer à 75011 Paris", "75011", "order_id"));
        assert!(postcode("Wien, 1010 Wien", "1010", "order_id"));
        // The field's own, said otherwise too, no town after it, or a year.
        assert!(!postcode(home, "10115", "zip_code"));
        assert!(!postcode(
            "Sendung 10115, ich wohne in 10115 Berlin",
            "10115",
            "tracking_number"
        ));
        assert!(!postcode(
            "Track parcel 48213 in Berlin",
            "48213",
            "tracking_number"
        ));
        assert!(!postcode("In 2026 Berlin hosts it", "2026", "code"));
        // A place's field may hold it.
        assert!(!postcode(
            "What's the weather in 75011 Paris?",
            "75011",
            "location"
        ));
    }

    #[test]
    fn a_number_said_as_another_thing_s_identifier() {
        let other = |text: &str, value: f64, key: &str| {
            let runs = super::super::evidence::digit_runs_for_test(text);
            number_of_another_thing(value, key, &tokenize(text), &runs)
        };
        let bill = "Paga la bolletta del gas, il codice cliente è 3300";
        assert!(other(bill, 3300.0, "amount"));
        assert!(!other(bill, 3300.0, "customer_code"));
        let card = "Quiero pagar la tarjeta, la que termina en 4512";
        assert!(other(card, 4512.0, "amount"));
        assert!(!other(card, 4512.0, "card_last4"));
        // Said as an amount too, said with no label, or too short to be an identifier.
        assert!(!other(
            "il codice cliente è 3300, sono 3300 euro",
            3300.0,
            "amount"
        ));
        assert!(!other("Transfer 4512 to savings", 4512.0, "amount"));
        assert!(!other("la tarjeta que termina en 45", 45.0, "amount"));
        // "no" is a word of its own.
        assert!(!other(
            "Quero gastar no máximo 1500 reais no hotel",
            1500.0,
            "max_price"
        ));
        assert!(!other("No gastes más de 1500 euros", 1500.0, "budget"));
        assert!(other(
            "Meine Kundennummer ist 7734, zahl die Rechnung",
            7734.0,
            "amount"
        ));
    }

    #[test]
    fn digits_turned_down() {
        let down = |text: &str, digits: &str| {
            let runs = super::super::evidence::digit_runs_for_test(text);
            turned_down(digits, &tokenize(text), &runs)
        };
        let shop = "llama a la tienda, al 912 345 678, no al 912 345 687 que ese es el antiguo";
        assert!(down(shop, "912345687"));
        assert!(!down(shop, "912345678"));
        assert!(down("call 555 1234 not 555 1243", "5551243"));
        // A refusal with a mark after it corrects; "no" right before digits is a number's.
        assert!(!down("call 555 1234, no, 555 1243", "5551243"));
        assert!(!down("order no 4471 please", "4471"));
        // After a lead-in a refusal answers, correcting; without one it turns down.
        assert!(!down(
            "mon IBAN finit par 4521, euh non 4512 pardon",
            "4512"
        ));
        assert!(down("mon IBAN finit par 4521, pas 4512", "4512"));
        assert!(down(
            "call Bob, oh not 555 1234, that's his old one",
            "5551234"
        ));
        // A refusal of something else, or after forgetting: the digits are wanted.
        assert!(!down("I do not have 555 1234 saved, call it", "5551234"));
        assert!(!down(
            "Non ho il 333 1234567 in rubrica, chiamalo",
            "3331234567"
        ));
        assert!(!down(
            "Vergiss nicht die 0171 2345678 anzurufen",
            "01712345678"
        ));
        assert!(!down("o número no cartão é 912 345 678", "912345678"));
    }
}
