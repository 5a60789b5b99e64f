"""The earlier ``kva_session`` scheme (the user id signed with the secret key).

Sessions are server-side records now (:mod:`kva.service.sessions`); this codec only reads an
old cookie once, so its holder keeps their user and gets a real session in exchange.
"""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeSerializer

COOKIE = "kva_session"
MAX_AGE = 60 * 60 * 24 * 365


class SessionCodec:
    """Signs and reads the session cookie (the user id, nothing secret)."""

    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeSerializer(secret_key, salt="kva-session")

    def dumps(self, user_id: int) -> str:
        return self._serializer.dumps({"uid": user_id})

    def loads(self, cookie: str | None) -> int | None:
        """The user id in a valid cookie, None for a missing, forged or malformed one."""
        if not cookie or len(cookie) > 512:
            return None
        try:
            data = self._serializer.loads(cookie)
        except BadSignature:
            return None
        uid = data.get("uid") if isinstance(data, dict) else None
        return uid if isinstance(uid, int) and not isinstance(uid, bool) else None
