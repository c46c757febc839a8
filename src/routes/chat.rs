//! `POST /v1/chat/completions`: parsed far enough to decide whether plaincall changes anything;
//! forwarded byte for byte when it does not.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method};
use axum::response::Response;

use super::{read_body, relay};
use crate::error::ProxyError;
use crate::openai::RawObject;
use crate::pipe::{complete, Plan, TRANSLATE_HEADER};
use crate::server::AppState;
use crate::stream;

pub async fn chat_completions(
    State(state): State<Arc<AppState>>,
    request: Request,
) -> Result<Response, ProxyError> {
    let (mut parts, body) = request.into_parts();
    let bytes = read_body(&parts.headers, body, state.config.server.max_body_bytes).await?;
    let parsed: RawObject =
        serde_json::from_slice(&bytes).map_err(|e| ProxyError::InvalidJson(e.to_string()))?;
    let plan = state.pipe.plan(&parsed, &parts.headers)?;
    parts.headers.remove(TRANSLATE_HEADER);
    match plan {
        Plan::Forward => {
            let url = state
                .upstream
                .endpoint("chat/completions", parts.uri.query())?;
            let builder = state
                .upstream
                .request(
                    Method::POST,
                    url,
                    &parts.headers,
                    state.forward_client_auth(),
                )
                .body(bytes);
            match state.upstream.send(builder).await {
                Ok(response) => Ok(relay(response)),
                Err(error) => {
                    state.metrics.upstream_error(error.code());
                    Err(error)
                }
            }
        }
        Plan::Rewrite(rewrite) if rewrite.stream => {
            stream::translate_stream(state, rewrite, parts.headers).await
        }
        Plan::Rewrite(rewrite) => complete::complete(&state, rewrite, &parts.headers).await,
    }
}

/// An SSE response with the headers streaming clients and proxies expect.
pub fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
