//! W3C trace context in and out. A client's `traceparent` continues through plaincall when it
//! is well formed and within bounds; anything else starts a new trace, silently: a header a
//! client sends is never an error, a label or an attribute here. While traces are on,
//! upstream and translator requests carry plaincall's own span instead of the client's; off,
//! nothing is added (a forwarded request keeps the client's headers as they came).

use http::header::{HeaderMap, HeaderName};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use opentelemetry_http::{HeaderExtractor, HeaderInjector};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
const TRACESTATE: HeaderName = HeaderName::from_static("tracestate");
const BAGGAGE: HeaderName = HeaderName::from_static("baggage");

/// Version 00 is 55 bytes; later versions may append fields, within reason.
const MAX_TRACEPARENT: usize = 128;
/// W3C trace context: a propagator may discard a `tracestate` longer than 512 characters.
const MAX_TRACESTATE: usize = 512;
/// W3C baggage: at most 8192 bytes in all.
const MAX_BAGGAGE: usize = 8192;

/// The client's trace to continue, or `None` for a new one.
pub fn extract(headers: &HeaderMap) -> Option<Context> {
    let within = |name: &HeaderName, max: usize| {
        let mut values = headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (None, _) => true,
            (Some(value), None) => value.len() <= max,
            // Two of a header that may appear once: which one holds is anyone's guess.
            (Some(_), Some(_)) => *name == BAGGAGE,
        }
    };
    headers.get(&TRACEPARENT)?;
    if !within(&TRACEPARENT, MAX_TRACEPARENT)
        || !within(&TRACESTATE, MAX_TRACESTATE)
        || !within(&BAGGAGE, MAX_BAGGAGE)
        || headers
            .get_all(&BAGGAGE)
            .iter()
            .map(|v| v.len())
            .sum::<usize>()
            > MAX_BAGGAGE
    {
        return None;
    }
    if let Some(state) = headers.get(&TRACESTATE) {
        let parsed = state
            .to_str()
            .ok()
            .map(|s| s.parse::<opentelemetry::trace::TraceState>());
        if !matches!(parsed, Some(Ok(_))) {
            return None;
        }
    }
    let context = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    context.span().span_context().is_valid().then_some(context)
}

/// Makes the current span the parent of `headers`' request: the client's `traceparent` and
/// `tracestate` give way to plaincall's. Nothing changes while traces are off.
pub fn inject(headers: &mut HeaderMap) {
    if !super::enabled() {
        return;
    }
    let context = tracing::Span::current().context();
    if !context.span().span_context().is_valid() {
        return;
    }
    headers.remove(&TRACEPARENT);
    headers.remove(&TRACESTATE);
    TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(headers));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use http::HeaderValue;

    const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn trace_id(context: &Context) -> String {
        context.span().span_context().trace_id().to_string()
    }

    #[test]
    fn a_well_formed_traceparent_is_continued() {
        let context = extract(&headers(&[
            ("traceparent", PARENT),
            ("tracestate", "a=1,b=2"),
        ]));
        let context = context.expect("continued");
        assert_eq!(trace_id(&context), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert!(context.span().span_context().is_remote());
    }

    #[test]
    fn malformed_or_oversized_context_starts_a_new_trace() {
        let long_state = format!("a={}", "x".repeat(600));
        let long_baggage = format!("k={}", "v".repeat(9000));
        for case in [
            vec![("traceparent", "00-nothex-00f067aa0ba902b7-01")],
            vec![(
                "traceparent",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            )],
            vec![("traceparent", &*format!("{PARENT}-{}", "0".repeat(100)))],
            vec![("traceparent", PARENT), ("traceparent", PARENT)],
            vec![("traceparent", PARENT), ("tracestate", &*long_state)],
            vec![("traceparent", PARENT), ("tracestate", "not a list member")],
            vec![("traceparent", PARENT), ("baggage", &*long_baggage)],
        ] {
            assert!(extract(&headers(&case)).is_none(), "{case:?}");
        }
        assert!(extract(&HeaderMap::new()).is_none());
    }
}
