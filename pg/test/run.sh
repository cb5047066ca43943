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
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}

n=0
failed=0
tap_ok() { n=$((n + 1)); echo "ok $n - $1"; }
tap_not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
diag() { sed 's/^/# /'; }

if [ "$(id -u)" -ne 0 ]; then
    echo "1..0 # SKIP pg/test/run.sh must run as root (it runs the server as postgres)"
    exit 0
fi
if ! pgxs=$("$PG_CONFIG" --pgxs 2>/dev/null) || [ ! -f "$pgxs" ]; then
    echo "1..0 # SKIP PostgreSQL server development files are not installed"
    exit 0
fi
if ! id postgres >/dev/null 2>&1; then
    echo "1..0 # SKIP no postgres OS user"
    exit 0
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
if make -C "$root/pg" PG_CONFIG="$PG_CONFIG" install >"$tmp/install.log" 2>&1; then
    tap_ok "make -C pg install"
else
    tap_not_ok "make -C pg install"
    tail -n 30 "$tmp/install.log" | diag
    echo "1..$n"
    exit 1
fi

# 2. A private cluster: Unix socket in our temp dir, no TCP, fsync off.
mkdir -p "$tmp/regress" "$tmp/scratch"
if ! pgc_init "max_connections = 40" 2>/dev/null; then
    tap_not_ok "initdb"
    tail -n 20 "$tmp/initdb.log" | diag
    echo "1..$n"
    exit 1
fi
data=$PGC_DATA
sock=$PGC_SOCK
log=$PGC_LOG
port=$PGC_PORT

export PGHOST=$sock PGPORT=$port PGUSER=postgres PGDATABASE=chronoid_regress
export PGDATA=$data PGBIN=$bindir PGLOG=$log CHRONOID_TMP=$tmp/scratch
export CHRONOID_PGCTL="runuser -u postgres -- $bindir/pg_ctl -D $data -l $log -w"
export TZ=UTC LC_ALL=C

# pg_regress reads a copy: a suite without an expected file yet gets an
# empty one (it fails with its diff instead of stopping pg_regress).
input=$tmp/input
mkdir -p "$input/sql" "$input/expected"
tests=()
for f in "$here"/sql/*.sql; do
    [ -e "$f" ] || continue
    t=$(basename "$f" .sql)
    tests+=("$t")
    cp "$f" "$input/sql/"
    if [ -f "$here/expected/$t.out" ]; then
        cp "$here/expected/$t.out" "$input/expected/"
    else
        : >"$input/expected/$t.out"
    fi
done
cp "$here"/expected/*_[0-9].out "$input/expected/" 2>/dev/null
# Pieces the suites share (\ir include/...), not suites themselves.
[ -d "$here/sql/include" ] && cp -r "$here/sql/include" "$input/sql/"
chown -R postgres: "$input"

# run_suite LABEL [INPUTDIR TEST...]: a fresh database, pg_regress over
# every file (default: $input and all of pg/test/sql), one TAP line per
# file with the diff of a failed one.
run_suite() {
    local label=$1 in=${2:-$input} out t line dir=$tmp/regress/$1
    local -a list=("${tests[@]}")
    [ $# -gt 2 ] && list=("${@:3}")
    mkdir -p "$dir"
    chown postgres: "$dir"
    "$bindir/dropdb" --if-exists chronoid_regress >/dev/null 2>&1
    if ! "$bindir/createdb" chronoid_regress >"$tmp/createdb.log" 2>&1; then
        tap_not_ok "$label: createdb"
        diag <"$tmp/createdb.log"
        return
    fi
    # SUITE_INIT: SQL run in the fresh database first (e.g. installing an
    # older version and updating it: the suites' CREATE EXTENSION IF NOT
    # EXISTS then finds the updated extension).
    if [ -n "${SUITE_INIT:-}" ]; then
        if "$bindir/psql" -XAtq -v ON_ERROR_STOP=1 -d chronoid_regress -c "$SUITE_INIT" >"$tmp/init.log" 2>&1; then
            tap_ok "$label: $SUITE_INIT"
        else
            tap_not_ok "$label: $SUITE_INIT"
            diag <"$tmp/init.log"
            return
        fi
    fi
    # From the suites' directory: psql reads each file on standard input,
    # so \ir include/... resolves against the working directory.
    out=$(cd "$in/sql" && "$regress" --use-existing --host="$sock" --port="$port" --user=postgres \
        --bindir="$bindir" --inputdir="$in" --outputdir="$dir" \
        --dbname=chronoid_regress "${list[@]}" 2>&1)
    for t in "${list[@]}"; do
        # PostgreSQL 15: "test uuid ... ok"; 16+: "ok 1 - uuid".
        line=$(grep -E "(^| )$t +\.\.\. |^(not )?ok +[0-9]+ +[-+] +$t( |$)" <<<"$out" | head -n 1)
        if grep -qE '\.\.\. +ok|^ok ' <<<"$line"; then
            tap_ok "$label/$t"
        else
            tap_not_ok "$label/$t"
            if [ -f "$dir/results/$t.out" ]; then
                diff -U3 "$in/expected/$t.out" "$dir/results/$t.out" | head -n 150 | diag
            else
                grep -v '^ok\|\.\.\. ok' <<<"$out" | head -n 30 | diag
            fi
        fi
    done
}

# run_sql16 LABEL: the suites of pg/test/sql16 (expected output in
# pg/test/expected16) use PostgreSQL 16+ features (soft input errors); on
# an older server each is reported as a skip.
run_sql16() {
    local label=$1 f ver in16=$tmp/input16
    local -a t16=()
    for f in "$here"/sql16/*.sql; do
        [ -e "$f" ] && t16+=("$(basename "$f" .sql)")
    done
    [ ${#t16[@]} -gt 0 ] || return 0
    ver=$("$bindir/psql" -XAtq -d postgres -c 'SHOW server_version_num' 2>/dev/null)
    if [ "${ver:-0}" -lt 160000 ]; then
        for f in "${t16[@]}"; do
            tap_ok "$label/$f # SKIP needs PostgreSQL 16+"
        done
        return 0
    fi
    mkdir -p "$in16/sql" "$in16/expected"
    for f in "${t16[@]}"; do
        cp "$here/sql16/$f.sql" "$in16/sql/"
        if [ -f "$here/expected16/$f.out" ]; then
            cp "$here/expected16/$f.out" "$in16/expected/"
        else
            : >"$in16/expected/$f.out"
        fi
    done
    chown -R postgres: "$in16"
    run_suite "$label" "$in16" "${t16[@]}"
}

# run_scenarios MODE: each scenario's TAP, renumbered.
run_scenarios() {
    local mode=$1 s out line planned seen
    for s in "$here"/scenarios/*.sh; do
        [ -e "$s" ] || continue
        out=$(CHRONOID_MODE=$mode bash "$s" 2>&1)
        seen=0
        planned=
        while IFS= read -r line; do
            case $line in
                "not ok"*)
                    seen=$((seen + 1))
                    tap_not_ok "$mode: $(basename "$s" .sh): $(sed -E 's/^not ok *[0-9]* *-? *//' <<<"$line")" ;;
                ok*)
                    seen=$((seen + 1))
                    tap_ok "$mode: $(basename "$s" .sh): $(sed -E 's/^ok *[0-9]* *-? *//' <<<"$line")" ;;
                1..*)
                    planned=${line#1..}
                    planned=${planned%% *} ;;
                *) echo "# $line" ;;
            esac
        done <<<"$out"
        if [ -n "$planned" ] && [ "$planned" -gt "$seen" ]; then
            tap_not_ok "$mode: $(basename "$s" .sh): ran $seen of $planned planned cases"
        elif [ "$seen" -eq 0 ]; then
            tap_not_ok "$mode: $(basename "$s" .sh): no TAP output"
        fi
    done
}

# 3. Without preload.
# shellcheck disable=SC2119 # no extra settings here
if pgc_start 2>/dev/null; then
    started=1
    tap_ok "server starts without shared_preload_libraries"
    run_suite sql
    # The same suites on 0.1.0 updated in place: every upgrade script
    # must end where a fresh install does (objects, comments, behaviour).
    for old in $(cd "$root/pg/sql" && ls chronoid--*.sql | sed -nE 's/^chronoid--([0-9.]+)\.sql$/\1/p'); do
        [ "$old" = "$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$root/pg/chronoid.control")" ] && continue
        SUITE_INIT="CREATE EXTENSION chronoid VERSION '$old'; ALTER EXTENSION chronoid UPDATE" \
            run_suite "sql-from-$old"
    done
    run_sql16 sql16
    run_scenarios plain
else
    tap_not_ok "server starts without shared_preload_libraries"
    tail -n 20 "$log" | diag
fi

# 4. With preload: the same files, the same expected output.
if [ -n "$started" ]; then
    if pgc_restart "shared_preload_libraries = 'chronoid'" 2>/dev/null; then
        tap_ok "server restarts with shared_preload_libraries = 'chronoid'"
        run_suite sql-preload
        run_sql16 sql16-preload
        run_scenarios preload
    else
        tap_not_ok "server restarts with shared_preload_libraries = 'chronoid'"
        tail -n 20 "$log" | diag
    fi
fi

echo "1..$n"
exit "$failed"
