"""The player's settings page (``/settings``), the account's stored preferences, and the web app
manifest that lets a phone install the site.

Preferences live in the browser for everyone (``static/prefs.js`` applies them before the page
paints) and, for a registered player, also on the account: ``POST /settings`` stores a change
and answers the whole set. A guest's browser simply keeps them.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from kva.i18n import LANGUAGE_NAMES, LOCALES
from kva.service.accounts import preferences
from kva.service.accounts.preferences import PreferenceError
from kva.web.render import render, translator
from kva.web.security import origin_ok
from kva.web.services import services

router = APIRouter()
#: A change is a handful of short keys and values; anything longer is not one.
MAX_BODY = 512


@router.get("/settings")
async def settings_page(request: Request) -> Response:
    user = request.state.user
    registered = user is not None and user.kind == "registered"
    return render(request, "settings.html", {
        "prefs": preferences.of_user(user).as_dict(),
        "choices": preferences.CHOICES,
        "registered": registered,
        "languages": [(code, LANGUAGE_NAMES[code]) for code in LOCALES],
    })


def _refuse(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


@router.post("/settings")
async def save_settings(request: Request) -> Response:
    """Store a registered player's changed preferences (JSON ``{"theme": "dark"}``): 200 with
    the whole set; 400 ``bad_preference`` and nothing stored for a bad key or value; 403 for a
    guest (their browser keeps their settings) or a foreign page."""
    _ = translator(request)
    if not origin_ok(request):
        return _refuse(403, "bad_origin", _("That request came from another site."))
    user = request.state.user
    if user is None or user.kind != "registered":
        return _refuse(403, "guest", _("Settings are kept in this browser for guests."))
    body = await request.body()
    if len(body) > MAX_BODY:
        return _refuse(413, "too_large", _("That request was not understood."))
    try:
        changes: Any = json.loads(body or b"{}")
        if not isinstance(changes, dict) or not changes:
            raise PreferenceError("a change is an object of preferences")
        saved = await preferences.save(services(request).sessions, user, changes)
    except (ValueError, PreferenceError):
        return _refuse(400, "bad_preference", _("That setting does not exist."))
    return JSONResponse(saved.as_dict(), headers={"Cache-Control": "no-store"})


@router.get("/manifest.webmanifest")
async def manifest(request: Request) -> Response:
    """The web app manifest in the visitor's language: installs kva on a phone's home screen."""
    _ = translator(request)
    body = {
        "name": _("kva: domino"),
        "short_name": "kva",
        "description": _("Georgian domino and Kozel. Server-checked rules, no ads, no "
                         "tracking."),
        "lang": request.state.locale,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "background_color": "#f4f1ea",
        "theme_color": "#14532d",
        "icons": [
            {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png",
             "purpose": "any"},
            {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png",
             "purpose": "any"},
            {"src": "/static/icon-maskable-512.png", "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
            {"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return JSONResponse(body, media_type="application/manifest+json",
                        headers={"Cache-Control": "public, max-age=3600",
                                 "Vary": "Cookie, Accept-Language"})


def install(app: FastAPI) -> None:
    app.include_router(router)
