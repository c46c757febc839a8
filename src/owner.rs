//! Who a request is: the key it presented, and the owner of what it leaves behind.

use axum::http::{header, HeaderMap};

/// The key a client presented: its bearer token, or (Anthropic clients) its `x-api-key`;
/// empty when it sent none.
pub(crate) fn presented_key(headers: &HeaderMap) -> &str {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .or_else(|| {
            headers
                .get("x-api-key")
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        })
        .unwrap_or("")
}

/// Who owns what a request leaves behind (a stored conversation): the SHA-256 of the key it
/// presented, so that the key itself is never kept, and another key cannot read it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Owner([u8; 32]);

impl Owner {
    pub fn of(headers: &HeaderMap) -> Owner {
        let digest = ring::digest::digest(&ring::digest::SHA256, presented_key(headers).as_bytes());
        let mut hash = [0u8; 32];
        hash.copy_from_slice(digest.as_ref());
        Owner(hash)
    }

    /// The whole hash in hex: what a stored conversation's shared key carries.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The first bytes of the hash in hex: enough to tell keys apart in a log line.
    pub fn short(&self) -> String {
        self.0[..6].iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Owner({})", self.short())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn owners_differ_by_key_and_agree_across_header_forms() {
        let mut bearer = HeaderMap::new();
        bearer.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer sk-one"),
        );
        let mut anthropic = HeaderMap::new();
        anthropic.insert("x-api-key", HeaderValue::from_static("sk-one"));
        let mut other = HeaderMap::new();
        other.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer sk-two"),
        );
        assert_eq!(Owner::of(&bearer), Owner::of(&anthropic));
        assert_ne!(Owner::of(&bearer), Owner::of(&other));
        assert_ne!(Owner::of(&bearer), Owner::of(&HeaderMap::new()));
        assert!(!format!("{:?}", Owner::of(&bearer)).contains("sk-one"));
    }
}
