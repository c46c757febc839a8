"""The translator's own ceiling on a BFCL run's sample: for every complex case whose expected
answer calls one rewritten tool (once or several times), the 1.5B translator gets the user's own
message as the description (what a perfect main model would pass on) through `plaincall
translate`, which grounds the calls as the proxy does, and BFCL's checker scores them: what the
pipe delivers on those cases when the main model chooses the tool right and passes on every
word, the ceiling of its translation whatever the main model does.

    scripts/bfcl/run.sh ...                       # first, a run whose cases.jsonl names the sample
    ~/.cache/plaincall-bfcl/venv/bin/python scripts/bfcl/translator_ceiling.py docs/bfcl

Needs the venv and llama-server that run.sh installs, and target/debug/plaincall (or
PLAINCALL_DEV_BIN). Writes translator-ceiling.jsonl beside the run's cases.jsonl and prints a
summary against the run's three modes on the same cases.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bfcl_eval_run as run  # noqa: E402  (the runner's loading, servers and checker)


def calls_printed(out: str, name: str) -> list[dict]:
    """The calls `plaincall translate` printed: one JSON value, or `call i of n:` blocks."""
    lines = out.splitlines()
    heads = [i for i, line in enumerate(lines) if re.fullmatch(r"call \d+ of \d+:", line)]
    try:
        if heads:
            values = [json.loads("\n".join(lines[h + 1:(heads[k + 1] if k + 1 < len(heads) else len(lines))]))
                      for k, h in enumerate(heads)]
        else:
            start = max([i for i, line in enumerate(lines) if line[:1] in "{["] or [-1])
            values = [json.loads("\n".join(lines[start:]))] if start >= 0 else []
    except ValueError:
        return []
    values = [v for v in values if isinstance(v, dict) and "clarification_needed" not in v]
    return [{"name": name, "arguments": json.dumps(v)} for v in values]


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else run.REPO / "docs" / "bfcl")
    rows = [json.loads(line) for line in (folder / "cases.jsonl").open()]
    rewritten = {r["id"]: r["rewritten"] for r in rows if r["group"] == "complex"}
    bfcl = run.load_bfcl()
    cases = [c for c in run.load_cases(bfcl) if c["id"] in rewritten]
    binary = os.environ.get("PLAINCALL_DEV_BIN", str(run.REPO / "target" / "debug" / "plaincall"))
    out_rows = []
    with tempfile.TemporaryDirectory(prefix="plaincall-ceiling-") as tmp:
        servers = run.Servers(Path(tmp) / "llama-run")
        try:
            translator = servers.start("ceiling-translator", "1.5b", False)
            env = dict(run.plaincall_env("http://127.0.0.1:9/v1", translator))
            for case in cases:
                targets = {next(iter(call)).replace(".", "_") for call in case["answer"]}
                if len(targets) != 1 or not targets <= set(rewritten[case["id"]]):
                    continue
                name = targets.pop()
                tool = next(t for t in case["tools"] if t["function"]["name"] == name)
                tool_file = Path(tmp) / "tool.json"
                tool_file.write_text(json.dumps(tool))
                user = [m["content"] for m in case["messages"] if m["role"] == "user"][-1]
                t0 = time.monotonic()
                out = subprocess.run([binary, "translate", "--tool", str(tool_file), user], env=env,
                                     capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
                got = {"calls": calls_printed(out, name), "content": None, "error": None,
                       "latency_s": round(time.monotonic() - t0, 2)}
                passed, why = run.check(bfcl, dict(case, group="complex"), got)
                out_rows.append({"id": case["id"], "passed": passed, "why": why, **got})
                print(f"{'pass' if passed else 'fail'} {case['id']} {got['latency_s']} s {why or ''}"[:200],
                      file=sys.stderr, flush=True)
        finally:
            servers.stop_all()
    (folder / "translator-ceiling.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out_rows))
    ids = {r["id"] for r in out_rows}
    modes = sorted({r["mode"] for r in rows})
    print(f"{len(ids)} complex cases whose answer calls one rewritten tool:")
    for mode in modes:
        print(f"  {mode}: {sum(r['passed'] for r in rows if r['mode'] == mode and r['id'] in ids)}")
    print(f"  translator alone, the user's message as the description: {sum(r['passed'] for r in out_rows)}")
    other = {r["id"] for r in rows if r["group"] == "complex"} - ids
    print(f"{len(other)} other complex cases (a tool not rewritten, or several tools):")
    for mode in modes:
        print(f"  {mode}: {sum(r['passed'] for r in rows if r['mode'] == mode and r['id'] in other)}")
    print(f"  passed by any mode: {sum(any(r['passed'] for r in rows if r['id'] == i) for i in other)}")


if __name__ == "__main__":
    main()
