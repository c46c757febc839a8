//! The app: the router with every layer in one place, and serving with graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderName, Request};
use axum::routing::{any, get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnFailure, TraceLayer};

use crate::routes;
pub use crate::state::AppState;

mod conn;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The router with its layers, outermost first: request id, tracing span (which carries the
/// id onto every log line of the request), id propagation to the response, metrics, and the
/// access-key check on `/v1`.
pub fn router(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .route("/v1/chat/completions", post(routes::chat::chat_completions))
        .route("/v1/messages", post(routes::messages::messages))
        .route(
            "/v1/responses",
            post(routes::responses::responses).get(routes::responses::websocket),
        )
        .route("/v1/{*rest}", any(routes::passthrough::passthrough))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::require_access_key,
        ))
        // Outside the key check: shedding load must cost little. Ops routes are not limited.
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::metrics_layer::limit_in_flight,
        ));
    let ops = Router::new()
        .route("/healthz", get(routes::ops::healthz))
        // The name load balancers and some clients probe by default.
        .route("/health", get(routes::ops::healthz))
        .route("/readyz", get(routes::ops::readyz))
        .route("/metrics", get(routes::ops::metrics));
    v1.merge(ops)
        .fallback(routes::not_found)
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
                .layer(
                    // A failed request is logged once, where the error is made (ProxyError);
                    // the trace layer's own line, ERROR by default, would repeat it, and would
                    // flood logs with failed readiness probes.
                    TraceLayer::new_for_http()
                        .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG))
                        .make_span_with(|request: &Request<_>| {
                            let id = request
                                .headers()
                                .get(&REQUEST_ID)
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or("-");
                            tracing::info_span!(
                                "request",
                                request_id = %id,
                                method = %request.method(),
                                path = %request.uri().path(),
                            )
                        }),
                )
                .layer(PropagateRequestIdLayer::new(REQUEST_ID))
                .layer(axum::middleware::from_fn_with_state(
                    state.clone(),
                    crate::metrics_layer::track,
                )),
        )
        .with_state(state)
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
    let app = router(state.clone());
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
