"""A player's settings: each preference takes only its own values, a registered player's are
stored with the account and come back on every page (so another device gets them before it
paints), a guest's stay in the browser, and bad input changes nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from kva.service.accounts.preferences import DEFAULT, PreferenceError, Preferences, of_user
from kva.storage.models import User
from tests.helpers.accounts_help import login, registered
from tests.helpers.webhelp import Visitor


def _account_prefs(page: str) -> dict[str, str] | None:
    found = re.search(r'data-account-prefs="([^"]*)"', page)
    if found is None:
        return None
    loaded: dict[str, str] = json.loads(found.group(1).replace("&#34;", '"')
                                        .replace("&quot;", '"'))
    return loaded


def test_preferences_default_to_quiet_still_and_the_device_theme() -> None:
    assert Preferences(sound="off", motion="system", theme="system", confirm="off",
                                  notify="off", board="normal") == DEFAULT


@pytest.mark.parametrize("change", [{"theme": "purple"}, {"volume": "11"}, {"sound": True},
                                    {"sound": "on", "theme": "neon"}])
def test_a_preference_takes_only_its_own_values(change: dict[str, Any]) -> None:
    with pytest.raises(PreferenceError):
        DEFAULT.with_changes(change)


def test_a_stored_value_that_no_longer_parses_falls_back_to_the_default() -> None:
    user = User(nickname="x", kind="registered")
    user.preferences = '{"theme": "dark", "old": "x", "sound": "loud"}'
    assert of_user(user) == Preferences(theme="dark")
    user.preferences = "not json"
    assert of_user(user) == DEFAULT


async def test_a_registered_players_settings_follow_them(make_server: Callable[..., Any]) -> None:
    server = make_server()
    player, name = await registered(server.base_url, "sofo")
    r = await player.http.post("/settings", json={"theme": "dark", "sound": "on"})
    assert r.status_code == 200, r.text
    assert r.json()["theme"] == "dark" and r.json()["sound"] == "on"
    # Another device: a fresh login sees them on every page, before any script runs.
    async with Visitor(server.base_url) as other:
        assert (await login(other, name)).status_code == 303
        page = (await other.http.get("/lobby")).text
        assert _account_prefs(page) == {**DEFAULT.as_dict(), "theme": "dark", "sound": "on"}
        settings = (await other.http.get("/settings")).text
        assert 'value="dark" data-testid="pref-theme-dark" checked' in settings
    await player.http.aclose()


async def test_bad_settings_are_refused_and_change_nothing(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    player, _name = await registered(server.base_url, "dato")
    for body in ({"theme": "purple"}, {"nope": "on"}, [], {}, "x" * 600):
        r = await player.http.post("/settings", json=body)
        assert r.status_code in (400, 413), (body, r.status_code)
        assert r.json()["error"] in ("bad_preference", "too_large")
    r = await player.http.post("/settings", content=b"{not json",
                               headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert _account_prefs((await player.http.get("/")).text) == DEFAULT.as_dict()
    # another site's page cannot change them
    r = await player.http.post("/settings", json={"theme": "dark"},
                               headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert _account_prefs((await player.http.get("/")).text) == DEFAULT.as_dict()
    await player.http.aclose()


async def test_a_guests_settings_stay_in_the_browser(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as guest:
        page = (await guest.http.get("/settings")).text
        assert "Kept in this browser" in page and _account_prefs(page) is None
        r = await guest.http.post("/settings", json={"theme": "dark"})
        assert r.status_code == 403 and r.json()["error"] == "guest"


async def test_the_site_installs_as_an_app_in_the_visitors_language(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        assert 'rel="manifest" href="/manifest.webmanifest"' in (await v.http.get("/")).text
        v.http.cookies.set("kva_lang", "ka")
        r = await v.http.get("/manifest.webmanifest")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/manifest+json")
        manifest = r.json()
        # Its language comes from the cookie or, without one, from Accept-Language.
        assert {part.strip() for part in r.headers["vary"].split(",")} == {
            "Cookie", "Accept-Language"}
        assert manifest["lang"] == "ka" and manifest["display"] == "standalone"
        assert manifest["start_url"] == "/"
        sizes = {icon["sizes"] for icon in manifest["icons"]}
        assert {"192x192", "512x512"} <= sizes
        for icon in manifest["icons"]:
            got = await v.http.get(icon["src"])
            assert got.status_code == 200 and got.headers["content-type"] == icon["type"]
            if icon["type"] == "image/png":
                assert got.content[:8] == b"\x89PNG\r\n\x1a\n"
