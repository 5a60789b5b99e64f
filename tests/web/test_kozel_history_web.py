"""A finished Kozel match on the web: its record downloads and verifies (with its kva-fair/1
deals, as ``kva record verify`` checks them), and its replay page renders every hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from kva.commands.record import run_verify
from tests.helpers.community_help import make_user
from tests.helpers.kozel_finished import finished_kozel_match


async def test_the_record_of_a_kozel_match_downloads_and_verifies(
    make_server, sessions, tmp_path: Path, capsys,
) -> None:
    server = make_server()
    me = await make_user(sessions)
    row = await finished_kozel_match(sessions, [me, "easy", "hard"])
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get(f"/m/{row.id}/record.json")
    assert r.status_code == 200
    assert f'filename="kva-{row.id}.json"' in r.headers["content-disposition"]
    doc = r.json()
    assert doc["format"] == "kozel/1" and doc["meta"]["fair"]["server_seed"]
    assert len(doc["meta"]["fair"]["client_seeds"]) == 3
    path = tmp_path / "kozel.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert run_verify(type("Args", (), {"files": [str(path)]})()) == 0
    assert capsys.readouterr().out.strip() == f"ok {path}"
    # a deal changed is named by the fair check
    doc["hands"][0]["deal"]["bazaar"].reverse()
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert run_verify(type("Args", (), {"files": [str(path)]})()) == 1
    assert "kva-fair/1" in capsys.readouterr().out


async def test_the_replay_of_a_kozel_match_renders_every_hand(make_server, sessions) -> None:
    server = make_server()
    me, friend = await make_user(sessions), await make_user(sessions)
    row = await finished_kozel_match(sessions, [me, friend, "easy"])
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get(f"/m/{row.id}/replay")
    assert r.status_code == 200
    page = r.text
    assert 'data-testid="kozel-replay"' in page and "/static/kozel/replay.js" in page
    assert 'id="kozel-strings"' in page
    assert 'data-testid="board"' not in page  # not the Georgian replay
    [embedded] = re.findall(r'<script type="application/json" id="kva-record">(.*?)</script>',
                            page, re.S)
    assert json.loads(embedded)["hands"] == row.record["hands"]
    assert 'data-testid="replay-prev"' in page and 'data-testid="replay-next"' in page
    assert 'data-testid="fair-badge"' in page
