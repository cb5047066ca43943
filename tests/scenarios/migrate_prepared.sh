#!/usr/bin/env bash
# migrate_prepared.sh — prepared statements across chronoid migrate's
# steps that change the tables' row types (run's first step, swap,
# rollback), with the real clients: a psycopg 3 application (server-side
# prepare, its default after five executions) and a node-postgres one
# (named statements on a Client; pool.query on a Pool), each on long-lived
# connections running SELECT * and INSERT ... RETURNING *.  Following
# docs/migrate.md — --before-row-type-change closes the applications'
# connections, --after-row-type-change lets them connect again — not one of
# their statements fails through run, swap, rollback, swap and finish.
# Without it, what the docs say happens: psycopg's and the Client's
# statements fail with 0A000 on every execution from run's first step on,
# until the end, and so does psql's EXECUTE until DEALLOCATE; pgbench -M
# prepared aborts its client; pool.query
# fails once per connection (the pool drops a connection whose query
# failed).  A --before-row-type-change that fails
# leaves the step undone.  Prints TAP; about 20 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server pgbench extension chronoid-migrate
/usr/bin/python3 -c 'import psycopg' 2>/dev/null || skip_all "python3-psycopg (psycopg 3) not installed"
NODE_PG=$PWD/node/node_modules/pg
[ -d "$NODE_PG" ] || skip_all "node-postgres not installed in node/node_modules (scripts/setup.sh installs it)"
export NODE_PG

. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate_prepared
mkdir -p "$work"
apps=()
# The applications stop before the server does.
pgc_atexit 'for p in "${apps[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null'

mig() { "$bin" migrate "$@" --no-progress; }

q "CREATE SCHEMA ids; CREATE EXTENSION chronoid SCHEMA ids; GRANT USAGE ON SCHEMA ids TO PUBLIC" >/dev/null ||
    bail "chronoid in a trusted schema"
# Two pairs of tables: a_ for the run that follows the docs, b_ for the one that does not.
for p in a_ b_; do
    q "CREATE TABLE ${p}orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text NOT NULL);
       INSERT INTO ${p}orders (note) SELECT 'o' || g FROM generate_series(1, 2000) g;
       CREATE INDEX ON ${p}orders (note);
       CREATE TABLE ${p}items (id bigserial PRIMARY KEY, order_id uuid REFERENCES ${p}orders, qty int);
       CREATE INDEX ON ${p}items (order_id);
       INSERT INTO ${p}items (order_id, qty) SELECT id, 1 FROM ${p}orders;
       ANALYZE ${p}orders; ANALYZE ${p}items" >/dev/null || bail "the ${p} tables"
done

# field DIR/status.X EXPR: EXPR evaluated on the application's counts (s).
field() {
    node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(eval(process.argv[2]))' "$1" "$2"
}
# wait_for FILE EXPR: until EXPR holds on FILE (10 s at most).
wait_for() {
    local i
    for i in $(seq 200); do
        [ -s "$1" ] && [ "$(field "$1" "$2" 2>/dev/null)" = true ] && return 0
        sleep 0.05
    done
    return 1
}
start_apps() {
    local d=$1; shift
    mkdir -p "$d"
    /usr/bin/python3 tests/scenarios/migrate_prepared_app.py "$d" "$@" 2>"$d/py.err" &
    apps+=($!)
    node tests/scenarios/migrate_prepared_app.js "$d" "$@" 2>"$d/js.err" &
    apps+=($!)
}
stop_apps() {
    touch "$1/stop"
    wait "${apps[@]}" 2>/dev/null
    apps=()
}

# --- Following the docs: the hooks recycle the connections on cue. ---
a=$work/a
start_apps "$a" a_ --cue
cat >"$work/before.sh" <<HOOK
echo "before \$CHRONOID_MIGRATE_STEP [\$CHRONOID_MIGRATE_TABLES] \$CHRONOID_MIGRATE_CHANGE" >>"$a/hooks.log"
touch "$a/pause"
for i in \$(seq 500); do [ -e "$a/paused.py" ] && [ -e "$a/paused.js" ] && exit 0; sleep 0.02; done
echo "the applications did not close their connections" >&2; exit 1
HOOK
cat >"$work/after.sh" <<HOOK
echo "after \$CHRONOID_MIGRATE_STEP \$CHRONOID_MIGRATE_RESULT" >>"$a/hooks.log"
rm -f "$a/paused.py" "$a/paused.js" "$a/pause"
HOOK
hooks=(--before-row-type-change "sh $work/before.sh" --after-row-type-change "sh $work/after.sh")
# Each epoch (a connection's life) ran at least 20 statements of each kind.
settled() {
    wait_for "$a/status.py" "s.epochs.length === $1 && s.epochs[$(($1 - 1))] >= 40" &&
        wait_for "$a/status.js" "s.client.epochs.length === $1 && s.client.epochs[$(($1 - 1))] >= 40 && s.pool.epochs[$(($1 - 1))] >= 20"
}
settled 1 || bail "the applications did not start: $(cat "$a"/*.err)"
check "psycopg prepared its statements on the server (its default)" "$(field "$a/status.py" 's.prepared[0] >= 2')" true

out=$(mig plan --table a_orders --to uuidv7 2>&1)
ok_if "plan says such statements fail on every execution, and names the two options" \
    '[[ $out == *"fail with \"cached plan must not change result type\" on every execution until its"* ]] && [[ $out == *"--before-row-type-change and --after-row-type-change"* ]]' "$out"
out=$(mig run --table a_orders --to uuidv7 "${hooks[@]}" 2>&1); rc=$?
check "run with the hooks goes through" "$rc" 0 "$(tail -5 <<<"$out")"
settled 2; check "the applications connected again after run's first step" "$?" 0

out=$(mig swap --table a_orders --before-row-type-change false --after-row-type-change "sh $work/after.sh" 2>&1); rc=$?
check "a --before-row-type-change that fails stops the swap: exit 1" "$rc" 1 "$out"
ok_if "it says the swap is not done and nothing changed" \
    '[[ $out == *"--before-row-type-change exited with status 1: swap not done, nothing changed"* ]]' "$out"
check "the table is still at step indexed" \
    "$(q "SELECT step FROM chronoid.migration WHERE relid = 'a_orders'::regclass")" indexed
check "the after command ran all the same, told the step failed" "$(tail -1 "$a/hooks.log")" "after swap failed"

for step in swap rollback swap; do
    out=$(mig "$step" --table a_orders "${hooks[@]}" 2>&1); rc=$?
    check "$step with the hooks goes through" "$rc" 0 "$(tail -5 <<<"$out")"
    # One connection more per step done (the variable n is TAP's).
    conns=$(($(grep -c '^after .* done$' "$a/hooks.log") + 1))
    settled "$conns"; check "the applications connected again after the $step" "$?" 0
done
out=$(mig finish --table a_orders 2>&1); rc=$?
check "finish goes through" "$rc" 0 "$(tail -5 <<<"$out")"
stop_apps "$a"

check "the hooks ran around each step that changes the row types, in order" \
    "$(sed 's/ \[.*//' "$a/hooks.log" | tr '\n' ',')" \
    "before add,after add done,after swap failed,before swap,after swap done,before rollback,after rollback done,before swap,after swap done,"
ok_if "the hook is told the tables and the change" \
    'grep -q "^before swap \[public.a_orders public.a_items\] renames public.a_orders.s id to id_old and id_new to id, public.a_items.s order_id to order_id_old and order_id_new to order_id$" "$a/hooks.log"' \
    "$(cat "$a/hooks.log")"
check "psycopg: not one statement failed through run, swap, rollback, swap, finish" \
    "$(field "$a/status.py" 's.fail + " failed, " + s.epochs.length + " connections, each ran: " + s.epochs.every(n => n >= 40)')" \
    "0 failed, 5 connections, each ran: true"
check "node-postgres Client (named statements): not one failed" \
    "$(field "$a/status.js" 's.client.fail + " failed, " + s.client.epochs.length + " connections"')" "0 failed, 5 connections"
check "node-postgres pool.query: not one failed" "$(field "$a/status.js" 's.pool.fail')" 0
check "the applications' rows are all there (the inserts went on)" \
    "$(q "SELECT count(*) FROM a_items")" "$((2000 + $(field "$a/status.py" 's.ok') / 2 + $(field "$a/status.js" 's.client.ok') / 2))"

# --- Without the cue, what docs/migrate.md says happens. ---
b=$work/b
start_apps "$b" b_
# And psql's PREPARE, in a session that stays open.
mkfifo "$b/psql.in"
"$PGC_BIN/psql" -XAtq <"$b/psql.in" >"$b/psql.out" 2>&1 &
apps+=($!)
exec 8>"$b/psql.in"
# psql_mark MARK: until psql has printed MARK (the commands before it are done).
psql_mark() {
    echo "SELECT '$1';" >&8
    for _ in $(seq 200); do grep -q "^$1\$" "$b/psql.out" && return 0; sleep 0.05; done
    return 1
}
echo "PREPARE f(text) AS SELECT * FROM b_orders WHERE note = \$1; EXECUTE f('o1');" >&8
psql_mark prepared || bail "psql's PREPARE: $(cat "$b/psql.out")"
# And pgbench -M prepared, whose client stops at its first error.
echo "SELECT * FROM b_orders WHERE note = 'o7';" >"$b/select.sql"
"$PGC_BIN/pgbench" -n -M prepared -c 1 -T 60 --rate 100 -f "$b/select.sql" >"$b/pgbench.out" 2>&1 &
bench=$!
apps+=("$bench")
wait_for "$b/status.py" 's.ok >= 80' && wait_for "$b/status.js" 's.client.ok >= 80 && s.pool.ok >= 40' ||
    bail "the applications did not start: $(cat "$b"/*.err)"
out=$(mig run --table b_orders --to uuidv7 2>&1); rc=$?
check "run without hooks goes through" "$rc" 0 "$(tail -5 <<<"$out")"
echo "EXECUTE f('o1'); EXECUTE f('o2'); EXECUTE f('o3');" >&8
psql_mark executed
check "psql: EXECUTE of a statement PREPAREd before run fails on every execution after it" \
    "$(grep -c 'cached plan must not change result type' "$b/psql.out")" 3 "$(cat "$b/psql.out")"
echo "DEALLOCATE f; PREPARE f(text) AS SELECT * FROM b_orders WHERE note = \$1; EXECUTE f('o4');" >&8
psql_mark again
check "psql: deallocated and prepared again, it works" \
    "$(grep -c 'cached plan must not change result type' "$b/psql.out")|$(grep -c '|o4|' "$b/psql.out")" "3|1" "$(cat "$b/psql.out")"
exec 8>&-
wait "$bench"; brc=$?
ok_if "pgbench -M prepared: its client aborted on cached plan must not change result type" \
    '[ $brc -ne 0 ] && grep -q "cached plan must not change result type" "$b/pgbench.out" && grep -q "aborted" "$b/pgbench.out"' \
    "pgbench rc=$brc" "$(tail -5 "$b/pgbench.out")"
wait_for "$b/status.py" 's.fail >= 40' && wait_for "$b/status.js" 's.client.fail >= 40 && s.pool.ok_after_fail >= 40'
check "the applications ran on after run" "$?" 0
stop_apps "$b"
check "psycopg: from run's first step every execution failed with 0A000, none succeeded since" \
    "$(field "$b/status.py" 'Object.keys(s.codes).join() + " " + s.ok_after_fail')" "0A000 0"
check "node-postgres Client: likewise, every execution of its named statements" \
    "$(field "$b/status.js" 'Object.keys(s.client.codes).join() + " " + s.client.ok_after_fail')" "0A000 0"
check "node-postgres pool.query: one failure (the pool drops that connection), then it goes on" \
    "$(field "$b/status.js" 's.pool.fail + " " + Object.keys(s.pool.codes).join() + " " + (s.pool.ok_after_fail >= 40)')" "1 0A000 true"
mig rollback --table b_orders >/dev/null 2>&1

tap_done
