#!/usr/bin/env bash
# snowflake_crash.sh — committed snowflakes, some minted far ahead of the
# clock, then an immediate shutdown (no checkpoint, WAL replay on start):
# the next snowflake.nextval() of each sequence is above every committed
# ID; preloaded, also after kill -9 of a minting backend.  TAP on stdout;
# run by pg/test/run.sh (PGHOST, PGPORT, PGBIN, CHRONOID_PGCTL,
# CHRONOID_MODE, CHRONOID_TMP set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${CHRONOID_PGCTL:?}"
db=sf_scenario_crash
export PGDATABASE=$db
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=error"

fresh_db "$db"

# An hour of run-ahead allowed for this scenario only (put back at exit).
trap 'set_run_ahead "RESET snowflake.max_run_ahead" 1s' EXIT
set_run_ahead "SET snowflake.max_run_ahead = '2h'" 2h || not_ok "snowflake.max_run_ahead = 2h after a reload"

# t_now: IDs at the clock; t_ahead: its sequence pushed an hour ahead of
# the clock first (the whole ID space follows it), so after the crash only
# the durable mark (not the clock) can keep the next ID above them.
q >/dev/null <<'SQL'
CREATE SEQUENCE ahead_seq;
CREATE TABLE t_now (id int8 PRIMARY KEY DEFAULT snowflake.nextval(), v int4);
CREATE TABLE t_ahead (id int8 PRIMARY KEY DEFAULT snowflake.nextval('ahead_seq'), v int4);
SELECT setval('ahead_seq',
              ((extract(epoch FROM clock_timestamp()) * 1000)::int8
               - 1672531200000 + 3600000) << 12);
INSERT INTO t_now (v) SELECT g FROM generate_series(1, 5000) g;
INSERT INTO t_ahead (v) SELECT g FROM generate_series(1, 5000) g;
SQL
# Many small committed transactions: the last ones are what WAL must keep.
for i in $(seq 1 20); do
    q -c "INSERT INTO t_now (v) VALUES ($i); INSERT INTO t_ahead (v) VALUES ($i)"
done
max_now=$(q -c "SELECT max(id) FROM t_now")
max_ahead=$(q -c "SELECT max(id) FROM t_ahead")
check "IDs of the pushed sequence run an hour ahead of the clock" \
    "$(q -c "SELECT snowflake.to_timestamp($max_ahead) > clock_timestamp() + interval '50 minutes'")"

if $CHRONOID_PGCTL stop -m immediate >/dev/null 2>&1 && $CHRONOID_PGCTL start >/dev/null 2>&1; then
    ok "immediate shutdown and restart"
else
    bail "immediate shutdown and restart"
fi

check "rows committed before the crash survive" \
    "$(q -c "SELECT (SELECT max(id) FROM t_now) = $max_now AND (SELECT max(id) FROM t_ahead) = $max_ahead")"
check "next snowflake.id_seq ID is above every committed one" \
    "$(q -c "SELECT snowflake.nextval() > $max_now")"
check "next ahead_seq ID is above every committed one (clock an hour behind it)" \
    "$(q -c "SELECT snowflake.nextval('ahead_seq') > $max_ahead")"
q -c "INSERT INTO t_now (v) SELECT g FROM generate_series(1, 5000) g;
      INSERT INTO t_ahead (v) SELECT g FROM generate_series(1, 5000) g" >/dev/null
check "10000 more inserts after the restart: no duplicate key" \
    "$(q -c "SELECT count(*) = 20040 FROM (SELECT id FROM t_now UNION SELECT id FROM t_ahead) s")"

# Preloaded: the shared slot holds bodies not yet on the page.  kill -9 of
# a backend while it mints makes the postmaster reinitialise shared memory
# after WAL replay: the slot starts again from snowflake.node_mark.
if [ "${CHRONOID_MODE:-plain}" = preload ]; then
    mint=${CHRONOID_TMP:-/tmp}/sf_crash_mint.sql
    echo "INSERT INTO t_ahead (v) SELECT 1 FROM generate_series(1, 200);" >"$mint"
    "$PGBIN/pgbench" -n -c 1 -T 30 -f "$mint" >/dev/null 2>&1 &
    pb=$!
    victim=
    for i in $(seq 1 40); do
        sleep 0.25
        # (q's output holds its errors too: keep a pid only)
        victim=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' LIMIT 1" | grep -xE '[0-9]+')
        [ -n "$victim" ] && [ "$(q -c "SELECT count(*) > 20240 FROM t_ahead")" = t ] && break
    done
    if [ -n "$victim" ] && kill -9 "$victim"; then
        ok "kill -9 of a backend minting snowflakes"
    else
        not_ok "kill -9 of a backend minting snowflakes"
    fi
    wait "$pb"
    up=
    for i in $(seq 1 120); do
        if q -c "SELECT 1" >/dev/null 2>&1; then up=1; break; fi
        sleep 0.25
    done
    if [ -n "$up" ]; then ok "server recovered after kill -9"; else not_ok "server recovered after kill -9"; fi
    check "after kill -9: next ahead_seq ID is above every committed one" \
        "$(q -c "SELECT snowflake.nextval('ahead_seq') > (SELECT max(id) FROM t_ahead)")"
    check "after kill -9: next snowflake.id_seq ID is above every committed one" \
        "$(q -c "SELECT snowflake.nextval() > (SELECT max(id) FROM t_now)")"
    rm -f "$mint"
fi

"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
tap_done
