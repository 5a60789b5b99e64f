"""Whole numbers typed by people or read from settings.

``str.isdigit`` accepts Unicode digits: ``int()`` refuses some of them (``²``: a 500 where a
refusal belongs) and silently converts others (``٣``, ``１``), so every form field, query
string, frame, body and setting parses its numbers here, ASCII digits only."""

from __future__ import annotations

#: A bound on the digits read by default, so a huge value never reaches ``int()``.
MAX_DIGITS = 18


def parse_ascii_int(text: str, *, max_digits: int = MAX_DIGITS) -> int | None:
    """``text`` (surrounding blanks trimmed) as a non-negative int when it is 1 to
    ``max_digits`` ASCII digits; None for anything else (signs, exponents, underscores,
    Unicode digits, empty)."""
    text = text.strip()
    if not 0 < len(text) <= max_digits or not text.isascii() or not text.isdigit():
        return None
    return int(text)
