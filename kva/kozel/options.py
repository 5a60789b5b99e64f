"""A Kozel table's options: the fish rule, the pair game and the losing score (kozel.md §5, §6).

Chosen when the table is created and shown before anyone sits down; a match never changes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

#: ``all``: «рыба на всех», every side scores its count; ``one``: «рыба на одного».
FISH_RULES: Final = ("all", "one")
#: How many players a Kozel table seats.
SEAT_COUNTS: Final = (2, 3, 4)
#: The losing score: whoever reaches it is the козёл.
LIMIT: Final = 101


class BadOptions(ValueError):
    """Options the rules do not allow (an unknown fish rule, pairs at fewer than four, ...)."""


@dataclass(frozen=True, slots=True)
class Options:
    """The options of one match.

    >>> Options()
    Options(fish='all', pairs=False, limit=101)
    >>> Options(fish="one", pairs=True).sides(4)
    ((0, 2), (1, 3))
    >>> Options(pairs=True).sides(3)
    Traceback (most recent call last):
    ...
    kva.kozel.options.BadOptions: the pair game needs four players, not 3
    """

    fish: str = "all"
    pairs: bool = False
    limit: int = LIMIT

    def __post_init__(self) -> None:
        if self.fish not in FISH_RULES:
            raise BadOptions(f"fish must be 'all' or 'one', not {self.fish!r}")
        if not isinstance(self.pairs, bool):
            raise BadOptions(f"pairs must be true or false, not {self.pairs!r}")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise BadOptions(f"the limit must be a positive integer, not {self.limit!r}")

    @classmethod
    def from_json(cls, data: Any) -> Options:
        """Options as a client or a record sends them: ``{"fish": "one", "pairs": true}``
        (every key optional; ``limit`` too). BadOptions says what is wrong with anything else.

        >>> Options.from_json({"fish": "one", "pairs": True})
        Options(fish='one', pairs=True, limit=101)
        >>> Options.from_json({"fish": "one", "colour": "red"})
        Traceback (most recent call last):
        ...
        kva.kozel.options.BadOptions: unknown option 'colour': fish, pairs or limit
        """
        if not isinstance(data, dict):
            raise BadOptions("options must be an object")
        unknown = sorted(set(data) - {"fish", "pairs", "limit"})
        if unknown:
            raise BadOptions(f"unknown option {unknown[0]!r}: fish, pairs or limit")
        return cls(fish=data.get("fish", "all"), pairs=data.get("pairs", False),
                   limit=data.get("limit", LIMIT))

    def sides(self, seats: int) -> tuple[tuple[int, ...], ...]:
        """Who scores together at ``seats`` players: each alone, or partners sitting opposite."""
        if seats not in SEAT_COUNTS:
            raise BadOptions(f"Kozel is for 2, 3 or 4 players, not {seats!r}")
        if self.pairs:
            if seats != 4:
                raise BadOptions(f"the pair game needs four players, not {seats}")
            return ((0, 2), (1, 3))
        return tuple((p,) for p in range(seats))

    def to_json(self) -> dict[str, object]:
        """The record's ``options`` object (the pair game shows in ``sides``)."""
        return {"fish": self.fish, "limit": self.limit}
