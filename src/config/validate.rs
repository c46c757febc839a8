//! From the file's form to the validated one; every error names the key.

use std::net::SocketAddr;
use std::time::Duration;

use url::Url;

use super::*;

/// Parses an OpenAI-style base URL (`http://host:port/v1`) and makes it joinable.
pub(crate) fn parse_base_url(key: &str, raw: &str) -> Result<Url, ConfigError> {
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

fn at_least_one(key: &str, value: u32) -> Result<u32, ConfigError> {
    if value == 0 {
        return Err(invalid(key, "must be 1 or more"));
    }
    Ok(value)
}

fn positive(key: &str, value: Duration) -> Result<Duration, ConfigError> {
    if value.is_zero() {
        return Err(invalid(key, "must be greater than zero"));
    }
    Ok(value)
}

impl Config {
    /// Checks every section of the file's form, each in its own function below.
    pub fn validate(raw: FileConfig) -> Result<Config, ConfigError> {
        let listen = listen(&raw.listen)?;
        let upstream = upstream(&raw.upstream)?;
        server(&raw.server)?;
        log(&raw.log)?;
        let telemetry = telemetry(raw.telemetry)?;
        let tool_calling = tool_calling(&raw.tool_calling)?;
        let translation = translation(raw.translation)?;
        let models = models(&raw.models)?;
        let redis = redis(&raw.redis)?;
        Ok(Config {
            redis,
            listen,
            upstream,
            server: raw.server,
            log: raw.log,
            telemetry,
            tool_calling,
            translation,
            models,
        })
    }
}

fn models(
    raw: &indexmap::IndexMap<String, String>,
) -> Result<Vec<(glob::Pattern, String)>, ConfigError> {
    let mut patterns: Vec<(&String, &String)> = raw.iter().collect();
    patterns.sort_by_key(|(pattern, _)| std::cmp::Reverse(pattern.len()));
    patterns
        .into_iter()
        .map(|(pattern, target)| {
            let key = format!("models.\"{pattern}\"");
            if target.trim().is_empty() {
                return Err(invalid(&key, "must name a model"));
            }
            glob::Pattern::new(pattern)
                .map(|p| (p, target.clone()))
                .map_err(|e| invalid(&key, e.to_string()))
        })
        .collect()
}

fn listen(raw: &str) -> Result<SocketAddr, ConfigError> {
    raw.parse().map_err(|e| {
        invalid(
            "listen",
            format!("`{raw}` is not an address like 127.0.0.1:8787: {e}"),
        )
    })
}

fn upstream(raw: &UpstreamSection) -> Result<UpstreamConfig, ConfigError> {
    Ok(UpstreamConfig {
        base_url: parse_base_url("upstream.url", &raw.url)?,
        api_key: non_empty(&raw.api_key),
        connect_timeout: positive("upstream.connect_timeout", raw.connect_timeout)?,
        timeout: positive("upstream.timeout", raw.timeout)?,
        read_timeout: positive("upstream.read_timeout", raw.read_timeout)?,
        pool_idle_timeout: positive("upstream.pool_idle_timeout", raw.pool_idle_timeout)?,
        formats: formats(&raw.formats)?,
        keep_params: params("upstream.keep_params", &raw.keep_params, &[])?,
        drop_params: params("upstream.drop_params", &raw.drop_params, REQUIRED_FIELDS)?,
        hosted_tools: hosted_tools(&raw.hosted_tools)?,
    })
}

fn hosted_tools(
    raw: &std::collections::BTreeMap<String, super::file::HostedTools>,
) -> Result<std::collections::BTreeMap<String, super::file::HostedTools>, ConfigError> {
    bounded_names("upstream.hosted_tools", raw.keys().map(String::as_str))?;
    Ok(raw.clone())
}

/// At most [`MAX_PARAMS`] names of 1 to [`MAX_PARAM_LEN`] bytes: the field names and tool
/// kinds a request is matched against.
fn bounded_names<'a>(
    key: &str,
    names: impl ExactSizeIterator<Item = &'a str>,
) -> Result<(), ConfigError> {
    if names.len() > MAX_PARAMS {
        return Err(invalid(key, format!("at most {MAX_PARAMS} names")));
    }
    for name in names {
        if name.is_empty() || name.len() > MAX_PARAM_LEN {
            return Err(invalid(
                key,
                format!("`{name}`: a name of 1 to {MAX_PARAM_LEN} bytes is required"),
            ));
        }
    }
    Ok(())
}

/// Fields the pipe cannot do without: never dropped.
const REQUIRED_FIELDS: &[&str] = &["model", "messages"];
/// The most names in `keep_params`, `drop_params` or `hosted_tools`, and (below) the longest.
const MAX_PARAMS: usize = 64;
const MAX_PARAM_LEN: usize = 64;

fn params(key: &str, raw: &[String], forbidden: &[&str]) -> Result<Vec<String>, ConfigError> {
    bounded_names(key, raw.iter().map(|name| name.trim()))?;
    let mut names = Vec::with_capacity(raw.len());
    for name in raw.iter().map(|name| name.trim()) {
        if forbidden.contains(&name) {
            return Err(invalid(
                key,
                format!("`{name}` cannot be dropped: every chat request needs it"),
            ));
        }
        if !names.iter().any(|n: &String| n == name) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

fn formats(raw: &[WireFormat]) -> Result<Vec<WireFormat>, ConfigError> {
    if !raw.contains(&WireFormat::Chat) {
        return Err(invalid(
            "upstream.formats",
            "must include \"chat\": plaincall's pipe speaks Chat Completions to the upstream",
        ));
    }
    let mut formats = raw.to_vec();
    formats.dedup();
    Ok(formats)
}

fn server(raw: &ServerSection) -> Result<(), ConfigError> {
    if raw.max_body_bytes == 0 {
        return Err(invalid(
            "server.max_body_bytes",
            "must be greater than zero",
        ));
    }
    if raw.access_keys.iter().any(Secret::is_empty) {
        return Err(invalid("server.access_keys", "keys must not be empty"));
    }
    positive("server.readiness_cache", raw.readiness_cache)?;
    positive("server.header_read_timeout", raw.header_read_timeout)?;
    positive("server.body_read_timeout", raw.body_read_timeout)?;
    positive("server.body_timeout", raw.body_timeout)?;
    positive("server.idle_timeout", raw.idle_timeout)?;
    if raw.max_connections == 0 {
        return Err(invalid(
            "server.max_connections",
            "must be greater than zero",
        ));
    }
    if raw.max_in_flight == 0 {
        return Err(invalid("server.max_in_flight", "must be greater than zero"));
    }
    if raw.max_buffered_bytes < raw.max_body_bytes.saturating_mul(crate::budget::BODY_COST) {
        return Err(invalid(
            "server.max_buffered_bytes",
            format!(
                "must be at least {} times server.max_body_bytes ({} bytes), or no body of the largest size could be read",
                crate::budget::BODY_COST,
                raw.max_body_bytes.saturating_mul(crate::budget::BODY_COST)
            ),
        ));
    }
    Ok(())
}

fn telemetry(raw: TelemetrySection) -> Result<TelemetryConfig, ConfigError> {
    let traces_url = match raw.traces_endpoint.trim() {
        "" => None,
        url => Some(traces_url("telemetry.traces_endpoint", url)?),
    };
    Ok(TelemetryConfig {
        traces_url,
        service_name: raw.service_name,
        capture_content: raw.capture_content,
        export_timeout: positive("telemetry.export_timeout", raw.export_timeout)?,
    })
}

/// An OTLP/HTTP traces URL: http or https, with a host.
pub(crate) fn traces_url(key: &str, raw: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(raw).map_err(|e| invalid(key, format!("`{raw}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(invalid(key, format!("`{raw}` is not an http or https URL")));
    }
    Ok(url)
}

fn log(raw: &LogSection) -> Result<(), ConfigError> {
    if tracing_subscriber::EnvFilter::try_new(&raw.level).is_err() {
        return Err(invalid(
            "log.level",
            format!(
                "`{}` is not a level or filter such as info or plaincall=debug",
                raw.level
            ),
        ));
    }
    Ok(())
}

fn tool_calling(raw: &ToolCallingSection) -> Result<ToolCallingConfig, ConfigError> {
    let models = raw
        .models
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            glob::Pattern::new(&rule.pattern)
                .map(|p| (p, rule.mode))
                .map_err(|e| invalid(&format!("tool_calling.models[{i}].pattern"), e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ToolCallingConfig {
        default: raw.default,
        grammar: raw.grammar,
        native_retry: positive("tool_calling.native_retry", raw.native_retry)?,
        text_calls: raw.text_calls,
        models,
    })
}

fn translation(t: TranslationSection) -> Result<TranslationConfig, ConfigError> {
    if t.attempts == 0 {
        return Err(invalid("translation.attempts", "must be at least 1"));
    }
    let timezone = jiff::tz::TimeZone::get(&t.timezone).map_err(|e| {
        invalid(
            "translation.timezone",
            format!("`{}` is not a known IANA time zone: {e}", t.timezone),
        )
    })?;
    if let Some(dir) = t.prompts_dir.as_ref().filter(|d| !d.is_dir()) {
        return Err(invalid(
            "translation.prompts_dir",
            format!("`{}` is not a directory", dir.display()),
        ));
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
    Ok(TranslationConfig {
        enabled: t.enabled,
        default_mode: t.default_mode,
        thresholds: ComplexityThresholds {
            min_properties: t.min_properties,
            nested: t.rewrite_nested,
            optional_nested: t.rewrite_optional_nested,
            conditionals: t.rewrite_conditionals,
            refs: t.rewrite_refs,
        },
        attempts: t.attempts,
        repair_turns: t.repair_turns,
        timezone,
        cache_ttl: positive("translation.cache_ttl", t.cache_ttl)?,
        cache_capacity: t.cache_capacity,
        keepalive_interval: positive("translation.keepalive_interval", t.keepalive_interval)?,
        budget: positive("translation.budget", t.budget)?,
        temperature: t.temperature,
        max_tokens: t.max_tokens,
        repair_max_tokens: at_least_one("translation.repair_max_tokens", t.repair_max_tokens)?,
        description_limit: t.description_limit,
        upstream_output: t.upstream_output,
        backends: backends(&t.backends)?,
        tools: t.tools,
        check_calls: t.check_calls,
        checks: t.checks,
        grounding: t.grounding,
        grounding_tools: t.grounding_tools,
        grounding_rules_off: t.grounding_rules_off,
        split_actions: t.split_actions,
        warm_prefixes: t.warm_prefixes,
        timezone_name: t.timezone,
        prompts_dir: t.prompts_dir,
    })
}

fn backends(raw: &[BackendSection]) -> Result<Vec<BackendConfig>, ConfigError> {
    raw.iter()
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
        .collect()
}

fn redis(raw: &RedisSection) -> Result<RedisConfig, ConfigError> {
    let key = "redis.url";
    let timeout = positive("redis.timeout", raw.timeout)?;
    let connect_timeout = positive("redis.connect_timeout", raw.connect_timeout)?;
    let retry_after = positive("redis.retry_after", raw.retry_after)?;
    if raw.prefix.len() > 64 {
        return Err(invalid("redis.prefix", "at most 64 bytes"));
    }
    let mut config = RedisConfig {
        url: None,
        shown: String::new(),
        password_file: raw.password_file.clone(),
        prefix: raw.prefix.clone(),
        timeout,
        connect_timeout,
        retry_after,
        max_value_bytes: raw.max_value_bytes,
    };
    if raw.url.is_empty() {
        return Ok(config);
    }
    let mut url = Url::parse(&raw.url).map_err(|e| invalid(key, format!("not a URL: {e}")))?;
    if !matches!(url.scheme(), "redis" | "rediss") {
        return Err(invalid(key, "the scheme must be redis or rediss (TLS)"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid(key, "the URL has no host"));
    }
    let password = match &raw.password_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                invalid("redis.password_file", format!("`{}`: {e}", path.display()))
            })?;
            Some(text.trim_end_matches(['\r', '\n']).to_owned())
        }
        None => non_empty(&raw.password).map(|p| p.expose().to_owned()),
    };
    if let Some(password) = password {
        url.set_password(Some(&password))
            .map_err(|()| invalid(key, "cannot carry a password"))?;
    }
    config.shown = redacted(&url);
    config.url = Some(Secret::new(url.to_string()));
    Ok(config)
}
