"""The help page: the rules of rating, leaving and rematches, with this server's limits, in
every language, linked from every page's footer."""

from __future__ import annotations

import re

import httpx
import pytest


@pytest.mark.parametrize("lang", ["ka", "en", "ru", "tr"])
async def test_help_states_the_configured_limits_in_each_language(make_server, lang) -> None:
    server = make_server(disconnect_grace=45.0, first_move_timeout=90.0)
    async with httpx.AsyncClient(base_url=server.base_url,
                                 headers={"accept-language": lang}) as http:
        page = await http.get("/help")
        home = await http.get("/")
    assert page.status_code == 200
    assert re.search(r'data-testid="help-grace" data-seconds="45"[^>]*>[^<]*45', page.text)
    assert re.search(r'data-testid="help-timeout" data-seconds="90"[^>]*>[^<]*90', page.text)
    assert 'href="/help"' in home.text  # the footer links it
    if lang != "en":
        async with httpx.AsyncClient(base_url=server.base_url,
                                     headers={"accept-language": "en"}) as http:
            english = await http.get("/help")
        grace = re.compile(r'data-testid="help-grace"[^>]*>([^<]*)<')
        assert grace.search(page.text).group(1) != grace.search(english.text).group(1)
