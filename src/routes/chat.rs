//! `POST /v1/chat/completions`: parsed far enough to decide whether plaincall changes anything;
//! forwarded as it came when it does not (the body written again only for a `[models]` alias
//! or `upstream.drop_params`).

use std::sync::Arc;

use serde_json::value::RawValue;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::response::Response;

use crate::config::CallingMode;
use crate::error::ProxyError;
use crate::openai::{self, ChatRequest, RawObject};
use crate::pipe::drive::{self, serde_error};
use crate::pipe::engine::Served;
use crate::pipe::event::{ChatChunks, Events};
use crate::pipe::{Plan, Rewrite};
use crate::routes::relay::{bytes_response, relay, sse_response};
use crate::state::AppState;

/// `x-plaincall-translate: off` turns translation off for one request.
const TRANSLATE_HEADER: &str = "x-plaincall-translate";

fn switched_off(value: &HeaderValue) -> bool {
    value.to_str().is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "false" | "0" | "no"
        )
    })
}

pub(crate) async fn chat_completions(
    State(state): State<Arc<AppState>>,
    request: Request,
) -> Result<Response, ProxyError> {
    let (parts, body) = request.into_parts();
    let bytes = super::read_request_body(&state, &parts, body).await?;
    let parsed: RawObject =
        serde_json::from_slice(&bytes).map_err(|e| ProxyError::InvalidJson(e.to_string()))?;
    Ok(match serve_parsed(&state, parts, bytes, parsed).await? {
        Answer::Response(response) => response,
        Answer::Events(events) => chat_stream(events),
        Answer::Whole {
            status,
            headers,
            completion,
        } => {
            let body = serde_json::to_vec(&completion).map_err(serde_error)?;
            bytes_response(status, &headers, body.into(), &state.secrets)
        }
    })
}

/// What serving a chat request came to: a response (forwarded, whole, or an error), or the
/// events of a translated stream for the client's format to render.
pub(crate) enum Answer {
    Response(Response),
    Events(Events),
    /// A translated whole answer, with the upstream's status and headers.
    Whole {
        status: axum::http::StatusCode,
        headers: axum::http::HeaderMap,
        completion: RawObject,
    },
}

/// A translated stream in Chat Completions chunks.
fn chat_stream(events: Events) -> Response {
    use futures_util::StreamExt;
    let mut chunks = ChatChunks::default();
    let body = events.into_stream().filter_map(move |event| {
        std::future::ready(chunks.render(event).map(Ok::<_, std::convert::Infallible>))
    });
    sse_response(body)
}

/// Serves a Chat Completions request already read and parsed: the seam through which the
/// other wire formats (`/v1/messages` and `/v1/responses`, converted to this one) reach the
/// same pipe.
pub(crate) async fn serve_parsed(
    state: &Arc<AppState>,
    mut parts: axum::http::request::Parts,
    bytes: bytes::Bytes,
    mut parsed: RawObject,
) -> Result<Answer, ProxyError> {
    // Fields a strict upstream refuses go before anything reads them: one the operator drops
    // is never the client's error.
    let dropped = drop_params(state, &mut parsed);
    let mut parsed = read_request(parsed)?;
    let bytes = for_upstream(state, &mut parsed, bytes, dropped)?;
    let model = parsed.model.clone();
    let mode = state.modes.mode_for_shared(&model).await;
    let has_tools = parsed.tools_checked();
    // With Redis, the descriptions of earlier calls are fetched before the plan rewrites the
    // history.
    if has_tools && state.shared.is_enabled() {
        if let Some(raw) = parsed.body.get("messages") {
            if let Ok(messages) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
                state.pipe.memory.prefetch(&messages).await;
            }
        }
    }
    // plaincall's own header: read here, never forwarded.
    let switched_off = parts
        .headers
        .remove(TRANSLATE_HEADER)
        .is_some_and(|v| switched_off(&v));
    let mut prompt_mode = mode == CallingMode::Prompt;
    let mut parsed = Some(parsed);
    loop {
        let watch = mode == CallingMode::Auto && !prompt_mode && has_tools;
        // The plan takes the parsed request; served again in prompt mode (rare), the request
        // is parsed again from its bytes rather than kept twice for the whole exchange.
        let request = match parsed.take() {
            Some(request) => request,
            None => read_request(serde_json::from_slice(&bytes).map_err(serde_error)?)?,
        };
        let plan = match state.pipe.plan(request, switched_off, prompt_mode, watch)? {
            Plan::Rewrite(rewrite) => Plan::Rewrite(Box::new(as_sent(*rewrite, &parts, &bytes))),
            forward => forward,
        };
        let served = match plan {
            Plan::Forward => forward(state, &parts, &model, bytes.clone(), watch).await?,
            // Boxed: the pipe's future is large, and a request forwarded as it came would
            // otherwise carry (and move, layer by layer) its size too.
            Plan::Rewrite(rewrite) => {
                Box::pin(drive::serve(
                    state.engine.clone(),
                    *rewrite,
                    parts.headers.clone(),
                ))
                .await?
            }
        };
        match served {
            Served::ToolsRejected if !prompt_mode => {
                if state.modes.learn(&model) {
                    tracing::warn!(%model, "the upstream rejected native tools for this model; using prompt-based tools for it from now on");
                    state.metrics.prompt_mode_switch(&model);
                }
                prompt_mode = true;
            }
            served => return answer(state, served),
        }
    }
}

/// The request's fields plaincall acts on, read once: a malformed one is the client's error,
/// named in its own wire format.
fn read_request(parsed: RawObject) -> Result<ChatRequest, ProxyError> {
    ChatRequest::read(parsed).map_err(|m| ProxyError::InvalidRequest {
        message: format!("`{}` is malformed: {}", m.param, m.error),
        param: Some(m.param.to_owned()),
    })
}

/// `upstream.drop_params`: the fields a strict upstream refuses, taken out; whether any was.
fn drop_params(state: &AppState, parsed: &mut RawObject) -> bool {
    let mut dropped = false;
    for field in &state.config.upstream.drop_params {
        if parsed.shift_remove(field).is_some() {
            tracing::debug!(%field, "dropped (upstream.drop_params)");
            dropped = true;
        }
    }
    dropped
}

/// The body as the upstream takes it. `[models]`: a client that insists on its own model names
/// (Claude Code) reaches the upstream's model. The body is written again only when that or
/// `drop_params` (`dropped`) changed it.
fn for_upstream(
    state: &AppState,
    parsed: &mut ChatRequest,
    bytes: bytes::Bytes,
    dropped: bool,
) -> Result<bytes::Bytes, ProxyError> {
    let mut changed = dropped;
    if let Some(target) = state.config.aliased(&parsed.model) {
        tracing::debug!(from = %parsed.model, to = %target, "model alias");
        parsed.set_model(target.to_owned()).map_err(serde_error)?;
        changed = true;
    }
    if !changed {
        return Ok(bytes);
    }
    let bytes = openai::to_bytes(&parsed.body).map_err(serde_error)?;
    Ok(bytes)
}

/// What the pipe served, as the route's answer; tools rejected once prompt mode is on are a
/// bug (prompt mode sends no native tools).
fn answer(state: &Arc<AppState>, served: Served) -> Result<Answer, ProxyError> {
    Ok(match served {
        Served::AsRead {
            status,
            headers,
            body,
        } => Answer::Response(bytes_response(status, &headers, body, &state.secrets)),
        Served::Relay(response) => Answer::Response(relay(state, response, ProxyError::chat_event)),
        Served::Events(events) => Answer::Events(events),
        Served::Whole {
            status,
            headers,
            completion,
        } => Answer::Whole {
            status,
            headers,
            completion,
        },
        Served::ToolsRejected => {
            return Err(ProxyError::Internal("tools rejected in prompt mode".into()))
        }
    })
}

/// What of the client's request the pipe sends on: its query, and its very bytes when the
/// main model sees the body unchanged (only the calls are checked).
fn as_sent(
    mut rewrite: Rewrite,
    parts: &axum::http::request::Parts,
    bytes: &bytes::Bytes,
) -> Rewrite {
    rewrite.query = parts.uri.query().map(str::to_owned);
    if rewrite.body_unchanged() {
        rewrite.original = Some(bytes.clone());
    }
    rewrite
}

/// The request's bytes (after [`for_upstream`]) to the upstream and its response back as it
/// streams, unless the upstream's error says it cannot take `tools` (then the request is
/// served again).
async fn forward(
    state: &AppState,
    parts: &axum::http::request::Parts,
    model: &str,
    bytes: bytes::Bytes,
    watch_rejection: bool,
) -> Result<Served, ProxyError> {
    let response =
        super::send_as_is(state, parts, "chat/completions", model, bytes.clone()).await?;
    if watch_rejection && !response.status().is_success() {
        return Served::refusal(&state.upstream, response, &bytes).await;
    }
    Ok(Served::Relay(response))
}
