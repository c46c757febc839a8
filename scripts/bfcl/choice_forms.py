#!/usr/bin/env python3
"""Which form of a rewritten tool keeps a weak main model's choice of tool (#39 item 2).

Only the main model's first turn decides which tool a request goes to; no translator is
involved. So this asks the model that turn directly, on BFCL cases where the choice is at
stake (two tools or more, at least one of them rewritten by `auto`, as `plaincall explain`
says), once per form of the rewritten tools:

- full        every tool as the client sent it: the model alone;
- one_field   plaincall's form: the purpose and needs in the description, one free-text field
              (built from `plaincall explain --json`, the form the proxy sends);
- kept_plain  one_field, with the tool's required plain fields (string, number, integer,
              boolean, enums of those) kept as native parameters beside the free-text field;
- purpose     one_field, with a last line that says the tool is for nothing else.

Reported per form: the right tools (the called names are the answer's names), requests without
a call, and on irrelevance cases (no tool fits) calls made. A call cut by the token bound still
counts by the name it opened with (read from the text). Run through scripts/bfcl/run.sh's
venv, e.g.

    PLAINCALL_DEV_BIN=target/debug/plaincall ~/.cache/plaincall-bfcl/venv/bin/python \
        scripts/bfcl/choice_forms.py --model 0.5b --calls 48 --irrelevance 12 --seed 7 \
        --out /tmp/choice-0.5b

`--exclude CASES_JSONL` leaves out an earlier run's cases (a fresh sample).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bfcl_eval_run as bench  # noqa: E402

CHOICE_CATEGORIES = ["multiple", "parallel_multiple", "live_multiple", "live_parallel_multiple"]
FORMS = ["full", "one_field", "kept_plain", "purpose"]
PLAIN_TYPES = {"string", "number", "integer", "boolean"}
# plaincall's GUIDE (src/pipe/mod.rs): what the free-text field asks for.
GUIDE = ("What the user asked for, in their own words, with every value they gave "
         "(names, numbers, dates, times, places).")
PURPOSE = "Only for this; for any other request use another tool, or answer without one."


def explain(binary: Path, tools: list[dict]) -> list[dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(tools, f)
    try:
        env = bench.plaincall_env("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1")
        with tempfile.TemporaryDirectory() as tmp:
            config = Path(tmp) / "proxy.toml"
            config.write_text("")
            out = subprocess.run([str(binary), "explain", "--json", "--config", str(config), f.name],
                                 env=env, check=True, capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL).stdout
    finally:
        os.unlink(f.name)
    shown = json.loads(out)
    if len(shown) != len(tools):
        raise SystemExit(f"plaincall explain --json gave {len(shown)} entries for {len(tools)} tools")
    return shown


def plain_required(parameters: dict) -> dict:
    props = parameters.get("properties") or {}
    kept = {}
    for name in parameters.get("required") or []:
        schema = props.get(name)
        if isinstance(schema, dict) and schema.get("type") in PLAIN_TYPES:
            kept[name] = schema
    return kept


def form_of(tool: dict, shown: dict, form: str) -> dict:
    if form == "full" or shown["verdict"] != "rewritten":
        return tool
    field = shown["field"]
    properties = {field: {"type": "string", "description": GUIDE}}
    required = [field]
    description = shown["shown"]
    if form == "kept_plain":
        kept = plain_required(tool["function"].get("parameters") or {})
        kept.pop(field, None)
        properties = {**kept, **properties}
        required = list(kept) + required
    if form == "purpose":
        description = f"{description} {PURPOSE}"
    function = dict(tool["function"], description=description,
                    parameters={"type": "object", "properties": properties, "required": required})
    return dict(tool, function=function)


def ask(url: str, model: str, messages: list, tools: list, max_tokens: int, timeout: int) -> dict:
    body = {"model": model, "messages": messages, "tools": tools, "temperature": 0,
            "max_tokens": max_tokens}
    req = urllib.request.Request(f"{url}/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            answer = json.load(r)
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as e:
        return {"names": [], "error": f"{type(e).__name__}: {e}", "latency_s": round(time.monotonic() - t0, 2)}
    choice = (answer.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    names = [c.get("function", {}).get("name") for c in message.get("tool_calls") or []]
    content = message.get("content") or ""
    if not names:
        # A call cut by max_tokens stays text: the name it opened with is still its choice.
        names = re.findall(r'"name"\s*:\s*"([^"]+)"', content)
    return {"names": names, "content": content[:300], "finish": choice.get("finish_reason"),
            "latency_s": round(time.monotonic() - t0, 2)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", choices=["0.5b", "1.5b"], default="0.5b")
    p.add_argument("--calls", type=int, default=48)
    p.add_argument("--irrelevance", type=int, default=12)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--forms", default=",".join(FORMS))
    p.add_argument("--max-tokens", type=int, default=320)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--exclude", type=Path, action="append", default=[])
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    forms = args.forms.split(",")
    binary = Path(os.environ.get("PLAINCALL_DEV_BIN", bench.REPO / "target" / "debug" / "plaincall"))
    log = lambda msg: print(f"[choice {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    bfcl = bench.load_bfcl()
    excluded = {json.loads(line)["id"] for path in args.exclude
                for line in path.read_text().splitlines() if line.strip()}
    cases = [c for c in bench.load_cases(bfcl) if c["id"] not in excluded and len(c["tools"]) >= 2
             and (c["category"] in CHOICE_CATEGORIES or c["category"] in bench.IRRELEVANCE_CATEGORIES)]
    shown = explain(binary, [t for c in cases for t in c["tools"]])
    it = iter(shown)
    for c in cases:
        c["shown"] = [next(it) for _ in c["tools"]]
    at_stake = [c for c in cases if any(s["verdict"] == "rewritten" for s in c["shown"])]
    rng = random.Random(args.seed)
    calls = sorted((c for c in at_stake if c["category"] in CHOICE_CATEGORIES), key=lambda c: c["id"])
    irrelevant = sorted((c for c in at_stake if c["category"] in bench.IRRELEVANCE_CATEGORIES), key=lambda c: c["id"])
    rng.shuffle(calls)
    rng.shuffle(irrelevant)
    sample = calls[:args.calls] + irrelevant[:args.irrelevance]
    log(f"{len(calls)} call cases and {len(irrelevant)} irrelevance cases at stake; asking {len(sample)}")

    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    servers = bench.Servers(args.out / "llama-run")
    model = f"qwen2.5-coder-{args.model}"
    try:
        url = servers.start("choice-main", args.model, True)
        for i, case in enumerate(sample, 1):
            want = sorted({name.replace(".", "_") for call in case["answer"] or [] for name in call})
            for form in forms:
                tools = [form_of(t, s, form) for t, s in zip(case["tools"], case["shown"])]
                got = ask(url, model, case["messages"], tools, args.max_tokens, args.timeout)
                called = sorted(set(got["names"]))
                relevant = case["answer"] is not None
                row = {"id": case["id"], "category": case["category"], "form": form, "want": want,
                       "called": called, "no_call": not called,
                       "right": (called == want) if relevant else not called, **got}
                rows.append(row)
                log(f"{i}/{len(sample)} {case['id']} {form}: {called or 'no call'} "
                    f"{'right' if row['right'] else 'WRONG'} ({got['latency_s']} s)")
    finally:
        servers.stop_all()
    (args.out / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = [f"model {args.model}, seed {args.seed}, {len(sample)} cases, max_tokens {args.max_tokens}", "",
             "| form | right tools (calls) | no call (calls) | call made (irrelevance) |", "|---|---|---|---|"]
    for form in forms:
        mine = [r for r in rows if r["form"] == form]
        call_rows = [r for r in mine if r["category"] in CHOICE_CATEGORIES]
        irr = [r for r in mine if r["category"] not in CHOICE_CATEGORIES]
        lines.append(f"| {form} | {sum(r['right'] for r in call_rows)}/{len(call_rows)} | "
                     f"{sum(r['no_call'] for r in call_rows)}/{len(call_rows)} | "
                     f"{sum(not r['no_call'] for r in irr)}/{len(irr)} |")
    (args.out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
