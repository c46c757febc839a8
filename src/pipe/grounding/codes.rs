//! Recognizer `code`: the upper-case ISO codes whose name the text says as whole words, in
//! English, Spanish, French, German, Portuguese and Italian. Countries (ISO 3166 alpha-2 and
//! alpha-3) from their names, short names and demonyms ("the UK", "Alemania", "États-Unis",
//! "British"), and every country's English name through `isocountry`; currencies (ISO 4217)
//! from names and signs ("pounds sterling", "libras", "Franken", "€", "R$"), with every
//! country's currency by its English name through `iso_currency`; languages (ISO 639-1:
//! "EN", "ES") from their names ("inglés", "Deutsch"), a nationality's adjective also giving
//! the country ("German" is "DE", "DEU"). A locale ("de-DE", "en_US") gives its language, its
//! country and itself ("DE-DE", "DE_DE"); a code written as a word ("in EUR", "GBP") is
//! itself.
//!
//! Names are token sequences, longest first, never a substring or a prefix of a word:
//! "usage" says no "US", "important" no "IT", "Canadian dollars" is CAD and no USD. The
//! tokens carry no letter case, so a two- or three-letter code that is also a common word in
//! the six languages ("us", "it", "de", "es", "and", "can", "per") is no code by itself, and
//! a country or language code right after a number is a unit ("5 GB", "5 mm"). Names that
//! are common words ("Réunion" is a meeting in Spanish, "Jersey", "Island" is Iceland in
//! German) and continents ("Latin America", "New Mexico") name no country.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::OnceLock;

use super::facts::{Context, Facts};
use super::tokens::{tokenize, Kind, Token};

/// Countries by alpha-2, with names and demonyms not in [`LANGUAGES`]. A name "stem|a|b" is
/// the stem and its endings (see [`forms`]); all are folded (accents off).
#[rustfmt::skip]
const COUNTRIES: &[(&str, &[&str])] = &[
    ("US", &[
        "united states", "united states of america", "usa", "u.s.a", "u.s", "the us", "the u.s",
        "america", "american|s", "estados unidos", "eeuu", "ee.uu", "ee . uu", "eua",
        "estadounidense|s", "norteamericano|a|os|as", "americano|a|os|as|i|e", "etats-unis",
        "etats unis", "amerique", "americain|e|s|es", "vereinigte staaten", "vereinigten staaten",
        "amerika", "amerikanisch|e|en|er|es", "amerikaner|in", "estados unidos da america",
        "norte-americano|a|os|as", "stati uniti", "stati uniti d ' america", "statunitense|i",
    ]),
    ("GB", &[
        "united kingdom", "uk", "u.k", "the uk", "britain", "great britain", "england", "scotland",
        "wales", "northern ireland", "british", "brit|s", "reino unido", "gran bretana",
        "inglaterra", "britanico|a|os|as", "royaume-uni", "royaume uni", "grande-bretagne",
        "grande bretagne", "angleterre", "britannique|s", "vereinigtes konigreich",
        "grossbritannien", "großbritannien", "britisch|e|en|er|es", "brite|n", "gra-bretanha",
        "gra bretanha", "regno unito", "gran bretagna", "inghilterra", "britannico|a|i",
        "britanniche",
    ]),
    ("DE", &["germany", "alemania", "allemagne", "deutschland", "alemanha", "germania", "brd"]),
    ("FR", &["france", "francia", "frankreich", "franca"]),
    ("ES", &["spain", "espana", "espagne", "spanien", "espanha", "spagna"]),
    ("IT", &["italy", "italia", "italie", "italien"]),
    ("PT", &["portugal", "portogallo"]),
    ("BR", &[
        "brazil", "brasil", "bresil", "brasilien", "brasile", "brazilian|s", "brasileno|a|os|as",
        "bresilien|ne|s|nes", "brasilianisch|e|en|er|es", "brasileiro|a|os|as", "brasiliano|a|i|e",
    ]),
    ("MX", &[
        "mexico", "mexique", "mexiko", "messico", "mexican|s", "mexicano|a|os|as",
        "mexicain|e|s|es", "mexikanisch|e|en|er|es", "messicano|a|i|e",
    ]),
    ("AR", &[
        "argentina", "argentine|s", "argentinien", "argentinian|s", "argentino|a|os|as|i|e",
        "argentin|s", "argentinisch|e|en|er|es",
    ]),
    ("CO", &[
        "colombia", "colombie", "kolumbien", "colombian|s", "colombiano|a|os|as|i|e",
        "colombien|ne|s|nes", "kolumbianisch|e|en|er|es",
    ]),
    ("CL", &[
        "chile", "cile", "chilean|s", "chileno|a|os|as", "chilien|ne|s|nes",
        "chilenisch|e|en|er|es", "cileno|a|i|e",
    ]),
    ("PE", &[
        "peru", "perou", "peruvian|s", "peruano|a|os|as", "peruvien|ne|s|nes",
        "peruanisch|e|en|er|es", "peruviano|a|i|e",
    ]),
    ("VE", &[
        "venezuela", "venezuelan|s", "venezolano|a|os|as", "venezuelien|ne|s|nes",
        "venezolanisch|e|en|er|es", "venezuelano|a|os|as|i|e",
    ]),
    ("EC", &[
        "ecuador", "equateur", "equador", "ecuadorian|s", "ecuatoriano|a|os|as",
        "equatorien|ne|s|nes", "equatoriano|a|os|as", "ecuadoriano|a|i|e",
    ]),
    ("BO", &["bolivia", "bolivie", "bolivien", "bolivian|s", "boliviano|a|os|as"]),
    ("UY", &["uruguay", "uruguai", "uruguayan|s", "uruguayo|a|os|as", "uruguaio|a|os|as"]),
    ("PY", &["paraguay", "paraguai", "paraguayan|s", "paraguayo|a|os|as", "paraguaio|a|os|as"]),
    ("CU", &[
        "cuba", "kuba", "cuban|s", "cubano|a|os|as|i|e", "cubain|e|s|es", "kubanisch|e|en|er|es",
    ]),
    ("DO", &[
        "dominican republic", "republica dominicana", "republique dominicaine",
        "dominikanische republik", "repubblica dominicana",
    ]),
    ("PR", &["puerto rico", "porto rico"]),
    ("CA", &[
        "canada", "kanada", "canadian|s", "canadiense|s", "canadien|ne|s|nes",
        "kanadisch|e|en|er|es", "canadense|s", "canadese|i",
    ]),
    ("AU", &[
        "australia", "australie", "australien|ne|s|nes", "australian|s", "australiano|a|os|as|i|e",
        "australisch|e|en|er|es",
    ]),
    ("NZ", &[
        "new zealand", "nueva zelanda", "nouvelle-zelande", "nouvelle zelande", "neuseeland",
        "nova zelandia", "nuova zelanda", "new zealander|s",
    ]),
    ("IE", &[
        "ireland", "irlanda", "irlande", "irland", "irish", "irlandes|a|es|as", "irlandais|e|es",
        "irisch|e|en|er|es", "irlandese|i",
    ]),
    ("NL", &[
        "netherlands", "holland", "paises bajos", "holanda", "pays-bas", "pays bas", "hollande",
        "niederlande", "paises baixos", "paesi bassi", "olanda",
    ]),
    ("BE", &[
        "belgium", "belgica", "belgique", "belgien", "belgio", "belgian|s", "belga|s|i|he",
        "belge|s", "belgisch|e|en|er|es",
    ]),
    ("CH", &[
        "switzerland", "suiza", "suisse|s", "schweiz", "suica", "svizzera", "swiss",
        "suizo|a|os|as", "schweizer|in|isch|ische|ischen", "suico|a|os|as", "svizzero|a|i|e",
    ]),
    ("AT", &[
        "austria", "autriche", "osterreich", "austrian|s", "austriaco|a|os|as|i|he",
        "autrichien|ne|s|nes", "osterreichisch|e|en|er|es",
    ]),
    ("SE", &["sweden", "suecia", "suede", "schweden", "svezia", "swede|s"]),
    ("NO", &["norway", "noruega", "norvege", "norwegen", "norvegia"]),
    ("DK", &["denmark", "dinamarca", "danemark", "danimarca", "dane|s"]),
    ("FI", &["finland", "finlandia", "finlande", "finnland", "finn|s"]),
    ("PL", &["poland", "polonia", "pologne", "polen", "pole|s"]),
    ("CZ", &[
        "czech republic", "czechia", "republica checa", "chequia", "republique tcheque", "tchequie",
        "tschechien", "tschechische republik", "republica tcheca", "tchequia", "repubblica ceca",
        "cechia",
    ]),
    ("GR", &["greece", "grecia", "grece", "griechenland"]),
    ("TR", &["turkey", "turkiye", "turquia", "turquie", "turkei", "turchia", "turk|s"]),
    ("RU", &["russia", "rusia", "russie", "russland"]),
    ("UA", &["ukraine", "ucrania", "ucraina"]),
    ("CN", &["china", "chine", "cina"]),
    ("JP", &["japan", "japon", "japao", "giappone"]),
    ("KR", &[
        "south korea", "korea", "corea del sur", "corea", "coree du sud", "coree", "sudkorea",
        "coreia do sul", "coreia", "corea del sud",
    ]),
    ("KP", &[
        "north korea", "corea del norte", "coree du nord", "nordkorea", "coreia do norte",
        "corea del nord",
    ]),
    ("IN", &[
        "india", "indien|ne|s|nes", "inde", "indian|s", "indisch|e|en|er|es", "indiano|a|os|as|i|e",
    ]),
    ("PK", &[
        "pakistan", "paquistan", "paquistao", "pakistani|s", "pakistanais|e|es",
        "pakistanisch|e|en|er|es",
    ]),
    ("BD", &["bangladesh", "banglades", "bangladeshi|s"]),
    ("ID", &["indonesia", "indonesie"]),
    ("PH", &["philippines", "philippine", "filipinas", "philippinen", "filippine"]),
    ("VN", &["vietnam", "viet nam", "vietna"]),
    ("TH", &["thailand", "tailandia", "thailande", "thailandia"]),
    ("MY", &["malaysia", "malasia", "malaisie", "malaysian|s"]),
    ("SG", &["singapore", "singapur", "singapour", "singapura", "singaporean|s"]),
    ("SA", &[
        "saudi arabia", "arabia saudita", "arabie saoudite", "saudi-arabien", "saudi arabien",
        "saudi|s",
    ]),
    ("AE", &[
        "united arab emirates", "uae", "u.a.e", "emirati|s", "emiratos arabes unidos",
        "emirats arabes unis", "vereinigte arabische emirate", "emirados arabes unidos",
        "emirati arabi uniti",
    ]),
    ("IL", &[
        "israel", "israeli|s", "israelien|ne|s|nes", "israelisch|e|en|er|es", "israelense|s",
        "israeliano|a|i|e",
    ]),
    ("EG", &[
        "egypt", "egipto", "egypte", "agypten", "egito", "egitto", "egyptian|s", "egipcio|a|os|as",
        "egyptien|ne|s|nes", "agyptisch|e|en|er|es", "egiziano|a|i|e",
    ]),
    ("ZA", &[
        "south africa", "sudafrica", "afrique du sud", "sudafrika", "africa do sul",
        "south african|s", "sudafricano|a|os|as|i|e", "sud-africain|e|s|es",
        "sudafrikanisch|e|en|er|es", "sul-africano|a|os|as",
    ]),
    ("NG", &["nigeria", "nigerian|s|e|es", "nigeriano|a|os|as|i|e"]),
    ("KE", &["kenya", "kenia", "kenyan|s", "keniano|a|os|as"]),
    ("MA", &[
        "morocco", "marruecos", "maroc", "marokko", "marrocos", "marocco", "moroccan|s",
        "marroqui|es", "marocain|e|s|es", "marokkanisch|e|en|er|es", "marroquino|a|os|as",
        "marocchino|a|i|e",
    ]),
    ("IR", &[
        "iran", "iranian|s", "irani|es", "iranien|ne|s|nes", "iranisch|e|en|er|es",
        "iraniano|a|os|as|i|e",
    ]),
    ("IQ", &[
        "iraq", "irak", "iraque", "iraqi|s", "iraqui|es", "irakien|ne|s|nes", "irakisch|e|en|er|es",
        "iracheno|a|i|e",
    ]),
    ("HU", &["hungary", "hungria", "hongrie", "ungarn", "ungheria"]),
    ("RO", &["romania", "rumania", "roumanie", "rumanien", "romenia"]),
    ("ET", &["ethiopia", "etiopia", "ethiopie", "athiopien"]),
    ("DZ", &["algeria", "argelia", "algerie", "algerien"]),
    ("TN", &["tunisia", "tunez", "tunisie", "tunesien"]),
    ("HR", &["croatia", "croacia", "croatie", "kroatien", "croazia"]),
    ("RS", &["serbia", "serbie", "serbien", "servia"]),
    ("BG", &["bulgaria", "bulgarie", "bulgarien"]),
    ("SK", &["slovakia", "eslovaquia", "slovaquie", "slowakei", "slovacchia"]),
    ("SI", &["slovenia", "eslovenia", "slovenie", "slowenien"]),
    ("IS", &["iceland", "islandia", "islande", "islanda"]),
    ("LU", &["luxembourg", "luxemburgo", "luxemburg", "lussemburgo"]),
    ("TW", &["taiwan"]),
    ("HK", &["hong kong"]),
    ("QA", &["qatar", "catar"]),
    ("VA", &["vatican", "vatican city", "vaticano", "vatikan"]),
    ("MM", &["burma", "birmania", "birmanie"]),
    ("CI", &[
        "ivory coast", "costa de marfil", "cote d ' ivoire", "elfenbeinkuste", "costa do marfim",
        "costa d ' avorio",
    ]),
];

/// Languages by ISO 639-1, with the country their adjective names as a nationality ("" where
/// it names none: "English" is no passport), and their names in the six languages.
#[rustfmt::skip]
const LANGUAGES: &[(&str, &str, &[&str])] = &[
    ("EN", "", &["english", "ingles|a|es|as", "anglais|e|es", "englisch|e|en|er|es", "inglese|i"]),
    ("ES", "ES", &[
        "spanish", "espanol|a|es|as", "castellano", "castelhano", "castillan", "kastilisch",
        "castigliano", "espagnol|e|s|es", "spanisch|e|en|er|es",
        "espanhol|a", "espanhois", "spagnolo|a|i|e",
    ]),
    ("FR", "FR", &[
        "french", "frances|a|es|as", "francais|e|es", "franzosisch|e|en|er|es", "francese|i",
    ]),
    ("DE", "DE", &[
        "german|s", "aleman|a|es|as", "allemand|e|s|es", "deutsch|e|en|er|es", "alemao", "alema",
        "alemaes", "tedesco|a|hi|he",
    ]),
    ("IT", "IT", &[
        "italian|s", "italiano|a|os|as|i|e", "italien|ne|s|nes", "italienisch|e|en|er|es",
    ]),
    ("PT", "PT", &[
        "portuguese", "portugues|a|es|as", "portugais|e|es", "portugiesisch|e|en|er|es",
        "portoghese|i",
    ]),
    ("NL", "NL", &[
        "dutch", "neerlandes|a|es|as", "holandes|a|es|as", "neerlandais|e|es", "hollandais|e|es",
        "niederlandisch|e|en|er|es", "hollandisch|e|en|er|es", "olandese|i", "nederlands",
    ]),
    ("RU", "RU", &[
        "russian|s", "ruso|a|os|as", "russe|s", "russisch|e|en|er|es", "russo|a|os|as|i|e",
    ]),
    ("ZH", "CN", &[
        "chinese", "mandarin", "chino|a|os|as", "chinois|e|es", "chinesisch|e|en|er|es",
        "chines|a|es|as", "cinese|i",
    ]),
    ("JA", "JP", &[
        "japanese", "japones|a|es|as", "japonais|e|es", "japanisch|e|en|er|es", "giapponese|i",
    ]),
    ("KO", "KR", &["korean|s", "coreano|a|os|as|i|e", "coreen|ne|s|nes", "koreanisch|e|en|er|es"]),
    ("AR", "", &["arabic", "arabe|s", "arabisch|e|en|er|es", "arabo|a|i|e"]),
    ("HI", "", &["hindi"]),
    ("BN", "", &["bengali"]),
    ("UR", "", &["urdu"]),
    ("TR", "TR", &["turkish", "turco|a|os|as|hi|he", "turc|s", "turque|s", "turkisch|e|en|er|es"]),
    ("PL", "PL", &[
        "polish", "polaco|a|os|as", "polonais|e|es", "polnisch|e|en|er|es", "polones|a|es|as",
        "polacco|a|hi|he",
    ]),
    ("SV", "SE", &[
        "swedish", "sueco|a|os|as", "suedois|e|es", "schwedisch|e|en|er|es", "svedese|i",
    ]),
    ("NO", "NO", &[
        "norwegian|s", "noruego|a|os|as", "norvegien|ne|s|nes", "norwegisch|e|en|er|es",
        "noruegues|a|es|as", "norvegese|i",
    ]),
    ("DA", "DK", &[
        "danish", "danes|a|es|as", "danois|e|es", "danisch|e|en|er|es", "dinamarques|a|es|as",
        "danese|i",
    ]),
    ("FI", "FI", &[
        "finnish", "finlandes|a|es|as", "finnois|e|es", "finnisch|e|en|er|es", "finlandese|i",
    ]),
    ("EL", "GR", &[
        "greek|s", "griego|a|os|as", "grec|s", "grecque|s", "griechisch|e|en|er|es",
        "grego|a|os|as", "greco|a", "greci", "greche",
    ]),
    ("CS", "CZ", &[
        "czech|s", "checo|a|os|as", "tcheque|s", "tschechisch|e|en|er|es", "tcheco|a|os|as",
        "ceco|a|hi|he",
    ]),
    ("HU", "HU", &[
        "hungarian|s", "hungaro|a|os|as", "hongrois|e|es", "ungarisch|e|en|er|es", "ungherese|i",
    ]),
    ("RO", "RO", &[
        "romanian|s", "rumano|a|os|as", "roumain|e|s|es", "rumanisch|e|en|er|es", "romeno|a|os|as",
        "rumeno|a|i|e",
    ]),
    ("UK", "UA", &[
        "ukrainian|s", "ucraniano|a|os|as", "ukrainien|ne|s|nes", "ukrainisch|e|en|er|es",
        "ucraino|a|i|e",
    ]),
    ("HE", "", &["hebrew", "hebreo", "hebreu", "hebraisch", "hebraico", "ebraico"]),
    ("VI", "VN", &[
        "vietnamese", "vietnamita|s", "vietnamien|ne|s|nes", "vietnamesisch|e|en|er|es",
    ]),
    ("TH", "TH", &[
        "thai|s", "tailandes|a|es|as", "thailandais|e|es", "thailandisch|e|en|er|es",
        "tailandese|i",
    ]),
    ("ID", "ID", &[
        "indonesian|s", "indonesio|a|os|as", "indonesien|ne|s|nes", "indonesisch|e|en|er|es",
        "indonesiano|a|i|e",
    ]),
    ("MS", "", &["malay", "malayo", "malais", "malaiisch", "malaio", "malese"]),
    ("FA", "", &["persian", "farsi", "persa", "persan", "persisch", "persiano"]),
    ("TA", "", &["tamil"]),
    ("SW", "", &["swahili", "suajili", "souahili", "suaheli"]),
    ("CA", "", &["catalan", "katalanisch", "catalao", "catalano"]),
    ("TL", "PH", &["tagalog", "filipino|a|os|as"]),
    ("EU", "", &["basque", "vasco", "euskera", "baskisch"]),
    ("GL", "", &["galician", "gallego", "galicien", "galicisch", "galego", "galiziano"]),
    // Not Spanish "Gales", Wales, nor English "gales".
    ("CY", "", &["welsh", "galesa", "galeses", "galesas", "gallois|e|es", "walisisch|e|en|er|es", "galese|i"]),
];

/// Currencies by ISO 4217, with names and signs in the six languages.
#[rustfmt::skip]
const CURRENCIES: &[(&str, &[&str])] = &[
    ("USD", &[
        "$", "us $", "dollar|s|o|i", "dolar|es", "us dollar|s", "us - dollar|s",
        "american dollar|s", "dolares estadounidenses", "dolar estadounidense",
        "dolares americanos", "dolar americano", "dollars americains", "dollar americain",
        "dollar us", "dollars us", "amerikanische dollar", "amerikanischer dollar",
        "dollari americani", "dollaro americano", "dollari statunitensi", "dollaro statunitense",
        "buck|s", "greenback|s",
    ]),
    ("EUR", &["€", "euro|s"]),
    ("GBP", &[
        "£", "pound|s", "quid", "pound sterling", "pounds sterling", "sterling", "british pound|s",
        "libra|s", "libra esterlina", "libras esterlinas", "livre sterling", "livres sterling",
        "pfund", "pfund sterling", "britische pfund", "britisches pfund", "sterlina", "sterline",
        "lira sterlina", "lire sterline", "sterlina britannica", "sterline britanniche",
    ]),
    ("JPY", &[
        "¥", "yen|s|es", "japanese yen", "yen japones", "yen japonais", "japanische yen", "iene|s",
        "yen giapponese", "yen giapponesi",
    ]),
    ("CNY", &["¥", "yuan|s|es", "renminbi", "rmb", "chinese yuan", "yuan chino", "yuan chinois"]),
    ("CHF", &[
        "swiss franc|s", "franc|s", "franken", "schweizer franken", "franco suizo",
        "francos suizos", "franc suisse", "francs suisses", "franco suico", "francos suicos",
        "franco svizzero", "franchi svizzeri",
    ]),
    ("BRL", &[
        "r $", "reais", "brazilian real|s", "real brasileno", "reales brasilenos",
        "real brasileiro", "reais brasileiros", "real bresilien", "reals bresiliens",
        "brasilianische real", "brasilianischer real", "real brasiliano",
    ]),
    ("MXN", &[
        "mx $", "mexican peso|s", "peso mexicano", "pesos mexicanos", "peso mexicain",
        "pesos mexicains", "mexikanische peso|s", "mexikanischer peso", "peso messicano",
        "pesos messicani",
    ]),
    ("CAD", &[
        "c $", "ca $", "canadian dollar|s", "piasse|s", "piastre|s", "dolar canadiense",
        "dolares canadienses",
        "dollar canadien", "dollars canadiens", "kanadische dollar", "kanadischer dollar",
        "dolar canadense", "dolares canadenses", "dollaro canadese", "dollari canadesi",
    ]),
    ("AUD", &[
        "a $", "au $", "australian dollar|s", "dolar australiano", "dolares australianos",
        "dollar australien", "dollars australiens", "australische dollar", "australischer dollar",
        "dollaro australiano", "dollari australiani",
    ]),
    ("INR", &[
        "₹", "rupee|s", "indian rupee|s", "rupia|s", "rupia india", "rupias indias", "roupie|s",
        "roupie indienne", "roupies indiennes", "rupie", "indische rupie|n", "rupia indiana",
        "rupie indiane",
    ]),
    ("RUB", &["₽", "ruble|s", "rouble|s", "rublo|s", "rubel", "rubli", "russian ruble|s"]),
    ("KRW", &[
        "₩", "korean won", "south korean won", "won coreano", "won sud-coreen",
        "sudkoreanische won", "won sudcoreano",
    ]),
    ("SEK", &[
        "swedish krona", "swedish kronor", "corona sueca", "coronas suecas", "couronne suedoise",
        "couronnes suedoises", "schwedische krone|n", "coroa sueca", "coroas suecas",
        "corona svedese", "corone svedesi",
    ]),
    ("NOK", &[
        "norwegian krone|r", "corona noruega", "coronas noruegas", "couronne norvegienne",
        "couronnes norvegiennes", "norwegische krone|n", "coroa norueguesa", "coroas norueguesas",
        "corona norvegese", "corone norvegesi",
    ]),
    ("DKK", &[
        "danish krone|r", "corona danesa", "coronas danesas", "couronne danoise",
        "couronnes danoises", "danische krone|n", "coroa dinamarquesa", "coroas dinamarquesas",
        "corona danese", "corone danesi",
    ]),
    ("PLN", &["zł", "zloty|s", "złoty", "zlotych", "polish zloty|s", "esloti|s"]),
    ("TRY", &[
        "₺", "turkish lira|s", "lira turca", "liras turcas", "livre turque", "livres turques",
        "turkische lira", "lire turche",
    ]),
    ("ARS", &["argentine peso|s", "peso argentino", "pesos argentinos"]),
    ("COP", &["colombian peso|s", "peso colombiano", "pesos colombianos"]),
    ("CLP", &["chilean peso|s", "peso chileno", "pesos chilenos"]),
    ("ZAR", &["rand|s"]),
    ("HKD", &["hk $"]),
    ("NZD", &["nz $"]),
    ("SGD", &["s $"]),
    ("ILS", &["₪", "shekel|s", "sheqel|s", "sheqalim"]),
    ("THB", &["฿", "baht"]),
    ("VND", &["₫"]),
    ("PHP", &["₱"]),
    // West and Central Africa's CFA francs share their name: either is said by it.
    ("XOF", &[
        "cfa", "fcfa", "franc cfa", "francs cfa", "cfa franc|s", "franco cfa", "francos cfa",
        "franken cfa",
    ]),
    ("XAF", &[
        "cfa", "fcfa", "franc cfa", "francs cfa", "cfa franc|s", "franco cfa", "francos cfa",
        "franken cfa",
    ]),
    ("NGN", &["₦", "naira|s"]),
    ("GHS", &["₵", "cedi|s"]),
    ("KES", &["ksh", "kenyan shilling|s"]),
    ("HUF", &["forint|s"]),
    ("CZK", &["koruna", "korun", "czech crown|s"]),
    ("UAH", &["₴", "hryvnia|s", "grivna|s"]),
    ("IDR", &["rupiah|s"]),
    ("MYR", &["ringgit|s"]),
];

/// Time zones' cities (as their IANA names write them, "_" as a space) by their names in
/// the six languages (folded), where those differ: "Wien" is `Europe/Vienna`.
#[rustfmt::skip]
const CITY_NAMES: &[(&str, &[&str])] = &[
    ("vienna", &["wien", "viena", "vienne"]),
    ("rome", &["roma", "rom"]),
    ("lisbon", &["lisboa", "lisbonne", "lissabon", "lisbona"]),
    ("london", &["londres", "londra"]),
    ("paris", &["parigi"]),
    ("berlin", &["berlino", "berlim"]),
    ("brussels", &["bruselas", "bruxelles", "brussel", "bruxelas"]),
    ("zurich", &["zurigo", "zurique"]),
    ("athens", &["atenas", "athenes", "athen", "atene"]),
    ("moscow", &["moscu", "moscou", "moskau", "moscovo", "mosca"]),
    ("warsaw", &["varsovia", "varsovie", "warschau", "varsavia"]),
    ("prague", &["praga", "prag"]),
    ("copenhagen", &["copenhague", "kopenhagen", "copenaghen", "copenhaga"]),
    ("stockholm", &["estocolmo", "stoccolma"]),
    ("budapest", &["budapeste"]),
    ("bucharest", &["bucarest", "bukarest", "bucareste"]),
    ("belgrade", &["belgrado", "belgrad"]),
    ("dublin", &["dublino"]),
    ("istanbul", &["estambul", "istambul"]),
    ("cairo", &["caire", "kairo"]),
    ("kyiv", &["kiev", "kiew", "kijev"]),
    ("jerusalem", &["jerusalen", "gerusalemme"]),
    ("tokyo", &["tokio", "toquio"]),
    ("singapore", &["singapur", "singapour", "singapura"]),
    ("new york", &["nueva york", "nova iorque", "nova york"]),
    ("mexico city", &["ciudad de mexico", "cidade do mexico", "citta del messico"]),
    ("havana", &["la habana", "havane", "havanna"]),
];

/// Names of the time zone city `city` (lowercase, "_" as a space) in the six languages.
pub fn city_names(city: &str) -> &'static [&'static str] {
    CITY_NAMES
        .iter()
        .find(|(name, _)| *name == city)
        .map_or(&[], |(_, names)| names)
}

/// Phrases that name no country though a country's name is in them: read whole, they hide
/// their words from shorter names.
#[rustfmt::skip]
const NO_COUNTRY: &[&str] = &[
    "latin america", "south america", "north america", "central america", "america latina",
    "sudamerica", "centroamerica", "norteamerica", "amerique latine", "amerique du sud",
    "amerique du nord", "amerique centrale", "lateinamerika", "sudamerika", "nordamerika",
    "mittelamerika", "america do sul", "america do norte", "america del sud", "america del nord",
    "america del sur", "america del norte", "new mexico", "nuevo mexico", "new jersey",
    "new england", "new guinea", "indian ocean", "oceano indico", "guinea pig", "native american|s",
    "latin american|s", "south american|s", "north american|s", "central american|s",
    "latinoamericano|a|os|as", "sudamericano|a|os|as",
];

/// English short names from `isocountry` that are also common words.
const NOT_NAMES: &[&str] = &["reunion", "jersey", "korea"];

/// Words of the six languages that are also two- or three-letter codes: alone, no code.
#[rustfmt::skip]
const COMMON_WORDS: &[&str] = &[
    "ad", "ai", "al", "am", "an", "ar", "as", "at", "au", "bb", "be", "by", "ca", "cc", "ci", "cm",
    "co", "da", "de", "dj", "do", "el", "en", "er", "es", "et", "fa", "fi", "gp", "ha", "he", "hi",
    "hr", "id", "ie", "il", "in", "io", "is", "it", "ja", "je", "kg", "km", "la", "li", "ma", "me",
    "mg", "mi", "ml", "mm", "mo", "mr", "ms", "mt", "my", "na", "ne", "no", "nu", "pa", "pe", "ph",
    "pm", "ps", "re", "sa", "sd", "se", "si", "so", "st", "ta", "te", "tl", "to", "tv", "um", "us",
    "va", "vi", "eu", "ao", "ni", "lb", "gr", "th", "md", "ba", "bs", "pr", "cv", "eg", "cf", "gm",
    "fm", "gg", "mn", "bn", "fra", "are", "tun", "all", "and", "ago", "ala", "arg", "arm", "asm",
    "aus", "bam", "bel", "ben", "bob", "bol", "bra", "cad", "can", "che", "cod", "cog", "col",
    "com", "cri", "cub", "cup", "dom", "est", "fin", "gab", "gel", "geo", "gin", "gum", "guy",
    "hun", "jam", "ken", "lie", "lux", "mac", "mad", "mar", "mop", "mus", "nam", "nic", "nor",
    "pan", "pen", "per", "png", "pry", "ron", "sen", "som", "sos", "std", "sur", "tls", "ton",
    "top", "try", "vat", "ven",
];

/// One name: its folded tokens and the codes it gives.
struct Name {
    words: Vec<String>,
    codes: Vec<&'static str>,
    /// The countries it names as countries (alpha-2); a language's name gives its country's
    /// codes too ("German" is `DE`), but names no region of a locale.
    regions: Vec<&'static str>,
}

/// The United States' states and district by their names: US addresses and taxes ask for
/// the two-letter code ("San Francisco, California" is `CA`).
#[rustfmt::skip]
const US_STATES: &[(&str, &str)] = &[
    ("AL", "Alabama"), ("AK", "Alaska"), ("AZ", "Arizona"), ("AR", "Arkansas"),
    ("CA", "California"), ("CO", "Colorado"), ("CT", "Connecticut"), ("DE", "Delaware"),
    ("DC", "District of Columbia"), ("FL", "Florida"), ("GA", "Georgia"), ("HI", "Hawaii"),
    ("ID", "Idaho"), ("IL", "Illinois"), ("IN", "Indiana"), ("IA", "Iowa"), ("KS", "Kansas"),
    ("KY", "Kentucky"), ("LA", "Louisiana"), ("ME", "Maine"), ("MD", "Maryland"),
    ("MA", "Massachusetts"), ("MI", "Michigan"), ("MN", "Minnesota"), ("MS", "Mississippi"),
    ("MO", "Missouri"), ("MT", "Montana"), ("NE", "Nebraska"), ("NV", "Nevada"),
    ("NH", "New Hampshire"), ("NJ", "New Jersey"), ("NM", "New Mexico"), ("NY", "New York"),
    ("NC", "North Carolina"), ("ND", "North Dakota"), ("OH", "Ohio"), ("OK", "Oklahoma"),
    ("OR", "Oregon"), ("PA", "Pennsylvania"), ("RI", "Rhode Island"), ("SC", "South Carolina"),
    ("SD", "South Dakota"), ("TN", "Tennessee"), ("TX", "Texas"), ("UT", "Utah"),
    ("VT", "Vermont"), ("VA", "Virginia"), ("WA", "Washington"), ("WV", "West Virginia"),
    ("WI", "Wisconsin"), ("WY", "Wyoming"),
];

/// Names by their first folded token.
fn names() -> &'static HashMap<String, Vec<Name>> {
    static NAMES: OnceLock<HashMap<String, Vec<Name>>> = OnceLock::new();
    NAMES.get_or_init(build)
}

fn build() -> HashMap<String, Vec<Name>> {
    let mut index: HashMap<String, Vec<Name>> = HashMap::new();
    let mut add = |phrase: &str, codes: &[&'static str], regions: &[&'static str]| {
        for form in forms(phrase) {
            let words: Vec<String> = tokenize(&form).iter().map(|t| key(t).to_owned()).collect();
            let Some(first) = words.first().cloned() else {
                continue;
            };
            let entries = index.entry(first).or_default();
            match entries.iter_mut().find(|n| n.words == words) {
                Some(name) => {
                    for code in codes {
                        if !name.codes.contains(code) {
                            name.codes.push(code);
                        }
                    }
                    for region in regions {
                        if !name.regions.contains(region) {
                            name.regions.push(region);
                        }
                    }
                }
                None => entries.push(Name {
                    words,
                    codes: codes.to_vec(),
                    regions: regions.to_vec(),
                }),
            }
        }
    };
    for (alpha2, phrases) in COUNTRIES {
        let codes = country_codes(alpha2);
        for phrase in *phrases {
            add(phrase, &codes, &codes[..codes.len().min(1)]);
        }
    }
    for (language, country, phrases) in LANGUAGES {
        let mut codes = vec![*language];
        codes.extend(country_codes(country));
        for phrase in *phrases {
            add(phrase, &codes, &[]);
        }
    }
    for (currency, phrases) in CURRENCIES {
        for phrase in *phrases {
            add(phrase, &[currency], &[]);
        }
    }
    for (code, name) in US_STATES {
        add(name, &[code], &[]);
    }
    for phrase in NO_COUNTRY {
        add(phrase, &[], &[]);
    }
    // Every country by its English name: "Kazakhstan", "Bolivia (Plurinational State of)"
    // also as "Bolivia", "Taiwan, Province of China" also as "Taiwan".
    for country in isocountry::CountryCode::iter() {
        let codes = [country.alpha2(), country.alpha3()];
        let name = country.name();
        let short = name.split([',', '(']).next().unwrap_or(name).trim();
        for phrase in [name, short] {
            if !NOT_NAMES.contains(&super::tokens::fold(phrase).as_str()) {
                add(phrase, &codes, &codes[..1]);
            }
        }
        // Its currencies by their English names: "Swiss franc", "Mexican pesos".
        let Ok(iso) = iso_currency::Country::from_str(country.alpha2()) else {
            continue;
        };
        for currency in iso_currency::Currency::from_country(iso) {
            if currency.is_fund() || currency.is_special() {
                continue;
            }
            let name = currency.name();
            let name = name.split(['(', '/']).next().unwrap_or(name).trim();
            add(&format!("{name}|s"), &[currency.code()], &[]);
        }
    }
    index
}

/// "stem|a|b" is "stem" and its endings: appended ("ingles|a" is "inglesa"), or in place of
/// a final "o", "a" or "e" where the ending starts with a vowel or "h" ("italiano|i" is
/// "italiani", "tedesco|hi" is "tedeschi"). A phrase without "|" is itself.
/// A German adjective in "-ische" before its noun is also said in "-ischen" ("in dänischen
/// Kronen", "mit japanischen Yen").
fn forms(phrase: &str) -> Vec<String> {
    let mut parts = phrase.split('|');
    let stem = parts.next().unwrap_or_default();
    let mut out = vec![stem.to_owned()];
    for ending in parts.filter(|s| !s.is_empty()) {
        let replaces =
            stem.ends_with(['o', 'a', 'e']) && ending.starts_with(['a', 'e', 'i', 'o', 'u', 'h']);
        let base = if replaces {
            &stem[..stem.len() - 1]
        } else {
            stem
        };
        out.push(format!("{base}{ending}"));
    }
    let declined: Vec<String> = out
        .iter()
        .filter_map(|form| {
            let (first, rest) = form.split_once(' ')?;
            first.ends_with("ische").then(|| format!("{first}n {rest}"))
        })
        .collect();
    out.extend(declined);
    out
}

/// A token as names are keyed: folded, either apostrophe as "'".
pub(super) fn key(token: &Token) -> &str {
    if token.folded == "’" {
        "'"
    } else {
        &token.folded
    }
}

/// A country's alpha-2 and alpha-3 codes ("" gives none).
fn country_codes(alpha2: &str) -> Vec<&'static str> {
    isocountry::CountryCode::for_alpha2(alpha2)
        .map(|c| vec![c.alpha2(), c.alpha3()])
        .unwrap_or_default()
}

fn is_language(code: &str) -> bool {
    LANGUAGES.iter().any(|(language, _, _)| *language == code)
}

/// Fills [`Facts::codes`].
pub fn read(tokens: &[Token], _context: &Context, facts: &mut Facts) {
    let names = names();
    let mut i = 0;
    while i < tokens.len() {
        if let Some(len) = locale_at(tokens, i, facts) {
            i += len;
            continue;
        }
        let longest = names.get(key(&tokens[i])).and_then(|entries| {
            let matching = entries.iter().filter(|n| {
                n.words
                    .iter()
                    .enumerate()
                    .all(|(k, w)| tokens.get(i + k).is_some_and(|t| key(t) == w))
            });
            let best = matching.clone().map(|n| n.words.len()).max()?;
            Some((best, matching.filter(move |n| n.words.len() == best)))
        });
        if let Some((len, found)) = longest {
            for name in found {
                facts
                    .codes
                    .extend(name.codes.iter().map(|c| (*c).to_owned()));
                if !name.codes.is_empty() {
                    facts
                        .code_names
                        .push((i, name.codes.iter().map(|c| (*c).to_owned()).collect()));
                }
                facts
                    .regions
                    .extend(name.regions.iter().map(|c| (*c).to_owned()));
            }
            i += len;
            continue;
        }
        code_as_word(tokens, i, facts);
        i += 1;
    }
    real_after_another(tokens, facts);
}

/// The Brazilian real by its bare name, which is also a word ("real" is "real" in Spanish and
/// Portuguese): only as the other end of a conversion, after "to" with a currency named just
/// before ("de dólar pra real", "from dollars to real").
fn real_after_another(tokens: &[Token], facts: &mut Facts) {
    const TO: &[&str] = &["pra", "para", "to", "into"];
    let currency = |codes: &Vec<String>| {
        codes
            .iter()
            .any(|c| c.len() == 3 && iso_currency::Currency::from_code(c).is_some())
    };
    let found = tokens.iter().enumerate().any(|(i, t)| {
        matches!(t.folded.as_str(), "real" | "reais")
            && i >= 2
            && TO.contains(&tokens[i - 1].folded.as_str())
            && facts
                .code_names
                .iter()
                .any(|(at, codes)| (i.saturating_sub(4)..i - 1).contains(at) && currency(codes))
    });
    if found {
        facts.codes.insert("BRL".to_owned());
    }
}

/// "de-DE", "pt-BR", "en_US": the language, the country and the locale, if both parts are
/// codes. Returns how many tokens it covers.
fn locale_at(tokens: &[Token], i: usize, facts: &mut Facts) -> Option<usize> {
    let token = &tokens[i];
    let (language, country, len) = match token.folded.split_once('_') {
        Some((language, country)) => (language.to_owned(), country.to_owned(), 1),
        None => {
            let mark = tokens.get(i + 1)?;
            let next = tokens.get(i + 2)?;
            if mark.lower != "-" || mark.spaced || next.spaced {
                return None;
            }
            (token.folded.clone(), next.folded.clone(), 3)
        }
    };
    let language = language.to_uppercase();
    let country = country.to_uppercase();
    if language.len() != 2 || !is_language(&language) || country.len() != 2 {
        return None;
    }
    let found = isocountry::CountryCode::for_alpha2(&country).ok()?;
    facts.codes.insert(format!("{language}-{country}"));
    facts.codes.insert(format!("{language}_{country}"));
    facts.codes.insert(language);
    facts.codes.insert(found.alpha2().to_owned());
    facts.codes.insert(found.alpha3().to_owned());
    facts.regions.insert(found.alpha2().to_owned());
    Some(len)
}

/// A code written as itself: "EUR", "GBP", "DEU", "FR". A currency code may follow a number
/// ("20 EUR"); a country or language code after a number is a unit ("5 GB").
fn code_as_word(tokens: &[Token], i: usize, facts: &mut Facts) {
    let token = &tokens[i];
    let word = token.folded.as_str();
    if token.kind != Kind::Word
        || !(2..=3).contains(&word.len())
        || !word.chars().all(|c| c.is_ascii_lowercase())
        || COMMON_WORDS.contains(&word)
    {
        return;
    }
    let upper = word.to_uppercase();
    let after_number = i > 0 && tokens[i - 1].kind == Kind::Number;
    if upper.len() == 3 && iso_currency::Currency::from_code(&upper).is_some() {
        facts.codes.insert(upper.clone());
    }
    if after_number {
        return;
    }
    let country = match upper.len() {
        2 => isocountry::CountryCode::for_alpha2(&upper).ok(),
        _ => isocountry::CountryCode::for_alpha3(&upper).ok(),
    };
    if let Some(country) = country {
        facts.codes.insert(country.alpha2().to_owned());
        facts.codes.insert(country.alpha3().to_owned());
    }
    if is_language(&upper) {
        facts.codes.insert(upper);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn us_states_by_name() {
        let codes = |text: &str| super::super::facts::read_for_test(text).codes;
        assert!(codes("a purchase in San Francisco, California").contains("CA"));
        assert!(codes("ship it to New York").contains("NY"));
        assert!(!codes("ship it to York").contains("NY"));
        // The state, not Mexico.
        assert_eq!(codes("New Mexico").into_iter().collect::<Vec<_>>(), ["NM"]);
    }

    fn codes(text: &str) -> Vec<String> {
        let facts = super::super::facts::read_for_test(text);
        let mut out: Vec<String> = facts.codes.into_iter().collect();
        out.sort();
        out
    }

    fn has(text: &str, code: &str) -> bool {
        codes(text).iter().any(|c| c == code)
    }

    #[test]
    fn countries_in_six_languages() {
        for text in [
            "a flight to the United States",
            "to the USA",
            "in the U.S.",
            "the US",
            "vuelo a Estados Unidos",
            "los EE. UU.",
            "aux États-Unis",
            "in die Vereinigten Staaten",
            "Vereinigte Staaten",
            "para os Estados Unidos",
            "negli Stati Uniti",
        ] {
            assert!(has(text, "US") && has(text, "USA"), "{text}");
        }
        for text in [
            "the UK",
            "Britain",
            "Great Britain",
            "England",
            "Reino Unido",
            "au Royaume-Uni",
            "Großbritannien",
            "Grã-Bretanha",
            "Regno Unito",
        ] {
            assert!(has(text, "GB") && has(text, "GBR"), "{text}");
        }
        for text in [
            "Germany",
            "Alemania",
            "Allemagne",
            "Deutschland",
            "Alemanha",
            "Germania",
        ] {
            assert_eq!(codes(text), ["DE", "DEU"], "{text}");
        }
        for text in ["Spain", "España", "Espagne", "Spanien", "Espanha", "Spagna"] {
            assert!(has(text, "ES") && has(text, "ESP"), "{text}");
        }
        assert!(has("Kazakhstan", "KZ"));
        assert!(has("Bolivia", "BOL"));
        assert!(has("Côte d'Ivoire", "CI") && has("Côte d’Ivoire", "CIV"));
        assert!(has("South Korea", "KR") && !has("South Korea", "KP"));
        assert!(has("Mexique", "MX"));
    }

    #[test]
    fn demonyms_give_country_and_language() {
        assert!(has("British", "GB"));
        for (text, code) in [
            ("German", "DE"),
            ("French", "FR"),
            ("Spanish", "ES"),
            ("alemana", "DE"),
            ("française", "FR"),
            ("spanische", "ES"),
            ("brasileiro", "BR"),
            ("italiani", "IT"),
        ] {
            assert!(has(text, code), "{text}");
        }
        assert!(has("Japanese", "JA") && has("Japanese", "JP"));
    }

    #[test]
    fn languages_in_six_languages() {
        for text in [
            "English", "inglés", "anglais", "Englisch", "inglês", "inglese",
        ] {
            assert_eq!(codes(text), ["EN"], "{text}");
        }
        for text in [
            "Spanish",
            "español",
            "castellano",
            "espagnol",
            "Spanisch",
            "espanhol",
            "spagnolo",
        ] {
            assert!(has(text, "ES"), "{text}");
        }
        for (text, code) in [
            ("chinois", "ZH"),
            ("Portuguese", "PT"),
            ("giapponese", "JA"),
            ("Russisch", "RU"),
            ("árabe", "AR"),
            ("coreano", "KO"),
            ("hindi", "HI"),
            ("ucraniano", "UK"),
            ("griego", "EL"),
        ] {
            assert!(has(text, code), "{text}");
        }
    }

    #[test]
    fn currencies_in_six_languages() {
        for text in [
            "British pounds",
            "pounds sterling",
            "100 libras",
            "livres sterling",
            "50 Pfund",
            "libras esterlinas",
            "sterline",
            "£20",
        ] {
            assert!(has(text, "GBP"), "{text}");
        }
        assert_eq!(codes("British pounds"), ["GBP"]);
        for text in ["20 euros", "20 Euro", "20€", "in EUR", "€"] {
            assert!(has(text, "EUR"), "{text}");
        }
        for text in [
            "dollars",
            "dólares",
            "dollars américains",
            "US-Dollar",
            "$5",
            "USD",
        ] {
            assert!(has(text, "USD"), "{text}");
        }
        assert!(has("Canadian dollars", "CAD") && !has("Canadian dollars", "USD"));
        assert!(has("yen", "JPY") && has("¥", "JPY"));
        assert!(has("francs suisses", "CHF"));
        assert!(has("Schweizer Franken", "CHF"));
        // A German adjective declined before its noun.
        assert!(has("Zeig mir die Preise in dänischen Kronen", "DKK"));
        assert!(has("in schwedischen Kronen", "SEK") && !has("in schwedischen Kronen", "DKK"));
        assert!(has("reais", "BRL") && has("R$ 50", "BRL"));
        // "real" alone only as a conversion's other end.
        assert!(has("de dólar pra real", "BRL"));
        assert!(has("convert 100 euros to real", "BRL"));
        assert!(!has("quero dinheiro real", "BRL"));
        assert!(!has("is it real", "BRL"));
        assert!(!has("I need 50 USD for a real emergency", "BRL"));
        assert!(has("pesos mexicanos", "MXN"));
        assert!(has("Swiss francs", "CHF"));
        assert!(has("Kazakhstani tenge", "KZT"));
        assert!(has("dollari", "USD"));
        assert!(has("GBP", "GBP"));
        // The CFA franc names both of its currencies; other currencies by their own words.
        assert!(has("Yónnee 10 000 CFA Awa Diop", "XOF") && has("10 000 FCFA", "XAF"));
        assert!(has("5000 naira", "NGN") && has("200 cedis", "GHS") && has("forint", "HUF"));
        assert!(!has("un café à la CAF", "XOF") && !has("Cafeteria", "XOF"));
        assert!(!has("pregunta a Franco", "XOF") && has("50 francs CFA", "XOF"));
    }

    #[test]
    fn codes_as_words_and_locales() {
        assert!(has("in EUR", "EUR"));
        assert!(has("DEU", "DEU") && has("DEU", "DE"));
        assert!(has("20 EUR", "EUR"));
        let locale = codes("set the locale to de-DE");
        for code in ["DE", "DEU", "DE-DE", "DE_DE"] {
            assert!(locale.iter().any(|c| c == code), "{code}");
        }
        assert!(has("en_US", "EN") && has("en_US", "US") && has("en_US", "EN-US"));
        assert!(has("pt-BR", "PT") && has("pt-BR", "BR"));
        assert!(has("FR", "FR"));
    }

    #[test]
    fn no_substrings_prefixes_or_common_words() {
        for text in [
            "usage",
            "This is important",
            "business trip",
            "tell us about it",
            "de la casa",
            "es importante",
            "and then we can go",
            "per person",
            "5 GB of storage",
            "a 5 m cable",
            "a reunión tomorrow",
            "flights across Latin America",
            "Latin American food",
            "a guinea pig",
            "try it",
            "Germanic",
            "Englishman",
        ] {
            assert!(codes(text).is_empty(), "{text}: {:?}", codes(text));
        }
    }
}
