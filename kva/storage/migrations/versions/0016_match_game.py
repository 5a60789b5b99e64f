"""The game of each match: ``matches.game`` names the game of :mod:`kva.games` the match is
played in (``georgian``, ``kozel``, …), so that the play service finds its rules by name.
Every match stored before is a Georgian one, which the server default says.

Revision ID: 0016_match_game
Revises: 0015_kozel_ratings
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_match_game"
down_revision = "0015_kozel_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("game", sa.String(16), nullable=False,
                                   server_default="georgian"))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("game")
