"""Benchmarks of kva, run from a checkout: ``python -m tools.bench.<name> …``.

``fair``, ``server``, ``auth``, ``coins`` and ``botapi`` are also ``kva bench <name> …``
(:mod:`kva.commands.bench` hands their arguments on); the others are micro-benchmarks run
only as modules. docs/performance.md gives the commands and their figures.
"""
