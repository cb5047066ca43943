-- Least privilege and safe installation: snowflake.node is superuser-only,
-- every SQL/PL/pgSQL function pins search_path, SECURITY DEFINER only with
-- a reason, the extension's functions ignore objects planted early on the
-- caller's search_path, and convert_sequence_to_snowflake needs ownership
-- of everything it changes.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- 1. Only a superuser can set snowflake.node, by any route.  (Until the
-- module is loaded in a session the name is an unchecked placeholder; the
-- module drops a placeholder value set without the privilege when it
-- loads, with a WARNING, before any snowflake function runs.  Load it
-- here, as preloading does at server start.)
SELECT snowflake.get_node(0) AS module_loaded;
SELECT name, context FROM pg_settings WHERE name = 'snowflake.node';
SET snowflake.node = 5;
CREATE ROLE chronoid_sec_user;
SET ROLE chronoid_sec_user;
SELECT regress.err('SET snowflake.node = 6');
SELECT regress.err('SET LOCAL snowflake.node = 6');
SELECT regress.err('RESET snowflake.node');
SELECT regress.err($$SELECT set_config('snowflake.node', '6', false)$$);
SELECT regress.err($$SELECT set_config('snowflake.node', '6', true)$$);
SELECT regress.err('ALTER ROLE chronoid_sec_user SET snowflake.node = 6');
SELECT regress.err('ALTER ROLE chronoid_sec_user IN DATABASE ' || quote_ident(current_database()) || ' SET snowflake.node = 6');
SELECT regress.err('ALTER DATABASE ' || quote_ident(current_database()) || ' SET snowflake.node = 6');
ALTER SYSTEM SET snowflake.node = 6;
-- Nor through a function's SET clause.
SELECT regress.err($$CREATE FUNCTION pg_temp.as_node_6() RETURNS int8 LANGUAGE sql
	SET snowflake.node = 6 AS 'SELECT snowflake.nextval()'$$);
SHOW snowflake.node;
-- The node registry's admin functions are not for PUBLIC.
SELECT regress.err('SELECT snowflake.claim_node(9)');
SELECT regress.err('SELECT snowflake.release_node(5)');
RESET ROLE;
-- A superuser may give a role the node (ALTER ROLE ... SET is refused
-- for the role itself above, allowed here).
ALTER ROLE chronoid_sec_user SET snowflake.node = 6;
SELECT setconfig FROM pg_db_role_setting WHERE setrole = 'chronoid_sec_user'::regrole;
ALTER ROLE chronoid_sec_user RESET snowflake.node;

-- 2. Every SQL and PL/pgSQL function pins search_path (list must be empty).
SELECT p.oid::regprocedure AS unpinned
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
 WHERE l.lanname NOT IN ('c', 'internal')
   AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c = 'search_path=pg_catalog, pg_temp')
 ORDER BY p.oid::regprocedure::text;
SELECT l.lanname, count(*) AS functions,
       count(*) FILTER (WHERE 'search_path=pg_catalog, pg_temp' = ANY (p.proconfig)) AS pinned
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
 GROUP BY 1 ORDER BY 1;

-- 3. SECURITY DEFINER: only snowflake.check_node(), which snowflake.nextval()
-- runs to record this server's claim of its node in a table PUBLIC may
-- only read; it takes no argument (the node is the module's own
-- superuser-only GUC: the function is C, so calling it loads the module)
-- and pins search_path.
SELECT p.oid::regprocedure AS security_definer, p.proconfig,
       pg_get_userbyid(p.proowner) = 'postgres' AS owned_by_bootstrap_superuser
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
 WHERE p.prosecdef
 ORDER BY p.oid::regprocedure::text;
-- Functions PUBLIC may not execute.
SELECT p.oid::regprocedure AS not_for_public
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
 WHERE NOT has_function_privilege('chronoid_sec_user', p.oid, 'EXECUTE')
 ORDER BY p.oid::regprocedure::text;

-- 4. search_path attack: an unprivileged role plants look-alikes of the
-- catalog functions the extension's SQL calls, a sequence named like
-- snowflake's, and an always-true = for ulid, in a schema that the victim
-- (a superuser) puts first on its search_path, ahead of pg_catalog.  Each
-- planted function records that it ran.
CREATE ROLE chronoid_sec_evil;
CREATE SCHEMA evil AUTHORIZATION chronoid_sec_evil;
SET ROLE chronoid_sec_evil;
CREATE TABLE evil.calls (fn text);
GRANT INSERT, SELECT ON evil.calls TO PUBLIC;
CREATE FUNCTION evil.nextval(regclass) RETURNS int8 LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('nextval') RETURNING 666::int8 $$;
CREATE FUNCTION evil.setval(regclass, int8, bool) RETURNS int8 LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('setval') RETURNING 666::int8 $$;
CREATE FUNCTION evil.to_regclass(text) RETURNS regclass LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('to_regclass') RETURNING 'pg_class'::regclass $$;
CREATE FUNCTION evil.format(text, text, text) RETURNS text LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('format') RETURNING 'SELECT 1' $$;
CREATE FUNCTION evil.format(text, regclass, name) RETURNS text LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('format') RETURNING 'SELECT 1' $$;
CREATE FUNCTION evil.quote_ident(text) RETURNS text LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('quote_ident') RETURNING 'x' $$;
CREATE FUNCTION evil.pg_get_expr(pg_node_tree, oid) RETURNS text LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('pg_get_expr') RETURNING 'nothing' $$;
CREATE FUNCTION evil.array_length(anyarray, int4) RETURNS int4 LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('array_length') RETURNING 0 $$;
CREATE FUNCTION evil.current_setting(text) RETURNS text LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('current_setting') RETURNING '1' $$;
CREATE FUNCTION evil.current_setting(text, bool) RETURNS text LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('current_setting') RETURNING '1' $$;
CREATE FUNCTION evil.current_database() RETURNS name LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('current_database') RETURNING 'evil'::name $$;
CREATE FUNCTION evil.clock_timestamp() RETURNS timestamptz LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('clock_timestamp') RETURNING '1999-01-01'::timestamptz $$;
CREATE FUNCTION evil.oideq(oid, oid) RETURNS bool LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('= oid') RETURNING false $$;
CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = evil.oideq);
CREATE FUNCTION evil.ulideq(ulid, ulid) RETURNS bool LANGUAGE sql
	AS $$ INSERT INTO evil.calls VALUES ('= ulid') RETURNING true $$;
CREATE OPERATOR evil.= (LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = evil.ulideq);
CREATE SEQUENCE evil.id_seq;
RESET ROLE;

CREATE TABLE sec_orders (id serial PRIMARY KEY, item text);
CREATE TABLE sec_lines (order_id int4 REFERENCES sec_orders, n int4);
CREATE TABLE sec_ulids (id ulid PRIMARY KEY);
SET search_path = evil, pg_catalog, public;
SELECT snowflake.convert_sequence_to_snowflake('public.sec_orders_id_seq') AS changes;
SELECT pg_catalog.textregexeq(public.chronoid_version(), '^[0-9]+\.[0-9]+\.[0-9]+$') AS version_shape;
SELECT snowflake.get_node(snowflake.nextval()) AS node_from_default_seq;
INSERT INTO public.sec_ulids VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV');
-- The unique index uses the extension's operator class, not evil.=: a
-- new value goes in, the same one again is a duplicate.  (Run directly,
-- not through a helper whose own operators the path could redirect.)
INSERT INTO public.sec_ulids VALUES ('01GV5PA9EQG7D82Q3Y4PKBZSYV');
INSERT INTO public.sec_ulids VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV');
RESET search_path;
-- Nothing planted ran; the conversion did the right thing.
SELECT count(*) AS planted_calls FROM evil.calls;
SELECT a.attrelid::regclass AS tab, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       pg_get_expr(ad.adbin, ad.adrelid) AS default_expr
  FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
 WHERE a.attrelid IN ('sec_orders'::regclass, 'sec_lines'::regclass) AND a.attnum > 0
 ORDER BY 1, a.attnum;
SELECT last_value, is_called FROM evil.id_seq;
SELECT count(*) AS rows FROM sec_ulids;
DROP TABLE sec_lines, sec_orders, sec_ulids;

-- 5. convert_sequence_to_snowflake changes only what the caller owns: a
-- sequence owner cannot convert someone else's table that uses it, nor
-- widen a foreign key of someone else's table; nothing changes.
CREATE ROLE chronoid_sec_victim;
SET ROLE chronoid_sec_evil;
CREATE SEQUENCE evil.shared_seq AS int4;
GRANT USAGE ON SCHEMA evil TO chronoid_sec_victim;
GRANT USAGE ON SEQUENCE evil.shared_seq TO chronoid_sec_victim;
CREATE TABLE evil.parent (id serial PRIMARY KEY);
GRANT REFERENCES ON evil.parent TO chronoid_sec_victim;
RESET ROLE;
CREATE TABLE sec_victim (id int4 PRIMARY KEY DEFAULT nextval('evil.shared_seq'));
CREATE TABLE sec_child (parent_id int4 REFERENCES evil.parent);
ALTER TABLE sec_victim OWNER TO chronoid_sec_victim;
ALTER TABLE sec_child OWNER TO chronoid_sec_victim;
SET ROLE chronoid_sec_evil;
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('evil.shared_seq')$$);
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('evil.parent_id_seq')$$);
RESET ROLE;
SELECT a.attrelid::regclass AS tab, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       pg_get_expr(ad.adbin, ad.adrelid) AS default_expr
  FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
 WHERE a.attrelid IN ('sec_victim'::regclass, 'sec_child'::regclass, 'evil.parent'::regclass)
   AND a.attnum > 0
 ORDER BY 1, a.attnum;
SELECT seqrelid::regclass AS seq, format_type(seqtypid, NULL) AS type
  FROM pg_sequence WHERE seqrelid IN ('evil.shared_seq'::regclass, 'evil.parent_id_seq'::regclass)
 ORDER BY 1;

DROP TABLE sec_victim, sec_child;
SET client_min_messages = warning;
DROP SCHEMA evil CASCADE;
RESET client_min_messages;
DELETE FROM snowflake.node_registry WHERE node = 5;
DROP ROLE chronoid_sec_user, chronoid_sec_evil, chronoid_sec_victim;
RESET snowflake.node;
