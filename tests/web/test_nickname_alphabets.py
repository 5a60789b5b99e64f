"""community.md, "Nicknames": a nickname is written in the letters of the site's languages only
(Latin with the Turkish letters, Georgian, Cyrillic), so no other script's look-alikes pass for
a name; a refusal says which letters are allowed, in the visitor's language."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kva.service.accounts.nicknames import NicknameError, check
from tests.helpers.accounts_help import register
from tests.helpers.webhelp import Visitor


def _refused_for_its_alphabet(name: str) -> None:
    with pytest.raises(NicknameError) as refused:
        check(name)
    assert refused.value.code == "nickname_alphabet"


def test_a_cherokee_name_that_reads_aber_is_refused() -> None:
    _refused_for_its_alphabet("\u13aa\u13f4\u13ac\u13a1")  # ᎪᏴᎬᎡ


def test_an_armenian_name_that_reads_hooh_is_refused() -> None:
    _refused_for_its_alphabet("\u0570\u0585\u0585\u0570")  # հօօհ


def test_a_lisu_name_that_reads_cinc_is_refused() -> None:
    _refused_for_its_alphabet("\ua4da\ua4f2\ua4e0\ua4da")  # ꓚꓲꓠꓚ


def test_a_greek_name_is_refused() -> None:
    _refused_for_its_alphabet("\u039d\u03af\u03ba\u03bf\u03c2")  # Νίκος


def test_georgian_asomtavruli_is_refused() -> None:
    _refused_for_its_alphabet("\u10a0\u10a1\u10a2")  # ႠႡႢ, the ecclesiastical capitals


def test_a_turkish_name_with_c_cedilla_g_breve_and_dotless_i_is_accepted() -> None:
    assert check("Çağrı") == "Çağrı"


def test_a_turkish_name_with_a_dotted_capital_i_is_accepted() -> None:
    assert check("İlkay") == "İlkay"


def test_a_georgian_mkhedruli_name_is_accepted() -> None:
    assert check("ნინო") == "ნინო"


def test_a_georgian_mtavruli_name_is_accepted() -> None:
    assert check("\u1c9c\u1c98\u1c9c\u1c9d") == "\u1c9c\u1c98\u1c9c\u1c9d"  # ᲜᲘᲜᲝ


def test_a_russian_name_with_yo_is_accepted() -> None:
    assert check("Ёжик") == "Ёжик"


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "Latin letters"), ("ka", "ლათინური"), ("ru", "латинскими"), ("tr", "Latin harfleri"),
])
async def test_a_refused_alphabet_is_explained_in_the_visitors_language(
    make_server: Callable[..., Any], lang: str, words: str
) -> None:
    server = make_server()
    async with Visitor(server.base_url, accept_language=lang) as v:
        r = await register(v, "\u13aa\u13f4\u13ac\u13a1")
        assert r.status_code == 400
        assert 'data-code="nickname_alphabet"' in r.text and words in r.text
