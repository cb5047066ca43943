#!/usr/bin/env bash
# snowflake_clock.sh — the server's clock set back under libfaketime (the
# Debian package faketime): back by 10 minutes while running, then still
# behind across a restart (while down), then restored.  Every new
# snowflake is above every earlier one and none repeats.  TAP on stdout;
# run by pg/test/run.sh (PGHOST, PGPORT, PGBIN, PGDATA, PGLOG,
# CHRONOID_TMP, CHRONOID_PGCTL set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${PGDATA:?}" "${PGLOG:?}" "${CHRONOID_TMP:?}" "${CHRONOID_PGCTL:?}"
db=sf_scenario_clock
export PGDATABASE=$db
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=warning"

need_faketime

# The offset is read from this file on every clock read, so it can change
# while the server runs.
rc=$CHRONOID_TMP/sf_faketime.rc
echo "+0" >"$rc"
chown postgres: "$rc" 2>/dev/null

# libfaketime as the scenarios run servers under it (scenario_lib.bash):
# a process killed with SIGKILL amid stat() calls, as backends are, leaves
# nothing taken that hangs the others' next stat().
if printf '%s\n' '#include <sys/stat.h>' 'int main(void) { struct stat sb; for (;;) (void) stat("/", &sb); }' |
        cc -x c -o "$CHRONOID_TMP/stat_loop" - 2>/dev/null; then
    timeout 30 env LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$rc" FAKETIME_NO_CACHE=1 bash -c '
        for i in 1 2 3 4 5; do "$1" & sleep 0.2; kill -9 $!; wait $! 2>/dev/null; [ -e / ]; done' _ "$CHRONOID_TMP/stat_loop"
    st=$?
    ok_if "libfaketime: 5 processes killed amid stat() calls leave the next stat() free" '[ $st -eq 0 ]' \
        "exit $st (124 is the time-out: a stat() hung after a kill)"
    rm -f "$CHRONOID_TMP/stat_loop"
else
    skip "libfaketime: processes killed amid stat() calls" "no C compiler"
fi

fake_restart() {
    runuser -u postgres -- env LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$rc" \
        FAKETIME_NO_CACHE=1 DONT_FAKE_MONOTONIC=1 \
        "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w restart >/dev/null 2>&1
    local st=$?
    faked=1
    return $st
}
restore() { $CHRONOID_PGCTL restart >/dev/null 2>&1 && faked=; }
# Never leave the server running on a fake clock for what runs next.
faked=
trap 'if [ -n "$faked" ]; then restore; fi' EXIT
# mint PHASE COUNT: COUNT rows of snowflake.nextval() tagged PHASE
mint() { q -c "INSERT INTO ids (id, phase) SELECT snowflake.nextval('clock_seq'), $1 FROM generate_series(1, $2)"; }
# above PHASE: smallest ID of PHASE above every ID of earlier phases
above() { q -c "SELECT (SELECT min(id) FROM ids WHERE phase = $1) > (SELECT max(id) FROM ids WHERE phase < $1)"; }

fresh_db "$db"
q -c "CREATE SEQUENCE clock_seq; CREATE TABLE ids (id int8 PRIMARY KEY, phase int4 NOT NULL)"

# Phase 1: the true clock, under libfaketime with offset 0.
if fake_restart; then
    ok "server restarted under libfaketime"
else
    not_ok "server restarted under libfaketime"
    tail -n 20 "$PGLOG" | sed 's/^/# /'
    restore
    tap_done
fi
mint 1 20000
t1=$(q -c "SELECT snowflake.to_timestamp(max(id)) FROM ids")

# Phase 2: clock set back 10 minutes while the server runs.
echo "-10m" >"$rc"
sleep 1
check "server clock is 10 minutes behind the last ID" \
    "$(q -c "SELECT clock_timestamp() < '$t1'::timestamptz - interval '9 minutes'")"
mint 2 20000
check "clock set back while running: new IDs above every earlier one" "$(above 2)"
check "clock set back while running: IDs run ahead of the clock" \
    "$(q -c "SELECT snowflake.to_timestamp(min(id)) > clock_timestamp() + interval '9 minutes' FROM ids WHERE phase = 2")"

# Phase 3: the server restarts with its clock still 10 minutes behind.
echo "-10m" >"$rc"
if fake_restart; then
    ok "server restarted with its clock 10 minutes behind"
else
    not_ok "server restarted with its clock 10 minutes behind"
fi
mint 3 20000
check "clock behind across a restart: new IDs above every earlier one" "$(above 3)"

# Phase 4: the true clock again, without libfaketime.
if restore; then
    ok "server restarted with the true clock"
else
    not_ok "server restarted with the true clock"
fi
mint 4 20000
check "clock restored: new IDs above every earlier one" "$(above 4)"
check "80000 IDs, no duplicate" "$(q -c "SELECT count(DISTINCT id) = 80000 FROM ids")"
check "IDs increase with insertion order across all phases" \
    "$(q -c "SELECT bool_and(ok) FROM (SELECT id > lag(id) OVER (ORDER BY ctid) AS ok FROM ids) s WHERE ok IS NOT NULL")"

"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
tap_done
