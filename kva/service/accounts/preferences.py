"""A player's preferences at the table: sound, motion, theme, move confirmation, notifications,
board size.

Everyone keeps them in the browser (``localStorage``, read before the page paints by
``static/prefs.js``); a registered player's are also stored with the account
(``users.preferences``, compact JSON), so they follow the player to another device. Language
has its own cookie and ``users.locale``. Unknown keys and values are refused, never stored.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.storage import accounts as account_store
from kva.storage.models import User

#: Each preference and the values it may take; the first is the default.
CHOICES: dict[str, tuple[str, ...]] = {
    # Browsers play sound only after a gesture; off until the player turns it on.
    "sound": ("off", "on"),
    # "system" follows the device's prefers-reduced-motion; "off" never animates.
    "motion": ("system", "off"),
    "theme": ("system", "light", "dark"),
    # The chosen end chosen a second time (or Enter) before a move is sent.
    "confirm": ("off", "on"),
    # A system notification for "your turn" while the tab is hidden (asks for permission).
    "notify": ("off", "on"),
    # The board's tiles: "normal" keeps them readable on a phone (the felt scrolls a long
    # line), "small" always fits the whole line on the felt, "large" is bigger still.
    "board": ("normal", "small", "large"),
}


class PreferenceError(ValueError):
    """A preference that does not exist or a value it cannot take."""


@dataclass(frozen=True, slots=True)
class Preferences:
    sound: str = "off"
    motion: str = "system"
    theme: str = "system"
    confirm: str = "off"
    notify: str = "off"
    board: str = "normal"

    def with_changes(self, changes: dict[str, Any]) -> Preferences:
        """These preferences with ``changes`` applied; PreferenceError on any bad key or value
        (then nothing is applied)."""
        known = {f.name for f in fields(self)}
        for key, value in changes.items():
            if key not in known:
                raise PreferenceError(f"unknown preference {key!r}")
            if value not in CHOICES[key]:
                raise PreferenceError(f"{key} must be one of {', '.join(CHOICES[key])}")
        return replace(self, **changes)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


DEFAULT = Preferences()


def of_user(user: User | None) -> Preferences:
    """``user``'s stored preferences (the defaults for a guest, a visitor, or a stored value
    that no longer parses: an old key is dropped rather than breaking every page)."""
    raw = getattr(user, "preferences", None)
    if not raw:
        return DEFAULT
    try:
        stored = json.loads(raw)
    except ValueError:
        return DEFAULT
    if not isinstance(stored, dict):
        return DEFAULT
    valid = {k: v for k, v in stored.items() if k in CHOICES and v in CHOICES[k]}
    return DEFAULT.with_changes(valid)


async def save(sessions: async_sessionmaker[AsyncSession], user: User,
               changes: dict[str, Any]) -> Preferences:
    """Apply ``changes`` to a registered ``user``'s preferences and store them, committed.
    PreferenceError for a bad change; nothing is written then."""
    prefs = of_user(user).with_changes(changes)
    async with sessions() as session, session.begin():
        await account_store.set_preferences(session, user.id, prefs.to_json())
    return prefs
