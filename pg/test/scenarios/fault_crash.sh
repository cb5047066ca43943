#!/usr/bin/env bash
# fault_crash.sh — crashes under load: 4 sessions insert rows keyed by
# snowflake.nextval(), uuidv7(), gen_monotonic_ulid() and a bigserial
# (control), one transaction per row, logging every acknowledged row; the
# postmaster is killed with SIGKILL (its children waited for, then a
# start), and later one backend (the postmaster reinitialises).  After
# each: every acknowledged row is there, no duplicate, each session's IDs
# increase, and the IDs issued after the crash are above every earlier one
# of their sequence (snowflake, bigserial: both modes; uuidv7, ULID:
# server-wide when preloaded; without preload only per session is
# promised, so the cross-session figure is shown, not asserted).  TAP on
# stdout; run by pg/test/run.sh in both modes.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=fault_lib.bash
. "$here/fault_lib.bash"

fl_setup fault_crash
preload=$(fl_preloaded)
fl_tables

# cross_run RUN WHAT: the generators' order across the crash before RUN
cross_run() {
    local run=$1 what=$2 k
    for k in sf serial; do
        check "$what: every ${FL_NAME[$k]} ID issued after it is above every earlier one" \
            "$(fl_above "$k" "$run")"
    done
    for k in v7 ulid; do
        if [ "$preload" = t ]; then
            check "preloaded, $what: every ${FL_NAME[$k]} issued after it is above every earlier one (server-wide)" \
                "$(fl_above "$k" "$run")"
        else
            echo "# without preload, $what: ${FL_NAME[$k]} of run $run above every earlier one: $(fl_above "$k" "$run") (not promised: per session only, the clock decided)"
        fi
    done
}

# acked RUN WHAT: every acknowledged row of RUN is in every table
acked() {
    local got
    got=$(fl_load_acks "$1")
    if [ -n "$got" ] && [ "$got" -gt 0 ] && [ "$(fl_missing "$1")" = 0 ]; then
        ok "$2: all $got rows acknowledged before it are present in all four tables"
    else
        not_ok "$2: acknowledged rows missing (acknowledged '$got', missing '$(fl_missing "$1")')"
    fi
}

# Run 1, then kill -9 of the postmaster.
fl_start 1
fl_wait_rows 1 1000 || not_ok "run 1: 4 sessions insert"
pm=$(head -n 1 "$PGDATA/postmaster.pid")
children=$(ps -o pid= --ppid "$pm" | tr -d ' ' | tr '\n' ' ')
before=$(fl_rows 1)
if [ -n "$pm" ] && [ -n "$children" ] && kill -9 "$pm"; then
    ok "kill -9 of the postmaster (pid $pm) with 4 sessions inserting ($before rows so far)"
else
    not_ok "kill -9 of the postmaster (pid '$pm', children '$children')"
fi
# Its children notice the postmaster's death and exit (a backend busy
# with its client may commit a few more rows first, durably: its own WAL
# write); a new postmaster must not start while one of them still holds
# the shared memory.
gone=
for _ in $(seq 1 240); do
    alive=
    for p in $pm $children; do
        kill -0 "$p" 2>/dev/null && alive="$alive $p"
    done
    if [ -z "$alive" ]; then gone=1; break; fi
    sleep 0.25
done
if [ -n "$gone" ] && ! "$PGBIN/pg_isready" -q >/dev/null 2>&1; then
    ok "the postmaster and all its children exited"
else
    not_ok "children of the killed postmaster still alive after 60 s:$alive (killed now)"
    for p in $alive; do kill -9 "$p" 2>/dev/null; done
    sleep 1
fi
fl_wait_clients 120 || not_ok "run 1: clients did not exit after the crash within 30 s"
if [ -f "$PGDATA/postmaster.pid" ]; then
    echo "# postmaster.pid left behind by the killed postmaster (expected; the next start replaces it)"
fi
if $CHRONOID_PGCTL start >/dev/null 2>&1 && fl_wait_ready; then
    ok "server restarted after kill -9 of the postmaster (WAL replayed)"
else
    not_ok "server restarted after kill -9 of the postmaster"
    tail -n 20 "$PGLOG" | diag
    tap_done
fi
acked 1 "kill -9 of the postmaster"

# Run 2, then kill -9 of one backend.
fl_start 2
fl_wait_rows 2 1000 || not_ok "run 2: 4 sessions insert"
victim=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'fault_client' LIMIT 1")
before=$(fl_rows 2)
if [ -n "$victim" ] && kill -9 "$victim"; then
    ok "kill -9 of one inserting backend (pid $victim) with 4 sessions inserting ($before rows so far)"
else
    not_ok "kill -9 of one inserting backend (pid '$victim')"
fi
# The postmaster terminates the other backends too: every client's
# connection breaks.
if fl_wait_clients 120; then
    ok "all 4 sessions lost their connection (the postmaster reset every backend)"
else
    not_ok "clients still connected 30 s after kill -9 of a backend"
fi
sleep 0.5
if fl_wait_ready; then
    ok "server reinitialised after kill -9 of a backend"
else
    not_ok "server not ready 60 s after kill -9 of a backend"
    tail -n 20 "$PGLOG" | diag
fi
check "server log shows the backend terminated by signal 9" \
    "$(grep -q "terminated by signal 9" "$PGLOG" && echo t || echo f)"
cross_run 2 "kill -9 of the postmaster"
acked 2 "kill -9 of a backend"

# Run 3: a clean run after both crashes.
fl_start 3
fl_wait_rows 3 1000 || not_ok "run 3: 4 sessions insert"
fl_stop
check "run 3 (after both crashes): no client error" "$(fl_errors 3 | head -c 300)" ""
cross_run 3 "kill -9 of a backend"
acked 3 "clean run after both crashes"
check "runs 1-3: no duplicate (primary keys; every (run, session, counter) once; the four tables hold the same rows)" \
    "$(fl_no_duplicates)"
for k in "${FL_KINDS[@]}"; do
    check "runs 1-3: ${FL_NAME[$k]} IDs increase within every session (both modes)" \
        "$(fl_session_order "$k")" 0
done
echo "# rows per run: $(q -c "SELECT string_agg(run || ': ' || cnt || ' rows, ' || acks || ' acknowledged', '; ' ORDER BY run)
                            FROM (SELECT run, count(*) AS cnt, (SELECT count(*) FROM ack a WHERE a.run = f.run) AS acks
                                  FROM f_sf f GROUP BY run) x")"

tap_done
