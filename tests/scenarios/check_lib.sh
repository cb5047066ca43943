#!/usr/bin/env bash
# check_lib.sh — the counting that `make check`'s last line rests on
# (scripts/check_lib.bash), and the stand-ins' lock (scripts/scenario.bash):
# run_tap's counts for passes, skips, failures, a short plan, a crash and
# a time-out; run_queue with one worker and with more workers than cores,
# every job run exactly once; a worker killed mid-queue is a failure and
# its jobs still run; shared and exclusive jobs take their turns;
# standin() gives up after CHRONOID_PG_LOCK_WAIT seconds on a lock
# someone holds; tap_relay (scripts/tap.bash), which
# renumbers a scenario's TAP into pg/test/run.sh's and the soak's; the
# row a run writes into docs/figures.md (figures_row, record_figures).
# Needs no server.  TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tap.bash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# counts SCRIPT: run SCRIPT (bash) after sourcing check_lib.bash, in a
# subshell of its own; prints its stdout, then "counts: P F S".
counts() {
    (
        log=$work/log
        : >"$log"
        # shellcheck source=scripts/check_lib.bash
        . scripts/check_lib.bash
        eval "$1"
        echo "counts: $passed $failed $skipped"
    ) 2>&1
}

# A producer printing the given TAP lines.
producer() {
    local f=$work/producer.$RANDOM
    printf '%s\n' "$@" >"$f.txt"
    printf '#!/bin/sh\ncat %s\n' "$f.txt" >"$f"
    chmod +x "$f"
    echo "$f"
}

p=$(producer "ok 1 - a" "ok 2 - b # SKIP not here" "not ok 3 - c" "# why c failed" "1..3")
out=$(counts "run_tap unit $p")
check "run_tap: a pass, a skip and a failure count as 1 passed, 1 failed, 1 skipped" \
    "$(tail -n 1 <<<"$out")" "counts: 1 1 1"
ok_if "... the failure is shown with the diagnostics after it (scripts/tap.bash's order)" \
    '[[ $out == *"FAIL not ok 3 - c"$'"'"'\n'"'"'"    # why c failed"* ]]' "$out"
p=$(producer "ok 1 - a" "#   failed at t.c:9: x == 1" "not ok 2 - b" "ok 3 - c" "# not about b" "1..3")
out=$(counts "run_tap unit $p")
ok_if "... and with those before it (tests/tap.h's order), not the next case's" \
    '[[ $out == *"  FAIL not ok 2 - b"$'"'"'\n'"'"'"    #   failed at t.c:9: x == 1"* ]] && [[ $out != *"not about b"* ]]' "$out"

p=$(producer "ok 1 - a" "ok 2 - b" "1..5")
out=$(counts "run_tap unit $p")
check "run_tap: 2 of 5 planned cases ran: the 3 missing ones are failures" "$(tail -n 1 <<<"$out")" "counts: 2 3 0"
ok_if "... and it says so" '[[ $out == *"ran 2 of 5 planned cases"* ]]' "$out"

out=$(counts "run_tap unit bash -c 'echo \"ok 1 - a\"; echo 1..1; exit 3'")
check "run_tap: a suite that exits 3 after passing everything is one failure" "$(tail -n 1 <<<"$out")" "counts: 1 1 0"
ok_if "... named with its exit status" '[[ $out == *"exited 3 with no failed case reported"* ]]' "$out"

out=$(counts "CID_SUITE_TIMEOUT=1 run_tap unit bash -c 'echo \"ok 1 - a\"; exec sleep 20'")
check "run_tap: a suite that hangs past CID_SUITE_TIMEOUT is stopped and fails" "$(tail -n 1 <<<"$out")" "counts: 1 1 0"
ok_if "... and the log says it timed out" 'grep -q "timed out after 1 s" "$work/log"' "$(cat "$work/log")"

out=$(counts "TAP_NAME='the name' run_tap unit $p")
ok_if "run_tap: the summary line shows TAP_NAME" '[[ $out == *"unit       the name "* ]]' "$out"

# Jobs for the queue: each records its name and passes one case.
job() { echo "$1" >>"$work/ran"; run_tap job bash -c 'echo "ok 1 - job"; echo 1..1'; }
export -f job
queue_of() {
    local i q=()
    for ((i = 1; i <= $1; i++)); do q+=("job j$i"); done
    declare -p q | sed 's/^declare -a q=/queue=/'
}
ran_once() { [ "$(sort "$work/ran" | uniq -u | wc -l)" -eq "$1" ] && [ "$(wc -l <"$work/ran")" -eq "$1" ]; }

rm -f "$work/ran"
out=$(counts "$(queue_of 5); run_queue $work/q1 1")
check "run_queue, one worker: 5 jobs, 5 passed" "$(tail -n 1 <<<"$out")" "counts: 5 0 0"
ok_if "... each job ran once, in the queue's order" \
    '[ "$(tr "\n" " " <"$work/ran")" = "j1 j2 j3 j4 j5 " ]' "$(cat "$work/ran")"

rm -f "$work/ran"
out=$(counts "$(queue_of 9); run_queue $work/q4 4")
check "run_queue, four workers: 9 jobs, 9 passed" "$(tail -n 1 <<<"$out")" "counts: 9 0 0"
ok_if "... each job ran exactly once" 'ran_once 9' "$(sort "$work/ran" | tr "\n" " ")"
ok_if "... and every worker's log joined the run's log" \
    '[ "$(grep -c "^=== job" "$work/log")" -eq 9 ]' "$(grep "^===" "$work/log")"

# A job that kills the worker running it (as the OOM killer would): that
# worker leaves no counts, which is a failure; its jobs already counted
# are lost with it, the rest of the queue still runs on the other worker.
rm -f "$work/ran"
out=$(counts "$(queue_of 6); queue[2]='echo killer >>$work/ran; kill -9 \$BASHPID'; run_queue $work/qk 2")
ok_if "run_queue: a worker killed mid-queue is reported, and counted as a failure" \
    '[[ $out == *"FAIL check worker "*" ended without its counts"* ]] && [[ $(tail -n 1 <<<"$out") == "counts: "*" 1 0" ]]' "$out"
ok_if "... and the jobs after it still ran" \
    'grep -qx j4 "$work/ran" && grep -qx j5 "$work/ran" && grep -qx j6 "$work/ran"' "$(cat "$work/ran")"

# shared and exclusive: two workers.  s1, a shared job, leaves a process
# running (as a server that has yet to stop would) and ends; x, the
# exclusive job after it, must start only then, and not wait for that
# process; f, free of the lock, runs beside x.
stamp() { echo "$1 $(date +%s.%N)" >>"$work/stamps"; }
slow_shared() { stamp s1-start; (exec sleep 30) >/dev/null 2>&1 & echo $! >"$work/left.pid"; sleep 2; stamp s1-end; run_tap job bash -c 'echo "ok 1 - s1"; echo 1..1'; }
free_job() { sleep 0.5; stamp f-start; run_tap job bash -c 'echo "ok 1 - f"; echo 1..1'; }
excl_job() { stamp x-start; sleep 2; run_tap job bash -c 'echo "ok 1 - x"; echo 1..1'; stamp x-end; }
export -f stamp slow_shared free_job excl_job
at() { awk -v k="$1" '$1 == k {print $2}' "$work/stamps"; }
rm -f "$work/stamps"
start=$SECONDS
out=$(counts "CHECK_SHARED_LOCK=$work/shared.lock; queue=('shared slow_shared' 'exclusive excl_job' free_job); run_queue $work/qx 2")
took=$((SECONDS - start))
check "shared/exclusive: the three jobs pass" "$(tail -n 1 <<<"$out")" "counts: 3 0 0"
ok_if "... the exclusive job starts after the shared one has ended" \
    '[ -n "$(at x-start)" ] && awk -v x="$(at x-start)" -v e="$(at s1-end)" "BEGIN {exit !(x >= e)}"' "$(cat "$work/stamps")"
ok_if "... and the job free of the lock ran beside it" \
    'awk -v f="$(at f-start)" -v e="$(at x-end)" "BEGIN {exit !(f < e)}"' "$(cat "$work/stamps")"
ok_if "... and a process the shared job left running does not hold the lock" '[ "$took" -lt 20 ]' "took $took s"
kill "$(cat "$work/left.pid")" 2>/dev/null
# Someone outside holds the lock shared for good: exclusive gives up.
exec {holder}>"$work/held.lock"
flock -s "$holder"
out=$(counts "CHECK_SHARED_LOCK=$work/held.lock CID_SUITE_TIMEOUT=1; exclusive excl_job")
exec {holder}>&-
check "exclusive: a lock never released makes it give up after CID_SUITE_TIMEOUT, as a failure" \
    "$(tail -n 1 <<<"$out")" "counts: 0 1 0"
ok_if "... and says why" '[[ $out == *"FAIL excl_job: the shared jobs still ran after 1 s"* ]]' "$out"

# standin(): someone holds the stand-ins' lock; a script waiting for it
# gives up after CHRONOID_PG_LOCK_WAIT seconds, building nothing.  This
# script holds it: standin() opens the file anew, and a lock taken through
# another open of the file conflicts with ours.
lock=$work/standins.lock
exec {held}>"$lock"
flock -n "$held" || bail "take $lock"
mkdir "$work/pgc"
start=$SECONDS
out=$(
    CHRONOID_STANDINS_LOCK=$lock CHRONOID_PG_LOCK_WAIT=1
    # shellcheck source=scripts/scenario.bash
    . scripts/scenario.bash
    # shellcheck source=scripts/pgcluster.sh
    . scripts/pgcluster.sh
    PGC_DIR=$work/pgc
    standin pgedge && echo "standin returned 0"
    cat "$work/pgc/standin_pgedge.log"
)
took=$((SECONDS - start))
exec {held}>&-
check "standin: a held lock makes it give up after CHRONOID_PG_LOCK_WAIT" "$out" "waited 1 s for $lock"
ok_if "... within a few seconds, not the default half hour" '[ "$took" -lt 10 ]' "took $took s"

# relay LINES...: scripts/tap.bash's tap_relay over the lines, in a fresh
# TAP state; its output, then "state: n failed".
relay() {
    (
        n=0 failed=0
        tap_relay "plain: sc" < <(printf '%s\n' "$@")
        echo "state: $n $failed"
    )
}
out=$(relay "ok 1 - a" "# a note" "not ok 2 - b" "ok 3 - c # SKIP not here" "1..3")
check "tap_relay: each case renumbered under its label, notes kept as diagnostics" "$out" \
    "ok 1 - plain: sc: a"$'\n'"# # a note"$'\n'"not ok 2 - plain: sc: b"$'\n'"ok 3 - plain: sc: c # SKIP not here"$'\n'"state: 3 1"
out=$(relay "ok 1 - a" "1..4")
check "tap_relay: a script that planned 4 and ran 1 adds a failure saying so" "$out" \
    "ok 1 - plain: sc: a"$'\n'"not ok 2 - plain: sc: ran 1 of 4 planned cases"$'\n'"state: 2 1"
out=$(relay "something went wrong")
check "tap_relay: a script that printed no case is a failure" "$out" \
    "# something went wrong"$'\n'"not ok 1 - plain: sc: no TAP output"$'\n'"state: 1 1"
out=$(relay "1..0 # SKIP no faketime here")
check "tap_relay: a script that skips itself whole is one skipped case" "$out" \
    "ok 1 - plain: sc # SKIP no faketime here"$'\n'"state: 1 0"
out=$(relay "ok - unnumbered" "not ok 12 a name with 3 - dashes" "ok 2")
check "tap_relay: unnumbered cases, names without ' - ', an empty name" "$out" \
    "ok 1 - plain: sc: unnumbered"$'\n'"not ok 2 - plain: sc: a name with 3 - dashes"$'\n'"ok 3 - plain: sc: "$'\n'"state: 3 1"

# figures_row and record_figures: a run's row replaces its command's row
# of docs/figures.md's table and no other line; a new command's row goes
# after the table's last row; a file without the table is left as it was.
f=$work/figures.md
printf '%s\n' "# Figures" "" "| command | cases | time | measured | machine | commit |" "|---|---|---|---|---|---|" \
    "| \`make test\` | 1 passed | 0 min 1 s | old | m | c |" "| \`make check\` | 2 passed | 9 min 0 s | old | m | c |" \
    "" "Text after the table." "| \`make test\` | not the table's | x | x | x | x |" >"$f"
row=$(counts 'passed=463 failed=0 skipped=2; figures_row "make test" 98' | head -n 1)
check "figures_row: the counts, the time, today's date" "$(cut -d'|' -f2-5 <<<"$row")" \
    " \`make test\` | 463 passed, 0 failed, 2 skipped | 1 min 38 s | $(date -u +%F) "
out=$(counts "record_figures '$f' '$row' && echo recorded" | head -n 1)
check "record_figures: replaced" "$out" "recorded"
check "record_figures: the command's row in the table is the new one, in its place" \
    "$(sed -n 5p "$f")|$(wc -l <"$f")" "$row|9"
check "record_figures: the other rows and the text after the table stay" \
    "$(sed -n '6p;8,9p' "$f")" \
    "| \`make check\` | 2 passed | 9 min 0 s | old | m | c |"$'\n'"Text after the table."$'\n'"| \`make test\` | not the table's | x | x | x | x |"
row2=$(counts 'passed=1 failed=0 skipped=0; figures_row "make check-matrix" 5' | head -n 1)
counts "record_figures '$f' '$row2'" >/dev/null
check "record_figures: a new command's row after the table's last row" "$(sed -n '7p' "$f")" "$row2"
printf 'no table here\n' >"$work/plain.md"
out=$(counts "record_figures '$work/plain.md' '$row' || echo refused")
check "record_figures: a file without the table is refused and left as it was" \
    "$(head -n 1 <<<"$out")|$(cat "$work/plain.md")" "refused|no table here"

tap_done
