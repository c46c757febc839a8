//! The driver, for every turn: it drives the upstream, the translations, the repair turns and the
//! usage once, and emits [`Event`]s. Every upstream turn reaches it as typed chunks
//! ([`Chunks`]: a stream's events, or a whole answer as one chunk), the first one opened here
//! (a rejection of native tools, an upstream error and a whole answer with nothing to handle
//! go back as they are), repair turns asked as the first was. The events go to a streaming client
//! as they come (content as it arrives; plain-English calls translated as soon as their
//! arguments are complete, while the upstream still streams), or fold into one completion for
//! a whole client ([`Completion`]). Until a call plaincall handles shows up, a stream's chunks
//! pass through as they came (scrubbed of the configured keys).

use std::sync::Arc;
use tracing::{Instrument, Span};

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, StatusCode};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::ProxyError;
use crate::openai::{self, RawObject, Usage};
use crate::pipe::assemble::{Assembly, Release};
use crate::pipe::call_form::{read_call, CallForm};
use crate::pipe::chunks::{ChoiceChunk, Chunk, Chunks, Piece};
use crate::pipe::conversation::{Conversation, Next};
use crate::pipe::engine::{Engine, Served};
use crate::pipe::event::{Completion, Event, Events, Part};
use crate::pipe::fold;
use crate::pipe::prompt_mode::holdback::HoldBack;
use crate::pipe::prompt_mode::PromptTools;
use crate::pipe::resolve::Resolver;
use crate::pipe::runaway::{Cut, Watch};
use crate::pipe::text_calls::{self, Opening};
use crate::pipe::warm::Warming;
use crate::pipe::{Pipe, Rewrite};
use crate::sse;
use crate::telemetry::spans::{self, Turn};
use crate::upstream::UpstreamResponse;

/// The largest main-model response read when plaincall must look inside it.
pub(crate) const RESPONSE_LIMIT: u64 = 64 * 1024 * 1024;
/// Events buffered towards a slow client before the upstream is read more slowly.
const CHANNEL_CAPACITY: usize = 32;
/// The most choices translated in one answer (OpenAI's own bound on `n`); an upstream's
/// choice past it goes on as it came.
const MAX_CHOICES: u64 = 128;

pub(crate) fn serde_error(error: serde_json::Error) -> ProxyError {
    ProxyError::Internal(format!("JSON: {error}"))
}

/// Appends `extra` messages to the request's `messages`, as text in prompt mode.
fn append_messages(
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

/// Serves a rewritten request: its first upstream turn here (a rejection of native tools, an
/// upstream error and an answer with nothing to handle go back as they are), the rest by the
/// [`Driver`] below.
pub(crate) async fn serve(
    engine: Arc<Engine>,
    mut rewrite: Rewrite,
    headers: HeaderMap,
) -> Result<Served, ProxyError> {
    let sent = match rewrite.stream {
        true => Rewrite::turn_bytes(&mut rewrite.original, &rewrite.body),
        false => {
            let original = rewrite.original.take();
            whole_turn_bytes(&engine, &rewrite, &rewrite.body, original)
        }
    }
    .map_err(serde_error)?;
    // Before the main model is asked, so that the translator reads while it writes.
    let warming = Warming::start(&engine, rewrite.tools.rewritten());
    match rewrite.stream {
        true => serve_stream(engine, rewrite, headers, sent, warming).await,
        false => serve_whole(engine, rewrite, headers, sent, warming).await,
    }
}

/// The first turn of a client that reads a whole answer: read whole (folded, when it may run
/// away), then driven as one chunk when it holds something to handle.
async fn serve_whole(
    engine: Arc<Engine>,
    rewrite: Rewrite,
    headers: HeaderMap,
    sent: Bytes,
    warming: Warming,
) -> Result<Served, ProxyError> {
    let (status, upstream_headers, bytes) =
        ask_whole(&engine, sent.clone(), &rewrite, &headers, Turn::Main).await?;
    let as_read = |body| Served::AsRead {
        status,
        headers: upstream_headers.clone(),
        body,
    };
    if !status.is_success() {
        if rewrite.watch_rejection
            && crate::pipe::prompt_mode::rejects_tools(status.as_u16(), &bytes, &sent)
        {
            return Ok(Served::ToolsRejected);
        }
        // The upstream's own errors reach the client unchanged.
        return Ok(as_read(bytes));
    }
    // Most replies need no change: found without copying the body, they go out as read.
    let split = engine.pipe.settings().split_actions;
    if rewrite.prompt.is_none()
        && !peek_has_nl_call(
            &engine.pipe,
            &rewrite,
            &bytes,
            split,
            rewrite.text_calls.as_deref(),
        )
    {
        return Ok(as_read(bytes));
    }
    let first = Chunks::whole(&bytes)?;
    let (outcome, completion) = fold_answer(engine, rewrite, headers, warming, first).await;
    match outcome {
        // Prompt mode with no call in the text: the answer goes on as it came.
        Ok(Folded::Unchanged) => Ok(as_read(bytes)),
        Ok(Folded::Changed) => Ok(Served::Whole {
            status,
            headers: upstream_headers,
            completion: completion.finish().map_err(serde_error)?,
        }),
        Err(Stop::Upstream(answer)) => {
            let (status, headers, body) = *answer;
            Ok(Served::AsRead {
                status,
                headers,
                body,
            })
        }
        Err(stop) => Err(stop.into_error()),
    }
}

/// How the drive of a whole answer ended.
enum Folded {
    /// Prompt mode found no call in the text: nothing of the answer changed.
    Unchanged,
    Changed,
}

/// Drives a whole client's answer from its first turn: the driver writes its events as for a
/// stream, and they fold into one completion as they come. The upstream's error event ends it
/// with an error.
async fn fold_answer(
    engine: Arc<Engine>,
    rewrite: Rewrite,
    headers: HeaderMap,
    warming: Warming,
    first: Chunks,
) -> (Result<Folded, Stop>, Completion) {
    let (tx, mut rx) = mpsc::channel::<Event>(CHANNEL_CAPACITY);
    let mut driver = Driver::new(engine, rewrite, headers, tx, false, warming);
    // The driver, and with it the sender, is dropped once it ends: the folding ends then.
    let driving = async move {
        let outcome = driver.drive(first).await;
        outcome.map(|()| match driver.changed_nothing() {
            true => Folded::Unchanged,
            false => Folded::Changed,
        })
    };
    let folding = async {
        let mut completion = Completion::default();
        let mut upstream_error = None;
        while let Some(event) = rx.recv().await {
            if let Event::UpstreamError(data) = &event {
                upstream_error = Some(data.clone());
            }
            completion.add(event);
        }
        (completion, upstream_error)
    };
    let (outcome, (completion, upstream_error)) = tokio::join!(driving, folding);
    let outcome = outcome.map_err(|stop| match (stop, upstream_error) {
        (Stop::UpstreamError, Some(data)) => Stop::Error(ProxyError::UpstreamProtocol(format!(
            "the upstream's stream ended with an error: {data}"
        ))),
        (stop, _) => stop,
    });
    (outcome, completion)
}

async fn serve_stream(
    engine: Arc<Engine>,
    rewrite: Rewrite,
    headers: HeaderMap,
    sent: Bytes,
    warming: Warming,
) -> Result<Served, ProxyError> {
    let (response, span) =
        open_stream(&engine, sent.clone(), &rewrite, &headers, Turn::Main).await?;
    if !response.status().is_success() && rewrite.watch_rejection {
        return Served::refusal(&engine.upstream, response, &sent).await;
    }
    if !response.status().is_success() || !sse::is_event_stream(response.headers()) {
        // Upstream errors (and a non-streamed answer) reach the client unchanged.
        return Ok(Served::Relay(response));
    }
    let (tx, rx) = mpsc::channel::<Event>(CHANNEL_CAPACITY);
    let on_panic = tx.clone();
    let mut driver = Driver::new(engine, rewrite, headers, tx, true, warming);
    driver.turn_span = span;
    // In the request's span, so its log lines (the per-translation one) carry the request id.
    tokio::spawn(guarded(driver.run(Chunks::stream(response)), on_panic).in_current_span());
    Ok(Served::Events(Events(rx)))
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

/// The bytes of a whole turn's request (`body`, or `original`, the client's own, when nothing
/// in it changed): asking for a stream when the turn is folded ([`folds`]).
fn whole_turn_bytes(
    engine: &Engine,
    rewrite: &Rewrite,
    body: &RawObject,
    mut original: Option<Bytes>,
) -> Result<Bytes, serde_json::Error> {
    if folds(engine, rewrite) {
        return fold::streamed(body);
    }
    Rewrite::turn_bytes(&mut original, body)
}

/// Whether a whole turn is asked as a stream and folded: when it is watched for runaway
/// descriptions and the watch is on (`translation.description_limit`).
fn folds(engine: &Engine, rewrite: &Rewrite) -> bool {
    engine.config.translation.description_limit > 0 && watches(rewrite)
}

/// One whole upstream turn, in its own `chat` span, its `bytes` from [`whole_turn_bytes`]. A
/// turn that may call a rewritten tool is asked as a stream and folded ([`fold`]), so that a
/// description that runs away is cut ([`Watch`]) rather than waited for.
async fn ask_whole(
    engine: &Engine,
    bytes: Bytes,
    rewrite: &Rewrite,
    client_headers: &HeaderMap,
    turn: Turn,
) -> Result<(StatusCode, HeaderMap, Bytes), ProxyError> {
    if !folds(engine, rewrite) {
        return ask_once(engine, bytes, rewrite, client_headers, turn).await;
    }
    let span = spans::chat(&rewrite.model, "openai", turn);
    let watch = Watch::new(
        &engine.config.translation,
        Arc::clone(rewrite.evidence.text()),
    );
    let answer = ask_folded(engine, bytes, rewrite, client_headers, &watch)
        .instrument(span.clone())
        .await
        .inspect_err(|e| engine.metrics.upstream_error(e.code()));
    record_answer(&span, &answer);
    answer
}

/// One whole turn asked as it is, unwatched (the first turn where nothing can run away, the
/// direct ask): its answer or error recorded on the turn's span and counted.
pub(crate) async fn ask_once(
    engine: &Engine,
    bytes: Bytes,
    rewrite: &Rewrite,
    client_headers: &HeaderMap,
    turn: Turn,
) -> Result<(StatusCode, HeaderMap, Bytes), ProxyError> {
    let span = spans::chat(&rewrite.model, "openai", turn);
    let answer = async {
        let request = engine.upstream.post_turn(
            "chat/completions",
            rewrite.query.as_deref(),
            bytes,
            client_headers,
            engine.forward_client_auth(),
        )?;
        engine.upstream.send_and_read(request, RESPONSE_LIMIT).await
    }
    .instrument(span.clone())
    .await
    .inspect_err(|e| engine.metrics.upstream_error(e.code()));
    record_answer(&span, &answer);
    answer
}

fn record_answer(
    span: &tracing::Span,
    answer: &Result<(StatusCode, HeaderMap, Bytes), ProxyError>,
) {
    match answer {
        Ok((status, _, body)) if status.is_success() => spans::record_completion(span, body),
        Ok((status, _, _)) => {
            spans::record_error(span, status.as_str(), &format!("HTTP {}", status.as_u16()))
        }
        Err(error) => spans::record_error(span, error.code(), &error.detail()),
    }
}

/// Whether a turn is watched for runaway descriptions: one that may call a rewritten tool
/// natively (prompt mode's calls are text).
fn watches(rewrite: &Rewrite) -> bool {
    rewrite.prompt.is_none() && rewrite.tools.rewritten().next().is_some()
}

/// A whole turn asked as a stream and folded into the answer the upstream would have sent; an
/// upstream that answers whole anyway, or with an error, is read as it answered.
async fn ask_folded(
    engine: &Engine,
    bytes: Bytes,
    rewrite: &Rewrite,
    client_headers: &HeaderMap,
    watch: &Watch,
) -> Result<(StatusCode, HeaderMap, Bytes), ProxyError> {
    let upstream = &engine.upstream;
    let request = post_streamed(engine, bytes, rewrite, client_headers)?;
    let response = upstream.send(request).await?;
    let status = response.status();
    if !status.is_success() || !sse::is_event_stream(response.headers()) {
        let headers = response.headers().clone();
        let body = upstream.read_limited(response, RESPONSE_LIMIT).await?;
        return Ok((status, headers, body));
    }
    let headers = fold::whole_headers(response.headers().clone());
    let (body, cut) = fold::read(upstream, response, watch, &rewrite.tools, RESPONSE_LIMIT).await?;
    if let Some((tool, cut)) = cut {
        cut_said(engine, &tool, &cut);
    }
    Ok((status, headers, body))
}

/// Says at INFO, and counts, that a turn was cut for a runaway description.
fn cut_said(engine: &Engine, tool: &str, cut: &Cut) {
    let why = cut.why.label();
    engine
        .metrics
        .turns_cut
        .get_or_create(&crate::metrics::WhyLabel { why })
        .inc();
    tracing::info!(
        tool,
        why,
        written_chars = cut.written,
        kept_chars = cut.text.chars().count(),
        "the main model's description ran away: its turn is cut and what it wrote is translated"
    );
}

/// A main-model turn's request that asks for an event stream.
fn post_streamed(
    engine: &Engine,
    body: Bytes,
    rewrite: &Rewrite,
    client_headers: &HeaderMap,
) -> Result<crate::upstream::UpstreamRequest, ProxyError> {
    let mut request = engine.upstream.post_turn(
        "chat/completions",
        rewrite.query.as_deref(),
        body,
        client_headers,
        engine.forward_client_auth(),
    )?;
    request.headers_mut().insert(
        header::ACCEPT,
        HeaderValue::from_static("text/event-stream"),
    );
    Ok(request)
}

/// Opens a streamed upstream turn; its `chat` span goes on until the stream is read.
async fn open_stream(
    engine: &Engine,
    bytes: Bytes,
    rewrite: &Rewrite,
    headers: &HeaderMap,
    turn: Turn,
) -> Result<(UpstreamResponse, Span), ProxyError> {
    let span = spans::chat(&rewrite.model, "openai", turn);
    let request = post_streamed(engine, bytes, rewrite, headers)?;
    let response = engine
        .upstream
        .send(request)
        .instrument(span.clone())
        .await
        .inspect_err(|e| {
            engine.metrics.upstream_error(e.code());
            spans::record_error(&span, e.code(), &e.detail());
        })?;
    if !response.status().is_success() {
        let status = response.status();
        spans::record_error(&span, status.as_str(), &format!("HTTP {}", status.as_u16()));
    }
    Ok((response, span))
}

/// Whether a reply holds a call plaincall must handle (see [`is_nl_call`]), or, given
/// `text_calls`, text that opens with a call written as text ([`text_calls`]), read in place:
/// only the calls' names and arguments (and the text's opening) are looked at, the rest is
/// skipped without a copy. `true` when the reply does not parse this way, so that the full
/// parse reports it.
fn peek_has_nl_call(
    pipe: &Pipe,
    rewrite: &Rewrite,
    bytes: &[u8],
    split: bool,
    text_calls: Option<&PromptTools>,
) -> bool {
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
        #[serde(borrow, default)]
        content: Option<Cow<'a, str>>,
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
    let opens_text_call = |text: &str| {
        !text.trim().is_empty()
            && text_calls.is_some_and(|tools| {
                text_calls::opening(text, &|name| tools.knows(name)) != Opening::Text
            })
    };
    let messages = || reply.choices.iter().filter_map(|c| c.message.as_ref());
    messages()
        .filter_map(|m| m.tool_calls.as_ref())
        .flatten()
        .filter_map(|call| call.function.as_ref())
        .any(|f| is_nl_call(pipe, rewrite, &f.name, &f.arguments, split))
        || messages()
            .filter_map(|m| m.content.as_deref())
            .any(opens_text_call)
}

/// A call plaincall must handle: to a tool it handles, and not already valid real arguments
/// that grounding lets go as they are ([`crate::pipe::translate::OwnGrounding::goes_changed`];
/// any such call, when `split`: its actions are looked at).
fn is_nl_call(pipe: &Pipe, rewrite: &Rewrite, name: &str, arguments: &str, split: bool) -> bool {
    rewrite.tools.handled(name).is_some_and(|tool| {
        split
            || read_call(tool, arguments, &pipe.settings().timezone) != CallForm::Valid
            || serde_json::from_str(arguments).is_ok_and(|args| {
                pipe.ground_own(tool, &args, &rewrite.evidence)
                    .is_some_and(|own| own.goes_changed(tool))
            })
    })
}

/// Why the driver stops early.
enum Stop {
    ClientGone,
    Error(ProxyError),
    /// The upstream sent its own error event, already forwarded.
    UpstreamError,
    /// A repair turn got an error answer: a whole client gets it as it came, a stream ends
    /// with an error event.
    Upstream(Box<(StatusCode, HeaderMap, Bytes)>),
}

impl Stop {
    /// The stop as plaincall's error, for a client that cannot get the upstream's own.
    fn into_error(self) -> ProxyError {
        match self {
            Stop::Error(error) => error,
            Stop::ClientGone => ProxyError::Internal("the answer's events were dropped".into()),
            Stop::UpstreamError => {
                ProxyError::UpstreamProtocol("the upstream's stream ended with an error".into())
            }
            Stop::Upstream(answer) => ProxyError::UpstreamProtocol(format!(
                "the repair turn got HTTP {} from the upstream",
                answer.0.as_u16()
            )),
        }
    }
}

/// What one upstream turn said besides its choices.
#[derive(Default)]
struct TurnState {
    usage: Option<Usage>,
    /// The model the upstream says answered (read only while the turn's span records).
    model: Option<String>,
}

/// One choice over the whole answer: its calls, and what its turns said.
struct ChoiceState {
    /// The calls, assembled and resolved the same way for both renderings.
    assembly: Assembly,
    /// This turn's text.
    content: String,
    /// This turn's finish reason, as the upstream gave it.
    finish: Option<String>,
    /// Prompt mode: this turn's text held back once it may hold a call; native mode: its
    /// opening, while it may be a call written as text.
    holdback: HoldBack,
    /// Native mode: what this turn's text opens with ([`text_calls`]).
    opening: Opening,
    /// Text other than white space went to the client.
    wrote_text: bool,
    role_sent: bool,
}

struct Driver {
    engine: Arc<Engine>,
    resolver: Resolver,
    /// Where the events go: to the client's stream, or folded into its whole answer.
    out: mpsc::Sender<Event>,
    /// The client reads the answer as a stream (else whole): what it is told of the usage,
    /// and whether the upstream's chunks may go on as they came.
    streams: bool,
    prompt: Option<Arc<PromptTools>>,
    /// Native mode: the tools whose calls written as text are read as calls
    /// (`tool_calling.text_calls`).
    text_calls: Option<Arc<PromptTools>>,
    /// No call plaincall handles seen yet: a stream's events go out as they came (scrubbed of
    /// the configured keys).
    raw_mode: bool,
    /// By upstream choice index, created as they show up.
    choices: Vec<Option<ChoiceState>>,
    /// Repair turns, summed usage and the finish rule.
    conversation: Conversation,
    /// An envelope went out (the first chunk's, which carries the answer's id).
    envelope_sent: bool,
    /// A note about calls that could not be made went out.
    noted: bool,
    /// The translator prompts read ahead for this request.
    warming: Warming,
    /// The streamed turn being read: its `chat` span ends when the turn does.
    turn_span: Span,
    /// Cuts a description that runs away.
    watch: Watch,
}

impl Driver {
    fn new(
        engine: Arc<Engine>,
        rewrite: Rewrite,
        headers: HeaderMap,
        out: mpsc::Sender<Event>,
        streams: bool,
        warming: Warming,
    ) -> Driver {
        let conversation =
            Conversation::new(engine.config.translation.repair_turns).until(rewrite.deadline);
        let prompt = rewrite.prompt.clone();
        let watch = Watch::new(
            &engine.config.translation,
            Arc::clone(rewrite.evidence.text()),
        );
        // A whole answer reaches the driver only when it has something to handle.
        let raw_mode = prompt.is_none() && streams;
        let text_calls = rewrite.text_calls.clone();
        Driver {
            resolver: Resolver {
                engine: engine.clone(),
                rewrite: Arc::new(rewrite),
                headers: Arc::new(headers),
            },
            engine,
            out,
            streams,
            prompt,
            text_calls,
            raw_mode,
            choices: Vec::new(),
            conversation,
            envelope_sent: false,
            noted: false,
            warming,
            turn_span: Span::none(),
            watch,
        }
    }

    /// Nothing of the answer changed: one turn, no call released, no note.
    fn changed_nothing(&self) -> bool {
        self.conversation.turn() == 0
            && !self.noted
            && self
                .choices
                .iter()
                .flatten()
                .all(|c| c.assembly.released() == 0)
    }

    /// A stream's task: the driver, its shutdown, and how it ends.
    async fn run(mut self, first: Chunks) {
        let drain = self.engine.drain.clone();
        let outcome = tokio::select! {
            outcome = self.drive(first) => outcome,
            () = drain.expired() => Err(Stop::Error(ProxyError::ShuttingDown)),
        };
        match outcome {
            Ok(()) | Err(Stop::ClientGone) => {}
            Err(Stop::UpstreamError) => self.engine.metrics.stream_error("upstream_error_event"),
            Err(stop) => self.fail(stop.into_error()).await,
        }
    }

    async fn fail(&mut self, error: ProxyError) {
        self.engine.metrics.stream_error(error.code());
        tracing::warn!(code = error.code(), %error, "stream ended with an error");
        let _ = self.send(Event::Error(error)).await;
    }

    /// Every upstream turn of the answer, then its end.
    async fn drive(&mut self, first: Chunks) -> Result<(), Stop> {
        let mut next = first;
        let mut body = self.resolver.rewrite.body.clone();
        let every = self.engine.config.translation.keepalive_interval;
        // The first comment one interval in, not at once.
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let mut turn = TurnState::default();
            let single = self.resolver.rewrite.choices <= 1;
            let left = self.conversation.repair_left(single);
            self.resolver.rewrite.tried.set_repair_left(left);
            let read = self.read_turn(&mut next, &mut turn, &mut ticker).await;
            self.end_turn_span(&turn, read.as_ref().err());
            read?;
            if self.raw_mode {
                // No call to handle at all: everything, `[DONE]` included, went out as is.
                return Ok(());
            }
            self.finish_turn(&mut ticker).await?;
            self.conversation.add_usage(turn.usage.take());
            let single = self.choices.len() <= 1;
            let mut notes = Vec::with_capacity(self.choices.len());
            let mut repair = None;
            for state in self.choices.iter_mut() {
                let Some(state) = state.as_mut() else {
                    notes.push(None);
                    continue;
                };
                let failed = state.assembly.failures();
                let content = (!state.content.is_empty()).then_some(state.content.as_str());
                match self.conversation.after_turn(content, failed, single) {
                    Next::Repair(messages) => {
                        state.assembly.next_turn();
                        state.content.clear();
                        state.finish = None;
                        state.holdback = HoldBack::default();
                        state.opening = Opening::Undecided;
                        repair = Some(messages);
                        break;
                    }
                    Next::Finish(note) => notes.push(note),
                }
            }
            let Some(messages) = repair else {
                return self.finish_answer(notes).await;
            };
            self.engine.metrics.repair_turns.inc();
            append_messages(&mut body, &messages, self.prompt.is_some()).map_err(Stop::Error)?;
            // plaincall asked for this turn: it bounds what the turn may write.
            let cap = u64::from(self.engine.config.translation.repair_max_tokens);
            openai::cap_tokens(&mut body, cap).map_err(|e| Stop::Error(serde_error(e)))?;
            tracing::info!(
                turn = self.conversation.turn(),
                "translation failed or needs clarification; asking the main model again"
            );
            next = self.reopen(&body).await?;
        }
    }

    /// Ends the streamed turn's span with what the turn said of itself.
    fn end_turn_span(&mut self, turn: &TurnState, failed: Option<&Stop>) {
        let span = std::mem::replace(&mut self.turn_span, Span::none());
        if span.is_disabled() {
            return;
        }
        if let Some(Stop::Error(error)) = failed {
            spans::record_error(&span, error.code(), &error.detail());
        }
        let reasons: Vec<String> = self
            .choices
            .iter()
            .flatten()
            .filter_map(|c| c.finish.clone())
            .collect();
        let tokens = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        spans::record_answer(
            &span,
            turn.model.as_deref(),
            None,
            turn.usage.as_ref().map(|u| tokens(u.prompt_tokens)),
            turn.usage.as_ref().map(|u| tokens(u.completion_tokens)),
            &reasons,
        );
    }

    /// A repair turn, asked as the first turn was (a whole client's as a stream when watched,
    /// its answer folded from the driver's events); an upstream that answers whole is read as
    /// one chunk.
    async fn reopen(&mut self, body: &RawObject) -> Result<Chunks, Stop> {
        let rewrite = &self.resolver.rewrite;
        let headers = &self.resolver.headers;
        let bytes = match self.streams {
            true => openai::to_bytes(body),
            // As the first turn was asked: a stream when it is watched for runaways, whole
            // when the watch is off (`description_limit = 0`, an upstream that cannot stream).
            false => whole_turn_bytes(&self.engine, rewrite, body, None),
        }
        .map_err(|e| Stop::Error(serde_error(e)))?;
        let (response, span) = open_stream(&self.engine, bytes, rewrite, headers, Turn::Repair)
            .await
            .map_err(Stop::Error)?;
        let upstream = &self.engine.upstream;
        let status = response.status();
        if status.is_success() && sse::is_event_stream(response.headers()) {
            self.turn_span = span;
            return Ok(Chunks::stream(response));
        }
        let upstream_headers = response.headers().clone();
        let bytes = upstream
            .read_limited(response, RESPONSE_LIMIT)
            .instrument(span.clone())
            .await
            .map_err(Stop::Error)?;
        if !status.is_success() {
            return Err(Stop::Upstream(Box::new((status, upstream_headers, bytes))));
        }
        spans::record_completion(&span, &bytes);
        Chunks::whole(&bytes).map_err(Stop::Error)
    }

    /// Reads one upstream turn to its end, passing on what can go now.
    async fn read_turn(
        &mut self,
        chunks: &mut Chunks,
        turn: &mut TurnState,
        ticker: &mut tokio::time::Interval,
    ) -> Result<(), Stop> {
        loop {
            let pending = self.pending_choice();
            tokio::select! {
                biased;
                () = self.out.closed() => return Err(Stop::ClientGone),
                settled = settle(&mut self.choices, pending) => {
                    settled.map_err(Stop::Error)?;
                    self.flush().await?;
                }
                piece = chunks.next(&self.engine.upstream) => {
                    match piece.map_err(Stop::Error)? {
                        Piece::Done => {
                            if self.raw_mode {
                                self.send(Event::Done).await?;
                            }
                            return Ok(());
                        }
                        Piece::UpstreamError(data) => {
                            let data = self.engine.secrets.scrub_known(Bytes::from(data));
                            let data = String::from_utf8_lossy(&data).into_owned();
                            self.send(Event::UpstreamError(data)).await?;
                            return Err(Stop::UpstreamError);
                        }
                        Piece::Chunk { chunk, data } => self.on_chunk(turn, *chunk, data).await?,
                    }
                    if self.cut_runaway() {
                        // The rest is not read: the upstream stops when it is left.
                        return Ok(());
                    }
                }
                _ = ticker.tick(), if pending.is_some() => self.send(Event::KeepAlive).await?,
            }
        }
    }

    /// Cuts the turn where a call's description ran away: the call keeps what was written,
    /// and its choice ends with its calls.
    fn cut_runaway(&mut self) -> bool {
        if self.raw_mode || !self.watch.enabled() {
            return false;
        }
        for state in self.choices.iter_mut().flatten() {
            let Some((tool, cut)) = state.assembly.cut_runaway(&self.watch) else {
                continue;
            };
            state.finish = Some("tool_calls".into());
            cut_said(&self.engine, &tool, &cut);
            return true;
        }
        false
    }

    /// The first choice with resolutions still running.
    fn pending_choice(&self) -> Option<usize> {
        self.choices
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.assembly.pending()))
    }

    /// One chunk of the turn; `data`, a streamed chunk's as it came, goes on untouched while
    /// there is nothing to handle.
    async fn on_chunk(
        &mut self,
        turn: &mut TurnState,
        chunk: Chunk,
        data: Option<String>,
    ) -> Result<(), Stop> {
        if let Some(usage) = chunk.typed_usage() {
            turn.usage = Some(usage);
        }
        if turn.model.is_none() && !self.turn_span.is_disabled() {
            turn.model = openai::get::<String>(&chunk.envelope, "model")
                .ok()
                .flatten();
        }
        let Chunk {
            envelope,
            choices,
            usage,
            whole,
        } = chunk;
        let raw = match data {
            Some(data)
                if self.raw_mode
                    && !choices
                        .iter()
                        .any(|c| self.opens_nl_call(c) || self.may_open_text_call(c)) =>
            {
                Some(data)
            }
            _ => None,
        };
        // The envelope of the answer's first chunk (its id), and of every chunk the driver
        // writes from.
        if raw.is_none() || !self.envelope_sent {
            self.envelope_sent = true;
            self.send(Event::Envelope(envelope)).await?;
        }
        if let Some(data) = raw {
            let mut parts = Vec::new();
            for choice in &choices {
                self.track_raw(choice, &mut parts)?;
            }
            parts.extend(usage.map(Part::Usage));
            let frame = Bytes::from(format!("data: {data}\n\n"));
            let frame = self.engine.secrets.scrub_known(frame);
            return self.send(Event::Passed { frame, parts }).await;
        }
        self.raw_mode = false;
        for choice in choices {
            self.on_choice(choice, whole).await?;
        }
        self.flush().await
    }

    /// The state of the choice at `index`, made on first sight; `None` past [`MAX_CHOICES`].
    fn choice(&mut self, index: u64) -> Option<&mut ChoiceState> {
        if index >= MAX_CHOICES {
            return None;
        }
        let index = index as usize;
        if self.choices.len() <= index {
            self.choices.resize_with(index + 1, || None);
        }
        let resolver = &self.resolver;
        Some(self.choices[index].get_or_insert_with(|| ChoiceState {
            assembly: Assembly::new(resolver.clone()),
            content: String::new(),
            finish: None,
            holdback: HoldBack::default(),
            opening: Opening::Undecided,
            wrote_text: false,
            role_sent: false,
        }))
    }

    /// One choice of a chunk (of a whole answer's, `whole`): its text goes on (held back in
    /// prompt mode), its calls are assembled, the rest of its delta goes on unchanged.
    async fn on_choice(&mut self, choice: ChoiceChunk, whole: bool) -> Result<(), Stop> {
        let ChoiceChunk {
            index,
            finish_reason,
            mut delta,
            content,
            calls,
            role,
            logprobs,
            raw: mut choice,
        } = choice;
        // Prompt mode holds a stream's text once it may hold a call, a whole answer's all of
        // it: parsed whole, as the model wrote it. Native mode holds an opening that may be a
        // call written as text.
        let text_calls = self.text_calls.clone();
        let hold = match (self.prompt.is_some(), whole, text_calls.as_deref()) {
            (false, _, None) => Hold::Nothing,
            (false, _, Some(tools)) => Hold::Opening(tools),
            (true, false, _) => Hold::FromMarker,
            (true, true, _) => Hold::All,
        };
        let Some(state) = self.choice(index) else {
            let parts = Vec::new();
            return self.send(Event::Choice { choice, parts }).await;
        };
        if finish_reason.is_some() {
            state.finish = finish_reason;
        }
        let sent = pass_text(state, &mut delta, content, hold).map_err(Stop::Error)?;
        // A repair turn's role delta would repeat the one already sent.
        if state.role_sent {
            delta.shift_remove("role");
        } else if role {
            state.role_sent = true;
        }
        let mut releases = Vec::new();
        for call in calls {
            if let Some(release) = state.assembly.push(call).map_err(Stop::Error)? {
                releases.push(release);
            }
        }
        if whole || delta.iter().any(|(_, v)| v.get() != "null") || logprobs {
            openai::set(&mut choice, "delta", &delta).map_err(|e| Stop::Error(serde_error(e)))?;
            openai::set(&mut choice, "finish_reason", &Value::Null)
                .map_err(|e| Stop::Error(serde_error(e)))?;
            // What the other formats read: the first choice's text.
            let parts = sent
                .filter(|_| index == 0)
                .map(Part::Text)
                .into_iter()
                .collect();
            self.send(Event::Choice { choice, parts }).await?;
        }
        self.send_releases(index, releases).await
    }

    /// Whether a raw choice's text, with what it wrote before, may open a call written as text
    /// ([`text_calls`]).
    fn may_open_text_call(&self, choice: &ChoiceChunk) -> bool {
        let (Some(tools), Some(text)) = (self.text_calls.as_deref(), choice.content.as_deref())
        else {
            return false;
        };
        let state = usize::try_from(choice.index)
            .ok()
            .and_then(|i| self.choices.get(i))
            .and_then(Option::as_ref);
        // Once a choice wrote text raw, nothing it writes later opens a call.
        if state.is_some_and(|s| s.opening == Opening::Text) {
            return false;
        }
        // White space alone opens nothing yet: it goes on. What went before is white space
        // too (else the opening would be text).
        if text.trim().is_empty() {
            return false;
        }
        text_calls::opening(text, &|name| tools.knows(name)) != Opening::Text
    }

    /// Whether a choice starts a call to a tool plaincall handles.
    fn opens_nl_call(&self, choice: &ChoiceChunk) -> bool {
        choice
            .calls
            .iter()
            .any(|call| call.name().is_some_and(|name| self.resolver.holds(name)))
    }

    /// Records calls that went out untouched, so that later indices follow on from them; the
    /// first choice's parts go into `parts`.
    fn track_raw(&mut self, choice: &ChoiceChunk, parts: &mut Vec<Part>) -> Result<(), Stop> {
        let first = choice.index == 0;
        let Some(state) = self.choice(choice.index) else {
            return Ok(());
        };
        if let Some(finish) = &choice.finish_reason {
            state.finish = Some(finish.clone());
        }
        state.role_sent |= choice.role;
        if let Some(text) = &choice.content {
            state.wrote_text |= !text.trim().is_empty();
            // Text that went on raw was no call's opening: later text of this turn is not
            // one either ("I would call {...}").
            if !text.trim().is_empty() {
                state.opening = Opening::Text;
            }
            state.content.push_str(text);
            if first && !text.is_empty() {
                parts.push(Part::Text(text.clone()));
            }
        }
        for (at, call) in choice.calls.iter().enumerate() {
            let delta = call.as_delta(at as u64);
            state.assembly.passed_as_is(&delta).map_err(Stop::Error)?;
            if first {
                parts.push(call.part(at as u64));
            }
        }
        if let (true, Some(finish)) = (first, &choice.finish_reason) {
            parts.push(Part::Finish(finish.clone()));
        }
        Ok(())
    }

    /// Sends every call that is ready, in upstream order.
    async fn flush(&mut self) -> Result<(), Stop> {
        for index in 0..self.choices.len() {
            let released = match self.choices[index].as_mut() {
                Some(state) => state.assembly.release(),
                None => continue,
            };
            self.send_releases(index as u64, released).await?;
        }
        Ok(())
    }

    /// What an assembly released, as call parts: a call's first carries its id and name,
    /// later ones only argument text.
    async fn send_releases(&mut self, choice: u64, released: Vec<Release>) -> Result<(), Stop> {
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
            self.send(Event::Part(choice, part)).await?;
        }
        Ok(())
    }

    /// After the upstream's last event: prompt mode's held text becomes calls and text; what
    /// is left is translated, waited for and emitted.
    async fn finish_turn(&mut self, ticker: &mut tokio::time::Interval) -> Result<(), Stop> {
        for index in 0..self.choices.len() {
            let Some(prompt) = self.prompt.clone().or_else(|| self.text_calls.clone()) else {
                break;
            };
            let Some(state) = self.choices[index].as_mut() else {
                continue;
            };
            let held = state.holdback.held().to_owned();
            if held.is_empty() {
                continue;
            }
            let native = self.prompt.is_none();
            let (content, mut calls) = prompt.parse(&held);
            let read = if native {
                let called = state.assembly.tool_names().next().is_some();
                let rewrite = &self.resolver.rewrite;
                let made_up = |call: &crate::openai::ToolCall| {
                    made_up_whole(&self.engine.pipe, rewrite, call)
                };
                native_text_calls(
                    &mut calls,
                    called,
                    &rewrite.tried,
                    &made_up,
                    &self.engine.metrics,
                )
            } else {
                !calls.is_empty()
            };
            // The turn's text, as a repair turn shows it back to the model, is what the client
            // got: a call read out of it is in its calls, not written twice. (What is held is
            // always the end of what the turn wrote.)
            if read && state.content.ends_with(held.as_str()) {
                let kept = state.content.len() - held.len();
                state.content.truncate(kept);
                state.content.push_str(&content);
            }
            let text = if read { content } else { held };
            state.wrote_text |= !text.trim().is_empty();
            for call in calls {
                state.assembly.push_call(call);
            }
            if !text.is_empty() {
                self.send(Event::Part(index as u64, Part::Text(text)))
                    .await?;
            }
        }
        // The prompts of tools not called need not be read.
        let called = self
            .choices
            .iter()
            .flatten()
            .flat_map(|c| c.assembly.tool_names());
        self.warming.keep_only(called);
        for state in self.choices.iter_mut().flatten() {
            state.assembly.input_done();
        }
        self.flush().await?;
        while let Some(pending) = self.pending_choice() {
            tokio::select! {
                biased;
                () = self.out.closed() => return Err(Stop::ClientGone),
                settled = settle(&mut self.choices, Some(pending)) => {
                    settled.map_err(Stop::Error)?;
                    self.flush().await?;
                }
                _ = ticker.tick() => self.send(Event::KeepAlive).await?,
            }
        }
        self.flush().await
    }

    /// Each choice's note and finish reason, the usage, the end.
    async fn finish_answer(&mut self, notes: Vec<Option<String>>) -> Result<(), Stop> {
        for (index, note) in notes.into_iter().enumerate() {
            let Some(state) = self.choices[index].as_ref() else {
                continue;
            };
            let finish = Conversation::finish_reason(
                state.assembly.released() > 0,
                note.is_some(),
                state.finish.as_deref(),
            );
            if let Some(note) = note.as_ref() {
                self.noted = true;
                // After the answer's own text, as a whole answer has it.
                let text = match state.wrote_text {
                    true => format!("\n\n{note}"),
                    false => note.clone(),
                };
                self.send(Event::Part(index as u64, Part::Text(text)))
                    .await?;
            }
            self.send(Event::Part(index as u64, Part::Finish(finish)))
                .await?;
        }
        let usage = match self.streams {
            true => self.resolver.rewrite.include_usage,
            // A whole answer keeps the upstream's usage unless there were repair turns.
            false => self.conversation.turn() > 0,
        };
        if let Some(total) = self.conversation.usage().filter(|_| usage) {
            let total = serde_json::to_value(total).map_err(|e| Stop::Error(serde_error(e)))?;
            self.send(Event::Part(0, Part::Usage(total))).await?;
        }
        self.send(Event::Done).await
    }

    async fn send(&mut self, event: Event) -> Result<(), Stop> {
        self.out.send(event).await.map_err(|_| Stop::ClientGone)
    }
}

/// What of a choice's text is held back to parse for calls.
#[derive(Clone, Copy)]
enum Hold<'a> {
    Nothing,
    /// Prompt mode, streamed: from the first thing that may start a call.
    FromMarker,
    /// Prompt mode, whole: all of it.
    All,
    /// Native mode: an opening that may be a call written as text to these tools, until it
    /// shows it is not.
    Opening(&'a PromptTools),
}

/// The delta's text as it may go now: all of it, or in prompt mode what cannot be a call.
/// Returns that text, when there is some.
fn pass_text(
    state: &mut ChoiceState,
    delta: &mut RawObject,
    content: Option<String>,
    hold: Hold,
) -> Result<Option<String>, ProxyError> {
    let Some(text) = content else {
        return Ok(None);
    };
    state.content.push_str(&text);
    let sent = match hold {
        // The delta keeps its text as it came.
        Hold::Nothing => {
            state.wrote_text |= !text.trim().is_empty();
            return Ok(Some(text));
        }
        Hold::FromMarker => state.holdback.push(&text),
        Hold::All => {
            state.holdback.hold_all(&text);
            String::new()
        }
        Hold::Opening(tools) => hold_opening(state, &text, tools),
    };
    state.wrote_text |= !sent.trim().is_empty();
    if sent.is_empty() {
        delta.shift_remove("content");
        return Ok(None);
    }
    openai::set(delta, "content", &sent).map_err(serde_error)?;
    Ok(Some(sent))
}

/// Native mode's hold of a call written as text: held while the opening may be one, all of it
/// once it is one (parsed at the turn's end), and on as it came, what was held first, once it
/// cannot be.
fn hold_opening(state: &mut ChoiceState, text: &str, tools: &PromptTools) -> String {
    match state.opening {
        Opening::Text => text.to_owned(),
        Opening::Call => {
            state.holdback.hold_all(text);
            String::new()
        }
        Opening::Undecided => {
            state.holdback.hold_all(text);
            state.opening = text_calls::opening(state.holdback.held(), &|n| tools.knows(n));
            match state.opening {
                Opening::Text => state.holdback.release(),
                Opening::Call | Opening::Undecided => String::new(),
            }
        }
    }
}

/// The next settled resolution of choice `pending`'s calls (never, without one).
async fn settle(
    choices: &mut [Option<ChoiceState>],
    pending: Option<usize>,
) -> Result<(), ProxyError> {
    match pending
        .and_then(|i| choices.get_mut(i))
        .and_then(Option::as_mut)
    {
        Some(state) => state.assembly.settle_next().await,
        None => std::future::pending().await,
    }
}

/// Native mode: which `calls` written as text become calls (`called`: the turn made native
/// calls). None beside native calls: a model that called natively meant those, and text
/// that writes a call out beside them repeats one (it is no answer either: the written
/// calls do not reach the client, the prose around them does). None to a tool already
/// objected to in this request: the text stays text, as the model alone would have left it
/// (told once that the user gave none of it, a model that writes it again gets no call
/// made of it).
/// None made up whole either (`made_up`): a call written as text that holds nothing the
/// user said, or only the schema's examples or names nobody wrote for what it requires, is
/// no call the model alone would have made (its text reaches the client as text), so no call
/// is made of it ("Hi" answered with a weather call for the schema's example city, "is it
/// sunny enough to hang the laundry out?" with one for London). Where the text holds other
/// calls too, only the made-up ones are dropped.
/// Returns whether the text was read: its written calls taken out of what the client
/// gets.
fn native_text_calls(
    calls: &mut Vec<crate::openai::ToolCall>,
    called: bool,
    tried: &crate::pipe::Tried,
    made_up: &dyn Fn(&crate::openai::ToolCall) -> bool,
    metrics: &crate::metrics::Metrics,
) -> bool {
    if calls.is_empty() {
        return false;
    }
    if calls.iter().any(|c| tried.objected_to(&c.function.name)) {
        tracing::info!(
            "the main model wrote again, as text, a call it was told the user gave nothing for: it stays text"
        );
        calls.clear();
        return false;
    }
    if !called && calls.iter().all(made_up) {
        tracing::info!(
            "the main model wrote as text a call the user gave nothing for: it stays text, as the model alone would have left it"
        );
        calls.clear();
        return false;
    }
    // Beside calls that hold what the user said, a made-up one is dropped, not made a call.
    calls.retain(|c| !made_up(c));
    if called {
        tracing::info!(
            calls = calls.len(),
            "the main model wrote calls as text beside its native calls: the written calls are dropped"
        );
        calls.clear();
    } else {
        metrics.text_calls.inc_by(calls.len() as u64);
        tracing::info!(
            calls = calls.len(),
            "the main model wrote its call as text: it is read as a call"
        );
    }
    true
}

/// Whether a call to a tool the main model sees in full holds nothing the conversation says,
/// or required values nobody said that are all the schema's own examples or names nobody
/// wrote ([`crate::pipe::Pipe::ground_own`]). A value worked out from the request ("radius
/// 5" for "a diameter of ten", "cargo test" for "run the tests") is no such call: it goes on
/// as a call, to its repair turn where it gets one. A rewritten tool's call is a
/// description, which its translation judges.
fn made_up_whole(
    pipe: &crate::pipe::Pipe,
    rewrite: &crate::pipe::Rewrite,
    call: &crate::openai::ToolCall,
) -> bool {
    let Some(tool) = rewrite
        .tools
        .handled(&call.function.name)
        .filter(|t| !t.rewritten)
    else {
        return false;
    };
    let Ok(args) = serde_json::from_str::<serde_json::Value>(&call.function.arguments) else {
        return false;
    };
    pipe.ground_own(tool, &args, &rewrite.evidence)
        .is_some_and(|own| own.for_another.is_some() || own.names_made_up)
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
