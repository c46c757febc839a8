//! State that replicas share through Redis (`[redis] url`): stored Responses conversations,
//! translations, the models learned to need prompt mode, and the descriptions calls were
//! translated from. Each use keeps its in-process cache and looks there first; Redis is the
//! second place, never the only one.
//!
//! Redis is never a single point of failure: every command has a timeout, a failure leaves
//! Redis alone for `retry_after` (calls go on at once, as if it held nothing), and sharing
//! resumes by itself on the first command that succeeds after that. Readiness and the metrics
//! say when it is degraded.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use crate::config::RedisConfig;
use crate::metrics::SharedOp;

/// The kinds of shared state, each under its own key space.
#[derive(Debug, Clone, Copy)]
pub enum Space {
    /// `resp:<response id>`: an owner hash, then a stored conversation.
    Conversation,
    /// `tr:<hash of everything a translation depends on>`.
    Translation,
    /// `mode:<hash of a model name>`: the upstream rejected that model's native tools.
    Mode,
    /// `desc:<hash of a tool and its arguments>`: the description they were translated from.
    Description,
}

impl Space {
    fn tag(self) -> &'static str {
        match self {
            Space::Conversation => "resp",
            Space::Translation => "tr",
            Space::Mode => "mode",
            Space::Description => "desc",
        }
    }
}

/// Redis could not be asked, or did not answer in time.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the shared state (Redis) is unavailable: {0}")]
pub struct Unavailable(pub String);

/// Milliseconds since the Unix epoch: what a deadline shared across tasks (or kept in an
/// atomic) is stored as.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The shared state, or none: a clone is a handle to the same connection.
#[derive(Clone, Default)]
pub struct Shared(Option<Arc<Redis>>);

pub(crate) struct Redis {
    client: redis::Client,
    shown: String,
    manager: tokio::sync::OnceCell<ConnectionManager>,
    prefix: String,
    timeout: Duration,
    connect_timeout: Duration,
    retry_after: Duration,
    max_value_bytes: u64,
    /// Until when Redis is left alone after a failure, and why it failed.
    down: Mutex<Option<(Instant, String)>>,
    degraded: AtomicBool,
    ops: Family<SharedOp, Counter>,
    up: Gauge,
}

/// What the metrics count Redis with: commands by kind and outcome, and whether it is up.
pub struct Meters {
    pub ops: Family<SharedOp, Counter>,
    pub up: Gauge,
}

impl Shared {
    /// No Redis configured: each process keeps its own state.
    pub fn none() -> Shared {
        Shared(None)
    }

    /// A handle on the configured Redis; nothing is connected until first used, so that
    /// plaincall starts (and serves) while Redis is away.
    pub fn new(config: &RedisConfig, meters: Meters) -> Result<Shared, Unavailable> {
        let Some(url) = &config.url else {
            return Ok(Shared(None));
        };
        let client = redis::Client::open(url.expose())
            .map_err(|e| Unavailable(format!("redis.url `{}`: {e}", config.shown)))?;
        Ok(Shared(Some(Arc::new(Redis {
            client,
            shown: config.shown.clone(),
            manager: tokio::sync::OnceCell::new(),
            prefix: config.prefix.clone(),
            timeout: config.timeout,
            connect_timeout: config.connect_timeout,
            retry_after: config.retry_after,
            max_value_bytes: config.max_value_bytes,
            down: Mutex::new(None),
            degraded: AtomicBool::new(false),
            ops: meters.ops,
            up: meters.up,
        }))))
    }

    pub fn is_enabled(&self) -> bool {
        self.0.is_some()
    }

    /// The value under `key`, `None` when there is none (or no Redis).
    pub async fn get(&self, space: Space, key: &str) -> Result<Option<Vec<u8>>, Unavailable> {
        let Some(redis) = &self.0 else {
            return Ok(None);
        };
        let mut command = redis::cmd("GET");
        command.arg(redis.key(space, key));
        let value: Option<Vec<u8>> = redis.run("get", command).await?;
        redis.count("get", if value.is_some() { "hit" } else { "miss" });
        Ok(value)
    }

    /// The values under `keys`, in order.
    pub async fn get_many(
        &self,
        space: Space,
        keys: &[String],
    ) -> Result<Vec<Option<Vec<u8>>>, Unavailable> {
        let Some(redis) = self.0.as_ref().filter(|_| !keys.is_empty()) else {
            return Ok(vec![None; keys.len()]);
        };
        let mut command = redis::cmd("MGET");
        for key in keys {
            command.arg(redis.key(space, key));
        }
        let values: Vec<Option<Vec<u8>>> = redis.run("get", command).await?;
        for value in &values {
            redis.count("get", if value.is_some() { "hit" } else { "miss" });
        }
        Ok(values)
    }

    /// Stores `value` under `key` for `ttl`. A value larger than `redis.max_value_bytes` is
    /// not sent: it stays in the process that made it.
    pub async fn put(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Duration,
    ) -> Result<(), Unavailable> {
        let Some(redis) = &self.0 else {
            return Ok(());
        };
        if value.len() as u64 > redis.max_value_bytes {
            redis.count("set", "too_large");
            tracing::debug!(
                space = space.tag(),
                bytes = value.len(),
                "a value above redis.max_value_bytes is kept in this process only"
            );
            return Ok(());
        }
        let mut command = redis::cmd("SET");
        command
            .arg(redis.key(space, key))
            .arg(value)
            .arg("PX")
            .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1));
        redis.run::<()>("set", command).await?;
        redis.count("set", "ok");
        Ok(())
    }

    /// Writes in the background; a failure is counted and logged, never the caller's.
    pub fn put_later(
        &self,
        space: Space,
        key: String,
        value: bytes::Bytes,
        ttl: Duration,
    ) -> Option<tokio::task::JoinHandle<()>> {
        self.0.as_ref()?;
        let shared = self.clone();
        Some(tokio::spawn(async move {
            // Counted and logged where it failed.
            let _ = shared.put(space, &key, &value, ttl).await;
        }))
    }

    /// For readiness: `None` without Redis, else whether it answers a `PING` now.
    pub async fn check(&self) -> Option<Result<(), String>> {
        let redis = self.0.as_ref()?;
        Some(
            redis
                .run::<String>("ping", redis::cmd("PING"))
                .await
                .map(drop)
                .map_err(|e| e.0),
        )
    }

    /// The URL as logs show it (no password), when Redis is configured.
    pub fn shown(&self) -> Option<&str> {
        self.0.as_ref().map(|r| r.shown.as_str())
    }
}

/// A stable key for any text a client chooses (a model name, arguments): its SHA-256 in hex,
/// so that a key's length never depends on the client.
pub(crate) fn hashed(parts: &[&str]) -> String {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(&(part.len() as u64).to_le_bytes());
        context.update(part.as_bytes());
    }
    context
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Redis {
    fn key(&self, space: Space, key: &str) -> String {
        format!("{}{}:{key}", self.prefix, space.tag())
    }

    fn count(&self, op: &str, outcome: &str) {
        self.ops
            .get_or_create(&SharedOp {
                op: op.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    /// Runs one command within `timeout`, unless Redis failed less than `retry_after` ago.
    async fn run<T: redis::FromRedisValue>(
        &self,
        op: &str,
        command: redis::Cmd,
    ) -> Result<T, Unavailable> {
        if let Some(reason) = self.resting() {
            self.count(op, "skipped");
            return Err(Unavailable(reason));
        }
        let result = tokio::time::timeout(self.timeout + self.connect_timeout, async {
            let manager = self
                .manager
                .get_or_try_init(|| async {
                    let config = ConnectionManagerConfig::new()
                        .set_connection_timeout(Some(self.connect_timeout))
                        .set_response_timeout(Some(self.timeout))
                        .set_number_of_retries(1)
                        .set_max_delay(self.retry_after);
                    self.client.get_connection_manager_with_config(config).await
                })
                .await
                .map_err(|e| e.to_string())?;
            let mut connection = manager.clone();
            command
                .query_async::<T>(&mut connection)
                .await
                .map_err(|e| e.to_string())
        })
        .await;
        let result = match result {
            Ok(result) => result,
            Err(_) => Err(format!(
                "no answer within {:?}",
                self.timeout + self.connect_timeout
            )),
        };
        match result {
            Ok(value) => {
                self.recovered();
                Ok(value)
            }
            Err(reason) => {
                self.count(op, "error");
                self.failed(&reason);
                Err(Unavailable(reason))
            }
        }
    }

    fn resting(&self) -> Option<String> {
        let down = self.down.lock().ok()?;
        let (until, reason) = down.as_ref()?;
        (Instant::now() < *until).then(|| reason.clone())
    }

    fn failed(&self, reason: &str) {
        if let Ok(mut down) = self.down.lock() {
            *down = Some((Instant::now() + self.retry_after, reason.to_owned()));
        }
        self.up.set(0);
        if !self.degraded.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                redis = %self.shown, reason,
                "shared state unavailable: requests go on without it (stored conversations of other replicas cannot be continued)"
            );
        }
    }

    fn recovered(&self) {
        self.up.set(1);
        if self.degraded.swap(false, Ordering::Relaxed) {
            if let Ok(mut down) = self.down.lock() {
                *down = None;
            }
            tracing::info!(redis = %self.shown, "shared state available again");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_keys_have_one_length_and_keep_parts_apart() {
        assert_eq!(hashed(&["a"]).len(), 64);
        assert_eq!(hashed(&[&"x".repeat(100_000)]).len(), 64);
        assert_ne!(hashed(&["ab", "c"]), hashed(&["a", "bc"]));
        assert_eq!(hashed(&["a", "b"]), hashed(&["a", "b"]));
    }
}
