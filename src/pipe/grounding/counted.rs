//! What a number counts. "2 chats" counts cats and "dos niños" children: said of cats or
//! children, the number is no count of bedrooms or adults. A few classes of things that
//! tools count, in the six languages; a number whose noun is in one class traces no field
//! that counts another ("dos niños" is no `adults: 2`). Where either side is in no class the
//! number stays free: grounding may only strip what it can show was not said.

use super::tokens::stem;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// People in general: a count of them fits a count of adults or of children too.
    People,
    Adults,
    Children,
    Rooms,
    Bathrooms,
    Animals,
    /// Pages of a document ("le rapport de 12 pages" is no 12 copies).
    Pages,
    /// Copies of a document.
    Copies,
}

impl Class {
    /// Whether every word of the class names one kind of thing ("child", "kids", "niños"),
    /// not only things counted alike: a dog is no cat, a "pièce" no bedroom, a ticket no
    /// guest, a slide no page.
    fn one_kind(self) -> bool {
        matches!(
            self,
            Class::Adults | Class::Children | Class::Bathrooms | Class::Copies
        )
    }

    fn fits(self, other: Class) -> bool {
        self == other
            || matches!(
                (self, other),
                (Class::People, Class::Adults | Class::Children)
                    | (Class::Adults | Class::Children, Class::People)
            )
    }
}

/// Folded words (singular and plural, where the stem does not meet them) per class.
#[rustfmt::skip]
const CLASSES: &[(Class, &[&str])] = &[
    (Class::People, &[
        "people", "person", "persons", "guest", "pax", "attendee", "participant", "traveler",
        "traveller", "passenger", "visitor", "ticket", "seat", "diner", "player", "players",
        "jugador", "jugadores", "joueur", "joueurs", "spieler", "jogador", "jogadores",
        "giocatore", "giocatori",
        "persona", "personas", "invitado", "invitados", "asistente", "asistentes", "pasajero",
        "pasajeros", "viajero", "viajeros", "entrada", "entradas", "comensal", "comensales",
        "personne", "personnes", "invite", "invites", "participants", "passager", "passagers",
        "voyageur", "voyageurs", "billet", "billets", "couvert", "couverts",
        "personen", "gast", "gaste", "teilnehmer", "teilnehmerin", "passagier", "passagiere",
        "reisende", "reisenden", "karte", "karten",
        "pessoa", "pessoas", "convidado", "convidados", "passageiro", "passageiros",
        "viajante", "viajantes", "ingresso", "ingressos", "bilhete", "bilhetes",
        "ospite", "ospiti", "partecipante", "partecipanti", "passeggero", "passeggeri",
        "viaggiatore", "viaggiatori", "biglietto", "biglietti", "coperto", "coperti",
    ]),
    (Class::Adults, &[
        "adult", "grownup", "adulto", "adultos", "adulte", "adultes", "erwachsene",
        "erwachsenen", "erwachsener", "adulti",
    ]),
    (Class::Children, &[
        "child", "children", "kid", "kids", "minor", "infant", "baby", "babies", "nino",
        "ninos", "nina", "ninas", "hijo", "hijos", "menor", "menores", "enfant", "enfants",
        "bebe", "bebes", "kind", "kinder", "kindern", "crianca", "criancas", "filho", "filhos",
        "bambino", "bambini", "bambina", "bambine", "figlio", "figli", "ragazzi",
        "bimbo", "bimbi", "bimba", "bimbe", "crio", "crios", "peque", "peques", "nene", "nenes",
        "gosse", "gosses", "gamin", "gamins", "gamine", "gamines",
    ]),
    (Class::Rooms, &[
        "room", "bedroom", "habitacion", "habitaciones", "dormitorio", "dormitorios", "cuarto",
        "cuartos", "chambre", "chambres", "piece", "pieces", "zimmer", "schlafzimmer",
        "quarto", "quartos", "stanza", "stanze", "camere",
    ]),
    (Class::Bathrooms, &[
        "bathroom", "bath", "bano", "banos", "salle", "salles", "badezimmer", "bader",
        "banheiro", "banheiros", "bagno", "bagni",
    ]),
    (Class::Animals, &[
        "pet", "cat", "dog", "animal", "gato", "gatos", "perro", "perros", "mascota",
        "mascotas", "chat", "chats", "chien", "chiens", "katze", "katzen", "hund", "hunde",
        "haustier", "haustiere", "cao", "caes", "cachorro", "cachorros", "gatto", "gatti",
        "cane", "cani", "animali",
    ]),
    (Class::Pages, &[
        "page", "pages", "pagina", "paginas", "seite", "seiten", "pagine", "sheet", "sheets",
        "hoja", "hojas", "feuille", "feuilles", "blatt", "blatter", "folha", "folhas", "foglio",
        "fogli", "slide", "slides", "diapositiva", "diapositivas", "diapositive", "folie",
        "folien",
    ]),
    (Class::Copies, &[
        "copy", "copies", "copia", "copias", "exemplaire", "exemplaires", "kopie", "kopien",
        "exemplar", "exemplare", "copie", "ejemplar", "ejemplares",
    ]),
];

/// The class of a folded word, by the word or its stem.
fn class_of(word: &str) -> Option<Class> {
    let stemmed = stem(word);
    CLASSES
        .iter()
        .find(|(_, words)| words.contains(&word) || words.contains(&stemmed.as_str()))
        .map(|(class, _)| *class)
}

/// Whether a number counting `noun` (folded) may be the value of a field with these name and
/// description words: `false` only when the noun and the field count things of two classes.
pub fn fits(noun: &str, name: &[String], description: &[String]) -> bool {
    let Some(counted) = class_of(noun) else {
        return true;
    };
    // The field's own name says what it counts; its description only where the name does
    // not ("Number of guests" for `party_size`).
    let classes =
        |words: &[String]| -> Vec<Class> { words.iter().filter_map(|w| class_of(w)).collect() };
    let mut field = classes(name);
    if field.is_empty() {
        field = classes(description);
    }
    field.is_empty() || field.iter().any(|c| c.fits(counted))
}

/// Whether a field with these name and description words is about `noun` (folded) itself:
/// a word of the field's the noun's own (by their stems), or both of a class whose words name
/// one kind of thing ("child" for `children`; see `Class::one_kind`). A number joined to its noun ("two-bedroom", "one-way") counts
/// for such a field only: the compound says what is counted, and an idiom ("one-way",
/// "one-off", "two-factor") counts nothing.
pub fn names(noun: &str, name: &[String], description: &[String]) -> bool {
    let noun_stem = stem(noun);
    let counted = class_of(noun).filter(|c| c.one_kind());
    name.iter().chain(description).any(|w| {
        super::tokens::cognate(&stem(w), &noun_stem)
            || counted.is_some_and(|c| class_of(w) == Some(c))
    })
}

/// Whether `word` (folded) is of a class of one kind with one of `words` ("children" and
/// "kids", "niños" and "children"): a word of the same thing.
pub fn same_kind(word: &str, words: &[String]) -> bool {
    class_of(word)
        .filter(|c| c.one_kind())
        .is_some_and(|c| words.iter().any(|w| class_of(w) == Some(c)))
}

/// Words of a field about a group of people where no class word names it ("party_size",
/// "group size", "grupo").
const GROUPS: &[&str] = &["party", "group", "grupo", "groupe", "gruppe", "gruppo"];

/// Whether a field with these name and description words counts people: a class of people in
/// them, or a group's word.
pub fn counts_people(name: &[String], description: &[String]) -> bool {
    let people = |words: &[String]| {
        words.iter().any(|w| {
            GROUPS.contains(&w.as_str()) || class_of(w).is_some_and(|c| c.fits(Class::People))
        })
    };
    people(name) || people(description)
}

/// Whether a field with these name and description words counts everyone (`party_size`,
/// `guests`), not only adults or only children.
pub fn counts_everyone(name: &[String], description: &[String]) -> bool {
    let class =
        |words: &[String]| -> Vec<Class> { words.iter().filter_map(|w| class_of(w)).collect() };
    let mut classes = class(name);
    if classes.is_empty() {
        classes = class(description);
    }
    let group = name
        .iter()
        .chain(description)
        .any(|w| GROUPS.contains(&w.as_str()));
    (group
        && !classes
            .iter()
            .any(|c| matches!(c, Class::Adults | Class::Children)))
        || (!classes.is_empty() && classes.iter().all(|c| *c == Class::People))
}

/// Whether a field with these name and description words counts adults only (`adults`,
/// "Numero di adulti").
pub fn counts_adults(name: &[String], description: &[String]) -> bool {
    // The name says what it counts; the description only where the name does not ("adults",
    // "excluding children").
    let class =
        |words: &[String]| -> Vec<Class> { words.iter().filter_map(|w| class_of(w)).collect() };
    let mut classes = class(name);
    if classes.is_empty() {
        classes = class(description);
    }
    classes.contains(&Class::Adults) && !classes.contains(&Class::Children)
}

/// Whether `noun` (folded) names children: "bambini", "Kinder", "kids".
pub fn names_children(noun: &str) -> bool {
    class_of(noun) == Some(Class::Children)
}

/// Whether `noun` (folded) names adults: "adults", "adultos", "Erwachsene".
pub fn names_adults(noun: &str) -> bool {
    class_of(noun) == Some(Class::Adults)
}

/// Whether `noun` (folded) names people of any class: "adultes", "enfants", "Personen".
pub fn names_people(noun: &str) -> bool {
    class_of(noun).is_some_and(|c| c.fits(Class::People))
}

/// Words before a number that make it a head count: "we are 4", "somos 6", "on est 10", "wir
/// sind 3", "wir sind zu acht", "siamo in 5" (folded, one to three words).
#[rustfmt::skip]
const WE_ARE: &[&[&str]] = &[
    &["we", "are"], &["we", "re"], &["we", "will", "be"], &["somos"], &["seremos"],
    &["on", "est"], &["on", "sera"], &["nous", "sommes"], &["nous", "serons"], &["wir", "sind"],
    &["siamo"], &["saremo"], &["we", "ll", "be"], &["va", "etre"], &["allons", "etre"],
    &["vamos", "a", "ser"], &["vamos", "ser"], &["seremo"],
    // "siamo in venti", "wir sind zu acht": the idiom's own word before the number.
    &["siamo", "in"], &["saremo", "in"], &["wir", "sind", "zu"], &["wir", "waren", "zu"],
];

/// Words that make a number rough: "somos unos 15", "we're about 12", "on est environ 8".
#[rustfmt::skip]
const ABOUT: &[&str] = &[
    "about", "around", "roughly", "unos", "unas", "aproximadamente", "environ", "etwa", "ungefahr",
    "cerca", "uns", "umas", "circa", "tipo",
];

/// Whether the folded words `before` a number end with "we are" in one of the six, a word
/// that makes it rough or not between ("somos unos 15").
pub fn head_count(before: &[&str]) -> bool {
    let before = match before.split_last() {
        Some((last, rest)) if ABOUT.contains(last) => rest,
        _ => before,
    };
    WE_ARE.iter().any(|phrase| before.ends_with(phrase))
}

/// The speaker and a word joining others to them: "me and", "yo y", "moi et", "ich und",
/// "eu e", "io e" (folded).
const SELF_AND: &[(&[&str], &[&str])] = &[
    (&["me", "i", "myself"], &["and", "plus"]),
    (&["yo", "mi"], &["y", "con"]),
    (&["moi"], &["et", "plus"]),
    (&["ich", "mich", "mir"], &["und", "plus"]),
    (&["eu", "mim"], &["e", "com"]),
    (&["io", "me"], &["e", "con", "piu"]),
];

/// Whether the folded words `before` a number (a few words back) join the speaker to what it
/// counts: "for me and my two kids" counts three people, the two kids and the speaker.
fn with_self(before: &[&str]) -> bool {
    before.windows(2).any(|pair| {
        SELF_AND
            .iter()
            .any(|(me, and)| me.contains(&pair[0]) && and.contains(&pair[1]))
    })
}

/// One person each, said by a possessive and their relation: "my wife", "mi esposa", "ma
/// blonde", "meine Frau", "minha mãe", "mia moglie" (folded, singular).
#[rustfmt::skip]
const RELATIVES: &[&str] = &[
    "wife", "husband", "partner", "girlfriend", "boyfriend", "fiance", "fiancee", "mom", "mum",
    "mother", "dad", "father", "son", "daughter", "brother", "sister", "friend", "colleague",
    "boss", "grandma", "grandpa", "grandmother", "grandfather",
    "esposa", "esposo", "mujer", "marido", "pareja", "novia", "novio", "madre", "mama", "padre",
    "papa", "hijo", "hija", "hermano", "hermana", "amigo", "amiga", "jefe", "abuela", "abuelo",
    "femme", "mari", "copine", "copain", "conjoint", "conjointe", "blonde", "chum", "mere",
    "pere", "fils", "fille", "frere", "soeur", "ami", "amie", "patron",
    "frau", "mann", "freundin", "freund", "partnerin", "mutter", "vater", "sohn", "tochter",
    "bruder", "schwester", "chef", "chefin", "oma", "opa",
    "namorada", "namorado", "mae", "pai", "filho", "filha", "irmao", "irma", "chefe", "avo",
    "moglie", "marito", "compagna", "compagno", "fidanzata", "fidanzato", "figlio", "figlia",
    "fratello", "sorella", "amico", "amica", "capo", "nonna", "nonno",
];

/// Possessives before a relative: "my", "mi", "ma", "mon", "meine", "minha", "mia".
const MY: &[&str] = &[
    "my", "mi", "ma", "mon", "mein", "meine", "meinen", "meinem", "meiner", "minha", "meu", "mia",
    "mio",
];

/// Possessives and articles before a group's count: "and our two kids", "et les deux".
const GROUP: &[&str] = &[
    "our", "my", "the", "his", "her", "their", "mis", "nuestros", "nuestras", "los", "las", "sus",
    "mes", "nos", "les", "ses", "meine", "unsere", "die", "meus", "minhas", "nossos", "nossas",
    "os", "as", "miei", "mie", "nostri", "nostre", "i", "le",
];

/// Words that join a group to the people named before it: "and", "y", "et", "und", "e", "con",
/// and "plus" ("io più due colleghi"; "mais" and "más" only after one: "eu e mais três
/// amigos", since alone they are French and Portuguese "but").
const JOINS: &[&str] = &[
    "and", "plus", "y", "con", "et", "avec", "und", "mit", "e", "com", "piu",
];

/// Words for "more" that a join may take before the count: "e mais três", "y más dos".
const MORE: &[&str] = &["mais", "mas"];

/// The people the folded words `before` a number (several words back) name and join to what
/// it counts: the speaker and each relative with a possessive ("for me, my wife and our two
/// kids": 2 with the two kids, a party of 4). Zero unless a joining word stands right before
/// the number, or before its possessive or article ("and our two"), so "my wife and me, 2
/// people" adds no one.
pub fn joined_people(before: &[&str]) -> usize {
    // "e mais", "y más": the join's "more" is the join's.
    let before = match before {
        [rest @ .., join, more] if JOINS.contains(join) && MORE.contains(more) => rest
            .iter()
            .chain(std::iter::once(join))
            .copied()
            .collect::<Vec<_>>(),
        _ => before.to_vec(),
    };
    let before = &before[..];
    // A comma joins too before a possessive or an article ("mi novia, mis dos hermanos"),
    // never right before the number ("for me, 2 people" are two).
    let joins = |word: &&str| JOINS.contains(word) || *word == ",";
    let joined = match before {
        // "e i miei due fratelli": an article and a possessive.
        [.., join, article, last]
            if joins(join) && GROUP.contains(article) && GROUP.contains(last) =>
        {
            true
        }
        [.., join, last] => JOINS.contains(last) || (joins(join) && GROUP.contains(last)),
        [last] => JOINS.contains(last),
        [] => false,
    };
    if !joined {
        return 0;
    }
    let words: Vec<&str> = before.iter().copied().filter(|w| *w != ",").collect();
    let before = &words[..];
    let speaker = usize::from(
        with_self(before)
            || before.windows(2).any(|pair| {
                SELF_AND.iter().any(|(me, _)| me.contains(&pair[0])) && MY.contains(&pair[1])
            }),
    );
    let relatives = before
        .windows(2)
        .filter(|pair| MY.contains(&pair[0]) && RELATIVES.contains(&pair[1]))
        .count();
    speaker + relatives
}

/// The speaker said alone after a joining word: "y yo", "and me", "et moi", "und ich", "e
/// eu", "e io" (folded).
const SELF: &[&str] = &[
    "me", "i", "myself", "yo", "mi", "moi", "ich", "mich", "eu", "io",
];

/// Singular articles and possessives before one more person: "più il bimbo", "and my wife".
const ONE_MORE: &[&str] = &[
    "the", "a", "an", "my", "el", "la", "un", "una", "mi", "le", "une", "mon", "ma", "der", "die",
    "das", "ein", "eine", "mein", "meine", "o", "um", "uma", "meu", "minha", "il", "lo", "uno",
    "mio", "mia",
];

/// The people the folded words `after` a count (a few words on) join to it, each after a
/// joining word: the speaker ("mis dos críos y yo") and one person or child with a singular
/// article or possessive ("noi quattro più il bimbo", "two kids and my wife"), where the
/// person ends what is joined. The caller gives the words up to the clause's end.
pub fn joined_after(after: &[&str]) -> usize {
    // A person ends what is joined: the clause ends, another joins, or a function word goes
    // on ("il bimbo nel seggiolone"); "and I'd like", "a baby seat" join no one.
    let ends = |rest: &[&str]| {
        rest.first()
            .is_none_or(|next| JOINS.contains(next) || super::language::function_word(next))
    };
    let mut count = 0;
    for (i, word) in after.iter().enumerate() {
        if !JOINS.contains(word) && *word != "piu" && *word != "mas" {
            continue;
        }
        match after.get(i + 1..) {
            Some([me, rest @ ..]) if SELF.contains(me) && ends(rest) => count += 1,
            Some([one, who, rest @ ..])
                if ONE_MORE.contains(one)
                    && (RELATIVES.contains(who)
                        || class_of(who).is_some_and(|c| c.fits(Class::Children)))
                    && ends(rest) =>
            {
                count += 1;
            }
            _ => {}
        }
    }
    count
}

/// Articles that count one: "a child", "un enfant", "ein Kind", "uma criança".
const ONE: &[&str] = &[
    "a", "an", "un", "una", "une", "uno", "ein", "eine", "einen", "einem", "einer", "um", "uma",
];

/// Whether the text (folded words, in order) counts one of what a field with these name and
/// description words counts, with an article: "2 adults and a child" is `children: 1`. The
/// field must count a class, and the article stand right before its noun or one word
/// before it ("a single room").
pub fn one_said(words: &[&str], name: &[String], description: &[String]) -> bool {
    let classes =
        |words: &[String]| -> Vec<Class> { words.iter().filter_map(|w| class_of(w)).collect() };
    let mut field = classes(name);
    if field.is_empty() {
        field = classes(description);
    }
    if field.is_empty() {
        return false;
    }
    words.iter().enumerate().any(|(i, word)| {
        class_of(word).is_some_and(|counted| field.iter().any(|c| c.fits(counted)))
            && (1..=2).any(|back| i >= back && ONE.contains(&words[i - back]))
    })
}

#[cfg(test)]
mod joined_tests {
    use super::*;

    fn joined(text: &str) -> usize {
        let words: Vec<&str> = text.split_whitespace().collect();
        joined_people(&words)
    }

    #[test]
    fn a_head_count_rough_or_not() {
        assert!(head_count(&["que", "somos", "unos"]));
        assert!(head_count(&["we", "are", "about"]));
        assert!(head_count(&["on", "est"]));
        assert!(head_count(&["wir", "sind", "zu"]));
        assert!(head_count(&["festa", "siamo", "in"]));
        assert!(!head_count(&["sind", "zu"]));
        assert!(!head_count(&["vivo", "in"]));
        assert!(!head_count(&["buy", "about"]));
    }

    #[test]
    fn people_named_and_joined_to_a_count() {
        assert_eq!(joined("for me and my"), 1);
        assert_eq!(joined("tonight for me my wife and our"), 2);
        assert_eq!(joined("pour moi ma blonde et les"), 2);
        assert_eq!(joined("para mi esposa y mis"), 1);
        assert_eq!(joined("per me e i miei"), 1);
        // A comma in a list, before a possessive: "para mi novia, mis dos hermanos y yo".
        assert_eq!(joined("concierto para mi novia , mis"), 1);
        assert_eq!(joined("for me , my wife and our"), 2);
        // "Plus" joins too: "pra mim e mais três", "per me più due".
        assert_eq!(joined("pra mim e mais"), 1);
        assert_eq!(joined("prenota per me piu"), 1);
        assert_eq!(joined("quarto para mim e meu filho , mas"), 0);
        assert_eq!(joined("pour moi et ma femme , mais"), 0);
        // Not joined to the count: nobody added, nor by a comma right before it.
        assert_eq!(joined("table for me , "), 0);
        assert_eq!(joined("for my wife and me"), 0);
        assert_eq!(joined("table for"), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipe::grounding::tokens::words_of;

    fn count(noun: &str, name: &str, description: &str) -> bool {
        fits(noun, &words_of(name), &words_of(description))
    }

    #[test]
    fn a_count_of_one_thing_is_no_count_of_another() {
        assert!(!count("chats", "bedrooms", "Nombre minimum de chambres"));
        assert!(!count("ninos", "adults", "Número de entradas de adulto"));
        assert!(!count("rooms", "guests", ""));
        assert!(!count("bathrooms", "bedrooms", ""));
    }

    #[test]
    fn a_count_of_the_same_thing_or_of_an_unknown_one() {
        assert!(count("adultos", "adults", ""));
        assert!(count("people", "party_size", "Number of guests"));
        assert!(count("personnes", "covers", "Nombre de couverts"));
        assert!(count(
            "kids",
            "ticket_count",
            "Number of tickets to purchase"
        ));
        assert!(count("habitaciones", "bedrooms", ""));
        assert!(count("apples", "quantity", ""));
        assert!(count("people", "limit", "How many results to return"));
        // A count of results is of whatever is searched: "10 restaurants", "3 habitaciones".
        assert!(count(
            "habitaciones",
            "max_results",
            "Máximo de anuncios a devolver"
        ));
    }

    #[test]
    fn people_joined_after_a_count() {
        let after = |text: &str| {
            let words = words_of(text);
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            joined_after(&words)
        };
        assert_eq!(after("crios y yo"), 1);
        assert_eq!(after("più il bimbo nel seggiolone"), 1);
        assert_eq!(after("kids and my wife and me"), 2);
        // A thing joined, or a plural with no count, adds no one.
        assert_eq!(after("and a high chair"), 0);
        assert_eq!(after("plus les parents de Julie"), 0);
        assert_eq!(after("tickets and a coffee"), 0);
        assert_eq!(after("and i d like the window"), 0);
        assert_eq!(after("e me manda a confirmacao"), 0);
        assert_eq!(after("and a baby seat"), 0);
    }

    #[test]
    fn one_counted_by_an_article() {
        let one = |text: &str, name: &str| {
            let words = words_of(text);
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            one_said(&words, &words_of(name), &[])
        };
        assert!(one("book a room for 2 adults and a child", "children"));
        assert!(one("Ajoute un enfant", "children"));
        assert!(one("a single room please", "rooms"));
        // An article before another class, or a field that counts no class: nothing.
        assert!(!one("book a room for 2 adults and a child", "adults"));
        assert!(!one("a child seat", "quantity"));
        assert!(!one("two children", "children"));
    }
}
