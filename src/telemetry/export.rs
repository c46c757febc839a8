//! The export path's bounds: a gate in front of the SDK's batch processor that admits at most
//! the queue's size of spans not yet exported, so that a span past it is dropped here and
//! counted ([`super::DROPPED`]) rather than inside the processor, where no count is public.
//! Requests never wait: admission is one atomic add.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use opentelemetry::Context;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanExporter, SpanProcessor};
use opentelemetry_sdk::Resource;

use super::{Transport, DROPPED, EXPORT_FAILURES};

/// Spans admitted and not yet through an export (queued, or in the batch being sent).
#[derive(Debug, Clone)]
pub(super) struct Gate {
    pending: Arc<AtomicUsize>,
    limit: usize,
}

impl Gate {
    pub(super) fn new(limit: usize) -> Gate {
        Gate {
            pending: Arc::new(AtomicUsize::new(0)),
            limit,
        }
    }

    pub(super) fn processor<P: SpanProcessor>(&self, inner: P) -> Gated<P> {
        Gated {
            gate: self.clone(),
            inner,
        }
    }

    pub(super) fn exporter<E: SpanExporter>(&self, inner: E) -> Counted<E> {
        Counted {
            gate: self.clone(),
            inner,
            failing: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn admit(&self) -> bool {
        if self.pending.fetch_add(1, Ordering::AcqRel) < self.limit {
            return true;
        }
        self.pending.fetch_sub(1, Ordering::AcqRel);
        false
    }

    fn done(&self, spans: usize) {
        self.pending.fetch_sub(spans, Ordering::AcqRel);
    }
}

/// The batch processor behind the gate.
#[derive(Debug)]
pub(super) struct Gated<P> {
    gate: Gate,
    inner: P,
}

impl<P: SpanProcessor> SpanProcessor for Gated<P> {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        if !span.span_context.is_sampled() {
            return;
        }
        if self.gate.admit() {
            self.inner.on_end(span);
        } else {
            DROPPED.inc();
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The OTLP exporter, releasing the gate as its batches finish, sent or not.
#[derive(Debug)]
pub(super) struct Counted<E> {
    gate: Gate,
    inner: E,
    failing: std::sync::atomic::AtomicBool,
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let result = self.inner.export(batch).await;
        self.gate.done(spans);
        // Said once when exports start failing and once when they recover, not per batch; the
        // exporter's errors carry a status or a cause, never the collector's body.
        match &result {
            Err(error) => {
                EXPORT_FAILURES.inc();
                if !self.failing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(%error, "exporting spans failed; spans are dropped until the collector answers (plaincall_trace_export_failures_total counts the batches)");
                }
            }
            Ok(()) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    tracing::info!("exporting spans works again");
                }
            }
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// [`Transport`] as the exporter takes it.
#[derive(Debug)]
pub(super) struct SharedTransport(Transport);

impl SharedTransport {
    pub(super) fn new(transport: Transport) -> SharedTransport {
        SharedTransport(transport)
    }
}

#[async_trait::async_trait]
impl HttpClient for SharedTransport {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        self.0.send_bytes(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_admits_up_to_its_limit_and_reopens_as_batches_finish() {
        let gate = Gate::new(2);
        assert!(gate.admit());
        assert!(gate.admit());
        assert!(!gate.admit(), "a third pending span is over the limit");
        gate.done(1);
        assert!(gate.admit(), "a finished export makes room");
        assert!(!gate.admit());
    }
}
