#!/usr/bin/env bash
# check.sh — what `make check` runs: build every variant, run every suite,
# count TAP results.  Per-suite lines and failure details go to stdout; the
# last line is "N passed, N failed, N skipped".  Exit status 1 when any case
# failed (a build failure or a crashed suite counts as a failed case).
set -uo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C
mkdir -p build
log=build/check.log
: >"$log"
jobs=$(nproc 2>/dev/null || echo 2)
passed=0 failed=0 skipped=0
MAKE=${MAKE:-make}
MAKEFLAGS_EXTRA=()
[ -n "${WERROR:-}" ] && MAKEFLAGS_EXTRA+=(WERROR=1)

# run_tap SUITE COMMAND...: run one TAP producer, add its counts.
run_tap() {
    local suite=$1; shift
    local out rc p=0 f=0 s=0 plan=0 n
    # A hung suite fails after CID_SUITE_TIMEOUT seconds instead of eating
    # CI's whole budget.
    out=$(timeout --kill-after=30 "${CID_SUITE_TIMEOUT:-1500}" "$@" 2>&1); rc=$?
    [ "$rc" -eq 124 ] && out+=$'\n'"# timed out after ${CID_SUITE_TIMEOUT:-1500} s"
    printf '=== %s: %s (exit %d)\n%s\n' "$suite" "$*" "$rc" "$out" >>"$log"
    p=$(grep -cE '^ok [0-9]+' <<<"$out" | tr -d ' ')
    s=$(grep -cE '^ok [0-9]+.*# *(SKIP|skip)' <<<"$out" | tr -d ' ')
    f=$(grep -cE '^not ok [0-9]+' <<<"$out" | tr -d ' ')
    p=$((p - s))
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' <<<"$out" | tail -n 1)
    n=$((p + s + f))
    if [ -n "$plan" ] && [ "$plan" -gt "$n" ]; then
        f=$((f + plan - n))
        echo "  $suite: $* ran $n of $plan planned cases"
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=$((f + 1))
        echo "  $suite: $* exited $rc with no failed case reported:"
        tail -n 20 <<<"$out" | sed 's/^/    /'
    fi
    if [ "$f" -gt 0 ]; then
        # Show each failed case with the diagnostics printed before it.
        awk '/^#/ {d = d "    " $0 "\n"; next}
             /^not ok/ {printf "  FAIL %s\n%s", $0, d; d = ""; next}
             {d = ""}' <<<"$out"
    fi
    printf '%-10s %-44s %4d passed, %d failed, %d skipped\n' "$suite" "$(basename "$1")" "$p" "$f" "$s"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

# build NAME MAKE-ARGS...: a build step; a failure counts as one failed case.
build() {
    local name=$1; shift
    if ! $MAKE -s --no-print-directory -j"$jobs" "${MAKEFLAGS_EXTRA[@]}" "$@" >>"$log" 2>&1; then
        echo "  FAIL build $name (see $log):"
        tail -n 25 "$log" | sed 's/^/    /'
        failed=$((failed + 1))
        return 1
    fi
    return 0
}

if build default all tests; then
    for t in build/tests/test_*; do
        [ -x "$t" ] && run_tap unit "$t"
    done
fi

# The shared libraries export what the public headers declare, no more.
[ -x tests/abi/abi.sh ] && [ -f build/libchronoid.so ] && run_tap abi tests/abi/abi.sh build

# Sanitizers: every unit test under ASan+UBSan, the threaded ones (test_mt_*)
# under TSan.  They take a smaller scale: the property volume is checked
# in the plain build above.
if build asan BUILD=build/asan SAN=address,undefined tests cli db; then
    for t in build/asan/tests/test_*; do
        [ -x "$t" ] && CID_TEST_SCALE=small ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
            UBSAN_OPTIONS=print_stacktrace=1 run_tap asan "$t"
    done
fi
if build tsan BUILD=build/tsan SAN=thread tests; then
    for t in build/tsan/tests/test_mt_*; do
        [ -x "$t" ] && CID_TEST_SCALE=small TSAN_OPTIONS=halt_on_error=1 run_tap tsan "$t"
    done
fi

if [ -x tests/cli/run.sh ] && [ -x build/chronoid ]; then
    run_tap cli tests/cli/run.sh build/chronoid
    [ -x build/asan/chronoid ] && run_tap cli-asan tests/cli/run.sh build/asan/chronoid
fi

# Fuzzing: each libFuzzer target for 20 s, then a replay of its committed
# corpus (regressions included); static analysis: cppcheck and clang-tidy.
[ -x tests/fuzz/run.sh ] && run_tap fuzz tests/fuzz/run.sh check
[ -x tests/lint/run.sh ] && run_tap lint tests/lint/run.sh

if [ -x pg/test/run.sh ]; then
    run_tap sql pg/test/run.sh
fi
[ -x pg/test/cluster/run.sh ] && run_tap cluster pg/test/cluster/run.sh

for extra in tests/scenarios/*.sh; do
    [ -x "$extra" ] && run_tap scenario "$extra"
done

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
