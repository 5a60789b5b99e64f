"""Helpers for the browser tests: reading the pages through their ``data-testid`` hooks
(docs/web-contract.md) and driving a game by clicking, as a player does.

:class:`Game` also listens to the page's own WebSocket frames, so a test can compare what the
page shows with the state the server sent it, and wait for "the next state" instead of
sleeping.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Screenshots of key states, for a human to look at (kept after the run).
SHOTS = Path(os.environ.get("KVA_TEST_SHOTS_DIR", "/tmp/kva-shots"))
#: Default wait for one page reaction, in milliseconds.
STEP_MS = 10_000


def norm_tile(name: str) -> str:
    """``"4-6"`` and ``"6-4"`` name the same tile: the canonical form has the larger half first."""
    a, b = name.split("-")
    return f"{max(a, b)}-{min(a, b)}"


def shot(page: Any, name: str, full_page: bool = False) -> Path | None:
    """Save a screenshot of ``page`` as ``SHOTS/<name>.png`` for a human to look at.

    Best effort: a page caught mid-navigation cannot be captured, and a picture for people must
    never decide a test, so a failed capture is reported and skipped."""
    from playwright.sync_api import Error as PlaywrightError

    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    try:
        page.screenshot(path=str(path), full_page=full_page)
    except PlaywrightError as exc:
        print(f"screenshot {name} not taken: {exc.message.splitlines()[0]}")
        return None
    return path


def tid(name: str) -> str:
    """The CSS selector of a ``data-testid`` hook."""
    return f'[data-testid="{name}"]'


def set_field(page: Any, name: str, value: str) -> None:
    """Set form field ``name`` to ``value``, whatever widget the page uses (select, radio, text)."""
    form = page.locator(tid("new-match"))
    fields = form.locator(f'[name="{name}"]')
    first = fields.first
    first.wait_for(state="attached")
    tag = first.evaluate("e => e.tagName.toLowerCase()")
    kind = (first.get_attribute("type") or "").lower()
    if tag == "select":
        first.select_option(value)
    elif kind in ("radio", "checkbox"):
        choice = form.locator(f'[name="{name}"][value="{value}"]')
        if choice.is_visible():
            choice.check()
        else:  # a styled radio hides its input behind a label
            choice.evaluate("e => { e.checked = true; e.dispatchEvent(new Event('change')); }")
    else:
        first.fill(value)


@dataclass
class Game:
    """One visitor's game page, with the WebSocket states the server sent it."""

    page: Any
    states: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    #: If set, the first hand result seen is screenshotted under this name before it is closed.
    hand_result_shot: str | None = None
    hand_results_seen: int = 0

    def __post_init__(self) -> None:
        self.page.on("websocket", self._on_websocket)

    def _on_websocket(self, ws: Any) -> None:
        if "/ws/" not in ws.url:
            return

        def on_frame(payload: str | bytes) -> None:
            try:
                msg = json.loads(payload)
            except (ValueError, TypeError):
                return
            if not isinstance(msg, dict):
                return
            if msg.get("type") == "state":
                self.states.append(msg)
            elif msg.get("type") == "error":
                self.errors.append(msg)

        ws.on("framereceived", on_frame)
        ws.on("framesent", lambda payload: self.sent.append(str(payload)[:300]))

    # -- what the server said

    @property
    def view(self) -> dict[str, Any]:
        """The latest view the server sent this page."""
        assert self.states, "no state received over the WebSocket"
        return dict(self.states[-1]["view"])

    def wait_states(self, count: int, timeout_ms: int = STEP_MS) -> None:
        """Wait until more than ``count`` states have arrived."""
        deadline = time.monotonic() + timeout_ms / 1000
        while len(self.states) <= count:
            if time.monotonic() > deadline:
                raise AssertionError(f"no new state after {timeout_ms} ms (had {count})")
            self.page.wait_for_timeout(25)

    # -- what the page shows

    def loc(self, name: str) -> Any:
        return self.page.locator(tid(name))

    def wait_ready(self) -> None:
        """The game page is up: hand rendered (if seated) and a first state received."""
        self.page.wait_for_url(re.compile(r"/m/[^/?#]+"), timeout=STEP_MS)
        self.loc("board").wait_for(state="attached")
        self.wait_states(0)
        # Both seats taken: the deal follows once the page has sent its kva-fair/1 seed.
        deadline = time.monotonic() + STEP_MS / 1000
        while self.undealt() and time.monotonic() < deadline:
            self.page.wait_for_timeout(25)

    def undealt(self) -> bool:
        """Both seats are taken but the match waits for its client seeds (no tiles yet)."""
        last = self.states[-1]
        return (last["status"] == "active" and not last["view"]["over"]
                and last["view"]["turn"] is None)

    @property
    def match_id(self) -> str:
        m = re.search(r"/m/([^/?#]+)", self.page.url)
        assert m, self.page.url
        return m.group(1)

    def hand_tiles(self) -> list[str]:
        """The tiles in my hand as the page shows them (``data-tile``), in page order."""
        return [
            t
            for t in self.loc("hand")
            .locator("[data-tile]")
            .evaluate_all("els => els.map(e => e.dataset.tile)")
        ]

    def legal_tiles(self) -> Any:
        return self.loc("hand").locator('[data-testid="tile"].legal')

    def board_tiles(self) -> list[str]:
        """The tiles on the board, in page order."""
        return list(
            self.loc("board")
            .locator("[data-tile]")
            .evaluate_all("els => els.map(e => e.dataset.tile)")
        )

    def scores(self) -> tuple[int, int]:
        """(mine, the opponent's) from the ``score`` hook."""
        score = self.loc("score")
        return int(score.get_attribute("data-you") or -1), int(
            score.get_attribute("data-opponent") or -1
        )

    def snapshot(self) -> dict[str, Any]:
        """Everything a reload must restore, as the page shows it."""
        return {
            "hand": sorted(self.hand_tiles()),
            "board": self.board_tiles(),
            "board_text": " ".join((self.loc("board").text_content() or "").split()),
            "scores": self.scores(),
            "ends_sum": self.loc("ends-sum").inner_text().strip(),
            "opponent_count": self.loc("opponent-hand").first.get_attribute("data-count"),
            "bazaar": self.loc("bazaar").first.get_attribute("data-drawable"),
            "legal": sorted(self.legal_tiles().evaluate_all("els => els.map(e => e.dataset.tile)")),
        }

    def live_score_problem(self) -> str | None:
        """Whether the ``score`` hook shows the match score including the points scored so far
        in this hand (rules: "points are added as they are scored"). None when it does, or
        when the state moved on while reading (no verdict); else what differs."""
        count = len(self.states)
        v = self.view
        if v.get("over") or v.get("player") is None:
            return None
        me, op = v["player"], 1 - v["player"]
        points = v.get("hand_points") or [0, 0]
        want = (v["scores"][me] + points[me], v["scores"][op] + points[op])
        shown = self.scores()
        if len(self.states) != count:
            return None
        if shown != want:
            return (
                f"hand {v['hand_number']}: score shows {shown}, but match score {v['scores']}"
                f" + this hand's points {points} make {want}"
            )
        return None

    def result_on_screen(self, name: str = "match-result", timeout_ms: int = 3000) -> bool:
        """Whether the ``name`` panel is (or within ``timeout_ms`` gets) inside the viewport:
        a result below the fold is one the player does not see."""
        try:
            self.page.wait_for_function(
                """sel => { const e = document.querySelector(sel); if (!e) return false;
                   const r = e.getBoundingClientRect();
                   return r.height > 0 && r.top < window.innerHeight && r.bottom > 0; }""",
                arg=f'[data-testid="{name}"]',
                timeout=timeout_ms,
            )
        except Exception:
            return False
        return True

    def match_over(self) -> bool:
        return bool(self.loc("match-result").first.is_visible())

    def my_turn(self) -> bool:
        """The server says it is my move (and the match goes on)."""
        if not self.states:
            return False
        v = self.view
        return bool(not v.get("over") and v.get("player") is not None and v["turn"] == v["player"])

    def dismiss_hand_result(self) -> bool:
        """Close a shown ``hand-result`` panel with its button, as a player does before the next
        hand (it covers the board). Returns whether one was shown."""
        panel = self.loc("hand-result").first
        if not panel.is_visible():
            return False
        self.hand_results_seen += 1
        if self.hand_result_shot:
            shot(self.page, self.hand_result_shot)
            self.hand_result_shot = None
        button = panel.locator("button").first
        with contextlib.suppress(Exception):
            if button.is_visible():
                button.click(timeout=2000)
        return True

    def play_one(self, timeout_ms: int = STEP_MS) -> str | None:
        """Click my first legal tile (and the first end target if the page asks for one); wait
        until the server confirms a new state. Returns the tile played, None if none was legal.
        """
        self.dismiss_hand_result()
        legal = self.legal_tiles()
        if legal.count() == 0:
            return None
        before = len(self.states)
        tile = legal.first
        name = tile.get_attribute("data-tile")
        try:
            tile.click(timeout=2000)
        except Exception:  # re-rendered under the pointer: the caller tries again
            return None
        deadline = time.monotonic() + timeout_ms / 1000
        targets = self.loc("end-target")
        click_error = ""
        while len(self.states) <= before:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"clicking {name} changed nothing in {timeout_ms} ms; "
                    f"errors={self.errors[-3:]}; sent={self.sent[-3:]}; "
                    f"last events={[st.get('event') for st in self.states[-3:]]}; "
                    f"legal={self.view.get('legal')}; turn={self.view.get('turn')}; "
                    f"end-target click: {click_error[:400]}"
                )
            self.dismiss_hand_result()
            if targets.count() and targets.first.is_visible():
                try:
                    targets.first.click(timeout=2000)
                except Exception as exc:
                    click_error = str(exc)
            self.page.wait_for_timeout(30)
        return name


class Progress:
    """The watch over a loop that plays a match out: it fails once no move has been made for
    ``stall_s`` seconds (a table that is stuck), not on the match's whole length, which a busy
    machine may stretch several times over; ``ceiling_s`` bounds a loop that never ends."""

    def __init__(self, stall_s: float, ceiling_s: float = 600) -> None:
        self.stall_s = stall_s
        self.start = self.last_move = time.monotonic()
        self.ceiling_s = ceiling_s
        self.moves = 0

    def check(self, detail: Callable[[], str] = str) -> None:
        """Fail, with ``detail()`` (what the pages last saw), if the loop is stuck."""
        now = time.monotonic()
        assert now - self.last_move < self.stall_s, (
            f"no move for {self.stall_s} s ({self.moves} moves made) {detail()}")
        assert now - self.start < self.ceiling_s, (
            f"no end in {self.ceiling_s} s ({self.moves} moves made) {detail()}")

    def made(self, moves: int) -> None:
        if moves:
            self.moves += moves
            self.last_move = time.monotonic()


def play_until_over(games: list[Game], on_step: Callable[[int], None],
                    stall_s: float = 30) -> int:
    """Play every seated page's legal tiles until every page shows ``match-result``.

    Returns the number of tiles played. ``on_step(n)`` is called after each placement (for
    screenshots). A game stuck for ``stall_s`` fails with what each page last saw.
    """
    def last_views() -> str:
        return "; ".join(
            f"turn={g.view.get('turn')} player={g.view.get('player')} "
            f"scores={g.view.get('scores')} over={g.view.get('over')} "
            f"legal={g.view.get('legal')} errors={g.errors[-2:]}"
            for g in games if g.states)

    progress = Progress(stall_s)
    while not all(g.match_over() for g in games):
        progress.check(last_views)
        acted = False
        for g in games:
            if g.match_over():
                continue
            if g.play_one() is not None:
                progress.made(1)
                acted = True
                on_step(progress.moves)
        if not acted:
            games[0].page.wait_for_timeout(50)
    return progress.moves


def start_match(
    page: Any, opponent: str, target: int = 75, bazaar: str = "draw", password: str = "",
    clock: str = "",
) -> Game:
    """Create a match from the home page's ``new-match`` form (``clock``: a table's time
    control, else the form's default); returns the game page."""
    game = Game(page)
    page.goto("/")
    set_field(page, "opponent", opponent)
    set_field(page, "target", str(target))
    set_field(page, "bazaar", bazaar)
    if password:
        set_field(page, "password", password)
    if clock:
        set_field(page, "clock", clock)
    page.locator(tid("start")).click()
    game.wait_ready()
    return game


def share_link(game: Game, base_url: str) -> str:
    """The closed table's link from the ``share-link`` hook (a link, an input, or text)."""
    el = game.loc("share-link").first
    el.wait_for(state="visible")
    text = (
        el.get_attribute("href")
        or el.evaluate("e => e.value || ''")
        or el.get_attribute("data-url")
        or el.inner_text()
    )
    m = re.search(r"(https?://[^\s\"'<>]+)?(/t/[A-Za-z0-9_\-]+)", text or "")
    assert m, f"no /t/ link in share-link: {text!r}"
    return base_url + m.group(2)
