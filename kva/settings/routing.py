"""Which process nginx sends a match's page and socket to, and match ids that land here.

docs/deployment.md routes ``/m/<id>`` and ``/ws/m/<id>`` by ``hash $kva_match_id consistent``, so
both players of a match reach one process, which then owns the match. A match is created by
whichever process took the ``POST`` that created it; if nginx's hash sends the match's sockets
elsewhere, the match is handed over to that process at the first ``hello`` (a lease handover
and the forwards before it, for every new match). A process that knows the upstream list
(``KVA_UPSTREAMS``) and its own place in it (``KVA_UPSTREAM_SELF``) draws instead an id that
nginx sends to itself: about N draws of a random id for N processes.
"""

from __future__ import annotations

import bisect
import secrets
import struct
import zlib
from collections.abc import Callable, Sequence

from kva.rules import parse_ascii_int

#: Points per server on nginx's ketama ring (ngx_http_upstream_hash_module.c).
_POINTS = 160


class HashRing:
    """nginx's ``hash <key> consistent;`` over upstream servers ``host:port`` (weight 1), in
    any order: 160 points per server, each the CRC32 of ``host``, a NUL, ``port`` and the
    previous point (4 bytes, little-endian); a key goes to the first point at or after its
    CRC32, wrapping round.

    >>> ring = HashRing(["127.0.0.1:8001", "127.0.0.1:8002"])
    >>> ring.server_of("abc") in ("127.0.0.1:8001", "127.0.0.1:8002")
    True
    """

    def __init__(self, servers: Sequence[str]) -> None:
        if not servers:
            raise ValueError("a hash ring needs at least one server")
        self.servers = list(servers)
        points: list[tuple[int, int]] = []
        for index, server in enumerate(self.servers):
            host, sep, port = server.rpartition(":")
            if not sep or not host or parse_ascii_int(port, max_digits=5) is None:
                raise ValueError(f"an upstream server is host:port, not {server!r}")
            base = zlib.crc32(host.encode() + b"\0" + port.encode())
            prev = 0
            for _ in range(_POINTS):
                point = zlib.crc32(struct.pack("<I", prev), base)
                points.append((point, index))
                prev = point
        points.sort()
        self._points = points

    def server_of(self, key: str) -> str:
        """The server nginx picks for ``key``."""
        at = bisect.bisect_left(self._points, (zlib.crc32(key.encode()), -1))
        return self.servers[self._points[at % len(self._points)][1]]


def new_match_id() -> str:
    """A fresh random match id (72 bits, URL-safe)."""
    return secrets.token_urlsafe(9)


def match_ids_for(upstreams: Sequence[str], me: str,
                  draw: Callable[[], str] = new_match_id, tries: int = 10_000
                  ) -> Callable[[], str]:
    """A generator of match ids that nginx's hash over ``upstreams`` sends to ``me`` (one of
    them). It gives up after ``tries`` draws and returns a plain random id (the match is then
    handed over, as without this)."""
    ring = HashRing(upstreams)
    if me not in ring.servers:
        raise ValueError(f"KVA_UPSTREAM_SELF {me!r} is not among KVA_UPSTREAMS")

    def routed_here() -> str:
        for _ in range(tries):
            candidate = draw()
            if ring.server_of(candidate) == me:
                return candidate
        return draw()

    return routed_here
