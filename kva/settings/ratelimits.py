"""The default rate limits and their notation (``"5/minute;20/hour"``, the ``limits``
library's); :mod:`kva.service.ratelimit` counts against them."""

from __future__ import annotations

from limits import RateLimitItem, parse_many

#: Default limits, in the ``limits`` notation ("5/minute;20/hour": both apply).
DEFAULTS: dict[str, str] = {
    "login_ip": "30/minute;300/hour",
    "login_nickname_ip": "5/minute;20/hour",
    "login_nickname": "100/hour;500/day",
    "login_account": "10/minute;60/hour",
    "register_ip": "10/minute;50/hour",
    "table_password_ip": "10/minute;60/hour",
    "table_password_table": "10/minute;50/hour",
    "table_create_ip": "10/minute;60/hour",
    "bot_match_create_ip": "20/minute;120/hour",
    "guest_create_ip": "30/minute;300/hour",
    "analysis_ip": "10/minute;60/hour",
    "challenge_ip": "10/minute;60/hour",
}

#: Minutes a failed login marks its client and nickname suspect (KVA_LOGIN_SUSPECT_MINUTES).
SUSPECT_MINUTES = 15


def parse_limits(name: str, text: str) -> list[RateLimitItem]:
    """The limits in ``text`` (``"5/minute;20/hour"``); ValueError naming ``name`` if bad."""
    try:
        items = parse_many(text)
    except ValueError:
        items = []
    if not items:
        raise ValueError(f"{name} must look like '5/minute;20/hour', not {text!r}")
    return list(items)
