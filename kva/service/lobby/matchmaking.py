"""Quick-game pairing: who plays whom, as a pure function of the queue and the time.

No database, no clock, no I/O: the caller passes the waiting players and ``now`` (seconds on
any monotonic clock), so every rule here is unit-tested with plain numbers.

The schedule (also in docs/community.md):

* A player who has waited ``w`` seconds accepts opponents whose rating is within
  ``RANGE_START + RANGE_STEP * floor(w / RANGE_EVERY)`` of theirs (±100, growing by 50 every
  5 s), never more than ``RANGE_MAX`` (±600).
* Two players are paired when they want the same match (same target, same rules, both rated or
  both casual) and the gap between their ratings is within the range of whoever has waited
  longer: a long wait widens the search for both, a newcomer never blocks it.
* Whoever has waited longest is served first; among the players they accept, the closest rating
  wins, then the longest wait, then the lower user id (so equal inputs give equal pairings).
* After ``BOT_OFFER_AFTER`` seconds (30 s) with nobody found, the player is offered a bot; they
  may keep waiting.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from kva.service.play.clock import DEFAULT_CLOCK

#: Rating range a player accepts at first (± points).
RANGE_START = 100.0
#: How much the range grows at each step (± points).
RANGE_STEP = 50.0
#: Seconds between two steps.
RANGE_EVERY = 5.0
#: The widest range (± points): beyond it, a bot is the better offer.
RANGE_MAX = 600.0
#: Seconds of waiting after which a bot is offered.
BOT_OFFER_AFTER = 30.0


@dataclass(frozen=True, slots=True)
class Seeker:
    """One player waiting for a quick game: who, how strong, what match, since when."""

    user_id: int
    rating: float
    target: int
    bazaar: str
    rated: bool
    since: float
    #: Domino Coin per player (0: none): only seekers of the same stake are paired.
    stake: int = 0
    #: The clock preset (docs/rules.md, "Time control"): only seekers of the same are paired.
    clock: str = DEFAULT_CLOCK

    def settings(self) -> tuple[int, str, bool, int, str]:
        """What must be equal for two seekers to be paired."""
        return (self.target, self.bazaar, self.rated, self.stake, self.clock)


def waited(seeker: Seeker | TableSeeker, now: float) -> float:
    """Seconds ``seeker`` has waited at ``now`` (never negative, even if clocks disagree)."""
    return max(0.0, now - seeker.since)


def rating_range(waited_s: float) -> float:
    """The ± rating range accepted after ``waited_s`` seconds of waiting."""
    if waited_s < 0 or math.isnan(waited_s):
        raise ValueError("waited seconds must be a non-negative number")
    steps = math.floor(waited_s / RANGE_EVERY)
    return min(RANGE_MAX, RANGE_START + RANGE_STEP * steps)


def offer_bot(seeker: Seeker, now: float) -> bool:
    """Whether ``seeker`` has waited long enough to be offered a bot."""
    return waited(seeker, now) >= BOT_OFFER_AFTER


def compatible(a: Seeker, b: Seeker, now: float) -> bool:
    """Whether ``a`` and ``b`` may be paired at ``now`` (see the module's rules)."""
    if a.user_id == b.user_id or a.settings() != b.settings():
        return False
    widest = rating_range(max(waited(a, now), waited(b, now)))
    return abs(a.rating - b.rating) <= widest


def pair(queue: Iterable[Seeker], now: float) -> list[tuple[Seeker, Seeker]]:
    """The pairs to start at ``now``; everyone not in a pair keeps waiting.

    Each pair is ``(longer waiter, partner)``. A user id appearing twice is a caller's bug and
    raises ValueError rather than pairing someone with themselves.
    """
    seekers = sorted(queue, key=lambda s: (s.since, s.user_id))
    ids = [s.user_id for s in seekers]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is in the queue twice")
    taken: set[int] = set()
    pairs: list[tuple[Seeker, Seeker]] = []
    for first in seekers:
        if first.user_id in taken:
            continue
        candidates = [
            other for other in seekers
            if other.user_id not in taken and compatible(first, other, now)
        ]
        if not candidates:
            continue
        partner = min(candidates,
                      key=lambda o: (abs(o.rating - first.rating), o.since, o.user_id))
        taken.update((first.user_id, partner.user_id))
        pairs.append((first, partner))
    return pairs


#: Seat counts a Kozel quick game may ask for (docs/kozel.md: 3 or 4 at the table).
KOZEL_QUICK_SEATS = (3, 4)


@dataclass(frozen=True, slots=True)
class TableSeeker:
    """One player waiting for a Kozel quick game: who, how strong, which table, since when.

    ``rating`` is the Kozel rating (0 for a newcomer); only seekers with the same ``seats`` and
    ``fish`` rule (docs/kozel.md: ``all`` or ``one``, as in :class:`kva.kozel.Options`) share a
    table.
    """

    user_id: int
    rating: float
    seats: int
    fish: str
    since: float

    def settings(self) -> tuple[int, str]:
        """What must be equal for two seekers to share a table."""
        return (self.seats, self.fish)


def _fits(group: list[TableSeeker], candidate: TableSeeker, now: float) -> bool:
    """Whether ``candidate`` may join ``group``: same table, and within the range of the longest
    waiter of everyone involved against every member (so the spread of a table stays bounded by
    one range, as for a pair)."""
    if any(member.user_id == candidate.user_id or member.settings() != candidate.settings()
           for member in group):
        return False
    everyone = [*group, candidate]
    widest = rating_range(max(waited(s, now) for s in everyone))
    return all(abs(member.rating - candidate.rating) <= widest for member in group)


def fill_table(first: TableSeeker, others: Iterable[TableSeeker],
               now: float) -> list[TableSeeker]:
    """``first`` and up to ``first.seats - 1`` of ``others`` who fit at ``now``, chosen one by
    one by closest rating to ``first``, then longest wait, then lower user id; shorter than
    the table when too few fit (the seats bots may take after the wait)."""
    candidates = list(others)
    table = [first]
    while len(table) < first.seats:
        fitting = [other for other in candidates if _fits(table, other, now)]
        if not fitting:
            break
        table.append(min(fitting,
                         key=lambda o: (abs(o.rating - first.rating), o.since, o.user_id)))
    return table


def group(queue: Iterable[TableSeeker], now: float) -> list[tuple[TableSeeker, ...]]:
    """The full Kozel tables to start at ``now``; everyone not seated keeps waiting.

    The longest waiter is served first, as in :func:`pair`: their table is filled greedily with
    the closest rating, then the longest wait, then the lower user id, each new member having to
    fit everyone already chosen. A table that cannot be filled to ``seats`` starts nobody. A
    user id appearing twice raises ValueError; a seat count outside :data:`KOZEL_QUICK_SEATS`
    too.
    """
    seekers = sorted(queue, key=lambda s: (s.since, s.user_id))
    ids = [s.user_id for s in seekers]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is in the queue twice")
    if any(s.seats not in KOZEL_QUICK_SEATS for s in seekers):
        raise ValueError("a Kozel quick game has 3 or 4 seats")
    taken: set[int] = set()
    tables: list[tuple[TableSeeker, ...]] = []
    for first in seekers:
        if first.user_id in taken:
            continue
        table = fill_table(first, [s for s in seekers if s.user_id not in taken], now)
        if len(table) == first.seats:
            taken.update(s.user_id for s in table)
            tables.append(tuple(table))
    return tables


def offer_bots(seeker: TableSeeker, now: float, after_s: float) -> bool:
    """Whether ``seeker`` has waited ``after_s`` seconds and is offered bots for the free seats."""
    return waited(seeker, now) >= after_s
