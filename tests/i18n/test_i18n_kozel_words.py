"""The Kozel table's words (kva/web/kozel_words.py): in every catalog, in each language's own
domino words, and on the page as ``#kozel-strings`` for the table's script."""

from __future__ import annotations

import json
import re

import pytest

import kva.i18n as i18n
from kva.i18n import LOCALES
from kva.web.kozel_words import TABLE_WORDS, table_words
from kva.web.render import TEMPLATE_LOADER
from tests.i18n.test_i18n_catalogs import extracted, placeholders

#: Words that stay as they are in a language: the game's name where it has no other.
_SAME = {("en", key) for key in TABLE_WORDS} | {("tr", "game_name")}


def test_every_table_word_is_extracted() -> None:
    known = {key[0] for key in extracted()}
    assert not [text for text in TABLE_WORDS.values() if text not in known]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_table_word_is_translated_with_its_placeholders(locale: str) -> None:
    i18n.clear_caches()
    words = table_words(locale)
    assert words.keys() == TABLE_WORDS.keys()
    untranslated = [key for key, text in TABLE_WORDS.items()
                    if words[key] == text and (locale, key) not in _SAME]
    assert not untranslated, f"{locale}: {untranslated}"
    assert [key for key, text in TABLE_WORDS.items()
            if placeholders(words[key]) != placeholders(text)] == []


@pytest.mark.parametrize(("locale", "expected"), [
    ("en", {"game_name": "Kozel", "goat": "the goat", "fish": "Fish", "bazaar": "Bazaar"}),
    ("ru", {"game_name": "Козёл", "goat": "козёл", "fish": "Рыба", "fisher": "Рыбак",
            "knock": "Стук", "bazaar": "Базар", "fish_all": "Рыба на всех",
            "fish_one": "Рыба на одного", "pair_game": "Пара на пару"}),
    ("ka", {"game_name": "კოზელი", "goat": "თხა", "fish": "რიბა", "bazaar": "ბაზარი"}),
    ("tr", {"game_name": "Kozel", "goat": "keçi", "fish": "Kilit", "bazaar": "Pazar"}),
])
def test_the_players_own_words(locale: str, expected: dict[str, str]) -> None:
    """Russian keeps «козёл», «рыба», «базар»; the other languages use the words their domino
    players say (the site's Georgian fish is «რიბა», and Turkish players say a blocked game
    locks, «kilit», never a literal fish)."""
    i18n.clear_caches()
    words = table_words(locale)
    assert {key: words[key] for key in expected} == expected
    if locale == "tr":
        assert not [w for w in words.values() if re.search(r"bal[ıi]k", w, re.IGNORECASE)]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_strings_element_carries_every_word(locale: str) -> None:
    i18n.clear_caches()
    env = i18n.jinja_env(locale, TEMPLATE_LOADER)
    html = env.get_template("_kozel_strings.html").render(
        kozel_words=lambda: table_words(locale))
    found = re.search(r'<script type="application/json" id="kozel-strings">(.*)</script>', html)
    assert found is not None
    carried = json.loads(found.group(1))
    # every word of the game, beside the table's own texts (kozel_table's script)
    assert {key: carried[key] for key in table_words(locale)} == table_words(locale)
