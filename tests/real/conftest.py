"""The real-model tier: llama-server with small Qwen models (scripts/real-upstream.sh), and
plaincall in front of it. Slow (model inference on 2 CPU cores): run by .ci/run after the fast
tests, or by hand with `bash scripts/test-real.sh`.

Servers (started once per session, on free loopback ports):
- main:       Qwen2.5-Coder-0.5B with the JSON-tools chat template (native tool_calls)
- stock:      Qwen2.5-Coder-0.5B with its stock template (calls come back as text)
- translator: Qwen2.5-Coder-1.5B (json_schema output, enforced by llama-server's grammar)
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

import jsonschema
import pytest
from openai import OpenAI

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "real-upstream.sh"
TEMPLATE = REPO / "scripts" / "templates" / "qwen-coder-json-tools.jinja"
TOOLS = REPO / "tests" / "fixtures" / "tools"

for _key in ("NO_PROXY", "no_proxy"):
    os.environ[_key] = ",".join([p for p in os.environ.get(_key, "").split(",") if p] + ["127.0.0.1", "localhost"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tool(name: str) -> dict:
    return json.loads((TOOLS / f"{name}.json").read_text())


def clock(value) -> tuple[int, int] | None:
    """The hour and minute of a time of day as a model may write it: `09:00`, `9:00`,
    `09:00:00`."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})(?::\d{2})?", str(value or "").strip())
    return (int(match[1]), int(match[2])) if match else None


def assert_daily_reminder(args: dict, at: tuple[int, int], *words: str) -> None:
    """`set_reminder` arguments with what the request said: daily, at `at`, and a message
    holding `words` (any case, any wording around them: "Check email", "Check your email")."""
    assert args.get("schedule_type") == "daily", args
    assert clock(args.get("at")) == at, args
    message = str(args.get("message", "")).lower()
    assert all(word in message for word in words), args


def plaincall_bin() -> Path:
    explicit = os.environ.get("PLAINCALL_DEV_BIN")
    if explicit:
        return Path(explicit)
    return REPO / "target" / "debug" / "plaincall"


@pytest.fixture(scope="session")
def servers(tmp_path_factory):
    # PID files and logs of this session's servers, apart from any other user of the cache.
    os.environ["REAL_UPSTREAM_RUN_DIR"] = str(tmp_path_factory.mktemp("llama-run"))
    names = {}
    started = []
    try:
        for name, model, extra in [
            ("test-main", "0.5b", ["--chat-template-file", str(TEMPLATE)]),
            ("test-stock", "0.5b", []),
            ("test-translator", "1.5b", []),
        ]:
            port = free_port()
            out = subprocess.run(
                ["bash", str(SCRIPT), "start", name, model, str(port), *extra],
                check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL,
            )
            started.append(name)
            names[name] = out.stdout.strip().splitlines()[-1]
        yield names
    finally:
        for name in started:
            subprocess.run(["bash", str(SCRIPT), "stop", name], capture_output=True, stdin=subprocess.DEVNULL)


class Plaincall:
    def __init__(self, env: dict[str, str], config: Path) -> None:
        full = {k: v for k, v in os.environ.items() if not k.startswith("PLAINCALL_") and k != "RUST_LOG"}
        full.update({"PLAINCALL_LISTEN": "127.0.0.1:0", "PLAINCALL_LOG_FORMAT": "json",
                     "PLAINCALL_CONFIG": str(config)}, **env)
        self.lines: list[str] = []
        self.address = None
        ready = threading.Event()
        self.proc = subprocess.Popen(
            [str(plaincall_bin()), "serve"], env=full, cwd=REPO, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
                if self.address is None:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if record.get("message") == "plaincall listening":
                        self.address = record["listen"]
                        ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(20):
            self.stop()
            pytest.fail("plaincall did not start:\n" + "\n".join(self.lines))
        self.client = OpenAI(base_url=f"http://{self.address}/v1", api_key="unused", timeout=1800, max_retries=0)

    def lines_with(self, *needles: str, timeout: float = 10.0, since: int = 0) -> list[str]:
        """Log lines from the `since`-th on holding any of `needles`, waiting up to `timeout` s
        for the first: a line written just before a response can reach this reader's thread
        just after it."""
        deadline = time.monotonic() + timeout
        while True:
            found = [line for line in self.lines[since:] if any(n in line for n in needles)]
            if found or time.monotonic() >= deadline:
                return found
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def config_file(tmp: Path, upstream: str, translator: str) -> Path:
    # CPU inference is slow, and slower on a busy machine: generous timeouts.
    path = tmp / "proxy.toml"
    path.write_text(
        f'[upstream]\nurl = "{upstream}"\ntimeout = "15m"\nread_timeout = "15m"\n'
        f'[[translation.backends]]\nbase_url = "{translator}"\nmodel = "qwen2.5-coder-1.5b"\ntimeout = "10m"\n'
    )
    return path


@pytest.fixture(scope="session")
def native(servers, tmp_path_factory):
    """plaincall in front of the JSON-tools main model, translating with the 1.5B model."""
    config = config_file(tmp_path_factory.mktemp("native"), servers["test-main"], servers["test-translator"])
    proxy = Plaincall({}, config)
    yield proxy
    proxy.stop()


@pytest.fixture(scope="session")
def prompt(servers, tmp_path_factory):
    """plaincall in prompt mode in front of the stock-template main model."""
    config = config_file(tmp_path_factory.mktemp("prompt"), servers["test-stock"], servers["test-translator"])
    proxy = Plaincall({"PLAINCALL_TOOL_CALLING_DEFAULT": "prompt"}, config)
    yield proxy
    proxy.stop()


def the_call(choice, tool_definition: dict) -> dict:
    """The one call the request asks for, to `tool_definition`'s function and valid against
    its schema: its arguments."""
    function = tool_definition["function"]
    calls = choice.message.tool_calls
    assert calls, f"no call, only text: {choice.message.content!r}"
    assert [c.function.name for c in calls] == [function["name"]], \
        [(c.function.name, c.function.arguments) for c in calls]
    args = json.loads(calls[0].function.arguments)
    jsonschema.validate(args, function["parameters"], cls=jsonschema.Draft202012Validator)
    return args
