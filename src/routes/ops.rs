//! Operations endpoints: liveness, readiness (upstream reachable, cached), metrics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

pub async fn healthz() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        r#"{"status":"ok"}"#,
    )
        .into_response()
}

/// The last upstream probe, shared so that a burst of probes makes one upstream request.
#[derive(Default)]
pub struct Readiness {
    last: tokio::sync::Mutex<Option<(Instant, Result<(), String>)>>,
}

const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

pub async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let mut last = state.readiness.last.lock().await;
    let fresh = last
        .as_ref()
        .is_some_and(|(at, _)| at.elapsed() < state.config.server.readiness_cache);
    if !fresh {
        *last = Some((Instant::now(), probe(&state).await));
    }
    let result = last.as_ref().map(|(_, r)| r.clone()).unwrap_or(Ok(()));
    drop(last);
    let (status, body) = match result {
        Ok(()) => (
            StatusCode::OK,
            serde_json::json!({"status": "ready", "upstream": "reachable"}),
        ),
        Err(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"status": "not_ready", "upstream": reason}),
        ),
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Any HTTP answer below 500 from `GET {upstream}/models` means the upstream is there.
async fn probe(state: &AppState) -> Result<(), String> {
    let url = state
        .upstream
        .endpoint("models", None)
        .map_err(|e| e.to_string())?;
    let request = state
        .upstream
        .request(Method::GET, url, &HeaderMap::new(), false)
        .timeout(PROBE_TIMEOUT);
    match state.upstream.send(request).await {
        Ok(response) if response.status().is_server_error() => {
            Err(format!("upstream answered {}", response.status().as_u16()))
        }
        Ok(_) => Ok(()),
        Err(error) => Err(error.to_string()),
    }
}

pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.render(),
    )
        .into_response()
}
