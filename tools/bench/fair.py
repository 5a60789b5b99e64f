"""``kva bench fair``: is the kva-fair/1 shuffle uniform, and how much does a deal cost?

It derives ``--deals`` deals (default 100,000) from fresh random seed triples (a seeded
``random.Random``, so runs repeat), times the derivation, and counts where each of the 28 tiles
lands among the 28 positions of the shuffled order (0-6 seat 0, 7-13 seat 1, 14-27 the bazaar
in draw order). Under a uniform shuffle every tile is at every position with probability 1/28:

* per tile, Pearson's chi-square of its 28 position counts against uniform (27 degrees of
  freedom); the worst tile's p-value is reported with a Bonferroni correction over 28 tiles;
* the whole 28x28 table: the sum of the 28 tiles' statistics. Rows and columns of a
  permutation table are both fixed, so the cell counts vary in a (28-1)^2 = 729-dimensional
  space with covariance N/27 times a projection: 27/28 of the sum is chi-square with 729
  degrees of freedom (its mean is 756, not 729).

The same statistics of as many ``random.shuffle`` permutations (Mersenne Twister) are printed
beside, as a control.

p-values come from the regularised upper incomplete gamma function (standard library only).
This is a benchmark, not a test: a p-value below 0.001 is worth a look, not a failed build.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence

from kva.rules import Deal, derive_deal
from kva.rules.engine import TILE_COUNT, TILE_NAME
from tools.bench.command import run_command


def gamma_q(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) (Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # series for P(a, x)
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300  # Lentz's continued fraction for Q(a, x)
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_square_p(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``df`` degrees of freedom."""
    return gamma_q(df / 2, statistic / 2)


def seed_triples(deals: int, seed: int) -> list[tuple[str, tuple[str, str], int]]:
    """``deals`` random (server seed, client seeds, hand) inputs, as hex like a record has."""
    rng = random.Random(seed)
    return [
        (rng.randbytes(32).hex(), (rng.randbytes(16).hex(), rng.randbytes(16).hex()), i % 40)
        for i in range(deals)
    ]


def uniformity(orders: list[list[int]] | list[tuple[int, ...]], label: str) -> float:
    """Print the chi-square figures of shuffled orders; return the smaller (corrected) p."""
    counts = [[0] * TILE_COUNT for _ in range(TILE_COUNT)]  # counts[tile][position]
    for order in orders:
        for position, tile in enumerate(order):
            counts[tile][position] += 1
    expected = len(orders) / TILE_COUNT
    per_tile = [sum((o - expected) ** 2 / expected for o in row) for row in counts]
    worst = max(range(TILE_COUNT), key=per_tile.__getitem__)
    worst_p = min(1.0, chi_square_p(per_tile[worst], TILE_COUNT - 1) * TILE_COUNT)
    table = sum(per_tile)
    table_df = (TILE_COUNT - 1) ** 2
    table_p = chi_square_p(table * (TILE_COUNT - 1) / TILE_COUNT, table_df)
    print(
        f"{label}: per tile (df {TILE_COUNT - 1}) chi-square min {min(per_tile):.1f}, "
        f"median {sorted(per_tile)[TILE_COUNT // 2]:.1f}, max {per_tile[worst]:.1f} "
        f"(tile {TILE_NAME[worst]}; p = {worst_p:.3f} after Bonferroni over 28 tiles); "
        f"whole table {table:.1f} (x27/28 = {table * 27 / 28:.1f}, df {table_df}, "
        f"p = {table_p:.3f})"
    )
    return min(worst_p, table_p)


def run(args: argparse.Namespace) -> int:
    """Derive, time and count; print the figures."""
    inputs = seed_triples(args.deals, args.seed)
    deals: list[Deal] = []
    batches: list[float] = []  # seconds per deal of each batch of 10,000
    for at in range(0, len(inputs), 10_000):
        batch = inputs[at : at + 10_000]
        start = time.perf_counter()
        deals += [derive_deal(server, clients, hand, 0) for server, clients, hand in batch]
        batches.append((time.perf_counter() - start) / len(batch))
    print(f"kva-fair/1: {args.deals:,} deals from random seed triples (seed {args.seed})")
    orders = [(*deal.hands[0], *deal.hands[1], *deal.bazaar) for deal in deals]
    p = uniformity(orders, "kva-fair/1    ")
    control = random.Random(args.seed)
    shuffled = [list(range(TILE_COUNT)) for _ in range(args.deals)]
    for order in shuffled:
        control.shuffle(order)
    uniformity(shuffled, "random.shuffle")
    print(f"verdict at p < 0.001: {'uniform' if p >= 0.001 else 'LOOK AT THIS'}")
    mean = sum(b * min(10_000, args.deals - 10_000 * i) for i, b in enumerate(batches))
    print(
        f"derivation (derive_deal from hex seeds, one core): {min(batches) * 1e6:.1f} µs per "
        f"deal in the best batch of 10,000, {mean / args.deals * 1e6:.1f} µs on average"
    )
    return 0


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments of this benchmark, for ``prog`` (``kva bench fair`` or the module)."""
    fair = argparse.ArgumentParser(
        prog=prog, description="kva-fair/1: position uniformity and cost per deal")
    fair.add_argument("--deals", type=int, default=100_000)
    fair.add_argument("--seed", type=int, default=1)
    return fair


def main(argv: Sequence[str] | None = None, prog: str = "python -m tools.bench.fair") -> int:
    """Run the benchmark with ``argv`` (the process's arguments when None); the exit status."""
    return run_command(build_parser(prog), run, argv)


if __name__ == "__main__":
    sys.exit(main())
