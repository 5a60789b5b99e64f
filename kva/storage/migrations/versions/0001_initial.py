"""Users, matches and closed tables: the first complete slice of the platform.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("nickname", sa.String(40), nullable=False, unique=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("locale", sa.String(8), nullable=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rating_deviation", sa.Float(), nullable=False),
        sa.Column("rating_volatility", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("target", sa.Integer(), nullable=False),
        sa.Column("bazaar", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("seat0_user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("seat1_user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("seat0_bot", sa.String(32), nullable=True),
        sa.Column("seat1_bot", sa.String(32), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_index("ix_matches_seat0_user_id", "matches", ["seat0_user_id"])
    op.create_index("ix_matches_seat1_user_id", "matches", ["seat1_user_id"])
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False,
                  unique=True),
        sa.Column("token", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tables")
    op.drop_index("ix_matches_seat1_user_id", "matches")
    op.drop_index("ix_matches_seat0_user_id", "matches")
    op.drop_index("ix_matches_status", "matches")
    op.drop_table("matches")
    op.drop_table("users")
