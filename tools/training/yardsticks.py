"""The measurement bots: frozen yardsticks ``hard`` is measured against, never offered to
players, and the bots the training tools choose from (kva's shipped ones and these)."""

from __future__ import annotations

from kva.bots import BOTS, BotFactory
from tools.training.hard_v1 import HardV1Bot, SeerBot
from tools.training.hard_v2 import HardV2Bot

#: The yardsticks by name (``seer`` is shown its opponent's hand by the tournament).
YARDSTICKS: dict[str, BotFactory] = {
    "seer": SeerBot,
    "hard-v1": HardV1Bot,
    "hard-v2": HardV2Bot,
}
#: What this package's tournament and self-play choose from: kva's bots and the yardsticks.
ALL_BOTS: dict[str, BotFactory] = {**BOTS, **YARDSTICKS}
