"""Accounts: registering (a guest becomes a player, same user row), logging in, nicknames.

Registering needs a nickname and a password, no e-mail. A guest who registers keeps
everything they played: their own ``users`` row is upgraded in place (same id), so every
match that points at it stays theirs. Passwords are Argon2 hashes (pwdlib), hashed and checked
off the event loop; a login for a nickname that does not exist costs the same hash check as a
wrong password, so timing does not tell which nicknames exist.

Nicknames are compared casefolded (``Nino`` and ``nino`` are one player), stored as typed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.passwords import hash_password, verify_password
from kva.service.sessions import rotate
from kva.storage.models import User

#: ``users.kind`` of a registered player (guests are ``"guest"``).
REGISTERED = "registered"
GUEST = "guest"
NICKNAME_MIN, NICKNAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 128
#: Letters of any script, digits, ``_`` and ``-``; starting with a letter or a digit.
_NICKNAME = re.compile(r"^[^\W_][\w-]*$")
#: Casefolded prefixes nobody may register: they would pass for a guest or a bot.
RESERVED_PREFIXES = ("guest", "bot")


class AccountError(ValueError):
    """Registration or login refused; ``code`` says why (the page words it per language)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def nickname_key(nickname: str) -> str:
    """The form two nicknames are compared in: NFKC, casefolded."""
    return unicodedata.normalize("NFKC", nickname).casefold()


def check_nickname(nickname: str) -> str:
    """``nickname`` normalised (NFKC, trimmed) if it is acceptable; else AccountError."""
    name = unicodedata.normalize("NFKC", nickname).strip()
    if not NICKNAME_MIN <= len(name) <= NICKNAME_MAX:
        raise AccountError("nickname_length",
                           f"a nickname has {NICKNAME_MIN} to {NICKNAME_MAX} characters")
    if not _NICKNAME.match(name) or not name.isprintable():
        raise AccountError("nickname_chars",
                           "a nickname has letters, digits, '_' and '-', starting with a "
                           "letter or digit")
    if nickname_key(name).startswith(RESERVED_PREFIXES):
        raise AccountError("nickname_reserved", "that nickname is reserved")
    return name


def check_password(password: str, nickname: str) -> None:
    """AccountError unless ``password`` is long enough and not the nickname itself."""
    if len(password) < PASSWORD_MIN:
        raise AccountError("password_short", f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise AccountError("password_long", f"a password has at most {PASSWORD_MAX} characters")
    if nickname_key(password) == nickname_key(nickname):
        raise AccountError("password_is_nickname", "the password may not be the nickname")


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A user who just registered or logged in, and the token of their new session."""

    user: User
    token: str


#: A valid Argon2 hash of a random password: logins for unknown nicknames check against it.
_DUMMY_HASH: str | None = None


async def _dummy_hash() -> str:
    global _DUMMY_HASH
    if _DUMMY_HASH is None:
        import secrets

        _DUMMY_HASH = await hash_password(secrets.token_urlsafe(16))
    return _DUMMY_HASH


async def register(sessions: async_sessionmaker, current: User, old_token: str | None,
                   nickname: str, password: str) -> SignedIn:
    """Register ``current`` (a guest) as ``nickname``: same user row, same matches.

    Raises AccountError (nothing changed) for a bad nickname or password, a nickname taken, or
    a visitor who is already registered.
    """
    name = check_nickname(nickname)
    check_password(password, name)
    if current.kind != GUEST:
        raise AccountError("already_registered", "you are already registered")
    key = nickname_key(name)
    async with sessions() as session:
        taken = await session.scalar(select(User.id).where(User.nickname_key == key))
        if taken is not None:
            raise AccountError("nickname_taken", "that nickname is taken")
    hashed = await hash_password(password)
    async with sessions() as session:
        try:
            result = await session.execute(
                update(User)
                .where(User.id == current.id, User.kind == GUEST)
                .values(kind=REGISTERED, nickname=name, nickname_key=key, password_hash=hashed)
            )
            if result.rowcount != 1:  # type: ignore[attr-defined]
                await session.rollback()
                raise AccountError("already_registered", "you are already registered")
            token = await rotate(session, old_token, current.id)
            await session.commit()
        except IntegrityError:
            await session.rollback()
            raise AccountError("nickname_taken", "that nickname is taken") from None
        user = await session.get(User, current.id, populate_existing=True)
    assert user is not None
    return SignedIn(user, token)


async def login(sessions: async_sessionmaker, old_token: str | None, nickname: str,
                password: str) -> SignedIn:
    """Log in as ``nickname``: a new session for that player, the old one revoked.

    Raises AccountError("wrong_credentials") for an unknown nickname or a wrong password (the
    same error, after the same work, for both).
    """
    if not nickname or len(nickname) > 64 or not password or len(password) > PASSWORD_MAX:
        raise AccountError("wrong_credentials", "wrong nickname or password")
    key = nickname_key(nickname.strip())
    async with sessions() as session:
        user = await session.scalar(
            select(User).where(User.nickname_key == key, User.kind == REGISTERED)
        )
    if user is None or user.password_hash is None:
        await verify_password(password, await _dummy_hash())
        raise AccountError("wrong_credentials", "wrong nickname or password")
    if not await verify_password(password, user.password_hash):
        raise AccountError("wrong_credentials", "wrong nickname or password")
    async with sessions() as session:
        token = await rotate(session, old_token, user.id)
        await session.commit()
    return SignedIn(user, token)


def is_registered(user: User | None) -> bool:
    """Whether ``user`` is a registered player (may play rated matches)."""
    return user is not None and user.kind == REGISTERED
