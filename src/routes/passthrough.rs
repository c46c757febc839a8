//! Every `/v1/*` route plaincall does not interpret: forwarded as it came, both bodies
//! streamed (the answer through `relay`, which scrubs an error or an event stream of the
//! configured keys).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::response::Response;

use super::IntoWireResponse;
use super::{content_length, limited_stream, BodyFault};
use crate::error::ProxyError;
use crate::routes::relay::relay;
use crate::state::AppState;
use crate::wire::Wire;

pub(crate) async fn passthrough(State(state): State<Arc<AppState>>, request: Request) -> Response {
    // `/v1/messages/count_tokens` and the like answer in their own format's shape.
    let wire = Wire::of_path(request.uri().path());
    match forward(&state, request, wire).await {
        Ok(response) => response,
        Err(error) => error.into_wire_response(wire),
    }
}

async fn forward(
    state: &Arc<AppState>,
    request: Request,
    wire: Wire,
) -> Result<Response, ProxyError> {
    let (parts, body) = request.into_parts();
    let limit = state.config.server.max_body_bytes;
    if content_length(&parts.headers).is_some_and(|len| len > limit) {
        return Err(ProxyError::BodyTooLarge { limit });
    }
    let rest = parts.uri.path().strip_prefix("/v1/").unwrap_or("");
    let url = state.upstream.endpoint(rest, parts.uri.query())?;
    let has_body = parts.headers.contains_key(header::CONTENT_LENGTH)
        || parts.headers.contains_key(header::TRANSFER_ENCODING)
        || !matches!(
            parts.method,
            Method::GET | Method::HEAD | Method::OPTIONS | Method::DELETE
        );
    let mut builder = state.upstream.request(
        parts.method,
        url,
        &parts.headers,
        state.forward_client_auth(),
    );
    let mut fault = None;
    if has_body {
        let timeouts = super::BodyTimeouts::of(&state.config.server);
        let (stream, body_fault) = limited_stream(body, limit, timeouts, state.drain.clone());
        *builder.body_mut() = crate::upstream::streamed(stream);
        fault = Some(body_fault);
    }
    match state.upstream.send(builder).await {
        Ok(response) => Ok(relay(state, response, wire.error_event())),
        Err(error) => {
            // A send that failed because of the client's own body is the client's error.
            if let Some(client_error) = fault.as_ref().and_then(BodyFault::take) {
                return Err(client_error);
            }
            state.metrics.upstream_error(error.code());
            Err(error)
        }
    }
}
