"""Translation through the official Anthropic Python client on ``/v1/messages``: the complex
tool goes to the main model in plain-English form, its call comes back as a structured
``tool_use`` block (``messages.create`` and ``messages.stream``, keep-alive pings included),
the ``tool_result`` turn reaches the main model rewritten, and errors are Anthropic errors."""

from __future__ import annotations

import anthropic
import pytest

from flows import CALL_ID, CHAT, DESCRIPTION, FINAL_TEXT, STRUCTURED, TOOL_RESULT, TRANSLATED_PREFIX, TRANSLATOR_DELAY, nl_call_completion, nl_call_stream
from mock_upstream import JsonReply, completion, text_message, translator_reply

USER_TEXT = "Remind me every day at nine to check my email."


def as_anthropic(tool: dict) -> dict:
    function = tool["function"]
    return {"name": function["name"], "description": function["description"], "input_schema": function["parameters"]}


@pytest.fixture
def claude(translating_proxy):
    client = anthropic.Anthropic(base_url=translating_proxy.url, api_key="sk-test", max_retries=0, timeout=30.0)
    yield client
    client.close()


def request(tools: dict, messages: list[dict]) -> dict:
    return {
        "model": "main-model",
        "max_tokens": 512,
        "system": "You are a helpful assistant.",
        "tools": [as_anthropic(tools["set_reminder"]), as_anthropic(tools["get_weather"])],
        "messages": messages,
    }


def assert_main_saw_one_field(main_mock) -> None:
    seen = main_mock.chat_requests()[0]
    assert seen.body["messages"][0] == {"role": "system", "content": "You are a helpful assistant."}
    rewritten = seen.tool("set_reminder")["function"]["parameters"]
    assert list(rewritten["properties"]) == ["description"]


def test_two_turns_with_messages_create(main_mock, translator_mock, claude, tools):
    main_mock.script(CHAT, JsonReply(nl_call_completion()), JsonReply(completion(text_message(FINAL_TEXT))))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    user = {"role": "user", "content": USER_TEXT}

    message = claude.messages.create(**request(tools, [user]))

    assert message.stop_reason == "tool_use"
    (block,) = message.content
    assert block.type == "tool_use"
    assert (block.id, block.name, block.input) == (CALL_ID, "set_reminder", STRUCTURED)
    assert message.usage.input_tokens == 10
    assert_main_saw_one_field(main_mock)

    history = [
        user,
        {"role": "assistant", "content": [block.model_dump()]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": block.id, "content": TOOL_RESULT}]},
    ]
    final = claude.messages.create(**request(tools, history))

    assert final.stop_reason == "end_turn"
    assert final.content[0].text == FINAL_TEXT
    second = main_mock.chat_requests()[1].messages()
    (call,) = second[2]["tool_calls"]
    assert call["id"] == CALL_ID
    assert "description" in call["function"]["arguments"] and DESCRIPTION in call["function"]["arguments"]
    assert second[3]["role"] == "tool" and second[3]["tool_call_id"] == CALL_ID
    assert second[3]["content"] == f"{TRANSLATED_PREFIX}\n{TOOL_RESULT}"


def test_messages_stream_gives_the_structured_input(main_mock, translator_mock, claude, tools):
    main_mock.script(CHAT, nl_call_stream())
    # Slower than the keep-alive interval: `ping` events reach the client while it waits.
    translator_mock.script(CHAT, translator_reply(STRUCTURED, delay=TRANSLATOR_DELAY))

    with claude.messages.stream(**request(tools, [{"role": "user", "content": USER_TEXT}])) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()

    assert kinds[0] == "message_start"
    assert "content_block_start" in kinds and kinds[-1] == "message_stop"
    assert final.stop_reason == "tool_use"
    (block,) = final.content
    assert (block.type, block.id, block.name, block.input) == ("tool_use", CALL_ID, "set_reminder", STRUCTURED)
    assert main_mock.chat_requests()[0].body["stream"] is True


def test_errors_are_anthropic_errors(main_mock, claude, tools):
    main_mock.script(CHAT, JsonReply({"error": {"message": "no such model", "type": "invalid_request_error"}}, status=404))

    with pytest.raises(anthropic.NotFoundError) as raised:
        claude.messages.create(**request(tools, [{"role": "user", "content": USER_TEXT}]))

    assert raised.value.body["error"] == {"type": "not_found_error", "message": "no such model"}
