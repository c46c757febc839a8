//! Rows of a tool result the user picked. A tool result that lists things (a JSON array of
//! two objects or more: orders, accounts, repositories; in a tool's result, of two names or
//! more: branches, buckets, subject lines; a line of rows between "|"; in a
//! `tool` message, a list on one line: "basic $5/mo, plus $10/mo, pro $20/mo") holds a value
//! of each row, and the user asks about one of them: by a word only that row holds ("Ich
//! will den Wasserkocher zurückschicken", "quanto devo a Marco?"), by a number only it holds
//! ("the ten dollar one"), by its place ("open the first one", "el último"), by holding more
//! of the user's words than any other ("a do Itaú" of "minha mãe"), or as the extreme of a
//! column ("the cheapest", "la plus récente", [`super::extreme`]). A value that
//! only an unpicked row holds was not asked for: the row the user meant is evidence, the
//! others are not. Where the user picks no row (or picks by meaning: "whichever has more
//! money"), every row stays evidence.

use serde_json::Value;

use super::facts::NumberSpan;
use super::tokens::{compact, compact_into, fold, word_form, Kind, Token};
use super::words::{is, STOPWORDS};

/// Ordinal words that pick a row by its place after an article ("the first one", "la
/// dernière"), folded; `None` is the last row.
#[rustfmt::skip]
const PLACES: &[(&[&str], Option<usize>)] = &[
    (&["first", "primero", "primera", "premier", "premiere", "erste", "ersten", "erster",
        "erstes", "primeiro", "primo", "prima"], Some(0)),
    (&["second", "segundo", "segunda", "deuxieme", "zweite", "zweiten", "zweiter", "zweites",
        "secondo", "seconda"], Some(1)),
    (&["third", "tercero", "tercera", "troisieme", "dritte", "dritten", "dritter", "drittes",
        "terceiro", "terceira", "terzo", "terza"], Some(2)),
    (&["last", "ultimo", "ultima", "dernier", "derniere", "letzte", "letzten", "letzter",
        "letztes"], None),
];

/// Words that pick the middle row of an odd number of rows after an article ("the middle
/// one", "el del medio", "celui du milieu", "den mittleren", "o do meio", "quello di mezzo").
const MIDDLE: &[&str] = &[
    "middle",
    "medio",
    "milieu",
    "mittleren",
    "mittlere",
    "meio",
    "mezzo",
];

/// Words for "one" after an ordinal that picks a row ("the first one", "el primero", "celui
/// du milieu").
const ONE: &[&str] = &[
    "one", "uno", "una", "celui", "celle", "quello", "quella", "eins",
];

/// Articles before an ordinal that picks a row.
const ARTICLES: &[&str] = &[
    "the", "el", "la", "le", "lo", "il", "los", "las", "les", "der", "die", "das", "den", "dem",
    "o", "a", "l",
];

/// The tables a conversation's tool results hold, and which of their rows the rest of the
/// conversation picks.
#[derive(Debug, Default)]
pub struct Rows {
    tables: Vec<Table>,
    /// The conversation's words outside the tables, folded.
    plain: Vec<String>,
    /// After the tables, the user turned every row down ("Ninguna me viene bien").
    none: bool,
}

/// Words that turn down every row when they open a message and say that none fits ("Ninguna
/// me viene bien", "None of those work", "Keiner passt"), folded.
#[rustfmt::skip]
const NONE_OF_THEM: &[&str] = &[
    "none", "neither", "ninguna", "ninguno", "aucune", "aucun", "keine", "keiner", "keines",
    "nenhuma", "nenhum", "nessuna", "nessuno",
];

/// Words after [`NONE_OF_THEM`] that say it is the rows that do not fit: a verb of fitting
/// ("me viene bien", "passt", "convient") or "of them" ("none of those", "ninguna de ellas",
/// "keiner davon"), folded.
#[rustfmt::skip]
const FITS: &[&str] = &[
    "works", "work", "suits", "suit", "fits", "fit", "good", "viene", "vienen", "sirve",
    "sirven", "va", "van", "convient", "conviennent", "passt", "passen", "geht", "gehen",
    "serve", "servem", "funciona", "vale", "bene", "vanno", "those", "them", "these", "ellas",
    "ellos", "esas", "esos", "estas", "estos", "davon", "entre", "delas", "deles", "dessas",
    "desses", "questi", "queste", "quelli", "quelle",
];

#[derive(Debug, Default)]
struct Table {
    rows: Vec<Row>,
    picked: Vec<bool>,
}

#[derive(Debug, Default)]
struct Row {
    /// Its values, folded ("302140", "wasserkocher", "35"); a text row's words and numbers.
    values: Vec<String>,
    /// A text row's letters and digits, folded and joined: its numbers whatever their
    /// separators ("300 481 772").
    compact: String,
    /// The numbers it holds ("9,99 €" is 9.99): a number the user says picks the one row
    /// that holds it ("je prends celui à 14,99", "the ten dollar one").
    numbers: Vec<f64>,
    /// Its text as written (a JSON row's keys and values): where its prices, times and dates
    /// are read for [`super::extreme`].
    text: String,
}

impl Row {
    fn holds(&self, wanted: &str, wanted_compact: &str) -> bool {
        // An identifier by its letters and digits whatever its marks: one with digits, or a
        // file name ("fatura_EDP_set.pdf").
        let identifier =
            wanted_compact.bytes().any(|b| b.is_ascii_digit()) || wanted.contains(['.', '_']);
        // A value of several words ("Dr Lefèvre") by its words in a row.
        let words: Vec<&str> = wanted
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let in_a_row = words.len() > 1
            && self
                .values
                .windows(words.len())
                .any(|window| window.iter().zip(&words).all(|(v, w)| v == w));
        self.values.iter().any(|v| v == wanted)
            || in_a_row
            || (wanted_compact.len() >= 4 && identifier && self.compact.contains(wanted_compact))
    }
}

/// How many bytes of JSON are read as tables: the cost stays flat for a large tool result.
const JSON_LIMIT: usize = 16 * 1024;

impl Rows {
    /// Reads the tables in `text` (a line, or the rest of a line after a label, that starts a
    /// JSON value; a line of rows between "|"; in a tool's result, a list written on one line,
    /// see [`list`]) and the rows the other words pick; `tokens` are the text's, `numbers`
    /// the numbers read in them, `tool_results` the byte ranges that hold tools' results.
    pub fn read(
        text: &str,
        tokens: &[Token],
        tool_results: &[std::ops::Range<usize>],
        numbers: &[NumberSpan],
    ) -> Rows {
        if !text.contains(['[', '|']) && tool_results.is_empty() {
            return Rows::default();
        }
        let (mut tables, inside) = tables_of(text, tokens, tool_results, numbers);
        if tables.is_empty() {
            return Rows::default();
        }
        let outside = |t: &Token| !inside.iter().any(|r| r.contains(&t.start));
        let plain: Vec<String> = tokens
            .iter()
            .filter(|t| t.kind != Kind::Punct && outside(t))
            .map(|t| t.folded.clone())
            .collect();
        let said_numbers: Vec<(f64, bool)> = numbers
            .iter()
            .filter(|n| tokens.get(n.start).is_some_and(outside))
            .map(|n| (n.value, n.ordinal))
            .collect();
        // Times of day written outside the tables ("9:45"): an hour, a colon, two digits.
        let said_clocks: Vec<(u32, u32)> = (0..tokens.len().saturating_sub(2))
            .filter(|&i| outside(&tokens[i]))
            .filter_map(|i| {
                let (hour, mark, minute) = (&tokens[i], &tokens[i + 1], &tokens[i + 2]);
                let joined = hour.kind == Kind::Number
                    && matches!(mark.lower.as_str(), ":" | "h")
                    && !mark.spaced
                    && !minute.spaced
                    && minute.lower.len() == 2;
                joined
                    .then(|| clock_of(&format!("{}:{}", hour.lower, minute.lower)))
                    .flatten()
            })
            .collect();
        for table in &mut tables {
            table.picked = pick(&table.rows, &plain, &said_numbers, &said_clocks);
        }
        // Turned down, where no row was picked.
        let none = !tables.iter().any(|t| t.picked.contains(&true))
            && turned_all_down(text, tokens, &inside);
        Rows {
            tables,
            plain,
            none,
        }
    }

    /// Whether `value` is held only by rows the user did not pick (and by no row they did),
    /// in a table where they picked one, and the rest of the conversation does not write it.
    pub fn refuses(&self, value: &Value) -> bool {
        if self.tables.is_empty() {
            return false;
        }
        let wanted = match value {
            // A path by its file: "Faturas/fatura_EDP_set.pdf" is the row of its file.
            Value::String(s) => fold(s.trim().rsplit('/').next().unwrap_or_default()),
            Value::Number(n) => number_text(n),
            _ => return false,
        };
        if wanted.is_empty() {
            return false;
        }
        let wanted_compact = compact(&wanted);
        // A number by its value too: "84,20 €" holds 84.2.
        let number = value.as_f64();
        let refused = self.tables.iter().any(|table| {
            let holds = |row: &Row| {
                row.holds(&wanted, &wanted_compact)
                    || number
                        .is_some_and(|n| row.numbers.iter().any(|r| super::facts::close(*r, n)))
            };
            if self.none {
                return table.rows.iter().any(holds);
            }
            if !table.picked.contains(&true) {
                return false;
            }
            let in_picked = table
                .rows
                .iter()
                .zip(&table.picked)
                .any(|(r, p)| *p && holds(r));
            let in_other = table
                .rows
                .iter()
                .zip(&table.picked)
                .any(|(r, p)| !*p && holds(r));
            in_other && !in_picked
        });
        refused && !self.written_outside(&wanted_compact)
    }

    /// Whether the words outside the tables write `wanted` (letters and digits, folded), in
    /// one word or in words one after another.
    fn written_outside(&self, wanted: &str) -> bool {
        (0..self.plain.len()).any(|from| {
            let mut joined = String::new();
            for word in &self.plain[from..] {
                compact_into(&mut joined, word);
                if joined.len() >= wanted.len() || !wanted.starts_with(joined.as_str()) {
                    break;
                }
            }
            joined == wanted
        })
    }
}

/// Whether a message outside the tables opens with a word that turns every row down and
/// says they do not fit ([`NONE_OF_THEM`], [`FITS`]): "¿Cuál prefieres?" "Ninguna me viene
/// bien". Not one inside a sentence ("no tengo ninguna preferencia"), nor one about another
/// thing ("None of my mornings are free", "Keine Ahnung").
fn turned_all_down(text: &str, tokens: &[Token], inside: &[std::ops::Range<usize>]) -> bool {
    let outside = |t: &Token| !inside.iter().any(|r| r.contains(&t.start));
    tokens.iter().enumerate().any(|(i, t)| {
        let opens = match i.checked_sub(1).map(|k| &tokens[k]) {
            None => true,
            Some(before) => {
                (before.kind == Kind::Punct && before.lower == ":")
                    || text
                        .get(before.end..t.start)
                        .is_some_and(|gap| gap.contains('\n'))
            }
        };
        let fits = tokens[i + 1..]
            .iter()
            .filter(|t| t.kind == Kind::Word)
            .take(4)
            .any(|t| is(FITS, &t.folded));
        outside(t) && t.kind == Kind::Word && is(NONE_OF_THEM, &t.folded) && opens && fits
    })
}

/// The tables of `text` ([`Rows::read`]) and the byte ranges they stand in.
fn tables_of(
    text: &str,
    tokens: &[Token],
    tool_results: &[std::ops::Range<usize>],
    numbers: &[NumberSpan],
) -> (Vec<Table>, Vec<std::ops::Range<usize>>) {
    let in_tool_result = |at: usize| tool_results.iter().any(|r| r.contains(&at));
    let mut tables = Vec::new();
    let mut markdown = Table::default();
    // Byte ranges of the text that are tables.
    let mut inside: Vec<std::ops::Range<usize>> = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let line = &rest[..line_end];
        if let Some((value, from, end)) = json_at(line, rest) {
            let before = tables.len();
            collect_tables(&value, in_tool_result(at), &mut tables);
            if tables.len() > before {
                inside.push(at + from..at + end);
            }
            at += end.max(1);
            continue;
        }
        // A markdown table: one row per line ("| 88120977 | 20/11 | $1,299 |").
        if let Some(cells) = markdown_row(line) {
            // A header holds no number; nor does the line of dashes under it.
            if cells.chars().any(|c| c.is_ascii_digit()) {
                let from = at + line.find(cells).unwrap_or_default();
                // The whole line is one row: no mark splits it.
                markdown
                    .rows
                    .extend(segments(cells, '\u{0}', from, tokens, numbers));
            }
            inside.push(at..at + line_end);
            at += line_end;
            continue;
        }
        if markdown.rows.len() >= 2 {
            tables.push(std::mem::take(&mut markdown));
        }
        markdown = Table::default();
        let table = if line.contains('|') {
            text_table(line, '|', at, tokens, numbers)
        } else if in_tool_result(at) {
            numbered(line, at, tokens, numbers).or_else(|| list(line, at, tokens, numbers))
        } else {
            None
        };
        if let Some(table) = table {
            tables.push(table);
            inside.push(at..at + line_end);
        }
        at += line_end;
    }
    if markdown.rows.len() >= 2 {
        tables.push(markdown);
    }
    (tables, inside)
}

/// The JSON value a line starts (after a speaker's label, running on past the line in
/// `rest`), with where it starts and ends in `rest`.
fn json_at(line: &str, rest: &str) -> Option<(Value, usize, usize)> {
    let from = line
        .find(['[', '{'])
        .filter(|from| json_starts_line(&line[..*from]))?;
    let json = &rest[from..];
    let mut values =
        serde_json::Deserializer::from_str(&json[..floor(json, JSON_LIMIT)]).into_iter::<Value>();
    match values.next() {
        Some(Ok(value)) => Some((value, from, from + values.byte_offset())),
        _ => None,
    }
}

/// The largest char boundary of `text` at or below `limit`.
fn floor(text: &str, limit: usize) -> usize {
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// A line of a tool result written as text with its rows between `mark`s ("|"), two at
/// least, each with a number of two digits or more; a caption before the first row
/// ("Pedidos:") is no row's. `at` is the line's byte offset in the text.
fn text_table(
    line: &str,
    mark: char,
    at: usize,
    tokens: &[Token],
    numbers: &[NumberSpan],
) -> Option<Table> {
    let rows = segments(line, mark, at, tokens, numbers);
    let numbered = |row: &Row| {
        row.values
            .iter()
            .any(|v| v.bytes().filter(u8::is_ascii_digit).count() >= 2)
    };
    (rows.len() >= 2 && rows.iter().all(numbered)).then(|| Table {
        picked: Vec::new(),
        rows,
    })
}

/// A list a tool's result writes on one line, its items between ";" (or else " / ", or else
/// ","): two or more items alike, each with a number ("basic $5/mo, plus $10/mo, pro
/// $20/mo"), each of three words at most ("morango, chocolate, baunilha"), or each with a
/// link or another identifier. Prose ("Your order 4471 has
/// shipped, arriving Tuesday") is no list: its parts are not alike.
fn list(line: &str, at: usize, tokens: &[Token], numbers: &[NumberSpan]) -> Option<Table> {
    // "S: 5 GB / M: 20 GB / L: unbegrenzt": a slash between spaces, never one inside a
    // date or a unit ("30/11", "€/mois").
    let mark = if line.contains(';') {
        ';'
    } else if line.contains(" / ") {
        '/'
    } else {
        ['·', '•']
            .into_iter()
            .find(|b| line.contains(*b))
            .unwrap_or(',')
    };
    let rows = segments(line, mark, at, tokens, numbers);
    // A date written in digits ("2026-10-04") is read as a date, no number: its digits count.
    // Or each holds a link or another identifier ("https://meet.example.com/abc-defg-hij").
    let alike = rows
        .iter()
        .all(|r| !r.numbers.is_empty() || r.text.bytes().any(|b| b.is_ascii_digit()))
        || rows.iter().all(|r| (1..=3).contains(&r.values.len()))
        || rows
            .iter()
            .all(|r| r.text.split_whitespace().any(identifier));
    (rows.len() >= 2 && alike).then(|| Table {
        picked: Vec::new(),
        rows,
    })
}

/// A word of letters joined by marks no prose puts inside a word: a link, an address, a
/// path ("https://x.io/a-b", "ana@x.io", "docs/q3.pdf"); never "state-of-the-art".
fn identifier(word: &str) -> bool {
    word.contains(['/', '@'])
        && word.matches(['/', '@', '.', '_', '-']).count() >= 2
        && word.chars().filter(|c| c.is_alphanumeric()).count() >= 6
}

/// The rows of `line` between `mark`s (a "," between two digits is a decimal mark, no row's
/// end), without a caption before the first; their numbers are those `numbers` read there.
fn segments(
    line: &str,
    mark: char,
    at: usize,
    tokens: &[Token],
    numbers: &[NumberSpan],
) -> Vec<Row> {
    let mut cuts = vec![0];
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        let decimal = c == ','
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        let inside =
            c == '/' && !(i > 0 && bytes[i - 1] == b' ' && bytes.get(i + 1) == Some(&b' '));
        if c == mark && !decimal && !inside {
            cuts.push(i);
            cuts.push(i + c.len_utf8());
        }
    }
    cuts.push(line.len());
    rows_between(line, &cuts, at, tokens, numbers)
}

/// The items of a line numbered in order, "1) ITA Airways 07:10 2) Air France 09:45" (or
/// "1." ... "2."): two or more, each marker after a space or at the start; the markers are no
/// row's (the user's "2 people" picks no row by them).
fn numbered(line: &str, at: usize, tokens: &[Token], numbers: &[NumberSpan]) -> Option<Table> {
    let mut cuts = vec![0];
    let mut next = 1;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let marker = format!("{next})");
        let dotted = format!("{next}. ");
        let starts = i == 0 || bytes[i - 1] == b' ';
        let here = &line[i..];
        if starts && (here.starts_with(&marker) || here.starts_with(&dotted)) {
            cuts.push(i);
            cuts.push(i + marker.len());
            next += 1;
            i += marker.len();
            continue;
        }
        i += 1;
        while i < bytes.len() && !line.is_char_boundary(i) {
            i += 1;
        }
    }
    cuts.push(line.len());
    let rows = rows_between(line, &cuts, at, tokens, numbers);
    (next > 2 && rows.len() >= 2).then(|| Table {
        picked: Vec::new(),
        rows,
    })
}

/// The rows of `line` between the `cuts` (pairs of byte offsets: a row's end, the next one's
/// start), without a caption before the first.
fn rows_between(
    line: &str,
    cuts: &[usize],
    at: usize,
    tokens: &[Token],
    numbers: &[NumberSpan],
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (n, pair) in cuts.chunks(2).enumerate() {
        let (mut from, to) = (pair[0], pair[1]);
        let mut segment = &line[from..to];
        if n == 0 {
            // The caption ends at the last colon a space follows (never one of a time,
            // "07:05"): "Madrid-Valencia 03/12: 07:05 AVE", "Tool: Pedidos: 4471".
            let colon = segment
                .match_indices(':')
                .map(|(at, _)| at)
                .rfind(|at| segment[at + 1..].starts_with(char::is_whitespace))
                .or_else(|| segment.rfind(':').filter(|at| *at + 1 == segment.len()));
            if let Some(colon) = colon {
                let (caption, after) = segment.split_at(colon);
                let timed = super::extreme::starts_with_time(after.get(1..).unwrap_or_default());
                if (!caption.contains(|c: char| c.is_ascii_digit()) || timed) && after.len() > 1 {
                    from += colon + 1;
                    segment = &after[1..];
                }
            }
        }
        if segment.trim().is_empty() {
            continue;
        }
        let range = at + from..at + to;
        rows.push(Row {
            values: fold(segment)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect(),
            compact: compact(segment),
            numbers: numbers
                .iter()
                .filter(|n| {
                    tokens
                        .get(n.start)
                        .is_some_and(|t| range.contains(&t.start))
                })
                .map(|n| n.value)
                .collect(),
            text: segment.trim().to_owned(),
        });
    }
    rows
}

/// The cells of a markdown table's line (after a speaker's label), where the line is one:
/// it starts and ends with "|". A line of dashes between the header and the rows is one, and
/// holds no row.
fn markdown_row(line: &str) -> Option<&str> {
    let trimmed = line.trim();
    let trimmed = match trimmed.split_once(':') {
        Some((label, rest))
            if json_starts_line(&format!("{label}:")) && rest.trim().starts_with('|') =>
        {
            rest.trim()
        }
        _ => trimmed,
    };
    (trimmed.len() >= 2 && trimmed.starts_with('|') && trimmed.ends_with('|')).then_some(trimmed)
}

/// Whether what stands before a JSON value on its line is nothing or a speaker's label
/// ("Tool: ", "Tool result: ").
fn json_starts_line(before: &str) -> bool {
    let before = before.trim();
    before.is_empty()
        || (before.ends_with(':') && before.len() <= 24 && !before.contains(['{', '[', '"']))
}

/// Every array of two objects or more in `value`, as tables of folded scalars; with `names`
/// (a tool's result), every array of two strings or more too, unless it stands in another
/// table's row (a row's `attendees` are no choice the user makes).
fn collect_tables(value: &Value, names: bool, tables: &mut Vec<Table>) {
    match value {
        Value::Array(items) => {
            let objects: Vec<&serde_json::Map<String, Value>> =
                items.iter().filter_map(Value::as_object).collect();
            let rows = objects.len() >= 2 && objects.len() == items.len();
            if rows {
                tables.push(Table {
                    rows: objects
                        .iter()
                        .map(|o| Row {
                            values: row_values(o),
                            compact: String::new(),
                            numbers: o.values().filter_map(Value::as_f64).collect(),
                            text: o
                                .iter()
                                .map(|(k, v)| format!("{k} {v}"))
                                .collect::<Vec<_>>()
                                .join("; "),
                        })
                        .collect(),
                    picked: Vec::new(),
                });
            }
            // A list of two names or more (branches, buckets, subject lines): a row each.
            let strings: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if names && strings.len() >= 2 && strings.len() == items.len() {
                tables.push(Table {
                    rows: strings
                        .iter()
                        .map(|name| {
                            let whole = fold(name.trim());
                            let file = fold(name.trim().rsplit('/').next().unwrap_or_default());
                            Row {
                                compact: compact(&whole),
                                values: vec![whole, file],
                                numbers: Vec::new(),
                                text: (*name).to_owned(),
                            }
                        })
                        .collect(),
                    picked: Vec::new(),
                });
            }
            for item in items {
                collect_tables(item, names && !rows, tables);
            }
        }
        Value::Object(map) => {
            for item in map.values() {
                collect_tables(item, names, tables);
            }
        }
        _ => {}
    }
}

fn row_values(row: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for value in row.values() {
        match value {
            Value::String(s) => out.push(fold(s.trim())),
            Value::Number(n) => out.push(number_text(n)),
            Value::Bool(b) => out.push(b.to_string()),
            _ => {}
        }
    }
    out
}

fn number_text(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

/// The rows `words` (the conversation outside the tables) pick: by a word of three letters
/// or more that only that row's values hold, by a number of `said` only that row holds, or
/// by an ordinal after an article. An ordinal of `said` (marked `true`) is a row's place,
/// unless there are fewer rows than it counts: "the one on the 18th" is a day.
fn pick(rows: &[Row], words: &[String], said: &[(f64, bool)], clocks: &[(u32, u32)]) -> Vec<bool> {
    let mut picked = vec![false; rows.len()];
    let values = said
        .iter()
        .filter(|(n, ordinal)| !ordinal || *n > rows.len() as f64)
        .map(|(n, _)| n);
    for number in values {
        let holds = |row: &Row| row.numbers.iter().any(|n| super::facts::close(*n, *number));
        if rows.iter().filter(|r| holds(r)).count() == 1 {
            if let Some(at) = rows.iter().position(holds) {
                picked[at] = true;
            }
        }
    }
    // A time of day only one row holds: "prendi quello delle 9:45".
    for clock in clocks {
        let holds = |row: &Row| {
            row.text
                .split_whitespace()
                .any(|w| clock_of(w).as_ref() == Some(clock))
        };
        if rows.iter().filter(|r| holds(r)).count() == 1 {
            if let Some(at) = rows.iter().position(holds) {
                picked[at] = true;
            }
        }
    }
    let matched = words_matched(rows, words);
    // The one row that holds more of the words said than any other, two at least ("a do
    // Itaú" of "minha mãe": two rows are mom's, two are Itaú's, one is both).
    let most = matched.iter().map(Vec::len).max().unwrap_or(0);
    if most >= 2 && matched.iter().filter(|m| m.len() == most).count() == 1 {
        if let Some(at) = matched.iter().position(|m| m.len() == most) {
            picked[at] = true;
        }
    }
    if let Some(extreme) = super::extreme::asked(words) {
        let texts: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
        if let Some(at) = super::extreme::picked(&texts, extreme) {
            picked[at] = true;
        }
    }
    for (i, own) in matched.iter().enumerate() {
        let only_here = |w: &&str| {
            matched
                .iter()
                .enumerate()
                .all(|(j, other)| j == i || !other.contains(w))
        };
        if own.iter().any(only_here) {
            picked[i] = true;
        }
    }
    pick_by_place(rows, words, &mut picked);
    picked
}

/// Per row, the words said (three letters or more, no stop or function word, none turned
/// down: "from checking, not savings") that its values hold (folded values split at marks),
/// in any form: "mit den Kopfhörern" picks the row of "Kopfhörer".
fn words_matched<'w>(rows: &[Row], words: &'w [String]) -> Vec<Vec<&'w str>> {
    let turned_down = |at: usize| {
        (1..=2).any(|back| {
            at.checked_sub(back)
                .and_then(|i| words.get(i))
                .is_some_and(|w| w != "no" && is(super::words::NEGATIONS, w))
        })
    };
    // Two forms of a word share their first three letters ([`word_form`]): the words said,
    // by those, so that each row word meets only the few that may be its forms.
    let mut by_start: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    for (at, word) in words.iter().enumerate() {
        let counts = word.chars().count() >= 3
            && !is(STOPWORDS, word)
            && !super::language::function_word(word)
            && !turned_down(at);
        if counts {
            by_start.entry(first_three(word)).or_default().push(word);
        }
    }
    rows.iter()
        .map(|row| {
            let mut found: Vec<&str> = row
                .values
                .iter()
                .flat_map(|v| v.split(|c: char| !c.is_alphanumeric()))
                .flat_map(|w| {
                    by_start
                        .get(first_three(w))
                        .into_iter()
                        .flatten()
                        .copied()
                        .filter(move |s| *s == w || word_form(s, w) || word_form(w, s))
                })
                .collect();
            found.sort_unstable();
            found.dedup();
            found
        })
        .collect()
}

/// The rows picked by their place: "the middle one" of an odd number, an ordinal after an
/// article ("open the first one", "el último"). "The last" of rows that each hold a date or
/// a time is the latest ("le dernier PDF que j'ai téléchargé"), wherever it stands.
fn pick_by_place(table: &[Row], words: &[String], picked: &mut [bool]) {
    let rows = table.len();
    let texts: Vec<&str> = table.iter().map(|r| r.text.as_str()).collect();
    let latest = super::extreme::picked(&texts, super::extreme::Extreme::Latest);
    for (i, word) in words.iter().enumerate() {
        let after_article = (1..=2).any(|back| i >= back && is(ARTICLES, &words[i - back]));
        if is(MIDDLE, word) && after_article && rows % 2 == 1 {
            picked[rows / 2] = true;
        }
    }
    for (i, pair) in words.windows(2).enumerate() {
        if !is(ARTICLES, &pair[0]) {
            continue;
        }
        // The ordinal names a row ("the first one", "la terza va bene", "el último"), not
        // another thing's place ("the last sync", "la primera vez").
        if words.get(i + 2).is_some_and(|next| {
            !is(ONE, next) && !is(STOPWORDS, next) && !super::language::function_word(next)
        }) {
            continue;
        }
        let place = PLACES
            .iter()
            .find(|(names, _)| names.contains(&pair[1].as_str()))
            .map(|(_, place)| place.or(latest).unwrap_or(rows - 1));
        if let Some(at) = place.filter(|at| *at < rows) {
            picked[at] = true;
        }
    }
}

/// A time of day written as one word, "9:45", "09:45", "21h30" (marks around it aside), as
/// hour and minute.
fn clock_of(word: &str) -> Option<(u32, u32)> {
    let word = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let (hour, minute) = word.split_once([':', 'h'])?;
    let (hour, minute): (u32, u32) = (hour.parse().ok()?, minute.parse().ok()?);
    (hour < 24 && minute < 60 && word.len() <= 5).then_some((hour, minute))
}

/// A word's first three letters (all of a shorter one).
fn first_three(word: &str) -> &str {
    let end = word.char_indices().nth(3).map_or(word.len(), |(at, _)| at);
    &word[..end]
}

#[cfg(test)]
mod tests {
    use super::super::evidence::Evidence;
    use super::*;
    use serde_json::json;

    fn refused(text: &str, value: Value) -> bool {
        refused_in(text, &[], value)
    }

    /// With the lines from the one that starts with `tool` to the one that starts with
    /// "User:" as a tool's result.
    fn refused_after_tool(text: &str, tool: &str, value: Value) -> bool {
        assert!(text.contains(tool), "{tool}");
        let from = text.find(tool).unwrap_or_default();
        let to = text[from..].find("User:").map_or(text.len(), |i| from + i);
        refused_in(text, std::slice::from_ref(&(from..to)), value)
    }

    fn refused_in(text: &str, tools: &[std::ops::Range<usize>], value: Value) -> bool {
        Evidence::with_tool_results(text, tools, jiff::civil::date(2026, 11, 25))
            .rows
            .refuses(&value)
    }

    #[test]
    fn a_list_in_a_tool_result_picked_by_a_number_or_a_word() {
        let plans = "User: what plans do you have?\nbasic $5/mo, plus $10/mo, pro $20/mo\nUser: I'll take the ten dollar one";
        assert!(refused_after_tool(plans, "basic", json!("pro")));
        assert!(!refused_after_tool(plans, "basic", json!("plus")));
        let forfaits = "User: Quels forfaits ?\nEssentiel 9,99 €/mois ; Confort 14,99 €/mois ; Premium 19,99 €/mois\nUser: je prends celui à 14,99";
        assert!(refused_after_tool(forfaits, "Essentiel", json!("premium")));
        assert!(!refused_after_tool(forfaits, "Essentiel", json!("confort")));
        let flavours =
            "User: Tem quais sabores?\nmorango, chocolate, baunilha\nUser: Quero o de baunilha";
        assert!(refused_after_tool(flavours, "morango", json!("chocolate")));
        assert!(!refused_after_tool(flavours, "morango", json!("baunilha")));
        // A word said in another form picks its row: "Kopfhörern" for "Kopfhörer".
        let orders = "User: wo ist die Sendung mit den Kopfhörern?\nTool: Bestellungen: 302-8841 Kopfhörer (unterwegs); 302-8814 Ladekabel (zugestellt)";
        assert!(refused_after_tool(orders, "Tool:", json!("3028814")));
        assert!(!refused_after_tool(orders, "Tool:", json!("3028841")));
    }

    #[test]
    fn every_row_turned_down_is_no_pick() {
        let slots = "User: cita el viernes\nTool: {\"huecos\": [{\"hora\": \"10:00\"}, {\"hora\": \"12:30\"}]}\nUser: ";
        for answer in [
            "Ninguna me viene bien, miro otro día.",
            "None of those work for me.",
            "Keiner passt mir.",
        ] {
            let text = format!("{slots}{answer}");
            assert!(
                refused_after_tool(&text, "Tool:", json!("12:30")),
                "{answer}"
            );
            assert!(
                refused_after_tool(&text, "Tool:", json!("10:00")),
                "{answer}"
            );
        }
        // "ninguna" inside a sentence or about another thing, and a row picked.
        let text = format!("{slots}No tengo ninguna preferencia, la de las 12:30.");
        assert!(!refused_after_tool(&text, "Tool:", json!("12:30")));
        let text = format!("{slots}Ninguna preferencia, la primera.");
        assert!(!refused_after_tool(&text, "Tool:", json!("10:00")));
        let text = "User: None of my mornings are free, find me a slot on Friday\nTool: {\"slots\": [{\"id\": \"s1\"}, {\"id\": \"s2\"}]}\nUser: the second one";
        assert!(!refused_after_tool(text, "Tool:", json!("s2")));
        let text = format!("{slots}La de las 12:30.");
        assert!(!refused_after_tool(&text, "Tool:", json!("12:30")));
    }

    #[test]
    fn a_list_of_names_is_a_row_each() {
        let branches = "User: branches?\nTool: {\"branches\": [\"main\", \"release/2.4\", \"hotfix/2.3.1\"]}\nUser: deploy the hotfix one";
        assert!(refused_after_tool(branches, "Tool:", json!("release/2.4")));
        assert!(!refused_after_tool(
            branches,
            "Tool:",
            json!("hotfix/2.3.1")
        ));
        let subjects = "User: tre idee?\nTool: [\"Aggiornamento progetto\", \"Novità di dicembre\", \"Riepilogo settimanale\"]\nUser: mi piace la terza";
        assert!(refused_after_tool(
            subjects,
            "Tool:",
            json!("Novità di dicembre")
        ));
        assert!(!refused_after_tool(
            subjects,
            "Tool:",
            json!("Riepilogo settimanale")
        ));
        // No row picked: every name stays evidence.
        let open = "User: branches?\nTool: [\"main\", \"release/2.4\"]\nUser: which is newer?";
        assert!(!refused_after_tool(open, "Tool:", json!("release/2.4")));
        // An ordinal of another thing picks no name ("the last sync"); names in a row of
        // another table are no choice; nor is a list the user wrote.
        let people = "User: who came?\nTool: {\"attendees\": [\"ana@corp.com\", \"bob@corp.com\", \"cy@corp.com\"]}\nUser: invite the same people as the last sync, Friday at 10";
        assert!(!refused_after_tool(people, "Tool:", json!("ana@corp.com")));
        let meetings = "User: meetings?\nTool: [{\"title\": \"Sync\", \"attendees\": [\"ana\", \"bob\"]}, {\"title\": \"Review\", \"attendees\": [\"cy\", \"dan\"]}]\nUser: move the review, keep ana posted";
        assert!(!refused_after_tool(meetings, "Tool:", json!("ana")));
        assert!(!refused(
            "Tags: [\"urgent\", \"billing\", \"q3\"]\nit's urgent, the first one",
            json!("billing")
        ));
    }

    #[test]
    fn a_row_by_a_day_said_as_an_ordinal_and_a_value_of_several_words() {
        let bookings = "User: my bookings?\nTool: Ref QX7-22K9, Hotel Aurora, Dec 10-12; Ref QX7-22L4, Hotel Mistral, Dec 18-20\nUser: cancel the one on the 18th";
        assert!(refused_after_tool(bookings, "Tool:", json!("QX7-22K9")));
        assert!(!refused_after_tool(bookings, "Tool:", json!("QX7-22L4")));
        // An ordinal no greater than the rows is no value: "the 2nd one" picks no row by
        // the "2" of the first.
        let plans =
            "User: plans?\nTool: Lite 2 GB $5; Plus 4 GB $9; Max 8 GB $15\nUser: the 2nd one";
        assert!(!refused_after_tool(plans, "Tool:", json!("Plus")));
        assert!(!refused_after_tool(plans, "Tool:", json!("Max")));
        let slots = "User: les créneaux ?\nTool: Dr Martin – mardi 10h ; Dr Lefèvre – mercredi 15h ; Dr Nguyen – jeudi 9h\nUser: je prends celui du mercredi";
        assert!(refused_after_tool(slots, "Tool:", json!("Dr Martin")));
        assert!(!refused_after_tool(slots, "Tool:", json!("Dr Lefèvre")));
    }

    #[test]
    fn a_list_of_links() {
        let links = "User: los enlaces?\nTool: Reunión de equipo: https://meet.example.com/abc-defg-hij ; Revisión trimestral: https://meet.example.com/xyz-uvwq-rst\nUser: mándale a Pablo el de la trimestral";
        assert!(refused_after_tool(
            links,
            "Tool:",
            json!("https://meet.example.com/abc-defg-hij")
        ));
        assert!(!refused_after_tool(
            links,
            "Tool:",
            json!("https://meet.example.com/xyz-uvwq-rst")
        ));
        // Prose with one link is no list.
        let prose = "User: the link?\nTool: Your meeting is set, join at https://meet.example.com/abc-defg-hij, see you there\nUser: send it to Pablo";
        assert!(!refused_after_tool(
            prose,
            "Tool:",
            json!("https://meet.example.com/abc-defg-hij")
        ));
    }

    #[test]
    fn a_row_by_most_words_by_a_word_not_turned_down_or_as_an_extreme() {
        let contacts = "User: faz o pix pra conta da minha mãe, a do Itaú\nTool: Maria Souza (mãe) – Nubank – chave 11987654321 | Maria Souza (mãe) – Itaú – ag 1572 cc 45672-1 | Marcos Souza – Itaú – ag 1572 cc 98801-3";
        assert!(refused_after_tool(contacts, "Tool:", json!("98801-3")));
        assert!(!refused_after_tool(contacts, "Tool:", json!("45672-1")));
        let accounts = "User: pay the electric bill from checking, not savings\nTool: accounts: Checking ••4821 (id 30018821) balance $1,240.55; Savings ••7730 (id 30017730) balance $8,902.10";
        assert!(refused_after_tool(accounts, "Tool:", json!("30017730")));
        assert!(!refused_after_tool(accounts, "Tool:", json!("30018821")));
        let bills = "User: welche Rechnung ist am höchsten? Die zahl ich jetzt gleich\nTool: Offene Rechnungen: R-1043 Stadtwerke 84,20 € | R-1051 Telekom 39,99 € | R-1057 Versicherung 212,50 €";
        assert!(refused_after_tool(bills, "Tool:", json!(84.2)));
        assert!(!refused_after_tool(bills, "Tool:", json!(212.5)));
        let files = "User: abre o ficheiro mais recente da pasta Faturas\nTool: Faturas/: fatura_EDP_set.pdf (modificado 2026-10-04) ; fatura_EDP_out.pdf (modificado 2026-11-03)";
        assert!(refused_after_tool(
            files,
            "Tool:",
            json!("Faturas/fatura_EDP_set.pdf")
        ));
        assert!(!refused_after_tool(
            files,
            "Tool:",
            json!("Faturas/fatura_EDP_out.pdf")
        ));
        let trains = "User: sácame el más barato a Valencia mañana\nTool: Madrid-Valencia 03/12: 07:05 AVE 48,90€ | 08:30 Alvia 32,15€ | 09:15 AVE 71,00€";
        assert!(!refused_after_tool(trains, "Tool:", json!("08:30")));
        assert!(refused_after_tool(trains, "Tool:", json!("07:05")));
        // A superlative over some rows only picks none.
        let showtimes = "User: the latest showing that still ends before 11 pm\nTool: showtimes today: 18:10 (ends 20:55) | 19:40 (ends 22:25) | 21:15 (ends 00:00)";
        assert!(!refused_after_tool(showtimes, "Tool:", json!("19:40")));
    }

    #[test]
    fn items_numbered_in_order_on_one_line() {
        let flights = "User: Trovami un volo per Parigi\nTool: 1) ITA Airways - 07:10 - 129 € 2) Air France - 09:45 - 98 € 3) easyJet - 12:30 - 75 €\nUser: prendi quello delle 9:45";
        assert!(refused_after_tool(flights, "Tool:", json!("ITA Airways")));
        assert!(!refused_after_tool(flights, "Tool:", json!("Air France")));
        // The markers pick no row: "2 persone" is no second item.
        let two = "User: Trovami un volo\nTool: 1. ITA Airways 129 € 2. Air France 98 €\nUser: ok, per 2 persone";
        assert!(!refused_after_tool(two, "Tool:", json!("ITA Airways")));
        // Numbers out of order are no numbered list.
        let prose = "User: status?\nTool: 3) done 1) pending\nUser: the pending one";
        assert!(!refused_after_tool(prose, "Tool:", json!("done")));
    }

    #[test]
    fn a_markdown_table_has_a_row_per_line() {
        let orders = "User: ¿cuáles son mis pedidos?\nTool: | pedido | fecha | total |\n|---|---|---|\n| 88120451 | 12/11 | $540 |\n| 88120977 | 20/11 | $1,299 |\nUser: quiero devolver el de 1,299";
        assert!(!refused(orders, json!("88120977")));
        assert!(refused(orders, json!("88120451")));
    }

    #[test]
    fn the_middle_one_and_a_list_between_bullets() {
        let plans =
            "User: what plans?\nBasic $5/mo · Plus $12/mo · Pro $25/mo\nUser: gimme the middle one";
        assert!(refused_after_tool(plans, "Basic", json!("pro")));
        assert!(!refused_after_tool(plans, "Basic", json!("plus")));
        // Of an even number of rows, none is the middle one.
        let four =
            "User: what plans?\nBasic $5 · Plus $12 · Pro $25 · Max $40\nUser: the middle one";
        assert!(!refused_after_tool(four, "Basic", json!("pro")));
    }

    #[test]
    fn prose_and_the_users_own_lists_are_no_rows() {
        // Prose in a tool's result: its parts are not alike.
        let shipped = "User: where is it?\nYour order 4471 has shipped, arriving Tuesday\nUser: ok, move Tuesday to Wednesday";
        assert!(!refused_after_tool(shipped, "Your order", json!("4471")));
        // The same list in the user's own words: every item is said.
        let own = "add eggs 12, milk 2, bread 1 to the list\nand the milk is urgent";
        assert!(!refused(own, json!("eggs")));
        assert!(!refused(own, json!(12)));
        // A number that two rows hold picks neither.
        let twice = "User: sizes?\nS 10 GB, M 10 GB, L 20 GB\nUser: one with 10 GB, the S";
        assert!(!refused_after_tool(twice, "S 10", json!("M")));
    }

    #[test]
    fn a_value_of_a_row_the_user_did_not_pick() {
        let orders = "User: Zeig meine Bestellungen\nTool: [{\"nr\":\"302118\",\"artikel\":\"Wasserkocher\"},{\"nr\":\"302140\",\"artikel\":\"Toaster\"}]\nUser: Ich will den Wasserkocher zurückschicken";
        assert!(refused(orders, json!("302140")));
        assert!(!refused(orders, json!("302118")));
        let debts = "User: quanto devo a Marco?\nTool: {\"debiti\":[{\"a\":\"Marco\",\"importo\":35},{\"a\":\"Sara\",\"importo\":52}]}\nUser: ok pagalo";
        assert!(refused(debts, json!(52)));
        assert!(!refused(debts, json!(35)));
        let repos = "User: find my repos\nTool: [{\"name\":\"budget-app\"},{\"name\":\"budget-app-old\"}]\nUser: open the first one";
        assert!(refused(repos, json!("budget-app-old")));
        assert!(!refused(repos, json!("budget-app")));
        // Without labels, as the pipe joins a conversation's messages.
        let bare = "[{\"id\":\"A1\",\"city\":\"Lyon\"},{\"id\":\"B2\",\"city\":\"Nice\"}]\nbook the one in Nice";
        assert!(refused(bare, json!("A1")));
        assert!(!refused(bare, json!("B2")));
    }

    #[test]
    fn rows_of_a_tool_result_written_as_text() {
        let orders = "User: qual o código de rastreio da minha compra da Shopee?\nTool: Pedidos: Shopee — rastreio BR481200339 | Mercado Livre — rastreio BR774019256";
        assert!(refused(orders, json!("BR774019256")));
        assert!(!refused(orders, json!("BR481200339")));
        let contracts = "Verträge: Strom – Kundennr. 300 481 772 | Gas – Kundennr. 300 481 790\nTrag die Kundennummer vom Gas ein";
        assert!(refused(contracts, json!("300481772")));
        assert!(!refused(contracts, json!("300481790")));
        // Picked by meaning only ("the oldest"), or no numbered rows: every row stays.
        let bills = "paga la bolletta più vecchia\nbollette: Enel n. 0041287 scadenza 10/11 | Hera n. 0039954 scadenza 02/11";
        assert!(!refused(bills, json!("0041287")));
        assert!(!refused(
            "pick up milk; call mom at 5\nthe milk first",
            json!(5)
        ));
    }

    #[test]
    fn every_row_stays_evidence_where_none_is_picked() {
        // Picked by meaning only.
        let accounts = "User: pay it from whichever account has more money\nTool: [{\"name\":\"checking\",\"last4\":\"1182\"},{\"name\":\"savings\",\"last4\":\"7735\"}]";
        assert!(!refused(accounts, json!("7735")));
        assert!(!refused(accounts, json!("1182")));
        // A word both rows hold picks neither; an ordinal without its article is no place.
        let both =
            "[{\"name\":\"Project Alpha\"},{\"name\":\"Project Beta\"}]\nfirst, open the project";
        assert!(!refused(both, json!("Project Beta")));
        // One row is no choice; nor is a list of plain values outside a tool's result.
        assert!(!refused("[{\"id\":\"A1\"}]\nthe first one", json!("A1")));
        assert!(!refused("[\"A1\",\"B2\"]\nthe first one", json!("B2")));
        // A value the user also said stays said.
        let text = "[{\"id\":\"A1\",\"city\":\"Lyon\"},{\"id\":\"B2\",\"city\":\"Nice\"}]\nthe one in Nice, not A1";
        assert!(!refused(text, json!("A1")));
    }
}
