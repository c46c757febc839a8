//! Returning memory to the OS after load. glibc's malloc keeps what a burst of requests freed
//! in its arenas (RSS stayed several times the idle size after 500 concurrent streams);
//! `malloc_trim` gives it back. mimalloc was measured too and kept more (it purges a thread's
//! pages only when that thread allocates again). Large buffers are kept out of the arenas
//! altogether ([`keep_large_buffers_apart`]). Only with the `trim` feature (on by default) on
//! glibc Linux; elsewhere both do nothing.

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

/// Buffers from this size up get their own mapping, returned to the OS when freed.
#[cfg(all(feature = "trim", target_os = "linux", target_env = "gnu"))]
const LARGE_BUFFER: libc::c_int = 256 * 1024;

/// Fixes glibc's mmap threshold. Left to itself it rises to the largest buffer freed so far,
/// so after one large body every later body-sized buffer (a conversation's bytes, its parsed
/// copy, what goes upstream) is carved from an arena, and the arena keeps the peak: a 7.5 MiB
/// conversation with a rewritten tool on `/v1/messages` peaked at 4.7x its size in RSS where
/// its live heap was 3.3x; with the threshold fixed, 3.7x (docs/measurements.md).
#[cfg(all(feature = "trim", target_os = "linux", target_env = "gnu"))]
pub(crate) fn keep_large_buffers_apart() {
    // SAFETY: mallopt only sets one of glibc's own tuning values; it takes no pointers.
    let set = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BUFFER) };
    tracing::debug!(set = set == 1, "large buffers get their own mappings");
}

#[cfg(not(all(feature = "trim", target_os = "linux", target_env = "gnu")))]
pub(crate) fn keep_large_buffers_apart() {}

/// From this size up, a request's parsed trees are worth giving back at once.
const LARGE_TREE: usize = 4 * 1024 * 1024;

/// After a converted request's JSON trees (its `body_len` bytes as many small strings) are
/// dropped: their pages go back to the OS before the request's next copies are made, rather
/// than stay resident beside them. A rewritten 7.6 MiB `/v1/responses` request peaked at 4.6x
/// its size in RSS (3.3x in heap), 3.5x with this; the trim and the pages faulted in again
/// cost it 15-30 ms (docs/measurements.md), so only bodies of 4 MiB and more pay it.
pub(crate) fn after_large_tree(body_len: usize) {
    if body_len >= LARGE_TREE {
        trim();
    }
}
