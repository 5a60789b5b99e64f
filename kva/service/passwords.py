"""Closed-table passwords: Argon2 hashes (pwdlib), checked off the event loop."""

from __future__ import annotations

import asyncio

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

_HASHER = PasswordHash((Argon2Hasher(),))


async def hash_password(password: str) -> str:
    """The Argon2 hash of ``password``."""
    return await asyncio.to_thread(_HASHER.hash, password)


async def verify_password(password: str, hashed: str) -> bool:
    """Whether ``password`` matches ``hashed``."""
    return await asyncio.to_thread(_HASHER.verify, password, hashed)
