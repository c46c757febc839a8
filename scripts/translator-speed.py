#!/usr/bin/env python3
"""How fast plaincall translates on CPU, cold and warm, with llama-server configured three ways.

A real translator (llama-server, Qwen2.5-Coder-1.5B, via scripts/real-upstream.sh) sits behind
plaincall; the main model is a stub that answers every request with one plain-English call
whose description is the user's message, so every second measured is the translator's. Three
complex tools are translated in turn, A B C A B C A B C, each time with a new description (the
translation cache never answers): the first call of each tool is cold, the later ones can reuse
that tool's prompt prefix, unless another tool's prompt evicted it. A relay between plaincall and
llama-server reads llama-server's own `timings` of each translation: prompt tokens, tokens taken
from cache, prompt and generation milliseconds.

Configurations:
  one-slot-no-cache   -np 1 --cache-ram 0   one slot, no host prompt cache: tools evict each other
  one-slot            -np 1                 llama-server's default host prompt cache (--cache-ram)
  three-slots         -np 3 -c 12288        a slot per tool (llama-server picks the most similar)

    python3 scripts/translator-speed.py --out docs/translator-speed

`--outputs json_schema,grammar` runs each configuration once per way plaincall asks the
translator for JSON (its `output` setting: `json_schema` lets the model indent, `grammar` is a
GBNF without free whitespace); the rows then show the output tokens and generation time of each.

Needs `bash scripts/real-upstream.sh install` (done on first use) and a built plaincall
(target/debug/plaincall, or PLAINCALL_DEV_BIN). Stdlib only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL_UPSTREAM = REPO / "scripts" / "real-upstream.sh"
TOOLS = REPO / "tests" / "fixtures" / "tools"
TIMEOUT_S = 600

CONFIGS = {
    "one-slot-no-cache": ["-np", "1", "--cache-ram", "0"],
    "one-slot": ["-np", "1"],
    "three-slots": ["-np", "3", "-c", "12288"],
}

# Three descriptions per tool, all different: the translation cache must not answer.
REQUESTS = {
    "set_reminder": ["daily at 09:00 to check email", "every Monday at 14:00 to review pulse",
                     "remind me daily at noon to drink water"],
    "spawn_sub_session": ["search for the latest news about AI regulation and summarize in a file",
                          "check if the wintermute service is running and restart it if not, timeout 60s",
                          "research the Python asyncio docs and write a cheatsheet to data/asyncio.md"],
    "task": ["mark task 12 as done, the report was sent to the client this morning",
             "add a task: renew passport, urgent", "remind me daily at 9am to check email"],
}

for _key in ("NO_PROXY", "no_proxy"):
    os.environ[_key] = ",".join([p for p in os.environ.get(_key, "").split(",") if p] + ["127.0.0.1", "localhost"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def reply(handler: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class StubMain(BaseHTTPRequestHandler):
    """The main model: one plain-English call to the request's first tool, the user's words as
    the description."""

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        user = next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")
        name = request["tools"][0]["function"]["name"]
        call = {"id": f"call_{int(time.time() * 1e6)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps({"description": user})}}
        body = {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": "stub",
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}
        reply(self, 200, json.dumps(body).encode())

    def log_message(self, *args) -> None:
        pass


def timing_relay(target: str, timings: list[dict]) -> type[BaseHTTPRequestHandler]:
    """Passes plaincall's translator calls to llama-server and keeps its `timings`."""
    base = target.rstrip("/").removesuffix("/v1")

    class Relay(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request = urllib.request.Request(base + self.path, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                    status, data = response.status, response.read()
            except urllib.error.HTTPError as error:
                status, data = error.code, error.read()
            with contextlib.suppress(ValueError, KeyError, TypeError):
                timings.append(json.loads(data)["timings"])
            reply(self, status, data)

        def log_message(self, *args) -> None:
            pass

    return Relay


def plaincall_bin() -> Path:
    explicit = os.environ.get("PLAINCALL_DEV_BIN")
    return Path(explicit) if explicit else REPO / "target" / "debug" / "plaincall"


@contextlib.contextmanager
def plaincall(upstream: str, translator: str, log_path: Path, output: str = "json_schema"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAINCALL_") and k != "RUST_LOG"}
    env.update(PLAINCALL_LISTEN="127.0.0.1:0", PLAINCALL_LOG_FORMAT="json")
    config = log_path.with_suffix(".toml")
    config.write_text(f'[upstream]\nurl = "{upstream}"\ntimeout = "11m"\nread_timeout = "11m"\n'
                      f'[[translation.backends]]\nurl = "{translator}"\nmodel = "qwen2.5-coder-1.5b"\ntimeout = "10m"\n'
                      f'output = "{output}"\n')
    env["PLAINCALL_CONFIG"] = str(config)
    proc = subprocess.Popen([str(plaincall_bin()), "serve"], env=env, cwd=REPO, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    address: list[str] = []
    ready = threading.Event()

    def read() -> None:
        with open(log_path, "w") as log:
            for line in proc.stderr:
                log.write(line)
                if not address:
                    with contextlib.suppress(ValueError):
                        if json.loads(line).get("message") == "plaincall listening":
                            address.append(json.loads(line)["listen"])
                            ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not ready.wait(30) or not address:
            raise SystemExit(f"plaincall did not start (log: {log_path})")
        yield f"http://{address[0]}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def ask(base_url: str, tool: dict, text: str) -> tuple[float, bool]:
    """One request through plaincall: seconds taken, and whether a structured call came back."""
    body = json.dumps({"model": "stub", "messages": [{"role": "user", "content": text}], "tools": [tool]}).encode()
    request = urllib.request.Request(base_url + "/chat/completions", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
        answer = json.loads(response.read())
    elapsed = time.monotonic() - started
    calls = answer["choices"][0]["message"].get("tool_calls") or []
    translated = bool(calls) and "description" not in json.loads(calls[0]["function"]["arguments"])
    return elapsed, translated


def run_config(name: str, flags: list[str], work: Path, output: str = "json_schema") -> list[dict]:
    env = dict(os.environ, REAL_UPSTREAM_RUN_DIR=str(work / "run"))
    instance = f"speed-{name}"
    started = subprocess.run(["bash", str(REAL_UPSTREAM), "start", instance, "1.5b", str(free_port()), *flags],
                             env=env, check=True, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    translator = started.stdout.strip().splitlines()[-1]
    timings: list[dict] = []
    relay, relay_url = serve(timing_relay(translator, timings))
    main, main_url = serve(StubMain)
    tools = {name: json.loads((TOOLS / f"{name}.json").read_text()) for name in REQUESTS}
    rows: list[dict] = []
    try:
        label = name if output == "json_schema" else f"{name}, {output}"
        with plaincall(main_url, relay_url, work / f"plaincall-{name}-{output}.log", output) as base_url:
            for round_number in range(3):
                for tool_name, texts in REQUESTS.items():
                    before = len(timings)
                    elapsed, translated = ask(base_url, tools[tool_name], texts[round_number])
                    spent = timings[before:]
                    rows.append({
                        "config": label, "flags": " ".join(flags), "output": output,
                        "tool": tool_name, "round": round_number,
                        "kind": "cold" if round_number == 0 else "warm",
                        "latency_s": round(elapsed, 2), "translated": translated,
                        "translator_calls": len(spent),
                        "prompt_tokens": sum(t.get("prompt_n", 0) + t.get("cache_n", 0) for t in spent),
                        "cached_tokens": sum(t.get("cache_n", 0) for t in spent),
                        "prompt_ms": round(sum(t.get("prompt_ms", 0) for t in spent)),
                        "generation_ms": round(sum(t.get("predicted_ms", 0) for t in spent)),
                        "output_tokens": sum(t.get("predicted_n", 0) for t in spent),
                    })
                    print(json.dumps(rows[-1]), flush=True)
    finally:
        relay.shutdown()
        main.shutdown()
        subprocess.run(["bash", str(REAL_UPSTREAM), "stop", instance], env=env, capture_output=True,
                       stdin=subprocess.DEVNULL)
    return rows


def summarize(rows: list[dict]) -> dict:
    summary = {}
    for config in dict.fromkeys(r["config"] for r in rows):
        mine = [r for r in rows if r["config"] == config]
        cold = [r["latency_s"] for r in mine if r["kind"] == "cold"]
        warm = [r["latency_s"] for r in mine if r["kind"] == "warm"]
        summary[config] = {
            "cold_mean_s": round(statistics.mean(cold), 2), "warm_mean_s": round(statistics.mean(warm), 2),
            "warm_over_cold": round(statistics.mean(warm) / statistics.mean(cold), 2),
            "warm_cached_token_share": round(
                sum(r["cached_tokens"] for r in mine if r["kind"] == "warm")
                / max(1, sum(r["prompt_tokens"] for r in mine if r["kind"] == "warm")), 2),
            "translated": f'{sum(r["translated"] for r in mine)}/{len(mine)}',
            "flags": mine[0]["flags"],
            "output_tokens_mean": round(statistics.mean(r["output_tokens"] for r in mine), 1),
            "generation_ms_mean": round(statistics.mean(r["generation_ms"] for r in mine)),
        }
    return summary


def markdown(rows: list[dict], summary: dict, meta: dict) -> str:
    lines = ["# Translator speed on CPU, cold and warm", "",
             f"llama-server with Qwen2.5-Coder-1.5B Q4_K_M as the translator, {meta['threads']} thread(s), "
             f"{meta['cpus']} CPUs, load average {meta['load']} at the start. Three tools translated in turn "
             "(A B C A B C A B C), a new description each time; the first call of each tool is cold. "
             "Rerun: `python3 scripts/translator-speed.py --out docs/translator-speed`.", "",
             "| configuration | llama-server flags | cold, mean | warm, mean | warm / cold | warm prompt tokens from cache | output tokens, mean | generation, mean | translated |",
             "|---|---|---|---|---|---|---|---|---|"]
    for config, s in summary.items():
        lines.append(f"| {config} | `{s['flags']}` | {s['cold_mean_s']} s | {s['warm_mean_s']} s | "
                     f"{s['warm_over_cold']} | {round(100 * s['warm_cached_token_share'])}% | "
                     f"{s['output_tokens_mean']} | {s['generation_ms_mean']} ms | {s['translated']} |")
    lines += ["", "Per call:", "", "| configuration | tool | round | latency | prompt tokens | from cache | prompt ms | output tokens | generation ms |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['config']} | {r['tool']} | {r['round']} ({r['kind']}) | {r['latency_s']} s | "
                     f"{r['prompt_tokens']} | {r['cached_tokens']} | {r['prompt_ms']} | {r['output_tokens']} | {r['generation_ms']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "target" / "translator-speed")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated subset of " + ", ".join(CONFIGS))
    parser.add_argument("--outputs", default="json_schema",
                        help="comma-separated ways to ask for JSON (plaincall's `output`): json_schema, grammar")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not plaincall_bin().is_file():
        raise SystemExit(f"no plaincall binary at {plaincall_bin()}: run `cargo build` or set PLAINCALL_DEV_BIN")
    subprocess.run(["bash", str(REAL_UPSTREAM), "install"], check=True, stdout=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)
    meta = {"threads": os.environ.get("REAL_UPSTREAM_THREADS", "2"), "cpus": os.cpu_count(),
            "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    work = REPO / "target" / "translator-speed-work"
    work.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    for name in args.configs.split(","):
        for output in args.outputs.split(","):
            rows += run_config(name, CONFIGS[name], work, output)
    summary = summarize(rows)
    (args.out / "results.json").write_text(json.dumps({"meta": meta, "summary": summary, "rows": rows}, indent=2) + "\n")
    (args.out / "report.md").write_text(markdown(rows, summary, meta))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    sys.exit(main())
