//! The effective settings, printed by `plaincall check`: a section at a time, secrets masked.

use std::time::Duration;

use super::*;

impl Config {
    /// The effective settings as TOML, secrets masked: what `plaincall check` prints.
    pub fn effective_toml(&self) -> String {
        let mut out = String::new();
        line(&mut out, "listen", q(&self.listen.to_string()));
        upstream(self, &mut out);
        server(self, &mut out);
        log(self, &mut out);
        translation(self, &mut out);
        tool_calling(self, &mut out);
        out
    }
}

fn line(out: &mut String, key: &str, value: String) {
    out.push_str(key);
    out.push_str(" = ");
    out.push_str(&value);
    out.push('\n');
}

/// A TOML string.
fn q(s: &str) -> String {
    format!("{s:?}")
}

/// A duration the way the file takes it.
fn d(d: Duration) -> String {
    q(&humantime::format_duration(d).to_string())
}

fn upstream(c: &Config, out: &mut String) {
    out.push_str("\n[upstream]\n");
    line(out, "url", q(&redacted(&c.upstream.base_url)));
    line(
        out,
        "api_key",
        q(&c.upstream
            .api_key
            .as_ref()
            .map(Secret::masked)
            .unwrap_or_default()),
    );
    line(out, "connect_timeout", d(c.upstream.connect_timeout));
    line(out, "timeout", d(c.upstream.timeout));
    line(out, "read_timeout", d(c.upstream.read_timeout));
}

fn server(c: &Config, out: &mut String) {
    out.push_str("\n[server]\n");
    line(out, "max_body_bytes", c.server.max_body_bytes.to_string());
    let keys: Vec<String> = c
        .server
        .access_keys
        .iter()
        .map(|k| q(&k.masked()))
        .collect();
    line(out, "access_keys", format!("[{}]", keys.join(", ")));
    line(out, "shutdown_grace", d(c.server.shutdown_grace));
    line(out, "readiness_cache", d(c.server.readiness_cache));
    line(out, "header_read_timeout", d(c.server.header_read_timeout));
    line(out, "body_read_timeout", d(c.server.body_read_timeout));
    line(out, "body_timeout", d(c.server.body_timeout));
    line(out, "idle_timeout", d(c.server.idle_timeout));
    line(out, "max_connections", c.server.max_connections.to_string());
    line(out, "max_in_flight", c.server.max_in_flight.to_string());
}

fn log(c: &Config, out: &mut String) {
    out.push_str("\n[log]\n");
    line(
        out,
        "format",
        q(match c.log.format {
            LogFormat::Human => "human",
            LogFormat::Json => "json",
        }),
    );
    line(out, "level", q(&c.log.level));
}

fn translation(c: &Config, out: &mut String) {
    let t = &c.translation;
    out.push_str("\n[translation]\n");
    line(out, "enabled", t.enabled.to_string());
    line(out, "default_mode", q(tool_mode_name(t.default_mode)));
    line(
        out,
        "min_properties",
        t.thresholds.min_properties.to_string(),
    );
    line(out, "rewrite_nested", t.thresholds.nested.to_string());
    line(
        out,
        "rewrite_conditionals",
        t.thresholds.conditionals.to_string(),
    );
    line(out, "rewrite_refs", t.thresholds.refs.to_string());
    line(out, "attempts", t.attempts.to_string());
    line(out, "repair_turns", t.repair_turns.to_string());
    line(out, "timezone", q(&t.timezone_name));
    if let Some(dir) = &t.prompts_dir {
        line(out, "prompts_dir", q(&dir.display().to_string()));
    }
    line(out, "cache_ttl", d(t.cache_ttl));
    line(out, "cache_capacity", t.cache_capacity.to_string());
    line(out, "keepalive_interval", d(t.keepalive_interval));
    line(out, "temperature", t.temperature.to_string());
    line(out, "max_tokens", t.max_tokens.to_string());
    line(
        out,
        "upstream_output",
        q(output_mode_name(t.upstream_output)),
    );
    line(out, "check_calls", q(check_mode_name(t.check_calls)));
    if !t.tools.is_empty() {
        out.push_str("\n[translation.tools]\n");
        for (name, mode) in &t.tools {
            line(out, &q(name), q(tool_mode_name(*mode)));
        }
    }
    if !t.checks.is_empty() {
        out.push_str("\n[translation.checks]\n");
        for (name, mode) in &t.checks {
            line(out, &q(name), q(check_mode_name(*mode)));
        }
    }
    for b in &t.backends {
        out.push_str("\n[[translation.backends]]\n");
        line(out, "url", q(&redacted(&b.base_url)));
        line(out, "model", q(&b.model));
        line(
            out,
            "api_key",
            q(&b.api_key.as_ref().map(Secret::masked).unwrap_or_default()),
        );
        line(out, "timeout", d(b.timeout));
        line(out, "output", q(output_mode_name(b.output)));
    }
}

fn tool_calling(config: &Config, out: &mut String) {
    let c = &config.tool_calling;
    out.push_str("\n[tool_calling]\n");
    line(out, "default", q(calling_mode_name(c.default)));
    line(out, "grammar", c.grammar.to_string());
    line(out, "native_retry", d(c.native_retry));
    for (pattern, mode) in &c.models {
        out.push_str("\n[[tool_calling.models]]\n");
        line(out, "pattern", q(pattern.as_str()));
        line(out, "mode", q(calling_mode_name(*mode)));
    }
}
