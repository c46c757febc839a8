//! A name said in a role another field's: the name a message is signed with or sent from is
//! its sender's ("Envia um email à Inês…, assina como Rui", "fírmalo como Andrés", "mittente
//! Ciro Esposito", "de parte de Jorge Medina"), none of them whom it goes to; the name of a
//! pet ("unseren Kater Moritz", "my dog Bella") is no owner's.

use super::evidence::Evidence;
use super::tokens::{tokenize, words_of, Kind};

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
];

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

/// Whether `value`, a name in a field about a message's recipient or a pet's owner (`key`),
/// is written in the conversation only in another role: the message's sender, the pet.
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
    let before: Vec<&[&str]> = if about(RECIPIENT) {
        SIGN.iter().chain(SENT_FROM).copied().collect()
    } else if about(OWNER) {
        PETS.to_vec()
    } else {
        return false;
    };
    only_after(value, &before, evidence)
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

/// Whether `value` is written in the conversation, and everywhere right after one of
/// `before` (past a colon or a comma: "Signed: Rui").
fn only_after(value: &str, before: &[&[&str]], evidence: &Evidence) -> bool {
    let name: Vec<String> = tokenize(value)
        .into_iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.folded)
        .collect();
    if name.is_empty() {
        return false;
    }
    let tokens = &evidence.tokens;
    let places: Vec<usize> = (0..tokens.len())
        .filter(|&i| {
            name.iter()
                .enumerate()
                .all(|(k, w)| tokens.get(i + k).is_some_and(|t| t.folded == *w))
        })
        .collect();
    let signed = |at: usize| {
        // Past a colon or a comma: "Signed: Rui", "gezeichnet, Lena".
        let mut end = at;
        if end > 0 && matches!(tokens[end - 1].folded.as_str(), ":" | ",") {
            end -= 1;
        }
        before.iter().any(|words| {
            end.checked_sub(words.len()).is_some_and(|from| {
                words
                    .iter()
                    .enumerate()
                    .all(|(k, w)| tokens[from + k].folded == *w)
            })
        })
    };
    !places.is_empty() && places.into_iter().all(signed)
}

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
}
