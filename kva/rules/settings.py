"""The settings a match is played under, as one validated value.

Every place that takes a target, a bazaar rule or the rated flag from outside (a form, a query
string, a WebSocket, a record, the CLI) builds a :class:`MatchSettings` and lets it say what is
wrong; nothing else re-checks them.

>>> MatchSettings.parse("175", "pass-only", "1")
MatchSettings(target=175, bazaar='pass-only', rated=True)
>>> MatchSettings.parse("100", "draw")
Traceback (most recent call last):
...
kva.rules.settings.BadSettings: target: must be one of 75, 175, 255, 355
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from kva.rules.numbers import parse_ascii_int

TARGETS: Final = (75, 175, 255, 355)
BazaarRule = Literal["draw", "pass-only"]
BAZAAR_RULES: Final[tuple[BazaarRule, ...]] = ("draw", "pass-only")


class BadSettings(ValueError):
    """A setting that is not one kva plays. ``field`` names it (``target``, ``bazaar``,
    ``rated``); the message says what is allowed."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """Target (75, 175, 255 or 355), bazaar rule (``draw`` or ``pass-only``) and whether the
    match is rated. Constructing one checks it."""

    target: int = 175
    bazaar: BazaarRule = "draw"
    rated: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or self.target not in TARGETS:
            raise BadSettings("target", "must be one of " + ", ".join(map(str, TARGETS)))
        if self.bazaar not in BAZAAR_RULES:
            raise BadSettings("bazaar", "must be 'draw' or 'pass-only'")
        if not isinstance(self.rated, bool):
            raise BadSettings("rated", "must be true or false")

    @classmethod
    def parse(cls, target: object, bazaar: object = "draw", rated: object = False) -> MatchSettings:
        """Settings from loose input: a target as int or digits, a bazaar name, and a rated
        flag as bool or ``"1"``/``"true"``/``"on"`` (``""``, ``"0"``, ``"false"``, None: no).
        Raises :class:`BadSettings` naming the first bad field."""
        if isinstance(target, str):
            number = parse_ascii_int(target, max_digits=4)
            target = target if number is None else number
        if isinstance(target, bool) or not isinstance(target, int):
            raise BadSettings("target", "must be one of " + ", ".join(map(str, TARGETS)))
        if not isinstance(bazaar, str) or bazaar not in BAZAAR_RULES:
            raise BadSettings("bazaar", "must be 'draw' or 'pass-only'")
        if isinstance(rated, str):
            flag = rated.strip().lower()
            if flag in ("1", "true", "on", "yes"):
                rated = True
            elif flag in ("", "0", "false", "off", "no"):
                rated = False
        elif rated is None:
            rated = False
        if not isinstance(rated, bool):
            raise BadSettings("rated", "must be true or false")
        return cls(target, bazaar, rated)
