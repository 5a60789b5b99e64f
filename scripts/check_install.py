"""Drive a plainly installed kva (``scripts/check-install.sh``): the platform must serve and play.

Run by the Python of a fresh virtual environment that holds only kva's wheel and its declared
dependencies (no extras), so it may import nothing else: the standard library (HTTP through
urllib) and ``websockets`` (which ``uvicorn[standard]`` brings). It

1. starts ``kva serve`` on a free port in an empty temporary directory, with no ``KVA_*``
   variables, so the server sets itself up there (SQLite and its secret key in ``./var``);
2. fetches ``/healthz``, then the home page in each language, chosen by ``/lang/{code}`` (the
   ``kva_lang`` cookie) and by ``Accept-Language``, and checks the page is in that language;
3. starts a match against a bot with the home form (``POST /matches`` with a matching
   ``Origin``; the guest's session cookie it gets goes with everything after), opens the
   match's WebSocket, plays one legal move read from the state's ``view.legal``, and checks
   the next state carries that move;
4. stops the server with SIGINT and checks it shut down cleanly.

Prints one line per step; exits 0 when all held, 1 (with the server's log) otherwise.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

#: Each language's words for the home page's "New match" heading (kva/locale/*/messages.po).
NEW_MATCH = {"ka": "ახალი მატჩი", "en": "New match", "ru": "Новый матч", "tr": "Yeni maç"}
START_TIMEOUT = 30.0
STEP_TIMEOUT = 15.0


class Failure(Exception):
    """A check that did not hold."""


def step(text: str) -> None:
    print(f"  ok  {text}", flush=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """A cookie-keeping HTTP client, like one browser."""

    def __init__(self, base: str, accept_language: str | None = None) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.headers = {"Accept-Language": accept_language} if accept_language else {}

    def get(self, path: str) -> tuple[str, str]:
        """The final URL (after redirects) and the body of GET ``path``."""
        request = urllib.request.Request(self.base + path, headers=self.headers)
        with self.opener.open(request, timeout=STEP_TIMEOUT) as response:
            return response.geturl(), response.read().decode("utf-8")

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[str, str]:
        """Post a form as this site's own page would (a matching ``Origin``)."""
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.base + path, data=data, method="POST",
                                         headers={**self.headers, "Origin": self.base})
        with self.opener.open(request, timeout=STEP_TIMEOUT) as response:
            return response.geturl(), response.read().decode("utf-8")

    def cookie(self, name: str) -> str:
        for cookie in self.jar:
            if cookie.name == name and cookie.value:
                return cookie.value
        raise Failure(f"no {name} cookie was set")


def page_language(html: str) -> str:
    found = re.search(r'<html lang="([a-z]+)"', html)
    return found.group(1) if found else "?"


def check_languages(base: str) -> None:
    for code, words in NEW_MATCH.items():
        browser = Browser(base)
        url, html = browser.get(f"/lang/{code}?next=/")
        if urllib.parse.urlsplit(url).path != "/":
            raise Failure(f"/lang/{code} led to {url}, not the home page")
        if browser.cookie("kva_lang") != code:
            raise Failure(f"/lang/{code} did not set kva_lang={code}")
        if page_language(html) != code or words not in html:
            raise Failure(f"home page after /lang/{code} is not in {code}: "
                          f"lang={page_language(html)!r}, {words!r} missing")
        _, html = Browser(base, accept_language=f"{code},en;q=0.5").get("/")
        if page_language(html) != code or words not in html:
            raise Failure(f"home page for Accept-Language {code} is not in {code}")
    step("home page in ka, en, ru, tr (by /lang/{code} and by Accept-Language)")


def receive_state(ws: Any, deadline: float) -> dict[str, Any]:
    """The next ``state`` message (other messages are skipped)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Failure("no state from the server in time")
        message = json.loads(ws.recv(timeout=remaining))
        if message.get("type") == "error":
            raise Failure(f"the server refused: {message}")
        if message.get("type") == "state":
            return message


def play_one_move(base: str) -> None:
    browser = Browser(base, accept_language="en")
    browser.get("/")
    url, html = browser.post_form("/matches", {"opponent": "bot:easy", "target": "75",
                                               "bazaar": "draw", "password": ""})
    session = browser.cookie("kva_session")  # the guest's session, made by now at the latest
    found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", urllib.parse.urlsplit(url).path)
    if not found or 'data-testid="board"' not in html:
        raise Failure(f"POST /matches did not lead to a game page (ended at {url})")
    match_id = found.group(1)
    step(f"POST /matches against bot:easy made match {match_id}")

    ws_url = base.replace("http://", "ws://") + f"/ws/m/{match_id}"
    headers = {"Cookie": f"kva_session={session}", "Origin": base}
    with connect(ws_url, additional_headers=headers, open_timeout=STEP_TIMEOUT) as ws:
        ws.send(json.dumps({"type": "hello", "version": 0}))
        deadline = time.monotonic() + STEP_TIMEOUT
        state = receive_state(ws, deadline)
        if state["you"] != 0 or state["players"][1] is None or not state["players"][1]["bot"]:
            raise Failure(f"unexpected first state: you={state['you']}, "
                          f"players={state['players']}")
        step(f"WebSocket hello answered with version {state['version']}")
        if not (state.get("fair") or {}).get("commitment"):
            raise Failure("the first state carries no kva-fair/1 commitment")
        # As a browser does once it has seen the commitment: its own client seed.
        ws.send(json.dumps({"type": "seed", "seed": secrets.token_hex(16)}))
        view = state["view"]
        while not (state["status"] == "active" and view["turn"] == state["you"]
                   and view["legal"]):  # the bot may open the hand first
            state = receive_state(ws, deadline)
            view = state["view"]
        action = view["legal"][0]
        ws.send(json.dumps({"type": "action", "version": state["version"], "action": action}))
        after = receive_state(ws, deadline)
        event = after.get("event") or {}
        if after["version"] != state["version"] + 1 or event.get("p") != state["you"]:
            raise Failure(f"after playing {action} at version {state['version']} the next "
                          f"state is version {after['version']} with event {event}")
        if action.get("type") == "play" and event.get("tile") != action.get("tile") and (
            event.get("tile", "")[::-1] != action.get("tile")
        ):
            raise Failure(f"played {action}, the server says {event}")
        step(f"played {json.dumps(action)}; version {after['version']} came back "
             f"with event {event.get('kind')} {event.get('tile', '')}")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kva-plain-") as workdir:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("KVA_")}
        log_path = Path(workdir) / "server.log"
        kva = Path(sys.executable).with_name("kva")
        with open(log_path, "wb") as log:
            server = subprocess.Popen([str(kva), "serve", "--port", str(port),
                                       "--log-level", "warning"],
                                      cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                if server.poll() is not None:
                    raise Failure(f"kva serve exited at start (status {server.returncode})")
                try:
                    body = urllib.request.urlopen(base + "/healthz", timeout=2).read()
                    break
                except (urllib.error.URLError, ConnectionError):
                    if time.monotonic() > deadline:
                        raise Failure("kva serve did not answer /healthz in time") from None
                    time.sleep(0.2)
            if body.strip() != b"ok":
                raise Failure(f"/healthz answered {body!r}")
            if not (Path(workdir) / "var" / "kva.sqlite3").is_file():
                raise Failure("kva serve did not create var/kva.sqlite3 in its directory")
            step(f"kva serve answers /healthz on port {port}, SQLite in ./var of an empty dir")
            check_languages(base)
            play_one_move(base)
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=STEP_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise Failure("kva serve did not stop within 15 s of SIGINT") from None
            output = log_path.read_text(errors="replace")
            if "Traceback" in output:
                raise Failure("kva serve logged a traceback")
            step(f"kva serve stopped on SIGINT (exit status {server.returncode})")
        except (Failure, OSError, KeyError, TypeError, ValueError) as exc:
            print(f"FAILED: {type(exc).__name__ if not isinstance(exc, Failure) else ''}"
                  f"{': ' if not isinstance(exc, Failure) else ''}{exc}", file=sys.stderr)
            if server.poll() is None:
                server.kill()
                server.wait()
            print("---- kva serve output ----", file=sys.stderr)
            print(log_path.read_text(errors="replace")[-6000:], file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
