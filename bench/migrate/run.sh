#!/usr/bin/env bash
# bench/migrate/run.sh — what `make bench-migrate` runs: `chronoid migrate
# run` on a throwaway cluster (scripts/pgcluster.sh) over a table of
# BENCH_MIGRATE_ROWS rows (default 5,000,000; uuid key from
# gen_random_uuid(), created_at), moved --to uuidv7 --time-from created_at
# with the tool's default pacing.  Per repeat (BENCH_MIGRATE_REPEAT,
# default 3):
#
#   1. baseline: the writers alone for BENCH_MIGRATE_SECONDS (default 30),
#      no migration: pgbench, 2 clients at BENCH_MIGRATE_RATE (default 200)
#      transactions/s in all, half inserting a row, half updating a random
#      one;
#   2. the backfill alone (no writers): rows/s;
#   3. the backfill with the same writers running: rows/s, and the writers'
#      latencies while the backfill ran.
#
# After each run the migration is rolled back and the table vacuumed, so
# every run starts from the same rows (with the free space the previous
# run's row versions left).  Prints the figures of every repeat and a table
# of the medians with ratios.  Run as root (the server runs as postgres).
# CHRONOID_BIN names the chronoid command (default build/chronoid).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${CHRONOID_BIN:-$root/build/chronoid}
ROWS=${BENCH_MIGRATE_ROWS:-5000000}
REPEAT=${BENCH_MIGRATE_REPEAT:-3}
SECS=${BENCH_MIGRATE_SECONDS:-30}
RATE=${BENCH_MIGRATE_RATE:-200}
export TZ=UTC LC_ALL=C

die() { printf 'bench-migrate: %s\n' "$*" >&2; exit 1; }
[ -x "$bin" ] || die "no $bin (make first)"
bindir=$(pg_config --bindir 2>/dev/null) && [ -x "$bindir/initdb" ] && [ -x "$bindir/pgbench" ] ||
    die "no PostgreSQL server (initdb, pgbench) to start a throwaway cluster with (make setup)"
[ -f "$(pg_config --sharedir)/extension/chronoid.control" ] || die "the chronoid extension is not installed (make -C pg install)"

PGC_PREFIX=chronoid-bmig
# shellcheck source=../../scripts/pgcluster.sh
. "$root/scripts/pgcluster.sh"
pgc_start "shared_buffers = 256MB" "max_wal_size = 4GB" "max_connections = 20" >/dev/null ||
    die "the throwaway cluster did not start: $(tail -n 3 "$PGC_LOG" 2>/dev/null)"
work=$PGC_DIR/bench
mkdir -p "$work"
chmod 777 "$work"
writers_pid=
pgc_atexit '[ -n "$writers_pid" ] && kill "$writers_pid" 2>/dev/null; wait'
q() { psql -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
now_ms() { date +%s%3N; }

echo "# bench-migrate: $ROWS rows, $REPEAT repeats, writers: 2 clients, $RATE tx/s, baseline ${SECS} s"
echo "# PostgreSQL $("$PGC_BIN/postgres" --version | awk '{print $3}'), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now_ms)
psql -Xq -v ON_ERROR_STOP=1 <<SQL || die "loading the table failed"
CREATE EXTENSION chronoid;
CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), seq bigserial UNIQUE,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(), note int NOT NULL DEFAULT 0);
INSERT INTO orders (created_at)
  SELECT now() - interval '365 days' + g * (interval '365 days' / $ROWS) FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE orders;
SQL
echo "# loaded $ROWS rows in $(( ($(now_ms) - t0) / 1000 )) s; table $(q "SELECT pg_size_pretty(pg_total_relation_size('orders'))")"

printf '%s\n' "INSERT INTO orders (note) VALUES (1);" >"$work/ins.sql"
printf '%s\n' '\set s random(1, :n)' "UPDATE orders SET note = note + 1 WHERE seq = :s;" >"$work/upd.sql"
chmod a+r "$work"/*.sql

# writers TAG SECONDS: pgbench in the background, its log in $work/TAG.*
writers() {
    "$PGC_BIN/pgbench" -n -c 2 -j 2 -T "$2" --rate "$RATE" -D n="$ROWS" --log --log-prefix="$work/$1" \
        -f "$work/ins.sql@1" -f "$work/upd.sql@1" >"$work/$1.out" 2>&1 &
    writers_pid=$!
}
# lat TAG FROM TO: "p50 p99 max count" in ms of transactions ending within [FROM, TO] (epoch ms)
lat() {
    cat "$work/$1".[0-9]* 2>/dev/null | awk -v a="$2" -v b="$3" '
        $3 ~ /^[0-9]+$/ { t = $5 * 1000 + $6 / 1000; if (t >= a && t <= b) print $3 / 1000 }' | sort -n |
        awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "- - - 0"; exit }
            i = int(NR * 0.5); if (i < 1) i = 1; j = int(NR * 0.99); if (j < 1) j = 1
            printf "%.2f %.2f %.1f %d\n", v[i], v[j], v[NR], NR }'
}
# migrate_run TAG: the run, each stderr line stamped; prints "rows ms" of the backfill
migrate_run() {
    PGAPPNAME=chronoid-migrate "$bin" migrate run --table orders --to uuidv7 --time-from created_at \
        2>&1 >"$work/$1.run.out" | while IFS= read -r line; do echo "$(now_ms) $line"; done >"$work/$1.run.err"
    local e
    e=$(now_ms)
    grep -q 'ready to swap' "$work/$1.run.out" || die "run $1 failed: $(tail -n 3 "$work/$1.run.err")"
    local a b n
    a=$(awk '/adding id_new/ { print $1; exit }' "$work/$1.run.err")
    b=$(awk '/proving/ { print $1; exit }' "$work/$1.run.err")
    n=$(sed -nE 's/.*\(([0-9]+) rows backfilled\).*/\1/p' "$work/$1.run.out")
    echo "$n $((b - a)) $a $b $((e - b))"
}
reset_table() {
    PGAPPNAME=chronoid-migrate "$bin" migrate rollback --table orders >"$work/rollback.out" 2>&1 ||
        die "rollback failed: $(tail -n 3 "$work/rollback.out")"
    q "VACUUM orders" >/dev/null
}

: >"$work/results"
for r in $(seq "$REPEAT"); do
    # 1. baseline
    a=$(now_ms)
    writers "base$r" "$SECS"
    wait "$writers_pid"
    writers_pid=
    read -r b50 b99 bmax bn <<<"$(lat "base$r" "$a" "$(now_ms)")"
    # 2. backfill alone
    read -r n1 ms1 _ _ rest1 <<<"$(migrate_run "alone$r")"
    [ -n "${ms1:-}" ] || exit 1
    reset_table
    # 3. backfill with writers (they run longer than the backfill; only its window counts)
    writers "with$r" 100000
    sleep 2
    read -r n2 ms2 a2 b2 rest2 <<<"$(migrate_run "with$r")"
    [ -n "${ms2:-}" ] || exit 1
    kill "$writers_pid" 2>/dev/null
    wait "$writers_pid" 2>/dev/null
    writers_pid=
    read -r w50 w99 wmax wn <<<"$(lat "with$r" "$a2" "$b2")"
    [ "$r" -lt "$REPEAT" ] && reset_table
    rps1=$(awk -v n="$n1" -v m="$ms1" 'BEGIN { printf "%d", n / (m / 1000) }')
    rps2=$(awk -v n="$n2" -v m="$ms2" 'BEGIN { printf "%d", n / (m / 1000) }')
    echo "$rps1 $rps2 $b50 $b99 $w50 $w99 $bmax $wmax $bn $wn $(awk -v m="$ms2" -v n="$wn" 'BEGIN { printf "%.1f", n / (m / 1000) }')" >>"$work/results"
    echo "# repeat $r: backfill alone $n1 rows in $ms1 ms ($rps1 rows/s), then check and indexes $rest1 ms;" \
        "with writers $n2 rows in $ms2 ms ($rps2 rows/s), then $rest2 ms;" \
        "writers baseline p50 $b50 p99 $b99 max $bmax ms ($bn tx), during the backfill p50 $w50 p99 $w99 max $wmax ms ($wn tx)"
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# medians
med() { awk -v c="$1" '{ print $c }' "$work/results" | sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'; }
rps1=$(med 1); rps2=$(med 2); b50=$(med 3); b99=$(med 4); w50=$(med 5); w99=$(med 6); bmax=$(med 7); wmax=$(med 8)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
echo
echo "Medians of $REPEAT repeats, $ROWS rows, --to uuidv7 --time-from created_at, default pacing:"
echo
echo "| measure | no migration | backfill, no writers | backfill + writers | ratio |"
echo "|---|--:|--:|--:|--:|"
echo "| backfill rows/s | | $rps1 | $rps2 | $(ratio "$rps2" "$rps1") |"
echo "| writers p50 latency (ms) | $b50 | | $w50 | $(ratio "$w50" "$b50") |"
echo "| writers p99 latency (ms) | $b99 | | $w99 | $(ratio "$w99" "$b99") |"
echo "| writers max latency (ms) | $bmax | | $wmax | $(ratio "$wmax" "$bmax") |"
