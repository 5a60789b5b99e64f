"""Bots decide from the view alone: reshuffling hidden tiles the view cannot tell apart changes
no decision, for the same seed."""

from __future__ import annotations

import random
from dataclasses import replace

from kva.bots import BOTS, Bot, make_bot
from kva.bots.hard import HardBot
from kva.bots.hard_v1 import HardV1Bot
from kva.bots.hard_v2 import HardV2Bot
from kva.bots.opponent_model import HARD_OPPONENT_MODEL
from kva.rules import player_view
from tests.bots.botshelp import positions, reshuffled


def blind_bots() -> list[Bot]:
    bots: list[Bot] = [make_bot(name) for name in BOTS if name != "hard"]
    # The v1 search: the plain playout policy, no exact endgames.
    bots.append(HardBot.with_settings(playouts=24, candidates=2, threat=0.0, exact_nodes=0))
    # Every code path of hard: reply-aware playouts and exact endgames (pass-only positions
    # and emptied bazaars), with small budgets to keep the suite fast.
    bots.append(
        HardBot.with_settings(playouts=24, threat=0.7, block=5.0, exact_nodes=3000, exact_guesses=8)
    )
    # Guesses weighted by the learned opponent-hand model, with exact endgames; and hard-v2.
    bots.append(HardBot(config=replace(HARD_OPPONENT_MODEL, playouts=24, exact_nodes=3000,
                                       exact_guesses=8)))
    # Moves valued by the learned hand-value network: at the state a move leaves (alone, and
    # blended with playouts), and where a playout reaches its second real choice.
    bots.append(HardBot.with_settings(playouts=24, exact_nodes=0, value_net=1.0,
                                      value_net_near=1.0))
    bots.append(HardBot.with_settings(playouts=24, exact_nodes=0, value_net=0.5,
                                      value_net_near=0.3, value_cut=2))
    bots.append(HardV2Bot.with_settings(playouts=24, exact_nodes=3000, exact_guesses=8))
    bots.append(HardV1Bot.with_settings(playouts=24))
    return bots


def test_reshuffling_hidden_tiles_consistent_with_the_view_changes_no_decision() -> None:
    rng = random.Random(11)
    bots = blind_bots()
    checked = 0
    hidden_changed = 0
    for match, view in positions(seed=77, choices=1500):
        if len(view.legal) < 2 or rng.random() > 0.25:
            continue
        seat = view.player
        assert seat is not None
        alt = reshuffled(match, seat, rng)
        if alt is None:
            continue
        alt_view = player_view(alt, seat)
        assert alt_view == view  # the reshuffle is invisible to this player
        opp = 1 - seat
        if alt.hand.hands[opp] != match.hand.hands[opp]:
            hidden_changed += 1
        assert alt.hand.hands[opp] | _rest(alt) == match.hand.hands[opp] | _rest(match)
        for bot in bots:
            seed = rng.getrandbits(32)
            mine = bot.choose(view, random.Random(seed))
            theirs = bot.choose(alt_view, random.Random(seed))
            assert mine == theirs, (bot.name, mine, theirs)
        checked += 1
    assert checked >= 200
    assert hidden_changed >= 100  # most reshuffles moved tiles into or out of the opponent's hand


def _rest(match: object) -> int:
    from kva.rules import Match
    from kva.rules.engine import mask_of

    assert isinstance(match, Match)
    state = match.hand
    return mask_of(state.bazaar[state.draw_pos :])


def test_a_decision_is_a_pure_function_of_view_and_seed() -> None:
    bots = blind_bots()
    for _match, view in positions(seed=3, choices=150):
        for bot in bots:
            assert bot.choose(view, random.Random(5)) == bot.choose(view, random.Random(5))
