//! Returning memory to the OS after load. glibc's malloc keeps what a burst of requests freed
//! in its arenas (RSS stayed several times the idle size after 500 concurrent streams);
//! `malloc_trim` gives it back. mimalloc was measured too and kept more (it purges a thread's
//! pages only when that thread allocates again). Only with the `trim` feature (on by default)
//! on glibc Linux; elsewhere the trim does nothing.

use std::time::Duration;

use prometheus_client::metrics::gauge::Gauge;

/// How often the in-flight gauge is looked at.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Trims the heap each time the process becomes idle (no request in flight) after having
/// served requests. Runs for the life of the process.
pub(crate) async fn trim_when_idle(in_flight: Gauge) {
    let mut ticker = tokio::time::interval(CHECK_EVERY);
    let mut busy_since_trim = false;
    loop {
        ticker.tick().await;
        if in_flight.get() > 0 {
            busy_since_trim = true;
        } else if busy_since_trim {
            busy_since_trim = false;
            trim();
        }
    }
}

#[cfg(all(feature = "trim", target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim only walks and shrinks glibc's own heap; it takes no pointers.
    let released = unsafe { libc::malloc_trim(0) };
    tracing::debug!(released = released == 1, "returned freed memory to the OS");
}

#[cfg(not(all(feature = "trim", target_os = "linux", target_env = "gnu")))]
fn trim() {}
