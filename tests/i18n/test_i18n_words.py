"""The game's own words in every language: what the seeds' site says, one term per language.

A blocked board with equal pips is «фре» on the Georgian and Russian site («рыба — ничья» as the
long form); Turkish players say the game "locks" (kilitlendi), not a literal "fish"; English
says "blocked". A blocked board is one thing per language, never the lobby's closed table, and a
finished event is told in the past tense.
"""

from __future__ import annotations

import re

import pytest

import kva.i18n as i18n

DRAWN_FISH = "Blocked, and a tie: equal pips, nobody scores."
WON_FISH = "Blocked! {name} has fewer pips and scores {points}."


def gettext(locale: str, text: str) -> str:
    i18n.clear_caches()
    return i18n.translations(locale).gettext(text)


@pytest.mark.parametrize("locale, word", [("ka", "ფრე"), ("ru", "Фре")])
def test_a_drawn_fish_is_fre_in_georgian_and_russian(locale: str, word: str) -> None:
    assert gettext(locale, DRAWN_FISH).startswith(word + "!")


def test_russian_drawn_fish_gives_the_long_form_too() -> None:
    assert "рыба — ничья" in gettext("ru", DRAWN_FISH).lower()


def test_turkish_says_the_game_locks_not_fish() -> None:
    for text in (DRAWN_FISH, WON_FISH, "The blocked board", "Blocking the board"):
        translated = gettext("tr", text)
        assert "kilit" in translated.lower(), translated
        assert "balık" not in translated.lower(), translated


def test_no_catalog_calls_a_blocked_board_fish_in_turkish() -> None:
    catalog = i18n.translations("tr")
    i18n.clear_caches()
    texts = [m for m in catalog._catalog.values() if isinstance(m, str)]  # noqa: SLF001
    assert texts and not [t for t in texts if re.search(r"bal[ıi]k", t, re.IGNORECASE)]


@pytest.mark.parametrize("text", [
    "The blocked board",
    "Nothing can be drawn any more. One of your moves blocks the board: no tile left in play "
    "would fit any open end. The board is blocked (in Georgian რიბა, \"fish\"): the hand ends, "
    "the smaller pip total wins and scores the other's, rounded up. You hold fewer pips than "
    "your opponent. Find the move that blocks the board.",
    "1-3 on the right blocks the board: no tile left in play fits an open end. You hold 26 "
    "pips, your opponent 42: you score 45.",
])
def test_russian_blocked_board_is_a_closed_chain_never_a_closed_table(text: str) -> None:
    translated = gettext("ru", text)
    assert "стол" not in translated, translated
    assert "цеп" in translated, translated


@pytest.mark.parametrize("text", ["{name} resigned.", "{name} resigned"])
def test_russian_resignation_is_told_in_the_past_tense(text: str) -> None:
    translated = gettext("ru", text)
    assert "сдался" in translated and "сдаётся" not in translated


def test_english_never_calls_the_blocked_board_fish_in_play() -> None:
    for text in (DRAWN_FISH, WON_FISH):
        assert "fish" not in gettext("en", text).lower()
