#!/usr/bin/env python3
"""Streaming overhead of plaincall: time to first content byte and cost per SSE chunk.

Starts, on loopback, two mock upstreams (examples/bench_upstream.rs, release) -- a short one
(BENCH_CHUNKS=32) and a long one (BENCH_LONG_CHUNKS=2000) -- and two plaincall instances in
front of each (release binary, PLAINCALL_LOG_LEVEL=warn):

  default   the default configuration (tool calling `auto`, i.e. native tools)
  prompt    PLAINCALL_TOOL_CALLING_DEFAULT=prompt: tools are rendered into the system prompt

Cases (same POST body as scripts/bench-overhead.sh's streaming run, stream=true):

  a  direct     to the mock, no tools
  b  no tools   through plaincall (default), no tools: the stream is relayed as it comes
  c  NL tool    through plaincall (prompt) with tests/fixtures/tools/set_reminder.json and
                tool_choice=auto: plaincall rewrites the tool to plain-English form and puts it
                in the system prompt, the mock (which sees no `tools`) streams content, and
                plaincall parses every chunk (prompt-mode hold-back) on its way to the client.

Why (c) uses prompt mode: in native mode plaincall sends the rewritten one-field tool as
`tools`, and the mock answers any request carrying such a tool with a non-streamed tool call
(application/json), never with content chunks, so there is no first content byte to time.

1. TTFB: time from sending the request to the first `data:` event with a non-empty
   `delta.content`, over BENCH_REQUESTS (300) sequential requests per case on the short mock,
   cases interleaved round-robin, each case on one keep-alive connection; p50/p99.
2. Per chunk: BENCH_LONG_REQUESTS (30) full streams of BENCH_LONG_CHUNKS (2000) chunks per
   case on the long mock; (median through - median direct) / chunks, plus plaincall's CPU time
   per chunk (from /proc/PID/stat).

3. Memory (BENCH_MEMORY=1, the default; BENCH_ONLY=memory runs only this): plaincall's RSS
   (/proc/PID/status VmRSS, peak VmHWM) idle, during BENCH_STREAMS (500) concurrent streams
   (every stream has delivered its first chunk, none is finished), and 4 s after they all
   ended; the same with 500 concurrent requests at the default server.max_in_flight (how many
   got 200 / 503); and a BENCH_BIG_BYTES (50 MB) non-streaming reply on the rewrite path
   (peak RSS of a fresh process). With BENCH_COMPARE_ALLOC=1 (default) a second binary built
   without the `trim` feature (no malloc_trim once idle) is measured the same way.

Run it pinned to emulate 2 cores: `taskset -c 2,3 python3 scripts/bench-stream.py`.
Environment: BENCH_REQUESTS, BENCH_WARMUP (20 requests per case), BENCH_CHUNKS (32),
BENCH_LONG_CHUNKS (2000), BENCH_LONG_REQUESTS (30), BENCH_OUT (target/bench-stream: logs and
report.txt / results.json), BENCH_SKIP_BUILD=1 (use the binaries in target/release).
Python 3.11 standard library only.
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "300"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "20"))
CHUNKS = int(os.environ.get("BENCH_CHUNKS", "32"))
LONG_CHUNKS = int(os.environ.get("BENCH_LONG_CHUNKS", "2000"))
LONG_REQUESTS = int(os.environ.get("BENCH_LONG_REQUESTS", "30"))
OUT = os.environ.get("BENCH_OUT", os.path.join(ROOT, "target", "bench-stream"))
STREAMS = int(os.environ.get("BENCH_STREAMS", "500"))
BIG_BYTES = int(os.environ.get("BENCH_BIG_BYTES", str(50 * 1000 * 1000)))
MEMORY = os.environ.get("BENCH_MEMORY", "1") == "1"
ONLY = os.environ.get("BENCH_ONLY", "")
COMPARE_ALLOC = os.environ.get("BENCH_COMPARE_ALLOC", "1") == "1"
CLK_TCK = os.sysconf("SC_CLK_TCK")

PROCS = []


def die(msg):
    print(f"bench-stream: {msg}", file=sys.stderr)
    sys.exit(1)


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


# --- processes -------------------------------------------------------------------------------


def start_mock(chunks, name):
    env = dict(os.environ, BENCH_CHUNKS=str(chunks))
    out = open(os.path.join(OUT, f"{name}.out"), "w+")
    err = open(os.path.join(OUT, f"{name}.err"), "w")
    proc = subprocess.Popen(
        [os.path.join(ROOT, "target/release/examples/bench_upstream"), "0"],
        stdout=out, stderr=err, env=env)
    PROCS.append(proc)
    for _ in range(200):
        out.seek(0)
        line = out.readline().strip()
        if line:
            return proc, line
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    die(f"mock {name} did not start")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_plaincall(upstream, name, extra_env, binary="plaincall"):
    addr = f"127.0.0.1:{free_port()}"
    env = dict(os.environ, PLAINCALL_LISTEN=addr, PLAINCALL_UPSTREAM_URL=f"http://{upstream}/v1",
               PLAINCALL_LOG_LEVEL="warn", **extra_env)
    proc = subprocess.Popen(
        [os.path.join(ROOT, "target/release", binary), "serve"],
        stdout=open(os.path.join(OUT, f"{name}.out"), "w"),
        stderr=open(os.path.join(OUT, f"{name}.err"), "w"), env=env)
    PROCS.append(proc)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://{addr}/healthz", timeout=1).read()
            return proc, addr
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    die(f"plaincall {name} did not start; see {OUT}/{name}.err")


def cpu_us(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e6 / CLK_TCK


# --- HTTP/1.1 keep-alive client ------------------------------------------------------------


class Conn:
    """One keep-alive connection; responses are read chunk by chunk (chunked encoding)."""

    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host = addr
        self.buf = bytearray()

    def request(self, body):
        head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {self.host}\r\n"
                "Content-Type: application/json\r\nAccept: text/event-stream\r\n"
                f"Connection: keep-alive\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        return head + body

    def _fill(self):
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("connection closed")
        self.buf += data

    def read_head(self):
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            self._fill()
        head = bytes(self.buf[:end]).decode("latin-1")
        del self.buf[:end + 4]
        lines = head.split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in
                   (line.split(":", 1) for line in lines[1:])}
        return status, headers

    def chunks(self, headers):
        """Yields the body in pieces as they arrive (de-chunked)."""
        if "content-length" in headers:
            n = int(headers["content-length"])
            while len(self.buf) < n:
                self._fill()
            piece = bytes(self.buf[:n])
            del self.buf[:n]
            yield piece
            return
        while True:
            while (eol := self.buf.find(b"\r\n")) < 0:
                self._fill()
            size = int(bytes(self.buf[:eol]).split(b";")[0], 16)
            while len(self.buf) < eol + 2 + size + 2:
                self._fill()
            piece = bytes(self.buf[eol + 2:eol + 2 + size])
            del self.buf[:eol + 2 + size + 2]
            if size == 0:
                return
            yield piece


def first_content(event_line):
    try:
        chunk = json.loads(event_line[6:])
        return bool(chunk["choices"][0]["delta"].get("content"))
    except (ValueError, KeyError, IndexError, TypeError):
        return False


def ttfb_request(conn, raw):
    """Sends one request; returns (µs to the first content event, µs to the end)."""
    t0 = time.perf_counter_ns()
    conn.sock.sendall(raw)
    status, headers = conn.read_head()
    if status != 200:
        die(f"status {status} from {conn.host}: {b''.join(conn.chunks(headers))[:300]!r}")
    first = None
    pending = b""
    for piece in conn.chunks(headers):
        if first is None:
            pending += piece
            while (nl := pending.find(b"\n")) >= 0:
                line, pending = pending[:nl], pending[nl + 1:]
                if line.startswith(b"data: {") and first_content(line):
                    first = time.perf_counter_ns()
                    break
    end = time.perf_counter_ns()
    if first is None:
        die(f"no content event from {conn.host}")
    return (first - t0) / 1e3, (end - t0) / 1e3


def full_request(conn, raw):
    """Sends one request and reads the whole stream; returns µs to the end."""
    t0 = time.perf_counter_ns()
    conn.sock.sendall(raw)
    status, headers = conn.read_head()
    if status != 200:
        die(f"status {status} from {conn.host}")
    for _ in conn.chunks(headers):
        pass
    return (time.perf_counter_ns() - t0) / 1e3


def check_stream(addr, raw, chunks):
    """One full request, parsed: the expected content events arrive, and [DONE]."""
    conn = Conn(addr)
    conn.sock.sendall(raw)
    status, headers = conn.read_head()
    body = b"".join(conn.chunks(headers)).decode()
    conn.sock.close()
    if status != 200 or not headers.get("content-type", "").startswith("text/event-stream"):
        die(f"{addr}: status {status}, {headers.get('content-type')}: {body[:300]}")
    events = [line[6:] for line in body.split("\n") if line.startswith("data: ")]
    if events[-1] != "[DONE]":
        die(f"{addr}: stream did not end with [DONE]")
    text = "".join((json.loads(e)["choices"][0]["delta"].get("content") or "")
                   for e in events[:-1] if json.loads(e).get("choices"))
    expect = "".join(f"word{i} " for i in range(chunks))
    if text != expect:
        die(f"{addr}: content differs ({len(text)} vs {len(expect)} chars)")
    return len(events)


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


# --- memory ----------------------------------------------------------------------------------


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def mb(kb):
    return kb / 1024


def open_streams(addr, body, n):
    """n connections, one streaming request each (Connection: close); waits until each has
    its status line and, for 200s, a first body chunk. Returns (sockets, statuses)."""
    raw = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\n"
           "Content-Type: application/json\r\nConnection: close\r\n"
           f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    host, port = addr.rsplit(":", 1)
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, int(port)))
        s.sendall(raw)
        socks.append(s)
    statuses = []
    for s in socks:
        s.settimeout(30)
        head = b""
        while b"\r\n\r\n" not in head:
            data = s.recv(4096)
            if not data:
                break
            head += data
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1") else 0
        if status == 200 and head.endswith(b"\r\n\r\n"):
            s.recv(4096)  # the first chunk
        statuses.append((status, head))
    return socks, statuses


def drain(socks):
    for s in socks:
        s.settimeout(60)
        try:
            while s.recv(1 << 20):
                pass
        except OSError:
            pass
        s.close()


def memory_run(binary, mock_long, with_tool):
    """RSS of one binary: idle, 500 concurrent streams, after; the in-flight limit; big body."""
    plain = json.dumps({"model": "bench-model", "stream": True, "messages": [
        {"role": "user", "content": "Say hello."}]}).encode()
    res = {}
    proc, addr = start_plaincall(mock_long, f"{binary}-streams",
                                 {"PLAINCALL_SERVER_MAX_IN_FLIGHT": str(STREAMS * 2),
                                  "PLAINCALL_SERVER_MAX_CONNECTIONS": str(STREAMS * 2)}, binary)
    check_stream(addr, Conn(addr).request(plain), LONG_CHUNKS)
    time.sleep(0.5)
    res["idle_kb"] = status_kb(proc.pid, "VmRSS")
    t0 = time.perf_counter()
    socks, statuses = open_streams(addr, plain, STREAMS)
    res["open_s"] = time.perf_counter() - t0
    res["during_kb"] = status_kb(proc.pid, "VmRSS")
    res["streams_ok"] = sum(1 for st, _ in statuses if st == 200)
    drain(socks)
    time.sleep(2)
    time.sleep(2)  # plaincall looks at its in-flight gauge once a second
    res["after_kb"] = status_kb(proc.pid, "VmRSS")
    res["peak_kb"] = status_kb(proc.pid, "VmHWM")
    proc.terminate()
    proc.wait(10)

    # At the default in-flight limit (256): 200s while permits last, then 503 + Retry-After.
    proc, addr = start_plaincall(mock_long, f"{binary}-limit", {}, binary)
    t0 = time.perf_counter()
    socks, statuses = open_streams(addr, plain, STREAMS)
    res["limit_open_s"] = time.perf_counter() - t0
    res["limit_200"] = sum(1 for st, _ in statuses if st == 200)
    res["limit_503"] = sum(1 for st, _ in statuses if st == 503)
    res["limit_retry_after"] = sum(1 for st, h in statuses
                                   if st == 503 and b"retry-after: 1" in h.lower())
    drain(socks)
    proc.terminate()
    proc.wait(10)

    # A BIG_BYTES non-streaming reply on the rewrite path, in a fresh process.
    proc, addr = start_plaincall(mock_long, f"{binary}-big", {}, binary)
    time.sleep(0.3)
    res["big_before_kb"] = status_kb(proc.pid, "VmRSS")
    big = json.loads(with_tool)
    big["stream"] = False
    big["messages"][-1]["content"] = f"big={BIG_BYTES}"
    conn = Conn(addr)
    conn.sock.sendall(conn.request(json.dumps(big).encode()).replace(
        b"Accept: text/event-stream\r\n", b""))
    status, headers = conn.read_head()
    size = sum(len(p) for p in conn.chunks(headers))
    if status != 200 or size < BIG_BYTES:
        die(f"big reply: status {status}, {size} bytes")
    res["big_peak_kb"] = status_kb(proc.pid, "VmHWM")
    time.sleep(3)
    res["big_after_kb"] = status_kb(proc.pid, "VmRSS")
    proc.terminate()
    proc.wait(10)
    return res


def memory_bench(with_tool):
    mock_proc, mock_long = start_mock(LONG_CHUNKS, "mock-memory")
    binaries = ["plaincall"]
    if COMPARE_ALLOC and os.path.exists(os.path.join(ROOT, "target/release/plaincall-no-trim")):
        binaries.append("plaincall-no-trim")
    results = {}
    for binary in binaries:
        log(f"memory: {binary}")
        results[binary] = memory_run(binary, mock_long, with_tool)
    mock_proc.terminate()
    lines = ["", f"3. Memory: RSS (MB) of plaincall idle, with {STREAMS} concurrent streams "
             f"({LONG_CHUNKS}-chunk streams, each past its first chunk), 4 s after they ended; "
             f"peak; a {BIG_BYTES / 1e6:.0f} MB non-streaming rewrite reply (fresh process)", ""]
    lines.append(f"{'binary':<24} {'idle':>6} {'during':>7} {'after':>6} {'peak':>6} "
                 f"{'after/idle':>10} {'big before':>10} {'big peak':>9} {'big after':>9}")
    for binary, r in results.items():
        lines.append(f"{binary:<24} {mb(r['idle_kb']):6.1f} {mb(r['during_kb']):7.1f} "
                     f"{mb(r['after_kb']):6.1f} {mb(r['peak_kb']):6.1f} "
                     f"{r['after_kb'] / r['idle_kb']:10.2f} {mb(r['big_before_kb']):10.1f} "
                     f"{mb(r['big_peak_kb']):9.1f} {mb(r['big_after_kb']):9.1f}")
    lines += ["", f"{STREAMS} concurrent streams at the default server.max_in_flight (256):"]
    for binary, r in results.items():
        lines.append(f"{binary:<24} {r['limit_200']} x 200, {r['limit_503']} x 503 "
                     f"({r['limit_retry_after']} with Retry-After: 1); all answered in "
                     f"{r['limit_open_s']:.2f} s")
    return lines, results


# --- main ------------------------------------------------------------------------------------


def main():
    os.makedirs(OUT, exist_ok=True)
    if os.environ.get("BENCH_SKIP_BUILD") != "1":
        log("building (release)")
        if MEMORY and COMPARE_ALLOC:
            # The same code without returning memory to the OS, for the memory comparison.
            subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "plaincall",
                            "--no-default-features"], cwd=ROOT, check=True)
            os.replace(os.path.join(ROOT, "target/release/plaincall"),
                       os.path.join(ROOT, "target/release/plaincall-no-trim"))
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "plaincall"],
                       cwd=ROOT, check=True)
        subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "bench_upstream"],
                       cwd=ROOT, check=True)

    base = {"model": "bench-model",
            "messages": [{"role": "system", "content": "You are a helpful assistant."},
                         {"role": "user", "content": "Say hello in one short sentence."}],
            "temperature": 0.2, "stream": True}
    with open(os.path.join(ROOT, "tests/fixtures/tools/set_reminder.json")) as f:
        tool = json.load(f)
    plain = json.dumps(base, separators=(",", ":")).encode()
    with_tool = json.dumps(dict(base, tools=[tool], tool_choice="auto"),
                           separators=(",", ":")).encode()
    if ONLY == "memory":
        lines, results = memory_bench(with_tool)
        report = "\n".join(lines)
        print(report)
        with open(os.path.join(OUT, "report-memory.txt"), "w") as f:
            f.write(report + "\n")
        with open(os.path.join(OUT, "results-memory.json"), "w") as f:
            json.dump(results, f)
        return

    _, mock_short = start_mock(CHUNKS, "mock-short")
    mock_long_proc, mock_long = start_mock(LONG_CHUNKS, "mock-long")
    pc_short, pc_short_addr = start_plaincall(mock_short, "plaincall-short", {})
    pcp_short, pcp_short_addr = start_plaincall(
        mock_short, "plaincall-prompt-short", {"PLAINCALL_TOOL_CALLING_DEFAULT": "prompt"})
    pc_long, pc_long_addr = start_plaincall(mock_long, "plaincall-long", {})
    pcp_long, pcp_long_addr = start_plaincall(
        mock_long, "plaincall-prompt-long", {"PLAINCALL_TOOL_CALLING_DEFAULT": "prompt"})

    # (address, body, plaincall process or None) per case, short and long
    short = {"a direct": (mock_short, plain, None),
             "b no tools": (pc_short_addr, plain, pc_short),
             "c NL tool": (pcp_short_addr, with_tool, pcp_short)}
    long = {"a direct": (mock_long, plain, None),
            "b no tools": (pc_long_addr, plain, pc_long),
            "c NL tool": (pcp_long_addr, with_tool, pcp_long)}
    # The direct tool body, as a check that the mock streams with the original tool too.
    for name, (addr, body, _) in list(short.items()) + [("a direct+tool", (mock_short, with_tool, None))]:
        n = check_stream(addr, Conn(addr).request(body), CHUNKS)
        log(f"check {name}: {n} events")
    for name, (addr, body, _) in long.items():
        n = check_stream(addr, Conn(addr).request(body), LONG_CHUNKS)
        log(f"check long {name}: {n} events")

    # 1. TTFB, interleaved
    conns = {k: Conn(a) for k, (a, _, _) in short.items()}
    raws = {k: conns[k].request(b) for k, (_, b, _) in short.items()}
    ttfb = {k: [] for k in short}
    total = {k: [] for k in short}
    log(f"TTFB: {WARMUP} warm-up + {REQUESTS} requests per case")
    for i in range(WARMUP + REQUESTS):
        for k in short:
            first, end = ttfb_request(conns[k], raws[k])
            if i >= WARMUP:
                ttfb[k].append(first)
                total[k].append(end)

    # 2. long streams, interleaved
    lconns = {k: Conn(a) for k, (a, _, _) in long.items()}
    lraws = {k: lconns[k].request(b) for k, (_, b, _) in long.items()}
    ltimes = {k: [] for k in long}
    lcpu = {k: 0.0 for k in long}
    log(f"long streams: 3 warm-up + {LONG_REQUESTS} x {LONG_CHUNKS} chunks per case")
    for i in range(3 + LONG_REQUESTS):
        for k, (_, _, proc) in long.items():
            pid = proc.pid if proc else mock_long_proc.pid
            c0 = cpu_us(pid)
            t = full_request(lconns[k], lraws[k])
            c1 = cpu_us(pid)
            if i >= 3:
                ltimes[k].append(t)
                lcpu[k] += c1 - c0

    # --- report
    cpu = os.sched_getaffinity(0)
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    lines = [f"plaincall streaming overhead, loopback; client, mocks and plaincall on CPUs "
             f"{sorted(cpu)} of {os.cpu_count()} ({model})",
             f"1. TTFB to first content event, {REQUESTS} sequential requests per case "
             f"({CHUNKS}-chunk streams, keep-alive), µs", ""]
    d50, d99 = pct(ttfb["a direct"], 50), pct(ttfb["a direct"], 99)
    lines.append(f"{'case':<12} {'p50':>8} {'p99':>8} {'+p50':>8} {'+p99':>8} "
                 f"{'x p50':>6} {'x p99':>6} {'stream end p50':>15}")
    results = {"ttfb": {}, "long": {}}
    for k in short:
        p50, p99 = pct(ttfb[k], 50), pct(ttfb[k], 99)
        e50 = pct(total[k], 50)
        results["ttfb"][k] = {"p50": p50, "p99": p99, "mean": statistics.mean(ttfb[k]),
                              "end_p50": e50}
        lines.append(f"{k:<12} {p50:8.0f} {p99:8.0f} {p50 - d50:8.0f} {p99 - d99:8.0f} "
                     f"{p50 / d50:6.2f} {p99 / d99:6.2f} {e50:15.0f}")
    lines += ["", f"2. {LONG_REQUESTS} streams of {LONG_CHUNKS} chunks per case, total time "
              f"(µs), added per chunk (µs), CPU per chunk of the server answering (µs)", ""]
    lines.append(f"{'case':<12} {'p50':>9} {'min':>9} {'p90':>9} {'+µs/chunk':>10} "
                 f"{'x p50':>6} {'CPU µs/chunk':>13}")
    l50 = statistics.median(ltimes["a direct"])
    for k in long:
        m = statistics.median(ltimes[k])
        per_chunk = (m - l50) / LONG_CHUNKS
        cpu_chunk = lcpu[k] / LONG_REQUESTS / LONG_CHUNKS
        results["long"][k] = {"p50": m, "min": min(ltimes[k]), "p90": pct(ltimes[k], 90),
                              "added_us_per_chunk": per_chunk, "cpu_us_per_chunk": cpu_chunk}
        lines.append(f"{k:<12} {m:9.0f} {min(ltimes[k]):9.0f} {pct(ltimes[k], 90):9.0f} "
                     f"{per_chunk:10.2f} {m / l50:6.2f} {cpu_chunk:13.2f}")
    lines += ["", "CPU per chunk: the mock for 'a direct', plaincall for b and c "
              "(kernel CLK_TCK resolution)."]
    if MEMORY:
        memory_lines, results["memory"] = memory_bench(with_tool)
        lines += memory_lines
    report = "\n".join(lines)
    print(report)
    with open(os.path.join(OUT, "report.txt"), "w") as f:
        f.write(report + "\n")
    results["raw"] = {"ttfb": ttfb, "total": total, "long": ltimes}
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in PROCS:
            p.terminate()
        for p in PROCS:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
