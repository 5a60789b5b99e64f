"""Per-viewer truth, checked over whole matches: every message each client received is
compared with the real game (rebuilt from the final record). A player never receives the
opponent's tiles or the bazaar's order before they are public; a spectator only public facts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kva.rules import DRAW, Deal, Match, parse_tile, tile_name
from kva.rules.engine import OPEN_BASE, tiles_of
from kva.rules.record import _action_code  # the record reader's own move parser
from tests.helpers.webhelp import ServerThread, Socket, Visitor, play_out

TILE = re.compile(r"^[0-6]-[0-6]$")


def canon(name: str) -> str:
    return tile_name(parse_tile(name))


@dataclass(frozen=True)
class Truth:
    """The real position after some number of actions."""

    hands: tuple[frozenset[str], frozenset[str]]
    placed: frozenset[str]  # tiles on the board in the current hand
    over: bool
    revealed: frozenset[str]  # tiles shown at the end of the match
    announced: frozenset[str]  # the first hand's highest double: the rules make it public


def positions(record: dict[str, Any]) -> list[Truth]:
    """The real position before the first action and after each one, from the final record."""
    deals = [Deal((tuple(map(parse_tile, h["deal"]["hands"][0])),
                   tuple(map(parse_tile, h["deal"]["hands"][1]))),
                  tuple(map(parse_tile, h["deal"]["bazaar"]))) for h in record["hands"]]
    match = Match(record["target"], record["bazaar"], deals=deals)

    def snap() -> Truth:
        state = match.hand
        placed = frozenset(tile_name((c - OPEN_BASE) >> 1 if c >= OPEN_BASE else c >> 2)
                           for _, c, *_ in state.log if c < DRAW)
        hands = tuple(frozenset(tile_name(t) for t in tiles_of(state.hands[p])) for p in (0, 1))
        revealed = hands[0] | hands[1] if match.over else frozenset()
        # Who opens the first hand is decided by who holds the highest double, which must be
        # the opening tile: announcing it is part of the rules, as at a real table.
        announced = frozenset({tile_name(state.forced_opening)}) if (
            state.forced_opening >= 0 and state.placed == 0) else frozenset()
        return Truth(hands, placed, match.over, revealed, announced)  # type: ignore[arg-type]

    out = [snap()]
    for i, hand in enumerate(record["hands"]):
        for j, move in enumerate(hand["moves"]):
            match.apply(_action_code(move, f"hands[{i}].moves[{j}]", match.hand.placed == 0))
            out.append(snap())
    return out


def tile_strings(obj: Any, skip: tuple[str, ...] = ()) -> list[str]:
    """Every tile name anywhere in ``obj`` (keys in ``skip`` are not entered)."""
    found: list[str] = []
    if isinstance(obj, str):
        if TILE.match(obj):
            found.append(canon(obj))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                found.extend(tile_strings(v, skip))
    elif isinstance(obj, list):
        for v in obj:
            found.extend(tile_strings(v, skip))
    return found


def check_messages(sock: Socket, truths: list[Truth], record: dict[str, Any],
                   first_action_version: int) -> int:
    """Assert every state ``sock`` received holds only what its viewer may know."""
    checked = 0
    for msg in sock.states:
        viewer = msg["you"]
        k = max(0, msg["version"] - (first_action_version - 1))
        truth = truths[k]
        view = msg["view"]
        if msg["status"] == "waiting" or view["hand_counts"] == [0, 0]:
            # Not dealt yet (a table waiting for its second player): no tile at all.
            assert not tile_strings(view), msg["version"]
            continue
        # The current hand: own tiles and the board, nothing else.
        known = set(truth.placed) | set(truth.revealed) | set(truth.announced)
        if viewer is not None:
            known |= truth.hands[viewer]
            assert {canon(t) for t in view["hand"]} == truth.hands[viewer], msg["version"]
        else:
            assert view["hand"] == [] and view["pending"] is None
        leaked = set(tile_strings(view, skip=("previous", "last_board"))) - known
        assert not leaked, f"viewer {viewer} v{msg['version']} was sent {sorted(leaked)}"
        # The last hand's final board: exactly the tiles placed in that hand, public since.
        if view["last_board"] is not None:
            ended = record["hands"][view["hand_number"] - 2]
            placed = {canon(m["play"]) for m in ended["moves"] if "play" in m}
            assert {canon(t) for t in tile_strings(view["last_board"])} == placed
        # Finished hands: exactly the tiles left in hand, which the end of a hand reveals.
        for summary in view["previous"]:
            expected = record["hands"][summary["number"] - 1]
            left = [sorted(canon(t) for t in hand) for hand in summary["left_in_hand"]]
            dealt = [set(map(canon, h)) for h in expected["deal"]["hands"]]
            for p in (0, 1):
                assert set(left[p]) <= dealt[p] | set(map(canon, expected["deal"]["bazaar"]))
        # The event: a drawn tile only for the drawer; placed tiles are public.
        event = msg["event"]
        if event is not None:
            move = event.get("move", event)
            if move.get("kind") == "draw":
                assert ("tile" in move) == (move["p"] == viewer), (viewer, event)
        checked += 1
    return checked


def check_fair(sock: Socket, record: dict[str, Any], pages: list[str]) -> None:
    """kva-fair/1: every state, from the very first, carries the record's commitment; the
    server seed appears in no message (nor in ``pages``, fetched during the match) before the
    state in which the match is over."""
    fair = record["meta"]["fair"]
    seed = fair["server_seed"]
    assert len(seed) == 64 and fair["client_seeds"] == sock.states[-1]["fair"]["client_seeds"]
    assert sock.messages[0]["type"] == "state", sock.messages[0]
    over_at = None
    for i, (text, msg) in enumerate(zip(sock.raw, sock.messages, strict=True)):
        if msg.get("type") == "state":
            assert msg["fair"]["commitment"] == fair["commitment"], i
            if msg["view"]["over"]:
                over_at = i if over_at is None else over_at
                assert msg["fair"]["server_seed"] == seed
                continue
            assert msg["fair"]["server_seed"] is None, i
        if over_at is None:
            assert seed not in text, f"message {i} leaks the server seed: {text[:200]}"
    assert over_at is not None
    for page in pages:
        assert seed not in page, "a page leaks the server seed"


async def in_play_pages(visitor: Visitor, match_id: str) -> list[str]:
    """What a visitor can fetch about a match in progress (the record is refused)."""
    assert (await visitor.http.get(f"/m/{match_id}/record.json")).status_code == 404
    return [(await visitor.http.get(path)).text
            for path in (f"/m/{match_id}", f"/m/{match_id}/replay", "/", "/lobby")]


async def test_friend_match_players_and_spectator(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        match_id = await host.new_match("friend", target=75)
        a = await host.connect(match_id)  # connected from the start: sees the waiting table
        token = await host.share_token(match_id)
        await guest.http.get(f"/t/{token}")
        await watcher.http.get(f"/t/{token}")
        b = await guest.connect(match_id)
        w = await watcher.connect(match_id)
        pages = await in_play_pages(host, match_id) + await in_play_pages(watcher, match_id)
        await play_out([a, b, w], budget=120)
        for s in (a, b, w):
            await s.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        record = (await host.http.get(f"/m/{match_id}/record.json")).json()
        truths = positions(record)
        # versions: 1 created, 2 joined, then one per action
        counts = [check_messages(s, truths, record, first_action_version=3) for s in (a, b, w)]
        for s in (a, b, w):
            check_fair(s, record, pages)
        assert all(c > 10 for c in counts), counts
        # Everyone saw every version from the join on, in order, each exactly once.
        final = a.state["version"]
        assert final == 2 + len(truths) - 1
        for s in (a, b, w):
            versions = [m["version"] for m in s.states if m["event"] is not None]
            assert versions == sorted(versions) and len(versions) == len(set(versions))
        # Draws happened and were hidden from the other two (the game must have had some).
        draws = [m for m in w.states if m["event"] and m["event"].get("kind") == "draw"]
        if draws:
            assert all("tile" not in m["event"] for m in draws)
        for s in (a, b, w):
            await s.close()


async def test_bot_match_player_and_spectator(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me, Visitor(server.base_url) as other:
        match_id = await me.new_match("bot:normal", target=75)
        mine = await me.connect(match_id)
        spectator = await other.connect(match_id)
        pages = await in_play_pages(me, match_id) + await in_play_pages(other, match_id)
        await play_out([mine, spectator], budget=120)
        await spectator.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        record = (await me.http.get(f"/m/{match_id}/record.json")).json()
        truths = positions(record)
        # versions: 1 created, then one per action
        assert check_messages(mine, truths, record, first_action_version=2) > 10
        assert check_messages(spectator, truths, record, first_action_version=2) > 10
        check_fair(mine, record, pages)
        check_fair(spectator, record, pages)
        # The raw text too: the bazaar order never appears as a run of tiles to a player.
        for text in mine.raw:
            assert '"bazaar":[' not in text.replace(" ", "")
        await mine.close()
        await spectator.close()
