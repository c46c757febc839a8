//! Translator backends: an ordered list, the first healthy one serves, failures fall through
//! to the next. With none configured, the upstream translates with the request's model.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::HeaderMap;
use serde_json::{json, Value};

use super::gbnf;
use crate::config::{Config, OutputMode, TranslationConfig};
use crate::error::ProxyError;
use crate::metrics::Metrics;
use crate::openai::{self, RawObject};
use crate::redact::{summarize_http_error, Secrets};
use crate::telemetry::spans;
use crate::upstream::UpstreamClient;
use tracing::Instrument;

/// How long a backend that failed is skipped while others are healthy.
const COOLDOWN: Duration = Duration::from_secs(30);
/// The largest translator reply read.
const REPLY_LIMIT: u64 = 4 * 1024 * 1024;

struct Backend {
    client: UpstreamClient,
    /// `None`: the request's own model (the upstream acting as translator).
    model: Option<String>,
    output: OutputMode,
    /// With `output = "auto"`: what the backend's first answer showed it to be.
    detected: OnceLock<OutputMode>,
    label: String,
    /// Whether the client's `Authorization` goes along (only to the main upstream).
    client_auth: bool,
    unhealthy_until_ms: AtomicU64,
}

pub(crate) struct Translator {
    backends: Vec<Backend>,
    /// Every configured key: scrubbed from whatever a backend's error says.
    secrets: Secrets,
    temperature: f64,
    max_tokens: u32,
}

/// What one translator exchange produced.
pub(crate) struct Reply {
    pub text: String,
    pub backend: String,
    /// The backend stopped at `max_tokens` (`finish_reason: "length"`): the text is cut off.
    pub cut_off: bool,
}

impl Translator {
    pub(crate) fn new(
        settings: &TranslationConfig,
        upstream: UpstreamClient,
        config: &Config,
    ) -> Result<Translator, ProxyError> {
        let mut backends = Vec::new();
        for (n, b) in settings.backends.iter().enumerate() {
            let setting = format!("translation.backends[{n}].timeout");
            let connect = if config.upstream.connect_timeout < b.timeout {
                "upstream.connect_timeout"
            } else {
                setting.as_str()
            };
            backends.push(Backend {
                client: UpstreamClient::new(
                    b.base_url.clone(),
                    b.api_key.clone(),
                    config.upstream.connect_timeout.min(b.timeout),
                    b.timeout,
                    b.timeout,
                    crate::upstream::Pool::of(config),
                )?
                .with_settings(connect, &setting, &setting),
                model: Some(b.model.clone()),
                output: b.output,
                detected: OnceLock::new(),
                label: b.model.clone(),
                client_auth: false,
                unhealthy_until_ms: AtomicU64::new(0),
            });
        }
        if backends.is_empty() {
            backends.push(Backend {
                client: upstream,
                model: None,
                output: settings.upstream_output,
                detected: OnceLock::new(),
                label: "upstream".into(),
                client_auth: config.server.access_keys.is_empty(),
                unhealthy_until_ms: AtomicU64::new(0),
            });
        }
        Ok(Translator {
            backends,
            secrets: crate::redact::configured(config),
            temperature: settings.temperature,
            max_tokens: settings.max_tokens,
        })
    }

    /// The model name that identifies translations in the cache, and the output mode.
    pub(crate) fn first_label(&self, request_model: &str) -> (String, OutputMode) {
        match self.backends.first() {
            Some(b) => (
                b.model.clone().unwrap_or_else(|| request_model.to_owned()),
                b.output,
            ),
            None => (request_model.to_owned(), OutputMode::None),
        }
    }

    /// Whether a translator backend is configured (not the upstream translating itself).
    pub(crate) fn has_backend(&self) -> bool {
        self.backends.first().is_some_and(|b| b.model.is_some())
    }

    /// The label of the backend a translation goes to first.
    pub(crate) fn first_backend(&self) -> &str {
        self.order().first().map_or("", |b| b.label.as_str())
    }

    /// Sends the first healthy backend `system` with an empty request and `max_tokens: 1`:
    /// a server with a prompt cache then holds the prompt's prefix (see [`super::warm`]).
    pub(crate) async fn warm(&self, system: &str) -> Result<(), String> {
        let Some(backend) = self.order().into_iter().next() else {
            return Ok(());
        };
        let Some(model) = backend.model.as_deref() else {
            return Ok(());
        };
        let body = json!({
            "model": model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": ""}],
            "temperature": self.temperature,
            "max_tokens": 1,
            "stream": false,
        });
        let request = backend
            .client
            .post_json(
                "chat/completions",
                Bytes::from(body.to_string()),
                &HeaderMap::new(),
                false,
            )
            .map_err(|e| e.detail())?;
        let (status, _, _) = backend
            .client
            .send_and_read(request, REPLY_LIMIT)
            .await
            .map_err(|e| e.detail())?;
        if !status.is_success() {
            return Err(format!("HTTP {}", status.as_u16()));
        }
        Ok(())
    }

    /// Healthy backends first, in configured order, then the rest as a last resort.
    fn order(&self) -> Vec<&Backend> {
        let now = crate::shared::now_ms();
        let (healthy, resting): (Vec<&Backend>, Vec<&Backend>) = self
            .backends
            .iter()
            .partition(|b| b.unhealthy_until_ms.load(Ordering::Relaxed) <= now);
        healthy.into_iter().chain(resting).collect()
    }

    /// One exchange: `messages` in, the reply text out.
    pub(crate) async fn complete(
        &self,
        messages: &[Value],
        response_schema: &Value,
        tool: &str,
        request_model: &str,
        client_headers: &HeaderMap,
        metrics: &Metrics,
    ) -> Result<Reply, String> {
        let mut failures = Vec::new();
        for backend in self.order() {
            let started = Instant::now();
            let result = self
                .call(
                    backend,
                    messages,
                    response_schema,
                    tool,
                    request_model,
                    client_headers,
                )
                .await;
            metrics.translator_latency(&backend.label, started.elapsed());
            match result {
                Ok((text, cut_off)) => {
                    backend.unhealthy_until_ms.store(0, Ordering::Relaxed);
                    return Ok(Reply {
                        text,
                        backend: backend.label.clone(),
                        cut_off,
                    });
                }
                Err(CallError {
                    message, unhealthy, ..
                }) => {
                    tracing::warn!(backend = %backend.label, %tool, error = %message, "translator call failed");
                    if unhealthy {
                        backend.unhealthy_until_ms.store(
                            crate::shared::now_ms() + COOLDOWN.as_millis() as u64,
                            Ordering::Relaxed,
                        );
                    }
                    failures.push(format!("{}: {message}", backend.label));
                }
            }
        }
        Err(format!("the translator failed ({})", failures.join("; ")))
    }

    async fn call(
        &self,
        backend: &Backend,
        messages: &[Value],
        response_schema: &Value,
        tool: &str,
        request_model: &str,
        client_headers: &HeaderMap,
    ) -> Result<(String, bool), CallError> {
        let output = backend.output_now();
        let ask = |output| {
            self.exchange(
                backend,
                messages,
                response_schema,
                tool,
                request_model,
                client_headers,
                output,
            )
        };
        match ask(output).await {
            // A grammar the server refuses (a feature of the schema its parser lacks) costs
            // one call, not the translation: the schema goes the usual way.
            Err(CallError {
                refused: true,
                message,
                ..
            }) if output == OutputMode::Grammar => {
                tracing::warn!(backend = %backend.label, %tool, error = %message, "translator refused the grammar; asking with json_schema");
                ask(OutputMode::JsonSchema).await
            }
            other => other,
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn exchange(
        &self,
        backend: &Backend,
        messages: &[Value],
        response_schema: &Value,
        tool: &str,
        request_model: &str,
        client_headers: &HeaderMap,
        output: OutputMode,
    ) -> Result<(String, bool), CallError> {
        let model = backend.model.as_deref().unwrap_or(request_model);
        let body = self.body(model, messages, response_schema, tool, output);
        let span = spans::chat(model, "openai", spans::Turn::Translator);
        let request = backend
            .client
            .post_json(
                "chat/completions",
                body,
                client_headers,
                backend.client_auth,
            )
            .map_err(|e| CallError::unhealthy(e.detail()))?;
        let (status, _, bytes) = backend
            .client
            .send_and_read(request, REPLY_LIMIT)
            .instrument(span.clone())
            .await
            .map_err(|e| {
                spans::record_error(&span, e.code(), &e.detail());
                CallError::unhealthy(e.detail())
            })?;
        if !status.is_success() {
            spans::record_error(&span, status.as_str(), &format!("HTTP {}", status.as_u16()));
            return Err(self.refused(backend, tool, client_headers, status, &bytes));
        }
        let response: RawObject = serde_json::from_slice(&bytes)
            .map_err(|e| CallError::unhealthy(format!("the reply is not JSON: {e}")))?;
        backend.learn(&response);
        // Read as every turn is (`chunks.rs`): a malformed field is said, not read as none.
        let answer = super::chunks::Chunk::whole(response).map_err(|e| CallError {
            message: e.detail(),
            unhealthy: false,
            refused: false,
        })?;
        let first = answer.choices.iter().find(|c| c.index == 0);
        let cut_off = first.is_some_and(|c| c.finish_reason.as_deref() == Some("length"));
        let text = first
            .map(|c| openai::content_text(c.delta.get("content").map(AsRef::as_ref)))
            .unwrap_or_default();
        spans::record_completion(&span, &bytes);
        spans::record_exchange(&span, messages, Some(&text));
        if text.trim().is_empty() {
            return Err(CallError {
                message: "the reply has no content".into(),
                unhealthy: false,
                refused: false,
            });
        }
        Ok((text, cut_off))
    }

    /// A translator request's body: the messages, and the reply's shape as `output` asks.
    fn body(
        &self,
        model: &str,
        messages: &[Value],
        response_schema: &Value,
        tool: &str,
        output: OutputMode,
    ) -> Bytes {
        let mut body = json!({
            "model": model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": false,
        });
        match output {
            OutputMode::JsonSchema | OutputMode::Auto => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": schema_name(tool), "schema": response_schema, "strict": false}
                });
            }
            OutputMode::Grammar => body["grammar"] = Value::String(gbnf::gbnf(response_schema)),
            OutputMode::JsonObject => body["response_format"] = json!({"type": "json_object"}),
            OutputMode::None => {}
        }
        Bytes::from(body.to_string())
    }

    /// An error answer as the call's error. The body is foreign text and may echo the key it
    /// was sent: only a scrubbed summary goes on (into logs, the repair message, the client's
    /// answer).
    fn refused(
        &self,
        backend: &Backend,
        tool: &str,
        client_headers: &HeaderMap,
        status: http::StatusCode,
        bytes: &[u8],
    ) -> CallError {
        let secrets = self.secrets.with(
            backend
                .client_auth
                .then(|| bearer(client_headers))
                .flatten(),
        );
        let detail = secrets.scrub(&String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]));
        tracing::debug!(backend = %backend.label, %tool, status = status.as_u16(), body = %detail, "translator error body");
        CallError {
            message: summarize_http_error(status.as_u16(), bytes, &secrets),
            unhealthy: status.is_server_error() || status.as_u16() == 429,
            refused: status.as_u16() == 400,
        }
    }
}

impl Backend {
    /// How this backend is asked for JSON now: as configured, or for `auto` what its first
    /// answer showed (`json_schema` until one came).
    fn output_now(&self) -> OutputMode {
        match self.output {
            OutputMode::Auto => self
                .detected
                .get()
                .copied()
                .unwrap_or(OutputMode::JsonSchema),
            configured => configured,
        }
    }

    /// With `output = "auto"`, the first answer tells what serves this backend: llama.cpp's
    /// llama-server puts its `timings` in every completion, and takes a GBNF `grammar`
    /// without free whitespace ([`gbnf`]); anything else keeps `json_schema`.
    fn learn(&self, response: &RawObject) {
        if self.output != OutputMode::Auto || self.detected.get().is_some() {
            return;
        }
        let llama_cpp = response.contains_key("timings");
        let mode = if llama_cpp {
            OutputMode::Grammar
        } else {
            OutputMode::JsonSchema
        };
        if self.detected.set(mode).is_ok() && llama_cpp {
            tracing::info!(backend = %self.label, "the translator is llama.cpp: its answers are asked for as a grammar without free whitespace (output = \"auto\")");
        }
    }
}

/// The client's bearer token, when its `Authorization` went along to the backend.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

struct CallError {
    message: String,
    unhealthy: bool,
    /// The backend answered 400: it refused the request as sent.
    refused: bool,
}

impl CallError {
    fn unhealthy(message: String) -> CallError {
        CallError {
            message,
            unhealthy: true,
            refused: false,
        }
    }
}

/// `response_format.json_schema.name` allows `[a-zA-Z0-9_-]{1,64}`.
fn schema_name(tool: &str) -> String {
    let name: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(56)
        .collect();
    format!("{}_args", if name.is_empty() { "tool" } else { &name })
}
