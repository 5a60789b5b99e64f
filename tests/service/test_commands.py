"""Typed commands (kva/service/play/commands.py): every change to a live match is one frozen
dataclass, routed as it is and forwarded between processes as its wire form. Each command
round-trips through that form; anything that is not exactly one command is refused with
:class:`BadCommand` before anything runs; a command forwarded to the owner of a match (two
"processes" on one database and one Redis, tests/helpers/owners_help.py) is made there and its
typed result comes back.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service import PlayError
from kva.service.play import PlayService
from kva.service.play.commands import (
    COMMANDS,
    Abort,
    Act,
    AnyCommand,
    BadCommand,
    Cancel,
    Flag,
    Forfeit,
    LeaveSeat,
    Resign,
    SeatBot,
    SeatPlayer,
    Seed,
    client_version,
    command_from_wire,
)
from kva.storage.db import Database
from tests.helpers.community_help import make_user
from tests.helpers.owners_help import Cluster, lease_router, running_cluster
from tests.helpers.play import make_play

#: One of each command, with every field set to something other than its default.
EXAMPLES: list[AnyCommand] = [
    Act("m1", 7, 41, {"kind": "play", "tile": [6, 6], "end": "left"}, "ab" * 32),
    Resign("m1", 7),
    Abort("m1", None),
    Forfeit("m1", 1, "timeout", 12),
    Flag("m1", 12),
    Seed("m1", 7, "0123456789abcdef0123456789abcdef"),
    Cancel("m1", 7),
    SeatPlayer("m1", 8, "Nino"),
    SeatBot("m1", 7, "hard"),
    LeaveSeat("m1", 8),
]


def test_the_kinds_are_the_names_the_processes_agree_on() -> None:
    """The wire names of the changes never change: processes of one deployment must agree."""
    assert sorted(COMMANDS) == sorted(
        ["act", "resign", "forfeit", "seed", "cancel", "seat", "flag", "abort", "seat_bot",
         "leave_seat"])
    assert {type(c) for c in EXAMPLES} == set(COMMANDS.values())


@pytest.mark.parametrize("command", EXAMPLES, ids=lambda c: c.kind)
def test_every_command_round_trips_through_its_wire_form(command: AnyCommand) -> None:
    wire = command.to_wire()
    assert wire["kind"] == command.kind and wire["match_id"] == command.match_id
    travelled = json.loads(json.dumps(wire))  # as a forwarded request carries it
    assert command_from_wire(travelled) == command


def test_the_optional_fields_travel_too() -> None:
    for command in (Act("m", 1, None, None), Flag("m"), Forfeit("m", 0, "abandon")):
        assert command_from_wire(json.loads(json.dumps(command.to_wire()))) == command


def test_the_results_are_typed() -> None:
    assert Flag("m").result(1) is True and Flag("m").result(None) is False
    assert Cancel("m", 1).result(True) is True
    assert Resign("m", 1).result("anything") is None
    seat = SeatPlayer("m", 1, "Nino")
    assert seat.result(2) == 2 and seat.result(None) is None and seat.result(True) is None


def test_a_client_version_is_a_whole_number_or_none() -> None:
    assert client_version(41) == 41
    assert [client_version(v) for v in (True, "41", 41.0, None, [41])] == [None] * 5


ACT = Act("m1", 7, 41, {"kind": "draw"}).to_wire()


@pytest.mark.parametrize(("wire", "says"), [
    (["act", "m1"], "a command is a JSON object, found list"),
    ({**ACT, "kind": "teleport"}, "unknown command kind 'teleport'"),
    ({k: v for k, v in ACT.items() if k != "kind"}, "unknown command kind None"),
    ({k: v for k, v in ACT.items() if k != "version"}, "'act' lacks 'version'"),
    ({k: v for k, v in ACT.items() if k != "player_session"}, "'act' lacks 'player_session'"),
    ({**ACT, "seat": 0}, "'act' has no field named 'seat'"),
    ({**ACT, "version": "41"}, "'act': version must be int or null, found '41'"),
    ({**ACT, "version": True}, "'act': version must be int or null, found True"),
    ({**ACT, "match_id": 5}, "'act': match_id must be str, found 5"),
    ({**ACT, "user_id": 7.0}, "'act': user_id must be int or null, found 7.0"),
    ({**Forfeit("m1", 0, "abandon").to_wire(), "reason": None},
     "'forfeit': reason must be str, found None"),
    ({**SeatPlayer("m1", 8, "Nino").to_wire(), "user_id": None},
     "'seat': user_id must be int, found None"),
], ids=["not-an-object", "unknown-kind", "no-kind", "missing", "missing-optional", "extra",
        "wrong-type", "bool-for-int", "match-id", "float-for-int", "none-for-str",
        "none-for-int"])
def test_bad_wire_input_is_refused_with_what_is_wrong(wire: Any, says: str) -> None:
    with pytest.raises(BadCommand) as refused:
        command_from_wire(wire)
    assert str(refused.value) == says


def test_a_forwarded_command_with_a_value_json_cannot_carry_is_refused() -> None:
    with pytest.raises(BadCommand, match="action must be a JSON value"):
        command_from_wire({**Act("m1", 7, 41, None).to_wire(), "action": object()})


async def test_a_process_alone_runs_each_command_here(
        database: Database, sessions: async_sessionmaker) -> None:
    play = make_play(database)
    a = await make_user(sessions)
    match_id, _token = await play.create_match(a.id, a.nickname, "friend", 75, "draw")
    assert await play.route(Flag(match_id)) is False  # a waiting table has no clock
    assert await play.route(Cancel(match_id, a.id)) is True
    await play.stop()


# ---------------------------------------------------------------------------- two processes
@pytest.fixture
async def cluster(database: Database, sessions: async_sessionmaker) -> AsyncIterator[Cluster]:
    async with running_cluster(database) as c:
        yield c


async def _two_processes(cluster: Cluster, sessions: async_sessionmaker
                         ) -> tuple[PlayService, PlayService, str, list[int]]:
    """An owner, another process, and a match of two guests the owner created (and holds)."""
    owner, other = await cluster.process(), await cluster.process()
    assert owner.owners is not None and other.owners is not None
    a = await make_user(sessions, kind="guest")
    b = await make_user(sessions, kind="guest")
    match_id, _ = await owner.create_match(a.id, a.nickname, "player", 75, "draw",
                                           opponent_user=(b.id, b.nickname))
    assert await cluster.lease(match_id) == owner.owners.me
    return owner, other, match_id, [a.id, b.id]


async def test_a_forwarded_command_is_made_by_the_owner_and_its_result_comes_back(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    owner, other, match_id, ids = await _two_processes(cluster, sessions)
    assert owner.owners is not None and other.owners is not None
    assert await other.route(Flag(match_id)) is False  # typed: a bool, from the owner
    with pytest.raises(PlayError) as refused:  # errors come back with their codes
        await other.route(Resign(match_id, 10**9))
    assert refused.value.code == "not_seated"
    version = owner._live[match_id].version
    assert await other.route(Resign(match_id, ids[0])) is None
    assert owner.owners.served == other.owners.forwarded == 3
    assert owner._live[match_id].status == "finished"
    assert owner._live[match_id].version == version + 1
    assert match_id not in other._live or other._live[match_id].version <= version + 1


async def test_a_bad_forwarded_request_is_refused_and_nothing_runs(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    owner, other, match_id, ids = await _two_processes(cluster, sessions)
    assert owner.owners is not None and other.owners is not None
    version, status = owner._live[match_id].version, owner._live[match_id].status
    resign = Resign(match_id, ids[0]).to_wire()
    bad: list[tuple[str, dict[str, object], str]] = [
        ("resign", {**resign, "user_id": "7"}, "user_id must be int or null"),
        ("resign", {**resign, "extra": 1}, "has no field named 'extra'"),
        ("resign", {"kind": "resign", "match_id": match_id}, "lacks 'user_id'"),
        ("teleport", {**resign, "kind": "teleport"}, "unknown command kind 'teleport'"),
        ("abort", resign, "the request 'abort' for match"),  # names another kind
    ]
    for op, body, says in bad:
        with pytest.raises(BadCommand, match=says):
            await other.owners.request(owner.owners.me, op, match_id, body)
    # and straight at the owner's router: refused before the lease is even looked at
    with pytest.raises(BadCommand):
        await lease_router(owner).serve("resign", "elsewhere", resign)
    assert owner._live[match_id].version == version
    assert owner._live[match_id].status == status
