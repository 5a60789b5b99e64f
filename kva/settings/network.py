"""Origins and networks as the configuration names them (``KVA_ALLOWED_ORIGINS``,
``KVA_TRUSTED_PROXIES``): their one written form and their parsers; :mod:`kva.web.security`
checks requests against them."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


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


def parse_trusted_proxies(text: str) -> tuple[Network, ...]:
    """The networks in a comma-separated ``KVA_TRUSTED_PROXIES`` (addresses or CIDRs);
    ValueError naming the bad item."""
    out = []
    for item in text.split(","):
        if not item.strip():
            continue
        try:
            out.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(f"KVA_TRUSTED_PROXIES: {item.strip()!r} is not an address or a "
                             "network like 10.0.0.0/8") from None
    return tuple(out)
