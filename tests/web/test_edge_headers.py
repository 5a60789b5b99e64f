"""Every page carries a strict Content-Security-Policy and the other security headers, the
templates hold nothing that policy would block, and every cookie is ``Secure`` when
``KVA_SECURE_COOKIES`` is on."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import kva.web
from tests.helpers.webhelp import Visitor

TEMPLATES = Path(kva.web.__file__).parent / "templates"
PAGES = ["/", "/lobby", "/help", "/ratings", "/learn", "/strategy", "/rules/kozel", "/login",
         "/register", "/bots", "/no-such-page", "/u/nobody-here", "/t/no-such-table",
         "/m/nomatch"]
POLICY = {
    "default-src": "'self'", "script-src": "'self'", "style-src": "'self'",
    "img-src": "'self' data:", "connect-src": "'self'", "frame-ancestors": "'none'",
    "base-uri": "'self'", "form-action": "'self'", "object-src": "'none'",
}


def _policy(header: str) -> dict[str, str]:
    parts = [p.strip().split(None, 1) for p in header.split(";") if p.strip()]
    return {p[0]: p[1] if len(p) > 1 else "" for p in parts}


async def test_every_page_carries_the_security_headers(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        match_id = await v.new_match("bot:easy")
        for path in [*PAGES, f"/m/{match_id}"]:
            r = await v.http.get(path)
            assert r.status_code in (200, 404), (path, r.status_code)
            assert _policy(r.headers["content-security-policy"]) == POLICY, path
            assert r.headers["x-content-type-options"] == "nosniff", path
            assert r.headers["referrer-policy"] == "same-origin", path


def test_templates_hold_no_inline_script_style_or_handler() -> None:
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text()
        assert not re.search(r"\sstyle=", text), template.name
        assert not re.search(r"\son[a-z]+=", text), template.name
        assert "javascript:" not in text, template.name
        for tag in re.findall(r"<script\b[^>]*>", text):
            # Executed scripts are files; inline blocks are JSON data only.
            assert 'src="/static/' in tag or 'type="application/json"' in tag, (
                template.name, tag)


def _lang_cookie(r: httpx.Response) -> str:
    cookies = [c for c in r.headers.get_list("set-cookie") if c.startswith("kva_lang=")]
    assert len(cookies) == 1
    return cookies[0].lower()


@pytest.mark.parametrize("secure", [False, True])
async def test_the_language_cookie_is_secure_with_kva_secure_cookies(
    make_server: Callable[..., Any], secure: bool
) -> None:
    server = make_server(secure_cookies=secure)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        cookie = _lang_cookie(await http.get("/lang/ka?next=/"))
    assert ("; secure" in cookie) is secure
    assert "; httponly" in cookie and "samesite=lax" in cookie


@pytest.mark.parametrize("secure", [False, True])
async def test_the_session_cookie_is_secure_with_kva_secure_cookies(
    make_server: Callable[..., Any], secure: bool
) -> None:
    server = make_server(secure_cookies=secure)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/quick?target=75")
        cookie = next(c for c in r.headers.get_list("set-cookie")
                      if c.startswith("kva_session=")).lower()
    assert ("; secure" in cookie) is secure
    assert "; httponly" in cookie and "samesite=lax" in cookie
