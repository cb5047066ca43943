#!/usr/bin/env bash
# upgrade.sh — every released version updated in place (CREATE EXTENSION
# chronoid VERSION 'old'; ALTER EXTENSION chronoid UPDATE) ends where a
# fresh install does: the same member objects with the same definitions,
# privileges, comments and dumped configuration.  From 0.1.0, snowflakes
# minted before the update stay below every one minted after it, from any
# sequence, and a sequence that 0.1.0 left past the layout's end (a clock
# once past 2092) gets a clear error and recovers with setval().  From
# 0.6.0, the mark's new guard starts at what the mark covered, so the mark
# set back right after the update does not lower the next ID.  TAP on
# stdout; run by pg/test/run.sh (PGHOST, PGPORT, PGBIN set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=error"

current=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$root/pg/chronoid.control")
fresh=chronoid_upgrade_fresh

# Every member object of the extension with what defines it.
catalog() {
    q -d "$1" <<'SQL'
SELECT pg_describe_object(d.classid, d.objid, 0)
       || ' | ' || coalesce(obj_description(d.objid, d.classid::regclass::name), '(no comment)')
       || ' | ' || coalesce(CASE d.classid
            WHEN 'pg_proc'::regclass THEN
                (SELECT pg_get_functiondef(p.oid) || ' acl ' || coalesce(p.proacl::text, 'default')
                   FROM pg_proc p WHERE p.oid = d.objid)
            WHEN 'pg_class'::regclass THEN
                (SELECT c.relkind::text || ' acl ' || coalesce(c.relacl::text, 'default')
                        || coalesce((SELECT ' ' || s.seqtypid::regtype || ' ' || s.seqincrement || ' '
                                            || s.seqmin || ' ' || s.seqmax || ' ' || s.seqcache || ' ' || s.seqcycle
                                       FROM pg_sequence s WHERE s.seqrelid = c.oid), '')
                   FROM pg_class c WHERE c.oid = d.objid)
            WHEN 'pg_type'::regclass THEN
                (SELECT t.typlen || ' ' || t.typalign::text || ' ' || t.typstorage::text FROM pg_type t WHERE t.oid = d.objid)
            WHEN 'pg_namespace'::regclass THEN
                (SELECT coalesce(n.nspacl::text, 'default') FROM pg_namespace n WHERE n.oid = d.objid)
            ELSE '' END, '')
  FROM pg_depend d
  JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
 WHERE e.extname = 'chronoid' AND d.deptype = 'e'
UNION ALL
SELECT 'config ' || c::regclass::text || ' ' || coalesce(e.extcondition[i], '')
  FROM pg_extension e, unnest(e.extconfig) WITH ORDINALITY AS x(c, i)
 WHERE e.extname = 'chronoid'
UNION ALL
SELECT 'trigger ' || tgname || ' ' || tgenabled::text FROM pg_trigger
 WHERE tgrelid = 'snowflake.node_registry'::regclass AND NOT tgisinternal
ORDER BY 1
SQL
}

"$PGBIN/dropdb" --if-exists "$fresh" >/dev/null 2>&1
"$PGBIN/createdb" "$fresh" && q -d "$fresh" -c "CREATE EXTENSION chronoid" ||
    not_ok "fresh install of $current"
if catalog "$fresh" >"${CHRONOID_TMP:-/tmp}/upgrade.fresh" 2>&1 &&
    [ "$(wc -l <"${CHRONOID_TMP:-/tmp}/upgrade.fresh")" -gt 50 ]; then
    ok "catalog of a fresh install of $current ($(wc -l <"${CHRONOID_TMP:-/tmp}/upgrade.fresh") lines)"
else
    not_ok "catalog of a fresh install of $current"
    head -n 5 "${CHRONOID_TMP:-/tmp}/upgrade.fresh" | sed 's/^/# /'
fi

for f in "$root"/pg/test/released/chronoid--*.sql; do
    old=$(basename "$f" | sed -nE 's/^chronoid--([0-9.]+)\.sql$/\1/p')
    [ -n "$old" ] && [ "$old" != "$current" ] || continue
    db=chronoid_upgrade_from_${old//./_}
    "$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    "$PGBIN/createdb" "$db"
    if q -d "$db" -c "CREATE EXTENSION chronoid VERSION '$old'" >/dev/null; then
        ok "CREATE EXTENSION chronoid VERSION '$old'"
    else
        not_ok "CREATE EXTENSION chronoid VERSION '$old'"
        continue
    fi
    if [ "$old" = 0.1.0 ]; then
        # What 0.1.0's module left (this server runs the new one, which
        # needs the new SQL to mint): IDs of node 1 up to half a second
        # ahead of the clock, and their sequence holding its own mark one
        # second above the last of them, as 0.1.0 kept it.
        q -d "$db" >/dev/null <<'SQL'
CREATE SEQUENCE s_old;
CREATE TABLE t_old (id int8 PRIMARY KEY DEFAULT snowflake.nextval('s_old'), v int4);
INSERT INTO t_old (id, v)
SELECT ((b >> 12) << 22) | (1 << 12) | (b & 4095), g
  FROM (SELECT g, ((((extract(epoch FROM clock_timestamp()) * 1000)::int8 - 1672531200000 + 500) << 12)
                   - 30000 + g) AS b
          FROM generate_series(1, 30000) g) x;
SELECT setval('s_old', (SELECT max((id >> 22 << 12) | (id & 4095)) FROM t_old) + (1000 << 12));
CREATE SEQUENCE s_broken;
SELECT setval('s_broken', (INT8 '1' << 53) + 5);
SQL
    fi
    if [ "$old" = 0.6.0 ]; then
        # IDs minted under 0.6.0's SQL (its mark, no guard yet), an hour
        # ahead of the clock (two hours of run-ahead allowed for this case,
        # put back at exit): after the update the owner may set the mark,
        # and the guard must already hold what the mark covered.
        trap 'set_run_ahead "RESET snowflake.max_run_ahead" 1s' EXIT
        set_run_ahead "SET snowflake.max_run_ahead = '2h'" 2h || not_ok "snowflake.max_run_ahead = 2h after a reload"
        q -d "$db" >/dev/null <<'SQL'
CREATE TABLE t_six (id int8 PRIMARY KEY DEFAULT snowflake.nextval(), v int4);
SELECT setval('snowflake.id_seq', ((extract(epoch FROM clock_timestamp()) * 1000)::int8 - 1672531200000 + 3600000) << 12);
INSERT INTO t_six (v) SELECT g FROM generate_series(1, 100) g;
SELECT setval('snowflake.id_seq', 1, false);
SQL
        six_cover=$(q -d "$db" -c "SELECT last_value + log_cnt FROM snowflake.node_mark")
        check "0.6.0: IDs minted an hour ahead of the clock" \
            "$(q -d "$db" -c "SELECT count(*) FROM t_six WHERE snowflake.to_timestamp(id) > now() + interval '59 minutes'")" 100
    fi
    if q -d "$db" -c "ALTER EXTENSION chronoid UPDATE" >/dev/null; then
        ok "ALTER EXTENSION chronoid UPDATE from $old"
    else
        not_ok "ALTER EXTENSION chronoid UPDATE from $old"
        continue
    fi
    check "from $old: extversion is $current" "$(q -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'chronoid'")" "$current"
    if catalog "$db" >"${CHRONOID_TMP:-/tmp}/upgrade.$old" 2>&1 &&
        [ "$(wc -l <"${CHRONOID_TMP:-/tmp}/upgrade.$old")" -gt 50 ] &&
        diff -u "${CHRONOID_TMP:-/tmp}/upgrade.fresh" "${CHRONOID_TMP:-/tmp}/upgrade.$old" >"${CHRONOID_TMP:-/tmp}/upgrade.diff"; then
        ok "from $old: member objects, definitions, privileges, comments and dumped tables equal a fresh install ($(wc -l <"${CHRONOID_TMP:-/tmp}/upgrade.fresh") lines)"
    else
        not_ok "from $old: the updated extension differs from a fresh install"
        head -n 60 "${CHRONOID_TMP:-/tmp}/upgrade.diff" | sed 's/^/# /'
    fi
    if [ "$old" = 0.1.0 ]; then
        check "from 0.1.0: snowflake.node_mark starts above every ID minted before the update" \
            "$(q -d "$db" -c "SELECT last_value >= (SELECT max((id >> 22 << 12) | (id & 4095)) FROM t_old) FROM snowflake.node_mark")"
        check "from 0.1.0: a value past the layout's end (0.1.0 after a clock past 2092) does not move the mark" \
            "$(q -d "$db" -c "SELECT last_value < (INT8 '1' << 53) FROM snowflake.node_mark")"
        check "from 0.1.0: the next ID of another sequence is above every old one" \
            "$(q -d "$db" -c "SELECT snowflake.nextval() > (SELECT max(id) FROM t_old)")"
        q -d "$db" -c "SELECT setval('s_old', 1)" >/dev/null
        check "from 0.1.0: the old sequence moved back still mints above its old IDs" \
            "$(q -d "$db" -c "INSERT INTO t_old (v) VALUES (0) RETURNING id > (SELECT max(id) FROM t_old WHERE v > 0)")"
        err=$(q -d "$db" -c "SELECT snowflake.nextval('s_broken')" 2>&1)
        check "from 0.1.0: a sequence left past the layout's end is a clear 22023 naming its value" \
            "$([[ $err == *"value 9007199254740997 is too far ahead"* ]] && echo t || echo "$err")"
        check "from 0.1.0: and recovers with setval() back" \
            "$(q -d "$db" -c "SELECT setval('s_broken', 1)" -c "SELECT snowflake.nextval('s_broken') > (SELECT max(id) FROM t_old)" | tail -n 1)"
    fi
    if [ "$old" = 0.6.0 ]; then
        check "from 0.6.0: the guard starts at what the mark covered (its WAL-logged value)" \
            "$(q -d "$db" -c "SELECT last_value = $six_cover AND is_called FROM snowflake.node_mark_guard")"
        check "from 0.6.0: the mark set back to 0 after the update, the next ID is above every one minted before it" \
            "$(q -d "$db" -c "SELECT setval('snowflake.node_mark', 0)" -c "INSERT INTO t_six (v) VALUES (0) RETURNING id > (SELECT max(id) FROM t_six WHERE v > 0)" | tail -n 1)"
        set_run_ahead "RESET snowflake.max_run_ahead" 1s
        trap - EXIT
    fi
    "$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
done
"$PGBIN/dropdb" --if-exists "$fresh" >/dev/null 2>&1
tap_done
