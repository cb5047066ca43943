-- The catalog objects pg_uuidv7 1.6 creates (its README and
-- sql/pg_uuidv7--1.6.sql): five C functions in the extension's schema
-- (relocatable, no schema of its own), with their signatures, argument
-- names, defaults and volatility: uuid_generate_v7() VOLATILE, the four
-- conversions STABLE, all STRICT PARALLEL SAFE.  Confirmed from the 1.6
-- script; the C behind them here is chronoid's test's own (a v7 UUID from
-- the clock and random bits; the millisecond both ways), not pg_uuidv7's.
-- Not reproduced: the function comments of later releases, if any.
\echo Use "CREATE EXTENSION pg_uuidv7" to load this file. \quit

CREATE FUNCTION uuid_generate_v7()
RETURNS uuid AS 'MODULE_PATHNAME', 'uuid_generate_v7'
VOLATILE STRICT LANGUAGE C PARALLEL SAFE;

CREATE FUNCTION uuid_v7_to_timestamptz(uuid)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'uuid_v7_to_timestamptz'
STABLE STRICT LANGUAGE C PARALLEL SAFE;

CREATE FUNCTION uuid_timestamptz_to_v7(timestamptz, zero bool = false)
RETURNS uuid AS 'MODULE_PATHNAME', 'uuid_timestamptz_to_v7'
STABLE STRICT LANGUAGE C PARALLEL SAFE;

CREATE FUNCTION uuid_v7_to_timestamp(uuid)
RETURNS timestamp AS 'MODULE_PATHNAME', 'uuid_v7_to_timestamp'
STABLE STRICT LANGUAGE C PARALLEL SAFE;

CREATE FUNCTION uuid_timestamp_to_v7(timestamp, zero bool = false)
RETURNS uuid AS 'MODULE_PATHNAME', 'uuid_timestamp_to_v7'
STABLE STRICT LANGUAGE C PARALLEL SAFE;
