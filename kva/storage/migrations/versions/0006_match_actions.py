"""The journal of matches in progress: one appended row per committed change, so an
action writes a few dozen bytes instead of the whole record.

* ``match_actions(match_id, seq, change)``, primary key (``match_id``, ``seq``): each change
  of a match in progress as compact JSON (:mod:`kva.storage.journal`); ``seq`` is the version
  the change made, and the key is the optimistic-concurrency guard of every write.
* ``matches.record`` becomes a checkpoint at ``matches.version``: the record of a match in
  progress is its checkpoint with the later journal rows applied. Every stored record of a
  match in progress is already the checkpoint at its version, so converting one is giving it
  the journal row of that version (the guard a writer still holding an older copy runs into).

The downgrade folds each match's journal into its record (and its version) and drops the table.

Revision ID: 0006_match_actions
Revises: 0005_fair_seeds
Create Date: 2026-11-30
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

# every match stored before this migration was Georgian
from kva.games.georgian_live import apply_change
from kva.storage.journal import assemble

revision = "0006_match_actions"
down_revision = "0005_fair_seeds"
branch_labels = None
depends_on = None

_matches = sa.table(
    "matches",
    sa.column("id", sa.String()),
    sa.column("status", sa.String()),
    sa.column("version", sa.Integer()),
    sa.column("record", sa.JSON()),
)
_actions = sa.table(
    "match_actions",
    sa.column("match_id", sa.String()),
    sa.column("seq", sa.Integer()),
    sa.column("change", sa.Text()),
)


def upgrade() -> None:
    op.create_table(
        "match_actions",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("change", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "seq", name="pk_match_actions"),
    )
    bind = op.get_bind()
    rows = bind.execute(sa.select(_matches.c.id, _matches.c.version)
                        .where(_matches.c.status.in_(("waiting", "active")))).all()
    marker = json.dumps({"checkpoint": True})
    for match_id, version in rows:
        bind.execute(sa.insert(_actions).values(match_id=match_id, seq=version, change=marker))


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(_matches.c.id, _matches.c.version, _matches.c.record)
                        .where(_matches.c.status.in_(("waiting", "active")))).all()
    for match_id, version, record in rows:
        changes = bind.execute(sa.select(_actions.c.seq, _actions.c.change)
                               .where(_actions.c.match_id == match_id,
                                      _actions.c.seq > version)
                               .order_by(_actions.c.seq)).all()
        if changes:
            bind.execute(sa.update(_matches).where(_matches.c.id == match_id).values(
                record=assemble(record, (c for _, c in changes), apply_change),
                version=changes[-1][0]))
    op.drop_table("match_actions")
