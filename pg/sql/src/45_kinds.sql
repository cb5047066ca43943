
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
