"""The browser's kva-fair/1 (kva/web/static/fair.js, WebCrypto) run under Node: it derives the same
deals as kva.rules.fair on 1,000 random seed triples and judges records as the verifier does."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kva.rules.fair import commitment, derive_deal, first_hand_deal
from kva.rules.tiles import TILE_NAME
from tests.rules.test_rules_fair import (
    CLIENTS,
    COMMITMENT,
    ORDER,
    REDEALT_CLIENT0,
    SERVER,
    fair_record,
)

FAIR_JS = Path(__file__).resolve().parents[2] / "kva" / "web" / "static" / "fair.js"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node (Node.js 20+) is not installed: the JavaScript port cannot run"
)

DRIVER = """
import { readFileSync } from "node:fs";
const fair = await import(process.argv[2]);
const job = JSON.parse(readFileSync(process.argv[3], "utf8"));
const out = { deals: [], commitments: [], records: [] };
for (const t of job.triples) {
  out.deals.push(await fair.deriveDeal(t.server, t.clients, t.hand, t.redeal));
}
for (const s of job.seeds) out.commitments.push(await fair.commitmentOf(s));
for (const r of job.records) out.records.push(await fair.verifyRecord(r));
console.log(JSON.stringify(out));
"""


def run_node(tmp_path: Path, job: dict[str, Any]) -> dict[str, Any]:
    assert NODE is not None
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    job_file = tmp_path / "job.json"
    job_file.write_text(json.dumps(job))
    done = subprocess.run(
        [NODE, str(driver), FAIR_JS.as_uri(), str(job_file)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def deal_names(deal: Any) -> dict[str, Any]:
    return {
        "hands": [[TILE_NAME[t] for t in deal.hands[p]] for p in (0, 1)],
        "bazaar": [TILE_NAME[t] for t in deal.bazaar],
    }


def test_python_and_javascript_agree_on_1000_random_seed_triples(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    triples = [
        {"server": SERVER, "clients": list(CLIENTS), "hand": 0, "redeal": 0},
        {"server": SERVER, "clients": [REDEALT_CLIENT0, CLIENTS[1]], "hand": 0, "redeal": 1},
    ]
    while len(triples) < 1000:
        triples.append(
            {
                "server": rng.randbytes(32).hex(),
                "clients": [rng.randbytes(16).hex(), rng.randbytes(16).hex()],
                # mostly the hands and redeals a match has, sometimes the extremes
                "hand": rng.choice([rng.randrange(40), rng.randrange(2**32)]),
                "redeal": rng.choice([0, 0, 0, rng.randrange(3), 2**32 - 1]),
            }
        )
    seeds = [t["server"] for t in triples[:50]]
    out = run_node(tmp_path, {"triples": triples, "seeds": seeds, "records": []})
    assert out["deals"][0] == {"hands": [ORDER[:7], ORDER[7:14]], "bazaar": ORDER[14:]}
    for t, js in zip(triples, out["deals"], strict=True):
        assert js == deal_names(derive_deal(t["server"], t["clients"], t["hand"], t["redeal"])), t
    assert out["commitments"][0] == COMMITMENT
    assert out["commitments"] == [commitment(s) for s in seeds]


def test_javascript_verifies_records_as_the_python_verifier_does(tmp_path: Path) -> None:
    good = fair_record(3, 175)
    hands = len(good["hands"])
    assert hands >= 2
    redealt = copy.deepcopy(good)  # a record whose first deal needed a redeal
    fair = redealt["meta"]["fair"]
    redealt_clients = [REDEALT_CLIENT0, CLIENTS[1]]
    fair.update(server_seed=SERVER, commitment=COMMITMENT, client_seeds=redealt_clients)
    redealt["hands"][0]["deal"] = deal_names(first_hand_deal(SERVER, redealt_clients)[0])

    swapped = copy.deepcopy(good)
    deal = swapped["hands"][1]["deal"]
    deal["hands"][0][0], deal["bazaar"][0] = deal["bazaar"][0], deal["hands"][0][0]
    bad_client = copy.deepcopy(good)
    bad_client["meta"]["fair"]["client_seeds"][0] = "0" * 32
    bad_server = copy.deepcopy(good)
    bad_server["meta"]["fair"]["server_seed"] = "1" * 64
    hidden = copy.deepcopy(good)
    del hidden["meta"]["fair"]["server_seed"]
    plain = copy.deepcopy(good)
    del plain["meta"]["fair"]

    records = [good, redealt, swapped, bad_client, bad_server, hidden, plain]
    out = run_node(tmp_path, {"triples": [], "seeds": [], "records": records})["records"]
    assert out[0] == {"ok": True, "hands": hands, "error": None}
    assert out[1]["ok"] is False and out[1]["error"].startswith("hands[1].deal")  # only hand 0
    assert out[2] == {
        "ok": False,
        "hands": 1,
        "error": "hands[1].deal: not the deal kva-fair/1 derives: seat 0's hand is not the "
        "derived one",
    }
    assert out[3]["ok"] is False and out[3]["error"].startswith("hands[0].deal: not the deal")
    assert out[4] == {
        "ok": False,
        "hands": 0,
        "error": "meta.fair.server_seed: does not match the commitment",
    }
    assert out[5]["ok"] is False and "not revealed" in out[5]["error"]
    assert out[6] == {"ok": False, "hands": 0, "error": "the record has no meta.fair"}
