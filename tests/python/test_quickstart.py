"""The README's quickstart snippet, examples/quickstart.py, run as a newcomer runs it: its tool
call comes back translated (mock models here; the real ones in the quickstart itself)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from flows import CHAT, STRUCTURED, nl_call_completion
from mock_upstream import JsonReply, translator_reply

REPO = Path(__file__).resolve().parents[2]


def test_quickstart_example_prints_the_translated_call(main_mock, translator_mock, translating_proxy):
    main_mock.script(CHAT, JsonReply(nl_call_completion()))
    translator_mock.script(CHAT, translator_reply(STRUCTURED))
    env = dict(os.environ, PLAINCALL_DEV_BASE_URL=translating_proxy.base_url)
    out = subprocess.run(
        [sys.executable, "examples/quickstart.py"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    name, arguments = out.stdout.strip().split(" ", 1)
    assert name == "set_reminder"
    assert json.loads(arguments) == STRUCTURED
    # The main model saw the one-field form, the translator the description.
    (request,) = main_mock.chat_requests()
    assert list(request.tool("set_reminder")["function"]["parameters"]["properties"]) == ["description"]
    assert len(translator_mock.chat_requests()) == 1
