
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
'creation time of a version 1, 6 or 7 UUID (to the microsecond for 1 and 6, the millisecond for 7); NULL for other versions and variants';

CREATE FUNCTION @extschema@.chronoid_uuid_extract_timestamp(pg_catalog.uuid)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_uuid_extract_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chronoid_uuid_extract_timestamp(pg_catalog.uuid) IS
'creation time of a version 1, 6 or 7 UUID (to the microsecond for 1 and 6, the millisecond for 7); NULL otherwise';

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
