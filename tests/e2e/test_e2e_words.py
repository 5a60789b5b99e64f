"""Counted texts and percentages as the page writes them, in each language: the plural form
the language needs and its own percent pattern (the server's Babel data, not the browser's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytestmark = pytest.mark.browser

CALL = """async ([key, n]) => (await import('/static/i18n.js')).tn(key, n)"""
PERCENT = """async (n) => (await import('/static/i18n.js')).formatPercent(n)"""


def _page(new_context: Callable[..., Any], lang: str) -> Any:
    page = new_context(locale=lang).new_page()
    page.goto("/")
    return page


@pytest.mark.parametrize(("key", "n", "text"), [
    ("win_chance", 1, "1 point of win chance"), ("win_chance", 5, "5 points of win chance"),
    ("fair_verified", 1, "All 1 deal verified"), ("fair_verified", 3, "All 3 deals verified"),
    ("hand_pips", 1, "1 pip"), ("tiles", 1, "1 tile"), ("tiles", 7, "7 tiles")])
def test_english_counts_one_and_many(
    new_context: Callable[..., Any], key: str, n: int, text: str
) -> None:
    assert _page(new_context, "en").evaluate(CALL, [key, n]) == text


def test_russian_counts_in_three_forms(new_context: Callable[..., Any]) -> None:
    page = _page(new_context, "ru")
    got = [page.evaluate(CALL, ["hand_pips", n]) for n in (1, 2, 5, 21, 12)]
    assert got == ["1 точка", "2 точки", "5 точек", "21 точка", "12 точек"]
    tiles = [page.evaluate(CALL, ["tiles", n]) for n in (1, 3, 7)]
    assert tiles == ["1 кость", "3 кости", "7 костей"]


@pytest.mark.parametrize(("lang", "text"), [
    ("tr", "%83,3"), ("ru", "83,3\u00a0%"), ("en", "83.3%")])
def test_a_percentage_is_written_the_languages_way(
    new_context: Callable[..., Any], lang: str, text: str
) -> None:
    assert _page(new_context, lang).evaluate(PERCENT, 83.3) == text


def test_turkish_counts_with_a_singular_noun(new_context: Callable[..., Any]) -> None:
    page = _page(new_context, "tr")
    assert page.evaluate(CALL, ["win_chance", 5]) == "kazanma şansından 5 puan"
    assert page.evaluate(CALL, ["fair_verified", 1]) == "1 dağıtım doğrulandı"
