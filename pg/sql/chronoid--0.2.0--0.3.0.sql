-- chronoid 0.2.0 -> 0.3.0: no change of behaviour.  The snowflake
-- functions' C symbols follow the rule every other function of the
-- extension follows ("chronoid_" + schema + name); the old symbols stay in
-- the module for databases not yet updated (pg/src/compat_symbols.c).
-- CREATE OR REPLACE keeps each function's owner, privileges and comment.

\echo Use "ALTER EXTENSION chronoid UPDATE TO '0.3.0'" to load this file. \quit

CREATE OR REPLACE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.3.0'::pg_catalog.text $$;

CREATE OR REPLACE FUNCTION snowflake.nextval(pg_catalog.regclass DEFAULT 'snowflake.id_seq'::pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'chronoid_snowflake_nextval'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION snowflake.currval(pg_catalog.regclass DEFAULT 'snowflake.id_seq'::pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'chronoid_snowflake_currval'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION snowflake.get_epoch(pg_catalog.int8)
RETURNS pg_catalog.numeric
AS 'MODULE_PATHNAME', 'chronoid_snowflake_get_epoch'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake.get_count(pg_catalog.int8)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'chronoid_snowflake_get_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake.get_node(pg_catalog.int8)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'chronoid_snowflake_get_node'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake.to_timestamp(pg_catalog.int8)
RETURNS pg_catalog.timestamptz
AS 'MODULE_PATHNAME', 'chronoid_snowflake_to_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake.from_timestamp(pg_catalog.timestamptz)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'chronoid_snowflake_from_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake.format(pg_catalog.int8)
RETURNS pg_catalog.jsonb
AS 'MODULE_PATHNAME', 'chronoid_snowflake_format'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake.check_node()
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_snowflake_check_node'
LANGUAGE C VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
