"""``kva train``: fit a learned model by self-play and write its weights file.

``kva train opponent --games N --seed S --out FILE`` plays ``N`` seeded matches between two bots
(``--players``, default two ``hard`` with a small budget), records at every real choice the
deciding player's features of each unseen tile (from its view only) and whether the tile is in
the opponent's hand (known to this generator alone), fits the opponent-hand model in numpy and
writes it with its training settings and a SHA-256 digest (:mod:`kva.bots.opponent_model`).
Same arguments, same weights (the file also records the CPU seconds each step took).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kva.bots.base import Bot
from kva.bots.opponent_model import load_model, save_model
from kva.bots.opponent_train import generate, train

#: Self-play opponents by default: ``hard``'s search with 3% of its budget, fast enough to
#: generate thousands of positions a minute on one core.
DEFAULT_PLAYERS = "hard:playouts=30,exact_nodes=0;hard:playouts=30,exact_nodes=0"


def run_opponent(args: argparse.Namespace) -> int:
    """Generate, train, write, and print the training report."""
    from kva.commands.tournament import build_bot

    specs = [s.strip() for s in args.players.split(";")]
    if len(specs) != 2:
        print("--players needs two bot specs separated by ';'", file=sys.stderr)
        return 2
    try:
        for spec in specs:
            build_bot(spec)
    except (ValueError, TypeError) as exc:
        print(f"bad --players: {exc}", file=sys.stderr)
        return 2
    if args.games < 1 or args.epochs < 1 or args.hidden < 1:
        print("--games, --epochs and --hidden must be at least 1", file=sys.stderr)
        return 2

    def make_bots() -> list[Bot]:
        return [build_bot(specs[0]), build_bot(specs[1])]

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


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva train``."""
    parser = subparsers.add_parser("train", help="fit a learned bot model by self-play")
    models = parser.add_subparsers(dest="model", metavar="MODEL")
    models.required = True
    opponent = models.add_parser(
        "opponent", help="the opponent-hand model hard weights its guesses with"
    )
    opponent.add_argument("--games", type=int, default=250, help="self-play matches")
    opponent.add_argument("--seed", type=int, default=1, help="same seed, same weights")
    opponent.add_argument("--out", required=True, help="weights file to write")
    opponent.add_argument("--players", default=DEFAULT_PLAYERS, help="two bot specs, 'a;b'")
    opponent.add_argument("--hidden", type=int, default=16, help="hidden units")
    opponent.add_argument("--epochs", type=int, default=30, help="passes over the data")
    opponent.set_defaults(func=run_opponent)
