#!/usr/bin/env bash
# migrate_triggers.sh — `chronoid migrate` changes nothing but the columns
# it adds: the tables' own triggers do not fire on its UPDATEs.  A table
# and its child with a touch trigger (updated_at = now()), a version
# counter, a NOTIFY that another session LISTENs for, an outbox row and a
# statement-level log, and on the child one whose function names its table
# without a schema: after plan, run, swap, rollback and rollback again,
# every row's updated_at and version are as before, no notification came,
# the outbox and logs are empty; then one UPDATE by the application fires
# them all, so they were live throughout.  An ENABLE ALWAYS and an ENABLE
# REPLICA trigger are refused, named, before any change, and fire with
# --fire-triggers; one enabled ALWAYS while run goes on stops it, its
# batch rolled back.  The owner running the tool without the right to set
# session_replication_role is refused, naming the triggers; with GRANT SET
# ON PARAMETER (PostgreSQL 15+) it goes through and fires none.  Prints
# TAP; about 15 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate_triggers
mkdir -p "$work"

mig() { "$bin" migrate "$@" --no-progress; }
amig() { "$bin" migrate "$@" --state-schema app_state --no-progress -d "user=app"; }
aq() { q -U app -c "$1"; }

# chronoid in a schema only the superuser controls: the application role
# may create in public, where the tools refuse to call it (docs/migrate.md,
# "Trust").
q "CREATE SCHEMA ids; CREATE EXTENSION chronoid SCHEMA ids; GRANT USAGE ON SCHEMA ids TO PUBLIC;
   CREATE ROLE app LOGIN; GRANT CREATE ON DATABASE postgres TO app; GRANT CREATE ON SCHEMA public TO app" >/dev/null ||
    bail "roles"

# The triggers an application has, as the tables' owner.  Their functions
# are plain (SECURITY INVOKER, no search_path of their own), as most are.
aq "CREATE TABLE outbox (at timestamptz DEFAULT clock_timestamp(), what text);
    CREATE TABLE stmt_log (tbl text, op text);
    CREATE TABLE item_log (item bigint);
    CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN NEW.updated_at := now(); RETURN NEW; END\$\$;
    CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN NEW.version := OLD.version + 1; RETURN NEW; END\$\$;
    CREATE FUNCTION tell() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN PERFORM pg_notify('orders_changed', NEW.note); RETURN NULL; END\$\$;
    CREATE FUNCTION to_outbox() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN INSERT INTO public.outbox (what) VALUES (TG_TABLE_NAME || ' ' || NEW.version); RETURN NULL; END\$\$;
    CREATE FUNCTION per_stmt() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN INSERT INTO public.stmt_log VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END\$\$;
    -- names its table without a schema: under the tool's pinned search_path it would fail
    CREATE FUNCTION log_item() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN INSERT INTO item_log VALUES (NEW.id); RETURN NULL; END\$\$;
    CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text UNIQUE,
                         updated_at timestamptz NOT NULL DEFAULT '2001-02-03 04:05:06+00', version int NOT NULL DEFAULT 1);
    INSERT INTO orders (note) SELECT 'o' || g FROM generate_series(1, 600) g;
    CREATE TABLE items (id bigserial PRIMARY KEY, order_id uuid REFERENCES orders, qty int,
                        updated_at timestamptz NOT NULL DEFAULT '2001-02-03 04:05:06+00', version int NOT NULL DEFAULT 1);
    CREATE INDEX ON items (order_id);
    INSERT INTO items (order_id, qty) SELECT id, 1 FROM orders;
    INSERT INTO items (order_id, qty) VALUES (NULL, 0);
    CREATE TRIGGER orders_touch BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION touch();
    CREATE TRIGGER orders_version BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION bump();
    CREATE TRIGGER orders_notify AFTER UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION tell();
    CREATE TRIGGER orders_outbox AFTER UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION to_outbox();
    CREATE TRIGGER orders_stmt AFTER UPDATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION per_stmt();
    CREATE TRIGGER items_touch BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION touch();
    CREATE TRIGGER items_version BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION bump();
    CREATE TRIGGER items_log AFTER UPDATE ON items FOR EACH ROW EXECUTE FUNCTION log_item();
    CREATE TRIGGER items_stmt AFTER UPDATE ON items FOR EACH STATEMENT EXECUTE FUNCTION per_stmt();
    ANALYZE orders; ANALYZE items" >/dev/null || bail "the application's tables"

# The state's rows for table $1; none when the last finish or rollback dropped the state.
state_rows() {
    if [ "$(q "SELECT to_regclass('chronoid.migration') IS NULL")" = t ]; then echo 0; return; fi
    q "SELECT count(*) FROM chronoid.migration WHERE relid = '$1'::regclass"
}
# Every row's own columns, by a key no step changes (note, items.id).
rows() {
    q "SELECT md5(string_agg(format('%s|%s|%s', note, updated_at, version), ',' ORDER BY note)) FROM orders" &&
        q "SELECT md5(string_agg(format('%s|%s|%s|%s', id, qty, updated_at, version), ',' ORDER BY id)) FROM items"
}
# What the AFTER triggers leave.
logs() { q "SELECT (SELECT count(*) FROM outbox) || '/' || (SELECT count(*) FROM stmt_log) || '/' || (SELECT count(*) FROM item_log)"; }

# Another session listens for the NOTIFY all along; psql prints what came
# after its next command.
mkfifo "$work/listen.in"
"$PGC_BIN/psql" -XAtq <"$work/listen.in" >"$work/listen.out" 2>&1 &
listener=$!
exec 7>"$work/listen.in"
echo "LISTEN orders_changed; SELECT 'listening';" >&7
for _ in $(seq 100); do grep -q listening "$work/listen.out" && break; sleep 0.1; done
notified() {
    local mark=$1
    # Notifications print after the command that found them: the second
    # mark comes after those of the first.
    echo "SELECT '$mark'; SELECT '$mark-end';" >&7
    for _ in $(seq 100); do grep -q "^$mark-end\$" "$work/listen.out" && break; sleep 0.1; done
    grep -c 'Asynchronous notification "orders_changed"' "$work/listen.out"
}

before=$(rows)
out=$(mig plan --table orders --to uuidv7 2>&1); rc=$?
ok_if "plan lists every trigger of the table and its child that the tool's UPDATEs would fire, skipped by replica" \
    '[ $rc -eq 0 ] && [[ $out == *"session_replication_role = replica"* ]] && [[ $out == *"public.orders: trigger orders_touch, function public.touch()"* ]] && [[ $out == *"orders_version"* ]] && [[ $out == *"orders_notify"* ]] && [[ $out == *"orders_outbox"* ]] && [[ $out == *"orders_stmt"* ]] && [[ $out == *"public.items: trigger items_touch"* ]] && [[ $out == *"items_log"* ]] && [[ $out == *"SET LOCAL session_replication_role = replica;"* ]]' \
    "rc=$rc" "$(grep -n -A12 'session_replication_role' <<<"$out" | head -40)"

out=$(mig run --table orders --to uuidv7 2>&1); rc=$?
check "run, as a superuser, goes through" "$rc" 0 "$(tail -5 <<<"$out")"
check "after run every row keeps its updated_at and version (table and child)" "$(rows)" "$before"
check "after run no outbox row, no statement log, no child log" "$(logs)" "0/0/0"
check "after run every row has its new ID (so the UPDATEs did run)" \
    "$(q "SELECT count(*) FILTER (WHERE id_new IS NULL) || '/' || (SELECT count(*) FROM items WHERE order_id IS NOT NULL AND order_id_new IS NULL) FROM orders")" "0/0"

out=$(mig swap --table orders 2>&1); rc=$?
check "swap goes through" "$rc" 0 "$(tail -5 <<<"$out")"
check "after swap every row keeps its updated_at and version" "$(rows)" "$before"

# Child rows whose old column the sync trigger missed: rollback fills them.
q "BEGIN; SET LOCAL session_replication_role = replica;
   UPDATE items SET order_id_old = NULL WHERE id <= 20; COMMIT" >/dev/null
out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback after the swap goes through" "$rc" 0 "$(tail -5 <<<"$out")"
check "it filled the child rows' old column again" "$(q "SELECT count(*) FROM items WHERE order_id IS NULL AND order_id_new IS NOT NULL")" 0
check "after rollback every row keeps its updated_at and version" "$(rows)" "$before"
out=$(mig rollback --table orders 2>&1); rc=$?
check "rollback again (everything run added) goes through" "$rc" 0 "$(tail -5 <<<"$out")"
check "after both rollbacks every row keeps its updated_at and version" "$(rows)" "$before"
check "and still no outbox row, statement log or child log" "$(logs)" "0/0/0"
check "no notification reached the listener through plan, run, swap and two rollbacks" "$(notified after-steps)" 0

# The triggers were live all along: one application UPDATE fires each once.
q "UPDATE orders SET note = note WHERE note = 'o1'; UPDATE items SET qty = qty WHERE id = 1" >/dev/null
check "an application UPDATE fires the touch and version triggers" \
    "$(q "SELECT updated_at > '2001-02-03 04:05:06+00' AND version = 2 FROM orders WHERE note = 'o1'")" t
check "and the NOTIFY, outbox, statement and child triggers, once each" "$(notified after-control)/$(logs)" "1/1/2/1"

# --- ENABLE ALWAYS and ENABLE REPLICA: they fire even under replica ------------
aq "CREATE TABLE pay (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text,
                      updated_at timestamptz NOT NULL DEFAULT '2001-02-03 04:05:06+00', version int NOT NULL DEFAULT 1);
    INSERT INTO pay (note) SELECT 'p' || g FROM generate_series(1, 50) g;
    CREATE TRIGGER pay_touch BEFORE UPDATE ON pay FOR EACH ROW EXECUTE FUNCTION touch();
    CREATE TRIGGER pay_version BEFORE UPDATE ON pay FOR EACH ROW EXECUTE FUNCTION bump();
    CREATE TRIGGER pay_plain AFTER UPDATE ON pay FOR EACH STATEMENT EXECUTE FUNCTION per_stmt();
    ALTER TABLE pay ENABLE ALWAYS TRIGGER pay_touch;
    ALTER TABLE pay ENABLE REPLICA TRIGGER pay_version" >/dev/null
pay() { q "SELECT count(*) FILTER (WHERE updated_at > '2001-02-03 04:05:06+00') || '/' || count(*) FILTER (WHERE version > 1) FROM pay"; }
shape() { q "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'pay'::regclass AND attnum > 0 AND NOT attisdropped"; }
cols=$(shape)
out=$(mig plan --table pay --to uuidv7 2>&1); rc=$?
ok_if "plan names the ENABLE ALWAYS and ENABLE REPLICA triggers as firing, the plain one as skipped" \
    '[ $rc -eq 0 ] && [[ $out == *"fire on every row"*"public.pay: trigger pay_touch, function public.touch() (ENABLE ALWAYS)"* ]] && [[ $out == *"public.pay: trigger pay_version, function public.bump() (ENABLE REPLICA)"* ]] && [[ $out == *"do not fire"*"pay_plain"*"fire on every row"* ]]' \
    "rc=$rc" "$(grep -n -B2 -A8 'trigger pay' <<<"$out" | head -40)"
out=$(mig run --table pay --to uuidv7 2>&1); rc=$?
ok_if "run refuses them, naming each with its function, and --fire-triggers" \
    '[ $rc -eq 1 ] && [[ $out == *"public.pay: trigger pay_touch, function public.touch() (ENABLE ALWAYS); public.pay: trigger pay_version, function public.bump() (ENABLE REPLICA)"* ]] && [[ $out == *"--fire-triggers"* ]] && [[ $out != *pay_plain* ]]' \
    "rc=$rc" "$out"
check "before any change (no new column, no row touched, no state)" \
    "$(shape)|$(pay)|$(state_rows pay)" "$cols|0/0|0"
out=$(mig run --table pay --to uuidv7 --fire-triggers 2>&1); rc=$?
check "with --fire-triggers run goes through" "$rc" 0 "$(tail -5 <<<"$out")"
check "and they did fire, on every row: the option is what it says" "$(pay)" "50/50"
out=$(mig rollback --table pay 2>&1); rc=$?
check "rollback before the swap writes no row: not refused" "$rc" 0 "$out"
# Fired, a function that names its table without a schema meets the
# tool's pinned search path (docs/migrate.md says so).
aq "CREATE FUNCTION loose_log() RETURNS trigger LANGUAGE plpgsql AS
      \$\$BEGIN INSERT INTO stmt_log VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END\$\$;
    CREATE TABLE loose (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text);
    INSERT INTO loose (note) SELECT 'l' || g FROM generate_series(1, 20) g;
    CREATE TRIGGER loose_log AFTER UPDATE ON loose FOR EACH STATEMENT EXECUTE FUNCTION loose_log();
    ALTER TABLE loose ENABLE ALWAYS TRIGGER loose_log" >/dev/null
out=$(mig run --table loose --to uuidv7 --fire-triggers 2>&1); rc=$?
ok_if "with --fire-triggers, a trigger function naming its table without a schema fails the backfill" \
    '[ $rc -eq 1 ] && [[ $out == *"relation \"stmt_log\" does not exist"* ]]' "rc=$rc" "$out"
mig rollback --table loose >/dev/null 2>&1

# A state schema that holds the application's functions too: only the
# tool's own sync triggers are left out of the count, not every function
# that lives there.
q "CREATE SCHEMA st2;
   CREATE FUNCTION st2.touch() RETURNS trigger LANGUAGE plpgsql AS
     \$\$BEGIN NEW.updated_at := now(); RETURN NEW; END\$\$;
   CREATE TABLE sut (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), updated_at timestamptz);
   INSERT INTO sut SELECT gen_random_uuid(), '2001-02-03 04:05:06+00' FROM generate_series(1, 10);
   CREATE TRIGGER sut_touch BEFORE UPDATE ON sut FOR EACH ROW EXECUTE FUNCTION st2.touch();
   ALTER TABLE sut ENABLE ALWAYS TRIGGER sut_touch" >/dev/null
out=$(mig run --table sut --to uuidv7 --state-schema st2 2>&1); rc=$?
ok_if "a trigger whose function lives in the state schema is refused like any other" \
    '[ $rc -eq 1 ] && [[ $out == *"public.sut: trigger sut_touch, function st2.touch() (ENABLE ALWAYS)"* ]]' "rc=$rc" "$out"

# --- a trigger enabled ALWAYS while run goes on: caught, its batch rolled back ---
aq "CREATE TABLE late (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text,
                       updated_at timestamptz NOT NULL DEFAULT '2001-02-03 04:05:06+00');
    INSERT INTO late (note) SELECT 'l' || g FROM generate_series(1, 300) g;
    CREATE TRIGGER late_touch BEFORE UPDATE ON late FOR EACH ROW EXECUTE FUNCTION touch()" >/dev/null
mig run --table late --to uuidv7 --batch 30 --pause 500ms >"$work/late.out" 2>&1 &
late=$!
for _ in $(seq 100); do
    [ "$(q "SELECT count(id_new) > 0 FROM late" 2>/dev/null)" = t ] && break
    sleep 0.05
done
aq "ALTER TABLE late ENABLE ALWAYS TRIGGER late_touch" >/dev/null
wait "$late"; rc=$?
out=$(cat "$work/late.out")
ok_if "run stops at the first batch after a trigger was enabled ALWAYS, naming it" \
    '[ $rc -eq 1 ] && [[ $out == *"public.late: trigger late_touch, function public.touch() (ENABLE ALWAYS)"* ]]' "rc=$rc" "$out"
check "having kept nothing of that batch: no row touched, and some rows still to do" \
    "$(q "SELECT count(*) FILTER (WHERE updated_at > '2001-02-03 04:05:06+00') || '/' || (count(*) FILTER (WHERE id_new IS NULL) > 0) FROM late")" "0/true"

# --- the owner runs the tool, without the right to set the setting -------------
aq "CREATE TABLE acct (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text UNIQUE,
                       updated_at timestamptz NOT NULL DEFAULT '2001-02-03 04:05:06+00', version int NOT NULL DEFAULT 1);
    INSERT INTO acct (note) SELECT 'a' || g FROM generate_series(1, 300) g;
    CREATE TABLE acct_line (id bigserial PRIMARY KEY, acct_id uuid NOT NULL REFERENCES acct, updated_at timestamptz NOT NULL DEFAULT '2001-02-03 04:05:06+00');
    INSERT INTO acct_line (acct_id) SELECT id FROM acct;
    CREATE TRIGGER acct_touch BEFORE UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION touch();
    CREATE TRIGGER acct_version BEFORE UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION bump();
    CREATE TRIGGER acct_line_touch BEFORE UPDATE ON acct_line FOR EACH ROW EXECUTE FUNCTION touch()" >/dev/null
acct() {
    q "SELECT md5(string_agg(format('%s|%s|%s', note, updated_at, version), ',' ORDER BY note)) FROM acct" &&
        q "SELECT md5(string_agg(format('%s|%s', id, updated_at), ',' ORDER BY id)) FROM acct_line"
}
abefore=$(acct)
acols=$(q "SELECT count(*) FROM pg_attribute WHERE attrelid IN ('acct'::regclass, 'acct_line'::regclass) AND attnum > 0 AND NOT attisdropped")
out=$(amig plan --table acct --to uuidv7 2>&1); rc=$?
ok_if "plan, as the owner without the right, lists the triggers as firing and says why" \
    '[ $rc -eq 0 ] && [[ $out == *"fire on every row"*"public.acct: trigger acct_touch, function public.touch()"*"public.acct_line: trigger acct_line_touch"*"may not set it"* ]]' \
    "rc=$rc" "$(grep -n -A8 'fire on every row' <<<"$out")"
out=$(amig run --table acct --to uuidv7 2>&1); rc=$?
ok_if "run as the owner is refused, naming each trigger, the right it lacks and the option" \
    '[ $rc -eq 1 ] && [[ $out == *"public.acct: trigger acct_touch, function public.touch(); public.acct: trigger acct_version, function public.bump(); public.acct_line: trigger acct_line_touch, function public.touch()"* ]] && [[ $out == *"GRANT SET ON PARAMETER session_replication_role"* ]] && [[ $out == *"--fire-triggers"* ]]' \
    "rc=$rc" "$out"
check "and nothing changed" \
    "$(acct)|$(q "SELECT count(*) FROM pg_attribute WHERE attrelid IN ('acct'::regclass, 'acct_line'::regclass) AND attnum > 0 AND NOT attisdropped")" \
    "$abefore|$acols"
if [ "$(q "SHOW server_version_num")" -ge 150000 ]; then
    q "GRANT SET ON PARAMETER session_replication_role TO app" >/dev/null
    out=$(amig run --table acct --to uuidv7 2>&1); rc=$?
    check "with GRANT SET ON PARAMETER session_replication_role, run as the owner goes through" "$rc" 0 "$(tail -5 <<<"$out")"
    out2=$(amig swap --table acct 2>&1) && out2+=$(amig rollback --table acct 2>&1); rc=$?
    check "and so do swap and rollback" "$rc" 0 "$(tail -5 <<<"$out2")"
    check "firing none of the triggers: every row as before" "$(acct)" "$abefore"
    q "REVOKE SET ON PARAMETER session_replication_role FROM app" >/dev/null
else
    skip "GRANT SET ON PARAMETER" "PostgreSQL $(q "SHOW server_version") has no parameter privileges (15+)"
fi
exec 7>&-
wait "$listener" 2>/dev/null

tap_done
