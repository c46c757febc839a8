//! Traces: OpenTelemetry spans in the GenAI semantic conventions (v1.41 names), exported over
//! OTLP/HTTP protobuf. Off unless an endpoint is set (`[telemetry] traces_endpoint` or the
//! standard `OTEL_EXPORTER_OTLP_*` variables); everything else comes from the standard
//! variables the SDK reads itself (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`,
//! `OTEL_BSP_*`, `OTEL_RESOURCE_ATTRIBUTES`).
//!
//! Only spans and events whose target is under [`TARGET`] are exported: what leaves the process
//! is chosen here, attribute by attribute, never whatever a log line happens to hold. Spans
//! under [`ONLY`] are left out of the logs. The spans themselves are made in [`spans`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::LazyLock;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use prometheus_client::metrics::counter::Counter;

use crate::config::TelemetryConfig;

mod export;
pub mod propagate;
pub mod spans;

/// The target of every span and event that is exported.
pub const TARGET: &str = "plaincall::trace";
/// The target of spans that are exported and left out of the logs.
pub const ONLY: &str = "plaincall::trace::only";

static ENABLED: AtomicBool = AtomicBool::new(false);
static CAPTURE: AtomicBool = AtomicBool::new(false);

/// Spans dropped because the export queue was full (the collector slow or gone).
pub static DROPPED: LazyLock<Counter> = LazyLock::new(Counter::default);
/// Batches the collector did not take (an error, a refusal, a timeout).
pub static EXPORT_FAILURES: LazyLock<Counter> = LazyLock::new(Counter::default);

/// Whether traces are exported: the spans below are made only then.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Whether message content (descriptions, translator replies, arguments) goes on spans.
pub fn capture_content() -> bool {
    CAPTURE.load(Ordering::Relaxed)
}

/// The exporter's transport: plaincall's own HTTP client, built where every client is
/// (`upstream.rs`), so the policy (no redirects, timeouts, TLS roots) is the same.
pub type Transport = Box<dyn opentelemetry_http::HttpClient>;

/// The running exporter: flushed and stopped by [`Tracing::shutdown`].
pub struct Tracing {
    provider: SdkTracerProvider,
}

impl Tracing {
    /// Exports what is queued (within the export timeout) and stops.
    pub fn shutdown(self) {
        ENABLED.store(false, Ordering::Relaxed);
        if let Err(error) = self.provider.shutdown() {
            tracing::warn!(%error, "the trace exporter did not shut down cleanly");
        }
    }
}

/// The exporter for `config`, and the `tracing` layer that feeds it; `None` when traces are
/// off. The batch queue (`OTEL_BSP_MAX_QUEUE_SIZE`, else 2048) bounds the spans waiting for
/// export: past it they are dropped and counted ([`DROPPED`]).
pub fn start<S>(
    config: &TelemetryConfig,
    transport: Transport,
) -> Result<Option<(Tracing, impl tracing_subscriber::Layer<S>)>, String>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    let Some(url) = &config.traces_url else {
        return Ok(None);
    };
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .with_http_client(export::SharedTransport::new(transport))
        .with_endpoint(url.as_str())
        .with_timeout(config.export_timeout)
        .build()
        .map_err(|e| format!("the OTLP exporter: {e}"))?;
    let queue = queue_size();
    let gate = export::Gate::new(queue);
    let batch = BatchSpanProcessor::builder(gate.exporter(exporter))
        .with_batch_config(
            BatchConfigBuilder::default()
                .with_max_queue_size(queue)
                .build(),
        )
        .build();
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(config.service_name.clone())
        .build();
    let provider = SdkTracerProvider::builder()
        .with_span_processor(gate.processor(batch))
        .with_resource(resource)
        .build();
    let tracer = provider.tracer("plaincall");
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_level(false)
        .with_tracked_inactivity(false)
        // Nothing here reads `Context::current()` (propagation reads the span's own context):
        // no OpenTelemetry context is pushed and popped on every poll of an instrumented future.
        .with_context_activation(false);
    ENABLED.store(true, Ordering::Relaxed);
    CAPTURE.store(config.capture_content, Ordering::Relaxed);
    Ok(Some((Tracing { provider }, layer)))
}

/// The batch queue's size: `OTEL_BSP_MAX_QUEUE_SIZE`, as the SDK reads it, else its default.
fn queue_size() -> usize {
    std::env::var("OTEL_BSP_MAX_QUEUE_SIZE")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(2048)
}

/// The human log format's fields, less those the server span carries only for its trace
/// (`otel.*`, `http.*`): a log line reads the same whether traces are on or off.
pub struct LogFields;

impl<'writer> tracing_subscriber::fmt::FormatFields<'writer> for LogFields {
    fn format_fields<R: tracing_subscriber::field::RecordFields>(
        &self,
        writer: tracing_subscriber::fmt::format::Writer<'writer>,
        fields: R,
    ) -> std::fmt::Result {
        use tracing_subscriber::field::VisitOutput;
        let mut visitor = Logged(tracing_subscriber::fmt::format::DefaultVisitor::new(
            writer, true,
        ));
        fields.record(&mut visitor);
        visitor.0.finish()
    }
}

struct Logged<V>(V);

fn logged(field: &tracing::field::Field) -> bool {
    let name = field.name();
    !(name.starts_with("otel.") || name.starts_with("http."))
}

impl<V: tracing::field::Visit> tracing::field::Visit for Logged<V> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if logged(field) {
            self.0.record_debug(field, value);
        }
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if logged(field) {
            self.0.record_str(field, value);
        }
    }

    fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
        if logged(field) {
            self.0.record_i64(field, value);
        }
    }

    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        if logged(field) {
            self.0.record_u64(field, value);
        }
    }

    fn record_bool(&mut self, field: &tracing::field::Field, value: bool) {
        if logged(field) {
            self.0.record_bool(field, value);
        }
    }

    fn record_error(
        &mut self,
        field: &tracing::field::Field,
        value: &(dyn std::error::Error + 'static),
    ) {
        if logged(field) {
            self.0.record_error(field, value);
        }
    }
}
