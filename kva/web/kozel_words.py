"""The words of the Kozel table, declared once for the catalogs and the table's script.

The table's script cannot call gettext, so it reads its texts from the page, as the Georgian
table reads ``#kva-strings`` (templates/_js_strings.html). The Kozel table's words are kept
apart from those, under their own element ``#kozel-strings`` (templates/_kozel_strings.html),
so that only a Kozel page carries them. They are written here rather than in the template
because a Python dict names each word once, with a key the script uses, and because
``N_`` marks them for extraction (``scripts/i18n.sh``) without translating them at import,
when no language is known yet.

The words are the ones players of each language say: Russian keeps «козёл», «рыба», «базар»;
the other languages use their own domino words, never a transliteration where one exists.
Placeholders are ``{name}``, filled in by the script.
"""

from __future__ import annotations

from typing import Final

from kva.i18n import translations

__all__ = ["TABLE_WORDS", "N_", "table_words"]


def N_(text: str) -> str:  # noqa: N802 (gettext's conventional marker name)
    """Mark ``text`` for extraction and return it untranslated: it is translated when a
    page is rendered, in that page's language."""
    return text


#: Every text the Kozel table shows, by the key its script uses.
TABLE_WORDS: Final[dict[str, str]] = {
    # The game and its loser.
    "game_name": N_("Kozel"),
    "goat": N_("the goat"),
    "goat_other": N_("{name} is the goat."),
    "goat_you": N_("You are the goat."),
    "goats_pair": N_("{names} are the goats."),
    # The table before the first deal.
    "seats_2": N_("2 players"),
    "seats_3": N_("3 players"),
    "seats_4": N_("4 players"),
    "free_seat": N_("Free seat"),
    "add_bot": N_("Add a bot"),
    "start_match": N_("Start the match"),
    "waiting_players": N_("Waiting for players ({n} of {m})"),
    # The options.
    "pair_game": N_("Pair game"),
    "pair_game_hint": N_("Partners sit opposite and share one score."),
    "fish_all": N_("Fish for all"),
    "fish_one": N_("Fish for one"),
    "limit": N_("The goat at {limit}"),
    # Play.
    "bazaar": N_("Bazaar"),
    "redeal": N_("Redeal: too many doubles or tiles of one number in a hand."),
    "knock": N_("Knock"),
    "knocks_other": N_("{name} knocks."),
    "knocks_you": N_("You knock."),
    # The end of a hand.
    "went_out_other": N_("{name} went out."),
    "went_out_you": N_("You went out."),
    "fish": N_("Fish"),
    "fisher": N_("The fisher"),
    "fisher_other": N_("Fish! {name} made it."),
    "fisher_you": N_("Fish! You made it."),
    "fish_tie": N_("Fish, and the largest count is shared: nobody scores, {points} carried."),
    # Scores.
    "score_open": N_("Score {points}"),
    "remembered": N_("Remembered points"),
    "remembered_points": N_("+{points} remembered"),
    "carry": N_("Fish carry: +{points}"),
}


def table_words(locale: str) -> dict[str, str]:
    """:data:`TABLE_WORDS` in ``locale``, for ``#kozel-strings``."""
    gettext = translations(locale).gettext
    return {key: gettext(text) for key, text in TABLE_WORDS.items()}
