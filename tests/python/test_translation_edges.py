"""Translation cases beyond the plain flow, through the official OpenAI Python client:
parallel and concurrent calls, fan-out, usage in streams, repair turns that run out or fail,
``parse()`` with strict tools, upstream errors, and translation while the upstream streams."""

from __future__ import annotations

import json
import time

import openai
import pytest

from mock_upstream import (
    JsonReply,
    Sleep,
    SseReply,
    calls_message,
    chunk,
    completion,
    text_message,
    tool_call,
    tool_call_chunks,
    translator_reply,
)
from flows import (
    CALL_ID,
    CHAT,
    CLARIFICATION,
    DESCRIPTION,
    QUESTION,
    STREAMERS,
    STRUCTURED,
    USER,
    direct_ask_declined,
    request_args,
)

EVENING = {"message": "Check email", "schedule_type": "daily", "at": "18:00"}
WEATHER_ARGS = {"city": "Berlin"}


def two_call_chunks(first: tuple[str, str, dict], second: tuple[str, str, dict]) -> list[dict]:
    """Two calls streamed one after the other at indices 0 and 1, arguments fragmented."""
    out = [chunk({"role": "assistant", "content": None})]
    for index, (call_id, name, args) in enumerate((first, second)):
        text = json.dumps(args)
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
                    ]
                }
            )
        )
        for i in range(0, len(text), 6):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": text[i : i + 6]}}]}))
    out.append(chunk({}, "tool_calls"))
    return out


NL = (CALL_ID, "set_reminder", {"description": DESCRIPTION})
WEATHER = ("call_weather", "get_weather", WEATHER_ARGS)


@pytest.mark.parametrize("how", ["create", "helper"])
@pytest.mark.parametrize("order", ["nl-first", "weather-first"])
def test_streamed_parallel_calls_keep_their_order(
    how, order, main_mock, translator_mock, translating_proxy, client_for, tools
):
    calls = (NL, WEATHER) if order == "nl-first" else (WEATHER, NL)
    main_mock.script(CHAT, SseReply(two_call_chunks(*calls), delay=0.005))
    translator_mock.script(CHAT, translator_reply(STRUCTURED, delay=0.4))

    out = STREAMERS[how](translating_proxy, client_for(translating_proxy), request_args(tools))

    assert out["finish"] == "tool_calls"
    got = [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in out["calls"]]
    expected = {
        CALL_ID: (CALL_ID, "set_reminder", STRUCTURED),
        "call_weather": ("call_weather", "get_weather", WEATHER_ARGS),
    }
    assert got == [expected[c[0]] for c in calls]


def test_fan_out_and_the_next_turn(main_mock, translator_mock, translating_proxy, client_for, tools):
    """One description, two calls: the client gets both; the next turn merges them back."""
    nl = tool_call(CALL_ID, "set_reminder", {"description": DESCRIPTION})
    main_mock.script(
        CHAT,
        JsonReply(completion(calls_message(nl), "tool_calls")),
        JsonReply(completion(text_message("Both are set."))),
    )
    translator_mock.script(CHAT, translator_reply([STRUCTURED, EVENING]))
    client = client_for(translating_proxy)

    response = client.chat.completions.create(**request_args(tools))

    calls = response.choices[0].message.tool_calls
    assert [c.id for c in calls] == [f"{CALL_ID}__1of2", f"{CALL_ID}__2of2"]
    assert [json.loads(c.function.arguments) for c in calls] == [STRUCTURED, EVENING]
    assert {c.function.name for c in calls} == {"set_reminder"}

    follow_up = request_args(tools)
    follow_up["messages"] = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [c.model_dump(exclude_none=True) for c in calls]},
        {"role": "tool", "tool_call_id": calls[0].id, "content": "job 7"},
        {"role": "tool", "tool_call_id": calls[1].id, "content": "job 8"},
    ]
    assert client.chat.completions.create(**follow_up).choices[0].message.content == "Both are set."

    second = main_mock.chat_requests()[1]
    user, assistant, tool = second.messages()
    assert user == USER
    (merged,) = assistant["tool_calls"]
    assert merged["id"] == CALL_ID
    assert json.loads(merged["function"]["arguments"]) == {"description": DESCRIPTION}
    assert tool["tool_call_id"] == CALL_ID
    assert tool["content"] == (
        '[Translated to: message="Check email", schedule_type="daily", at="09:00"]\njob 7\n---\n'
        '[Translated to: message="Check email", schedule_type="daily", at="18:00"]\njob 8'
    )


def test_streamed_fan_out(main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(CHAT, SseReply(tool_call_chunks(*NL, every=5)))
    translator_mock.script(CHAT, translator_reply([STRUCTURED, EVENING], delay=0.3))

    out = STREAMERS["helper"](translating_proxy, client_for(translating_proxy), request_args(tools))

    assert [c["id"] for c in out["calls"]] == [f"{CALL_ID}__1of2", f"{CALL_ID}__2of2"]
    assert [json.loads(c["function"]["arguments"]) for c in out["calls"]] == [STRUCTURED, EVENING]
    assert out["finish"] == "tool_calls"


def test_streamed_usage_is_summed_over_a_repair_turn(
    main_mock, translator_mock, translating_proxy, client_for, tools
):
    def with_usage(events: list[dict], prompt: int) -> list[dict]:
        usage = chunk({})
        usage["choices"] = []
        usage["usage"] = {"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5}
        return events + [usage]

    answer = [chunk({"role": "assistant", "content": ""}), chunk({"content": "When?"}), chunk({}, "stop")]
    main_mock.script(
        CHAT,
        SseReply(with_usage(tool_call_chunks(*NL, every=5), 10)),
        # The direct ask before the question: its usage is not the client's turns'.
        direct_ask_declined(),
        SseReply(with_usage(answer, 20)),
    )
    translator_mock.script(CHAT, translator_reply(CLARIFICATION))
    client = client_for(translating_proxy)

    args = request_args(tools)
    with client.chat.completions.stream(**args, stream_options={"include_usage": True}) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()

    assert final.choices[0].message.content == "When?"
    assert final.choices[0].finish_reason == "stop"
    assert final.usage is not None
    assert (final.usage.prompt_tokens, final.usage.completion_tokens, final.usage.total_tokens) == (30, 10, 40)


FAILED_PREFIX = "I could not complete the tool call"


def test_repair_turns_run_out(main_mock, translator_mock, translating_proxy, client_for, tools):
    """repair_turns = 2: the first answer and two repairs all call the tool; the translator
    asks each time; the client reads why, as text."""
    nl = tool_call(CALL_ID, "set_reminder", {"description": DESCRIPTION})
    turn = lambda: JsonReply(completion(calls_message(nl), "tool_calls"))  # noqa: E731
    # The direct ask, once, before the first question goes back.
    main_mock.script(CHAT, turn(), direct_ask_declined(), turn(), turn())
    translator_mock.script(CHAT, *[translator_reply(CLARIFICATION) for _ in range(3)])
    client = client_for(translating_proxy)

    response = client.chat.completions.create(**request_args(tools))

    choice = response.choices[0]
    assert choice.message.content.startswith(FAILED_PREFIX), choice.message.content
    assert QUESTION in choice.message.content
    assert not choice.message.tool_calls
    assert choice.finish_reason == "stop"
    requests = main_mock.chat_requests()
    assert len(requests) == 4
    assert [len(r.messages()) for r in requests] == [1, 1, 3, 5]


@pytest.mark.parametrize("how", ["create", "helper"])
def test_streamed_repair_turns_run_out(how, main_mock, translator_mock, translating_proxy, client_for, tools):
    turn = lambda: SseReply(tool_call_chunks(*NL, every=5))  # noqa: E731
    main_mock.script(CHAT, turn(), direct_ask_declined(), turn(), turn())
    translator_mock.script(CHAT, *[translator_reply(CLARIFICATION) for _ in range(3)])

    out = STREAMERS[how](translating_proxy, client_for(translating_proxy), request_args(tools))

    assert out["content"].startswith(FAILED_PREFIX), out["content"]
    assert out["calls"] == []
    assert out["finish"] == "stop"
    assert len(main_mock.chat_requests()) == 4


def test_translator_garbage_becomes_a_translation_error_turn(
    main_mock, translator_mock, translating_proxy, client_for, tools
):
    """Two unusable answers (attempts = 2): the main model is asked once for the call directly
    (as alone: every tool with its whole schema, the client's own tool_choice); it makes none,
    so it is told what went wrong."""
    nl = tool_call(CALL_ID, "set_reminder", {"description": DESCRIPTION})
    main_mock.script(
        CHAT,
        JsonReply(completion(calls_message(nl), "tool_calls")),
        JsonReply(completion(text_message("(no call)"))),
        JsonReply(completion(text_message("Sorry, what time?"))),
    )
    translator_mock.script(CHAT, translator_reply("not json at all"), translator_reply({"message": "x"}))
    client = client_for(translating_proxy)

    response = client.chat.completions.create(**request_args(tools))

    assert response.choices[0].message.content == "Sorry, what time?"
    assert len(translator_mock.chat_requests()) == 2
    direct = main_mock.chat_requests()[1].body
    assert "tool_choice" not in direct, direct.get("tool_choice")
    assert direct["tools"] == [tools["set_reminder"], tools["get_weather"]]
    tool = main_mock.chat_requests()[2].messages()[-1]
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == CALL_ID
    assert tool["content"].startswith("[TRANSLATION ERROR]"), tool["content"]


def test_parse_helper_with_strict_tools(main_mock, translator_mock, translating_proxy, client_for, tools):
    """``chat.completions.parse()`` (strict tools only) parses the structured arguments the
    client's own schema describes; the main model sees a strict one-field schema."""
    strict = {name: {**tools[name], "function": {**tools[name]["function"], "strict": True}} for name in tools}
    main_mock.script(CHAT, JsonReply(completion(calls_message(tool_call(*NL)), "tool_calls")))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(translating_proxy)

    completion_ = client.chat.completions.parse(
        model="main-model", messages=[USER], tools=[strict["set_reminder"], strict["get_weather"]]
    )

    (call,) = completion_.choices[0].message.tool_calls
    assert call.id == CALL_ID
    assert call.function.parsed_arguments == STRUCTURED
    (request,) = main_mock.chat_requests()
    rewritten = request.tool("set_reminder")["function"]
    assert rewritten["strict"] is True
    assert rewritten["parameters"]["additionalProperties"] is False
    assert list(rewritten["parameters"]["properties"]) == ["description"]


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_error_reaches_the_sdk(stream, main_mock, translator_mock, translating_proxy, client_for, tools):
    error = {"error": {"message": "context length exceeded", "type": "invalid_request_error", "code": "ctx"}}
    main_mock.script(CHAT, JsonReply(error, status=400))
    client = client_for(translating_proxy)

    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(**request_args(tools), stream=stream)

    assert caught.value.status_code == 400
    assert caught.value.code == "ctx"
    assert "context length exceeded" in caught.value.message
    assert translator_mock.chat_requests() == []
    (request,) = main_mock.chat_requests()
    assert list(request.tool("set_reminder")["function"]["parameters"]["properties"]) == ["description"]


def two_nl_calls_chunks() -> list[dict]:
    return two_call_chunks(
        ("call_morning", "set_reminder", {"description": "daily at 09:00 to check email"}),
        ("call_evening", "set_reminder", {"description": "daily at 18:00 to check email"}),
    )


def translator_by_description(recorded):
    """Answers by description, the first one slower, so that the second finishes first."""
    description = recorded.body["messages"][-1]["content"]
    if "09:00" in description:
        return translator_reply(STRUCTURED, delay=0.8)
    return translator_reply(EVENING, delay=0.05)


@pytest.mark.parametrize("how", ["create", "helper", "raw", "non-streaming"])
def test_two_translations_at_once_keep_upstream_order(
    how, main_mock, translator_mock, translating_proxy, client_for, tools
):
    translator_mock.on(CHAT, translator_by_description)
    client = client_for(translating_proxy)
    if how == "non-streaming":
        calls = [
            tool_call("call_morning", "set_reminder", {"description": "daily at 09:00 to check email"}),
            tool_call("call_evening", "set_reminder", {"description": "daily at 18:00 to check email"}),
        ]
        main_mock.script(CHAT, JsonReply(completion(calls_message(*calls), "tool_calls")))
        message = client.chat.completions.create(**request_args(tools)).choices[0].message
        got = [(c.id, json.loads(c.function.arguments)) for c in message.tool_calls]
    else:
        main_mock.script(CHAT, SseReply(two_nl_calls_chunks()))
        out = STREAMERS[how](translating_proxy, client, request_args(tools))
        got = [(c["id"], json.loads(c["function"]["arguments"])) for c in out["calls"]]

    assert got == [("call_morning", STRUCTURED), ("call_evening", EVENING)]
    assert len(translator_mock.chat_requests()) == 2


def test_a_failed_repair_turn_is_an_error_in_the_sdk(
    main_mock, translator_mock, translating_proxy, client_for, tools
):
    """The stream is already open (HTTP 200) when the repair turn fails upstream: the client
    must get an error event, which the SDK raises, not a stream that just stops."""
    main_mock.script(
        CHAT,
        SseReply(tool_call_chunks(*NL, every=5)),
        direct_ask_declined(),
        JsonReply({"error": {"message": "boom"}}, status=500),
    )
    translator_mock.script(CHAT, translator_reply(CLARIFICATION))
    client = client_for(translating_proxy)

    with pytest.raises(openai.APIError) as caught:
        for _ in client.chat.completions.create(**request_args(tools), stream=True):
            pass

    assert "500" in str(caught.value)
    assert len(main_mock.chat_requests()) == 3


def test_translation_starts_while_the_upstream_still_streams(
    main_mock, translator_mock, translating_proxy, client_for, tools
):
    """The call's arguments are complete long before the upstream's stream ends: the
    structured call reaches the client without waiting for that end."""
    events = tool_call_chunks(*NL, every=5)
    events.insert(-1, Sleep(1.5))  # the upstream dawdles before its finish chunk
    main_mock.script(CHAT, SseReply(events))
    translator_mock.script(CHAT, translator_reply(STRUCTURED, delay=0.2))
    client = client_for(translating_proxy)

    start = time.monotonic()
    call_at = None
    arguments = ""
    for piece in client.chat.completions.create(**request_args(tools), stream=True):
        for choice in piece.choices:
            for delta in choice.delta.tool_calls or []:
                call_at = call_at or time.monotonic() - start
                arguments += (delta.function.arguments or "") if delta.function else ""
    total = time.monotonic() - start

    assert json.loads(arguments) == STRUCTURED
    assert call_at is not None and total - call_at >= 1.0, (call_at, total)
