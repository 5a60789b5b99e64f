"""Training the opponent-hand model (:mod:`kva.bots.opponent_model`) by self-play.

:func:`generate` plays seeded matches between two bots and, at every real choice, records the
deciding player's feature rows (built from its view alone) with the truth of each unseen tile:
whether it is in the opponent's hand. Only this data generator reads the full match; the bots and
the features never do. :func:`train` fits the network with Adam on the binary cross-entropy, in
numpy, from a seed: the same data and seed give the same weights, bit for bit, on one machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kva.bots.base import Bot
from kva.bots.hard import HardBot
from kva.bots.knowledge import Knowledge
from kva.bots.opponent_model import FEATURES, Array, OpponentModel, guess_shares, tile_features
from kva.rules import player_view
from tools.training.adam import Adam
from tools.training.self_play import seeded_match


@dataclass(slots=True)
class Dataset:
    """Feature rows, their labels (1: in the opponent's hand), the match and the position
    (decision) each came from."""

    rows: Array
    labels: Array
    groups: Array
    positions: Array


def generate(
    games: int,
    seed: int,
    make_bots: Callable[[], Sequence[Bot]],
    bazaar_share: float = 0.2,
    pool_size: int = 200,
) -> Dataset:
    """Rows from ``games`` seeded matches (target drawn from :data:`TARGETS`, a share of them
    "pass only") between the bots ``make_bots`` returns (seat 0, seat 1). The guess shares are
    those of ``pool_size`` guesses drawn and weighted as ``hard`` does."""
    believer = HardBot()
    rng = random.Random(f"train/{seed}")
    rows: list[Array] = []
    labels: list[Array] = []
    groups: list[Array] = []
    positions: list[Array] = []
    for game in range(games):
        bots = make_bots()
        match, bot_rngs = seeded_match(rng, bazaar_share)
        while not match.over:
            seat = match.turn
            assert seat is not None
            view = player_view(match, seat)
            if len(view.legal) > 1 and view.hand_counts[1 - seat]:
                knowledge = Knowledge(view)
                pool, logs = believer._pool(knowledge, rng, pool_size)
                tiles, x = tile_features(view, knowledge, guess_shares(pool, logs))
                if tiles:
                    truth = match.hand.hands[1 - seat]
                    rows.append(x)
                    labels.append(np.array([float(truth >> t & 1) for t in tiles]))
                    groups.append(np.full(len(tiles), float(game)))
                    positions.append(np.full(len(tiles), float(len(positions))))
            match.apply(bots[seat].choose(view, bot_rngs[seat]), player=seat)
    if not rows:
        empty = np.zeros((0, len(FEATURES)))
        return Dataset(empty, np.zeros(0), np.zeros(0), np.zeros(0))
    return Dataset(
        np.vstack(rows), np.concatenate(labels), np.concatenate(groups), np.concatenate(positions)
    )


def log_loss(p: Array, y: Array) -> float:
    """Mean binary cross-entropy of probabilities ``p`` for labels ``y``."""
    q = np.clip(p, 1e-9, 1.0 - 1e-9)
    return float(-np.mean(y * np.log(q) + (1.0 - y) * np.log(1.0 - q)))


def train(
    data: Dataset,
    seed: int,
    hidden: int = 16,
    epochs: int = 30,
    rate: float = 0.01,
    batch: int = 512,
    holdout: float = 0.1,
) -> tuple[OpponentModel, dict[str, Any]]:
    """Fit the network; returns it and its training report (settings and measured losses).

    The last ``holdout`` share of the matches is kept out of training and measured: the
    model's log-loss there against the base rate (opponent tiles / unseen tiles) and against
    the rule "uniform over the tiles the history allows"
    (:meth:`Knowledge.possible_opponent_tiles`).
    """
    start = time.process_time()
    gen = np.random.default_rng(seed)
    games = int(data.groups.max()) + 1 if len(data.groups) else 0
    cut = games - max(1, int(round(games * holdout))) if games > 1 else games
    fit = data.groups < cut
    x, y = data.rows[fit], data.labels[fit]
    xv, yv = data.rows[~fit], data.labels[~fit]
    mean = x.mean(axis=0) if len(x) else np.zeros(len(FEATURES))
    scale = x.std(axis=0) if len(x) else np.ones(len(FEATURES))
    scale = np.where(scale < 1e-6, 1.0, scale)
    mean[0], scale[0] = 0.0, 1.0  # the bias column stays a constant 1
    w1 = gen.normal(0.0, 1.0 / np.sqrt(len(FEATURES)), (len(FEATURES), hidden))
    b1 = np.zeros(hidden)
    w2 = gen.normal(0.0, 1.0 / np.sqrt(hidden), hidden)
    b2 = np.zeros(1)
    params = [w1, b1, w2, b2]
    adam = Adam(params, rate)
    z = (x - mean) / scale
    for _epoch in range(epochs):
        order = gen.permutation(len(z))
        for lo in range(0, len(order), batch):
            idx = order[lo : lo + batch]
            xb, yb = z[idx], y[idx]
            h = np.tanh(xb @ w1 + b1)
            p = 1.0 / (1.0 + np.exp(-(h @ w2 + b2)))
            d_out = (p - yb) / len(idx)
            grads = [
                xb.T @ (np.outer(d_out, w2) * (1.0 - h * h)),
                (np.outer(d_out, w2) * (1.0 - h * h)).sum(axis=0),
                h.T @ d_out,
                np.array([d_out.sum()]),
            ]
            adam.step(grads)
    model = OpponentModel(
        {"mean": mean, "scale": scale, "w1": w1, "b1": b1, "w2": w2, "b2": b2}, {}, ""
    )
    report: dict[str, Any] = {
        "seed": seed,
        "hidden": hidden,
        "epochs": epochs,
        "rate": rate,
        "batch": batch,
        "holdout": holdout,
        "train_rows": int(len(x)),
        "holdout_rows": int(len(xv)),
    }
    if len(xv):
        col = {name: i for i, name in enumerate(FEATURES)}
        base = xv[:, col["base_rate"]]
        possible = xv[:, col["possible_now"]]
        # Uniform over the tiles the history allows: the base rate moved onto those tiles.
        allowed = _uniform_over_allowed(xv, data.positions[~fit], col)
        report["holdout_log_loss"] = {
            "model": round(log_loss(model.probabilities(xv), yv), 5),
            "base_rate": round(log_loss(base, yv), 5),
            "uniform_over_allowed": round(log_loss(np.where(possible > 0, allowed, 0.0), yv), 5),
        }
    report["train_cpu_s"] = round(time.process_time() - start, 2)
    return model, report


def _uniform_over_allowed(x: Array, positions: Array, col: dict[str, int]) -> Array:
    """Per row: opponent tiles / tiles its history allows, in that row's position."""
    out = np.zeros(len(x))
    for pos in np.unique(positions):
        block = positions == pos
        allowed = x[block, col["possible_now"]].sum()
        opp = x[block, col["opp_tiles"]][0] * 10.0
        out[block] = min(1.0, opp / allowed) if allowed else 0.0
    return out
