//! The upstream's answer passed on to the client: whole (scrubbed when it is an error) or
//! streamed chunk by chunk, an event stream event by event, so that a cut ends with a
//! well-formed `error` event in the client's format and every event is scrubbed of secrets.
//! Every event stream plaincall writes joins the events that are ready into one write
//! ([`Coalesce`]).

use std::convert::Infallible;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt, TryStreamExt};

use crate::drain::Drain;
use crate::error::{ErrorEvent, ProxyError};
use crate::pipe::engine::Engine;
use crate::redact::Secrets;
use crate::upstream::end_to_end_headers;

/// An event stream plaincall writes itself: its headers, and its events joined as they are
/// ready ([`Coalesce`]).
pub(crate) fn sse_response(
    events: impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
) -> Response {
    let mut response = Response::new(event_stream_body(events));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// A response plaincall read whole (and may have changed): the upstream's status and
/// end-to-end headers, the length and encoding set anew for `body`.
/// An upstream error body may echo the key plaincall sent: it is scrubbed on the way.
pub(crate) fn bytes_response(
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
/// streamed chunk by chunk as it arrives, each chunk within `upstream.read_timeout`; an
/// uncompressed error body is read first (up to [`ERROR_BODY_LIMIT`]) and scrubbed of the
/// configured keys.
/// An event stream that plaincall must end early (the upstream failed or stalled, or the
/// shutdown grace ran out) ends with an `error` event; any other body is just cut, since
/// a truncated body is all HTTP/1.1 has to say that it failed.
pub(crate) fn relay(
    engine: &Engine,
    response: crate::upstream::UpstreamResponse,
    error_event: ErrorEvent,
) -> Response {
    let status = response.status();
    let headers = end_to_end_headers(response.headers());
    let chunks = engine.upstream.body_stream(response);
    let plain = !headers.contains_key(header::CONTENT_ENCODING);
    if !status.is_success() && plain && !engine.secrets.is_empty() {
        // An error body may echo the upstream key: read (bounded), scrubbed, then passed on.
        let mut headers = headers;
        headers.remove(header::CONTENT_LENGTH);
        let body = scrubbed_body(chunks, engine.secrets.clone());
        let mut out = Response::new(Body::from_stream(body));
        *out.status_mut() = status;
        *out.headers_mut() = headers;
        return out;
    }
    let body = if crate::sse::is_event_stream(&headers) {
        event_stream_body(sse_relay(
            chunks,
            engine.drain.clone(),
            engine.secrets.clone(),
            error_event,
        ))
    } else {
        Body::from_stream(chunks.map_err(axum::Error::new))
    };
    let mut out = Response::new(body);
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    out
}

/// The most of the ready events joined into one write.
const COALESCE_LIMIT: usize = 64 * 1024;

fn event_stream_body(
    events: impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
) -> Body {
    Body::from_stream(Coalesce::new(events, COALESCE_LIMIT))
}

pin_project_lite::pin_project! {
    /// The chunks a stream has ready, joined into one write of at most `limit` bytes. A
    /// relayed upstream body hands over one chunk per poll, whatever arrived with it, and the
    /// server writes out whatever it holds each time the body is not ready; so after a chunk
    /// the task gives way ([`GIVE_WAY`] scheduler passes at most while nothing new comes, as
    /// long as it does when something does), letting the upstream connection's task hand
    /// over the next. An upstream that sends its events together (llama-server several
    /// tokens' events per flush; a mock, all of them) then costs the client a few writes,
    /// not one per event: 13 writes for a 33-event stream where there were 35, and twice
    /// the streams per second (docs/measurements.md). A lone chunk goes on as it came, a few
    /// scheduler passes later.
    pub(crate) struct Coalesce<S> {
        #[pin]
        inner: S,
        limit: usize,
        ended: bool,
        held: Held,
        // Passes given way in a row that brought nothing.
        idle_passes: u8,
    }
}

/// How many scheduler passes in a row [`Coalesce`] gives way for nothing before it writes
/// what it holds: one was not enough for the upstream connection's task to hand over the
/// next chunk (35 writes for 33 events, as without it); four brought it to 13.
const GIVE_WAY: u8 = 4;

/// What a [`Coalesce`] read and has not passed on: one chunk as it came, or several joined.
#[derive(Default)]
enum Held {
    #[default]
    Nothing,
    One(Bytes),
    Joined(BytesMut),
}

impl Held {
    fn len(&self) -> usize {
        match self {
            Held::Nothing => 0,
            Held::One(chunk) => chunk.len(),
            Held::Joined(joined) => joined.len(),
        }
    }

    fn add(&mut self, chunk: Bytes) {
        *self = match std::mem::take(self) {
            Held::Nothing => Held::One(chunk),
            Held::One(head) => {
                let mut joined = BytesMut::with_capacity(head.len() + chunk.len());
                joined.extend_from_slice(&head);
                joined.extend_from_slice(&chunk);
                Held::Joined(joined)
            }
            Held::Joined(mut joined) => {
                joined.extend_from_slice(&chunk);
                Held::Joined(joined)
            }
        };
    }

    fn take(&mut self) -> Option<Bytes> {
        match std::mem::take(self) {
            Held::Nothing => None,
            Held::One(chunk) => Some(chunk),
            Held::Joined(joined) => Some(joined.freeze()),
        }
    }
}

impl<S> Coalesce<S> {
    pub(crate) fn new(inner: S, limit: usize) -> Coalesce<S> {
        Coalesce {
            inner,
            limit,
            ended: false,
            held: Held::Nothing,
            idle_passes: 0,
        }
    }
}

impl<S: Stream<Item = Result<Bytes, Infallible>>> Stream for Coalesce<S> {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let mut this = self.project();
        while !*this.ended && this.held.len() < *this.limit {
            match this.inner.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(chunk))) => {
                    this.held.add(chunk);
                    *this.idle_passes = 0;
                }
                Poll::Ready(Some(Err(never))) => match never {},
                Poll::Ready(None) => *this.ended = true,
                Poll::Pending => {
                    if this.held.len() > 0 && *this.idle_passes < GIVE_WAY {
                        // Woken at once: back of the run queue, after the tasks it woke.
                        *this.idle_passes += 1;
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                    break;
                }
            }
        }
        *this.idle_passes = 0;
        match this.held.take() {
            Some(out) => Poll::Ready(Some(Ok(out))),
            None if *this.ended => Poll::Ready(None),
            None => Poll::Pending,
        }
    }
}

/// The most of an upstream error body read to scrub it; the rest is not passed on.
pub(crate) const ERROR_BODY_LIMIT: usize = 1024 * 1024;

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

/// Held back past this when no event boundary shows up (the client then gets it as is).
const MAX_PENDING_EVENT: usize = 1024 * 1024;

/// Relays an event stream event by event: a cut can then be followed by a well-formed
/// `error` event in the client's format rather than land in the middle of one, and each event
/// is scrubbed of the configured secrets (an upstream may echo its key in an error event).
fn sse_relay(
    chunks: impl Stream<Item = Result<Bytes, ProxyError>> + Send + 'static,
    drain: Drain,
    secrets: Secrets,
    error_event: ErrorEvent,
) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + Send + 'static {
    // Everything a chunk needs lives in the stream's state, made once per stream: the grace
    // period's end is one future polled on every chunk, not one made and dropped per chunk.
    let relay = SseRelay {
        chunks: Box::pin(chunks),
        expired: Box::pin(async move { drain.expired().await }),
        pending: BytesMut::new(),
        done: false,
        span: tracing::Span::current(),
        secrets,
        error_event,
    };
    futures_util::stream::unfold(relay, |mut relay| async move {
        let out = relay.next_event().await?;
        Some((Ok(out), relay))
    })
}

struct SseRelay<S> {
    chunks: std::pin::Pin<Box<S>>,
    expired: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    pending: BytesMut,
    done: bool,
    span: tracing::Span,
    secrets: Secrets,
    error_event: ErrorEvent,
}

impl<S: Stream<Item = Result<Bytes, ProxyError>>> SseRelay<S> {
    async fn next_event(&mut self) -> Option<Bytes> {
        if self.done {
            return None;
        }
        loop {
            let next = tokio::select! {
                biased;
                () = &mut self.expired => Some(Err(ProxyError::ShuttingDown)),
                next = self.chunks.next() => next,
            };
            let pending = &mut self.pending;
            match next {
                // Most chunks are whole events: they go on as they came, uncopied.
                Some(Ok(chunk)) if pending.is_empty() && ends_an_event(&chunk) => {
                    return Some(self.secrets.scrub_known(chunk));
                }
                Some(Ok(chunk)) => {
                    pending.extend_from_slice(&chunk);
                    let end = event_boundary(pending)
                        .or_else(|| (pending.len() > MAX_PENDING_EVENT).then_some(pending.len()));
                    if let Some(end) = end {
                        return Some(self.secrets.scrub_known(pending.split_to(end).freeze()));
                    }
                }
                None if pending.is_empty() => return None,
                None => {
                    self.done = true;
                    return Some(self.secrets.scrub_known(pending.split().freeze()));
                }
                Some(Err(error)) => {
                    self.span.in_scope(|| {
                        tracing::warn!(code = error.code(), %error, "event stream ended early");
                    });
                    self.done = true;
                    return Some((self.error_event)(&error));
                }
            }
        }
    }
}

fn ends_an_event(chunk: &[u8]) -> bool {
    chunk.ends_with(b"\n\n") || chunk.ends_with(b"\r\n\r\n")
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
            ProxyError::chat_event,
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
            |error: &ProxyError| {
                Bytes::from(format!(
                    "event: error\ndata: {{\"format\":\"own\",\"code\":\"{}\"}}\n\n",
                    error.code()
                ))
            },
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
            last.starts_with("event: error\ndata: {\"format\":\"own\""),
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

    #[tokio::test]
    async fn a_chunk_of_whole_events_goes_on_uncopied_and_a_split_one_is_joined() {
        static WHOLE: &[u8] = b"data: a\n\ndata: b\n\n";
        let out = relayed(vec![Ok(WHOLE), Ok(b"data: c"), Ok(b"\n\n")]).await;
        assert_eq!(out[0].as_ptr(), WHOLE.as_ptr());
        assert_eq!(out[1], Bytes::from_static(b"data: c\n\n"));
        assert_eq!(out.len(), 2);
    }

    fn ok(text: &'static str) -> Result<Bytes, Infallible> {
        Ok(Bytes::from_static(text.as_bytes()))
    }

    #[tokio::test]
    async fn ready_events_are_joined_and_the_stream_is_not_waited_on() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut joined = Box::pin(Coalesce::new(tokio_stream_of(rx), COALESCE_LIMIT));
        for event in ["data: a\n\n", "data: b\n\n", "data: c\n\n"] {
            tx.send(ok(event)).unwrap_or_default();
        }
        let first = joined.next().await.map(Result::unwrap_or_default);
        assert_eq!(
            first.as_deref(),
            Some(&b"data: a\n\ndata: b\n\ndata: c\n\n"[..])
        );
        // Nothing ready: not returned, and not held back once it comes.
        assert!(futures_util::FutureExt::now_or_never(joined.next()).is_none());
        tx.send(ok("data: d\n\n")).unwrap_or_default();
        let next = joined.next().await.map(Result::unwrap_or_default);
        assert_eq!(next.as_deref(), Some(&b"data: d\n\n"[..]));
        drop(tx);
        assert!(joined.next().await.is_none());
    }

    #[tokio::test]
    async fn a_single_ready_event_goes_on_uncopied_and_joins_stop_at_the_limit() {
        static ONE: &str = "data: one\n\n";
        let alone: Vec<Bytes> = Coalesce::new(futures_util::stream::iter([ok(ONE)]), 64)
            .map(Result::unwrap_or_default)
            .collect()
            .await;
        assert_eq!(alone[0].as_ptr(), ONE.as_ptr());
        let six = std::iter::repeat_with(|| ok("data: 12\n\n")).take(6);
        let parts: Vec<usize> = Coalesce::new(futures_util::stream::iter(six), 20)
            .map(|b| b.unwrap_or_default().len())
            .collect()
            .await;
        // 10-byte events, joined until 20 bytes are held.
        assert_eq!(parts, vec![20, 20, 20]);
    }

    fn tokio_stream_of(
        mut rx: tokio::sync::mpsc::UnboundedReceiver<Result<Bytes, Infallible>>,
    ) -> impl Stream<Item = Result<Bytes, Infallible>> {
        futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
    }

    #[test]
    fn event_boundaries_with_either_line_end() {
        assert_eq!(event_boundary(b"data: a\n\ndata: b"), Some(9));
        assert_eq!(event_boundary(b"data: a\r\n\r\ndata: b"), Some(11));
        assert_eq!(event_boundary(b"data: a\n"), None);
    }
}
