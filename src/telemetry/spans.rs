//! The spans plaincall exports, in the GenAI semantic conventions (v1.41 names): the server
//! span of each request, a `chat {model}` client span per upstream turn and per translator
//! exchange, and a `translate {tool}` span per translated call. Each is made only while traces
//! are on ([`Span::none`] otherwise, which costs nothing). Client-chosen values are bounded;
//! content goes on a span only when capture is on, scrubbed of configured secrets.

use std::sync::OnceLock;

use opentelemetry::trace::Status;
use opentelemetry::{KeyValue, StringValue, Value};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::{capture_content, enabled, ONLY, TARGET};
use crate::redact::Secrets;

/// The longest client-chosen name (a model, a tool, a path, a request id) on a span.
const MAX_NAME: usize = 128;
/// The longest piece of content on a span (captured on opt-in only).
const MAX_CONTENT: usize = 16 * 1024;
/// The most grounding decisions one translation span records as events.
const MAX_DECISIONS: usize = 64;

static SECRETS: OnceLock<Secrets> = OnceLock::new();

/// The configured secrets, scrubbed from content before it goes on a span.
pub fn set_secrets(secrets: Secrets) {
    let _ = SECRETS.set(secrets);
}

/// `value` cut to `max` bytes at a character boundary, marked when cut.
pub fn bounded(value: &str, max: usize) -> String {
    crate::text::cut(value, max)
}

/// The server span of one request, under the client's trace when its headers carry one.
/// `route` is the route's pattern (bounded by construction).
pub fn server(
    method: &http::Method,
    route: &'static str,
    path: &str,
    request_id: &str,
    headers: &http::HeaderMap,
) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "request",
        request_id = %bounded(request_id, MAX_NAME),
        method = %method,
        path = %bounded(path, MAX_NAME),
        otel.name = %format_args!("{method} {route}"),
        otel.kind = "server",
        http.request.method = %method,
        http.route = route,
    );
    if let Some(parent) = super::propagate::extract(headers) {
        let _ = span.set_parent(parent);
    }
    span
}

/// The response's status on the server span; a 5xx is an error.
pub fn record_status(span: &Span, status: u16) {
    span.set_attribute("http.response.status_code", i64::from(status));
    if status >= 500 {
        span.set_status(Status::error(format!("HTTP {status}")));
    }
}

/// Which upstream turn a `chat` span is.
#[derive(Debug, Clone, Copy)]
pub enum Turn {
    /// The client's request as it came, or the main model's first turn of a rewritten one.
    Main,
    /// A turn plaincall asks for after a translation failed or needs a question answered.
    Repair,
    /// The direct ask: the main model given one tool's full schema when translation failed.
    Direct,
    /// A translator exchange.
    Translator,
}

impl Turn {
    fn name(self) -> &'static str {
        match self {
            Turn::Main => "main",
            Turn::Repair => "repair",
            Turn::Direct => "direct",
            Turn::Translator => "translator",
        }
    }
}

/// A `chat {model}` client span: one upstream turn. `provider` is the API the upstream
/// speaks (`openai` for Chat Completions, `anthropic` for Messages).
pub fn chat(model: &str, provider: &'static str, turn: Turn) -> Span {
    if !enabled() {
        return Span::none();
    }
    let model = bounded(model, MAX_NAME);
    tracing::info_span!(
        target: ONLY,
        "chat",
        otel.name = %format_args!("chat {model}"),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = %model,
        plaincall.turn = turn.name(),
    )
}

/// What a turn's answer says of itself, read from a whole completion (Chat Completions or
/// Messages) when its span records: model, id, token usage, finish reasons.
pub fn record_completion(span: &Span, body: &[u8]) {
    if span.is_disabled() {
        return;
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Usage {
        prompt_tokens: Option<i64>,
        completion_tokens: Option<i64>,
        input_tokens: Option<i64>,
        output_tokens: Option<i64>,
    }
    #[derive(serde::Deserialize)]
    struct Choice {
        finish_reason: Option<String>,
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Answer {
        id: Option<String>,
        model: Option<String>,
        usage: Option<Usage>,
        choices: Vec<Choice>,
        stop_reason: Option<String>,
    }
    let Ok(answer) = serde_json::from_slice::<Answer>(body) else {
        return;
    };
    let usage = answer.usage.unwrap_or_default();
    let mut reasons: Vec<String> = answer
        .choices
        .into_iter()
        .filter_map(|c| c.finish_reason)
        .collect();
    reasons.extend(answer.stop_reason);
    record_answer(
        span,
        answer.model.as_deref(),
        answer.id.as_deref(),
        usage.prompt_tokens.or(usage.input_tokens),
        usage.completion_tokens.or(usage.output_tokens),
        &reasons,
    );
}

/// A turn's answer as the driver read it (streamed or whole).
pub fn record_answer(
    span: &Span,
    model: Option<&str>,
    id: Option<&str>,
    input_tokens: Option<i64>,
    output_tokens: Option<i64>,
    finish_reasons: &[String],
) {
    if span.is_disabled() {
        return;
    }
    if let Some(model) = model {
        span.set_attribute("gen_ai.response.model", bounded(model, MAX_NAME));
    }
    if let Some(id) = id {
        span.set_attribute("gen_ai.response.id", bounded(id, MAX_NAME));
    }
    if let Some(tokens) = input_tokens {
        span.set_attribute("gen_ai.usage.input_tokens", tokens);
    }
    if let Some(tokens) = output_tokens {
        span.set_attribute("gen_ai.usage.output_tokens", tokens);
    }
    if !finish_reasons.is_empty() {
        let reasons: Vec<StringValue> = finish_reasons
            .iter()
            .take(16)
            .map(|r| StringValue::from(bounded(r, MAX_NAME)))
            .collect();
        span.set_attribute(
            "gen_ai.response.finish_reasons",
            Value::Array(reasons.into()),
        );
    }
}

/// An upstream answer that was not a success, or no answer at all: the span's status.
pub fn record_error(span: &Span, error_type: &str, message: &str) {
    if span.is_disabled() {
        return;
    }
    span.set_attribute("error.type", bounded(error_type, MAX_NAME));
    span.set_status(Status::error(bounded(&scrubbed(message), MAX_NAME * 4)));
}

/// A `translate {tool}` span: one call of a rewritten tool, from the main model's description
/// to the calls delivered. `why` says why the tool was rewritten.
pub fn translation(tool: &str, why: &str) -> Span {
    if !enabled() {
        return Span::none();
    }
    let tool = bounded(tool, MAX_NAME);
    tracing::info_span!(
        target: ONLY,
        "translate",
        otel.name = %format_args!("translate {tool}"),
        otel.kind = "internal",
        gen_ai.operation.name = "translate",
        gen_ai.tool.name = %tool,
        plaincall.rewrite_reason = %bounded(why, MAX_NAME * 4),
    )
}

/// How the translator's part ended, what grounding decided, and (on opt-in) what went in
/// and out.
pub struct TranslationEnd<'a> {
    /// `ok`, `cached`, `clarification` or `failed`.
    pub outcome: &'static str,
    pub attempts: Option<u32>,
    /// The question, the failure, or the positions the translator's answer lost.
    pub detail: &'a str,
    /// Paths of optional values left out as unsaid.
    pub left_out: &'a [String],
    /// `(path, rule, outcome)` for every value grounding judged.
    pub decisions: Vec<(&'a str, &'static str, &'static str)>,
    pub description: &'a str,
    /// The delivered arguments, one JSON text per call.
    pub arguments: Vec<String>,
}

pub fn record_translation(span: &Span, end: TranslationEnd<'_>) {
    if span.is_disabled() {
        return;
    }
    span.set_attribute("plaincall.translation.outcome", end.outcome);
    if let Some(attempts) = end.attempts {
        span.set_attribute("plaincall.translation.attempts", i64::from(attempts));
    }
    span.set_attribute("plaincall.translation.calls", end.arguments.len() as i64);
    if !end.left_out.is_empty() {
        let paths: Vec<StringValue> = end
            .left_out
            .iter()
            .take(MAX_DECISIONS)
            .map(|p| StringValue::from(bounded(p, MAX_NAME)))
            .collect();
        span.set_attribute("plaincall.grounding.left_out", Value::Array(paths.into()));
    }
    for (path, rule, outcome) in end.decisions.into_iter().take(MAX_DECISIONS) {
        span.add_event(
            "grounding",
            vec![
                KeyValue::new("plaincall.grounding.path", bounded(path, MAX_NAME)),
                KeyValue::new("plaincall.grounding.rule", rule),
                KeyValue::new("plaincall.grounding.outcome", outcome),
            ],
        );
    }
    if end.outcome == "clarification" && capture_content() {
        span.set_attribute("plaincall.translation.question", content(end.detail));
    }
    if capture_content() {
        span.set_attribute(
            "plaincall.translation.description",
            content(end.description),
        );
        if !end.arguments.is_empty() {
            let all = format!("[{}]", end.arguments.join(","));
            span.set_attribute("gen_ai.tool.call.arguments", content(&all));
        }
    }
}

/// What became of the call in the end: `calls`, `direct` (the main model's own call, asked
/// with the full schema after the translation failed), `clarification`, or a failure, which
/// is the span's error.
pub fn record_resolution(span: &Span, resolution: Result<&'static str, &str>) {
    if span.is_disabled() {
        return;
    }
    match resolution {
        Ok(resolution) => span.set_attribute("plaincall.resolution", resolution),
        Err(error) => {
            span.set_attribute("plaincall.resolution", "failed");
            span.set_status(Status::error(bounded(&scrubbed(error), MAX_CONTENT)));
        }
    }
}

/// A translator exchange's messages and reply, on its `chat` span when capture is on
/// (`gen_ai.input.messages` / `gen_ai.output.messages`, as JSON).
pub fn record_exchange(span: &Span, messages: &[serde_json::Value], reply: Option<&str>) {
    if span.is_disabled() || !capture_content() {
        return;
    }
    let messages = serde_json::to_string(messages).unwrap_or_default();
    span.set_attribute("gen_ai.input.messages", content(&messages));
    if let Some(reply) = reply {
        let output = serde_json::json!([{
            "role": "assistant",
            "parts": [{"type": "text", "content": reply}],
        }]);
        span.set_attribute("gen_ai.output.messages", content(&output.to_string()));
    }
}

fn scrubbed(text: &str) -> String {
    match SECRETS.get() {
        Some(secrets) => secrets.scrub(text),
        None => Secrets::default().scrub(text),
    }
}

fn content(text: &str) -> String {
    bounded(&scrubbed(text), MAX_CONTENT)
}
