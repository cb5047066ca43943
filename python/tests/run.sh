#!/usr/bin/env bash
# run.sh — the Python package's suite, as make check runs it: build and
# install python/ with pip from the tree (no package index, no build
# isolation: the distribution's setuptools), then its pytest suite with
# one TAP line per test (conftest.py's --tap).
#
#   python/tests/run.sh          plain build, into $BUILD/python/site; with
#                                a throwaway PostgreSQL cluster and the
#                                extension for the psycopg tests
#   python/tests/run.sh asan     the module built with ASan+UBSan, into
#                                $BUILD/python/asan-site, the suite under
#                                the sanitizers' runtime (a cluster for the
#                                lease tests; not the psycopg ones)
#   python/tests/run.sh tsan     the module built with TSan, the threaded
#                                tests under its runtime (a cluster for the
#                                lease's): the interpreter is not
#                                instrumented, but the GIL is a pthread
#                                mutex, so TSan sees the module's accesses
#                                and what orders them
#
# PYTHON (default /usr/bin/python3: Debian's, whose python3-pytest and
# python3-psycopg scripts/setup.sh installs), BUILD (default build).
# About 50 s plain, 30 s asan, on the 2-CPU machine (plus any wait for
# /tmp/chronoid-pg.lock).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. scripts/tap.bash
export TZ=UTC LC_ALL=C
mode=${1:-plain}
PYTHON=${PYTHON:-/usr/bin/python3}
BUILD=${BUILD:-build}
root=$PWD
out=$root/$BUILD/python
mkdir -p "$out"
# Claims go to a directory of this run's own, never the host's default
# (node claims are host-wide: docs/node-claims.md); removed at exit.
claims=$(mktemp -d "${TMPDIR:-/tmp}/chronoid-py-claims.XXXXXX") || bail "mktemp"
trap 'rm -rf "$claims"' EXIT
export CHRONOID_CLAIM_DIR=$claims/claims

"$PYTHON" -c 'import pytest' 2>/dev/null || bail "$PYTHON has no pytest (apt-get install python3-pytest)"

site=$out/site
env=(CHRONOID_WERROR="${WERROR:-}")
case $mode in
    asan) site=$out/asan-site; env+=("CHRONOID_SAN=address,undefined") ;;
    tsan) site=$out/tsan-site; env+=("CHRONOID_SAN=thread") ;;
esac
rm -rf "$site" python/chronoid.egg-info
# pip builds in the tree (python/build, python/build-asan): see setup.py.
if ! env "${env[@]}" "$PYTHON" -m pip install --quiet --no-build-isolation --no-index --no-deps \
        --no-warn-script-location --target "$site" ./python >"$out/pip-$mode.log" 2>&1; then
    diag <"$out/pip-$mode.log"
    bail "pip install ./python ($mode)"
fi

# lease_cluster: for the sanitizer passes, a throwaway cluster for the
# lease tests (the lease table is plain SQL: no extension, so no lock).
lease_cluster() {
    command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ] || return 0
    # shellcheck source-path=SCRIPTDIR source=../../scripts/pgcluster.sh
    . scripts/pgcluster.sh
    # shellcheck disable=SC2119
    pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
    pytest_env+=(CHRONOID_PY_PG=1 PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" PGDATABASE="$PGDATABASE")
}

pytest_env=(PYTHONPATH="$site" CHRONOID_PY_EXPECT="$site/chronoid" PYTHONDONTWRITEBYTECODE=1 CHRONOID_PY_BSON=1
            CHRONOID_PY_MYPY=1)
# The random source the build must have chosen (setup.py; scripts/setup.sh
# installs libssl-dev): OpenSSL's DRBG, unless the run asks for getrandom.
if [ -n "${CHRONOID_NO_OPENSSL:-}" ]; then
    pytest_env+=(CHRONOID_PY_EXPECT_RANDOM=getrandom)
elif [ -f /usr/include/openssl/rand.h ]; then
    pytest_env+=(CHRONOID_PY_EXPECT_RANDOM=openssl)
fi
pytest_args=(-p no:cacheprovider -q --tap -o addopts= -o console_output_style=classic python/tests)

if [ "$mode" = asan ]; then
    libasan=$(cc -print-file-name=libasan.so)
    [ -f "$libasan" ] || bail "no libasan.so for the ASan pass"
    # The interpreter is not built with ASan: its runtime is preloaded, and
    # leaks (the interpreter keeps objects to exit) are not reported.
    pytest_env+=(LD_PRELOAD="$libasan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CHRONOID_PY_ROUNDS=1000)
    # Not the psycopg tests (they need the extension), nor mypy's (it runs
    # no chronoid code).
    lease_cluster
    env "${pytest_env[@]}" "$PYTHON" -m pytest "${pytest_args[@]}" -k "not psycopg and not typing"
    exit
fi
if [ "$mode" = tsan ]; then
    libtsan=$(cc -print-file-name=libtsan.so)
    [ -f "$libtsan" ] || bail "no libtsan.so for the TSan pass"
    pytest_env+=(LD_PRELOAD="$libtsan" TSAN_OPTIONS=halt_on_error=1:exitcode=66)
    lease_cluster
    env "${pytest_env[@]}" "$PYTHON" -m pytest "${pytest_args[@]}" -k "thread or gil"
    exit
fi

# The psycopg tests: a throwaway cluster and the extension from this tree.
if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ] &&
        "$PYTHON" -c 'import psycopg' 2>/dev/null; then
    make -s --no-print-directory -C pg >"$out/pg-build.log" 2>&1 || {
        diag <"$out/pg-build.log"; bail "make -C pg"; }
    # Installing into the server's directories is shared with whoever else
    # tests the extension on this machine: hold the lock from the install
    # until the suite is done with it (initdb and a few seconds of tests).
    # shellcheck source-path=SCRIPTDIR source=../../scripts/pgcluster.sh
    . scripts/pgcluster.sh
    pgc_lock || bail "$PGC_LOCK_ERROR (another suite installs the extension)"
    pgc_install >"$out/pg-install.log" 2>&1 || {
        diag <"$out/pg-install.log"; bail "make -C pg install"; }
    # shellcheck disable=SC2119
    pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
    pytest_env+=(CHRONOID_PY_PG=1 PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" PGDATABASE="$PGDATABASE")
    env "${pytest_env[@]}" "$PYTHON" -m pytest "${pytest_args[@]}"
    rc=$?
    [ "$rc" -ne 0 ] && { echo "server log (end):"; tail -n 20 "$PGC_LOG"; } | diag
    exit "$rc"
fi
echo "# no PostgreSQL server binaries or no psycopg: the psycopg tests skip"
env "${pytest_env[@]}" "$PYTHON" -m pytest "${pytest_args[@]}"
