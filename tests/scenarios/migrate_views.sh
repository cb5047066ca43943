#!/usr/bin/env bash
# migrate_views.sh — views follow the key through `chronoid migrate swap`
# and back through `rollback`, in the swap's own transaction: a view on
# the key, one joining the child on its foreign key, one that groups by
# the primary key (functional dependency), a view on a view, and a view
# another role owns with options, grants and comments.  After each step
# every view returns what the same query on the tables returns; plan
# names them; what it cannot carry (a rule, an SQL-bodied function on the
# key) is noted by run and refused by the swap, changing nothing
# (materialized views and policies: migrate_carry.sh).  Prints TAP; about 10 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"

mig() { "$bin" migrate "$@" --no-progress; }

# same VIEW QUERY: the view's rows equal the query's (as sorted text).
same() {
    q "SELECT (SELECT coalesce(string_agg(x::text, ',' ORDER BY x::text), '') FROM $1 x)
            = (SELECT coalesce(string_agg(x::text, ',' ORDER BY x::text), '') FROM ($2) x)"
}

# Every view against the query it was written as, on the tables as they are now.
views_match() {
    local r
    r="$(same recent_orders "SELECT o.id, o.note FROM orders o")"
    r+="$(same item_refs "SELECT i.id, i.order_id FROM items i")"
    r+="$(same order_lines "SELECT o.id, i.qty FROM orders o JOIN items i ON i.order_id = o.id")"
    r+="$(same order_totals "SELECT o.id, o.note, sum(i.qty) AS qty FROM orders o JOIN items i ON i.order_id = o.id GROUP BY o.id")"
    r+="$(same big_orders "SELECT o.id FROM orders o JOIN items i ON i.order_id = o.id GROUP BY o.id HAVING sum(i.qty) > 1")"
    r+="$(same app_orders "SELECT id, note FROM orders WHERE note LIKE 'o1%'")"
    printf '%s' "$r"
}

# What the other role's view carries besides its text.
app_view() {
    q "SELECT pg_get_userbyid(relowner), array_to_string(reloptions, ' '), obj_description(oid, 'pg_class'),
              col_description(oid, 1), has_table_privilege('reader', oid, 'SELECT'),
              has_column_privilege('reader', oid, 'note', 'UPDATE')
         FROM pg_class WHERE oid = 'app_orders'::regclass"
}

q "CREATE ROLE app LOGIN; CREATE ROLE reader LOGIN; GRANT CREATE ON SCHEMA public TO app;
   CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), created_at timestamptz DEFAULT now(), note text);
   INSERT INTO orders (note) SELECT 'o' || g FROM generate_series(1, 300) g;
   CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid REFERENCES orders, qty int);
   INSERT INTO items (order_id, qty) SELECT id, 1 FROM orders;
   INSERT INTO items (order_id, qty) SELECT id, 2 FROM orders WHERE note LIKE '%3';
   INSERT INTO items (order_id, qty) VALUES (NULL, 5);
   CREATE VIEW recent_orders AS SELECT o.id, o.note FROM orders o;
   CREATE VIEW item_refs AS SELECT i.id, i.order_id FROM items i;
   CREATE VIEW order_lines AS SELECT o.id, i.qty FROM orders o JOIN items i ON i.order_id = o.id;
   CREATE VIEW order_totals AS SELECT o.id, o.note, sum(i.qty) AS qty FROM orders o JOIN items i ON i.order_id = o.id GROUP BY o.id;
   CREATE VIEW big_orders AS SELECT t.id FROM order_totals t WHERE t.qty > 1;
   GRANT SELECT ON orders TO app;
   SET ROLE app;
   CREATE VIEW app_orders WITH (security_barrier) AS SELECT id, note FROM orders WHERE note LIKE 'o1%' WITH CASCADED CHECK OPTION;
   GRANT SELECT ON app_orders TO reader; GRANT UPDATE (note) ON app_orders TO reader;
   COMMENT ON VIEW app_orders IS 'the app''s orders'; COMMENT ON COLUMN app_orders.id IS 'its key';
   RESET ROLE;
   -- As in public since PostgreSQL 15: app may not create there any more,
   -- so the swap (a superuser) makes app's view and gives it back.
   REVOKE CREATE ON SCHEMA public FROM app;
   ANALYZE orders; ANALYZE items" >/dev/null || bail "set up the tables and views"
app_before=$(app_view)
check "before: every view returns what its query returns" "$(views_match)" "tttttt"

out=$(mig plan --table orders --to uuidv7 2>&1); rc=$?
ok_if "plan names every view the swap carries, with its owner" \
    '[ $rc -eq 0 ] && for v in recent_orders item_refs order_lines order_totals big_orders; do [[ $out == *"public.$v (owner"* ]] || exit 1; done; [[ $out == *"public.app_orders (owner app"* ]] && [[ $out == *"public.big_orders (owner "*", on a view above)"* ]]' \
    "$(grep -A10 'carries these views' <<<"$out")"
ok_if "plan shows the views dropped and created again in the swap, as their owners" \
    '[[ $out == *"DROP VIEW public.big_orders;"* ]] && [[ $out == *"CREATE VIEW public.app_orders WITH (security_barrier=true, check_option=cascaded) AS"* ]] && [[ $out == *"-- as app, the owner of view public.app_orders"* ]]' \
    "$(grep -B1 -A1 'VIEW public.app_orders' <<<"$out")"

out=$(mig run --table orders --to uuidv7 2>&1) && out=$(mig swap --table orders 2>&1); rc=$?
check "swap with a view grouping by the primary key succeeds" "$rc" "0"
diag "$out"
check "after swap: every view returns what its query returns on the new key" "$(views_match)" "tttttt"
check "after swap: the views read the new key (no view names id_old or order_id_old)" \
    "$(q "SELECT count(*) FROM pg_views WHERE schemaname = 'public' AND definition ~ '_old'")" "0"
check "after swap: the other role's view keeps its owner, options, comments and grants" "$(app_view)" "$app_before"
check "after swap: the reader reads the view as before" \
    "$(psql -XAtq -U reader -c "SELECT count(*) FROM app_orders" 2>&1)" "$(q "SELECT count(*) FROM orders WHERE note LIKE 'o1%'")"
q "INSERT INTO orders (note) VALUES ('o1 after swap'); INSERT INTO items (order_id, qty) SELECT id, 3 FROM orders WHERE note = 'o1 after swap'" >/dev/null
check "after swap: a row written since shows through the views, joined on the new key" \
    "$(q "SELECT count(*) FROM order_lines l JOIN orders o ON o.id = l.id WHERE o.note = 'o1 after swap'")|$(views_match)" "1|tttttt"

out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback with the views in place succeeds" "$rc" "0"
diag "$out"
check "after rollback: every view returns what its query returns on the old key" "$(views_match)" "tttttt"
check "after rollback: no view names a column the migration added" \
    "$(q "SELECT count(*) FROM pg_views WHERE schemaname = 'public' AND definition ~ '_(old|new)'")" "0"
check "after rollback: the other role's view keeps its owner, options, comments and grants" "$(app_view)" "$app_before"
out=$(mig swap --table orders 2>&1) && m1=$(views_match) && out=$(mig rollback --table orders 2>&1) &&
    out=$(mig rollback --table orders 2>&1); rc=$?
check "swap again (no run), rollback, rollback (the new columns dropped): the views follow each time" \
    "$rc|$m1|$(views_match)|$(app_view)" "0|tttttt|tttttt|$app_before" "$out"

out=$(mig run --table orders --to ulid 2>&1) && out=$(mig swap --table orders 2>&1); rc=$?
check "swap to ulid (the views' key column changes type)" \
    "$rc|$(views_match)|$(q "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'recent_orders'::regclass AND attname = 'id'")" \
    "0|tttttt|ulid"
out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback from ulid: the views, which compare with chronoid's = for ulid, follow the uuid key back" \
    "$rc|$(views_match)|$(q "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'recent_orders'::regclass AND attname = 'id'")" \
    "0|tttttt|uuid" "$out"
q "CREATE TABLE u1 (id ulid PRIMARY KEY DEFAULT gen_ulid(), v int); INSERT INTO u1 (v) SELECT g FROM generate_series(1, 40) g;
   CREATE VIEW u1_pairs AS SELECT a.id, b.v FROM u1 a JOIN u1 b ON a.id = b.id" >/dev/null
out=$(mig run --table u1 --to uuidv7 2>&1) && out=$(mig swap --table u1 2>&1); rc=$?
check "a ulid key moved to uuidv7: a view comparing it follows (chronoid's = for ulid becomes uuid's)" \
    "$rc|$(q "SELECT count(*) FROM u1_pairs")|$(q "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'u1_pairs'::regclass AND attname = 'id'")" \
    "0|40|uuid" "$out"

# --- refusals change nothing -------------------------------------------------------
fingerprint() {
    q "SELECT md5(string_agg(x, ';' ORDER BY x)) FROM (
         SELECT format('%s.%s:%s', c.oid::regclass, a.attname, format_type(a.atttypid, a.atttypmod)) x
           FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          WHERE c.relnamespace = 'public'::regnamespace
         UNION ALL SELECT format('con %s %s', conname, pg_get_constraintdef(oid)) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
         UNION ALL SELECT format('view %s %s', c.oid, pg_get_viewdef(c.oid)) FROM pg_class c WHERE c.relkind IN ('v', 'm') AND c.relnamespace = 'public'::regnamespace) s"
    # The state, when there is any (the last finish or rollback drops it).
    [ "$(q "SELECT to_regclass('chronoid.migration') IS NULL")" = t ] || q "SELECT 'state ' || relid FROM chronoid.migration ORDER BY relid"
}
q "CREATE TABLE m1 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), v int); INSERT INTO m1 (v) SELECT g FROM generate_series(1, 50) g;
   CREATE RULE m1_r AS ON DELETE TO m1 WHERE old.id IS NULL DO INSTEAD NOTHING" >/dev/null
before=$(fingerprint)
out=$(mig plan --table m1 --to uuidv7 2>&1); rc=$?
ok_if "plan names a rule on the key, which the swap cannot carry" \
    '[ $rc -eq 0 ] && [[ $out == *"cannot carry these and refuses while they exist"*"rule m1_r on table public.m1"* ]] && [ "$(fingerprint)" = "$before" ]' "$out"
out=$(mig run --table m1 --to uuidv7 2>&1); rc=$?
ok_if "run goes ahead, noting it (the swap refuses it, not run)" \
    '[ $rc -eq 0 ] && [[ $out == *"note: the swap cannot carry"*"rule m1_r on table public.m1"* ]]' "$out"
before=$(fingerprint)
out=$(mig swap --table m1 2>&1); rc=$?
ok_if "swap refuses the rule, before any work, and nothing changed" \
    '[ $rc -eq 1 ] && [[ $out == *"rule m1_r on table public.m1"* ]] && [ "$(fingerprint)" = "$before" ]' "$out"
q "DROP RULE m1_r ON m1; CREATE FUNCTION m1_sum() RETURNS bigint LANGUAGE sql BEGIN ATOMIC SELECT count(id) FROM m1; END" >/dev/null
before=$(fingerprint)
out=$(mig swap --table m1 2>&1); rc=$?
ok_if "swap refuses a function whose SQL body reads the key by its column number, naming it" \
    '[ $rc -eq 1 ] && [[ $out == *"function public.m1_sum()"* ]] && [ "$(fingerprint)" = "$before" ]' "$out"
q "DROP FUNCTION m1_sum()" >/dev/null
out=$(mig swap --table m1 2>&1); rc=$?
check "with them gone, the swap goes through" "$rc" "0" "$out"

tap_done
