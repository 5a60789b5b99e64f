"""Ratings history and rematch offers: the community around the table.

``rating_history`` keeps one row per player per rated match (the rating and RD before and
after), which the profile graph draws and which makes rating a match twice impossible
(unique ``user_id, match_id``). ``rematches`` holds the one rematch conversation a finished
match can have: who offered, where it stands, and the new match once accepted.

Revision ID: 0003_ratings_history
Revises: 0002_accounts_lobby
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_ratings_history"
down_revision = "0002_accounts_lobby"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("rd_before", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Float(), nullable=False),
        sa.Column("rd_after", sa.Float(), nullable=False),
        sa.Column("volatility_after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("user_id", "match_id", name="uq_rating_history_user_match"),
    )
    op.create_index("ix_rating_history_user_created", "rating_history",
                    ["user_id", "created_at"])
    op.create_index("ix_matches_finished_at", "matches", ["finished_at"])
    op.create_table(
        "rematches",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("offered_by", sa.Integer(), nullable=True),
        sa.Column("new_match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematches")
    op.drop_index("ix_matches_finished_at", "matches")
    op.drop_index("ix_rating_history_user_created", "rating_history")
    op.drop_table("rating_history")
