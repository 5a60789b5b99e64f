"""The lesson over HTTP: steps as JSON, the engine's verdicts in the visitor's language, and a
registered player's progress kept in the account."""

from __future__ import annotations

from typing import Any

from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import Visitor


async def test_steps_and_verdicts_in_the_visitors_language(make_server: Any) -> None:
    server = make_server()
    async with Visitor(server.base_url, accept_language="ru") as v:
        r = await v.http.get("/learn")
        assert r.status_code == 200 and "learn.js" in r.text
        step = (await v.http.get("/learn/step/1")).json()
        assert step["n"] == 1 and step["view"]["turn"] == 0 and step["view"]["hand"]
        assert "Соперник" in step["instruction"]
        wrong = (await v.http.post("/learn/step/1/check",
                                   json={"action": {"type": "play", "tile": "0-0"}})).json()
        assert wrong == {"ok": False, "legal": False,
                         "message": "0-0 не подходит: ни один открытый конец не просит 0."}
        right = (await v.http.post("/learn/step/2/check",
                                   json={"action": {"type": "play", "tile": "5-5"}})).json()
        assert right["ok"] and right["points"] == 10 and right["view"]["board"]["opening"]
        assert (await v.http.get("/learn/step/99")).status_code == 404
        junk = (await v.http.post("/learn/step/1/check", content=b"[")).json()
        assert junk["ok"] is False
        # A guest's progress lives in the browser only.
        assert (await v.http.get("/learn/progress")).json() == {"stored": False, "done": []}


async def test_a_registered_players_progress_is_kept(make_server: Any) -> None:
    server = make_server()
    v, _name = await registered(server.base_url)
    try:
        r = await v.http.post("/learn/progress", json={"done": ["opener", "nonsense", "match"]})
        assert r.json() == {"stored": True, "done": ["match", "opener"]}
        r = await v.http.post("/learn/progress", json={"done": ["fish"]})
        assert r.json()["done"] == ["match", "opener", "fish"]
        assert (await v.http.get("/learn/progress")).json()["done"] == ["match", "opener", "fish"]
    finally:
        await v.__aexit__()


async def test_analysis_and_counting_aid_endpoints(make_server: Any) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        match_id = await v.new_match("bot:easy", 75)
        # A match in progress has no analysis yet; an unknown match has none at all.
        assert (await v.http.get(f"/m/{match_id}/analysis")).status_code == 409
        assert (await v.http.post(f"/m/{match_id}/analysis")).status_code == 409
        assert (await v.http.get("/m/nosuchmatch/analysis")).status_code == 404
        # The counting aid is offered in a bot match (casual), not for an unknown one.
        assert (await v.http.get(f"/learn/aid/{match_id}")).json() == {"allowed": True}
        assert (await v.http.get("/learn/aid/nosuchmatch")).status_code == 404
        page = (await v.http.get(f"/m/{match_id}")).text
        assert "counting.js" in page
