//! Optional proxy access keys, checked in constant time.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use subtle::ConstantTimeEq;

use crate::error::ProxyError;
use crate::owner::{presented_key, Owner};
use crate::state::AppState;
use crate::wire::Wire;
use crate::wire::WireError;

pub(crate) async fn require_access_key(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let keys = &state.config.server.access_keys;
    if keys.is_empty() {
        return next.run(request).await;
    }
    let presented = presented_key(request.headers());
    // Every key is compared, so the time taken does not say which one nearly matched.
    let mut matched = subtle::Choice::from(0u8);
    for key in keys {
        matched |= key.expose().as_bytes().ct_eq(presented.as_bytes());
    }
    if bool::from(matched) && !presented.is_empty() {
        next.run(request).await
    } else {
        // The key's hash tells an operator which client it was, never the key itself.
        tracing::info!(
            path = request.uri().path(),
            key_sha256 = %Owner::of(request.headers()).short(),
            key_sent = !presented.is_empty(),
            "request refused: not one of server.access_keys"
        );
        ProxyError::Unauthorized.into_wire_response(Wire::of_path(request.uri().path()))
    }
}
