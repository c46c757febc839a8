//! The state every request shares: the engine (configuration, clients, metrics, the pipe) and
//! what the serving layer adds. Built once at start-up; the router hands it to every handler.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::config::Config;
use crate::error::StartupError;
use crate::pipe::engine::Engine;

/// The engine, and what serving adds around it: readiness, the in-flight permits, the memory
/// budget for bodies read whole, and the Responses store. Reads as the `Engine` it holds.
pub struct AppState {
    pub engine: Arc<Engine>,
    pub readiness: Readiness,
    /// `server.max_in_flight` permits, one per `/v1` request until its response ends.
    pub in_flight: Arc<Semaphore>,
    /// The memory request bodies read whole may take at once.
    pub budget: crate::budget::MemoryBudget,
    /// Conversations of stored `/v1/responses` replies, for `previous_response_id`.
    pub responses: crate::wire::responses::Store,
    /// Formats `upstream.formats` names that the upstream turned out not to serve.
    pub unserved: Unserved,
}

/// The wire formats the upstream turned out not to serve (a 404 on its own route to a
/// client's request, or a 404 or 405 to the start-up probe), each for [`UNSERVED_FOR`], after
/// which its route is tried again (the upstream may have been upgraded). Bounded: one slot per
/// format of the one upstream.
#[derive(Default)]
pub struct Unserved([std::sync::atomic::AtomicU64; 3]);

/// How long a format stays converted after the upstream's 404 on its own route.
const UNSERVED_FOR: std::time::Duration = std::time::Duration::from_secs(600);

fn slot(format: crate::config::WireFormat) -> usize {
    match format {
        crate::config::WireFormat::Chat => 0,
        crate::config::WireFormat::Responses => 1,
        crate::config::WireFormat::Messages => 2,
    }
}

impl Unserved {
    pub fn learn(&self, format: crate::config::WireFormat) {
        let until = crate::shared::now_ms().saturating_add(UNSERVED_FOR.as_millis() as u64);
        self.0[slot(format)].store(until, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn holds(&self, format: crate::config::WireFormat) -> bool {
        self.0[slot(format)].load(std::sync::atomic::Ordering::Relaxed) > crate::shared::now_ms()
    }
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
            unserved: Unserved::default(),
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
