"""Numbers and dates as each language writes them (scores, ratings, game history)."""

from __future__ import annotations

import datetime as dt

import pytest

from kva.i18n import format_date, format_datetime, format_number

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("locale", "want"),
    [
        ("en", "1,234,567"),
        ("ru", f"1{NBSP}234{NBSP}567"),
        ("ka", f"1{NBSP}234{NBSP}567"),
        ("tr", "1.234.567"),
        ("xx", "1,234,567"),
    ],
)
def test_format_number_groups_digits(locale: str, want: str) -> None:
    assert format_number(1234567, locale) == want


@pytest.mark.parametrize(
    ("locale", "want"),
    [("en", "1,500.5"), ("ru", f"1{NBSP}500,5"), ("ka", f"1{NBSP}500,5"), ("tr", "1.500,5")],
)
def test_format_number_decimal_mark(locale: str, want: str) -> None:
    assert format_number(1500.5, locale) == want


@pytest.mark.parametrize("locale", ["ka", "en", "ru", "tr"])
def test_small_scores_are_plain(locale: str) -> None:
    assert format_number(75, locale) == "75"
    assert format_number(0, locale) == "0"


@pytest.mark.parametrize(
    ("locale", "want"),
    [
        ("en", "Mar 5, 2026"),
        ("ru", "5 мар. 2026\u202fг."),
        ("ka", "5 მარ. 2026"),
        ("tr", "5 Mar 2026"),
    ],
)
def test_format_date(locale: str, want: str) -> None:
    assert format_date(dt.date(2026, 3, 5), locale) == want


@pytest.mark.parametrize(
    ("locale", "parts"),
    [
        ("en", ["Mar 5, 2026", "2:07", "PM"]),
        ("ru", ["5 мар. 2026", "14:07"]),
        ("ka", ["5 მარ. 2026", "14:07"]),
        ("tr", ["5 Mar 2026", "14:07"]),
    ],
)
def test_format_datetime(locale: str, parts: list[str]) -> None:
    moment = dt.datetime(2026, 3, 5, 14, 7, tzinfo=dt.UTC)
    text = format_datetime(moment, locale)
    for part in parts:
        assert part in text, (locale, text)
    # A naive datetime is taken as UTC, so it reads the same.
    assert format_datetime(moment.replace(tzinfo=None), locale) == text


def test_format_datetime_in_another_timezone() -> None:
    moment = dt.datetime(2026, 3, 5, 14, 7, tzinfo=dt.UTC)
    tbilisi = dt.timezone(dt.timedelta(hours=4))
    assert "18:07" in format_datetime(moment, "ka", tzinfo=tbilisi)
