#!/usr/bin/env bash
# bench/block/run.sh — what `make bench-block` runs: bench/block/
# bench_block.c (built by make as $BUILD/bench_block) against a throwaway
# cluster (scripts/pgcluster.sh) with this tree's extension, which it
# installs and uses under /tmp/chronoid-pg.lock.  The server keeps fsync on, as a
# real one would: nextval_block() and the hand-written UPDATE both wait for
# WAL on disk.  BENCH_BLOCK_SECONDS (default 1.5) per run, BENCH_BLOCK_REPEAT
# (default 3) rounds.  Run as root (the server runs as postgres, and the
# pause test stops its processes).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=${BENCH_BLOCK_BIN:-$root/build/bench_block}
export TZ=UTC LC_ALL=C

die() { printf 'bench-block: %s\n' "$*" >&2; exit 1; }
[ -x "$bench" ] || die "no $bench (make bench-block builds it)"
[ "$(id -u)" -eq 0 ] || die "run as root: the server runs as postgres, the pause test stops it"
bindir=$(pg_config --bindir 2>/dev/null) && [ -x "$bindir/initdb" ] ||
    die "no PostgreSQL server to start a throwaway cluster with (make setup)"

PGC_PREFIX=chronoid-bblock
# shellcheck source=../../scripts/pgcluster.sh
. "$root/scripts/pgcluster.sh"
pgc_lock || die "$PGC_LOCK_ERROR"
make -s --no-print-directory -C "$root/pg" install >/dev/null 2>&1 || die "make -C pg install"
pgc_start "fsync = on" "synchronous_commit = on" "max_connections = 60" >/dev/null ||
    die "cannot start a throwaway cluster"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION chronoid" \
    -c "CREATE SEQUENCE public.bench_nv; CREATE SEQUENCE public.bench_blk" \
    -c "CREATE TABLE public.id_blocks (name text PRIMARY KEY, next_start int8 NOT NULL)" \
    -c "INSERT INTO public.id_blocks VALUES ('bench', 1)" || die "cannot set up the database"
# The lock stays until the end: every new backend loads the module from
# disk, and another tree's install meanwhile would be what it loads.

echo "# $(date -u +%Y-%m-%d) $(uname -m), $(nproc) CPUs, $("$bindir/postgres" --version)"
"$bench" "$(head -n 1 "$PGC_DATA/postmaster.pid")" "${BENCH_BLOCK_SECONDS:-1.5}" "${BENCH_BLOCK_REPEAT:-3}"
