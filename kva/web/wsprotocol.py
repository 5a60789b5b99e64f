"""uvicorn's WebSocket protocol, freed as soon as its connection is gone.

uvicorn's Sans-I/O WebSocket protocol keeps a ``websockets`` ``ServerProtocol`` whose frame
parser is a generator that holds the protocol itself: a reference cycle that outlives the
connection, with the per-message-deflate contexts (zlib's compressor and decompressor, tens
of KB) and the buffers of the socket inside it. Only a full garbage collection frees it, and a
serving process runs those rarely (:mod:`kva.web.runtime`), so every closed socket used to stay
in memory until the next one: ~15 MiB more RSS every 30 s at 100 short matches (about 8 sockets
closed a second) with collections 10 minutes apart (docs/performance.md, "Fifth session").

:class:`FreedOnCloseWebSocketProtocol` ends the parser when the connection is lost, which breaks
the cycle: the connection's objects go by reference counting the moment nothing else uses them.
"""

from __future__ import annotations

import contextlib

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
