"""The Domino Coin ledger (migration ``0007_coins``): double-entry bookkeeping of a virtual
in-game coin (not money: it cannot be bought, sold or exchanged). See docs/coins.md.

* ``coin_accounts``: one row per account: the single ``issuing`` account (grants and daily
  top-ups come from it, so its balance is minus every coin ever created), each registered
  player's ``wallet`` and one ``escrow`` per coin match. ``balance`` is a cache of what the
  entries say, changed only in the transaction that adds the entry, and re-checked against
  the entries by ``kva coins audit``. The schema refuses a wallet or an escrow below zero.
* ``coin_entries``: immutable movements: ``amount`` > 0 from one account to another, a
  ``kind`` (``grant``, ``topup``, ``stake``, ``payout``), the match where there is one, and a
  unique ``key`` that makes every movement happen at most once (``grant:<user>``,
  ``topup:<user>:<UTC day>``, ``stake:<match>:<seat>``, ``payout:<match>``); besides, a match
  has at most one entry per kind and source account (one payout out of its escrow, one stake
  out of each wallet).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from kva.storage.models import Base, utcnow

#: Account kinds.
ISSUING, WALLET, ESCROW = "issuing", "wallet", "escrow"
#: Entry kinds.
GRANT, TOPUP, STAKE, PAYOUT, REFUND = "grant", "topup", "stake", "payout", "refund"


class CoinAccount(Base):
    """An account of the ledger: the issuing account, a player's wallet or a match's escrow."""

    __tablename__ = "coin_accounts"
    __table_args__ = (
        CheckConstraint("kind IN ('issuing', 'wallet', 'escrow')", name="ck_coin_account_kind"),
        CheckConstraint("kind = 'issuing' OR balance >= 0", name="ck_coin_account_nonneg"),
        CheckConstraint("(kind = 'wallet') = (user_id IS NOT NULL)",
                        name="ck_coin_account_wallet_user"),
        CheckConstraint("(kind = 'escrow') = (match_id IS NOT NULL)",
                        name="ck_coin_account_escrow_match"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: ``issuing``, ``wallet:<user id>`` or ``escrow:<match id>``: one account each.
    key: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    kind: Mapped[str] = mapped_column(String(8), nullable=False)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), unique=True,
                                                nullable=True)
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), unique=True,
                                                 nullable=True)
    balance: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CoinEntry(Base):
    """One movement of coins, never changed nor deleted."""

    __tablename__ = "coin_entries"
    __table_args__ = (
        CheckConstraint("amount > 0", name="ck_coin_entry_amount"),
        CheckConstraint("from_account <> to_account", name="ck_coin_entry_accounts"),
        CheckConstraint("kind IN ('grant', 'topup', 'stake', 'payout', 'refund')",
                        name="ck_coin_entry_kind"),
        UniqueConstraint("match_id", "kind", "from_account", "to_account",
                         name="uq_coin_entry_match_kind"),
        Index("ix_coin_entries_from", "from_account", "id"),
        Index("ix_coin_entries_to", "to_account", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(80), unique=True, nullable=False)
    amount: Mapped[int] = mapped_column(Integer, nullable=False)
    from_account: Mapped[int] = mapped_column(ForeignKey("coin_accounts.id"), nullable=False)
    to_account: Mapped[int] = mapped_column(ForeignKey("coin_accounts.id"), nullable=False)
    kind: Mapped[str] = mapped_column(String(8), nullable=False)
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), nullable=True,
                                                 index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
