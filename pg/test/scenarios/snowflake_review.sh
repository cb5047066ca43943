#!/usr/bin/env bash
# snowflake_review.sh — the duplicate and stuck-sequence cases a hostile
# review of 0.1.0 found, each replayed on a real server:
#  1. millions of IDs minted ahead of the clock in one statement, a restart
#     with the clock back at the first ID's time, ALTER SEQUENCE RESTART:
#     the next IDs must not repeat any (0.1.0 preloaded: duplicate key);
#  3. load never pushes IDs further ahead of the clock than
#     snowflake.max_run_ahead (0.1.0: unbounded, 2.9 s for 20M IDs);
#  4. a clock past 2092 is a clean 22008 that changes nothing, and minting
#     resumes on the true clock (0.1.0: the sequence was broken for good).
# (The bound is also checked against a stopped clock, and the stopped clock
# must give up after a second.)  TAP on stdout; run by pg/test/run.sh in both modes (PGHOST, PGPORT,
# PGBIN, PGDATA, PGLOG, CHRONOID_TMP, CHRONOID_PGCTL set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${PGDATA:?}" "${PGLOG:?}" "${CHRONOID_TMP:?}" "${CHRONOID_PGCTL:?}"
db=sf_scenario_review
export PGDATABASE=$db
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=error"

lib=$(faketime_lib)

rc=$CHRONOID_TMP/sf_review_faketime.rc
faked=
# fake_restart TIME: restart with the clock at TIME ("@YYYY-MM-DD HH:MM:SS")
fake_restart() {
    echo "$1" >"$rc"
    chown postgres: "$rc" 2>/dev/null
    runuser -u postgres -- env LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$rc" \
        FAKETIME_NO_CACHE=1 DONT_FAKE_MONOTONIC=1 \
        "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w restart -o "" >/dev/null 2>&1
    local st=$?
    faked=1
    return $st
}
restore() { $CHRONOID_PGCTL restart -o "" >/dev/null 2>&1 && faked=; }
cleanup() {
    if [ -n "$faked" ]; then restore; fi
    set_run_ahead "RESET snowflake.max_run_ahead" 1s >/dev/null 2>&1
    "$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    "$PGBIN/dropdb" --if-exists "${db}_frozen" >/dev/null 2>&1
}
trap cleanup EXIT

"$PGBIN/dropdb" --if-exists "${db}_frozen" >/dev/null 2>&1
fresh_db "$db"

# --- 3. The run-ahead bound --------------------------------------------------
# 100 ms makes the bound bite within a second of minting on any machine;
# the lead of each ID is measured against the clock read right after it.
if set_run_ahead "SET snowflake.max_run_ahead = '100ms'" 100ms; then
    lead=$(q -c "SELECT max(extract(epoch FROM snowflake.to_timestamp(v) - t) * 1000)::int8
                   FROM (SELECT snowflake.nextval() AS v, clock_timestamp() AS t
                           FROM generate_series(1, 3000000)) s")
    check "3,000,000 IDs in one statement never run more than snowflake.max_run_ahead (100 ms) ahead of the clock (max ${lead:-?} ms)" \
        "$([ -n "$lead" ] && [ "$lead" -le 100 ] && [ "$lead" -ge 0 ] && echo t || echo "${lead:-error}")"
    set_run_ahead "RESET snowflake.max_run_ahead" 1s || not_ok "snowflake.max_run_ahead back to 1 s"
else
    not_ok "snowflake.max_run_ahead = 100ms after a reload"
fi

if [ -z "$lib" ]; then
    ok "restart and clock cases # SKIP libfaketime not installed (Debian package faketime)"
    tap_done
fi

# --- 3. The bound against a frozen clock ---------------------------------------
# With the clock stopped, 100 ms of bodies is 409,600 IDs: they come out,
# no further ahead than 100 ms; the next ones wait for the clock, and give
# up after a second with 55000 (0.1.0 minted on, ahead without limit).
# (In a database of its own: its ID space ends up an hour ahead.)
fdb=${db}_frozen
"$PGBIN/createdb" "$fdb" && q -d "$fdb" -c "CREATE EXTENSION chronoid" || not_ok "create $fdb"
frozen=$(date -u -d '+1 hour' '+%Y-%m-%d %H:%M:%S')
if fake_restart "$frozen" && set_run_ahead "SET snowflake.max_run_ahead = '100ms'" 100ms; then
    ok "restart with the clock stopped at $frozen, snowflake.max_run_ahead = 100ms"
    got=$(q -d "$fdb" -c "SELECT count(DISTINCT v) || ' ' || (extract(epoch FROM snowflake.to_timestamp(max(v)) - clock_timestamp()) * 1000)::int8
                  FROM (SELECT snowflake.nextval() AS v FROM generate_series(1, 409600)) s" 2>&1)
    check "409,600 IDs (100 ms of bodies) on the stopped clock, at most 100 ms ahead of it" \
        "$(awk '{ print ($1 == 409600 && $2 >= 0 && $2 <= 100) ? "t" : $0 }' <<<"$got")"
    err=$(q -d "$fdb" -v VERBOSITY=verbose -c "SELECT count(snowflake.nextval()) FROM generate_series(1, 10000)" 2>&1)
    check "the next IDs wait at the bound, then give up on a clock that does not move (55000)" \
        "$([[ $err == *"55000"*"waited 1000 ms for the clock"* ]] && echo t || echo "$err")"
    set_run_ahead "RESET snowflake.max_run_ahead" 1s || not_ok "snowflake.max_run_ahead back to 1 s"
else
    not_ok "restart with the clock stopped, snowflake.max_run_ahead = 100ms"
fi
restore || not_ok "restart on the true clock"

# --- 1. RESTART after a restart with the clock back --------------------------
q >/dev/null <<'SQL'
CREATE SEQUENCE s;
CREATE TABLE t (id int8 PRIMARY KEY DEFAULT snowflake.nextval('s'), phase int4 NOT NULL);
INSERT INTO t (phase) SELECT 1 FROM generate_series(1, 3000000);
SQL
first=$(q -c "SELECT to_char(snowflake.to_timestamp(min(id)) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM t")
ahead=$(q -c "SELECT snowflake.to_timestamp(max(id)) > snowflake.to_timestamp(min(id)) FROM t")
check "3,000,000 IDs minted in one statement" "$(q -c "SELECT count(*) FROM t")" 3000000
if fake_restart "@$first"; then
    ok "restart with the clock at the first ID's time ($first UTC)"
else
    not_ok "restart with the clock at the first ID's time"
    tail -n 20 "$PGLOG" | sed 's/^/# /'
fi
check "the server's clock is behind the last ID" \
    "$(q -c "SELECT clock_timestamp() < (SELECT snowflake.to_timestamp(max(id)) FROM t)")" "$ahead"
out=$(q -c "ALTER SEQUENCE s RESTART" -c "INSERT INTO t (phase) SELECT 2 FROM generate_series(1, 100000)" 2>&1)
check "ALTER SEQUENCE s RESTART, then 100,000 more: no duplicate key" "$out" ""
check "every new ID above every earlier one" \
    "$(q -c "SELECT (SELECT min(id) FROM t WHERE phase = 2) > (SELECT max(id) FROM t WHERE phase = 1)")"

# --- 4. A clock past 2092, then the true clock ---------------------------------
before=$(q -c "SELECT s.last_value || ' ' || m.last_value FROM s, snowflake.node_mark m")
if fake_restart "@2093-03-01 00:00:00"; then
    ok "restart with the clock in 2093"
else
    not_ok "restart with the clock in 2093"
fi
for i in 1 2 3; do
    err=$(q -v VERBOSITY=verbose -c "SELECT snowflake.nextval('s')" 2>&1)
done
check "snowflake.nextval() with the clock in 2093: 22008 (three calls)" \
    "$([[ $err == *"22008"* ]] && echo t || echo "$err")"
check "the failed calls left the sequence and the mark as they were" \
    "$(q -c "SELECT s.last_value || ' ' || m.last_value FROM s, snowflake.node_mark m")" "$before"
if restore; then
    ok "restart on the true clock"
else
    not_ok "restart on the true clock"
fi
out=$(q -c "INSERT INTO t (phase) SELECT 3 FROM generate_series(1, 1000)" 2>&1)
check "minting resumes on the true clock" "$out" ""
check "its IDs are above every earlier one" \
    "$(q -c "SELECT (SELECT min(id) FROM t WHERE phase = 3) > (SELECT max(id) FROM t WHERE phase < 3)")"

tap_done
