"""The agent frameworks of the README's client table, as their users write them, against
plaincall in front of a chat-only upstream: LangChain's ``bind_tools(strict=True)`` on Chat
Completions and on the Responses API, and a pydantic-ai agent. Each tool is a pydantic model
with ``Optional`` fields and a nested model: the strict schema has ``$defs``/``$ref``,
``anyOf`` with null, ``additionalProperties: false`` and every field required. The main model
describes the call, the translator leaves the optional fields out, and the framework gets a
call valid against its strict schema (nulls where it expects them)."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from flows import CHAT, FINAL_TEXT
from mock_upstream import JsonReply, calls_message, completion, text_message, tool_call, translator_reply

ASKED = "Plan a 3-night trip to Porto for Ana (34) and Rui."
# What the translator writes: the optional `note` and Rui's age left out, as nobody gave them.
TRANSLATED = {"destination": "Porto", "nights": 3, "travelers": [{"name": "Ana", "age": 34}, {"name": "Rui"}]}
# What a strict client expects: every field present, null where nothing was said.
STRICT_ARGS = {"destination": "Porto", "nights": 3, "note": None,
               "travelers": [{"name": "Ana", "age": 34}, {"name": "Rui", "age": None}]}


class Traveler(BaseModel):
    """One person on the trip."""

    name: str
    age: int | None


class PlanTrip(BaseModel):
    """Plan a trip: where, for how long, and who travels."""

    destination: str
    nights: int
    travelers: list[Traveler]
    note: str | None


def script_one_call(main_mock, translator_mock, name: str, then_text: bool = False) -> None:
    replies = [JsonReply(completion(calls_message(tool_call("call_t", name, {"description": ASKED})), "tool_calls"))]
    if then_text:
        replies.append(JsonReply(completion(text_message(FINAL_TEXT))))
    main_mock.script(CHAT, *replies)
    translator_mock.script(CHAT, translator_reply(TRANSLATED))


def assert_rewritten(main_mock, name: str) -> None:
    first = main_mock.chat_requests()[0].body
    shown = next(t for t in first["tools"] if t["function"]["name"] == name)
    assert list(shown["function"]["parameters"]["properties"]) == ["description"], "rewritten"


@pytest.mark.parametrize("responses_api", [False, True], ids=["chat", "responses"])
def test_langchain_bind_tools_strict(main_mock, translator_mock, translating_proxy, responses_api):
    from langchain_openai import ChatOpenAI

    script_one_call(main_mock, translator_mock, "PlanTrip")
    llm = ChatOpenAI(model="main-model", base_url=translating_proxy.base_url, api_key="unused",
                     max_retries=0, timeout=30, use_responses_api=responses_api)

    message = llm.bind_tools([PlanTrip], strict=True).invoke(ASKED)

    (call,) = message.tool_calls
    assert call["name"] == "PlanTrip"
    assert call["args"] == STRICT_ARGS
    PlanTrip.model_validate(call["args"])
    assert not message.invalid_tool_calls
    assert_rewritten(main_mock, "PlanTrip")
    sent = [r for r in main_mock.requests if r.path.endswith("/responses")]
    assert not sent, "converted for the chat-only upstream, never sent to its /v1/responses"


def test_a_pydantic_ai_agent_runs_a_translated_strict_tool(main_mock, translator_mock, translating_proxy):
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    script_one_call(main_mock, translator_mock, "plan_trip", then_text=True)
    model = OpenAIChatModel("main-model", provider=OpenAIProvider(base_url=translating_proxy.base_url, api_key="unused"))
    agent = Agent(model, instructions="You are terse.")
    planned: list[PlanTrip] = []

    @agent.tool_plain(strict=True)
    def plan_trip(trip: PlanTrip) -> str:
        """Plan a trip: where, for how long, and who travels."""
        planned.append(trip)
        return "planned"

    result = asyncio.run(agent.run(ASKED))

    assert result.output == FINAL_TEXT
    assert planned == [PlanTrip.model_validate(STRICT_ARGS)]
    assert_rewritten(main_mock, "plan_trip")
    # The tool's result reached the main model on the second turn, under the call's id.
    second = main_mock.chat_requests()[1].messages()
    (result_message,) = [m for m in second if m["role"] == "tool"]
    assert result_message["tool_call_id"] == "call_t" and "planned" in str(result_message["content"])
    (assistant,) = [m for m in second if m.get("tool_calls")]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"description": ASKED}
