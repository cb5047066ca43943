-- The catalog objects pgEdge snowflake 2.6 documents (its README and
-- snowflake--2.2.sql .. --2.5.0--2.6.0.sql): schema snowflake (made by
-- CREATE EXTENSION from the control file's schema setting, so not a member
-- of the extension), snowflake.id_seq, the C functions with their
-- signatures, format() in SQL.  convert_sequence_to_snowflake() is a
-- placeholder: the switch only needs its name and signature.
\echo Use "CREATE EXTENSION snowflake" to load this file. \quit

GRANT USAGE ON SCHEMA snowflake TO public;

CREATE SEQUENCE snowflake.id_seq;
GRANT USAGE ON SEQUENCE snowflake.id_seq TO public;

CREATE FUNCTION snowflake.nextval(regclass = 'snowflake.id_seq'::regclass)
RETURNS pg_catalog.int8 AS 'MODULE_PATHNAME', 'snowflake_nextval' LANGUAGE C;
CREATE FUNCTION snowflake.currval(regclass = 'snowflake.id_seq'::regclass)
RETURNS pg_catalog.int8 AS 'MODULE_PATHNAME', 'snowflake_currval' LANGUAGE C;
CREATE FUNCTION snowflake.get_epoch(pg_catalog.int8)
RETURNS pg_catalog.numeric AS 'MODULE_PATHNAME', 'snowflake_get_epoch' LANGUAGE C;
CREATE FUNCTION snowflake.get_count(pg_catalog.int8)
RETURNS pg_catalog.int4 AS 'MODULE_PATHNAME', 'snowflake_get_count' LANGUAGE C;
CREATE FUNCTION snowflake.get_node(pg_catalog.int8)
RETURNS pg_catalog.int4 AS 'MODULE_PATHNAME', 'snowflake_get_node' LANGUAGE C;
CREATE FUNCTION snowflake.format(pg_catalog.int8)
RETURNS jsonb AS $$
	SELECT ('{"ts": "' || to_timestamp(snowflake.get_epoch($1))::text ||
		'", "count": ' || snowflake.get_count($1)::text ||
		', "id": ' || snowflake.get_node($1)::text || '}')::jsonb;
$$ LANGUAGE sql;
CREATE FUNCTION snowflake.convert_column_to_int8(p_rel regclass, p_attnum smallint)
RETURNS integer SET search_path = pg_catalog
AS $$ BEGIN RAISE EXCEPTION 'not part of the stand-in'; END $$ LANGUAGE plpgsql;
CREATE FUNCTION snowflake.convert_sequence_to_snowflake(p_seqid regclass)
RETURNS integer SET search_path = pg_catalog
AS $$ BEGIN RAISE EXCEPTION 'not part of the stand-in'; END $$ LANGUAGE plpgsql;

GRANT EXECUTE ON FUNCTION snowflake.nextval(regclass), snowflake.currval(regclass),
	snowflake.get_epoch(int8), snowflake.get_count(int8), snowflake.get_node(int8),
	snowflake.format(int8) TO public;
