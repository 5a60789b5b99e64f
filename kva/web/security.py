"""Origin checks: a page on another site must not act with a visitor's cookie.

Browsers send ``Origin`` on every WebSocket handshake and on cross-site form posts. A request
whose ``Origin`` is neither this site (the ``Host`` it was sent to) nor one of the configured
``KVA_ALLOWED_ORIGINS`` is refused: WebSocket handshakes before they are accepted, form posts
with 403. A request without ``Origin`` (a non-browser client, or an old browser's same-site
form) cannot carry a cross-site page's intent and is let through; ``Origin: null`` (sandboxed
frames, ``file:`` pages) is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit


def normalize_origin(origin: str) -> str | None:
    """``scheme://host[:port]`` in lower case, default ports dropped; None if not an origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def parse_allowed_origins(text: str) -> tuple[str, ...]:
    """The origins in a comma-separated ``KVA_ALLOWED_ORIGINS``; ValueError for a bad one."""
    out = []
    for item in text.split(","):
        if not item.strip():
            continue
        norm = normalize_origin(item)
        if norm is None:
            raise ValueError(
                f"KVA_ALLOWED_ORIGINS: {item.strip()!r} is not an origin like https://kva.ge")
        out.append(norm)
    return tuple(out)


def _host_of(netloc: str) -> str:
    """``netloc`` lower-cased with the default ports dropped, for comparing with ``Host``."""
    netloc = netloc.strip().lower()
    for suffix in (":80", ":443"):
        if netloc.endswith(suffix):
            return netloc[: -len(suffix)]
    return netloc


def origin_allowed(headers: Mapping[str, str], allowed: Iterable[str] = ()) -> bool:
    """Whether a request with these headers may act: no ``Origin``, the same host as ``Host``,
    or an origin in ``allowed`` (normalised, see :func:`parse_allowed_origins`)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    norm = normalize_origin(origin)
    if norm is None:
        return False
    if norm in set(allowed):
        return True
    host = headers.get("host")
    return bool(host) and _host_of(norm.split("://", 1)[1]) == _host_of(host or "")
