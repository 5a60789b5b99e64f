"""``python -m kva`` is the ``kva`` command."""

import sys

from kva.cli import main

sys.exit(main())
