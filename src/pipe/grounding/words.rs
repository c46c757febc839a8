//! Small word lists of the six languages grounding reads that more than one rule needs:
//! words that carry no content, negations, and the words that say "every". Keyed by the
//! folded form (lowercase, accents stripped).

/// Function words: said by every request, they trace nothing.
pub const STOPWORDS: &[&str] = &[
    // English
    "the", "and", "for", "with", "from", "into", "that", "this", "than", "then", "them", "they",
    "are", "was", "were", "will", "would", "should", "could", "can", "has", "have", "had", "not",
    "but", "all", "any", "its", "our", "your", "you", "his", "her", "their", "out", "about",
    "please", "also", "just", "some", "per", "via", "what", "when", "which", "who", "how",
    // Spanish
    "los", "las", "una", "del", "por", "para", "con", "que", "como", "mas", "pero", "sus",
    // French
    "les", "des", "une", "pour", "avec", "dans", "sur", "par", "qui", "que", "est", "sont", "aux",
    // German
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "und", "mit", "fur", "von",
    "auf", "ist", "sind", "bitte", "zum", "zur", // Portuguese
    "os", "as", "uma", "um", "do", "da", "dos", "das", "com", "para", "por", "que", "em", "no",
    "na", "nos", "nas", "pra", "pro", "pras", "pros", // Italian
    "il", "lo", "gli", "una", "uno", "del", "della", "dei", "delle", "con", "per", "che", "nel",
    "nella", "sono",
];

/// Words that may follow a number without being what it counts: courtesies, fillers and
/// the day it is for ("set it to 21 pls", "pon 22 porfa", "mets 19 stp", "4 tomorrow").
pub const ASIDES: &[&str] = &[
    // English
    "pls", "plz", "please", "thx", "thanks", "ty", "ok", "okay", "lol", "asap", "btw", "tho", "now",
    "today", "tonight", "tomorrow", "tmrw", "tmr", // Spanish
    "porfa", "porfis", "gracias", "hoy", "manana", "ya", // French
    "stp", "svp", "merci", "demain", "ce", "soir", "pardon", "sorry", "perdon", "desculpa",
    "scusa", "scusi", // German
    "bitte", "danke", "heute", "morgen", "gleich", // Portuguese
    "pfv", "obrigado", "obrigada", "valeu", "hoje", "amanha", // Italian
    "grazie", "pf", "oggi", "domani", "stasera",
];

/// Words that negate what follows: "without SSL", "sin azúcar", "ohne Bestätigung".
pub const NEGATIONS: &[&str] = &[
    "no",
    "not",
    "dont",
    "don",
    "doesnt",
    "doesn",
    // The other English contractions, as the tokenizer splits them ("isn" of "isn't") or as
    // people type them ("isnt").
    "isn",
    "isnt",
    "aren",
    "arent",
    "wasn",
    "wasnt",
    "weren",
    "werent",
    "shouldn",
    "shouldnt",
    "didn",
    "didnt",
    "mustn",
    "mustnt",
    "wouldn",
    "wouldnt",
    "cannot",
    "cant",
    "never",
    "without",
    "disable",
    "disabled",
    "off",
    "skip",
    "exclude",
    "sin",
    "nunca",
    "desactivar",
    "desactiva",
    "sans",
    "pas",
    "jamais",
    "desactiver",
    "desactive",
    "ne",
    "ohne",
    "nicht",
    "kein",
    "keine",
    "keinen",
    "nie",
    "deaktivieren",
    "deaktiviere",
    "nao",
    "sem",
    "nunca",
    "desativar",
    "desative",
    "senza",
    "niente",
    "nessun",
    "nessuna",
    "nessuno",
    "nada",
    "ningun",
    "ninguna",
    "ninguno",
    "aucun",
    "aucune",
    "nenhum",
    "nenhuma",
    // Nobody: "nobody needs a password", "que nadie lo vea" ("personne" is a person too).
    "nobody",
    "nadie",
    "niemand",
    "ninguem",
    "none",
    "non",
    "mai",
    "disattivare",
    "disattiva",
    // Switching off: "desliga as notificações", "apaga las alertas", "éteins le chauffage".
    "desliga",
    "desligar",
    "desligue",
    "apaga",
    "apagar",
    "apague",
    "eteins",
    "eteindre",
    "eteignez",
    "spegni",
    "spegnere",
    "ausschalten",
    "abschalten",
    "auszuschalten",
    "abzuschalten",
];

/// Words that say "every": "every day" is daily, "cada semana" weekly.
pub const EVERY: &[&str] = &[
    "every", "each", "per", "cada", "todos", "todas", "chaque", "tous", "toutes", "jeden", "jede",
    "jedes", "alle", "ogni", "tutti", "tutte", "todo", "toda",
];

/// Words that join one clause to the next: where a negation stops reaching, where an added
/// clause of free text starts. Not "o": Spanish "or", but the Portuguese article ("não ative
/// o alarme").
pub const JOINS: &[&str] = &[
    "and", "but", "or", "then", "y", "pero", "luego", "et", "mais", "ou", "puis", "und", "aber",
    "oder", "dann", "e", "mas", "depois", "ed", "ma", "oppure", "poi",
    // A reason starts a clause of its own: "I'll miss tomorrow because I have a fever".
    "because", "porque", "parce", "puisque", "weil", "denn", "perche", "pois",
];

/// Words that put one thing after another: what a flag about order rests on.
pub const SEQUENCE: &[&str] = &[
    "then",
    "after",
    "afterwards",
    "next",
    "finished",
    "once",
    "luego",
    "despues",
    "entonces",
    "puis",
    "ensuite",
    "apres",
    "dann",
    "danach",
    "anschliessend",
    "nachdem",
    "depois",
    "entao",
    "poi",
    "dopo",
    "quindi",
];

pub fn is(list: &[&str], folded: &str) -> bool {
    list.contains(&folded)
}

/// Answers that say yes, in the six languages (folded words, one or two): a user's message
/// that starts with one accepts what the assistant asked right before it.
#[rustfmt::skip]
const YES: &[&[&str]] = &[
    &["yes"], &["yeah"], &["yep"], &["yup"], &["sure"], &["ok"], &["okay"], &["correct"],
    &["exactly"], &["perfect"], &["absolutely"], &["definitely"], &["sounds", "good"],
    &["go", "ahead"], &["of", "course"], &["that", "s", "right"],
    &["si"], &["claro"], &["vale"], &["dale"], &["exacto"], &["perfecto"], &["correcto"],
    &["de", "acuerdo"], &["por", "supuesto"],
    &["oui"], &["ouais"], &["parfait"], &["exactement"], &["volontiers"], &["d", "'", "accord"],
    &["bien", "sur"], &["entendu"],
    &["ja"], &["jawohl"], &["genau"], &["gerne"], &["klar"], &["passt"], &["perfekt"],
    &["richtig"], &["na", "klar"], &["alles", "klar"],
    &["sim"], &["isso"], &["perfeito"], &["beleza"], &["certo"], &["exato"], &["fechado"],
    &["com", "certeza"], &["pode", "ser"],
    &["esatto"], &["perfetto"], &["va", "bene"], &["d", "'", "accordo"], &["certamente"],
];

/// Portuguese verbs that answer a question with "sim" after them (folded).
#[rustfmt::skip]
const SIM_VERBS: &[&str] = &[
    "quero", "queria", "pode", "podes", "posso", "tenho", "vou", "quer", "preciso", "aceito",
    "confirmo", "gostaria", "faz", "e", "esta", "ta", "da", "serve", "claro",
];

/// Answers that say no (folded), and what after one makes it a yes ("no problem").
const NO: &[&str] = &["no", "nah", "nope", "nao", "non", "nein", "nee", "niet"];
const NO_BUT_YES: &[&str] = &[
    "problem", "problema", "problemo", "probs", "worries", "doubt",
];

/// Whether `text` starts with a no ("nah, la normal", "não, obrigado", "Nein danke"),
/// not one that agrees ("No problem", "no worries").
pub fn declines(text: &str) -> bool {
    let words = first_words(text);
    words.first().is_some_and(|w| is(NO, w)) && !words.get(1).is_some_and(|w| is(NO_BUT_YES, w))
}

/// The first three words of `text`, folded (an apostrophe as itself).
fn first_words(text: &str) -> Vec<String> {
    // Its first words only: a user's message can hold a whole file.
    let mut end = text.len().min(64);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    super::tokens::tokenize(&text[..end])
        .iter()
        .skip_while(|t| t.kind == super::tokens::Kind::Punct)
        .take(3)
        .map(|t| match t.folded.as_str() {
            "’" => "'".to_owned(),
            w => w.to_owned(),
        })
        .collect()
}

/// Whether `text` starts with a yes ("Yes please", "Sí, claro", "Oui, parfait", "Ja,
/// bitte"): never a yes inside it ("not sure", "I'm ok with 8").
pub fn affirms(text: &str) -> bool {
    let words = first_words(text);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    // Portuguese says yes with the question's verb and "sim" ("Quero sim", "Pode sim"); never
    // "Se sim" (if so), "Pois sim", nor "2 SIM cards".
    let verb_and_sim = matches!(words.as_slice(), [first, "sim", ..] if is(SIM_VERBS, first));
    verb_and_sim || YES.iter().any(|yes| words.starts_with(yes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_that_starts_with_a_no_declines() {
        for text in [
            "nah, la normal",
            "não, obrigado",
            "Nein danke",
            "No.",
            "non merci",
            "nope",
        ] {
            assert!(declines(text), "{text}");
        }
        for text in [
            "No problem, book it",
            "no worries",
            "Not now, maybe later",
            "Yes",
            "I don't know",
        ] {
            assert!(!declines(text), "{text}");
        }
    }

    #[test]
    fn a_message_that_starts_with_a_yes_affirms() {
        for text in [
            "Yes please",
            "yep, book it",
            "Sí, claro",
            "Oui, parfait.",
            "D'accord, vas-y",
            "Ja, bitte",
            "Sim, pode ser",
            "Va bene, grazie",
            "¡Sí!",
            "Quero sim, uma de 23 kg.",
            "Pode sim",
            &format!("Yes please, and here is the file: {}", "x ".repeat(50_000)),
        ] {
            assert!(affirms(text), "{text}");
        }
        for text in [
            "not sure",
            "I'm ok with 8",
            "Mmm, déjame pensarlo",
            "Per ora mandale solo il messaggio",
            "No, thanks",
            "sinon demain",
            "Não sim, não quero",
            "Quero simplesmente o básico",
            "Se sim, manda",
            "New SIM card only, please",
            "2 SIM cards",
        ] {
            assert!(!affirms(text), "{text}");
        }
    }
}
