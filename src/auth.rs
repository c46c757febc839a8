//! Optional proxy access keys, checked in constant time.

use axum::http::Request;
use subtle::ConstantTimeEq;

use crate::config::Secret;
use crate::owner::{presented_key, Owner};

/// Whether `request` may be served: no keys are configured, or it presents one of them.
/// A refusal is logged with the key's hash, which tells an operator which client it was,
/// never the key itself.
pub(crate) fn admits<B>(keys: &[Secret], request: &Request<B>) -> bool {
    if keys.is_empty() {
        return true;
    }
    let presented = presented_key(request.headers());
    // Every key is compared, so the time taken does not say which one nearly matched.
    let mut matched = subtle::Choice::from(0u8);
    for key in keys {
        matched |= key.expose().as_bytes().ct_eq(presented.as_bytes());
    }
    if bool::from(matched) && !presented.is_empty() {
        return true;
    }
    tracing::info!(
        path = request.uri().path(),
        key_sha256 = %Owner::of(request.headers()).short(),
        key_sent = !presented.is_empty(),
        "request refused: not one of server.access_keys"
    );
    false
}
