"""A learned opponent-hand model: the chance that each unseen tile is in the opponent's hand.

Features come from the player's view alone (through :class:`~kva.bots.knowledge.Knowledge`, which
reads nothing else), one row per unseen tile: what the public history proves (the numbers the
opponent lacked at its draws and passes, for items dealt or drawn later), how often the tile
would have fitted when the opponent chose a play and how many points it would have scored over the
play made, the tile's pips and numbers, how far the hand has gone. A one-hidden-layer network in
numpy maps a row to P(tile in the opponent's hand); ``python -m tools.training opponent`` (in
the repository's tools/training, not installed) fits it on self-play positions where the truth
is known.

One feature is what ``hard`` already believes: the share of its weighted guesses (consistent
samples weighted by the soft greedy likelihood of :meth:`Knowledge.log_weight`) that give the
opponent the tile, so the network learns a correction of those beliefs rather than a rival to
them. ``hard`` uses it (``opp_model=…``) by exponential tilting: each guessed opponent hand's
log-weight gains ``opp_model`` times the sum, over its tiles, of the model's log-odds minus the
guesses' own log-odds, which moves the guesses' marginals towards the model's.

The weights file is JSON: the format name, the feature names, the training settings, the arrays
(little-endian float64, base64) and a SHA-256 digest of everything else; :func:`load_model`
checks the digest and raises :class:`ModelError` naming the file if it is missing or corrupt.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kva.bots.hard_config import HARD, HardConfig
from kva.bots.knowledge import BETA, DEALT, HELD, Knowledge
from kva.bots.weights import ModelError, read_weights, write_weights
from kva.rules import PlayerView
from kva.rules.engine import (
    NUMBER_MASK,
    TILE_BIT,
    TILE_COUNT,
    TILE_HIGH,
    TILE_LOW,
    TILE_PIPS,
    tiles_of,
)

FORMAT = "kva-opponent-model/1"
#: ``hard`` with its guesses tilted by the shipped model at full weight: the variant measured
#: against ``hard-v2`` (docs/learned-model.md), which did not pay, so production keeps 0.
HARD_OPPONENT_MODEL: HardConfig = replace(HARD, opp_model=1.0)
#: The shipped weights.
DEFAULT_PATH = Path(__file__).with_name("models") / "opponent.json"
FEATURES: tuple[str, ...] = (
    "bias",
    "base_rate",
    "base_logit",
    "possible_now",
    "dealt_allowed",
    "entries_allowed",
    "pips",
    "double",
    "fitted_choices",
    "regret",
    "kept_draws",
    "passes",
    "bazaar_left",
    "opp_tiles",
    "progress",
    "fits_now",
    "same_number_unseen",
    "lacks_a_number",
    "first_hand",
    "last_was_refusal",
    "guess_share",
    "guess_logit",
)
Array = npt.NDArray[np.float64]


def _logit(p: float) -> float:
    q = min(max(p, 0.005), 0.995)
    return math.log(q / (1.0 - q))


def guess_shares(pool: Sequence[tuple[int, Any]], logs: Sequence[float]) -> list[float]:
    """Per tile: the weighted share of the guesses (opponent hand, …) that give it to the
    opponent, each guess weighted by exp(its log-weight)."""
    top = max(logs) if logs else 0.0
    shares = [0.0] * TILE_COUNT
    total = 0.0
    for (opp_hand, _rest), log in zip(pool, logs, strict=True):
        w = math.exp(log - top)
        total += w
        m = opp_hand
        while m:
            low = m & -m
            shares[low.bit_length() - 1] += w
            m ^= low
    return [x / total for x in shares] if total > 0.0 else shares


def tile_features(
    view: PlayerView, knowledge: Knowledge, shares: Sequence[float]
) -> tuple[list[int], Array]:
    """The unseen tiles and one feature row each (columns as :data:`FEATURES`), from the view
    and ``shares`` (:func:`guess_shares` of guesses drawn from it)."""
    tiles = tiles_of(knowledge.unseen)
    unseen_count = max(1, len(tiles))
    opp = knowledge.opp
    base = knowledge.opp_count / unseen_count
    clipped = min(max(base, 0.02), 0.98)
    base_logit = math.log(clipped / (1.0 - clipped))
    possible = knowledge.possible_opponent_tiles()
    dealt_forbid = knowledge._forbid(DEALT, HELD)
    entries = sorted(set(knowledge.entries))
    entry_forbids = [knowledge._forbid(e, HELD) for e in entries]
    moves = view.moves
    kept = len(knowledge.entries) - 7
    passes = sum(1 for m in moves if m.player == opp and m.kind == "pass")
    last = next((m for m in reversed(moves) if m.player == opp), None)
    refusal = 1.0 if last is not None and last.kind in ("draw", "pass") else 0.0
    ask = view.board.ask
    open_mask = 0
    for n in ask:
        if n >= 0:
            open_mask |= NUMBER_MASK[n]
    rows = np.zeros((len(tiles), len(FEATURES)))
    for r, t in enumerate(tiles):
        bit = TILE_BIT[t]
        a, b = TILE_LOW[t], TILE_HIGH[t]
        fitted = 0
        regret = 0.0
        for event in knowledge.choices:
            ways = event.ways[t]
            if not ways or event.chosen <= 0.0:
                continue
            fitted += 1
            gain = (math.log(event.weight[t] / ways) - math.log(event.chosen)) / BETA
            regret += min(max(gain, 0.0), 30.0)
        same = (knowledge.unseen & (NUMBER_MASK[a] | NUMBER_MASK[b])).bit_count()
        rows[r] = (
            1.0,
            base,
            base_logit,
            1.0 if possible & bit else 0.0,
            0.0 if dealt_forbid & bit else 1.0,
            sum(1 for f in entry_forbids if not f & bit) / max(1, len(entries)),
            TILE_PIPS[t] / 12.0,
            1.0 if a == b else 0.0,
            fitted / 5.0,
            regret / 20.0,
            kept / 4.0,
            passes / 3.0,
            (14 - view.drawn_count) / 14.0,
            knowledge.opp_count / 10.0,
            len(moves) / 40.0,
            1.0 if open_mask & bit else 0.0,
            same / 13.0,
            1.0 if knowledge.lacks[a] or knowledge.lacks[b] else 0.0,
            1.0 if view.hand_number == 1 else 0.0,
            refusal,
            shares[t],
            _logit(shares[t]) / 4.0,
        )
    return tiles, rows


class OpponentModel:
    """A one-hidden-layer network: standardised features, tanh hidden units, a logistic output."""

    __slots__ = ("arrays", "settings", "digest")

    NAMES: tuple[str, ...] = ("mean", "scale", "w1", "b1", "w2", "b2")

    def __init__(self, arrays: dict[str, Array], settings: dict[str, Any], digest: str) -> None:
        missing = [n for n in self.NAMES if n not in arrays]
        if missing:
            raise ModelError(f"opponent model lacks {', '.join(missing)}")
        self.arrays = arrays
        self.settings = settings
        self.digest = digest

    def logits(self, rows: Array) -> Array:
        """The log-odds of each row's tile being in the opponent's hand."""
        a = self.arrays
        hidden = np.tanh(((rows - a["mean"]) / a["scale"]) @ a["w1"] + a["b1"])
        out: Array = hidden @ a["w2"] + a["b2"]
        return out

    def probabilities(self, rows: Array) -> Array:
        """P(tile in the opponent's hand) for each row."""
        out: Array = 1.0 / (1.0 + np.exp(-self.logits(rows)))
        return out

    def tilt(self, view: PlayerView, knowledge: Knowledge, shares: Sequence[float]) -> list[float]:
        """Per tile index: the model's log-odds minus those of the guesses' ``shares`` (0.0 for
        tiles this viewer can see), the per-tile exponential tilt towards the model."""
        tiles, rows = tile_features(view, knowledge, shares)
        out = [0.0] * TILE_COUNT
        if tiles:
            for t, x in zip(tiles, self.logits(rows).tolist(), strict=True):
                out[t] = x - _logit(shares[t])
        return out


def save_model(path: Path, arrays: dict[str, Array], settings: dict[str, Any]) -> str:
    """Write the weights with their settings and digest; returns the digest."""
    named = {name: arrays[name] for name in OpponentModel.NAMES}
    return write_weights(path, FORMAT, FEATURES, named, settings)


def load_model(path: Path) -> OpponentModel:
    """The model in ``path``; ModelError naming the file if it is missing or corrupt."""
    arrays, settings, digest = read_weights(
        path, FORMAT, FEATURES, OpponentModel.NAMES, "opponent model",
        "python -m tools.training opponent",
    )
    return OpponentModel(arrays, settings, digest)


@functools.cache
def default_model() -> OpponentModel:
    """The shipped model, loaded once per process."""
    return load_model(DEFAULT_PATH)
