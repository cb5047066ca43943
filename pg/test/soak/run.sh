#!/usr/bin/env bash
# pg/test/soak/run.sh — the long fault runs (`make soak`; docs/faults.md):
# installs the extension, starts a throwaway cluster (scripts/pgcluster.sh)
# and runs pg/test/scenarios/fault_load.sh with 8 clients for SOAK_SECONDS
# (default 60) per kind of key, then fault_crash.sh and fault_clock.sh,
# without and then with shared_preload_libraries = 'chronoid'.  Prints TAP
# and a figures table, then the state-machine test (statemachine.sh) with
# 10,000 random steps (SOAK_SM_STEPS), in both modes.  Last, `chronoid
# migrate` on a live table (tests/scenarios/migrate_live.sh, its own
# clusters): SOAK_MIGRATE_ROWS (default 1,000,000) rows and as many child
# rows, writers all along, SOAK_MIGRATE_KILLS (default 5) random SIGKILLs
# of `run`, the swap, a rollback, the replication-lag pause with a logical
# subscriber, the swap again (SOAK_MIGRATE_KINDS, default uuidv7).  Then
# the application side's state machine (tests/app/run.sh) with
# SOAK_APP_STEPS (default 20,000) steps.  Exits non-zero on any failure.
# Run as root.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
. "$root/scripts/tap.bash"
scen=$root/pg/test/scenarios
PG_CONFIG=${PG_CONFIG:-pg_config}
secs=${SOAK_SECONDS:-60}

if [ "$(id -u)" -ne 0 ]; then
    skip_all "pg/test/soak/run.sh must run as root (it runs the server as postgres)"
fi
if ! pgxs=$("$PG_CONFIG" --pgxs 2>/dev/null) || [ ! -f "$pgxs" ] || ! id postgres >/dev/null 2>&1; then
    skip_all "needs PostgreSQL server development files and a postgres OS user"
fi

PGC_PREFIX=chronoid-soak
. "$root/scripts/pgcluster.sh"
pgc_mkdir
tmp=$PGC_DIR
figures=$tmp/figures
: >"$figures"

if make -C "$root/pg" PG_CONFIG="$PG_CONFIG" install >"$tmp/install.log" 2>&1; then
    ok "make -C pg install"
else
    not_ok "make -C pg install"
    tail -n 30 "$tmp/install.log" | diag
    tap_done
fi
if ! pgc_init "max_connections = 40" 2>"$tmp/init.err"; then
    not_ok "initdb"
    diag <"$tmp/init.err"
    tap_done
fi
mkdir -p "$tmp/scratch"
chown postgres: "$tmp/scratch" "$figures"
export PGDATABASE=postgres PGDATA=$PGC_DATA PGBIN=$PGC_BIN PGLOG=$PGC_LOG
export CHRONOID_TMP=$tmp/scratch
export CHRONOID_PGCTL="runuser -u postgres -- $PGC_BIN/pg_ctl -D $PGC_DATA -l $PGC_LOG -w"
export TZ=UTC LC_ALL=C

# scenario MODE FILE [env...]: one scenario's TAP, renumbered (tap_relay).
scenario() {
    local mode=$1 s=$2 out name t0
    shift 2
    name=${s##*/}
    name=${name%.sh}
    t0=$SECONDS
    out=$(env "$@" CHRONOID_MODE="$mode" bash "$s" 2>&1)
    tap_relay "$mode: $name" <<<"$out"
    echo "# $mode: $name took $((SECONDS - t0)) s"
}

run_mode() {
    scenario "$1" "$scen/fault_load.sh" FAULT_LOAD_SECONDS="$secs" FAULT_LOAD_CLIENTS=8 \
        FAULT_FIGURES="$figures"
    scenario "$1" "$scen/fault_crash.sh"
    scenario "$1" "$scen/fault_clock.sh"
    # The invariants under random steps: 10,000 per mode (SOAK_SM_STEPS).
    scenario "$1" "$scen/statemachine.sh" CHRONOID_SM_STEPS="${SOAK_SM_STEPS:-10000}" \
        CHRONOID_SM_TIMEOUT=3600
}

# shellcheck disable=SC2119 # no extra settings
if pgc_start 2>"$tmp/start.err"; then
    ok "server starts without shared_preload_libraries"
    run_mode plain
    if pgc_restart "shared_preload_libraries = 'chronoid'" 2>"$tmp/start.err"; then
        ok "server restarts with shared_preload_libraries = 'chronoid'"
        run_mode preload
    else
        not_ok "server restarts with shared_preload_libraries = 'chronoid'"
        diag <"$tmp/start.err"
    fi
else
    not_ok "server starts without shared_preload_libraries"
    diag <"$tmp/start.err"
fi

# The live key move, 1,000,000 rows by default (its own two clusters).
scenario migrate "$root/tests/scenarios/migrate_live.sh" MIGRATE_ROWS="${SOAK_MIGRATE_ROWS:-1000000}" \
    MIGRATE_KILLS="${SOAK_MIGRATE_KILLS:-5}" MIGRATE_KINDS="${SOAK_MIGRATE_KINDS:-uuidv7}" MIGRATE_RATE=200

# Node claims and Snowflakes in application processes: 20,000 random steps.
scenario app "$root/tests/app/run.sh" CHRONOID_APP_STEPS="${SOAK_APP_STEPS:-20000}"

# The figures: one line per mode and kind of key, then the totals.
if [ -s "$figures" ]; then
    echo "#"
    echo "# PostgreSQL $("$PGC_BIN/postgres" --version | awk '{print $3}'), $(nproc) CPUs, fsync = off, 8 clients (pgbench -j 2), 10 rows per transaction"
    awk -F'|' '
        BEGIN {
            name["sf"] = "snowflake.nextval()"; name["v7"] = "uuidv7()"
            name["ulid"] = "gen_monotonic_ulid()"; name["serial"] = "bigserial (control)"
            printf "# | %-7s | %-21s | %7s | %7s | %11s | %9s | %6s | %10s |\n", \
                "mode", "key", "clients", "seconds", "IDs", "IDs/s", "errors", "duplicates"
            printf "# |%s|%s|%s|%s|%s|%s|%s|%s|\n", "---------", "-----------------------", \
                "--------:", "--------:", "------------:", "----------:", "-------:", "-----------:"
        }
        {
            printf "# | %-7s | %-21s | %7d | %7d | %11d | %9d | %6d | %10d |\n", \
                $1, name[$2], $3, $4, $5, $6, $7, $8
            ids += $5; errs += $7; dups += $8
        }
        END { printf "# total: %d IDs, %d errors, %d duplicates\n", ids, errs, dups }
    ' "$figures"
fi

tap_done
