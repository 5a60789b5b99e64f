"""The visitor's language: the ``kva_lang`` cookie of this browser and, for a registered
player, ``users.locale``, so that the language follows the account to a new device.

Choosing a language (``/lang/{code}``) sets the cookie and, when signed in, the account's
language. Logging in on a browser applies the account's language to it; registering keeps the
language the visitor was using. The server renders every page in the cookie's language.
"""

from __future__ import annotations

from fastapi import Request, Response

from kva.i18n import COOKIE_NAME, LOCALES
from kva.service.accounts import registration as accounts
from kva.service.accounts.registration import User
from kva.web.services import services

#: A year: the choice outlives a browser session.
MAX_AGE = 60 * 60 * 24 * 365


def set_cookie(request: Request, response: Response, code: str) -> None:
    """Make ``code`` this browser's language (HttpOnly: no script reads it)."""
    response.set_cookie(COOKIE_NAME, code, max_age=MAX_AGE, httponly=True, samesite="lax",
                        secure=services(request).settings.secure_cookies)


def of_account(user: User | None) -> str | None:
    """The language kept with ``user``'s account, if it is one of ours."""
    code = getattr(user, "locale", None)
    return code if code in LOCALES else None


async def keep_with_account(request: Request, user: User | None, code: str) -> None:
    """Store ``code`` as a registered ``user``'s language (nothing for a guest or visitor)."""
    if user is None or user.kind != "registered" or code not in LOCALES:
        return
    await accounts.keep_locale(services(request).sessions, user.id, code)


async def on_sign_in(request: Request, response: Response, user: User, registered: bool) -> None:
    """After a login, this browser takes the account's language; after a registration (or a
    login to an account with none kept yet), the account keeps the one in use here."""
    kept = None if registered else of_account(user)
    if kept is not None:
        set_cookie(request, response, kept)
    else:
        await keep_with_account(request, user, request.state.locale)
