-- chronoid 0.6.0 -> 0.7.0: the database owner's restore works and moves
-- the ID space forward only (issue 33, part 5): pg_database_owner may set
-- snowflake.node_mark and add claims to snowflake.node_registry, and the
-- new snowflake.node_mark_guard keeps the highest mark logged, so a mark
-- set back is not believed.  nextval_block() (issue 33, part 4) refuses
-- the sequences that are floors of snowflakes and needs UPDATE for a
-- block larger than one: that is in the module; only its comment changes
-- here.

\echo Use "ALTER EXTENSION chronoid UPDATE TO '0.7.0'" to load this file. \quit

CREATE OR REPLACE FUNCTION @extschema@.chronoid_version()
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.7.0'::pg_catalog.text $$;

COMMENT ON SEQUENCE snowflake.node_mark IS
	'high-water mark of every snowflake minted in this database (ms since 2023-01-01 << 12 | counter); written by snowflake.nextval(), raised by a restore';

CREATE SEQUENCE snowflake.node_mark_guard AS pg_catalog.int8 INCREMENT BY 1 MINVALUE 0 CACHE 1;
COMMENT ON SEQUENCE snowflake.node_mark_guard IS
	'highest mark snowflake.nextval() logged in snowflake.node_mark: a mark set back below it is not believed; written only by snowflake.nextval()';
REVOKE ALL ON SEQUENCE snowflake.node_mark_guard FROM PUBLIC;
-- The guard starts at what the mark covers now (its last WAL record), as
-- if this module had logged it: from here on the owner may set the mark,
-- and a mark set back must not lower the ID space below what was issued.
-- An ALTER that changes nothing takes the lock that waits for every
-- transaction minting now and holds off new ones until this commits, so
-- no ID is issued above the value read.
ALTER SEQUENCE snowflake.node_mark OWNED BY NONE;
SELECT pg_catalog.setval('snowflake.node_mark_guard', m.last_value OPERATOR(pg_catalog.+) m.log_cnt, true)
  FROM snowflake.node_mark m
 WHERE m.is_called;

DO $grant$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) 'pg_database_owner') THEN
		GRANT UPDATE ON SEQUENCE snowflake.node_mark TO pg_database_owner;
		GRANT INSERT ON snowflake.node_registry TO pg_database_owner;
	END IF;
END
$grant$;

COMMENT ON FUNCTION @extschema@.nextval_block(pg_catalog.regclass, pg_catalog.int8) IS
	'reserve the next n values of a sequence (INCREMENT 1, NO CYCLE) at once: the block first_id..last_id, never rolled back; n > 1 needs UPDATE on the sequence';
