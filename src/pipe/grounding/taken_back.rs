//! Values taken back. "tradúceme esto al catalán... no, mejor al portugués", "envoie la carte
//! au Canada... ah non, en Belgique", "zahl in Franken... nee, doch lieber in Euro": what a
//! line says before a correction, where the words after it say another value of the same
//! kind, was not asked for. A correction is a refusal standing alone (after a mark or a
//! filler: "... no,", "euh non,"; before a mark, "scratch that", "dai", or a correcting
//! word: "nee doch Baumwolle", "no mejor el martes") or a word that corrects after a mark
//! (", actually", ", mejor por la tarde"; never one that compares or advises: ", mejor que
//! el lunes", ", better add 2 cokes"), with words before it on its line.

use super::tokens::{Kind, Token};
use super::words::is;

/// Refusals that stand alone as an answer ("no,", "ah non,", "nee,", "ach ne,": German "ne"
/// stands alone only so; French "ne" never does, a verb follows it).
pub(super) const REFUSED: &[&str] = &["no", "non", "nee", "ne", "nein", "nao", "nope", "nah"];

/// Words after a refusal that keep it an answer: "no espera,", "non attends,", "nein warte,".
const WAIT: &[&str] = &[
    "wait", "espera", "espere", "attends", "attendez", "warte", "aspetta", "aspetti", "dai",
];

/// Apologies, which keep a refusal before them an answer too ("no sorry,", "non pardon,");
/// alone they correct nothing ("6:30. Sorry, also one for 7:15").
#[rustfmt::skip]
const APOLOGIES: &[&str] = &[
    "sorry", "pardon", "perdon", "perdona", "desculpa", "desculpe", "scusa", "scusi",
    "entschuldigung",
];

/// Words before a refusal that keep it standing alone ("ah non", "enfin non", "ay no").
pub(super) const LEAD_INS: &[&str] = &[
    "ah", "oh", "ay", "enfin", "bueno", "wait", "eh", "ach", "ahh", "euh", "uh", "um", "hmm",
    "ehm", "oops", "ops", "mist", "zut", "mince", "uy", "upa", "ugh", "meh", "hm",
];

/// Words right after a correcting word that make it a comparison: ", mejor que el lunes",
/// ", instead of Monday", ", rather than the blue", ", meglio di niente".
const COMPARING: &[&str] = &["que", "than", "of", "als", "di"];

/// Correcting words that also advise ("Order 3 pizzas, better add 2 cokes"): a correction
/// only after an "or" (", or better, ...").
const ADVISING: &[&str] = &["better", "besser", "instead"];

/// Words that correct what came before right after a mark (", actually the red one", "para
/// el martes, digo, para el miércoles").
pub(super) const AFTER_A_MARK: &[&str] = &[
    "actually",
    "alias",
    "rather",
    "eigentlich",
    "plutot",
    "anzi",
    "invece",
    "digo",
];

/// Two words that say "actually" ("en fait", "en realidad", "na verdade", "in realtà"), and
/// those of [`I_MEAN`]: after a refusal or a mark, they correct.
const IN_FACT: &[[&str; 2]] = &[
    ["en", "fait"],
    ["en", "realidad"],
    ["na", "verdade"],
    ["in", "realta"],
];

/// "para o dia 15... ah, espera, deixa para o 16", "the 15th, oh wait, the 16th": a word
/// that says wait, with a mark after it, corrects too where a mark (or a lead-in) stands
/// before it; "dai" only after a refusal (alone it urges); never right after a colon, where a
/// message is relayed ("Manda a Luca alle 18: aspetta, arrivo alle 19").
fn wait_alone(tokens: &[Token], i: usize) -> bool {
    let word = tokens[i].folded.as_str();
    let after_colon = i >= 1 && tokens[i - 1].lower == ":";
    is(WAIT, word)
        && word != "dai"
        && tokens.get(i + 1).is_some_and(|t| t.kind == Kind::Punct)
        && !after_colon
}

/// Whether the tokens at `at` say [`IN_FACT`] or [`I_MEAN`], the latter only where a value
/// follows, not a clause that gives a reason ("21, I mean it's only 15 in here").
fn in_fact_at(tokens: &[Token], at: usize) -> bool {
    let said = |pair: &[&str; 2]| {
        pair.iter()
            .enumerate()
            .all(|(k, w)| tokens.get(at + k).is_some_and(|t| t.folded == *w))
    };
    let reason = || {
        tokens
            .iter()
            .skip(at + 2)
            .find(|t| t.kind == Kind::Word)
            .is_some_and(|t| is(REASON_OPENERS, &t.folded))
    };
    IN_FACT.iter().any(said) || (I_MEAN.iter().any(said) && !reason())
}

/// Two words that say "I mean": they correct as [`IN_FACT`] does where a value follows them.
const I_MEAN: &[[&str; 2]] = &[
    ["i", "mean"],
    ["i", "meant"],
    ["ich", "meinte"],
    ["quise", "decir"],
    ["quiero", "decir"],
    ["ich", "meine"],
    ["quer", "dizer"],
    ["volevo", "dire"],
    ["veux", "dire"],
    ["quis", "dizer"],
    ["queria", "dizer"],
    ["queria", "decir"],
    ["voulais", "dire"],
    ["wollte", "sagen"],
];

/// Words that open a clause of its own after "I mean" (a reason, not a value): pronouns and
/// demonstratives, folded ("c" of "c'est").
#[rustfmt::skip]
const REASON_OPENERS: &[&str] = &[
    "it", "its", "that", "this", "there", "we", "i", "you", "they", "he", "she", "es", "das",
    "ich", "wir", "c", "ce", "ca", "il", "elle", "on", "nous", "e", "isso", "eso", "esto",
    "questo", "che", "que", "hace", "fait", "fa", "faz", "ist",
];

/// Words after a refusal that say what the value is instead ("no it's", "non c'est", "nee
/// ist"): the refusal answers (folded; "c" of "c'est"). Not Spanish "no es", Portuguese "não
/// é" or Italian "non è", which negate ("el lunes, no es el martes").
const RESTATING: &[&str] = &["its", "it", "c", "ist", "was"];

/// Words that correct what came before after a mark and an "or" (", ou melhor, 15h", ", o
/// mejor el martes"): alone after a mark, some compare instead (", instead of Monday", ",
/// mejor que el lunes"). Choices read them too.
pub(super) const CORRECTING: &[&str] = &[
    "actually",
    "rather",
    "instead",
    "better",
    "mejor",
    "plutot",
    "finalement",
    "lieber",
    "besser",
    "eigentlich",
    "meglio",
    "anzi",
    "invece",
    "melhor",
];

/// The "or" between a mark and a correcting word: "or rather", "o mejor", "ou plutôt",
/// "oder besser", "o meglio", "ou melhor" (Portuguese "o melhor" is "the best").
const OR: &[&str] = &["or", "o", "ou", "oder", "oppure"];

/// Words that cancel what a correction takes back, asking for nothing in its place: "leave
/// it", "forget it", "déjalo", "laisse", "lass es", "deixa", "lasciala", folded.
const CANCEL: &[&str] = &[
    "leave",
    "keep",
    "forget",
    "cancel",
    "nevermind",
    "scratch",
    "deja",
    "dejalo",
    "dejala",
    "olvida",
    "olvidalo",
    "cancela",
    "laisse",
    "oublie",
    "annule",
    "lass",
    "lasse",
    "vergiss",
    "deixa",
    "deixe",
    "esquece",
    "lascia",
    "lasciala",
    "lascialo",
    "lasciale",
    "lasciali",
    "dimentica",
    "annulla",
];

/// How many words into a correction a cancelling word may stand ("anzi no, lasciala").
const CANCEL_REACH: usize = 4;

/// Words that ask for none of a thing, folded: "niente sveglia", "nada de postre", "kein
/// Wecker"; a correction they stand in asks for nothing in place of what it took back.
const NOTHING: &[&str] = &[
    "nothing", "niente", "nulla", "nada", "rien", "nichts", "kein", "keine", "keinen", "nenhum",
    "nenhuma", "nessun", "nessuna", "nessuno",
];

/// How many words into a correction [`NOTHING`] may stand, past the reason before it ("ah no,
/// domani è sabato, niente sveglia").
const NOTHING_REACH: usize = 8;

/// Whether a correction's words (folded, from its start to its line's end) cancel what it
/// took back: a cancelling word near its start, or, in a correction that gives no number of
/// its own (`numbered`), a word that asks for none of the thing ("niente sveglia"; not
/// "keine 4, sondern 5", which corrects).
pub fn cancels(correction: &[&str], numbered: bool) -> bool {
    correction
        .iter()
        .take(CANCEL_REACH)
        .any(|w| is(CANCEL, w) || (*w == "mind" && correction.contains(&"never")))
        || (!numbered
            && correction
                .iter()
                .take(NOTHING_REACH)
                .any(|w| is(NOTHING, w)))
}

/// Verbs that strike a thing off what was asked (folded): "Käse streichen", "quita el pan",
/// "enlève le fromage", "togli il pane".
#[rustfmt::skip]
const STRIKE: &[&str] = &[
    "remove", "delete", "drop", "strike", "quita", "quitar", "quitale", "borra", "borrar",
    "elimina", "eliminar", "saca", "sacar", "enleve", "enlever", "enlevez", "retire",
    "retirer", "supprime", "supprimer", "raye", "streichen", "streich", "streiche", "losche",
    "loschen", "entferne", "entfernen", "tira", "tirar", "remova", "remover", "risca",
    "togli", "togliere", "toglilo", "togliete", "cancella", "levare", "leva",
];

/// Verbs that add a thing to what is asked (folded): what [`struck`] takes back was first
/// asked for with one of them.
#[rustfmt::skip]
const ADD: &[&str] = &[
    "add", "put", "include", "order", "buy", "get", "anade", "agrega", "agregar", "anadir",
    "pon", "incluye", "compra", "pide", "ajoute", "ajouter", "mets", "mettre", "inclus",
    "achete", "commande", "setz", "setze", "schreib", "schreibe", "fug", "fuge", "hinzu",
    "kauf", "kaufe", "bestell", "bestelle", "nimm", "adiciona", "adicionar", "coloca", "bota",
    "inclui", "pede", "aggiungi", "aggiungere", "metti", "includi", "ordina",
    "prendi",
];

/// Whether the words `value` (folded, in order) are said, first in a clause that adds them
/// ([`ADD`]), and the last time with a verb that strikes them within two words before or
/// after, in its clause: "Setz Brot und Käse auf die Liste. Ach, Käse streichen" takes back
/// "Käse". Not a thing only named before ("I bought ham yesterday. Remove ham", a tool's list
/// and "remove the ham"): then it is what to remove.
pub fn struck(value: &[String], tokens: &[Token]) -> bool {
    if value.is_empty() {
        return false;
    }
    let places = super::tokens::places_of(tokens, value);
    let [.., before, last] = places.as_slice() else {
        return false;
    };
    let striking = |at: usize| {
        let back = tokens[..at]
            .iter()
            .rev()
            .take_while(|t| t.kind != Kind::Punct)
            .take(2);
        let ahead = tokens[at + value.len()..]
            .iter()
            .take_while(|t| t.kind != Kind::Punct)
            .take(2);
        back.chain(ahead).any(|t| is(STRIKE, &t.folded))
    };
    let added = |at: usize| {
        tokens[..at]
            .iter()
            .rev()
            .take_while(|t| t.kind != Kind::Punct || t.lower == ",")
            .take(8)
            .any(|t| is(ADD, &t.folded))
    };
    added(*before) && !striking(*before) && striking(*last)
}

/// Where the text is corrected: the byte where its corrected line starts, and the byte where
/// the correction starts (what stands between them was taken back).
pub struct Correction {
    pub line_start: usize,
    pub at: usize,
}

/// The last correction of `text`, read from its `tokens`.
pub fn find(text: &str, tokens: &[Token]) -> Option<Correction> {
    let punct = |i: usize| tokens.get(i).is_some_and(|t| t.kind == Kind::Punct);
    let mut found = None;
    for (i, token) in tokens.iter().enumerate() {
        let word = token.folded.as_str();
        // "no, ...", and "no espera, ...", "nein warte, ...", "no scratch that, ...", or
        // a correcting word right after it ("nee doch Baumwolle", "no mejor el martes").
        let next_is =
            |at: usize, words: &[&str]| tokens.get(at).is_some_and(|t| is(words, &t.folded));
        let answer_ends = punct(i + 1)
            || ((next_is(i + 1, WAIT) || next_is(i + 1, APOLOGIES)) && punct(i + 2))
            || (next_is(i + 1, &["scratch"]) && next_is(i + 2, &["that"]))
            || (next_is(i + 1, CORRECTING) && !next_is(i + 2, COMPARING))
            || in_fact_at(tokens, i + 1)
            || next_is(i + 1, &["doch"]);
        let led_in = i > 0 && is(LEAD_INS, &tokens[i - 1].folded);
        let after_mark_led_in = led_in && i >= 2 && punct(i - 2);
        // After a mark (and a lead-in), the value again or said to be ("4521, euh non 4512
        // pardon", "Table for 5, no 6 people", "18h, ah non c'est 18h30"): a number as
        // written, digits or an hour, not "no 3D".
        let number_again = tokens.get(i + 1).is_some_and(|t| {
            t.kind == Kind::Number
                && t.lower
                    .chars()
                    .all(|c| c.is_ascii_digit() || ".,:h".contains(c))
        });
        let restated = ((i > 0 && punct(i - 1)) || after_mark_led_in)
            && (number_again || next_is(i + 1, RESTATING));
        let alone =
            is(REFUSED, word) && (answer_ends || restated) && i > 0 && (punct(i - 1) || led_in);
        let after_mark = |at: usize| at > 0 && punct(at - 1);
        // "no, mejor": the correcting word is the refusal's, which took back already (a
        // refusal standing alone, with a mark or a lead-in before it).
        let refusal_before = i >= 3
            && is(REFUSED, &tokens[i - 2].folded)
            && (punct(i - 3) || is(LEAD_INS, &tokens[i - 3].folded));
        let after_or = i > 0
            && is(OR, &tokens[i - 1].folded)
            && after_mark(i - 1)
            && !(tokens[i - 1].folded == "o" && word == "melhor");
        // A correcting word right after a mark corrects unless it compares (", mejor que el
        // lunes", ", rather than the window") or advises (", better add 2 cokes"); "I mean"
        // after an apology too (", sorry I mean Tim").
        let apology_before = i >= 2 && is(APOLOGIES, &tokens[i - 1].folded) && punct(i - 2);
        let alone_after_mark = (after_mark(i) || (apology_before && in_fact_at(tokens, i)))
            && !next_is(i + 1, COMPARING);
        let correcting = !refusal_before
            && (((is(AFTER_A_MARK, word) || in_fact_at(tokens, i)) && alone_after_mark)
                || (is(CORRECTING, word) && after_or)
                || (is(CORRECTING, word) && !is(ADVISING, word) && alone_after_mark));
        let waits = wait_alone(tokens, i) && (after_mark(i) || after_mark_led_in);
        // ", bueno, que sean 120": a lead-in, let it be, then the value ("para 4, que sea a
        // las 9" asks for more, it takes nothing back).
        let let_it_be = word == "que"
            && next_is(i + 1, LET_IT_BE)
            && i >= 2
            && punct(i - 1)
            && is(LEAD_INS, &tokens[i - 2].folded)
            && (i + 2..i + 5).any(|at| tokens.get(at).is_some_and(|t| t.kind == Kind::Number));
        // "für Freitag, äh, Samstag meinte ich": the value after the last mark before "I
        // meant" is the correction.
        if let Some(at) = meant_after(tokens, i) {
            found = meant_correction(text, tokens, at).or(found);
            continue;
        }
        if !(alone || correcting || waits || let_it_be) {
            continue;
        }
        // "ah non", "ou melhor": the lead-in is the correction's too.
        let lead_in = (alone && !punct(i - 1)) || (correcting && after_or);
        let at = if lead_in { i - 1 } else { i };
        found = with_words_before(text, tokens, i, at).or(found);
    }
    found
}

/// The correction found at token `i`, starting at token `at`, where words stand before it on
/// its line, or a number: something to take back ("30-4471-82... nee warte, 30-4471-28").
fn with_words_before(text: &str, tokens: &[Token], i: usize, at: usize) -> Option<Correction> {
    let line_start = text[..tokens[i].start].rfind('\n').map_or(0, |n| n + 1);
    let before = tokens[..i]
        .iter()
        .filter(|t| t.start >= line_start)
        .map(|t| match t.kind {
            Kind::Word => 1,
            Kind::Number => 2,
            _ => 0,
        })
        .sum::<usize>();
    (before >= 2).then(|| Correction {
        line_start,
        at: tokens[at].start,
    })
}

/// "I meant" said after the value it corrects to ("Samstag meinte ich", "el martes, quise
/// decir"), ending its clause.
const MEANT_AFTER: &[[&str; 2]] = &[
    ["meinte", "ich"],
    ["mein", "ich"],
    ["i", "meant"],
    ["quise", "decir"],
    ["queria", "dizer"],
    ["volevo", "dire"],
];

/// The most words between the mark and "I meant" ([`MEANT_AFTER`]): a value, not a clause.
const MEANT_REACH: usize = 3;

/// Where the value corrected to starts, where "I meant" stands at `i` after it: the token
/// after the last mark (and a filler: "äh") before it, a value of a few words between.
fn meant_after(tokens: &[Token], i: usize) -> Option<usize> {
    let said = MEANT_AFTER.iter().any(|pair| {
        pair.iter()
            .enumerate()
            .all(|(k, w)| tokens.get(i + k).is_some_and(|t| t.folded == *w))
    });
    let ends = tokens.get(i + 2).is_none_or(|t| t.kind == Kind::Punct);
    if !said || !ends {
        return None;
    }
    let mark = (0..i).rev().find(|&k| tokens[k].kind == Kind::Punct)?;
    let mut start = mark + 1;
    while tokens
        .get(start)
        .is_some_and(|t| is(LEAD_INS, &t.folded) || t.kind == Kind::Punct)
    {
        start += 1;
    }
    let words = i.checked_sub(start)?;
    (1..=MEANT_REACH).contains(&words).then_some(start)
}

/// The correction starting at token `at`, the value before "I meant" ([`meant_after`]), with
/// words before it on its line to take back.
fn meant_correction(text: &str, tokens: &[Token], at: usize) -> Option<Correction> {
    let line_start = text[..tokens[at].start].rfind('\n').map_or(0, |n| n + 1);
    let before = tokens[..at]
        .iter()
        .filter(|t| t.start >= line_start && t.kind != Kind::Punct)
        .count();
    (before >= 2).then(|| Correction {
        line_start,
        at: tokens[at].start,
    })
}

/// Words that open a message correcting the user's earlier ones ("Actually, 3 people",
/// "Finalement mets-en 2", "Afinal são 80", "Lieber 4"), folded; [`IN_FACT`] and "al final",
/// "alla fine" too.
const OPENING: &[&str] = &[
    "actually",
    "rather",
    "instead",
    "finalement",
    "plutot",
    "afinal",
    "eigentlich",
    "lieber",
    "mejor",
    "meglio",
    "anzi",
    "invece",
];

/// Verbs of changing a value that open a correction with what it changes to after them
/// ([`CHANGED_TO`]), folded ("ändere" is "andere").
#[rustfmt::skip]
const CHANGE: &[&str] = &[
    "change", "corrige", "corrija", "corrigez", "cambia", "cambialo", "cambiala", "cambie",
    "modifie", "modifica", "muda", "mude", "altera", "altere", "troca", "andere", "andern",
];

/// Words before the value a change is to: "to", "pra", "a las", "auf", "alle".
const CHANGED_TO: &[&str] = &["to", "pra", "para", "au", "auf", "alle", "pour"];

/// Pronouns between a verb of changing and what it changes to ("change it to", "ändere es
/// auf", "muda isso pra").
const CHANGED_PRONOUNS: &[&str] = &["it", "that", "this", "es", "das", "isso", "lo", "la", "le"];

/// Words for "instead" that make a short message a correction where they end it or a clause
/// after a number ("make that 300 instead", "dann 3 stattdessen"); Italian "invece" opens one
/// ([`OPENING`]) and means "as for" inside a sentence ("Io invece prendo 2 margherite").
const INSTEAD: &[&str] = &["instead", "stattdessen"];

/// Negations that correct after an apology opening a message ("Sorry, not the 3rd, the 4th",
/// "Perdón, no el 3", "Pardon, pas le 3").
const NOT: &[&str] = &["not", "no", "non", "pas", "nicht", "nao", "nein", "nee"];

/// Words that add to a request rather than correct it ("Actually, also book a taxi for 9").
#[rustfmt::skip]
const ADDING: &[&str] = &[
    "also", "too", "another", "add", "additionally", "aussi", "egalement", "ajoute", "ajouter",
    "tambien", "ademas", "anade", "agrega", "auch", "zusatzlich", "noch", "anche", "inoltre",
    "aggiungi", "tambem", "adiciona", "acrescenta",
];

/// The most words a message that opens with a correction may hold: a correction restates a
/// value or two; a longer message asks for something of its own.
const OPENING_WORDS: usize = 12;

/// Whether the message `tokens` (the user's newest, alone) opens with a correction of the
/// user's earlier messages: a correcting word ([`OPENING`], "en fait", "al final"), a refusal
/// answering ("No, the 4th"), or a negation after an apology ("Sorry, not the 3rd, the
/// 4th"), after lead-ins; a short message that adds nothing ([`ADDING`]).
pub fn opens(tokens: &[Token]) -> bool {
    let words: Vec<&str> = tokens
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.folded.as_str())
        .collect();
    if words.len() > OPENING_WORDS {
        return false;
    }
    let Some(first) = tokens
        .iter()
        .position(|t| t.kind != Kind::Punct && !is(LEAD_INS, &t.folded))
    else {
        return false;
    };
    if adds(tokens, first, &words) {
        return false;
    }
    let word = |at: usize| tokens.get(at).map_or("", |t| t.folded.as_str());
    let punct = |at: usize| tokens.get(at).is_some_and(|t| t.kind == Kind::Punct);
    let two = |a: &str, b: &str| word(first) == a && word(first + 1) == b;
    // "Sorry, not ...": the apology, its mark, the negation.
    let apologised = is(APOLOGIES, word(first)) && punct(first + 1) && is(NOT, word(first + 2));
    // "Hmm, make that 300 instead", "make it 2": the value again, as a request.
    let make_it = word(first) == "make" && matches!(word(first + 1), "it" | "that");
    let set_again = set_to_a_number(tokens, first);
    // "instead" ending the message or a clause ("Check Amtrak instead" adds a request: not
    // after a verb's object alone, so only with a number or a day before it).
    let instead = (first..tokens.len()).any(|i| {
        is(INSTEAD, word(i))
            && (tokens.get(i + 1).is_none() || punct(i + 1))
            && tokens[first..i].iter().any(|t| t.kind == Kind::Number)
    });
    // "corrige pra 20h", "change it to 8pm", "ändere es auf 9 Uhr": a verb of changing, then
    // what it changes to.
    // Only a change of what was said, not of a thing it names ("change the subject to Budget
    // Review" takes back no recipient): the verb, a pronoun at most, then what it changes to.
    let number_at = |at: usize| tokens.get(at).is_some_and(|t| t.kind == Kind::Number);
    let to_at = |at: usize| {
        is(CHANGED_TO, word(at))
            // Spanish "a" only before its number or hour: "cámbialo a las 9".
            || (word(at) == "a" && (number_at(at + 1) || (word(at + 1) == "las" && number_at(at + 2))))
    };
    let changed_to = is(CHANGE, word(first))
        && (to_at(first + 1) || (is(CHANGED_PRONOUNS, word(first + 1)) && to_at(first + 2)));
    // "facciamo tre", "digamos 5", "sagen wir 8": let us make it.
    let lets = is(LETS, word(first))
        || (matches!(word(first), "sagen" | "machen") && word(first + 1) == "wir");
    is(OPENING, word(first))
        || make_it
        || set_again
        || changed_to
        || instead
        || in_fact_at(tokens, first)
        || two("al", "final")
        || two("alla", "fine")
        // "bueno, que sean 120", "que seja às 9": let it be.
        || (word(first) == "que" && is(LET_IT_BE, word(first + 1))
            && (first + 2..first + 5).any(number_at))
        || (is(REFUSED, word(first)) && punct(first + 1))
        // "no aspetta, fanne quattro", "espera, eran 450": a wait that stands alone.
        || (is(REFUSED, word(first)) && is(WAIT, word(first + 1)) && punct(first + 2))
        // A wait alone corrects before a number ("espera, eran 450"), not before more of the
        // request ("Espera, y la vuelta el domingo").
        || (is(WAIT, word(first))
            && word(first) != "dai"
            && punct(first + 1)
            && (first + 2..first + 5).any(number_at))
        || apologised
        || lets
        || sorry_then(tokens, first)
        || declared_wrong(tokens, first)
}

/// Verbs that set a thing again beside [`super::times::SET_VERBS`] (folded): "bump it to
/// 68", "mach 30", "raise it to 22".
const SET_AGAIN: &[&str] = &["bump", "raise", "lower", "mach", "mache", "machs", "fais"];

/// Whether the message opens by setting a thing to a number that ends its clause ("põe
/// 5h40, tenho que pegar o ônibus", "bump it to 68", "stell es auf 22"): the value again.
/// Not a number that counts a thing named after it ("put 2 bottles of wine in the cart"),
/// which asks for more.
fn set_to_a_number(tokens: &[Token], first: usize) -> bool {
    let word = |at: usize| tokens.get(at).map_or("", |t| t.folded.as_str());
    if !(is(super::times::SET_VERBS, word(first)) || is(SET_AGAIN, word(first))) {
        return false;
    }
    let mut at = first + 1;
    while at < first + 3
        && (is(CHANGED_PRONOUNS, word(at))
            || is(CHANGED_TO, word(at))
            || matches!(word(at), "a" | "at" | "on" | "su" | "em"))
    {
        at += 1;
    }
    let number = tokens.get(at).is_some_and(|t| t.kind == Kind::Number);
    let clause_ends = |k: usize| {
        tokens.get(k).is_none_or(|t| {
            t.kind == Kind::Punct || matches!(t.folded.as_str(), "instead" | "please")
        })
    };
    // A unit only as the last word of its clause: "put 2 kg of flour in the cart" asks for
    // more, "set a 5 minute timer" too.
    let unit = tokens.get(at + 1).is_some_and(|t| {
        super::quantity::is_unit(&t.folded) || matches!(t.folded.as_str(), "h" | "uhr" | "grad")
    });
    number && (clause_ends(at + 1) || (unit && clause_ends(at + 2)))
}

/// Whether the message adds to the request ([`ADDING`]): anywhere in it, but after "let us
/// make it", only in its first clause ("facciamo tre, arriva anche Paolo" gives a reason;
/// "Actually, one more thing: add 3 cokes" asks for more).
fn adds(tokens: &[Token], first: usize, words: &[&str]) -> bool {
    if is(LETS, tokens[first].folded.as_str()) {
        first_clause(tokens).iter().any(|w| is(ADDING, w))
    } else {
        words.iter().any(|w| is(ADDING, w))
    }
}

/// "scusa, torno il 28", "sorry, I meant 8pm": an apology opening the message at `first`, its
/// mark, then a value within a few words or "I mean" (not a clause of its own: "Sorry, forgot
/// to mention, we have 2 kids").
fn sorry_then(tokens: &[Token], first: usize) -> bool {
    is(APOLOGIES, tokens[first].folded.as_str())
        && tokens.get(first + 1).is_some_and(|t| t.kind == Kind::Punct)
        && (tokens
            .iter()
            .skip(first + 2)
            .take(SORRY_REACH)
            .take_while(|t| t.kind != Kind::Punct)
            .any(|t| t.kind == Kind::Number)
            || in_fact_at(tokens, first + 2))
}

/// The most words between an apology's mark and the value it restates ("scusa, torno il 28").
const SORRY_REACH: usize = 4;

/// Linking verbs before a word of [`WRONG`] that make it a verdict on what was said ("ist
/// falsch", "c'est faux", "that's wrong", "está mal", "è sbagliato"), folded.
const VERDICT_LINKS: &[&str] = &[
    "is", "s", "are", "was", "ist", "sind", "war", "est", "es", "esta", "estan", "era", "e",
    "sono", "son", "sao",
];

/// Whether the message's first clause says what was said is wrong: a word of [`WRONG`] after
/// a linking verb, or opening the message ("wrong address, it's ..."); not "faux-filets".
fn declared_wrong(tokens: &[Token], first: usize) -> bool {
    let words: Vec<&Token> = tokens.iter().filter(|t| t.kind == Kind::Word).collect();
    let clause = first_clause(tokens);
    (0..words.len()).any(|i| {
        let word = words[i].folded.as_str();
        is(WRONG, word)
            && clause.contains(&word)
            && (tokens[first].folded == word
                || (i > 0 && is(VERDICT_LINKS, &words[i - 1].folded)))
            // A compound's first part is no verdict ("faux-filets").
            && !tokens
                .iter()
                .position(|t| std::ptr::eq(t, words[i]))
                .and_then(|at| tokens.get(at + 1))
                .is_some_and(|t| t.lower == "-" && !t.spaced)
    })
}

/// "Let it be" after "que": "que sean 120", "que seja às 9".
const LET_IT_BE: &[&str] = &["sea", "sean", "seja", "sejam"];

/// Words that open "let us make it" ("facciamo tre", "digamos 5", "disons 4"), folded.
const LETS: &[&str] = &[
    "facciamo", "fanne", "diciamo", "disons", "digamos", "hagamos", "fazemos", "facamos",
];

/// The words of the message's first clause that says more than an opener, folded.
fn first_clause(tokens: &[Token]) -> Vec<&str> {
    let opener = |w: &str| {
        is(OPENING, w) || is(LEAD_INS, w) || is(APOLOGIES, w) || is(REFUSED, w) || is(WAIT, w)
    };
    let mut clause = Vec::new();
    for token in tokens {
        // A clause ends at a mark between clauses, not at an apostrophe ("that's").
        if token.kind == Kind::Punct {
            if matches!(token.lower.as_str(), "'" | "’" | "-") {
                continue;
            }
            if clause.iter().any(|w: &&str| !opener(w)) {
                break;
            }
            clause.clear();
            continue;
        }
        clause.push(token.folded.as_str());
    }
    clause
}

/// Words that say what was said is wrong ("die Adresse ist falsch, es muss ... sein", "that's
/// wrong, it's 8"), folded.
#[rustfmt::skip]
const WRONG: &[&str] = &[
    "wrong", "incorrect", "falsch", "faux", "fausse", "erronee", "errone", "equivocado",
    "equivocada", "incorrecto", "incorrecta", "errado", "errada", "incorreto", "incorreta",
    "sbagliato", "sbagliata", "errato", "errata",
];

/// Words that start a correction's reason: "no, mejor el martes que el lunes tengo médico",
/// "nee, lieber Dienstag, da ich Montag arbeite", "actually Tuesday, because Monday is full".
const REASONS: &[&str] = &[
    "because", "cause", "since", "porque", "que", "parce", "car", "puisque", "weil", "da", "denn",
    "perche", "poiche", "che", "pois",
];

/// The byte where the reason of a correction starting at byte `at` starts, before `line_end`:
/// a word of [`REASONS`] after the correction's first three words (Portuguese "não dá" is no
/// German "da").
pub fn reason_at(tokens: &[Token], at: usize, line_end: usize) -> Option<usize> {
    tokens
        .iter()
        .filter(|t| t.start >= at && t.start < line_end && t.kind == Kind::Word)
        .skip(3)
        .find(|t| is(REASONS, &t.folded) && !(t.folded == "da" && t.lower != "da"))
        .map(|t| t.start)
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn taken_back(text: &str) -> Option<String> {
        find(text, &tokenize(text)).map(|c| text[c.line_start..c.at].trim().to_owned())
    }

    #[test]
    fn a_correction_takes_back_what_its_line_said_before() {
        assert_eq!(
            taken_back("tradúceme esto al catalán... no, mejor al portugués").as_deref(),
            Some("tradúceme esto al catalán...")
        );
        assert_eq!(
            taken_back("zahl in Franken... nee, doch lieber in Euro").as_deref(),
            Some("zahl in Franken...")
        );
        assert_eq!(
            taken_back("envoie la carte au Canada... ah non, en Belgique").as_deref(),
            Some("envoie la carte au Canada...")
        );
        assert_eq!(
            taken_back("the blue one, actually the red").as_deref(),
            Some("the blue one,")
        );
        // A correcting word after a mark and an "or".
        assert_eq!(
            taken_back("Agenda a call pras 14h, ou melhor, 15h").as_deref(),
            Some("Agenda a call pras 14h,")
        );
        assert_eq!(
            taken_back("book it for 3pm, or rather 4pm").as_deref(),
            Some("book it for 3pm,")
        );
        // A refusal with a filler before it, "scratch that" or "dai" after it, or a
        // correcting word right after it, with no mark.
        assert_eq!(
            taken_back("traduis ça en allemand... euh non, en néerlandais").as_deref(),
            Some("traduis ça en allemand...")
        );
        assert_eq!(
            taken_back("standup at 9:15 — no scratch that, 9:45").as_deref(),
            Some("standup at 9:15 —")
        );
        assert_eq!(
            taken_back("cena alle 8... no dai, facciamo alle 9").as_deref(),
            Some("cena alle 8...")
        );
        assert_eq!(
            taken_back("Programm Feinwäsche... nee doch Baumwolle").as_deref(),
            Some("Programm Feinwäsche...")
        );
        // "Let it be" and a value.
        assert_eq!(
            taken_back("transfiérele a Lucía 150 euros, bueno, que sean 120").as_deref(),
            Some("transfiérele a Lucía 150 euros, bueno,")
        );
        assert_eq!(
            taken_back("Pon el horno a 180, que sea bien caliente").as_deref(),
            None
        );
        // Without a lead-in it asks for more.
        assert_eq!(
            taken_back("Reserva una mesa para 4, que sea a las 9").as_deref(),
            None
        );
        // A word that says wait, alone between marks.
        assert_eq!(
            taken_back("revisão para o dia 15... ah, espera, deixa para o 16").as_deref(),
            Some("revisão para o dia 15... ah,")
        );
        assert_eq!(
            taken_back("book the 15th, wait, make it the 16th").as_deref(),
            Some("book the 15th,")
        );
        // A correcting word alone after a mark, comparing nothing.
        assert_eq!(
            taken_back("a mediodía no que no estoy, mejor por la tarde").as_deref(),
            Some("a mediodía no que no estoy,")
        );
        assert_eq!(
            taken_back("meine Kundennummer ist 4471093, ach ne, 4471098").as_deref(),
            Some("meine Kundennummer ist 4471093,")
        );
        // A refusal answers before the value again, before "it's"/"c'est", before "en
        // fait".
        assert_eq!(
            taken_back("cours de yoga à 18h, ah non c'est 18h30 cette semaine").as_deref(),
            Some("cours de yoga à 18h,")
        );
        assert_eq!(
            taken_back("mon IBAN finit par 4521, euh non 4512 pardon").as_deref(),
            Some("mon IBAN finit par 4521,")
        );
        assert_eq!(
            taken_back("envoie 50 francs suisses... non en fait en euros").as_deref(),
            Some("envoie 50 francs suisses...")
        );
        assert_eq!(
            taken_back("le rouge, en fait le bleu").as_deref(),
            Some("le rouge,")
        );
        // "I mean" after a mark.
        assert_eq!(
            taken_back("Reserva el vuelo para el martes, digo, para el miércoles").as_deref(),
            Some("Reserva el vuelo para el martes,")
        );
        assert_eq!(
            taken_back("book it for Tuesday, I mean Wednesday").as_deref(),
            Some("book it for Tuesday,")
        );
        // "I mean" before a reason of its own corrects nothing.
        assert!(taken_back("Set the heating to 21, I mean it's only 15 degrees in here").is_none());
        assert!(taken_back("Stell die Heizung auf 21, ich meine, es sind nur 15 Grad").is_none());
        // Spanish "no es" negates; "oh no" with no mark before it exclaims.
        assert!(taken_back("reserva el lunes, no es el martes").is_none());
        assert!(taken_back("the printer oh no it jammed again").is_none());
        // "ah non je sais pas" is "I don't know"; "no 3D" and "no 2 tables" refuse a thing.
        assert!(
            taken_back("une table pour 4 à 20h, ah non je sais pas s'ils ont une terrasse")
                .is_none()
        );
        assert!(taken_back("2 tickets for Dune tonight at 9, no 3D please").is_none());
        assert_eq!(
            taken_back("Table for 5, no 6 people please").as_deref(),
            Some("Table for 5,")
        );
        // French "ne" is no refusal of its own.
        assert_eq!(taken_back("je ne sais pas, 4471093 je crois"), None);
        // Only its own line.
        assert_eq!(
            taken_back("pay in euros\nsend it to Canada... no, to Belgium").as_deref(),
            Some("send it to Canada...")
        );
    }

    #[test]
    fn a_message_that_opens_with_a_correction() {
        for text in [
            "Sorry, not the 3rd, the 4th.",
            "Finalement mets-en 2 seulement, il m'en reste une.",
            "Afinal são 80, ele já me devolveu 20.",
            "No, the 4th.",
            "Oh, actually 5 people",
            "En fait, trois personnes",
            "Al final mejor cuatro",
            "Perdón, no el 3, el 4",
            "Hmm, make that 300 instead.",
            "make it 2",
            "corrige pra 20h, por favor",
            "no aspetta, fanne quattro, viene pure Ciro",
            "espera, eran 450, él ya puso el carbón",
            "Mist, ich meinte 6:30",
            "Change it to 8pm",
            "Ändere es auf 9 Uhr",
            "cámbialo a las 9",
            "facciamo tre, arriva anche Paolo",
            "scusa, torno il 28",
            "sorry, I meant 8pm",
            "ops, quis dizer sexta",
            "Mist, die Adresse ist falsch, es muss rechnung@weber-bau.de sein",
            "that's wrong, it's 8",
            "põe 5h40, tenho que pegar o ônibus mais cedo",
            "ugh, bump it to 68",
            "stell es auf 22 Grad",
            "mach 30",
        ] {
            assert!(opens(&tokenize(text)), "{text}");
        }
        // Setting a count of a thing named after it asks for more.
        for text in [
            "put 2 bottles of wine in the cart",
            "set an alarm for 7",
            "put 2 kg of flour in the cart",
            "set a 5 minute timer",
        ] {
            assert!(!opens(&tokenize(text)), "{text}");
        }
        // A verb of changing with no value it changes to after it; a wait that goes on.
        for text in [
            "wait for me at 6",
            "Espera a que llegue el técnico",
            "Change of plans, I'm bringing my sister",
            "Cambia tutto, grazie",
            "Change the subject to Budget Review",
            "Muda a sala para a B12",
            "Espera, y la vuelta el domingo",
            "Aspetta, il ritorno domenica",
        ] {
            assert!(!opens(&tokenize(text)), "{text}");
        }
        // "instead" after no value adds a request; "invece" inside a sentence is "as for".
        for text in ["Check Amtrak instead.", "Io invece prendo 2 margherite."] {
            assert!(!opens(&tokenize(text)), "{text}");
        }
        for text in [
            "Sorry for the delay, 3 people",
            "Actually, also add a taxi for 9",
            "facciamo anche una margherita",
            "Sorry, can you also book 2 seats",
            "Sorry, what about the weather?",
            "Sorry,",
            "Great, and is the wrong-way sign still up?",
            "Thanks, also what went wrong with the order",
            "Actually, one more thing: add 3 cokes",
            "Sorry, forgot to mention, we have 2 kids",
            "Et 2 faux-filets, s'il te plaît",
            "Le faux plafond est à refaire, 3 mètres",
            "Great, 4 it is",
            "No problem at all",
            "Nothing else, thanks",
            "Actually I need them for the printer on the second floor, which takes the big packs",
        ] {
            assert!(!opens(&tokenize(text)), "{text}");
        }
    }

    #[test]
    fn a_correction_that_cancels() {
        let words = |text: &str| -> Vec<String> {
            tokenize(text)
                .into_iter()
                .filter(|t| t.kind == Kind::Word)
                .map(|t| t.folded)
                .collect()
        };
        let cancelled = |text: &str| {
            let found = find(text, &tokenize(text));
            found.is_some_and(|c| {
                let after = words(&text[c.at..]);
                let numbered = tokenize(&text[c.at..])
                    .iter()
                    .any(|t| t.kind == Kind::Number);
                cancels(
                    &after.iter().map(String::as_str).collect::<Vec<_>>(),
                    numbered,
                )
            })
        };
        assert!(cancelled(
            "spostami la riunione a dopodomani... anzi no, lasciala dov'è"
        ));
        assert!(cancelled("move it to Friday... no wait, forget it"));
        assert!(!cancelled("move it to Friday... no wait, to Monday"));
        // None of the thing, past a reason; not far into a correction that gives a value.
        assert!(cancelled(
            "Metti la sveglia alle 6:30. Ah no, domani è sabato, niente sveglia."
        ));
        assert!(cancelled("Pon la alarma a las 7. Ah no, nada de alarma"));
        assert!(!cancelled(
            "Table at 8. No, make it 9 because we will be late and then there is nothing open"
        ));
        // A correction that gives its own number corrects: "keine 4, sondern 5".
        assert!(!cancelled(
            "Tisch am Freitag um 20 Uhr für 4. Nein, keine 4, sondern 5 Personen"
        ));
        assert!(!cancelled(
            "Table for Friday at 8. No, make it 9, nothing earlier"
        ));
    }

    #[test]
    fn a_thing_struck_off_after_it_was_asked_for() {
        let struck_in = |text: &str, value: &str| {
            let words: Vec<String> = tokenize(value).into_iter().map(|t| t.folded).collect();
            struck(&words, &tokenize(text))
        };
        assert!(struck_in(
            "Setz Brot und Käse auf die Einkaufsliste. Ach, Käse streichen, haben wir noch.",
            "Käse"
        ));
        assert!(struck_in(
            "Aggiungi pane e latte alla lista. Togli il latte, ce l'ho",
            "latte"
        ));
        assert!(struck_in("Add eggs and ham. Actually remove ham", "ham"));
        // Said once, with the verb: what to remove; said again without one; another thing
        // struck; named before but never added (a tool's list, a story).
        assert!(!struck_in("Remove the cheese from my list", "cheese"));
        assert!(!struck_in(
            "I bought ham yesterday. Remove ham from the list",
            "ham"
        ));
        assert!(!struck_in(
            "[\"bread\", \"cheese\", \"ham\"] remove the ham",
            "ham"
        ));
        assert!(!struck_in("Remove the cheese. Cheese, I said", "cheese"));
        assert!(!struck_in("Add milk and bread. Remove the bread", "milk"));
    }

    #[test]
    fn a_refusal_of_a_thing_or_an_answer_is_no_correction() {
        assert!(taken_back("No, la doble por favor").is_none());
        assert!(taken_back("pay with card, no cash").is_none());
        assert!(taken_back("book the Lisbon flight with no checked bag").is_none());
        assert!(taken_back("do you want it? no").is_none());
        // A comparison is no correction, nor is Portuguese "o melhor" ("the best").
        assert!(taken_back("Move the meeting to Tuesday, instead of Monday").is_none());
        assert!(taken_back("Pon la reunión el martes, mejor que el lunes").is_none());
        assert!(taken_back("quero o quarto de casal, o melhor que tiver").is_none());
        // A refusal without a mark before it takes nothing back; the correction after it
        // does ("dollars no, actually in euros").
        assert_eq!(
            taken_back("pay me in dollars no, actually in euros").as_deref(),
            Some("pay me in dollars no,")
        );
        // An "or" with no mark before it offers a choice; it corrects nothing.
        assert!(taken_back("red or rather dark red, whichever is in stock").is_none());
        // An "or" before a correcting word keeps it one, whatever follows.
        assert_eq!(
            taken_back("send it to Paris, or rather to Berlin").as_deref(),
            Some("send it to Paris,")
        );
        // A word that advises after a mark corrects nothing.
        assert!(taken_back("Order 3 pizzas, better add 2 cokes").is_none());
        // A wait that is no aside: a verb with its object, or "dai" urging.
        assert!(taken_back("Dile a Ana que espera a que llegue, por favor").is_none());
        assert!(taken_back("Book it for 9, wait for my call before paying").is_none());
        assert!(taken_back("prenota per le 8, dai, che ho fame").is_none());
        assert!(taken_back("Manda a Luca alle 18: aspetta, arrivo alle 19").is_none());
        // A correcting word that compares, or a refusal followed by anything else.
        assert!(taken_back("Book the aisle seat, rather than the window").is_none());
        assert!(taken_back("the blue one, better than nothing").is_none());
        assert!(taken_back("pay with card, no scratch cards please").is_none());
        assert!(taken_back("ship it... no rush though").is_none());
        assert!(taken_back("send the report or better the summary").is_none());
    }
}
