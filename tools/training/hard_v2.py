"""``hard-v2``: the ``hard`` bot as it was before the learned opponent model, frozen for
measurement.

A measurement bot (``python -m tools.training tournament`` only, never offered to players).
Rather than a copy of the code it is a fixed configuration of :class:`~kva.bots.hard.HardBot`:
every setting that shapes a decision is spelled out here, so changing a default of
:class:`~kva.bots.hard_config.HardConfig` cannot move it, and a test pins its decisions for
fixed seeds, so a change to the shared search or playout code that would move it is caught.
Settings may still be overridden for measurement (``hard-v2:playouts=300``).
"""

from __future__ import annotations

from typing import ClassVar

from kva.bots.hard import HardBot
from kva.bots.hard_config import HardConfig
from kva.bots.knowledge import BETA, UNIFORM_SHARE

#: Every decision-shaping setting of ``hard`` as it was frozen.
HARD_V2 = HardConfig(
    playouts=1000,
    candidates=2,
    max_seconds=1.2,
    near=90,
    noise=0.35,
    beta=BETA,
    uniform_share=UNIFORM_SHARE,
    exact_nodes=30_000,
    exact_guesses=48,
    exact_tiles=10,
    threat=0.7,
    lookahead=4,
    block=0.0,
    opp_model=0.0,
    value_net=0.0,
    value_net_near=0.0,
    value_cut=0,
)


class HardV2Bot(HardBot):
    """``hard`` before the learned opponent model, frozen: :data:`HARD_V2` unless told other."""

    name = "hard-v2"
    preset: ClassVar[HardConfig] = HARD_V2
