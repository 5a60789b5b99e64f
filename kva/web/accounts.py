"""Account pages: register, log in, log out.

The session cookie is written by the identity middleware only: a route that signs someone in
or out puts the new token (or ``""`` to delete the cookie) in ``request.state.set_session``.
Login and registration are rate-limited per client address (:func:`kva.web.security.client_key`),
per (nickname, address) and, far higher, per nickname (:mod:`kva.service.ratelimit`), which a
browser the account signed in from before (its ``kva_device`` cookie) is exempt from; and
successful logins per account, which nothing is exempt from. A refusal is a 429 page with
``Retry-After`` that still shows the form.

A login's password is checked on the ``suspect`` Argon2 lane when its client failed a login
recently or was refused one unchecked, or its nickname failed one (unless the login comes from
a known device of that account), else on the ``account`` lane
(:mod:`kva.service.accounts.passwords`),
so guessers cannot fill the lane honest logins use. A client, and an account, with a login
still being checked gets 429 without any hashing (``login_in_flight``, ``account_in_flight``).

The known-device cookie names the login session it was set with, and is honoured only while
that session is live: logging out revokes the session, so the cookie, and any copy of it,
stops counting as a known device at once.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from kva.service.accounts import registration as accounts
from kva.service.accounts import sessions
from kva.service.accounts.passwords import (
    AccountInFlight,
    Lane,
    PasswordsBusy,
    PasswordsInFlight,
    one_at_a_time,
)
from kva.service.accounts.registration import AccountError
from kva.service.ratelimit import AuthRateLimiter, Refusal
from kva.web import language
from kva.web.errors import busy_page
from kva.web.identity import ensure_user
from kva.web.render import render, translator
from kva.web.security import client_ip, client_key, safe_next
from kva.web.services import services

router = APIRouter()

#: The known-device cookie: signed (nickname key, the hash of the login session it was set
#: with), so a login from a browser the account is signed in on is exempt from the
#: per-nickname ceiling on failures, until that session is revoked (logout).
DEVICE_COOKIE = "kva_device"
DEVICE_MAX_AGE = 60 * 60 * 24 * 365
#: The longest device cookie looked at (a Georgian nickname key and a session hash fit).
DEVICE_COOKIE_MAX = 512


def _messages(request: Request) -> dict[str, str]:
    """What each :class:`AccountError` code says to the visitor, in their language."""
    _ = translator(request)
    return {
        "nickname_length": _("A nickname has 3 to 20 characters."),
        "nickname_chars": _("A nickname may have letters, digits, “_” and “-”, and starts "
                            "with a letter or a digit."),
        "nickname_alphabet": _("A nickname uses Latin letters (Turkish ones included), "
                               "Georgian or Cyrillic letters only."),
        "nickname_scripts": _("A nickname uses the letters of one alphabet only (Georgian, "
                              "Latin or Cyrillic), not a mix."),
        "nickname_reserved": _("That nickname is reserved. Choose another."),
        "nickname_taken": _("That nickname is taken. Choose another."),
        "password_short": _("The password needs at least 8 characters."),
        "password_long": _("The password may have at most 128 characters."),
        "password_is_nickname": _("The password may not be your nickname."),
        "already_registered": _("You are already registered."),
        "wrong_credentials": _("Wrong nickname or password."),
    }


def _form(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    context.setdefault("error", None)
    context.setdefault("code", "")
    context.setdefault("nickname", "")
    context.setdefault("next", "/")
    return render(request, name, context, status)


def _limited(request: Request, name: str, refusal: Refusal, **context: Any) -> Response:
    """The form again, with 429, ``Retry-After`` and a clear message."""
    _ = translator(request)
    minutes = max(1, math.ceil(refusal.retry_after / 60))
    message = _("Too many attempts. Try again in %(minutes)s min.") % {"minutes": minutes}
    response = _form(request, name, 429, error=message, code="rate_limited", **context)
    response.headers["Retry-After"] = str(refusal.retry_after)
    return response


def _in_flight(request: Request, account: bool, **context: Any) -> Response:
    """The login form again, with 429: this client's previous login, or another login to the
    same ``account``, is still being checked."""
    _ = translator(request)
    if account:
        message = _("Another login to this account is being checked. Try again in a moment.")
    else:
        message = _("A login from your address is still being checked. Try again in a moment.")
    response = _form(request, "login.html", 429, error=message,
                     code="account_in_flight" if account else "login_in_flight", **context)
    response.headers["Retry-After"] = "1"
    return response


def _limiter(request: Request) -> AuthRateLimiter:
    return services(request).rate_limiter


def _signed_in(request: Request, token: str, next_path: str,
               nickname_key: str | None) -> Response:
    request.state.set_session = token
    response = RedirectResponse(safe_next(next_path), status_code=303)
    if nickname_key:  # this browser is now a known device of the account, while signed in
        response.set_cookie(DEVICE_COOKIE, _devices(request).dumps(
            {"k": nickname_key, "s": sessions.token_hash(token)}), max_age=DEVICE_MAX_AGE,
            httponly=True, samesite="lax", secure=services(request).settings.secure_cookies)
    return response


def _devices(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(services(request).settings.secret_key, salt="kva-device")


async def _known_device(request: Request, nickname_key: str) -> bool:
    """Whether the login carries a valid known-device cookie of the account ``nickname_key``
    (set by an earlier successful login or registration in this browser) whose login session
    is still live (not logged out)."""
    cookie = request.cookies.get(DEVICE_COOKIE)
    if not cookie or len(cookie) > DEVICE_COOKIE_MAX or "." not in cookie:
        return False
    try:
        data = _devices(request).loads(cookie, max_age=DEVICE_MAX_AGE)
    except BadSignature:  # forged, altered or expired: no exemption, and no traceback
        return False
    if not isinstance(data, dict) or data.get("k") != nickname_key:
        return False
    digest = data.get("s")
    return isinstance(digest, str) and await sessions.digest_is_live(
        services(request).sessions, digest)


@router.get("/register")
async def register_page(request: Request, next: str = "/") -> Response:
    """The registration form (a registered visitor is sent on)."""
    if accounts.is_registered(request.state.user):
        return RedirectResponse(safe_next(next), status_code=303)
    return _form(request, "register.html", next=safe_next(next))


@router.post("/register")
async def register(request: Request, nickname: str = Form(""), password: str = Form(""),
                   next: str = Form("/")) -> Response:
    """Register the visitor: their guest row becomes a player, matches and all."""
    next_path = safe_next(next)
    shown = nickname[:20]
    refusal = await _limiter(request).check_register(client_key(request))
    if refusal is not None:
        return _limited(request, "register.html", refusal, nickname=shown, next=next_path)
    try:
        # A refused name or password creates no guest.
        accounts.check_password(password, accounts.check_nickname(nickname))
        user = await ensure_user(request)
        signed = await accounts.register(services(request).sessions, user,
                                         request.state.session_token, nickname, password,
                                         client_ip(request))
    except PasswordsBusy:
        return busy_page(request)
    except AccountError as exc:
        return _form(request, "register.html", 400, error=_messages(request)[exc.code],
                     code=exc.code, nickname=shown, next=next_path)
    services(request).play.renamed(signed.user.id, signed.user.nickname)
    # The old session was rotated out: its sockets close on every process.
    await sessions.publish_revoked(services(request).broker, (request.state.session_token,))
    response = _signed_in(request, signed.token, next_path, signed.user.nickname_key)
    await language.on_sign_in(request, response, signed.user, registered=True)
    return response


@router.get("/login")
async def login_page(request: Request, next: str = "/") -> Response:
    """The login form."""
    return _form(request, "login.html", next=safe_next(next))


@router.post("/login")
async def login(request: Request, nickname: str = Form(""), password: str = Form(""),
                next: str = Form("/")) -> Response:
    """Log in: a new session for the player, the visitor's old one revoked."""
    next_path = safe_next(next)
    shown = nickname[:64]
    key = accounts.nickname_key(nickname.strip()[:64])
    limiter = _limiter(request)
    ip, client = client_ip(request), client_key(request)
    known = await _known_device(request, key)
    refusal = await limiter.check_login(client, key, known_device=known)
    if refusal is not None:
        return _limited(request, "login.html", refusal, nickname=shown, next=next_path)
    # After a recent failure or refusal of this client, or a failure on this nickname (unless
    # from a known device of the account), the login waits on the guessers' lane.
    suspect = await limiter.login_suspect(client, key, known_device=known)
    lane: Lane = "suspect" if suspect else "account"
    try:
        with one_at_a_time(client, key):
            signed = await accounts.login(services(request).sessions,
                                          request.state.session_token, nickname, password, ip,
                                          lane)
    except AccountInFlight:
        # Not a mark on the client: the owner refused while a guess at their nickname is
        # checked must not be sent to the guessers' lane for it. Each fresh address still
        # gets one check on the account lane, its turn coming when the account's is free.
        return _in_flight(request, True, nickname=shown, next=next_path)
    except PasswordsBusy as exc:
        await limiter.login_refused(client)
        if isinstance(exc, PasswordsInFlight):
            return _in_flight(request, False, nickname=shown, next=next_path)
        return busy_page(request)
    except AccountError as exc:
        await limiter.login_failed(key, client)
        return _form(request, "login.html", 400, error=_messages(request)[exc.code],
                     code=exc.code, nickname=shown, next=next_path)
    await limiter.login_succeeded(key)
    # The old session was rotated out: its sockets close on every process.
    await sessions.publish_revoked(services(request).broker, (request.state.session_token,))
    response = _signed_in(request, signed.token, next_path, signed.user.nickname_key)
    await language.on_sign_in(request, response, signed.user, registered=False)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    """Revoke the current login session (server-side: the cookie is worthless from now on)
    and go home."""
    await sessions.revoke(services(request).sessions, request.state.session_token,
                          services(request).broker)
    request.state.set_session = ""
    return RedirectResponse("/", status_code=303)
