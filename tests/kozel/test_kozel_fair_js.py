"""The browser's kva-fair/1 (kva/web/static/fair.js) judges ``kozel/1`` records as
``kva record verify`` does: every deal at 2, 3 and 4 seats, the voided ones too."""

from __future__ import annotations

import copy
from pathlib import Path

from kva import kozel
from tests.helpers.kozel_finished import kozel_record
from tests.rules.test_rules_fair_js import pytestmark, run_node

__all__ = ["pytestmark"]


def test_fair_js_verifies_kozel_records_at_every_seat_count(tmp_path: Path) -> None:
    records = [kozel_record(seats, seed, [f"p{i}" for i in range(seats)], limit=60)
               for seats in (2, 3, 4) for seed in (1, 4)]  # seed 4 at four seats redeals
    assert any(hand["voided"] for doc in records for hand in doc["hands"])  # redeals covered
    for doc in records:
        kozel.verify_record(doc)
    bad_bazaar = copy.deepcopy(records[2])
    bad_bazaar["hands"][1]["deal"]["bazaar"].reverse()
    one_seed_short = copy.deepcopy(records[4])
    one_seed_short["meta"]["fair"]["client_seeds"].pop()
    out = run_node(tmp_path, {"triples": [], "seeds": [],
                              "records": [*records, bad_bazaar, one_seed_short]})
    verdicts = out["records"]
    assert [v["ok"] for v in verdicts[:6]] == [True] * 6
    assert [v["hands"] for v in verdicts[:6]] == [len(doc["hands"]) for doc in records]
    assert verdicts[6]["ok"] is False and verdicts[6]["error"].startswith(
        "hands[1].deal: not the deal kva-fair/1 derives (redeal 0): bazaar[0]")
    assert verdicts[7]["error"] == (
        "meta.fair.client_seeds: must list the four seats' client seeds")
