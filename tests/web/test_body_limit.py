"""No request body over ``KVA_MAX_BODY_BYTES`` is read: 413 when ``Content-Length`` says so
(before reading) and when a chunked body grows past the cap while it streams; 408 for a body
that has not all arrived within ``KVA_BODY_TIMEOUT``; the site's security headers on both."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from kva.i18n import translations
from kva.web.headers import SECURITY_HEADERS
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


def _trickle(host: str, port: int, seconds: float) -> bytes:
    """Send a request whose 100-byte body comes a byte at a time for ``seconds``; what the
    server answered (b"" if it answered nothing before the trickle ended)."""
    with socket.create_connection((host, port), timeout=seconds + 10) as sock:
        sock.sendall(b"POST /learn/step/1/check HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        sock.setblocking(False)
        answer = b""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not answer:
            try:
                answer = sock.recv(4096)  # read first: the answer may precede a reset
            except BlockingIOError:
                sock.send(b" ")
                time.sleep(0.1)
        sock.setblocking(True)
        while answer and not answer.endswith(b"}"):
            more = sock.recv(4096)
            if not more:
                break
            answer += more
        return answer


async def test_a_trickled_body_is_answered_408_when_its_time_is_up(
    make_server: Callable[..., Any]
) -> None:
    server = make_server(body_timeout=1.0)
    url = httpx.URL(server.base_url)
    started = time.monotonic()
    answer = await asyncio.to_thread(_trickle, url.host, url.port or 80, 8.0)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert time.monotonic() - started < 5
    head, _, body = answer.partition(b"\r\n\r\n")
    assert json.loads(body)["error"] == "body_timeout"
    assert b"connection: close" in head.lower()


async def test_a_body_within_its_time_is_answered(make_server: Callable[..., Any]) -> None:
    server = make_server(body_timeout=1.0)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        r = await http.post("/learn/progress", content=json.dumps({"done": []}))
        assert r.status_code == 200


async def test_the_413_answer_carries_the_security_headers(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        r = await http.post("/learn/progress", content=b"x" * (64 * 1024 + 1))
    assert r.status_code == 413
    for name, value in SECURITY_HEADERS.items():
        assert r.headers.get(name) == value, name


async def test_a_server_error_carries_the_security_headers_and_still_raises() -> None:
    from kva.web.bodylimit import BodyLimit

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("a bug")

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "GET", "path": "/", "headers": []}
    with pytest.raises(RuntimeError):
        await BodyLimit(app)(scope, receive, send)
    assert sent[0]["status"] == 500
    headers = {name.decode(): value.decode() for name, value in sent[0]["headers"]}
    for name, value in SECURITY_HEADERS.items():
        assert headers[name.lower()] == value, name


async def test_an_unhandled_error_is_a_500_with_the_security_headers(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()

    async def broken() -> None:
        raise RuntimeError("a bug")

    server.app.add_api_route("/broken-for-test", broken)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        r = await http.get("/broken-for-test")
    assert r.status_code == 500 and "Traceback" not in r.text
    for name, value in SECURITY_HEADERS.items():
        assert r.headers.get(name) == value, name
