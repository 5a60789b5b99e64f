"""``hard``'s depth-2 reply search and the hand-keeping playout terms (issue 13, fourth session):
budgets counted in playouts, the worst reply never worth more than the mean, the narrowed search
picking among the flat search's best moves, and the playout terms off by default."""

from __future__ import annotations

import random

import pytest

from kva.bots.hard import HardBot
from kva.bots.knowledge import Knowledge
from kva.bots.playout import playout as smart_playout
from kva.rules import PlayerView
from kva.rules.engine import HandState
from tests.bots.botshelp import positions


def _choices(seed: int, count: int, bazaar: str | None = None) -> list[PlayerView]:
    out: list[PlayerView] = []
    for _match, view in positions(seed=seed, choices=count * 4):
        if len(view.legal) > 1 and (bazaar is None or view.bazaar == bazaar):
            out.append(view)
            if len(out) == count:
                break
    return out


def _reply_sums(bot: HardBot, view: PlayerView, seed: int, budget: int) -> list[float]:
    knowledge = Knowledge(view, bot.beta, bot.uniform_share)
    return bot._reply_search(
        view, knowledge, list(view.legal), random.Random(seed), 1e300, budget
    )


def test_the_reply_search_spends_its_budget_in_playouts() -> None:
    counted: list[int] = []

    class Counting(HardBot):
        def _playout_runner(self, knowledge):  # type: ignore[no-untyped-def]
            run = super()._playout_runner(knowledge)

            def counting(state: HandState, seed: int) -> None:
                counted.append(1)
                run(state, seed)

            return counting

    for samples in (1, 3):
        bot = Counting(playouts=60, reply_depth=2, reply_samples=samples, exact_nodes=0)
        for view in _choices(seed=21, count=30):
            counted.clear()
            _reply_sums(bot, view, 4, 60)
            # Whole guesses only: at least the budget, at most one guess's branches over.
            assert 60 <= len(counted) <= 60 + 7 * 7 * len(view.legal) * samples


def test_the_worst_reply_is_never_worth_more_than_the_mean_reply() -> None:
    paranoid = HardBot(reply_depth=2, reply_min=1.0, reply_samples=2, exact_nodes=0)
    average = HardBot(reply_depth=2, reply_min=0.0, reply_samples=2, exact_nodes=0)
    branched = 0
    for k, view in enumerate(_choices(seed=22, count=40)):
        low = _reply_sums(paranoid, view, k, 40)
        mean = _reply_sums(average, view, k, 40)
        # Same seed, same guesses and playouts: only the way replies are combined differs.
        assert all(a <= b + 1e-9 for a, b in zip(low, mean, strict=True))
        branched += any(a < b - 1e-9 for a, b in zip(low, mean, strict=True))
    assert branched >= 10  # most positions give the opponent a real choice somewhere


def test_reply_search_decisions_are_legal_and_a_pure_function_of_view_and_seed() -> None:
    bots = [
        HardBot(playouts=40, reply_depth=2, exact_nodes=0),
        HardBot(playouts=40, reply_depth=2, reply_min=0.5, reply_samples=3, exact_nodes=0),
        HardBot(playouts=30, reply_depth=2, reply_top=2, reply_playouts=40, exact_nodes=0),
    ]
    for k, view in enumerate(_choices(seed=23, count=40)):
        for bot in bots:
            code = bot.choose(view, random.Random(k))
            assert code in view.legal
            assert bot.choose(view, random.Random(k)) == code


def test_the_narrowed_search_picks_among_the_flat_search_s_best_moves() -> None:
    bot = HardBot(playouts=30, reply_depth=2, reply_top=2, reply_playouts=30, exact_nodes=0)
    checked = 0
    for k, view in enumerate(_choices(seed=24, count=60)):
        if len(view.legal) < 3:
            continue
        knowledge = Knowledge(view, bot.beta, bot.uniform_share)
        rng = random.Random(k)
        guesses = bot._guesses(knowledge, rng, bot._guess_count(len(view.legal)))
        flat = bot._flat_sums(view, knowledge, guesses, rng, 1e300)
        order = sorted(range(len(view.legal)), key=lambda i: (-flat[i], i))
        top = {view.legal[i] for i in order[:2]}
        assert bot.choose(view, random.Random(k)) in top
        checked += 1
    assert checked >= 5


def test_depth_one_and_zero_keeping_terms_leave_hard_s_decisions_alone() -> None:
    plain = HardBot(playouts=40, exact_nodes=0)
    spelled = HardBot(
        playouts=40, exact_nodes=0, reply_depth=1, reply_top=3, spread=0.0, follow=0.0,
        shed_late=0.0, blind_threat=0, opp_blind=0, tree=0, explore=5.0,
    )
    for k, view in enumerate(_choices(seed=25, count=40)):
        assert plain.choose(view, random.Random(k)) == spelled.choose(view, random.Random(k))


def test_playouts_with_keeping_terms_finish_the_hand_reproducibly() -> None:
    changed = 0
    for k, view in enumerate(_choices(seed=26, count=40)):
        knowledge = Knowledge(view)
        opp_hand, rest, _items = knowledge.sample(random.Random(k))
        state = knowledge.state(view, opp_hand, rest)
        finals = []
        for terms in ((1.0, 1.5, 0.3), (1.0, 1.5, 0.3), (0.0, 0.0, 0.0)):
            s = state.copy()
            smart_playout(s, random.Random(k), 0.35, 0.7, 99, 0.0, *terms)
            assert s.over
            finals.append((s.points, s.winner, s.end_points, s.hands))
        assert finals[0] == finals[1]
        changed += finals[0] != finals[2]
    assert changed >= 1  # the terms do change some playouts


def _blind_playout_finals(state: HandState, view: PlayerView, k: int, me: int, possible: int,
                          opp: int) -> tuple[object, ...]:
    """The end of a playout from ``state`` after my move ``view.legal[0]``, the opponent's
    first; ``me`` and ``opp`` as :func:`~kva.bots.playout.playout` takes them."""
    s = state.copy()
    s.apply_unchecked(view.legal[0])
    smart_playout(s, random.Random(k), 0.35, 0.7, 4, 0.0, 0.0, 0.0, 0.0, me, possible, opp)
    assert s.over
    return (s.points, s.winner, s.end_points, s.hands)


@pytest.mark.parametrize("side", ["mine", "opponent's"])
def test_blind_threat_playouts_finish_reproducibly_and_change_some(side: str) -> None:
    """My own choices read the reply blind (``me``), or the opponent's do (``opp``): the
    playout still ends, the same way for the same seed, and differs from the sighted one in
    some guesses."""
    changed = 0
    for k, view in enumerate(_choices(seed=27 if side == "mine" else 29, count=40)):
        knowledge = Knowledge(view)
        opp_hand, rest, _items = knowledge.sample(random.Random(k))
        state = knowledge.state(view, opp_hand, rest)
        if side == "mine":
            blind = (knowledge.me, knowledge.possible_opponent_tiles(), -1)
        else:
            blind = (-1, 0, 1 - knowledge.me)
        first = _blind_playout_finals(state, view, k, *blind)
        assert _blind_playout_finals(state, view, k, *blind) == first
        changed += first != _blind_playout_finals(state, view, k, -1, 0, -1)
    assert changed >= 1


@pytest.mark.parametrize(("setting", "seed"), [("blind_threat", 28), ("opp_blind", 31)])
def test_blind_threat_decisions_are_legal_and_reproducible(setting: str, seed: int) -> None:
    bot = HardBot(playouts=40, exact_nodes=0, **{setting: 1})
    for k, view in enumerate(_choices(seed=seed, count=30)):
        code = bot.choose(view, random.Random(k))
        assert code in view.legal
        assert bot.choose(view, random.Random(k)) == code
