"""Nickname skeletons made with the Unicode confusables data: every look-alike of a name meets
it at one skeleton (and so is refused as taken), while names that only differ stay apart."""

from __future__ import annotations

import pytest

from kva.service.accounts.confusables import table
from kva.service.accounts.nicknames import KEY_MAX, NicknameError, check, in_alphabets, skeleton

LOOKALIKES_OF_ADMIN324 = ["ᴀᴅᴍɪɴ324", "aᴅmin324", "admɪn324", "admǀn324", "admꞁn324",
                          "ADMIN324", "admIn324", "admln324", "ADMlN324", "adm1n324"]


@pytest.mark.parametrize("name", LOOKALIKES_OF_ADMIN324)
def test_a_look_alike_of_admin324_has_its_skeleton(name: str) -> None:
    assert skeleton(name) == skeleton("admin324")


@pytest.mark.parametrize("name", ["ᴀᴅᴍɪɴ324", "admɪn324", "admǀn324", "admꞁn324"])
def test_a_look_alike_of_admin324_is_a_name_of_one_script(name: str) -> None:
    """Each is a Latin name the alphabet check lets through: only the skeleton stops it."""
    assert check(name) == name


def test_capital_i_and_small_l_are_one_letter() -> None:
    assert skeleton("I") == skeleton("l") == skeleton("i")


@pytest.mark.parametrize(("one", "other"), [("nino", "nina"), ("bill", "bell"),
                                            ("giorgi", "george"), ("tako", "taco"),
                                            ("clown", "down"), ("admin324", "admin325"),
                                            ("საშა", "სალი"), ("Саша", "Маша")])
def test_distinct_names_stay_distinct(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)
    assert check(one) == one and check(other) == other


def test_the_data_joins_sequences_as_well() -> None:
    assert skeleton("rnax") == skeleton("max")


def test_a_skeleton_is_its_own_skeleton_for_every_letter_a_nickname_may_have() -> None:
    letters = [ch for ch in table() if ch.isalnum() and in_alphabets(ch)]
    assert len(letters) > 500  # the data, not a short list
    assert [ch for ch in letters if skeleton(skeleton(ch)) != skeleton(ch)] == []


def test_no_two_ascii_letters_meet_but_i_and_l() -> None:
    letters = "abcdefghijklmnopqrstuvwxyz"
    meeting = {(a, b) for a in letters for b in letters
               if a < b and skeleton(a) == skeleton(b)}
    assert meeting == {("i", "l")}


def test_a_name_whose_skeleton_outgrows_its_column_is_refused() -> None:
    name = "ꙑ" * 11  # each passes for several characters
    assert len(skeleton(name)) > KEY_MAX
    with pytest.raises(NicknameError) as refused:
        check(name)
    assert refused.value.code == "nickname_length"
