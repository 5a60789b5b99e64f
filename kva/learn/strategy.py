"""The strategy guide's worked positions (``/strategy``): real positions replayed through the
engine, each with the move the guide recommends and what that move scores or does.

tests/learn/test_strategy.py checks every one: the move is legal and does what the text says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kva.learn.counting import unseen_by_number
from kva.learn.positions import Position, parse_action
from kva.rules import parse_tile, view_to_json
from kva.rules.engine import TILE_NAME, HandState


@dataclass(frozen=True)
class Example:
    """A worked position: ``move`` (None: a position to read, not to play) scores ``points``;
    ``end`` is how the hand ends after it (None: it goes on), with ``end_points``."""

    slug: str
    position: Position
    move: str | None = None
    points: int = 0
    end: str | None = None
    end_points: int = 0

    def after(self) -> HandState:
        state = self.position.state()
        if self.move is not None:
            state.apply(parse_action(self.move, state))
        return state

    def to_json(self) -> dict[str, Any]:
        before = self.position.view()
        out: dict[str, Any] = {
            "slug": self.slug,
            "before": view_to_json(before),
            "unseen": unseen_by_number(before),
            "move": self.move,
        }
        if self.move is not None:
            after = self.after()
            out["after"] = view_to_json(self.position.view(after))
            out["tile"] = TILE_NAME[parse_tile(self.move.split(" ")[0])]
            out["points"] = self.points
        return out


_SEED_183 = Position(
    (("2-3", "3-4", "2-4", "0-5", "0-4", "3-6", "1-6"),
     ("2-6", "1-2", "6-6", "1-4", "5-5", "2-2", "4-4")),
    ("0-6", "3-3", "0-1", "4-6", "3-5", "2-5", "5-6", "1-1", "1-3", "1-5", "0-0", "4-5", "0-2",
     "0-3"), 1,
    ("4-4", "2-4 L", "2-2 L", "3-4 R", "1-4 U", "0-4 D", "2-6 L", "1-6 U", "6-6 U"))

EXAMPLES: tuple[Example, ...] = (
    # Counting: of the seven 6s, four are in view (2-6, 1-6, 6-6 on the board, 3-6 in hand).
    Example("count", _SEED_183),
    # Blocking: before the opponent drew, the ends asked 0, 2 and 5; 2-6 on U keeps every end
    # on those numbers.
    Example("block", Position(
        (("0-3", "2-3", "1-4", "2-6", "0-5", "0-0", "1-1"),
         ("3-6", "3-4", "3-3", "4-5", "5-5", "0-4", "0-2")),
        ("4-4", "0-6", "1-5", "3-5", "1-3", "5-6", "2-4", "2-5", "1-2", "0-1", "2-2", "4-6",
         "1-6", "6-6"), 1,
        ("3-4", "0-3 L", "4-5 R", "0-5 L", "5-5 R", "draw", "draw", "draw", "1-5 R", "draw",
         "3-5 L", "1-1 R", "3-6 L", "1-4 R", "0-4 R", "0-6 L", "0-2 R", "0-0 L", "draw", "draw",
         "5-6 U")), "2-6 U", 0),
    # Doubles: 1-1 at an end counts 2; with the 4-4 (8) the ends make 10.
    Example("doubles", Position(
        (("1-3", "1-4", "5-5", "4-5", "1-6", "1-1", "0-4"),
         ("0-2", "3-6", "4-4", "3-5", "1-5", "0-3", "2-5")),
        ("2-6", "3-4", "5-6", "0-5", "1-2", "4-6", "2-3", "0-6", "0-0", "6-6", "2-4", "2-2", "0-1",
         "3-3"), 1, ("3-5", "4-5 R", "3-6 L", "1-6 L", "4-4 R")), "1-1 L", 10),
    # Multiples of five: 2-3 on R makes 6 + 3 + 6 + 0 + ... = 20.
    Example("fives", _SEED_183, "2-3 R", 20),
    # Score first: with two tiles left, 2-6 on U scores 25; 5-5 would score nothing.
    Example("score_first", Position(
        (("2-6", "1-4", "5-5", "4-5", "3-4", "3-5", "0-5"),
         ("2-4", "0-1", "3-6", "2-3", "4-4", "0-3", "6-6")),
        ("1-1", "1-2", "0-6", "0-4", "1-5", "2-5", "1-6", "2-2", "5-6", "3-3", "0-0", "0-2", "1-3",
         "4-6"), 1,
        ("0-1", "1-4 R", "4-4 R", "4-5 R", "2-4 U", "3-4 D", "2-3 D", "3-5 R", "3-6 R", "0-5 L",
         "6-6 R")), "2-6 U", 25),
    # Fish: 1-3 on R blocks the board; 26 pips against 42: you score 45.
    Example("fish", Position(
        (("2-4", "2-5", "2-3", "0-5", "0-1", "0-4", "3-3"),
         ("1-4", "4-5", "6-6", "0-2", "0-3", "0-6", "3-5")),
        ("1-3", "1-1", "3-4", "0-0", "3-6", "5-6", "5-5", "4-6", "1-5", "2-2", "4-4", "2-6", "1-6",
         "1-2"), 1,
        ("3-5", "2-5 R", "0-3 L", "0-5 L", "0-2 R", "0-4 R", "4-5 R", "draw", "draw", "draw",
         "draw", "draw", "draw", "5-6 R", "0-6 R", "0-0 R", "draw", "5-5 L", "0-1 R", "1-4 R",
         "3-4 R", "draw", "draw", "1-5 L", "1-1 L", "draw", "draw", "draw", "pass")),
        "1-3 R", 0, "fish", 45),
)

BY_SLUG: dict[str, Example] = {e.slug: e for e in EXAMPLES}
