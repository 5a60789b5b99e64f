"""Does the hand-value network want more data or more units? Its held-out error by both.

    python -m tools.research.value_curve --data ROWS.npz [--shares 0.25,0.5,1] [--hidden 32x16]
        [--epochs 6] [--more MORE.npz] [--out FILE]

``ROWS.npz`` is what ``python -m tools.training value --save-data`` writes. The last tenth of
its matches is held out, always the same matches; the network is fitted as ``python -m
tools.training value`` fits it
(outcomes, then TD(0.5) targets, seed 1, ``epochs`` passes per fit) on the first ``share`` of
the other matches, once per share and per hidden shape, and scored against the true outcomes of
the held-out matches: RMSE in points still scored in the hand, beside the error of predicting
the mean. An error that stops falling as the share grows says more self-play of the same kind
will not help; one that falls with more units says the network is too small.

``--more MORE.npz`` (rows of other self-play, e.g. by another bot) adds one fit per shape on
all the training matches of both files, scored on the same held-out matches of ``ROWS.npz``;
``--out`` writes the last network fitted, to be measured in play in place of
``kva/bots/models/value.json``.
"""

from __future__ import annotations

import argparse

import numpy as np

from kva.bots import value_net
from kva.bots.value_net import POINT_SCALE, ValueModel
from tools.training.value_train import Dataset, _holdout_cut, fit

Array = np.ndarray


def load(path: str) -> Dataset:
    with np.load(path) as saved:
        return Dataset(saved["rows"], saved["labels"], saved["groups"])


def renumbered(data: Dataset, lo: float, hi: float, base: float) -> Dataset:
    """Matches ``lo`` … ``hi - 1`` of ``data``, numbered from ``base``."""
    keep = (data.groups >= lo) & (data.groups < hi)
    return Dataset(data.rows[keep], data.labels[keep], data.groups[keep] - lo + base)


def subset(data: Dataset, share: float) -> Dataset:
    """The first ``share`` of the training matches and all the held-out ones."""
    cut = _holdout_cut(data.groups, 0.1)
    return Dataset.join([renumbered(data, 0, cut * share, 0), renumbered(data, cut, 1e9, cut)])


def with_more(data: Dataset, more: Dataset) -> Dataset:
    """Both files' training matches, then both files' held-out matches: ``fit`` holds out the
    last tenth, which then holds every held-out match of ``data``."""
    cut, more_cut = _holdout_cut(data.groups, 0.1), _holdout_cut(more.groups, 0.1)
    games, more_games = data.groups.max() + 1, more.groups.max() + 1
    parts = [
        renumbered(data, 0, cut, 0),
        renumbered(more, 0, more_cut, cut),
        renumbered(data, cut, games, cut + more_cut),
        renumbered(more, more_cut, more_games, games + more_cut),
    ]
    joined = Dataset.join(parts)
    assert _holdout_cut(joined.groups, 0.1) <= cut + more_cut, "files too unequal to join"
    return joined


def rmse(model: ValueModel, held: Dataset) -> float:
    predicted: Array = model.predict(held.rows)
    return float(np.sqrt(np.mean((predicted - held.labels * POINT_SCALE) ** 2)))


def main(
    path: str, shares: list[float], shapes: list[tuple[int, int]], epochs: int,
    more_path: str | None, out: str | None,
) -> None:
    data = load(path)
    cut = _holdout_cut(data.groups, 0.1)
    held = renumbered(data, cut, 1e9, 0)
    mean = float(np.sqrt(np.mean((data.labels[data.groups < cut].mean(axis=0)
                                  - held.labels) ** 2)) * POINT_SCALE)
    runs: list[tuple[str, Dataset]] = [(f"{share:g} of the matches", subset(data, share))
                                       for share in shares]
    if more_path:
        runs.append((f"all, with {more_path}", with_more(data, load(more_path))))
    print(f"held out: {len(held.rows)} rows; predicting the mean: RMSE {mean:.3f}")
    print("hidden  train rows  held-out RMSE  train CPU s  training data")
    model: ValueModel | None = None
    report: dict[str, object] = {}
    for shape in shapes:
        for name, train_data in runs:
            model, report = fit(train_data, 1, epochs, hidden=shape)
            print(f"{shape[0]:>3}x{shape[1]:<3} {report['train_rows']:>10}  "
                  f"{rmse(model, held):>13.3f}  {report['train_cpu_s']:>11}  {name}")
    if out and model is not None:
        digest = value_net.save_model(out, model.arrays, {**report, "made_by": "value_curve"})
        print(f"wrote {out}: sha256 {digest}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True,
                        help="rows saved by python -m tools.training value --save-data")
    parser.add_argument("--shares", default="0.25,0.5,1", help="shares of the training matches")
    parser.add_argument("--hidden", default="32x16", help="hidden shapes, e.g. 32x16,64x32")
    parser.add_argument("--epochs", type=int, default=6, help="passes over the data per fit")
    parser.add_argument("--more", help="rows of more self-play to train on as well")
    parser.add_argument("--out", help="write the last network fitted to this file")
    args = parser.parse_args()
    shares = [float(s) for s in args.shares.split(",")]
    shapes = [
        (int(a), int(b)) for a, b in (h.split("x") for h in args.hidden.split(","))
    ]
    main(args.data, shares, shapes, args.epochs, args.more, args.out)
