//! The real binary: `check`, `health`, `prompts show`, `translate` and `serve`, the shipped
//! example `proxy.toml`, configuration errors (exit 2), environment overrides and masking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use support::{translator_reply, MockServer, Proxy, Reply};
use tokio::io::{AsyncBufReadExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_plaincall");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// How long any one-shot command may take before the test gives up on it.
const COMMAND_LIMIT: Duration = Duration::from_secs(30);

/// The binary, run from the repository root, with no inherited `PLAINCALL_*` (or `RUST_LOG`)
/// variables, so that only what a test sets applies.
fn plaincall() -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(ROOT);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PLAINCALL_") {
            command.env_remove(&key);
        }
    }
    command.env_remove("RUST_LOG");
    command.stdin(Stdio::null());
    command
}

fn output(command: &mut Command) -> Output {
    command.output().expect("the binary runs")
}

/// Runs a command built by [`plaincall`] from async code, with a time limit.
async fn output_async(command: Command) -> Output {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    tokio::time::timeout(COMMAND_LIMIT, command.output())
        .await
        .expect("the command finishes in time")
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    )
}

/// A temporary `.toml` file holding `text`.
fn toml_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new()
        .prefix("plaincall-test-")
        .suffix(".toml")
        .tempfile()
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
    file
}

fn example_path() -> PathBuf {
    PathBuf::from(ROOT).join("proxy.toml")
}

fn set_reminder_path() -> PathBuf {
    PathBuf::from(ROOT).join("tests/fixtures/tools/set_reminder.json")
}

/// `plaincall check --config <file>` with extra environment variables.
fn check_with(toml: Option<&str>, env: &[(&str, &str)]) -> Output {
    let file = toml.map(toml_file);
    let mut command = plaincall();
    command.arg("check");
    if let Some(file) = &file {
        command.arg("--config").arg(file.path());
    }
    command.envs(env.iter().copied());
    output(&mut command)
}

/// Asserts a configuration error: exit code 2, the error reported on stderr and naming every
/// one of `needles` (compared case-insensitively), nothing on stdout.
fn assert_config_error(out: &Output, needles: &[&str]) {
    assert_eq!(out.status.code(), Some(2), "{}", describe(out));
    let err = stderr(out);
    assert!(
        err.contains("configuration error"),
        "not a configuration error:\n{}",
        describe(out)
    );
    for needle in needles {
        assert!(
            err.to_lowercase().contains(&needle.to_lowercase()),
            "stderr does not name `{needle}`:\n{}",
            describe(out)
        );
    }
    assert!(
        !stdout(out).contains("configuration is valid"),
        "{}",
        describe(out)
    );
}

fn assert_success(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", describe(out));
}

/// The value printed for `key` in the section `section` ("" for top level) of `check` output.
fn effective(out: &str, section: &str, key: &str) -> Option<String> {
    let mut current = String::new();
    for line in out.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix('[') {
            current = name.trim_matches(|c| c == '[' || c == ']').to_owned();
            continue;
        }
        if current == section {
            if let Some((k, v)) = line.split_once(" = ") {
                if k.trim() == key {
                    return Some(v.trim().to_owned());
                }
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The shipped example
// ---------------------------------------------------------------------------------------------

#[test]
fn shipped_example_is_valid_and_equals_the_defaults() {
    let out = output(plaincall().arg("check").arg("--config").arg(example_path()));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("configuration is valid"), "{text}");
    assert_eq!(
        effective(&text, "", "listen").as_deref(),
        Some("\"127.0.0.1:8787\"")
    );
    assert!(
        text.contains("[upstream]") && text.contains("[translation]"),
        "{text}"
    );
    assert!(
        !text.contains("[[translation.backends]]"),
        "the example must not configure an active backend:\n{text}"
    );
    // Every value in the example is the default: the same settings as no file at all.
    let defaults = output(plaincall().arg("check"));
    assert_success(&defaults);
    assert_eq!(text, stdout(&defaults));
}

#[test]
fn shipped_example_documents_every_key() {
    let example = std::fs::read_to_string(example_path()).unwrap();
    // A key is documented when a line (active or commented out) assigns it.
    let documented = |key: &str| {
        example.lines().any(|line| {
            let line = line.trim_start_matches('#').trim_start();
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
    };
    // Every key `check` prints (all of FileConfig at its defaults) ...
    let out = output(plaincall().arg("check"));
    assert_success(&out);
    let mut keys: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('['))
        .filter_map(|l| l.split_once(" = ").map(|(k, _)| k.trim().to_owned()))
        .collect();
    // ... plus those it prints only when set.
    keys.extend(
        [
            "prompts_dir",
            "url",
            "model",
            "api_key",
            "timeout",
            "output",
            "pattern",
            "mode",
        ]
        .map(String::from),
    );
    assert!(keys.len() > 25, "{keys:?}");
    for key in &keys {
        assert!(documented(key), "proxy.toml does not document `{key}`");
    }
    for section in [
        "[upstream]",
        "[server]",
        "[log]",
        "[translation]",
        "[translation.tools]",
        "[[translation.backends]]",
        "[tool_calling]",
        "[[tool_calling.models]]",
        "[redis]",
    ] {
        assert!(example.contains(section), "proxy.toml lacks {section}");
    }
    for mention in [
        "PLAINCALL_LISTEN",
        "PLAINCALL_UPSTREAM_URL",
        "PLAINCALL_UPSTREAM_API_KEY",
        "PLAINCALL_SERVER_ACCESS_KEYS",
        "PLAINCALL_LOG_FORMAT",
        "PLAINCALL_TRANSLATION_REPAIR_TURNS",
        "PLAINCALL_TRANSLATOR_URL",
        "PLAINCALL_TRANSLATOR_MODEL",
        "PLAINCALL_TRANSLATOR_API_KEY",
        "PLAINCALL_CONFIG",
        "PLAINCALL_REDIS_URL",
        "PLAINCALL_REDIS_PASSWORD",
        "x-plaincall-translate: off",
        "\"auto\"",
        "\"nl\"",
        "\"passthrough\"",
    ] {
        assert!(
            example.contains(mention),
            "proxy.toml does not mention {mention}"
        );
    }
}

/// The commented-out examples in `proxy.toml` are themselves valid once uncommented.
#[test]
fn shipped_example_commented_settings_are_valid() {
    let example = std::fs::read_to_string(example_path()).unwrap();
    let assigns = |line: &str, key: &str| {
        line.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    };
    let uncommented: String = example
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(rest)
                if rest.starts_with("[[translation.backends]]")
                    || rest.starts_with("[[tool_calling.models]]")
                    || [
                        "url",
                        "model",
                        "api_key",
                        "timeout",
                        "output",
                        "prompts_dir",
                        "set_reminder",
                        "get_weather",
                        "pattern",
                        "mode",
                    ]
                    .iter()
                    .any(|k| assigns(rest, k)) =>
            {
                format!("{rest}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect();
    let out = check_with(Some(&uncommented), &[]);
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        text.matches("[[translation.backends]]").count(),
        2,
        "{text}"
    );
    assert!(text.contains("[translation.tools]"), "{text}");
    assert!(text.contains("\"set_reminder\" = \"nl\""), "{text}");
    assert!(text.contains("prompts_dir = \"prompts\""), "{text}");
    assert!(text.contains("[[tool_calling.models]]"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// check: defaults and errors
// ---------------------------------------------------------------------------------------------

#[test]
fn check_without_a_file_prints_the_defaults() {
    let out = output(plaincall().arg("check"));
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        effective(&text, "", "listen").as_deref(),
        Some("\"127.0.0.1:8787\"")
    );
    assert_eq!(
        effective(&text, "upstream", "url").as_deref(),
        Some("\"http://127.0.0.1:8080/v1/\"")
    );
    assert_eq!(
        effective(&text, "translation", "default_mode").as_deref(),
        Some("\"auto\"")
    );
    assert_eq!(
        effective(&text, "server", "access_keys").as_deref(),
        Some("[]")
    );
}

#[test]
fn unknown_keys_are_refused() {
    let out = check_with(Some("bogus_setting = 1\n"), &[]);
    assert_config_error(&out, &["bogus_setting"]);

    let out = check_with(Some("[upstream]\nurll = \"http://127.0.0.1:9/v1\"\n"), &[]);
    assert_config_error(&out, &["urll"]);

    let out = check_with(Some("[translation]\nrepair_turn = 3\n"), &[]);
    assert_config_error(&out, &["repair_turn"]);

    let out = check_with(
        Some("[[translation.backends]]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\nkey = \"x\"\n"),
        &[],
    );
    assert_config_error(&out, &["key"]);

    let out = check_with(Some("[tls]\ncert = \"x\"\n"), &[]);
    assert_config_error(&out, &["tls"]);
}

/// A typo reads as the file, the line, the key in full, the near name and the known ones,
/// without figment's profile name or nested backticks.
#[test]
fn unknown_key_errors_name_file_line_and_fix() {
    let out = check_with(
        Some("listen = \"127.0.0.1:8787\"\n\n[upstream]\nurll = \"http://127.0.0.1:9/v1\"\n"),
        &[],
    );
    assert_config_error(&out, &[]);
    let err = stderr(&out);
    assert!(
        err.contains(": line 4: unknown key `upstream.urll` (did you mean `url`?); known keys: url, api_key, connect_timeout, timeout, read_timeout"),
        "{err}"
    );
    assert!(!err.contains("default."), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    let out = check_with(
        Some("[[translation.backends]]\nurl = \"http://127.0.0.1:9/v1\"\nmodle = \"m\"\n"),
        &[],
    );
    let err = stderr(&out);
    assert_config_error(&out, &[]);
    assert!(
        err.contains(
            ": line 3: unknown key `translation.backends[0].modle` (did you mean `model`?)"
        ),
        "{err}"
    );
    assert!(
        !err.contains("base_url"),
        "the old name is not offered: {err}"
    );

    let out = check_with(None, &[("PLAINCALL_UPSTREAM_TIMEOUT", "soon")]);
    assert_config_error(
        &out,
        &[
            "environment variable PLAINCALL_UPSTREAM_TIMEOUT",
            "`upstream.timeout`",
            "soon",
        ],
    );
}

/// `url` is the backend key, as in `[upstream]`; `base_url` still reads.
#[test]
fn backend_url_key_and_its_old_name() {
    for key in ["url", "base_url"] {
        let out = check_with(
            Some(&format!(
                "[[translation.backends]]\n{key} = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n"
            )),
            &[],
        );
        assert_success(&out);
        assert_eq!(
            effective(&stdout(&out), "translation.backends", "url").as_deref(),
            Some("\"http://127.0.0.1:9/v1/\""),
            "{key}"
        );
    }
}

#[test]
fn bad_values_are_refused_naming_the_key() {
    for (toml, key) in [
        ("[upstream]\nurl = \"not a url\"\n", "upstream.url"),
        (
            "[upstream]\nurl = \"ftp://example.com/v1\"\n",
            "upstream.url",
        ),
        ("[upstream]\ntimeout = \"soon\"\n", "timeout"),
        (
            "[upstream]\nconnect_timeout = \"0s\"\n",
            "upstream.connect_timeout",
        ),
        ("listen = \"localhost\"\n", "listen"),
        ("listen = \"127.0.0.1:99999\"\n", "listen"),
        (
            "[translation]\ntimezone = \"Mars/Olympus_Mons\"\n",
            "translation.timezone",
        ),
        ("[translation]\ndefault_mode = \"sometimes\"\n", "sometimes"),
        ("[translation]\nattempts = 0\n", "translation.attempts"),
        (
            "[translation]\ntemperature = 3.5\n",
            "translation.temperature",
        ),
        (
            "[translation]\nprompts_dir = \"/nonexistent/prompts\"\n",
            "translation.prompts_dir",
        ),
        ("[log]\nformat = \"xml\"\n", "xml"),
        ("[server]\nmax_body_bytes = 0\n", "server.max_body_bytes"),
        (
            "[upstream]\ndrop_params = [\"messages\"]\n",
            "upstream.drop_params",
        ),
        ("[upstream]\nkeep_params = [\"\"]\n", "upstream.keep_params"),
        (
            "[[translation.backends]]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \" \"\n",
            "translation.backends[0].model",
        ),
        (
            "[[translation.backends]]\nurl = \"nowhere\"\nmodel = \"m\"\n",
            "translation.backends[0].url",
        ),
    ] {
        let out = check_with(Some(toml), &[]);
        assert_config_error(&out, &[key]);
    }
    // The duration error also says what was wrong with it.
    let out = check_with(Some("[upstream]\ntimeout = \"soon\"\n"), &[]);
    assert_config_error(&out, &["upstream.timeout", "soon"]);
}

#[test]
fn a_missing_config_file_is_a_configuration_error() {
    let out = output(
        plaincall()
            .arg("check")
            .arg("--config")
            .arg("/nonexistent/proxy.toml"),
    );
    assert_config_error(&out, &["/nonexistent/proxy.toml"]);
    // The same through PLAINCALL_CONFIG.
    let out = output(
        plaincall()
            .arg("check")
            .env("PLAINCALL_CONFIG", "/nonexistent/proxy.toml"),
    );
    assert_config_error(&out, &["/nonexistent/proxy.toml"]);
}

#[test]
fn unknown_environment_variables_are_refused() {
    // The error names the variable's key and where it came from (`PLAINCALL_` variables).
    let out = check_with(None, &[("PLAINCALL_UPSTREAM_FOO", "1")]);
    assert_config_error(
        &out,
        &["PLAINCALL_UPSTREAM_FOO", "unknown environment variable"],
    );

    let out = check_with(None, &[("PLAINCALL_LISTEN_ADDR", "0.0.0.0:1")]);
    assert_config_error(&out, &["PLAINCALL_LISTEN_ADDR"]);

    // The project's scripts keep their own variables under PLAINCALL_DEV_: never refused.
    let out = check_with(
        None,
        &[
            ("PLAINCALL_DEV_BIN", "/tmp/plaincall"),
            ("PLAINCALL_DEV_REAL_CACHE", "/tmp/cache"),
        ],
    );
    assert_success(&out);

    // What Kubernetes sets for Services named `plaincall` and `plaincall-redis` in the pod's
    // namespace: not settings, never a reason not to start.
    let out = check_with(
        None,
        &[
            ("PLAINCALL_SERVICE_HOST", "10.0.0.7"),
            ("PLAINCALL_SERVICE_PORT_HTTP", "8787"),
            ("PLAINCALL_PORT", "tcp://10.0.0.7:8787"),
            ("PLAINCALL_PORT_8787_TCP_ADDR", "10.0.0.7"),
            ("PLAINCALL_REDIS_SERVICE_HOST", "10.0.0.9"),
            ("PLAINCALL_REDIS_PORT", "tcp://10.0.0.9:6379"),
            ("PLAINCALL_REDIS_PORT_6379_TCP", "tcp://10.0.0.9:6379"),
        ],
    );
    assert_success(&out);
}

#[test]
fn secrets_from_the_environment_are_taken_verbatim() {
    // Served, the exact key reaches the upstream; here `check` shows the masked tail, and
    // a number-looking key keeps its leading zeros and plus sign.
    for key in ["000123456789012399", "+123456789012345", "true"] {
        let out = check_with(
            None,
            &[
                ("PLAINCALL_UPSTREAM_API_KEY", key),
                ("PLAINCALL_SERVER_ACCESS_KEYS", "000111222333444555,007"),
            ],
        );
        assert_success(&out);
        let tail: String = key
            .chars()
            .rev()
            .take(if key.len() >= 12 { 4 } else { 0 })
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert_eq!(
            effective(&stdout(&out), "upstream", "api_key"),
            Some(format!("\"***{tail}\"")),
            "{key}"
        );
        assert!(
            stdout(&out).contains("access_keys = [\"***4555\", \"***\"]"),
            "{}",
            stdout(&out)
        );
    }
}

#[test]
fn the_redis_url_and_password_come_from_the_environment_and_are_never_printed() {
    let out = check_with(
        None,
        &[
            ("PLAINCALL_REDIS_URL", "rediss://cache.internal:6380/2"),
            ("PLAINCALL_REDIS_PASSWORD", "000123-redis-secret"),
            ("PLAINCALL_REDIS_PREFIX", "team-a:"),
        ],
    );
    assert_success(&out);
    let printed = stdout(&out);
    assert!(!printed.contains("redis-secret"), "{printed}");
    assert_eq!(
        effective(&printed, "redis", "url").as_deref(),
        Some("\"rediss://:***@cache.internal:6380/2\""),
        "{printed}"
    );
    assert_eq!(
        effective(&printed, "redis", "prefix").as_deref(),
        Some("\"team-a:\""),
        "{printed}"
    );
    let out = check_with(None, &[("PLAINCALL_REDIS_URL", "http://cache:6379")]);
    assert_config_error(&out, &["redis.url", "redis or rediss"]);
}

#[test]
fn passwords_in_urls_are_not_printed() {
    let out = check_with(
        None,
        &[(
            "PLAINCALL_UPSTREAM_URL",
            "http://bob:hunter2-secret@127.0.0.1:8080/v1",
        )],
    );
    assert_success(&out);
    assert!(!stdout(&out).contains("hunter2"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("http://bob:***@127.0.0.1:8080/v1/"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bad_values_from_the_environment_are_refused() {
    let out = check_with(None, &[("PLAINCALL_UPSTREAM_URL", "not a url")]);
    assert_config_error(&out, &["upstream.url"]);
    let out = check_with(None, &[("PLAINCALL_LISTEN", "nowhere")]);
    assert_config_error(&out, &["listen"]);
    let out = check_with(None, &[("PLAINCALL_UPSTREAM_TIMEOUT", "soon")]);
    assert_config_error(&out, &["timeout"]);
    let out = check_with(None, &[("PLAINCALL_TRANSLATION_TIMEZONE", "Nowhere/Land")]);
    assert_config_error(&out, &["translation.timezone"]);
}

// ---------------------------------------------------------------------------------------------
// Environment over file over defaults
// ---------------------------------------------------------------------------------------------

#[test]
fn environment_overrides_the_file() {
    let file = "listen = \"127.0.0.1:7000\"\n\
                [upstream]\nurl = \"http://file-host:1111/v1\"\ntimeout = \"2m\"\n\
                [server]\naccess_keys = [\"file-key-aaaaaaaa-9999\"]\n\
                [log]\nformat = \"human\"\n\
                [translation]\nrepair_turns = 1\nattempts = 3\n";
    // The file alone.
    let out = check_with(Some(file), &[]);
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        effective(&text, "", "listen").as_deref(),
        Some("\"127.0.0.1:7000\"")
    );
    assert_eq!(
        effective(&text, "upstream", "url").as_deref(),
        Some("\"http://file-host:1111/v1/\"")
    );
    assert_eq!(
        effective(&text, "translation", "repair_turns").as_deref(),
        Some("1")
    );

    // The environment wins key by key; keys it does not set keep the file's values.
    let out = check_with(
        Some(file),
        &[
            ("PLAINCALL_UPSTREAM_URL", "http://env-host:2222/v1"),
            ("PLAINCALL_LISTEN", "0.0.0.0:9999"),
            ("PLAINCALL_TRANSLATION_REPAIR_TURNS", "5"),
            (
                "PLAINCALL_SERVER_ACCESS_KEYS",
                "a-very-long-key-0001,b-very-long-key-0002",
            ),
            ("PLAINCALL_LOG_FORMAT", "json"),
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        effective(&text, "", "listen").as_deref(),
        Some("\"0.0.0.0:9999\"")
    );
    assert_eq!(
        effective(&text, "upstream", "url").as_deref(),
        Some("\"http://env-host:2222/v1/\"")
    );
    assert_eq!(
        effective(&text, "translation", "repair_turns").as_deref(),
        Some("5")
    );
    assert_eq!(
        effective(&text, "server", "access_keys").as_deref(),
        Some("[\"***0001\", \"***0002\"]"),
        "two comma-separated keys, masked:\n{text}"
    );
    assert_eq!(
        effective(&text, "log", "format").as_deref(),
        Some("\"json\"")
    );
    assert_eq!(
        effective(&text, "upstream", "timeout").as_deref(),
        Some("\"2m\"")
    );
    assert_eq!(
        effective(&text, "translation", "attempts").as_deref(),
        Some("3")
    );
    assert!(!text.contains("file-host"), "{text}");
}

#[test]
fn environment_overrides_the_defaults_without_a_file() {
    let out = check_with(
        None,
        &[
            (
                "PLAINCALL_UPSTREAM_URL",
                "https://api.example.com/openai/v1",
            ),
            ("PLAINCALL_TRANSLATION_DEFAULT_MODE", "nl"),
            (
                "PLAINCALL_TRANSLATION_TOOLS",
                "{get_weather = \"passthrough\"}",
            ),
            ("PLAINCALL_SERVER_SHUTDOWN_GRACE", "2s"),
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        effective(&text, "upstream", "url").as_deref(),
        Some("\"https://api.example.com/openai/v1/\"")
    );
    assert_eq!(
        effective(&text, "translation", "default_mode").as_deref(),
        Some("\"nl\"")
    );
    assert_eq!(
        effective(&text, "translation.tools", "\"get_weather\"").as_deref(),
        Some("\"passthrough\"")
    );
    assert_eq!(
        effective(&text, "server", "shutdown_grace").as_deref(),
        Some("\"2s\"")
    );
}

#[test]
fn an_all_digit_api_key_from_the_environment_is_accepted() {
    let out = check_with(None, &[("PLAINCALL_UPSTREAM_API_KEY", "123456789012345")]);
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        effective(&text, "upstream", "api_key").as_deref(),
        Some("\"***2345\"")
    );
    assert!(!text.contains("123456789012345"), "{text}");
}

#[test]
fn secrets_are_masked_in_check_output() {
    let upstream_key = "sk-upstream-SECRET-7c1f0b9e";
    let access_one = "access-SECRET-one-5d2e";
    let access_two = "access-SECRET-two-8a4b";
    let file_translator_key = "sk-file-translator-SECRET-31";
    let env_translator_key = "sk-env-translator-SECRET-42";
    let file = format!(
        "[upstream]\napi_key = \"{upstream_key}\"\n\
         [server]\naccess_keys = [\"{access_one}\", \"{access_two}\"]\n\
         [[translation.backends]]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key = \"{file_translator_key}\"\n"
    );
    let secrets = [
        upstream_key,
        access_one,
        access_two,
        file_translator_key,
        env_translator_key,
    ];
    let assert_masked = |out: &Output| {
        assert_success(out);
        for secret in &secrets {
            // Not the secret, nor any long piece of it.
            for piece in [*secret, &secret[..12], &secret[secret.len() - 12..]] {
                assert!(
                    !stdout(out).contains(piece) && !stderr(out).contains(piece),
                    "`{piece}` leaked:\n{}",
                    describe(out)
                );
            }
        }
        assert!(stdout(out).contains("***"), "{}", describe(out));
    };

    // From the file.
    let out = check_with(Some(&file), &[]);
    assert_masked(&out);
    assert_eq!(
        effective(&stdout(&out), "upstream", "api_key").as_deref(),
        Some("\"***0b9e\"")
    );
    assert_eq!(
        effective(&stdout(&out), "translation.backends", "api_key").as_deref(),
        Some("\"***T-31\"")
    );

    // From the environment.
    let out = check_with(
        None,
        &[
            ("PLAINCALL_UPSTREAM_API_KEY", upstream_key),
            (
                "PLAINCALL_SERVER_ACCESS_KEYS",
                &format!("{access_one},{access_two}"),
            ),
            ("PLAINCALL_TRANSLATOR_URL", "http://127.0.0.1:9/v1"),
            ("PLAINCALL_TRANSLATOR_MODEL", "m"),
            ("PLAINCALL_TRANSLATOR_API_KEY", env_translator_key),
        ],
    );
    assert_masked(&out);
    assert_eq!(
        effective(&stdout(&out), "translation.backends", "api_key").as_deref(),
        Some("\"***T-42\"")
    );

    // A short key is masked completely.
    let out = check_with(None, &[("PLAINCALL_UPSTREAM_API_KEY", "short-key")]);
    assert_success(&out);
    assert!(!stdout(&out).contains("short-key") && !stdout(&out).contains("-key"));
    assert_eq!(
        effective(&stdout(&out), "upstream", "api_key").as_deref(),
        Some("\"***\"")
    );
}

#[test]
fn translator_environment_variables_give_one_backend() {
    let out = check_with(
        None,
        &[
            ("PLAINCALL_TRANSLATOR_URL", "http://translator:8081/v1"),
            ("PLAINCALL_TRANSLATOR_MODEL", "tiny-translator"),
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        text.matches("[[translation.backends]]").count(),
        1,
        "{text}"
    );
    assert_eq!(
        effective(&text, "translation.backends", "url").as_deref(),
        Some("\"http://translator:8081/v1/\"")
    );
    assert_eq!(
        effective(&text, "translation.backends", "model").as_deref(),
        Some("\"tiny-translator\"")
    );
    assert_eq!(
        effective(&text, "translation.backends", "output").as_deref(),
        Some("\"json_schema\"")
    );

    // How that backend is asked for JSON: a known mode, and only beside the URL and model.
    let pair = [
        ("PLAINCALL_TRANSLATOR_URL", "http://translator:8081/v1"),
        ("PLAINCALL_TRANSLATOR_MODEL", "tiny-translator"),
    ];
    let out = check_with(
        None,
        &[pair[0], pair[1], ("PLAINCALL_TRANSLATOR_OUTPUT", "grammar")],
    );
    assert_success(&out);
    assert_eq!(
        effective(&stdout(&out), "translation.backends", "output").as_deref(),
        Some("\"grammar\"")
    );
    let out = check_with(
        None,
        &[pair[0], pair[1], ("PLAINCALL_TRANSLATOR_OUTPUT", "gbnf")],
    );
    assert_config_error(&out, &["PLAINCALL_TRANSLATOR_OUTPUT", "grammar"]);
    let out = check_with(None, &[("PLAINCALL_TRANSLATOR_OUTPUT", "grammar")]);
    assert_config_error(
        &out,
        &["PLAINCALL_TRANSLATOR_OUTPUT", "PLAINCALL_TRANSLATOR_URL"],
    );
    // Its timeout (a slow CPU's translator): a duration, and only beside the URL and model.
    let out = check_with(
        None,
        &[pair[0], pair[1], ("PLAINCALL_TRANSLATOR_TIMEOUT", "5m")],
    );
    assert_success(&out);
    assert_eq!(
        effective(&stdout(&out), "translation.backends", "timeout").as_deref(),
        Some("\"5m\"")
    );
    let out = check_with(
        None,
        &[pair[0], pair[1], ("PLAINCALL_TRANSLATOR_TIMEOUT", "soon")],
    );
    assert_config_error(&out, &["PLAINCALL_TRANSLATOR_TIMEOUT", "duration"]);
    let out = check_with(None, &[("PLAINCALL_TRANSLATOR_TIMEOUT", "5m")]);
    assert_config_error(
        &out,
        &["PLAINCALL_TRANSLATOR_TIMEOUT", "PLAINCALL_TRANSLATOR_URL"],
    );

    // They replace the file's backend list.
    let file = "[[translation.backends]]\nbase_url = \"http://one:1/v1\"\nmodel = \"one\"\n\
                [[translation.backends]]\nbase_url = \"http://two:2/v1\"\nmodel = \"two\"\n";
    let out = check_with(
        Some(file),
        &[
            ("PLAINCALL_TRANSLATOR_URL", "http://translator:8081/v1"),
            ("PLAINCALL_TRANSLATOR_MODEL", "tiny-translator"),
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(
        text.matches("[[translation.backends]]").count(),
        1,
        "{text}"
    );
    assert!(
        !text.contains("http://one:1") && !text.contains("http://two:2"),
        "{text}"
    );

    // Half the pair is an error naming the missing half.
    let out = check_with(
        None,
        &[("PLAINCALL_TRANSLATOR_URL", "http://translator:8081/v1")],
    );
    assert_config_error(&out, &["PLAINCALL_TRANSLATOR_MODEL"]);
    let out = check_with(None, &[("PLAINCALL_TRANSLATOR_MODEL", "tiny-translator")]);
    assert_config_error(&out, &["PLAINCALL_TRANSLATOR_URL"]);
    let out = check_with(
        None,
        &[("PLAINCALL_TRANSLATOR_API_KEY", "sk-translator-key")],
    );
    assert_config_error(&out, &["PLAINCALL_TRANSLATOR_API_KEY"]);
    assert!(
        !stderr(&out).contains("sk-translator-key"),
        "{}",
        describe(&out)
    );
    // A bad URL names the variable.
    let out = check_with(
        None,
        &[
            ("PLAINCALL_TRANSLATOR_URL", "translator:8081"),
            ("PLAINCALL_TRANSLATOR_MODEL", "tiny-translator"),
        ],
    );
    assert_config_error(&out, &["PLAINCALL_TRANSLATOR_URL"]);
}

// ---------------------------------------------------------------------------------------------
// health
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn health_succeeds_against_a_running_proxy_and_fails_against_a_closed_port() {
    let upstream = MockServer::start(|_| Reply::ok(json!({"data": []}))).await;
    let proxy = Proxy::start(&upstream.url(), "").await;

    let mut command = plaincall();
    command
        .arg("health")
        .arg("--url")
        .arg(proxy.url("/healthz"));
    let out = output_async(command).await;
    assert_success(&out);

    // A non-2xx answer is unhealthy.
    let mut command = plaincall();
    command
        .arg("health")
        .arg("--url")
        .arg(proxy.url("/no-such-route"));
    let out = output_async(command).await;
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stderr(&out).contains("unhealthy"), "{}", describe(&out));

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut command = plaincall();
    command
        .arg("health")
        .arg("--url")
        .arg(format!("http://{closed}/healthz"));
    let out = output_async(command).await;
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stderr(&out).contains("unhealthy"), "{}", describe(&out));
}

// ---------------------------------------------------------------------------------------------
// prompts show
// ---------------------------------------------------------------------------------------------

#[test]
fn prompts_show_prints_the_nl_tool_and_the_translator_prompt() {
    let out = output(
        plaincall()
            .arg("prompts")
            .arg("show")
            .arg("--tool")
            .arg(set_reminder_path()),
    );
    assert_success(&out);
    let text = stdout(&out);
    let (tool_part, rest) = text
        .split_once("== The translator's system prompt ==")
        .expect("a translator prompt section");
    let tool_json = tool_part
        .split_once("== The tool the main model sees ==")
        .expect("an NL tool section")
        .1;
    let tool: Value = serde_json::from_str(tool_json.trim()).expect("the NL tool is JSON");
    assert_eq!(tool["type"], "function");
    assert_eq!(tool["function"]["name"], "set_reminder");
    let parameters = &tool["function"]["parameters"];
    let properties = parameters["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        vec!["description"],
        "{tool_json}"
    );
    assert_eq!(parameters["required"], json!(["description"]));
    assert!(tool["function"]["description"]
        .as_str()
        .unwrap()
        .contains("schedule_type"));

    let prompt = rest
        .split_once("== The response schema sent with json_schema output ==")
        .map_or(rest, |(prompt, _)| prompt);
    assert!(prompt.contains("Tool: set_reminder"), "{prompt}");
    for value in [
        "once", "daily", "weekly", "monthly", "interval", "mon", "tue", "wed", "thu", "fri", "sat",
        "sun",
    ] {
        assert!(
            prompt.contains(&format!("\"{value}\"")),
            "the translator prompt lacks the enum value {value}:\n{prompt}"
        );
    }
    assert!(prompt.contains("day_of_week"), "{prompt}");
    assert!(prompt.contains("The user's time zone is UTC"), "{prompt}");
}

#[test]
fn prompts_show_uses_the_configured_time_zone_and_rejects_a_missing_tool() {
    let out = output(
        plaincall()
            .arg("prompts")
            .arg("show")
            .arg("--tool")
            .arg(set_reminder_path())
            .env("PLAINCALL_TRANSLATION_TIMEZONE", "Europe/Berlin"),
    );
    assert_success(&out);
    assert!(
        stdout(&out).contains("The user's time zone is Europe/Berlin"),
        "{}",
        describe(&out)
    );

    let out = output(
        plaincall()
            .arg("prompts")
            .arg("show")
            .arg("--tool")
            .arg("/nonexistent/tool.json"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        stderr(&out).contains("/nonexistent/tool.json"),
        "{}",
        describe(&out)
    );
}

// ---------------------------------------------------------------------------------------------
// translate
// ---------------------------------------------------------------------------------------------

const DESCRIPTION: &str = "daily at 9 to check email";

fn translate_command(config: &tempfile::NamedTempFile) -> Command {
    let mut command = plaincall();
    command
        .arg("translate")
        .arg("--tool")
        .arg(set_reminder_path())
        .arg("--config")
        .arg(config.path())
        .arg(DESCRIPTION);
    command
}

/// The pretty-printed arguments at the end of `translate` output.
fn printed_arguments(text: &str) -> Value {
    let start = text
        .lines()
        .position(|l| l == "{")
        .unwrap_or_else(|| panic!("no arguments printed:\n{text}"));
    let json: Vec<&str> = text.lines().skip(start).collect();
    serde_json::from_str(&json.join("\n")).unwrap_or_else(|e| panic!("{e}:\n{text}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_prints_the_structured_arguments() {
    let answer = json!({"message": "Check email.", "schedule_type": "daily", "at": "09:00"});
    let translator = MockServer::scripted(vec![translator_reply(&answer.to_string())]).await;
    let config = toml_file(&support::backend_toml(&translator.url()));

    let out = output_async(translate_command(&config)).await;
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("attempt 1 (translator-model)"), "{text}");
    assert!(!text.contains("attempt 2"), "{text}");
    assert!(!text.contains("error:"), "{text}");
    assert_eq!(printed_arguments(&text), answer);

    let requests = translator.chat_requests();
    assert_eq!(requests.len(), 1);
    let body = requests[0].json();
    assert_eq!(body["model"], "translator-model");
    assert_eq!(requests[0].user_message(), DESCRIPTION);
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("set_reminder"));
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_prints_what_the_proxy_would_deliver_without_unsaid_values() {
    // `timezone` is optional and the request never says it: grounding leaves it out, as the
    // proxy does; the translator's reply is still shown as it came.
    let answer = json!({"message": "Check email.", "schedule_type": "daily", "at": "09:00",
        "timezone": "Europe/Paris"});
    let translator = MockServer::scripted(vec![
        translator_reply(&answer.to_string()),
        translator_reply(&answer.to_string()),
    ])
    .await;
    let config = toml_file(&support::backend_toml(&translator.url()));

    let out = output_async(translate_command(&config)).await;
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("Europe/Paris"), "the reply is shown:\n{text}");
    assert_eq!(
        printed_arguments(&text),
        json!({"message": "Check email.", "schedule_type": "daily", "at": "09:00"})
    );
    assert!(
        stderr(&out).contains("left out, as the request does not say them: timezone"),
        "{}",
        describe(&out)
    );

    let mut json_command = translate_command(&config);
    json_command.arg("--json");
    let out = output_async(json_command).await;
    assert_success(&out);
    let printed: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(printed["calls"][0]["arguments"].get("timezone"), None);
    assert_eq!(printed["left_out_unsaid"], json!(["timezone"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_shows_a_failed_attempt_and_the_retry() {
    let invalid = json!({"message": "Check email.", "schedule_type": "weekly", "at": "09:00"});
    let valid = json!({"message": "Check email.", "schedule_type": "daily", "at": "09:00"});
    let translator = MockServer::scripted(vec![
        translator_reply(&invalid.to_string()),
        translator_reply(&valid.to_string()),
    ])
    .await;
    let config = toml_file(&support::backend_toml(&translator.url()));

    let out = output_async(translate_command(&config)).await;
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("attempt 1 (translator-model)"), "{text}");
    assert!(text.contains("attempt 2 (translator-model)"), "{text}");
    assert!(
        text.contains("\"weekly\""),
        "the first reply is shown:\n{text}"
    );
    // The validation error of the first attempt, naming what was missing.
    let (first, second) = text.split_once("attempt 2").unwrap();
    let errors: Vec<&str> = first
        .lines()
        .filter(|l| l.trim_start().starts_with("error:"))
        .collect();
    assert!(!errors.is_empty(), "{text}");
    assert!(
        errors.iter().any(|e| e.contains("day_of_week")),
        "{errors:?}"
    );
    assert!(!second.contains("error:"), "{text}");
    assert_eq!(printed_arguments(&text), valid);

    // The retry showed the translator its errors.
    let requests = translator.chat_requests();
    assert_eq!(requests.len(), 2);
    let retry = requests[1].last_message();
    assert_eq!(retry["role"], "user");
    assert!(
        retry["content"].as_str().unwrap().contains("day_of_week"),
        "{retry}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_fails_with_exit_1_when_every_attempt_is_invalid() {
    let invalid = json!({"message": "Check email.", "schedule_type": "weekly", "at": "09:00"});
    let translator = MockServer::start(move |_| translator_reply(&invalid.to_string())).await;
    let config = toml_file(&support::backend_toml(&translator.url()));

    let out = output_async(translate_command(&config)).await;
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stdout(&out).contains("attempt 2"), "{}", describe(&out));
    assert!(
        stderr(&out).contains("translation failed"),
        "{}",
        describe(&out)
    );
    assert_eq!(
        translator.chat_requests().len(),
        2,
        "attempts = 2 by default"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_says_when_the_text_is_not_for_the_tool() {
    let objection = r#"{"error": "wrong_tool", "reason": "a lock check"}"#;
    let translator = MockServer::scripted(vec![
        translator_reply(objection),
        translator_reply(objection),
    ])
    .await;
    let config = toml_file(&support::backend_toml(&translator.url()));
    let out = output_async(translate_command(&config)).await;
    assert_success(&out);
    assert!(
        stdout(&out).contains("not a request for this tool: a lock check"),
        "{}",
        describe(&out)
    );
    let mut command = translate_command(&config);
    command.arg("--json");
    let out = output_async(command).await;
    assert_success(&out);
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["outcome"], "wrong_tool");
    assert_eq!(result["reason"], "a lock check");
    assert_eq!(translator.chat_requests().len(), 2, "one attempt each");
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_fails_with_exit_1_when_the_backend_is_dead() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let config = toml_file(&support::backend_toml(&format!("http://{closed}/v1")));

    let out = output_async(translate_command(&config)).await;
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        stderr(&out).contains("translation failed"),
        "{}",
        describe(&out)
    );
    assert!(!stdout(&out).contains("attempt 1"), "{}", describe(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn translate_with_a_bad_config_exits_2() {
    let config = toml_file("[translation]\nattemps = 2\n");
    let out = output_async(translate_command(&config)).await;
    assert_config_error(&out, &["attemps"]);
}

// ---------------------------------------------------------------------------------------------
// serve
// ---------------------------------------------------------------------------------------------

#[test]
fn serve_with_a_bad_config_exits_2() {
    let config = toml_file("[upstream]\nurl = \"not a url\"\n");
    let out = output(plaincall().arg("serve").arg("--config").arg(config.path()));
    assert_config_error(&out, &["upstream.url"]);

    let out = output(plaincall().arg("serve").env("PLAINCALL_SERVER_NOPE", "1"));
    assert_config_error(&out, &["nope"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_answers_then_exits_0_on_sigterm_without_logging_secrets() {
    let upstream = MockServer::start(|_| Reply::ok(json!({"data": []}))).await;
    let upstream_key = "sk-upstream-SECRET-serve-0451";
    let translator_key = "sk-translator-SECRET-serve-0452";
    let mut command = plaincall();
    command
        .arg("serve")
        .env("PLAINCALL_LISTEN", "127.0.0.1:0")
        .env("PLAINCALL_UPSTREAM_URL", upstream.url())
        .env("PLAINCALL_UPSTREAM_API_KEY", upstream_key)
        .env("PLAINCALL_TRANSLATOR_URL", upstream.url())
        .env("PLAINCALL_TRANSLATOR_MODEL", "m")
        .env("PLAINCALL_TRANSLATOR_API_KEY", translator_key)
        .env("PLAINCALL_LOG_FORMAT", "json")
        .env("PLAINCALL_LOG_LEVEL", "debug")
        .env("PLAINCALL_SERVER_SHUTDOWN_GRACE", "5s")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let mut child = command.spawn().expect("serve starts");
    let pid = child.id().expect("a pid");

    // Collect every log line; report the bound address from the start-up line.
    let stderr_pipe = child.stderr.take().unwrap();
    let (addr_tx, addr_rx) = tokio::sync::oneshot::channel::<String>();
    let logs = tokio::spawn(async move {
        let mut lines = BufReader::new(stderr_pipe).lines();
        let mut all = Vec::new();
        let mut addr_tx = Some(addr_tx);
        while let Ok(Some(line)) = lines.next_line().await {
            if let Ok(event) = serde_json::from_str::<Value>(&line) {
                if event["message"] == "plaincall listening" {
                    if let (Some(tx), Some(listen)) = (addr_tx.take(), event["listen"].as_str()) {
                        let _ = tx.send(listen.to_owned());
                    }
                }
            }
            all.push(line);
        }
        all
    });
    let addr = tokio::time::timeout(COMMAND_LIMIT, addr_rx)
        .await
        .expect("serve logs its address in time")
        .expect("serve logs its address");

    // It serves: `plaincall health` against it, and readiness through the upstream.
    let mut health = plaincall();
    health
        .arg("health")
        .arg("--url")
        .arg(format!("http://{addr}/healthz"));
    assert_success(&output_async(health).await);
    let mut ready = plaincall();
    ready
        .arg("health")
        .arg("--url")
        .arg(format!("http://{addr}/readyz"));
    assert_success(&output_async(ready).await);
    let probes = upstream.requests();
    assert!(!probes.is_empty());
    assert_eq!(
        probes[0].headers["authorization"],
        format!("Bearer {upstream_key}"),
        "the configured key goes upstream"
    );

    // SIGTERM: a prompt, clean exit.
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(5), child.wait())
        .await
        .expect("serve exits promptly on SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");

    let logs = logs.await.unwrap().join("\n");
    assert!(logs.contains("shutting down"), "{logs}");
    for secret in [upstream_key, translator_key] {
        assert!(!logs.contains(secret), "`{secret}` in the logs:\n{logs}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_exits_1_when_the_address_is_taken() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let mut command = plaincall();
    command
        .arg("serve")
        .env("PLAINCALL_LISTEN", addr.to_string());
    let out = output_async(command).await;
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stderr(&out).contains("cannot listen"), "{}", describe(&out));
    drop(taken);
}

#[test]
fn a_broken_prompt_template_stops_start_up_saying_which_and_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("translator.j2"),
        "Convert this.\n{% if tool_name %}\nno end",
    )
    .unwrap();
    let out = output(
        plaincall()
            .arg("serve")
            .env("PLAINCALL_LISTEN", "127.0.0.1:0")
            .env("PLAINCALL_TRANSLATION_PROMPTS_DIR", dir.path()),
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = stderr(&out);
    assert!(err.contains("translator.j2"), "names the file: {err}");
    assert!(
        err.contains("translation.prompts_dir"),
        "names the setting: {err}"
    );
    assert!(
        err.to_lowercase().contains("syntax"),
        "says what is wrong: {err}"
    );
    assert!(!err.contains("plaincall: internal error"), "{err}");
}

/// `upstream.formats` as a list in the file or a comma list in the environment; it must keep
/// `chat`, and a name it does not know is an error that names the key.
#[test]
fn upstream_formats_from_the_environment_and_their_errors() {
    let out = output(
        plaincall()
            .arg("check")
            .env("PLAINCALL_UPSTREAM_FORMATS", "chat, responses"),
    );
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        stdout(&out).contains("formats = [\"chat\", \"responses\"]"),
        "{}",
        describe(&out)
    );
    for bad in ["responses", "chat,gemini"] {
        let out = output(
            plaincall()
                .arg("check")
                .env("PLAINCALL_UPSTREAM_FORMATS", bad),
        );
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", describe(&out));
        assert!(
            stderr(&out).contains("formats"),
            "{bad}: {}",
            describe(&out)
        );
    }
}

/// `[models]` aliases are printed back by `check`; a pattern that is not a glob names its key.
#[test]
fn model_aliases_are_checked_and_printed() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, "[models]\n\"claude-*\" = \"qwen2.5-coder-7b\"\n").unwrap();
    let out = output(plaincall().arg("check").arg("--config").arg(&good));
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        stdout(&out).contains("\"claude-*\" = \"qwen2.5-coder-7b\""),
        "{}",
        describe(&out)
    );
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[models]\n\"claude-[\" = \"x\"\n").unwrap();
    let out = output(plaincall().arg("check").arg("--config").arg(&bad));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(stderr(&out).contains("models"), "{}", describe(&out));
}

/// `--json` on the inspection commands: what scripts read instead of the text.
#[tokio::test(flavor = "multi_thread")]
async fn explain_translate_and_prompts_show_speak_json() {
    let out = output(
        plaincall()
            .arg("explain")
            .arg("--json")
            .arg(set_reminder_path())
            .arg(PathBuf::from(ROOT).join("tests/fixtures/tools/add_skill.json")),
    );
    assert_success(&out);
    let reports: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(reports[0]["name"], "set_reminder");
    assert_eq!(reports[0]["verdict"], "rewritten");
    assert_eq!(reports[0]["field"], "description");
    assert!(reports[0]["shown"].as_str().unwrap().contains("Needs:"));
    assert_eq!(reports[1]["name"], "add_skill");
    assert_eq!(reports[1]["verdict"], "passed_through");

    let out = output(
        plaincall()
            .args(["prompts", "show", "--json", "--tool"])
            .arg(set_reminder_path()),
    );
    assert_success(&out);
    let shown: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(shown["tool"], "set_reminder");
    assert_eq!(shown["rewritten"], true);
    assert_eq!(
        shown["main_model_sees"]["function"]["parameters"]["required"],
        json!(["description"])
    );
    assert!(shown["translator_system_prompt"]
        .as_str()
        .unwrap()
        .contains("set_reminder"));
    assert!(shown["response_schema"].is_object());
    assert!(shown["grammar"].as_str().unwrap().starts_with("root ::= "));

    let answer = json!({"message": "Check email.", "schedule_type": "daily", "at": "09:00"});
    let translator = MockServer::scripted(vec![
        translator_reply("not json"),
        translator_reply(&answer.to_string()),
    ])
    .await;
    let config = toml_file(&support::backend_toml(&translator.url()));
    let mut command = translate_command(&config);
    command.arg("--json");
    let out = output_async(command).await;
    assert_success(&out);
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["outcome"], "calls");
    assert_eq!(result["calls"][0]["arguments"], answer);
    assert_eq!(result["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(result["attempts"][0]["backend"], "translator-model");
    assert!(!result["attempts"][0]["errors"]
        .as_array()
        .unwrap()
        .is_empty());
    // `prompts show` prints the very prompt a translation sends (the schema compact).
    let sent = translator.chat_requests()[0].json()["messages"][0]["content"].clone();
    assert_eq!(sent, shown["translator_system_prompt"]);
}
