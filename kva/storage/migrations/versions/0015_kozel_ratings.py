"""The Kozel rating table, apart from the Georgian game's Glicko-2 on ``users``.

``kozel_ratings`` holds each player's Kozel rating (a running total of the per-match changes
of docs/kozel.md, starting at 0), how many rated Kozel matches they played, and the latest
change; ``kozel_rating_changes`` keeps one row per player per rated Kozel match (before, the
change, after), which the profile reads and which makes rating a match twice impossible
(unique ``match_id, user_id``).

Revision ID: 0015_kozel_ratings
Revises: 0014_match_seats
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_kozel_ratings"
down_revision = "0014_match_seats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "kozel_ratings",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("last_change", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_kozel_ratings_rating", "kozel_ratings", ["rating"])
    op.create_table(
        "kozel_rating_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("rating_before", sa.Integer(), nullable=False),
        sa.Column("change", sa.Integer(), nullable=False),
        sa.Column("rating_after", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("match_id", "user_id", name="uq_kozel_rating_changes_match_user"),
    )
    op.create_index("ix_kozel_rating_changes_user_created", "kozel_rating_changes",
                    ["user_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_kozel_rating_changes_user_created", "kozel_rating_changes")
    op.drop_table("kozel_rating_changes")
    op.drop_index("ix_kozel_ratings_rating", "kozel_ratings")
    op.drop_table("kozel_ratings")
