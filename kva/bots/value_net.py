"""A learned value of a hand position: the points each player will still score in this hand.

``hard`` searches over *guesses* of the hidden tiles: each guess is a full
:class:`~kva.rules.engine.HandState` in which both hands and the bazaar are fixed. Instead of
playing every candidate move out with a cheap noisy policy, it can ask this network what the rest
of the hand is worth from the state the move leaves: the points ``me`` and the opponent will
still score (placements, and the end points of a domino or fish), when both continue the way the
self-play bots that generated the training data played. Those bots play blind (``hard`` with a
small budget), so the value counts what real play can know, not what a clairvoyant playout would
do with the guess.

The network only ever sees states that the search built from a guess, so it is blind by
construction: the decision it feeds is a function of the view and the seed.

Features (:func:`state_features`, from one player's side): which tiles each hand holds and which
are still drawable, the numbers the open ends ask, the ends' sum, whose turn it is, hand sizes
and pips, what each player could score at once, and the hand's phase (drawable tiles left,
"pass only", passes, a pending drawn tile, the opening stavka's free sides).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from kva.bots.fast import best_points
from kva.bots.weights import Array, read_weights, write_weights
from kva.rules.engine import TILE_COUNT, TILE_NAME, HandState

FORMAT = "kva-value-model/1"
#: The shipped weights.
DEFAULT_PATH = Path(__file__).with_name("models") / "value.json"
#: Points are fed to and read from the network in tens.
POINT_SCALE = 10.0

_MINE = 0
_THEIRS = TILE_COUNT
_DRAWABLE = 2 * TILE_COUNT
_ASKS = 3 * TILE_COUNT
_SCALARS = _ASKS + 7
SCALARS: tuple[str, ...] = (
    "bias",
    "my_turn",
    "ends_sum",
    "ends_scores",
    "my_count",
    "their_count",
    "my_pips",
    "their_pips",
    "drawable_left",
    "pass_only",
    "passes",
    "pending",
    "stavka_free",
    "stavka_open",
    "my_fits",
    "their_fits",
    "my_best_now",
    "their_best_now",
    "my_points",
    "their_points",
)
#: Column names, in order: the weights file records them and loading checks them.
FEATURES: tuple[str, ...] = (
    *(f"{side}_{name}" for side in ("mine", "theirs", "drawable") for name in TILE_NAME),
    *(f"ends_asking_{n}" for n in range(7)),
    *SCALARS,
)
FEATURE_COUNT = len(FEATURES)


def _best_now(state: HandState, hand: int) -> tuple[int, int]:
    """How many tiles of ``hand`` fit the open ends, and the most one of them scores at once."""
    fits = hand & state.ends_mask
    count = 0
    top = 0
    ask, value = state.ask, state.value
    free, stavka = state.opening_double_free, state.stavka
    while fits:
        low = fits & -fits
        fits ^= low
        count += 1
        pts = best_points(ask, value, free, stavka, low.bit_length() - 1)
        if pts > top:
            top = pts
    return count, top


def state_features(state: HandState, me: int, out: list[float] | None = None) -> list[float]:
    """The feature row of ``state`` seen from player ``me``'s side (both hands are known: the
    state is a guess or, in training, the truth)."""
    x = [0.0] * FEATURE_COUNT if out is None else out
    opp = 1 - me
    for base, mask in (
        (_MINE, state.hands[me]),
        (_THEIRS, state.hands[opp]),
        (_DRAWABLE, 0 if state.pass_only else state.drawable),
    ):
        while mask:
            low = mask & -mask
            mask ^= low
            x[base + low.bit_length() - 1] = 1.0
    for n in state.ask:
        if n >= 0:
            x[_ASKS + n] += 1.0
    ends_sum = sum(state.value)
    my_fits, my_best = _best_now(state, state.hands[me])
    their_fits, their_best = _best_now(state, state.hands[opp])
    s = _SCALARS
    x[s] = 1.0
    x[s + 1] = 1.0 if state.turn == me else 0.0
    x[s + 2] = ends_sum / 20.0
    x[s + 3] = 1.0 if state.placed and ends_sum % 5 == 0 else 0.0
    x[s + 4] = state.hands[me].bit_count() / 7.0
    x[s + 5] = state.hands[opp].bit_count() / 7.0
    x[s + 6] = state.pips[me] / 40.0
    x[s + 7] = state.pips[opp] / 40.0
    x[s + 8] = state.drawable_count() / 12.0
    x[s + 9] = 1.0 if state.pass_only else 0.0
    x[s + 10] = float(state.passes)
    x[s + 11] = 1.0 if state.pending >= 0 else 0.0
    x[s + 12] = state.opening_double_free / 2.0
    x[s + 13] = 1.0 if state.stavka_end >= 0 else 0.0
    x[s + 14] = my_fits / 4.0
    x[s + 15] = their_fits / 4.0
    x[s + 16] = my_best / 10.0
    x[s + 17] = their_best / 10.0
    x[s + 18] = state.points[me] / 50.0
    x[s + 19] = state.points[opp] / 50.0
    return x


class ValueModel:
    """A two-layer network: features → the points ``me`` and the opponent still score."""

    NAMES: tuple[str, ...] = ("mean", "scale", "w1", "b1", "w2", "b2", "w3", "b3")

    def __init__(self, arrays: dict[str, Array], settings: dict[str, Any], digest: str) -> None:
        self.arrays = arrays
        self.settings = settings
        self.digest = digest
        self._mean = arrays["mean"]
        self._scale = arrays["scale"]
        self._w1, self._b1 = arrays["w1"], arrays["b1"]
        self._w2, self._b2 = arrays["w2"], arrays["b2"]
        self._w3, self._b3 = arrays["w3"], arrays["b3"]

    def predict(self, rows: Array) -> Array:
        """Per row: (points ``me`` still scores, points the opponent still scores)."""
        z = (rows - self._mean) / self._scale
        h1 = np.maximum(z @ self._w1 + self._b1, 0.0)
        h2 = np.maximum(h1 @ self._w2 + self._b2, 0.0)
        return (h2 @ self._w3 + self._b3) * POINT_SCALE


def load_model(path: Path | str) -> ValueModel:
    """The model in ``path``; :class:`~kva.bots.weights.ModelError` naming the file if it is
    missing, unreadable, or does not match its digest or this code's features."""
    arrays, settings, digest = read_weights(
        Path(path), FORMAT, FEATURES, ValueModel.NAMES, "value model",
        "python -m tools.training value",
    )
    return ValueModel(arrays, settings, digest)


def save_model(path: Path | str, arrays: dict[str, Array], settings: dict[str, Any]) -> str:
    """Write a weights file; returns its digest."""
    named = {name: arrays[name] for name in ValueModel.NAMES}
    return write_weights(Path(path), FORMAT, FEATURES, named, settings)


@functools.cache
def default_model() -> ValueModel:
    """The shipped model, loaded once per process."""
    return load_model(DEFAULT_PATH)
