"""What every benchmark's ``main`` does: parse the arguments, run, turn Ctrl-C into exit 130."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence


def run_command(
    parser: argparse.ArgumentParser,
    run: Callable[[argparse.Namespace], int],
    argv: Sequence[str] | None,
) -> int:
    """Parse ``argv`` (the process's arguments when None) with ``parser`` and run; the exit
    status. Ctrl-C (and SIGTERM where the benchmark maps it to Ctrl-C) gives 130 and a closed
    output pipe 0, as ``kva``'s own commands do."""
    args = parser.parse_args(argv)
    try:
        return int(run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
