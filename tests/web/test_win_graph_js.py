"""The data of the replay's win-chance graph (kva/web/static/wingraph.js) under Node: drawn
from one player's side, their own decisions only (no zig-zag between two estimates), and on to
the match's end."""

from __future__ import annotations

import json
from typing import Any

from tests.web.node_modules_run import evaluate, needs_node

pytestmark = needs_node

# Each decision's `chance` is the first player's, as its mover estimated it.
DECISIONS: list[dict[str, Any]] = [
    {"hand": 1, "move": 0, "player": 0, "chance": 60, "mark": None},
    {"hand": 1, "move": 1, "player": 1, "chance": 30, "mark": "mistake"},
    {"hand": 1, "move": 2, "player": 0, "chance": 65, "mark": None},
    {"hand": 2, "move": 0, "player": 1, "chance": 20, "mark": None},
    {"hand": 2, "move": 1, "player": 0, "chance": 70, "mark": "blunder"},
]


def _points(side: int, winner: int | None) -> list[dict[str, Any]]:
    call = f"m.graphPoints({json.dumps(DECISIONS)}, {side}, {json.dumps(winner)}, 2)"
    points: list[dict[str, Any]] = evaluate("wingraph.js", [call])[0]
    return points


def test_the_first_players_graph_holds_only_their_own_estimates() -> None:
    chances = [p["chance"] for p in _points(0, 0) if not p["end"]]
    assert chances == [60, 65, 70]


def test_the_second_players_graph_is_their_own_chance() -> None:
    chances = [p["chance"] for p in _points(1, 0) if not p["end"]]
    assert chances == [70, 80]  # 100 - 30, 100 - 20: their chance, not the first player's


def test_the_graph_runs_to_the_end_of_the_match() -> None:
    assert _points(0, 0)[-1] == {"hand": 2, "move": None, "mark": None, "end": True,
                                 "chance": 100}
    assert _points(1, 0)[-1]["chance"] == 0


def test_a_match_without_a_winner_ends_at_the_last_decision() -> None:
    assert not _points(0, None)[-1]["end"]


def test_a_spectator_sees_the_first_players_side() -> None:
    assert evaluate("wingraph.js", ["m.graphSide(null)", "m.graphSide(1)", "m.graphSide(0)"]) == [
        0, 1, 0]
