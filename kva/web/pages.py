"""The HTTP pages: home, new match, closed-table links, game, replay, record, language."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from kva.i18n import COOKIE_NAME as LANG_COOKIE
from kva.i18n import LOCALES
from kva.rules import TARGETS, BadSettings, MatchSettings
from kva.service import NotFound, PlayService, RatedOnly, WrongPassword
from kva.service.accounts import is_registered
from kva.service.play import MatchInfo
from kva.service.bots import LEVELS
from kva.web.render import render, translator
from kva.web.services import services
from kva.web.wallet import form_stake

router = APIRouter()
LANG_MAX_AGE = 60 * 60 * 24 * 365


def _service(request: Request) -> PlayService:
    return services(request).play


def error_page(request: Request, status: int, detail: Any) -> Response:
    """A clear error page in the visitor's language (``detail`` if it is our own message)."""
    _ = translator(request)
    titles = {
        400: _("That request was not understood."),
        403: _("You may not do that."),
        404: _("There is nothing here."),
        405: _("That request was not understood."),
        429: _("Too many attempts. Wait a little and try again."),
    }
    message = detail if isinstance(detail, str) and getattr(request.state, "own_error", False) \
        else titles.get(status, _("Something went wrong."))
    if not hasattr(request.state, "locale"):
        return PlainTextResponse(str(status), status_code=status)
    return render(request, "error.html", {"status": status, "message": message}, status)


def _fail(request: Request, status: int, message: str) -> HTTPException:
    request.state.own_error = True
    return HTTPException(status, message)


@router.get("/healthz", response_class=PlainTextResponse)
async def healthz() -> str:
    """Liveness: the process answers."""
    return "ok"


@router.get("/")
async def home(request: Request) -> Response:
    """Start a match; the visitor's matches."""
    matches = await _service(request).matches_of(request.state.user.id)
    return render(request, "home.html", {"matches": matches, "targets": TARGETS,
                                         "levels": LEVELS})


@router.post("/matches")
async def new_match(
    request: Request,
    opponent: str = Form(""),
    target: str = Form(""),
    bazaar: str = Form("draw"),
    password: str = Form(""),
    rated: str = Form(""),
    stake: str = Form(""),
) -> Response:
    """Create a match from the home form and go to its page."""
    _ = translator(request)
    valid_opponents = [f"bot:{lvl}" for lvl in LEVELS] + ["friend", "open"]
    if opponent not in valid_opponents:
        raise _fail(request, 400, _("Choose an opponent: a bot or a friend."))
    if rated not in ("", "0", "1", "on"):  # the form's own values only
        raise _fail(request, 400, _("That request was not understood."))
    try:
        settings = MatchSettings.parse(target, bazaar, rated)
    except BadSettings as exc:
        raise _fail(request, 400, _("Choose the standard rules or “pass only”.")
                    if exc.field == "bazaar"
                    else _("Choose a target of 75, 175, 255 or 355 points.")) from None
    if len(password) > 128:
        raise _fail(request, 400, _("The password is too long (at most 128 characters)."))
    want_rated = settings.rated
    user = request.state.user
    if want_rated and opponent != "open":
        raise _fail(request, 400, _("Only open tables and quick games can be rated: bot and "
                                    "friend matches are casual."))
    if want_rated and not is_registered(user):
        raise _fail(request, 403, _("Rated games are for registered players. Create an "
                                    "account to play rated."))
    coin_stake = form_stake(request, stake, opponent, user)  # Domino Coin (0: none)
    match_id, _token = await _service(request).create_match(
        user.id, user.nickname, opponent, settings.target, settings.bazaar,
        password if opponent == "friend" and password else None, rated=want_rated,
        stake=coin_stake,
    )
    return RedirectResponse(f"/m/{match_id}", status_code=303)


async def _join(request: Request, token: str, password: str | None) -> Response:
    _ = translator(request)
    user = request.state.user
    try:
        match_id, _seat = await _service(request).join_table(
            token, user.id, user.nickname, password, registered=is_registered(user)
        )
    except NotFound:
        raise _fail(request, 404, _("This table does not exist.")) from None
    except RatedOnly:
        raise _fail(request, 403, _("Rated tables are for registered players. Create an "
                                    "account to join.")) from None
    except WrongPassword:
        return render(request, "table_join.html",
                      {"token": token, "needs_password": True, "wrong": password is not None},
                      403 if password is not None else 200)
    return RedirectResponse(f"/m/{match_id}", status_code=303)


@router.get("/t/{token}")
async def table_link(request: Request, token: str) -> Response:
    """A closed table's link: join it (asking the password first if it has one).

    A visitor with no session yet confirms with a button first: a messenger's link preview,
    fetching the link it was sent, must not take the friend's seat.
    """
    _ = translator(request)
    if len(token) > 64:
        raise _fail(request, 404, _("This table does not exist."))
    if request.state.new_visitor:
        try:
            _match_id, has_password = await _service(request).table(token)
        except NotFound:
            raise _fail(request, 404, _("This table does not exist.")) from None
        return render(request, "table_join.html",
                      {"token": token, "needs_password": has_password, "wrong": False})
    return await _join(request, token, None)


@router.post("/t/{token}")
async def table_join(request: Request, token: str, password: str = Form("")) -> Response:
    """The join form of a closed table (with its password, if it has one)."""
    _ = translator(request)
    if len(token) > 64 or len(password) > 128:
        raise _fail(request, 404, _("This table does not exist."))
    return await _join(request, token, password)


async def _info(request: Request, match_id: str) -> MatchInfo:
    """The match's facts for the visitor: 404 if there is no such match, 403 if it is a
    private one (a password table) they neither play nor gave the password of."""
    _ = translator(request)
    if len(match_id) > 24:
        raise _fail(request, 404, _("This match does not exist."))
    try:
        info = await _service(request).info(match_id, request.state.user.id)
    except NotFound:
        raise _fail(request, 404, _("This match does not exist.")) from None
    if not info.may_watch:
        raise HTTPException(403, "private match")
    return info


@router.get("/m/{match_id}")
async def game(request: Request, match_id: str) -> Response:
    """The game page: the live table over the WebSocket."""
    info = await _info(request, match_id)
    share = str(request.base_url).rstrip("/") + f"/t/{info.table_token}" if info.table_token \
        else None
    return render(request, "game.html", {"info": info, "share_link": share})


@router.get("/m/{match_id}/record.json")
async def record(request: Request, match_id: str) -> Response:
    """The record of a finished match (404 while it is being played)."""
    _ = translator(request)
    await _info(request, match_id)
    try:
        doc = await _service(request).finished_record(match_id)
    except NotFound:
        raise _fail(request, 404, _("This match does not exist.")) from None
    if doc is None:
        raise _fail(request, 404, _("The record is available once the match is over."))
    return JSONResponse(doc, headers={
        "Content-Disposition": f'attachment; filename="kva-{match_id}.json"'})


@router.get("/m/{match_id}/replay")
async def replay(request: Request, match_id: str) -> Response:
    """Step through a finished match move by move."""
    _ = translator(request)
    info = await _info(request, match_id)
    doc = await _service(request).finished_record(match_id)
    if doc is None:
        raise _fail(request, 404, _("The replay is available once the match is over."))
    return render(request, "replay.html", {
        "info": info, "record": doc})


def _safe_next(target: str | None) -> str:
    """Only a path on this site (no scheme, no host, no ``//``) is a valid ``next``."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target


@router.get("/lang/{code}")
async def set_language(request: Request, code: str, next: str | None = None) -> Response:
    """Switch language: remember it in ``kva_lang`` and go back to ``next``."""
    _ = translator(request)
    if code not in LOCALES:
        raise _fail(request, 404, _("There is no such language."))
    response = RedirectResponse(_safe_next(next), status_code=303)
    response.set_cookie(LANG_COOKIE, code, max_age=LANG_MAX_AGE, samesite="lax")
    return response
