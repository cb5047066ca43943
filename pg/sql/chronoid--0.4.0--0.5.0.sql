-- chronoid 0.4.0 -> 0.5.0: the casts from a time to ulid become
-- assignment casts whose functions are told whether the cast is explicit:
-- an explicit cast converts as before, and an assignment (INSERT ...
-- VALUES (now()), which pgx_ulid's implicit casts accept) is an error
-- whose HINT says what to write, where 0.4.0 left core's error without
-- one.  (snowflake.nextval()'s INCREMENT steps need no SQL change.)

\echo Use "ALTER EXTENSION chronoid UPDATE TO '0.5.0'" to load this file. \quit

CREATE OR REPLACE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.5.0'::pg_catalog.text $$;

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

DROP CAST (pg_catalog.timestamptz AS @extschema@.ulid);
CREATE CAST (pg_catalog.timestamptz AS @extschema@.ulid)
	WITH FUNCTION @extschema@.timestamptz_to_ulid(pg_catalog.timestamptz, pg_catalog.int4, pg_catalog.bool)
	AS ASSIGNMENT;
COMMENT ON CAST (pg_catalog.timestamptz AS @extschema@.ulid) IS
'smallest ULID of the millisecond (range boundary); explicit only: an assignment is an error with a hint';

DROP CAST (pg_catalog.timestamp AS @extschema@.ulid);
CREATE CAST (pg_catalog.timestamp AS @extschema@.ulid)
	WITH FUNCTION @extschema@.timestamp_to_ulid(pg_catalog.timestamp, pg_catalog.int4, pg_catalog.bool)
	AS ASSIGNMENT;
COMMENT ON CAST (pg_catalog.timestamp AS @extschema@.ulid) IS
'smallest ULID of the UTC millisecond (range boundary); explicit only: an assignment is an error with a hint';
