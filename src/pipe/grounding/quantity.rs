//! Recognizer `quantity`: the values a number takes in the other units of its dimension, when
//! a unit is written right next to it ("5 m", "5m", "5-minute", "cinco metros", "15%",
//! "$5", "2 Mio. Euro"), in English, Spanish, French, German, Portuguese and Italian. "5 km"
//! is also 5000 m and 500000 cm; "2 hours" is 120 minutes; "15%" is 0.15; "$5" is 500 cents.
//! Dimensions: length, mass, durations (and months and years), data sizes (decimal and
//! binary), volume, percent, money (and cents); a temperature gives its number unconverted.
//! Multipliers only as words or their suffix ("5k", "2 million", "3bn", "2 dozen"); a lone
//! "m" is metres or minutes, never a million (only "$2m", after a currency sign). Phrases:
//! "half an hour", "a quarter of an hour", "an hour and a half" and their kin.
//!
//! Refused: a number with no unit next to it (a bare 5 is the `number` recognizer's), a unit
//! a word away from its number, a rate ("50 km/h": no 50000 m), an area or a volume of a
//! length unit ("5 m²", "5 metros cuadrados"), and ordinals. Nights are counted, not
//! converted ("2 nights" are no 48 hours). The tokens carry no letter case, so "2M" reads as
//! "2m": 2 metres or 2 minutes, never two million.
//!
//! A number said with a unit is bound to it ([`super::facts::Role::Unit`]): it traces a field
//! about its dimension, in the unit the field asks for ([`traces`], [`fits_as_written`]):
//! "10 km" is `distance_m: 10000`, never `distance_m: 10`; "two nights" no `guests: 2`.

use super::facts::{close, Context, Facts, Role};
use super::tokens::{Kind, Token};

/// What a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dim {
    /// Base: the metre.
    Length,
    /// Base: the gram.
    Mass,
    /// Base: the second.
    Time,
    /// Base: the month (a year is 12).
    Calendar,
    /// Base: the byte.
    Data,
    /// Base: the bit (per second: a line's speed is said in bits).
    Bits,
    /// Base: the litre.
    Volume,
    /// Base: the kilowatt (an engine's "65 PS" is 47.8 kW, no 65).
    Power,
    /// Base: the kilowatt-hour (a battery's charge, a meter's reading).
    Energy,
    Percent,
    /// Said, not converted: 20 °C is 20 and no 68.
    Temperature,
    /// Base: the currency's unit; its cents are also said.
    Money,
    /// Base: the cent.
    Cents,
    /// Nights of a stay: counted, not converted ("two nights" are no 48 hours).
    Stay,
    /// A number made by a multiplier and no unit ("5k", "a dozen"): fits any field.
    Count,
    /// A rate or an area ("100 km/h", "5 m²"): not converted; fits a field about one.
    Rate,
}

use Dim::{
    Bits, Calendar, Cents, Count, Data, Energy, Length, Mass, Money, Percent, Power, Rate, Stay,
    Temperature, Time, Volume,
};

/// The scales of a temperature, as its reading's factor: no scale is converted by a factor.
const CELSIUS: f64 = 1.0;
const FAHRENHEIT: f64 = 2.0;
/// Degrees of no scale said.
const DEGREES: f64 = 0.0;

/// A temperature `value` read on `from`, on the scale `to`, when both are known.
fn temperature(value: f64, from: f64, to: f64) -> Option<f64> {
    match (from, to) {
        (a, b) if a == b && a != DEGREES => Some(value),
        (CELSIUS, FAHRENHEIT) => Some(value * 9.0 / 5.0 + 32.0),
        (FAHRENHEIT, CELSIUS) => Some((value - 32.0) * 5.0 / 9.0),
        _ => None,
    }
}

/// `value` is `exact` as written: equal, or `exact` rounded to as many decimals as `value`
/// has and within 1% of it ("6.2" miles for 10 km, 177 °C for 350 °F).
fn as_written(exact: f64, value: f64) -> bool {
    if close(exact, value) {
        return true;
    }
    let decimals = value
        .to_string()
        .split_once('.')
        .map_or(0, |(_, d)| d.len().min(6));
    let scale = 10f64.powi(decimals as i32);
    // Rounded, and close: "6" miles is no reading of 10 km (6.21), "177" is of 176.7 °C.
    close((exact * scale).round() / scale, value) && (exact - value).abs() <= exact.abs() * 0.01
}

/// A number said with its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    dim: Dim,
    /// As written, multipliers applied ("2 Mio." is 2000000).
    value: f64,
    /// Base units in one of the unit written.
    factor: f64,
    /// The token its number starts at (none for a phrase: "half an hour").
    start: Option<usize>,
}

impl Quantity {
    /// The values it takes in every unit of its dimension: "5 km" is 5000 m and 500000 cm.
    fn values(&self) -> Vec<f64> {
        let mut out = Vec::new();
        emit_values(self.value, (self.dim, self.factor), &mut out);
        out
    }
}

/// Words of a field about a length.
#[rustfmt::skip]
const LENGTH_SUBJECTS: &[&str] = &[
    "length", "distance", "height", "width", "depth", "size", "radius", "diameter", "long", "tall",
    "far", "range", "elevation", "altitude", "perimeter", "span",
];

/// Words of a field about a mass.
const MASS_SUBJECTS: &[&str] = &["weight", "mass", "heavy", "load", "payload"];

/// Words of a field about a duration or a calendar span.
#[rustfmt::skip]
const DURATION_SUBJECTS: &[&str] = &[
    "duration", "time", "timeout", "delay", "interval", "wait", "period", "length", "ttl", "age",
    "expiry", "expire", "expires", "expiration", "runtime", "elapsed", "lifetime", "retention",
    "term", "tenure", "frequency", "every", "cooldown", "window", "lead", "notice", "old", "long",
    "span",
];

/// Words of a field about a data size.
#[rustfmt::skip]
const DATA_SUBJECTS: &[&str] = &[
    "size", "storage", "memory", "disk", "quota", "capacity", "space", "limit", "max", "bandwidth",
    "volume", "file", "upload",
];

/// Words of a field about bits, or bits per second.
#[rustfmt::skip]
const BITS_SUBJECTS: &[&str] = &[
    "bitrate", "bandwidth", "speed", "throughput", "rate", "debit", "velocidad", "velocidade",
    "velocita", "geschwindigkeit", "datenrate", "tasa", "taxa", "upload", "download", "limit",
];

/// Words of a field about a volume.
const VOLUME_SUBJECTS: &[&str] = &["volume", "capacity", "amount", "quantity"];

/// Words of a field about power.
const POWER_SUBJECTS: &[&str] = &[
    "power",
    "output",
    "horsepower",
    "leistung",
    "potencia",
    "puissance",
    "potenza",
];

/// Words of a field about energy.
#[rustfmt::skip]
const ENERGY_SUBJECTS: &[&str] = &[
    "energy", "consumption", "usage", "energia", "energie", "verbrauch", "consumo",
];

/// Words of a field about a percentage.
#[rustfmt::skip]
const PERCENT_SUBJECTS: &[&str] = &[
    "percent", "percentage", "rate", "ratio", "share", "discount", "tax", "interest", "probability",
    "fraction", "pct", "threshold", "tip", "growth", "return", "yield", "margin", "usage",
    "utilization", "load",
];

/// Words of a field about a temperature.
#[rustfmt::skip]
const TEMPERATURE_SUBJECTS: &[&str] = &[
    "temperature", "temp", "degree", "degrees", "heat", "setpoint", "celsius", "fahrenheit",
];

/// Words of a field about money.
#[rustfmt::skip]
const MONEY_SUBJECTS: &[&str] = &[
    "price", "amount", "cost", "budget", "fee", "total", "value", "salary", "payment", "balance",
    "investment", "principal", "money", "sum", "income", "deposit", "loan", "spend", "fare", "rent",
    "charge", "bill", "tip", "fund", "funds", "cash", "revenue", "worth", "pay", "paid", "limit",
    "max", "min",
];

/// Words of a field about the nights of a stay.
const STAY_SUBJECTS: &[&str] = &["night", "nights", "duration", "length"];

/// Words of a field about a rate or an area.
#[rustfmt::skip]
const RATE_SUBJECTS: &[&str] = &[
    "speed", "rate", "velocity", "pace", "throughput", "bandwidth", "flow", "area", "surface",
    "per",
];

/// Words of a field's name or description that speak of a dimension: a number said with a
/// unit traces a field about that, in that unit.
fn subjects(dim: Dim) -> &'static [&'static str] {
    match dim {
        Length => LENGTH_SUBJECTS,
        Mass => MASS_SUBJECTS,
        Time | Calendar => DURATION_SUBJECTS,
        Data => DATA_SUBJECTS,
        Bits => BITS_SUBJECTS,
        Volume => VOLUME_SUBJECTS,
        Power => POWER_SUBJECTS,
        Energy => ENERGY_SUBJECTS,
        Percent => PERCENT_SUBJECTS,
        Temperature => TEMPERATURE_SUBJECTS,
        Money | Cents => MONEY_SUBJECTS,
        Stay => STAY_SUBJECTS,
        Rate => RATE_SUBJECTS,
        Count => &[],
    }
}

/// What a field is about, from its name and description (folded words).
pub struct Field<'a> {
    /// Words of its name ("distance", "m" of `distance_m`).
    pub name: &'a [String],
    /// Words of its description.
    pub description: &'a [String],
}

impl Field<'_> {
    /// The unit the field asks for: a unit word of its name (symbols too: `weight_g`) or of its
    /// description ("Duration in minutes").
    fn unit(&self) -> Vec<Reading> {
        // "min" first is a minimum (`min_age`), last a unit (`timeout_min`).
        let last = self.name.len().saturating_sub(1);
        // A word after "per" names a rate's period, not the field's unit (`lessons_per_month`).
        let name = self
            .name
            .iter()
            .enumerate()
            // A name that is only "min" or "max" is a bound (`budget.min`), no minutes.
            .filter(|(i, w)| {
                (*i == last && last > 0) || !matches!(w.as_str(), "min" | "max" | "m" | "s")
            })
            .filter(|(i, _)| *i == 0 || self.name[i - 1] != "per")
            // "in" before another word is a preposition (`finish_in_minutes`), no inches.
            .filter(|(i, w)| *i == last || w.as_str() != "in")
            .flat_map(|(_, w)| readings(w, true).iter());
        // A letter alone in a description is no unit: the "s" of "provider's". A degree
        // before its scale is that scale's ("grados Fahrenheit").
        let description = self
            .description
            .iter()
            .enumerate()
            .filter(|(_, w)| w.chars().count() > 1)
            .flat_map(|(i, w)| {
                match self.description.get(i + 1) {
                    Some(next) if !two_word_readings(w, next).is_empty() => &[],
                    _ => readings(w, false),
                }
                .iter()
            });
        let mut found: Vec<Reading> = name.chain(description).copied().collect();
        found.retain(|(dim, _)| !matches!(dim, Count));
        // "m" is metres or minutes: the readings whose subject the field speaks of.
        let dims: Vec<Dim> = found.iter().map(|(dim, _)| *dim).collect();
        if dims.iter().any(|d| *d != dims[0]) {
            let spoken: Vec<Reading> = found
                .iter()
                .copied()
                .filter(|(dim, _)| self.speaks_of(*dim, false))
                .collect();
            if !spoken.is_empty() {
                return spoken;
            }
        }
        // The first unit word's readings ("GB": of 1000 and of 1024).
        found.first().map_or(Vec::new(), |(first, _)| {
            found.iter().copied().filter(|(d, _)| d == first).collect()
        })
    }

    /// Whether the field asks for a unit (`amount` "in euros", `weight_g`): it takes a
    /// measure, not a count of things.
    pub fn measured(&self) -> bool {
        !self.unit().is_empty()
    }

    /// Whether the field's description counts things that are no unit: "number of bottles",
    /// "how many boxes", "nombre de colis" (a measure of them, "2 litres", is no count).
    fn counts_things(&self) -> bool {
        // "número de cuenta" is an account's number: outside English and German, a count's
        // noun is plural ("número de botellas", "nombre de colis", "numero di bottiglie").
        let plural = |w: &str| w.ends_with(['s', 'x', 'i', 'e']);
        self.description.windows(3).any(|w| {
            let counting = match (w[0].as_str(), w[1].as_str()) {
                ("number", "of") | ("how", "many") | ("anzahl", "der") => true,
                ("numero", "de" | "di") | ("nombre", "de") => plural(&w[2]),
                _ => false,
            };
            counting && !is_unit(&w[2])
        })
    }

    /// The field speaks of `dim`: a word of its subject, or (`units`) a unit of it.
    fn speaks_of(&self, dim: Dim, units: bool) -> bool {
        // Not the period of a rate (`lessons_per_month` speaks of no span of months).
        let name = || {
            self.name
                .iter()
                .enumerate()
                .filter(|(i, _)| *i == 0 || self.name[i - 1] != "per")
                .map(|(_, w)| w)
        };
        let words = || name().chain(self.description);
        words().any(|w| {
            subjects(dim).contains(&w.as_str())
                || super::tokens::stem(w) != *w
                    && subjects(dim).contains(&super::tokens::stem(w).as_str())
        }) || (units && words().any(|w| readings(w, false).iter().any(|(d, _)| same(*d, dim))))
    }
}

/// Whether `word` (folded) is a unit or makes one an area ("kg", "euros", "Stunden", "sq.ft").
pub fn is_unit(word: &str) -> bool {
    // "sq.ft" is one word of two units' parts.
    word.split('.')
        .any(|part| !readings(part, false).is_empty() || SQUARED.contains(&part) || part == "sq")
}

/// Durations and calendar spans are one subject.
fn same(a: Dim, b: Dim) -> bool {
    a == b
        || matches!(
            (a, b),
            (Time, Calendar) | (Calendar, Time) | (Money, Cents) | (Cents, Money)
        )
}

/// Rule `quantity`: `value` is a quantity said, in the unit the field asks for; a field that
/// asks for none takes it in any unit of a dimension it speaks of.
pub fn traces(value: f64, field: &Field, facts: &Facts) -> bool {
    let units = field.unit();
    // What a thing is at now, or an amount to change it by, is no value to set it to.
    // Nor is the weather's temperature one to set a heating to.
    let setting = super::current::a_setting(field.name.iter().chain(field.description));
    let current = |q: &Quantity| {
        q.start.is_some_and(|s| match facts.roles.get(&s) {
            Some(super::facts::Role::Current | super::facts::Role::Change) => true,
            Some(super::facts::Role::Outdoor) => setting,
            _ => false,
        })
    };
    facts.quantities.iter().filter(|q| !current(q)).any(|q| {
        if units.is_empty() {
            // A percentage is its number or its fraction, whatever the field is called
            // ("un enganche del 20%" for `enganche: 0.2`).
            // A field that counts things takes no measure of them ("number of bottles" is
            // no "2 litres").
            let measure_fits = field.speaks_of(q.dim, true) && !field.counts_things();
            return (matches!(q.dim, Count | Percent) || measure_fits)
                && q.values().iter().any(|v| close(*v, value));
        }
        units.iter().any(|(dim, factor)| {
            if !same(*dim, q.dim) {
                return false;
            }
            if *dim == Temperature {
                return temperature(q.value, q.factor, *factor)
                    .is_some_and(|t| as_written(t, value))
                    || (q.factor == DEGREES && close(q.value, value));
            }
            // Money and its cents share no factor: a said 50 € is 5000 in a field of cents.
            let converted = match (q.dim, *dim) {
                (Money, Cents) => q.value * 100.0,
                (Cents, Money) => q.value / 100.0,
                _ => q.value * q.factor / factor,
            };
            let mut as_asked = Vec::new();
            emit_values(converted, (*dim, 1.0), &mut as_asked);
            as_written(converted, value)
                // A field that asks for cents takes them only ("200 bucks" is no 200 there).
                || (*dim == Percent && as_asked.iter().any(|v| close(*v, value)))
        })
    })
}

/// Whether the sentence of the bare number at token `at` says a quantity in the dimension of
/// the unit `field` asks for ("40 minutos" for `duration_minutes`): the bare number beside
/// it ("el horno a 180") measures something else. Not across sentences: a correction
/// gives its number bare ("250 Euro ... es sind 205, nicht 250").
pub fn measured_elsewhere(
    field: &Field,
    (at, end): (usize, usize),
    evidence: &super::evidence::Evidence,
) -> bool {
    let units = field.unit();
    !units.is_empty()
        && evidence.facts.quantities.iter().any(|q| {
            q.dim != Count
                && units.iter().any(|(dim, _)| same(*dim, q.dim))
                && q.start.is_some_and(|start| {
                    // A range's first number takes its last one's unit ("2-3 nights"); a
                    // number joined on after one takes its unit too ("50 euros a Ana y 30 a
                    // Luis").
                    !(end..=end + 1).contains(&start)
                        && !joined(&evidence.tokens, start, at)
                        && one_sentence(&evidence.tokens, &evidence.text, start, at)
                })
        })
}

/// Whether a join ("and", "y", "und") stands between token `a` and a later token `b`, as
/// written: Italian "è" ("is") is no "e" ("and").
fn joined(tokens: &[Token], a: usize, b: usize) -> bool {
    a < b
        && tokens[a..b]
            .iter()
            .any(|t| t.kind == Kind::Word && super::words::is(super::words::JOINS, &t.lower))
}

/// Whether tokens `a` and `b` stand in one sentence: no sentence's end and no line break
/// between them.
fn one_sentence(tokens: &[Token], text: &str, a: usize, b: usize) -> bool {
    let (from, to) = (a.min(b), a.max(b));
    let (Some(first), Some(last)) = (tokens.get(from), tokens.get(to)) else {
        return false;
    };
    let ends = tokens[from..to].iter().any(|t| {
        t.kind == super::tokens::Kind::Punct && matches!(t.lower.as_str(), "." | "!" | "?")
    });
    !ends
        && !text
            .get(first.start..last.start)
            .is_some_and(|between| between.contains('\n'))
}

/// The numbers of nights said ("2 nights", "tres noches"): a stay that ends that many days
/// after it starts.
pub fn nights(facts: &Facts) -> Vec<i64> {
    facts
        .quantities
        .iter()
        .filter(|q| q.dim == Stay && q.value.fract() == 0.0 && (1.0..=366.0).contains(&q.value))
        .map(|q| q.value as i64)
        .collect()
}

/// Whether the number of quantity `index`, as written, fits `field`: a field about its
/// dimension that asks for its unit or none ("3 nights" for `nights: 3`, not `guests: 3`;
/// "10 km" for `distance_km: 10`, not `distance_m: 10`).
pub fn fits_as_written(index: usize, field: &Field, facts: &Facts) -> bool {
    let Some(start) = facts.quantities.get(index).map(|q| q.start) else {
        return true;
    };
    // "5m" is metres or minutes: either reading may fit.
    facts
        .quantities
        .iter()
        .filter(|q| q.start == start)
        .any(|q| {
            let units = field.unit();
            // A percentage fits a field with no unit ("a 20% tip"), not one in another unit:
            // "bis 80 Prozent" is no 80 kWh.
            q.dim == Count
                || (q.dim == Percent && units.iter().all(|(dim, _)| *dim == Percent))
                || if units.is_empty() {
                    field.speaks_of(q.dim, true) && !field.counts_things()
                } else {
                    units.iter().any(|(dim, factor)| {
                        // "200 bucks" as written is no 200 cents.
                        let cents_apart = matches!((*dim, q.dim), (Money, Cents) | (Cents, Money));
                        same(*dim, q.dim)
                            && !cents_apart
                            && (close(*factor, q.factor) || q.factor == DEGREES)
                    })
                }
        })
}

/// One reading of a unit: its dimension and how many base units one of it is.
type Reading = (Dim, f64);

/// The units a reading is expressed in, by dimension, in base units.
fn scale(dim: Dim) -> &'static [f64] {
    match dim {
        Length => &[0.001, 0.01, 1.0, 1000.0, 0.0254, 0.3048, 0.9144, 1609.344],
        Mass => &[0.001, 1.0, 1000.0, 1e6, 453.592_37, 28.349_523_125],
        Time => &[0.001, 1.0, 60.0, 3600.0, 86_400.0, 604_800.0],
        Calendar => &[1.0, 12.0],
        Data => &[
            1.0,
            1e3,
            1e6,
            1e9,
            1e12,
            1024.0,
            1_048_576.0,
            1_073_741_824.0,
            1_099_511_627_776.0,
        ],
        Volume => &[0.001, 0.01, 0.1, 1.0, 3.785_411_784, 1000.0],
        Power => &[0.001, 1.0, 0.745_699_872, 0.735_498_75],
        Energy => &[0.001, 1.0, 1000.0],
        Bits => &[1.0, 1e3, 1e6, 1e9],
        Percent | Temperature | Money | Cents | Stay | Count | Rate => &[1.0],
    }
}

/// The readings of a unit written as a word (folded) after a number, or (`suffix`) glued to
/// its digits. One- and two-letter symbols that are also words ("in", "d", "y", "w", "b")
/// count only as a suffix.
fn readings(word: &str, suffix: bool) -> &'static [Reading] {
    let groups: [fn(&str, bool) -> &'static [Reading]; 4] = [
        length_and_mass_readings,
        duration_readings,
        data_and_volume_readings,
        other_readings,
    ];
    groups
        .iter()
        .map(|group| group(word, suffix))
        .find(|found| !found.is_empty())
        .unwrap_or(&[])
}

/// [`readings`] of a unit of length or mass.
fn length_and_mass_readings(word: &str, suffix: bool) -> &'static [Reading] {
    match word {
        // Length.
        "mm" | "millimeter" | "millimeters" | "millimetre" | "millimetres" | "milimetro"
        | "milimetros" | "millimetro" | "millimetri" | "millimetern" => &[(Length, 0.001)],
        "cm" | "centimeter" | "centimeters" | "centimetre" | "centimetres" | "centimetro"
        | "centimetros" | "zentimeter" | "zentimetern" | "centimetri" => &[(Length, 0.01)],
        "m" => &[(Length, 1.0), (Time, 60.0)],
        "meter" | "meters" | "metre" | "metres" | "metro" | "metros" | "metri" | "mtr"
        | "metern" => &[(Length, 1.0)],
        "km" | "kms" | "kilometer" | "kilometers" | "kilometre" | "kilometres" | "kilometro"
        | "kilometros" | "quilometro" | "quilometros" | "chilometro" | "chilometri"
        | "kilometern" => &[(Length, 1000.0)],
        "inch" | "inches" | "pulgada" | "pulgadas" | "pouce" | "pouces" | "zoll" | "polegada"
        | "polegadas" | "pollice" | "pollici" => &[(Length, 0.0254)],
        "in" if suffix => &[(Length, 0.0254)],
        "ft" | "foot" | "feet" | "pie" | "pies" | "pied" | "pieds" | "fuß" | "fuss" | "pe"
        | "pes" | "piede" | "piedi" => &[(Length, 0.3048)],
        "yd" | "yds" | "yard" | "yards" | "yarda" | "yardas" | "iarda" | "iarde" => {
            &[(Length, 0.9144)]
        }
        "mi" | "mile" | "miles" | "milla" | "millas" | "milles" | "meile" | "meilen" | "milha"
        | "milhas" | "miglio" | "miglia" => &[(Length, 1609.344)],
        // Mass.
        "mg" | "milligram" | "milligrams" | "milligramme" | "milligrammes" | "miligramo"
        | "miligramos" | "milligramm" | "miligrama" | "miligramas" | "milligrammo"
        | "milligrammi" => &[(Mass, 0.001)],
        "g" | "gr" | "gram" | "grams" | "gramme" | "grammes" | "gramo" | "gramos" | "gramm"
        | "grama" | "gramas" | "grammo" | "grammi" => &[(Mass, 1.0)],
        "kg" | "kgs" | "kilo" | "kilos" | "kilogram" | "kilograms" | "kilogramme"
        | "kilogrammes" | "kilogramo" | "kilogramos" | "kilogramm" | "quilo" | "quilos"
        | "quilograma" | "quilogramas" | "chilo" | "chili" | "chilogrammo" | "chilogrammi" => {
            &[(Mass, 1000.0)]
        }
        "t" | "tonne" | "tonnes" | "ton" | "tons" | "tonelada" | "toneladas" | "tonnen"
        | "tonnellata" | "tonnellate" => &[(Mass, 1e6)],
        // Italian delis weigh in hectograms: "2 etti di prosciutto" is 200 g.
        "hg" | "etto" | "etti" | "ettogrammo" | "ettogrammi" => &[(Mass, 100.0)],
        "lb" | "lbs" => &[(Mass, 453.592_37)],
        "pound" | "pounds" | "libra" | "libras" => &[(Mass, 453.592_37), (Money, 1.0)],
        // A French or German market's pound is half a kilo ("une livre de beurre", "ein
        // Pfund Hackfleisch").
        "livre" | "livres" | "pfund" => &[(Mass, 453.592_37), (Mass, 500.0), (Money, 1.0)],
        "oz" | "ounce" | "ounces" | "onza" | "onzas" | "once" | "onces" | "unze" | "unzen"
        | "onca" | "oncas" | "oncia" => &[(Mass, 28.349_523_125)],
        _ => &[],
    }
}

/// [`readings`] of a unit of time or of the calendar.
fn duration_readings(word: &str, suffix: bool) -> &'static [Reading] {
    match word {
        // Durations.
        "ms" | "msec" | "millisecond" | "milliseconds" | "milisegundo" | "milisegundos"
        | "milliseconde" | "millisecondes" | "millisekunde" | "millisekunden" | "millisecondo"
        | "millisecondi" => &[(Time, 0.001)],
        "s" | "sec" | "secs" | "second" | "seconds" | "segundo" | "segundos" | "seconde"
        | "secondes" | "sekunde" | "sekunden" | "secondo" | "secondi" => &[(Time, 1.0)],
        // "Sek." or Swedish kronor.
        "sek" => &[(Time, 1.0), (Money, 1.0)],
        "min" | "mins" | "minute" | "minutes" | "minuto" | "minutos" | "minuten" | "minuti" => {
            &[(Time, 60.0)]
        }
        "h" | "hr" | "hrs" | "hour" | "hours" | "hora" | "horas" | "heure" | "heures" | "std"
        | "stunde" | "stunden" | "ora" | "ore" => &[(Time, 3600.0)],
        "day" | "days" | "dia" | "dias" | "jour" | "jours" | "tag" | "tage" | "tagen"
        | "giorno" | "giorni" => &[(Time, 86_400.0)],
        "d" if suffix => &[(Time, 86_400.0)],
        "wk" | "wks" | "week" | "weeks" | "semana" | "semanas" | "semaine" | "semaines"
        | "woche" | "wochen" | "settimana" | "settimane" => &[(Time, 604_800.0)],
        "w" if suffix => &[(Time, 604_800.0)],
        "month" | "months" | "mes" | "meses" | "mois" | "monat" | "monate" | "monaten" | "mese"
        | "mesi" => &[(Calendar, 1.0)],
        "yr" | "yrs" | "year" | "years" | "ano" | "anos" | "ans" | "annee" | "annees" | "jahr"
        | "jahre" | "jahren" | "anno" | "anni" => &[(Calendar, 12.0)],
        "y" if suffix => &[(Calendar, 12.0)],
        _ => &[],
    }
}

/// [`readings`] of a unit of data size or volume.
fn data_and_volume_readings(word: &str, suffix: bool) -> &'static [Reading] {
    match word {
        // Data sizes: decimal and binary readings of the decimal symbols.
        "b" if suffix => &[(Data, 1.0)],
        "byte" | "bytes" | "octet" | "octets" => &[(Data, 1.0)],
        "kb" | "kilobyte" | "kilobytes" => &[(Data, 1e3), (Data, 1024.0)],
        "mb" | "megabyte" | "megabytes" | "megas" => &[(Data, 1e6), (Data, 1_048_576.0)],
        "gb" | "gigabyte" | "gigabytes" | "gigas" | "giga" | "gig" | "gigs" => {
            &[(Data, 1e9), (Data, 1_073_741_824.0)]
        }
        "tb" | "terabyte" | "terabytes" => &[(Data, 1e12), (Data, 1_099_511_627_776.0)],
        "ko" if suffix => &[(Data, 1e3), (Data, 1024.0)],
        "mo" if suffix => &[(Data, 1e6), (Data, 1_048_576.0)],
        // "16 Go de RAM": French writes gigaoctets so, and "2 go" is no English unit.
        "go" => &[(Data, 1e9), (Data, 1_073_741_824.0)],
        "to" if suffix => &[(Data, 1e12), (Data, 1_099_511_627_776.0)],
        // Bits, and bits per second ("2 Mbit/s", "100 Mbps", "deux mégabits").
        "bit" | "bits" | "bps" => &[(Bits, 1.0)],
        "kbit" | "kbits" | "kbps" | "kilobit" | "kilobits" => &[(Bits, 1e3)],
        "mbit" | "mbits" | "mbps" | "megabit" | "megabits" => &[(Bits, 1e6)],
        "gbit" | "gbits" | "gbps" | "gigabit" | "gigabits" => &[(Bits, 1e9)],
        "kib" => &[(Data, 1024.0)],
        "mib" => &[(Data, 1_048_576.0)],
        "gib" => &[(Data, 1_073_741_824.0)],
        "tib" => &[(Data, 1_099_511_627_776.0)],
        // Volume.
        "ml" | "milliliter" | "milliliters" | "millilitre" | "millilitres" | "mililitro"
        | "mililitros" | "millilitro" | "millilitri" => &[(Volume, 0.001)],
        "cl" => &[(Volume, 0.01)],
        "dl" => &[(Volume, 0.1)],
        "l" | "liter" | "liters" | "litre" | "litres" | "litro" | "litros" | "litri" => {
            &[(Volume, 1.0)]
        }
        "gal" | "gallon" | "gallons" | "galon" | "galones" => &[(Volume, 3.785_411_784)],
        "m3" | "m³" | "cbm" => &[(Volume, 1000.0)],
        // Power: an engine's or a device's.
        "kw" | "kilowatt" | "kilowatts" | "kilovatio" | "kilovatios" => &[(Power, 1.0)],
        "hp" | "bhp" | "horsepower" => &[(Power, 0.745_699_872)],
        "ps" | "cv" | "pk" => &[(Power, 0.735_498_75)],
        // Energy.
        "wh" => &[(Energy, 0.001)],
        "kwh" | "kilowattstunde" | "kilowattstunden" | "kilowatthour" | "kilowatthours" => {
            &[(Energy, 1.0)]
        }
        "mwh" => &[(Energy, 1000.0)],
        _ => &[],
    }
}

/// [`readings`] of a percent, a temperature, money, nights or cents.
fn other_readings(word: &str, suffix: bool) -> &'static [Reading] {
    match word {
        // Percent.
        "%" | "percent" | "pct" | "prozent" | "percento" => &[(Percent, 1.0)],
        // Temperature.
        // Temperature: the factor names the scale (see `CELSIUS`, `FAHRENHEIT`, `DEGREES`).
        "c" | "°c" | "celsius" => &[(Temperature, CELSIUS)],
        "f" | "°f" | "fahrenheit" => &[(Temperature, FAHRENHEIT)],
        // Degrees of no scale: in English either; in the other five, where thermometers read
        // Celsius, Celsius.
        "°" | "º" | "degree" | "degrees" => &[(Temperature, DEGREES)],
        "grado" | "grados" | "degre" | "degres" | "grad" | "grau" | "graus" | "gradi" => {
            &[(Temperature, CELSIUS)]
        }
        // Money.
        "$" | "€" | "£" | "¥" | "₹" | "₩" | "₽" | "₺" | "₪" | "₫" | "₱" | "฿" | "dollar"
        | "dollars" | "dolar" | "dolares" | "dollaro" | "dollari" | "buck" | "bucks" | "quid"
        | "euro" | "euros" | "eur" | "usd" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "cny"
        | "inr" | "brl" | "mxn" | "nok" | "dkk" | "pln" | "zar" | "nzd" | "sgd" | "hkd"
        | "sterling" | "sterlina" | "sterline" | "yen" | "yenes" | "iene" | "yuan" | "yuanes"
        | "franc" | "francs" | "franken" | "franco" | "francos" | "franchi" | "peso" | "pesos"
        | "real" | "reais" | "reales" | "rupee" | "rupees" | "rupia" | "rupias" | "roupie"
        | "roupies" | "rupie" | "ruble" | "rubles" | "rouble" | "roubles" | "rublo" | "rublos"
        | "rubel" | "rubli" | "won" => &[(Money, 1.0)],
        "night" | "nights" | "noche" | "noches" | "nuit" | "nuits" | "nacht" | "nachte"
        | "noite" | "noites" | "notte" | "notti" => &[(Stay, 1.0)],
        "cent" | "cents" | "centimo" | "centimos" | "centime" | "centimes" | "centavo"
        | "centavos" | "centesimo" | "centesimi" | "penny" | "pence" => &[(Cents, 1.0)],
        "p" | "ct" if suffix => &[(Cents, 1.0)],
        _ => &[],
    }
}

/// Two-word units: "per cent", "por ciento", "pour cent", "por cento", "per cento".
fn two_word_readings(first: &str, second: &str) -> &'static [Reading] {
    match (first, second) {
        ("per" | "por" | "pour", "cent" | "ciento" | "cento") => &[(Percent, 1.0)],
        (
            "°" | "º" | "degree" | "degrees" | "grados" | "degres" | "grad" | "graus" | "gradi",
            "c" | "celsius",
        ) => &[(Temperature, CELSIUS)],
        (
            "°" | "º" | "degree" | "degrees" | "grados" | "degres" | "grad" | "graus" | "gradi",
            "f" | "fahrenheit",
        ) => &[(Temperature, FAHRENHEIT)],
        _ => &[],
    }
}

/// A multiplier written as a word after a number (folded), or glued to its digits.
fn multiplier(word: &str, suffix: bool, after_money_sign: bool) -> Option<f64> {
    Some(match word {
        "k" | "thousand" | "thousands" | "mil" | "mille" | "mila" | "tausend" => 1e3,
        "million" | "millions" | "millon" | "millones" | "mio" | "mn" | "mln" | "millionen"
        | "milhao" | "milhoes" | "milione" | "milioni" => 1e6,
        "billion" | "billions" | "bn" | "bln" | "milliard" | "milliards" | "milliarde"
        | "milliarden" | "mrd" | "miliardo" | "miliardi" | "bilhao" | "bilhoes" => 1e9,
        "billon" | "billones" | "billionen" | "trillion" | "trillions" => 1e12,
        "dozen" | "dozens" | "docena" | "docenas" | "douzaine" | "douzaines" | "dutzend"
        | "duzia" | "duzias" | "dozzina" | "dozzine" => 12.0,
        "dezena" | "dezenas" | "decena" | "decenas" | "dizaine" | "dizaines" | "decina"
        | "decine" => 10.0,
        // About so many, said as the count ("una ventina di palloncini", "une vingtaine").
        "vintena" | "vintenas" | "veintena" | "veintenas" | "vingtaine" | "vingtaines"
        | "ventina" | "ventine" => 20.0,
        // Not Spanish "quincena", a fortnight as often.
        "quinzaine" | "quinzaines" | "quindicina" => 15.0,
        "trentaine" | "trentena" | "treintena" | "trintena" | "trentina" => 30.0,
        // Not "quarantaine", "cuarentena", "quarentena": a quarantine as often.
        "quarantina" => 40.0,
        "cinquantaine" | "cinquantina" | "cincuentena" | "cinquentena" => 50.0,
        "centaine" | "centaines" | "centinaio" | "centinaia" | "centenar" | "centenares"
        | "centena" | "centenas" => 100.0,
        // "5m" is 5 metres or 5 minutes; "$5m" is five million.
        "m" | "mm" if after_money_sign => 1e6,
        "b" if suffix && after_money_sign => 1e9,
        _ => return None,
    })
}

/// Currency signs written before a number: "$5", "€ 20", "US$5", "R$ 30".
#[rustfmt::skip]
const MONEY_SIGNS: &[&str] = &[
    "$", "€", "£", "¥", "₹", "₩", "₽", "₺", "₪", "₫", "₱", "฿",
];

/// After a unit, the words that make it an area or a volume.
#[rustfmt::skip]
const SQUARED: &[&str] = &[
    "²", "³", "square", "squared", "cubic", "cuadrado", "cuadrados", "cubico", "cubicos", "carre",
    "carres", "cube", "cubes", "quadrat", "kubik", "quadrado", "quadrados", "quadrato", "quadrati",
    "cubo", "cubi",
];

/// "and a half" after a unit or between a number and its unit, in the six languages.
const AND_A_HALF: &[&[&str]] = &[
    &["and", "a", "half"],
    &["y", "media"],
    &["y", "medio"],
    &["et", "demie"],
    &["et", "demi"],
    &["und", "eine", "halbe"],
    &["e", "meia"],
    &["e", "meio"],
    &["e", "mezza"],
    &["e", "mezzo"],
];

/// "an hour and a quarter", "una hora y cuarto", "une heure et quart", "uma hora e um quarto".
const AND_A_QUARTER: &[&[&str]] = &[
    &["and", "a", "quarter"],
    &["y", "cuarto"],
    &["y", "un", "cuarto"],
    &["et", "quart"],
    &["et", "un", "quart"],
    &["und", "ein", "viertel"],
    &["e", "um", "quarto"],
    &["e", "un", "quarto"],
];

/// "two hours and three quarters", "dos horas y tres cuartos", "deux heures (et) trois
/// quarts", "zwei Stunden und drei Viertel", "duas horas e três quartos", "due ore e tre
/// quarti".
const AND_THREE_QUARTERS: &[&[&str]] = &[
    &["and", "three", "quarters"],
    &["y", "tres", "cuartos"],
    &["et", "trois", "quarts"],
    &["trois", "quarts"],
    &["und", "drei", "viertel"],
    &["e", "tres", "quartos"],
    &["e", "tre", "quarti"],
];

/// Words that are "one" before a unit: "an hour", "una hora", "une heure", "ein Tag".
#[rustfmt::skip]
const ARTICLES: &[&str] = &[
    "a", "an", "un", "una", "une", "ein", "eine", "einen", "einer", "um", "uma", "every", "each",
    "per", "cada", "chaque", "jede", "jeden", "jedes", "ogni",
];

/// German numbers with a half glued on: "anderthalb Stunden".
pub(super) const HALVES: &[(&str, f64)] = &[
    ("anderthalb", 1.5),
    ("eineinhalb", 1.5),
    ("zweieinhalb", 2.5),
    ("dreieinhalb", 3.5),
];

/// Words that name parts of a whole after a count of them, with how many parts make it.
#[rustfmt::skip]
const FRACTIONS: &[(&str, f64)] = &[
    ("quarter", 4.0), ("quarters", 4.0), ("cuarto", 4.0), ("cuartos", 4.0), ("quart", 4.0),
    ("quarts", 4.0), ("viertel", 4.0), ("quarto", 4.0), ("quartos", 4.0), ("quarti", 4.0),
    ("third", 3.0), ("thirds", 3.0), ("tercio", 3.0), ("tercios", 3.0), ("tiers", 3.0),
    ("drittel", 3.0), ("terco", 3.0), ("tercos", 3.0), ("terzo", 3.0), ("terzi", 3.0),
    ("fifth", 5.0), ("fifths", 5.0), ("quinto", 5.0), ("quintos", 5.0), ("cinquieme", 5.0),
    ("cinquiemes", 5.0), ("funftel", 5.0), ("quinti", 5.0),
];

/// Words between a fraction and the unit it is of: "of a", "de", "d'", "di", "eines".
#[rustfmt::skip]
const FRACTION_OF: &[&str] = &[
    "of", "a", "an", "de", "d", "du", "di", "un", "una", "uno", "um", "uma", "eines", "einer",
];

/// "And" between the hours and their minutes.
const AND: &[&str] = &["and", "y", "et", "und", "e"];

/// "Half" before a unit.
const HALF: &[&str] = &[
    "medio", "media", "meio", "meia", "mezzo", "mezza", "halbe", "halben", "halbes", "demi",
];

/// Durations said as a phrase, in minutes.
pub(super) const PHRASES: &[(&[&str], f64)] = &[
    (&["half", "an", "hour"], 30.0),
    (&["half", "hour"], 30.0),
    (&["half", "-", "hour"], 30.0),
    (&["media", "hora"], 30.0),
    (&["demi", "-", "heure"], 30.0),
    (&["demi", "heure"], 30.0),
    (&["halbe", "stunde"], 30.0),
    (&["meia", "hora"], 30.0),
    (&["meia", "-", "hora"], 30.0),
    (&["mezz", "'", "ora"], 30.0),
    (&["mezza", "ora"], 30.0),
    (&["mezzora"], 30.0),
    (&["quarter", "of", "an", "hour"], 15.0),
    (&["quarter", "hour"], 15.0),
    (&["quarter", "-", "hour"], 15.0),
    (&["cuarto", "de", "hora"], 15.0),
    (&["quart", "d", "'", "heure"], 15.0),
    (&["viertelstunde"], 15.0),
    (&["viertel", "stunde"], 15.0),
    (&["quarto", "de", "hora"], 15.0),
    (&["quarto", "d", "'", "ora"], 15.0),
    (&["three", "quarters", "of", "an", "hour"], 45.0),
    (&["tres", "cuartos", "de", "hora"], 45.0),
    (&["trois", "quarts", "d", "'", "heure"], 45.0),
    (&["dreiviertelstunde"], 45.0),
    (&["drei", "viertel", "stunde"], 45.0),
    (&["tres", "quartos", "de", "hora"], 45.0),
    (&["tre", "quarti", "d", "'", "ora"], 45.0),
    // Two weeks: "a fortnight", and the fifteen days that mean two weeks in four of the six
    // ("quinze jours", "quince días", "quinze dias", "quindici giorni"; 15 days still read too).
    (&["fortnight"], 20_160.0),
    (&["quinze", "jours"], 20_160.0),
    (&["quince", "dias"], 20_160.0),
    (&["quinze", "dias"], 20_160.0),
    (&["quindici", "giorni"], 20_160.0),
];

/// Fills [`Facts::quantities`] from the numbers [`super::numbers::read`] found, and from the
/// phrases that say a duration without digits.
pub fn read(tokens: &[Token], _context: &Context, facts: &mut Facts) {
    let mut out = Vec::new();
    read_numbers(tokens, facts, &mut out);
    read_words(tokens, facts, &mut out);
    half_dozens(tokens, &mut out);
    packs(tokens, facts, &mut out);
    marathons(tokens, &mut out);
    let mut compounds = two_unit_compounds(tokens, &out);
    compounds.extend(hours_and_minutes(tokens, facts, &out));
    compounds.extend(metres_and_centimetres(tokens, facts));
    out.extend(compounds);
    record(out, facts);
}

/// Six, said as half a dozen ("half a dozen", "media docena", "une demi-douzaine", "ein
/// halbes Dutzend", "meia dúzia", "mezza dozzina"): a word for half, then a dozen's word, an
/// article or a hyphen between them at most.
fn half_dozens(tokens: &[Token], out: &mut Vec<Quantity>) {
    for (i, token) in tokens.iter().enumerate() {
        if !(is_word(token, HALF) || is_word(token, &["half"])) {
            continue;
        }
        let mut next = i + 1;
        if tokens
            .get(next)
            .is_some_and(|t| matches!(t.folded.as_str(), "a" | "-"))
        {
            next += 1;
        }
        let dozen = tokens
            .get(next)
            .and_then(|t| multiplier(&t.folded, false, false))
            .is_some_and(|f| f == 12.0);
        if dozen {
            emit(6.0, (Count, 1.0), out);
        }
    }
}

/// What things come in by the number (folded): "two packs of six".
#[rustfmt::skip]
const CONTAINERS: &[&str] = &[
    "pack", "packs", "case", "cases", "crate", "crates", "box", "boxes", "carton", "cartons",
    "paquete", "paquetes", "caja", "cajas", "cajon", "fardo", "fardos",
    "boite", "boites", "caisse", "caisses", "lot", "lots", "paquet", "paquets",
    "kiste", "kisten", "karton", "kartons", "packung", "packungen", "packchen", "schachtel",
    "schachteln", "sixpack", "sixpacks", "pacote", "pacotes", "caixa", "caixas", "engradado",
    "engradados", "confezione", "confezioni", "scatola", "scatole", "cassa", "casse",
    "pacco", "pacchi", "cartone", "cartoni",
];

/// Words between a container and the count each holds: "of", "each", "je", "cada".
#[rustfmt::skip]
const OF_EACH: &[&str] = &[
    "of", "each", "with", "de", "con", "cada", "una", "uno", "chacun", "chacune", "a", "je",
    "mit", "von", "zu", "da", "di", "ciascuna", "ciascuno", "ognuna", "ognuno", "com", "um",
    "uma",
];

/// A count of things said as containers of them: "dos packs de seis botellas" is 12, "zwei
/// Kisten Wasser, je zwölf Flaschen" 24, "3 boxes of 10" 30. The first number right before
/// the container, the second after it with "of" or "each" between, and at most its thing and
/// a comma.
fn packs(tokens: &[Token], facts: &Facts, out: &mut Vec<Quantity>) {
    for packs in &facts.number_spans {
        let counts = |span: &super::facts::NumberSpan| {
            !span.ordinal && span.value.fract() == 0.0 && span.value >= 1.0
        };
        if !counts(packs)
            || !tokens
                .get(packs.end)
                .is_some_and(|t| is_word(t, CONTAINERS))
        {
            continue;
        }
        let after = packs.end + 1;
        let Some(each) = facts
            .number_spans
            .iter()
            .find(|s| s.start >= after && s.start <= after + 3 && counts(s))
        else {
            continue;
        };
        let between = &tokens[after..each.start];
        let things = between
            .iter()
            .filter(|t| t.kind == Kind::Word && !is_word(t, OF_EACH))
            .count();
        let linked = between.iter().any(|t| is_word(t, OF_EACH));
        let only_marks = between
            .iter()
            .all(|t| t.kind == Kind::Word || t.lower == ",");
        if linked && only_marks && things <= 1 {
            emit(packs.value * each.value, (Count, 1.0), out);
        }
    }
}

/// A race named for its distance: a marathon is 42.195 km, a half marathon 21.0975 km ("media
/// maratón", "semi-marathon", "Halbmarathon", "meia maratona", "mezza maratona").
fn marathons(tokens: &[Token], out: &mut Vec<Quantity>) {
    const MARATHON: f64 = 42.195;
    for (i, token) in tokens.iter().enumerate() {
        if token.kind != Kind::Word {
            continue;
        }
        let word = token.folded.trim_end_matches('s');
        let whole = matches!(word, "marathon" | "maraton" | "maratona");
        let joined_half = matches!(
            word,
            "halfmarathon" | "halbmarathon" | "semimarathon" | "mezzamaratona"
        );
        if !whole && !joined_half {
            continue;
        }
        // "half marathon", "semi-marathon": a word for half just before, a hyphen between.
        let mut before = i;
        if before > 0 && tokens[before - 1].folded == "-" {
            before -= 1;
        }
        // A marathon of films or series is no race ("movie marathon", "maratón de series").
        let binge = |t: &Token| is_word(t, NOT_RACES);
        if tokens[i.saturating_sub(2)..i].iter().any(binge)
            || tokens.iter().skip(i + 1).take(2).any(binge)
        {
            continue;
        }
        let half = joined_half
            || before.checked_sub(1).is_some_and(|b| {
                let word = &tokens[b];
                is_word(word, HALF) || is_word(word, &["half", "semi", "halb"])
            });
        let km = if half { MARATHON / 2.0 } else { MARATHON };
        emit(km, (Length, 1000.0), out);
    }
}

/// Words beside "marathon" that make it one of watching or playing (folded).
#[rustfmt::skip]
const NOT_RACES: &[&str] = &[
    "movie", "movies", "film", "films", "series", "serie", "tv", "netflix", "binge", "gaming",
    "pelicula", "peliculas", "filme", "filmes", "serien", "filmi", "lecture", "lectura",
];

fn is_word(token: &Token, words: &[&str]) -> bool {
    token.kind == Kind::Word && words.contains(&token.folded.as_str())
}

/// The quantities of the numbers found, each marked with the token its number starts at.
fn read_numbers(tokens: &[Token], facts: &Facts, out: &mut Vec<Quantity>) {
    for span in &facts.number_spans {
        if span.ordinal {
            continue;
        }
        let glued = !span.in_words && span.end == span.start + 1;
        let before = out.len();
        read_after(tokens, span.start, span.end, span.value, glued, out);
        // "three quarters", "drei Viertel", "dos tercios": a fraction, as a percentage.
        if let Some((_, parts)) = tokens
            .get(span.end)
            .and_then(|t| FRACTIONS.iter().find(|(word, _)| *word == t.folded))
        {
            if span.value >= 1.0 && span.value < *parts && span.value.fract() == 0.0 {
                emit(span.value * 100.0 / parts, (Percent, 1.0), out);
                // Of a unit: "trois quarts de kilo" is 750 g, "three quarters of a litre".
                let mut at = span.end + 1;
                while at < span.end + 3
                    && tokens
                        .get(at)
                        .is_some_and(|t| t.lower == "'" || is_word(t, FRACTION_OF))
                {
                    at += 1;
                }
                for reading in unit_at(tokens, at).0.iter().filter(|(d, _)| *d != Count) {
                    emit(span.value / parts, *reading, out);
                }
            }
        }
        for quantity in &mut out[before..] {
            quantity.start = Some(span.start);
        }
    }
}

/// Half of a whole, said alone where a level is set: "bring it down to half", "baja la luz a
/// la mitad", "mets le volume à moitié", "auf die Hälfte", "pela metade", "a metà": 50%.
/// Never half of something named after it ("half of the team", "half an hour").
fn half_a_level(tokens: &[Token], i: usize) -> bool {
    const HALVES_ALONE: &[&str] = &["half", "mitad", "moitie", "halfte", "metade", "meta"];
    const TO: &[&str] = &["to", "at", "a", "la", "auf", "die", "pela", "por"];
    let Some(token) = tokens.get(i) else {
        return false;
    };
    let ends = tokens.get(i + 1).is_none_or(|t| {
        t.kind == Kind::Punct || matches!(t.folded.as_str(), "please" | "por" | "bitte" | "per")
    });
    // Italian "metà" with its accent: Spanish and Portuguese "meta" is a goal.
    let goal = token.folded == "meta" && token.lower != "metà";
    is_word(token, HALVES_ALONE)
        && !goal
        && ends
        && i.checked_sub(1)
            .and_then(|k| tokens.get(k))
            .is_some_and(|t| is_word(t, TO))
}

/// The quantities said with no digits: halves, an article for one, and duration phrases.
fn read_words(tokens: &[Token], facts: &Facts, out: &mut Vec<Quantity>) {
    for (i, token) in tokens.iter().enumerate() {
        if let Some((_, value)) = HALVES.iter().find(|(word, _)| *word == token.folded) {
            read_after(tokens, i, i + 1, *value, false, out);
        }
        // "half a gig", "medio kilo", "meio litro", "mezzo chilo", "ein halbes Kilo".
        if token.folded == "half"
            && tokens
                .get(i + 1)
                .is_some_and(|t| matches!(t.folded.as_str(), "a" | "an"))
        {
            read_after(tokens, i, i + 2, 0.5, false, out);
        } else if HALF.contains(&token.folded.as_str()) {
            read_after(tokens, i, i + 1, 0.5, false, out);
        }
        if half_a_level(tokens, i) {
            emit(50.0, (Percent, 1.0), out);
        }
        // "en hora y media", "litro y medio", "en hora y cuarto": a spelled-out unit of time,
        // mass, volume or data with no number or article before it and "and a half" ("and
        // a quarter") after it is one and a half (a quarter) of it.
        // A number said in words before it ("dos litros y medio") is the unit's own.
        let bare = i == 0
            || tokens
                .get(i - 1)
                .is_some_and(|t| t.kind != Kind::Number && !ARTICLES.contains(&t.folded.as_str()))
                && !facts.number_spans.iter().any(|s| s.end == i);
        if bare
            && token.kind == Kind::Word
            && token.folded.chars().count() >= 3
            && (matches_any(tokens, i + 1, AND_A_HALF) > 0
                || matches_any(tokens, i + 1, AND_A_QUARTER) > 0)
            && readings(&token.folded, false)
                .iter()
                .any(|(dim, _)| matches!(dim, Time | Calendar | Mass | Volume | Data))
        {
            let before = out.len();
            read_after(tokens, i, i, 1.0, false, out);
            for quantity in &mut out[before..] {
                quantity.start.get_or_insert(i);
            }
        }
        if ARTICLES.contains(&token.folded.as_str()) {
            let before = out.len();
            read_article(tokens, i, out);
            for quantity in &mut out[before..] {
                quantity.start.get_or_insert(i);
            }
        }
        // "a couple of hours", "un paio d'ore", "un par de horas": two of the unit.
        if ARTICLES.contains(&token.folded.as_str())
            && tokens
                .get(i + 1)
                .is_some_and(|t| matches!(t.folded.as_str(), "couple" | "paio" | "par"))
        {
            let mut next = i + 2;
            if tokens
                .get(next)
                .is_some_and(|t| matches!(t.folded.as_str(), "of" | "di" | "de" | "d"))
            {
                next += 1;
            }
            if tokens.get(next).is_some_and(|t| is_apostrophe(&t.lower)) {
                next += 1;
            }
            read_after(tokens, i, next, 2.0, false, out);
        }
        for (words, minutes) in PHRASES {
            if matches_at(tokens, i, words) {
                emit(*minutes, (Time, 60.0), out);
            }
        }
    }
}

/// "5 ft 10 in", "1 m 80 cm", "un chilo e due etti": one length, mass or time in two units,
/// the smaller after the larger, an "and" between them or not.
fn two_unit_compounds(tokens: &[Token], out: &[Quantity]) -> Vec<Quantity> {
    let mut compounds = Vec::new();
    let pairs = out.iter().flat_map(|a| out.iter().map(move |b| (a, b)));
    for (a, b) in pairs {
        if let (Some(first), Some(second)) = (a.start, b.start) {
            let joined = second == first + 3
                && tokens
                    .get(first + 2)
                    .is_some_and(|t| AND.contains(&t.folded.as_str()));
            if a.dim == b.dim
                && matches!(a.dim, Length | Mass | Time)
                && (second == first + 1 || second == first + 2 || joined)
                && b.factor < a.factor
            {
                compounds.push(Quantity {
                    dim: a.dim,
                    value: a.value * a.factor + b.value * b.factor,
                    factor: 1.0,
                    start: None,
                });
            }
        }
    }
    compounds
}

/// "an hour and twenty", "un'ora e venti", "una hora y veinte", "une heure vingt": minutes
/// after the hours.
fn hours_and_minutes(tokens: &[Token], facts: &Facts, out: &[Quantity]) -> Vec<Quantity> {
    let mut compounds = Vec::new();
    for q in out {
        let Some(start) = q.start else {
            continue;
        };
        if q.dim != Time || !close(q.factor, 3600.0) {
            continue;
        }
        let Some(unit_end) = (start + 1..start + 4).find(|i| {
            tokens.get(*i).is_some_and(|t| {
                readings(&t.folded, false)
                    .iter()
                    .any(|(d, f)| *d == Time && close(*f, 3600.0))
            })
        }) else {
            continue;
        };
        let and = tokens
            .get(unit_end + 1)
            .is_some_and(|t| AND.contains(&t.folded.as_str()));
        // Without "and" ("une heure vingt", "eine Stunde zwanzig"): no unit after the
        // minutes, and no clock's cue before the hours ("à une heure vingt" is 1:20).
        let at = if and { unit_end + 2 } else { unit_end + 1 };
        let clock = start
            .checked_sub(1)
            .and_then(|i| tokens.get(i))
            .is_some_and(|t| is_word(t, CLOCK_CUES));
        let minutes = facts.number_spans.iter().find(|s| {
            s.start == at
                && !s.ordinal
                && (and
                    || (!clock
                        && tokens
                            .get(s.end)
                            .is_none_or(|t| readings(&t.folded, false).is_empty())))
        });
        if let Some(minutes) = minutes {
            if minutes.value.fract() == 0.0 && (1.0..60.0).contains(&minutes.value) {
                compounds.push(Quantity {
                    dim: Time,
                    value: q.value * 3600.0 + minutes.value * 60.0,
                    factor: 1.0,
                    start: None,
                });
            }
        }
    }
    compounds
}

/// Words before an hour that make it a clock's: "at", "à", "a las", "alle", "às" (not German
/// "um", "by" before a span: "um eine Stunde zwanzig verschieben").
const CLOCK_CUES: &[&str] = &["at", "a", "las", "la", "alle", "as", "vers"];

/// Units whose smaller unit is said as a bare number after them, with how many of it make
/// one: metres and their centimetres, kilos and their grams, litres and their millilitres.
const WITH_SMALL_PARTS: &[(Dim, f64, f64)] = &[
    (Length, 1.0, 100.0),
    (Mass, 1000.0, 1000.0),
    (Volume, 1.0, 1000.0),
];

/// "einen Meter achtzig", "un metro e ottanta", "one metre eighty", "ein Kilo zweihundert",
/// "un litro e duecento": a measure in a unit (a number or an article before it) with its
/// smaller unit's count after it, unnamed.
fn metres_and_centimetres(tokens: &[Token], facts: &Facts) -> Vec<Quantity> {
    // Written out, not a symbol ("m" is metres or minutes, "l" a letter).
    let unit_of = |t: &Token| {
        if t.folded.chars().count() < 3 {
            return None;
        }
        readings(&t.folded, false).iter().find_map(|(d, f)| {
            WITH_SMALL_PARTS
                .iter()
                .find(|(dim, factor, _)| dim == d && close(*f, *factor))
        })
    };
    let mut compounds = Vec::new();
    for (unit, token) in tokens.iter().enumerate() {
        let Some(&(dim, factor, parts)) = (unit > 0).then(|| unit_of(token)).flatten() else {
            continue;
        };
        let metres = facts
            .number_spans
            .iter()
            .find(|s| s.end == unit && !s.ordinal && s.value.fract() == 0.0 && s.value >= 1.0)
            .map(|s| s.value)
            .or_else(|| {
                ARTICLES
                    .contains(&tokens[unit - 1].folded.as_str())
                    .then_some(1.0)
            });
        let Some(metres) = metres else {
            continue;
        };
        let mut at = unit + 1;
        if tokens
            .get(at)
            .is_some_and(|t| AND.contains(&t.folded.as_str()))
        {
            at += 1;
        }
        let centimetres = facts.number_spans.iter().find(|s| {
            s.start == at
                && !s.ordinal
                && s.value.fract() == 0.0
                // Grams come by the fifty at least ("ein Kilo zweihundert"): "un kilo e 20
                // bottiglie" counts bottles.
                && (if parts > 100.0 { parts / 20.0 } else { 1.0 }..parts).contains(&s.value)
                // No unit of its own after it: "1 metro e 20 chili" is no height.
                && tokens
                    .get(s.end)
                    .is_none_or(|t| readings(&t.folded, false).is_empty())
        });
        if let Some(centimetres) = centimetres {
            compounds.push(Quantity {
                dim,
                value: metres + centimetres.value / parts,
                factor,
                start: None,
            });
        }
    }
    compounds
}

/// Keeps the new, finite quantities, binding each number said with a unit to it.
fn record(out: Vec<Quantity>, facts: &mut Facts) {
    for quantity in out {
        if !quantity.value.is_finite() || facts.quantities.contains(&quantity) {
            continue;
        }
        facts.quantities.push(quantity);
        if let Some(start) = quantity.start {
            let index = facts.quantities.len() - 1;
            facts.bind(start..start + 1, Role::Unit(index));
        }
    }
}

/// The unit (and multiplier) written right after the number over tokens `start..end`, or
/// glued to its digits.
fn read_after(
    tokens: &[Token],
    start: usize,
    end: usize,
    value: f64,
    glued: bool,
    out: &mut Vec<Quantity>,
) {
    let money_sign = start
        .checked_sub(1)
        .and_then(|i| tokens.get(i))
        .is_some_and(|t| MONEY_SIGNS.contains(&t.lower.as_str()));
    let mut suffix = if glued { glued_to(tokens, start) } else { "" };
    let mut value = value;
    let mut next = end;
    let mut multiplied = false;
    let thousands = suffix == "k";
    if thousands {
        // The number is read as thousands already ("5k" is 5000).
        suffix = "";
        multiplied = true;
    } else if let Some(factor) = multiplier(suffix, true, money_sign) {
        value *= factor;
        suffix = "";
        multiplied = true;
    }
    if suffix.is_empty() {
        let (past, by_words) = multiplier_words(tokens, next, money_sign, &mut value);
        next = past;
        multiplied |= by_words;
        if multiplied {
            next += joining_of(tokens, next);
        }
    }
    if suffix.is_empty() && matches_any(tokens, next, AND_A_HALF) > 0 && value.fract() == 0.0 {
        // "one and a half hours", "2 and a half days".
        let skip = matches_any(tokens, next, AND_A_HALF);
        value += 0.5;
        multiplied = true;
        next += skip;
    }
    let (units, after) = if suffix.is_empty() {
        unit_at(tokens, next)
    } else {
        (readings(suffix, true), next)
    };
    if units.is_empty() {
        if suffix.is_empty() && currency_after_word(tokens, next) {
            emit(value, (Money, 1.0), out);
            return;
        }
        // "$12" is money, and no count of anything.
        if multiplied && !money_sign {
            emit(value, (Count, 1.0), out);
        }
        // A race's "5k", "10k": kilometres too, where the line speaks of running and no money
        // is said ("10k steps" counts steps).
        if thousands && !money_sign && runs(tokens) {
            emit(value / 1000.0, (Length, 1000.0), out);
        }
        if money_sign {
            emit(value, (Money, 1.0), out);
        }
        return;
    }
    emit_with_unit(tokens, after, units, value, money_sign, out);
}

/// Words of running and racing in the six (folded).
#[rustfmt::skip]
const RUNNING: &[&str] = &[
    "run", "ran", "running", "race", "jog", "jogging", "correr", "corri", "carrera", "courir",
    "couru", "course", "footing", "laufen", "lauf", "gelaufen", "joggen", "corrida", "corsa",
    "corso", "gara",
];

/// Whether the conversation speaks of running ("Log a run: 5k", "corrí 10k").
fn runs(tokens: &[Token]) -> bool {
    tokens
        .iter()
        .any(|t| super::words::is(RUNNING, &t.folded) || t.folded == "parkrun")
}

/// What is glued to the digits of the number at token `start`: "km" of "5km".
fn glued_to(tokens: &[Token], start: usize) -> &str {
    tokens.get(start).map_or("", |t| {
        t.lower
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
    })
}

/// Up to two multiplier words after a number ("2 millions", "5 mil millones", "2 Mio. Euro"),
/// applied to `value`: the index past them, and whether there were any.
fn multiplier_words(
    tokens: &[Token],
    at: usize,
    money_sign: bool,
    value: &mut f64,
) -> (usize, bool) {
    let mut next = at;
    let mut multiplied = false;
    for _ in 0..2 {
        let Some(word) = tokens.get(next).filter(|t| t.kind == Kind::Word) else {
            break;
        };
        let Some(factor) = multiplier(&word.folded, false, money_sign) else {
            break;
        };
        *value *= factor;
        multiplied = true;
        next += 1;
        if tokens
            .get(next)
            .is_some_and(|t| t.lower == "." && !t.spaced)
        {
            next += 1;
        }
    }
    (next, multiplied)
}

/// How many tokens at `i` join a multiplied number to its unit: "2 millones de euros",
/// "2 millions d'euros", "2 milioni di euro".
fn joining_of(tokens: &[Token], i: usize) -> usize {
    if tokens
        .get(i)
        .is_some_and(|t| matches!(t.folded.as_str(), "de" | "di"))
    {
        1
    } else if tokens.get(i).is_some_and(|t| t.folded == "d")
        && tokens.get(i + 1).is_some_and(|t| is_apostrophe(&t.lower))
    {
        2
    } else {
        0
    }
}

/// A currency's adjective at `i`, its currency after: "200 British pounds", "5 Swiss francs".
fn currency_after_word(tokens: &[Token], i: usize) -> bool {
    if !tokens.get(i).is_some_and(|t| t.kind == Kind::Word) {
        return false;
    }
    let (money, past) = unit_at(tokens, i + 1);
    money.iter().any(|(dim, _)| *dim == Money) && !rate_or_area(tokens, past)
}

/// Records `value` in the `units` written before token `after`: as a rate where one follows,
/// with an "and a half", "and a quarter" or "and three quarters" after the unit, and as money after a currency sign.
fn emit_with_unit(
    tokens: &[Token],
    after: usize,
    units: &[Reading],
    value: f64,
    money_sign: bool,
    out: &mut Vec<Quantity>,
) {
    let mut value = value;
    let bits = units.iter().all(|(dim, _)| *dim == Bits);
    if rate_or_area(tokens, after) && !bits {
        // Not converted, but bound: "100 km/h" is a speed, no distance of 100.
        emit(value, (Rate, 1.0), out);
        return;
    }
    let half = matches_any(tokens, after, AND_A_HALF);
    if half > 0 && value.fract() == 0.0 {
        value += 0.5;
    } else if matches_any(tokens, after, AND_A_QUARTER) > 0 && value.fract() == 0.0 {
        value += 0.25;
    } else if matches_any(tokens, after, AND_THREE_QUARTERS) > 0 && value.fract() == 0.0 {
        value += 0.75;
    } else if let Some(cents) = cents_after(tokens, after, units, value) {
        // "48 Franken 50", "12 euros 99": the cents after the currency.
        value += cents;
    }
    if money_sign {
        emit(value, (Money, 1.0), out);
    }
    for reading in units {
        emit(value, *reading, out);
    }
}

/// The cents written right after a whole amount's currency ("48 Franken 50", "12 euros 99"):
/// two digits ending the clause, as a fraction.
fn cents_after(tokens: &[Token], after: usize, units: &[Reading], value: f64) -> Option<f64> {
    let money = units.iter().any(|(dim, _)| *dim == Money);
    let cents = tokens.get(after).filter(|t| {
        t.kind == Kind::Number && t.lower.len() == 2 && t.lower.bytes().all(|b| b.is_ascii_digit())
    })?;
    let ends = tokens.get(after + 1).is_none_or(|t| t.kind == Kind::Punct);
    let cents: f64 = cents.lower.parse().ok()?;
    (money && ends && value.fract() == 0.0).then_some(cents / 100.0)
}

/// "an hour", "una hora", "un'ora", "a day", "a dozen", "un kilo", "a litre": one, where a
/// spelled-out unit of time, mass, volume or data or a dozen follows the article ("un kilo
/// et demi" is 1.5 kg); a length only with a half after it ("un kilómetro y medio": "a mile
/// away", "an inch" say no distance); not "half an hour" or "a quarter of an hour" (phrases
/// of their own).
fn read_article(tokens: &[Token], i: usize, out: &mut Vec<Quantity>) {
    if i > 0
        && tokens
            .get(i - 1)
            .is_some_and(|t| matches!(t.folded.as_str(), "half" | "of"))
    {
        return;
    }
    let mut next = i + 1;
    if tokens
        .get(next)
        .is_some_and(|t| is_apostrophe(&t.lower) && !t.spaced)
    {
        next += 1;
    }
    let Some(word) = tokens.get(next).filter(|t| t.kind == Kind::Word) else {
        return;
    };
    // "a dozen", "une dizaine", "una ventina", "une centaine": the count itself (not "a
    // thousand" nor "a million", idioms as often).
    if let Some(factor) = multiplier(&word.folded, false, false).filter(|f| *f < 1000.0) {
        // "una docena y media", "a dozen and a half": half as many again.
        let half = matches_any(tokens, next + 1, AND_A_HALF) > 0;
        emit(if half { factor * 1.5 } else { factor }, (Count, 1.0), out);
        return;
    }
    // Spelled-out durations only: "a min", "a m", "a t" are no units.
    let spelled = word.folded.chars().count() >= 3
        && !matches!(
            word.folded.as_str(),
            "min" | "mins" | "sec" | "secs" | "hrs" | "std" | "sek"
        );
    // A pound is a weight as well as money: "une livre de beurre", "ein Pfund Hackfleisch";
    // "un livre" is a book.
    if tokens[i].folded == "un" && word.folded == "livre" {
        return;
    }
    let units = readings(&word.folded, false);
    let weighed = units.iter().any(|(dim, _)| *dim == Mass);
    // A length with a half after it is one and a half ("un kilómetro y medio", "a mile and
    // a half"), never "a mile away".
    let and_a_half = matches_any(tokens, next + 1, AND_A_HALF) > 0;
    if !spelled
        || units.is_empty()
        || !units.iter().all(|(dim, _)| {
            matches!(dim, Time | Calendar | Mass | Volume | Data)
                || (*dim == Money && weighed)
                || (*dim == Length && and_a_half)
        })
    {
        return;
    }
    read_after(tokens, i, next, 1.0, false, out);
}

/// The unit written as the token(s) at `i` ("m", "metros", "%", "por ciento", "°C"), after
/// a joining hyphen ("5-minute"), with the index after it.
fn unit_at(tokens: &[Token], i: usize) -> (&'static [Reading], usize) {
    let mut i = i;
    if tokens.get(i).is_some_and(|t| t.lower == "-" && !t.spaced)
        && tokens.get(i + 1).is_some_and(|t| !t.spaced)
    {
        i += 1;
    }
    let Some(token) = tokens.get(i).filter(|t| t.kind != Kind::Number) else {
        return (&[], i);
    };
    if let Some(second) = tokens.get(i + 1) {
        let both = two_word_readings(&token.folded, &second.folded);
        if !both.is_empty() {
            return (both, i + 2);
        }
    }
    (readings(&token.folded, false), i + 1)
}

/// A unit over a time ("km/h", "MB/s") or a unit squared ("m²", "metros cuadrados").
fn rate_or_area(tokens: &[Token], after: usize) -> bool {
    tokens
        .get(after)
        .is_some_and(|t| (t.lower == "/" && !t.spaced) || SQUARED.contains(&t.folded.as_str()))
}

/// Records `value` of a unit read as `reading`.
fn emit(value: f64, (dim, factor): Reading, out: &mut Vec<Quantity>) {
    out.push(Quantity {
        dim,
        value,
        factor,
        start: None,
    });
}

/// Pushes `value` of a unit read as `reading` in every unit of its dimension.
fn emit_values(value: f64, (dim, factor): Reading, out: &mut Vec<f64>) {
    match dim {
        Stay | Count | Rate => out.push(value),
        Percent => {
            out.push(value);
            out.push(value / 100.0);
        }
        Temperature => out.push(value),
        Money => {
            out.push(value);
            out.push(tidy(value * 100.0));
        }
        Cents => {
            out.push(value);
            out.push(tidy(value / 100.0));
        }
        Calendar => {
            let months = value * factor;
            out.push(tidy(months));
            out.push(tidy(months / 12.0));
            if factor == 12.0 {
                out.push(tidy(value * 365.0));
                out.push(tidy(value * 52.0));
            } else {
                out.push(tidy(months * 30.0));
            }
        }
        _ => {
            let base = value * factor;
            for unit in scale(dim) {
                out.push(tidy(base / unit));
            }
        }
    }
}

/// A conversion's float noise off: 4999.999999999999 is 5000.
fn tidy(value: f64) -> f64 {
    let rounded = value.round();
    if close(value, rounded) {
        rounded
    } else {
        value
    }
}

fn is_apostrophe(text: &str) -> bool {
    text == "'" || text == "’"
}

/// Whether the tokens from `i` are `words` (folded; an apostrophe matches either kind).
fn matches_at(tokens: &[Token], i: usize, words: &[&str]) -> bool {
    words.iter().enumerate().all(|(k, word)| {
        tokens
            .get(i + k)
            .is_some_and(|t| t.folded == *word || (is_apostrophe(word) && is_apostrophe(&t.lower)))
    })
}

/// How many tokens from `i` the first of `phrases` matching there covers, or 0.
fn matches_any(tokens: &[Token], i: usize, phrases: &[&[&str]]) -> usize {
    phrases
        .iter()
        .find(|words| matches_at(tokens, i, words))
        .map_or(0, |words| words.len())
}

#[cfg(test)]
mod tests {
    use super::super::facts::read_for_test;
    use super::*;

    fn quantities(text: &str) -> Vec<f64> {
        let facts = read_for_test(text);
        facts.quantities.iter().flat_map(Quantity::values).collect()
    }

    fn has(text: &str, value: f64) -> bool {
        quantities(text).iter().any(|q| close(*q, value))
    }

    /// Whether `value` traces a field of these name and description words in `text`.
    fn field(name: &[&str], description: &[&str], value: f64, text: &str) -> bool {
        let name: Vec<String> = name.iter().map(|w| w.to_string()).collect();
        let description: Vec<String> = description.iter().map(|w| w.to_string()).collect();
        let facts = read_for_test(text);
        traces(
            value,
            &Field {
                name: &name,
                description: &description,
            },
            &facts,
        )
    }

    #[test]
    fn a_bound_named_min_is_no_minutes() {
        let text = "Find a 3 bedroom villa for sale within $300,000 to $400,000 budget";
        assert!(field(
            &["min"],
            &["minimum", "budget", "limit"],
            300_000.0,
            text
        ));
        assert!(field(
            &["timeout", "min"],
            &[],
            5.0,
            "time out after 5 minutes"
        ));
        assert!(!field(
            &["timeout", "min"],
            &[],
            300.0,
            "time out after 5 minutes"
        ));
        // "in" inside a name is a preposition; last, inches.
        let text = "que acabe dentro de hora y media";
        assert!(field(&["finish", "in", "minutes"], &[], 90.0, text));
        assert!(!field(&["finish", "in", "minutes"], &[], 1.5, text));
        assert!(field(&["height", "in"], &[], 24.0, "a 2 ft shelf"));
    }

    #[test]
    fn a_couple_and_tens() {
        assert!(field(
            &["delay", "minutes"],
            &[],
            120.0,
            "Fai partire la lavastoviglie fra un paio d'ore"
        ));
        assert!(field(
            &["delay", "minutes"],
            &[],
            120.0,
            "in a couple of hours"
        ));
        assert!(field(&["duration", "hours"], &[], 2.0, "un par de horas"));
        assert!(!field(
            &["delay", "minutes"],
            &[],
            120.0,
            "a couple of minutes"
        ));
        assert!(has("Encomenda duas dezenas de pastéis", 20.0));
        assert!(has("une dizaine d'œufs", 10.0));
        assert!(has("Ordina una ventina di palloncini", 20.0));
        assert!(has("une centaine d'invités", 100.0));
        assert!(!has("Ordina una ventina di palloncini", 2.0));
    }

    #[test]
    fn power_cubic_metres_and_a_rate_s_period() {
        assert!(!field(&["power", "kw"], &[], 65.0, "Mein Auto hat 65 PS"));
        assert!(field(&["power", "kw"], &[], 47.8, "Mein Auto hat 65 PS"));
        assert!(field(&["power", "hp"], &[], 64.1, "Mein Auto hat 65 PS"));
        assert!(field(
            &["volume", "m3"],
            &[],
            40.0,
            "A piscina tem 40 mil litros"
        ));
        assert!(!field(
            &["volume", "m3"],
            &[],
            40000.0,
            "A piscina tem 40 mil litros"
        ));
        assert!(!field(
            &["lessons", "per", "month"],
            &[],
            15.0,
            "Minha filha de 15 anos"
        ));
        assert!(field(
            &["age", "years"],
            &[],
            15.0,
            "Minha filha de 15 anos"
        ));
    }

    #[test]
    fn a_fortnight_and_hectograms() {
        for text in [
            "Je veux louer la voiture pour quinze jours",
            "Alquila el coche quince días",
            "for a fortnight",
        ] {
            assert!(field(&["duration", "weeks"], &[], 2.0, text), "{text}");
            assert!(field(&["duration", "days"], &[], 14.0, text), "{text}");
        }
        // Fifteen days are still fifteen, and never two weeks in English.
        assert!(field(
            &["duration", "days"],
            &[],
            15.0,
            "louer pour quinze jours"
        ));
        assert!(!field(
            &["duration", "weeks"],
            &[],
            2.0,
            "rent it for fifteen days"
        ));
        assert!(field(
            &["weight", "grams"],
            &[],
            200.0,
            "Aggiungi 2 etti di prosciutto"
        ));
        assert!(!field(
            &["weight", "grams"],
            &[],
            2.0,
            "Aggiungi 2 etti di prosciutto"
        ));
    }

    #[test]
    fn a_length_and_a_half_after_an_article() {
        let metres = |text: &str, value: f64| field(&["distance", "m"], &["metres"], value, text);
        assert!(metres("he nadado un kilómetro y medio", 1500.0));
        assert!(metres("ho nuotato un chilometro e mezzo", 1500.0));
        assert!(field(
            &["distance", "km"],
            &[],
            2.41,
            "I swam a mile and a half"
        ));
        // One length with no half is no distance: "a mile away".
        assert!(!field(
            &["distance", "km"],
            &[],
            1.61,
            "the shop is a mile away"
        ));
    }

    #[test]
    fn packs_of_things_are_their_product() {
        for (text, total) in [
            ("Order two packs of six bottles", 12.0),
            ("Pídeme agua al súper, dos packs de seis botellas", 12.0),
            ("Bestell uns zwei Kisten Wasser, je zwölf Flaschen", 24.0),
            ("Compra 3 caixas com 10 ovos", 30.0),
            ("Prendi due confezioni da 4 yogurt", 8.0),
        ] {
            assert!(has(text, total), "{text}");
        }
        // Two numbers beside a container that are no packs of the other: a list, a comma
        // with nothing that says "each", a container after the second number.
        for text in [
            "Order 2 packs and 6 bottles",
            "Order 2 packs, 6 more bottles later",
            "Order 2 bottles of 6 packs",
        ] {
            assert!(!has(text, 12.0), "{text}");
        }
    }

    #[test]
    fn half_a_dozen_is_six() {
        for text in [
            "Add half a dozen eggs",
            "Ajoute une demi-douzaine de croissants",
            "Pon media docena de huevos",
            "Ein halbes Dutzend Brötchen, bitte",
            "Meia dúzia de pães",
            "Mezza dozzina di uova",
        ] {
            assert!(has(text, 6.0), "{text}");
            assert!(!has(text, 12.0), "{text}");
        }
        assert!(!has("half the dozen were broken", 6.0));
        assert!(has("a dozen eggs", 12.0));
        // A dozen and a half is eighteen, and no dozen.
        assert!(has("pedime empanadas, una docena y media", 18.0));
        assert!(has("a dozen and a half eggs", 18.0));
        assert!(!has("a dozen and a half eggs", 12.0));
    }

    #[test]
    fn german_units_in_the_dative_plural() {
        assert!(field(
            &["max", "distance", "m"],
            &[],
            15000.0,
            "mit höchstens 15 Kilometern"
        ));
        assert!(!field(
            &["max", "distance", "m"],
            &[],
            15.0,
            "mit höchstens 15 Kilometern"
        ));
        assert!(field(&["depth", "cm"], &[], 250.0, "in 2,5 Metern Tiefe"));
    }

    #[test]
    fn temperatures_between_scales_and_rounded_conversions() {
        assert!(field(&["temp", "c"], &[], 177.0, "preheat to 350°F"));
        assert!(field(
            &["temperature"],
            &["in", "celsius"],
            177.0,
            "preheat to 350 °F"
        ));
        assert!(!field(
            &["temperature"],
            &["in", "celsius"],
            350.0,
            "preheat to 350 °F"
        ));
        assert!(field(&["temperature", "f"], &[], 102.2, "fever of 39 °C"));
        assert!(field(&["distance", "miles"], &[], 6.2, "a 10 km run"));
        assert!(!field(&["distance", "miles"], &[], 6.0, "a 10 km run"));
        assert!(field(&["size", "mb"], &[], 512.0, "half a gig"));
    }

    #[test]
    fn fractions_as_percentages() {
        assert!(field(
            &["target", "percent"],
            &[],
            75.0,
            "Lad das Auto bis drei Viertel voll"
        ));
        assert!(field(
            &["fill", "ratio"],
            &[],
            0.75,
            "fill it three quarters"
        ));
        assert!(field(
            &["share", "pct"],
            &[],
            66.67,
            "two thirds of the budget"
        ));
        assert!(!field(&["target", "percent"], &[], 3.0, "three quarters"));
        // Half alone, as a level set.
        let brightness = |text: &str| field(&["brightness", "percent"], &[], 50.0, text);
        for text in [
            "too bright, bring it down to half",
            "baja la luz a la mitad",
            "mets le volume à moitié",
            "dreh die Lautstärke auf die Hälfte",
            "abaixa pela metade",
            "abbassa la luce a metà, per favore",
        ] {
            assert!(brightness(text), "{text}");
        }
        for text in [
            "half of the team is off",
            "in half an hour",
            "half the lights",
        ] {
            assert!(!brightness(text), "{text}");
        }
        // Of a unit.
        let grams = |text: &str, value: f64| field(&["weight", "grams"], &[], value, text);
        assert!(grams(
            "Mets trois quarts de kilo de farine dans la commande",
            750.0
        ));
        assert!(grams("three quarters of a kilo of flour", 750.0));
        assert!(grams("drei Viertel Kilo Mehl", 750.0));
        assert!(!grams("three quarters of the flour, 1 kilo", 750.0));
        assert!(!grams("drei Viertel Kilo Mehl", 3.0));
        assert!(!has("the last 5 quarters", 125.0));
        assert!(!has("in 3 weeks", 75.0));
    }

    #[test]
    fn bits_per_second_and_an_article_for_one() {
        assert!(field(
            &["bitrate", "kbps"],
            &[],
            2000.0,
            "limite à deux mégabits"
        ));
        assert!(field(
            &["bandwidth", "mbps"],
            &[],
            100.0,
            "cap it at 100 Mbit/s"
        ));
        assert!(!field(
            &["bandwidth", "mbps"],
            &[],
            100_000.0,
            "cap it at 100 Mbit/s"
        ));
        assert!(!field(&["size", "mb"], &[], 100.0, "cap it at 100 Mbit/s"));
        assert!(field(
            &["weight", "g"],
            &[],
            1500.0,
            "un kilo et demi de pommes"
        ));
        assert!(field(&["weight", "g"], &[], 1000.0, "buy a kilo of apples"));
        assert!(field(
            &["volume", "ml"],
            &[],
            1500.0,
            "un litro y medio de agua"
        ));
        // With no article: "litro y medio", "chilo e mezzo".
        assert!(field(
            &["water", "ml"],
            &[],
            1500.0,
            "hoy me bebí litro y medio de agua"
        ));
        assert!(field(
            &["weight", "g"],
            &[],
            1500.0,
            "chilo e mezzo di pane"
        ));
        // A unit with its own number before it is that number's.
        assert!(!field(&["water", "ml"], &[], 1500.0, "dos litros y medio"));
        assert!(!field(&["weight", "g"], &[], 1.0, "a t-shirt"));
    }

    #[test]
    fn an_hour_and_a_quarter_and_french_gigabytes() {
        assert!(has("uma hora e um quarto de treino", 75.0));
        assert!(has("an hour and a quarter", 75.0));
        assert!(has("un timer di un'ora e venti", 80.0));
        // Without "and": not a clock's hour, nor minutes with a unit of their own.
        assert!(has("Programme la cuisson pour une heure vingt", 80.0));
        assert!(has("eine Stunde zwanzig im Ofen", 80.0));
        assert!(!has("réveille-moi à une heure vingt", 80.0));
        assert!(has("Verschieb das Meeting um eine Stunde zwanzig", 80.0));
        assert!(!has("drive 2 hours 30 km", 150.0));
        assert!(has("2 hours and 10 minutes", 130.0));
        assert!(has("passe la VM à 16 Go de RAM", 16.0));
    }

    #[test]
    fn a_length_in_two_units_is_one_length() {
        assert!(has("height 5ft 10in", 70.0));
        // Two units joined by "and"; centimetres after metres, unnamed.
        assert!(has("Il pacco pesa un chilo e due etti.", 1200.0));
        assert!(has("Der Schrank ist einen Meter achtzig hoch", 180.0));
        assert!(has("mide un metro ochenta", 1.8));
        assert!(has("one metre eighty tall", 180.0));
        assert!(!has("un metro e 20 chili di roba", 120.0));
        // Kilos and their grams, litres and their millilitres.
        assert!(has(
            "Ein Kilo zweihundert Kartoffeln auf die Liste bitte",
            1200.0
        ));
        assert!(has("dos kilos trescientos de carne picada", 2300.0));
        assert!(has("un litro e duecento di latte", 1200.0));
        assert!(!has("un kilo e 20 bottiglie", 1020.0));
        assert!(!has("2 kilos 5000", 7000.0));
        assert!(has("height 5 ft 10 inches", 177.8));
        assert!(has("1 m 80 cm tall", 180.0));
        assert!(!has("5 ft and then 10 in", 70.0));
    }

    #[test]
    fn lengths_in_every_unit_of_the_dimension() {
        for text in [
            "a 5 m cable",
            "a 5m cable",
            "5 metres",
            "5 meters",
            "cinco metros",
        ] {
            assert!(has(text, 5000.0), "{text}");
            assert!(has(text, 500.0), "{text}");
            assert!(has(text, 0.005), "{text}");
        }
        assert!(has("5km", 5000.0));
        assert!(has("cinq kilomètres", 5000.0));
        assert!(has("5 Kilometer", 500_000.0));
        assert!(has("tre chilometri", 3000.0));
        assert!(has("12 inches", 30.48));
        assert!(has("6 feet", 72.0));
    }

    #[test]
    fn masses_volumes_and_data() {
        assert!(has("2 kg", 2000.0));
        assert!(has("dos kilos", 2000.0));
        assert!(has("500 g", 0.5));
        assert!(has("zwei Kilogramm", 2000.0));
        assert!(has("due chili", 2000.0));
        assert!(has("3 t", 3000.0));
        assert!(has("1 lb", 16.0));
        assert!(has("2 litros", 2000.0));
        assert!(has("5 GB", 5000.0));
        assert!(has("5 GB", 5120.0));
        assert!(has("1 GiB", 1024.0));
        assert!(has("2TB", 2048.0));
        assert!(has("512 MB", 0.5));
    }

    #[test]
    fn durations_in_six_languages() {
        assert!(has("2 hours", 120.0));
        assert!(has("16h", 960.0));
        assert!(has("30 minutes", 1800.0));
        assert!(has("30 minutes", 0.5));
        assert!(has("dos horas", 7200.0));
        assert!(has("quince minutos", 900.0));
        assert!(has("deux heures", 120.0));
        assert!(has("trois jours", 72.0));
        assert!(has("zwei Stunden", 120.0));
        assert!(has("drei Wochen", 21.0));
        assert!(has("duas horas", 120.0));
        assert!(has("dez dias", 240.0));
        assert!(has("due ore", 120.0));
        assert!(has("tre settimane", 21.0));
        assert!(has("a 5-minute walk", 300.0));
        assert!(has("500 ms", 0.5));
        assert!(has("2 years", 24.0));
        assert!(has("6 meses", 0.5));
    }

    #[test]
    fn duration_phrases() {
        for text in [
            "half an hour",
            "media hora",
            "une demi-heure",
            "eine halbe Stunde",
            "meia hora",
            "mezz'ora",
        ] {
            assert!(
                has(text, 30.0) && has(text, 1800.0) && has(text, 0.5),
                "{text}"
            );
            assert!(!has(text, 60.0), "{text}");
        }
        assert!(has("a quarter of an hour", 15.0));
        assert!(has("un quart d'heure", 900.0));
        for text in [
            "an hour and a half",
            "una hora y media",
            "avísame en hora y media",
            "une heure et demie",
            "anderthalb Stunden",
            "uma hora e meia",
            "un'ora e mezza",
            "one and a half hours",
            "2 hours and a half",
        ] {
            let minutes = if text.starts_with('2') { 150.0 } else { 90.0 };
            assert!(has(text, minutes), "{text}");
        }
        // A bare unit with a quarter after it: an hour and a quarter, never one alone.
        assert!(has("que termine en hora y cuarto", 75.0));
        assert!(!has("que termine en hora y cuarto", 60.0));
        assert!(has("a day", 24.0) && has("a day", 1440.0));
        assert!(has("un giorno", 24.0));
        assert!(has("ein Tag", 1440.0));
        assert!(has("a dozen eggs", 12.0));
    }

    #[test]
    fn percent_in_six_languages() {
        for text in [
            "15%",
            "15 %",
            "15 percent",
            "15 per cent",
            "15 por ciento",
            "15 pour cent",
            "15 Prozent",
            "15 por cento",
            "15 per cento",
        ] {
            assert!(has(text, 0.15) && has(text, 15.0), "{text}");
        }
    }

    #[test]
    fn cents_after_the_currency() {
        let amount = |value: f64, text: &str| field(&["amount"], &[], value, text);
        let lunch = "Trag die Spesen fürs Mittagessen mit dem Kunden ein, 48 Franken 50";
        assert!(amount(48.5, lunch));
        assert!(amount(12.99, "paga 12 euros 99"));
        // Not a count of something after it, nor the whole amount alone.
        assert!(!amount(
            48.5,
            "48 Franken 50 Rappen Trinkgeld inbegriffen 3"
        ));
        assert!(!amount(12.5, "paga 12 euros 50 veces"));
    }

    #[test]
    fn a_race_named_for_its_distance() {
        let km = |value: f64, text: &str| field(&["distance", "km"], &[], value, text);
        assert!(km(21.1, "Apunta que hoy corrí media maratón"));
        assert!(km(21.0975, "Log my half marathon"));
        assert!(km(21.1, "Ich bin einen Halbmarathon gelaufen"));
        assert!(km(21.1, "j'ai couru un semi-marathon"));
        assert!(km(42.2, "I ran the Berlin marathon today"));
        assert!(km(42.195, "corri a maratona do Porto"));
        // The whole race is no half of it, nor the half the whole.
        assert!(!km(42.2, "Log my half marathon"));
        assert!(!km(21.1, "I ran the Berlin marathon today"));
        // A length only: no count, no duration.
        assert!(!field(
            &["participants"],
            &[],
            42.0,
            "marathon registration"
        ));
        assert!(!km(21.1, "corrí media hora de series"));
        // Films and series watched in a row are no race.
        assert!(!km(42.195, "Book me a movie marathon night"));
        assert!(!km(42.2, "Organiza un maratón de series el sábado"));
    }

    #[test]
    fn multipliers_as_words_or_suffix() {
        assert!(has("5k", 5000.0));
        assert!(has("5K steps", 5000.0));
        assert!(has("2 million", 2e6));
        assert!(has("2 millones", 2e6));
        assert!(has("2 millions d'euros", 2e6));
        assert!(has("2 millions d'euros", 2e8));
        assert!(has("2 Millionen", 2e6));
        assert!(has("2 milhões", 2e6));
        assert!(has("2 milioni", 2e6));
        assert!(has("2 Mio. Euro", 2e6));
        assert!(has("3 billion", 3e9));
        assert!(has("3bn", 3e9));
        assert!(has("$3bn", 3e9));
        assert!(has("$2m", 2e6));
        assert!(has("5 mil millones", 5e9));
        assert!(has("2 dozen", 24.0));
    }

    #[test]
    fn money_and_temperature() {
        for text in [
            "$5",
            "5€",
            "5 €",
            "5 dollars",
            "5 euros",
            "cinco dólares",
            "5 USD",
        ] {
            assert!(has(text, 5.0) && has(text, 500.0), "{text}");
        }
        assert!(has("50 cents", 0.5));
        assert!(has("200 British pounds", 20_000.0));
        assert!(!has("200 British pounds", 90.718_474));
        assert!(has("$5k", 500_000.0));
        assert_eq!(quantities("20°C"), [20.0]);
        assert_eq!(quantities("20 °C"), [20.0]);
        assert_eq!(quantities("68 degrees"), [68.0]);
        assert_eq!(quantities("-5 grados"), [-5.0]);
    }

    #[test]
    fn no_unit_next_to_the_number_gives_nothing() {
        assert!(!has("a 5 m cable", 5e6));
        assert!(!has("5m", 5e6));
        assert!(!has("2M", 2e6));
        assert!(quantities("5 people").is_empty());
        assert!(quantities("5").is_empty());
        assert!(quantities("5 big m").is_empty());
        assert!(quantities("m 5").is_empty());
        // Nights are counted, never hours.
        assert_eq!(quantities("2 nights"), [2.0]);
        assert!(quantities("the 25th").is_empty());
        assert!(quantities("5 in stock").is_empty());
        assert!(quantities("at 10:30").is_empty());
        assert!(quantities("a mile").is_empty());
        assert!(!has("50 km/h", 50_000.0));
        assert!(!has("20 m²", 20_000.0));
        assert!(!has("20 metros cuadrados", 2000.0));
    }

    #[test]
    fn a_french_or_german_pound_is_half_a_kilo() {
        assert!(has("il me faut une livre de beurre", 500.0));
        assert!(has("ein Pfund Hackfleisch", 500.0));
        assert!(has("zwei Pfund Äpfel", 1000.0));
        // "un livre" is a book.
        assert!(!has("un livre de cuisine", 500.0));
    }
}
