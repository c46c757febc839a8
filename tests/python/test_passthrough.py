"""The transparent proxy, seen through the official OpenAI Python client: completions, streams
and calls to simple tools reach the client as the upstream sent them."""

from __future__ import annotations

import json
import time

from mock_upstream import (
    JsonReply,
    Sleep,
    SseReply,
    calls_message,
    chunk,
    completion,
    text_chunks,
    text_message,
    tool_call,
    tool_call_chunks,
)

CHAT = "/v1/chat/completions"
USER = [{"role": "user", "content": "Say hello."}]


def test_completion_reaches_the_client_with_unknown_fields(main_mock, proxy, client_for):
    main_mock.script(
        CHAT,
        JsonReply(
            completion(
                text_message("Hello there!"),
                timings={"predicted_per_second": 61.5, "prompt_n": 12},
            )
        ),
    )
    client = client_for(proxy)
    raw = client.chat.completions.with_raw_response.create(model="main-model", messages=USER, temperature=0.2)
    response = raw.parse()

    assert raw.status_code == 200
    assert response.choices[0].message.content == "Hello there!"
    assert response.choices[0].finish_reason == "stop"
    assert response.id == "chatcmpl-upstream-1"
    assert response.usage is not None and response.usage.total_tokens == 15
    # A field OpenAI does not define (llama.cpp's timings) survives the proxy.
    assert response.model_extra["timings"] == {"predicted_per_second": 61.5, "prompt_n": 12}
    assert json.loads(raw.http_response.text)["timings"]["prompt_n"] == 12

    (request,) = main_mock.chat_requests()
    assert request.body["model"] == "main-model"
    assert request.body["messages"] == USER
    assert request.body["temperature"] == 0.2
    assert request.headers["authorization"] == "Bearer sk-test"


def test_streamed_completion_arrives_in_chunks(main_mock, proxy, client_for):
    events = text_chunks("Hello there, streaming world!", pieces=4)
    # The upstream pauses before its last chunk: plaincall must not hold the earlier ones back.
    events.insert(-1, Sleep(0.8))
    main_mock.script(CHAT, SseReply(events))
    client = client_for(proxy)

    start = time.monotonic()
    arrivals: list[float] = []
    text = ""
    finish = None
    for piece in client.chat.completions.create(model="main-model", messages=USER, stream=True):
        arrivals.append(time.monotonic() - start)
        for choice in piece.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish

    assert text == "Hello there, streaming world!"
    assert finish == "stop"
    assert len(arrivals) >= 5
    assert arrivals[-1] - arrivals[0] >= 0.5, f"chunks were buffered: {arrivals}"
    (request,) = main_mock.chat_requests()
    assert request.body["stream"] is True


def test_simple_tool_call_passes_through(main_mock, proxy, client_for, tools):
    call = tool_call("call_w1", "get_weather", {"city": "Berlin"})
    main_mock.script(CHAT, JsonReply(completion(calls_message(call), "tool_calls")))
    client = client_for(proxy)
    response = client.chat.completions.create(
        model="main-model",
        messages=[{"role": "user", "content": "Weather in Berlin?"}],
        tools=[tools["get_weather"]],
    )

    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    (got,) = choice.message.tool_calls
    assert got.id == "call_w1"
    assert got.function.name == "get_weather"
    assert got.function.arguments == call["function"]["arguments"]
    (request,) = main_mock.chat_requests()
    assert request.body["tools"] == [tools["get_weather"]]


def test_simple_tool_call_passes_through_beside_a_rewritten_tool(
    main_mock, translator_mock, translating_proxy, client_for, tools
):
    call = tool_call("call_w2", "get_weather", {"city": "Paris", "note": "ünïcödé"})
    main_mock.script(CHAT, JsonReply(completion(calls_message(call), "tool_calls")))
    client = client_for(translating_proxy)
    response = client.chat.completions.create(
        model="main-model",
        # The note is said: plaincall leaves out of a model's own call what nobody said.
        messages=[{"role": "user", "content": "Weather in Paris? Note: ünïcödé."}],
        tools=[tools["set_reminder"], tools["get_weather"]],
    )

    (got,) = response.choices[0].message.tool_calls
    assert (got.id, got.function.name) == ("call_w2", "get_weather")
    assert json.loads(got.function.arguments) == {"city": "Paris", "note": "ünïcödé"}
    assert translator_mock.chat_requests() == []
    (request,) = main_mock.chat_requests()
    assert request.tool("get_weather") == tools["get_weather"]


def test_streamed_simple_tool_call_passes_through(main_mock, translating_proxy, client_for, tools):
    arguments = json.dumps({"city": "Lisbon"})
    events = [chunk({"role": "assistant", "content": "Checking. "})] + tool_call_chunks(
        "call_w3", "get_weather", arguments, every=4
    )[1:]
    main_mock.script(CHAT, SseReply(events))
    client = client_for(translating_proxy)

    calls: dict[int, dict] = {}
    content = ""
    finish = None
    for piece in client.chat.completions.create(
        model="main-model",
        messages=[{"role": "user", "content": "Weather in Lisbon?"}],
        tools=[tools["set_reminder"], tools["get_weather"]],
        stream=True,
    ):
        for choice in piece.choices:
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
            for delta in choice.delta.tool_calls or []:
                slot = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
                slot["id"] = delta.id or slot["id"]
                if delta.function is not None:
                    slot["name"] += delta.function.name or ""
                    slot["arguments"] += delta.function.arguments or ""

    assert content == "Checking. "
    assert finish == "tool_calls"
    assert calls == {0: {"id": "call_w3", "name": "get_weather", "arguments": arguments}}


def test_translation_switched_off_per_request(main_mock, translator_mock, translating_proxy, client_for, tools):
    """``x-plaincall-translate: off``: the request goes upstream as the client wrote it."""
    call = tool_call("call_r1", "set_reminder", {"description": "daily at 09:00"})
    main_mock.script(CHAT, JsonReply(completion(calls_message(call), "tool_calls")))
    client = client_for(translating_proxy)
    response = client.chat.completions.create(
        model="main-model",
        messages=[{"role": "user", "content": "Remind me."}],
        tools=[tools["set_reminder"], tools["get_weather"]],
        extra_headers={"x-plaincall-translate": "off"},
    )

    (got,) = response.choices[0].message.tool_calls
    assert got.function.arguments == call["function"]["arguments"]
    assert translator_mock.chat_requests() == []
    (request,) = main_mock.chat_requests()
    assert request.body["tools"] == [tools["set_reminder"], tools["get_weather"]]
