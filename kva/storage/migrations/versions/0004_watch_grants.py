"""Private matches and watch grants; waiting tables hold no deal.

* ``matches.private``: only the players and visitors granted the right may watch (a password
  table and its rematches). Set for every existing match whose table has a password.
* ``watch_grants``: who may watch a private match (they gave the table's password), one row per
  match and user, so every process honours it.
* A table waiting for its second player is dealt when the match starts: the records of waiting
  (and cancelled) tables are emptied of the deal they were given at creation.

Revision ID: 0004_watch_grants
Revises: 0003_ratings_history
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_watch_grants"
down_revision = "0003_ratings_history"
branch_labels = None
depends_on = None

_matches = sa.table(
    "matches",
    sa.column("id", sa.String()),
    sa.column("status", sa.String()),
    sa.column("record", sa.JSON()),
    sa.column("private", sa.Boolean()),
)
_tables = sa.table("tables", sa.column("match_id", sa.String()),
                   sa.column("password_hash", sa.Text()))


def upgrade() -> None:
    op.add_column("matches", sa.Column("private", sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.create_table(
        "watch_grants",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    bind = op.get_bind()
    protected = sa.select(_tables.c.match_id).where(_tables.c.password_hash.is_not(None))
    bind.execute(sa.update(_matches).where(_matches.c.id.in_(protected))
                 .values(private=True))
    rows = bind.execute(sa.select(_matches.c.id, _matches.c.record)
                        .where(_matches.c.status.in_(("waiting", "cancelled")))).all()
    for match_id, record in rows:
        if isinstance(record, dict) and record.get("hands"):
            bind.execute(sa.update(_matches).where(_matches.c.id == match_id)
                         .values(record={**record, "hands": []}))


def downgrade() -> None:
    op.drop_table("watch_grants")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("private")
