"""Accounts and the lobby: server-side sessions, unique nickname keys, open tables.

* ``sessions``: one row per login (guests too): the SHA-256 of the cookie's random token, the
  user, created / last seen, and when it was revoked (log out).
* ``users.nickname_key``: the casefolded nickname of a registered player, unique (guests have
  none), so ``Nino`` and ``nino`` cannot both register.
* ``tables.kind``: ``closed`` (a friend's table, by link, the only kind so far) or ``open``
  (listed in the lobby).

Revision ID: 0002_accounts_lobby
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_accounts_lobby"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.add_column("users", sa.Column("nickname_key", sa.String(40), nullable=True))
    op.create_index("ix_users_nickname_key", "users", ["nickname_key"], unique=True)
    op.add_column("tables", sa.Column("kind", sa.String(16), nullable=False,
                                      server_default="closed"))
    op.create_index("ix_tables_kind", "tables", ["kind"])


def downgrade() -> None:
    op.drop_index("ix_tables_kind", "tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("kind")
    op.drop_index("ix_users_nickname_key", "users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("nickname_key")
    op.drop_index("ix_sessions_user_id", "sessions")
    op.drop_table("sessions")
