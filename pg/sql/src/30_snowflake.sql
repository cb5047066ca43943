
-- ------------------------------------------------------------------------
-- Snowflake IDs, compatible with pgEdge snowflake 2.6: schema snowflake,
-- 41-bit ms since 2023-01-01 | 10-bit node (GUC snowflake.node) | 12-bit
-- counter.  Every sequence of a database draws from one ID space, whose
-- durable high-water mark is snowflake.node_mark (docs/postgresql.md).
-- ------------------------------------------------------------------------

CREATE SCHEMA snowflake;
COMMENT ON SCHEMA snowflake IS 'pgEdge-compatible snowflake IDs (chronoid)';
GRANT USAGE ON SCHEMA snowflake TO PUBLIC;

-- The ID space of this database: last_value is the last body (ms << 12 |
-- counter) issued from any sequence, WAL-logged up to a second ahead, so
-- no snowflake repeats across sequences, restarts and crashes.  Only
-- snowflake.nextval() writes it, and a restore's setval() (below).
CREATE SEQUENCE snowflake.node_mark AS pg_catalog.int8 INCREMENT BY 1 MINVALUE 0 CACHE 1;
COMMENT ON SEQUENCE snowflake.node_mark IS
	'high-water mark of every snowflake minted in this database (ms since 2023-01-01 << 12 | counter); written by snowflake.nextval(), raised by a restore';
REVOKE ALL ON SEQUENCE snowflake.node_mark FROM PUBLIC;
-- pg_dump keeps it, so a restored database never repeats an ID.
SELECT pg_catalog.pg_extension_config_dump('snowflake.node_mark', '');

-- The mark's guard: the highest mark snowflake.nextval() ever logged.  A
-- setval() that sets the mark back (a restore of an older dump into a
-- database that minted since, a mistake) moves the ID space forward only:
-- below the guard the mark is not believed.  Nobody but this module
-- writes it, and it is not dumped (a restored database starts from the
-- dumped mark).
CREATE SEQUENCE snowflake.node_mark_guard AS pg_catalog.int8 INCREMENT BY 1 MINVALUE 0 CACHE 1;
COMMENT ON SEQUENCE snowflake.node_mark_guard IS
	'highest mark snowflake.nextval() logged in snowflake.node_mark: a mark set back below it is not believed; written only by snowflake.nextval()';
REVOKE ALL ON SEQUENCE snowflake.node_mark_guard FROM PUBLIC;

CREATE SEQUENCE snowflake.id_seq AS pg_catalog.int8 INCREMENT BY 1 CACHE 1;
COMMENT ON SEQUENCE snowflake.id_seq IS
	'default sequence of snowflake.nextval(); setval() forward sets a floor for its next ID';
GRANT USAGE ON SEQUENCE snowflake.id_seq TO PUBLIC;
-- pg_dump keeps its state (as pgEdge's).
SELECT pg_catalog.pg_extension_config_dump('snowflake.id_seq', '');

-- pg_dump reads both sequences above (SELECT last_value, is_called), so a
-- role that may not read them cannot dump the database; its restore sets
-- them (setval()).  The database's owner (PostgreSQL 14+'s
-- pg_database_owner, whoever installed the extension) may read and set
-- both, so that its own pg_dump and pg_restore work: snowflake.id_seq is
-- only a floor for its own next ID (anyone may mint from it; moving it
-- back is harmless, forward is bounded by snowflake.max_run_ahead), and
-- the mark, set back, is held up by its guard, so the owner can only move
-- the ID space forward.  The registry's grant is after the table.
DO $grant$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) 'pg_database_owner') THEN
		GRANT SELECT, UPDATE ON SEQUENCE snowflake.node_mark TO pg_database_owner;
		GRANT SELECT, UPDATE ON SEQUENCE snowflake.id_seq TO pg_database_owner;
	END IF;
END
$grant$;

CREATE FUNCTION snowflake.nextval(pg_catalog.regclass DEFAULT 'snowflake.id_seq'::pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'chronoid_snowflake_nextval'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake.nextval(pg_catalog.regclass) IS
	'next snowflake of a sequence (default snowflake.id_seq), unique across all sequences of the database; needs snowflake.node';

CREATE FUNCTION snowflake.currval(pg_catalog.regclass DEFAULT 'snowflake.id_seq'::pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'chronoid_snowflake_currval'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake.currval(pg_catalog.regclass) IS
	'last snowflake snowflake.nextval() returned in this session for a sequence';

CREATE FUNCTION snowflake.get_epoch(pg_catalog.int8)
RETURNS pg_catalog.numeric
AS 'MODULE_PATHNAME', 'chronoid_snowflake_get_epoch'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.get_epoch(pg_catalog.int8) IS
	'time of a snowflake as Unix seconds with three decimals (for to_timestamp())';

CREATE FUNCTION snowflake.get_count(pg_catalog.int8)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'chronoid_snowflake_get_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.get_count(pg_catalog.int8) IS
	'counter of a snowflake within its millisecond (0 .. 4095)';

CREATE FUNCTION snowflake.get_node(pg_catalog.int8)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'chronoid_snowflake_get_node'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.get_node(pg_catalog.int8) IS
	'node number (snowflake.node) that minted a snowflake';

CREATE FUNCTION snowflake.to_timestamp(pg_catalog.int8)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_snowflake_to_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.to_timestamp(pg_catalog.int8) IS
	'time of a snowflake (millisecond precision)';

CREATE FUNCTION snowflake.from_timestamp(pg_catalog.timestamptz)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'chronoid_snowflake_from_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.from_timestamp(pg_catalog.timestamptz) IS
	'smallest snowflake of the millisecond holding a time, any node (for WHERE id >= ...)';

CREATE FUNCTION snowflake.format(pg_catalog.int8)
RETURNS pg_catalog.jsonb
AS 'MODULE_PATHNAME', 'chronoid_snowflake_format'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.format(pg_catalog.int8) IS
	'snowflake as jsonb: node (also under "id", as pgEdge prints it), ts (session TimeZone), count';

-- Switch the columns that take their default from a sequence to
-- snowflake.nextval() of that sequence, widening them and the foreign keys
-- that reference them to bigint.  Only DDL, never catalog edits; ALTER TABLE
-- checks that the caller owns each table.  As pgEdge 2.5+: every statement
-- is echoed as a NOTICE in pgEdge's words and order (per column "EXECUTE
-- ALTER TABLE ... SET DATA TYPE int8", then "EXECUTE ALTER TABLE ... SET
-- DEFAULT snowflake.nextval(...)"; the sequence's "ALTER SEQUENCE ... AS
-- bigint NO CYCLE MAXVALUE 9223372036854775807" last); errors carry
-- pgEdge's messages; the column that owns the sequence (serial, bigserial,
-- a former identity) must default to nextval() of it (or already to
-- snowflake.nextval() of it: nothing to do, where pgEdge raises), and the
-- count returned is the type changes, plus the defaults switched on
-- columns that do not own the sequence.
CREATE FUNCTION snowflake.convert_sequence_to_snowflake(p_seqid pg_catalog.regclass,
														 force pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.int4
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
	v_seqschema name;
	v_seqname name;
	v_seqqual text;
	v_last int8;
	v_called bool;
	v_changes int4 := 0;
	v_newseq regclass;
	v_cmd text;
	v_owner record;
	r record;
	w record;
	v_todo oid[] := '{}';
	v_todo_att int2[] := '{}';
	v_i int4;
	v_ndflt int4;
	v_incr int8;
BEGIN
	SELECT n.nspname, c.relname INTO v_seqschema, v_seqname
	  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE c.oid = p_seqid AND c.relkind = 'S';
	-- pgEdge's message for both (it has no SQLSTATE of its own); the
	-- DETAIL says which.
	IF NOT FOUND AND NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = p_seqid) THEN
		RAISE EXCEPTION 'Input value "%" is not a valid convertable sequence', p_seqid::oid
			USING ERRCODE = 'undefined_table',
				  DETAIL = format('No relation has OID %s.', p_seqid::oid);
	END IF;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'Input value "%" is not a valid convertable sequence', p_seqid::text
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = format('"%s" is not a sequence.', p_seqid::text);
	END IF;
	v_seqqual := format('%I.%I', v_seqschema, v_seqname);

	-- Identity columns: the sequence belongs to the column and only core
	-- nextval() may feed it; converting means dropping the identity.
	FOR r IN
		SELECT a.attrelid, a.attname, a.attidentity
		  FROM pg_depend d
		  JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
		 WHERE d.classid = 'pg_class'::regclass AND d.objid = p_seqid
		   AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'i'
		   AND a.attidentity <> ''
	LOOP
		IF NOT force THEN
			RAISE EXCEPTION 'sequence % belongs to identity column %.%',
				v_seqqual, r.attrelid::regclass::text, quote_ident(r.attname)
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = 'An identity column owns its sequence and takes values only from core nextval(); a DEFAULT of snowflake.nextval() needs the identity dropped.',
					  HINT = format('Call snowflake.convert_sequence_to_snowflake(%L, force => true) to drop the identity and keep the sequence as a standalone one owned by the column.', v_seqqual);
		END IF;

		-- Keep the sequence's name and position: read it, drop the
		-- identity (which drops its sequence), recreate it standalone.
		EXECUTE format('SELECT last_value, is_called FROM %s', v_seqqual)
			INTO v_last, v_called;
		SELECT s.seqincrement INTO v_incr FROM pg_sequence s WHERE s.seqrelid = p_seqid;
		v_cmd := format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY',
						r.attrelid::regclass::text, r.attname);
		RAISE NOTICE 'EXECUTE %', v_cmd;
		EXECUTE v_cmd;
		v_cmd := format('CREATE SEQUENCE %s AS bigint INCREMENT BY %s CACHE 1 OWNED BY %s.%I',
						v_seqqual, greatest(v_incr, 1), r.attrelid::regclass::text, r.attname);
		RAISE NOTICE 'EXECUTE %', v_cmd;
		EXECUTE v_cmd;
		v_newseq := to_regclass(v_seqqual);
		PERFORM pg_catalog.setval(v_newseq, greatest(v_last, 1), v_called);
		v_cmd := format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT pg_catalog.nextval(%L::pg_catalog.regclass)',
						r.attrelid::regclass::text, r.attname, v_seqqual);
		RAISE NOTICE 'EXECUTE %', v_cmd;
		EXECUTE v_cmd;
		p_seqid := v_newseq;
	END LOOP;

	-- The column that owns the sequence (OWNED BY: a serial's, or the
	-- former identity's), if any.  Its default must be nextval() of the
	-- sequence: a constant or no default there means the sequence is not
	-- what fills the column, and pgEdge refuses that too.  Already
	-- snowflake.nextval() of it: converted before, nothing to do there.
	SELECT a.attrelid, a.attnum, a.attname, c.relname, pg_get_expr(ad.adbin, ad.adrelid) AS dflt
	  INTO v_owner
	  FROM pg_depend d
	  JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
	  JOIN pg_class c ON c.oid = a.attrelid
	  LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
	 WHERE d.classid = 'pg_class'::regclass AND d.objid = p_seqid
	   AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'
	   AND d.refobjsubid > 0 AND NOT a.attisdropped;
	IF FOUND AND v_owner.dflt IS DISTINCT FROM format('nextval(%L::regclass)', v_seqqual)
			 AND v_owner.dflt IS DISTINCT FROM format('snowflake.nextval(%L::regclass)', v_seqqual) THEN
		-- pgEdge's message: the table's bare name, <NULL> for no default.
		RAISE EXCEPTION 'definition of DEFAULT value for column "%" of relation "%" does not correspond serial or bigserial type: "%"',
			v_owner.attname, v_owner.relname, v_owner.dflt
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN v_owner.dflt IS NULL
								THEN format('Sequence %s is owned by that column, which has no default.', v_seqqual)
								ELSE format('Sequence %s is owned by that column, whose default is %s, not nextval() of the sequence.',
											v_seqqual, v_owner.dflt) END,
				  HINT = format('Give the column its default back (ALTER TABLE %s ALTER COLUMN %I SET DEFAULT nextval(%L)), or detach the sequence (ALTER SEQUENCE %s OWNED BY NONE).',
								v_owner.attrelid::regclass::text, v_owner.attname, v_seqqual, v_seqqual);
	END IF;

	-- Every column whose default is core nextval() of this sequence, in
	-- pgEdge's order: widened to bigint if smallint or integer (a type
	-- change counts), then its default switched (counted on a column that
	-- does not own the sequence; pgEdge counts only the owning column's
	-- type change).
	FOR r IN
		SELECT ad.adrelid, a.attnum, a.attname, a.atttypid
		  FROM pg_attrdef ad
		  JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
		  JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
		 WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = p_seqid
		   AND pg_get_expr(ad.adbin, ad.adrelid) LIKE 'nextval(%'
		 ORDER BY ad.adrelid, a.attnum
	LOOP
		v_todo := v_todo || r.adrelid;
		v_todo_att := v_todo_att || r.attnum;
		IF r.atttypid IN ('int2'::regtype, 'int4'::regtype) THEN
			v_cmd := format('ALTER TABLE %s ALTER COLUMN %I SET DATA TYPE int8',
							r.adrelid::regclass::text, r.attname);
			RAISE NOTICE 'EXECUTE %', v_cmd;
			EXECUTE v_cmd;
			v_changes := v_changes + 1;
		END IF;
		v_cmd := format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT snowflake.nextval(%L::regclass)',
						r.adrelid::regclass::text, r.attname, v_seqqual);
		RAISE NOTICE 'EXECUTE %', v_cmd;
		EXECUTE v_cmd;
		IF v_owner IS NULL OR r.adrelid <> v_owner.attrelid OR r.attnum <> v_owner.attnum THEN
			v_changes := v_changes + 1;
		END IF;
	END LOOP;

	-- Then every column that references one of them through a foreign
	-- key, transitively, widened the same way (pgEdge widens only the
	-- columns it switches).
	v_ndflt := coalesce(array_length(v_todo, 1), 0);
	v_i := 1;
	WHILE v_i <= coalesce(array_length(v_todo, 1), 0) LOOP
		IF v_i > v_ndflt THEN
			SELECT a.attrelid, a.attname, a.atttypid INTO w
			  FROM pg_attribute a
			 WHERE a.attrelid = v_todo[v_i] AND a.attnum = v_todo_att[v_i];
			IF w.atttypid IN ('int2'::regtype, 'int4'::regtype) THEN
				v_cmd := format('ALTER TABLE %s ALTER COLUMN %I SET DATA TYPE int8',
								w.attrelid::regclass::text, w.attname);
				RAISE NOTICE 'EXECUTE %', v_cmd;
				EXECUTE v_cmd;
				v_changes := v_changes + 1;
			END IF;
		END IF;
		FOR r IN
			SELECT DISTINCT c.conrelid, c.conkey[k.i] AS attnum
			  FROM pg_constraint c
			  CROSS JOIN LATERAL generate_subscripts(c.confkey, 1) AS k(i)
			 WHERE c.contype = 'f' AND c.confrelid = v_todo[v_i]
			   AND c.confkey[k.i] = v_todo_att[v_i]
		LOOP
			IF NOT EXISTS (SELECT 1 FROM unnest(v_todo, v_todo_att) AS t(rel, att)
							WHERE t.rel = r.conrelid AND t.att = r.attnum) THEN
				v_todo := v_todo || r.conrelid;
				v_todo_att := v_todo_att || r.attnum;
			END IF;
		END LOOP;
		v_i := v_i + 1;
	END LOOP;

	-- Last, as pgEdge 2.5+, and echoed in its words (no "EXECUTE"): the
	-- sequence holds ms << 12 | counter from now on.  Its INCREMENT stays,
	-- as pgEdge keeps it: it is the step between a millisecond's counts (an
	-- application taking blocks of that size, Hibernate's allocation size,
	-- goes on working); only a descending sequence, which
	-- snowflake.nextval() refuses, is turned to INCREMENT BY 1.
	SELECT s.seqincrement INTO v_incr FROM pg_sequence s WHERE s.seqrelid = p_seqid;
	v_cmd := format('ALTER SEQUENCE %s AS bigint NO CYCLE MAXVALUE 9223372036854775807%s', v_seqqual,
					CASE WHEN v_incr < 0 THEN ' INCREMENT BY 1' ELSE '' END);
	RAISE NOTICE '%', v_cmd;
	EXECUTE v_cmd;

	RETURN v_changes;
END
$fn$;
COMMENT ON FUNCTION snowflake.convert_sequence_to_snowflake(pg_catalog.regclass, pg_catalog.bool) IS
	'switch the columns defaulting to nextval() of a sequence to snowflake.nextval(), widening them and their foreign keys to bigint; force drops an identity';

-- Sequences that pgEdge snowflake 2.4 and earlier converted were left with
-- a MAXVALUE just above their last value (to stop core nextval()), or
-- still AS integer, which snowflake.nextval() refuses (it cannot hold the
-- millisecond and counter).  pgEdge 2.5 repairs them when it is updated;
-- this does the same on demand, finding them as pgEdge 2.5 does: every
-- sequence that a column default passes to snowflake.nextval() and that is
-- not AS bigint NO MAXVALUE, and every sequence whose last value lies above
-- its MAXVALUE (one that pgEdge's snowflake.nextval() was called on
-- directly: no default marks it).  Each gets pgEdge 2.5's statement,
-- ALTER SEQUENCE ... AS bigint NO CYCLE MAXVALUE 9223372036854775807,
-- echoed in pgEdge's words; returns the sequences it changed.  A sequence
-- the caller does not own (or act as the owner of) is skipped with a
-- NOTICE naming its owner.
CREATE FUNCTION snowflake.repair_sequences()
RETURNS SETOF pg_catalog.regclass
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
	r record;
	v_cmd text;
BEGIN
	FOR r IN
		SELECT s.seqrelid, c.relowner, s.seqmax
		  FROM pg_sequence s
		  JOIN pg_class c ON c.oid = s.seqrelid
		 WHERE (s.seqtypid <> 'int8'::regtype OR s.seqmax < 9223372036854775807)
		   AND (EXISTS (SELECT 1
						  FROM pg_depend d
						  JOIN pg_attrdef ad ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
						 WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = s.seqrelid
						   AND pg_get_expr(ad.adbin, ad.adrelid) LIKE 'snowflake.nextval(%')
				OR (NOT pg_is_other_temp_schema(c.relnamespace)
					AND CASE WHEN has_sequence_privilege(c.oid, 'SELECT,USAGE')
							 THEN pg_sequence_last_value(c.oid) > s.seqmax END))
		 ORDER BY s.seqrelid
	LOOP
		IF NOT pg_has_role(r.relowner, 'USAGE') THEN
			RAISE NOTICE 'skipping sequence %: owned by %, not by you',
				r.seqrelid::regclass::text, pg_get_userbyid(r.relowner);
			CONTINUE;
		END IF;
		v_cmd := format('ALTER SEQUENCE %s AS bigint NO CYCLE MAXVALUE 9223372036854775807',
						r.seqrelid::regclass::text);
		RAISE NOTICE 'snowflake 2.4->2.5 repair: % (was max_value=%)', v_cmd, r.seqmax;
		EXECUTE v_cmd;
		RETURN NEXT r.seqrelid::regclass;
	END LOOP;
END
$fn$;
COMMENT ON FUNCTION snowflake.repair_sequences() IS
	'make every sequence pgEdge snowflake 2.4 and earlier left too small (a snowflake.nextval() default uses it, or its last value lies above its MAXVALUE) AS bigint NO MAXVALUE; returns the sequences changed';

-- ------------------------------------------------------------------------
-- Node registry (docs/cluster.md): which server minted under which node
-- number.  snowflake.nextval() registers this server the first time it
-- mints under a number and refuses to mint when an earlier claim of the
-- number by another server is visible.  Replicate the table between the
-- nodes (a coordinator publishes it back to the writers) so that every
-- writer sees every claim.
-- ------------------------------------------------------------------------

CREATE TABLE snowflake.node_registry (
	node pg_catalog.int4 NOT NULL CHECK (node BETWEEN 1 AND 1023),
	system_identifier pg_catalog.int8 NOT NULL,
	database pg_catalog.name NOT NULL,
	server pg_catalog.text NOT NULL,
	claimed_at pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	PRIMARY KEY (node, system_identifier)
);
COMMENT ON TABLE snowflake.node_registry IS
	'snowflake node numbers claimed by servers (system identifier of pg_control_system()); replicate it to every node';
COMMENT ON COLUMN snowflake.node_registry.node IS 'the claimed snowflake.node';
COMMENT ON COLUMN snowflake.node_registry.system_identifier IS
	'system identifier of the claiming server (pg_control_system())';
COMMENT ON COLUMN snowflake.node_registry.database IS 'database where the claim was made';
COMMENT ON COLUMN snowflake.node_registry.server IS
	'cluster_name of the claiming server, else its port: for messages';
COMMENT ON COLUMN snowflake.node_registry.claimed_at IS
	'claim time on the claiming server''s clock; of two claims of one number the earlier wins';
GRANT SELECT ON snowflake.node_registry TO PUBLIC;
-- pg_dump keeps the claims.
SELECT pg_catalog.pg_extension_config_dump('snowflake.node_registry', '');
-- The owner's restore adds the dumped claims (COPY).  INSERT only:
-- changing or removing a claim stays the superuser's (release_node()).
-- An added claim is believed like any other, so the owner can also make
-- one up (docs/postgresql.md says what it can do and how to revoke it).
DO $grant$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) 'pg_database_owner') THEN
		GRANT INSERT ON snowflake.node_registry TO pg_database_owner;
	END IF;
END
$grant$;

-- This server's identity for the registry.
CREATE FUNCTION snowflake.server_label()
RETURNS pg_catalog.text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $fn$
	SELECT coalesce(nullif(pg_catalog.current_setting('cluster_name'), ''),
							   'port ' OPERATOR(pg_catalog.||) pg_catalog.current_setting('port'))
$fn$;
COMMENT ON FUNCTION snowflake.server_label() IS
	'how the node registry names this server: cluster_name, else "port N"';

-- Logical replication carries a claim back to where it came from (with a
-- star, writer -> coordinator -> writers -> coordinator ...): an apply
-- worker (session_replication_role = replica) skips a claim already held
-- instead of failing on the primary key, which ends the echo.
CREATE FUNCTION snowflake.node_registry_dedup()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
	IF pg_catalog.current_setting('session_replication_role') OPERATOR(pg_catalog.=) 'replica'
	   AND EXISTS (SELECT 1 FROM snowflake.node_registry r
				   WHERE r.node OPERATOR(pg_catalog.=) NEW.node
					 AND r.system_identifier OPERATOR(pg_catalog.=) NEW.system_identifier) THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END
$fn$;
COMMENT ON FUNCTION snowflake.node_registry_dedup() IS
	'trigger: logical replication skips a node claim the registry already holds';
CREATE TRIGGER node_registry_dedup BEFORE INSERT ON snowflake.node_registry
	FOR EACH ROW EXECUTE FUNCTION snowflake.node_registry_dedup();
-- Apply workers fire only ALWAYS (or REPLICA) triggers.
ALTER TABLE snowflake.node_registry ENABLE ALWAYS TRIGGER node_registry_dedup;

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
CREATE FUNCTION snowflake.check_node()
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_snowflake_check_node'
LANGUAGE C VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION snowflake.check_node() IS
	'verify that no other server claimed snowflake.node earlier and register this server''s claim (run by snowflake.nextval())';

-- Claim a node number for a server: the given one or the lowest free one.
-- Run it on the node that holds the registry every writer subscribes to,
-- before setting snowflake.node on the new server: that closes the race of
-- two servers claiming one number at once.
CREATE FUNCTION snowflake.claim_node(p_node pg_catalog.int4 DEFAULT NULL,
									 p_system_identifier pg_catalog.int8 DEFAULT NULL,
									 p_server pg_catalog.text DEFAULT NULL)
RETURNS pg_catalog.int4
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
	v_sysid int8 := p_system_identifier;
	v_server text := p_server;
	v_node int4 := p_node;
	v_holder snowflake.node_registry;
BEGIN
	IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user) THEN
		RAISE EXCEPTION 'permission denied to claim a snowflake node'
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Only superusers may claim snowflake node numbers.';
	END IF;
	IF v_sysid IS NULL THEN
		SELECT c.system_identifier INTO v_sysid FROM pg_control_system() c;
		v_server := coalesce(v_server, snowflake.server_label());
	END IF;
	v_server := coalesce(v_server, 'system ' || v_sysid);
	-- One claimer at a time in this database.
	LOCK TABLE snowflake.node_registry IN SHARE ROW EXCLUSIVE MODE;
	IF v_node IS NULL THEN
		SELECT min(g) INTO v_node FROM generate_series(1, 1023) g
		 WHERE NOT EXISTS (SELECT 1 FROM snowflake.node_registry r WHERE r.node = g);
		IF v_node IS NULL THEN
			RAISE EXCEPTION 'no free snowflake node number'
				USING ERRCODE = 'configuration_limit_exceeded',
					  HINT = 'Release retired numbers with snowflake.release_node().';
		END IF;
	ELSIF v_node NOT BETWEEN 1 AND 1023 THEN
		RAISE EXCEPTION 'snowflake node % is out of range', v_node
			USING ERRCODE = 'numeric_value_out_of_range',
				  DETAIL = 'Node numbers are 1 .. 1023.';
	ELSE
		SELECT * INTO v_holder FROM snowflake.node_registry r
		 WHERE r.node = v_node AND r.system_identifier <> v_sysid
		 ORDER BY r.claimed_at LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'snowflake node % is already claimed by server "%" (system identifier %)',
				v_node, v_holder.server, v_holder.system_identifier
				USING ERRCODE = 'unique_violation',
					  HINT = 'Leave out the number to get a free one, or release it with snowflake.release_node() if that server is retired.';
		END IF;
	END IF;
	INSERT INTO snowflake.node_registry (node, system_identifier, database, server, claimed_at)
	VALUES (v_node, v_sysid, current_database(), v_server, clock_timestamp())
	ON CONFLICT DO NOTHING;
	RETURN v_node;
END
$fn$;
REVOKE EXECUTE ON FUNCTION snowflake.claim_node(pg_catalog.int4, pg_catalog.int8, pg_catalog.text) FROM PUBLIC;
COMMENT ON FUNCTION snowflake.claim_node(pg_catalog.int4, pg_catalog.int8, pg_catalog.text) IS
	'superuser: claim a node number (the given one, else the lowest free) for a server (default: this one) in the registry; returns it';

-- Retire a number: every claim of it goes (and, replicated, everywhere).
-- A server still minting under it claims it again within 10 seconds.
CREATE FUNCTION snowflake.release_node(p_node pg_catalog.int4)
RETURNS pg_catalog.bool
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
	IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user) THEN
		RAISE EXCEPTION 'permission denied to release a snowflake node'
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Only superusers may release snowflake node numbers.';
	END IF;
	DELETE FROM snowflake.node_registry r WHERE r.node = p_node;
	RETURN FOUND;
END
$fn$;
REVOKE EXECUTE ON FUNCTION snowflake.release_node(pg_catalog.int4) FROM PUBLIC;
COMMENT ON FUNCTION snowflake.release_node(pg_catalog.int4) IS
	'superuser: remove every claim of a node number from the registry; true if there was one';
