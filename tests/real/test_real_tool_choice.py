"""The right tool with a real small model: a plain state check offered beside a rewritten
tool goes to the plain tool. The 0.5B main model writes that call as text instead of calling
natively, with its one field wrapped in an object of itself (`{"lock": {"lock": ...}}`); it
is read as a call (`tool_calling.text_calls`) and unwrapped. And a wrong tool is caught: a
question no offered tool answers, which the 0.5B sends to the rewritten reminder tool, gets no
reminder (#39)."""

from __future__ import annotations

import json

from conftest import the_call, tool

SYSTEM = "You are a helpful assistant. Use the tools when they fit the request."

CHECK_LOCK = {
    "type": "function",
    "function": {
        "name": "check_lock",
        "description": "Tell whether a smart lock is locked.",
        "parameters": {
            "type": "object",
            "properties": {"lock": {"type": "string", "description": "The lock's entity id, such as lock.back_door"}},
            "required": ["lock"],
        },
    },
}


def test_a_state_check_goes_to_the_plain_tool_not_the_rewritten_one(native):
    response = native.client.chat.completions.create(
        model="qwen2.5-coder-0.5b", temperature=0,
        messages=[{"role": "system", "content": SYSTEM},
                  {"role": "user", "content": "Is the front door locked? Check lock.front_door."}],
        tools=[tool("set_reminder"), CHECK_LOCK], max_tokens=300)
    args = the_call(response.choices[0], CHECK_LOCK)
    # The 0.5B names the lock as "front_door" or "lock.front_door"; either is the lock asked.
    assert str(args["lock"]).endswith("front_door"), args


def test_a_request_for_no_offered_tool_gets_no_call_to_the_rewritten_one(native):
    since = len(native.lines)
    response = native.client.chat.completions.create(
        model="qwen2.5-coder-0.5b", temperature=0,
        messages=[{"role": "system", "content": SYSTEM},
                  {"role": "user", "content": "What is the weather in Paris right now?"}],
        tools=[tool("set_reminder")], max_tokens=300)
    message = response.choices[0].message
    # The 0.5B reaches for the reminder tool (as text or natively, on every run here); the
    # translator objects, or the translation holds nothing the user said: no reminder goes out.
    assert not message.tool_calls, [(c.function.name, c.function.arguments) for c in message.tool_calls]
    assert '"set_reminder"' not in (message.content or ""), message.content
    lines = native.lines_with('"message":"translation"', timeout=3.0, since=since)
    asked = [t for t in map(json.loads, lines) if t.get("tool") == "set_reminder"]
    assert asked, "the main model did not call the reminder tool: nothing was caught"
    assert any(t.get("outcome") == "wrong_tool" for t in asked), asked
