"""Hardening: the client address of each session, nickname keys as skeletons.

* ``sessions.address``: the client address a session was opened from (nullable: older
  sessions have none), so a rated match between two accounts on one address can be logged.
* ``users.nickname_key`` of registered players becomes the confusable skeleton of the nickname
  (:func:`kva.service.accounts.nicknames.skeleton`) instead of its casefolded form. Where two
  existing players share a skeleton, the one whose old key already equals it (else the older
  account) gets it; the others keep their old key (which can never equal a skeleton), and log
  in by their exact name as before.

Revision ID: 0004_hardening
Revises: 0004_watch_grants
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from kva.service.accounts.nicknames import skeleton

revision = "0004_hardening"
down_revision = "0004_watch_grants"  # one line of heads: after the watch grants
branch_labels = None
depends_on = None


def _rekey(new_key: dict[int, str]) -> None:
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("nickname_key", sa.String))
    bind = op.get_bind()
    # Two steps so that no intermediate state breaks the unique index.
    for user_id in new_key:
        bind.execute(users.update().where(users.c.id == user_id)
                     .values(nickname_key=f"~{user_id}"))
    for user_id, key in new_key.items():
        bind.execute(users.update().where(users.c.id == user_id).values(nickname_key=key))


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("address", sa.String(45), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, nickname, nickname_key FROM users WHERE nickname_key IS NOT NULL "
        "ORDER BY id")).all()
    groups: dict[str, list[tuple[int, str]]] = {}
    for user_id, nickname, key in rows:
        groups.setdefault(skeleton(nickname), []).append((user_id, key))
    new_key: dict[int, str] = {}
    for skel, members in groups.items():
        winner = next((uid for uid, key in members if key == skel), members[0][0])
        if dict(members)[winner] != skel:
            new_key[winner] = skel
    _rekey(new_key)


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, nickname, nickname_key FROM users WHERE nickname_key IS NOT NULL")).all()
    import unicodedata

    _rekey({uid: unicodedata.normalize("NFKC", nick).casefold()
            for uid, nick, _key in rows})
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("address")
