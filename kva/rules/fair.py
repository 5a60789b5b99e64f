"""Provably fair deals, scheme ``kva-fair/1`` (docs/fairness.md has it byte by byte).

Before the first deal the server draws a 32-byte *server seed* and publishes its *commitment*,
``SHA-256(server_seed)`` in lowercase hex. Each seat brings a 16-byte *client seed* (the
player's browser draws it; a bot's seat gets one from the server). Every deal of the match then
follows from the three:

* the deal of hand ``k`` (0-based, ``hands[k]`` of the record), redeal ``n`` (0 for every hand
  except the first, whose deal is redealt with n = 1, 2, ... while nobody holds a double) is a
  Fisher–Yates shuffle of the 28 tile ids driven by the stream of 32-bit words
  ``HMAC-SHA256(key=server_seed, msg=block(k, n, c))`` for c = 0, 1, 2, ..., where::

      block(k, n, c) = b"kva-fair/1"            10 bytes, ASCII
                     || client_seed[0]          16 bytes (seat 0)
                     || client_seed[1]          16 bytes (seat 1)
                     || u32be(k) || u32be(n) || u32be(c)      3 × 4 bytes   (54 bytes in all)

  each 32-byte HMAC output giving eight big-endian u32 words, used in order;
* the shuffle starts from ``[0, 1, ..., 27]`` (kva's tile ids: 0-0, 0-1, ..., 0-6, 1-1, ...,
  6-6) and for ``i`` from 27 down to 1 takes the next word ``w``, rejecting it while
  ``w >= 2**32 - 2**32 % (i + 1)``, and swaps positions ``i`` and ``w % (i + 1)``;
* the shuffled order deals positions 0-6 to seat 0, 7-13 to seat 1 and 14-27 to the bazaar in
  draw order (position 14 is drawn first).

The server seed is revealed when the match is over; anyone can then recompute every deal.

Kozel (:mod:`kva.kozel.fair`) deals 2 to 4 seats with the same scheme: the block holds every
seat's client seed in seat order (two seeds give the very bytes above), seat ``p`` gets
positions ``7p`` to ``7p + 6``, and each hand's redeals are numbered n = 0, 1, 2, ...
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Protocol

from kva.rules.hand import Deal
from kva.rules.match import highest_double
from kva.rules.tiles import TILE_COUNT, TILE_NAME, parse_tile

#: The scheme's name, as it appears in ``meta.fair.scheme`` and at the head of every HMAC block.
SCHEME: Final = "kva-fair/1"
SERVER_SEED_BYTES: Final = 32
CLIENT_SEED_BYTES: Final = 16
#: Seats a kva-fair/1 block holds client seeds for: the Georgian game's two, Kozel's 2 to 4.
MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
_SEAT_WORDS: Final = {2: "two", 3: "three", 4: "four"}

_TAG: Final = SCHEME.encode("ascii")
_COUNTERS: Final = struct.Struct(">III")
_WORDS: Final = struct.Struct(">8I")
_HEX = re.compile(r"[0-9a-f]*")
#: ``_LIMIT[m]``: the first rejected word when drawing uniformly from ``range(m)``.
_LIMIT: Final[tuple[int, ...]] = tuple(
    0 if m == 0 else (1 << 32) - (1 << 32) % m for m in range(29)
)

#: What ``Match`` takes as ``dealer``: the deal of hand ``hand`` (0-based), redeal ``redeal``.
Dealer = Callable[[int, int], Deal]


class TokenSource(Protocol):
    """What drawing a seed needs: the ``secrets`` module qualifies (tests pass an object with a
    seeded ``token_bytes``)."""

    def token_bytes(self, nbytes: int | None = ...) -> bytes: ...


def _bytes(value: bytes | str, size: int, what: str) -> bytes:
    """``value`` as exactly ``size`` bytes: bytes as they are, or a hex string (either case)."""
    if isinstance(value, str):
        text = value.lower()
        if len(text) != 2 * size or not _HEX.fullmatch(text):
            raise ValueError(f"{what} must be {2 * size} hex digits, found {value!r}")
        return bytes.fromhex(text)
    if isinstance(value, bytes | bytearray) and len(value) == size:
        return bytes(value)
    raise ValueError(f"{what} must be {size} bytes or {2 * size} hex digits, found {value!r}")


def new_server_seed(rng: TokenSource = secrets) -> bytes:
    """A fresh 32-byte server seed from ``rng`` (the ``secrets`` module unless a test says)."""
    return rng.token_bytes(SERVER_SEED_BYTES)


def new_client_seed(rng: TokenSource = secrets) -> str:
    """A 16-byte client seed in hex: what the server picks for a bot's seat (a browser draws its
    own with ``crypto.getRandomValues``)."""
    return rng.token_bytes(CLIENT_SEED_BYTES).hex()


def check_client_seed(value: object) -> str:
    """A client seed as a browser sent it, checked: 32 hex digits, returned in lowercase (the
    form ``meta.fair.client_seeds`` holds). Raises ValueError saying what is wrong."""
    if not isinstance(value, str):
        raise ValueError(f"a client seed must be 32 hex digits, found {value!r}")
    return _bytes(value, CLIENT_SEED_BYTES, "a client seed").hex()


def commitment(server_seed: bytes | str) -> str:
    """The published commitment to a server seed: SHA-256 of its 32 bytes, lowercase hex."""
    return hashlib.sha256(_bytes(server_seed, SERVER_SEED_BYTES, "server seed")).hexdigest()


def _client_pair(client_seeds: Sequence[bytes | str]) -> bytes:
    if len(client_seeds) != 2:
        raise ValueError(f"two client seeds are needed (seat 0, seat 1), found {len(client_seeds)}")
    return _client_block(client_seeds)


def _client_block(client_seeds: Sequence[bytes | str]) -> bytes:
    """Every seat's client seed, in seat order: the block's middle (2 to 4 seats; the
    Georgian game's two give the same bytes as ever)."""
    if not MIN_SEATS <= len(client_seeds) <= MAX_SEATS:
        raise ValueError(f"one client seed per seat, 2 to 4, found {len(client_seeds)}")
    return b"".join(
        _bytes(seed, CLIENT_SEED_BYTES, f"client seed {p}") for p, seed in enumerate(client_seeds)
    )


def _order(key: bytes, prefix: bytes, hand: int, redeal: int) -> list[int]:
    """The shuffled 28 tile ids; ``prefix`` is the tag and both client seeds (42 bytes)."""
    digest = hmac.digest
    pack = _COUNTERS.pack
    unpack = _WORDS.unpack
    tiles = list(range(TILE_COUNT))
    counter = 0
    words: tuple[int, ...] = unpack(digest(key, prefix + pack(hand, redeal, 0), "sha256"))
    used = 0
    for i in range(TILE_COUNT - 1, 0, -1):
        span = i + 1
        limit = _LIMIT[span]
        while True:
            if used == 8:
                counter += 1
                words = unpack(digest(key, prefix + pack(hand, redeal, counter), "sha256"))
                used = 0
            w = words[used]
            used += 1
            if w < limit:
                break
        j = w % span
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def _check_index(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 32:
        raise ValueError(f"{what} must be an integer in 0..2**32-1, found {value!r}")
    return value


def shuffled_order(
    server_seed: bytes | str, client_seeds: Sequence[bytes | str], hand: int, redeal: int = 0
) -> list[int]:
    """The 28 tile ids in the order kva-fair/1 shuffles them for hand ``hand``, redeal
    ``redeal``: positions 0-6 go to seat 0, 7-13 to seat 1, and so on (Kozel: up to four
    seats, one client seed each), the rest to the bazaar."""
    key = _bytes(server_seed, SERVER_SEED_BYTES, "server seed")
    prefix = _TAG + _client_block(client_seeds)
    return _order(key, prefix, _check_index(hand, "hand"), _check_index(redeal, "redeal"))


def _deal_of(order: list[int]) -> Deal:
    return Deal((tuple(order[:7]), tuple(order[7:14])), tuple(order[14:]))


def derive_deal(
    server_seed: bytes | str, client_seeds: Sequence[bytes | str], hand: int, redeal: int = 0
) -> Deal:
    """The deal kva-fair/1 gives hand ``hand`` (0-based), redeal ``redeal``.

    ``server_seed`` is 32 bytes, each client seed 16 bytes (or their hex). Redeal ``n`` > 0 only
    happens on the first hand, when redeal ``n - 1`` gave nobody a double."""
    _client_pair(client_seeds)  # the Georgian game has two seats
    return _deal_of(shuffled_order(server_seed, client_seeds, hand, redeal))


def first_hand_deal(
    server_seed: bytes | str, client_seeds: Sequence[bytes | str]
) -> tuple[Deal, int]:
    """The first hand's deal as played and its redeal number: the first redeal, from 0 up, that
    gives somebody a double."""
    key = _bytes(server_seed, SERVER_SEED_BYTES, "server seed")
    prefix = _TAG + _client_pair(client_seeds)
    redeal = 0
    while True:
        deal = _deal_of(_order(key, prefix, 0, redeal))
        if highest_double(deal) is not None:
            return deal, redeal
        redeal += 1


class FairDealer:
    """A match's deal source under kva-fair/1: ``Match(..., dealer=FairDealer(...))``.

    It holds the secret server seed: never show it (or this object's :meth:`meta` with
    ``reveal=True``) to anyone before the match is over."""

    __slots__ = ("_key", "_prefix", "server_seed", "client_seeds")

    def __init__(self, server_seed: bytes | str, client_seeds: Sequence[bytes | str]) -> None:
        self.server_seed = _bytes(server_seed, SERVER_SEED_BYTES, "server seed")
        pair = _client_pair(client_seeds)
        self.client_seeds = (pair[:CLIENT_SEED_BYTES].hex(), pair[CLIENT_SEED_BYTES:].hex())
        self._key = self.server_seed
        self._prefix = _TAG + pair

    @classmethod
    def new(cls, client_seeds: Sequence[bytes | str], rng: TokenSource = secrets) -> FairDealer:
        """A dealer with a fresh server seed (from ``secrets`` unless ``rng`` is given)."""
        return cls(new_server_seed(rng), client_seeds)

    def __call__(self, hand: int, redeal: int) -> Deal:
        return _deal_of(
            _order(
                self._key, self._prefix, _check_index(hand, "hand"), _check_index(redeal, "redeal")
            )
        )

    @property
    def commitment(self) -> str:
        """SHA-256 of the server seed, hex: what both seats and spectators see from the start."""
        return hashlib.sha256(self.server_seed).hexdigest()

    def meta(self, *, reveal: bool) -> dict[str, Any]:
        """``meta.fair`` of the match's record: without the server seed while the match is on
        (``reveal=False``), with it once the match is over."""
        fair: dict[str, Any] = {
            "scheme": SCHEME,
            "commitment": self.commitment,
            "client_seeds": list(self.client_seeds),
        }
        if reveal:
            fair["server_seed"] = self.server_seed.hex()
        return fair

    def __repr__(self) -> str:  # never print the secret
        return f"FairDealer(commitment={self.commitment!r}, client_seeds={self.client_seeds!r})"


@dataclass(frozen=True, slots=True)
class FairProblem:
    """Why a record's ``meta.fair`` does not hold: ``where`` is a JSON path, as in RecordError."""

    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


class FairSeeds(NamedTuple):
    """A record's ``meta.fair`` read and checked: the revealed server seed (None while the
    match is on) and each seat's client seed in hex."""

    server_seed: bytes | None
    client_seeds: tuple[str, ...]


def _hex_field(fair: dict[str, Any], key: str, size: int, where: str) -> bytes | FairProblem:
    value = fair.get(key)
    if not isinstance(value, str) or len(value) != 2 * size or not _HEX.fullmatch(value):
        return FairProblem(where, f"must be {2 * size} lowercase hex digits, found {value!r}")
    return bytes.fromhex(value)


def _record_deals(doc: dict[str, Any]) -> list[Deal] | FairProblem:
    hands = doc.get("hands")
    if not isinstance(hands, list):
        return FairProblem("hands", "must be a list")
    deals: list[Deal] = []
    for k, hand in enumerate(hands):
        try:
            deal = hand["deal"]
            names = [*deal["hands"][0], *deal["hands"][1], *deal["bazaar"]]
            ids = [parse_tile(name) for name in names]
        except (KeyError, IndexError, TypeError, ValueError):
            return FairProblem(f"hands[{k}].deal", "is not a readable deal")
        if len(ids) != TILE_COUNT:
            return FairProblem(f"hands[{k}].deal", "is not a 7/7/14 deal")
        deals.append(_deal_of(ids))
    return deals


def same_deal(a: Deal, b: Deal) -> bool:
    """Whether two deals are the same for play: the same tiles in each seat's hand (in any
    order) and the same bazaar in the same draw order."""
    return a.bazaar == b.bazaar and all(set(a.hands[p]) == set(b.hands[p]) for p in (0, 1))


def _difference(dealt: Deal, derived: Deal) -> str:
    """The first place where a record's deal and the derived one part (they are not the same)."""
    for p in (0, 1):
        extra = sorted(set(dealt.hands[p]) - set(derived.hands[p]))
        if extra:
            missing = sorted(set(derived.hands[p]) - set(dealt.hands[p]))
            return (
                f"seat {p} holds {' '.join(TILE_NAME[t] for t in extra)} where it derives "
                f"{' '.join(TILE_NAME[t] for t in missing)}"
            )
    for i, (got, want) in enumerate(zip(dealt.bazaar, derived.bazaar, strict=True)):
        if got != want:
            return f"bazaar[{i}] is {TILE_NAME[got]} where it derives {TILE_NAME[want]}"
    return "it differs"  # pragma: no cover - only called on deals that differ


def verify_fair(
    doc: Any, deals: Sequence[Deal] | None = None, *, complete: bool = True
) -> FairProblem | None:
    """Check ``meta.fair`` of a record: None if it holds (or the record has none), else the
    first problem.

    It checks the scheme, the seeds' form, that the server seed matches the commitment and that
    every hand's deal is the one kva-fair/1 derives (the first hand's: the first redeal with a
    double). ``deals`` are the record's deals already read (else they are read from ``doc``).
    With ``complete=False`` (a match in progress) a missing server seed is accepted and then
    only the commitment and client seeds' form are checked."""
    read = read_fair_meta(doc, 2, complete=complete)
    if read is None or isinstance(read, FairProblem) or read.server_seed is None:
        return read if isinstance(read, FairProblem) else None
    key, seeds = read.server_seed, list(read.client_seeds)
    if deals is None:
        found = _record_deals(doc)
        if isinstance(found, FairProblem):
            return found
        deals = found
    dealer = FairDealer(key, seeds)
    for k, deal in enumerate(deals):
        expected = first_hand_deal(key, seeds)[0] if k == 0 else dealer(k, 0)
        if not same_deal(deal, expected):
            return FairProblem(
                f"hands[{k}].deal", f"not the deal {SCHEME} derives: {_difference(deal, expected)}"
            )
    return None


def read_fair_meta(
    doc: Any, seats: int = 2, *, complete: bool = True
) -> FairSeeds | FairProblem | None:
    """Read a record's ``meta.fair`` for a table of ``seats``: None when it has none, else its
    seeds or the first problem with them (scheme, form, the commitment; with
    ``complete=False`` a server seed not yet revealed is accepted)."""
    if not isinstance(doc, dict):
        return None
    meta = doc.get("meta")
    if not isinstance(meta, dict) or "fair" not in meta:
        return None
    fair = meta["fair"]
    if not isinstance(fair, dict):
        return FairProblem("meta.fair", "must be an object")
    if fair.get("scheme") != SCHEME:
        return FairProblem("meta.fair.scheme", f"must be '{SCHEME}', found {fair.get('scheme')!r}")
    committed = _hex_field(fair, "commitment", 32, "meta.fair.commitment")
    if isinstance(committed, FairProblem):
        return committed
    seeds = fair.get("client_seeds")
    if not isinstance(seeds, list) or len(seeds) != seats:
        return FairProblem(
            "meta.fair.client_seeds", f"must list the {_SEAT_WORDS[seats]} seats' client seeds"
        )
    for p, seed in enumerate(seeds):
        if not isinstance(seed, str) or len(seed) != 32 or not _HEX.fullmatch(seed):
            return FairProblem(
                f"meta.fair.client_seeds[{p}]", f"must be 32 lowercase hex digits, found {seed!r}"
            )
    if "server_seed" not in fair:
        if complete:
            return FairProblem(
                "meta.fair.server_seed", "missing: the match is over, so it must be revealed"
            )
        return FairSeeds(None, tuple(seeds))
    key = _hex_field(fair, "server_seed", SERVER_SEED_BYTES, "meta.fair.server_seed")
    if isinstance(key, FairProblem):
        return key
    if hashlib.sha256(key).digest() != committed:
        return FairProblem("meta.fair.server_seed", "does not match the commitment")
    return FairSeeds(key, tuple(seeds))
