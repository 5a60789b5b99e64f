"""The message catalogs: complete, current, and faithful to their source strings.

Every language must translate exactly the strings the code and templates use today (the same
extraction ``scripts/i18n.sh`` runs, per ``babel.cfg``), with no empty and no fuzzy entry, and
every translation must keep the source's placeholders and markup, or a page would show a raw
``%(name)s``, crash on formatting, or lose a link. Adding an untranslated string fails here.
"""

from __future__ import annotations

import ast
import io
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

import kva.i18n as i18n
from kva.i18n import LOCALES

ROOT = Path(__file__).resolve().parents[2]
#: Source strings a language may keep as written (brand names, symbols, and the game Kozel,
#: whose name Turkish takes as it is).
UNTRANSLATED_OK = {"kva", "ქვა", "kva — ქვა", "Domino Coin", "OK", "Kozel"}

_PERCENT = re.compile(
    r"%(?:\((?P<name>[A-Za-z_][A-Za-z0-9_]*)\))?[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc%]"
)
_BRACE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:[!:][^{}]*)?\}")
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
_GEORGIAN = re.compile(r"[\u10a0-\u10ff\u1c90-\u1cbf\u2d00-\u2d2f]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")


def _key(message: Message) -> tuple[str, str | None]:
    """A message's identity: its singular id and its context."""
    mid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return mid, message.context


def extracted() -> dict[tuple[str, str | None], Message]:
    """Every marked string in the code and templates, extracted exactly as scripts/i18n.sh does."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as fh:
        method_map, options_map = parse_mapping_cfg(fh, str(ROOT / "babel.cfg"))
    catalog = Catalog()
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return {_key(m): m for m in catalog if m.id}


def load_po(locale: str) -> Catalog:
    path = i18n.LOCALE_DIR / locale / "LC_MESSAGES" / "messages.po"
    assert path.exists(), f"{path} is missing: run scripts/i18n.sh"
    with path.open("rb") as fh:
        return read_po(fh, locale=locale)


def entries(catalog: Catalog) -> Iterator[Message]:
    """The catalog's messages, without the header entry."""
    return (m for m in catalog if m.id)


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple | list) else [message.string]


def _sources(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple | list) else [message.id]


def placeholders(text: str) -> Counter[str]:
    """The formatting placeholders in ``text`` (``%(n)s``, ``%d``, ``{n}``), counted; not ``%%``."""
    found = Counter(m.group(0) for m in _PERCENT.finditer(text) if m.group(0) != "%%")
    found.update(_BRACE.findall(text))
    return found


def _text_only(text: str) -> str:
    """``text`` without its placeholders and markup: the words a translator translates."""
    return _TAG.sub("", _PERCENT.sub("", _BRACE.sub("", text)))


def tags(text: str) -> Counter[str]:
    """The HTML element names opened or closed in ``text``, counted."""
    return Counter(_TAG.findall(text))


@pytest.mark.parametrize("locale", LOCALES)
def test_catalog_matches_the_extracted_strings(locale: str) -> None:
    """The catalog holds exactly the strings in use: none missing, none stale."""
    want = extracted()
    have = {_key(m): m for m in entries(load_po(locale))}
    missing = sorted(k[0] for k in set(want) - set(have))
    stale = sorted(k[0] for k in set(have) - set(want))
    assert not missing, f"{locale}: strings not in the catalog (run scripts/i18n.sh): {missing}"
    assert not stale, f"{locale}: strings no longer used (run scripts/i18n.sh): {stale}"
    wrong_plural = sorted(k[0] for k in want if want[k].pluralizable != have[k].pluralizable)
    assert not wrong_plural, f"{locale}: singular/plural mismatch: {wrong_plural}"


@pytest.mark.parametrize("locale", LOCALES)
def test_catalog_is_complete(locale: str) -> None:
    """Every entry is translated (every plural form), and none is fuzzy or obsolete."""
    catalog = load_po(locale)
    fuzzy = sorted(m.id if isinstance(m.id, str) else m.id[0] for m in entries(catalog) if m.fuzzy)
    assert not fuzzy, f"{locale}: fuzzy entries: {fuzzy}"
    empty = []
    for message in entries(catalog):
        forms = _forms(message)
        want_forms = catalog.num_plurals if message.pluralizable else 1
        if len(forms) != want_forms or not all(f and f.strip() for f in forms):
            empty.append(_key(message)[0])
    assert not empty, f"{locale}: untranslated entries: {sorted(empty)}"
    assert not catalog.obsolete, f"{locale}: obsolete entries: {sorted(catalog.obsolete)}"
    assert catalog.locale is not None and str(catalog.locale) == locale


@pytest.mark.parametrize("locale", LOCALES)
def test_translations_keep_placeholders_and_markup(locale: str) -> None:
    """A translation keeps every placeholder and HTML tag of its source, and adds none.

    A lone ``%`` is written ``%%``: templates use newstyle gettext, which always formats.
    """
    problems = []
    for message in entries(load_po(locale)):
        sources = _sources(message)
        allowed = [placeholders(s) for s in sources]
        for form in _forms(message):
            if not form:
                continue
            got = placeholders(form)
            if got not in allowed:
                problems.append(f"{sources[0]!r}: placeholders {dict(got)} in {form!r}")
            if tags(form) != tags(sources[-1]):
                problems.append(f"{sources[0]!r}: tags {dict(tags(form))} in {form!r}")
            bare = _PERCENT.sub("", form)
            if "%" in bare:
                problems.append(f"{sources[0]!r}: lone % in {form!r} (write %%)")
            dummy = {name: 1 for name in re.findall(r"%\((\w+)\)", form)}
            if dummy:
                try:
                    form % dummy
                except (KeyError, ValueError, TypeError) as exc:
                    problems.append(f"{sources[0]!r}: {form!r} does not format: {exc}")
    assert not problems, f"{locale}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("locale", "script"), [("ka", _GEORGIAN), ("ru", _CYRILLIC)])
def test_translations_are_in_the_right_script(locale: str, script: re.Pattern[str]) -> None:
    """Georgian and Russian texts are written in their own script (catches copied English)."""
    latin_only = [
        m.id
        for m in entries(load_po(locale))
        if _key(m)[0] not in UNTRANSLATED_OK
        and _LATIN.search(_text_only(_key(m)[0]))
        and not all(script.search(f) for f in _forms(m))
    ]
    assert not latin_only, f"{locale}: translations not in the {locale} script: {latin_only}"


def test_turkish_is_not_copied_english() -> None:
    """Turkish shares the Latin script, so check that texts differ from the English source."""
    copied = [
        m.id
        for m in entries(load_po("tr"))
        if _key(m)[0] not in UNTRANSLATED_OK
        and len(_LATIN.findall(_text_only(_key(m)[0]))) > 3
        and any(f == s for f, s in zip(_forms(m), _sources(m) * 4, strict=False))
    ]
    assert not copied, f"tr: translations identical to the English source: {copied}"


def _write_catalog(root: Path, locale: str, entries_: dict[str, str]) -> Path:
    catalog = Catalog(locale=locale, domain="messages")
    for msgid, msgstr in entries_.items():
        catalog.add(msgid, msgstr)
    po = root / locale / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    with po.open("wb") as fh:
        write_po(fh, catalog)
    return po


def _write_mo(path: Path, locale: str, entries_: dict[str, str]) -> None:
    catalog = Catalog(locale=locale, domain="messages")
    for msgid, msgstr in entries_.items():
        catalog.add(msgid, msgstr)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    path.write_bytes(buf.getvalue())


@pytest.fixture
def fake_locale_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """kva.i18n reading its catalogs from ``tmp_path``, with its caches emptied around the test."""
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.clear_caches()
    yield tmp_path
    i18n.clear_caches()


def test_translations_compile_a_po_without_mo(fake_locale_dir: Path) -> None:
    """A fresh clone has only .po files: they are compiled in memory (fuzzy ones left out)."""
    po = _write_catalog(fake_locale_dir, "ka", {"Play": "თამაში"})
    with po.open("ab") as fh:
        fh.write(b'\n#, fuzzy\nmsgid "Resign"\nmsgstr "guess"\n')
    t = i18n.translations("ka")
    assert t.gettext("Play") == "თამაში"
    assert t.gettext("Resign") == "Resign"
    assert t.gettext("unknown") == "unknown"


def test_translations_prefer_a_current_mo_and_ignore_a_stale_one(fake_locale_dir: Path) -> None:
    po = _write_catalog(fake_locale_dir, "ru", {"Play": "Играть"})
    mo = po.with_suffix(".mo")
    _write_mo(mo, "ru", {"Play": "from mo"})
    old = po.stat().st_mtime
    os.utime(mo, (old + 10, old + 10))
    assert i18n.translations("ru").gettext("Play") == "from mo"
    i18n.clear_caches()
    os.utime(mo, (old - 10, old - 10))
    assert i18n.translations("ru").gettext("Play") == "Играть"


def test_translations_of_an_unknown_locale_are_the_default(fake_locale_dir: Path) -> None:
    _write_catalog(fake_locale_dir, "en", {"Play": "Play now"})
    assert i18n.translations("xx").gettext("Play") == "Play now"
    assert i18n.translations("en") is i18n.translations("EN")


def test_jinja_env_translates_and_escapes(fake_locale_dir: Path) -> None:
    """Templates get newstyle gettext: arguments escaped, placeholders filled, plurals chosen."""
    _write_catalog(fake_locale_dir, "tr", {"Hello %(name)s": "Merhaba %(name)s"})
    catalog = Catalog(locale="ru", domain="messages")
    catalog.add(
        ("%(num)s point", "%(num)s points"), ("%(num)s очко", "%(num)s очка", "%(num)s очков")
    )
    po = fake_locale_dir / "ru" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    with po.open("wb") as fh:
        write_po(fh, catalog)
    loader = jinja2.DictLoader(
        {
            "hi.html": '{{ _("Hello %(name)s", name=who) }}|{{ 1234567|number }}|{{ locale }}',
            "pts.html": "{% for n in (1, 3, 5, 21) %}{{ ngettext('%(num)s point', "
            "'%(num)s points', n) }};{% endfor %}",
        }
    )
    tr = i18n.jinja_env("tr", loader)
    assert tr is i18n.jinja_env("tr", loader)
    out = tr.get_template("hi.html").render(who="<b>Ali</b>")
    assert out == "Merhaba &lt;b&gt;Ali&lt;/b&gt;|1.234.567|tr"
    ru = i18n.jinja_env("ru", loader).get_template("pts.html").render()
    assert ru == "1 очко;3 очка;5 очков;21 очко;"


def test_real_catalogs_load_for_every_locale() -> None:
    """The shipped catalogs compile and translate their own entries (first few checked)."""
    i18n.clear_caches()
    for locale in LOCALES:
        t = i18n.translations(locale)
        for message in list(entries(load_po(locale)))[:20]:
            if message.pluralizable or message.context:
                continue
            assert t.gettext(message.id) == message.string, (locale, message.id)


def _translator_calls(path: Path) -> list[tuple[int, str, str]]:
    """Calls like ``translator(request)("text")`` in ``path``: (line, text, source)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Call)):
            continue
        inner = node.func.func
        name = inner.id if isinstance(inner, ast.Name) else getattr(inner, "attr", "")
        first = node.args[0] if node.args else None
        is_text = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if is_text and ("translat" in name or "gettext" in name):
            assert isinstance(first, ast.Constant)
            found.append((node.lineno, str(first.value), ast.unparse(node)[:80]))
    return found


def test_every_translated_string_is_extractable() -> None:
    """A string translated at run time through ``translator(request)("text")`` is invisible
    to extraction (it only sees ``_("text")``), so unless it is also marked elsewhere it is in
    no catalog and every visitor gets English. Write ``_ = translator(request)``, ``_("text")``.
    """
    known = {key[0] for key in extracted()}
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {source}"
        for path in sorted((ROOT / "kva").rglob("*.py"))
        for line, text, source in _translator_calls(path)
        if text not in known
    ]
    assert not missing, "never extracted, so never translated:\n" + "\n".join(missing)
