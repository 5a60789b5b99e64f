"""The one-ply bots: ``greedy`` (a baseline) and ``easy`` (a casual player for beginners)."""

from __future__ import annotations

import random

from kva.bots.fast import greedy_pick, points_of
from kva.rules import PlayerView


def view_greedy(view: PlayerView) -> int:
    """The legal placement that scores most now (ties: heaviest tile, then lowest code)."""
    board = view.board
    return greedy_pick(board.ask, board.value, board.opening_double_free, board.stavka, view.legal)


class GreedyBot:
    """Scores the most it can with this placement; on a tie dumps the heaviest tile.

    It ignores the opponent and the future entirely, which makes it the reference a real bot
    has to beat. It never consumes its RNG, so it is fully deterministic.
    """

    name = "greedy"

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        return view_greedy(view)


class EasyBot:
    """A casual player: usually greedy, sometimes careless, never absurd.

    With probability ``careless`` it plays a random legal move instead of the greedy one (a
    person who did not add up the ends), but it never gives away a placement worth 15 or more
    points on the board: such a move is what even a beginner spots.
    """

    name = "easy"

    def __init__(self, careless: float = 0.3) -> None:
        self.careless = careless

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        best = view_greedy(view)
        if rng.random() >= self.careless:
            return best
        board = view.board
        if points_of(board.ask, board.value, board.opening_double_free, board.stavka, best) >= 15:
            return best
        return legal[int(rng.random() * len(legal))]
