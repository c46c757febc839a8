"""Traces in Arize Phoenix: plaincall exports OTLP/HTTP protobuf to a real Phoenix
(arize-phoenix 20.26.1 in ``.venv-phoenix``, see phoenix.py) on loopback, and each test reads
its trace back through Phoenix's REST API. A translated request, sent by the official OpenAI
and Anthropic clients on each of the three routes, is one trace under the client's
``traceparent``: the server span, the main model's turn and the translation beside it, the
translator's exchange under the translation. With content capture on, the description is on
the translation span and the upstream key is on no span.
"""

from __future__ import annotations

import json
import os

import anthropic
import pytest

from flows import CALL_ID, CHAT, STRUCTURED, USER, nl_call_completion, nl_call_stream
from mock_upstream import JsonReply, calls_message, completion, tool_call, translator_reply
from phoenix import INSTALL_HINT, Phoenix, phoenix_bin

PROJECT = "plaincall-tests"
# W3C's example trace: the client's own span is the server span's parent.
CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
UPSTREAM_KEY = "sk-upstream-" + "0123456789abcdef" * 3
SERVER = "POST /v1/chat/completions"
MAIN = "chat main"
TRANSLATE = "translate set_reminder"
TRANSLATOR = "chat translator"


@pytest.fixture(scope="module")
def phoenix():
    """One Phoenix for the module: it takes about 10 s to start. Each test has traces of its
    own (its own trace id), so they share it safely."""
    binary = phoenix_bin()
    if not binary.is_file():
        pytest.fail(f"no Phoenix at {binary}: {INSTALL_HINT}")
    with Phoenix(binary) as server:
        print(f"phoenix ready in {server.startup_seconds:.1f} s at {server.url}")
        yield server
        print(f"--- phoenix log ---\n{server.log()}")


@pytest.fixture
def traced(phoenix, monkeypatch, start_plaincall, main_mock, translator_mock):
    """``traced(**env)``: plaincall exporting to Phoenix's project ``PROJECT``, every 100 ms.
    The shell's own ``OTEL_*`` settings (a traces endpoint, the SDK turned off) are dropped."""
    for key in [k for k in os.environ if k.startswith("OTEL_")]:
        monkeypatch.delenv(key)

    def start(**env: str):
        return start_plaincall(
            main_mock,
            translator_mock,
            OTEL_EXPORTER_OTLP_ENDPOINT=phoenix.url,
            OTEL_BSP_SCHEDULE_DELAY="100",
            OTEL_RESOURCE_ATTRIBUTES=f"openinference.project.name={PROJECT}",
            **env,
        )

    return start


def traceparent(trace_id: str) -> dict[str, str]:
    return {"traceparent": f"00-{trace_id}-{CLIENT_SPAN}-01"}


def new_trace_id() -> str:
    return os.urandom(16).hex()


def reminder_call(description: str) -> JsonReply:
    """The main model's turn: a set_reminder call in its one-field, plain-English form."""
    call = tool_call(CALL_ID, "set_reminder", {"description": description})
    return JsonReply(completion(calls_message(call), "tool_calls"))


def named(spans: list[dict], name: str) -> list[dict]:
    return [s for s in spans if s["name"] == name]


def one(spans: list[dict], name: str) -> dict:
    found = named(spans, name)
    assert len(found) == 1, f"one {name!r} in {[s['name'] for s in spans]}"
    return found[0]


def complete(server: str):
    """Whether a trace holds the four spans of one translation under ``server``."""
    return lambda spans: all(named(spans, n) for n in (server, MAIN, TRANSLATE, TRANSLATOR))


def span_id(span: dict) -> str:
    return span["context"]["span_id"]


def assert_chain(spans: list[dict], trace_id: str, server_name: str = SERVER) -> dict[str, dict]:
    """Client span → server → (main turn, translation) → translator exchange; returns the
    four spans by name."""
    by = {name: one(spans, name) for name in (server_name, MAIN, TRANSLATE, TRANSLATOR)}
    for span in by.values():
        assert span["context"]["trace_id"] == trace_id, span
    server = by[server_name]
    assert server["parent_id"] == CLIENT_SPAN
    assert by[MAIN]["parent_id"] == span_id(server)
    assert by[TRANSLATE]["parent_id"] == span_id(server)
    assert by[TRANSLATOR]["parent_id"] == span_id(by[TRANSLATE])
    # Phoenix adds attributes of its own (llm.*, output.*): what plaincall sent is a subset.
    attrs = server["attributes"]
    assert attrs["http.route"] == server_name.split(" ", 1)[1]
    assert attrs["http.request.method"] == "POST"
    assert attrs["http.response.status_code"] == 200
    translation = by[TRANSLATE]["attributes"]
    assert translation["gen_ai.tool.name"] == "set_reminder"
    assert translation["plaincall.translation.outcome"] == "ok"
    exchange = by[TRANSLATOR]["attributes"]
    assert exchange["plaincall.turn"] == "translator"
    assert exchange["gen_ai.request.model"] == "translator"
    assert exchange["gen_ai.operation.name"] == "chat"
    return by


# ---------------------------------------------------------------------------------------------
# a) b) chat completions, whole and streamed
# ---------------------------------------------------------------------------------------------


def test_a_translated_chat_completion_is_one_trace_under_the_clients_span(
    phoenix, traced, main_mock, translator_mock, client_for, tools
):
    main_mock.script(CHAT, JsonReply(nl_call_completion()))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(traced())

    response = client.chat.completions.create(
        model="main", messages=[USER], tools=[tools["set_reminder"]], extra_headers=traceparent(CLIENT_TRACE)
    )

    (call,) = response.choices[0].message.tool_calls
    assert json.loads(call.function.arguments) == STRUCTURED
    spans = phoenix.wait_for_spans(CLIENT_TRACE, PROJECT, complete(SERVER))
    by = assert_chain(spans, CLIENT_TRACE)
    turn = by[MAIN]["attributes"]
    assert {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "main",
        "gen_ai.response.model": "main-model",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "plaincall.turn": "main",
    }.items() <= turn.items(), turn
    translation = by[TRANSLATE]
    assert translation["attributes"]["plaincall.translation.attempts"] == 1
    assert translation["attributes"]["plaincall.translation.calls"] == 1
    assert "plaincall.grounding.left_out" not in translation["attributes"]
    grounding = {
        e["attributes"]["plaincall.grounding.path"]: e["attributes"]
        for e in translation["events"]
        if e["name"] == "grounding"
    }
    assert set(grounding) == set(STRUCTURED), translation["events"]
    assert grounding["at"]["plaincall.grounding.rule"] == "time"
    assert all(g["plaincall.grounding.outcome"] == "kept" for g in grounding.values()), grounding
    assert by[TRANSLATOR]["attributes"]["gen_ai.response.finish_reasons"] == ["stop"]
    # Content capture is off: nothing the user or a model wrote is on a span.
    dumped = json.dumps(spans)
    for text in ("Check email", "check my email", "gen_ai.input.messages", "plaincall.translation.description"):
        assert text not in dumped
    # The upstream was called under the main turn's span.
    (sent,) = main_mock.chat_requests()
    assert sent.headers["traceparent"].split("-")[1:3] == [CLIENT_TRACE, span_id(by[MAIN])]


def test_a_streamed_translation_is_the_same_trace_with_the_turns_finish_reason(
    phoenix, traced, main_mock, translator_mock, client_for, tools
):
    main_mock.script(CHAT, nl_call_stream())
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(traced())
    trace_id = new_trace_id()

    stream = client.chat.completions.create(
        model="main", messages=[USER], tools=[tools["set_reminder"]], stream=True, extra_headers=traceparent(trace_id)
    )
    finish = [c.finish_reason for piece in stream for c in piece.choices if c.finish_reason]

    assert finish == ["tool_calls"]
    spans = phoenix.wait_for_spans(trace_id, PROJECT, complete(SERVER))
    by = assert_chain(spans, trace_id)
    # Read from the stream's chunks, so recorded once the stream was through.
    turn = by[MAIN]["attributes"]
    assert turn["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert turn["gen_ai.response.model"] == "main-model"
    assert turn["plaincall.turn"] == "main"
    assert main_mock.chat_requests()[0].body["stream"] is True


# ---------------------------------------------------------------------------------------------
# c) the other two routes: Anthropic Messages, OpenAI Responses
# ---------------------------------------------------------------------------------------------


def test_an_anthropic_messages_request_is_traced_on_its_route(phoenix, traced, main_mock, translator_mock, tools):
    # A description of its own: were the translation cache to answer, there would be no
    # translator exchange to find.
    main_mock.script(CHAT, reminder_call("daily at 09:00 to check email, via messages"))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    proxy = traced()
    function = tools["set_reminder"]["function"]
    trace_id = new_trace_id()

    with anthropic.Anthropic(base_url=proxy.url, api_key="sk-test", max_retries=0, timeout=30.0) as claude:
        message = claude.messages.create(
            model="main",
            max_tokens=256,
            messages=[{"role": "user", "content": USER["content"]}],
            tools=[{"name": "set_reminder", "description": function["description"], "input_schema": function["parameters"]}],
            extra_headers=traceparent(trace_id),
        )

    assert message.stop_reason == "tool_use"
    assert message.content[0].input == STRUCTURED
    spans = phoenix.wait_for_spans(trace_id, PROJECT, complete("POST /v1/messages"))
    assert_chain(spans, trace_id, "POST /v1/messages")


def test_an_openai_responses_request_is_traced_on_its_route(
    phoenix, traced, main_mock, translator_mock, client_for, tools
):
    main_mock.script(CHAT, reminder_call("daily at 09:00 to check email, via responses"))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(traced())
    function = tools["set_reminder"]["function"]
    trace_id = new_trace_id()

    response = client.responses.create(
        model="main",
        input=USER["content"],
        store=False,
        tools=[{"type": "function", "name": "set_reminder", "description": function["description"],
                "parameters": function["parameters"], "strict": False}],
        extra_headers=traceparent(trace_id),
    )

    (call,) = response.output
    assert (call.type, json.loads(call.arguments)) == ("function_call", STRUCTURED)
    spans = phoenix.wait_for_spans(trace_id, PROJECT, complete("POST /v1/responses"))
    assert_chain(spans, trace_id, "POST /v1/responses")


# ---------------------------------------------------------------------------------------------
# d) content capture: the description on the span, the upstream key on none
# ---------------------------------------------------------------------------------------------


def test_captured_content_is_on_the_spans_and_the_upstream_key_is_not(
    phoenix, traced, main_mock, translator_mock, client_for, tools
):
    # The main model echoes the upstream's key into its description.
    main_mock.script(CHAT, reminder_call(f"daily at 09:00 to check email, key {UPSTREAM_KEY}"))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(
        traced(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true", PLAINCALL_UPSTREAM_API_KEY=UPSTREAM_KEY)
    )
    trace_id = new_trace_id()

    response = client.chat.completions.create(
        model="main", messages=[USER], tools=[tools["set_reminder"]], extra_headers=traceparent(trace_id)
    )

    assert response.choices[0].finish_reason == "tool_calls"
    assert main_mock.chat_requests()[0].headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
    spans = phoenix.wait_for_spans(trace_id, PROJECT, complete(SERVER))
    by = assert_chain(spans, trace_id)
    translation = by[TRANSLATE]["attributes"]
    description = translation["plaincall.translation.description"]
    assert "Description: daily at 09:00 to check email" in description, description
    assert "[redacted]" in description, description
    assert json.loads(translation["gen_ai.tool.call.arguments"])[0]["at"] == "09:00"
    exchange = by[TRANSLATOR]["attributes"]
    assert "check email" in str(exchange["gen_ai.input.messages"])
    assert "Check email" in str(exchange["gen_ai.output.messages"])
    # Not in any attribute or event of any span, nor in what Phoenix derived from them.
    for span in spans:
        assert UPSTREAM_KEY not in json.dumps(span), span["name"]
