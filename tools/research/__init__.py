"""Research measurements of kva's bots, run from a checkout: ``python -m tools.research.<name>``.

They measure the shipped search (``kva.bots``, ``kva.analysis``) rather than ship anything:
docs/bots.md gives their commands and figures.
"""
