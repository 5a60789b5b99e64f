"""Provably fair Kozel deals: kva-fair/1 for 2, 3 or 4 seats (docs/fairness.md).

The HMAC block holds every seat's client seed in seat order, so each human seat's seed counts;
the deal of hand ``k`` is redeal ``n`` = 0, and each deal the redeal rule voids is followed by
redeal ``n + 1`` of the same hand. The shuffled order gives positions 0-6 to seat 0, 7-13 to seat
1, and so on; the rest is the bazaar in draw order.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from kva.kozel.deal import Deal, Voided
from kva.rules import (
    SCHEME,
    FairProblem,
    RecordError,
    check_client_seed,
    commitment,
    new_server_seed,
    read_fair_meta,
    shuffled_order,
)
from kva.rules.engine import TILE_NAME


class KozelFairDealer:
    """A Kozel match's deal source under kva-fair/1: ``Match(n, dealer=KozelFairDealer(...))``.

    It holds the secret server seed: never show it, or :meth:`meta` with ``reveal=True``, to
    anyone before the match is over.

    >>> dealer = KozelFairDealer(bytes(32), ["00" * 16, "11" * 16, "22" * 16])
    >>> [len(h) for h in dealer(0, 0).hands], len(dealer(0, 0).bazaar)
    ([7, 7, 7], 7)
    >>> dealer(0, 0) == dealer(0, 1)
    False
    """

    __slots__ = ("server_seed", "client_seeds")

    def __init__(self, server_seed: bytes | str, client_seeds: Sequence[str]) -> None:
        self.server_seed = bytes.fromhex(server_seed) if isinstance(server_seed, str) \
            else bytes(server_seed)
        commitment(self.server_seed)  # checks its form
        self.client_seeds = tuple(check_client_seed(seed) for seed in client_seeds)
        if not 2 <= len(self.client_seeds) <= 4:
            raise ValueError(f"Kozel needs a client seed per seat (2 to 4), "
                             f"found {len(self.client_seeds)}")

    @classmethod
    def new(cls, client_seeds: Sequence[str], rng: Any = secrets) -> KozelFairDealer:
        """A dealer with a fresh server seed (``rng`` is the ``secrets`` module unless a test
        passes an object with ``token_bytes``)."""
        return cls(new_server_seed(rng), client_seeds)

    def __call__(self, hand: int, redeal: int) -> Deal:
        order = shuffled_order(self.server_seed, self.client_seeds, hand, redeal)
        return Deal.from_order(order, len(self.client_seeds))

    def meta(self, *, reveal: bool) -> dict[str, Any]:
        """``meta.fair`` of the record: the server seed only once the match is over."""
        fair: dict[str, Any] = {"scheme": SCHEME, "commitment": commitment(self.server_seed),
                                "client_seeds": list(self.client_seeds)}
        if reveal:
            fair["server_seed"] = self.server_seed.hex()
        return fair

    def __repr__(self) -> str:  # never print the secret
        return (f"KozelFairDealer(commitment={commitment(self.server_seed)!r}, "
                f"client_seeds={self.client_seeds!r})")


def _difference(dealt: Deal, derived: Deal) -> str | None:
    """Where a record's deal parts from the derived one (None when they are the same deal:
    the same tiles in each hand, in any order, and the same bazaar in the same order)."""
    for p, (got, want) in enumerate(zip(dealt.hands, derived.hands, strict=True)):
        extra = sorted(set(got) - set(want))
        if extra:
            missing = sorted(set(want) - set(got))
            return (f"seat {p} holds {' '.join(TILE_NAME[t] for t in extra)} where it derives "
                    f"{' '.join(TILE_NAME[t] for t in missing)}")
    for i, (got_tile, want_tile) in enumerate(zip(dealt.bazaar, derived.bazaar, strict=True)):
        if got_tile != want_tile:
            return f"bazaar[{i}] is {TILE_NAME[got_tile]} where it derives {TILE_NAME[want_tile]}"
    return None


def check_fair(doc: Any, seats: int, deals: Sequence[tuple[Sequence[Voided], Deal]], *,
               complete: bool = True) -> None:
    """Check a Kozel record's ``meta.fair`` (if any): its seeds, the commitment, and that every
    deal of every hand, the voided ones in order, is the one kva-fair/1 derives. Raises
    RecordError at the first problem."""
    read = read_fair_meta(doc, seats, complete=complete)
    if isinstance(read, FairProblem):
        raise RecordError(read.where, read.problem)
    if read is None or read.server_seed is None:
        return
    dealer = KozelFairDealer(read.server_seed, read.client_seeds)
    for k, (voided, deal) in enumerate(deals):
        dealt = [(f"hands[{k}].voided[{n}]", v.deal) for n, v in enumerate(voided)]
        dealt.append((f"hands[{k}].deal", deal))
        for n, (where, played) in enumerate(dealt):
            problem = _difference(played, dealer(k, n))
            if problem is not None:
                raise RecordError(where, f"not the deal {SCHEME} derives (redeal {n}): {problem}")
