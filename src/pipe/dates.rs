//! Dates and times as models write them ("2026-11-25 09:00", "11/25/2026", "Nov 25, 2026",
//! "9:00 PM"), read only where they have one reading, and written again in the layout a schema
//! asks: RFC 3339 for `format: "date-time"`, `"date"` and `"time"`, or a layout a description
//! spells ('DD/MM/YYYY', 'HH:mm'). `repair.rs` uses it before validation, so a translation
//! that carries the right value in the wrong layout is not failed for it.
//!
//! A value with two readings is not read: `03/04/2026` (April 3 or March 4) is `None`, while
//! `2026/04/03` (year first), `25/11/2026` (25 is no month) and `Nov 25, 2026` are one date.

use jiff::civil::{Date, DateTime};
use jiff::tz::{AmbiguousOffset, Offset, TimeZone};
use jiff::Timestamp;

/// A clock time; the fraction of a second is kept as written (its digits).
#[derive(Debug, Clone, PartialEq)]
struct Clock {
    hour: i8,
    minute: i8,
    second: i8,
    fraction: String,
}

impl Clock {
    /// `HH:MM:SS[.fraction]`, RFC 3339's partial-time.
    fn rfc3339(&self) -> String {
        let mut out = format!("{:02}:{:02}:{:02}", self.hour, self.minute, self.second);
        if !self.fraction.is_empty() {
            out.push('.');
            out.push_str(&self.fraction);
        }
        out
    }

    fn whole_seconds(&self) -> bool {
        self.fraction.chars().all(|c| c == '0')
    }
}

/// What a value says: a date, a time of day, or both, and the UTC offset it carries
/// (`Z` or `+HH:MM`, as written).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Moment {
    date: Option<Date>,
    clock: Option<Clock>,
    offset: Option<String>,
}

impl Moment {
    /// RFC 3339 date-time; a value without an offset gets `tz`'s for that date and time.
    /// `None` without both a date and a time, or for a time `tz` skips or repeats (the
    /// hour a clock changes has two readings or none).
    pub(crate) fn date_time(&self, tz: &TimeZone) -> Option<String> {
        let (date, clock) = (self.date?, self.clock.as_ref()?);
        let offset = match &self.offset {
            Some(offset) => offset.clone(),
            None => offset_at(date, clock, tz)?,
        };
        Some(format!("{}T{}{offset}", ymd(date), clock.rfc3339()))
    }

    /// RFC 3339 full-date: the date part of a date-time too.
    pub(crate) fn date(&self) -> Option<String> {
        self.date.map(ymd)
    }

    /// RFC 3339 full-time, which needs an offset: the value's own, else `tz`'s on its date
    /// (today's for a time alone).
    pub(crate) fn time(&self, tz: &TimeZone) -> Option<String> {
        let clock = self.clock.as_ref()?;
        let offset = match (&self.offset, self.date) {
            (Some(offset), _) => offset.clone(),
            (None, Some(date)) => offset_at(date, clock, tz)?,
            (None, None) => offset_text(tz.to_offset(Timestamp::now()))?,
        };
        Some(format!("{}{offset}", clock.rfc3339()))
    }
}

fn ymd(date: Date) -> String {
    format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day())
}

/// `tz`'s offset at a civil date and time, where it has exactly one.
fn offset_at(date: Date, clock: &Clock, tz: &TimeZone) -> Option<String> {
    let civil = DateTime::new(
        date.year(),
        date.month(),
        date.day(),
        clock.hour,
        clock.minute,
        clock.second,
        0,
    )
    .ok()?;
    match tz.to_ambiguous_timestamp(civil).offset() {
        AmbiguousOffset::Unambiguous { offset } => offset_text(offset),
        _ => None,
    }
}

/// `+HH:MM` (RFC 3339 has no seconds in an offset: a zone's old local mean time has none).
fn offset_text(offset: Offset) -> Option<String> {
    let seconds = offset.seconds();
    if seconds % 60 != 0 {
        return None;
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.abs() / 60;
    Some(format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60))
}

/// Reads a date, a time of day, or a date and time, when it has one reading; the whole text
/// must be read.
pub(crate) fn read(text: &str) -> Option<Moment> {
    let text = text.trim();
    if let Some((date, rest)) = numeric_date(text).or_else(|| named_date(text)) {
        if rest.trim().is_empty() {
            return Some(Moment {
                date: Some(date),
                clock: None,
                offset: None,
            });
        }
        let (clock, offset) = clock(joined(rest)?)?;
        return Some(Moment {
            date: Some(date),
            clock: Some(clock),
            offset,
        });
    }
    let (clock, offset) = clock(text)?;
    Some(Moment {
        date: None,
        clock: Some(clock),
        offset,
    })
}

/// What follows a date before its time: `T`, white space, `, ` or ` at `.
fn joined(rest: &str) -> Option<&str> {
    if let Some(time) = rest.strip_prefix(['T', 't']) {
        return Some(time);
    }
    let trimmed = rest.trim_start();
    let trimmed = trimmed.strip_prefix(',').unwrap_or(trimmed).trim_start();
    let trimmed = strip_word(trimmed, "at").map_or(trimmed, str::trim_start);
    (trimmed.len() < rest.len()).then_some(trimmed)
}

/// The leading run of ASCII digits and the rest.
fn digits(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    text.split_at(end)
}

/// `text` after `word` (any case) when a non-letter or the end follows it.
fn strip_word<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let head = text.get(..word.len())?;
    let rest = &text[word.len()..];
    (head.eq_ignore_ascii_case(word) && !rest.starts_with(|c: char| c.is_alphabetic()))
        .then_some(rest)
}

fn number(digits: &str) -> Option<i16> {
    digits.parse().ok()
}

/// `2026-11-25`, `2026/11/25`, `2026.11.25`; `25/11/2026` and `11/25/2026` when one of the
/// first two cannot be a month (or both are the same).
fn numeric_date(text: &str) -> Option<(Date, &str)> {
    let (first, rest) = digits(text);
    let sep = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '-' | '/' | '.'))?;
    let (second, rest) = digits(&rest[1..]);
    let rest = rest.strip_prefix(sep)?;
    let (third, rest) = digits(rest);
    let short = |d: &str| (1..=2).contains(&d.len());
    let (year, month, day) = if first.len() == 4 && short(second) && short(third) {
        (number(first)?, number(second)?, number(third)?)
    } else if short(first) && short(second) && third.len() == 4 {
        let (a, b) = (number(first)?, number(second)?);
        let (month, day) = if a == b || (b > 12 && a <= 12) {
            (a, b)
        } else if a > 12 && b <= 12 {
            (b, a)
        } else {
            return None;
        };
        (number(third)?, month, day)
    } else {
        return None;
    };
    let date = Date::new(year, i8::try_from(month).ok()?, i8::try_from(day).ok()?).ok()?;
    Some((date, rest))
}

/// `Nov 25, 2026`, `November 25th 2026`, `25 Nov 2026`, `25th of November, 2026`.
fn named_date(text: &str) -> Option<(Date, &str)> {
    let month_first = || {
        let (month, rest) = month_name(text)?;
        let (day, rest) = day_number(rest.trim_start())?;
        Some((month, day, rest))
    };
    let day_first = || {
        let (day, rest) = day_number(text)?;
        let rest = rest.trim_start();
        let rest = strip_word(rest, "of").map_or(rest, str::trim_start);
        let (month, rest) = month_name(rest)?;
        Some((month, day, rest))
    };
    let (month, day, rest) = month_first().or_else(day_first)?;
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    let after_space = rest.trim_start();
    if after_space.len() == rest.len() {
        return None;
    }
    let (year, rest) = digits(after_space);
    if year.len() != 4 {
        return None;
    }
    Some((Date::new(number(year)?, month, day).ok()?, rest))
}

/// An English month's name or its abbreviation (`Nov`, `Nov.`, `Sept`).
fn month_name(text: &str) -> Option<(i8, &str)> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let word = text[..end].to_ascii_lowercase();
    let index = MONTHS.iter().position(|m| {
        *m == word || (word.len() == 3 && m.starts_with(&word)) || (word == "sept" && m.len() == 9)
    })?;
    let rest = &text[end..];
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    Some((i8::try_from(index + 1).ok()?, rest))
}

/// A day of the month, `25` or `25th`.
fn day_number(text: &str) -> Option<(i8, &str)> {
    let (day, rest) = digits(text);
    if !(1..=2).contains(&day.len()) {
        return None;
    }
    let rest = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| strip_word(rest, s))
        .unwrap_or(rest);
    Some((day.parse().ok()?, rest))
}

/// `9:00`, `09:00:00.5`, `9 pm`, `9:30 a.m.`, each with an optional offset (`Z`, `UTC`,
/// `+01:00`, `+0100`, `+01`). A bare number is no time.
fn clock(text: &str) -> Option<(Clock, Option<String>)> {
    let (hour, mut rest) = digits(text);
    if !(1..=2).contains(&hour.len()) {
        return None;
    }
    let mut hour: i8 = hour.parse().ok()?;
    let (mut minute, mut second, mut fraction) = (0, 0, String::new());
    let with_minutes = rest.starts_with(':');
    if with_minutes {
        let (mm, after) = digits(&rest[1..]);
        minute = two_digits(mm)?;
        rest = after;
        if let Some(after) = rest.strip_prefix(':') {
            let (ss, after) = digits(after);
            second = two_digits(ss)?;
            rest = after;
            if let Some(after) = rest.strip_prefix('.') {
                let (frac, after) = digits(after);
                if !(1..=9).contains(&frac.len()) {
                    return None;
                }
                fraction = frac.to_owned();
                rest = after;
            }
        }
    }
    let trimmed = rest.trim_start();
    let meridiem = ["am", "a.m.", "a.m", "pm", "p.m.", "p.m"]
        .iter()
        .find_map(|m| strip_word(trimmed, m).map(|after| (m.starts_with('p'), after)));
    match meridiem {
        Some((pm, after)) => {
            if !(1..=12).contains(&hour) {
                return None;
            }
            hour = hour % 12 + if pm { 12 } else { 0 };
            rest = after;
        }
        None if !with_minutes => return None,
        None => {}
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let offset = offset(rest.trim_start())?;
    Some((
        Clock {
            hour,
            minute,
            second,
            fraction,
        },
        offset,
    ))
}

fn two_digits(text: &str) -> Option<i8> {
    (text.len() == 2).then(|| text.parse().ok()).flatten()
}

/// The offset that ends a time: `Some(None)` for none, `None` for text that is no offset.
fn offset(text: &str) -> Option<Option<String>> {
    if text.is_empty() {
        return Some(None);
    }
    if ["z", "utc", "gmt"]
        .iter()
        .any(|z| text.eq_ignore_ascii_case(z))
    {
        return Some(Some("Z".into()));
    }
    let sign = text.chars().next().filter(|c| matches!(c, '+' | '-'))?;
    let (hours, rest) = digits(&text[1..]);
    let (hours, minutes) = match (hours.len(), rest) {
        (2, "") => (hours, "00"),
        (2, rest) => (hours, rest.strip_prefix(':')?),
        (4, "") => hours.split_at(2),
        _ => return None,
    };
    let (h, m) = (two_digits(hours)?, two_digits(minutes)?);
    (h <= 23 && m <= 59).then(|| Some(format!("{sign}{hours}:{minutes}")))
}

/// A part of a layout a description spells.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Part {
    Year,
    /// Padded to two digits (`MM`) or not (`M`).
    Month(bool),
    Day(bool),
    Hour(bool),
    Minute,
    Second,
    Literal(char),
}

/// A date or time layout spelled in letters: `YYYY-MM-DD`, `DD/MM/YYYY`, `HH:mm`,
/// `YYYY-MM-DDTHH:MM:SS`. `MM` is minutes after an hour, before seconds or next to `:`.
#[derive(Debug, PartialEq)]
pub(crate) struct Layout(Vec<Part>);

impl Layout {
    /// The layout a template spells, or `None` for one with other letters, a two-digit year,
    /// or no whole date or time (`MM/YYYY`).
    pub(crate) fn of(template: &str) -> Option<Layout> {
        let mut runs: Vec<(char, usize)> = Vec::new();
        for c in template.trim().chars() {
            match runs.last_mut() {
                Some((last, n)) if c.is_ascii_alphabetic() && *last == c => *n += 1,
                _ => runs.push((c, 1)),
            }
        }
        let mut parts = Vec::new();
        for (i, &(c, n)) in runs.iter().enumerate() {
            let part = match (c.to_ascii_uppercase(), n) {
                ('Y', 4) => Part::Year,
                ('D', 1 | 2) => Part::Day(n == 2),
                ('H', 1 | 2) => Part::Hour(n == 2),
                ('S', 1 | 2) => Part::Second,
                ('M', 1 | 2) => {
                    let letter = |r: &&(char, usize)| r.0.is_ascii_alphabetic();
                    let previous = runs[..i].iter().rev().find(letter).map(|r| r.0);
                    let next = runs[i + 1..].iter().find(letter).map(|r| r.0);
                    let beside = |j: Option<usize>| j.and_then(|j| runs.get(j)).map(|r| r.0);
                    if beside(i.checked_sub(1)) == Some(':')
                        || beside(Some(i + 1)) == Some(':')
                        || matches!(previous, Some('H' | 'h'))
                        || matches!(next, Some('S' | 's'))
                    {
                        Part::Minute
                    } else {
                        Part::Month(n == 2)
                    }
                }
                ('T', 1) => Part::Literal('T'),
                (_, _) if c.is_ascii_punctuation() || c == ' ' => Part::Literal(c),
                _ => return None,
            };
            parts.push(part);
        }
        let has = |p: fn(&Part) -> bool| parts.iter().filter(|x| p(x)).count();
        let year = has(|p| *p == Part::Year);
        let month = has(|p| matches!(p, Part::Month(_)));
        let day = has(|p| matches!(p, Part::Day(_)));
        let hour = has(|p| matches!(p, Part::Hour(_)));
        let minute = has(|p| *p == Part::Minute);
        let second = has(|p| *p == Part::Second);
        let date = [year, month, day];
        let whole_date = date == [1, 1, 1];
        let whole_time = hour == 1 && minute == 1 && second <= 1;
        let no_date = date == [0, 0, 0];
        let no_time = hour == 0 && minute == 0 && second == 0;
        ((whole_date && (whole_time || no_time)) || (no_date && whole_time))
            .then_some(Layout(parts))
    }

    fn has_date(&self) -> bool {
        self.0.contains(&Part::Year)
    }

    fn has_time(&self) -> bool {
        self.0.contains(&Part::Minute)
    }

    /// Whether `text` is a date or time in this layout (`11/25/2026` is none in `DD/MM/YYYY`).
    pub(crate) fn fits(&self, text: &str) -> bool {
        let mut rest = text.trim();
        let (mut year, mut month, mut day) = (0, 1, 1);
        for part in &self.0 {
            let (least, most) = match part {
                Part::Literal(c) => {
                    match rest.strip_prefix(|x: char| x.eq_ignore_ascii_case(c)) {
                        Some(after) => rest = after,
                        None => return false,
                    }
                    continue;
                }
                Part::Year => (4, 4),
                Part::Month(false) | Part::Day(false) | Part::Hour(false) => (1, 2),
                _ => (2, 2),
            };
            let (run, _) = digits(rest);
            let taken = run.len().min(most);
            let Some(n) = (taken >= least)
                .then(|| run[..taken].parse::<i16>().ok())
                .flatten()
            else {
                return false;
            };
            rest = &rest[taken..];
            let in_range = match part {
                Part::Year => {
                    year = n;
                    true
                }
                Part::Month(_) => {
                    month = n;
                    true
                }
                Part::Day(_) => {
                    day = n;
                    true
                }
                Part::Hour(_) => n <= 23,
                _ => n <= 59,
            };
            if !in_range {
                return false;
            }
        }
        let real_date = || -> Option<Date> {
            Date::new(year, i8::try_from(month).ok()?, i8::try_from(day).ok()?).ok()
        };
        rest.is_empty() && (!self.has_date() || real_date().is_some())
    }

    /// `moment` in this layout. A date-time gives its date to a date layout and its time to a
    /// time layout; nothing written may drop seconds, a fraction or an offset it carries.
    pub(crate) fn write(&self, moment: &Moment) -> Option<String> {
        let date = if self.has_date() { moment.date } else { None };
        let clock = if self.has_time() {
            moment.clock.as_ref()
        } else {
            None
        };
        if (self.has_date() && date.is_none()) || (self.has_time() && clock.is_none()) {
            return None;
        }
        if let Some(clock) = clock {
            let has_seconds = self.0.contains(&Part::Second);
            if moment.offset.is_some()
                || !clock.whole_seconds()
                || (!has_seconds && clock.second != 0)
            {
                return None;
            }
        }
        let mut out = String::new();
        let pad = |out: &mut String, n: i8, padded: bool| {
            if padded {
                out.push_str(&format!("{n:02}"));
            } else {
                out.push_str(&n.to_string());
            }
        };
        for part in &self.0 {
            match (part, date, clock) {
                (Part::Year, Some(d), _) => out.push_str(&format!("{:04}", d.year())),
                (Part::Month(p), Some(d), _) => pad(&mut out, d.month(), *p),
                (Part::Day(p), Some(d), _) => pad(&mut out, d.day(), *p),
                (Part::Hour(p), _, Some(c)) => pad(&mut out, c.hour, *p),
                (Part::Minute, _, Some(c)) => pad(&mut out, c.minute, true),
                (Part::Second, _, Some(c)) => pad(&mut out, c.second, true),
                (Part::Literal(c), _, _) => out.push(*c),
                _ => return None,
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paris() -> Result<TimeZone, String> {
        TimeZone::get("Europe/Paris").map_err(|e| e.to_string())
    }

    #[test]
    fn dates_with_one_reading_are_read() {
        let date = |t: &str| read(t).and_then(|m| m.date());
        for text in [
            "2026-11-25",
            "2026/11/25",
            "2026.11.25",
            "25/11/2026",
            "11/25/2026",
            "Nov 25, 2026",
            "November 25th 2026",
            "25 Nov 2026",
            "25th of November, 2026",
            "2026-11-25T09:00:00",
        ] {
            assert_eq!(date(text).as_deref(), Some("2026-11-25"), "{text}");
        }
        assert_eq!(date("03/03/2026").as_deref(), Some("2026-03-03"));
        // Two readings, or none.
        for text in [
            "03/04/2026",
            "2026-02-30",
            "26-11-25",
            "25/11/26",
            "Nov 2026",
            "tomorrow",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn times_and_offsets() -> Result<(), String> {
        let tz = paris()?;
        let winter = |t: &str| read(t).and_then(|m| m.date_time(&tz));
        assert_eq!(
            winter("2026-11-25 09:00").as_deref(),
            Some("2026-11-25T09:00:00+01:00")
        );
        assert_eq!(
            winter("2026-07-01T21:30:15.250").as_deref(),
            Some("2026-07-01T21:30:15.250+02:00")
        );
        assert_eq!(
            winter("Nov 25, 2026 at 9 pm").as_deref(),
            Some("2026-11-25T21:00:00+01:00")
        );
        assert_eq!(
            winter("2026-11-25 09:00 +0530").as_deref(),
            Some("2026-11-25T09:00:00+05:30")
        );
        assert_eq!(
            winter("2026-11-25T12:00 a.m. UTC").as_deref(),
            Some("2026-11-25T00:00:00Z")
        );
        // 02:30 on the day the clocks go forward does not exist in Paris.
        assert_eq!(winter("2026-03-29T02:30:00"), None);
        assert_eq!(winter("2026-11-25"), None);
        let time = |t: &str| read(t).and_then(|m| m.time(&TimeZone::UTC));
        assert_eq!(time("9:00").as_deref(), Some("09:00:00+00:00"));
        assert_eq!(time("9:05 PM").as_deref(), Some("21:05:00+00:00"));
        for text in ["9", "25:00", "9:7", "13 pm", "9:00 tomorrow", "9:00+1"] {
            assert_eq!(read(text), None, "{text}");
        }
        Ok(())
    }

    #[test]
    fn layouts_spelled_in_letters() -> Result<(), String> {
        let layout = |t: &str| Layout::of(t).ok_or(format!("no layout in {t}"));
        let write = |l: &Layout, t: &str| read(t).and_then(|m| l.write(&m));
        let full = layout("YYYY-MM-DD HH:mm:ss")?;
        assert_eq!(
            write(&full, "2026-11-25T09:00").as_deref(),
            Some("2026-11-25 09:00:00")
        );
        let european = layout("DD/MM/YYYY")?;
        assert_eq!(
            write(&european, "2026-11-05").as_deref(),
            Some("05/11/2026")
        );
        assert_eq!(
            write(&european, "2026-11-25 09:00").as_deref(),
            Some("25/11/2026")
        );
        assert!(european.fits("05/11/2026") && !european.fits("2026-11-05"));
        let us = layout("MM-DD-YYYY")?;
        assert_eq!(write(&us, "Nov 5, 2026").as_deref(), Some("11-05-2026"));
        let clock = layout("HH:MM")?;
        assert_eq!(write(&clock, "9:30 pm").as_deref(), Some("21:30"));
        assert_eq!(write(&clock, "09:30:15"), None, "the seconds would be lost");
        assert_eq!(
            write(&clock, "09:30+02:00"),
            None,
            "the offset would be lost"
        );
        let iso = layout("YYYY-MM-DDTHH:MM:SS")?;
        assert_eq!(
            write(&iso, "11/25/2026 9:00").as_deref(),
            Some("2026-11-25T09:00:00")
        );
        assert_eq!(write(&iso, "2026-11-25"), None, "no time to write");
        for template in ["MM/YYYY", "YY-MM-DD", "City, State", "18:30", "HH:mm A"] {
            assert_eq!(Layout::of(template), None, "{template}");
        }
        Ok(())
    }
}
