#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up, lint, types, a plain install of the wheel
# (scripts/check-install.sh), then every test against SQLite, then the database-backed tests
# again against PostgreSQL, with tests/multiproc (two `kva serve` processes on PostgreSQL and
# Redis behind nginx), which only runs in that pass.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
[ -f scripts/install-browser.sh ] && bash scripts/install-browser.sh
[ -f scripts/install-nginx.sh ] && bash scripts/install-nginx.sh
bash scripts/services.sh

echo "== ruff"
.venv/bin/ruff check kva tests scripts
echo "== mypy --strict kva"
.venv/bin/mypy --strict kva

echo "== plain install: wheel without extras in a fresh venv, kva serve used over HTTP and WebSocket"
bash scripts/check-install.sh

echo "== pytest (SQLite)"
.venv/bin/pytest -q -p no:cacheprovider "$@"

db_tests=()
for dir in tests/web tests/e2e tests/community tests/botapi tests/multiproc; do
  [ -d "$dir" ] && db_tests+=("$dir")
done
if [ ${#db_tests[@]} -gt 0 ]; then
  echo "== pytest (PostgreSQL): ${db_tests[*]}"
  KVA_TEST_DATABASE_URL=${KVA_TEST_DATABASE_URL:-postgresql+asyncpg://postgres@127.0.0.1:5432/postgres} \
    .venv/bin/pytest -q -p no:cacheprovider "${db_tests[@]}"
fi
