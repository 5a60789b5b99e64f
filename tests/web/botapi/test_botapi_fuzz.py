"""The bot API's action endpoint under fuzz: any body (any JSON value, objects with random
fields and types, brackets nested past the parser's depth, bytes that are not UTF-8, bodies
over the limit, plain text) gets one JSON error with a documented code and a 4xx status, and
the match does not move."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kva.web.botapi import MAX_BODY
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot
from tests.web.test_web_fuzz import JSON_VALUES, NESTED, NOT_UTF8

CODES = {"bad_json", "unknown_field", "missing_field", "bad_type", "too_big", "illegal",
         "stale", "not_your_turn", "over"}
ACTIONS = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass"]) | JSON_VALUES},
    optional={"tile": JSON_VALUES, "end": JSON_VALUES, "junk": JSON_VALUES})
BODIES = st.one_of(
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({}, optional={"version": st.integers(-3, 30) | JSON_VALUES,
                                        "action": ACTIONS | JSON_VALUES,
                                        "junk": JSON_VALUES}).map(lambda v: json.dumps(v).encode()),
    NESTED.map(str.encode),
    NOT_UTF8,
    st.integers(MAX_BODY + 1, 3 * MAX_BODY).map(lambda n: json.dumps({"pad": "x" * n}).encode()),
    st.text(max_size=30).map(str.encode),
    st.binary(max_size=30),
)


@pytest.fixture
async def arena(make_server: Any) -> Any:
    """A match between two API bots: the base URL, the token of the bot to move, the match
    id and its version (no rate limit: every fuzzed body must reach the endpoint)."""
    server = make_server(bot_api_rate="1000000/minute")
    owners, names, tokens = [], [], []
    for _ in range(2):
        owner, name, token = await new_bot(server.base_url)
        owners.append(owner)
        names.append(name)
        tokens.append(token)
    a, b = ApiClient(server.base_url, tokens[0]), ApiClient(server.base_url, tokens[1])
    r = await a.post(f"/api/challenge/{names[1]}", {"target": 75})
    r = await b.post(f"/api/challenge/{r.json()['id']}/accept")
    match_id = r.json()["match_id"]
    stream = await Stream(a, f"/api/bot/match/{match_id}/stream").open()
    state = await stream.wait_for(lambda m: m["view"]["turn"] is not None)
    mover = tokens[0] if state["view"]["turn"] == state["you"] else tokens[1]
    await stream.close()
    yield server.base_url, mover, match_id, state["version"]
    for c in (a, b):
        await c.close()
    for o in owners:
        await o.__aexit__()


def test_any_body_gets_one_clear_error(arena: Any) -> None:
    base_url, token, match_id, version = arena
    http = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"})
    path = f"/api/bot/match/{match_id}/action"

    @settings(max_examples=250, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(body=BODIES)
    def fuzz(body: bytes) -> None:
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):
            parsed = None
        assume(not (isinstance(parsed, dict) and parsed.get("version") == version
                    and isinstance(parsed.get("action"), dict)
                    and set(parsed) == {"version", "action"}
                    and parsed["action"].get("type") in ("play", "draw", "pass")))
        r = http.post(path, content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, (body[:80], r.status_code, r.text[:200])
        answer = r.json()
        assert answer["type"] == "error" and answer["code"] in CODES, answer
        assert isinstance(answer["message"], str) and answer["message"]

    fuzz()
    with http.stream("GET", f"/api/bot/match/{match_id}/stream") as resp:
        first = json.loads(next(resp.iter_lines()))
    assert first["version"] == version, "the match moved"
    http.close()
