#!/usr/bin/env bash
# Run the kva platform with the embedded defaults (SQLite in ./var, in-memory broker) at
# http://127.0.0.1:8000. Extra arguments go to `kva serve` (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/kva serve "$@"
