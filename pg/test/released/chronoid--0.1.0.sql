-- chronoid install script, assembled by pg/Makefile from pg/sql/src/*.sql
-- in name order.  Every object is schema-qualified: @extschema@ is the
-- schema named at CREATE EXTENSION (the snowflake objects go to their own
-- schema, snowflake).

\echo Use "CREATE EXTENSION chronoid" to load this file. \quit

-- The extension version, for scripts that need to know what is installed.
CREATE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.1.0'::pg_catalog.text $$;
COMMENT ON FUNCTION @extschema@.chronoid_version() IS
'version of the chronoid extension';

-- ---------------------------------------------------------------------
-- UUIDv7 / UUIDv4 (PostgreSQL 18 semantics) and pg_uuidv7 names.
-- On PostgreSQL 17/18 the pg_catalog functions of the same names win
-- lookup; the chronoid_* names always reach this extension.  When the
-- module is preloaded, every UUIDv7 name here shares one server-wide
-- generator (ordered across sessions); on 18, chronoid_uuidv7() is the
-- name that reaches it.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.uuidv7()
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv7() IS
'generate a UUIDv7 (RFC 9562), strictly increasing within the session, and across all sessions when chronoid is in shared_preload_libraries';

CREATE FUNCTION @extschema@.uuidv7(shift pg_catalog.interval)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7_shift'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv7(pg_catalog.interval) IS
'generate a UUIDv7 whose time is the current time plus shift; error outside the 48-bit range';

CREATE FUNCTION @extschema@.chronoid_uuidv7()
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chronoid_uuidv7() IS
'generate a UUIDv7 (same as uuidv7(), under a name PostgreSQL core does not own: on PostgreSQL 18 this one, not core''s uuidv7(), is ordered across sessions when preloaded)';

CREATE FUNCTION @extschema@.chronoid_uuidv7(shift pg_catalog.interval)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7_shift'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chronoid_uuidv7(pg_catalog.interval) IS
'generate a UUIDv7 with its time shifted (same as uuidv7(interval), under a name core does not own; ordered across sessions when preloaded)';

CREATE FUNCTION @extschema@.uuidv4()
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv4'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv4() IS
'generate a random UUIDv4 (RFC 9562)';

CREATE FUNCTION @extschema@.uuid_extract_timestamp(pg_catalog.uuid)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_uuid_extract_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(pg_catalog.uuid) IS
'creation time of a version 1, 6 or 7 UUID (millisecond precision); NULL for other versions and variants';

CREATE FUNCTION @extschema@.chronoid_uuid_extract_timestamp(pg_catalog.uuid)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_uuid_extract_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chronoid_uuid_extract_timestamp(pg_catalog.uuid) IS
'creation time of a version 1, 6 or 7 UUID (millisecond precision); NULL otherwise';

CREATE FUNCTION @extschema@.uuid_extract_version(pg_catalog.uuid)
RETURNS pg_catalog.int2
AS 'MODULE_PATHNAME', 'chronoid_uuid_extract_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_version(pg_catalog.uuid) IS
'version field of an RFC 9562 UUID; NULL for other variants (nil and max included)';

CREATE FUNCTION @extschema@.chronoid_uuid_extract_version(pg_catalog.uuid)
RETURNS pg_catalog.int2
AS 'MODULE_PATHNAME', 'chronoid_uuid_extract_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chronoid_uuid_extract_version(pg_catalog.uuid) IS
'version field of an RFC 9562 UUID; NULL for other variants';

-- pg_uuidv7 compatible names.

CREATE FUNCTION @extschema@.uuid_generate_v7()
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_generate_v7() IS
'generate a UUIDv7 (pg_uuidv7 name; same generator as uuidv7())';

CREATE FUNCTION @extschema@.uuid_v7_to_timestamptz(pg_catalog.uuid)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_uuid_v7_to_timestamptz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v7_to_timestamptz(pg_catalog.uuid) IS
'time of a version 7 UUID (pg_uuidv7 name); error for other versions';

CREATE FUNCTION @extschema@.uuid_v7_to_timestamp(pg_catalog.uuid)
RETURNS pg_catalog.timestamp
AS 'MODULE_PATHNAME', 'chronoid_uuid_v7_to_timestamptz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v7_to_timestamp(pg_catalog.uuid) IS
'time of a version 7 UUID as a UTC timestamp (pg_uuidv7 name); error for other versions';

CREATE FUNCTION @extschema@.uuid_timestamptz_to_v7(pg_catalog.timestamptz, zero pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuid_timestamptz_to_v7'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_timestamptz_to_v7(pg_catalog.timestamptz, pg_catalog.bool) IS
'a UUIDv7 for the given instant: random tail, or all-zero tail when zero is true (pg_uuidv7 name)';

CREATE FUNCTION @extschema@.uuid_timestamp_to_v7(pg_catalog.timestamp, zero pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuid_timestamp_to_v7'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_timestamp_to_v7(pg_catalog.timestamp, pg_catalog.bool) IS
'a UUIDv7 for the given UTC timestamp: random tail, or all-zero tail when zero is true (pg_uuidv7 name)';

CREATE FUNCTION @extschema@.uuidv7_boundary(pg_catalog.timestamptz)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7_boundary_tz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv7_boundary(pg_catalog.timestamptz) IS
'the smallest UUIDv7 of the instant''s millisecond (zero tail): for WHERE id >= uuidv7_boundary(...)';

CREATE FUNCTION @extschema@.uuidv7_boundary(pg_catalog.timestamp)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_uuidv7_boundary'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv7_boundary(pg_catalog.timestamp) IS
'the smallest UUIDv7 of the UTC timestamp''s millisecond (zero tail)';

-- ---------------------------------------------------------------------
-- The ulid type: 16 bytes (48-bit ms, 80 random bits), Crockford text.
-- ---------------------------------------------------------------------

CREATE TYPE @extschema@.ulid;

CREATE FUNCTION @extschema@.ulid_in(pg_catalog.cstring)
RETURNS @extschema@.ulid
AS 'MODULE_PATHNAME', 'chronoid_ulid_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_in(pg_catalog.cstring) IS
'ulid text input (26 Crockford base32 characters, case-insensitive)';

CREATE FUNCTION @extschema@.ulid_out(@extschema@.ulid)
RETURNS pg_catalog.cstring
AS 'MODULE_PATHNAME', 'chronoid_ulid_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_out(@extschema@.ulid) IS
'ulid text output (upper case)';

CREATE FUNCTION @extschema@.ulid_recv(pg_catalog.internal)
RETURNS @extschema@.ulid
AS 'MODULE_PATHNAME', 'chronoid_ulid_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_recv(pg_catalog.internal) IS
'ulid binary input (16 bytes)';

CREATE FUNCTION @extschema@.ulid_send(@extschema@.ulid)
RETURNS pg_catalog.bytea
AS 'MODULE_PATHNAME', 'chronoid_ulid_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_send(@extschema@.ulid) IS
'ulid binary output (16 bytes)';

CREATE TYPE @extschema@.ulid (
	INPUT = @extschema@.ulid_in,
	OUTPUT = @extschema@.ulid_out,
	RECEIVE = @extschema@.ulid_recv,
	SEND = @extschema@.ulid_send,
	INTERNALLENGTH = 16,
	PASSEDBYVALUE = false,
	ALIGNMENT = char,
	STORAGE = plain
);
COMMENT ON TYPE @extschema@.ulid IS
'ULID: 128-bit time-sortable identifier (48-bit Unix ms, 80 random bits), Crockford base32 text';

-- Comparison.

CREATE FUNCTION @extschema@.ulid_eq(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.bool AS 'MODULE_PATHNAME', 'chronoid_ulid_eq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_eq(@extschema@.ulid, @extschema@.ulid) IS 'implementation of = for ulid';

CREATE FUNCTION @extschema@.ulid_ne(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.bool AS 'MODULE_PATHNAME', 'chronoid_ulid_ne'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_ne(@extschema@.ulid, @extschema@.ulid) IS 'implementation of <> for ulid';

CREATE FUNCTION @extschema@.ulid_lt(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.bool AS 'MODULE_PATHNAME', 'chronoid_ulid_lt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_lt(@extschema@.ulid, @extschema@.ulid) IS 'implementation of < for ulid';

CREATE FUNCTION @extschema@.ulid_le(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.bool AS 'MODULE_PATHNAME', 'chronoid_ulid_le'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_le(@extschema@.ulid, @extschema@.ulid) IS 'implementation of <= for ulid';

CREATE FUNCTION @extschema@.ulid_gt(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.bool AS 'MODULE_PATHNAME', 'chronoid_ulid_gt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_gt(@extschema@.ulid, @extschema@.ulid) IS 'implementation of > for ulid';

CREATE FUNCTION @extschema@.ulid_ge(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.bool AS 'MODULE_PATHNAME', 'chronoid_ulid_ge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_ge(@extschema@.ulid, @extschema@.ulid) IS 'implementation of >= for ulid';

CREATE FUNCTION @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid)
RETURNS pg_catalog.int4 AS 'MODULE_PATHNAME', 'chronoid_ulid_cmp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid) IS 'btree comparison function for ulid';

CREATE FUNCTION @extschema@.ulid_sortsupport(pg_catalog.internal)
RETURNS pg_catalog.void AS 'MODULE_PATHNAME', 'chronoid_ulid_sortsupport'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_sortsupport(pg_catalog.internal) IS 'btree sort support for ulid';

CREATE FUNCTION @extschema@.ulid_hash(@extschema@.ulid)
RETURNS pg_catalog.int4 AS 'MODULE_PATHNAME', 'chronoid_ulid_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_hash(@extschema@.ulid) IS 'hash function for ulid';

CREATE FUNCTION @extschema@.ulid_hash_extended(@extschema@.ulid, pg_catalog.int8)
RETURNS pg_catalog.int8 AS 'MODULE_PATHNAME', 'chronoid_ulid_hash_extended'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_hash_extended(@extschema@.ulid, pg_catalog.int8) IS 'seeded 64-bit hash function for ulid';

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
	FUNCTION = @extschema@.ulid_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
	HASHES, MERGES
);
COMMENT ON OPERATOR @extschema@.= (@extschema@.ulid, @extschema@.ulid) IS 'equal';

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
	FUNCTION = @extschema@.ulid_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
COMMENT ON OPERATOR @extschema@.<> (@extschema@.ulid, @extschema@.ulid) IS 'not equal';

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
	FUNCTION = @extschema@.ulid_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
COMMENT ON OPERATOR @extschema@.< (@extschema@.ulid, @extschema@.ulid) IS 'less than';

CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
	FUNCTION = @extschema@.ulid_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
COMMENT ON OPERATOR @extschema@.<= (@extschema@.ulid, @extschema@.ulid) IS 'less than or equal';

CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
	FUNCTION = @extschema@.ulid_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
COMMENT ON OPERATOR @extschema@.> (@extschema@.ulid, @extschema@.ulid) IS 'greater than';

CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
	FUNCTION = @extschema@.ulid_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);
COMMENT ON OPERATOR @extschema@.>= (@extschema@.ulid, @extschema@.ulid) IS 'greater than or equal';

CREATE OPERATOR CLASS @extschema@.ulid_ops
DEFAULT FOR TYPE @extschema@.ulid USING btree AS
	OPERATOR 1 @extschema@.< ,
	OPERATOR 2 @extschema@.<= ,
	OPERATOR 3 @extschema@.= ,
	OPERATOR 4 @extschema@.>= ,
	OPERATOR 5 @extschema@.> ,
	FUNCTION 1 @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid),
	FUNCTION 2 @extschema@.ulid_sortsupport(pg_catalog.internal);
COMMENT ON OPERATOR CLASS @extschema@.ulid_ops USING btree IS 'btree operator class for ulid (time order)';
COMMENT ON OPERATOR FAMILY @extschema@.ulid_ops USING btree IS 'btree operator family for ulid (created with its operator class)';

CREATE OPERATOR CLASS @extschema@.ulid_ops
DEFAULT FOR TYPE @extschema@.ulid USING hash AS
	OPERATOR 1 @extschema@.= ,
	FUNCTION 1 @extschema@.ulid_hash(@extschema@.ulid),
	FUNCTION 2 @extschema@.ulid_hash_extended(@extschema@.ulid, pg_catalog.int8);
COMMENT ON OPERATOR CLASS @extschema@.ulid_ops USING hash IS 'hash operator class for ulid';
COMMENT ON OPERATOR FAMILY @extschema@.ulid_ops USING hash IS 'hash operator family for ulid (created with its operator class)';

-- Casts.  None is implicit: an implicit cast to or from uuid or text would
-- make ulid = uuid and similar comparisons ambiguous.  uuid <-> ulid and
-- ulid -> text are assignment casts (INSERT/UPDATE convert); timestamps
-- and bytea change meaning or may fail, so they are explicit.

CREATE FUNCTION @extschema@.ulid_to_uuid(@extschema@.ulid)
RETURNS pg_catalog.uuid AS 'MODULE_PATHNAME', 'chronoid_ulid_to_uuid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_to_uuid(@extschema@.ulid) IS
'the same 128 bits as a uuid (generally not a valid version 7)';

CREATE FUNCTION @extschema@.uuid_to_ulid(pg_catalog.uuid)
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_uuid_to_ulid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.uuid_to_ulid(pg_catalog.uuid) IS
'the same 128 bits as a ulid (a UUIDv7 keeps its millisecond time)';

CREATE FUNCTION @extschema@.ulid_to_timestamptz(@extschema@.ulid)
RETURNS pg_catalog.timestamptz AS 'MODULE_PATHNAME', 'chronoid_ulid_to_timestamptz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_to_timestamptz(@extschema@.ulid) IS
'the ULID''s millisecond timestamp';

CREATE FUNCTION @extschema@.ulid_to_timestamp(@extschema@.ulid)
RETURNS pg_catalog.timestamp AS 'MODULE_PATHNAME', 'chronoid_ulid_to_timestamptz'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_to_timestamp(@extschema@.ulid) IS
'the ULID''s millisecond timestamp as a UTC timestamp';

CREATE FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz)
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_timestamptz_to_ulid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz) IS
'the smallest ULID of the instant''s millisecond (zero random part): a range boundary';

CREATE FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp)
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_timestamp_to_ulid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp) IS
'the smallest ULID of the UTC timestamp''s millisecond (zero random part): a range boundary';

CREATE FUNCTION @extschema@.ulid_to_bytea(@extschema@.ulid)
RETURNS pg_catalog.bytea AS 'MODULE_PATHNAME', 'chronoid_ulid_to_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.ulid_to_bytea(@extschema@.ulid) IS
'the 16 bytes of the ULID (time first, big-endian)';

CREATE FUNCTION @extschema@.bytea_to_ulid(pg_catalog.bytea)
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_bytea_to_ulid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bytea_to_ulid(pg_catalog.bytea) IS
'a ULID from exactly 16 bytes; error for any other length';

CREATE CAST (@extschema@.ulid AS pg_catalog.uuid)
	WITH FUNCTION @extschema@.ulid_to_uuid(@extschema@.ulid) AS ASSIGNMENT;
COMMENT ON CAST (@extschema@.ulid AS pg_catalog.uuid) IS 'same 128 bits';
CREATE CAST (pg_catalog.uuid AS @extschema@.ulid)
	WITH FUNCTION @extschema@.uuid_to_ulid(pg_catalog.uuid) AS ASSIGNMENT;
COMMENT ON CAST (pg_catalog.uuid AS @extschema@.ulid) IS 'same 128 bits';
CREATE CAST (@extschema@.ulid AS pg_catalog.timestamptz)
	WITH FUNCTION @extschema@.ulid_to_timestamptz(@extschema@.ulid);
COMMENT ON CAST (@extschema@.ulid AS pg_catalog.timestamptz) IS 'the embedded millisecond time';
CREATE CAST (@extschema@.ulid AS pg_catalog.timestamp)
	WITH FUNCTION @extschema@.ulid_to_timestamp(@extschema@.ulid);
COMMENT ON CAST (@extschema@.ulid AS pg_catalog.timestamp) IS 'the embedded millisecond time, UTC';
CREATE CAST (pg_catalog.timestamptz AS @extschema@.ulid)
	WITH FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz);
COMMENT ON CAST (pg_catalog.timestamptz AS @extschema@.ulid) IS 'smallest ULID of the millisecond (range boundary)';
CREATE CAST (pg_catalog.timestamp AS @extschema@.ulid)
	WITH FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp);
COMMENT ON CAST (pg_catalog.timestamp AS @extschema@.ulid) IS 'smallest ULID of the UTC millisecond (range boundary)';
CREATE CAST (@extschema@.ulid AS pg_catalog.bytea)
	WITH FUNCTION @extschema@.ulid_to_bytea(@extschema@.ulid);
COMMENT ON CAST (@extschema@.ulid AS pg_catalog.bytea) IS 'the 16 bytes';
CREATE CAST (pg_catalog.bytea AS @extschema@.ulid)
	WITH FUNCTION @extschema@.bytea_to_ulid(pg_catalog.bytea);
COMMENT ON CAST (pg_catalog.bytea AS @extschema@.ulid) IS 'exactly 16 bytes';
CREATE CAST (@extschema@.ulid AS pg_catalog.text) WITH INOUT AS ASSIGNMENT;
COMMENT ON CAST (@extschema@.ulid AS pg_catalog.text) IS 'Crockford base32, upper case';
CREATE CAST (pg_catalog.text AS @extschema@.ulid) WITH INOUT;
COMMENT ON CAST (pg_catalog.text AS @extschema@.ulid) IS 'Crockford base32, case-insensitive';

-- Generators (pgx_ulid names).

CREATE FUNCTION @extschema@.gen_ulid()
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_gen_ulid'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gen_ulid() IS
'generate a ULID: current millisecond, 80 fresh random bits';

CREATE FUNCTION @extschema@.gen_monotonic_ulid()
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_gen_monotonic_ulid'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gen_monotonic_ulid() IS
'generate a ULID strictly greater than the session''s previous one (ULID spec monotonic mode); when chronoid is in shared_preload_libraries, greater than every earlier one of the server';

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
	IF NOT FOUND AND NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = p_seqid) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', p_seqid::oid
			USING ERRCODE = 'undefined_table';
	END IF;
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

-- Called by snowflake.nextval() the first time a backend mints under a
-- number (and every 10 s after): raises when an earlier claim of
-- snowflake.node by another server is visible, else registers this
-- server's claim.  True when the claim was already there (committed),
-- false when it was made now (or cannot be, read-only).  Takes no node
-- argument: a caller can register only the number the server really uses.
CREATE FUNCTION snowflake.check_node()
RETURNS pg_catalog.bool
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
	v_node int4 := coalesce(pg_catalog.current_setting('snowflake.node', true), '0')::int4;
	v_sysid int8;
	v_mine snowflake.node_registry;
	v_other snowflake.node_registry;
BEGIN
	IF v_node = 0 THEN
		RAISE EXCEPTION 'snowflake.node is not set'
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
	SELECT c.system_identifier INTO v_sysid FROM pg_control_system() c;
	SELECT * INTO v_mine FROM snowflake.node_registry r
	 WHERE r.node = v_node AND r.system_identifier = v_sysid;
	-- Of two claims the earlier wins (ties: the smaller identifier), so
	-- both servers of a race reach the same verdict.
	SELECT * INTO v_other FROM snowflake.node_registry r
	 WHERE r.node = v_node AND r.system_identifier <> v_sysid
	   AND (v_mine.node IS NULL
			OR (r.claimed_at, r.system_identifier) < (v_mine.claimed_at, v_mine.system_identifier))
	 ORDER BY r.claimed_at, r.system_identifier
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'snowflake node % is already claimed by server "%" (system identifier %)',
			v_node, v_other.server, v_other.system_identifier
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = format('Server "%s" (system identifier %s, database %s) claimed node %s at %s; this server is "%s" (system identifier %s)%s.  IDs minted by both would collide.',
								  v_other.server, v_other.system_identifier, v_other.database, v_node,
								  v_other.claimed_at, snowflake.server_label(), v_sysid,
								  CASE WHEN v_mine.node IS NULL THEN ''
									   ELSE format(', whose own claim of %s is later', v_mine.claimed_at) END),
				  HINT = 'Set snowflake.node to a free number (SELECT snowflake.claim_node(...) on the node that coordinates the registry returns one), or, if that server no longer mints under this number, run SELECT snowflake.release_node(' || v_node || ') there first.';
	END IF;
	IF v_mine.node IS NOT NULL THEN
		RETURN true;
	END IF;
	IF pg_catalog.current_setting('transaction_read_only')::bool THEN
		RETURN false;
	END IF;
	INSERT INTO snowflake.node_registry (node, system_identifier, database, server, claimed_at)
	VALUES (v_node, v_sysid, pg_catalog.current_database(), snowflake.server_label(),
			pg_catalog.clock_timestamp())
	ON CONFLICT DO NOTHING;
	RETURN false;
END
$fn$;
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
