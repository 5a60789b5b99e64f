"""Nicknames: what a player may be called, and when two names are "the same".

A name is normalised (NFKC, trimmed) and then refused if it has an invisible or
default-ignorable character (the Hangul fillers make a blank-looking name), a character that is
not a letter, an ASCII digit, ``_`` or ``-``, a letter outside the alphabets of the site's
languages (Latin with the Turkish letters, Georgian Mkhedruli and its Mtavruli capitals,
Cyrillic: Cherokee ``ᎪᏴᎬᎡ``, Armenian ``հօօհ``, Lisu or Greek letters would pass for Latin
ones), or letters of more than one of those (``nіnо`` with a Cyrillic ``і`` and ``о``). Only
registration checks this: a name stored earlier still logs in. Two names are the same player
when their **skeletons** are equal: casefolded, then every character replaced by what it
passes for, per the Unicode confusables data (UTS #39) and a few additions
(:mod:`kva.service.accounts.confusables`: small capitals, ``I`` and ``l`` as one). ``nino``,
``Nino``
and an all-Cyrillic ``пinо``-style forgery meet at one skeleton, and so do ``admin324``,
``ᴀᴅᴍɪɴ324`` and ``admǀn324``. Reserved prefixes (``guest``, ``bot``) are compared on the
skeleton too. Used by the accounts service and the migrations that stored the skeletons
(``users.nickname_key``).
"""

from __future__ import annotations

import re
import unicodedata

from kva.service.accounts.confusables import fold, table

NICKNAME_MIN, NICKNAME_MAX = 3, 20
#: The longest skeleton stored (``users.nickname_key``): a letter may pass for two or more
#: (``m`` for ``rn``), so a name whose skeleton is longer is refused.
KEY_MAX = 40
#: Skeleton prefixes nobody may register: they would pass for a guest or a bot.
RESERVED_PREFIXES = ("guest", "bot")
#: Letters of any script, ASCII digits, ``_`` and ``-``; starting with a letter or a digit.
_NICKNAME = re.compile(r"^[^\W_][\w-]*$")

#: Default-ignorable and invisible code points (Unicode's DerivedCoreProperties list, the
#: ranges that matter for names), refused outright.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)

#: Script groups whose letters may share one name (Japanese mixes kana and kanji).
_SCRIPT_GROUPS = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HALFWIDTH": "CJK"}
#: The alphabets of the site's languages; a letter of any other script is refused, since each
#: of them has letters that pass for Latin, Georgian or Cyrillic ones.
ALPHABETS = ("LATIN", "GEORGIAN", "CYRILLIC")
#: Georgian letters allowed: Mkhedruli, written today, and Mtavruli, its capitals (they casefold
#: to Mkhedruli, so ``ᲜᲘᲜᲝ`` and ``ნინო`` are one name). Asomtavruli and Nuskhuri, the
#: ecclesiastical scripts, are refused: nobody types them, and they fold apart from Mkhedruli.
_GEORGIAN = ((0x10D0, 0x10FF), (0x1C90, 0x1CBF))


class NicknameError(ValueError):
    """A refused nickname; ``code`` says why (``nickname_length``, ``nickname_chars``,
    ``nickname_alphabet``, ``nickname_scripts``, ``nickname_reserved``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _ignorable(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


def script_of(ch: str) -> str | None:
    """The script of a letter (the first word of its Unicode name: ``LATIN``, ``GEORGIAN``,
    ``CYRILLIC``…), None for digits, ``_`` and ``-``."""
    if ch in "_-" or ch.isdigit():
        return None
    word = unicodedata.name(ch, "UNKNOWN").split(" ", 1)[0]
    return _SCRIPT_GROUPS.get(word, word)


def in_alphabets(ch: str) -> bool:
    """Whether ``ch`` is a digit, ``_``, ``-`` or a letter of :data:`ALPHABETS`."""
    script = script_of(ch)
    if script == "GEORGIAN":
        return any(lo <= ord(ch) <= hi for lo, hi in _GEORGIAN)
    return script is None or script in ALPHABETS


def skeleton(name: str) -> str:
    """The form two nicknames are compared in: NFKC, casefolded, look-alikes replaced (the
    same for a skeleton's skeleton)."""
    confusable = table()
    return "".join(confusable.get(ch, ch) for ch in fold(name))


def check(nickname: str) -> str:
    """``nickname`` normalised (NFKC, trimmed) if it is acceptable; else NicknameError."""
    name = unicodedata.normalize("NFKC", nickname).strip()
    if any(_ignorable(ch) for ch in name) or not name.isprintable():
        raise NicknameError("nickname_chars", "a nickname may not have invisible characters")
    if not NICKNAME_MIN <= len(name) <= NICKNAME_MAX:
        raise NicknameError("nickname_length",
                            f"a nickname has {NICKNAME_MIN} to {NICKNAME_MAX} characters")
    if not _NICKNAME.match(name) or any(ch.isdigit() and not ch.isascii() for ch in name):
        raise NicknameError("nickname_chars",
                            "a nickname has letters, digits, '_' and '-', starting with a "
                            "letter or digit")
    if not all(map(in_alphabets, name)):
        raise NicknameError("nickname_alphabet",
                            "a nickname has Latin (Turkish included), Georgian or Cyrillic "
                            "letters only")
    scripts = {s for s in map(script_of, name) if s is not None}
    if len(scripts) > 1:
        raise NicknameError("nickname_scripts",
                            "a nickname has letters of one script (not mixed)")
    if len(skeleton(name)) > KEY_MAX:
        raise NicknameError("nickname_length",
                            f"a nickname has {NICKNAME_MIN} to {NICKNAME_MAX} characters")
    if skeleton(name).startswith(tuple(map(skeleton, RESERVED_PREFIXES))):
        raise NicknameError("nickname_reserved", "that nickname is reserved")
    return name
