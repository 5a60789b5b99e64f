"""Helpers of the Kozel browser tests: create a table from the home form, take a turn on a
page by clicking only what it offers (a playable tile and its end, the draw or knock button,
the hand's summary), play a match out on one page or on every page of a table at once, and
check the match's end as the server decided it."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kva.service.accounts.sessions import open_session
from kva.service.play import Seat
from kva.storage.db import Database
from tests.e2e.e2e_helpers import Game, Progress, set_field, shot, tid
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play

ROOT = Path(__file__).resolve().parents[2]


def open_kozel(page: Any, opponent: str, fish: str = "all", clock: str = "none") -> list[str]:
    """Create a Kozel match from the home form; the page's script errors, kept as they come."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/")
    set_field(page, "game", "kozel")
    assert page.locator(tid("fish")).is_visible()
    assert not page.locator(f'{tid("new-match")} [name="target"]').is_visible()  # Georgian's
    set_field(page, "opponent", opponent)
    set_field(page, "fish", fish)
    set_field(page, "clock", clock)
    page.locator(tid("start")).click()
    page.locator(tid("kozel-table")).wait_for()
    return errors


def start_kozel(page: Any, fish: str = "all", clock: str = "none") -> Game:
    """Create a Kozel match against the easy bot from the home form; the table once dealt."""
    game = Game(page)
    game.page_errors = open_kozel(page, "bot:easy", fish, clock)  # type: ignore[attr-defined]
    wait_dealt(page)
    return game


def wait_dealt(page: Any, timeout_s: float = 20) -> None:
    """Until the page shows its player's hand (the match has started and been dealt)."""
    deadline = time.monotonic() + timeout_s
    while not page.locator(f'{tid("kozel-hand")} button').count():
        assert time.monotonic() < deadline, "the hand was never dealt"
        page.wait_for_timeout(25)


def is_over(page: Any) -> bool:
    return page.locator(tid("kozel-table")).get_attribute("data-over") == "1"


#: What the table offers its player now, read in one call (a page not on turn costs one).
OFFER = """() => {
  const shown = (id) => { const e = document.getElementById(id); return !!e && !e.hidden; };
  const over = document.getElementById("kozel").dataset.over === "1";
  return { summary: shown("k-hand-end"), over,
           playable: document.querySelectorAll('#k-hand button[data-playable="1"]').length,
           forced: shown("k-draw") || shown("k-knock") };
}"""


def take_turn(game: Game) -> int:
    """One thing the page offers its player, clicked: close the hand's summary (not the last
    one's), else place a playable tile (on end L when both fit), else draw or knock. 1 for a
    move made, 0 for none (a summary closed, or nothing on offer now)."""
    page = game.page
    offer = page.evaluate(OFFER)
    if offer["summary"]:
        if not offer["over"]:
            page.locator(tid("kozel-hand-end-close")).click()
        return 0
    if offer["playable"]:
        before = len(game.states)
        page.locator(f'{tid("kozel-hand")} button[data-playable="1"]').first.click()
        if page.locator(tid("kozel-ends")).is_visible():
            page.locator(tid("kozel-end-L")).click()
        wait_for_state(game, before)
        return 1
    return click_forced(page) if offer["forced"] else 0


def play_to_the_end(game: Game, stall_s: float = 45) -> tuple[int, int]:
    """Click through the match: a playable tile (its end when asked), else draw or knock;
    close each hand's summary. Returns (moves made, hand summaries seen)."""
    page = game.page
    hand_end = page.locator(tid("kozel-hand-end"))
    summaries = 0
    progress = Progress(stall_s)
    while not is_over(page) or hand_end.is_visible():
        progress.check()
        if hand_end.is_visible():
            summaries += 1
            assert page.locator(tid("kozel-hand-end-row")).count() == 2
            if summaries == 1:
                shot(page, "kozel-02-hand-end")
            if is_over(page):
                break  # the last hand's summary: the match's end follows its closing
        made = take_turn(game)
        progress.made(made)
        if not made and not hand_end.is_visible():
            page.wait_for_timeout(30)
    return progress.moves, summaries


def play_together(games: list[Game], stall_s: float = 45,
                  until: Callable[[int], bool] | None = None) -> int:
    """Every page of a table in one loop, each acting only on what its own page offers (the
    page on turn plays), until every page knows the match is over, or ``until(moves made)``
    holds; the moves made."""
    progress = Progress(stall_s)
    while not (until(progress.moves) if until else all(is_over(game.page) for game in games)):
        progress.check()
        made = sum(take_turn(game) for game in games)
        progress.made(made)
        if not made:
            games[0].page.wait_for_timeout(30)
    return progress.moves


def click_forced(page: Any) -> int:
    """Click the draw or knock button on offer: 1, or 0 when the game made that forced action
    itself first (as it does for every forced draw and knock) and the button went away."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for button in ("kozel-draw", "kozel-knock"):
        try:
            page.locator(f"{tid(button)}:visible").click(timeout=500)
            return 1
        except PlaywrightTimeout:
            continue
    return 0


def wait_for_state(game: Game, count: int) -> None:
    """Until a state past the first ``count`` has arrived (the answer to a click), or an
    error (a move refused as too fast: the loop offers it again)."""
    errors = len(game.errors)
    deadline = time.monotonic() + 10
    while len(game.states) <= count and len(game.errors) == errors:
        assert time.monotonic() < deadline, ("no state answered the move", game.sent[-3:],
                                             game.errors)
        game.page.wait_for_timeout(20)
    game.page.wait_for_timeout(60)  # a person's pace: the socket limits messages a second


#: Refusals a player's page meets in normal play, each answered by the page itself:
#: ``rate_limited``, a click faster than the socket allows (the loop offers it again), and
#: ``stale``, a draw or knock clicked in the moment the server makes that forced action
#: itself (the page asks for the state again and shows it).
ORDINARY_REFUSALS = frozenset({"rate_limited", "stale"})


def check_only_ordinary_refusals(game: Game) -> None:
    """Every error the page was sent is one a player meets in normal play."""
    assert all(e["code"] in ORDINARY_REFUSALS for e in game.errors), game.errors


def see_the_end(page: Any) -> None:
    """Close the last hand's summary, if it is up, and wait for the match's end."""
    page.locator(f'{tid("kozel-table")}[data-over="1"]').wait_for(state="attached",
                                                                  timeout=30_000)
    close = page.locator(tid("kozel-hand-end-close"))
    if close.is_visible():
        close.click()
    page.locator(tid("kozel-match-end")).wait_for()


def check_the_end(game: Game, goat_word: str) -> None:
    """The last hand's summary, then the match's end naming the козёл, as the server says."""
    page = game.page
    view = game.view
    assert view["over"] and view["losers"], view
    hand_end = page.locator(tid("kozel-hand-end"))
    hand_end.wait_for()
    counts = page.locator(f'{tid("kozel-hand-end-row")} td:first-of-type').all_inner_texts()
    assert [int(c) for c in counts] == view["last"]["counts"]
    page.locator(tid("kozel-hand-end-close")).click()
    end = page.locator(tid("kozel-match-end"))
    end.wait_for()
    goat = page.locator(tid("kozel-goat")).inner_text()
    assert goat_word in goat.lower(), goat
    assert max(view["score"]) >= view["options"]["limit"]
    check_only_ordinary_refusals(game)
    assert game.page_errors == [], game.page_errors  # type: ignore[attr-defined]


def verify_downloaded_record(page: Any, folder: Path) -> dict[str, Any]:
    """Download the record from the match end's link and pass it to ``kva record verify``;
    the record's JSON."""
    import json

    with page.expect_download() as info:
        page.locator(f'{tid("kozel-match-end")} a[download]').click()
    path = folder / "record.json"
    info.value.save_as(str(path))
    done = subprocess.run([sys.executable, "-m", "kva", "record", "verify", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("ok "), (done.stdout, done.stderr)
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


#: A tile's name as the views write it: "3-5".
TILE = re.compile(r"\b[0-6]-[0-6]\b")


def open_table(page: Any, seats: int, fish: str = "one", clock: str = "none") -> str:
    """Open a Kozel table of ``seats`` from the lobby's form; its match id, the page at it."""
    page.goto("/lobby")
    form = page.locator(tid("open-table-form"))
    form.locator(tid("game-choice")).select_option("kozel")
    form.locator(tid("seats")).select_option(str(seats))
    form.locator(tid("fish")).select_option(fish)
    form.locator(tid("clock")).select_option(clock)
    form.locator(tid("open-table")).click()
    page.wait_for_url(re.compile(r"/m/[A-Za-z0-9_-]+$"))
    page.locator(tid("kozel-waiting")).wait_for()
    return str(page.url.rsplit("/", 1)[1])


def join_table(page: Any, match_id: str) -> None:
    """Take the next free seat of an open table from the lobby's list."""
    page.goto("/lobby")
    row = page.locator(f'{tid("lobby-table")}[data-match="{match_id}"]')
    row.locator(tid("join-table")).click()
    page.wait_for_url(re.compile(rf"/m/{match_id}$"))


def players_table(server: Any, seats: int = 2, rated: bool = True, clock: str = "none",
                  clock_presets: dict[str, tuple[int, int]] | None = None,
                  ) -> tuple[str, list[str]]:
    """A Kozel match of ``seats`` new registered players, active, written straight into the
    server's database (its clock timed by ``clock_presets``, the server's own if it sets
    ``KVA_CLOCK_PRESETS``); its id and each player's session token (their cookie), by seat."""

    async def run() -> tuple[str, list[str]]:
        database = Database(str(server.database_url))
        try:
            sessions = database.sessions
            users = [await make_user(sessions) for _ in range(seats)]
            row = make_play(database, clock_presets=clock_presets).prepare_match(
                [Seat(u.id, u.nickname) for u in users], rated=rated, clock=clock,
                game="kozel", options={})
            async with sessions() as session, session.begin():
                session.add(row)
            async with sessions() as session:
                tokens = [await open_session(session, u.id) for u in users]
                await session.commit()
            return row.id, tokens
        finally:
            await database.dispose()

    # Playwright's sync API keeps an event loop running in this thread: use another one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()


def signed_in_table(new_context: Callable[..., Any], server: Any, token: str,
                    match_id: str, **kwargs: Any) -> Game:
    """A player's page at the table, signed in by their session token, once dealt."""
    ctx = new_context(**kwargs)
    ctx.add_cookies([{"name": "kva_session", "value": token, "url": server.base_url}])
    page = ctx.new_page()
    game = Game(page)
    page.goto(f"/m/{match_id}")
    wait_dealt(page)
    return game


def rating_lines(page: Any, seats: int) -> list[str]:
    """The match end's rating lines, one per seat, once the last hand's summary is closed."""
    see_the_end(page)
    lines = page.locator(f'{tid("kozel-ratings")} li')
    lines.first.wait_for()
    texts: list[str] = lines.all_inner_texts()
    assert len(texts) == seats, texts
    return texts
