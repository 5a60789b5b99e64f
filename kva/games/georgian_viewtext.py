"""A player's view as JSON text, written fast for the states the play service sends.

The service sends every viewer a state after every action; building the dict of
:func:`kva.rules.view_json.view_to_json` and encoding it cost more than anything else in the
state. :class:`ViewText` writes exactly the same text from fragments: tables of every placed
tile's, legal action's and tile name's text (built once, from the contract's own functions),
each move and finished hand's text kept while its hand is played, and the board's text kept
for the next view of the same board (both players and the spectators see one board). One
:class:`ViewText` serves one match (:attr:`kva.service.play.live.LiveMatch.view_text`), so
what it keeps lives and dies with the match, and the rules engine keeps no server caches.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from kva.rules import (
    DRAW,
    PASS,
    BoardView,
    HandSummary,
    PlayerView,
    PublicMove,
    action_to_json,
    board_to_json,
    opening_to_json,
    placed_to_json,
    public_move_to_json,
    summary_to_json,
    view_to_json,
)
from kva.rules.engine import (
    DOUBLE_OF,
    END_NAMES,
    OPEN_BASE,
    TILE_COUNT,
    TILE_HIGH,
    TILE_LOW,
    TILE_NAME,
)

#: How the play service encodes a state (compact, not ASCII-escaped); the texts built here
#: are exactly what it would write for the same data.
encode_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _placements(
    make: Callable[[int, int, int | None], dict[str, Any]],
) -> tuple[dict[tuple[int, int], str], ...]:
    """For each stavka (index ``stavka + 1``; 0: none yet), the text ``make`` gives every
    tile with each of its halves."""
    tables = []
    for stavka in range(-1, 7):
        stavka_tile = DOUBLE_OF[stavka] if stavka >= 0 else None
        tables.append({
            (tile, half): encode_json(make(tile, half, stavka_tile))
            for tile in range(TILE_COUNT)
            for half in (TILE_LOW[tile], TILE_HIGH[tile])
        })
    return tuple(tables)


_PLACED_TEXT = _placements(placed_to_json)
_OPENING_TEXT = _placements(opening_to_json)
#: A tile's name as a JSON string.
_TILE_TEXT: tuple[str, ...] = tuple(encode_json(name) for name in TILE_NAME)
#: Every action code's :func:`action_to_json` as text.
_LEGAL_TEXT: dict[int, str] = {
    code: encode_json(action_to_json(code))
    for code in (*range(OPEN_BASE + 2 * TILE_COUNT), DRAW, PASS)
}
_END_TEXT: tuple[str, ...] = tuple(
    '{"end":' + encode_json(name) + ',"asks":' for name in END_NAMES)


class ViewText:
    """Writes one match's views as text, keeping what the next view repeats."""

    __slots__ = ("_board", "_board_text", "_hand", "_moves", "_previous")

    def __init__(self) -> None:
        self._board: BoardView | None = None
        self._board_text = ""
        #: The hand whose moves :attr:`_moves` holds (they are forgotten when it changes).
        self._hand = -1
        #: Each move's text by ``id``, with the move itself: holding it keeps its ``id`` from
        #: being reused, and ``is`` proves the entry is this move's (views of the same hand
        #: list the same move objects, so each is encoded once).
        self._moves: dict[int, tuple[PublicMove, str]] = {}
        self._previous: dict[int, tuple[HandSummary, str]] = {}

    def text(self, view: PlayerView) -> str:
        """Exactly ``json.dumps(view_to_json(view), ensure_ascii=False, separators=(",",
        ":"))`` (as the play service encodes states), built from kept texts."""
        try:
            return self._view_text(view)
        except (KeyError, IndexError, TypeError):  # nothing the engine makes: the plain way
            return encode_json(view_to_json(view))

    def moves_text(self, view: PlayerView) -> str:
        """The text of ``view``'s list of moves, each move written once in its hand."""
        if view.hand_number != self._hand:
            self._moves.clear()
            self._hand = view.hand_number
        kept = self._moves
        texts = []
        for move in view.moves:
            entry = kept.get(id(move))
            if entry is None or entry[0] is not move:
                entry = kept[id(move)] = (move, encode_json(public_move_to_json(move)))
            texts.append(entry[1])
        return f'[{",".join(texts)}]'

    def _previous_text(self, previous: tuple[HandSummary, ...]) -> str:
        kept = self._previous
        if len(kept) > 4 * len(previous) + 8:  # summaries made again (a reload): start over
            kept.clear()
        texts = []
        for hand in previous:
            entry = kept.get(id(hand))
            if entry is None or entry[0] is not hand:
                entry = kept[id(hand)] = (hand, encode_json(summary_to_json(hand)))
            texts.append(entry[1])
        return f'[{",".join(texts)}]'

    def _board_text_of(self, board: BoardView) -> str:
        if self._board is board or self._board == board:
            return self._board_text
        text = board_text(board)
        self._board, self._board_text = board, text
        return text

    def _view_text(self, view: PlayerView) -> str:
        player = view.player
        turn = view.turn
        winner = view.winner
        reason = view.forfeit_reason
        pending = view.pending
        forced = view.forced_opening
        scores = view.scores
        counts = view.hand_counts
        points = view.hand_points
        tile_text = _TILE_TEXT
        last_board = view.last_board
        return (
            f'{{"player":{"null" if player is None else player},"target":{view.target},'
            f'"bazaar":{encode_basestring(view.bazaar)},'
            f'"scores":[{scores[0]},{scores[1]}],'
            f'"hand_number":{view.hand_number},'
            f'"turn":{"null" if turn is None else turn},'
            f'"over":{"true" if view.over else "false"},'
            f'"winner":{"null" if winner is None else winner},'
            f'"forfeit_reason":{"null" if reason is None else encode_basestring(reason)},'
            f'"hand":[{",".join([tile_text[t] for t in view.hand])}],'
            f'"hand_counts":[{counts[0]},{counts[1]}],'
            f'"hand_points":[{points[0]},{points[1]}],'
            f'"bazaar_counts":{{"drawable":{view.drawable_count},'
            f'"out_of_play":{view.out_of_play_count},"drawn":{view.drawn_count}}},'
            f'"pending":{"null" if pending is None else tile_text[pending]},'
            f'"forced_opening":{"null" if forced is None else tile_text[forced]},'
            f'"board":{self._board_text_of(view.board)},'
            f'"moves":{self.moves_text(view)},'
            f'"legal":[{",".join(map(_LEGAL_TEXT.__getitem__, view.legal))}],'
            f'"previous":{self._previous_text(view.previous)},'
            # the last hand's final board: sent in a new hand's first few states only, so
            # written the plain way
            f'"last_board":'
            f'{"null" if last_board is None else encode_json(board_to_json(last_board))}}}'
        )


def board_text(board: BoardView) -> str:
    """``board``'s text, as :func:`kva.rules.view_json.board_to_json` encoded, from the
    tables of placed tiles."""
    stavka = board.stavka
    table = stavka + 1 if stavka >= 0 else 0
    ask = board.ask
    value = board.value
    ends = ",".join([
        f"{_END_TEXT[e]}{ask[e]},\"counts\":{value[e]}}}" for e in range(4) if ask[e] >= 0
    ])
    if stavka < 0:
        stavka_text = "null"
    else:
        closed = "true" if board.stavka_closed else "false"
        stavka_text = f'{{"number":{stavka},"closed":{closed}}}'
    opening = board.opening
    opening_text = "null" if opening is None else _OPENING_TEXT[table][opening]
    get = _PLACED_TEXT[table].__getitem__
    lines = ",".join([
        f'"{END_NAMES[e]}":[{",".join(map(get, line))}]' for e, line in enumerate(board.lines)
    ])
    return (
        f'{{"ends":[{ends}],"ends_sum":{board.ends_sum},"stavka":{stavka_text},'
        f'"opening":{opening_text},"lines":{{{lines}}}}}'
    )
