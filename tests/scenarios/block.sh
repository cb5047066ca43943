#!/usr/bin/env bash
# block.sh — the block allocator (cid_block_*, libchronoid_lease) against a throwaway PostgreSQL cluster with this tree's
# extension: three processes of four threads, each with random sizes,
# targets and prefetch points, and core nextval() alongside, never get a
# value twice; a backend stopped (SIGSTOP) for less than the block's
# remaining life stalls no next(), a longer stop makes next() wait and go
# on; a child after fork() is refused.
# Prints TAP; about 20 s.  Binaries from $BUILD (default build/).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. scripts/tap.bash
export TZ=UTC LC_ALL=C
BUILD=${BUILD:-build}
taker=$PWD/$BUILD/tests/block_taker

if [ "$(id -u)" -ne 0 ]; then
    skip_all "installs the extension: run as root"
fi
if ! command -v pg_config >/dev/null 2>&1 || [ ! -x "$(pg_config --bindir)/initdb" ] ||
    [ ! -f "$(pg_config --pgxs 2>/dev/null)" ]; then
    skip_all "PostgreSQL server binaries or development files not installed"
fi
if [ ! -x "$taker" ]; then
    make -s --no-print-directory BUILD="$BUILD" "$taker" >/dev/null 2>&1 || bail "build $taker"
fi
make -s --no-print-directory -C pg >/dev/null 2>&1 || bail "make -C pg"
# The extension's install is shared with whoever else tests it on this
# machine: hold the lock from the install until the cluster is done.
exec {lockfd}>/tmp/chronoid-pg.lock
flock -w "${CHRONOID_PG_LOCK_WAIT:-1800}" "$lockfd" ||
    bail "waited for /tmp/chronoid-pg.lock (another suite installs the extension)"
make -s --no-print-directory -C pg install >/dev/null 2>&1 || bail "make -C pg install"

# shellcheck source-path=SCRIPTDIR source=../../scripts/pgcluster.sh
. scripts/pgcluster.sh
# shellcheck disable=SC2119
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/block
mkdir -p "$work"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
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

# 2. 10000 values per second, a first block of 60000 (6 s), the next
# fetched at half (3 s).  The backend stopped for 3.5 s, from less than
# 2.5 s after the start, holds up that reservation (sent at 3 s) until at
# most 6 s: within the block's life.
"$taker" public.ps 1 65000 6000 60000 50 10000 >"$work/pause.out" 2>"$work/pause.err" &
tpid=$!
read -r stopped after < <(pause 3.5)
wait "$tpid"
trc=$?
read -r _ issued blocks failures waits maxlat < <(grep '^stats' "$work/pause.err") || true
check "the backend was stopped for 3.5 s, from less than 2.5 s after the start" \
    "${stopped:-} $([ "${after:-9999}" -lt 2500 ] && echo early)" "stopped early" "stopped ${after:-?} ms after the start"
check "a 3.5 s pause within the block's life: every next() found a value in hand (no waits)" \
    "$trc ${issued:-} ${waits:-}" "0 65000 0"
diag "pause 3.5 s: $blocks blocks, $failures failures, longest next() ${maxlat} us"

# 3. A 3 s pause with 1 s blocks is longer than what is in hand: next()
# waits (at most wait_ms, 10 s) and goes on once the server answers.
"$taker" public.ps 1 25000 1000 10000 50 10000 >"$work/pause2.out" 2>"$work/pause.err" &
tpid=$!
read -r stopped after < <(pause 3)
wait "$tpid"
trc=$?
read -r _ issued blocks failures waits maxlat < <(grep '^stats' "$work/pause.err") || true
check "a 3 s pause past the block's life: next() waited, then went on" \
    "${stopped:-} $trc ${issued:-} $([ "${waits:-0}" -ge 1 ] && echo waited)" "stopped 0 25000 waited"
diag "pause 3 s: $blocks blocks, $waits waits, longest next() ${maxlat} us"
check "the paused runs' values are distinct" \
    "$(cat "$work/pause.out" "$work/pause2.out" | sort -u | wc -l)" 90000

# 4. fork(): the child is refused, the parent goes on.
check "a child after fork() gets CID_EBLOCK_FORKED" "$("$taker" public.ps fork 2>/dev/null)" "fork ok"

tap_done
