"""Training the hand-value network (:mod:`kva.bots.value_net`) by self-play.

:func:`generate` plays seeded matches between two bots and records every position of every hand
from both players' sides, with what each then went on to score in that hand (the truth, known
to this generator alone: the bots only ever see their views). :func:`train` fits the network
with Adam on the squared error, in numpy, from a seed; :func:`fit` fits the outcomes and then
the TD(λ) targets of :func:`lambda_targets`, which is how the shipped weights are made.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kva.bots.base import Bot
from kva.bots.value_net import FEATURE_COUNT, FEATURES, POINT_SCALE, ValueModel, state_features
from kva.bots.weights import Array
from kva.rules import player_view
from kva.rules.engine import HandState
from tools.training.adam import Adam
from tools.training.self_play import seeded_match

_ASK_COLUMNS = [FEATURES.index(f"ends_asking_{n}") for n in range(7)]


@dataclass(slots=True)
class Dataset:
    """Feature rows, their labels (points the row's player and its opponent still score in the
    hand, in tens) and the match each came from."""

    rows: Array
    labels: Array
    groups: Array

    @staticmethod
    def join(parts: Sequence[Dataset]) -> Dataset:
        """One dataset of ``parts`` in order (their match numbers are already distinct)."""
        return Dataset(
            np.vstack([p.rows for p in parts]),
            np.vstack([p.labels for p in parts]),
            np.concatenate([p.groups for p in parts]),
        )


def _still_scores(final: HandState, player: int, points_then: int) -> float:
    extra = final.end_points if final.winner == player else 0
    return (final.points[player] - points_then + extra) / POINT_SCALE


def generate(
    games: int,
    seed: int,
    make_bots: Callable[[], Sequence[Bot]],
    bazaar_share: float = 0.2,
    first_game: int = 0,
) -> Dataset:
    """Rows from seeded matches ``first_game`` … ``first_game + games - 1`` (target drawn from
    :data:`TARGETS`, a share of them "pass only") between the bots ``make_bots`` returns."""
    rows: list[list[float]] = []
    labels: list[tuple[float, float]] = []
    groups: list[float] = []
    for game in range(first_game, first_game + games):
        rng = random.Random(f"value/{seed}/{game}")
        bots = make_bots()
        match, bot_rngs = seeded_match(rng, bazaar_share)
        pending: list[tuple[int, int, int, int]] = []  # row, player, points of both then
        hand = match.hand
        while not match.over:
            for me in (0, 1):
                pending.append((len(rows), me, hand.points[me], hand.points[1 - me]))
                rows.append(state_features(hand, me))
                labels.append((0.0, 0.0))
                groups.append(float(game))
            seat = match.turn
            assert seat is not None
            match.apply(bots[seat].choose(player_view(match, seat), bot_rngs[seat]), player=seat)
            if hand.over:
                for index, me, mine, theirs in pending:
                    labels[index] = (
                        _still_scores(hand, me, mine),
                        _still_scores(hand, 1 - me, theirs),
                    )
                pending.clear()
                hand = match.hand
    return Dataset(
        np.array(rows, dtype=np.float64).reshape(-1, FEATURE_COUNT),
        np.array(labels, dtype=np.float64).reshape(-1, 2),
        np.array(groups, dtype=np.float64),
    )


def train(
    data: Dataset,
    seed: int,
    hidden: tuple[int, int] = (32, 16),
    epochs: int = 6,
    rate: float = 0.001,
    batch: int = 512,
    holdout: float = 0.1,
    decay: float = 0.02,
) -> tuple[ValueModel, dict[str, Any]]:
    """Fit the network on the squared error of both outputs; returns it and its training report
    (settings and the held-out error against predicting the mean). The last ``holdout`` share of
    the matches is kept out of training; the weights kept are those of the epoch with the least
    held-out error. ``decay`` shrinks the weight matrices (decoupled weight decay)."""
    start = time.process_time()
    gen = np.random.default_rng(seed)
    kept = data.groups < _holdout_cut(data.groups, holdout)
    x, y = data.rows[kept], data.labels[kept]
    xv, yv = data.rows[~kept], data.labels[~kept]
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale < 1e-6, 1.0, scale)
    sizes = (FEATURE_COUNT, *hidden, 2)
    params: list[Array] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        params.append(gen.normal(0.0, np.sqrt(2.0 / a), (a, b)))
        params.append(np.zeros(b))
    params[-1] = y.mean(axis=0).copy()
    adam = Adam(params, rate, decay)
    z = (x - mean) / scale
    history: list[float] = []
    best: tuple[float, list[Array]] | None = None
    for epoch in range(epochs):
        adam.rate = rate * (0.5 ** max(0, epoch - epochs // 2))
        order = gen.permutation(len(z))
        for lo in range(0, len(order), batch):
            idx = order[lo : lo + batch]
            grads = _gradients(params, z[idx], y[idx])
            adam.step(grads)
        if len(xv):
            error = _rmse(_model(mean, scale, params).predict(xv) / POINT_SCALE, yv)
            history.append(error)
            if best is None or error < best[0]:
                best = (error, [p.copy() for p in params])
    # The epoch that did best on the held-out matches: the labels are noisy, and a network
    # that goes on fitting them learns the noise.
    model = _model(mean, scale, params if best is None else best[1])
    report: dict[str, Any] = {
        "seed": seed,
        "hidden": list(hidden),
        "epochs": epochs,
        "rate": rate,
        "batch": batch,
        "holdout": holdout,
        "decay": decay,
        "best_epoch": 1 + history.index(min(history)) if history else epochs,
        "train_rows": int(len(x)),
        "holdout_rows": int(len(xv)),
        "holdout_rmse_points_by_epoch": [round(h * POINT_SCALE, 3) for h in history],
    }
    if len(xv):
        report["holdout_rmse_points"] = {
            "model": round(_rmse(model.predict(xv) / POINT_SCALE, yv) * POINT_SCALE, 3),
            "mean": round(_rmse(np.broadcast_to(y.mean(axis=0), yv.shape), yv) * POINT_SCALE, 3),
        }
    report["train_cpu_s"] = round(time.process_time() - start, 2)
    return model, report


def _holdout_cut(groups: Array, holdout: float) -> float:
    """The first match number of the held-out share (the last matches played)."""
    games = int(groups.max()) + 1 if len(groups) else 0
    return float(games - max(1, int(round(games * holdout))) if games > 1 else games)


def _rmse(p: Array, y: Array) -> float:
    return float(np.sqrt(np.mean((p - y) ** 2)))


def _model(mean: Array, scale: Array, params: list[Array]) -> ValueModel:
    names = ("w1", "b1", "w2", "b2", "w3", "b3")
    arrays = {"mean": mean, "scale": scale, **dict(zip(names, params, strict=True))}
    return ValueModel({k: v.copy() for k, v in arrays.items()}, {}, "")


def _gradients(params: list[Array], x: Array, y: Array) -> list[Array]:
    """Gradients of the mean squared error of a ReLU network over one batch."""
    w1, b1, w2, b2, w3, b3 = params
    a1 = x @ w1 + b1
    h1 = np.maximum(a1, 0.0)
    a2 = h1 @ w2 + b2
    h2 = np.maximum(a2, 0.0)
    out = h2 @ w3 + b3
    d_out = 2.0 * (out - y) / len(x)
    d_h2 = (d_out @ w3.T) * (a2 > 0.0)
    d_h1 = (d_h2 @ w2.T) * (a1 > 0.0)
    return [
        x.T @ d_h1,
        d_h1.sum(axis=0),
        h1.T @ d_h2,
        d_h2.sum(axis=0),
        h2.T @ d_out,
        d_out.sum(axis=0),
    ]


def lambda_targets(data: Dataset, model: ValueModel, lam: float) -> Array:
    """TD(λ) targets for every row: the points still to come in the hand, with the far future
    read from ``model`` instead of the one noisy outcome the self-play happened to reach.

    Rows come in pairs (the same position from player 0's side, then player 1's), in the order
    of play; a hand starts at the one position with nothing on the table. Between consecutive
    positions of a hand, what a side scored is the drop of its label. The λ-return is built
    backwards: ``G[t] = r[t] + (1 - λ) V(s[t+1]) + λ G[t+1]``, the last position's label as is.
    """
    predicted = model.predict(data.rows) / POINT_SCALE
    labels = data.labels
    targets = labels.copy()
    fresh = data.rows[:, _ASK_COLUMNS].sum(axis=1) == 0.0
    n = len(labels)
    for side in (0, 1):
        ahead: tuple[Array, Array] | None = None  # (label, G) of the side's next position
        for i in range(n - 2 + side, -1, -2):
            if ahead is not None and data.groups[i] == data.groups[i + 2] and not fresh[i + 2]:
                label_next, g_next = ahead
                reward = labels[i] - label_next
                targets[i] = reward + (1.0 - lam) * predicted[i + 2] + lam * g_next
            ahead = (labels[i], targets[i])
    return targets


def fit(
    data: Dataset,
    seed: int,
    epochs: int = 6,
    td_lambda: float = 0.5,
    hidden: tuple[int, int] = (32, 16),
) -> tuple[ValueModel, dict[str, Any]]:
    """The network for ``data``: fitted to the outcomes, then (``td_lambda`` > 0) refitted to
    the TD(λ) targets that fit gives (:func:`lambda_targets`), which carry far less of the
    noise of one outcome. The report measures both fits against the true outcomes of the
    held-out matches."""
    model, report = train(data, seed, hidden, epochs=epochs)
    if td_lambda <= 0.0:
        return model, report
    first = report
    targets = lambda_targets(data, model, td_lambda)
    model, report = train(Dataset(data.rows, targets, data.groups), seed, hidden, epochs=epochs)
    held = data.groups >= _holdout_cut(data.groups, 0.1)
    report["td_lambda"] = td_lambda
    report["holdout_rmse_points"] = {
        "model": round(_rmse(model.predict(data.rows[held]), data.labels[held] * POINT_SCALE), 3),
        "outcome_fit": first["holdout_rmse_points"]["model"],
        "mean": first["holdout_rmse_points"]["mean"],
    }
    report["train_cpu_s"] = round(first["train_cpu_s"] + report["train_cpu_s"], 2)
    return model, report
