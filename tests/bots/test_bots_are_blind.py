"""Bots decide from the view alone: reshuffling hidden tiles the view cannot tell apart changes
no decision, for the same seed (the yardsticks of tools/training: tests/training)."""

from __future__ import annotations

from dataclasses import replace

from kva.bots import BOTS, Bot, make_bot
from kva.bots.hard import HardBot
from kva.bots.opponent_model import HARD_OPPONENT_MODEL
from tests.bots.botshelp import assert_blind, assert_pure


def blind_bots() -> list[Bot]:
    bots: list[Bot] = [make_bot(name) for name in BOTS if name != "hard"]
    # The v1 search: the plain playout policy, no exact endgames.
    bots.append(HardBot.with_settings(playouts=24, candidates=2, threat=0.0, exact_nodes=0))
    # Every code path of hard: reply-aware playouts and exact endgames (pass-only positions
    # and emptied bazaars), with small budgets to keep the suite fast.
    bots.append(
        HardBot.with_settings(playouts=24, threat=0.7, block=5.0, exact_nodes=3000, exact_guesses=8)
    )
    # Guesses weighted by the learned opponent-hand model, with exact endgames.
    bots.append(HardBot(config=replace(HARD_OPPONENT_MODEL, playouts=24, exact_nodes=3000,
                                       exact_guesses=8)))
    # Moves valued by the learned hand-value network: at the state a move leaves (alone, and
    # blended with playouts), and where a playout reaches its second real choice.
    bots.append(HardBot.with_settings(playouts=24, exact_nodes=0, value_net=1.0,
                                      value_net_near=1.0))
    bots.append(HardBot.with_settings(playouts=24, exact_nodes=0, value_net=0.5,
                                      value_net_near=0.3, value_cut=2))
    return bots


def test_reshuffling_hidden_tiles_consistent_with_the_view_changes_no_decision() -> None:
    assert_blind(blind_bots())


def test_a_decision_is_a_pure_function_of_view_and_seed() -> None:
    assert_pure(blind_bots())
