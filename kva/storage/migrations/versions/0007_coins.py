"""Domino Coin: the double-entry ledger (``coin_accounts``, ``coin_entries``, see
:mod:`kva.storage.ledger` and docs/coins.md), the issuing account, and ``matches.stake``: the
coins each player puts into a match (0: not a coin match).

Revision ID: 0007_coins
Revises: 0006_match_actions
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_coins"
down_revision = "0006_match_actions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("stake", sa.Integer(), nullable=False,
                                       server_default="0"))
    op.create_table(
        "coin_accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(40), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True,
                  unique=True),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=True,
                  unique=True),
        sa.Column("balance", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('issuing', 'wallet', 'escrow')",
                           name="ck_coin_account_kind"),
        sa.CheckConstraint("kind = 'issuing' OR balance >= 0", name="ck_coin_account_nonneg"),
        sa.CheckConstraint("(kind = 'wallet') = (user_id IS NOT NULL)",
                           name="ck_coin_account_wallet_user"),
        sa.CheckConstraint("(kind = 'escrow') = (match_id IS NOT NULL)",
                           name="ck_coin_account_escrow_match"),
    )
    op.create_table(
        "coin_entries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(80), nullable=False, unique=True),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("from_account", sa.Integer(), sa.ForeignKey("coin_accounts.id"),
                  nullable=False),
        sa.Column("to_account", sa.Integer(), sa.ForeignKey("coin_accounts.id"),
                  nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("amount > 0", name="ck_coin_entry_amount"),
        sa.CheckConstraint("from_account <> to_account", name="ck_coin_entry_accounts"),
        sa.CheckConstraint("kind IN ('grant', 'topup', 'stake', 'payout')",
                           name="ck_coin_entry_kind"),
        sa.UniqueConstraint("match_id", "kind", "from_account",
                            name="uq_coin_entry_match_kind"),
    )
    op.create_index("ix_coin_entries_from", "coin_entries", ["from_account", "id"])
    op.create_index("ix_coin_entries_to", "coin_entries", ["to_account", "id"])
    op.create_index("ix_coin_entries_match_id", "coin_entries", ["match_id"])
    accounts = sa.table("coin_accounts", sa.column("key", sa.String()),
                        sa.column("kind", sa.String()), sa.column("balance", sa.Integer()))
    op.bulk_insert(accounts, [{"key": "issuing", "kind": "issuing", "balance": 0}])


def downgrade() -> None:
    op.drop_index("ix_coin_entries_match_id", "coin_entries")
    op.drop_index("ix_coin_entries_to", "coin_entries")
    op.drop_index("ix_coin_entries_from", "coin_entries")
    op.drop_table("coin_entries")
    op.drop_table("coin_accounts")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("stake")
