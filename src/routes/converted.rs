//! What the routes of converted wire formats (`/v1/messages`, `/v1/responses`) share: the
//! request read as JSON, the chat request served by the one pipe, the reply converted by the
//! format's [`Adapter`], and untranslated requests forwarded to the upstream's own route.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, request::Parts, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value};

use crate::config::WireFormat;
use crate::error::ProxyError;
use crate::openai::RawObject;
use crate::pipe::drive::RESPONSE_LIMIT;
use crate::routes::chat::Answer;
use crate::routes::relay::{bytes_response, relay, sse_response, ERROR_BODY_LIMIT};
use crate::state::AppState;
use crate::wire::{self, Adapter, Wire};

const X_API_KEY: &str = "x-api-key";

/// The model a request names (empty when it names none).
pub(crate) fn model_of(request: &Map<String, Value>) -> &str {
    request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The request body, within the server's limits, and its top-level JSON object; a body that
/// is not one is refused here.
pub(crate) async fn read_json(
    state: &AppState,
    parts: &Parts,
    body: Body,
) -> Result<(Bytes, Map<String, Value>), ProxyError> {
    let bytes = super::read_request_body(state, parts, body).await?;
    let parsed = wire::request_object(&bytes)?;
    Ok((bytes, parsed))
}

/// The top-level fields of a client's request that `upstream.keep_params` names: the
/// conversion drops what Chat Completions does not define, and these go back in.
pub(crate) fn kept_params(state: &AppState, request: &Map<String, Value>) -> Map<String, Value> {
    state
        .config
        .upstream
        .keep_params
        .iter()
        .filter_map(|key| Some((key.clone(), request.get(key)?.clone())))
        .collect()
}

/// Serves `chat` (the converted request, with the client's `kept` fields) through the pipe
/// and converts the reply.
pub(crate) async fn serve<A: Adapter>(
    state: &Arc<AppState>,
    parts: Parts,
    mut chat: Map<String, Value>,
    kept: Map<String, Value>,
    mut adapter: A,
) -> Result<Response, ProxyError> {
    for (key, value) in kept {
        tracing::debug!(field = %key, "kept for the upstream (upstream.keep_params)");
        chat.insert(key, value);
    }
    let internal = |e: serde_json::Error| ProxyError::Internal(format!("converted request: {e}"));
    // The chat form is about the size of the client's body (read within the body limit):
    // written into room for that at once, not grown by doubling, which holds both the old
    // and the new buffer at each step.
    let room = crate::upstream::content_length(&parts.headers)
        .and_then(|length| usize::try_from(length).ok())
        .map_or(0, |length| length + length / 16);
    let mut bytes = Vec::with_capacity(room);
    serde_json::to_writer(&mut bytes, &chat).map_err(internal)?;
    let bytes = Bytes::from(bytes);
    // The tree is not needed past here: it must not stay beside its copies for the whole call.
    drop(chat);
    crate::memory::after_large_tree(bytes.len());
    adapter.sent(&bytes);
    let parsed: RawObject = serde_json::from_slice(&bytes).map_err(internal)?;
    let response = match super::chat::serve_parsed(state, chat_parts(parts), bytes, parsed).await? {
        Answer::Events(events) => {
            let events = Box::pin(events.into_stream());
            return Ok(sse_response(adapter.stream(events)));
        }
        Answer::Whole { completion, .. } => {
            let completion = serde_json::to_value(&completion).map_err(internal)?;
            return Ok(whole_reply(adapter, &completion).await);
        }
        Answer::Response(response) => response,
    };
    let (parts, body) = response.into_parts();
    if !parts.status.is_success() {
        let body = axum::body::to_bytes(body, ERROR_BODY_LIMIT)
            .await
            .unwrap_or_default();
        let message = wire::error_message(&body);
        let body = wire::error_body(A::WIRE, parts.status, &message, "upstream_error");
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
    if crate::sse::is_event_stream(&parts.headers) {
        // Forwarded as it came (nothing to translate): the upstream's own chat events.
        let events = Box::pin(wire::chat_events(body.into_data_stream()));
        return Ok(sse_response(adapter.stream(events)));
    }
    let body = axum::body::to_bytes(body, RESPONSE_LIMIT as usize)
        .await
        .map_err(|e| ProxyError::UpstreamProtocol(format!("reading the completion: {e}")))?;
    let completion: Value = serde_json::from_slice(&body)
        .map_err(|e| ProxyError::UpstreamProtocol(format!("the completion is not JSON: {e}")))?;
    Ok(whole_reply(adapter, &completion).await)
}

/// The client's reply for a whole chat completion, once what it writes to shared state
/// landed.
async fn whole_reply<A: Adapter>(adapter: A, completion: &Value) -> Response {
    let written = adapter.written();
    let reply = adapter.reply(completion);
    written.wait().await;
    (
        [(header::CONTENT_TYPE, "application/json")],
        reply.to_string(),
    )
        .into_response()
}

/// The client's request head as the chat path reads it: the chat route without the client's
/// query, an `x-api-key` as a bearer key (the pipe then forwards or replaces `Authorization`
/// by the usual rule), no stale length.
fn chat_parts(mut parts: Parts) -> Parts {
    // The client's query belongs to its format's route (`?beta=true`), not to the chat one.
    parts.uri = axum::http::Uri::from_static("/v1/chat/completions");
    let headers = &mut parts.headers;
    if let Some(key) = headers.remove(X_API_KEY) {
        if !headers.contains_key(header::AUTHORIZATION) {
            let bearer = format!("Bearer {}", key.to_str().unwrap_or_default());
            if let Ok(mut value) = HeaderValue::from_str(&bearer) {
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

/// Whether the request goes to the upstream's own `route` as it came: only when the upstream
/// serves that format (`upstream.formats`, and no recent 404 there: [`crate::state::Unserved`])
/// and the request has nothing plaincall translates (no tools, or among them one only that
/// format's server runs). Said at INFO when it does.
pub(crate) fn goes_as_is(
    state: &AppState,
    format: WireFormat,
    route: &str,
    translatable: bool,
) -> bool {
    if translatable || !state.config.upstream.serves(format) || state.unserved.holds(format) {
        return false;
    }
    tracing::info!(
        route,
        "forwarded as it came to the upstream's own route: nothing to translate, and upstream.formats says the upstream serves it"
    );
    true
}

/// `upstream.hosted_tools`: the hosted tools a chat-only upstream cannot run (`kinds`, taken
/// out of the request) are refused with a 400 naming them where the policy for their kind
/// says so; else the request goes on without them.
pub(crate) fn refuse_hosted(state: &AppState, kinds: &[String]) -> Result<(), ProxyError> {
    let refused: Vec<&str> = kinds
        .iter()
        .map(String::as_str)
        .filter(|kind| {
            state.config.upstream.hosted_tool_policy(kind) == crate::config::HostedTools::Refuse
        })
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    Err(wire::invalid(
        format!(
            "tools of kind {} run only on their provider's own servers, and this upstream serves Chat Completions (upstream.hosted_tools refuses them): leave them out, or send the request to a server that runs them",
            refused.join(", ")
        ),
        "tools",
    ))
}

/// Says, in the log and in the `x-plaincall-dropped-tools` header, which tools a chat-only
/// upstream could not run and were left out.
pub(crate) fn report_dropped(mut response: Response, dropped: &[String]) -> Response {
    if dropped.is_empty() {
        return response;
    }
    let kinds = dropped.join(",");
    tracing::warn!(
        tools = %kinds,
        "hosted tools left out: the upstream serves Chat Completions only (upstream.formats)"
    );
    if let Ok(value) = HeaderValue::from_str(&kinds) {
        response.headers_mut().insert(DROPPED_TOOLS, value);
    }
    response
}

const DROPPED_TOOLS: &str = "x-plaincall-dropped-tools";

/// The request as it came, to the upstream's own route; `None` when the upstream answers 404
/// there although `upstream.formats` names the format: it is then converted for a while
/// (see [`crate::state::Unserved`]), this request first.
pub(crate) async fn forward_unless_unserved(
    state: &AppState,
    parts: &Parts,
    (bytes, model): (Bytes, &str),
    format: WireFormat,
    route: &str,
    wire: Wire,
) -> Result<Option<Response>, ProxyError> {
    let response = super::send_as_is(state, parts, route, model, bytes).await?;
    if response.status() == axum::http::StatusCode::NOT_FOUND {
        state.unserved.learn(format);
        tracing::warn!(
            route,
            "the upstream answered 404 on its own route although upstream.formats names it: requests of this format are converted to Chat Completions for 10 minutes, then its route is tried again"
        );
        return Ok(None);
    }
    Ok(Some(relay(state, response, wire.error_event())))
}
