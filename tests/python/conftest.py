"""Fixtures: mock upstreams, the plaincall binary as a subprocess, OpenAI clients.

The binary is ``target/debug/plaincall`` (``$CARGO_TARGET_DIR/debug/plaincall`` when that is
set), or ``$PLAINCALL_DEV_BIN``. ``scripts/test.sh`` builds it before pytest runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mock_upstream import MockUpstream  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TOOLS_DIR = REPO / "tests" / "fixtures" / "tools"
STARTUP_TIMEOUT = 20.0

# Everything here talks to 127.0.0.1: never through a proxy from the environment.
for _key in ("NO_PROXY", "no_proxy"):
    _parts = [p for p in os.environ.get(_key, "").split(",") if p]
    os.environ[_key] = ",".join(_parts + ["127.0.0.1", "localhost"])


def plaincall_bin() -> Path:
    explicit = os.environ.get("PLAINCALL_DEV_BIN")
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    if not target.is_absolute():
        target = REPO / target
    return target / "debug" / "plaincall"


class Plaincall:
    """One ``plaincall serve`` process; its stderr (JSON log lines) is kept in ``lines``."""

    def __init__(self, env: dict[str, str]) -> None:
        binary = plaincall_bin()
        if not binary.is_file():
            pytest.fail(f"plaincall binary not found at {binary}: run `cargo build` or set PLAINCALL_DEV_BIN")
        self.lines: list[str] = []
        self._listening = threading.Event()
        self.address: str | None = None
        self.proc = subprocess.Popen(
            [str(binary), "serve"],
            env=env,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        # Drains stderr for the whole life of the process, so that logging never blocks it.
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self._listening.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                self._reader.join(2)
                why = f"exited with {self.proc.returncode}" if self.proc.returncode is not None else "timed out"
                pytest.fail(f"plaincall did not start ({why}); stderr:\n" + "\n".join(self.lines))

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            self.lines.append(line)
            if self.address is None:
                record = _json_line(line)
                fields = record.get("fields") if isinstance(record.get("fields"), dict) else record
                if fields.get("message") == "plaincall listening" and fields.get("listen"):
                    self.address = str(fields["listen"])
                    self._listening.set()

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def logs(self) -> list[dict]:
        """The JSON log records so far."""
        return [r for r in (_json_line(l) for l in list(self.lines)) if r]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - kill does not fail this way
            pass


def _json_line(line: str) -> dict:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def plaincall_env(upstream: MockUpstream, translator: MockUpstream | None, extra: dict[str, str]) -> dict[str, str]:
    # The environment minus any plaincall settings the developer's shell carries.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAINCALL_") and k != "RUST_LOG"}
    env.update(
        PLAINCALL_LISTEN="127.0.0.1:0",
        PLAINCALL_LOG_FORMAT="json",
        PLAINCALL_UPSTREAM_URL=upstream.base_url,
    )
    if translator is not None:
        env.update(
            PLAINCALL_TRANSLATOR_URL=translator.base_url,
            PLAINCALL_TRANSLATOR_MODEL="translator",
        )
    env.update(extra)
    return env


@pytest.fixture
def main_mock():
    """The main model."""
    with MockUpstream("main") as mock:
        yield mock


@pytest.fixture
def translator_mock():
    """The translator backend."""
    with MockUpstream("translator") as mock:
        yield mock


@pytest.fixture
def start_plaincall(request):
    """``start_plaincall(upstream, translator=None, **env)`` starts plaincall; every process
    started is killed at teardown, and its log is printed (pytest shows it on failure)."""
    started: list[Plaincall] = []

    def start(upstream: MockUpstream, translator: MockUpstream | None = None, **env: str) -> Plaincall:
        proc = Plaincall(plaincall_env(upstream, translator, env))
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()
        proc._reader.join(2)
        print(f"--- plaincall {proc.address} stderr ---")
        print("\n".join(proc.lines))


@pytest.fixture
def proxy(start_plaincall, main_mock):
    """plaincall in front of ``main_mock``, no translator backend."""
    return start_plaincall(main_mock)


@pytest.fixture
def translating_proxy(start_plaincall, main_mock, translator_mock):
    """plaincall in front of ``main_mock`` with ``translator_mock`` as its translator, and
    keep-alive comments every 200 ms while a translation runs."""
    return start_plaincall(
        main_mock,
        translator_mock,
        PLAINCALL_TRANSLATION_KEEPALIVE_INTERVAL="200ms",
    )


def load_tool(name: str) -> dict:
    return json.loads((TOOLS_DIR / f"{name}.json").read_text())


@pytest.fixture
def tools():
    """The OpenAI tool definitions of tests/fixtures/tools, by name."""
    return {p.stem: json.loads(p.read_text()) for p in sorted(TOOLS_DIR.glob("*.json"))}


@pytest.fixture
def client_for():
    """``client_for(proc)``: an official OpenAI client pointed at a plaincall process."""
    from openai import OpenAI

    clients = []

    def make(proc: Plaincall) -> OpenAI:
        client = OpenAI(base_url=proc.base_url, api_key="sk-test", max_retries=0, timeout=30.0)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
