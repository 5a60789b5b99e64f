"""The subcommands of ``kva``: each module registers itself with ``add_parser(subparsers)``."""
