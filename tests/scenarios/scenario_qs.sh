#!/usr/bin/env bash
# scenario_qs.sh — scripts/scenario.bash's persistent session (qs_open,
# qs, qs_close) against q on a throwaway server: the same output for the
# same SQL (rows, -At, | in a value, empty string and NULL, notices,
# errors), a trailing ; or none, an error's status and the query after
# it, one connection for every call, others' commits seen, and a session
# that ends (server restart, no answer in time, a missing database) fails
# at once instead of hanging.  TAP; a few seconds.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/scenario.bash
scenario_needs server

. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"

qs_open -d postgres || bail "qs_open -d postgres"
ok "qs_open -d postgres"

# same SQL: qs prints what q prints, with q's status (0 or not).
same() {
    local sql=$1 a b ra rb
    a=$(q "$sql"); ra=$?
    b=$(qs "$sql"); rb=$?
    if [ "$a" = "$b" ] && [ $((ra != 0)) -eq $((rb != 0)) ]; then
        ok "same as q: ${2:-$sql}"
    else
        not_ok "same as q: ${2:-$sql}" "q (exit $ra): $a" "qs (exit $rb): $b"
    fi
}
same "SELECT 42"
same "SELECT 42;" "a trailing ;"
same "SELECT 42 ;  "$'\n' "a trailing ; and blanks"
same "SELECT 42 -- a comment" "a trailing comment, no ;"
same "SELECT g, g * 2 FROM generate_series(1, 5) g" "five rows of two columns"
same "SELECT 'a|b', 'c'" "a | inside a value"
same "SELECT '', NULL, 'x'" "an empty string and a NULL"
same "SELECT NULL" "a NULL alone"
same "SELECT 1 WHERE false" "no row"
same "SELECT E'two\\nlines'" "a value over two lines"
same "DO \$\$BEGIN RAISE NOTICE 'hello'; END\$\$" "a notice"
same "SELECT 1/0" "an error"
same "SELEC 1" "a syntax error (with its LINE and caret)"

check "SELECT 42; gives 42 (once: no empty query after it)" "$(qs "SELECT 42;")" 42
out=$(qs "SELECT 1/0"); rc=$?
check "an error: status 1, its text" "$rc|$out" "1|ERROR:  division by zero"
out=$(qs "SELECT 1/0;"); rc=$?
check "an error with a trailing ;: status 1 (a ; alone would clear :ERROR)" "$rc|$out" "1|ERROR:  division by zero"
out=$(qs "SELECT 'after'"); rc=$?
check "the query after an error" "$rc|$out" "0|after"
out=$(qs "SELECT 1/0; SELECT 'then'"); rc=$?
check "an error before the last statement of a list still fails the call" "$rc|$out" "1|ERROR:  division by zero"$'\n'"then"
out=$(qs ";"); rc=$?
check "an empty statement: status 0, nothing" "$rc|$out" "0|"

# The point: one backend for every call, in $(...) or not.
p1=$(qs "SELECT pg_backend_pid()")
qs "SELECT pg_backend_pid()" >"$PGC_DIR/pid"
p2=$(cat "$PGC_DIR/pid")
p3=$(qs "SELECT pg_backend_pid()")
if [ -n "$p1" ] && [ "$p1" = "$p2" ] && [ "$p2" = "$p3" ]; then
    ok "one backend for every call ($p1)"
else
    not_ok "one backend for every call" "$p1 $p2 $p3"
fi
# gone PID: the backend PID has ended (a closed session's backend ends
# after its psql, asynchronously: wait up to 10 s).
gone() {
    for _ in $(seq 1 100); do
        [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE pid = $1")" = 0 ] && return 0
        sleep 0.1
    done
    return 1
}

# Where a script calls it from: a pipeline, a ( ) subshell, and a bare
# `wait` in the script (which would wait for ever for a child psql): a
# script of its own, ended after 60 s if it hangs.
check "in a pipeline" "$(qs "SELECT 'piped'" | tr a-z A-Z)" PIPED
check "in a ( ) subshell, then in the script" "$( (qs "SELECT 'sub'"); qs "SELECT 'main'")" "sub"$'\n'"main"
out=$(timeout 60 bash -c '. scripts/scenario.bash; qs_open -d postgres || exit 3; sleep 0.1 & wait; qs "SELECT 1"; qs_close' 2>&1); rc=$?
check "a bare wait with a session open: returns (the session is no child of the script)" "$rc|$out" "0|1"

# Each call sees what other sessions committed before it.
q "CREATE TABLE t (n int)" >/dev/null
check "a table another session created" "$(qs "SELECT count(*) FROM t")" 0
q "INSERT INTO t SELECT generate_series(1, 3)" >/dev/null
check "rows another session committed since" "$(qs "SELECT count(*) FROM t")" 3

# Q_PGOPTIONS, as for q.
Q_PGOPTIONS='-c search_path=pg_catalog,pg_temp' qs_open -d postgres || not_ok "qs_open with Q_PGOPTIONS"
check "Q_PGOPTIONS reaches the session" "$(qs "SHOW search_path")" "pg_catalog,pg_temp"
if gone "$p1"; then ok "qs_open again: the session before it ended"; else not_ok "qs_open again: the session before it ended" "backend $p1 still there"; fi

# A session on a database, closed, lets it be dropped.
q "CREATE DATABASE qs_db" >/dev/null
qs_open -d qs_db && check "a session on qs_db" "$(qs "SELECT current_database()")" qs_db
qs_close
out=$("$PGC_BIN/dropdb" qs_db 2>&1); rc=$?
check "after qs_close, dropdb qs_db" "$rc|$out" "0|"
out=$(qs "SELECT 1"); rc=$?
check "qs after qs_close: status 2, says so" "$rc|$out" "2|qs: no session (qs_open starts one; a server restart ends it)"

out=$(qs_open -d no_such_db); rc=$?
if [ $rc -eq 1 ] && grep -q 'database "no_such_db" does not exist' <<<"$out"; then
    ok "qs_open on a missing database: status 1, psql's error"
else
    not_ok "qs_open on a missing database: status 1, psql's error" "exit $rc: $out"
fi

# No answer in QS_TIMEOUT seconds: status 2 at once, the session closed.
qs_open -d postgres || not_ok "qs_open -d postgres, again"
t0=$SECONDS
out=$(QS_TIMEOUT=1 qs "SELECT pg_sleep(5)"); rc=$?
check "no answer in QS_TIMEOUT=1 s: status 2, says so" "$rc|$out" "2|qs: no answer in 1 s; session closed"
if [ $((SECONDS - t0)) -lt 5 ]; then ok "... without waiting for the query"; else not_ok "... without waiting for the query" "$((SECONDS - t0)) s"; fi
# That call ran in $(...): this shell closes its own copy.
qs_close

# A server restart ends the session: the next call fails, never hangs.
qs_open -d postgres || not_ok "qs_open -d postgres, before the restart"
pgc_restart >/dev/null || bail "restart the server"
out=$(qs "SELECT 1"); rc=$?
if [ $rc -eq 2 ] && grep -q "qs: the session ended" <<<"$out"; then
    ok "after a restart: status 2, the session ended"
else
    not_ok "after a restart: status 2, the session ended" "exit $rc: $out"
fi
qs "SELECT 1" >/dev/null; rc=$?
check "the call after that one: status 2" "$rc" 2
qs_open -d postgres && check "qs_open after the restart" "$(qs "SELECT 'back'")" back

tap_done
