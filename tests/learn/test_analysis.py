"""Post-game analysis: blind (reshuffling the hidden tiles consistently with the player's view
changes nothing), reproducible (the same match twice gives the same marks), marked by the
documented thresholds, and printed by ``kva analyse``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from kva.analysis.engine import evaluate
from kva.analysis.match import THRESHOLDS, analyse, decisions, mark_of, win_chance
from kva.bots import make_bot
from kva.cli import main
from kva.rules import Deal, Match, player_view, write_record

PLAYOUTS = 300


def _record(seed: int, target: int = 75) -> dict[str, Any]:
    match = Match(target=target, rng=random.Random(seed))
    bots = [make_bot("normal"), make_bot("easy")]
    rng = random.Random(seed + 1)
    while not match.over:
        p = match.turn
        assert p is not None
        match.apply(bots[p].choose(player_view(match, p), rng), player=p)
    return write_record(match, players=[{"name": "bot:normal"}, {"name": "bot:easy"}])


def _replay_to(deals: list[Deal], target: int, logs: list[list[int]], hand: int,
               move: int) -> Match:
    """A match dealt ``deals`` with the recorded actions replayed (checked) up to the
    ``move``-th action of hand ``hand``."""
    match = Match(target, deals=deals)
    for h in range(hand):
        codes = logs[h] if h < hand - 1 else logs[h][:move]
        for code in codes:
            match.apply(code)
    return match


def _reshuffled(final: Match, hand: int, move: int, viewer: int,
                rng: random.Random) -> Match | None:
    """The same match with the hidden tiles at that decision (the opponent's hand and the
    bazaar not yet drawn) dealt differently, if the history stays legal and the viewer's view
    stays the same; None when this reshuffle breaks either."""
    deals = [h.deal for h in final.hands]
    logs = [[e[1] for e in h.state.log] for h in final.hands]
    real = _replay_to(deals, final.target, logs, hand, move)
    state = real.hand
    opp = 1 - viewer
    deal = deals[hand - 1]
    held = [t for t in deal.hands[opp] if state.hands[opp] >> t & 1]
    slots = [i for i, t in enumerate(deal.hands[opp]) if t in held]
    rest = list(deal.bazaar[state.draw_pos:])
    pool = held + rest
    rng.shuffle(pool)
    if set(pool[: len(held)]) == set(held):  # the opponent's hand must change
        return None
    opp_hand = list(deal.hands[opp])
    for i, t in zip(slots, pool[: len(held)], strict=True):
        opp_hand[i] = t
    bazaar = list(deal.bazaar[: state.draw_pos]) + pool[len(held):]
    hands = [deal.hands[0], deal.hands[1]]
    hands[opp] = tuple(opp_hand)
    alt_deals = list(deals)
    alt_deals[hand - 1] = Deal((hands[0], hands[1]), tuple(bazaar))
    try:
        alt = _replay_to(alt_deals, final.target, logs, hand, move)
    except (ValueError, IndexError):
        return None
    if alt.hand_number != hand or alt.over or player_view(alt, viewer) != player_view(real,
                                                                                        viewer):
        return None
    return alt


def test_the_analysis_is_blind() -> None:
    """Reshuffling the opponent's hand and the bazaar consistently with the deciding player's
    view leaves that decision's analysis unchanged."""
    doc = _record(3)
    from kva.rules import read_record

    final = read_record(doc)
    found = [d for d in decisions(doc) if d.view.opponent_count >= 2][:8]
    rng = random.Random(9)
    checked = 0
    for d in found:
        for _ in range(200):
            alt = _reshuffled(final, d.hand, d.move, d.player, rng)
            if alt is None:
                continue
            real = _replay_to([h.deal for h in final.hands], final.target,
                              [[e[1] for e in h.state.log] for h in final.hands], d.hand, d.move)
            assert alt.hand.hands[1 - d.player] != real.hand.hands[1 - d.player]
            view = player_view(alt, d.player)
            assert evaluate(view, d.seed, PLAYOUTS) == evaluate(d.view, d.seed, PLAYOUTS)
            checked += 1
            break
    assert checked >= 4


def test_same_match_twice_same_marks_and_thresholds() -> None:
    doc = _record(4)
    first = analyse(doc, playouts=PLAYOUTS)
    second = analyse(doc, playouts=PLAYOUTS)
    assert first == second
    rows = first["decisions"]
    assert rows and all(len(r["values"]) > 1 for r in rows)
    for r in rows:
        best = max(v["value"] for v in r["values"])
        played = next(v["value"] for v in r["values"] if v["action"] == r["played"])
        assert r["loss"] == pytest.approx(max(0.0, best - played), abs=0.011)
        assert r["mark"] == mark_of(r["loss"], r["unit"])
        if r["mark"]:
            assert r["best"] != r["played"]
    for s in first["summary"]:
        mine = [r for r in rows if r["player"] == s["player"]]
        assert s["decisions"] == len(mine)
        clean = sum(1 for r in mine if r["mark"] is None)
        assert s["accuracy"] == round(100 * clean / len(mine), 1)
    assert mark_of(THRESHOLDS["points"][0] - 0.01, "points") is None
    assert mark_of(THRESHOLDS["points"][1], "points") == "mistake"
    assert mark_of(THRESHOLDS["win%"][2], "win%") == "blunder"


def test_kva_analyse_prints_the_analysis(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    doc = _record(5)
    path = tmp_path / "match.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["analyse", str(path), "--player", "1", "--playouts", str(PLAYOUTS)]) == 0
    out = capsys.readouterr().out
    assert "P1 bot:easy:" in out and "accuracy" in out and "P0 " not in out
    expected = analyse(doc, (1,), playouts=PLAYOUTS)
    assert out.count("\nhand ") + out.startswith("hand ") == len(expected["decisions"])


def test_a_marked_decision_carries_the_board_after_the_best_move() -> None:
    rows: list[dict[str, Any]] = []
    for seed in range(3, 9):
        rows += [r for r in analyse(_record(seed, 175), (1,), playouts=PLAYOUTS)["decisions"]
                 if r["mark"] and r["best"]["type"] == "play"]
        if len(rows) >= 3:
            break
    assert rows
    for r in rows:
        board = r["best_board"]
        placed = ([board["opening"]["tile"]] if board["opening"] else []) + [
            t["tile"] for line in board["lines"].values() for t in line]
        assert r["best"]["tile"] in placed
        assert sum(len(line) for line in board["lines"].values()) + 1 == len(placed)


def _view_at(scores: tuple[int, int], player: int = 0, target: int = 175) -> Any:
    from dataclasses import replace

    view = player_view(Match(target=target, rng=random.Random(4)), player)
    return replace(view, player=player, scores=scores, hand_points=(0, 0))


def test_near_the_target_the_win_chance_is_the_value_in_whole_percent() -> None:
    view = _view_at((160, 150))
    assert win_chance(view, 63.4, "win%") == 63
    assert win_chance(view, 101.0, "win%") == 100 and win_chance(view, -2.0, "win%") == 0


def test_far_from_the_target_points_ahead_raise_the_win_chance() -> None:
    view = _view_at((20, 20))
    level = win_chance(view, 0.0, "points")
    assert level == 50
    assert win_chance(view, 15.0, "points") > level > win_chance(view, -15.0, "points")


def test_the_graph_reads_every_decision_for_the_first_player() -> None:
    rows = analyse(_record(2), playouts=PLAYOUTS)["decisions"]
    assert rows and all(0 <= r["chance"] <= 100 for r in rows)
    # a decision of the second player is told as the first player's chance
    second = next(r for r in rows if r["player"] == 1)
    chosen = next(v for v in second["values"] if v["action"] == second["played"])
    view_chance = (max(0, min(100, round(chosen["value"]))) if second["unit"] == "win%"
                   else None)
    if view_chance is not None:
        assert second["chance"] == 100 - view_chance
