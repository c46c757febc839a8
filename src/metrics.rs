//! Prometheus metrics. Each app owns its registry (no process-global recorder), so several
//! apps in one test process count separately; only the two trace-export counters are
//! process-wide, as the exporter is.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteStatus {
    pub route: &'static str,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabel {
    pub route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CodeLabel {
    pub code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ToolOutcome {
    pub tool: String,
    pub outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WhyLabel {
    pub why: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BackendLabel {
    pub backend: String,
}

pub struct Metrics {
    registry: Registry,
    pub requests: Family<RouteStatus, Counter>,
    pub request_duration: Family<RouteLabel, Histogram>,
    pub in_flight: Gauge,
    pub upstream_errors: Family<CodeLabel, Counter>,
    pub stream_errors: Family<CodeLabel, Counter>,
    pub translations: Family<ToolOutcome, Counter>,
    pub translator_duration: Family<BackendLabel, Histogram>,
    pub cache_hits: Counter,
    pub cache_misses: Counter,
    pub repair_turns: Counter,
    /// Calls a native-mode main model wrote as text, read as calls.
    pub text_calls: Counter,
    /// Main-model turns cut because a description ran away, by why (`repeats`, `length`).
    pub turns_cut: Family<WhyLabel, Counter>,
    /// Optional values of translated calls that nothing in the conversation traces, left out.
    pub grounding_dropped: Counter,
    /// Translated calls none of whose values the conversation holds, turned back as for
    /// another tool.
    pub grounding_nothing_said: Counter,
    /// Translator questions about a rewritten tool when the conversation names another
    /// tool's subject and not its own, turned back to the main model as not for this request.
    pub questions_for_another_tool: Counter,
    /// Grounding's decisions by rule and outcome (both from fixed sets of names).
    pub grounding_decisions: Family<GroundingLabel, Counter>,
    /// Values of the main model's calls put in the format their descriptions ask.
    pub described_format_fixed: Counter,
    /// Translator questions about what the user's message holds, by how they ended.
    pub clarifications_answered: Family<AnsweredLabel, Counter>,
    pub prompt_mode_switches: Family<ModelLabel, Counter>,
    /// Redis commands by kind (get, set, ping) and outcome (hit, miss, ok, error, skipped).
    pub shared_state: Family<SharedOp, Counter>,
    /// 1 once a Redis command succeeded, 0 after a failure; 0 without Redis (never set) and
    /// before the first command.
    pub shared_state_up: Gauge,
    tool_labels: BoundedLabels,
    model_labels: BoundedLabels,
}

/// How many client-chosen values (tool names, model names) of one kind become label values
/// besides the configured ones; later ones are counted under `other`.
pub const CLIENT_LABELS: usize = 64;
/// A longer client-chosen value is counted under `other` too.
const LABEL_MAX_LEN: usize = 64;

/// Label values a client chooses, bounded: the configured names always, then the first
/// [`CLIENT_LABELS`] others seen, then `other`. Without this, every new tool or model name a
/// client sends would add a series to `/metrics` for the life of the process.
struct BoundedLabels {
    configured: HashSet<String>,
    seen: Mutex<HashSet<String>>,
}

impl BoundedLabels {
    fn new(configured: impl IntoIterator<Item = String>) -> BoundedLabels {
        BoundedLabels {
            configured: configured.into_iter().collect(),
            seen: Mutex::new(HashSet::new()),
        }
    }

    fn label(&self, value: &str) -> String {
        if self.configured.contains(value) {
            return value.to_owned();
        }
        if value.len() > LABEL_MAX_LEN {
            return "other".to_owned();
        }
        let Ok(mut seen) = self.seen.lock() else {
            return "other".to_owned();
        };
        if seen.contains(value) || (seen.len() < CLIENT_LABELS && seen.insert(value.to_owned())) {
            value.to_owned()
        } else {
            "other".to_owned()
        }
    }
}

/// A grounding rule's name and what became of the value: both `&'static str`s of fixed sets,
/// so no client input becomes a label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GroundingLabel {
    pub rule: &'static str,
    pub outcome: &'static str,
}

/// How a translator's question the user's message answers ended: `translated` (asked again
/// with those words pointed out), `direct` (the main model's own call) or `asked` (the
/// question went back): a fixed set, so no client input becomes a label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnsweredLabel {
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SharedOp {
    pub op: String,
    pub outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabel {
    pub model: String,
}

fn latency_histogram() -> Histogram {
    // 1 ms to ~65 s: proxy overhead sits at the bottom, model latency at the top.
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.001, 2.0, 17,
    ))
}

impl Metrics {
    /// One grounding decision, by rule and outcome.
    pub fn count_grounding(&self, rule: &'static str, outcome: &'static str) {
        self.grounding_decisions
            .get_or_create(&GroundingLabel { rule, outcome })
            .inc();
    }

    pub fn new() -> Metrics {
        Metrics::with_configured(Vec::new())
    }

    /// `tools`: the tool names the configuration names, always counted under their own label.
    pub fn with_configured(tools: Vec<String>) -> Metrics {
        let latency = latency_histogram as fn() -> Histogram;
        let mut metrics = Metrics {
            registry: Registry::with_prefix("plaincall"),
            requests: Family::default(),
            request_duration: Family::new_with_constructor(latency),
            in_flight: Gauge::default(),
            upstream_errors: Family::default(),
            stream_errors: Family::default(),
            translations: Family::default(),
            translator_duration: Family::new_with_constructor(latency),
            cache_hits: Counter::default(),
            cache_misses: Counter::default(),
            repair_turns: Counter::default(),
            text_calls: Counter::default(),
            turns_cut: Family::default(),
            grounding_dropped: Counter::default(),
            grounding_nothing_said: Counter::default(),
            questions_for_another_tool: Counter::default(),
            grounding_decisions: Family::default(),
            described_format_fixed: Counter::default(),
            clarifications_answered: Family::default(),
            prompt_mode_switches: Family::default(),
            shared_state: Family::default(),
            shared_state_up: Gauge::default(),
            tool_labels: BoundedLabels::new(tools),
            model_labels: BoundedLabels::new(Vec::new()),
        };
        metrics.register_http();
        metrics.register_translation();
        metrics
    }

    /// The HTTP metrics in the registry; a metric and its registered clone share one value.
    fn register_http(&mut self) {
        let r = &mut self.registry;
        r.register(
            "http_requests",
            "HTTP requests by route and response status",
            self.requests.clone(),
        );
        r.register(
            "http_request_duration_seconds",
            "Time from request to response headers, by route",
            self.request_duration.clone(),
        );
        r.register(
            "http_requests_in_flight",
            "Requests being served, streams included",
            self.in_flight.clone(),
        );
        r.register(
            "upstream_errors",
            "Failed upstream requests by error code",
            self.upstream_errors.clone(),
        );
        r.register(
            "stream_errors",
            "Streams that ended with an error event, by code",
            self.stream_errors.clone(),
        );
        r.register(
            "shared_state_commands",
            "Redis commands by kind and outcome ([redis]; skipped: within retry_after of a failure)",
            self.shared_state.clone(),
        );
        r.register(
            "shared_state_up",
            "Whether Redis answered the last command (1) or failed (0)",
            self.shared_state_up.clone(),
        );
        // Process-wide, as the exporter is: every registry shows the same two counters.
        r.register(
            "trace_spans_dropped",
            "Spans dropped because the export queue was full ([telemetry]; the collector slow or gone)",
            crate::telemetry::DROPPED.clone(),
        );
        r.register(
            "trace_export_failures",
            "Batches of spans the collector did not take (an error, a refusal, a timeout)",
            crate::telemetry::EXPORT_FAILURES.clone(),
        );
    }

    /// The translation metrics in the registry.
    fn register_translation(&mut self) {
        let r = &mut self.registry;
        r.register(
            "translations",
            "Translations by tool and outcome (ok, retried, clarification, failed)",
            self.translations.clone(),
        );
        r.register(
            "translator_duration_seconds",
            "Translator call latency by backend",
            self.translator_duration.clone(),
        );
        r.register(
            "translation_cache_hits",
            "Translations served from the cache",
            self.cache_hits.clone(),
        );
        r.register(
            "translation_cache_misses",
            "Translations not in the cache",
            self.cache_misses.clone(),
        );
        r.register(
            "grounding_dropped",
            "Values of translated calls left out because nothing in the conversation said them",
            self.grounding_dropped.clone(),
        );
        r.register(
            "grounding_nothing_said",
            "Calls (translated, or the main model's own) none of whose values the conversation holds, turned back to the main model as not for this request",
            self.grounding_nothing_said.clone(),
        );
        r.register(
            "questions_for_another_tool",
            "Translator questions about a rewritten tool when the conversation names another tool's subject and not its own, turned back to the main model as not for this request",
            self.questions_for_another_tool.clone(),
        );
        r.register(
            "grounding_decisions",
            "Grounding's decisions on the values of calls, by the rule that decided and the outcome (kept, left_out, missing, unverified, replaced)",
            self.grounding_decisions.clone(),
        );
        r.register(
            "described_format_fixed",
            "Values of the main model's calls rewritten by the translator into the format their descriptions ask",
            self.described_format_fixed.clone(),
        );
        r.register(
            "clarifications_answered",
            "Translator questions about values the user's message holds, by outcome (translated: asked again with those words pointed out, direct: the main model's own call, asked: the question went back)",
            self.clarifications_answered.clone(),
        );
        r.register(
            "repair_turns",
            "Extra main-model turns run after a failed or ambiguous translation",
            self.repair_turns.clone(),
        );
        r.register(
            "text_calls",
            "Calls a native-mode main model wrote as text, read as tool calls",
            self.text_calls.clone(),
        );
        r.register(
            "turns_cut",
            "Main-model turns cut because a plain-English description ran away, by why (repeats, length)",
            self.turns_cut.clone(),
        );
        r.register(
            "prompt_mode_switches",
            "Models switched to prompt-based tools after the upstream rejected native tools",
            self.prompt_mode_switches.clone(),
        );
    }

    /// `route` is one of the router's own patterns, so the label set stays bounded.
    pub fn record_request(&self, route: &'static str, status: u16, elapsed: Duration) {
        self.requests
            .get_or_create(&RouteStatus { route, status })
            .inc();
        self.request_duration
            .get_or_create(&RouteLabel { route })
            .observe(elapsed.as_secs_f64());
    }

    pub fn upstream_error(&self, code: &str) {
        self.upstream_errors
            .get_or_create(&CodeLabel {
                code: code.to_owned(),
            })
            .inc();
    }

    pub fn stream_error(&self, code: &str) {
        self.stream_errors
            .get_or_create(&CodeLabel {
                code: code.to_owned(),
            })
            .inc();
    }

    pub fn translation(&self, tool: &str, outcome: &str) {
        self.translations
            .get_or_create(&ToolOutcome {
                tool: self.tool_labels.label(tool),
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    pub fn prompt_mode_switch(&self, model: &str) {
        self.prompt_mode_switches
            .get_or_create(&ModelLabel {
                model: self.model_labels.label(model),
            })
            .inc();
    }

    pub fn translator_latency(&self, backend: &str, elapsed: Duration) {
        self.translator_duration
            .get_or_create(&BackendLabel {
                backend: backend.to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// The OpenMetrics text format (what `/metrics` serves).
    pub fn render(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}
