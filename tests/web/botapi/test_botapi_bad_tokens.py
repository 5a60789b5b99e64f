"""Wrong bot tokens are rate-limited per address (client_key): after
``KVA_BOT_API_AUTH_FAIL_RATE`` failed authentications the address gets 429 ``rate_limited``
with Retry-After, even with a good token, until the window passes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.botapi.botapi_help import ApiClient, new_bot


async def test_failed_bot_token_authentications_are_limited_per_address(
        make_server: Callable[..., Any]) -> None:
    server = make_server(bot_api_auth_fail_rate="5/minute")
    owner, _name, token = await new_bot(server.base_url)
    guesser = ApiClient(server.base_url, "kvab_" + "x" * 40)
    statuses = [(await guesser.http.get("/api/account")).status_code for _ in range(5)]
    assert statuses == [401] * 5
    refused = await guesser.http.get("/api/account")
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    good = ApiClient(server.base_url, token)  # same address: refused before the lookup
    assert (await good.http.get("/api/account")).status_code == 429
    for c in (guesser, good):
        await c.close()
    await owner.__aexit__()
