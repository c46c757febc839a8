"""One translated request, traced into a local Arize Phoenix, for a look at its UI (and the
docs' screenshot). Everything is on 127.0.0.1: Phoenix, mock main model and translator (the
tests' mocks), plaincall (target/debug/plaincall or $PLAINCALL_DEV_BIN) with content capture
on. Prints the trace's URL and waits for Ctrl-C; with --screenshot OUT.png it runs
scripts/phoenix-screenshot.mjs on that URL instead and exits.

    .venv/bin/python scripts/phoenix-demo.py
    .venv/bin/python scripts/phoenix-demo.py --screenshot docs/img/phoenix-trace.png

Needs .venv (tests/python/requirements.txt) and .venv-phoenix (or $PHOENIX_BIN), both of which
scripts/test.sh installs; the screenshot also needs Chromium and tests/node's playwright-core.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))

from conftest import Plaincall, load_tool, plaincall_env  # noqa: E402
from flows import CHAT, STRUCTURED, USER, nl_call_completion  # noqa: E402
from mock_upstream import JsonReply, MockUpstream, translator_reply  # noqa: E402
from phoenix import Phoenix, phoenix_bin  # noqa: E402

PROJECT = "plaincall-demo"
SPANS = ["POST /v1/chat/completions", "chat main", "translate set_reminder", "chat translator"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--screenshot", metavar="OUT.png", help="save a screenshot of the trace and exit")
    args = parser.parse_args()
    if not phoenix_bin().is_file():
        sys.exit(f"no Phoenix at {phoenix_bin()}: bash scripts/test.sh installs it, or set PHOENIX_BIN")

    from openai import OpenAI

    with Phoenix() as phoenix, MockUpstream("main") as upstream, MockUpstream("translator") as translator:
        print(f"phoenix ready in {phoenix.startup_seconds:.1f} s at {phoenix.url}")
        upstream.script(CHAT, JsonReply(nl_call_completion()))
        translator.script(CHAT, translator_reply(STRUCTURED))
        env = plaincall_env(upstream, translator, {
            "OTEL_EXPORTER_OTLP_ENDPOINT": phoenix.url,
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            "OTEL_SERVICE_NAME": "plaincall",
            "OTEL_RESOURCE_ATTRIBUTES": f"openinference.project.name={PROJECT}",
            "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
        })
        proxy = Plaincall(env)
        try:
            with OpenAI(base_url=proxy.base_url, api_key="sk-demo", max_retries=0) as client:
                response = client.chat.completions.create(
                    model="main", messages=[USER], tools=[load_tool("set_reminder")]
                )
            print("tool call:", response.choices[0].message.tool_calls[0].function.arguments)
            # No traceparent from the client: plaincall's server span is the root, and the
            # trace id reaches the upstream in plaincall's own traceparent.
            trace_id = upstream.chat_requests()[0].headers["traceparent"].split("-")[1]
            spans = phoenix.wait_for_spans(trace_id, PROJECT, lambda s: {x["name"] for x in s} >= set(SPANS))
            translate = next(s for s in spans if s["name"] == "translate set_reminder")
            url = phoenix.trace_url(trace_id, PROJECT, translate["id"])
            print(url, flush=True)
            if args.screenshot:
                command = ["node", str(REPO / "scripts" / "phoenix-screenshot.mjs"), url, args.screenshot, *SPANS]
                return subprocess.run(command, stdin=subprocess.DEVNULL).returncode
            print("Ctrl-C stops Phoenix and plaincall.", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return 0
        finally:
            proxy.stop()


if __name__ == "__main__":
    sys.exit(main())
