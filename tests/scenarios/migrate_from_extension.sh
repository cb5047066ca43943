#!/usr/bin/env bash
# migrate_from_extension.sh — `chronoid migrate from-extension` on
# databases made with stand-ins for the extensions it replaces
# (pg/test/standins: pgEdge snowflake, pg_uuidv7, pgx_ulid; the real ones
# are not built here).  For each, several databases of random make-up
# (seed printed; MIGRATE_FX_SEED repeats a run): tables with defaults on
# the old functions, rows, expression and hash indexes, foreign keys and
# ulid[] columns (pgx_ulid), views on the old functions and views on
# those, with owners, grants and comments.  Each time: --plan changes
# nothing; a failure forced late in the switch (an event trigger on CREATE
# VIEW) leaves everything as it was; the switch then keeps every object
# exactly (the catalog read back as text, through the user's search path,
# is identical), every row (text forms compared, so ulid values keep their
# 128 bits), and each default now calls chronoid's function and mints a
# valid ID (pgEdge: above every old one, same node, also from a sequence
# left AS integer, which the switch repairs; an old ID beyond
# snowflake.max_run_ahead fails the switch, rolled back).  Refusals, each
# before any change: a materialized view and a CHECK constraint on the old
# functions, a function returning a view's rows, chronoid already
# installed, the extension missing, a role that is not a superuser, a
# schema chronoid cannot go into, pgEdge's library in
# session_preload_libraries; and a lock held past --lock-timeout makes the
# switch give up, rolled back.
# Both modes, on a throwaway cluster of its own: without and with chronoid
# in shared_preload_libraries (MIGRATE_FX_MODES="plain" runs one); pgEdge
# in the first only: where chronoid is preloaded, pgEdge's library cannot
# load.  TAP on stdout; as root (it installs the stand-ins).  Binaries from
# $BUILD (default build/).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/scenario.bash
seed=${MIGRATE_FX_SEED:-$RANDOM}
RANDOM=$seed
rounds=${MIGRATE_FX_ROUNDS:-3}
modes=${MIGRATE_FX_MODES:-plain preload}

scenario_needs server root extension chronoid-migrate
. scripts/pgcluster.sh
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/work
mkdir -p "$work"
diag "seed $seed (MIGRATE_FX_SEED=$seed repeats this run), $rounds databases per extension, modes: $modes"

switch() { "$bin" migrate from-extension "$@" 2>&1; }
# refused NAME TEXTS ARGS...: one case: the switch with ARGS exits 1 and
# says each line of TEXTS (grep patterns)
refused() {
    local name=$1 texts=$2 out rc t
    shift 2
    out=$(switch "$@")
    rc=$?
    if [ $rc -eq 1 ]; then
        while IFS= read -r t; do
            grep -q "$t" <<<"$out" || { rc="1, but not saying '$t'"; break; }
        done <<<"$texts"
    fi
    if [ "$rc" = 1 ]; then ok "$name"; else not_ok "$name" "exit $rc" "$(tail -n 15 <<<"$out")"; fi
}
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }

# fingerprint DB: the user's objects in public as text, read through the
# user's search path: names, kinds, owners, privileges, comments, options,
# column types and defaults, index, view and constraint definitions.  The
# same text before and after means every object is there and only what
# its names resolve to has changed.
fingerprint() {
    q -d "$1" <<'SQL'
SELECT 'rel', c.relname, c.relkind, pg_get_userbyid(c.relowner),
       (SELECT array_agg(a::text ORDER BY a::text) FROM unnest(coalesce(c.relacl, acldefault('r', c.relowner))) a),
       obj_description(c.oid, 'pg_class'), c.reloptions
  FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'i', 'S')
 ORDER BY 2;
SELECT 'col', c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid), col_description(c.oid, a.attnum)
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY 2, 3;
SELECT 'idx', c.relname, pg_get_indexdef(i.indexrelid), i.indisclustered, i.indisprimary
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = 'public'::regnamespace ORDER BY 2;
SELECT 'view', c.relname, pg_get_viewdef(c.oid) FROM pg_class c
 WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'v' ORDER BY 2;
SELECT 'con', conrelid::regclass, conname, pg_get_constraintdef(oid), obj_description(oid, 'pg_constraint')
  FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 2, 3;
SQL
}
# rows DB: every table's rows as text, hashed per table.
rows() {
    local t
    for t in $(q -d "$1" -c "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY 1"); do
        q -d "$1" -c "SELECT '$t', count(*), md5(string_agg(x::text, '|' ORDER BY x::text)) FROM public.$t x"
    done
}
exts() { q -d "$1" -c "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname <> 'plpgsql'"; }

# make_db SRC DB: a database of random make-up; sets ntab, nviews, sch
# (the old extension's schema), gen (its ID functions), tfun (a call that
# reads an ID's time, on column id).
make_db() {
    local src=$1 db=$2 i rows sql="" def parent
    "$PGC_BIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    "$PGC_BIN/createdb" "$db" || return 1
    ntab=$((RANDOM % 3 + 1))
    case $src in
    pgedge)
        sch=snowflake
        q -d "$db" -c "ALTER DATABASE $db SET snowflake.node = 3"
        # A sequence as pgEdge 2.4 and earlier left them: AS integer, small MAXVALUE.
        sql="CREATE EXTENSION snowflake; CREATE SEQUENCE small_seq AS integer;
             CREATE TABLE small (id bigint PRIMARY KEY DEFAULT snowflake.nextval('public.small_seq'::regclass), note text);"
        tfun="snowflake.get_epoch(id)" ;;
    pg_uuidv7)
        sch=$(pick public ext '"Odd Schema"')
        sql="CREATE SCHEMA ext; CREATE SCHEMA \"Odd Schema\"; CREATE EXTENSION pg_uuidv7 SCHEMA $sch;"
        tfun="$sch.uuid_v7_to_timestamptz(id)" ;;
    pgx_ulid)
        sch=$(pick public ids '"Odd Schema"')
        sql="CREATE SCHEMA ids; CREATE SCHEMA \"Odd Schema\"; CREATE EXTENSION ulid SCHEMA $sch;"
        tfun="id::timestamp" ;;
    esac
    for i in $(seq 1 "$ntab"); do
        rows=$((RANDOM % 200 + 1))
        parent=
        case $src in
        pgedge)
            def=$(pick "snowflake.nextval()" "snowflake.nextval('public.t${i}_seq'::regclass)")
            sql+="CREATE SEQUENCE t${i}_seq;
                  CREATE TABLE t$i (id bigint PRIMARY KEY DEFAULT $def, n int, note text);" ;;
        pg_uuidv7)
            def="$sch.uuid_generate_v7()"
            sql+="CREATE TABLE t$i (id uuid PRIMARY KEY DEFAULT $def, n int, note text"
            [ $((RANDOM % 2)) -eq 0 ] && sql+=", made uuid DEFAULT $sch.uuid_timestamptz_to_v7(now(), true)"
            sql+=");" ;;
        pgx_ulid)
            def="$sch.$(pick gen_ulid gen_monotonic_ulid)()"
            sql+="CREATE TABLE t$i (id $sch.ulid PRIMARY KEY DEFAULT $def, n int, note text"
            [ "$i" -gt 1 ] && [ $((RANDOM % 2)) -eq 0 ] && parent=1 && sql+=", parent $sch.ulid REFERENCES t1"
            [ $((RANDOM % 2)) -eq 0 ] && sql+=", tags $sch.ulid[] DEFAULT ARRAY[$sch.gen_ulid()]"
            sql+=");"
            [ $((RANDOM % 2)) -eq 0 ] && sql+="CREATE INDEX t${i}_at ON t$i ((id::timestamp)) WHERE n > 0;
                                             COMMENT ON INDEX t${i}_at IS 'by time';"
            [ $((RANDOM % 2)) -eq 0 ] && sql+="CREATE INDEX t${i}_hash ON t$i USING hash (id);" ;;
        esac
        sql+="INSERT INTO t$i (n, note) SELECT g, 'row ' || g FROM generate_series(1, $rows) g;"
        [ -n "$parent" ] && sql+="UPDATE t$i SET parent = (SELECT id FROM t1 ORDER BY id LIMIT 1) WHERE n % 3 = 0;"
    done
    # Views: one on the old functions, then views on views.
    sql+="CREATE VIEW v0 AS SELECT id, $tfun AS at, note FROM t1;
          COMMENT ON VIEW v0 IS 'times';"
    nviews=$((RANDOM % 3 + 1))
    for i in $(seq 1 "$nviews"); do
        sql+="CREATE VIEW v$i $(pick "" "WITH (security_barrier)") AS SELECT * FROM v$((i - 1)) WHERE note <> 'none';"
        [ $((RANDOM % 2)) -eq 0 ] && sql+="ALTER VIEW v$i OWNER TO fx_alice;"
        [ $((RANDOM % 2)) -eq 0 ] && sql+="GRANT SELECT ON v$i TO fx_bob;"
        [ $((RANDOM % 2)) -eq 0 ] && sql+="COMMENT ON COLUMN v$i.note IS 'the note';"
    done
    sql+="GRANT SELECT ON v0 TO fx_bob; GRANT SELECT ON ALL TABLES IN SCHEMA public TO fx_alice; ANALYZE;"
    q -d "$db" -c "$sql" >"$work/make_db.log" 2>&1 || { cat "$work/make_db.log" >&2; return 1; }
}

# new_id_ok SRC DB OLDMAX: a row inserted into every table gets an ID from
# chronoid's function: pgEdge above every old ID on node 3; UUIDv7 and
# ULID of the current time.
new_id_ok() {
    local src=$1 db=$2 old=$3 i cond
    case $src in
    pgedge) cond="id > $old AND snowflake.get_node(id) = 3" ;;
    pg_uuidv7) cond="$sch.uuid_extract_version(id) = 7 AND abs(extract(epoch FROM $sch.uuid_extract_timestamp(id) - now())) < 60" ;;
    pgx_ulid) cond="abs(extract(epoch FROM id::timestamptz - now())) < 60" ;;
    esac
    for i in $(seq 1 "$ntab"); do
        [ "$(q -d "$db" -c "INSERT INTO t$i (n, note) VALUES (-1, 'new') RETURNING $cond")" = t ] || return 1
    done
    if [ "$src" = pgedge ]; then
        [ "$(q -d "$db" -c "SELECT format_type(seqtypid, NULL) || ' ' || seqmax FROM pg_sequence WHERE seqrelid = 'small_seq'::regclass")" = "bigint 9223372036854775807" ] &&
        [ "$(q -d "$db" -c "INSERT INTO small (note) VALUES ('new') RETURNING $cond")" = t ] || return 1
    fi
}

# chronoid_refs DB: every default and v0 now depend on chronoid's objects
# and on nothing of another extension.
chronoid_refs() {
    q -d "$1" <<'SQL'
WITH ext_dep AS (
  SELECT x.classid, x.objid, e.extname
    FROM pg_depend x JOIN pg_depend m ON m.classid = x.refclassid AND m.objid = x.refobjid AND m.deptype = 'e'
    JOIN pg_extension e ON e.oid = m.refobjid AND m.refclassid = 'pg_extension'::regclass
   WHERE x.deptype = 'n')
SELECT bool_and(EXISTS (SELECT 1 FROM ext_dep e WHERE e.classid = 'pg_attrdef'::regclass AND e.objid = d.oid AND e.extname = 'chronoid'))
   AND EXISTS (SELECT 1 FROM ext_dep e JOIN pg_rewrite r ON r.oid = e.objid
                WHERE e.classid = 'pg_rewrite'::regclass AND r.ev_class = 'public.v0'::regclass AND e.extname = 'chronoid')
   AND NOT EXISTS (SELECT 1 FROM ext_dep WHERE extname NOT IN ('chronoid', 'plpgsql'))
  FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid WHERE c.relnamespace = 'public'::regnamespace;
SQL
}

old_ext() { case $1 in pgedge) echo snowflake ;; pg_uuidv7) echo pg_uuidv7 ;; pgx_ulid) echo ulid ;; esac; }
arg_of() { case $1 in pgedge) echo snowflake ;; *) echo "$1" ;; esac; }

# one_mode MODE: every stand-in the server can load in MODE, rounds
# databases each.
one_mode() {
    local mode=$1 standins=(pg_uuidv7 pgx_ulid) s src ext arg round db label before data old_max out rc chk holder ran_ahead=
    if [ "$mode" = plain ]; then
        standins+=(pgedge)
    else
        skip "the switch from pgEdge" "chronoid is preloaded here: pgEdge's library cannot load beside it"
    fi
    for s in "${standins[@]}"; do
        if standin "$s"; then
            ok "the $s stand-in builds and installs"
        else
            not_ok "the $s stand-in builds and installs" "$(tail -n 20 "$PGC_DIR/standin_$s.log")"
            return
        fi
    done
    q -d postgres -c "SET client_min_messages = warning" -c "DROP ROLE IF EXISTS fx_alice" -c "DROP ROLE IF EXISTS fx_bob" \
        -c "CREATE ROLE fx_alice LOGIN" -c "CREATE ROLE fx_bob" >/dev/null
    for src in "${standins[@]}"; do
        ext=$(old_ext "$src")
        arg=$(arg_of "$src")
        for round in $(seq 1 "$rounds"); do
            db=fx_${src}_$round
            label="$src #$round"
            if ! make_db "$src" "$db"; then
                not_ok "$label: a database with the stand-in"
                continue
            fi
            diag "$label: $ntab tables, $((nviews + 1)) views, extension in schema $sch, $(q -d "$db" -c "
                SELECT (SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                         WHERE c.relnamespace = 'public'::regnamespace AND NOT i.indisprimary) || ' other indexes, '
                    || (SELECT count(*) FROM pg_constraint WHERE contype = 'f') || ' foreign keys'")"
            if [ "$src" = pgedge ]; then
                # pgEdge mints each sequence apart: two tables can hold one ID.
                q -d "$db" -c "INSERT INTO small (id, note) SELECT id, 'repeat' FROM t1 ORDER BY id LIMIT 2" >/dev/null
            fi
            before=$(fingerprint "$db")
            data=$(rows "$db")
            old_max=0
            if [ "$src" = pgedge ]; then
                old_max=$(q -d "$db" -c "SELECT max(id) FROM ($(for i in $(seq 1 "$ntab"); do
                    [ "$i" -gt 1 ] && printf ' UNION ALL '; printf 'SELECT max(id) AS id FROM t%s' "$i"; done)) s")
            fi

            # --plan: lists every dependent and step, changes nothing.
            if out=$(switch "$arg" --plan -d "dbname=$db") && grep -q "^  view        public.v$nviews" <<<"$out" &&
               grep -q "^  default     public.t1.id" <<<"$out" && grep -q "lock: ACCESS EXCLUSIVE" <<<"$out"; then
                ok "$label: --plan lists the defaults, views and locks"
            else
                not_ok "$label: --plan lists the defaults, views and locks" "$(head -n 40 <<<"$out")"
            fi
            check "$label:   ... and changes nothing" "$(fingerprint "$db")$(exts "$db")" "$before$ext"
            if [ "$src" = pgedge ]; then
                ok_if "$label:   ... and counts the IDs pgEdge already repeated across tables, naming the cure" \
                    'grep -q "^Note: [1-9][0-9]* IDs already repeat across tables: pgEdge minted them from separate sequences.*chronoid.s one ID space" <<<"$out"' \
                    "$(grep -i repeat <<<"$out")"
            fi

            if [ "$round" -eq 1 ]; then
                # Refusals, before any change.
                case $src in
                pgedge) chk="snowflake.get_node(id) >= 0" ;;
                pg_uuidv7) chk="$sch.uuid_v7_to_timestamptz(id) > '2000-01-01'" ;;
                pgx_ulid) chk="id::timestamp > '2000-01-01'" ;;
                esac
                q -d "$db" -c "CREATE MATERIALIZED VIEW fx_mv AS SELECT * FROM v0" \
                    -c "ALTER TABLE t1 ADD CONSTRAINT fx_chk CHECK ($chk)" \
                    -c "CREATE FUNCTION fx_rows() RETURNS SETOF v$nviews LANGUAGE sql AS 'SELECT * FROM v$nviews'" >/dev/null
                refused "$label: a materialized view, a CHECK, a function on a view: refused, each named" \
                    "cannot carry over materialized view public.fx_mv
cannot carry over constraint fx_chk on table public.t1: a constraint
cannot carry over function public.fx_rows(): depends on view public.v$nviews
nothing has changed" "$arg" -d "dbname=$db"
                q -d "$db" -c "DROP MATERIALIZED VIEW fx_mv" -c "ALTER TABLE t1 DROP CONSTRAINT fx_chk" \
                    -c "DROP FUNCTION fx_rows()" >/dev/null
                check "$label:   ... and nothing changed" "$(fingerprint "$db")$(exts "$db")" "$before$ext"

                refused "$label: a role that is not a superuser is refused" \
                    "role fx_alice is not a superuser" "$arg" -d "dbname=$db user=fx_alice"
                refused "$label: a database without the extension is refused" \
                    "extension $ext is not installed in database postgres" "$arg" -d "dbname=postgres"
                if [ "$src" = pg_uuidv7 ]; then
                    q -d "$db" -c "CREATE SCHEMA fxc" -c "CREATE EXTENSION chronoid SCHEMA fxc" >/dev/null
                    refused "$label: chronoid already installed: refused, saying what to do" \
                        "extension chronoid is already installed in database $db" "$arg" -d "dbname=$db"
                    q -d "$db" -c "DROP EXTENSION chronoid" -c "DROP SCHEMA fxc" >/dev/null
                    # PostgreSQL puts no schema name with a quote into an extension script.
                    q -d "$db" -c "CREATE SCHEMA \"it's\"" -c "ALTER EXTENSION pg_uuidv7 SET SCHEMA \"it's\"" >/dev/null
                    refused "$label: a schema chronoid cannot be created in: refused, naming it" \
                        "cannot carry over schema \"it's\": is where chronoid would go" "$arg" -d "dbname=$db"
                    q -d "$db" -c "ALTER EXTENSION pg_uuidv7 SET SCHEMA $sch" -c "DROP SCHEMA \"it's\"" >/dev/null
                    # A reader holding t1 past --lock-timeout: the switch gives up, rolled back.
                    "$PGC_BIN/psql" -X -q -d "$db" -c "BEGIN" -c "LOCK TABLE t1 IN ACCESS SHARE MODE" \
                        -c "SELECT pg_sleep(20)" >/dev/null 2>&1 &
                    holder=$!
                    for _ in $(seq 1 100); do
                        [ "$(q -d "$db" -c "SELECT count(*) FROM pg_locks WHERE relation = 't1'::regclass AND granted AND pid <> pg_backend_pid()")" != 0 ] && break
                        sleep 0.1
                    done
                    refused "$label: a lock held past --lock-timeout: the switch gives up, rolled back" \
                        "another session holds a lock it needs
rolled back: nothing has changed" "$arg" --lock-timeout 300ms -d "dbname=$db"
                    kill "$holder" 2>/dev/null
                    q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid()" >/dev/null
                    wait "$holder" 2>/dev/null
                    check "$label:   ... and nothing changed" "$(fingerprint "$db")$(exts "$db")" "$before$ext"
                fi
                if [ "$src" = pgedge ]; then
                    q -d "$db" -c "ALTER DATABASE $db SET session_preload_libraries = 'snowflake'"
                    refused "$label: pgEdge's library in session_preload_libraries: refused" \
                        "session_preload_libraries lists pgEdge's library" "$arg" -d "dbname=$db"
                    q -d "$db" -c "ALTER DATABASE $db RESET session_preload_libraries"
                fi

                # A failure late in the switch (after the old extension has
                # gone and chronoid has come, in the transaction): nothing changed.
                q -d "$db" >/dev/null <<'SQL'
CREATE FUNCTION public.fx_fail() RETURNS event_trigger LANGUAGE plpgsql
AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$;
CREATE EVENT TRIGGER fx_fail ON ddl_command_end WHEN TAG IN ('CREATE VIEW') EXECUTE FUNCTION public.fx_fail();
SQL
                refused "$label: a failure after chronoid is created rolls everything back" \
                    "forced failure; rolled back: nothing has changed
create extension chronoid" "$arg" -d "dbname=$db"
                q -d "$db" -c "DROP EVENT TRIGGER fx_fail" -c "DROP FUNCTION public.fx_fail()" >/dev/null
                check "$label:   ... every object and row as before, the old extension still there" \
                    "$(fingerprint "$db")$(rows "$db")$(exts "$db")" "$before$data$ext"
                if [ "$src" = pgedge ]; then
                    # An old ID half an hour ahead of the clock (pgEdge runs
                    # ahead without a bound): chronoid accepts the floor above
                    # it only with a larger snowflake.max_run_ahead.
                    q -d "$db" -c "INSERT INTO t1 (id, n, note) VALUES ((((extract(epoch FROM clock_timestamp()) * 1000)::int8
                                    - 1672531200000 + 1800000) << 22) | (3 << 12), 0, 'ahead')" >/dev/null
                    data=$(rows "$db")
                    old_max=$(q -d "$db" -c "SELECT greatest($old_max, (SELECT max(id) FROM t1))")
                    # Named by its table and column, decoded with its time, not as a sequence's internal value.
                    refused "$label: an old ID beyond snowflake.max_run_ahead: the floor fails, rolled back" \
                        "failed: the highest old ID, [0-9]* in public.t1.id, was minted for 20[0-9-]* [0-9:.+-]* (node 3, count 0), [0-9]* ms ahead of the clock; snowflake.max_run_ahead allows [0-9]* ms
rolled back: nothing has changed" "$arg" -d "dbname=$db"
                    check "$label:   ... every object and row as before, the old extension still there" \
                        "$(fingerprint "$db")$(rows "$db")$(exts "$db")" "$before$data$ext"
                    set_run_ahead "SET snowflake.max_run_ahead = '1h'" 1h || not_ok "snowflake.max_run_ahead = 1h after a reload"
                    ran_ahead=1
                fi
            fi

            # The switch.
            out=$(switch "$arg" -d "dbname=$db")
            rc=$?
            if [ $rc -eq 0 ] && grep -q "^Done: database $db uses chronoid" <<<"$out"; then
                ok "$label: the switch runs"
            else
                not_ok "$label: the switch runs" "rc $rc" "$(tail -n 15 <<<"$out")"
                continue
            fi
            check "$label:   ... chronoid installed, $ext gone" "$(exts "$db")" chronoid
            after=$(fingerprint "$db")
            if [ "$after" = "$before" ]; then
                ok "$label:   ... every table, column, default, index, view, owner, grant and comment kept"
            else
                not_ok "$label:   ... every table, column, default, index, view, owner, grant and comment kept" \
                    "$(diff <(echo "$before") <(echo "$after") | head -n 20)"
            fi
            check "$label:   ... every row kept, ID for ID (text forms)" "$(rows "$db")" "$data"
            check "$label:   ... the defaults and views call chronoid's functions" "$(chronoid_refs "$db")"
            if new_id_ok "$src" "$db" "$old_max"; then
                ok "$label:   ... every default mints chronoid's IDs$([ "$src" = pgedge ] && echo ", above every old one, also from a repaired AS integer sequence")"
            else
                not_ok "$label:   ... every default mints chronoid's IDs"
            fi
            check "$label:   ... the views answer" "$(q -d "$db" -c "SELECT count(*) > 0 FROM v$nviews")"
            "$PGC_BIN/dropdb" "$db"
        done
    done
    if [ -n "$ran_ahead" ]; then
        set_run_ahead "RESET snowflake.max_run_ahead" 1s || not_ok "snowflake.max_run_ahead back to 1s after a reload"
    fi
}

for mode in $modes; do
    if [ "$mode" = preload ]; then
        pgc_restart "shared_preload_libraries = 'chronoid'" >/dev/null || { not_ok "$mode: restart with chronoid preloaded"; continue; }
    fi
    TAP_PREFIX="$mode: "   # every case name carries the mode
    one_mode "$mode"
    TAP_PREFIX=
done
tap_done
