"""Translation through the official OpenAI Python client: a complex tool goes to the main
model in plain-English form, its call comes back structured, the next turn is rewritten back,
and a translation that needs more facts becomes a repair turn."""

from __future__ import annotations

import json

import pytest

from flows import (
    ASK_USER,
    CALL_ID,
    CHAT,
    CLARIFICATION,
    FINAL_TEXT,
    STREAMERS,
    STRUCTURED,
    TOOL_RESULT,
    TRANSLATED_PREFIX,
    TRANSLATOR_DELAY,
    USER,
    assert_history_rewritten,
    assert_repair_turn,
    assert_rewritten_tools,
    assert_translator_asked,
    direct_ask_declined,
    history_with,
    nl_call_completion,
    nl_call_stream,
    request_args,
    stream_with_create,
)
from mock_upstream import JsonReply, SseReply, completion, text_chunks, text_message, tool_call, translator_reply


# ---------------------------------------------------------------------------------------------
# b) the two-turn flow, non-streaming
# ---------------------------------------------------------------------------------------------


def test_two_turn_translation(main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(CHAT, JsonReply(nl_call_completion()), JsonReply(completion(text_message(FINAL_TEXT))))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(translating_proxy)

    response = client.chat.completions.create(**request_args(tools))

    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.id == CALL_ID
    assert call.type == "function"
    assert call.function.name == "set_reminder"
    assert json.loads(call.function.arguments) == STRUCTURED
    (first,) = main_mock.chat_requests()
    assert_rewritten_tools(first, tools)
    assert first.messages() == [USER]
    assert_translator_asked(translator_mock)

    # Turn 2: the client sends back the message object it received, as agents do.
    follow_up = request_args(tools)
    follow_up["messages"] = [
        USER,
        choice.message,
        {"role": "tool", "tool_call_id": call.id, "content": TOOL_RESULT},
    ]
    response = client.chat.completions.create(**follow_up)

    assert response.choices[0].message.content == FINAL_TEXT
    assert response.choices[0].finish_reason == "stop"
    first, second = main_mock.chat_requests()
    assert_rewritten_tools(second, tools)
    assert_history_rewritten(second)
    assert_translator_asked(translator_mock)  # the second turn translates nothing


def test_next_turn_on_another_process(
    main_mock, translator_mock, start_plaincall, client_for, tools
):
    """A plaincall process that did not translate the call (a restart, a replica) renders the
    description from the structured arguments."""
    main_mock.script(CHAT, JsonReply(completion(text_message(FINAL_TEXT))))
    client = client_for(start_plaincall(main_mock, translator_mock))
    call = tool_call(CALL_ID, "set_reminder", STRUCTURED)
    args = request_args(tools)
    args["messages"] = history_with(call)

    response = client.chat.completions.create(**args)

    assert response.choices[0].message.content == FINAL_TEXT
    (request,) = main_mock.chat_requests()
    assistant, tool = request.messages()[1:]
    (sent,) = assistant["tool_calls"]
    assert sent["id"] == CALL_ID
    assert json.loads(sent["function"]["arguments"]) == {
        "description": 'message="Check email", schedule_type="daily", at="09:00"'
    }
    assert tool["content"] == f"{TRANSLATED_PREFIX}\n{TOOL_RESULT}"
    assert translator_mock.chat_requests() == []


# ---------------------------------------------------------------------------------------------
# c) the same flow, streaming: fragmented arguments, a slow translator, keep-alive comments
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", list(STREAMERS))
def test_streamed_translation(how, main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(CHAT, nl_call_stream(), SseReply(text_chunks(FINAL_TEXT)))
    translator_mock.script(CHAT, translator_reply(STRUCTURED, delay=TRANSLATOR_DELAY))
    client = client_for(translating_proxy)

    out = STREAMERS[how](translating_proxy, client, request_args(tools))

    assert out["finish"] == "tool_calls"
    assert out["content"] == ""
    (call,) = out["calls"]
    assert call["id"] == CALL_ID
    assert call["type"] == "function"
    assert call["function"]["name"] == "set_reminder"
    assert json.loads(call["function"]["arguments"]) == STRUCTURED
    (first,) = main_mock.chat_requests()
    assert first.body["stream"] is True
    assert_rewritten_tools(first, tools)
    assert_translator_asked(translator_mock)

    # Turn 2, streamed: the history goes back in plain-English form.
    follow_up = request_args(tools)
    follow_up["messages"] = history_with(call)
    out = stream_with_create(client, follow_up)
    assert out["content"] == FINAL_TEXT
    assert out["calls"] == []
    assert out["finish"] == "stop"
    first, second = main_mock.chat_requests()
    assert_history_rewritten(second)
    assert_translator_asked(translator_mock)


# ---------------------------------------------------------------------------------------------
# d) the translator needs more facts: a repair turn asks the main model again
# ---------------------------------------------------------------------------------------------



def test_clarification_repair_turn(main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(
        CHAT,
        JsonReply(nl_call_completion()),
        direct_ask_declined(),
        JsonReply(completion(text_message(ASK_USER))),
    )
    translator_mock.script(CHAT, translator_reply(CLARIFICATION))
    client = client_for(translating_proxy)

    raw = client.chat.completions.with_raw_response.create(**request_args(tools))
    response = raw.parse()

    assert raw.status_code == 200
    choice = response.choices[0]
    assert choice.message.content == ASK_USER
    assert not choice.message.tool_calls
    assert choice.finish_reason == "stop"
    # Usage covers both upstream turns; the id is the first turn's.
    assert response.usage.total_tokens == 30
    assert response.id == "chatcmpl-upstream-1"
    # Before the question goes back, the main model is asked once with every tool in full.
    first, direct, second = main_mock.chat_requests()
    assert direct.body["tools"] == [tools["set_reminder"], tools["get_weather"]]
    assert_rewritten_tools(second, tools)
    assert_repair_turn(second)
    assert len(second.messages()) == 3
    assert_translator_asked(translator_mock)


@pytest.mark.parametrize("how", ["create", "helper"])
def test_streamed_clarification_repair_turn(
    how, main_mock, translator_mock, translating_proxy, client_for, tools
):
    main_mock.script(CHAT, nl_call_stream(), direct_ask_declined(), SseReply(text_chunks(ASK_USER)))
    translator_mock.script(CHAT, translator_reply(CLARIFICATION, delay=0.5))
    client = client_for(translating_proxy)

    out = STREAMERS[how](translating_proxy, client, request_args(tools))

    assert out["content"] == ASK_USER
    assert out["calls"] == []
    assert out["finish"] == "stop"
    first, direct, second = main_mock.chat_requests()
    assert direct.body["stream"] is False
    assert second.body["stream"] is True
    assert_repair_turn(second)
    assert len(second.messages()) == 3
    assert_translator_asked(translator_mock)
