"""How much a bigger playout budget could still buy ``hard``: regret against a converged search.

A tournament between budgets needs hundreds of matches to see a small effect; this asks the
search itself. For real choices drawn from seeded ``normal`` self-play to 175, every legal move
is valued by ``hard``'s search at a large reference budget
(:func:`kva.analysis.engine.evaluate`); then the move the search picks at a smaller budget (its
argmax, as ``hard`` plays) is scored by those reference values. The regret (reference value of
the best move minus that of the pick) is what the smaller budget loses per decision *under the
search's own model*: an upper bound on what more playouts of the same search can gain, since a
better model is not bought by more playouts. Positions solved exactly (endgames) are left out:
their budget is in nodes, not playouts.

``python -m tools.research.convergence`` from a checkout's root; its defaults (60 positions, a
reference of 20,000 playouts, budgets 1000 and 3000, 3 seeds) are the settings of the figures in
docs/bots.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
from dataclasses import dataclass, field

from kva.bots.normal import NormalBot
from kva.rules import Match, PlayerView, player_view


@dataclass(slots=True)
class Regrets:
    """Per budget: whether each pick was the reference's best, and its regret, by unit."""

    agree: dict[str, list[bool]] = field(default_factory=dict)
    regret: dict[str, list[float]] = field(default_factory=dict)


def sample_positions(count: int, seed: int = 11, share: float = 0.08) -> list[PlayerView]:
    """``count`` views with a real choice, each kept with chance ``share``, from seeded
    ``normal`` self-play matches to 175 (deal streams ``conv0``, ``conv1``, ...)."""
    rng = random.Random(seed)
    views: list[PlayerView] = []
    game = 0
    while len(views) < count:
        match = Match(175, "draw", random.Random(f"conv{game}"))
        bot = NormalBot()
        while not match.over:
            seat = match.turn
            assert seat is not None
            view = player_view(match, seat)
            if len(view.legal) > 1 and rng.random() < share and len(views) < count:
                views.append(view)
            match.apply(bot.choose(view, rng), player=seat)
        game += 1
    return views


def measure(
    views: list[PlayerView], reference: int, budgets: list[int], seeds: int
) -> dict[int, Regrets]:
    """Agreement and regret of each budget's pick against the reference values (see module)."""
    from kva.analysis.engine import evaluate  # the analysis engine is built on the bots

    out = {budget: Regrets() for budget in budgets}
    for k, view in enumerate(views):
        ref = evaluate(view, 10_000 + k, reference)
        if ref.exact:
            continue
        top = max(ref.values)
        for budget in budgets:
            regrets = out[budget]
            for s in range(seeds):
                pick = evaluate(view, 1000 * s + k, budget).best()
                regrets.agree.setdefault(ref.unit, []).append(ref.values[pick] == top)
                regrets.regret.setdefault(ref.unit, []).append(top - ref.values[pick])
    return out


def main() -> None:  # pragma: no cover - measurement entry point
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--reference", type=int, default=20_000)
    parser.add_argument("--budgets", default="1000,3000")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    views = sample_positions(args.positions)
    result = measure(views, args.reference, budgets, args.seeds)
    for budget in budgets:
        regrets = result[budget]
        for unit, agree in sorted(regrets.agree.items()):
            mean = statistics.fmean(regrets.regret[unit])
            print(
                f"playouts {budget:6d}, {unit:6s}: {len(agree) // args.seeds} positions, "
                f"agrees with the reference {100 * sum(agree) / len(agree):.1f}%, "
                f"mean regret {mean:.3f} {unit} per decision"
            )


if __name__ == "__main__":  # pragma: no cover
    main()
