#!/usr/bin/env bash
# migrate_privilege.sh — the attacker's test of `chronoid migrate` (issue
# 21): a superuser runs every subcommand on tables that hostile roles own
# and have filled with code, and no role may ever gain a privilege it
# lacks.  The hooks come from one table (HOOKS below, one row per kind of
# code PostgreSQL runs: triggers of every timing, level and event,
# constraint triggers, index expressions and predicates, CHECKs, domain
# checks, defaults, generated columns, row security, rules, operators and
# casts on the owner's own types, functions and operators shadowing
# catalog names); each row is planted by the role that owns its object,
# before `run` and again between `run` and `swap`.  Every hook calls its
# owner's recorder, which logs who it runs as (RAISE LOG, so that a rolled
# back statement still leaves its trace, and a row in pub.hook_log) and
# tries to escalate: ALTER ROLE ... SUPERUSER, a role grant, RESET ROLE,
# SET ROLE postgres, RESET SESSION AUTHORIZATION, a session-wide
# search_path, a cursor WITH HOLD over its own function, SET CONSTRAINTS
# ALL DEFERRED.  After each subcommand: (a) no hostile role gained an
# attribute or a membership, (b) no hook ran as a superuser, (c) no
# escalation attempt succeeded; at the end of each case the outcome:
# moved (every row has a new ID, the foreign keys hold) or refused (exit
# 1 naming the owner), and every row still there.  Also: the serial road,
# `migrate from-extension` on each stand-in (pg/test/standins), a
# database owner who sets the database's role, and issue 21's three
# reproductions as they are written.  Both modes: a server without and
# with chronoid in shared_preload_libraries (pgEdge's stand-in in the
# first only).  TAP; about 130 s per mode on 2 CPUs.  Binaries from $BUILD (default
# build/).  MIGRATE_PRIV_SEED repeats a run; MIGRATE_PRIV_MODES="plain"
# runs one mode.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
seed=${MIGRATE_PRIV_SEED:-$RANDOM}
modes=${MIGRATE_PRIV_MODES:-plain preload}

# As root: it installs the stand-in extensions.
scenario_needs server root extension chronoid-migrate

. scripts/pgcluster.sh
pgc_mkdir || bail "a temporary directory"
work=$PGC_DIR/work
mkdir -p "$work"
for s in pg_uuidv7 pgx_ulid pgedge; do
    standin "$s" || bail "the $s stand-in builds and installs" "$(tail -n 20 "$PGC_DIR/standin_$s.log")"
done
pgc_start "snowflake.node = 9" "max_connections = 40" >/dev/null || bail "start a throwaway PostgreSQL cluster"
diag "seed $seed (MIGRATE_PRIV_SEED=$seed repeats it); modes: $modes"
RANDOM=$seed

# The superuser's own queries: scenario.bash's q with catalog names first,
# whatever the database owner set.  The tool gets no PGOPTIONS: it must
# defend itself.
Q_PGOPTIONS='-c search_path=pg_catalog,pg_temp -c role=none'
# as ROLE DB SQL: a hostile role's session (its database's settings apply).
as() { Q_PGOPTIONS='' q -U "$1" -d "$2" -c "$3"; }
mig() { env -u PGOPTIONS "$bin" migrate "$@" 2>&1; }

# --- the roles --------------------------------------------------------------
# evil owns the migrated tables, kid the children that reference them, dbo
# each test database (so public too, and any schema it creates).

q -c "CREATE ROLE evil LOGIN" -c "CREATE ROLE kid LOGIN" -c "CREATE ROLE dbo LOGIN CREATEDB" >/dev/null ||
    bail "create the roles"
# The superuser's checks of the roles, after every subcommand: on one
# session (scenario.bash's qs), not a connection each.  A restart ends it:
# each mode opens it again.
qs_open -d postgres || bail "a session for the superuser's checks"
# What each hostile role may do, as set up: checked after every subcommand.
roles_now() {
    qs "SELECT string_agg(format('%s:%s%s%s%s%s:%s', r.rolname, r.rolsuper::int, r.rolcreaterole::int,
                        r.rolcreatedb::int, r.rolreplication::int, r.rolbypassrls::int,
                        (SELECT string_agg(g.rolname, '+' ORDER BY g.rolname) FROM pg_auth_members m
                           JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid)), ' ' ORDER BY r.rolname)
                        FROM pg_roles r WHERE r.rolname IN ('evil', 'kid', 'dbo')"
}
roles_base=$(roles_now)
diag "hostile roles as set up: $roles_base"
# Put them back as they were (after a failed check, so the next one means something).
roles_reset() {
    q -d postgres -c "ALTER ROLE evil NOSUPERUSER NOCREATEROLE NOCREATEDB NOREPLICATION NOBYPASSRLS" \
        -c "ALTER ROLE kid NOSUPERUSER NOCREATEROLE NOCREATEDB NOREPLICATION NOBYPASSRLS" \
        -c "ALTER ROLE dbo NOSUPERUSER NOCREATEROLE CREATEDB NOREPLICATION NOBYPASSRLS" \
        -c "DO \$\$DECLARE m record; BEGIN FOR m IN SELECT g.rolname AS g, r.rolname AS r FROM pg_auth_members x
              JOIN pg_roles g ON g.oid = x.roleid JOIN pg_roles r ON r.oid = x.member
             WHERE r.rolname IN ('evil', 'kid', 'dbo') LOOP
              EXECUTE format('REVOKE %I FROM %I', m.g, m.r); END LOOP; END\$\$" >/dev/null
}

# --- the recorder -------------------------------------------------------------
# recorder OWNER SCHEMA: OWNER's functions in its SCHEMA: rec(hook)
# logs and tries every escalation; imm/immt wrap it for places that want
# IMMUTABLE; trg() for triggers.  No SET clause on rec: a session-wide SET
# search_path must be able to outlive it, as an attacker's would.
recorder() {
    local o=$1 sc=$2
    cat <<SQL
CREATE FUNCTION $sc.rec(h text, late boolean DEFAULT false) RETURNS boolean LANGUAGE plpgsql AS \$f\$
DECLARE
  sup boolean; ph text; a text := ''; got boolean;
  sp text := pg_catalog.current_setting('search_path');
BEGIN
  SELECT r.rolsuper INTO sup FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER;
  ph := pg_catalog.current_setting('application_name');
  IF NOT late THEN
    BEGIN EXECUTE 'ALTER ROLE $o SUPERUSER'; a := a || ' alter=OK'; EXCEPTION WHEN others THEN a := a || ' alter=no'; END;
    BEGIN EXECUTE 'GRANT pg_read_server_files TO $o'; a := a || ' grant=OK'; EXCEPTION WHEN others THEN a := a || ' grant=no'; END;
    got := false;
    BEGIN RESET ROLE; SELECT r.rolsuper INTO got FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER;
      RAISE EXCEPTION 'undo'; EXCEPTION WHEN others THEN NULL; END;
    a := a || CASE WHEN got THEN ' reset_role=OK' ELSE ' reset_role=no' END;
    got := false;
    BEGIN SET ROLE postgres; SELECT r.rolsuper INTO got FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER;
      RAISE EXCEPTION 'undo'; EXCEPTION WHEN others THEN NULL; END;
    a := a || CASE WHEN got THEN ' set_role=OK' ELSE ' set_role=no' END;
    got := false;
    BEGIN RESET SESSION AUTHORIZATION; SELECT r.rolsuper INTO got FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER;
      RAISE EXCEPTION 'undo'; EXCEPTION WHEN others THEN NULL; END;
    a := a || CASE WHEN got THEN ' reset_session=OK' ELSE ' reset_session=no' END;
    BEGIN PERFORM pg_catalog.set_config('search_path', '$sc, pg_catalog, public', false); a := a || ' search_path=set';
    EXCEPTION WHEN others THEN a := a || ' search_path=no'; END;
    BEGIN EXECUTE pg_catalog.format('DECLARE %I CURSOR WITH HOLD FOR SELECT $sc.rec(%L, true)',
                                    'c' || pg_catalog.md5(pg_catalog.random()::text), 'cursor:' || h);
      a := a || ' cursor=declared';
    EXCEPTION WHEN others THEN a := a || ' cursor=no'; END;
    BEGIN SET CONSTRAINTS ALL DEFERRED; a := a || ' set_constraints=ran'; EXCEPTION WHEN others THEN a := a || ' set_constraints=no'; END;
  END IF;
  BEGIN
    INSERT INTO pub.hook_log VALUES (h, '$o', CURRENT_USER, SESSION_USER, sup, ph, a);
  EXCEPTION WHEN others THEN NULL;
  END;
  RAISE LOG 'HOOKLOG|%|%|%|%|%|%|%|%|%', pg_catalog.current_database(), h, '$o', CURRENT_USER, SESSION_USER, sup, ph, sp, a;
  RETURN true;
END \$f\$;
CREATE FUNCTION $sc.imm(h text, x anyelement) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS
  \$f\$BEGIN PERFORM $sc.rec(h); RETURN true; END\$f\$;
CREATE FUNCTION $sc.immt(h text, x anyelement) RETURNS text LANGUAGE plpgsql IMMUTABLE AS
  \$f\$BEGIN PERFORM $sc.rec(h); RETURN h; END\$f\$;
CREATE FUNCTION $sc.trg() RETURNS trigger LANGUAGE plpgsql AS \$f\$
BEGIN
  PERFORM $sc.rec(TG_ARGV[0]);
  IF TG_LEVEL OPERATOR(pg_catalog.=) 'STATEMENT' THEN RETURN NULL; END IF;
  IF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END\$f\$;
SQL
}

# --- the table of hooks -------------------------------------------------------
# name | on (parent: owned by evil; child: by kid; db: by dbo) | group (one
# table pair per group in the uuidv7 cases) | when (both: before run and
# again, as new objects, between run and swap; pre; mid) | expected
# outcome (moved | refused) | SQL, run as the owner.  Placeholders: @O@ the
# owner's schema, @T@ the table, @X@ the hook's name (with _pre or _mid),
# @C@ an int column, @K@ the key (parent) or foreign key (child) column,
# @KN@ the same before run and its _new column after it, @KT@ its type,
# @PROOF@ the tool's NOT NULL proof constraint (migrate_inspect.c), @NS@
# (db rows) public, then dbo's own schema.
HOOKS=""
for ev in INSERT UPDATE DELETE TRUNCATE; do
    for tm in BEFORE AFTER; do
        for lv in ROW STATEMENT; do
            [ "$ev" = TRUNCATE ] && [ "$lv" = ROW ] && continue
            for on in parent child; do
                hn="trg_${tm,,}_${lv,,}_${ev,,}"
                HOOKS+="${hn}_$on|$on|trg|both|moved|CREATE TRIGGER @X@ $tm $ev ON @T@ FOR EACH $lv EXECUTE FUNCTION @O@.trg('@X@')"$'\n'
            done
        done
    done
done
HOOKS+=$(cat <<'ROWS'
ctrg_deferred_parent|parent|ctrg|both|refused|CREATE CONSTRAINT TRIGGER @X@ AFTER INSERT OR UPDATE OR DELETE ON @T@ DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION @O@.trg('@X@')
ctrg_deferred_child|child|ctrg|both|refused|CREATE CONSTRAINT TRIGGER @X@ AFTER INSERT OR UPDATE OR DELETE ON @T@ DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION @O@.trg('@X@')
ctrg_immediate_parent|parent|ctrg|both|refused|CREATE CONSTRAINT TRIGGER @X@ AFTER INSERT OR UPDATE OR DELETE ON @T@ DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW EXECUTE FUNCTION @O@.trg('@X@')
ctrg_immediate_child|child|ctrg|both|refused|CREATE CONSTRAINT TRIGGER @X@ AFTER INSERT OR UPDATE OR DELETE ON @T@ DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW EXECUTE FUNCTION @O@.trg('@X@')
idx_expr_parent|parent|idx|both|moved|CREATE INDEX @X@ ON @T@ ((@O@.imm('@X@', @C@)))
idx_expr_child|child|idx|both|moved|CREATE INDEX @X@ ON @T@ ((@O@.imm('@X@', @C@)))
idx_key_parent|parent|idx|both|moved|CREATE INDEX @X@ ON @T@ ((@O@.imm('@X@', @KN@)))
idx_key_child|child|idx|both|moved|CREATE INDEX @X@ ON @T@ ((@O@.imm('@X@', @KN@)))
idx_pred_parent|parent|idx|both|moved|CREATE INDEX @X@ ON @T@ (@C@) WHERE @O@.imm('@X@', @C@)
idx_pred_child|child|idx|both|moved|CREATE INDEX @X@ ON @T@ (@C@) WHERE @O@.imm('@X@', @C@)
check_parent|parent|check|both|moved|ALTER TABLE @T@ ADD CONSTRAINT @X@ CHECK (@KN@ IS NULL OR @O@.rec('@X@'))
check_child|child|check|both|moved|ALTER TABLE @T@ ADD CONSTRAINT @X@ CHECK (@KN@ IS NULL OR @O@.rec('@X@'))
check_proof_parent|parent|check|mid|moved|ALTER TABLE @T@ DROP CONSTRAINT @PROOF@; ALTER TABLE @T@ ADD CONSTRAINT @PROOF@ CHECK (@KN@ IS NOT NULL AND @O@.rec('@X@'))
check_proof_child|child|check|mid|moved|ALTER TABLE @T@ DROP CONSTRAINT @PROOF@; ALTER TABLE @T@ ADD CONSTRAINT @PROOF@ CHECK (@KN@ IS NOT NULL AND @O@.rec('@X@'))
domain_col_parent|parent|domain|both|moved|CREATE DOMAIN @O@.@X@ AS int CHECK (@O@.imm('@X@', VALUE)); ALTER TABLE @T@ ALTER COLUMN @C@ TYPE @O@.@X@
domain_col_child|child|domain|both|moved|CREATE DOMAIN @O@.@X@ AS int CHECK (@O@.imm('@X@', VALUE)); ALTER TABLE @T@ ALTER COLUMN @C@ TYPE @O@.@X@
domain_key_parent|parent|domainkey|both|moved|CREATE DOMAIN @O@.@X@ AS @KT@ CHECK (@O@.imm('@X@', VALUE)); ALTER TABLE @T@ ALTER COLUMN @KN@ TYPE @O@.@X@
domain_key_child|child|domainkey|both|moved|CREATE DOMAIN @O@.@X@ AS @KT@ CHECK (@O@.imm('@X@', VALUE)); ALTER TABLE @T@ ALTER COLUMN @KN@ TYPE @O@.@X@
default_parent|parent|col|both|moved|ALTER TABLE @T@ ALTER COLUMN note SET DEFAULT @O@.immt('@X@', 0)
default_child|child|col|both|moved|ALTER TABLE @T@ ALTER COLUMN note SET DEFAULT @O@.immt('@X@', 0)
generated_parent|parent|col|both|moved|ALTER TABLE @T@ ADD COLUMN @X@ text GENERATED ALWAYS AS (@O@.immt('@X@', note)) STORED
generated_child|child|col|both|moved|ALTER TABLE @T@ ADD COLUMN @X@ text GENERATED ALWAYS AS (@O@.immt('@X@', note)) STORED
generated_keynew_parent|parent|genkey|mid|refused|ALTER TABLE @T@ ADD COLUMN @X@ text GENERATED ALWAYS AS (@O@.immt('@X@', @KN@)) STORED
generated_keynew_child|child|genkey|mid|refused|ALTER TABLE @T@ ADD COLUMN @X@ text GENERATED ALWAYS AS (@O@.immt('@X@', @KN@)) STORED
rls_parent|parent|rls|both|refused|ALTER TABLE @T@ ENABLE ROW LEVEL SECURITY; CREATE POLICY @X@ ON @T@ USING (@O@.rec('@X@')) WITH CHECK (@O@.rec('@X@'))
rls_child|child|rlschild|both|moved|ALTER TABLE @T@ ENABLE ROW LEVEL SECURITY; CREATE POLICY @X@ ON @T@ USING (@O@.rec('@X@')) WITH CHECK (@O@.rec('@X@'))
rls_force_parent|parent|rlsforce|both|refused|ALTER TABLE @T@ ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY; CREATE POLICY @X@ ON @T@ USING (@O@.rec('@X@')) WITH CHECK (@O@.rec('@X@'))
rls_force_child|child|rlsforce|both|refused|ALTER TABLE @T@ ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY; CREATE POLICY @X@ ON @T@ USING (@O@.rec('@X@')) WITH CHECK (@O@.rec('@X@'))
rule_update_parent|parent|rule|both|refused|CREATE RULE @X@ AS ON UPDATE TO @T@ DO ALSO SELECT @O@.rec('@X@')
rule_update_child|child|rule|both|refused|CREATE RULE @X@ AS ON UPDATE TO @T@ DO ALSO SELECT @O@.rec('@X@')
rule_insert_child|child|rule|both|refused|CREATE RULE @X@ AS ON INSERT TO @T@ DO ALSO SELECT @O@.rec('@X@')
op_own_type_parent|parent|op|pre|moved|CREATE DOMAIN @O@.@X@ AS @KT@; CREATE FUNCTION @O@.@X@_eq(@O@.@X@, @O@.@X@) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $f$BEGIN PERFORM @O@.rec('@X@'); RETURN $1::@KT@ OPERATOR(pg_catalog.=) $2::@KT@; END$f$; CREATE OPERATOR @O@.= (FUNCTION = @O@.@X@_eq, LEFTARG = @O@.@X@, RIGHTARG = @O@.@X@); CREATE OPERATOR public.= (FUNCTION = @O@.@X@_eq, LEFTARG = @O@.@X@, RIGHTARG = @O@.@X@); ALTER TABLE @T@ ALTER COLUMN @K@ TYPE @O@.@X@
cast_own_type_parent|parent|op|pre|moved|CREATE TYPE @O@.@X@ AS ENUM ('a'); CREATE FUNCTION @O@.@X@_c(@O@.@X@) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $f$BEGIN PERFORM @O@.rec('@X@'); RETURN 'a'; END$f$; CREATE CAST (@O@.@X@ AS text) WITH FUNCTION @O@.@X@_c(@O@.@X@) AS IMPLICIT; ALTER TABLE @T@ ADD COLUMN @X@ @O@.@X@ DEFAULT 'a'
cast_own_type_child|child|op|pre|moved|CREATE TYPE @O@.@X@ AS ENUM ('a'); CREATE FUNCTION @O@.@X@_c(@O@.@X@) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $f$BEGIN PERFORM @O@.rec('@X@'); RETURN 'a'; END$f$; CREATE CAST (@O@.@X@ AS text) WITH FUNCTION @O@.@X@_c(@O@.@X@) AS IMPLICIT; ALTER TABLE @T@ ADD COLUMN @X@ @O@.@X@ DEFAULT 'a'
shadow_now|db|db|pre|moved|CREATE FUNCTION @NS@.now() RETURNS timestamptz LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.now(); END$f$
shadow_count|db|db|pre|moved|CREATE FUNCTION @NS@.@X@_sf(bigint, anyelement) RETURNS bigint LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN $1 + 1; END$f$; CREATE AGGREGATE @NS@.count(anyelement) (SFUNC = @NS@.@X@_sf, STYPE = bigint, INITCOND = '0')
shadow_uuid_send|db|db|pre|moved|CREATE FUNCTION @NS@.uuid_send(uuid) RETURNS bytea LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.uuid_send($1); END$f$
shadow_md5|db|db|pre|moved|CREATE FUNCTION @NS@.md5(text) RETURNS text LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.md5($1); END$f$
shadow_gen_random_uuid|db|db|pre|moved|CREATE FUNCTION @NS@.gen_random_uuid() RETURNS uuid LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.gen_random_uuid(); END$f$
shadow_catalog_fns|db|db|pre|moved|CREATE FUNCTION @NS@.quote_ident(text) RETURNS text LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.quote_ident($1); END$f$; CREATE FUNCTION @NS@.format_type(oid, integer) RETURNS text LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.format_type($1, $2); END$f$; CREATE FUNCTION @NS@.pg_get_userbyid(oid) RETURNS name LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.pg_get_userbyid($1); END$f$; CREATE FUNCTION @NS@.nextval(regclass) RETURNS bigint LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.nextval($1); END$f$; CREATE FUNCTION @NS@.lower(text) RETURNS text LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.lower($1); END$f$
op_eq_uuid|db|db|pre|moved|CREATE FUNCTION @NS@.@X@(uuid, uuid) RETURNS boolean LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.uuid_eq($1, $2); END$f$; CREATE OPERATOR @NS@.= (FUNCTION = @NS@.@X@, LEFTARG = uuid, RIGHTARG = uuid); CREATE OPERATOR @NS@.> (FUNCTION = @NS@.@X@, LEFTARG = uuid, RIGHTARG = uuid)
op_eq_int8|db|db|pre|moved|CREATE FUNCTION @NS@.@X@(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.int8eq($1, $2); END$f$; CREATE OPERATOR @NS@.= (FUNCTION = @NS@.@X@, LEFTARG = bigint, RIGHTARG = bigint)
op_eq_oid_int4|db|db|pre|moved|CREATE FUNCTION @NS@.@X@(oid, integer) RETURNS boolean LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN $1 OPERATOR(pg_catalog.=) $2::oid; END$f$; CREATE OPERATOR @NS@.= (FUNCTION = @NS@.@X@, LEFTARG = oid, RIGHTARG = integer)
op_eq_text|db|db|pre|moved|CREATE FUNCTION @NS@.@X@(text, text) RETURNS boolean LANGUAGE plpgsql AS $f$BEGIN PERFORM dbo_s.rec('@X@'); RETURN pg_catalog.texteq($1, $2); END$f$; CREATE OPERATOR @NS@.= (FUNCTION = @NS@.@X@, LEFTARG = text, RIGHTARG = text)
ROWS
)
HOOKS+=$'\n'
nhooks=$(grep -c . <<<"$HOOKS")
diag "hook table: $nhooks rows ($(grep -c '|parent|' <<<"$HOOKS") on the table, $(grep -c '|child|' <<<"$HOOKS") on the child, $(grep -c '|db|' <<<"$HOOKS") by the database owner)"

# fill TEMPLATE X TABLE OWNER KEY KEYNEW KEYTYPE PROOF COLUMN: the SQL of one hook.
fill() {
    local s=$1
    s=${s//@X@/$2}; s=${s//@T@/$3}; s=${s//@O@/$4}; s=${s//@KN@/$6}; s=${s//@KT@/$7}
    s=${s//@K@/$5}; s=${s//@PROOF@/$8}; s=${s//@C@/$9}
    printf '%s' "$s"
}

# --- a database of hostile roles ---------------------------------------------
# newdb DB [SELECT]: owned by dbo, with pub (the phase and the log), the
# schemas evil, kid and dbo with their recorders, dbo's shadows in public
# and in dbo, and dbo's search_path.  kid may read the parents' keys when
# SELECT is "select".
newdb() {
    local db=$1 line name on sql ns
    "$PGC_BIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    "$PGC_BIN/createdb" -O dbo "$db" || return 1
    q -d "$db" <<SQL >"$work/newdb.log" || { cat "$work/newdb.log"; return 1; }
CREATE SCHEMA pub;
GRANT USAGE ON SCHEMA pub TO PUBLIC;
CREATE TABLE pub.hook_log (hook text, owner text, cur text, sess text, super boolean, phase text, attempts text, at timestamptz DEFAULT clock_timestamp());
GRANT INSERT ON pub.hook_log TO PUBLIC;
CREATE SCHEMA shop AUTHORIZATION evil; GRANT USAGE, CREATE ON SCHEMA shop TO kid;
CREATE SCHEMA evil_s AUTHORIZATION evil; CREATE SCHEMA kid_s AUTHORIZATION kid;
SQL
    as dbo "$db" "CREATE SCHEMA dbo_s; GRANT USAGE ON SCHEMA dbo_s TO PUBLIC; GRANT CREATE ON SCHEMA public TO evil, kid" >/dev/null || return 1
    for o in evil kid dbo; do
        as "$o" "$db" "$(recorder "$o" "${o}_s")" >"$work/rec.log" || { cat "$work/rec.log"; return 1; }
    done
    sql=
    while IFS='|' read -r name on _ _ _ line; do
        [ "$on" = db ] || continue
        for ns in public dbo_s; do
            line2=${line//@NS@/$ns}
            sql+="${line2//@X@/${name}_$ns};"$'\n'
        done
    done <<<"$HOOKS"
    out=$(as dbo "$db" "$sql") || { echo "dbo's hooks: $out"; return 1; }
    # The database owner puts its schema first for every session, ahead of pg_catalog.
    as dbo "$db" "ALTER DATABASE $db SET search_path = dbo_s, pg_catalog, public" >/dev/null || return 1
    [ "${2:-}" = select ] && echo select >"$work/$db.select"
    return 0
}


logsize() { stat -c %s "$PGC_LOG"; }

# verdict LABEL DB OFFSET: after one subcommand: (a) the roles, (b) who the
# hooks ran as, (c) the escalations; one TAP line.  Appends the hooks'
# lines (their phase set to the subcommand) to $work/DB.hooks for the
# per-hook summary.  One awk reads the server log from byte OFFSET: this
# runs some 600 times a run, and a pipeline of a dozen programs each time
# was a sizeable share of the scenario's CPU.
verdict() {
    local label=$1 db=$2 off=$3 report calls now bad=() sup esc
    report=$(tail -c +"$((off + 1))" "$PGC_LOG" |
        awk -F'|' -v OFS='|' -v db="$db" -v p="${label##*: }" -v hooks="$work/$db.hooks" '
            !sub(/^.*LOG:  HOOKLOG\|/, "") || $1 != db { next }
            {
                $7 = p
                print >>hooks
                calls++
                if ($6 == "t") sup[$2 " (owner " $3 ") ran as " $4 " in phase " $7]++
                k = split($9, a, " ")
                for (i = 1; i <= k; i++) if (a[i] ~ /=OK/) esc[$2 " (owner " $3 "): " a[i] " in phase " $7]++
            }
            END {
                print "calls " calls + 0
                for (s in sup) print "sup " sup[s] " " s
                for (e in esc) print "esc " esc[e] " " e
            }')
    calls=${report%%$'\n'*}
    calls=${calls#calls }
    now=$(roles_now)
    [ "$now" != "$roles_base" ] && bad+=("(a) roles changed: $now (was $roles_base)")
    if [[ $report == *$'\n'sup\ * ]] || [[ $report == *$'\n'esc\ * ]]; then
        sup=$(sed -n 's/^sup //p' <<<"$report" | sort -k 2)
        esc=$(sed -n 's/^esc //p' <<<"$report" | sort -k 2)
        [ -n "$sup" ] && bad+=("(b) hooks ran as a superuser:" "$sup")
        [ -n "$esc" ] && bad+=("(c) escalations succeeded:" "$esc")
    fi
    if [ ${#bad[@]} -eq 0 ]; then
        ok "$label: no role gained anything; $calls hook calls, none as a superuser"
    else
        not_ok "$label: a hostile role gained a privilege" "${bad[@]}"
        roles_reset
    fi
}

# --- one case: a table pair, a group of hooks, every subcommand --------------
# pair DB GROUP TO: shop.o_GROUP (owned by evil) and shop.i_GROUP (owned by
# kid, its foreign key on the parent), the group's hooks planted before
# run and again after it; then plan, run, status, (the application
# writes), swap, rollback, run, swap, finish, each checked.  Sets outcome.
pair() {
    local db=$1 g=$2 to=$3 T=shop.o_$2 C=shop.i_$2 name on grp when exp sql owner tbl x out rc off sub
    local kt proof_p proof_c col k kn
    q -d "$db" <<SQL >"$work/pair.log" || { not_ok "$to/$g: tables"; diag <"$work/pair.log"; return; }
CREATE TABLE $T (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int, note text);
INSERT INTO $T (n, note) SELECT g, 'o' || g FROM generate_series(1, 12) g;
CREATE TABLE $C (k serial PRIMARY KEY, order_id uuid REFERENCES $T ON DELETE CASCADE, qty int, note text);
CREATE INDEX ON $C (order_id);
INSERT INTO $C (order_id, qty, note) SELECT id, n, 'i' || n FROM $T;
ANALYZE $T; ANALYZE $C;
ALTER TABLE $T OWNER TO evil; ALTER TABLE $C OWNER TO kid;
GRANT REFERENCES (id) ON $T TO kid;
SQL
    [ -f "$work/$db.select" ] && q -d "$db" -c "GRANT SELECT (id) ON $T TO kid" >/dev/null
    plant() {   # plant pre|mid: one session per owner, a marker before each hook
        local stage=$1 cnt=0 fails=() sqlp= sqlc= kt ktc ktn ktcn proof_p proof_c
        IFS='|' read -r kt ktc ktn ktcn proof_p proof_c <<<"$(q -d "$db" -c "
            SELECT (SELECT format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END, NULL)
                      FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = c.r AND a.attname = c.k)
              FROM (VALUES (1, '$T'::regclass, 'id'), (2, '$C'::regclass, 'order_id'), (3, '$T'::regclass, 'id_new'),
                           (4, '$C'::regclass, 'order_id_new')) c(i, r, k) ORDER BY i" | tr '\n' '|')$(q -d "$db" -c "
            SELECT format('chronoid_mig_%s_notnull', '$T'::regclass::oid) || '|' ||
                   (SELECT format('chronoid_mig_%s_%s_notnull', '$C'::regclass::oid, attnum) FROM pg_attribute
                     WHERE attrelid = '$C'::regclass AND attname = 'order_id')")"
        while IFS='|' read -r name on grp when exp sql; do
            [ -n "$name" ] && [ "$on" != db ] || continue
            if [ "$g" != all ]; then [ "$grp" = "$g" ] || continue; else [ "$exp" = moved ] || continue; fi
            [ "$when" = both ] || [ "$when" = "$stage" ] || continue
            x=${name}_$stage
            if [ "$on" = parent ]; then
                sqlp+="\\echo HOOK $x"$'\n'"$(fill "$sql" "$x" "$T" evil_s id "$([ "$stage" = mid ] && echo id_new || echo id)" \
                    "$([ "$stage" = mid ] && echo "$ktn" || echo "$kt")" "$proof_p" n);"$'\n'
            else
                sqlc+="\\echo HOOK $x"$'\n'"$(fill "$sql" "$x" "$C" kid_s order_id "$([ "$stage" = mid ] && echo order_id_new || echo order_id)" \
                    "$([ "$stage" = mid ] && echo "$ktcn" || echo "$ktc")" "$proof_c" qty);"$'\n'
            fi
            cnt=$((cnt + 1))
        done <<<"$HOOKS"
        out=$(psql -Xq -U evil -d "$db" <<<"$sqlp" 2>&1; psql -Xq -U kid -d "$db" <<<"$sqlc" 2>&1)
        mapfile -t fails < <(awk '/^HOOK / {h = $2; next} /ERROR/ {print h ": " $0}' <<<"$out")
        if [ ${#fails[@]} -eq 0 ]; then
            ok "$to/$g: $cnt hooks planted by their owners ($stage)"
        else
            not_ok "$to/$g: $((cnt - ${#fails[@]})) of $cnt hooks planted by their owners ($stage)" "${fails[@]}"
        fi
    }
    plant pre
    outcome=moved
    local mid=
    # rollback after the swap keeps the new key; swap again; rollback
    # twice drops it (what a hook made on the new key then refuses).
    local seq=("plan --to $to" "run --to $to" status app1 swap app2 rollback swap rollback rollback "run --to $to"
               swap finish app3)
    for sub in "${seq[@]}"; do
        off=$(logsize)
        case $sub in
        app*)
            # The application writes: the table's owner, then the child's.
            x=$(as evil "$db" "INSERT INTO $T (n, note) VALUES (100, '$sub') RETURNING id" | head -n 1)
            out=$(as kid "$db" "INSERT INTO $C (order_id, qty, note) VALUES ('$x', 100, '$sub')"); rc=$?
            [ $rc -eq 0 ] || diag "$to/$g: $sub: the application's write failed: $out"
            ;;
        plan* | run*)
            out=$(mig "${sub%% *}" --table "$T" --to "$to" --no-progress -d "dbname=$db"); rc=$? ;;
        *)
            out=$(mig "$sub" --table "$T" -d "dbname=$db"); rc=$? ;;
        esac
        verdict "$to/$g: ${sub%% *}" "$db" "$off"
        if [ "$sub" = status ]; then
            :
        elif [[ $sub != app* ]] && [ $rc -ne 0 ]; then
            if [ $rc -eq 1 ] && grep -qwE "evil|kid" <<<"$out"; then outcome="refused at ${sub%% *}"; else outcome="failed at ${sub%% *} (exit $rc)"; fi
            diag "$to/$g: ${sub%% *}: exit $rc: $(tail -n 3 <<<"$out")"
            break
        fi
        if [ "${sub%% *}" = run ] && [ -z "$mid" ]; then mid=1; plant mid; fi
    done
    # Every row still there; moved means every row has its new ID and the foreign keys hold.
    local rows kids
    rows=$(q -d "$db" -c "SELECT count(*) FROM $T WHERE note ~ '^o[0-9]+$'")
    kids=$(q -d "$db" -c "SELECT count(*) FROM $C WHERE note ~ '^i[0-9]+$' AND order_id IS NOT NULL")
    check "$to/$g: every original row and child row is still there" "$rows|$kids" "12|12"
    if [ "$outcome" = moved ]; then
        local want
        case $to in
        uuidv7) want="uuid_extract_version(o.id) = 7" ;;
        ulid) want="o.id IS NOT NULL" ;;
        snowflake) want="snowflake.get_node(o.id) = 9" ;;
        esac
        # run installed chronoid into its state schema, chronoid: public is
        # dbo's, and evil and kid may create in it (issue 33).
        check "$to/$g: moved: every row has its new $to ID, every child joins it, the foreign key is validated" \
            "$(q -d "$db" -c "SELECT format_type(a.atttypid, NULL) FROM pg_attribute a WHERE a.attrelid = '$T'::regclass AND a.attname = 'id'")|$(q -d "$db" -c "SET search_path = pg_catalog, chronoid; SELECT bool_and($want) FROM $T o")|$(q -d "$db" -c "SET search_path = pg_catalog, chronoid; SELECT count(*) FROM $C c JOIN $T o ON o.id = c.order_id")|$(q -d "$db" -c "SELECT bool_and(convalidated) FROM pg_constraint WHERE conrelid = '$C'::regclass AND contype = 'f'")" \
            "$(case $to in uuidv7) echo uuid ;; ulid) echo chronoid.ulid ;; snowflake) echo bigint ;; esac)|t|$(q -d "$db" -c "SELECT count(*) FROM $C WHERE order_id IS NOT NULL")|t"
    fi
}

# hook_summary DB SUFFIXES: from $work/DB.hooks, per hook (its name without
# "cursor:" and the _SUFFIX, SUFFIXES an awk alternation such as pre|mid),
# the phases it ran in, in order (hook_ran[NAME], "run swap "), and its
# calls as a superuser, counted (hook_sup[NAME], "2 NAME_pre@run ").  One
# pass over the file for a whole case, not two pipelines per hook.
declare -A hook_ran hook_sup
hook_summary() {
    local count line base kind val
    hook_ran=() hook_sup=()
    [ -f "$work/$1.hooks" ] || return 0
    while read -r count line; do
        IFS=$'\t' read -r base kind val <<<"$line"
        if [ "$kind" = ran ]; then
            hook_ran[$base]+="$val "
        else
            hook_sup[$base]+="$count $val "
        fi
    done < <(awk -F'|' -v OFS='\t' -v sfx="$2" '
        {
            n = $2
            sub(/^cursor:/, "", n)
            if (!match(n, "_(" sfx ")$")) next
            b = substr(n, 1, RSTART - 1)
            print b, "ran", $7
            if ($6 == "t") print b, "sup", $2 "@" $7
        }' "$work/$1.hooks" | sort | uniq -c)
}

# expect DB GROUP TO: per hook row of the group, (b) over every phase and
# the outcome against the table's expectation.
expect_rows() {
    local db=$1 g=$2 to=$3 name on grp when exp sql ran sup
    hook_summary "$db" "pre|mid"
    while IFS='|' read -r name on grp when exp sql; do
        [ -n "$name" ] && [ "$on" != db ] || continue
        if [ "$g" != all ]; then [ "$grp" = "$g" ] || continue; else [ "$exp" = moved ] || continue; fi
        ran=${hook_ran[$name]:-}
        sup=${hook_sup[$name]:-}
        if [ -z "$sup" ]; then
            ok "$to/$name: never ran as a superuser (ran in: ${ran:-no phase})"
        else
            not_ok "$to/$name: ran as a superuser: $sup"
        fi
        if [ "${outcome%% *}" = "$exp" ]; then
            ok "$to/$name: outcome $outcome (expected $exp)"
        else
            not_ok "$to/$name: outcome $outcome (expected $exp)"
        fi
    done <<<"$HOOKS"
}

# The database owner's hooks: never as a superuser, in any case of DB.
expect_db_rows() {
    local db=$1 to=$2 name on sql sup ran
    hook_summary "$db" "public|dbo_s"
    while IFS='|' read -r name on _ _ _ sql; do
        [ "$on" = db ] || continue
        ran=${hook_ran[$name]:-}
        sup=${hook_sup[$name]:-}
        if [ -z "$sup" ]; then
            ok "$to/$name (database owner's, public and dbo): never ran as a superuser (ran in: ${ran:-no phase})"
        else
            not_ok "$to/$name (database owner's): ran as a superuser: $sup"
        fi
    done <<<"$HOOKS"
}

# --- the serial road -----------------------------------------------------------
# serial_case DB CHILD_OWNER EXPECT: an integer serial key (evil's) and a
# child of CHILD_OWNER's referencing it, both with hooks, moved --to
# snowflake: convert_sequence_to_snowflake() widens both to bigint in one
# call, as evil, so a child of kid's is refused (naming kid) and one of
# evil's moves.
serial_case() {
    local db=$1 co=$2 expect=$3 S=shop.s_$2 SC=shop.sc_$2 out rc off sub
    q -d "$db" <<SQL >"$work/serial.log" || { not_ok "serial/$co: tables"; diag <"$work/serial.log"; return; }
CREATE TABLE $S (id serial PRIMARY KEY, n int, note text);
INSERT INTO $S (n, note) SELECT g, 'o' || g FROM generate_series(1, 12) g;
CREATE TABLE $SC (k serial PRIMARY KEY, s_id int REFERENCES $S, qty int);
INSERT INTO $SC (s_id, qty) SELECT id, n FROM $S;
ALTER TABLE $S OWNER TO evil; ALTER TABLE $SC OWNER TO $co; GRANT REFERENCES (id) ON $S TO $co;
SQL
    as evil "$db" "CREATE TRIGGER serial_trg_upd BEFORE UPDATE ON $S FOR EACH ROW EXECUTE FUNCTION evil_s.trg('serial_trg_upd');
        ALTER TABLE $S ADD COLUMN serial_gen text GENERATED ALWAYS AS (evil_s.immt('serial_generated', n)) STORED;
        ALTER TABLE $S ADD CONSTRAINT serial_check CHECK (id IS NOT NULL AND evil_s.rec('serial_check'));
        CREATE INDEX ON $S ((evil_s.imm('serial_idx', id)))" >/dev/null &&
    as "$co" "$db" "ALTER TABLE $SC ADD CONSTRAINT serial_check_child CHECK (s_id IS NULL OR ${co}_s.rec('serial_check_child'));
        CREATE INDEX ON $SC ((${co}_s.imm('serial_idx_child', s_id)));
        ALTER TABLE $SC ADD COLUMN serial_gen_child text GENERATED ALWAYS AS (${co}_s.immt('serial_generated_child', qty)) STORED" >/dev/null ||
        { not_ok "serial/$co: hooks planted"; return; }
    outcome=moved
    for sub in plan run status swap rollback finish; do
        off=$(logsize)
        if [ "$sub" = plan ] || [ "$sub" = run ]; then
            out=$(mig "$sub" --table "$S" --to snowflake --no-progress -d "dbname=$db"); rc=$?
        else
            out=$(mig "$sub" --table "$S" -d "dbname=$db"); rc=$?
        fi
        verdict "serial/$co/$sub" "$db" "$off"
        if { [ "$sub" = plan ] || [ "$sub" = run ]; } && [ $rc -ne 0 ]; then
            if [ $rc -eq 1 ] && grep -qw "$co" <<<"$out"; then outcome=refused; else outcome="failed (exit $rc)"; fi
            diag "serial/$co: $sub: exit $rc: $(tail -n 3 <<<"$out")"
            break
        fi
    done
    check "serial/$co: every row and child row still there" \
        "$(q -d "$db" -c "SELECT count(*) FROM $S")|$(q -d "$db" -c "SELECT count(*) FROM $SC c JOIN $S s ON s.id = c.s_id")" "12|12"
    if [ "$outcome" = moved ]; then
        check "serial/$co: moved: bigint keys, new rows get snowflakes (inserted by evil)" \
            "$(q -d "$db" -c "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = '$S'::regclass AND attname = 'id'")|$(as evil "$db" "SET search_path = pg_catalog, public; INSERT INTO $S (n, note) VALUES (0, 'new') RETURNING snowflake.get_node(id)" | head -n 1)" "bigint|9"
    fi
    if [ "${outcome%% *}" = "$expect" ]; then
        ok "serial/$co: outcome $outcome (expected $expect)"
    else
        not_ok "serial/$co: outcome $outcome (expected $expect)"
    fi
}

# noselect_case: kid owns a child but may not read the parent's key: plan
# refuses, naming kid and the GRANT it needs; nothing changes.
noselect_case() {
    local db=priv_noselect out rc before
    newdb "$db" >/dev/null || { not_ok "noselect: a database"; return; }
    q -d "$db" -c "CREATE TABLE shop.o (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
        INSERT INTO shop.o (n) SELECT g FROM generate_series(1, 12) g;
        CREATE TABLE shop.i (k serial PRIMARY KEY, order_id uuid REFERENCES shop.o);
        INSERT INTO shop.i (order_id) SELECT id FROM shop.o;
        ALTER TABLE shop.o OWNER TO evil; ALTER TABLE shop.i OWNER TO kid; GRANT REFERENCES (id) ON shop.o TO kid" >/dev/null
    before=$(q -d "$db" -c "SELECT count(*) FROM pg_attribute WHERE attrelid IN ('shop.o'::regclass, 'shop.i'::regclass) AND attnum > 0")
    for sub in plan run; do
        out=$(mig "$sub" --table shop.o --to uuidv7 --no-progress -d "dbname=$db"); rc=$?
        if [ $rc -eq 1 ] && grep -q "kid" <<<"$out" && grep -q "GRANT SELECT (id)" <<<"$out"; then
            ok "noselect: $sub refused, naming kid and the GRANT it needs"
        else
            not_ok "noselect: $sub refused, naming kid and the GRANT it needs" "exit $rc: $out"
        fi
    done
    check "noselect: nothing changed" \
        "$(q -d "$db" -c "SELECT count(*) FROM pg_attribute WHERE attrelid IN ('shop.o'::regclass, 'shop.i'::regclass) AND attnum > 0")" "$before"
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
}

# --- from-extension -------------------------------------------------------------
# fx_case STANDIN: evil's table on the old extension's type and functions,
# with a CHECK, an index expression, a generated column and triggers of its
# own; the superuser switches the database.
fx_case() {
    local src=$1 db=priv_fx_$1 ext arg col def out rc off
    case $src in
    pgedge) ext=snowflake arg=snowflake col=bigint def="snowflake.nextval()" ;;
    pg_uuidv7) ext=pg_uuidv7 arg=pg_uuidv7 col=uuid def="public.uuid_generate_v7()" ;;
    pgx_ulid) ext=ulid arg=pgx_ulid col=public.ulid def="public.gen_ulid()" ;;
    esac
    newdb "$db" || { not_ok "fx/$src: a database"; return; }
    # The switch installs chronoid into the old extension's schema, public,
    # which refuses while dbo owns it and evil and kid may create there
    # (fx_untrusted_case): the superuser takes it first, as
    # docs/migrate.md says.  dbo's shadows stay in it.
    out=$(q -d "$db" -c "ALTER SCHEMA public OWNER TO postgres; REVOKE CREATE ON SCHEMA public FROM evil, kid" \
        -c "CREATE EXTENSION $ext $([ "$src" = pgedge ] || echo SCHEMA public)") || { not_ok "fx/$src: CREATE EXTENSION $ext" "$out"; return; }
    out=$(q -d "$db" <<SQL
CREATE TABLE shop.t (id $col PRIMARY KEY DEFAULT $def, n int, note text);
INSERT INTO shop.t (n, note) SELECT g, 'o' || g FROM generate_series(1, 12) g;
CREATE TABLE shop.tc (k serial PRIMARY KEY, t_id $col REFERENCES shop.t, qty int);
INSERT INTO shop.tc (t_id, qty) SELECT id, n FROM shop.t;
ALTER TABLE shop.t OWNER TO evil; ALTER TABLE shop.tc OWNER TO kid; GRANT REFERENCES (id) ON shop.t TO kid;
SQL
    ) || { not_ok "fx/$src: tables" "$out"; return; }
    out=$(as evil "$db" "ALTER TABLE shop.t ADD CONSTRAINT fx_check CHECK (id IS NOT NULL AND evil_s.rec('fx_check'));
        CREATE INDEX fx_idx ON shop.t ((evil_s.imm('fx_idx', id)));
        CREATE INDEX fx_pred ON shop.t (n) WHERE evil_s.imm('fx_pred', id);
        ALTER TABLE shop.t ADD COLUMN fx_gen text GENERATED ALWAYS AS (evil_s.immt('fx_generated', n)) STORED;
        CREATE TRIGGER fx_trg BEFORE UPDATE ON shop.t FOR EACH ROW EXECUTE FUNCTION evil_s.trg('fx_trg')") &&
    out=$(as kid "$db" "ALTER TABLE shop.tc ADD CONSTRAINT fx_check_child CHECK (t_id IS NOT NULL AND kid_s.rec('fx_check_child'));
        CREATE INDEX fx_idx_child ON shop.tc ((kid_s.imm('fx_idx_child', t_id)))") ||
        { not_ok "fx/$src: hooks planted" "$out"; return; }
    outcome=moved
    for sub in plan switch; do
        off=$(logsize)
        if [ "$sub" = plan ]; then
            out=$(mig from-extension "$arg" --plan -d "dbname=$db"); rc=$?
        else
            out=$(mig from-extension "$arg" -d "dbname=$db"); rc=$?
        fi
        verdict "fx/$src: from-extension$([ "$sub" = plan ] && echo " --plan")" "$db" "$off"
        if [ $rc -ne 0 ]; then
            if [ $rc -eq 1 ] && grep -qwE "evil|kid" <<<"$out"; then outcome=refused; else outcome="failed (exit $rc)"; fi
            diag "fx/$src: $sub: exit $rc: $(tail -n 3 <<<"$out")"
            break
        fi
    done
    check "fx/$src: every row and child row still there" \
        "$(q -d "$db" -c "SELECT count(*) FROM shop.t")|$(q -d "$db" -c "SELECT count(*) FROM shop.tc")" "12|12"
    if [ "$outcome" = moved ]; then
        check "fx/$src: switched: chronoid installed, $ext gone" \
            "$(q -d "$db" -c "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname <> 'plpgsql'")" chronoid
    else
        diag "fx/$src: outcome $outcome"
        ok "fx/$src: outcome $outcome (reported; expected moved or refused naming the owner)"
        [ "${outcome%% *}" = failed ] && not_ok "fx/$src: refused without naming the owner (or failed): $outcome"
    fi
    for name in fx_check fx_idx fx_pred fx_generated fx_trg fx_check_child fx_idx_child; do
        sup=$(awk -F'|' -v h="$name" '($2 == h || $2 == "cursor:" h) && $6 == "t" {print $7}' "$work/$db.hooks" 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
        if [ -z "$sup" ]; then ok "fx/$src/$name: never ran as a superuser"; else not_ok "fx/$src/$name: ran as a superuser: $sup"; fi
    done
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
}

# fx_untrusted_case: from-extension where the old extension (pg_uuidv7)
# sits in public, which dbo owns (PostgreSQL 15+) and where evil may
# create: chronoid would go there and every default would name it, so the
# switch refuses, naming public and dbo, and nothing changes (issue 33).
fx_untrusted_case() {
    local db=priv_fx_untrusted out rc
    newdb "$db" >/dev/null || { not_ok "fx/untrusted: a database"; return; }
    q -d "$db" -c "CREATE EXTENSION pg_uuidv7 SCHEMA public" \
        -c "CREATE TABLE shop.t (id uuid PRIMARY KEY DEFAULT public.uuid_generate_v7(), n int);
            INSERT INTO shop.t (n) SELECT g FROM generate_series(1, 12) g" >/dev/null ||
        { not_ok "fx/untrusted: pg_uuidv7 in dbo's public"; return; }
    for sub in --plan ""; do
        out=$(mig from-extension pg_uuidv7 $sub -d "dbname=$db"); rc=$?
        ok_if "fx/untrusted: from-extension pg_uuidv7 ${sub:-(switch)} refuses: public is dbo's (exit $rc)" \
            '[ $rc -eq 1 ] && [[ $out == *"schema public"*"dbo"* ]] && [[ $out == *"nothing has changed"* ]]' "$out"
    done
    check "fx/untrusted: pg_uuidv7 still installed, chronoid not" \
        "$(q -d "$db" -c "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname <> 'plpgsql'")" pg_uuidv7
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
}

# --- chronoid's schema swapped in the middle of a run (issue 33, part 3) --------
# byname_case PRE: su.o, the superuser's own table (run's statements run as
# the superuser, not as an owner), 2000 rows backfilled in paced batches
# of 100 in a database that dbo owns.  PRE=public: chronoid installed in
# public (dbo's from PostgreSQL 15) beforehand; PRE=none: run installs it.
# Once the backfill is under way, dbo renames chronoid's schema and makes
# a new one of that name with its own uuidv7(), which records where it
# runs and tries to escalate (dbo_s.rec); the run goes on.  The shadow
# must never run; run refuses naming public and dbo (public) or moves
# every row with chronoid's uuidv7() (none).
byname_case() {
    local pre=$1 db=priv_byname_$1 out rc off pid k swap shadows where
    newdb "$db" >/dev/null || { not_ok "byname/$pre: a database"; return; }
    if [ "$pre" = public ]; then
        q -d "$db" -c "CREATE EXTENSION chronoid SCHEMA public" >/dev/null ||
            { not_ok "byname/$pre: CREATE EXTENSION chronoid SCHEMA public"; return; }
    fi
    q -d "$db" -c "CREATE SCHEMA su; CREATE TABLE su.o (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
        INSERT INTO su.o (n) SELECT g FROM generate_series(1, 2000) g" >/dev/null ||
        { not_ok "byname/$pre: the superuser's table"; return; }
    off=$(logsize)
    env -u PGOPTIONS "$bin" migrate run --table su.o --to uuidv7 --batch 100 --pause 150ms --no-progress \
        -d "dbname=$db" >"$work/byname_$pre.out" 2>&1 &
    pid=$!
    for _ in $(seq 1 400); do
        kill -0 "$pid" 2>/dev/null || break
        k=$(q -d "$db" -c "SELECT count(id_new) FROM su.o" 2>/dev/null)
        [ "${k:-0}" -gt 0 ] 2>/dev/null && break
        sleep 0.05
    done
    [[ ${k:-} =~ ^[0-9]+$ ]] || k=0
    diag "byname/$pre: dbo swaps chronoid's schema after $k rows (run: $(kill -0 "$pid" 2>/dev/null && echo running || echo ended))"
    swap=$(as dbo "$db" "DO \$d\$DECLARE s text; BEGIN
        SELECT n.nspname INTO s FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
         WHERE e.extname = 'chronoid';
        EXECUTE pg_catalog.format('ALTER SCHEMA %I RENAME TO %I', s, s || '_was');
        EXECUTE pg_catalog.format('CREATE SCHEMA %I', s);
        EXECUTE pg_catalog.format('GRANT USAGE ON SCHEMA %I TO PUBLIC', s);
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.uuidv7() RETURNS uuid LANGUAGE plpgsql AS %L', s,
            'BEGIN PERFORM dbo_s.rec(''byname_shadow''); RETURN pg_catalog.gen_random_uuid(); END');
        END\$d\$" 2>&1)
    diag "byname/$pre: dbo's swap: ${swap:-done}"
    wait "$pid"; rc=$?
    out=$(cat "$work/byname_$pre.out")
    shadows=$(tail -c +$((off + 1)) "$PGC_LOG" | grep -c "HOOKLOG|$db|byname_shadow|")
    check "byname/$pre: dbo's uuidv7() in the swapped schema never ran (run: exit $rc)" "$shadows" 0
    verdict "byname/$pre: run, with chronoid's schema swapped mid-run (exit $rc)" "$db" "$off"
    if [ "$pre" = public ]; then
        k=$(q -d "$db" -c "SELECT count(*) FROM pg_attribute WHERE attrelid = 'su.o'::regclass AND attname = 'id_new'")
        ok_if "byname/public: run refuses before any change, naming public and dbo" \
            '[ $rc -eq 1 ] && [[ $out == *"schema public is owned by pg_database_owner"*"dbo"* ]] && [ "$k" = 0 ]' \
            "id_new columns: $k" "$(tail -n 3 <<<"$out")"
    else
        k=$(q -d "$db" -c "SELECT count(*) FROM su.o WHERE substr(id_new::text, 15, 1) = '7'")
        where=$(q -d "$db" -c "SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'chronoid'")
        ok_if "byname/none: run installs chronoid into a schema dbo cannot rename, and gives every row a UUIDv7" \
            '[ $rc -eq 0 ] && [ "$k" = 2000 ] && [ "$where" = chronoid ]' \
            "rows with a UUIDv7: $k; chronoid in schema $where" "$(tail -n 3 <<<"$out")"
    fi
    roles_reset
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
}

# --- issue 21's reproductions, as written ----------------------------------------
repro() {
    local db=priv_repro out rc
    newdb "$db" >/dev/null || { not_ok "repro: a database"; return; }
    q -d "$db" -c "CREATE SCHEMA evil AUTHORIZATION evil; CREATE SCHEMA kid AUTHORIZATION kid; GRANT USAGE ON SCHEMA evil TO kid" >/dev/null
    # 1. A BEFORE UPDATE trigger that makes its owner a superuser when it can.
    q -d "$db" -c "CREATE TABLE evil.orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
        INSERT INTO evil.orders (n) SELECT g FROM generate_series(1, 10) g; ALTER TABLE evil.orders OWNER TO evil" >/dev/null
    as evil "$db" "CREATE FUNCTION evil.up() RETURNS trigger LANGUAGE plpgsql AS \$\$BEGIN
          IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN ALTER ROLE evil SUPERUSER; END IF;
          RETURN NEW; END\$\$;
        CREATE TRIGGER up BEFORE UPDATE ON evil.orders FOR EACH ROW EXECUTE FUNCTION evil.up()" >/dev/null
    out=$(mig run --table evil.orders --to uuidv7 --no-progress -d "dbname=$db"); rc=$?
    check "issue 21 #1: run on evil.orders with a BEFORE UPDATE trigger leaves evil unprivileged (run: exit $rc)" \
        "$(qs "SELECT rolsuper FROM pg_roles WHERE rolname = 'evil'")" f
    diag "#1 run said: $(tail -n 1 <<<"$out")"
    roles_reset
    mig rollback --table evil.orders -d "dbname=$db" >/dev/null
    # 2. After a clean run, the child's owner puts a domain on order_id_new and writes a row.
    q -d "$db" -c "DROP TRIGGER up ON evil.orders;
        CREATE TABLE evil.items (k serial PRIMARY KEY, order_id uuid REFERENCES evil.orders);
        INSERT INTO evil.items (order_id) SELECT id FROM evil.orders; ALTER TABLE evil.items OWNER TO kid;
        GRANT REFERENCES (id) ON evil.orders TO kid" >/dev/null
    out=$(mig run --table evil.orders --to uuidv7 --no-progress -d "dbname=$db"); rc=$?
    out2=$(as kid "$db" "CREATE FUNCTION kid.f(uuid) RETURNS boolean LANGUAGE plpgsql AS \$\$BEGIN
          IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN ALTER ROLE kid SUPERUSER; END IF;
          RETURN true; END\$\$;
        CREATE DOMAIN kid.d AS uuid CHECK (kid.f(VALUE));
        ALTER TABLE evil.items ALTER COLUMN order_id_new TYPE kid.d;
        INSERT INTO evil.items (order_id) VALUES ('$(q -d "$db" -c "SELECT id FROM evil.orders LIMIT 1")')")
    check "issue 21 #2: a domain on items.order_id_new after a clean run, and one row written by kid, leave kid unprivileged (run: exit $rc)" \
        "$(qs "SELECT rolsuper FROM pg_roles WHERE rolname = 'kid'")" f
    [ -n "$out2" ] && diag "#2 kid's statements said: $out2"
    roles_reset
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
    # 3. from-extension on pgx_ulid with a CHECK that calls evil's function.
    db=priv_repro3
    newdb "$db" >/dev/null && q -d "$db" -c "CREATE EXTENSION ulid SCHEMA public; CREATE SCHEMA evil AUTHORIZATION evil" >/dev/null
    q -d "$db" -c "CREATE TABLE evil.u (id public.ulid PRIMARY KEY DEFAULT public.gen_ulid(), n int);
        INSERT INTO evil.u (n) SELECT g FROM generate_series(1, 10) g; ALTER TABLE evil.u OWNER TO evil" >/dev/null
    [ "$(q -d "$db" -c "SELECT count(*) FROM evil.u")" = 10 ] || not_ok "issue 21 #3: its table on pgx_ulid's type"
    as evil "$db" "CREATE FUNCTION evil.f(int) RETURNS boolean LANGUAGE plpgsql AS \$\$BEGIN
          IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN ALTER ROLE evil SUPERUSER; END IF;
          RETURN true; END\$\$;
        ALTER TABLE evil.u ADD CONSTRAINT c CHECK (id IS NOT NULL AND evil.f(n))" >/dev/null
    out=$(mig from-extension pgx_ulid -d "dbname=$db"); rc=$?
    check "issue 21 #3: from-extension pgx_ulid with CHECK (id IS NOT NULL AND evil.f(n)) leaves evil unprivileged (exit $rc)" \
        "$(qs "SELECT rolsuper FROM pg_roles WHERE rolname = 'evil'")" f
    diag "#3 from-extension said: $(tail -n 1 <<<"$out")"
    roles_reset
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
}

# --- a database whose owner sets the sessions' role ---------------------------------
dborole_case() {
    local db=priv_dborole out rc off sub
    newdb "$db" || { not_ok "dborole: a database"; return; }
    out=$(as dbo "$db" "ALTER DATABASE $db SET role = dbo"); rc=$?
    diag "dborole: ALTER DATABASE $db SET role = dbo by its owner: exit $rc $out"
    q -d "$db" -c "SET ROLE NONE; CREATE TABLE shop.o_r (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int, note text);
        INSERT INTO shop.o_r (n) SELECT g FROM generate_series(1, 12) g; ALTER TABLE shop.o_r OWNER TO evil" >/dev/null
    as evil "$db" "CREATE TRIGGER dborole_trg BEFORE UPDATE ON shop.o_r FOR EACH ROW EXECUTE FUNCTION evil_s.trg('dborole_trg')" >/dev/null
    for sub in plan run rollback; do
        off=$(logsize)
        out=$(mig "$sub" --table shop.o_r $([ "$sub" = rollback ] || echo --to uuidv7) --no-progress -d "dbname=$db"); rc=$?
        verdict "dborole/$sub (exit $rc)" "$db" "$off"
        [ $rc -ne 0 ] && diag "dborole: $sub: exit $rc: $(tail -n 2 <<<"$out")"
    done
    check "dborole: every row still there" "$(q -d "$db" -c "SELECT count(*) FROM shop.o_r")" 12
    "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
}

# --- both modes ----------------------------------------------------------------------
first=1
for mode in $modes; do
    t0=$SECONDS
    if [ "$mode" = preload ]; then
        pgc_restart "shared_preload_libraries = 'chronoid'" || { not_ok "$mode: restart with chronoid preloaded"; continue; }
    elif [ -z "$first" ]; then
        pgc_restart "shared_preload_libraries = ''" || { not_ok "$mode: restart"; continue; }
    fi
    qs_open -d postgres || bail "$mode: a session for the superuser's checks"
    first=
    TAP_PREFIX="$mode: "   # every case name carries the mode
    diag "=== mode $mode"
    # uuidv7: a pair per group; ulid and snowflake: every hook expected to
    # move, on one pair.  kid may read the parents' keys (noselect_case: not).
    for to in uuidv7 ulid snowflake; do
        db=priv_$to
        rm -f "$work/$db.hooks" "$work/$db.select"
        if ! out=$(newdb "$db" select); then
            not_ok "$mode/$to: a database owned by dbo with its hooks" "$out"
            continue
        fi
        if [ "$to" = uuidv7 ]; then
            # In an order drawn from the seed.
            groups=$(awk -F'|' 'NF > 1 && $2 != "db" {print $3}' <<<"$HOOKS" | awk '!s[$0]++' |
                shuf --random-source=<(yes "$seed"))
        else
            groups=all
        fi
        for g in $groups; do
            pair "$db" "$g" "$to"
            expect_rows "$db" "$g" "$to"
        done
        if [ "$to" = uuidv7 ]; then
            serial_case "$db" kid refused
            serial_case "$db" evil moved
        fi
        expect_db_rows "$db" "$to"
        "$PGC_BIN/dropdb" "$db" >/dev/null 2>&1
    done
    fx_case pg_uuidv7
    fx_case pgx_ulid
    if [ "$mode" = plain ]; then fx_case pgedge; else skip "fx/pgedge" "chronoid is preloaded: pgEdge's library cannot load beside it"; fi
    fx_untrusted_case
    byname_case public
    byname_case none
    dborole_case
    noselect_case
    repro
    diag "mode $mode: $((SECONDS - t0)) s"
done

tap_done
