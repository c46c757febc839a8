//! Secrets kept out of what plaincall passes on or shows, because a backend may echo the key
//! it was sent: a translator's error body is summarised (status, error type and code, a short
//! message) with every known secret replaced; the main upstream's error bodies and relayed
//! event streams go on whole with the configured keys replaced; span content is scrubbed too.

use bytes::Bytes;
use serde_json::Value;

use crate::config::{Config, Secret};

/// The most of a foreign message kept in a summary.
const MESSAGE_LIMIT: usize = 160;
const REDACTED: &str = "[redacted]";
/// Shorter values are not treated as secrets: replacing them would garble ordinary text.
const MIN_SECRET_LEN: usize = 4;

/// The secrets plaincall knows of: the configured keys ([`configured`]), and for one exchange
/// the client's own token too ([`Secrets::with`]).
#[derive(Clone, Debug, Default)]
pub struct Secrets(Vec<String>);

impl Secrets {
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Secrets {
        let mut list: Vec<String> = values
            .into_iter()
            .map(str::trim)
            .filter(|v| v.len() >= MIN_SECRET_LEN)
            .map(str::to_owned)
            .collect();
        // Longest first, so a key that contains another is replaced whole.
        list.sort_by_key(|v| std::cmp::Reverse(v.len()));
        list.dedup();
        Secrets(list)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A body with every secret replaced: as text when it is UTF-8 (bearer tokens too),
    /// else byte for byte.
    pub fn scrub_body(&self, body: Bytes) -> Bytes {
        if self.is_empty() {
            return body;
        }
        match std::str::from_utf8(&body) {
            Ok(text) => {
                let scrubbed = self.scrub(text);
                if scrubbed == text {
                    body
                } else {
                    Bytes::from(scrubbed)
                }
            }
            Err(_) => {
                let mut out = body.to_vec();
                for secret in &self.0 {
                    out = replace_bytes(&out, secret.as_bytes(), b"[redacted]");
                }
                Bytes::from(out)
            }
        }
    }

    /// `body` with the configured secrets replaced, and nothing else: for answers that went
    /// well, whose text (a model writing `Bearer $TOKEN` into a script) must stay as it is.
    pub fn scrub_known(&self, body: Bytes) -> Bytes {
        if !self
            .0
            .iter()
            .any(|secret| contains(&body, secret.as_bytes()))
        {
            return body;
        }
        let mut out = body.to_vec();
        for secret in &self.0 {
            out = replace_bytes(&out, secret.as_bytes(), REDACTED.as_bytes());
        }
        Bytes::from(out)
    }

    pub fn with(&self, extra: Option<&str>) -> Secrets {
        Secrets::new(self.0.iter().map(String::as_str).chain(extra))
    }

    /// `text` with every secret replaced by `[redacted]`, and any bearer token too.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.0 {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        scrub_bearer(&out)
    }
}

/// The configured keys of the upstream, the translator backends and the proxy itself.
pub(crate) fn configured(config: &Config) -> Secrets {
    let upstream = config.upstream.api_key.iter();
    let backends = config
        .translation
        .backends
        .iter()
        .filter_map(|b| b.api_key.as_ref());
    let access = config.server.access_keys.iter();
    Secrets::new(upstream.chain(backends).chain(access).map(Secret::expose))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if !needle.is_empty() && haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

/// `Bearer <token>` (any case) with the token replaced: a key plaincall does not know of (a
/// client's, forwarded) is still a key.
fn scrub_bearer(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    let mut search = 0;
    while let Some(found) = lower[search..].find("bearer ") {
        let start = search + found + "bearer ".len();
        if text[start..].starts_with(REDACTED) {
            search = start + REDACTED.len();
            continue;
        }
        let end = text[start..]
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | ',' | '}' | ')' | ']' | ';' | '>')
            })
            .map_or(text.len(), |n| start + n);
        out.push_str(&text[rest..start]);
        if end > start {
            out.push_str("[redacted]");
        }
        rest = end;
        search = end.max(start);
    }
    out.push_str(&text[rest..]);
    out
}

/// A one-line summary of a foreign HTTP error: `HTTP 401 (authentication_error,
/// invalid_api_key): Incorrect API key provided`, scrubbed and shortened. The body itself is
/// never shown whole.
pub(crate) fn summarize_http_error(status: u16, body: &[u8], secrets: &Secrets) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let error = parsed.as_ref().map(|v| match v.get("error") {
        Some(inner) if inner.is_object() => inner,
        _ => v,
    });
    let field = |name: &str| {
        error
            .and_then(|e| e.get(name))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|s| !s.trim().is_empty())
    };
    let mut message = field("message")
        .or_else(|| {
            parsed
                .as_ref()
                .and_then(|v| v.get("error")?.as_str().map(str::to_owned))
        })
        .unwrap_or_else(|| {
            // Not the OpenAI shape: the start of the text, if it is text at all.
            let text = String::from_utf8_lossy(&body[..body.len().min(4 * MESSAGE_LIMIT)]);
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        });
    message = secrets.scrub(&message);
    if message.chars().count() > MESSAGE_LIMIT {
        message = message.chars().take(MESSAGE_LIMIT).collect::<String>() + "…";
    }
    let labels: Vec<String> = [field("type"), field("code")]
        .into_iter()
        .flatten()
        .map(|l| secrets.scrub(&l).chars().take(40).collect())
        .collect();
    let mut out = format!("HTTP {status}");
    if !labels.is_empty() {
        out.push_str(&format!(" ({})", labels.join(", ")));
    }
    if !message.is_empty() {
        out.push_str(": ");
        out.push_str(&message);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_and_bearer_secrets_are_replaced() {
        let secrets = Secrets::new(["sk-translator-123", "abc"]);
        let text = "bad key sk-translator-123; header was Bearer sk-client-9 and BEARER x";
        assert_eq!(
            secrets.scrub(text),
            "bad key [redacted]; header was Bearer [redacted] and BEARER [redacted]"
        );
        // Too short to be a key: left alone.
        assert_eq!(secrets.scrub("abc"), "abc");
    }

    #[test]
    fn bodies_are_scrubbed_as_text_or_as_bytes() {
        let secrets = Secrets::new(["sk-abc-123"]);
        let text = Bytes::from_static(br#"{"error":"bad key sk-abc-123"}"#);
        assert_eq!(
            secrets.scrub_body(text),
            Bytes::from_static(br#"{"error":"bad key [redacted]"}"#)
        );
        let binary = Bytes::from_static(b"\xff\xfesk-abc-123\x00");
        assert_eq!(
            secrets.scrub_body(binary),
            Bytes::from_static(b"\xff\xfe[redacted]\x00")
        );
        let untouched = Bytes::from_static(b"nothing here");
        assert_eq!(secrets.scrub_body(untouched.clone()), untouched);
    }

    #[test]
    fn openai_errors_are_summarised_without_the_body() {
        let secrets = Secrets::new(["sk-live-secret"]);
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-live-secret. You can find your key at https://example.invalid","type":"invalid_request_error","param":null,"code":"invalid_api_key"},"echo":{"authorization":"Bearer sk-live-secret"}}"#;
        let summary = summarize_http_error(401, body, &secrets);
        assert!(summary.starts_with("HTTP 401 (invalid_request_error, invalid_api_key): Incorrect API key provided: [redacted]."), "{summary}");
        assert!(!summary.contains("sk-live-secret"));
        assert!(!summary.contains("echo"));
    }

    #[test]
    fn other_bodies_are_cut_short_and_scrubbed() {
        let secrets = Secrets::new(["topsecretkey"]);
        let body = format!("<html>{}topsecretkey</html>", "x ".repeat(500));
        let summary = summarize_http_error(502, body.as_bytes(), &secrets);
        assert!(summary.chars().count() < 200, "{summary}");
        assert!(!summary.contains("topsecretkey"));
        assert_eq!(
            summarize_http_error(500, br#"{"error":"model crashed"}"#, &secrets),
            "HTTP 500: model crashed"
        );
        assert_eq!(summarize_http_error(503, b"", &secrets), "HTTP 503");
    }
}
