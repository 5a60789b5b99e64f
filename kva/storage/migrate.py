"""Apply the Alembic migrations from code, so ``kva serve`` upgrades the database at startup.

The migration scripts live in the package (``kva/storage/migrations``); the async connection is
shared with Alembic's ``env.py`` through ``config.attributes`` (Alembic's documented recipe).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
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
    await _migrate(engine, command.upgrade, revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    """Take the database of ``engine`` back down to ``revision``."""
    await _migrate(engine, command.downgrade, revision)


async def _migrate(engine: AsyncEngine, step: Callable[[Config, str], None],
                   revision: str) -> None:
    """Run ``step`` (Alembic's upgrade or downgrade) to ``revision`` in one transaction.

    On SQLite a migration in batch mode rebuilds a table (copy, DROP, rename), and the DROP
    of a table that others reference fails while foreign keys are enforced (as every kva
    connection enforces them), so enforcement is off for the migration (it can only change
    outside a transaction) and every key is checked before the commit instead."""

    def _run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        step(config, revision)

    async with engine.connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            await conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        try:
            await conn.run_sync(_run)
            if sqlite:
                broken = (await conn.exec_driver_sql("PRAGMA foreign_key_check")).all()
                if broken:
                    raise RuntimeError(f"the migration to {revision} breaks foreign keys: "
                                       f"{broken[:5]}")
            await conn.commit()
        finally:
            if sqlite:
                await conn.rollback()
                await conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                await conn.commit()
