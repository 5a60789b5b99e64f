"""Glicko-2 ratings, written from Mark E. Glickman, "Example of the Glicko-2 system"
(Boston University, 2013).

Pure functions, standard library only, no I/O.  Step numbers in the docstrings refer to
the eight steps of that paper:

1. pick defaults (rating 1500, RD 350, volatility 0.06) and the system constant tau;
2. convert to the Glicko-2 scale: mu = (r - 1500) / 173.7178, phi = RD / 173.7178;
3. the estimated variance ``v`` of the rating from game outcomes only;
4. the estimated improvement ``delta``;
5. the new volatility sigma', by the Illinois (regula falsi) iteration;
6. the pre-rating-period value phi* = sqrt(phi^2 + sigma'^2);
7. the new phi' and mu';
8. convert back to the Glicko scale.

A rating period with no games applies step 6 only (with the old volatility).

Platform rules on top of the paper (the paper itself does not impose them):

* RD never exceeds :data:`MAX_RD` (350, the RD of an unrated player).  The cap is applied
  to the *reported* RD, after steps 6-8, both for idle periods and after games; the rating
  change of step 7 still uses the uncapped phi'.
* :func:`is_provisional` calls a rating provisional while its RD is above
  :data:`PROVISIONAL_RD` (110), the threshold lichess uses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DEFAULT_RATING",
    "DEFAULT_RD",
    "DEFAULT_TAU",
    "DEFAULT_VOLATILITY",
    "CONVERGENCE_TOLERANCE",
    "MAX_RD",
    "PROVISIONAL_RD",
    "SCALE",
    "Rating",
    "expected_score",
    "is_provisional",
    "rate_match",
    "update",
    "variance_and_improvement",
]

DEFAULT_RATING = 1500.0
"""Step 1: the rating of an unrated player."""
DEFAULT_RD = 350.0
"""Step 1: the rating deviation of an unrated player."""
DEFAULT_VOLATILITY = 0.06
"""Step 1: the volatility of an unrated player."""
DEFAULT_TAU = 0.5
"""Step 1: the system constant tau (the paper suggests 0.3 to 1.2; its example uses 0.5)."""
SCALE = 173.7178
"""Step 2: the factor between the Glicko scale and the Glicko-2 scale."""
CONVERGENCE_TOLERANCE = 0.000001
"""Step 5: the convergence tolerance epsilon of the Illinois iteration."""
MAX_RD = 350.0
"""Platform rule: the reported RD is capped here (the RD of an unrated player)."""
PROVISIONAL_RD = 110.0
"""Platform rule: a rating whose RD is strictly above this is provisional (as on lichess)."""

_MAX_ITERATIONS = 10_000


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's Glicko-2 state on the Glicko scale: rating r, deviation RD, volatility sigma.

    The defaults are the paper's step 1 values for an unrated player.
    """

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise ValueError(f"rating must be finite, got {self.rating!r}")
        if not (math.isfinite(self.rd) and self.rd > 0):
            raise ValueError(f"rd must be finite and positive, got {self.rd!r}")
        if not (math.isfinite(self.volatility) and self.volatility > 0):
            raise ValueError(f"volatility must be finite and positive, got {self.volatility!r}")


# --- Step 2 and step 8: scale conversion -------------------------------------------------


def _to_mu(rating: float) -> float:
    """Step 2: mu = (r - 1500) / 173.7178."""
    return (rating - DEFAULT_RATING) / SCALE


def _to_phi(rd: float) -> float:
    """Step 2: phi = RD / 173.7178."""
    return rd / SCALE


def _from_phi(phi: float) -> float:
    """Step 8: RD' = 173.7178 phi', capped at :data:`MAX_RD` (platform rule)."""
    return min(SCALE * phi, MAX_RD)


# --- Step 3: g and E ---------------------------------------------------------------------


def _g(phi: float) -> float:
    """Step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expectation(mu: float, mu_j: float, g_j: float) -> tuple[float, float]:
    """Step 3: E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j))), with 1 - E.

    Returns ``(E, 1 - E)``, each computed without cancellation, so that neither becomes
    exactly 0 before ``exp`` underflows; ``exp`` never overflows for finite input.
    """
    x = g_j * (mu - mu_j)
    if x >= 0:
        t = math.exp(-x)
        return 1.0 / (1.0 + t), t / (1.0 + t)
    z = math.exp(x)
    return z / (1.0 + z), 1.0 / (1.0 + z)


def expected_score(player: Rating, opponent: Rating) -> float:
    """The paper's expected score E (step 3) of ``player`` against ``opponent``.

    As in the paper, only the opponent's RD enters (through g(phi_j)); the player's own RD
    does not.  Hence ``expected_score(a, b) + expected_score(b, a) == 1`` only when both
    RDs are equal.  Equal ratings always give 0.5.
    """
    e, _ = _expectation(_to_mu(player.rating), _to_mu(opponent.rating), _g(_to_phi(opponent.rd)))
    return e


# --- Step 5: new volatility --------------------------------------------------------------


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: solve f(x) = 0 by the Illinois algorithm and return sigma' = exp(A / 2).

    f(x) = e^x (delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2,
    with a = ln(sigma^2).

    (a)-(b) bracket the root between A = a and B, where B = ln(delta^2 - phi^2 - v) if
    delta^2 > phi^2 + v, otherwise a - k tau for the smallest k >= 1 with f(a - k tau) >= 0.
    (c)-(d) iterate C = A + (A - B) f_A / (f_B - f_A) while |B - A| > epsilon; if
    f_C f_B <= 0 then A <- B, f_A <- f_B, otherwise f_A <- f_A / 2; then B <- C, f_B <- f_C.
    (The "<=" matters when f_C is exactly 0: with "<" the bracket would stop shrinking.)
    """
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        denom = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * denom * denom) - (x - a) / tau2

    # Step 5.2: initial bracket.
    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau

    # Step 5.3 and 5.4: Illinois iteration.
    f_a = f(big_a)
    f_b = f(big_b)
    iterations = 0
    while abs(big_b - big_a) > CONVERGENCE_TOLERANCE:
        iterations += 1
        if iterations > _MAX_ITERATIONS:  # pragma: no cover - defensive, never seen
            raise ArithmeticError("Glicko-2 volatility iteration did not converge")
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c

    # Step 5.5
    return math.exp(big_a / 2.0)


# --- Steps 3 and 4 ------------------------------------------------------------------------


def _sums(mu: float, results: Sequence[tuple[Rating, float]]) -> tuple[float, float]:
    """Steps 3-4 sums: (sum g(phi_j)^2 E_j (1 - E_j), sum g(phi_j) (s_j - E_j))."""
    information = 0.0
    score_sum = 0.0
    for opponent, score in results:
        if not (0.0 <= score <= 1.0):
            raise ValueError(f"score must be in [0, 1], got {score!r}")
        g_j = _g(_to_phi(opponent.rd))
        e_j, c_j = _expectation(mu, _to_mu(opponent.rating), g_j)
        information += g_j * g_j * e_j * c_j
        # s - E, written as (s - 1) + (1 - E) when E is near 1 to keep its precision.
        surprise = (score - 1.0) + c_j if e_j > 0.5 else score - e_j
        score_sum += g_j * surprise
    return information, score_sum


def variance_and_improvement(
    player: Rating, results: Sequence[tuple[Rating, float]]
) -> tuple[float, float]:
    """The paper's step 3 and step 4 quantities ``(v, delta)``, on the Glicko-2 scale.

    v = 1 / sum g(phi_j)^2 E_j (1 - E_j) is the estimated variance of the rating from the
    game outcomes alone; delta = v sum g(phi_j) (s_j - E_j) the estimated improvement.
    Exposed for inspection and tests; :func:`update` is what rates.  Needs at least one
    game (``ValueError`` otherwise) and, like the paper, a nonzero information sum.
    """
    if not results:
        raise ValueError("v and delta are defined only for a period with games")
    information, score_sum = _sums(_to_mu(player.rating), results)
    v = 1.0 / information
    return v, v * score_sum


# --- The rating period -------------------------------------------------------------------


def update(
    player: Rating,
    results: Sequence[tuple[Rating, float]],
    tau: float = DEFAULT_TAU,
) -> Rating:
    """Rate ``player`` over one rating period (paper steps 2-8).

    ``results`` holds one ``(opponent, score)`` pair per game, scores being 1 (win),
    0.5 (draw) or 0 (loss) for ``player``; any score in [0, 1] is accepted.  All games of
    the period count as simultaneous: every opponent enters with its pre-period rating.

    With no games the paper's rule applies: rating and volatility stay, and only step 6
    runs, RD' = 173.7178 sqrt(phi^2 + sigma^2) -- capped at :data:`MAX_RD`.

    Otherwise: step 3 gives v = 1 / sum g(phi_j)^2 E_j (1 - E_j); step 4 gives
    delta = v sum g(phi_j) (s_j - E_j); step 5 the new volatility sigma'; step 6
    phi* = sqrt(phi^2 + sigma'^2); step 7 phi' = 1 / sqrt(1/phi*^2 + 1/v) and
    mu' = mu + phi'^2 sum g(phi_j) (s_j - E_j); step 8 converts back (RD capped at
    :data:`MAX_RD`).
    """
    if not (math.isfinite(tau) and tau > 0):
        raise ValueError(f"tau must be finite and positive, got {tau!r}")

    # Step 2
    mu = _to_mu(player.rating)
    phi = _to_phi(player.rd)
    sigma = player.volatility

    if not results:
        # Step 6 only.
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, _from_phi(phi_star), sigma)

    # Step 3 and the sum needed by steps 4 and 7.
    information, score_sum = _sums(mu, results)
    if information <= 0.0:
        # Only reachable when exp underflows for every game (rating gaps beyond 100,000
        # points): the games carry no information, so treat the period as idle.
        return update(player, [], tau)
    v = 1.0 / information

    # Step 4
    delta = v * score_sum

    # Step 5
    sigma_new = _new_volatility(sigma, phi, v, delta, tau)

    # Step 6
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)

    # Step 7: phi' = 1 / sqrt(1/phi*^2 + 1/v), and mu' = mu + phi'^2 sum g(phi_j)(s_j - E_j).
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_change = phi_new * phi_new * score_sum

    # Step 8: r' = 173.7178 mu' + 1500, computed as r + 173.7178 (mu' - mu) -- the same
    # value, but without a round trip through the Glicko-2 scale, so a win can never come
    # out a rounding error below the old rating.
    return Rating(player.rating + SCALE * mu_change, _from_phi(phi_new), sigma_new)


def rate_match(
    a: Rating, b: Rating, score_a: float, tau: float = DEFAULT_TAU
) -> tuple[Rating, Rating]:
    """Rate a single match between ``a`` and ``b`` as a rating period of one game each.

    ``score_a`` is a's score (1, 0.5 or 0); b scores ``1 - score_a``.  Both new ratings
    are computed from the pre-match ratings (steps 2-8 for each player).

    Consequence of one-game periods: step 6 adds sigma'^2 to phi^2 every period while one
    game removes at most g^2 E (1 - E) <= 1/4 of information, so for sigma = 0.06 a single
    game *raises* an RD below about 60, and repeated matches settle RD near 60 instead of
    driving it lower.
    """
    return update(a, [(b, score_a)], tau), update(b, [(a, 1.0 - score_a)], tau)


def is_provisional(r: Rating) -> bool:
    """True while the RD is strictly above :data:`PROVISIONAL_RD` (110, as lichess uses).

    An unrated player (RD 350) is provisional; the RD falls below the threshold after
    a handful of games and rises above it again after long idleness (step 6).
    """
    return r.rd > PROVISIONAL_RD
