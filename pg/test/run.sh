#!/usr/bin/env bash
# pg/test/run.sh — install the extension, start a throwaway PostgreSQL
# cluster and run the regression suites against it, twice: without and
# with shared_preload_libraries = 'chronoid'.  Prints TAP.  Run as root
# from anywhere (scripts/check.sh runs it from the repository root).
#
# Scenario scripts pg/test/scenarios/*.sh run after the suites, once per
# mode, as root, with the cluster in the environment: PGHOST (socket dir),
# PGPORT, PGUSER=postgres, PGDATABASE, PGDATA, PGBIN, PGLOG (server log),
# CHRONOID_TMP (scratch dir owned by postgres), CHRONOID_MODE (plain or
# preload) and CHRONOID_PGCTL (pg_ctl run as postgres: "$CHRONOID_PGCTL
# restart -m immediate").  They print TAP ("ok"/"not ok" lines, "#"
# diagnostics; their numbers and plan are renumbered here).
#
# The server: PG_CONFIG's (default pg_config), any version; the matrix
# (scripts/check.sh matrix) runs this once per version with
# PG_CONFIG=/var/cache/chronoid/pg/18/bin/pg_config and so on.
# CHRONOID_SCENARIOS: the scenarios to run, by name without .sh (default
# all of them; "none" for the regression suites alone).
# CHRONOID_MODES: "plain", "preload" or both (the default).
# CHRONOID_SUITES=none: the scenarios alone (make check runs the longest
# scenarios as jobs of their own).
# CHRONOID_QUICK=1 (make test): the suites once, on a fresh install
# without preload, and the scenarios in that mode only.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}

. "$root/scripts/tap.bash"

if [ "$(id -u)" -ne 0 ]; then
    skip_all "pg/test/run.sh must run as root (it runs the server as postgres)"
fi
if ! pgxs=$("$PG_CONFIG" --pgxs 2>/dev/null) || [ ! -f "$pgxs" ]; then
    skip_all "PostgreSQL server development files are not installed"
fi
if ! id postgres >/dev/null 2>&1; then
    skip_all "no postgres OS user"
fi

# The throwaway cluster (temp dir, initdb, start/stop, traps that stop the
# server and remove the dir on exit, failure or Ctrl-C) is scripts/pgcluster.sh.
. "$root/scripts/pgcluster.sh"
bindir=$("$PG_CONFIG" --bindir)
regress=$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress
pgc_mkdir
tmp=$PGC_DIR
started=

# CHRONOID_PG_RESULTS=dir keeps each suite's results/*.out there (for
# writing expected files).
# shellcheck disable=SC2317 # run at exit, through pgc_atexit
keep_results() {
    if [ -n "${CHRONOID_PG_RESULTS:-}" ] && [ -d "$tmp/regress" ]; then
        mkdir -p "$CHRONOID_PG_RESULTS"
        cp -r "$tmp/regress/." "$CHRONOID_PG_RESULTS/"
    fi
}
pgc_atexit keep_results

# 1. Build and install (as root, where pg_config says).
how="make -C pg install install-released"
pgc_installed_by_caller && how="the extension is installed (by the caller: CHRONOID_PG_INSTALLED)"
if PG_CONFIG=$PG_CONFIG pgc_install install-released >"$tmp/install.log" 2>&1; then
    ok "$how"
else
    not_ok "$how"
    tail -n 30 "$tmp/install.log" | diag
    tap_done
fi

# 2. A private cluster: Unix socket in our temp dir, no TCP, fsync off.
mkdir -p "$tmp/regress" "$tmp/scratch"
if ! pgc_init "max_connections = 40" 2>/dev/null; then
    not_ok "initdb"
    tail -n 20 "$tmp/initdb.log" | diag
    tap_done
fi
data=$PGC_DATA
sock=$PGC_SOCK
log=$PGC_LOG
port=$PGC_PORT

export PGHOST=$sock PGPORT=$port PGUSER=postgres PGDATABASE=contrib_regression
export PGDATA=$data PGBIN=$bindir PGLOG=$log CHRONOID_TMP=$tmp/scratch
export CHRONOID_PGCTL="runuser -u postgres -- $bindir/pg_ctl -D $data -l $log -w"
export TZ=UTC LC_ALL=C

# The suites, in pg/Makefile's REGRESS order: `make installcheck` is what
# runs them, here as anywhere (docs/testing.md).
read -r -a tests <<<"$(make -s --no-print-directory -C "$root/pg" PG_CONFIG="$PG_CONFIG" regress-list)"
diag "server: $("$bindir/postgres" --version)"

# run_suite LABEL: a fresh database, `make -C pg installcheck` in it (every
# suite), one TAP line per suite with the diff of a failed one.
run_suite() {
    local label=$1 out t line dir=$tmp/regress/$1
    [ "${CHRONOID_SUITES:-all}" = none ] && return 0
    # Suites write binary COPY files under results/ (PG_ABS_BUILDDIR, as
    # PostgreSQL's own suites do): the server's OS user must own it.
    mkdir -p "$dir/results"
    chown -R postgres: "$dir"
    "$bindir/dropdb" --if-exists contrib_regression >/dev/null 2>&1
    if ! "$bindir/createdb" contrib_regression >"$tmp/createdb.log" 2>&1; then
        not_ok "$label: createdb"
        diag <"$tmp/createdb.log"
        return
    fi
    # SUITE_INIT: SQL run in the fresh database first (e.g. installing an
    # older version and updating it: the suites' CREATE EXTENSION IF NOT
    # EXISTS then finds the updated extension).
    if [ -n "${SUITE_INIT:-}" ]; then
        if "$bindir/psql" -XAtq -v ON_ERROR_STOP=1 -d contrib_regression -c "$SUITE_INIT" >"$tmp/init.log" 2>&1; then
            ok "$label: $SUITE_INIT"
        else
            not_ok "$label: $SUITE_INIT"
            diag <"$tmp/init.log"
            return
        fi
    fi
    out=$(make -s --no-print-directory -C "$root/pg" PG_CONFIG="$PG_CONFIG" installcheck \
        REGRESS_OPTS="--inputdir=test --outputdir=$dir --use-existing --dbname=contrib_regression" 2>&1)
    for t in "${tests[@]}"; do
        # PostgreSQL 15: "test uuid ... ok"; 16+: "ok 1 - uuid".
        line=$(grep -E "(^| )$t +\.\.\. |^(not )?ok +[0-9]+ +[-+] +$t( |$)" <<<"$out" | head -n 1)
        if grep -qE '\.\.\. +ok|^ok ' <<<"$line"; then
            ok "$label/$t"
        else
            not_ok "$label/$t"
            # pg_regress's own diff: against the closest of the
            # alternative expected files (name_1.out, ...).
            if [ -f "$dir/regression.diffs" ] && grep -q "/$t.out" "$dir/regression.diffs"; then
                awk -v t="/$t.out" '/^diff / {p = index($0, t) > 0} p' "$dir/regression.diffs" |
                    head -n 150 | diag
            elif [ -f "$dir/results/$t.out" ]; then
                diff -U3 "$root/pg/test/expected/$t.out" "$dir/results/$t.out" | head -n 150 | diag
            else
                grep -v '^ok\|\.\.\. ok' <<<"$out" | head -n 30 | diag
            fi
        fi
    done
}

# run_scenarios MODE: each scenario's TAP, renumbered, and its time.
run_scenarios() {
    local mode=$1 s name t0 out
    for s in "$here"/scenarios/*.sh; do
        [ -e "$s" ] || continue
        name=${s##*/}
        name=${name%.sh}
        case " ${CHRONOID_SCENARIOS:-all} " in
            *" all "* | *" $name "*) ;;
            *) continue ;;
        esac
        t0=$SECONDS
        out=$(CHRONOID_MODE=$mode bash "$s" 2>&1)
        echo "# $mode: $name: $((SECONDS - t0)) s"
        tap_relay "$mode: $name" <<<"$out"
    done
}

# CHRONOID_MODES: the modes to run, "plain preload" unless one is named
# (make check runs each mode as a job of its own, on a server of its own).
modes=" ${CHRONOID_MODES:-plain preload} "

# 3. Without preload.
# shellcheck disable=SC2119 # no extra settings here
if [[ $modes != *" plain "* ]]; then
    :
elif pgc_start 2>/dev/null; then
    started=1
    ok "server starts without shared_preload_libraries"
    run_suite sql
    # The same suites on the oldest release updated in place, through
    # every upgrade script: it must behave as a fresh install does.  That
    # every other release's path ends in the same catalog (objects,
    # definitions, privileges, comments) is scenarios/upgrade.sh's job, a
    # fraction of a full pass per version.
    oldest=$(cd "$root/pg/test/released" && ls chronoid--*.sql | sed -nE 's/^chronoid--([0-9.]+)\.sql$/\1/p' |
        sort -t. -k1,1n -k2,2n -k3,3n | head -n 1)
    [ -n "${CHRONOID_QUICK:-}" ] ||
        SUITE_INIT="CREATE EXTENSION chronoid VERSION '$oldest'; ALTER EXTENSION chronoid UPDATE" \
            run_suite "sql-from-$oldest"
    run_scenarios plain
else
    not_ok "server starts without shared_preload_libraries"
    tail -n 20 "$log" | diag
fi

# 4. With preload: the same files, the same expected output.
if [[ $modes == *" preload "* ]] && [ -z "${CHRONOID_QUICK:-}" ]; then
    if [ -n "$started" ]; then
        how=restarts
        pgc_restart "shared_preload_libraries = 'chronoid'" 2>/dev/null
    else
        how=starts
        pgc_start "shared_preload_libraries = 'chronoid'" 2>/dev/null
    fi
    # shellcheck disable=SC2181 # the branch above chose the command
    if [ $? -eq 0 ]; then
        ok "server $how with shared_preload_libraries = 'chronoid'"
        run_suite sql-preload
        run_scenarios preload
    else
        not_ok "server $how with shared_preload_libraries = 'chronoid'"
        tail -n 20 "$log" | diag
    fi
fi

tap_done
