//! The memory request bodies may take at once (`server.max_buffered_bytes`). Every body that
//! plaincall reads whole is charged as it arrives, at [`BODY_COST`] times its size (the bytes,
//! the parsed request, what goes upstream), and the charge is held until the response has
//! ended; a request that would pass the budget waits up to [`WAIT`] for memory to come back,
//! then is refused with 503 rather than let the process grow until the OOM killer picks it.

use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ProxyError;

/// What one byte of a body read whole is charged as.
pub(crate) const BODY_COST: u64 = 4;
/// How long a body waits for memory other requests give back before it is refused.
pub(crate) const WAIT: std::time::Duration = std::time::Duration::from_secs(5);
/// The semaphore counts in these units, so that a large budget fits its permits.
const UNIT: u64 = 1024;

#[derive(Clone)]
pub struct MemoryBudget {
    permits: Arc<Semaphore>,
    limit: u64,
}

/// One request's charge; released when the last clone (the response body's) is dropped.
#[derive(Clone, Default)]
pub struct Charge(Arc<Mutex<Held>>);

#[derive(Default)]
struct Held {
    permit: Option<OwnedSemaphorePermit>,
    units: u64,
}

impl Charge {
    /// The units still to acquire for `bytes` in all, if any.
    fn missing(&self, bytes: u64) -> Option<u32> {
        let wanted = units_for(bytes);
        let held = self.0.lock().ok()?;
        (wanted > held.units).then(|| u32::try_from(wanted - held.units).unwrap_or(u32::MAX))
    }

    fn add(&self, permit: OwnedSemaphorePermit, bytes: u64) {
        if let Ok(mut held) = self.0.lock() {
            held.units += permit.num_permits() as u64;
            match held.permit.as_mut() {
                Some(existing) => existing.merge(permit),
                None => held.permit = Some(permit),
            }
            debug_assert!(held.units >= units_for(bytes));
        }
    }
}

fn units_for(bytes: u64) -> u64 {
    bytes.saturating_mul(BODY_COST).div_ceil(UNIT)
}

impl MemoryBudget {
    pub fn new(limit: u64) -> MemoryBudget {
        let units = usize::try_from(limit / UNIT)
            .unwrap_or(Semaphore::MAX_PERMITS)
            .clamp(1, Semaphore::MAX_PERMITS);
        MemoryBudget {
            permits: Arc::new(Semaphore::new(units)),
            limit,
        }
    }

    /// Raises `charge` to cover `bytes` of body in all (not in addition to what it holds), at
    /// once or not at all.
    pub fn try_cover(&self, charge: &Charge, bytes: u64) -> Result<(), ProxyError> {
        let Some(more) = charge.missing(bytes) else {
            return Ok(());
        };
        let permit = self
            .permits
            .clone()
            .try_acquire_many_owned(more)
            .map_err(|_| ProxyError::MemoryBudget(self.limit))?;
        charge.add(permit, bytes);
        Ok(())
    }

    /// As [`MemoryBudget::try_cover`], but waits up to `wait` for other requests to give
    /// memory back: a burst is served a little later rather than refused.
    pub async fn cover(
        &self,
        charge: &Charge,
        bytes: u64,
        wait: std::time::Duration,
    ) -> Result<(), ProxyError> {
        let Some(more) = charge.missing(bytes) else {
            return Ok(());
        };
        let acquire = self.permits.clone().acquire_many_owned(more);
        match tokio::time::timeout(wait, acquire).await {
            Ok(Ok(permit)) => {
                charge.add(permit, bytes);
                Ok(())
            }
            _ => Err(ProxyError::MemoryBudget(self.limit)),
        }
    }

    /// Bytes of budget taken now.
    pub fn taken(&self) -> u64 {
        let free = self.permits.available_permits() as u64;
        (self.limit / UNIT).saturating_sub(free) * UNIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_grow_to_the_limit_and_are_released_with_the_last_clone() {
        let budget = MemoryBudget::new(64 * 1024);
        let first = Charge::default();
        assert!(budget.try_cover(&first, 4 * 1024).is_ok());
        assert!(budget.try_cover(&first, 8 * 1024).is_ok());
        assert_eq!(budget.taken(), 32 * 1024);
        let second = Charge::default();
        let refused = budget.try_cover(&second, 9 * 1024);
        assert!(matches!(refused, Err(ProxyError::MemoryBudget(_))));
        assert!(budget.try_cover(&second, 8 * 1024).is_ok());
        let held = first.clone();
        drop(first);
        assert_eq!(budget.taken(), 64 * 1024);
        drop(held);
        assert_eq!(budget.taken(), 32 * 1024);
    }
}

#[cfg(test)]
mod waiting {
    use super::*;
    use std::time::Duration;

    /// On a paused clock: the wait is watched, not slept through.
    #[tokio::test(start_paused = true)]
    async fn a_request_waits_for_memory_given_back_then_is_refused_past_the_wait() {
        let budget = MemoryBudget::new(16 * 1024);
        let held = Charge::default();
        assert!(budget.try_cover(&held, 4 * 1024).is_ok());
        let waiting = Charge::default();
        let later = {
            let budget = budget.clone();
            let waiting = waiting.clone();
            tokio::spawn(async move {
                budget
                    .cover(&waiting, 4 * 1024, Duration::from_secs(5))
                    .await
            })
        };
        // Four of its five seconds pass: it is still waiting (refused, it would have ended).
        tokio::task::yield_now().await;
        tokio::time::advance(Duration::from_secs(4)).await;
        assert!(!later.is_finished());
        drop(held);
        assert!(matches!(later.await, Ok(Ok(()))));
        // Nothing comes back: refused when the wait runs out, not before.
        let started = tokio::time::Instant::now();
        let refused = budget
            .cover(&Charge::default(), 1024, Duration::from_millis(200))
            .await;
        assert!(matches!(refused, Err(ProxyError::MemoryBudget(_))));
        assert_eq!(started.elapsed(), Duration::from_millis(200));
    }
}
