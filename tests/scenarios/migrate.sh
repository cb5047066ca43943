#!/usr/bin/env bash
# migrate.sh — `chronoid migrate` on a throwaway cluster, one behaviour at a
# time: plan changes nothing; every refusal comes before any change and
# names the object and the fix; uuidv7, ulid and snowflake with and without
# --time-from give every old row exactly one new ID, unique, dated by its
# own time where asked; runs stopped by SIGINT or SIGKILL at random points
# resume and finish; a finished run again changes nothing; swap, rollback
# and swap again keep every row and foreign key; the serial road to
# snowflakes; names that need quoting; a state schema another role owns.
# The live run with writers is tests/scenarios/migrate_live.sh.  Prints
# TAP; about 40 s.  Binaries from $BUILD (default build/).
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
seed=${MIGRATE_SEED:-$RANDOM}
scenario_needs server extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start "snowflake.node = 9" >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate
mkdir -p "$work"
diag "seed $seed (MIGRATE_SEED to repeat)"
RANDOM=$seed

mig() { "$bin" migrate "$@" --no-progress; }

# A list of everything a migration could touch: columns, defaults,
# constraints, indexes, triggers, schemas.  Not the temporary schemas: the
# server creates pg_temp_N the first time a backend slot needs one (the
# tool's per-call function lives there) and keeps it, which changes no
# table.
catalog() {
    q "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (
         SELECT format('%s.%s:%s:%s:%s', c.oid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
                       a.attnotnull, pg_get_expr(d.adbin, d.adrelid)) x
           FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
           LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
          WHERE c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
            AND c.relnamespace::regnamespace::text !~ '^pg_toast'
         UNION ALL SELECT format('con %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint
          WHERE connamespace <> 'pg_catalog'::regnamespace
         UNION ALL SELECT format('idx %s', indexrelid::regclass) FROM pg_index WHERE indrelid >= 16384
         UNION ALL SELECT format('trg %s', tgname) FROM pg_trigger WHERE NOT tgisinternal
         UNION ALL SELECT format('nsp %s', nspname) FROM pg_namespace WHERE nspname !~ '^pg_(toast_)?temp_'
         UNION ALL SELECT format('ext %s', extname) FROM pg_extension) s"
}

# --- a table and its child --------------------------------------------------
setup_orders() {
    q "DROP TABLE IF EXISTS items, orders CASCADE;
       CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), created_at timestamptz, note text);
       INSERT INTO orders (created_at, note)
         SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE now() - g * interval '1 second' - (g % 7) * interval '1 microsecond' END, 'o' || g
           FROM generate_series(1, $1) g;
       CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid REFERENCES orders ON DELETE CASCADE, qty int);
       CREATE INDEX ON items (order_id);
       INSERT INTO items (order_id, qty) SELECT id, 1 FROM orders;
       INSERT INTO items (order_id, qty) SELECT id, 2 FROM orders WHERE note LIKE '%3';
       INSERT INTO items (order_id, qty) VALUES (NULL, 0);
       ANALYZE orders; ANALYZE items;" >/dev/null
}

setup_orders 3000
before=$(catalog)
out=$(mig plan --table orders --to uuidv7 --time-from created_at 2>&1); rc=$?
ok_if "plan prints the steps as SQL with their locks" \
    '[ $rc -eq 0 ] && [[ $out == *"ALTER TABLE public.orders ADD COLUMN id_new pg_catalog.uuid"* ]] && [[ $out == *"ACCESS EXCLUSIVE"* ]] && [[ $out == *"CREATE UNIQUE INDEX CONCURRENTLY"* ]] && [[ $out == *"public.items.order_id"* ]]' \
    "rc=$rc" "$(head -c 2000 <<<"$out")"
ok_if "plan warns about outside references and installs nothing" \
    '[[ $out == *"outside references"* ]] && [[ $out == *"CREATE EXTENSION chronoid"* ]]' "$(head -c 1500 <<<"$out")"
check "plan changed nothing (catalog fingerprint, no state schema, no extension)" "$(catalog)" "$before"
out=$(mig plan --table orders --to snowflake 2>&1)
ok_if "plan without --time-from says old rows get IDs minted at backfill time" \
    '[[ $out == *"minted at backfill time"* ]]' "$(head -c 800 <<<"$out")"

# --- refusals, before any change ---------------------------------------------
q "CREATE TABLE nopk (id uuid, v int);
   CREATE TABLE twopk (a int, b int, PRIMARY KEY (a, b));
   CREATE TABLE taken (id uuid PRIMARY KEY, id_new int);
   CREATE TABLE stamp (id uuid PRIMARY KEY, at int);
   CREATE TABLE dp (id uuid PRIMARY KEY); CREATE TABLE dk (id int PRIMARY KEY, p uuid REFERENCES dp DEFERRABLE);
   CREATE SCHEMA s2; CREATE TABLE s2.orders (id uuid PRIMARY KEY);
   CREATE ROLE mallory LOGIN; CREATE ROLE alice LOGIN;
   CREATE TABLE mallorys (id uuid PRIMARY KEY); ALTER TABLE mallorys OWNER TO mallory;
   CREATE TABLE alices (id uuid PRIMARY KEY); ALTER TABLE alices OWNER TO alice;
   CREATE TABLE mallory_child (id int PRIMARY KEY, a uuid REFERENCES alices); ALTER TABLE mallory_child OWNER TO mallory;
   GRANT CREATE ON DATABASE postgres TO alice, mallory;" >/dev/null
before=$(catalog)
refuse() {   # refuse NAME EXPECTED-SUBSTRING ARGS...
    local name=$1 want=$2 out rc
    shift 2
    out=$("$@" 2>&1); rc=$?
    ok_if "refused: $name" '[ $rc -eq 1 ] && [[ $out == *"$want"* ]] && [ "$(wc -l <<<"$out")" -eq 1 ]' "rc=$rc" "$out"
}
refuse "no primary key" "has no primary key" mig run --table nopk --to uuidv7
refuse "a DEFERRABLE foreign key to the key" \
    "foreign key dk_p_fkey of public.dk is DEFERRABLE: a row of public.dk written before its parent in one transaction would be refused" \
    mig plan --table dp --to uuidv7
refuse "two-column primary key" "one-column primary key" mig run --table twopk --column a --to uuidv7
refuse "a column name taken" "already has a column id_new" mig run --table taken --to uuidv7
refuse "--time-from of the wrong type" "expected a timestamp or timestamptz column" mig run --table stamp --to uuidv7 --time-from at
refuse "--time-from missing" "has no column nosuch" mig run --table stamp --to uuidv7 --time-from nosuch
refuse "ambiguous table name" "is ambiguous: public.orders, s2.orders" mig run --table orders --to ulid
refuse "no such table" "no table \"nosuch\"" mig run --table nosuch --to ulid
refuse "malformed table name" "string is not a valid identifier" mig run --table '"open' --to ulid
refuse "not the owner" "belongs to mallory" "$bin" migrate run --table mallorys --to uuidv7 -d "user=alice"
refuse "a child table another role owns" "belongs to mallory" "$bin" migrate run --table alices --to uuidv7 -d "user=alice"
refuse "snowflake without snowflake.node" "snowflake.node is not set" \
    "$bin" migrate run --table public.orders --to snowflake -d "options=-csnowflake.node=0"
refuse "swap before run" "no migration of public.orders is recorded" mig swap --table public.orders
out=$("$bin" migrate run --table x --to uuidv8 2>&1); rc=$?
ok_if "bad --to is a usage error naming the value" '[ $rc -eq 2 ] && [[ $out == *"invalid --to \"uuidv8\""* ]]' "rc=$rc $out"
out=$("$bin" migrate run --to uuidv7 2>&1); rc=$?
ok_if "run without --table is a usage error" '[ $rc -eq 2 ] && [[ $out == *"needs --table"* ]]' "rc=$rc $out"
out=$("$bin" migrate run --table t --to uuidv7 --lock-timeout 0 2>&1); rc=$?
ok_if "--lock-timeout 0 is refused (it would wait forever)" '[ $rc -eq 2 ]' "rc=$rc $out"
check "the refusals changed nothing" "$(catalog)" "$before"
# A state schema another role could have planted.
q "CREATE SCHEMA chronoid AUTHORIZATION mallory" >/dev/null
refuse "a state schema owned by another role" "refusing to keep state in schema chronoid" \
    mig run --table public.orders --to uuidv7
q "DROP SCHEMA chronoid" >/dev/null
q "CREATE SCHEMA chronoid; CREATE TABLE chronoid.migration (relid oid); ALTER TABLE chronoid.migration OWNER TO mallory" >/dev/null
refuse "a state table owned by another role" "chronoid.migration is owned by mallory" \
    mig run --table public.orders --to uuidv7
q "DROP SCHEMA chronoid CASCADE; DROP TABLE s2.orders; DROP SCHEMA s2" >/dev/null

# --- uuidv7 by created_at, stopped twice, resumed -----------------------------
# past_rows N: wait (at most 60 s) until the backfill has committed more
# than N rows, then a seeded random moment more, so that the signal lands
# mid-backfill however slow the machine is.
past_rows() {
    local i n
    for ((i = 0; i < 600; i++)); do
        n=$(q "SELECT rows_done FROM chronoid.migration" 2>/dev/null)
        [[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt "$1" ] && break
        sleep 0.1
    done
    sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
}
rows=$(q "SELECT count(*) FROM orders")
kids=$(q "SELECT count(*) FROM items")
"$bin" migrate run --table public.orders --to uuidv7 --time-from created_at --batch 20 --pause 30ms >"$work/run1" 2>&1 &
pid=$!
past_rows 0
st_text=$(mig status --table public.orders 2>&1)
st_json=$(mig status --table public.orders --json 2>&1)
kill -INT "$pid"; wait "$pid"; rc=$?
ok_if "status while run is at it: the run's pid, what it runs, its rate and ETA; no 'next: run'" \
    '[[ $st_text =~ running:\ \ pid\ [0-9]+,\ for ]] && [[ $st_text =~ [0-9]\ rows/s,\ ETA ]] && [[ $st_text != *"next:     chronoid migrate run"* ]] &&
     [[ $st_json =~ \"running\":\{\"pid\":[0-9]+,\"seconds\":[0-9]+,.*\"rows_per_second\":[0-9]+ ]]' "$st_text" "$st_json"
out=$(cat "$work/run1")
done1=$(q "SELECT rows_done FROM chronoid.migration")
ok_if "SIGINT stops run between batches, saying how to go on" \
    '[ $rc -eq 1 ] && [[ $out == *"run again to continue"* ]] && [ "$done1" -gt 0 ] && [ "$done1" -lt "$rows" ]' \
    "rc=$rc done=$done1 of $rows" "$(tail -3 "$work/run1")"
"$bin" migrate run --table public.orders --batch 20 --pause 30ms >"$work/run2" 2>&1 &
pid=$!
past_rows "$done1"
kill -KILL "$pid"; wait "$pid" 2>/dev/null
done2=$(q "SELECT rows_done FROM chronoid.migration")
ok_if "SIGKILL mid-run leaves the committed batches (no half batch)" \
    '[ "$done2" -ge "$done1" ] && [ "$(q "SELECT count(*) FROM orders WHERE id_new IS NOT NULL")" -eq "$done2" ]' \
    "done2=$done2 set=$(q "SELECT count(*) FROM orders WHERE id_new IS NOT NULL")"
out=$(mig run --table public.orders 2>&1); rc=$?
ok_if "run again finishes (the key and target come from the state)" '[ $rc -eq 0 ] && [[ $out == *"ready to swap"* ]]' "rc=$rc" "$out"
check "every old row backfilled exactly once (rows_done = rows)" "$(q "SELECT rows_done FROM chronoid.migration")" "$rows"
check "new IDs unique, all UUIDv7" \
    "$(q "SELECT count(DISTINCT id_new) = count(*) AND bool_and(uuid_extract_version(id_new) = 7) FROM orders")"
check "each dated row's ID carries its created_at millisecond" \
    "$(q "SELECT bool_and(uuid_extract_timestamp(id_new) = date_trunc('milliseconds', created_at)) FROM orders WHERE created_at IS NOT NULL")"
check "rows without created_at got IDs minted during the run (above every dated one)" \
    "$(q "SELECT min(id_new::text) FILTER (WHERE created_at IS NULL) > max(id_new::text) FILTER (WHERE created_at IS NOT NULL) FROM orders")"
check "every child row carries its parent's new ID" \
    "$(q "SELECT count(*) FROM items i LEFT JOIN orders o ON o.id = i.order_id WHERE i.order_id_new IS DISTINCT FROM o.id_new")" 0
state=$(q "SELECT updated_at, rows_done FROM chronoid.migration")
cat_before=$(catalog)
out=$(mig run --table public.orders --to uuidv7 2>&1); rc=$?
ok_if "a second run of a finished migration changes nothing" \
    '[ $rc -eq 0 ] && [ "$(q "SELECT updated_at, rows_done FROM chronoid.migration")" = "$state" ] && [ "$(catalog)" = "$cat_before" ]' "$out"
# Now that the state schema exists (alice may not read it), a non-owner
# still hears that the table is not hers, not "permission denied".
refuse "plan by a non-owner once the state schema exists" "belongs to mallory and you are alice: ALTER TABLE needs its owner; run this as mallory" \
    "$bin" migrate plan --table mallorys --to uuidv7 -d "user=alice"
refuse "a different --to while one is under way" "is being moved to uuidv7, not ulid" mig run --table public.orders --to ulid
q "INSERT INTO orders (note) VALUES ('during')" >/dev/null
check "a row written during the migration gets chronoid's ID from the default" \
    "$(q "SELECT uuid_extract_version(id_new) = 7 FROM orders WHERE note = 'during'")"
# Two at once on one table.
psql -XAtq -c "SELECT pg_advisory_lock(hashtext('chronoid.migrate'), 'public.orders'::regclass::oid::int), pg_sleep(3)" >/dev/null 2>&1 &
holder=$!
sleep 1
refuse "a second migrate on the same table at once" "another chronoid migrate is working on public.orders" \
    mig swap --table public.orders
wait "$holder"

# --- swap, rollback, swap ------------------------------------------------------
# The server logs (at DEBUG1) when a validated CHECK spares SET NOT NULL
# its scan: the swap must hold its lock for no scan.
q "ALTER SYSTEM SET log_min_messages = debug1" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null; sleep 0.3
out=$(mig swap --table public.orders 2>&1); rc=$?
q "ALTER SYSTEM RESET log_min_messages" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
ok_if "swap: SET NOT NULL was proven by the validated CHECK, no scan under the lock (server log)" \
    'grep -q "existing constraints on column \"orders.id_new\" are sufficient to prove that it does not contain nulls" "$PGC_LOG"' \
    "$(grep -i "not null\|sufficient" "$PGC_LOG" | tail -3)"
check "swap: id is the new key (v7), id_old the old (v4)" \
    "$rc|$(q "SELECT bool_and(uuid_extract_version(id) = 7 OR created_at IS NULL), bool_and(uuid_extract_version(id_old) = 4) FROM orders")" "0|t|t"
check "swap: the primary key is on the new column and every FK is valid" \
    "$(q "SELECT (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'orders_pkey') = 'PRIMARY KEY (id)'
              AND (SELECT convalidated FROM pg_constraint WHERE conname = 'items_order_id_fkey')
              AND (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'items_order_id_fkey') LIKE 'FOREIGN KEY (order_id) REFERENCES orders(id)%'")"
check "swap: rows and child rows all there, joined on the new key" \
    "$(q "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM items), (SELECT count(*) FROM items i JOIN orders o ON o.id = i.order_id)")" \
    "$((rows + 1))|$kids|$((kids - 1))"
check "swap: the child's index on the live column has its old name, the old column's index the same with _old" \
    "$(q "SELECT string_agg(indexrelid::regclass || ':' || pg_get_indexdef(indexrelid), ' ' ORDER BY indexrelid::regclass::text) FROM pg_index WHERE indrelid = 'items'::regclass AND NOT indisprimary")" \
    "items_order_id_idx:CREATE INDEX items_order_id_idx ON public.items USING btree (order_id) items_order_id_idx_old:CREATE INDEX items_order_id_idx_old ON public.items USING btree (order_id_old)"
check "swap: old keys still find their rows (unique index on id_old)" \
    "$(q "SELECT count(*) FROM items i JOIN orders o ON o.id_old = i.order_id_old")" "$((kids - 1))"
out=$(q "INSERT INTO items (order_id, qty) SELECT id_old, 5 FROM orders WHERE id_old IS NOT NULL LIMIT 1")
ok_if "after swap, a child written with a parent's old key gets the foreign key's error, with a hint" \
    '[[ $out == *"violates foreign key constraint items_order_id_fkey"* && $out == *"DETAIL:  Key (order_id)=("*") is not present in table public.orders."* && $out == *"HINT:  "*"public.orders.id_old"* ]]' "$out"
q "INSERT INTO orders (note) VALUES ('after swap'); INSERT INTO items (order_id, qty) SELECT id, 7 FROM orders WHERE note = 'after swap'" >/dev/null
check "after swap, a new child row gets its parent's old key too (rollback stays possible)" \
    "$(q "SELECT i.order_id_old = o.id_old FROM items i JOIN orders o ON o.id = i.order_id WHERE i.qty = 7")"
out=$(mig swap --table public.orders 2>&1); rc=$?
ok_if "swap again does nothing" '[ $rc -eq 0 ]' "$out"
minted=$(q "SELECT id FROM orders WHERE note = 'after swap'")
out=$(mig rollback --table public.orders 2>&1); rc=$?
check "rollback after the swap: the old key is the primary key, id_new keeps every new ID, the one handed out since the swap too" \
    "$rc|$(q "SELECT (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'orders_pkey') = 'PRIMARY KEY (id)',
              (SELECT count(*) FROM orders WHERE id_new IS NULL), (SELECT id_new FROM orders WHERE note = 'after swap') = '$minted',
              (SELECT uuid_extract_version(id) FROM orders WHERE note = 'after swap'),
              (SELECT count(*) FROM items i JOIN orders o ON o.id_new = i.order_id_new), (SELECT step FROM chronoid.migration)")" \
    "0|t|0|t|4|$kids|indexed" "$out"
check "after that rollback the child's index names are back where they were" \
    "$(q "SELECT string_agg(indexrelid::regclass || ':' || pg_get_indexdef(indexrelid), ' ' ORDER BY pg_get_indexdef(indexrelid)) FROM pg_index WHERE indrelid = 'items'::regclass AND NOT indisprimary")" \
    "$(q "SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'items'::regclass AND indexrelid::regclass::text ~ '^chronoid_mig_'"):CREATE INDEX $(q "SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'items'::regclass AND indexrelid::regclass::text ~ '^chronoid_mig_'") ON public.items USING btree (order_id_new) items_order_id_idx:CREATE INDEX items_order_id_idx ON public.items USING btree (order_id)"
check "after that rollback the CHECKs are validated and both spare unique indexes are there" \
    "$(q "SELECT count(*) FROM pg_constraint WHERE conname ~ '^chronoid_mig_' AND contype = 'c' AND convalidated")|$(q "SELECT count(*) FROM pg_index WHERE indrelid = 'orders'::regclass AND indisunique AND indisvalid")" \
    "2|3"
q "INSERT INTO orders (note) VALUES ('after rollback'); INSERT INTO items (order_id, qty) SELECT id, 9 FROM orders WHERE note = 'after rollback'" >/dev/null
check "after that rollback, new rows get a new ID again and a new child row its parent's" \
    "$(q "SELECT i.order_id_new = o.id_new AND o.id_new IS NOT NULL FROM items i JOIN orders o ON o.id = i.order_id WHERE i.qty = 9")" "t"
out=$(q "INSERT INTO items (order_id, qty) VALUES (gen_random_uuid(), 6)")
ok_if "before the swap, a child written with a key no parent has gets the foreign key's error, not the CHECK's" \
    '[[ $out == *"violates foreign key constraint items_order_id_fkey"* && $out != *HINT* ]]' "$out"
out=$(mig swap --table public.orders 2>&1); rc=$?
check "swap again straight away (no run: one short transaction), the IDs minted before are the keys again" \
    "$rc|$(q "SELECT id = '$minted' FROM orders WHERE note = 'after swap'")|$(q "SELECT count(*) FROM items i JOIN orders o ON o.id = i.order_id")" \
    "0|t|$((kids + 1))" "$out"
out=$(mig rollback --table public.orders 2>&1) && out=$(mig rollback --table public.orders 2>&1); rc=$?
check "rollback twice: the old key is the primary key again, nothing of the migration left" \
    "$(q "SELECT (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'orders_pkey') = 'PRIMARY KEY (id)'
              AND format_type((SELECT atttypid FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id'), NULL) = 'uuid'
              AND NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid IN ('orders'::regclass, 'items'::regclass) AND attname ~ '_(new|old)$' AND NOT attisdropped)
              AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname ~ '^chronoid_mig')
              AND to_regclass('chronoid.migration') IS NULL
              AND (SELECT convalidated FROM pg_constraint WHERE conname = 'items_order_id_fkey')")" "t"
check "rollback: every row and child row kept, joined on the old key" \
    "$(q "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM items i JOIN orders o ON o.id = i.order_id)")" \
    "$((rows + 3))|$((kids + 1))"
out=$(mig run --table public.orders --to uuidv7 --time-from created_at 2>&1) && out2=$(mig swap --table public.orders 2>&1); rc=$?
check "migrate again after the rollback, and swap for good" "$rc|$(q "SELECT count(*) FROM orders WHERE uuid_extract_version(id) <> 7 AND created_at IS NOT NULL")" "0|0"
q "INSERT INTO orders (id, note) VALUES (gen_random_uuid(), 'the application made this key')" >/dev/null
out=$(mig finish --table public.orders 2>&1); rc=$?
ok_if "finish says how many keys the application made itself (not UUIDv7) since the swap" \
    '[[ $out == *"note: 1 row of public.orders has a key that is not a UUIDv7"* ]]' "$out"
check "finish: the triggers and the state go, the old columns stay" \
    "$rc|$(q "SELECT NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname ~ '^chronoid_mig') AND to_regclass('chronoid.migration') IS NULL
              AND (SELECT count(*) FROM pg_attribute WHERE attrelid IN ('orders'::regclass, 'items'::regclass) AND attname IN ('id_old', 'order_id_old')) = 2")" "0|t"
q "INSERT INTO orders (note) VALUES ('after finish'); INSERT INTO items (order_id, qty) SELECT id, 8 FROM orders WHERE note = 'after finish'" >/dev/null
check "after finish, writes go on (the child's old column is nullable now)" "$(q "SELECT count(*) FROM items WHERE qty = 8 AND order_id_old IS NULL")" 1

# --- a lost connection, and the progress bar on a terminal ----------------------
setup_orders 3000
"$bin" migrate run --table public.orders --to ulid --batch 20 --pause 30ms --no-progress >"$work/run3" 2>&1 &
pid=$!
past_rows 0
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'chronoid-migrate'" >/dev/null
wait "$pid"; rc=$?
ok_if "a lost connection ends run with exit 1 and how to go on" \
    '[ $rc -eq 1 ] && grep -q "run again to continue" "$work/run3"' "rc=$rc" "$(tail -2 "$work/run3")"
if command -v script >/dev/null 2>&1; then
    script -qec "$bin migrate run --table public.orders --batch 200" /dev/null >"$work/tty" 2>&1; rc=$?
    ok_if "run on a terminal resumes with a progress bar: rows, rate and ETA" \
        '[ $rc -eq 0 ] && grep -q "backfill public.orders \[#" "$work/tty" && grep -q "rows/s, ETA" "$work/tty"' \
        "rc=$rc" "$(tr '\r' '\n' <"$work/tty" | tail -4)"
else
    skip "progress bar on a terminal" "script(1) not installed"
fi
check "after the lost connection and the resumed run every row has exactly one new ID" \
    "$(q "SELECT rows_done = (SELECT count(*) FROM orders WHERE note <> 'x') FROM chronoid.migration")|$(q "SELECT count(*) FROM orders WHERE id_new IS NULL")" "t|0"
mig rollback --table public.orders >/dev/null 2>&1

# A server restart (immediate: as a crash) in the middle of the backfill.
"$bin" migrate run --table public.orders --to snowflake --time-from created_at --batch 20 --pause 30ms \
    --no-progress >"$work/run4" 2>&1 &
pid=$!
past_rows 0
pgc_pgctl -m immediate restart >/dev/null 2>&1
wait "$pid"; rc=$?
done4=$(q "SELECT rows_done FROM chronoid.migration")
out=$(mig run --table public.orders 2>&1); rc2=$?
check "a server crash mid-backfill: run exits 1, the next finishes, every row once, none doubled" \
    "$rc|$rc2|$(q "SELECT rows_done FROM chronoid.migration")|$(q "SELECT count(*) FROM orders WHERE id_new IS NULL")|$(q "SELECT count(DISTINCT id_new) = count(*) FROM orders")" \
    "1|0|$(q "SELECT count(*) FROM orders")|0|t" "before: $done4" "$(tail -2 "$work/run4")" "$out"
mig rollback --table public.orders >/dev/null 2>&1

# --- a slow batch holds writers no longer than the cap ------------------------
# The backfill's updates each sleep 20 ms (the owner's trigger, ENABLE
# ALWAYS and accepted with --fire-triggers: an ordinary one would not fire
# on the tool's UPDATEs, migrate_triggers.sh): the first
# batches (1,000 rows, then fewer) would hold their rows for seconds; each
# is cancelled at 1 s, rolled back and halved, and a writer updating rows
# meanwhile never waits much longer than that.
q "CREATE TABLE slowt (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
   INSERT INTO slowt (n) SELECT g FROM generate_series(1, 300) g;
   CREATE FUNCTION slowt_nap() RETURNS trigger LANGUAGE plpgsql AS
     \$\$BEGIN IF current_setting('application_name') = 'chronoid-migrate' THEN PERFORM pg_sleep(0.02); END IF;
       RETURN NEW; END\$\$;
   CREATE TRIGGER slowt_nap BEFORE UPDATE ON slowt FOR EACH ROW EXECUTE FUNCTION slowt_nap();
   ALTER TABLE slowt ENABLE ALWAYS TRIGGER slowt_nap;
   ANALYZE slowt" >/dev/null
(
    end=$((SECONDS + 8))
    while [ $SECONDS -lt $end ]; do
        t=$(date +%s%N)
        psql -XAtq -c "UPDATE slowt SET n = n WHERE n = $((RANDOM % 300 + 1))" >/dev/null 2>&1
        echo $((($(date +%s%N) - t) / 1000000))
    done >"$work/slow_writer"
) &
writer=$!
out=$(PGAPPNAME=chronoid-migrate "$bin" migrate run --table slowt --to uuidv7 --fire-triggers --no-progress 2>&1); rc=$?
wait "$writer"
wmax=$(sort -n "$work/slow_writer" | tail -n 1)
ok_if "a batch that runs past 1 s is cancelled, rolled back and halved; run goes on and backfills every row once" \
    '[ $rc -eq 0 ] && [[ $out == *"a batch took more than 1000 ms (writers would wait as long on its rows): rolled back, trying 500 rows"* ]] &&
     [ "$(q "SELECT rows_done FROM chronoid.migration WHERE relid = '"'"'slowt'"'"'::regclass")|$(q "SELECT count(*) FROM slowt WHERE id_new IS NULL")" = "300|0" ]' \
    "rc=$rc" "$(grep -c 'rolled back' <<<"$out") cancelled batches" "$(tail -n 4 <<<"$out")"
ok_if "a writer updating the table meanwhile waited at most 1.5 s (max $wmax ms over $(wc -l <"$work/slow_writer") updates)" \
    '[ -n "$wmax" ] && [ "$wmax" -lt 1500 ]'
mig rollback --table slowt >/dev/null 2>&1

# --- rollback before the swap ------------------------------------------------
setup_orders 500
before=$(catalog)
mig run --table public.orders --to ulid >/dev/null 2>&1
out=$(mig rollback --table public.orders 2>&1); rc=$?
after=$(catalog)
ok_if "rollback before the swap leaves the tables as they were" '[ $rc -eq 0 ] && [ "$after" = "$before" ]' "$out" \
    "$(diff <(echo "$before") <(echo "$after"))"

# --- what follows the column number ---------------------------------------------
q "CREATE TABLE g1 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), v int);
   INSERT INTO g1 (v) SELECT g FROM generate_series(1, 100) g;
   CREATE INDEX g1_id_v ON g1 (id, v); CREATE VIEW g1v AS SELECT id FROM g1;
   GRANT SELECT (id) ON g1 TO alice; COMMENT ON COLUMN g1.id IS 'the key';
   CREATE TABLE g2 (k int PRIMARY KEY, g1 uuid REFERENCES g1); GRANT SELECT (g1), INSERT (g1, k) ON g2 TO alice" >/dev/null
out=$(mig plan --table g1 --to ulid 2>&1)
ok_if "plan lists the view the swap carries, and the index on the key it twins on id_new" \
    '[[ $out == *"public.g1v (owner"* ]] && [[ $out == *"-- public.g1_id_v on id_new, its name at the swap"* ]]' "$(grep -A4 'carries these views\|column number' <<<"$out")"
out=$(mig run --table g1 --to ulid 2>&1) && out=$(mig swap --table g1 2>&1); rc=$?
check "swap: the new key keeps the column's grants and comment, and the child's" \
    "$rc|$(psql -XAtq -U alice -c "SELECT count(id) FROM g1" 2>&1)|$(q "SELECT col_description('g1'::regclass, attnum) FROM pg_attribute WHERE attrelid = 'g1'::regclass AND attname = 'id'")|$(psql -XAtq -U alice -c "SELECT count(g1) FROM g2" 2>&1)" \
    "0|100|the key|0"

q "CREATE TABLE g3 (id uuid PRIMARY KEY DEFAULT gen_random_uuid()); INSERT INTO g3 SELECT FROM generate_series(1, 50)" >/dev/null
mig run --table g3 --to uuidv7 >/dev/null 2>&1
q "CREATE TABLE g4 (k int PRIMARY KEY, r uuid REFERENCES g3)" >/dev/null
before=$(catalog)
refuse "swap when a foreign key appeared after run began" "foreign keys added since run began reference public.g3: g4_r_fkey (public.g4)" \
    mig swap --table g3
check "that refusal changed nothing" "$(catalog)" "$before"

# --- a function planted beside chronoid's --------------------------------------
# A role that may create in chronoid's schema (public here) plants a
# one-argument uuid_timestamptz_to_v7 that would make whoever calls it a
# superuser's accomplice.  Such a role could as well add functions under
# chronoid's names in the middle of a run (issue 33): run refuses before
# any change, naming the role, and the planted function never runs.
setup_orders 200
q "GRANT CREATE ON SCHEMA public TO mallory" >/dev/null
psql -XAtq -U mallory -c "CREATE FUNCTION public.uuid_timestamptz_to_v7(timestamptz) RETURNS uuid LANGUAGE plpgsql AS
  \$\$BEGIN ALTER ROLE mallory SUPERUSER; RETURN gen_random_uuid(); END\$\$" >/dev/null 2>&1
out=$(mig run --table public.orders --to uuidv7 --time-from created_at 2>&1); rc=$?
check "a role that may create in chronoid's schema: run refuses, naming it; its function never runs" \
    "$rc|$(q "SELECT rolsuper FROM pg_roles WHERE rolname = 'mallory'")|$(q "SELECT count(*) FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id_new'")|$([[ $out == *"mallory, which is neither you"*"may create objects in schema public"* ]] && echo named)" \
    "1|f|0|named" "$out"
mig rollback --table public.orders >/dev/null 2>&1
q "DROP FUNCTION public.uuid_timestamptz_to_v7(timestamptz); REVOKE CREATE ON SCHEMA public FROM mallory" >/dev/null

# --- ulid and snowflake by their time ----------------------------------------
setup_orders 2000
out=$(mig run --table public.orders --to ulid --time-from created_at 2>&1); rc=$?
check "ulid: run finishes" "$rc" 0
check "ulid: unique, each dated by its created_at millisecond, random below it" \
    "$(q "SELECT count(DISTINCT id_new) = count(*) AND bool_and(id_new::timestamptz = date_trunc('milliseconds', created_at))
              AND count(DISTINCT substr(id_new::text, 11)) = count(*) FROM orders WHERE created_at IS NOT NULL")"
mig rollback --table public.orders >/dev/null 2>&1
q "DROP TABLE IF EXISTS ev; CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), at timestamp);
   INSERT INTO ev (at) SELECT '2025-01-01 00:00:00.123' FROM generate_series(1, 4200);
   INSERT INTO ev (at) SELECT now() - g * interval '3 ms' FROM generate_series(1, 1500) g;
   INSERT INTO ev (at) VALUES ('2000-01-01'), (now() + interval '1 day'), (NULL); ANALYZE ev" >/dev/null
out=$(mig plan --table ev --to snowflake --time-from at 2>&1)
ok_if "plan reports a crowded millisecond, rows before the epoch and in the future" \
    '[[ $out == *"1 milliseconds of at hold more than 4,096 rows (at most 4200)"* ]] && [[ $out == *"1 rows have at before the snowflake epoch"* ]] && [[ $out == *"1 rows have at in the future"* ]]' \
    "$(head -c 3000 <<<"$out")"
out=$(mig run --table ev --to snowflake --time-from at 2>&1); rc=$?
check "snowflake: run finishes" "$rc" 0
check "snowflake: unique, node 9, dated rows carry their millisecond (4,096 of the crowded one)" \
    "$(q "SELECT count(DISTINCT id_new) = count(*), bool_and(snowflake.get_node(id_new) = 9),
              count(*) FILTER (WHERE snowflake.to_timestamp(id_new) = date_trunc('milliseconds', timezone('UTC', at)))
         FROM ev")" "t|t|$((4096 + 1500))"
check "snowflake: in each millisecond the counts follow the time, then the old key" \
    "$(q "SELECT bool_and(ok) FROM (SELECT id_new > lag(id_new) OVER (ORDER BY at, id) AS ok FROM ev
            WHERE snowflake.to_timestamp(id_new) = date_trunc('milliseconds', timezone('UTC', at))) s WHERE ok IS NOT NULL")"
out=$(mig swap --table ev 2>&1); rc=$?
check "snowflake: swap" "$rc|$(q "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'ev'::regclass AND attname = 'id'")" "0|bigint"

# --- serial to snowflake: the sequence road ----------------------------------
q "CREATE TABLE s1 (id bigserial PRIMARY KEY, v text, at timestamptz); INSERT INTO s1 (v) SELECT 'x' FROM generate_series(1, 50)" >/dev/null
out=$(mig run --table s1 --to snowflake 2>&1); rc=$?
check "serial to snowflake: old IDs stay, new ones are snowflakes of node 9" \
    "$rc|$(q "INSERT INTO s1 (v) VALUES ('n') RETURNING snowflake.get_node(id)")|$(q "SELECT count(*) FROM s1 WHERE id <= 50")" "0|9|50"
refuse "serial to snowflake with --time-from" "--time-from does not apply" mig run --table s1 --to snowflake --time-from at

# --- a ulid key (its operators live in chronoid's schema) to uuidv7 --------------
q "CREATE TABLE u3 (id ulid PRIMARY KEY DEFAULT gen_ulid(), at timestamptz DEFAULT now() - random() * interval '1 day');
   INSERT INTO u3 SELECT FROM generate_series(1, 700);
   CREATE TABLE u3c (k serial PRIMARY KEY, u ulid NOT NULL REFERENCES u3); CREATE INDEX ON u3c (u);
   INSERT INTO u3c (u) SELECT id FROM u3" >/dev/null
out=$(mig run --table u3 --to uuidv7 --time-from at --batch 100 2>&1) && out=$(mig swap --table u3 2>&1) &&
    out=$(q "INSERT INTO u3c (u) SELECT id FROM u3 LIMIT 1") && out=$(mig rollback --table u3 2>&1) &&
    out=$(mig rollback --table u3 2>&1); rc=$?
check "ulid key to uuidv7 with a child: run, swap, a child written, rollback, rollback" \
    "$rc|$(q "SELECT count(*) FROM u3c c JOIN u3 p ON p.id = c.u")|$(q "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'u3'::regclass AND attname = 'id'")" \
    "0|701|ulid" "$out"

# --- names that need quoting ---------------------------------------------------
q 'CREATE SCHEMA "My Schema"; CREATE TABLE "My Schema"."Odd ""T""" ("Key Col" uuid PRIMARY KEY DEFAULT gen_random_uuid(), "When" timestamptz DEFAULT now());
   INSERT INTO "My Schema"."Odd ""T""" ("When") SELECT now() - g * interval '"'"'1 s'"'"' FROM generate_series(1, 300) g;
   CREATE TABLE "My Schema"."Kid;" (k int PRIMARY KEY, "P Ref" uuid NOT NULL REFERENCES "My Schema"."Odd ""T""");
   INSERT INTO "My Schema"."Kid;" SELECT row_number() OVER (), "Key Col" FROM "My Schema"."Odd ""T"""' >/dev/null
tname='"My Schema"."Odd ""T"""'
out=$(mig run --table "$tname" --column "Key Col" --to uuidv7 --time-from When 2>&1) &&
    out=$(mig swap --table "$tname" 2>&1) && out=$(mig rollback --table "$tname" 2>&1) &&
    out=$(mig swap --table "$tname" 2>&1) && out=$(mig rollback --table "$tname" 2>&1) &&
    out=$(mig rollback --table "$tname" 2>&1) &&
    out=$(mig run --table "$tname" --column "Key Col" --to ulid 2>&1) && out=$(mig swap --table "$tname" 2>&1); rc=$?
check "quoted schema, table and column names: run, swap, rollback, swap, rollback twice, run, swap" \
    "$rc|$(q 'SELECT count(*) FROM "My Schema"."Kid;" k JOIN "My Schema"."Odd ""T""" t ON t."Key Col" = k."P Ref"')" "0|300"
check "after a swap to ulid, a child row written refers by the new key and its old one is filled" \
    "$(q 'INSERT INTO "My Schema"."Kid;" (k, "P Ref") SELECT 1000, "Key Col" FROM "My Schema"."Odd ""T""" LIMIT 1 RETURNING "P Ref_old" IS NOT NULL')" "t"
check "after a swap to ulid, moving a child row to another parent moves its old reference too" \
    "$(q 'WITH o AS (SELECT "Key Col" AS k, "Key Col_old" AS ko FROM "My Schema"."Odd ""T""" ORDER BY "Key Col" DESC LIMIT 1)
          UPDATE "My Schema"."Kid;" SET "P Ref" = (SELECT k FROM o) WHERE k = 1000 RETURNING "P Ref_old" = (SELECT ko FROM o)')" "t"
out=$(mig rollback --table "$tname" 2>&1) && out=$(mig rollback --table "$tname" 2>&1); rc=$?
check "and rollback from ulid restores the uuid key with every child row" \
    "$rc|$(q 'SELECT count(*) FROM "My Schema"."Kid;" k JOIN "My Schema"."Odd ""T""" t ON t."Key Col" = k."P Ref"')" "0|301"
diag "$out"

tap_done
