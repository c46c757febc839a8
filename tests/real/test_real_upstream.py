"""The openai client -> plaincall -> llama-server with real small models (temperature 0). Each
test asserts the call its request asks for: that tool, valid against the full schema, with the
values the request gives, read leniently only where a model may word them differently (the
case and the words around a message, `9:00` for `09:00`). Text instead of the call fails. A
second turn, after the tool result, may answer with text or another valid call."""

from __future__ import annotations

import json
import os
import subprocess

import jsonschema

from conftest import TOOLS, assert_daily_reminder, plaincall_bin, tool

SYSTEM = "You are a helpful assistant. Use the tools when they fit the request."


def full_schema(name: str) -> dict:
    return tool(name)["function"]["parameters"]


def check_calls(calls, allowed: set[str]) -> None:
    """Every call the client receives is complete and valid against the full schema."""
    for call in calls or []:
        assert call.id, "every call has an id"
        assert call.type == "function"
        assert call.function.name in allowed, call.function.name
        jsonschema.validate(json.loads(call.function.arguments), full_schema(call.function.name),
                            cls=jsonschema.Draft202012Validator)


def the_call(choice, name: str, offered: set[str]) -> dict:
    """The one call to `name` the request asks for, checked: its arguments."""
    calls = choice.message.tool_calls
    assert calls, f"no call, only text: {choice.message.content!r}"
    assert choice.finish_reason == "tool_calls"
    check_calls(calls, offered)
    assert [c.function.name for c in calls] == [name], [(c.function.name, c.function.arguments) for c in calls]
    return json.loads(calls[0].function.arguments)


def check_answer(choice, allowed: set[str]) -> None:
    """A valid call, or plain text (a turn after the tool result may end either way)."""
    if choice.message.tool_calls:
        assert choice.finish_reason == "tool_calls"
        check_calls(choice.message.tool_calls, allowed)
    else:
        assert choice.message.content and choice.message.content.strip(), "neither a call nor text"


def ask(client, text: str, tools: list[str], **extra):
    return client.chat.completions.create(
        model="qwen2.5-coder-0.5b",
        temperature=0,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}],
        tools=[tool(t) for t in tools],
        **extra,
    )


def test_a_translated_call_is_the_reminder_the_request_asks_for(native):
    response = ask(native.client, "Remind me every day at 9am to check my email.",
                   ["set_reminder", "get_weather"], tool_choice="required")
    args = the_call(response.choices[0], "set_reminder", {"set_reminder", "get_weather"})
    assert_daily_reminder(args, (9, 0), "email")


def test_streaming_accumulates_the_reminder_call(native):
    stream = ask(native.client, "Remind me daily at noon to drink water.",
                 ["set_reminder"], tool_choice="required", stream=True,
                 stream_options={"include_usage": True})
    calls: dict[int, dict] = {}
    finish, usage, content = None, None, ""
    for chunk in stream:
        if chunk.usage:
            usage = chunk.usage
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            content += choice.delta.content or ""
            for delta in choice.delta.tool_calls or []:
                slot = calls.setdefault(delta.index, {"id": None, "name": None, "arguments": ""})
                assert not (slot["id"] and delta.id), "id is not repeated"
                slot["id"] = slot["id"] or delta.id
                if delta.function and delta.function.name:
                    slot["name"] = delta.function.name
                if delta.function and delta.function.arguments:
                    slot["arguments"] += delta.function.arguments
    assert usage is not None and usage.total_tokens > 0
    assert list(calls) == [0], f"one call at index 0: {calls}, text: {content!r}"
    assert finish == "tool_calls"
    slot = calls[0]
    assert slot["id"] and slot["name"] == "set_reminder", slot
    args = json.loads(slot["arguments"])
    jsonschema.validate(args, full_schema("set_reminder"))
    assert_daily_reminder(args, (12, 0), "water")


def test_a_two_turn_conversation_completes(native):
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": "Remind me every day at 9am to check my email."}]
    tools = [tool("set_reminder")]
    first = native.client.chat.completions.create(model="qwen2.5-coder-0.5b", temperature=0,
                                                  messages=messages, tools=tools, tool_choice="required")
    message = first.choices[0].message
    assert_daily_reminder(the_call(first.choices[0], "set_reminder", {"set_reminder"}), (9, 0), "email")
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": "Reminder set: job_id=r-17."})
    second = native.client.chat.completions.create(model="qwen2.5-coder-0.5b", temperature=0,
                                                   messages=messages, tools=tools, max_tokens=120)
    check_answer(second.choices[0], {"set_reminder"})


def test_prompt_mode_against_the_stock_template_returns_native_calls(prompt):
    response = ask(prompt.client, "What's the weather in Paris right now?", ["get_weather"])
    args = the_call(response.choices[0], "get_weather", {"get_weather"})
    assert "paris" in args["city"].lower(), args


def test_prompt_mode_streaming(prompt):
    stream = ask(prompt.client, "What's the weather in Rome?", ["get_weather"], stream=True)
    names, arguments, finish, content = [], {}, None, ""
    for chunk in stream:
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            content += choice.delta.content or ""
            for delta in choice.delta.tool_calls or []:
                if delta.function and delta.function.name:
                    names.append(delta.function.name)
                arguments[delta.index] = arguments.get(delta.index, "") + (delta.function.arguments or "")
    assert names == ["get_weather"], f"no call parsed from: {content!r}"
    assert finish == "tool_calls"
    args = json.loads(arguments[0])
    jsonschema.validate(args, full_schema("get_weather"))
    assert "rome" in args["city"].lower(), args


def test_prompt_mode_with_a_translated_tool(prompt):
    response = ask(prompt.client, "Set a reminder: every day at 08:30, take my vitamins.",
                   ["set_reminder"], tool_choice="required")
    args = the_call(response.choices[0], "set_reminder", {"set_reminder"})
    assert_daily_reminder(args, (8, 30), "vitamin")


def whitespace_outside_strings(text: str) -> list[int]:
    """Offsets of whitespace in JSON text that is not inside a string."""
    found, in_string, escaped = [], False, False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c.isspace():
            found.append(i)
    return found


def test_grammar_output_gets_compact_valid_arguments_from_llama_server(servers, tmp_path):
    """`output = "grammar"`: llama-server takes the GBNF plaincall writes (it answers 400 to
    one it cannot parse) and the translator answers without whitespace between tokens."""
    config = tmp_path / "proxy.toml"
    config.write_text(
        f'[upstream]\nurl = "{servers["test-main"]}"\n'
        f'[[translation.backends]]\nurl = "{servers["test-translator"]}"\n'
        'model = "qwen2.5-coder-1.5b"\ntimeout = "10m"\noutput = "grammar"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAINCALL_")}
    out = subprocess.run(
        [str(plaincall_bin()), "translate", "--json", "--config", str(config),
         "--tool", str(TOOLS / "spawn_sub_session.json"),
         "research the asyncio docs and write a cheatsheet to notes/asyncio.md, at most 2 hours"],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=900,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    first = result["attempts"][0]
    assert not first["errors"], result
    json.loads(first["reply"])
    assert whitespace_outside_strings(first["reply"]) == [], first["reply"]
    # Everything the worker needs was said: calls, not a question. The 1.5B may split the
    # research and the writing into two workers; either way the file is named and a time limit,
    # when set, is the two hours asked for, in seconds.
    assert result["outcome"] == "calls", result
    calls = [call["arguments"] for call in result["calls"]]
    assert calls, result
    for args in calls:
        jsonschema.validate(args, full_schema("spawn_sub_session"), cls=jsonschema.Draft202012Validator)
        assert "asyncio" in args["objective"].lower(), args
        assert args.get("timeout") in (None, 7200), args
    assert any("notes/asyncio.md" in args["objective"] for args in calls), calls
