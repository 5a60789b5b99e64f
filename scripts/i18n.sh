#!/usr/bin/env bash
# Refresh the translation catalogs: extract every marked string from kva/ (Python and Jinja
# templates, per babel.cfg) into kva/locale/messages.pot, merge it into each language's
# messages.po (creating missing ones), then compile the .mo files.
# New strings arrive untranslated; tests/i18n fails until every language has them translated.
set -euo pipefail
cd "$(dirname "$0")/.."

PYBABEL=.venv/bin/pybabel
POT=kva/locale/messages.pot
LOCALES=(ka en ru tr)

"$PYBABEL" -q extract -F babel.cfg -o "$POT" \
  --add-location=file --sort-by-file --no-wrap \
  -c TRANSLATORS: --project=kva --version=0.1 .
for lang in "${LOCALES[@]}"; do
  po="kva/locale/$lang/LC_MESSAGES/messages.po"
  if [ -f "$po" ]; then
    "$PYBABEL" -q update -i "$POT" -d kva/locale -l "$lang" \
      --no-fuzzy-matching --ignore-obsolete --no-wrap
  else
    "$PYBABEL" -q init -i "$POT" -d kva/locale -l "$lang" --no-wrap
  fi
done
"$PYBABEL" compile -d kva/locale -D messages --statistics
