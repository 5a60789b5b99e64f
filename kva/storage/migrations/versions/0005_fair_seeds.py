"""Provably fair deals: ``match_fair`` holds each match's kva-fair/1 inputs, the
secret server seed and the two client seeds with who chose them, so a restarted server resumes
with the same seed and commitment.

Revision ID: 0005_fair_seeds
Revises: 0004_hardening
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_fair_seeds"
down_revision = "0004_hardening"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_fair",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("client_seed0", sa.String(32), nullable=True),
        sa.Column("client_seed1", sa.String(32), nullable=True),
        sa.Column("seed_by0", sa.String(8), nullable=True),
        sa.Column("seed_by1", sa.String(8), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("match_fair")
