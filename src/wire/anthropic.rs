//! Anthropic Messages (`POST /v1/messages`) to and from Chat Completions.
//!
//! Requests: `system` becomes a system message, `tool_use` blocks assistant `tool_calls`,
//! `tool_result` blocks `tool` messages (ids kept as they are, so the pipe's next-turn rewrite
//! finds its calls), tools and `tool_choice` their chat shapes. Replies: the first choice
//! becomes a message with `text` and `tool_use` blocks and a `stop_reason`.

use http::StatusCode;
use serde_json::{json, Map, Value};

use super::invalid;
use crate::error::ProxyError;

/// The kinds of the fields the Messages API insists on.
pub(crate) fn check(request: &Map<String, Value>) -> Result<(), ProxyError> {
    use super::Kind::{Array, Bool, Null, Number, Object, String};
    super::check_kinds(
        request,
        &["messages"],
        &[
            ("model", &[String]),
            ("messages", &[Array]),
            ("max_tokens", &[Number]),
            ("system", &[String, Array]),
            ("tools", &[Array, Null]),
            ("tool_choice", &[Object, Null]),
            ("stream", &[Bool, Null]),
            ("temperature", &[Number, Null]),
            ("top_p", &[Number, Null]),
            ("top_k", &[Number, Null]),
            ("stop_sequences", &[Array, Null]),
            ("metadata", &[Object, Null]),
        ],
    )
}

/// Whether the request is converted and served by the pipe: it has client tools (`custom`
/// ones, the only kind a Chat Completions upstream can run) and no server tool (web search,
/// code execution, ...), which only an Anthropic-speaking upstream can run.
pub(crate) fn is_translatable(request: &Map<String, Value>) -> bool {
    super::only_tools_of_kind(request, is_client_tool)
}

fn is_client_tool(kind: Option<&str>) -> bool {
    kind.is_none_or(|kind| kind == "custom")
}

/// Takes out the server tools (web search, code execution, ...), which only an
/// Anthropic-speaking upstream runs, and names their kinds.
pub(crate) fn drop_hosted_tools(request: &mut Map<String, Value>) -> Vec<String> {
    super::drop_hosted_tools(request, is_client_tool)
}

/// The Chat Completions request for a Messages request.
pub(crate) fn to_chat(mut request: Map<String, Value>) -> Result<Map<String, Value>, ProxyError> {
    if !request.get("max_tokens").is_some_and(Value::is_u64) {
        return Err(invalid(
            "max_tokens: a positive integer is required",
            "max_tokens",
        ));
    }
    let Some(Value::Array(turns)) = request.remove("messages") else {
        return Err(invalid("messages: an array is required", "messages"));
    };
    let mut messages = Vec::with_capacity(turns.len() + 1);
    // The top-level `system` and any `system` turn (Claude Code sends both) become one leading
    // system message: chat templates refuse a system message anywhere else.
    let mut system = match request.remove("system") {
        Some(system) => vec![text_of(&system, "system")?],
        None => Vec::new(),
    };
    for (i, turn) in turns.into_iter().enumerate() {
        if turn.get("role").and_then(Value::as_str) == Some("system") {
            let param = format!("messages[{i}].content");
            system.push(text_of(
                turn.get("content").unwrap_or(&Value::Null),
                &param,
            )?);
            continue;
        }
        convert_turn(turn, i, &mut messages)?;
    }
    system.retain(|text| !text.is_empty());
    if !system.is_empty() {
        messages.insert(0, json!({"role": "system", "content": system.join("\n\n")}));
    }
    let mut chat = Map::new();
    for (key, value) in request {
        match key.as_str() {
            "tools" => {
                chat.insert(key, tools_to_chat(value)?);
            }
            "tool_choice" => tool_choice_to_chat(&value, &mut chat)?,
            "stop_sequences" => {
                chat.insert("stop".into(), value);
            }
            "stream" => super::stream_to_chat(value, &mut chat),
            "max_tokens" => {
                chat.insert(key, value);
            }
            _ => super::keep_if_chat(key, value, &mut chat, "Messages"),
        }
    }
    chat.insert("messages".into(), Value::Array(messages));
    Ok(chat)
}

/// The text of a string or of an array of blocks (their `text` blocks, joined).
fn text_of(content: &Value, param: &str) -> Result<String, ProxyError> {
    match content {
        Value::String(text) => Ok(text.clone()),
        Value::Array(blocks) => Ok(blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n")),
        Value::Null => Ok(String::new()),
        _ => Err(invalid(
            format!("{param}: a string or an array of blocks is required"),
            param,
        )),
    }
}

fn convert_turn(turn: Value, index: usize, out: &mut Vec<Value>) -> Result<(), ProxyError> {
    let param = format!("messages[{index}]");
    let role = turn.get("role").and_then(Value::as_str).unwrap_or_default();
    let content = turn.get("content").cloned().unwrap_or(Value::Null);
    let blocks = match content {
        Value::String(text) => {
            out.push(json!({"role": role, "content": text}));
            return Ok(());
        }
        Value::Array(blocks) => blocks,
        _ => {
            return Err(invalid(
                format!("{param}.content: a string or an array of blocks is required"),
                &param,
            ))
        }
    };
    match role {
        "assistant" => out.push(assistant_turn(&blocks)),
        "user" => user_turn(blocks, &param, out)?,
        _ => {
            return Err(invalid(
                format!("{param}.role: \"user\", \"assistant\" or \"system\" is required"),
                &param,
            ))
        }
    }
    Ok(())
}

/// An assistant turn: its text, and its `tool_use` blocks as calls with their arguments as
/// JSON text.
fn assistant_turn(blocks: &[Value]) -> Value {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.extend(block.get("text").and_then(Value::as_str)),
            Some("tool_use") => calls.push(json!({
                "id": block.get("id").cloned().unwrap_or(Value::Null),
                "type": "function",
                "function": {
                    "name": block.get("name").cloned().unwrap_or(Value::Null),
                    "arguments": block.get("input").map_or_else(|| "{}".to_owned(), Value::to_string),
                },
            })),
            // Thinking blocks are the model's own; a chat upstream has nowhere to put them.
            _ => {}
        }
    }
    let mut message = json!({"role": "assistant", "content": text.join("\n\n")});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    message
}

/// A user turn: its `tool_result` blocks first, as `tool` messages (chat wants them right
/// after the assistant's calls), then the rest as one user message.
fn user_turn(blocks: Vec<Value>, param: &str, out: &mut Vec<Value>) -> Result<(), ProxyError> {
    let mut parts = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => {
                let mut text = text_of(block.get("content").unwrap_or(&Value::Null), param)?;
                if block.get("is_error") == Some(&Value::Bool(true)) {
                    text = format!("Error: {text}");
                }
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id").cloned().unwrap_or(Value::Null),
                    "content": text,
                }));
            }
            Some("text") => parts.push(
                json!({"type": "text", "text": block.get("text").cloned().unwrap_or_default()}),
            ),
            Some("image") => parts.extend(image_part(&block)),
            _ => {}
        }
    }
    if !parts.is_empty() {
        out.push(json!({"role": "user", "content": parts}));
    }
    Ok(())
}

fn image_part(block: &Value) -> Option<Value> {
    let source = block.get("source")?;
    let url = match source.get("type").and_then(Value::as_str)? {
        "base64" => format!(
            "data:{};base64,{}",
            source.get("media_type")?.as_str()?,
            source.get("data")?.as_str()?
        ),
        "url" => source.get("url")?.as_str()?.to_owned(),
        _ => return None,
    };
    Some(json!({"type": "image_url", "image_url": {"url": url}}))
}

fn tools_to_chat(tools: Value) -> Result<Value, ProxyError> {
    let Value::Array(tools) = tools else {
        return Err(invalid("tools: an array is required", "tools"));
    };
    let mut out = Vec::with_capacity(tools.len());
    for (i, mut tool) in tools.into_iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).map(str::to_owned);
        let Some(name) = name else {
            return Err(invalid(format!("tools[{i}].name is required"), "tools"));
        };
        let mut function = json!({
            "name": name,
            "parameters": tool.get_mut("input_schema").map_or_else(|| json!({"type": "object"}), Value::take),
        });
        if let Some(description) = tool.get_mut("description") {
            function["description"] = description.take();
        }
        out.push(json!({"type": "function", "function": function}));
    }
    Ok(Value::Array(out))
}

fn tool_choice_to_chat(choice: &Value, chat: &mut Map<String, Value>) -> Result<(), ProxyError> {
    let kind = choice
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let converted = match kind {
        "auto" => json!("auto"),
        "any" => json!("required"),
        "none" => json!("none"),
        "tool" => {
            let name = choice.get("name").cloned().unwrap_or(Value::Null);
            json!({"type": "function", "function": {"name": name}})
        }
        _ => {
            return Err(invalid(
                "tool_choice.type: one of auto, any, tool, none is required",
                "tool_choice",
            ))
        }
    };
    chat.insert("tool_choice".into(), converted);
    if choice.get("disable_parallel_tool_use") == Some(&Value::Bool(true)) {
        chat.insert("parallel_tool_calls".into(), Value::Bool(false));
    }
    Ok(())
}

/// Replies in the Messages format, for a request naming `model`.
pub(crate) struct Reply {
    pub model: String,
}

impl super::Adapter for Reply {
    const WIRE: super::Wire = super::Wire::Anthropic;

    fn reply(self, completion: &Value) -> Value {
        from_chat(completion, &self.model)
    }

    fn stream(
        self,
        events: futures_util::stream::BoxStream<'static, crate::pipe::event::Event>,
    ) -> futures_util::stream::BoxStream<'static, Result<bytes::Bytes, std::convert::Infallible>>
    {
        Box::pin(super::anthropic_stream::convert(events, &self.model))
    }
}

/// The Messages reply for a chat completion: its first choice.
fn from_chat(completion: &Value, model: &str) -> Value {
    let choice = completion.pointer("/choices/0").unwrap_or(&Value::Null);
    let message = choice.get("message").unwrap_or(&Value::Null);
    let mut content = Vec::new();
    let text = crate::openai::content_text(
        message
            .get("content")
            .and_then(|c| serde_json::value::to_raw_value(c).ok())
            .as_deref(),
    );
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    let calls = message.get("tool_calls").and_then(Value::as_array);
    for call in calls.into_iter().flatten() {
        content.push(json!({
            "type": "tool_use",
            "id": call.get("id").cloned().unwrap_or(Value::Null),
            "name": call.pointer("/function/name").cloned().unwrap_or(Value::Null),
            "input": input_of(call.pointer("/function/arguments")),
        }));
    }
    let has_calls = calls.is_some_and(|c| !c.is_empty());
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    json!({
        "id": message_id(completion.get("id").and_then(Value::as_str)),
        "type": "message",
        "role": "assistant",
        // The model the client asked for, as the stream says it: with a `[models]` alias the
        // upstream's name is not one the client knows.
        "model": model,
        "content": content,
        "stop_reason": stop_reason(finish, has_calls),
        "stop_sequence": null,
        "usage": usage_of(completion.get("usage")),
    })
}

/// A call's arguments as the object `tool_use.input` must be. Arguments that are not a JSON
/// object (a model's broken call to a tool plaincall does not rewrite) are kept under `_raw`
/// rather than lost.
fn input_of(arguments: Option<&Value>) -> Value {
    let text = arguments.and_then(Value::as_str).unwrap_or("{}");
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => value,
        _ => json!({"_raw": text}),
    }
}

pub(crate) fn message_id(chat_id: Option<&str>) -> String {
    match chat_id {
        Some(id) if id.starts_with("msg_") => id.to_owned(),
        Some(id) if !id.is_empty() => format!("msg_{}", id.trim_start_matches("chatcmpl-")),
        _ => format!("msg_{}", uuid::Uuid::new_v4().simple()),
    }
}

pub(crate) fn stop_reason(finish_reason: Option<&str>, has_calls: bool) -> &'static str {
    if has_calls {
        return "tool_use";
    }
    match finish_reason {
        Some("tool_calls") => "tool_use",
        Some("length") => "max_tokens",
        Some("content_filter") => "refusal",
        _ => "end_turn",
    }
}

pub(crate) fn usage_of(usage: Option<&Value>) -> Value {
    let count = |key: &str| {
        usage
            .and_then(|u| u.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    json!({"input_tokens": count("prompt_tokens"), "output_tokens": count("completion_tokens")})
}

/// The Anthropic error `type` for an HTTP status.
pub(crate) fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 408 | 422 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        _ => "api_error",
    }
}

/// `{"type": "error", "error": {"type", "message"}}`.
pub(crate) fn error_body(status: StatusCode, message: &str) -> String {
    json!({"type": "error", "error": {"type": error_type(status), "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::wire::object;

    #[test]
    fn a_tool_round_trip_becomes_chat_messages_in_order() {
        let request = object(json!({
            "model": "m", "max_tokens": 100, "system": [{"type": "text", "text": "Be brief."}],
            "tools": [{"name": "set_reminder", "description": "d", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
            "stop_sequences": ["END"], "top_k": 1, "metadata": {"user_id": "u"}, "x_unknown": 7,
            "messages": [
                {"role": "user", "content": "remind me"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Sure."},
                    {"type": "tool_use", "id": "call_1", "name": "set_reminder", "input": {"at": "09:00"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "text", "text": "done"}]},
                    {"type": "text", "text": "thanks"}]}
            ]
        }));
        let chat = Value::Object(to_chat(request).unwrap());
        assert_eq!(
            chat["messages"][0],
            json!({"role": "system", "content": "Be brief."})
        );
        assert_eq!(chat["messages"][2]["tool_calls"][0]["id"], "call_1");
        assert_eq!(
            chat["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"at\":\"09:00\"}"
        );
        assert_eq!(
            chat["messages"][3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "done"})
        );
        assert_eq!(chat["messages"][4]["content"][0]["text"], "thanks");
        assert_eq!(chat["tools"][0]["function"]["name"], "set_reminder");
        assert_eq!(chat["tool_choice"], "required");
        assert_eq!(chat["parallel_tool_calls"], false);
        assert_eq!(chat["stop"], json!(["END"]));
        assert_eq!(chat["top_k"], 1);
        assert_eq!(
            chat.get("x_unknown"),
            None,
            "a field chat does not take is dropped"
        );
        assert!(chat.get("metadata").is_none());
    }

    #[test]
    fn system_turns_join_the_leading_system_message() {
        // Claude Code's current requests: a system turn beside the top-level system, and
        // fields of its own on top.
        let chat = to_chat(object(json!({
            "model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "You are Claude Code."}],
            "context_management": {"edits": []}, "output_config": {"effort": "low"}, "thinking": {"type": "enabled"},
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "system", "content": "Reminder: be brief."},
                {"role": "assistant", "content": "hello"}
            ]
        })))
        .unwrap();
        let chat = Value::Object(chat);
        assert_eq!(
            chat["messages"],
            json!([
                {"role": "system", "content": "You are Claude Code.\n\nReminder: be brief."},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"}
            ])
        );
        for field in ["context_management", "output_config", "thinking"] {
            assert!(chat.get(field).is_none(), "{field} went on");
        }
    }

    #[test]
    fn max_tokens_is_required_as_anthropic_requires_it() {
        let error = to_chat(object(json!({"model": "m", "messages": []}))).unwrap_err();
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn server_tools_are_not_translated() {
        assert!(!is_translatable(&object(json!({"tools": [
            {"name": "a", "input_schema": {}}, {"type": "web_search_20250305", "name": "web_search"}]}))));
        assert!(is_translatable(&object(
            json!({"tools": [{"name": "a", "input_schema": {}}]})
        )));
        assert!(!is_translatable(&object(json!({"tools": []}))));
    }

    #[test]
    fn a_completion_becomes_a_message_with_tool_use_blocks() {
        let completion = json!({"id": "chatcmpl-9", "model": "up", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "On it.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
                {"id": "call_2", "type": "function", "function": {"name": "g", "arguments": "{not json"}}]},
            "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}});
        let message = from_chat(&completion, "m");
        assert_eq!(message["id"], "msg_9");
        assert_eq!(
            message["content"][0],
            json!({"type": "text", "text": "On it."})
        );
        assert_eq!(message["content"][1]["input"], json!({"a": 1}));
        assert_eq!(message["content"][2]["input"], json!({"_raw": "{not json"}));
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(
            message["usage"],
            json!({"input_tokens": 3, "output_tokens": 4})
        );
    }

    #[test]
    fn upstream_errors_keep_their_message() {
        let message =
            crate::wire::error_message(br#"{"error":{"message":"no such model","type":"x"}}"#);
        let body = error_body(StatusCode::NOT_FOUND, &message);
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            body,
            json!({"type": "error", "error": {"type": "not_found_error", "message": "no such model"}})
        );
    }
}
