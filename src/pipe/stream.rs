//! The translation pipe over SSE. Content reaches the client as it arrives; tool calls are
//! assembled per `index`; plain-English calls are translated as soon as their arguments are
//! complete (while the upstream still streams) and emitted, in upstream order, in the chunk
//! shape OpenAI clients accumulate: the first delta of each call carries `id`, `type` and
//! `function.name`, indices are contiguous from 0. Failed translations run the repair turn
//! inside the same stream. Until a plain-English call shows up, events pass through untouched.

use std::sync::Arc;
use tracing::Instrument;

use axum::http::{header, HeaderMap};
use bytes::Bytes;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::error::ProxyError;
use crate::openai::{self, RawObject, Usage};
use crate::pipe::assemble::{Assembly, Release};
use crate::pipe::complete::{append_messages, serde_error};
use crate::pipe::conversation::{Conversation, Next};
use crate::pipe::engine::Engine;
use crate::pipe::engine::{Served, REJECTION_BODY_LIMIT};
use crate::pipe::event::{self, Event, Events, Part};
use crate::pipe::prompt_mode::holdback::HoldBack;
use crate::pipe::prompt_mode::PromptTools;
use crate::pipe::relay::{bytes_response, relay};
use crate::pipe::resolve::Resolver;
use crate::pipe::Rewrite;
use crate::sse;

/// The largest single SSE event accepted from the upstream.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;
/// Events buffered towards a slow client before the upstream is read more slowly.
const CHANNEL_CAPACITY: usize = 32;

pub(crate) async fn translate_stream(
    engine: Arc<Engine>,
    mut rewrite: Rewrite,
    headers: HeaderMap,
) -> Result<Served, ProxyError> {
    let sent = Rewrite::turn_bytes(&mut rewrite.original, &rewrite.body).map_err(serde_error)?;
    let response = open_stream(&engine, sent.clone(), rewrite.query.as_deref(), &headers).await?;
    if !response.status().is_success() && rewrite.watch_rejection {
        let status = response.status();
        let upstream_headers = response.headers().clone();
        let bytes = engine
            .upstream
            .read_limited(response, REJECTION_BODY_LIMIT)
            .await?;
        if crate::pipe::prompt_mode::rejects_tools(status.as_u16(), &bytes, &sent) {
            return Ok(Served::ToolsRejected);
        }
        return Ok(Served::Response(bytes_response(
            status,
            &upstream_headers,
            bytes,
            &engine.secrets,
        )));
    }
    if !response.status().is_success() || !is_event_stream(&response) {
        // Upstream errors (and a non-streamed answer) reach the client unchanged.
        return Ok(Served::Response(relay(
            &engine,
            response,
            ProxyError::chat_event,
        )));
    }
    let include_usage = include_usage(&rewrite.body);
    let repair_turns = engine.config.translation.repair_turns;
    let deadline = rewrite.deadline;
    let (tx, rx) = mpsc::channel::<Event>(CHANNEL_CAPACITY);
    let resolver = Resolver {
        engine: engine.clone(),
        rewrite: Arc::new(rewrite),
        headers: Arc::new(headers),
    };
    let translator = StreamTranslator {
        prompt: resolver.rewrite.prompt.clone(),
        raw_mode: resolver.rewrite.prompt.is_none(),
        assembly: Assembly::new(resolver.clone()),
        resolver,
        engine,
        tx,
        include_usage,
        conversation: Conversation::new(repair_turns).until(deadline),
        note: None,
        wrote_text: false,
        last_finish: None,
        role_sent: false,
        envelope_sent: false,
    };
    // In the request's span, so its log lines (the per-translation one) carry the request id.
    let on_panic = translator.tx.clone();
    tokio::spawn(guarded(translator.run(response), on_panic).in_current_span());
    Ok(Served::Events(Events(rx)))
}

/// Whether the request asked for the usage chunk at the end of a stream.
pub(crate) fn include_usage(body: &RawObject) -> bool {
    openai::get::<Value>(body, "stream_options")
        .ok()
        .flatten()
        .and_then(|o| o.get("include_usage").and_then(Value::as_bool))
        .unwrap_or(false)
}

/// A whole completion as the chunks a streaming client folds back into it: per choice its
/// role, text and calls, then its finish reason; the usage chunk when asked for; `[DONE]`.
pub(crate) fn as_chunks(completion: &[u8], include_usage: bool) -> Result<Bytes, ProxyError> {
    let mut whole: serde_json::Map<String, Value> = serde_json::from_slice(completion)
        .map_err(|e| ProxyError::UpstreamProtocol(format!("the completion is not JSON: {e}")))?;
    let choices = match whole.remove("choices") {
        Some(Value::Array(choices)) => choices,
        _ => Vec::new(),
    };
    let usage = whole.remove("usage");
    whole.insert("object".into(), json!("chat.completion.chunk"));
    let mut out = String::new();
    let mut chunk = |choices: Value, usage: Option<&Value>| {
        let mut chunk = whole.clone();
        chunk.insert("choices".into(), choices);
        if let Some(usage) = usage {
            chunk.insert("usage".into(), usage.clone());
        }
        out.push_str(&format!("data: {}\n\n", Value::Object(chunk)));
    };
    for choice in &choices {
        let index = choice.get("index").cloned().unwrap_or(json!(0));
        let mut delta = choice.get("message").cloned().unwrap_or(json!({}));
        if let Some(calls) = delta.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for (i, call) in calls.iter_mut().enumerate() {
                call["index"] = json!(i);
            }
        }
        chunk(
            json!([{"index": index, "delta": delta, "finish_reason": null}]),
            None,
        );
        let finish = choice.get("finish_reason").cloned().unwrap_or(Value::Null);
        chunk(
            json!([{"index": index, "delta": {}, "finish_reason": finish}]),
            None,
        );
    }
    if let (true, Some(usage)) = (include_usage, usage.as_ref()) {
        chunk(json!([]), Some(usage));
    }
    out.push_str("data: [DONE]\n\n");
    Ok(Bytes::from(out))
}

/// Runs a stream's task; should it panic, the stream still ends with an `error` event rather
/// than a silent cut, and the panic is logged.
async fn guarded(task: impl std::future::Future<Output = ()>, tx: mpsc::Sender<Event>) {
    use futures_util::FutureExt;
    if std::panic::AssertUnwindSafe(task)
        .catch_unwind()
        .await
        .is_err()
    {
        let error = ProxyError::Internal("the stream's task panicked".into());
        tracing::error!(
            code = error.code(),
            "a stream's task panicked; the stream ends with an error event"
        );
        let _ = tx.send(Event::Error(error)).await;
    }
}

async fn open_stream(
    engine: &Engine,
    bytes: Bytes,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<reqwest::Response, ProxyError> {
    let request = engine
        .upstream
        .post_turn(
            "chat/completions",
            query,
            bytes,
            headers,
            engine.forward_client_auth(),
        )?
        .header(header::ACCEPT, "text/event-stream");
    engine
        .upstream
        .send(request)
        .await
        .inspect_err(|e| engine.metrics.upstream_error(e.code()))
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// One upstream turn of the stream; its calls are in the translator's [`Assembly`].
#[derive(Default)]
struct Turn {
    content: String,
    finish: Option<String>,
    usage: Option<Usage>,
    done: bool,
    /// Prompt mode: reply text held back once it may hold a call.
    holdback: HoldBack,
}

struct StreamTranslator {
    engine: Arc<Engine>,
    resolver: Resolver,
    tx: mpsc::Sender<Event>,
    include_usage: bool,
    prompt: Option<Arc<PromptTools>>,
    /// No plain-English call seen yet: events go out exactly as they came.
    raw_mode: bool,
    /// The calls, assembled and resolved by the engine the whole answer uses too.
    assembly: Assembly,
    /// Repair turns, summed usage and the finish rule: shared with the non-streaming path.
    conversation: Conversation,
    /// What the client reads about calls that could not be made.
    note: Option<String>,
    /// Text other than white space went to the client.
    wrote_text: bool,
    last_finish: Option<String>,
    role_sent: bool,
    /// An envelope went out (the first chunk's, which carries the answer's id).
    envelope_sent: bool,
}

/// Why the stream stops early.
enum Stop {
    ClientGone,
    Error(ProxyError),
    /// The upstream sent its own error event, already forwarded.
    UpstreamError,
}

impl StreamTranslator {
    async fn run(mut self, first: reqwest::Response) {
        let drain = self.engine.drain.clone();
        let outcome = tokio::select! {
            outcome = self.drive(first) => outcome,
            () = drain.expired() => Err(Stop::Error(ProxyError::ShuttingDown)),
        };
        match outcome {
            Ok(()) | Err(Stop::ClientGone) => {}
            Err(Stop::UpstreamError) => self.engine.metrics.stream_error("upstream_error_event"),
            Err(Stop::Error(error)) => {
                self.engine.metrics.stream_error(error.code());
                tracing::warn!(code = error.code(), %error, "stream ended with an error");
                let _ = self.tx.send(Event::Error(error)).await;
            }
        }
    }

    async fn drive(&mut self, first: reqwest::Response) -> Result<(), Stop> {
        let mut response = first;
        let mut body = self.resolver.rewrite.body.clone();
        let every = self.engine.config.translation.keepalive_interval;
        // The first comment one interval in, not at once.
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let mut turn = Turn::default();
            self.read_turn(&mut response, &mut turn, &mut ticker)
                .await?;
            if self.raw_mode {
                // No plain-English call at all: everything, `[DONE]` included, went out as is.
                return Ok(());
            }
            self.finish_turn(&mut turn, &mut ticker).await?;
            let failed = self.assembly.failures();
            self.conversation.add_usage(turn.usage.take());
            self.last_finish = turn.finish.clone();
            let content = (!turn.content.is_empty()).then_some(turn.content.as_str());
            match self.conversation.after_turn(content, failed, true) {
                Next::Repair(messages) => {
                    self.engine.metrics.repair_turns.inc();
                    append_messages(&mut body, &messages, self.prompt.is_some())
                        .map_err(Stop::Error)?;
                    tracing::info!(
                        turn = self.conversation.turn(),
                        "translation failed or needs clarification; asking the main model again"
                    );
                    self.assembly.next_turn();
                    response = self.reopen(&body).await?;
                }
                Next::Finish(note) => {
                    self.note = note;
                    return self.finish_stream().await;
                }
            }
        }
    }

    /// The repair turn's stream.
    async fn reopen(&self, body: &RawObject) -> Result<reqwest::Response, Stop> {
        let bytes = Bytes::from(serde_json::to_vec(body).map_err(|e| Stop::Error(serde_error(e)))?);
        let query = self.resolver.rewrite.query.as_deref();
        let response = open_stream(&self.engine, bytes, query, &self.resolver.headers)
            .await
            .map_err(Stop::Error)?;
        if !response.status().is_success() || !is_event_stream(&response) {
            return Err(Stop::Error(ProxyError::UpstreamProtocol(format!(
                "the repair turn got HTTP {} from the upstream",
                response.status().as_u16()
            ))));
        }
        Ok(response)
    }

    /// Reads one upstream stream to its end, passing on what can go now.
    async fn read_turn(
        &mut self,
        response: &mut reqwest::Response,
        turn: &mut Turn,
        ticker: &mut tokio::time::Interval,
    ) -> Result<(), Stop> {
        let mut parser = sse::Parser::new(MAX_EVENT_BYTES);
        loop {
            tokio::select! {
                biased;
                () = self.tx.closed() => return Err(Stop::ClientGone),
                settled = self.assembly.settle_next(), if self.assembly.pending() => {
                    settled.map_err(Stop::Error)?;
                    self.flush().await?;
                }
                chunk = self.engine.upstream.next_chunk(response) => {
                    let chunk = chunk.map_err(Stop::Error)?;
                    let Some(chunk) = chunk else {
                        // A finish reason without `[DONE]` may still be cut before the
                        // usage chunk: only `[DONE]` says the stream is whole.
                        if turn.done {
                            return Ok(());
                        }
                        return Err(Stop::Error(ProxyError::UpstreamProtocol(
                            "the upstream's stream ended before its `[DONE]`".into(),
                        )));
                    };
                    let events = parser
                        .push(&chunk)
                        .map_err(|e| Stop::Error(ProxyError::UpstreamProtocol(e.to_string())))?;
                    for event in events {
                        self.on_event(turn, event).await?;
                        if turn.done {
                            return Ok(());
                        }
                    }
                }
                _ = ticker.tick(), if self.assembly.pending() => self.keep_alive().await?,
            }
        }
    }

    async fn on_event(&mut self, turn: &mut Turn, event: sse::Event) -> Result<(), Stop> {
        let data = event.data.trim();
        if data == "[DONE]" {
            turn.done = true;
            if self.raw_mode {
                self.send(Event::Done).await?;
            }
            return Ok(());
        }
        let chunk: RawObject = serde_json::from_str(data).map_err(|e| {
            Stop::Error(ProxyError::UpstreamProtocol(format!(
                "a stream chunk is not JSON: {e}"
            )))
        })?;
        if chunk.contains_key("error") || event.event.as_deref() == Some("error") {
            let data = self.engine.secrets.scrub_known(Bytes::from(event.data));
            let data = String::from_utf8_lossy(&data).into_owned();
            self.send(Event::UpstreamError(data)).await?;
            return Err(Stop::UpstreamError);
        }
        let choices: Vec<RawObject> = openai::get(&chunk, "choices")
            .map_err(|e| {
                Stop::Error(ProxyError::UpstreamProtocol(format!(
                    "`choices` is malformed: {e}"
                )))
            })?
            .unwrap_or_default();
        let usage = openai::get::<Value>(&chunk, "usage").ok().flatten();
        if let Some(usage) = usage.as_ref().filter(|u| u.is_object()) {
            turn.usage = serde_json::from_value::<Usage>(usage.clone()).ok();
        }
        let raw = self.raw_mode && !choices.iter().any(|c| self.opens_nl_call(c));
        // The envelope of the answer's first chunk (its id), and of every chunk the engine
        // writes from.
        if !raw || !self.envelope_sent {
            self.envelope_sent = true;
            let mut envelope = chunk;
            envelope.shift_remove("choices");
            self.send(Event::Envelope(envelope)).await?;
        }
        if raw {
            let mut parts = Vec::new();
            for choice in &choices {
                self.track_raw(turn, choice, &mut parts)?;
            }
            if let Some(usage) = usage.filter(|u| u.is_object()) {
                parts.push(Part::Usage(usage));
            }
            self.role_sent |= !choices.is_empty();
            let frame = Bytes::from(format!("data: {}\n\n", event.data));
            let frame = self.engine.secrets.scrub_known(frame);
            return self.send(Event::Passed { frame, parts }).await;
        }
        self.raw_mode = false;
        let is_usage_chunk = choices.is_empty();
        if is_usage_chunk {
            // Re-sent, summed, at the very end.
            return Ok(());
        }
        for choice in choices {
            self.on_choice(turn, choice).await?;
        }
        self.flush().await
    }

    /// One choice of a chunk: the first one's text goes on (held back in prompt mode), its
    /// call deltas are assembled; the others go on unchanged.
    async fn on_choice(&mut self, turn: &mut Turn, mut choice: RawObject) -> Result<(), Stop> {
        let index: u64 = openai::get(&choice, "index").ok().flatten().unwrap_or(0);
        if index != 0 {
            let parts = Vec::new();
            return self.send(Event::Choice { choice, parts }).await;
        }
        let mut delta: RawObject = openai::get(&choice, "delta")
            .ok()
            .flatten()
            .unwrap_or_default();
        let deltas: Vec<Value> = openai::get(&delta, "tool_calls")
            .ok()
            .flatten()
            .unwrap_or_default();
        delta.shift_remove("tool_calls");
        if let Ok(Some(finish)) = openai::get::<String>(&choice, "finish_reason") {
            turn.finish = Some(finish);
        }
        let sent = self.pass_text(turn, &mut delta)?;
        // A repair turn's role delta would repeat the one already sent.
        if self.role_sent {
            delta.shift_remove("role");
        } else if delta.contains_key("role") {
            self.role_sent = true;
        }
        let logprobs = openai::get::<Value>(&choice, "logprobs").ok().flatten();
        if delta.iter().any(|(_, v)| v.get() != "null") || logprobs.is_some() {
            openai::set(&mut choice, "delta", &delta).map_err(|e| Stop::Error(serde_error(e)))?;
            openai::set(&mut choice, "finish_reason", &Value::Null)
                .map_err(|e| Stop::Error(serde_error(e)))?;
            let parts = sent.into_iter().map(Part::Text).collect();
            self.send(Event::Choice { choice, parts }).await?;
        }
        for delta in deltas {
            if let Some(release) = self.assembly.push_delta(&delta).map_err(Stop::Error)? {
                self.send_releases(vec![release]).await?;
            }
        }
        Ok(())
    }

    /// The delta's text as it may go now: all of it, or in prompt mode what cannot be a call.
    /// Returns that text, when there is some.
    fn pass_text(
        &mut self,
        turn: &mut Turn,
        delta: &mut RawObject,
    ) -> Result<Option<String>, Stop> {
        let Ok(Some(text)) = openai::get::<String>(delta, "content") else {
            return Ok(None);
        };
        turn.content.push_str(&text);
        let sent = match self.prompt.is_some() {
            true => turn.holdback.push(&text),
            false => text,
        };
        self.wrote_text |= !sent.trim().is_empty();
        if sent.is_empty() {
            delta.shift_remove("content");
            return Ok(None);
        }
        openai::set(delta, "content", &sent).map_err(|e| Stop::Error(serde_error(e)))?;
        Ok(Some(sent))
    }

    /// Whether a choice starts a call to a rewritten tool.
    fn opens_nl_call(&self, choice: &RawObject) -> bool {
        let delta: Option<RawObject> = openai::get(choice, "delta").ok().flatten();
        let deltas: Vec<Value> = delta
            .and_then(|d| openai::get(&d, "tool_calls").ok().flatten())
            .unwrap_or_default();
        deltas.iter().any(|d| {
            d.pointer("/function/name")
                .and_then(Value::as_str)
                .is_some_and(|name| self.resolver.holds(name))
        })
    }

    /// Records calls that went out untouched, so that later indices follow on from them; the
    /// first choice's parts go into `parts`.
    fn track_raw(
        &mut self,
        turn: &mut Turn,
        choice: &RawObject,
        parts: &mut Vec<Part>,
    ) -> Result<(), Stop> {
        let first = openai::get::<u64>(choice, "index")
            .ok()
            .flatten()
            .unwrap_or(0)
            == 0;
        let finish = openai::get::<String>(choice, "finish_reason")
            .ok()
            .flatten();
        if let Some(finish) = &finish {
            turn.finish = Some(finish.clone());
        }
        let delta: Option<RawObject> = openai::get(choice, "delta").ok().flatten();
        if let Some(delta) = delta {
            if let Ok(Some(text)) = openai::get::<String>(&delta, "content") {
                self.wrote_text |= !text.trim().is_empty();
                turn.content.push_str(&text);
                if first && !text.is_empty() {
                    parts.push(Part::Text(text));
                }
            }
            let deltas: Vec<Value> = openai::get(&delta, "tool_calls")
                .ok()
                .flatten()
                .unwrap_or_default();
            for d in deltas {
                self.assembly.passed_as_is(&d).map_err(Stop::Error)?;
                if first {
                    parts.push(event::call_part(&d));
                }
            }
        }
        if let (true, Some(finish)) = (first, finish) {
            parts.push(Part::Finish(finish));
        }
        Ok(())
    }

    /// Sends every call that is ready, in upstream order.
    async fn flush(&mut self) -> Result<(), Stop> {
        let released = self.assembly.release();
        self.send_releases(released).await
    }

    /// The stream's renderer of what the assembly released: a call's first delta carries
    /// `id`, `type` and `function.name`; later ones only argument text.
    async fn send_releases(&mut self, released: Vec<Release>) -> Result<(), Stop> {
        for release in released {
            let part = match release {
                Release::Open { index, call } => Part::CallBegun {
                    index: index as u64,
                    id: call.id,
                    name: call.function.name,
                    arguments: call.function.arguments,
                },
                Release::More { index, arguments } => Part::CallArguments {
                    index: index as u64,
                    arguments,
                },
            };
            self.send(Event::Part(part)).await?;
        }
        Ok(())
    }

    /// Prompt mode: the held-back text becomes calls (as slots, in order) and text.
    async fn take_calls_from_text(
        &mut self,
        turn: &mut Turn,
        prompt: &PromptTools,
    ) -> Result<(), Stop> {
        let held = turn.holdback.held().to_owned();
        if held.is_empty() {
            return Ok(());
        }
        let (content, calls) = prompt.parse(&held);
        let text = if calls.is_empty() { held } else { content };
        self.wrote_text |= !text.trim().is_empty();
        if !text.is_empty() {
            self.send(Event::Part(Part::Text(text))).await?;
        }
        for call in calls {
            self.assembly.push_call(call);
        }
        Ok(())
    }

    /// After the upstream's last event: translate what is left, wait, emit.
    async fn finish_turn(
        &mut self,
        turn: &mut Turn,
        ticker: &mut tokio::time::Interval,
    ) -> Result<(), Stop> {
        if let Some(prompt) = self.prompt.clone() {
            self.take_calls_from_text(turn, &prompt).await?;
        }
        self.assembly.input_done();
        self.flush().await?;
        while self.assembly.pending() {
            tokio::select! {
                biased;
                () = self.tx.closed() => return Err(Stop::ClientGone),
                settled = self.assembly.settle_next() => {
                    settled.map_err(Stop::Error)?;
                    self.flush().await?;
                }
                _ = ticker.tick() => self.keep_alive().await?,
            }
        }
        self.flush().await
    }

    async fn finish_stream(&mut self) -> Result<(), Stop> {
        if let Some(note) = &self.note {
            // After the answer's own text, as the whole (non-streamed) answer has it.
            let text = match self.wrote_text {
                true => format!("\n\n{note}"),
                false => note.clone(),
            };
            self.send(Event::Part(Part::Text(text))).await?;
        }
        let finish = Conversation::finish_reason(
            self.assembly.released() > 0,
            self.note.is_some(),
            self.last_finish.as_deref(),
        );
        self.send(Event::Part(Part::Finish(finish.to_owned())))
            .await?;
        if self.include_usage {
            if let Some(usage) = self.conversation.usage() {
                let usage = serde_json::to_value(usage).map_err(|e| Stop::Error(serde_error(e)))?;
                self.send(Event::Part(Part::Usage(usage))).await?;
            }
        }
        self.send(Event::Done).await
    }

    async fn keep_alive(&mut self) -> Result<(), Stop> {
        self.send(Event::KeepAlive).await
    }

    async fn send(&mut self, event: Event) -> Result<(), Stop> {
        self.tx.send(event).await.map_err(|_| Stop::ClientGone)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[tokio::test]
    async fn a_panicking_stream_task_ends_with_an_error_event() {
        let (tx, mut rx) = mpsc::channel(4);
        let sender = tx.clone();
        guarded(
            async move {
                let _ = sender.send(Event::KeepAlive).await;
                panic!("a bug");
            },
            tx,
        )
        .await;
        assert!(matches!(rx.recv().await.unwrap(), Event::KeepAlive));
        match rx.recv().await.unwrap() {
            Event::Error(error) => assert_eq!(error.code(), "internal_error"),
            other => panic!("{other:?}"),
        }
    }
}
