"""Constructed positions: a real deal and a real history, replayed through the rules engine.

The lesson and the strategy guide show real positions: a :class:`Position` names a 7/7/14 deal,
who opens, the actions played so far (every one checked by :meth:`HandState.apply`), and the
match score and target around the hand. :meth:`Position.view` is the position as player 0 (the
learner) sees it, the same :class:`~kva.rules.PlayerView` the game page draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kva.rules import (
    DRAW,
    PASS,
    Deal,
    Match,
    PlayedHand,
    PlayerView,
    action_from_json,
    parse_halves,
    parse_tile,
    player_view,
    view_to_json,
)
from kva.rules.engine import OPEN_BASE, TILE_NAME, HandState, code_parts

#: The learner's seat in every constructed position.
ME = 0


def parse_action(text: str, state: HandState) -> int:
    """``"6-4 R"``, ``"5-5"`` (an opening, halves in the written order), ``"draw"``, ``"pass"``
    as the legal code it names in ``state``; IllegalAction otherwise."""
    if text in ("draw", "pass"):
        return action_from_json({"type": text}, state.legal_codes())
    tile, _, end = text.partition(" ")
    if not end and state.placed == 0:
        a, b = parse_halves(tile)
        code = OPEN_BASE + 2 * parse_tile(tile) + (1 if a > b else 0)
        state.legal_codes()  # raises nothing; apply() below checks
        return code
    message: dict[str, Any] = {"type": "play", "tile": tile}
    if end:
        message["end"] = end
    return action_from_json(message, state.legal_codes())


def action_text(code: int) -> str:
    """The inverse of :func:`parse_action` for a placement, draw or pass (openings low first)."""
    kind, tile, end = code_parts(code)
    if tile is None:
        return kind
    return TILE_NAME[tile] if end is None else f"{TILE_NAME[tile]} {end}"


@dataclass(frozen=True)
class Position:
    """A hand dealt ``hands``/``bazaar`` (tile names), ``opener`` to open, ``moves`` played."""

    hands: tuple[tuple[str, ...], tuple[str, ...]]
    bazaar: tuple[str, ...]
    opener: int
    moves: tuple[str, ...] = ()
    scores: tuple[int, int] = (0, 0)
    target: int = 175

    def deal(self) -> Deal:
        hands = (tuple(parse_tile(t) for t in self.hands[0]),
                 tuple(parse_tile(t) for t in self.hands[1]))
        deal = Deal(hands, tuple(parse_tile(t) for t in self.bazaar))
        tiles = sorted(deal.hands[0] + deal.hands[1] + deal.bazaar)
        if len(deal.hands[0]) != 7 or len(deal.hands[1]) != 7 or tiles != list(range(28)):
            raise ValueError("a position's deal is 7 tiles each and a bazaar of 14: all 28 once")
        return deal

    def state(self) -> HandState:
        """The hand state after ``moves``, every action checked by the engine."""
        state = HandState.from_deal(self.deal(), self.opener)
        for text in self.moves:
            state.apply(parse_action(text, state))
        return state

    def match(self, state: HandState | None = None) -> Match:
        """A match holding this hand (``state``, or the position's) at the given score."""
        deal = self.deal()
        match = Match(self.target, deals=[_any_double_deal()])
        match.hands[0] = PlayedHand(self.opener, deal, state if state is not None else
                                    self.state())
        match.scores = list(self.scores)
        return match

    def view(self, state: HandState | None = None) -> PlayerView:
        """The position as the learner (player 0) sees it."""
        return player_view(self.match(state), ME)

    def view_json(self, state: HandState | None = None) -> dict[str, Any]:
        return view_to_json(self.view(state))


def _any_double_deal() -> Deal:
    """A throw-away first deal for :class:`Match` (replaced by the position's hand at once)."""
    return Deal((tuple(range(7)), tuple(range(7, 14))), tuple(range(14, 28)))


def is_placement(code: int) -> bool:
    return code < DRAW


__all__ = ["ME", "PASS", "Position", "action_text", "is_placement", "parse_action"]
