"""Domino Coin pages: the wallet (balance, daily top-up, paged history of entries), the
balance the header shows, and one match's coin result for the match-end dialog.

Coins are virtual: not money, they cannot be bought or exchanged (every page that shows them
says so). Guests have no wallet: they are asked to register to play for coins.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from kva.service import NotFound
from kva.service.coins import wallets as coins
from kva.service.coins.wallets import CoinError
from kva.web.errors import error_page
from kva.web.render import render, translator
from kva.web.services import services

router = APIRouter()
#: Entries on one page of the wallet's history.
PER_PAGE = 25


def coin_error_message(request: Request, exc: CoinError) -> str:
    """What a player is told when a coin operation is refused (nothing moved)."""
    _ = translator(request)
    messages = {
        "bad_stake": _("Choose a stake of 10, 50, 100, 500 or 1,000 coins, or none."),
        "guest": _("Coin tables are for registered players. Create an account to play for "
                   "coins."),
        "bot_stake": _("Coin tables are played against people, not bots."),
        "insufficient": _("Not enough coins: both players must be able to cover the stake. "
                          "Nothing was moved."),
        "topup_claimed": _("You already claimed today's top-up. Come back tomorrow (UTC)."),
        "topup_above": _("The daily top-up is only for balances below 100 coins."),
    }
    return str(messages.get(exc.code) or _("That request was not understood."))


#: The code of a stake refused for a game that is not two players of Georgian domino.
TWO_SEATS = "two_seats"


def stake_refused(request: Request) -> HTTPException:
    """400 ``two_seats``: a coin stake on a Kozel game or a table of more than two seats (the
    escrow settles a stake between the two players of a Georgian match; docs/coins.md)."""
    _ = translator(request)
    request.state.own_error = True
    request.state.error_code = TWO_SEATS
    return HTTPException(400, _("Coin stakes are only for Georgian domino between two "
                                "players."))


def coin_error_status(exc: CoinError) -> int:
    """The HTTP status of a refused coin operation."""
    return {"guest": 403, "insufficient": 409, "topup_claimed": 409,
            "topup_above": 409}.get(exc.code, 400)


def form_stake(request: Request, raw: str, opponent: str) -> int:
    """The stake a match form asked for (0: none); an HTTP error, with nothing created, for
    a stake not on the list, a stake against a bot, or a stake from a guest."""
    user = request.state.user
    try:
        stake = coins.check_stake(raw)
        if stake and opponent not in ("friend", "open"):
            raise CoinError("bot_stake", "coin tables are person against person")
        if stake and (user is None or user.kind != coins.REGISTERED):
            raise CoinError("guest", "coin tables are for registered players")
    except CoinError as exc:
        request.state.own_error = True
        raise HTTPException(coin_error_status(exc), coin_error_message(request, exc)) from None
    return stake


async def quick_stake(request: Request) -> int:
    """The stake of a quick-game search (``?stake=``; 0: none), checked before the search
    starts: a stake on the list, a registered player, and coins to cover it now (nothing is
    reserved: the stakes move when the pair's match starts)."""
    user = request.state.user
    try:
        stake = coins.check_stake(request.query_params.get("stake") or "0")
        if stake:
            if user is None:
                raise CoinError("guest", "coin games are for registered players")
            await coins.ensure_can_cover(services(request).sessions, user, stake)
    except CoinError as exc:
        request.state.own_error = True
        raise HTTPException(coin_error_status(exc), coin_error_message(request, exc)) from None
    return stake


def install(app: FastAPI) -> None:
    """Serve the wallet pages, and answer a coin operation refused anywhere (a table that
    cannot start because a player cannot cover its stake, ...) with its message."""

    app.include_router(router)

    @app.exception_handler(CoinError)
    async def coin_refused(request: Request, exc: CoinError) -> Response:
        request.state.own_error = True
        return error_page(request, coin_error_status(exc), coin_error_message(request, exc))


@router.get("/wallet")
async def wallet(request: Request, page: int = 1, notice: str = "") -> Response:
    """The wallet: balance, top-up and the history of entries, newest first."""
    user = request.state.user
    if page < 1 or page > 10**6:
        page = 1
    if user is None or user.kind != coins.REGISTERED:
        return render(request, "wallet.html", {"registered": False})
    balance, lines, total = await coins.wallet_page(services(request).sessions, user, page,
                                                    PER_PAGE)
    pages = max(1, -(-total // PER_PAGE))
    return render(request, "wallet.html", {
        "registered": True, "balance": balance, "lines": lines, "page": page,
        "pages": pages, "base": "/wallet", "newer_first": True,
        "can_topup": balance is not None and balance < coins.TOPUP_TO,
        "topup_to": coins.TOPUP_TO, "notice": notice[:40],
    })


@router.post("/wallet/topup")
async def topup(request: Request) -> Response:
    """Claim the daily top-up back to 100 coins (below 100, once per UTC day)."""
    user = request.state.user
    try:
        if user is None:
            raise CoinError("guest", "no wallet")
        await coins.topup(services(request).sessions, user)
    except CoinError as exc:
        request.state.own_error = True
        raise HTTPException(coin_error_status(exc), coin_error_message(request, exc)) from None
    return RedirectResponse("/wallet?notice=topup", status_code=303)


@router.get("/wallet/balance.json")
async def balance_json(request: Request) -> Response:
    """``{"balance": n}`` for the header (null for a guest or a visitor)."""
    value = await coins.balance_now(services(request).sessions, request.state.user)
    return JSONResponse({"balance": value}, headers={"Cache-Control": "no-store"})


@router.get("/wallet/match/{match_id}.json")
async def match_coins(request: Request, match_id: str) -> Response:
    """What one coin match did to the visitor's wallet: ``{"stake", "delta", "paid"}``
    (``delta``: coins won or lost so far; ``paid``: whether the match is settled).

    Only for a match the visitor may see: a private one (a password table, or its rematch)
    they neither play nor gave the password of answers 404, as an unknown id does."""
    user = request.state.user
    if len(match_id) > 24:
        raise HTTPException(404, "no such match")
    try:
        info = await services(request).play.info(match_id, user.id if user is not None else None)
    except NotFound:
        raise HTTPException(404, "no such match") from None
    if not info.may_watch:
        raise HTTPException(404, "no such match")
    found = await coins.coins_of_match(services(request).sessions, match_id,
                                       user.id if user is not None else None)
    return JSONResponse({"stake": found.stake, "delta": found.delta, "paid": found.paid,
                         "escrow": found.escrow}, headers={"Cache-Control": "no-store"})
