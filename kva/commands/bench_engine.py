"""``kva bench engine``: random self-play throughput of the rules engine on one core.

It plays random hands (deal, then uniformly random legal actions to the hand's end) through the
engine's public hot-path API (``legal_codes`` / ``apply_unchecked``), and, in the same run, random
games of the PyPI package ``dominoes`` (a simpler block-domino engine) for a side-by-side ratio.
``dominoes`` is a development extra: without it kva's own figure is printed and the comparison
is said to be skipped.

Unlike the other benchmarks (``tools/bench`` in the repository) it ships with the package: it is
small, needs nothing but :mod:`kva.rules`, and measures the engine every install runs.
``--game kozel`` measures Kozel the same way: four-seat hands of random play through whole
matches (deals, redeals, play, scoring), on one core.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from kva.commands import kozel_play
from kva.rules import shuffled_deal
from kva.rules.engine import HandState, mask_of


def kva_random_hands(hands: int, seed: int) -> int:
    """Play ``hands`` random hands; return the number of actions taken."""
    rng = random.Random(seed)
    draw = rng.random
    actions = 0
    for i in range(hands):
        deal = shuffled_deal(rng)
        state = HandState(
            (mask_of(deal.hands[0]), mask_of(deal.hands[1])), list(deal.bazaar), i & 1
        )
        while not state.over:
            codes = state.legal_codes()
            state.apply_unchecked(codes[int(draw() * len(codes))])
        actions += len(state.log)
    return actions


def dominoes_random_games(hands: int, seed: int) -> int:
    """Play ``hands`` random games with the ``dominoes`` package; return its action count."""
    import dominoes  # type: ignore[import-untyped]  # a dev-only comparison; ships no types

    random.seed(seed)  # the package deals from the global generator
    rng = random.Random(seed)
    actions = 0
    for _ in range(hands):
        game = dominoes.Game.new()
        while game.result is None:
            moves = game.valid_moves
            game.make_move(*moves[int(rng.random() * len(moves))])
        actions += len(game.moves)
    return actions


def measure(play: Callable[[int, int], int], seconds: float, seed: int) -> tuple[float, float]:
    """Hands/s and actions/s: the best of batches of at least 0.2 s over about ``seconds``.

    Batches double until one takes 0.2 s; at least three timed batches are taken, whatever
    ``seconds`` says, so a short run still measures something."""
    batch = 200
    best = (0.0, 0.0)
    timed = 0
    round_ = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or timed < 3:
        start = time.perf_counter()
        actions = play(batch, seed + round_)
        elapsed = time.perf_counter() - start
        round_ += 1
        if elapsed < 0.2:
            batch *= 2
            continue
        timed += 1
        best = max(best, (batch / elapsed, actions / elapsed))
    return best


def run_kozel(args: argparse.Namespace) -> int:
    """Measure Kozel: four-seat hands of random play per second on one core."""
    hands_s, actions_s = measure(kozel_play.random_hands, args.seconds, args.seed)
    print(f"{'engine':<10} {'hands/s':>10} {'actions/s':>12}")
    print(f"{'kozel':<10} {hands_s:>10,.0f} {actions_s:>12,.0f}")
    print(f"kozel engine: {hands_s:,.0f} four-seat hands/s")
    return 0


def run(args: argparse.Namespace) -> int:
    """Measure both engines and print the table."""
    if args.game == "kozel":
        return run_kozel(args)
    rows = [("kva", *measure(kva_random_hands, args.seconds, args.seed))]
    try:
        import dominoes  # noqa: F401  (a development extra: a plain install lacks it)
    except ImportError:
        print("comparison skipped: the 'dominoes' package is not installed "
              "(pip install 'kva[dev]' or dominoes==6.1.0)")
    else:
        rows.append(("dominoes", *measure(dominoes_random_games, args.seconds, args.seed)))
    print(f"{'engine':<10} {'hands/s':>10} {'actions/s':>12}")
    for name, hands_s, actions_s in rows:
        print(f"{name:<10} {hands_s:>10,.0f} {actions_s:>12,.0f}")
    ratio = (f" ({rows[0][1] / rows[1][1]:.1f}× dominoes)" if len(rows) > 1
             else " (no comparison: dominoes not installed)")
    print(f"engine: {rows[0][1]:,.0f} hands/s{ratio}")
    return 0


def add_parser(which: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva bench engine`` under ``kva bench``."""
    engine = which.add_parser("engine", help="random self-play throughput on one core")
    engine.add_argument("--seconds", type=float, default=3.0, help="time per engine")
    engine.add_argument("--seed", type=int, default=1)
    engine.add_argument("--game", choices=("georgian", "kozel"), default="georgian",
                        help="kozel: four-seat hands of random play (whole matches)")
    engine.set_defaults(func=run)
