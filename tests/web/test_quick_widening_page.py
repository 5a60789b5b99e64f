"""The quick-game page states how the search widens, with the pairing rule's own numbers."""

from __future__ import annotations

import httpx
import pytest

from kva.service.lobby.matchmaking import (
    BOT_OFFER_AFTER,
    RANGE_EVERY,
    RANGE_MAX,
    RANGE_START,
    RANGE_STEP,
    rating_range,
)
from tests.helpers.webhelp import ServerThread


def _widening(text: str) -> str:
    start = text.index('data-testid="quick-widening">') + len('data-testid="quick-widening">')
    return text[start:text.index("</p>", start)]


async def test_the_searching_page_states_the_widening_schedule(server: ServerThread) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/quick", params={"target": "75"},
                           headers={"Accept-Language": "en"})
    assert r.status_code == 200
    said = _widening(r.text)
    assert f"±{int(RANGE_START)} rating points" in said
    assert f"every {int(RANGE_EVERY)} seconds the range grows by {int(RANGE_STEP)} points" in said
    assert f"up to ±{int(RANGE_MAX)}" in said and f"After {int(BOT_OFFER_AFTER)} seconds" in said


def test_the_stated_numbers_are_the_rule_that_pairs() -> None:
    # The page's sentence is only true if the schedule it reads is the one pairing uses.
    assert rating_range(0) == RANGE_START
    assert rating_range(RANGE_EVERY) == RANGE_START + RANGE_STEP
    assert rating_range(3600) == RANGE_MAX


@pytest.mark.parametrize(("lang", "word"), [("ka", "წამში"), ("ru", "секунд"), ("tr", "saniyede")])
async def test_the_widening_is_said_in_each_language(
    server: ServerThread, lang: str, word: str
) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/quick", params={"target": "75"}, headers={"Accept-Language": lang})
    said = _widening(r.text)
    assert word in said and f"±{int(RANGE_MAX)}" in said
