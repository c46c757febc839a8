"""A throw-away Arize Phoenix (arize-phoenix 20.26.1, pinned in requirements-phoenix.txt) on
loopback, as the OTLP collector of the trace tests, and its REST API to read spans back.

Phoenix is run as a subprocess from its own virtual environment (``.venv-phoenix``, which
``scripts/test.sh`` installs; ``$PHOENIX_BIN`` names another ``phoenix`` executable): it pins
versions of its own that the client tests' environment must not share. This module is stdlib
only, so it imports from any interpreter.

    with Phoenix() as phoenix:
        # plaincall gets OTEL_EXPORTER_OTLP_ENDPOINT=phoenix.url
        spans = phoenix.wait_for_spans(trace_id, "my-project", lambda s: len(s) >= 4)
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv-phoenix" / "bin" / "phoenix"
INSTALL_HINT = "bash scripts/test.sh installs arize-phoenix (tests/python/requirements-phoenix.txt) into .venv-phoenix"
# About 10 s on a warm machine, nearly all of it Python imports; a first run compiles .pyc files.
STARTUP_TIMEOUT = 120.0


def phoenix_bin() -> Path:
    explicit = os.environ.get("PHOENIX_BIN")
    return Path(explicit) if explicit else VENV_BIN


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phoenix:
    """One ``phoenix serve`` on 127.0.0.1, with its SQLite database and log in a temporary
    directory removed by :meth:`stop`."""

    def __init__(self, binary: Path | None = None) -> None:
        self.binary = binary or phoenix_bin()
        self.port = free_port()
        # The gRPC collector always starts, on every interface, with no switch to turn it off:
        # a free port at least keeps it out of the way.
        self.grpc_port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="plaincall-phoenix-"))
        self.log_path = self.workdir / "phoenix.log"
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.startup_seconds: float | None = None

    def env(self) -> dict[str, str]:
        # Inherited settings could point Phoenix elsewhere or turn auth on: dropped.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))}
        env.update(
            PHOENIX_HOST="127.0.0.1",
            PHOENIX_PORT=str(self.port),
            PHOENIX_GRPC_PORT=str(self.grpc_port),
            PHOENIX_WORKING_DIR=str(self.workdir),
            PHOENIX_SQL_DATABASE_URL=f"sqlite:///{self.workdir}/phoenix.db",
            # Offline: no telemetry pixels, web fonts or downloads, nothing but loopback.
            PHOENIX_TELEMETRY_ENABLED="false",
            PHOENIX_ALLOW_EXTERNAL_RESOURCES="false",
            PHOENIX_DISABLE_AGENT_ASSISTANT="true",
            PHOENIX_ENABLE_MCP_SERVER="false",
            DO_NOT_TRACK="1",
            # Otherwise every migration's SQL (about 1000 lines) goes to the log.
            PHOENIX_LOG_MIGRATIONS="false",
        )
        return env

    def start(self) -> "Phoenix":
        """Starts Phoenix and waits until ``/healthz`` answers (the database is migrated by then)."""
        started = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [str(self.binary), "serve"],
                env=self.env(),
                cwd=self.workdir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = started + STARTUP_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"phoenix exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"phoenix not ready after {STARTUP_TIMEOUT:.0f} s:\n{self.log()}")
            time.sleep(0.1)
        self.startup_seconds = time.monotonic() - started
        return self

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down in a second or two), SIGKILL past 15 s; then the
        working directory goes."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "Phoenix":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    # -- REST ------------------------------------------------------------------------------

    def get(self, path: str, **params: object) -> dict:
        url = self.url + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.load(response)

    def spans(self, trace_id: str, project: str) -> list[dict]:
        """The spans of one trace in ``project``, oldest first, attributes flattened to
        dotted keys. ``[]`` while the project does not exist: Phoenix creates it with its first
        span."""
        path = f"/v1/projects/{urllib.parse.quote(project, safe='')}/spans"
        out: list[dict] = []
        cursor = None
        while True:
            params: dict[str, object] = {"trace_id": trace_id, "limit": 1000, "sort": "start_time", "order": "asc"}
            if cursor:
                params["cursor"] = cursor
            try:
                page = self.get(path, **params)
            except urllib.error.HTTPError as error:
                if error.code == 404:
                    return []
                raise
            out += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return out

    def wait_for_spans(
        self, trace_id: str, project: str, done: Callable[[list[dict]], bool], timeout: float = 15.0
    ) -> list[dict]:
        """Polls :meth:`spans` until ``done(spans)``: export is batched and Phoenix inserts
        what it receives a little later (0.1 s), so spans come in over a few polls."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans(trace_id, project)
            if done(spans):
                return spans
            if time.monotonic() > deadline:
                names = [s["name"] for s in spans]
                raise AssertionError(f"trace {trace_id} in {project!r} incomplete after {timeout:.0f} s: {names}")
            time.sleep(0.05)

    def project_id(self, project: str) -> str:
        """The project's GlobalID, which the UI's routes use instead of its name."""
        return self.get(f"/v1/projects/{urllib.parse.quote(project, safe='')}")["data"]["id"]

    def trace_url(self, trace_id: str, project: str, span_id: str | None = None) -> str:
        """The UI page of one trace; ``span_id`` is a span's GlobalID (its REST ``id``) to
        open in the detail pane."""
        url = f"{self.url}/projects/{self.project_id(project)}/traces/{trace_id}"
        if span_id:
            url += "?" + urllib.parse.urlencode({"selectedSpanNodeId": span_id})
        return url
