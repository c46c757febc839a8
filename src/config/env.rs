//! `PLAINCALL_*` environment variables: the keys they reach, the ones read directly, and the
//! check that every such variable names a key.

use figment::providers::Env;

use super::*;

const ENV_PREFIX: &str = "PLAINCALL_";
/// Sections whose keys are reachable as `PLAINCALL_<SECTION>_<KEY>`.
const ENV_SECTIONS: &[&str] = &[
    "upstream",
    "server",
    "log",
    "telemetry",
    "translation",
    "tool_calling",
    "redis",
];
/// Variables read directly rather than merged as keys: the CLI's, the single translator
/// backend, and secrets (figment would parse `000123` as a number and drop the zeros).
const ENV_SPECIAL: &[&str] = &[
    "config",
    "translator_url",
    "translator_model",
    "translator_api_key",
    "translator_output",
    "translator_timeout",
    "upstream_api_key",
    "server_access_keys",
    "redis_password",
];

/// `PLAINCALL_DEV_*` is the namespace of the project's own scripts and tests (the binary they
/// run, their caches): never a setting, and never an error for `serve`.
const DEV_NAMESPACE: &str = "dev_";

fn is_dev(rest: &str) -> bool {
    rest.len() >= DEV_NAMESPACE.len()
        && rest[..DEV_NAMESPACE.len()].eq_ignore_ascii_case(DEV_NAMESPACE)
}

/// Kubernetes gives every pod variables for the Services of its namespace: a Service named
/// `plaincall` or `plaincall-redis` yields `PLAINCALL_SERVICE_HOST`, `PLAINCALL_PORT`,
/// `PLAINCALL_REDIS_PORT_6379_TCP_ADDR`, ... No key ends in `port`, so these are never
/// settings, and must not stop `serve` either.
fn is_service_link(rest: &str) -> bool {
    let upper = rest.to_ascii_uppercase();
    if upper.contains("SERVICE_HOST") || upper.contains("SERVICE_PORT") {
        return true;
    }
    if upper == "PORT" || upper.ends_with("_PORT") {
        return true;
    }
    // `<NAME>_PORT_<number>_<protocol>` and its `_PROTO`, `_PORT`, `_ADDR`.
    let Some((_, after)) = upper.rsplit_once("PORT_").filter(|(_, a)| !a.is_empty()) else {
        return false;
    };
    let mut parts = after.split('_');
    let number = parts
        .next()
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
    let protocol = parts
        .next()
        .is_some_and(|p| matches!(p, "TCP" | "UDP" | "SCTP"));
    let suffix = match parts.next() {
        None => true,
        Some(s) => matches!(s, "PROTO" | "PORT" | "ADDR") && parts.next().is_none(),
    };
    number && protocol && suffix
}

/// Every `PLAINCALL_*` variable must name a key, so that a typo is an error, not a no-op.
pub(super) fn check_env_names(vars: &[(String, String)]) -> Result<(), ConfigError> {
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
        if is_dev(rest) || is_service_link(rest) {
            continue;
        }
        if !known.iter().any(|k| k.eq_ignore_ascii_case(rest)) {
            return Err(invalid(
                name,
                "unknown environment variable (proxy.toml lists every key; a section key is PLAINCALL_<SECTION>_<KEY>)",
            ));
        }
    }
    Ok(())
}
/// `PLAINCALL_UPSTREAM_URL` → `upstream.url`; `PLAINCALL_LISTEN` → `listen`.
pub(super) fn env_provider() -> Env {
    Env::prefixed(ENV_PREFIX)
        .filter(|key| {
            let lower = key.as_str().to_ascii_lowercase();
            !ENV_SPECIAL.contains(&lower.as_str()) && !is_dev(&lower) && !is_service_link(&lower)
        })
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

/// `PLAINCALL_TRANSLATOR_URL`/`_MODEL`/`_API_KEY`/`_OUTPUT`: one backend, as containers are
/// configured.
/// It replaces the backend list from the file.
pub(super) fn apply_translator_env(
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
    let output = get("PLAINCALL_TRANSLATOR_OUTPUT");
    let timeout = get("PLAINCALL_TRANSLATOR_TIMEOUT");
    match (url, model) {
        (None, None) => {
            for (name, given) in [
                ("PLAINCALL_TRANSLATOR_API_KEY", api_key.is_some()),
                ("PLAINCALL_TRANSLATOR_OUTPUT", output.is_some()),
                ("PLAINCALL_TRANSLATOR_TIMEOUT", timeout.is_some()),
            ] {
                if given {
                    return Err(invalid(
                        name,
                        "needs PLAINCALL_TRANSLATOR_URL and PLAINCALL_TRANSLATOR_MODEL",
                    ));
                }
            }
            Ok(())
        }
        (Some(url), Some(model)) => {
            let mut backend = single_backend(
                "PLAINCALL_TRANSLATOR_URL",
                &url,
                model,
                api_key.map(Secret::new),
            )?;
            if let Some(output) = output {
                backend.output = serde_json::from_value(serde_json::Value::String(output))
                    .map_err(|_| {
                        invalid(
                            "PLAINCALL_TRANSLATOR_OUTPUT",
                            "must be auto, json_schema, grammar, json_object or none",
                        )
                    })?;
            }
            if let Some(timeout) = timeout {
                backend.timeout = humantime::parse_duration(&timeout).map_err(|_| {
                    invalid(
                        "PLAINCALL_TRANSLATOR_TIMEOUT",
                        "must be a duration such as 90s or 10m",
                    )
                })?;
            }
            translation.backends = vec![backend];
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

#[cfg(test)]
mod tests {
    use super::is_service_link;

    #[test]
    fn kubernetes_service_variables_are_recognised_and_settings_are_not() {
        for name in [
            "SERVICE_HOST",
            "SERVICE_PORT",
            "SERVICE_PORT_HTTP",
            "PORT",
            "PORT_8787_TCP",
            "PORT_8787_TCP_ADDR",
            "REDIS_SERVICE_HOST",
            "REDIS_PORT",
            "REDIS_PORT_6379_TCP_PROTO",
            "redis_port_6379_tcp_port",
        ] {
            assert!(is_service_link(name), "{name}");
        }
        for name in [
            "REDIS_URL",
            "UPSTREAM_TIMEOUT",
            "SERVER_MAX_IN_FLIGHT",
            "REDIS_PORT_X_TCP",
            "LISTEN",
        ] {
            assert!(!is_service_link(name), "{name}");
        }
    }
}
