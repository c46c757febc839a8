//! Optional proxy access keys, checked in constant time.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use subtle::ConstantTimeEq;

use crate::error::ProxyError;
use crate::state::AppState;
use crate::wire::Wire;

pub async fn require_access_key(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let keys = &state.config.server.access_keys;
    if keys.is_empty() {
        return next.run(request).await;
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        // Anthropic clients send their key as `x-api-key`.
        .or_else(|| {
            request
                .headers()
                .get("x-api-key")
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        })
        .unwrap_or("");
    // Every key is compared, so the time taken does not say which one nearly matched.
    let mut matched = subtle::Choice::from(0u8);
    for key in keys {
        matched |= key.expose().as_bytes().ct_eq(presented.as_bytes());
    }
    if bool::from(matched) && !presented.is_empty() {
        next.run(request).await
    } else {
        ProxyError::Unauthorized.into_wire_response(Wire::of_path(request.uri().path()))
    }
}
