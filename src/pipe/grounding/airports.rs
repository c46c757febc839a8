//! Airports by their IATA codes, for a field about an airport ("IATA airport code", "Codice
//! IATA origine"): a code is said where the conversation names its airport ("O'Hare",
//! "Fiumicino") or its city in one of the six languages ("München", "Chicago"). A city with
//! several airports says each of them, unless one of them is named by its own name: "Chicago
//! O'Hare" says ORD and no MDW. The largest airports only; a code written as itself is
//! traced as written, and an airport not listed is left unsaid, as before. A city names an
//! airport only in a conversation about flying ("three hotel rooms in Philadelphia" says no
//! PHL); an airport's own name always does. A field of one
//! end of a trip (origin, destination) takes no place said only as the other end's: "de
//! Madrid a Buenos Aires" says no MAD for the destination.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::codes::key;
use super::evidence::Evidence;
use super::tokens::{tokenize, Kind, Token};

/// (code, its city's key in [`CITIES`], the airport's own names), folded.
#[rustfmt::skip]
const AIRPORTS: &[(&str, &str, &[&str])] = &[
    // The Americas
    ("ATL", "atlanta", &["hartsfield", "hartsfield-jackson"]),
    ("LAX", "los angeles", &[]),
    ("ORD", "chicago", &["o'hare", "ohare"]),
    ("MDW", "chicago", &["midway"]),
    ("DFW", "dallas", &["dallas fort worth", "dallas/fort worth"]),
    ("DAL", "dallas", &["love field"]),
    ("DEN", "denver", &[]),
    ("JFK", "new york", &["kennedy", "john f. kennedy"]),
    ("LGA", "new york", &["laguardia", "la guardia"]),
    ("EWR", "new york", &["newark"]),
    ("SFO", "san francisco", &[]),
    ("SEA", "seattle", &["sea-tac", "seatac"]),
    ("LAS", "las vegas", &["harry reid"]),
    ("MCO", "orlando", &[]),
    ("MIA", "miami", &[]),
    ("FLL", "fort lauderdale", &[]),
    ("BOS", "boston", &["logan"]),
    ("IAH", "houston", &["bush intercontinental", "george bush"]),
    ("HOU", "houston", &["hobby"]),
    ("PHX", "phoenix", &["sky harbor"]),
    ("IAD", "washington", &["dulles"]),
    ("DCA", "washington", &["reagan", "reagan national"]),
    ("MSP", "minneapolis", &[]),
    ("DTW", "detroit", &[]),
    ("PHL", "philadelphia", &[]),
    ("CLT", "charlotte", &[]),
    ("SAN", "san diego", &[]),
    ("AUS", "austin", &[]),
    ("YYZ", "toronto", &["pearson"]),
    ("YVR", "vancouver", &[]),
    ("YUL", "montreal", &["trudeau"]),
    ("MEX", "mexico city", &["benito juarez"]),
    ("CUN", "cancun", &[]),
    ("GRU", "sao paulo", &["guarulhos"]),
    ("CGH", "sao paulo", &["congonhas"]),
    ("GIG", "rio de janeiro", &["galeao"]),
    ("SDU", "rio de janeiro", &["santos dumont"]),
    ("EZE", "buenos aires", &["ezeiza"]),
    ("AEP", "buenos aires", &["aeroparque", "jorge newbery"]),
    ("BOG", "bogota", &["el dorado"]),
    ("LIM", "lima", &["jorge chavez"]),
    ("SCL", "santiago", &[]),
    // Europe
    ("LHR", "london", &["heathrow"]),
    ("LGW", "london", &["gatwick"]),
    ("STN", "london", &["stansted"]),
    ("LTN", "london", &["luton"]),
    ("LCY", "london", &["london city"]),
    ("CDG", "paris", &["charles de gaulle", "charles-de-gaulle", "roissy"]),
    ("ORY", "paris", &["orly"]),
    ("FRA", "frankfurt", &[]),
    ("MUC", "munich", &["franz josef strauss"]),
    ("BER", "berlin", &["brandenburg"]),
    ("HAM", "hamburg", &[]),
    ("DUS", "dusseldorf", &[]),
    ("CGN", "cologne", &["koln/bonn", "cologne/bonn"]),
    ("STR", "stuttgart", &[]),
    ("AMS", "amsterdam", &["schiphol"]),
    ("MAD", "madrid", &["barajas"]),
    ("BCN", "barcelona", &["el prat"]),
    ("PMI", "palma", &["son sant joan"]),
    ("AGP", "malaga", &[]),
    ("SVQ", "seville", &[]),
    ("VLC", "valencia", &[]),
    ("BIO", "bilbao", &[]),
    ("LIS", "lisbon", &["humberto delgado"]),
    ("OPO", "porto", &["francisco sa carneiro"]),
    ("FAO", "faro", &[]),
    ("FCO", "rome", &["fiumicino", "leonardo da vinci"]),
    ("CIA", "rome", &["ciampino"]),
    ("MXP", "milan", &["malpensa"]),
    ("LIN", "milan", &["linate"]),
    ("BGY", "bergamo", &["orio al serio"]),
    ("VCE", "venice", &["marco polo"]),
    ("NAP", "naples", &["capodichino"]),
    ("FLR", "florence", &["peretola"]),
    ("CTA", "catania", &["fontanarossa"]),
    ("PMO", "palermo", &["punta raisi", "falcone borsellino"]),
    ("BLQ", "bologna", &[]),
    ("TRN", "turin", &["caselle"]),
    ("ZRH", "zurich", &["kloten"]),
    ("GVA", "geneva", &[]),
    ("VIE", "vienna", &["schwechat"]),
    ("BRU", "brussels", &["zaventem"]),
    ("CPH", "copenhagen", &["kastrup"]),
    ("ARN", "stockholm", &["arlanda"]),
    ("OSL", "oslo", &["gardermoen"]),
    ("HEL", "helsinki", &["vantaa"]),
    ("DUB", "dublin", &[]),
    ("EDI", "edinburgh", &[]),
    ("MAN", "manchester", &[]),
    ("ATH", "athens", &[]),
    ("IST", "istanbul", &[]),
    ("SAW", "istanbul", &["sabiha gokcen"]),
    ("PRG", "prague", &[]),
    ("WAW", "warsaw", &["chopin"]),
    ("BUD", "budapest", &[]),
    ("SVO", "moscow", &["sheremetyevo"]),
    ("DME", "moscow", &["domodedovo"]),
    ("LYS", "lyon", &["saint-exupery"]),
    ("MRS", "marseille", &[]),
    ("TLS", "toulouse", &[]),
    // Asia, Africa, Oceania
    ("DXB", "dubai", &[]),
    ("DOH", "doha", &["hamad"]),
    ("AUH", "abu dhabi", &[]),
    ("HND", "tokyo", &["haneda"]),
    ("NRT", "tokyo", &["narita"]),
    ("KIX", "osaka", &["kansai"]),
    ("ICN", "seoul", &["incheon"]),
    ("GMP", "seoul", &["gimpo"]),
    ("PEK", "beijing", &["beijing capital"]),
    ("PKX", "beijing", &["daxing"]),
    ("PVG", "shanghai", &["pudong"]),
    ("SHA", "shanghai", &["hongqiao"]),
    ("HKG", "hong kong", &[]),
    ("SIN", "singapore", &["changi"]),
    ("BKK", "bangkok", &["suvarnabhumi"]),
    ("DMK", "bangkok", &["don mueang"]),
    ("KUL", "kuala lumpur", &[]),
    ("CGK", "jakarta", &["soekarno-hatta", "soekarno hatta"]),
    ("DEL", "delhi", &["indira gandhi"]),
    ("BOM", "mumbai", &["chhatrapati shivaji"]),
    ("SYD", "sydney", &["kingsford smith"]),
    ("MEL", "melbourne", &["tullamarine"]),
    ("BNE", "brisbane", &[]),
    ("PER", "perth", &[]),
    ("AKL", "auckland", &[]),
    ("JNB", "johannesburg", &["o.r. tambo", "or tambo"]),
    ("CPT", "cape town", &[]),
    ("CAI", "cairo", &[]),
    ("CMN", "casablanca", &["mohammed v"]),
    ("TLV", "tel aviv", &["ben gurion"]),
    // Codes of a city's airports together, said by the city.
    ("NYC", "new york", &[]),
    ("CHI", "chicago", &[]),
    ("WAS", "washington", &[]),
    ("YTO", "toronto", &[]),
    ("YMQ", "montreal", &[]),
    ("SAO", "sao paulo", &[]),
    ("RIO", "rio de janeiro", &[]),
    ("BUE", "buenos aires", &[]),
    ("LON", "london", &[]),
    ("PAR", "paris", &[]),
    ("MIL", "milan", &[]),
    ("ROM", "rome", &[]),
    ("STO", "stockholm", &[]),
    ("MOW", "moscow", &[]),
    ("TYO", "tokyo", &[]),
    ("OSA", "osaka", &[]),
    ("SEL", "seoul", &[]),
    ("BJS", "beijing", &[]),
];

/// Cities by their names in the six languages (folded), the key first. A city whose name is
/// also a common word ("Nice") is left out.
#[rustfmt::skip]
const CITIES: &[(&str, &[&str])] = &[
    ("los angeles", &["l.a"]),
    ("new york", &["nyc", "nueva york", "nova iorque", "nova york"]),
    ("washington", &["washington dc", "washington d.c"]),
    ("mexico city", &["ciudad de mexico", "cdmx", "cidade do mexico", "citta del messico",
        "mexico-stadt", "mexico df"]),
    ("sao paulo", &["san pablo"]),
    ("rio de janeiro", &["rio"]),
    ("montreal", &[]),
    ("london", &["londres", "londra"]),
    ("paris", &["parigi"]),
    ("munich", &["munchen", "munique", "monaco di baviera"]),
    ("cologne", &["koln", "colonia"]),
    ("dusseldorf", &[]),
    ("lisbon", &["lisboa", "lisbonne", "lissabon", "lisbona"]),
    ("rome", &["roma", "rom"]),
    ("milan", &["milano", "mailand", "milao"]),
    ("venice", &["venezia", "venecia", "venise", "venedig", "veneza"]),
    ("naples", &["napoli", "napoles", "neapel"]),
    ("florence", &["firenze", "florencia", "florenz", "florenca"]),
    ("turin", &["torino", "turim"]),
    ("seville", &["sevilla", "sevilha", "siviglia"]),
    ("geneva", &["geneve", "ginebra", "genf", "ginevra", "genebra"]),
    ("zurich", &["zurigo", "zurique"]),
    ("vienna", &["wien", "viena", "vienne"]),
    ("brussels", &["bruselas", "bruxelles", "brussel", "bruxelas"]),
    ("copenhagen", &["copenhague", "kopenhagen", "copenaghen", "copenhaga"]),
    ("stockholm", &["estocolmo", "stoccolma"]),
    ("athens", &["atenas", "athenes", "athen", "atene"]),
    ("istanbul", &["estambul", "istambul"]),
    ("prague", &["praga", "prag"]),
    ("warsaw", &["varsovia", "varsovie", "warschau", "varsavia"]),
    ("moscow", &["moscu", "moscou", "moskau", "moscovo", "mosca"]),
    ("edinburgh", &["edimburgo", "edimbourg"]),
    ("marseille", &["marsella", "marsiglia", "marselha", "marseilles"]),
    ("lyon", &["lione"]),
    ("tokyo", &["tokio", "toquio"]),
    ("seoul", &["seul"]),
    ("beijing", &["pekin", "peking", "pequim", "pechino"]),
    ("singapore", &["singapur", "singapour", "singapura"]),
    ("cairo", &["el cairo", "le caire", "kairo"]),
    ("cape town", &["ciudad del cabo", "le cap", "kapstadt", "cidade do cabo", "citta del capo"]),
];

/// Words of a field about an airport.
const ABOUT: &[&str] = &[
    "airport",
    "airports",
    "iata",
    "aeropuerto",
    "aeroport",
    "flughafen",
    "aeroporto",
];

/// Whether a field's folded name and description words speak of an airport.
pub fn about_an_airport(words: &[String]) -> bool {
    words.iter().any(|w| ABOUT.contains(&w.as_str()))
}

/// One end of a trip.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum End {
    From,
    To,
}

/// Words of a field about the start of a trip, and about its end (folded; German compounds
/// by their start: "Zielflughafen", "Abflughafen").
const FIELD_FROM: &[&str] = &[
    "origin",
    "departure",
    "depart",
    "departing",
    "source",
    "origen",
    "salida",
    "partida",
    "origem",
    "abflug",
    "start",
    "partenza",
    "provenienza",
];
const FIELD_TO: &[&str] = &[
    "destination",
    "arrival",
    "arriving",
    "destino",
    "llegada",
    "arrivee",
    "ziel",
    "chegada",
    "arrivo",
    "destinazione",
];

/// The end of a trip a field is about, if one alone: by "from" or "to" in its name
/// (`from_airport`), else by its name's and description's other words (`key_words` and
/// `words`, folded). "to" in a description is too common to tell ("the airport to fly from").
pub fn end_of(key_words: &[String], words: &[String]) -> Option<End> {
    match (
        key_words.iter().any(|w| w == "from"),
        key_words.iter().any(|w| w == "to"),
    ) {
        (true, false) => return Some(End::From),
        (false, true) => return Some(End::To),
        _ => {}
    }
    let has = |list: &[&str]| {
        words.iter().any(|w| {
            list.iter()
                .any(|l| w == l || (l.len() >= 4 && w.starts_with(l)))
        })
    };
    match (has(FIELD_FROM), has(FIELD_TO)) {
        (true, false) => Some(End::From),
        (false, true) => Some(End::To),
        _ => None,
    }
}

/// Words before a place that make it the start of a trip, or its end (folded).
const SAID_FROM: &[&str] = &[
    "from", "de", "desde", "depuis", "von", "ab", "da", "dal", "dalla", "do",
];
const SAID_TO: &[&str] = &[
    "to", "a", "para", "pra", "hacia", "vers", "nach", "zum", "per", "verso", "al", "ao", "au",
];

/// Words of an airport before "de"/"of" and its city: "al aeropuerto de Madrid" is where the
/// preposition before them says.
const AIRPORT_WORDS: &[&str] = &[
    "airport",
    "aeropuerto",
    "aeroport",
    "aeroporto",
    "flughafen",
];

/// Words that make the place after them, or after "in"/"en"/"at" and them, no end of the
/// trip: a stop on the way ("via Dubai", "a stopover in Frankfurt", "con escala en Madrid").
const STOPS: &[&str] = &[
    "stopover",
    "layover",
    "via",
    "escala",
    "scalo",
    "zwischenstopp",
    "umsteigen",
    "connecting",
];

/// Refusals right before a place: "but not Heathrow", "pas Orly", "nicht Tegel".
const REFUSALS: &[&str] = &["not", "pas", "nicht", "nao", "non"];

/// City names that are also common words or first names ("porto" is Italian "I bring", "lima"
/// a file, "Orlando" a name): they name the city only after a word of the trip's ends.
const AMBIGUOUS: &[&str] = &[
    "porto",
    "lima",
    "faro",
    "palma",
    "orlando",
    "austin",
    "charlotte",
    "phoenix",
    "santiago",
    "rio",
    "valencia",
    "bologna",
];

/// The end of a trip the words right before token `at` make the place there (one article
/// may stand between: "para o Porto").
fn said_as(tokens: &[Token], at: usize, english: bool) -> Option<End> {
    let word = |i: usize| {
        tokens
            .get(i)
            .filter(|t| t.kind == Kind::Word)
            .map(|t| t.folded.as_str())
    };
    // "al aeropuerto de Madrid": past the airport's words to the preposition before them.
    let at = match (
        at.checked_sub(1).and_then(word),
        at.checked_sub(2).and_then(word),
    ) {
        (Some("de" | "of" | "di" | "do" | "da"), Some(w)) if AIRPORT_WORDS.contains(&w) => at - 2,
        _ => at,
    };
    let articles = ["o", "a", "the", "el", "la", "le", "il", "lo"];
    // A label: "Origin: Lisbon, destination: Porto", "Destino: Valencia".
    if at >= 2 && tokens[at - 1].lower == ":" {
        let label = [tokens[at - 2].folded.clone()];
        if let Some(end) = end_of(&[], &label) {
            return Some(end);
        }
    }
    let before = at.checked_sub(1).and_then(word)?;
    // English "a" is an article ("a Chicago to Denver flight").
    if english && before == "a" {
        return None;
    }
    let before = if articles.contains(&before) {
        at.checked_sub(2)
            .and_then(word)
            .filter(|w| SAID_FROM.contains(w) || SAID_TO.contains(w))
            .unwrap_or(before)
    } else {
        before
    };
    if SAID_FROM.contains(&before) {
        Some(End::From)
    } else if SAID_TO.contains(&before) {
        Some(End::To)
    } else {
        None
    }
}

/// A name as folded tokens.
struct Name {
    words: Vec<String>,
    /// The airport it names (its index in [`AIRPORTS`]), or the city's key.
    names: Named,
}

enum Named {
    Airport(usize),
    City(&'static str),
}

/// Every name, by its first word, longest first within each (as `codes` keys its names).
fn names() -> &'static HashMap<String, Vec<Name>> {
    static NAMES: OnceLock<HashMap<String, Vec<Name>>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let words = |phrase: &str| -> Vec<String> {
            tokenize(phrase)
                .into_iter()
                .map(|t| key(&t).to_owned())
                .collect()
        };
        let mut out = Vec::new();
        for (i, (_, _, own)) in AIRPORTS.iter().enumerate() {
            for phrase in *own {
                out.push(Name {
                    words: words(phrase),
                    names: Named::Airport(i),
                });
            }
        }
        let mut cities: Vec<&'static str> = AIRPORTS.iter().map(|(_, city, _)| *city).collect();
        cities.sort_unstable();
        cities.dedup();
        for city in cities {
            let other = CITIES
                .iter()
                .find(|(key, _)| *key == city)
                .map_or(&[][..], |(_, names)| *names);
            for phrase in std::iter::once(&city).chain(other) {
                out.push(Name {
                    words: words(phrase),
                    names: Named::City(city),
                });
            }
        }
        // Longest first: "london city" before "london".
        out.sort_by_key(|n| std::cmp::Reverse(n.words.len()));
        let mut index: HashMap<String, Vec<Name>> = HashMap::new();
        for name in out {
            if let Some(first) = name.words.first() {
                index.entry(first.clone()).or_default().push(name);
            }
        }
        index
    })
}

/// The longest name that starts at token `at`.
fn name_at(tokens: &[Token], at: usize) -> Option<&'static Name> {
    names().get(key(tokens.get(at)?))?.iter().find(|n| {
        n.words
            .iter()
            .enumerate()
            .all(|(k, w)| tokens.get(at + k).is_some_and(|t| key(t) == w))
    })
}

/// Whether the conversation names the airport of `code` (upper case), or its city and none
/// of the city's airports by its own name; for a field about one `end` of a trip, not only
/// as the other end.
pub fn said(code: &str, end: Option<End>, evidence: &Evidence) -> bool {
    let Some(at) = AIRPORTS.iter().position(|(c, _, _)| *c == code) else {
        return false;
    };
    let city = AIRPORTS[at].1;
    let Read {
        airports,
        cities,
        refused,
    } = read(evidence);
    if refused.contains(&at) {
        return false;
    }
    let other_end = |said: &Option<End>| end.is_some() && said.is_some() && *said != end;
    let named: Vec<&Option<End>> = airports
        .iter()
        .filter(|(a, _)| *a == at)
        .map(|(_, e)| e)
        .collect();
    let by_city: Vec<&Option<End>> = cities
        .iter()
        .filter(|(c, _)| *c == city)
        .map(|(_, e)| e)
        .collect();
    let city_airport_named = airports.iter().any(|(a, _)| AIRPORTS[*a].1 == city);
    let mentions = if named.is_empty() && !city_airport_named && about_flying(evidence) {
        by_city
    } else {
        named
    };
    mentions.iter().any(|said| !other_end(said))
}

/// Words of flying in the six languages (folded), as written.
#[rustfmt::skip]
const FLYING: &[&str] = &[
    "fly", "flew", "flown", "flies", "flying", "plane", "planes", "vuelo", "vuelos", "volar",
    "vuela", "avion", "aviones", "vol", "vols", "voler", "avions", "flug", "fluge", "flugs",
    "fliegen", "fliege", "fliegt", "flieger", "voo", "voos", "voar", "aviao", "avioes", "volo",
    "voli", "volare", "aereo", "aerei",
];

/// Starts of words of flying ("flights", "airports", "Flughafen", "aeroporti").
const FLYING_STEMS: &[&str] = &[
    "flight",
    "airport",
    "airline",
    "airplane",
    "aeropuerto",
    "aeroport",
    "flughafen",
    "aeroporto",
];

/// Whether the conversation speaks of flying.
fn about_flying(evidence: &Evidence) -> bool {
    evidence.tokens.iter().any(|t| {
        t.kind == Kind::Word
            && (FLYING.contains(&t.folded.as_str())
                || FLYING_STEMS.iter().any(|s| t.folded.starts_with(s)))
    })
}

/// What [`read`] found: airports named by their own names and cities named, each with the
/// end of the trip the words before it make it, and airports named only to be turned down.
struct Read {
    airports: Vec<(usize, Option<End>)>,
    cities: Vec<(&'static str, Option<End>)>,
    refused: Vec<usize>,
}

/// The airports and cities the conversation names (see [`Read`]).
fn read(evidence: &Evidence) -> Read {
    let tokens = &evidence.tokens;
    // English "a" is an article, not "to".
    let english = evidence.languages.main == Some("en");
    let mut airports = Vec::new();
    let mut cities = Vec::new();
    let mut refused = Vec::new();
    // Where the last city named ends, and the end of the trip it is.
    let mut city_just_before: Option<(usize, Option<End>)> = None;
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].kind != Kind::Word {
            i += 1;
            continue;
        }
        match name_at(tokens, i) {
            Some(name) => {
                // "Chicago O'Hare": an airport right after its city is where the city is.
                let end = said_as(tokens, i, english).or_else(|| {
                    city_just_before
                        .filter(|(city_end, _)| *city_end == i)
                        .and_then(|(_, end)| end)
                });
                let after = i + name.words.len();
                // "a Chicago to Denver flight": a place right before "to" and another place is
                // where it starts ("Paris to see the Louvre", "Roma per tre giorni" are not).
                let end = end.or_else(|| {
                    let to = tokens.get(after).is_some_and(|t| {
                        t.kind == Kind::Word
                            && SAID_TO.contains(&t.folded.as_str())
                            && !(english && t.folded == "a")
                    });
                    (to && place_at(tokens, after + 1)).then_some(End::From)
                });
                if no_end(tokens, i, name, end.is_some()) {
                    if let Named::Airport(a) = name.names {
                        if refused_before(tokens, i) {
                            refused.push(a);
                        }
                    }
                    i = after;
                    continue;
                }
                match name.names {
                    Named::Airport(a) => airports.push((a, end)),
                    Named::City(c) => {
                        cities.push((c, end));
                        city_just_before = Some((after, end));
                    }
                }
                i = after;
            }
            None => i += 1,
        }
    }
    Read {
        airports,
        cities,
        refused,
    }
}

/// A refusal right before token `at`: "but not Heathrow".
fn refused_before(tokens: &[Token], at: usize) -> bool {
    let refusal = |i: usize| {
        tokens
            .get(i)
            .is_some_and(|t| t.kind == Kind::Word && REFUSALS.contains(&t.folded.as_str()))
    };
    let preposition = |i: usize| {
        tokens.get(i).is_some_and(|t| {
            SAID_FROM.contains(&t.folded.as_str()) || SAID_TO.contains(&t.folded.as_str())
        })
    };
    at.checked_sub(1).is_some_and(refusal)
        || (at.checked_sub(1).is_some_and(preposition) && at.checked_sub(2).is_some_and(refusal))
}

/// Whether a place's name starts at token `at`.
fn place_at(tokens: &[Token], at: usize) -> bool {
    name_at(tokens, at).is_some()
}

/// Whether the place named at token `at` is no end of the trip: turned down right before
/// ("not Heathrow"), a stop on the way ("a stopover in Frankfurt"), or an ambiguous name
/// ([`AMBIGUOUS`]) with no word of the trip's ends before it.
fn no_end(tokens: &[Token], at: usize, name: &Name, has_end: bool) -> bool {
    let words: Vec<&str> = tokens[..at]
        .iter()
        .rev()
        .take_while(|t| t.kind != Kind::Punct)
        .filter(|t| t.kind == Kind::Word)
        .take(2)
        .map(|t| t.folded.as_str())
        .collect();
    let refused = refused_before(tokens, at);
    // "via Dubai", "a stopover in Frankfurt", "con escala en Madrid"; not "no layover to
    // Tokyo", "sin escala a Madrid".
    let stop = match words.as_slice() {
        [w, ..] if STOPS.contains(w) => true,
        [place, w, ..] => ["in", "en", "em", "at", "im"].contains(place) && STOPS.contains(w),
        _ => false,
    };
    let ambiguous =
        name.words.len() == 1 && AMBIGUOUS.contains(&name.words[0].as_str()) && !has_end;
    refused || stop || ambiguous
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said_in(text: &str, code: &str) -> bool {
        said(
            code,
            None,
            &Evidence::new(text, jiff::civil::date(2026, 12, 5)),
        )
    }

    fn said_as_end(text: &str, code: &str, end: End) -> bool {
        said(
            code,
            Some(end),
            &Evidence::new(text, jiff::civil::date(2026, 12, 5)),
        )
    }

    #[test]
    fn one_end_of_a_trip_is_not_the_other() {
        let text = "búscame vuelos de Madrid a Buenos Aires pa febrero";
        assert!(said_as_end(text, "MAD", End::From));
        assert!(!said_as_end(text, "MAD", End::To));
        assert!(said_as_end(text, "EZE", End::To));
        assert!(!said_as_end(text, "EZE", End::From));
        let text = "voo de Lisboa para o Porto na sexta";
        assert!(said_as_end(text, "OPO", End::To));
        assert!(!said_as_end(text, "OPO", End::From));
        assert!(said_as_end(
            "flights from chicago o'hare to denver",
            "ORD",
            End::From
        ));
        assert!(!said_as_end(
            "flights from chicago o'hare to denver",
            "ORD",
            End::To
        ));
        // A place said with no end fits either.
        assert!(said_as_end("Munich flights on Monday", "MUC", End::To));
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let none: Vec<String> = Vec::new();
        assert_eq!(
            end_of(&none, &words(&["destination", "airport"])),
            Some(End::To)
        );
        assert_eq!(
            end_of(&none, &words(&["iata", "code", "des", "zielflughafens"])),
            Some(End::To)
        );
        assert_eq!(
            end_of(&none, &words(&["codigo", "iata", "de", "origem"])),
            Some(End::From)
        );
        assert_eq!(end_of(&none, &words(&["airport", "code"])), None);
        // "to" in a description says nothing; in the name it does.
        let described = [
            "iata",
            "code",
            "of",
            "the",
            "departure",
            "airport",
            "to",
            "fly",
            "from",
        ];
        assert_eq!(end_of(&none, &words(&described)), Some(End::From));
        assert_eq!(end_of(&words(&["to", "airport"]), &none), Some(End::To));
    }

    #[test]
    fn a_place_that_is_no_end_of_the_trip() {
        let from = |text: &str, code: &str| said_as_end(text, code, End::From);
        let to = |text: &str, code: &str| said_as_end(text, code, End::To);
        // English "a" is an article; "de" after an airport word is "of".
        assert!(!to("Book me a Chicago to Denver flight on Friday", "ORD"));
        assert!(!from(
            "Vuelo desde Londres al aeropuerto de Madrid el lunes",
            "MAD"
        ));
        assert!(to(
            "Vuelo desde Londres al aeropuerto de Madrid el lunes",
            "MAD"
        ));
        // A stop, a refusal, a common word: no end; "no layover", "sin escala" are none.
        assert!(to(
            "I need a flight with no layover to Tokyo from Seattle",
            "HND"
        ));
        assert!(to(
            "Quiero un vuelo sin escala a Madrid desde Londres",
            "MAD"
        ));
        assert!(!to("Fly me to Paris, not to London", "LHR"));
        assert!(!from(
            "I want to fly from Madrid to Rome, not from Barcelona",
            "BCN"
        ));
        // "in" is neither end; "per" and "to" before no other place mean "for".
        assert!(to(
            "I have a meeting in Denver on Monday, find me a flight from Seattle",
            "DEN"
        ));
        assert!(to(
            "Vorrei visitare Roma per tre giorni, volo da Milano",
            "FCO"
        ));
        assert!(to(
            "I'd like to visit Paris to see the Louvre; find me flights from New York",
            "CDG"
        ));
        // A label gives the end, and an ambiguous name with one is the city.
        assert!(to(
            "Origin: Lisbon, destination: Porto, date: December 12, flight please",
            "OPO"
        ));
        assert!(from("Austin to Denver flights next Friday", "AUS"));
        assert!(!to(
            "a flight to Berlin with a stopover in Frankfurt",
            "FRA"
        ));
        assert!(!to("Fly me to London on Monday, but not Heathrow", "LHR"));
        assert!(!from("Volo per Londra venerdì, porto anche il cane", "OPO"));
        assert!(!from(
            "book a flight to Boston for my friend Orlando",
            "MCO"
        ));
        assert!(to("voo de Lisboa para o Porto na sexta", "OPO"));
    }

    #[test]
    fn an_airport_by_its_name_or_its_city() {
        assert!(said_in(
            "find me flights from chicago o'hare to denver",
            "ORD"
        ));
        assert!(said_in(
            "find me flights from chicago o'hare to denver",
            "DEN"
        ));
        // Its city's other airport is not the one named.
        assert!(!said_in(
            "find me flights from chicago o'hare to denver",
            "MDW"
        ));
        assert!(said_in("such mir einen Flug nach München am Montag", "MUC"));
        assert!(said_in("volo da Roma Fiumicino a Catania giovedì", "FCO"));
        assert!(!said_in("volo da Roma Fiumicino a Catania giovedì", "CIA"));
        assert!(said_in("volo da Roma Fiumicino a Catania giovedì", "CTA"));
        // A city with several airports says each, and the code of them all.
        assert!(said_in("a flight to London on Monday", "LON"));
        assert!(said_in("a flight to London on Monday", "LHR"));
        assert!(said_in("a flight to London on Monday", "LGW"));
        // Another city, or a name inside a word, says nothing.
        assert!(!said_in("a flight to London on Monday", "CDG"));
        assert!(!said_in("vuelo a Lima el martes", "SCL"));
        assert!(!said_in("the romantic getaway", "FCO"));
        assert!(!said_in("a flight to Paris", "XXX"));
        // A city names an airport only where the conversation is about flying.
        assert!(!said_in("three hotel rooms in Philadelphia please", "PHL"));
        assert!(said_in("fly me to Philadelphia", "PHL"));
        assert!(said_in("flying to Philadelphia tomorrow", "PHL"));
        assert!(!said_in("a planet named Philadelphia", "PHL"));
        assert!(said_in("a hotel near Heathrow", "LHR"));
    }
}
