"""A BFCL run's delivered calls grounded again, offline, by this tree's grounding: no model.

For the through-plaincall modes of a sample's cases.jsonl, every delivered call goes with the
case's user text (BFCL's question, the user's messages joined by newlines) and the called
tool's schema (BFCL's conversion, as the runner sends it) through `cargo run --example
reground`, and the report says which passed calls the grounding now changes, which required members it
replaces by the one the text names, which of the
fields the run counted as invented it now leaves out or keeps (and by which rule), and totals.

    ~/.cache/plaincall-bfcl/venv/bin/python scripts/bfcl/reground.py docs/bfcl/fifth-sample

Needs the venv scripts/bfcl/run.sh installs (bfcl-eval's data). `today` is the date of the
cases.jsonl's last commit (about when the run asked), or --today. Markdown on stdout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bfcl_eval_run as run  # noqa: E402  (the runner's loading and tool conversion)

MODES = ["plaincall", "plaincall-1.5b-self"]


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(run.REPO), *args], capture_output=True, text=True).stdout.strip()


def at(value, path: str):
    """The value under a report path ("a.b[0]") of the call's arguments."""
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def under(decisions: list[dict], path: str) -> list[dict]:
    return [d for d in decisions if d["path"] == path or d["path"].startswith((path + ".", path + "["))]


def show(decisions: list[dict]) -> str:
    return ", ".join(f"`{d['path']}` {d['rule']}→{d['outcome']}" for d in decisions) or "none"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder", type=Path, help="a sample's folder (its cases.jsonl)")
    p.add_argument("--today", help="YYYY-MM-DD (default: the date of cases.jsonl's last commit)")
    args = p.parse_args()
    cases_file = args.folder / "cases.jsonl"
    today = args.today or git("log", "-1", "--format=%ad", "--date=short", "--", str(cases_file.resolve())) or "2026-11-25"
    rows = [json.loads(l) for l in cases_file.read_text().splitlines() if l.strip()]
    rows = [r for r in rows if r["mode"] in MODES]
    bfcl = run.load_bfcl()
    cases = {c["id"]: c for c in run.load_cases(bfcl) if c["id"] in {r["id"] for r in rows}}

    inputs, calls = [], {}
    for r in rows:
        case = cases[r["id"]]
        text = "\n".join(m["content"] for m in case["messages"] if m.get("role") == "user")
        tools = {t["function"]["name"]: t["function"].get("parameters") or {} for t in case["tools"]}
        for i, call in enumerate(r.get("calls") or []):
            key = f"{r['mode']}|{r['id']}|{i}"
            try:
                arguments = json.loads(call["arguments"])
            except (TypeError, ValueError):
                continue
            if call["name"] not in tools or not isinstance(arguments, dict):
                continue
            calls[key] = (r, call["name"], arguments)
            inputs.append(json.dumps({"id": key, "text": text, "today": today,
                                      "schema": tools[call["name"]], "arguments": arguments}))
    out = subprocess.run(["cargo", "run", "--quiet", "--example", "reground"], cwd=run.REPO,
                         input="\n".join(inputs) + "\n", capture_output=True, text=True)
    results = {}
    for line in out.stdout.splitlines():
        result = json.loads(line)
        results[result["id"]] = result
    if out.returncode != 0 or len(results) != len(inputs):
        raise SystemExit(f"reground: {len(results)} results for {len(inputs)} calls (rc {out.returncode})\n{out.stderr[-2000:]}")
    errors = [r for r in results.values() if "error" in r]

    changed, invented, asked, verdicts, replaced, totals = [], [], [], [], [], {m: dict.fromkeys(
        ["rows", "passed", "calls", "calls_changed", "values_dropped", "passed_changed",
         "invented", "invented_left_out", "invented_kept", "asked_passed", "asked_failed",
         "default_passed", "default_failed", "passes_now"], 0) for m in MODES}
    default_asked = []
    for r in rows:
        t = totals[r["mode"]]
        t["rows"] += 1
        t["passed"] += r["passed"]
        mine = [(k, results[k]) for k in calls if k.startswith(f"{r['mode']}|{r['id']}|") and "error" not in results[k]]
        t["calls"] += len(mine)
        passed_changed = False
        for key, res in mine:
            _, name, arguments = calls[key]
            for path in res.get("replaced") or []:
                replaced.append(f"- {r['mode']} `{r['id']}` ({'passed' if r['passed'] else 'failed'}) {name}: "
                                f"`{path}` `{json.dumps(at(arguments, path))}` -> `{json.dumps(at(res['kept'], path))}`")
            if res["dropped"]:
                t["calls_changed"] += 1
                t["values_dropped"] += len(res["dropped"])
                if r["passed"]:
                    passed_changed = True
                    grounded = name in r.get("rewritten", [])
                    for path in res["dropped"]:
                        changed.append(f"- {r['mode']} `{r['id']}` {name}{'' if grounded else ' (tool passed through)'}: "
                                       f"`{path}` = `{json.dumps(at(arguments, path))}` left out; decisions: {show(res['decisions'])}")
        t["passed_changed"] += passed_changed
        # The checker's verdict on the calls as the new grounding leaves them: the calls of
        # the tools plaincall rewrites (it grounds only those); the others, and calls the
        # example could not read, stay as they were.
        regrounded = []
        for i, call in enumerate(r.get("calls") or []):
            res = results.get(f"{r['mode']}|{r['id']}|{i}")
            if res and "error" not in res and call["name"] in r.get("rewritten", []):
                call = {"name": call["name"], "arguments": json.dumps(res["kept"])}
            regrounded.append(call)
        now, why = run.check(bfcl, {**cases[r["id"]], "group": r["group"], "category": r["category"]},
                           {"error": r.get("error"), "calls": regrounded})
        t["passes_now"] += now
        if now != r["passed"]:
            verdicts.append(f"- {r['mode']} `{r['id']}`: {'passes now' if now else 'fails now'} ({why})")
        # What `strict` grounding would ask (every required value no rule traces), and what
        # `facts` asks (those of them nobody can work out): a question, not a call (only for
        # the tools plaincall rewrites and grounds).
        for key_name, counter, listing in [("missing", "asked", asked), ("asked", "default", default_asked)]:
            found = [(calls[key][1], path) for key, res in mine for path in res.get(key_name) or []
                     if calls[key][1] in r.get("rewritten", [])]
            if found:
                t[f"{counter}_{'passed' if r['passed'] else 'failed'}"] += 1
                listing.append(f"- {r['mode']} `{r['id']}` ({'passed' if r['passed'] else 'failed'}): "
                               + ", ".join(f"{name}.{path} = `{json.dumps(at(calls[k][2], path))}`"
                                           for name, path in found
                                           for k in [next(k for k, _ in mine if calls[k][1] == name)]))
        for field in r.get("invented") or []:
            name, _, path = field.partition(".")
            t["invented"] += 1
            found = [(key, res) for key, res in mine if calls[key][1] == name and at(calls[key][2], path) is not None]
            if not found:
                invented.append(f"- {r['mode']} `{r['id']}` `{field}`: not found in the re-grounded calls")
                continue
            for key, res in found:
                mine_d = under(res["decisions"], path)
                dropped = [d for d in mine_d if d["outcome"] == "left_out"]
                gone = at(res["kept"], path) is None
                if gone:
                    t["invented_left_out"] += 1
                    verdict = "left out"
                else:
                    t["invented_kept"] += 1
                    verdict = "kept" + (" in part" if dropped else "")
                value = json.dumps(at(calls[key][2], path))
                invented.append(f"- {r['mode']} `{r['id']}` `{field}` = `{value}`: **{verdict}** ({show(mine_d)})")

    commit = git("describe", "--always", "--dirty")
    print(f"# {args.folder.name}: the run's delivered calls re-grounded offline by the new grounding at {commit}, no model\n")
    print(f"Modes {', '.join(MODES)}; each delivered call (the old grounding's output) grounded again with "
          f"`scripts/bfcl/reground.py {args.folder}` (`cargo run --example reground`): evidence = the case's "
          f"user messages, today = {today}, the tool's schema as BFCL converts it.\n")
    print("## Totals\n")
    print("| mode | cases (passed) | passed now (checker) | calls | calls changed | values left out | passed cases changed | invented fields | now left out | still kept | strict would ask: passed / failed cases | facts asks: passed / failed cases |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m in MODES:
        t = totals[m]
        print(f"| {m} | {t['rows']} ({t['passed']}) | {t['passes_now']} | {t['calls']} | {t['calls_changed']} | {t['values_dropped']} "
              f"| {t['passed_changed']} | {t['invented']} | {t['invented_left_out']} | {t['invented_kept']} "
              f"| {t['asked_passed']} / {t['asked_failed']} | {t['default_passed']} / {t['default_failed']} |")
    if errors:
        print(f"\n{len(errors)} calls the example could not read: " + "; ".join(f"{e['id']}: {e['error']}" for e in errors))
    print("\n## The checker's verdicts that the new grounding changes\n")
    print("\n".join(verdicts) or "None.")
    print("\n## Required members the text contradicts, replaced by the one it names\n")
    print("\n".join(replaced) or "None.")
    print("\n## (a) Passed cases whose delivered call the new grounding changes\n")
    print("\n".join(changed) or "None.")
    print("\n## (b) Invented fields (as the run counted them): left out or kept now\n")
    print("\n".join(invented) or "None.")
    print("\n## (c) Cases with a required value no rule traces: `strict` would ask instead of calling\n")
    print("\n".join(asked) or "None.")
    print("\n## (d) Cases with a required number, day, time, weekday or address no rule traces: `facts` asks instead of calling\n")
    print("\n".join(default_asked) or "None.")


if __name__ == "__main__":
    main()
