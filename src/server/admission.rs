//! What every request goes through before routing: it is counted (by route and status, with
//! its time to response headers, and in flight until its body ends), and on `/v1` it is shed
//! past `server.max_in_flight` and refused without one of `server.access_keys`.
//!
//! A tower layer around the whole router rather than axum middleware on each route: axum's
//! `from_fn` and `route_layer` box a service clone and a future at every step, which was a
//! third of the allocations of a forwarded request.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::http::{Request, Response};
use bytes::Bytes;
use http_body::Frame;
use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::OwnedSemaphorePermit;
use tower::{Layer, Service};

use crate::budget::Charge;
use crate::error::ProxyError;
use crate::routes::IntoWireResponse;
use crate::state::AppState;
use crate::wire::Wire;

use super::Route;

#[derive(Clone)]
pub(crate) struct AdmissionLayer(pub Arc<AppState>);

impl<S> Layer<S> for AdmissionLayer {
    type Service = Admission<S>;

    fn layer(&self, inner: S) -> Admission<S> {
        Admission {
            inner,
            state: self.0.clone(),
        }
    }
}

#[derive(Clone)]
pub(crate) struct Admission<S> {
    inner: S,
    state: Arc<AppState>,
}

/// What a response body holds until it ends: the in-flight gauge's count and, on `/v1`, the
/// permit and the request's memory charge.
pub(crate) struct Held {
    _counted: InFlight,
    _admitted: Option<(OwnedSemaphorePermit, Charge)>,
}

impl<S> Service<Request<Body>> for Admission<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>,
{
    type Response = Response<GuardedBody<Option<Held>>>;
    type Error = Infallible;
    type Future = Admitted<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        let route = Route::of(request.uri().path());
        let counted = InFlight::new(self.state.metrics.in_flight.clone());
        let mut held = Held {
            _counted: counted,
            _admitted: None,
        };
        let started = Instant::now();
        let refused = |error: ProxyError, held: Held, request: &Request<Body>| Admitted {
            step: Step::Refused {
                response: Some(error.into_wire_response(Wire::of_path(request.uri().path()))),
            },
            route: route.label(),
            started,
            state: self.state.clone(),
            held: Some(held),
        };
        if route.is_v1() {
            // Shedding comes before the key check: refusing load must cost little.
            let Ok(permit) = self.state.in_flight.clone().try_acquire_owned() else {
                let error = ProxyError::Overloaded(self.state.config.server.max_in_flight);
                return refused(error, held, &request);
            };
            if !crate::auth::admits(&self.state.config.server.access_keys, &request) {
                return refused(ProxyError::Unauthorized, held, &request);
            }
            let charge = Charge::default();
            request.extensions_mut().insert(charge.clone());
            held._admitted = Some((permit, charge));
        }
        Admitted {
            step: Step::Running {
                future: self.inner.call(request),
            },
            route: route.label(),
            started,
            state: self.state.clone(),
            held: Some(held),
        }
    }
}

pin_project_lite::pin_project! {
    pub(crate) struct Admitted<F> {
        #[pin]
        step: Step<F>,
        route: &'static str,
        started: Instant,
        state: Arc<AppState>,
        held: Option<Held>,
    }
}

pin_project_lite::pin_project! {
    #[project = StepProj]
    enum Step<F> {
        Refused { response: Option<Response<Body>> },
        Running { #[pin] future: F },
    }
}

impl<F> Future for Admitted<F>
where
    F: Future<Output = Result<Response<Body>, Infallible>>,
{
    type Output = Result<Response<GuardedBody<Option<Held>>>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.step.project() {
            StepProj::Refused { response } => response.take().unwrap_or_else(|| {
                ProxyError::Internal("polled after its end".into()).into_wire_response(Wire::Chat)
            }),
            StepProj::Running { future } => match ready!(future.poll(cx)) {
                Ok(response) => response,
                Err(never) => match never {},
            },
        };
        this.state.metrics.record_request(
            this.route,
            response.status().as_u16(),
            this.started.elapsed(),
        );
        let held = this.held.take();
        Poll::Ready(Ok(response.map(|body| GuardedBody::new(body, held))))
    }
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
    pub(crate) struct GuardedBody<G> {
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
