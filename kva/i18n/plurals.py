"""Counted texts for the pages' scripts, in each language's plural forms.

A script counts at run time ("All 1 deal verified", "3 pips"), so it cannot call ``ngettext``
itself. For every counted text this module gives the script one form per CLDR plural category
of the language (``one``, ``few``, ``many``, ``other``: what the browser's
``Intl.PluralRules`` answers), each taken from the catalog with ``ngettext`` for a number of that
category. The catalogs hold the real plural forms: Russian three, Georgian and Turkish one (the
noun after a numeral stays singular there), English two.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from babel import Locale

from kva.i18n import translations

NGettext = Callable[[str, str, int], str]
#: Numbers to try for a category's sample: whole numbers first, then a fraction (CLDR's
#: ``other`` of Russian holds only fractions).
_CANDIDATES: tuple[float, ...] = (*range(0, 200), 1.5)


def _texts(ngettext: NGettext, n: int) -> dict[str, str]:
    """Every counted text of the scripts, for count ``n`` (``{n}`` is the formatted count)."""
    return {
        "fair_verified": ngettext("All {n} deal verified", "All {n} deals verified", n),
        "win_chance": ngettext("{n} point of win chance", "{n} points of win chance", n),
        "analysis_points": ngettext("{n} point", "{n} points", n),
        "hand_pips": ngettext("{n} pip", "{n} pips", n),
        "tiles": ngettext("{n} tile", "{n} tiles", n),
        "kozel_waiting": ngettext("Waiting for {n} more player.", "Waiting for {n} more players.",
                                  n),
        "kozel_seats_free": ngettext("{n} seat free", "{n} seats free", n),
    }


def samples(locale: str) -> dict[str, float]:
    """A number of each of ``locale``'s CLDR plural categories, e.g. ``{"one": 1, "few": 2,
    "many": 0, "other": 1.5}`` for Russian."""
    rule = Locale.parse(locale).plural_form
    found: dict[str, float] = {}
    for n in _CANDIDATES:
        found.setdefault(rule(n), n)
    return found


@functools.cache
def counted_texts(locale: str) -> dict[str, dict[str, str]]:
    """Each counted text → {CLDR category → its form in ``locale``}."""
    ngettext = translations(locale).ngettext
    by_category = {cat: _texts(ngettext, int(n) if n == int(n) else 2)  # gettext counts whole
                   for cat, n in samples(locale).items()}
    keys = next(iter(by_category.values())).keys()
    return {key: {cat: texts[key] for cat, texts in by_category.items()} for key in keys}
