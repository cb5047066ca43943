#!/usr/bin/env bash
# uuid_ulid_crash.sh — UUIDv7s and monotonic ULIDs after crashes: an
# immediate shutdown, then a start with the clock 10 minutes behind
# (libfaketime), a backend killed with SIGKILL (the postmaster
# reinitialises shared memory), and an immediate shutdown back to the true
# clock.  Preloaded, the durable mark ($PGDATA/pg_chronoid.state) keeps
# every new ID above every earlier one; without preload there is no
# durable state and the clock decides (documented), which the same checks
# show.  TAP on stdout; run by pg/test/run.sh (PGHOST, PGPORT, PGBIN,
# PGDATA, PGLOG, CHRONOID_PGCTL set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${PGDATA:?}" "${PGLOG:?}" "${CHRONOID_PGCTL:?}"
db=uuid_scenario_crash
export PGDATABASE=$db
export PGOPTIONS="-c client_min_messages=warning"

lib=$(faketime_lib)

preload=$(q -d postgres -c "SELECT current_setting('shared_preload_libraries') ~ '(^|[ ,])chronoid($|[ ,])'")

# Never leave the server on a fake clock for what runs next.
faked=
restore() { $CHRONOID_PGCTL restart >/dev/null 2>&1 && faked=; }
trap 'if [ -n "$faked" ]; then restore; fi' EXIT

fresh_db "$db"
# chronoid_uuidv7(): on PostgreSQL 18 the bare uuidv7() is core's, which
# keeps no mark across crashes (core_names.sh).
q -c "CREATE TABLE t (phase int4 NOT NULL, u uuid PRIMARY KEY DEFAULT chronoid_uuidv7(),
                      l ulid UNIQUE NOT NULL DEFAULT gen_monotonic_ulid())"
# mint PHASE: IDs from 4 sessions, through every generator name
mint() {
    local i
    for i in 1 2 3 4; do
        q -c "INSERT INTO t (phase) SELECT $1 FROM generate_series(1, 1000);
              INSERT INTO t (phase, u, l) VALUES ($1, chronoid_uuidv7(), gen_monotonic_ulid()),
                                                 ($1, uuid_generate_v7(), gen_monotonic_ulid())"
    done
}
# above PHASE: every ID of PHASE above every ID of earlier phases
above() {
    q -c "SELECT (SELECT u FROM t WHERE phase = $1 ORDER BY u LIMIT 1) > (SELECT u FROM t WHERE phase < $1 ORDER BY u DESC LIMIT 1)
             AND (SELECT l FROM t WHERE phase = $1 ORDER BY l LIMIT 1) > (SELECT l FROM t WHERE phase < $1 ORDER BY l DESC LIMIT 1)"
}

mint 1

# Phase 2: immediate shutdown, start with the clock 10 minutes behind.
if [ -z "$lib" ]; then
    skip "immediate shutdown, restart with the clock 10 minutes behind" \
        "libfaketime not installed (Debian package faketime)"
else
    faked=1
    if $CHRONOID_PGCTL stop -m immediate >/dev/null 2>&1 &&
        runuser -u postgres -- env LD_PRELOAD="$lib" FAKETIME="-10m" \
            DONT_FAKE_MONOTONIC=1 "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w start \
            >/dev/null 2>&1; then
        ok "immediate shutdown, restart with the clock 10 minutes behind"
    else
        not_ok "immediate shutdown, restart with the clock 10 minutes behind"
        tail -n 20 "$PGLOG" | sed 's/^/# /'
        restore
        tap_done
    fi
    check "server clock is 10 minutes behind the last ID" \
        "$(q -c "SELECT clock_timestamp() < (SELECT l FROM t ORDER BY l DESC LIMIT 1)::timestamptz - interval '9 minutes'")"
    mint 2
    if [ "$preload" = t ]; then
        check "preloaded: after the crash, with the clock behind, new IDs above every earlier one" \
            "$(above 2)"
        check "preloaded: they run ahead of the clock" \
            "$(q -c "SELECT uuid_extract_timestamp((SELECT u FROM t WHERE phase = 2 ORDER BY u LIMIT 1)) > clock_timestamp() + interval '9 minutes'")"
    else
        # Without preload there is no durable state: documented.
        check "without preload: the clock decides (new UUIDv7s below the earlier ones, as documented)" \
            "$(q -c "SELECT (SELECT u FROM t WHERE phase = 2 ORDER BY u DESC LIMIT 1) < (SELECT u FROM t WHERE phase = 1 ORDER BY u LIMIT 1)")"
    fi

    # Phase 3 (preloaded): a backend killed with SIGKILL; the postmaster
    # kills the others and reinitialises shared memory, reading the mark.
    if [ "$preload" = t ]; then
        q -c "SELECT pg_sleep(30)" >/dev/null 2>&1 &
        sleeper=$!
        pid=
        for i in $(seq 1 50); do
            pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' LIMIT 1")
            [ -n "$pid" ] && break
            sleep 0.1
        done
        if [ -n "$pid" ] && kill -9 "$pid" && sleep 1 && wait_ready; then
            ok "backend killed with SIGKILL, server reinitialised"
        else
            not_ok "backend killed with SIGKILL, server reinitialised (pid '$pid')"
        fi
        wait "$sleeper"
        check "server log shows the crash restart" \
            "$(grep -q 'terminated by signal 9' "$PGLOG" && echo t || echo f)"
        mint 3
        check "preloaded: after the reinitialisation, new IDs above every earlier one" "$(above 3)"
    else
        skip "backend killed with SIGKILL" "without preload there is no shared state to reinitialise"
    fi
fi

# Phase 4: immediate shutdown, start with the true clock.
if $CHRONOID_PGCTL stop -m immediate >/dev/null 2>&1 && $CHRONOID_PGCTL start >/dev/null 2>&1; then
    faked=
    ok "immediate shutdown, restart with the true clock"
else
    not_ok "immediate shutdown, restart with the true clock"
    tail -n 20 "$PGLOG" | sed 's/^/# /'
fi
mint 4
if [ "$preload" = t ]; then
    check "preloaded: new IDs above every earlier one" "$(above 4)"
else
    check "without preload: new IDs above those minted before under the true clock" \
        "$(q -c "SELECT (SELECT u FROM t WHERE phase = 4 ORDER BY u LIMIT 1) > (SELECT u FROM t WHERE phase = 1 ORDER BY u DESC LIMIT 1)
                 AND (SELECT l FROM t WHERE phase = 4 ORDER BY l LIMIT 1) > (SELECT l FROM t WHERE phase = 1 ORDER BY l DESC LIMIT 1)")"
fi
if [ "$preload" = t ]; then
    check "preloaded: the state file holds a mark above the last ID" \
        "$(q -c "SELECT (SELECT l FROM t ORDER BY l DESC LIMIT 1)::timestamptz < to_timestamp(
                   (regexp_match(pg_read_file('pg_chronoid.state'), 'ulid ([0-9]+)'))[1]::numeric / 1000)")"
else
    skip "the state file" "written only when preloaded"
fi
# A state file that cannot be written: the call that needs it fails
# (no ID handed out that could repeat after a crash), then works again.
if [ "$preload" = t ]; then
    runuser -u postgres -- mkdir "$PGDATA/pg_chronoid.state.tmp"
    # Wait until the clock passes both marks: the next IDs must move them.
    mark=$(awk '$1 == "uuidv7" || $1 == "ulid" { if ($2 > m) m = $2 } END { print m }' \
        "$PGDATA/pg_chronoid.state")
    wait_ms=$((mark - $(date +%s%3N) + 200))
    if [ "$wait_ms" -gt 0 ]; then sleep "$(awk -v w="$wait_ms" 'BEGIN { print w / 1000 }')"; fi
    for f in "chronoid_uuidv7()" "gen_monotonic_ulid()"; do
        out=$(q -v VERBOSITY=verbose -c "SELECT $f" 2>&1)
        if grep -q 'ERROR:  42809: could not create file "pg_chronoid.state.tmp": Is a directory' <<<"$out"; then
            ok "preloaded: $f fails with 42809 when the state file cannot be written"
        else
            not_ok "preloaded: $f fails with 42809 when the state file cannot be written"
            sed 's/^/# /' <<<"$out"
        fi
    done
    rmdir "$PGDATA/pg_chronoid.state.tmp"
    q -c "INSERT INTO t (phase) VALUES (5)"
    check "preloaded: writable again, the next IDs are above every earlier one" "$(above 5)"
else
    skip "state file write errors" "written only when preloaded"
fi
check "no duplicate UUIDv7 or ULID over all phases" \
    "$(q -c "SELECT count(DISTINCT u) = count(*) AND count(DISTINCT l) = count(*) FROM t")"

"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
tap_done
