#!/usr/bin/env bash
# migrate_widen.sh — the serial road's widening: an integer key moved to
# snowflakes is widened to bigint with its foreign keys, a rewrite under
# ACCESS EXCLUSIVE.  plan says how many rows and about how long, and that
# prepared statements break; run refuses it over --max-rewrite-lock
# (default 1s), changing nothing, and does it with the limit raised, between
# the --before/--after-row-type-change commands, after waiting without
# queueing for a long reader of the child.  The estimate and the
# measured time are printed.  Prints TAP; about 15 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server extension chronoid-migrate

. scripts/pgcluster.sh
pgc_start "snowflake.node = 9" >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/migrate_widen
mkdir -p "$work"
mig() { "$bin" migrate "$@" --no-progress; }

q "CREATE SCHEMA ids; CREATE EXTENSION chronoid SCHEMA ids; GRANT USAGE ON SCHEMA ids TO PUBLIC" >/dev/null ||
    bail "chronoid in a trusted schema"
q "CREATE TABLE p (id serial PRIMARY KEY, note text);
   INSERT INTO p (note) SELECT 'n' || g FROM generate_series(1, 150000) g;
   CREATE TABLE c (id bigserial PRIMARY KEY, p_id int REFERENCES p, qty int);
   INSERT INTO c (p_id, qty) SELECT id, 1 FROM p; CREATE INDEX ON c (p_id)" >/dev/null &&
    q "ANALYZE p" >/dev/null && q "ANALYZE c" >/dev/null || bail "the tables"
types() {
    q "SELECT string_agg(format_type(atttypid, NULL), ',' ORDER BY attrelid::regclass::text)
         FROM pg_attribute WHERE (attrelid, attname) IN (('p'::regclass, 'id'), ('c'::regclass, 'p_id'))"
}

out=$(mig plan --table p --to snowflake 2>&1); rc=$?
ok_if "plan names the columns widened, the rows and an estimate of the time under the lock, and the limit" \
    '[ $rc -eq 0 ] && [[ $out == *"id is integer: it and every foreign key column to it (public.c.p_id) are widened to bigint"* ]] && [[ $out == *"~300,000 rows: about 3s under the lock (at ~100,000 rows/s, a guess)"* ]] && [[ $out == *"over --max-rewrite-lock (1s), as here"* ]] && [[ $out == *"1. convert  [ACCESS EXCLUSIVE on public.p and the tables referencing it: about 3s]"* ]]' \
    "$out"
ok_if "plan says prepared statements returning the key or whole rows fail until recycled, and names the cue" \
    '[[ $out == *"Statements prepared on the server that return id, a foreign key to it or whole rows fail"* ]] && [[ $out == *"--before-row-type-change"* ]]' "$out"
ok_if "the old message with its missing number is gone" '[[ $out != *"minutes per million"* ]]' "$out"

for limit in "" "--max-rewrite-lock 2s"; do
    # shellcheck disable=SC2086 # the option and its value, or nothing
    out=$(mig run --table p --to snowflake $limit 2>&1); rc=$?
    ok_if "run ${limit:-with the default limit} refuses the ~3s widening, saying how to accept it" \
        '[ $rc -eq 1 ] && [[ $out == *"a rewrite of ~300,000 rows under ACCESS EXCLUSIVE during which every reader and writer of public.p waits: about 3s"* ]] && [[ $out == *"raise --max-rewrite-lock to accept that wait"* ]]' \
        "rc=$rc" "$out"
done
check "the refusals changed nothing: integer columns, no state, the sequence's default" \
    "$(types)|$(q "SELECT count(*) FROM pg_namespace WHERE nspname = 'chronoid'")|$(q "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'p'::regclass")" \
    "integer,integer|0|nextval('p_id_seq'::regclass)"

# A report reads the child in a long transaction: the widening, which
# rewrites the child too, waits for it without queueing.
PGAPPNAME=report "$PGC_BIN/psql" -XAtq -c "BEGIN; SELECT count(*) FROM c; SELECT pg_sleep(3); COMMIT" >/dev/null 2>&1 &
reader=$!
pgc_atexit "kill $reader 2>/dev/null"
sleep 1
rpid=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'report'")
t0=$(date +%s%N)
out=$(mig run --table p --to snowflake --max-rewrite-lock 1m \
    --before-row-type-change "date +%s%N >$work/t.before; echo \"before \$CHRONOID_MIGRATE_STEP: \$CHRONOID_MIGRATE_CHANGE\" >>$work/hooks.log" \
    --after-row-type-change "date +%s%N >$work/t.after; echo \"after \$CHRONOID_MIGRATE_STEP \$CHRONOID_MIGRATE_RESULT\" >>$work/hooks.log" 2>&1); rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
widen_ms=$((($(cat "$work/t.after") - $(cat "$work/t.before")) / 1000000))
check "with --max-rewrite-lock raised, run widens and converts" "$rc|$(types)" "0|bigint,bigint" "$out"
ok_if "it waited for the child's reader without queueing for the lock" \
    '[ -n "$rpid" ] && [[ $out == *"lock not requested (try 1 of 30); held by pid $rpid "* ]] && [[ $out != *"lock not granted"* ]]' "$out"
check "between the two commands, told what is widened" "$(tr '\n' ';' <"$work/hooks.log")" \
    "before widen: widens public.p.id, public.c.p_id from integer to bigint;after widen done;"
check "new rows get snowflakes of node 9, and every child row still joins" \
    "$(q "INSERT INTO p (note) VALUES ('new') RETURNING snowflake.get_node(id)")|$(q "SELECT count(*) FROM c JOIN p ON p.id = c.p_id")" \
    "9|150000"
diag "widening 300,000 rows (estimated about 3s) took $widen_ms ms between the commands; the run $ms ms, waiting for the reader included"

tap_done
