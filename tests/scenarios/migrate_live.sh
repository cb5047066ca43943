#!/usr/bin/env bash
# migrate_live.sh — `chronoid migrate` on a live table, by its invariants:
# a parent (uuid key, gen_random_uuid()) and a child (foreign key ON DELETE
# CASCADE, indexed) filled with MIGRATE_ROWS rows each, pgbench writers
# inserting, updating and deleting parents and children the whole time
# (through the runs, the swap and the rollback), `run` killed with SIGKILL
# at MIGRATE_KILLS random points (seeded: MIGRATE_SEED) and once stopped by
# SIGTERM, then resumed; the swap; a rollback (the new key kept); the swap
# again, without run; rollback twice (all gone); the same move again with the
# backfill paused by a logical subscriber that falls behind (`--max-lag`);
# and the swap for good.  Per kind of key (MIGRATE_KINDS, default uuidv7
# ulid snowflake; each with --time-from created_at), it checks:
#
#   - no row lost and none extra: triggers log every parent and child
#     inserted and deleted (in the writers' own transactions), and the
#     tables hold exactly the inserted-minus-deleted rows;
#   - no duplicate key, old or new; every foreign key matches its parent on
#     the old and on the new column after every step, and is validated
#     (pg_constraint.convalidated) after the swap and the rollback;
#   - every row backfilled exactly once: a trigger logs each NULL -> value
#     change of <key>_new; no value is ever changed once set; the tool's
#     rows_backfilled equals the logged count; every row that did not get
#     its new ID from the default at insert is in that log;
#   - old rows' IDs carry created_at to the millisecond and sort below
#     every ID minted live;
#   - the tables, their triggers and sequences belong to an application
#     role (app), the tool runs as the superuser: every step on them runs
#     as app (docs/migrate.md "Trust"), as a DBA's move does;
#   - writers are never blocked longer than the bound derived from
#     --lock-timeout (the swap locks the parent and the child, each with
#     lock_timeout: 2 x 500 ms, plus MIGRATE_SLACK_MS, default 1000, for a
#     backfill batch's row locks and a shared machine); their p50/p99/max
#     latencies are printed.
#
# Sizes: MIGRATE_ROWS (default 20000 for the first kind and half that for
# the others, about 70 s for the three kinds on 2 cores; `make soak` runs
# 1,000,000 rows of uuidv7), MIGRATE_KILLS (default 3),
# MIGRATE_LAG (1: the subscriber part, default; 0 to leave it out),
# MIGRATE_RATE (writers' transactions/s, default 100).  Prints TAP; as root
# (the servers run as postgres).  Binaries from $BUILD (default build/).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/scenario.bash
export PGTZ=UTC
ROWS=${MIGRATE_ROWS:-20000}
KILLS=${MIGRATE_KILLS:-3}
KINDS=${MIGRATE_KINDS:-uuidv7 ulid snowflake}
LAG=${MIGRATE_LAG:-1}
RATE=${MIGRATE_RATE:-100}
SEED=${MIGRATE_SEED:-$(( $(date +%s%N) / 1000 % 1000000 ))}
LOCK_MS=500
SLACK_MS=${MIGRATE_SLACK_MS:-1000}
BOUND_MS=$((2 * LOCK_MS + SLACK_MS))
RANDOM=$SEED
big=0
[ "$ROWS" -ge 200000 ] && big=1

scenario_needs root server pgbench extension chronoid-migrate
echo "# seed $SEED (MIGRATE_SEED=$SEED MIGRATE_ROWS=$ROWS MIGRATE_KILLS=$KILLS MIGRATE_KINDS='$KINDS' to replay)"

PGC_PREFIX=chronoid-migrate
. scripts/pgcluster.sh
if ! pgc_start "snowflake.node = 3" "wal_level = logical" "max_connections = 60" \
    "max_wal_senders = 10" "max_replication_slots = 10" "wal_sender_timeout = 10s" >/dev/null; then
    bail "start a throwaway PostgreSQL cluster"
fi
work=$PGC_DIR/work
mkdir -p "$work"
chmod 777 "$work"
bg_pids=()
pgc_atexit 'for k in $KINDS; do touch "$work/stop.m_$k"; done; for p in "${bg_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; for f in "$work"/*.pgb/pgbench.pid; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done; wait'
pgc_atexit '[ "$failed" -gt 0 ] && rm -rf "$BUILD/migrate_live.work" && cp -r "$work" "$BUILD/migrate_live.work" && echo "# kept $BUILD/migrate_live.work"'
now_ms() { date +%s%3N; }
t_start=$(now_ms)
# The polls and the invariants (st, keys, ledger, ...): read-only queries,
# a few hundred a run, on one session (scenario.bash's qs) rather than a
# connection each.
qs_open || bail "a session for the checks"

# --- the subscriber: a second cluster, its own socket directory -------------
sub_data=$PGC_DIR/sub/data
sub_sock=$PGC_DIR/sub/sock
subq() { q -h "$sub_sock" -p "$PGC_PORT" -c "$1"; }
sub_started=
if [ "$LAG" = 1 ]; then
    mkdir -p "$sub_sock"
    chown -R postgres: "$PGC_DIR/sub"
    if runuser -u postgres -- "$PGC_BIN/initdb" -D "$sub_data" -U postgres -A trust -E UTF8 --locale=C \
            --no-sync >"$work/sub-initdb.log" 2>&1 &&
        printf '%s\n' "port = $PGC_PORT" "listen_addresses = ''" "unix_socket_directories = '$sub_sock'" \
            "fsync = off" | runuser -u postgres -- tee -a "$sub_data/postgresql.conf" >/dev/null &&
        runuser -u postgres -- "$PGC_BIN/pg_ctl" -D "$sub_data" -l "$PGC_DIR/sub/server.log" -w start >/dev/null 2>&1
    then
        sub_started=1
        pgc_atexit 'runuser -u postgres -- "$PGC_BIN/pg_ctl" -D "$sub_data" -m immediate -w stop >/dev/null 2>&1'
    fi
    # A separate small table: the walsender decodes all WAL anyway.
    if [ -n "$sub_started" ] &&
       q "CREATE TABLE lag_probe (id int PRIMARY KEY, at timestamptz); CREATE PUBLICATION mig_pub FOR TABLE lag_probe" >/dev/null &&
       subq "CREATE TABLE lag_probe (id int PRIMARY KEY, at timestamptz)" >/dev/null &&
       subq "CREATE SUBSCRIPTION mig_sub CONNECTION 'host=$PGC_SOCK port=$PGC_PORT dbname=postgres user=postgres' PUBLICATION mig_pub" >/dev/null; then
        for _ in $(seq 100); do
            [ "$(qs "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'mig_sub'")" = 1 ] && break
            sleep 0.1
        done
        check "a logical subscriber on a second cluster is streaming" \
            "$(qs "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'mig_sub'")" 1
    else
        not_ok "a logical subscriber on a second cluster" "$(tail -n 5 "$PGC_DIR/sub/server.log" 2>/dev/null)"
        LAG=0
    fi
fi

# --- schema, audit triggers, fill ----------------------------------------------
# setup S KIND: the tables of one kind in schema S, filled.
setup() {
    local s=$1
    psql -Xq -v ON_ERROR_STOP=1 >"$work/$s.setup.log" 2>&1 <<SQL
CREATE EXTENSION IF NOT EXISTS chronoid;
CREATE SCHEMA $s;
CREATE TABLE $s.phase (n int NOT NULL);
INSERT INTO $s.phase VALUES (1);
CREATE SEQUENCE $s.parent_seq;
CREATE TABLE $s.parent (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    seq bigint NOT NULL DEFAULT nextval('$s.parent_seq') UNIQUE,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(), note int NOT NULL DEFAULT 0);
CREATE TABLE $s.child (id bigserial PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES $s.parent ON DELETE CASCADE, v int NOT NULL DEFAULT 0);
CREATE INDEX ON $s.child (parent_id);
-- The ledger: written in the writers' own transactions.
CREATE TABLE $s.p_ins (seq bigint NOT NULL, had_new bool NOT NULL, phase int NOT NULL);
CREATE TABLE $s.p_del (seq bigint NOT NULL, had_new bool NOT NULL, phase int NOT NULL);
CREATE TABLE $s.c_ins (id bigint NOT NULL, phase int NOT NULL);
CREATE TABLE $s.c_del (id bigint NOT NULL, phase int NOT NULL);
-- Every NULL -> value change of the new columns, and any change of a value once set.
CREATE TABLE $s.bf_log (tbl text NOT NULL, k bigint NOT NULL, app text, phase int NOT NULL);
CREATE TABLE $s.violations (tbl text, k bigint, was text, now text, app text);
-- to_jsonb: the columns come and go (added, renamed by the swap, dropped by rollback).
CREATE FUNCTION $s.p_ins_f() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
  INSERT INTO $s.p_ins SELECT n.seq, (to_jsonb(n)->>'id_new') IS NOT NULL, (SELECT ph.n FROM $s.phase ph) FROM nt n;
  RETURN NULL; END \$\$;
CREATE TRIGGER p_ins AFTER INSERT ON $s.parent REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION $s.p_ins_f();
CREATE FUNCTION $s.p_del_f() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
  INSERT INTO $s.p_del VALUES (OLD.seq, (to_jsonb(OLD)->>'id_new') IS NOT NULL, (SELECT ph.n FROM $s.phase ph));
  RETURN NULL; END \$\$;
CREATE TRIGGER p_del AFTER DELETE ON $s.parent FOR EACH ROW EXECUTE FUNCTION $s.p_del_f();
CREATE FUNCTION $s.p_upd_f() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off SET enable_mergejoin = off SET search_path = pg_catalog, public AS \$\$ BEGIN
  INSERT INTO $s.bf_log SELECT 'parent', n.seq, current_setting('application_name'), (SELECT ph.n FROM $s.phase ph)
    FROM ot o JOIN nt n ON n.seq = o.seq
   WHERE (to_jsonb(o)->>'id_new') IS NULL AND (to_jsonb(n)->>'id_new') IS NOT NULL;
  INSERT INTO $s.violations SELECT 'parent', n.seq, to_jsonb(o)->>'id_new', to_jsonb(n)->>'id_new', current_setting('application_name')
    FROM ot o JOIN nt n ON n.seq = o.seq
   WHERE (to_jsonb(o)->>'id_new') IS NOT NULL AND (to_jsonb(o)->>'id_new') IS DISTINCT FROM (to_jsonb(n)->>'id_new');
  RETURN NULL; END \$\$;
CREATE TRIGGER p_upd AFTER UPDATE ON $s.parent REFERENCING OLD TABLE AS ot NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION $s.p_upd_f();
CREATE FUNCTION $s.c_ins_f() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
  INSERT INTO $s.c_ins SELECT n.id, (SELECT ph.n FROM $s.phase ph) FROM nt n;
  RETURN NULL; END \$\$;
CREATE TRIGGER c_ins AFTER INSERT ON $s.child REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION $s.c_ins_f();
CREATE FUNCTION $s.c_del_f() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
  INSERT INTO $s.c_del VALUES (OLD.id, (SELECT ph.n FROM $s.phase ph));
  RETURN NULL; END \$\$;
CREATE TRIGGER c_del AFTER DELETE ON $s.child FOR EACH ROW EXECUTE FUNCTION $s.c_del_f();
CREATE FUNCTION $s.c_upd_f() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off SET enable_mergejoin = off SET search_path = pg_catalog, public AS \$\$ BEGIN
  INSERT INTO $s.bf_log SELECT 'child', n.id, current_setting('application_name'), (SELECT ph.n FROM $s.phase ph)
    FROM ot o JOIN nt n ON n.id = o.id
   WHERE (to_jsonb(o)->>'parent_id_new') IS NULL AND (to_jsonb(n)->>'parent_id_new') IS NOT NULL;
  INSERT INTO $s.violations SELECT 'child', n.id, to_jsonb(o)->>'parent_id_new', to_jsonb(n)->>'parent_id_new', current_setting('application_name')
    FROM ot o JOIN nt n ON n.id = o.id
   WHERE (to_jsonb(o)->>'parent_id_new') IS NOT NULL AND (to_jsonb(o)->>'parent_id_new') IS DISTINCT FROM (to_jsonb(n)->>'parent_id_new')
     AND n.parent_id IS NOT DISTINCT FROM o.parent_id;
  RETURN NULL; END \$\$;
CREATE TRIGGER c_upd AFTER UPDATE ON $s.child REFERENCING OLD TABLE AS ot NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION $s.c_upd_f();
-- The ledger of updates watches the tool's own too: ENABLE ALWAYS, which
-- the tool's session_replication_role = replica does not skip, accepted
-- with --fire-triggers (run and rollback, below).
ALTER TABLE $s.parent ENABLE ALWAYS TRIGGER p_upd;
ALTER TABLE $s.child ENABLE ALWAYS TRIGGER c_upd;
-- Old rows: created over the last 30 days, a few ms apart.
INSERT INTO $s.parent (created_at)
  SELECT now() - interval '30 days' + g * (interval '30 days' / $rows) + random() * interval '1 ms'
    FROM generate_series(1, $rows) g;
INSERT INTO $s.child (parent_id, v)
  SELECT id, 0 FROM $s.parent WHERE seq % 3 <> 0 UNION ALL SELECT id, 1 FROM $s.parent WHERE seq % 3 = 1;
ANALYZE $s.parent, $s.child;
-- The application's role owns it all; the tool (postgres) acts as it.
DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'app') THEN CREATE ROLE app; END IF; END\$\$;
DO \$\$DECLARE r record; BEGIN
  FOR r IN SELECT c.oid::regclass AS n FROM pg_class c WHERE c.relnamespace = '$s'::regnamespace AND c.relkind = 'r' LOOP
    EXECUTE format('ALTER TABLE %s OWNER TO app', r.n); END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS n FROM pg_proc p WHERE p.pronamespace = '$s'::regnamespace LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO app', r.n); END LOOP;
END\$\$;
ALTER SEQUENCE $s.parent_seq OWNER TO app;
ALTER SCHEMA $s OWNER TO app;
SQL
}

# --- writers -------------------------------------------------------------------
# Parents with seq % 10 = 0 are the ones deleted; children are only added
# to the others (so a child's insert never races its parent's delete).
write_scripts() {
    local s=$1 d=$work/$1.pgb
    mkdir -p "$d"
    echo "INSERT INTO $s.parent (note) VALUES (0);" >"$d/ins_parent.sql"
    printf '%s\n' '\set s random(1, :nparent)' \
        "INSERT INTO $s.child (parent_id, v) SELECT id, 2 FROM $s.parent WHERE seq >= :s AND seq % 10 <> 0 ORDER BY seq LIMIT 1;" \
        >"$d/ins_child.sql"
    printf '%s\n' '\set s random(1, :nparent)' "UPDATE $s.parent SET note = note + 1 WHERE seq = :s;" >"$d/upd.sql"
    printf '%s\n' '\set c random(1, :nparent)' "UPDATE $s.child SET v = v + 1 WHERE id = :c;" >"$d/upd_child.sql"
    printf '%s\n' '\set s 10 * random(1, :nparent / 10)' "DELETE FROM $s.parent WHERE seq = :s;" >"$d/del_parent.sql"
    printf '%s\n' '\set c random(1, :nparent)' "DELETE FROM $s.child WHERE id = :c;" >"$d/del_child.sql"
    chmod -R a+rX "$d"
}

# writers_start S: pgbench runs back to back until writers_stop (each run
# flushes its per-transaction log when it ends).
writers_start() {
    local s=$1 d=$work/$1.pgb secs=2
    [ "$big" = 1 ] && secs=10
    rm -f "$work/stop.$s"
    (
        i=0
        while [ ! -e "$work/stop.$s" ]; do
            i=$((i + 1))
            "$PGC_BIN/pgbench" -n -c 2 -j 2 -T "$secs" --rate "$RATE" --max-tries 10 \
                -D nparent="$rows" --log --log-prefix="$d/lat.$i" \
                -f "$d/ins_parent.sql@4" -f "$d/ins_child.sql@4" -f "$d/upd.sql@6" \
                -f "$d/upd_child.sql@2" -f "$d/del_parent.sql@1" -f "$d/del_child.sql@1" \
                >"$d/run.$i.out" 2>&1 &
            echo $! >"$d/pgbench.pid"
            wait $!
            echo $? >"$d/run.$i.rc"
        done
    ) &
    writers_pid=$!
    bg_pids+=("$writers_pid")
}
writers_stop() {
    touch "$work/stop.$1"
    wait "$writers_pid" 2>/dev/null
    wait "$waits_pid" 2>/dev/null
}
# waits_start S: every 100 ms, one session asks what the writers' sessions
# that are not idle wait on, and who blocks them (pg_blocking_pids, with
# what those run), into $work/S.waits: "ms|pid|type|event|blockers".  A
# slow transaction is then explained by the samples in its time (slowest).
waits_start() {
    local s=$1
    # shellcheck disable=SC2016
    while [ ! -e "$work/stop.$s" ]; do
        echo "SELECT (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::int8, a.pid,
                     a.wait_event_type, a.wait_event,
                     (SELECT string_agg(b.pid || ' ' || b.application_name || ': '
                                        || left(regexp_replace(b.query, '\s+', ' ', 'g'), 60), '; ')
                        FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid)))
                FROM pg_stat_activity a
               WHERE a.application_name = 'pgbench' AND a.state <> 'idle' AND a.wait_event IS NOT NULL
                 AND a.wait_event <> 'ClientRead';"
        sleep 0.1
    done | psql -XAtq -F '|' >>"$work/$s.waits" 2>/dev/null &
    waits_pid=$!
    bg_pids+=("$waits_pid")
}
# waits_in S FROM TO: the writers' waits sampled between FROM and TO (ms),
# counted by kind and blocker; "none sampled" when the writers were on a
# CPU (or waited less than the 100 ms between samples).
waits_in() {
    awk -F'|' -v a="$2" -v b="$3" '$1 >= a && $1 <= b {
            k = $3 ":" $4; if ($5 != "") k = k " (blocked by " $5 ")"; n[k]++ }
        END { for (k in n) { printf "%s%s x%d", sep, k, n[k]; sep = "; " } if (!length(n)) printf "none sampled" }' \
        "$work/$1.waits" 2>/dev/null
}

# --- the tool -------------------------------------------------------------------
mig() { PGAPPNAME=chronoid-migrate "$bin" migrate "$@"; }
# mig_bg ARGS... >out 2>err &: the same in the background, $! being the
# tool's own pid (a function would put a subshell between)
# ev S TEXT: a timestamped event, to place the writers' slowest transactions
ev() { echo "$(now_ms) $2" >>"$work/$1.events"; }
# st S FIELD: rows_backfilled or step, read from the state table itself:
# polling loops need an answer in milliseconds, and `status` (tested by
# exactly_once and migrate.sh) does much more than read one row.
st() {
    local col
    case $2 in
        rows_backfilled) col=rows_done ;;
        step) col=step ;;
        *) echo "st: no field $2" >&2; return 1 ;;
    esac
    qs "SELECT $col FROM chronoid.migration WHERE relid = '$1.parent'::regclass" || echo "?"
}

# --- invariants -------------------------------------------------------------------
# ledger S: "lost extra" parents, then children, in one snapshot each.
ledger() {
    local s=$1
    qs "SELECT (SELECT count(*) FROM ((SELECT seq FROM $s.p_ins EXCEPT SELECT seq FROM $s.p_del) EXCEPT SELECT seq FROM $s.parent) x)
           || ' ' || (SELECT count(*) FROM (SELECT seq FROM $s.parent EXCEPT (SELECT seq FROM $s.p_ins EXCEPT SELECT seq FROM $s.p_del)) x)
           || ' ' || (SELECT count(*) FROM ((SELECT id FROM $s.c_ins EXCEPT SELECT id FROM $s.c_del) EXCEPT SELECT id FROM $s.child) x)
           || ' ' || (SELECT count(*) FROM (SELECT id FROM $s.child EXCEPT (SELECT id FROM $s.c_ins EXCEPT SELECT id FROM $s.c_del)) x)
           || ' ' || (SELECT count(*) - count(DISTINCT seq) FROM $s.p_ins) || ' ' || (SELECT count(*) - count(DISTINCT id) FROM $s.c_ins)"
}
# The invariants, one row each: NAME, then a query counting the rows that
# break it ({s}: the kind's schema).  A NAME:variant is printed as NAME.
declare -A INVARIANT=(
    [dup_id]="SELECT count(*) - count(DISTINCT id) FROM {s}.parent"
    [dup_id_new]="SELECT count(id_new) - count(DISTINCT id_new) FROM {s}.parent"
    [null_id_new]="SELECT count(*) FROM {s}.parent WHERE id_new IS NULL"
    [dup_id_old]="SELECT count(id_old) - count(DISTINCT id_old) FROM {s}.parent"
    [null_id_old]="SELECT count(*) FROM {s}.parent WHERE id_old IS NULL"
    [orphans]="SELECT count(*) FROM {s}.child c LEFT JOIN {s}.parent p ON p.id = c.parent_id WHERE p.id IS NULL"
    # mid-run: only the children already given a new value
    [new_mismatch:set]="SELECT count(*) FROM {s}.child c JOIN {s}.parent p ON p.id = c.parent_id
                         WHERE c.parent_id_new IS NOT NULL AND c.parent_id_new IS DISTINCT FROM p.id_new"
    [new_mismatch]="SELECT count(*) FROM {s}.child c JOIN {s}.parent p ON p.id = c.parent_id
                     WHERE c.parent_id_new IS DISTINCT FROM p.id_new"
    [old_mismatch]="SELECT count(*) FROM {s}.child c JOIN {s}.parent p ON p.id = c.parent_id
                     WHERE c.parent_id_old IS DISTINCT FROM p.id_old"
    [not_validated]="SELECT count(*) FROM pg_constraint WHERE conrelid = '{s}.child'::regclass AND contype = 'f' AND NOT convalidated"
    # after a rollback that keeps the new key: the CHECKs too, on both tables
    [not_validated:fc]="SELECT count(*) FROM pg_constraint WHERE conrelid IN ('{s}.child'::regclass, '{s}.parent'::regclass)
                         AND contype IN ('f', 'c') AND NOT convalidated"
    [pk_not_on_id]="SELECT count(*) FROM pg_constraint WHERE conrelid = '{s}.parent'::regclass AND contype = 'p'
                     AND conkey <> ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = '{s}.parent'::regclass AND attname = 'id')]"
    [pk_not_on_uuid_id]="SELECT count(*) FROM pg_constraint WHERE conrelid = '{s}.parent'::regclass AND contype = 'p'
                          AND conkey <> ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = '{s}.parent'::regclass
                                               AND attname = 'id' AND atttypid = 'uuid'::regtype)]"
    [leftover_columns]="SELECT count(*) FROM pg_attribute WHERE attrelid IN ('{s}.parent'::regclass, '{s}.child'::regclass)
                         AND attnum > 0 AND NOT attisdropped AND attname ~ '_(new|old)\$'"
    [leftover_triggers]="SELECT count(*) FROM pg_trigger WHERE tgrelid IN ('{s}.parent'::regclass, '{s}.child'::regclass)
                          AND tgname LIKE 'chronoid%'"
    [violations]="SELECT count(*) FROM {s}.violations"
)
# Which of them hold at each stage of a move.
declare -A STAGE=(
    [before]="dup_id dup_id_new orphans new_mismatch:set violations"   # before the swap, mid-run included
    [ready]="dup_id dup_id_new null_id_new orphans new_mismatch violations"   # run finished
    [swapped]="dup_id dup_id_old null_id_old orphans old_mismatch not_validated pk_not_on_id violations"
    # rolled back once after the swap: as ready, and the old key back, its constraints valid
    [kept]="dup_id dup_id_new null_id_new orphans new_mismatch violations not_validated:fc pk_not_on_uuid_id"
    [rolledback]="dup_id orphans not_validated pk_not_on_uuid_id leftover_columns leftover_triggers"
)
# keys S STAGE: STAGE's invariants as "name=count" pairs, in one snapshot;
# every count must be 0.
keys() {
    local s=$1 inv sql="SELECT ''"
    for inv in ${STAGE[$2]}; do
        sql+=" || '${inv%%:*}=' || (${INVARIANT[$inv]//\{s\}/$s}) || ' '"
    done
    qs "$sql" | sed 's/ $//'
}
# keys_ok STAGE "a=0 b=0 ...": every invariant of STAGE there, and 0
keys_ok() {
    local inv
    for inv in ${STAGE[$1]}; do
        [[ " $2 " == *" ${inv%%:*}=0 "* ]] || return 1
    done
}
# keys_case S STAGE NAME [COND [DIAG...]]: one case: STAGE's invariants
# hold (and the shell COND, when given); their counts end its name.
keys_case() {
    local k
    k=$(keys "$1" "$2")
    ok_if "$3 ($k)" "${4:-true} && keys_ok $2 \"\$k\"" "$k" "${@:5}"
}
# ledger_case S NAME: one case: no row lost or extra (ledger)
ledger_case() { check "$2" "$(ledger "$1")" "0 0 0 0 0 0"; }
# wait_for TENTHS PID CONDITION: until the shell CONDITION holds (0), PID
# has ended or TENTHS tenths of a second have passed (1).
wait_for() {
    local _
    for _ in $(seq "$1"); do
        eval "$3" && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# exactly_once S PHASE COLUMN: "parent_logged parent_distinct rows_backfilled
# child_logged child_distinct child_rows_backfilled missed" where missed counts
# the live rows neither backfilled nor given a new value at insert in PHASE.
exactly_once() {
    local s=$1 ph=$2 j rb crb
    j=$(mig status --table "$s.parent" --json 2>/dev/null)
    rb=$(json_get "$j" rows_backfilled)
    crb=$(json_get "$j" children 0 rows_backfilled)
    qs "SELECT (SELECT count(*) FROM $s.bf_log WHERE tbl = 'parent' AND phase = $ph AND app = 'chronoid-migrate')
        || ' ' || (SELECT count(DISTINCT k) FROM $s.bf_log WHERE tbl = 'parent' AND phase = $ph)
        || ' ' || '$rb'
        || ' ' || (SELECT count(*) FROM $s.bf_log WHERE tbl = 'child' AND phase = $ph AND app = 'chronoid-migrate')
        || ' ' || (SELECT count(DISTINCT k) FROM $s.bf_log WHERE tbl = 'child' AND phase = $ph AND app = 'chronoid-migrate')
        || ' ' || '$crb'
        || ' ' || (SELECT count(*) FROM $s.parent p
                    WHERE NOT EXISTS (SELECT 1 FROM $s.bf_log b WHERE b.tbl = 'parent' AND b.phase = $ph AND b.k = p.seq)
                      AND NOT EXISTS (SELECT 1 FROM $s.p_ins i WHERE i.seq = p.seq AND i.phase = $ph AND i.had_new))"
}

# ts_expr KIND COL: the timestamp an ID of KIND carries
ts_expr() {
    case $1 in
        uuidv7) echo "uuid_extract_timestamp($2)" ;;
        ulid) echo "($2)::timestamptz" ;;
        snowflake) echo "snowflake.to_timestamp($2)" ;;
    esac
}
# time_order S KIND PHASE COL: "wrong_ms old_rows inversions": backfilled rows
# (created before the cutoff) whose ID's time is not created_at's ms; and
# whether the largest of them is below the smallest ID minted live.
time_order() {
    local s=$1 kind=$2 ph=$3 col=$4 cut
    cut="(SELECT cutoff FROM chronoid.migration WHERE relid = '$s.parent'::regclass)"
    # Statistics first: on a loaded machine autovacuum may not have seen the
    # logs yet, and a nested loop over a million rows of each outlasts qs.
    qs "ANALYZE $s.bf_log, $s.p_ins, $s.parent" >/dev/null
    # Hash joins, whatever the estimates: make soak's million rows once
    # outlasted qs's 300 s on a machine at load 12, and every check after
    # it lost its session.  The answer is the same under any plan.
    qs "SET enable_nestloop = off" >/dev/null
    qs "SET work_mem = '256MB'" >/dev/null
    QS_TIMEOUT=900 qs "WITH old AS (SELECT p.$col AS k, p.created_at FROM $s.parent p
                     WHERE p.created_at < $cut
                       AND EXISTS (SELECT 1 FROM $s.bf_log b WHERE b.tbl = 'parent' AND b.phase = $ph AND b.k = p.seq)),
            live AS (SELECT p.$col AS k FROM $s.parent p JOIN $s.p_ins i ON i.seq = p.seq AND i.phase = $ph AND i.had_new)
       SELECT (SELECT count(*) FROM old WHERE $(ts_expr "$kind" k) <> date_trunc('milliseconds', created_at))
         || ' ' || (SELECT count(*) FROM old)
         || ' ' || CASE WHEN (SELECT k FROM old ORDER BY k DESC LIMIT 1) < (SELECT k FROM live ORDER BY k LIMIT 1) THEN 0 ELSE 1 END"
    qs "RESET enable_nestloop" >/dev/null
    qs "RESET work_mem" >/dev/null
}

# latency S: "p50 p99 max n failed" of the writers, in ms, and pgbench errors
latency() {
    local d=$work/$1.pgb f
    f=$(cat "$d"/lat.* 2>/dev/null | awk '$3 !~ /^[0-9]+$/ { f++ } END { print f + 0 }')
    cat "$d"/lat.* 2>/dev/null | awk '$3 ~ /^[0-9]+$/ { print $3 / 1000 }' | sort -n | awk -v f="$f" '
        { a[NR] = $1 } END {
            if (NR == 0) { print "0 0 0 0 " f; exit }
            i50 = int(NR * 0.50); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
            printf "%.1f %.1f %.1f %d %d\n", a[i50], a[i99], a[NR], NR, f }'
}
# slowest S: the 3 slowest writer transactions, each with the events before it
slowest() {
    cat "$work/$1.pgb"/lat.* 2>/dev/null | awk '$3 ~ /^[0-9]+$/ { printf "%.0f %.0f %d\n", $3 / 1000, $5 * 1000 + $6 / 1000 - $3 / 1000, $4 }' |
        sort -rn | head -n 3 | while read -r ms start script; do
            echo "slow: $ms ms (script $script), started at +$((start - t_start)) ms, after: $(awk -v t="$start" -v t0="$t_start" \
                '$1 <= t { e = "+" ($1 - t0) " ms " substr($0, index($0, " ") + 1) } END { print e }' "$work/$1.events");" \
                "waits: $(waits_in "$1" "$start" "$((start + ms))")"
        done
}
writer_errors() {
    local d=$work/$1.pgb r bad=0
    for r in "$d"/run.*.rc; do
        [ "$(cat "$r")" = 0 ] || bad=$((bad + 1))
    done
    echo "$bad $(grep -h 'number of failed transactions' "$d"/run.*.out 2>/dev/null | awk '{s += $5} END {print s + 0}')"
}

# --- one kind --------------------------------------------------------------------
# run_killed S KIND: `run` stopped by SIGTERM once (during the backfill),
# killed with SIGKILL at KILLS random points, then run to the end.
run_killed() {
    local s=$1 kind=$2 i pid delay rc landed=0 before after err=$work/$1.run.err
    local opts=(--table "$s.parent" --to "$kind" --time-from created_at --lock-timeout "${LOCK_MS}ms" --fire-triggers)
    [ "$LAG" = 1 ] && opts+=(--max-lag 2s)
    [ "$big" = 0 ] && opts+=(--batch 1000 --pause 50ms)
    # SIGTERM: stops after the current batch, exit 1, says to run again.
    ev "$s" "run (to be stopped by SIGTERM)"
    env PGAPPNAME=chronoid-migrate "$bin" migrate run "${opts[@]}" >"$err.out" 2>"$err.term" &
    pid=$!
    bg_pids+=("$pid")
    wait_for 300 "$pid" '[ "$(st "$s" rows_backfilled)" -gt 0 ] 2>/dev/null'
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    ok_if "$kind: SIGTERM during the backfill: exit 1, 'run again to continue'" \
        '[ $rc -eq 1 ] && grep -q "run again to continue" "$err.term"' "rc=$rc" "$(tail -n 3 "$err.term")"
    keys_case "$s" before "$kind: after SIGTERM: no duplicate, no orphan, no mismatch"
    for i in $(seq "$KILLS"); do
        if [ "$big" = 1 ]; then
            delay=$((1000 + RANDOM % 30000))
        else
            delay=$((100 + RANDOM % (rows / 8)))
        fi
        before=$(st "$s" rows_backfilled)
        ev "$s" "run (kill $i after $delay ms)"
        env PGAPPNAME=chronoid-migrate "$bin" migrate run "${opts[@]}" >"$err.out" 2>"$err.$i" &
        pid=$!
        bg_pids+=("$pid")
        sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
        if kill -KILL "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            landed=$((landed + 1))
            after=$(st "$s" rows_backfilled)
            echo "# $kind: kill $i after ${delay} ms: step $(st "$s" step), rows_backfilled $before -> $after"
        else
            wait "$pid"
            rc=$?
            echo "# $kind: kill $i after ${delay} ms: run had already ended (exit $rc)"
            [ $rc -eq 0 ] && break
        fi
        keys_case "$s" before "$kind: after kill $i: no duplicate, no orphan, no mismatch"
    done
    echo "# $kind: $landed of $KILLS kills landed while run was running"
    ev "$s" "run to the end"
    mig run "${opts[@]}" >"$err.out" 2>"$err.last"
    rc=$?
    ok_if "$kind: run resumes after the kills and is ready to swap" \
        '[ $rc -eq 0 ] && grep -q "ready to swap" "$err.out"' "rc=$rc" "$(tail -n 3 "$err.last")" "$(cat "$err.out")"
    mig run "${opts[@]}" >"$err.out" 2>"$err.again"
    rc=$?
    ok_if "$kind: a finished run again changes nothing" \
        '[ $rc -eq 0 ] && [ "$(qs "SELECT count(*) FROM '"$s"'.bf_log WHERE tbl = '"'parent'"' AND phase = 1")" = "$(st "$s" rows_backfilled)" ]' \
        "rc=$rc" "$(tail -n 3 "$err.again")"
}

# run_lagging S KIND: the backfill with --max-lag 2s while the subscriber is
# disabled: it pauses, makes no progress, and resumes once re-enabled.
run_lagging() {
    local s=$1 kind=$2 err=$work/$1.lag.err pid rc r1 r2 step1 t0 paused=0 resumed=0
    local opts=(--table "$s.parent" --to "$kind" --time-from created_at --lock-timeout "${LOCK_MS}ms" --max-lag 2s
                --fire-triggers)
    [ "$big" = 0 ] && opts+=(--batch 500 --pause 100ms)
    ev "$s" "run with the subscriber disabled"
    env PGAPPNAME=chronoid-migrate "$bin" migrate run "${opts[@]}" >"$err.out" 2>"$err" &
    pid=$!
    bg_pids+=("$pid")
    wait_for 600 "$pid" '[ "$(st "$s" rows_backfilled)" -gt $((rows / 20)) ] 2>/dev/null'
    subq "ALTER SUBSCRIPTION mig_sub DISABLE" >/dev/null
    t0=$(now_ms)
    wait_for 600 "$pid" 'grep -q "paused: replication lag" "$err"' && paused=1
    ok_if "$kind: subscriber disabled mid-backfill: 'paused: replication lag' after $(( $(now_ms) - t0 )) ms" \
        '[ $paused = 1 ]' "$(tail -n 5 "$err")"
    r1=$(st "$s" rows_backfilled)
    step1=$(st "$s" step)
    sleep 2
    r2=$(st "$s" rows_backfilled)
    ok_if "$kind: no progress while paused (rows_backfilled $r1 -> $r2 over 2 s, step $step1)" \
        '[ $paused = 1 ] && [ "$r1" = "$r2" ] && [ "$step1" = added ] && kill -0 $pid 2>/dev/null' \
        "$(grep -c 'paused' "$err") pause lines" "lag: $(qs "SELECT slot_name, active, confirmed_flush_lsn, pg_current_wal_lsn() FROM pg_replication_slots")"
    subq "ALTER SUBSCRIPTION mig_sub ENABLE" >/dev/null
    t0=$(now_ms)
    wait_for 1200 "$pid" 'grep -q "resumed: replication caught up" "$err"' && resumed=1
    ok_if "$kind: subscriber re-enabled: 'resumed: replication caught up' after $(( $(now_ms) - t0 )) ms" \
        '[ $resumed = 1 ]' "$(tail -n 5 "$err")"
    wait "$pid"
    rc=$?
    r2=$(st "$s" rows_backfilled)
    ok_if "$kind: the paused run finishes (rows_backfilled $r1 -> $r2)" \
        '[ $rc -eq 0 ] && grep -q "ready to swap" "$err.out" && [ "$r2" -gt "$r1" ]' "rc=$rc" "$(tail -n 3 "$err")"
    grep -E 'paused|resumed' "$err" | sed "s/^/# $kind: /"
}

# The moves after the first run, under the writers, one row each:
#   subcommand | times | pause after (s) | the state's step after it ("-":
#   not asked) | keys stage | the cases: the move's ("-": its exit status
#   goes into the keys case), the keys', the ledger's ("-": none)
MOVES=(
    "swap|1|0.5|done|swapped|swap|swapped: PK on the new id, FKs validated, old columns filled and unique|no row lost or extra after the swap"
    "rollback|1|0|indexed|kept|rollback after the swap|rolled back: PK on the old uuid id, FKs and CHECKs valid, every new value kept|no row lost or extra after the rollback"
    "swap|1|0|-|swapped|-|swap again without run: PK on the new id, FKs validated, no duplicate|-"
    "rollback|2|0|-|rolledback|rollback twice|rolled back: PK on the old uuid id, FKs valid, nothing left of the migration|no row lost or extra after the rollback"
)
# move S KIND ROW: one move of MOVES (or of the same shape) and its cases.
move() {
    local s=$1 kind=$2 sub times pause step stage name kname lname e rc i
    IFS='|' read -r sub times pause step stage name kname lname <<<"$3"
    local fire=()
    [ "$sub" = rollback ] && fire=(--fire-triggers)
    ev "$s" "${name/#-/$kname}"
    for i in $(seq "$times"); do
        e=$(mig "$sub" --table "$s.parent" --lock-timeout "${LOCK_MS}ms" "${fire[@]}" 2>&1)
        rc=$?
        [ $rc -eq 0 ] || break
    done
    ev "$s" "${name/#-/$kname} done"
    if [ "$name" != - ]; then
        ok_if "$kind: $name" '[ $rc -eq 0 ] && { [ "$step" = - ] || [ "$(st "$s" step)" = "$step" ]; }' "$e"
        [ "$stage" = - ] || keys_case "$s" "$stage" "$kind: $kname"
    else
        keys_case "$s" "$stage" "$kind: $kname" '[ $rc -eq 0 ]' "$e"
    fi
    [ "$lname" = - ] || ledger_case "$s" "$kind: $lname"
    [ "$pause" = 0 ] || sleep "$pause"
}

# one_kind KIND: the whole story for one kind of key, in schema m_KIND.
one_kind() {
    local kind=$1 s=m_$1 t0 row e rc pl pd rb cl cd crb missed wrong old inv we wf p50 p99 mx nt nf
    t0=$(now_ms)
    # The short run gives the kinds after the first half the rows (make check's budget).
    rows=$ROWS
    [ "$big" = 0 ] && [ "$kind" != "${KINDS%% *}" ] && rows=$((ROWS / 2))
    if ! setup "$s"; then
        not_ok "$kind: create and fill $s.parent and $s.child" "$(tail -n 5 "$work/$s.setup.log")"
        return
    fi
    ok "$kind: $s.parent and $s.child with $rows rows each, audit triggers ($(( $(now_ms) - t0 )) ms)"
    write_scripts "$s"
    writers_start "$s"
    waits_start "$s"
    sleep 0.5

    # 1. run, killed, resumed
    run_killed "$s" "$kind"
    keys_case "$s" ready "$kind: ready: every parent and child has its new value, no duplicate, FKs match"
    read -r pl pd rb cl cd crb missed <<<"$(exactly_once "$s" 1)"
    ok_if "$kind: each row backfilled exactly once: $pl logged, $pd distinct, rows_backfilled $rb, none missed ($missed)" \
        '[ "$pl" = "$pd" ] && [ "$pl" = "$rb" ] && [ "$missed" = 0 ] && [ "$pl" -gt 0 ]'
    ok_if "$kind: each child backfilled once: $cl logged, $cd distinct, children[0].rows_backfilled $crb" \
        '[ "$cl" = "$cd" ] && [ "$cl" = "$crb" ]'
    read -r wrong old inv <<<"$(time_order "$s" "$kind" 1 id_new)"
    ok_if "$kind: old rows' IDs carry created_at to the ms ($wrong of $old wrong) and sort below every live ID ($inv)" \
        '[ "$wrong" = 0 ] && [ "$old" -gt 0 ] && [ "$inv" = 0 ]'
    ledger_case "$s" "$kind: no row lost or extra (parents lost extra, children lost extra, duplicate inserts)"

    # 2. swap, rollback (the old key back, the new one kept), the swap
    # again at once, rollback twice (all gone), all under the writers
    for row in "${MOVES[@]}"; do
        move "$s" "$kind" "$row"
    done

    # 3. the move again, then the swap for good
    q "UPDATE $s.phase SET n = 2" >/dev/null
    if [ "$LAG" = 1 ] && [ "$kind" = "${KINDS%% *}" ]; then
        run_lagging "$s" "$kind"
    else
        ev "$s" "run again"
        e=$(mig run --table "$s.parent" --to "$kind" --time-from created_at --lock-timeout "${LOCK_MS}ms" --fire-triggers 2>&1)
        rc=$?
        ok_if "$kind: run again after the rollback" '[ $rc -eq 0 ]' "$(tail -n 3 <<<"$e")"
    fi
    read -r pl pd rb cl cd crb missed <<<"$(exactly_once "$s" 2)"
    ok_if "$kind: second move: $pl logged, $pd distinct, rows_backfilled $rb, none missed ($missed); children $cl/$cd/$crb" \
        '[ "$pl" = "$pd" ] && [ "$pl" = "$rb" ] && [ "$missed" = 0 ] && [ "$cl" = "$cd" ] && [ "$cl" = "$crb" ]'
    move "$s" "$kind" "swap|1|0.5|done|-|swap for good|-|-"
    writers_stop "$s"

    keys_case "$s" swapped "$kind: final: PK on the new id, FKs validated, no duplicate"
    ledger_case "$s" "$kind: final: no row lost or extra"
    read -r wrong old inv <<<"$(time_order "$s" "$kind" 2 id)"
    ok_if "$kind: final: old rows' IDs carry created_at to the ms ($wrong of $old wrong), below every live ID ($inv)" \
        '[ "$wrong" = 0 ] && [ "$old" -gt 0 ] && [ "$inv" = 0 ]'
    read -r we wf <<<"$(writer_errors "$s")"
    read -r p50 p99 mx nt nf <<<"$(latency "$s")"
    ok_if "$kind: writers: no error ($we pgbench runs failed, $wf failed transactions, $nf unlogged)" \
        '[ "$we" = 0 ] && [ "$wf" = 0 ] && [ "$nf" = 0 ] && [ "$nt" -gt 0 ]' \
        "$(grep -h -i 'error\|abort' "$work/$s.pgb"/run.*.out | sort | uniq -c | head -n 5)"
    ok_if "$kind: writers never blocked beyond ${BOUND_MS} ms (2 x --lock-timeout ${LOCK_MS}ms + ${SLACK_MS} ms): $nt transactions, p50 $p50 ms, p99 $p99 ms, max $mx ms" \
        'awk -v m="$mx" -v b="$BOUND_MS" "BEGIN { exit !(m <= b) }"'
    slowest "$s" | sed "s/^/# $kind: /"
    echo "# $kind: $(qs "SELECT count(*) FROM $s.parent") parents, $(qs "SELECT count(*) FROM $s.child") children at the end; took $(( ($(now_ms) - t0) / 1000 )) s"
}

for kind in $KINDS; do
    one_kind "$kind"
done
echo "# total $(( ($(now_ms) - t_start) / 1000 )) s"
tap_done
