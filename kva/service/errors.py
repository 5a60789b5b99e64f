"""What the play service refuses, with the codes of the WebSocket contract."""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "bad_json", "unknown_type", "illegal", "not_your_turn", "stale", "too_big", "not_seated",
    "over", "bad_seed", "revoked", "too_late_to_abort",
]


class PlayError(Exception):
    """An action refused; nothing changed. ``code`` is one of the contract's error codes."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message


class NotFound(LookupError):
    """No such match or table."""


class WrongPassword(PermissionError):
    """A closed table's password was missing or wrong."""


class RatedOnly(PermissionError):
    """A guest tried to sit at a rated table (rated matches are for registered players)."""
