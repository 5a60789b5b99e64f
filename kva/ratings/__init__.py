"""Player ratings: Glicko-2 (see :mod:`kva.ratings.glicko2`)."""

from kva.ratings.glicko2 import (
    DEFAULT_RATING,
    DEFAULT_RD,
    DEFAULT_TAU,
    DEFAULT_VOLATILITY,
    MAX_RD,
    PROVISIONAL_RD,
    Rating,
    expected_score,
    is_provisional,
    rate_match,
    update,
    variance_and_improvement,
)

__all__ = [
    "DEFAULT_RATING",
    "DEFAULT_RD",
    "DEFAULT_TAU",
    "DEFAULT_VOLATILITY",
    "MAX_RD",
    "PROVISIONAL_RD",
    "Rating",
    "expected_score",
    "is_provisional",
    "rate_match",
    "update",
    "variance_and_improvement",
]
