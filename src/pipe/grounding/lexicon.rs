//! The English words that tool schemas use for enum members and boolean flags ("window",
//! "asc", "outdoor", "notify"), each with the words a user says for it in Spanish, French,
//! German, Portuguese and Italian ("ventana", "fenetre", "fensterplatz", "janela",
//! "finestra"), so that a value said in other words can be grounded. Data (the word table
//! and the abbreviations that share its lists) and the two lookups over it.
//!
//! The English words come from BFCL's public tool definitions (bfcl-eval 2026.3.23,
//! `bfcl_eval/data/BFCL_v4_*.json`): the words of string enum members and of boolean
//! properties' names (snake, camel and kebab case split), kept where at least 3 tools use
//! them, less stop words, single letters, numbers, codes, units, file formats and proper
//! nouns; plus common enum concepts BFCL has fewer times (seat, seating, time of day,
//! priority, gender, frequency, notify, immediate) and the abbreviations "asc", "desc",
//! "min", "max", "avg", which share their word's list. `scripts/grounding-lexicon.py` derives
//! and counts the English words; the translations were written by hand. Forms are folded as
//! `tokens::fold` folds text (lowercase, accents off, "ß" kept): "fruhstuck", "offentlich".
//! A few rows also hold English words for the same choice ("outside" for `outdoor`).

use std::collections::HashMap;
use std::sync::OnceLock;

/// Each English word (lowercase) with its common translations and inflected forms in
/// Spanish, French, German, Portuguese and Italian, folded; a form equal to the English word
/// is left out.
#[rustfmt::skip]
const WORDS: &[(&str, &[&str])] = &[
    ("anonymous", &["anonimo", "anonima", "anonimos", "anonimamente", "anonyme", "anonymes",
        "anonym", "anonymen", "anonimi"]),
    ("driving", &["car", "drive", "coche", "carro", "auto", "conducir", "voiture", "conduire",
        "fahren", "autofahrt", "macchina", "guidare", "dirigir"]),
    ("walking", &["foot", "walk", "pie", "caminando", "caminar", "pied", "marche", "fuss",
        "fuß", "laufen", "pe", "andando", "piedi", "camminare"]),
    ("transit", &["bus", "metro", "subway", "train", "tram", "publico", "transporte",
        "transports", "commun", "offis", "offentlichen", "bahn", "onibus", "comboio", "mezzi",
        "pubblici", "treno"]),
    ("bicycling", &["bike", "bicycle", "cycling", "bici", "bicicleta", "velo", "fahrrad",
        "rad", "bicicletta"]),
    ("delicate", &["delicado", "delicada", "delicat", "schonwaschgang", "feinwasche",
        "delicato", "delicata"]),
    ("quick", &["fast", "rapido", "rapida", "rapide", "schnell", "kurz", "veloce",
        "rapidamente"]),
    ("access", &["acceso", "accesos", "acceder", "acces", "zugang", "zugriff", "zugreifen",
        "acesso", "acessar", "accesso", "accedere"]),
    ("accessibility", &["accesibilidad", "accesible", "accesibles", "accessibilite",
        "accessible", "accessibles", "barrierefreiheit", "barrierefrei", "barrierefreie",
        "zuganglich", "zugangliche", "acessibilidade", "acessivel", "acessiveis",
        "accessibilita", "accessibile", "accessibili"]),
    ("action", &["accion", "acciones", "actions", "aktion", "aktionen", "actionfilm",
        "actionfilme", "acao", "acoes", "azione", "azioni"]),
    ("active", &["activo", "activa", "activos", "activas", "activado", "activada", "actif",
        "actifs", "actives", "activee", "aktiv", "aktive", "aktiven", "aktiver", "aktives",
        "aktiviert", "ativo", "ativa", "ativos", "ativas", "ativado", "attivo", "attiva",
        "attivi", "attive", "attivato"]),
    ("add", &["create", "agregar", "anadir", "agrega", "anade", "agregue", "ajouter", "ajoute", "ajoutez",
        "hinzufugen", "hinzufuge", "erganzen", "adicionar", "adiciona", "acrescentar",
        "aggiungere", "aggiungi", "aggiunga"]),
    ("address", &["direccion", "direcciones", "domicilio", "adresse", "adresses", "adressen",
        "anschrift", "endereco", "enderecos", "indirizzo", "indirizzi"]),
    ("admin", &["administrador", "administradora", "administracion", "administrateur",
        "administratrice", "administrator", "administratorin", "verwaltung", "administracao",
        "amministratore", "amministrazione"]),
    ("after", &["despues", "tras", "apres", "nach", "nachdem", "danach", "depois", "apos", "dopo"]),
    ("afternoon", &["tarde", "tardes", "aprem", "nachmittag", "nachmittags",
        "pomeriggio", "pomeridiano"]),
    ("air", &["aire", "aereo", "aerea", "aerien", "aerienne", "luft", "flug", "aria"]),
    ("aisle", &["pasillo", "couloir", "allee", "gang", "gangplatz", "gangsitz", "corredor",
        "corridoio"]),
    ("alert", &["alerta", "alertas", "aviso", "avisos", "alerte", "alertes", "alarm", "alarme",
        "warnung", "warnungen", "hinweis", "allerta", "avviso", "avvisi"]),
    ("all", &["todo", "toda", "todos", "todas", "tout", "toute", "tous", "toutes", "alle",
        "alles", "allen", "samtliche", "tutto", "tutta", "tutti", "tutte"]),
    ("allow", &["permitir", "permite", "permitido", "permitida", "permettre", "autoriser",
        "autorise", "autorisee", "permis", "erlauben", "erlaubt", "zulassen", "gestatten",
        "permettere", "consentire", "consentito", "permesso"]),
    ("american", &["americano", "americana", "americanos", "americanas", "estadounidense",
        "americain", "americaine", "americains", "amerikanisch", "amerikanische",
        "amerikanischen", "amerikaner", "americani"]),
    ("analysis", &["analisis", "analizar", "analyse", "analyses", "analyser", "analysen",
        "analysieren", "auswertung", "analise", "analises", "analisar", "analisi", "analizzare"]),
    ("anchor", &["ancla", "anclaje", "ancre", "anker", "verankerung", "ancora"]),
    ("animation", &["animacion", "animada", "animado", "animados", "anime", "animes", "dessin",
        "animationsfilm", "zeichentrick", "zeichentrickfilm", "animacao", "desenho",
        "animazione", "animato", "animati", "cartoni"]),
    ("annual", &["anual", "anuales", "annuel", "annuelle", "annuels", "jahrlich", "jahrliche",
        "jahrlichen", "jahres", "anuais", "annuale", "annuali", "annuo"]),
    ("annually", &["anualmente", "anual", "annuellement", "annuel", "jahrlich", "jahrliche",
        "annualmente", "annuale"]),
    ("application", &["aplicacion", "aplicaciones", "solicitud", "applications", "candidature",
        "anwendung", "anwendungen", "bewerbung", "antrag", "aplicacao", "aplicativo",
        "candidatura", "applicazione", "domanda"]),
    ("apply", &["aplicar", "aplica", "solicitar", "appliquer", "postuler", "anwenden",
        "bewerben", "beantragen", "candidatar", "applicare", "candidarsi"]),
    ("archived", &["archivado", "archivada", "archivados", "archivadas", "archive", "archivee",
        "archives", "archivees", "archiviert", "archivierte", "archivierten", "arquivado",
        "arquivada", "arquivados", "archiviato", "archiviata", "archiviati"]),
    ("area", &["zona", "zonas", "superficie", "zone", "zones", "surface", "bereich", "flache",
        "gebiet"]),
    ("ascending", &["ascendente", "ascendentes", "creciente", "crecientes", "croissant",
        "croissante", "ascendant", "aufsteigend", "aufsteigende", "aufsteigender",
        "aufsteigendes", "aufsteigenden", "crescente"]),
    ("assists", &["asistencias", "asistencia", "passes", "passe", "vorlagen", "vorlage",
        "assistencias", "assistencia", "assist", "assistenze"]),
    ("auto", &["automatico", "automatica", "automaticamente", "automatique", "automatiquement",
        "automatisch", "automatische"]),
    ("availability", &["disponibilidad", "disponible", "disponibles", "disponibilite",
        "verfugbarkeit", "verfugbar", "verfugbare", "disponibilidade", "disponivel",
        "disponiveis", "disponibilita", "disponibile", "disponibili"]),
    ("average", &["promedio", "medio", "media", "moyenne", "moyen", "durchschnitt",
        "durchschnittlich", "durchschnittliche", "mittelwert"]),
    ("basic", &["basico", "basica", "basicos", "basique", "base", "basis", "einfach",
        "grundlegend", "basilare"]),
    ("before", &["antes", "avant", "vor", "bevor", "vorher", "prima"]),
    ("black", &["negro", "negra", "negros", "negras", "noir", "noire", "noirs", "noires",
        "schwarz", "schwarze", "schwarzen", "schwarzer", "preto", "preta", "nero", "nera",
        "neri", "nere"]),
    ("blue", &["azul", "azules", "bleu", "bleue", "bleus", "blau", "blaue", "blauen", "blauer",
        "azuis", "blu", "azzurro", "azzurra"]),
    ("books", &["libros", "libro", "livres", "livre", "bucher", "buch", "livros", "livro",
        "libri"]),
    ("breakfast", &["desayuno", "desayunos", "dejeuner", "fruhstuck", "cafe", "colazione",
        "desjejum", "petitdejeuner"]),
    ("business", &["negocios", "negocio", "ejecutiva", "ejecutivo", "empresarial", "affaires",
        "affaire", "geschaft", "geschaftlich", "geschaftsklasse", "businessklasse", "executiva",
        "executivo", "affari", "aziendale"]),
    ("cafe", &["cafeteria", "cafes", "kaffeehaus", "caffe", "caffetteria"]),
    ("calculate", &["calcular", "calcula", "calculer", "calcule", "berechnen", "berechne",
        "ausrechnen", "calcolare", "calcola"]),
    ("camping", &["acampada", "acampar", "camper", "zelten", "campingplatz", "acampamento",
        "campeggio"]),
    ("cancelled", &["cancelado", "cancelada", "cancelados", "anulado", "anulada", "annule",
        "annulee", "annules", "storniert", "stornierte", "abgesagt", "abgebrochen", "cancellato",
        "cancellata", "annullato", "annullata"]),
    ("case", &["mayusculas", "minusculas", "casse", "majuscules", "minuscules",
        "grossschreibung", "großschreibung", "kleinschreibung", "maiusculas", "maiuscole",
        "minuscole"]),
    ("check", &["comprobar", "verificar", "revisar", "comprueba", "verifica", "verifier",
        "controler", "verifie", "prufen", "uberprufen", "kontrollieren", "prufe", "checar",
        "conferir", "controllare", "verificare", "controlla"]),
    ("chinese", &["chino", "china", "chinos", "chinois", "chinoise", "chinesisch", "chinesische",
        "chinesischen", "chines", "chinesa", "cinese", "cinesi"]),
    ("class", &["clase", "classe", "klasse"]),
    ("closed", &["cerrado", "cerrada", "cerrados", "cerradas", "ferme", "fermee", "fermes",
        "fermees", "geschlossen", "geschlossene", "geschlossenen", "fechado", "fechada",
        "fechados", "chiuso", "chiusa", "chiusi", "chiuse"]),
    ("clothing", &["ropa", "vestimenta", "vetements", "vetement", "habillement", "kleidung",
        "bekleidung", "roupa", "roupas", "vestuario", "abbigliamento", "vestiti"]),
    ("complete", &["done", "finished", "completo", "completa", "completar", "terminar", "complet", "terminer",
        "vollstandig", "vollstandige", "abschließen", "abschliessen", "fertig", "completare"]),
    ("completed", &["completado", "completada", "terminado", "terminada", "finalizado",
        "termine", "terminee", "acheve", "fini", "abgeschlossen", "erledigt", "fertig",
        "beendet", "concluido", "concluida", "completato", "completata", "terminato", "concluso"]),
    ("confirm", &["ask", "ruckfrage", "nachfragen", "preguntar", "preguntarme", "demander",
        "perguntar", "chiedere", "confirmar", "confirma", "confirme", "confirmer", "bestatigen", "bestatige",
        "bestatigt", "confermare", "conferma"]),
    ("confirmation", &["confirmacion", "confirmaciones", "confirmations", "bestatigung",
        "bestatigungen", "confirmacao", "confirmacoes", "conferma", "conferme"]),
    ("content", &["contenido", "contenidos", "contenu", "contenus", "inhalt", "inhalte",
        "conteudo", "conteudos", "contenuto", "contenuti"]),
    ("cool", &["fresco", "fresca", "frio", "frais", "fraiche", "froid", "kuhl", "kuhle", "kalt",
        "freddo"]),
    ("country", &["pais", "paises", "pays", "land", "lander", "paese", "paesi"]),
    ("create", &["crear", "crea", "cree", "creer", "erstellen", "erstelle", "anlegen", "criar",
        "crie", "cria", "creare"]),
    ("created", &["creado", "creada", "creados", "cree", "creee", "crees", "erstellt",
        "erstellte", "angelegt", "criado", "criada", "criados", "creato", "creata", "creati"]),
    ("credit", &["credito", "creditos", "credits", "kredit", "guthaben", "kreditkarte", "crediti"]),
    ("critical", &["critico", "critica", "criticos", "critique", "critiques", "kritisch",
        "kritische", "kritischen", "critici"]),
    ("custom", &["personalizado", "personalizada", "personalizados", "personnalise",
        "personnalisee", "personnalises", "benutzerdefiniert", "individuell", "eigene",
        "angepasst", "personalizzato", "personalizzata"]),
    ("daily", &["diario", "diaria", "diariamente", "quotidien", "quotidienne", "journalier",
        "journaliere", "taglich", "tagliche", "taglichen", "giornaliero", "giornaliera",
        "quotidiano", "quotidiana"]),
    ("dairy", &["lacteos", "lacteo", "lacteas", "laitiers", "laitier", "laitiere", "lait",
        "milchprodukte", "milch", "laticinios", "latticini", "latte"]),
    ("dark", &["oscuro", "oscura", "oscuros", "sombre", "sombres", "fonce", "foncee", "dunkel",
        "dunkle", "dunklen", "dunkler", "escuro", "escura", "scuro", "scura", "scuri"]),
    ("data", &["datos", "dato", "donnees", "donnee", "daten", "dados", "dati"]),
    ("date", &["fecha", "fechas", "dates", "datum", "data", "datas"]),
    ("day", &["dia", "dias", "jour", "jours", "journee", "tag", "tage", "tages", "giorno",
        "giorni"]),
    ("delete", &["borrar", "eliminar", "borra", "elimina", "supprimer", "supprime", "effacer",
        "loschen", "losche", "entfernen", "excluir", "apagar", "deletar", "eliminare",
        "cancellare"]),
    ("deletion", &["borrado", "eliminacion", "suppression", "effacement", "loschung", "loschen",
        "exclusao", "remocao", "eliminazione", "cancellazione"]),
    ("delivery", &["entrega", "entregas", "domicilio", "envio", "livraison", "livraisons",
        "lieferung", "lieferungen", "zustellung", "consegna", "consegne"]),
    ("descending", &["descendente", "descendentes", "decreciente", "decrecientes", "decroissant",
        "decroissante", "descendant", "absteigend", "absteigende", "absteigender",
        "absteigendes", "absteigenden", "decrescente", "discendente"]),
    ("detail", &["detalle", "detalles", "details", "einzelheit", "detalhe", "detalhes",
        "dettaglio", "dettagli"]),
    ("detailed", &["detallado", "detallada", "detallados", "detaille", "detaillee", "detailles",
        "detailliert", "detaillierte", "ausfuhrlich", "ausfuhrliche", "detalhado", "detalhada",
        "dettagliato", "dettagliata"]),
    ("details", &["detalles", "detalle", "detail", "einzelheiten", "detalhes", "detalhe",
        "dettagli", "dettaglio"]),
    ("development", &["desarrollo", "developpement", "entwicklung", "desenvolvimento", "sviluppo"]),
    ("disabled", &["desactivado", "desactivada", "deshabilitado", "deshabilitada", "desactive",
        "desactivee", "desactives", "deaktiviert", "deaktivierte", "ausgeschaltet", "desativado",
        "desativada", "desabilitado", "disattivato", "disattivata", "disabilitato",
        "disabilitata"]),
    ("discontinued", &["descontinuado", "descontinuada", "arrete", "arretee", "eingestellt",
        "abgekundigt", "discontinuato", "fuori"]),
    ("drama", &["dramas", "drame", "drames", "dramen", "dramma", "drammi"]),
    ("economy", &["economica", "economico", "turista", "economique", "eco", "touristenklasse",
        "sparpreis"]),
    ("education", &["educacion", "educativo", "educativa", "educatif", "educative",
        "enseignement", "bildung", "ausbildung", "educacao", "istruzione", "educazione"]),
    ("electronics", &["electronica", "electronicos", "electronique", "electroniques",
        "elektronik", "elektrogerate", "eletronica", "eletronicos", "elettronica"]),
    ("enabled", &["activado", "activada", "habilitado", "habilitada", "active", "activee",
        "actives", "actif", "aktiviert", "aktivierte", "eingeschaltet", "aktiv", "ativado",
        "ativada", "attivato", "attivata", "abilitato", "abilitata"]),
    ("end", &["fin", "final", "terminar", "terminer", "ende", "beenden", "fim", "fine", "finire"]),
    ("english", &["ingles", "inglesa", "anglais", "anglaise", "englisch", "englische", "inglese"]),
    ("equal", &["igual", "iguales", "egal", "egale", "egaux", "gleich", "gleiche", "iguais",
        "uguale", "uguali"]),
    ("error", &["errores", "erreur", "erreurs", "fehler", "erro", "erros", "errore", "errori"]),
    ("evening", &["noche", "tarde", "soir", "soiree", "abend", "abends", "noite", "sera",
        "serata"]),
    ("event", &["evento", "evenement", "ereignis", "veranstaltung"]),
    ("events", &["eventos", "evenements", "ereignisse", "veranstaltungen", "eventi"]),
    ("excellent", &["excelente", "excelentes", "excellente", "excellents", "ausgezeichnet",
        "hervorragend", "eccellente", "ottimo"]),
    ("exclude", &["excluir", "excluye", "excluido", "excluida", "exclure", "exclu", "exclue",
        "ausschließen", "ausschliessen", "ausgeschlossen", "escludere", "escluso", "esclusa"]),
    ("extra", &["extras", "adicional", "adicionales", "supplementaire", "supplement",
        "zusatzlich", "zusatzliche", "aggiuntivo", "aggiuntiva"]),
    ("fair", &["justo", "regular", "juste", "correct", "passable", "ordentlich", "razoavel",
        "equo", "discreto"]),
    ("false", &["falso", "falsa", "faux", "fausse", "falsch"]),
    ("family", &["familia", "familiar", "famille", "familial", "familiale", "familie",
        "familien", "famiglia", "familiare"]),
    ("female", &["femenino", "mujer", "mujeres", "feminin", "feminine", "femme", "femmes",
        "weiblich", "frau", "frauen", "feminino", "mulher", "mulheres", "femminile", "donna",
        "donne"]),
    ("filter", &["filtrar", "filtro", "filtrer", "filtre", "filtern", "filtrare"]),
    ("first", &["primera", "primero", "primer", "premiere", "premier", "erste", "erster",
        "ersten", "erstes", "primeira", "primeiro", "prima", "primo"]),
    ("force", &["forzar", "forzado", "forcer", "erzwingen", "erzwungen", "forcar", "forcado",
        "forzare", "forzato"]),
    ("free", &["libre", "libres", "gratis", "gratuito", "gratuita", "gratuit", "gratuite",
        "gratuits", "frei", "freie", "kostenlos", "kostenlose", "livre", "libero", "libera"]),
    ("freelance", &["autonomo", "independiente", "independant", "independante", "freiberuflich",
        "freiberufler", "selbststandig", "freelancer", "libero"]),
    ("french", &["frances", "francesa", "francais", "francaise", "franzosisch", "franzosische",
        "francese"]),
    ("frequency", &["frecuencia", "frequence", "haufigkeit", "frequenz", "frequencia",
        "frequenza"]),
    ("friendly", &["amigable", "apto", "admitido", "admiten", "accepte", "acceptes", "adapte",
        "freundlich", "erlaubt", "willkommen", "amigavel", "aceita", "aceitam", "ammessi",
        "ammesso", "adatto"]),
    ("full", &["completo", "completa", "lleno", "llena", "complet", "complete", "plein",
        "pleine", "voll", "volle", "vollstandig", "cheio", "cheia", "pieno", "piena"]),
    ("general", &["generales", "generale", "generaux", "allgemein", "allgemeine", "geral",
        "gerais", "generali"]),
    ("german", &["aleman", "alemana", "allemand", "allemande", "deutsch", "deutsche", "alemao",
        "alema", "tedesco", "tedesca"]),
    ("gluten", &["glutenfrei", "glutenfreie", "glutenfreien", "glutine"]),
    ("greater", &["mayor", "mayores", "superieur", "superieure", "großer", "grosser", "hoher",
        "mehr", "maior", "maiores", "maggiore", "maggiori"]),
    ("green", &["verde", "verdes", "vert", "verte", "verts", "grun", "grune", "grunen", "verdi"]),
    ("heartbeat", &["latido", "pulso", "pulsation", "battement", "herzschlag", "batimento",
        "pulsacao", "battito"]),
    ("high", &["alto", "alta", "altos", "altas", "elevado", "elevada", "haut", "haute", "eleve",
        "elevee", "hoch", "hohe", "hoher", "hohen", "elevato", "elevata"]),
    ("historical", &["historico", "historica", "historicos", "historique", "historiques",
        "historisch", "historische", "geschichtlich", "storico", "storica", "storici"]),
    ("history", &["historia", "historial", "histoire", "historique", "geschichte", "verlauf",
        "historico", "storia", "cronologia"]),
    ("hold", &["retener", "retenido", "espera", "reservar", "attente", "retenir", "bloquer",
        "halten", "zuruckhalten", "anhalten", "reter", "retido", "trattenere", "attesa",
        "bloccare"]),
    ("home", &["casa", "hogar", "inicio", "maison", "domicile", "accueil", "hause", "haus",
        "zuhause", "startseite", "lar", "domicilio"]),
    ("horror", &["terror", "miedo", "horreur", "epouvante", "grusel", "gruselfilm", "horrorfilm",
        "orrore"]),
    ("hour", &["hora", "heure", "stunde", "ora"]),
    ("hours", &["horas", "hora", "heures", "heure", "stunden", "stunde", "ore", "ora"]),
    ("household", &["hogar", "domestico", "domestica", "menage", "menager", "menagere",
        "haushalt", "haushaltswaren", "lar", "casa"]),
    ("human", &["humano", "humana", "humanos", "persona", "humain", "humaine", "humains",
        "mensch", "menschlich", "menschen", "pessoa", "umano", "umana"]),
    ("humidity", &["humedad", "humidite", "feuchtigkeit", "luftfeuchtigkeit", "umidade",
        "umidita"]),
    ("immediate", &["inmediato", "inmediata", "inmediatamente", "enseguida", "immediat",
        "immediatement", "sofort", "sofortig", "sofortige", "umgehend", "imediato", "imediata",
        "imediatamente", "immediato", "immediata", "immediatamente", "subito"]),
    ("immediately", &["inmediatamente", "inmediato", "enseguida", "immediatement", "immediat",
        "sofort", "umgehend", "unverzuglich", "imediatamente", "imediato", "immediatamente",
        "subito"]),
    ("impact", &["impacto", "auswirkung", "auswirkungen", "impatto"]),
    ("imperial", &["imperiales", "imperiale", "imperiaux", "anglo", "angloamerikanisch",
        "imperiais"]),
    ("inactive", &["inactivo", "inactiva", "inactivos", "inactivas", "inactif", "inactifs",
        "inaktiv", "inaktive", "inaktiven", "inativo", "inativa", "inativos", "inattivo",
        "inattiva", "inattivi"]),
    ("include", &["incluir", "incluye", "incluido", "incluida", "incluidos", "inclure", "inclus",
        "incluse", "compris", "comprise", "einschließen", "einschliessen", "inklusive",
        "enthalten", "einbeziehen", "inclua", "includere", "incluso", "inclusa", "includi",
        "compreso"]),
    ("indian", &["indio", "india", "indios", "hindu", "indien", "indienne", "indisch",
        "indische", "indischen", "indiano", "indiana"]),
    ("indoor", &["inside", "indoors", "interior", "dentro", "adentro", "cubierto", "cubierta", "interieur", "dedans",
        "salle", "couvert", "drinnen", "innen", "innenbereich", "innenraum", "coberto",
        "interno", "interna", "coperto"]),
    ("info", &["informacion", "infos", "information", "informationen", "informacao",
        "informacoes", "informazioni", "informazione"]),
    ("internship", &["practicas", "pasantia", "becario", "stage", "stagiaire", "praktikum",
        "praktikant", "estagio", "estagiario", "tirocinio"]),
    ("italian", &["italiano", "italiana", "italien", "italienne", "italienisch", "italienische"]),
    ("keep", &["mantener", "conservar", "guardar", "garder", "conserver", "behalten",
        "beibehalten", "manter", "mantenere", "conservare", "tenere"]),
    ("large", &["grande", "grandes", "grand", "grands", "groß", "große", "großer", "gross",
        "grosse", "grosser", "grandi"]),
    ("less", &["menos", "menor", "moins", "inferieur", "weniger", "kleiner", "meno", "minore"]),
    ("light", &["claro", "clara", "ligero", "ligera", "luz", "clair", "claire", "leger",
        "legere", "lumiere", "hell", "helle", "leicht", "leichte", "licht", "leve", "chiaro",
        "chiara", "leggero", "leggera", "luce"]),
    ("low", &["bajo", "baja", "bajos", "bajas", "bas", "basse", "faible", "faibles", "niedrig",
        "niedrige", "niedriger", "gering", "geringe", "baixo", "baixa", "baixos", "basso",
        "bassa", "bassi"]),
    ("major", &["mayor", "importante", "grave", "majeur", "majeure", "schwer", "schwerwiegend",
        "maior", "maggiore", "großer", "grosser"]),
    ("live", &["current", "latest", "realtime", "actual", "vivo", "directo", "direct", "aktuell",
        "aktuellen", "atual", "diretta", "attuale"]),
    ("male", &["masculino", "hombre", "hombres", "varon", "masculin", "homme", "hommes",
        "mannlich", "mann", "manner", "homem", "homens", "maschile", "maschio", "uomo", "uomini"]),
    ("maximum", &["maximo", "maxima", "maximale", "maximal", "hochstens", "hochste", "massimo",
        "massima"]),
    ("medium", &["medio", "media", "mediano", "mediana", "moderado", "moderada", "moyen",
        "moyenne", "modere", "moderee", "mittel", "mittlere", "mittlerer", "mittleren",
        "mittelgroß", "mittelgross", "moderato", "moderata"]),
    ("metadata", &["metadatos", "metadonnees", "metadaten", "metadados", "metadati"]),
    ("metric", &["metrico", "metrica", "metrique", "metriques", "metrisch", "metrische"]),
    ("mexican", &["mexicano", "mexicana", "mexicain", "mexicaine", "mexikanisch", "mexikanische",
        "messicano", "messicana"]),
    ("middle", &["medio", "centro", "central", "milieu", "centre", "mitte", "mittelplatz",
        "mittlere", "mittleren", "meio", "centrale", "mezzo"]),
    ("minimum", &["minimo", "minima", "minimale", "minimal", "mindestens", "mindest"]),
    ("monthly", &["mensual", "mensualmente", "mensuel", "mensuelle", "monatlich", "monatliche",
        "mensal", "mensalmente", "mensile", "mensilmente"]),
    ("morning", &["manana", "matutino", "matin", "matinee", "morgen", "morgens", "vormittag",
        "vormittags", "manha", "matinal", "mattina", "mattino"]),
    ("music", &["musica", "musique", "musik"]),
    ("mystery", &["misterio", "suspense", "mystere", "policier", "krimi", "mistero", "giallo"]),
    ("name", &["nombre", "nombres", "nom", "noms", "namen", "nome", "nomes", "nomi"]),
    ("network", &["red", "redes", "reseau", "reseaux", "netzwerk", "netz", "rede", "rete", "reti"]),
    ("new", &["nuevo", "nueva", "nuevos", "nuevas", "nouveau", "nouvelle", "nouveaux", "neuf",
        "neu", "neue", "neuer", "neues", "neuen", "novo", "nova", "novos", "novas", "nuovo",
        "nuova", "nuovi", "nuove"]),
    ("news", &["noticias", "noticia", "nouvelles", "actualites", "informations", "nachrichten",
        "neuigkeiten", "notizie", "notizia"]),
    ("newsletter", &["boletin", "lettre", "infolettre", "rundbrief", "boletim", "notiziario"]),
    ("night", &["noche", "noches", "nocturno", "nocturna", "nuit", "nuits", "nocturne", "nacht",
        "nachts", "nachte", "noite", "noites", "noturno", "notte", "notti", "notturno"]),
    ("none", &["ninguno", "ninguna", "ningun", "nada", "aucun", "aucune", "rien", "kein",
        "keine", "keiner", "nichts", "nenhum", "nenhuma", "nessuno", "nessuna", "niente"]),
    ("notification", &["notificacion", "notificaciones", "aviso", "avisos", "notifications",
        "avis", "benachrichtigung", "benachrichtigungen", "mitteilung", "notificacao",
        "notificacoes", "notifica", "notifiche", "avviso", "avvisi"]),
    ("notify", &["tell", "ping", "previens", "prevenez", "avvisa", "notificar", "notificame", "avisar", "avisame", "aviso", "notifier", "prevenir",
        "avertir", "notification", "benachrichtigen", "benachrichtige", "benachrichtigung",
        "notificacao", "notificare", "avvisare", "avvisami", "notifica"]),
    ("off", &["apagado", "apagada", "desactivado", "desactivada", "eteint", "eteinte",
        "desactive", "ausgeschaltet", "ausschalten", "desligado", "desligada", "spento",
        "spenta", "disattivato"]),
    ("on", &["encendido", "encendida", "activado", "activada", "allume", "allumee", "active",
        "activee", "eingeschaltet", "einschalten", "aktiviert", "ligado", "ligada", "ativado",
        "acceso", "accesa", "attivato", "attivo"]),
    ("open", &["abierto", "abierta", "abiertos", "abiertas", "ouvert", "ouverte", "ouverts",
        "offen", "offene", "geoffnet", "aberto", "aberta", "abertos", "aperto", "aperta",
        "aperti"]),
    ("options", &["opciones", "opcion", "option", "optionen", "opcoes", "opcao", "opzioni",
        "opzione"]),
    ("organic", &["organico", "organica", "ecologico", "ecologica", "biologique", "bio",
        "biologisch", "biologico", "biologica"]),
    ("outdoor", &["outside", "outdoors", "patio", "terrace", "exterior", "afuera", "fuera",
        "terraza", "exterieur", "dehors", "terrasse", "draußen", "draussen", "außen", "aussen",
        "außenbereich", "aussenbereich", "freien", "fora", "esplanada", "esterno", "esterna",
        "fuori", "terrazza"]),
    ("package", &["paquete", "paquetes", "paquet", "paquets", "colis", "paket", "pakete",
        "pauschalreise", "pacote", "pacotes", "pacchetto", "pacchetti"]),
    ("parking", &["estacionamiento", "aparcamiento", "parqueadero", "stationnement", "parkplatz",
        "parken", "parkhaus", "estacionamento", "parcheggio"]),
    ("paused", &["pausado", "pausada", "pause", "pausee", "pausiert", "angehalten", "pausa",
        "sospeso", "sospesa"]),
    ("pending", &["pendiente", "pendientes", "attente", "ausstehend", "offen", "pendente",
        "pendentes", "sospeso", "attesa"]),
    ("personal", &["personales", "personnel", "personnelle", "personlich", "personliche",
        "pessoal", "pessoais", "personale", "personali"]),
    ("pet", &["mascota", "mascotas", "animal", "animaux", "haustier", "haustiere", "tiere",
        "animais", "animale", "animali"]),
    ("picnic", &["picnics", "piquenique", "picknick"]),
    ("politics", &["politica", "politique", "politik"]),
    ("pool", &["piscina", "piscinas", "piscine", "schwimmbad"]),
    ("power", &["energia", "potencia", "electricidad", "puissance", "energie", "leistung",
        "strom", "potenza"]),
    ("price", &["precio", "precios", "prix", "preis", "preise", "preco", "precos", "prezzo",
        "prezzi"]),
    ("private", &["privado", "privada", "privados", "privadas", "prive", "privee", "prives",
        "privees", "privat", "privaten", "privato", "privata", "privati"]),
    ("production", &["produccion", "produktion", "producao", "produzione"]),
    ("progress", &["progreso", "curso", "progression", "cours", "fortschritt", "bearbeitung",
        "progresso", "andamento", "corso", "avanzamento"]),
    ("public", &["publico", "publica", "publicos", "publicas", "publique", "publics",
        "publiques", "offentlich", "offentliche", "offentlichen", "pubblico", "pubblica",
        "pubblici"]),
    ("quality", &["calidad", "qualite", "qualitat", "qualidade", "qualita"]),
    ("quarter", &["trimestre", "cuarto", "quart", "quartal", "viertel", "quarto"]),
    ("quarterly", &["trimestral", "trimestralmente", "trimestriel", "trimestrielle",
        "vierteljahrlich", "quartalsweise", "trimestrale"]),
    ("range", &["rango", "intervalo", "plage", "intervalle", "bereich", "spanne", "faixa",
        "intervallo"]),
    ("rating", &["calificacion", "valoracion", "puntuacion", "note", "evaluation", "bewertung",
        "bewertungen", "avaliacao", "classificacao", "nota", "valutazione", "voto"]),
    ("read", &["leer", "leido", "leida", "lire", "lue", "lesen", "gelesen", "ler", "lido",
        "lida", "leggere", "letto", "letta"]),
    ("real", &["reales", "reel", "reelle", "echt", "wirklich", "reais", "reale", "reali"]),
    ("recursive", &["subdirectories", "subfolders", "recursivo", "recursiva", "recursivamente", "recursif", "rekursiv",
        "ricorsivo", "ricorsiva"]),
    ("red", &["rojo", "roja", "rojos", "rouge", "rouges", "rot", "rote", "roten", "vermelho",
        "vermelha", "rosso", "rossa"]),
    ("redirects", &["redirecciones", "redireccionar", "redirections", "rediriger",
        "weiterleitungen", "umleitungen", "redirecionamentos", "redirecionar", "reindirizzamenti"]),
    ("regular", &["normal", "habitual", "normale", "habituel", "regulare", "comum", "regolare"]),
    ("relevance", &["relevancia", "pertinencia", "pertinence", "relevanz", "rilevanza",
        "pertinenza"]),
    ("remember", &["recordar", "recuerda", "recordarme", "souvenir", "rappeler", "memoriser",
        "merken", "erinnern", "speichern", "lembrar", "ricordare", "ricordami", "lembre"]),
    ("request", &["solicitud", "solicitar", "peticion", "demande", "demander", "requete",
        "anfrage", "anfordern", "anforderung", "pedido", "solicitacao", "richiesta", "richiedere"]),
    ("required", &["requerido", "requerida", "obligatorio", "obligatoria", "requis", "requise",
        "obligatoire", "erforderlich", "pflicht", "notwendig", "obrigatorio", "obrigatoria",
        "necessario", "obbligatorio", "obbligatoria", "richiesto"]),
    ("resolved", &["resuelto", "resuelta", "resueltos", "resolu", "resolue", "gelost",
        "erledigt", "resolvido", "resolvida", "risolto", "risolta"]),
    ("resources", &["recursos", "ressources", "ressourcen", "risorse"]),
    ("return", &["devolver", "regreso", "vuelta", "retour", "retourner", "renvoyer", "ruckgabe",
        "zuruckgeben", "ruckfahrt", "ruckflug", "retorno", "volta", "restituire", "ritorno"]),
    ("reviews", &["resenas", "opiniones", "resena", "avis", "critiques", "bewertungen",
        "rezensionen", "avaliacoes", "resenhas", "recensioni", "recensione"]),
    ("root", &["raiz", "racine", "wurzel", "stammverzeichnis", "radice"]),
    ("round", &["redondear", "redondo", "vuelta", "arrondir", "arrondi", "retour", "runden",
        "gerundet", "arredondar", "arredondado", "volta", "arrotondare", "arrotondato",
        "ritorno", "zuruck"]),
    ("safe", &["seguro", "segura", "securise", "securisee", "sicher", "sichere", "sicuro",
        "sicura"]),
    ("scenic", &["panoramico", "panoramica", "escenico", "panoramique", "pittoresque",
        "malerisch", "landschaftlich", "cenico", "paesaggistico"]),
    ("script", &["guion", "guiones", "scenario", "scripts", "skript", "drehbuch", "roteiro",
        "sceneggiatura", "copione"]),
    ("seafood", &["mariscos", "marisco", "fruits", "meeresfruchte", "frutos", "pesce", "frutti"]),
    ("search", &["buscar", "busqueda", "chercher", "recherche", "rechercher", "suchen", "suche",
        "pesquisar", "busca", "pesquisa", "cercare", "ricerca"]),
    ("seat", &["asiento", "asientos", "plaza", "siege", "sieges", "place", "sitz", "sitzplatz",
        "platz", "assento", "assentos", "lugar", "posto", "posti", "sedile"]),
    ("seating", &["asientos", "places", "placement", "sitzplatz", "sitzplatze", "bestuhlung",
        "assentos", "lugares", "posti", "plazas", "sitzplatzen", "sedute"]),
    ("security", &["seguridad", "securite", "sicherheit", "seguranca", "sicurezza"]),
    ("sensitive", &["sensible", "distinguir", "respecter", "beachten", "sensitiv", "sensivel",
        "diferenciar", "sensibile", "distinguere"]),
    ("shortest", &["corto", "corta", "rapido", "rapida", "court", "courte", "rapide", "kurzeste",
        "kurzesten", "schnellste", "curto", "curta", "breve"]),
    ("show", &["mostrar", "muestra", "ensenar", "afficher", "montrer", "anzeigen", "zeigen",
        "exibir", "mostrare", "visualizzare"]),
    ("simple", &["sencillo", "sencilla", "simples", "einfach", "einfache", "semplice", "semplici"]),
    ("single", &["individual", "sencillo", "simple", "individuel", "seul", "einzel",
        "einzelzimmer", "einfach", "einzeln", "simples", "solteiro", "singolo", "singola"]),
    ("small", &["pequeno", "pequena", "chico", "chica", "petit", "petite", "petits", "klein",
        "kleine", "kleiner", "kleinen", "piccolo", "piccola", "piccoli"]),
    ("social", &["sociales", "sociaux", "sociale", "sozial", "soziale", "sozialen", "sociais",
        "sociali"]),
    ("spanish", &["espanol", "espanola", "espagnol", "espagnole", "spanisch", "spanische",
        "espanhol", "espanhola", "spagnolo", "spagnola"]),
    ("sports", &["deportes", "deporte", "deportivo", "sport", "sportif", "sportarten",
        "esportes", "esporte", "desporto", "sportivo"]),
    ("staging", &["preproduccion", "pruebas", "preproduction", "recette", "vorproduktion",
        "testumgebung", "homologacao", "teste", "collaudo", "prova"]),
    ("standard", &["estandar", "normal", "padrao", "normale"]),
    ("start", &["iniciar", "empezar", "comenzar", "inicio", "commencer", "demarrer", "debut",
        "starten", "beginnen", "anfang", "comecar", "iniziare", "avviare", "inizio"]),
    ("statistics", &["estadisticas", "estadistica", "statistiques", "statistique", "statistik",
        "statistiken", "estatisticas", "estatistica", "statistiche", "statistica"]),
    ("status", &["estado", "statut", "etat", "zustand", "stand", "situacao", "stato"]),
    ("stock", &["existencias", "inventario", "acciones", "actions", "bestand", "lager", "aktien",
        "estoque", "acoes", "magazzino", "scorte", "azioni"]),
    ("stop", &["detener", "parar", "parada", "arreter", "arret", "stoppen", "anhalten", "halt",
        "fermare", "fermata"]),
    ("subdirectories", &["subdirectorios", "subcarpetas", "unterverzeichnisse", "unterordner",
        "subdiretorios", "subpastas", "sottodirectory", "sottocartelle", "sousdossiers",
        "sousrepertoires"]),
    ("subdomains", &["subdominios", "unterdomanen", "sottodomini", "sousdomaines"]),
    ("suppressed", &["suprimido", "suprimida", "silenciado", "supprime", "supprimee",
        "unterdruckt", "unterdruckte", "soppresso", "soppressa"]),
    ("system", &["sistema", "systeme"]),
    ("temperature", &["temperatura", "temperatur"]),
    ("terrace", &["terraza", "terrazas", "terrasse", "terrasses", "terrassen", "terraco",
        "esplanada", "varanda", "terrazza", "terrazzo"]),
    ("text", &["texto", "texte", "testo"]),
    ("time", &["hora", "tiempo", "heure", "temps", "zeit", "uhrzeit", "tempo", "ora"]),
    ("tomorrow", &["manana", "demain", "morgen", "amanha", "domani"]),
    ("traffic", &["trafico", "transito", "trafic", "circulation", "verkehr", "trafego",
        "traffico"]),
    ("triggered", &["activado", "disparado", "declenche", "declenchee", "ausgelost",
        "ausgeloste", "acionado", "attivato", "innescato"]),
    ("triggering", &["activacion", "disparar", "declenchement", "declencher", "auslosen",
        "auslosung", "acionamento", "disparo", "attivazione", "innesco"]),
    ("true", &["verdadero", "verdadera", "cierto", "vrai", "vraie", "wahr", "richtig",
        "verdadeiro", "verdadeira", "vero", "vera"]),
    ("update", &["actualizar", "actualiza", "actualizacion", "actualiser", "aktualisieren",
        "aktualisierung", "atualizar", "atualizacao", "aggiornare", "aggiornamento",
        "actualisation"]),
    ("updates", &["actualizaciones", "novedades", "aktualisierungen", "atualizacoes",
        "novidades", "aggiornamenti", "novita", "actualisations", "nouveautes"]),
    ("urgent", &["urgente", "urgentes", "urgents", "dringend", "dringende", "eilig", "urgenti"]),
    ("usage", &["uso", "consumo", "utilisation", "consommation", "nutzung", "verbrauch",
        "utilizzo"]),
    ("use", &["usar", "utilizar", "usa", "utiliser", "utilise", "verwenden", "nutzen",
        "benutzen", "usare", "utilizzare"]),
    ("used", &["usado", "usada", "usados", "segunda", "occasion", "utilise", "utilisee",
        "gebraucht", "gebrauchte", "benutzt", "seminovo", "usato", "usata"]),
    ("user", &["usuario", "usuarios", "utilisateur", "utilisateurs", "benutzer", "nutzer",
        "utente", "utenti"]),
    ("value", &["valor", "valores", "valeur", "valeurs", "wert", "werte", "valore", "valori"]),
    ("vegan", &["vegano", "vegana", "veganos", "veganas", "vegetalien", "vegetalienne", "vegane",
        "veganer", "veganes", "veganen", "vegani"]),
    ("vegetarian", &["vegetariano", "vegetariana", "vegetarianos", "vegetarien", "vegetarienne",
        "vegetarisch", "vegetarische", "vegetarier"]),
    ("verbose", &["detallado", "detallada", "detaille", "verbeux", "ausfuhrlich", "ausfuhrliche",
        "detalhado", "verboso", "dettagliato"]),
    ("war", &["guerra", "guerre", "krieg", "kriegsfilm"]),
    ("warning", &["advertencia", "aviso", "avertissement", "warnung", "avvertenza", "avviso"]),
    ("weekly", &["semanal", "semanalmente", "hebdomadaire", "wochentlich", "wochentliche",
        "settimanale"]),
    ("window", &["ventana", "ventanilla", "fenetre", "hublot", "fenster", "fensterplatz",
        "fenstersitz", "janela", "finestra", "finestrino"]),
    ("world", &["mundo", "mundial", "internacional", "monde", "mondial", "international", "welt",
        "mondo", "mondiale", "esteri"]),
    ("write", &["escribir", "escritura", "ecrire", "ecriture", "schreiben", "escrever",
        "escrita", "scrivere", "scrittura"]),
    ("year", &["ano", "anos", "annee", "jahr", "jahre", "anno", "anni"]),
    ("yearly", &["anual", "anualmente", "annuel", "annuelle", "jahrlich", "jahrliche", "annuale",
        "annuo"]),
    ("years", &["anos", "ans", "annees", "jahre", "jahren", "anni"]),
    ("yellow", &["amarillo", "amarilla", "jaune", "jaunes", "gelb", "gelbe", "amarelo",
        "amarela", "giallo", "gialla"]),
];

/// Abbreviations that enums use for a word of [`WORDS`]: each has that word's list.
const ALIASES: &[(&str, &str)] = &[
    ("asc", "ascending"),
    ("avg", "average"),
    ("desc", "descending"),
    ("max", "maximum"),
    ("min", "minimum"),
];

/// The English word an abbreviation stands for ("asc" is "ascending"), or `word` itself.
pub fn full(word: &str) -> &str {
    ALIASES
        .iter()
        .find(|(short, _)| short.eq_ignore_ascii_case(word))
        .map_or(word, |(_, long)| long)
}

/// The words said for the English `word` in Spanish, French, German, Portuguese and Italian,
/// folded; empty when the word is not in the lexicon. Looked up by its lowercase form.
pub fn translations(word: &str) -> &'static [&'static str] {
    let index = index();
    if let Some(forms) = index.get(word) {
        return forms;
    }
    let lower = word.to_lowercase();
    if let Some(forms) = index.get(lower.as_str()) {
        return forms;
    }
    // A plural or inflected form of a listed word ("notifications", "shared").
    let stemmed = super::tokens::stem(&lower);
    [stemmed.clone(), format!("{stemmed}e")]
        .iter()
        .find_map(|w| index.get(w.as_str()).copied())
        .unwrap_or(&[])
}

type Index = HashMap<&'static str, &'static [&'static str]>;

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: Index = WORDS.iter().copied().collect();
        for &(short, word) in ALIASES {
            if let Some(&forms) = index.get(word) {
                index.insert(short, forms);
            }
        }
        index
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn has(word: &str, forms: &[&str]) {
        let list = translations(word);
        for form in forms {
            assert!(list.contains(form), "{word}: no {form}");
        }
    }

    #[test]
    fn words_in_each_language() {
        has(
            "window",
            &[
                "ventana",
                "fenetre",
                "fenster",
                "fensterplatz",
                "janela",
                "finestra",
            ],
        );
        has(
            "outdoor",
            &["terraza", "terrasse", "draußen", "esplanada", "fuori"],
        );
        has("terrace", &["terraza", "terrasse", "terraco", "terrazza"]);
        has(
            "notify",
            &[
                "notificar",
                "notifier",
                "benachrichtigung",
                "avisar",
                "notificare",
            ],
        );
        has(
            "immediate",
            &["inmediato", "immediatement", "sofort", "imediato", "subito"],
        );
        has("public", &["publico", "publique", "offentlich", "pubblico"]);
    }

    #[test]
    fn abbreviations_share_their_words_list() {
        assert_eq!(translations("asc"), translations("ascending"));
        assert_eq!(translations("desc"), translations("descending"));
        has(
            "asc",
            &["ascendente", "croissant", "aufsteigend", "crescente"],
        );
        has(
            "desc",
            &["descendente", "decroissant", "absteigend", "decrescente"],
        );
        has("max", &["maximo", "massimo"]);
        has("avg", &["promedio", "durchschnitt"]);
    }

    #[test]
    fn looked_up_by_lowercase() {
        assert_eq!(translations("Window"), translations("window"));
        assert_eq!(translations("ASC"), translations("ascending"));
    }

    #[test]
    fn unknown_words_have_none() {
        assert!(translations("").is_empty());
        assert!(translations("xyzzy").is_empty());
        assert!(
            translations("ventana").is_empty(),
            "looked up by English word only"
        );
        assert!(translations("window seat").is_empty());
    }

    #[test]
    fn table_is_well_formed() {
        let mut keys = HashSet::new();
        for (word, forms) in WORDS {
            assert!(keys.insert(*word), "duplicate English key {word}");
            assert!(!forms.is_empty(), "{word} has no forms");
            let mut seen = HashSet::new();
            for form in *forms {
                assert!(
                    form.chars().all(|c| c.is_ascii_lowercase() || c == 'ß'),
                    "{form}"
                );
                assert!(form != word, "{word} lists itself");
                assert!(seen.insert(form), "{word} lists {form} twice");
            }
        }
        for (short, word) in ALIASES {
            assert!(keys.insert(*short), "duplicate English key {short}");
            assert!(!translations(word).is_empty(), "{short} names no word");
        }
    }
}
