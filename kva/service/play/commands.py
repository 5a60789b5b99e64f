"""The changes only a live match's owner makes, as data: one frozen dataclass per command.

A command names its match and carries what the change needs, typed for the type checker
where it is built in this process. It is routed as it is
(:meth:`MatchRouter.route <kva.service.play.routing.MatchRouter.route>`): run on this process
when it serves the match, else sent to the owner as :meth:`Command.to_wire` and rebuilt there
by :func:`command_from_wire`, which refuses anything that is not exactly one command, each
field of its type (a forwarded request is input too: :class:`BadCommand`). The
:attr:`Command.kind` is the command's name on the wire: the processes of one deployment must
agree on it, so it never changes.

What a player sent that only the match can judge (an action, a client seed) travels as the
JSON value it came as: its checks depend on the match (the seat first, then the version, the
turn, the legal moves), so they stay with the owner and their errors with its messages.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any, ClassVar, Generic, TypeAlias, TypeVar, get_type_hints

#: What a command's change answers (None for most; whether it happened for a few).
ResultT = TypeVar("ResultT", covariant=True)


class BadCommand(ValueError):
    """A command that is not one: an unknown kind, a field missing, extra or of the wrong
    type. Raised before anything runs."""


@dataclasses.dataclass(frozen=True, slots=True)
class Command(Generic[ResultT]):
    """A change to the live match :attr:`match_id`, made by the process that serves it."""

    #: The command's name on the wire (each subclass sets its own; never changes).
    kind: ClassVar[str] = ""

    match_id: str

    def to_wire(self) -> dict[str, object]:
        """The command as a JSON object: its kind and every field by name."""
        wire: dict[str, object] = {"kind": self.kind}
        for field in dataclasses.fields(self):
            wire[field.name] = getattr(self, field.name)
        return wire

    def result(self, value: object) -> ResultT:
        """The answer of the change (as the owner returned it, or as a reply carried it)."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True, slots=True)
class _Done(Command[None]):
    """A command that answers nothing (a refusal is a :class:`PlayError`)."""

    def result(self, value: object) -> None:
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class _Happened(Command[bool]):
    """A command that answers whether its change happened."""

    def result(self, value: object) -> bool:
        return bool(value)


@dataclasses.dataclass(frozen=True, slots=True)
class Act(_Done):
    """A player's action at ``version`` (:meth:`Acting.act
    <kva.service.play.acting.Acting.act>`). ``version``: None when the client sent no
    whole number (judged ``stale``); ``action``: the JSON the client sent, judged against
    the legal moves; ``player_session``: the SHA-256 of the acting socket's session token,
    checked in the write."""

    kind: ClassVar[str] = "act"

    user_id: int | None
    version: int | None
    action: object
    player_session: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Resign(_Done):
    """The player resigns: the opponent wins at once."""

    kind: ClassVar[str] = "resign"

    user_id: int | None


@dataclasses.dataclass(frozen=True, slots=True)
class Abort(_Done):
    """The player calls the match off (:mod:`kva.service.play.aborting`)."""

    kind: ClassVar[str] = "abort"

    user_id: int | None


@dataclasses.dataclass(frozen=True, slots=True)
class Forfeit(_Done):
    """``seat`` loses for ``reason`` (``abandon`` or ``timeout``: the server decides these);
    with ``expected_version``, only if the match is still at it."""

    kind: ClassVar[str] = "forfeit"

    seat: int
    reason: str
    expected_version: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Flag(_Happened):
    """The player whose clock ran out loses on time (if it has; with ``expected_version``,
    only at that version)."""

    kind: ClassVar[str] = "flag"

    expected_version: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Seed(_Done):
    """A player's kva-fair/1 client seed: ``value`` as the client sent it (its form is
    checked after the seat)."""

    kind: ClassVar[str] = "seed"

    user_id: int | None
    value: object


@dataclasses.dataclass(frozen=True, slots=True)
class Cancel(_Happened):
    """Its creator cancels a waiting table; whether it was cancelled."""

    kind: ClassVar[str] = "cancel"

    user_id: int


@dataclasses.dataclass(frozen=True, slots=True)
class SeatPlayer(Command[int | None]):
    """A player joining a table takes its first free seat; the seat they sit in (None: no
    seat was free for them)."""

    kind: ClassVar[str] = "seat"

    user_id: int
    nickname: str

    def result(self, value: object) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass(frozen=True, slots=True)
class SeatBot(Command[int | None]):
    """A table's creator puts a bot of ``level`` in its first free seat; the bot's seat (None:
    refused, nothing changed)."""

    kind: ClassVar[str] = "seat_bot"

    user_id: int
    level: str

    def result(self, value: object) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass(frozen=True, slots=True)
class LeaveSeat(_Happened):
    """A joiner leaves a table before its start, freeing the seat; whether it was freed."""

    kind: ClassVar[str] = "leave_seat"

    user_id: int


#: Every command of a live match.
AnyCommand: TypeAlias = (Act | Resign | Abort | Forfeit | Flag | Seed | Cancel | SeatPlayer
                         | SeatBot | LeaveSeat)

#: Each command's class by its name on the wire.
COMMANDS: dict[str, type[AnyCommand]] = {
    cls.kind: cls for cls in (Act, Resign, Abort, Forfeit, Flag, Seed, Cancel, SeatPlayer,
                              SeatBot, LeaveSeat)
}


def command_from_wire(wire: object) -> AnyCommand:
    """The command a JSON object describes (:meth:`Command.to_wire`); :class:`BadCommand`
    says what is wrong with anything else: no object, an unknown kind, a field missing, one
    too many, or one of the wrong type."""
    if not isinstance(wire, dict):
        raise BadCommand(f"a command is a JSON object, found {type(wire).__name__}")
    kind = wire.get("kind")
    cls = COMMANDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadCommand(f"unknown command kind {kind!r}")
    names = [field.name for field in dataclasses.fields(cls)]
    extra = sorted(str(key) for key in wire if key != "kind" and key not in names)
    if extra:
        raise BadCommand(f"{kind!r} has no field named {', '.join(map(repr, extra))}")
    missing = [name for name in names if name not in wire]
    if missing:  # every field travels, the optional ones too: a missing one is an error
        raise BadCommand(f"{kind!r} lacks {', '.join(map(repr, missing))}")
    # Checked here, where a command arrives from outside (another process), and not when one
    # is built: in-process builders are typed, and a check on every action costs the hot path.
    for name, expected in _field_types(cls).items():
        if not _conforms(wire[name], expected):
            raise BadCommand(f"{kind!r}: {name} must be {_describe(expected)}, "
                             f"found {wire[name]!r}")
    return cls(**{name: wire[name] for name in names})


def client_version(value: object) -> int | None:
    """The version a client sent, as :class:`Act` carries it: a whole number (not a bool),
    else None (judged ``stale``, as any version the match is not at)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---------------------------------------------------------------------------- field checks
_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(cls: type) -> dict[str, Any]:
    """Each field of a command class → its type (resolved once per class)."""
    found = _TYPES.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        found = _TYPES[cls] = {field.name: hints[field.name]
                               for field in dataclasses.fields(cls)}
    return found


def _conforms(value: object, expected: Any) -> bool:
    """Whether ``value`` is of the field type ``expected``: ``object`` is any JSON value; a
    bool is not an int (JSON tells them apart)."""
    if isinstance(expected, types.UnionType):
        return any(_conforms(value, option) for option in expected.__args__)
    if expected is object:
        return _is_json(value)
    if expected is type(None):
        return value is None
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


def _is_json(value: object) -> bool:
    """Whether ``value`` travels as JSON as it is (what a client's message holds). Walked
    with a list, not recursion: a client's deeply nested value must not overflow the stack."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            pending.extend(item.values())
        elif not (item is None or isinstance(item, str | int | float | bool)):
            return False
    return True


def _describe(expected: Any) -> str:
    if expected is object:
        return "a JSON value"
    if isinstance(expected, types.UnionType):
        return " or ".join(_describe(option) for option in expected.__args__)
    return "null" if expected is type(None) else str(expected.__name__)
