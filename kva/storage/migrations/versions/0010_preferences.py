"""A registered player's table preferences (sound, motion, theme, move confirmation,
notifications) as compact JSON on ``users``; see :mod:`kva.service.accounts.preferences`.

Revision ID: 0010_preferences
Revises: 0009_learn
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_preferences"
down_revision = "0009_learn"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("preferences", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("preferences")
