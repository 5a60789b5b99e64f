"""The clock presets' times (``KVA_CLOCK_PRESETS``; docs/rules.md, "Time control") and their
parser; :mod:`kva.service.play.clock` runs the clocks."""

from __future__ import annotations

from typing import Final

from kva.rules import parse_ascii_int

#: Name → (per-move seconds, reserve seconds), unless ``KVA_CLOCK_PRESETS`` says otherwise
#: (:func:`parse_presets`). ``none``: no clock at all.
PRESETS: Final[dict[str, tuple[int, int]]] = {
    "blitz": (10, 60),
    "standard": (20, 120),
    "relaxed": (45, 300),
}

#: The seconds a preset may give a move, and its reserve (``KVA_CLOCK_PRESETS``): beyond a day
#: a clock no longer limits anything, and a timer set for 10**30 seconds cannot be armed.
MOVE_RANGE: Final = (1, 3600)
RESERVE_RANGE: Final = (0, 86400)


def parse_presets(text: str) -> dict[str, tuple[int, int]]:
    """The presets ``KVA_CLOCK_PRESETS`` sets, e.g. ``blitz=10+60,standard=20+120``: each
    named preset gets that many seconds a move plus that many of reserve; the others keep
    :data:`PRESETS`' times. ValueError says what is wrong."""
    presets = dict(PRESETS)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, times = item.partition("=")
        move, plus, reserve = times.partition("+")
        name = name.strip()
        if name not in PRESETS:
            raise ValueError(f"unknown clock preset {name!r} (one of {', '.join(PRESETS)})")
        a_move, of_reserve = parse_ascii_int(move), parse_ascii_int(reserve)
        if (not plus or a_move is None or of_reserve is None
                or not MOVE_RANGE[0] <= a_move <= MOVE_RANGE[1]
                or not RESERVE_RANGE[0] <= of_reserve <= RESERVE_RANGE[1]):
            raise ValueError(f"clock preset {name!r}: seconds a move ({MOVE_RANGE[0]} to "
                             f"{MOVE_RANGE[1]}) + seconds of reserve ({RESERVE_RANGE[0]} to "
                             f"{RESERVE_RANGE[1]}), as in standard=20+120")
        presets[name] = (a_move, of_reserve)
    return presets
