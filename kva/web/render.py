"""Render a page in the visitor's language: one cached Jinja environment per language."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from kva.i18n import jinja_env
from kva.i18n.plurals import counted_texts
from kva.service.accounts import preferences
from kva.settings.clocks import PRESETS
from kva.web.kozel_words import table_words

TEMPLATES = Path(__file__).with_name("templates")
#: Where the pages' templates are read from. :func:`kva.i18n.jinja_env` keeps one environment
#: per language for it, so whoever adds a global there (the bot API) passes this very loader.
TEMPLATE_LOADER = jinja2.FileSystemLoader(str(TEMPLATES))


def render(request: Request, name: str, context: dict[str, Any] | None = None,
           status_code: int = 200) -> HTMLResponse:
    """``name`` rendered for this request's language, user and path."""
    locale: str = request.state.locale
    env = jinja_env(locale, TEMPLATE_LOADER)
    if "js_strings" not in env.globals:
        env.globals["js_strings"] = _js_strings(env)
        env.globals["counted_texts"] = functools.partial(counted_texts, locale)
        env.globals["kozel_words"] = functools.partial(table_words, locale)
        env.globals["clock_presets"] = PRESETS  # the clock field's times, unless the app's
    user = getattr(request.state, "user", None)
    ctx = {
        "request": request,
        "user": user,
        # A registered player's stored preferences win over the browser's (static/prefs.js).
        "account_prefs": (preferences.of_user(user).to_json()
                          if user is not None and user.kind == "registered" else None),
        "here": request.url.path + (f"?{request.url.query}" if request.url.query else ""),
    }
    services = getattr(request.app.state, "services", None)
    if services is not None:  # KVA_CLOCK_PRESETS: the times the forms offer
        ctx["clock_presets"] = services.play.clock_presets
    ctx.update(context or {})
    html = env.get_template(name).render(ctx)
    return HTMLResponse(html, status_code=status_code)


def _js_strings(env: jinja2.Environment) -> Callable[[], Markup]:
    """``js_strings()`` for the pages of ``env``: templates/_js_strings.html (every text the
    JavaScript shows, in the environment's language), rendered once, as it depends on the
    language alone. It took half of the CPU of rendering a game page."""
    @functools.cache
    def js_strings() -> Markup:
        return Markup(env.get_template("_js_strings.html").render())

    return js_strings


def translator(request: Request):  # type: ignore[no-untyped-def]
    """The request language's ``gettext`` for messages built in Python."""
    from kva.i18n import translations

    return translations(request.state.locale).gettext
