"""Shared pieces of the translation tests: the request, the scripted upstream answers, the
checks on what the main model received, and three ways of reading a stream (the SDK's
``create(stream=True)``, its ``stream()`` helper, raw bytes over stdlib ``http.client``)."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from mock_upstream import JsonReply, SseReply, completion, calls_message, text_message, tool_call, tool_call_chunks

CHAT = "/v1/chat/completions"
CALL_ID = "call_main_1"
DESCRIPTION = "daily at 09:00 to check email"
STRUCTURED = {"message": "Check email", "schedule_type": "daily", "at": "09:00"}
TRANSLATED_PREFIX = '[Translated to: message="Check email", schedule_type="daily", at="09:00"]'
USER = {"role": "user", "content": "Remind me every day at nine in the morning and at six in the evening to check my email."}
# What the translator is asked: the user's own words, then the main model's description.
TRANSLATOR_INPUT = f"User's latest message: {USER['content']}\nDescription: {DESCRIPTION}"
TOOL_RESULT = "Reminder set: job 7"
FINAL_TEXT = "Done: I will remind you every day at 09:00."
QUESTION = "Which device should the reminder go to?"
ASK_USER = "When should I remind you?"
TRANSLATOR_DELAY = 1.5


def direct_ask_declined() -> JsonReply:
    """The main model's answer to the direct ask plaincall makes before a question about a
    rewritten tool goes back, where the request offers another tool: words, no call, so the
    question stands."""
    return JsonReply(completion(text_message("Which details do you need?")))


def nl_call_completion() -> dict:
    call = tool_call(CALL_ID, "set_reminder", {"description": DESCRIPTION})
    return completion(calls_message(call), "tool_calls")


def nl_call_stream() -> SseReply:
    # Arguments split every 5 characters, as small models' servers stream them.
    return SseReply(tool_call_chunks(CALL_ID, "set_reminder", {"description": DESCRIPTION}, every=5), delay=0.01)


def request_args(tools: dict) -> dict:
    return {
        "model": "main-model",
        "messages": [USER],
        "tools": [tools["set_reminder"], tools["get_weather"]],
    }


def assert_rewritten_tools(request, tools: dict) -> None:
    """What the main model saw: set_reminder in one-field form, get_weather untouched."""
    rewritten = request.tool("set_reminder")
    assert rewritten is not None, request.body.get("tools")
    parameters = rewritten["function"]["parameters"]
    assert parameters["type"] == "object"
    assert list(parameters["properties"]) == ["description"]
    assert parameters["properties"]["description"]["type"] == "string"
    assert parameters["required"] == ["description"]
    assert rewritten["function"]["description"] != tools["set_reminder"]["function"]["description"]
    assert request.tool("get_weather") == tools["get_weather"]
    assert [t["function"]["name"] for t in request.body["tools"]] == ["set_reminder", "get_weather"]


def assert_translator_asked(translator_mock, times: int = 1) -> None:
    requests = translator_mock.chat_requests()
    assert len(requests) == times, [r.body for r in requests]
    for request in requests:
        assert request.body["model"] == "translator"
        assert request.body["messages"][-1] == {"role": "user", "content": TRANSLATOR_INPUT}


def history_with(call: dict) -> list[dict]:
    """The next turn's messages: the client sends back the call it got, and the tool result."""
    return [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": TOOL_RESULT},
    ]


def assert_history_rewritten(request) -> None:
    """The main model's second turn sees its own plain-English call, not the structured one."""
    messages = request.messages()
    assert messages[0] == USER
    assistant, tool = messages[1], messages[2]
    assert assistant["role"] == "assistant"
    (call,) = assistant["tool_calls"]
    assert call["id"] == CALL_ID
    assert call["function"]["name"] == "set_reminder"
    assert json.loads(call["function"]["arguments"]) == {"description": DESCRIPTION}
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == CALL_ID
    assert tool["content"].startswith(TRANSLATED_PREFIX), tool["content"]
    assert tool["content"].endswith(TOOL_RESULT)
    assert len(messages) == 3


def assert_repair_turn(request) -> None:
    """The repair turn: the main model's call and a tool message carrying the question."""
    messages = request.messages()
    assert messages[0] == USER
    assistant, tool = messages[-2], messages[-1]
    assert assistant["role"] == "assistant"
    (call,) = assistant["tool_calls"]
    assert call["id"] == CALL_ID
    assert call["function"]["name"] == "set_reminder"
    assert json.loads(call["function"]["arguments"]) == {"description": DESCRIPTION}
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == CALL_ID
    assert tool["content"].startswith(f"[TRANSLATION AMBIGUITY] {QUESTION}"), tool["content"]


def accumulate(stream) -> dict:
    """What an OpenAI client builds from ``create(stream=True)``: content, calls by index,
    the last finish reason."""
    content = ""
    calls: dict[int, dict] = {}
    finish = None
    ids = set()
    for piece in stream:
        ids.add(piece.id)
        for choice in piece.choices:
            assert choice.index == 0
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
            for delta in choice.delta.tool_calls or []:
                slot = calls.setdefault(delta.index, {"id": "", "type": "", "name": "", "arguments": ""})
                slot["id"] += delta.id or ""
                slot["type"] = delta.type or slot["type"]
                if delta.function is not None:
                    slot["name"] += delta.function.name or ""
                    slot["arguments"] += delta.function.arguments or ""
    return {"content": content, "calls": calls, "finish": finish, "ids": ids}


def stream_with_create(client, args: dict) -> dict:
    raw = client.chat.completions.with_raw_response.create(**args, stream=True)
    assert raw.status_code == 200
    assert raw.headers["content-type"].startswith("text/event-stream")
    out = accumulate(raw.parse())
    calls = [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
        for _, c in sorted(out["calls"].items())
    ]
    for c in out["calls"].values():
        assert c["type"] == "function"
    assert len(out["ids"]) == 1, f"chunks carry different ids: {out['ids']}"
    return {"content": out["content"], "calls": calls, "finish": out["finish"]}


def stream_with_helper(client, args: dict) -> dict:
    with client.chat.completions.stream(**args) as stream:
        events = list(stream)
        final = stream.get_final_completion()
    done = [e for e in events if e.type == "tool_calls.function.arguments.done"]
    message = final.choices[0].message
    calls = [
        {"id": c.id, "type": c.type, "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in message.tool_calls or []
    ]
    # The helper's own event for a finished call carries the same arguments.
    assert [(e.name, json.loads(e.arguments)) for e in done] == [
        (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls
    ]
    return {"content": message.content or "", "calls": calls, "finish": final.choices[0].finish_reason}


def stream_raw(proxy, args: dict) -> dict:
    """The SSE bytes as they come over the wire (stdlib http.client, no SDK in between)."""
    url = urlsplit(proxy.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        conn.request(
            "POST",
            "/v1/chat/completions",
            body=json.dumps({**args, "stream": True}),
            headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
        )
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")
        body = response.read().decode()
    finally:
        conn.close()
    lines = body.split("\n")
    comments = [i for i, line in enumerate(lines) if line.startswith(":")]
    assert comments, f"no keep-alive comment in the stream:\n{body}"
    payloads = [line[len("data: ") :] for line in lines if line.startswith("data: ")]
    assert payloads[-1] == "[DONE]"
    calls: dict[int, dict] = {}
    content = ""
    finish = None
    for payload in payloads[:-1]:
        for choice in json.loads(payload)["choices"]:
            delta = choice.get("delta") or {}
            content += delta.get("content") or ""
            finish = choice.get("finish_reason") or finish
            for d in delta.get("tool_calls") or []:
                slot = calls.setdefault(d["index"], {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                slot["id"] += d.get("id") or ""
                slot["function"]["name"] += (d.get("function") or {}).get("name") or ""
                slot["function"]["arguments"] += (d.get("function") or {}).get("arguments") or ""
    # The keep-alives went out while the translation ran, before the translated call.
    first_call_line = next(i for i, line in enumerate(lines) if '"tool_calls"' in line)
    assert comments[0] < first_call_line, body
    return {"content": content, "calls": [c for _, c in sorted(calls.items())], "finish": finish}


STREAMERS = {
    "create": lambda proxy, client, args: stream_with_create(client, args),
    "helper": lambda proxy, client, args: stream_with_helper(client, args),
    "raw": lambda proxy, client, args: stream_raw(proxy, args),
}


CLARIFICATION = {"error": "missing_info", "clarification_needed": QUESTION}
