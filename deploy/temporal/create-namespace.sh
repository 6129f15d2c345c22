#!/bin/sh
# One-shot job (temporalio/admin-tools): waits for the cluster, creates the namespace and registers the gateway's
# search attributes (SEARCH_ATTRIBUTES, all Keyword; the list in core/search-attributes.ts, checked by
# scripts/check-compose.ts). Idempotent; the worker registers missing attributes at start too.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${NAMESPACE:?}" "${SEARCH_ATTRIBUTES:?}"

# A new namespace takes a few seconds to reach every frontend's cache: retry (bounded) what depends on it.
retry() {
  n=0
  until "$@"; do
    n=$((n + 1)); [ "$n" -le 30 ] || return 1
    sleep 2
  done
}

i=0
until temporal operator cluster health >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -le 120 ] || { echo "Temporal at $TEMPORAL_ADDRESS not healthy" >&2; exit 1; }
  sleep 1
done

if temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "Namespace $NAMESPACE exists"
else
  temporal operator namespace create --namespace "$NAMESPACE" --retention "${RETENTION:-7d}"
fi

existing="$(retry temporal operator search-attribute list --namespace "$NAMESPACE")"
for name in $SEARCH_ATTRIBUTES; do
  if printf '%s\n' "$existing" | grep -qw "$name"; then
    echo "Search attribute $name exists"
  else
    retry temporal operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type Keyword
  fi
done
