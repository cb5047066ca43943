#!/usr/bin/env bash
# statemachine.sh — the randomized state-machine test of the ID guarantees
# (pg/test/statemachine/statemachine.py) on this scenario run's server:
# restarts it under libfaketime (the driver moves its clock through the
# offset file), runs CHRONOID_SM_STEPS random steps (default 1000; `make
# soak` runs 10,000) from CHRONOID_SM_SEED (default: a fresh seed, which
# the driver prints with the command that replays it), and always puts the
# server back on the true clock, running, with its settings as before.
# TAP on stdout; run by pg/test/run.sh in both modes (PGHOST, PGPORT,
# PGBIN, PGDATA, PGLOG, CHRONOID_TMP, CHRONOID_MODE, CHRONOID_PGCTL set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${PGDATA:?}" "${PGLOG:?}" "${CHRONOID_TMP:?}" "${CHRONOID_PGCTL:?}"
here=$(cd "$(dirname "$0")" && pwd)
db=sf_statemachine
mode=${CHRONOID_MODE:-plain}
py=/usr/bin/python3

if ! "$py" -c 'import psycopg2' 2>/dev/null; then
    skip "statemachine" "needs /usr/bin/python3 with psycopg2 (Debian package python3-psycopg2)"
    tap_done
fi
need_faketime "statemachine"

rc=$CHRONOID_TMP/sm_faketime.rc
echo "+0" >"$rc"
chown postgres: "$rc" 2>/dev/null
cleanup() {
    # the true clock, the server running as the run started it
    $CHRONOID_PGCTL -m fast restart -o "" >/dev/null 2>&1 ||
        { $CHRONOID_PGCTL -m immediate stop >/dev/null 2>&1; $CHRONOID_PGCTL start -o "" >/dev/null 2>&1; }
    "$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    rm -f "$rc"
}
trap cleanup EXIT

"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
if ! "$PGBIN/createdb" "$db" || ! "$PGBIN/psql" -X -q -d "$db" -c "CREATE EXTENSION chronoid"; then
    bail "create database and extension"
fi
if ! runuser -u postgres -- env LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$rc" FAKETIME_NO_CACHE=1 \
    DONT_FAKE_MONOTONIC=1 "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w restart -o "" >/dev/null 2>&1; then
    bail "restart under libfaketime"
fi

seed_args=()
[ -n "${CHRONOID_SM_SEED:-}" ] && seed_args=(--seed "$CHRONOID_SM_SEED")
PGDATABASE=$db SM_FAKETIME_LIB=$lib SM_FAKETIME_FILE=$rc \
    timeout "${CHRONOID_SM_TIMEOUT:-1200}" "$py" "$here/../statemachine/statemachine.py" \
    --mode "$mode" --steps "${CHRONOID_SM_STEPS:-1000}" "${seed_args[@]}"
st=$?
[ "$st" -eq 124 ] && echo "not ok 3 - statemachine timed out after ${CHRONOID_SM_TIMEOUT:-1200} s"
exit "$st"
