"""Questions only for what is missing, with real small models (#39): requests that leave out one
required fact and requests that state everything, sent to the main model alone (the tools'
full schemas) and through plaincall (grounding `optional`, the default, `facts` and `strict`). Per mode:
of the incomplete requests, how many were asked back (no call, a text answer) and how many got
a call anyway (and with the missing field filled in: invented); of the complete ones, how many
got a call and how many were asked.

    scripts/real-upstream.sh install
    .venv/bin/python scripts/eval-questions.py docs/eval/questions/set.jsonl --out docs/eval/questions

Starts its own llama-servers (the 0.5B with the JSON-tools template as the main model, the 1.5B
as the translator) and plaincall (target/debug/plaincall, or PLAINCALL_DEV_BIN), all on
loopback. Each line of the set: {"id", "tool" (a file of tests/fixtures/tools), "user",
"complete", "missing" (the left-out field, for incomplete ones)}. Needs the `openai` package
(the tests' venv has it). Writes results.jsonl and report.md into --out.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openai import OpenAI

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "real"))
from conftest import TEMPLATE, Plaincall, config_file, tool  # noqa: E402

SCRIPT = REPO / "scripts" / "real-upstream.sh"
SYSTEM = "You are a helpful assistant. Use the tools when they fit the request."
MODES = ["alone", "optional", "facts", "strict"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(name: str, model: str, *extra: str) -> str:
    out = subprocess.run(["bash", str(SCRIPT), "start", name, model, str(free_port()), *extra],
                         check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return out.stdout.strip().splitlines()[-1]


def ask(client: OpenAI, case: dict) -> dict:
    started = time.monotonic()
    try:
        response = client.chat.completions.create(
            model="qwen2.5-coder-0.5b", temperature=0, max_tokens=400,
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": case["user"]}],
            tools=[tool(case["tool"])])
    except Exception as error:  # a timeout or an error status is a result too
        return {"error": str(error)[:300], "s": round(time.monotonic() - started, 1)}
    message = response.choices[0].message
    calls = [{"name": c.function.name, "arguments": c.function.arguments} for c in message.tool_calls or []]
    return {"calls": calls, "text": message.content or "", "s": round(time.monotonic() - started, 1)}


def verdict(case: dict, result: dict) -> str:
    """`call`, `invented` (a call carrying the missing field), `asked` (no call, a question
    put to the user), `no_call` (no call and no question: other text, a failure note, a call
    written as text nobody read), or `error`."""
    if "error" in result:
        return "error"
    calls = [c for c in result["calls"] if c["name"] == case["tool"]]
    if not calls:
        # A question, the model's own or the translator's relayed in plaincall's note when the
        # repair turns ran out ("... needs more information: Please provide the day ...").
        text = result["text"]
        return "asked" if "?" in text or "needs more information" in text else "no_call"
    if case["complete"]:
        return "call"
    fields = [f.strip() for f in case["missing"].split(",") if f.strip()]
    for call in calls:
        try:
            arguments = json.loads(call["arguments"])
        except ValueError:
            continue
        if any(isinstance(arguments, dict) and f in arguments for f in fields):
            return "invented"
    return "call"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("set", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--report-only", action="store_true", help="judge --out's results.jsonl again")
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated, of: " + ", ".join(MODES))
    args = p.parse_args()
    cases = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    if args.report_only:
        rows = [json.loads(line) for line in (args.out / "results.jsonl").read_text().splitlines()]
        return report(cases, rows, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="eval-questions-"))
    os.environ.setdefault("REAL_UPSTREAM_RUN_DIR", str(scratch))
    names = ["questions-main", "questions-translator"]
    try:
        main_url = start(names[0], "0.5b", "--chat-template-file", str(TEMPLATE))
        translator_url = start(names[1], "1.5b")
        rows = []
        # Each result is written as it comes: a run stopped halfway keeps what it measured
        # (--report-only judges it).
        written = (args.out / "results.jsonl").open("w")
        for mode in args.modes.split(","):
            proxy = None
            if mode == "alone":
                client = OpenAI(base_url=main_url, api_key="unused", timeout=900, max_retries=0)
            else:
                config = config_file(scratch, main_url, translator_url)
                tools = sorted({c["tool"] for c in cases})
                config.write_text(config.read_text() + "[translation.grounding_tools]\n"
                                  + "".join(f'{t} = "{mode}"\n' for t in tools))
                proxy = Plaincall({}, config)
                client = proxy.client
            try:
                for case in cases:
                    result = ask(client, case)
                    row = {"mode": mode, "id": case["id"], "complete": case["complete"], **result}
                    row["verdict"] = verdict(case, result)
                    rows.append(row)
                    written.write(json.dumps(row) + "\n")
                    written.flush()
                    print(json.dumps(row)[:300], flush=True)
            finally:
                if proxy:
                    proxy.stop()
    finally:
        for name in names:
            subprocess.run(["bash", str(SCRIPT), "stop", name], capture_output=True, stdin=subprocess.DEVNULL)
    written.close()
    report(cases, rows, args.out)


def report(cases: list[dict], rows: list[dict], out: Path) -> None:
    by_id = {c["id"]: c for c in cases}
    for row in rows:
        row["verdict"] = verdict(by_id[row["id"]], row)
    lines = ["| mode | incomplete: asked | incomplete: a call | of those, missing field invented "
             "| incomplete: neither | complete: a call | complete: asked | complete: neither | errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    modes = [m for m in MODES if any(r["mode"] == m for r in rows)]
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        inc = [r for r in mine if not r["complete"]]
        com = [r for r in mine if r["complete"]]
        count = lambda rs, *v: sum(r["verdict"] in v for r in rs)  # noqa: E731
        lines.append(f"| {mode} | {count(inc, 'asked')}/{len(inc)} | {count(inc, 'call', 'invented')}/{len(inc)} "
                     f"| {count(inc, 'invented')} | {count(inc, 'no_call')}/{len(inc)} "
                     f"| {count(com, 'call')}/{len(com)} | {count(com, 'asked')}/{len(com)} "
                     f"| {count(com, 'no_call')}/{len(com)} | {count(mine, 'error')} |")
    lines += ["", "| id | complete | " + " | ".join(modes) + " |", "|---|---|" + "---|" * len(modes)]
    for case in cases:
        verdicts = {r["mode"]: r["verdict"] for r in rows if r["id"] == case["id"]}
        lines.append(f"| {case['id']} | {'yes' if case['complete'] else 'no: ' + case['missing']} | "
                     + " | ".join(verdicts.get(m, "") for m in modes) + " |")
    text = "\n".join(lines) + "\n"
    (out / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
