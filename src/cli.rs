//! The command line: `serve`, `check`, `health`, `translate`, `eval`, `explain`, `prompts show`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use crate::config::{Config, LogFormat};
use crate::error::shown_url;
use crate::openai::RawObject;
use crate::pipe::translate::{today, AttemptRecord, Outcome};
use crate::pipe::{gbnf, grammar};
use crate::server::{self, AppState};

#[derive(Parser)]
#[command(
    name = "plaincall",
    version,
    about = "OpenAI-compatible proxy that lets small LLMs call complex tools"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The settings people change most, as flags: they win over the file and the environment.
#[derive(clap::Args, Default)]
pub struct ServeFlags {
    /// Address to listen on (`listen`), e.g. 0.0.0.0:8787.
    #[arg(long)]
    listen: Option<String>,
    /// The main model's server (`upstream.url`), e.g. http://127.0.0.1:8080/v1.
    #[arg(long)]
    upstream: Option<String>,
    /// One translator backend's URL; needs --translator-model.
    #[arg(long, requires = "translator_model")]
    translator: Option<String>,
    /// The translator backend's model name; needs --translator.
    #[arg(long, requires = "translator")]
    translator_model: Option<String>,
}

impl ServeFlags {
    fn apply(&self, config: &mut Config) -> Result<(), crate::config::ConfigError> {
        if let Some(listen) = &self.listen {
            config.listen = crate::config::parse_listen("--listen", listen)?;
        }
        if let Some(url) = &self.upstream {
            config.upstream.base_url = crate::config::parse_base_url("--upstream", url)?;
        }
        if let (Some(url), Some(model)) = (&self.translator, &self.translator_model) {
            config.translation.backends = vec![crate::config::single_backend(
                "--translator",
                url,
                model.clone(),
                None,
            )?];
        }
        Ok(())
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the proxy.
    Serve {
        /// TOML configuration file; without it ./proxy.toml when there is one, else the
        /// embedded default.
        #[arg(long, env = "PLAINCALL_CONFIG")]
        config: Option<PathBuf>,
        #[command(flatten)]
        flags: ServeFlags,
    },
    /// Validate the configuration and print the effective settings, secrets masked.
    Check {
        #[arg(long, env = "PLAINCALL_CONFIG")]
        config: Option<PathBuf>,
    },
    /// GET a health URL; exit 0 on HTTP 200 (for container health checks).
    Health {
        #[arg(long, default_value = "http://127.0.0.1:8787/healthz")]
        url: String,
    },
    /// Translate one description with the configured translator, show every attempt, and
    /// print the call the proxy would deliver (values the text does not say left out).
    Translate {
        /// A tool definition: `{"type": "function", "function": {...}}` or the function object.
        #[arg(long)]
        tool: PathBuf,
        /// The model to ask when no translator backend is configured (the upstream translates).
        #[arg(long, default_value = "")]
        model: String,
        #[arg(long, env = "PLAINCALL_CONFIG")]
        config: Option<PathBuf>,
        /// Print one JSON object (the attempts and the outcome) instead of text.
        #[arg(long)]
        json: bool,
        description: String,
    },
    /// Run cases against the upstream twice, directly and through plaincall, and report.
    Eval {
        /// Tool definition files, or folders of them (`*.json`).
        #[arg(long, required = true, num_args = 1..)]
        tools: Vec<PathBuf>,
        /// Cases, one JSON object a line (`tool`, `description`, `expect`/`expect_array`/
        /// `expect_clarification`, optional `loose`, `partial`, `user`).
        #[arg(long)]
        cases: PathBuf,
        /// The model name sent to the upstream.
        #[arg(long, default_value = "default")]
        model: String,
        /// Write the results as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write `report.md` and `chart.svg` into this folder.
        #[arg(long)]
        report: Option<PathBuf>,
        #[arg(long, env = "PLAINCALL_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Say, for each tool in tool files or a captured request body, whether plaincall rewrites
    /// it and why, and show the plain-English form the main model sees.
    Explain {
        /// Tool definitions (one tool, or an array) or a request body with `tools`.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        #[arg(long, env = "PLAINCALL_CONFIG")]
        config: Option<PathBuf>,
        /// Print a JSON array, one object a tool, instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Inspect prompts.
    Prompts {
        #[command(subcommand)]
        command: PromptsCommand,
    },
}

#[derive(Subcommand)]
pub enum PromptsCommand {
    /// Print the NL tool the main model sees and the translator prompt for a tool.
    Show {
        #[arg(long)]
        tool: PathBuf,
        #[arg(long, env = "PLAINCALL_CONFIG")]
        config: Option<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// `println!` without the panic when stdout is a closed pipe (`plaincall prompts show | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Exit code for configuration errors.
const EXIT_CONFIG: u8 = 2;
/// `serve` stopped, but the shutdown grace period cut requests or streams short.
const EXIT_GRACE_EXPIRED: u8 = 3;

pub fn run(cli: Cli) -> ExitCode {
    crate::install_crypto_provider();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("plaincall: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        match cli.command {
            Command::Serve { config, flags } => serve(config.as_deref(), &flags).await,
            Command::Check { config } => check(config.as_deref()),
            Command::Health { url } => health(&url).await,
            Command::Translate {
                tool,
                model,
                config,
                json,
                description,
            } => translate(config.as_deref(), &tool, &model, &description, json).await,
            Command::Eval {
                tools,
                cases,
                model,
                json,
                report,
                config,
            } => {
                eval(
                    config.as_deref(),
                    &tools,
                    &cases,
                    &model,
                    json.as_deref(),
                    report.as_deref(),
                )
                .await
            }
            Command::Explain {
                files,
                config,
                json,
            } => explain(config.as_deref(), &files, json),
            Command::Prompts {
                command: PromptsCommand::Show { tool, config, json },
            } => prompts_show(config.as_deref(), &tool, json),
        }
    })
}

/// The file named, else `./proxy.toml` when there is one (said on stderr), else none.
fn load_config(path: Option<&Path>) -> Result<Config, ExitCode> {
    let local = Path::new(LOCAL_CONFIG);
    let path = match path {
        Some(path) => Some(path),
        None if local.is_file() => {
            eprintln!(
                "plaincall: reading the configuration in ./{LOCAL_CONFIG} (--config names another)"
            );
            Some(local)
        }
        None => None,
    };
    Config::load(path).map_err(|error| {
        eprintln!("plaincall: configuration error: {error}");
        ExitCode::from(EXIT_CONFIG)
    })
}

/// The configuration file read from the working directory when none is named.
const LOCAL_CONFIG: &str = "proxy.toml";

fn init_logging(config: &Config) {
    init_subscriber(config, None);
}

/// A boxed layer of the process's subscriber.
type Layer = Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync>;

/// Logs to stderr, and spans to the trace exporter when `traces` is given. Each has its own
/// filter: the log level does not decide what is traced, and trace-only spans stay out of
/// the logs.
fn init_subscriber(config: &Config, traces: Option<Layer>) {
    use tracing_subscriber::filter::{filter_fn, FilterExt};
    use tracing_subscriber::prelude::*;
    let filter = EnvFilter::try_from_env("RUST_LOG")
        .or_else(|_| EnvFilter::try_new(&config.log.level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let logged = filter_fn(|meta| !meta.target().starts_with(crate::telemetry::ONLY));
    // Colour codes only for a person at a terminal, not in files or log collectors.
    let fmt = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let fmt: Layer = match config.log.format {
        LogFormat::Json => Box::new(fmt.json().flatten_event(true)),
        LogFormat::Human => Box::new(fmt.fmt_fields(crate::telemetry::LogFields)),
    };
    let traced = filter_fn(|meta| meta.target().starts_with(crate::telemetry::TARGET));
    let mut layers: Vec<Layer> = vec![Box::new(fmt.with_filter(filter.and(logged)))];
    if let Some(layer) = traces {
        layers.push(Box::new(layer.with_filter(traced)));
    }
    let _ = tracing_subscriber::registry().with(layers).try_init();
}

/// The trace exporter `[telemetry]` asks for, and its layer; `None` when traces are off.
fn start_tracing(config: &Config) -> Result<Option<(crate::telemetry::Tracing, Layer)>, String> {
    let Some(url) = &config.telemetry.traces_url else {
        return Ok(None);
    };
    crate::telemetry::spans::set_secrets(crate::redact::configured(config));
    let transport = crate::upstream::OtlpTransport::new(url, config.telemetry.export_timeout)
        .map_err(|e| e.to_string())?;
    let started = crate::telemetry::start(&config.telemetry, Box::new(transport))?;
    Ok(started.map(|(tracing, layer)| (tracing, Box::new(layer) as Layer)))
}

async fn serve(path: Option<&Path>, flags: &ServeFlags) -> ExitCode {
    let mut config = match load_config(path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    if let Err(error) = flags.apply(&mut config) {
        eprintln!("plaincall: configuration error: {error}");
        return ExitCode::from(EXIT_CONFIG);
    }
    let (tracing, traces) = match start_tracing(&config) {
        Ok(Some((tracing, layer))) => (Some(tracing), Some(layer)),
        Ok(None) => (None, None),
        Err(error) => {
            eprintln!("plaincall: traces: {error}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    init_subscriber(&config, traces);
    let code = serve_with(config).await;
    if let Some(tracing) = tracing {
        // Blocking: the exporter's thread sends what is queued, on this runtime.
        let _ = tokio::task::spawn_blocking(move || tracing.shutdown()).await;
    }
    code
}

async fn serve_with(config: Config) -> ExitCode {
    let listen = config.listen;
    let state = match AppState::new(config) {
        Ok(state) => state,
        Err(error) => {
            eprintln!("plaincall: {error}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("plaincall: cannot listen on {listen}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let bound = listener.local_addr().map_or(listen, |a| a);
    crate::memory::keep_large_buffers_apart();
    tokio::spawn(crate::memory::trim_when_idle(
        state.metrics.in_flight.clone(),
    ));
    // The bound address, so that `listen = "127.0.0.1:0"` tells where it went.
    crate::startup::log_summary(&state.config, bound);
    // Probed in the background: a slow upstream must not hold up serving.
    let probed = state.clone();
    tokio::spawn(async move {
        crate::startup::probe_and_log(&probed.config).await;
        // `upstream.formats` checked once: a format the upstream does not serve is converted
        // from the first request on, as a 404 on its route would have taught.
        for format in crate::startup::unserved_formats(&probed.config).await {
            probed.unserved.learn(format);
        }
    });
    match server::serve(listener, state, server::shutdown_signal()).await {
        Ok(server::Stopped::Drained) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Ok(server::Stopped::GraceExpired) => {
            tracing::warn!("stopped with requests cut short by the grace period");
            ExitCode::from(EXIT_GRACE_EXPIRED)
        }
        Err(error) => {
            eprintln!("plaincall: server error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn check(path: Option<&Path>) -> ExitCode {
    match load_config(path) {
        Ok(config) => {
            for warning in crate::startup::url_warnings(&config) {
                eprintln!("plaincall: warning: {warning}");
            }
            say!("# configuration is valid; effective settings:\n");
            say!("{}", config.effective_toml().trim_end());
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

async fn health(url: &str) -> ExitCode {
    let Ok(parsed) = url::Url::parse(url) else {
        eprintln!("unhealthy: `{url}` is no URL (--url sets the address to check)");
        return ExitCode::FAILURE;
    };
    let shown = shown_url(&parsed);
    let timeout = std::time::Duration::from_secs(3);
    let bound = "plaincall health's fixed bound";
    let answer = match crate::upstream::UpstreamClient::one_off(parsed, None, timeout, bound) {
        Ok(client) => client.status_once("", None).await,
        Err(error) => Err(error),
    };
    match answer {
        Ok(status) if status.is_success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("unhealthy: {shown} answered HTTP {}", status.as_u16());
            ExitCode::FAILURE
        }
        Err(crate::error::ProxyError::UpstreamRedirect { status, .. }) => {
            eprintln!("unhealthy: {shown} answered HTTP {status} (a redirect, not followed)");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!(
                "unhealthy: cannot reach {shown}: {} (is `plaincall serve` running there? --url sets the address to check)",
                crate::startup::unanswered(&error)
            );
            ExitCode::FAILURE
        }
    }
}

/// Reads a tool file, in any format's tool shape, into the `{"type": "function",
/// "function": {...}}` form.
fn read_tool(path: &Path) -> Result<RawObject, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let value = crate::wire::tool_in_chat_shape(value);
    serde_json::from_value(value).map_err(|e| format!("{}: {e}", path.display()))
}

fn tool_and_state(
    path: Option<&Path>,
    tool: &Path,
) -> Result<(std::sync::Arc<AppState>, crate::pipe::NlTool, RawObject), ExitCode> {
    let config = load_config(path)?;
    init_logging(&config);
    let state = AppState::new(config).map_err(|error| {
        eprintln!("plaincall: {error}");
        ExitCode::from(EXIT_CONFIG)
    })?;
    let definition = read_tool(tool).map_err(|error| {
        eprintln!("plaincall: {error}");
        ExitCode::from(EXIT_CONFIG)
    })?;
    match state.pipe.nl_form(&definition, true) {
        Ok(Some((nl_tool, nl_definition))) => Ok((state, nl_tool, nl_definition)),
        Ok(None) => {
            eprintln!(
                "plaincall: {} is not a function tool with a usable schema",
                tool.display()
            );
            Err(ExitCode::from(EXIT_CONFIG))
        }
        Err(error) => {
            eprintln!("plaincall: {error}");
            Err(ExitCode::from(EXIT_CONFIG))
        }
    }
}

async fn translate(
    path: Option<&Path>,
    tool: &Path,
    model: &str,
    description: &str,
    json: bool,
) -> ExitCode {
    let (state, nl_tool, _) = match tool_and_state(path, tool) {
        Ok(found) => found,
        Err(code) => return code,
    };
    if state.config.translation.backends.is_empty() && model.trim().is_empty() {
        eprintln!(
            "plaincall: no translator configured, so the upstream ({}) translates, and it needs a model: pass --model NAME, or configure a translator ([[translation.backends]] url and model, or env PLAINCALL_TRANSLATOR_URL and PLAINCALL_TRANSLATOR_MODEL)",
            crate::config::redacted(&state.config.upstream.base_url)
        );
        return ExitCode::from(EXIT_CONFIG);
    }
    let mut attempts: Vec<AttemptRecord> = Vec::new();
    let outcome = state
        .pipe
        .translate_uncached(
            &nl_tool,
            description,
            model,
            &axum::http::HeaderMap::new(),
            &state.metrics,
            today(&state.config.translation.timezone),
            &mut attempts,
        )
        .await;
    // What the proxy would deliver: the same grounding, the request text as the evidence.
    let outcome = state
        .pipe
        .grounded(
            &nl_tool,
            description,
            description,
            outcome,
            model,
            &axum::http::HeaderMap::new(),
            &state.metrics,
        )
        .await;
    if json {
        return print_json(&outcome, &attempts);
    }
    print_human(&state, outcome, &attempts)
}

/// `translate --json`: the outcome, grounding's decisions and every attempt, as one object.
fn print_json(outcome: &Outcome, attempts: &[AttemptRecord]) -> ExitCode {
    let attempts: Vec<serde_json::Value> = attempts
        .iter()
        .map(|a| serde_json::json!({"backend": a.backend, "reply": a.reply, "errors": a.errors}))
        .collect();
    let (result, code) = match outcome {
        Outcome::Calls(translated) => (
            serde_json::json!({"outcome": "calls", "total": translated.total,
                "calls": translated.calls.iter().map(|(position, args)| serde_json::json!({"position": position, "arguments": args})).collect::<Vec<_>>(),
                "left_out_unsaid": translated.ungrounded,
                "grounding": translated.grounding.iter().map(|d| serde_json::json!({
                    "path": d.path, "rule": d.rule.name(), "outcome": d.outcome.name()})).collect::<Vec<_>>()}),
            ExitCode::SUCCESS,
        ),
        Outcome::Clarification(question) => (
            serde_json::json!({"outcome": "clarification", "question": question}),
            ExitCode::SUCCESS,
        ),
        Outcome::WrongTool(reason) => (
            serde_json::json!({"outcome": "wrong_tool", "reason": reason}),
            ExitCode::SUCCESS,
        ),
        Outcome::Failed(error) => (
            serde_json::json!({"outcome": "failed", "error": error}),
            ExitCode::FAILURE,
        ),
    };
    let mut printed = result;
    printed["attempts"] = serde_json::Value::Array(attempts);
    say!(
        "{}",
        serde_json::to_string_pretty(&printed).unwrap_or_default()
    );
    code
}

/// `translate`: each attempt, then the calls (grounding on stderr), the question or the
/// failure, with the setting to look at when a server did not answer.
fn print_human(state: &AppState, outcome: Outcome, attempts: &[AttemptRecord]) -> ExitCode {
    for (i, attempt) in attempts.iter().enumerate() {
        say!(
            "attempt {} ({}):\n  reply: {}",
            i + 1,
            attempt.backend,
            attempt.reply.trim()
        );
        for error in &attempt.errors {
            say!("  error: {error}");
        }
    }
    match outcome {
        Outcome::Calls(translated) => {
            for (position, args) in &translated.calls {
                if translated.total > 1 {
                    say!("call {position} of {}:", translated.total);
                }
                say!("{}", serde_json::to_string_pretty(args).unwrap_or_default());
            }
            if !translated.ungrounded.is_empty() {
                eprintln!(
                    "left out, as the request does not say them: {}",
                    translated.ungrounded.join(", ")
                );
            }
            if !translated.grounding.is_empty() {
                eprintln!(
                    "grounding (value=rule:outcome): {}",
                    translated.grounding_line()
                );
            }
            ExitCode::SUCCESS
        }
        Outcome::Clarification(question) => {
            say!("clarification needed: {question}");
            ExitCode::SUCCESS
        }
        Outcome::WrongTool(reason) => {
            say!("not a request for this tool: {reason}");
            ExitCode::SUCCESS
        }
        Outcome::Failed(error) => {
            eprintln!("translation failed: {error}");
            // A connection problem: say which setting points at the server that did not answer.
            if error.contains("could not reach") {
                eprintln!(
                    "{}",
                    if state.config.translation.backends.is_empty() {
                        "(the upstream translates: it is the `upstream.url` setting, env PLAINCALL_UPSTREAM_URL)"
                    } else {
                        "(the translators are the [[translation.backends]] url settings, env PLAINCALL_TRANSLATOR_URL)"
                    }
                );
            }
            ExitCode::FAILURE
        }
    }
}

async fn eval(
    path: Option<&Path>,
    tools: &[PathBuf],
    cases: &Path,
    model: &str,
    json_out: Option<&Path>,
    report: Option<&Path>,
) -> ExitCode {
    let config = match load_config(path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    init_logging(&config);
    let (tools, case_list) = match (
        crate::eval::load_tools(tools),
        crate::eval::load_cases(cases),
    ) {
        (Ok(t), Ok(c)) => (t, c),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("plaincall: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    if let Err(code) = eval_preflight(&config).await {
        return code;
    }
    let bar = indicatif::ProgressBar::new((case_list.len() * 2) as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    let summary = crate::eval::run(config, tools, &case_list, model, |o| {
        bar.set_message(format!(
            "case {} {}",
            o.case + 1,
            crate::eval::mode_name(o.mode)
        ));
        bar.inc(1);
    })
    .await;
    bar.finish_and_clear();
    let summary = match summary {
        Ok(summary) => summary,
        Err(error) => {
            eprintln!("plaincall: eval failed: {error}");
            return ExitCode::FAILURE;
        }
    };
    say!("{}", crate::eval::table(&summary, &case_list));
    if let Some(file) = json_out {
        let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
        if let Err(error) = std::fs::write(file, text) {
            eprintln!("plaincall: writing {}: {error}", file.display());
            return ExitCode::FAILURE;
        }
    }
    if let Some(folder) = report {
        let written = std::fs::create_dir_all(folder)
            .and_then(|()| std::fs::write(folder.join("chart.svg"), crate::eval::chart(&summary)))
            .and_then(|()| {
                std::fs::write(
                    folder.join("report.md"),
                    crate::eval::markdown(&summary, &case_list, "chart.svg", model),
                )
            });
        if let Err(error) = written {
            eprintln!(
                "plaincall: writing the report to {}: {error}",
                folder.display()
            );
            return ExitCode::FAILURE;
        }
        say!("report: {}", folder.join("report.md").display());
    }
    ExitCode::SUCCESS
}

fn explain(path: Option<&Path>, files: &[PathBuf], json: bool) -> ExitCode {
    let config = match load_config(path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    let state = match AppState::new(config) {
        Ok(state) => state,
        Err(error) => {
            eprintln!("plaincall: {error}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let mut tools = Vec::new();
    for file in files {
        match crate::explain::tools_in(file) {
            Ok(found) => tools.extend(found),
            Err(error) => {
                eprintln!("plaincall: {error}");
                return ExitCode::from(EXIT_CONFIG);
            }
        }
    }
    let reports: Vec<_> = tools
        .iter()
        .map(|tool| crate::explain::report(&state.pipe, tool))
        .collect();
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&reports).unwrap_or_default()
        );
        return ExitCode::SUCCESS;
    }
    for report in &reports {
        say!("{}", report.text());
    }
    ExitCode::SUCCESS
}

/// Stops `eval` before its cases when the upstream or a translator is not there: a table of
/// zeros and a report would only measure the missing server.
async fn eval_preflight(config: &Config) -> Result<(), ExitCode> {
    let mut missing = false;
    for target in crate::startup::targets(config) {
        match crate::startup::probe(&target).await {
            crate::startup::Probe::Reachable => {}
            crate::startup::Probe::Doubtful(message) => eprintln!("plaincall: warning: {message}"),
            crate::startup::Probe::Unreachable(message) => {
                eprintln!("plaincall: eval stopped: {message}");
                missing = true;
            }
        }
    }
    if missing {
        return Err(ExitCode::FAILURE);
    }
    Ok(())
}

fn prompts_show(path: Option<&Path>, tool: &Path, json: bool) -> ExitCode {
    let (state, nl_tool, nl_definition) = match tool_and_state(path, tool) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let (date, weekday) = today(&state.config.translation.timezone);
    // The very prompt a translation sends (compact schema), not a prettier copy of it.
    let system = state.pipe.system_prompt(&nl_tool, date, weekday);
    let system = match system {
        Ok(text) => text,
        Err(error) => {
            eprintln!("plaincall: {error}");
            return ExitCode::FAILURE;
        }
    };
    let response_schema = grammar::response_schema(&nl_tool.parameters);
    if json {
        let definition = serde_json::to_value(&nl_definition).unwrap_or_default();
        say!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "tool": nl_tool.name,
                "rewritten": !nl_tool.reason.starts_with("not rewritten"),
                "reason": nl_tool.reason,
                "main_model_sees": definition,
                "translator_system_prompt": system,
                "response_schema": response_schema,
                "grammar": gbnf::gbnf(&response_schema),
            }))
            .unwrap_or_default()
        );
        return ExitCode::SUCCESS;
    }
    let pretty = |v: &dyn erased::Pretty| v.pretty();
    if nl_tool.reason.starts_with("not rewritten") {
        say!(
            "== Note ==\n{} is {}: the main model sees its own schema. Below is the form it would get with mode \"nl\".\n",
            nl_tool.name,
            nl_tool.reason
        );
    }
    say!(
        "== The tool the main model sees ==\n{}\n",
        pretty(&nl_definition)
    );
    say!("== The translator's system prompt ==\n{system}\n");
    say!(
        "== The response schema sent with json_schema output ==\n{}",
        serde_json::to_string_pretty(&response_schema).unwrap_or_default()
    );
    say!(
        "\n== The grammar sent with grammar output (llama-server) ==\n{}",
        gbnf::gbnf(&response_schema)
    );
    ExitCode::SUCCESS
}

mod erased {
    pub(super) trait Pretty {
        fn pretty(&self) -> String;
    }
    impl Pretty for crate::openai::RawObject {
        fn pretty(&self) -> String {
            serde_json::to_string(self)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_default()
        }
    }
}
