#!/usr/bin/env bash
# switch_from_pgedge.sh — the switch from pgEdge snowflake that
# docs/postgresql.md documents ("Switching from pgEdge snowflake"), run as
# written (the SQL block is read from the document) on a database made
# with the pgEdge stand-in (pg/test/standins/pgedge: pgEdge 2.6's
# extension name, schema, signatures, and a library that defines
# snowflake.node): every table, row and default kept, the defaults now
# chronoid's, new IDs above every old one; a connection that loaded
# pgEdge's library, and a view on pgEdge's functions, make it refuse with
# nothing changed.  On a throwaway cluster of its own, without chronoid
# preloaded; then with it preloaded, where pgEdge's library cannot load at
# all (the document's step 1).  TAP on stdout; as root (it installs the
# stand-in).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/scenario.bash
db=sf_switch_pgedge

scenario_needs server root extension
. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/work
mkdir -p "$work"
TAP_PREFIX="plain: "

# The document's block: the first ```sql block after its marker.
procedure=$work/switch_from_pgedge.sql
awk '/^<!-- doctest: skip followed on a pgEdge stand-in by tests\/scenarios\/switch_from_pgedge.sh -->$/ {m = 1; next}
     m == 1 && /^```sql$/ {m = 2; next}
     m == 2 && /^```$/ {exit}
     m == 2 {print}' docs/postgresql.md >"$procedure"
if ! grep -q 'CREATE EXTENSION chronoid' "$procedure"; then
    bail "the switch's SQL block in docs/postgresql.md (marker not found)"
fi

# One old ID half an hour ahead of the clock (pgEdge runs ahead without a
# bound under load): only the switch's floors keep the new IDs above it, and
# chronoid accepts a floor that far ahead only with a larger run-ahead.
set_run_ahead "SET snowflake.max_run_ahead = '1h'" 1h || not_ok "snowflake.max_run_ahead = 1h after a reload"
# The stand-in goes where the server loads extensions; removed at exit.
if standin pgedge; then
    ok "the pgEdge stand-in builds and installs"
else
    not_ok "the pgEdge stand-in builds and installs"
    tail -n 20 "$PGC_DIR/standin_pgedge.log" | diag
    tap_done
fi

# A database as pgEdge users have them: the default sequence, a table's own
# sequence, a converted bigserial, rows minted by pgEdge's function.
setup_db() {
    "$PGC_BIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    "$PGC_BIN/createdb" "$db" &&
    q -d "$db" -c "ALTER DATABASE $db SET snowflake.node = 3" &&
    q -d "$db" >/dev/null <<'SQL'
CREATE EXTENSION snowflake;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake.nextval(), item text);
CREATE SEQUENCE items_seq;
CREATE TABLE items (id bigint PRIMARY KEY DEFAULT snowflake.nextval('items_seq'::regclass),
                    order_id bigint REFERENCES orders, n int);
CREATE TABLE legacy (id bigserial PRIMARY KEY, v int);
ALTER TABLE legacy ALTER COLUMN id SET DEFAULT snowflake.nextval('legacy_id_seq'::regclass);
CREATE INDEX ON items (order_id);
INSERT INTO orders (item) SELECT 'o' || g FROM generate_series(1, 50) g;
INSERT INTO items (order_id, n) SELECT id, 1 FROM orders;
INSERT INTO legacy (v) SELECT g FROM generate_series(1, 20) g;
SELECT setval('items_seq', (((extract(epoch FROM clock_timestamp()) * 1000)::int8
                             - 1672531200000 + 1800000) << 22) | (3 << 12));
INSERT INTO items (order_id, n) SELECT max(id), 1 FROM orders;
SQL
}
# fingerprint: every row's key and the defaults, as text to compare.
fingerprint() {
    q -d "$db" <<'SQL'
SELECT 'orders', count(*), sum(hashtext(id::text || item)) FROM orders;
SELECT 'items', count(*), sum(hashtext(id::text || order_id::text)) FROM items;
SELECT 'legacy', count(*), sum(hashtext(id::text || v::text)) FROM legacy;
SELECT 'indexes', count(*) FROM pg_indexes WHERE tablename IN ('orders', 'items', 'legacy');
SELECT 'fks', count(*) FROM pg_constraint WHERE contype = 'f';
SQL
}
run_switch() { q -d "$db" -f "$procedure"; }

if ! setup_db; then
    bail "database with the pgEdge stand-in"
fi
before=$(fingerprint)
check "the stand-in mints pgEdge's layout on node 3, one ID half an hour ahead" \
    "$(q -d "$db" -c "SELECT max(snowflake.get_epoch(id)) > extract(epoch FROM now()) + 1700 FROM items")"
check "the stand-in mints pgEdge's layout on node 3" \
    "$(q -d "$db" -c "SELECT bool_and(snowflake.get_node(id) = 3) FROM orders")"

# 1. From a connection that loaded pgEdge's library: refused, nothing changed.
out=$(q -d "$db" -c "SELECT snowflake.nextval('items_seq') IS NOT NULL" -f "$procedure")
if grep -q 'attempt to redefine parameter "snowflake.node"' <<<"$out"; then
    ok "a connection that loaded pgEdge's library is refused (redefine snowflake.node)"
else
    not_ok "a connection that loaded pgEdge's library is refused (redefine snowflake.node)"
    diag "$out"
fi
check "  ... and nothing changed" \
    "$(q -d "$db" -c "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname <> 'plpgsql'")" snowflake
check "  ... the rows and defaults are as before" "$(fingerprint)" "$before"

# 2. A view on pgEdge's functions: DROP EXTENSION refuses, nothing changed.
q -d "$db" -c "CREATE VIEW order_times AS SELECT id, snowflake.get_epoch(id) AS at FROM orders"
out=$(run_switch)
if grep -q 'cannot drop extension snowflake because other objects depend on it' <<<"$out" &&
   grep -q 'view order_times depends on function snowflake.get_epoch' <<<"$out"; then
    ok "a view on pgEdge's functions: the switch refuses, naming it"
else
    not_ok "a view on pgEdge's functions: the switch refuses, naming it"
    diag "$out"
fi
check "  ... and nothing changed" \
    "$(q -d "$db" -c "SELECT count(*) FROM pg_attrdef d JOIN pg_depend x ON x.objid = d.oid AND x.refclassid = 'pg_proc'::regclass JOIN pg_proc p ON p.oid = x.refobjid WHERE p.proname = 'nextval' AND p.pronamespace = 'snowflake'::regnamespace")" 3
check "  ... the rows are as before" "$(fingerprint)" "$before"
q -d "$db" -c "DROP VIEW order_times"

# 3. The switch as documented, from a new connection.
old_max=$(q -d "$db" -c "SELECT greatest((SELECT max(id) FROM orders), (SELECT max(id) FROM items), (SELECT max(id) FROM legacy))")
if out=$(run_switch); then
    ok "the documented switch runs"
else
    not_ok "the documented switch runs"
    diag "$out"
    tap_done
fi
check "  ... chronoid installed, pgEdge's extension gone" \
    "$(q -d "$db" -c "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname <> 'plpgsql'")" chronoid
check "  ... every row, index and foreign key kept" "$(fingerprint)" "$before"
check "  ... the three defaults call chronoid's snowflake.nextval()" \
    "$(q -d "$db" -c "SELECT count(*) FROM pg_attrdef d
                        JOIN pg_depend x ON x.classid = 'pg_attrdef'::regclass AND x.objid = d.oid
                                        AND x.refclassid = 'pg_proc'::regclass
                        JOIN pg_depend m ON m.classid = 'pg_proc'::regclass AND m.objid = x.refobjid
                                        AND m.deptype = 'e'
                        JOIN pg_extension e ON e.oid = m.refobjid AND e.extname = 'chronoid'
                       WHERE d.adrelid IN ('orders'::regclass, 'items'::regclass, 'legacy'::regclass)")" 3
q -d "$db" >/dev/null <<'SQL'
INSERT INTO orders (item) SELECT 'n' || g FROM generate_series(1, 200) g;
INSERT INTO items (order_id, n) SELECT id, 2 FROM orders WHERE item LIKE 'n%';
INSERT INTO legacy (v) SELECT g FROM generate_series(101, 300) g;
SQL
check "  ... new rows get IDs above every old one, on node 3" \
    "$(q -d "$db" -c "SELECT bool_and(id > $old_max AND snowflake.get_node(id) = 3) FROM (
                        SELECT id FROM orders WHERE item LIKE 'n%' UNION ALL
                        SELECT id FROM items WHERE n = 2 UNION ALL
                        SELECT id FROM legacy WHERE v > 100) s")"
check "  ... a sequence made after the switch mints above them too" \
    "$(q -d "$db" -c "CREATE SEQUENCE later_seq" -c "SELECT snowflake.nextval('later_seq') > $old_max")"
check "  ... the old rows decode as before (same layout)" \
    "$(q -d "$db" -c "SELECT bool_and(snowflake.get_node(id) = 3) FROM orders WHERE item LIKE 'o%'")"

# 4. Where chronoid is preloaded, pgEdge's library cannot load at all:
# the document's step 1 takes it out of shared_preload_libraries first.
TAP_PREFIX="preload: "
if pgc_restart "shared_preload_libraries = 'chronoid'" >/dev/null; then
    out=$(q -d postgres -c "LOAD 'snowflake'")
    ok_if "pgEdge's library beside preloaded chronoid: refused (redefine snowflake.node)" \
        'grep -q "attempt to redefine parameter \"snowflake.node\"" <<<"$out"' "$out"
else
    not_ok "restart with chronoid preloaded"
fi
tap_done
