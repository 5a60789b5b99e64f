"""What a match may be staked for, and the error of every coin refusal.

A stake is one of the match's terms, checked where the match is created (the play core) as
well as by the coin ledger (:mod:`kva.service.coins.wallets`), so it lives apart from the ledger:
the
play core depends on this, never on the coins feature itself.
"""

from __future__ import annotations

from kva.rules import parse_ascii_int

#: The stakes a table may be played for, per player (0: no stake).
STAKES: tuple[int, ...] = (10, 50, 100, 500, 1000)


class CoinError(ValueError):
    """A coin operation refused; nothing moved. ``code``: ``bad_stake``, ``guest``,
    ``bot_stake``, ``insufficient``, ``topup_claimed``, ``topup_above``."""

    def __init__(self, code: str, message: str, *, user_id: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: The player who could not cover a stake (``insufficient``).
        self.user_id = user_id


def check_stake(raw: object) -> int:
    """The stake ``raw`` (a form value or a number) as an int: 0 (none) or one of
    :data:`STAKES`; CoinError ``bad_stake`` for anything else."""
    if raw is None or raw == "":
        return 0
    if isinstance(raw, bool):
        raise CoinError("bad_stake", "choose a stake of 10, 50, 100, 500 or 1,000 coins")
    if isinstance(raw, int):
        value = raw
    else:
        parsed = parse_ascii_int(str(raw), max_digits=6)
        if parsed is None:
            raise CoinError("bad_stake", "choose a stake of 10, 50, 100, 500 or 1,000 coins")
        value = parsed
    if value != 0 and value not in STAKES:
        raise CoinError("bad_stake", "choose a stake of 10, 50, 100, 500 or 1,000 coins")
    return value
