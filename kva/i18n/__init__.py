"""Languages of the site: which one a visitor gets, its translations, and local formatting.

kva speaks Georgian, English, Russian and Turkish. The message catalogs live in
``kva/locale/<lang>/LC_MESSAGES/messages.po`` (English is the source language; its catalog
exists so that English wording can be fixed without touching templates). ``scripts/i18n.sh``
extracts, updates and compiles them; a fresh clone works without that step because a missing
or stale ``.mo`` is compiled in memory from the ``.po`` on first use.

Everything here is pure and cached: one :class:`~babel.support.Translations` and one Jinja
environment per language for the life of the process.
"""

from __future__ import annotations

import datetime as _dt
import functools
import io
import re
from pathlib import Path
from typing import Any

import jinja2
from babel import Locale
from babel import core as babel_core
from babel import dates as babel_dates
from babel import numbers as babel_numbers
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

__all__ = [
    "COOKIE_NAME",
    "clear_caches",
    "compile_catalog",
    "template_globals",
    "DEFAULT_LOCALE",
    "DOMAIN",
    "LANGUAGE_NAMES",
    "LOCALES",
    "LOCALE_DIR",
    "format_date",
    "format_datetime",
    "format_number",
    "jinja_env",
    "negotiate_locale",
    "normalize_locale",
    "translations",
]

#: The site's languages, in the order the language switcher shows them.
LOCALES: tuple[str, ...] = ("ka", "en", "ru", "tr")
#: What a visitor gets when neither the cookie nor the browser names a language we have.
DEFAULT_LOCALE = "en"
#: Each language's name in that language (the switcher must be readable by its own speakers).
LANGUAGE_NAMES: dict[str, str] = {
    "ka": "ქართული",
    "en": "English",
    "ru": "Русский",
    "tr": "Türkçe",
}
#: The cookie that remembers an explicit choice (see docs/web-contract.md).
COOKIE_NAME = "kva_lang"
#: The gettext domain of every catalog.
DOMAIN = "messages"
#: ``kva/locale``: one ``<lang>/LC_MESSAGES/messages.po`` per language.
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

_TAG = re.compile(r"^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$")


def normalize_locale(code: str | None) -> str | None:
    """The supported language that ``code`` names (``"KA"``, ``"ka-GE"`` → ``"ka"``), or None."""
    if not code:
        return None
    code = code.strip()
    if not _TAG.match(code):
        return None
    primary = re.split(r"[-_]", code, maxsplit=1)[0].lower()
    return primary if primary in LOCALES else None


def _accept_language_tags(header: str) -> list[str]:
    """The language tags of an ``Accept-Language`` header, best first (q-ordered, stable).

    Malformed items are skipped rather than rejected: a browser header is untrusted input and
    a bad item must not cost the visitor the good ones. ``*`` and ``q=0`` items are dropped.
    """
    weighted: list[tuple[float, int, str]] = []
    for index, item in enumerate(header.split(",")):
        parts = [p.strip() for p in item.split(";")]
        tag = parts[0]
        if not tag or tag == "*" or not _TAG.match(tag):
            continue
        q = 1.0
        for param in parts[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = -1.0
        if not 0.0 < q <= 1.0:
            continue
        weighted.append((-q, index, tag))
    weighted.sort()
    return [tag for _, _, tag in weighted]


def negotiate_locale(cookie: str | None, accept_language: str | None) -> str:
    """The language to serve: the ``kva_lang`` cookie if it names one of ours, else the best
    match of the browser's ``Accept-Language`` (q-ordered; ``ka-GE`` matches ``ka``), else
    :data:`DEFAULT_LOCALE`."""
    chosen = normalize_locale(cookie)
    if chosen:
        return chosen
    if accept_language:
        # Bound the work an absurd header can cause; real browsers send a handful of items.
        tags = _accept_language_tags(accept_language[:1000])
        found = babel_core.negotiate_locale(tags, list(LOCALES), sep="-", aliases={})
        if found is None:
            found = babel_core.negotiate_locale(tags, list(LOCALES), sep="_", aliases={})
        if found:
            return found.lower()
    return DEFAULT_LOCALE


def _po_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def _mo_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.mo"


def compile_catalog(locale: str) -> bytes:
    """The ``.mo`` bytes for ``locale``'s ``.po`` (an empty catalog if there is none).

    Fuzzy entries are left out, as ``pybabel compile`` does: a guessed translation must not
    reach a player.
    """
    po = _po_path(locale)
    if po.exists():
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=locale, domain=DOMAIN)
    else:
        catalog = Catalog(locale=locale, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def translations(locale: str) -> Translations:
    """The translations of a supported ``locale`` (anything else gets the default's).

    Loads the compiled ``.mo``; compiles the ``.po`` in memory when the ``.mo`` is missing or
    older than the ``.po`` (so a fresh clone, or a catalog edited without ``scripts/i18n.sh``,
    still shows the current text).
    """
    return _load_translations(normalize_locale(locale) or DEFAULT_LOCALE)


@functools.cache
def _load_translations(locale: str) -> Translations:
    po, mo = _po_path(locale), _mo_path(locale)
    data: bytes | None = None
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        data = mo.read_bytes()
    if data is None:
        data = compile_catalog(locale)
    return Translations(fp=io.BytesIO(data), domain=DOMAIN)


def _babel_locale(locale: str) -> Locale:
    return Locale.parse(normalize_locale(locale) or DEFAULT_LOCALE)


def format_number(n: int | float, locale: str) -> str:
    """``n`` with the language's digit grouping and decimal mark (``1,234`` / ``1 234``)."""
    return babel_numbers.format_decimal(n, locale=_babel_locale(locale))


def number_symbols(locale: str) -> dict[str, str]:
    """The group and decimal marks and the percent pattern (``%#,##0`` in Turkish, ``#,##0 %``
    in Russian) of ``locale``'s numbers, for the pages' scripts: the browser's
    own ``Intl`` data may lack a language (Chromium writes Georgian numbers the English way), and
    a number the script writes must match the ones the server wrote beside it."""
    loc = _babel_locale(locale)
    return {"group": babel_numbers.get_group_symbol(loc),
            "decimal": babel_numbers.get_decimal_symbol(loc),
            "percent": loc.percent_formats[None].pattern}


def format_datetime(
    dt: _dt.datetime, locale: str, format: str = "medium", tzinfo: _dt.tzinfo | None = None
) -> str:
    """``dt`` as the language writes a date and time. Naive datetimes are taken as UTC."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.UTC)
    return babel_dates.format_datetime(
        dt, format=format, tzinfo=tzinfo or _dt.UTC, locale=_babel_locale(locale)
    )


def format_date(d: _dt.date, locale: str, format: str = "medium") -> str:
    """``d`` as the language writes a date (``Mar 5, 2026`` / ``5 мар. 2026 г.``)."""
    return babel_dates.format_date(d, format=format, locale=_babel_locale(locale))


def template_globals(locale: str) -> dict[str, Any]:
    """What every template may use besides ``_``/``ngettext``: the language and formatters."""
    locale = normalize_locale(locale) or DEFAULT_LOCALE
    return {
        "locale": locale,
        "LOCALES": LOCALES,
        "LANGUAGE_NAMES": LANGUAGE_NAMES,
        "format_number": lambda n: format_number(n, locale),
        "number_symbols": number_symbols(locale),
        "format_date": lambda d, fmt="medium": format_date(d, locale, fmt),
        "format_datetime": lambda dt, fmt="medium": format_datetime(dt, locale, fmt),
    }


def jinja_env(locale: str, loader: jinja2.BaseLoader) -> jinja2.Environment:
    """A Jinja environment for ``locale`` with ``loader`` (cached per language and loader).

    The i18n extension is installed with *newstyle* gettext: ``{{ _("Hi %(name)s", name=n) }}``
    escapes its arguments and formats them itself, so a literal percent sign in a message is
    written ``%%``. ``{% trans %}`` blocks work too. Autoescaping is on for HTML.
    """
    return _jinja_env(normalize_locale(locale) or DEFAULT_LOCALE, loader)


@functools.cache
def _jinja_env(locale: str, loader: jinja2.BaseLoader) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=loader,
        autoescape=jinja2.select_autoescape(["html", "htm", "xml"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(translations(locale), newstyle=True)  # type: ignore[attr-defined]
    env.globals.update(template_globals(locale))
    env.filters["number"] = lambda n: format_number(n, locale)
    env.filters["date"] = lambda d, fmt="medium": format_date(d, locale, fmt)
    env.filters["datetime"] = lambda dt, fmt="medium": format_datetime(dt, locale, fmt)
    return env


def clear_caches() -> None:
    """Forget every loaded catalog and environment (tests; a long-running process after
    ``scripts/i18n.sh`` would otherwise keep the texts it started with)."""
    _load_translations.cache_clear()
    _jinja_env.cache_clear()
