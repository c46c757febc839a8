//! The non-streaming response: the main model's NL calls are translated concurrently; failed
//! or ambiguous ones start a repair turn; the client gets one ordinary completion.
//! The pieces that do not depend on the transport are shared with the streaming path.

use bytes::Bytes;
use http::HeaderMap;
use http::StatusCode;
use serde_json::value::RawValue;
use serde_json::Value;

use std::sync::Arc;

use super::assemble::{Assembly, Release};
use super::call_form::{read_call, CallForm};
use super::conversation::{Conversation, Next};
use super::resolve::Resolver;
use super::Rewrite;
use crate::error::ProxyError;
use crate::openai::{self, RawObject, ToolCall, Usage};
use crate::pipe::engine::Engine;
use crate::pipe::prompt_mode::PromptTools;

/// The largest main-model response read when plaincall must look inside it.
pub(crate) const RESPONSE_LIMIT: u64 = 64 * 1024 * 1024;

/// Appends `extra` messages to the request's `messages`, as text in prompt mode.
pub(crate) fn append_messages(
    body: &mut RawObject,
    extra: &[Value],
    prompt_mode: bool,
) -> Result<(), ProxyError> {
    let mut messages: Vec<Box<RawValue>> = openai::get(body, "messages")
        .ok()
        .flatten()
        .unwrap_or_default();
    let mut added = Vec::with_capacity(extra.len());
    for message in extra {
        added.push(openai::to_raw(message).map_err(serde_error)?);
    }
    if prompt_mode {
        added = crate::pipe::prompt_mode::convert_history(added).map_err(serde_error)?;
    }
    messages.extend(added);
    openai::set(body, "messages", &messages).map_err(serde_error)
}

/// What serving a rewritten request came to; the route turns it into a response.
pub(crate) enum Completed {
    /// The upstream's status and headers with the body to send (the upstream's own, or the
    /// translated one).
    Reply {
        status: StatusCode,
        headers: HeaderMap,
        body: Bytes,
    },
    /// The upstream refused native `tools` for this model: serve again in prompt mode.
    ToolsRejected,
}

pub(crate) fn serde_error(error: serde_json::Error) -> ProxyError {
    ProxyError::Internal(format!("JSON: {error}"))
}

/// Serves a rewritten, non-streaming request.
pub(crate) async fn complete(
    engine: &Arc<Engine>,
    mut rewrite: Rewrite,
    client_headers: &HeaderMap,
) -> Result<Completed, ProxyError> {
    let mut whole = Whole {
        // Taken, not cloned: the rest of the rewrite is all the resolutions need.
        body: std::mem::take(&mut rewrite.body),
        original: rewrite.original.take(),
        conversation: Conversation::new(engine.config.translation.repair_turns)
            .until(rewrite.deadline),
        carried: None,
        earlier_text: String::new(),
        first_id: None,
        resolver: Resolver {
            engine: engine.clone(),
            rewrite: Arc::new(rewrite),
            headers: Arc::new(client_headers.clone()),
        },
    };
    let rewrite = whole.resolver.rewrite.clone();
    loop {
        let turn = whole.conversation.turn();
        let sent = Rewrite::turn_bytes(&mut whole.original, &whole.body).map_err(serde_error)?;
        let (status, headers, bytes) =
            ask_upstream(engine, sent.clone(), &rewrite, client_headers).await?;
        let as_read = || Completed::Reply {
            status,
            headers: headers.clone(),
            body: bytes.clone(),
        };
        if !status.is_success() {
            if turn == 0
                && rewrite.watch_rejection
                && crate::pipe::prompt_mode::rejects_tools(status.as_u16(), &bytes, &sent)
            {
                return Ok(Completed::ToolsRejected);
            }
            // The upstream's own errors reach the client unchanged.
            return Ok(as_read());
        }
        // Most replies need no change: found without copying the body, they go out as read.
        let split = engine.pipe.settings().split_actions;
        if turn == 0 && rewrite.prompt.is_none() && !peek_has_nl_call(&rewrite, &bytes, split) {
            return Ok(as_read());
        }
        let response: RawObject = serde_json::from_slice(&bytes).map_err(|e| {
            ProxyError::UpstreamProtocol(format!("the completion is not JSON: {e}"))
        })?;
        let mut choices: Vec<RawObject> = openai::get(&response, "choices")
            .map_err(|e| ProxyError::UpstreamProtocol(format!("`choices` is malformed: {e}")))?
            .unwrap_or_default();
        whole
            .conversation
            .add_usage(openai::get::<Usage>(&response, "usage").ok().flatten());
        if whole.first_id.is_none() {
            whole.first_id = response.get("id").cloned();
        }
        let found_in_text = match &rewrite.prompt {
            Some(prompt) => calls_from_text(prompt, &mut choices)?,
            None => false,
        };
        let has_nl_call = choices.iter().any(|c| {
            choice_calls(c)
                .iter()
                .any(|call| is_nl_call(&rewrite, call, split))
        });
        if turn == 0 && !has_nl_call && !found_in_text {
            return Ok(as_read());
        }
        let Some(extra) = whole.settle_all(&mut choices).await? else {
            return whole.answer(response, &choices, status, headers);
        };
        engine.metrics.repair_turns.inc();
        tracing::info!(
            turn = whole.conversation.turn(),
            "translation failed or needs clarification; asking the main model again"
        );
        append_messages(&mut whole.body, &extra, rewrite.prompt.is_some())?;
    }
}

/// One upstream turn, read whole.
async fn ask_upstream(
    engine: &Engine,
    bytes: Bytes,
    rewrite: &Rewrite,
    client_headers: &HeaderMap,
) -> Result<(StatusCode, HeaderMap, Bytes), ProxyError> {
    let request = engine.upstream.post_turn(
        "chat/completions",
        rewrite.query.as_deref(),
        bytes,
        client_headers,
        engine.forward_client_auth(),
    )?;
    engine
        .upstream
        .send_and_read(request, RESPONSE_LIMIT)
        .await
        .inspect_err(|e| engine.metrics.upstream_error(e.code()))
}

/// Prompt mode: the calls written in each choice's text become its `tool_calls`.
fn calls_from_text(prompt: &PromptTools, choices: &mut [RawObject]) -> Result<bool, ProxyError> {
    let mut found = false;
    for choice in choices {
        let Ok(Some(mut message)) = openai::get::<RawObject>(choice, "message") else {
            continue;
        };
        if crate::pipe::prompt_mode::calls_from_message(&mut message, prompt)
            .map_err(serde_error)?
        {
            openai::set(choice, "message", &message).map_err(serde_error)?;
            openai::set(choice, "finish_reason", "tool_calls").map_err(serde_error)?;
            found = true;
        }
    }
    Ok(found)
}

/// The non-streaming conversation: what carries over from one upstream turn to the next.
struct Whole {
    body: RawObject,
    /// The client's bytes, for a first turn whose body is unchanged.
    original: Option<Bytes>,
    conversation: Conversation,
    /// The one choice's assembly and the calls it released, kept over a repair turn.
    carried: Option<(Assembly, Vec<ToolCall>)>,
    /// Text the main model wrote on turns that were repaired: a streaming client has seen
    /// it, so the whole answer carries it too.
    earlier_text: String,
    first_id: Option<Box<RawValue>>,
    resolver: Resolver,
}

impl Whole {
    /// Every choice's calls go into its assembly and resolve concurrently; then each choice is
    /// written, or the repair turn's messages come back.
    async fn settle_all(
        &mut self,
        choices: &mut [RawObject],
    ) -> Result<Option<Vec<Value>>, ProxyError> {
        let single = choices.len() == 1;
        let mut assemblies = Vec::with_capacity(choices.len());
        for choice in choices.iter() {
            let (mut assembly, released) = match (single, self.carried.take()) {
                (true, Some(carried)) => carried,
                _ => (Assembly::new(self.resolver.clone()), Vec::new()),
            };
            assembly.next_turn();
            for call in choice_calls(choice) {
                assembly.push_call(call);
            }
            assembly.input_done();
            assemblies.push((assembly, released));
        }
        for (choice, (assembly, released)) in choices.iter_mut().zip(assemblies) {
            if let Some(repair) = self.settle(choice, assembly, released, single).await? {
                return Ok(Some(repair));
            }
        }
        Ok(None)
    }

    /// Waits for a choice's calls and writes its answer, or returns the repair turn's
    /// messages.
    async fn settle(
        &mut self,
        choice: &mut RawObject,
        mut assembly: Assembly,
        mut released: Vec<ToolCall>,
        single: bool,
    ) -> Result<Option<Vec<Value>>, ProxyError> {
        let Ok(Some(message)) = openai::get::<RawObject>(choice, "message") else {
            return Ok(None);
        };
        // Releasing may start more work (the question about left-out actions).
        loop {
            collect(&mut released, assembly.release());
            if !assembly.pending() {
                break;
            }
            assembly.settle_next().await?;
        }
        let content: Option<String> = openai::get(&message, "content").ok().flatten();
        let failed = assembly.failures();
        let note = match self
            .conversation
            .after_turn(content.as_deref(), failed, single)
        {
            Next::Repair(messages) => {
                self.carried = Some((assembly, released));
                self.earlier_text
                    .push_str(content.as_deref().unwrap_or_default());
                return Ok(Some(messages));
            }
            Next::Finish(note) => note,
        };
        let content = self.answer_text(content, note.as_deref());
        write_choice(choice, message, content, released, note.is_some())?;
        Ok(None)
    }

    /// The choice's text: earlier turns' text, this turn's, then the note.
    fn answer_text(&self, content: Option<String>, note: Option<&str>) -> Option<String> {
        let content = match content {
            _ if self.earlier_text.is_empty() => content,
            Some(text) => Some(format!("{}{text}", self.earlier_text)),
            None => Some(self.earlier_text.clone()),
        };
        let Some(note) = note else { return content };
        Some(match content.filter(|c| !c.trim().is_empty()) {
            Some(text) => format!("{text}\n\n{note}"),
            None => note.to_owned(),
        })
    }

    /// The upstream's last completion with the settled choices, the first turn's id and, after
    /// repair turns, the usage of all of them.
    fn answer(
        self,
        mut response: RawObject,
        choices: &[RawObject],
        status: StatusCode,
        headers: HeaderMap,
    ) -> Result<Completed, ProxyError> {
        openai::set(&mut response, "choices", choices).map_err(serde_error)?;
        if let Some(id) = self.first_id {
            response.insert("id".into(), id);
        }
        let turns = self.conversation.turn();
        if let Some(total) = self.conversation.usage().filter(|_| turns > 0) {
            openai::set(&mut response, "usage", total).map_err(serde_error)?;
        }
        let body = Bytes::from(serde_json::to_vec(&response).map_err(serde_error)?);
        Ok(Completed::Reply {
            status,
            headers,
            body,
        })
    }
}

/// Writes a settled choice: its text, its calls (none: the field goes), and a finish reason
/// when plaincall changed what the choice ends with.
fn write_choice(
    choice: &mut RawObject,
    mut message: RawObject,
    content: Option<String>,
    calls: Vec<ToolCall>,
    failed: bool,
) -> Result<(), ProxyError> {
    openai::set(&mut message, "content", &content).map_err(serde_error)?;
    if calls.is_empty() {
        message.shift_remove("tool_calls");
    } else {
        openai::set(&mut message, "tool_calls", &calls).map_err(serde_error)?;
    }
    if !calls.is_empty() || failed {
        let finish = Conversation::finish_reason(!calls.is_empty(), failed, None);
        openai::set(choice, "finish_reason", &finish).map_err(serde_error)?;
    }
    openai::set(choice, "message", &message).map_err(serde_error)
}

/// Whether a reply holds a call plaincall must handle (see [`is_nl_call`]), read in place:
/// only the calls' names and arguments are looked at, the rest (a long `content`, say) is
/// skipped without a copy. `true` when the reply does not parse this way, so that the full
/// parse reports it.
fn peek_has_nl_call(rewrite: &Rewrite, bytes: &[u8], split: bool) -> bool {
    use std::borrow::Cow;
    #[derive(serde::Deserialize)]
    struct Reply<'a> {
        #[serde(borrow, default)]
        choices: Vec<Choice<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Choice<'a> {
        #[serde(borrow, default)]
        message: Option<Message<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow, default)]
        tool_calls: Option<Vec<Call<'a>>>,
    }
    #[derive(serde::Deserialize)]
    struct Call<'a> {
        #[serde(borrow, default)]
        function: Option<Function<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Function<'a> {
        #[serde(borrow, default)]
        name: Cow<'a, str>,
        #[serde(borrow, default)]
        arguments: Cow<'a, str>,
    }
    let Ok(reply) = serde_json::from_slice::<Reply<'_>>(bytes) else {
        return true;
    };
    reply
        .choices
        .iter()
        .filter_map(|c| c.message.as_ref()?.tool_calls.as_ref())
        .flatten()
        .filter_map(|call| call.function.as_ref())
        .any(|f| {
            rewrite
                .tools
                .handled(&f.name)
                .is_some_and(|tool| split || read_call(tool, &f.arguments) != CallForm::Valid)
        })
}

fn choice_calls(choice: &RawObject) -> Vec<ToolCall> {
    openai::get::<RawObject>(choice, "message")
        .ok()
        .flatten()
        .and_then(|m| {
            openai::get::<Vec<ToolCall>>(&m, "tool_calls")
                .ok()
                .flatten()
        })
        .unwrap_or_default()
}

/// A call plaincall must handle: to a tool it handles, and not already valid real arguments
/// (any such call, when `split`: its actions are looked at).
fn is_nl_call(rewrite: &Rewrite, call: &ToolCall, split: bool) -> bool {
    rewrite
        .tools
        .handled(&call.function.name)
        .is_some_and(|tool| split || read_call(tool, &call.function.arguments) != CallForm::Valid)
}

/// The whole answer's renderer: what the assembly released, as the message's `tool_calls`.
fn collect(calls: &mut Vec<ToolCall>, released: Vec<Release>) {
    for release in released {
        match release {
            Release::Open { call, .. } => calls.push(call),
            Release::More { index, arguments } => {
                if let Some(call) = calls.get_mut(index) {
                    call.function.arguments.push_str(&arguments);
                }
            }
        }
    }
}
