#!/usr/bin/env bash
# migrate_dump.sh — the database owner's backups work before, during and
# after `chronoid migrate` run by a superuser (THREATS.md class 10).  In a
# database that the application's role owns, with its tables and a child:
# pg_dump as that role exits 0 before run, after run, after swap, after
# rollback, after a second run and swap, and after finish; finish leaves
# nothing of the tool (the state schema is gone), and so does a rollback
# before the swap.  A mid-migration dump restored by the owner into a fresh
# database gives a state schema that the tool, run as a superuser, refuses
# to trust, so a restore lends no privilege; restored by a superuser, its
# rows name the dumped database's tables and are taken for none here.  The
# owner may read the state but not write it.  Prints TAP; about 10 s.
# Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start "snowflake.node = 9" >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate_dump
mkdir -p "$work"
_q_psql
pgbin=$(dirname "$(command -v "$_psql")")
[ -x "$pgbin/pg_dump" ] || pgbin=$("${PG_CONFIG:-pg_config}" --bindir)

mig() { "$bin" migrate "$@" --no-progress -d "dbname=appdb"; }
aq() { q -U app -d appdb -c "$1"; }
# The owner's dump of the whole database, custom format; its exit status.
dump() { "$pgbin/pg_dump" -U app -d appdb -Fc -f "$work/$1.dump" 2>"$work/$1.err"; }
dumped() {
    local rc
    dump "$1"; rc=$?
    check "pg_dump as the database owner $2" "$rc" 0 "$(head -5 "$work/$1.err")"
}
schema() { q -d appdb -c "SELECT count(*) FROM pg_namespace WHERE nspname = 'chronoid'"; }

q "CREATE ROLE app LOGIN" >/dev/null && q "CREATE DATABASE appdb OWNER app" >/dev/null || bail "role and database"
# chronoid in a schema only the superuser controls: public is the owner's,
# where the tool refuses to call it (docs/migrate.md, "Trust").
q -d appdb -c "CREATE SCHEMA ids; CREATE EXTENSION chronoid SCHEMA ids; GRANT USAGE ON SCHEMA ids TO PUBLIC" \
    >/dev/null || bail "extension"
aq "CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text,
                         created_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO orders (note, created_at) SELECT 'o' || g, now() - g * interval '1 min' FROM generate_series(1, 500) g;
    CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid NOT NULL REFERENCES orders, qty int);
    CREATE INDEX ON items (order_id);
    INSERT INTO items (order_id, qty) SELECT id, 1 FROM orders;
    CREATE TABLE other (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
    INSERT INTO other (n) SELECT g FROM generate_series(1, 50) g" >/dev/null || bail "the application's tables"

dumped before "before any migration"

out=$(mig run --table orders --to uuidv7 --time-from created_at 2>&1); rc=$?
check "run as a superuser" "$rc" 0 "$(tail -3 <<<"$out")"
dumped run "after run"
check "the owner may read the state" "$(aq "SELECT step FROM chronoid.migration")" indexed
out=$(aq "UPDATE chronoid.migration SET step = 'added'" 2>&1); rc=$?
ok_if "but not write it" '[ $rc -ne 0 ] && [[ $out == *"permission denied"* ]]' "rc=$rc" "$out"
out=$(aq "CREATE TABLE chronoid.planted (x int)" 2>&1); rc=$?
ok_if "nor create anything in its schema" '[ $rc -ne 0 ] && [[ $out == *"permission denied"* ]]' "rc=$rc" "$out"

# The mid-migration dump, restored by the owner into a fresh database.
q "CREATE DATABASE restored OWNER app" >/dev/null
"$pgbin/pg_restore" -U app -d restored --no-owner "$work/run.dump" >"$work/restore.out" 2>&1; rc=$?
# Judged on what the tool made: the extension's own objects are another
# matter (its configuration tables belong to the superuser who installed it).
check "pg_restore --no-owner of a mid-migration dump, as the owner: no error on the tool's state, columns or triggers" \
    "$(grep -c 'chronoid\.\|chronoid_mig\|_new\|SCHEMA chronoid' "$work/restore.out")" 0 "rc=$rc" "$(head -8 "$work/restore.out")"
check "and the state, the new column and the child's trigger are there" \
    "$(q -U app -d restored -c "SELECT count(*) FROM chronoid.migration")|$(q -U app -d restored -c "SELECT count(*) FROM orders WHERE id_new IS NOT NULL")|$(q -U app -d restored -c "SELECT count(*) FROM pg_trigger WHERE tgname ~ '^chronoid_mig_'")" \
    "1|500|1"
check "restores the rows" "$(q -U app -d restored -c "SELECT count(*) FROM orders")" 500
out=$("$bin" migrate status --table orders -d "dbname=restored" 2>&1); rc=$?
ok_if "the tool, as a superuser, refuses the restored state, which the owner now owns" \
    '[ $rc -ne 0 ] && [[ $out == *"refusing to keep state in schema chronoid"* ]]' "rc=$rc" "$out"

# Restored by a superuser, the state is trusted but names the dumped tables' OIDs.
q "CREATE DATABASE restored2" >/dev/null
"$pgbin/pg_restore" -d restored2 "$work/run.dump" >"$work/restore2.out" 2>&1; rc=$?
check "pg_restore of it as a superuser" "$rc" 0 "$(head -5 "$work/restore2.out")"
out=$("$bin" migrate status --table orders -d "dbname=restored2" 2>&1)
check "the tool finds no migration of the copy's table" "$out" "public.orders: no migration recorded"
out=$("$bin" migrate run --table orders --to uuidv7 --no-progress -d "dbname=restored2" 2>&1); rc=$?
ok_if "and run refuses, the new column being there" '[ $rc -ne 0 ] && [[ $out == *"already has a column id_new"* ]]' "rc=$rc" "$out"
# Should a restored row's OID name a table here, the row is still not taken for it.
q -d restored2 -c "UPDATE chronoid.migration SET relid = 'orders'::regclass" >/dev/null
for sub in status rollback; do
    out=$("$bin" migrate $sub --table orders -d "dbname=restored2" 2>&1); rc=$?
    ok_if "$sub refuses a restored state row whose OID names a table here" \
        '[ $rc -eq 1 ] && [[ $out == *"holds a migration of public.orders recorded in another database"* ]]' "rc=$rc" "$out"
done
check "and the copy's table is left as it was" \
    "$(q -d restored2 -c "SELECT count(*) FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id_new' AND NOT attisdropped")" 1

out=$(mig swap --table orders 2>&1); rc=$?
check "swap" "$rc" 0 "$(tail -3 <<<"$out")"
dumped swap "after swap"
out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback after the swap" "$rc" 0 "$(tail -3 <<<"$out")"
dumped rollback1 "after rollback of the swap"
out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback before the swap" "$rc" 0 "$(tail -3 <<<"$out")"
dumped rollback2 "after rollback before the swap"
check "which leaves nothing of the tool: no state schema" "$(schema)" 0

# Two migrations: the state stays while the other is in progress.
out=$(mig run --table orders --to uuidv7 2>&1) && out+=$(mig run --table other --to uuidv7 2>&1); rc=$?
check "run on two tables" "$rc" 0 "$(tail -3 <<<"$out")"
dumped two "with two migrations in progress"
out=$(mig swap --table orders 2>&1) && out+=$(mig finish --table orders 2>&1); rc=$?
check "swap and finish one" "$rc" 0 "$(tail -3 <<<"$out")"
check "the state schema stays while the other is in progress" "$(schema)" 1
dumped one "with one left"
out=$(mig swap --table other 2>&1) && out+=$(mig finish --table other 2>&1); rc=$?
check "swap and finish the other" "$rc" 0 "$(tail -3 <<<"$out")"
dumped finish "after finish"
check "finish leaves nothing of the tool: no state schema, no function of its own" \
    "$(schema)|$(q -d appdb -c "SELECT count(*) FROM pg_proc WHERE proname ~ '^chronoid_mig_'")" "0|0"

# Snowflakes dated by their rows: the map of old keys, in the state schema, is read by the dump too.
aq "CREATE TABLE events (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), at timestamptz NOT NULL DEFAULT now());
    INSERT INTO events (at) SELECT now() - g * interval '1 s' FROM generate_series(1, 200) g" >/dev/null
out=$(mig run --table events --to snowflake --time-from at 2>&1); rc=$?
check "run to snowflakes dated by their rows" "$rc|$(q -d appdb -c "SELECT count(*) FROM pg_class WHERE relname ~ '^migration_map_' AND relkind = 'r' AND relnamespace = 'chronoid'::regnamespace")" "0|1" "$(tail -3 <<<"$out")"
dumped map "with the snowflake map there"
out=$(mig rollback --table events 2>&1); rc=$?
check "rollback before the swap: the map and the state schema go" "$rc|$(schema)" "0|0" "$(tail -3 <<<"$out")"

# A schema the DBA made for the state (--state-schema) is theirs: it stays.
q -d appdb -c "CREATE SCHEMA dba_state" >/dev/null
aq "CREATE TABLE third (id uuid PRIMARY KEY DEFAULT gen_random_uuid())" >/dev/null
out=$(mig run --table third --to uuidv7 --state-schema dba_state 2>&1) &&
    out+=$(mig rollback --table third --state-schema dba_state 2>&1); rc=$?
check "run and roll back with a state schema the DBA made" "$rc" 0 "$(tail -3 <<<"$out")"
check "which stays, emptied of the tool's tables" \
    "$(q -d appdb -c "SELECT count(*) FROM pg_namespace WHERE nspname = 'dba_state'")|$(q -d appdb -c "SELECT count(*) FROM pg_class WHERE relnamespace = 'dba_state'::regnamespace")" "1|0"

tap_done
