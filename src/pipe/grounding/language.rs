//! Which languages grounding reads. Its recognizers know English, Spanish, French, German,
//! Portuguese and Italian; a conversation with a line in another language or script ("明日の
//! 8時に4人で", "jutro o ósmej", "morgen om acht uur") may say a date or a count they cannot
//! read, so an unsaid value there is kept and logged as unverified, never stripped (rule
//! `unread`).
//!
//! A line's language is told by its function words (NLTK's stop-word lists, from the
//! `stop-words` crate): short requests are too short for letter statistics ("Crea una nota nueva." reads
//! as Romanian by trigrams), but "una" is Spanish whatever the sentence.

use std::collections::HashSet;
use std::sync::OnceLock;

use whatlang::{Detector, Lang};

use super::tokens::{tokenize, Kind};

/// The languages the recognizers read, by ISO 639-1 code.
pub const READ: [&str; 6] = ["en", "es", "fr", "de", "pt", "it"];

/// Languages written in Latin letters that the recognizers do not read, told apart from the
/// six by their function words (NLTK's lists: short and precise). Other scripts, and the
/// Latin languages with letters none of the six writes (Polish, Czech, Vietnamese), are told
/// by their letters.
const OTHERS: [&str; 12] = [
    "nl", "sv", "da", "no", "tr", "ro", "fi", "hu", "id", "sl", "ca", "gl",
];

/// Function words of the languages NLTK has no list for, folded: Galician's own, which
/// neither Portuguese nor Spanish writes ("unha", "polo", "mañá", "venres").
#[rustfmt::skip]
const MORE_WORDS: &[(&str, &[&str])] = &[
    // English fillers the list lacks that another language's list holds ("like" is
    // Norwegian "equal").
    ("en", &["like", "gonna", "wanna", "pls", "plz"]),
    // German prepositions joined to their article: "fürs Kino", "ins Büro", "aufs Dach".
    // Not "ans", French years.
    ("de", &["fürs", "ins", "aufs", "ums", "übers", "draus", "daraus"]),
    ("gl", &[
        "unha", "unhas", "cunha", "cunhas", "dunha", "nunha", "polo", "pola", "polos", "polas",
        "coa", "coas", "dende", "moi", "xa", "tamen", "mina", "minas", "tua", "sua", "mana",
        "hoxe", "onte", "enton", "ven", "venres", "xoves", "mercores", "luns", "vostede",
        "ningun", "ningunha", "algunha", "outra", "outro", "teno", "facer", "fai",
    ]),
];

/// Calendar words of the six, folded: a line that names a day, a week or a month in one of
/// them is in it, where its function words are too few to tell ("book a car service
/// sometime next week" holds none, and its letters read as Romanian; "ok jeudi ça me va"
/// holds as many Romanian words as French ones). Counted with the function words for a
/// line's language only, never as words without content.
#[rustfmt::skip]
const CALENDAR: &[(&str, &[&str])] = &[
    ("en", &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "today", "tomorrow", "tonight", "yesterday", "next", "month",
        "morning", "afternoon", "evening", "noon", "midnight"]),
    ("es", &["lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo", "hoy",
        "manana", "ayer", "proximo", "proxima", "semana", "tarde", "noche",
        "mediodia", "medianoche"]),
    ("fr", &["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
        "aujourd", "demain", "hier", "prochain", "prochaine", "semaine", "mois", "matin",
        "apres", "soir", "midi", "minuit"]),
    ("de", &["montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
        "heute", "morgen", "gestern", "nachste", "nachsten", "nachstes", "woche", "monat",
        "vormittag", "nachmittag", "abend", "mittag", "mitternacht", "ubermorgen"]),
    ("pt", &["segunda", "terca", "quarta", "quinta", "sexta", "sabado", "domingo", "hoje",
        "amanha", "ontem", "proximo", "proxima", "semana", "manha", "tarde", "noite",
        "madrugada"]),
    ("it", &["lunedi", "martedi", "mercoledi", "giovedi", "venerdi", "sabato", "domenica",
        "oggi", "domani", "ieri", "prossimo", "prossima", "settimana", "mese", "mattina",
        "pomeriggio", "sera", "stasera", "mezzogiorno", "mezzanotte", "dopodomani"]),
];

/// The confidence at which letter statistics read a long line with a single function word of
/// the six as another language.
const LETTERS_SURE_LONG: f64 = 0.1;

/// How many bytes of a line are looked at: the cost stays flat for a long tool result.
const SAMPLE: usize = 600;

/// What the conversation is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Languages {
    /// Some line is in a language or script the recognizers do not read.
    pub unread: bool,
    /// The read language most of the conversation's function words are in.
    pub main: Option<&'static str>,
    /// The read languages some line is in, by their place in [`READ`] (bit 0: English).
    pub present: u8,
}

impl Languages {
    /// Whether `code` (one of [`READ`]) may be written somewhere: any of the six, unless
    /// every line's function words are English ones only. Function words tell English from
    /// the others well, and the others from each other badly ("dos" is Spanish and
    /// Portuguese).
    pub fn may_be(&self, code: &str) -> bool {
        code == "en" || self.unread || self.present != 1
    }

    /// Whether some line's function words are those of `code` (one of [`READ`]).
    pub fn has(&self, code: &str) -> bool {
        READ.iter()
            .position(|c| *c == code)
            .is_some_and(|at| self.present & (1 << at) != 0)
    }
}

struct Lists {
    /// Per language (read first, then the others): its function words, folded.
    words: Vec<(&'static str, HashSet<String>)>,
    /// The same words as each list writes them, with their accents: a word written with an
    /// accent that some list writes counts for a language only as that language writes it
    /// (Romanian "în" is no English "in"); one no list writes so counts as its folded form
    /// ("vén" as Galician "ven").
    written: Vec<HashSet<String>>,
    written_anywhere: HashSet<String>,
}

fn lists() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| {
        let lists: Vec<(&'static str, Vec<String>)> = READ
            .iter()
            .chain(OTHERS.iter())
            .map(|code| {
                let more = MORE_WORDS
                    .iter()
                    .find(|(c, _)| c == code)
                    .map_or(&[][..], |(_, words)| *words);
                let words = stop_words::lookup(code)
                    .unwrap_or_default()
                    .iter()
                    .copied()
                    .chain(more.iter().copied())
                    .map(str::to_lowercase)
                    // One-letter words ("a", "i", "e", "y") are in too many lists to tell.
                    .filter(|w| w.chars().count() > 1)
                    .collect();
                (*code, words)
            })
            .collect();
        let written_anywhere = lists.iter().flat_map(|(_, w)| w.iter().cloned()).collect();
        Lists {
            written_anywhere,
            words: lists
                .iter()
                .map(|(code, words)| {
                    (
                        *code,
                        words.iter().map(|w| super::tokens::fold(w)).collect(),
                    )
                })
                .collect(),
            written: lists
                .into_iter()
                .map(|(_, words)| words.into_iter().collect())
                .collect(),
        }
    })
}

fn sample(text: &str) -> &str {
    let mut end = text.len().min(SAMPLE);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Function-word hits of `text` per language (each written form once: "one, one, one" is one), in
/// the order of [`READ`] then [`OTHERS`].
fn scores(text: &str) -> Vec<(&'static str, usize)> {
    let mut words: Vec<(String, String)> = tokenize(text)
        .into_iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| (t.folded, t.lower))
        .collect();
    words.sort();
    words.dedup();
    let lists = lists();
    // A calendar word is a read language's unless the line holds two words of another
    // language's own ("unha", "pola" of Galician, which writes "domingo" and "noite" too);
    // words of two letters coincide by chance ("ça" and "va" are Romanian words).
    let other_words = lists.words[READ.len()..].iter().any(|(_, list)| {
        words
            .iter()
            .filter(|(folded, _)| {
                folded.chars().count() > 2 && list.contains(folded) && !function_word(folded)
            })
            .count()
            >= 2
    });
    lists
        .words
        .iter()
        .zip(&lists.written)
        .map(|((code, list), written)| {
            let n = words
                .iter()
                .filter(|(folded, lower)| {
                    list.contains(folded)
                        && (folded == lower
                            || written.contains(lower)
                            || !lists.written_anywhere.contains(lower))
                })
                .count();
            let calendar = CALENDAR
                .iter()
                .find(|(c, _)| c == code)
                .filter(|_| !other_words)
                .map_or(0, |(_, days)| {
                    words
                        .iter()
                        .filter(|(folded, _)| {
                            days.contains(&folded.as_str()) && !list.contains(folded)
                        })
                        .count()
                });
            (*code, n + calendar)
        })
        .collect()
}

/// A function word of one of the six languages ("for", "para", "für", "pour", "per").
pub fn function_word(folded: &str) -> bool {
    lists().words[..READ.len()]
        .iter()
        .any(|(_, list)| list.contains(folded))
}

/// A word the recognizers know beside the common words: a function word, an aside ("pls",
/// "asap"), a calendar word or its start, or a number word of the six, or a unit.
fn ours(word: &super::tokens::Token) -> bool {
    let folded = word.folded.as_str();
    function_word(folded)
        || super::words::is(super::words::ASIDES, folded)
        // A calendar word cut short ("thurs", "tues", "dom").
        || CALENDAR
            .iter()
            .any(|(_, days)| days.iter().any(|d| d.starts_with(folded)))
        || super::quantity::is_unit(folded)
        || super::numbers::is_number_word(&word.lower)
}

/// A function word of the conversation's main language ("de" of a Spanish conversation, "it"
/// of an English one; the word itself makes any language it belongs to present).
pub fn function_word_of(folded: &str, languages: &Languages) -> bool {
    lists().words[..READ.len()]
        .iter()
        .any(|(code, list)| languages.main == Some(*code) && list.contains(folded))
}

/// A function word of any language [`lists`] holds.
fn any_function_word(folded: &str) -> bool {
    lists().words.iter().any(|(_, list)| list.contains(folded))
}

/// The best-scoring language of `scores`, when one scores above every other.
fn best(scores: &[(&'static str, usize)]) -> Option<(&'static str, usize)> {
    let top = scores.iter().map(|(_, n)| *n).max().filter(|n| *n > 0)?;
    let mut at_top = scores.iter().filter(|(_, n)| *n == top);
    let first = at_top.next()?;
    // A tie between a read language and another reads as the read one (listed first).
    Some(*first)
}

/// Reads the languages of `text`, line by line (each message is a line or more).
pub fn of(text: &str) -> Languages {
    of_conversation(text, &[])
}

/// The languages of `text`, where the byte ranges `tool_results` hold tools' results: a
/// tool's data ("0 stops €320; 1 stop €180") is no sentence, so its lines tell a language
/// by their letters only (another script, letters none of the six writes), not by their
/// words.
pub fn of_conversation(text: &str, tool_results: &[std::ops::Range<usize>]) -> Languages {
    let mut out = Languages::default();
    let mut totals = vec![0usize; READ.len()];
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let data = tool_results.iter().any(|r| r.contains(&at));
        at += raw.len();
        let line = sample(without_speaker(raw.trim()));
        let letters = line.chars().filter(|c| c.is_alphabetic()).count();
        if letters < 2 {
            continue;
        }
        if unread_letters(line, letters) {
            out.unread = true;
            continue;
        }
        if data {
            continue;
        }
        let scores = scores(line);
        if only_unread_marks(line, &scores) {
            out.unread = true;
        }
        for (i, (total, (_, n))) in totals.iter_mut().zip(&scores).enumerate() {
            *total += n;
            // Every read language with a function word here may be the line's ("les" is
            // French and Spanish).
            if *n > 0 {
                out.present |= 1 << i;
            }
        }
        if unread_words(line, &scores)
            || lettered(line, &scores)
            || unknown(line, &scores)
            || super::vocabulary::unfamiliar(line, ours)
        {
            out.unread = true;
        }
    }
    out.main = main_language(text, &totals);
    out
}

/// A line without the speaker's label a transcript puts before it ("User: ", "Assistant: "):
/// the label is no word of the line's language.
fn without_speaker(line: &str) -> &str {
    ["User:", "Assistant:", "System:", "Tool:"]
        .iter()
        .find_map(|label| line.strip_prefix(label))
        .map_or(line, str::trim_start)
}

/// Whether a line of `letters` letters is in a language the six are not by its letters alone:
/// another script, or letters none of the six writes.
fn unread_letters(line: &str, letters: usize) -> bool {
    // Another script is another language, however short ("東京" is a city said).
    let foreign = line
        .chars()
        .filter(|c| c.is_alphabetic() && !is_latin(*c))
        .count();
    if foreign >= 2 || foreign * 4 >= letters {
        return true;
    }
    // Letters none of the six writes ("ı", "ł", "ő", "ř", "š"), in two words or more, or in
    // one that is no name: a name ("Łódź", "Dvořák") is capitalized inside its line; a word
    // ("brašna", "Zobuď" beginning its line) is not.
    let words: Vec<&str> = line.split_whitespace().collect();
    let marked: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| {
            w.chars()
                .any(|c| c.is_alphabetic() && is_latin(c) && !read_letter(c))
        })
        .map(|(i, _)| i)
        .collect();
    let no_name = |i: &usize| *i == 0 || words[*i].chars().next().is_some_and(char::is_lowercase);
    // "ë" is French in a few words ("Noël"), Albanian in most: in two words of a line, the
    // line is not French ("Më zgjo nesër në orën shtatë").
    let e_diaeresis = words
        .iter()
        .filter(|w| w.to_lowercase().contains('ë'))
        .count();
    marked.len() >= 2 || marked.iter().any(no_name) || e_diaeresis >= 2
}

/// Whether a short line with no function word of the six is in another language: one of its
/// words is a function word of another ("på", "efter", "og") or has a letter none of the six
/// writes ("først"), and its letters read as a language other than the six. Such a line is
/// too short for the other tests, and grounding may only strip what it can read ("Sätt
/// termostaten på tjugoett grader").
fn only_unread_marks(line: &str, scores: &[(&'static str, usize)]) -> bool {
    let words: Vec<&str> = line
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let read: usize = scores[..READ.len()].iter().map(|(_, n)| n).sum();
    if words.len() < 2 || read > 0 {
        return false;
    }
    // Words as written: "var" of "/var/log" is no Swedish "var".
    let lists = lists();
    let function_word = |w: &&str| {
        let folded = super::tokens::fold(w);
        w.chars().all(char::is_alphabetic)
            && lists.words[READ.len()..]
                .iter()
                .any(|(_, list)| list.contains(&folded))
    };
    // A letter none of the six writes marks a word, not a name inside the line ("Remind
    // Paweł tomorrow morning").
    let marked = words.iter().enumerate().any(|(i, w)| {
        function_word(w)
            || (w.chars().all(char::is_alphabetic)
                && w.chars().any(|c| is_latin(c) && !read_letter(c))
                && (i == 0 || w.chars().next().is_some_and(char::is_lowercase)))
    });
    // On three words or more, the letters must show one of the six to outweigh another
    // language's function word: a guess they barely hold ("Ébressz fel holnap fél hétkor"
    // reads as Spanish at 0.02) shows nothing, and grounding may only strip what it can
    // read. Not a letter alone, which a name has ("Remind Paweł tomorrow morning"); two
    // words ("ok pagalo") are too few for letters to show anything either way.
    let by_word = words.len() >= 3 && words.iter().any(function_word);
    marked
        && detector().detect(line).is_none_or(|info| {
            (by_word && info.confidence() < 0.1)
                || !READ
                    .iter()
                    .any(|code| whatlang_of(code) == Some(info.lang()))
        })
}

/// Whether a line in Latin letters is in a language the six are not, by its function-word
/// `scores` and, where they are thin, by letter statistics.
fn unread_words(line: &str, scores: &[(&'static str, usize)]) -> bool {
    let words = line.split_whitespace().count();
    match best(scores) {
        // Another language by two function words at least: one ("to", "one") is shared.
        // Where fewer than two are its own (not also words of the six: "para" is Spanish
        // and Portuguese too), the letters decide ("Reserva a pousada para o dia 5" holds
        // Indonesian "para" and "dia").
        Some((code, hits)) if words >= 3 && hits >= 2 && !READ.contains(&code) => {
            // With one word of its own at most, the letters must name that language or a
            // kin of it: "Fammi vedere prima il prezzo" holds two Romanian function words
            // (one Italian) and reads as Slovene at 0.15, "Crea una incidencia: el wifi de
            // la sala de reuniones va lento" (Spanish 4, Romanian 5) as Catalan at 0.07, "No,
            // ne ho già troppe" (Italian 2, Catalan 3) as Vietnamese at 0.06.
            own_words(line, code) >= 2
                || detector().detect(line).is_some_and(|info| {
                    kin(code, info.lang())
                        && !READ
                            .iter()
                            .any(|code| whatlang_of(code) == Some(info.lang()))
                })
        }
        // One function word is thin evidence ("na" is Portuguese and Polish), and so are a
        // few that are each another language's too ("es" Catalan, "ya" Indonesian in "es
        // tehnya jangan pakai gula ya"): on a line long enough, letter statistics may
        // overrule them, the more easily the less the words tell.
        Some((code, hits)) if words >= 5 && (hits == 1 || only_shared(line, code)) => {
            // As sure as the words are thin: one function word in eight words or more (of
            // letters: "CAP 20121" holds one) is
            // fewer than a sentence of the six holds ("Reserva taula per a quatre adults i
            // dos nens dissabte vinent"); a short request often has one ("Wake me at half
            // past seven"), and letters read short lines poorly.
            let lettered = line
                .split_whitespace()
                .filter(|w| w.chars().any(char::is_alphabetic))
                .count();
            // Not a guess the letters barely hold: "Set a reminder to call mom tomorrow
            // afternoon" reads as Swedish at 0.06, the Catalan line above at 0.12.
            let sure = if hits == 1 && lettered >= 8 {
                LETTERS_SURE_LONG
            } else if hits == 1 {
                0.5
            } else {
                0.4
            };
            // Names are no evidence of the line's language ("in Łódź").
            detector().detect(&without_names(line)).is_some_and(|info| {
                info.confidence() >= sure
                    && !READ
                        .iter()
                        .any(|code| whatlang_of(code) == Some(info.lang()))
            })
        }
        Some(_) => false,
        // No function word at all: letter statistics decide, on a line long enough for
        // them ("set a reminder" reads as anything).
        None if words >= 4 => detector().detect(line).is_some_and(|info| {
            // Four words are few: a confidence of a fifth already sets another language apart
            // from the six, whose own short lines score near nothing ("Tänd lampan i hallen"
            // reads Swedish at 0.24, "Cancel Netflix subscription now" French at 0.02); a
            // longer line needs a tenth ("add a task: renew car insurance" is Catalan at
            // 0.07, "Vis priserne i svenske kroner" Norwegian at 0.09).
            let sure = match words {
                4 => 0.2,
                _ => 0.1,
            };
            let sure = info.confidence() >= sure;
            sure && !READ
                .iter()
                .any(|code| whatlang_of(code) == Some(info.lang()))
        }),
        None => false,
    }
}

/// Whether a line's letters name a language none of the lists knows, where its function words
/// do not outweigh them: whatlang over every language it has (not only those with a list),
/// sure of another (0.5) on a line of five words or more with one function word of the six at
/// most ("Archeba'r ystafell yn y gwesty...": Welsh at 1.0, one "a"). A short line with no
/// function word tells nothing this way: "Richiamami appena puoi." reads as another language
/// too, and a short Uzbek line barely reads as any.
fn unknown(line: &str, scores: &[(&'static str, usize)]) -> bool {
    let words = line.split_whitespace().count();
    // One word shared by several of the six ("a") is one word.
    let read = scores[..READ.len()]
        .iter()
        .map(|(_, n)| *n)
        .max()
        .unwrap_or(0);
    // The letters are read only where the words leave it open.
    if words < 5 || read > 1 {
        return false;
    }
    // A long line with no function word of the six at all is in none of them, unless its
    // letters say it is (a list of things: "tomatoes onions garlic basil olive oil salt").
    // Words of letters only: an itinerary's codes and numbers say no language.
    let lettered = line
        .split_whitespace()
        .filter(|w| w.chars().all(char::is_alphabetic))
        .count();
    let none_of_ours = read == 0 && lettered >= LONG_WITHOUT_OURS;
    whatlang::detect(&without_names(line)).is_some_and(|info| {
        let ours = READ
            .iter()
            .any(|code| whatlang_of(code) == Some(info.lang()));
        !ours && (info.confidence() >= 0.5 || (none_of_ours && info.confidence() >= 0.1))
    })
}

/// Words from which a line with no function word of the six is in another language.
const LONG_WITHOUT_OURS: usize = 9;

/// `line` without its names: the words after its first that begin with a capital.
fn without_names(line: &str) -> String {
    line.split_whitespace()
        .enumerate()
        .filter(|(i, w)| *i == 0 || !w.chars().next().is_some_and(char::is_uppercase))
        .map(|(_, w)| w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether every function word of `code` (one of the six) in `line` is a function word of
/// another language too ("es" is Catalan, "ya" Indonesian; "sul" is only Italian).
fn only_shared(line: &str, code: &str) -> bool {
    let lists = lists();
    let Some((_, list)) = lists.words.iter().find(|(c, _)| *c == code) else {
        return false;
    };
    // Word by word, stopping at the first that is only this language's (most lines).
    line.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(super::tokens::fold)
        .filter(|w| list.contains(w))
        .all(|w| {
            lists.words[READ.len()..]
                .iter()
                .any(|(_, other)| other.contains(&w))
        })
}

/// Sounds every language writes, which some lists hold as another's function words ("ah"
/// is Catalan's): they tell no language.
const INTERJECTIONS: &[&str] = &["ah", "oh", "eh", "uh", "ha", "ay", "ok", "hm", "hmm"];

/// How many distinct words of `line` are function words of `code` and of none of the six
/// ("ah no fa un freddo cane" holds one of Catalan's, "fa").
fn own_words(line: &str, code: &str) -> usize {
    let Some((_, list)) = lists().words.iter().find(|(c, _)| *c == code) else {
        return 0;
    };
    let mut words: Vec<String> = tokenize(line)
        .into_iter()
        .filter(|t| {
            t.kind == Kind::Word
                && list.contains(&t.folded)
                && !function_word(&t.folded)
                && !INTERJECTIONS.contains(&t.folded.as_str())
                // A unit is every language's ("min" is Norwegian "my" too).
                && !super::quantity::is_unit(&t.folded)
        })
        .map(|t| t.folded)
        .collect();
    words.sort();
    words.dedup();
    words.len()
}

/// The read language most function words of `text` are in (`totals`, by [`READ`]), or else
/// the one its letters read as.
fn main_language(text: &str, totals: &[usize]) -> Option<&'static str> {
    let top = totals.iter().copied().max().unwrap_or(0);
    let tied: Vec<&'static str> = READ
        .iter()
        .zip(totals)
        .filter(|(_, n)| top > 0 && **n == top)
        .map(|(code, _)| *code)
        .collect();
    match tied.as_slice() {
        [one] => Some(*one),
        // No function word at all ("Recuérdame llamar a mamá"), or as many of two languages
        // ("um" is German and Portuguese: "cria um lembrete"): letter statistics among them.
        _ => {
            let among = if tied.is_empty() {
                &READ[..]
            } else {
                &tied[..]
            };
            // Short lines read poorly ("Crea una nota nueva." is Italian at 0.12): between
            // tied languages the letters decide only when sure, or else the first listed.
            let lang =
                Detector::with_allowlist(among.iter().filter_map(|c| whatlang_of(c)).collect())
                    .detect(sample(text))
                    .filter(|info| tied.is_empty() || info.confidence() >= 0.5)
                    .map(|info| info.lang());
            // A letter only one of them writes ("Põe" is Portuguese, "año" Spanish) decides
            // before the statistics.
            own_letter(text, among)
                .or_else(|| {
                    among
                        .iter()
                        .copied()
                        .find(|code| lang.is_some() && whatlang_of(code) == lang)
                })
                .or(tied.first().copied())
        }
    }
}

/// Letters that of the six only one language writes.
const OWN_LETTERS: &[(&str, &[char])] = &[
    ("pt", &['ã', 'õ']),
    ("es", &['ñ', '¿', '¡']),
    ("de", &['ß', 'ä', 'ö']),
    ("fr", &['œ', 'ë', 'ÿ']),
    ("it", &['ì', 'ò']),
];

/// The one language of `among` whose own letters ([`OWN_LETTERS`]) `text` writes, where no
/// other of `among` has its own letters there too.
fn own_letter(text: &str, among: &[&'static str]) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let mut found = among.iter().copied().filter(|code| {
        OWN_LETTERS
            .iter()
            .find(|(c, _)| c == code)
            .is_some_and(|(_, letters)| lower.contains(*letters))
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Whether free text (a value a translator wrote) is in English rather than in `main`: a
/// translator writes the user's words in the conversation's language or in English.
pub fn english_rather_than(value: &str, conversation: &[String], main: &str) -> bool {
    let words: Vec<String> = tokenize(value)
        .into_iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.folded)
        .collect();
    // Most of its content words written in the conversation ("renew car insurance" in
    // "Renew car and home insurance") say the value is in the conversation's own words,
    // whatever its function words: the conversation's language was misread, not
    // translated. Names do not count: "María" is written alike in every language.
    let capitalized: Vec<String> = value
        .split_whitespace()
        .skip(1)
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(|w| super::tokens::fold(w.trim_matches(|c: char| !c.is_alphanumeric())))
        .collect();
    let content: Vec<&String> = words
        .iter()
        .filter(|w| w.chars().count() >= 3 && !any_function_word(w) && !capitalized.contains(w))
        .collect();
    let shared = content.iter().filter(|w| conversation.contains(w)).count();
    if !content.is_empty() && shared * 2 > content.len() {
        return false;
    }
    let scores = scores(value);
    let score = |code: &str| {
        scores
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(0, |(_, n)| *n)
    };
    match score("en").cmp(&score(main)) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        // No function word tells. Words shared with the conversation are its language's;
        // else letter statistics between the two ("Call mom" for "llamar a mamá" is English,
        // "Riunione annullata" Italian).
        std::cmp::Ordering::Equal => {
            if words.iter().any(|w| conversation.contains(w)) {
                return false;
            }
            let pair = [Lang::Eng, whatlang_of(main).unwrap_or(Lang::Eng)];
            if pair[1] == Lang::Eng {
                return false;
            }
            match Detector::with_allowlist(pair.to_vec()).detect(value) {
                Some(info) if info.lang() == Lang::Eng => true,
                // Plain letters the statistics barely place ("Buy milk" as German): English.
                Some(info) => value.is_ascii() && info.confidence() < 0.1,
                None => value.is_ascii(),
            }
        }
    }
}

/// Languages in Latin letters with no function-word list here that whatlang tells apart by
/// their letters (Afrikaans, Tagalog, Zulu, Shona; Swahili reads as Zulu), each with a few
/// of its function words, one of which the line must hold (letters alone read short Spanish
/// commands as Tagalog: "Pon alarma mañana temprano"): a line in one of them is unread however few of its words look like the six's ("Patayin mo
/// ang ilaw sa kusina" holds French "sa"). Not Latin nor Esperanto, whose words are the
/// six's own, nor the close kin of a language listed (Javanese of Indonesian, Azerbaijani
/// of Turkish), nor those whose own letters tell them already (Lithuanian, which short
/// Italian lines read as). Told apart from the six only ([`lettered`]): beside the others, a kin
/// language would halve whatlang's confidence in the other.
#[rustfmt::skip]
const LETTERED: &[(Lang, &[&str])] = &[
    (Lang::Afr, &["n", "vir", "nie", "die", "asseblief", "van", "het", "ek", "jy", "ons", "om",
        "met", "asb"]),
    (Lang::Tgl, &["ang", "ng", "mga", "mo", "po", "sa", "ko", "ako", "ba", "kay", "ito", "yung",
        "naman", "lang"]),
    // Swahili reads as Zulu by its letters.
    (Lang::Zul, &["kila", "na", "ya", "wa", "kwa", "ni", "za", "cha", "tafadhali", "ngi",
        "ukuthi", "futhi"]),
    (Lang::Sna, &["ndi", "kuti", "uye", "ne", "pa", "ku", "ndapota", "iye"]),
];

/// Whether a line of four words or more (three read as anything: "apaga a pasta"), with one function word of the six at most, reads
/// by its letters as one of [`LETTERED`] rather than one of the six.
fn lettered(line: &str, scores: &[(&'static str, usize)]) -> bool {
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    let read: usize = scores[..READ.len()]
        .iter()
        .map(|(_, n)| n)
        .max()
        .copied()
        .unwrap_or(0);
    // Words only, and no names: a file name or a number tells no language by its letters
    // ("rename screenshot-2026-11-27.png to receipt.png").
    let named = without_names(line);
    let words: Vec<&str> = named
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\''))
        .collect::<Vec<_>>();
    if read > 1 || words.len() < 4 {
        return false;
    }
    let folded: Vec<String> = words.iter().map(|w| super::tokens::fold(w)).collect();
    let words = words.join(" ");
    let detector = DETECTOR.get_or_init(|| {
        Detector::with_allowlist(
            READ.iter()
                .filter_map(|code| whatlang_of(code))
                .chain(LETTERED.iter().map(|(lang, _)| *lang))
                .collect(),
        )
    });
    detector.detect(&words).is_some_and(|info| {
        info.confidence() >= 0.25
            && LETTERED.iter().any(|(lang, own)| {
                *lang == info.lang()
                    && folded
                        .iter()
                        .any(|w| own.contains(&w.trim_start_matches('\'')))
            })
    })
}

/// whatlang over the read languages and the others, by their ISO 639-3 names.
fn detector() -> &'static Detector {
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    DETECTOR.get_or_init(|| {
        Detector::with_allowlist(
            READ.iter()
                .chain(OTHERS.iter())
                .chain(["pl", "cs", "sk", "hr", "vi"].iter())
                .filter_map(|code| whatlang_of(code))
                .collect(),
        )
    })
}

/// Languages whose function words and letters are alike, so that a line's words and its
/// letters may name two of one group ("Sæt en timer på et kvarter": Danish words, Norwegian
/// letters); of those [`detector`] tells apart.
const KIN: &[&[Lang]] = &[
    &[Lang::Swe, Lang::Dan, Lang::Nob],
    &[Lang::Slv, Lang::Hrv, Lang::Ces, Lang::Slk, Lang::Pol],
];

/// Whether whatlang's `lang` is the language `code` (a function-word list's) or its kin; any
/// language for a list whatlang has no name for (Galician), as before there was this check.
fn kin(code: &str, lang: Lang) -> bool {
    let Some(own) = whatlang_of(code) else {
        return true;
    };
    own == lang
        || KIN
            .iter()
            .any(|group| group.contains(&own) && group.contains(&lang))
}

/// whatlang's name of a language by its ISO 639-1 code.
fn whatlang_of(code: &str) -> Option<Lang> {
    Some(match code {
        "en" => Lang::Eng,
        "es" => Lang::Spa,
        "fr" => Lang::Fra,
        "de" => Lang::Deu,
        "pt" => Lang::Por,
        "it" => Lang::Ita,
        "nl" => Lang::Nld,
        "sv" => Lang::Swe,
        "da" => Lang::Dan,
        "no" => Lang::Nob,
        "pl" => Lang::Pol,
        "cs" => Lang::Ces,
        "sk" => Lang::Slk,
        "tr" => Lang::Tur,
        "ro" => Lang::Ron,
        "fi" => Lang::Fin,
        "hu" => Lang::Hun,
        "id" => Lang::Ind,
        "vi" => Lang::Vie,
        "sl" => Lang::Slv,
        "hr" => Lang::Hrv,
        "ca" => Lang::Cat,
        _ => return None,
    })
}

/// A letter of the six languages' alphabets.
fn read_letter(c: char) -> bool {
    c.is_ascii_alphabetic()
        || "àâäáãåçéèêëíìîïñóòôöõœæúùûüÿßÀÂÄÁÃÅÇÉÈÊËÍÌÎÏÑÓÒÔÖÕŒÆÚÙÛÜŸ".contains(c)
}

fn is_latin(c: char) -> bool {
    // Basic Latin through Latin Extended Additional, and the Latin ligatures.
    matches!(c as u32, 0x0041..=0x024F | 0x1E00..=0x1EFF | 0xFB00..=0xFB06)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_six_languages_are_read() {
        for (text, main) in [
            (
                "Book a table for four people tomorrow at eight in the evening",
                "en",
            ),
            (
                "Reserva una mesa para cuatro personas mañana a las ocho de la tarde",
                "es",
            ),
            ("Crea una nota nueva.", "es"),
            // A name with a letter none of the six writes; a short request with one
            // function word.
            ("Book a hotel in Łódź for two nights", "en"),
            ("Wake me at half past seven.", "en"),
            // Romanian by its letters (0.82), but "sul" is only Italian.
            ("Il file pesa 800 MB, caricalo sul drive.", "it"),
            // "um" is German and Portuguese too: the letters tell.
            ("cria um lembrete 'ligar pra vó'", "pt"),
            // Catalan "ah" and "fa": "ah" is every language's. Norwegian "like" and
            // "min": "like" is English too, "min" a unit.
            ("log a 10 mile bike ride for me, took like 45 min", "en"),
            (
                "prenota il tavolo all'aperto... ah no fa un freddo cane, dentro",
                "it",
            ),
            (
                "Réserve une table pour quatre personnes demain à vingt heures",
                "fr",
            ),
            ("Erinnere mich morgen an den Arzttermin.", "de"),
            (
                "Reserva uma mesa para quatro pessoas amanhã às oito da noite",
                "pt",
            ),
            (
                "Prenota un tavolo per quattro persone domani alle otto di sera",
                "it",
            ),
            // More function words of Romanian or Catalan than of Spanish or Italian, all
            // shared but one, and letters that read as another language still (Catalan,
            // Vietnamese, Slovene).
            (
                "Crea una incidencia: el wifi de la sala de reuniones va lento.",
                "es",
            ),
            ("No, ne ho già troppe.", "it"),
            ("Fammi vedere prima il prezzo.", "it"),
            // One English function word in eight words, letters at 0.06 Swedish.
            ("Set a reminder to call mom tomorrow afternoon.", "en"),
            // No function word, Romanian letters at 0.10: the calendar's words are English.
            ("book a car service sometime next week", "en"),
            // As many Romanian and Catalan function words as French ones, and a French day.
            ("ok jeudi ça me va", "fr"),
        ] {
            let read = of(text);
            assert!(!read.unread, "{text}");
            assert_eq!(read.main, Some(main), "{text}");
        }
    }

    #[test]
    fn other_languages_and_scripts_are_not() {
        assert!(of("明日の夜8時に4人で予約してください").unread);
        assert!(of("Забронируй столик на четверых завтра в восемь").unread);
        assert!(of("Zarezerwuj stolik dla czterech osób jutro o ósmej wieczorem").unread);
        assert!(of("Maak verbinding met de database zonder SSL.").unread);
        // A day of the six's calendar is no evidence against another language's words:
        // Dutch "morgen" is German's, Galician "domingo" Spanish's.
        assert!(of("Zet morgen om acht uur de wekker aan").unread);
        assert!(of("Reserva unha mesa para o domingo pola noite").unread);
        // Two Spanish function words, each another language's too ("es" Catalan, "ya"
        // Indonesian), and Indonesian letters.
        assert!(of("es tehnya jangan pakai gula ya").unread);
        // An address's numbers are no words of a line: one function word in six words.
        assert!(!of("consegna in via Torino 5, CAP 20121 Milano").unread);
        // A speaker's label is no word of the line.
        assert!(!of("User: mostrami i ticket aperti").unread);
        assert!(of("User: Maak verbinding met de database zonder SSL.").unread);
        // One function word of the six in ten words (Catalan); a letter none of the six
        // writes in a word that is no name (Croatian, Slovak).
        assert!(of("Reserva taula per a quatre adults i dos nens dissabte vinent").unread);
        assert!(of("Dodaj kilu i pol brašna na popis").unread);
        assert!(of("Zobuď ma zajtra o pol siedmej").unread);
        assert!(of("Zamów trzy bilety na koncert w Spodku w sobotę.").unread);
        // Function words of one language and letters of its kin (Danish and Norwegian,
        // Slovene and Czech or Slovak).
        assert!(of("Sæt en timer på et kvarter").unread);
        assert!(of("kolik je 1000 korun v eurech?").unread);
        assert!(of("Rezervuj mi letenku do Londýna na piatok.").unread);
        // Letters whatlang is sure of, of a language no list knows (Welsh, Uzbek), outweigh
        // one function word of the six; not an English line of as many words.
        assert!(of("Archeba'r ystafell yn y gwesty yng Nghaerdydd ar gyfer nos Sadwrn, a ie, gyda brecwast").unread);
        assert!(
            of("Shanba kuni kechqurunga ikki kishilik stol band qil, yo'q, to'rt kishilik").unread
        );
        assert!(!of("Book a room at the Cardiff hotel for Saturday night with breakfast").unread);
        // Terse lines of five words or more with one function word at most, which reach the
        // letters.
        for line in [
            "Book hotel Cardiff Saturday night breakfast",
            "Cancel Netflix subscription starting next month",
            "Reservar mesa cuatro personas viernes noche",
            "Termin Zahnarzt nächsten Dienstag vormittag eintragen",
            "Prenota tavolo quattro persone venerdì sera",
            "Marcar consulta dentista próxima terça manhã",
            "Réserve table quatre personnes vendredi soir",
            // Longer, with no function word at all: the letters are one of the six.
            "tomatoes onions garlic basil olive oil salt pepper lemons",
            "Reservar mesa cuatro personas viernes noche terraza Madrid centro",
            "Termin Zahnarzt nächsten Dienstag vormittag eintragen bitte danke schön",
        ] {
            assert!(!super::unknown(line, &super::scores(line)), "{line}");
        }
        // A long line with no function word of the six, whose letters are another's even
        // where whatlang is unsure (Swahili read as Javanese).
        assert!(of("Tafadhali panga barua pepe zangu kuanzia zile za zamani zaidi").unread);
        // Codes and numbers are no words of a language.
        let itinerary = "AF1234 CDG JFK 20/12 08:45 seat 14A economy bag 23kg";
        assert!(!super::unknown(itinerary, &super::scores(itinerary)));
        assert!(!of("Reserva una habitación en el hotel de Cardiff para el sábado").unread);
        // One line in another script is enough: the user's request beside English tool output.
        assert!(of("The tool returned 3 rows.\n東京に送ってください").unread);
        assert!(!of("set a reminder").unread);
        assert!(
            !of("Reschedule event 'Alice-One-one-One' to November 1, 2023 at 8pm London time")
                .unread
        );
        // No function word: letter statistics, which tell Spanish from English, if not from
        // Portuguese.
        let main = of("Recuérdame llamar a mamá.").main;
        assert!(matches!(main, Some("es" | "pt")), "{main:?}");
        // Short English lines and code are read.
        assert!(!of("ok\nls -la /tmp\nRename notes.txt").unread);
        // Short lines with no function word of the six and one of another language, or a
        // letter none of the six writes.
        assert!(of("Sätt termostaten på tjugoett grader.").unread);
        assert!(of("Sortér boligerne efter pris, billigste først.").unread);
        // A function word written with another language's accent is that language's: "în"
        // is Romanian, not English "in"; one no list writes so ("vén") reads as its letters.
        assert!(of("Trimite banii în lei, nu în euro.").unread);
        assert!(!of("Put the money in euros, not in lei.").unread);
        assert!(!of("Rename the Łódź folder").unread);
        // Letters that barely guess one of the six do not outweigh another language's word;
        // two words are too few to tell either way.
        assert!(of("Ébressz fel holnap fél hétkor").unread);
        // Languages whatlang tells by their letters, beside a word one of the six writes.
        assert!(of("Patayin mo ang ilaw sa kusina").unread);
        assert!(of("Stel 'n timer vir 'n halfuur, asseblief").unread);
        assert!(of("Nikumbushe kunywa dawa kila siku").unread);
        assert!(!of("prenota un tavolo per due").unread);
        assert!(!of("Book table tomorrow 8pm").unread);
        assert!(!of("rename screenshot-2026-11-27.png to receipt.png").unread);
        assert!(!of("apaga a pasta /home/joao/projetos/old-api").unread);
        // Letters alone are no other language: short Spanish and English commands.
        for line in [
            "Pon alarma mañana temprano",
            "Llama mamá mañana tarde",
            "Play salsa music loud now",
        ] {
            assert!(!of(line).unread, "{line}");
        }
        assert!(!of("ok pagalo").unread);
        assert!(!of("Remind Paweł tomorrow morning").unread);
        assert!(!of("Sortiere nach Preis, billigste zuerst.").unread);
        assert!(!of("Trie par prix, le moins cher d'abord.").unread);
        // Words another language shares with the six count for the six: "para" is also
        // Indonesian, "dia" is only; Indonesian with its own words is unread.
        let portuguese = of("Reserva a pousada para o dia 5.");
        assert!(!portuguese.unread, "{portuguese:?}");
        assert!(of("Pesan meja untuk dua orang di restoran itu.").unread);
    }

    #[test]
    fn english_values_in_another_conversation() {
        let words =
            |text: &str| -> Vec<String> { tokenize(text).into_iter().map(|t| t.folded).collect() };
        let spanish = words("Recuérdame llamar a mamá. Crea una nota nueva.");
        assert!(english_rather_than("Call mom", &spanish, "es"));
        assert!(english_rather_than("Meeting with the team", &spanish, "fr"));
        assert!(!english_rather_than("Reunión de mañana", &spanish, "es"));
        assert!(!english_rather_than("Nota importante", &spanish, "es"));
        assert!(!english_rather_than("Riunione annullata", &spanish, "it"));
        // Content words the conversation wrote: its own words, not a translation.
        let english = words("add a task: renew car insurance");
        assert!(!english_rather_than(
            "Renew car and home insurance",
            &english,
            "es"
        ));
        // A name shared is no sign of the conversation's words.
        let maria = words("Recuérdame llamar a María sobre la cena del viernes");
        assert!(english_rather_than(
            "Call María about the dinner on Friday",
            &maria,
            "es"
        ));
    }

    #[test]
    fn letters_none_of_the_six_writes() {
        assert!(of("Yarın saat 15:00'te ekiple toplantı ayarla.").unread);
        assert!(!of("Book a flight from Łódź to Paris tomorrow").unread);
    }

    #[test]
    fn a_short_line_with_no_function_word_by_its_letters() {
        assert!(of("Kahveyi büyük boy istiyorum").unread);
        assert!(!of("Cancel Netflix subscription now").unread);
        assert!(!of("Reserva mañana temprano siempre").unread);
        assert!(of("Tänd lampan i hallen").unread);
        // Letters that barely place a longer line are no other language.
        assert!(!of("add a task: renew car insurance").unread);
        assert!(!of("Make a new private repo called infra-scripts.").unread);
    }

    #[test]
    fn a_tool_s_data_tells_a_language_by_its_letters_only() {
        let text =
            "I will take the one for 180, to Rome\n0 stops €320; 1 stop €180; 2 stops €150\n";
        let data = text.find("0 stops").unwrap_or_default()..text.len();
        let data = std::slice::from_ref(&data);
        assert!(!of_conversation(text, data).unread);
        assert_eq!(of_conversation(text, data).main, Some("en"));
        // Another script in a tool's result is still another language.
        let text = "the second one\n東京駅前店; 大阪梅田店\n";
        let data = text.find('東').unwrap_or_default()..text.len();
        assert!(of_conversation(text, &[data]).unread);
    }

    #[test]
    fn a_letter_only_one_tied_language_writes() {
        // "o" and "no" are Spanish and Portuguese; "õ" only Portuguese writes.
        assert_eq!(
            of("Põe o ar-condicionado no modo ventilar").main,
            Some("pt")
        );
        assert_eq!(own_letter("Põe o ar", &["es", "pt"]), Some("pt"));
        assert_eq!(own_letter("año y são", &["es", "pt"]), None);
        assert_eq!(own_letter("Straße", &["es", "pt"]), None);
    }

    #[test]
    fn galician_by_its_own_words() {
        assert!(of("Reserva unha mesa para o venres que vén").unread);
        assert!(of("Chámame mañá pola tarde, unha vez que remates").unread);
        // Spanish and Portuguese lines with a word Galician shares stay read.
        assert!(!of("Ven a la fiesta el viernes con tu hermana").unread);
        assert!(!of("Reserva uma mesa para sexta que vem").unread);
    }

    #[test]
    fn a_line_of_words_none_of_the_six_knows() {
        // Short words the six write too ("mai", "rua", "le", "te"), the rest no word of theirs.
        assert!(of("Hokona mai he miraka, kia rua rita").unread);
        assert!(of("Ou te manaʻo e totogi i le tinoitupe").unread);
        assert!(of("Pasang alarm jam lima sonten").unread);
        // Number words, units and calendar words of the six are theirs, however rare.
        assert!(!of("Heiz das Wohnzimmer auf einundzwanzig Grad").unread);
        assert!(!of("Überweis meinem Bruder dreihundertfünfundsiebzig Euro.").unread);
        assert!(!of("Commande huitante gobelets pour l'apéro").unread);
        assert!(!of("pls reschedule my dentist appt to thurs").unread);
    }

    #[test]
    fn albanian_by_its_e_diaeresis() {
        assert!(of("Më zgjo nesër në orën shtatë të mëngjesit").unread);
        assert!(!of("Réserve une table pour le réveillon de Noël").unread);
    }
}
