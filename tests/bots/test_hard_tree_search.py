"""``hard``'s information-set tree search (issue 13, fourteenth session; off by default): one
value backed up per iteration, the opponent's nodes choosing what is worst for me, my draws told
apart by the tile and the opponent's not. (Off by default: test_hard_reply_search.py spells
the settings out.)"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import cast

import pytest

from kva.bots.hard import HardBot
from kva.bots.ismcts import MY_DRAW, Node, edge_key, most_visited, tree_search
from kva.bots.knowledge import Knowledge
from kva.rules import DRAW
from kva.rules.engine import HandState
from tests.bots.botshelp import positions


class TwoPlyGame:
    """A made-up hand for the search: I (player 0) play A (1) or B (2); after A the opponent
    picks x (3: I score +1) or y (4: I score -1); after B its one action z (5) scores ``luck``,
    +1 or -1 as the guess has it (0 on average)."""

    def __init__(self, luck: float) -> None:
        self.history: list[int] = []
        self.luck = luck

    @property
    def turn(self) -> int:
        return len(self.history) % 2

    @property
    def over(self) -> bool:
        return len(self.history) == 2

    def legal_codes(self) -> list[int]:
        if not self.history:
            return [1, 2]
        return [3, 4] if self.history[0] == 1 else [5]

    def apply_unchecked(self, code: int) -> None:
        self.history.append(code)

    def copy(self) -> TwoPlyGame:
        game = TwoPlyGame(self.luck)
        game.history = list(self.history)
        return game

    def value(self) -> float:
        return {3: 1.0, 4: -1.0, 5: self.luck}[self.history[1]]


def _games() -> Iterator[HandState]:
    rng = random.Random(5)
    while True:
        yield cast(HandState, TwoPlyGame(rng.choice((-1.0, 1.0))))


def _play_out(state: HandState, seed: int) -> None:
    """A playout of the made-up hand: random actions to its end."""
    rng = random.Random(seed)
    while not state.over:
        state.apply_unchecked(rng.choice(state.legal_codes()))


def _search(iterations: int, explore: float = 1.0, paired: bool = False) -> list[Node]:
    return tree_search(
        _games(), [1, 2], 0, lambda s: cast(TwoPlyGame, s).value(), _play_out,
        random.Random(3), iterations, explore, paired=paired,
    )


@pytest.mark.parametrize("paired", [False, True])
def test_the_opponents_nodes_choose_the_reply_worst_for_me(paired: bool) -> None:
    # Averaged over the opponent's replies A is worth 0 like B; the opponent picks y, so A
    # is worth -1: the tree spends its visits on B, or (paired) finds B's mean the better.
    a, b = _search(400, paired=paired)
    if paired:
        assert a.visits == b.visits == 200
        assert a.total / a.visits < -0.5 < b.total / b.visits
    else:
        assert b.visits > 3 * a.visits
    assert most_visited([1, 2], [a, b]) == 2


@pytest.mark.parametrize("paired", [False, True])
def test_each_iteration_backs_one_value_up_through_one_root_move(paired: bool) -> None:
    for iterations in (2, 4, 18, 200):
        assert sum(node.visits for node in _search(iterations, paired=paired)) == iterations


def test_my_draws_are_told_apart_by_the_tile_and_the_opponents_are_not() -> None:
    seen = set()
    for match, _view in positions(seed=31, choices=600):
        state = match.hand
        if state.legal_codes() != [DRAW]:
            continue
        me = state.turn
        tile = state.bazaar[state.draw_pos]
        assert edge_key(state, DRAW, me) == MY_DRAW + tile
        assert edge_key(state, DRAW, 1 - me) == DRAW
        seen.add(tile)
    assert len(seen) >= 5


def test_the_tree_search_spends_exactly_its_iterations_on_real_positions() -> None:
    bot = HardBot(tree=60, exact_nodes=0)
    checked = 0
    for _match, view in positions(seed=8, choices=300):
        if len(view.legal) < 2:
            continue
        knowledge = Knowledge(view, bot.beta, bot.uniform_share)
        rng = random.Random(4)
        legal = list(view.legal)
        for paired in (False, True):
            nodes = tree_search(bot._states(view, knowledge, rng, 25), legal, knowledge.me,
                                bot._valuer(view, knowledge.me),
                                bot._playout_runner(knowledge), rng, 60, bot.explore,
                                paired=paired)
            visits = [node.visits for node in nodes]
            assert sum(visits) == (60 if not paired else 60 // len(legal) * len(legal))
        assert bot.choose(view, random.Random(4)) in view.legal
        checked += 1
        if checked == 20:
            break
    assert checked == 20

