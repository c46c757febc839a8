//! HTTP handlers, one file per kind of route, and what they share here: request bodies read
//! within the server's limits (or streamed on, cut at them), a body sent to the upstream whole,
//! and errors as each wire format's response.

pub(crate) mod chat;
pub(crate) mod converted;
pub(crate) mod messages;
pub(crate) mod ops;
pub(crate) mod passthrough;
pub(crate) mod relay;
pub(crate) mod responses;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Uri};
use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use http_body_util::BodyExt;

use crate::budget::{Charge, MemoryBudget};
use crate::drain::Drain;
use crate::error::ProxyError;
use crate::state::AppState;
use crate::telemetry::spans;
use tracing::Instrument;

pub(crate) async fn not_found(method: Method, uri: Uri) -> ProxyError {
    ProxyError::NotFound {
        method: method.to_string(),
        path: uri.path().to_owned(),
    }
}

pub(crate) use crate::upstream::content_length;

/// How long a client may take over its request body: `idle` between chunks
/// (`server.body_read_timeout`), `total` for all of it (`server.body_timeout`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyTimeouts {
    pub idle: Duration,
    pub total: Duration,
}

impl BodyTimeouts {
    pub(crate) fn of(server: &crate::config::ServerSection) -> BodyTimeouts {
        BodyTimeouts {
            idle: server.body_read_timeout,
            total: server.body_timeout,
        }
    }

    /// The next chunk of `next`, within both limits measured from `started`.
    async fn next<T>(
        self,
        started: tokio::time::Instant,
        next: impl std::future::Future<Output = T>,
    ) -> Result<T, ProxyError> {
        let left = self.total.saturating_sub(started.elapsed());
        match tokio::time::timeout(self.idle.min(left), next).await {
            Ok(item) => Ok(item),
            Err(_) if started.elapsed() >= self.total => {
                Err(ProxyError::ClientBodyDeadline(self.total))
            }
            Err(_) => Err(ProxyError::ClientBodyTimeout(self.idle)),
        }
    }
}

/// A request body within the server's configured size and time limits, charged to the
/// memory budget as it arrives (the request's [`Charge`], when the serving layers gave it one).
pub(crate) async fn read_request_body(
    state: &AppState,
    parts: &axum::http::request::Parts,
    body: Body,
) -> Result<Bytes, ProxyError> {
    let server = &state.config.server;
    let charge = parts
        .extensions
        .get::<Charge>()
        .cloned()
        .unwrap_or_default();
    read_body(
        &parts.headers,
        body,
        server.max_body_bytes,
        BodyTimeouts::of(server),
        &state.drain,
        Some((&state.budget, &charge)),
    )
    .await
}

/// Reads a whole request body, refusing more than `limit` bytes and a silence longer than
/// the `timeouts` allow. A body still arriving when shutdown begins is refused, so that a
/// half-sent request cannot hold shutdown up. With `meter`, the bytes held so far (the
/// announced length first) are charged to the budget, which may make the read wait, or
/// refuse it.
pub(crate) async fn read_body(
    headers: &HeaderMap,
    mut body: Body,
    limit: u64,
    timeouts: BodyTimeouts,
    drain: &Drain,
    meter: Option<(&MemoryBudget, &Charge)>,
) -> Result<Bytes, ProxyError> {
    let cover = |bytes: u64| async move {
        match meter {
            Some((budget, charge)) => budget.cover(charge, bytes, crate::budget::WAIT).await,
            None => Ok(()),
        }
    };
    let started = tokio::time::Instant::now();
    let expected = content_length(headers).unwrap_or(0);
    if expected > limit {
        return Err(ProxyError::BodyTooLarge { limit });
    }
    cover(expected).await?;
    let mut out = BytesMut::with_capacity(usize::try_from(expected).unwrap_or(0));
    loop {
        let next = tokio::select! {
            biased;
            () = drain.began() => return Err(ProxyError::Draining),
            next = timeouts.next(started, body.frame()) => next,
        };
        let frame = match next {
            Err(error) => return Err(error),
            Ok(None) => break,
            Ok(Some(Err(error))) => {
                return Err(ProxyError::InvalidRequest {
                    message: format!("could not read the request body: {error}"),
                    param: None,
                })
            }
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            let held = out.len() as u64 + data.len() as u64;
            if held > limit {
                return Err(ProxyError::BodyTooLarge { limit });
            }
            cover(held).await?;
            out.extend_from_slice(&data);
        }
    }
    Ok(out.freeze())
}

/// Why a streamed request body was cut: read after the upstream send failed, so that the
/// client hears about its own body rather than an upstream error.
#[derive(Clone, Default)]
pub(crate) struct BodyFault(Arc<Mutex<Option<ProxyError>>>);

impl BodyFault {
    fn set(&self, error: ProxyError) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(error);
        }
    }

    pub(crate) fn take(&self) -> Option<ProxyError> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// A request body streamed on to the upstream, cut off past `limit` bytes, past either of
/// `timeouts`, or when shutdown begins.
pub(crate) fn limited_stream(
    body: Body,
    limit: u64,
    timeouts: BodyTimeouts,
    drain: Drain,
) -> (
    impl Stream<Item = Result<Bytes, axum::Error>> + Send + 'static,
    BodyFault,
) {
    let fault = BodyFault::default();
    let started = tokio::time::Instant::now();
    let state = (body.into_data_stream(), 0u64, fault.clone(), false);
    let stream = futures_util::stream::unfold(state, move |(mut data, seen, fault, stop)| {
        let drain = drain.clone();
        async move {
            if stop {
                return None;
            }
            let next = tokio::select! {
                biased;
                () = drain.began() => Err(ProxyError::Draining),
                next = timeouts.next(started, data.next()) => next,
            };
            let failure = match next {
                Ok(None) => return None,
                Ok(Some(Err(error))) => return Some((Err(error), (data, seen, fault, true))),
                Ok(Some(Ok(chunk))) if seen + chunk.len() as u64 <= limit => {
                    let seen = seen + chunk.len() as u64;
                    return Some((Ok(chunk), (data, seen, fault, false)));
                }
                Ok(Some(Ok(_))) => ProxyError::BodyTooLarge { limit },
                Err(error) => error,
            };
            let error = axum::Error::new(failure.to_string());
            fault.set(failure);
            Some((Err(error), (data, seen, fault, true)))
        }
    });
    (stream, fault)
}

/// plaincall's errors as the response each wire format's SDKs read (the body from
/// [`crate::wire::WireError`]).
pub(crate) trait IntoWireResponse {
    fn into_wire_response(self, wire: crate::wire::Wire) -> axum::response::Response;
}

impl IntoWireResponse for ProxyError {
    fn into_wire_response(self, wire: crate::wire::Wire) -> axum::response::Response {
        use crate::wire::WireError;
        let body = self.wire_body(wire);
        self.respond(body)
    }
}

/// Sends a client's POST body (as it came, or as the route rewrote it: a `[models]` alias,
/// `drop_params`) to `route` under the upstream's base URL, with the client's end-to-end
/// headers and the configured key; counts a failure to get an answer.
/// `model` is the one the body names (for the turn's span).
pub(crate) async fn send_as_is(
    state: &AppState,
    parts: &axum::http::request::Parts,
    route: &str,
    model: &str,
    bytes: Bytes,
) -> Result<crate::upstream::UpstreamResponse, ProxyError> {
    let url = state.upstream.endpoint(route, parts.uri.query())?;
    // The body is whole: its length goes with it, never the client's `Content-Length`, which
    // no longer holds once a model alias or `drop_params` changed the body (the upstream
    // would wait for bytes that never come).
    let span = forward_span(route, model);
    let builder =
        state
            .upstream
            .post_whole(url, &parts.headers, state.forward_client_auth(), bytes);
    let response = state
        .upstream
        .send(builder)
        .instrument(span.clone())
        .await
        .inspect_err(|e| {
            state.metrics.upstream_error(e.code());
            spans::record_error(&span, e.code(), &e.detail());
        })?;
    if !response.status().is_success() {
        let status = response.status();
        spans::record_error(&span, status.as_str(), &format!("HTTP {}", status.as_u16()));
    }
    Ok(response)
}

/// The `chat` span of a conversation forwarded as it came (until its answer's headers).
fn forward_span(route: &str, model: &str) -> tracing::Span {
    let provider = match route {
        "chat/completions" | "responses" => "openai",
        "messages" => "anthropic",
        _ => return tracing::Span::none(),
    };
    spans::chat(model, provider, spans::Turn::Main)
}
