"""The interactive lesson (``/learn``): short steps, each a real position and one thing to do.

Every step is a :class:`~kva.learn.positions.Position` (a constructed deal and its history,
replayed through the engine) where the learner, player 0, is on turn. The learner's action is
checked by the engine: an illegal one is explained from the rules (why the tile does not fit,
why one may not draw or pass), a legal one that misses the step's point is explained by the
step, and the right one shows what happened. Texts are gettext message ids (``N_``), translated
by the caller in the page's language; Georgian terms follow the seeds (ქვა, სტავკა, ბაზარი,
დომინო, რიბა).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kva.learn.positions import ME, Position, parse_action
from kva.rules import DRAW, PASS, IllegalAction, parse_tile
from kva.rules.engine import (
    IS_DOUBLE,
    OPEN_BASE,
    TILE_BIT,
    TILE_HIGH,
    TILE_LOW,
    TILE_NAME,
    TILE_PIPS,
    HandState,
    code_parts,
)


def N_(message: str) -> str:
    """Mark a message for extraction; translated where it is shown."""
    return message


Goal = Callable[[HandState, int, HandState], bool]


@dataclass(frozen=True)
class Step:
    """One step: a position, what to do, how to tell it was done, and what to say."""

    slug: str
    title: str
    instruction: str
    position: Position
    goal: Goal
    success: str
    #: Said for a legal action that misses the goal.
    missed: str = ""
    facts: dict[str, Any] = field(default_factory=dict)


def _any(before: HandState, code: int, after: HandState) -> bool:
    return True


def _scores(before: HandState, code: int, after: HandState) -> bool:
    return after.points[ME] > before.points[ME]


STEPS: tuple[Step, ...] = (
    Step(
        "match", N_("Matching numbers"),
        N_("Your opponent opened with 3-4: one end of the board asks 3, the other asks 4. "
           "Choose a tile (ქვა, kva) with a 3 or a 4 and place it on the end that asks for "
           "its number."),
        Position(
            (("0-3", "2-3", "1-4", "2-6", "0-5", "0-0", "1-1"),
             ("3-6", "3-4", "3-3", "4-5", "5-5", "0-4", "0-2")),
            ("4-4", "0-6", "1-5", "3-5", "1-3", "5-6", "2-4", "2-5", "1-2", "0-1", "2-2", "4-6",
             "1-6", "6-6"), 1, ("3-4",)),
        _any,
        N_("Right. The matching half touches the end, and the tile's other half is the number "
           "that end asks for next."),
    ),
    Step(
        "opener", N_("The opening tile"),
        N_("You won the last hand, so you open this one, with any tile. Only one opening "
           "scores: 5-5, worth 10 points. 6-4 and 2-3 add up to 10 and 5, but an opening tile "
           "scores nothing unless it is 5-5. Open with the tile that scores."),
        Position(
            (("5-5", "4-6", "2-3", "0-1", "1-2", "3-3", "0-6"),
             ("0-0", "0-2", "1-4", "2-5", "3-6", "4-4", "5-6")),
            ("1-1", "0-3", "0-4", "0-5", "1-3", "1-5", "1-6", "2-2", "2-4", "2-6", "3-4", "3-5",
             "4-5", "6-6"), 0),
        lambda before, code, after: code >= OPEN_BASE and TILE_NAME[code_parts(code)[1] or 0]
        == "5-5",
        N_("+10: the 5-5 opening is the only opening that scores."),
        N_("%(tile)s opens the hand but scores nothing: an opening tile scores only when it is "
           "5-5 (10 points)."),
    ),
    Step(
        "stavka", N_("The stavka and its four sides"),
        N_("The first double of a hand is the stavka (სტავკა). This hand opened with 6-6, and "
           "your opponent has covered its right side. Cover its left side too: once both "
           "main sides are covered, the stavka closes and opens two more sides, up and down."),
        Position(
            (("0-3", "4-6", "6-6", "1-4", "0-6", "2-2", "3-3"),
             ("0-1", "1-5", "0-5", "3-6", "5-6", "4-4", "1-2")),
            ("2-5", "2-6", "1-6", "2-4", "5-5", "3-4", "4-5", "1-3", "0-4", "0-0", "2-3", "3-5",
             "0-2", "1-1"), 0, ("6-6", "3-6 R")),
        lambda before, code, after: code < DRAW and code & 3 == 0,
        N_("The stavka is closed. From now on it counts nothing in the sum, and its up and "
           "down sides are open, both asking 6: a hand can have four open ends."),
        N_("A legal move, but the stavka's left side is still free: it stays open, and the up "
           "and down sides stay shut."),
    ),
    Step(
        "sides", N_("Scoring on the stavka's sides"),
        N_("The stavka 3-3 is closed: it counts nothing, and its up and down sides ask 3. An "
           "empty side counts 0 until a tile lies on it. After every tile, add up the open "
           "ends: if the sum is 5, 10, 15 … 35, whoever placed the tile scores it. Find the "
           "move that scores."),
        Position(
            (("2-3", "3-4", "4-5", "3-5", "0-0", "0-1", "1-5"),
             ("0-2", "3-6", "3-3", "1-2", "1-6", "2-4", "5-6")),
            ("1-1", "0-3", "5-5", "0-5", "2-2", "0-6", "2-5", "1-3", "4-6", "4-4", "6-6", "0-4",
             "1-4", "2-6"), 0, ("2-3", "3-3 R", "3-4 R", "1-2 L")),
        _scores,
        N_("+%(points)s: the open ends add up to %(sum)s, a multiple of 5."),
        N_("A legal move, but the open ends then add up to %(sum)s, which is not a multiple "
           "of 5: no points."),
    ),
    Step(
        "doubles", N_("The open-ends sum: doubles count twice"),
        N_("A double at an end counts both its halves: the 4-4 on the right counts 8, so the "
           "open ends add up to 1 + 8 = 9 now. Which of your tiles makes the sum a multiple "
           "of 5?"),
        Position(
            (("1-3", "1-4", "5-5", "4-5", "1-6", "1-1", "0-4"),
             ("0-2", "3-6", "4-4", "3-5", "1-5", "0-3", "2-5")),
            ("2-6", "3-4", "5-6", "0-5", "1-2", "4-6", "2-3", "0-6", "0-0", "6-6", "2-4", "2-2",
             "0-1", "3-3"), 1, ("3-5", "4-5 R", "3-6 L", "1-6 L", "4-4 R")),
        _scores,
        N_("+%(points)s: the 1-1 at the end counts 2, and 2 + 8 = 10."),
        N_("A legal move, but the open ends then add up to %(sum)s, which is not a multiple "
           "of 5: no points."),
    ),
    Step(
        "draw", N_("Drawing from the bazaar"),
        N_("Your opponent opened with 1-1 and you have no 1: nothing fits. Draw from the "
           "bazaar (ბაზარი), one tile at a time, until a tile fits."),
        Position(
            (("0-3", "3-5", "2-6", "2-4", "0-0", "4-6", "0-4"),
             ("1-1", "2-3", "2-5", "3-4", "4-5", "1-6", "3-3")),
            ("1-4", "2-2", "4-4", "5-6", "0-6", "1-2", "1-3", "3-6", "0-5", "1-5", "5-5", "0-2",
             "0-1", "6-6"), 1, ("1-1",)),
        lambda before, code, after: code == DRAW,
        N_("You drew %(drawn)s. It fits, so it must be placed at once; a tile that did not fit "
           "would stay in your hand and you would draw again."),
    ),
    Step(
        "pass", N_("The two tiles never drawn, and passing"),
        N_("Nothing in your hand fits. The bazaar still holds two tiles, under a lock: the "
           "last two tiles of the bazaar are never drawn by anyone. With nothing to play and "
           "nothing to draw, your turn passes."),
        Position(
            (("5-6", "0-4", "1-6", "3-5", "1-3", "0-0", "5-5"),
             ("0-6", "4-5", "1-1", "6-6", "2-4", "4-6", "1-2")),
            ("2-5", "4-4", "3-3", "2-3", "2-2", "2-6", "1-4", "1-5", "3-4", "0-2", "0-5", "0-3",
             "0-1", "3-6"), 0,
            ("0-0", "0-6 R", "0-4 L", "4-5 L", "5-6 R", "draw", "2-5 R", "3-5 L", "1-2 R",
             "1-3 L", "1-1 L", "1-6 L", "4-6 L", "draw", "4-4 L", "2-4 L", "draw", "draw",
             "2-3 L", "draw", "draw", "draw", "1-4 R", "3-3 L", "draw", "draw", "3-4 L", "draw",
             "0-2 U", "2-2 U", "draw", "0-5 D", "1-5 D", "draw")),
        lambda before, code, after: code == PASS,
        N_("You passed. If both players pass one after the other, the hand ends and is "
           "counted like a blocked board."),
    ),
    Step(
        "domino", N_("Going out: domino"),
        N_("You have one tile left. Place it and you win the hand by domino (დომინო): you "
           "score the pips left in your opponent's hand, rounded up to a multiple of 5."),
        Position(
            (("0-6", "2-3", "1-5", "6-6", "2-5", "3-3", "2-6"),
             ("1-4", "4-4", "3-4", "3-6", "0-5", "2-2", "1-2")),
            ("5-5", "0-1", "5-6", "4-6", "0-0", "3-5", "0-2", "0-4", "2-4", "1-6", "4-5", "0-3",
             "1-3", "1-1"), 1,
            ("1-4", "1-5 L", "4-4 R", "2-5 L", "3-4 R", "2-3 R", "1-2 L", "2-6 R", "3-6 R",
             "3-3 R", "draw", "draw", "0-1 L", "0-6 L", "draw", "5-6 L", "draw", "4-6 D",
             "5-5 L")),
        _any,
        N_("Domino! Your opponent was left with %(pips)s pips: rounded up to a multiple of 5, "
           "you score %(end_points)s."),
    ),
    Step(
        "zero", N_("The lone 0-0"),
        N_("Your opponent's last tile is 0-0, which has no pips at all. Go out anyway: a lone "
           "0-0 left in the hand is worth 10."),
        Position(
            (("0-5", "3-5", "4-6", "5-6", "2-6", "0-1", "1-1"),
             ("4-5", "0-3", "0-0", "2-5", "1-5", "0-4", "1-4")),
            ("2-2", "3-3", "5-5", "0-6", "3-4", "4-4", "1-6", "0-2", "3-6", "2-4", "1-2", "1-3",
             "6-6", "2-3"), 0,
            ("0-1", "0-4 L", "4-6 L", "1-4 R", "2-6 L", "2-5 L", "5-6 L", "4-5 R", "0-5 R",
             "0-3 R", "3-5 R", "1-5 R")),
        _any,
        N_("Domino! The lone 0-0 scores %(end_points)s."),
    ),
    Step(
        "fish", N_("The blocked board"),
        N_("Nothing can be drawn any more. One of your moves blocks the board: no tile left in "
           "play would fit any open end. The board is blocked (in Georgian რიბა, \"fish\"): "
           "the hand ends, the smaller "
           "pip total wins and scores the other's, rounded up. You hold fewer pips than your "
           "opponent. Find the move that blocks the board."),
        Position(
            (("2-4", "2-5", "2-3", "0-5", "0-1", "0-4", "3-3"),
             ("1-4", "4-5", "6-6", "0-2", "0-3", "0-6", "3-5")),
            ("1-3", "1-1", "3-4", "0-0", "3-6", "5-6", "5-5", "4-6", "1-5", "2-2", "4-4", "2-6",
             "1-6", "1-2"), 1,
            ("3-5", "2-5 R", "0-3 L", "0-5 L", "0-2 R", "0-4 R", "4-5 R", "draw", "draw",
             "draw", "draw", "draw", "draw", "5-6 R", "0-6 R", "0-0 R", "draw", "5-5 L",
             "0-1 R", "1-4 R", "3-4 R", "draw", "draw", "1-5 L", "1-1 L", "draw", "draw",
             "draw", "pass")),
        lambda before, code, after: after.end == "fish" and after.winner == ME,
        N_("Blocked! You hold %(mine)s pips, your opponent %(pips)s: you score %(end_points)s."),
        N_("A legal move, but the board stays open: a tile still in play fits an end."),
    ),
    Step(
        "target", N_("The match target"),
        N_("This match is played to %(target)s points and you have %(score)s. Make the move "
           "that scores 10 and reach the target."),
        Position(
            (("0-3", "2-3", "1-4", "2-6", "0-5", "0-0", "1-1"),
             ("3-6", "3-4", "3-3", "4-5", "5-5", "0-4", "0-2")),
            ("4-4", "0-6", "1-5", "3-5", "1-3", "5-6", "2-4", "2-5", "1-2", "0-1", "2-2", "4-6",
             "1-6", "6-6"), 1, ("3-4", "0-3 L", "4-5 R"), scores=(165, 150)),
        lambda before, code, after: after.points[ME] - before.points[ME] == 10,
        N_("You have %(total)s points, but the match goes on: a match ends only at the end of "
           "a hand. Then, once someone has reached the target, the higher score wins."),
        N_("A legal move, but it scores %(points)s. Look for the move that makes 10."),
    ),
)

SLUGS: tuple[str, ...] = tuple(s.slug for s in STEPS)


@dataclass(frozen=True)
class Verdict:
    """The engine's answer to the learner's action: ``ok``, and the message id with its
    arguments; ``after`` is the hand after a legal action."""

    ok: bool
    message: str
    args: dict[str, Any]
    after: HandState | None
    legal: bool


def _pips(mask: int) -> int:
    return sum(TILE_PIPS[t] for t in range(28) if mask & TILE_BIT[t])


def _facts(step: Step, before: HandState, code: int, after: HandState) -> dict[str, Any]:
    _kind, tile, _end = code_parts(code)
    drawn = after.log[-1][2] if code == DRAW else -1
    me_points = after.points[ME] - before.points[ME]
    score = step.position.scores[ME]
    return {
        "tile": TILE_NAME[tile] if tile is not None else "",
        "points": me_points,
        "sum": after.ends_sum(),
        "drawn": TILE_NAME[drawn] if drawn >= 0 else "",
        "pips": _pips(after.hands[1 - ME]),
        "mine": _pips(after.hands[ME]),
        "end_points": after.end_points,
        "total": score + after.points[ME],
        "target": step.position.target,
        "score": score,
    }


def instruction_args(step: Step) -> dict[str, Any]:
    return {"target": step.position.target, "score": step.position.scores[ME]}


def _message_code(message: Any, state: HandState) -> int:
    """The code the client's action names, legal or not (IllegalAction for nonsense)."""
    if not isinstance(message, dict):
        raise IllegalAction("not an action")
    kind = message.get("type")
    if kind == "draw":
        return DRAW
    if kind == "pass":
        return PASS
    tile_text = message.get("tile")
    if kind != "play" or not isinstance(tile_text, str):
        raise IllegalAction("not an action")
    tile = parse_tile(tile_text)
    if state.placed == 0:
        return OPEN_BASE + 2 * tile
    end = message.get("end")
    if end not in ("L", "R", "U", "D"):
        fits = [c for c in state.legal_codes() if c < OPEN_BASE and c >> 2 == tile]
        end_index = (fits[0] & 3) if fits else 0
    else:
        end_index = "LRUD".index(end)
    return (tile << 2) | end_index


def why_illegal(state: HandState, code: int) -> tuple[str, dict[str, Any]]:
    """Why ``code`` is not legal, as a message id and its arguments."""
    me = state.turn
    fits = state.hands[me] & state.ends_mask
    if code == DRAW:
        if fits:
            return N_("You hold a tile that fits, so you must play it: you draw only when "
                      "nothing fits."), {}
        return N_("The last two tiles of the bazaar are never drawn: nothing is left to draw, "
                  "so your turn passes."), {}
    if code == PASS:
        if fits:
            return N_("You hold a tile that fits: you must play it."), {}
        return N_("Nothing fits, but the bazaar still has tiles to draw: draw until one "
                  "fits."), {}
    tile = code_parts(code)[1]
    assert tile is not None
    name = TILE_NAME[tile]
    if not state.hands[me] & TILE_BIT[tile]:
        return N_("%(tile)s is not in your hand."), {"tile": name}
    a, b = TILE_LOW[tile], TILE_HIGH[tile]
    if not TILE_BIT[tile] & state.ends_mask:
        if IS_DOUBLE[tile]:
            return N_("%(tile)s does not fit: no open end asks %(a)s."), {"tile": name, "a": a}
        return (N_("%(tile)s does not fit: no open end asks %(a)s or %(b)s."),
                {"tile": name, "a": a, "b": b})
    n = state.ask[code & 3]
    return (N_("That end asks %(n)s, and %(tile)s has no %(n)s: place it on an end that asks "
               "one of its numbers."), {"tile": name, "n": n})


def check(step: Step, message: Any) -> Verdict:
    """The verdict on the learner's action ``message`` (the game's JSON action form)."""
    before = step.position.state()
    try:
        code = _message_code(message, before)
    except (IllegalAction, ValueError):
        return Verdict(False, N_("That is not a move."), {}, None, False)
    if code not in before.legal_codes():
        text, args = why_illegal(before, code)
        return Verdict(False, text, args, None, False)
    after = before.copy()
    after.apply(code)
    facts = _facts(step, before, code, after)
    if step.goal(before, code, after):
        return Verdict(True, step.success, facts, after, True)
    return Verdict(False, step.missed, facts, after, True)


def step_at(number: int) -> Step:
    """Step ``number`` (1-based); IndexError past the end."""
    if not 1 <= number <= len(STEPS):
        raise IndexError(number)
    return STEPS[number - 1]


__all__ = ["SLUGS", "STEPS", "Step", "Verdict", "check", "parse_action", "step_at",
           "why_illegal"]
