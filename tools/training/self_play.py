"""The seeded matches the training commands play (``python -m tools.training opponent`` and
``value``)."""

from __future__ import annotations

import random
from typing import Literal

from kva.rules import TARGETS, Match


def seeded_match(rng: random.Random, bazaar_share: float) -> tuple[Match, list[random.Random]]:
    """A match drawn from ``rng`` (target from :data:`TARGETS`, "pass only" with chance
    ``bazaar_share``) and the random sources of its two seats' bots, in that order, so a
    training run's matches follow from its seed alone."""
    bazaar: Literal["draw", "pass-only"] = "pass-only" if rng.random() < bazaar_share else "draw"
    match = Match(rng.choice(TARGETS), bazaar, random.Random(rng.getrandbits(32)))
    return match, [random.Random(rng.getrandbits(32)) for _ in (0, 1)]
