"""Real ``kva serve`` processes for the browser tests: start one on a free port with the given
environment, wait until ``/healthz`` answers, and stop it afterwards (a failure shows the end
of its log)."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running server: its base URL, process, log and the database it runs on."""

    base_url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    database_url: str

    def log_tail(self, chars: int = 6000) -> str:
        """The end of the server's output, for failure messages."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no server log)"

    def get(self, path: str) -> tuple[int, bytes]:
        """A plain HTTP GET (no browser): status and body."""
        try:
            with urllib.request.urlopen(self.base_url + path, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()


def _launch(env: dict[str, str], log_path: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "kva", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("ab") as log:
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def _wait_healthy(srv: Server, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if srv.process.poll() is not None:
            pytest.fail(f"server exited with {srv.process.returncode}:\n{srv.log_tail()}")
        with contextlib.suppress(OSError):
            status, body = srv.get("/healthz")
            if status == 200 and body.strip().lower().startswith(b"ok"):
                return
        if time.monotonic() > deadline:
            pytest.fail(f"server not healthy after {timeout_s:.0f} s:\n{srv.log_tail()}")
        time.sleep(0.2)


@contextlib.contextmanager
def serving(env: dict[str, str], log_path: Path, timeout_s: float = 60) -> Iterator[Server]:
    """``python -m kva serve`` with ``env`` (which names its ``KVA_DATABASE_URL``) on a free port,
    healthy, for the ``with`` block (:func:`kill9` and :func:`restart` may replace its
    process meanwhile: the one running at the end is stopped)."""
    port = free_port()
    log_path.write_bytes(b"")
    srv = Server(f"http://127.0.0.1:{port}", _launch(env, log_path, port), log_path,
                 env["KVA_DATABASE_URL"])
    try:
        _wait_healthy(srv, timeout_s)
        yield srv
    finally:
        srv.process.terminate()
        try:
            srv.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.process.kill()
            srv.process.wait(timeout=10)


def kill9(srv: Server) -> None:
    """Kill the server with SIGKILL, as a crash or the OOM killer would: no shutdown at all."""
    srv.process.send_signal(signal.SIGKILL)
    srv.process.wait(timeout=10)


def restart(srv: Server, env: dict[str, str], timeout_s: float = 60) -> None:
    """Start the server again on the same port and database (after :func:`kill9`), healthy."""
    assert srv.process.poll() is not None, "the server still runs"
    port = int(srv.base_url.rsplit(":", 1)[1])
    srv.process = _launch(env, srv.log_path, port)
    _wait_healthy(srv, timeout_s)
