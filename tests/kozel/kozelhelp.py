"""Shared helpers for the Kozel tests: seeded random matches and their records."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from kva.kozel import KozelFairDealer, Match, Options, write_record


def random_match(seats: int, seed: int, fish: str = "all", pairs: bool = False) -> Match:
    """A whole match of uniformly random legal play, dealt and played from ``seed``."""
    match = Match(seats, Options(fish=fish, pairs=pairs), rng=random.Random(seed))
    chooser = random.Random(f"{seed}/play")
    while not match.over:
        match.apply(chooser.choice(match.legal(match.turn)))
    return match


def record(seats: int, seed: int, fish: str = "all", pairs: bool = False) -> dict[str, Any]:
    """The JSON round-tripped record of :func:`random_match`."""
    doc: dict[str, Any] = json.loads(json.dumps(write_record(random_match(seats, seed, fish,
                                                                          pairs))))
    return doc


def first_record_with(seats: int, test: Any, fish: str = "all") -> dict[str, Any]:
    """The first seeded record (seeds 0, 1, …) for which ``test(doc)`` holds; a deep copy."""
    for seed in range(500):
        doc = record(seats, seed, fish)
        if test(doc):
            return copy.deepcopy(doc)
    raise AssertionError("no seed gives such a record")


def find_move(doc: dict[str, Any], test: Any) -> tuple[int, int]:
    """The first (hand, move) index whose move passes ``test(hand, move, index)``."""
    for k, hand in enumerate(doc["hands"]):
        for i, move in enumerate(hand["moves"]):
            if test(hand, move, i):
                return k, i
    raise AssertionError("no such move")


def seeds(n: int, base: int = 0) -> list[str]:
    """``n`` distinct fixed client seeds in hex."""
    return [bytes([base + p] * 16).hex() for p in range(n)]


def fair_record(seats: int, seed: int, fish: str = "all") -> dict[str, Any]:
    """A random match dealt by kva-fair/1, its record carrying the revealed ``meta.fair``."""
    dealer = KozelFairDealer(random.Random(seed).randbytes(32), seeds(seats, seed))
    match = Match(seats, Options(fish=fish), dealer=dealer)
    chooser = random.Random(seed)
    while not match.over:
        match.apply(chooser.choice(match.legal(match.turn)))
    doc = write_record(match, meta={"fair": dealer.meta(reveal=True)})
    return dict(json.loads(json.dumps(doc)))
