#!/usr/bin/env bash
# Make sure PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) answer, starting the local
# Debian services if they are installed but stopped. Prints what it found; never fails the run
# by itself (the tests that need a service say so clearly).
set -uo pipefail

pg_up() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
redis_up() { (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; }

if ! pg_up && command -v pg_ctlcluster >/dev/null 2>&1; then
  for version in $(ls /etc/postgresql 2>/dev/null); do
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
  done
  for _ in $(seq 1 20); do pg_up && break; sleep 0.5; done
fi
if ! redis_up && command -v redis-server >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null 2>&1 || true
  for _ in $(seq 1 20); do redis_up && break; sleep 0.5; done
fi
pg_up && echo "== PostgreSQL on 127.0.0.1:5432" || echo "== PostgreSQL not reachable on 127.0.0.1:5432"
redis_up && echo "== Redis on 127.0.0.1:6379" || echo "== Redis not reachable on 127.0.0.1:6379"
