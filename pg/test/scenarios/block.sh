#!/usr/bin/env bash
# block.sh — nextval_block() under concurrency and crashes.  4 pgbench
# sessions reserve blocks of random sizes (1..500), some in transactions
# they roll back, mixed with core nextval(), and record each block in a
# table whose exclusion constraint refuses any overlap; then the blocks
# must tile the sequence's values with no gap.  A block taken in a
# rolled-back transaction, and one with synchronous_commit off, must not
# come again after an immediate shutdown; a backend killed with SIGKILL
# mid-run (crash recovery for all) must not make any recorded block come
# again.  TAP on stdout; run by pg/test/run.sh (PGHOST, PGPORT, PGBIN,
# PGDATA, PGLOG, CHRONOID_TMP, CHRONOID_PGCTL set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${CHRONOID_TMP:?}" "${CHRONOID_PGCTL:?}"
db=block_scenario
work=$CHRONOID_TMP/block
mkdir -p "$work"
export PGDATABASE=$db
export PGOPTIONS="-c client_min_messages=warning"

fresh_db "$db"
if [ "$(q -c "SELECT to_regprocedure('nextval_block(regclass, int8)') IS NOT NULL")" != t ]; then
    bail "nextval_block() is installed" "the installed extension has no nextval_block(): another tree's build was installed meanwhile?"
fi
# Every value handed out, as a range; && refuses two that share a value.
q -c "CREATE SEQUENCE bs;
      CREATE TABLE got (r int8range NOT NULL, how text NOT NULL,
                        EXCLUDE USING gist (r WITH &&))"

cat >"$work/block.sql" <<'SQL'
\set n random(1, 500)
INSERT INTO got SELECT int8range(first_id, last_id, '[]'), 'block' FROM nextval_block('bs', :n);
SQL
cat >"$work/rollback.sql" <<'SQL'
\set n random(1, 500)
BEGIN;
SELECT first_id AS f, last_id AS l FROM nextval_block('bs', :n) \gset
ROLLBACK;
INSERT INTO got VALUES (int8range(:f, :l, '[]'), 'rolled back');
SQL
cat >"$work/nextval.sql" <<'SQL'
INSERT INTO got SELECT int8range(v, v, '[]'), 'nextval' FROM nextval('bs') v;
SQL

# bench TRANSACTIONS: 4 sessions, the three scripts at random (seeded)
bench() {
    local seed=$RANDOM$RANDOM
    diag "pgbench --random-seed=$seed"
    "$PGBIN/pgbench" -n -c 4 -j 4 -t "$1" --random-seed="$seed" \
        -f "$work/block.sql@5" -f "$work/rollback.sql@2" -f "$work/nextval.sql@2" \
        >"$work/bench.log" 2>&1
}

# tiled: the recorded ranges cover 1..max with no gap (no overlap is the
# constraint's part), and the sequence stands at max
tiled() {
    q -c "SELECT sum(upper(r) - lower(r)) = max(upper(r)) - 1
             AND min(lower(r)) = 1
             AND max(upper(r)) - 1 = (SELECT last_value FROM bs)
          FROM got"
}

if bench 300; then
    ok "4 sessions x 300 random transactions: no block overlaps another or a nextval()"
else
    not_ok "4 sessions x 300 random transactions: no block overlaps another or a nextval()"
    tail -n 20 "$work/bench.log" | diag
fi
check "the blocks and values tile the sequence with no gap, rolled-back blocks included" "$(tiled)"
check "every kind of reservation ran" "$(q -c "SELECT count(DISTINCT how) FROM got")" 3

# An immediate shutdown right after a block in a rolled-back transaction
# and one with synchronous_commit off: both must stay taken.
last=$(q -c "BEGIN" -c "SELECT last_id FROM nextval_block('bs', 1000)" -c "ROLLBACK" \
    -c "SET synchronous_commit = off" -c "SELECT last_id FROM nextval_block('bs', 1000)" | tail -n 1)
if $CHRONOID_PGCTL stop -m immediate >/dev/null 2>&1 && $CHRONOID_PGCTL start >/dev/null 2>&1 &&
    wait_ready 150; then
    ok "immediate shutdown and restart"
else
    not_ok "immediate shutdown and restart"
    tail -n 20 "$PGLOG" | diag
    tap_done
fi
first=$(q -c "SELECT first_id FROM nextval_block('bs', 1)")
check "after the crash the next block starts past the last one handed out ($last)" \
    "$(q -c "SELECT $first > $last")"
q -c "INSERT INTO got VALUES (int8range($((last - 1999)), $last, '[]'), 'before crash'),
                             (int8range($first, $first, '[]'), 'after crash')"

# SIGKILL one backend while 4 sessions reserve: the server restarts every
# session (crash recovery); what was recorded stays taken.  The victim is
# picked once the sessions have recorded blocks (pgbench's first
# connection, which only checks the server, has ended by then), and
# picked again if it is gone by the kill.  One inside a transaction if
# there is one; else one between two: on a loaded machine the clients
# keep their backends idle most of the time, and killing any backend
# restarts them all.  The run is long enough not to end first.
rows_before=$(q -c "SELECT count(*) FROM got")
bench 5000 &
bench_pid=$!
victim='' killed='' picks=0
for _ in $(seq 1 200); do
    kill -0 "$bench_pid" 2>/dev/null || break
    if [ "$(q -c "SELECT count(*) >= $rows_before + 200 FROM got")" = t ]; then
        picks=$((picks + 1))
        # (q's output holds its errors too: keep a pid only)
        victim=$(q -c "SELECT pid FROM pg_stat_activity WHERE datname = '$db' AND application_name = 'pgbench'
                        ORDER BY state = 'idle', random() LIMIT 1" | grep -xE '[0-9]+')
        if [ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null; then
            killed=$victim
            break
        fi
    fi
    sleep 0.05
done
if [ -n "$killed" ]; then
    ok "SIGKILL to a reserving backend"
else
    not_ok "SIGKILL to a reserving backend" \
        "no reserving backend was killed: $picks picks, the last pid '${victim}'; pgbench $(kill -0 "$bench_pid" 2>/dev/null && echo "still running" || echo "had ended"); its log:" \
        "$(tail -n 10 "$work/bench.log")"
fi
wait "$bench_pid"
# The killed run ends on the lost connections; no session may have met
# an overlap before.
ok_if "the killed run: no block overlapped another before the crash" \
    '! grep -q "violates exclusion constraint" "$work/bench.log"' "$(grep -m 3 "violates exclusion" "$work/bench.log")"
if wait_ready 150; then
    ok "the server recovered"
else
    not_ok "the server recovered"
    tail -n 20 "$PGLOG" | diag
    tap_done
fi
if bench 100; then
    ok "after recovery: 4 sessions x 100 transactions, no overlap with any block recorded before"
else
    not_ok "after recovery: 4 sessions x 100 transactions, no overlap with any block recorded before"
    tail -n 20 "$work/bench.log" | diag
fi

"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
tap_done
