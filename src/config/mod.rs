//! Configuration, one file per job: the file format (`file.rs`), validation (`validate.rs`),
//! environment variables (`env.rs`), the effective settings printed (`print.rs`).
//!
//! Configuration: an embedded default, an optional TOML file, then `PLAINCALL_*` environment
//! variables, merged by figment. Loading happens in two steps: [`FileConfig`] is the serde form
//! (every key has a default, unknown keys are refused), [`Config`] is the validated form the
//! rest of the crate uses.

mod env;
use env::{apply_translator_env, check_env_names, env_provider};
mod file;
mod print;
mod validate;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use figment::providers::{Format, Toml};
use figment::Figment;
use url::Url;

pub(crate) use file::*;
pub(crate) use validate::parse_base_url;

/// The configuration used when no file is given: every key at its default.
const EMBEDDED_DEFAULT: &str = "";

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

#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub upstream: UpstreamConfig,
    pub server: ServerSection,
    pub log: LogSection,
    pub telemetry: TelemetryConfig,
    pub translation: TranslationConfig,
    pub tool_calling: ToolCallingConfig,
    /// `[models]`, longest pattern first: the most specific that matches a client's model
    /// names the upstream's (a file's table comes without its order).
    pub models: Vec<(glob::Pattern, String)>,
    pub redis: RedisConfig,
}

/// `[telemetry]` with the standard `OTEL_*` variables applied: `traces_url` is `None` when no
/// spans are exported.
#[derive(Debug, Clone, PartialEq)]
pub struct TelemetryConfig {
    pub traces_url: Option<Url>,
    pub service_name: String,
    pub capture_content: bool,
    pub export_timeout: Duration,
}

/// `[redis]`, checked: `url` is `None` when state stays in the process.
#[derive(Debug, Clone)]
pub struct RedisConfig {
    /// With the password (from `password`, `password_file` or the environment) set in it.
    pub url: Option<Secret>,
    /// The URL as logs and `plaincall check` show it: no password.
    pub shown: String,
    pub password_file: Option<PathBuf>,
    pub prefix: String,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub retry_after: Duration,
    pub max_value_bytes: u64,
}

impl Config {
    /// The model the upstream gets for the one a client named, when an alias matches it.
    pub fn aliased(&self, model: &str) -> Option<&str> {
        self.models
            .iter()
            .find(|(pattern, _)| pattern.matches(model))
            .map(|(_, target)| target.as_str())
            .filter(|target| *target != model)
    }
}

#[derive(Debug, Clone)]
pub struct ToolCallingConfig {
    pub default: CallingMode,
    pub grammar: bool,
    pub native_retry: Duration,
    /// Native mode reads a reply that opens with a call written as text as that call
    /// ([`crate::pipe::text_calls`]).
    pub text_calls: bool,
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
    /// An idle pooled connection (upstream's and translators') is closed after this.
    pub pool_idle_timeout: Duration,
    /// The formats the upstream serves itself; always holds `Chat`.
    pub formats: Vec<file::WireFormat>,
    /// `keep_params` and `drop_params`: top-level fields converted requests keep, and fields
    /// taken out of every chat request.
    pub keep_params: Vec<String>,
    pub drop_params: Vec<String>,
    /// `hosted_tools`, by kind; `default` for the rest (drop when not given).
    pub hosted_tools: std::collections::BTreeMap<String, file::HostedTools>,
}

/// One translator backend with the defaults for everything but its address, model and key
/// (`PLAINCALL_TRANSLATOR_*`, `serve --translator`); `key` names the setting in errors.
pub(crate) fn single_backend(
    key: &str,
    url: &str,
    model: String,
    api_key: Option<Secret>,
) -> Result<BackendConfig, ConfigError> {
    Ok(BackendConfig {
        base_url: parse_base_url(key, url)?,
        model,
        api_key,
        timeout: default_backend_timeout(),
        output: default_output_mode(),
    })
}

/// A listen address, as `listen` takes it.
pub(crate) fn parse_listen(key: &str, raw: &str) -> Result<SocketAddr, ConfigError> {
    raw.parse()
        .map_err(|e| invalid(key, format!("`{raw}` is not an address and port: {e}")))
}

impl UpstreamConfig {
    pub fn serves(&self, format: file::WireFormat) -> bool {
        self.formats.contains(&format)
    }

    /// The policy for a hosted tool of `kind`: its own entry, else that of its kind without a
    /// version suffix (`web_search` for Anthropic's `web_search_20250305`), else `default`.
    pub fn hosted_tool_policy(&self, kind: &str) -> file::HostedTools {
        let unversioned = kind
            .rsplit_once('_')
            .filter(|(_, version)| {
                !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit())
            })
            .map(|(base, _)| base);
        [Some(kind), unversioned, Some("default")]
            .into_iter()
            .flatten()
            .find_map(|key| self.hosted_tools.get(key).copied())
            .unwrap_or(file::HostedTools::Drop)
    }
}

#[derive(Debug, Clone)]
pub struct TranslationConfig {
    pub enabled: bool,
    pub default_mode: ToolMode,
    pub tools: BTreeMap<String, ToolMode>,
    pub check_calls: CheckMode,
    pub checks: BTreeMap<String, CheckMode>,
    pub grounding: Grounding,
    pub grounding_tools: BTreeMap<String, Grounding>,
    pub grounding_rules_off: Vec<GroundingRule>,
    pub split_actions: bool,
    pub warm_prefixes: bool,
    pub thresholds: ComplexityThresholds,
    pub attempts: u32,
    pub repair_turns: u32,
    pub timezone: jiff::tz::TimeZone,
    pub timezone_name: String,
    pub prompts_dir: Option<PathBuf>,
    pub cache_ttl: Duration,
    pub cache_capacity: u64,
    pub keepalive_interval: Duration,
    pub budget: Duration,
    pub temperature: f64,
    pub max_tokens: u32,
    pub repair_max_tokens: u32,
    pub description_limit: usize,
    pub upstream_output: OutputMode,
    pub backends: Vec<BackendConfig>,
}

#[derive(Debug, Clone, Copy)]
pub struct ComplexityThresholds {
    pub min_properties: usize,
    pub nested: bool,
    /// `nested` counts a property the schema does not require.
    pub optional_nested: bool,
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
        if let Some(password) = get("PLAINCALL_REDIS_PASSWORD") {
            raw.redis.password = Secret::new(password);
        }
        let mut config = Config::validate(raw)?;
        apply_translator_env(&mut config.translation, &vars)?;
        apply_otel_env(&mut config.telemetry, &vars)?;
        Ok(config)
    }

    /// Loads from a TOML string only, without the environment (tests build configs this way).
    pub fn from_toml(toml: &str) -> Result<Config, ConfigError> {
        let raw: FileConfig = Figment::from(Toml::string(toml))
            .extract()
            .map_err(load_error(None))?;
        Config::validate(raw)
    }
}

pub(crate) fn calling_mode_name(mode: CallingMode) -> &'static str {
    match mode {
        CallingMode::Native => "native",
        CallingMode::Prompt => "prompt",
        CallingMode::Auto => "auto",
    }
}

pub(crate) fn tool_mode_name(mode: ToolMode) -> &'static str {
    match mode {
        ToolMode::Auto => "auto",
        ToolMode::Nl => "nl",
        ToolMode::Passthrough => "passthrough",
    }
}

/// A URL fit for logs and `plaincall check`: any password replaced.
pub(crate) fn redacted(url: &Url) -> String {
    let mut shown = url.clone();
    if shown.password().is_some() {
        let _ = shown.set_password(Some("***"));
    }
    shown.to_string()
}
/// A warning for an OpenAI-style base URL without a version segment (`/v1`): llama-server
/// answers on both paths, vLLM and OpenAI answer 404 without it. `setting` names the key.
pub(crate) fn missing_v1_warning(url: &Url, setting: &str) -> Option<String> {
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

impl TranslationConfig {
    /// How calls to `tool`, when it is not rewritten, are checked.
    pub fn check_for(&self, tool: &str) -> CheckMode {
        self.checks.get(tool).copied().unwrap_or(self.check_calls)
    }

    /// How the values of `tool`'s translated calls are grounded.
    pub fn grounding_for(&self, tool: &str) -> Grounding {
        self.grounding_tools
            .get(tool)
            .copied()
            .unwrap_or(self.grounding)
    }
}

/// The standard OpenTelemetry variables, which win over `[telemetry]`:
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL), else `OTEL_EXPORTER_OTLP_ENDPOINT`
/// (a base, `/v1/traces` added); `OTEL_SERVICE_NAME`;
/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`; `OTEL_SDK_DISABLED=true` or
/// `OTEL_TRACES_EXPORTER=none` turn traces off whatever else says.
fn apply_otel_env(
    telemetry: &mut TelemetryConfig,
    vars: &[(String, String)],
) -> Result<(), ConfigError> {
    let get = |name: &str| {
        vars.iter()
            .find(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(_, v)| v.trim().to_owned())
    };
    if let Some(url) = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        telemetry.traces_url = Some(validate::traces_url(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            &url,
        )?);
    } else if let Some(base) = get("OTEL_EXPORTER_OTLP_ENDPOINT") {
        let url = format!("{}/v1/traces", base.trim_end_matches('/'));
        telemetry.traces_url = Some(validate::traces_url("OTEL_EXPORTER_OTLP_ENDPOINT", &url)?);
    }
    if let Some(name) = get("OTEL_SERVICE_NAME") {
        telemetry.service_name = name;
    }
    if let Some(capture) = get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") {
        telemetry.capture_content = capture.eq_ignore_ascii_case("true");
    }
    let off = get("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || get("OTEL_TRACES_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"));
    if off {
        telemetry.traces_url = None;
    }
    Ok(())
}
