"""Browser end-to-end tests: the real server in a subprocess, driven through headless Chromium.

The server is started once per session exactly as a user starts it (``python -m kva serve``)
on a free port, with a throw-away SQLite file (or, when ``KVA_TEST_DATABASE_URL`` is set, the
session's fresh PostgreSQL database from ``tests/conftest.py``), a fixed secret key, and the
pauses before forced moves and bot moves set to zero so a match plays out in seconds. Playwright
drives Debian's ``/usr/bin/chromium``; nothing is ever downloaded (``scripts/install-browser.sh``
installs the browser). Without chromium the tests are skipped, loudly.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.e2e_helpers import SHOTS, STEP_MS
from tests.helpers.servers import Server, serving

HERE = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Settings for the server under test. The pauses make the UI humane; here they only cost time.
SERVER_ENV = {
    "KVA_SECRET_KEY": "e2e-secret-key-not-for-production-0123456789abcdef",
    "KVA_FORCED_DELAY": "0",
    "KVA_BOT_DELAY": "0",
    "KVA_BROKER_URL": "",
    # Every browser comes from 127.0.0.1: per-IP limits would count the whole suite as one
    # visitor, and a fast machine runs more of it within a minute than one visitor may.
    "KVA_LOGIN_RATE_IP": "1000/minute",
    "KVA_REGISTER_RATE_IP": "1000/minute",
    "KVA_TABLE_PASSWORD_RATE_IP": "1000/minute",
    "KVA_TABLE_CREATE_RATE_IP": "1000/minute",
    "KVA_BOT_MATCH_CREATE_RATE_IP": "1000/minute",
    "KVA_GUEST_CREATE_RATE_IP": "1000/minute",
    "KVA_ANALYSIS_RATE_IP": "1000/minute",
    "KVA_CHALLENGE_RATE_IP": "1000/minute",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test under tests/e2e needs the browser: mark it so ``-m 'not browser'`` skips it."""
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item, so fixtures can tell a failed test at teardown."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


# ---------------------------------------------------------------------------------------------
# The server


@pytest.fixture(scope="session")
def server(
    tmp_path_factory: pytest.TempPathFactory, pg_database: str | None
) -> Iterator[Server]:
    """``python -m kva serve`` on a free port with a fresh database; waits for ``/healthz``."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-browser.sh (browser tests)")
    tmp = tmp_path_factory.mktemp("kva-e2e")
    env = {**os.environ, **SERVER_ENV}
    # The session's fresh PostgreSQL database (tests/conftest.py), or a throw-away SQLite file.
    env["KVA_DATABASE_URL"] = pg_database or f"sqlite+aiosqlite:///{tmp / 'kva-e2e.sqlite3'}"
    env["KVA_DATA_DIR"] = str(tmp / "var")
    env["PYTHONUNBUFFERED"] = "1"
    log_path = tmp / "server.log"
    with serving(env, log_path) as srv:
        yield srv


# ---------------------------------------------------------------------------------------------
# The browser


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Any]:
    """Headless Debian Chromium under Playwright (never a downloaded browser).

    Module-scoped on purpose: sync Playwright keeps an asyncio event loop running in the main
    thread while it lives, and no asyncio test elsewhere in the session can start under it. So
    it lives only while a browser-test module runs (starting it costs about a second).
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def new_context(
    browser: Any, server: Server, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Any]]:
    """A factory of fresh browser contexts (each a separate visitor with its own cookies).

    English by default (``Accept-Language: en-US``), 1280×800; keyword arguments go to
    ``browser.new_context``. On failure, every open page is screenshotted to ``SHOTS``.
    """
    contexts: list[Any] = []

    def make(**kwargs: Any) -> Any:
        options: dict[str, Any] = {
            "base_url": server.base_url,
            "locale": "en-US",
            "viewport": {"width": 1280, "height": 800},
        }
        options.update(kwargs)
        ctx = browser.new_context(**options)
        ctx.set_default_timeout(STEP_MS)
        contexts.append(ctx)
        return ctx

    yield make
    report = getattr(request.node, "rep_call", None)
    failed = report is not None and report.failed
    if failed:  # shown under "Captured stdout teardown" with the failure
        print(f"--- server log (end) ---\n{server.log_tail(4000)}")
    for i, ctx in enumerate(contexts):
        if failed:
            for j, page in enumerate(ctx.pages):
                with contextlib.suppress(Exception):
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SHOTS / f"FAILED-{request.node.name}-{i}-{j}.png"))
        with contextlib.suppress(Exception):
            ctx.close()
