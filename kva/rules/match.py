"""A whole match: hands in sequence, who opens each, the running score, the target and forfeits.

``Match`` is the one object the rest of kva holds. It deals from a ``random.Random`` (or
``secrets.SystemRandom``) passed in, or replays fixed deals (records). Everything hidden stays in
here; players, bots and the web tier see :meth:`Match.view`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from kva.rules.hand import Deal, HandState, IllegalAction
from kva.rules.settings import BazaarRule, MatchSettings
from kva.rules.tiles import DOUBLE_OF, TILE_COUNT

ForfeitReason = Literal["resign", "timeout", "abandon"]
FORFEIT_REASONS: Final = ("resign", "timeout", "abandon")


class RandomSource(Protocol):
    """What dealing needs: ``random.Random`` and ``secrets.SystemRandom`` both qualify."""

    def shuffle(self, x: list[int]) -> None: ...


@dataclass(slots=True)
class HandResult:
    """How a hand ended. ``end`` is ``domino``, ``fish`` or ``forfeit``."""

    end: str
    winner: int | None
    points: int
    reason: str | None = None


@dataclass(slots=True)
class PlayedHand:
    """A hand of the match with its deal, its state (log included) and, once over, its result."""

    opener: int
    deal: Deal
    state: HandState
    result: HandResult | None = None
    score_after: tuple[int, int] | None = None
    first_double: int | None = field(default=None)
    #: The hand's moves and board as each viewer sees them (a :class:`kva.rules.view.PublicLog`),
    #: kept by :func:`kva.rules.view.hand_moves` between calls: not part of the hand (never
    #: compared, copied or shown), and typed loosely so that the match does not depend on the
    #: views built from it.
    public: object | None = field(default=None, compare=False, repr=False)


def shuffled_deal(rng: RandomSource) -> Deal:
    """Shuffle the 28 tiles and deal 7/7/14."""
    tiles = list(range(TILE_COUNT))
    rng.shuffle(tiles)
    return Deal((tuple(tiles[:7]), tuple(tiles[7:14])), tuple(tiles[14:]))


def highest_double(deal: Deal) -> tuple[int, int] | None:
    """The highest double dealt to a player and its holder, or None if nobody holds a double."""
    for n in range(6, -1, -1):
        holder = deal.holder_of(DOUBLE_OF[n])
        if holder is not None:
            return DOUBLE_OF[n], holder
    return None


class MatchOver(IllegalAction):
    """An action on a match that has ended."""


class Match:
    """A match of Georgian domino between player 0 and player 1."""

    def __init__(
        self,
        target: int = 175,
        bazaar: BazaarRule = "draw",
        rng: RandomSource | None = None,
        *,
        deals: list[Deal] | None = None,
        dealer: Callable[[int, int], Deal] | None = None,
    ) -> None:
        MatchSettings(target, bazaar)  # raises BadSettings (a ValueError) naming the field
        if rng is None and deals is None and dealer is None:
            rng = random.SystemRandom()
        self.target = target
        self.bazaar: BazaarRule = bazaar
        self.pass_only = bazaar == "pass-only"
        self._rng = rng
        self._deals = list(deals) if deals is not None else None
        #: ``dealer(hand_index, redeal_index) -> Deal`` deals every hand past ``deals`` (before
        #: ``rng``): hand_index is 0-based, redeal_index counts the first hand's redeals (0 for
        #: every other hand). kva.rules.fair.FairDealer is one.
        self._dealer = dealer
        self.scores = [0, 0]
        self.hands: list[PlayedHand] = []
        self.over = False
        self.winner: int | None = None
        self.forfeit_reason: str | None = None
        self._start_hand(opener=None)

    def __repr__(self) -> str:
        head = (
            f"<Match target={self.target} {self.bazaar} hand={len(self.hands)} "
            f"score={self.scores[0]}:{self.scores[1]}"
        )
        if not self.over:
            return f"{head} turn={self.hand.turn}>"
        reason = f" {self.forfeit_reason}" if self.forfeit_reason is not None else ""
        return f"{head} over winner={self.winner}{reason}>"

    # ----------------------------------------------------------------- dealing
    def _next_deal(self, redeal: int = 0) -> Deal:
        if self._deals is not None and len(self.hands) < len(self._deals):
            return self._deals[len(self.hands)]
        if self._dealer is not None:
            return self._dealer(len(self.hands), redeal)
        if self._rng is None:
            raise IndexError("no deal given for this hand")
        return shuffled_deal(self._rng)

    def _start_hand(self, opener: int | None) -> None:
        forced = -1
        redeal = 0
        while True:
            deal = self._next_deal(redeal)
            redeal += 1
            if opener is not None:
                break
            found = highest_double(deal)
            if found is not None:
                forced, opener = found
                break
            if self._deals is not None:
                raise ValueError("the first hand's deal gives nobody a double (it must be redealt)")
        state = HandState.from_deal(deal, opener, pass_only=self.pass_only, forced_opening=forced)
        self.hands.append(PlayedHand(opener, deal, state))

    # ----------------------------------------------------------------- play
    @property
    def hand(self) -> HandState:
        """The current (or, once the match is over, the last) hand's state."""
        return self.hands[-1].state

    @property
    def turn(self) -> int | None:
        """The player to act, or None once the match is over."""
        return None if self.over else self.hand.turn

    def legal_codes(self) -> list[int]:
        """Legal action codes for the player to act."""
        return [] if self.over else self.hand.legal_codes()

    def apply(self, code: int, player: int | None = None) -> None:
        """Apply an action for the player to act (checked: ``player`` if given must be on turn).

        Raises :class:`IllegalAction` and changes nothing when the action is not legal.
        """
        if self.over:
            raise MatchOver("the match is over")
        if player is not None and player != self.hand.turn:
            raise IllegalAction(f"it is player {self.hand.turn}'s turn, not player {player}'s")
        self.hand.apply(code)
        self._after_action()

    def apply_unchecked(self, code: int) -> None:
        """Apply a code known to be legal (self-play and replays); a finished match still raises
        :class:`MatchOver`."""
        if self.over:
            raise MatchOver("the match is over")
        self.hand.apply_unchecked(code)
        self._after_action()

    def _after_action(self) -> None:
        current = self.hands[-1]
        state = current.state
        if not state.over:
            return
        self._bank_hand_points(state)
        if state.winner is not None:
            self.scores[state.winner] += state.end_points
        assert state.end is not None
        current.result = HandResult(state.end, state.winner, state.end_points)
        current.score_after = (self.scores[0], self.scores[1])
        a, b = self.scores
        if max(a, b) >= self.target and a != b:
            self.over = True
            self.winner = 0 if a > b else 1
        else:
            self._start_hand(state.next_opener())

    def _bank_hand_points(self, state: HandState) -> None:
        """Add what the placements of a hand that has just ended scored to the match score."""
        self.scores[0] += state.points[0]
        self.scores[1] += state.points[1]

    def forfeit(self, loser: int, reason: ForfeitReason = "resign") -> None:
        """End the match at once: ``loser`` resigns, times out or abandons; the other wins."""
        if self.over:
            raise MatchOver("the match is over")
        if loser not in (0, 1):
            raise ValueError(f"no player {loser!r}")
        if reason not in FORFEIT_REASONS:
            raise ValueError(f"forfeit reason must be one of {FORFEIT_REASONS}")
        current = self.hands[-1]
        # Points count the moment they are scored: the unfinished hand's placements stay.
        self._bank_hand_points(current.state)
        current.result = HandResult("forfeit", 1 - loser, 0, reason)
        current.score_after = (self.scores[0], self.scores[1])
        current.state.over = True
        self.over = True
        self.winner = 1 - loser
        self.forfeit_reason = reason

    # ----------------------------------------------------------------- derived
    @property
    def hand_number(self) -> int:
        """1-based number of the current hand."""
        return len(self.hands)
