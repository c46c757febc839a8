//! Operations endpoints: liveness, readiness (upstream reachable, Redis's state, cached),
//! metrics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::state::{AppState, Probed};

pub(crate) async fn healthz() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        r#"{"status":"ok"}"#,
    )
        .into_response()
}

const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

pub(crate) async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let mut last = state.readiness.last.lock().await;
    let fresh = last
        .as_ref()
        .is_some_and(|(at, _)| at.elapsed() < state.config.server.readiness_cache);
    if !fresh {
        let (upstream, shared) = tokio::join!(probe(&state), state.shared.check());
        *last = Some((Instant::now(), Probed { upstream, shared }));
    }
    let probed = last.as_ref().map(|(_, p)| p.clone());
    drop(last);
    let Some(probed) = probed else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let (status, mut body) = match probed.upstream {
        Ok(()) => (
            StatusCode::OK,
            serde_json::json!({"status": "ready", "upstream": "reachable"}),
        ),
        Err(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"status": "not_ready", "upstream": reason}),
        ),
    };
    // Redis away degrades a replica, it does not take it out: requests that need no stored
    // state are served as before, so the replica stays ready and says what it lacks.
    body["shared_state"] = match probed.shared {
        None => serde_json::json!("process"),
        Some(Ok(())) => serde_json::json!("redis"),
        Some(Err(reason)) => serde_json::json!(format!("degraded: {reason}")),
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Any HTTP answer below 500 from `GET {upstream}/models`, but a redirect, means the upstream
/// is there.
async fn probe(state: &AppState) -> Result<(), String> {
    let url = state
        .upstream
        .endpoint("models", None)
        .map_err(|e| e.to_string())?;
    let request = state
        .upstream
        .request(Method::GET, url, &HeaderMap::new(), false);
    match tokio::time::timeout(PROBE_TIMEOUT, state.upstream.send(request)).await {
        Err(_) => Err(format!(
            "upstream did not answer within {}",
            humantime::format_duration(PROBE_TIMEOUT)
        )),
        Ok(Ok(response)) if response.status().is_server_error() => {
            Err(format!("upstream answered {}", response.status().as_u16()))
        }
        Ok(Ok(_)) => Ok(()),
        Ok(Err(error)) => Err(error.to_string()),
    }
}

pub(crate) async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.render(),
    )
        .into_response()
}
