//! Traces ([telemetry]): the real binary exports OTLP/HTTP protobuf to a collector on
//! loopback, decoded here with the OTLP protobuf types. A translated request is one trace, from
//! the client's `traceparent` through the upstream and translator requests; content stays off
//! spans unless asked for, and is scrubbed when it is on; a slow or absent collector never
//! holds a request, and what does not fit the queue is dropped and counted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use prost::Message;
use serde_json::{json, Value};

use crate::support::{
    self, calls_message, client, completion, fixture_tool, nl_call, translator_reply, MockServer,
    Recorded, Reply, Served,
};

const CLIENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const UPSTREAM_KEY: &str = "sk-upstream-key-0123456789abcdef";

/// One exported span, flattened.
#[derive(Debug, Clone)]
struct Span {
    name: String,
    trace: String,
    id: String,
    parent: String,
    kind: i32,
    /// OTLP's status code: 0 unset, 1 ok, 2 error.
    status: i32,
    attributes: BTreeMap<String, String>,
    events: Vec<(String, BTreeMap<String, String>)>,
}

impl Span {
    fn attr(&self, key: &str) -> &str {
        self.attributes
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("{} has no `{key}`: {:?}", self.name, self.attributes))
    }
}

fn text(value: Option<&opentelemetry_proto::tonic::common::v1::AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(Any::StringValue(s)) => s.clone(),
        Some(Any::IntValue(n)) => n.to_string(),
        Some(Any::BoolValue(b)) => b.to_string(),
        Some(Any::DoubleValue(d)) => d.to_string(),
        Some(Any::ArrayValue(list)) => {
            let items: Vec<String> = list.values.iter().map(|v| text(Some(v))).collect();
            format!("[{}]", items.join(","))
        }
        _ => String::new(),
    }
}

fn attributes(
    list: &[opentelemetry_proto::tonic::common::v1::KeyValue],
) -> BTreeMap<String, String> {
    list.iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every span the collector received so far.
fn spans(collector: &MockServer) -> Vec<Span> {
    let mut all = Vec::new();
    for request in collector.requests() {
        assert_eq!(request.path, "/v1/traces");
        assert_eq!(
            request.headers["content-type"], "application/x-protobuf",
            "OTLP/HTTP protobuf"
        );
        let export =
            ExportTraceServiceRequest::decode(request.body.as_ref()).expect("OTLP protobuf");
        for resource in export.resource_spans {
            let service = resource
                .resource
                .as_ref()
                .map(|r| attributes(&r.attributes))
                .unwrap_or_default();
            assert_eq!(
                service.get("service.name").map(String::as_str),
                Some("plaincall-test")
            );
            for scope in resource.scope_spans {
                for span in scope.spans {
                    all.push(Span {
                        name: span.name,
                        trace: hex(&span.trace_id),
                        id: hex(&span.span_id),
                        parent: hex(&span.parent_span_id),
                        kind: span.kind,
                        status: span.status.map_or(0, |s| s.code),
                        attributes: attributes(&span.attributes),
                        events: span
                            .events
                            .into_iter()
                            .map(|e| (e.name, attributes(&e.attributes)))
                            .collect(),
                    });
                }
            }
        }
    }
    all
}

/// Waits (10 s at most) until the collector holds spans for which `done` holds. Spans are
/// exported in the order they end, and a request's server span ends last: a test that waits
/// for it has every span of that request.
async fn wait_for(collector: &MockServer, done: impl Fn(&[Span]) -> bool) -> Vec<Span> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let all = spans(collector);
        if done(&all) {
            return all;
        }
        assert!(
            Instant::now() < deadline,
            "the spans did not arrive: {:#?}",
            all.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn one<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found = named(spans, name);
    assert_eq!(found.len(), 1, "one `{name}` span in {spans:#?}");
    found[0]
}

fn collector() -> impl Fn(&Recorded) -> Reply {
    |_| Reply::text(200, "")
}

/// `reply`, behind the empty model list plaincall's probes get.
fn models_or(
    reply: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
) -> impl Fn(&Recorded) -> Reply + Send + Sync + 'static {
    move |request| {
        if request.method == "GET" {
            return Reply::ok(json!({"object": "list", "data": []}));
        }
        reply(request)
    }
}

/// A collector on loopback, and plaincall tracing to it.
async fn traced_to_a_collector(main: &MockServer, translator: &MockServer) -> (MockServer, Served) {
    let collector = MockServer::start(collector()).await;
    let served = traced(main, translator, &format!("http://{}", collector.addr), &[]).await;
    (collector, served)
}

/// The request every test sends unless it needs another, whole.
async fn remind(served: &Served) -> (u16, Value) {
    post(
        served,
        &request(false, "remind me daily at 09:00 to check email"),
    )
    .await
}

/// A counter's value on plaincall's `/metrics` (0 before it is first counted).
async fn metric(served: &Served, name: &str) -> f64 {
    let text = client()
        .get(served.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0.0, |v| v.parse().unwrap())
}

/// The main model describes a set_reminder call (streamed when asked, with the usage when asked
/// for it); plaincall's probes get
/// an empty model list.
fn main_model(description: &'static str) -> impl Fn(&Recorded) -> Reply {
    move |request| {
        if request.method == "GET" {
            return Reply::ok(json!({"object": "list", "data": []}));
        }
        let call = nl_call("call_1", "set_reminder", description);
        if request.json()["stream"] == true {
            let mut delta = call.clone();
            delta["index"] = json!(0);
            let chunk = |delta: Value, finish: Option<&str>| {
                json!({"id": "c", "object": "chat.completion.chunk", "created": 1,
                    "model": "main-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            };
            let mut chunks = vec![
                chunk(
                    json!({"role": "assistant", "content": null, "tool_calls": [delta]}),
                    None,
                ),
                chunk(json!({}), Some("tool_calls")),
            ];
            // As OpenAI sends it when asked: the usage in a last chunk with no choices.
            if request.json()["stream_options"]["include_usage"] == true {
                chunks.push(
                    json!({"id": "c", "object": "chat.completion.chunk", "created": 1,
                    "model": "main-model", "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
                );
            }
            return Reply::sse(chunks);
        }
        Reply::ok(completion(calls_message(vec![call]), "tool_calls"))
    }
}

async fn translator(answer: Value) -> MockServer {
    MockServer::start(models_or(move |_: &Recorded| {
        translator_reply(&answer.to_string())
    }))
    .await
}

fn reminder_answer() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

/// plaincall with traces to `collector`, exported every 50 ms.
async fn traced(
    main: &MockServer,
    translator: &MockServer,
    collector: &str,
    extra: &[(&str, &str)],
) -> Served {
    let mut env = vec![
        ("PLAINCALL_UPSTREAM_URL", main.url()),
        ("PLAINCALL_UPSTREAM_API_KEY", UPSTREAM_KEY.to_owned()),
        ("PLAINCALL_TRANSLATOR_URL", translator.url()),
        ("PLAINCALL_TRANSLATOR_MODEL", "tiny".to_owned()),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.to_owned()),
        ("OTEL_SERVICE_NAME", "plaincall-test".to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "50".to_owned()),
    ];
    env.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Served::start(&env).await
}

fn request(stream: bool, user: &str) -> Value {
    json!({"model": "main", "stream": stream,
        "messages": [{"role": "user", "content": user}],
        "tools": [fixture_tool("set_reminder")]})
}

/// `traceparent`'s trace id and parent span id.
fn traceparent(recorded: &Recorded) -> (String, String) {
    let value = recorded.headers["traceparent"].to_str().unwrap().to_owned();
    let parts: Vec<&str> = value.split('-').collect();
    assert_eq!(parts.len(), 4, "{value}");
    (parts[1].to_owned(), parts[2].to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_translated_request_is_one_trace_from_the_clients_traceparent_to_the_translator() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let response = client()
        .post(served.url("/v1/chat/completions"))
        .header("traceparent", format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"))
        .json(&request(false, "remind me daily at 09:00 to check email"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "set_reminder"
    );

    let all = wait_for(&collector, |s| {
        !named(s, "POST /v1/chat/completions").is_empty() && !named(s, "chat tiny").is_empty()
    })
    .await;
    let server = one(&all, "POST /v1/chat/completions");
    let main_turn = one(&all, "chat main");
    let translation = one(&all, "translate set_reminder");
    let exchange = one(&all, "chat tiny");
    for span in [server, main_turn, translation, exchange] {
        assert_eq!(
            span.trace, CLIENT_TRACE,
            "{} continues the client's trace",
            span.name
        );
    }
    // Parent to child: the client's span, the server span, the turn and the translation,
    // the translator's exchange.
    assert_eq!(server.parent, CLIENT_SPAN);
    assert_eq!(main_turn.parent, server.id);
    assert_eq!(translation.parent, server.id);
    assert_eq!(exchange.parent, translation.id);
    // SERVER, CLIENT, INTERNAL, CLIENT in OTLP's numbering.
    assert_eq!(
        (server.kind, main_turn.kind, translation.kind, exchange.kind),
        (2, 3, 1, 3)
    );

    assert_eq!(server.attr("http.response.status_code"), "200");
    assert_eq!(server.attr("http.route"), "/v1/chat/completions");
    assert_eq!(main_turn.attr("gen_ai.operation.name"), "chat");
    assert_eq!(main_turn.attr("gen_ai.provider.name"), "openai");
    assert_eq!(main_turn.attr("gen_ai.request.model"), "main");
    assert_eq!(main_turn.attr("gen_ai.response.model"), "main-model");
    assert_eq!(main_turn.attr("gen_ai.usage.input_tokens"), "10");
    assert_eq!(main_turn.attr("gen_ai.usage.output_tokens"), "5");
    assert_eq!(
        main_turn.attr("gen_ai.response.finish_reasons"),
        "[tool_calls]"
    );
    assert_eq!(main_turn.attr("plaincall.turn"), "main");
    assert_eq!(translation.attr("gen_ai.tool.name"), "set_reminder");
    assert_eq!(translation.attr("plaincall.translation.outcome"), "ok");
    assert_eq!(translation.attr("plaincall.translation.attempts"), "1");
    assert_eq!(translation.attr("plaincall.translation.calls"), "1");
    assert!(
        translation
            .events
            .iter()
            .any(|(name, a)| name == "grounding"
                && a.get("plaincall.grounding.path").map(String::as_str) == Some("at")),
        "grounding's decisions are events: {:?}",
        translation.events
    );
    assert_eq!(exchange.attr("plaincall.turn"), "translator");
    assert_eq!(exchange.attr("gen_ai.request.model"), "tiny");
    assert_eq!(exchange.attr("gen_ai.response.finish_reasons"), "[stop]");
    // Content is opt-in.
    for span in &all {
        for key in span.attributes.keys() {
            assert!(
                !key.contains("messages")
                    && !key.contains("arguments")
                    && !key.contains("description"),
                "{} carries content without capture: {key}",
                span.name
            );
        }
    }
    // The upstream and the translator each see plaincall's span as their parent.
    let upstream_turn = main.chat_requests();
    assert_eq!(
        traceparent(&upstream_turn[0]),
        (CLIENT_TRACE.to_owned(), main_turn.id.clone())
    );
    let exchanges = translator.chat_requests();
    let translated = exchanges
        .iter()
        .find(|r| r.json()["max_tokens"] != 1)
        .expect("a translation");
    assert_eq!(
        traceparent(translated),
        (CLIENT_TRACE.to_owned(), exchange.id.clone())
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_streamed_translation_is_traced_the_same_way_and_its_turn_spans_the_stream() {
    let main = MockServer::start(main_model("daily at 09:00 to check email, streamed")).await;
    let translator = translator(reminder_answer()).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let response = client()
        .post(served.url("/v1/chat/completions"))
        .json(&request(true, "remind me daily at 09:00 to check email"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let folded = support::fold_stream(&response.text().await.unwrap());
    assert_eq!(folded["tool_calls"][0]["function"]["name"], "set_reminder");

    let all = wait_for(&collector, |s| {
        !named(s, "POST /v1/chat/completions").is_empty() && !named(s, "chat main").is_empty()
    })
    .await;
    let server = one(&all, "POST /v1/chat/completions");
    let main_turn = one(&all, "chat main");
    let translation = one(&all, "translate set_reminder");
    let exchange = one(&all, "chat tiny");
    // No traceparent from the client: plaincall's server span is the root.
    assert_eq!(server.parent, "");
    assert_ne!(server.trace, CLIENT_TRACE);
    assert_eq!(main_turn.parent, server.id);
    assert_eq!(translation.parent, server.id);
    assert_eq!(exchange.parent, translation.id);
    // Read from the stream's chunks, so recorded only once the stream was read.
    assert_eq!(main_turn.attr("gen_ai.response.model"), "main-model");
    assert_eq!(
        main_turn.attr("gen_ai.response.finish_reasons"),
        "[tool_calls]"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn content_goes_on_spans_only_when_asked_and_never_with_a_configured_key() {
    // The main model echoes the upstream's key into its description.
    let main = MockServer::start(main_model(
        "daily at 09:00 to check email, key sk-upstream-key-0123456789abcdef",
    ))
    .await;
    let translator = translator(reminder_answer()).await;
    let collector = MockServer::start(collector()).await;
    let served = traced(
        &main,
        &translator,
        &format!("http://{}", collector.addr),
        &[("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")],
    )
    .await;
    let (status, _) = remind(&served).await;
    assert_eq!(status, 200);
    // The server span ends last: with it, every span of the request is in.
    let all = wait_for(&collector, |s| {
        !named(s, "POST /v1/chat/completions").is_empty()
    })
    .await;
    let translation = one(&all, "translate set_reminder");
    let description = translation.attr("plaincall.translation.description");
    // What the translator was given: the user's latest message and the description.
    assert!(
        description.contains("Description: daily at 09:00 to check email"),
        "{description}"
    );
    assert!(description.contains("[redacted]"), "{description}");
    let arguments: Value =
        serde_json::from_str(translation.attr("gen_ai.tool.call.arguments")).unwrap();
    assert_eq!(arguments[0]["at"], "09:00");
    let exchange = one(&all, "chat tiny");
    assert!(exchange
        .attr("gen_ai.input.messages")
        .contains("check email"));
    assert!(exchange
        .attr("gen_ai.output.messages")
        .contains("Check email"));
    for span in &all {
        for (key, value) in &span.attributes {
            assert!(
                !value.contains(UPSTREAM_KEY),
                "{}.{key} holds the key",
                span.name
            );
        }
    }
    served.stop().await;
}

async fn post(served: &Served, body: &Value) -> (u16, Value) {
    let response = client()
        .post(served.url("/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_or_oversized_traceparent_starts_a_new_trace_and_is_no_error() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let long_state = format!("vendor={}", "x".repeat(600));
    let cases: [(&str, String); 3] = [
        ("traceparent", "00-not-a-trace-01".to_owned()),
        (
            "traceparent",
            format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01-{}", "f".repeat(200)),
        ),
        ("tracestate", long_state),
    ];
    for (header, value) in &cases {
        let mut request = client()
            .post(served.url("/v1/chat/completions"))
            .header(*header, value.as_str())
            .json(&request(false, "remind me daily at 09:00 to check email"));
        if *header == "tracestate" {
            request = request.header("traceparent", format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"));
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200, "{header}: {value}");
    }
    let all = wait_for(&collector, |s| {
        named(s, "POST /v1/chat/completions").len() == 3
    })
    .await;
    for server in named(&all, "POST /v1/chat/completions") {
        assert_eq!(server.parent, "", "a new trace");
        assert_eq!(server.status, 0, "not an error");
        assert_ne!(server.trace, CLIENT_TRACE);
        assert!(
            server.attributes.values().all(|v| v.len() <= 200),
            "{server:?}"
        );
    }
    // The upstream got plaincall's context, not the client's malformed one.
    for recorded in main.chat_requests() {
        let (trace, _) = traceparent(&recorded);
        assert_ne!(trace, CLIENT_TRACE);
        assert!(recorded
            .headers
            .get("tracestate")
            .is_none_or(|v| v.len() < 512));
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hung_collector_never_holds_a_request_and_spans_past_the_queue_are_dropped_and_counted() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    // Takes the export and never answers: the exporter waits out its timeout.
    let collector = MockServer::start(|_| Reply::Hang).await;
    let served = traced(
        &main,
        &translator,
        &format!("http://{}", collector.addr),
        &[
            ("OTEL_BSP_MAX_QUEUE_SIZE", "4"),
            ("PLAINCALL_TELEMETRY_EXPORT_TIMEOUT", "60s"),
        ],
    )
    .await;
    // A request makes four spans: after the first batch is stuck, the queue holds four more
    // and everything past it is dropped. Were a request to wait for the exporter, it would
    // wait the 60 s export timeout.
    let started = Instant::now();
    for _ in 0..6 {
        let (status, _) = remind(&served).await;
        assert_eq!(status, 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let name = "plaincall_trace_spans_dropped_total";
    support::eventually("spans dropped", async || metric(&served, name).await > 0.0).await;
    let dropped = metric(&served, name).await;
    // 24 spans made; at most one batch in flight and four queued.
    assert!(dropped >= 12.0, "dropped {dropped}");
    assert!(collector.requests().len() <= 1, "one export at a time");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_collector_that_is_gone_costs_requests_nothing() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    let gone = support::closed_address();
    let served = traced(&main, &translator, &format!("http://{gone}"), &[]).await;
    for _ in 0..3 {
        let (status, body) = remind(&served).await;
        assert_eq!(status, 200, "{body}");
    }
    // The failed exports are counted, and nothing about them reaches a client.
    let name = "plaincall_trace_export_failures_total";
    support::eventually("a failed export counted", async || {
        metric(&served, name).await > 0.0
    })
    .await;
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_endpoint_nothing_is_traced_and_a_clients_traceparent_passes_as_it_came() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    let served = Served::start(&[
        ("PLAINCALL_UPSTREAM_URL", &main.url()),
        ("PLAINCALL_TRANSLATOR_URL", &translator.url()),
        ("PLAINCALL_TRANSLATOR_MODEL", "tiny"),
    ])
    .await;
    let parent = format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01");
    let response = client()
        .post(served.url("/v1/chat/completions"))
        .header("traceparent", &parent)
        .json(&request(false, "remind me daily at 09:00 to check email"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let turn = &main.chat_requests()[0];
    assert_eq!(turn.headers["traceparent"], parent.as_str());
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_messages_request_and_a_responses_request_are_traced_the_same_way() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let tool = fixture_tool("set_reminder");
    let messages = json!({"model": "main", "max_tokens": 256,
        "tools": [{"name": "set_reminder", "description": tool["function"]["description"],
                   "input_schema": tool["function"]["parameters"]}],
        "messages": [{"role": "user", "content": "remind me daily at 09:00 to check email"}]});
    let responses = json!({"model": "main", "store": false,
        "tools": [{"type": "function", "name": "set_reminder",
                   "description": tool["function"]["description"],
                   "parameters": tool["function"]["parameters"]}],
        "input": "remind me daily at 09:00 to check email"});
    for (path, body) in [("/v1/messages", messages), ("/v1/responses", responses)] {
        let response = client()
            .post(served.url(path))
            .header("traceparent", format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert_eq!(status, 200, "{path}: {}", response.text().await.unwrap());
        let name = format!("POST {path}");
        let all = wait_for(&collector, |s| {
            let Some(server) = named(s, &name).first().map(|s| s.id.clone()) else {
                return false;
            };
            s.iter()
                .any(|t| t.name == "translate set_reminder" && t.parent == server)
        })
        .await;
        let server = one(&all, &name);
        assert_eq!(server.parent, CLIENT_SPAN, "{path}");
        let turn = all
            .iter()
            .find(|s| s.name == "chat main" && s.parent == server.id)
            .unwrap_or_else(|| panic!("{path}: no main turn under {server:?}"));
        assert_eq!(turn.trace, CLIENT_TRACE);
        let translation = all
            .iter()
            .find(|s| s.name == "translate set_reminder" && s.parent == server.id)
            .unwrap();
        // The second request's description is the first's: its translation comes from the
        // cache, and says so, with no translator exchange under it.
        let exchanged = all
            .iter()
            .any(|s| s.name == "chat tiny" && s.parent == translation.id);
        match path {
            "/v1/messages" => {
                assert_eq!(translation.attr("plaincall.translation.outcome"), "ok");
                assert!(exchanged, "{path}");
            }
            _ => {
                assert_eq!(translation.attr("plaincall.translation.outcome"), "cached");
                assert!(!exchanged, "{path}");
            }
        }
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_collector_that_refuses_is_said_once_in_the_log_without_its_key_or_its_body() {
    let main = MockServer::start(main_model("daily at 09:00 to check email")).await;
    let translator = translator(reminder_answer()).await;
    // A collector that refuses the key and echoes it back.
    let collector = MockServer::start(|request| {
        let key = request.headers["authorization"]
            .to_str()
            .unwrap()
            .to_owned();
        Reply::text(401, &format!("{{\"error\":\"bad key {key}\"}}"))
    })
    .await;
    let served = traced(
        &main,
        &translator,
        &format!("http://{}", collector.addr),
        &[(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer%20collector-secret-123456789",
        )],
    )
    .await;
    for _ in 0..3 {
        let (status, _) = remind(&served).await;
        assert_eq!(status, 200);
    }
    let started = served.wait_for_line("plaincall listening").await;
    assert!(
        started.contains(&format!("traces=to http://{}/v1/traces", collector.addr)),
        "{started}"
    );
    let line = served.wait_for_line("exporting spans failed").await;
    assert!(line.contains("401"), "{line}");
    // The key went to the collector, as configured.
    assert_eq!(
        collector.requests()[0].headers["authorization"],
        "Bearer collector-secret-123456789"
    );
    let logs = served.stop().await;
    assert_eq!(
        logs.iter()
            .filter(|l| l.contains("exporting spans failed"))
            .count(),
        1
    );
    // The trace-only fields stay out of the log: its lines read as with traces off.
    let translated = logs
        .iter()
        .find(|l| l.contains("translation"))
        .expect("the translation line");
    assert!(translated.contains("request{request_id="), "{translated}");
    assert!(
        !logs
            .iter()
            .any(|l| l.contains("otel.") || l.contains("http.route")),
        "{logs:#?}"
    );
    assert!(
        !logs.iter().any(|l| l.contains("collector-secret")),
        "{logs:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn check_prints_the_effective_telemetry_settings_with_the_standard_variables_winning() {
    let mut command = support::plaincall_command();
    command
        .arg("check")
        .env(
            "PLAINCALL_TELEMETRY_TRACES_ENDPOINT",
            "http://collector.internal:4318/v1/traces",
        )
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:6006/")
        .env("OTEL_SERVICE_NAME", "edge-proxy")
        .env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer%20collector-secret-123456789",
        );
    let (code, out, err) = support::run_command(command).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(
            "[telemetry]\ntraces_endpoint = \"http://127.0.0.1:6006/v1/traces\"\nservice_name = \"edge-proxy\"\ncapture_content = true\n"
        ),
        "{out}"
    );
    assert!(!out.contains("collector-secret") && !err.contains("collector-secret"));

    let mut command = support::plaincall_command();
    command
        .arg("check")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:6006")
        .env("OTEL_SDK_DISABLED", "true");
    let (code, out, _) = support::run_command(command).await;
    assert_eq!(code, Some(0));
    assert!(
        out.contains("[telemetry]\ntraces_endpoint = \"\"\n"),
        "{out}"
    );

    let mut command = support::plaincall_command();
    command.arg("check").env(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "ftp://collector/v1/traces",
    );
    let (code, _, err) = support::run_command(command).await;
    assert_eq!(code, Some(2), "a configuration error");
    assert!(err.contains("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_error_is_the_error_status_of_its_turn_and_of_the_request() {
    let main = MockServer::start(models_or(|_: &Recorded| {
        Reply::text(503, r#"{"error":{"message":"overloaded"}}"#)
    }))
    .await;
    let translator = translator(reminder_answer()).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let (status, _) = remind(&served).await;
    assert_eq!(status, 503);
    let all = wait_for(&collector, |s| {
        !named(s, "POST /v1/chat/completions").is_empty() && !named(s, "chat main").is_empty()
    })
    .await;
    let server = one(&all, "POST /v1/chat/completions");
    let turn = one(&all, "chat main");
    assert_eq!((turn.status, turn.attr("error.type")), (2, "503"));
    assert_eq!(
        (server.status, server.attr("http.response.status_code")),
        (2, "503")
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_translation_and_the_direct_ask_that_saves_it_are_one_translate_span() {
    let call = nl_call("call_1", "set_reminder", "daily at 09:00 to check email");
    let own = json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"});
    let direct = support::tool_call("call_direct", "set_reminder", &own);
    let main = MockServer::start(models_or(move |request: &Recorded| {
        // Asked with the tool's whole schema: the direct ask.
        let asked = request.json();
        if asked["tools"][0]["function"]["parameters"]["properties"]
            .get("schedule_type")
            .is_some()
        {
            return Reply::ok(completion(
                calls_message(vec![direct.clone()]),
                "tool_calls",
            ));
        }
        Reply::ok(completion(calls_message(vec![call.clone()]), "tool_calls"))
    }))
    .await;
    let translator = MockServer::start(models_or(|_: &Recorded| translator_reply("no idea"))).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let (status, body) = remind(&served).await;
    assert_eq!(status, 200, "{body}");
    let all = wait_for(&collector, |s| {
        s.iter()
            .any(|s| s.attributes.contains_key("plaincall.resolution"))
            && !named(s, "POST /v1/chat/completions").is_empty()
    })
    .await;
    let translation = one(&all, "translate set_reminder");
    assert_eq!(translation.attr("plaincall.translation.outcome"), "failed");
    assert_eq!(translation.attr("plaincall.resolution"), "direct");
    assert_eq!(translation.status, 0, "the call was delivered: no error");
    let under: Vec<&Span> = all.iter().filter(|s| s.parent == translation.id).collect();
    assert_eq!(
        under.iter().filter(|s| s.name == "chat tiny").count(),
        2,
        "both translator attempts: {under:#?}"
    );
    let asked = under
        .iter()
        .find(|s| s.name == "chat main")
        .expect("the direct ask under the translation");
    assert_eq!(asked.attr("plaincall.turn"), "direct");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_forwarded_as_it_came_has_its_upstream_turn_traced() {
    let main = MockServer::start(models_or(|_: &Recorded| {
        Reply::ok(completion(support::text_message("Hello."), "stop"))
    }))
    .await;
    let translator = translator(reminder_answer()).await;
    let (collector, served) = traced_to_a_collector(&main, &translator).await;
    let body = json!({"model": "plain-model", "messages": [{"role": "user", "content": "hi"}]});
    let (status, _) = post(&served, &body).await;
    assert_eq!(status, 200);
    let all = wait_for(&collector, |s| {
        !named(s, "POST /v1/chat/completions").is_empty()
            && !named(s, "chat plain-model").is_empty()
    })
    .await;
    let server = one(&all, "POST /v1/chat/completions");
    let turn = one(&all, "chat plain-model");
    assert_eq!(turn.parent, server.id);
    assert_eq!(turn.attr("gen_ai.request.model"), "plain-model");
    assert_eq!(turn.attr("plaincall.turn"), "main");
    // The body went byte for byte; its traceparent is the turn's.
    assert_eq!(traceparent(&main.chat_requests()[0]).1, turn.id);
    served.stop().await;
}
