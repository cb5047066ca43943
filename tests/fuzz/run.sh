#!/usr/bin/env bash
# run.sh — build and run chronoid's libFuzzer targets; prints TAP.
#
#   tests/fuzz/run.sh check   each target for FUZZ_CHECK_SECONDS (10), then
#                             a replay of its committed corpus (make check)
#   tests/fuzz/run.sh long    each target for FUZZ_SECONDS (300), then the
#                             replay (make fuzz)
#
# Two TAP lines per target: "fuzz/<target>: <execs> execs" (libFuzzer's
# final stats) and "fuzz/<target> corpus: <n> inputs".  New inputs the run
# finds go to $FUZZ_BUILD/work/<target>, crashes to $FUZZ_BUILD/artifacts;
# the committed corpus under tests/fuzz/corpus is only read.  FUZZ_JOBS
# targets run at a time (default: the number of CPUs).  Without clang's
# libFuzzer every line is a SKIP.
set -uo pipefail
cd "$(dirname "$0")/../.."

mode=${1:-check}
case $mode in
    check) seconds=${FUZZ_CHECK_SECONDS:-10} ;;
    long) seconds=${FUZZ_SECONDS:-300} ;;
    *) echo "usage: $0 check|long" >&2; exit 2 ;;
esac
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
FUZZ_CC=${FUZZ_CC:-clang}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
targets=(uuid ulid typeid snowflake layout time inspect cli_inspect)
# The IDs already in databases (issue 27).
targets+=(objectid ksuid)
# The record in a node claim's lock file (issue 33).
targets+=(claim_record)
corpus=tests/fuzz/corpus
n=0

tap() { n=$((n + 1)); echo "$1 $n - $2"; }
echo "1..$((2 * ${#targets[@]}))"

# Can this compiler link a libFuzzer target?  (clang, and the runtime from
# libclang-rt-dev, which scripts/setup.sh installs.)
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }' \
    >"$probe_dir/p.c"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe_dir/p.c" -o "$probe_dir/p" >/dev/null 2>&1; then
    for t in "${targets[@]}"; do
        tap ok "fuzz/$t # SKIP no libFuzzer"
        tap ok "fuzz/$t corpus # SKIP no libFuzzer"
    done
    exit 0
fi

mkdir -p "$FUZZ_BUILD"
if ! make -s --no-print-directory -j"$jobs" -f tests/fuzz/fuzz.mk \
        FUZZ_BUILD="$FUZZ_BUILD" FUZZ_CC="$FUZZ_CC" >"$FUZZ_BUILD/build.log" 2>&1; then
    echo "# build failed ($FUZZ_BUILD/build.log):"
    tail -n 20 "$FUZZ_BUILD/build.log" | sed 's/^/#   /'
    for t in "${targets[@]}"; do
        tap "not ok" "fuzz/$t: build failed"
        tap "not ok" "fuzz/$t corpus: build failed"
    done
    exit 1
fi

# fuzz_one TARGET: a time-bounded run; its log in $FUZZ_BUILD/logs/TARGET.log.
fuzz_one() {
    local t=$1 extra=()
    local work=$FUZZ_BUILD/work/$t
    rm -rf "$work"
    mkdir -p "$work" "$FUZZ_BUILD/artifacts" "$FUZZ_BUILD/logs"
    [ -f "tests/fuzz/dict/$t.dict" ] && extra+=("-dict=tests/fuzz/dict/$t.dict")
    "$FUZZ_BUILD/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
        -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -artifact_prefix="$FUZZ_BUILD/artifacts/$t-" "${extra[@]}" \
        "$work" "$corpus/$t" >"$FUZZ_BUILD/logs/$t.log" 2>&1
    echo $? >"$FUZZ_BUILD/logs/$t.rc"
}

running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait

status=0
for t in "${targets[@]}"; do
    log=$FUZZ_BUILD/logs/$t.log
    rc=$(cat "$FUZZ_BUILD/logs/$t.rc" 2>/dev/null || echo 1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ] && [ -n "$execs" ]; then
        tap ok "fuzz/$t: $execs execs in ${seconds} s"
    else
        tap "not ok" "fuzz/$t: exit $rc"
        grep -E 'ERROR|SUMMARY|Test unit written|deadly|==[0-9]+==' "$log" | head -n 15 | sed 's/^/#   /'
        status=1
    fi

    # Replay every committed input, regressions included, one run each.
    mapfile -t inputs < <(find "$corpus/$t" -type f | sort)
    if [ "${#inputs[@]}" -eq 0 ]; then
        # with no file named, libFuzzer would fuzz without end
        tap "not ok" "fuzz/$t corpus: no inputs in $corpus/$t"
        status=1
    elif out=$("$FUZZ_BUILD/fuzz_$t" -runs=1 "${inputs[@]}" 2>&1); then
        tap ok "fuzz/$t corpus: ${#inputs[@]} inputs"
    else
        tap "not ok" "fuzz/$t corpus: ${#inputs[@]} inputs"
        grep -E 'Running:|ERROR|SUMMARY|==[0-9]+==' <<<"$out" | tail -n 15 | sed 's/^/#   /'
        status=1
    fi
done
exit $status
