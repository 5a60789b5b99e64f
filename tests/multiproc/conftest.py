"""Fixtures of the multi-process tests: real ``kva serve`` processes on a fresh PostgreSQL
database and Redis, behind a real nginx.

They run in the PostgreSQL pass of ``scripts/test.sh`` (``KVA_TEST_DATABASE_URL`` set) and are
skipped, saying why, without PostgreSQL, Redis or nginx (``scripts/install-nginx.sh``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.multiproc.multiproc_help import REDIS_URL, Nginx, ServeProcess, behind_nginx, redis_up

PG_URL = os.environ.get("KVA_TEST_DATABASE_URL", "")


async def _pg_admin(url: str, statement: str) -> None:
    import asyncpg

    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host or "127.0.0.1",
                                 port=u.port or 5432, database=u.database or "postgres")
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture
def fresh_pg() -> Iterator[str]:
    """A new, empty PostgreSQL database for this test (dropped afterwards); its async URL."""
    if not PG_URL.startswith("postgresql"):
        pytest.skip("multi-process tests run on PostgreSQL only (the PostgreSQL pass of "
                    "scripts/test.sh sets KVA_TEST_DATABASE_URL)")
    name = f"kva_multiproc_{secrets.token_hex(6)}"
    try:
        asyncio.run(_pg_admin(PG_URL, f'CREATE DATABASE "{name}"'))
    except OSError as exc:
        pytest.skip(f"no PostgreSQL at {PG_URL}: {exc}")
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_pg_admin(PG_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def redis_url() -> str:
    if not redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture
def nginx_binary() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None)
    if found is None:
        pytest.skip("nginx is not installed and could not be (scripts/install-nginx.sh)")
    return found


@pytest.fixture
def serve_env(fresh_pg: str, redis_url: str, tmp_path: Path) -> dict[str, str]:
    """The environment of ``kva serve`` processes sharing the fresh database and Redis."""
    return {**os.environ,
           "KVA_DATABASE_URL": fresh_pg, "KVA_BROKER_URL": redis_url,
           "KVA_RATE_LIMIT_STORAGE": redis_url,
           "KVA_SECRET_KEY": "multiproc-secret-" + secrets.token_hex(8),
           "KVA_DATA_DIR": str(tmp_path / "var"), "KVA_TRUSTED_PROXIES": "127.0.0.1",
           "KVA_FORCED_DELAY": "0", "KVA_BOT_DELAY": "0", "KVA_SEED_WAIT": "0",
           "KVA_DISCONNECT_GRACE": "60"}


@pytest.fixture
def two_processes_behind_nginx(serve_env: dict[str, str], nginx_binary: str,
                               tmp_path: Path) -> Iterator[tuple[Nginx, list[ServeProcess]]]:
    """Two ``kva serve`` processes (one database, one Redis) and nginx in front of both."""
    processes = [ServeProcess(serve_env, tmp_path / f"serve-{n}.log") for n in "ab"]
    with behind_nginx(processes, nginx_binary, tmp_path) as both:
        yield both
