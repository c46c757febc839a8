//! The file format: the serde form of `proxy.toml`, every key with its default, unknown keys
//! refused.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

/// A secret string: never printed by `Debug`, and masked by [`Secret::masked`].
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// What `plaincall check` prints: enough to tell keys apart, never enough to use one.
    pub fn masked(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let tail: String = self
            .0
            .chars()
            .rev()
            .take(if self.0.len() >= 12 { 4 } else { 0 })
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("***{tail}")
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Secret(string_or_number(deserializer)?))
    }
}

impl Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.masked())
    }
}

/// Environment values arrive parsed as TOML scalars, so an all-digit key would be a number.
fn string_or_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Scalar {
        Str(String),
        Int(i64),
        Float(f64),
    }
    Ok(match Scalar::deserialize(deserializer)? {
        Scalar::Str(s) => s,
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => f.to_string(),
    })
}

/// A list, or one string of comma-separated items (how an environment variable gives one),
/// each item read as `T` reads a string.
fn list_or_csv<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOrCsv<T> {
        List(Vec<T>),
        Csv(String),
    }
    match ListOrCsv::deserialize(deserializer)? {
        ListOrCsv::List(list) => Ok(list),
        ListOrCsv::Csv(csv) => csv
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|item| T::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(item)))
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// File form
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
    pub listen: String,
    pub upstream: UpstreamSection,
    pub server: ServerSection,
    pub log: LogSection,
    pub telemetry: TelemetrySection,
    pub translation: TranslationSection,
    pub tool_calling: ToolCallingSection,
    /// Model aliases: a glob over the model a client names, and the model the upstream gets
    /// instead; the longest pattern that matches wins.
    pub models: indexmap::IndexMap<String, String>,
    pub redis: RedisSection,
}

impl Default for FileConfig {
    fn default() -> Self {
        FileConfig {
            listen: "127.0.0.1:8787".into(),
            upstream: UpstreamSection::default(),
            server: ServerSection::default(),
            log: LogSection::default(),
            telemetry: TelemetrySection::default(),
            translation: TranslationSection::default(),
            tool_calling: ToolCallingSection::default(),
            models: indexmap::IndexMap::new(),
            redis: RedisSection::default(),
        }
    }
}

/// State shared by replicas (stored Responses conversations, translations, what is learned
/// per model and per tool) in Redis; without a URL each process keeps its own.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedisSection {
    /// `redis://host:port/db` or `rediss://` (TLS); empty: no Redis.
    pub url: String,
    /// Replaces the URL's password; `PLAINCALL_REDIS_PASSWORD` sets it too.
    pub password: Secret,
    /// A file holding the password (a mounted Secret), read at start-up.
    pub password_file: Option<PathBuf>,
    /// Every key begins with it, so that several deployments can share one Redis.
    pub prefix: String,
    /// The longest wait for one command; past it the call goes on without Redis.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    #[serde(with = "humantime_serde")]
    pub connect_timeout: Duration,
    /// After a failure, how long Redis is left alone before it is tried again.
    #[serde(with = "humantime_serde")]
    pub retry_after: Duration,
    /// A larger value (a long stored conversation) stays in the process that made it.
    pub max_value_bytes: u64,
}

impl Default for RedisSection {
    fn default() -> Self {
        RedisSection {
            url: String::new(),
            password: Secret::default(),
            password_file: None,
            prefix: "plaincall:".into(),
            timeout: Duration::from_millis(250),
            connect_timeout: Duration::from_secs(1),
            retry_after: Duration::from_secs(1),
            max_value_bytes: 32 * 1024 * 1024,
        }
    }
}

/// How the upstream is asked for tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CallingMode {
    /// The upstream's own `tools` support.
    Native,
    /// Tools rendered into the system prompt, calls parsed out of the reply text.
    Prompt,
    /// Native until the upstream rejects `tools` for a model, then prompt for that model.
    Auto,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolCallingSection {
    pub default: CallingMode,
    /// In prompt mode, force a call with a `response_format` grammar when `tool_choice`
    /// demands one (llama-server, vLLM and OpenAI enforce json_schema).
    pub grammar: bool,
    /// In `auto`, how long a model stays in prompt mode after the upstream rejected its
    /// native tools before native tools are tried again.
    #[serde(with = "humantime_serde")]
    pub native_retry: Duration,
    /// In native mode, a reply that opens with a call written as text to a tool plaincall
    /// handles is read as that call.
    pub text_calls: bool,
    pub models: Vec<ModelRule>,
}

impl Default for ToolCallingSection {
    fn default() -> Self {
        ToolCallingSection {
            default: CallingMode::Auto,
            grammar: true,
            native_retry: Duration::from_secs(15 * 60),
            text_calls: true,
            models: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRule {
    /// A glob on the request's model name, e.g. `qwen2.5-coder-*`.
    pub pattern: String,
    pub mode: CallingMode,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct UpstreamSection {
    pub url: String,
    pub api_key: Secret,
    #[serde(with = "humantime_serde")]
    pub connect_timeout: Duration,
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    #[serde(with = "humantime_serde")]
    pub read_timeout: Duration,
    /// How long an upstream (or translator) connection may sit idle in the pool before it is
    /// closed instead of reused: below the server's own keep-alive, so that plaincall never
    /// sends on a connection the server is closing.
    #[serde(with = "humantime_serde")]
    pub pool_idle_timeout: Duration,
    /// The wire formats the upstream serves itself (`chat`, `responses`, `messages`): requests
    /// of a format it does not serve are converted to Chat Completions.
    #[serde(deserialize_with = "list_or_csv")]
    pub formats: Vec<WireFormat>,
    /// Top-level fields a converted request (Responses, Messages) keeps for the chat upstream,
    /// beside Chat Completions' own: an upstream's extensions a client sends.
    #[serde(deserialize_with = "list_or_csv")]
    pub keep_params: Vec<String>,
    /// Top-level fields taken out of every Chat Completions request to the upstream: what a
    /// strict upstream refuses and a client insists on sending.
    #[serde(deserialize_with = "list_or_csv")]
    pub drop_params: Vec<String>,
    /// What becomes of a tool only a format's own server runs (web search, code execution,
    /// MCP, ...) on a converted request, by its kind (`type`); `default` for kinds not named.
    pub hosted_tools: std::collections::BTreeMap<String, HostedTools>,
}

/// `upstream.hosted_tools`: a hosted tool on a chat-only upstream is left out (the request
/// goes on without it, said in the log and a header) or refused (a 400 naming it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HostedTools {
    Drop,
    Refuse,
}

/// A wire format an upstream may serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WireFormat {
    Chat,
    Responses,
    Messages,
}

impl Default for UpstreamSection {
    fn default() -> Self {
        UpstreamSection {
            url: "http://127.0.0.1:8080/v1".into(),
            api_key: Secret::default(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(600),
            read_timeout: Duration::from_secs(300),
            // llama-server, uvicorn (vLLM) and Node close an idle connection after 5 s.
            pool_idle_timeout: Duration::from_secs(4),
            formats: vec![WireFormat::Chat],
            keep_params: Vec::new(),
            drop_params: Vec::new(),
            hosted_tools: [("default".to_owned(), HostedTools::Drop)].into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerSection {
    pub max_body_bytes: u64,
    #[serde(deserialize_with = "list_or_csv")]
    pub access_keys: Vec<Secret>,
    #[serde(with = "humantime_serde")]
    pub shutdown_grace: Duration,
    #[serde(with = "humantime_serde")]
    pub readiness_cache: Duration,
    /// A connection's request head must arrive within this of the first byte (or, on a new
    /// connection, of accepting it).
    #[serde(with = "humantime_serde")]
    pub header_read_timeout: Duration,
    /// The longest silence between two chunks of a request body.
    #[serde(with = "humantime_serde")]
    pub body_read_timeout: Duration,
    /// The whole request body must arrive within this: a body trickled a byte at a time is
    /// never silent for long, yet must not hold a connection forever.
    #[serde(with = "humantime_serde")]
    pub body_timeout: Duration,
    /// A keep-alive connection with no request in flight is closed after this long silent.
    #[serde(with = "humantime_serde")]
    pub idle_timeout: Duration,
    /// Open client connections; past it plaincall stops accepting until one closes.
    pub max_connections: usize,
    /// `/v1` requests served at once (streams count until they end); past it: 503. Also the
    /// idle connections kept per upstream.
    pub max_in_flight: usize,
    /// Memory all request bodies read whole may take at once, each counted at
    /// `BODY_COST` times its size (the body, what is parsed and sent of it); past it: 503.
    pub max_buffered_bytes: u64,
}

impl Default for ServerSection {
    fn default() -> Self {
        ServerSection {
            max_body_bytes: 32 * 1024 * 1024,
            access_keys: Vec::new(),
            shutdown_grace: Duration::from_secs(30),
            readiness_cache: Duration::from_secs(5),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
            max_in_flight: 256,
            max_buffered_bytes: 1024 * 1024 * 1024,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Human,
    Json,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogSection {
    pub format: LogFormat,
    pub level: String,
}

impl Default for LogSection {
    fn default() -> Self {
        LogSection {
            format: LogFormat::Human,
            level: "info".into(),
        }
    }
}

/// Traces over OTLP/HTTP protobuf (see `telemetry`). The standard `OTEL_*` variables win over
/// these keys, as they do for every OpenTelemetry SDK.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TelemetrySection {
    /// Where spans go, the whole URL (`http://collector:4318/v1/traces`); empty: no traces.
    pub traces_endpoint: String,
    /// `service.name` of every span.
    pub service_name: String,
    /// Whether descriptions, translator replies and delivered arguments go on spans.
    pub capture_content: bool,
    /// The most one export of a batch may take.
    #[serde(with = "humantime_serde")]
    pub export_timeout: Duration,
}

impl Default for TelemetrySection {
    fn default() -> Self {
        TelemetrySection {
            traces_endpoint: String::new(),
            service_name: "plaincall".into(),
            capture_content: false,
            export_timeout: Duration::from_secs(10),
        }
    }
}

/// How a tool is presented to the main model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// Rewrite when the schema is complex (see the thresholds).
    Auto,
    /// Always rewrite into the one-field plain-English form.
    Nl,
    /// Never rewrite.
    Passthrough,
}

/// What happens to a call to a tool plaincall does not rewrite, checked against its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckMode {
    /// Not checked: the call reaches the client as the main model wrote it (and streams live).
    Off,
    /// Unambiguous fixes (`"2"` to `2`, enum case, ...); else a repair turn with the errors.
    Repair,
    /// As `repair`, with the translator fixing what the schema leaves open before a repair turn.
    Translate,
}

/// What happens to a value of a translated call that nothing in the conversation traces
/// (see `pipe/grounding/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grounding {
    /// An untraced optional value is left out; an untraced required one is asked back once
    /// to the translator, then becomes a question to the main model.
    Strict,
    /// As `optional`, and an untraced required fact nobody can work out (a number, a day, a
    /// time, a weekday, a web or mail address) is asked back once to the translator, then
    /// becomes a question to the main model; other required values are kept.
    Facts,
    /// An untraced optional value is left out; required ones are kept.
    Optional,
    /// Values are not checked.
    Off,
}

/// A grounding rule that can be switched off, by the name its decisions are logged with
/// (see `pipe/grounding/rules.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroundingRule {
    Schema,
    Verbatim,
    Number,
    Quantity,
    Date,
    Time,
    Code,
    Digits,
    Choice,
    Flag,
    Text,
    Unread,
}

/// How a translator backend is asked for JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// `grammar` where the backend's first answer shows llama.cpp, else `json_schema`.
    Auto,
    JsonSchema,
    /// llama.cpp's `grammar` field: the schema as GBNF, with no free whitespace.
    Grammar,
    JsonObject,
    None,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TranslationSection {
    pub enabled: bool,
    pub default_mode: ToolMode,
    pub tools: BTreeMap<String, ToolMode>,
    /// Calls to tools that are not rewritten: checked against their schema, and how.
    pub check_calls: CheckMode,
    /// Per-tool `check_calls`, by function name.
    pub checks: BTreeMap<String, CheckMode>,
    /// Whether each value of a translated call must be traced to the conversation.
    pub grounding: Grounding,
    /// Per-tool `grounding`, by function name.
    pub grounding_tools: BTreeMap<String, Grounding>,
    /// Grounding rules switched off: values only they trace are unsaid.
    pub grounding_rules_off: Vec<GroundingRule>,
    /// After the main model's first turn with calls, ask the translator which actions of the
    /// user's message the calls left out, and add a call for each.
    pub split_actions: bool,
    /// Send each rewritten tool's translator prompt ahead while the main model answers.
    pub warm_prefixes: bool,
    pub min_properties: usize,
    pub rewrite_nested: bool,
    /// `rewrite_nested` also for a nested property the schema does not require.
    pub rewrite_optional_nested: bool,
    pub rewrite_conditionals: bool,
    pub rewrite_refs: bool,
    pub attempts: u32,
    pub repair_turns: u32,
    /// The most a repair turn (one plaincall asks the main model for) may write.
    pub repair_max_tokens: u32,
    /// The most characters a plain-English description may run past the conversation's own
    /// text before its turn is cut (0: never cut, and whole answers are read whole).
    pub description_limit: usize,
    pub timezone: String,
    pub prompts_dir: Option<PathBuf>,
    #[serde(with = "humantime_serde")]
    pub cache_ttl: Duration,
    pub cache_capacity: u64,
    #[serde(with = "humantime_serde")]
    pub keepalive_interval: Duration,
    /// The most a request spends translating; past it the main model's own call is asked for
    /// (or the failure goes back), so that no request waits minutes to end in nothing.
    #[serde(with = "humantime_serde")]
    pub budget: Duration,
    pub temperature: f64,
    pub max_tokens: u32,
    /// Output mode when no backend is configured and the upstream translates.
    pub upstream_output: OutputMode,
    pub backends: Vec<BackendSection>,
}

impl Default for TranslationSection {
    fn default() -> Self {
        TranslationSection {
            enabled: true,
            default_mode: ToolMode::Auto,
            tools: BTreeMap::new(),
            check_calls: CheckMode::Translate,
            checks: BTreeMap::new(),
            grounding: Grounding::Facts,
            grounding_tools: BTreeMap::new(),
            grounding_rules_off: Vec::new(),
            split_actions: false,
            warm_prefixes: false,
            min_properties: 6,
            rewrite_nested: true,
            rewrite_optional_nested: false,
            rewrite_conditionals: true,
            rewrite_refs: true,
            attempts: 2,
            repair_turns: 2,
            repair_max_tokens: 4096,
            description_limit: 2000,
            timezone: "UTC".into(),
            prompts_dir: None,
            cache_ttl: Duration::from_secs(3600),
            cache_capacity: 10_000,
            keepalive_interval: Duration::from_secs(5),
            budget: Duration::from_secs(60),
            temperature: 0.0,
            max_tokens: 1024,
            upstream_output: OutputMode::JsonSchema,
            backends: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BackendSection {
    /// `url`, as in `[upstream]`; `base_url` is the older name, still read.
    #[serde(alias = "base_url")]
    pub url: String,
    pub model: String,
    #[serde(default)]
    pub api_key: Secret,
    #[serde(default = "default_backend_timeout", with = "humantime_serde")]
    pub timeout: Duration,
    #[serde(default = "default_output_mode")]
    pub output: OutputMode,
}

pub(super) fn default_backend_timeout() -> Duration {
    Duration::from_secs(60)
}
pub(super) fn default_output_mode() -> OutputMode {
    OutputMode::JsonSchema
}
