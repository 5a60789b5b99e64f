"""Which characters pass for which: the table nickname skeletons are made with.

Built once, from the Unicode confusables data (UTS #39, ``confusables.txt``) that the
``confusable-homoglyphs`` package ships as JSON (only that file is read: none of the
package's functions is called, and nothing is fetched). That JSON lists each confusable pair
in both directions, so the pairs of single characters are joined into classes (a prototype
and every character mapped to it), and a character mapped to a sequence (``m`` to ``rn``)
keeps its sequence. Each class is written as one representative, an ASCII letter or digit
where the class has one.

Three additions, since a nickname is casefolded before it is compared (UTS #39 compares
without casefolding, and so misses what a capital looks like):

* ``i`` and ``l`` are one class: ``I`` and ``l`` are one glyph in many fonts, and ``I``
  casefolds to ``i``, so ``ADMlN`` passes for ``ADMIN`` and hence for ``admin``.
* A Latin small capital (``ᴀ``, ``ɪ``, ``ɴ``) joins its letter's class: the data maps it to
  nothing, but in a name it reads as that letter.
* :data:`EXTRA` joins the look-alikes the data lacks or keeps apart (``ꞁ``, a turned ``l``,
  and the Cyrillic and Greek letters the site's own earlier table joined to Latin ones, so
  that every skeleton stored before stays a skeleton of the same names).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

#: Look-alikes joined on top of the data: each key with the letter it passes for.
EXTRA: dict[str, str] = {
    "i": "l", "ꞁ": "l",
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
#: The marks the data puts around right-to-left characters; not part of them.
_DIRECTION_MARKS = "\u200e\u200f"
_SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
#: The blocks that hold Latin small capitals: IPA Extensions, Phonetic Extensions (and their
#: supplement), Latin Extended-D, Latin Extended-E and Latin Extended-G.
_LATIN_EXTENSIONS = ((0x0250, 0x02AF), (0x1D00, 0x1DBF), (0xA720, 0xA7FF), (0xAB30, 0xAB6F),
                     (0x1DF00, 0x1DFFF))


def _pairs() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The data's pairs of single characters, and its characters mapped to sequences."""
    data = json.loads(resources.files("confusable_homoglyphs")
                      .joinpath("confusables.json").read_text(encoding="utf-8"))
    pairs: list[tuple[str, str]] = []
    sequences: dict[str, str] = {}
    for key, entries in data.items():
        source = key.strip(_DIRECTION_MARKS)
        if len(source) != 1:
            continue  # a sequence's own entry: the same pairs, the other way round
        for entry in entries:
            target = entry["c"].strip(_DIRECTION_MARKS)
            if len(target) == 1:
                pairs.append((source, target))
            elif target:
                sequences[source] = target
    return pairs, sequences


class _Classes:
    """Characters joined into classes (union-find)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, ch: str) -> str:
        root = self.parent.setdefault(ch, ch)
        while root != self.parent[root]:
            root = self.parent[root]
        while ch != root:
            ch, self.parent[ch] = self.parent[ch], root
        return root

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def _rank(ch: str) -> tuple[int, str]:
    """Which member writes a class: an ASCII lowercase letter, else a digit, else the
    lowest code point."""
    if "a" <= ch <= "z":
        return 0, ch
    return (1, ch) if "0" <= ch <= "9" else (2, ch)


@functools.cache
def table() -> dict[str, str]:
    """Each confusable character (casefolded) and what it is written as in a skeleton."""
    pairs, sequences = _pairs()
    classes = _Classes()
    for a, b in pairs:
        classes.join(a, b)
    for a, b in EXTRA.items():
        classes.join(a, b)
    for lo, hi in _LATIN_EXTENSIONS:
        for cp in range(lo, hi + 1):
            small = _SMALL_CAPITAL.fullmatch(unicodedata.name(chr(cp), ""))
            if small:
                classes.join(chr(cp), small.group(1).lower())
    members: dict[str, list[str]] = {}
    for ch in list(classes.parent):
        members.setdefault(classes.find(ch), []).append(ch)
    chosen = {root: min(group, key=_rank) for root, group in members.items()}

    def written(ch: str, depth: int = 0) -> str:
        rep = chosen.get(classes.find(ch), ch) if ch in classes.parent else ch
        expansion = sequences.get(rep)
        if expansion is None or depth > 3:
            return rep
        return "".join(written(part, depth + 1) for part in expansion)

    first = {ch: written(ch) for ch in classes.parent | dict.fromkeys(sequences)}

    def settled(text: str) -> str:
        # A representative may be a capital (a class of capitals has no lowercase ASCII
        # member): fold it and map again, until nothing changes, so a skeleton is its own.
        for _ in range(8):
            again = "".join(first.get(ch, ch) for ch in fold(text))
            if again == text:
                break
            text = again
        return text

    return {ch: out for ch in first if (out := settled(first[ch])) != ch}


def fold(text: str) -> str:
    """NFKC, casefolded, NFKC again: the form a nickname is compared in before the table."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
