//! `POST /v1/responses` (OpenAI Responses). A request is converted to Chat Completions and
//! served by the same pipe as `/v1/chat/completions`, its reply converted back (built-in
//! tools a chat upstream cannot run dropped or refused per `upstream.hosted_tools`). Only
//! where `upstream.formats` says the upstream serves Responses itself (the default is chat
//! alone) does a request with nothing to translate go to its `/v1/responses` byte for byte,
//! and back to conversion while that route answers 404 ([`converted::goes_as_is`]).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;

use super::converted;
use super::IntoWireResponse;
use crate::budget::Charge;
use crate::config::WireFormat;
use crate::error::ProxyError;
use crate::owner::Owner;
use crate::state::AppState;
use crate::wire::{responses, Wire};

pub(crate) async fn responses(State(state): State<Arc<AppState>>, request: Request) -> Response {
    match serve(&state, request).await {
        Ok(response) => response,
        Err(error) => error.into_wire_response(Wire::Responses),
    }
}

/// `GET /v1/responses`: a WebSocket upgrade (Responses' WebSocket mode) is answered 426, so
/// that the client goes on over HTTP at once; any other GET has no route.
pub(crate) async fn websocket(request: Request) -> Response {
    let upgrade = request
        .headers()
        .get(axum::http::header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let error = if upgrade {
        ProxyError::WebSocketRefused("/v1/responses")
    } else {
        super::not_found(request.method().clone(), request.uri().clone()).await
    };
    error.into_wire_response(Wire::Responses)
}

async fn serve(state: &Arc<AppState>, request: Request) -> Result<Response, ProxyError> {
    let (parts, body) = request.into_parts();
    let (bytes, mut parsed) = converted::read_json(state, &parts, body).await?;
    responses::check(&parsed)?;
    responses::lift_additional_tools(&mut parsed);
    let mut client_tools = responses::flatten_namespaces(&mut parsed);
    responses::freeform_as_functions(&mut parsed, &mut client_tools);
    let translatable = responses::is_translatable(&parsed);
    if converted::goes_as_is(state, WireFormat::Responses, "responses", translatable) {
        let forwarded = converted::forward_unless_unserved(
            state,
            &parts,
            (bytes.clone(), converted::model_of(&parsed)),
            WireFormat::Responses,
            "responses",
            Wire::Responses,
        )
        .await?;
        if let Some(response) = forwarded {
            return Ok(response);
        }
    }
    let dropped = responses::drop_hosted_tools(&mut parsed);
    converted::refuse_hosted(state, &dropped)?;
    let charge = parts
        .extensions
        .get::<Charge>()
        .cloned()
        .unwrap_or_default();
    let cover = |bytes: u64| state.budget.try_cover(&charge, bytes);
    let caller = responses::Caller {
        owner: Owner::of(&parts.headers),
        limit: state.config.server.max_body_bytes,
        body_len: bytes.len() as u64,
        cover: &cover,
    };
    drop(bytes);
    if let Some(id) = parsed.get("previous_response_id").and_then(|v| v.as_str()) {
        state.responses.fetch(id, &caller.owner).await?;
    }
    let kept = converted::kept_params(state, &parsed);
    let mut converted = responses::to_chat(parsed, &state.responses, &caller)?;
    converted.reply.tools = client_tools;
    let response = converted::serve(state, parts, converted.chat, kept, converted.reply).await?;
    Ok(converted::report_dropped(response, &dropped))
}
