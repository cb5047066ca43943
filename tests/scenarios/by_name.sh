#!/usr/bin/env bash
# by_name.sh — issue 33, part 3: the tools that call chronoid by schema
# name, against whoever owns that schema.  SQL names a function by schema
# and name, resolved when each statement is parsed, so a role that can
# rename the schema and make another of that name can put its own
# function under chronoid's name, run with the caller's rights.  dbo owns
# each test database (so schema public, from PostgreSQL 15), app is the
# application's role.  Every shadow records where it ran (RAISE LOG
# BYNAME_SHADOW, which a rolled back statement keeps) and must never run:
#   - the block allocator (libchronoid_lease, which Node and Python bind):
#     chronoid in dbo's public is refused at open; chronoid in a
#     superuser's schema that is given to dbo while the allocator runs,
#     then swapped by dbo, is refused between two reservations and again
#     across a reconnect, and no value repeats;
#     every combination of database owner, schema owner and CREATE
#     grantee is served or refused as the rule says;
#   - lease acquire reads snowflake.node_registry: refused when dbo owns
#     schema snowflake (given to it, or made by it where chronoid is not
#     installed) and has put a view there;
#   - bench-pk: chronoid's keys are refused in dbo's public; where the
#     schema is swapped between the check and a table's creation, the
#     default is found not to call chronoid's function and no row is
#     inserted.
# chronoid migrate's cases are in migrate_privilege.sh (byname_case,
# fx_untrusted_case).  Prints TAP; about 30 s.  Binaries from $BUILD.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. scripts/scenario.bash
taker=$PWD/$BUILD/tests/block_taker
# As root: it installs this tree's extension (nextval_block() is new).
scenario_needs root server pgxs tests/block_taker chronoid-block chronoid-lease chronoid-bench-pk
make -s --no-print-directory -C pg >/dev/null 2>&1 || bail "make -C pg"
# shellcheck source-path=SCRIPTDIR source=../../scripts/pgcluster.sh
. scripts/pgcluster.sh
pgc_lock || bail "$PGC_LOCK_ERROR (another suite installs the extension)"
pgc_install >/dev/null 2>&1 || bail "make -C pg install"
# shellcheck disable=SC2119
pgc_start >/dev/null || bail "start a throwaway PostgreSQL cluster"
work=$PGC_DIR/byname
mkdir -p "$work"
q -c "CREATE ROLE dbo LOGIN; CREATE ROLE app LOGIN" >/dev/null || bail "create the roles"

logsize() { stat -c %s "$PGC_LOG"; }
# shadows OFFSET: how many times a shadow ran since byte OFFSET of the log.
shadows() { tail -c +$(($1 + 1)) "$PGC_LOG" | grep -c 'BYNAME_SHADOW'; }
# The body every shadow starts with: it says who ran it.
SPY="RAISE LOG 'BYNAME_SHADOW|%|%', current_user, current_database();"

# newdb DB: a database dbo owns, app's sequence in app's schema.
newdb() {
    "$PGC_BIN/createdb" -O dbo "$1" &&
        q -d "$1" -c "CREATE SCHEMA app_s AUTHORIZATION app" >/dev/null &&
        q -U app -d "$1" -c "CREATE SEQUENCE app_s.ids" >/dev/null
}

# dbo's swap, in database $1, of schema $2: renamed, made again (dbo's),
# with SQL $3 in it (@S@: the schema).
swap() {
    q -U dbo -d "$1" -c "ALTER SCHEMA $2 RENAME TO $2_was" -c "CREATE SCHEMA $2" \
        -c "GRANT USAGE ON SCHEMA $2 TO PUBLIC" -c "${3//@S@/$2}" 2>&1
}

# The shadow nextval_block(): every block starts at 1.
NVB="CREATE FUNCTION @S@.nextval_block(seq regclass, n int8, OUT first_id int8, OUT last_id int8)
     RETURNS record LANGUAGE plpgsql AS \$f\$BEGIN $SPY first_id := 1; last_id := n; END\$f\$"

# --- the block allocator ----------------------------------------------------
# 1. chronoid in dbo's public: refused at open, naming public and dbo.
newdb bn_public && q -d bn_public -c "CREATE EXTENSION chronoid SCHEMA public" >/dev/null ||
    bail "bn_public: chronoid in dbo's public"
off=$(logsize)
PGUSER=app PGDATABASE=bn_public "$taker" app_s.ids 1 3000 100 100 50 2000 >"$work/b1.out" 2>"$work/b1.err" &
tpid=$!
for _ in $(seq 1 100); do grep -q ready "$work/b1.err" 2>/dev/null && break; kill -0 $tpid 2>/dev/null || break; sleep 0.02; done
out=$(swap bn_public public "$NVB")
diag "block/public: dbo's swap of public: ${out:-done}"
wait $tpid; rc=$?
check "block: dbo's nextval_block() never ran (taker: exit $rc)" "$(shadows "$off")" 0 "$(tail -n 3 "$work/b1.err")"
ok_if "block: chronoid in dbo's public is refused at open, naming public and dbo" \
    '[ $rc -eq 1 ] && grep -q "open: .*schema public is owned by pg_database_owner (the database owner, dbo)" "$work/b1.err"' \
    "$(tail -n 3 "$work/b1.err")"
out=$(PGUSER=app "$bin" block -d dbname=bn_public app_s.ids 1 2>&1); rc=$?
ok_if "chronoid block in that database is refused too (exit 1)" \
    '[ $rc -eq 1 ] && [[ $out == *"refusing chronoid'"'"'s nextval_block()"*"schema public"* ]]' "$out"

# 2 and 3. chronoid in blk, a superuser's schema: trusted, so the
# allocator opens.  While it runs a superuser gives blk to dbo, who swaps
# it: between two reservations (2), and after app's backend was ended, so
# that the prefetcher connects again (3).
block_swap() {
    local db=$1 how=$2 tpid rc off out
    newdb "$db" && q -d "$db" -c "CREATE SCHEMA blk; GRANT USAGE ON SCHEMA blk TO PUBLIC; CREATE EXTENSION chronoid SCHEMA blk" >/dev/null ||
        { not_ok "block/$how: $db with chronoid in a superuser's schema"; return; }
    off=$(logsize)
    # 1000 values a second in blocks of 50 to 100: a reservation every 0.1 s.
    PGUSER=app PGDATABASE=$db BLOCK_TAKER_WAIT_MS=1500 "$taker" app_s.ids 1 3000 50 50 50 1000 \
        >"$work/$how.out" 2>"$work/$how.err" &
    tpid=$!
    for _ in $(seq 1 200); do grep -q ready "$work/$how.err" 2>/dev/null && break; kill -0 $tpid 2>/dev/null || break; sleep 0.02; done
    sleep 0.3
    q -d "$db" -c "ALTER SCHEMA blk OWNER TO dbo" >/dev/null
    if [ "$how" = reconnect ]; then
        q -d "$db" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'chronoid-block'" >/dev/null
    fi
    out=$(swap "$db" blk "$NVB")
    diag "block/$how: dbo's swap of blk: ${out:-done}"
    wait $tpid; rc=$?
    check "block/$how: dbo's nextval_block() never ran (taker: exit $rc)" "$(shadows "$off")" 0 "$(tail -n 3 "$work/$how.err")"
    check "block/$how: every value handed out is distinct" \
        "$(sort -n "$work/$how.out" | uniq -d | wc -l)" 0
    ok_if "block/$how: the allocator refuses to reserve once the name means another function (exit 1)" \
        '[ $rc -eq 1 ] && grep -q "refusing" "$work/$how.err"' "$(tail -n 3 "$work/$how.err")"
    diag "block/$how: $(grep -m1 refusing "$work/$how.err")"
}
block_swap bn_between between
block_swap bn_reconnect reconnect

# 4. The rule, every case: app calls chronoid block with chronoid in schema
# x of a database owned by DBA (app, the superuser postgres, dbo); x
# owned by OWNER (app, postgres, dbo, pg_database_owner) and CREATE on it
# granted to GRANTEE (nobody, PUBLIC, dbo, app, postgres).  Trusted, and
# so served, exactly when OWNER and GRANTEE are each app, postgres, or
# pg_database_owner standing for app or postgres; refused otherwise.
trusted_role() { [ "$1" = app ] || [ "$1" = postgres ] || [ "$1" = none ] ||
                 { [ "$1" = pg_database_owner ] && [ "$2" != dbo ]; }; }
bad=()
cases=0
grant=()
for dba in app postgres dbo; do
    db=bn_rule_$dba
    "$PGC_BIN/createdb" -O "$dba" "$db" &&
        q -d "$db" -c "CREATE SCHEMA x; CREATE EXTENSION chronoid SCHEMA x; CREATE SCHEMA app_s AUTHORIZATION app" >/dev/null &&
        q -U app -d "$db" -c "CREATE SEQUENCE app_s.ids" >/dev/null || { not_ok "rule: database $db"; continue; }
    for owner in app postgres dbo pg_database_owner; do
        for grantee in none PUBLIC dbo app postgres; do
            grant=(-c "GRANT USAGE ON SCHEMA x TO PUBLIC")
            [ "$grantee" = none ] || grant+=(-c "GRANT CREATE ON SCHEMA x TO $grantee")
            out=$(q -d "$db" -c "ALTER SCHEMA x OWNER TO $owner" \
                -c "REVOKE ALL ON SCHEMA x FROM PUBLIC, app, dbo, postgres, pg_database_owner" "${grant[@]}") ||
                { bad+=("$dba/$owner/$grantee: setup: $out"); continue; }
            out=$(PGUSER=app "$bin" block -d "dbname=$db" app_s.ids 1 2>&1); rc=$?
            want=1
            trusted_role "$owner" "$dba" && trusted_role "$grantee" "$dba" && want=0
            cases=$((cases + 1))
            if [ "$want" = 0 ] && [ $rc -ne 0 ]; then
                bad+=("database owner $dba, x owned by $owner, CREATE to $grantee: refused: $out")
            elif [ "$want" = 1 ] && { [ $rc -ne 1 ] || [[ $out != *"refusing chronoid's nextval_block()"* ]]; }; then
                bad+=("database owner $dba, x owned by $owner, CREATE to $grantee: served (exit $rc): $out")
            fi
        done
    done
done
check "rule: $cases cases of database owner, schema owner and CREATE grantee: served exactly when each is app, a superuser or pg_database_owner for one" \
    "${#bad[@]}" 0 "${bad[@]}"
# And the owner of chronoid's function, which could replace its body.
q -d bn_rule_app -c "ALTER SCHEMA x OWNER TO postgres" -c "ALTER FUNCTION x.nextval_block(regclass, int8) OWNER TO dbo" >/dev/null
out=$(PGUSER=app "$bin" block -d dbname=bn_rule_app app_s.ids 1 2>&1); rc=$?
ok_if "rule: a function of chronoid owned by dbo is refused, naming it (exit 1)" \
    '[ $rc -eq 1 ] && [[ $out == *"function x.nextval_block(regclass,bigint) of extension chronoid is owned by dbo"* ]]' "$out"

# --- lease acquire and snowflake.node_registry --------------------------------
# A view that claims every node and records who reads it.
REG="CREATE FUNCTION @S@.spy() RETURNS int LANGUAGE plpgsql AS \$f\$BEGIN $SPY RETURN 0; END\$f\$;
     CREATE VIEW @S@.node_registry AS SELECT g AS node, 0::bigint AS system_identifier
       FROM generate_series(0, 1023) g WHERE @S@.spy() = 0;
     GRANT SELECT ON @S@.node_registry TO PUBLIC"
lease_case() {
    local db=$1 how=$2 off out rc
    newdb "$db" && q -d "$db" -c "GRANT CREATE ON DATABASE $db TO app" >/dev/null &&
        PGUSER=app "$bin" lease init -d "dbname=$db" >/dev/null 2>&1 ||
        { not_ok "lease/$how: $db, app's lease table"; return; }
    if [ "$how" = given ]; then
        # chronoid installed; a superuser gives schema snowflake to dbo, who swaps it.
        q -d "$db" -c "CREATE EXTENSION chronoid" -c "ALTER SCHEMA snowflake OWNER TO dbo" >/dev/null
        out=$(swap "$db" snowflake "$REG")
    else
        # no chronoid: dbo makes schema snowflake itself.
        out=$(q -U dbo -d "$db" -c "CREATE SCHEMA snowflake; GRANT USAGE ON SCHEMA snowflake TO PUBLIC" \
            -c "${REG//@S@/snowflake}" 2>&1)
    fi
    diag "lease/$how: dbo's registry: ${out:-done}"
    off=$(logsize)
    out=$(PGUSER=app "$bin" lease acquire -d "dbname=$db" 2>&1); rc=$?
    check "lease/$how: dbo's node_registry view never ran (acquire: exit $rc)" "$(shadows "$off")" 0 "$out"
    ok_if "lease/$how: acquire refuses, naming schema snowflake and dbo (exit 1)" \
        '[ $rc -eq 1 ] && [[ $out == *"schema snowflake is owned by dbo"* ]]' "$out"
}
lease_case bn_lease_given given
lease_case bn_lease_made made

# --- bench-pk ------------------------------------------------------------------
# bench_case DB SCHEMA: bench-pk -k bigserial,uuidv7 as the superuser with
# chronoid in SCHEMA; once bigserial's table exists (the check of
# chronoid is behind it, uuidv7's table ahead), SCHEMA goes to dbo (when
# it is not dbo's already) and dbo swaps it for one whose
# chronoid_uuidv7() is its own.
UV7="CREATE FUNCTION @S@.chronoid_uuidv7() RETURNS uuid LANGUAGE plpgsql AS \$f\$BEGIN $SPY RETURN gen_random_uuid(); END\$f\$"
bench_case() {
    local db=$1 sch=$2 bpid rc off out k
    newdb "$db" && q -d "$db" -c "CREATE SCHEMA IF NOT EXISTS $sch; GRANT USAGE ON SCHEMA $sch TO PUBLIC;
                                  CREATE EXTENSION chronoid SCHEMA $sch" >/dev/null ||
        { not_ok "bench-pk/$sch: chronoid in $sch"; return; }
    off=$(logsize)
    "$bin" bench-pk -n 60000 -c 1 -k bigserial,uuidv7 -d "dbname=$db" -o "$work/bench_$sch" \
        >"$work/bench_$sch.log" 2>&1 &
    bpid=$!
    for _ in $(seq 1 400); do
        k=$(q -d "$db" -c "SELECT count(*) FROM pg_class WHERE relname = 'k_bigserial'" 2>/dev/null)
        [ "$k" = 1 ] && break
        kill -0 $bpid 2>/dev/null || break
        sleep 0.02
    done
    [ "$sch" = public ] || q -d "$db" -c "ALTER SCHEMA $sch OWNER TO dbo" >/dev/null
    out=$(swap "$db" "$sch" "$UV7")
    diag "bench-pk/$sch: dbo's swap: ${out:-done}"
    wait $bpid; rc=$?
    out=$(cat "$work/bench_$sch.log")
    check "bench-pk/$sch: dbo's chronoid_uuidv7() never ran (exit $rc)" "$(shadows "$off")" 0 "$(tail -n 3 <<<"$out")"
    if [ "$sch" = public ]; then
        ok_if "bench-pk/public: the uuidv7 key is refused before any table, naming public and dbo (exit 1)" \
            '[ $rc -eq 1 ] && [[ $out == *"refusing chronoid'"'"'s functions: schema public is owned by pg_database_owner"*"dbo"* ]]' \
            "$(tail -n 3 <<<"$out")"
    else
        ok_if "bench-pk/$sch: uuidv7's table, made after the swap, is refused: its default is not chronoid's (exit 1)" \
            '[ $rc -eq 1 ] && [[ $out == *"its default does not call chronoid'"'"'s function"* ]]' "$(tail -n 3 <<<"$out")"
    fi
}
bench_case bn_bench_public public
bench_case bn_bench_given ids

tap_done
