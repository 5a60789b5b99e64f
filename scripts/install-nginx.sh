#!/usr/bin/env bash
# Make sure nginx is present for tests/multiproc (two `kva serve` processes behind a real
# reverse proxy): Debian's package, binary at /usr/sbin/nginx. The tests run it as a
# non-daemon subprocess with their own generated config, so the Debian service is not needed.
# Idempotent and quiet: does nothing when nginx is already installed.
set -euo pipefail

if [ -x /usr/sbin/nginx ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-nginx: /usr/sbin/nginx is missing and apt-get is unavailable;" \
       "the multi-process tests will be skipped" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo -n"
fi
echo "== installing nginx (multi-process tests)"
export DEBIAN_FRONTEND=noninteractive
# Another apt run (a parallel set-up, the chromium install) holds the lock: wait for it.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
# The package's post-install tries to start the Debian service; where there is no init system
# (containers) that step may fail: what counts is the binary being there afterwards.
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends nginx \
  >/dev/null || true
test -x /usr/sbin/nginx
