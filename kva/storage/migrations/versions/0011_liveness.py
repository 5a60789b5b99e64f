"""Liveness: when each server process was last alive (``process_alive``) and the deadline a
process moved forward when it took up a match left with no server (``match_takeovers``), so
that an outage is not charged to the player on turn; see :mod:`kva.service.play.liveness`.

Revision ID: 0011_liveness
Revises: 0010_preferences
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_liveness"
down_revision = "0010_preferences"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "process_alive",
        sa.Column("process_id", sa.String(32), primary_key=True),
        sa.Column("alive_at", sa.BigInteger(), nullable=False),
        sa.Column("stopped", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "match_takeovers",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("process_id", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("deadline", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_takeovers")
    op.drop_table("process_alive")
