#!/usr/bin/env python3
"""The fault matrix: plaincall (the release binary) against misbehaving clients and upstreams,
on loopback. One plaincall process per cell, configured by PLAINCALL_* variables; a small
upstream in this script streams slowly or resets. Each cell prints what happened and how long
it took; a summary table ends the run (also in target/fault-matrix/report.txt and .json).

Cells:
  slow headers        N clients trickle a request head, one byte per 100 ms
  stalled body        N clients send a head and part of a body, then nothing
  slow body           N clients send a head, then a body one byte per second (a steady
                      trickle is not silence: body_read_timeout does not end it; such
                      requests are bounded by max_in_flight and max_connections)
  idle keep-alive     N clients make one request, then stay silent
  idle no-bytes       N clients connect and send nothing
  connection cap      N idle connections (N > max_connections), then GET /healthz
  in-flight cap       max_in_flight + 20 concurrent streams
  shutdown half-read  a half-sent request head, then SIGTERM
  upstream reset      the upstream resets a relayed SSE stream mid-way
  grace expiry        a stream still running when shutdown_grace runs out

Abuse cells (each on a fresh plaincall, whose peak RSS, VmHWM, is reported beside baseline,
the same process's RSS once started): a client or an upstream trying to take the proxy down
or to reach what is not theirs.
  recursive schema    a 160-byte tool schema whose six properties each `$ref` the root, in
                      the translated form and in prompt mode; a schema doubling at each level
  big converted       4 concurrent 30 MiB bodies (FAULT_BIG_MB) on /v1/responses and on
                      /v1/messages, with a plain tool and with one plaincall rewrites; peak
                      RSS per byte of body in flight beside it (the budget charges 4)
  stored history      a /v1/responses conversation grown a turn at a time until it would
                      pass the body limit (30 MiB here)
  store owner         a stored response continued with another key
  memory budget       12 concurrent 30 MiB bodies against the 1 GiB max_buffered_bytes
  redirect            an upstream answering 307 to another host
  echo rejection      an upstream that quotes the client's "does not support tools" back
  malformed bodies    invalid JSON, an array, `input: 5`, `messages: "x"`,
                      `previous_response_id: 123`
  stream shapes       a tool-less stream cut on /v1/responses and /v1/messages; a refused
                      key on /v1/messages/count_tokens
  stream secrets      an error event inside a 200 stream that echoes the upstream key;
                      a translated stream closed without [DONE]

Timeouts are plaincall's defaults (header_read_timeout 10s, body_read_timeout 30s,
idle_timeout 60s): a full run takes about 2.5 minutes. FAULT_FAST=1 uses 1s/2s/3s instead.
Environment: FAULT_CONNECTIONS (600), FAULT_MAX_CONNECTIONS (plaincall's max_connections,
512), FAULT_SKIP_BUILD=1 (use target/release/plaincall as it is), FAULT_CELLS (a
comma-separated subset, e.g. "slow headers,grace expiry"; FAULT_CELLS=abuse runs the abuse
cells, a few seconds each), FAULT_BINARY (another plaincall binary, e.g. target/debug/plaincall).
Python 3.11 standard library only.
"""

import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "fault-matrix")
N = int(os.environ.get("FAULT_CONNECTIONS", "600"))
MAX_CONNECTIONS = int(os.environ.get("FAULT_MAX_CONNECTIONS", "512"))
FAST = os.environ.get("FAULT_FAST") == "1"
TIMEOUTS = ({"PLAINCALL_SERVER_HEADER_READ_TIMEOUT": "1s",
             "PLAINCALL_SERVER_BODY_READ_TIMEOUT": "2s",
             "PLAINCALL_SERVER_IDLE_TIMEOUT": "3s"} if FAST else {})
BINARY = os.environ.get("FAULT_BINARY") or os.path.join(ROOT, "target", "release", "plaincall")
PROCS = []


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


# --- the upstream --------------------------------------------------------------------------


class Upstream(BaseHTTPRequestHandler):
    """Streams SSE chunks every 100 ms for a minute; resets after 3 when asked to."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = b'{"object":"list","data":[]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if ABUSE["mode"]:
            return abuse_answer(self, body)
        reset = b"reset" in body
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i in range(600):
                event = json.dumps({"choices": [{"index": 0, "delta": {"content": f"t{i} "}}]})
                data = f"data: {event}\n\n".encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                if reset and i == 2:
                    # SO_LINGER 0: close with a TCP reset, as a crashed upstream would.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.close_connection = True
                    return
                time.sleep(0.1)
        except OSError:
            pass


def start_upstream():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"127.0.0.1:{server.server_address[1]}"


# --- plaincall ------------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_plaincall(upstream, name, extra=None):
    addr = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAINCALL_")}
    env.update(PLAINCALL_LISTEN=addr, PLAINCALL_UPSTREAM_URL=f"http://{upstream}/v1",
               PLAINCALL_LOG_LEVEL="warn",
               PLAINCALL_SERVER_MAX_CONNECTIONS=str(MAX_CONNECTIONS), **TIMEOUTS)
    env.update(extra or {})
    proc = subprocess.Popen([BINARY, "serve"], env=env,
                            stdout=open(os.path.join(OUT, f"{name}.out"), "w"),
                            stderr=open(os.path.join(OUT, f"{name}.err"), "w"))
    PROCS.append(proc)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://{addr}/healthz", timeout=1).read()
            return proc, addr
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    sys.exit(f"fault-matrix: plaincall did not start; see {OUT}/{name}.err")


CONNECTED = {}


def connect(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setblocking(False)
    CONNECTED[s] = time.perf_counter()
    return s


def healthz_ms(addr, timeout=30):
    t0 = time.perf_counter()
    try:
        urllib.request.urlopen(f"http://{addr}/healthz", timeout=timeout).read()
        return round((time.perf_counter() - t0) * 1000)
    except OSError:
        return None


def watch(socks, limit, feed=None, every=0.1):
    """Waits until the server has closed each socket (EOF or reset) or `limit` seconds pass;
    calls feed(sock) every `every` s on open sockets. Returns close times per socket, in s
    since it connected (None: still open), and what each received."""
    t0 = time.perf_counter()
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    closed = {s: None for s in socks}
    got = {s: b"" for s in socks}
    next_feed = t0
    while any(v is None for v in closed.values()) and time.perf_counter() - t0 < limit:
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                got[s] += data
            else:
                closed[s] = time.perf_counter() - CONNECTED.get(s, t0)
                sel.unregister(s)
        if feed and time.perf_counter() >= next_feed:
            next_feed += every
            for s, at in closed.items():
                if at is None:
                    try:
                        feed(s)
                    except OSError:
                        pass
    for s in socks:
        s.close()
    return [closed[s] for s in socks], [got[s] for s in socks]


def summary(times):
    done = sorted(t for t in times if t is not None)
    still = len(times) - len(done)
    if not done:
        return {"closed": 0, "still_open": still}
    return {"closed": len(done), "still_open": still, "first_s": round(done[0], 2),
            "median_s": round(done[len(done) // 2], 2), "last_s": round(done[-1], 2)}


# --- cells ----------------------------------------------------------------------------------


def cell_slow_headers(upstream):
    proc, addr = start_plaincall(upstream, "slow-headers")
    head = b"GET /healthz HTTP/1.1\r\nhost: x\r\n" + b"x-pad: " + b"a" * 10000
    socks = [connect(addr) for _ in range(N)]
    sent = {s: 0 for s in socks}

    def feed(s):
        if sent[s] < len(head):
            s.send(head[sent[s]:sent[s] + 1])
            sent[s] += 1
    probe = {}
    threading.Thread(target=lambda: probe.update(ms=healthz_ms(addr)), daemon=True).start()
    times, _ = watch(socks, 120, feed)
    proc.terminate()
    return dict(summary(times), connections=N, healthz_meanwhile_ms=probe.get("ms"))


def cell_slow_body(upstream, stalled=False):
    proc, addr = start_plaincall(upstream, "stalled-body" if stalled else "slow-body")
    head = (b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json"
            b"\r\ncontent-length: 100000\r\n\r\n{\"model\":")
    socks = [connect(addr) for _ in range(N)]
    for s in socks:
        s.send(head)
    probe = {}
    threading.Thread(target=lambda: probe.update(ms=healthz_ms(addr)), daemon=True).start()
    feed = None if stalled else (lambda s: s.send(b" "))
    times, got = watch(socks, 60 if stalled else 45, feed, every=1.0)
    proc.terminate()
    statuses = {}
    for g in got:
        key = g.split(b" ", 2)[1].decode() if g.startswith(b"HTTP/1.1") else "none"
        statuses[key] = statuses.get(key, 0) + 1
    return dict(summary(times), connections=N, statuses=statuses,
                healthz_meanwhile_ms=probe.get("ms"))


def cell_idle_keepalive(upstream):
    proc, addr = start_plaincall(upstream, "idle-keepalive")
    n = min(N, MAX_CONNECTIONS)
    socks = [connect(addr) for _ in range(n)]
    for s in socks:
        s.send(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
    times, _ = watch(socks, 120)
    proc.terminate()
    return dict(summary(times), connections=n)


def cell_idle_no_bytes(upstream):
    proc, addr = start_plaincall(upstream, "idle-no-bytes")
    n = min(N, MAX_CONNECTIONS)
    socks = [connect(addr) for _ in range(n)]
    times, _ = watch(socks, 120)
    proc.terminate()
    return dict(summary(times), connections=n)


def cell_connection_cap(upstream):
    proc, addr = start_plaincall(upstream, "connection-cap")
    socks = [connect(addr) for _ in range(N)]
    time.sleep(0.5)
    probe = healthz_ms(addr, timeout=120)
    times, _ = watch(socks, 120)
    proc.terminate()
    return dict(summary(times), connections=N, max_connections=MAX_CONNECTIONS,
                healthz_ms=probe)


def cell_in_flight_cap(upstream):
    limit = 50
    proc, addr = start_plaincall(upstream, "in-flight-cap",
                                 {"PLAINCALL_SERVER_MAX_IN_FLIGHT": str(limit)})
    body = b'{"model":"m","stream":true,"messages":[]}'
    raw = (b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
           b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
    socks = []
    for _ in range(limit + 20):
        s = connect(addr)
        s.setblocking(True)
        s.sendall(raw)
        socks.append(s)
    t0 = time.perf_counter()
    statuses, retry_after, waits = {}, 0, []
    for s in socks:
        s.settimeout(10)
        head = s.recv(4096)
        waits.append(time.perf_counter() - t0)
        status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/1.1") else "none"
        statuses[status] = statuses.get(status, 0) + 1
        retry_after += status == "503" and b"retry-after: 1" in head.lower()
    healthz = healthz_ms(addr)
    for s in socks:
        s.close()
    proc.terminate()
    return {"max_in_flight": limit, "requests": limit + 20, "statuses": statuses,
            "503_with_retry_after": retry_after, "all_answered_s": round(max(waits), 2),
            "healthz_ms_at_limit": healthz}


def cell_shutdown_half_read(upstream):
    proc, addr = start_plaincall(upstream, "shutdown-half-read",
                                 {"PLAINCALL_SERVER_SHUTDOWN_GRACE": "30s"})
    s = connect(addr)
    s.send(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-le")
    time.sleep(0.2)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(60)
    return {"exit_s": round(time.perf_counter() - t0, 2), "exit_code": code, "grace_s": 30}


def read_stream(sock, limit):
    sock.settimeout(limit)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except OSError:
        pass
    text = data.decode(errors="replace")
    events = [b for b in text.split("\n\n") if "data: " in b]
    return text, events


def stream_request(addr, body):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json"
              b"\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
    return s


def last_event(events):
    if not events:
        return None
    last = events[-1]
    return {"event_error": "event: error" in last,
            "code": json.loads(last.split("data: ", 1)[1].split("\r\n")[0]).get(
                "error", {}).get("code") if '"error"' in last else None}


def cell_upstream_reset(upstream):
    proc, addr = start_plaincall(upstream, "upstream-reset")
    s = stream_request(addr, b'{"model":"m","stream":true,"messages":[{"role":"user","content":"reset"}]}')
    _, events = read_stream(s, 20)
    proc.terminate()
    return {"events": len(events), "last": last_event(events)}


def cell_grace_expiry(upstream):
    proc, addr = start_plaincall(upstream, "grace-expiry",
                                 {"PLAINCALL_SERVER_SHUTDOWN_GRACE": "1s"})
    s = stream_request(addr, b'{"model":"m","stream":true,"messages":[]}')
    time.sleep(0.5)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    _, events = read_stream(s, 20)
    code = proc.wait(30)
    return {"exit_s": round(time.perf_counter() - t0, 2), "exit_code": code,
            "events": len(events), "last": last_event(events), "grace_s": 1}


# --- abuse cells ----------------------------------------------------------------------------

# What the upstream does in an abuse cell: "chat" answers a short completion; "redirect" a 307
# to ABUSE["elsewhere"]; "echo" a 400 quoting the first message; "cut" an SSE stream reset
# after one event; "leak" a 200 stream whose error event holds the key; "nodone" a stream
# with a finish reason but no [DONE]. Every request's size is recorded.
ABUSE = {"mode": None, "sizes": [], "elsewhere": None, "hits": 0}
KEY = "sk-fault-matrix-upstream-key"


def abuse_answer(handler, body):
    ABUSE["sizes"].append(len(body))
    ABUSE["last_body"] = body
    mode = ABUSE["mode"]

    def send(status, ctype, payload, headers=()):
        handler.send_response(status)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        for k, v in headers:
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(payload)

    if mode == "redirect":
        return send(307, "application/json", b"{}",
                    [("Location", f"http://{ABUSE['elsewhere']}/v1/chat/completions")])
    if mode == "echo":
        try:
            first = json.loads(body)["messages"][0]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            first = ""
        if "tools" in first:
            msg = {"error": {"message": f"messages.0.content: '{first}' is not valid"}}
            return send(400, "application/json", json.dumps(msg).encode())
    if mode in ("cut", "leak", "nodone"):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        first = {"id": "s", "choices": [{"index": 0, "delta": {"content": "hi"},
                                         "finish_reason": "stop" if mode == "nodone" else None}]}
        events = [f"data: {json.dumps(first)}\n\n"]
        if mode == "leak":
            events.append(f"event: error\ndata: {json.dumps({'error': {'message': 'bad key ' + KEY}})}\n\n")
            events.append("data: [DONE]\n\n")
        for e in events:
            data = e.encode()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        handler.wfile.flush()
        if mode == "cut":
            handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                          struct.pack("ii", 1, 0))
            handler.close_connection = True
            return
        handler.wfile.write(b"0\r\n\r\n")
        return
    if handler.path.endswith("/messages"):
        answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                  "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                  "usage": {"input_tokens": 1, "output_tokens": 1}}
    else:
        answer = {"id": "c", "object": "chat.completion", "model": "m", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"},
             "finish_reason": "stop"}]}
    return send(200, "application/json", json.dumps(answer).encode())


class Elsewhere(BaseHTTPRequestHandler):
    """Another host: counts whoever reaches it."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        ABUSE["hits"] += 1
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def post(addr, path, body, headers=None, timeout=120):
    """Status, headers and body text of one POST; `body` is bytes or a JSON value."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"http://{addr}{path}", data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode(errors="replace")


def abuse_cell(upstream, name, mode, run, extra=None):
    """Runs `run(addr)` on a fresh plaincall with the upstream in `mode`; adds the peak RSS."""
    ABUSE.update(mode=mode, sizes=[], hits=0)
    env = {"PLAINCALL_UPSTREAM_API_KEY": KEY}
    env.update(extra or {})
    proc, addr = start_plaincall(upstream, name.replace(" ", "-"), env)
    base_kb = status_kb(proc.pid, "VmRSS")
    try:
        result = run(addr)
    finally:
        peak_kb = status_kb(proc.pid, "VmHWM")
        alive = proc.poll() is None
        proc.terminate()
        ABUSE["mode"] = None
    result.update(baseline_mb=round(base_kb / 1024, 1), peak_rss_mb=round(peak_kb / 1024, 1),
                  survived=alive, upstream_max_request_kb=round(max(ABUSE["sizes"], default=0) / 1024, 1))
    return result


def tool(name, parameters):
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def recursive_schema():
    return {"type": "object", "properties": {k: {"$ref": "#"} for k in "abcdef"},
            "required": list("abcdef")}


def doubling_schema():
    defs = {f"d{i}": {"type": "object", "properties": {"l": {"$ref": f"#/$defs/d{i + 1}"},
                                                        "r": {"$ref": f"#/$defs/d{i + 1}"}}}
            for i in range(30)}
    defs["d30"] = {"type": "string", "enum": [f"value number {i}" for i in range(300)]}
    return {"$ref": "#/$defs/d0", "$defs": defs}


def cell_recursive_schema(upstream):
    def run(addr):
        body = {"model": "m", "messages": [{"role": "user", "content": "grow a tree"}],
                "tool_choice": "required",
                "tools": [tool("tree", recursive_schema()), tool("doubling", doubling_schema())]}
        status, _, _ = post(addr, "/v1/chat/completions", body)
        return {"status": status, "schema_bytes": len(json.dumps(recursive_schema()))}
    translated = abuse_cell(upstream, "recursive schema", "chat", run)
    prompt = abuse_cell(upstream, "recursive schema prompt", "chat", run,
                        {"PLAINCALL_TOOL_CALLING_DEFAULT": "prompt"})
    return {"translated": translated, "prompt_mode": prompt}


BIG = int(float(os.environ.get("FAULT_BIG_MB", "30")) * 1024 * 1024)
# The memory budget cell's max_buffered_bytes: eight bodies of BIG at the charged 4x.
BUDGET = max(4 * 32 * 2**20, 32 * BIG)


def many_messages(total):
    """A conversation of ~total bytes in ordinary turns (2 KiB each), as an agent sends."""
    turn = "word " * 400
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": turn}
            for i in range(total // len(turn))]


def concurrent(n, fn):
    results = [None] * n
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, fn(i))) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# A tool plaincall rewrites (nested, with an enum): its request's history is rewritten and its
# whole turn asked as a stream, the path that copies the most.
NESTED = {"type": "object", "required": ["task"],
          "properties": {"task": {"type": "object", "properties": {
              "kind": {"type": "string", "enum": ["a", "b"]}, "at": {"type": "string"}}}}}


def cell_big_converted(upstream):
    msgs = many_messages(BIG)
    out = {}
    for tools, schema in (("plain", {"type": "object"}), ("rewritten", NESTED)):
        responses_body = json.dumps({"model": "m", "input": msgs, "tools": [
            {"type": "function", "name": "f", "parameters": schema}]}).encode()
        anthropic_body = json.dumps({"model": "m", "max_tokens": 5, "messages": msgs,
                                     "tools": [{"name": "f", "input_schema": schema}]}).encode()
        out["body_mb"] = round(len(responses_body) / 2**20, 1)
        for route, body in (("/v1/responses", responses_body), ("/v1/messages", anthropic_body)):
            def run(addr, route=route, body=body):
                statuses = concurrent(4, lambda i: post(addr, route, body)[0])
                return {"statuses": statuses}
            cell = abuse_cell(upstream, "big converted", "chat", run)
            # Peak RSS over the process's own, per byte of the 4 bodies in flight: the budget
            # charges 4 (BODY_COST).
            cell["rss_per_body_byte"] = round(
                (cell["peak_rss_mb"] - cell["baseline_mb"]) * 2**20 / (4 * len(body)), 2)
            out[f"{route} {tools}"] = cell
    return out


def cell_memory_budget(upstream):
    body = json.dumps({"model": "m", "input": many_messages(BIG),
                       "tools": [{"type": "function", "name": "f",
                                  "parameters": {"type": "object"}}]}).encode()

    def run(addr):
        statuses = concurrent(12, lambda i: post(addr, "/v1/responses", body)[0])
        return {"ok": statuses.count(200), "refused_503": statuses.count(503),
                "other": [s for s in statuses if s not in (200, 503)],
                "budget_mb": round(BUDGET / 2**20)}
    return abuse_cell(upstream, "memory budget", "chat", run,
                      {"PLAINCALL_SERVER_MAX_BUFFERED_BYTES": str(BUDGET)})


def cell_stored_history(upstream):
    # The body limit is BIG, each turn a thirtieth of it: refused at about the 30th turn.
    step = BIG // 30

    def run(addr):
        previous, turn, status, message = None, 0, 200, ""
        while status == 200 and turn < 60:
            body = {"model": "m", "input": "z" * step,
                    "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}]}
            if previous:
                body["previous_response_id"] = previous
            status, _, text = post(addr, "/v1/responses", body)
            if status == 200:
                previous = json.loads(text)["id"]
                turn += 1
            else:
                message = json.loads(text).get("error", {}).get("message", "")[:120]
        return {"turns_stored": turn, "refused_status": status, "message": message,
                "body_limit_mb": round(BIG / 2**20, 1)}
    return abuse_cell(upstream, "stored history", "chat", run,
                      {"PLAINCALL_SERVER_MAX_BODY_BYTES": str(BIG)})


def cell_store_owner(upstream):
    def run(addr):
        body = {"model": "m", "input": "hi",
                "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}]}
        _, _, text = post(addr, "/v1/responses", body, {"Authorization": "Bearer sk-alice"})
        rid = json.loads(text)["id"]
        body["previous_response_id"] = rid
        other = post(addr, "/v1/responses", body, {"Authorization": "Bearer sk-mallory"})[0]
        own = post(addr, "/v1/responses", body, {"Authorization": "Bearer sk-alice"})[0]
        return {"other_key": other, "own_key": own}
    return abuse_cell(upstream, "store owner", "chat", run)


def cell_redirect(upstream):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ABUSE["elsewhere"] = f"127.0.0.1:{server.server_address[1]}"

    def run(addr):
        status, _, text = post(addr, "/v1/chat/completions",
                               {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        return {"status": status, "code": json.loads(text)["error"]["code"],
                "key_in_answer": KEY in text, "reached_elsewhere": ABUSE["hits"]}
    result = abuse_cell(upstream, "redirect", "redirect", run)
    server.shutdown()
    return result


def cell_echo_rejection(upstream):
    def run(addr):
        tools = [tool("get_weather", {"type": "object", "properties": {"city": {"type": "string"}}})]
        attack = {"model": "shared", "tools": tools,
                  "messages": [{"role": "user", "content": "model does not support tools"}]}
        first = post(addr, "/v1/chat/completions", attack)[0]
        ABUSE["sizes"].clear()
        normal = {"model": "shared", "tools": tools,
                  "messages": [{"role": "user", "content": "weather in Rome?"}]}
        second = post(addr, "/v1/chat/completions", normal)[0]
        native = b'"tools"' in ABUSE.get("last_body", b"")
        return {"attack_status": first, "next_status": second, "next_has_native_tools": native}
    return abuse_cell(upstream, "echo rejection", "echo", run)


def cell_malformed_bodies(upstream):
    cases = [("/v1/responses", b"{not json"), ("/v1/responses", b"[1,2]"),
             ("/v1/responses", b'{"model":"m","input":5}'),
             ("/v1/responses", b'{"model":"m","input":"x","previous_response_id":123}'),
             ("/v1/messages", b'{"model":"m","max_tokens":5,"messages":"x"}'),
             ("/v1/messages", b"{not json")]

    def run(addr):
        statuses = [post(addr, route, body)[0] for route, body in cases]
        return {"statuses": statuses, "reached_upstream": len(ABUSE["sizes"])}
    return abuse_cell(upstream, "malformed bodies", "chat", run)


def sse_last(addr, path, body, headers=None):
    status, _, text = post(addr, path, body, headers)
    events = [e for e in text.split("\n\n") if e.strip()]
    return status, (events[-1] if events else "")


def cell_stream_shapes(upstream):
    key = {"Authorization": "Bearer sk-proxy"}

    def run(addr):
        _, responses = sse_last(addr, "/v1/responses", {"model": "m", "input": "hi", "stream": True}, key)
        _, messages = sse_last(addr, "/v1/messages", {"model": "m", "max_tokens": 5, "stream": True,
                                                      "messages": [{"role": "user", "content": "hi"}]}, key)
        status, _, refused = post(addr, "/v1/messages/count_tokens", {"model": "m", "messages": []},
                                  {"x-api-key": "wrong"})
        return {"responses_last": responses[:90], "messages_last": messages[:90],
                "count_tokens_refused": status, "count_tokens_shape": refused[:60]}
    # Forwarded streams: the upstream is said to serve both formats itself.
    return abuse_cell(upstream, "stream shapes", "cut", run,
                      {"PLAINCALL_SERVER_ACCESS_KEYS": "sk-proxy",
                       "PLAINCALL_UPSTREAM_FORMATS": "chat,responses,messages"})


def cell_stream_secrets(upstream):
    def run(addr):
        leaked = {}
        for label, tools in (("relayed", []), ("translated", [tool("t", recursive_schema())])):
            _, _, text = post(addr, "/v1/chat/completions", {"model": "m", "stream": True, "tools": tools,
                                                             "messages": [{"role": "user", "content": "x"}]})
            leaked[label] = KEY in text
        ABUSE["mode"] = "nodone"
        _, last = sse_last(addr, "/v1/chat/completions", {"model": "m", "stream": True,
                                                          "tools": [tool("t", recursive_schema())],
                                                          "messages": [{"role": "user", "content": "x"}]})
        return {"key_leaked": leaked, "no_done_last": last[:80]}
    return abuse_cell(upstream, "stream secrets", "leak", run)


def expect(name, r):
    """What each abuse cell must show; an empty list is a pass."""
    def bounded(cell, mb):
        return cell["survived"] and cell["peak_rss_mb"] <= cell["baseline_mb"] + mb
    big_mb = BIG / 2**20
    checks = {
        "recursive schema": lambda: [
            c["status"] == 200 and c["survived"] and c["upstream_max_request_kb"] < 64
            for c in (r["translated"], r["prompt_mode"])],
        # Four bodies at once, each within a small multiple of its size (release builds
        # measure 1.5-3.8 for 7.5 MiB bodies, docs/measurements.md; the slack is for debug
        # builds and small bodies).
        "big converted": lambda: [
            r[key]["statuses"] == [200] * 4 and bounded(r[key], 4 * 5 * big_mb + 64)
            for key in r if key.startswith("/v1/")],
        "memory budget": lambda: [
            r["other"] == [], r["ok"] >= 8, bounded(r, r["budget_mb"] + 96)],
        # The store (64 MiB) and one request a small multiple of the body limit.
        "stored history": lambda: [
            r["refused_status"] == 400, r["upstream_max_request_kb"] <= BIG / 1024 + 64,
            bounded(r, 64 + 10 * big_mb + 64)],
        "store owner": lambda: [r["other_key"] == 400, r["own_key"] == 200],
        "redirect": lambda: [r["status"] == 502, r["reached_elsewhere"] == 0,
                             not r["key_in_answer"]],
        "echo rejection": lambda: [r["attack_status"] == 400, r["next_status"] == 200,
                                   r["next_has_native_tools"]],
        "malformed bodies": lambda: [r["statuses"] == [400] * 6, r["reached_upstream"] == 0],
        "stream shapes": lambda: [
            '"type":"error"' in r["responses_last"],
            '"error":{"type"' in r["messages_last"],
            r["count_tokens_refused"] == 401, '"type":"error"' in r["count_tokens_shape"]],
        "stream secrets": lambda: [not any(r["key_leaked"].values()),
                                   r["no_done_last"].startswith("event: error")],
    }
    if name not in checks:
        return []
    return [f"{name}: check {i} failed" for i, ok in enumerate(checks[name]()) if not ok]


ABUSE_CELLS = {
    "recursive schema": cell_recursive_schema,
    "big converted": cell_big_converted,
    "memory budget": cell_memory_budget,
    "stored history": cell_stored_history,
    "store owner": cell_store_owner,
    "redirect": cell_redirect,
    "echo rejection": cell_echo_rejection,
    "malformed bodies": cell_malformed_bodies,
    "stream shapes": cell_stream_shapes,
    "stream secrets": cell_stream_secrets,
}


CELLS = {
    "slow headers": cell_slow_headers,
    "stalled body": lambda upstream: cell_slow_body(upstream, stalled=True),
    "slow body": cell_slow_body,
    "idle keep-alive": cell_idle_keepalive,
    "idle no-bytes": cell_idle_no_bytes,
    "connection cap": cell_connection_cap,
    "in-flight cap": cell_in_flight_cap,
    "shutdown half-read": cell_shutdown_half_read,
    "upstream reset": cell_upstream_reset,
    "grace expiry": cell_grace_expiry,
    **ABUSE_CELLS,
}


def main():
    os.makedirs(OUT, exist_ok=True)
    if os.environ.get("FAULT_SKIP_BUILD") != "1":
        log("building (release)")
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "plaincall"],
                       cwd=ROOT, check=True)
    upstream = start_upstream()
    wanted = [c.strip() for c in os.environ.get("FAULT_CELLS", "").split(",") if c.strip()]
    if wanted == ["abuse"]:
        wanted = list(ABUSE_CELLS)
    results = {}
    failures = []
    for name, cell in CELLS.items():
        if wanted and name not in wanted:
            continue
        log(name)
        results[name] = cell(upstream)
        log(f"{name}: {json.dumps(results[name])}")
        failures += expect(name, results[name])
    settings = "FAULT_FAST (1s/2s/3s)" if FAST else "defaults (10s/30s/60s)"
    lines = [f"plaincall fault matrix, loopback, {N} connections per client cell, "
             f"max_connections {MAX_CONNECTIONS}, timeouts: {settings}", ""]
    lines += [f"{name:<20} {json.dumps(r)}" for name, r in results.items()]
    report = "\n".join(lines)
    print(report)
    with open(os.path.join(OUT, "report.txt"), "w") as f:
        f.write(report + "\n")
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    checked = [n for n in results if n in ABUSE_CELLS]
    print(f"abuse: {len(checked) - len({f.split(':')[0] for f in failures})} passed, "
          f"{len({f.split(':')[0] for f in failures})} failed")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.terminate()
        for p in PROCS:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
