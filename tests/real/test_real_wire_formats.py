"""The Responses and Anthropic Messages routes against real llama-server with the small Qwen
models: the official clients get the one call the request asks for (`set_reminder`, daily at
9:00, about email; read leniently as in test_real_upstream.py), valid against the full schema,
and the second turn (the tool result sent back) completes, in text or another call. Text
instead of the first call fails."""

from __future__ import annotations

import json

import anthropic
import jsonschema

from conftest import assert_daily_reminder, tool

INSTRUCTIONS = "You are a helpful assistant. Use the tools when they fit the request."
REQUEST = "Remind me every day at 9am to check my email."
RESULT = "Reminder set: job_id=r-17."


def schema(name: str) -> dict:
    return tool(name)["function"]["parameters"]


def flat(name: str) -> dict:
    function = tool(name)["function"]
    return {"type": "function", "name": name, "description": function["description"],
            "parameters": function["parameters"], "strict": False}


def test_responses_two_turns(native):
    client = native.client
    tools = [flat("set_reminder")]
    first = client.responses.create(model="qwen2.5-coder-0.5b", temperature=0, instructions=INSTRUCTIONS,
                                    input=REQUEST, tools=tools, tool_choice="required")
    calls = [item for item in first.output if item.type == "function_call"]
    assert len(calls) == 1, f"not one call: {first.output}"
    for call in calls:
        assert call.call_id and call.name == "set_reminder"
        args = json.loads(call.arguments)
        jsonschema.validate(args, schema("set_reminder"))
        assert_daily_reminder(args, (9, 0), "email")
    print(f"responses: {len(calls)} call(s) valid against the full schema: {[c.arguments for c in calls]}")
    outputs = [{"type": "function_call_output", "call_id": c.call_id, "output": RESULT} for c in calls]
    second = client.responses.create(model="qwen2.5-coder-0.5b", temperature=0, instructions=INSTRUCTIONS,
                                     previous_response_id=first.id, input=outputs, tools=tools,
                                     max_output_tokens=120)
    assert second.status in ("completed", "incomplete")
    assert second.output, "the second turn answers"
    print(f"responses, second turn: {second.output_text!r}")


def test_anthropic_messages_two_turns_streamed(native):
    client = anthropic.Anthropic(base_url=f"http://{native.address}", api_key="unused", timeout=1800, max_retries=0)
    reminder = tool("set_reminder")["function"]
    tools = [{"name": "set_reminder", "description": reminder["description"], "input_schema": reminder["parameters"]}]
    messages = [{"role": "user", "content": REQUEST}]
    with client.messages.stream(model="qwen2.5-coder-0.5b", max_tokens=400, extra_body={"temperature": 0}, system=INSTRUCTIONS,
                                messages=messages, tools=tools, tool_choice={"type": "any"}) as stream:
        first = stream.get_final_message()
    uses = [block for block in first.content if block.type == "tool_use"]
    assert len(uses) == 1, f"not one tool_use block: {first.content}"
    assert first.stop_reason == "tool_use"
    for use in uses:
        assert use.name == "set_reminder"
        jsonschema.validate(use.input, schema("set_reminder"))
        assert_daily_reminder(use.input, (9, 0), "email")
    print(f"messages: {len(uses)} tool_use block(s) valid against the full schema: {[u.input for u in uses]}")
    messages.append({"role": "assistant", "content": [b.model_dump() for b in first.content]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": u.id, "content": RESULT} for u in uses]})
    second = client.messages.create(model="qwen2.5-coder-0.5b", max_tokens=120, extra_body={"temperature": 0}, system=INSTRUCTIONS,
                                    messages=messages, tools=tools)
    assert second.content, "the second turn answers"
    print(f"messages, second turn: {second.content!r}")
