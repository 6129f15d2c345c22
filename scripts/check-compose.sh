#!/usr/bin/env bash
# CI check of docker-compose.yml: the Compose schema via `docker-compose config` (Debian's docker-compose, or the
# `docker compose` plugin), for the default and the `sim` profile; then the project's structural check
# (scripts/check-compose.ts), which needs only Node. Where no Compose tool exists and none can be installed,
# the schema check is skipped with a notice rather than failing CI.
set -euo pipefail
cd "$(dirname "$0")/.."

compose=()
if command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "docker-compose missing: installing Debian's package"
  if timeout 300 apt-get install -y -q docker-compose >/dev/null 2>&1 ||
    { timeout 300 apt-get update -q >/dev/null 2>&1 && timeout 300 apt-get install -y -q docker-compose >/dev/null 2>&1; }; then
    compose=(docker-compose)
  fi
fi

if [ ${#compose[@]} -gt 0 ]; then
  # API_KEYS etc. are left to their defaults: `config` validates the file, not a deployment.
  "${compose[@]}" -f docker-compose.yml config -q
  "${compose[@]}" -f docker-compose.yml --profile sim config -q
  echo "docker-compose.yml: Compose schema OK (${compose[*]} config; default and sim profiles)"
else
  echo "docker-compose.yml: no Compose tool available, schema check skipped (structural check follows)"
fi

node --import tsx scripts/check-compose.ts docker-compose.yml
