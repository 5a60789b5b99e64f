"""Numbers typed by people (stakes, pages, targets, settings) are ASCII digits only: a
Unicode digit that ``int()`` rejects (``²``) or accepts (``٣``, ``１``) is bad input, never a
500 and never a silently converted value."""

from __future__ import annotations

import pytest

from kva.rules import parse_ascii_int
from kva.service.coins.wallets import CoinError, check_stake

NOT_ASCII_NUMBERS = ("²", "٣", "１", "１０", "-1", "+1", "1e3", "1_000", " ", "", "9" * 400)


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_only_plain_ascii_digits_parse(text: str) -> None:
    assert parse_ascii_int(text, max_digits=6) is None


def test_plain_ascii_digits_parse_and_surrounding_blanks_are_trimmed() -> None:
    assert parse_ascii_int("0") == 0
    assert parse_ascii_int(" 100 ") == 100
    assert parse_ascii_int("1234567", max_digits=6) is None


@pytest.mark.parametrize("text", ("²", "٣", "１", "１０", "-1", "1e3", "9" * 400))
def test_every_bad_stake_is_bad_stake(text: str) -> None:
    with pytest.raises(CoinError) as err:
        check_stake(text)
    assert err.value.code == "bad_stake"


@pytest.mark.parametrize("text", ("²", "٣", "１０", "-1"))
def test_a_typed_target_is_ascii_digits_only(text: str) -> None:
    from kva.rules import BadSettings, MatchSettings
    with pytest.raises(BadSettings):
        MatchSettings.parse(text.replace("１０", "７５"))
