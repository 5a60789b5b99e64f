"""The docs are a reference: they describe the system as it is, and their links lead somewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The grep the docs are held to, with two readings of "session" left out: the code's
# `with session` / `both sessions` (an ordinal's "th" matched by `[a-z]+th`) and nothing else.
WORK_PERIOD = re.compile(
    r"session [0-9]|\b(?!with\b|both\b)(first|second|third|[a-z]+th) session"
    r"|this session|next session",
    re.IGNORECASE,
)
ISSUE_NUMBER = re.compile(r"\bissues? [0-9]+", re.IGNORECASE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _texts() -> Iterator[Path]:
    yield ROOT / "README.md"
    yield ROOT / "CHANGELOG.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))
    yield from sorted((ROOT / "kva").rglob("*.py"))


def _hits(pattern: re.Pattern[str]) -> list[str]:
    hits = []
    for path in _texts():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return hits


def test_no_document_or_comment_speaks_of_work_periods() -> None:
    assert _hits(WORK_PERIOD) == []


def test_no_document_or_comment_cites_an_issue_number_instead_of_a_reason() -> None:
    assert _hits(ISSUE_NUMBER) == []


def test_every_relative_link_in_the_readme_and_docs_leads_to_a_file_that_exists() -> None:
    broken = []
    for path in [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor on the same page
            file = target.split("#", 1)[0]
            if not (path.parent / file).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readme_says_how_to_play_stop_reset_and_open_the_server_to_a_phone() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for needed in ("/learn", "docs/rules.md", "Ctrl-C", "./var", "--host 0.0.0.0"):
        assert needed in readme, needed


def _configuration_table() -> set[str]:
    """The variables docs/configuration.md's table has a row for."""
    return set(re.findall(r"^\| `(KVA_[A-Z0-9_]+)`", (ROOT / "docs" / "configuration.md")
                          .read_text(encoding="utf-8"), re.MULTILINE))


def test_every_setting_the_code_reads_is_in_the_configuration_table() -> None:
    """A ``KVA_*`` variable the code reads and docs/configuration.md's table lacks is a setting
    an operator cannot find; one the table lists and no code reads is a setting that does
    nothing. (``KVA_TEST_*`` variables are the test suite's, described in prose.) Settings are
    read in kva/config.py, which knows them all (``KNOWN_VARIABLES``); a name elsewhere in the
    code is one it mentions (an error, a docstring), and must be a setting too, or one of the
    example bot client's, which the server leaves alone (``CLIENT_VARIABLES``)."""
    from kva.config import CLIENT_VARIABLES, KNOWN_VARIABLES

    code: set[str] = set()
    for path in (ROOT / "kva").rglob("*.py"):
        found = re.findall(r"\bKVA_[A-Z0-9_]+\b", path.read_text(encoding="utf-8"))
        code |= {name for name in found
                 if not name.startswith("KVA_TEST_") and name not in CLIENT_VARIABLES}
    table = _configuration_table()
    assert sorted(code - table) == [], "read by the code, missing from the table"
    assert sorted(table - code) == [], "in the table, read by no code"
    assert sorted(KNOWN_VARIABLES ^ table) == [], "known to kva.config or in the table, not both"


def test_the_configuration_table_states_each_number_setting_s_range() -> None:
    """Each number setting's row ends with the range kva/config.py holds it to
    (``RANGES``), and only number settings' rows state one."""
    from kva.config import RANGES

    stated = dict(re.findall(r"^\| `(KVA_[A-Z0-9_]+)` \|.* Range: ([^|]+)\. \|$",
                             (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8"),
                             re.MULTILINE))
    assert stated == {name: allowed.text() for name, allowed in RANGES.items()}


def test_every_documented_setting_is_accepted_at_start() -> None:
    """Each name in the table passes the start's check of unknown names; set to nothing, each
    takes its default."""
    from kva.config import Settings, check_names

    documented = dict.fromkeys(_configuration_table(), "")
    check_names(documented)
    settings = Settings.from_env({**documented, "KVA_SECRET_KEY": "k"})
    assert settings == Settings.from_env({"KVA_SECRET_KEY": "k"})
