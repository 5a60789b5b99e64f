"""uvicorn's WebSocket and HTTP protocols, freed as soon as their connection is gone.

uvicorn's Sans-I/O WebSocket protocol keeps a ``websockets`` ``ServerProtocol`` whose frame
parser is a generator that holds the protocol itself: a reference cycle that outlives the
connection, with the per-message-deflate contexts (zlib's compressor and decompressor, tens
of KB) and the buffers of the socket inside it. Only a full garbage collection frees it, and a
serving process runs those rarely (:mod:`kva.web.runtime`), so without this every closed socket
would stay in memory until the next one: ~15 MiB more RSS every 30 s at 100 short matches
(about 8 sockets closed a second) with collections 10 minutes apart (``kva bench server``).

:class:`FreedOnCloseWebSocketProtocol` ends the parser when the connection is lost, which breaks
the cycle: the connection's objects go by reference counting the moment nothing else uses them.

Every WebSocket starts as an HTTP request, and the HTTP protocol it started on (uvicorn's
``HttpToolsProtocol``) is left in a cycle of its own: its ``httptools`` parser holds the
protocol (its callbacks) and the parser's upgrade exception, whose traceback holds the
protocol's frame. uvicorn breaks that cycle in ``connection_lost``, which an upgraded
connection's HTTP protocol never gets (the transport was handed to the WebSocket protocol).
So each socket opened would leave ~30 objects (the protocol, its parser, flow control, events,
deques, bound methods, the traceback and frame) for the collector, and the young collections
that found them would pay for tearing them down: at 300 live matches, collections at the
default threshold took a median of 12 ms of CPU (p90 24.5 ms) with them, against ~2 ms
without. :class:`FreedOnUpgradeHttpToolsProtocol` drops the
parser once the connection is handed over.
"""

from __future__ import annotations

import contextlib

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class FreedOnCloseWebSocketProtocol(WebSocketsSansIOProtocol):
    """:class:`WebSocketsSansIOProtocol` whose parser is closed once the connection is lost.

    After ``connection_lost`` nothing reads from the connection again (``receive_data`` is
    only called by the transport), so the parser is never needed: closing the generator
    drops its frame, and with it the generator's reference to the protocol. A failed parse
    leaves its exception on the protocol, whose traceback holds the parser's frame (the same
    cycle): its traceback goes too."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        conn = self.conn
        with contextlib.suppress(Exception):
            conn.parser.close()
        if conn.parser_exc is not None:
            conn.parser_exc.__traceback__ = None



class FreedOnUpgradeHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's ``HttpToolsProtocol`` that lets go of its parser once the connection is
    upgraded to a WebSocket: nothing parses HTTP on it again (the transport feeds the
    WebSocket protocol now), and the parser is what holds the protocol in a cycle."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]
