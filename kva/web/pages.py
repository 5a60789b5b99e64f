"""The HTTP pages: home, new match, closed-table links, game, replay, record, language."""

from __future__ import annotations

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from kva.games import BadOptions
from kva.games import get as get_game
from kva.i18n import LOCALES
from kva.ratings import PROVISIONAL_RD
from kva.rules import TARGETS, BadSettings, MatchSettings, parse_ascii_int
from kva.service import NotFound, PlayService, RatedOnly, WrongPassword
from kva.service.accounts.passwords import PasswordsBusy
from kva.service.accounts.registration import User, is_registered
from kva.service.lobby.open_tables import open_tables_of
from kva.service.play import MatchInfo
from kva.service.play.bot_moves import LEVELS
from kva.service.play.clock import CLOCK_CHOICES, NO_CLOCK
from kva.service.ratelimit import AuthRateLimiter, Refusal
from kva.web import language
from kva.web.errors import busy_page, error_page
from kva.web.identity import ensure_user
from kva.web.render import render, translator
from kva.web.security import client_key, safe_next
from kva.web.services import services
from kva.web.wallet import form_stake, stake_refused

router = APIRouter()


def _service(request: Request) -> PlayService:
    return services(request).play


def _fail(request: Request, status: int, message: str) -> HTTPException:
    request.state.own_error = True
    return HTTPException(status, message)


@router.get("/healthz", response_class=PlainTextResponse)
async def healthz(request: Request, verbose: str | None = None) -> str:
    """Liveness: the process answers. ``?verbose``: one line of counters after ``ok`` (with
    match owners: the leases held here, the actions forwarded to other processes and served
    for them, and the leases handed to a process whose sockets asked for them)."""
    if verbose is None:
        return "ok"
    service = _service(request)
    owners = service.owners
    if owners is None:
        return "ok\nowners=off"
    return (f"ok\nowner={owners.me} held={len(owners.held())} forwarded={owners.forwarded} "
            f"served={owners.served} handed_off={service.handed_off}")


@router.get("/")
async def home(request: Request) -> Response:
    """Start a match; the visitor's matches."""
    user = request.state.user  # a first visit creates nobody: no user, no matches yet
    matches = await _service(request).matches_of(user.id) if user is not None else []
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
    clock: str = Form(""),
    game: str = Form("georgian"),
    fish: str = Form("all"),
    seats: str = Form("2"),
    pairs: str = Form(""),
) -> Response:
    """Create a match from the home form or the lobby's open-table form and go to its page."""
    _ = translator(request)
    options = _game_options(request, game, fish, pairs)
    seat_count = _seat_count(request, game, seats, options)
    valid_opponents = [f"bot:{lvl}" for lvl in LEVELS] + ["friend", "open"]
    if opponent not in valid_opponents:
        raise _fail(request, 400, _("Choose an opponent: a bot or a friend."))
    if rated not in ("", "0", "1", "on"):  # the form's own values only
        raise _fail(request, 400, _("That request was not understood."))
    settings = _georgian_settings(request, target, bazaar, rated) if options is None else None
    if len(password) > 128:
        raise _fail(request, 400, _("The password is too long (at most 128 characters)."))
    # A Kozel table is rated on the same terms as a Georgian one (its own rating kept).
    want_rated = settings.rated if settings is not None else rated in ("1", "on")
    user = request.state.user
    if want_rated and opponent != "open":
        raise _fail(request, 400, _("Only open tables and quick games can be rated: bot and "
                                    "friend matches are casual."))
    if want_rated and not is_registered(user):
        raise _fail(request, 403, _("Rated games are for registered players. Create an "
                                    "account to play rated."))
    coin_stake = form_stake(request, stake, opponent)  # Domino Coin (0: none)
    if coin_stake and (options is not None or seat_count != 2):  # Georgian, two players
        raise stake_refused(request)
    if clock and clock not in CLOCK_CHOICES:
        raise _fail(request, 400, _("Choose a clock."))
    if clock == NO_CLOCK and (want_rated or coin_stake):
        raise _fail(request, 400, _("Rated and coin matches are always played with a clock."))
    limited = await _creation_limited(request, opponent, user)
    if limited is not None:
        return limited
    user = await ensure_user(request)
    try:
        match_id, _token = await _service(request).create_match(
            user.id, user.nickname, opponent,
            settings.target if settings is not None else None,
            settings.bazaar if settings is not None else None,
            password if opponent == "friend" and password else None, rated=want_rated,
            stake=coin_stake, clock=clock or None, game=game, options=options,
            seats=seat_count,
        )
    except PasswordsBusy:
        return busy_page(request)
    return RedirectResponse(f"/m/{match_id}", status_code=303)


def _georgian_settings(request: Request, target: str, bazaar: str,
                       rated: str) -> MatchSettings:
    """The Georgian match's target, rules and rated flag from the home form (a 400 naming
    the field at fault)."""
    _ = translator(request)
    try:
        return MatchSettings.parse(target, bazaar, rated)
    except BadSettings as exc:
        raise _fail(request, 400, _("Choose the standard rules or “pass only”.")
                    if exc.field == "bazaar"
                    else _("Choose a target of 75, 175, 255 or 355 points.")) from None


def _game_options(request: Request, game: str, fish: str,
                  pairs: str = "") -> dict[str, object] | None:
    """The options the form chose for ``game``, checked by the game itself: None for the
    Georgian game (its target and rules fields are its options), Kozel's fish rule and pair
    game (a checkbox: ``1`` or ``on``). A game the form does not offer or a bad option is a
    400."""
    _ = translator(request)
    if game == "georgian":
        return None
    if game != "kozel":
        raise _fail(request, 400, _("Choose a game: Georgian domino or Kozel."))
    if pairs not in ("", "0", "1", "on"):  # the form's own values only
        raise _fail(request, 400, _("That request was not understood."))
    options: dict[str, object] = {"fish": fish, "pairs": pairs in ("1", "on")}
    try:
        get_game(game).parse_options(options)
    except BadOptions:
        raise _fail(request, 400, _("Choose “fish for all” or “fish for one”.")) from None
    return options


def _seat_count(request: Request, game: str, seats: str,
                options: dict[str, object] | None) -> int:
    """How many seats the form chose: always two for the Georgian game; 2, 3 or 4 for
    Kozel, whose pair game needs four (docs/kozel.md, "Pairs"). Anything else is a 400."""
    _ = translator(request)
    played = get_game(game)
    count = parse_ascii_int(seats)  # ASCII digits only: "²" or 5,000 digits are a 400 too
    if count is None or count not in played.seats:
        raise _fail(request, 400, _("Choose how many players sit at the table: 2, 3 or 4.")
                    if game == "kozel" else _("That request was not understood."))
    if options is not None and options.get("pairs") and count != 4:
        raise _fail(request, 400, _("The pair game is played by four."))
    return count


async def _creation_limited(request: Request, opponent: str,
                            user: User | None) -> Response | None:
    """A 429 page when this client may not start a match against ``opponent`` now: too many
    tables or bot matches started lately (returned), or too many open tables of ``user``
    waiting in the lobby (raised); None: go ahead."""
    _ = translator(request)
    if opponent in ("friend", "open"):  # tables wait for someone: limited per client
        refusal = await _limiter(request).check_table_create(client_key(request))
        if refusal is not None:
            return _too_many(request, refusal, _("You opened too many tables. Try again in "
                                                "%(minutes)s min."))
        cap = services(request).settings.max_open_tables
        if opponent == "open" and user is not None \
                and await open_tables_of(services(request).sessions, user.id) >= cap:
            raise _fail(request, 429, _("You already have %(count)s open tables waiting in "
                                        "the lobby. Cancel one first.") % {"count": cap})
    else:  # a bot match costs a bot's moves for as long as it runs: limited per client
        refusal = await _limiter(request).check_bot_match_create(client_key(request))
        if refusal is not None:
            return _too_many(request, refusal, _("You started too many matches against bots. "
                                                "Try again in %(minutes)s min."))
    return None


def _limiter(request: Request) -> AuthRateLimiter:
    return services(request).rate_limiter


def _too_many(request: Request, refusal: Refusal, message: str) -> Response:
    """429 with ``Retry-After`` and ``message`` (which may name ``%(minutes)s``)."""
    minutes = max(1, -(-refusal.retry_after // 60))
    request.state.own_error = True
    response = error_page(request, 429, message % {"minutes": minutes})
    response.headers["Retry-After"] = str(refusal.retry_after)
    return response


async def _invite_page(request: Request, token: str, *, needs_password: bool | None = None,
                       wrong: bool = False) -> Response:
    """The page a friend's link shows before the seat is taken: who invites, to what match
    (target, rules, rated, clock), and the password field when the table has one."""
    _ = translator(request)
    try:
        match_id, has_password = await _service(request).table(token)
        invite = await _service(request).invite(match_id)
    except NotFound:
        raise _fail(request, 404, _("This table does not exist.")) from None
    return render(request, "table_join.html",
                  {"token": token, "invite": invite, "wrong": wrong,
                   "needs_password": has_password if needs_password is None else needs_password},
                  403 if wrong else 200)


async def _join(request: Request, token: str, password: str | None) -> Response:
    _ = translator(request)
    user = await ensure_user(request)
    try:
        match_id, _seat = await _service(request).join_table(
            token, user.id, user.nickname, password, registered=is_registered(user)
        )
    except PasswordsBusy:
        return busy_page(request)
    except NotFound:
        raise _fail(request, 404, _("This table does not exist.")) from None
    except RatedOnly:
        raise _fail(request, 403, _("Rated tables are for registered players. Create an "
                                    "account to join.")) from None
    except WrongPassword:
        if password:
            await _limiter(request).table_password_failed(token, client_key(request))
        return await _invite_page(request, token, needs_password=True,
                                  wrong=password is not None)
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
        return await _invite_page(request, token)
    return await _join(request, token, None)


@router.post("/t/{token}")
async def table_join(request: Request, token: str, password: str = Form("")) -> Response:
    """The join form of a closed table (with its password, if it has one)."""
    _ = translator(request)
    if len(token) > 64 or len(password) > 128:
        raise _fail(request, 404, _("This table does not exist."))
    if password:  # a guess: limited per client and per table before Argon2 runs
        refusal = await _limiter(request).check_table_password(client_key(request), token)
        if refusal is not None:
            return _too_many(request, refusal, _("Too many password attempts. Try again in "
                                                "%(minutes)s min."))
    return await _join(request, token, password)


async def _info(request: Request, match_id: str) -> MatchInfo:
    """The match's facts for the visitor: 404 if there is no such match, 403 if it is a
    private one (a password table) they neither play nor gave the password of."""
    _ = translator(request)
    if len(match_id) > 24:
        raise _fail(request, 404, _("This match does not exist."))
    try:
        user = request.state.user
        info = await _service(request).info(match_id, user.id if user is not None else None)
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
    if info.game == "kozel":
        return render(request, "kozel_table.html", {"info": info, "share_link": share})
    return render(request, "game.html", {"info": info, "share_link": share,
                                         "provisional_rd": int(PROVISIONAL_RD)})


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
    # each game steps through its own record on its own table
    return render(request, "kozel_replay.html" if info.game == "kozel" else "replay.html", {
        "info": info, "record": doc})


@router.get("/lang/{code}")
async def set_language(request: Request, code: str, next: str | None = None) -> Response:
    """Switch language: remember it in ``kva_lang`` (and with a registered player's account)
    and go back to ``next``."""
    _ = translator(request)
    if code not in LOCALES:
        raise _fail(request, 404, _("There is no such language."))
    response = RedirectResponse(safe_next(next), status_code=303)
    language.set_cookie(request, response, code)
    await language.keep_with_account(request, request.state.user, code)
    return response
