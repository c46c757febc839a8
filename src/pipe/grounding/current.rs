//! A number that says what a thing is at now, in a request to change it: "está en 30, súbele
//! un poco", "Il ne fait que 19 degrés, monte un peu le chauffage", "it's sitting at 500 GB.
//! Resize it." It is the thing's current value, not the one asked for: bound as
//! [`Role::Current`], it traces only a field about the current value. A number after "by"
//! in such a request ("turn the fan down by two", "abbassa il ventilatore di due livelli",
//! "baisse de deux degrés") is how much to change it ([`Role::Change`]), no level to set.

use super::facts::{Context, Facts, NumberSpan, Role};
use super::tokens::{Kind, Token};

/// Words that ask for a change from where a thing is (folded).
const CHANGE: &[&str] = &[
    "up",
    "bump",
    "cooler",
    "colder",
    "fresco",
    "frio",
    "down",
    "increase",
    "raise",
    "lower",
    "reduce",
    "resize",
    "more",
    "less",
    "higher",
    "louder",
    "warmer",
    "cooler",
    "bigger",
    "smaller",
    "extend",
    "grow",
    "shrink",
    "sube",
    "subele",
    "subelo",
    "baja",
    "bajale",
    "aumenta",
    "aumentale",
    "mas",
    "menos",
    "monte",
    "augmente",
    "baisse",
    "reduis",
    "plus",
    "moins",
    "erhohe",
    "senke",
    "reduziere",
    "mehr",
    "weniger",
    "lauter",
    "leiser",
    "vergroßere",
    "vergrossere",
    "sobe",
    "baixa",
    "diminui",
    "diminua",
    "alza",
    "abbassa",
    "riduci",
    "piu",
    "meno",
];

/// Words right before a number (up to two between) that say it is what the thing is at now.
const NOW_BEFORE: &[&[&str]] = &[
    &["currently"],
    &["now"],
    &["is", "at"],
    &["s", "at"],
    &["sitting", "at"],
    &["stands", "at"],
    &["ahora"],
    &["actualmente"],
    &["esta", "en"],
    &["estamos", "a"],
    &["actuellement"],
    &["maintenant"],
    &["il", "fait"],
    &["fait", "que"],
    &["momentan"],
    &["aktuell"],
    &["derzeit"],
    &["gerade"],
    &["jetzt"],
    &["steht", "auf"],
    &["liegt", "bei"],
    &["agora"],
    &["atualmente"],
    &["esta", "em"],
    // Portuguese "em" joined to its article: "está no trinta".
    &["esta", "no"],
    &["esta", "na"],
    // Spoken "tá": "tá no 3".
    &["ta", "no"],
    &["ta", "na"],
    &["ta", "em"],
    &["est", "a"],
    &["adesso"],
    &["ahorita"],
    // What a thing is said to be at, in a request to change it: "it's like 17 degrees".
    &["it", "s"],
    &["it", "is"],
    &["es", "ist"],
    // The value it is compared with: "way bigger than the 3 we estimated".
    &["than"],
    &["als"],
    &["attualmente"],
];

/// Words right after a number that say the same ("it's 30 now"), unless a target comes first.
const NOW_AFTER: &[&str] = &[
    "now",
    "currently",
    "ahora",
    "maintenant",
    "actuellement",
    "jetzt",
    "gerade",
    "agora",
    "adesso",
];

/// Words right before a number that make it the value asked for: "up to 30", "auf 22".
const TARGET: &[&str] = &["to", "auf", "para", "su", "zu", "em", "on"];

pub fn read(tokens: &[Token], _context: &Context, facts: &mut Facts) {
    weight_changed(tokens, facts);
    outside(tokens, facts);
    if !tokens
        .iter()
        .any(|t| t.kind == Kind::Word && CHANGE.contains(&t.folded.as_str()))
    {
        return;
    }
    bind_where(facts, Role::Current, |s| {
        !s.ordinal && is_current(tokens, s.start, s.end)
    });
    bind_where(facts, Role::Change, |s| {
        !s.ordinal && (change_by(tokens, s.start) || change_after(tokens, s.end))
    });
}

/// Binds `role` to every number the text holds that `which` picks.
fn bind_where(facts: &mut Facts, role: Role, which: impl Fn(&NumberSpan) -> bool) {
    let picked: Vec<(usize, usize)> = facts
        .number_spans
        .iter()
        .filter(|s| which(s))
        .map(|s| (s.start, s.end))
        .collect();
    for (start, end) in picked {
        facts.bind(start..end, role);
    }
}

/// Verbs of losing or gaining weight, in the six (folded): "I lost 5 kg", "ich habe 5 Kilo
/// abgenommen", "ho perso 3 chili", "emagreci 4 quilos".
#[rustfmt::skip]
const WEIGHT_CHANGED: &[&str] = &[
    "lost", "gained", "lose", "gain", "perdi", "perdido", "perdu", "pris", "abgenommen",
    "zugenommen", "verloren", "perso", "preso", "emagreci", "engordei", "ganhei", "adelgace",
    "engorde", "maigri", "grossi", "dimagrito", "ingrassato",
];

/// Units of weight a body's change is said in (folded).
const WEIGHT_UNITS: &[&str] = &[
    "kg",
    "kgs",
    "kilo",
    "kilos",
    "kilogram",
    "kilograms",
    "lb",
    "lbs",
    "pound",
    "pounds",
    "libras",
    "livres",
    "chili",
    "quilos",
    "kilogramm",
    "kilogramos",
    "kilogrammes",
];

/// A weight lost or gained ("Ich habe 5 Kilo abgenommen, trag mein neues Gewicht ein") is how
/// much it changed ([`Role::Change`]), no weight to record: a verb of [`WEIGHT_CHANGED`] within
/// three words before the number or after its unit.
fn weight_changed(tokens: &[Token], facts: &mut Facts) {
    let verb = |t: &Token| t.kind == Kind::Word && WEIGHT_CHANGED.contains(&t.folded.as_str());
    bind_where(facts, Role::Change, |s| {
        tokens
            .get(s.end)
            .is_some_and(|u| WEIGHT_UNITS.contains(&u.folded.as_str()))
            && (tokens[s.start.saturating_sub(3)..s.start].iter().any(verb)
                || tokens.iter().skip(s.end + 1).take(3).any(verb))
    });
}

/// Words for outdoors (folded; "ß" stays, as typed without it too), before the degrees.
#[rustfmt::skip]
const OUTSIDE: &[&str] = &[
    "outside", "outdoors", "afuera", "fuera", "dehors", "draußen", "draussen", "fora", "fuori",
];

/// Words for outdoors after the degrees: English only, as "fuera", "fuori" and "draußen" after
/// them also say the user is away ("pon la calefacción a 16 grados mientras estoy fuera").
const OUTSIDE_AFTER: &[&str] = &["outside", "outdoors"];

/// Words of degrees after a number (folded, or the sign).
const DEGREES: &[&str] = &[
    "degree", "degrees", "grado", "grados", "degre", "degres", "grad", "grau", "graus", "gradi",
    "°", "°c", "°f", "ºc", "º",
];

/// The temperature outdoors ("afuera estamos a 5 grados", "it's 2 degrees outside") is the
/// weather's ([`Role::Outdoor`]), no temperature to set a heating to ([`a_setting`]): degrees
/// after the number, a word for outdoors within four words before it (or "outside" within
/// three after the degrees).
fn outside(tokens: &[Token], facts: &mut Facts) {
    let word_of = |list: &'static [&'static str]| {
        move |t: &Token| t.kind == Kind::Word && list.contains(&t.folded.as_str())
    };
    bind_where(facts, Role::Outdoor, |s| {
        let before = &tokens[s.start.saturating_sub(4)..s.start];
        let mut after = tokens.iter().skip(s.end + 1).take(3);
        tokens
            .get(s.end)
            .is_some_and(|u| DEGREES.contains(&u.folded.as_str()))
            && (before.iter().any(word_of(OUTSIDE)) || after.any(word_of(OUTSIDE_AFTER)))
    });
}

/// Words of a field about a value a thing is set to (folded): no outdoor temperature is one.
#[rustfmt::skip]
const SETTING: &[&str] = &[
    "target", "desired", "set", "setpoint", "setting", "objetivo", "deseada", "deseado", "cible",
    "souhaitee", "soll", "ziel", "alvo", "desejada", "obiettivo", "desiderata", "heating",
    "calefaccion", "chauffage", "heizung", "aquecimento", "riscaldamento", "thermostat",
    "termostato",
];

/// Whether a field's words (name and description, folded) are about a value to set.
pub fn a_setting<'a>(mut words: impl Iterator<Item = &'a String>) -> bool {
    words.any(|w| SETTING.contains(&w.as_str()))
}

/// Words of a step on a scale between an amount and its comparative: "2 degrees cooler",
/// "dois graus mais fresco", "two notches higher".
const STEPS: &[&str] = &[
    "degree", "degrees", "grado", "grados", "degre", "degres", "grad", "grau", "graus", "gradi",
    "level", "levels", "notch", "notches", "nivel", "niveles", "niveau", "niveaux", "stufe",
    "stufen", "niveis", "livello", "livelli", "points", "punto", "puntos", "punkte",
];

/// Whether the number ending at token `end` is an amount to change by, said before its step
/// and a comparative: "2 degrees cooler", "uns dois graus mais fresco".
fn change_after(tokens: &[Token], end: usize) -> bool {
    let words: Vec<&str> = tokens[end.min(tokens.len())..]
        .iter()
        .take_while(|t| t.kind == Kind::Word)
        .take(2)
        .map(|t| t.folded.as_str())
        .collect();
    matches!(words.as_slice(), [step, comparative, ..]
        if STEPS.contains(step) && (CHANGE.contains(comparative) || COMPARATIVES.contains(comparative)))
}

/// Words that compare when "by"'s word of the six follows them ("plus de", "más de").
const COMPARATIVES: &[&str] = &[
    "more", "less", "plus", "moins", "mas", "menos", "piu", "meno", "mais", "mehr", "weniger",
];

/// "by" before an amount of change, in the six languages.
const BY: &[&str] = &["by", "di", "um", "de", "en", "em"];

/// How many words before "by" the word that asks for a change may stand ("abbassa il
/// ventilatore di due").
const CHANGE_REACH: usize = 4;

/// Whether the number at token `start` follows "by" right after a word that asks for a
/// change, in its clause: "down by two", "abbassa il ventilatore di due", "erhöhe um 2".
fn change_by(tokens: &[Token], start: usize) -> bool {
    let Some(by) = start.checked_sub(1).and_then(|i| tokens.get(i)) else {
        return false;
    };
    if by.kind != Kind::Word || !BY.contains(&by.folded.as_str()) {
        return false;
    }
    // "plus de 4 étoiles", "menos de 2 escalas", "more than": a comparison, no change; "um 2
    // Uhr" is a time.
    let compares = start
        .checked_sub(2)
        .and_then(|i| tokens.get(i))
        .is_some_and(|t| COMPARATIVES.contains(&t.folded.as_str()));
    let timed = tokens.get(start + 1).is_some_and(|t| {
        matches!(
            t.folded.as_str(),
            "uhr" | "h" | "am" | "pm" | "heures" | "horas" | "ore"
        )
    });
    if compares || timed {
        return false;
    }
    tokens[..start - 1]
        .iter()
        .rev()
        .take_while(|t| t.kind == Kind::Word || t.lower == "'")
        .filter(|t| t.kind == Kind::Word)
        .take(CHANGE_REACH)
        .any(|t| CHANGE.contains(&t.folded.as_str()))
}

fn is_current(tokens: &[Token], start: usize, end: usize) -> bool {
    let words = |range: std::ops::Range<usize>| -> Vec<&str> {
        tokens[range]
            .iter()
            .filter(|t| t.kind == Kind::Word)
            .map(|t| t.folded.as_str())
            .collect()
    };
    // Words of hedging between a cue and its number say nothing: "it's like 17", "está como
    // en 20", "ist etwa 17".
    let before: Vec<&str> = words(start.saturating_sub(6)..start)
        .into_iter()
        .filter(|w| !HEDGES.contains(w))
        .collect();
    if before.last().is_some_and(|w| TARGET.contains(w)) && !now_before(&before) {
        return false;
    }
    if now_before(&before) {
        return true;
    }
    // "it's at 20 now", "está en 30 ahora": a cue after it, with a word of being before.
    let after_end = tokens.len().min(end + 3);
    before.last().is_some_and(|w| BEING.contains(w))
        && words(end..after_end)
            .iter()
            .take(2)
            .any(|w| NOW_AFTER.contains(w))
}

/// Hedges between a cue of the current value and its number.
const HEDGES: &[&str] = &[
    "like", "about", "around", "roughly", "como", "unos", "unas", "environ", "vers", "etwa",
    "ungefahr", "uns", "umas", "cerca", "circa", "tipo", "the",
];

/// Words right before a number that say a thing is at it: "is", "at", "está en", "steht auf".
const BEING: &[&str] = &[
    "is", "s", "at", "are", "en", "esta", "est", "ist", "auf", "bei", "em", "e", "sono", "fait",
];

/// A cue of [`NOW_BEFORE`] ends within the two words before the number.
fn now_before(before: &[&str]) -> bool {
    NOW_BEFORE.iter().any(|cue| {
        (0..=2).any(|gap| {
            before.len() >= cue.len() + gap
                && before[before.len() - gap - cue.len()..before.len() - gap] == **cue
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::facts::{read_for_test, Role};

    fn current(text: &str, value: f64) -> bool {
        let facts = read_for_test(text);
        facts
            .number_spans
            .iter()
            .any(|s| s.value == value && facts.roles.get(&s.start) == Some(&Role::Current))
    }

    #[test]
    fn a_value_said_as_where_a_thing_is_now() {
        assert!(current("Súbele un poco al volumen, ahora está en 30", 30.0));
        assert!(current(
            "Il ne fait que 19 degrés dans le salon, monte un peu le chauffage.",
            19.0
        ));
        assert!(current(
            "The volume on db-prod-2 is almost full, it's sitting at 500 GB. Resize it.",
            500.0
        ));
        assert!(current("Turn it up to 30, it's at 20 now", 20.0));
        assert!(!current("Turn it up to 30, it's at 20 now", 30.0));
        assert!(current(
            "ugh it's like 17 degrees in the bedroom, turn the heat up",
            17.0
        ));
        assert!(current(
            "súbele a la bocina de la sala, está bien bajito, ahorita está como en 20",
            20.0
        ));
        assert!(current(
            "bump the story points, it turned out way bigger than the 3 we estimated",
            3.0
        ));
        assert!(current(
            "Aumenta o volume da caixinha do quarto, tá no 3",
            3.0
        ));
        assert!(current("Monte le son, il est à 4", 4.0));
    }

    fn change(text: &str, value: f64) -> bool {
        let facts = read_for_test(text);
        facts
            .number_spans
            .iter()
            .any(|s| s.value == value && facts.roles.get(&s.start) == Some(&Role::Change))
    }

    fn outdoor(text: &str, value: f64) -> bool {
        let facts = read_for_test(text);
        facts
            .number_spans
            .iter()
            .any(|s| s.value == value && facts.roles.get(&s.start) == Some(&Role::Outdoor))
    }

    #[test]
    fn the_temperature_outdoors_is_the_weather_s() {
        assert!(outdoor(
            "Prende la calefacción, que afuera estamos a 5 grados",
            5.0
        ));
        assert!(outdoor(
            "It's 2 degrees outside, set the heating to 22",
            2.0
        ));
        assert!(outdoor(
            "Dehors il fait 3 degrés, mets le chauffage à 20",
            3.0
        ));
        // Away from home is no weather.
        assert!(!outdoor(
            "Pon la calefacción a 16 grados mientras estoy fuera",
            16.0
        ));
        assert!(!outdoor(
            "Metti il riscaldamento a 17 gradi, sono fuori",
            17.0
        ));
        assert!(outdoor("Draußen sind es minus 4 Grad", -4.0));
        // Read in its scale: 40 °F outside is no 40 °C.
        let weather = |value: f64, text: &str| {
            let name = vec!["temperature".to_owned(), "c".to_owned()];
            let facts = read_for_test(text);
            let field = super::super::quantity::Field {
                name: &name,
                description: &[],
            };
            super::super::quantity::traces(value, &field, &facts)
        };
        assert!(!weather(40.0, "It's 40°F outside, log today's weather"));
        assert!(weather(4.0, "It's 4°C outside, log today's weather"));
        // The value to set, the degrees said without "outside", and outside with no degrees.
        assert!(!outdoor(
            "It's 2 degrees outside, set the heating to 22",
            22.0
        ));
        assert!(!outdoor("Set the heating to 22 degrees", 22.0));
        assert!(!outdoor("Put 3 chairs outside", 3.0));
        let words = |w: &[&str]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert!(super::a_setting(words(&["target", "temperature"]).iter()));
        assert!(!super::a_setting(words(&["temperature"]).iter()));
    }

    #[test]
    fn an_amount_to_change_by() {
        assert!(change("turn the fan down by two levels", 2.0));
        assert!(change("Abbassa il ventilatore di due livelli", 2.0));
        assert!(change("Erhöhe die Temperatur um 2 Grad", 2.0));
        assert!(change("baisse le chauffage de deux degrés", 2.0));
        assert!(current(
            "Aumenta um pouco o volume da coluna, está no trinta",
            30.0
        ));
        // "by" with no change asked, or a target after "to": no amount of change.
        assert!(!change("book it by 5", 5.0));
        assert!(!change("turn the volume up to 30", 30.0));
        assert!(!change("lower the blinds. Room de 3", 3.0));
        assert!(!change("il costo di due biglietti", 2.0));
        assert!(!change("Trouve des hôtels avec plus de 4 étoiles", 4.0));
        assert!(!change("Busca vuelos con menos de 2 escalas", 2.0));
        assert!(!change("erhöhe die Heizung um 7 Uhr", 7.0));
        assert!(change(
            "deixa o ar condicionado uns dois graus mais fresco",
            2.0
        ));
        assert!(change("make it 2 degrees cooler", 2.0));
        assert!(!change("set it to 2 degrees", 2.0));
        assert!(!change("add 2 more towels", 2.0));
    }

    #[test]
    fn a_target_or_no_change_asked_is_no_current_value() {
        assert!(!current("Set the volume to 30 now", 30.0));
        assert!(!current("It's at 20 now, thanks", 20.0));
        assert!(!current("Stell die Heizung auf 22, bitte mehr Wärme", 22.0));
        assert!(!current("Book a table for 4 now, and more bread", 4.0));
    }
}
