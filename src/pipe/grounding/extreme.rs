//! A row of a tool's result picked as the extreme of a column: "the cheapest", "el más
//! barato", "die höchste Rechnung", "le créneau le plus tard possible", "o ficheiro mais
//! recente". The user names no row's own word or number, but one row is the cheapest (its
//! money the least), the latest (its time or date the last), and so on; when exactly one row
//! is, it is the row picked ([`super::rows`]).

/// Words that ask for the top of a scale, folded: "à fond", "a tope", "al máximo", "full
/// marks", "auf voll", "al massimo".
#[rustfmt::skip]
const TOP: &[&str] = &[
    "max", "maximum", "maximo", "maxima", "maximal", "maximale", "massimo", "massima", "fond",
    "tope", "full", "voll", "volle", "vollen", "highest", "top",
];

/// Words that ask for the bottom of a scale, folded: "al mínimo", "au minimum", "the lowest".
#[rustfmt::skip]
const BOTTOM: &[&str] = &[
    "min", "minimum", "minimo", "minima", "minimal", "minimale", "lowest", "niedrigste",
    "niedrigsten",
];

/// Words right before a scale's end that set a thing to it: "à fond", "a tope", "al
/// máximo", "on minimum", "auf voll", folded.
const SET_TO: &[&str] = &[
    "to", "at", "on", "a", "al", "au", "auf", "sur", "na", "no", "em", "ao", "in", "alla",
];

/// Marks given in full: "full marks", "top marks", "volle Punktzahl" (folded, two words).
const FULL_MARKS: &[[&str; 2]] = &[
    ["full", "marks"],
    ["top", "marks"],
    ["volle", "punktzahl"],
    ["full", "blast"],
];

/// Whether `value` is an end of its field's scale (the schema's `maximum` or `minimum`) that
/// the conversation asks for by name: "Mets le volume à fond" for `volume: 100` of 0 to 100,
/// "full marks" for a 1-to-5 rating's 5. Only the end a thing is set to ("to", "à", "al"
/// right before it) or marks given in full, not a word that bounds a number after it ("max 3
/// people"), one after a number ("10 min"), one that says something else is high ("the top
/// stories", "the top floor"), nor one after a negation.
pub(super) fn scale_end_said(
    value: f64,
    schema: &serde_json::Value,
    evidence: &super::evidence::Evidence,
) -> bool {
    use super::tokens::Kind;
    let end = |key: &str| schema.get(key).and_then(serde_json::Value::as_f64);
    let asked = |words: &[&str], top: bool| {
        let tokens = &evidence.tokens;
        tokens.iter().enumerate().any(|(i, t)| {
            let word = |k: usize| tokens.get(k).map_or("", |t| t.folded.as_str());
            let bound = tokens.get(i + 1).is_some_and(|n| n.kind == Kind::Number);
            let negated = tokens[i.saturating_sub(2)..i]
                .iter()
                .any(|n| evidence.negates(&n.folded));
            let set = i > 0 && SET_TO.contains(&word(i - 1));
            let marks = top
                && FULL_MARKS
                    .iter()
                    .any(|[a, b]| word(i) == *a && word(i + 1) == *b);
            (marks || (words.contains(&t.folded.as_str()) && set && !bound)) && !negated
        })
    };
    (end("maximum").is_some_and(|m| super::facts::close(m, value)) && asked(TOP, true))
        || (end("minimum").is_some_and(|m| super::facts::close(m, value)) && asked(BOTTOM, false))
}

/// Which end of which column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Extreme {
    Cheapest,
    Dearest,
    Latest,
    Earliest,
}

/// The words that ask for each, folded, as consecutive words.
#[rustfmt::skip]
const ASKED: &[(&[&str], Extreme)] = &[
    (&["cheapest"], Extreme::Cheapest), (&["least", "expensive"], Extreme::Cheapest),
    (&["lowest", "price"], Extreme::Cheapest), (&["mas", "barato"], Extreme::Cheapest),
    (&["mas", "barata"], Extreme::Cheapest), (&["mas", "economico"], Extreme::Cheapest),
    (&["mas", "economica"], Extreme::Cheapest), (&["moins", "cher"], Extreme::Cheapest),
    (&["moins", "chere"], Extreme::Cheapest), (&["gunstigste"], Extreme::Cheapest),
    (&["gunstigsten"], Extreme::Cheapest), (&["gunstigster"], Extreme::Cheapest),
    (&["billigste"], Extreme::Cheapest), (&["billigsten"], Extreme::Cheapest),
    (&["mais", "barato"], Extreme::Cheapest), (&["mais", "barata"], Extreme::Cheapest),
    (&["piu", "economico"], Extreme::Cheapest), (&["piu", "economica"], Extreme::Cheapest),
    (&["meno", "caro"], Extreme::Cheapest), (&["meno", "cara"], Extreme::Cheapest),
    (&["most", "expensive"], Extreme::Dearest), (&["highest"], Extreme::Dearest),
    (&["biggest"], Extreme::Dearest), (&["largest"], Extreme::Dearest),
    (&["mas", "caro"], Extreme::Dearest), (&["mas", "cara"], Extreme::Dearest),
    (&["mas", "alta"], Extreme::Dearest), (&["mas", "alto"], Extreme::Dearest),
    (&["plus", "cher"], Extreme::Dearest), (&["plus", "chere"], Extreme::Dearest),
    (&["plus", "elevee"], Extreme::Dearest), (&["plus", "eleve"], Extreme::Dearest),
    (&["teuerste"], Extreme::Dearest), (&["teuersten"], Extreme::Dearest),
    (&["hochste"], Extreme::Dearest), (&["hochsten"], Extreme::Dearest),
    (&["mais", "caro"], Extreme::Dearest), (&["mais", "cara"], Extreme::Dearest),
    (&["mais", "alta"], Extreme::Dearest), (&["mais", "alto"], Extreme::Dearest),
    (&["piu", "caro"], Extreme::Dearest), (&["piu", "cara"], Extreme::Dearest),
    (&["piu", "alta"], Extreme::Dearest), (&["piu", "alto"], Extreme::Dearest),
    (&["latest"], Extreme::Latest), (&["most", "recent"], Extreme::Latest),
    (&["newest"], Extreme::Latest), (&["mas", "tarde"], Extreme::Latest),
    (&["mas", "reciente"], Extreme::Latest), (&["plus", "tard"], Extreme::Latest),
    (&["plus", "recent"], Extreme::Latest), (&["plus", "recente"], Extreme::Latest),
    (&["spateste"], Extreme::Latest), (&["spatesten"], Extreme::Latest),
    (&["neueste"], Extreme::Latest), (&["neuesten"], Extreme::Latest),
    (&["mais", "tarde"], Extreme::Latest), (&["mais", "recente"], Extreme::Latest),
    (&["piu", "tardi"], Extreme::Latest), (&["piu", "recente"], Extreme::Latest),
    (&["earliest"], Extreme::Earliest), (&["oldest"], Extreme::Earliest),
    (&["mas", "temprano"], Extreme::Earliest), (&["mas", "antiguo"], Extreme::Earliest),
    (&["plus", "tot"], Extreme::Earliest), (&["plus", "ancien"], Extreme::Earliest),
    (&["fruheste"], Extreme::Earliest), (&["fruhesten"], Extreme::Earliest),
    (&["alteste"], Extreme::Earliest), (&["altesten"], Extreme::Earliest),
    (&["mais", "cedo"], Extreme::Earliest), (&["mais", "antigo"], Extreme::Earliest),
    (&["piu", "presto"], Extreme::Earliest), (&["piu", "vecchio"], Extreme::Earliest),
];

/// Words that narrow the rows a superlative ranges over ("the latest that still ends before
/// 11", "la moins chère qui inclut le petit-déjeuner", "o mais cedo depois do almoço", "the
/// cheapest with a rating above 4.5"): the extreme of all rows is then no answer.
const NARROWING: &[&str] = &[
    "that", "which", "with", "after", "before", "under", "over", "above", "below", "except", "qui",
    "que", "avec", "apres", "avant", "sauf", "con", "despues", "antes", "excepto", "mit", "nach",
    "vor", "uber", "unter", "ausser", "com", "depois", "acima", "abaixo", "che", "dopo", "prima",
    "sopra", "sotto", "tranne",
];

/// How many words after a superlative a narrowing word may stand.
const NARROWING_REACH: usize = 4;

/// The extreme `words` (folded) ask for: one kind, or none where they ask for none or for two,
/// or narrow the rows it ranges over ([`NARROWING`]).
pub(super) fn asked(words: &[String]) -> Option<Extreme> {
    let mut found: Option<Extreme> = None;
    for at in 0..words.len() {
        for (phrase, extreme) in ASKED {
            let here = words
                .get(at..at + phrase.len())
                .is_some_and(|w| w.iter().zip(phrase.iter()).all(|(a, b)| a == b));
            if !here {
                continue;
            }
            let after = at + phrase.len();
            let narrowed = words
                .iter()
                .skip(after)
                .take(NARROWING_REACH)
                .any(|w| NARROWING.contains(&w.as_str()));
            if narrowed {
                return None;
            }
            match found {
                Some(other) if other != *extreme => return None,
                _ => found = Some(*extreme),
            }
        }
    }
    found
}

/// The one row of `rows` (each a row's text) at the `extreme`, where every row holds a value
/// of that column and no other row ties with it.
pub(super) fn picked(rows: &[&str], extreme: Extreme) -> Option<usize> {
    let keys: Vec<Option<f64>> = match extreme {
        Extreme::Cheapest | Extreme::Dearest => rows.iter().map(|r| money(r)).collect(),
        Extreme::Latest | Extreme::Earliest => {
            let times: Vec<Option<f64>> = rows.iter().map(|r| time(r)).collect();
            match times.iter().all(Option::is_some) {
                true => times,
                false => rows.iter().map(|r| date(r)).collect(),
            }
        }
    };
    let keys: Vec<f64> = keys.into_iter().collect::<Option<Vec<f64>>>()?;
    let best = match extreme {
        Extreme::Cheapest | Extreme::Earliest => keys.iter().copied().fold(f64::INFINITY, f64::min),
        Extreme::Dearest | Extreme::Latest => {
            keys.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        }
    };
    let mut at_best = keys.iter().enumerate().filter(|(_, k)| **k == best);
    let (first, _) = at_best.next()?;
    (rows.len() >= 2 && at_best.next().is_none()).then_some(first)
}

/// Currency marks a price stands beside.
const CURRENCY: &[char] = &['€', '$', '£', '¥', '₹'];
/// Currency words a price stands beside, folded.
const CURRENCY_WORDS: &[&str] = &[
    "eur", "euro", "euros", "usd", "dollars", "reais", "brl", "pesos", "gbp", "chf", "franken",
];
/// Words of a column that holds money, before its price ("price 189"), folded.
const PRICE_KEYS: &[&str] = &[
    "price", "cost", "amount", "total", "precio", "prix", "preis", "preco", "prezzo", "importe",
    "montant", "betrag", "valor", "importo",
];

/// The first price a row's text writes: a number with a currency mark or word beside it.
fn money(text: &str) -> Option<f64> {
    numbers(text).into_iter().find_map(|(start, end, value)| {
        let before = &text[..start];
        let after = &text[end..];
        let mark_near = |side: &str, from_end: bool| {
            let chars: Vec<char> = match from_end {
                true => side.chars().rev().take(3).collect(),
                false => side.chars().take(3).collect(),
            };
            chars.iter().any(|c| CURRENCY.contains(c))
        };
        let word = |side: &str, from_end: bool| {
            let words: Vec<&str> = side
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let near = match from_end {
                true => words.last().copied(),
                false => words.first().copied(),
            };
            let near = near.map(super::tokens::fold);
            near.is_some_and(|w| {
                CURRENCY_WORDS.contains(&w.as_str())
                    || (from_end && PRICE_KEYS.contains(&w.as_str()))
            })
        };
        (mark_near(before, true)
            || mark_near(after, false)
            || word(before, true)
            || word(after, false))
        .then_some(value)
    })
}

/// The numbers a text writes with their byte ranges, read with either decimal mark
/// ("48,90", "1,240.55", "1.500,00").
fn numbers(text: &str) -> Vec<(usize, usize, f64)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_digit() || (at > 0 && bytes[at - 1].is_ascii_alphanumeric()) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len()
            && (bytes[at].is_ascii_digit()
                || (matches!(bytes[at], b'.' | b',')
                    && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)))
        {
            at += 1;
        }
        if let Some(value) = read_number(&text[start..at]) {
            out.push((start, at, value));
        }
    }
    out
}

/// A number with its marks: the last mark followed by one or two digits is the decimal one.
fn read_number(text: &str) -> Option<f64> {
    let decimal = text
        .rfind(['.', ','])
        .filter(|at| (1..=2).contains(&(text.len() - at - 1)));
    let digits: String = match decimal {
        Some(at) => {
            let whole: String = text[..at].chars().filter(char::is_ascii_digit).collect();
            format!("{whole}.{}", &text[at + 1..])
        }
        None => text.chars().filter(char::is_ascii_digit).collect(),
    };
    digits.parse().ok()
}

/// Whether `text` starts with a time of day ("07:05 AVE ...").
pub(super) fn starts_with_time(text: &str) -> bool {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    time(&text[..end]).is_some() && text[..end].contains(':')
}

/// The first time of day a row's text writes ("07:05", "19h30"), in minutes.
fn time(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find_map(|at| {
        let mark = *bytes.get(at)?;
        if !matches!(mark, b':' | b'h') || at == 0 {
            return None;
        }
        let hour_start = (0..at)
            .rev()
            .take_while(|i| bytes[*i].is_ascii_digit())
            .last()?;
        let minutes = text.get(at + 1..at + 3)?;
        let hour: u32 = text[hour_start..at].parse().ok()?;
        let minute: u32 = minutes.parse().ok()?;
        let clean_end = bytes.get(at + 3).is_none_or(|b| !b.is_ascii_digit());
        (hour < 24 && minute < 60 && at - hour_start <= 2 && clean_end)
            .then_some(f64::from(hour * 60 + minute))
    })
}

/// The first date a row's text writes as digits, year first ("2026-10-04") or last, the
/// day before the month where the month is no more than 12 ("28/11/2026", "02.10.2026"), as
/// a number that orders dates.
fn date(text: &str) -> Option<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '/' | '.')))
        .find_map(|word| {
            let word = word.trim_matches(['.', '-', '/']);
            let mark = ['-', '/', '.'].into_iter().find(|m| word.contains(*m))?;
            let parts: Vec<u32> = word
                .split(mark)
                .map(|p| p.parse().ok())
                .collect::<Option<Vec<u32>>>()?;
            let (year, month, day) = match parts.as_slice() {
                [y, m, d] if *y > 999 => (*y, *m, *d),
                [a, b, y] if *y > 999 && *b <= 12 => (*y, *b, *a),
                [a, b, y] if *y > 999 => (*y, *a, *b),
                _ => return None,
            };
            let valid = (1..=12).contains(&month) && (1..=31).contains(&day);
            valid.then(|| f64::from(year * 10_000 + month * 100 + day))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_end_of_a_scale_asked_for_by_name() {
        let end = |text: &str, value: f64, schema: serde_json::Value| {
            let evidence =
                super::super::evidence::Evidence::new(text, jiff::civil::date(2026, 11, 25));
            scale_end_said(value, &schema, &evidence)
        };
        let volume = || serde_json::json!({"type": "integer", "minimum": 0, "maximum": 100});
        let stars = || serde_json::json!({"type": "integer", "minimum": 1, "maximum": 5});
        assert!(end("Mets le volume de l'enceinte à fond.", 100.0, volume()));
        assert!(end("Pon la música a tope", 100.0, volume()));
        assert!(end(
            "Rate my driver. He was great, full marks.",
            5.0,
            stars()
        ));
        assert!(end("Put the heating on minimum", 1.0, stars()));
        // Another value, a bound before a number, an end turned down, none named.
        assert!(!end("Mets le volume à fond.", 50.0, volume()));
        assert!(!end("Book max 3 people", 5.0, stars()));
        assert!(!end("Set the volume, not full please", 100.0, volume()));
        assert!(!end("Set the volume for the party", 100.0, volume()));
        assert!(!end(
            "Show me the top stories on Hacker News",
            100.0,
            volume()
        ));
        assert!(!end("Book a table on the top floor terrace", 5.0, stars()));
        assert!(!end("Remind me in 10 min to call Ana", 1.0, stars()));
        assert!(!end(
            "Mets le volume à fond.",
            100.0,
            serde_json::json!({"type": "integer"})
        ));
    }

    fn words(text: &str) -> Vec<String> {
        super::super::tokens::tokenize(text)
            .into_iter()
            .filter(|t| t.kind == super::super::tokens::Kind::Word)
            .map(|t| t.folded)
            .collect()
    }

    #[test]
    fn the_extremes_asked_in_six_languages() {
        assert_eq!(
            asked(&words("sácame el más barato a Valencia")),
            Some(Extreme::Cheapest)
        );
        assert_eq!(
            asked(&words("welche Rechnung ist am höchsten?")),
            Some(Extreme::Dearest)
        );
        assert_eq!(
            asked(&words("le créneau le plus tard possible")),
            Some(Extreme::Latest)
        );
        assert_eq!(
            asked(&words("abre o ficheiro mais recente")),
            Some(Extreme::Latest)
        );
        assert_eq!(asked(&words("the earliest train")), Some(Extreme::Earliest));
        assert_eq!(asked(&words("book the Lisbon flight")), None);
        // A superlative over some of the rows only: no extreme of them all.
        assert_eq!(
            asked(&words("the latest showing that still ends before 11 pm")),
            None
        );
        assert_eq!(
            asked(&words(
                "la formule la moins chère qui inclut le petit-déjeuner"
            )),
            None
        );
        assert_eq!(
            asked(&words("o horário mais cedo que tiver depois do almoço")),
            None
        );
        // Two ends asked: none.
        assert_eq!(asked(&words("the cheapest or the latest")), None);
    }

    #[test]
    fn the_row_at_the_extreme() {
        let trains = [
            "07:05 AVE 1h52 Estándar 48,90€",
            "08:30 Alvia 2h40 Estándar 32,15€",
            "09:15 AVE 1h50 Confort 71,00€",
        ];
        assert_eq!(picked(&trains, Extreme::Cheapest), Some(1));
        assert_eq!(picked(&trains, Extreme::Dearest), Some(2));
        assert_eq!(picked(&trains, Extreme::Latest), Some(2));
        assert_eq!(picked(&trains, Extreme::Earliest), Some(0));
        let bills = [
            "R-1043 Stadtwerke 84,20 €",
            "R-1051 Telekom 39,99 €",
            "R-1057 Versicherung 212,50 €",
        ];
        assert_eq!(picked(&bills, Extreme::Dearest), Some(2));
        let files = [
            "fatura_EDP_set.pdf (modificado 2026-10-04)",
            "fatura_EDP_out.pdf (modificado 2026-11-03)",
            "fatura_MEO_out.pdf (modificado 2026-10-28)",
        ];
        assert_eq!(picked(&files, Extreme::Latest), Some(1));
        let downloads = [
            "facture_oct.pdf (28/11/2026)",
            "billet_tgv.pdf (30/11/2026)",
            "cv_2025.pdf (02/10/2026)",
        ];
        assert_eq!(picked(&downloads, Extreme::Latest), Some(1));
        assert_eq!(picked(&downloads, Extreme::Earliest), Some(2));
        let accounts = [
            "Checking (id 30018821) balance $1,240.55",
            "Savings (id 30017730) balance $8,902.10",
        ];
        assert_eq!(picked(&accounts, Extreme::Dearest), Some(1));
        // A JSON row's price after its key; the id before it is no price.
        let flights = [r#"id "FL-2207"; price 189"#, r#"id "FL-3310"; price 240"#];
        assert_eq!(picked(&flights, Extreme::Cheapest), Some(0));
        assert_eq!(picked(&flights, Extreme::Dearest), Some(1));
    }

    #[test]
    fn no_row_where_a_row_lacks_the_column_or_two_tie() {
        assert_eq!(
            picked(&["basic plan", "pro $20/mo"], Extreme::Cheapest),
            None
        );
        assert_eq!(picked(&["A $5", "B $5", "C $9"], Extreme::Cheapest), None);
        assert_eq!(picked(&["only $5"], Extreme::Cheapest), None);
        // A number with no currency beside it is no price.
        assert_eq!(picked(&["room 101", "room 202"], Extreme::Cheapest), None);
    }
}
