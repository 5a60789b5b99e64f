"""Kozel's rules page: served in every language with nothing left in English, and linked from
the help page, the lesson and every page's footer."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import httpx
import pytest

from kva.i18n import translations

#: The texts a reader reads: headings, paragraphs and list items.
_TEXT = re.compile(r"<(h1|h2|p|li)\b[^>]*>(.*?)</\1>", re.DOTALL)


def _texts(html: str) -> list[str]:
    """The page's readable texts within the rules card, markup stripped."""
    card = html.split('data-testid="kozel-rules"', 1)[1].split("</article>", 1)[0]
    return [unescape(re.sub(r"<[^>]+>", "", m.group(2))).strip() for m in _TEXT.finditer(card)]


async def _get(base_url: str, lang: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base_url, headers={"accept-language": lang}) as http:
        return await http.get(path)


@pytest.mark.parametrize("lang", ["ka", "en", "ru", "tr"])
async def test_the_rules_page_is_served_in_each_language(make_server: Any, lang: str) -> None:
    server = make_server()
    page = await _get(server.base_url, lang, "/rules/kozel")
    assert page.status_code == 200
    title = translations(lang).gettext("Kozel: the rules")
    assert f"<h1>{title}</h1>" in page.text
    assert f'<html lang="{lang}"' in page.text
    texts = _texts(page.text)
    assert len(texts) > 30 and all(texts)
    # Short sentences in lists, no table: the page reads on a phone.
    assert "<table" not in page.text and page.text.count("<li>") > 25
    # Tile names keep their halves together on a narrow line.
    assert "1‑1" in page.text and "1-1" not in "".join(texts)
    if lang != "en":
        english = set(_texts((await _get(server.base_url, "en", "/rules/kozel")).text))
        left = [t for t in texts if t in english]
        assert not left, f"{lang}: left in English: {left}"


async def test_the_rules_are_linked_from_help_learn_and_the_footer(make_server: Any) -> None:
    server = make_server()
    for path, hook in (("/help", "help-kozel-rules"), ("/learn", "learn-kozel-rules"),
                       ("/", "footer-kozel-rules")):
        page = await _get(server.base_url, "ru", path)
        assert re.search(rf'<a href="/rules/kozel" data-testid="{hook}">Козёл: правила</a>',
                         page.text), path
    rules = (await _get(server.base_url, "en", "/rules/kozel")).text
    assert 'href="/help"' in rules and 'href="/learn"' in rules


async def test_the_words_of_each_language_are_the_players_own(make_server: Any) -> None:
    """Russian keeps «козёл» and «рыба»; Georgian and Turkish use their own words (Turkish
    players say a blocked game locks, «kilit», never a literal fish)."""
    server = make_server()
    pages = {lang: (await _get(server.base_url, lang, "/rules/kozel")).text
             for lang in ("ka", "ru", "tr")}
    assert "козёл" in pages["ru"] and "Рыба на одного" in pages["ru"] and "базар" in pages["ru"]
    assert "თხა" in pages["ka"] and "რიბა" in pages["ka"] and "ბაზარ" in pages["ka"]
    assert "keçi" in pages["tr"] and "Kilit" in pages["tr"] and "pazar" in pages["tr"]
    assert not re.search(r"bal[ıi]k", pages["tr"], re.IGNORECASE)
