# shellcheck shell=bash
# fault_lib.bash — helpers shared by the fault_*.sh scenarios (beyond
# scenario_lib.bash): a scratch database with one table per kind of key, background insert
# clients that log every acknowledged row, bounded waits, and a cleanup
# trap that leaves a running server on the true clock.  Sourced, not run
# (pg/test/run.sh runs only scenarios/*.sh).  Needs the environment that
# run.sh (or pg/test/soak/run.sh) gives a scenario: PGHOST, PGPORT, PGBIN,
# PGDATA, PGLOG, CHRONOID_TMP, CHRONOID_PGCTL.

: "${PGBIN:?}" "${PGDATA:?}" "${PGLOG:?}" "${CHRONOID_TMP:?}" "${CHRONOID_PGCTL:?}"
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=warning"
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/scenario_lib.bash"

# The four kinds of key: table suffix, column type, default.
# chronoid_uuidv7() is the extension's uuidv7() under a name that core
# (PostgreSQL 18) does not own, so the server-wide generator is the one
# tested on every version.
FL_KINDS=(sf v7 ulid serial)
declare -A FL_TYPE=([sf]=int8 [v7]=uuid [ulid]=ulid [serial]=int8)
declare -A FL_DEFAULT=([sf]="snowflake.nextval()" [v7]="chronoid_uuidv7()"
    [ulid]="gen_monotonic_ulid()" [serial]="")
# shellcheck disable=SC2034 # used by the scenarios that source this
declare -A FL_NAME=([sf]="snowflake.nextval()" [v7]="uuidv7()"
    [ulid]="gen_monotonic_ulid()" [serial]="bigserial (control)")

# fl_wait_ready [TRIES]: until the server accepts a query (0.25 s apart).
fl_wait_ready() {
    for _ in $(seq 1 "${1:-240}"); do
        q -d postgres -c "SELECT 1" >/dev/null 2>&1 && return 0
        sleep 0.25
    done
    return 1
}

fl_preloaded() {
    q -d postgres -c "SELECT current_setting('shared_preload_libraries') ~ '(^|[ ,])chronoid($|[ ,])'"
}

FL_DB=
FL_WORK=
FL_PIDS=()
FL_FAKED=
FL_EXTRA_CLEANUP=

# fl_cleanup: stop the clients, put the server back on the true clock and
# running, drop the database.  Runs at exit, whatever happened.
fl_cleanup() {
    local p
    [ -n "$FL_WORK" ] && touch "$FL_WORK/stop"
    for p in "${FL_PIDS[@]}"; do
        kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    [ -n "$FL_EXTRA_CLEANUP" ] && eval "$FL_EXTRA_CLEANUP"
    if [ -n "$FL_FAKED" ]; then
        $CHRONOID_PGCTL -m fast stop >/dev/null 2>&1 || $CHRONOID_PGCTL -m immediate stop >/dev/null 2>&1
        FL_FAKED=
    fi
    if ! "$PGBIN/pg_isready" -q >/dev/null 2>&1; then
        $CHRONOID_PGCTL start >/dev/null 2>&1
        fl_wait_ready 120
    fi
    [ -n "$FL_DB" ] && "$PGBIN/dropdb" --if-exists "$FL_DB" >/dev/null 2>&1
    [ -n "$FL_WORK" ] && rm -rf "$FL_WORK"
}

# fl_setup DB: a fresh database with the extension, the scratch dir and the
# cleanup trap.  Exits (with a plan) when that fails.
fl_setup() {
    FL_DB=$1
    export PGDATABASE=$FL_DB
    FL_WORK=$CHRONOID_TMP/$FL_DB
    rm -rf "$FL_WORK"
    mkdir -p "$FL_WORK"
    chown postgres: "$FL_WORK" 2>/dev/null
    trap fl_cleanup EXIT
    "$PGBIN/dropdb" --if-exists "$FL_DB" >/dev/null 2>&1
    if ! "$PGBIN/createdb" "$FL_DB" || ! q -c "CREATE EXTENSION chronoid"; then
        not_ok "create database and extension"
        echo "1..$n"
        exit 1
    fi
}

# fl_tables: f_sf, f_v7, f_ulid, f_serial (id primary key, run, session
# s, per-session counter c).
fl_tables() {
    local k def
    for k in "${FL_KINDS[@]}"; do
        def=${FL_DEFAULT[$k]}
        if [ "$k" = serial ]; then
            q -c "CREATE TABLE f_serial (id bigserial PRIMARY KEY, run int4 NOT NULL, s int4 NOT NULL, c int4 NOT NULL)"
        else
            q -c "CREATE TABLE f_$k (id ${FL_TYPE[$k]} PRIMARY KEY DEFAULT $def,
                                     run int4 NOT NULL, s int4 NOT NULL, c int4 NOT NULL)"
        fi
    done
    q -c "CREATE TABLE ack (run int4, s int4, c int4, sf int8, v7 uuid, ulid ulid, serial int8)"
}

# fl_start RUN [SESSIONS]: SESSIONS (default 4) clients, each one psql
# session inserting one row into every table per transaction, with its
# session number and counter, until $FL_WORK/stop exists or its connection
# fails.  psql prints a row only once the server acknowledged its commit:
# $FL_WORK/ack.RUN.S lists the acknowledged rows.
fl_start() {
    local run=$1 sessions=${2:-4} s
    rm -f "$FL_WORK/stop"
    for s in $(seq 1 "$sessions"); do
        {
            c=0
            while [ ! -e "$FL_WORK/stop" ] && [ "$c" -lt 5000000 ]; do
                c=$((c + 1))
                echo "WITH a AS (INSERT INTO f_sf (run, s, c) VALUES ($run, $s, $c) RETURNING id),
 b AS (INSERT INTO f_v7 (run, s, c) VALUES ($run, $s, $c) RETURNING id),
 u AS (INSERT INTO f_ulid (run, s, c) VALUES ($run, $s, $c) RETURNING id),
 d AS (INSERT INTO f_serial (run, s, c) VALUES ($run, $s, $c) RETURNING id)
SELECT $run, $s, $c, a.id, b.id, u.id, d.id FROM a, b, u, d;"
            done
        } 2>/dev/null | PGAPPNAME=fault_client "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -f - \
            >"$FL_WORK/ack.$run.$s" 2>"$FL_WORK/err.$run.$s" &
        FL_PIDS+=($!)
    done
}

# fl_rows RUN: rows of RUN committed so far (empty if the server is down)
fl_rows() { q -c "SELECT count(*) FROM f_sf WHERE run = $1" | grep -xE '[0-9]+'; }

# fl_wait_rows RUN MIN [SESSIONS]: until RUN has MIN rows from all SESSIONS (4) (bounded:
# 60 s, then a clear message).  No timing assertion: only progress.
fl_wait_rows() {
    local got
    for _ in $(seq 1 240); do
        got=$(q -c "SELECT count(*) >= $2 AND count(DISTINCT s) = ${3:-4} FROM f_sf WHERE run = $1")
        [ "$got" = t ] && return 0
        if ! fl_clients_alive; then
            echo "# run $1: every client exited before $2 rows ($(fl_rows "$1") rows); their errors:"
            fl_errors "$1" | head -n 10 | diag
            return 1
        fi
        sleep 0.25
    done
    echo "# run $1: fewer than $2 rows after 60 s ($(fl_rows "$1") rows)"
    return 1
}

# fl_clients_alive: true while any client runs
fl_clients_alive() {
    local p
    for p in "${FL_PIDS[@]}"; do
        kill -0 "$p" 2>/dev/null && return 0
    done
    return 1
}

# fl_wait_clients [TRIES]: until every client has exited (0.25 s apart);
# then kills the stragglers and fails.
fl_wait_clients() {
    local p alive
    for _ in $(seq 1 "${1:-120}"); do
        alive=
        for p in "${FL_PIDS[@]}"; do
            kill -0 "$p" 2>/dev/null && alive=1
        done
        if [ -z "$alive" ]; then
            wait 2>/dev/null
            FL_PIDS=()
            return 0
        fi
        sleep 0.25
    done
    for p in "${FL_PIDS[@]}"; do
        kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    FL_PIDS=()
    return 1
}

# fl_stop: ask the clients to finish (each ends after its current row).
fl_stop() {
    touch "$FL_WORK/stop"
    fl_wait_clients 120 || echo "# clients had to be killed after 30 s"
}

# fl_load_acks RUN: copy the acknowledged rows of RUN into table ack;
# prints their number.  A line cut short by a killed client is dropped.
fl_load_acks() {
    cat "$FL_WORK"/ack."$1".* 2>/dev/null | awk -F'|' 'NF == 7' |
        q -c "\\copy ack FROM STDIN WITH (DELIMITER '|')" &&
        q -c "SELECT count(*) FROM ack WHERE run = $1"
}

# fl_missing RUN: acknowledged rows of RUN missing from any table
fl_missing() {
    q -c "SELECT count(*) FROM ack a WHERE run = $1 AND NOT (
            EXISTS (SELECT 1 FROM f_sf t WHERE t.id = a.sf AND (t.run, t.s, t.c) = (a.run, a.s, a.c))
        AND EXISTS (SELECT 1 FROM f_v7 t WHERE t.id = a.v7 AND (t.run, t.s, t.c) = (a.run, a.s, a.c))
        AND EXISTS (SELECT 1 FROM f_ulid t WHERE t.id = a.ulid AND (t.run, t.s, t.c) = (a.run, a.s, a.c))
        AND EXISTS (SELECT 1 FROM f_serial t WHERE t.id = a.serial AND (t.run, t.s, t.c) = (a.run, a.s, a.c)))"
}

# fl_above KIND RUN: every ID of RUN is above every ID of earlier runs
# (ORDER BY/LIMIT: PostgreSQL 15 has no min(uuid)).  NULL if RUN is empty.
fl_above() {
    q -c "SELECT (SELECT id FROM f_$1 WHERE run = $2 ORDER BY id LIMIT 1)
               > (SELECT id FROM f_$1 WHERE run < $2 ORDER BY id DESC LIMIT 1)"
}

# fl_below KIND RUN EARLIER: every ID of RUN is below every ID of run EARLIER
fl_below() {
    q -c "SELECT (SELECT id FROM f_$1 WHERE run = $2 ORDER BY id DESC LIMIT 1)
               < (SELECT id FROM f_$1 WHERE run = $3 ORDER BY id LIMIT 1)"
}

# fl_session_order KIND: rows whose ID is not above the previous row of
# the same session (run, s) in counter order
fl_session_order() {
    q -c "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY run, s ORDER BY c) AS prev
                                FROM f_$1) x WHERE id <= prev"
}

# fl_no_duplicates: every table holds each (run, s, c) once, every ID
# once, and the four tables the same rows (one transaction wrote them).
fl_no_duplicates() {
    q -c "SELECT bool_and(ok) FROM (
            SELECT count(*) = count(DISTINCT id) AND count(*) = count(DISTINCT (run, s, c)) AS ok FROM f_sf
            UNION ALL SELECT count(*) = count(DISTINCT id) AND count(*) = count(DISTINCT (run, s, c)) FROM f_v7
            UNION ALL SELECT count(*) = count(DISTINCT id) AND count(*) = count(DISTINCT (run, s, c)) FROM f_ulid
            UNION ALL SELECT count(*) = count(DISTINCT id) AND count(*) = count(DISTINCT (run, s, c)) FROM f_serial
            UNION ALL SELECT count(*) = 0 FROM (
                (SELECT run, s, c FROM f_sf EXCEPT SELECT run, s, c FROM f_v7)
                UNION ALL (SELECT run, s, c FROM f_v7 EXCEPT SELECT run, s, c FROM f_ulid)
                UNION ALL (SELECT run, s, c FROM f_ulid EXCEPT SELECT run, s, c FROM f_serial)
                UNION ALL (SELECT run, s, c FROM f_serial EXCEPT SELECT run, s, c FROM f_sf)) x) y"
}

# fl_errors RUN: client error output of RUN (empty when none), without
# the WARNING (and its DETAIL and HINT) that snowflake.nextval() gives
# while its IDs run ahead of a clock set back: fl_clock_warnings counts
# those.
FL_DRIFT_WARNING='WARNING:  snowflake IDs run [0-9]+ ms ahead of the clock'
fl_errors() {
    cat "$FL_WORK"/err."$1".* 2>/dev/null |
        grep -v -E "$FL_DRIFT_WARNING|^DETAIL:  The last snowflake of this database is at|^HINT:  New IDs go on above every earlier one"
}
fl_clock_warnings() { cat "$FL_WORK"/err."$1".* 2>/dev/null | grep -c -E "$FL_DRIFT_WARNING"; }
