-- chronoid 0.5.0 -> 0.6.0: snowflake.convert_sequence_to_snowflake()
-- keeps the sequence's INCREMENT, as pgEdge snowflake 2.6 does (0.5.0 set
-- it to 1, which broke applications that take blocks of IDs of that size),
-- echoes pgEdge's NOTICEs in pgEdge's order and raises pgEdge's messages;
-- snowflake.repair_sequences() finds every sequence pgEdge 2.5 repairs.
-- And the database owner may pg_dump the database: SELECT on the dumped
-- sequences for pg_database_owner.  TypeIDs: typeid_to_uuid(),
-- uuid_to_typeid(), typeid_generate(), typeid_prefix(), typeid_is_valid().
-- nextval_block(): blocks of consecutive sequence values (docs/block.md).

\echo Use "ALTER EXTENSION chronoid UPDATE TO '0.6.0'" to load this file. \quit

CREATE OR REPLACE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.6.0'::pg_catalog.text $$;
CREATE OR REPLACE FUNCTION snowflake.convert_sequence_to_snowflake(p_seqid pg_catalog.regclass,
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

-- snowflake.repair_sequences() finds what pgEdge 2.5's update repairs
-- (also a sequence whose last value lies above its MAXVALUE) and echoes
-- pgEdge's statement and words.
CREATE OR REPLACE FUNCTION snowflake.repair_sequences()
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

-- The database owner's pg_dump: SELECT on the two dumped sequences and
-- UPDATE on snowflake.id_seq (a floor) for pg_database_owner, as in the
-- install script (0.5.0 left an owner's pg_dump failing on
-- snowflake.id_seq).
DO $grant$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) 'pg_database_owner') THEN
		GRANT SELECT ON SEQUENCE snowflake.node_mark TO pg_database_owner;
		GRANT SELECT, UPDATE ON SEQUENCE snowflake.id_seq TO pg_database_owner;
	END IF;
END
$grant$;

-- TypeIDs (issue 27): functions between text and uuid, as in the install
-- script's 25_typeid.sql.

CREATE FUNCTION @extschema@.typeid_to_uuid(typeid pg_catalog.text)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_typeid_to_uuid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_to_uuid(pg_catalog.text) IS
'the UUID of a TypeID of any prefix; error naming the character and position for bad text';

CREATE FUNCTION @extschema@.typeid_to_uuid(typeid pg_catalog.text, expected_prefix pg_catalog.text)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_typeid_to_uuid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_to_uuid(pg_catalog.text, pg_catalog.text) IS
'the UUID of a TypeID whose prefix must be expected_prefix (22023 otherwise)';

CREATE FUNCTION @extschema@.uuid_to_typeid(prefix pg_catalog.text, id pg_catalog.uuid)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_uuid_to_typeid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_to_typeid(pg_catalog.text, pg_catalog.uuid) IS
'the TypeID text of a UUID under a prefix (empty: the bare 26 digits)';

CREATE FUNCTION @extschema@.typeid_generate(prefix pg_catalog.text DEFAULT '')
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_typeid_generate'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_generate(pg_catalog.text) IS
'a new TypeID: a UUIDv7 from uuidv7()''s generator under the prefix';

CREATE FUNCTION @extschema@.typeid_prefix(typeid pg_catalog.text)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_typeid_prefix'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_prefix(pg_catalog.text) IS
'the prefix of a TypeID (empty for none); error for bad text';

CREATE FUNCTION @extschema@.typeid_is_valid(typeid pg_catalog.text)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_typeid_is_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_is_valid(pg_catalog.text) IS
'whether the text is a TypeID (spec 0.3.0), without raising an error';

CREATE FUNCTION @extschema@.typeid_is_valid(typeid pg_catalog.text, expected_prefix pg_catalog.text)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_typeid_is_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_is_valid(pg_catalog.text, pg_catalog.text) IS
'whether the text is a TypeID with prefix expected_prefix, without raising an error';

-- The IDs already in people's databases (issue 27): ObjectId and KSUID
-- time, validity, generation and range boundaries, UUID v1 <-> v6, a v6
-- generator and range boundary, chronoid_inspect();
-- uuid_extract_timestamp() gives versions 1 and 6 to the microsecond (the
-- C function changed; its comments say so).
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(pg_catalog.uuid) IS
'creation time of a version 1, 6 or 7 UUID (to the microsecond for 1 and 6, the millisecond for 7); NULL for other versions and variants';
COMMENT ON FUNCTION @extschema@.chronoid_uuid_extract_timestamp(pg_catalog.uuid) IS
'creation time of a version 1, 6 or 7 UUID (to the microsecond for 1 and 6, the millisecond for 7); NULL otherwise';

-- ---------------------------------------------------------------------
-- The IDs already in people's databases: MongoDB ObjectIds and KSUIDs as
-- text, UUID versions 1 (Cassandra's TimeUUID) and 6, and inspection of
-- any ID's kind and time.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.objectid_time(pg_catalog.text)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_objectid_time'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.objectid_time(pg_catalog.text) IS
'creation time (to the second) of a MongoDB ObjectId given as 24 hex digits; error naming the bad character and its position';

CREATE FUNCTION @extschema@.ksuid_time(pg_catalog.text)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_ksuid_time'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ksuid_time(pg_catalog.text) IS
'creation time (to the second) of a KSUID given as 27 base62 characters; error naming the bad character and its position';

CREATE FUNCTION @extschema@.objectid_generate()
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_objectid_generate'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.objectid_generate() IS
'generate a MongoDB ObjectId (24 lower-case hex digits): seconds, 5 random bytes per backend, a counter from a random start';

CREATE FUNCTION @extschema@.ksuid_generate()
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_ksuid_generate'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ksuid_generate() IS
'generate a KSUID (27 base62 characters): seconds since 2014-05-13 and 128 random bits';

CREATE FUNCTION @extschema@.uuidv1_to_v6(pg_catalog.uuid)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv1_to_v6'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv1_to_v6(pg_catalog.uuid) IS
'the version 6 UUID of a version 1 UUID (RFC 9562 section 5.6: same time, clock sequence and node, sortable); error for other versions';

CREATE FUNCTION @extschema@.uuidv6_to_v1(pg_catalog.uuid)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv6_to_v1'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv6_to_v1(pg_catalog.uuid) IS
'the version 1 UUID of a version 6 UUID; error for other versions';

CREATE FUNCTION @extschema@.uuidv6()
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv6'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv6() IS
'generate a UUIDv6 (RFC 9562): 100-ns time, random clock sequence and node, strictly increasing within the session';

CREATE FUNCTION @extschema@.chronoid_inspect(id pg_catalog.text,
	OUT kind pg_catalog.text, OUT version pg_catalog.int4, OUT created pg_catalog.timestamptz,
	OUT prefix pg_catalog.text, OUT node pg_catalog.int8, OUT sequence pg_catalog.int8)
RETURNS record
AS 'MODULE_PATHNAME', 'chronoid_inspect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chronoid_inspect(pg_catalog.text) IS
'kind (uuid, ulid, snowflake under the pgedge layout, objectid, ksuid, typeid), UUID version (a TypeID''s UUID''s), creation time to the microsecond where the ID holds it, TypeID prefix, node (snowflake node, UUID v1/v6 node, ObjectId process bytes) and sequence (snowflake sequence, UUID v1/v6 clock sequence, ObjectId counter) of an ID given as text; NULL where the kind has none; error naming the bad character and its position';

CREATE FUNCTION @extschema@.objectid_is_valid(pg_catalog.text)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_objectid_is_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.objectid_is_valid(pg_catalog.text) IS
'whether the text is a MongoDB ObjectId (24 hex digits, either case), without raising an error';

CREATE FUNCTION @extschema@.ksuid_is_valid(pg_catalog.text)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_ksuid_is_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ksuid_is_valid(pg_catalog.text) IS
'whether the text is a KSUID (27 base62 characters, at most aWgEPTl1tmebfsQzFP4bxwgy80V), without raising an error';

-- Range boundaries: the smallest ID of a time, for WHERE id >= ... AND
-- id < ... on the key's index.  ObjectIds and KSUIDs are text, whose
-- byte order (COLLATE "C") is their time order.
CREATE FUNCTION @extschema@.uuidv6_boundary(pg_catalog.timestamptz)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv6_boundary_tz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv6_boundary(pg_catalog.timestamptz) IS
'the smallest UUIDv6 of the instant''s microsecond (zero clock sequence and node): for WHERE id >= uuidv6_boundary(...)';

CREATE FUNCTION @extschema@.uuidv6_boundary(pg_catalog.timestamp)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv6_boundary'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv6_boundary(pg_catalog.timestamp) IS
'the smallest UUIDv6 of the UTC timestamp''s microsecond (zero clock sequence and node)';

CREATE FUNCTION @extschema@.objectid_boundary(pg_catalog.timestamptz)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_objectid_boundary_tz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.objectid_boundary(pg_catalog.timestamptz) IS
'the smallest ObjectId of the instant''s second (zeros after the time), lower-case hex: for WHERE id >= objectid_boundary(...) under COLLATE "C"';

CREATE FUNCTION @extschema@.objectid_boundary(pg_catalog.timestamp)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_objectid_boundary'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.objectid_boundary(pg_catalog.timestamp) IS
'the smallest ObjectId of the UTC timestamp''s second (zeros after the time), lower-case hex';

CREATE FUNCTION @extschema@.ksuid_boundary(pg_catalog.timestamptz)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_ksuid_boundary_tz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ksuid_boundary(pg_catalog.timestamptz) IS
'the smallest KSUID of the instant''s second (zero payload): for WHERE id >= ksuid_boundary(...) under COLLATE "C"';

CREATE FUNCTION @extschema@.ksuid_boundary(pg_catalog.timestamp)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_ksuid_boundary'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ksuid_boundary(pg_catalog.timestamp) IS
'the smallest KSUID of the UTC timestamp''s second (zero payload)';

-- Block allocation from a sequence (docs/block.md): n consecutive values
-- in one call, WAL-logged and flushed before they are returned, never
-- given back by a rollback.  Not SECURITY DEFINER: the caller needs USAGE
-- or UPDATE on the sequence, as for nextval().
CREATE FUNCTION @extschema@.nextval_block(seq pg_catalog.regclass, n pg_catalog.int8,
										  OUT first_id pg_catalog.int8, OUT last_id pg_catalog.int8)
RETURNS record
AS 'MODULE_PATHNAME', 'chronoid_nextval_block'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.nextval_block(pg_catalog.regclass, pg_catalog.int8) IS
	'reserve the next n values of a sequence (INCREMENT 1, NO CYCLE) at once: the block first_id..last_id, never rolled back';
