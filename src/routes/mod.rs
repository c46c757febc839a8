//! HTTP handlers, one file per kind of route.

pub mod chat;
pub mod converted;
pub mod messages;
pub mod ops;
pub mod passthrough;
pub mod responses;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, Method, Uri};
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt, TryStreamExt};
use http_body_util::BodyExt;

use crate::budget::{Charge, MemoryBudget};
use crate::error::ProxyError;
use crate::redact::Secrets;
use crate::state::{AppState, Drain};
use crate::upstream::end_to_end_headers;
use crate::wire::Wire;

pub async fn not_found(method: Method, uri: Uri) -> ProxyError {
    ProxyError::NotFound {
        method: method.to_string(),
        path: uri.path().to_owned(),
    }
}

pub fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// Reads a whole request body, refusing more than `limit` bytes and a silence longer than
/// `idle` between two chunks. A body still arriving when shutdown begins is refused, so that
/// a half-sent request cannot hold shutdown up.
/// How long a client may take over its request body: `idle` between chunks
/// (`server.body_read_timeout`), `total` for all of it (`server.body_timeout`).
#[derive(Clone, Copy, Debug)]
pub struct BodyTimeouts {
    pub idle: Duration,
    pub total: Duration,
}

impl BodyTimeouts {
    pub fn of(server: &crate::config::ServerSection) -> BodyTimeouts {
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
pub async fn read_request_body(
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

/// With `meter`, the bytes held so far (the announced length first) are charged to the
/// budget, which may make the read wait, or refuse it.
pub async fn read_body(
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
pub struct BodyFault(Arc<Mutex<Option<ProxyError>>>);

impl BodyFault {
    fn set(&self, error: ProxyError) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(error);
        }
    }

    pub fn take(&self) -> Option<ProxyError> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// A request body streamed on to the upstream, cut off past `limit` bytes, past either of
/// `timeouts`, or when shutdown begins.
pub fn limited_stream(
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

/// Sends a client's POST body as it is to `route` under the upstream's base URL, with the
/// client's end-to-end headers and the configured key; counts a failure to get an answer.
pub async fn send_as_is(
    state: &AppState,
    parts: &axum::http::request::Parts,
    route: &str,
    bytes: Bytes,
) -> Result<reqwest::Response, ProxyError> {
    let url = state.upstream.endpoint(route, parts.uri.query())?;
    let builder = state
        .upstream
        .request(
            Method::POST,
            url,
            &parts.headers,
            state.forward_client_auth(),
        )
        .body(bytes);
    state
        .upstream
        .send(builder)
        .await
        .inspect_err(|e| state.metrics.upstream_error(e.code()))
}

/// A response plaincall read whole (and may have changed): the upstream's status and
/// end-to-end headers, the length and encoding set anew for `body`.
/// An upstream error body may echo the key plaincall sent: it is scrubbed on the way.
pub fn bytes_response(
    status: axum::http::StatusCode,
    headers: &HeaderMap,
    body: Bytes,
    secrets: &Secrets,
) -> Response {
    let body = if status.is_success() {
        body
    } else {
        secrets.scrub_body(body)
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let mut headers = end_to_end_headers(headers);
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    *response.headers_mut() = headers;
    response
}

/// The upstream's response as the client's: status, end-to-end headers, and the body
/// streamed chunk by chunk as it arrives, each chunk within `upstream.read_timeout`.
/// An event stream that plaincall must end early (the upstream failed or stalled, or the
/// shutdown grace ran out) ends with an `error` event; any other body is just cut, since
/// a truncated body is all HTTP/1.1 has to say that it failed.
pub fn relay(state: &AppState, response: reqwest::Response, wire: Wire) -> Response {
    let status = response.status();
    let headers = end_to_end_headers(response.headers());
    let chunks = state.upstream.body_stream(response);
    let plain = !headers.contains_key(header::CONTENT_ENCODING);
    if !status.is_success() && plain && !state.secrets.is_empty() {
        // An error body may echo the upstream key: read (bounded), scrubbed, then passed on.
        let mut headers = headers;
        headers.remove(header::CONTENT_LENGTH);
        let body = scrubbed_body(chunks, state.secrets.clone());
        let mut out = Response::new(Body::from_stream(body));
        *out.status_mut() = status;
        *out.headers_mut() = headers;
        return out;
    }
    let body = if is_event_stream(&headers) {
        Body::from_stream(sse_relay(
            chunks,
            state.drain.clone(),
            state.secrets.clone(),
            wire,
        ))
    } else {
        Body::from_stream(chunks.map_err(axum::Error::new))
    };
    let mut out = Response::new(body);
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    out
}

/// The most of an upstream error body read to scrub it; the rest is not passed on.
pub const ERROR_BODY_LIMIT: usize = 1024 * 1024;

fn scrubbed_body(
    chunks: impl Stream<Item = Result<Bytes, ProxyError>> + Send + 'static,
    secrets: Secrets,
) -> impl Stream<Item = Result<Bytes, axum::Error>> + Send + 'static {
    futures_util::stream::once(async move {
        let mut chunks = Box::pin(chunks);
        let mut body = BytesMut::new();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(axum::Error::new)?;
            let room = ERROR_BODY_LIMIT.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() >= ERROR_BODY_LIMIT {
                break;
            }
        }
        Ok(secrets.scrub_body(body.freeze()))
    })
}

pub fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// Held back past this when no event boundary shows up (the client then gets it as is).
const MAX_PENDING_EVENT: usize = 1024 * 1024;

/// Relays an event stream event by event: a cut can then be followed by a well-formed
/// `error` event in the client's format rather than land in the middle of one, and each event
/// is scrubbed of the configured secrets (an upstream may echo its key in an error event).
fn sse_relay(
    chunks: impl Stream<Item = Result<Bytes, ProxyError>> + Send + 'static,
    drain: Drain,
    secrets: Secrets,
    wire: Wire,
) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + Send + 'static {
    let span = tracing::Span::current();
    let state = (Box::pin(chunks), BytesMut::new(), false);
    futures_util::stream::unfold(state, move |(mut chunks, mut pending, done)| {
        let drain = drain.clone();
        let span = span.clone();
        let secrets = secrets.clone();
        async move {
            if done {
                return None;
            }
            loop {
                let next = tokio::select! {
                    biased;
                    () = drain.expired() => Some(Err(ProxyError::ShuttingDown)),
                    next = chunks.next() => next,
                };
                match next {
                    Some(Ok(chunk)) => {
                        pending.extend_from_slice(&chunk);
                        let end = event_boundary(&pending).or_else(|| {
                            (pending.len() > MAX_PENDING_EVENT).then_some(pending.len())
                        });
                        if let Some(end) = end {
                            let out = secrets.scrub_known(pending.split_to(end).freeze());
                            return Some((Ok(out), (chunks, pending, false)));
                        }
                    }
                    None if pending.is_empty() => return None,
                    None => {
                        let out = secrets.scrub_known(pending.split().freeze());
                        return Some((Ok(out), (chunks, pending, true)));
                    }
                    Some(Err(error)) => {
                        span.in_scope(|| {
                            tracing::warn!(code = error.code(), %error, "event stream ended early");
                        });
                        return Some((Ok(error.stream_event(wire)), (chunks, pending, true)));
                    }
                }
            }
        }
    })
}

/// The end of the last complete event in `buffer`.
fn event_boundary(buffer: &[u8]) -> Option<usize> {
    let lf = buffer.windows(2).rposition(|w| w == b"\n\n").map(|i| i + 2);
    let crlf = buffer
        .windows(4)
        .rposition(|w| w == b"\r\n\r\n")
        .map(|i| i + 4);
    lf.max(crlf)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn relayed(pieces: Vec<Result<&'static [u8], ProxyError>>) -> Vec<Bytes> {
        let chunks = futures_util::stream::iter(
            pieces
                .into_iter()
                .map(|p| p.map(Bytes::from_static))
                .collect::<Vec<_>>(),
        );
        sse_relay(
            chunks,
            Drain::default(),
            Secrets::new(["sk-upstream-key"]),
            Wire::Chat,
        )
        .map(|item| match item {
            Ok(bytes) => bytes,
            Err(never) => match never {},
        })
        .collect()
        .await
    }

    #[tokio::test]
    async fn a_cut_relayed_stream_drops_the_partial_event_and_ends_with_an_error_event() {
        let out = relayed(vec![
            Ok(b"data: a\n"),
            Ok(b"\ndata: b"),
            Err(ProxyError::UpstreamProtocol("reset".into())),
        ])
        .await;
        assert_eq!(out[0], Bytes::from_static(b"data: a\n\n"));
        let last = String::from_utf8_lossy(&out[1]);
        assert!(last.starts_with("event: error\ndata: {\"error\""), "{last}");
        assert!(!last.contains("data: b"));
        assert_eq!(out.len(), 2);
    }

    #[tokio::test]
    async fn relayed_events_are_scrubbed_and_a_cut_ends_in_the_clients_format() {
        let chunks = futures_util::stream::iter(vec![
            Ok(Bytes::from_static(
                b"event: error\ndata: {\"error\":{\"message\":\"bad key sk-upstream-key\"}}\n\n",
            )),
            Err(ProxyError::UpstreamProtocol("reset".into())),
        ]);
        let out: Vec<Bytes> = sse_relay(
            chunks,
            Drain::default(),
            Secrets::new(["sk-upstream-key"]),
            Wire::Anthropic,
        )
        .map(|item| match item {
            Ok(bytes) => bytes,
            Err(never) => match never {},
        })
        .collect()
        .await;
        let first = String::from_utf8_lossy(&out[0]);
        assert!(!first.contains("sk-upstream-key"), "{first}");
        assert!(first.contains("[redacted]"), "{first}");
        let last = String::from_utf8_lossy(&out[1]);
        assert!(
            last.starts_with("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"),
            "{last}"
        );
    }

    #[tokio::test]
    async fn an_event_past_the_hold_back_limit_is_passed_on_as_it_is() {
        let big: &'static [u8] = Box::leak(vec![b'x'; MAX_PENDING_EVENT + 1].into_boxed_slice());
        let out = relayed(vec![Ok(big), Ok(b"\n\n")]).await;
        assert_eq!(out[0].len(), MAX_PENDING_EVENT + 1);
        assert_eq!(out[1], Bytes::from_static(b"\n\n"));
    }

    #[test]
    fn event_boundaries_with_either_line_end() {
        assert_eq!(event_boundary(b"data: a\n\ndata: b"), Some(9));
        assert_eq!(event_boundary(b"data: a\r\n\r\ndata: b"), Some(11));
        assert_eq!(event_boundary(b"data: a\n"), None);
    }
}
