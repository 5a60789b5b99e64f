"""Accounts: registering (a guest becomes a player, same user row), logging in, nicknames.

Registering needs a nickname and a password, no e-mail. A guest who registers keeps
everything they played: their own ``users`` row is upgraded in place (same id), so every
match that points at it stays theirs. Passwords are Argon2 hashes (pwdlib), hashed and checked
off the event loop; a login for a nickname that does not exist costs the same hash check as a
wrong password, so timing does not tell which nicknames exist.

Nicknames (:mod:`kva.service.accounts.nicknames`) are stored as typed (NFKC) and compared on their
skeleton, kept in ``users.nickname_key`` (unique): ``Nino``, ``nino`` and a Cyrillic
look-alike are one player. Keys stored before the skeleton (casefolded only) were rewritten by
migration 0004, and recomputed by 0011 when the skeleton came to use the Unicode confusables
data; a login also accepts the casefolded form, so nobody is locked out by either.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.accounts import nicknames
from kva.service.accounts.passwords import Lane, hash_password, verify_password
from kva.service.accounts.sessions import rotate
from kva.storage import accounts as account_store
from kva.storage.accounts import GUEST as GUEST  # ``users.kind`` of a guest
from kva.storage.accounts import REGISTERED as REGISTERED  # and of a registered player
from kva.storage.models import User as User  # the user every service hands the web tier

NICKNAME_MIN, NICKNAME_MAX = nicknames.NICKNAME_MIN, nicknames.NICKNAME_MAX
PASSWORD_MIN, PASSWORD_MAX = 8, 128
RESERVED_PREFIXES = nicknames.RESERVED_PREFIXES


class AccountError(ValueError):
    """Registration or login refused; ``code`` says why (the page words it per language)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def nickname_key(nickname: str) -> str:
    """The form two nicknames are compared in: the confusable skeleton (NFKC, casefolded,
    look-alikes replaced; :func:`kva.service.accounts.nicknames.skeleton`)."""
    return nicknames.skeleton(nickname)


def _folded(nickname: str) -> str:
    """NFKC and casefolded: the key a nickname had before skeletons."""
    return unicodedata.normalize("NFKC", nickname).casefold()


def check_nickname(nickname: str) -> str:
    """``nickname`` normalised (NFKC, trimmed) if it is acceptable; else AccountError."""
    try:
        return nicknames.check(nickname)
    except nicknames.NicknameError as exc:
        raise AccountError(exc.code, str(exc)) from None


def check_password(password: str, nickname: str) -> None:
    """AccountError unless ``password`` is long enough and not the nickname itself."""
    if len(password) < PASSWORD_MIN:
        raise AccountError("password_short", f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise AccountError("password_long", f"a password has at most {PASSWORD_MAX} characters")
    if _folded(password) == _folded(nickname) or nickname_key(password) == nickname_key(nickname):
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


async def register(sessions: async_sessionmaker[AsyncSession], current: User, old_token: str | None,
                   nickname: str, password: str, address: str | None = None) -> SignedIn:
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
        if await account_store.nickname_key_taken(session, {key, _folded(name)}):
            raise AccountError("nickname_taken", "that nickname is taken")
    hashed = await hash_password(password)
    async with sessions() as session:
        try:
            if not await account_store.register_guest(
                    session, current.id, nickname=name, nickname_key=key, password_hash=hashed):
                await session.rollback()
                raise AccountError("already_registered", "you are already registered")
            token = await rotate(session, old_token, current.id, address)
            await session.commit()
        except IntegrityError:
            await session.rollback()
            raise AccountError("nickname_taken", "that nickname is taken") from None
        user = await account_store.reloaded_user(session, current.id)
    assert user is not None
    return SignedIn(user, token)


async def login(sessions: async_sessionmaker[AsyncSession], old_token: str | None, nickname: str,
                password: str, address: str | None = None, lane: Lane = "account") -> SignedIn:
    """Log in as ``nickname``: a new session for that player, the old one revoked. The
    password is checked on the Argon2 ``lane`` (``"suspect"`` for a login that looks like
    guessing: :mod:`kva.service.accounts.passwords`).

    Raises AccountError("wrong_credentials") for an unknown nickname or a wrong password (the
    same error, after the same work on the same lane, for both).
    """
    if not nickname or len(nickname) > 64 or not password or len(password) > PASSWORD_MAX:
        raise AccountError("wrong_credentials", "wrong nickname or password")
    async with sessions() as session:
        user = await find_registered(session, nickname)
    if user is None or user.password_hash is None:
        await verify_password(password, await _dummy_hash(), lane)
        raise AccountError("wrong_credentials", "wrong nickname or password")
    if not await verify_password(password, user.password_hash, lane):
        raise AccountError("wrong_credentials", "wrong nickname or password")
    async with sessions() as session:
        token = await rotate(session, old_token, user.id, address)
        await session.commit()
    return SignedIn(user, token)


async def find_registered(session: AsyncSession, nickname: str) -> User | None:
    """The registered player called ``nickname`` whatever its case or look-alikes; the exact
    (casefolded) name wins, so an older account whose key could not become its skeleton
    (migration 0004) is still found by its own name."""
    typed = nickname.strip()
    key, folded = nickname_key(typed), _folded(typed)
    found = await account_store.registered_with_keys(session, {key, folded})
    found.sort(key=lambda u: _folded(u.nickname) != folded)
    return found[0] if found else None


async def find_player(sessions: async_sessionmaker[AsyncSession],
                      nickname: str) -> User | None:
    """The user called exactly ``nickname`` (a guest too), else the registered player of that
    name whatever its case or look-alikes (:func:`find_registered`), else None."""
    async with sessions() as session:
        user = await account_store.user_named(session, nickname)
        if user is None:  # /u/Nino is nino: registered names are one whatever the case
            user = await find_registered(session, nickname)
    return user


def is_registered(user: User | None) -> bool:
    """Whether ``user`` is a registered player (may play rated matches)."""
    return user is not None and user.kind == REGISTERED


async def keep_locale(sessions: async_sessionmaker[AsyncSession], user_id: int,
                      code: str) -> None:
    """Store ``code`` as the language of ``user_id``'s account, committed."""
    async with sessions() as session, session.begin():
        await account_store.set_locale(session, user_id, code)
