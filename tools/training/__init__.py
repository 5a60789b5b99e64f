"""Training and measurement of kva's bots, run from a checkout: ``python -m tools.training …``.

Not product: the installed package ships the bots players meet and the weights of their learned
models (``kva/bots/models``); what fits those weights by self-play (``opponent``, ``value``) and
the frozen yardsticks ``hard`` is measured against (``hard-v1``, ``hard-v2``, ``seer``, played
by this package's ``tournament``) live here. docs/learned-model.md and docs/value-network.md
give the commands and what they measured.
"""
