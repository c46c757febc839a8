//! A name said in a role another field's: the name a message is signed with, closed with or
//! sent from is its sender's ("Envia um email à Inês…, assina como Rui", "fírmalo como
//! Andrés", "mittente Ciro Esposito", "de parte de Jorge Medina", "Cheers, Declan" ending the
//! message, "da parte mia e di Chiara"), none of them whom it goes to; the name of a pet
//! ("unseren Kater Moritz", "my dog Bella") is no owner's; the name a relative is named by
//! ("la fille de Marc", "a mãe do Rafael", "Marc's daughter") is not the relative's, and a
//! venue's ("el restaurante Don Julio", "im Hans im Glück") is no person's, for a field about
//! a person (whom to call, invite, book for). The user's own name ("moi c'est Hervé", "from me
//! (Daniel)", "Sono Paola" opening a sentence) is not whom a message goes to, not their own
//! doctor, vet or barber, nor a relative they book for; a name said as a trade's ("il
//! pediatra è il dottor Colombo") is not the patient's.

use super::evidence::Evidence;
use super::tokens::{ends_with, places_of, tokenize, words_of, Kind, Token};

/// Words that sign with the name right after them (folded).
#[rustfmt::skip]
const SIGN: &[&[&str]] = &[
    &["sign", "as"], &["sign", "it", "as"], &["signed", "as"], &["sign", "off", "as"],
    &["signed"], &["sign", "with"], &["sign", "it", "with"], &["signature"],
    &["firmalo", "como"], &["firmala", "como"], &["firma", "como"], &["firmado", "por"],
    &["firmado"], &["firmada"],
    &["signe"], &["signez"], &["signe", "-", "le"], &["signe", "-", "la"],
    &["unterschreib", "mit"], &["unterschreibe", "mit"], &["unterzeichne", "mit"],
    &["unterschrieben", "von"], &["gezeichnet"],
    &["assina", "como"], &["assine", "como"], &["assinar", "como"], &["assinado", "por"],
    &["assinado"], &["assinada"],
    &["firma", "come"], &["firmala", "come"], &["firmalo", "come"], &["firmato"], &["firmata"],
];

/// Words that name the sender right before the name (folded): "de parte de", "mittente",
/// "Absender"; not "from", whose name is often whom a reply goes to ("reply to the email from
/// Sarah").
#[rustfmt::skip]
const SENT_FROM: &[&[&str]] = &[
    &["sender"], &["de", "parte", "de"], &["remitente"], &["remetente"],
    &["da", "parte", "de"], &["de", "la", "part", "de"], &["expediteur"], &["absender"],
    &["im", "auftrag", "von"], &["da", "parte", "di"], &["mittente"],
    // A sender beside the user: "da parte mia e di Chiara", "from me and Jake".
    &["from", "me", "and"], &["de", "mi", "parte", "y", "de"], &["de", "parte", "mia", "y", "de"],
    &["de", "ma", "part", "et", "de"], &["de", "moi", "et", "de"], &["von", "mir", "und"],
    &["da", "minha", "parte", "e", "de"], &["da", "parte", "mia", "e", "di"],
    &["da", "parte", "mia", "e", "del"], &["da", "me", "e", "da"],
];

/// Words that close a message before the sender's name at its end ("Cheers, Declan",
/// "Bonne journée, Hélène"), folded.
#[rustfmt::skip]
const CLOSINGS: &[&[&str]] = &[
    &["cheers"], &["thanks"], &["thank", "you"], &["regards"], &["best"], &["best", "regards"],
    &["kind", "regards"], &["all", "the", "best"], &["sincerely"], &["love"], &["ta"],
    &["saludos"], &["un", "saludo"], &["gracias"], &["abrazos"], &["un", "abrazo"], &["atte"],
    &["atentamente"], &["besos"],
    &["merci"], &["cordialement"], &["bonne", "journee"], &["bonne", "soiree"], &["bises"],
    &["amities"], &["a", "bientot"], &["bien", "a", "vous"],
    &["danke"], &["gruss"], &["grusse"], &["lg"], &["vg"], &["mfg"], &["viele", "grusse"],
    &["liebe", "grusse"], &["beste", "grusse"], &["schonen", "tag"], &["bis", "bald"],
    &["obrigado"], &["obrigada"], &["abracos"], &["um", "abraco"], &["beijos"], &["bjs"],
    &["att"], &["atenciosamente"],
    &["grazie"], &["saluti"], &["cordiali", "saluti"], &["un", "abbraccio"], &["baci"],
    &["buona", "giornata"], &["a", "presto"],
];

/// People a name is the relative of, before "of" or after "'s" ("la fille de Marc", "Marc's
/// daughter"), folded.
#[rustfmt::skip]
const KIN: &[&str] = &[
    "mother", "mom", "mum", "father", "dad", "daughter", "son", "wife", "husband", "sister",
    "brother", "aunt", "uncle", "niece", "nephew", "cousin", "grandmother", "grandfather",
    "grandma", "grandpa", "boss", "assistant", "secretary", "friend", "girlfriend", "boyfriend",
    "partner", "kid", "kids", "child", "children", "parents", "teacher", "neighbour", "neighbor",
    "colleague", "coworker",
    "madre", "mama", "padre", "papa", "hija", "hijo", "esposa", "esposo", "marido", "hermana",
    "hermano", "tia", "tio", "sobrina", "sobrino", "abuela", "abuelo", "jefe",
    "jefa", "asistente", "secretaria", "amiga", "amigo", "novia", "novio", "hijos", "padres",
    "vecina", "vecino", "colega",
    "mere", "maman", "pere", "fille", "fils", "femme", "mari", "epouse", "soeur", "frere",
    "tante", "oncle", "neveu", "cousine", "patron", "patronne", "chef", "assistante", "amie",
    "ami", "copine", "copain", "enfants", "enfant", "voisine", "voisin", "collegue",
    "mutter", "vater", "tochter", "sohn", "ehefrau", "ehemann", "schwester", "bruder",
    "onkel", "nichte", "neffe", "oma", "opa", "chefin", "freundin", "freund", "kinder", "kind",
    "eltern", "nachbarin", "nachbar", "kollegin", "kollege",
    "mae", "pai", "filha", "filho", "mulher", "irma", "irmao", "sobrinha", "avo", "chefe",
    "namorada", "namorado", "filhos", "pais", "vizinha", "vizinho",
    "mamma", "figlia", "figlio", "moglie", "sorella", "fratello", "zia", "zio", "nipote",
    "cugina", "cugino", "nonna", "nonno", "capo", "amica", "amico", "fidanzata", "fidanzato",
    "figli", "genitori", "vicina", "vicino",
    // In-laws.
    "suegro", "suegra", "suegros", "sogro", "sogra", "sogros", "suocero", "suocera",
    "suoceri", "schwiegervater", "schwiegermutter", "schwiegereltern",
];

/// "Of" between a relative and the name ("la fille de Marc", "die Mutter von Jan").
const OF: &[&str] = &[
    "of", "de", "do", "da", "dos", "das", "di", "del", "della", "dello", "du", "des", "von", "vom",
    "d",
];

/// People a name beside "of" is not ("la maestra di Giulia", "the lawyer of Mr Park"): people
/// by their trade, whom a field may be about (`doctor_name`), folded.
#[rustfmt::skip]
const TRADES: &[&str] = &[
    "doctor", "dentist", "lawyer", "plumber", "electrician", "tutor", "coach", "nanny",
    "babysitter", "vet", "veterinarian", "dermatologist", "pediatrician", "therapist",
    "mechanic", "landlord", "barber", "hairdresser", "physician",
    "maestra", "maestro", "insegnante", "professoressa", "professore", "prof", "medico",
    "dottore", "dottoressa", "dentista", "avvocato", "avvocata", "idraulico", "elettricista",
    "pediatra", "dermatologa", "dermatologo", "allenatore", "allenatrice", "tata",
    "profesora", "profesor", "doctora", "abogado", "abogada", "fontanero",
    "electricista", "entrenador", "entrenadora", "niñera", "ninera", "veterinario",
    "veterinaria",
    "professeur", "professeure", "maitresse", "maitre", "instituteur", "institutrice",
    "medecin", "docteur", "avocat", "avocate", "plombier", "electricien", "nounou",
    "veterinaire", "dermatologue", "pediatre", "entraineur", "proprietaire",
    "lehrer", "lehrerin", "arzt", "arztin", "zahnarzt", "zahnarztin", "anwalt", "anwaltin",
    "klempner", "elektriker", "trainer", "trainerin", "tierarzt", "tierarztin", "vermieter",
    "vermieterin", "hausarzt", "hausarztin", "kinderarzt", "kinderarztin",
    "professora", "professor", "advogado", "advogada", "encanador", "eletricista",
    "treinador", "treinadora", "baba", "dermatologista", "medica",
];

/// Words for a person's title between "of" or "by" and the name ("von Herrn Köhler", "dal
/// signor Bianchi"), folded.
#[rustfmt::skip]
const TITLES: &[&str] = &[
    "mr", "mrs", "ms", "miss", "dr", "prof", "sir", "herr", "herrn", "frau", "monsieur",
    "madame", "mme", "m", "mlle", "senor", "senora", "sr", "sra", "srta", "don", "dona",
    "senhor", "senhora", "signor", "signora", "signore", "sig", "dott", "dottor", "doktor",
    ".",
];

/// "By" between a recommendation and the one who gave it ("consigliato dal signor Bianchi").
const BY: &[&str] = &[
    "by", "da", "dal", "dalla", "dallo", "von", "vom", "par", "por", "pelo", "pela", "de",
];

/// Beginnings of the words that recommend someone (folded): whoever recommends is not who
/// was recommended ("the dermatologist Fernanda recommended", "que a Fernanda me indicou").
const RECOMMENDS: &[&str] = &[
    "recommend",
    "recomend",
    "recommand",
    "raccomand",
    "consigli",
    "conseill",
    "empfohl",
    "empfahl",
    "empfiehl",
    "empfehl",
    "indicou",
    "indicad",
    "indico",
    "suggest",
    "sugger",
    "suger",
    "referred",
];

/// Words between a name and the recommending verb after it ("che Bianchi mi ha consigliato",
/// "qu'Anne m'a recommandé"), folded.
const RECOMMENDED_TO: &[&str] = &[
    "me", "mi", "m", "'", "’", "a", "ha", "hat", "has", "have", "had", "mir", "uns", "nos", "ci",
    "te", "ti", "dir", "us",
];

/// Things a message forwards, whose "of" names who wrote them ("le mail de Sophie", "die
/// Rechnung von Herrn Köhler"), folded.
#[rustfmt::skip]
const WRITTEN: &[&str] = &[
    "email", "mail", "e-mail", "message", "text", "invoice", "letter", "document", "file",
    "note", "correo", "mensaje", "factura", "carta", "documento", "archivo", "nota",
    "courriel", "facture", "lettre", "fichier", "nachricht", "rechnung", "brief", "datei",
    "dokument", "notiz", "mensagem", "fatura", "arquivo", "messaggio", "fattura", "lettera",
    "sms",
];

/// Beginnings of the words that forward a message (folded): who wrote it is then no
/// recipient ("Transfère le mail de Sophie à Marc"); a reply goes back to its writer.
const FORWARDS: &[&str] = &[
    "forward",
    "fwd",
    "transfer",
    "reenvi",
    "reencaminh",
    "encaminh",
    "inoltr",
    "weiterleit",
];

/// Places a name right after is the name of ("el restaurante Don Julio"), folded.
#[rustfmt::skip]
const VENUES: &[&str] = &[
    "restaurant", "restaurante", "ristorante", "trattoria", "pizzeria", "osteria", "bar",
    "cafe", "hotel", "brasserie", "bistro", "bistrot", "gasthaus", "gasthof", "wirtshaus",
    "taberna", "tasca", "churrascaria", "cantina", "pub", "diner", "steakhouse", "parrilla",
    // Shops and services named after a person ("Tony's Barbershop", "Pizzaria do Zé").
    // Not a trade's person ("my barber Tony", "meinem Friseur Jan"), nor a word that is a
    // verb or an office ("Store John Smith", "la oficina de Lucía").
    "pizzaria", "shop", "barbershop", "salon", "bakery", "deli", "garage", "tienda",
    "panaderia", "peluqueria", "barberia", "boulangerie", "patisserie", "boucherie", "laden",
    "backerei", "metzgerei", "werkstatt", "loja", "padaria", "barbearia", "lanchonete",
    "negozio", "panificio", "pasticceria",
];

/// Words that join a place's word to the person it is named after ("Pizzaria do Zé",
/// "Panadería de Manolo", "Salon chez Anna"), folded.
const NAMED_AFTER: &[&str] = &[
    "do", "da", "de", "del", "di", "della", "du", "des", "von", "vom", "chez", "of",
];

/// German "in dem", "in das" right before a place's name: "einen Tisch im Hans im Glück"
/// (never with a word between: "im Büro Lisa" is Lisa at the office).
const IN_THE: &[&str] = &["im", "ins"];

/// Words of a field's name that make it about a person someone calls, meets or books for
/// (folded): the relative or venue a name is only part of is not that person.
#[rustfmt::skip]
const PEOPLE: &[&str] = &[
    "contact", "person", "attendee", "attendees", "guest", "guests", "invitee", "invitees",
    "participant", "participants", "patient", "callee", "honoree",
];

/// Words of a field's name about a booking, which make it about a person only beside a word
/// of [`WHOSE`]: `reservation_name` is whom it is under, `reservation_restaurant` is a place.
const BOOKED: &[&str] = &[
    "reservation",
    "booking",
    "reserva",
    "reservierung",
    "prenotazione",
];
const WHOSE: &[&str] = &["name", "holder", "for", "nombre", "nom", "nome"];

/// Pets, the word before their name (folded): "my dog Bella", "unseren Kater Moritz".
#[rustfmt::skip]
const PETS: &[&[&str]] = &[
    &["dog"], &["puppy"], &["cat"], &["kitten"], &["perro"], &["perra"], &["perrito"],
    &["perrita"], &["gato"], &["gata"], &["gatito"], &["chien"], &["chienne"], &["chat"],
    &["chatte"], &["hund"], &["hundin"], &["katze"], &["kater"], &["cachorro"], &["cachorra"],
    &["cadela"], &["gatinho"], &["cane"], &["cagnolino"], &["gatta"], &["gattino"],
];

/// Words of a field's name that make it a pet's owner (folded).
const OWNER: &[&str] = &[
    "owner",
    "dueno",
    "duena",
    "propietario",
    "proprietaire",
    "besitzer",
    "halter",
    "tutor",
    "dono",
    "dona",
    "proprietario",
    "padrone",
];

/// Whether `value`, a name in a field about a message's recipient, a pet's owner or a person
/// (`key`), is written in the conversation only in another role: the message's sender, the
/// pet, a relative's or a venue's name.
pub fn only_in_another_role(value: &str, key: &str, evidence: &Evidence) -> bool {
    let words = words_of(key);
    // "to" makes a recipient only as the key's first word before what it is ("to",
    // "to_email", "to_name"), not a target of another kind ("to_timezone").
    const WHO: &[&str] = &[
        "name", "email", "address", "user", "contact", "phone", "number",
    ];
    let to_recipient = words.first().is_some_and(|w| w == "to")
        && words.get(1).is_none_or(|w| WHO.contains(&w.as_str()));
    let about = |list: &[&str]| {
        (list == RECIPIENT && to_recipient)
            || words
                .iter()
                .any(|w| w != "to" && list.contains(&w.as_str()))
    };
    let recipient = about(RECIPIENT);
    if !recipient && about(OWNER) {
        return only_where(value, evidence, |tokens, at, _| after(tokens, at, PETS));
    }
    let served = about(SERVED) && !about(TRADES);
    let person =
        recipient || served || about(PEOPLE) || about(TRADES) || (about(BOOKED) && about(WHOSE));
    if !person {
        return false;
    }
    // The user's own name is whom a message comes from, and not whom they book for when they
    // speak of a relative of theirs ("Inscris ma fille…, moi c'est Hervé Martin").
    // Nor their own doctor, vet or barber.
    // Nor whom they book under when they name a relative's name for it ("a nombre de mi
    // suegro").
    let tokens = &evidence.tokens;
    let not_self = recipient
        || about(TRADES)
        // One who works for the user is theirs to add as a contact, not a patient of theirs.
        || ((about(PEOPLE) || served) && my_kin(tokens, !about(SERVED)))
        || (about(BOOKED) && about(WHOSE) && under_kin_s_name(tokens));
    let senders: Vec<&[&str]> = SIGN.iter().chain(SENT_FROM).copied().collect();
    // German forwards in two words: "leite ... weiter".
    let has = |f: &dyn Fn(&str) -> bool| evidence.tokens.iter().any(|t| f(&t.folded));
    let forwarded = has(&|w| FORWARDS.iter().any(|f| w.starts_with(f)))
        || (has(&|w| w.starts_with("leit")) && has(&|w| w == "weiter"));
    only_where(value, evidence, |tokens, at, len| {
        (recipient && (after(tokens, at, &senders) || closing(tokens, at, len, evidence)))
            // A sender is no guest either ("De parte de Julia, invita a Tomás").
            || (about(PEOPLE) && after(tokens, at, SENT_FROM))
            || (not_self && self_named(tokens, at, about(TRADES), len))
            || (served && trade_named(tokens, at))
            || (recipient && forwarded && of_before(tokens, at, WRITTEN))
            || (recipient && copied(tokens, at))
            || of_before(tokens, at, KIN)
            || of_before(tokens, at, TRADES)
            || kin_after(tokens, at, len)
            || recommender(tokens, at, len)
            || venue(tokens, at, &evidence.text)
    })
}

/// Words that introduce the user by name, right before it (folded; an apostrophe is a token
/// of its own): "I'm Daniel", "moi c'est Hervé", "me llamo Ana", "ich heiße Jan".
#[rustfmt::skip]
const SELF_NAMED: &[&[&str]] = &[
    &["i", "'", "m"], &["i", "’", "m"], &["im"], &["i", "am"], &["my", "name", "is"], &["this", "is"], &["from", "me"],
    &["me", "llamo"], &["soy"], &["mi", "nombre", "es"], &["de", "mi", "parte"],
    &["moi", "c", "'", "est"], &["moi", "c", "’", "est"], &["je", "m", "'", "appelle"],
    &["je", "m", "’", "appelle"], &["je", "suis"], &["mon", "nom", "est"],
    &["de", "ma", "part"],
    &["ich", "bin"], &["ich", "heisse"], &["ich", "heiße"], &["mein", "name", "ist"], &["von", "mir"],
    &["eu", "sou"], &["me", "chamo"], &["meu", "nome", "e"], &["da", "minha", "parte"],
    // Not "sono" alone: "they are" too ("sono Luca e Sofia").
    &["mi", "chiamo"], &["io", "sono"], &["il", "mio", "nome", "e"], &["da", "parte", "mia"],
];

/// Whether the name at `at` is the user's own: after [`SELF_NAMED`], past a title ("Hier ist
/// Frau Schulte"), or after "sono" or "c'est" opening a sentence ("Sono Paola, mia figlia…",
/// "C'est Sophie."; inside one, "sono" is "they are" too).
fn self_named(tokens: &[Token], at: usize, trade: bool, len: usize) -> bool {
    // A cleft says who does a thing ("C'est Julien qui gère", "sono Marco e Giulia a
    // decidere"); "Dr. Patel's office" is the doctor's.
    let after_name = |k: usize| tokens.get(at + len + k).map_or("", |t| t.folded.as_str());
    if matches!(after_name(0), "qui" | "que" | "qu" | "che") || after_name(1) == "s" {
        return false;
    }
    // A sentence opens at the start, after its mark, or after a greeting and its comma
    // ("Buongiorno, sono Paola").
    let opens = |from: usize| {
        from == 0
            || matches!(tokens[from - 1].lower.as_str(), "." | "!" | "?")
            || (tokens[from - 1].lower == ","
                && from >= 2
                && GREETINGS.contains(&tokens[from - 2].folded.as_str()))
    };
    let introduced = |at: usize| {
        let lower = |k: usize| tokens[at - k].lower.as_str();
        after(tokens, at, SELF_NAMED)
            || (at >= 1 && tokens[at - 1].folded == "sono" && opens(at - 1))
            || (at >= 3
                && ends_with(tokens, at, &[&["c", "'", "est"], &["c", "’", "est"]])
                && opens(at - 3))
            // "Hier ist Frau Schulte", "aqui é o Rafael", "ici Sophie": opening a sentence
            // (inside one, "here is"; "aqui e" is "here and").
            || (at >= 2 && lower(2) == "hier" && lower(1) == "ist" && opens(at - 2))
            || (at >= 1 && lower(1) == "ici" && opens(at - 1))
            || (at >= 2 && lower(2) == "aqui" && lower(1) == "é" && opens(at - 2))
            || (at >= 3
                && lower(3) == "aqui"
                && lower(2) == "é"
                && matches!(lower(1), "o" | "a")
                && opens(at - 3))
    };
    // As written first, then past each title ("I'm Mrs. Fisher"; the "m" of "I'm" is a
    // title's too); a professional who gives their own title ("Hier ist Dr. Brandt") is
    // named as the trade.
    let mut at = at;
    loop {
        if introduced(at) {
            return true;
        }
        let title = at > 0
            && ((tokens[at - 1].lower != "." && TITLES.contains(&tokens[at - 1].folded.as_str()))
                || (tokens[at - 1].lower == "."
                    && at >= 2
                    && TITLES.contains(&tokens[at - 2].folded.as_str())));
        if !title || (trade && DOCTORS.contains(&tokens[at - 1].folded.as_str())) {
            return false;
        }
        at -= 1;
    }
}

/// Greetings before a comma that opens a sentence, folded.
#[rustfmt::skip]
const GREETINGS: &[&str] = &[
    "hi", "hello", "hey", "hola", "buenas", "dias", "tardes", "bonjour", "salut", "allo",
    "bonsoir", "hallo", "tag", "morgen", "servus", "ola", "oi", "dia", "ciao", "buongiorno",
    "buonasera", "salve",
];

/// Doctors' titles (folded).
const DOCTORS: &[&str] = &[
    "dr", "dra", "dott", "dottor", "doktor", "docteur", "doctora",
];

/// Possessives of the user before a relative ("ma fille", "mio figlio"), folded.
#[rustfmt::skip]
const MY: &[&str] = &[
    "my", "mi", "mis", "ma", "mon", "mes", "mein", "meine", "meinen", "meinem", "meiner", "meu",
    "minha", "meus", "minhas", "mio", "mia", "miei", "mie",
];

/// Words of a field's name that make it the person a trade serves (folded): a name said as a
/// trade's ("il pediatra è il dottor Colombo") is not theirs.
#[rustfmt::skip]
const SERVED: &[&str] = &[
    "patient", "patients", "paciente", "patiente", "patientin", "paziente", "student", "pupil",
    "alumno", "alumna", "eleve", "schuler", "schulerin", "aluno", "aluna", "studente",
    "studentessa", "client", "customer", "cliente", "kunde", "kundin",
];

/// Whether the user speaks of a relative of theirs ("ma fille", "mio figlio", "my son", "mi
/// suegro"), or, with `trades`, of one who works for them ("my plumber", "meinen Zahnarzt").
fn my_kin(tokens: &[Token], trades: bool) -> bool {
    tokens.windows(2).any(|pair| {
        MY.contains(&pair[0].folded.as_str())
            && (KIN.contains(&pair[1].folded.as_str())
                || (trades && TRADES.contains(&pair[1].folded.as_str())))
    })
}

/// Words that name whom a booking is under ("a nombre de", "under ... name", "au nom de").
const NAME_WORDS: &[&str] = &["name", "nombre", "nom", "namen", "nome"];

/// Whether a booking is under a relative's name: "a nombre de mi suegro", "a nome di mia
/// moglie", "under my husband's name" (a relative of theirs in the four words after the word
/// for a name, or with "'s" right before it).
fn under_kin_s_name(tokens: &[Token]) -> bool {
    let kin_at = |k: usize| {
        k >= 1
            && tokens
                .get(k)
                .is_some_and(|t| KIN.contains(&t.folded.as_str()))
            && MY.contains(&tokens[k - 1].folded.as_str())
    };
    tokens.iter().enumerate().any(|(i, t)| {
        NAME_WORDS.contains(&t.folded.as_str())
            && ((i + 1..i + 5).any(kin_at)
                || (i >= 3
                    && tokens[i - 1].folded == "s"
                    && matches!(tokens[i - 2].lower.as_str(), "'" | "’")
                    && kin_at(i - 3)))
    })
}

/// A name said as a trade's: right after the trade, with a verb "is", an article or a title
/// between ("il pediatra è il dottor Colombo", "mein Zahnarzt Dr. Weber", "the pediatrician:
/// Dr. Lee"), or after a doctor's title ("dottor Colombo", "Dr. Lee"); not past a comma or
/// a full stop ("con el pediatra, Lucas tiene fiebre").
fn trade_named(tokens: &[Token], at: usize) -> bool {
    /// Words between a trade and its name (folded).
    #[rustfmt::skip]
    const BETWEEN: &[&str] = &[
        "is", "es", "est", "ist", "e", "the", "el", "la", "le", "il", "lo", "der", "die", "o", "a",
    ];
    let is = |i: usize, list: &[&str]| list.contains(&tokens[i].folded.as_str());
    let mut i = at;
    let mut titled = false;
    // A title's own dot ("Dr. Lee") and a colon right after the trade.
    let mark = |i: usize| {
        (tokens[i].lower == "." && i > 0 && is(i - 1, TITLES))
            || (tokens[i].lower == ":" && i > 0 && is(i - 1, TRADES))
    };
    while i > 0 && (is(i - 1, BETWEEN) || is(i - 1, TITLES) || mark(i - 1)) {
        titled |= is(i - 1, DOCTORS);
        i -= 1;
    }
    titled || (i > 0 && is(i - 1, TRADES))
}

/// Words that put whom they name in copy of a message (folded): "cc her boss Tomás".
const CC: &[&str] = &["cc", "bcc", "cco"];

/// Phrases that do the same: "con copia a su jefe, Tomás Herrera", "en copie", "in Kopie",
/// "com cópia para", "in copia". Not "a copy of the contract to Maria", whom it goes to.
const IN_COPY: &[&[&str]] = &[
    &["con", "copia"],
    &["en", "copie"],
    &["in", "kopie"],
    &["com", "copia"],
    &["in", "copia"],
    &["copy", "in"],
];

/// Whether a [`CC`] word or an [`IN_COPY`] phrase stands a few tokens before the name at
/// `at`, in its clause (no sentence mark or join between): the name is copied, not the main
/// recipient.
fn copied(tokens: &[Token], at: usize) -> bool {
    let from = (at.saturating_sub(6)..at)
        .rev()
        .take_while(|&k| {
            let t = &tokens[k];
            let ends = matches!(t.lower.as_str(), "." | "!" | "?" | ";");
            let join = t.kind == Kind::Word && super::words::is(super::words::JOINS, &t.folded);
            !(ends || join)
        })
        .last()
        .unwrap_or(at);
    (from..at).any(|k| {
        (tokens[k].kind == Kind::Word && CC.contains(&tokens[k].folded.as_str()))
            || IN_COPY.iter().any(|phrase| {
                k + phrase.len() <= at && ends_with(tokens, k + phrase.len(), &[phrase])
            })
    })
}

/// Words of a field's name that make it whom a message goes to (folded).
const RECIPIENT: &[&str] = &[
    "to",
    "recipient",
    "recipients",
    "receiver",
    "addressee",
    "destinatario",
    "destinatarios",
    "destinataire",
    "destinataires",
    "empfanger",
    "destinatari",
];

/// Whether `value` is written in the conversation, and everywhere in a place `role` takes (by
/// the index of its first token and its number of tokens).
fn only_where(
    value: &str,
    evidence: &Evidence,
    role: impl Fn(&[Token], usize, usize) -> bool,
) -> bool {
    // The name without its title: "Herr Köhler" is written "Herrn Köhler".
    let name: Vec<String> = tokenize(value)
        .into_iter()
        .filter(|t| t.kind == Kind::Word && !TITLES.contains(&t.folded.as_str()))
        .map(|t| t.folded)
        .collect();
    if name.is_empty() {
        return false;
    }
    let tokens = &evidence.tokens;
    let places = places_of(tokens, &name);
    !places.is_empty() && places.into_iter().all(|at| role(tokens, at, name.len()))
}

/// Whether the tokens right before `at` are one of `before`, past a colon or a comma ("Signed:
/// Rui", "gezeichnet, Lena").
fn after(tokens: &[Token], at: usize, before: &[&[&str]]) -> bool {
    let mut end = at;
    if end > 0 && matches!(tokens[end - 1].folded.as_str(), ":" | "," | "(") {
        end -= 1;
    }
    ends_with(tokens, end, before)
}

/// A name that closes its message after a closing word and a comma: "Cheers, Declan".
fn closing(tokens: &[Token], at: usize, len: usize, evidence: &Evidence) -> bool {
    let comma = at > 0 && tokens[at - 1].folded == ",";
    let Some(words) = CLOSINGS
        .iter()
        .find(|words| comma && ends_with(tokens, at - 1, &[words]))
    else {
        return false;
    };
    // The closing starts its sentence: not one inside a relayed message ("a text: \"Thank
    // you, Ingrid!\"").
    let opening = at - 1 - words.len();
    let starts = opening == 0
        || matches!(tokens[opening - 1].lower.as_str(), "." | "!" | "?")
        || evidence.text[tokens[opening - 1].end..tokens[opening].start].contains('\n');
    if !starts {
        return false;
    }
    // Nothing but marks after it on its line.
    let end = tokens[at + len - 1].end;
    let line_end = evidence.text[end..]
        .find('\n')
        .map_or(evidence.text.len(), |i| end + i);
    tokens[at + len..]
        .iter()
        .take_while(|t| t.start < line_end)
        .all(|t| t.kind == Kind::Punct)
}

/// Whether a word of `whose` stands before "of" and the name, with the name's own kin,
/// possessives, articles or title between: "la fille de Marc", "la maestra di Giulia", "la
/// profesora de mi hijo Lucas", "die Rechnung von Herrn Köhler".
fn of_before(tokens: &[Token], at: usize, whose: &[&str]) -> bool {
    /// Words between "of" and the name that leave the name someone else's, folded.
    #[rustfmt::skip]
    const BETWEEN: &[&str] = &[
        "my", "our", "the", "his", "her", "their", "mi", "mis", "su", "sus", "nuestro",
        "nuestra", "el", "la", "los", "las", "mon", "ma", "notre", "le", "sa", "son", "leur",
        "meinem", "meiner", "meines", "unserem", "unserer", "dem", "der", "des", "seinem",
        "ihrem", "meu", "minha", "nosso", "nossa", "o", "a", "seu", "sua", "mio", "mia",
        "nostro", "nostra", "il", "lo", "suo",
    ];
    let is = |i: usize, list: &[&str]| list.contains(&tokens[i].folded.as_str());
    let mut i = at;
    while i > 0 && (is(i - 1, BETWEEN) || is(i - 1, KIN) || is(i - 1, TITLES)) {
        i -= 1;
    }
    i >= 2 && is(i - 1, OF) && is(i - 2, whose)
}

/// A name a relative is named by after it: "Marc's daughter" ("marc", "'", "s").
fn kin_after(tokens: &[Token], at: usize, len: usize) -> bool {
    let is = |i: usize, list: &[&str]| {
        tokens
            .get(i)
            .is_some_and(|t| list.contains(&t.folded.as_str()))
    };
    is(at + len, &["'", "’"])
        && tokens
            .get(at + len + 1)
            .is_some_and(|t| t.folded == "s" && !t.spaced)
        && is(at + len + 2, KIN)
}

/// A name that recommended someone: after a recommending word and "by" ("consigliato dal
/// signor Bianchi", "recommended by Dr. Lee"), or right before a recommending verb, past a
/// pronoun or an auxiliary ("que a Fernanda me indicou", "che Bianchi mi ha consigliato").
fn recommender(tokens: &[Token], at: usize, len: usize) -> bool {
    // A verb's form, not a noun's ("consigli per la cena", "a suggestion", "sugerencias").
    const NOUNS: &[&str] = &[
        "ion",
        "ions",
        "ione",
        "ioni",
        "iones",
        "cao",
        "coes",
        "ung",
        "ungen",
        "encia",
        "encias",
        "consigli",
        "consiglio",
        "conseil",
        "conseils",
        "conseiller",
    ];
    let recommends = |t: &Token| {
        RECOMMENDS.iter().any(|r| t.folded.starts_with(r))
            && !NOUNS.iter().any(|n| t.folded.ends_with(n))
    };
    let mut i = at;
    while i > 0 && TITLES.contains(&tokens[i - 1].folded.as_str()) {
        i -= 1;
    }
    let by = i >= 2 && BY.contains(&tokens[i - 1].folded.as_str()) && recommends(&tokens[i - 2]);
    // Right before the verb, unless "by" follows it: "Dr. Ferri recommended by my sister" is
    // the one recommended.
    let after = &tokens[at + len..];
    let verb = after
        .iter()
        .take_while(|t| RECOMMENDED_TO.contains(&t.folded.as_str()) || recommends(t))
        .take(4)
        .position(recommends);
    let verb_after = verb.is_some_and(|v| {
        !after
            .get(v + 1)
            .is_some_and(|t| BY.contains(&t.folded.as_str()))
    });
    by || verb_after
}

/// A name right after a venue's word, or after a capitalized word of its name that follows
/// one: "el restaurante Don Julio".
fn venue(tokens: &[Token], at: usize, text: &str) -> bool {
    let is_venue = |i: usize| VENUES.contains(&tokens[i].folded.as_str());
    let in_the = at >= 1 && IN_THE.contains(&tokens[at - 1].folded.as_str());
    let capitalized = |t: &Token| {
        t.kind == Kind::Word
            && text
                .get(t.start..t.end)
                .and_then(|w| w.chars().next())
                .is_some_and(char::is_uppercase)
    };
    // A place's name opening with a word of its own, capitalized, after "at" or "in": "im Da
    // Luigi", "at Chez Marie" (not "vai da Luigi", whose "da" is "to").
    let opened = at >= 2
        && capitalized(&tokens[at - 1])
        && OPENERS.contains(&tokens[at - 1].folded.as_str())
        && AT_A_PLACE.contains(&tokens[at - 2].folded.as_str());
    // "Pizzaria do Zé"; "Tony's Barbershop", the place's word right after the name's "'s":
    // a shop's own name, capitalized ("el garaje de Pedro" is Pedro's).
    let named_after = at >= 2
        && is_venue(at - 2)
        && capitalized(&tokens[at - 2])
        && NAMED_AFTER.contains(&tokens[at - 1].folded.as_str());
    let possessed = tokens.get(at + 1..at + 4).is_some_and(|next| {
        matches!(next[0].lower.as_str(), "'" | "’")
            && next[1].folded == "s"
            && is_venue(at + 3)
            && capitalized(&next[2])
    });
    in_the
        || opened
        || named_after
        || possessed
        || (at >= 1 && is_venue(at - 1))
        || (at >= 2 && is_venue(at - 2) && capitalized(&tokens[at - 1]))
}

/// Words a place's name opens with before a person's name ("Da Luigi", "Chez Marie", "Zum
/// Franz"), folded.
const OPENERS: &[&str] = &[
    "da", "chez", "zum", "zur", "casa", "don", "dona", "bei", "el", "la", "le", "il", "lo", "o",
];

/// "At" or "in" before a place (folded).
const AT_A_PLACE: &[&str] = &[
    "at", "in", "im", "ins", "al", "au", "nel", "no", "na", "en", "em", "bei", "dans", "chez",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn signer(text: &str, key: &str, value: &str) -> bool {
        only_in_another_role(
            value,
            key,
            &Evidence::new(text, jiff::civil::date(2026, 11, 25)),
        )
    }

    #[test]
    fn the_user_s_own_name_and_a_trade_s_are_no_one_else_s() {
        // The user's name: not whom a message goes to, nor a relative they book for.
        let camp = "Inscris ma fille au stage de tennis, moi c'est Hervé Martin";
        assert!(signer(camp, "participant_name", "Hervé Martin"));
        assert!(signer(
            "email the school office from me (Daniel) about the lunch account",
            "recipient_name",
            "Daniel"
        ));
        assert!(signer(
            "email Sarah about the party, I'm Daniel",
            "recipient_name",
            "Daniel"
        ));
        // Booking for themselves, the user's name is the participant's.
        let me = "Inscris-moi au stage de tennis, moi c'est Hervé Martin";
        assert!(!signer(me, "participant_name", "Hervé Martin"));
        assert!(!signer(
            "email Sarah about the party, I'm Daniel",
            "recipient_name",
            "Sarah"
        ));
        // A sender is no guest.
        let barbecue = "De parte de Julia, invita a Tomás a la barbacoa del domingo";
        assert!(signer(barbecue, "invitee_name", "Julia"));
        assert!(!signer(barbecue, "invitee_name", "Tomás"));
        // A trade's name is not the patient's; it is the doctor's, and whom to call.
        let visit = "Prenota la visita per mio figlio, il pediatra è il dottor Colombo";
        assert!(signer(visit, "patient_name", "Colombo"));
        assert!(!signer(visit, "doctor_name", "Colombo"));
        assert!(!signer(
            "call my dentist Dr. Lee",
            "contact_name",
            "Dr. Lee"
        ));
        // Past a comma, another clause; "sono" is "they are" too.
        assert!(!signer(
            "Pide cita con el pediatra, Lucas tiene fiebre",
            "patient_name",
            "Lucas"
        ));
        assert!(!signer(
            "Iscrivi i miei figli al corso di nuoto, sono Luca e Sofia",
            "participant_name",
            "Luca"
        ));
        // Opening a sentence, "sono" and "c'est" introduce the user; a title is skipped.
        assert!(signer(
            "Sono Paola, mia figlia Anna ha bisogno del certificato medico",
            "patient_name",
            "Paola"
        ));
        assert!(signer(
            "C'est Sophie. Prends rendez-vous chez le Dr Martin pour mon mari",
            "patient_name",
            "Sophie"
        ));
        assert!(signer(
            "Hier ist Frau Schulte von der Praxis Dr. Brandt, bitte einen Termin eintragen",
            "doctor_name",
            "Schulte"
        ));
        // The user is not their own vet; a traveller books for themselves and their family
        // ("for me and my wife"): no passenger field is read this way.
        assert!(signer(
            "Hi, this is Jordan Fisher. Please schedule a vet visit for Pepper.",
            "veterinarian_name",
            "Jordan Fisher"
        ));
        // Nor the contact they add for someone who works for them, nor whom they book under
        // a relative's name.
        assert!(signer(
            "This is Hannah - can you add a new contact for my plumber?",
            "contact_name",
            "Hannah"
        ));
        assert!(signer(
            "Soy Marta. Reserva mesa para el sábado a nombre de mi suegro.",
            "reservation_name",
            "Marta"
        ));
        assert!(!signer(
            "Soy Marta. Reserva mesa para el sábado a mi nombre.",
            "reservation_name",
            "Marta"
        ));
        // A relative said elsewhere, or a patient's own dentist: the user's name stays.
        assert!(!signer(
            "This is John Smith, table for 4 for me, my wife and our kids, under my name",
            "reservation_name",
            "John Smith"
        ));
        assert!(!signer(
            "Hi, I'm Laura Kim. Book me a cleaning with my dentist on Friday",
            "patient_name",
            "Laura Kim"
        ));
        assert!(!signer(
            "Soy Carmen Ruiz, quiero pedir un taxi al aeropuerto para mi jefe",
            "passenger_name",
            "Carmen Ruiz"
        ));
        assert!(!signer(
            "Soy Carmen Ruiz, quiero pedir un taxi al aeropuerto",
            "passenger_name",
            "Carmen Ruiz"
        ));
        // Not "here is" inside a sentence, nor past a full stop, nor a cleft, nor a doctor
        // who gives their title; "I'm Mrs. Fisher" past the title; a greeting opens.
        assert!(!signer(
            "Der beste Zahnarzt hier ist Dr. Weber, mach mir einen Termin",
            "dentist_name",
            "Weber"
        ));
        assert!(!signer(
            "Je suis déjà ici. Marc est en retard, envoie-lui un SMS",
            "recipient_name",
            "Marc"
        ));
        assert!(!signer(
            "C'est Julien qui gère les factures, envoie-lui celle de mars.",
            "recipient_name",
            "Julien"
        ));
        assert!(!signer(
            "Hier ist Dr. Brandt, trag mir einen Termin ein",
            "doctor_name",
            "Brandt"
        ));
        assert!(!signer(
            "Eu fico aqui e a Ana vai ao médico, manda-lhe uma mensagem",
            "recipient_name",
            "Ana"
        ));
        assert!(signer(
            "Hi, I'm Mrs. Fisher, book Pepper's checkup at the vet",
            "veterinarian_name",
            "Fisher"
        ));
        assert!(signer(
            "Buongiorno, sono Paola Neri, vorrei una visita dal veterinario",
            "veterinarian_name",
            "Paola Neri"
        ));
        assert!(!signer(
            "book a checkup for Luca Rossi with Dr. Colombo",
            "patient_name",
            "Luca Rossi"
        ));
    }

    #[test]
    fn the_name_a_message_is_signed_with_is_no_recipient() {
        for (text, value) in [
            (
                "Envia um email à Inês a dizer que a reunião foi adiada, assina como Rui",
                "Rui",
            ),
            (
                "Mándale un correo a mi jefe Ricardo diciendo que llego tarde, fírmalo como Andrés",
                "Andrés",
            ),
            (
                "Email the landlord about the leak, sign it as Tom Baker",
                "Tom Baker",
            ),
            (
                "Schreib dem Vermieter wegen der Heizung, unterschreib mit Lena",
                "Lena",
            ),
            ("Écris au syndic pour la fuite, signé Paul", "Paul"),
            (
                "Scrivi a Giulia che arrivo alle 8, firmalo come Marco",
                "Marco",
            ),
        ] {
            assert!(signer(text, "recipient", value), "{text}");
            assert!(signer(text, "destinatario", value), "{text}");
        }
    }

    #[test]
    fn a_name_in_copy_is_no_main_recipient() {
        let text = "Envíale el contrato a Rocío, con copia a su jefe, Tomás Herrera";
        assert!(signer(text, "to", "Tomás Herrera"));
        assert!(!signer(text, "to", "Rocío"));
        assert!(!signer(text, "cc", "Tomás Herrera"));
        assert!(signer(
            "Send the deck to Ana, cc Bruno",
            "recipient",
            "Bruno"
        ));
        // A copy word of another clause: "cc me and send it to Tom"; a copy of a thing sent
        // to whom it goes to.
        assert!(!signer("cc me and send it to Tom", "recipient", "Tom"));
        assert!(!signer(
            "Send a copy of the contract to Maria",
            "to",
            "Maria"
        ));
        assert!(!signer(
            "Mándale una copia del informe a Lucía",
            "to",
            "Lucía"
        ));
    }

    #[test]
    fn a_sender_or_a_pet_is_no_recipient_or_owner() {
        assert!(signer(
            "Spedisci il regalo a mia nonna, mittente Ciro Esposito",
            "recipient_name",
            "Ciro Esposito"
        ));
        assert!(signer(
            "Envía un paquete de parte de Jorge Medina a su mamá en Puebla",
            "recipient_name",
            "Jorge Medina"
        ));
        assert!(signer(
            "Mach beim Tierarzt einen Termin für unseren Kater Moritz",
            "owner_name",
            "Moritz"
        ));
        assert!(signer(
            "Book a grooming slot for my dog Bella, put it under my name",
            "owner_name",
            "Bella"
        ));
        // The pet's own field; the owner named too; a recipient after "to".
        assert!(!signer(
            "Book a grooming slot for my dog Bella",
            "pet_name",
            "Bella"
        ));
        assert!(!signer(
            "Book a slot for my dog Bella, owner Bella Swan",
            "owner_name",
            "Bella"
        ));
        assert!(!signer(
            "Send flowers from Jorge to Ana",
            "recipient_name",
            "Ana"
        ));
        // Whom a reply goes to is often after "from"; a time zone is no recipient.
        assert!(!signer(
            "Reply to the email from Sarah about the invoice",
            "recipient",
            "Sarah"
        ));
        assert!(!signer(
            "Call the colleague from Tokyo at 9, sign it as Tokyo",
            "to_timezone",
            "Tokyo"
        ));
    }

    #[test]
    fn a_name_said_otherwise_or_a_field_of_another_role_is_left_alone() {
        // The recipient itself; the signer named as the recipient too.
        let text = "Envia um email à Inês a dizer que a reunião foi adiada, assina como Rui";
        assert!(!signer(text, "destinatario", "Inês"));
        assert!(!signer(
            "Email Tom that the file is ready, sign it as Tom",
            "recipient",
            "Tom"
        ));
        // The sender's own field.
        assert!(!signer(text, "sender_name", "Rui"));
        assert!(!signer(text, "signature", "Rui"));
        // A name not written at all is another rule's to judge.
        assert!(!signer(text, "to", "Pedro"));
        // A document to sign: who signs it is whom it goes to ("send Ana the contract to sign").
        assert!(!signer(
            "Send Ana the contract, she needs to sign it",
            "recipient",
            "Ana"
        ));
    }

    #[test]
    fn a_closing_or_a_co_sender_is_no_recipient() {
        for (text, value) in [
            ("Forward this to accounts please. Cheers, Declan", "Declan"),
            (
                "Merci de transférer ce mail au service RH. Bonne journée, Hélène",
                "Hélène",
            ),
            (
                "Manda gli auguri a tutto l'ufficio da parte mia e di Chiara",
                "Chiara",
            ),
            ("Send the card to the team from me and Jake", "Jake"),
        ] {
            assert!(signer(text, "recipient_name", value), "{text}");
        }
        // The name is whom it goes to elsewhere, or the closing does not end the message.
        assert!(!signer(
            "Write to Declan: thanks, Declan, see you Monday",
            "recipient_name",
            "Declan"
        ));
        assert!(!signer(
            "Thanks, Declan will get the forward tomorrow",
            "recipient_name",
            "Declan"
        ));
        // The sender's own field.
        assert!(!signer(
            "Forward this to accounts please. Cheers, Declan",
            "sender_name",
            "Declan"
        ));
        // A closing inside a relayed message is whom it thanks.
        assert!(!signer(
            "Send my neighbour a text: \"Thank you, Ingrid!\"",
            "recipient_name",
            "Ingrid"
        ));
    }

    #[test]
    fn a_relative_s_or_a_venue_s_name_is_no_person_s() {
        for (text, key, value) in [
            ("Liga pra mãe do Rafael", "contact_name", "Rafael"),
            (
                "Ajoute l'anniversaire de la fille de Marc au calendrier",
                "person_name",
                "Marc",
            ),
            ("Invite Marc's daughter to the party", "invitee", "Marc"),
            (
                "Llama al restaurante Don Julio y reserva para cuatro",
                "reservation_name",
                "Julio",
            ),
            (
                "Reservier einen Tisch im Hans im Glück für heute Abend",
                "reservation_name",
                "Hans",
            ),
            (
                "Pede uma pizza na Pizzaria do Zé pra entregar aqui",
                "recipient_name",
                "Zé",
            ),
            (
                "Book me a haircut at Tony's Barbershop on Saturday",
                "barber_name",
                "Tony",
            ),
        ] {
            assert!(signer(text, key, value), "{text}");
        }
        // A person the place is named after who is also the one asked for; a thing of
        // theirs that is no place.
        assert!(!signer(
            "Call Tony at Tony's Barbershop",
            "contact_name",
            "Tony"
        ));
        assert!(!signer(
            "Book Tony's car for Saturday",
            "barber_name",
            "Tony"
        ));
        // A trade's person, a verb, an office, a place owned by a person named.
        assert!(!signer(
            "Text my barber Tony that I'm late",
            "recipient",
            "Tony"
        ));
        assert!(!signer(
            "Store John Smith as a contact, 555-0100",
            "contact_name",
            "John Smith"
        ));
        assert!(!signer(
            "Manda las flores a la oficina de Lucía",
            "recipient_name",
            "Lucía"
        ));
        assert!(!signer(
            "Deja el paquete en el garaje de Pedro",
            "recipient_name",
            "Pedro"
        ));
        // Said as the person too; a thing of the name's ("Rafael's phone"); a field about
        // the relative's relative ("parent_name"), or about the venue.
        assert!(!signer(
            "Call Rafael and his mother",
            "contact_name",
            "Rafael"
        ));
        assert!(!signer("Call Rafael's phone", "contact_name", "Rafael"));
        assert!(!signer(
            "Enrol the daughter of Marc in the swim class",
            "parent_name",
            "Marc"
        ));
        assert!(!signer(
            "Llama al restaurante Don Julio y reserva para cuatro",
            "restaurant_name",
            "Julio"
        ));
        assert!(!signer(
            "Book a table for Julio at the restaurant",
            "reservation_name",
            "Julio"
        ));
        // German nouns are capitalized: "im Büro Lisa" is Lisa at the office; "prima di"
        // is "before"; a booking's place is no person.
        assert!(!signer("Ruf im Büro Lisa an", "contact_name", "Lisa"));
        assert!(!signer(
            "Trag im Kalender Anna als Teilnehmerin ein",
            "attendee",
            "Anna"
        ));
        assert!(!signer(
            "Chiama Luca prima di Marco",
            "contact_name",
            "Marco"
        ));
        assert!(!signer(
            "Reserva en el restaurante Don Julio",
            "reservation_restaurant",
            "Julio"
        ));
    }

    #[test]
    fn a_name_that_is_someone_else_s_or_recommended_someone_is_not_theirs() {
        for (text, key, value) in [
            (
                "Scrivi alla maestra di Giulia che domani esce alle 12",
                "recipient_name",
                "Giulia",
            ),
            (
                "Manda un correo a la profesora de mi hijo Lucas",
                "recipient_name",
                "Lucas",
            ),
            (
                "Chiama l'idraulico, quello consigliato dal signor Bianchi",
                "contact_name",
                "Bianchi",
            ),
            (
                "Agenda uma consulta com a dermatologista que a Fernanda me indicou",
                "doctor_name",
                "Fernanda",
            ),
            (
                "Book the dentist Sam recommended for Friday",
                "doctor_name",
                "Sam",
            ),
            ("Transfère le mail de Sophie à Marc", "recipient", "Sophie"),
            (
                "Leite die Rechnung von Herrn Köhler an die Buchhaltung weiter",
                "recipient",
                "Herr Köhler",
            ),
            (
                "Kannst du einen Tisch im Da Luigi reservieren?",
                "reservation_name",
                "Luigi",
            ),
        ] {
            assert!(signer(text, key, value), "{text}");
        }
        // The person itself: named with their kin or trade but no "of", the recipient of a
        // reply, a name before a word that only starts like a recommendation, the one
        // recommended, the forwarded message's recipient, "da" as "to".
        for (text, key, value) in [
            (
                "Email my son Lucas that dinner is at 8",
                "recipient_name",
                "Lucas",
            ),
            ("Chiama la dottoressa Bianchi", "contact_name", "Bianchi"),
            ("Rispondi alla mail di Sophie", "recipient", "Sophie"),
            ("Email Marco to suggest a meeting", "recipient", "Marco"),
            (
                "Chiama Ana e consigliale un ristorante",
                "contact_name",
                "Ana",
            ),
            (
                "Prenota dal dermatologo Ferri, che mi ha consigliato Anna",
                "doctor_name",
                "Ferri",
            ),
            ("Forward the email from Sophie to Marc", "recipient", "Marc"),
            (
                "Book an appointment with Dr. Ferri recommended by my sister",
                "doctor_name",
                "Ferri",
            ),
            (
                "Prenota una visita dal dottor Ferri consigliato da Anna",
                "doctor_name",
                "Ferri",
            ),
            (
                "Scrivi a Giulia consigli per la cena",
                "recipient",
                "Giulia",
            ),
            (
                "Escríbele a Marta sugerencias para el viaje",
                "recipient",
                "Marta",
            ),
            (
                "Vai da Luigi e prenota a nome di Luigi",
                "reservation_name",
                "Luigi",
            ),
            (
                "Leite die Rechnung an Herrn Köhler weiter",
                "recipient",
                "Herr Köhler",
            ),
        ] {
            assert!(!signer(text, key, value), "{text}");
        }
    }
}
