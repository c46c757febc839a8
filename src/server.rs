//! The app: shared state, the router with every layer in one place, and serving with graceful
//! shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderName, Request};
use axum::routing::{any, get, post};
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnFailure, TraceLayer};

use crate::config::Config;
use crate::error::ProxyError;
use crate::metrics::Metrics;
use crate::pipe::Pipe;
use crate::routes;
use crate::upstream::UpstreamClient;

pub struct AppState {
    pub config: Config,
    pub upstream: UpstreamClient,
    pub metrics: Metrics,
    pub readiness: routes::ops::Readiness,
    pub pipe: Pipe,
    pub modes: crate::prompt_mode::ModeSelector,
}

impl AppState {
    pub fn new(config: Config) -> Result<Arc<AppState>, ProxyError> {
        let upstream = UpstreamClient::new(
            config.upstream.base_url.clone(),
            config.upstream.api_key.clone(),
            config.upstream.connect_timeout,
            config.upstream.read_timeout,
            config.upstream.timeout,
        )?;
        let pipe = Pipe::new(&config, upstream.clone())?;
        Ok(Arc::new(AppState {
            upstream,
            metrics: Metrics::with_configured(config.translation.tools.keys().cloned().collect()),
            readiness: routes::ops::Readiness::default(),
            modes: crate::prompt_mode::ModeSelector::new(config.tool_calling.clone()),
            pipe,
            config,
        }))
    }

    /// A client's `Authorization` is forwarded only when it was not one of plaincall's own
    /// access keys.
    pub fn forward_client_auth(&self) -> bool {
        self.config.server.access_keys.is_empty()
    }
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The router with its layers, outermost first: request id, tracing span (which carries the
/// id onto every log line of the request), id propagation to the response, metrics, and the
/// access-key check on `/v1`.
pub fn router(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .route("/v1/chat/completions", post(routes::chat::chat_completions))
        .route("/v1/{*rest}", any(routes::passthrough::passthrough))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::require_access_key,
        ));
    let ops = Router::new()
        .route("/healthz", get(routes::ops::healthz))
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

/// Serves until `shutdown` resolves, then stops accepting and gives in-flight requests and
/// streams up to `grace` to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<()> {
    let (signalled_tx, mut signalled_rx) = tokio::sync::watch::channel(false);
    let shutdown = async move {
        shutdown.await;
        tracing::info!(grace = ?grace, "shutting down: no new connections, draining in-flight requests");
        let _ = signalled_tx.send(true);
    };
    // Nagle would hold back small SSE chunks.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let server = axum::serve(listener, app.into_make_service()).with_graceful_shutdown(shutdown);
    let deadline = async move {
        while !*signalled_rx.borrow() {
            if signalled_rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        result = server => result,
        () = deadline => {
            tracing::warn!("grace period over with requests still in flight; exiting");
            Ok(())
        }
    }
}

/// Resolves on SIGTERM or SIGINT.
pub async fn shutdown_signal() {
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
