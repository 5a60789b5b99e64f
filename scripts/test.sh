#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up, lint, types, a plain install of the wheel
# (scripts/check-install.sh), then every test against SQLite, then the database-backed tests
# but the browsers' again against PostgreSQL, with tests/multiproc (two `kva serve` processes
# on PostgreSQL and Redis behind nginx), which only runs in that pass.
#
# The tests that need no database (rules, bots, ratings, learning, i18n, the CLI) run in the
# background while lint, types and the plain install run in the foreground: on two cores that
# takes ~1.5 minutes off the suite, and nothing timing-sensitive runs beside them (the
# database-backed tests start only once they are done). Then the SQLite and PostgreSQL passes
# run at the same time. Arguments (pytest's) run the SQLite pass over just what they name. Each
# pass ends with its 15 slowest tests, so that a test that grows slow is seen.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium and nginx (Debian packages: downloads, then dpkg) are needed only by the database
# passes at the end, so on a fresh machine they install in the background while the venv is
# set up and lint, types, the plain install and the no-database tests run (run first, they would
# add their whole download and install time to the suite). Their output is shown once waited for.
packages_pid=""
packages_log=$(mktemp)
trap '[ -n "$packages_pid" ] && kill "$packages_pid" 2>/dev/null; rm -f "$packages_log"' EXIT
(
  [ ! -f scripts/install-browser.sh ] || bash scripts/install-browser.sh
  [ ! -f scripts/install-nginx.sh ] || bash scripts/install-nginx.sh
) >"$packages_log" 2>&1 &
packages_pid=$!

bash scripts/setup.sh
bash scripts/services.sh

# The browser tests (tests/e2e) run in the SQLite pass only: what they check is the page, and
# every database behaviour under them is checked on both databases by tests/service,
# tests/storage and tests/web. tests/multiproc needs PostgreSQL and runs in that pass only.
sqlite_tests=()
pg_tests=()
no_db_tests=()
for dir in tests/*/; do
  dir=${dir%/}
  case "$dir" in
    tests/helpers|tests/__pycache__) ;;  # modules the tests import, no tests of their own
    tests/service|tests/storage|tests/web) sqlite_tests+=("$dir"); pg_tests+=("$dir") ;;
    tests/e2e) sqlite_tests+=("$dir") ;;
    tests/multiproc) pg_tests+=("$dir") ;;
    *) no_db_tests+=("$dir") ;;
  esac
done

pure_pid=""
pure_log=$(mktemp)
trap '[ -n "$packages_pid" ] && kill "$packages_pid" 2>/dev/null; [ -n "$pure_pid" ] && kill "$pure_pid" 2>/dev/null; rm -f "$packages_log" "$pure_log"' EXIT
if [ $# -eq 0 ] && [ ${#no_db_tests[@]} -gt 0 ]; then
  echo "== pytest (no database), in the background: ${no_db_tests[*]}"
  .venv/bin/pytest -q -p no:cacheprovider --durations=15 "${no_db_tests[@]}" >"$pure_log" 2>&1 &
  pure_pid=$!
fi

echo "== ruff"
.venv/bin/ruff check kva tests scripts tools
echo "== mypy --strict kva tools"
.venv/bin/mypy --strict kva tools

echo "== plain install: wheel without extras in a fresh venv, kva serve used over HTTP and WebSocket"
bash scripts/check-install.sh

if [ -n "$pure_pid" ]; then
  echo "== pytest (no database): ${no_db_tests[*]}"
  status=0
  wait "$pure_pid" || status=$?
  pure_pid=""
  cat "$pure_log"
  [ "$status" -eq 0 ] || exit "$status"
fi

if [ -n "$packages_pid" ]; then
  packages_status=0
  wait "$packages_pid" || packages_status=$?
  packages_pid=""
  cat "$packages_log"
  [ "$packages_status" -eq 0 ] || exit "$packages_status"
fi

# The database-backed tests, against SQLite here and against PostgreSQL in the background at
# the same time (two cores; each pass alone leaves much of the other idle, waiting on its
# servers and browsers). Each pass has its own Redis database: keys are kept per database, and
# the broker's channels carry the database's number (kva.service.cluster.broker.RedisBroker.prefix).
pg_pid=""
pg_log=$(mktemp)
trap '[ -n "$pure_pid" ] && kill "$pure_pid" 2>/dev/null; [ -n "$pg_pid" ] && kill "$pg_pid" 2>/dev/null; rm -f "$packages_log" "$pure_log" "$pg_log"' EXIT
if [ ${#pg_tests[@]} -gt 0 ]; then
  echo "== pytest (PostgreSQL), in the background: ${pg_tests[*]}"
  KVA_TEST_DATABASE_URL=${KVA_TEST_DATABASE_URL:-postgresql+asyncpg://postgres@127.0.0.1:5432/postgres} \
    KVA_TEST_REDIS_URL=${KVA_TEST_PG_REDIS_URL:-redis://127.0.0.1:6379/14} \
    .venv/bin/pytest -q -p no:cacheprovider --durations=15 "${pg_tests[@]}" >"$pg_log" 2>&1 &
  pg_pid=$!
fi

sqlite_status=0
if [ $# -eq 0 ]; then
  echo "== pytest (SQLite): ${sqlite_tests[*]}"
  .venv/bin/pytest -q -p no:cacheprovider --durations=15 "${sqlite_tests[@]}" || sqlite_status=$?
else
  echo "== pytest (SQLite)"
  .venv/bin/pytest -q -p no:cacheprovider "$@" || sqlite_status=$?
fi

pg_status=0
if [ -n "$pg_pid" ]; then
  wait "$pg_pid" || pg_status=$?
  pg_pid=""
  echo "== pytest (PostgreSQL): ${pg_tests[*]}"
  cat "$pg_log"
fi
[ "$sqlite_status" -eq 0 ] || exit "$sqlite_status"
exit "$pg_status"
