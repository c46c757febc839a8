//! Configuration errors that read cleanly: figment's error turned into
//! ``proxy.toml: line 3: unknown key `upstream.urll` (did you mean `url`?); known keys: …``.
//! figment keeps no positions, so the file is parsed again with `toml_edit` to find the line.

use std::path::Path;

use figment::error::Kind;

/// Older key names still read but no longer documented, so not offered.
const ALIASES: &[&str] = &["base_url"];

/// One line naming where the error is (file and line, or environment variable), the key and
/// what is wrong with it.
pub(crate) fn describe(error: &figment::Error, file: Option<&Path>) -> String {
    // figment prefixes keys with its profile name ("default"); the file knows no profiles.
    let mut path: Vec<&str> = error.path.iter().map(String::as_str).collect();
    if let Kind::UnknownField(field, _) = &error.kind {
        if path.last() != Some(&field.as_str()) {
            path.push(field);
        }
    }
    let key = dotted(&path);
    let place = place(error, file, &path);
    let what = match &error.kind {
        Kind::UnknownField(field, expected) => {
            let mut text = format!("unknown key `{key}`");
            if let Some(close) = closest(field, expected) {
                text.push_str(&format!(" (did you mean `{close}`?)"));
            }
            let known: Vec<&str> = expected
                .iter()
                .copied()
                .filter(|k| !ALIASES.contains(k))
                .collect();
            if !known.is_empty() {
                text.push_str(&format!("; known keys: {}", known.join(", ")));
            }
            text
        }
        Kind::UnknownVariant(value, expected) => format!(
            "`{key}`: unknown value `{value}`; expected one of: {}",
            expected.join(", ")
        ),
        Kind::MissingField(field) => {
            let mut full = path.clone();
            full.push(field);
            format!("missing key `{}`", dotted(&full))
        }
        kind if key.is_empty() => kind.to_string(),
        kind => format!("`{key}`: {kind}"),
    };
    match place {
        Some(place) => format!("{place}: {what}"),
        None => what,
    }
}

/// `["translation", "backends", "0", "url"]` → `translation.backends[0].url`.
fn dotted(path: &[&str]) -> String {
    let mut out = String::new();
    for part in path {
        if part.parse::<usize>().is_ok() {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// `proxy.toml: line 3`, `environment variable PLAINCALL_X`, or `None` when figment did not
/// say where the value came from.
fn place(error: &figment::Error, file: Option<&Path>, path: &[&str]) -> Option<String> {
    let metadata = error.metadata.as_ref()?;
    if let Some(figment::Source::File(source)) = &metadata.source {
        let line = std::fs::read_to_string(source)
            .ok()
            .and_then(|text| line_of(&text, path));
        let shown = file.unwrap_or(source).display().to_string();
        return Some(match line {
            Some(line) => format!("{shown}: line {line}"),
            None => shown,
        });
    }
    if metadata.name.contains("environment") {
        // The provider maps `PLAINCALL_<SECTION>_<KEY>` to `section.key`; this is the reverse.
        let name = format!("PLAINCALL_{}", path.join("_")).to_ascii_uppercase();
        return Some(format!("environment variable {name}"));
    }
    None
}

/// The 1-based line of the key at `path` in a TOML text, or of its nearest table.
fn line_of(text: &str, path: &[&str]) -> Option<usize> {
    let document = toml_edit::ImDocument::parse(text).ok()?;
    let mut table = document.as_table();
    let mut span = None;
    let mut parts = path.iter().peekable();
    while let Some(part) = parts.next() {
        let (key, item) = table.get_key_value(part)?;
        span = key.span().or(span);
        match item {
            toml_edit::Item::Table(inner) => table = inner,
            toml_edit::Item::ArrayOfTables(array) => {
                let index = parts.peek().and_then(|p| p.parse::<usize>().ok());
                let Some(inner) = index.and_then(|i| array.get(i)) else {
                    break;
                };
                parts.next();
                span = inner.span().or(span);
                table = inner;
            }
            _ => break,
        }
    }
    let offset = span?.start;
    Some(text.get(..offset)?.matches('\n').count() + 1)
}

/// The known name nearest to a misspelt one, when it is near enough to be a typo.
fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(2) && !ALIASES.contains(k))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_found_in_tables_and_arrays_of_tables() {
        let text = "listen = \"x\"\n\n[upstream]\nurll = 1\n\n[[translation.backends]]\nurl = 1\n\n[[translation.backends]]\nmodle = 2\n";
        assert_eq!(line_of(text, &["listen"]), Some(1));
        assert_eq!(line_of(text, &["upstream", "urll"]), Some(4));
        assert_eq!(
            line_of(text, &["translation", "backends", "1", "modle"]),
            Some(10)
        );
        assert_eq!(line_of(text, &["nowhere"]), None);
    }

    #[test]
    fn typos_are_matched_to_near_names_only() {
        assert_eq!(closest("urll", &["url", "api_key"]), Some("url"));
        assert_eq!(
            closest("repair_turn", &["repair_turns", "attempts"]),
            Some("repair_turns")
        );
        assert_eq!(closest("modle", &["url", "model"]), Some("model"));
        assert_eq!(closest("tls", &["url", "api_key", "timeout"]), None);
    }
}
