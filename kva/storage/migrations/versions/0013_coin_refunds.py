"""Domino Coin refunds: an aborted coin match gives each player their stake back.

``coin_entries.kind`` may be ``refund`` (an escrow back to a wallet), and the unique key of a
match's entries also names the account paid (``to_account``): an escrow refunds two wallets
in one match, each once. A stake (one per wallet) and a payout (one per escrow, and its own
``payout:<match>`` key) stay exactly-once as before.

Revision ID: 0013_coin_refunds
Revises: 0012_confusable_keys
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0013_coin_refunds"
down_revision = "0012_confusable_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("coin_entries") as batch:
        batch.drop_constraint("ck_coin_entry_kind", type_="check")
        batch.create_check_constraint(
            "ck_coin_entry_kind", "kind IN ('grant', 'topup', 'stake', 'payout', 'refund')")
        batch.drop_constraint("uq_coin_entry_match_kind", type_="unique")
        batch.create_unique_constraint(
            "uq_coin_entry_match_kind", ["match_id", "kind", "from_account", "to_account"])


def downgrade() -> None:
    with op.batch_alter_table("coin_entries") as batch:
        batch.drop_constraint("uq_coin_entry_match_kind", type_="unique")
        batch.create_unique_constraint(
            "uq_coin_entry_match_kind", ["match_id", "kind", "from_account"])
        batch.drop_constraint("ck_coin_entry_kind", type_="check")
        batch.create_check_constraint(
            "ck_coin_entry_kind", "kind IN ('grant', 'topup', 'stake', 'payout')")
