"""``python -m tools.training``: fit the learned bot models by self-play (``opponent``,
``value``), and play tournaments that may name the yardsticks (``tournament``, the options of
``kva tournament``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from kva.commands import tournament
from tools.bench.command import run_command
from tools.training import train
from tools.training.yardsticks import ALL_BOTS


def run_tournament(args: argparse.Namespace) -> int:
    """``kva tournament`` with the yardsticks among its bots."""
    return tournament.run(args, ALL_BOTS)


def build_parser(prog: str = "python -m tools.training") -> argparse.ArgumentParser:
    """The parser of every training command."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Train kva's learned bot models; measure bots against the "
                               "frozen yardsticks (hard-v1, hard-v2, seer).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    train.add_parsers(commands)
    measure = commands.add_parser(
        "tournament", help="kva tournament, with the yardsticks hard-v1, hard-v2 and seer")
    tournament.add_arguments(measure)
    measure.set_defaults(func=run_tournament)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m tools.training") -> int:
    """Run a training command with ``argv``; the exit status."""
    return run_command(build_parser(prog), lambda args: int(args.func(args)), argv)
