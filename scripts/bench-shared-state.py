#!/usr/bin/env python3
"""What a translation cache hit costs when it comes from Redis instead of the process.

    python3 scripts/bench-shared-state.py            # N=300 descriptions, about a minute
    BENCH_N=100 python3 scripts/bench-shared-state.py

Loopback only, bounded in count and time. Starts a real redis-server on a free port, a mock
main model (it calls `set_reminder` in plain English with the user's words) and a mock
translator (stdlib HTTP servers, instant), and three release plaincall processes: A and B
share Redis, C has none. Then, one request at a time on a kept-alive connection:

  1. A translates N distinct requests (the translator is called N times; Redis is filled);
  2. B serves the same N: each translation a hit from Redis (the translator is not called);
  3. B serves them again: each a hit from B's own cache;
  4. C serves them twice without Redis; the second pass is the in-process baseline.

Prints p50/p90/mean of the time to the whole reply for phases 2, 3 and 4b, and the ratios, on
this machine in this run. Exits non-zero if the translator was called in phase 2 or 3.
"""

import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(os.environ.get("BENCH_N", "300"))
TOOL = json.load(open(os.path.join(ROOT, "tests/fixtures/tools/set_reminder.json")))
ARGS = {"message": "Check email", "schedule_type": "daily", "at": "09:00"}
translator_calls = 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mock(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Headers and body go out in two writes: without this, Nagle holds the second.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply({"object": "list", "data": []})

    def do_POST(self):
        global translator_calls
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if self.server.role == "translator":
            translator_calls += 1
            message = {"role": "assistant", "content": json.dumps(ARGS)}
        else:
            said = request["messages"][-1]["content"]
            call = {"id": "call_1", "type": "function", "function": {
                "name": "set_reminder", "arguments": json.dumps({"description": said})}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        self.reply({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def mock(role):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Mock)
    server.role = role
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def wait_port(port, what, process=None):
    deadline = time.time() + 20
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            sys.exit(f"{what} exited early")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{what} did not start on port {port}")


def plaincall(binary, upstream, translator, redis_url):
    port = free_port()
    env = dict(os.environ)
    env.update({
        "PLAINCALL_LISTEN": f"127.0.0.1:{port}",
        "PLAINCALL_UPSTREAM_URL": f"http://127.0.0.1:{upstream}/v1",
        "PLAINCALL_TRANSLATOR_URL": f"http://127.0.0.1:{translator}/v1",
        "PLAINCALL_TRANSLATOR_MODEL": "translator",
        "PLAINCALL_LOG_LEVEL": "warn",
    })
    if redis_url:
        env["PLAINCALL_REDIS_URL"] = redis_url
    process = subprocess.Popen([binary, "serve"], env=env, cwd=tempfile.gettempdir(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, "plaincall", process)
    return process, port


def run(port, n, tag):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    for i in range(n):
        body = json.dumps({"model": "m", "tools": [TOOL], "messages": [
            {"role": "user", "content": f"remind me daily at 9 to check email (#{i})"}]})
        started = time.perf_counter()
        connection.request("POST", "/v1/chat/completions", body,
                           {"content-type": "application/json"})
        response = connection.getresponse()
        data = response.read()
        times.append(time.perf_counter() - started)
        if response.status != 200 or b"Check email" not in data:
            sys.exit(f"{tag}: request {i} failed: {response.status} {data[:300]!r}")
    connection.close()
    return times


def summary(times):
    ordered = sorted(times)
    return {"p50": statistics.median(ordered) * 1e6,
            "p90": ordered[int(len(ordered) * 0.9)] * 1e6,
            "mean": statistics.fmean(ordered) * 1e6}


def main():
    if not shutil.which("redis-server"):
        sys.exit("redis-server is missing (Debian: apt-get install redis-server)")
    binary = os.path.abspath(os.environ.get("PLAINCALL_DEV_BIN") or os.path.join(ROOT, "target/release/plaincall"))
    if "PLAINCALL_DEV_BIN" not in os.environ:
        subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "plaincall"],
                       cwd=ROOT, check=True)
    redis_port = free_port()
    data = tempfile.mkdtemp()
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", data],
                             stdout=subprocess.DEVNULL)
    wait_port(redis_port, "redis-server", redis)
    upstream, translator = mock("main"), mock("translator")
    url = f"redis://127.0.0.1:{redis_port}/0"
    processes = []
    try:
        a, a_port = plaincall(binary, upstream.server_port, translator.server_port, url)
        b, b_port = plaincall(binary, upstream.server_port, translator.server_port, url)
        c, c_port = plaincall(binary, upstream.server_port, translator.server_port, None)
        processes = [a, b, c]
        run(a_port, N, "A, translating")
        translated = translator_calls
        from_redis = run(b_port, N, "B, hits from Redis")
        in_process = run(b_port, N, "B, hits from its own cache")
        if translator_calls != translated:
            sys.exit(f"the translator was called {translator_calls - translated} times on B")
        run(c_port, N, "C, translating")
        baseline = run(c_port, N, "C, hits without Redis")
        rows = [("B: hit from Redis", summary(from_redis)),
                ("B: hit from its own cache (Redis configured)", summary(in_process)),
                ("C: hit from its own cache (no Redis)", summary(baseline))]
        print(f"\n{N} requests each, one at a time, whole reply (microseconds):")
        print(f"{'phase':48} {'p50':>8} {'p90':>8} {'mean':>8}")
        for name, s in rows:
            print(f"{name:48} {s['p50']:8.0f} {s['p90']:8.0f} {s['mean']:8.0f}")
        base = rows[2][1]
        for name, s in rows[:2]:
            print(f"{name}: p50 {s['p50'] / base['p50']:.2f}x, +{s['p50'] - base['p50']:.0f} us "
                  f"over the baseline")
    finally:
        for process in processes:
            process.terminate()
        redis.terminate()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
