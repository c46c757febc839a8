//! One client connection: HTTP/1.1 served by hyper, with the waits axum::serve leaves open
//! bounded. A watchdog closes a connection that has no request in flight once its request
//! head is late (`header_read_timeout`, counted from the first byte, or from accepting on a
//! new connection) or once it has been silent too long between requests (`idle_timeout`).
//! Bytes that arrive while a request is in flight are its body, bounded by the handlers
//! (`body_read_timeout`). hyper's own `header_read_timeout` is not used: its timer also runs
//! on an idle keep-alive connection, so the two limits could not differ.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, Response};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{watch, Notify, OwnedSemaphorePermit};
use tower::{Service, ServiceExt};

use super::admission::GuardedBody;
use crate::config::ServerSection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Serving,
    /// Shutdown began: idle and half-read connections close, busy ones finish.
    Draining,
    /// The grace period is over: every connection closes.
    Closing,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    header_ms: u64,
    idle_ms: u64,
}

impl Limits {
    pub(super) fn new(server: &ServerSection) -> Limits {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Limits {
            header_ms: ms(server.header_read_timeout),
            idle_ms: ms(server.idle_timeout),
        }
    }
}

/// Serves one connection until it closes, a limit runs out, or shutdown closes it. The slot
/// (one of `max_connections`) is given back when this returns.
pub(super) async fn serve_connection<A, B>(
    tcp: TcpStream,
    app: A,
    limits: Limits,
    mut phase: watch::Receiver<Phase>,
    _slot: OwnedSemaphorePermit,
) where
    A: Service<Request<Body>, Response = Response<B>, Error = Infallible> + Clone + Send + 'static,
    A::Future: Send + 'static,
    B: http_body::Body<Data = Bytes, Error = axum::Error> + Send + 'static,
{
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: tcp,
        activity: activity.clone(),
    });
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let busy = Busy::begin(&activity);
            let call = app.clone().oneshot(request.map(Body::new));
            async move {
                let response = call.await?;
                // The one box of the response body, whoever made it.
                Ok::<_, Infallible>(response.map(|body| GuardedBody::new(Body::new(body), busy)))
            }
        })
    };
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    tokio::pin!(connection);
    if *phase.borrow_and_update() != Phase::Serving {
        return;
    }
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "connection ended with an error");
                }
                return;
            }
            why = activity.expired(limits) => {
                tracing::debug!(limit = why, "closing a client connection");
                return;
            }
            changed = phase.changed() => {
                let now = *phase.borrow_and_update();
                if changed.is_err() || now == Phase::Closing || activity.idle() {
                    return;
                }
                // Keep-alive off: the connection closes once its response is out.
                connection.as_mut().graceful_shutdown();
            }
        }
    }
}

const NONE: u64 = u64::MAX;

/// What the watchdog needs to know about a connection, in milliseconds since it opened.
struct Activity {
    opened: Instant,
    busy: AtomicUsize,
    /// When the last request's response ended (0: none yet).
    idle_since: AtomicU64,
    /// The first byte read since then, `NONE` if none.
    first_byte: AtomicU64,
    served: AtomicBool,
    wake: Notify,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            opened: Instant::now(),
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            first_byte: AtomicU64::new(NONE),
            served: AtomicBool::new(false),
            wake: Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(NONE - 1)
    }

    fn idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
    }

    fn on_read(&self) {
        if self.idle() && self.first_byte.load(Ordering::Acquire) == NONE {
            self.first_byte.store(self.now(), Ordering::Release);
            self.wake.notify_one();
        }
    }

    /// When the connection must be closed, and which limit says so; `None` while busy.
    fn deadline(&self, limits: Limits) -> Option<(u64, &'static str)> {
        if !self.idle() {
            return None;
        }
        let first = self.first_byte.load(Ordering::Acquire);
        let since = self.idle_since.load(Ordering::Acquire);
        if first != NONE {
            Some((
                first.saturating_add(limits.header_ms),
                "header_read_timeout",
            ))
        } else if !self.served.load(Ordering::Acquire) {
            Some((
                since.saturating_add(limits.header_ms),
                "header_read_timeout",
            ))
        } else {
            Some((since.saturating_add(limits.idle_ms), "idle_timeout"))
        }
    }

    /// Resolves when a limit has run out while no request is in flight.
    async fn expired(&self, limits: Limits) -> &'static str {
        loop {
            match self.deadline(limits) {
                None => self.wake.notified().await,
                Some((at, why)) => {
                    let now = self.now();
                    if now >= at {
                        return why;
                    }
                    let wait = Duration::from_millis(at - now);
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = self.wake.notified() => {}
                    }
                }
            }
        }
    }
}

/// A request in flight on the connection, until its response body ends.
struct Busy(Arc<Activity>);

impl Busy {
    fn begin(activity: &Arc<Activity>) -> Busy {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        activity.served.store(true, Ordering::Release);
        activity.first_byte.store(NONE, Ordering::Release);
        Busy(activity.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let activity = &self.0;
        activity.idle_since.store(activity.now(), Ordering::Release);
        activity.first_byte.store(NONE, Ordering::Release);
        if activity.busy.fetch_sub(1, Ordering::AcqRel) == 1 {
            activity.wake.notify_one();
        }
    }
}

pin_project_lite::pin_project! {
    /// The socket, telling the watchdog when bytes arrive.
    struct Watched {
        #[pin]
        inner: TcpStream,
        activity: Arc<Activity>,
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let result = this.inner.poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.on_read();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
