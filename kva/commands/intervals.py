"""The interval arithmetic both games' tournaments print: Wilson intervals for a rate, a
normal-approximation interval for a mean, nearest-rank percentiles for decision times."""

from __future__ import annotations

import math
import statistics


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (robust near 0 and 1, unlike p ± z·se)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean with a normal-approximation 95% interval."""
    if not values:
        return 0.0, 0.0, 0.0
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, m, m
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return m, m - half, m + half


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]
