#!/bin/sh
# One-shot schema job (temporalio/admin-tools): creates the `temporal` and `temporal_visibility` databases and
# brings their schemas up to the image's version. Safe to rerun: a database whose schema already updates
# cleanly is left as it is, and a newer admin-tools image migrates it forward.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
PORT="${DB_PORT:-5432}"
SCHEMA=/etc/temporal/schema/postgresql/v12

sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"; }

i=0
until nc -z "$POSTGRES_SEEDS" "$PORT"; do
  i=$((i + 1)); [ "$i" -le 60 ] || { echo "PostgreSQL at $POSTGRES_SEEDS:$PORT unreachable" >&2; exit 1; }
  sleep 1
done

setup() {
  db="$1"; dir="$SCHEMA/$2/versioned"
  if sql --db "$db" update-schema -d "$dir" >/dev/null 2>&1; then
    echo "$db: schema up to date"
    return
  fi
  echo "$db: creating database and schema"
  sql --db "$db" create
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "$dir"
}

setup temporal temporal
setup temporal_visibility visibility
echo "Schema setup complete"
