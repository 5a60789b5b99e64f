"""Apply the Alembic migrations from code, so ``kva serve`` upgrades the database at startup.

The migration scripts live in the package (``kva/storage/migrations``); the async connection is
shared with Alembic's ``env.py`` through ``config.attributes`` (Alembic's documented recipe).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at the packaged migrations (``url`` for offline use)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url)
    return config


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the database of ``engine`` up to ``revision``."""

    def _run(connection) -> None:  # type: ignore[no-untyped-def]
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with engine.begin() as conn:
        await conn.run_sync(_run)
