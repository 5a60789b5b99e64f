"""The ``kva`` command: one entry point, one module per subcommand (see ``COMMAND_MODULES``)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Modules that each define ``add_parser(subparsers)`` and set ``func`` on their parser.
COMMAND_MODULES: tuple[str, ...] = (
    "kva.commands.record",
    "kva.commands.selfplay",
    "kva.commands.bench",
    "kva.commands.serve",
    "kva.commands.tournament",
    "kva.commands.coins",
    "kva.commands.analyse",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="kva", description="kva: Georgian domino and Kozel, online."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kva`` with ``argv``; return the exit status.

    A subcommand that sets ``forwards_arguments`` (``kva bench server`` and the other tools)
    gets the arguments ``kva`` does not know as ``args.forwarded``, to hand on to the tool's
    own parser; for every other subcommand they are an error, as with ``parse_args``."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "forwards_arguments", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.forwarded = unknown
    try:
        status = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
