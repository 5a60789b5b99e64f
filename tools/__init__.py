"""Development tools of kva's repository: benchmarks (:mod:`tools.bench`), research
measurements (:mod:`tools.research`), and the bots' training and yardsticks
(:mod:`tools.training`).

They are not part of the installed package (``pip install .`` ships ``kva`` alone): run them
from the root of a checkout, where the working directory puts ``tools`` on Python's path, as
``python -m tools.bench.server …`` (or through ``python -m kva bench server …``).
"""
