"""Does the hand-value network want more data or more units? Its held-out error by both.

    python -m tools.research.value_curve --data ROWS.npz [--shares 0.25,0.5,1] [--hidden 32x16]
        [--epochs 6]

``ROWS.npz`` is what ``kva train value --save-data`` writes. The last tenth of its matches is
held out, always the same matches; the network is fitted as ``kva train value`` fits it
(outcomes, then TD(0.5) targets, seed 1, ``epochs`` passes per fit) on the first ``share`` of
the other matches, once per share and per hidden shape, and scored against the true outcomes of
the held-out matches: RMSE in points still scored in the hand, beside the error of predicting
the mean. An error that
stops falling as the share grows says more self-play of the same kind will not help; one that
falls with more units says the network is too small.
"""

from __future__ import annotations

import argparse

import numpy as np

from kva.bots.value_train import Dataset, _holdout_cut, fit


def subset(data: Dataset, share: float) -> Dataset:
    """The first ``share`` of the training matches and all the held-out ones."""
    cut = _holdout_cut(data.groups, 0.1)
    keep = (data.groups < cut * share) | (data.groups >= cut)
    return Dataset(data.rows[keep], data.labels[keep], data.groups[keep])


def main(path: str, shares: list[float], shapes: list[tuple[int, int]], epochs: int) -> None:
    with np.load(path) as saved:
        data = Dataset(saved["rows"], saved["labels"], saved["groups"])
    print("share  hidden  train rows  held-out RMSE: TD fit / outcome fit / mean  train CPU s")
    for shape in shapes:
        for share in shares:
            _model, report = fit(subset(data, share), 1, epochs, hidden=shape)
            rmse = report["holdout_rmse_points"]
            print(
                f"{share:5.2f}  {shape[0]:>3}x{shape[1]:<3} {report['train_rows']:>10}  "
                f"{rmse['model']:>20.3f} / {rmse['outcome_fit']:.3f} / {rmse['mean']:.3f}"
                f"  {report['train_cpu_s']:>11.1f}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="rows saved by kva train value --save-data")
    parser.add_argument("--shares", default="0.25,0.5,1", help="shares of the training matches")
    parser.add_argument("--hidden", default="32x16", help="hidden shapes, e.g. 32x16,64x32")
    parser.add_argument("--epochs", type=int, default=6, help="passes over the data per fit")
    args = parser.parse_args()
    shares = [float(s) for s in args.shares.split(",")]
    shapes = [
        (int(a), int(b)) for a, b in (h.split("x") for h in args.hidden.split(","))
    ]
    main(args.data, shares, shapes, args.epochs)
