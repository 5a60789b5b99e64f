#!/usr/bin/env bash
# Make sure the headless browser for tests/e2e is present: Debian's chromium at
# /usr/bin/chromium (Playwright drives it; nothing is downloaded by Playwright itself).
# Idempotent and quiet: does nothing when chromium is already installed.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser: /usr/bin/chromium is missing and apt-get is unavailable;" \
       "the browser tests will be skipped" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo -n"
fi
echo "== installing chromium (browser tests)"
export DEBIAN_FRONTEND=noninteractive
# Another apt run (unattended upgrades, a parallel setup) holds the lock: wait for it.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null
test -x /usr/bin/chromium
