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

Timeouts are plaincall's defaults (header_read_timeout 10s, body_read_timeout 30s,
idle_timeout 60s): a full run takes about 2.5 minutes. FAULT_FAST=1 uses 1s/2s/3s instead.
Environment: FAULT_CONNECTIONS (600), FAULT_MAX_CONNECTIONS (plaincall's max_connections,
512), FAULT_SKIP_BUILD=1 (use target/release/plaincall as it is), FAULT_CELLS (a
comma-separated subset, e.g. "slow headers,grace expiry"). Python 3.11 standard library only.
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
BINARY = os.path.join(ROOT, "target", "release", "plaincall")
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
}


def main():
    os.makedirs(OUT, exist_ok=True)
    if os.environ.get("FAULT_SKIP_BUILD") != "1":
        log("building (release)")
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "plaincall"],
                       cwd=ROOT, check=True)
    upstream = start_upstream()
    wanted = [c.strip() for c in os.environ.get("FAULT_CELLS", "").split(",") if c.strip()]
    results = {}
    for name, cell in CELLS.items():
        if wanted and name not in wanted:
            continue
        log(name)
        results[name] = cell(upstream)
        log(f"{name}: {json.dumps(results[name])}")
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
