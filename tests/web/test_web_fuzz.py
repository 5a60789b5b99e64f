"""The WebSocket protocol under fuzz: every bad frame a client can send (any JSON value, a
message of a real type with random fields, brackets nested past the parser's depth, bytes that
are not UTF-8, a frame over the size limit) gets exactly one ``error`` reply and nothing else;
the socket stays open and the match does not move."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from kva.config import Settings
from kva.rules.engine import TILE_NAME
from kva.service.lobby.rematch import REMATCH_TYPES
from kva.service.play.presence import CLAIM_TYPE
from kva.web.ws import MAX_FRAME
from tests.helpers import webhelp

# ------------------------------------------------------------------ frames
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**200), max_value=10**200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.sampled_from([*TILE_NAME, "6-4", "L", "R", "U", "D", "play", "draw", "pass", "7-7"])
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
REAL_TYPES = ["hello", "action", "resign", "ping", *REMATCH_TYPES, CLAIM_TYPE]
# Only these ever get an answer other than an error: what the fuzz must leave out.
GOOD_TYPES = {"hello", "ping", "resign"}
ACTIONS = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass"]) | JSON_VALUES},
    optional={"tile": JSON_VALUES, "end": JSON_VALUES, "junk": JSON_VALUES},
)


def _messages(version: int) -> st.SearchStrategy[Any]:
    """Messages of a real type with random fields (an action at the right version often)."""
    return st.fixed_dictionaries(
        {"type": st.sampled_from(REAL_TYPES)},
        optional={
            "version": st.just(version) | JSON_VALUES,
            "action": ACTIONS | JSON_VALUES,
            "junk": JSON_VALUES,
        },
    )


def _nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    if kind == "object":
        return '{"a":' * depth + "1" + "}" * depth
    return '{"type":"action","action":' + "[" * depth + "]" * depth + "}"


NESTED = st.builds(_nested, st.integers(1, 1300), st.sampled_from(["list", "object", "in_action"]))
NOT_UTF8 = st.binary(min_size=1, max_size=64).filter(lambda b: not _utf8(b))
OVERSIZE = st.integers(MAX_FRAME + 1, 16 * 1024).map(
    lambda n: json.dumps({"type": "ping", "pad": "x" * n})
)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _frames(version: int) -> st.SearchStrategy[str | bytes]:
    return st.one_of(
        JSON_VALUES.map(json.dumps),
        _messages(version).map(json.dumps),
        st.fixed_dictionaries(  # an action at the right version: it reaches the rules
            {"type": st.just("action"), "version": st.just(version), "action": ACTIONS}
        ).map(json.dumps),
        NESTED,
        NOT_UTF8,
        OVERSIZE,
        st.text(max_size=30),  # mostly not JSON at all
        st.binary(max_size=30),
    )


def _is_bad(frame: str | bytes, hand: set[str]) -> bool:
    """Whether the protocol must refuse ``frame`` (rather than answer or play it)."""
    if isinstance(frame, bytes):
        if not _utf8(frame):
            return True
        frame = frame.decode("utf-8")
    if len(frame.encode("utf-8")) > MAX_FRAME:
        return True
    try:
        msg = json.loads(frame)
    except (ValueError, RecursionError):
        return True
    if not isinstance(msg, dict) or msg.get("type") not in GOOD_TYPES | {"action"}:
        return True
    if msg["type"] in GOOD_TYPES:
        return False
    action = msg.get("action")
    if not isinstance(action, dict):
        return True
    if action.get("type") in ("draw", "pass"):
        return False  # could be legal (it is not on this table's first move, but why bet)
    tile = action.get("tile")
    return not (action.get("type") == "play" and isinstance(tile, str) and _names(tile) & hand)


def _names(tile: str) -> set[str]:
    return {tile.strip(), tile.strip()[::-1]}


# ------------------------------------------------------------------ the table
def _lenient(**kwargs: Any) -> Settings:
    """Test settings without the per-socket rate limit (the fuzz sends hundreds of frames)."""
    names = {f.name for f in dataclasses.fields(Settings)}
    loose = {"ws_rate": 1e6, "ws_burst": 10**6, "ws_flood": 10**6}
    return Settings(**kwargs, **{k: v for k, v in loose.items() if k in names})


def _client(stack: ExitStack, base_url: str) -> httpx.Client:
    client = stack.enter_context(httpx.Client(base_url=base_url))
    client.get("/")
    return client


def _socket(stack: ExitStack, base_url: str, match_id: str, client: httpx.Client) -> Any:
    url = base_url.replace("http://", "ws://") + f"/ws/m/{match_id}"
    cookie = client.cookies.get("kva_session") or ""
    return stack.enter_context(
        connect(url, additional_headers={"Cookie": f"kva_session={cookie}"}, max_size=2**22)
    )


def _recv(ws: ClientConnection) -> dict[str, Any]:
    message = json.loads(ws.recv(timeout=10))
    assert isinstance(message, dict)
    return message


def _until(ws: ClientConnection, kind: str) -> list[dict[str, Any]]:
    """Every message up to and including the first of type ``kind``."""
    seen = [_recv(ws)]
    while seen[-1].get("type") != kind:
        seen.append(_recv(ws))
    return seen


def _state(ws: ClientConnection) -> dict[str, Any]:
    ws.send(json.dumps({"type": "hello", "version": 0}))
    state = _until(ws, "state")[-1]
    _until_pong(ws)
    return state


def _until_pong(ws: ClientConnection) -> list[dict[str, Any]]:
    ws.send(json.dumps({"type": "ping"}))
    return _until(ws, "pong")


@pytest.fixture
def table(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[ClientConnection, ClientConnection, dict[str, Any]]]:
    """A friend match with both players connected: (mover's socket, waiter's socket, state)."""
    monkeypatch.setattr(webhelp, "Settings", _lenient)
    server = webhelp.ServerThread(database_url).start()
    try:
        with ExitStack() as stack:
            base = server.base_url
            host, guest = _client(stack, base), _client(stack, base)
            r = host.post(
                "/matches",
                data={"opponent": "friend", "target": "75", "bazaar": "draw", "password": ""},
            )
            assert r.status_code == 303, r.text
            match_id = r.headers["location"].rsplit("/", 1)[1]
            page = host.get(f"/m/{match_id}").text
            token = re.search(r'/t/([A-Za-z0-9_-]+)" data-testid="share-link"', page)
            assert token is not None
            joined = guest.post(f"/t/{token.group(1)}", data={"password": ""})
            assert joined.status_code == 303, joined.text
            sockets = [_socket(stack, base, match_id, c) for c in (host, guest)]
            states = [_state(ws) for ws in sockets]
            mover = next(i for i, s in enumerate(states) if s["view"]["turn"] == s["you"])
            yield sockets[mover], sockets[1 - mover], _state(sockets[mover])
    finally:
        server.stop()


# ------------------------------------------------------------------ the property
def test_every_bad_frame_gets_one_error_and_changes_nothing(
    table: tuple[ClientConnection, ClientConnection, dict[str, Any]],
) -> None:
    mover, waiter, before = table
    version = before["version"]
    hand = set(before["view"]["hand"])
    codes: list[str] = []

    @settings(
        max_examples=150,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(frame=_frames(version))
    def bad_frame_gets_one_error(frame: str | bytes) -> None:
        if not _is_bad(frame, hand):
            return
        mover.send(frame)
        reply = _recv(mover)
        assert reply.get("type") == "error", (frame[:200], reply)
        assert isinstance(reply.get("code"), str) and isinstance(reply.get("message"), str)
        codes.append(reply["code"])
        # Nothing else came: the very next message is the answer to a ping (and the socket is
        # still open to answer it).
        assert _until_pong(mover) == [{"type": "pong"}]

    bad_frame_gets_one_error()
    after = _state(mover)
    assert after["version"] == version and after["view"] == before["view"]
    assert _until_pong(waiter) == [{"type": "pong"}]  # the other player was told nothing
    assert {"bad_json", "unknown_type", "too_big", "illegal"} <= set(codes), set(codes)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("[" * 1000 + "]" * 1000, "bad_json"),
        ('{"type":"action","action":' + "[" * 1000 + "]" * 1000 + "}", "bad_json"),
        (b"\xff\xfe{", "bad_json"),
        ("{" + '"x":1,' * 1000 + '"type":"ping"}', "too_big"),
    ],
)
def test_frames_past_the_parser_are_refused(
    table: tuple[ClientConnection, ClientConnection, dict[str, Any]], frame: str | bytes, code: str
) -> None:
    mover, _, before = table
    mover.send(frame)
    reply = _recv(mover)
    assert reply["type"] == "error" and reply["code"] == code
    assert _until_pong(mover) == [{"type": "pong"}]
    assert _state(mover)["version"] == before["version"]


def test_a_list_for_the_end_is_an_illegal_action(
    table: tuple[ClientConnection, ClientConnection, dict[str, Any]],
) -> None:
    mover, _, before = table
    mover.send(
        json.dumps(
            {
                "type": "action",
                "version": before["version"],
                "action": {"type": "play", "tile": "6-4", "end": ["L"]},
            }
        )
    )
    reply = _recv(mover)
    assert reply["type"] == "error" and reply["code"] == "illegal", reply
    assert _until_pong(mover) == [{"type": "pong"}]
    assert _state(mover)["version"] == before["version"]
