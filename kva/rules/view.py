"""What one player may know, and nothing more: the per-player view.

Bots and the web tier see the game only through :func:`player_view`. It holds the viewer's own
hand, the board, the scores, the counts of the opponent's hand and of the bazaar, and the public
history (an opponent's draw shows as a draw with no tile). ``player=None`` is a spectator's view.
:func:`determinize` rebuilds a full hidden state from a view plus a guess of the hidden tiles,
which is how a bot searches without ever being handed the real state.
"""

from __future__ import annotations

from dataclasses import dataclass

from kva.rules.codes import DRAW, END_NAMES, OPEN_BASE
from kva.rules.hand import DRAWABLE, HandState, LogEntry
from kva.rules.match import Match, PlayedHand
from kva.rules.moves import MoveKind, code_parts
from kva.rules.tiles import (
    NUMBER_MASK,
    TILE_BIT,
    TILE_COUNT,
    TILE_NAME,
    mask_of,
    tile_name,
    tiles_of,
)


@dataclass(frozen=True, slots=True, repr=False)
class PublicMove:
    """One action as a given viewer may see it.

    ``tile`` is None for a draw the viewer may not see. ``first`` is the half written first: the
    touching half of a play, the half on ``L`` of the opening. ``open_numbers`` are the numbers
    the open ends asked just before the action: a draw or a pass proves the actor held none.
    """

    player: int
    kind: MoveKind
    tile: int | None
    end: str | None
    first: int | None
    points: int
    ends_sum: int | None
    open_numbers: tuple[int, ...]

    def __repr__(self) -> str:
        tile = "?" if self.tile is None else tile_name(self.tile, self.first)
        if self.kind == "pass":
            return f"<PublicMove p={self.player} pass>"
        if self.kind == "draw":
            return f"<PublicMove p={self.player} draw {tile}>"
        where = f" on {self.end}" if self.end is not None else ""
        return (
            f"<PublicMove p={self.player} {self.kind} {tile}{where} points={self.points} "
            f"ends_sum={self.ends_sum}>"
        )


@dataclass(frozen=True, slots=True, repr=False)
class BoardView:
    """The board: what each end asks and counts, the stavka, and the lines of tiles laid out.

    ``lines[e]`` lists the tiles placed on end ``e`` (L, R, U, D) in order, as (tile, touching
    half). ``opening`` is (tile, half on L) or None before the opening.
    """

    ask: tuple[int, int, int, int]
    value: tuple[int, int, int, int]
    ends_sum: int
    stavka: int
    stavka_end: int
    stavka_closed: bool
    opening_double_free: int
    opening_side: int
    opening: tuple[int, int] | None
    lines: tuple[tuple[tuple[int, int], ...], ...]

    def __repr__(self) -> str:
        if self.opening is None:
            return "<BoardView empty>"
        ends = " ".join(f"{END_NAMES[e]}={n}" for e, n in enumerate(self.ask) if n >= 0)
        stavka = ""
        if self.stavka >= 0:
            stavka = f" stavka={self.stavka}" + (" closed" if self.stavka_closed else "")
        return f"<BoardView {ends} ends_sum={self.ends_sum}{stavka}>"


@dataclass(frozen=True, slots=True, repr=False)
class HandSummary:
    """A finished hand as everyone may see it afterwards: the tiles left in hand are revealed."""

    number: int
    opener: int
    end: str
    winner: int | None
    points: int
    reason: str | None
    score_after: tuple[int, int]
    left_in_hand: tuple[tuple[int, ...], tuple[int, ...]]

    def __repr__(self) -> str:
        winner = "nobody" if self.winner is None else self.winner
        reason = f" {self.reason}" if self.reason is not None else ""
        return (
            f"<HandSummary hand={self.number} {self.end}{reason} winner={winner} "
            f"points={self.points} score={self.score_after[0]}:{self.score_after[1]}>"
        )


@dataclass(frozen=True, slots=True, repr=False)
class PlayerView:
    """Everything ``player`` may know now (``player`` None: a spectator)."""

    player: int | None
    target: int
    bazaar: str
    scores: tuple[int, int]
    hand_number: int
    turn: int | None
    over: bool
    winner: int | None
    forfeit_reason: str | None
    hand: tuple[int, ...]
    hand_counts: tuple[int, int]
    hand_points: tuple[int, int]
    drawable_count: int
    out_of_play_count: int
    drawn_count: int
    pending: int | None
    forced_opening: int | None
    board: BoardView
    moves: tuple[PublicMove, ...]
    legal: tuple[int, ...]
    passes: int
    last_placer: int
    last_nondouble_placer: int
    previous: tuple[HandSummary, ...]
    #: The board as the last finished hand left it, while the next hand is young (at most
    #: :data:`LAST_BOARD_MOVES` moves): the hand-end screen shows it, since the next hand is
    #: dealt at once and ``board`` is already the new one. None otherwise.
    last_board: BoardView | None = None

    @property
    def opponent_count(self) -> int:
        """Tiles in the opponent's hand."""
        assert self.player is not None
        return self.hand_counts[1 - self.player]

    def unseen(self) -> int:
        """Tiles this viewer cannot see: the opponent's hand plus the whole bazaar left."""
        seen = mask_of(self.hand)
        for move in self.moves:
            if move.kind in ("open", "play") and move.tile is not None:
                seen |= TILE_BIT[move.tile]
        return ((1 << TILE_COUNT) - 1) & ~seen

    def __repr__(self) -> str:
        who = "spectator" if self.player is None else self.player
        state = f"turn={self.turn}" if not self.over else f"over winner={self.winner}"
        held = " ".join(TILE_NAME[t] for t in self.hand)
        holds = f" holds={held}" if self.player is not None else ""
        return (
            f"<PlayerView player={who} hand={self.hand_number} {state} "
            f"score={self.scores[0]}:{self.scores[1]}{holds} "
            f"counts={self.hand_counts[0]}:{self.hand_counts[1]} "
            f"drawable={self.drawable_count} ends_sum={self.board.ends_sum} "
            f"legal={len(self.legal)}>"
        )


#: Which moves of a hand :func:`hand_moves` shows: a seat's (0, 1), a spectator's (None), or
#: every drawn tile (a finished match's public replay).
_REVEAL = "reveal"


class PublicLog:
    """A hand's moves as each kind of viewer sees them, kept up to date between calls.

    The play service builds a view of the same hand after every action; replaying the whole hand
    each time (to know which numbers the ends asked before each move) cost more than everything
    else in the view. This keeps the replay where it stopped and extends it by the entries the
    log gained since. A hand's log only grows, so the entries seen so far are a prefix of it: the
    last one seen is still the same object at the same place. Anything else (a different hand
    state behind the same :class:`~kva.rules.match.PlayedHand`) starts again from the deal.
    It holds no reference back to its hand (the hand is passed in), so a finished match is
    freed by reference counting, with no cycle for the garbage collector to find.
    """

    __slots__ = ("_replay", "_seen", "_last", "_moves", "_tuples", "summary", "_board")

    def __init__(self) -> None:
        #: The hand's summary once it is over, and the result it was made of (kept by
        #: :func:`player_view`).
        self.summary: tuple[HandSummary | None, object] = (None, None)
        self._replay: HandState | None = None
        self._seen = 0
        self._last: object = None
        #: The moves seen so far by each kind of viewer (0, 1, None, ``_REVEAL``).
        self._moves: dict[int | str | None, list[PublicMove]] = {}
        #: The same moves as tuples, made once per viewer kind and log length: every view of
        #: one version (and the next versions' views until the log grows) share one tuple.
        self._tuples: dict[int | str | None, tuple[PublicMove, ...]] = {}
        #: The last board made, with the hand state, log length and last log entry it shows.
        self._board: tuple[BoardView, object, int, object] | None = None

    def board(self, state: HandState) -> BoardView:
        """The board of ``state`` (the hand this log is kept with), the same object for every
        viewer until the hand's log grows: both players and the spectators of one version see
        one board, made once."""
        log = state.log
        last = log[-1] if log else None
        kept = self._board
        if kept is not None and kept[1] is state and kept[2] == len(log) and kept[3] is last:
            return kept[0]
        board = board_view(state)
        self._board = (board, state, len(log), last)
        return board

    def _restart(self, played: PlayedHand) -> HandState:
        self._replay = HandState.from_deal(
            played.deal,
            played.opener,
            pass_only=played.state.pass_only,
            forced_opening=played.state.forced_opening,
        )
        self._seen = 0
        self._last = None
        self._moves = {0: [], 1: [], None: [], _REVEAL: []}
        self._tuples = {}
        return self._replay

    def moves(self, played: PlayedHand, viewer: int | str | None) -> tuple[PublicMove, ...]:
        """The moves of ``played`` (the hand this log is kept with) so far, as ``viewer``
        sees them."""
        log = played.state.log
        seen = self._seen
        replay = self._replay
        if replay is None or seen > len(log) or (seen and log[seen - 1] is not self._last):
            replay = self._restart(played)
            seen = 0
        if seen < len(log):
            self._extend(replay, log, seen)
            self._tuples.clear()
        kept = self._tuples.get(viewer)
        if kept is None:
            kept = self._tuples[viewer] = tuple(self._moves[viewer])
        return kept

    def _extend(self, replay: HandState, log: list[LogEntry], start: int) -> None:
        seat0, seat1, spectator, everyone = (
            self._moves[0], self._moves[1], self._moves[None], self._moves[_REVEAL])
        for i in range(start, len(log)):
            p, code, x, points, ends_sum = log[i]
            open_numbers = tuple(sorted({n for n in replay.ask if n >= 0}))
            replay.apply_unchecked(code)
            kind, tile, end = code_parts(code)
            if kind == "draw":
                shown = PublicMove(p, kind, x, None, None, 0, None, open_numbers)
                hidden = PublicMove(p, kind, None, None, None, 0, None, open_numbers)
                seat0.append(shown if p == 0 else hidden)
                seat1.append(shown if p == 1 else hidden)
                spectator.append(hidden)
                everyone.append(shown)
                continue
            if kind == "pass":
                move = PublicMove(p, kind, None, None, None, 0, None, open_numbers)
            else:
                move = PublicMove(p, kind, tile, end, x, points, ends_sum, open_numbers)
            seat0.append(move)
            seat1.append(move)
            spectator.append(move)
            everyone.append(move)
        self._seen = len(log)
        self._last = log[-1]


def hand_moves(
    played: PlayedHand, viewer: int | None, *, reveal_draws: bool = False
) -> tuple[PublicMove, ...]:
    """The hand's log as ``viewer`` may see it, replayed through the engine so that each move
    knows which numbers the ends asked before it. ``reveal_draws`` shows every drawn tile (for
    a finished match's replay, which is public).

    The replay is kept with the hand (:class:`PublicLog`), so calling this after every action
    costs only the actions since the last call."""
    if viewer not in (0, 1, None):
        raise ValueError(f"no player {viewer!r}")
    return _public_log(played).moves(played, _REVEAL if reveal_draws else viewer)


def _public_log(played: PlayedHand) -> PublicLog:
    public = played.public
    if not isinstance(public, PublicLog):
        public = played.public = PublicLog()
    return public


def board_view(state: HandState) -> BoardView:
    """The board of ``state`` as everyone sees it: the lines of tiles laid out and the ends."""
    lines: list[list[tuple[int, int]]] = [[], [], [], []]
    opening: tuple[int, int] | None = None
    for _p, code, x, _points, _sum in state.log:
        if code >= OPEN_BASE and code < DRAW:
            opening = ((code - OPEN_BASE) >> 1, x)
        elif code < OPEN_BASE:
            lines[code & 3].append((code >> 2, x))
    closed = state.stavka >= 0 and state.ask[2] >= 0
    return BoardView(
        ask=(state.ask[0], state.ask[1], state.ask[2], state.ask[3]),
        value=(state.value[0], state.value[1], state.value[2], state.value[3]),
        ends_sum=state.ends_sum(),
        stavka=state.stavka,
        stavka_end=state.stavka_end,
        stavka_closed=closed,
        opening_double_free=state.opening_double_free,
        opening_side=state._opening_side,
        opening=opening,
        lines=tuple(tuple(line) for line in lines),
    )


def _summary(number: int, played: PlayedHand) -> HandSummary:
    """The finished hand ``played`` as everyone sees it; kept with the hand, since a finished
    hand no longer changes and every view of the match lists it."""
    public = _public_log(played)
    summary, of = public.summary
    if summary is None or summary.number != number or of is not played.result:
        summary = _summarize(number, played)
        public.summary = (summary, played.result)
    return summary


def _summarize(number: int, played: PlayedHand) -> HandSummary:
    assert played.result is not None and played.score_after is not None
    state = played.state
    return HandSummary(
        number=number,
        opener=played.opener,
        end=played.result.end,
        winner=played.result.winner,
        points=played.result.points,
        reason=played.result.reason,
        score_after=played.score_after,
        left_in_hand=(tuple(tiles_of(state.hands[0])), tuple(tiles_of(state.hands[1]))),
    )


#: How many moves into a new hand the view still carries the last hand's final board.
LAST_BOARD_MOVES = 2


def _last_board(match: Match, moves: int) -> BoardView | None:
    """The final board of the hand before the current one, if the current hand is young and
    that hand was played out (a forfeited match has no next hand)."""
    if len(match.hands) < 2 or moves > LAST_BOARD_MOVES or match.over:
        return None
    finished = match.hands[-2]
    return _public_log(finished).board(finished.state)


def player_view(match: Match, player: int | None) -> PlayerView:
    """Build ``player``'s view of ``match`` (None: a spectator, who sees no hand at all)."""
    if player not in (0, 1, None):
        raise ValueError(f"no player {player!r}")
    current = match.hands[-1]
    state = current.state
    mine = player is not None and not match.over and state.turn == player
    pending = state.pending if mine and state.pending >= 0 else None
    return PlayerView(
        player=player,
        target=match.target,
        bazaar=match.bazaar,
        scores=(match.scores[0], match.scores[1]),
        hand_number=match.hand_number,
        turn=match.turn,
        over=match.over,
        winner=match.winner,
        forfeit_reason=match.forfeit_reason,
        hand=tuple(tiles_of(state.hands[player])) if player is not None else (),
        hand_counts=(state.hands[0].bit_count(), state.hands[1].bit_count()),
        hand_points=(state.points[0], state.points[1]),
        drawable_count=state.drawable_count(),
        out_of_play_count=len(state.bazaar) - state.draw_pos - state.drawable_count(),
        drawn_count=state.draw_pos,
        pending=pending,
        forced_opening=(
            state.forced_opening if state.forced_opening >= 0 and state.placed == 0 else None
        ),
        board=_public_log(current).board(state),
        moves=(moves := hand_moves(current, player)),
        legal=tuple(state.legal_codes()) if mine else (),
        passes=state.passes,
        last_placer=state.last_placer,
        last_nondouble_placer=state.last_nondouble_placer,
        previous=tuple(
            _summary(i + 1, h) for i, h in enumerate(match.hands) if h.result is not None
        ),
        last_board=_last_board(match, len(moves)),
    )


def determinize(view: PlayerView, opponent_hand: int, bazaar_rest: list[int]) -> HandState:
    """A full hand state consistent with ``view``: the viewer's guess of the hidden tiles.

    ``opponent_hand`` is a tile set of ``view.opponent_count`` tiles and ``bazaar_rest`` the
    bazaar tiles not yet drawn, in the guessed draw order (the last two are the protected ones);
    together they must be exactly :meth:`PlayerView.unseen`.
    """
    assert view.player is not None
    me = view.player
    if opponent_hand.bit_count() != view.hand_counts[1 - me]:
        raise ValueError("the guessed opponent hand has the wrong size")
    if len(bazaar_rest) != 14 - view.drawn_count:
        raise ValueError("the guessed bazaar has the wrong size")
    hands = [0, 0]
    hands[me] = mask_of(view.hand)
    hands[1 - me] = opponent_hand
    bazaar = [-1] * view.drawn_count + list(bazaar_rest)
    state = HandState(
        (hands[0], hands[1]),
        [0] * 14,
        view.turn if view.turn is not None else me,
        pass_only=view.bazaar == "pass-only",
        forced_opening=view.forced_opening if view.forced_opening is not None else -1,
    )
    state.bazaar = bazaar
    state.draw_pos = view.drawn_count
    drawable = 0
    if view.bazaar != "pass-only":
        for t in bazaar[view.drawn_count : DRAWABLE]:
            drawable |= TILE_BIT[t]
    state.drawable = drawable
    board = view.board
    state.ask = list(board.ask)
    state.value = list(board.value)
    mask = 0
    for n in board.ask:
        if n >= 0:
            mask |= NUMBER_MASK[n]
    state.ends_mask = mask
    state.stavka = board.stavka
    state.stavka_end = board.stavka_end
    state.opening_double_free = board.opening_double_free
    state._opening_side = board.opening_side
    state.pending = view.pending if view.pending is not None else -1
    state.passes = view.passes
    state.placed = sum(1 for m in view.moves if m.kind in ("open", "play"))
    state.last_placer = view.last_placer
    state.last_nondouble_placer = view.last_nondouble_placer
    state.points = list(view.hand_points)
    return state
