#!/usr/bin/env bash
# bench/pk/run.sh — what `make bench-pk` runs: `chronoid bench-pk --scratch`
# on a throwaway cluster (scripts/pgcluster.sh) with the settings of
# docs/benchmarks.md's primary-key section, removed afterwards whatever
# happened.  Arguments go to bench-pk (e.g. --rows 200000 --out DIR).
# Run as root (the server runs as postgres) or as a user who may run
# initdb.  CHRONOID_BIN names the chronoid command (default build/chronoid).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${CHRONOID_BIN:-$root/build/chronoid}

die() { printf 'bench-pk: %s\n' "$*" >&2; exit 1; }
[ -x "$bin" ] || die "no $bin (make first)"
bindir=$(pg_config --bindir 2>/dev/null) && [ -x "$bindir/initdb" ] ||
    die "no PostgreSQL server (initdb) to start a throwaway cluster with (make setup)"

# shared_buffers small enough that a few million rows' index outgrows it,
# as a production table outgrows its cache; fsync off: a throwaway cluster
# (the WAL volume is the same).  checkpoint_timeout 30s: a load of a minute
# or two meets checkpoints, and with them the full-page images a long
# production run writes.  Autovacuum stays on (the tables turn it off for
# themselves).
settings=("fsync = off" "shared_buffers = 128MB" "checkpoint_timeout = 30s" "max_connections = 100")
if [ -f "$(pg_config --pkglibdir)/chronoid.so" ] &&
   [ -f "$(pg_config --sharedir)/extension/chronoid.control" ]; then
    settings+=("shared_preload_libraries = 'chronoid'" "snowflake.node = 1")
else
    echo "bench-pk: the chronoid extension is not installed: its keys are skipped" >&2
fi

PGC_PREFIX=chronoid-bpk
# shellcheck source=../../scripts/pgcluster.sh
. "$root/scripts/pgcluster.sh"
[ -t 2 ] && echo "bench-pk: starting a throwaway PostgreSQL cluster" >&2
pgc_start "${settings[@]}" >/dev/null || die "the throwaway cluster did not start: $(tail -n 3 "$PGC_LOG" 2>/dev/null)"
"$bin" bench-pk --scratch --conninfo "host=$PGC_SOCK port=$PGC_PORT user=postgres dbname=postgres" "$@"
