//! What `serve` says when it starts: one summary line, then a probe of the upstream and of
//! each translator backend that names the URL and the setting to change when one is not there,
//! and of the upstream's own routes for the formats `upstream.formats` names.
//! `eval` uses the same probes to stop before running cases against nothing.

use std::net::SocketAddr;
use std::time::Duration;

use url::Url;

use crate::config::{calling_mode_name, missing_v1_warning, redacted, Config, Secret, WireFormat};
use crate::error::{shown_url, ProxyError};
use crate::upstream::UpstreamClient;

const PROBE_TIMEOUT: Duration = Duration::from_secs(3);
/// What a probe's timeout error names as its limit.
const PROBE_BOUND: &str = "the start-up probe's fixed bound";

/// The one line `serve` logs once listening: where it listens, where requests go, who
/// translates and how tools are asked for. Fields, so that JSON logs keep them apart.
pub(crate) fn log_summary(config: &Config, bound: SocketAddr) {
    let translator = if !config.translation.enabled {
        "off (translation.enabled = false)".to_owned()
    } else if config.translation.backends.is_empty() {
        "none: the upstream translates with the request's model".to_owned()
    } else {
        config
            .translation
            .backends
            .iter()
            .map(|b| format!("{} at {}", b.model, redacted(&b.base_url)))
            .collect::<Vec<_>>()
            .join(", then ")
    };
    let tool_calling = match config.tool_calling.default {
        crate::config::CallingMode::Auto => {
            "auto (native tools until the upstream refuses them for a model, then prompt)"
        }
        mode => calling_mode_name(mode),
    };
    tracing::info!(
        listen = %bound,
        base_url = %format!("http://{bound}/v1"),
        upstream = %redacted(&config.upstream.base_url),
        translator = %translator,
        tool_calling,
        shared_state = %match &config.redis.url {
            Some(_) => format!("redis at {} (keys under {:?})", config.redis.shown, config.redis.prefix),
            None => "this process only (no redis.url)".to_owned(),
        },
        traces = %match &config.telemetry.traces_url {
            Some(url) => format!(
                "to {}{}",
                redacted(url),
                if config.telemetry.capture_content { " with content" } else { "" }
            ),
            None => "off (no OTEL_EXPORTER_OTLP_ENDPOINT)".to_owned(),
        },
        "plaincall listening"
    );
}

/// A server plaincall talks to, and the setting that says where it is.
pub(crate) struct Target {
    pub role: String,
    pub url: Url,
    pub setting: String,
    pub api_key: Option<Secret>,
}

pub(crate) fn targets(config: &Config) -> Vec<Target> {
    let mut out = vec![Target {
        role: "upstream".into(),
        url: config.upstream.base_url.clone(),
        setting: "upstream.url (env PLAINCALL_UPSTREAM_URL)".into(),
        api_key: config.upstream.api_key.clone(),
    }];
    if config.translation.enabled {
        for (i, b) in config.translation.backends.iter().enumerate() {
            out.push(Target {
                role: format!("translator {}", b.model),
                url: b.base_url.clone(),
                setting: format!("translation.backends[{i}].url (env PLAINCALL_TRANSLATOR_URL)"),
                api_key: b.api_key.clone(),
            });
        }
    }
    out
}

/// What a probe found.
pub(crate) enum Probe {
    Reachable,
    /// It answered, but not as an OpenAI-compatible server would: worth a warning only.
    Doubtful(String),
    /// Nothing answered.
    Unreachable(String),
}

/// `GET {url}models`: any answer but a 3xx, 401, 403, 404 or 5xx means an OpenAI-compatible
/// server is there; those are doubtful (a warning naming the setting), no answer is unreachable.
pub(crate) async fn probe(target: &Target) -> Probe {
    let shown = target
        .url
        .join("models")
        .map_or_else(|_| shown_url(&target.url), |url| shown_url(&url));
    let client = match UpstreamClient::one_off(
        target.url.clone(),
        target.api_key.clone(),
        PROBE_TIMEOUT,
        PROBE_BOUND,
    ) {
        Ok(client) => client,
        Err(error) => return Probe::Doubtful(format!("{}: {}", target.role, error.detail())),
    };
    let status = match client.status_once("models", None).await {
        Ok(status) => status.as_u16(),
        // Not followed: requests would refuse it too (it would carry the key elsewhere).
        Err(ProxyError::UpstreamRedirect { status, .. }) => status,
        Err(error) => {
            return Probe::Unreachable(format!(
                "cannot reach the {} at {shown}: {}; start it, or set {}",
                target.role,
                unanswered(&error),
                target.setting
            ))
        }
    };
    match status {
        300..=399 => Probe::Doubtful(format!(
            "the {} answered {status} (a redirect) to GET {shown}; plaincall follows no redirect: set {} to the final URL",
            target.role, target.setting
        )),
        404 => Probe::Doubtful(format!(
            "the {} answered 404 to GET {shown}: is the path right? set {}",
            target.role, target.setting
        )),
        401 | 403 => Probe::Doubtful(format!(
            "the {} answered {status} to GET {shown}: fine if clients send their own key; otherwise set its api_key",
            target.role
        )),
        500.. => Probe::Doubtful(format!(
            "the {} answered {status} to GET {shown}",
            target.role
        )),
        _ => Probe::Reachable,
    }
}

/// Why a one-off request got no answer, without its URL (said by the caller).
pub(crate) fn unanswered(error: &ProxyError) -> String {
    match error {
        ProxyError::UpstreamTimeout { after, .. } => {
            format!("no answer within {}", humantime::format_duration(*after))
        }
        ProxyError::UpstreamUnreachable(message) => message
            .split_once(": ")
            .map_or(message.as_str(), |(_, cause)| cause)
            .to_owned(),
        other => other.detail(),
    }
}

/// Probes every target and logs the findings: `info` when there, `warn` otherwise.
pub(crate) async fn probe_and_log(config: &Config) {
    for warning in url_warnings(config) {
        tracing::warn!("{warning}");
    }
    for target in targets(config) {
        match probe(&target).await {
            Probe::Reachable => {
                tracing::info!(url = %redacted(&target.url), "{} reachable", target.role)
            }
            Probe::Doubtful(message) | Probe::Unreachable(message) => {
                tracing::warn!("{message}")
            }
        }
    }
}

/// The formats `upstream.formats` names besides chat that the upstream does not serve: a
/// `POST` of `{}` to each one's own route answered 404 or 405 (a route that exists answers
/// 400 or 422 to an empty request, and that costs the upstream nothing). Each finding is
/// logged; nothing answering is not a finding (requests will learn it from their own 404).
pub(crate) async fn unserved_formats(config: &Config) -> Vec<WireFormat> {
    let mut unserved = Vec::new();
    let upstream = &config.upstream;
    let Ok(client) = UpstreamClient::one_off(
        upstream.base_url.clone(),
        upstream.api_key.clone(),
        PROBE_TIMEOUT,
        PROBE_BOUND,
    ) else {
        return unserved;
    };
    for (format, route) in [
        (WireFormat::Responses, "responses"),
        (WireFormat::Messages, "messages"),
    ] {
        if !upstream.serves(format) {
            continue;
        }
        let Ok(url) = upstream.base_url.join(route) else {
            continue;
        };
        let shown = shown_url(&url);
        let answer = client
            .status_once(route, Some(bytes::Bytes::from_static(b"{}")))
            .await;
        match answer.map(|status| status.as_u16()) {
            Ok(status @ (404 | 405)) => {
                tracing::warn!(
                    "the upstream answered {status} to POST {shown}: /v1/{route} requests are converted to Chat Completions, though upstream.formats names \"{route}\""
                );
                unserved.push(format);
            }
            Ok(status) => tracing::info!(
                status,
                "the upstream serves POST {shown} itself: /v1/{route} requests with nothing to translate go there as they came"
            ),
            Err(error) => tracing::debug!(
                "no answer from POST {shown} at start-up: {}",
                unanswered(&error)
            ),
        }
    }
    unserved
}

/// Every URL setting without `/v1`, worded as a warning.
pub(crate) fn url_warnings(config: &Config) -> Vec<String> {
    targets(config)
        .iter()
        .filter_map(|t| {
            let setting = t.setting.split(' ').next().unwrap_or_default();
            missing_v1_warning(&t.url, setting)
        })
        .collect()
}
