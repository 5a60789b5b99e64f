"""Nickname keys recomputed with the Unicode confusables data.

``users.nickname_key`` of registered players becomes the skeleton of
:func:`kva.service.accounts.nicknames.skeleton` as it is now: made with the Unicode confusables data
(UTS #39) and small capitals, ``I`` and ``l`` as one, where it used to be a short table of
Cyrillic, Greek and Latin look-alikes. The new skeleton joins everything the old one did, so
players only ever meet: where several now share a skeleton, the one whose key already equals
it (else the older account) gets it, and the others keep their key, which is then no
skeleton of anyone, and log in by their exact name as before. A skeleton longer than the
column (a name of letters that each pass for several) is not stored either; the key is kept.

The downgrade leaves the keys: the old skeleton's table is gone with its code, and every key
stays unique.

Revision ID: 0012_confusable_keys
Revises: 0011_liveness
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from kva.service.accounts.nicknames import KEY_MAX, skeleton

revision = "0012_confusable_keys"
down_revision = "0011_liveness"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, nickname, nickname_key FROM users WHERE nickname_key IS NOT NULL "
        "ORDER BY id")).all()
    groups: dict[str, list[tuple[int, str]]] = {}
    for user_id, nickname, key in rows:
        skel = skeleton(nickname)
        if len(skel) <= KEY_MAX:
            groups.setdefault(skel, []).append((user_id, key))
    new_key: dict[int, str] = {}
    for skel, members in groups.items():
        winner = next((uid for uid, key in members if key == skel), members[0][0])
        if dict(members)[winner] != skel:
            new_key[winner] = skel
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("nickname_key", sa.String))
    # Two steps so that no intermediate state breaks the unique index.
    for user_id in new_key:
        bind.execute(users.update().where(users.c.id == user_id)
                     .values(nickname_key=f"~{user_id}"))
    for user_id, key in new_key.items():
        bind.execute(users.update().where(users.c.id == user_id).values(nickname_key=key))


def downgrade() -> None:
    pass
