//! Counts requests by route and status, observes time to response headers, and keeps the
//! in-flight gauge up while a response body (a stream, say) is still being sent.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use http_body::Frame;
use prometheus_client::metrics::gauge::Gauge;

use crate::budget::Charge;
use crate::error::ProxyError;
use crate::state::AppState;
use crate::wire::WireError;

pub(crate) async fn track(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let guard = InFlight::new(state.metrics.in_flight.clone());
    let started = Instant::now();
    let response = next.run(request).await;
    state
        .metrics
        .record_request(&route, response.status().as_u16(), started.elapsed());
    response.map(|body| Body::new(GuardedBody::new(body, guard)))
}

/// Refuses a request with 503 (and `Retry-After`) when `server.max_in_flight` requests are
/// already being served, rather than queueing it; the permit is held until the response
/// body (a stream, say) has ended.
/// Each request also gets a [`Charge`] against the memory budget, which the body readers
/// raise and which is released with the permit.
pub(crate) async fn limit_in_flight(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let Ok(permit) = state.in_flight.clone().try_acquire_owned() else {
        return ProxyError::Overloaded(state.config.server.max_in_flight)
            .into_wire_response(crate::wire::Wire::of_path(request.uri().path()));
    };
    let charge = Charge::default();
    request.extensions_mut().insert(charge.clone());
    let response = next.run(request).await;
    response.map(|body| Body::new(GuardedBody::new(body, (permit, charge))))
}

struct InFlight(Gauge);

impl InFlight {
    fn new(gauge: Gauge) -> InFlight {
        gauge.inc();
        InFlight(gauge)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

pin_project_lite::pin_project! {
    /// A body that holds `guard` until it is dropped.
    pub struct GuardedBody<G> {
        #[pin]
        inner: Body,
        _guard: G,
    }
}

impl<G> GuardedBody<G> {
    pub(crate) fn new(inner: Body, guard: G) -> GuardedBody<G> {
        GuardedBody {
            inner,
            _guard: guard,
        }
    }
}

impl<G> http_body::Body for GuardedBody<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        self.project().inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
