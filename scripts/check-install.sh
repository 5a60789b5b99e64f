#!/usr/bin/env bash
# Prove that a plain install runs: build kva's wheel from the source tree, install it WITHOUT
# extras into a fresh virtual environment, then let scripts/check_install.py start `kva serve`
# from an empty directory and use it (health, four languages, one move against a bot over
# HTTP and WebSocket, clean stop). Everything lives in a temporary directory, removed at the end.
# pip uses the machine's own configuration (index, find-links), like scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/kva-check-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The source as a clone has it: tracked and new files, never ignored ones (build/, stale .mo).
mkdir "$work/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard -- pyproject.toml README.md kva \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar -c --null -T - | tar -x -C "$work/src"
else
  tar -c --exclude=__pycache__ pyproject.toml README.md kva | tar -x -C "$work/src"
fi

"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$work/src"
wheel=$(ls "$work"/dist/kva-*.whl)
"$work/venv/bin/python" -m pip install --quiet "$wheel" 2> >(grep -v "is ignored: it is neither" >&2)
echo "   built and installed $(basename "$wheel") without extras in a fresh venv" \
     "($(( $(date +%s) - started )) s)"

"$work/venv/bin/python" scripts/check_install.py
echo "== plain install: OK ($(( $(date +%s) - started )) s)"
