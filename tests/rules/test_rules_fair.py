"""kva-fair/1 (kva.rules.fair): the derivation pinned by the worked example of docs/fairness.md,
its properties, fair matches, and records whose meta.fair is tampered with."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kva.cli import main
from kva.rules import Match, RecordError, read_record, verify_record, write_record
from kva.rules import fair as fair_module
from kva.rules.fair import (
    SCHEME,
    FairDealer,
    check_client_seed,
    commitment,
    derive_deal,
    first_hand_deal,
    new_client_seed,
    new_server_seed,
    shuffled_order,
    verify_fair,
)
from kva.rules.match import highest_double
from kva.rules.tiles import TILE_COUNT, TILE_NAME
from tests.rules.ruleshelp import random_record, row

# The worked example of docs/fairness.md.
SERVER = bytes(range(32)).hex()  # 000102...1f
CLIENTS = ("00112233445566778899aabbccddeeff", "ffeeddccbbaa99887766554433221100")
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
FIRST_BLOCK = "de009f4657ae97caa495ff515a8a8c21c9c538e636a5613e0941d77ded870077"
SEAT0 = row("0-2 6-6 5-6 1-2 2-4 0-4 1-5")
SEAT1 = row("4-4 3-5 5-5 0-1 0-0 2-2 1-6")
BAZAAR = row("2-5 3-6 1-4 3-4 1-3 0-5 2-6 0-3 1-1 4-6 0-6 4-5 2-3 3-3")
ORDER = SEAT0 + SEAT1 + BAZAAR
#: With this seat-0 seed (and SERVER, CLIENTS[1]) the first deal gives nobody a double.
REDEALT_CLIENT0 = "000000000000000000000000000001bf"


class Seeded:
    """A token source for tests: ``secrets.token_bytes`` from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def token_bytes(self, nbytes: int | None = None) -> bytes:
        return self.rng.randbytes(nbytes or 32)


def names(deal: Any) -> list[str]:
    return [TILE_NAME[t] for t in (*deal.hands[0], *deal.hands[1], *deal.bazaar)]


def block_message(seeds: tuple[str, str], hand: int, redeal: int, counter: int) -> bytes:
    return (
        b"kva-fair/1"
        + bytes.fromhex(seeds[0])
        + bytes.fromhex(seeds[1])
        + struct.pack(">I", hand)
        + struct.pack(">I", redeal)
        + struct.pack(">I", counter)
    )


def shuffle_from(stream: Iterator[int]) -> list[int]:
    """Fisher-Yates as docs/fairness.md words it, written plainly."""
    tiles = list(range(28))
    for i in range(27, 0, -1):
        bound = (2**32 // (i + 1)) * (i + 1)
        w = next(stream)
        while w >= bound:
            w = next(stream)
        j = w % (i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def words_of(blocks: Iterator[bytes]) -> Iterator[int]:
    for block in blocks:
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")


def reference_order(key: bytes, seeds: tuple[str, str], hand: int, redeal: int) -> list[int]:
    """The scheme written plainly (no precomputed tables, hmac.new rather than hmac.digest)."""
    blocks = (
        hmac.new(key, block_message(seeds, hand, redeal, c), hashlib.sha256).digest()
        for c in range(2**32)
    )
    return shuffle_from(words_of(blocks))


# --------------------------------------------------------------------------- the derivation
def test_worked_example_of_the_docs() -> None:
    assert commitment(SERVER) == COMMITMENT
    msg = b"kva-fair/1" + bytes.fromhex(CLIENTS[0] + CLIENTS[1]) + bytes(12)
    assert len(msg) == 54
    assert hmac.digest(bytes.fromhex(SERVER), msg, "sha256").hex() == FIRST_BLOCK
    deal = derive_deal(SERVER, CLIENTS, 0, 0)
    assert names(deal) == ORDER
    assert [TILE_NAME[t] for t in deal.hands[0]] == ORDER[:7]
    assert [TILE_NAME[t] for t in deal.hands[1]] == ORDER[7:14]
    assert [TILE_NAME[t] for t in deal.bazaar] == ORDER[14:]
    assert first_hand_deal(SERVER, CLIENTS) == (deal, 0)  # seat 0 holds 6-6


def test_bytes_and_hex_seeds_give_the_same_deal_and_case_does_not_matter() -> None:
    as_bytes = (bytes.fromhex(CLIENTS[0]), bytes.fromhex(CLIENTS[1]))
    assert derive_deal(bytes.fromhex(SERVER), as_bytes, 0, 0) == derive_deal(SERVER, CLIENTS, 0)
    upper = (CLIENTS[0].upper(), CLIENTS[1])
    assert derive_deal(SERVER.upper(), upper, 0, 0) == derive_deal(SERVER, CLIENTS, 0)


def test_every_input_changes_the_deal() -> None:
    base = derive_deal(SERVER, CLIENTS, 0, 0)
    assert derive_deal(SERVER, CLIENTS, 0, 0) == base  # deterministic
    other_server = bytes(range(1, 33)).hex()
    assert derive_deal(other_server, CLIENTS, 0, 0) != base
    assert derive_deal(SERVER, (CLIENTS[1], CLIENTS[0]), 0, 0) != base  # seats are ordered
    assert derive_deal(SERVER, (CLIENTS[0], "00" * 16), 0, 0) != base
    assert derive_deal(SERVER, CLIENTS, 1, 0) != base
    assert derive_deal(SERVER, CLIENTS, 0, 1) != base


@pytest.mark.parametrize(
    ("server", "clients", "hand", "redeal", "words"),
    [
        ("00" * 31, CLIENTS, 0, 0, "server seed must be 64 hex digits"),
        ("zz" * 32, CLIENTS, 0, 0, "server seed must be 64 hex digits"),
        (SERVER, (CLIENTS[0],), 0, 0, "two client seeds are needed"),
        (SERVER, (CLIENTS[0], "ab"), 0, 0, "client seed 1 must be 32 hex digits"),
        (SERVER, (b"short", CLIENTS[1]), 0, 0, "client seed 0 must be 16 bytes"),
        (SERVER, CLIENTS, -1, 0, "hand must be an integer in 0..2**32-1"),
        (SERVER, CLIENTS, 0, 2**32, "redeal must be an integer"),
    ],
)
def test_bad_inputs_are_refused_with_a_reason(
    server: str, clients: Any, hand: int, redeal: int, words: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        derive_deal(server, clients, hand, redeal)


@settings(max_examples=300, deadline=None)
@given(
    server=st.binary(min_size=32, max_size=32),
    c0=st.binary(min_size=16, max_size=16),
    c1=st.binary(min_size=16, max_size=16),
    hand=st.integers(0, 2**32 - 1),
    redeal=st.integers(0, 2**32 - 1),
)
def test_every_derived_deal_is_a_permutation_and_matches_the_plain_reference(
    server: bytes, c0: bytes, c1: bytes, hand: int, redeal: int
) -> None:
    order = shuffled_order(server, (c0, c1), hand, redeal)
    assert sorted(order) == list(range(TILE_COUNT))
    assert order == reference_order(server, (c0.hex(), c1.hex()), hand, redeal)
    deal = derive_deal(server, (c0, c1), hand, redeal)
    assert (len(deal.hands[0]), len(deal.hands[1]), len(deal.bazaar)) == (7, 7, 14)
    assert [*deal.hands[0], *deal.hands[1], *deal.bazaar] == order


def test_rejected_words_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words at or above the bound are thrown away. The real stream almost never has one, so
    the HMAC is replaced by one whose blocks start with two words above every bound."""
    real = hmac.digest

    def rigged(key: bytes, msg: bytes, name: str) -> bytes:
        return b"\xff\xff\xff\xff" * 2 + real(key, msg, name)[8:]

    key = bytes.fromhex(SERVER)
    expected = shuffle_from(
        words_of(rigged(key, block_message(CLIENTS, 3, 0, c), "sha256") for c in range(99))
    )
    monkeypatch.setattr(fair_module.hmac, "digest", rigged)
    assert shuffled_order(SERVER, CLIENTS, 3, 0) == expected
    monkeypatch.undo()
    assert shuffled_order(SERVER, CLIENTS, 3, 0) != expected


def test_first_hand_is_redealt_with_the_next_redeal_number_until_someone_holds_a_double() -> None:
    clients = (REDEALT_CLIENT0, CLIENTS[1])
    assert highest_double(derive_deal(SERVER, clients, 0, 0)) is None
    deal, redeal = first_hand_deal(SERVER, clients)
    assert redeal == 1 and deal == derive_deal(SERVER, clients, 0, 1)
    match = Match(75, "draw", dealer=FairDealer(SERVER, clients))
    assert match.hands[0].deal == deal


def test_seeds_come_from_secrets_by_default_and_have_the_right_size() -> None:
    assert len(new_server_seed()) == 32 and new_server_seed() != new_server_seed()
    seed = new_client_seed()
    assert len(seed) == 32 and int(seed, 16) >= 0
    assert new_server_seed(Seeded(1)) == new_server_seed(Seeded(1))


def test_client_seeds_from_browsers_are_checked_and_lowercased() -> None:
    assert check_client_seed(CLIENTS[1].upper()) == CLIENTS[1]
    for bad in ("ab" * 15, "g" * 32, 12, None, CLIENTS[0] + "00"):
        with pytest.raises(ValueError, match="client seed must be 32 hex digits"):
            check_client_seed(bad)


def test_dealer_never_shows_its_secret_until_asked() -> None:
    dealer = FairDealer(SERVER, CLIENTS)
    assert SERVER not in repr(dealer)
    before = dealer.meta(reveal=False)
    assert before == {"scheme": SCHEME, "commitment": COMMITMENT, "client_seeds": list(CLIENTS)}
    assert dealer.meta(reveal=True) == {**before, "server_seed": SERVER}


# --------------------------------------------------------------------------- fair matches
def fair_match(seed: int, target: int = 75) -> tuple[Match, FairDealer]:
    tokens = Seeded(seed)
    dealer = FairDealer.new((new_client_seed(tokens), new_client_seed(tokens)), tokens)
    match = Match(target, "draw", dealer=dealer)
    chooser = random.Random(seed)
    while not match.over:
        match.apply(chooser.choice(match.legal_codes()), player=match.turn)
    return match, dealer


def fair_record(seed: int, target: int = 75) -> dict[str, Any]:
    match, dealer = fair_match(seed, target)
    return write_record(match, meta={"rated": False, "fair": dealer.meta(reveal=True)})


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A fair match of at least four hands (so hands[3] exists)."""
    for seed in range(50):
        doc = fair_record(seed, 175)
        if len(doc["hands"]) >= 4:
            return doc
    raise AssertionError("no match of four hands")  # pragma: no cover


def test_every_hand_of_a_fair_match_is_the_derived_deal(record: dict[str, Any]) -> None:
    fair = record["meta"]["fair"]
    match = verify_record(record)
    for k, played in enumerate(match.hands):
        if k == 0:
            assert played.deal == first_hand_deal(fair["server_seed"], fair["client_seeds"])[0]
        else:
            assert played.deal == derive_deal(fair["server_seed"], fair["client_seeds"], k, 0)
    assert verify_fair(record) is None


def test_a_record_without_meta_fair_verifies_as_before() -> None:
    doc = random_record(4)
    assert "fair" not in doc["meta"]
    verify_record(doc)
    assert verify_fair(doc) is None


def test_in_progress_record_without_the_seed_resumes_with_the_same_dealer() -> None:
    tokens = Seeded(9)
    dealer = FairDealer.new((new_client_seed(tokens), new_client_seed(tokens)), tokens)
    match = Match(175, "draw", dealer=dealer)
    chooser = random.Random(9)
    while len(match.hands) < 2:
        match.apply(chooser.choice(match.legal_codes()))
    doc = write_record(match, meta={"fair": dealer.meta(reveal=False)})
    # What the service stores: the record so far and the seed; a restart rebuilds the dealer.
    resumed_dealer = FairDealer(dealer.server_seed.hex(), doc["meta"]["fair"]["client_seeds"])
    resumed = read_record(doc, complete=False, dealer=resumed_dealer)
    while not resumed.over:
        resumed.apply(chooser.choice(resumed.legal_codes()))
    final = write_record(resumed, meta={"fair": resumed_dealer.meta(reveal=True)})
    verify_record(final)
    with pytest.raises(RecordError) as caught:  # finished but the seed withheld
        verify_record(write_record(resumed, meta={"fair": dealer.meta(reveal=False)}))
    assert str(caught.value) == (
        "meta.fair.server_seed: missing: the match is over, so it must be revealed"
    )


# --------------------------------------------------------------------------- tampering
def tampered(record: dict[str, Any], change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(record)
    change(doc)
    return doc


def swap_hand_and_bazaar_tile(doc: dict[str, Any]) -> None:
    deal = doc["hands"][3]["deal"]
    deal["hands"][1][2], deal["bazaar"][13] = deal["bazaar"][13], deal["hands"][1][2]


def swap_bazaar_order(doc: dict[str, Any]) -> None:
    bazaar = doc["hands"][2]["deal"]["bazaar"]
    bazaar[4], bazaar[5] = bazaar[5], bazaar[4]


def change_client_seed(doc: dict[str, Any]) -> None:
    seed = doc["meta"]["fair"]["client_seeds"][1]
    doc["meta"]["fair"]["client_seeds"][1] = ("1" if seed[0] != "1" else "2") + seed[1:]


def change_server_seed(doc: dict[str, Any]) -> None:
    doc["meta"]["fair"]["server_seed"] = new_server_seed(Seeded(77)).hex()


def drop_server_seed(doc: dict[str, Any]) -> None:
    del doc["meta"]["fair"]["server_seed"]


def change_scheme(doc: dict[str, Any]) -> None:
    doc["meta"]["fair"]["scheme"] = "kva-fair/2"


def uppercase_commitment(doc: dict[str, Any]) -> None:
    doc["meta"]["fair"]["commitment"] = doc["meta"]["fair"]["commitment"].upper()


TAMPERING = [
    (swap_hand_and_bazaar_tile, "hands[3].deal", "not the deal kva-fair/1 derives: seat 1 holds"),
    (swap_bazaar_order, "hands[2].deal", "not the deal kva-fair/1 derives: bazaar[4] is"),
    (change_client_seed, "hands[0].deal", "not the deal kva-fair/1 derives"),
    (change_server_seed, "meta.fair.server_seed", "does not match the commitment"),
    (drop_server_seed, "meta.fair.server_seed", "missing: the match is over"),
    (change_scheme, "meta.fair.scheme", "must be 'kva-fair/1'"),
    (uppercase_commitment, "meta.fair.commitment", "must be 64 lowercase hex digits"),
]


@pytest.mark.parametrize(("change", "where", "words"), TAMPERING)
def test_verify_record_rejects_a_tampered_record(
    record: dict[str, Any], change: Any, where: str, words: str
) -> None:
    doc = tampered(record, change)
    with pytest.raises(RecordError) as caught:
        verify_record(doc)
    assert caught.value.where == where
    assert words in caught.value.problem
    problem = verify_fair(doc)
    assert problem is not None and problem.where == where


@pytest.mark.parametrize(("change", "where", "words"), TAMPERING[:4])
def test_kva_record_verify_rejects_a_tampered_record(
    record: dict[str, Any],
    change: Any,
    where: str,
    words: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = tmp_path / "good.json"
    bad = tmp_path / "bad.json"
    good.write_text(json.dumps(record))
    bad.write_text(json.dumps(tampered(record, change)))
    assert main(["record", "verify", str(good)]) == 0
    assert capsys.readouterr().out.strip() == f"ok {good}"
    assert main(["record", "verify", str(bad)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"{bad}: ") and where in out and words in out


def test_deal_order_within_a_seat_does_not_matter_but_the_bazaar_order_does(
    record: dict[str, Any],
) -> None:
    doc = copy.deepcopy(record)
    for hand in doc["hands"]:
        hand["deal"]["hands"][0].sort(reverse=True)
        hand["deal"]["hands"][1] = [f"{n[2]}-{n[0]}" for n in hand["deal"]["hands"][1]]
    verify_record(doc)


def test_the_docs_python_snippet_reproduces_the_worked_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
    snippet = text.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(snippet, "docs/fairness.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out == [COMMITMENT, repr(ORDER)]
    for value in (SERVER, *CLIENTS, COMMITMENT, FIRST_BLOCK, REDEALT_CLIENT0):
        assert value in text
