#!/usr/bin/env bash
# check.sh — what `make check` runs: build every variant, run every suite,
# count TAP results.  Per-suite lines and failure details go to stdout; the
# last line is "N passed, N failed, N skipped".  `check.sh matrix` (make
# check-matrix) runs the extension on every PostgreSQL version instead,
# logging to build/check-matrix.log.  `check.sh quick [NAME...]` (make
# test) is the inner loop: the plain build, the unit tests at a small
# scale, the CLI cases, the regression suites once, and the named
# scenarios or packages.  Exit status 1 when any case failed (a build
# failure or a crashed suite counts as a failed case).  Each run leaves
# its counts, time, date and machine as a row of docs/figures.md in
# build/figures.row; CHRONOID_FIGURES=docs/figures.md writes it there.
set -uo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C
mkdir -p build
log=build/check.log
[ "${1:-}" = matrix ] && log=build/check-matrix.log
: >"$log"
jobs=$(nproc 2>/dev/null || echo 2)
MAKE=${MAKE:-make}
MAKEFLAGS_EXTRA=()
[ -n "${WERROR:-}" ] && MAKEFLAGS_EXTRA+=(WERROR=1)

# run_tap and run_queue (scripts/check_lib.bash): the counting and the
# workers.
# shellcheck source=scripts/check_lib.bash
. scripts/check_lib.bash

# Node claims are host-wide (docs/node-claims.md): every suite claims in a
# directory of this run's own, never in the host's default one, whose
# listing must be the same at the end (claims_untouched).
claims_root=$(mktemp -d /tmp/chronoid-check-claims.XXXXXX) || exit 1
export CHRONOID_CLAIM_DIR=$claims_root/claims
CHRONOID_HOST_CLAIMS=$(ls -A /run/lock/chronoid 2>&1)
export CHRONOID_HOST_CLAIMS
# shellcheck disable=SC2016 # expanded by the inner shell
claims_untouched=(bash -c '
    after=$(ls -A /run/lock/chronoid 2>&1)
    if [ "$after" = "$CHRONOID_HOST_CLAIMS" ]; then
        echo "ok 1 - the host claim directory is as it was before the run"
    else
        echo "not ok 1 - a suite claimed in the host claim directory /run/lock/chronoid"
        diff <(echo "$CHRONOID_HOST_CLAIMS") <(echo "$after") | sed "s/^/# /"
    fi
    echo "1..1"')

# The extension on each PostgreSQL version of the matrix (docs/testing.md):
# 15 is Debian's (CHRONOID_PG15_CONFIG, default pg_config); 17 and 18 are
# built from Debian's source packages by scripts/pgbuild.sh into its cache.
# pg_matrix cached: the regression suites, both modes, on newer servers
# already in the cache (make check: it never builds a server).
# pg_matrix build: build what is missing, then on every version the
# suites and the scenarios that depend on the server version, and
# pg_upgrade from 15 to each newer one (make check-matrix).  Each version
# is one run_tap suite, sql-15, sql-17, sql-18.
MATRIX_VERSIONS=${CHRONOID_MATRIX:-15 17 18}
MATRIX_SCENARIOS="snowflake_crash uuid_ulid_crash uuid_ulid_order snowflake_clock snowflake_dump upgrade snowflake_attacks core_names block"
pg_matrix() {
    local scope=$1 v cfg rc old pg15=${CHRONOID_PG15_CONFIG:-pg_config} newer=()
    for v in $MATRIX_VERSIONS; do
        if [ "$v" = 15 ]; then
            # make check has run everything on 15 already.
            [ "$scope" = cached ] && continue
            cfg=$pg15
        elif [ "$scope" = cached ]; then
            cfg=$(scripts/pgbuild.sh --cached "$v" 2>/dev/null) || continue
        else
            cfg=$(scripts/pgbuild.sh "$v" 2>>"$log"); rc=$?
            if [ "$rc" -eq 3 ]; then
                run_tap "sql-$v" echo "ok 1 # SKIP PostgreSQL $v: no Debian source package could be downloaded"
                continue
            elif [ "$rc" -ne 0 ]; then
                echo "  FAIL build PostgreSQL $v (scripts/pgbuild.sh $v; see $log)"
                failed=$((failed + 1))
                continue
            fi
        fi
        if [ "$scope" = cached ]; then
            PG_CONFIG=$cfg CHRONOID_SCENARIOS=none run_tap "sql-$v" pg/test/run.sh
        else
            PG_CONFIG=$cfg CHRONOID_SCENARIOS=$MATRIX_SCENARIOS run_tap "sql-$v" pg/test/run.sh
            # chronoid migrate's DDL (NOT NULL proofs, USING INDEX) on
            # this version's catalog; run.sh left the extension installed.
            [ "$v" != 15 ] && PG_CONFIG=$cfg PATH="$("$cfg" --bindir):$PATH" \
                run_tap "migrate-$v" tests/scenarios/migrate.sh
            [ "$v" != 15 ] && newer+=("$cfg")
        fi
    done
    [ ${#newer[@]} -gt 0 ] || return 0
    # pg_upgrade's old server: 15 built from bookworm's source package.
    # Debian 12's 15.20 binaries put a pg_attver option on every column,
    # which 18.6 rejects, so pg_upgrade from them fails for any table
    # (docs/postgresql.md).  CHRONOID_PG_UPGRADE_FROM=pg_config tries anyway.
    if ! old=${CHRONOID_PG_UPGRADE_FROM:-$(scripts/pgbuild.sh 15 2>>"$log")}; then
        echo "  FAIL build PostgreSQL 15 for pg_upgrade (scripts/pgbuild.sh 15; see $log)"
        failed=$((failed + 1))
        return 0
    fi
    for cfg in "${newer[@]}"; do
        OLD_PG_CONFIG=$old NEW_PG_CONFIG=$cfg run_tap pg_upgrade pg/test/pg_upgrade.sh
    done
}

if [ "${1:-}" = matrix ]; then
    pg_matrix build
    figures "make check-matrix${WERROR:+ WERROR=1}"
    echo "${passed} passed, ${failed} failed, ${skipped} skipped"
    [ "$failed" -eq 0 ]
    exit
fi

# build NAME MAKE-ARGS...: a build step; a failure counts as one failed case.
build() {
    local name=$1 t0=$SECONDS; shift
    if ! $MAKE -s --no-print-directory -j"$jobs" "${MAKEFLAGS_EXTRA[@]}" "$@" >>"$log" 2>&1; then
        echo "  FAIL build $name (see $log):"
        tail -n 25 "$log" | sed 's/^/    /'
        failed=$((failed + 1))
        return 1
    fi
    printf '%-10s %-44s (%d s)\n' build "$name" $((SECONDS - t0))
}

# quick NAME...: make test.  A NAME is a scenario of tests/scenarios or
# pg/test/scenarios (file name without .sh), node or python (that
# package's suite), or app (the application state machine, tests/app).
quick() {
    local name pg_scen=() t
    build default all tests || return 0
    for t in build/tests/test_*; do
        [ -x "$t" ] && CID_TEST_SCALE=small run_tap unit "$t"
    done
    run_tap cli tests/cli/run.sh build/chronoid
    for name in "$@"; do
        if [ -f "pg/test/scenarios/$name.sh" ]; then
            pg_scen+=("$name")
        elif ! [ -f "tests/scenarios/$name.sh" ] && [ "$name" != node ] && [ "$name" != python ] &&
            [ "$name" != app ]; then
            echo "  FAIL make test: no scenario or package named '$name'"
            failed=$((failed + 1))
        fi
    done
    # The server's extension directory is shared: hold the lock that the
    # package suites and other checkouts' runs take.
    CHRONOID_QUICK=1 CHRONOID_SCENARIOS="${pg_scen[*]:-none}" \
        run_tap sql flock /tmp/chronoid-pg.lock pg/test/run.sh
    for name in "$@"; do
        case $name in
            node) run_tap node node/test/run.sh ;;
            python) run_tap python python/tests/run.sh ;;
            app) run_tap app tests/app/run.sh ;;
            *) [ -f "tests/scenarios/$name.sh" ] && run_tap scenario "tests/scenarios/$name.sh" ;;
        esac
    done
}

if [ "${1:-}" = quick ]; then
    shift
    quick "$@"
    run_tap claims "${claims_untouched[@]}"
    rm -rf "$claims_root"
    figures "make test${*:+ T=\"$*\"}"
    echo "${passed} passed, ${failed} failed, ${skipped} skipped"
    [ "$failed" -eq 0 ]
    exit
fi

# The complete run.  The default build comes first (every job uses it),
# then the extension is installed once for every job: no suite reinstalls
# it (CHRONOID_PG_INSTALLED, scripts/pgcluster.sh's pgc_install), so no
# job rewrites chronoid.so while another job's servers load it.  The jobs
# below are independent of each other and run side by side, $workers at a
# time (CHRONOID_CHECK_WORKERS, default the number of cores); what changes
# the machine for everyone (debian.sh's install, which replaces the
# server's chronoid and purges it again) waits until no job uses the
# server (shared and exclusive, below).
build default all tests || { echo "${passed} passed, ${failed} failed, ${skipped} skipped"; exit 1; }
if [ -x pg/test/run.sh ] && [ "$(id -u)" -eq 0 ] && [ -f "$(pg_config --pgxs 2>/dev/null)" ]; then
    # shellcheck disable=SC2016 # expanded by the inner shell
    TAP_NAME="make -C pg install install-released" run_tap extension bash -c '. scripts/tap.bash
        run_ok "make -C pg install install-released (once, for every job)" \
            flock /tmp/chronoid-pg.lock make -s --no-print-directory -C pg install install-released
        tap_done' &&
        export CHRONOID_PG_INSTALLED=pg_config
fi

job_unit() {
    local t
    for t in build/tests/test_*; do
        [ -x "$t" ] && run_tap unit "$t"
    done
    # The shared libraries export what the public headers declare, no more.
    [ -x tests/abi/abi.sh ] && [ -f build/libchronoid.so ] && run_tap abi tests/abi/abi.sh build
    [ -x tests/cli/run.sh ] && run_tap cli tests/cli/run.sh build/chronoid
}

# The byte loops that big-endian hosts and other compilers get instead of
# word loads and byte swaps (src/bytes_internal.h), under the tests of the
# text and the generators that use them.
job_portable() {
    local t portable_tests=(test_text test_uuid test_ulid test_typeid test_uuidv7 test_fill test_fill_kinds test_inspect)
    build portable BUILD=build/portable CPPFLAGS=-DCID_PORTABLE_BYTES \
        "${portable_tests[@]/#/build/portable/tests/}" || return 0
    for t in "${portable_tests[@]}"; do
        CID_TEST_SCALE=small run_tap portable "build/portable/tests/$t"
    done
}

# Sanitizers: every unit test under ASan+UBSan, the threaded ones (test_mt_*)
# under TSan.  They take a smaller scale: the property volume is checked
# in the plain build.
job_asan() {
    local t
    build asan BUILD=build/asan SAN=address,undefined tests cli db || return 0
    for t in build/asan/tests/test_*; do
        [ -x "$t" ] && CID_TEST_SCALE=small ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
            UBSAN_OPTIONS=print_stacktrace=1 run_tap asan "$t"
    done
    [ -x build/asan/chronoid ] && run_tap cli-asan tests/cli/run.sh build/asan/chronoid
    # chronoid migrate's scenario again, its binaries under ASan and UBSan
    # (leaks included).
    [ -x build/asan/chronoid-migrate ] && BUILD=build/asan UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_tap migrate-asan tests/scenarios/migrate.sh
}
job_tsan() {
    local t
    build tsan BUILD=build/tsan SAN=thread tests || return 0
    for t in build/tsan/tests/test_mt_*; do
        [ -x "$t" ] && CID_TEST_SCALE=small TSAN_OPTIONS=halt_on_error=1 run_tap tsan "$t"
    done
}

# Fuzzing: each libFuzzer target for 10 s, then a replay of its committed
# corpus (regressions included); static analysis: cppcheck and clang-tidy.
job_fuzz() { [ -x tests/fuzz/run.sh ] && run_tap fuzz tests/fuzz/run.sh check; }
job_lint() { [ -x tests/lint/run.sh ] && run_tap lint tests/lint/run.sh; }

job_cluster() { [ -x pg/test/cluster/run.sh ] && run_tap cluster pg/test/cluster/run.sh; }

# The npm package (node/, where node is): its node --test suites, the
# node-postgres test on a throwaway server, the type declarations and the
# npm tarball (most of it compiling the addon: twice for the tests, four
# times for the prebuilt x64 and arm64 ones, once from source).
job_node() {
    command -v node >/dev/null 2>&1 || return 0
    run_tap node node/test/run.sh
    run_tap node-asan node/test/run.sh asan
    run_tap node-pg node/test/pg.sh
    run_tap node-types node/test/types.sh
    run_tap node-pack node/test/pack.sh
}

# The Python package: pip install from the tree and its pytest suite (with
# psycopg on a throwaway cluster), then again with the module under ASan,
# its threaded tests under TSan, and a wheel of Debian's pip wheel in a
# venv of pyenv's CPython 3.11 (python/tests/wheel.sh).
job_python() {
    [ -x python/tests/run.sh ] || return 0
    run_tap python python/tests/run.sh
    run_tap python-asan python/tests/run.sh asan
    run_tap python-tsan python/tests/run.sh tsan
    run_tap python-wheel python/tests/wheel.sh
}

# The application side's invariants: Node, C and Python processes that
# claim node numbers and mint, randomized (tests/app/run.sh, 2,000 steps).
# It builds its own copies of the addon and the module, so the package
# jobs' sanitizer rebuilds beside it never reach its workers; it uses no
# server.
job_app() { [ -x tests/app/run.sh ] && run_tap app tests/app/run.sh; }

# One job per scenario: each starts what servers it needs itself
# (migrate_privilege.sh: without and with chronoid preloaded).
job_scenario() { [ -x "$1" ] && run_tap scenario "$1"; }

# The Debian packages, built and checked beside the other jobs into
# $deb_dir; their install, which swaps the server's chronoid for the
# package's, waits for every job that uses the server (below).
deb_dir=
if [ -x tests/scenarios/debian.sh ] && [ "$(id -u)" -eq 0 ]; then
    deb_dir=$(mktemp -d /tmp/chronoid-deb.XXXXXX) || deb_dir=
fi
# The jobs' throwaway clusters are copies of one initdb per server
# (scripts/pgcluster.sh, CHRONOID_INITDB_TEMPLATE): dozens of initdb runs
# were a minute of the machine's CPU.
initdb_template=$(mktemp -d /tmp/chronoid-initdb.XXXXXX) && chmod 755 "$initdb_template" &&
    export CHRONOID_INITDB_TEMPLATE=$initdb_template
job_debian_build() {
    [ -n "$deb_dir" ] && TAP_NAME="debian.sh build" run_tap scenario tests/scenarios/debian.sh build "$deb_dir"
}

# The regression suites and their scenarios, each mode on servers of its
# own: the suites with the short scenarios, and the longest scenarios
# (sql_long) as jobs of their own.
sql_long=(statemachine "snowflake_review snowflake_concurrency" "snowflake_attacks fault_load")
sql_short() {
    local s out=() long=" ${sql_long[*]} "
    for s in pg/test/scenarios/*.sh; do
        s=$(basename "$s" .sh)
        [[ $long == *" $s "* ]] || out+=("$s")
    done
    echo "${out[*]}"
}
job_sql() {
    [ -x pg/test/run.sh ] || return 0
    TAP_NAME="run.sh: the suites, short scenarios" CHRONOID_MODES=$1 CHRONOID_SCENARIOS="$(sql_short)" \
        run_tap "sql-$1" pg/test/run.sh
}
job_sql_scenarios() {
    [ -x pg/test/run.sh ] || return 0
    TAP_NAME="run.sh: $2" CHRONOID_MODES=$1 CHRONOID_SUITES=none CHRONOID_SCENARIOS="$2" \
        run_tap "sql-$1" pg/test/run.sh
}

# The queue.  debian.sh's install replaces the server's chronoid with the
# package's and purges it: no job may use the server meanwhile.  Every
# job holds CHECK_SHARED_LOCK shared while it runs (scripts/check_lib.bash)
# but the few that never start a server or load the extension (the lint,
# fuzzing, the unit, threaded and portable tests); the install holds it
# exclusive, so it starts when the last job that uses the server (or
# builds the packages) has ended.
#
# So the jobs that use the server come first, longest first (each
# suite's line gives its time); migrate_from_extension.sh waits
# for migrate_privilege.sh's stand-ins, so it starts late.  Then the lint,
# a long job of its own: whichever worker ends its server job first takes
# it, the other takes the install when its server job ends, so neither
# waits for the lock; the rest runs beside the install, the shortest last.
CHECK_SHARED_LOCK=$(mktemp /tmp/chronoid-check-shared.XXXXXX)
# shellcheck disable=SC2064 # the paths are known now
trap "rm -rf ${deb_dir:+'$deb_dir'} ${initdb_template:+'$initdb_template'} '$CHECK_SHARED_LOCK' '$claims_root'" EXIT
job_debian_install() {
    [ -n "$deb_dir" ] && TAP_NAME="debian.sh install" run_tap scenario tests/scenarios/debian.sh install "$deb_dir"
}
queue=("shared job_scenario tests/scenarios/migrate_privilege.sh" "shared job_asan" "shared job_cluster"
       "shared job_python" "shared job_sql plain" "shared job_sql preload" "shared job_node"
       "shared job_scenario tests/scenarios/migrate_live.sh")
for mode in plain preload; do
    for scen in "${sql_long[@]}"; do
        queue+=("shared job_sql_scenarios $mode \"$scen\"")
    done
done
queue+=("shared job_debian_build")
for extra in tests/scenarios/*.sh; do
    case $extra in
        */debian.sh | */migrate_privilege.sh | */migrate_live.sh | */migrate_from_extension.sh) ;;
        *) queue+=("shared job_scenario $extra") ;;
    esac
done
queue+=("shared job_scenario tests/scenarios/migrate_from_extension.sh"
        job_lint "exclusive job_debian_install" job_fuzz job_app job_tsan job_portable job_unit)

run_queue build/check-workers "${CHRONOID_CHECK_WORKERS:-$jobs}"

# Last: the suites on newer servers already cached rebuild pg/ for them
# (pg/.pg-build), which the suites above would otherwise undo.
[ -x pg/test/run.sh ] && CHRONOID_PG_INSTALLED= pg_matrix cached
run_tap claims "${claims_untouched[@]}"

figures "make check${WERROR:+ WERROR=1}"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
