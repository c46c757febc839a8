//! The evidence a call's values are checked against: the conversation (the user's, system
//! and tool messages), tokenized once and read by every recognizer into typed facts. The main
//! model's description is never part of it: it is the model's claim about the conversation,
//! not the conversation.

use std::collections::HashSet;
use std::sync::OnceLock;

use jiff::civil::Date;

use super::facts::{Context, Facts};
use super::language::{self, Languages};
use super::rows::Rows;
use super::taken_back;
use super::tokens::{self, compact, compact_into, stem, Kind, Token};
use super::words::is;
use super::{codes, current, dates, lexicon, numbers, quantity, times};

/// Words before a name that make it a person's: "with", "mit", "con", "com", "avec", "chez".
const PERSON_CUES: &[&str] = &["with", "mit", "con", "com", "avec", "chez", "bei"];

/// What the translator's call is checked against.
#[derive(Debug)]
pub struct Evidence {
    pub(super) tokens: Vec<Token>,
    /// Folded words of the text and their stems.
    words: HashSet<String>,
    /// Every token's letters and digits, one after another; `boundaries` holds the offsets
    /// in it where a token starts or ends. A value is written in the text when its letters
    /// and digits stand there from one boundary to another: "ABC-123" in "abc 123", never
    /// "us" in "usage".
    compact: String,
    /// Offsets in `compact` where a token starts (with its byte in the text), and ends: in
    /// order, each offset once.
    starts: Vec<(usize, usize)>,
    ends: Vec<(usize, usize)>,
    /// Digits only, per run of digits and phone separators ("+44 (20) 7946-0958"), with the
    /// byte where the run starts (where its label is read, [`super::labels`]).
    pub(super) digit_runs: Vec<(String, usize)>,
    /// Digits said in words, group after group ("siete, cuatro, cuatro, nueve").
    spoken_digits: Vec<String>,
    pub(super) facts: Facts,
    /// The rows of the tool results' tables the user picked ([`super::rows`]).
    pub(super) rows: Rows,
    /// Where a line takes back what it said ([`super::taken_back`]): the evidence without
    /// what was taken back, and of the correction's own words.
    pub(super) taken_back: Option<Box<TakenBack>>,
    /// What the assistant asked in questions the user's next message answered with a no
    /// ("¿Quieres la tarifa reembolsable?" "nah, la normal"): a flag whose subject such a
    /// question names is said to be off ([`Evidence::declining`]).
    pub(super) declined: Option<Box<Evidence>>,
    /// The conversation split where it moves a thing and where it turns a day down
    /// ([`super::moved`], [`super::refused`]): read once, by the first value that asks.
    moved: OnceLock<Option<Box<(Evidence, Evidence)>>>,
    refused: OnceLock<Option<Box<(Evidence, Evidence)>>>,
    pub(super) languages: Languages,
    pub(super) today: Date,
    /// The text it was read from, to read it again without a value's whole (see
    /// `walk::only_inside_another`).
    pub(super) text: String,
}

impl Evidence {
    /// The evidence of the byte ranges `parts` of its text (each closed by a full stop) and
    /// of the rest, for a rule that reads one part of a conversation apart from the others
    /// (a trip's way back, what a thing is moved from, a day turned down). The ranges are
    /// in order and apart; one that is not is skipped.
    pub(super) fn parted(&self, parts: &[std::ops::Range<usize>]) -> (Evidence, Evidence) {
        let text = &self.text;
        let mut rest = String::with_capacity(text.len());
        let mut taken = String::new();
        let mut at = 0;
        for range in parts {
            let Some(part) = text.get(range.clone()).filter(|_| range.start >= at) else {
                continue;
            };
            rest.push_str(&text[at..range.start]);
            taken.push_str(part);
            taken.push_str(". ");
            at = range.end;
        }
        rest.push_str(&text[at..]);
        (
            Evidence::new(&taken, self.today),
            Evidence::new(&rest, self.today),
        )
    }

    /// What the conversation moves a thing from, and the rest ([`super::moved::split`]).
    pub(super) fn moved(&self) -> Option<&(Evidence, Evidence)> {
        self.moved
            .get_or_init(|| super::moved::split(self).map(Box::new))
            .as_deref()
    }

    /// The days it turns down, and the rest ([`super::refused::split`]).
    pub(super) fn refused(&self) -> Option<&(Evidence, Evidence)> {
        self.refused
            .get_or_init(|| super::refused::split(self).map(Box::new))
            .as_deref()
    }

    /// The same evidence, with `questions` the user declined (empty: none).
    pub fn declining(mut self, questions: &str) -> Evidence {
        if !questions.trim().is_empty() {
            self.declined = Some(Box::new(Evidence::new(questions, self.today)));
        }
        self
    }

    /// The same evidence, where the byte ranges `users` of its text are the user's messages,
    /// the first of them (at the text's start) the newest: a newest message that opens with a
    /// correction ([`taken_back::opens`]) takes back what the user's earlier messages said of
    /// the kinds it says ("Set the meeting for the 3rd." ... "Sorry, not the 3rd, on the
    /// 4th."), never what a tool or the instructions said. A correction inside the newest
    /// message is read first, then one opening it; only where neither is, a correction inside
    /// an earlier message stands.
    pub fn correcting(mut self, users: &[std::ops::Range<usize>]) -> Evidence {
        let Some(newest) = users.first().filter(|r| r.start == 0) else {
            return self;
        };
        // The newest message's tokens: the text's first.
        let own = self.tokens.partition_point(|t| t.start < newest.end);
        let newest_back = TakenBack::read(&self.text, &self.tokens[..own], self.today)
            .or_else(|| TakenBack::read_opening(&self.text, &self.tokens, users, self.today));
        if newest_back.is_some() {
            self.taken_back = newest_back;
        }
        self
    }

    /// Whether the folded word `word` negates in this conversation: a word of
    /// [`super::words::NEGATIONS`], but for "no" in Portuguese, where it is "in the" (em + o:
    /// "com piscina no Algarve") and the negation is "não".
    pub(super) fn negates(&self, word: &str) -> bool {
        super::words::is(super::words::NEGATIONS, word)
            && !(word == "no" && self.languages.main == Some("pt"))
    }

    /// Whether the folded word `word` joins two clauses in this conversation: a word of
    /// [`super::words::JOINS`], but for French "ma" (my; Italian "but") and Portuguese "mais"
    /// (more; French "but").
    pub(super) fn joins(&self, word: &str) -> bool {
        super::words::is(super::words::JOINS, word)
            && !(word == "ma" && self.languages.main == Some("fr"))
            && !(word == "mais" && self.languages.main == Some("pt"))
    }

    /// Whether the conversation is mostly French.
    pub(super) fn in_french(&self) -> bool {
        self.languages.main == Some("fr")
    }

    /// The evidence of `text` (the conversation's words), with relative dates read against
    /// `today`.
    pub fn new(text: &str, today: Date) -> Evidence {
        Evidence::with_tool_results(text, &[], today)
    }

    /// The evidence of `text`, where the byte ranges `tool_results` hold tools' results:
    /// lists there are read as rows the user picks from ([`super::rows`]).
    pub fn with_tool_results(
        text: &str,
        tool_results: &[std::ops::Range<usize>],
        today: Date,
    ) -> Evidence {
        let tokens = tokens::tokenize(text);
        let languages = language::of_conversation(text, tool_results);
        let context = Context { today, languages };
        let mut facts = Facts::default();
        numbers::read(text, &tokens, &context, &mut facts);
        // Before the quantities and times: "it's at 500 GB" is where it is, not where to go.
        current::read(&tokens, &context, &mut facts);
        quantity::read(&tokens, &context, &mut facts);
        dates::read(&tokens, &context, &mut facts);
        times::read(&tokens, &context, &mut facts);
        codes::read(&tokens, &context, &mut facts);
        let mut words = HashSet::with_capacity(2 * tokens.len());
        let mut compacted = String::with_capacity(text.len());
        let mut starts = Vec::new();
        let mut ends = Vec::new();
        for token in &tokens {
            if token.kind != Kind::Punct {
                let stemmed = stem(&token.folded);
                if stemmed != token.folded {
                    words.insert(stemmed);
                }
                if !words.contains(&token.folded) {
                    words.insert(token.folded.clone());
                }
                // A German compound's words are words too: "Kindersitz" says "Sitz".
                if languages.has("de") {
                    for part in lexicon::compound_parts(&token.folded) {
                        words.insert(stem(part));
                        words.insert(part.to_owned());
                    }
                }
                // "notes_final" is one token; its words are words too.
                if token.folded.contains('_') {
                    for part in token.folded.split('_').filter(|p| !p.is_empty()) {
                        words.insert(part.to_owned());
                        words.insert(stem(part));
                    }
                }
            }
            let at = compacted.len();
            compact_into(&mut compacted, &token.folded);
            if compacted.len() > at {
                starts.push((at, token.start));
                ends.push((compacted.len(), token.end));
            }
        }
        let rows = Rows::read(text, &tokens, tool_results, &facts.number_spans);
        Evidence {
            words,
            compact: compacted,
            starts,
            ends,
            spoken_digits: spoken_digits(&tokens, &facts),
            digit_runs: digit_runs(text),
            facts,
            rows,
            taken_back: TakenBack::read(text, &tokens, today),
            declined: None,
            moved: OnceLock::new(),
            refused: OnceLock::new(),
            languages,
            today,
            text: text.to_owned(),
            tokens,
        }
    }

    /// The text's words, folded, in order.
    pub(super) fn folded_words(&self) -> Vec<String> {
        self.tokens
            .iter()
            .filter(|t| t.kind == Kind::Word)
            .map(|t| t.folded.clone())
            .collect()
    }

    /// The word of the text (folded) and, in a conversation with German in it, the two
    /// words of the lexicon it is a compound of ([`lexicon::compound_parts`]).
    pub(super) fn word_and_parts<'w>(&self, word: &'w str) -> Vec<&'w str> {
        let mut all = vec![word];
        if self.languages.has("de") {
            all.extend(lexicon::compound_parts(word));
        }
        all
    }

    /// A word (folded) or its stem is in the text.
    pub(super) fn has_word(&self, word: &str) -> bool {
        let folded = tokens::fold(word);
        self.words.contains(&folded) || self.words.contains(&stem(&folded))
    }

    /// A word (folded) of free text is a form of a word of the text ([`tokens::word_form`]),
    /// where the text's word carries meaning (no function word of the six).
    pub(super) fn has_form(&self, word: &str) -> bool {
        let folded = tokens::fold(word);
        self.tokens.iter().any(|t| {
            t.kind == Kind::Word
                && tokens::word_form(&t.folded, &folded)
                && !super::language::function_word(&t.folded)
        })
    }

    /// Whether a capitalized word of a value (`word`, folded) is in the text only as another
    /// person's name, and not as itself: a word written with a capital inside its sentence
    /// that differs from it only in its last vowel ("Maria" for "Mario", "Giovanna" for
    /// "Giovanni"), or by a last "a", "o" or "i" after a word that goes with a person
    /// ("Stefano" for "mit Stefan", "Daniela" for "with Daniel"; "Milano" for "to Milan" is
    /// the city).
    pub(super) fn another_name(&self, word: &str) -> bool {
        let folded = tokens::fold(word);
        let vowel = |c: char| matches!(c, 'a' | 'o' | 'i' | 'e');
        let swapped = |w: &str| {
            let (a, b) = (w.chars().last(), folded.chars().last());
            w.len() == folded.len()
                && a != b
                && a.is_some_and(vowel)
                && b.is_some_and(vowel)
                && w[..w.len() - 1] == folded[..folded.len() - 1]
        };
        let added = |w: &str| {
            let longer = |long: &str, short: &str| {
                long.strip_prefix(short)
                    .is_some_and(|rest| matches!(rest, "a" | "o" | "i"))
            };
            longer(&folded, w) || longer(w, &folded)
        };
        let inside_sentence =
            |i: usize| i > 0 && !matches!(self.tokens[i - 1].lower.as_str(), "." | "!" | "?" | ":");
        let with_person = |i: usize| i > 0 && is(PERSON_CUES, &self.tokens[i - 1].folded);
        let capital = |t: &Token| {
            self.text[t.start..]
                .chars()
                .next()
                .is_some_and(char::is_uppercase)
        };
        let mut other = false;
        for (i, t) in self.tokens.iter().enumerate() {
            if t.kind != Kind::Word {
                continue;
            }
            if t.folded == folded {
                return false;
            }
            other |= capital(t)
                && inside_sentence(i)
                && (swapped(&t.folded) || (added(&t.folded) && with_person(i)));
        }
        other
    }

    /// A number written in free text ("18" of "Call grandma at 18h") is in the text: as the
    /// same digits, as a number said another way ("ten" for 10), or as an hour said (18 of
    /// "6 pm").
    pub(super) fn has_number(&self, digits: &str) -> bool {
        let value = digits.parse::<f64>().ok();
        self.has_digits(digits)
            || value.is_some_and(|n| {
                self.facts.number_spans.iter().any(|s| s.value == n)
                    || self
                        .facts
                        .times
                        .iter()
                        .any(|(h, m)| f64::from(*h) == n || (n != 0.0 && f64::from(*m) == n))
            })
    }

    /// `value` is written in the text: a phrase as its words in a row ("John Doe" is not in
    /// "john.doe@example.com"), a single token by its letters and digits from one token's edge
    /// to another's, whatever the separators ("ABC-123" in "abc 123", never "us" in "usage").
    pub(super) fn written(&self, value: &str) -> bool {
        if value.trim().contains(char::is_whitespace) {
            return self.phrase(value);
        }
        // A file name or a path is one name: its separators are part of it ("Q3_summary.pdf"
        // is another file than "Q3-summary.pdf").
        if is_file_like(value) {
            return self.written_as_is(value) || self.path_joined(value);
        }
        let target = compact(value);
        if target.is_empty() {
            return false;
        }
        let original = value.trim();
        self.compact.match_indices(&target).any(|(at, _)| {
            let (Some(from), Some(to)) = (
                at_offset(&self.starts, at),
                at_offset(&self.ends, at + target.len()),
            ) else {
                return false;
            };
            // An identifier the user joined with "_", "-" or "." is that identifier:
            // "db-prod-2" says no "db_prod_2", "m.dupont" no "mdupont". Spaces or other marks
            // around a code may change ("ABC 123").
            // Its case too: "nginx-proxy-eu" is no "nginx-proxy-EU".
            let written = self.text.get(from..to).unwrap_or_default();
            // Nor does "@docesdajuju" say "doces_da_juju": marks the user never wrote.
            let marks_added = joined(original) && written.chars().all(char::is_alphanumeric);
            (!joined(written) || written == original) && !marks_added
        })
    }

    /// `value` written in the text as it is, case and all, between marks or spaces: a code
    /// that is also a common word ("ES" and "es urgente", "IT" and "do it") counts only so.
    pub(super) fn written_exact(&self, value: &str) -> bool {
        !value.is_empty()
            && self.text.match_indices(value).any(|(at, _)| {
                let before = self.text[..at].chars().next_back();
                let after = self.text[at + value.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
            })
    }

    /// Whether the word `part` is written only as the end of a word joined by marks that,
    /// compacted, holds `whole`: "mail" of "e-mail" names the member `email`, not `mail`
    /// ("by mail, not by e-mail" says both; "unread" holds no token "read").
    pub(super) fn only_inside(&self, part: &str, whole: &str) -> bool {
        let part = part.to_lowercase();
        let whole = compact(whole);
        let inside = |at: usize| {
            let first = (0..=at)
                .rev()
                .take_while(|&j| j == at || !self.tokens[j + 1].spaced)
                .last()
                .unwrap_or(at);
            first < at
                && compact(&self.text[self.tokens[first].start..self.tokens[at].end])
                    .contains(&whole)
        };
        let places: Vec<usize> = (0..self.tokens.len())
            .filter(|&i| self.tokens[i].folded == part)
            .collect();
        !whole.is_empty() && !places.is_empty() && places.into_iter().all(inside)
    }

    /// `value` in the text letter for letter, case and all ("feature/Login-Redesign" is
    /// another branch than "feature/login-redesign"), not inside a longer name.
    fn written_as_is(&self, value: &str) -> bool {
        let text = self.text.as_str();
        let joins = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
        !value.is_empty()
            && text.match_indices(value).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let rest = &text[at + value.len()..];
                let mut after = rest.chars();
                let next = after.next();
                // A full stop after it ends the sentence unless a letter follows ("a.md.bak").
                let next = if next == Some('.') {
                    after.next()
                } else {
                    next
                };
                !before.is_some_and(joins) && !next.is_some_and(joins)
            })
    }

    /// A path said as its folder and its file apart: "entra em /var/log/nginx e me mostra o
    /// error.log" says `/var/log/nginx/error.log`, "o ficheiro fatura_EDP_out.pdf da pasta
    /// Faturas" says `Faturas/fatura_EDP_out.pdf`. Each part letter for letter.
    fn path_joined(&self, value: &str) -> bool {
        let Some((folder, file)) = value.rsplit_once('/') else {
            return false;
        };
        let folder = folder.trim_end_matches('/');
        // The folder written whole: "/var/log" is no folder said by "/var/log/nginx".
        let text = self.text.as_str();
        let folder_whole = !folder.is_empty()
            && text.match_indices(folder).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let mut after = text[at + folder.len()..].chars();
                let next = match after.next() {
                    Some('/') => after.next(),
                    next => next,
                };
                let joins = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.');
                !before.is_some_and(joins) && !next.is_some_and(joins)
            });
        folder_whole && file.contains('.') && self.written_as_is(file)
    }

    /// A number written on its own: "5512" is not said by "order 5512-77", nor "2023" by
    /// "2023-09-29".
    pub(super) fn written_alone(&self, digits: &str) -> bool {
        let joined = |mark: &Token, number: &Token, mark_first: bool| {
            matches!(mark.lower.as_str(), "-" | "/" | "." | ":" | "_")
                && number.kind == Kind::Number
                && if mark_first {
                    !mark.spaced && !number.spaced
                } else {
                    !number.spaced
                }
        };
        self.tokens.iter().enumerate().any(|(i, token)| {
            token.lower == digits
                && !(i >= 2
                    && !token.spaced
                    && joined(&self.tokens[i - 1], &self.tokens[i - 2], false))
                && !self
                    .tokens
                    .get(i + 1)
                    .zip(self.tokens.get(i + 2))
                    .is_some_and(|(mark, next)| joined(mark, next, true))
        })
    }

    /// The words of `value`, in order, are words of the text in a row (marks between them
    /// skipped on either side).
    fn phrase(&self, value: &str) -> bool {
        let wanted: Vec<String> = tokens::tokenize(value)
            .into_iter()
            .filter(|t| t.kind != Kind::Punct)
            .map(|t| t.folded)
            .collect();
        let Some(first) = wanted.first() else {
            return false;
        };
        let words: Vec<&str> = self
            .tokens
            .iter()
            .filter(|t| t.kind != Kind::Punct)
            .map(|t| t.folded.as_str())
            .collect();
        words.windows(wanted.len()).any(|window| {
            window[0] == first.as_str() && window.iter().zip(&wanted).all(|(a, b)| *a == b.as_str())
        })
    }

    /// Whether `code` (letters) stands in the text only as a lowercase function word of the
    /// conversation's language, with a word after it ("de" of "traduce de inglés"); never
    /// where it is written otherwise ("DE", "de-AT") or alone ("cambia el idioma a en,").
    pub(super) fn only_as_function_word(&self, code: &str) -> bool {
        let folded = code.to_lowercase();
        let mut places = self
            .tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind == Kind::Word && t.folded == folded)
            .peekable();
        places.peek().is_some()
            && places.all(|(i, t)| {
                let written = self.text.get(t.start..t.end).unwrap_or_default();
                written.chars().all(|c| c.is_lowercase())
                    && language::function_word_of(&folded, &self.languages)
                    && self
                        .tokens
                        .get(i + 1)
                        .is_some_and(|next| next.kind == Kind::Word)
            })
    }

    /// A string of digits said in words, group after group: one of the text's such runs.
    pub(super) fn has_spoken_digits(&self, digits: &str) -> bool {
        self.spoken_digits.iter().any(|run| {
            run == digits
                || (digits.len() >= 7
                    && run.len() >= 7
                    && digits.ends_with(run.trim_start_matches('0')))
        })
    }

    /// A string of digits (a phone number, an account): one of the text's runs, or the run
    /// with a country code before it, or the run's local part without one.
    pub(super) fn has_digits(&self, digits: &str) -> bool {
        self.digit_runs
            .iter()
            .any(|(run, _)| run_holds(run, digits))
    }
}

/// A line's correction: the conversation without what it took back, what it took back,
/// and the correction's own words up to the line's end (or its reason).
#[derive(Debug)]
pub(super) struct TakenBack {
    pub without: Evidence,
    pub taken: Evidence,
    pub correction: Evidence,
    /// The correction cancels what was taken back and asks for nothing in its place ("...
    /// anzi no, lasciala dov'è", "no wait, forget it").
    pub cancels: bool,
    /// The correction is a message of its own taking back the user's earlier ones: a number
    /// it says corrects a number only where it counts ([`super::rules`]), never where it is
    /// an hour or a day.
    pub opening: bool,
}

impl TakenBack {
    /// The user's earlier messages (`users` after the first) taken back by the newest (the
    /// first, at the text's start), when it opens with a correction.
    fn read_opening(
        text: &str,
        tokens: &[Token],
        users: &[std::ops::Range<usize>],
        today: Date,
    ) -> Option<Box<TakenBack>> {
        let (newest, earlier) = users.split_first()?;
        let own: Vec<Token> = tokens
            .iter()
            .filter(|t| newest.contains(&t.start))
            .cloned()
            .collect();
        if earlier.is_empty() || !taken_back::opens(&own) {
            return None;
        }
        let mut taken = String::new();
        let mut without = String::with_capacity(text.len());
        let mut at = 0;
        for range in earlier {
            let (Some(kept), Some(said)) = (text.get(at..range.start), text.get(range.clone()))
            else {
                return None;
            };
            without.push_str(kept);
            taken.push_str(said);
            taken.push('\n');
            at = range.end;
        }
        without.push_str(text.get(at..).unwrap_or_default());
        Some(Box::new(TakenBack {
            without: Evidence::new(&without, today),
            taken: Evidence::new(&taken, today),
            correction: Evidence::new(text.get(newest.clone())?, today),
            cancels: false,
            opening: true,
        }))
    }

    fn read(text: &str, tokens: &[Token], today: Date) -> Option<Box<TakenBack>> {
        let found = taken_back::find(text, tokens)?;
        let line_end = text[found.at..]
            .find('\n')
            .map_or(text.len(), |n| found.at + n);
        // "no, mejor el 10, que el 8 es festivo": the reason names what was taken back again,
        // and asks for nothing.
        let end = taken_back::reason_at(tokens, found.at, line_end).unwrap_or(line_end);
        let without = format!(
            "{}{}{}",
            &text[..found.line_start],
            &text[found.at..end],
            &text[line_end..]
        );
        let within: Vec<&Token> = tokens
            .iter()
            .filter(|t| t.start >= found.at && t.start < line_end)
            .collect();
        let words: Vec<&str> = within
            .iter()
            .filter(|t| t.kind == Kind::Word)
            .map(|t| t.folded.as_str())
            .collect();
        let numbered = within.iter().any(|t| t.kind == Kind::Number);
        let cancels = taken_back::cancels(&words, numbered);
        Some(Box::new(TakenBack {
            opening: false,
            without: Evidence::new(&without, today),
            taken: Evidence::new(&text[found.line_start..found.at], today),
            correction: Evidence::new(&text[found.at..end], today),
            cancels,
        }))
    }
}

/// The byte in the text at `offset` of the compact text, where a token starts or ends there.
fn at_offset(offsets: &[(usize, usize)], offset: usize) -> Option<usize> {
    offsets
        .binary_search_by_key(&offset, |(at, _)| *at)
        .ok()
        .map(|i| offsets[i].1)
}

/// Letters or digits joined by "_" or "-" somewhere in `text`: an identifier's own spelling.
fn joined(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).any(|w| {
        w[0].is_alphanumeric() && matches!(w[1], '_' | '-' | '.') && w[2].is_alphanumeric()
    })
}

/// A file name ("report.pdf", "notes_final.txt") or a path ("data/x.md", "/etc/passwd").
fn is_file_like(value: &str) -> bool {
    if value.contains('/') || value.contains('\\') {
        return value.chars().any(char::is_alphanumeric);
    }
    value.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && (1..=5).contains(&extension.len())
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
            && extension.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// Digits said one group after another in words ("siete, cuatro, cuatro, nueve", "zéro six,
/// douze, trente-quatre", "null acht null null"): three groups or more of 0 to 99, next to
/// each other or a comma or hyphen apart, written one after another.
fn spoken_digits(tokens: &[Token], facts: &Facts) -> Vec<String> {
    let mut runs = Vec::new();
    let mut run = String::new();
    let mut groups = 0;
    let mut i = 0;
    while i < tokens.len() {
        let Some((digits, next)) = digit_group(tokens, facts, i) else {
            if groups >= 3 {
                runs.push(std::mem::take(&mut run));
            }
            run.clear();
            groups = 0;
            i += 1;
            continue;
        };
        run.push_str(&digits);
        groups += 1;
        i = next;
        // One comma or dash may stand between groups: "vier-fünf-sechs", "uno due tre,".
        if tokens
            .get(i)
            .is_some_and(|t| matches!(t.lower.as_str(), "," | "-"))
            && digit_group(tokens, facts, i + 1).is_some()
        {
            i += 1;
        }
    }
    if groups >= 3 {
        runs.push(run);
    }
    runs
}

/// The digits a word group at token `i` says, and the token after it: a number said in words
/// below 100 (its longest reading: "trente-quatre" is 34), or a digit's own word, which also
/// reads the words a number reader takes for articles ("uno", "um", "eins").
fn digit_group(tokens: &[Token], facts: &Facts, i: usize) -> Option<(String, usize)> {
    // "double five" is 55, "triple oh" 000.
    let times = match tokens.get(i).map(|t| t.folded.as_str()) {
        Some("double") => 2,
        Some("triple") => 3,
        _ => 0,
    };
    if times > 0 {
        // One digit after it, never another "double": no recursion to follow.
        if tokens
            .get(i + 1)
            .is_some_and(|t| matches!(t.folded.as_str(), "double" | "triple"))
        {
            return None;
        }
        let (digit, next) = digit_group(tokens, facts, i + 1)?;
        return (digit.len() == 1).then(|| (digit.repeat(times), next));
    }
    // A zero said is a digit of its own: "zero zero quattro" is 004, which a number reader
    // reads as 4.
    if tokens
        .get(i)
        .is_some_and(|t| t.kind == Kind::Word && DIGIT_WORDS[0].contains(&t.folded.as_str()))
    {
        return Some(("0".to_owned(), i + 1));
    }
    let span = facts
        .number_spans
        .iter()
        .filter(|s| {
            s.start == i
                && s.in_words
                && !s.ordinal
                && s.value.fract() == 0.0
                && (0.0..100.0).contains(&s.value)
        })
        .max_by_key(|s| s.end);
    if let Some(span) = span {
        return Some((format!("{}", span.value as u8), span.end));
    }
    let word = tokens.get(i).filter(|t| t.kind == Kind::Word)?;
    DIGIT_WORDS
        .iter()
        .position(|words| words.contains(&word.folded.as_str()))
        .map(|digit| (digit.to_string(), i + 1))
}

/// The words for each digit, 0 to 9, in the six languages (folded).
#[rustfmt::skip]
const DIGIT_WORDS: [&[&str]; 10] = [
    // "oh" as people read digits out ("two oh one"), only among other digits' words.
    &["zero", "cero", "null", "oh"],
    &["one", "uno", "una", "un", "une", "eins", "ein", "eine", "um", "uma"],
    &["two", "dos", "deux", "zwei", "zwo", "dois", "duas", "due"],
    &["three", "tres", "trois", "drei", "tre"],
    &["four", "cuatro", "quatre", "vier", "quatro", "quattro"],
    &["five", "cinco", "cinq", "funf", "cinque"],
    // Brazilian "meia" (of "meia dúzia") for a six read out among digits.
    &["six", "seis", "sechs", "sei", "meia"],
    &["seven", "siete", "sept", "sieben", "sete", "sette"],
    &["eight", "ocho", "huit", "acht", "oito", "otto"],
    &["nine", "nueve", "neuf", "neun", "nove"],
];

/// Runs of digits joined across the separators phone numbers and codes are written with.
/// Whether a run of digits said holds `digits`: the same digits, or one ends with the other
/// (a country code or a leading zero more or less).
pub(super) fn run_holds(run: &str, digits: &str) -> bool {
    run == digits
        || (run.len() >= 7 && digits.ends_with(run.trim_start_matches('0')))
        || (digits.len() >= 7 && run.ends_with(digits))
}

fn digit_runs(text: &str) -> Vec<(String, usize)> {
    let mut runs = Vec::new();
    let mut run = String::new();
    let mut written = String::new();
    let mut start = 0;
    // A run that is a date as written ("2026-11-20", "20.11.2026") is a date, read as one by
    // the date recognizer: its digits are no order or account number.
    let mut push = |run: &mut String, written: &mut String, start: usize| {
        if !is_written_date(written.trim_end()) {
            runs.push((std::mem::take(run), start));
        }
        run.clear();
        written.clear();
    };
    for (at, c) in text.char_indices() {
        if c.is_ascii_digit() {
            if run.is_empty() {
                start = at;
            }
            run.push(c);
            written.push(c);
        } else if matches!(c, ' ' | '-' | '–' | '.' | '(' | ')' | '+' | '/') && !run.is_empty() {
            written.push(c);
            continue;
        } else if !run.is_empty() {
            push(&mut run, &mut written, start);
        }
    }
    if !run.is_empty() {
        push(&mut run, &mut written, start);
    }
    runs
}

#[cfg(test)]
pub(super) fn digit_runs_for_test(text: &str) -> Vec<(String, usize)> {
    digit_runs(text)
}

/// "2026-11-20", "2026/11/20", "20.11.2026", "20/11/2026": a year, a month and a day
/// joined by one mark.
fn is_written_date(written: &str) -> bool {
    let written = written.trim_end_matches(['.', ' ']);
    let Some(mark) = ['-', '/', '.'].into_iter().find(|m| written.contains(*m)) else {
        return false;
    };
    let parts: Vec<&str> = written.split(mark).collect();
    let number = |p: &str| p.parse::<u32>().ok();
    match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() <= 2 && d.len() <= 2 => {
            number(m).is_some_and(|m| (1..=12).contains(&m))
                && number(d).is_some_and(|d| (1..=31).contains(&d))
        }
        [d, m, y] if y.len() == 4 && m.len() <= 2 && d.len() <= 2 => {
            number(m).is_some_and(|m| (1..=31).contains(&m))
                && number(d).is_some_and(|d| (1..=31).contains(&d))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identifier_with_marks_nobody_wrote_is_another() {
        let e = Evidence::new(
            "segue a @docesdajuju no insta",
            jiff::civil::date(2026, 11, 25),
        );
        assert!(e.written("docesdajuju"));
        assert!(!e.written("doces_da_juju"));
        let e = Evidence::new("ticket abc 123 please", jiff::civil::date(2026, 11, 25));
        assert!(e.written("ABC-123"));
    }

    #[test]
    fn a_path_said_as_its_folder_and_its_file() {
        let e = Evidence::new(
            "entra em /var/log/nginx e me mostra o error.log",
            jiff::civil::date(2026, 11, 25),
        );
        assert!(e.written("/var/log/nginx/error.log"));
        // A folder said only as part of another is not said.
        assert!(!e.written("/var/log/error.log"));
        assert!(!e.written("/var/log/nginx/access.log"));
    }

    #[test]
    fn digits_read_out_with_oh_and_meia() {
        let today = jiff::civil::date(2026, 11, 25);
        let e = Evidence::new(
            "the number's five five five, two oh one, eight eight",
            today,
        );
        assert!(e.has_spoken_digits("55520188"));
        let e = Evidence::new(
            "their number is oh two oh, seven nine four six, double five one two",
            today,
        );
        assert!(e.has_spoken_digits("02079465512"));
        assert!(!e.has_spoken_digits("0207946512"));
        // "Double" before no single digit says none; a run of them reads nothing.
        let e = Evidence::new(&"double ".repeat(5000), today);
        assert!(e.spoken_digits.is_empty());
        let e = Evidence::new("a double room for two nights, three adults", today);
        assert!(e.spoken_digits.is_empty(), "{:?}", e.spoken_digits);
        let e = Evidence::new("liga pro meu pai: onze, nove nove oito, três meia", today);
        assert!(e.has_spoken_digits("1199836"));
        // "Oh" alone is no digit run.
        let e = Evidence::new("oh, and remind me at 3", today);
        assert!(!e.has_spoken_digits("03"));
    }

    #[test]
    fn a_date_as_written_is_no_run_of_digits() {
        let runs = digit_runs(r#"{"ordine": "402218", "data": "2026-11-20"} am 20.11.2026"#);
        assert_eq!(runs, [("402218".to_owned(), 12)]);
        // Numbers with marks that are no date stay runs.
        for text in [
            "555-123-4567",
            "+44 20 7946 0958",
            "1-800-555-0199",
            "06.12.34.56.78",
        ] {
            assert_eq!(digit_runs(text).len(), 1, "{text}");
        }
        assert!(is_written_date("2026/11/20"));
        assert!(!is_written_date("2026-13-20"));
        assert!(!is_written_date("12345-67-89"));
    }

    #[test]
    fn digits_said_one_by_one_keep_their_zeros() {
        let day = jiff::civil::date(2026, 11, 25);
        let e = Evidence::new("Il codice cliente è zero zero quattro due sette uno", day);
        assert!(e.has_spoken_digits("004271"));
        assert!(!e.has_spoken_digits("04271"));
        assert!(!e.has_spoken_digits("4271"));
        let e = Evidence::new("my code is zero zero four two seven one", day);
        assert!(e.has_spoken_digits("004271"));
    }
}
