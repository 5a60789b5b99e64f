"""Helpers shared by the rules tests: positions from tile names, seeded self-play, records."""

from __future__ import annotations

import copy
import random
from typing import Any

from kva.rules import DRAW, Deal, Match, code_tile, open_code, parse_tile, play_code, write_record
from kva.rules.codes import END_INDEX, OPEN_BASE
from kva.rules.engine import HandState
from kva.rules.tiles import TILE_COUNT, TILE_NAME, TILE_PIPS, mask_of, tiles_of

ALL_NAMES: list[str] = list(TILE_NAME)


def t(name: str) -> int:
    """A tile by name."""
    return parse_tile(name)


def row(text: str) -> list[str]:
    """Tile names from a space-separated row: ``row("6-6 5-5")``."""
    return text.split()


def tiles(names: list[str]) -> list[int]:
    return [parse_tile(n) for n in names]


def mask(names: list[str]) -> int:
    return mask_of(tiles(names))


def names_of(mask_: int) -> set[str]:
    return {TILE_NAME[i] for i in tiles_of(mask_)}


def play(name: str, end: str) -> int:
    """The code of placing tile ``name`` on end ``end`` ('L', 'R', 'U', 'D')."""
    return play_code(parse_tile(name), END_INDEX[end])


def opening(name: str) -> int:
    """The code of opening with ``name`` as written: its first half becomes end L."""
    a = int(name[0])
    tile = parse_tile(name)
    return open_code(tile, flipped=a != min(int(name[0]), int(name[2])))


def full_deal(
    hand0: list[str],
    hand1: list[str],
    bazaar_head: list[str] | None = None,
    protected: list[str] | None = None,
) -> Deal:
    """A complete 7/7/14 deal: the named hands, the bazaar starting with ``bazaar_head`` and
    ending with ``protected``; the remaining tiles fill the middle in index order."""
    head = tiles(bazaar_head or [])
    tail = tiles(protected or [])
    used = set(tiles(hand0)) | set(tiles(hand1)) | set(head) | set(tail)
    middle = [i for i in range(TILE_COUNT) if i not in used]
    bazaar = head + middle + tail
    deal = Deal((tuple(tiles(hand0)), tuple(tiles(hand1))), tuple(bazaar))
    assert len(deal.hands[0]) == 7 and len(deal.hands[1]) == 7 and len(bazaar) == 14
    assert len(set(deal.hands[0]) | set(deal.hands[1]) | set(bazaar)) == TILE_COUNT
    return deal


def state_of(
    deal: Deal, opener: int, *, pass_only: bool = False, forced: str | None = None
) -> HandState:
    """A hand state for ``deal`` (a later hand unless ``forced`` names the forced double)."""
    return HandState.from_deal(
        deal, opener, pass_only=pass_only, forced_opening=parse_tile(forced) if forced else -1
    )


def endgame(
    hand0: list[str],
    hand1: list[str],
    opener: int,
    *,
    bazaar: list[str] | None = None,
    pass_only: bool = True,
) -> HandState:
    """A small position: only the named tiles exist in hands and bazaar (the others count as
    already on the board). A later hand, so the opener may open with any tile."""
    return HandState((mask(hand0), mask(hand1)), tiles(bazaar or []), opener, pass_only=pass_only)


def random_match(seed: int, target: int = 75, bazaar: str = "draw") -> Match:
    """A whole match of seeded random self-play (each move uniform among the legal codes)."""
    chooser = random.Random(seed * 7919 + 1)
    match = Match(target, bazaar, random.Random(seed))  # type: ignore[arg-type]
    while not match.over:
        match.apply(chooser.choice(match.legal_codes()), player=match.turn)
    return match


def random_record(seed: int, target: int = 75, bazaar: str = "draw") -> dict[str, Any]:
    return write_record(random_match(seed, target, bazaar))


def pips(names: list[str]) -> int:
    return sum(TILE_PIPS[parse_tile(n)] for n in names)


def placed_tile(code: int) -> int | None:
    return code_tile(code) if code < DRAW else None


def is_opening(code: int) -> bool:
    return OPEN_BASE <= code < DRAW


def clone(doc: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(doc)
