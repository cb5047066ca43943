
-- ------------------------------------------------------------------------
-- Snowflake IDs, compatible with pgEdge snowflake 2.6: schema snowflake,
-- 41-bit ms since 2023-01-01 | 10-bit node (GUC snowflake.node) | 12-bit
-- counter.  The sequence is the durable high-water mark (docs/postgresql.md).
-- ------------------------------------------------------------------------

CREATE SCHEMA snowflake;
COMMENT ON SCHEMA snowflake IS 'pgEdge-compatible snowflake IDs (chronoid)';
GRANT USAGE ON SCHEMA snowflake TO PUBLIC;

CREATE SEQUENCE snowflake.id_seq AS pg_catalog.int8 INCREMENT BY 1 CACHE 1;
COMMENT ON SEQUENCE snowflake.id_seq IS
	'default high-water mark of snowflake.nextval() (ms since 2023-01-01 << 12 | counter)';
GRANT USAGE ON SEQUENCE snowflake.id_seq TO PUBLIC;
-- pg_dump keeps its state, so a restored database never repeats an ID.
SELECT pg_catalog.pg_extension_config_dump('snowflake.id_seq', '');

CREATE FUNCTION snowflake.nextval(pg_catalog.regclass DEFAULT 'snowflake.id_seq'::pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'snowflake_nextval'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake.nextval(pg_catalog.regclass) IS
	'next snowflake of a sequence (default snowflake.id_seq); needs snowflake.node';

CREATE FUNCTION snowflake.currval(pg_catalog.regclass DEFAULT 'snowflake.id_seq'::pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'snowflake_currval'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake.currval(pg_catalog.regclass) IS
	'last snowflake snowflake.nextval() returned in this session for a sequence';

CREATE FUNCTION snowflake.get_epoch(pg_catalog.int8)
RETURNS pg_catalog.numeric
AS 'MODULE_PATHNAME', 'snowflake_get_epoch'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.get_epoch(pg_catalog.int8) IS
	'time of a snowflake as Unix seconds with three decimals (for to_timestamp())';

CREATE FUNCTION snowflake.get_count(pg_catalog.int8)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'snowflake_get_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.get_count(pg_catalog.int8) IS
	'counter of a snowflake within its millisecond (0 .. 4095)';

CREATE FUNCTION snowflake.get_node(pg_catalog.int8)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'snowflake_get_node'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.get_node(pg_catalog.int8) IS
	'node number (snowflake.node) that minted a snowflake';

CREATE FUNCTION snowflake.to_timestamp(pg_catalog.int8)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'snowflake_to_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.to_timestamp(pg_catalog.int8) IS
	'time of a snowflake (millisecond precision)';

CREATE FUNCTION snowflake.from_timestamp(pg_catalog.timestamptz)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'snowflake_from_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.from_timestamp(pg_catalog.timestamptz) IS
	'smallest snowflake of the millisecond holding a time, any node (for WHERE id >= ...)';

CREATE FUNCTION snowflake.format(pg_catalog.int8)
RETURNS pg_catalog.jsonb
AS 'MODULE_PATHNAME', 'snowflake_format'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake.format(pg_catalog.int8) IS
	'snowflake as jsonb: node (also under "id", as pgEdge prints it), ts (session TimeZone), count';

-- Switch the columns that take their default from a sequence to
-- snowflake.nextval() of that sequence, widening them and the foreign keys
-- that reference them to bigint.  Only DDL, never catalog edits; ALTER TABLE
-- checks that the caller owns each table.  Returns the number of changes
-- (defaults, type changes, identities dropped), as pgEdge 2.4+ does.
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
	r record;
	w record;
	v_todo oid[] := '{}';
	v_todo_att int2[] := '{}';
	v_i int4;
BEGIN
	SELECT n.nspname, c.relname INTO v_seqschema, v_seqname
	  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE c.oid = p_seqid AND c.relkind = 'S';
	IF NOT FOUND THEN
		RAISE EXCEPTION '"%" is not a sequence', p_seqid::text
			USING ERRCODE = 'wrong_object_type';
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
		EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY',
					   r.attrelid::regclass::text, r.attname);
		EXECUTE format('CREATE SEQUENCE %s AS bigint INCREMENT BY 1 CACHE 1 OWNED BY %s.%I',
					   v_seqqual, r.attrelid::regclass::text, r.attname);
		v_newseq := to_regclass(v_seqqual);
		PERFORM pg_catalog.setval(v_newseq, greatest(v_last, 1), v_called);
		EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT pg_catalog.nextval(%L::pg_catalog.regclass)',
					   r.attrelid::regclass::text, r.attname, v_seqqual);
		RAISE NOTICE 'dropped the identity of column %.%; sequence % was recreated as a standalone sequence owned by it',
			r.attrelid::regclass::text, quote_ident(r.attname), v_seqqual;
		v_changes := v_changes + 1;
		p_seqid := v_newseq;
	END LOOP;

	-- The sequence holds ms << 12 | counter from now on.
	EXECUTE format('ALTER SEQUENCE %s AS bigint INCREMENT BY 1 NO MAXVALUE CACHE 1 NO CYCLE', v_seqqual);

	-- Every column whose default is core nextval() of this sequence.
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
		EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT snowflake.nextval(%L::pg_catalog.regclass)',
					   r.adrelid::regclass::text, r.attname, v_seqqual);
		v_changes := v_changes + 1;
	END LOOP;

	-- Widen those columns to bigint, then every column that references a
	-- widened one through a foreign key, transitively.
	v_i := 1;
	WHILE v_i <= coalesce(array_length(v_todo, 1), 0) LOOP
		SELECT a.attrelid, a.attname, a.atttypid INTO w
		  FROM pg_attribute a
		 WHERE a.attrelid = v_todo[v_i] AND a.attnum = v_todo_att[v_i];
		IF w.atttypid IN ('int2'::regtype, 'int4'::regtype) THEN
			EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint',
						   w.attrelid::regclass::text, w.attname);
			v_changes := v_changes + 1;
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

	RETURN v_changes;
END
$fn$;
COMMENT ON FUNCTION snowflake.convert_sequence_to_snowflake(pg_catalog.regclass, pg_catalog.bool) IS
	'switch the columns defaulting to nextval() of a sequence to snowflake.nextval(), widening them and their foreign keys to bigint; force drops an identity';
