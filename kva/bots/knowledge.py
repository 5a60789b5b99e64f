"""What a player can infer about the hidden tiles from its own view, and guesses that respect it.

The hidden tiles are the opponent's hand and the undrawn bazaar (:meth:`PlayerView.unseen`).
Public history narrows them down:

- a draw or a pass proves the opponent held no tile with the numbers the ends asked then
  (``PublicMove.open_numbers``); a tile it drew and kept did not fit either;
- in the first hand the forced opening double was the highest double dealt, so nobody was
  dealt a higher one;
- the two protected bazaar tiles can never be drawn; a guess keeps them in the bazaar's tail.

The opponent's tiles are modelled as *items*: seven dealt ones plus one per drawn-and-kept tile,
each in hand from its entry (deal or draw) to its exit (placement, or still held). An item must
lack every number the opponent was shown lacking while it held that item. :meth:`Knowledge.sample`
draws guesses that satisfy all of it, uniformly within each entry group (the groups' allowed sets
are nested, so filling the most constrained group first is exact). :meth:`Knowledge.log_weight`
scores a guess by how well it explains the opponent's choices under a soft greedy model: the
inference weighting the ``hard`` bot resamples with.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from kva.bots.fast import points_of
from kva.rules import PlayerView
from kva.rules.engine import (
    ALL_TILES,
    DOUBLE_OF,
    DRAWABLE,
    END_INDEX,
    NUMBER_MASK,
    OPEN_BASE,
    TILE_BIT,
    TILE_COUNT,
    TILE_HIGH,
    TILE_LOW,
    HandState,
    mask_of,
    pips_of,
    tiles_of,
)

#: Entry of a dealt item (before every move of the hand).
DEALT = -1
#: Exit of an item still held.
HELD = 1 << 30
#: Softness of the opponent model: a choice worth 5 more points is e^(5 * BETA) times likelier.
BETA = 0.25
#: Share of the opponent model that is uniform over legal plays (robust to odd opponents).
UNIFORM_SHARE = 0.35


@dataclass(frozen=True, slots=True)
class ChoiceEvent:
    """An opponent placement that was a real choice: what each tile could have earned then.

    ``weight[t]`` sums exp(BETA * points) over the ends tile ``t`` fitted; ``ways[t]`` counts
    those ends (0: the tile did not fit). ``chosen`` is the weight of the play actually made.
    """

    index: int
    chosen: float
    weight: tuple[float, ...]
    ways: tuple[int, ...]


def code_of_move(kind: str, tile: int, end: str | None, first: int | None) -> int:
    """The action code of a public opening or play."""
    if kind == "open":
        flipped = first is not None and first == TILE_HIGH[tile] and TILE_LOW[tile] != first
        return OPEN_BASE + 2 * tile + (1 if flipped else 0)
    assert end is not None
    return (tile << 2) | END_INDEX[end]


class Knowledge:
    """Everything the viewer knows about the hidden tiles of the current hand."""

    __slots__ = (
        "me",
        "opp",
        "unseen",
        "opp_count",
        "bazaar_count",
        "events",
        "entries",
        "placed",
        "dealt_forbid",
        "choices",
        "lacks",
        "_template",
        "_placed_ok",
        "_allowed",
        "_simple",
        "_choice_bases",
        "beta",
        "uniform_share",
    )

    def __init__(
        self, view: PlayerView, beta: float = BETA, uniform_share: float = UNIFORM_SHARE
    ) -> None:
        #: Opponent model: softness (per point) and the share of uniform play.
        self.beta = beta
        self.uniform_share = uniform_share
        assert view.player is not None
        self.me = view.player
        self.opp = 1 - view.player
        self.unseen = view.unseen()
        self.opp_count = view.hand_counts[self.opp]
        self.bazaar_count = 14 - view.drawn_count
        opp = self.opp
        moves = view.moves
        #: Opponent draws and passes: (move index, tiles it was shown not to hold).
        self.events: list[tuple[int, int]] = []
        #: Entries of the opponent's items: seven dealt, one per kept draw.
        self.entries: list[int] = [DEALT] * 7
        #: Opponent placements of a tile from hand (not a freshly drawn fitting tile).
        self.placed: list[tuple[int, int]] = []
        for i, move in enumerate(moves):
            if move.player != opp:
                continue
            if move.kind in ("draw", "pass"):
                forbid = 0
                for n in move.open_numbers:
                    forbid |= NUMBER_MASK[n]
                self.events.append((i, forbid))
                if move.kind == "draw":
                    nxt = moves[i + 1] if i + 1 < len(moves) else None
                    kept = not (nxt is not None and nxt.player == opp and nxt.kind == "play")
                    if kept:
                        self.entries.append(i)
            else:
                prev = moves[i - 1] if i > 0 else None
                fresh = prev is not None and prev.player == opp and prev.kind == "draw"
                if not fresh and move.tile is not None:
                    self.placed.append((move.tile, i))
        # First hand: the forced opening was the highest double dealt.
        dealt_forbid = 0
        if view.hand_number == 1 and moves and moves[0].kind == "open":
            tile = moves[0].tile
            assert tile is not None
            n = TILE_LOW[tile]
            for higher in range(n + 1, 7):
                dealt_forbid |= TILE_BIT[DOUBLE_OF[higher]]
        self.dealt_forbid = dealt_forbid
        #: For each number: whether the opponent surely holds no tile with it right now.
        possible = self.possible_opponent_tiles()
        self.lacks = tuple(not possible & NUMBER_MASK[n] for n in range(7))
        self.choices = self._choice_events(view)
        self._template: HandState | None = None
        # Precomputed for sampling: feasible entries of each placed item, and the tiles a held
        # item may be for each entry.
        distinct = sorted(set(self.entries))
        self._placed_ok = [
            frozenset(e for e in distinct if e < exit_ and not TILE_BIT[t] & self._forbid(e, exit_))
            for t, exit_ in self.placed
        ]
        self._allowed = {e: tiles_of(self.unseen & ~self._forbid(e, HELD)) for e in distinct}
        # Per choice: the placed tiles still in hand then, and the tiles that fitted then.
        self._choice_bases = [
            (
                event,
                mask_of([t for t, exit_ in self.placed if exit_ >= event.index]),
                mask_of([t for t in range(TILE_COUNT) if event.ways[t]]),
            )
            for event in self.choices
        ]
        #: No constraint at all on the opponent's tiles: sampling is one shuffle.
        self._simple = distinct == [DEALT] and not self.dealt_forbid and not self.events

    # ----------------------------------------------------------------- constraints
    def _forbid(self, entry: int, exit_: int) -> int:
        """Tiles an item held from ``entry`` to ``exit_`` cannot be."""
        forbid = self.dealt_forbid if entry == DEALT else 0
        for index, mask in self.events:
            if entry <= index < exit_:
                forbid |= mask
        return forbid

    def possible_opponent_tiles(self) -> int:
        """Unseen tiles the opponent may hold now (the loosest constraint of its items)."""
        if self.opp_count == 0:
            return 0
        loosest = max(self.entries) if self.entries else DEALT
        return self.unseen & ~self._forbid(loosest, HELD)

    def _choice_events(self, view: PlayerView) -> list[ChoiceEvent]:
        """Replay the board to price each opponent choice (placements from hand, not openings)."""
        moves = view.moves
        if not self.placed or not moves or moves[0].kind != "open":
            return []
        first = moves[0]
        assert first.tile is not None
        board = HandState((ALL_TILES, ALL_TILES), [0] * 14, first.player)
        placed_at = {i for _t, i in self.placed}
        out: list[ChoiceEvent] = []
        for i, move in enumerate(moves):
            if move.kind not in ("open", "play"):
                continue
            assert move.tile is not None
            code = code_of_move(move.kind, move.tile, move.end, move.first)
            if i in placed_at and move.kind == "play":
                weight = [0.0] * TILE_COUNT
                ways = [0] * TILE_COUNT
                ask, value = board.ask, board.value
                free, stavka = board.opening_double_free, board.stavka
                chosen = 0.0
                for end in range(4):
                    n = ask[end]
                    if n < 0:
                        continue
                    for t in tiles_of(NUMBER_MASK[n]):
                        c = (t << 2) | end
                        w = math.exp(self.beta * points_of(ask, value, free, stavka, c))
                        weight[t] += w
                        ways[t] += 1
                        if c == code:
                            chosen = w
                out.append(ChoiceEvent(i, chosen, tuple(weight), tuple(ways)))
            board.turn = move.player
            board.apply_unchecked(code)
        return out

    # ----------------------------------------------------------------- sampling
    def _match_placed(self, rng: random.Random) -> list[int] | None:
        """Entries left for the held items after giving each placed item a feasible entry.

        Placed items are taken by exit; each gets a random feasible entry. None when that random
        matching dead-ends (the caller retries, then falls back to :meth:`_match_placed_tight`).
        """
        free = self.entries[:]
        for ok in self._placed_ok:
            options = [k for k, e in enumerate(free) if e in ok]
            if not options:
                return None
            free.pop(options[int(rng.random() * len(options))])
        return free

    def _match_placed_tight(self) -> list[int]:
        """The matching that leaves the latest (least constrained) entries to held items."""
        free = sorted(self.entries)
        for tile, exit_ in self.placed:
            bit = TILE_BIT[tile]
            for k, e in enumerate(free):
                if e < exit_ and not bit & self._forbid(e, exit_):
                    free.pop(k)
                    break
            else:  # pragma: no cover - the real history always has a matching
                free.pop(0)
        return free

    def sample(self, rng: random.Random) -> tuple[int, list[int], list[int]]:
        """A guess of the hidden tiles: (opponent hand, undrawn bazaar in order, held entries).

        ``held entries`` (one per opponent tile, sorted) says when each guessed tile entered the
        opponent's hand; :meth:`log_weight` needs it to know the hand at each past choice.
        """
        if self._simple:
            pool = tiles_of(self.unseen)
            rng.shuffle(pool)
            count = self.opp_count
            return mask_of(pool[:count]), pool[count:], [DEALT * 32 + t for t in pool[:count]]
        for attempt in range(12):
            held = self._match_placed(rng) if attempt < 10 else self._match_placed_tight()
            if held is None or len(held) != self.opp_count:
                continue
            guess = self._fill(sorted(held), rng)
            if guess is not None:
                opp_hand, tiles = guess
                rest = tiles_of(self.unseen & ~opp_hand)
                rng.shuffle(rest)
                return opp_hand, rest, tiles
        # Inconsistent views cannot come from a real match; stay legal whatever happens.
        pool = tiles_of(self.unseen)
        rng.shuffle(pool)
        opp_tiles = pool[: self.opp_count]
        return mask_of(opp_tiles), pool[self.opp_count :], [HELD] * len(opp_tiles)

    def _fill(self, held: list[int], rng: random.Random) -> tuple[int, list[int]] | None:
        """Fill held items, most constrained entry first; returns (hand, tile per item)."""
        used = 0
        per_item: list[int] = []
        k = 0
        while k < len(held):
            entry = held[k]
            size = 1
            while k + size < len(held) and held[k + size] == entry:
                size += 1
            pool = [t for t in self._allowed[entry] if not used & TILE_BIT[t]]
            if len(pool) < size:
                return None
            for _ in range(size):
                j = int(rng.random() * len(pool))
                t = pool[j]
                pool[j] = pool[-1]
                pool.pop()
                used |= TILE_BIT[t]
                per_item.append(t)
            k += size
        # per_item is in entry order; keep the entry of each tile alongside for weighting.
        return used, [held[i] * 32 + per_item[i] for i in range(len(held))]

    def log_weight(self, items: list[int]) -> float:
        """Log-likelihood of the opponent's past choices if it held the guessed tiles.

        ``items`` is the third element of :meth:`sample` (entry * 32 + tile per held tile).
        Placed tiles' entries are not tracked here: a placed tile counts as held from the deal,
        a close enough approximation for weighting.
        """
        if not self.choices:
            return 0.0
        total = 0.0
        for event, base, fit in self._choice_bases:
            j = event.index
            hand = base
            for packed in items:
                if (packed >> 5) < j:
                    hand |= TILE_BIT[packed & 31]
            weight = event.weight
            ways = event.ways
            w_sum = 0.0
            n_ways = 0
            m = hand & fit
            while m:
                low = m & -m
                t = low.bit_length() - 1
                m ^= low
                w_sum += weight[t]
                n_ways += ways[t]
            if n_ways <= 1:
                continue
            share = self.uniform_share
            p = share / n_ways + (1.0 - share) * event.chosen / w_sum
            total += math.log(p)
        return total

    # ----------------------------------------------------------------- states
    def state(self, view: PlayerView, opp_hand: int, bazaar_rest: list[int]) -> HandState:
        """The full hand state of one guess (a fresh object the caller may play on)."""
        template = self._template
        if template is None:
            from kva.rules.engine import determinize

            template = determinize(view, opp_hand, bazaar_rest)
            self._template = template
        state = template.copy()
        opp = self.opp
        state.hands[opp] = opp_hand
        state.pips[opp] = pips_of(opp_hand)
        drawn = 14 - self.bazaar_count
        state.bazaar = template.bazaar[:drawn] + bazaar_rest
        if view.bazaar != "pass-only":
            drawable = 0
            for t in bazaar_rest[: DRAWABLE - drawn]:
                drawable |= TILE_BIT[t]
            state.drawable = drawable
        return state
