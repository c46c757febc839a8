//! The shutdown signal: requests learn that shutdown began (bodies still arriving are refused)
//! and open event streams that the grace period ran out.

use std::sync::Arc;

use tokio::sync::watch;

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
