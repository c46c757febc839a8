//! The state every request shares: configuration, the upstream client, metrics, the pipe,
//! and the shutdown signal. Built once at start-up; the router hands it to every handler.

use std::sync::Arc;

use tokio::sync::{watch, Semaphore};

use crate::config::Config;
use crate::error::ProxyError;
use crate::metrics::Metrics;
use crate::pipe::Pipe;
use crate::routes;
use crate::shared::Shared;
use crate::upstream::UpstreamClient;

/// Why plaincall cannot start, said in full: the operator reads it once, and acts on it.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("the prompt templates ({dir}) cannot be used: {source}")]
    Prompts {
        dir: String,
        source: crate::prompts::PromptError,
    },
    /// An HTTP client could not be built (the TLS roots, say).
    #[error("{0}")]
    Client(String),
}

impl From<ProxyError> for StartupError {
    fn from(error: ProxyError) -> Self {
        StartupError::Client(error.detail())
    }
}

pub struct AppState {
    pub config: Config,
    pub upstream: UpstreamClient,
    pub metrics: Metrics,
    pub readiness: routes::ops::Readiness,
    pub pipe: Pipe,
    pub modes: crate::prompt_mode::ModeSelector,
    pub drain: Drain,
    /// `server.max_in_flight` permits, one per `/v1` request until its response ends.
    pub in_flight: Arc<Semaphore>,
    /// The configured keys, scrubbed from upstream error bodies before they are passed on.
    pub secrets: crate::redact::Secrets,
    /// The memory request bodies read whole may take at once.
    pub budget: crate::budget::MemoryBudget,
    /// Conversations of stored `/v1/responses` replies, for `previous_response_id`.
    pub responses: crate::wire::responses::Store,
    /// Redis, when configured: what replicas share.
    pub shared: Shared,
}

impl AppState {
    pub fn new(config: Config) -> Result<Arc<AppState>, StartupError> {
        let upstream = UpstreamClient::new(
            config.upstream.base_url.clone(),
            config.upstream.api_key.clone(),
            config.upstream.connect_timeout,
            config.upstream.read_timeout,
            config.upstream.timeout,
        )?;
        let metrics = Metrics::with_configured(config.translation.tools.keys().cloned().collect());
        let shared = Shared::new(
            &config.redis,
            crate::shared::Meters {
                ops: metrics.shared_state.clone(),
                up: metrics.shared_state_up.clone(),
            },
        )
        .map_err(|e| StartupError::Client(e.0))?;
        let pipe = Pipe::new(&config, upstream.clone(), shared.clone())?;
        Ok(Arc::new(AppState {
            upstream,
            metrics,
            readiness: routes::ops::Readiness::default(),
            modes: crate::prompt_mode::ModeSelector::new(config.tool_calling.clone())
                .shared_by(shared.clone()),
            pipe,
            drain: Drain::default(),
            secrets: crate::redact::configured(&config),
            responses: crate::wire::responses::Store::default().shared_by(shared.clone()),
            shared,
            budget: crate::budget::MemoryBudget::new(config.server.max_buffered_bytes),
            in_flight: Arc::new(Semaphore::new(
                config.server.max_in_flight.clamp(1, Semaphore::MAX_PERMITS),
            )),
            config,
        }))
    }

    /// A client's `Authorization` is forwarded only when it was not one of plaincall's own
    /// access keys.
    pub fn forward_client_auth(&self) -> bool {
        self.config.server.access_keys.is_empty()
    }
}

/// Tells requests that shutdown began (request bodies still arriving are refused) and open
/// event streams that the grace period ran out.
#[derive(Clone)]
pub struct Drain(Arc<watch::Sender<u8>>);

const SERVING: u8 = 0;
const DRAINING: u8 = 1;
const EXPIRED: u8 = 2;

impl Default for Drain {
    fn default() -> Self {
        Drain(Arc::new(watch::channel(SERVING).0))
    }
}

impl Drain {
    /// Resolves once shutdown has begun.
    pub async fn began(&self) {
        self.reached(DRAINING).await;
    }

    /// Resolves once the grace period has run out.
    pub async fn expired(&self) {
        self.reached(EXPIRED).await;
    }

    async fn reached(&self, phase: u8) {
        let mut now = self.0.subscribe();
        if now.wait_for(|p| *p >= phase).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// Shutdown began: bodies still arriving are refused.
    pub(crate) fn begin(&self) {
        self.0.send_replace(DRAINING);
    }

    /// The grace period ran out: open streams end with an `error` event.
    pub(crate) fn expire(&self) {
        self.0.send_replace(EXPIRED);
    }
}
