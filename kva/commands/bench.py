"""``kva bench``: benchmarks.

``kva bench engine`` is part of the package (:mod:`kva.commands.bench_engine`). The others are
development tools that live in the repository, not in the installed package: ``tools/bench`` of
a checkout. ``kva bench <name> …`` hands its arguments on to ``tools.bench.<name>`` when that is
importable (from a checkout's root: ``python -m kva bench server …``, the same as
``python -m tools.bench.server …``); otherwise it says where to get the tool and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

from kva.commands import bench_engine

#: The benchmarks in the repository's ``tools/bench``, with what ``kva bench --help`` says of each.
TOOLS: dict[str, str] = {
    "fair": "kva-fair/1: position uniformity and cost per deal",
    "server": "whole matches between WebSocket clients against real servers",
    "auth": "honest login latency under a table-password guessing attack",
    "coins": "the ledger's cost to starting and finishing a match",
    "botapi": "bot API action latency against the WebSocket's",
}
#: Exit status when the tool is not there to run (as for a usage error).
MISSING = 2


def load_tool(name: str) -> ModuleType | None:
    """The module ``tools.bench.<name>``, or None when no ``tools`` package with it is on the
    path (an installed kva without a checkout, or a command run from elsewhere)."""
    module = f"tools.bench.{name}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name in ("tools", "tools.bench", module):
            return None
        raise


def checkout_root() -> Path | None:
    """The checkout this kva's code is in, when it has the tools (an editable install)."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "tools" / "bench" / "__init__.py").is_file() else None


def missing_tool_message(name: str) -> str:
    """What to do to run ``kva bench <name>`` where its tool cannot be imported."""
    command = f"{Path(sys.executable).name} -m tools.bench.{name} …"
    root = checkout_root()
    if root is None:
        where = f"Clone kva's repository and run it from the checkout's root:\n  {command}"
    else:
        # The ``kva`` script does not put the working directory on the path; ``-m`` does.
        where = (f"This kva runs from the checkout {root}: run the tool there with Python's -m, "
                 f"which puts the working directory on the path (the kva script does not):\n"
                 f"  cd {root} && {sys.executable} -m tools.bench.{name} …")
    return (f"kva bench {name}: this benchmark is a development tool in tools/bench/ of kva's "
            f"repository, not part of the installed package.\n{where}\n"
            f"(python -m kva bench {name} … from the same place runs it too.)")


def run_tool(args: argparse.Namespace) -> int:
    """Run ``tools.bench.<args.bench>`` with the arguments ``kva`` did not parse itself."""
    tool = load_tool(args.bench)
    if tool is None:
        print(missing_tool_message(args.bench), file=sys.stderr)
        return MISSING
    return int(tool.main(args.forwarded, prog=f"kva bench {args.bench}"))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva bench engine`` and the repository's benchmarks under ``kva bench``."""
    parser = subparsers.add_parser(
        "bench", help="benchmarks",
        description="engine ships with kva; the others are development tools in tools/bench of "
                    "a checkout of kva's repository: run them from the checkout's root")
    which = parser.add_subparsers(dest="bench", metavar="WHAT")
    which.required = True
    bench_engine.add_parser(which)
    for name, summary in TOOLS.items():
        # The tool parses its own arguments (--help included): kva hands them all on.
        tool = which.add_parser(name, help=summary, add_help=False)
        tool.set_defaults(func=run_tool, forwards_arguments=True)
