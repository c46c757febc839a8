//! The rules that trace one value to the evidence, by name. Which are tried, and in which
//! order, depends on the kind of value (see `first`); the first that traces a value decides
//! it and is recorded; each can be switched off
//! (`[translation] grounding_rules_off`), which makes grounding stricter: a value only that
//! rule traced is then unsaid.

use jiff::civil::Date;
use serde_json::Value;

use super::evidence::{Evidence, TakenBack};
use super::facets;
use super::facts::{close, Role};
use super::lexicon;
use super::quantity;
use super::tokens::{cognate, stem, words_of, Kind, Token};
use super::words::{is, ASIDES, SEQUENCE, STOPWORDS};
use super::{
    airports, choice, conversions, counted, dictated, flags, labels, language, legs, moved,
    other_events, renamed, roles, route, text, things,
};
use crate::config::GroundingRule;

/// A rule that decided a value, or why none did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// The schema's own `default` or `const`, a value the field's description maps to
    /// something said (see `mapped`), or nothing to trace (`null`, an empty string).
    Schema,
    /// Written in the text as it is (its letters and digits, from one word's edge to another's),
    /// or spelled out with its marks and digits in words (`dictated.rs`).
    Verbatim,
    /// A number said in digits or words.
    Number,
    /// A number with its unit, in the unit the field takes.
    Quantity,
    /// A day said, absolute or relative.
    Date,
    /// A time of day said with a cue.
    Time,
    /// A country, currency or language named in words or symbols.
    Code,
    /// A phone number, account or code whose digits the text holds with other separators.
    Digits,
    /// An enum member named, chosen for a subject the text speaks of, or a required member
    /// worked out from the said values only its `if`/`then` branch requires (`branch.rs`).
    Choice,
    /// A boolean whose subject the text affirms or negates.
    Flag,
    /// Free text whose content words the text holds.
    Text,
    /// Not traced, but the conversation holds text in a language the recognizers do not read
    /// (or free text in another language than the value's): kept, unverified.
    Unread,
    /// Traced by no rule.
    Unsaid,
    /// A map key nobody said: it goes with its value.
    MapKey,
    /// Said only as a piece of a longer value the call already carries whole.
    Piece,
}

impl Rule {
    /// The rules a configuration may switch off, by name (the test below holds the list to
    /// the configuration's names).
    #[cfg(test)]
    const SWITCHABLE: [Rule; 12] = [
        Rule::Schema,
        Rule::Verbatim,
        Rule::Number,
        Rule::Quantity,
        Rule::Date,
        Rule::Time,
        Rule::Code,
        Rule::Digits,
        Rule::Choice,
        Rule::Flag,
        Rule::Text,
        Rule::Unread,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::Schema => "schema",
            Rule::Verbatim => "verbatim",
            Rule::Number => "number",
            Rule::Quantity => "quantity",
            Rule::Date => "date",
            Rule::Time => "time",
            Rule::Code => "code",
            Rule::Digits => "digits",
            Rule::Choice => "choice",
            Rule::Flag => "flag",
            Rule::Text => "text",
            Rule::Unread => "unread",
            Rule::Unsaid => "unsaid",
            Rule::MapKey => "map_key",
            Rule::Piece => "piece",
        }
    }
}

impl From<GroundingRule> for Rule {
    fn from(rule: GroundingRule) -> Rule {
        match rule {
            GroundingRule::Schema => Rule::Schema,
            GroundingRule::Verbatim => Rule::Verbatim,
            GroundingRule::Number => Rule::Number,
            GroundingRule::Quantity => Rule::Quantity,
            GroundingRule::Date => Rule::Date,
            GroundingRule::Time => Rule::Time,
            GroundingRule::Code => Rule::Code,
            GroundingRule::Digits => Rule::Digits,
            GroundingRule::Choice => Rule::Choice,
            GroundingRule::Flag => Rule::Flag,
            GroundingRule::Text => Rule::Text,
            GroundingRule::Unread => Rule::Unread,
        }
    }
}

/// The rules in force: all but those switched off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules {
    off: u32,
}

impl Rules {
    pub fn without(names: &[Rule]) -> Rules {
        Rules {
            off: names
                .iter()
                .fold(0, |bits, rule| bits | 1 << (*rule as u32)),
        }
    }

    /// All but the rules `[translation] grounding_rules_off` names.
    pub fn from_config(off: &[GroundingRule]) -> Rules {
        Rules::without(&off.iter().copied().map(Rule::from).collect::<Vec<_>>())
    }

    pub fn on(self, rule: Rule) -> bool {
        self.off & (1 << (rule as u32)) == 0
    }
}

/// One value with what it is checked as.
pub struct Leaf<'a> {
    pub value: &'a Value,
    /// Its schema, `$ref` followed.
    pub schema: &'a Value,
    /// The property it is the value of ("" for the call itself, the array's for an item).
    pub key: &'a str,
}

/// The rule that traces `leaf`, or [`Rule::Unread`] / [`Rule::Unsaid`].
pub fn trace(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Rule {
    let found = first(leaf, evidence, rules);
    match found {
        Some(rule) => rule,
        None if rules.on(Rule::Unread) && unread(leaf, evidence) => Rule::Unread,
        None => Rule::Unsaid,
    }
}

fn first(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Option<Rule> {
    let Some(rule) = traced(leaf, evidence, rules) else {
        if let Some(rule) = declined_flag(leaf, evidence, rules) {
            return Some(rule);
        }
        // Said where the correction stands, once what it took back is gone: the words taken
        // back may mislead a rule ("customer number 4471093, no wait, 4471098": the field's
        // label stood before the digits taken back, not before the ones asked for).
        let back = evidence.taken_back.as_ref().filter(|back| !back.cancels)?;
        return traced(leaf, &back.without, rules).or_else(|| {
            (rules.on(Rule::Time) && hour_said_again(leaf, back)).then_some(Rule::Time)
        });
    };
    if said_only_for_the_other_leg(leaf, evidence, rules)
        || struck_off(leaf, evidence)
        || said_only_as_moved_from(leaf, evidence, rules)
        || the_event_s_time(leaf, evidence)
        || said_only_as_turned_down(leaf, evidence, rules)
        || said_only_for_another_event(leaf, evidence, rules)
        || said_only_for_another_thing(leaf, evidence, rules)
        || said_only_in_another_part(leaf, evidence, rules)
        || named_only_to_be_refused(leaf, evidence)
    {
        return None;
    }
    // A value said only where the user took it back, with another of its kind said instead
    // ("al catalán... no, mejor al portugués"), was not asked for.
    if let Some(back) = &evidence.taken_back {
        if traced(leaf, &back.without, rules).is_none()
            && traced(leaf, &back.taken, rules).is_some()
            && (back.cancels || kind_said(leaf, back))
        {
            return None;
        }
    }
    Some(rule)
}

/// A time of day whose hour a correction says bare, where what it takes back said an hour:
/// "book the room at 10 tomorrow" ... "actually make it 11" says 11:00, in the half of the
/// day the hour taken back was in where it named one.
fn hour_said_again(leaf: &Leaf, back: &TakenBack) -> bool {
    let Some((hour, 0)) = leaf.value.as_str().and_then(clock_of) else {
        return false;
    };
    let bare = |facts: &super::facts::Facts| -> Vec<i8> {
        facts
            .number_spans
            .iter()
            .filter(|s| !s.ordinal && s.value.fract() == 0.0 && (1.0..=24.0).contains(&s.value))
            .filter(|s| facts.roles.get(&s.start).is_none_or(|r| *r == Role::Time))
            .filter_map(|s| i8::try_from(s.value as i64).ok())
            .collect()
    };
    let taken = &back.taken.facts;
    let halves: Vec<bool> = taken.times.iter().map(|(h, _)| *h < 12).collect();
    // Only hours taken back, said as hours: "a table for 4 at 8pm ... make it 5" may count
    // people, "2 nights, check-in at 3pm ... make it 4" nights, "on the 10th at 9 ... make
    // it 11" the day; "the room for 10" may be ten people. Twelve is noon or midnight.
    let others = taken
        .number_spans
        .iter()
        .filter(|s| taken.roles.get(&s.start) != Some(&Role::Time))
        .count();
    let an_hour_taken = !taken.times.is_empty() && others == 0 && hour % 12 != 0;
    // A correction that says its time whole ("não, às 6 da tarde") is read as said.
    if !back.correction.facts.times.is_empty() {
        return false;
    }
    let said = bare(&back.correction.facts).into_iter().any(|h| {
        (h == hour || h + 12 == hour) && (halves.is_empty() || halves.contains(&(hour < 12)))
    });
    an_hour_taken && said
}

/// A flag off whose subject a question the user answered with a no names: "¿Quieres la
/// tarifa reembolsable?" "nah, la normal" says `refundable: false`.
fn declined_flag(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Option<Rule> {
    let declined = evidence.declined.as_deref()?;
    if leaf.value != &Value::Bool(false) || !rules.on(Rule::Flag) {
        return None;
    }
    let on = Value::Bool(true);
    let asked = Leaf {
        value: &on,
        ..*leaf
    };
    (traced(&asked, declined, rules) == Some(Rule::Flag)).then_some(Rule::Flag)
}

/// A day for one leg of a trip said only for the other: "on the 18th and back on the 27th"
/// gives no outbound 27th and no return on the 18th ([`legs`]). Only where each leg says a
/// day ("a one-way flight back to Madrid on the 12th" is one leg); a day said in neither leg
/// alone ("returning a week later") is left to the whole conversation.
fn said_only_for_the_other_leg(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    let Some(text) = leaf.value.as_str().filter(|t| date_of(t).is_some()) else {
        return false;
    };
    let words = field_words(leaf);
    let Some(leg) = legs::of_field(&words) else {
        return false;
    };
    // A day counted from another is a later leg's, or an earlier: not the way out's.
    if leg == legs::Leg::Out
        && date_of(text).is_some_and(|day| evidence.facts.offset_dates.contains(&day))
    {
        return true;
    }
    let Some((back, out)) = legs::split(evidence) else {
        return false;
    };
    let said_in = |part: &Evidence| day_or_time(text, leaf, part, rules).flatten().is_some();
    let (own, other) = match leg {
        legs::Leg::Out => (&out, &back),
        legs::Leg::Back => (&back, &out),
    };
    // Both legs are spoken of: by a day, or by their own words, the outbound leg's ("la ida
    // todavía no la tengo clara") or the way back's clause ("la vuelta aún no la sé", "and
    // back"). "A one-way flight back to Madrid on the 12th" has one leg: the way back, whose
    // day is its own.
    let says_a_day =
        |part: &Evidence| !part.facts.dates.is_empty() || !part.facts.weekdays.is_empty();
    let spoken_of = says_a_day(own)
        || match leg {
            legs::Leg::Out => legs::outbound_named(evidence),
            legs::Leg::Back => true,
        };
    spoken_of && said_in(other) && !said_in(own)
}

/// Words of a field about a reminder or an alert: its time is the one a duration before or
/// after the event's says, not the event's.
const REMINDING: &[&str] = &[
    "remind",
    "reminder",
    "reminders",
    "alert",
    "alarm",
    "notify",
    "notification",
    "notice",
    "recordatorio",
    "aviso",
    "rappel",
    "erinnerung",
    "lembrete",
    "promemoria",
    "avviso",
];

/// A time or a day for a reminder that is only the event's a duration is counted from: "le
/// cours commence à 18 h, rappelle-moi une demi-heure avant" says 17:30 for `reminder_time`,
/// and 18:00 only for the class; "am 2. Jänner, erinnere mich eine Woche vorher" says 26
/// December for `reminder_date`.
fn the_event_s_time(leaf: &Leaf, evidence: &Evidence) -> bool {
    let Some(text) = leaf.value.as_str() else {
        return false;
    };
    let facts = &evidence.facts;
    let anchored = clock_of(text).is_some_and(|clock| facts.anchors.contains(&clock))
        || date_of(text).is_some_and(|day| facts.date_anchors.contains(&day));
    anchored
        && field_words(leaf)
            .iter()
            .any(|w| REMINDING.contains(&w.as_str()))
}

/// A day or time said only as where a thing is moved from ("from 9:15 to 9:45", see
/// [`moved`]), for a field not about where it is now.
fn said_only_as_moved_from(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    let Some(text) = leaf.value.as_str().filter(|t| is_day_or_time(t)) else {
        return false;
    };
    if moved::about_now(&field_words(leaf)) {
        return false;
    }
    let Some((from, rest)) = evidence.moved() else {
        return false;
    };
    let said_in = |part: &Evidence| day_or_time(text, leaf, part, rules).flatten().is_some();
    said_in(from) && !said_in(rest)
}

/// A text said, then struck off ("Brot und Käse ... Käse streichen"; see
/// [`taken_back::struck`]).
fn struck_off(leaf: &Leaf, evidence: &Evidence) -> bool {
    // A field of what to remove holds what was struck.
    const REMOVING: &[&str] = &["remove", "removed", "delete", "drop", "exclude", "excluded"];
    if words_of(leaf.key).iter().any(|w| is(REMOVING, w)) {
        return false;
    }
    leaf.value.as_str().is_some_and(|text| {
        let words: Vec<String> = super::tokens::tokenize(text)
            .into_iter()
            .filter(|t| t.kind != Kind::Punct)
            .map(|t| t.folded)
            .collect();
        super::taken_back::struck(&words, &evidence.tokens)
    })
}

/// A day said only where the user turns it down, another day said ([`refused`]).
fn said_only_as_turned_down(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    let Some(text) = leaf.value.as_str().filter(|t| date_of(t).is_some()) else {
        return false;
    };
    let Some((down, rest)) = evidence.refused() else {
        return false;
    };
    let said_in = |part: &Evidence| day_or_time(text, leaf, part, rules).flatten().is_some();
    said_in(down) && !said_in(rest)
}

/// A day or time said only as another event's: when a thing expires, when the user must be
/// somewhere ([`other_events`]).
fn said_only_for_another_event(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    let Some(text) = leaf.value.as_str().filter(|t| is_day_or_time(t)) else {
        return false;
    };
    let Some((other, rest)) = other_events::split(evidence, &field_words(leaf)) else {
        return false;
    };
    let said_in = |part: &Evidence| day_or_time(text, leaf, part, rules).flatten().is_some();
    said_in(&other) && !said_in(&rest)
}

/// A number said only where another thing than the field's is named, where the field's
/// thing is named with a number of its own ([`things`]): "la pasta per 9 minuti e il sugo
/// per 20" gives `pasta_minutes` no 20.
fn said_only_for_another_thing(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    // A correction gives a number of its own to what it corrects ("4 biglietti... anzi 5",
    // "actually make it 250"), in a part that need not name it.
    // A member of an enum is chosen by what it means ("2 for ironing service"), no count.
    if !leaf.value.is_number() || evidence.taken_back.is_some() || leaf.schema.get("enum").is_some()
    {
        return false;
    }
    // The key's words: a description names many things ("the reservation's table").
    let Some((own, rest)) = things::split(evidence, &words_of(leaf.key)) else {
        return false;
    };
    traced(leaf, &rest, rules).is_some() && traced(leaf, &own, rules).is_none()
}

/// A value said only in a part of the conversation that is another's: a place for one end of
/// a ride said only for the other ([`route`]: "Fahr mich zum Hauptbahnhof, ich steh vor der
/// Goethestraße 12" gives no destination Goethestraße 12); a name said only as a renamed
/// thing's other name ([`renamed`]: "Benenn Angebot_final.pdf in Angebot_Mueller_v2.pdf um"
/// gives no `new_name` Angebot_final.pdf); a language said only for another facet
/// ([`facets`]: "el audio déjalo en castellano" gives no `subtitle_language` es). Read from the key's
/// words, and the description's words that name nothing else ([`route::of_description`]):
/// a description names other things too ("e.g. origin").
fn said_only_in_another_part(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    if leaf.value.as_str().is_none_or(is_day_or_time) {
        return false;
    }
    let key = words_of(leaf.key);
    let end = route::of_field(&key).or_else(|| route::of_description(&field_words(leaf)));
    let parts = match (end, renamed::of_field(&key), facets::of_field(&key)) {
        (Some(end), _, _) => route::split(evidence, end),
        (None, Some(name), _) => renamed::split(evidence, name),
        (None, None, Some(facet)) => facets::split(evidence, facet),
        (None, None, None) => None,
    };
    parts.is_some_and(|(other, rest)| {
        traced(leaf, &other, rules).is_some() && traced(leaf, &rest, rules).is_none()
    })
}

/// A name said only right after a negation, with nothing between but a preposition, an
/// article or a quote: "the one I share with Tom - not Groceries", "nicht in 'Steuer 2025'",
/// "pas Thomas". Never after a refusal's mark: "No, Tomás" answers and names.
fn named_only_to_be_refused(leaf: &Leaf, evidence: &Evidence) -> bool {
    // Not "no", Portuguese "in the" too ("no Shopping Eldorado").
    const NOT: &[&str] = &["not", "nicht", "pas", "nao", "non"];
    const BETWEEN: &[&str] = &[
        "in", "im", "to", "a", "à", "the", "le", "la", "les", "l", "el", "los", "las", "al", "au",
        "il", "lo", "i", "gli", "o", "der", "die", "das", "den", "'", "\"", "\u{2019}",
    ];
    // Where the negation opens its clause: after a mark, a "but", or nothing.
    const OPENS_AFTER: &[&str] = &[
        ",", "-", "\u{2013}", ".", ";", "but", "mais", "sondern", "pero", "ma", "mas", "aber",
    ];
    // Values a name is not: a member of the schema's, a code, a word or two letters (a
    // language's "de", "it").
    let Some(text) = leaf
        .value
        .as_str()
        .filter(|t| !is_day_or_time(t) && t.chars().count() > 3)
    else {
        return false;
    };
    if leaf.schema.get("enum").is_some() {
        return false;
    }
    let words: Vec<String> = super::tokens::tokenize(text)
        .into_iter()
        .filter(|t| t.kind != Kind::Punct)
        .map(|t| t.folded)
        .collect();
    let only_refused = |evidence: &Evidence| {
        let tokens = &evidence.tokens;
        let places = super::tokens::places_of(tokens, &words);
        let refused = |at: usize| {
            let mut k = at;
            while k > 0 && k + 3 > at && is(BETWEEN, &tokens[k - 1].lower) {
                k -= 1;
            }
            // "pas de", "pas à deux pas de": no refusal of what follows.
            let of = tokens.get(k).is_some_and(|t| t.folded == "de");
            k.checked_sub(1).is_some_and(|n| {
                tokens[n].kind == Kind::Word
                    && is(NOT, &tokens[n].folded)
                    && !of
                    && n.checked_sub(1)
                        .is_none_or(|b| is(OPENS_AFTER, &tokens[b].folded))
            })
        };
        !places.is_empty() && places.into_iter().all(refused)
    };
    // Where a correction took the first naming back, what stands: "à Thomas... ah non,
    // c'est Hugo, pas Thomas".
    let standing = evidence
        .taken_back
        .as_ref()
        .filter(|back| !back.cancels)
        .map(|back| &back.without);
    !words.is_empty() && (only_refused(evidence) || standing.is_some_and(only_refused))
}

/// Particles inside a name ("Gare de Lyon", "Ludwig van Beethoven").
const NAME_PARTICLES: &[&str] = &[
    "de", "da", "do", "dos", "das", "del", "della", "di", "la", "le", "von", "van", "der",
];

/// Whether a value is a name: one to four words, each capitalized but a particle ("Paulo",
/// "Gare de Lyon"); no title or message ("Pick up kids", "Team sync at 3").
fn name_like(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    (1..=4).contains(&words.len())
        && words
            .iter()
            .all(|w| w.chars().next().is_some_and(char::is_uppercase) || NAME_PARTICLES.contains(w))
        && words
            .first()
            .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
}

/// Prepositions a place or a person is named after: "pro Ricardo", "pour Montparnasse", "to
/// Anna", "an Frau Schulz".
const NAMING: &[&str] = &[
    "to", "for", "with", "pro", "pra", "para", "por", "pour", "a", "au", "chez", "an", "nach",
    "zu", "mit", "per", "con", "com", "al", "ao", "in", "en", "em",
];

/// A word written as a name, not a code: "Tom", "Ana" (a capital, then small letters), not
/// "US", "usd" or "EUR".
fn title_cased(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.all(char::is_lowercase)
}

/// Words a correction names a person or a place right after, besides a preposition: "I mean
/// Tim", "no wait, Tim", "quiero decir Ana".
const MEAN: &[&str] = &[
    ",", "mean", "meant", "decir", "dizer", "dire", "meine", "meinte",
];

/// Whether a correction names a person or a place: a word with a capital inside its sentence
/// right after a preposition, a mark or "I mean", no day, month or hour ("actually Tuesday",
/// "no, 4 PM").
fn named_after_a_preposition(correction: &Evidence) -> bool {
    let tokens = &correction.tokens;
    (1..tokens.len()).any(|i| {
        let t = &tokens[i];
        let before = tokens[i - 1].folded.as_str();
        t.kind == Kind::Word
            && (NAMING.contains(&before) || MEAN.contains(&before))
            && !super::dates::is_weekday(&t.folded)
            && !super::dates::is_month(&t.folded)
            && !matches!(t.folded.as_str(), "pm" | "am" | "i")
            && correction.text[t.start..]
                .chars()
                .next()
                .is_some_and(char::is_uppercase)
    })
}

/// Whether a correction names a place a time zone is named by: a code, or a name inside a
/// sentence ("Tokyo, no wait, Seoul", "Tokyo... anzi no, a Seul"); not "I", nor a German noun
/// ("nein warte, die vom Handy").
fn another_place(correction: &Evidence) -> bool {
    let tokens = &correction.tokens;
    let german = correction.languages.main == Some("de");
    !correction.facts.codes.is_empty()
        || (!german
            && (1..tokens.len()).any(|i| {
                let t = &tokens[i];
                t.kind == Kind::Word
                    && t.lower != "i"
                    && !matches!(tokens[i - 1].lower.as_str(), "." | "!" | "?")
                    && correction.text[t.start..]
                        .chars()
                        .next()
                        .is_some_and(char::is_uppercase)
            }))
}

/// Whether a message of its own that corrects says a number that would be this field's ("No,
/// just 2" for a quantity), not an hour, a day or a count of another thing ("No, 8pm please"
/// and "make it 2 nights" keep the party of 4).
fn counts(leaf: &Leaf, correction: &Evidence) -> bool {
    let facts = &correction.facts;
    facts.number_spans.iter().any(|n| {
        let value = serde_json::Number::from_f64(n.value).map(Value::Number);
        !n.ordinal
            && !matches!(
                facts.roles.get(&n.start),
                Some(super::facts::Role::Time | super::facts::Role::Date)
            )
            && value.is_some_and(|value| {
                let other = Leaf {
                    value: &value,
                    ..*leaf
                };
                traced(&other, correction, Rules::default()).is_some()
            })
    })
}

/// Whether the words of a correction say a value of `leaf`'s kind other than its own: a day,
/// a time, a code, a number, another member; what it `taken` back tells how a bare word
/// reads.
fn kind_said(leaf: &Leaf, back: &TakenBack) -> bool {
    let (correction, taken) = (&back.correction, &back.taken);
    let facts = &correction.facts;
    match leaf.value {
        Value::Number(_) if back.opening => counts(leaf, correction),
        // A quantity with no number of its own too: "2 litros... bueno no, litro y medio".
        Value::Number(_) => !facts.number_spans.is_empty() || !facts.quantities.is_empty(),
        Value::String(text) => {
            if let Some(members) = leaf.schema.get("enum").and_then(Value::as_array) {
                return members.iter().any(|member| {
                    member != leaf.value && {
                        let other = Leaf {
                            value: member,
                            ..*leaf
                        };
                        traced(&other, correction, Rules::default()).is_some()
                    }
                });
            }
            let text = text.trim();
            if date_of(text).is_some() {
                // A short Portuguese weekday's bare name too, where a Portuguese day was taken
                // back: "segunda... não, terça" (never "en primera… no, segunda").
                !facts.dates.is_empty()
                    || !facts.weekdays.is_empty()
                    || super::dates::day_after_article(&correction.tokens, facts)
                    || (super::dates::portuguese_day_named(&taken.tokens)
                        && correction
                            .tokens
                            .iter()
                            .any(|t| super::dates::is_short_portuguese_weekday(&t.folded)))
            } else if clock_of(text).is_some() {
                // "às oito... ou melhor, nove": a bare hour standing alone corrects a time
                // (never "actually for 4").
                let tokens = &correction.tokens;
                let mark = |i: usize| tokens.get(i).is_none_or(|t| t.kind == Kind::Punct);
                !facts.times.is_empty()
                    || facts.number_spans.iter().any(|n| {
                        n.value.fract() == 0.0
                            && (1.0..=24.0).contains(&n.value)
                            && n.start.checked_sub(1).is_some_and(mark)
                            && mark(n.end)
                    })
            } else if is_code(text) && !title_cased(text) {
                !facts.codes.is_empty()
            } else if time_zone_city(text).is_some() {
                another_place(correction)
            } else if name_like(text) {
                // A name or a place for another: "pro Paulo — não, pro Ricardo", "pour la gare
                // de Lyon... euh non, pour Montparnasse".
                named_after_a_preposition(correction)
            } else {
                // An identifier for another: "@pepe_grillo88... no espera, el nuevo es
                // @pepegrillo_mx"; digits for others ("4471093, no wait, 4471098").
                let digits: String = text.chars().filter(char::is_ascii_digit).collect();
                (identifier_like(text)
                    && correction.tokens.iter().any(|t| {
                        t.kind == super::tokens::Kind::Word
                            && identifier_like(&t.lower)
                            && !t.lower.eq_ignore_ascii_case(text)
                    }))
                    || (digits.len() >= 4
                        && correction
                            .digit_runs
                            .iter()
                            .any(|(run, _)| run.len() >= 4 && *run != digits))
            }
        }
        _ => false,
    }
}

fn traced(leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Option<Rule> {
    let Leaf { value, schema, key } = leaf;
    // A value only a tool result's row the user did not pick holds was not asked for.
    if evidence.rows.refuses(value) {
        return None;
    }
    let on = |rule: Rule, test: &dyn Fn() -> bool| (rules.on(rule) && test()).then_some(rule);
    if let Some(rule) = on(Rule::Schema, &|| {
        schema.get("default") == Some(value)
            || schema.get("const") == Some(value)
            || mapped(value, key, schema, evidence)
            || filled_template(value, schema, evidence)
    }) {
        return Some(rule);
    }
    match value {
        Value::Null => Some(Rule::Schema),
        Value::Array(_) | Value::Object(_) => Some(Rule::Schema),
        Value::Bool(flag) => on(Rule::Flag, &|| flags::said(key, schema, *flag, evidence)),
        Value::Number(number) => {
            let number = number.as_f64()?;
            if rules.on(Rule::Digits)
                && labels::number_of_another_thing(
                    number,
                    leaf.key,
                    &evidence.tokens,
                    &evidence.digit_runs,
                )
            {
                return None;
            }
            numeric(number, leaf, evidence, rules)
                // A priority on a scale of numbers, chosen by a word of urgency.
                .or_else(|| on(Rule::Choice, &|| choice::urgency(key, evidence)))
                // An end of the scale asked for by name ("à fond" for the maximum).
                .or_else(|| {
                    on(Rule::Choice, &|| {
                        super::extreme::scale_end_said(number, schema, evidence)
                    })
                })
        }
        Value::String(text) => string(text.trim(), leaf, evidence, rules),
    }
}

fn string(text: &str, leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Option<Rule> {
    let on = |rule: Rule, test: &dyn Fn() -> bool| (rules.on(rule) && test()).then_some(rule);
    if text.is_empty() {
        return Some(Rule::Schema);
    }
    if let Some(traced) = day_or_time(text, leaf, evidence, rules) {
        return traced;
    }
    if let Some(comparison) = Comparison::of(text) {
        return on(Rule::Choice, &|| comparison.said(evidence));
    }
    if turned_down(text, leaf, evidence, rules) {
        return None;
    }
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let letters_and_digits = text.chars().filter(|c| c.is_alphanumeric()).count();
    let all_digits = !digits.is_empty() && digits.len() == text.len();
    if let Some(rule) = written_or_spelled(text, &digits, leaf, evidence, rules) {
        return Some(rule);
    }
    // A phone or account number: its digits, whatever the separators and a country code.
    if digits.len() >= 7 && digits.len() * 10 >= letters_and_digits * 6 {
        return on(Rule::Digits, &|| evidence.has_digits(&digits));
    }
    if let Some(rule) = on(Rule::Code, &|| named_by_part(text, evidence)) {
        return Some(rule);
    }
    if let Some(members) = leaf.schema.get("enum").and_then(Value::as_array) {
        if let Some(rule) = on(Rule::Code, &|| code_said(text, evidence)) {
            return Some(rule);
        }
        // A boolean written as a member ("True", "False" beside "dontcare") is a flag.
        if let Some(flag) = boolean_member(text, members) {
            let key = leaf.key;
            if let Some(rule) = on(Rule::Flag, &|| {
                flags::said(key, leaf.schema, flag, evidence)
            }) {
                return Some(rule);
            }
        }
        return on(Rule::Choice, &|| {
            choice::said(text, members, leaf.key, leaf.schema, evidence)
        });
    }
    // A string of digits is an identifier (an order, an account) unless the schema takes a
    // number: written alone, or its digits a run of the text's ("5512-77" for "551277").
    let numeric_schema = matches!(
        leaf.schema.get("type").and_then(Value::as_str),
        Some("number" | "integer")
    ) || leaf.schema.get("type").is_none();
    if let (Ok(number), true) = (text.parse::<f64>(), numeric_schema || !all_digits) {
        if let Some(rule) = numeric(number, leaf, evidence, rules) {
            return Some(rule);
        }
    }
    if digits.len() >= 5 && digits.len() * 10 >= letters_and_digits * 6 {
        return on(Rule::Digits, &|| evidence.has_digits(&digits));
    }
    if text.parse::<f64>().is_ok() {
        return None;
    }
    if is_code(text) {
        return on(Rule::Code, &|| {
            code_said(text, evidence) || airport_said(text, leaf, evidence)
        });
    }
    on(Rule::Text, &|| {
        !text::names_the_field(text, leaf.key)
            && text::said(text, evidence)
            && !text::name_pieced(text, leaf.key, evidence)
    })
}

/// A value written as it is, or spelled out: "jen dot park at outlook dot com" (its rule
/// `verbatim`), digits said in words, group after group: "siete, cuatro, cuatro, nueve, uno,
/// dos" (`digits`).
fn written_or_spelled(
    text: &str,
    digits: &str,
    leaf: &Leaf,
    evidence: &Evidence,
    rules: Rules,
) -> Option<Rule> {
    let on = |rule: Rule, test: &dyn Fn() -> bool| (rules.on(rule) && test()).then_some(rule);
    let letters_and_digits = text.chars().filter(|c| c.is_alphanumeric()).count();
    let all_digits = !digits.is_empty() && digits.len() == text.len();
    let verbatim = || {
        written_as_is(text, all_digits, about_a_language(leaf), evidence)
            || (!all_digits && dictated::said(text, evidence))
    };
    if let Some(rule) = on(Rule::Verbatim, &verbatim) {
        return Some(rule);
    }
    if digits.len() >= 4 && digits.len() * 10 >= letters_and_digits * 6 {
        let spoken =
            || evidence.has_spoken_digits(digits) || (all_digits && dictated::said(text, evidence));
        return on(Rule::Digits, &spoken);
    }
    None
}

/// A value that is a date or a time of day, traced as one (`Some` of how); `None` for any
/// other value.
fn day_or_time(text: &str, leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Option<Option<Rule>> {
    let on = |rule: Rule, test: &dyn Fn() -> bool| (rules.on(rule) && test()).then_some(rule);
    if let Some(date) = date_of(text) {
        return Some(date_time(text, date, leaf, evidence, rules));
    }
    let readings = day_first_or_month_first(text, leaf.schema);
    if !readings.is_empty() {
        let traced = on(Rule::Date, &|| {
            readings.iter().any(|d| evidence.facts.dates.contains(d))
        })
        .or_else(|| on(Rule::Verbatim, &|| evidence.written(text)));
        return Some(traced);
    }
    let time = clock_of(text)?;
    Some(
        on(Rule::Time, &|| evidence.facts.times.contains(&time))
            .or_else(|| on(Rule::Verbatim, &|| evidence.written(text))),
    )
}

/// A date, a time or both (`date` its date part): each part must be said; a written one
/// counts as it is.
fn date_time(
    text: &str,
    date: Date,
    leaf: &Leaf,
    evidence: &Evidence,
    rules: Rules,
) -> Option<Rule> {
    let on = |rule: Rule, test: &dyn Fn() -> bool| (rules.on(rule) && test()).then_some(rule);
    let time = time_part(text);
    let facts = &evidence.facts;
    let about_end = || {
        words_of(leaf.key)
            .iter()
            .any(|w| END.contains(&w.as_str()) || END.contains(&stem(w).as_str()))
    };
    // A stay said by its first day and its nights gives its end: a field about the end takes
    // that day, not the first ("checking in on the 14th, three nights" is no `check_out` 14).
    // Nor the first day of a range: "del 26 al 29 de diciembre" is no `check_out` 26.
    let said_day = || {
        if about_end() && !facts.stay_ends.is_empty() {
            facts.stay_ends.contains(&date)
        } else if about_end() && facts.range_starts.contains(&date) {
            false
        } else {
            facts.dates.contains(&date)
        }
    };
    let date_said = on(Rule::Date, &said_day)
        .or_else(|| on(Rule::Verbatim, &|| evidence.written(&text[..10])))?;
    match time {
        None | Some((0, 0)) => Some(date_said),
        Some(time) => on(Rule::Time, &|| evidence.facts.times.contains(&time))
            .or_else(|| on(Rule::Verbatim, &|| evidence.written(text)))
            .map(|_| date_said),
    }
}

/// Whether `text` is written as it is: alone when `all_digits`, a short code in capitals
/// as one, anything else anywhere.
fn written_as_is(text: &str, all_digits: bool, language_field: bool, evidence: &Evidence) -> bool {
    if all_digits {
        evidence.written_alone(text)
    } else if is_code(text) && text.len() <= 3 && text.chars().all(|c| c.is_ascii_uppercase()) {
        // A code as a code: "ES" in capitals, not "es" of "es urgente".
        evidence.written_exact(&text.to_uppercase())
    } else if language_field && is_code(text) && evidence.only_as_function_word(text) {
        // A language code in lowercase that the text holds only as one of its own function
        // words: "de" of "de inglés a francés" names no German.
        false
    } else {
        evidence.written(text)
            // A web address said without its scheme: "www.correios.com.br/rastreamento".
            // Not without its "www.": that is another host.
            || ["https://", "http://"].iter().any(|scheme| {
                text.strip_prefix(scheme)
                    .is_some_and(|rest| rest.contains('.') && evidence.written(rest))
            })
    }
}

/// Whether a field is a language's (its name or description says so: `source_language`,
/// "ISO 639-1 code", "locale").
fn about_a_language(leaf: &Leaf) -> bool {
    field_words(leaf).iter().any(|w| {
        matches!(
            w.as_str(),
            "language" | "languages" | "lang" | "locale" | "639"
        )
    })
}

/// Whether the text names the value only to turn it down or as another thing's: a member
/// refused ("not the express one"), digits under another thing's label ("Kundennummer ist
/// 7734 0092" for an order number) or refused, an identifier refused.
fn turned_down(text: &str, leaf: &Leaf, evidence: &Evidence, rules: Rules) -> bool {
    if let Some(members) = leaf.schema.get("enum").and_then(Value::as_array) {
        if rules.on(Rule::Choice) && choice::refused(text, members, evidence) {
            return true;
        }
        // Said only as a part of another member: "e-mail" is `email`, no `mail`.
        let folded = text.to_lowercase();
        if members.iter().filter_map(Value::as_str).any(|other| {
            let other = other.to_lowercase();
            other != folded && other.contains(&folded) && evidence.only_inside(&folded, &other)
        }) {
            return true;
        }
    }
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let letters_and_digits = text.chars().filter(|c| c.is_alphanumeric()).count();
    let mostly_digits = digits.len() >= 4 && digits.len() * 10 >= letters_and_digits * 6;
    (mostly_digits
        && rules.on(Rule::Digits)
        && (labels::another_thing_s(&digits, leaf.key, &evidence.tokens, &evidence.digit_runs)
            || labels::turned_down(&digits, &evidence.tokens, &evidence.digit_runs)
            || labels::postcode_only(&digits, leaf.key, &evidence.tokens, &evidence.text)))
        || (rules.on(Rule::Verbatim) && identifier_turned_down(text, evidence))
        || (rules.on(Rule::Verbatim) && roles::only_in_another_role(text, leaf.key, evidence))
        || (rules.on(Rule::Code)
            && is_code(text)
            && (code_turned_down(text, evidence) || code_of_the_other_end(text, leaf, evidence)))
}

/// A code named only as the other end of a translation or conversion than the field's
/// ("from German into Dutch" for `target_language: de`; see [`conversions`]), by its name or
/// written as itself ("100 USD to EUR").
fn code_of_the_other_end(text: &str, leaf: &Leaf, evidence: &Evidence) -> bool {
    let Some(end) = conversions::end_of(&words_of(leaf.key), &field_words(leaf)) else {
        return false;
    };
    // A code written as itself is written in capitals ("USD"): "to" and "the" are words.
    let written = |t: &super::tokens::Token| {
        t.kind == Kind::Word
            && is_code(&t.lower)
            && evidence
                .text
                .get(t.start..t.end)
                .is_some_and(|w| w.chars().all(|c| c.is_ascii_uppercase()))
    };
    let all: Vec<(usize, bool)> = evidence
        .facts
        .code_names
        .iter()
        .map(|(at, codes)| (*at, codes.iter().any(|c| c.eq_ignore_ascii_case(text))))
        .chain(
            evidence
                .tokens
                .iter()
                .enumerate()
                .filter(|(_, t)| written(t))
                .map(|(at, t)| (at, t.lower.eq_ignore_ascii_case(text))),
        )
        .collect();
    let named: Vec<usize> = all
        .iter()
        .filter(|(_, it)| *it)
        .map(|(at, _)| *at)
        .collect();
    let every: Vec<usize> = all.iter().map(|(at, _)| *at).collect();
    conversions::only_the_other_end(end, &named, &every, &evidence.tokens)
}

/// Words that turn down a code named right after them, or after one preposition: "en catalán,
/// no en castellano", "not in euros", "pas en dollars", "nicht in Franken", "não em reais".
/// "no" only with a preposition between: Portuguese "no Brasil" is "in Brazil".
const CODE_REFUSALS: &[&str] = &["no", "not", "pas", "nicht", "nao", "non", "never", "nunca"];
const CODE_PREPOSITIONS: &[&str] = &[
    "en", "in", "a", "al", "au", "em", "auf", "to", "into", "the", "pro", "pra", "para", "nach",
    "per", "el", "la", "le", "o", "os",
];

/// A code named only right after a refusal, and never written as itself: "pon los subtítulos
/// en catalán, no en castellano" and "into French and not into Spanish" say no `es`; "je ne
/// parle pas japonais" negates the verb and still says `ja`.
fn code_turned_down(text: &str, evidence: &Evidence) -> bool {
    let tokens = &evidence.tokens;
    let named: Vec<usize> = evidence
        .facts
        .code_names
        .iter()
        .filter(|(_, codes)| codes.iter().any(|c| c.eq_ignore_ascii_case(text)))
        .map(|(at, _)| *at)
        .collect();
    // French "ne ... pas" negates the verb between: "je ne parle pas japonais".
    let of_the_value = |r: usize| {
        tokens[r].folded != "pas"
            || !tokens[r.saturating_sub(3)..r]
                .iter()
                .any(|t| matches!(t.folded.as_str(), "ne" | "n"))
    };
    let refused = |at: usize| {
        let word = |i: usize| tokens.get(i).filter(|t| t.kind == Kind::Word);
        let refusal = |i: usize| {
            word(i).is_some_and(|t| CODE_REFUSALS.contains(&t.folded.as_str())) && of_the_value(i)
        };
        at.checked_sub(1)
            .is_some_and(|i| refusal(i) && tokens[i].folded != "no")
            || (at
                .checked_sub(1)
                .and_then(word)
                .is_some_and(|t| CODE_PREPOSITIONS.contains(&t.folded.as_str()))
                && at.checked_sub(2).is_some_and(refusal))
    };
    let written = tokens.iter().any(|t| {
        t.kind == Kind::Word
            && t.lower.eq_ignore_ascii_case(text)
            && evidence.text.get(t.start..t.end).is_some_and(|w| w == text)
    });
    !named.is_empty() && named.iter().all(|at| refused(*at)) && !written
}

/// An identifier (one word with a digit or a mark: "mdupont84", "release-2.4") written only
/// right after a refusal: "m.dupont84, pas mdupont84", "nicht build-17" (the rules of
/// [`labels::turned_down`]: "no" needs a word between, a mark after the refusal corrects).
fn identifier_turned_down(text: &str, evidence: &Evidence) -> bool {
    // Letters with other marks ("build-17"), or digits joined by marks (a version, "2.4.0").
    let identifier = !text.contains(char::is_whitespace)
        && (text.chars().any(char::is_alphabetic) || text.contains(['.', '-', '_', '/']))
        && text.chars().any(|c| !c.is_alphabetic());
    if !identifier || text.len() < 3 {
        return false;
    }
    let haystack = &evidence.text;
    let bounded = |at: usize| {
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + text.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    };
    let tokens = &evidence.tokens;
    // The refusal starts its clause ("..., not release-2.4", "..., pas mdupont84"): after a
    // verb it negates the action, not the value ("ne supprime pas build-17", "je n'ai pas
    // build-17"). An apostrophe ends no clause.
    let clause_starts = |r: usize| {
        r == 0
            || matches!(
                tokens[r - 1].lower.as_str(),
                "," | ";" | "." | "!" | ":" | "(" | "–" | "—" | "-"
            )
            || ["but", "pero", "mais", "aber", "ma", "mas"].contains(&tokens[r - 1].folded.as_str())
    };
    // A question contrasts, it does not choose ("pass on main, not on fix-42?").
    let in_question = |at: usize| {
        haystack[at..]
            .find(['?', '.', '!', '\n'])
            .is_some_and(|end| haystack[at + end..].starts_with('?'))
    };
    let written: Vec<usize> = haystack
        .match_indices(text)
        .map(|(at, _)| at)
        .filter(|at| bounded(*at))
        .collect();
    !written.is_empty()
        && written.iter().all(|&at| {
            let Some(k) = tokens.iter().position(|t| t.start >= at) else {
                return false;
            };
            // Where the refusal stands: right before, or with one article or preposition
            // between (as `labels::turned_down` reads it).
            let refusal = if k >= 1 && labels::refuses(&tokens[k - 1]) {
                k - 1
            } else {
                k.saturating_sub(2)
            };
            !in_question(at)
                && labels::turned_down(text, tokens, &[(text.to_owned(), at)])
                && clause_starts(refusal)
        })
}

/// Named by a part: a time zone by its city, a media type by its subtype.
fn named_by_part(text: &str, evidence: &Evidence) -> bool {
    time_zone_city(text).is_some_and(|city| {
        // "Berliner Zeit", "Pariser Zeit": the city's German adjective.
        evidence.written(&city)
            || (!city.contains(' ')
                && evidence.has_word(&super::tokens::fold(&format!("{city}er"))))
            // "Wien", "Lisboa": its name in another language.
            || super::codes::city_names(&city.to_lowercase())
                .iter()
                .any(|name| evidence.written(name))
    }) || media_subtype(text).is_some_and(|subtype| evidence.has_word(subtype))
}

/// Words of a field about what a thing is at now.
const CURRENT: &[&str] = &["current", "now", "old", "previous", "from"];
/// Words of a field about how much to change a thing by.
const CHANGE_BY: &[&str] = &[
    "by",
    "loss",
    "lost",
    "gain",
    "gained",
    "delta",
    "step",
    "steps",
    "increment",
    "decrement",
    "change",
    "offset",
    "relative",
];

/// Words of a field about the end of a stay: `check_out`, `end_date`, `return_date`.
const END: &[&str] = &[
    "out",
    "checkout",
    "end",
    "until",
    "to",
    "departure",
    "depart",
    "leave",
    "return",
    "last",
];

/// Words for how many times a thing happens, which stem to a word of [`TIME_OF_DAY`]: they
/// fit a field only as written.
const REPEATS: &[&str] = &["times", "veces", "fois", "mal", "vezes", "volte"];

/// Words of a field that say it takes a time of day, or a day.
const TIME_OF_DAY: &[&str] = &[
    "time",
    "hour",
    "hours",
    "at",
    "clock",
    "start",
    "end",
    "begin",
    "until",
    "when",
    "minute",
    "minutes",
    "opening",
    "closing",
    "departure",
    "arrival",
    "slot",
    "schedule",
];
const DAY: &[&str] = &[
    "day",
    "date",
    "month",
    "year",
    "dom",
    "birthday",
    "when",
    "deadline",
    "due",
    "anniversary",
];
/// Words of a field that takes a rank ("the 3rd").
const RANK: &[&str] = &[
    "day", "position", "rank", "place", "index", "order", "nth", "floor", "century", "edition",
    "round", "level", "grade", "week", "month", "ordinal", "seat", "row",
];

/// Whether the words after a number's tokens (ending at `end`), two or more, are words of the
/// field's name: its unit as the field names it ("4 light years" for
/// `distance_in_light_years`, "3 story points" for `story_points`), whatever a recognizer
/// read them as.
fn unit_in_name(end: usize, name: &[String], evidence: &Evidence) -> bool {
    let named = evidence.tokens[end.min(evidence.tokens.len())..]
        .iter()
        .take_while(|t| t.kind == Kind::Word)
        .take(3)
        .take_while(|t| name.iter().any(|w| stem(w) == stem(&t.folded)))
        .count();
    named >= 2
}

/// Rules `number` and `quantity`: a number said as it is, where what it was said of fits
/// the field (the hour of "a las ocho" is no party size, "10 km" no `distance_m: 10`), or a
/// quantity in the unit the field asks for.
fn numeric(value: f64, leaf: &Leaf, evidence: &Evidence, rules: Rules) -> Option<Rule> {
    let name = words_of(leaf.key);
    let description = words_of(
        leaf.schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default(),
    );
    let field = quantity::Field {
        name: &name,
        description: &description,
    };
    // A field's word fits as written or by its stem, save a word of how often: "times"
    // stems to "time", and no count of repeats is a time of day.
    let about = |words: &[&str]| {
        name.iter().chain(&description).any(|w| {
            words.contains(&w.as_str())
                || (!REPEATS.contains(&w.as_str()) && words.contains(&stem(w).as_str()))
        })
    };
    let facts = &evidence.facts;
    let other_things = of_other_things(&name, &description, evidence);
    let said = facts
        .number_spans
        .iter()
        .any(|span| close(span.value, value) && unit_in_name(span.end, &name, evidence))
        || facts.number_spans.iter().any(|span| {
            close(span.value, value)
                && !other_things.contains(&span.start)
                && label_fits(span.start, span.end, &name, &description, evidence)
                && match facts.roles.get(&span.start) {
                    None if span.ordinal => about(RANK),
                    // "scade il 30" is a day.
                    None if super::dates::due_day_at(
                        &evidence.tokens,
                        span.start,
                        facts,
                        evidence.languages.main == Some("de"),
                    ) =>
                    {
                        about(DAY)
                    }
                    None => !quantity::measured_elsewhere(&field, (span.start, span.end), evidence),
                    Some(Role::Unit(index)) => quantity::fits_as_written(*index, &field, facts),
                    Some(Role::Time) => about(TIME_OF_DAY),
                    Some(Role::Date) => about(DAY),
                    Some(Role::Current) => about(CURRENT),
                    Some(Role::Change) => about(CHANGE_BY),
                    // The weather's degrees: the quantity rule reads them, in their scale.
                    Some(Role::Outdoor) => false,
                }
        });
    let party = counted::counts_everyone(&name, &description)
        .then(|| party_said(value, evidence))
        .flatten();
    // One of a party's counts alone is no party ("deux adultes et trois enfants" is no 3).
    let said = said && party != Some(false);
    // "siamo in 8 ma 2 sono bambini": the whole party, children among it, is no count of
    // adults.
    let said = said
        && !(counted::counts_adults(&name, &description) && party_with_children(value, evidence));
    // "2 adults and a child": one, counted by its article, for a field that counts children.
    let one = close(value, 1.0) && {
        let words = evidence.folded_words();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        counted::one_said(&words, &name, &description)
    };
    if rules.on(Rule::Number)
        && (said || one || party == Some(true) || per_year(value, &about, evidence))
    {
        return Some(Rule::Number);
    }
    (rules.on(Rule::Quantity) && quantity::traces(value, &field, facts)).then_some(Rule::Quantity)
}

/// Where a number is said of the very thing the field counts ("3 Kisten" for "Anzahl
/// Kisten"), the starts of the numbers said of another thing ("je 12 Flaschen"): they are
/// not the field's.
fn of_other_things(name: &[String], description: &[String], evidence: &Evidence) -> Vec<usize> {
    let spans = &evidence.facts.number_spans;
    // By its words, or by its class: "1 child" counts what `children` counts.
    let names_field = |noun: &str| {
        if counted::names(noun, name, description) {
            return true;
        }
        let noun = stem(noun);
        name.iter()
            .chain(description)
            .filter(|w| w.chars().count() >= 3 && !is(STOPWORDS, w))
            .any(|w| {
                cognate(&stem(w), &noun)
                    || lexicon::translations(w)
                        .iter()
                        .any(|t| cognate(&stem(t), &noun))
            })
    };
    let nouns: Vec<Option<&str>> = spans
        .iter()
        .map(|span| counted_noun(span.end, evidence))
        .collect();
    if !nouns.iter().flatten().any(|noun| names_field(noun)) {
        return Vec::new();
    }
    // A number with a unit measures ("its three sides are 5 units, 4 units and 3 units" for
    // the length of a side): no other thing.
    let measure = |noun: &str| quantity::is_unit(noun) || is(ANY_UNIT, noun);
    spans
        .iter()
        .zip(&nouns)
        .filter(|(_, noun)| noun.is_some_and(|noun| !names_field(noun) && !measure(noun)))
        .map(|(span, _)| span.start)
        .collect()
}

/// A party of people for a field that counts everyone: `Some(true)` where `value` is the
/// party ("for me and my two kids" is 3, "for me, my wife and our two kids" 4, "deux adultes
/// et trois enfants" 5), `Some(false)` where it is only one class's count of a party of
/// several ("deux adultes et trois enfants" is no 3), `None` where the conversation says
/// no such party.
fn party_said(value: f64, evidence: &Evidence) -> Option<bool> {
    let spans = &evidence.facts.number_spans;
    let joined = spans.iter().any(|span| {
        let joined = counted::joined_people(&list_before(evidence, span.start, 8))
            + counted::joined_after(&clause_after(evidence, span.end, 6));
        joined > 0 && close(span.value + joined as f64, value)
    });
    // "nos trois enfants", and the speakers counted: "nous deux", "the two of us", "wir zwei".
    let people_counts: Vec<f64> = spans
        .iter()
        .filter(|span| {
            evidence
                .tokens
                .get(span.end)
                .is_some_and(|t| counted::names_people(&t.folded))
                || we_counted(evidence, span.start, span.end)
        })
        .map(|span| span.value)
        .collect();
    let added_up = people_counts.len() >= 2 && close(people_counts.iter().sum(), value);
    if joined || added_up {
        return Some(true);
    }
    let one_class = people_counts.len() >= 2 && people_counts.iter().any(|c| close(*c, value));
    one_class.then_some(false)
}

/// Whether `value` is said only as a whole party ("siamo in 8", "wir sind 4 Leute") that
/// another number says has children among it ("ma 2 sono bambini", "davon 2 Kinder").
fn party_with_children(value: f64, evidence: &Evidence) -> bool {
    let spans = &evidence.facts.number_spans;
    let next_word = |end: usize| evidence.tokens.get(end).map_or("", |t| t.folded.as_str());
    let wholes: Vec<_> = spans.iter().filter(|s| close(s.value, value)).collect();
    let whole = !wholes.is_empty()
        && wholes.iter().all(|s| {
            !counted::names_adults(next_word(s.end))
                && (counted::head_count(&list_before(evidence, s.start, 4))
                    || counted::names_people(next_word(s.end)))
        });
    // Children among the party, not beside it ("4 Personen und 2 Kinder"): a word that
    // includes stands between.
    const AMONG: &[&str] = &[
        "davon",
        "ma",
        "mais",
        "pero",
        "aber",
        "cui",
        "cuales",
        "dont",
        "whom",
        "including",
        "incl",
        "among",
        "entre",
        "mas",
    ];
    let children = spans.iter().any(|s| {
        s.value < value
            && clause_after(evidence, s.end, 3)
                .iter()
                .any(|w| counted::names_children(w))
            && wholes.iter().any(|w| {
                w.end <= s.start
                    && evidence.tokens[w.end..s.start]
                        .iter()
                        .any(|t| is(AMONG, &t.folded))
            })
    });
    whole && children
}

/// Words for "we" right before a number that counts the speakers ("nous deux", "nosotros
/// dos", "wir zwei", "noi due"), folded; not "nos", Portuguese "in the" and French "our".
const WE: &[&str] = &["we", "nous", "nosotros", "nosotras", "wir", "noi"];

/// Whether the number over tokens `start..end` counts the speakers: after "we" or before
/// "of us" ("the two of us", "los dos de nosotros", "noi due").
fn we_counted(evidence: &Evidence, start: usize, end: usize) -> bool {
    let before = start
        .checked_sub(1)
        .and_then(|i| evidence.tokens.get(i))
        .is_some_and(|t| is(WE, &t.folded));
    before
        || matches!(
            clause_after(evidence, end, 2).as_slice(),
            ["of", "us"] | ["de", "nosotros" | "nosotras" | "nos"] | ["di", "noi"]
        )
}

/// A template the field's own description gives, its placeholders filled with what the
/// conversation says: "e.g., 'https://{ip}/api/v1/interfaces'" and "IP: 192.120.45.67" is
/// `https://192.120.45.67/api/v1/interfaces`. Every placeholder's text must be written in
/// the conversation; the rest must be the template's, letter for letter.
fn filled_template(value: &Value, schema: &Value, evidence: &Evidence) -> bool {
    let (Some(value), Some(description)) = (
        value.as_str(),
        schema.get("description").and_then(Value::as_str),
    ) else {
        return false;
    };
    if value.len() > 512 || !description.contains(['{', '<']) {
        return false;
    }
    description
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`'))
        .map(|t| t.trim_end_matches([',', ';', ')', '.']))
        .map(angle_placeholders)
        .filter(|t| t.contains('{') && t.contains('}'))
        .any(|template| fills(&template, value, evidence))
}

/// A template's `<name>` placeholders written as `{name}` ("https://<ip>/api"): a name of
/// letters, digits and underscores between the angle brackets.
fn angle_placeholders(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let name_end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        out.push_str(&rest[..open]);
        if name_end > 0 && after[name_end..].starts_with('>') {
            out.push('{');
            out.push_str(&after[..name_end]);
            out.push('}');
            rest = &after[name_end + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Whether `value` is `template` with each `{name}` replaced by text the conversation holds.
fn fills(template: &str, value: &str, evidence: &Evidence) -> bool {
    // Literal pieces between placeholders: "https://", "/api/v1".
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return false;
        };
        literals.push(&rest[..open]);
        rest = &rest[open + close + 1..];
    }
    literals.push(rest);
    if literals.len() < 2 {
        return false;
    }
    let Some(mut tail) = value.strip_prefix(literals[0]) else {
        return false;
    };
    for (k, literal) in literals[1..].iter().enumerate() {
        let last = k + 2 == literals.len();
        let at = if last {
            tail.len()
                .checked_sub(literal.len())
                .filter(|&at| tail[at..] == **literal)
        } else if literal.is_empty() {
            return false;
        } else {
            tail.find(literal)
        };
        let Some(at) = at.filter(|&at| tail.is_char_boundary(at)) else {
            return false;
        };
        let filled = &tail[..at];
        if filled.is_empty() || !evidence.written(filled) {
            return false;
        }
        tail = &tail[at + literal.len()..];
    }
    tail.is_empty()
}

/// A value the field's own description gives for something the conversation says: "3 for
/// Chonburi" in the description and "Chonburi Province" in the request is `province_id: 3`.
/// The value stands in the description as a word of its own, and a content word right after
/// it ("3 for Chonburi", "3: Chonburi", "3 (Chonburi)") or before it ("Chonburi = 3") is
/// said.
fn mapped(value: &Value, key: &str, schema: &Value, evidence: &Evidence) -> bool {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) if !s.trim().is_empty() && s.len() <= 40 => s.trim().to_owned(),
        _ => return false,
    };
    let Some(description) = schema.get("description").and_then(Value::as_str) else {
        return false;
    };
    let tokens = super::tokens::tokenize(description);
    let wanted = super::tokens::fold(&text);
    let content = |t: &super::tokens::Token| {
        t.kind == Kind::Word
            && t.folded.chars().count() > 2
            && !is(STOPWORDS, &t.folded)
            && !language::function_word(&t.folded)
    };
    let at: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.folded == wanted)
        .map(|(i, _)| i)
        .collect();
    // Words that name the field itself, not one of its values: the key's, and those the
    // description says before its first number or mapped value ("the type of service
    // offered. For instance, 1 for cleaning service"). Said, they do not pick a value.
    let first = at.first().copied().unwrap_or(0).min(
        tokens
            .iter()
            .position(|t| t.kind == Kind::Number)
            .unwrap_or(tokens.len()),
    );
    // In "Chonburi = 3" the first value's label comes before it.
    let lead = match first.checked_sub(1).map(|j| tokens[j].lower.as_str()) {
        Some("=") => first.saturating_sub(2),
        _ => first,
    };
    // A lead word the values' labels use again is a value's ("Seat class: economy, business
    // or first. 1 = economy, 2 = business").
    let mut generic = words_of(key);
    generic.extend(
        tokens[..lead]
            .iter()
            .filter(|t| content(t) && !tokens[lead..].iter().any(|u| u.folded == t.folded))
            .map(|t| t.folded.clone()),
    );
    let naming = |t: &&super::tokens::Token| content(t) && !generic.contains(&t.folded);
    at.into_iter().any(|i| {
        // The words naming it: after it up to the next mark, or the word just before it.
        let after = tokens[i + 1..]
            .iter()
            .take_while(|t| !matches!(t.lower.as_str(), "," | ";" | "." | ")"))
            .take(4)
            .filter(naming);
        let before = i
            .checked_sub(2)
            .and_then(|j| tokens.get(j))
            .filter(|_| tokens.get(i - 1).is_some_and(|t| t.lower == "="))
            .filter(naming);
        // "de la moins chère (basic) à la plus chère (premium)": the two words before the
        // parenthesis, said in a row ("la moins chère"), and one of them a content word.
        let named_before = i >= 2 && tokens[i - 1].lower == "(" && {
            let words: Vec<&super::tokens::Token> = tokens[..i - 1]
                .iter()
                .rev()
                .take_while(|t| t.kind == Kind::Word)
                .take(2)
                .collect();
            let phrase: Vec<&str> = words.iter().rev().map(|t| t.lower.as_str()).collect();
            words.iter().any(|t| content(t)) && evidence.written(&phrase.join(" "))
        };
        named_before || after.chain(before).any(|t| evidence.has_word(&t.folded))
    })
}

/// Words before a number that say how many, not what it names: "top 3", "at least 10",
/// "up to 5", "over 100".
const COUNTING: &[&str] = &[
    "top",
    "least",
    "most",
    "over",
    "under",
    "about",
    "around",
    "than",
    "only",
    "first",
    "last",
    "next",
    "nearly",
    "almost",
    "approximately",
    "approx",
    "up",
    "just",
    "exactly",
    "max",
    "maximum",
    "min",
    "minimum",
    "total",
    "another",
    "extra",
    "additional",
    "all",
    "x",
    // "pa seis" (Mexican "para"). Words that correct a number said before ("per sei, anzi
    // sette") are taken_back's (see `counting`).
    "pa",
    // Verbs that take how many: "il m'en faut quatre-vingt-dix", "I need 3", "compra 2".
    "need",
    "want",
    // "make it 30" is the pronoun's; "mach 30", "fais 30" have none.
    "mach",
    "mache",
    "fais",
    "buy",
    "get",
    "order",
    "add",
    "take",
    "faut",
    "veux",
    "voudrais",
    "prends",
    "achete",
    "brauche",
    "brauchen",
    "will",
    "mochte",
    "kaufe",
    "nimm",
    "necesito",
    "quiero",
    "compra",
    "pide",
    "preciso",
    "quero",
    "pede",
    "servono",
    "serve",
    "voglio",
    "prendi",
    // With the thing counted as a pronoun: "fanne quattro", "prendine due", "mets-en 3".
    "fanne",
    "facciamo",
    "prendine",
    "mettine",
    "dammene",
    "mets",
    "ponme",
    "ponle",
];

/// Words right before a number that make it someone's age: "I am 34", "ich bin 34", "cumple
/// 60", "turns 40", "compie 50" (folded, one or two words).
#[rustfmt::skip]
const AGE_CUES: &[&[&str]] = &[
    &["i", "am"], &["i", "m"], &["ich", "bin"], &["cumple"], &["cumplo"], &["cumplen"],
    &["turns"], &["turning"], &["compie"], &["compio"], &["fete", "ses"], &["sie", "wird"],
    &["er", "wird"], &["ich", "werde"], &["ela", "faz"], &["ele", "faz"], &["ela", "fara"],
    &["ele", "fara"], &["elle", "va", "avoir"], &["il", "va", "avoir"],
];

/// Words after an age: its unit, or nothing ("I'm 34 and ...", "ich bin 34, ...").
const AGE_AFTER: &[&str] = &[
    "years", "year", "yo", "anos", "ans", "jahre", "jahren", "anni", "and", "und", "y", "e", "et",
];

/// Verbs of having an age in Spanish, French, Portuguese and Italian (folded).
const HAVING: &[&str] = &[
    "tiene", "tienen", "tengo", "tienes", "ont", "ai", "as", "avons", "avez", "tem", "tenho",
    "temos", "ha", "hanno", "ho", "hai", "abbiamo",
];
/// Words of years after an age.
const YEARS: &[&str] = &["anos", "ans", "anni", "years", "jahre"];
/// Words joining two ages.
const AND: &[&str] = &["and", "y", "et", "e", "und"];

/// Whether the number that ends before token `end`, after the words `before` it, is an age:
/// after a cue ([`AGE_CUES`]) and before nothing but its unit, a mark or a joining word ("I
/// am 2 minutes away" is no age).
fn said_as_age(before: &[&str], end: usize, evidence: &Evidence) -> bool {
    let after = clause_after(evidence, end, 4);
    // "ils ont 7 et 9 ans", "tiene 8 años", "ha 12 anni": a verb of having before, and the
    // years right after it or after a second age.
    let having = before.last().is_some_and(|w| HAVING.contains(w));
    let years_next = after.first().is_some_and(|w| YEARS.contains(w));
    let second_age = matches!(after.as_slice(), [and, years, ..] if AND.contains(and) && YEARS.contains(years))
        && evidence
            .tokens
            .get(end + 1)
            .is_some_and(|t| t.kind == Kind::Number);
    let had = having && (years_next || second_age);
    had || AGE_CUES.iter().any(|cue| before.ends_with(cue))
        && evidence
            .tokens
            .get(end)
            .is_none_or(|t| t.kind == Kind::Punct || AGE_AFTER.contains(&t.folded.as_str()))
}

/// Occasions counted in years (folded): a number right before one is its years.
#[rustfmt::skip]
const OCCASIONS: &[&str] = &[
    "birthday", "anniversary", "bday", "cumpleanos", "aniversario", "anniversaire", "geburtstag",
    "jubilaum", "hochzeitstag", "compleanno", "anniversario",
];

/// Words that own or point at an occasion before its years ("my 40th", "meinen 40.", "el 50
/// aniversario", "zum 60."), folded.
#[rustfmt::skip]
const OWNING: &[&str] = &[
    "my", "his", "her", "our", "their", "the", "mi", "su", "sus", "nuestro", "el", "mon", "ma",
    "son", "sa", "notre", "leur", "le", "mein", "meinen", "meinem", "meine", "sein", "seinen",
    "ihr", "ihren", "unseren", "unser", "den", "dem", "zum", "meu", "minha", "seu", "sua",
    "nosso", "o", "mio", "mia", "suo", "nostro", "il",
];

/// Whether the number over tokens `start..end` is the years of an occasion: a rank ("my 40th
/// birthday"; "40." where German is written, as "a table for 12. Birthday dinner" ends a
/// sentence; "40º", "40°") or owned ("su 50 aniversario"), right before the occasion's word,
/// and that word names no other thing after it ("30 birthday invitations" are invitations).
fn occasion_after(evidence: &Evidence, start: usize, end: usize) -> bool {
    let tokens = &evidence.tokens;
    let german = evidence.languages.main == Some("de");
    let mut at = end;
    let marked = tokens.get(at).is_some_and(|t| {
        !t.spaced && (matches!(t.lower.as_str(), "º" | "°" | "ª") || (german && t.lower == "."))
    });
    if marked {
        at += 1;
    }
    let rank = |t: &super::tokens::Token| {
        ["st", "nd", "rd", "th", "e", "eme", "o", "a"]
            .iter()
            .any(|s| {
                t.lower
                    .strip_suffix(s)
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
    };
    let ranked = marked || tokens.get(start).is_some_and(rank);
    let owned = start
        .checked_sub(1)
        .and_then(|i| tokens.get(i))
        .is_some_and(|t| is(OWNING, &t.folded));
    let occasion = tokens
        .get(at)
        .is_some_and(|t| t.kind == Kind::Word && is(OCCASIONS, &t.folded));
    // What follows the occasion's word: nothing, a mark or a function word ("am Freitag",
    // "de mis padres"), never a noun it qualifies.
    let alone = tokens.get(at + 1).is_none_or(|t| {
        t.kind != Kind::Word || is(STOPWORDS, &t.folded) || language::function_word(&t.folded)
    });
    (ranked || owned) && occasion && alone
}

/// The folded words of up to `n` tokens from token `from`, to the clause's first mark.
fn clause_after(evidence: &Evidence, from: usize, n: usize) -> Vec<&str> {
    evidence
        .tokens
        .iter()
        .skip(from)
        .take(n)
        .take_while(|t| !matches!(t.lower.as_str(), "." | "," | ";" | "!" | "?" | ":"))
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.folded.as_str())
        .collect()
}

/// The folded words among the `n` tokens before token `start`.
fn words_before(evidence: &Evidence, start: usize, n: usize) -> Vec<&str> {
    read_before(evidence, start, n, false)
}

/// [`words_before`] with its commas, which join people in a list ("mi novia, mis dos
/// hermanos y yo").
fn list_before(evidence: &Evidence, start: usize, n: usize) -> Vec<&str> {
    read_before(evidence, start, n, true)
}

fn read_before(evidence: &Evidence, start: usize, n: usize, commas: bool) -> Vec<&str> {
    evidence.tokens[start.saturating_sub(n)..start]
        .iter()
        .filter_map(|t| match (t.kind, t.lower.as_str()) {
            (Kind::Word, _) => Some(t.folded.as_str()),
            // Signs read as their words: "me + 3 coworkers", "Anna & 2 friends".
            (_, "+") => Some("plus"),
            (_, "&") => Some("and"),
            (_, ",") if commas => Some(","),
            _ => None,
        })
        .collect()
}

/// Whether a word before a number cannot be its label: a short or function word, a word
/// that counts, or one that links or orders what is said ("quindi sette in tutto", "poi 7",
/// "now 4").
/// Verbs that say what a thing reads ("la ricetta dice 180", "the label says 40"), folded.
#[rustfmt::skip]
const SAYS: &[&str] = &[
    "says", "said", "reads", "shows", "dice", "diceva", "indica", "segna", "dit", "indique",
    "affiche", "sagt", "zeigt", "steht", "diz", "dizia", "mostra", "pone", "marca",
];

fn names_no_number(word: &str) -> bool {
    word.chars().count() < 2
        || is(STOPWORDS, word)
        || language::function_word(word)
        || counting(word)
        || is(SEQUENCE, word)
        || is(ASIDES, word)
        || is(CONNECTIVES, word)
}

/// Verbs that move money, right before the sum they move ("transfer 500", "paga 40"),
/// folded.
#[rustfmt::skip]
const MONEY_VERBS: &[&str] = &[
    "pay", "transfer", "send", "spend", "withdraw", "deposit", "lend", "donate", "tip", "wire",
    "give", "gib", "dale", "donne",
    "paga", "pagar", "pague", "transfiere", "transferir", "transfira", "envia", "enviar",
    "deposita", "retira", "presta", "dona", "payer", "paie", "payez", "vire", "virer", "virez",
    "envoie", "depose", "retire", "zahl", "zahle", "zahlen", "uberweise", "uberweisen", "uberweis",
    "schick", "schicke", "uberweist", "pagare", "bonifica", "trasferisci", "manda", "versa",
    "preleva",
];

/// Words of a field about a sum of money.
#[rustfmt::skip]
const MONEY_FIELDS: &[&str] = &[
    "amount", "sum", "total", "price", "cost", "payment", "value", "tip", "donation", "deposit",
    "importe", "monto", "cantidad", "montant", "somme", "betrag", "summe", "valor", "quantia",
    "importo", "somma", "gbp", "usd", "eur", "chf",
];

fn about_money(name: &[String], description: &[String]) -> bool {
    name.iter().chain(description).any(|w| is(MONEY_FIELDS, w))
}

/// Words that draw a conclusion or say when, in the six languages (folded): no label of the
/// number after them.
#[rustfmt::skip]
const CONNECTIVES: &[&str] = &[
    "so", "thus", "therefore", "donc", "alors", "also", "allora", "dunque", "ora", "adesso",
    "ahora", "agora", "maintenant", "jetzt", "pues", "portanto", "asi",
];

/// Words of a field about someone's age.
const AGE_WORDS: &[&str] = &["age", "edad", "alter", "idade", "eta", "years", "old"];

/// A number that counts the speakers ("on est 10", "the 5 of us"), someone's age ("ich bin
/// 34") or an occasion's years ("my 40th birthday"): whether it fits the field; `None` for
/// any other number.
fn people_or_years(
    start: usize,
    end: usize,
    name: &[String],
    description: &[String],
    evidence: &Evidence,
) -> Option<bool> {
    // A head count ("on est 10 pour le match") counts people: no pizzas, no amount of money.
    let before = words_before(evidence, start, 3);
    // "the 5 of us", "los 4 de nosotros", "noi 3"... "di noi": a head count too.
    let of_us = matches!(
        clause_after(evidence, end, 2).as_slice(),
        ["of", "us"] | ["de", "nosotros" | "nosotras" | "nos"] | ["di", "noi"]
    );
    // Not one with a unit after it: "ci siamo in 10 minuti" is a time.
    let unit_after = clause_after(evidence, end, 1)
        .first()
        .is_some_and(|w| super::quantity::is_unit(w));
    if (counted::head_count(&before) && !unit_after) || of_us {
        return Some(counted::counts_people(name, description));
    }
    // "ich bin 34", "cumple 60": an age, for a field about one.
    if said_as_age(&before, end, evidence) {
        return Some(
            AGE_WORDS
                .iter()
                .any(|w| name.iter().chain(description).any(|n| n == w)),
        );
    }
    // "mein 40. Geburtstag", "my 40th birthday": the years of an occasion, for a field about
    // an age or the occasion only.
    if occasion_after(evidence, start, end) {
        const YEARS_OF: &[&str] = &["birthday", "anniversary"];
        let about = |w: &&str| name.iter().chain(description).any(|n| n == w);
        return Some(AGE_WORDS.iter().chain(YEARS_OF).any(about));
    }
    None
}

/// A number written after a word that names it, and before no word it counts ("room 12",
/// "task 12 as done", "HP 305 du bureau"), is that thing's number: it traces a field about
/// that thing (`room`, `task_id`, `model`), not any field ("room 12" says no 12 attendees).
/// "buy 3 apples" counts apples: any field but one that counts another kind of thing
/// ([`counted`]: "2 chats" is no `bedrooms: 2`).
fn label_fits(
    start: usize,
    end: usize,
    name: &[String],
    description: &[String],
    evidence: &Evidence,
) -> bool {
    if let Some(fits) = people_or_years(start, end, name, description, evidence) {
        return fits;
    }
    // "for me and my two kids", "mis dos hijos y yo": two of the people, not their number.
    let joined = counted::joined_people(&list_before(evidence, start, 8)) > 0
        || counted::joined_after(&clause_after(evidence, end, 6)) > 0;
    if joined && counted::counts_everyone(name, description) {
        return false;
    }
    if address_number(evidence, start, end) {
        return about_an_address(name, description);
    }
    if let Some(fits) = identifier_part(start, name, description, evidence) {
        return fits;
    }
    if let Some(fits) = noun_fits(start, end, name, description, evidence) {
        return fits;
    }
    // A number mark between: "le court n°12", "table #4", "Zimmer Nr. 12" (a full stop only
    // as an abbreviation's: "Paris. 4 people" has no mark).
    let tokens = &evidence.tokens;
    let mark = NUMBER_MARKS.iter().find(|mark| {
        start >= mark.len()
            && tokens[start - mark.len()..start]
                .iter()
                .zip(mark.iter())
                .all(|(t, m)| t.lower == *m)
    });
    let marked = mark.is_some();
    let before = start - mark.map_or(0, |m| m.len());
    let label = before
        .checked_sub(1)
        .and_then(|i| tokens.get(i))
        .filter(|t| t.kind == Kind::Word);
    let Some(label) = label else {
        // A number marked as one and named by nothing: an identifier, no count.
        return !marked
            || ["number", "id", "no", "num", "numero", "nummer"]
                .iter()
                .any(|w| name.iter().chain(description).any(|n| n == w));
    };
    let word = &recipient_verb(before, end, evidence)
        .unwrap_or(label)
        .folded;
    // "transfer 500 to savings": a sum, where no noun after it says what it counts ("send
    // 3 photos").
    let bare = tokens
        .get(end)
        .is_none_or(|t| t.kind != Kind::Word || language::function_word(&t.folded));
    if names_no_number(word) || (bare && is(MONEY_VERBS, word) && about_money(name, description)) {
        return true;
    }
    // What a thing says is said ("la ricetta dice 180"), where no other number follows it in
    // its sentence: "das Thermometer zeigt 25, stell die Heizung auf 21" sets 21.
    if is(SAYS, word) && !number_after(tokens, end) {
        return true;
    }
    let label = stem(word);
    name.iter().chain(description).any(|w| {
        cognate(&stem(w), &label)
            || lexicon::translations(w)
                .iter()
                .any(|t| cognate(&stem(t), &label))
    })
}

/// Whether a number follows token `end` in its sentence.
fn number_after(tokens: &[Token], end: usize) -> bool {
    tokens[end..]
        .iter()
        .take_while(|t| !matches!(t.lower.as_str(), "." | "!" | "?" | ";"))
        .any(|t| t.kind == Kind::Number)
}

/// "Send Tom 30", "Überweis Tom 30": the verb that moves money before the name right before
/// the number (the label at `before - 1`): the name is whom the sum goes to, no label of it.
/// Not a thing named in capitals with the sum after it: "Pay Invoice 4521 for 300 euros".
fn recipient_verb(before: usize, end: usize, evidence: &Evidence) -> Option<&Token> {
    let tokens = &evidence.tokens;
    let label = tokens.get(before.checked_sub(1)?)?;
    let capital = evidence.text[label.start..]
        .chars()
        .next()
        .is_some_and(char::is_uppercase);
    tokens
        .get(before.checked_sub(2)?)
        .filter(|verb| capital && !number_after(tokens, end) && is(MONEY_VERBS, &verb.folded))
}

/// A word before a number that says how many, or corrects a number said before it ("per
/// sei, anzi sette"): no label of what the number names.
fn counting(word: &str) -> bool {
    COUNTING.contains(&word)
        || super::taken_back::CORRECTING.contains(&word)
        || super::taken_back::AFTER_A_MARK.contains(&word)
}

/// Words of a field that takes an identifier's number (`release-4`, `build_12`).
const IDENTIFYING: &[&str] = &[
    "id",
    "version",
    "number",
    "no",
    "num",
    "ref",
    "reference",
    "code",
    "tag",
    "build",
    "release",
    "branch",
    "name",
    "revision",
    "model",
];

/// A number joined to the word before it by "-" or "_" with no space ("release-4",
/// "build_12") is part of a name: it fits a field that takes one, or that names that word
/// ("room-4" for `room_number`); `None` where the number is not so joined, or the word is
/// one that counts ("top-3") or a month's or weekday's ("Nov-25").
fn identifier_part(
    start: usize,
    name: &[String],
    description: &[String],
    evidence: &Evidence,
) -> Option<bool> {
    let tokens = &evidence.tokens;
    let mark = tokens.get(start.checked_sub(1)?)?;
    let word = tokens.get(start.checked_sub(2)?)?;
    let joined = !tokens.get(start)?.spaced
        && !mark.spaced
        && ["-", "_"].contains(&mark.lower.as_str())
        && word.kind == Kind::Word;
    if !joined
        || super::dates::is_month(&word.folded)
        || super::dates::is_weekday(&word.folded)
        || is(STOPWORDS, &word.folded)
        || language::function_word(&word.folded)
        || counting(&word.folded)
    {
        return None;
    }
    let stem_of_word = stem(&word.folded);
    Some(
        name.iter()
            .chain(description)
            .any(|w| IDENTIFYING.contains(&w.as_str()) || cognate(&stem(w), &stem_of_word)),
    )
}

/// Where the word after a number that ends at token `end` stands: right after it, or after a
/// hyphen that joins them ("2-bedroom", "two-bedroom": what it counts is the bedrooms).
fn after_number(end: usize, evidence: &Evidence) -> usize {
    // A word, not a number: "4-6 people" is a range, its 4 no count of a "6".
    let joined = |i: usize| {
        evidence
            .tokens
            .get(i)
            .is_some_and(|t| !t.spaced && t.kind == Kind::Word)
    };
    let hyphen = evidence
        .tokens
        .get(end)
        .is_some_and(|t| t.lower == "-" && !t.spaced);
    match hyphen && joined(end + 1) {
        true => end + 1,
        false => end,
    }
}

/// The word right after a number that ends at token `end`, when it is a noun it counts (no
/// stop word or function word, no unit): "Kisten" of "3 Kisten", "Flaschen" of "12 Flaschen".
fn counted_noun(end: usize, evidence: &Evidence) -> Option<&str> {
    evidence
        .tokens
        .get(after_number(end, evidence))
        .filter(|t| {
            t.kind == Kind::Word
                && t.folded.chars().count() >= 3
                && !is(STOPWORDS, &t.folded)
                && !is(ASIDES, &t.folded)
                && !language::function_word(&t.folded)
                && !quantity::is_unit(&t.folded)
        })
        .map(|t| t.folded.as_str())
}

/// Whether a field's name or description words speak of an address (a house number fits it).
fn about_an_address(name: &[String], description: &[String]) -> bool {
    [
        "address",
        "street",
        "house",
        "direccion",
        "adresse",
        "indirizzo",
        "endereco",
    ]
    .iter()
    .any(|w| name.iter().chain(description).any(|n| n == w))
}

/// Whether the noun right after the number at tokens `start..end` (what it counts) fits the
/// field; `None` where no noun follows it.
/// Words for a unit of whatever a field measures: "sides of 5 units, 4 units and 3 units"
/// (BFCL's multiple_0) measure the sides.
const ANY_UNIT: &[&str] = &[
    "unit",
    "units",
    "unidad",
    "unidades",
    "unite",
    "unites",
    "einheit",
    "einheiten",
    "unidade",
    "unita",
];

fn noun_fits(
    start: usize,
    end: usize,
    name: &[String],
    description: &[String],
    evidence: &Evidence,
) -> Option<bool> {
    // German writes an ordinal with a full stop after an article ("zum 80. Geburtstag", "im
    // 2. Stock"): its noun follows it ("Überweis 80. Danke" ends a sentence).
    const ARTICLES: &[&str] = &[
        "zum", "zur", "am", "im", "vom", "beim", "der", "die", "das", "den", "dem", "des",
    ];
    let german_ordinal = evidence.languages.main == Some("de")
        && evidence
            .tokens
            .get(end)
            .is_some_and(|t| t.lower == "." && !t.spaced)
        && start
            .checked_sub(1)
            .and_then(|i| evidence.tokens.get(i))
            .is_some_and(|t| ARTICLES.contains(&t.folded.as_str()));
    let after = match german_ordinal {
        true => end + 1,
        false => after_number(end, evidence),
    };
    let counted = evidence.tokens.get(after).filter(|t| {
        t.kind == Kind::Word
            && !is(STOPWORDS, &t.folded)
            && !is(ASIDES, &t.folded)
            && !language::function_word(&t.folded)
    });
    // A number joined to its noun counts for a field about that noun or its unit only.
    let joined = !german_ordinal && after > end;
    let unit = |word: &str| quantity::is_unit(word) || is(ANY_UNIT, word);
    // "the 6-pack": the pack's size, no count of packs.
    if joined && counted.is_some_and(|noun| matches!(noun.folded.as_str(), "pack" | "packs")) {
        let words = || name.iter().chain(description);
        let counts_packs = words().any(|w| matches!(w.as_str(), "pack" | "packs"))
            && !words().any(|w| matches!(w.as_str(), "size" | "per"));
        return Some(!counts_packs);
    }
    if joined
        && !counted.is_some_and(|noun| {
            unit(&noun.folded) || counted::names(&noun.folded, name, description)
        })
    {
        return Some(false);
    }
    let noun = counted?;
    // A field that takes a measure takes no count of a thing: "zum 80. Geburtstag" is no
    // amount in euros.
    let field = quantity::Field { name, description };
    if field.measured() && !unit(&noun.folded) {
        return Some(false);
    }
    // "im 3. Stock": a rank of its noun, for a field about that noun or about a rank, no
    // count of crates.
    if german_ordinal {
        let noun = stem(&noun.folded);
        return Some(name.iter().chain(description).any(|w| {
            stem(w) == noun
                || RANK.contains(&w.as_str())
                || lexicon::translations(w).iter().any(|t| stem(t) == noun)
        }));
    }
    Some(counted::fits(&noun.folded, name, description))
}

/// A comparison operator as a value (`">"`, `"<="`, `"eq"`): a database query's condition.
#[derive(Clone, Copy, PartialEq)]
enum Comparison {
    Greater,
    AtLeast,
    Less,
    AtMost,
    Equal,
    NotEqual,
}

const GREATER: &[&str] = &[
    "greater",
    "more",
    "above",
    "over",
    "exceeds",
    "exceeding",
    "higher",
    "larger",
    "bigger",
    "after",
    "mayor",
    "mas",
    "superior",
    "superieur",
    "plus",
    "grosser",
    "uber",
    "mehr",
    "hoher",
    "maior",
    "acima",
    "maggiore",
    "piu",
    "sopra",
    "oltre",
];
const LESS: &[&str] = &[
    "less",
    "fewer",
    "below",
    "under",
    "lower",
    "smaller",
    "before",
    "menor",
    "menos",
    "inferior",
    "inferieur",
    "moins",
    "weniger",
    "kleiner",
    "unter",
    "abaixo",
    "minore",
    "meno",
    "sotto",
];
const AT_LEAST: &[&[&str]] = &[
    &["at", "least"],
    &["or", "more"],
    &["or", "equal"],
    &["al", "menos"],
    &["o", "mas"],
    &["au", "moins"],
    &["ou", "plus"],
    &["mindestens"],
    &["pelo", "menos"],
    &["ou", "mais"],
    &["almeno"],
    &["o", "piu"],
    &["minimum"],
];
const AT_MOST: &[&[&str]] = &[
    &["at", "most"],
    &["or", "less"],
    &["or", "fewer"],
    &["up", "to"],
    &["no", "more", "than"],
    &["como", "maximo"],
    &["o", "menos"],
    &["au", "plus"],
    &["ou", "moins"],
    &["hochstens"],
    &["no", "maximo"],
    &["ou", "menos"],
    &["al", "massimo"],
    &["o", "meno"],
    &["maximum"],
];
const EQUAL: &[&str] = &[
    "equal", "equals", "igual", "iguales", "egal", "egale", "gleich", "uguale", "exactly",
];
const IS: &[&str] = &[
    "is", "es", "est", "ist", "e", "sea", "soit", "sei", "seja", "sia",
];
const NOT_EQUAL: &[&str] = &[
    "not",
    "isn",
    "different",
    "distinto",
    "distinta",
    "different",
    "differente",
    "ungleich",
    "nicht",
    "diferente",
    "diverso",
    "diversa",
    "no",
    "pas",
    "nao",
    "non",
];

impl Comparison {
    fn of(text: &str) -> Option<Comparison> {
        Some(match text.trim().to_lowercase().as_str() {
            ">" | "gt" => Comparison::Greater,
            ">=" | "=>" | "gte" | "ge" => Comparison::AtLeast,
            "<" | "lt" => Comparison::Less,
            "<=" | "=<" | "lte" | "le" => Comparison::AtMost,
            "=" | "==" | "eq" => Comparison::Equal,
            "!=" | "<>" | "ne" | "neq" => Comparison::NotEqual,
            _ => return None,
        })
    }

    /// Said in words: "greater than" for `>`, "at least" for `>=`, "job is 'engineer'" for
    /// `=` (a word of being not followed by a word of more or less).
    fn said(self, evidence: &Evidence) -> bool {
        let words = evidence.folded_words();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let phrase = |list: &[&[&str]]| {
            list.iter()
                .any(|p| (0..words.len()).any(|i| words[i..].starts_with(p)))
        };
        let any = |list: &[&str]| words.iter().any(|w| list.contains(w));
        match self {
            Comparison::Greater => any(GREATER) && !phrase(AT_LEAST),
            Comparison::Less => any(LESS) && !phrase(AT_MOST),
            Comparison::AtLeast => phrase(AT_LEAST),
            Comparison::AtMost => phrase(AT_MOST),
            Comparison::Equal => {
                any(EQUAL)
                    || words.iter().enumerate().any(|(i, w)| {
                        IS.contains(w)
                            && !words[i + 1..].iter().take(2).any(|n| {
                                GREATER.contains(n) || LESS.contains(n) || NOT_EQUAL.contains(n)
                            })
                    })
            }
            Comparison::NotEqual => {
                words
                    .windows(2)
                    .any(|p| IS.contains(&p[0]) && NOT_EQUAL.contains(&p[1]))
                    || any(&["different", "distinto", "ungleich", "diferente", "diverso"])
            }
        }
    }
}

/// Marks written before a number that make it a number of something ("n°12", "Nr. 5", "#4").
const NUMBER_MARKS: &[&[&str]] = &[
    &["#"],
    &["n", "°"],
    &["n", "º"],
    &["nº"],
    &["n°"],
    &["n", "."],
    &["nr", "."],
    &["nr"],
    &["no", "."],
    &["num", "."],
];

/// Words that name a street, after its name in English ("42 Maple Ct") or before it in the
/// others ("rue de la Paix 12" is rare; "calle Mayor 5", "via Roma 12", "Rua Augusta 40").
const STREETS_AFTER: &[&str] = &[
    "st",
    "street",
    "ct",
    "court",
    "ave",
    "avenue",
    "rd",
    "road",
    "blvd",
    "boulevard",
    "ln",
    "lane",
    "dr",
    "drive",
    "way",
    "pl",
    "place",
    "terrace",
    "circle",
];
const STREETS_BEFORE: &[&str] = &[
    "calle",
    "avenida",
    "av",
    "rue",
    "boulevard",
    "via",
    "viale",
    "piazza",
    "corso",
    "rua",
    "travessa",
    "praca",
    "paseo",
    "plaza",
];

/// The number over `start..end` is a house number: "42 Maple Ct", "via Roma 12",
/// "Hauptstraße 5".
fn address_number(evidence: &Evidence, start: usize, end: usize) -> bool {
    let tokens = &evidence.tokens;
    let capital = |t: &super::tokens::Token| {
        evidence
            .text
            .get(t.start..t.end)
            .and_then(|w| w.chars().next())
            .is_some_and(char::is_uppercase)
    };
    let word = |i: usize| tokens.get(i).filter(|t| t.kind == Kind::Word);
    // English: the number, a name (one or two words, capitalised), the street word.
    let english = (end..end + 3).any(|j| {
        word(j).is_some_and(|t| STREETS_AFTER.contains(&t.folded.as_str()))
            && (end..j).all(|k| word(k).is_some_and(capital))
            && j > end
    });
    // The others: the street word, a name, the number; or one word ending in "straße".
    let before = |back: usize| start.checked_sub(back).and_then(word);
    let other = (2..=4).any(|back| {
        before(back).is_some_and(|t| STREETS_BEFORE.contains(&t.folded.as_str()))
            && (start + 1 - back..start).all(|k| word(k).is_some())
    }) || before(1).is_some_and(|t| {
        ["strasse", "straße", "str", "weg", "gasse", "platz", "allee"]
            .iter()
            .any(|s| t.folded.ends_with(s) && t.folded.len() > s.len() + 2)
    });
    english || other
}

/// Times a year a frequency word says, for a field counted per year ("monthly compounding"
/// for `compounding_periods_per_year: 12`).
fn per_year(value: f64, about: &dyn Fn(&[&str]) -> bool, evidence: &Evidence) -> bool {
    const PER_YEAR: &[(&str, f64)] = &[
        ("daily", 365.0),
        ("weekly", 52.0),
        ("biweekly", 26.0),
        ("monthly", 12.0),
        ("quarterly", 4.0),
        ("semiannually", 2.0),
        ("semiannual", 2.0),
        ("annually", 1.0),
        ("yearly", 1.0),
    ];
    about(&["year", "yearly", "annual", "annually", "annum"])
        && PER_YEAR
            .iter()
            .any(|(word, times)| close(*times, value) && choice::said_word(word, evidence))
}

/// A two- or three-letter code ("GB", "gbp", "de"), or a locale ("en-GB", "pt_BR").
fn is_code(text: &str) -> bool {
    let alpha =
        |part: &str| (2..=3).contains(&part.len()) && part.chars().all(|c| c.is_ascii_alphabetic());
    match text.split_once(['-', '_']) {
        Some((language, region)) => alpha(language) && alpha(region),
        None => alpha(text),
    }
}

/// The place an IANA time zone is named by ("New York" of "America/New_York"), for a name of
/// the database's shape (its areas are few and fixed; the database itself may be absent).
fn time_zone_city(text: &str) -> Option<String> {
    const AREAS: [&str; 10] = [
        "Africa",
        "America",
        "Antarctica",
        "Asia",
        "Atlantic",
        "Australia",
        "Europe",
        "Indian",
        "Pacific",
        "Etc",
    ];
    let (area, city) = text.split_once('/')?;
    let city = city.rsplit('/').next()?;
    (AREAS.contains(&area)
        && !city.is_empty()
        && city
            .chars()
            .all(|c| c.is_alphabetic() || c == '_' || c == '-'))
    .then(|| city.replace('_', " "))
}

/// The subtype of a media type ("json" of "application/json", of "application/vnd.api+json",
/// "png" of "image/png"): a media type is named by it ("send it as JSON").
fn media_subtype(text: &str) -> Option<&str> {
    const KINDS: [&str; 7] = [
        "application",
        "text",
        "image",
        "audio",
        "video",
        "font",
        "multipart",
    ];
    let (kind, subtype) = text.split(';').next()?.trim().split_once('/')?;
    if !KINDS.contains(&kind) || subtype.contains(['/', ' ']) {
        return None;
    }
    let subtype = subtype
        .rsplit_once('+')
        .map_or(subtype, |(_, suffix)| suffix);
    Some(subtype.trim_start_matches("x-")).filter(|s| !s.is_empty())
}

/// The boolean a member says, where the enum holds both "true" and "false" as strings (in
/// any case).
fn boolean_member(text: &str, members: &[Value]) -> Option<bool> {
    let has = |word: &str| {
        members
            .iter()
            .any(|m| m.as_str().is_some_and(|m| m.eq_ignore_ascii_case(word)))
    };
    if !(has("true") && has("false")) {
        return None;
    }
    match text.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Every part of a code or locale is named: "en-GB" needs English and Britain.
fn code_said(text: &str, evidence: &Evidence) -> bool {
    let facts = &evidence.facts;
    let said = |part: &str| facts.codes.contains(&part.to_uppercase());
    if !is_code(text) {
        return false;
    }
    match text.split_once(['-', '_']) {
        // A locale: its region named as a country, or by its language's name where no other
        // country is named.
        Some((language, region)) if language.len() == 2 && region.len() == 2 => {
            said(language)
                && said(region)
                && (facts.regions.is_empty() || facts.regions.contains(&region.to_uppercase()))
        }
        _ => text.split(['-', '_']).all(said),
    }
}

/// The words of a field's name and of its description, folded.
fn field_words(leaf: &Leaf) -> Vec<String> {
    let description = leaf
        .schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    words_of(leaf.key)
        .into_iter()
        .chain(words_of(description))
        .collect()
}

/// A field about an airport takes the code of an airport or a city the conversation names
/// ("Chicago O'Hare" is ORD).
fn airport_said(text: &str, leaf: &Leaf, evidence: &Evidence) -> bool {
    let words = field_words(leaf);
    text.len() == 3
        && airports::about_an_airport(&words)
        && airports::said(
            text,
            airports::end_of(&words_of(leaf.key), &words),
            evidence,
        )
}

/// Not traced, but perhaps said where grounding cannot read: the conversation holds another
/// language or script, or the value is free text in another of the six languages than the
/// conversation's (a translator writes "Call mom" for "llamar a mamá").
fn unread(leaf: &Leaf, evidence: &Evidence) -> bool {
    if evidence.languages.unread {
        return true;
    }
    let Value::String(value) = leaf.value else {
        return false;
    };
    // A translator writes free text in the conversation's language or in English: English
    // words for a conversation in another of the six are unverified; from an English
    // conversation, words nobody said were not said. Codes, identifiers and enum members are
    // checked in any language: an invented "first" class is worse than a lost "window" seat.
    let free_text = value.split_whitespace().count() >= 2 && leaf.schema.get("enum").is_none();
    match evidence.languages.main {
        Some(main) if main != "en" && free_text => {
            language::english_rather_than(value, &evidence.folded_words(), main)
        }
        _ => false,
    }
}

/// One word of letters with a mark or digits in it: a handle, a file name, an id
/// ("pepe_grillo88", "report.pdf").
fn identifier_like(text: &str) -> bool {
    !text.contains(char::is_whitespace)
        && text.chars().any(char::is_alphabetic)
        && text
            .chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | '-'))
}

/// Whether `value` is a day or a time of day as a call writes one: `2026-11-25` (or a
/// date-time), `09:30`.
pub fn is_day_or_time(value: &str) -> bool {
    date_of(value).is_some() || clock_of(value).is_some()
}

/// A date (`2026-11-25`, the date part of a date-time).
fn date_of(value: &str) -> Option<Date> {
    value.get(..10).and_then(|d| d.parse::<Date>().ok())
}

/// A date written with the year last ("07-10-2022", "12/05/2022", "20.11.2026"): read as
/// the layout the field's description names ("The format is MM-DD-YYYY"), or, where it
/// names none, both ways (either may be the one meant).
fn day_first_or_month_first(value: &str, schema: &Value) -> Vec<Date> {
    let Some(mark) = ['-', '/', '.'].into_iter().find(|m| value.contains(*m)) else {
        return Vec::new();
    };
    let parts: Vec<&str> = value.split(mark).collect();
    let [a, b, year] = parts.as_slice() else {
        return Vec::new();
    };
    let number =
        |p: &str| -> Option<i8> { (1..=2).contains(&p.len()).then(|| p.parse().ok()).flatten() };
    let (Some(a), Some(b), Ok(year)) = (number(a), number(b), year.parse::<i16>()) else {
        return Vec::new();
    };
    if year.to_string().len() != 4 {
        return Vec::new();
    }
    let description = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_uppercase();
    let layout = |first: &str, second: &str| {
        ["-", "/", "."]
            .iter()
            .any(|m| description.contains(&format!("{first}{m}{second}{m}YYYY")))
    };
    let (month_first, day_first) = match (layout("MM", "DD"), layout("DD", "MM")) {
        (true, false) => (true, false),
        (false, true) => (false, true),
        _ => (true, true),
    };
    let mut out = Vec::new();
    if month_first {
        out.extend(Date::new(year, a, b).ok());
    }
    if day_first {
        out.extend(Date::new(year, b, a).ok());
    }
    out
}

/// The time of a date-time (`2026-11-25T09:00`, `2026-11-25 09:00:00+01:00`).
fn time_part(value: &str) -> Option<(i8, i8)> {
    match value.get(10..11) {
        Some("T" | "t" | " ") => clock_of(value.get(11..)?),
        _ => None,
    }
}

/// `09:00`, `9:30`, `09:30:00`, `9:30 PM`.
fn clock_of(value: &str) -> Option<(i8, i8)> {
    let mut parts = value.splitn(3, ':');
    let hour: i8 = parts.next()?.trim().parse().ok()?;
    let rest = parts.next()?;
    let minute: i8 = rest.get(..2)?.parse().ok()?;
    let after = value.to_lowercase();
    let hour = match (after.contains("pm"), after.contains("am")) {
        (true, _) if hour < 12 => hour + 12,
        (_, true) if hour == 12 => 0,
        _ => hour,
    };
    ((0..24).contains(&hour) && (0..60).contains(&minute)).then_some((hour, minute))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_operators_said_in_words() {
        let said = |op: &str, text: &str| {
            Comparison::of(op)
                .is_some_and(|c| c.said(&Evidence::new(text, jiff::civil::date(2026, 11, 25))))
        };
        let query = "Find records where age is greater than 25 and job is 'engineer'.";
        assert!(said(">", query));
        assert!(said("=", query));
        assert!(!said("<", query));
        assert!(!said(">=", query));
        assert!(said(">=", "clientes con al menos 3 pedidos"));
        assert!(!said(">", "clientes con al menos 3 pedidos"));
        assert!(said("<=", "prix au plus 50 euros"));
        assert!(!said("=", "where the price is greater than 10"));
        assert!(said("!=", "where status is not 'closed'"));
    }

    /// Whether a rule traces `value` of field `key` (its schema `schema`) in `text`.
    fn value_kept(text: &str, key: &str, schema: serde_json::Value, value: Value) -> bool {
        let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
        let leaf = Leaf {
            value: &value,
            key,
            schema: &schema,
        };
        first(&leaf, &evidence, Rules::default()).is_some()
    }

    fn string_kept(text: &str, key: &str, schema: serde_json::Value, value: &str) -> bool {
        value_kept(text, key, schema, serde_json::json!(value))
    }

    fn number_kept(text: &str, key: &str, schema: serde_json::Value, value: f64) -> bool {
        value_kept(text, key, schema, serde_json::json!(value))
    }

    #[test]
    fn a_party_with_children_among_it_is_no_count_of_adults() {
        let adults = || serde_json::json!({"type": "integer", "description": "Numero di adulti"});
        let kept = |text: &str, value: f64| number_kept(text, "adults", adults(), value);
        assert!(!kept("siamo in 8 ma 2 sono bambini", 8.0));
        assert!(!kept("wir sind 4 Leute, davon 2 Kinder", 4.0));
        // Adults counted as adults, a party with no children, or a field for everyone.
        assert!(kept("we are 4 adults and 2 kids", 4.0));
        assert!(kept("we are 4, no kids", 4.0));
        assert!(kept("Wir sind 4 Personen und 2 Kinder", 4.0));
        assert!(number_kept(
            "wir sind 4 Leute, davon 2 Kinder",
            "guests",
            serde_json::json!({"type": "integer"}),
            4.0
        ));
    }

    #[test]
    fn a_bare_hour_in_a_correction_of_an_hour() {
        let time = || serde_json::json!({"type": "string", "description": "Start time, HH:MM"});
        let kept = |text: &str, value: &str| {
            value_kept(text, "start_time", time(), serde_json::json!(value))
        };
        assert!(kept(
            "book the room at 10 tomorrow. Actually, make it 11",
            "11:00"
        ));
        assert!(kept("book a table at 8pm. Actually make it 9", "21:00"));
        // Not the other half of the day, nor where the number may count people.
        assert!(!kept("book a table at 8pm. Actually make it 9", "09:00"));
        assert!(!kept(
            "book a table for 4 at 8pm. Actually make it 5",
            "17:00"
        ));
        assert!(!kept(
            "Book a table for 4 tomorrow. Actually make it 5",
            "17:00"
        ));
        assert!(!kept(
            "2 nights, check-in at 3pm. Actually make it 4",
            "16:00"
        ));
        assert!(!kept("at 11pm. Actually make it 12", "12:00"));
    }

    #[test]
    fn a_name_said_only_to_be_refused() {
        let name = || serde_json::json!({"type": "string"});
        let kept = |text: &str, key: &str, value: &str| {
            value_kept(text, key, name(), serde_json::json!(value))
        };
        assert!(!kept(
            "add it to my Errands list, the one I share with Tom - not Groceries",
            "list_name",
            "Groceries"
        ));
        assert!(!kept(
            "speicher das im Ordner 'Steuer 2026', nicht in 'Steuer 2025'",
            "folder",
            "Steuer 2025"
        ));
        assert!(!kept(
            "envoie 50 € à Thomas... ah non, c'est Hugo qui a payé, pas Thomas",
            "recipient",
            "Thomas"
        ));
        // A negation that does not open its clause: "N'oublie pas Marie", "Why not Tom?".
        assert!(kept("N'oublie pas Marie", "recipient", "Marie"));
        assert!(kept("Why not Tom?", "recipient", "Tom"));
        assert!(kept("Warum nicht Anna?", "recipient", "Anna"));
        // An answer's "No," then the name; a name said again without the negation.
        assert!(kept("No, Tomás", "recipient", "Tomás"));
        assert!(kept(
            "not Groceries, well, Groceries after all",
            "list_name",
            "Groceries"
        ));
    }

    #[test]
    fn a_pack_named_by_its_size_is_no_count_of_packs() {
        let text = "reorder the 6-pack of sparkling water, just one pack this time";
        let packs = serde_json::json!({"type": "integer", "description": "Number of packs"});
        assert!(!number_kept(text, "quantity", packs, 6.0));
        let size = serde_json::json!({"type": "integer"});
        assert!(number_kept(text, "pack_size", size.clone(), 6.0));
        assert!(number_kept("a 6-pack of beer", "bottles", size, 6.0));
    }

    #[test]
    fn a_name_after_a_verb_that_moves_money_is_whom_it_goes_to() {
        let amount = || serde_json::json!({"type": "number", "description": "Amount in euros"});
        assert!(number_kept(
            "Send Tom 30 for the cinema",
            "amount",
            amount(),
            30.0
        ));
        assert!(number_kept(
            "Überweis Tom 30 fürs Kino",
            "amount",
            amount(),
            30.0
        ));
        // Not a count of things named after it, nor a name after another verb.
        assert!(!number_kept("Send Tom 30 photos", "amount", amount(), 30.0));
        assert!(!number_kept("Call Tom 30 times", "amount", amount(), 30.0));
        assert!(!number_kept(
            "Pay Invoice 4521 for 300 euros",
            "amount",
            amount(),
            4521.0
        ));
    }

    #[test]
    fn a_sum_after_a_verb_that_moves_money() {
        let amount = || serde_json::json!({"type": "number", "description": "amount in GBP"});
        assert!(number_kept(
            "Transfer 500 to my savings account",
            "amount",
            amount(),
            500.0
        ));
        assert!(number_kept(
            "Transfer half a grand to savings",
            "amount",
            amount(),
            500.0
        ));
        assert!(number_kept(
            "Paga 40 a Marco",
            "importo",
            serde_json::json!({"type": "number"}),
            40.0
        ));
        // Not a count of things, and not for a field about another thing than money.
        assert!(!number_kept(
            "Transfer 500 to my savings account",
            "quantity",
            serde_json::json!({"type": "integer"}),
            500.0
        ));
        assert!(!number_kept(
            "Pay 3 invoices today",
            "amount",
            amount(),
            3.0
        ));
    }

    #[test]
    fn a_word_that_links_or_orders_names_no_number() {
        let guests = || serde_json::json!({"type": "integer", "description": "Number of guests"});
        let text = "Siamo in sei, più il bambino piccolo, quindi sette in tutto.";
        assert!(number_kept(text, "party_size", guests(), 7.0));
        assert!(number_kept("we were 5, now 6", "party_size", guests(), 6.0));
        // A thing's word still names its number.
        assert!(!number_kept(
            "the kids are in room 12",
            "party_size",
            guests(),
            12.0
        ));
        // What a thing says is said: "la ricetta dice 180" (not "la ricetta 180").
        let oven = || serde_json::json!({"type": "integer", "minimum": 50, "maximum": 250});
        assert!(number_kept(
            "Imposta il forno, la ricetta dice 180",
            "temperature_c",
            oven(),
            180.0
        ));
        assert!(number_kept(
            "Preheat the oven, the box says 220",
            "temperature_c",
            oven(),
            220.0
        ));
        assert!(!number_kept(
            "Imposta il forno, pagina 180 della ricetta",
            "temperature_c",
            oven(),
            180.0
        ));
        // What an instrument reads beside the value set.
        let thermostat = || serde_json::json!({"type": "integer", "minimum": 5, "maximum": 30});
        assert!(!number_kept(
            "Das Thermometer zeigt 25, stell die Heizung auf 21",
            "target_temperature",
            thermostat(),
            25.0
        ));
        assert!(number_kept(
            "Das Thermometer zeigt 25, stell die Heizung auf 21",
            "target_temperature",
            thermostat(),
            21.0
        ));
    }

    #[test]
    fn a_number_joined_to_its_noun_counts_that_noun_only() {
        let int = || serde_json::json!({"type": "integer"});
        let beds = serde_json::json!({"type": "integer", "description": "Number of bedrooms"});
        let flat = "Find a two-bedroom, one-bathroom apartment for rent in Denver";
        assert!(number_kept(flat, "number_of_beds", beds, 2.0));
        assert!(number_kept(flat, "number_of_baths", int(), 1.0));
        assert!(number_kept("a 2-bedroom flat", "bedrooms", int(), 2.0));
        assert!(number_kept(
            "Eine Drei-Zimmer-Wohnung in Berlin",
            "zimmer",
            int(),
            3.0
        ));
        assert!(number_kept(
            "a forty-five-minute meeting",
            "duration_minutes",
            int(),
            45.0
        ));
        assert!(number_kept("a 3-day trip", "days", int(), 3.0));
        // What the compound counts is no count of anything else, and an idiom counts nothing.
        assert!(!number_kept("a two-bedroom flat", "guests", int(), 2.0));
        assert!(!number_kept("a 2-bedroom flat", "guests", int(), 2.0));
        assert!(!number_kept("a 3-day trip", "travelers", int(), 3.0));
        assert!(!number_kept(
            "book a one-way flight to Rome",
            "passengers",
            int(),
            1.0
        ));
        assert!(!number_kept("a one-off reminder", "count", int(), 1.0));
        assert!(!number_kept(
            "enable two-factor auth",
            "retries",
            int(),
            2.0
        ));
        assert!(!number_kept(
            "a one-time payment of 30 euros",
            "installments",
            int(),
            1.0
        ));
        // Number words joined to each other are one number, not a number and a noun.
        assert!(number_kept("quatre-vingt-dix euros", "amount", int(), 90.0));
        assert!(number_kept("twenty-one guests", "guests", int(), 21.0));
        assert!(!number_kept("an x-ray appointment", "count", int(), 1.0));
        // A range is no number joined to a noun; a number word before a compound is its own.
        assert!(number_kept(
            "Book a table for 4-6 people tonight",
            "party_size",
            int(),
            4.0
        ));
        assert!(number_kept("a room for 2-3 nights", "nights", int(), 2.0));
        let twenty = "Show me twenty two-bedroom apartments in Austin";
        assert!(number_kept(twenty, "limit", int(), 20.0));
        assert!(!number_kept(twenty, "limit", int(), 22.0));
        // Only a number word stops it: "for", "this", "and" start like one and are none.
        let bedrooms = "Looking for two-bedroom apartments in Austin";
        assert!(number_kept(bedrooms, "bedrooms", int(), 2.0));
        assert!(number_kept(
            "search for three-star hotels",
            "stars",
            int(),
            3.0
        ));
        let condo = "a two-bedroom two-bathroom condo";
        assert!(number_kept(condo, "bathrooms", int(), 2.0));
    }

    #[test]
    fn a_count_of_the_field_s_own_kind_in_the_singular_is_the_field_s() {
        let int = || serde_json::json!({"type": "integer"});
        // Two bookings: "1 child" counts what `children` counts, as "2 children" does.
        let two =
            "a room for 2 adults and 1 child. Then, reserve a room for 1 adult and 2 children";
        assert!(number_kept(two, "children", int(), 1.0));
        assert!(number_kept(two, "children", int(), 2.0));
        assert!(!number_kept(
            "a room for 1 child. Then 3 adults",
            "children",
            int(),
            3.0
        ));
        // Animals are counted alike but are no one kind: dogs are no cats.
        let pets = serde_json::json!({"type": "integer", "description": "Quantidade de gatos"});
        let said = "tenho 2 cachorros e 1 gato, coloca só os gatos no plano de saúde pet";
        assert!(!number_kept(said, "cats", pets.clone(), 2.0));
        assert!(number_kept(said, "cats", pets, 1.0));
        // Nor are rooms, or tickets and guests: "3 pièces" are no 3 bedrooms.
        let chambres = serde_json::json!({"type": "integer", "description": "Nombre de chambres"});
        let flat = "Je cherche un 3 pièces avec 2 chambres à Lyon";
        assert!(!number_kept(flat, "bedrooms", chambres, 3.0));
        assert!(!number_kept(
            "We're 6 guests and need 4 tickets",
            "tickets",
            int(),
            6.0
        ));
    }

    #[test]
    fn a_code_named_only_as_the_other_end_of_a_translation_or_conversion() {
        let code = || serde_json::json!({"type": "string"});
        let kept = |text: &str, key: &str, value: &str| string_kept(text, key, code(), value);
        let both = "Translate this from German into Dutch pls";
        assert!(!kept(both, "target_language", "de"));
        assert!(kept(both, "target_language", "nl"));
        assert!(kept(both, "source_language", "de"));
        assert!(!kept("tradúceme esto al inglés", "source_language", "en"));
        assert!(kept("tradúceme esto al inglés", "target_language", "en"));
        assert!(!kept(
            "übersetz das ins Französische",
            "source_language",
            "fr"
        ));
        let money = "convert 100 dollars to euros";
        assert!(!kept(money, "from_currency", "EUR"));
        assert!(kept(money, "to_currency", "EUR"));
        assert!(kept(money, "from_currency", "USD"));
        assert!(!kept("convert 100 USD to EUR", "from_currency", "EUR"));
        let french = "traduis de l'anglais vers le français";
        assert!(!kept(french, "target_language", "en"));
        assert!(kept(french, "source_language", "en"));
        // "in" and a lone "de" decide nothing; a field of no end is not read so.
        let german = "this text is in German, translate it into English";
        assert!(kept(german, "source_language", "de"));
        assert!(kept(
            "apúntame a una clase de inglés",
            "target_language",
            "en"
        ));
        assert!(kept(both, "language", "de"));
        assert!(kept("convert my euros to dollars", "from_currency", "EUR"));
        // "in" after an amount and its unit is the target.
        let francs = "Rechne 200 Franken in Euro um";
        assert!(!kept(francs, "from_currency", "EUR"));
        assert!(kept(francs, "to_currency", "EUR"));
        assert!(kept("paga 200 in euro", "currency", "EUR"));
    }

    #[test]
    fn a_boolean_written_as_a_member_is_a_flag_and_its_subject_said_by_its_kind() {
        let member =
            || serde_json::json!({"type": "string", "enum": ["True", "False", "dontcare"]});
        let parks = "Can you find me a list of parks in New York that have free entry and are suitable for children?";
        assert!(string_kept(parks, "good_for_kids", member(), "True"));
        assert!(!string_kept(parks, "good_for_kids", member(), "False"));
        assert!(value_kept(
            parks,
            "good_for_kids",
            serde_json::json!({"type": "boolean"}),
            Value::Bool(true)
        ));
        assert!(!string_kept(
            "parks in New York",
            "good_for_kids",
            member(),
            "True"
        ));
        assert!(!string_kept(
            "parks with free entry, not for children",
            "good_for_kids",
            member(),
            "True"
        ));
        // Only "True" and "False" both among the members make one: "true" alone is a word.
        let other = serde_json::json!({"type": "string", "enum": ["true", "maybe"]});
        assert!(!string_kept(parks, "good_for_kids", other, "true"));
    }

    #[test]
    fn a_code_named_only_to_be_turned_down() {
        let language = serde_json::json!({"type": "string", "pattern": "^[a-z]{2}$"});
        let text = "pon los subtítulos en catalán, no en castellano";
        assert!(string_kept(
            text,
            "subtitle_language",
            language.clone(),
            "ca"
        ));
        assert!(!string_kept(
            text,
            "subtitle_language",
            language.clone(),
            "es"
        ));
        let country = serde_json::json!({"type": "string", "pattern": "^[A-Z]{2}$"});
        assert!(!string_kept(
            "manda pro Japão, não pro Brasil",
            "country",
            country.clone(),
            "BR"
        ));
        // Portuguese "no" is "in the"; a refusal with a mark after it answers.
        assert!(string_kept(
            "o voo sai no Brasil amanhã",
            "country",
            country.clone(),
            "BR"
        ));
        let currency = serde_json::json!({"type": "string", "pattern": "^[A-Z]{3}$"});
        assert!(string_kept(
            "no, in euros please",
            "currency",
            currency,
            "EUR"
        ));
        assert!(!string_kept(
            "Translate this email into French and not into Spanish",
            "target_language",
            language.clone(),
            "es"
        ));
        // A refusal of the verb before it turns no code down.
        assert!(string_kept(
            "je ne parle pas japonais, traduis-moi ce message en français",
            "source_language",
            language,
            "ja"
        ));
    }

    #[test]
    fn a_head_count_and_ages_count_no_rooms_or_children() {
        let int = serde_json::json!({"type": "integer"});
        let rooms = "book 2 rooms at the hilton downtown for the 5 of us";
        assert!(number_kept(rooms, "rooms", int.clone(), 2.0));
        assert!(!number_kept(rooms, "rooms", int.clone(), 5.0));
        assert!(number_kept(rooms, "guests", int.clone(), 5.0));
        let kids = "inscris mes 2 gamins au centre aéré, ils ont 7 et 9 ans";
        assert!(number_kept(kids, "number_of_children", int.clone(), 2.0));
        assert!(!number_kept(kids, "number_of_children", int.clone(), 7.0));
        assert!(number_kept("mi hijo tiene 8 años", "age", int.clone(), 8.0));
        // A verb of having before a count of things is no age.
        assert!(number_kept("tengo 3 perros", "dogs", int.clone(), 3.0));
        // The years of an occasion count no guests; the guests said beside them do.
        let party = "Buch mir einen Tisch für meinen 40. Geburtstag am Freitag, wir sind 12";
        assert!(!number_kept(party, "anzahl_personen", int.clone(), 40.0));
        assert!(number_kept(party, "anzahl_personen", int.clone(), 12.0));
        let anniversary = "Reserva para el 50 aniversario de mis padres";
        assert!(!number_kept(anniversary, "personas", int.clone(), 50.0));
        assert!(number_kept(anniversary, "anniversary", int.clone(), 50.0));
        // A number before another noun is left to the other rules; so is a count of things
        // for an occasion.
        assert!(number_kept(
            "a table for 12. Birthday dinner",
            "guests",
            int.clone(),
            12.0
        ));
        assert!(number_kept(
            "Order 30 birthday invitations",
            "quantity",
            int.clone(),
            30.0
        ));
        assert!(number_kept(
            "Book a table for 12 birthday guests on Saturday",
            "party_size",
            int.clone(),
            12.0
        ));
        assert!(!number_kept(
            "Book a table for my 40th birthday",
            "guests",
            int,
            40.0
        ));
    }

    #[test]
    fn a_day_for_one_leg_of_a_trip_is_no_day_for_the_other() {
        // Today is 2026-11-25.
        let date = serde_json::json!({"type": "string", "format": "date"});
        // The way back spoken of without a day has none: the outbound day is not its.
        let open = "Búscame vuelo a Madrid para el 20 de diciembre, la vuelta aún no la sé";
        assert!(!string_kept(
            open,
            "return_date",
            date.clone(),
            "2026-12-20"
        ));
        assert!(string_kept(
            open,
            "departure_date",
            date.clone(),
            "2026-12-20"
        ));
        let come_back = "fly to Rome on the 28th and come back";
        assert!(!string_kept(
            come_back,
            "return_date",
            date.clone(),
            "2026-11-28"
        ));
        let one_leg = "a one-way flight back to Madrid on the 28th";
        assert!(string_kept(
            one_leg,
            "return_date",
            date.clone(),
            "2026-11-28"
        ));
        let text = "flying out to austin on the 28th and back on the 30th";
        assert!(string_kept(
            text,
            "departure_date",
            date.clone(),
            "2026-11-28"
        ));
        assert!(!string_kept(
            text,
            "departure_date",
            date.clone(),
            "2026-11-30"
        ));
        assert!(string_kept(text, "return_date", date.clone(), "2026-11-30"));
        assert!(!string_kept(
            text,
            "return_date",
            date.clone(),
            "2026-11-28"
        ));
        let text = "vuelo a Lima el viernes 27 y vuelta el domingo 29";
        assert!(!string_kept(
            text,
            "fecha_vuelta",
            date.clone(),
            "2026-11-27"
        ));
        assert!(string_kept(
            text,
            "fecha_vuelta",
            date.clone(),
            "2026-11-29"
        ));
        // The outbound leg named without a day: the return's day is still not its own.
        assert!(!string_kept(
            "el vuelo de vuelta es el 30, la ida todavía no la tengo clara",
            "departure_date",
            date.clone(),
            "2026-11-30"
        ));
        // One leg only ("back" is where it goes), a field of no leg, or a day said in
        // neither leg alone: left to the whole text.
        assert!(string_kept(
            "Book me a one-way flight back to Madrid on the 28th",
            "departure_date",
            date.clone(),
            "2026-11-28"
        ));
        assert!(string_kept(text, "date", date.clone(), "2026-11-27"));
        assert!(string_kept(
            "fly to Rome on the 28th and back on the 30th",
            "travel_date",
            date,
            "2026-11-30"
        ));
    }

    #[test]
    fn digits_corrected_under_the_field_s_label() {
        let kept = |text: &str, value: &str| {
            let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 28));
            let json = serde_json::json!(value);
            let schema = serde_json::json!({"type": "string"});
            let leaf = Leaf {
                value: &json,
                key: "customer_number",
                schema: &schema,
            };
            first(&leaf, &evidence, Rules::default()).is_some()
        };
        let text = "my customer number is 4471093, no wait, 4471098";
        assert!(kept(text, "4471098"));
        assert!(!kept(text, "4471093"));
        // A correction of something else leaves the digits said.
        assert!(kept(
            "my customer number is 4471093, no wait, call me instead",
            "4471093"
        ));
    }

    #[test]
    fn a_value_taken_back_for_another_of_its_kind() {
        let kept = |text: &str, schema: serde_json::Value, value: &str| {
            let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 28));
            let json = serde_json::json!(value);
            let leaf = Leaf {
                value: &json,
                key: "field",
                schema: &schema,
            };
            first(&leaf, &evidence, Rules::default()).is_some()
        };
        let code =
            || serde_json::json!({"type": "string", "description": "ISO 639-1 language code"});
        // A name taken back by "I mean" (after an apology too) or a bare name after a wait.
        let name = || serde_json::json!({"type": "string"});
        let tim = "Send $40 to Tom, sorry I mean Tim";
        assert!(!kept(tim, name(), "Tom"));
        assert!(kept(tim, name(), "Tim"));
        assert!(!kept(
            "Send the report to Tom, no wait, Tim.",
            name(),
            "Tom"
        ));
        for text in [
            "Send $40 to Tom, sorry, I mean the usual amount",
            "Invite Tom, sorry I mean also Tim",
        ] {
            assert!(kept(text, name(), "Tom"), "{text}");
        }
        // "I meant" after the value it corrects to ("Samstag meinte ich"), ending its clause.
        let day = || serde_json::json!({"type": "string", "format": "date"});
        let saturday = "Buch den Flug nach Zürich für Freitag, äh, Samstag meinte ich";
        assert!(!kept(saturday, day(), "2026-12-04"));
        assert!(kept(saturday, day(), "2026-12-05"));
        assert!(kept(
            "Buch den Flug für Freitag, das meinte ich gestern schon",
            day(),
            "2026-12-04"
        ));
        let catalan = "tradúceme esto al catalán... no, mejor al portugués que es pa mi suegra";
        assert!(!kept(catalan, code(), "ca"));
        assert!(kept(catalan, code(), "pt"));
        let money =
            || serde_json::json!({"type": "string", "description": "ISO 4217 currency code"});
        assert!(!kept(
            "zahl in Franken... nee, doch lieber in Euro",
            money(),
            "CHF"
        ));
        assert!(kept(
            "zahl in Franken... nee, doch lieber in Euro",
            money(),
            "EUR"
        ));
        // A name or a place for another; not a correction that names none.
        let name = || serde_json::json!({"type": "string"});
        let sent = "Manda o relatório pro Paulo — não, pro Ricardo.";
        assert!(!kept(sent, name(), "Paulo"));
        assert!(kept(sent, name(), "Ricardo"));
        let taxi = "Commande un taxi pour la gare de Lyon... euh non, pour Montparnasse.";
        assert!(!kept(taxi, name(), "Gare de Lyon"));
        assert!(kept(
            "Manda o relatório pro Paulo — não, também para o chefe.",
            name(),
            "Paulo"
        ));
        // A title is no name, and a day or an hour corrects none.
        assert!(kept(
            "Add 'Pick up kids' to my reminders for Monday, actually Tuesday",
            name(),
            "Pick up kids"
        ));
        assert!(kept(
            "Schedule Team Sync at 3 PM, no, 4 PM",
            name(),
            "Team Sync"
        ));
        let date = || serde_json::json!({"type": "string", "format": "date"});
        let moved = "cámbiame la reunión al lunes... no, mejor al martes";
        assert!(!kept(moved, date(), "2026-11-30"));
        assert!(kept(moved, date(), "2026-12-01"));
        let size = || serde_json::json!({"type": "string", "enum": ["small", "medium", "large"]});
        let pizza = "une pizza moyenne, enfin non, prends la grande on a faim";
        assert!(!kept(pizza, size(), "medium"));
        assert!(kept(pizza, size(), "large"));
        // The correction's reason names the value again, and asks for nothing.
        let reason =
            "cámbiame la reunión al lunes... no, mejor al martes que el lunes tengo médico";
        assert!(!kept(reason, date(), "2026-11-30"));
        assert!(kept(reason, date(), "2026-12-01"));
        let festivo = "para el 8 de diciembre... no, mejor el 10, que el 8 es festivo";
        assert!(!kept(festivo, date(), "2026-12-08"));
        assert!(kept(festivo, date(), "2026-12-10"));
        // A reason before the new value ("nesse dia não dá": no German "da") leaves it in the
        // correction.
        let moved = "revisão para o dia 15... ah, espera, nesse dia não dá, deixa para o 16";
        assert!(!kept(moved, date(), "2026-12-15"));
        assert!(kept(moved, date(), "2026-12-16"));
        // A time zone taken back for another place's.
        let zone = || serde_json::json!({"type": "string", "description": "IANA time zone"});
        let seoul = "Imposta il fuso orario di Tokyo... anzi no, prima faccio scalo a Seul";
        assert!(!kept(seoul, zone(), "Asia/Tokyo"));
        assert!(!kept(
            "Set the time zone to Tokyo, no wait, Seoul",
            zone(),
            "Asia/Tokyo"
        ));
        for text in [
            "Set the time zone to Tokyo, no wait, the phone's one",
            "Time zone Tokyo, no wait, I'll use the phone's one",
            "Zeitzone Tokio, nein warte, die vom Handy",
        ] {
            assert!(kept(text, zone(), "Asia/Tokyo"), "{text}");
        }
        // Digits taken back with no word before them on their line.
        let digits = || serde_json::json!({"type": "string", "pattern": "^[0-9]+$"});
        let order = "30-4471-82... nee warte, 30-4471-28";
        assert!(!kept(order, digits(), "30447182"));
        assert!(kept(order, digits(), "30447128"));
        // An identifier taken back for another ("no espera, el nuevo es ...").
        let handle = || serde_json::json!({"type": "string"});
        let user = "mi usuario es @pepe_grillo88... no espera, ese es el viejo, el nuevo es @pepegrillo_mx";
        assert!(!kept(user, handle(), "pepe_grillo88"));
        assert!(kept(user, handle(), "pepegrillo_mx"));
        assert!(kept(
            "mi usuario es @pepe_grillo88, no el de antes",
            handle(),
            "pepe_grillo88"
        ));
        // A correction of something else takes nothing back; a value said elsewhere stays.
        assert!(kept(
            "lunes a las 9... no, mejor a las 10, pero el lunes",
            date(),
            "2026-11-30"
        ));
        assert!(kept(
            "pay in francs, to Lisbon... no, to Porto",
            money(),
            "CHF"
        ));
        assert!(kept(
            "pay in francs\nzahl in Franken... nee, doch lieber in Euro",
            money(),
            "CHF"
        ));
    }

    #[test]
    fn a_house_number_a_marked_number_and_a_verb_before_a_count() {
        let kept = |text: &str, key: &str, value: f64| {
            number_kept(text, key, serde_json::json!({"type": "integer"}), value)
        };
        let team = "Sign Liam up pls. He's 9, we're at 42 Maple Ct. Any jersey number is fine";
        assert!(!kept(team, "jersey_number", 42.0));
        assert!(kept(team, "house_number", 42.0));
        assert!(!kept(
            "Spedisci a via Roma 12, sono 3 pacchi",
            "packages",
            12.0
        ));
        assert!(!kept("Liefer es an die Hauptstraße 5", "quantity", 5.0));
        assert!(kept(
            "Book 42 seats at the Maple Court hotel",
            "seats",
            42.0
        ));
        let court = "réserve un court pour samedi, on sera 4, le court n°12 si possible";
        assert!(!kept(court, "players", 12.0));
        assert!(kept(court, "players", 4.0));
        assert!(kept(court, "court", 12.0));
        assert!(kept("il m'en faut quatre-vingt-dix", "quantity", 90.0));
        // A full stop ends a sentence: the word before it names nothing of the next one.
        assert!(kept("We're going to Paris. 4 people", "party_size", 4.0));
        assert!(!kept("Zimmer Nr. 12 für 2 Personen", "guests", 12.0));
        assert!(kept("I need 3 chairs", "quantity", 3.0));
    }

    #[test]
    fn a_measure_takes_no_count_of_a_thing() {
        let kept = |text: &str, key: &str, description: &str, value: f64| {
            let schema = serde_json::json!({"type": "number", "description": description});
            number_kept(text, key, schema, value)
        };
        let euros = "Betrag in Euro";
        assert!(!kept(
            "Überweis der Oma was zum 80. Geburtstag",
            "amount",
            euros,
            80.0
        ));
        assert!(!kept(
            "send grandma 80 candles",
            "amount",
            "Amount in euros",
            80.0
        ));
        // Its unit, or nothing after it, is a measure.
        assert!(kept(
            "Überweis der Oma 80 Euro zum Geburtstag",
            "amount",
            euros,
            80.0
        ));
        assert!(kept(
            "send her 80 bucks for her birthday",
            "amount",
            "Amount in dollars",
            80.0
        ));
        assert!(kept("Überweis ihr 80, danke", "amount", euros, 80.0));
        assert!(kept(
            "Don't include window area of 15 sq.ft.",
            "area",
            "The area of the exclusion in square feet.",
            15.0
        ));
        // A description's "provider's" names no seconds.
        assert!(kept(
            "find a cleaner with a review of 4.5 stars",
            "rating",
            "The average rating of the service provider's review score.",
            4.5
        ));
        // A head count is no count of things, nor money; it is a party's size.
        let match_night = "commande 3 pizzas chez Domino's, on est 10 pour le match";
        assert!(!kept(match_night, "quantity", "Nombre de pizzas", 10.0));
        assert!(kept(match_night, "quantity", "Nombre de pizzas", 3.0));
        assert!(kept("mesa para el sábado, somos 6", "party_size", "", 6.0));
        assert!(kept("we're 4, book a table", "guests", "", 4.0));
        assert!(kept(
            "Digli che ci siamo in 10 minuti",
            "delay_minutes",
            "Ritardo in minuti",
            10.0
        ));
        let party = "Ordina le pizze per la festa: siamo in venti, ne bastano otto.";
        assert!(!kept(party, "pizza_count", "Numero di pizze", 20.0));
        assert!(kept(party, "guests", "Numero di ospiti", 20.0));
        let rooms = "Wir sind zu acht, brauchen aber nur zwei Zimmer im Hotel Adler.";
        assert!(!kept(rooms, "room_count", "Anzahl Zimmer", 8.0));
        assert!(kept(rooms, "room_count", "Anzahl Zimmer", 2.0));
        assert!(kept(rooms, "guests", "Anzahl Gäste", 8.0));
        assert!(!kept(
            "we're 4, send the money",
            "amount",
            "Amount to send",
            4.0
        ));
        // A word that corrects a number, or a colloquial "para", names nothing.
        assert!(kept(
            "prenota un tavolo per sei, anzi sette",
            "party_size",
            "Numero di persone",
            7.0
        ));
        assert!(kept(
            "apártame una mesa pa seis el sábado",
            "party_size",
            "",
            6.0
        ));
        // "5k" is five thousand, never five.
        let run = "log my run pls, 5k in 28 mins";
        assert!(kept(run, "distance_m", "Distance in metres", 5000.0));
        assert!(!kept(run, "distance_m", "Distance in metres", 5.0));
        // A race's "5k" is kilometres too, unless it is money.
        assert!(kept(run, "distance_km", "Distance in kilometres", 5.0));
        assert!(!kept(
            "put 5k € aside for the trip",
            "distance_km",
            "Distance in kilometres",
            5.0
        ));
        assert!(!kept(
            "Log 10k steps for today",
            "distance_km",
            "Distance in kilometres",
            10.0
        ));
        // A count field still takes its count; a German sentence's end is no ordinal.
        assert!(kept(
            "Wir sind 4. Bitte reservieren",
            "party_size",
            "Personen",
            4.0
        ));
    }

    #[test]
    fn a_member_named_in_the_description_before_its_parenthesis() {
        let schema = serde_json::json!({"type": "string",
            "enum": ["basic", "standard", "premium"],
            "description": "Formule, de la moins chère (basic) à la plus chère (premium)"});
        let said = |text: &str, member: &str| {
            mapped(
                &serde_json::json!(member),
                "formule",
                &schema,
                &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
            )
        };
        assert!(said("je prends la formule la moins chère", "basic"));
        assert!(!said("je prends la formule la moins chère", "premium"));
        assert!(said("la plus chère, s'il te plaît", "premium"));
        assert!(!said("une formule pas trop chère", "basic"));
    }

    #[test]
    fn an_identifier_written_only_after_a_refusal_is_not_said() {
        let down = |text: &str, value: &str| {
            identifier_turned_down(value, &Evidence::new(text, jiff::civil::date(2026, 11, 25)))
        };
        let text = "mon identifiant c'est m.dupont84, pas mdupont84 ça c'est mon frère";
        assert!(down(text, "mdupont84"));
        assert!(!down(text, "m.dupont84"));
        assert!(down(
            "use the staging branch, not release-2.4",
            "release-2.4"
        ));
        assert!(!down("use release-2.4, not the staging one", "release-2.4"));
        // A version of digits and dots too; a plain number is no identifier.
        let version = "Installe la version 2.4.1 du paquet, pas la 2.4.0 qui plante";
        assert!(down(version, "2.4.0") && !down(version, "2.4.1"));
        assert!(!down("a table for 4, not 6", "6"));
        // A refusal of the action, or one written again as wanted, turns nothing down.
        assert!(!down("ne supprime pas build-17 stp", "build-17"));
        assert!(!down(
            "not v2-beta, well, actually v2-beta is fine",
            "v2-beta"
        ));
    }

    #[test]
    fn a_code_mapped_by_a_word_that_names_the_field_is_not_said() {
        let service = serde_json::json!({"type": "integer", "description":
            "The unique identifier representing the type of service offered. For instance, 1 for cleaning service, 3 for massage, 24 for disinfectant cleaning."});
        let province = serde_json::json!({"type": "integer", "description":
            "The unique identifier of the province, such as 1 for Bangkok, 2 for Chiang Mai, and 3 for Phuket."});
        let said = |text: &str, key: &str, schema: &Value, code: i64| {
            mapped(
                &serde_json::json!(code),
                key,
                schema,
                &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
            )
        };
        let request = "Looking for a service provider Ekthai, Bangkok 22/3/2024 time 11.00 a.m.";
        // "service" names the field (its key, its lead), not the cleaning service.
        assert!(!said(request, "service_id", &service, 1));
        assert!(said(request, "province_id", &province, 1));
        assert!(!said(request, "province_id", &province, 2));
        assert!(said(
            "I need a cleaning service on Friday",
            "service_id",
            &service,
            1
        ));
        assert!(said("book a massage", "service_id", &service, 3));
        assert!(!said("book a massage", "service_id", &service, 24));
        // The province named by a word the lead also uses is still its own value.
        assert!(said("somewhere in Chiang Mai", "province_id", &province, 2));
        // Values the lead lists before their codes are values, not the field's name.
        let class = serde_json::json!({"type": "integer", "description":
            "Seat class: economy, business or first. 1 = economy, 2 = business, 3 = first"});
        assert!(said("business class please", "seat_class", &class, 2));
        assert!(!said("business class please", "seat_class", &class, 1));
    }

    #[test]
    fn a_template_with_angle_placeholders() {
        let evidence = Evidence::new(
            "get list of nodes for fabric fab-ed and ip is 3.321.3232.2",
            jiff::civil::date(2026, 11, 25),
        );
        let schema = serde_json::json!({"type": "string", "description":
            "The URL, in https://<ip>/api/nodes?fabricName={fabricName}."});
        let filled = |value: &str| filled_template(&serde_json::json!(value), &schema, &evidence);
        assert!(filled("https://3.321.3232.2/api/nodes?fabricName=fab-ed"));
        assert!(!filled("https://10.0.0.1/api/nodes?fabricName=fab-ed"));
        assert_eq!(angle_placeholders("a<b c>d<ip>/x<"), "a<b c>d{ip}/x<");
    }

    #[test]
    fn a_template_of_the_description_filled_with_what_was_said() {
        let evidence = Evidence::new(
            "Cisco Nexus Dashboard, IP: 192.120.45.67, node 12",
            jiff::civil::date(2026, 11, 25),
        );
        let schema = serde_json::json!({"type": "string", "description":
            "The URL endpoint, e.g., 'https://{ip}/sedgeapi/v1/cisco-nir/api/api/telemetry/flowrules/interfaceInfo'."});
        let filled = |value: &str| filled_template(&serde_json::json!(value), &schema, &evidence);
        assert!(filled(
            "https://192.120.45.67/sedgeapi/v1/cisco-nir/api/api/telemetry/flowrules/interfaceInfo"
        ));
        // A placeholder filled with what nobody said, or the template changed: not said.
        assert!(!filled(
            "https://10.0.0.1/sedgeapi/v1/cisco-nir/api/api/telemetry/flowrules/interfaceInfo"
        ));
        assert!(!filled(
            "https://192.120.45.67/api/v1/networks/Network1/nodes/12"
        ));
        assert!(!filled(
            "https:///sedgeapi/v1/cisco-nir/api/api/telemetry/flowrules/interfaceInfo"
        ));
        let path = serde_json::json!({"type": "string", "description": "Path such as /users/{user}/repos/{repo}"});
        let evidence = Evidence::new(
            "list the repo plaincall of user ana",
            jiff::civil::date(2026, 11, 25),
        );
        assert!(filled_template(
            &serde_json::json!("/users/ana/repos/plaincall"),
            &path,
            &evidence
        ));
        assert!(!filled_template(
            &serde_json::json!("/users/bob/repos/plaincall"),
            &path,
            &evidence
        ));
    }

    #[test]
    fn a_date_in_the_layout_its_field_describes() {
        let evidence = Evidence::new(
            "Book a hotel in Paris from July 10, 2022 to July 20, 2022.",
            jiff::civil::date(2026, 11, 25),
        );
        let kept = |value: &str, description: &str| {
            let schema = serde_json::json!({"type": "string", "description": description});
            let json = Value::String(value.to_owned());
            let leaf = Leaf {
                value: &json,
                key: "from_date",
                schema: &schema,
            };
            string(value, &leaf, &evidence, Rules::default()).is_some()
        };
        assert!(kept("07-10-2022", "The format is MM-DD-YYYY."));
        assert!(!kept("07-10-2022", "The format is DD-MM-YYYY."));
        assert!(kept("10/07/2022", "in DD/MM/YYYY"));
        // No layout named: either reading.
        assert!(kept("10.07.2022", "The start date."));
        assert!(!kept("07-11-2022", "The format is MM-DD-YYYY."));
        assert!(!kept("07-10-2023", "The start date."));
    }

    #[test]
    fn codes_and_locales() {
        assert!(is_code("GB") && is_code("eur") && is_code("en-GB") && is_code("pt_BR"));
        assert!(!is_code("GBPX") && !is_code("e") && !is_code("12"));
    }

    #[test]
    fn values_the_description_gives_for_a_said_word() {
        let trace_in = |text: &str, value: Value, description: &str| {
            let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
            let schema = serde_json::json!({"type": "integer", "description": description});
            let leaf = Leaf {
                value: &value,
                schema: &schema,
                key: "province_id",
            };
            trace(&leaf, &evidence, Rules::default())
        };
        let ids = "The province: 1 for Bangkok, 2 for Chiang Mai, 3 for Chonburi.";
        let text = "a housekeeper in Chonburi Province";
        assert_eq!(trace_in(text, serde_json::json!(3), ids), Rule::Schema);
        assert_eq!(trace_in(text, serde_json::json!(1), ids), Rule::Unsaid);
        assert_eq!(
            trace_in(text, serde_json::json!(3), "Chonburi = 3, Bangkok = 1"),
            Rule::Schema
        );
        assert_eq!(
            trace_in(
                "in Bangkok",
                serde_json::json!(3),
                "Chonburi = 3, Bangkok = 1"
            ),
            Rule::Unsaid
        );
    }

    #[test]
    fn a_language_code_only_as_a_function_word_is_not_said() {
        let said = |text: &str, key: &str, value: &str| {
            let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
            let schema = serde_json::json!({"type": "string"});
            let value = Value::String(value.into());
            let leaf = Leaf {
                value: &value,
                schema: &schema,
                key,
            };
            trace(&leaf, &evidence, Rules::default()) != Rule::Unsaid
        };
        let text = "Traduce este texto de inglés a francés.";
        assert!(!said(text, "source_language", "de"));
        assert!(said(text, "source_language", "en"));
        // A code the user wrote alone is theirs; short words of other fields are too.
        assert!(said(
            "Cambia el idioma de la app a en, por favor",
            "language",
            "en"
        ));
        assert!(said("Turn the kitchen lights off please", "state", "off"));
        assert!(said("Turn the volume up", "direction", "up"));
        assert!(said("Mach das Licht an", "state", "an"));
        assert!(said("Show all my orders", "filter", "all"));
    }

    #[test]
    fn short_codes_need_their_capitals() {
        let said = |text: &str, value: &str| {
            let evidence = Evidence::new(text, jiff::civil::date(2026, 11, 25));
            let schema = serde_json::json!({});
            let value = Value::String(value.into());
            let leaf = Leaf {
                value: &value,
                schema: &schema,
                key: "code",
            };
            trace(&leaf, &evidence, Rules::default())
        };
        assert_eq!(
            said("Es urgente: revisa mi consumo de datos.", "ES"),
            Rule::Unsaid
        );
        assert_eq!(said("ship to the US please", "US"), Rule::Verbatim);
        assert_eq!(said("my data usage", "US"), Rule::Unsaid);
        assert_eq!(said("invite ana and bruno", "Ana"), Rule::Verbatim);
        // An identifier keeps the joiners the user wrote; a code may change its spaces.
        assert_eq!(said("restart db-prod-2 now", "db_prod_2"), Rule::Unsaid);
        assert_eq!(said("restart db-prod-2 now", "db-prod-2"), Rule::Verbatim);
        assert_eq!(said("log in as m.dupont", "mdupont"), Rule::Unsaid);
        assert_eq!(
            said(
                "appelle le zéro six, douze, trente-quatre, cinquante-six, soixante-dix-huit",
                "0612345678"
            ),
            Rule::Digits
        );
        assert_eq!(
            said("mi pedido es siete, cuatro, cuatro, nueve", "7449"),
            Rule::Digits
        );
        assert_eq!(
            said("mi pedido es siete, cuatro, cuatro, nueve", "74491"),
            Rule::Unsaid
        );
        assert_eq!(
            said("seven apples and two pears, four", "724"),
            Rule::Unsaid
        );
        // A digit's own word, where a number reader sees an article; groups joined by
        // hyphens; a two-digit group.
        for (text, digits) in [
            (
                "Chiama il tre tre tre, uno due tre, quattro cinque sei sette.",
                "3331234567",
            ),
            (
                "Liga pro onze, nove oito sete seis cinco, quatro três dois um.",
                "11987654321",
            ),
            (
                "Ruf die Null-Eins-Sieben-Eins, vier-fünf-sechs, sieben-acht-neun an.",
                "0171456789",
            ),
            ("Meine Kundennummer ist 40 22 17 – 9.", "4022179"),
        ] {
            assert_eq!(said(text, digits), Rule::Digits, "{text}");
        }
        assert_eq!(said("una mesa para dos, tres horas", "123"), Rule::Unsaid);
        assert_eq!(said("una mesa para dos, tres horas", "23"), Rule::Unsaid);
        assert_eq!(said("log in as m.dupont", "m.dupont"), Rule::Verbatim);
        assert_eq!(said("my code is abc 123", "ABC-123"), Rule::Verbatim);
    }

    #[test]
    fn time_zones_by_their_city() {
        assert_eq!(
            time_zone_city("America/New_York").as_deref(),
            Some("New York")
        );
        assert_eq!(time_zone_city("Europe/London").as_deref(), Some("London"));
        assert_eq!(time_zone_city("Mars/Olympus_Mons"), None);
        assert_eq!(time_zone_city("data/cars.csv"), None);
        let said = |text: &str, zone: &str| {
            named_by_part(zone, &Evidence::new(text, jiff::civil::date(2026, 11, 25)))
        };
        assert!(said(
            "Stell die Zeitzone auf Berliner Zeit.",
            "Europe/Berlin"
        ));
        assert!(said("meeting at 9, London time", "Europe/London"));
        assert!(!said(
            "Stell die Zeitzone auf Berliner Zeit.",
            "Europe/Paris"
        ));
        assert!(!said("the Berlin Wall", "Europe/Paris"));
    }

    #[test]
    fn media_types_by_their_subtype() {
        assert_eq!(media_subtype("application/json"), Some("json"));
        assert_eq!(media_subtype("application/vnd.api+json"), Some("json"));
        assert_eq!(media_subtype("text/csv; charset=utf-8"), Some("csv"));
        assert_eq!(media_subtype("/etc/passwd"), None);
        assert_eq!(media_subtype("notes/final.txt"), None);
    }

    #[test]
    fn clocks_and_date_times() {
        assert_eq!(clock_of("09:30"), Some((9, 30)));
        assert_eq!(clock_of("7:05 PM"), Some((19, 5)));
        assert_eq!(clock_of("12:00 am"), Some((0, 0)));
        assert_eq!(clock_of("25:00"), None);
        assert_eq!(clock_of("notes"), None);
        assert_eq!(time_part("2026-11-25T09:00:00+01:00"), Some((9, 0)));
        assert_eq!(time_part("2026-11-25 18:45"), Some((18, 45)));
        assert_eq!(time_part("2026-11-25"), None);
    }

    #[test]
    fn switched_off_rules_are_off() {
        let rules = Rules::without(&[Rule::Time, Rule::Choice]);
        assert!(!rules.on(Rule::Time) && !rules.on(Rule::Choice) && rules.on(Rule::Date));
        // Every rule a configuration names is one that can be switched off, under its name.
        for rule in Rule::SWITCHABLE {
            let named = serde_json::from_value::<GroundingRule>(serde_json::json!(rule.name()));
            assert_eq!(named.ok().map(Rule::from), Some(rule));
        }
    }

    #[test]
    fn a_number_read_in_one_unit_fits_no_field_in_another() {
        let int = serde_json::json!({"type": "integer"});
        // Money is no count of things.
        let batteries = "Order 4 packs of AA batteries, they're $12 each on the site";
        assert!(!number_kept(batteries, "quantity", int.clone(), 12.0));
        assert!(number_kept(batteries, "quantity", int.clone(), 4.0));
        assert!(number_kept(batteries, "unit_price", int.clone(), 12.0));
        // A percentage is no energy, but fits a field with no unit.
        let kwh = serde_json::json!({"type": "number", "description": "Ziel-Ladestand in kWh"});
        assert!(!number_kept(
            "Lad das Auto bis 80 Prozent",
            "target_kwh",
            kwh,
            80.0
        ));
        assert!(number_kept(
            "Lad das Auto bis 80 Prozent",
            "target",
            int.clone(),
            80.0
        ));
        assert!(number_kept(
            "charge it to 60 kWh",
            "target_kwh",
            int.clone(),
            60.0
        ));
        // A field's description in degrees of a scale asks for that scale.
        let fahrenheit = serde_json::json!({"type": "number", "description": "Temperatura en grados Fahrenheit"});
        assert!(!number_kept(
            "Pon la calefacción a 21 grados",
            "temperature_f",
            fahrenheit.clone(),
            21.0
        ));
        assert!(number_kept(
            "a 70 grados Fahrenheit",
            "temperature_f",
            fahrenheit,
            70.0
        ));
        // Years are no months, as written.
        let years = "l'abbonamento da 9,99 al mese per 2 anni";
        assert!(!number_kept(years, "duration_months", int.clone(), 2.0));
        assert!(number_kept(years, "duration_months", int, 24.0));
    }

    #[test]
    fn a_web_address_or_a_time_zone_said_another_way() {
        let kept = |text: &str, key: &str, value: &str| {
            string_kept(text, key, serde_json::json!({"type": "string"}), value)
        };
        let site = "Acessa o site www.correios.com.br/rastreamento";
        assert!(kept(
            site,
            "url",
            "https://www.correios.com.br/rastreamento"
        ));
        assert!(!kept(site, "url", "https://www.correios.com.br/rastreio"));
        assert!(kept(
            "open correios.com.br",
            "url",
            "https://correios.com.br"
        ));
        assert!(!kept(
            "open correios.com.br",
            "url",
            "https://www.correios.com.br"
        ));
        assert!(kept(
            "Stell die Zeitzone auf Wien um",
            "timezone",
            "Europe/Vienna"
        ));
        assert!(!kept(
            "Stell die Zeitzone auf Wien um",
            "timezone",
            "Europe/Berlin"
        ));
        assert!(kept("pon la hora de Lisboa", "timezone", "Europe/Lisbon"));
    }

    #[test]
    fn the_speaker_joined_to_a_count_of_people() {
        let int = serde_json::json!({"type": "integer"});
        let kids = "a table tonight at 7 for me and my two kids";
        assert!(number_kept(kids, "party_size", int.clone(), 3.0));
        assert!(!number_kept(kids, "party_size", int.clone(), 2.0));
        // A field that counts only the children takes the children's count.
        assert!(number_kept(kids, "children", int.clone(), 2.0));
        assert!(number_kept(
            "una mesa para mí y mis dos hijos",
            "guests",
            int.clone(),
            3.0
        ));
        assert!(!number_kept(
            "table for me and 4 friends",
            "guests",
            int.clone(),
            4.0
        ));
        // No speaker joined: the count is the party.
        assert!(number_kept(
            "table for my 4 friends",
            "guests",
            int.clone(),
            4.0
        ));
        assert!(!number_kept(
            "table for my 4 friends",
            "guests",
            int.clone(),
            5.0
        ));
        // A plus sign joins as "plus" does; "both" counts two.
        let plus = "need a table for me + 3 coworkers tmrw night";
        assert!(number_kept(plus, "party_size", int.clone(), 4.0));
        assert!(!number_kept(plus, "party_size", int.clone(), 3.0));
        let both = "Tisch für meine Frau, mich und die beiden Kids";
        assert!(number_kept(both, "party_size", int.clone(), 4.0));
        assert!(!number_kept(both, "party_size", int.clone(), 2.0));
        assert!(!number_kept("delete both files", "count", int, 3.0));
    }

    #[test]
    fn a_courtesy_after_a_number_is_nothing_it_counts() {
        let celsius =
            serde_json::json!({"type": "number", "description": "Target temperature in Celsius"});
        for text in [
            "set the thermostat to 21 pls its freezing in here",
            "pon el aire a 21 porfa",
            "mets le chauffage à 21 stp",
        ] {
            assert!(
                number_kept(text, "target_temp_c", celsius.clone(), 21.0),
                "{text}"
            );
        }
        // A noun after it still counts something else.
        assert!(!number_kept(
            "set the thermostat for 21 coworkers",
            "target_temp_c",
            celsius,
            21.0
        ));
    }

    #[test]
    fn a_number_in_a_name_an_hour_or_of_pages_is_no_count() {
        let int = serde_json::json!({"type": "integer", "minimum": 1});
        // Joined to a word: part of a name, for a field that takes one.
        let build = "Lance le build sur la branche release-4 avec les tests";
        assert!(!number_kept(build, "parallel_jobs", int.clone(), 4.0));
        assert!(number_kept(
            "deploy release-4",
            "release_number",
            int.clone(),
            4.0
        ));
        assert!(number_kept("book room-4", "room_number", int.clone(), 4.0));
        assert!(number_kept(
            "show me the top-3 results",
            "limit",
            int.clone(),
            3.0
        ));
        assert!(number_kept(
            "book a table for Nov-25",
            "day",
            int.clone(),
            25.0
        ));
        assert!(number_kept(
            "Order an iPhone-15",
            "model",
            int.clone(),
            15.0
        ));
        assert!(number_kept(
            "We are 4 adults/2 kids",
            "children",
            int.clone(),
            2.0
        ));
        // An hour is no number of times, whatever "times" stems to.
        let repeats = serde_json::json!({"type": "integer",
            "description": "How many times the reminder repeats"});
        let pill = "Creame un recordatorio para tomar la pastilla a las 10";
        assert!(!number_kept(pill, "repeat_count", repeats.clone(), 10.0));
        assert!(number_kept(
            "remind me 3 times",
            "repeat_count",
            repeats,
            3.0
        ));
        // Pages are no copies.
        let report = "Imprime le rapport de 12 pages en recto-verso";
        assert!(!number_kept(report, "copies", int.clone(), 12.0));
        assert!(number_kept(
            "imprime 12 copies du rapport",
            "copies",
            int.clone(),
            12.0
        ));
        assert!(number_kept(report, "page_count", int.clone(), 12.0));
        // A number of another thing where the field's own thing is counted too.
        let crates = serde_json::json!({"type": "integer", "description": "Anzahl Kisten"});
        let water = "bestell 3 Kisten Wasser, je 12 Flaschen, stilles bitte";
        assert!(!number_kept(water, "quantity", crates.clone(), 12.0));
        assert!(number_kept(water, "quantity", crates, 3.0));
        assert!(number_kept("3 pizzas and 2 cokes", "quantity", int, 2.0));
    }

    #[test]
    fn a_measure_in_units_is_no_count_of_another_thing() {
        // BFCL's multiple_0: "three sides" counts the field's noun, and "5 units" measures it.
        let side = || serde_json::json!({"type": "integer", "description": "The length of first side of the triangle."});
        let triangle = "Can I find the dimensions and properties of a triangle, if I know its \
                        three sides are 5 units, 4 units and 3 units long?";
        assert!(number_kept(triangle, "side1", side(), 5.0));
        assert!(number_kept(triangle, "side2", side(), 4.0));
        assert!(!number_kept(triangle, "side1", side(), 7.0));
    }

    #[test]
    fn a_weight_lost_is_no_weight() {
        let number = || serde_json::json!({"type": "number"});
        let lost = "Ich habe 5 Kilo abgenommen, trag mein neues Gewicht ein.";
        assert!(!number_kept(lost, "weight_kg", number(), 5.0));
        assert!(number_kept(lost, "weight_lost_kg", number(), 5.0));
        let both = "I weigh 80 kg now, I lost 5 kg";
        assert!(number_kept(both, "weight_kg", number(), 80.0));
        assert!(!number_kept(both, "weight_kg", number(), 5.0));
        // Things taken are no weight changed: "j'ai pris 2 billets".
        assert!(number_kept(
            "j'ai pris 2 billets pour samedi",
            "tickets",
            number(),
            2.0
        ));
    }

    #[test]
    fn a_reminder_a_duration_before_an_event_is_not_at_the_event() {
        let time = || serde_json::json!({"type": "string", "format": "time"});
        let yoga = "Le cours de yoga commence à 18 h, rappelle-moi une demi-heure avant.";
        assert!(!string_kept(yoga, "reminder_time", time(), "18:00"));
        assert!(string_kept(yoga, "reminder_time", time(), "17:30"));
        // The event's own time, for the event.
        assert!(string_kept(yoga, "start_time", time(), "18:00"));
        // No duration counted from it: a reminder at the time said.
        assert!(string_kept(
            "Remind me at 18:00 about yoga",
            "reminder_time",
            time(),
            "18:00"
        ));
    }

    #[test]
    fn a_locales_region_named_as_a_country() {
        let kept = |text: &str, value: &str| {
            let schema = serde_json::json!({"type": "string", "description": "BCP 47 locale"});
            string_kept(text, "locale", schema, value)
        };
        let brazilian = "Set my display language to Portuguese, the Brazilian one";
        assert!(kept(brazilian, "pt-BR"));
        assert!(!kept(brazilian, "pt-PT"));
        // A language's name alone gives its country.
        assert!(kept("Set my display language to Portuguese", "pt-PT"));
        assert!(kept("Spanish as spoken in Mexico", "es-MX"));
        assert!(!kept("Spanish as spoken in Mexico", "es-ES"));
    }

    #[test]
    fn counts_of_people_of_two_classes_add_up() {
        let int = serde_json::json!({"type": "integer"});
        let table = "une table pour deux adultes et trois enfants ce soir svp";
        assert!(number_kept(table, "party_size", int.clone(), 5.0));
        assert!(!number_kept(table, "party_size", int.clone(), 3.0));
        assert!(number_kept(table, "children", int.clone(), 3.0));
        assert!(!number_kept(table, "children", int.clone(), 5.0));
        // Rooms are no people.
        assert!(!number_kept(
            "2 adults, 3 rooms",
            "guests",
            int.clone(),
            5.0
        ));
        // The speakers counted, then others: "nous deux et nos trois enfants".
        for text in [
            "Réserve pour nous deux et nos trois enfants au resto ce soir",
            "Book for the two of us and our three kids tonight",
            "Reserva para nosotros dos y nuestros tres hijos",
        ] {
            assert!(number_kept(text, "party_size", int.clone(), 5.0), "{text}");
            assert!(!number_kept(text, "party_size", int.clone(), 3.0), "{text}");
        }
        // "nos" is Portuguese "in the" and French "our": no speakers counted.
        for (text, party) in [
            ("Mesa para 4 pessoas nos 2 dias do festival", 4.0),
            (
                "Une table pour 6 personnes, on vient avec nos 2 poussettes",
                6.0,
            ),
        ] {
            assert!(
                number_kept(text, "party_size", int.clone(), party),
                "{text}"
            );
        }
        // The speakers and a count of things make no party.
        assert!(!number_kept(
            "nous deux et trois valises",
            "party_size",
            int,
            5.0
        ));
    }

    #[test]
    fn an_age_or_a_floor_is_no_count() {
        let int = serde_json::json!({"type": "integer"});
        let gym = "ich bin 34 und will mich im Fitnessstudio anmelden";
        assert!(!number_kept(gym, "sessions", int.clone(), 34.0));
        assert!(number_kept(gym, "age", int.clone(), 34.0));
        assert!(!number_kept(
            "cumple 60 y vamos los de siempre",
            "party_size",
            int.clone(),
            60.0
        ));
        // A measure of a thing is no count of it: "due litri" is no 2 bottles.
        let bottles = serde_json::json!({"type": "integer", "description": "number of bottles"});
        let milk = "compra il latte, quello da due litri, una bottiglia sola";
        assert!(!number_kept(milk, "quantity", bottles.clone(), 2.0));
        assert!(number_kept(
            "buy 2 bottles of milk",
            "quantity",
            bottles,
            2.0
        ));
        // "número de cuenta" is an account's number, no count.
        let account = serde_json::json!({
            "type": "number",
            "description": "Cantidad a enviar al número de cuenta"
        });
        assert!(number_kept(
            "envía 50 euros a Marta",
            "amount",
            account,
            50.0
        ));
        assert!(number_kept(
            "buy the 2 liter milk",
            "quantity",
            int.clone(),
            2.0
        ));
        let oma = "überweis Oma 50 Euro zum Geburtstag, sie wird 80";
        assert!(!number_kept(oma, "amount", int.clone(), 80.0));
        assert!(number_kept(oma, "amount", int.clone(), 50.0));
        // "wird" with a unit after it is no age.
        assert!(number_kept(
            "die Lieferung wird 3 Tage dauern, bestell 3 Stück",
            "quantity",
            int.clone(),
            3.0
        ));
        // A number after "I am" with a unit is no age.
        assert!(number_kept(
            "I am 2 minutes away, 2 coffees",
            "quantity",
            int.clone(),
            2.0
        ));
        let floor = "wir wohnen im 3. Stock, bitte 2 Kisten Mineralwasser liefern";
        assert!(!number_kept(floor, "crates", int.clone(), 3.0));
        assert!(number_kept(floor, "crates", int.clone(), 2.0));
        assert!(number_kept(floor, "floor", int, 3.0));
    }
}
