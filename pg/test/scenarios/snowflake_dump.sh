#!/usr/bin/env bash
# snowflake_dump.sh — pg_dump/pg_restore keep the snowflake state: the ID
# space's mark snowflake.node_mark and snowflake.id_seq
# (pg_extension_config_dump) and a table converted with
# snowflake.convert_sequence_to_snowflake(); the restored database mints
# IDs above every dumped one.  TAP on stdout; run
# by pg/test/run.sh (PGHOST, PGPORT, PGBIN, CHRONOID_TMP set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${CHRONOID_TMP:?}"
src=sf_scenario_dump
dst=sf_scenario_restore
dump=$CHRONOID_TMP/sf_dump.pgdump
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=error"

for d in "$src" "$dst"; do "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1; done
if ! "$PGBIN/createdb" "$src" || ! q -d "$src" -c "CREATE EXTENSION chronoid"; then
    bail "create database and extension"
fi

# An hour of run-ahead allowed for this scenario only (put back at exit).
trap 'set_run_ahead "RESET snowflake.max_run_ahead" 1s' EXIT
set_run_ahead "SET snowflake.max_run_ahead = '2h'" 2h || not_ok "snowflake.max_run_ahead = 2h after a reload"

# The default sequence an hour ahead of the clock, and with it the whole ID
# space: only the dumped mark can keep the restored database's IDs above
# the old ones (t_conv's own sequence holds a small serial value).
q -d "$src" >/dev/null <<'SQL'
CREATE TABLE t_default (id int8 PRIMARY KEY DEFAULT snowflake.nextval(), v int4);
SELECT setval('snowflake.id_seq',
              ((extract(epoch FROM clock_timestamp()) * 1000)::int8
               - 1672531200000 + 3600000) << 12);
INSERT INTO t_default (v) SELECT g FROM generate_series(1, 1000) g;
CREATE TABLE t_conv (id serial PRIMARY KEY, v int4);
INSERT INTO t_conv (v) VALUES (1), (2);
SELECT snowflake.convert_sequence_to_snowflake('t_conv_id_seq');
INSERT INTO t_conv (v) SELECT g FROM generate_series(3, 1000) g;
SQL
max_default=$(q -d "$src" -c "SELECT max(id) FROM t_default")
max_conv=$(q -d "$src" -c "SELECT max(id) FROM t_conv")
seq_last=$(q -d "$src" -c "SELECT last_value FROM snowflake.id_seq")
mark_last=$(q -d "$src" -c "SELECT last_value FROM snowflake.node_mark")

if "$PGBIN/pg_dump" -Fc -d "$src" -f "$dump" 2>"$dump.err" &&
    "$PGBIN/createdb" "$dst" &&
    "$PGBIN/pg_restore" -d "$dst" --exit-on-error "$dump" 2>>"$dump.err"; then
    ok "pg_dump and pg_restore"
else
    not_ok "pg_dump and pg_restore"
    sed 's/^/# /' "$dump.err"
fi

check "snowflake.id_seq keeps its high-water mark" \
    "$(q -d "$dst" -c "SELECT last_value = $seq_last FROM snowflake.id_seq")"
check "snowflake.node_mark keeps the ID space's mark" \
    "$(q -d "$dst" -c "SELECT last_value = $mark_last FROM snowflake.node_mark")"
check "converted sequence is still a small serial value (only the mark protects its IDs)" \
    "$(q -d "$dst" -c "SELECT last_value < 1000000 FROM t_conv_id_seq")"
check "next snowflake.nextval() is above every dumped ID" \
    "$(q -d "$dst" -c "SELECT snowflake.nextval() > $max_default")"
check "converted column keeps its snowflake.nextval() default and bigint type" \
    "$(q -d "$dst" -c "SELECT format_type(atttypid, atttypmod) = 'bigint' AND pg_get_expr(adbin, adrelid) LIKE 'snowflake.nextval(%'
                       FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
                      WHERE attrelid = 't_conv'::regclass AND attname = 'id'")"
q -d "$dst" -c "INSERT INTO t_default (v) VALUES (0); INSERT INTO t_conv (v) VALUES (0)"
check "restored database mints IDs above every dumped one" \
    "$(q -d "$dst" -c "SELECT (SELECT max(id) FROM t_default) > $max_default AND (SELECT max(id) FROM t_conv) > $max_conv AND (SELECT count(*) FROM t_default) = 1001")"

for d in "$src" "$dst"; do "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1; done
rm -f "$dump" "$dump.err"
tap_done
