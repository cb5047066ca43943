#!/usr/bin/env bash
# migrate_indexes.sh — the table's indexes that include the key move with
# it (THREATS.md class 12).  orders has the tenant keyset-pagination index
# (account_id, id), a unique one (note, id), a partial one and one with
# the key in INCLUDE: run builds each a twin on id_new CONCURRENTLY, plan
# lists them, the swap hands them their names; after it WHERE account_id =
# ? ORDER BY id reads the index on the new key, and the documented cleanup
# (DROP COLUMN id_old) drops no index but the old key's own.  Rollback
# gives the names back (the old index serves the old key), a second swap
# hands them on again.  The key in an expression or a WHERE moves too.
# A UNIQUE or EXCLUDE constraint over it is refused by plan and run,
# named, before any change.  Prints TAP; about 10 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"

mig() { "$bin" migrate "$@" --no-progress; }
# name:column list of each index on orders but the primary key, sorted.
indexes() {
    q "SELECT string_agg(i.relname || ':' || (SELECT string_agg(a.attname, ',' ORDER BY k.n)
                FROM unnest(x.indkey) WITH ORDINALITY k(att, n) JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.att),
              ' ' ORDER BY i.relname)
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = 'orders'::regclass AND NOT x.indisprimary"
}
# The index the tenant's page query reads, from EXPLAIN (sequential scans off: the table is small).
page_index() {
    q "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT id FROM orders WHERE account_id = 3 ORDER BY id LIMIT 10" |
        grep -o 'Index[ A-Za-z]* Scan using [^ ]* on orders' | head -1
}
page() { q "SELECT string_agg(id::text, ',' ORDER BY id) FROM (SELECT id FROM orders WHERE account_id = 3 ORDER BY id LIMIT 10) s"; }

q "CREATE EXTENSION chronoid;
   CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), account_id int NOT NULL, note text NOT NULL,
                        archived bool NOT NULL DEFAULT false, total int);
   INSERT INTO orders (account_id, note, archived, total)
        SELECT g % 7, 'n' || g, g % 5 = 0, g FROM generate_series(1, 2000) g;
   CREATE INDEX orders_account_id_id_idx ON orders (account_id, id);
   CREATE UNIQUE INDEX orders_note_id_key ON orders (note, id DESC);
   CREATE INDEX orders_live_idx ON orders (account_id, id) WHERE NOT archived;
   CREATE INDEX orders_total_inc ON orders (total) INCLUDE (id);
   CREATE INDEX orders_total_idx ON orders (total);
   CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid NOT NULL REFERENCES orders, qty int);
   INSERT INTO items (order_id, qty) SELECT id, 1 FROM orders;
   ANALYZE orders; ANALYZE items" >/dev/null || bail "tables"
before=$(indexes)

out=$(mig plan --table orders --to uuidv7 2>&1); rc=$?
ok_if "plan lists the twin of each index that includes the key, on id_new, CONCURRENTLY" \
    '[ $rc -eq 0 ] && [[ $out == *"CREATE INDEX CONCURRENTLY chronoid_mig_"*"_ix ON public.orders USING btree (account_id, id_new);  -- public.orders_account_id_id_idx on id_new, its name at the swap"* ]] &&
     [[ $out == *"CREATE UNIQUE INDEX CONCURRENTLY chronoid_mig_"*"(note, id_new DESC)"* ]] &&
     [[ $out == *"(account_id, id_new) WHERE (NOT archived)"* ]] && [[ $out == *"(total) INCLUDE (id_new)"* ]] &&
     [[ $out == *"ALTER INDEX public.orders_account_id_id_idx RENAME TO orders_account_id_id_idx_old"* ]] &&
     [[ $out != *"orders_total_idx"* ]]' "rc=$rc" "$(grep -n "CONCURRENTLY\|ALTER INDEX" <<<"$out")"

out=$(mig run --table orders --to uuidv7 2>&1); rc=$?
check "run" "$rc" 0 "$(tail -3 <<<"$out")"
check "built the twins on id_new, valid" \
    "$(q "SELECT count(*) FILTER (WHERE x.indisvalid) || '/' || count(*) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = 'orders'::regclass AND i.relname ~ '^chronoid_mig_[0-9]+_[0-9]+_ix$'")" "4/4"
pg=$(page)
out=$(mig swap --table orders 2>&1); rc=$?
check "swap" "$rc" 0 "$(tail -3 <<<"$out")"
after=$(indexes)
check "after the swap each index has its name on the new key, the old one _old on id_old" "$after" \
    "orders_account_id_id_idx:account_id,id orders_account_id_id_idx_old:account_id,id_old orders_id_old_key:id_old orders_live_idx:account_id,id orders_live_idx_old:account_id,id_old orders_note_id_key:note,id orders_note_id_key_old:note,id_old orders_total_idx:total orders_total_inc:total,id orders_total_inc_old:total,id_old"
check "the unique one stays unique, the partial one partial" \
    "$(q "SELECT indisunique FROM pg_index WHERE indexrelid = 'orders_note_id_key'::regclass")|$(q "SELECT pg_get_expr(indpred, indrelid) FROM pg_index WHERE indexrelid = 'orders_live_idx'::regclass")" \
    "t|(NOT archived)"
check "WHERE account_id = ? ORDER BY id reads an index on the new key" "$(page_index)" \
    "Index Only Scan using orders_account_id_id_idx on orders"
ok_if "in the new key's order" '[ "$(page)" != "$pg" ] && [ -n "$(page)" ]'

out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback after the swap" "$rc" 0 "$(tail -3 <<<"$out")"
check "gives the old indexes their names back on the old key (the twins wait on id_new)" \
    "$(indexes | tr ' ' '\n' | grep -v '^chronoid_mig_' | sort | tr '\n' ' ')|$(indexes | grep -o 'chronoid_mig_[0-9_]*ix:[a-z_,]*' | cut -d: -f2 | sort | tr '\n' ' ')" \
    "$(printf '%s\norders_id_old_key:id\n' "${before// /$'\n'}" | sort | tr '\n' ' ')|account_id,id_new account_id,id_new note,id_new total,id_new "
check "the old key's page query reads the old index again, rows as before" "$(page_index)|$(page)" \
    "Index Only Scan using orders_account_id_id_idx on orders|$pg"
out=$(mig swap --table orders 2>&1) && out+=$(mig finish --table orders 2>&1); rc=$?
check "swap again and finish" "$rc|$(indexes)" "0|$after"
q "ALTER TABLE items DROP COLUMN order_id_old; ALTER TABLE orders DROP COLUMN id_old" >/dev/null
check "the documented cleanup drops only the indexes on id_old" "$(indexes)" \
    "orders_account_id_id_idx:account_id,id orders_live_idx:account_id,id orders_note_id_key:note,id orders_total_idx:total orders_total_inc:total,id"
check "and the page query still has its index" "$(page_index)" "Index Only Scan using orders_account_id_id_idx on orders"

# Rollback before the swap drops the twins with id_new.
q "CREATE TABLE t2 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), a int); CREATE INDEX t2_a_id ON t2 (a, id);
   INSERT INTO t2 (a) SELECT g FROM generate_series(1, 100) g" >/dev/null
out=$(mig run --table t2 --to uuidv7 2>&1) && out+=$(mig rollback --table t2 2>&1); rc=$?
check "rollback before the swap leaves t2's index and no twin" \
    "$rc|$(q "SELECT string_agg(relname, ' ' ORDER BY relname) FROM pg_class c JOIN pg_index x ON x.indexrelid = c.oid WHERE x.indrelid = 't2'::regclass")" \
    "0|t2_a_id t2_pkey"

# Names that need quoting: the key's column in the twin's definition, and the index's name.
q 'CREATE SCHEMA "S p"; CREATE TABLE "S p"."T q" ("Key Col" uuid PRIMARY KEY DEFAULT gen_random_uuid(), "Grp" int);
   CREATE INDEX "By Grp, key" ON "S p"."T q" ("Grp", "Key Col" DESC NULLS LAST) INCLUDE ("Key Col");
   INSERT INTO "S p"."T q" ("Grp") SELECT g % 3 FROM generate_series(1, 100) g' >/dev/null
out=$(mig run --table '"S p"."T q"' --column "Key Col" --to uuidv7 2>&1) && out+=$(mig swap --table '"S p"."T q"' 2>&1); rc=$?
check "quoted names: run and swap" "$rc" 0 "$(tail -3 <<<"$out")"
check "the quoted index is on the new key under its name, the old one _old" \
    "$(q "SELECT string_agg(pg_get_indexdef(x.indexrelid), ' | ' ORDER BY i.relname) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = '\"S p\".\"T q\"'::regclass AND i.relname ~ '^By Grp'")" \
    'CREATE INDEX "By Grp, key" ON "S p"."T q" USING btree ("Grp", "Key Col" DESC NULLS LAST) INCLUDE ("Key Col") | CREATE INDEX "By Grp, key_old" ON "S p"."T q" USING btree ("Grp", "Key Col_old" DESC NULLS LAST) INCLUDE ("Key Col_old")'

# The key in an expression or a WHERE: the twin's text reads the new column there too.
q "CREATE TABLE t4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), a int, \"id.x\" int);
   CREATE INDEX t4_expr ON t4 (md5(id::text));
   CREATE INDEX t4_pred ON t4 (a) WHERE id IS NOT NULL AND \"id.x\" IS NULL;
   CREATE INDEX t4_both ON t4 (id, (id::text || 'id'));
   INSERT INTO t4 (a) SELECT g FROM generate_series(1, 100) g" >/dev/null
out=$(mig run --table t4 --to uuidv7 2>&1) && out+=$(mig swap --table t4 2>&1); rc=$?
check "expressions and WHEREs on the key: run and swap" "$rc" 0 "$(tail -3 <<<"$out")"
check "each on the new key under its name, the old one on id_old" \
    "$(q "SELECT string_agg(pg_get_indexdef(x.indexrelid), ' | ' ORDER BY i.relname) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = 't4'::regclass AND i.relname ~ '^t4_(expr|pred|both)'")" \
    "CREATE INDEX t4_both ON public.t4 USING btree (id, (((id)::text || 'id'::text))) | CREATE INDEX t4_both_old ON public.t4 USING btree (id_old, (((id_old)::text || 'id'::text))) | CREATE INDEX t4_expr ON public.t4 USING btree (md5((id)::text)) | CREATE INDEX t4_expr_old ON public.t4 USING btree (md5((id_old)::text)) | CREATE INDEX t4_pred ON public.t4 USING btree (a) WHERE ((id IS NOT NULL) AND (\"id.x\" IS NULL)) | CREATE INDEX t4_pred_old ON public.t4 USING btree (a) WHERE ((id_old IS NOT NULL) AND (\"id.x\" IS NULL))"

out=$(mig finish --table t4 2>&1) && out+=$(mig finish --table '"S p"."T q"' 2>&1); rc=$?
check "finish both" "$rc" 0 "$out"

# An expression that does not apply to the new key's type: run stops at the index step, saying why.
q "CREATE TABLE t5 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), a int); CREATE INDEX t5_ver ON t5 (uuid_extract_version(id));
   INSERT INTO t5 (a) SELECT g FROM generate_series(1, 50) g" >/dev/null
out=$(mig run --table t5 --to ulid 2>&1); rc=$?
ok_if "run to ulid stops at building t5_ver's twin, naming the function the new type lacks" \
    '[ $rc -eq 1 ] && [[ $out == *"building an index"*"uuid_extract_version"* ]]' "rc=$rc" "$(tail -3 <<<"$out")"
out=$(mig rollback --table t5 2>&1); rc=$?
check "and rollback leaves t5 and its index as they were" \
    "$rc|$(q "SELECT string_agg(pg_get_indexdef(x.indexrelid), ' | ' ORDER BY x.indexrelid) FROM pg_index x WHERE x.indrelid = 't5'::regclass AND NOT x.indisprimary")|$(q "SELECT count(*) FROM pg_attribute WHERE attrelid = 't5'::regclass AND attname = 'id_new' AND NOT attisdropped")" \
    "0|CREATE INDEX t5_ver ON public.t5 USING btree (uuid_extract_version(id))|0"

# What cannot be carried is refused, named, before any change.
for bad in "t3_a_id_key|ALTER TABLE t3 ADD CONSTRAINT t3_a_id_key UNIQUE (a, id)" \
    "t3_excl|ALTER TABLE t3 ADD CONSTRAINT t3_excl EXCLUDE USING btree (a WITH =, id WITH =)"; do
    idx=${bad%%|*}
    q "DROP TABLE IF EXISTS t3; CREATE TABLE t3 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), a int); ${bad#*|}" >/dev/null
    shape=$(q "SELECT count(*) FROM pg_attribute WHERE attrelid = 't3'::regclass AND NOT attisdropped")
    for sub in plan run; do
        out=$(mig $sub --table t3 --to uuidv7 2>&1); rc=$?
        ok_if "$sub refuses $idx, naming it" '[ $rc -eq 1 ] && [[ $out == *"cannot carry to the new key: public.$idx (the index of constraint $idx"* ]]' "rc=$rc" "$out"
    done
    check "nothing changed ($idx): no column added, no state" \
        "$(q "SELECT count(*) FROM pg_attribute WHERE attrelid = 't3'::regclass AND NOT attisdropped")|$(q "SELECT to_regclass('chronoid.migration') IS NULL")" \
        "$shape|t"
done
tap_done
