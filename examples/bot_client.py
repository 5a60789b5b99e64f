#!/usr/bin/env python3
"""A complete kva bot in one file, standard library only (docs/bot-api.md).

It connects to the bot event stream, accepts the challenges it receives, and plays every
match it is in with a simple greedy policy: of the legal plays, the heaviest tile (a double
first on a tie). Draws and passes are never sent: the server applies them when they are
forced.

    KVA_BOT_TOKEN=kvab_... python examples/bot_client.py --url http://127.0.0.1:8000

Options: ``--challenge NICK`` challenges a player or bot once connected (``--target``,
``--bazaar``, ``--rated``); ``--matches N`` exits after N of its matches are over;
``--no-accept`` leaves incoming challenges alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any


class Api:
    """The bot API over urllib: JSON requests and NDJSON streams with a bearer token."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base = base_url.rstrip("/")
        self.token = token

    def _request(self, method: str, path: str, body: Any = None) -> urllib.request.Request:
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        return req

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request: its HTTP status and decoded JSON answer (errors included). A 429
        is retried after its ``Retry-After``."""
        while True:
            try:
                with urllib.request.urlopen(self._request(method, path, body),
                                            timeout=30) as resp:
                    return resp.status, json.loads(resp.read() or b"null")
            except urllib.error.HTTPError as exc:
                answer = json.loads(exc.read() or b"null")
                if exc.code == 429:
                    time.sleep(float(exc.headers.get("Retry-After") or 1))
                    continue
                return exc.code, answer

    def stream(self, path: str, on_open: Any = None) -> Iterator[dict[str, Any]]:
        """The JSON lines of a stream (empty keep-alive lines skipped) until it ends;
        ``on_open`` is called once the server has answered."""
        with urllib.request.urlopen(self._request("GET", path), timeout=120) as resp:
            if on_open is not None:
                on_open()
            for raw in resp:
                line = raw.strip()
                if line:
                    yield json.loads(line)


def pips(tile: str) -> tuple[int, bool]:
    a, b = (int(x) for x in tile.split("-"))
    return a + b, a == b


def choose(view: dict[str, Any]) -> dict[str, Any] | None:
    """The greedy choice among the legal plays (None: nothing to choose)."""
    plays = [a for a in view["legal"] if a.get("type") == "play"]
    if not plays:
        return None
    best: dict[str, Any] = max(plays, key=lambda a: pips(a["tile"]))
    return best


class Bot:
    def __init__(self, api: Api, accept: bool, matches: int | None) -> None:
        self.api = api
        self.accept = accept
        self.wanted = matches
        self.over: set[str] = set()
        self.playing: set[str] = set()
        self.lock = threading.Lock()
        self.done = threading.Event()
        # Every line goes out under this lock, and none once the program is closing: a
        # daemon thread still writing to stdout while the interpreter shuts down aborts the
        # whole process ("could not acquire lock for <stdout>"), whatever main returned.
        self.output = threading.Lock()
        self.closing = False

    def log(self, text: str) -> None:
        with self.output:
            if not self.closing:
                print(f"[bot] {text}", flush=True)

    def close(self, text: str) -> None:
        """The last line; the match and stream threads stay silent after it."""
        with self.output:
            print(f"[bot] {text}", flush=True)
            self.closing = True

    def play(self, match_id: str) -> None:
        """Follow one match's stream and move whenever it is this seat's turn."""
        try:
            for state in self.api.stream(f"/api/bot/match/{match_id}/stream"):
                if state.get("type") == "error":
                    self.log(f"match {match_id}: {state.get('code')}")
                    return
                view = state["view"]
                if state["status"] != "active" or view["over"]:
                    if state["status"] in ("finished", "cancelled"):
                        break
                    continue
                if view["turn"] != state["you"]:
                    continue
                action = choose(view)
                if action is None:
                    continue
                status, answer = self.api.call(
                    "POST", f"/api/bot/match/{match_id}/action",
                    {"version": state["version"], "action": action})
                if status != 200 and answer.get("code") not in ("stale", "not_your_turn"):
                    self.log(f"match {match_id}: {answer}")
        except Exception as exc:  # a dropped stream: the event stream will say if it is over
            self.log(f"match {match_id}: stream ended ({exc})")
        finally:
            with self.lock:
                self.playing.discard(match_id)
            self.finished(match_id)

    def finished(self, match_id: str) -> None:
        with self.lock:
            self.over.add(match_id)
            if self.wanted is not None and len(self.over) >= self.wanted:
                self.done.set()

    def start_match(self, match_id: str) -> None:
        with self.lock:
            if match_id in self.playing or match_id in self.over:
                return
            self.playing.add(match_id)
        self.log(f"playing {match_id}")
        threading.Thread(target=self.play, args=(match_id,), daemon=True).start()

    def events(self, challenge: dict[str, Any] | None) -> None:
        """Read the event stream forever (reconnecting), reacting to each event."""
        def send_challenge() -> None:
            if challenge is not None and "nickname" in challenge:
                status, answer = self.api.call(
                    "POST", f"/api/challenge/{challenge.pop('nickname')}", challenge)
                self.log(f"challenge sent: {status} {answer}")

        while not self.done.is_set():
            try:
                for event in self.api.stream("/api/bot/stream", on_open=send_challenge):
                    self.on_event(event)
                    if self.done.is_set():
                        return
            except urllib.error.HTTPError as exc:
                self.log(f"event stream refused: {exc.code} {exc.read()!r}")
                if exc.code in (401, 403):
                    sys.exit(2)
            except Exception as exc:
                self.log(f"event stream dropped ({exc}); reconnecting")
            time.sleep(1)

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge" and self.accept:
            cid = event["challenge"]["id"]
            status, answer = self.api.call("POST", f"/api/challenge/{cid}/accept")
            self.log(f"accepted {cid}: {status} {answer}")
        elif kind == "match_start":
            self.start_match(event["match"]["id"])
        elif kind == "match_over":
            self.log(f"over {event['match']['id']}: winner seat {event['match']['winner']}")
            self.finished(event["match"]["id"])
        elif kind == "error":
            self.log(f"stream error {event}")
            if event.get("code") == "revoked":
                sys.exit(2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("KVA_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("KVA_BOT_TOKEN", ""))
    parser.add_argument("--no-accept", action="store_true")
    parser.add_argument("--matches", type=int, default=None)
    parser.add_argument("--challenge", metavar="NICK")
    parser.add_argument("--target", type=int, default=75)
    parser.add_argument("--bazaar", default="draw")
    parser.add_argument("--rated", action="store_true")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give --token or KVA_BOT_TOKEN")
    bot = Bot(Api(args.url, args.token), not args.no_accept, args.matches)
    challenge = None
    if args.challenge:
        challenge = {"nickname": args.challenge, "target": args.target,
                     "bazaar": args.bazaar, "rated": args.rated}
    reader = threading.Thread(target=bot.events, args=(challenge,), daemon=True)
    reader.start()
    while not bot.done.is_set():
        if not reader.is_alive():
            bot.close("event stream closed")
            return 2
        bot.done.wait(0.2)
    bot.close(f"{len(bot.over)} matches over; bye")
    return 0


if __name__ == "__main__":
    sys.exit(main())
