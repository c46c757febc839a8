//! The effective settings, printed by `plaincall check`: the validated config turned back into
//! the file's form and serialized by serde, so that the output reads back as a config file.
//! Secrets are masked by [`Secret`]'s `Serialize`, URL passwords by [`redacted`].

use toml_edit::{DocumentMut, Item, Key, Table, Value};

use super::*;

impl Config {
    /// The effective settings as TOML, secrets masked: what `plaincall check` prints.
    pub fn effective_toml(&self) -> String {
        match toml_edit::ser::to_document(&self.file_form()) {
            Ok(document) => shaped(document).to_string(),
            // Every field is a string, number, bool, list or table; kept as a message rather
            // than a panic should a future field not be.
            Err(error) => format!("# the effective settings cannot be printed: {error}\n"),
        }
    }

    /// The file's form of these settings: what a file would say to give them.
    fn file_form(&self) -> FileConfig {
        FileConfig {
            listen: self.listen.to_string(),
            upstream: UpstreamSection {
                url: redacted(&self.upstream.base_url),
                api_key: self.upstream.api_key.clone().unwrap_or_default(),
                connect_timeout: self.upstream.connect_timeout,
                timeout: self.upstream.timeout,
                read_timeout: self.upstream.read_timeout,
                pool_idle_timeout: self.upstream.pool_idle_timeout,
                formats: self.upstream.formats.clone(),
                keep_params: self.upstream.keep_params.clone(),
                drop_params: self.upstream.drop_params.clone(),
                hosted_tools: self.upstream.hosted_tools.clone(),
            },
            server: self.server.clone(),
            log: self.log.clone(),
            telemetry: TelemetrySection {
                traces_endpoint: self
                    .telemetry
                    .traces_url
                    .as_ref()
                    .map(redacted)
                    .unwrap_or_default(),
                service_name: self.telemetry.service_name.clone(),
                capture_content: self.telemetry.capture_content,
                export_timeout: self.telemetry.export_timeout,
            },
            translation: translation_form(&self.translation),
            tool_calling: ToolCallingSection {
                default: self.tool_calling.default,
                grammar: self.tool_calling.grammar,
                native_retry: self.tool_calling.native_retry,
                text_calls: self.tool_calling.text_calls,
                models: self.tool_calling.models.iter().map(model_rule).collect(),
            },
            models: self
                .models
                .iter()
                .map(|(pattern, target)| (pattern.as_str().to_owned(), target.clone()))
                .collect(),
            redis: RedisSection {
                url: self.redis.shown.clone(),
                password: Secret::default(),
                password_file: self.redis.password_file.clone(),
                prefix: self.redis.prefix.clone(),
                timeout: self.redis.timeout,
                connect_timeout: self.redis.connect_timeout,
                retry_after: self.redis.retry_after,
                max_value_bytes: self.redis.max_value_bytes,
            },
        }
    }
}

fn model_rule((pattern, mode): &(glob::Pattern, CallingMode)) -> ModelRule {
    ModelRule {
        pattern: pattern.as_str().to_owned(),
        mode: *mode,
    }
}

fn backend_section(b: &BackendConfig) -> BackendSection {
    BackendSection {
        url: redacted(&b.base_url),
        model: b.model.clone(),
        api_key: b.api_key.clone().unwrap_or_default(),
        timeout: b.timeout,
        output: b.output,
    }
}

fn translation_form(t: &TranslationConfig) -> TranslationSection {
    TranslationSection {
        enabled: t.enabled,
        default_mode: t.default_mode,
        tools: t.tools.clone(),
        check_calls: t.check_calls,
        checks: t.checks.clone(),
        grounding: t.grounding,
        grounding_tools: t.grounding_tools.clone(),
        grounding_rules_off: t.grounding_rules_off.clone(),
        split_actions: t.split_actions,
        warm_prefixes: t.warm_prefixes,
        min_properties: t.thresholds.min_properties,
        rewrite_nested: t.thresholds.nested,
        rewrite_optional_nested: t.thresholds.optional_nested,
        rewrite_conditionals: t.thresholds.conditionals,
        rewrite_refs: t.thresholds.refs,
        attempts: t.attempts,
        repair_turns: t.repair_turns,
        repair_max_tokens: t.repair_max_tokens,
        description_limit: t.description_limit,
        timezone: t.timezone_name.clone(),
        prompts_dir: t.prompts_dir.clone(),
        cache_ttl: t.cache_ttl,
        cache_capacity: t.cache_capacity,
        keepalive_interval: t.keepalive_interval,
        budget: t.budget,
        temperature: t.temperature,
        max_tokens: t.max_tokens,
        upstream_output: t.upstream_output,
        backends: t.backends.iter().map(backend_section).collect(),
    }
}

/// The serializer writes nested structs as inline tables: sections become `[section]` and
/// lists of tables `[[section.list]]`; the lists a file only adds to are left out when empty;
/// tool names are quoted, as any string may name a tool.
fn shaped(mut document: DocumentMut) -> DocumentMut {
    let root = document.as_table_mut();
    root.iter_mut().for_each(|(_, item)| expand(item));
    for (section, key) in [
        ("translation", "tools"),
        ("translation", "checks"),
        ("translation", "grounding_tools"),
        ("translation", "backends"),
        ("tool_calling", "models"),
    ] {
        if let Some(section) = root.get_mut(section).and_then(Item::as_table_mut) {
            if section.get(key).is_some_and(is_empty) {
                section.remove(key);
            }
        }
    }
    for key in ["tools", "checks", "grounding_tools"] {
        if let Some(tools) = root
            .get_mut("translation")
            .and_then(|t| t.get_mut(key))
            .and_then(Item::as_table_mut)
        {
            quote_keys(tools);
        }
    }
    // `[models]`, last as in the file, and only when it holds an alias; its keys are globs.
    if let Some(models) = root.remove("models") {
        if !is_empty(&models) {
            root.insert("models", models);
            if let Some(models) = root.get_mut("models").and_then(Item::as_table_mut) {
                quote_keys(models);
            }
        }
    }
    document
}

fn is_empty(item: &Item) -> bool {
    match item {
        Item::Table(table) => table.is_empty(),
        Item::Value(Value::Array(array)) => array.is_empty(),
        _ => false,
    }
}

fn expand(item: &mut Item) {
    let taken = std::mem::take(item);
    *item = match taken.into_table() {
        Ok(table) => Item::Table(table),
        Err(other) => other
            .into_array_of_tables()
            .map_or_else(|other| other, Item::ArrayOfTables),
    };
    match item {
        Item::Table(table) => table.iter_mut().for_each(|(_, child)| expand(child)),
        Item::ArrayOfTables(list) => list
            .iter_mut()
            .flat_map(Table::iter_mut)
            .for_each(|(_, child)| expand(child)),
        _ => {}
    }
}

fn quote_keys(table: &mut Table) {
    let entries: Vec<(String, Item)> = table
        .iter()
        .map(|(key, item)| (key.to_owned(), item.clone()))
        .collect();
    table.clear();
    for (name, item) in entries {
        // A TOML string is a valid quoted key, and parsing keeps it as written.
        let quoted = Value::from(name.as_str()).to_string();
        let key = quoted.parse::<Key>().unwrap_or_else(|_| Key::new(name));
        table.insert_formatted(&key, item);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const FULL: &str = r#"
listen = "127.0.0.1:9000"
[upstream]
url = "http://bob:hunter2-pass@127.0.0.1:8080/v1"
api_key = "sk-upstream-SECRET-7c1f0b9e"
[server]
access_keys = ["access-SECRET-one-5d2e", "short"]
[translation]
temperature = 0.2
[translation.tools]
set_reminder = "nl"
"odd.name \"x\"" = "passthrough"
[[translation.backends]]
url = "http://127.0.0.1:8081/v1"
model = "qwen"
[[translation.backends]]
url = "https://a:backend-pass@api.example.com/v1"
model = "small-model"
api_key = "sk-file-translator-SECRET-31"
output = "none"
[[tool_calling.models]]
pattern = "qwen2.5-coder-*"
mode = "prompt"
"#;

    #[test]
    fn secrets_are_masked_and_the_output_reads_back_the_same() {
        let printed = Config::from_toml(FULL).unwrap().effective_toml();
        for secret in ["hunter2", "SECRET", "backend-pass", "short\""] {
            assert!(!printed.contains(secret), "{secret} leaked:\n{printed}");
        }
        for shown in [
            "url = \"http://bob:***@127.0.0.1:8080/v1/\"",
            "api_key = \"***0b9e\"",
            "access_keys = [\"***5d2e\", \"***\"]",
            "api_key = \"***T-31\"",
            "\"set_reminder\" = \"nl\"",
            "\n\n[[translation.backends]]\nurl = \"http://127.0.0.1:8081/v1/\"\n",
            "\n\n[[tool_calling.models]]\npattern = \"qwen2.5-coder-*\"\nmode = \"prompt\"\n",
            "temperature = 0.2\n",
            "timeout = \"1m\"\n",
        ] {
            assert!(printed.contains(shown), "no `{shown}` in:\n{printed}");
        }
        assert!(
            printed.contains("'odd.name \"x\"' = \"passthrough\""),
            "{printed}"
        );
        // The printed settings are a config file giving the same settings, but for the
        // secrets: read back, a masked key is the key `***...`, masked once more.
        let again = Config::from_toml(&printed).unwrap().effective_toml();
        let unmasked = |text: &str| -> Vec<String> {
            let lines = text.lines().filter(|line| !line.contains("***"));
            lines.map(str::to_owned).collect()
        };
        assert_eq!(unmasked(&again), unmasked(&printed));
        assert!(again.contains("\"set_reminder\" = \"nl\""), "{again}");
    }

    #[test]
    fn empty_lists_and_maps_are_left_out() {
        let printed = Config::from_toml("").unwrap().effective_toml();
        assert!(printed.starts_with("listen = \"127.0.0.1:8787\"\n\n[upstream]\n"));
        assert!(printed.contains("access_keys = []\n"), "{printed}");
        for absent in [
            "[translation.tools]",
            "checks",
            "grounding_tools",
            "backends",
            "models",
            "prompts_dir",
        ] {
            assert!(!printed.contains(absent), "{absent} in:\n{printed}");
        }
    }
}
