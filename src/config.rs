//! Configuration: an embedded default, an optional TOML file, then `PLAINCALL_*` environment
//! variables, merged by figment. Loading happens in two steps: [`FileConfig`] is the serde form
//! (every key has a default, unknown keys are refused), [`Config`] is the validated form the
//! rest of the crate uses.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use figment::providers::{Env, Format, Toml};
use figment::Figment;
use serde::{Deserialize, Deserializer, Serialize};
use url::Url;

/// The configuration used when no file is given: every key at its default.
pub const EMBEDDED_DEFAULT: &str = "";

const ENV_PREFIX: &str = "PLAINCALL_";
/// Sections whose keys are reachable as `PLAINCALL_<SECTION>_<KEY>`.
const ENV_SECTIONS: &[&str] = &["upstream", "server", "log", "translation", "tool_calling"];
/// Variables read directly rather than merged as keys: the CLI's, the single translator
/// backend, and secrets (figment would parse `000123` as a number and drop the zeros).
const ENV_SPECIAL: &[&str] = &[
    "config",
    "translator_url",
    "translator_model",
    "translator_api_key",
    "upstream_api_key",
    "server_access_keys",
];

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Already worded by [`crate::config_error::describe`]: place, key, problem.
    #[error("{0}")]
    Load(String),
    #[error("invalid value for `{key}`: {reason}")]
    Invalid { key: String, reason: String },
}

fn load_error(file: Option<&Path>) -> impl FnOnce(figment::Error) -> ConfigError + '_ {
    move |error| ConfigError::Load(crate::config_error::describe(&error, file))
}

fn invalid(key: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

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

/// A list given either as an array or, from the environment, as a comma-separated string.
fn list_or_csv<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Secret>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOrCsv {
        List(Vec<Secret>),
        Csv(String),
    }
    Ok(match ListOrCsv::deserialize(deserializer)? {
        ListOrCsv::List(list) => list,
        ListOrCsv::Csv(csv) => csv
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(Secret::new)
            .collect(),
    })
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
    pub translation: TranslationSection,
    pub tool_calling: ToolCallingSection,
}

impl Default for FileConfig {
    fn default() -> Self {
        FileConfig {
            listen: "127.0.0.1:8787".into(),
            upstream: UpstreamSection::default(),
            server: ServerSection::default(),
            log: LogSection::default(),
            translation: TranslationSection::default(),
            tool_calling: ToolCallingSection::default(),
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
    pub models: Vec<ModelRule>,
}

impl Default for ToolCallingSection {
    fn default() -> Self {
        ToolCallingSection {
            default: CallingMode::Auto,
            grammar: true,
            native_retry: Duration::from_secs(15 * 60),
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
}

impl Default for UpstreamSection {
    fn default() -> Self {
        UpstreamSection {
            url: "http://127.0.0.1:8080/v1".into(),
            api_key: Secret::default(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(600),
            read_timeout: Duration::from_secs(300),
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
    /// `/v1` requests served at once (streams count until they end); past it: 503.
    pub max_in_flight: usize,
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

/// How a translator backend is asked for JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    JsonSchema,
    JsonObject,
    None,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TranslationSection {
    pub enabled: bool,
    pub default_mode: ToolMode,
    pub tools: BTreeMap<String, ToolMode>,
    pub min_properties: usize,
    pub rewrite_nested: bool,
    pub rewrite_conditionals: bool,
    pub rewrite_refs: bool,
    pub attempts: u32,
    pub repair_turns: u32,
    pub timezone: String,
    pub prompts_dir: Option<PathBuf>,
    #[serde(with = "humantime_serde")]
    pub cache_ttl: Duration,
    pub cache_capacity: u64,
    #[serde(with = "humantime_serde")]
    pub keepalive_interval: Duration,
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
            min_properties: 6,
            rewrite_nested: true,
            rewrite_conditionals: true,
            rewrite_refs: true,
            attempts: 2,
            repair_turns: 2,
            timezone: "UTC".into(),
            prompts_dir: None,
            cache_ttl: Duration::from_secs(3600),
            cache_capacity: 10_000,
            keepalive_interval: Duration::from_secs(5),
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

fn default_backend_timeout() -> Duration {
    Duration::from_secs(60)
}
fn default_output_mode() -> OutputMode {
    OutputMode::JsonSchema
}

// ---------------------------------------------------------------------------------------------
// Validated form
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub upstream: UpstreamConfig,
    pub server: ServerSection,
    pub log: LogSection,
    pub translation: TranslationConfig,
    pub tool_calling: ToolCallingConfig,
}

#[derive(Debug, Clone)]
pub struct ToolCallingConfig {
    pub default: CallingMode,
    pub grammar: bool,
    pub native_retry: Duration,
    /// First match wins.
    pub models: Vec<(glob::Pattern, CallingMode)>,
}

impl ToolCallingConfig {
    pub fn mode_for(&self, model: &str) -> CallingMode {
        self.models
            .iter()
            .find(|(pattern, _)| pattern.matches(model))
            .map_or(self.default, |(_, mode)| *mode)
    }
}

#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Always ends with `/`, so that joining `chat/completions` keeps any path prefix.
    pub base_url: Url,
    pub api_key: Option<Secret>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub read_timeout: Duration,
}

#[derive(Debug, Clone)]
pub struct TranslationConfig {
    pub enabled: bool,
    pub default_mode: ToolMode,
    pub tools: BTreeMap<String, ToolMode>,
    pub thresholds: ComplexityThresholds,
    pub attempts: u32,
    pub repair_turns: u32,
    pub timezone: jiff::tz::TimeZone,
    pub timezone_name: String,
    pub prompts_dir: Option<PathBuf>,
    pub cache_ttl: Duration,
    pub cache_capacity: u64,
    pub keepalive_interval: Duration,
    pub temperature: f64,
    pub max_tokens: u32,
    pub upstream_output: OutputMode,
    pub backends: Vec<BackendConfig>,
}

#[derive(Debug, Clone, Copy)]
pub struct ComplexityThresholds {
    pub min_properties: usize,
    pub nested: bool,
    pub conditionals: bool,
    pub refs: bool,
}

#[derive(Debug, Clone)]
pub struct BackendConfig {
    pub base_url: Url,
    pub model: String,
    pub api_key: Option<Secret>,
    pub timeout: Duration,
    pub output: OutputMode,
}

/// Parses an OpenAI-style base URL (`http://host:port/v1`) and makes it joinable.
pub fn parse_base_url(key: &str, raw: &str) -> Result<Url, ConfigError> {
    let mut url =
        Url::parse(raw).map_err(|e| invalid(key, format!("`{raw}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(key, "the scheme must be http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid(key, "the URL has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid(key, "the URL must not carry a query or fragment"));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

fn non_empty(secret: &Secret) -> Option<Secret> {
    (!secret.is_empty()).then(|| secret.clone())
}

fn positive(key: &str, value: Duration) -> Result<Duration, ConfigError> {
    if value.is_zero() {
        return Err(invalid(key, "must be greater than zero"));
    }
    Ok(value)
}

impl Config {
    /// Loads the embedded default, then `file` if given, then the process environment.
    pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
        let vars: Vec<(String, String)> = std::env::vars().collect();
        check_env_names(&vars)?;
        let mut figment = Figment::from(Toml::string(EMBEDDED_DEFAULT));
        if let Some(path) = file {
            if !path.is_file() {
                return Err(invalid(
                    "--config",
                    format!("`{}` is not a readable file", path.display()),
                ));
            }
            figment = figment.merge(Toml::file_exact(path));
        }
        figment = figment.merge(env_provider());
        let mut raw: FileConfig = figment.extract().map_err(load_error(file))?;
        let get = |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        if let Some(key) = get("PLAINCALL_UPSTREAM_API_KEY") {
            raw.upstream.api_key = Secret::new(key);
        }
        if let Some(keys) = get("PLAINCALL_SERVER_ACCESS_KEYS") {
            raw.server.access_keys = keys
                .split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(Secret::new)
                .collect();
        }
        let mut config = Config::validate(raw)?;
        apply_translator_env(&mut config.translation, &vars)?;
        Ok(config)
    }

    /// Loads from a TOML string only, without the environment (tests build configs this way).
    pub fn from_toml(toml: &str) -> Result<Config, ConfigError> {
        let raw: FileConfig = Figment::from(Toml::string(toml))
            .extract()
            .map_err(load_error(None))?;
        Config::validate(raw)
    }

    pub fn validate(raw: FileConfig) -> Result<Config, ConfigError> {
        let listen: SocketAddr = raw.listen.parse().map_err(|e| {
            invalid(
                "listen",
                format!(
                    "`{}` is not an address like 127.0.0.1:8787: {e}",
                    raw.listen
                ),
            )
        })?;
        let upstream = UpstreamConfig {
            base_url: parse_base_url("upstream.url", &raw.upstream.url)?,
            api_key: non_empty(&raw.upstream.api_key),
            connect_timeout: positive("upstream.connect_timeout", raw.upstream.connect_timeout)?,
            timeout: positive("upstream.timeout", raw.upstream.timeout)?,
            read_timeout: positive("upstream.read_timeout", raw.upstream.read_timeout)?,
        };
        if raw.server.max_body_bytes == 0 {
            return Err(invalid(
                "server.max_body_bytes",
                "must be greater than zero",
            ));
        }
        if raw.server.access_keys.iter().any(Secret::is_empty) {
            return Err(invalid("server.access_keys", "keys must not be empty"));
        }
        positive("server.readiness_cache", raw.server.readiness_cache)?;
        positive("server.header_read_timeout", raw.server.header_read_timeout)?;
        positive("server.body_read_timeout", raw.server.body_read_timeout)?;
        positive("server.body_timeout", raw.server.body_timeout)?;
        positive("server.idle_timeout", raw.server.idle_timeout)?;
        if raw.server.max_connections == 0 {
            return Err(invalid(
                "server.max_connections",
                "must be greater than zero",
            ));
        }
        if raw.server.max_in_flight == 0 {
            return Err(invalid("server.max_in_flight", "must be greater than zero"));
        }
        if tracing_subscriber::EnvFilter::try_new(&raw.log.level).is_err() {
            return Err(invalid(
                "log.level",
                format!(
                    "`{}` is not a level or filter such as info or plaincall=debug",
                    raw.log.level
                ),
            ));
        }
        let tool_calling = ToolCallingConfig {
            default: raw.tool_calling.default,
            grammar: raw.tool_calling.grammar,
            native_retry: positive("tool_calling.native_retry", raw.tool_calling.native_retry)?,
            models: raw
                .tool_calling
                .models
                .iter()
                .enumerate()
                .map(|(i, rule)| {
                    glob::Pattern::new(&rule.pattern)
                        .map(|p| (p, rule.mode))
                        .map_err(|e| {
                            invalid(&format!("tool_calling.models[{i}].pattern"), e.to_string())
                        })
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let t = raw.translation;
        if t.attempts == 0 {
            return Err(invalid("translation.attempts", "must be at least 1"));
        }
        let timezone = jiff::tz::TimeZone::get(&t.timezone).map_err(|e| {
            invalid(
                "translation.timezone",
                format!("`{}` is not a known IANA time zone: {e}", t.timezone),
            )
        })?;
        if let Some(dir) = &t.prompts_dir {
            if !dir.is_dir() {
                return Err(invalid(
                    "translation.prompts_dir",
                    format!("`{}` is not a directory", dir.display()),
                ));
            }
        }
        if !(0.0..=2.0).contains(&t.temperature) {
            return Err(invalid(
                "translation.temperature",
                "must be between 0 and 2",
            ));
        }
        if t.cache_capacity == 0 {
            return Err(invalid(
                "translation.cache_capacity",
                "must be greater than zero",
            ));
        }
        let backends = t
            .backends
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let key = |k: &str| format!("translation.backends[{i}].{k}");
                if b.model.trim().is_empty() {
                    return Err(invalid(&key("model"), "must not be empty"));
                }
                Ok(BackendConfig {
                    base_url: parse_base_url(&key("url"), &b.url)?,
                    model: b.model.clone(),
                    api_key: non_empty(&b.api_key),
                    timeout: positive(&key("timeout"), b.timeout)?,
                    output: b.output,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Config {
            listen,
            upstream,
            server: raw.server,
            log: raw.log,
            tool_calling,
            translation: TranslationConfig {
                enabled: t.enabled,
                default_mode: t.default_mode,
                tools: t.tools,
                thresholds: ComplexityThresholds {
                    min_properties: t.min_properties,
                    nested: t.rewrite_nested,
                    conditionals: t.rewrite_conditionals,
                    refs: t.rewrite_refs,
                },
                attempts: t.attempts,
                repair_turns: t.repair_turns,
                timezone,
                timezone_name: t.timezone,
                prompts_dir: t.prompts_dir,
                cache_ttl: positive("translation.cache_ttl", t.cache_ttl)?,
                cache_capacity: t.cache_capacity,
                keepalive_interval: positive(
                    "translation.keepalive_interval",
                    t.keepalive_interval,
                )?,
                temperature: t.temperature,
                max_tokens: t.max_tokens,
                upstream_output: t.upstream_output,
                backends,
            },
        })
    }

    /// The effective settings as TOML, secrets masked: what `plaincall check` prints.
    pub fn effective_toml(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, k: &str, v: String| {
            out.push_str(k);
            out.push_str(" = ");
            out.push_str(&v);
            out.push('\n');
        };
        let q = |s: &str| format!("{s:?}");
        let d = |d: Duration| q(&humantime::format_duration(d).to_string());
        line(&mut out, "listen", q(&self.listen.to_string()));
        out.push_str("\n[upstream]\n");
        line(&mut out, "url", q(&redacted(&self.upstream.base_url)));
        line(
            &mut out,
            "api_key",
            q(&self
                .upstream
                .api_key
                .as_ref()
                .map(Secret::masked)
                .unwrap_or_default()),
        );
        line(
            &mut out,
            "connect_timeout",
            d(self.upstream.connect_timeout),
        );
        line(&mut out, "timeout", d(self.upstream.timeout));
        line(&mut out, "read_timeout", d(self.upstream.read_timeout));
        out.push_str("\n[server]\n");
        line(
            &mut out,
            "max_body_bytes",
            self.server.max_body_bytes.to_string(),
        );
        let keys: Vec<String> = self
            .server
            .access_keys
            .iter()
            .map(|k| q(&k.masked()))
            .collect();
        line(&mut out, "access_keys", format!("[{}]", keys.join(", ")));
        line(&mut out, "shutdown_grace", d(self.server.shutdown_grace));
        line(&mut out, "readiness_cache", d(self.server.readiness_cache));
        line(
            &mut out,
            "header_read_timeout",
            d(self.server.header_read_timeout),
        );
        line(
            &mut out,
            "body_read_timeout",
            d(self.server.body_read_timeout),
        );
        line(&mut out, "body_timeout", d(self.server.body_timeout));
        line(&mut out, "idle_timeout", d(self.server.idle_timeout));
        line(
            &mut out,
            "max_connections",
            self.server.max_connections.to_string(),
        );
        line(
            &mut out,
            "max_in_flight",
            self.server.max_in_flight.to_string(),
        );
        out.push_str("\n[log]\n");
        line(
            &mut out,
            "format",
            q(match self.log.format {
                LogFormat::Human => "human",
                LogFormat::Json => "json",
            }),
        );
        line(&mut out, "level", q(&self.log.level));
        let t = &self.translation;
        out.push_str("\n[translation]\n");
        line(&mut out, "enabled", t.enabled.to_string());
        line(&mut out, "default_mode", q(tool_mode_name(t.default_mode)));
        line(
            &mut out,
            "min_properties",
            t.thresholds.min_properties.to_string(),
        );
        line(&mut out, "rewrite_nested", t.thresholds.nested.to_string());
        line(
            &mut out,
            "rewrite_conditionals",
            t.thresholds.conditionals.to_string(),
        );
        line(&mut out, "rewrite_refs", t.thresholds.refs.to_string());
        line(&mut out, "attempts", t.attempts.to_string());
        line(&mut out, "repair_turns", t.repair_turns.to_string());
        line(&mut out, "timezone", q(&t.timezone_name));
        if let Some(dir) = &t.prompts_dir {
            line(&mut out, "prompts_dir", q(&dir.display().to_string()));
        }
        line(&mut out, "cache_ttl", d(t.cache_ttl));
        line(&mut out, "cache_capacity", t.cache_capacity.to_string());
        line(&mut out, "keepalive_interval", d(t.keepalive_interval));
        line(&mut out, "temperature", t.temperature.to_string());
        line(&mut out, "max_tokens", t.max_tokens.to_string());
        line(
            &mut out,
            "upstream_output",
            q(output_mode_name(t.upstream_output)),
        );
        if !t.tools.is_empty() {
            out.push_str("\n[translation.tools]\n");
            for (name, mode) in &t.tools {
                line(&mut out, &q(name), q(tool_mode_name(*mode)));
            }
        }
        for b in &t.backends {
            out.push_str("\n[[translation.backends]]\n");
            line(&mut out, "url", q(&redacted(&b.base_url)));
            line(&mut out, "model", q(&b.model));
            line(
                &mut out,
                "api_key",
                q(&b.api_key.as_ref().map(Secret::masked).unwrap_or_default()),
            );
            line(&mut out, "timeout", d(b.timeout));
            line(&mut out, "output", q(output_mode_name(b.output)));
        }
        let c = &self.tool_calling;
        out.push_str("\n[tool_calling]\n");
        line(&mut out, "default", q(calling_mode_name(c.default)));
        line(&mut out, "grammar", c.grammar.to_string());
        line(&mut out, "native_retry", d(c.native_retry));
        for (pattern, mode) in &c.models {
            out.push_str("\n[[tool_calling.models]]\n");
            line(&mut out, "pattern", q(pattern.as_str()));
            line(&mut out, "mode", q(calling_mode_name(*mode)));
        }
        out
    }
}

pub fn calling_mode_name(mode: CallingMode) -> &'static str {
    match mode {
        CallingMode::Native => "native",
        CallingMode::Prompt => "prompt",
        CallingMode::Auto => "auto",
    }
}

pub fn tool_mode_name(mode: ToolMode) -> &'static str {
    match mode {
        ToolMode::Auto => "auto",
        ToolMode::Nl => "nl",
        ToolMode::Passthrough => "passthrough",
    }
}

pub fn output_mode_name(mode: OutputMode) -> &'static str {
    match mode {
        OutputMode::JsonSchema => "json_schema",
        OutputMode::JsonObject => "json_object",
        OutputMode::None => "none",
    }
}

/// Every `PLAINCALL_*` variable must name a key, so that a typo is an error, not a no-op.
fn check_env_names(vars: &[(String, String)]) -> Result<(), ConfigError> {
    let defaults = serde_json::to_value(FileConfig::default()).unwrap_or_default();
    let mut known: Vec<String> = ENV_SPECIAL.iter().map(|s| (*s).to_owned()).collect();
    if let Some(top) = defaults.as_object() {
        for (key, value) in top {
            known.push(key.clone());
            if let (true, Some(section)) = (ENV_SECTIONS.contains(&key.as_str()), value.as_object())
            {
                known.extend(section.keys().map(|k| format!("{key}_{k}")));
            }
        }
    }
    for (name, _) in vars {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        if !known.iter().any(|k| k.eq_ignore_ascii_case(rest)) {
            return Err(invalid(
                name,
                "unknown environment variable (proxy.toml lists every key; a section key is PLAINCALL_<SECTION>_<KEY>)",
            ));
        }
    }
    Ok(())
}

/// A URL fit for logs and `plaincall check`: any password replaced.
pub fn redacted(url: &Url) -> String {
    let mut shown = url.clone();
    if shown.password().is_some() {
        let _ = shown.set_password(Some("***"));
    }
    shown.to_string()
}

/// `PLAINCALL_UPSTREAM_URL` → `upstream.url`; `PLAINCALL_LISTEN` → `listen`.
fn env_provider() -> Env {
    Env::prefixed(ENV_PREFIX)
        .filter(|key| !ENV_SPECIAL.contains(&key.as_str().to_ascii_lowercase().as_str()))
        .map(|key| {
            let lower = key.as_str().to_ascii_lowercase();
            for section in ENV_SECTIONS {
                if let Some(rest) = lower
                    .strip_prefix(section)
                    .and_then(|r| r.strip_prefix('_'))
                {
                    return format!("{section}.{rest}").into();
                }
            }
            lower.into()
        })
}

/// `PLAINCALL_TRANSLATOR_URL`/`_MODEL`/`_API_KEY`: one backend, as containers are configured.
/// It replaces the backend list from the file.
fn apply_translator_env(
    translation: &mut TranslationConfig,
    vars: &[(String, String)],
) -> Result<(), ConfigError> {
    let get = |name: &str| {
        vars.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    let url = get("PLAINCALL_TRANSLATOR_URL");
    let model = get("PLAINCALL_TRANSLATOR_MODEL");
    let api_key = get("PLAINCALL_TRANSLATOR_API_KEY");
    match (url, model) {
        (None, None) => {
            if api_key.is_some() {
                return Err(invalid(
                    "PLAINCALL_TRANSLATOR_API_KEY",
                    "needs PLAINCALL_TRANSLATOR_URL and PLAINCALL_TRANSLATOR_MODEL",
                ));
            }
            Ok(())
        }
        (Some(url), Some(model)) => {
            translation.backends = vec![BackendConfig {
                base_url: parse_base_url("PLAINCALL_TRANSLATOR_URL", &url)?,
                model,
                api_key: api_key.map(Secret::new),
                timeout: default_backend_timeout(),
                output: default_output_mode(),
            }];
            Ok(())
        }
        (Some(_), None) => Err(invalid(
            "PLAINCALL_TRANSLATOR_MODEL",
            "must be set together with PLAINCALL_TRANSLATOR_URL",
        )),
        (None, Some(_)) => Err(invalid(
            "PLAINCALL_TRANSLATOR_URL",
            "must be set together with PLAINCALL_TRANSLATOR_MODEL",
        )),
    }
}

/// A warning for an OpenAI-style base URL without a version segment (`/v1`): llama-server
/// answers on both paths, vLLM and OpenAI answer 404 without it. `setting` names the key.
pub fn missing_v1_warning(url: &Url, setting: &str) -> Option<String> {
    let versioned = url.path_segments().is_some_and(|mut segments| {
        segments.any(|s| {
            s.strip_prefix('v')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    });
    if versioned {
        return None;
    }
    let mut suggested = url.clone();
    suggested.set_path(&format!("{}v1", url.path()));
    Some(format!(
        "{setting} `{}` has no /v1: llama-server answers there, but vLLM and OpenAI answer 404; if requests fail, set {setting} to `{}`",
        redacted(url),
        redacted(&suggested)
    ))
}
