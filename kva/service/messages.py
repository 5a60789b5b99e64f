"""Every WebSocket message, both ways, as a ``TypedDict`` (the protocol is docs/web-contract.md).

One module for the three sockets (a match's ``/ws/m/{id}``, ``/ws/lobby``, ``/ws/quick``) and
for what the processes tell each other on the broker, so the service code that builds a message
and the socket that sends it agree on its shape, and ``mypy --strict`` checks both. Client
messages arrive as untrusted JSON: :func:`client_type` is the one place that reads their
``type``; the fields are checked by whoever uses them (the play service checks ``version`` and
``action``).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from kva.status import MatchStatus

# ---------------------------------------------------------------------- client -> server

#: Match socket: what a client may send (anything else is ``unknown_type``).
MatchClientType = Literal[
    "hello", "action", "resign", "abort", "ping",
    "rematch_offer", "rematch_accept", "rematch_decline", "rematch_withdraw",
    "claim_win", "seed",
]
MATCH_CLIENT_TYPES: tuple[MatchClientType, ...] = (
    "hello", "action", "resign", "abort", "ping",
    "rematch_offer", "rematch_accept", "rematch_decline", "rematch_withdraw",
    "claim_win", "seed",
)
RematchType = Literal["rematch_offer", "rematch_accept", "rematch_decline", "rematch_withdraw"]


class HelloIn(TypedDict):
    type: Literal["hello"]
    version: int


class ActionIn(TypedDict):
    type: Literal["action"]
    version: int
    #: ``{"type": "play", "tile": "6-4", "end": "R"}`` (checked by the rules).
    action: dict[str, Any]


class ResignIn(TypedDict):
    type: Literal["resign"]


class AbortIn(TypedDict):
    """Call the match off while it may be (kva.service.play.aborting); refused with
    ``too_late_to_abort`` once both players have moved."""

    type: Literal["abort"]


class PingIn(TypedDict):
    type: Literal["ping"]


class RematchIn(TypedDict):
    type: RematchType


class ClaimIn(TypedDict):
    type: Literal["claim_win"]


class SeedIn(TypedDict):
    """A seated player's kva-fair/1 client seed (32 hex digits), sent once it has seen the
    commitment in a ``state`` (docs/fairness.md)."""

    type: Literal["seed"]
    seed: str


MatchClientMessage: TypeAlias = (
    HelloIn | ActionIn | ResignIn | AbortIn | PingIn | RematchIn | ClaimIn | SeedIn
)


def client_type(msg: object) -> str | None:
    """The ``type`` of a decoded client frame: a string, or None (not an object, no type)."""
    if not isinstance(msg, dict):
        return None
    kind = msg.get("type")
    return kind if isinstance(kind, str) else None


# ---------------------------------------------------------------------- server -> client

#: Error codes of the match socket (``rate_limited`` on every socket).
ErrorCode = str


class PlayerJSON(TypedDict):
    """A taken seat: a person's nickname, or a bot's level."""

    name: str | None
    bot: str | None


class FairJSON(TypedDict):
    """kva-fair/1 of a match, in every ``state``: the commitment from the first state on, the
    client seeds once in (null before), the server seed only once the match is over."""

    scheme: Literal["kva-fair/1"]
    commitment: str
    client_seeds: list[str | None]
    server_seed: str | None


class StateMessage(TypedDict):
    """The full per-viewer view after ``version``, with the event that made it (null for a
    resync). ``view`` is ``kva.rules.view_json.view_to_json``; events are
    ``kva.service.play.events``.
    """

    type: Literal["state"]
    version: int
    view: dict[str, Any]
    event: dict[str, Any] | None
    status: MatchStatus
    players: list[PlayerJSON | None]
    you: int | None
    #: Null only for a match stored before fair deals.
    fair: FairJSON | None


class ErrorMessage(TypedDict):
    """A refused frame (nothing changed), or on the lobby and quick sockets a refusal before a
    close. ``message`` is for people; ``code`` is the contract."""

    type: Literal["error"]
    code: ErrorCode
    message: NotRequired[str]


class PongMessage(TypedDict):
    type: Literal["pong"]


RematchState = Literal["none", "offered", "declined", "withdrawn", "accepted"]


class RematchMessage(TypedDict):
    """Where a match's rematch stands. At a table of more than two seats ``by`` is the first
    seat that agreed and ``agreed`` every seat that did (a match of two seats has no
    ``agreed``: its one offer is ``by``'s)."""

    type: Literal["rematch"]
    state: RematchState
    by: int | None
    match_id: str | None
    agreed: NotRequired[list[int]]


class PresenceMessage(TypedDict):
    """A player's last connection closed (``online`` false, ``claim_in`` seconds left of the
    grace period) or they came back."""

    type: Literal["presence"]
    seat: int
    online: bool
    claim_in: float | None


class RatingChange(TypedDict):
    """One seat's rating through a rated match, with the deviation (RD) it had before: a
    ``provisional`` rating (RD above 110) moves a lot, and the result page says why."""

    before: int
    after: int
    rd: int
    provisional: bool


class RatingsMessage(TypedDict):
    type: Literal["ratings"]
    ratings: list[RatingChange]


class KozelRatingChange(TypedDict):
    """One seat's Kozel rating through a rated Kozel match: a running total, so the change
    (kozel.md, Rating) is what the table shows, with the totals around it."""

    seat: int
    before: int
    after: int
    change: int


class KozelRatingsMessage(TypedDict):
    """The Kozel rating changes of a rated Kozel match, one entry per seat in seat order."""

    type: Literal["ratings"]
    ratings: list[KozelRatingChange]


class SpectatorsMessage(TypedDict):
    """How many spectators watch the match now (every process's sockets together)."""

    type: Literal["spectators"]
    count: int


MatchServerMessage: TypeAlias = (
    StateMessage | ErrorMessage | PongMessage | RematchMessage | PresenceMessage | RatingsMessage
    | KozelRatingsMessage | SpectatorsMessage
)


class LobbySeat(TypedDict):
    """One seat of an open table as one viewer sees it."""

    taken: bool
    #: The nickname of the player sitting there (None: a bot, or nobody yet).
    name: str | None
    #: The level of the bot sitting there (None: a player, or nobody yet).
    bot: str | None
    #: Whether the viewer sits there.
    you: bool


class LobbyTable(TypedDict):
    """One open table as one viewer sees it
    (``kva.service.lobby.open_tables.OpenTable.for_viewer``)."""

    id: str
    creator: str
    rating: int
    provisional: bool
    target: int
    bazaar: str
    rated: bool
    created_at: str
    mine: bool
    can_join: bool
    #: Domino Coin per player (0: none).
    stake: int
    #: The clock preset (``none``: no clock).
    clock: str
    #: The game (``georgian``, ``kozel``) and its options (Kozel: ``fish``, ``pairs``).
    game: str
    options: dict[str, Any]
    #: Whether the viewer sits at this table (its creator, or a joiner).
    seated: bool
    #: Each seat in turn order, taken or free.
    seats: list[LobbySeat]


class LobbyMessage(TypedDict):
    type: Literal["lobby"]
    tables: list[LobbyTable]


class WaitingMessage(TypedDict):
    """Quick game: still searching (every second)."""

    type: Literal["waiting"]
    waited: int
    range: int
    offer_bot: bool


class PairedMessage(TypedDict):
    type: Literal["paired"]
    match_id: str
    url: str


class CancelledMessage(TypedDict):
    type: Literal["cancelled"]


LobbyServerMessage: TypeAlias = LobbyMessage | PongMessage | ErrorMessage
QuickServerMessage: TypeAlias = (
    WaitingMessage | PairedMessage | CancelledMessage | ErrorMessage
)
ServerMessage: TypeAlias = MatchServerMessage | LobbyServerMessage | QuickServerMessage


def error(code: ErrorCode, message: str | None = None) -> ErrorMessage:
    """An ``error`` message (``message`` left out when None)."""
    out: ErrorMessage = {"type": "error", "code": code}
    if message is not None:
        out["message"] = message
    return out


# ---------------------------------------------------------------------- between processes


class PresenceNote(TypedDict):
    """A process's own count for a seat changed (``origin``: that process)."""

    origin: str
    seat: int
    online: bool
    at: float


class SpectatorsNote(TypedDict):
    """A process's own count of a match's spectator sockets changed (``origin``: that
    process)."""

    origin: str
    count: int
    #: A process that has just started watching asks the others to say their counts again.
    ask: NotRequired[str]


class MatchTopicMessage(TypedDict, total=False):
    """What is published on a match's topic: new states by viewer key (``"0"``, ``"1"``,
    ``"s"``), and/or a presence note, and/or a message for every viewer.

    Each state is the JSON text of a :class:`StateMessage`, encoded once by the service for
    every socket of that viewer key; only the keys someone watches are there (every key when
    several processes share the broker). ``status`` is the match's, as in those states."""

    version: int
    status: MatchStatus
    states: dict[str, str]
    #: The user id holding each seat with the states (None: a kva bot's or a free seat).
    holders: list[int | None]
    presence: PresenceNote
    spectators: SpectatorsNote
    broadcast: RematchMessage | PresenceMessage


class RevokedNote(TypedDict):
    """Sessions revoked (:mod:`kva.service.accounts.sessions`): by the SHA-256 of their token, or
    every
    session of ``user_id``. Every process closes the matching sockets."""

    token_hashes: list[str]
    user_id: int | None
