#!/usr/bin/env bash
# migrate_lockwait.sh — a long reader and the swap: with a read transaction
# open on the table, the swap makes no try that would queue its ACCESS
# EXCLUSIVE request behind the reader (and every writer behind the
# request); it waits without asking for the lock, naming the reader's pid,
# application_name, state and transaction age, and swaps once the reader
# is gone, while writers go on.  The tables' owner, who may not see the
# reader's transaction start (another role's session), queues at most one
# try behind it, then waits likewise.  With --before-row-type-change (a
# command that may pause the applications) the wait comes before the
# command runs.  Counts of lock requests, not wall times, are asserted;
# the writers' latencies are printed.  Prints TAP; about 30 s.  Binaries
# from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server pgbench extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate_lockwait
mkdir -p "$work"
bg=()
pgc_atexit 'for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null'

q "CREATE SCHEMA ids; CREATE EXTENSION chronoid SCHEMA ids; GRANT USAGE ON SCHEMA ids TO PUBLIC;
   CREATE ROLE app LOGIN; GRANT CREATE ON DATABASE postgres TO app; GRANT CREATE ON SCHEMA public TO app" >/dev/null ||
    bail "chronoid in a trusted schema"
aq() { q -U app -c "$1"; }
for t in "q" "aq" "hq"; do
    p=; [ "$t" = aq ] && p=a
    [ "$t" = hq ] && p=h && t=q
    "$t" "CREATE TABLE ${p}orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text);
          INSERT INTO ${p}orders (note) SELECT 'o' || g FROM generate_series(1, 5000) g;
          CREATE TABLE ${p}items (id bigserial PRIMARY KEY, order_id uuid REFERENCES ${p}orders, qty int);
          CREATE INDEX ON ${p}items (order_id);
          INSERT INTO ${p}items (order_id, qty) SELECT id, 1 FROM ${p}orders" >/dev/null &&
        "$t" "VACUUM ANALYZE ${p}orders, ${p}items" >/dev/null || bail "the ${p}orders tables"
done
"$bin" migrate run --table orders --to uuidv7 --no-progress >/dev/null 2>&1 || bail "run"
"$bin" migrate run --table horders --to uuidv7 --no-progress >/dev/null 2>&1 || bail "run horders"
"$bin" migrate run --table aorders --to uuidv7 --no-progress --state-schema app_state -d "user=app" >/dev/null 2>&1 ||
    bail "run as app"

# reader TABLE SECONDS: a report's transaction reads TABLE, then keeps it open; sets rpid.
reader() {
    PGAPPNAME=report "$PGC_BIN/psql" -XAtq -c "BEGIN; SELECT count(*) FROM $1; SELECT pg_sleep($2); COMMIT" >/dev/null 2>&1 &
    bg+=($!)
    rpid=
    for _ in $(seq 100); do
        rpid=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'report' AND query LIKE '%pg_sleep%'")
        [ -n "$rpid" ] && return
        sleep 0.05
    done
    bail "the reader did not start"
}
# watch FILE: until FILE/../stop-watch, one line per 20 ms sample: the
# number of chronoid-migrate's lock requests waiting, and whether the
# reader is still there.
watch() {
    while [ ! -e "$work/stop-watch" ]; do
        q "SELECT (SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                    WHERE NOT l.granted AND a.application_name = 'chronoid-migrate')
                  || ' ' || (SELECT count(*) FROM pg_stat_activity WHERE application_name = 'report')" >>"$1"
        sleep 0.02
    done
}
# writers PREFIX USER: the application, an order and its item per transaction, 200 a second, 8 s.
writers() {
    echo "WITH o AS (INSERT INTO $1orders (note) VALUES ('w') RETURNING id) INSERT INTO $1items (order_id, qty) SELECT id, 1 FROM o;" \
        >"$work/$1write.sql"
    (cd "$work" && exec "$PGC_BIN/pgbench" -n -U "$2" -c 2 -j 2 -T 8 --rate 200 -f "$1write.sql" -l \
        --log-prefix="$1lat" >"$work/$1pgbench.out" 2>&1) &
    wpid=$!
}
# latencies PREFIX: "transactions failed max_ms over_300ms" from pgbench's log.
latencies() {
    cat "$work/$1"lat.* 2>/dev/null | awk '$3 ~ /^[0-9]+$/ { n++; if ($3 > m) m = $3; if ($3 > 300000) s++; next }
        { f++ } END { printf "%d %d %d %d\n", n, f, m / 1000, s }'
}

# --- A superuser's swap meets a report's transaction. ---
writers "" postgres
sleep 1
reader orders 4
sleep 1   # the reader's transaction is older than --lock-timeout (500 ms)
rm -f "$work/stop-watch"; watch "$work/samples" & bg+=($!)
"$bin" migrate swap --table orders --no-progress >"$work/swap.out" 2>&1; rc=$?
touch "$work/stop-watch"
wait "$wpid"; wrc=$?
check "the swap goes through once the reader is gone" "$rc" 0 "$(tail -5 "$work/swap.out")"
queued=$(grep -c "lock not granted" "$work/swap.out")
waits=$(grep -c "lock not requested" "$work/swap.out")
check "no try queued for the lock while the reader held it (tries that timed out)" "$queued" 0 "$(cat "$work/swap.out")"
read -r blocked_samples reader_samples <<<"$(awk '$2 > 0 { r++; if ($1 > 0) b++ } END { printf "%d %d\n", b, r }' "$work/samples")"
ok_if "no lock request of the tool's waited in pg_locks while the reader was there ($reader_samples samples)" \
    '[ "$reader_samples" -gt 10 ] && [ "$blocked_samples" -eq 0 ]' "$blocked_samples samples with a request waiting"
ok_if "it waited without queueing instead ($waits times), naming the reader's pid, application_name, state and transaction age" \
    '[ "$waits" -ge 1 ] && grep -q "lock not requested (try 1 of 30); held by pid $rpid (client backend, application_name '"'report'"', active, transaction open [0-9.]* s: BEGIN; SELECT count" "$work/swap.out"' \
    "$(head -3 "$work/swap.out")"
read -r nt wfail max slow <<<"$(latencies "")"
ok_if "the writers went on: $nt transactions, none failed" '[ "$wrc" -eq 0 ] && [ "$nt" -gt 200 ] && [ "$wfail" -eq 0 ]' \
    "pgbench rc=$wrc" "$(tail -3 "$work/pgbench.out")"
diag "writers: $nt transactions, max latency $max ms, $slow over 300 ms"
check "the swap is done" "$(q "SELECT step FROM chronoid.migration WHERE relid = 'orders'::regclass")" "done"

# --- The tables' owner may not see when the reader's transaction began. ---
writers a app
sleep 1
reader aorders 4
sleep 1
"$bin" migrate swap --table aorders --no-progress --state-schema app_state -d "user=app" >"$work/aswap.out" 2>&1; rc=$?
wait "$wpid"; wrc=$?
check "the owner's swap goes through once the reader is gone" "$rc" 0 "$(tail -5 "$work/aswap.out")"
queued=$(grep -c "lock not granted" "$work/aswap.out")
ok_if "it queued one try at most behind the reader it cannot date ($queued), then waited without queueing" \
    '[ "$queued" -le 1 ] && grep -q "lock not requested (try [0-9]* of 30); held by pid $rpid (application_name '"'report'"', AccessShareLock on public.aorders; what it runs shows" "$work/aswap.out"' \
    "$(cat "$work/aswap.out")"
read -r nt wfail max slow <<<"$(latencies a)"
ok_if "the owner's writers went on: $nt transactions, none failed" '[ "$wrc" -eq 0 ] && [ "$nt" -gt 200 ] && [ "$wfail" -eq 0 ]' \
    "pgbench rc=$wrc" "$(tail -3 "$work/apgbench.out")"
diag "owner's writers: $nt transactions, max latency $max ms, $slow over 300 ms"

# --- With a command that pauses the applications, they are not kept
# paused while the swap waits for the reader: the command runs after. ---
reader horders 3
sleep 1
"$bin" migrate swap --table horders --no-progress \
    --before-row-type-change "psql -XAtc \"SELECT 'before, readers: ' || count(*) FROM pg_stat_activity WHERE application_name = 'report'\" >>$work/hooks.log" \
    --after-row-type-change "echo after >>$work/hooks.log" >"$work/hswap.out" 2>&1; rc=$?
check "a swap with the commands goes through once the reader is gone" "$rc" 0 "$(tail -5 "$work/hswap.out")"
check "the before command ran after the reader was gone" "$(tr '\n' ';' <"$work/hooks.log")" "before, readers: 0;after;" \
    "$(cat "$work/hswap.out")"
ok_if "meanwhile it waited, naming the reader" 'grep -q "lock not requested (try 1 of 30); held by pid $rpid " "$work/hswap.out"' \
    "$(cat "$work/hswap.out")"

tap_done
