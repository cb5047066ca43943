#!/usr/bin/env bash
# migrate_subscriber.sh — `chronoid migrate` with a real logical
# subscriber (a second throwaway cluster) of the table and its child,
# writers going on throughout.  run --subscriber adds the columns there;
# swap refuses, naming the slot, while the subscription is disabled and
# changes nothing; the first swap goes without --subscriber, the DBA
# having applied the printed `subscriber-ddl swap` preparation: the
# subscriber stops (missing replicated column), rollback and finish refuse
# naming its slot, and the printed transaction, applied by hand, lets it
# go on; rollback, the second swap and finish then go with --subscriber.
# After each step, writers paused and the subscriber caught up, both
# sides hold the same rows (count and a sum of every row's hash) under the
# same column names.  Prints TAP; about 60 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs root server extension chronoid-migrate

PGC_PREFIX=chronoid-migsub
. scripts/pgcluster.sh
pgc_start "wal_level = logical" "max_wal_senders = 10" "max_replication_slots = 10" \
    "wal_sender_timeout = 10s" >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/work
mkdir -p "$work"
chmod 777 "$work"

# --- the subscriber: a second cluster of its own, private, stopped on exit ---
pgc_second sub "wal_retrieve_retry_interval = 1s" || bail "start the subscriber"
sub_sock=$PGC2_SOCK

subq() { q -h "$sub_sock" -p "$PGC_PORT" -c "$1"; }
sub_conninfo="host=$sub_sock port=$PGC_PORT dbname=postgres user=postgres"
mig() { "$bin" migrate "$@" --no-progress; }

schema="CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL, amount bigint NOT NULL);
        CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid NOT NULL REFERENCES orders, qty int NOT NULL);
        CREATE INDEX ON items (order_id);"
q "CREATE SCHEMA ids; CREATE EXTENSION chronoid SCHEMA ids; GRANT USAGE ON SCHEMA ids TO PUBLIC;
   $schema
   INSERT INTO orders (n, amount) SELECT g, g * 10 FROM generate_series(1, 3000) g;
   INSERT INTO items (order_id, qty) SELECT id, n % 7 FROM orders, generate_series(1, 2);
   ANALYZE orders; ANALYZE items;
   CREATE PUBLICATION shop FOR TABLE orders, items" >/dev/null || bail "the publisher's tables"
subq "$schema" >/dev/null || bail "the subscriber's tables"
subq "CREATE SUBSCRIPTION shop_sub CONNECTION 'host=$PGC_SOCK port=$PGC_PORT dbname=postgres user=postgres' PUBLICATION shop" \
    >/dev/null || bail "the subscription"
for _ in $(seq 300); do
    [ "$(subq "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ] && break
    sleep 0.1
done
check "the subscriber has copied both tables" "$(subq "SELECT count(*) FROM items")" 6000

# --- writers: new orders with items, and updates of old ones, until told to pause ---
writer() {
    local w=$1 i=0
    while [ ! -f "$work/stop" ]; do
        if [ -f "$work/pause" ]; then
            touch "$work/paused.$w"
            sleep 0.05
            continue
        fi
        rm -f "$work/paused.$w"
        i=$((i + 1))
        if q "WITH o AS (INSERT INTO orders (n, amount) VALUES ($w * 100000 + $i, $i) RETURNING id)
              INSERT INTO items (order_id, qty) SELECT id, $i % 5 FROM o;
              UPDATE orders SET amount = amount + 1 WHERE n = ($i * 37 + $w) % 3000 + 1" >/dev/null 2>>"$work/writer.$w.err"; then
            echo ok >>"$work/writer.$w.log"
        else
            echo fail >>"$work/writer.$w.log"
        fi
        sleep 0.02
    done
}
writers=()
for w in 1 2; do
    writer "$w" &
    writers+=($!)
done
pgc_atexit 'touch "$work/stop"; for p in "${writers[@]}"; do kill "$p" 2>/dev/null; done; wait'

# Pause the writers, wait until the subscriber confirmed everything, and
# print "count|sum of row hashes" for both tables of side $1 (pub or sub).
pause() {
    touch "$work/pause"
    for _ in $(seq 200); do
        [ -f "$work/paused.1" ] && [ -f "$work/paused.2" ] && return 0
        sleep 0.05
    done
    return 1
}
resume() { rm -f "$work/pause" "$work"/paused.*; }
caught_up() { slot_caught_up shop_sub; }
digest_sql="SELECT (SELECT count(*) || '|' || sum(hashtext(o::text)) FROM orders o) || '|' ||
                   (SELECT count(*) || '|' || sum(hashtext(i::text)) FROM items i) || '|' ||
                   (SELECT string_agg(attname, ',' ORDER BY attrelid::regclass::text, attnum) FROM pg_attribute
                     WHERE attrelid IN ('orders'::regclass, 'items'::regclass) AND attnum > 0 AND NOT attisdropped)"
# same_rows LABEL: the writers paused, both sides compared, the writers resumed.
same_rows() {
    local pub sub
    pause || not_ok "$1: the writers pause" "$(ls "$work")"
    caught_up || diag "the subscriber has not confirmed the publisher's position: $(tail -n 3 "$PGC2_LOG")"
    pub=$(q "$digest_sql")
    sub=$(subq "$digest_sql")
    check "$1: the subscriber has the same rows, sums and columns as the publisher" "$sub" "$pub"
    resume
}

# --- run: --subscriber adds the columns there first ---------------------------
out=$(mig plan --table orders --to uuidv7 2>&1); rc=$?
ok_if "plan says the subscribers need each step's DDL, and the two ways to give it" \
    '[ $rc -eq 0 ] && [[ $out == *"is published for logical replication"*"--subscriber CONNINFO"*"subscriber-ddl STEP"* ]]' \
    "rc=$rc" "$out"
out=$(mig subscriber-ddl run --table orders --to uuidv7 2>&1); rc=$?
ok_if "subscriber-ddl run prints the columns to add, on the table and its child" \
    '[ $rc -eq 0 ] && [[ $out == *"ALTER TABLE public.orders ADD COLUMN IF NOT EXISTS id_new pg_catalog.uuid;"* ]] && [[ $out == *"ALTER TABLE public.items ADD COLUMN IF NOT EXISTS order_id_new pg_catalog.uuid;"* ]]' \
    "rc=$rc" "$out"
sleep 0.5
out=$(mig run --table orders --to uuidv7 --subscriber "$sub_conninfo" 2>&1); rc=$?
check "run --subscriber goes through under writers" "$rc" 0 "$(tail -n 5 <<<"$out")"
ok_if "and said it added the columns on the subscriber (naming it, not its conninfo)" \
    '[[ $out == *"subscriber postgres on $sub_sock:$PGC_PORT: added the migration"* ]]' "$out"
same_rows "after run"

# --- the refusal: a disabled subscription's slot is not in use ---------------
subq "ALTER SUBSCRIPTION shop_sub DISABLE" >/dev/null
for _ in $(seq 100); do
    [ "$(q "SELECT active FROM pg_replication_slots WHERE slot_name = 'shop_sub'")" = f ] && break
    sleep 0.1
done
out=$(mig swap --table orders --max-lag 1s 2>&1); rc=$?
ok_if "swap refuses while the subscription is disabled, naming its slot and the way out" \
    '[ $rc -eq 1 ] && [[ $out == *"refusing the swap"*"slot shop_sub (not in use"*"--max-lag"* ]]' "rc=$rc" "$out"
check "and changed nothing" "$(q "SELECT step FROM chronoid.migration")|$(q "SELECT count(*) FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id_old'")" \
    "indexed|0"
subq "ALTER SUBSCRIPTION shop_sub ENABLE" >/dev/null
same_rows "the subscription enabled again"
# A lagging one: a session on the subscriber holds its table for 4 s while
# the writers go on, so its apply worker waits and confirms nothing.
q -h "$sub_sock" -p "$PGC_PORT" -c "BEGIN; LOCK TABLE orders; SELECT pg_sleep(4); COMMIT" >/dev/null 2>&1 &
locker=$!
sleep 0.5
out=$(mig swap --table orders --max-lag 1s 2>&1); rc=$?
ok_if "swap refuses while the subscriber lags past --max-lag, naming its slot and how far behind" \
    '[ $rc -eq 1 ] && [[ $out == *"refusing the swap"*"slot shop_sub (confirmed "*" behind)"*"within 1s (--max-lag)"* ]]' "rc=$rc" "$out"
check "and changed nothing" "$(q "SELECT step FROM chronoid.migration")" indexed
wait "$locker"
same_rows "the subscriber caught up again"

# --- swap by hand: the printed DDL --------------------------------------------
ddl=$(mig subscriber-ddl swap --table orders 2>&1); rc=$?
ok_if "subscriber-ddl swap prints the indexes to build first and the renames and key move in one transaction" \
    '[ $rc -eq 0 ] && [[ $ddl == *"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS"*"BEGIN;"*"RENAME COLUMN id TO id_old"*"RENAME COLUMN id_new TO id"*"PRIMARY KEY USING INDEX"*"RENAME COLUMN order_id_new TO order_id"*"COMMIT;"* ]]' \
    "rc=$rc" "$ddl"
grep '^CREATE UNIQUE INDEX CONCURRENTLY' <<<"$ddl" >"$work/prep.sql"
sed -n '/^BEGIN;$/,/^COMMIT;$/p' <<<"$ddl" >"$work/swap.sql"
while read -r stmt; do
    subq "$stmt" >/dev/null || not_ok "the preparation on the subscriber: $stmt"
done <"$work/prep.sql"
out=$(mig swap --table orders 2>&1); rc=$?
check "swap without --subscriber goes through" "$rc" 0 "$(tail -n 5 <<<"$out")"
ok_if "and says the subscribers need the DDL, and how to get it" \
    '[[ $out == *"is published: each logical subscriber stops"*"subscriber-ddl swap --table orders"* ]]' "$out"
for _ in $(seq 100); do
    grep -q 'missing replicated column' "$PGC2_LOG" && break
    sleep 0.1
done
ok_if "the subscriber stops at the swap (missing replicated column)" \
    'grep -q "missing replicated column" "$PGC2_LOG"'
out=$(mig rollback --table orders --max-lag 2s 2>&1); rc=$?
ok_if "rollback refuses while the subscriber is stopped, naming its slot" \
    '[ $rc -eq 1 ] && [[ $out == *"refusing the rollback"*"slot shop_sub"* ]]' "rc=$rc" "$out"
out=$(mig finish --table orders --max-lag 2s 2>&1); rc=$?
ok_if "finish refuses likewise" '[ $rc -eq 1 ] && [[ $out == *"refusing the finish"*"slot shop_sub"* ]]' "rc=$rc" "$out"
check "neither changed anything" "$(q "SELECT step FROM chronoid.migration")" "done"
out=$(q -h "$sub_sock" -p "$PGC_PORT" -f "$work/swap.sql" 2>&1); rc=$?
check "the printed transaction applies on the subscriber" "$rc" 0 "$out"
same_rows "after the swap (by hand)"

# --- rollback, swap and finish with --subscriber -------------------------------
out=$(mig rollback --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
check "rollback --subscriber goes through" "$rc" 0 "$(tail -n 8 <<<"$out")"
ok_if "and the subscriber replicates again after its renames" '[[ $out == *"replicating again"* ]]' "$out"
diag "rollback: $(grep -o '\(caught up\|stopped at\) [a-z ]*' <<<"$out")"
same_rows "after rollback"
# The second swap without --subscriber again (the preparation applied by
# hand, as printed), then resumed with it while a reader on the subscriber
# holds the table for 8 s (longer than the wait for the subscriber to stop
# at the swap, a few wal_retrieve_retry_interval): the renames there wait
# at most --lock-timeout a try, then give way and try again.
while read -r stmt; do
    subq "$stmt" >/dev/null || not_ok "the preparation on the subscriber: $stmt"
done <"$work/prep.sql"
out=$(mig swap --table orders 2>&1); rc=$?
check "the second swap, without --subscriber, goes through" "$rc" 0 "$(tail -n 5 <<<"$out")"
q -h "$sub_sock" -p "$PGC_PORT" -c "BEGIN; SELECT count(*) FROM orders; SELECT pg_sleep(8); COMMIT" >/dev/null 2>&1 &
reader=$!
sleep 0.3
t0=$(date +%s%3N)
out=$(mig swap --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
took=$(( $(date +%s%3N) - t0 ))
wait "$reader"
check "swap --subscriber again brings the stopped subscriber along" "$rc" 0 "$(tail -n 8 <<<"$out")"
ok_if "waiting for the subscriber's reader a --lock-timeout at a time" \
    '[[ $out == *"another session holds a lock on public.orders there: trying again (lock_timeout 500 ms"* ]] && [ "$took" -ge 7000 ]' \
    "took $took ms" "$out"
same_rows "after the second swap (resumed with --subscriber)"
out=$(mig rollback --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
check "the second rollback --subscriber goes through" "$rc" 0 "$(tail -n 8 <<<"$out")"
same_rows "after the second rollback"
# A foreign key only the subscriber has would stop its key move after the
# publisher's: refused before any work, named.
subq "CREATE TABLE audit (order_id uuid REFERENCES orders)" >/dev/null
out=$(mig swap --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
ok_if "swap --subscriber refuses a foreign key to the key that only the subscriber has, naming it" \
    '[ $rc -eq 1 ] && [[ $out == *"foreign keys there reference public.orders"*"audit_order_id_fkey on public.audit"* ]]' "rc=$rc" "$out"
check "changing nothing" "$(q "SELECT step FROM chronoid.migration")" indexed
subq "DROP TABLE audit" >/dev/null
# A failure between the publisher's commit and the subscriber's DDL (an
# event trigger there refuses ALTER TABLE): said, and resumed by the same
# command.
subq "CREATE TABLE block_ddl (x int); INSERT INTO block_ddl VALUES (1);
      CREATE FUNCTION no_alter() RETURNS event_trigger LANGUAGE plpgsql AS
        \$\$BEGIN IF EXISTS (SELECT 1 FROM public.block_ddl) THEN RAISE EXCEPTION 'ALTER TABLE blocked by the test'; END IF; END\$\$;
      CREATE EVENT TRIGGER no_alter ON ddl_command_start WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION no_alter()" >/dev/null ||
    not_ok "the subscriber's event trigger"
out=$(mig swap --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
ok_if "a subscriber failing after the publisher's swap: said, with how to go on" \
    '[ $rc -eq 1 ] && [[ $out == *"the swap is committed here, but not on every subscriber"*"ALTER TABLE blocked by the test"*"run this again with the same --subscriber options"* ]]' \
    "rc=$rc" "$out"
ok_if "naming the subscriber, never its conninfo" '[[ $out != *"user=postgres"* ]]' "$out"
check "the publisher's swap stands (its foreign keys' validation comes after the subscribers)" \
    "$(q "SELECT step FROM chronoid.migration")|$(q "SELECT count(*) FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id_old'")" \
    "swapped|1"
subq "DELETE FROM block_ddl" >/dev/null
t0=$(date +%s%3N)
out=$(mig swap --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
took=$(( $(date +%s%3N) - t0 ))
check "the third swap --subscriber, run again, goes through" "$rc" 0 "$(tail -n 8 <<<"$out")"
ok_if "renaming there, and replicating again" \
    '[[ $out == *"renamed and its key moved"*"replicating again"* ]]' "$out"
diag "third swap: $(grep -o '\(caught up\|stopped at\) [a-z ]*' <<<"$out")in $took ms, replicating again included"
same_rows "after the third swap"
out=$(mig swap --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
ok_if "swap --subscriber again leaves a subscriber already done alone" \
    '[ $rc -eq 0 ] && [[ $out != *"renamed"* ]]' "rc=$rc" "$out"
out=$(mig finish --table orders --subscriber "$sub_conninfo" 2>&1); rc=$?
check "finish --subscriber goes through" "$rc" 0 "$(tail -n 8 <<<"$out")"
check "the subscriber's items.order_id_old takes NULL now, as the publisher's" \
    "$(subq "SELECT attnotnull FROM pg_attribute WHERE attrelid = 'items'::regclass AND attname = 'order_id_old'")" f
same_rows "after finish"
check "the subscriber's primary key is on the new id" \
    "$(subq "SELECT string_agg(a.attname, ',') FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey) WHERE c.conrelid = 'orders'::regclass AND c.contype = 'p'")" id

touch "$work/stop"
wait "${writers[@]}" 2>/dev/null
ok_if "the writers wrote throughout and none failed" \
    '[ "$(cat "$work"/writer.*.log | grep -c ok)" -gt 50 ] && ! grep -q fail "$work"/writer.*.log' \
    "ok: $(cat "$work"/writer.*.log | grep -c ok), failed: $(cat "$work"/writer.*.log | grep -c fail)" \
    "$(cat "$work"/writer.*.err | tail -n 5)"
tap_done
