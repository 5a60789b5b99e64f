"""Community pages: the rating tables, player profiles (ratings, graph, results), each player's
match history, the export of all their records, and the help page on ratings and leaving.

Routes (docs/web-contract.md): ``/ratings`` (``?game=kozel`` for Kozel's), ``/u/{nickname}``,
``/u/{nickname}/matches``, ``/u/{nickname}/records.json``, ``/help``. A guest has no public
page: a guest's profile, history and export answer only the guest themself (404 for anyone
else), because guests are anonymous by design.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from markupsafe import Markup, escape

from kva.ratings import PROVISIONAL_RD
from kva.rules import parse_ascii_int
from kva.service import history as history_service
from kva.service import profiles
from kva.service import ratings as ratings_service
from kva.service.accounts import registration as accounts
from kva.service.accounts.registration import User
from kva.web.render import render, translator
from kva.web.services import services

router = APIRouter()
#: Players per page of the rating table.
LEADERBOARD_PAGE = 50
MAX_NICKNAME = 40
MAX_PAGE = 100_000
#: The games with a rating table, by their ``?game=`` value; the first is the default.
RATING_GAMES = ("georgian", "kozel")


def _fail(request: Request, status: int, message: str) -> HTTPException:
    request.state.own_error = True
    return HTTPException(status, message)


def _page(request: Request, raw: str | None) -> int:
    """A ``?page=`` value: a whole number from 1 (anything else is a clear 400)."""
    _ = translator(request)
    if raw is None or raw == "":
        return 1
    page = parse_ascii_int(raw)
    if page is None or not 1 <= page <= MAX_PAGE:
        raise _fail(request, 400, _("That page number is not valid."))
    return page


async def _player(request: Request, nickname: str) -> User:
    """The user named ``nickname`` whom this visitor may look at (404 otherwise)."""
    _ = translator(request)
    user = None
    if 0 < len(nickname) <= MAX_NICKNAME:
        user = await accounts.find_player(services(request).sessions, nickname)
    me = request.state.user
    if user is None or (user.kind == "guest" and (me is None or me.id != user.id)):
        raise _fail(request, 404, _("There is no player with that name."))
    return user


def rating_graph(points: Sequence[float], label: str) -> Markup:
    """The rating history as a server-rendered SVG line (no JavaScript).

    ``points`` are the ratings in order (the first is the rating before the first rated
    match). The y axis spans the values with a margin, labelled with its two ends (plain
    integers, as ratings are written everywhere); x is the match number. Returns an empty
    string for no points.
    """
    if not points:
        return Markup("")
    # A small viewBox, so the axis labels stay legible once scaled down to a phone.
    width, height, left, right, top, bottom = 400, 160, 46, 6, 10, 12
    low, high = min(points), max(points)
    pad = max(10.0, (high - low) * 0.1)
    low, high = math.floor(low - pad), math.ceil(high + pad)
    span_x = max(len(points) - 1, 1)

    def xy(i: int, value: float) -> tuple[float, float]:
        x = left + (width - left - right) * (i / span_x if len(points) > 1 else 0.5)
        y = top + (height - top - bottom) * (high - value) / (high - low)
        return round(x, 1), round(y, 1)

    coords = [xy(i, v) for i, v in enumerate(points)]
    path = " ".join(f"{x},{y}" for x, y in coords)
    dots = "".join(f'<circle cx="{x}" cy="{y}" r="3"/>' for x, y in coords[-30:])
    grid = "".join(
        f'<line x1="{left}" x2="{width - right}" y1="{y}" y2="{y}" class="grid"/>'
        f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">'
        f"{int(v)}</text>"
        for v, y in ((high, top), (low, height - bottom))
    )
    return Markup(
        f'<svg class="rating-graph" data-testid="rating-graph" data-points="{len(points)}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}" '
        f'xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMidYMid meet">'
        f"<title>{escape(label)}</title>{grid}"
        f'<polyline class="line" fill="none" points="{path}"/>'
        f'<g class="dots">{dots}</g></svg>'
    )


def _game(request: Request, raw: str | None) -> str:
    """A ``?game=`` value: one of :data:`RATING_GAMES`, the first when absent (anything else
    is a clear 400)."""
    _ = translator(request)
    if raw is None or raw == "":
        return RATING_GAMES[0]
    if raw not in RATING_GAMES:
        raise _fail(request, 400, _("There is no rating table for that game."))
    return raw


@router.get("/ratings")
async def leaderboard(request: Request, page: str | None = None,
                      game: str | None = None) -> Response:
    """A game's rating table: registered players who have played a rated match of it."""
    number = _page(request, page)
    chosen = _game(request, game)
    entries, total = await profiles.leaderboard_page(services(request).sessions, chosen, number,
                                                     LEADERBOARD_PAGE)
    pages = max(1, math.ceil(total / LEADERBOARD_PAGE))
    return render(request, "leaderboard.html", {
        "game": chosen, "entries": entries, "page": number, "pages": pages, "total": total,
        "provisional_rd": int(PROVISIONAL_RD)})


@router.get("/u/{nickname}")
async def profile(request: Request, nickname: str) -> Response:
    """A player's profile: both games' ratings (the Georgian one's history as a graph),
    results, recent matches."""
    _ = translator(request)
    player = await _player(request, nickname)
    found = await profiles.profile(services(request).sessions, player.id)
    changes = found.changes
    points = [changes[0].rating_before] + [c.rating_after for c in changes] if changes else []
    graph = rating_graph([round(p) for p in points], _("Rating after each rated match"))
    return render(request, "profile.html", {
        "player": player, "registered": ratings_service.is_registered(player),
        "provisional": ratings_service.provisional(player), "rated_games": len(changes),
        "counts": found.counts, "graph": graph, "recent": found.recent, "kozel": found.kozel,
        "is_me": request.state.user is not None and request.state.user.id == player.id})


@router.get("/u/{nickname}/matches")
async def matches(request: Request, nickname: str, page: str | None = None) -> Response:
    """A player's finished matches, newest first, each opening its replay."""
    number = _page(request, page)
    player = await _player(request, nickname)
    lines, total = await profiles.matches_page(services(request).sessions, player.id, number,
                                               history_service.PER_PAGE)
    pages = max(1, math.ceil(total / history_service.PER_PAGE))
    return render(request, "history.html", {
        "player": player, "lines": lines, "page": number, "pages": pages, "total": total})


@router.get("/u/{nickname}/records.json")
async def export(request: Request, nickname: str) -> Response:
    """Every finished match of the player as one JSON array of ``georgian-domino/1`` records,
    oldest first, streamed as a download."""
    player = await _player(request, nickname)
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_"
                         for c in player.nickname)
    filename = f"kva-{player.nickname}-records.json"
    headers: dict[str, Any] = {
        "Content-Disposition": (
            f'attachment; filename="kva-{ascii_name}-records.json"; '
            f"filename*=UTF-8''{quote(filename)}"),
        "Cache-Control": "no-store",
    }
    return StreamingResponse(
        history_service.export_records(services(request).sessions, player.id),
        media_type="application/json", headers=headers)


@router.get("/help")
async def help_page(request: Request) -> Response:
    """Ratings, rematches and the rules of leaving a match, with this server's limits."""
    presence = services(request).presence
    grace, timeout = presence.grace, presence.first_move_timeout
    return render(request, "help.html", {
        "grace": _seconds(grace), "first_move": _seconds(timeout),
        "provisional_rd": int(PROVISIONAL_RD)})


def _seconds(value: float) -> int | float:
    """Seconds as a whole number when they are one (1.0 → 1, 0.5 stays)."""
    return int(value) if float(value).is_integer() else value
