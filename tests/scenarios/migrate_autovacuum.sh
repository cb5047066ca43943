#!/usr/bin/env bash
# migrate_autovacuum.sh — `chronoid migrate` and autovacuum: run leaves the
# table and its child vacuumed, so no autovacuum is due at the swap; a
# swap that meets one anyway (forced to crawl on the child) cancels it, as
# PostgreSQL's lock manager would after deadlock_timeout, and finishes at
# once with the default --lock-timeout while writers stay within the
# documented bound; a try that times out names the session that held the
# lock; a role that may not cancel the autovacuum waits for it without
# queueing for a lock.  Prints TAP; about 30 s.  Binaries from $BUILD (default build/).
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server pgbench extension chronoid-migrate

. scripts/pgcluster.sh
# A short naptime: autovacuum comes back to a table a second after it was cancelled.
pgc_start "autovacuum_naptime = 1" "log_autovacuum_min_duration = 0" >/dev/null ||
    bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate_autovacuum
mkdir -p "$work"

mig() { "$bin" migrate "$@" --no-progress; }
lock_timeout_ms=500   # the default --lock-timeout
children=1

q "CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text);
   INSERT INTO orders (note) SELECT 'o' || g FROM generate_series(1, 20000) g;
   CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid REFERENCES orders ON DELETE CASCADE, qty int);
   CREATE INDEX ON items (order_id);
   INSERT INTO items (order_id, qty) SELECT id, g FROM orders, generate_series(1, 2) g" >/dev/null
q "VACUUM ANALYZE orders, items" >/dev/null

began=$(q "SELECT now()")
out=$(mig run --table orders --to uuidv7 2>&1); rc=$?
sleep 1   # statistics reach pg_stat_user_tables within a second
# autovacuum's default trigger: 50 + 20% of the rows dead.
due=$(q "SELECT string_agg(format('%s: vacuumed by run %s, %s dead, due %s', relname, last_vacuum > '$began',
                                  n_dead_tup, n_dead_tup > 50 + 0.2 * n_live_tup), '; ' ORDER BY relname)
           FROM pg_stat_user_tables WHERE relname IN ('orders', 'items')")
ok_if "run ends with the table and its child vacuumed: autovacuum is not due on them" \
    '[ $rc -eq 0 ] && [[ $due == "items: vacuumed by run t, "*" dead, due f; orders: vacuumed by run t, "*" dead, due f" ]]' \
    "rc=$rc $due" "$(tail -3 <<<"$out")"

# crawl RUN TABLE: an autovacuum made due on TABLE (through RUN, its
# owner's psql) and made to crawl, holding SHARE UPDATE EXCLUSIVE on it for
# minutes; sets worker to its pid.
crawl() {
    "$1" "ALTER TABLE $2 SET (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0,
                             autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = 1);
          UPDATE $2 SET qty = qty + 1" >/dev/null
    worker=
    for _ in $(seq 1 300); do
        worker=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND query LIKE '%VACUUM%public.$2%'")
        [ -n "$worker" ] && return
        sleep 0.1
    done
    bail "autovacuum never started on $2"
}
crawl q items
diag "autovacuum worker $worker is vacuuming items"

# Writers, as the application: an order and its item per transaction.
cat >"$work/write.sql" <<'EOF'
WITH o AS (INSERT INTO orders (note) VALUES ('w') RETURNING id) INSERT INTO items (order_id, qty) SELECT id, 1 FROM o;
EOF
(cd "$work" && exec "$PGC_BIN/pgbench" -n -c 2 -j 2 -T 8 --rate 200 -f write.sql -l --log-prefix=lat \
    >"$work/pgbench.out" 2>&1) &
writers=$!
sleep 2
t0=$(date +%s%N)
timeout 120 "$bin" migrate swap --table orders --no-progress >"$work/swap.out" 2>&1; rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
wait "$writers"; wrc=$?
ok_if "swap gets past the child's autovacuum with the default --lock-timeout, in under 5 s" \
    '[ $rc -eq 0 ] && [ $ms -lt 5000 ]' "rc=$rc after $ms ms" "$(tail -5 "$work/swap.out")"
ok_if "swap says it cancelled the autovacuum, naming its pid and the table" \
    'grep -q "cancelled autovacuum pid $worker (autovacuum: VACUUM[A-Z ]* public.items), which held a lock on public.items" "$work/swap.out"' \
    "$(head -5 "$work/swap.out")"
bound=$(((1 + children) * lock_timeout_ms))
read -r max nt wfail <<<"$(cat "$work"/lat.* 2>/dev/null | awk '
    $3 ~ /^[0-9]+$/ { n++; if ($3 > m) m = $3; next } { f++ } END { printf "%d %d %d\n", m / 1000, n, f }')"
# The bound docs/migrate.md gives, plus 500 ms for a loaded test machine.
ok_if "writers never waited beyond (1 + children) x --lock-timeout = $bound ms (+ 500 ms slack): max $max ms over $nt transactions" \
    '[ $wrc -eq 0 ] && [ "$nt" -gt 100 ] && [ "$wfail" -eq 0 ] && [ "$max" -lt $((bound + 500)) ]' \
    "pgbench rc=$wrc, $wfail failed" "$(tail -3 "$work/pgbench.out")"
diag "swap took $ms ms; writers: $nt transactions, max latency $max ms"
check "every order and item joined on the new key" \
    "$(q "SELECT count(*) = (SELECT count(*) FROM items WHERE order_id IS NOT NULL) FROM items i JOIN orders o ON o.id = i.order_id")"

# A session that keeps the child locked: the try that times out names it.
# Rolled back first (that builds an index CONCURRENTLY, which would wait
# for the session's transaction to end), then swapped again: that is one
# short transaction, which has to wait for the lock.
out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback after the swap" "$rc" 0 "$out"
psql -XAtq -c "BEGIN; LOCK items IN ROW EXCLUSIVE MODE; SELECT pg_sleep(20)" >/dev/null 2>&1 &
holder=$!
sleep 1
hpid=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(20)%' AND pid <> pg_backend_pid()")
out=$(mig swap --table orders --retries 2 2>&1); rc=$?
ok_if "a swap a long transaction holds off names the session holding the lock and what it runs" \
    '[ $rc -eq 1 ] && [[ $out == *"held by pid $hpid (client backend, application_name "*", active, transaction open "*"SELECT pg_sleep(20)"* ]]' \
    "rc=$rc" "$out"
kill "$holder" 2>/dev/null
q "SELECT pg_terminate_backend($hpid)" >/dev/null
wait "$holder" 2>/dev/null
out=$(mig swap --table orders 2>&1); rc=$?
check "and once it is gone, the swap goes through" "$rc" 0 "$out"

# --- a role that may not cancel autovacuum waits, taking no lock -------------
# The tables' owner runs the tool itself: no superuser, and on PostgreSQL
# 18 no pg_signal_autovacuum_worker, but pg_read_all_stats, so that it can
# tell an autovacuum from another session (without it the tool tries the
# lock, bounded by --lock-timeout, as for any holder).  The swap waits for
# the child's crawling autovacuum without queueing for a lock, says which
# pid, and goes on once a superuser cancels it.
q "CREATE ROLE app LOGIN; GRANT CREATE ON DATABASE postgres TO app; GRANT CREATE ON SCHEMA public TO app;
   GRANT pg_read_all_stats TO app" >/dev/null
aq() { q -U app -c "$1"; }
amig() { "$bin" migrate "$@" --state-schema app_state --no-progress -d "user=app"; }
aq "CREATE TABLE aorders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text);
    INSERT INTO aorders (note) SELECT 'o' || g FROM generate_series(1, 5000) g;
    CREATE TABLE aitems (id bigserial PRIMARY KEY, order_id uuid REFERENCES aorders, qty int);
    INSERT INTO aitems (order_id, qty) SELECT id, 1 FROM aorders" >/dev/null
aq "VACUUM ANALYZE aorders, aitems" >/dev/null
out=$(amig run --table aorders --to uuidv7 2>&1); rc=$?
ok_if "the owner, no superuser, runs the move" '[ $rc -eq 0 ]' "$(tail -3 <<<"$out")"
crawl aq aitems
cat >"$work/awrite.sql" <<'EOF'
WITH o AS (INSERT INTO aorders (note) VALUES ('w') RETURNING id) INSERT INTO aitems (order_id, qty) SELECT id, 1 FROM o;
EOF
(cd "$work" && exec "$PGC_BIN/pgbench" -n -U app -c 2 -j 2 -T 6 --rate 200 -f awrite.sql -l --log-prefix=alat \
    >"$work/apgbench.out" 2>&1) &
writers=$!
timeout 120 "$bin" migrate swap --table aorders --state-schema app_state --no-progress -d "user=app" \
    >"$work/aswap.out" 2>&1 &
swapper=$!
sleep 4
waited=$(kill -0 "$swapper" 2>/dev/null && echo running || echo ended)
queued=$(q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE NOT l.granted AND a.application_name = 'chronoid-migrate'")
ok_if "the owner's swap waits for the autovacuum it may not cancel, naming its pid, queued for no lock" \
    '[ "$waited" = running ] && [ "$queued" = 0 ] && grep -q "waiting for autovacuum pid $worker " "$work/aswap.out"' \
    "swap $waited, $queued lock requests queued" "$(cat "$work/aswap.out")"
# Cancelled, it would be due again at once (naptime 1 s) and crawl again.
q "SELECT pg_cancel_backend($worker)" >/dev/null
q "ALTER TABLE aitems SET (autovacuum_enabled = false)" >/dev/null
wait "$swapper"; rc=$?
wait "$writers"; wrc=$?
read -r max nt wfail <<<"$(cat "$work"/alat.* 2>/dev/null | awk '
    $3 ~ /^[0-9]+$/ { n++; if ($3 > m) m = $3; next } { f++ } END { printf "%d %d %d\n", m / 1000, n, f }')"
ok_if "once a superuser cancels it, the swap goes through; writers never waited on the swap meanwhile (max $max ms)" \
    '[ $rc -eq 0 ] && [ $wrc -eq 0 ] && [ "$wfail" -eq 0 ] && [ "$max" -lt $((bound + 500)) ]' \
    "swap rc=$rc, pgbench rc=$wrc, $wfail failed, $nt transactions" "$(tail -3 "$work/aswap.out")"

tap_done

