//! `plaincall eval`: runs every case twice against the configured upstream, directly with the
//! full schemas and through the translation pipe, and reports what translation buys.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::config::Config;
use crate::server::{self, AppState};
use crate::upstream::UpstreamClient;

/// One case: the format of the shared `cases.jsonl`, plus an optional `user` message.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Case {
    pub tool: String,
    pub description: String,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub expect: Option<Value>,
    #[serde(default)]
    pub expect_array: Option<Vec<Value>>,
    #[serde(default)]
    pub expect_clarification: bool,
    #[serde(default)]
    pub loose: Vec<String>,
    #[serde(default)]
    pub partial: bool,
}

impl Case {
    /// What the user says: the case's own message, or the description as a request.
    pub(crate) fn user_message(&self) -> String {
        self.user
            .clone()
            .unwrap_or_else(|| format!("Please use the {} tool: {}", self.tool, self.description))
    }
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Mode {
    Direct,
    Plaincall,
}

/// How one run of one case went.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Outcome {
    pub case: usize,
    pub tool: String,
    pub mode: Mode,
    pub call_made: bool,
    pub right_tool: bool,
    pub schema_valid: bool,
    pub exact_match: bool,
    pub clarification_expected: bool,
    pub clarified: bool,
    pub latency_ms: u64,
    pub error: Option<String>,
    pub calls: Vec<Value>,
}

impl Outcome {
    /// Whether the case passed: the expected call(s) exactly, or a question when one was due.
    pub(crate) fn passed(&self) -> bool {
        if self.clarification_expected {
            self.clarified
        } else {
            self.exact_match
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct Summary {
    pub cases: usize,
    pub modes: BTreeMap<String, Totals>,
    pub outcomes: Vec<Outcome>,
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct Totals {
    pub call_made: usize,
    pub right_tool: usize,
    pub schema_valid: usize,
    pub exact_match: usize,
    pub clarification_cases: usize,
    pub clarified: usize,
    pub passed: usize,
    pub mean_latency_ms: u64,
}

pub(crate) fn load_tools(paths: &[PathBuf]) -> Result<Vec<Value>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            entries.sort();
            files.extend(entries);
        } else {
            files.push(path.clone());
        }
    }
    files
        .iter()
        .map(|file| {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let value: Value =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            Ok(crate::wire::tool_in_chat_shape(value))
        })
        .collect()
}

pub(crate) fn load_cases(path: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Runs every case in both modes. `progress` is called after each run.
pub(crate) async fn run(
    config: Config,
    tools: Vec<Value>,
    cases: &[Case],
    model: &str,
    mut progress: impl FnMut(&Outcome),
) -> Result<Summary, String> {
    let timeout = config.upstream.timeout;
    let state = AppState::new(config).map_err(|e| e.to_string())?;
    // The pipe runs in-process on a loopback port, exactly as a client would reach it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server::serve(listener, state.clone(), async move {
        let _ = stopped.await;
    }));
    // The pipe adds the upstream's key itself; the direct run must send it.
    // Both runs wait `upstream.timeout` for each step of an answer, plaincall's own included.
    let bound = "upstream.timeout, each step of an answer in plaincall eval";
    let direct = UpstreamClient::one_off(
        state.config.upstream.base_url.clone(),
        state.config.upstream.api_key.clone(),
        timeout,
        bound,
    )
    .map_err(|e| e.detail())?;
    let through = url::Url::parse(&format!("http://{address}/v1/")).map_err(|e| e.to_string())?;
    let through = UpstreamClient::one_off(through, None, timeout, bound).map_err(|e| e.detail())?;
    let validators = validators(&tools);
    let mut outcomes = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let body = bytes::Bytes::from(case_body(model, &tools, case).to_string());
        for mode in [Mode::Direct, Mode::Plaincall] {
            let client = match mode {
                Mode::Direct => &direct,
                Mode::Plaincall => &through,
            };
            let started = Instant::now();
            let reply = send(client, body.clone()).await;
            let outcome = judge(index, case, mode, reply, started.elapsed(), &validators);
            progress(&outcome);
            outcomes.push(outcome);
        }
    }
    let _ = stop.send(());
    let _ = serving.await;
    Ok(summarise(cases.len(), outcomes))
}

/// A validator per tool, by name, for its parameters.
fn validators(tools: &[Value]) -> BTreeMap<String, jsonschema::Validator> {
    tools
        .iter()
        .filter_map(|t| {
            let name = t.pointer("/function/name")?.as_str()?.to_owned();
            let schema = t.pointer("/function/parameters")?;
            jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .ok()
                .map(|v| (name, v))
        })
        .collect()
}

/// The chat request for a case, the same in both modes.
fn case_body(model: &str, tools: &[Value], case: &Case) -> Value {
    json!({
        "model": model,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": "You are a helpful assistant. Use the tools when they fit the request. If a required detail is missing, ask the user instead of guessing."},
            {"role": "user", "content": case.user_message()}
        ],
        "tools": tools,
    })
}

/// What `eval` reads of one answer at most.
const REPLY_LIMIT: u64 = 16 << 20;

/// The reply's JSON body, or why there is none (the error names no credentials).
async fn send(client: &UpstreamClient, body: bytes::Bytes) -> Result<Value, String> {
    let (_, bytes) = client
        .exchange_once("chat/completions", Some(body), REPLY_LIMIT)
        .await
        .map_err(|e| e.detail())?;
    serde_json::from_slice::<Value>(&bytes).map_err(|e| e.to_string())
}

fn judge(
    index: usize,
    case: &Case,
    mode: Mode,
    reply: Result<Value, String>,
    elapsed: Duration,
    validators: &BTreeMap<String, jsonschema::Validator>,
) -> Outcome {
    let mut outcome = Outcome {
        case: index,
        tool: case.tool.clone(),
        mode,
        call_made: false,
        right_tool: false,
        schema_valid: false,
        exact_match: false,
        clarification_expected: case.expect_clarification,
        clarified: false,
        latency_ms: elapsed.as_millis() as u64,
        error: None,
        calls: Vec::new(),
    };
    let body = match reply {
        Ok(body) => body,
        Err(error) => {
            outcome.error = Some(error);
            return outcome;
        }
    };
    if let Some(error) = body.get("error") {
        outcome.error = Some(error.to_string());
        return outcome;
    }
    let message = &body["choices"][0]["message"];
    let calls = tool_calls(message);
    outcome.calls = calls
        .iter()
        .map(|(n, a)| json!({"name": n, "arguments": a}))
        .collect();
    outcome.call_made = !calls.is_empty();
    outcome.right_tool = outcome.call_made && calls.iter().all(|(n, _)| *n == case.tool);
    outcome.schema_valid = outcome.call_made
        && calls
            .iter()
            .all(|(n, a)| validators.get(n).is_some_and(|v| v.is_valid(a)));
    let text = message["content"].as_str().unwrap_or_default().trim();
    outcome.clarified = !outcome.call_made && !text.is_empty();
    outcome.exact_match = outcome.right_tool && expected_calls(case, &calls);
    outcome
}

/// The reply message's calls: name and parsed arguments (`null` when they are not JSON).
fn tool_calls(message: &Value) -> Vec<(String, Value)> {
    let Some(calls) = message["tool_calls"].as_array() else {
        return Vec::new();
    };
    calls
        .iter()
        .map(|c| {
            let name = c["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let args = c["function"]["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            (name, args)
        })
        .collect()
}

/// Whether the calls to the case's tool are the expected call, or the expected calls in order.
fn expected_calls(case: &Case, calls: &[(String, Value)]) -> bool {
    let args: Vec<&Value> = calls
        .iter()
        .filter(|(n, _)| *n == case.tool)
        .map(|(_, a)| a)
        .collect();
    match (&case.expect, &case.expect_array) {
        (Some(expected), _) => args.len() == 1 && matches(expected, args[0], case, ""),
        (None, Some(expected)) => {
            args.len() == expected.len()
                && expected
                    .iter()
                    .zip(&args)
                    .all(|(e, a)| matches(e, a, case, ""))
        }
        (None, None) => false,
    }
}

/// Equal, except that `loose` fields need only be present with the same type (non-empty
/// text), and a `partial` case allows fields it does not name.
fn matches(expected: &Value, actual: &Value, case: &Case, path: &str) -> bool {
    let loose = case.loose.iter().any(|l| l == path);
    if loose {
        return match (expected, actual) {
            (Value::String(_), Value::String(a)) => !a.trim().is_empty(),
            (e, a) => std::mem::discriminant(e) == std::mem::discriminant(a),
        };
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let extra_ok = case.partial || a.keys().all(|k| e.contains_key(k));
            extra_ok
                && e.iter().all(|(k, v)| {
                    let sub = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    a.get(k).is_some_and(|av| matches(v, av, case, &sub))
                })
        }
        (Value::String(e), Value::String(a)) => e.trim() == a.trim(),
        (Value::Number(e), Value::Number(a)) => e.as_f64() == a.as_f64(),
        (e, a) => e == a,
    }
}

fn summarise(cases: usize, outcomes: Vec<Outcome>) -> Summary {
    let mut modes: BTreeMap<String, Totals> = BTreeMap::new();
    let mut latency: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for o in &outcomes {
        let key = mode_name(o.mode).to_owned();
        let t = modes.entry(key.clone()).or_default();
        t.call_made += usize::from(o.call_made);
        t.right_tool += usize::from(o.right_tool);
        t.schema_valid += usize::from(o.schema_valid);
        t.exact_match += usize::from(o.exact_match);
        t.clarification_cases += usize::from(o.clarification_expected);
        t.clarified += usize::from(o.clarification_expected && o.clarified);
        t.passed += usize::from(o.passed());
        let l = latency.entry(key).or_default();
        l.0 += o.latency_ms;
        l.1 += 1;
    }
    for (key, (sum, n)) in latency {
        if let Some(t) = modes.get_mut(&key) {
            t.mean_latency_ms = sum / n.max(1);
        }
    }
    Summary {
        cases,
        modes,
        outcomes,
    }
}

pub(crate) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Direct => "direct",
        Mode::Plaincall => "plaincall",
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "-"
    }
}

/// The per-case and total table for the terminal (and the Markdown report).
pub(crate) fn table(summary: &Summary, cases: &[Case]) -> String {
    let mut out = String::from("| # | tool | mode | call | right tool | valid | exact | clarified | ms |\n|---|---|---|---|---|---|---|---|---|\n");
    for o in &summary.outcomes {
        let clarified = if o.clarification_expected {
            yes(o.clarified)
        } else {
            "n/a"
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            o.case + 1,
            o.tool,
            mode_name(o.mode),
            yes(o.call_made),
            yes(o.right_tool),
            yes(o.schema_valid),
            yes(o.exact_match),
            clarified,
            o.latency_ms
        ));
    }
    let call_cases = cases.iter().filter(|c| !c.expect_clarification).count();
    out.push_str(&format!(
        "\n| mode | passed | call made | right tool | schema-valid | exact match (of {call_cases}) | clarified | mean ms |\n|---|---|---|---|---|---|---|---|\n"
    ));
    for (mode, t) in &summary.modes {
        out.push_str(&format!(
            "| {mode} | {}/{} | {} | {} | {} | {} | {}/{} | {} |\n",
            t.passed,
            summary.cases,
            t.call_made,
            t.right_tool,
            t.schema_valid,
            t.exact_match,
            t.clarified,
            t.clarification_cases,
            t.mean_latency_ms
        ));
    }
    out
}

/// A grouped bar chart of the totals, direct against plaincall, as SVG.
pub(crate) fn chart(summary: &Summary) -> String {
    type Metric = (&'static str, fn(&Totals) -> usize);
    let metrics: [Metric; 5] = [
        ("passed", |t| t.passed),
        ("call made", |t| t.call_made),
        ("right tool", |t| t.right_tool),
        ("schema-valid", |t| t.schema_valid),
        ("exact match", |t| t.exact_match),
    ];
    let colours = [("direct", "#9aa5b1"), ("plaincall", "#2f7ed8")];
    let (width, height, top, bottom, left) = (640.0, 300.0, 30.0, 50.0, 40.0);
    let plot = height - top - bottom;
    let group = (width - left - 20.0) / metrics.len() as f64;
    let bar = group / 3.0;
    let max = summary.cases.max(1) as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"18\">Cases out of {} (direct vs plaincall)</text>\n",
        summary.cases
    );
    svg.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n",
        top + plot,
        width - 10.0,
        top + plot
    ));
    for (i, (label, value)) in metrics.iter().enumerate() {
        let x0 = left + i as f64 * group + bar / 2.0;
        for (j, (mode, colour)) in colours.iter().enumerate() {
            let v = summary.modes.get(*mode).map_or(0, value) as f64;
            let h = plot * v / max;
            let x = x0 + j as f64 * bar;
            svg.push_str(&format!(
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{colour}\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{v}</text>\n",
                top + plot - h,
                bar - 2.0,
                x + bar / 2.0 - 1.0,
                top + plot - h - 4.0
            ));
        }
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>\n",
            x0 + bar,
            top + plot + 18.0
        ));
    }
    for (j, (mode, colour)) in colours.iter().enumerate() {
        let x = left + j as f64 * 110.0;
        svg.push_str(&format!(
            "<rect x=\"{x}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\">{mode}</text>\n",
            height - 20.0,
            x + 16.0,
            height - 10.0
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

/// The Markdown report, which embeds the chart written beside it.
pub(crate) fn markdown(summary: &Summary, cases: &[Case], chart_file: &str, model: &str) -> String {
    format!(
        "# plaincall eval\n\nModel: `{model}`. {} cases, each run directly against the upstream with the full schemas and through plaincall's translation pipe.\n\n![direct vs plaincall]({chart_file})\n\n{}",
        summary.cases,
        table(summary, cases)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(loose: &[&str], partial: bool) -> Case {
        Case {
            tool: "t".into(),
            description: String::new(),
            user: None,
            expect: None,
            expect_array: None,
            expect_clarification: false,
            loose: loose.iter().map(|s| (*s).to_owned()).collect(),
            partial,
        }
    }

    #[test]
    fn loose_fields_and_partial_cases() {
        let expected =
            json!({"message": "Check email", "at": "09:00", "data": {"query": "news", "limit": 3}});
        let exact = case(&[], false);
        assert!(matches(&expected, &expected.clone(), &exact, ""));
        let reworded = json!({"message": "Email check", "at": "09:00", "data": {"query": "top news", "limit": 3}});
        assert!(!matches(&expected, &reworded, &exact, ""));
        assert!(matches(
            &expected,
            &reworded,
            &case(&["message", "data.query"], false),
            ""
        ));
        let extra = json!({"message": "Check email", "at": "09:00", "data": {"query": "news", "limit": 3}, "x": 1});
        assert!(!matches(&expected, &extra, &exact, ""));
        assert!(matches(&expected, &extra, &case(&[], true), ""));
        let empty = json!({"message": " ", "at": "09:00", "data": {"query": "news", "limit": 3}});
        assert!(!matches(&expected, &empty, &case(&["message"], false), ""));
    }
}
