"""Action codes: every action of the game as one small int, so the engine never allocates.

- a placement of tile ``t`` on end ``e`` (L=0, R=1, U=2, D=3) is ``t * 4 + e`` (0..111);
- the opening tile ``t`` is ``OPEN_BASE + 2 * t``, plus 1 when written high half first
  (the first written half becomes end ``L``);
- ``DRAW`` and ``PASS``.
"""

from __future__ import annotations

from typing import Final, Literal

L: Final = 0
R: Final = 1
U: Final = 2
D: Final = 3
END_NAMES: Final = ("L", "R", "U", "D")
EndName = Literal["L", "R", "U", "D"]
END_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(END_NAMES)}

OPEN_BASE: Final = 112
DRAW: Final = 200
PASS: Final = 201


def play_code(tile: int, end: int) -> int:
    """The code of placing ``tile`` on ``end``."""
    return (tile << 2) | end


def open_code(tile: int, flipped: bool = False) -> int:
    """The code of opening with ``tile`` (``flipped``: its high half becomes end L)."""
    return OPEN_BASE + 2 * tile + (1 if flipped else 0)


def code_tile(code: int) -> int:
    """The tile a placement code places."""
    return (code - OPEN_BASE) >> 1 if code >= OPEN_BASE else code >> 2
