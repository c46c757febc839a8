"""Translation through the OpenAI Responses API (``/v1/responses``) with the official clients:
``responses.create`` (whole and streamed), the strict ``responses.stream`` helper,
``previous_response_id``, and OpenAI Agents SDK agents on its Responses and Chat Completions
models."""

from __future__ import annotations

import asyncio
import json

import pytest

from flows import CALL_ID, CHAT, DESCRIPTION, FINAL_TEXT, STRUCTURED, TOOL_RESULT, TRANSLATED_PREFIX, TRANSLATOR_DELAY, nl_call_completion, nl_call_stream
from mock_upstream import JsonReply, completion, text_message, translator_reply

USER_TEXT = "Remind me every day at nine to check my email."


def flat(tool: dict) -> dict:
    function = tool["function"]
    return {"type": "function", "name": function["name"], "description": function["description"],
            "parameters": function["parameters"], "strict": False}


def request(tools: dict, **extra) -> dict:
    return {"model": "main-model", "instructions": "You are terse.", "input": USER_TEXT,
            "tools": [flat(tools["set_reminder"]), flat(tools["get_weather"])], **extra}


def assert_second_turn_rewritten(main_mock) -> None:
    messages = main_mock.chat_requests()[1].messages()
    assert messages[0] == {"role": "system", "content": "You are terse."}
    assert messages[1] == {"role": "user", "content": USER_TEXT}
    (call,) = messages[2]["tool_calls"]
    assert call["id"] == CALL_ID
    assert json.loads(call["function"]["arguments"])["description"] == DESCRIPTION
    assert messages[3] == {"role": "tool", "tool_call_id": CALL_ID, "content": f"{TRANSLATED_PREFIX}\n{TOOL_RESULT}"}


def test_two_turns_with_the_full_input(main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(CHAT, JsonReply(nl_call_completion()), JsonReply(completion(text_message(FINAL_TEXT))))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(translating_proxy)

    first = client.responses.create(**request(tools))

    assert first.status == "completed"
    (call,) = first.output
    assert (call.type, call.call_id, call.name) == ("function_call", CALL_ID, "set_reminder")
    assert json.loads(call.arguments) == STRUCTURED
    assert first.usage.input_tokens == 10 and first.usage.total_tokens == 15
    seen = main_mock.chat_requests()[0]
    assert list(seen.tool("set_reminder")["function"]["parameters"]["properties"]) == ["description"]

    history = [{"role": "user", "content": USER_TEXT}, call.model_dump(exclude_none=True),
               {"type": "function_call_output", "call_id": call.call_id, "output": TOOL_RESULT}]
    final = client.responses.create(**request(tools, input=history, store=False))

    assert final.output_text == FINAL_TEXT
    assert_second_turn_rewritten(main_mock)


def test_previous_response_id_continues_the_conversation(main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(CHAT, JsonReply(nl_call_completion()), JsonReply(completion(text_message(FINAL_TEXT))))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    client = client_for(translating_proxy)

    first = client.responses.create(**request(tools))
    (call,) = first.output
    final = client.responses.create(**request(tools, previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": TOOL_RESULT}]))

    assert final.output_text == FINAL_TEXT
    assert final.previous_response_id == first.id
    assert_second_turn_rewritten(main_mock)

    import openai
    with pytest.raises(openai.BadRequestError) as raised:
        client.responses.create(**request(tools, previous_response_id="resp_unknown"))
    assert "resp_unknown" in str(raised.value)


def test_streamed_events_satisfy_the_strict_stream_helper(main_mock, translator_mock, translating_proxy, client_for, tools):
    main_mock.script(CHAT, nl_call_stream())
    # Slower than the keep-alive interval: comments reach the client while it waits.
    translator_mock.script(CHAT, translator_reply(STRUCTURED, delay=TRANSLATOR_DELAY))
    client = client_for(translating_proxy)

    with client.responses.stream(**request(tools)) as stream:
        events = list(stream)
        final = stream.get_final_response()

    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert "response.function_call_arguments.done" in kinds
    numbers = [e.sequence_number for e in events]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    (call,) = final.output
    assert call.call_id == CALL_ID and json.loads(call.arguments) == STRUCTURED
    done = next(e for e in events if e.type == "response.function_call_arguments.done")
    assert json.loads(done.arguments) == STRUCTURED


def test_an_agents_sdk_agent_runs_a_translated_tool(main_mock, translator_mock, translating_proxy, tools):
    from agents import Agent, FunctionTool, Runner, set_default_openai_client, set_tracing_disabled
    from openai import AsyncOpenAI

    main_mock.script(CHAT, JsonReply(nl_call_completion()), JsonReply(completion(text_message(FINAL_TEXT))))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    received: list[dict] = []

    async def set_reminder(_context, arguments: str) -> str:
        received.append(json.loads(arguments))
        return TOOL_RESULT

    reminder = tools["set_reminder"]["function"]
    tool = FunctionTool(name=reminder["name"], description=reminder["description"],
                        params_json_schema=reminder["parameters"], on_invoke_tool=set_reminder,
                        strict_json_schema=False)
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=translating_proxy.base_url, api_key="sk-test", max_retries=0, timeout=30.0)
    set_default_openai_client(client, use_for_tracing=False)
    agent = Agent(name="assistant", instructions="You are terse.", model="main-model", tools=[tool])

    result = asyncio.run(Runner.run(agent, USER_TEXT))

    assert received == [STRUCTURED]
    assert result.final_output == FINAL_TEXT
    assert len(main_mock.chat_requests()) == 2
    second = main_mock.chat_requests()[1].messages()
    (call,) = next(m for m in second if m.get("tool_calls"))["tool_calls"]
    assert json.loads(call["function"]["arguments"])["description"] == DESCRIPTION


@pytest.mark.parametrize("model_kind", ["responses", "chat_completions"])
def test_an_agents_sdk_strict_tool_with_optional_and_nested_models(main_mock, translator_mock, translating_proxy, model_kind):
    """``@function_tool`` with pydantic models: a strict schema with ``$defs``/``$ref``,
    ``anyOf`` with null for ``Optional``, ``additionalProperties: false`` and every field
    required. The main model describes the call; the translator leaves the optional fields out;
    the SDK gets a call valid against its strict schema (nulls where it expects them) and runs
    the function with the models filled. Both of the SDK's models: its default (Responses)
    and ``OpenAIChatCompletionsModel``."""
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_default_openai_client, set_tracing_disabled
    from openai import AsyncOpenAI
    from mock_upstream import calls_message, tool_call

    received: list[Booking] = []

    @function_tool
    def book_room(booking: Booking) -> str:
        """Book a hotel room."""
        received.append(booking)
        return "booked"

    asked = "Book a room for Ana for 2 nights in Lisbon."
    main_mock.script(
        CHAT,
        JsonReply(completion(calls_message(tool_call("call_b", "book_room", {"description": asked})), "tool_calls")),
        JsonReply(completion(text_message(FINAL_TEXT))),
    )
    translator_mock.script(CHAT, translator_reply({"booking": {"guest": "Ana", "nights": 2, "address": {"city": "Lisbon"}}}))
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=translating_proxy.base_url, api_key="sk-test", max_retries=0, timeout=30.0)
    set_default_openai_client(client, use_for_tracing=False)
    model = "main-model" if model_kind == "responses" else OpenAIChatCompletionsModel(model="main-model", openai_client=client)
    agent = Agent(name="assistant", instructions="You are terse.", model=model, tools=[book_room])

    result = asyncio.run(Runner.run(agent, asked))

    assert book_room.strict_json_schema
    assert received == [Booking(guest="Ana", nights=2, address=Address(city="Lisbon", postcode=None), note=None)]
    assert result.final_output == FINAL_TEXT
    first = main_mock.chat_requests()[0].body
    shown = next(t for t in first["tools"] if t["function"]["name"] == "book_room")
    assert list(shown["function"]["parameters"]["properties"]) == ["description"], "rewritten"
    routes = {r.path for r in main_mock.requests}
    assert "/v1/chat/completions" in routes and "/v1/responses" not in routes, routes


# Module level: the SDK reads the tool's annotations by name (this module has
# `from __future__ import annotations`).
from pydantic import BaseModel  # noqa: E402


class Address(BaseModel):
    city: str
    postcode: str | None


class Booking(BaseModel):
    guest: str
    nights: int
    address: Address
    note: str | None
