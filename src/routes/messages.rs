//! `POST /v1/messages` (Anthropic Messages). A request with client tools is converted to Chat
//! Completions and served by the same pipe as `/v1/chat/completions`, its reply converted
//! back; any other request (no tools, or server tools such as web search) goes to the
//! upstream's own `/v1/messages` byte for byte.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, request::Parts, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value};

use super::{bytes_response, is_event_stream, read_body, relay, ERROR_BODY_LIMIT};
use crate::error::ProxyError;
use crate::openai::RawObject;
use crate::pipe::complete::RESPONSE_LIMIT;
use crate::server::AppState;
use crate::wire::{anthropic, anthropic_stream, Wire};

const X_API_KEY: &str = "x-api-key";

pub async fn messages(State(state): State<Arc<AppState>>, request: Request) -> Response {
    match serve(&state, request).await {
        Ok(response) => response,
        Err(error) => error.into_wire_response(Wire::Anthropic),
    }
}

async fn serve(state: &Arc<AppState>, request: Request) -> Result<Response, ProxyError> {
    let (parts, body) = request.into_parts();
    let server = &state.config.server;
    let bytes = read_body(
        &parts.headers,
        body,
        server.max_body_bytes,
        super::BodyTimeouts::of(server),
        &state.drain,
    )
    .await?;
    let parsed: Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|e| ProxyError::InvalidJson(e.to_string()))?;
    if !anthropic::is_translatable(&parsed) {
        return forward(state, &parts, bytes).await;
    }
    let model = parsed
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let chat = anthropic::to_chat(parsed)?;
    let chat_bytes = Bytes::from(serde_json::to_vec(&chat).map_err(internal)?);
    let chat_parsed: RawObject = serde_json::from_slice(&chat_bytes).map_err(internal)?;
    let response =
        super::chat::serve_parsed(state, chat_parts(parts), chat_bytes, chat_parsed).await?;
    convert_reply(state, response, &model).await
}

fn internal(error: serde_json::Error) -> ProxyError {
    ProxyError::Internal(format!("converting a Messages request: {error}"))
}

/// The client's headers as the chat path reads them: its `x-api-key` as a bearer key (the
/// pipe forwards or replaces `Authorization` by the usual rule), no stale length.
fn chat_parts(mut parts: Parts) -> Parts {
    let headers = &mut parts.headers;
    if let Some(key) = headers.remove(X_API_KEY) {
        if !headers.contains_key(header::AUTHORIZATION) {
            if let Ok(mut value) =
                HeaderValue::from_str(&format!("Bearer {}", key.to_str().unwrap_or_default()))
            {
                value.set_sensitive(true);
                headers.insert(header::AUTHORIZATION, value);
            }
        }
    }
    for name in ["anthropic-version", "anthropic-beta"] {
        headers.remove(name);
    }
    headers.remove(header::CONTENT_LENGTH);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts
}

/// The request as it came, to the upstream's own `/v1/messages`.
async fn forward(state: &AppState, parts: &Parts, bytes: Bytes) -> Result<Response, ProxyError> {
    let url = state.upstream.endpoint("messages", parts.uri.query())?;
    let builder = state
        .upstream
        .request(
            Method::POST,
            url,
            &parts.headers,
            state.forward_client_auth(),
        )
        .body(bytes);
    let response = state
        .upstream
        .send(builder)
        .await
        .inspect_err(|e| state.metrics.upstream_error(e.code()))?;
    Ok(relay(state, response))
}

/// The pipe's Chat Completions reply as a Messages reply: a stream converted event by event,
/// a whole body converted at once, an error given the Anthropic error shape.
async fn convert_reply(
    state: &AppState,
    response: Response,
    model: &str,
) -> Result<Response, ProxyError> {
    let (parts, body) = response.into_parts();
    if parts.status.is_success() && is_event_stream(&parts.headers) {
        let stream = anthropic_stream::convert(body, model);
        return Ok(super::chat::sse_response(Body::from_stream(stream)));
    }
    if !parts.status.is_success() {
        let body = axum::body::to_bytes(body, ERROR_BODY_LIMIT)
            .await
            .unwrap_or_default();
        let body = anthropic::upstream_error_body(parts.status, &body);
        let mut headers = parts.headers;
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        return Ok(bytes_response(
            parts.status,
            &headers,
            Bytes::from(body),
            &state.secrets,
        ));
    }
    let body = axum::body::to_bytes(body, RESPONSE_LIMIT as usize)
        .await
        .map_err(|e| ProxyError::UpstreamProtocol(format!("reading the completion: {e}")))?;
    let completion: Value = serde_json::from_slice(&body)
        .map_err(|e| ProxyError::UpstreamProtocol(format!("the completion is not JSON: {e}")))?;
    let message = anthropic::from_chat(&completion, model);
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        message.to_string(),
    )
        .into_response())
}
