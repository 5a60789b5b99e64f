"""Origin checks: a page on another site must not act with a visitor's cookie.

Browsers send ``Origin`` on every WebSocket handshake and on cross-site form posts. A request
whose ``Origin`` is neither this site (the ``Host`` it was sent to) nor one of the configured
``KVA_ALLOWED_ORIGINS`` is refused: WebSocket handshakes before they are accepted, form posts
with 403. A request without ``Origin`` (a non-browser client, or an old browser's same-site
form) cannot carry a cross-site page's intent and is let through; ``Origin: null`` (sandboxed
frames, ``file:`` pages) is refused. "This site" is the whole origin, scheme, host and port,
as the request itself was addressed (behind a trusted proxy: as the proxy says it was).

The client address every limit counts against is :func:`client_ip`: the connection's peer,
or, only when that peer is one of ``KVA_TRUSTED_PROXIES``, the right-most address of
``X-Forwarded-For`` that is not a trusted proxy, written one way only
(:func:`canonical_address`) so that no spelling of an address is a client of its own.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from kva.settings.network import Network, normalize_origin


def canonical_address(text: str) -> str | None:
    """The one spelling of the IP address in ``text``; None when it is not one.

    Proxies and clients write one address many ways: ``[2001:db8::4]``, ``[2001:db8::4]:443``,
    ``1.2.3.4:5678``, upper- or lower-case hex, ``::ffff:1.2.3.4`` for an IPv4 client of an
    IPv6 socket, a zone (``fe80::1%eth0``). Each would otherwise be a client with budgets of
    its own, so every one becomes ``ipaddress``'s compressed lower-case form, a port and a zone
    dropped and an IPv4-mapped IPv6 address written as its IPv4 address.
    """
    text = text.strip()
    bracketed = re.fullmatch(r"\[([^\[\]]+)\](?::\d{1,5})?", text)
    if bracketed:
        text = bracketed.group(1)
    elif text.count(":") == 1:  # an IPv4 address and a port (an IPv6 one has two colons)
        host, _, port = text.partition(":")
        if not port.isdigit() or len(port) > 5:
            return None
        text = host
    if ":" in text:  # only an IPv6 address has a zone
        text = text.split("%", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def _trusted(address: str, trusted: Iterable[Network]) -> bool:
    canonical = canonical_address(address)
    if canonical is None:
        return False
    ip = ipaddress.ip_address(canonical)
    return any(ip.version == net.version and ip in net for net in trusted)


def client_address(peer: str | None, headers: Mapping[str, str],
                   trusted: Iterable[Network] = ()) -> str:
    """The address every per-client limit counts against.

    ``peer`` is the address the connection came from. Only when it is a trusted proxy is
    ``X-Forwarded-For`` believed, read from the right: each hop appended by a trusted proxy is
    skipped, and the first (right-most) address that is not a trusted proxy is the client. A
    client cannot forge its way past this: whatever it puts at the left of the header is never
    reached while an untrusted hop stands to its right. With no trusted proxies (the default)
    the header is ignored and the peer is the client.

    The address comes back in its one spelling (:func:`canonical_address`); a hop that is
    no address at all is never a trusted proxy, so it is the client, kept as it was written.
    """
    nets = tuple(trusted)
    client = peer or "unknown"
    if nets and _trusted(client, nets):
        hops = [h.strip() for h in headers.get("x-forwarded-for", "").split(",") if h.strip()]
        for hop in reversed(hops):
            client = hop
            if not _trusted(hop, nets):
                break
    return canonical_address(client) or client


def request_origin(scheme: str, headers: Mapping[str, str], peer: str | None,
                   trusted: Iterable[Network] = ()) -> str | None:
    """This site's own origin as the browser sees it: ``scheme`` and the ``Host`` header, or,
    when ``peer`` is a trusted proxy, its ``X-Forwarded-Proto`` / ``X-Forwarded-Host``."""
    nets = tuple(trusted)
    host = headers.get("host")
    if nets and _trusted(peer or "", nets):
        proto = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        fwd_host = headers.get("x-forwarded-host", "").split(",")[0].strip()
        scheme = proto or scheme
        host = fwd_host or host
    if not host:
        return None
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return normalize_origin(f"{scheme}://{host}")


def origin_allowed(headers: Mapping[str, str], allowed: Iterable[str] = (),
                   own: str | None = None) -> bool:
    """Whether a request with these headers may act: no ``Origin``, this site's own origin
    ``own`` (scheme, host and port: see :func:`request_origin`), or an origin in ``allowed``
    (normalised, see :func:`parse_allowed_origins`)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    norm = normalize_origin(origin)
    if norm is None:
        return False
    if norm in set(allowed):
        return True
    return own is not None and norm == own


def _settings_of(conn: HTTPConnection) -> Any:
    return conn.app.state.settings


def client_ip(conn: HTTPConnection) -> str:
    """The client address of a request or WebSocket handshake, the one every per-client limit
    counts against (``KVA_TRUSTED_PROXIES`` decides whether ``X-Forwarded-For`` is believed)."""
    settings = _settings_of(conn)
    peer = conn.client.host if conn.client else None
    return client_address(peer, conn.headers, settings.trusted_proxies)


def address_group(ip: str, ipv6_prefix: int = 64) -> str:
    """The group an address is counted in by per-client limits: an IPv4 address alone, an IPv6
    address as its ``/ipv6_prefix`` network (one subscriber usually holds a whole /64, so
    counting single IPv6 addresses would give one person millions of budgets). Anything that
    is not an address is returned as it is."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))
    return str(address)


def client_key(conn: HTTPConnection) -> str:
    """The key every per-client limit counts against: :func:`client_ip` grouped by
    :func:`address_group` (IPv6 by its ``KVA_IPV6_PREFIX`` network)."""
    return address_group(client_ip(conn), _settings_of(conn).ipv6_prefix)


def origin_ok(conn: HTTPConnection) -> bool:
    """Whether this request or handshake comes from this site or an allowed origin."""
    settings = _settings_of(conn)
    peer = conn.client.host if conn.client else None
    own = request_origin(conn.url.scheme, conn.headers, peer, settings.trusted_proxies)
    return origin_allowed(conn.headers, settings.allowed_origins, own)


def safe_next(target: str | None) -> str:
    """Only a path on this site (no scheme, no host, no ``//``) is a valid ``next``."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target
