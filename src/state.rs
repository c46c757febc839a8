//! The state every request shares: the engine (configuration, clients, metrics, the pipe) and
//! what the serving layer adds. Built once at start-up; the router hands it to every handler.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::config::Config;
use crate::error::StartupError;
use crate::pipe::engine::Engine;

/// The engine, and what serving adds around it: readiness, the in-flight permits, the memory
/// budget for bodies read whole, and the Responses store. Reads as the [`Engine`] it holds.
pub struct AppState {
    pub engine: Arc<Engine>,
    pub readiness: Readiness,
    /// `server.max_in_flight` permits, one per `/v1` request until its response ends.
    pub in_flight: Arc<Semaphore>,
    /// The memory request bodies read whole may take at once.
    pub budget: crate::budget::MemoryBudget,
    /// Conversations of stored `/v1/responses` replies, for `previous_response_id`.
    pub responses: crate::wire::responses::Store,
}

impl std::ops::Deref for AppState {
    type Target = Engine;

    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl AppState {
    pub fn new(config: Config) -> Result<Arc<AppState>, StartupError> {
        let engine = Engine::new(config)?;
        Ok(Arc::new(AppState {
            readiness: Readiness::default(),
            responses: crate::wire::responses::Store::default().shared_by(engine.shared.clone()),
            budget: crate::budget::MemoryBudget::new(engine.config.server.max_buffered_bytes),
            in_flight: Arc::new(Semaphore::new(
                engine
                    .config
                    .server
                    .max_in_flight
                    .clamp(1, Semaphore::MAX_PERMITS),
            )),
            engine: Arc::new(engine),
        }))
    }
}

/// What `/readyz` last found, and when: shared, so that a burst of probes makes one upstream
/// request.
#[derive(Default)]
pub struct Readiness {
    pub(crate) last: tokio::sync::Mutex<Option<(std::time::Instant, Probed)>>,
}

#[derive(Clone)]
pub(crate) struct Probed {
    pub(crate) upstream: Result<(), String>,
    /// `None` without Redis.
    pub(crate) shared: Option<Result<(), String>>,
}
