"""Counted texts for the pages' scripts (kva/i18n/plurals.py): each language's plural forms,
one per CLDR category, and percentages in each language's own pattern."""

from __future__ import annotations

import re

import pytest

from kva.i18n import LOCALES, number_symbols
from kva.i18n.plurals import counted_texts, samples


def test_english_says_one_point_and_one_deal() -> None:
    texts = counted_texts("en")
    assert texts["win_chance"]["one"] == "{n} point of win chance"
    assert texts["win_chance"]["other"] == "{n} points of win chance"
    assert texts["fair_verified"]["one"] == "All {n} deal verified"
    assert texts["hand_pips"]["one"] == "{n} pip"


def test_russian_has_three_forms() -> None:
    pips = counted_texts("ru")["hand_pips"]
    assert (pips["one"], pips["few"], pips["many"]) == ("{n} точка", "{n} точки", "{n} точек")
    assert pips["other"] == "{n} точки"  # a fraction: "2,5 точки"


@pytest.mark.parametrize("lang", ["ka", "tr"])
def test_georgian_and_turkish_keep_the_noun_singular(lang: str) -> None:
    for forms in counted_texts(lang).values():
        assert len(set(forms.values())) == 1, forms


@pytest.mark.parametrize("lang", LOCALES)
def test_every_category_of_the_language_has_a_form(lang: str) -> None:
    for forms in counted_texts(lang).values():
        assert set(forms) == set(samples(lang)) and "other" in forms
        assert all("{n}" in text for text in forms.values())


def test_turkish_win_chance_reads_naturally() -> None:
    assert counted_texts("tr")["win_chance"]["other"] == "kazanma şansından {n} puan"


@pytest.mark.parametrize(("lang", "pattern"), [
    ("en", "#,##0%"), ("ka", "#,##0%"), ("ru", "#,##0\u00a0%"), ("tr", "%#,##0")])
def test_the_percent_pattern_is_babels_for_the_language(lang: str, pattern: str) -> None:
    assert number_symbols(lang)["percent"] == pattern


def test_no_english_text_asks_for_a_tap_alone() -> None:
    """The same pages serve a mouse and a finger: a text says "choose", or names every way
    ("tap, click or key press"), never "tap" alone."""
    from babel.messages.pofile import read_po

    from kva.i18n import LOCALE_DIR

    with open(LOCALE_DIR / "en" / "LC_MESSAGES" / "messages.po", "rb") as f:
        catalog = read_po(f)
    tapping = [m.id for m in catalog if m.id and re.search(r"\btap", str(m.id), re.I)
               and "tap, click" not in str(m.id)]
    assert not tapping, tapping


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["coin", "coins", "coins"]), ("ru", ["монета", "монеты", "монет"]),
    ("tr", ["jeton", "jeton", "jeton"])])
def test_the_wallets_balance_names_its_coins_in_the_right_form(lang: str, words: list[str]) -> None:
    import jinja2

    from kva.i18n import jinja_env

    env = jinja_env(lang, jinja2.DictLoader({}))
    template = env.from_string('{{ ngettext("coin", "coins", n) }}')
    assert [template.render(n=n) for n in (1, 3, 5)] == words
