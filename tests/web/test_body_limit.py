"""No request body over ``KVA_MAX_BODY_BYTES`` is read: 413 when ``Content-Length`` says so
(before reading) and when a chunked body grows past the cap while it streams."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from kva.i18n import translations
from tests.helpers.accounts_help import registered

PATHS = ["/learn/step/1/check", "/learn/progress"]
BIG = 20 * 1024 * 1024


async def _chunks(total: int, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    yield b'{"done": ["'
    sent = 0
    while sent < total:
        yield b"x" * size
        sent += size
    yield b'"]}'


@pytest.mark.parametrize("path", PATHS)
async def test_a_declared_body_over_the_cap_is_refused_unread(
    make_server: Callable[..., Any], path: str
) -> None:
    server = make_server()
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        r = await http.post(path, content=b"x" * (64 * 1024 + 1),
                            headers={"content-type": "application/json",
                                     "accept-language": "ka"})
        assert r.status_code == 413
        assert r.json() == {"error": "too_big", "message": translations("ka").gettext(
            "A request may carry at most %(bytes)s bytes.") % {"bytes": 65536}}
        assert "65536" in r.json()["message"]


@pytest.mark.parametrize("path", PATHS)
async def test_a_chunked_body_growing_past_the_cap_is_refused(
    make_server: Callable[..., Any], path: str
) -> None:
    server = make_server(max_body_bytes=4096)
    # A registered player: /learn/progress reads the body only for one.
    v, _ = await registered(server.base_url)
    async with v:
        try:
            r = await v.http.post(path, content=_chunks(BIG), timeout=30,
                                  headers={"content-type": "application/json"})
        except (httpx.WriteError, httpx.RemoteProtocolError, httpx.ReadError):
            return  # the server answered and closed while the client was still sending
        assert r.status_code == 413
        assert "4096 bytes" in r.json()["message"]


async def test_a_body_within_the_cap_is_answered(make_server: Callable[..., Any]) -> None:
    server = make_server(max_body_bytes=4096)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        r = await http.post("/learn/step/1/check", content=json.dumps({"action": None}),
                            headers={"content-type": "application/json"})
        assert r.status_code == 200 and "ok" in r.json()
        r = await http.post("/learn/progress", content=json.dumps({"done": []}))
        assert r.status_code == 200 and r.json()["stored"] is False

        async def small() -> AsyncIterator[bytes]:
            yield b'{"done": '
            yield b"[]}"

        r = await http.post("/learn/progress", content=small())
        assert r.status_code == 200


@pytest.mark.parametrize("length", ["²", "٣", "１０", "-1", "1e3", "9" * 400])
async def test_a_content_length_of_no_plain_number_is_a_clear_400(length: str) -> None:
    from kva.web.bodylimit import BodyLimit

    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/learn/progress",
             "headers": [(b"content-length", length.encode())]}
    await BodyLimit(app, max_bytes=65536)(scope, receive, send)
    assert not reached
    assert sent[0]["status"] == 400
    assert json.loads(sent[1]["body"])["error"] == "bad_length"
