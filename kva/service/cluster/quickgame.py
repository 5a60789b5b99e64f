"""Quick game across processes: the queue in Redis, one pairing round at a time.

:class:`RedisQuickGame` is the :class:`kva.service.lobby.quickgame.QuickGame` of processes
sharing Redis (``KVA_BROKER_URL=redis://...``, chosen by :mod:`kva.platform`), with the same
pairing rules as the in-memory queue (:mod:`kva.service.lobby.matchmaking`). What lives where:

* ``<prefix>search`` (hash): search id → the search as JSON (player, rating, settings, since
  when, and the ``origin`` process whose socket holds it);
* ``<prefix>alive`` (sorted set): search id → the time (epoch ms) it expires. The process
  holding the search's socket pushes this forward every tick (:data:`TICK`) while the socket
  is open; a search whose process died is dropped once it passes (:data:`EXPIRE` seconds);
* ``<prefix>owner`` (hash): user id → their current search id (a second search by the same
  player, on any process, replaces the first, whose page is told ``replaced``);
* ``<prefix>lock``: a pairing round runs under ``SET NX PX`` (:data:`LOCK_MS`), so rounds
  never overlap; each pair is then claimed atomically (a Lua script removes both searches
  only if both are still there: a search cancelled meanwhile is never paired) and its match is
  created once, by the process that claimed it;
* ``<prefix>result:<search id>``: the outcome (``{"match_id": ...}`` or ``{"error": ...}``),
  kept a minute. The outcome is also published on the broker topic ``quick:<origin>``, so the
  searcher's process tells its socket at once; the key is the fallback its ticks read. The
  claim itself writes ``{"pending": 1}`` there: a search out of the queue with no outcome once
  that mark has run out (its claimer died before creating the match), or that expired while its
  process stalled, is put back by its process, still waiting since when it began.

Kozel table searches (:meth:`RedisQuickGame.join_table`) live in the same way under
``<prefix>table:alive``, ``<prefix>table:search`` and ``<prefix>table:owner`` (a player may
search a Georgian pair and a Kozel table at once, as in memory). The pairing round groups them
with :func:`kva.service.lobby.matchmaking.group`, the rule the in-memory queue uses, and claims
each table atomically as it claims a pair (a Lua script removes every search of the table only
if all still wait). Taking bots (:meth:`RedisQuickGame.accept_bots`) runs under the same lock
as a round and claims the searcher with whoever :func:`~kva.service.lobby.matchmaking.fill_table`
picks, so no search is seated twice.

Wall-clock time (``time.time``) is the clock, since the processes share it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kva.config import QUICK_BOT_OFFER
from kva.service.cluster.broker import Broker, Subscription
from kva.service.cluster.chores import Chores
from kva.service.coins import wallets as coins
from kva.service.lobby.matchmaking import (
    KOZEL_QUICK_SEATS,
    Seeker,
    TableSeeker,
    fill_table,
    group,
    offer_bots,
    pair,
    rating_range,
    waited,
)
from kva.service.lobby.quickgame import (
    TICK,
    QuickGameError,
    Search,
    SearchStatus,
    TableSearch,
    Ticker,
    check_search,
    check_table_search,
    quick_clock,
    search_status,
    start_match,
    start_table,
)
from kva.service.play import PlayService
from kva.service.play.clock import DEFAULT_CLOCK

log = logging.getLogger(__name__)

#: Seconds a search stays in Redis without its process refreshing it.
EXPIRE = 5.0
#: Milliseconds a pairing round may hold the lock (it is released as soon as it ends).
LOCK_MS = 3000
#: Milliseconds an outcome is kept for its searcher's process.
RESULT_MS = 60_000
#: The default key prefix.
PREFIX = "kva:quick:"

# KEYS: alive, search, owner. ARGV: search id, user id, search JSON, expiry (ms).
# Replaces the user's previous search (returned, as JSON, so its page can be told).
_JOIN = """
local old = redis.call('HGET', KEYS[3], ARGV[2])
local old_json = false
if old then
  old_json = redis.call('HGET', KEYS[2], old)
  redis.call('ZREM', KEYS[1], old)
  redis.call('HDEL', KEYS[2], old)
end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
return old_json
"""
# KEYS: alive, search, owner. ARGV: search id, user id.
_LEAVE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then
  redis.call('HDEL', KEYS[3], ARGV[2])
end
return 1
"""
# KEYS: alive, search, owner, result a, result b. ARGV: now (ms), id a, user a, id b, user b,
# pending mark, its life (ms). Both searches still waiting and unexpired: remove both and mark
# their outcomes pending, 1; otherwise nothing, 0.
_CLAIM = """
for i = 2, 4, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if (not score) or tonumber(score) < tonumber(ARGV[1]) then return 0 end
end
for i = 2, 4, 2 do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
  if redis.call('HGET', KEYS[3], ARGV[i + 1]) == ARGV[i] then
    redis.call('HDEL', KEYS[3], ARGV[i + 1])
  end
end
redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[7])
redis.call('SET', KEYS[5], ARGV[6], 'PX', ARGV[7])
return 1
"""
# KEYS: alive, search, owner. ARGV: search id, user id, search JSON, expiry (ms).
# Puts a lost search back, unless its player searched again meanwhile (0).
_REJOIN = """
local current = redis.call('HGET', KEYS[3], ARGV[2])
if current and current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
return 1
"""
# KEYS: alive, search, owner, then one result key per search. ARGV: now (ms), pending mark, its
# life (ms), then search id and user id of each search. Every search still waiting and
# unexpired: remove them all and mark their outcomes pending, 1; otherwise nothing, 0.
_CLAIM_TABLE = """
local n = (#ARGV - 3) / 2
for i = 1, n do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[2 + 2 * i])
  if (not score) or tonumber(score) < tonumber(ARGV[1]) then return 0 end
end
for i = 1, n do
  local id, uid = ARGV[2 + 2 * i], ARGV[3 + 2 * i]
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  if redis.call('HGET', KEYS[3], uid) == id then redis.call('HDEL', KEYS[3], uid) end
  redis.call('SET', KEYS[3 + i], ARGV[2], 'PX', ARGV[3])
end
return 1
"""
#: The outcome a claim writes until the match is created.
PENDING = '{"pending": 1}'
# KEYS: alive, search, owner. ARGV: now (ms). Drops the searches nobody refreshed.
_EXPIRE = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
for _, id in ipairs(gone) do
  local raw = redis.call('HGET', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  if raw then
    local ok, entry = pcall(cjson.decode, raw)
    if ok and entry['user_id'] then
      local uid = tostring(entry['user_id'])
      if redis.call('HGET', KEYS[3], uid) == id then redis.call('HDEL', KEYS[3], uid) end
    end
  end
end
return #gone
"""
# KEYS: lock. ARGV: token. Releases the lock only if it is still ours.
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass(frozen=True, slots=True)
class Entry:
    """A search as stored in Redis."""

    id: str
    origin: str
    nickname: str
    seeker: Seeker

    def dumps(self) -> str:
        s = self.seeker
        return json.dumps({"id": self.id, "origin": self.origin, "nickname": self.nickname,
                           "user_id": s.user_id, "rating": s.rating, "target": s.target,
                           "bazaar": s.bazaar, "rated": s.rated, "since": s.since,
                           "stake": s.stake, "clock": s.clock},
                          ensure_ascii=False)

    @classmethod
    def loads(cls, raw: str | bytes) -> Entry:
        """The entry stored as ``raw`` (ValueError, KeyError or TypeError if malformed)."""
        d = json.loads(raw)
        seeker = Seeker(int(d["user_id"]), float(d["rating"]), int(d["target"]),
                        str(d["bazaar"]), bool(d["rated"]), float(d["since"]),
                        int(d.get("stake") or 0), str(d.get("clock") or DEFAULT_CLOCK))
        return cls(str(d["id"]), str(d["origin"]), str(d["nickname"]), seeker)


@dataclass(frozen=True, slots=True)
class TableEntry:
    """A Kozel table search as stored in Redis."""

    id: str
    origin: str
    nickname: str
    seeker: TableSeeker

    def dumps(self) -> str:
        s = self.seeker
        return json.dumps({"id": self.id, "origin": self.origin, "nickname": self.nickname,
                           "user_id": s.user_id, "rating": s.rating, "seats": s.seats,
                           "fish": s.fish, "since": s.since}, ensure_ascii=False)

    @classmethod
    def loads(cls, raw: str | bytes) -> TableEntry:
        """The entry stored as ``raw`` (ValueError, KeyError or TypeError if malformed)."""
        d = json.loads(raw)
        seeker = TableSeeker(int(d["user_id"]), float(d["rating"]), int(d["seats"]),
                             str(d["fish"]), float(d["since"]))
        if seeker.seats not in KOZEL_QUICK_SEATS:
            raise ValueError("a Kozel quick game has 3 or 4 seats")
        return cls(str(d["id"]), str(d["origin"]), str(d["nickname"]), seeker)


#: A search of this process: for a Georgian pair or for a Kozel table.
Local = Search | TableSearch


class RedisQuickGame:
    """The quick-game queue shared by every process on one Redis (see the module)."""

    def __init__(self, service: PlayService, broker: Broker, url: str, *,
                 prefix: str = PREFIX, clock: Callable[[], float] = time.time,
                 tick: float = TICK, expire: float = EXPIRE,
                 result_ms: int = RESULT_MS, bot_offer: float = QUICK_BOT_OFFER) -> None:
        import redis.asyncio as redis

        self._service = service
        self._clock = clock
        self._tick = tick
        #: This process's searches by player (a player has one search at a time).
        self._searches: dict[int, Search] = {}
        #: This process's Kozel table searches by player.
        self._tables: dict[int, TableSearch] = {}
        self._bot_offer = bot_offer
        #: This process's Kozel searches: the players found for their table (table_status).
        self._found: dict[str, int] = {}
        self._ticker = Ticker(tick, lambda: bool(self._local) and not self._stopped,
                              self._round)
        self._pairing = asyncio.Lock()
        self._stopped = False
        self._redis: Any = redis.from_url(url, decode_responses=True)
        self._broker = broker
        self._prefix = prefix
        self._expire = expire
        self._result_ms = result_ms
        #: This process's searches found out of the queue with no outcome: since when.
        self._missing: dict[str, float] = {}
        self.origin = secrets.token_hex(6)
        self._keys = [prefix + "alive", prefix + "search", prefix + "owner"]
        self._table_keys = [prefix + "table:alive", prefix + "table:search",
                            prefix + "table:owner"]
        self._local: dict[str, Local] = {}  # search id -> this process's searches
        self._sub: Subscription | None = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribing = asyncio.Lock()
        self._chores = Chores("quick-game redis update")
        self._join_script = self._redis.register_script(_JOIN)
        self._leave_script = self._redis.register_script(_LEAVE)
        self._claim_script = self._redis.register_script(_CLAIM)
        self._claim_table_script = self._redis.register_script(_CLAIM_TABLE)
        self._rejoin_script = self._redis.register_script(_REJOIN)
        self._expire_script = self._redis.register_script(_EXPIRE)
        self._unlock_script = self._redis.register_script(_UNLOCK)

    # ------------------------------------------------------------------ the interface
    async def join(self, user_id: int, nickname: str, rating: float, target: int, bazaar: str,
                   rated: bool, registered: bool, stake: int | str = 0,
                   clock: str | None = None) -> Search:
        """Start a search (replacing this player's previous one, on any process); pairs at
        once if possible."""
        check_search(target, bazaar, rated, registered, stake)
        stake = coins.check_stake(stake)
        preset = quick_clock(clock)
        if self._stopped:
            raise QuickGameError("stopped", "the server is stopping")
        await self._listen()
        search = Search(Seeker(user_id, float(rating), target, bazaar, rated, self._clock(),
                               stake, preset), nickname)
        previous = self._searches.get(user_id)
        if previous is not None:
            self._fail(previous, QuickGameError("replaced", "searching elsewhere"))
        self._searches[user_id] = search
        self._local[search.id] = search
        entry = Entry(search.id, self.origin, nickname, search.seeker)
        old = await self._join_script(keys=self._keys, args=[
            search.id, user_id, entry.dumps(), self._deadline()])
        if old:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                replaced = Entry.loads(old)
                if replaced.origin != self.origin:
                    await self._deliver(replaced, {"error": "replaced"})
        await self.pair_now()
        self._ticker.ensure()
        return search

    def leave(self, search: Search) -> None:
        """Take ``search`` out of the queue (here at once, in Redis just after)."""
        if self._searches.get(search.seeker.user_id) is search:
            del self._searches[search.seeker.user_id]
        if self._local.pop(search.id, None) is not None and not search.result.done():
            self._chores.start(self._leave_script(keys=self._keys,
                                                  args=[search.id, search.seeker.user_id]))
        if not search.result.done():
            search.result.cancel()

    async def pair_now(self) -> None:
        """One pairing round over every process's searches (Georgian pairs, then Kozel
        tables), if no other round is running; then who this process's Kozel searches would
        sit with now (:meth:`table_status`)."""
        await self._pair_round()
        await self._count_found()

    async def _pair_round(self) -> None:
        async with self._pairing:
            token = secrets.token_hex(8)
            lock = self._prefix + "lock"
            if not await self._redis.set(lock, token, nx=True, px=LOCK_MS):
                return  # another process is pairing right now
            claimed: list[tuple[Entry, Entry]] = []
            tables: list[list[TableEntry]] = []
            try:
                now = self._clock()
                now_ms = int(now * 1000)
                await self._expire_script(keys=self._keys, args=[now_ms])
                await self._expire_script(keys=self._table_keys, args=[now_ms])
                by_seeker = {e.seeker: e for e in (await self._entries(now_ms)).values()}
                for first, second in pair(by_seeker, now):
                    a, b = by_seeker[first], by_seeker[second]
                    if await self._claim(now_ms, a.id, a.seeker.user_id, b.id,
                                         b.seeker.user_id):
                        claimed.append((a, b))
                by_table_seeker = {e.seeker: e for e in
                                   (await self._table_entries(now_ms)).values()}
                for seekers in group(by_table_seeker, now):
                    table = [by_table_seeker[s] for s in seekers]
                    if await self._claim_table(now_ms, table):
                        tables.append(table)
            finally:
                await self._unlock_script(keys=[lock], args=[token])
            for a, b in claimed:
                await self._start_pair(a, b)
            for table in tables:
                await self._start_table(table)

    def status(self, search: Search) -> SearchStatus:
        """How long ``search`` has waited, its rating range, and whether a bot is offered."""
        return search_status(search, self._clock())

    async def join_table(self, user_id: int, nickname: str, rating: float, seats: int,
                         fish: str) -> TableSearch:
        """Start a search for a Kozel table of ``seats`` with the ``fish`` rule (``rating``:
        the Kozel rating), replacing this player's previous Kozel search on any process;
        starts a table at once if one fills."""
        check_table_search(seats, fish)
        if self._stopped:
            raise QuickGameError("stopped", "the server is stopping")
        await self._listen()
        search = TableSearch(TableSeeker(user_id, float(rating), seats, fish, self._clock()),
                             nickname)
        previous = self._tables.get(user_id)
        if previous is not None:
            self._fail(previous, QuickGameError("replaced", "searching elsewhere"))
        self._tables[user_id] = search
        self._local[search.id] = search
        entry = TableEntry(search.id, self.origin, nickname, search.seeker)
        old = await self._join_script(keys=self._table_keys, args=[
            search.id, user_id, entry.dumps(), self._deadline()])
        if old:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                replaced = TableEntry.loads(old)
                if replaced.origin != self.origin:
                    await self._deliver(replaced, {"error": "replaced"})
        await self.pair_now()
        self._ticker.ensure()
        return search

    def leave_table(self, search: TableSearch) -> None:
        """Take a Kozel ``search`` out of the queue (here at once, in Redis just after)."""
        if self._tables.get(search.seeker.user_id) is search:
            del self._tables[search.seeker.user_id]
        if self._local.pop(search.id, None) is not None and not search.result.done():
            self._chores.start(self._leave_script(keys=self._table_keys,
                                                  args=[search.id, search.seeker.user_id]))
        if not search.result.done():
            search.result.cancel()

    def table_status(self, search: TableSearch) -> SearchStatus:
        """How long a Kozel ``search`` has waited, its rating range, and whether bots are
        offered for the free seats (after ``KVA_QUICK_BOT_OFFER`` seconds)."""
        now = self._clock()
        w = waited(search.seeker, now)
        return SearchStatus(int(w), int(rating_range(w)),
                            offer_bots(search.seeker, now, self._bot_offer),
                            self._found.get(search.id, 1))

    async def accept_bots(self, search: TableSearch) -> None:
        """Start ``search``'s table now with the players found so far (on any process) and
        bots for the free seats; QuickGameError ``too_early`` before the offer,
        ``not_searching`` once gone, ``busy`` if pairing rounds hold the lock too long."""
        if self._local.get(search.id) is not search or search.result.done():
            raise QuickGameError("not_searching", "this search is over")
        if not offer_bots(search.seeker, self._clock(), self._bot_offer):
            raise QuickGameError("too_early", "bots are offered after a wait")
        async with self._pairing:
            token = secrets.token_hex(8)
            lock = self._prefix + "lock"
            give_up = time.monotonic() + 2 * LOCK_MS / 1000
            while not await self._redis.set(lock, token, nx=True, px=LOCK_MS):
                if time.monotonic() > give_up:
                    raise QuickGameError("busy", "the queue is busy: try again")
                await asyncio.sleep(0.05)  # another process's round ends within LOCK_MS
            try:
                now_ms = int(self._clock() * 1000)
                entries = await self._table_entries(now_ms)
                mine = entries.get(search.seeker.user_id)
                if mine is None or mine.id != search.id:
                    raise QuickGameError("not_searching", "this search is over")
                by_seeker = {e.seeker: e for e in entries.values()}
                chosen = fill_table(mine.seeker, [e.seeker for e in entries.values()
                                                  if e is not mine], self._clock())
                table = [by_seeker[s] for s in chosen]
                if not await self._claim_table(now_ms, table):
                    raise QuickGameError("not_searching", "this search is over")
            finally:
                await self._unlock_script(keys=[lock], args=[token])
        await self._start_table(table)

    def waiting(self) -> int:
        """How many players wait on this process."""
        return len(self._searches)

    async def stop(self) -> None:
        """End this process's searches (taking them out of Redis) and its tasks."""
        self._stopped = True
        for search in list(self._local.values()):
            if isinstance(search, TableSearch):
                self.leave_table(search)
            else:
                self.leave(search)
        await self._ticker.stop()
        await self._chores.finish()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.close()
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    async def searching(self) -> int:
        """How many searches wait in Redis, on every process (expired ones not counted)."""
        return int(await self._redis.zcount(self._keys[0], int(self._clock() * 1000), "+inf"))

    # ------------------------------------------------------------------ inside
    def _deadline(self) -> int:
        return int((self._clock() + self._expire) * 1000)

    def _forget(self, search: Local) -> None:
        """``search`` no longer this process's: its outcome is known."""
        self._local.pop(search.id, None)
        if isinstance(search, TableSearch):
            if self._tables.get(search.seeker.user_id) is search:
                del self._tables[search.seeker.user_id]
        elif self._searches.get(search.seeker.user_id) is search:
            del self._searches[search.seeker.user_id]

    def _keys_of(self, search: Local) -> list[str]:
        return self._table_keys if isinstance(search, TableSearch) else self._keys

    def _fail(self, search: Local, exc: Exception) -> None:
        self._forget(search)
        if not search.result.done():
            search.result.set_exception(exc)
            search.result.exception()  # retrieved: no "never retrieved" warning

    async def _claim(self, now_ms: int, a: str, user_a: int, b: str, user_b: int) -> bool:
        """Take searches ``a`` and ``b`` out of the queue for one match, if both still wait."""
        return bool(await self._claim_script(
            keys=[*self._keys, self._prefix + "result:" + a, self._prefix + "result:" + b],
            args=[now_ms, a, user_a, b, user_b, PENDING, self._result_ms]))

    async def _entries(self, now_ms: int) -> dict[int, Entry]:
        """The Georgian searches waiting unexpired, the latest one of each player."""
        ids = await self._redis.zrangebyscore(self._keys[0], now_ms, "+inf")
        if len(ids) < 2:
            return {}
        entries: dict[int, Entry] = {}
        for raw in await self._redis.hmget(self._keys[1], ids):
            if raw is None:
                continue
            try:
                entry = Entry.loads(raw)
            except (ValueError, KeyError, TypeError):
                log.warning("dropping a malformed quick-game search")
                continue
            known = entries.get(entry.seeker.user_id)
            if known is None or known.seeker.since < entry.seeker.since:
                entries[entry.seeker.user_id] = entry
        return entries

    async def _table_entries(self, now_ms: int) -> dict[int, TableEntry]:
        """The Kozel table searches waiting unexpired, the latest one of each player."""
        ids = await self._redis.zrangebyscore(self._table_keys[0], now_ms, "+inf")
        if not ids:
            return {}
        entries: dict[int, TableEntry] = {}
        for raw in await self._redis.hmget(self._table_keys[1], ids):
            if raw is None:
                continue
            try:
                entry = TableEntry.loads(raw)
            except (ValueError, KeyError, TypeError):
                log.warning("dropping a malformed Kozel quick-game search")
                continue
            known = entries.get(entry.seeker.user_id)
            if known is None or known.seeker.since < entry.seeker.since:
                entries[entry.seeker.user_id] = entry
        return entries

    async def _claim_table(self, now_ms: int, table: list[TableEntry]) -> bool:
        """Take every search of ``table`` out of the queue for one match, if all still wait."""
        args: list[Any] = [now_ms, PENDING, self._result_ms]
        for entry in table:
            args += [entry.id, entry.seeker.user_id]
        return bool(await self._claim_table_script(
            keys=[*self._table_keys, *(self._prefix + "result:" + e.id for e in table)],
            args=args))

    async def _count_found(self) -> None:
        """For each Kozel search of this process, how many players its table would have now
        (every process's searches read from Redis)."""
        mine = [s for s in self._local.values() if isinstance(s, TableSearch)]
        if not mine:
            self._found.clear()
            return
        now = self._clock()
        waiting = [e.seeker for e in (await self._table_entries(int(now * 1000))).values()]
        self._found = {
            s.id: len(fill_table(s.seeker, [o for o in waiting
                                            if o.user_id != s.seeker.user_id], now))
            for s in mine}

    async def _start_table(self, table: list[TableEntry]) -> None:
        """Create the match of a claimed Kozel table (seat 0: its longest waiter, bots in the
        free seats) and tell every search."""
        try:
            outcome: dict[str, Any] = {"match_id": await start_table(self._service, table)}
        except Exception:
            log.exception("could not start a Kozel quick game")
            outcome = {"error": "failed"}
        for entry in table:
            try:
                await self._deliver(entry, outcome)
            except Exception:
                log.exception("could not tell a quick-game search its outcome")

    def _resolve(self, search_id: str, outcome: dict[str, Any]) -> None:
        """The outcome of one of this process's searches (from the broker or its key)."""
        search = self._local.get(search_id)
        if search is None or search.result.done() or "pending" in outcome:
            return
        match_id = outcome.get("match_id")
        if isinstance(match_id, str):
            self._forget(search)
            search.result.set_result(match_id)
            return
        code = outcome.get("error")
        self._fail(search, QuickGameError(code if isinstance(code, str) else "failed",
                                          "the search ended"))

    async def _deliver(self, entry: Entry | TableEntry, outcome: dict[str, Any]) -> None:
        """Tell ``entry``'s process (here, or through the broker and its result key)."""
        if entry.origin == self.origin:
            self._resolve(entry.id, outcome)
            return
        await self._redis.set(self._prefix + "result:" + entry.id, json.dumps(outcome),
                              px=self._result_ms)
        await self._broker.publish("quick:" + entry.origin, {"search": entry.id, **outcome})

    async def _start_pair(self, a: Entry, b: Entry) -> None:
        """Create the match of a claimed pair (seat 0: the longer waiter), tell both."""
        try:
            match_id = await start_match(self._service, a.seeker, a.nickname, b.seeker,
                                         b.nickname)
            outcome: dict[str, Any] = {"match_id": match_id}
        except coins.CoinError as exc:  # a player cannot cover the stake any more
            # an expected refusal (docs/coins.md), not a fault: no traceback
            log.info("quick game not started: %s (user %s)", exc.code, exc.user_id)
            outcome = {"error": exc.code}
        except Exception:
            log.exception("could not start a quick game")
            outcome = {"error": "failed"}
        for entry in (a, b):
            try:
                await self._deliver(entry, outcome)
            except Exception:
                log.exception("could not tell a quick-game search its outcome")

    async def _listen(self) -> None:
        """Subscribe to this process's topic once (outcomes of its searches)."""
        async with self._subscribing:
            if self._sub is not None:
                return
            self._sub = await self._broker.subscribe("quick:" + self.origin)
            self._listener = asyncio.create_task(self._relay(self._sub),
                                                 name="kva-quick-game-outcomes")

    async def _relay(self, sub: Subscription) -> None:
        async for message in sub:
            search_id = message.get("search")
            if isinstance(search_id, str):
                self._resolve(search_id, message)

    async def _round(self) -> None:
        """What the ticker runs: this process's searches kept alive, then a pairing round."""
        await self._refresh()
        await self.pair_now()

    async def _refresh(self) -> None:
        """Keep this process's searches alive, and read outcomes the broker did not bring."""
        ids = list(self._local)
        if not ids:
            return
        deadline = self._deadline()
        async with self._redis.pipeline(transaction=False) as pipe:
            alive = {i: self._keys_of(self._local[i])[0] for i in ids}
            for search_id in ids:
                pipe.zadd(alive[search_id], {search_id: deadline}, xx=True)
            pipe.mget([self._prefix + "result:" + i for i in ids])
            for search_id in ids:
                pipe.zscore(alive[search_id], search_id)
            replies = await pipe.execute()
        outcomes, scores = replies[len(ids)], replies[len(ids) + 1:]
        now = self._clock()
        for search_id, raw, score in zip(ids, outcomes, scores, strict=True):
            if score is not None or raw is not None:
                self._missing.pop(search_id, None)
            if raw is not None:
                with contextlib.suppress(ValueError, TypeError):
                    outcome = json.loads(raw)
                    if isinstance(outcome, dict):
                        self._resolve(search_id, outcome)
                continue
            if score is None:  # out of the queue, no outcome, not even pending
                lost = self._missing.setdefault(search_id, now)
                if now - lost >= self._tick:  # not a claim's outcome arriving right now
                    await self._rejoin(search_id)
        for search_id in list(self._missing):
            if search_id not in self._local:
                del self._missing[search_id]

    async def _rejoin(self, search_id: str) -> None:
        """Put a lost search of this process back in the queue (see the module)."""
        search = self._local.get(search_id)
        self._missing.pop(search_id, None)
        if search is None or search.result.done():
            return
        entry: Entry | TableEntry = (
            TableEntry(search.id, self.origin, search.nickname, search.seeker)
            if isinstance(search, TableSearch)
            else Entry(search.id, self.origin, search.nickname, search.seeker))
        if not await self._rejoin_script(keys=self._keys_of(search), args=[
                search.id, search.seeker.user_id, entry.dumps(), self._deadline()]):
            self._fail(search, QuickGameError("replaced", "searching elsewhere"))
        else:
            log.warning("quick-game search %s was lost from the queue; put back", search_id)

