"""``python -m tools.training``: see :mod:`tools.training.cli`."""

from __future__ import annotations

import sys

from tools.training.cli import main

if __name__ == "__main__":
    sys.exit(main())
