"""Aider (aider-chat 0.86.2, in its own virtual environment ``.venv-aider``, which
``scripts/test.sh`` installs) through plaincall in front of a chat-only upstream, headless
(``--message``): Aider calls no tools, it asks for edits in text; the answer in its ``whole``
edit format reaches it through plaincall untouched and Aider writes the file. Offline: litellm's
model price list from GitHub is read from its local copy (``LITELLM_LOCAL_MODEL_COST_MAP``), the
context window comes from a model metadata file, the update check and analytics are off; the
run is traced with strace (where it works) and may reach nothing but loopback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from mock_upstream import SseReply, text_chunks

CHAT = "/v1/chat/completions"
AIDER = REPO / ".venv-aider" / "bin" / "aider"
ANSWER = "hello.txt\n```\nhello from the main model\n```\nWrote hello.txt."
LOOPBACK = re.compile(r"^(127\.|::1$|::ffff:127\.|0\.0\.0\.0$|::$)")


def _strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    probe = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect", "-o", "/dev/null", "true"]
    return subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True).returncode == 0


def _outside(trace: str) -> list[str]:
    """Every address in a connect/sendto/sendmsg of the trace that is not loopback."""
    found = set()
    for line in trace.splitlines():
        for v4, v6 in re.findall(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"', line):
            address = v4 or v6
            if not LOOPBACK.match(address):
                found.add(line[:160])
    return sorted(found)


def test_aider_writes_a_file_in_its_whole_edit_format_through_plaincall(tmp_path, main_mock, start_plaincall):
    if not AIDER.is_file():
        pytest.fail(f"no Aider at {AIDER}: bash scripts/test.sh installs aider-chat==0.86.2 into .venv-aider")
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    main_mock.script(CHAT, SseReply(text_chunks(ANSWER)))
    proxy = start_plaincall(main_mock)
    metadata = home / "model-metadata.json"
    metadata.write_text(json.dumps({
        "openai/main-model": {
            "max_input_tokens": 32768,
            "max_output_tokens": 4096,
            "input_cost_per_token": 0,
            "output_cost_per_token": 0,
            "litellm_provider": "openai",
            "mode": "chat",
        }
    }))

    dropped = ("OPENAI_", "AIDER_", "LITELLM_", "XDG_")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(dropped) and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    env.update(HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True", NO_PROXY="127.0.0.1,localhost")
    command = [
        str(AIDER), "--model", "openai/main-model",
        "--openai-api-base", proxy.base_url, "--openai-api-key", "unused",
        "--model-metadata-file", str(metadata), "--edit-format", "whole",
        "--no-git", "--no-check-update", "--no-analytics", "--no-show-release-notes",
        "--yes-always", "--no-pretty", "--message", "Create hello.txt.", "hello.txt",
    ]
    trace = home / "connections.strace"
    traced = _strace_works()
    if traced:
        command = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect,sendto,sendmsg,sendmmsg",
                   "-o", str(trace), "--", *command]
    run = subprocess.run(command, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=180)
    logs = f"{run.stdout}\n{run.stderr}"
    assert run.returncode == 0, logs

    # (a) the model's answer, (b) the file Aider wrote from the whole-file block.
    assert "Wrote hello.txt." in run.stdout, logs
    assert (work / "hello.txt").read_text() == "hello from the main model\n"
    requests = main_mock.chat_requests()
    assert len(requests) == 1, logs
    assert "tools" not in requests[0].body
    assert requests[0].body["model"] == "main-model"
    # (c) does not apply: Aider sends no tools for plaincall to rewrite.
    if traced:
        assert _outside(trace.read_text()) == [], "Aider reached beyond loopback"
