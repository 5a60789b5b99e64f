"""Helpers of the multi-process tests: a ``kva serve`` subprocess, an nginx subprocess with a
generated configuration, and a WebSocket client that sends chosen headers through nginx."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import websockets

from tests.helpers.waiting import first_matching

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("KVA_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
#: The response header nginx adds: which upstream (process) answered.
UPSTREAM_HEADER = "X-Kva-Upstream"
#: The request header that picks a process in the generated configuration.
ROUTE_HEADER = "X-Kva-Route"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_up() -> bool:
    import redis

    client = redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        return bool(client.ping())
    except Exception:
        return False
    finally:
        client.close()


def _get(url: str, timeout: float = 5) -> tuple[int, bytes, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read(), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def _wait_healthy(url: str, alive: Any, log_tail: Any, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if not alive():
            raise AssertionError(f"exited before answering {url}:\n{log_tail()}")
        with contextlib.suppress(OSError):
            status, body, _ = _get(url, timeout=2)
            if status == 200 and body.strip().lower().startswith(b"ok"):
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} not healthy after {timeout_s:.0f} s:\n{log_tail()}")
        time.sleep(0.2)


class ServeProcess:
    """``python -m kva serve`` on a free port with ``env``, its output in ``log_path``."""

    def __init__(self, env: dict[str, str], log_path: Path, *args: str) -> None:
        self.env = env
        self.log_path = log_path
        self.args = args
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, chars: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def start(self, timeout_s: float = 60) -> ServeProcess:
        cmd = [sys.executable, "-m", "kva", "serve", "--host", "127.0.0.1",
               "--port", str(self.port), "--log-level", "warning", *self.args]
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT)
        process = self.process
        _wait_healthy(self.base_url + "/healthz", lambda: process.poll() is None,
                      self.log_tail, timeout_s)
        return self

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def nginx_config(prefix: Path, port: int, backends: dict[str, int]) -> str:
    """An nginx configuration: ``backends`` (name → port) behind ``127.0.0.1:port``, chosen by
    the :data:`ROUTE_HEADER` request header (without it: a match's page and socket by a
    consistent hash of its id, everything else round robin), WebSockets upgraded,
    the client's address, scheme and host forwarded, and the answering process named in
    :data:`UPSTREAM_HEADER`. The production version is in docs/deployment.md."""
    user = "user root root;\n" if os.geteuid() == 0 else ""
    upstreams = "".join(
        f"    upstream kva_{name} {{ server 127.0.0.1:{p}; keepalive 8; }}\n"
        for name, p in backends.items())
    every = "".join(f"server 127.0.0.1:{p}; " for p in backends.values())
    routes = "".join(f"        {name} kva_{name};\n" for name in backends)
    # A match's page and socket go to one process, chosen by a consistent hash of its id
    # (docs/deployment.md), unless the route header names a process.
    return f"""{user}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
{upstreams}    upstream kva_any {{ {every}keepalive 8; }}
    upstream kva_match {{ hash $kva_match_id consistent; {every}keepalive 8; }}
    map $uri $kva_match_id {{
        ~^/(?:ws/)?m/(?<kva_mid>[A-Za-z0-9_-]+)$ $kva_mid;
        default "";
    }}
    map $kva_match_id $kva_default {{
        "" kva_any;
        default kva_match;
    }}
    map $http_x_kva_route $kva_upstream {{
        default $kva_default;
{routes}    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      '';
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://$kva_upstream;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $http_host;
            proxy_read_timeout 1h;
            add_header {UPSTREAM_HEADER} $upstream_addr always;
        }}
    }}
}}
"""


class Nginx:
    """nginx in the foreground (``daemon off``) with a generated configuration in ``prefix``."""

    def __init__(self, binary: str, prefix: Path, backends: dict[str, int]) -> None:
        self.binary = binary
        self.prefix = prefix
        self.port = free_port()
        self.backends = backends
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, chars: int = 4000) -> str:
        out = []
        for name in ("stderr.log", "error.log"):
            with contextlib.suppress(OSError):
                out.append((self.prefix / name).read_text(errors="replace")[-chars:])
        return "\n".join(out) or "(no nginx log)"

    def start(self, timeout_s: float = 20) -> Nginx:
        self.prefix.mkdir(parents=True, exist_ok=True)
        conf = self.prefix / "nginx.conf"
        conf.write_text(nginx_config(self.prefix, self.port, self.backends))
        cmd = [self.binary, "-p", str(self.prefix), "-c", str(conf), "-e",
               str(self.prefix / "error.log"), "-g", "daemon off;"]
        with (self.prefix / "stderr.log").open("wb") as log:
            self.process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        process = self.process
        _wait_healthy(self.base_url + "/healthz", lambda: process.poll() is None,
                      self.log_tail, timeout_s)
        return self

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


class RoutedSocket:
    """A WebSocket through nginx with chosen headers, keeping every JSON message received and
    the upstream that answered the handshake."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.url = url
        self.headers = headers
        self.messages: list[dict[str, Any]] = []
        self.upstream = ""
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()
        self.closed = False

    async def open(self) -> RoutedSocket:
        self._ws = await websockets.connect(self.url, additional_headers=self.headers,
                                            max_size=2 ** 22)
        self.upstream = self._ws.response.headers.get(UPSTREAM_HEADER, "")
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        try:
            async for text in self._ws:
                self.messages.append(json.loads(text))
                self._arrived.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self._arrived.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self._ws.send(json.dumps(message))

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def wait_for(self, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
        """The first message received (so far or within ``timeout``) that matches."""
        return await first_matching(
            self.messages, predicate, self._arrived, lambda: self.closed, timeout,
            lambda: str(self.messages[-3:]),
        )

    @property
    def state(self) -> dict[str, Any]:
        return [m for m in self.messages if m.get("type") == "state"][-1]

    def my_turn(self) -> bool:
        s = self.state
        v = s["view"]
        return (s["status"] == "active" and not v["over"] and v["turn"] == s["you"]
                and bool(v["legal"]) and v["legal"][0]["type"] == "play")


@contextlib.contextmanager
def behind_nginx(processes: list[ServeProcess], nginx_binary: str,
                 tmp_path: Path) -> Iterator[tuple[Nginx, list[ServeProcess]]]:
    """``processes`` (named a, b, ...) started one after the other (the first applies the
    migrations to the empty database), nginx in front of them; all stopped afterwards."""
    started: list[ServeProcess] = []
    try:
        for process in processes:
            started.append(process.start())
        nginx = Nginx(nginx_binary, tmp_path / "nginx",
                      {name: p.port for name, p in zip("abcdefgh", processes, strict=False)}
                      ).start()
        try:
            yield nginx, processes
        finally:
            nginx.stop()
    finally:
        for process in started:
            process.stop()


async def play_first_legal(sockets: Iterable[RoutedSocket]) -> dict[str, Any] | None:
    """Send the first legal action of whichever socket's player is on turn; the state that
    answers it (None, after a short wait, when nobody is on turn now)."""
    movers = [s for s in sockets if s.my_turn()]
    if not movers:
        await asyncio.sleep(0.05)
        return None
    state = movers[0].state
    await movers[0].send({"type": "action", "version": state["version"],
                          "action": state["view"]["legal"][0]})
    reply = await movers[0].wait_for(
        lambda m, v=state["version"]: (m.get("type") == "state" and m["version"] > v)
        or m.get("type") == "error")
    assert reply["type"] == "state", reply
    return reply
