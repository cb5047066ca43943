-- chronoid 0.1.0 -> 0.2.0: one snowflake ID space per database, a claim in
-- the node registry only for the node the server really uses, without
-- blocking other sessions (docs/postgresql.md, CHANGELOG).

\echo Use "ALTER EXTENSION chronoid UPDATE TO '0.2.0'" to load this file. \quit

CREATE OR REPLACE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.2.0'::pg_catalog.text $$;

-- The ID space of this database: last_value is the last body (ms << 12 |
-- counter) issued from any sequence, WAL-logged up to a second ahead, so
-- no snowflake repeats across sequences, restarts and crashes.  Only
-- snowflake.nextval() writes it; nobody else needs any privilege on it.
CREATE SEQUENCE snowflake.node_mark AS pg_catalog.int8 INCREMENT BY 1 MINVALUE 0 CACHE 1;
COMMENT ON SEQUENCE snowflake.node_mark IS
	'high-water mark of every snowflake minted in this database (ms since 2023-01-01 << 12 | counter); written only by snowflake.nextval()';
REVOKE ALL ON SEQUENCE snowflake.node_mark FROM PUBLIC;
-- pg_dump keeps it, so a restored database never repeats an ID.
SELECT pg_catalog.pg_extension_config_dump('snowflake.node_mark', '');

-- Start the ID space above every snowflake 0.1.0 minted: the value of
-- snowflake.id_seq and of every sequence a column default passes to
-- snowflake.nextval() (0.1.0 kept each sequence's own mark in it).  A
-- value past the last body (a clock once past 2092 left it) marks nothing.
SELECT pg_catalog.setval('snowflake.node_mark'::pg_catalog.regclass, m, true)
  FROM (SELECT pg_catalog.max(v) AS m
		  FROM (SELECT s.last_value AS v FROM snowflake.id_seq s
				UNION ALL
				SELECT pg_catalog.pg_sequence_last_value(d.refobjid::pg_catalog.regclass)
				  FROM pg_catalog.pg_depend d
				  JOIN pg_catalog.pg_depend f
					ON f.classid OPERATOR(pg_catalog.=) d.classid
				   AND f.objid OPERATOR(pg_catalog.=) d.objid
				 WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_attrdef'::pg_catalog.regclass
				   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
				   AND f.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
				   AND f.refobjid OPERATOR(pg_catalog.=) 'snowflake.nextval(pg_catalog.regclass)'::pg_catalog.regprocedure
				   AND (SELECT c.relkind FROM pg_catalog.pg_class c
						 WHERE c.oid OPERATOR(pg_catalog.=) d.refobjid) OPERATOR(pg_catalog.=) 'S') AS x
		 WHERE v OPERATOR(pg_catalog.<=) 9007199254740991) AS y
 WHERE m OPERATOR(pg_catalog.>) 0;

COMMENT ON SEQUENCE snowflake.id_seq IS
	'default sequence of snowflake.nextval(); setval() forward sets a floor for its next ID';
COMMENT ON FUNCTION snowflake.nextval(pg_catalog.regclass) IS
	'next snowflake of a sequence (default snowflake.id_seq), unique across all sequences of the database; needs snowflake.node';

-- The registry logic for snowflake.check_node(): raises when an earlier
-- claim of p_node by another server is visible, else (p_insert) records
-- this server's claim.  True when the claim was already there
-- (committed), false when it was made now or could not be.  Not for
-- PUBLIC: the node must come from the module's own snowflake.node.
CREATE FUNCTION snowflake.register_node(p_node pg_catalog.int4, p_insert pg_catalog.bool)
RETURNS pg_catalog.bool
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
	v_sysid int8;
	v_mine snowflake.node_registry;
	v_other snowflake.node_registry;
BEGIN
	SELECT c.system_identifier INTO v_sysid FROM pg_control_system() c;
	SELECT * INTO v_mine FROM snowflake.node_registry r
	 WHERE r.node = p_node AND r.system_identifier = v_sysid;
	-- Of two claims the earlier wins (ties: the smaller identifier), so
	-- both servers of a race reach the same verdict.
	SELECT * INTO v_other FROM snowflake.node_registry r
	 WHERE r.node = p_node AND r.system_identifier <> v_sysid
	   AND (v_mine.node IS NULL
			OR (r.claimed_at, r.system_identifier) < (v_mine.claimed_at, v_mine.system_identifier))
	 ORDER BY r.claimed_at, r.system_identifier
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'snowflake node % is already claimed by server "%" (system identifier %)',
			p_node, v_other.server, v_other.system_identifier
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = format('Server "%s" (system identifier %s, database %s) claimed node %s at %s; this server is "%s" (system identifier %s)%s.  IDs minted by both would collide.',
								  v_other.server, v_other.system_identifier, v_other.database, p_node,
								  v_other.claimed_at, snowflake.server_label(), v_sysid,
								  CASE WHEN v_mine.node IS NULL THEN ''
									   ELSE format(', whose own claim of %s is later', v_mine.claimed_at) END),
				  HINT = 'Set snowflake.node to a free number (SELECT snowflake.claim_node(...) on the node that coordinates the registry returns one), or, if that server no longer mints under this number, run SELECT snowflake.release_node(' || p_node || ') there first.';
	END IF;
	IF v_mine.node IS NOT NULL THEN
		RETURN true;
	END IF;
	IF NOT p_insert OR pg_catalog.current_setting('transaction_read_only')::bool THEN
		RETURN false;
	END IF;
	INSERT INTO snowflake.node_registry (node, system_identifier, database, server, claimed_at)
	VALUES (p_node, v_sysid, pg_catalog.current_database(), snowflake.server_label(),
			pg_catalog.clock_timestamp())
	ON CONFLICT DO NOTHING;
	RETURN false;
END
$fn$;
REVOKE EXECUTE ON FUNCTION snowflake.register_node(pg_catalog.int4, pg_catalog.bool) FROM PUBLIC;
COMMENT ON FUNCTION snowflake.register_node(pg_catalog.int4, pg_catalog.bool) IS
	'internal to snowflake.check_node(): verify a node claim and record this server''s';

-- Run by snowflake.nextval() the first time a backend mints under a
-- number (and every 10 s after).  C, so that calling it loads the module
-- and the node it registers is the value the server really uses (never a
-- placeholder an ordinary role set before the module was loaded).  It
-- records a claim only when no other session is recording one right now
-- (a conditional lock on snowflake.node_mark, which PUBLIC cannot take),
-- so a session idle in its transaction never blocks another's minting.
CREATE OR REPLACE FUNCTION snowflake.check_node()
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'snowflake_check_node'
LANGUAGE C VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION snowflake.check_node() IS
	'verify that no other server claimed snowflake.node earlier and register this server''s claim (run by snowflake.nextval())';
