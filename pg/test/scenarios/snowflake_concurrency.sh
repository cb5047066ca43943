#!/usr/bin/env bash
# snowflake_concurrency.sh — 4 pgbench sessions mint at least 1,000,000
# snowflakes (and UUIDv7s and monotonic ULIDs when the extension has them)
# into tables with a primary key: no duplicate, and per session the IDs
# increase with a session-local counter.  TAP on stdout; run by
# pg/test/run.sh with PGHOST, PGPORT, PGUSER, PGBIN, CHRONOID_TMP set.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${CHRONOID_TMP:?}"
db=sf_scenario_concurrency
clients=4
per_tx=1000
# 4 clients x 250 transactions x 1000 rows = 1,000,000 IDs per kind
tx=$((1000000 / clients / per_tx))
work=$CHRONOID_TMP/sf_concurrency
mkdir -p "$work"

export PGDATABASE=$db
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=warning"

fresh_db "$db"

# kind, column type, generator expression
kinds=("snowflake|int8|snowflake.nextval()")
if [ "$(q -c "SELECT to_regprocedure('uuidv7()') IS NOT NULL")" = t ]; then
    kinds+=("uuidv7|uuid|uuidv7()")
fi
if [ "$(q -c "SELECT to_regprocedure('gen_monotonic_ulid()') IS NOT NULL")" = t ]; then
    kinds+=("monotonic_ulid|ulid|gen_monotonic_ulid()")
fi

for k in "${kinds[@]}"; do
    IFS='|' read -r kind type expr <<<"$k"
    tbl=conc_$kind
    # pid + session-local counter n give each row its place in its session.
    q -c "CREATE TABLE $tbl (id $type PRIMARY KEY, pid int4 NOT NULL, n int8 NOT NULL)"
    cat >"$work/$kind.sql" <<SQL
CREATE TEMP SEQUENCE IF NOT EXISTS local_n;
INSERT INTO $tbl (id, pid, n)
SELECT $expr, pg_backend_pid(), nextval('local_n') FROM generate_series(1, $per_tx);
SQL
    core_pid=
    if [ "$kind" = snowflake ]; then
        # Core nextval() on the same sequence meanwhile: it shares the
        # page (and, preloaded, changes it behind the slot's back) and must
        # neither block nor disturb snowflake.nextval().
        q -c "SET lock_timeout = '10s'" \
            -c "SELECT count(nextval('snowflake.id_seq')) FROM generate_series(1, 1000000)" \
            >"$work/core.log" 2>&1 &
        core_pid=$!
    fi
    if "$PGBIN/pgbench" -n -c "$clients" -j "$clients" -t "$tx" -f "$work/$kind.sql" \
        >"$work/$kind.log" 2>&1; then
        ok "$kind: pgbench $clients clients x $tx transactions x $per_tx IDs"
    else
        not_ok "$kind: pgbench $clients clients x $tx transactions x $per_tx IDs"
        tail -n 20 "$work/$kind.log" | sed 's/^/# /'
        [ -n "$core_pid" ] && wait "$core_pid"
        continue
    fi
    if [ -n "$core_pid" ]; then
        if wait "$core_pid" && grep -qx 1000000 "$work/core.log"; then
            ok "$kind: core nextval() on snowflake.id_seq ran alongside"
        else
            not_ok "$kind: core nextval() on snowflake.id_seq ran alongside"
            sed 's/^/# /' "$work/core.log"
        fi
    fi
    res=$(q -c "SELECT count(*), count(DISTINCT id), count(DISTINCT pid) FROM $tbl")
    IFS='|' read -r total distinct sessions <<<"$res"
    if [ "$total" -ge 1000000 ] && [ "$total" = "$distinct" ] && [ "$sessions" -eq "$clients" ]; then
        ok "$kind: $total IDs from $sessions sessions, all distinct"
    else
        not_ok "$kind: expected >= 1000000 distinct IDs from $clients sessions, got $total rows, $distinct distinct, $sessions sessions"
    fi
    bad=$(q -c "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY pid ORDER BY n) AS prev FROM $tbl) s WHERE id <= prev")
    if [ "$bad" = 0 ]; then
        ok "$kind: IDs strictly increase within every session"
    else
        not_ok "$kind: $bad IDs not above their session's previous one"
    fi
    if [ "$kind" = snowflake ]; then
        wrong=$(q -c "SELECT count(*) FROM $tbl WHERE snowflake.get_node(id) <> 1")
        if [ "$wrong" = 0 ]; then
            ok "$kind: every ID carries node 1"
        else
            not_ok "$kind: $wrong IDs with another node"
        fi
    fi
    q -c "DROP TABLE $tbl"
done

"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
tap_done
