"""A scriptable mock of an OpenAI-compatible server, in stdlib Python only.

    mock = MockUpstream().start()
    mock.script("/v1/chat/completions", JsonReply(completion(...)), SseReply([...]))
    ...
    mock.requests            # every request received, in order
    mock.stop()

Each path has a queue of replies, consumed in order (or a callable that builds the reply from
the recorded request). A request with nothing scripted gets HTTP 500 with an OpenAI-shaped
error, so a test that makes more upstream calls than expected fails loudly.

Replies:
- ``JsonReply(body, status=200, delay=0)``: a JSON body (dict/list are serialised).
- ``SseReply(events, delay=0, done=True)``: ``text/event-stream`` over chunked transfer
  encoding. ``events`` holds data payloads (dict/list serialised, str as is), ``Comment(text)``
  for an SSE comment line (``: text``) and ``Sleep(seconds)`` for a pause; ``delay`` is slept
  before every data payload; ``done`` appends ``data: [DONE]``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union


@dataclass
class Recorded:
    """One request the mock received."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any = None  # the parsed JSON body, or None when it is not JSON

    def messages(self) -> list[dict]:
        return list((self.body or {}).get("messages") or [])

    def tool(self, name: str) -> dict | None:
        for tool in (self.body or {}).get("tools") or []:
            if tool.get("function", {}).get("name") == name:
                return tool
        return None


@dataclass
class JsonReply:
    body: Any
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Comment:
    """An SSE comment line: ``: text``."""

    text: str


@dataclass
class Sleep:
    seconds: float


@dataclass
class SseReply:
    events: list
    delay: float = 0.0
    done: bool = True
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


Reply = Union[JsonReply, SseReply]
Responder = Callable[[Recorded], Reply]


def error_body(message: str, kind: str = "mock_error") -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class MockUpstream:
    """An OpenAI-compatible mock on 127.0.0.1, port chosen by the OS, served from a thread."""

    def __init__(self, name: str = "mock") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._queues: dict[str, deque] = defaultdict(deque)
        self._callables: dict[str, Responder] = {}
        self._requests: list[Recorded] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> "MockUpstream":
        mock = self

        class Handler(_Handler):
            owner = mock

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{self.name}-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "MockUpstream":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "the mock is not started"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no path)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, what OpenAI clients and plaincall are given."""
        return f"{self.url}/v1"

    # -- scripting -------------------------------------------------------------------------

    def script(self, path: str, *replies: Reply) -> "MockUpstream":
        """Queues replies for ``path`` (e.g. ``/v1/chat/completions``), answered in order."""
        with self._lock:
            self._queues[path].extend(replies)
        return self

    def on(self, path: str, responder: Responder) -> "MockUpstream":
        """Answers every request to ``path`` with ``responder(recorded)`` (after the queue)."""
        with self._lock:
            self._callables[path] = responder
        return self

    def pending(self, path: str) -> int:
        with self._lock:
            return len(self._queues[path])

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    def chat_requests(self) -> list[Recorded]:
        return self.requests_to("/v1/chat/completions")

    # -- used by the handler ---------------------------------------------------------------

    def _record_and_pick(self, recorded: Recorded) -> Reply:
        with self._lock:
            self._requests.append(recorded)
            queue = self._queues.get(recorded.path)
            if queue:
                return queue.popleft()
            responder = self._callables.get(recorded.path)
        if responder is not None:
            return responder(recorded)
        if recorded.method == "GET" and recorded.path == "/v1/models":
            # What any OpenAI-compatible server answers; plaincall probes it at start-up.
            return JsonReply({"object": "list", "data": []})
        message = f"{self.name}: nothing scripted for {recorded.method} {recorded.path}"
        with self._lock:
            self.errors.append(message)
        return JsonReply(error_body(message), status=500)


class _Handler(BaseHTTPRequestHandler):
    owner: MockUpstream
    protocol_version = "HTTP/1.1"
    server_version = "mock-upstream/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        pass

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        recorded = Recorded(
            method=self.command,
            path=self.path.split("?", 1)[0],
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
            body=body,
        )
        reply = self.owner._record_and_pick(recorded)
        try:
            if isinstance(reply, SseReply):
                self._send_sse(reply)
            else:
                self._send_json(reply)
        except (BrokenPipeError, ConnectionResetError):
            # The client (plaincall) went away mid-reply.
            self.close_connection = True

    do_GET = _handle
    do_POST = _handle
    do_PUT = _handle
    do_DELETE = _handle
    do_PATCH = _handle

    def _send_json(self, reply: JsonReply) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        body = reply.body
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        data = data.encode() if isinstance(data, str) else data
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Mock", self.owner.name)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_sse(self, reply: SseReply) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("X-Mock", self.owner.name)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.flush()
        events = list(reply.events)
        if reply.done:
            events.append("[DONE]")
        for event in events:
            if isinstance(event, Sleep):
                time.sleep(event.seconds)
                continue
            if isinstance(event, Comment):
                self._chunk(f": {event.text}\n\n".encode())
                continue
            if reply.delay:
                time.sleep(reply.delay)
            data = event if isinstance(event, str) else json.dumps(event)
            self._chunk(f"data: {data}\n\n".encode())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


# ---------------------------------------------------------------------------------------------
# OpenAI-shaped bodies
# ---------------------------------------------------------------------------------------------

CREATED = 1_760_000_000


def completion(message: dict, finish_reason: str = "stop", **extra: Any) -> dict:
    body = {
        "id": "chatcmpl-upstream-1",
        "object": "chat.completion",
        "created": CREATED,
        "model": "main-model",
        "system_fingerprint": "fp_mock",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    body.update(extra)
    return body


def text_message(text: str) -> dict:
    return {"role": "assistant", "content": text}


def tool_call(call_id: str, name: str, arguments: Any) -> dict:
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def calls_message(*calls: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def translator_reply(content: Any, delay: float = 0.0) -> JsonReply:
    """A translator backend's answer carrying ``content`` (dict/list serialised)."""
    if not isinstance(content, str):
        content = json.dumps(content)
    return JsonReply(
        {
            "id": "chatcmpl-translator",
            "object": "chat.completion",
            "created": CREATED,
            "model": "translator",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
        },
        delay=delay,
    )


def chunk(delta: dict, finish_reason: str | None = None, chunk_id: str = "chatcmpl-stream-1") -> dict:
    return {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "main-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def text_chunks(text: str, pieces: int = 3) -> list[dict]:
    """A streamed text answer: role, the text in ``pieces`` parts, then ``stop``."""
    step = max(1, -(-len(text) // pieces))
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": text[i : i + step]}) for i in range(0, len(text), step)]
    out.append(chunk({}, "stop"))
    return out


def tool_call_chunks(call_id: str, name: str, arguments: Any, every: int = 7) -> list[dict]:
    """A streamed tool call as llama.cpp/OpenAI send it: the first delta carries id, type and
    name with empty arguments, then the arguments in fragments of ``every`` characters, then a
    ``tool_calls`` finish."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    out = [
        chunk({"role": "assistant", "content": None}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ]
            }
        ),
    ]
    for i in range(0, len(arguments), every):
        out.append(
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[i : i + every]}}]})
        )
    out.append(chunk({}, "tool_calls"))
    return out
