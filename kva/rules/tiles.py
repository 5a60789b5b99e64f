"""The double-six set as small integers, with the lookup tables the engine runs on.

A tile is an index 0..27; a set of tiles is an int bitmask (bit ``i`` = tile ``i``). Tables are
built once at import, so the hot path only indexes lists and does integer arithmetic.
"""

from __future__ import annotations

from typing import Final

from kva.rules.numbers import parse_ascii_int

#: Number of tiles in the double-six set.
TILE_COUNT: Final = 28
#: Pips on all 28 tiles together.
TOTAL_PIPS: Final = 168
#: The highest number on a half.
MAX_NUMBER: Final = 6

_pairs: list[tuple[int, int]] = [(a, b) for a in range(7) for b in range(a, 7)]

#: Lower half of tile ``i``.
TILE_LOW: Final[tuple[int, ...]] = tuple(a for a, _ in _pairs)
#: Higher half of tile ``i``.
TILE_HIGH: Final[tuple[int, ...]] = tuple(b for _, b in _pairs)
#: Pip count of tile ``i``.
TILE_PIPS: Final[tuple[int, ...]] = tuple(a + b for a, b in _pairs)
#: Whether tile ``i`` is a double.
IS_DOUBLE: Final[tuple[bool, ...]] = tuple(a == b for a, b in _pairs)
#: Bit of tile ``i`` in a tile set.
TILE_BIT: Final[tuple[int, ...]] = tuple(1 << i for i in range(TILE_COUNT))
#: All 28 tiles as a set.
ALL_TILES: Final = (1 << TILE_COUNT) - 1

#: ``TILE_ID[a][b]``: the index of tile a-b (either order).
TILE_ID: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_pairs.index((min(a, b), max(a, b))) for b in range(7)) for a in range(7)
)
#: ``NUMBER_MASK[n]``: the set of the seven tiles that carry number ``n``.
NUMBER_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << i for i, (a, b) in enumerate(_pairs) if n in (a, b)) for n in range(7)
)
#: ``DOUBLE_OF[n]``: the index of the double n-n.
DOUBLE_OF: Final[tuple[int, ...]] = tuple(TILE_ID[n][n] for n in range(7))
#: ``OTHER_HALF[i][n]``: the half of tile ``i`` that is not ``n`` (-1 if ``i`` lacks ``n``).
OTHER_HALF: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple((b if n == a else a if n == b else -1) for n in range(7)) for a, b in _pairs
)
#: Canonical names, low half first: ``"0-0"`` … ``"6-6"``.
TILE_NAME: Final[tuple[str, ...]] = tuple(f"{a}-{b}" for a, b in _pairs)
#: Pip totals of every 28-bit set would be too big a table; this one covers 7-bit chunks.
_CHUNK_PIPS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        sum(TILE_PIPS[base + j] for j in range(7) if (m >> j) & 1 and base + j < TILE_COUNT)
        for m in range(128)
    )
    for base in range(0, TILE_COUNT, 7)
)


def tile_name(tile: int, first: int | None = None) -> str:
    """Write a tile as ``a-b``; with ``first``, that half is written first (``6-4`` on a 6)."""
    low, high = TILE_LOW[tile], TILE_HIGH[tile]
    if first is None or first == low:
        return f"{low}-{high}"
    if first != high:
        raise ValueError(f"tile {low}-{high} has no half {first}")
    return f"{high}-{low}"


def parse_halves(text: str) -> tuple[int, int]:
    """Read ``"a-b"`` into its two halves in the written order; raise ValueError if malformed."""
    if not isinstance(text, str):
        raise ValueError(f"a tile must be a string like '6-4', not {text!r}")
    parts = text.strip().split("-")
    halves = [parse_ascii_int(p) if len(p) == 1 else None for p in parts]
    if len(halves) != 2 or halves[0] is None or halves[1] is None:
        raise ValueError(f"not a tile: {text!r} (expected 'a-b' with halves 0..6)")
    a, b = halves[0], halves[1]
    if a > MAX_NUMBER or b > MAX_NUMBER:
        raise ValueError(f"not a tile: {text!r} (halves go from 0 to 6)")
    return a, b


def parse_tile(text: str) -> int:
    """The index of the tile written ``text`` (either order)."""
    a, b = parse_halves(text)
    return TILE_ID[a][b]


def tiles_of(mask: int) -> list[int]:
    """The tiles of a set, in index order."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(tiles: list[int] | tuple[int, ...]) -> int:
    """The set holding exactly ``tiles``."""
    mask = 0
    for t in tiles:
        mask |= TILE_BIT[t]
    return mask


def pips_of(mask: int) -> int:
    """Total pips on the tiles of a set."""
    return (
        _CHUNK_PIPS[0][mask & 127]
        + _CHUNK_PIPS[1][(mask >> 7) & 127]
        + _CHUNK_PIPS[2][(mask >> 14) & 127]
        + _CHUNK_PIPS[3][(mask >> 21) & 127]
    )


def round_up_to_five(pips: int) -> int:
    """Round up to a multiple of five: 1-5 -> 5, 6 -> 10, 11 -> 15, 16 -> 20; 0 stays 0."""
    return -(-pips // 5) * 5
