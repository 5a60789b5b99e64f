"""Seats as rows: ``match_seats(match_id, seat, user_id, bot, client_seed, seed_by)``, so a
game may seat 2 to 4.

* ``match_seats``, primary key (``match_id``, ``seat``): one row per seat of a match, numbered
  in turn order from 0, holding the user who sits there or the level of the bot that does
  (neither: the free seat of a table waiting for a player), and the seat's kva-fair/1 client
  seed with who chose it. Index ``ix_match_seats_user_id`` (``user_id``, ``match_id``) stands
  for the two indexes on the seat columns: a player's matches come from it alone.
* Every stored match gets the rows of its two seats, copied from ``matches.seat0_user_id``,
  ``seat0_bot``, ``seat1_user_id`` and ``seat1_bot`` and from ``match_fair.client_seed0``,
  ``seed_by0``, ``client_seed1`` and ``seed_by1`` (none for a match from before fair deals),
  which are then dropped, with the indexes of the seat columns; ``match_fair`` keeps the
  server seed. SQLite rebuilds both tables (batch mode).

The downgrade puts the columns and their indexes back, filled from the rows of seats 0 and 1,
and drops the table; it refuses a database holding a match of more than two seats, which the
old columns cannot hold.

Revision ID: 0014_match_seats
Revises: 0013_coin_refunds
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_match_seats"
down_revision = "0013_coin_refunds"
branch_labels = None
depends_on = None

#: The two seats a match had before this revision.
_OLD_SEATS = (0, 1)

_matches = sa.table(
    "matches",
    sa.column("id", sa.String()),
    *(sa.column(f"seat{seat}_user_id", sa.Integer()) for seat in _OLD_SEATS),
    *(sa.column(f"seat{seat}_bot", sa.String()) for seat in _OLD_SEATS),
)
_fair = sa.table(
    "match_fair",
    sa.column("match_id", sa.String()),
    *(sa.column(f"client_seed{seat}", sa.String()) for seat in _OLD_SEATS),
    *(sa.column(f"seed_by{seat}", sa.String()) for seat in _OLD_SEATS),
)
_seats = sa.table(
    "match_seats",
    sa.column("match_id", sa.String()),
    sa.column("seat", sa.Integer()),
    sa.column("user_id", sa.Integer()),
    sa.column("bot", sa.String()),
    sa.column("client_seed", sa.String()),
    sa.column("seed_by", sa.String()),
)
#: Where each seat's columns were: (table, its key column, {seat row column: old column}).
_MOVED = (
    (_matches, "id", {"user_id": "seat{}_user_id", "bot": "seat{}_bot"}),
    (_fair, "match_id", {"client_seed": "client_seed{}", "seed_by": "seed_by{}"}),
)


def upgrade() -> None:
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("client_seed", sa.String(32), nullable=True),
        sa.Column("seed_by", sa.String(8), nullable=True),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_match_seats"),
    )
    op.create_index("ix_match_seats_user_id", "match_seats", ["user_id", "match_id"])
    joined = _matches.outerjoin(_fair, _fair.c.match_id == _matches.c.id)
    for seat in _OLD_SEATS:
        op.execute(sa.insert(_seats).from_select(
            ["match_id", "seat", "user_id", "bot", "client_seed", "seed_by"],
            sa.select(_matches.c.id, sa.literal(seat, sa.Integer()),
                      _matches.c[f"seat{seat}_user_id"], _matches.c[f"seat{seat}_bot"],
                      _fair.c[f"client_seed{seat}"], _fair.c[f"seed_by{seat}"])
            .select_from(joined)))
    for seat in _OLD_SEATS:
        op.drop_index(f"ix_matches_seat{seat}_user_id", "matches")
    for table, _key, columns in _MOVED:
        with op.batch_alter_table(table.name) as batch:
            for seat in _OLD_SEATS:
                for old in columns.values():
                    batch.drop_column(old.format(seat))


def downgrade() -> None:
    bind = op.get_bind()
    wider = bind.scalar(sa.select(sa.func.count()).select_from(_seats)
                        .where(_seats.c.seat >= len(_OLD_SEATS)))
    if wider:
        raise RuntimeError(f"{wider} seats of matches of more than {len(_OLD_SEATS)} seats "
                           "have no column to go back to")
    with op.batch_alter_table("matches") as batch:
        for seat in _OLD_SEATS:
            batch.add_column(sa.Column(f"seat{seat}_user_id", sa.Integer(), nullable=True))
        for seat in _OLD_SEATS:
            batch.add_column(sa.Column(f"seat{seat}_bot", sa.String(32), nullable=True))
        for seat in _OLD_SEATS:  # named as PostgreSQL named the ones of 0001_initial
            batch.create_foreign_key(f"matches_seat{seat}_user_id_fkey", "users",
                                     [f"seat{seat}_user_id"], ["id"])
    with op.batch_alter_table("match_fair") as batch:
        for seat in _OLD_SEATS:
            batch.add_column(sa.Column(f"client_seed{seat}", sa.String(32), nullable=True))
        for seat in _OLD_SEATS:
            batch.add_column(sa.Column(f"seed_by{seat}", sa.String(8), nullable=True))
    for table, key, columns in _MOVED:
        for seat in _OLD_SEATS:
            row = sa.select(_seats).where(_seats.c.match_id == table.c[key],
                                          _seats.c.seat == seat)
            op.execute(sa.update(table).values({
                old.format(seat): row.with_only_columns(_seats.c[new]).scalar_subquery()
                for new, old in columns.items()}))
    for seat in _OLD_SEATS:
        op.create_index(f"ix_matches_seat{seat}_user_id", "matches", [f"seat{seat}_user_id"])
    op.drop_index("ix_match_seats_user_id", "match_seats")
    op.drop_table("match_seats")
