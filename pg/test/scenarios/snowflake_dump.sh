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

# The database's owner: the extension is trusted, so the owner installs it
# and must be able to dump the database as itself (0.5.0: "permission
# denied for sequence id_seq").  pg_database_owner (14+) may read the two
# dumped sequences; another role may read neither, and SELECT on them lets
# nobody mint from the mark or move it.
own=sf_dump_owner
osrc=sf_scenario_owner_src
odst=sf_scenario_owner_dst
odump=$CHRONOID_TMP/sf_owner.sql
# Preloaded, a connection of a role that may not set snowflake.node fails
# when PGOPTIONS sets it: the superuser sets it in its sessions instead.
export PGOPTIONS="-c client_min_messages=error"
for d in "$osrc" "$odst"; do "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1; done
q -c "DROP ROLE IF EXISTS $own" -c "DROP ROLE IF EXISTS sf_dump_other" -c "CREATE ROLE $own LOGIN" -c "CREATE ROLE sf_dump_other LOGIN" >/dev/null
"$PGBIN/createdb" -O "$own" "$osrc"
q -U "$own" -d "$osrc" -c "CREATE EXTENSION chronoid" \
    -c "CREATE TABLE t_own (id int8 PRIMARY KEY DEFAULT snowflake.nextval(), v int4)" >/dev/null
# A superuser mints (the owner may not set snowflake.node), an hour ahead
# of the clock, so that only the mark keeps a restore's IDs above them.
q -d "$osrc" >/dev/null <<'SQL'
SET snowflake.node = 1;
SELECT setval('snowflake.id_seq',
              ((extract(epoch FROM clock_timestamp()) * 1000)::int8
               - 1672531200000 + 3600000) << 12);
INSERT INTO t_own (v) SELECT g FROM generate_series(1, 500) g;
SELECT setval('snowflake.id_seq', 1, false);
SQL
omax=$(q -d "$osrc" -c "SELECT max(id) FROM t_own")
omark=$(q -d "$osrc" -c "SELECT last_value FROM snowflake.node_mark")
srv=$(q -c "SHOW server_version_num")
if [ "$srv" -ge 140000 ]; then
    if "$PGBIN/pg_dump" -U "$own" -d "$osrc" -f "$odump" 2>"$odump.err"; then
        ok "the database owner's pg_dump works"
    else
        not_ok "the database owner's pg_dump works"
        sed 's/^/# /' "$odump.err"
    fi
    check "  ... and it holds the mark, the default sequence and the rows" \
        "$(grep -c -e "setval('snowflake.node_mark', $omark, true)" -e "setval('snowflake.id_seq', 1, false)" -e "^COPY public.t_own " "$odump")" 3
    check "the owner reads the mark and the default sequence" \
        "$(q -U "$own" -d "$osrc" -c "SELECT (SELECT last_value FROM snowflake.node_mark) = $omark AND (SELECT NOT is_called FROM snowflake.id_seq)")"
    out=$(q -U sf_dump_other -d "$osrc" -c "SELECT last_value FROM snowflake.node_mark" 2>&1)
    check "another role may not read the mark" "$([[ $out == *"permission denied"* ]] && echo t || echo "$out")"
    out=$("$PGBIN/pg_dump" -U sf_dump_other -d "$osrc" -f /dev/null 2>&1)
    check "another role's pg_dump is refused (it may not read them)" "$([[ $out == *"permission denied"* ]] && echo t || echo "$out")"
    # What the owner may do to the mark since 0.7.0 (its restore sets it):
    # set it, never lower the ID space.  Not mint from it, alter it, or
    # reserve blocks of it.
    for stmt in "ALTER SEQUENCE snowflake.node_mark RESTART" \
        "SELECT nextval_block('snowflake.node_mark', 1)" "SELECT setval('snowflake.node_mark_guard', 1)" \
        "UPDATE snowflake.node_registry SET node = 2" "DELETE FROM snowflake.node_registry"; do
        out=$(q -U "$own" -d "$osrc" -c "$stmt" 2>&1)
        check "the owner may not: $stmt" "$([[ $out == *"ERROR"*"permission denied"* || $out == *"ERROR"*"must be owner"* || $out == *"ERROR"*"not a sequence to"* ]] && echo t || echo "$out")"
    done
    check "  ... and the mark did not move" \
        "$(q -d "$osrc" -c "SELECT last_value = $omark FROM snowflake.node_mark")"
    # registry DB: every claim of DB's registry, in order, on one line.
    registry() { q -d "$1" -c "SELECT string_agg(format('%s|%s|%s|%s|%s', node, system_identifier, database, server, claimed_at), ',' ORDER BY node, system_identifier) FROM snowflake.node_registry"; }
    oreg=$(registry "$osrc")
    # restored_as_source: the owner's restore into $odst brought back the
    # rows, the mark and the registry as the source has them, and mints
    # above every dumped ID.
    restored_as_source() {
        check "  ... the rows, the mark and the registry are the source's" \
            "$(q -d "$odst" -c "SELECT (SELECT count(*) FROM t_own) = 500 AND (SELECT last_value FROM snowflake.node_mark) = $omark")|$(registry "$odst")" "t|$oreg"
        check "  ... and it mints above every dumped ID" \
            "$(q -d "$odst" -c "SET snowflake.node = 1" -c "SELECT snowflake.nextval() > $omax")"
    }
    check "the source's registry holds this server's claim of node 1" \
        "$(q -d "$osrc" -c "SELECT count(*) FROM snowflake.node_registry WHERE node = 1")" 1
    # A superuser restores the owner's dump: the mark comes back.
    if "$PGBIN/createdb" -O "$own" "$odst" && q -d "$odst" -f "$odump" >"$odump.err"; then
        ok "a superuser restores the owner's dump"
    else
        not_ok "a superuser restores the owner's dump"
        sed 's/^/# /' "$odump.err"
    fi
    check "  ... the restored database keeps the mark and mints above every dumped ID" \
        "$(q -d "$odst" -c "SELECT (SELECT last_value FROM snowflake.node_mark) = $omark" -c "SET snowflake.node = 1" -c "SELECT snowflake.nextval() > $omax")" "t
t"
    # The owner restores its own dump, plain (psql stopping at the first
    # error) and custom format (pg_restore --exit-on-error), each into a
    # new database it owns: everything comes back, the mark and the
    # registry's claims included (0.6.0: both refused, exit 1).
    "$PGBIN/dropdb" "$odst"
    "$PGBIN/createdb" -O "$own" "$odst"
    if q -U "$own" -d "$odst" -v ON_ERROR_STOP=1 -f "$odump" >"$odump.err" 2>&1; then
        ok "the owner restores its plain dump with psql -v ON_ERROR_STOP=1 (exit 0)"
    else
        not_ok "the owner restores its plain dump with psql -v ON_ERROR_STOP=1 (exit 0)"
        sed 's/^/# /' "$odump.err"
    fi
    restored_as_source
    "$PGBIN/dropdb" "$odst"
    "$PGBIN/createdb" -O "$own" "$odst"
    if "$PGBIN/pg_dump" -U "$own" -Fc -d "$osrc" -f "$odump.fc" 2>"$odump.err" &&
        "$PGBIN/pg_restore" -U "$own" -d "$odst" --exit-on-error "$odump.fc" 2>>"$odump.err"; then
        ok "the owner's pg_dump -Fc and pg_restore --exit-on-error (exit 0)"
    else
        not_ok "the owner's pg_dump -Fc and pg_restore --exit-on-error (exit 0)"
        sed 's/^/# /' "$odump.err"
    fi
    restored_as_source
    # Forward only.  The restored database mints on, an hour ahead of the
    # clock; then the owner sets the mark back, as a restore of an older
    # dump into it would, to 0, or to random values among and below the
    # last IDs' bodies (where a mark believed would repeat them): the next IDs stay
    # above every earlier one, and the mark goes back up with them.  Once
    # more after a restart (the preloaded mode reads the page again).
    # RANDOM is seeded and the seed printed: CHRONOID_SEED repeats a run.
    seed=${CHRONOID_SEED:-$$}
    RANDOM=$seed
    diag "seed $seed (CHRONOID_SEED)"
    q -d "$odst" >/dev/null <<'SQL'
SET snowflake.node = 1;
SELECT setval('snowflake.id_seq', ((extract(epoch FROM clock_timestamp()) * 1000)::int8 - 1672531200000 + 3600000 + 5000) << 12);
INSERT INTO t_own (v) SELECT g FROM generate_series(501, 600) g;
SELECT setval('snowflake.id_seq', 1, false);
SQL
    fwd=0
    for i in $(seq 1 12); do
        # Some rounds the owner first takes values of the mark with core
        # nextval() (its UPDATE allows it), which logs a record of its own
        # ahead of the mark, and IDs are minted under it.
        k=$((RANDOM % 3 == 0 ? 0 : RANDOM % 64 + 1))
        q -U "$own" -d "$odst" -c "SELECT count(nextval('snowflake.node_mark')) FROM generate_series(1, $k)" >/dev/null
        q -d "$odst" -c "SET snowflake.node = 1" -c "INSERT INTO t_own (v) SELECT 700 + g FROM generate_series(1, 20) g" >/dev/null
        hi=$(q -d "$odst" -c "SELECT max(id) FROM t_own")
        markv=$(q -d "$odst" -c "SELECT last_value FROM snowflake.node_mark")
        # Back among the last IDs' bodies, or up to about five seconds of
        # bodies below the mark; the first rounds to the dumped mark and 0.
        if [ $((i % 2)) -eq 0 ]; then
            back=$((markv - RANDOM % 200))
        else
            back=$((markv - ((RANDOM << 15 | RANDOM) % 20000000)))
        fi
        [ "$i" -eq 1 ] && back=$omark
        [ "$i" -eq 2 ] && back=0
        out=$(q -U "$own" -d "$odst" -c "SELECT setval('snowflake.node_mark', greatest(least($back, $markv), 0))" 2>&1)
        if [ "$i" -eq 6 ]; then
            $CHRONOID_PGCTL restart -m fast >/dev/null 2>&1
            wait_ready 100 || bail "the server came back after a restart"
        fi
        got=$(q -d "$odst" -c "SET snowflake.node = 1" -c "INSERT INTO t_own (v) SELECT 1000 + g FROM generate_series(1, 50) g" \
            -c "SELECT min(id) > $hi FROM t_own WHERE v > 1000" -c "DELETE FROM t_own WHERE v > 1000" \
            -c "SELECT last_value >= (($hi >> 22) << 12 | ($hi & 4095)) FROM snowflake.node_mark" 2>&1)
        if [ "$got" = "t
t" ] && [[ $out != *ERROR* ]]; then
            fwd=$((fwd + 1))
        else
            diag "round $i: setval to $back: $out; $got"
        fi
    done
    check "the owner sets the mark back 12 times (its dumped value, 0, random values; a restart): every next ID is above every earlier one, and the mark is back above them" "$fwd" 12
    # And forward, as a restore of a newer dump into this database that
    # minted since the server started (preloaded: its slot is loaded): the
    # next transaction's ID is above the new mark at once, not once the
    # slot's own mark (a second of bodies) runs out.
    markv=$(q -d "$odst" -c "SELECT last_value FROM snowflake.node_mark")
    ahead=$((markv + 1000000000))
    q -U "$own" -d "$odst" -c "SELECT setval('snowflake.node_mark', $ahead)" >/dev/null
    check "the owner sets the mark forward by 10^9 bodies: the next ID is above it" \
        "$(q -d "$odst" -c "SET snowflake.node = 1" -c "SELECT ((id >> 22) << 12 | (id & 4095)) > $ahead FROM (SELECT snowflake.nextval() AS id) x")"
    # Past the layout's end (2^53 bodies: no ID can be minted there) every
    # call fails; set back, the mark is believed again and minting goes on
    # above every earlier ID, without a superuser.
    hi=$(q -d "$odst" -c "SET snowflake.node = 1" -c "SELECT snowflake.nextval()" | tail -n 1)
    q -U "$own" -d "$odst" -c "SELECT setval('snowflake.node_mark', 1::int8 << 60)" >/dev/null
    out=$(q -d "$odst" -c "SET snowflake.node = 1" -c "SELECT snowflake.nextval()" 2>&1)
    check "the owner sets the mark past the layout's end: minting fails" \
        "$([[ $out == *ERROR* ]] && echo t || echo "$out")"
    q -U "$own" -d "$odst" -c "SELECT setval('snowflake.node_mark', $ahead)" >/dev/null
    check "  ... set back by the owner, minting goes on above every earlier ID" \
        "$(q -d "$odst" -c "SET snowflake.node = 1" -c "SELECT snowflake.nextval() > $hi" 2>&1 | tail -n 1)"
    # A claim the owner adds is believed like any other: one it makes up,
    # backdated, wins node 1 over this server's own claim (docs say so,
    # and how to take the right away).
    q -U "$own" -d "$odst" -c "INSERT INTO snowflake.node_registry VALUES (1, 4242, 'x', 'made-up', '2001-01-01')" >/dev/null
    out=$(q -d "$odst" -c "SET snowflake.node = 1" -c "SELECT snowflake.nextval()" 2>&1)
    check "a claim the owner makes up, backdated, wins node 1 over this server's claim" \
        "$([[ $out == *'already claimed by server "made-up"'* ]] && echo t || echo "$out")"
    # Taken away (the owner creates the extension, a superuser revokes
    # INSERT, the owner restores): the COPY of the registry is refused, the
    # rest is restored, the mark included.
    "$PGBIN/dropdb" "$odst"
    "$PGBIN/createdb" -O "$own" "$odst"
    q -U "$own" -d "$odst" -c "CREATE EXTENSION chronoid" >/dev/null
    q -d "$odst" -c "REVOKE INSERT ON snowflake.node_registry FROM pg_database_owner" >/dev/null
    out=$("$PGBIN/pg_restore" -U "$own" -d "$odst" "$odump.fc" 2>&1)
    check "with INSERT on the registry revoked, the owner's pg_restore reports only the registry's COPY" \
        "$(grep -c 'ERROR' <<<"$out")|$(grep -c 'permission denied for table node_registry' <<<"$out")" "1|1"
    check "  ... and restores the rows and the mark, not the claims" \
        "$(q -d "$odst" -c "SELECT (SELECT count(*) FROM t_own) = 500 AND (SELECT last_value FROM snowflake.node_mark) = $omark
                               AND NOT EXISTS (SELECT FROM snowflake.node_registry)")"
else
    skip "the database owner's pg_dump" "pg_database_owner is PostgreSQL 14+ (this is $srv)"
fi
for d in "$osrc" "$odst"; do "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1; done
q -c "DROP ROLE IF EXISTS $own" -c "DROP ROLE IF EXISTS sf_dump_other" >/dev/null
rm -f "$odump" "$odump.err" "$odump.fc"

for d in "$src" "$dst"; do "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1; done
rm -f "$dump" "$dump.err"
tap_done
