//! The app: the router with every layer in one place, and serving with graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, Request};
use axum::routing::{any, get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnFailure, DefaultOnResponse, TraceLayer};

use crate::routes;
pub use crate::state::AppState;

mod admission;
mod conn;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The router's paths. Each is also its requests' metric label ([`Route::label`]).
const CHAT: &str = "/v1/chat/completions";
const MESSAGES: &str = "/v1/messages";
const RESPONSES: &str = "/v1/responses";
const V1_REST: &str = "/v1/{*rest}";
const OPS: [&str; 4] = ["/healthz", "/health", "/readyz", "/metrics"];
const UNMATCHED: &str = "unmatched";

/// The route a path reaches, known before routing so that the layers around the router can
/// label and admit a request by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route(&'static str);

impl Route {
    pub(crate) fn of(path: &str) -> Route {
        if let Some(&known) = [CHAT, MESSAGES, RESPONSES]
            .iter()
            .chain(OPS.iter())
            .find(|&&route| route == path)
        {
            return Route(known);
        }
        // `{*rest}` takes one character or more.
        match path.strip_prefix("/v1/") {
            Some(rest) if !rest.is_empty() => Route(V1_REST),
            _ => Route(UNMATCHED),
        }
    }

    /// The metric label: the route's pattern, so that the label set stays bounded.
    pub(crate) fn label(self) -> &'static str {
        self.0
    }

    /// `/v1` routes are limited in flight and need an access key; ops routes are not.
    pub(crate) fn is_v1(self) -> bool {
        self.0.starts_with("/v1/")
    }
}

/// The routes alone; [`app`] puts the layers around them.
fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route(CHAT, post(routes::chat::chat_completions))
        .route(MESSAGES, post(routes::messages::messages))
        .route(
            RESPONSES,
            post(routes::responses::responses).get(routes::responses::websocket),
        )
        .route(V1_REST, any(routes::passthrough::passthrough))
        // The name load balancers and some clients probe by default.
        .route(OPS[0], get(routes::ops::healthz))
        .route(OPS[1], get(routes::ops::healthz))
        .route(OPS[2], get(routes::ops::readyz))
        .route(OPS[3], get(routes::ops::metrics))
        .fallback(routes::not_found)
        .with_state(state)
}

/// The router inside its layers, outermost first: request id, tracing span (which carries the
/// id onto every log line of the request), id propagation to the response, then admission
/// (metrics, the in-flight limit and the access-key check on `/v1`). The layers wrap the
/// router as a whole, not each route, so a request pays for each of them once.
pub(crate) fn app(
    state: Arc<AppState>,
) -> impl tower::Service<
    Request<Body>,
    Response = axum::http::Response<
        impl http_body::Body<Data = bytes::Bytes, Error = axum::Error> + Send + 'static,
    >,
    Error = std::convert::Infallible,
    Future = impl Future + Send + 'static,
> + Clone
       + Send
       + 'static {
    ServiceBuilder::new()
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .layer(
            // A failed request is logged once, where the error is made (ProxyError);
            // the trace layer's own line, ERROR by default, would repeat it, and would
            // flood logs with failed readiness probes.
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG))
                .make_span_with(request_span as fn(&Request<Body>) -> tracing::Span)
                .on_response(RecordStatus),
        )
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(admission::AdmissionLayer(state.clone()))
        .service(router(state))
}

fn request_span(request: &Request<Body>) -> tracing::Span {
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    if crate::telemetry::enabled() {
        let path = request.uri().path();
        let route = Route::of(path).label();
        return crate::telemetry::spans::server(
            request.method(),
            route,
            path,
            id,
            request.headers(),
        );
    }
    tracing::info_span!(
        "request",
        request_id = %id,
        method = %request.method(),
        path = %request.uri().path(),
    )
}

/// The response's status on the request's span (for its trace), then the usual debug line.
#[derive(Clone, Copy)]
struct RecordStatus;

impl<B> tower_http::trace::OnResponse<B> for RecordStatus {
    fn on_response(
        self,
        response: &axum::http::Response<B>,
        latency: Duration,
        span: &tracing::Span,
    ) {
        crate::telemetry::spans::record_status(span, response.status().as_u16());
        DefaultOnResponse::default().on_response(response, latency, span);
    }
}

/// How serving ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Every connection closed within the grace period.
    Drained,
    /// The grace period ran out: open streams got an `error` event, the rest were cut.
    GraceExpired,
}

/// How long streams get to send their `error` event once the grace period ran out.
const FLUSH: Duration = Duration::from_millis(500);
/// Far above any sane `max_connections`, below what a semaphore holds.
const MOST_CONNECTIONS: usize = 1 << 20;

/// Serves until `shutdown` resolves, then stops accepting, closes connections that have no
/// request in flight (idle or half-read ones) and gives in-flight requests and streams up to
/// `server.shutdown_grace` to finish. At `server.max_connections` open connections it stops
/// accepting (new ones wait in the kernel's backlog) until one closes.
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<Stopped> {
    let limits = conn::Limits::new(&state.config.server);
    let grace = state.config.server.shutdown_grace;
    let max = state
        .config
        .server
        .max_connections
        .clamp(1, MOST_CONNECTIONS);
    let app = app(state.clone());
    let slots = Arc::new(Semaphore::new(max));
    let (phase, phase_rx) = watch::channel(conn::Phase::Serving);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            () = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot,
        };
        let Ok(slot) = slot else { break };
        let tcp = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                Err(error) => {
                    // Out of file descriptors, say: wait rather than spin.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        // Nagle would hold back small SSE chunks.
        let _ = tcp.set_nodelay(true);
        tokio::spawn(conn::serve_connection(
            tcp,
            app.clone(),
            limits,
            phase_rx.clone(),
            slot,
        ));
    }
    drop(listener);
    tracing::info!(grace = ?grace, "shutting down: no new connections, draining in-flight requests");
    phase.send_replace(conn::Phase::Draining);
    state.drain.begin();
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    if tokio::time::timeout(grace, slots.acquire_many(all))
        .await
        .is_ok()
    {
        return Ok(Stopped::Drained);
    }
    tracing::warn!("grace period over with requests still in flight; ending them");
    state.drain.expire();
    let _ = tokio::time::timeout(FLUSH, slots.acquire_many(all)).await;
    phase.send_replace(conn::Phase::Closing);
    Ok(Stopped::GraceExpired)
}

/// Resolves on SIGTERM or SIGINT.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_labelled_by_the_route_that_takes_it() {
        for route in [CHAT, MESSAGES, RESPONSES].iter().chain(OPS.iter()) {
            assert_eq!(Route::of(route).label(), *route);
        }
        assert_eq!(Route::of("/v1/models").label(), V1_REST);
        assert_eq!(Route::of("/v1/chat/completions/").label(), V1_REST);
        assert_eq!(Route::of("/v1/files/a/b").label(), V1_REST);
        for path in ["/v1/", "/v1", "/", "/v1x/y", "/healthz/", "/metricsx", ""] {
            assert_eq!(Route::of(path).label(), UNMATCHED, "{path}");
        }
        assert!(Route::of("/v1/models").is_v1() && Route::of(CHAT).is_v1());
        assert!(!Route::of("/metrics").is_v1() && !Route::of("/v1/").is_v1());
    }
}
