"""The settings of the play service that may change while it runs (tests, the bench server),
each kept by the part that uses it."""

from __future__ import annotations

from kva.service.play.live import LiveStore
from kva.service.play.seeds import Seeds
from kva.service.play.tables import Tables
from kva.service.play.turns import Turns


class PlaySettings:
    """The play service's settings, read and changed in its parts."""

    _store: LiveStore
    _seeds: Seeds
    _tables: Tables
    _turns: Turns

    @property
    def forced_delay(self) -> float:
        """Seconds before a forced draw or pass is applied for a player."""
        return self._turns.forced_delay

    @forced_delay.setter
    def forced_delay(self, value: float) -> None:
        self._turns.forced_delay = value

    @property
    def bot_delay(self) -> float:
        """Seconds before a bot plays."""
        return self._turns.bot_delay

    @bot_delay.setter
    def bot_delay(self, value: float) -> None:
        self._turns.bot_delay = value

    @property
    def clock_presets(self) -> dict[str, tuple[int, int]]:
        """Each clock preset's (seconds a move, seconds of reserve) for new matches."""
        return self._tables.clock_presets

    @property
    def first_move_timeout(self) -> float:
        """Seconds a player of a new match with no clock has on their turns until their
        first move (``KVA_FIRST_MOVE_TIMEOUT``)."""
        return self._tables.first_move_s

    @first_move_timeout.setter
    def first_move_timeout(self, value: float) -> None:
        if value <= 0:
            raise ValueError("the first-move limit must be > 0")
        self._tables.first_move_s = value

    @property
    def seed_wait(self) -> float:
        """Seconds a seated player's browser has to send its client seed before the server
        chooses it (0: at once, for callers that never send one)."""
        return self._seeds.wait

    @seed_wait.setter
    def seed_wait(self, value: float) -> None:
        self._seeds.wait = value

    @property
    def cache_size(self) -> int:
        """How many matches stay in memory."""
        return self._store.cache_size

    @cache_size.setter
    def cache_size(self, value: int) -> None:
        self._store.cache_size = value
