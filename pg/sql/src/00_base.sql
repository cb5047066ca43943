-- chronoid install script, assembled by pg/Makefile from pg/sql/src/*.sql
-- in name order (@EXTVERSION@ becomes default_version of chronoid.control,
-- the version's one home).  Every object is schema-qualified: @extschema@ is the
-- schema named at CREATE EXTENSION (the snowflake objects go to their own
-- schema, snowflake).

\echo Use "CREATE EXTENSION chronoid" to load this file. \quit

-- The extension version, for scripts that need to know what is installed.
CREATE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '@EXTVERSION@'::pg_catalog.text $$;
COMMENT ON FUNCTION @extschema@.chronoid_version() IS
'version of the chronoid extension';
