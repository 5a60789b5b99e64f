"""A whole Kozel match: hands in sequence, redeals, who opens, scores, the козёл, forfeits.

``Match`` is the one object a server, a bot or a record checker holds. It deals from a seeded
``random.Random`` passed in, or from a ``dealer(hand, redeal)`` (fair deals, records).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from kva.kozel.deal import Deal, Dealer, RandomSource, Voided, first_opening, redeal_reason
from kva.kozel.deal import shuffled_deal as _shuffled
from kva.kozel.hand import HandState
from kva.kozel.options import Options
from kva.kozel.scoring import score_hand, side_counts
from kva.rules import IllegalAction
from kva.rules.engine import mask_of

#: Why a player may end a match early: a time loss, resigning, leaving the table.
FORFEIT_REASONS: Final = ("time", "resign", "abandon")


class MatchOver(IllegalAction):
    """An action on a match that has ended."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended (kozel-record.md's ``result``): ``end`` is ``out``, ``fish``,
    ``drawn-fish`` or ``forfeit``; ``by`` the seat that went out, the рыбак or the forfeiter;
    per side ``counts`` and ``scored``; the fish ``carry`` after the hand."""

    end: str
    by: int
    counts: tuple[int, ...]
    scored: tuple[int, ...]
    carry: int
    reason: str | None = None


@dataclass(slots=True)
class PlayedHand:
    """One hand of the match: the deals voided before it, its deal, opener, state (with its log)
    and, once over, its result with each side's score and remembered points after it."""

    number: int
    voided: tuple[Voided, ...]
    deal: Deal
    opener: int
    state: HandState
    result: HandResult | None = None
    score: tuple[int, ...] = ()
    remembered: tuple[int, ...] = ()


class Match:
    """A match of Kozel at 2, 3 or 4 seats.

    >>> import random
    >>> match = Match(3, rng=random.Random(5))
    >>> match
    <Match seats=3 fish=all hand=1 score=0:0:0 remembered=0:0:0 turn=2>
    >>> from kva.kozel.codes import describe_action
    >>> [describe_action(code) for code in match.legal(2)]     # seat 2 holds 1-1
    ['open 1-1']
    >>> chooser = random.Random(2)
    >>> while not match.over:
    ...     match.apply(chooser.choice(match.legal(match.turn)))
    >>> match
    <Match seats=3 fish=all hand=8 score=46:114:128 remembered=0:0:0 over losers=1,2>
    """

    def __init__(self, seats: int, options: Options | None = None, *,
                 rng: RandomSource | None = None, dealer: Dealer | None = None) -> None:
        self.options = options or Options()
        self.sides = self.options.sides(seats)
        self.seats = seats
        if dealer is None:
            if rng is None:
                raise ValueError("a match deals from an rng (random.Random(seed)) or a dealer")
            source = rng
            dealer = lambda _hand, _redeal: _shuffled(source, seats)  # noqa: E731
        self._dealer = dealer
        self.side_of = tuple(next(i for i, side in enumerate(self.sides) if p in side)
                             for p in range(seats))
        self.score: tuple[int, ...] = (0,) * len(self.sides)
        self.remembered: tuple[int, ...] = (0,) * len(self.sides)
        self.carry = 0
        self.hands: list[PlayedHand] = []
        self.losers: tuple[int, ...] = ()
        self.over = False
        self._start_hand(None)

    # ----------------------------------------------------------------- hands
    def _start_hand(self, opener: int | None) -> None:
        number = len(self.hands)
        voided: list[Voided] = []
        while True:
            deal = self._dealer(number, len(voided))
            if len(deal.hands) != self.seats:
                raise ValueError(f"the dealer dealt {len(deal.hands)} hands for {self.seats} seats")
            why = redeal_reason(deal)
            if why is None:
                break
            voided.append(Voided(deal, *why))
        opening: int | None = None
        if opener is None:
            opener, opening = first_opening(deal)
        state = HandState([mask_of(h) for h in deal.hands], deal.bazaar, opener, opening)
        self.hands.append(PlayedHand(number, tuple(voided), deal, opener, state))

    @property
    def current(self) -> PlayedHand:
        """The hand being played (the last one, once the match is over)."""
        return self.hands[-1]

    @property
    def state(self) -> HandState:
        """The current hand's bitmask state."""
        return self.hands[-1].state

    @property
    def turn(self) -> int | None:
        """The seat to act, or None once the match is over."""
        return None if self.over else self.hands[-1].state.turn

    def legal(self, seat: int) -> list[int]:
        """The action codes ``seat`` may take now (empty when it is not its turn)."""
        if self.over or seat != self.state.turn:
            return []
        return self.state.legal_codes()

    def forced_action(self, seat: int) -> int | None:
        """The draw or knock the game makes for ``seat`` now, if that is all it may do."""
        if self.over or seat != self.state.turn:
            return None
        return self.state.forced()

    def apply(self, code: int, seat: int | None = None) -> None:
        """Take an action for the seat on turn (``seat``, when given, must be it)."""
        if self.over:
            raise MatchOver("the match is over")
        state = self.state
        state.apply(code, seat)
        if state.over:
            self._finish_hand()

    def apply_unchecked(self, code: int) -> None:
        """Take a legal action without checking it (self-play)."""
        state = self.hands[-1].state
        state.apply_unchecked(code)
        if state.over:
            self._finish_hand()

    def _finish_hand(self) -> None:
        hand = self.hands[-1]
        state = hand.state
        assert state.end is not None
        out = state.by if state.end == "out" else None
        counts = side_counts(self.sides, state.counts(), out)
        result = score_hand(counts, end=state.end,
                            out_side=None if out is None else self.side_of[out],
                            fish=self.options.fish, score=self.score,
                            remembered=self.remembered, carry=self.carry)
        self.score, self.remembered, self.carry = result.score, result.remembered, result.carry
        hand.result = HandResult(result.end, state.by, counts, result.scored, result.carry)
        hand.score, hand.remembered = self.score, self.remembered
        losers = tuple(s for s, v in enumerate(self.score) if v >= self.options.limit)
        if losers:
            self.losers = losers
            self.over = True
        else:
            self._start_hand(state.by)

    def forfeit(self, seat: int, reason: str) -> None:
        """End the match: ``seat`` lost on time, resigned or left; the hand scores nothing."""
        if self.over:
            raise MatchOver("the match is over")
        if reason not in FORFEIT_REASONS:
            raise ValueError(f"a forfeit is for time, resign or abandon, not {reason!r}")
        if not 0 <= seat < self.seats:
            raise ValueError(f"no seat {seat!r} at {self.seats} seats")
        hand = self.hands[-1]
        zeros = (0,) * len(self.sides)
        hand.result = HandResult("forfeit", seat, zeros, zeros, self.carry, reason)
        hand.score, hand.remembered = self.score, self.remembered
        self.losers = (self.side_of[seat],)
        self.over = True

    # ----------------------------------------------------------------- results
    def seat_scores(self) -> list[int]:
        """Each seat's score: its side's (partners share their pair's), what
        :func:`kva.kozel.rating_changes` takes."""
        return [self.score[side] for side in self.side_of]

    def standings(self) -> list[int]:
        """The sides from best to worst: the others by score, lowest first, then the козлы."""
        return sorted(range(len(self.sides)), key=lambda s: (s in self.losers, self.score[s], s))

    def __repr__(self) -> str:
        score = ":".join(map(str, self.score))
        kept = ":".join(map(str, self.remembered))
        carry = f" carry={self.carry}" if self.carry else ""
        tail = (f"over losers={','.join(map(str, self.losers))}" if self.over
                else f"turn={self.turn}")
        pairs = " pairs" if self.options.pairs else ""
        return (f"<Match seats={self.seats} fish={self.options.fish}{pairs} hand={len(self.hands)} "
                f"score={score} remembered={kept}{carry} {tail}>")
