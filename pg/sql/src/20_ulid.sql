
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

-- The casts from a time: their three-argument form is told whether a cast
-- is explicit, so that an assignment (INSERT ... VALUES (now())) is an
-- error whose HINT says what to write (docs/postgresql.md).
CREATE FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.bool)
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_timestamptz_to_ulid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.bool) IS
'cast timestamptz to ulid: converts when explicit, refuses an assignment with a hint';

CREATE FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp, pg_catalog.int4, pg_catalog.bool)
RETURNS @extschema@.ulid AS 'MODULE_PATHNAME', 'chronoid_timestamp_to_ulid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp, pg_catalog.int4, pg_catalog.bool) IS
'cast timestamp to ulid: converts when explicit, refuses an assignment with a hint';

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
	WITH FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.bool)
	AS ASSIGNMENT;
COMMENT ON CAST (pg_catalog.timestamptz AS @extschema@.ulid) IS
'smallest ULID of the millisecond (range boundary); explicit only: an assignment is an error with a hint';
CREATE CAST (pg_catalog.timestamp AS @extschema@.ulid)
	WITH FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp, pg_catalog.int4, pg_catalog.bool)
	AS ASSIGNMENT;
COMMENT ON CAST (pg_catalog.timestamp AS @extschema@.ulid) IS
'smallest ULID of the UTC millisecond (range boundary); explicit only: an assignment is an error with a hint';
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
