#!/usr/bin/env bash
# demo-sql.sh — the SQL half of `make demo` (scripts/demo.sh calls it): a
# throwaway PostgreSQL cluster with the extension preloaded, one table per
# kind of key, rows from three concurrent sessions, shown decoded.
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C PGTZ=UTC

if [ -t 1 ]; then B=$'\033[1m' N=$'\033[0m'; else B='' N=''; fi
say() { printf '\n'; printf '# %s\n' "$@"; }

f=$(pg_config --pgxs 2>/dev/null) || f=
if [ -z "$f" ] || [ ! -f "$f" ]; then
    say "PostgreSQL part skipped: the server development files are not installed"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    say "PostgreSQL part skipped: run as root (it installs the extension and runs a server as postgres)"
    exit 0
fi

. scripts/pgcluster.sh
pgc_mkdir
# The server's extension directory is shared with every checkout's tests:
# install under their lock (held until the demo ends).
# shellcheck disable=SC2119 # no arguments: the default lock, pg_config's server
pgc_lock || { echo "demo: $PGC_LOCK_ERROR" >&2; exit 1; }
# shellcheck disable=SC2119
if ! pgc_install >"$PGC_DIR/install.log" 2>&1; then
    cat "$PGC_DIR/install.log" >&2
    exit 1
fi
pgc_start "shared_preload_libraries = 'chronoid'" "snowflake.node = 7"
export PGDATABASE=postgres

# sql STATEMENT: show it the way psql's prompt would, then its output.
sql() {
    printf '\n%s=# %s%s\n' "$B" "$1" "$N"
    "$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -P null=NULL -c "$1" 2>&1 | sed '${/^$/d}'
}

say "PostgreSQL $("$PGC_BIN/psql" -X -Atc 'SHOW server_version'): a throwaway cluster (Unix socket only, in $PGC_DIR)" \
    "with the extension installed (make -C pg install) and, in postgresql.conf:" \
    "  shared_preload_libraries = 'chronoid'   (the preloaded mode: state shared across sessions)" \
    "  snowflake.node = 7                      (this server's node number in every snowflake)"
sql "CREATE EXTENSION chronoid;"

say "One table per kind of key; the default makes the key"
sql "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake.nextval(), session int);"
sql "CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuidv7(), session int);"
sql "CREATE TABLE users (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), session int);"
sql "CREATE TABLE baseline (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), session int);  -- random v4, for comparison"

say "Three sessions insert at the same time (s = 1, 2, 3; two rows per table each)"
ins="INSERT INTO orders (session) SELECT :s FROM generate_series(1, 2);
INSERT INTO events (session) SELECT :s FROM generate_series(1, 2);
INSERT INTO users (session) SELECT :s FROM generate_series(1, 2);
INSERT INTO baseline (session) SELECT :s FROM generate_series(1, 2);"
# shellcheck disable=SC2016 # the command is shown, not run
printf '\n%s$ for s in 1 2 3; do psql -v s=$s <<SQL & done; wait%s\n%s\nSQL\n' "$B" "$N" "$ins"
pids=()
for s in 1 2 3; do
    "$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -v s=$s <<<"$ins" &
    pids+=($!)
done
for p in "${pids[@]}"; do
    wait "$p"
done

say "Snowflakes: 41-bit milliseconds since 2023-01-01 | 10-bit node | 12-bit counter (pgEdge's layout)"
sql "SELECT id, session, snowflake.get_node(id) AS node, snowflake.get_count(id) AS count,
       snowflake.to_timestamp(id) AS ts FROM orders ORDER BY id;"
sql "SELECT snowflake.format(id) FROM orders ORDER BY id LIMIT 1;"
say "The smallest snowflake of an instant turns a time range into a primary-key range"
sql "SELECT count(*) FROM orders WHERE id >= snowflake.from_timestamp(now() - interval '1 minute');"

say "UUIDv7: time first, so new keys go to the right edge of the index; the v4 baseline is random"
sql "SELECT id, session, uuid_extract_version(id) AS v, uuid_extract_timestamp(id) AS ts
  FROM events ORDER BY id;"
sql "SELECT id, session, uuid_extract_version(id) AS v, uuid_extract_timestamp(id) AS ts
  FROM baseline ORDER BY id LIMIT 3;"

say "ULID: a 16-byte type; casts to its time and to the same 128 bits as a uuid." \
    "Preloaded, gen_monotonic_ulid() increases across all sessions, not only within one"
sql "SELECT id, session, id::timestamptz AS ts, id::uuid AS as_uuid FROM users ORDER BY id;"

say "Bad input is named, with its position (I, L, O and U are not Crockford base32)"
sql "SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAI'::ulid;" || true

say "Done: the cluster is stopped and its directory removed"
