"""A finished match analysed decision by decision, from each player's own view.

:func:`decisions` replays a ``georgian-domino/1`` record through :mod:`kva.rules` (checked by
:func:`~kva.rules.read_record` first) and yields every decision with a real choice (more than
one legal action) as the deciding player's :class:`~kva.rules.PlayerView` and the action
played. :func:`analyse` values each with :func:`kva.analysis.engine.evaluate` (or any
evaluator with its signature, e.g. one that runs in a worker process) and marks the losses.

Marks (docs/analysis.md): the loss of a decision is the best action's value minus the played
action's. Far from the target (values in points) an inaccuracy loses 5 points or more, a
mistake 10, a blunder 20; near the target (values in match-win chance) 3, 7 and 15 percentage
points. Accuracy is the share of decisions without a mark.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kva.analysis.engine import ANALYSIS_PLAYOUTS, Evaluation, evaluate
from kva.bots.value import match_win_chance
from kva.rules import (
    DRAW,
    Match,
    PlayerView,
    action_to_json,
    describe_action,
    player_view,
    read_record,
    view_to_json,
)
from kva.rules.engine import END_INDEX, OPEN_BASE, board_view

#: Format version of a stored analysis (bump when values or marks change meaning).
VERSION = 2
#: Loss thresholds per unit: (inaccuracy, mistake, blunder).
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "points": (5.0, 10.0, 20.0),
    "win%": (3.0, 7.0, 15.0),
}
MARKS = ("inaccuracy", "mistake", "blunder")

Evaluator = Callable[[PlayerView, int, int], Evaluation]


@dataclass(frozen=True)
class Decision:
    """One real choice: hand ``hand`` (1-based), the ``move``-th action of that hand (0-based,
    as in the record's ``moves``), by ``player``, who saw ``view`` and played ``played``."""

    hand: int
    move: int
    player: int
    view: PlayerView
    played: int

    @property
    def seed(self) -> int:
        """The search seed: from the decision's place in the match only (never hidden tiles)."""
        return 7_919 * self.hand + self.move


def decisions(doc: Any, players: Sequence[int] = (0, 1)) -> Iterator[Decision]:
    """Every decision with more than one legal action by one of ``players``."""
    final = read_record(doc)
    deals = [h.deal for h in final.hands]
    match = Match(final.target, final.bazaar, deals=deals)
    for h, played in enumerate(final.hands):
        for i, entry in enumerate(played.state.log):
            p, code = entry[0], entry[1]
            if match.over or match.hand_number != h + 1:
                raise ValueError("the record's replay went astray")  # pragma: no cover
            if p in players and len(match.legal_codes()) > 1:
                yield Decision(h + 1, i, p, player_view(match, p), code)
            match.apply(code, player=p)


def mark_of(loss: float, unit: str) -> str | None:
    """``inaccuracy``, ``mistake``, ``blunder`` or None for a loss in ``unit``."""
    mark = None
    for name, threshold in zip(MARKS, THRESHOLDS[unit], strict=True):
        if loss >= threshold:
            mark = name
    return mark


def _best_board(decision: Decision, code: int) -> dict[str, Any] | None:
    """The board after ``code`` (a placement from the player's own hand: public once made)."""
    if code >= DRAW:
        return None
    # Rebuild the hand from the view alone: the board and the player's own tile are all a
    # placement needs (kva.rules.determinize with the hidden tiles left out).
    from kva.rules.engine import determinize

    view = decision.view
    unseen = view.unseen()
    hidden = [t for t in range(28) if unseen >> t & 1]
    opp = 0
    for t in hidden[: view.opponent_count]:
        opp |= 1 << t
    state = determinize(view, opp, hidden[view.opponent_count:])
    # The board's lines come from the placements so far, which the view shows publicly.
    state.log = []
    for m in view.moves:
        if m.tile is None or m.first is None or m.kind not in ("open", "play"):
            continue
        placed = OPEN_BASE + 2 * m.tile if m.end is None else (m.tile << 2) | END_INDEX[m.end]
        state.log.append((m.player, placed, m.first, m.points, m.ends_sum or 0))
    state.apply_unchecked(code)
    board = view_to_json(dataclasses.replace(view, board=board_view(state)))["board"]
    return dict(board)


def win_chance(view: PlayerView, value: float, unit: str) -> int:
    """The player's chance of winning the match after a move valued ``value``, in whole
    percent: the value itself near the target; far from it, the expected point difference of
    the hand added to the player's (or the opponent's) score, read from the match-win table of
    :func:`kva.bots.value.match_win_chance`. For the match's win-chance graph."""
    if unit == "win%":
        return max(0, min(100, round(value)))
    me = view.player
    assert me is not None
    mine = view.scores[me] + view.hand_points[me] + max(0, round(value))
    theirs = view.scores[1 - me] + view.hand_points[1 - me] + max(0, round(-value))
    return round(100 * match_win_chance(mine, theirs, view.target))


def decision_json(decision: Decision, ev: Evaluation) -> dict[str, Any]:
    """One analysed decision as stored and served."""
    played_i = ev.codes.index(decision.played)
    best_i = ev.best()
    if ev.values[played_i] >= ev.values[best_i]:
        best_i = played_i  # the played action shares the best value
    loss = round(max(0.0, ev.values[best_i] - ev.values[played_i]), 2)
    mark = mark_of(loss, ev.unit)
    out: dict[str, Any] = {
        "hand": decision.hand,
        "move": decision.move,
        "player": decision.player,
        "unit": ev.unit,
        "exact": ev.exact,
        "played": action_to_json(decision.played),
        "played_text": describe_action(decision.played),
        "best": action_to_json(ev.codes[best_i]),
        "best_text": describe_action(ev.codes[best_i]),
        "values": [{"action": action_to_json(c), "text": describe_action(c), "value": v}
                   for c, v in zip(ev.codes, ev.values, strict=True)],
        "loss": loss,
        "mark": mark,
        # The first player's chance of winning the match after this move (the graph's line).
        "chance": _for_first_player(win_chance(decision.view, ev.values[played_i], ev.unit),
                                    decision.player),
    }
    if mark is not None:
        out["best_board"] = _best_board(decision, ev.codes[best_i])
    return out


def _for_first_player(chance: int, player: int) -> int:
    return chance if player == 0 else 100 - chance


def summarize(rows: list[dict[str, Any]], players: Sequence[int]) -> list[dict[str, Any]]:
    """Per player: decisions, accuracy %, points lost per decision (points-valued decisions),
    win chance lost per decision (near the target), and the count of each mark."""
    out = []
    for p in players:
        mine = [r for r in rows if r["player"] == p]
        pts = [r["loss"] for r in mine if r["unit"] == "points"]
        win = [r["loss"] for r in mine if r["unit"] == "win%"]
        clean = sum(1 for r in mine if r["mark"] is None)
        out.append({
            "player": p,
            "decisions": len(mine),
            "accuracy": round(100.0 * clean / len(mine), 1) if mine else 100.0,
            "points_lost_per_decision": round(sum(pts) / len(pts), 2) if pts else 0.0,
            "win_lost_per_decision": round(sum(win) / len(win), 2) if win else 0.0,
            **{name: sum(1 for r in mine if r["mark"] == name) for name in MARKS},
        })
    return out


def analyse(
    doc: Any,
    players: Sequence[int] = (0, 1),
    playouts: int = ANALYSIS_PLAYOUTS,
    evaluator: Evaluator = evaluate,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The whole analysis of a finished match's record (see the module docstring)."""
    rows = []
    for n, decision in enumerate(decisions(doc, players)):
        ev = evaluator(decision.view, decision.seed, playouts)
        rows.append(decision_json(decision, ev))
        if progress is not None:
            progress(n + 1)
    return finish(doc, rows, players, playouts)


def finish(doc: Any, rows: list[dict[str, Any]], players: Sequence[int],
           playouts: int) -> dict[str, Any]:
    return {
        "version": VERSION,
        "playouts": playouts,
        "target": doc.get("target") if isinstance(doc, dict) else None,
        "thresholds": {unit: list(limits) for unit, limits in THRESHOLDS.items()},
        "decisions": rows,
        "summary": summarize(rows, players),
    }
