"""The bot API's service side (docs/bot-api.md): bot accounts, their API tokens,
challenges between players, and the events a bot's stream carries.

* A registered player who has never played a match may turn their account into a bot
  (:func:`make_bot`). A bot plays through the API only; it keeps its rating like anyone.
* API tokens are shown once and stored as a SHA-256 (:func:`create_token`); revoking one
  (:func:`revoke_token`) is published on the broker (:data:`TOKEN_REVOKED_TOPIC`) so every
  process ends that token's open streams at once; every request also re-checks the token.
* A challenge (:class:`Challenges`) is a pending row until its target accepts: then the match
  is created between the two users (``opponent="player"``), within each bot's limit of
  matches at once. Matches between two bots are casual only.
* Each user has a broker topic (:func:`user_topic`) carrying their bot events: ``challenge``,
  ``challenge_declined``, ``challenge_cancelled``, ``match_start``, ``match_over``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games import get as get_game
from kva.games import live_play_of
from kva.games.live import winner_of
from kva.rules import BadSettings, MatchSettings, parse_ascii_int
from kva.service.accounts.registration import REGISTERED, find_registered, is_registered
from kva.service.cluster.broker import Broker
from kva.service.errors import NotFound
from kva.service.lobby.open_tables import Lobby, LobbyError
from kva.service.play import LiveMatch, PlayService
from kva.service.play.commit import end_reason
from kva.settings.caps import DEFAULT_MAX_PENDING_TO_TARGET
from kva.status import ChallengeStatus, MatchStatus
from kva.storage import botapi as bot_store
from kva.storage import repo
from kva.storage.botapi import ApiToken, BotAccount, Challenge
from kva.storage.models import MatchRow, User, utcnow

log = logging.getLogger(__name__)

#: Every token starts with this (so a leaked one is recognisable in logs and scanners).
TOKEN_PREFIX = "kvab_"
#: The longest token string looked at.
MAX_TOKEN = 128
#: Revoked tokens' hashes are published here; open streams of that token end at once.
TOKEN_REVOKED_TOPIC = "botapi:revoked"
#: The default and the highest number of matches a bot plays at once.
DEFAULT_MAX_MATCHES, MAX_MAX_MATCHES = 3, 20
#: Pending challenges one player may have out at once.
MAX_PENDING = 10
#: A challenge nobody answered in this long has expired (status ``expired``).
CHALLENGE_TTL = timedelta(minutes=10)
#: Live tokens per bot.
MAX_TOKENS = 10
#: New bot accounts are announced here (nickname), so every process marks them as bots.
BOTS_TOPIC = "botapi:bots"
#: The nicknames of bot accounts, as this process knows them (filled at start, then as
#: accounts become bots): pages mark these names as bots (:func:`is_bot_name`).
_BOT_NAMES: set[str] = set()


def is_bot_name(nickname: object) -> bool:
    """Whether ``nickname`` is a bot account's (for marking names on pages)."""
    return isinstance(nickname, str) and nickname in _BOT_NAMES


def note_bot_names(names: list[str]) -> None:
    _BOT_NAMES.update(names)


async def load_bot_names(sessions: async_sessionmaker[AsyncSession]) -> None:
    """Learn every bot account's nickname (at start)."""
    async with sessions() as session:
        note_bot_names(await bot_store.bot_nicknames(session))


class BotApiError(Exception):
    """A request refused; ``code`` is the API's error code, ``status`` its HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def user_topic(user_id: int) -> str:
    """The broker topic of one user's bot events."""
    return f"botapi:user:{user_id}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------- bot accounts
async def bot_account(session: AsyncSession, user_id: int) -> BotAccount | None:
    """The bot row of ``user_id`` (None: a person)."""
    return await bot_store.bot_account(session, user_id)


async def bot_ids(session: AsyncSession, user_ids: list[int]) -> set[int]:
    """Which of ``user_ids`` are bots."""
    if not user_ids:
        return set()
    return await bot_store.bot_ids(session, set(user_ids))


async def matches_played(session: AsyncSession, user_id: int) -> int:
    """Every match the user sits in (any status but a cancelled table)."""
    return await bot_store.matches_played(session, user_id)


async def active_matches(session: AsyncSession, user_id: int) -> int:
    """How many matches the user sits in that are not over."""
    return await bot_store.active_matches(session, user_id)


async def bot_and_active(sessions: async_sessionmaker[AsyncSession], user_id: int
                         ) -> tuple[BotAccount | None, int]:
    """The bot row of ``user_id`` and how many matches it sits in that are not over (the
    bot API's account answer), read in one session."""
    async with sessions() as session:
        return await bot_account(session, user_id), await active_matches(session, user_id)


async def bot_and_played(sessions: async_sessionmaker[AsyncSession], user_id: int
                         ) -> tuple[BotAccount | None, int]:
    """The bot row of ``user_id`` and every match it sits in (its settings page), read in
    one session."""
    async with sessions() as session:
        return await bot_account(session, user_id), await matches_played(session, user_id)


async def make_bot(sessions: async_sessionmaker[AsyncSession], user: User,
                   broker: Broker | None = None) -> None:
    """Turn ``user`` into a bot account: registered, and no match played yet. With
    ``broker``, every process hears of it (its name is marked as a bot's)."""
    if user.kind != REGISTERED:
        raise BotApiError("not_registered", "only a registered account can become a bot", 403)
    async with sessions() as session, session.begin():
        if await bot_account(session, user.id) is not None:
            raise BotApiError("already_bot", "this account is a bot already", 409)
        if await matches_played(session, user.id):
            raise BotApiError("has_matches", "only an account that never played can become a "
                              "bot", 409)
        bot_store.add_bot_account(session, user.id, DEFAULT_MAX_MATCHES)
    note_bot_names([user.nickname])
    if broker is not None:
        try:
            await broker.publish(BOTS_TOPIC, {"nickname": user.nickname})
        except Exception:
            log.exception("publishing a new bot failed")


async def set_max_matches(sessions: async_sessionmaker[AsyncSession], user_id: int,
                          value: object) -> int:
    """Set how many matches the bot plays at once (1 to :data:`MAX_MAX_MATCHES`)."""
    count = 0 if isinstance(value, bool) else (
        value if isinstance(value, int) else parse_ascii_int(str(value), max_digits=4) or 0)
    if not 1 <= count <= MAX_MAX_MATCHES:
        raise BotApiError("bad_limit", f"choose 1 to {MAX_MAX_MATCHES} matches at once")
    async with sessions() as session, session.begin():
        bot = await bot_account(session, user_id)
        if bot is None:
            raise BotApiError("not_bot", "this account is not a bot", 403)
        bot.max_matches = count
    return count


@dataclass(frozen=True, slots=True)
class BotListing:
    """One line of the Bots page."""

    nickname: str
    rating: float
    rd: float
    active: int
    max_matches: int


async def list_bots(sessions: async_sessionmaker[AsyncSession]) -> list[BotListing]:
    async with sessions() as session:
        rows = await bot_store.bots_by_rating(session, 200)
        out = []
        for user, bot in rows:
            out.append(BotListing(user.nickname, user.rating, user.rating_deviation,
                                  await active_matches(session, user.id), bot.max_matches))
    return out


# ---------------------------------------------------------------------- tokens
async def create_token(sessions: async_sessionmaker[AsyncSession], user_id: int,
                       label: str = "") -> str:
    """A new API token for the bot ``user_id``: the token itself (shown once)."""
    label = label.strip()[:40]
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    async with sessions() as session, session.begin():
        if await bot_account(session, user_id) is None:
            raise BotApiError("not_bot", "only a bot account has API tokens", 403)
        if await bot_store.live_token_count(session, user_id) >= MAX_TOKENS:
            raise BotApiError("too_many_tokens", f"at most {MAX_TOKENS} live tokens", 409)
        bot_store.add_token(session, user_id, hash_token(token),
                            token[:len(TOKEN_PREFIX) + 4], label)
    return token


async def list_tokens(sessions: async_sessionmaker[AsyncSession],
                      user_id: int) -> list[ApiToken]:
    async with sessions() as session:
        return await bot_store.tokens_of(session, user_id)


async def revoke_token(sessions: async_sessionmaker[AsyncSession], broker: Broker | None,
                       user_id: int, token_id: int) -> bool:
    """Revoke one of the user's tokens; its open streams end at once on every process."""
    async with sessions() as session, session.begin():
        row = await bot_store.get_token(session, token_id)
        if row is None or row.user_id != user_id or row.revoked_at is not None:
            return False
        row.revoked_at = utcnow()
        hashed = row.token_hash
    if broker is not None:
        try:
            await broker.publish(TOKEN_REVOKED_TOPIC, {"token_hash": hashed})
        except Exception:  # every request re-checks the token anyway
            log.exception("publishing a token revocation failed")
    return True


@dataclass(frozen=True, slots=True)
class BotCaller:
    """Who an API request comes from."""

    user_id: int
    nickname: str
    token_hash: str


async def authenticate(sessions: async_sessionmaker[AsyncSession],
                       token: str | None) -> BotCaller:
    """The bot a bearer token belongs to; BotApiError 401 for a missing, unknown or revoked
    token, 403 for an account that is no longer a bot."""
    if not token or len(token) > MAX_TOKEN or not token.startswith(TOKEN_PREFIX):
        raise BotApiError("unauthorized", "send 'Authorization: Bearer <token>' with a bot "
                          "API token", 401)
    hashed = hash_token(token)
    async with sessions() as session:  # one query: the token, its user, and the bot row
        found = await bot_store.token_holder(session, hashed)
    if found is None:
        raise BotApiError("unauthorized", "unknown token", 401)
    if found[0] is not None:
        raise BotApiError("revoked", "this token was revoked", 401)
    if found[3] is None:
        raise BotApiError("not_bot", "this account is not a bot", 403)
    return BotCaller(int(found[1]), str(found[2]), hashed)


async def token_is_live(sessions: async_sessionmaker[AsyncSession], hashed: str) -> bool:
    async with sessions() as session:
        return await bot_store.token_live(session, hashed)


# ---------------------------------------------------------------------- challenges
def expired(row: Challenge) -> bool:
    """Whether a pending challenge has waited longer than :data:`CHALLENGE_TTL`."""
    created = row.created_at
    if created is None or row.status != ChallengeStatus.PENDING:
        return False
    if created.tzinfo is None:  # SQLite gives naive UTC
        created = created.replace(tzinfo=UTC)
    return utcnow() - created > CHALLENGE_TTL


def challenge_json(row: Challenge, challenger: str, target: str,
                   bots: set[int]) -> dict[str, Any]:
    return {"id": row.id, "status": ChallengeStatus.EXPIRED if expired(row) else row.status,
            "challenger": {"name": challenger, "bot": row.challenger_id in bots},
            "target": {"name": target, "bot": row.target_id in bots},
            "rules": {"target": row.target, "bazaar": row.bazaar}, "rated": row.rated,
            "match_id": row.match_id}


class Challenges:
    """Challenges between players, and the bot events of their matches."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], broker: Broker,
                 play: PlayService,
                 max_pending_to_target: int = DEFAULT_MAX_PENDING_TO_TARGET) -> None:
        self._sessions = sessions
        self._broker = broker
        self._play = play
        self.max_pending_to_target = max_pending_to_target
        self._announced: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    async def _publish(self, user_id: int, event: dict[str, Any]) -> None:
        try:
            await self._broker.publish(user_topic(user_id), event)
        except Exception:
            log.exception("publishing a bot event failed")

    async def describe(self, session: AsyncSession, row: Challenge) -> dict[str, Any]:
        users = await repo.users_by_id(session, [row.challenger_id, row.target_id])
        bots = await bot_ids(session, [row.challenger_id, row.target_id])
        return challenge_json(row, users[row.challenger_id].nickname,
                              users[row.target_id].nickname, bots)

    async def create(self, challenger: User | BotCaller, nickname: object, body: dict[str, Any]
                     ) -> dict[str, Any]:
        """A pending challenge from ``challenger`` to the registered player ``nickname``
        with ``body`` {target, bazaar, rated}; the target's stream hears of it."""
        if not isinstance(nickname, str) or not nickname.strip() or len(nickname) > 64:
            raise BotApiError("not_found", "no such player", 404)
        rated = body.get("rated", False)
        try:
            settings = MatchSettings.parse(body.get("target", 75), body.get("bazaar", "draw"),
                                           rated)
        except BadSettings as exc:
            raise BotApiError("bad_settings", str(exc)) from None
        me = challenger.user_id if isinstance(challenger, BotCaller) else challenger.id
        async with self._sessions() as session, session.begin():
            me_user = await repo.get_user(session, me)
            target = await find_registered(session, nickname)
            if me_user is None or target is None:
                raise BotApiError("not_found", "no such player", 404)
            if target.id == me:
                raise BotApiError("self", "you cannot challenge yourself", 400)
            bots = await bot_ids(session, [me, target.id])
            if not bots:
                raise BotApiError("no_bot", "challenges are to or from a bot", 400)
            if settings.rated and len(bots) == 2:
                raise BotApiError("bots_casual", "matches between two bots are casual only")
            if settings.rated and me_user.kind != REGISTERED:
                raise BotApiError("rated_only", "guests play casual matches only", 403)
            pending = [r for r in await bot_store.pending_from(session, me) if not expired(r)]
            if len(pending) >= MAX_PENDING:
                raise BotApiError("too_many_challenges",
                                  f"at most {MAX_PENDING} pending challenges", 429)
            waiting = [r for r in await bot_store.pending_to(session, target.id)
                       if not expired(r)]
            if len(waiting) >= self.max_pending_to_target:
                raise BotApiError("target_busy", f"{nickname} already has "
                                  f"{self.max_pending_to_target} pending challenges", 429)
            row = await bot_store.add_challenge(
                session, secrets.token_urlsafe(9), me, target.id, target=settings.target,
                bazaar=settings.bazaar, rated=settings.rated)
            described = challenge_json(row, me_user.nickname, target.nickname, bots)
        await self._publish(row.target_id, {"type": "challenge", "challenge": described})
        return described

    async def get(self, challenge_id: str) -> dict[str, Any]:
        async with self._sessions() as session:
            row = await bot_store.get_challenge(session, challenge_id[:24])
            if row is None:
                raise BotApiError("not_found", "no such challenge", 404)
            return await self.describe(session, row)

    async def involves(self, challenge_id: str, user_id: int) -> bool:
        async with self._sessions() as session:
            row = await bot_store.get_challenge(session, challenge_id[:24])
        return row is not None and user_id in (row.challenger_id, row.target_id)

    async def incoming(self, user_id: int) -> list[dict[str, Any]]:
        """The pending challenges to ``user_id``, oldest first."""
        async with self._sessions() as session:
            rows = await bot_store.pending_to(session, user_id, oldest_first=True)
            return [await self.describe(session, r) for r in rows if not expired(r)]

    async def accept(self, challenge_id: str, user_id: int) -> str:
        """The target accepts: the match starts (both players' streams hear ``match_start``);
        its id."""
        async with self._sessions() as session, session.begin():
            row = await bot_store.get_challenge(session, challenge_id[:24])
            if row is None or user_id not in (row.challenger_id, row.target_id):
                raise BotApiError("not_found", "no such challenge", 404)
            if row.target_id != user_id:
                raise BotApiError("not_target", "only the challenged player accepts", 403)
            if row.status != ChallengeStatus.PENDING:
                raise BotApiError("not_pending", f"the challenge is {row.status}", 409)
            if expired(row):
                raise BotApiError("expired", "the challenge waited too long; send a new one",
                                  409)
            users = await repo.users_by_id(session, [row.challenger_id, row.target_id])
            for uid in (row.challenger_id, row.target_id):
                bot = await bot_account(session, uid)
                if bot is not None and await active_matches(session, uid) >= bot.max_matches:
                    raise BotApiError("too_many_matches", f"{users[uid].nickname} plays "
                                      f"{bot.max_matches} matches at once already", 409)
            if not await bot_store.answer_pending(session, row.id, ChallengeStatus.ACCEPTED):
                raise BotApiError("not_pending", "the challenge was answered meanwhile", 409)
            challenger, target = users[row.challenger_id], users[row.target_id]
            settings = (row.target, row.bazaar, row.rated)
        try:
            match_id, _token = await self._play.create_match(
                challenger.id, challenger.nickname, "player", settings[0], settings[1],
                rated=settings[2], opponent_user=(target.id, target.nickname))
        except Exception:
            async with self._sessions() as session, session.begin():
                await bot_store.set_challenge_failed(session, row.id)
            raise
        async with self._sessions() as session, session.begin():
            await bot_store.set_challenge_match(session, row.id, match_id)
        players = [{"name": challenger.nickname, "bot": None},
                   {"name": target.nickname, "bot": None}]
        for seat, me in enumerate((challenger, target)):
            await self._publish(me.id, match_start(
                match_id, row.id, seat, "georgian", players,
                {"target": settings[0], "bazaar": settings[1]}, settings[2]))
        return match_id

    async def decline(self, challenge_id: str, user_id: int) -> None:
        """The target declines, or the challenger cancels, a pending challenge."""
        async with self._sessions() as session, session.begin():
            row = await bot_store.get_challenge(session, challenge_id[:24])
            if row is None or user_id not in (row.challenger_id, row.target_id):
                raise BotApiError("not_found", "no such challenge", 404)
            status = (ChallengeStatus.DECLINED if user_id == row.target_id
                      else ChallengeStatus.CANCELLED)
            if not await bot_store.answer_pending(session, row.id, status):
                raise BotApiError("not_pending", f"the challenge is {row.status}", 409)
        other = row.challenger_id if status == ChallengeStatus.DECLINED else row.target_id
        await self._publish(other, {"type": f"challenge_{status}",
                                    "challenge": {"id": row.id}})

    async def active_of(self, user_id: int) -> list[dict[str, Any]]:
        """``match_start`` events for every unfinished match of ``user_id`` (a stream that
        (re)connects hears of them first), at any number of seats."""
        async with self._sessions() as session:
            rows = await bot_store.active_matches_of(session, user_id)
            return await _start_events(session, rows, user_id)

    async def join_table(self, lobby: Lobby, match_id: str, user_id: int) -> dict[str, Any]:
        """A bot account takes the first free seat of the open table ``match_id`` (any game,
        any number of seats), as a person does from the lobby; its ``match_start`` event,
        also sent to its stream. Refused: ``not_found`` (404: no such open table),
        ``too_many_matches`` (409: at its limit), ``taken`` (409: full or started)."""
        async with self._sessions() as session:
            user = await session.get(User, user_id)
            bot = await bot_account(session, user_id)
            if user is None:
                raise BotApiError("not_found", "no such account", 404)
            if bot is not None and await active_matches(session, user_id) >= bot.max_matches:
                raise BotApiError("too_many_matches", f"{user.nickname} plays "
                                  f"{bot.max_matches} matches at once already", 409)
        try:
            joined = await lobby.join(match_id, user, is_registered(user))
        except NotFound:
            raise BotApiError("not_found", "no such open table", 404) from None
        except LobbyError as exc:
            raise BotApiError(exc.code, str(exc),
                              403 if exc.code == "rated_only" else 409) from None
        async with self._sessions() as session:
            row = await repo.get_match(session, joined)
            if row is None:  # cancelled the moment it was taken
                raise BotApiError("not_found", "no such open table", 404)
            [event] = await _start_events(session, [row], user_id)
        await self._publish(user_id, event)
        return event

    def after_commit(self, live: LiveMatch) -> None:
        """A commit hook of the play service: tell each seated user's stream once that a
        match is over (bots are told; nobody else listens), or was aborted (reason ``abort``,
        no winner)."""
        if live.status != MatchStatus.FINISHED and not live.aborted or live.id in self._announced:
            return
        self._announced[live.id] = None
        while len(self._announced) > 5000:
            self._announced.popitem(last=False)
        # Asked of the match's game: None when aborted (before the deal, or before both
        # players moved, when every score is still 0).
        outcome = live.game.match_result(live.match) if live.match is not None else None
        scores = list(outcome.scores) if outcome is not None else [0] * len(live.seats)
        for seat, who in enumerate(live.seats):
            if who.user_id is None:
                continue
            event = {"type": "match_over", "match": {
                "id": live.id, "seat": seat, "winner": winner_of(outcome),
                "reason": end_reason(live), "score": scores}}
            self._play_task(who.user_id, event)

    def _play_task(self, user_id: int, event: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._publish(user_id, event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _start_events(session: AsyncSession, rows: Sequence[MatchRow],
                        user_id: int) -> list[dict[str, Any]]:
    """The ``match_start`` event of ``user_id``'s seat in each of ``rows``."""
    names = {uid: u.nickname for uid, u in (await repo.users_by_id(
        session, list({u for r in rows for u in r.seated_users()}))).items()}
    events = []
    for r in rows:
        game = get_game(r.game)
        options = live_play_of(game).options_from_stored(r.target, r.bazaar, r.record)
        players = [None if s.user_id is None and s.bot is None
                   else {"name": names.get(s.user_id) if s.user_id is not None else None,
                         "bot": s.bot} for s in r.seats]
        events.append(match_start(r.id, None, r.seat_of_player(user_id), r.game, players,
                                  game.options_to_dict(options), r.rated))
    return events


def match_start(match_id: str, challenge_id: str | None, seat: int, game: str,
                players: Sequence[Mapping[str, Any] | None], rules: dict[str, Any],
                rated: bool) -> dict[str, Any]:
    """The ``match_start`` event of ``seat``: the match's game and its options (``rules``),
    every seat's player in seat order (``{"name", "bot"}``: a user's nickname, or a kva bot's
    level; None: a seat still free), and, at two seats, the other seat's nickname as
    ``opponent`` (None for a kva bot)."""
    other = players[1 - seat] if len(players) == 2 else None
    return {"type": "match_start", "match": {
        "id": match_id, "challenge_id": challenge_id, "game": game, "seat": seat,
        "seats": len(players), "players": [dict(p) if p is not None else None for p in players],
        "opponent": other["name"] if other is not None else None,
        "rules": rules, "rated": rated}}
