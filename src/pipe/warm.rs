//! Translator prompts read ahead. While the main model writes its answer, the translator is
//! sent each rewritten tool's prompt (its instructions, the tool and its schema: everything
//! but the description) with `max_tokens: 1`, so that a server that caches prompt prefixes
//! (llama-server, vLLM) has read it by the time a call to that tool is translated: on a CPU the
//! read is most of a cold translation. A prompt warmed or translated in the last
//! [`WARM_FOR`] is not sent again. Once the main model's turn ends, the warm-ups of tools it
//! did not call are cancelled, and whatever is left when the request ends.
//!
//! One warm-up is sent at a time, process-wide: a server with one slot reads one prompt at a
//! time anyway, and a queue of them at the server would hold a translation up behind prompts
//! nobody asked for, while here a warm-up still waiting is dropped without a trace. Measured
//! on a 2-core CPU with four rewritten tools, four at once starved the main model.
//!
//! Only a configured translator backend is warmed: when the upstream translates for itself,
//! a warm-up would queue before the main model's own request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::AbortHandle;
use tracing::Instrument;

use super::NlTool;
use crate::pipe::engine::Engine;

/// How long a prompt counts as read: a server's prompt cache keeps it a while, and reading
/// it again when it is still there costs the server one token.
const WARM_FOR: Duration = Duration::from_secs(300);
/// The most prompts remembered as read.
const REMEMBERED: u64 = 4096;

/// The prompts read recently, by hash of the backend and what the prompt is made of, and the
/// one warm-up allowed out at a time.
pub(crate) struct Warmed {
    read: moka::sync::Cache<u64, ()>,
    one_at_a_time: tokio::sync::Semaphore,
}

impl Default for Warmed {
    fn default() -> Warmed {
        Warmed {
            read: moka::sync::Cache::builder()
                .max_capacity(REMEMBERED)
                .time_to_live(WARM_FOR)
                .build(),
            one_at_a_time: tokio::sync::Semaphore::new(1),
        }
    }
}

impl Warmed {
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.read.contains_key(&key)
    }

    pub(crate) fn mark(&self, key: u64) {
        self.read.insert(key, ());
    }

    /// Waits for the turn to send a warm-up (fair: in the order asked).
    pub(crate) async fn turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.one_at_a_time.acquire().await.ok()
    }
}

/// One request's warm-ups, by tool; dropped with the request, which cancels what still runs.
#[derive(Default)]
pub(crate) struct Warming(Mutex<HashMap<String, AbortHandle>>);

impl Warming {
    /// Sends ahead the prompt of every tool in `tools` not read recently (none, when
    /// `translation.warm_prefixes` is off or no translator backend is configured).
    pub(crate) fn start<'a>(
        engine: &Arc<Engine>,
        tools: impl Iterator<Item = &'a Arc<NlTool>>,
    ) -> Warming {
        let mut started = HashMap::new();
        if !engine.pipe.settings().warm_prefixes || !engine.pipe.translator.has_backend() {
            return Warming::default();
        }
        for tool in tools.filter(|t| t.rewritten) {
            let key = engine.pipe.warm_key(tool);
            if engine.pipe.warmed.contains(key) {
                continue;
            }
            let (engine, tool_name, tool) = (engine.clone(), tool.name.clone(), tool.clone());
            let task = tokio::spawn(
                async move { engine.pipe.warm_up(&tool, key).await }.in_current_span(),
            );
            started.insert(tool_name, task.abort_handle());
        }
        Warming(Mutex::new(started))
    }

    /// Cancels the warm-ups of tools not in `called`.
    pub(crate) fn keep_only<'a>(&self, called: impl Iterator<Item = &'a str>) {
        let called: Vec<&str> = called.collect();
        if let Ok(mut tasks) = self.0.lock() {
            tasks.retain(|tool, task| {
                let keep = called.contains(&tool.as_str());
                if !keep {
                    task.abort();
                }
                keep
            });
        }
    }
}

impl Drop for Warming {
    fn drop(&mut self) {
        if let Ok(tasks) = self.0.lock() {
            for task in tasks.values() {
                task.abort();
            }
        }
    }
}
