"""Which language a visitor gets: an explicit choice (cookie) first, then the browser's
``Accept-Language`` in q order, then English. Cookie and header are untrusted input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kva.i18n import DEFAULT_LOCALE, LANGUAGE_NAMES, LOCALES, negotiate_locale, normalize_locale


def test_the_four_languages() -> None:
    assert LOCALES == ("ka", "en", "ru", "tr")
    assert DEFAULT_LOCALE == "en"
    assert LANGUAGE_NAMES == {"ka": "ქართული", "en": "English", "ru": "Русский", "tr": "Türkçe"}


@pytest.mark.parametrize(
    ("cookie", "header", "want"),
    [
        (None, None, "en"),
        ("", "", "en"),
        ("ka", None, "ka"),
        ("ka", "ru-RU,ru;q=0.9", "ka"),  # an explicit choice beats the browser
        ("TR", "ka", "tr"),
        ("ru-RU", None, "ru"),
        ("de", "ru-RU,ru;q=0.9,en;q=0.5", "ru"),  # an unknown cookie is ignored
        ("<script>", "tr-TR,tr;q=0.9", "tr"),
        (None, "ka-GE,ka;q=0.9,en-US;q=0.8,en;q=0.7", "ka"),
        (None, "de-DE,de;q=0.9,ka;q=0.5,en;q=0.3", "ka"),  # first supported, in q order
        (None, "en;q=0.2,ru;q=0.8", "ru"),  # q order, not position
        (None, "tr,ru", "tr"),  # equal q: header order
        (None, "fr-FR, de", "en"),
        (None, "*", "en"),
        (None, "ru;q=0, tr;q=0.1", "tr"),  # q=0 means "not this one"
        (None, "ru;q=0", "en"),
        (None, "ru;q=abc, ka;q=0.5", "ka"),  # malformed items are skipped, not fatal
        (None, ";;;,,q=,  ,tr", "tr"),
        (None, "ka_GE", "ka"),
        (None, "x" * 5000, "en"),
    ],
)
def test_negotiation(cookie: str | None, header: str | None, want: str) -> None:
    assert negotiate_locale(cookie, header) == want


@pytest.mark.parametrize(
    ("code", "want"),
    [
        ("ka", "ka"),
        ("KA", "ka"),
        ("ka-GE", "ka"),
        ("en_US", "en"),
        ("kz", None),
        ("", None),
        (None, None),
        ("ka;", None),
        ("../ka", None),
    ],
)
def test_normalize_locale(code: str | None, want: str | None) -> None:
    assert normalize_locale(code) == want


@given(st.one_of(st.none(), st.text(max_size=60)), st.one_of(st.none(), st.text(max_size=200)))
def test_negotiation_always_answers_a_supported_language(
    cookie: str | None, header: str | None
) -> None:
    assert negotiate_locale(cookie, header) in LOCALES
