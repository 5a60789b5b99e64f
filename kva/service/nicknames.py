"""Nicknames: what a player may be called, and when two names are "the same".

A name is normalised (NFKC, trimmed) and then refused if it has an invisible or
default-ignorable character (the Hangul fillers make a blank-looking name), a character that is
not a letter, an ASCII digit, ``_`` or ``-``, a letter outside the alphabets of the site's
languages (Latin with the Turkish letters, Georgian Mkhedruli and its Mtavruli capitals,
Cyrillic: Cherokee ``ᎪᏴᎬᎡ``, Armenian ``հօօհ``, Lisu or Greek letters would pass for Latin
ones), or letters of more than one of those (``nіnо`` with a Cyrillic ``і`` and ``о``). Only
registration checks this: a name stored earlier still logs in. Two names are the same player
when their **skeletons** are equal: casefolded, then every Cyrillic, Greek or Latin look-alike
replaced by the Latin letter it passes for (``nino``, ``Nino`` and an all-Cyrillic
``пinо``-style forgery meet at ``nino``; Greek stays for names registered before it was
refused). Reserved prefixes (``guest``, ``bot``) are compared on the skeleton too. Standard
library only; used by the accounts service and the migration that stored the skeletons
(``users.nickname_key``).
"""

from __future__ import annotations

import re
import unicodedata

NICKNAME_MIN, NICKNAME_MAX = 3, 20
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

#: Look-alikes (after casefolding) and the Latin letter each passes for. Outputs are plain
#: ASCII letters that are not keys themselves, so a skeleton's skeleton is itself.
_CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "г": "r", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h",
    "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ь": "b",
    "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h",
    "ү": "y", "ӏ": "l", "ѵ": "v", "ɡ": "g",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "ζ": "z", "η": "n", "ι": "i", "κ": "k",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "μ": "u",
    "ς": "c", "ϲ": "c", "ϳ": "j",
    # Latin look-alikes and digits
    "ı": "i", "ɑ": "a", "ǀ": "l", "ɩ": "i", "ʋ": "u", "0": "o", "1": "l",
}
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
    """The form two nicknames are compared in: NFKC, casefolded, look-alikes replaced."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(_CONFUSABLES.get(ch, ch) for ch in folded)


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
    if skeleton(name).startswith(RESERVED_PREFIXES):
        raise NicknameError("nickname_reserved", "that nickname is reserved")
    return name
