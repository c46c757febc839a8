//! `POST /v1/messages` (Anthropic Messages). A request is converted to Chat Completions and
//! served by the same pipe as `/v1/chat/completions`, its reply converted back (hosted tools
//! a chat upstream cannot run dropped or refused per `upstream.hosted_tools`). Only where
//! `upstream.formats` says the upstream serves Messages itself (the default is chat alone)
//! does a request with nothing to translate go to its `/v1/messages` byte for byte, and back
//! to conversion while that route answers 404 ([`converted::goes_as_is`]).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::Value;

use super::converted;
use super::IntoWireResponse;
use crate::config::WireFormat;
use crate::error::ProxyError;
use crate::state::AppState;
use crate::wire::{anthropic, Wire};

pub(crate) async fn messages(State(state): State<Arc<AppState>>, request: Request) -> Response {
    match serve(&state, request).await {
        Ok(response) => response,
        Err(error) => error.into_wire_response(Wire::Anthropic),
    }
}

async fn serve(state: &Arc<AppState>, request: Request) -> Result<Response, ProxyError> {
    let (parts, body) = request.into_parts();
    let (bytes, mut parsed) = converted::read_json(state, &parts, body).await?;
    anthropic::check(&parsed)?;
    let translatable = anthropic::is_translatable(&parsed);
    if converted::goes_as_is(state, WireFormat::Messages, "messages", translatable) {
        let forwarded = converted::forward_unless_unserved(
            state,
            &parts,
            (bytes.clone(), converted::model_of(&parsed)),
            WireFormat::Messages,
            "messages",
            Wire::Anthropic,
        )
        .await?;
        if let Some(response) = forwarded {
            return Ok(response);
        }
    }
    drop(bytes);
    let dropped = anthropic::drop_hosted_tools(&mut parsed);
    converted::refuse_hosted(state, &dropped)?;
    let model = parsed
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let kept = converted::kept_params(state, &parsed);
    let chat = anthropic::to_chat(parsed)?;
    let response = converted::serve(state, parts, chat, kept, anthropic::Reply { model }).await?;
    Ok(converted::report_dropped(response, &dropped))
}
