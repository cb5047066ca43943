#!/usr/bin/env bash
# lease_security.sh — an ordinary role attacks a superuser who runs
# `chronoid lease` (and `chronoid bench-pk`) in a database the role owns:
# look-alikes of every function and operator the libpq code uses, planted
# in public and put first on the database's search_path, must never run;
# a schema or lease table someone else created first (with a trigger, the
# wrong shape) is refused, naming its owner; every connection pins its
# search path before anything else (server log, log_statement = all);
# `lease list` prints nothing on stdout when it fails.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
scenario_needs server root


. scripts/pgcluster.sh
if ! pgc_start "log_statement = 'all'" "log_line_prefix = '%c %a '" >/dev/null; then
    bail "start a throwaway PostgreSQL cluster"
fi
super="dbname=victim"   # the superuser (postgres) connecting to the attacker's database
pwned() { q -d victim -c "SELECT CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = 'attacker') THEN 't' ELSE 'f' END || ' ' || (SELECT count(*) FROM public.pwn_log)"; }

# --- The attacker's database, public schema and search_path ------------------
q -d postgres -c "CREATE ROLE attacker LOGIN" -c "CREATE DATABASE victim OWNER attacker" >/dev/null
# Every function a planted look-alike may replace records itself and tries
# to make the attacker a superuser (which works only when a superuser runs it).
q -d victim -U attacker >"$PGC_DIR/plant.log" <<'SQL'
CREATE TABLE public.pwn_log (what text, at timestamptz DEFAULT pg_catalog.now());
GRANT INSERT ON public.pwn_log TO PUBLIC;
CREATE FUNCTION public.pwn(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.pwn_log (what) VALUES (what);
    BEGIN
        EXECUTE 'ALTER ROLE attacker SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
END $$;
CREATE FUNCTION public.mul(a bigint, b interval) RETURNS interval LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('* (bigint, interval)'); RETURN a * b; END $$;
CREATE OPERATOR public.* (LEFTARG = bigint, RIGHTARG = interval, FUNCTION = public.mul);
CREATE FUNCTION public.tsplus(a timestamptz, b interval) RETURNS timestamptz LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('+ (timestamptz, interval)'); RETURN a OPERATOR(pg_catalog.+) b; END $$;
CREATE OPERATOR public.+ (LEFTARG = timestamptz, RIGHTARG = interval, FUNCTION = public.tsplus);
CREATE FUNCTION public.tsge(a timestamptz, b timestamptz) RETURNS boolean LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('>= (timestamptz)'); RETURN a OPERATOR(pg_catalog.>=) b; END $$;
CREATE OPERATOR public.>= (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.tsge);
CREATE FUNCTION public.txteq(a text, b text) RETURNS boolean LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('= (text)'); RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.txteq);
CREATE FUNCTION public.inteq(a int, b int) RETURNS boolean LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('= (int)'); RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE OPERATOR public.= (LEFTARG = int, RIGHTARG = int, FUNCTION = public.inteq);
CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('clock_timestamp()'); RETURN pg_catalog.clock_timestamp(); END $$;
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('now()'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION public.generate_series(a int, b int) RETURNS SETOF int LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('generate_series(int, int)'); RETURN QUERY SELECT pg_catalog.generate_series(a, b); END $$;
CREATE FUNCTION public.hashtext(t text) RETURNS int LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('hashtext(text)'); RETURN pg_catalog.hashtext(t); END $$;
CREATE FUNCTION public.pg_advisory_xact_lock(k int) RETURNS void LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('pg_advisory_xact_lock(int)'); PERFORM pg_catalog.pg_advisory_xact_lock(k); END $$;
CREATE FUNCTION public.to_regclass(t text) RETURNS regclass LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('to_regclass(text)'); RETURN pg_catalog.to_regclass(t); END $$;
CREATE FUNCTION public.to_char(t timestamp, f text) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('to_char(timestamp, text)'); RETURN pg_catalog.to_char(t, f); END $$;
CREATE FUNCTION public.set_config(a text, b text, c boolean) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('set_config'); RETURN pg_catalog.set_config(a, b, c); END $$;
CREATE FUNCTION public.format(f text, a text, b text) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('format(text, text, text)'); RETURN f; END $$;
CREATE FUNCTION public.current_setting(a text) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN PERFORM public.pwn('current_setting(text)'); RETURN pg_catalog.current_setting(a); END $$;
-- The database's sessions search public first, ahead of pg_catalog.
ALTER DATABASE victim SET search_path = public, pg_catalog;
SQL
ok_if "setup: the attacker owns public and the database's search_path puts it first" \
    '[ "$(q -d victim -c "SHOW search_path")" = "public, pg_catalog" ] && [ "$(pwned)" = "f 0" ]' "$(pwned)" "$(cat "$PGC_DIR/plant.log")"
# The planted objects do work: a superuser using them unqualified escalates.
q -d victim -c "SELECT clock_timestamp()" >/dev/null
ok_if "control: an unqualified call by a superuser does run the planted function (and escalates)" \
    '[ "$(pwned)" = "t 1" ]' "$(pwned)"
q -d victim -c "TRUNCATE public.pwn_log" -c "ALTER ROLE attacker NOSUPERUSER" >/dev/null

# --- Every lease subcommand, run by the superuser ------------------------------
out=$("$bin" lease init --conninfo "$super" 2>&1); rc=$?
ok_if "lease init in the attacker's database (as superuser)" '[ $rc -eq 0 ]' "rc=$rc $out"
read -r node tok < <("$bin" lease acquire --conninfo "$super" 2>&1)
ok_if "lease acquire" '[ -n "$tok" ]' "node=$node tok=$tok"
out=$("$bin" lease renew "$tok" --node "$node" --conninfo "$super" 2>&1); r1=$?
out2=$("$bin" lease list --conninfo "$super" 2>&1); r2=$?
out3=$("$bin" lease release "$tok" --node "$node" --conninfo "$super" 2>&1); r3=$?
out4=$("$bin" lease run --conninfo "$super" -- true 2>&1); r4=$?
ok_if "lease renew, list, release, run" '[ "$r1$r2$r3$r4" = 0000 ]' "$r1 $out" "$r2 $out2" "$r3 $out3" "$r4 $out4"
ok_if "no planted function or operator ran, and the attacker is no superuser" '[ "$(pwned)" = "f 0" ]' \
    "$(pwned)" "$(q -d victim -c "SELECT string_agg(DISTINCT what, ', ') FROM public.pwn_log")"

# bench-pk in the same database (its own schema; built-in keys)
out=$("$bin" bench-pk --conninfo "$super" --keys bigserial,uuidv4 --rows 500 --clients 1 --out "$PGC_DIR/bpk" 2>&1); rc=$?
ok_if "bench-pk in the attacker's database: runs, and nothing planted ran" '[ $rc -eq 0 ] && [ "$(pwned)" = "f 0" ]' \
    "rc=$rc $(tail -n 3 <<<"$out")" "$(pwned)" "$(q -d victim -c "SELECT string_agg(DISTINCT what, ', ') FROM public.pwn_log")"

# --- Every connection's first statement pins the search path ------------------
# log_line_prefix '%c %a ': session id, application name.
log=$PGC_LOG
firsts=$(awk '($2 == "chronoid-lease" || $2 == "chronoid-bench-pk") && /LOG:  (statement|execute [^:]*):/ {
                 if (!($1 in seen)) { seen[$1] = 1; sub(/^.*LOG:  (statement|execute [^:]*): /, ""); print } }' "$log")
nsess=$(grep -c . <<<"$firsts")
bad=$(grep -v -c -F "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)" <<<"$firsts")
ok_if "every one of the $nsess lease and bench-pk sessions pins search_path first" \
    '[ "$nsess" -ge 8 ] && [ "$bad" -eq 0 ]' "$(grep -v -F "set_config('search_path'" <<<"$firsts" | head -n 5)"

# --- Objects someone else created first ----------------------------------------
q -d postgres -c "CREATE DATABASE victim2 OWNER attacker" >/dev/null
q -d victim2 -U attacker >/dev/null <<'SQL'
CREATE TABLE public.pwn_log (what text);
GRANT INSERT ON public.pwn_log TO PUBLIC;
CREATE FUNCTION public.trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.pwn_log VALUES ('trigger');
    BEGIN EXECUTE 'ALTER ROLE attacker SUPERUSER'; EXCEPTION WHEN OTHERS THEN NULL; END;
    RETURN NEW;
END $$;
CREATE SCHEMA chronoid;
CREATE TABLE chronoid.node_lease (node int PRIMARY KEY CHECK (node >= 0), holder text NOT NULL,
    owner text, acquired_at timestamptz, renewed_at timestamptz, expires_at timestamptz NOT NULL,
    last_ms bigint, ttl_ms bigint NOT NULL DEFAULT 0);
CREATE TRIGGER trg BEFORE INSERT OR UPDATE ON chronoid.node_lease FOR EACH ROW EXECUTE FUNCTION public.trg();
SQL
out=$("$bin" lease init --conninfo "dbname=victim2" 2>&1); rc=$?
out2=$("$bin" lease acquire --conninfo "dbname=victim2" 2>&1); rc2=$?
ok_if "a schema the attacker created first: init and acquire refused, naming the owner" \
    '[ $rc -ne 0 ] && [ $rc2 -ne 0 ] && [[ $out == *"schema chronoid is owned by attacker"* ]] && [[ $out2 == *"owned by attacker"* ]]' \
    "rc=$rc $out" "rc=$rc2 $out2"
ok_if "its trigger never ran" '[ "$(q -d victim2 -c "SELECT count(*) FROM public.pwn_log")" = 0 ] &&
    [ "$(q -d victim2 -c "SELECT rolsuper FROM pg_roles WHERE rolname = '"'attacker'"'")" = f ]'

# A trusted schema, but a table the attacker created in it (CREATE granted).
q -d victim2 -c "DROP SCHEMA chronoid CASCADE" -c "CREATE SCHEMA chronoid" -c "GRANT CREATE, USAGE ON SCHEMA chronoid TO attacker" >/dev/null
q -d victim2 -U attacker -c "CREATE TABLE chronoid.node_lease (node int PRIMARY KEY CHECK (node >= 0), holder text NOT NULL,
    owner text, acquired_at timestamptz, renewed_at timestamptz, expires_at timestamptz NOT NULL,
    last_ms bigint, ttl_ms bigint NOT NULL DEFAULT 0)" \
    -c "CREATE TRIGGER trg BEFORE INSERT OR UPDATE ON chronoid.node_lease FOR EACH ROW EXECUTE FUNCTION public.trg()" >/dev/null
out=$("$bin" lease acquire --conninfo "dbname=victim2" 2>&1); rc=$?
ok_if "a table the attacker created in a trusted schema: refused, naming the owner; the trigger never ran" \
    '[ $rc -ne 0 ] && [[ $out == *"table chronoid.node_lease is owned by attacker"* ]] && [ "$(q -d victim2 -c "SELECT count(*) FROM public.pwn_log")" = 0 ]' \
    "rc=$rc $out"

# A superuser's own table, with a trigger, or the wrong shape.
q -d victim2 -c "DROP TABLE chronoid.node_lease" -c "CREATE TABLE chronoid.node_lease (node int PRIMARY KEY CHECK (node >= 0), holder text NOT NULL,
    owner text, acquired_at timestamptz, renewed_at timestamptz, expires_at timestamptz NOT NULL,
    last_ms bigint, ttl_ms bigint NOT NULL DEFAULT 0)" \
    -c "CREATE TRIGGER trg BEFORE INSERT ON chronoid.node_lease FOR EACH ROW EXECUTE FUNCTION public.trg()" >/dev/null
out=$("$bin" lease acquire --conninfo "dbname=victim2" 2>&1); rc=$?
ok_if "a lease table with a trigger is refused, naming it" '[ $rc -ne 0 ] && [[ $out == *"has triggers (trg)"* ]]' "rc=$rc $out"
q -d victim2 -c "DROP TABLE chronoid.node_lease" -c "CREATE TABLE chronoid.node_lease (node int PRIMARY KEY, holder text NOT NULL,
    owner text, acquired_at timestamptz, renewed_at timestamptz, expires_at text NOT NULL,
    last_ms bigint, ttl_ms bigint NOT NULL DEFAULT 0)" >/dev/null
out=$("$bin" lease init --conninfo "dbname=victim2" 2>&1); rc=$?
ok_if "a lease table of the wrong shape is refused, naming its columns" '[ $rc -ne 0 ] && [[ $out == *"expires_at text"* ]]' "rc=$rc $out"
q -d victim2 -c "DROP SCHEMA chronoid CASCADE" >/dev/null
out=$("$bin" lease init --conninfo "dbname=victim2" 2>&1); rc=$?
out2=$("$bin" lease init --conninfo "dbname=victim2" 2>&1); rc2=$?
read -r node tok < <("$bin" lease acquire --conninfo "dbname=victim2" 2>&1)
ok_if "init creates its own schema and table, again is a no-op, acquire works" \
    '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ -n "$tok" ]' "rc=$rc $out" "rc=$rc2 $out2" "node=$node tok=$tok"

# --- lease list: nothing on stdout when it fails -----------------------------
so=$("$bin" lease list --conninfo "host=$PGC_DIR/nonexistent port=1 connect_timeout=2" 2>/dev/null); rc=$?
ok_if "lease list that cannot connect: exit 1 and nothing on stdout" '[ $rc -eq 1 ] && [ -z "$so" ]' "rc=$rc stdout: $so"

tap_done
