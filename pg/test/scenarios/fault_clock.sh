#!/usr/bin/env bash
# fault_clock.sh — clock faults under load (libfaketime, Debian package
# faketime, its offset read from a file on every clock read): 4 sessions
# insert rows keyed by snowflake.nextval(), uuidv7(), gen_monotonic_ulid()
# and a bigserial while the server's clock jumps 10 minutes back; new
# sessions on the clock that is behind; a restart with the clock still
# behind while sessions insert; the true clock again.  Asserts no
# duplicate, every session's IDs increasing, each snowflake sequence in
# order across every step, and the documented behaviour: IDs run ahead of
# the clock by about the jump; uuidv7/ULID stay above every earlier one
# when preloaded (durable mark) and follow the clock in new sessions
# without preload.  The server is always left on the true clock.  TAP on
# stdout; run by pg/test/run.sh in both modes.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=fault_lib.bash
. "$here/fault_lib.bash"

need_faketime

fl_setup fault_clock
preload=$(fl_preloaded)
fl_tables

# The offset file: read on every clock read (FAKETIME_NO_CACHE), so the
# clock can move while the server runs.  Offsets only, never a frozen
# clock (anything waiting on wall-clock time would hang).
rc=$FL_WORK/faketime.rc
echo "+0" >"$rc"
chown postgres: "$rc"
fake_restart() {
    FL_FAKED=1
    runuser -u postgres -- env LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$rc" \
        FAKETIME_NO_CACHE=1 DONT_FAKE_MONOTONIC=1 \
        "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -m fast restart >/dev/null 2>&1 && fl_wait_ready
}
# behind: the server's clock is 9-11 minutes behind the true one
behind() {
    q -c "SELECT clock_timestamp() BETWEEN '$(date -u '+%F %T')+00'::timestamptz - interval '11 minutes'
                                       AND '$(date -u '+%F %T')+00'::timestamptz - interval '9 minutes'"
}
# ahead KIND RUN [WHERE]: the IDs' embedded time is ahead of the server's
# clock by about the jump: 5-11 minutes (the documented run-ahead after a
# clock set back shrinks as the clock runs on; 5 leaves slack for a slow
# machine, 0 is what a generator following the clock would give)
ahead() {
    local ts
    case $1 in
        sf) ts="snowflake.to_timestamp(id)" ;;
        v7) ts="uuid_extract_timestamp(id)" ;;
        ulid) ts="id::timestamptz" ;;
    esac
    q -c "SELECT $ts - clock_timestamp() BETWEEN interval '5 minutes' AND interval '11 minutes'
          FROM f_$1 WHERE run = $2 ${3:-} ORDER BY id LIMIT 1"
}

if fake_restart; then
    ok "server restarted under libfaketime (offset +0)"
else
    not_ok "server restarted under libfaketime"
    tail -n 20 "$PGLOG" | diag
    tap_done
fi

# Run 1: 4 sessions on the true time; the clock jumps back 10 minutes
# while they insert.
fl_start 1
fl_wait_rows 1 1000 || not_ok "run 1: 4 sessions insert"
echo "-10m" >"$rc"
jumped=
for _ in $(seq 1 40); do
    if [ "$(behind)" = t ]; then jumped=1; break; fi
    sleep 0.25
done
if [ -n "$jumped" ]; then
    ok "the server's clock jumped 10 minutes back while 4 sessions insert"
else
    not_ok "the server's clock did not go 10 minutes back within 10 s"
fi
# Rows with a counter two above a session's last committed one at this
# point were minted after the jump (the row in between was not yet
# committed, so the next one was sent after this snapshot).
q -c "CREATE TABLE mark AS SELECT s, max(c) AS c FROM f_sf WHERE run = 1 GROUP BY s"
after_jump="AND c >= (SELECT m.c + 2 FROM mark m WHERE m.s = f_KIND.s)"
fl_wait_rows 1 "$(($(fl_rows 1) + 1000))" || not_ok "run 1: sessions keep inserting after the jump"
fl_stop
check "run 1: no client error across the jump" "$(fl_errors 1 | head -c 300)" ""
check "run 1: the clock set back gives a WARNING naming the drift" \
    "$([ "$(fl_clock_warnings 1)" -gt 0 ] && echo t || echo f)"
for k in sf serial v7 ulid; do
    w=${after_jump//KIND/$k}
    got=$(q -c "SELECT (SELECT id FROM f_$k WHERE run = 1 $w ORDER BY id LIMIT 1)
                   > (SELECT id FROM f_$k f WHERE run = 1 AND c <= (SELECT m.c FROM mark m WHERE m.s = f.s)
                      ORDER BY id DESC LIMIT 1)")
    if [ "$k" = sf ] || [ "$k" = serial ] || [ "$preload" = t ]; then
        check "clock jumped back while running: ${FL_NAME[$k]} minted after the jump above every earlier one" "$got"
    else
        echo "# without preload: ${FL_NAME[$k]} minted after the jump above every earlier one of other sessions: $got (promised per session only; see the session order below)"
    fi
done
for k in sf v7 ulid; do
    check "clock jumped back while running: ${FL_NAME[$k]} run ahead of the clock by about the jump (5-11 min)" \
        "$(ahead "$k" 1 "${after_jump//KIND/$k}")"
done

# Run 2: new sessions, the clock still 10 minutes behind.
fl_start 2
fl_wait_rows 2 1000 || not_ok "run 2: 4 sessions insert"
fl_stop
check "run 2: no client error" "$(fl_errors 2 | head -c 300)" ""
for k in sf serial; do
    check "new sessions on the clock behind: every ${FL_NAME[$k]} ID above every earlier one" "$(fl_above "$k" 2)"
done
check "new sessions on the clock behind: snowflakes still run ahead of the clock (5-11 min)" "$(ahead sf 2)"
for k in v7 ulid; do
    if [ "$preload" = t ]; then
        check "preloaded, new sessions on the clock behind: ${FL_NAME[$k]} above every earlier one (server-wide)" \
            "$(fl_above "$k" 2)"
    else
        check "without preload, new sessions on the clock behind: ${FL_NAME[$k]} start from the clock, below every ID of run 1 (documented)" \
            "$(fl_below "$k" 2 1)"
    fi
done

# Run 3: the server restarts (still 10 minutes behind) while 4 sessions
# insert; their connections end, then run 4 on the restarted server.
fl_start 3
fl_wait_rows 3 500 || not_ok "run 3: 4 sessions insert"
if fake_restart; then
    ok "server restarted with its clock 10 minutes behind while 4 sessions insert"
else
    not_ok "server restarted with its clock 10 minutes behind"
    tail -n 20 "$PGLOG" | diag
fi
check "the restarted server's clock is 10 minutes behind" "$(behind)"
fl_wait_clients 120 || not_ok "run 3: clients still connected 30 s after the restart"
if [ "$(fl_errors 3 | grep -c -v -E 'terminating connection due to administrator command|server closed the connection|connection to server was lost|no connection to the server|This probably means|before or while processing|^\s*$')" -eq 0 ]; then
    ok "run 3: the only client errors are the connections the restart closed"
else
    not_ok "run 3: unexpected client errors"
    fl_errors 3 | head -n 10 | diag
fi
got=$(fl_load_acks 3)
check "run 3: all $got acknowledged rows present after the restart" "$(fl_missing 3)" 0
fl_start 4
fl_wait_rows 4 1000 || not_ok "run 4: 4 sessions insert"
fl_stop
check "run 4: no client error" "$(fl_errors 4 | head -c 300)" ""
for k in sf serial; do
    check "restart with the clock behind: every ${FL_NAME[$k]} ID above every earlier one" "$(fl_above "$k" 4)"
done
check "restart with the clock behind: snowflakes still run ahead of the clock (5-11 min)" "$(ahead sf 4)"
for k in v7 ulid; do
    if [ "$preload" = t ]; then
        check "preloaded, restart with the clock behind: ${FL_NAME[$k]} above every earlier one (durable mark)" \
            "$(fl_above "$k" 4)"
        check "preloaded, restart with the clock behind: ${FL_NAME[$k]} run ahead of the clock (5-11 min)" \
            "$(ahead "$k" 4)"
    else
        check "without preload, restart with the clock behind: ${FL_NAME[$k]} follow the clock, below every ID of run 1 (documented)" \
            "$(fl_below "$k" 4 1)"
    fi
done

# Run 5: the true clock again (a normal server, as the next scenario
# expects).
if $CHRONOID_PGCTL -m fast restart >/dev/null 2>&1 && fl_wait_ready; then
    FL_FAKED=
    ok "server restarted with the true clock"
else
    not_ok "server restarted with the true clock"
fi
check "the server's clock is the true one again" \
    "$(q -c "SELECT abs(extract(epoch FROM clock_timestamp() - '$(date -u '+%F %T')+00'::timestamptz)) < 60")"
fl_start 5
fl_wait_rows 5 1000 || not_ok "run 5: 4 sessions insert"
fl_stop
check "run 5: no client error" "$(fl_errors 5 | head -c 300)" ""
for k in sf serial; do
    check "true clock again: every ${FL_NAME[$k]} ID above every earlier one" "$(fl_above "$k" 5)"
done
for k in v7 ulid; do
    if [ "$preload" = t ]; then
        check "preloaded, true clock again: ${FL_NAME[$k]} above every earlier one" "$(fl_above "$k" 5)"
    else
        check "without preload, true clock again: ${FL_NAME[$k]} follow the clock, above run 4's" \
            "$(q -c "SELECT (SELECT id FROM f_$k WHERE run = 5 ORDER BY id LIMIT 1)
                          > (SELECT id FROM f_$k WHERE run = 4 ORDER BY id DESC LIMIT 1)")"
    fi
done

check "runs 1-5: no duplicate (primary keys; every (run, session, counter) once; the four tables hold the same rows)" \
    "$(fl_no_duplicates)"
for k in "${FL_KINDS[@]}"; do
    check "runs 1-5: ${FL_NAME[$k]} IDs increase within every session (both modes)" \
        "$(fl_session_order "$k")" 0
done
check "runs 1-5: snowflakes increase run after run (one sequence, every clock step)" \
    "$(q -c "SELECT bool_and(lo > prev_hi) FROM (SELECT min(id) AS lo,
                 max(max(id)) OVER (ORDER BY run ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_hi
             FROM f_sf GROUP BY run) x WHERE prev_hi IS NOT NULL")"
echo "# rows per run: $(q -c "SELECT string_agg(run || ': ' || count, ', ' ORDER BY run)
                            FROM (SELECT run, count(*) FROM f_sf GROUP BY run) x")"
tap_done
