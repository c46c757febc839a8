#!/usr/bin/env python3
"""Translation quality on BFCL: the `bfcl-eval` package's data and AST checker, used as they are.

Run it through scripts/bfcl/run.sh, which installs what this needs and builds plaincall. This
script samples the cases, starts the model servers (scripts/real-upstream.sh, niced) and
plaincall per mode, asks each mode every sampled case, checks the answers with BFCL's
`ast_checker`, and writes results.json, cases.jsonl, report.md and chart.svg.

Groups (the sample is seeded, so the same options give the same cases):
- complex: single-turn cases (simple_python, multiple, parallel, parallel_multiple, live_*) in
  which `plaincall explain` says `auto` rewrites at least one tool; spread round-robin across
  the categories.
- control: the same categories, but no tool is rewritten (plaincall passes them through).
- irrelevance: `irrelevance` and `live_irrelevance`; passed when the model makes no call.
The classification runs the binary's own `explain` on every tool, so it follows the current
rule. Modes: direct-0.5b, direct-1.5b (the model server alone), plaincall (0.5B behind
plaincall, translating with the 1.5B model) and plaincall-1.5b-self (the 1.5B behind plaincall
with no translator configured: it translates its own descriptions, the one-model setup).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import random
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REAL_UPSTREAM = REPO / "scripts" / "real-upstream.sh"
TEMPLATE = REPO / "scripts" / "templates" / "qwen-coder-json-tools.jinja"

CALL_CATEGORIES = [
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
]
IRRELEVANCE_CATEGORIES = ["irrelevance", "live_irrelevance"]
MODES = ["direct-0.5b", "direct-1.5b", "plaincall", "plaincall-1.5b-self"]
MODE_LABELS = {
    "direct-0.5b": "0.5B alone",
    "direct-1.5b": "1.5B alone",
    "plaincall": "0.5B via plaincall + 1.5B translator",
    "plaincall-1.5b-self": "1.5B via plaincall, translating for itself",
}
GROUPS = ["complex", "control", "irrelevance"]
# Our name for the checker. BFCL's OpenAI function-calling handler turns "." in tool names
# into "_" (OpenAI allows no dots); the checker maps them back when the model's config says
# underscore_to_dot, as it does for every "-FC" model.
CHECKER_MODEL = "plaincall-bfcl-FC"

for _key in ("NO_PROXY", "no_proxy"):
    os.environ[_key] = ",".join([p for p in os.environ.get(_key, "").split(",") if p] + ["127.0.0.1", "localhost"])


def load_bfcl():
    """Imports the checker and the data helpers of bfcl-eval, unchanged.

    ast_checker imports bfcl_eval.constants.model_config only for MODEL_CONFIG_MAPPING[name]
    .underscore_to_dot, and that module imports every model handler (torch, vllm, cloud SDKs).
    So a minimal stand-in for exactly that one module is registered first; all other code is
    the package's own.
    """
    @dataclass
    class ModelConfig:
        model_name: str
        underscore_to_dot: bool = True

    stand_in = types.ModuleType("bfcl_eval.constants.model_config")
    stand_in.ModelConfig = ModelConfig
    stand_in.MODEL_CONFIG_MAPPING = {CHECKER_MODEL: ModelConfig(CHECKER_MODEL, True)}
    sys.modules["bfcl_eval.constants.model_config"] = stand_in

    from bfcl_eval.constants.enums import Language, ModelStyle
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.model_handler.utils import convert_to_tool
    from bfcl_eval.utils import (is_empty_output, is_function_calling_format_output,
                                 load_dataset_entry, load_ground_truth_entry)

    return types.SimpleNamespace(
        Language=Language, ast_checker=ast_checker, is_empty=is_empty_output,
        is_call_format=is_function_calling_format_output, load_entries=load_dataset_entry,
        load_answers=load_ground_truth_entry,
        # BFCL's own conversion to OpenAI tools (dict->object, float->number, tuple->array,
        # any->string, "." in names -> "_"), as its OpenAI FC handler sends them.
        to_tools=lambda functions: convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS),
    )


# --- sample -------------------------------------------------------------------------------

def load_cases(bfcl) -> list[dict]:
    cases = []
    for category in CALL_CATEGORIES + IRRELEVANCE_CATEGORIES:
        answers = {}
        if category in CALL_CATEGORIES:
            answers = {a["id"]: a["ground_truth"] for a in bfcl.load_answers(category)}
        for entry in bfcl.load_entries(category):
            if len(entry["question"]) != 1:  # single-turn only
                continue
            cases.append({
                "id": entry["id"], "category": category, "messages": entry["question"][0],
                "function": entry["function"], "tools": bfcl.to_tools(entry["function"]),
                "answer": answers.get(entry["id"]),
            })
    return cases


def classify(cases: list[dict], binary: Path, config: Path, env: dict) -> None:
    """Sets case["rewritten"] to the tools `plaincall explain` says `auto` rewrites."""
    tools = [t for c in cases for t in c["tools"]]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(tools, f)
    try:
        out = subprocess.run([str(binary), "explain", "--config", str(config), f.name], env=env,
                             check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    finally:
        os.unlink(f.name)
    # One unindented "NAME: rewritten: ..." / "NAME: passed through: ..." line per tool, in order.
    headers = [line for line in out.splitlines() if line and not line[0].isspace()]
    if len(headers) != len(tools):
        raise SystemExit(f"plaincall explain printed {len(headers)} tool lines for {len(tools)} tools")
    it = iter(zip(tools, headers))
    for case in cases:
        case["rewritten"] = []
        for _ in case["tools"]:
            tool, line = next(it)
            name = tool["function"]["name"]
            if not line.startswith(f"{name}: "):
                raise SystemExit(f"plaincall explain: expected a line for {name}, got {line!r}")
            if line[len(name) + 2:].startswith("rewritten:"):
                case["rewritten"].append(name)


def round_robin(pools: dict[str, list[dict]], count: int, per_category: int | None) -> list[dict]:
    picked, taken = [], {k: 0 for k in pools}
    while len(picked) < count:
        progress = False
        for key, pool in pools.items():
            if len(picked) >= count:
                break
            if taken[key] < len(pool) and (per_category is None or taken[key] < per_category):
                picked.append(pool[taken[key]])
                taken[key] += 1
                progress = True
        if not progress:
            break
    return picked


def sample(cases: list[dict], args) -> list[dict]:
    rng = random.Random(args.seed)
    pools: dict[str, dict[str, list[dict]]] = {g: {} for g in GROUPS}
    for case in sorted(cases, key=lambda c: c["id"]):
        if case["category"] in IRRELEVANCE_CATEGORIES:
            group = "irrelevance"
        else:
            group = "complex" if case["rewritten"] else "control"
        pools[group].setdefault(case["category"], []).append(case)
    chosen = []
    for group, count in (("complex", args.complex), ("control", args.controls), ("irrelevance", args.irrelevance)):
        by_cat = {k: pools[group][k] for k in sorted(pools[group])}
        for pool in by_cat.values():
            rng.shuffle(pool)
        for case in round_robin(by_cat, count, args.per_category):
            chosen.append(dict(case, group=group))
    return chosen


# --- servers ------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    """llama-server instances via real-upstream.sh (own run dir, niced), stopped on exit."""

    def __init__(self, run_dir: Path) -> None:
        self.env = dict(os.environ, REAL_UPSTREAM_RUN_DIR=str(run_dir))
        self.started: list[str] = []

    def start(self, name: str, model: str, template: bool) -> str:
        extra = ["--chat-template-file", str(TEMPLATE)] if template else []
        out = subprocess.run(["nice", "-n", "10", "bash", str(REAL_UPSTREAM), "start", name, model,
                              str(free_port()), *extra], env=self.env, check=True,
                             stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        self.started.append(name)
        return out.stdout.strip().splitlines()[-1]

    def stop_all(self) -> None:
        for name in self.started:
            subprocess.run(["bash", str(REAL_UPSTREAM), "stop", name], env=self.env,
                           capture_output=True, stdin=subprocess.DEVNULL)
        self.started.clear()


def plaincall_env(upstream: str, translator: str | None, output: str = "json_schema") -> dict:
    """No translator: the upstream model translates its own descriptions (one model).
    `output`: how the translating model is asked for JSON (`grammar` for llama-server)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAINCALL_") and k != "RUST_LOG"}
    env.update(PLAINCALL_UPSTREAM_URL=upstream)
    if translator is not None:
        # CPU inference on a busy machine: a translation may take longer than the default
        # minute (a translator that timed out failed cases that had nothing wrong).
        env.update(PLAINCALL_TRANSLATOR_URL=translator, PLAINCALL_TRANSLATOR_MODEL="qwen2.5-coder-1.5b",
                   PLAINCALL_TRANSLATOR_OUTPUT=output, PLAINCALL_TRANSLATOR_TIMEOUT="10m")
    else:
        env.update(PLAINCALL_TRANSLATION_UPSTREAM_OUTPUT=output)
    return env


class Recorder:
    """A loopback relay between plaincall and the main model that keeps the tool calls the
    model made: in the through mode they carry the plain-English `description` the 0.5B model
    wrote, before the translator turns it into arguments."""

    def __init__(self, upstream: str, timeout_s: int) -> None:
        self.calls: list[dict] = []
        target, calls = upstream.rstrip("/").removesuffix("/v1"), self.calls

        host = urllib.parse.urlsplit(target)

        class Relay(BaseHTTPRequestHandler):
            def relay(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
                upstream = http.client.HTTPConnection(host.hostname, host.port, timeout=timeout_s)
                done = threading.Event()
                threading.Thread(target=self.cancel_when_gone, args=(upstream, done), daemon=True).start()
                try:
                    upstream.request(self.command, host.path + self.path, body=body,
                                     headers={"Content-Type": "application/json"})
                    r = upstream.getresponse()
                    status, kind = r.status, r.getheader("Content-Type", "")
                    if kind.startswith("text/event-stream"):
                        # Relayed as it comes: plaincall watches a turn while it is written
                        # (and may leave it, which the model server must see).
                        self.relay_stream(r, status, kind)
                        return
                    data = r.read()
                except (OSError, http.client.HTTPException):
                    return  # cut below: plaincall stopped waiting
                finally:
                    done.set()
                    upstream.close()
                with contextlib.suppress(ValueError, AttributeError, IndexError, KeyError, TypeError):
                    message = json.loads(data)["choices"][0]["message"]
                    calls.append({"content": message.get("content"), "tool_calls": [
                        {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                        for c in message.get("tool_calls") or []]})
                # plaincall may have stopped waiting (its translation budget ran out).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("Content-Type", kind or "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def relay_stream(self, r, status: int, kind: str) -> None:
                """An event stream passed on line by line (the connection closes at its end), its
                calls folded and kept like a whole answer's."""
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.end_headers()
                content, folded = "", {}
                try:
                    while line := r.readline():
                        self.wfile.write(line)
                        self.wfile.flush()
                        if not line.startswith(b"data: "):
                            continue
                        with contextlib.suppress(ValueError, AttributeError, IndexError, KeyError, TypeError):
                            delta = json.loads(line[6:])["choices"][0]["delta"]
                            content += delta.get("content") or ""
                            for c in delta.get("tool_calls") or []:
                                call = folded.setdefault(c.get("index", 0), {"name": "", "arguments": ""})
                                call["name"] = call["name"] or (c.get("function") or {}).get("name") or ""
                                call["arguments"] += (c.get("function") or {}).get("arguments") or ""
                finally:
                    calls.append({"content": content or None,
                                  "tool_calls": [folded[i] for i in sorted(folded)]})

            def cancel_when_gone(self, upstream: http.client.HTTPConnection, done: threading.Event) -> None:
                """plaincall drops a request it no longer waits for (a direct ask the translation
                beat): the model server must see that too, as it would without this relay, or
                it generates on for a request nobody reads and the next case waits behind it."""
                while not done.wait(0.5):
                    with contextlib.suppress(OSError, ValueError):
                        readable, _, _ = select.select([self.connection], [], [], 0)
                        if readable and not self.connection.recv(1, socket.MSG_PEEK):
                            if upstream.sock is not None:
                                upstream.sock.shutdown(socket.SHUT_RDWR)
                            return

            do_GET = do_POST = relay

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self) -> list[dict]:
        taken = self.calls[:]
        del self.calls[:len(taken)]
        return taken

    def close(self) -> None:
        self.server.shutdown()


def write_config(folder: Path, timeout_s: int) -> Path:
    # CPU inference is slow and the machine busy: timeouts above the client's own.
    path = folder / "proxy.toml"
    minutes = math.ceil(timeout_s / 60) + 1
    path.write_text(f'[upstream]\ntimeout = "{minutes}m"\nread_timeout = "{minutes}m"\n')
    return path


@contextlib.contextmanager
def plaincall(binary: Path, config: Path, env: dict, log_path: Path):
    full = dict(env, PLAINCALL_LISTEN="127.0.0.1:0", PLAINCALL_LOG_FORMAT="json", PLAINCALL_CONFIG=str(config))
    proc = subprocess.Popen([str(binary), "serve"], env=full, cwd=REPO, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    address: list[str] = []
    ready = threading.Event()

    def read() -> None:
        with open(log_path, "w") as log:
            for line in proc.stderr:
                log.write(line)
                log.flush()
                if not address:
                    with contextlib.suppress(ValueError):
                        record = json.loads(line)
                        if record.get("message") == "plaincall listening":
                            address.append(record["listen"])
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


# --- asking and checking ------------------------------------------------------------------

def ask(base_url: str, model: str, case: dict, timeout_s: int) -> dict:
    body = {"model": model, "messages": case["messages"], "tools": case["tools"], "temperature": 0}
    if not case["tools"]:
        del body["tools"]
    req = urllib.request.Request(f"{base_url}/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as r:
            answer = json.load(r)
        error = None
    except urllib.error.HTTPError as e:
        answer, error = None, f"HTTP {e.code}: {e.read()[:500].decode(errors='replace')}"
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as e:
        answer, error = None, f"{type(e).__name__}: {e}"
    latency = time.monotonic() - t0
    message = ((answer or {}).get("choices") or [{}])[0].get("message") or {}
    calls = [{"name": c.get("function", {}).get("name"), "arguments": c.get("function", {}).get("arguments")}
             for c in message.get("tool_calls") or []]
    return {"calls": calls, "content": message.get("content"), "error": error, "latency_s": round(latency, 2)}


def decode(calls: list[dict]):
    """BFCL's OpenAI FC handler's decode_ast: [{name: json.loads(arguments)}, ...]."""
    return [{c["name"]: json.loads(c["arguments"])} for c in calls]


def check(bfcl, case: dict, got: dict) -> tuple[bool, str | None]:
    if got["error"]:
        return False, got["error"]
    try:
        decoded = decode(got["calls"]) if got["calls"] else None
    except (ValueError, TypeError) as e:
        decoded, decode_error = None, f"arguments are not JSON: {e}"
    else:
        decode_error = None
    if case["group"] == "irrelevance":
        # As BFCL's relevance runner: passed when nothing decodes to a function call.
        made_call = decoded is not None and not bfcl.is_empty(decoded)
        return (not made_call), ("made a call" if made_call else None)
    if decoded is None:
        return False, decode_error or "no tool call"
    if not bfcl.is_call_format(decoded):
        return False, "not in function-call format"
    result = bfcl.ast_checker(case["function"], decoded, case["answer"], bfcl.Language.PYTHON,
                              case["category"], CHECKER_MODEL)
    return bool(result["valid"]), (None if result["valid"] else "; ".join(map(str, result.get("error", []))))


def faithfulness(case: dict, got: dict) -> dict:
    """What #21 counts beside the checker's verdict: whether the right tools were called, whether
    the request ended without a call, and the fields of the calls that the request never gave
    (`invented`): a field the possible answers do not have, or one whose only acceptable
    value is leaving it out (BFCL writes that as "") and which got another value."""
    try:
        decoded = decode(got["calls"]) if got["calls"] else []
    except (ValueError, TypeError):
        decoded = []
    # BFCL's answers keep dotted names (`math.hypot`); the tools sent carry them with `_`.
    norm = lambda name: str(name).replace(".", "_")
    expected = {norm(next(iter(a))) for a in (case.get("answer") or []) if isinstance(a, dict) and a}
    called = {norm(next(iter(c))) for c in decoded if isinstance(c, dict) and c}
    invented = []
    for call in decoded:
        if not isinstance(call, dict) or not call:
            continue
        name, fields = next(iter(call.items()))
        answers = [params for a in (case.get("answer") or []) if isinstance(a, dict)
                   for key, params in a.items() if norm(key) == norm(name)]
        if not answers or not isinstance(fields, dict):
            continue
        invented += [f"{name}.{path}" for path in unsaid_fields(fields, answers)]
    # The right tools, whatever the count and the arguments: choice apart from filling.
    return {"right_tool": called == expected if expected else not called,
            "no_call": not called, "invented": invented}


def unsaid_fields(fields: dict, answers: list[dict], prefix: str = "") -> list[str]:
    """The fields (one level of nested objects too) that no possible answer has, or whose only
    acceptable value is leaving them out, given another value."""
    out = []
    for key, value in fields.items():
        accepted_lists = [a.get(key) for a in answers]
        if all(acc is None for acc in accepted_lists):
            out.append(prefix + key)
            continue
        accepted = [v for acc in accepted_lists if acc is not None for v in acc]
        if isinstance(value, dict) and not prefix:
            nested = [v for v in accepted if isinstance(v, dict)]
            if nested:
                out += unsaid_fields(value, [{k: (vv if isinstance(vv, list) else [vv]) for k, vv in n.items()}
                                             for n in nested], prefix=f"{key}.")
                continue
        if "" in accepted and value not in accepted and value != "":
            out.append(prefix + key)
    return out


def run_mode(bfcl, mode: str, cases: list[dict], urls: dict, args, log, recorder=None) -> list[dict]:
    model = "qwen2.5-coder-1.5b" if mode in ("direct-1.5b", "plaincall-1.5b-self") else "qwen2.5-coder-0.5b"
    rows = []
    for i, case in enumerate(cases, 1):
        got = ask(urls[mode], model, case, args.timeout)
        passed, why = check(bfcl, case, got)
        row = {"mode": mode, "id": case["id"], "category": case["category"], "group": case["group"],
               "rewritten": case["rewritten"], "passed": passed, "why": why, **got,
               **faithfulness(case, got)}
        if recorder is not None:
            row["main_model_replies"] = recorder.take()
        rows.append(row)
        log(f"{mode} {i}/{len(cases)} {case['id']} ({case['group']}): {'pass' if passed else 'fail'} "
            f"in {got['latency_s']} s{'' if passed else ' - ' + str(why)[:160]}")
    return rows


def run_modes(bfcl, modes: list[str], cases: list[dict], args, work: Path, log) -> tuple[list[dict], dict]:
    servers = Servers(work / "llama-run")
    rows, wall = [], {}
    try:
        for mode in modes:
            t0 = time.monotonic()
            if mode == "direct-0.5b":
                urls = {mode: servers.start("bfcl-main", "0.5b", True)}
                rows += run_mode(bfcl, mode, cases, urls, args, log)
            elif mode == "direct-1.5b":
                urls = {mode: servers.start("bfcl-big", "1.5b", True)}
                rows += run_mode(bfcl, mode, cases, urls, args, log)
            else:
                alone = mode == "plaincall-1.5b-self"
                main = servers.start("bfcl-big", "1.5b", True) if alone else servers.start("bfcl-main", "0.5b", True)
                translator = None if alone else servers.start("bfcl-translator", "1.5b", False)
                recorder = Recorder(main, args.timeout + 60)
                env = dict(plaincall_env(recorder.url, translator, args.translator_output),
                           **dict(args.plaincall_env))
                log_file = args.out / ("plaincall-self.log" if alone else "plaincall.log")
                try:
                    with plaincall(args.plaincall_bin, args.config, env, log_file) as url:
                        recorder.take()  # start-up probes
                        rows += run_mode(bfcl, mode, cases, {mode: url}, args, log, recorder)
                finally:
                    recorder.close()
            servers.stop_all()
            wall[mode] = round(time.monotonic() - t0, 1)
            log(f"{mode}: done in {wall[mode]} s")
    finally:
        servers.stop_all()
    return rows, wall


# --- report -------------------------------------------------------------------------------

def summarize(rows: list[dict], modes: list[str], cases: list[dict]) -> dict:
    summary = {}
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        groups = {}
        for group in GROUPS:
            g = [r for r in mine if r["group"] == group]
            groups[group] = {"passed": sum(r["passed"] for r in g), "cases": len(g),
                             "mean_latency_s": round(sum(r["latency_s"] for r in g) / len(g), 1) if g else None}
        categories = {}
        for r in mine:
            c = categories.setdefault(f"{r['group']}/{r['category']}", {"passed": 0, "cases": 0})
            c["passed"] += r["passed"]
            c["cases"] += 1
        asked = [r for r in mine if r["group"] != "irrelevance"]
        delivered = [r for r in asked if not r.get("no_call", True)]
        summary[mode] = {"groups": groups, "categories": dict(sorted(categories.items())),
                         "errors": sum(1 for r in mine if r["error"]),
                         # Over the cases that ask for a call (complex and control).
                         "right_tool": sum(1 for r in asked if r.get("right_tool")),
                         "no_call": sum(1 for r in asked if r.get("no_call")),
                         "calls_delivered": len(delivered),
                         "calls_with_invented_fields": sum(1 for r in delivered if r.get("invented")),
                         "invented_fields": sum(len(r.get("invented") or []) for r in delivered),
                         "asked": len(asked),
                         "max_latency_s": max((r["latency_s"] for r in mine), default=None)}
    return summary


def chart(summary: dict, modes: list[str]) -> str:
    """Grouped bars: percent passed per group, one colour per mode (like eval's chart)."""
    colours = {"direct-0.5b": "#9aa5b1", "direct-1.5b": "#f0a030", "plaincall": "#2f7ed8",
               "plaincall-1.5b-self": "#7b4fd0"}
    width, height, left, base = 640, 300, 40, 250
    slot = (width - left - 10) / len(GROUPS)
    bar = slot / (len(modes) + 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="18">BFCL cases passed, % per group (AST checker)</text>',
           f'<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="black"/>']
    for gi, group in enumerate(GROUPS):
        x0 = left + gi * slot + bar / 2
        for mi, mode in enumerate(modes):
            g = summary[mode]["groups"][group]
            pct = 100 * g["passed"] / g["cases"] if g["cases"] else 0
            h = 200 * pct / 100
            x = x0 + mi * bar
            out.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar * 0.95:.1f}" height="{h:.1f}" fill="{colours.get(mode, "#666")}"/>')
            out.append(f'<text x="{x + bar / 2:.1f}" y="{base - h - 4:.1f}" text-anchor="middle">{g["passed"]}/{g["cases"]}</text>')
        out.append(f'<text x="{x0 + len(modes) * bar / 2:.1f}" y="{base + 18}" text-anchor="middle">{group}</text>')
    for mi, mode in enumerate(modes):
        x = left + mi * 200
        out.append(f'<rect x="{x}" y="{height - 22}" width="12" height="12" fill="{colours.get(mode, "#666")}"/>')
        out.append(f'<text x="{x + 16}" y="{height - 12}">{MODE_LABELS.get(mode, mode)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def markdown(meta: dict, summary: dict, modes: list[str], cases: list[dict]) -> str:
    counts = {g: sum(c["group"] == g for c in cases) for g in GROUPS}
    lines = [
        "# plaincall on BFCL", "",
        f"bfcl-eval {meta['bfcl_eval_version']} data and AST checker, {len(cases)} single-turn cases "
        f"(seed {meta['seed']}): {counts['complex']} complex (`auto` rewrites at least one tool, per "
        f"`plaincall explain`), {counts['control']} controls (no tool rewritten), "
        f"{counts['irrelevance']} irrelevance (passed when no call is made). Temperature 0, CPU "
        f"(llama-server, Qwen2.5-Coder Q4_K_M, {meta['llama_threads']} thread(s), context {meta['llama_ctx']}). Rerun: `scripts/bfcl/run.sh` (see scripts/README.md).", "",
        "![BFCL cases passed](chart.svg)", "",
        "| mode | " + " | ".join(f"{g} ({counts[g]})" for g in GROUPS) + " | mean latency complex | mode wall time |",
        "|---|" + "---|" * (len(GROUPS) + 2),
    ]
    for mode in modes:
        s = summary[mode]["groups"]
        lat = s["complex"]["mean_latency_s"]
        lines.append(f"| {MODE_LABELS.get(mode, mode)} | " + " | ".join(f"{s[g]['passed']}/{s[g]['cases']}" for g in GROUPS)
                     + f" | {'-' if lat is None else f'{lat} s'} | {meta['wall_s'].get(mode, '-')} s |")
    lines += ["", "Faithfulness, over the cases that ask for a call: the right tools called, requests "
              "that ended without a call, and delivered calls with a field the request never gave "
              "(the answers do not have it, or accept only leaving it out):", "",
              "| mode | right tool | no call | calls with invented fields | invented fields | worst latency |",
              "|---|---|---|---|---|---|"]
    for mode in modes:
        s = summary[mode]
        if "right_tool" not in s:
            continue
        lines.append(f"| {MODE_LABELS.get(mode, mode)} | {s['right_tool']}/{s['asked']} | {s['no_call']}/{s['asked']} "
                     f"| {s['calls_with_invented_fields']}/{s['calls_delivered']} | {s['invented_fields']} "
                     f"| {s['max_latency_s']} s |")
    lines += ["", "Per category (passed/cases):", "",
              "| group/category | " + " | ".join(MODE_LABELS.get(m, m) for m in modes) + " |",
              "|---|" + "---|" * len(modes)]
    keys = sorted({k for m in modes for k in summary[m]["categories"]})
    for key in keys:
        cells = [summary[m]["categories"].get(key, {"passed": 0, "cases": 0}) for m in modes]
        lines.append(f"| {key} | " + " | ".join(f"{c['passed']}/{c['cases']}" for c in cells) + " |")
    lines += ["", "Binaries: " + ", ".join(f"{k}: `{v}`" for k, v in meta["plaincall"].items()) + ".",
              "Per-case calls and checker messages: `cases.jsonl`; totals: `results.json`.", ""]
    return "\n".join(lines)


# --- main ---------------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=REPO / "docs" / "bfcl", help="output folder (default docs/bfcl)")
    p.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {','.join(MODES)}")
    p.add_argument("--complex", type=int, default=40, help="complex cases (default 40)")
    p.add_argument("--controls", type=int, default=10, help="control cases (default 10)")
    p.add_argument("--irrelevance", type=int, default=10, help="irrelevance cases (default 10)")
    p.add_argument("--per-category", type=int, default=None, help="at most N cases per category and group")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--timeout", type=int, default=600, help="seconds per request (default 600)")
    p.add_argument("--translator-output", default="json_schema",
                   choices=["auto", "json_schema", "grammar", "json_object", "none"],
                   help="how the translating model is asked for JSON (plaincall's `output`; default "
                        "json_schema, plaincall's default; auto: a GBNF grammar once llama-server has answered)")
    p.add_argument("--plaincall-bin", type=Path,
                   default=Path(os.environ.get("PLAINCALL_DEV_BIN") or REPO / "target" / "debug" / "plaincall"))
    p.add_argument("--keep-other-modes", action="store_true",
                   help="keep the results of modes not run now from OUT/cases.jsonl (same sample), "
                        "e.g. to rerun only --modes plaincall against another binary")
    p.add_argument("--only", type=lambda v: set(filter(None, v.split(","))), default=set(),
                   metavar="ID_OR_CATEGORY,...",
                   help="run only these cases of the sample, by id or category (a rerun of some cases)")
    p.add_argument("--list", action="store_true", help="print the sample and exit (no model servers)")
    p.add_argument("--exclude", type=Path, action="append", default=[], metavar="CASES_JSONL",
                   help="leave the cases of an earlier sample (its cases.jsonl) out of this one, "
                        "so that a second sample is data the first never saw (repeatable)")
    p.add_argument("--plaincall-env", action="append", default=[], metavar="PLAINCALL_X=VALUE",
                   help="a setting for plaincall in the through mode, e.g. "
                        "PLAINCALL_TRANSLATION_SPLIT_ACTIONS=true (repeatable)")
    args = p.parse_args()
    pairs = [e.partition("=") for e in args.plaincall_env]
    if bad := [k for k, eq, _ in pairs if not eq or not k.startswith("PLAINCALL_")]:
        p.error(f"--plaincall-env takes PLAINCALL_NAME=VALUE, not {bad}")
    args.plaincall_env = [(k, v) for k, _, v in pairs]
    args.modes = [m for m in args.modes.split(",") if m]
    if unknown := set(args.modes) - set(MODES):
        p.error(f"unknown modes {sorted(unknown)}")
    return args


def describe_binary(binary: Path) -> str:
    """The binary's path, and the commit it was built from when it is this tree's build."""
    if os.environ.get("PLAINCALL_DEV_BIN_FROM_TREE") != "1":
        return str(binary)
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return str(binary)
    return f"{binary.name} built from {commit}"


def kept_rows(out: Path, modes: list[str], cases: list[dict]) -> tuple[list[dict], dict, dict]:
    """Rows, wall times and binaries of other modes from an earlier run with the same sample."""
    try:
        old = json.loads((out / "results.json").read_text())
        rows = [json.loads(l) for l in (out / "cases.jsonl").read_text().splitlines() if l.strip()]
    except (OSError, ValueError) as e:
        raise SystemExit(f"--keep-other-modes: cannot read the earlier results in {out}: {e}")
    if [c["id"] for c in cases] != old["sample"]:
        raise SystemExit("--keep-other-modes: the earlier run sampled other cases (options or rule changed)")
    rows = [r for r in rows if r["mode"] not in modes]
    keep = {r["mode"] for r in rows}
    return (rows, {m: w for m, w in old["meta"]["wall_s"].items() if m in keep},
            {m: b for m, b in old["meta"]["plaincall"].items() if m in keep})


def main() -> None:
    args = parse_args()
    log = lambda msg: print(f"[bfcl {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
    if not args.plaincall_bin.is_file():
        raise SystemExit(f"no plaincall binary at {args.plaincall_bin} (set PLAINCALL_DEV_BIN or build it)")
    bfcl = load_bfcl()
    from importlib.metadata import version
    args.out.mkdir(parents=True, exist_ok=True)
    # A background job ignores SIGINT: SIGTERM must also stop the servers (finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="plaincall-bfcl-") as tmp:
        work = args.work = Path(tmp)
        args.config = write_config(work, args.timeout)
        all_cases = load_cases(bfcl)
        excluded = {json.loads(line)["id"] for path in args.exclude
                    for line in path.read_text().splitlines() if line.strip()}
        all_cases = [c for c in all_cases if c["id"] not in excluded]
        # The rule only: explain needs no servers, so any URL will do.
        classify(all_cases, args.plaincall_bin, args.config, plaincall_env("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"))
        cases = sample(all_cases, args)
        if args.only:
            cases = [c for c in cases if c["id"] in args.only or c["category"] in args.only]
        log(f"sample: {len(cases)} cases of {len(all_cases)}: " +
            ", ".join(f"{g} {sum(c['group'] == g for c in cases)}" for g in GROUPS))
        if args.list:
            for c in cases:
                print(c["group"], c["id"], ",".join(c["rewritten"]) or "-")
            return
        rows, wall, binaries = [], {}, {}
        if args.keep_other_modes:
            rows, wall, binaries = kept_rows(args.out, args.modes, cases)
        new_rows, new_wall = run_modes(bfcl, args.modes, cases, args, work, log)
    rows += new_rows
    wall.update(new_wall)
    binaries.update({m: describe_binary(args.plaincall_bin) for m in args.modes if m.startswith("plaincall")})
    modes = [m for m in MODES if any(r["mode"] == m for r in rows)]
    order = {c["id"]: i for i, c in enumerate(cases)}
    rows.sort(key=lambda r: (MODES.index(r["mode"]), order[r["id"]]))
    summary = summarize(rows, modes, cases)
    meta = {"bfcl_eval_version": version("bfcl-eval"), "seed": args.seed, "timeout_s": args.timeout,
            "per_category": args.per_category, "wall_s": wall, "plaincall": binaries,
            "plaincall_env": dict(args.plaincall_env),
            "translator_output": args.translator_output,
            "llama_threads": os.environ.get("REAL_UPSTREAM_THREADS", "2"),
            "llama_ctx": os.environ.get("REAL_UPSTREAM_CTX", "4096")}
    (args.out / "results.json").write_text(json.dumps(
        {"meta": meta, "summary": summary, "sample": [c["id"] for c in cases]}, indent=2) + "\n")
    (args.out / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (args.out / "chart.svg").write_text(chart(summary, modes))
    (args.out / "report.md").write_text(markdown(meta, summary, modes, cases))
    log(f"report: {args.out / 'report.md'}")
    print(markdown(meta, summary, modes, cases))


if __name__ == "__main__":
    main()
