//! What the recognizers read out of the conversation: typed candidates, each kind filled by
//! one recognizer (one file each) and matched against a call's values by the rule of the same
//! name (see [`super::Rule`]).

use std::collections::{HashMap, HashSet};

use jiff::civil::Date;

/// What a recognizer reads the text against.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// The request's date in the configured timezone: "tomorrow", "el lunes" are read from it.
    pub today: Date,
    /// The languages the text is in, as far as their function words tell.
    pub languages: super::language::Languages,
}

/// A number written in the text, in digits or in words, over tokens `start..end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberSpan {
    pub start: usize,
    pub end: usize,
    pub value: f64,
    /// "3rd", "third", "tercero", "dritte": a rank (a day of the month), not a count.
    pub ordinal: bool,
    /// Written in words ("eight", "ocho"), not digits.
    pub in_words: bool,
}

/// What a number in the text is of, where a recognizer read it as part of something else:
/// "8" of "a las ocho" is an hour, "3" of "el 3 de diciembre" a day, "2" of "two nights" a
/// count of nights. Such a number traces a field about that, not any field: two nights are
/// no two guests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The hour or minute of a time of day.
    Time,
    /// The day or year of a date.
    Date,
    /// The number of a quantity ([`Facts::quantities`], by index).
    Unit(usize),
    /// What a thing is at now, in a request to change it ("it's at 30, turn it up").
    Current,
    /// How much to change a thing by ("turn it down by two", "abbassa di due livelli").
    Change,
    /// The temperature outdoors ("afuera estamos a 5 grados"): the weather's, no value to set
    /// a heating or a thermostat to.
    Outdoor,
}

/// Everything the conversation says, typed.
#[derive(Debug, Default)]
pub struct Facts {
    /// Numbers in the order they are written (rule `number`). Read first: the date, time and
    /// quantity recognizers read their numbers from here.
    pub number_spans: Vec<NumberSpan>,
    /// Numbers with their units (rule `quantity`): "5 m" is 5000 in a field in millimetres.
    pub quantities: Vec<super::quantity::Quantity>,
    /// The numbers read as part of something else, by the token they start at.
    pub roles: HashMap<usize, Role>,
    /// Days said, absolute or relative (rule `date`).
    pub dates: HashSet<Date>,
    /// The last day of a stay said by its first day and its nights ("in tomorrow for 2
    /// nights"): a date only for a field about an end (`check_out`, `end_date`, `return`).
    pub stay_ends: HashSet<Date>,
    /// The first days of ranges said with their month ("del 26 al 29 de diciembre", "December
    /// 26 to 29"): no date for a field about an end (`check_out`, `end_date`).
    pub range_starts: HashSet<Date>,
    /// Days another is said to be an offset before ("am 2. Jänner, erinnere mich eine Woche
    /// vorher": 2 January, which says 26 December): the event's, not a reminder's.
    pub date_anchors: HashSet<Date>,
    /// The days said only as an offset after another (in [`Facts::dates`] too): never the
    /// outbound leg's ("vou dia 15 e volto uma semana depois" says the 22nd for the way
    /// back).
    pub offset_dates: HashSet<Date>,
    /// Weekdays named ("Monday", "lunes"): what `mon` of a day-of-week enum stands for.
    pub weekdays: Vec<jiff::civil::Weekday>,
    /// Times of day said with a cue (rule `time`), as (hour, minute) on a 24-hour clock.
    pub times: HashSet<(i8, i8)>,
    /// Times another is said to be a duration before or after ("à 18 h, rappelle-moi une
    /// demi-heure avant": 18:00, which says 17:30): the event's, not a reminder's.
    pub anchors: HashSet<(i8, i8)>,
    /// Upper-case ISO codes named in words or symbols (rule `code`): "GB" and "GBR" from
    /// "Reino Unido", "GBP" from "British pounds" or "£", "DE" and "de" for "German".
    pub codes: HashSet<String>,
    /// Where each code was named by a name (not written as itself): the token its name starts
    /// at, and the codes it gives.
    pub code_names: Vec<(usize, Vec<String>)>,
    /// Countries named as countries ("Brazil", "brasileño", "pt-BR"), alpha-2: the region of a
    /// locale, where a language's name gives its country only when no other is named
    /// ("Portuguese, the Brazilian one" is `pt-BR`, no `pt-PT`).
    pub regions: HashSet<String>,
}

impl Facts {
    /// Marks the numbers starting in `tokens` as read for `role`, unless already marked.
    pub fn bind(&mut self, tokens: std::ops::Range<usize>, role: Role) {
        let starts: Vec<usize> = self
            .number_spans
            .iter()
            .map(|s| s.start)
            .filter(|start| tokens.contains(start))
            .collect();
        for start in starts {
            self.roles.entry(start).or_insert(role);
        }
    }
}

/// What the recognizers read in `text`, as a served request reads it, today being Wednesday
/// 2026-11-25 (the day every recognizer's tests are written for).
#[cfg(test)]
pub fn read_for_test(text: &str) -> Facts {
    super::evidence::Evidence::new(text, jiff::civil::date(2026, 11, 25)).facts
}

/// Equal up to float noise (`0.1 + 0.2`, a conversion's rounding).
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= f64::EPSILON.max(a.abs().max(b.abs()) * 1e-9)
}
