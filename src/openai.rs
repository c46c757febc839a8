//! Typed views of the OpenAI wire format, only as deep as plaincall needs to look.
//!
//! Objects are kept as [`RawObject`]: key order and every value's original text survive, so a
//! field plaincall does not read (llama-server's `timings`, vLLM's `chat_template_kwargs`, a
//! 20-digit integer) is written back exactly as it came.

use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub(crate) type RawObject = IndexMap<String, Box<RawValue>>;

/// Reads `key` as `T`; a missing key or `null` is `None`.
pub(crate) fn get<T: DeserializeOwned>(
    object: &RawObject,
    key: &str,
) -> Result<Option<T>, serde_json::Error> {
    match object.get(key) {
        None => Ok(None),
        Some(raw) if raw.get() == "null" => Ok(None),
        Some(raw) => serde_json::from_str(raw.get()).map(Some),
    }
}

/// Sets `key`, keeping its position when it already exists.
pub(crate) fn set<T: Serialize + ?Sized>(
    object: &mut RawObject,
    key: &str,
    value: &T,
) -> Result<(), serde_json::Error> {
    let raw = serde_json::value::to_raw_value(value)?;
    object.insert(key.to_owned(), raw);
    Ok(())
}

pub(crate) fn to_raw<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(value)
}

/// An object's bytes, written into room for all of them at once: a body is the size of a
/// conversation, and a buffer grown by doubling holds the old and the new one at each step.
pub(crate) fn to_bytes<'a, K, V>(
    object: &'a IndexMap<K, V>,
) -> Result<bytes::Bytes, serde_json::Error>
where
    K: AsRef<str> + Serialize + 'a,
    V: std::borrow::Borrow<RawValue> + Serialize + 'a,
{
    // Each field: its key quoted, a colon, its value as it is, a comma. A key with escapes
    // (rare, and short) only makes the buffer grow a little.
    let size = 2 + object
        .iter()
        .map(|(key, value)| key.as_ref().len() + value.borrow().get().len() + 4)
        .sum::<usize>();
    let mut out = Vec::with_capacity(size);
    serde_json::to_writer(&mut out, object)?;
    Ok(bytes::Bytes::from(out))
}

/// `object`'s bytes with `changes` laid over it (a changed field in its place, a new one at the
/// end) and the `removed` fields left out, written from the object's own values: a request
/// asked again in another form (streamed, the direct ask) costs no copy of its conversation.
pub(crate) fn to_bytes_with(
    object: &RawObject,
    changes: &RawObject,
    removed: &[&str],
) -> Result<bytes::Bytes, serde_json::Error> {
    let mut view: IndexMap<&str, &RawValue> = object
        .iter()
        .filter(|(key, _)| !removed.contains(&key.as_str()))
        .map(|(key, value)| (key.as_str(), &**value))
        .collect();
    for (key, value) in changes {
        view.insert(key.as_str(), &**value);
    }
    to_bytes(&view)
}

/// A JSON array of raw values, written at its size.
pub(crate) fn raw_array<V: std::borrow::Borrow<RawValue>>(
    items: &[V],
) -> Result<Box<RawValue>, serde_json::Error> {
    let size = 2 + items
        .iter()
        .map(|item| item.borrow().get().len() + 1)
        .sum::<usize>();
    let mut out = String::with_capacity(size);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.borrow().get());
    }
    out.push(']');
    RawValue::from_string(out)
}

/// A Chat Completions request, read once where it comes in: the fields plaincall acts on,
/// typed and checked here, so a malformed one is the client's error in one place; the object
/// itself stays raw (key order and every other field as it came).
#[derive(Debug)]
pub(crate) struct ChatRequest {
    pub body: RawObject,
    /// `model`, empty when absent.
    pub model: String,
    pub stream: bool,
    /// `n`: choices asked for.
    pub choices: u64,
    /// `tools`, each kept raw.
    pub tools: Option<Vec<RawObject>>,
    pub tool_choice: Option<Value>,
    /// `stream_options.include_usage`.
    pub include_usage: bool,
}

/// A request field that does not read as its type.
#[derive(Debug)]
pub(crate) struct Malformed {
    pub param: &'static str,
    pub error: String,
}

impl ChatRequest {
    pub(crate) fn read(body: RawObject) -> Result<ChatRequest, Malformed> {
        fn field<T: DeserializeOwned>(
            body: &RawObject,
            param: &'static str,
        ) -> Result<Option<T>, Malformed> {
            get(body, param).map_err(|e| Malformed {
                param,
                error: e.to_string(),
            })
        }
        let options = field::<RawObject>(&body, "stream_options")?;
        let include_usage = match &options {
            Some(options) => get::<bool>(options, "include_usage")
                .map_err(|e| Malformed {
                    param: "stream_options.include_usage",
                    error: e.to_string(),
                })?
                .unwrap_or(false),
            None => false,
        };
        Ok(ChatRequest {
            model: field(&body, "model")?.unwrap_or_default(),
            stream: field(&body, "stream")?.unwrap_or(false),
            choices: field(&body, "n")?.unwrap_or(1),
            tools: field(&body, "tools")?,
            tool_choice: field(&body, "tool_choice")?,
            include_usage,
            body,
        })
    }

    /// Names another model (a `[models]` alias), in the body too.
    pub(crate) fn set_model(&mut self, model: String) -> Result<(), serde_json::Error> {
        set(&mut self.body, "model", &model)?;
        self.model = model;
        Ok(())
    }

    /// Whether every tool is a well-formed function tool (a name in OpenAI's alphabet, object
    /// parameters). Only such a request may teach plaincall that the upstream rejects tools: a
    /// malformed one is the client's own error.
    pub(crate) fn tools_checked(&self) -> bool {
        let Some(tools) = self.tools.as_deref().filter(|t| !t.is_empty()) else {
            return false;
        };
        tools.iter().all(|tool| match FunctionTool::read(tool) {
            // `"parameters": null` reads as none given, but is no object either.
            Ok(Some(function))
                if function
                    .function
                    .get("parameters")
                    .is_some_and(|p| p.get() == "null") =>
            {
                false
            }
            Ok(Some(function)) => {
                let name = function.name.as_bytes();
                !name.is_empty()
                    && name.len() <= 64
                    && name
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
            }
            _ => false,
        })
    }
}

/// A chat message, read where plaincall reads one (the history it rewrites, the history as
/// text in prompt mode): its role, calls, call id and name typed and checked, so a malformed
/// one is the client's error wherever it is read; the object raw.
#[derive(Debug)]
pub(crate) struct Message {
    pub object: RawObject,
    pub role: Option<String>,
    pub tool_calls: Option<Vec<ToolCall>>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
}

impl Message {
    pub(crate) fn read(raw: &RawValue) -> Result<Message, serde_json::Error> {
        let object: RawObject = serde_json::from_str(raw.get())?;
        Ok(Message {
            role: get(&object, "role")?,
            tool_calls: get(&object, "tool_calls")?,
            tool_call_id: get(&object, "tool_call_id")?,
            name: get(&object, "name")?,
            object,
        })
    }

    /// Its `content`, as written.
    pub(crate) fn content(&self) -> Option<&RawValue> {
        self.object.get("content").map(AsRef::as_ref)
    }
}

/// A JSON `null`: what a field's place holds while its value is taken out to be read.
pub(crate) fn null_raw() -> Box<RawValue> {
    RawValue::NULL.to_owned()
}

/// A request's function tool, read once where plaincall reads it: its name, description and
/// schema (`{"type": "object", "properties": {}}` when it gives none). The tool itself stays
/// raw, every other field as it came.
#[derive(Debug, Clone)]
pub(crate) struct FunctionTool {
    /// The tool's `function` object.
    pub function: RawObject,
    pub name: String,
    pub description: String,
    pub parameters: Value,
    /// The tool gave its schema (else `parameters` is the empty one).
    pub has_parameters: bool,
}

impl FunctionTool {
    /// `Ok(None)` for a tool of another type (a provider's built-in tool goes on as it came);
    /// a function tool whose `function`, `name`, `description` or `parameters` does not read
    /// is an error that names it.
    pub(crate) fn read(tool: &RawObject) -> Result<Option<FunctionTool>, String> {
        let field = |what: &str, e: serde_json::Error| format!("`{what}` is malformed: {e}");
        let kind = get::<String>(tool, "type").map_err(|e| field("type", e))?;
        if kind.as_deref() != Some("function") {
            return Ok(None);
        }
        let function = get::<RawObject>(tool, "function")
            .map_err(|e| field("function", e))?
            .ok_or("a function tool without `function`")?;
        let name = get::<String>(&function, "name")
            .map_err(|e| field("function.name", e))?
            .ok_or("a function tool without `function.name`")?;
        let description = get::<String>(&function, "description")
            .map_err(|e| field("function.description", e))?
            .unwrap_or_default();
        let given =
            get::<Value>(&function, "parameters").map_err(|e| field("function.parameters", e))?;
        let has_parameters = given.is_some();
        let parameters = match given {
            None => serde_json::json!({"type": "object", "properties": {}}),
            Some(parameters @ Value::Object(_)) => parameters,
            Some(_) => return Err("`function.parameters` is not an object".into()),
        };
        Ok(Some(FunctionTool {
            function,
            name,
            description,
            parameters,
            has_parameters,
        }))
    }
}

/// One tool call, in a message or assembled from stream deltas; fields plaincall does not
/// read stay in `extra`, in place.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolCall {
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(
        rename = "type",
        default = "function_type",
        deserialize_with = "type_or_function"
    )]
    pub kind: String,
    pub function: FunctionCall,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FunctionCall {
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    /// Always text on the wire; some servers send an object or `null`, which is normalised.
    #[serde(default, deserialize_with = "arguments_text")]
    pub arguments: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn function_type() -> String {
    "function".to_owned()
}

/// `null` read as the field's default, as a streamed call's fragment reads it.
fn null_as_default<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

fn type_or_function<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.unwrap_or_else(function_type))
}

fn arguments_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => other.to_string(),
    })
}

impl ToolCall {
    pub fn new(id: String, name: String, arguments: String) -> ToolCall {
        ToolCall {
            id,
            kind: function_type(),
            function: FunctionCall {
                name,
                arguments,
                extra: Map::new(),
            },
            extra: Map::new(),
        }
    }
}

/// `{"<field>": "..."}` and nothing else: the arguments of a call in plain-English form
/// (`field` is the tool's plain-English field, `description` unless the tool has its own).
pub(crate) fn nl_description(arguments: &str, field: &str) -> Option<String> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(arguments) else {
        return None;
    };
    match (map.len(), map.get(field)) {
        (1, Some(Value::String(text))) => Some(text.clone()),
        _ => None,
    }
}

/// The `content` of a message as text: a string, or the text parts of a content array.
pub(crate) fn content_text(content: Option<&RawValue>) -> String {
    content_read(content).0
}

/// [`content_text`], and whether the content holds a part without text (an image, audio, a
/// file), from one parse.
pub(crate) fn content_read(content: Option<&RawValue>) -> (String, bool) {
    let Some(raw) = content else {
        return (String::new(), false);
    };
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::String(s)) => (s, false),
        Ok(Value::Array(parts)) => {
            let texts: Vec<Option<&str>> = parts
                .iter()
                .map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            let opaque = texts.iter().any(Option::is_none);
            (
                texts.into_iter().flatten().collect::<Vec<_>>().join("\n"),
                opaque,
            )
        }
        _ => (String::new(), false),
    }
}

/// Token usage, summed over the main model's calls when plaincall makes several.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Usage {
    /// Saturating: the counts are the upstream's to choose, and an overflow would panic.
    pub(crate) fn add(&mut self, other: &Usage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
    }
}

/// Bounds what a turn plaincall asks for may write: the client's own limit keeps its name
/// (OpenAI's newer models take only `max_completion_tokens`) and is lowered to `cap`; with
/// neither, `max_tokens`, which every server reads.
pub(crate) fn cap_tokens(body: &mut RawObject, cap: u64) -> Result<(), serde_json::Error> {
    let mut capped = false;
    for key in ["max_completion_tokens", "max_tokens"] {
        if let Some(asked) = get::<u64>(body, key).ok().flatten() {
            set(body, key, &asked.min(cap))?;
            capped = true;
        }
    }
    if !capped {
        set(body, "max_tokens", &cap)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn written_at_size_with_changes_laid_over_in_place() -> Result<(), serde_json::Error> {
        let text = r#"{"model":"m","stream":false,"n":2,"messages":[{"a": 1.10}],"x\"y":1}"#;
        let object: RawObject = serde_json::from_str(text)?;
        assert_eq!(to_bytes(&object)?, text.as_bytes());
        let mut changes = RawObject::new();
        set(&mut changes, "stream", &true)?;
        set(&mut changes, "tools", &["t"])?;
        let changed = to_bytes_with(&object, &changes, &["n"])?;
        assert_eq!(
            std::str::from_utf8(&changed).unwrap_or_default(),
            r#"{"model":"m","stream":true,"messages":[{"a": 1.10}],"x\"y":1,"tools":["t"]}"#
        );
        let items: Vec<Box<RawValue>> = vec![to_raw(&1)?, to_raw(&json_text())?];
        assert_eq!(raw_array(&items)?.get(), r#"[1,"a \"b\""]"#);
        assert_eq!(raw_array::<Box<RawValue>>(&[])?.get(), "[]");
        Ok(())
    }

    fn json_text() -> &'static str {
        "a \"b\""
    }

    #[test]
    fn raw_object_keeps_order_and_big_integers() -> Result<(), serde_json::Error> {
        let text = r#"{"z":1,"big":123456789012345678901234567890,"a":{"x":1.10}}"#;
        let object: RawObject = serde_json::from_str(text)?;
        assert_eq!(serde_json::to_string(&object)?, text);
        Ok(())
    }

    #[test]
    fn arguments_normalised_to_text() -> Result<(), serde_json::Error> {
        let call: ToolCall = serde_json::from_str(
            r#"{"id":"a","type":"function","function":{"name":"f","arguments":{"x":1}}}"#,
        )?;
        assert_eq!(call.function.arguments, r#"{"x":1}"#);
        let call: ToolCall =
            serde_json::from_str(r#"{"id":"a","function":{"name":"f","arguments":null}}"#)?;
        assert_eq!(call.function.arguments, "");
        assert_eq!(call.kind, "function");
        Ok(())
    }

    #[test]
    fn usage_sums_saturate() {
        let mut total = Usage {
            prompt_tokens: u64::MAX - 1,
            completion_tokens: 1,
            total_tokens: u64::MAX,
            extra: Map::new(),
        };
        total.add(&total.clone());
        assert_eq!(total.prompt_tokens, u64::MAX);
        assert_eq!(total.completion_tokens, 2);
        assert_eq!(total.total_tokens, u64::MAX);
    }

    #[test]
    fn nl_description_only_for_the_one_field_form() {
        assert_eq!(
            nl_description(r#"{"description":"daily"}"#, "description").as_deref(),
            Some("daily")
        );
        assert_eq!(
            nl_description(r#"{"description":"daily","at":"09:00"}"#, "description"),
            None
        );
        assert_eq!(nl_description(r#"{"message":"x"}"#, "description"), None);
        assert_eq!(nl_description("not json", "description"), None);
    }

    #[test]
    fn a_function_tool_reads_once_and_a_malformed_one_is_named() {
        let read = |text: &str| FunctionTool::read(&serde_json::from_str(text).unwrap());
        let tool = read(
            r#"{"type":"function","function":{"name":"t","description":"d",
            "parameters":{"type":"object"},"strict":true}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!((tool.name.as_str(), tool.description.as_str()), ("t", "d"));
        assert_eq!(tool.parameters, serde_json::json!({"type": "object"}));
        assert!(tool.function.contains_key("strict"));
        let bare = read(r#"{"type":"function","function":{"name":"t","parameters":null}}"#);
        let bare = bare.unwrap().unwrap();
        assert_eq!(bare.parameters["properties"], serde_json::json!({}));
        assert!(tool.has_parameters && !bare.has_parameters);
        assert!(read(r#"{"type":"web_search"}"#).unwrap().is_none());
        assert!(read(r#"{"function":{"name":"t"}}"#).unwrap().is_none());
        for (text, says) in [
            (r#"{"type":5}"#, "`type`"),
            (r#"{"type":"function"}"#, "without `function`"),
            (r#"{"type":"function","function":"t"}"#, "`function`"),
            (
                r#"{"type":"function","function":{}}"#,
                "without `function.name`",
            ),
            (
                r#"{"type":"function","function":{"name":7}}"#,
                "`function.name`",
            ),
            (
                r#"{"type":"function","function":{"name":"t","description":[]}}"#,
                "description",
            ),
            (
                r#"{"type":"function","function":{"name":"t","parameters":"{}"}}"#,
                "parameters",
            ),
        ] {
            let error = read(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
