"""A stake typed with Unicode digits (``²``, which ``int()`` refuses; ``٣`` and ``１``, which
it converts) is a stake not on the list: 400 with the stake message on ``POST /matches`` and
``GET /quick``, never a 500 and never a match."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers.accounts_help import registered

UNICODE_STAKES = ("²", "٣", "１０", "1e3", "-1", "9" * 400)


async def test_a_stake_in_unicode_digits_is_a_bad_stake_over_http(
        make_server: Callable[..., Any]) -> None:
    server = make_server()
    host, _name = await registered(server.base_url, "gela")
    data = {"opponent": "open", "target": "75", "bazaar": "draw"}
    for bad in UNICODE_STAKES:
        r = await host.http.post("/matches", data={**data, "stake": bad})
        assert r.status_code == 400 and "Choose a stake" in r.text, (bad, r.status_code)
        r = await host.http.get("/quick", params={"stake": bad})
        assert r.status_code == 400 and "Choose a stake" in r.text, (bad, r.status_code)
    assert "data-match=" not in (await host.http.get("/lobby")).text
