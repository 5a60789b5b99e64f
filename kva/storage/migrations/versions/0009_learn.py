"""Learning: ``learn_progress`` (a registered player's lesson steps done) and
``match_analyses`` (a finished match's stored analysis); see :mod:`kva.storage.learn`.

Revision ID: 0009_learn
Revises: 0008_bot_api
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_learn"
down_revision = "0008_bot_api"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "learn_progress",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("done", sa.String(400), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "match_analyses",
        sa.Column("match_id", sa.String(24), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("match_analyses")
    op.drop_table("learn_progress")
