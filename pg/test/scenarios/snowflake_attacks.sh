#!/usr/bin/env bash
# snowflake_attacks.sh — an ordinary role and a database owner try every
# path to the node registry, the ID space's mark and the shared slots:
# no planted claim reaches the registry (whatever snowflake.node they try
# to set before the module is loaded), no role but the database owner can
# write the mark, none can lock it or move the ID space back, an
# idle-in-transaction session never blocks another's minting,
# and creating and dropping sequences in bulk uses up nothing.  Preloaded,
# the slot of a dropped database is reused.  The database owner may add
# claims and set the mark (its restore), and the ID space goes forward
# only.  TAP on stdout; run by
# pg/test/run.sh (PGHOST, PGPORT, PGBIN, CHRONOID_PGCTL, CHRONOID_MODE,
# CHRONOID_TMP set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${CHRONOID_PGCTL:?}"
db=sf_scenario_attacks
export PGDATABASE=$db
unset PGOPTIONS
mode=${CHRONOID_MODE:-plain}
tmp=${CHRONOID_TMP:-/tmp}
# as ROLE SQL: the SQL in a fresh session of ROLE, stdout and stderr
as() { local r=$1; shift; q -U "$r" -c "$*"; }
# denied ROLE SQL: ok when it fails with a permission error (42501)
denied() {
    local out
    out=$("$PGBIN/psql" -X -q -At -U "$1" -v VERBOSITY=verbose -c "$2" 2>&1)
    if grep -q "ERROR:  42501" <<<"$out"; then ok "$1 may not: $2"; else not_ok "$1 may not: $2 (got: $(head -c 200 <<<"$out"))"; fi
}

cleanup() {
    q -d postgres -c "LOAD 'chronoid'" -c "ALTER SYSTEM RESET snowflake.node" -c "SELECT pg_reload_conf()" >/dev/null 2>&1
    for d in "$db" sf_slot_1 sf_slot_2 sf_slot_3 sf_slot_4; do
        "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1
    done
    q -d postgres -c "DROP ROLE IF EXISTS sf_attacker" -c "DROP ROLE IF EXISTS sf_dbowner" >/dev/null 2>&1
}
trap cleanup EXIT
cleanup

q -d postgres >/dev/null <<'SQL' || not_ok "roles"
CREATE ROLE sf_attacker LOGIN;
CREATE ROLE sf_dbowner LOGIN;
SQL
"$PGBIN/createdb" -O sf_dbowner "$db" && q -c "CREATE EXTENSION chronoid" >/dev/null ||
    bail "create database and extension"
q -c "GRANT CREATE ON SCHEMA public TO sf_attacker" >/dev/null
# The server's real node, set by a superuser in postgresql.conf.
# (ALTER SYSTEM knows the setting only once the module is loaded)
q -d postgres -c "LOAD 'chronoid'" -c "ALTER SYSTEM SET snowflake.node = 1" -c "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 50); do [ "$(q -c 'SHOW snowflake.node')" = 1 ] && break; sleep 0.1; done
sysid=$(q -c "SELECT system_identifier FROM pg_control_system()")

# --- The registry: only the node the server really uses -------------------
# Before the module is loaded in a session, snowflake.node is a
# placeholder; check_node() (SECURITY DEFINER) loads the module, which
# drops a value set without the privilege.
for r in sf_attacker sf_dbowner; do
    for node in 501 502 503; do
        as "$r" "SET snowflake.node = $node; SELECT snowflake.check_node()" >/dev/null
    done
    as "$r" "SELECT set_config('snowflake.node', '504', false); SELECT snowflake.check_node()" >/dev/null
    PGOPTIONS="-c snowflake.node=505" as "$r" "SELECT snowflake.check_node()" >/dev/null
    PGOPTIONS="-c snowflake.node=506" as "$r" "SELECT snowflake.nextval()" >/dev/null
done
check "no planted node number reached the registry (placeholders, set_config, PGOPTIONS; $mode)" \
    "$(q -c "SELECT coalesce(string_agg(node::text, ',' ORDER BY node), 'none') FROM snowflake.node_registry WHERE node <> 1")" none
# Filling the registry (the 0.1.0 attack: 1023 numbers in 0.06 s).
for node in $(seq 600 640); do
    echo "SET snowflake.node = $node; SELECT snowflake.check_node();"
done | "$PGBIN/psql" -X -q -At -U sf_attacker >/dev/null 2>&1
check "a loop over 41 numbers claims none of them" \
    "$(q -c "SELECT count(*) FROM snowflake.node_registry WHERE node <> 1")" 0
check "the attacker's own minting registers and uses the real node" \
    "$(as sf_attacker "SELECT snowflake.get_node(snowflake.nextval())")|$(q -c "SELECT string_agg(node::text, ',') FROM snowflake.node_registry")" "1|1"

v14=$([ "$(q -c "SHOW server_version_num")" -ge 140000 ] && echo t || echo f)
for r in sf_attacker sf_dbowner; do
    if [ "$r" = sf_dbowner ] && [ "$v14" = t ]; then
        # The owner may add claims (0.7.0: its restore's COPY), never
        # change or remove one.
        check "$r may add a claim (its restore)" \
            "$(as "$r" "INSERT INTO snowflake.node_registry (node, system_identifier, database, server) VALUES (7, 1, 'x', 'x') RETURNING node")" 7
        q -c "SELECT snowflake.release_node(7)" >/dev/null
    else
        denied "$r" "INSERT INTO snowflake.node_registry (node, system_identifier, database, server) VALUES (7, 1, 'x', 'x')"
    fi
    denied "$r" "UPDATE snowflake.node_registry SET node = 8"
    denied "$r" "DELETE FROM snowflake.node_registry"
    denied "$r" "TRUNCATE snowflake.node_registry"
    denied "$r" "SELECT snowflake.register_node(9, true)"
    denied "$r" "SELECT snowflake.claim_node(10)"
    denied "$r" "SELECT snowflake.release_node(1)"
    denied "$r" "BEGIN; LOCK TABLE snowflake.node_registry IN SHARE ROW EXCLUSIVE MODE; COMMIT"
    denied "$r" "SELECT * FROM snowflake.node_registry FOR UPDATE"
    denied "$r" "ALTER TABLE snowflake.node_registry DISABLE TRIGGER ALL"
    # The ID space's mark: the owner may set it (0.7.0: its restore's
    # setval()), and the ID space goes forward only (snowflake_dump.sh
    # plays it at length); nobody else may.
    if [ "$r" = sf_dbowner ] && [ "$v14" = t ]; then
        check "$r may set the mark (forward only: snowflake_dump.sh)" \
            "$(as "$r" "SELECT setval('snowflake.node_mark', (SELECT last_value FROM snowflake.node_mark))" | tr -d 0-9)" ""
    else
        denied "$r" "SELECT setval('snowflake.node_mark', 1)"
        denied "$r" "SELECT nextval('snowflake.node_mark')"
    fi
    denied "$r" "SELECT setval('snowflake.node_mark_guard', 1)"
    denied "$r" "SELECT nextval('snowflake.node_mark_guard')"
    if [ "$r" = sf_attacker ]; then
        denied "$r" "SELECT last_value FROM snowflake.node_mark"
    else
        # The owner reads it (pg_database_owner, 14+), for its pg_dump
        # (snowflake_dump.sh); reading moves nothing.
        check "$r reads the mark (its pg_dump needs it) and nothing else" \
            "$(as "$r" "SELECT last_value > 0 FROM snowflake.node_mark")" \
            "$([ "$(q -c "SHOW server_version_num")" -ge 140000 ] && echo t || echo 'ERROR:  permission denied for sequence node_mark')"
    fi
    out=$(as "$r" "BEGIN; LOCK TABLE snowflake.node_mark IN ACCESS EXCLUSIVE MODE; COMMIT")
    check "$r cannot lock the mark" "$([[ $out == *ERROR* ]] && echo t || echo "$out")"
    denied "$r" "ALTER SEQUENCE snowflake.node_mark RESTART"
    denied "$r" "DROP SEQUENCE snowflake.node_mark"
    denied "$r" "ALTER SEQUENCE snowflake.id_seq RESTART"
    # Objects in the extension's schema, the extension itself.
    denied "$r" "CREATE FUNCTION snowflake.nextval_evil() RETURNS int8 LANGUAGE sql AS 'SELECT 1'"
    denied "$r" "CREATE OR REPLACE FUNCTION snowflake.server_label() RETURNS text LANGUAGE sql AS 'SELECT 1::text'"
    denied "$r" "ALTER EXTENSION chronoid UPDATE"
    denied "$r" "DROP EXTENSION chronoid"
    # preloaded, SET fails; else the module drops the placeholder on load
    out=$("$PGBIN/psql" -X -q -At -U "$r" -c "SET snowflake.max_run_ahead = '1h'" \
        -c "SELECT snowflake.get_node(snowflake.nextval())" -c "SHOW snowflake.max_run_ahead" 2>/dev/null | tail -n 1)
    check "$r may not widen snowflake.max_run_ahead for its session" "$out" 1s
done
# SELECT granted on a sequence lets nobody mint from it, move it or the
# mark: snowflake.nextval() needs USAGE or UPDATE, as core nextval().
q -c "CREATE SEQUENCE sf_sel_only; GRANT SELECT ON sf_sel_only TO sf_attacker" >/dev/null
denied sf_attacker "SELECT snowflake.nextval('sf_sel_only')"
denied sf_attacker "SELECT setval('sf_sel_only', 1)"
denied sf_attacker "SELECT setval('snowflake.id_seq', 1)"
check "SELECT on a sequence reads it, and that is all" "$(as sf_attacker "SELECT last_value FROM sf_sel_only")" 1
q -c "DROP SEQUENCE sf_sel_only" >/dev/null
out=$(as sf_attacker "SELECT snowflake.nextval('snowflake.node_mark')")
check "snowflake.nextval() of the mark is refused" \
    "$([[ $out == *ERROR* ]] && echo t || echo "$out")"
check "nothing above changed the registry" \
    "$(q -c "SELECT count(*) FROM snowflake.node_registry")" 1

# --- An idle-in-transaction session never blocks minting --------------------
# After release_node() every backend must register again; one session
# registers inside a transaction it keeps open (its claim uncommitted).
q -c "SELECT snowflake.release_node(1)" >/dev/null
"$PGBIN/psql" -X -q -At -U sf_attacker \
    -c "BEGIN" -c "SELECT snowflake.nextval()" -c "SELECT pg_sleep(8)" -c "COMMIT" >/dev/null 2>&1 &
idle=$!
for _ in $(seq 1 50); do
    [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sf_attacker' AND query LIKE '%pg_sleep%'")" = 1 ] && break
    sleep 0.1
done
start=$(date +%s%N)
out=$(PGOPTIONS="-c statement_timeout=3s" as sf_dbowner "SELECT snowflake.get_node(snowflake.nextval())")
ms=$((($(date +%s%N) - start) / 1000000))
check "another session mints at once while the claim is uncommitted in an open transaction (${ms} ms)" \
    "$([ "$out" = 1 ] && [ "$ms" -lt 2500 ] && echo t || echo "$out")"
out=$(PGOPTIONS="-c statement_timeout=3s" q -c "BEGIN; SELECT snowflake.get_node(snowflake.nextval()); COMMIT" 2>&1)
check "a superuser's transaction too" "$out" 1
wait "$idle"
check "the claim is recorded once the transactions commit" \
    "$(q -c "SELECT count(*) FROM snowflake.node_registry WHERE node = 1 AND system_identifier = $sysid")" 1

# --- Sequences in bulk use up nothing ----------------------------------------
# 0.1.0 gave each sequence a shared slot for the server's lifetime: 128
# create-nextval-drop rounds by any role with CREATE on a schema left every
# later sequence on the slow path.
for i in $(seq 1 300); do
    echo "CREATE SEQUENCE public.bulk_$i; SELECT snowflake.nextval('public.bulk_$i'); DROP SEQUENCE public.bulk_$i;"
done | "$PGBIN/psql" -X -q -At -U sf_attacker >"$tmp/sf_bulk.out" 2>&1
check "300 sequences created, used and dropped by an ordinary role: no error, no warning" \
    "$(grep -c -E 'ERROR|WARNING' "$tmp/sf_bulk.out")" 0
out=$(q -c "CREATE SEQUENCE after_bulk" -c "SELECT snowflake.get_node(snowflake.nextval('after_bulk'))" 2>&1)
check "a superuser's new sequence afterwards: no warning" "$out" 1

# --- Preloaded: the slot of a dropped database is reused ---------------------
if [ "$mode" = preload ]; then
    if $CHRONOID_PGCTL restart -o "-c snowflake.max_shared_databases=2" >/dev/null 2>&1; then
        ok "restart with snowflake.max_shared_databases = 2"
        # mint DB: a warning on stderr when the database got no slot
        mint() {
            "$PGBIN/psql" -X -q -At -d "$1" -c "SELECT count(DISTINCT snowflake.nextval()) FROM generate_series(1, 1000)" 2>&1
        }
        for d in sf_slot_1 sf_slot_2 sf_slot_3 sf_slot_4; do
            "$PGBIN/createdb" "$d" && q -d "$d" -c "CREATE EXTENSION chronoid" >/dev/null
        done
        check "databases 1 and 2 take the two slots" "$(mint sf_slot_1)|$(mint sf_slot_2)" "1000|1000"
        out=$(mint sf_slot_3)
        check "database 3 finds none: it mints on the page path, with a warning naming the setting" \
            "$([[ $out == *"no shared snowflake slot left"*1000 ]] && echo t || echo "$out")"
        "$PGBIN/dropdb" sf_slot_1
        check "after DROP DATABASE of database 1, database 4 gets its slot" "$(mint sf_slot_4)" 1000
        # -o "": not the options of the previous start (postmaster.opts)
        $CHRONOID_PGCTL restart -o "" >/dev/null 2>&1
        check "restarted with the default settings" \
            "$(q -d postgres -c "SHOW snowflake.max_shared_databases" 2>&1)" 64
    else
        not_ok "restart with snowflake.max_shared_databases = 2"
    fi
fi

tap_done
