"""``python -m tools.training value|opponent``: fit a learned model by self-play and write its
weights file (kva ships the file, in ``kva/bots/models``, and the code that reads it).

``python -m tools.training value --games N --seed S --out FILE`` plays ``N`` seeded matches
(``--jobs`` worker processes), records every hand position from both sides with what each side
then scored in the hand, fits the hand-value network to those outcomes and then to TD(λ)
targets (:mod:`tools.training.value_train`), and writes it (:mod:`kva.bots.value_net`).

``python -m tools.training opponent --games N --seed S --out FILE`` plays ``N`` seeded matches
between two bots (``--players``, default two ``hard`` with a small budget), records at every
real choice the deciding player's features of each unseen tile (from its view only) and whether
the tile is in the opponent's hand (known to this generator alone), fits the opponent-hand model
in numpy and writes it with its training settings and a SHA-256 digest
(:mod:`kva.bots.opponent_model`). Same arguments, same weights on one machine (the file also
records the CPU seconds each step took); another processor's BLAS may round the matrix products
differently in the last bits.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kva.bots.base import Bot
from kva.bots.opponent_model import load_model, save_model
from kva.commands.tournament import build_bot
from tools.training.opponent_train import generate, train
from tools.training.yardsticks import ALL_BOTS

#: Self-play opponents by default: ``hard``'s search with 3% of its budget, fast enough to
#: generate thousands of positions a minute on one core.
DEFAULT_PLAYERS = "hard:playouts=30,exact_nodes=0;hard:playouts=30,exact_nodes=0"


def run_opponent(args: argparse.Namespace) -> int:
    """Generate, train, write, and print the training report."""
    specs = _player_specs(args.players)
    if isinstance(specs, str):
        print(specs, file=sys.stderr)
        return 2
    if args.games < 1 or args.epochs < 1 or args.hidden < 1:
        print("--games, --epochs and --hidden must be at least 1", file=sys.stderr)
        return 2

    def make_bots() -> list[Bot]:
        return [build_bot(specs[0], ALL_BOTS), build_bot(specs[1], ALL_BOTS)]

    start = time.process_time()
    data = generate(args.games, args.seed, make_bots)
    generated = time.process_time() - start
    model, report = train(data, args.seed, hidden=args.hidden, epochs=args.epochs)
    settings = {
        "games": args.games,
        "players": specs,
        "generate_cpu_s": round(generated, 1),
        **report,
    }
    out = Path(args.out)
    digest = save_model(out, model.arrays, settings)
    load_model(out)  # what was written reads back and matches its digest
    print(json.dumps(settings, indent=1))
    print(f"wrote {out}: sha256 {digest}")
    return 0


#: Self-play players of the value network's data: ``hard``'s search with 15% of its budget.
DEFAULT_VALUE_PLAYERS = "hard:playouts=150,exact_nodes=5000;hard:playouts=150,exact_nodes=5000"
#: Matches per unit of work handed to a worker process (any ``--jobs`` gives the same data).
_CHUNK = 10


def _player_specs(players: str) -> list[str] | str:
    """The two bot specs of ``--players``, or the error to print."""
    specs = [s.strip() for s in players.split(";")]
    if len(specs) != 2:
        return "--players needs two bot specs separated by ';'"
    try:
        for spec in specs:
            build_bot(spec, ALL_BOTS)
    except (ValueError, TypeError) as exc:
        return f"bad --players: {exc}"
    return specs


def _value_chunk(job: tuple[int, int, int, list[str]]) -> Any:
    from tools.training.value_train import generate

    first, count, seed, specs = job

    def make_bots() -> list[Bot]:
        return [build_bot(specs[0], ALL_BOTS), build_bot(specs[1], ALL_BOTS)]

    return generate(count, seed, make_bots, first_game=first)


def _value_data(args: argparse.Namespace, specs: list[str]) -> tuple[Any, dict[str, Any]]:
    """The self-play rows: generated (in ``--jobs`` processes; any number gives the same rows)
    and optionally saved, or read from ``--data``; with what made them."""
    import multiprocessing

    import numpy as np

    from tools.training.value_train import Dataset

    if args.data:
        try:
            with np.load(args.data) as saved:
                data = Dataset(saved["rows"], saved["labels"], saved["groups"])
                made = json.loads(str(saved["made"]))
        except (OSError, KeyError, ValueError) as exc:
            raise SystemExit(f"--data {args.data}: not a saved self-play file ({exc})") from None
        return data, made
    start = time.time()
    jobs = [
        (first, min(_CHUNK, args.games - first), args.seed, specs)
        for first in range(0, args.games, _CHUNK)
    ]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            parts = list(pool.imap(_value_chunk, jobs, chunksize=1))
    else:
        parts = [_value_chunk(job) for job in jobs]
    data = Dataset.join(parts)
    made = {"games": args.games, "players": specs, "data_seed": args.seed}
    if args.save_data:
        np.savez_compressed(
            args.save_data,
            rows=data.rows,
            labels=data.labels,
            groups=data.groups,
            made=np.array(json.dumps(made)),
        )
    made["generate_wall_s"] = round(time.time() - start, 1)
    made["generate_jobs"] = args.jobs
    return data, made


def run_value(args: argparse.Namespace) -> int:
    """Generate (or read ``--data``), train, write, and print the training report."""
    from kva.bots import value_net
    from tools.training.value_train import fit

    specs = _player_specs(args.players)
    if isinstance(specs, str):
        print(specs, file=sys.stderr)
        return 2
    if args.games < 1 or args.epochs < 1 or args.jobs < 1 or not 0.0 <= args.td_lambda <= 1.0:
        print("--games, --epochs and --jobs must be at least 1, --td-lambda in [0, 1]",
              file=sys.stderr)
        return 2
    try:
        data, made = _value_data(args, specs)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    model, report = fit(data, args.seed, epochs=args.epochs, td_lambda=args.td_lambda)
    settings = {**made, **report}
    out = Path(args.out)
    digest = value_net.save_model(out, model.arrays, settings)
    value_net.load_model(out)  # what was written reads back and matches its digest
    print(json.dumps(settings, indent=1))
    print(f"wrote {out}: sha256 {digest}")
    return 0


def _self_play_arguments(parser: argparse.ArgumentParser, games: int, players: str) -> None:
    """The arguments every model's training takes: its self-play and where to write it."""
    parser.add_argument("--games", type=int, default=games, help="self-play matches")
    parser.add_argument("--seed", type=int, default=1, help="same seed, same weights")
    parser.add_argument("--out", required=True, help="weights file to write")
    parser.add_argument("--players", default=players, help="two bot specs, 'a;b'")


def add_parsers(models: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``opponent`` and ``value`` training commands."""
    opponent = models.add_parser(
        "opponent", help="the opponent-hand model hard weights its guesses with"
    )
    _self_play_arguments(opponent, games=250, players=DEFAULT_PLAYERS)
    opponent.add_argument("--hidden", type=int, default=16, help="hidden units")
    opponent.add_argument("--epochs", type=int, default=30, help="passes over the data")
    opponent.set_defaults(func=run_opponent)
    value = models.add_parser(
        "value", help="the hand-value network hard values the moves of its search with"
    )
    _self_play_arguments(value, games=1540, players=DEFAULT_VALUE_PLAYERS)
    value.add_argument("--epochs", type=int, default=6, help="passes over the data per fit")
    value.add_argument(
        "--td-lambda", type=float, default=0.5, help="refit to TD(λ) targets (0: outcomes only)"
    )
    value.add_argument("--data", help="train on rows saved by --save-data instead of playing")
    value.add_argument("--jobs", type=int, default=1, help="worker processes for self-play")
    value.add_argument("--save-data", help="also write the self-play rows to this .npz file")
    value.set_defaults(func=run_value)
