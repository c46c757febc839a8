//! `POST /v1/responses` (OpenAI Responses). A request whose tools are all function tools is
//! converted to Chat Completions and served by the same pipe as `/v1/chat/completions`, its
//! reply converted back; any other request (no tools, or built-in tools such as web search)
//! goes to the upstream's own `/v1/responses` byte for byte.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;

use super::converted;
use crate::error::ProxyError;
use crate::state::AppState;
use crate::wire::{responses, Wire};

pub async fn responses(State(state): State<Arc<AppState>>, request: Request) -> Response {
    match serve(&state, request).await {
        Ok(response) => response,
        Err(error) => error.into_wire_response(Wire::Responses),
    }
}

async fn serve(state: &Arc<AppState>, request: Request) -> Result<Response, ProxyError> {
    let (parts, body) = request.into_parts();
    let (bytes, parsed) = converted::read_json(state, &parts, body).await?;
    let Some(parsed) = parsed.filter(responses::is_translatable) else {
        return converted::forward(state, &parts, bytes, "responses").await;
    };
    let converted = responses::to_chat(parsed, &state.responses)?;
    converted::serve(state, parts, converted.chat, converted.reply).await
}
