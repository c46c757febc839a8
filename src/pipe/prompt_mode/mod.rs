//! Prompt-based tool calling, for upstreams without usable native tools: the tool catalog
//! goes into the system message, the history is rewritten into text the model can read, and
//! calls are parsed out of the reply. The client still speaks native OpenAI tools.

pub(crate) mod holdback;
pub(crate) mod parse;

use std::collections::HashSet;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::config::{CallingMode, ToolCallingConfig};
use crate::error::ProxyError;
use crate::openai::{self, content_text, FunctionTool, Message, RawObject, ToolCall};
use crate::pipe::grammar;
use crate::prompts::Prompts;
use crate::shared::{hashed, Shared, Space};

/// Which way a request's model is asked for tool calls, remembering the models whose
/// upstream rejected native tools.
pub struct ModeSelector {
    config: ToolCallingConfig,
    /// Models whose upstream rejected native tools, each for `native_retry`. Bounded: model
    /// names are the client's to choose.
    learned: moka::sync::Cache<String, ()>,
    /// With Redis, what other replicas learned; `looked_up` keeps a model from being looked
    /// up there on every request (once per [`LOOKUP_EVERY`]).
    shared: Shared,
    looked_up: moka::sync::Cache<String, ()>,
}

/// How often a replica asks Redis whether another learned that a model needs prompt mode.
const LOOKUP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The most models remembered as needing prompt mode.
const LEARNED_MODELS: u64 = 256;

impl ModeSelector {
    pub fn new(config: ToolCallingConfig) -> ModeSelector {
        ModeSelector {
            learned: moka::sync::Cache::builder()
                .max_capacity(LEARNED_MODELS)
                .time_to_live(config.native_retry)
                .build(),
            shared: Shared::none(),
            looked_up: moka::sync::Cache::builder()
                .max_capacity(LEARNED_MODELS)
                .time_to_live(LOOKUP_EVERY)
                .build(),
            config,
        }
    }

    /// The same selector, sharing what it learns through Redis.
    pub fn shared_by(mut self, shared: Shared) -> ModeSelector {
        self.shared = shared;
        self
    }

    /// [`Self::mode_for`], and in `auto`, what another replica learned about the model.
    pub async fn mode_for_shared(&self, model: &str) -> CallingMode {
        let mode = self.mode_for(model);
        if mode != CallingMode::Auto
            || !self.shared.is_enabled()
            || self.looked_up.contains_key(model)
        {
            return mode;
        }
        self.looked_up.insert(model.to_owned(), ());
        match self.shared.get(Space::Mode, &hashed(&[model])).await {
            Ok(Some(_)) => {
                self.learned.insert(model.to_owned(), ());
                CallingMode::Prompt
            }
            _ => mode,
        }
    }

    /// `Auto` means: native, and watch for a rejection.
    pub fn mode_for(&self, model: &str) -> CallingMode {
        match self.config.mode_for(model) {
            CallingMode::Auto if self.learned.contains_key(model) => CallingMode::Prompt,
            mode => mode,
        }
    }

    /// Records that the upstream rejected `tools` for `model`. True the first time (until the
    /// entry expires).
    pub fn learn(&self, model: &str) -> bool {
        let fresh = self
            .learned
            .entry(model.to_owned())
            .or_insert(())
            .is_fresh();
        if fresh {
            self.shared.put_later(
                Space::Mode,
                hashed(&[model]),
                bytes::Bytes::from_static(b"1"),
                self.config.native_retry,
            );
        }
        fresh
    }
}

/// The tools a prompt-mode request offered: only calls to these are taken from the text.
#[derive(Debug, Default)]
pub struct PromptTools {
    names: HashSet<String>,
}

impl PromptTools {
    /// Calls to these tools, and no others, are taken from the text.
    pub fn of_names<'a>(names: impl IntoIterator<Item = &'a str>) -> PromptTools {
        PromptTools {
            names: names.into_iter().map(str::to_owned).collect(),
        }
    }

    pub fn knows(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Parses the reply text into calls (with fresh ids) and the remaining text.
    pub fn parse(&self, text: &str) -> (String, Vec<ToolCall>) {
        let parsed = parse::parse_calls(text, &|name| self.knows(name));
        let calls = parsed
            .calls
            .into_iter()
            .map(|c| ToolCall::new(generated_id(), c.name, c.arguments.to_string()))
            .collect();
        (parsed.content, calls)
    }
}

fn generated_id() -> String {
    format!("call_{}", uuid::Uuid::new_v4().simple())
}

#[derive(Serialize)]
struct CatalogTool {
    name: String,
    description: String,
    parameters: String,
    example: String,
}

#[derive(Serialize)]
struct Catalog {
    tools: Vec<CatalogTool>,
    instruction: Option<String>,
}

fn serde_error(error: serde_json::Error) -> ProxyError {
    ProxyError::Internal(format!("JSON: {error}"))
}

/// Rewrites `body` for prompt mode; `tools` are the definitions the model should see (the
/// plain-English form of rewritten tools).
pub(crate) fn render_request(
    body: &mut RawObject,
    tools: &[RawObject],
    tool_choice: Option<&Value>,
    prompts: &Prompts,
    grammar_enabled: bool,
) -> Result<PromptTools, ProxyError> {
    let (catalog, schemas) = catalog_of(tools);
    let forced = forced_tools(tool_choice, &schemas);
    let silenced = matches!(tool_choice, Some(Value::String(s)) if s == "none");
    let instruction = match &forced {
        Some(names) if names.len() == 1 => Some(format!(
            "In this reply you must call the tool `{}`.",
            names[0]
        )),
        Some(_) => Some("In this reply you must call one of the tools.".to_owned()),
        None => None,
    };
    let names: HashSet<String> = if silenced {
        HashSet::new()
    } else {
        schemas.iter().map(|(n, _)| n.clone()).collect()
    };
    if !silenced && !catalog.is_empty() {
        let text = prompts
            .render(
                "prompt_tools.j2",
                &Catalog {
                    tools: catalog,
                    instruction,
                },
            )
            .map_err(|e| ProxyError::Internal(e.to_string()))?;
        add_to_system(body, &text)?;
    }
    if let (true, Some(forced)) = (grammar_enabled, &forced) {
        force_by_grammar(body, &schemas, forced)?;
    }
    for key in [
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "functions",
        "function_call",
    ] {
        body.shift_remove(key);
    }
    if let Ok(Some(messages)) = openai::get::<Vec<Box<RawValue>>>(body, "messages") {
        // The client's messages: one that does not read is its error, named.
        let messages = convert_history(messages).map_err(|e| ProxyError::InvalidRequest {
            message: format!("`messages` is malformed: {e}"),
            param: Some("messages".to_owned()),
        })?;
        openai::set(body, "messages", &messages).map_err(serde_error)?;
    }
    Ok(PromptTools { names })
}

/// The catalog the prompt lists (name, description, schema, an example call), and each
/// tool's name with its schema.
fn catalog_of(tools: &[RawObject]) -> (Vec<CatalogTool>, Vec<(String, Value)>) {
    let mut catalog = Vec::new();
    let mut schemas = Vec::new();
    // A tool that does not read was refused with the request (`Pipe::plan`).
    for tool in tools
        .iter()
        .filter_map(|t| FunctionTool::read(t).ok().flatten())
    {
        let FunctionTool {
            name,
            description,
            parameters,
            ..
        } = tool;
        catalog.push(CatalogTool {
            example: json!({"name": name, "arguments": example_of(&parameters)}).to_string(),
            parameters: parameters.to_string(),
            description,
            name: name.clone(),
        });
        schemas.push((name, parameters));
    }
    (catalog, schemas)
}

/// The tools `tool_choice` makes the reply call: all of them (`required`) or the one named.
fn forced_tools(tool_choice: Option<&Value>, schemas: &[(String, Value)]) -> Option<Vec<String>> {
    match tool_choice {
        Some(Value::String(s)) if s == "required" => {
            Some(schemas.iter().map(|(n, _)| n.clone()).collect())
        }
        Some(Value::Object(o)) => o
            .get("function")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .map(|n| vec![n.to_owned()]),
        _ => None,
    }
}

/// A forced call, also as a grammar (`response_format`) the upstream can enforce, unless the
/// client set a format of its own.
fn force_by_grammar(
    body: &mut RawObject,
    schemas: &[(String, Value)],
    forced: &[String],
) -> Result<(), ProxyError> {
    if body.contains_key("response_format") {
        return Ok(());
    }
    let branches: Vec<Value> = schemas
        .iter()
        .filter(|(n, _)| forced.contains(n))
        .map(|(name, parameters)| {
            json!({
                "type": "object",
                "properties": {"name": {"const": name}, "arguments": grammar::simplified(parameters)},
                "required": ["name", "arguments"]
            })
        })
        .collect();
    if !branches.is_empty() {
        let format = json!({"type": "json_schema", "json_schema": {"name": "tool_call", "schema": {"anyOf": branches}, "strict": false}});
        openai::set(body, "response_format", &format).map_err(serde_error)?;
    }
    Ok(())
}

/// Appends `text` to the first system message, or puts a system message first.
fn add_to_system(body: &mut RawObject, text: &str) -> Result<(), ProxyError> {
    let mut messages: Vec<Box<RawValue>> = openai::get(body, "messages")
        .ok()
        .flatten()
        .unwrap_or_default();
    let first: Option<RawObject> = messages
        .first()
        .and_then(|m| serde_json::from_str(m.get()).ok());
    match first {
        Some(mut system)
            if matches!(
                openai::get::<String>(&system, "role")
                    .ok()
                    .flatten()
                    .as_deref(),
                Some("system" | "developer")
            ) =>
        {
            let existing = content_text(system.get("content").map(AsRef::as_ref));
            let joined = if existing.is_empty() {
                text.to_owned()
            } else {
                format!("{existing}\n\n{text}")
            };
            openai::set(&mut system, "content", &joined).map_err(serde_error)?;
            messages[0] = openai::to_raw(&system).map_err(serde_error)?;
        }
        _ => messages.insert(
            0,
            openai::to_raw(&json!({"role": "system", "content": text})).map_err(serde_error)?,
        ),
    }
    openai::set(body, "messages", &messages).map_err(serde_error)
}

/// The history as a model without tools can read it: assistant calls become the fenced JSON
/// it would have written, tool results become user messages naming the tool and call id.
/// Messages without tool parts are kept as they are.
pub(crate) fn convert_history(
    messages: Vec<Box<RawValue>>,
) -> Result<Vec<Box<RawValue>>, serde_json::Error> {
    let mut names_by_id: std::collections::HashMap<String, String> =
        std::collections::HashMap::new();
    let mut out: Vec<Box<RawValue>> = Vec::with_capacity(messages.len());
    // Consecutive tool results become one user message (templates want user/assistant turns).
    let mut pending_results: Vec<String> = Vec::new();
    let flush = |pending: &mut Vec<String>,
                 out: &mut Vec<Box<RawValue>>|
     -> Result<(), serde_json::Error> {
        if !pending.is_empty() {
            out.push(openai::to_raw(
                &json!({"role": "user", "content": pending.join("\n\n")}),
            )?);
            pending.clear();
        }
        Ok(())
    };
    // A message is read or refused, as the native history is: a malformed call is the client's
    // error, never a message passed on as if it held none.
    for raw in messages {
        let message = Message::read(&raw)?;
        match message.role.as_deref() {
            Some("assistant") => {
                flush(&mut pending_results, &mut out)?;
                let calls: &[ToolCall] = message.tool_calls.as_deref().unwrap_or_default();
                if calls.is_empty() {
                    out.push(raw);
                    continue;
                }
                let mut text = content_text(message.content());
                for call in calls {
                    names_by_id.insert(call.id.clone(), call.function.name.clone());
                    let arguments: Value = serde_json::from_str(&call.function.arguments)
                        .unwrap_or_else(|_| Value::String(call.function.arguments.clone()));
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(&format!(
                        "```json\n{}\n```",
                        json!({"name": call.function.name, "arguments": arguments})
                    ));
                }
                let mut object = message.object;
                object.shift_remove("tool_calls");
                object.shift_remove("function_call");
                openai::set(&mut object, "content", &text)?;
                out.push(openai::to_raw(&object)?);
            }
            Some("tool") | Some("function") => {
                let id = message.tool_call_id.clone().unwrap_or_default();
                let name = names_by_id
                    .get(&id)
                    .cloned()
                    .or_else(|| message.name.clone())
                    .unwrap_or_else(|| "a tool".to_owned());
                let content = content_text(message.content());
                pending_results.push(format!("[Tool result for {name}, call {id}]\n{content}"));
            }
            _ => {
                flush(&mut pending_results, &mut out)?;
                out.push(raw);
            }
        }
    }
    flush(&mut pending_results, &mut out)?;
    Ok(out)
}

/// Whether an error answer to a request with `tools` says the upstream cannot take them
/// (llama-server without `--jinja`: 500 "tools param requires --jinja flag"; vLLM without a
/// tool parser: 400 "auto tool choice requires --enable-auto-tool-choice").
///
/// `sent` is the request the error answers. Servers quote the request back in their errors
/// (vLLM names the offending input), so a phrase the request itself holds, in any of its
/// strings or as bytes, proves nothing: a client could otherwise write it to switch a model to
/// prompt mode for every other client.
pub(crate) fn rejects_tools(status: u16, body: &[u8], sent: &[u8]) -> bool {
    let text =
        String::from_utf8_lossy(&body[..body.len().min(REJECTION_SCAN)]).to_ascii_lowercase();
    let mut found = REJECTIONS
        .iter()
        .filter(|(statuses, phrase)| statuses.contains(&status) && text.contains(phrase))
        .map(|(_, phrase)| *phrase)
        .peekable();
    if found.peek().is_none() {
        return false;
    }
    let request_strings = sent_strings(sent);
    found.any(|phrase| {
        !contains_ignoring_case(sent, phrase.as_bytes())
            && !request_strings.iter().any(|s| s.contains(phrase))
    })
}

/// Every key and string of a JSON request, decoded (escapes undone) and lowercased.
fn sent_strings(sent: &[u8]) -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.to_lowercase()),
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => {
                for (key, v) in map {
                    out.push(key.to_lowercase());
                    walk(v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(value) = serde_json::from_slice::<Value>(sent) {
        walk(&value, &mut out);
    }
    out
}

fn contains_ignoring_case(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

/// How much of an error body is searched for a rejection.
const REJECTION_SCAN: usize = 16 * 1024;

/// The servers' own words for "this server or model takes no `tools`", with the statuses they
/// send them with. Nothing else counts: a client's bad `tool_choice`, a failed tool-call parse
/// or any other error must never switch a model to prompt mode for every client. llama.cpp
/// sends its refusal as a 500 (`server_error`), so that one phrase is taken from a 5xx.
const REJECTIONS: &[(&[u16], &str)] = &[
    // llama-server started without --jinja.
    (&[400, 500], "tools param requires --jinja flag"),
    // vLLM without --enable-auto-tool-choice / --tool-call-parser.
    (
        &[400],
        "tool choice requires --enable-auto-tool-choice and --tool-call-parser",
    ),
    // Ollama, for a model whose template has no tools.
    (&[400], "does not support tools"),
    // OpenRouter, when no provider of the model takes tools.
    (&[404], "no endpoints found that support tool use"),
];

/// Values the example call of one tool may hold: a wide schema whose required fields refer
/// back to it would otherwise multiply at every level.
const EXAMPLE_NODES: usize = 256;

/// A small, valid-looking value for a schema: what the example call in the prompt shows.
pub fn example_of(parameters: &Value) -> Value {
    let mut left = EXAMPLE_NODES;
    example_value(parameters, parameters, 0, &mut left)
}

fn example_value(schema: &Value, root: &Value, depth: usize, left: &mut usize) -> Value {
    if depth > 4 || *left == 0 {
        return json!({});
    }
    *left -= 1;
    let schema = crate::json::resolved(schema, root);
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if required.contains(&name.as_str()) {
                        out.insert(name.clone(), example_value(prop, root, depth + 1, left));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => json!([example_value(
            schema.get("items").unwrap_or(&json!({})),
            root,
            depth + 1,
            left
        )]),
        "integer" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "number" => schema.get("minimum").cloned().unwrap_or(json!(1.0)),
        "boolean" => json!(true),
        _ => json!("..."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(value: Value) -> Box<RawValue> {
        openai::to_raw(&value)
            .unwrap_or_else(|_| RawValue::from_string("null".into()).unwrap_or_default())
    }

    #[test]
    fn history_becomes_text() -> Result<(), serde_json::Error> {
        let messages = vec![
            raw(json!({"role": "user", "content": "weather in Paris and Rome?"})),
            raw(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}
            ]})),
            raw(json!({"role": "tool", "tool_call_id": "a", "content": "21C"})),
            raw(
                json!({"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "25C"}]}),
            ),
        ];
        let out: Vec<Value> = convert_history(messages)?
            .iter()
            .map(|m| serde_json::from_str(m.get()))
            .collect::<Result<_, _>>()?;
        assert_eq!(out.len(), 3);
        assert_eq!(
            out[1],
            json!({"role": "assistant", "content": "```json\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n```\n\n```json\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Rome\"}}\n```"})
        );
        assert_eq!(
            out[2],
            json!({"role": "user", "content": "[Tool result for get_weather, call a]\n21C\n\n[Tool result for get_weather, call b]\n25C"})
        );
        Ok(())
    }

    #[test]
    fn examples_follow_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "kind": {"enum": ["daily", "weekly"]}, "n": {"type": "integer", "minimum": 3}, "opt": {"type": "string"},
            "nested": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"]}
        }, "required": ["kind", "n", "nested"]});
        assert_eq!(
            example_of(&schema),
            json!({"kind": "daily", "n": 3, "nested": {"x": true}})
        );
    }

    #[test]
    fn learned_models_are_bounded_and_learned_once() {
        let selector = ModeSelector::new(ToolCallingConfig {
            default: CallingMode::Auto,
            grammar: true,
            native_retry: std::time::Duration::from_secs(60),
            text_calls: true,
            models: Vec::new(),
        });
        assert!(selector.learn("a"));
        assert!(!selector.learn("a"), "already known");
        assert_eq!(selector.mode_for("a"), CallingMode::Prompt);
        assert_eq!(selector.mode_for("b"), CallingMode::Auto);
        for i in 0..2000 {
            selector.learn(&format!("model-{i}"));
        }
        selector.learned.run_pending_tasks();
        assert!(selector.learned.entry_count() <= LEARNED_MODELS);
    }

    #[test]
    fn tool_rejections_are_recognised() {
        const SENT: &[u8] =
            br#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[]}"#;
        assert!(rejects_tools(
            500,
            br#"{"error":{"code":500,"message":"tools param requires --jinja flag"}}"#,
            SENT
        ));
        assert!(rejects_tools(400, br#"{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}"#, SENT));
        assert!(rejects_tools(
            400,
            br#"{"error":"registry.ollama.ai/library/gemma3:270m does not support tools"}"#,
            SENT
        ));
        assert!(rejects_tools(
            404,
            br#"{"error":{"message":"No endpoints found that support tool use."}}"#,
            SENT
        ));
        assert!(!rejects_tools(429, b"tool rate limit", SENT));
        assert!(!rejects_tools(500, b"out of memory", SENT));
        // A client's own mistakes and transient failures that mention tools.
        assert!(!rejects_tools(
            400,
            br#"{"error":{"message":"Invalid value for 'tool_choice': no function named x"}}"#,
            SENT
        ));
        assert!(!rejects_tools(500, b"Failed to parse tool call", SENT));
        assert!(!rejects_tools(
            502,
            b"tools param requires --jinja flag",
            SENT
        ));
        assert!(!rejects_tools(422, b"tools: field required", SENT));
    }

    #[test]
    fn a_rejection_phrase_the_request_holds_is_not_believed() {
        // vLLM quotes the offending input: the client wrote the phrase, escaped or not.
        let echo = br#"{"error":{"message":"messages.0.content: 'Tools param requires --jinja flag' is invalid"}}"#;
        for sent in [
            &br#"{"messages":[{"role":"user","content":"Tools param requires --jinja flag"}]}"#[..],
            &br#"{"messages":[{"role":"user","content":"\u0074ools param requires \u002d-jinja flag"}]}"#[..],
        ] {
            assert!(!rejects_tools(400, echo, sent));
            assert!(!rejects_tools(500, echo, sent));
        }
        assert!(rejects_tools(500, echo, br#"{"messages":[]}"#));
    }
}
