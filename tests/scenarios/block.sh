#!/usr/bin/env bash
# block.sh — the block allocator (cid_block_*, libchronoid_lease) and
# `chronoid block` against a throwaway PostgreSQL cluster with this tree's
# extension: three processes of four threads, each with random sizes,
# targets and prefetch points, and core nextval() alongside, never get a
# value twice; a backend stopped (SIGSTOP) for less than the block's
# remaining life stalls no next(), a longer stop makes next() wait and go
# on; a child after fork() is refused; refusals name the sequence.
# Prints TAP; about 20 s.  Binaries from $BUILD (default build/).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. scripts/scenario.bash
taker=$PWD/$BUILD/tests/block_taker
# As root: it installs this tree's extension (nextval_block() is new).
scenario_needs root server pgxs tests/block_taker chronoid-block
make -s --no-print-directory -C pg >/dev/null 2>&1 || bail "make -C pg"
# The extension's install is shared with whoever else tests it on this
# machine: hold the lock from the install until the cluster is done.
# shellcheck source-path=SCRIPTDIR source=../../scripts/pgcluster.sh
. scripts/pgcluster.sh
pgc_lock || bail "$PGC_LOCK_ERROR (another suite installs the extension)"
pgc_install >/dev/null 2>&1 || bail "make -C pg install"
# shellcheck disable=SC2119
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/block
mkdir -p "$work"
q -c "CREATE EXTENSION chronoid" || bail "CREATE EXTENSION chronoid"
[ "$(q -c "SELECT to_regprocedure('nextval_block(regclass, int8)') IS NOT NULL")" = t ] ||
    bail "nextval_block() is installed" "the installed extension has no nextval_block()"
q -c "CREATE SEQUENCE public.bs; CREATE SEQUENCE public.ps"

# 1. Three processes of four threads and core nextval() on one sequence.
seed=${CHRONOID_SEED:-$RANDOM}
RANDOM=$seed
diag "seed $seed (CHRONOID_SEED=$seed to repeat)"
pids=()
for p in 1 2 3; do
    target=$((20 + RANDOM % 180)) initial=$((1 + RANDOM % 500)) pct=$((RANDOM % 91))
    diag "process $p: target ${target} ms, first block $initial, prefetch at $pct %"
    "$taker" public.bs 4 20000 "$target" "$initial" "$pct" >"$work/p$p.out" 2>"$work/p$p.err" &
    pids+=($!)
done
q -c "SELECT nextval('public.bs') FROM generate_series(1, 20000)" >"$work/core.out" 2>&1 &
pids+=($!)
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
if [ "$rc" -eq 0 ]; then
    ok "3 processes x 4 threads x 20000 values and 20000 nextval() ran; each thread's values increase"
else
    not_ok "3 processes x 4 threads x 20000 values and 20000 nextval() ran; each thread's values increase"
    tail -n 5 "$work"/p*.err "$work/core.out" | diag
fi
total=$(cat "$work"/p*.out "$work/core.out" | wc -l)
distinct=$(cat "$work"/p*.out "$work/core.out" | sort -n -u | wc -l)
check "260000 values, all distinct" "$total $distinct" "260000 260000"
blocks=$(for p in 1 2 3; do awk '/^stats/ {print $3}' "$work/p$p.err"; done | paste -sd' ')
diag "blocks per process: $blocks"
ok_if "every process fetched blocks in the background (more than one each)" \
    '[ "$(for b in $blocks; do [ "$b" -gt 1 ] && echo y; done | wc -l)" -eq 3 ]'
check "the sequence stands at or above every value handed out" \
    "$(q -c "SELECT last_value >= $(cat "$work"/p*.out "$work/core.out" | sort -n | tail -n 1) FROM public.bs")"

# pause SECONDS: once the taker (whose stderr is $work/pause.err) says it
# is ready, stop the allocator's backend for that long; prints "stopped
# MS", MS the time from ready to the stop.
pause() {
    local bpid t0
    for _ in $(seq 1 200); do
        grep -q ready "$work/pause.err" 2>/dev/null && break
        sleep 0.01
    done
    t0=$(date +%s%3N)
    bpid=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'chronoid-block'")
    [ -n "$bpid" ] && kill -STOP "$bpid" && echo "stopped $(($(date +%s%3N) - t0))" &&
        sleep "$1" && kill -CONT "$bpid"
}

# paused_run NAME SECONDS COUNT TARGET_MS FIRST: one thread takes COUNT
# values at 10000 per second (prefetch at 50 %) into $work/NAME.out while
# the backend is stopped for SECONDS; sets stopped, after, trc and the
# taker's stats (issued blocks failures waits maxlat).
paused_run() {
    local tpid
    "$taker" public.ps 1 "$3" "$4" "$5" 50 10000 >"$work/$1.out" 2>"$work/pause.err" &
    tpid=$!
    read -r stopped after < <(pause "$2")
    wait "$tpid"
    trc=$?
    read -r _ issued blocks failures waits maxlat < <(grep '^stats' "$work/pause.err") || true
}

# 2. 10000 values per second, a first block of 60000 (6 s), the next
# fetched at half (3 s).  The backend stopped for 3.5 s, from less than
# 2.5 s after the start, holds up that reservation (sent at 3 s) until at
# most 6 s: within the block's life.
paused_run pause 3.5 65000 6000 60000
check "the backend was stopped for 3.5 s, from less than 2.5 s after the start" \
    "${stopped:-} $([ "${after:-9999}" -lt 2500 ] && echo early)" "stopped early" "stopped ${after:-?} ms after the start"
check "a 3.5 s pause within the block's life: every next() found a value in hand (no waits)" \
    "$trc ${issued:-} ${waits:-}" "0 65000 0"
diag "pause 3.5 s: $blocks blocks, $failures failures, longest next() ${maxlat} us"

# 3. A 3 s pause with 1 s blocks is longer than what is in hand: next()
# waits (at most wait_ms, 10 s) and goes on once the server answers.
paused_run pause2 3 25000 1000 10000
check "a 3 s pause past the block's life: next() waited, then went on" \
    "${stopped:-} $trc ${issued:-} $([ "${waits:-0}" -ge 1 ] && echo waited)" "stopped 0 25000 waited"
diag "pause 3 s: $blocks blocks, $waits waits, longest next() ${maxlat} us"
check "the paused runs' values are distinct" \
    "$(cat "$work/pause.out" "$work/pause2.out" | sort -u | wc -l)" 90000

# The end of int64: the 808 values up to 9223372036854775807 come out,
# the next call says the sequence is exhausted (blocks shrink to fit).
q -c "CREATE SEQUENCE public.top START 9223372036854775000"
"$taker" public.top 1 1000 60000 100 10 >/dev/null 2>"$work/top.err"
check "up to INT64_MAX: 808 values, then CID_EBLOCK_EXHAUSTED" \
    "$(grep -o 'value [0-9]*: the sequence has no value left' "$work/top.err")" \
    "value 808: the sequence has no value left" "$(cat "$work/top.err")"

# 4. fork(): the child is refused, the parent goes on.
check "a child after fork() gets CID_EBLOCK_FORKED" "$("$taker" public.ps fork 2>/dev/null)" "fork ok"

# 5. chronoid block: N values, the bounds, refusals.
run_block() { "$bin" block "$@" 2>&1; echo "exit $?"; }
q -c "CREATE SEQUENCE public.cli START 100"
check "chronoid block public.cli 3: one value per line" "$(run_block public.cli 3)" \
    "$(printf '100\n101\n102\nexit 0')"
check "chronoid block --bounds public.cli 1000" "$(run_block --bounds public.cli 1000)" \
    "$(printf '103 1102\nexit 0')"
check "chronoid block --json public.cli 2" "$(run_block --json public.cli 2)" \
    "$(printf '{"sequence":"public.cli","first":1103,"last":1104,"count":2}\nexit 0')"
q -c "CREATE SEQUENCE public.by2 INCREMENT 2; CREATE SEQUENCE public.near MAXVALUE 10;
      CREATE ROLE block_weak; CREATE SEQUENCE public.weak; ALTER SEQUENCE public.weak OWNER TO block_weak"
out=$(run_block public.by2 5)
ok_if "a sequence with INCREMENT 2 is refused, naming it (exit 1)" \
    '[[ $out == *"public.by2 has INCREMENT 2"* && $out == *"exit 1" ]]' "$out"
out=$(run_block public.near 11)
ok_if "a block past MAXVALUE is refused, saying what is left (exit 1)" \
    '[[ $out == *"10 values left"* && $out == *"exit 1" ]]' "$out"
out=$(run_block public.weak 1)
ok_if "a sequence owned by another, ordinary role is refused (exit 1)" \
    '[[ $out == *"owned by block_weak"* && $out == *"exit 1" ]]' "$out"
out=$(run_block bs 1)
ok_if "an unqualified name is not looked up on the search path (exit 1)" \
    '[[ $out == *"\"bs\" does not exist"* && $out == *"exit 1" ]]' "$out"
out=$(run_block public.nosuch 1)
ok_if "a missing sequence is named (exit 1)" \
    '[[ $out == *"public.nosuch"* && $out == *"exit 1" ]]' "$out"
q -c "DROP EXTENSION chronoid"
out=$(run_block public.cli 1)
ok_if "no extension: says what to install (exit 1)" \
    '[[ $out == *"CREATE EXTENSION chronoid"* && $out == *"exit 1" ]]' "$out"
q -c "DROP SEQUENCE public.weak; DROP ROLE block_weak"

tap_done
