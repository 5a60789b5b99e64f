"""The security headers every answer of the site carries, errors included.

Kept apart from the middleware that adds them to the routes' answers, so that the body cap
(:mod:`kva.web.bodylimit`, outside that middleware) puts them on its own refusals too.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import Message

#: The Content-Security-Policy of every page: scripts, styles and connections (WebSockets
#: included: CSP3's 'self' covers ws:/wss: of the same host) only from this site, no inline
#: script or style (page data travels in ``<script type="application/json">`` blocks, which
#: are never executed), no framing, no plugins, and forms and ``<base>`` only to this site.
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
))
#: Sent with every response: the CSP above, no framing (a resign button must not be
#: clickjacked), no MIME sniffing, and no table link leaking to other sites through the Referer.
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def add_security_headers(message: Message) -> None:
    """Give an ``http.response.start`` message every :data:`SECURITY_HEADERS` it lacks."""
    headers = MutableHeaders(scope=message)
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)
