//! OpenAI Responses (`POST /v1/responses`) to and from Chat Completions.
//!
//! Requests: `instructions` become a system message, `input` items chat messages
//! (`function_call` and `custom_tool_call` items assistant `tool_calls` with `call_id` as the
//! call id, their outputs `tool` messages), flat function tools their nested chat shape
//! (namespaced and freeform tools reshaped by [`ClientTools`]). Replies: a `response` object
//! whose `output` holds a `message` item and one `function_call` (or `custom_tool_call`) item
//! per call.
//!
//! `previous_response_id`: a chat upstream keeps no state, so plaincall keeps the
//! conversation of each response it served with `store` on (the API's default) in a bounded
//! in-memory [`Store`] (and in Redis, where `[redis]` is set, so that any replica continues it),
//! as the client would have sent it; the next turn's history is then rewritten for the main
//! model like any other.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{json, Map, Value};

use super::invalid;
use crate::error::ProxyError;
use crate::owner::Owner;
use crate::shared::{Shared, Space};

/// Conversations remembered for `previous_response_id`, at most this many bytes held.
const STORE_BYTES: u64 = 64 * 1024 * 1024;
/// How long a stored conversation can be continued.
const STORE_TTL: Duration = Duration::from_secs(60 * 60);
/// What an entry costs beside its id and its JSON: the cache's node, the `Arc`, the owner.
const ENTRY_OVERHEAD: usize = 256;

/// One stored conversation: the chat messages as one JSON array (compact bytes, so that what
/// the store counts is what it holds), and the hash of the key that wrote it.
pub struct Stored {
    owner: Owner,
    json: Bytes,
}

/// The conversations of stored responses, by response id; bounded by the bytes held and by
/// age, the least recently used evicted first (the one a client is in the middle of is the
/// last to go). With Redis (`[redis]`), each is also written there, under its id and its
/// owner, so that any replica can continue it.
#[derive(Clone)]
pub struct Store {
    local: moka::sync::Cache<String, Arc<Stored>>,
    shared: Shared,
    ttl: Duration,
}

impl Default for Store {
    fn default() -> Self {
        Store::new(STORE_BYTES, STORE_TTL)
    }
}

/// The ids this store hands out: `resp_` and 32 hex digits. Any other id was never stored,
/// and is not looked for in Redis.
fn is_response_id(id: &str) -> bool {
    id.strip_prefix("resp_")
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl Store {
    pub fn new(max_bytes: u64, ttl: Duration) -> Store {
        Store {
            local: moka::sync::Cache::builder()
                .max_capacity(max_bytes)
                .eviction_policy(moka::policy::EvictionPolicy::lru())
                .weigher(|id: &String, stored: &Arc<Stored>| {
                    let size = id.len() + stored.json.len() + ENTRY_OVERHEAD;
                    u32::try_from(size).unwrap_or(u32::MAX)
                })
                .time_to_live(ttl)
                .build(),
            shared: Shared::none(),
            ttl,
        }
    }

    /// The same store, written through to `shared`.
    pub fn shared_by(mut self, shared: Shared) -> Store {
        self.shared = shared;
        self
    }

    /// The conversation stored under `id`, when `owner` wrote it: to any other key it does not
    /// exist.
    pub fn get(&self, id: &str, owner: &Owner) -> Option<Arc<Stored>> {
        self.local.get(id).filter(|stored| stored.owner == *owner)
    }

    /// Stores a conversation; with Redis, the returned task writes it there.
    pub fn insert(
        &self,
        id: String,
        owner: Owner,
        json: Bytes,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let written = self.shared.put_later(
            Space::Conversation,
            shared_key(&id, &owner),
            json.clone(),
            self.ttl,
        );
        self.local.insert(id, Arc::new(Stored { owner, json }));
        written
    }

    /// Brings the conversation `id` of `owner` from Redis into this process, when another
    /// replica stored it. Redis unavailable: an error, since the request cannot be served
    /// as asked.
    pub async fn fetch(&self, id: &str, owner: &Owner) -> Result<(), ProxyError> {
        if !self.shared.is_enabled() || !is_response_id(id) || self.get(id, owner).is_some() {
            return Ok(());
        }
        match self
            .shared
            .get(Space::Conversation, &shared_key(id, owner))
            .await
        {
            Ok(Some(json)) => {
                let json = Bytes::from(json);
                self.local.insert(
                    id.to_owned(),
                    Arc::new(Stored {
                        owner: *owner,
                        json,
                    }),
                );
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(error) => Err(ProxyError::SharedState(error.to_string())),
        }
    }

    /// The bytes the store counts as held.
    #[cfg(test)]
    fn weighted_size(&self) -> u64 {
        self.local.run_pending_tasks();
        self.local.weighted_size()
    }
}

/// A conversation's key in Redis: its id and its owner, so that another key never reads it.
fn shared_key(id: &str, owner: &Owner) -> String {
    format!("{id}:{}", owner.hex())
}

/// How the client's tools were reshaped for a chat upstream, to give their calls back in the
/// client's own form:
/// - namespaced function tools (`{"type": "namespace", "name": NS, "tools": [...]}`, as Codex
///   sends its multi-agent tools) are chat functions named `NS__name`, and their calls go back
///   under their own `name` and `namespace` (Codex runs a call only under both);
/// - freeform `custom` tools (Codex's `apply_patch`, a raw patch checked by a lark grammar) are
///   chat functions taking one string, `input`, and their calls go back as `custom_tool_call`
///   items carrying that string.
#[derive(Debug, Default, Clone)]
pub(crate) struct ClientTools {
    namespaced: std::collections::HashMap<String, (String, String)>,
    freeform: std::collections::HashSet<String>,
}

const NAMESPACE_SEPARATOR: &str = "__";
/// The one field of a freeform tool's chat form.
const FREEFORM_FIELD: &str = "input";
/// A freeform tool's grammar longer than this is left out of its chat description: a small
/// model gains nothing from pages of grammar, and every request would carry them.
const GRAMMAR_IN_DESCRIPTION: usize = 4096;

impl ClientTools {
    fn flat(namespace: &str, name: &str) -> String {
        format!("{namespace}{NAMESPACE_SEPARATOR}{name}")
    }

    /// Whether the call named `flat` is to a freeform tool.
    pub(crate) fn is_freeform(&self, flat: &str) -> bool {
        self.freeform.contains(flat)
    }

    /// A `function_call` item (with `call_id`, `name`, `arguments`) as the client's tools
    /// have it: a `custom_tool_call` for a freeform tool, its name and namespace restored.
    pub(crate) fn restore(&self, item: &mut Value) {
        let Some(flat) = item.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return;
        };
        if self.is_freeform(&flat) {
            let call_id = item.get("call_id").cloned().unwrap_or(Value::Null);
            let input = freeform_input(item.get("arguments").and_then(Value::as_str).unwrap_or(""));
            let status = item.get("status").cloned().unwrap_or(Value::Null);
            *item = freeform_call_item(&call_id, &flat, &input, status);
        }
        if let Some((namespace, name)) = self.namespaced.get(&flat).cloned() {
            item["name"] = Value::String(name);
            item["namespace"] = Value::String(namespace);
        }
    }

    /// The name the client knows a call by.
    pub(crate) fn name_of<'a>(&'a self, flat: &'a str) -> &'a str {
        self.namespaced
            .get(flat)
            .map_or(flat, |(_, name)| name.as_str())
    }
}

/// A `custom_tool_call` output item.
fn freeform_call_item(call_id: &Value, name: &str, input: &str, status: Value) -> Value {
    let id = format!("ctc_{}", call_id.as_str().unwrap_or_default());
    json!({"type": "custom_tool_call", "id": id, "call_id": call_id, "name": name,
           "input": input, "status": status})
}

/// The raw input of a freeform call from its chat arguments: the `input` string the chat form
/// asks for; when the model wrote something else (another key, a bare string), that, as it
/// is, so that the client's own parser says what is wrong with it.
pub(crate) fn freeform_input(arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(mut fields)) => match fields.remove(FREEFORM_FIELD) {
            Some(Value::String(input)) => input,
            _ if fields.len() == 1 => match fields.into_iter().next() {
                Some((_, Value::String(input))) => input,
                _ => arguments.to_owned(),
            },
            _ => arguments.to_owned(),
        },
        Ok(Value::String(input)) => input,
        _ => arguments.to_owned(),
    }
}

/// Freeform `custom` tools as chat functions of one string field, `input`; their names
/// remembered in `tools`, for their calls to go back as `custom_tool_call` items.
pub(crate) fn freeform_as_functions(request: &mut Map<String, Value>, tools: &mut ClientTools) {
    let Some(Value::Array(list)) = request.get_mut("tools") else {
        return;
    };
    for tool in list.iter_mut() {
        if tool.get("type").and_then(Value::as_str) != Some("custom") {
            continue;
        }
        let Some(name) = tool.get("name").and_then(Value::as_str).map(str::to_owned) else {
            continue;
        };
        let mut description = tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let format = tool.get("format");
        if let (Some(syntax), Some(definition)) = (
            format.and_then(|f| f.get("syntax")).and_then(Value::as_str),
            format
                .and_then(|f| f.get("definition"))
                .and_then(Value::as_str),
        ) {
            if definition.len() <= GRAMMAR_IN_DESCRIPTION {
                description.push_str(&format!(
                    "\n\n`{FREEFORM_FIELD}` follows this {syntax} grammar:\n{definition}"
                ));
            }
        }
        *tool = json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {FREEFORM_FIELD: {
                    "type": "string",
                    "description": "The tool's raw input, exactly as its description says: plain text, not JSON.",
                }},
                "required": [FREEFORM_FIELD],
                "additionalProperties": false,
            },
        });
        tools.freeform.insert(name);
    }
}

/// Codex with its default provider sends its tools as an `additional_tools` input item, not
/// in `tools`: they join `tools` (the item itself is no message).
pub(crate) fn lift_additional_tools(request: &mut Map<String, Value>) {
    let Some(Value::Array(items)) = request.get_mut("input") else {
        return;
    };
    let mut lifted = Vec::new();
    items.retain_mut(|item| {
        if item.get("type").and_then(Value::as_str) != Some("additional_tools") {
            return true;
        }
        if let Some(Value::Array(tools)) = item.get_mut("tools") {
            lifted.append(tools);
        }
        false
    });
    if lifted.is_empty() {
        return;
    }
    match request.get_mut("tools") {
        Some(Value::Array(tools)) => tools.extend(lifted),
        _ => {
            request.insert("tools".into(), Value::Array(lifted));
        }
    }
}

/// Flattens the request's namespace tools: each function in one becomes a function tool
/// named `NS__name`; any other member comes out as a tool of its own, under its own name (a
/// freeform `custom` one for [`freeform_as_functions`] to reshape, a hosted kind for the
/// hosted-tool policy to leave out and name).
pub(crate) fn flatten_namespaces(request: &mut Map<String, Value>) -> ClientTools {
    let mut client = ClientTools::default();
    let Some(Value::Array(tools)) = request.get_mut("tools") else {
        return client;
    };
    if !tools
        .iter()
        .any(|t| t.get("type").and_then(Value::as_str) == Some("namespace"))
    {
        return client;
    }
    let mut flat = Vec::with_capacity(tools.len());
    for tool in std::mem::take(tools) {
        if tool.get("type").and_then(Value::as_str) != Some("namespace") {
            flat.push(tool);
            continue;
        }
        let namespace = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let inner = tool.get("tools").and_then(Value::as_array).cloned();
        for mut member in inner.into_iter().flatten() {
            let name = member
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned);
            match (member.get("type").and_then(Value::as_str), name) {
                (Some("function"), Some(name)) if !namespace.is_empty() => {
                    let joined = ClientTools::flat(&namespace, &name);
                    member["name"] = Value::String(joined.clone());
                    client.namespaced.insert(joined, (namespace.clone(), name));
                    flat.push(member);
                }
                _ => flat.push(member),
            }
        }
    }
    *tools = flat;
    client
}

/// Who continues a conversation, and how large the assembled request may be.
pub(crate) struct Caller<'a> {
    pub owner: Owner,
    /// `server.max_body_bytes`.
    pub limit: u64,
    /// The length of this request's own body.
    pub body_len: u64,
    /// Charges the memory budget for the request's body and the stored conversation together.
    pub cover: &'a (dyn Fn(u64) -> Result<(), ProxyError> + Sync),
}

/// The kinds of the fields the Responses API insists on.
pub(crate) fn check(request: &Map<String, Value>) -> Result<(), ProxyError> {
    use super::Kind::{Array, Bool, Null, Number, Object, String};
    super::check_kinds(
        request,
        &[],
        &[
            ("model", &[String]),
            ("input", &[String, Array]),
            ("instructions", &[String, Array, Null]),
            ("previous_response_id", &[String, Null]),
            ("tools", &[Array, Null]),
            ("tool_choice", &[String, Object, Null]),
            ("stream", &[Bool, Null]),
            ("store", &[Bool, Null]),
            ("parallel_tool_calls", &[Bool, Null]),
            ("max_output_tokens", &[Number, Null]),
            ("temperature", &[Number, Null]),
            ("top_p", &[Number, Null]),
            ("metadata", &[Object, Null]),
            ("text", &[Object, Null]),
        ],
    )
}

/// Whether the request is converted and served by the pipe: it has function tools and no
/// other kind (web search, file search, MCP, ...), which only a Responses upstream can run.
pub(crate) fn is_translatable(request: &Map<String, Value>) -> bool {
    super::only_tools_of_kind(request, is_function)
}

fn is_function(kind: Option<&str>) -> bool {
    kind == Some("function")
}

/// Takes out the built-in tools (web search, file search, code interpreter, computer use,
/// MCP, ...), which only a Responses upstream runs, and names their kinds.
pub(crate) fn drop_hosted_tools(request: &mut Map<String, Value>) -> Vec<String> {
    super::drop_hosted_tools(request, is_function)
}

/// A converted request: the chat request, and what the reply needs from the original.
pub(crate) struct Converted {
    pub chat: Map<String, Value>,
    pub reply: Reply,
}

/// The Chat Completions request for a Responses request; `store` resolves
/// `previous_response_id` for `caller`.
pub(crate) fn to_chat(
    mut request: Map<String, Value>,
    store: &Store,
    caller: &Caller,
) -> Result<Converted, ProxyError> {
    let mut history: Vec<Value> = match request.get("previous_response_id") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(id)) => stored_history(id, store, caller)?,
        Some(_) => {
            return Err(invalid(
                "previous_response_id: a string is required",
                "previous_response_id",
            ))
        }
    };
    match request.remove("input") {
        Some(Value::String(text)) => history.push(json!({"role": "user", "content": text})),
        Some(Value::Array(items)) => input_items(items, &mut history)?,
        None | Some(Value::Null) => {}
        Some(_) => {
            return Err(invalid(
                "input: a string or an array of items is required",
                "input",
            ))
        }
    }
    let reply = Reply::new(&request, store, caller.owner);
    let mut messages = Vec::with_capacity(history.len() + 1);
    if let Some(instructions) = request.get("instructions").and_then(Value::as_str) {
        messages.push(json!({"role": "system", "content": instructions}));
    }
    messages.append(&mut history);
    let mut chat = Map::new();
    for (key, value) in request {
        convert_field(key, value, &mut chat)?;
    }
    chat.insert("messages".into(), Value::Array(messages));
    Ok(Converted { chat, reply })
}

/// The stored conversation `id`, read only when the request it makes stays within the body
/// limit: a conversation built turn by turn must not become a body no client could send.
fn stored_history(id: &str, store: &Store, caller: &Caller) -> Result<Vec<Value>, ProxyError> {
    let stored = store.get(id, &caller.owner).ok_or_else(|| {
        invalid(
            format!("Previous response with id '{id}' not found."),
            "previous_response_id",
        )
    })?;
    let total = stored.json.len() as u64 + caller.body_len;
    if total > caller.limit {
        return Err(invalid(
            format!(
                "the conversation of previous_response_id '{id}' and this request come to {total} bytes, above the request body limit of {} bytes (server.max_body_bytes); start a new conversation, or send the turns to keep as input",
                caller.limit
            ),
            "previous_response_id",
        ));
    }
    (caller.cover)(total)?;
    serde_json::from_slice(&stored.json)
        .map_err(|e| ProxyError::Internal(format!("a stored conversation: {e}")))
}

fn convert_field(
    key: String,
    value: Value,
    chat: &mut Map<String, Value>,
) -> Result<(), ProxyError> {
    match key.as_str() {
        "tools" => {
            let tools = value
                .as_array()
                .map(|t| t.iter().map(tool_to_chat).collect::<Vec<_>>());
            chat.insert(key, Value::Array(tools.unwrap_or_default()));
        }
        "tool_choice" => {
            let choice = match value.get("name") {
                Some(name) => json!({"type": "function", "function": {"name": name}}),
                None => value,
            };
            chat.insert(key, choice);
        }
        "max_output_tokens" => {
            chat.insert("max_tokens".into(), value);
        }
        "text" => {
            if let Some(format) = value.get("format").and_then(response_format) {
                chat.insert("response_format".into(), format);
            }
        }
        "stream" => super::stream_to_chat(value, chat),
        "instructions" | "metadata" => {}
        _ => super::keep_if_chat(key, value, chat, "Responses"),
    }
    Ok(())
}

fn tool_to_chat(tool: &Value) -> Value {
    let mut function = Map::new();
    for key in ["name", "description", "parameters", "strict"] {
        if let Some(value) = tool.get(key).filter(|v| !v.is_null()) {
            function.insert(key.into(), value.clone());
        }
    }
    json!({"type": "function", "function": function})
}

fn response_format(format: &Value) -> Option<Value> {
    match format.get("type").and_then(Value::as_str)? {
        "json_schema" => {
            let mut schema = format.clone();
            schema.as_object_mut()?.remove("type");
            Some(json!({"type": "json_schema", "json_schema": schema}))
        }
        "json_object" => Some(json!({"type": "json_object"})),
        _ => None,
    }
}

/// Input items as chat messages; consecutive `function_call` items join one assistant turn.
fn input_items(items: Vec<Value>, out: &mut Vec<Value>) -> Result<(), ProxyError> {
    for (i, item) in items.into_iter().enumerate() {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        match kind {
            "message" => out.push(message_item(item, i)?),
            "function_call" => {
                let arguments = item.get("arguments").cloned();
                push_call(&item, arguments.unwrap_or_else(|| json!("{}")), out);
            }
            // A freeform call in its chat form: the one `input` field it was asked for with.
            "custom_tool_call" => {
                let input = item.get("input").cloned().unwrap_or_else(|| json!(""));
                let arguments = json!({FREEFORM_FIELD: input}).to_string();
                push_call(&item, Value::String(arguments), out);
            }
            "function_call_output" | "custom_tool_call_output" => out.push(json!({
                "role": "tool",
                "tool_call_id": item.get("call_id").cloned().unwrap_or(Value::Null),
                "content": output_text(item.get("output").unwrap_or(&Value::Null)),
            })),
            // Reasoning is the model's own and item references point at state this proxy
            // does not have: neither can be shown to a chat model.
            other => tracing::debug!(
                item = other,
                "a Responses input item with no chat form is dropped"
            ),
        }
    }
    Ok(())
}

/// A message item as a chat message; its text is moved, not copied (a conversation's bulk).
fn message_item(mut item: Value, index: usize) -> Result<Value, ProxyError> {
    let role = match item.get("role").and_then(Value::as_str) {
        Some("developer") | Some("system") => "system",
        Some("assistant") => "assistant",
        Some("user") => "user",
        _ => {
            return Err(invalid(
                format!("input[{index}].role: user, assistant, system or developer is required"),
                "input",
            ))
        }
    };
    let content = match item.get_mut("content").map(Value::take) {
        Some(text @ Value::String(_)) => text,
        Some(Value::Array(parts)) if role == "user" => {
            Value::Array(parts.iter().filter_map(user_part).collect())
        }
        Some(Value::Array(parts)) => Value::String(parts_text(&parts)),
        _ => Value::String(String::new()),
    };
    Ok(json!({"role": role, "content": content}))
}

fn user_part(part: &Value) -> Option<Value> {
    match part.get("type").and_then(Value::as_str)? {
        "input_text" | "output_text" | "text" => {
            Some(json!({"type": "text", "text": part.get("text")?}))
        }
        "input_image" => {
            let url = part.get("image_url")?.as_str()?;
            Some(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        _ => None,
    }
}

fn parts_text(parts: &[Value]) -> String {
    parts
        .iter()
        .filter_map(|p| {
            p.get("text")
                .or_else(|| p.get("refusal"))
                .and_then(Value::as_str)
        })
        .collect::<Vec<_>>()
        .join("")
}

fn output_text(output: &Value) -> String {
    match output {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts_text(parts),
        other => other.to_string(),
    }
}

fn push_call(item: &Value, arguments: Value, out: &mut Vec<Value>) {
    // A call the client made under a namespace carries its flattened name, as its tool does.
    let name = match (
        item.get("namespace").and_then(Value::as_str),
        item.get("name").and_then(Value::as_str),
    ) {
        (Some(namespace), Some(name)) => Value::String(ClientTools::flat(namespace, name)),
        _ => item.get("name").cloned().unwrap_or(Value::Null),
    };
    let call = json!({
        "id": item.get("call_id").cloned().unwrap_or(Value::Null),
        "type": "function",
        "function": {
            "name": name,
            "arguments": arguments,
        },
    });
    if let Some(last) = out.last_mut().filter(|m| m["role"] == "assistant") {
        if let Some(calls) = last.get_mut("tool_calls").and_then(Value::as_array_mut) {
            calls.push(call);
            return;
        }
        if last.get("tool_calls").is_none() {
            last["tool_calls"] = json!([call]);
            return;
        }
    }
    out.push(json!({"role": "assistant", "content": null, "tool_calls": [call]}));
}

/// What a reply needs of the request: the fields a `response` object echoes, the
/// conversation to remember, and where.
pub(crate) struct Reply {
    pub id: String,
    created_at: u64,
    echo: Map<String, Value>,
    /// Where the conversation goes with the assistant's turn; `None` when it is not stored.
    keep: Option<(Store, Owner)>,
    /// The chat request sent (shared with the pipe): its messages, less the instructions'
    /// system message, are the conversation so far.
    sent: Option<Bytes>,
    /// The first chat message is the instructions, not part of the conversation.
    instructions: bool,
    written: super::Written,
    /// How the request's tools were reshaped, to give their calls back in its own form.
    pub(crate) tools: ClientTools,
}

impl Reply {
    fn new(request: &Map<String, Value>, store: &Store, owner: Owner) -> Reply {
        let mut echo = Map::new();
        for (key, default) in [
            ("model", Value::Null),
            ("instructions", Value::Null),
            ("tools", json!([])),
            ("tool_choice", json!("auto")),
            ("parallel_tool_calls", json!(true)),
            ("temperature", json!(1.0)),
            ("top_p", json!(1.0)),
            ("max_output_tokens", Value::Null),
            ("previous_response_id", Value::Null),
            ("metadata", json!({})),
            ("text", json!({"format": {"type": "text"}})),
        ] {
            echo.insert(key.into(), request.get(key).cloned().unwrap_or(default));
        }
        let stored = request.get("store") != Some(&Value::Bool(false));
        echo.insert("store".into(), Value::Bool(stored));
        Reply {
            id: format!("resp_{}", uuid::Uuid::new_v4().simple()),
            created_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            instructions: request.get("instructions").is_some_and(Value::is_string),
            echo,
            keep: stored.then(|| (store.clone(), owner)),
            sent: None,
            written: super::Written::default(),
            tools: ClientTools::default(),
        }
    }

    /// The `response` object with `output`, `status` and `usage`.
    pub(crate) fn response(
        &self,
        status: &str,
        output: Vec<Value>,
        usage: Option<&Value>,
    ) -> Value {
        let mut response = json!({
            "id": self.id, "object": "response", "created_at": self.created_at, "status": status,
            "error": null, "incomplete_details": null, "output": output, "truncation": "disabled",
        });
        if status == "incomplete" {
            response["incomplete_details"] = json!({"reason": "max_output_tokens"});
        }
        if let Some(object) = response.as_object_mut() {
            object.extend(self.echo.clone());
        }
        if let Some(usage) = usage {
            response["usage"] = usage_of(usage);
        }
        response
    }

    /// Remembers the conversation with the assistant's turn, when the response is stored.
    pub(crate) fn remember(&self, assistant: Value) {
        #[derive(serde::Deserialize)]
        struct Sent<'a> {
            #[serde(borrow)]
            messages: Vec<&'a serde_json::value::RawValue>,
        }
        let (Some((store, owner)), Some(sent)) = (&self.keep, &self.sent) else {
            return;
        };
        let (Ok(sent), Ok(assistant)) = (
            serde_json::from_slice::<Sent>(sent),
            serde_json::to_vec(&assistant),
        ) else {
            return;
        };
        // The messages as sent, borrowed, then the turn: one copy, the one stored.
        let history = &sent.messages[usize::from(self.instructions).min(sent.messages.len())..];
        let size: usize = history.iter().map(|m| m.get().len() + 1).sum();
        let mut json = Vec::with_capacity(size + assistant.len() + 2);
        json.push(b'[');
        for message in history {
            json.extend_from_slice(message.get().as_bytes());
            json.push(b',');
        }
        json.extend_from_slice(&assistant);
        json.push(b']');
        self.written
            .set(store.insert(self.id.clone(), *owner, Bytes::from(json)));
    }
}

impl super::Adapter for Reply {
    const WIRE: super::Wire = super::Wire::Responses;

    fn reply(self, completion: &Value) -> Value {
        let choice = completion.pointer("/choices/0").unwrap_or(&Value::Null);
        let message = choice.get("message").cloned().unwrap_or(Value::Null);
        let mut output = output_items(&message);
        for item in &mut output {
            self.tools.restore(item);
        }
        let status = match choice.get("finish_reason").and_then(Value::as_str) {
            Some("length") => "incomplete",
            _ => "completed",
        };
        self.remember(assistant_message(&message));
        let mut response = self.response(status, output, completion.get("usage"));
        if response["model"].is_null() {
            response["model"] = completion.get("model").cloned().unwrap_or(Value::Null);
        }
        response
    }

    fn stream(
        self,
        events: futures_util::stream::BoxStream<'static, crate::pipe::event::Event>,
    ) -> futures_util::stream::BoxStream<'static, Result<bytes::Bytes, std::convert::Infallible>>
    {
        Box::pin(super::responses_stream::convert(events, self))
    }

    fn sent(&mut self, chat: &Bytes) {
        if self.keep.is_some() {
            self.sent = Some(chat.clone());
        }
    }

    fn written(&self) -> super::Written {
        self.written.clone()
    }
}

/// A chat message as it is kept for the next turn: content and calls, nothing else.
pub(crate) fn assistant_message(message: &Value) -> Value {
    let mut kept = json!({"role": "assistant", "content": message.get("content").cloned().unwrap_or(Value::Null)});
    if let Some(calls) = message
        .get("tool_calls")
        .filter(|c| c.as_array().is_some_and(|c| !c.is_empty()))
    {
        kept["tool_calls"] = calls.clone();
    }
    kept
}

/// The output items of a chat message: its text as a `message` item, then each call.
fn output_items(message: &Value) -> Vec<Value> {
    let mut items = Vec::new();
    if let Some(text) = message
        .get("content")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    {
        items.push(message_output(
            &format!("msg_{}", uuid::Uuid::new_v4().simple()),
            text,
            "completed",
        ));
    }
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let call_id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        let name = call
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let arguments = call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .unwrap_or("{}");
        items.push(function_call_item(call_id, name, arguments, "completed"));
    }
    items
}

pub(crate) fn message_output(id: &str, text: &str, status: &str) -> Value {
    let content = if text.is_empty() && status == "in_progress" {
        json!([])
    } else {
        json!([{"type": "output_text", "text": text, "annotations": [], "logprobs": []}])
    };
    json!({"type": "message", "id": id, "status": status, "role": "assistant", "content": content})
}

pub(crate) fn function_call_item(
    call_id: &str,
    name: &str,
    arguments: &str,
    status: &str,
) -> Value {
    json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
           "name": name, "arguments": arguments, "status": status})
}

pub(crate) fn usage_of(usage: &Value) -> Value {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = usage
        .pointer("/prompt_tokens_details/cached_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    json!({
        "input_tokens": count("prompt_tokens"),
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": count("completion_tokens"),
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": count("prompt_tokens").saturating_add(count("completion_tokens")),
    })
}

/// A caller presenting `key`, with a 1 MiB body limit and no budget, for unit tests.
#[cfg(test)]
pub(crate) fn caller(key: &str) -> Caller<'static> {
    let mut headers = http::HeaderMap::new();
    if let Ok(value) = http::HeaderValue::from_str(key) {
        headers.insert("x-api-key", value);
    }
    Caller {
        owner: Owner::of(&headers),
        limit: 1024 * 1024,
        body_len: 100,
        cover: &|_| Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::wire::object;
    use crate::wire::Adapter;

    #[test]
    fn a_freeform_input_is_the_string_the_model_wrote() {
        let patch = "*** Begin Patch\n*** End Patch\n";
        assert_eq!(freeform_input(&json!({"input": patch}).to_string()), patch);
        // Another key, or a bare JSON string: the one string there is.
        assert_eq!(freeform_input(&json!({"patch": patch}).to_string()), patch);
        assert_eq!(freeform_input(&json!(patch).to_string()), patch);
        // Not what was asked for: as written, for the client's parser to refuse.
        assert_eq!(freeform_input(patch), patch);
        let two = json!({"a": "x", "b": "y"}).to_string();
        assert_eq!(freeform_input(&two), two);
    }

    #[test]
    fn input_items_become_chat_messages() {
        let request = object(json!({
            "model": "m", "instructions": "Be brief.", "max_output_tokens": 50, "x_unknown": 1,
            "tools": [{"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}, "strict": null}],
            "tool_choice": {"type": "function", "name": "f"},
            "input": [
                {"role": "user", "content": "hi"},
                {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{\"a\":1}"},
                {"type": "function_call", "call_id": "call_2", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
                {"type": "reasoning", "summary": []}
            ]
        }));
        let converted = to_chat(request, &Store::default(), &caller("k")).unwrap();
        let chat = Value::Object(converted.chat);
        assert_eq!(
            chat["messages"][0],
            json!({"role": "system", "content": "Be brief."})
        );
        assert_eq!(
            chat["messages"][2]["tool_calls"].as_array().unwrap().len(),
            2
        );
        assert_eq!(chat["messages"][2]["tool_calls"][1]["id"], "call_2");
        assert_eq!(
            chat["messages"][3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "ok"})
        );
        assert_eq!(chat["messages"].as_array().unwrap().len(), 4);
        assert_eq!(
            chat["tools"][0],
            json!({"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}})
        );
        assert_eq!(
            chat["tool_choice"],
            json!({"type": "function", "function": {"name": "f"}})
        );
        assert_eq!(chat["max_tokens"], 50);
        assert_eq!(
            chat.get("x_unknown"),
            None,
            "a field chat does not take is dropped"
        );
    }

    #[test]
    fn a_stored_response_continues_and_an_unknown_one_is_refused() {
        let store = Store::default();
        let first = to_chat(
            object(json!({"model": "m", "input": "hi", "tools": [], "instructions": "Be brief."})),
            &store,
            &caller("k"),
        )
        .unwrap();
        let id = first.reply.id.clone();
        let mut first_reply = first.reply;
        first_reply.sent(&Bytes::from(serde_json::to_vec(&first.chat).unwrap()));
        let reply = first_reply.reply(&json!({"choices": [{"message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]}));
        assert_eq!(reply["output"][0]["content"][0]["text"], "hello");
        let next = to_chat(
            object(json!({"model": "m", "previous_response_id": id, "input": "again", "instructions": "Be kind."})),
            &store,
            &caller("k"),
        )
        .unwrap();
        // The instructions are the request's own, never the stored conversation's.
        let messages = Value::Object(next.chat)["messages"].clone();
        assert_eq!(
            messages,
            json!([{"role": "system", "content": "Be kind."}, {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}, {"role": "user", "content": "again"}])
        );

        let error = to_chat(
            object(json!({"model": "m", "previous_response_id": "resp_nope", "input": "x"})),
            &store,
            &caller("k"),
        )
        .err()
        .unwrap();
        assert_eq!(error.status(), http::StatusCode::BAD_REQUEST);
        assert!(error.to_string().contains("resp_nope"));

        // Another key does not see it, and is told just what an unknown id gets.
        let other = to_chat(
            object(json!({"model": "m", "previous_response_id": id, "input": "x"})),
            &store,
            &caller("another"),
        )
        .err()
        .unwrap();
        assert_eq!(
            other.to_string(),
            format!("Previous response with id '{id}' not found.")
        );

        // A stored conversation that would make the request larger than the body limit.
        let tight = Caller {
            limit: 150,
            ..caller("k")
        };
        let error = to_chat(
            object(json!({"model": "m", "previous_response_id": id, "input": "x"})),
            &store,
            &tight,
        )
        .err()
        .unwrap();
        assert!(
            error.to_string().contains("server.max_body_bytes"),
            "{error}"
        );

        let error = to_chat(
            object(json!({"model": "m", "previous_response_id": 123, "input": "x"})),
            &store,
            &caller("k"),
        )
        .err()
        .unwrap();
        assert!(
            error.to_string().contains("a string is required"),
            "{error}"
        );
    }

    #[test]
    fn store_false_is_not_remembered_and_the_store_is_bounded() {
        let store = Store::default();
        let mut first = to_chat(
            object(json!({"model": "m", "input": "hi", "store": false})),
            &store,
            &caller("k"),
        )
        .unwrap();
        let id = first.reply.id.clone();
        first
            .reply
            .sent(&Bytes::from(serde_json::to_vec(&first.chat).unwrap()));
        first
            .reply
            .reply(&json!({"choices": [{"message": {"content": "x"}}]}));
        assert!(store.get(&id, &caller("k").owner).is_none());

        // The bound counts bytes held, and the least recently used goes first.
        let small = Store::new(20 * 1024, STORE_TTL);
        let owner = caller("k").owner;
        let entry = || {
            Bytes::from(format!(
                "[{}]",
                json!({"role": "user", "content": "x".repeat(900)})
            ))
        };
        small.insert("resp_first".into(), owner, entry());
        for i in 0..100 {
            small.insert(format!("resp_{i}"), owner, entry());
            small.local.run_pending_tasks();
            // The newest is never the one dropped, and one that keeps being read stays.
            assert!(
                small.get(&format!("resp_{i}"), &owner).is_some(),
                "dropped {i}"
            );
            assert!(small.get("resp_first", &owner).is_some(), "evicted at {i}");
            small.local.run_pending_tasks();
        }
        assert!(small.weighted_size() <= 20 * 1024);
        let kept = (0..100)
            .filter(|i| small.get(&format!("resp_{i}"), &owner).is_some())
            .count();
        assert!((1..20).contains(&kept), "{kept} kept");
        assert!(
            small.get("resp_99", &owner).is_some(),
            "the newest was dropped"
        );
    }

    #[test]
    fn a_completion_becomes_output_items() {
        let items = output_items(&json!({"content": "On it.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}}]}));
        assert_eq!(items[0]["type"], "message");
        assert_eq!(items[0]["content"][0]["text"], "On it.");
        assert_eq!(
            items[1],
            json!({"type": "function_call", "id": "fc_call_1", "call_id": "call_1", "name": "f", "arguments": "{\"a\":1}", "status": "completed"})
        );
    }
}
