"""Domino Coin: wallets, stakes and the ledger's audit."""
