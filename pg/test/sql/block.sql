-- nextval_block(seq, n): n consecutive values of a sequence at once, as
-- n nextval() calls would give them to one session alone; refusals of
-- sizes and of sequences whose blocks could overlap or come back.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
CREATE SCHEMA block_t;
CREATE SEQUENCE block_t.s;
-- The first block starts at START; nextval() goes on after it, and a
-- block after nextval()'s value.
SELECT * FROM nextval_block('block_t.s', 10);
SELECT nextval('block_t.s');
SELECT first_id, last_id, last_id - first_id + 1 AS n FROM nextval_block('block_t.s', 5);
-- A rollback does not give a block back.
BEGIN;
SELECT * FROM nextval_block('block_t.s', 3);
ROLLBACK;
SELECT * FROM nextval_block('block_t.s', 1);
-- The sequence's value is the last value of the last block.
SELECT last_value, is_called FROM block_t.s;
-- Sizes: 1 to a billion.
SELECT regress.err($$SELECT nextval_block('block_t.s', 0)$$);
SELECT regress.err($$SELECT nextval_block('block_t.s', -1)$$);
SELECT regress.err($$SELECT nextval_block('block_t.s', 1000000001)$$);
SELECT last_id - first_id + 1 AS billion FROM nextval_block('block_t.s', 1000000000);
-- STRICT: a null argument gives a null row.
SELECT * FROM nextval_block(NULL, 1);
SELECT * FROM nextval_block('block_t.s', NULL);
-- Not a sequence, no relation.
CREATE TABLE block_t.tbl (id int8);
SELECT regress.err($$SELECT nextval_block('block_t.tbl', 1)$$);
SELECT regress.err($$SELECT nextval_block(0, 1)$$);
-- Floors of snowflakes, even for a block of one: every sequence of the
-- extension (found as its members) and every sequence a column default
-- or a view passes to snowflake.nextval(), under any name.
SELECT c.oid::regclass AS member, regress.err(format('SELECT nextval_block(%s, 1)', c.oid))
FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
WHERE d.classid = 'pg_class'::regclass AND d.deptype = 'e' AND c.relkind = 'S'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'chronoid')
ORDER BY c.relname;
CREATE SEQUENCE block_t.sf;
CREATE TABLE block_t.sf_tbl (id int8 DEFAULT snowflake.nextval('block_t.sf'));
SELECT regress.err($$SELECT nextval_block('block_t.sf', 1)$$);
ALTER SEQUENCE block_t.sf RENAME TO renamed;
SELECT regress.err($$SELECT nextval_block('block_t.renamed', 1000)$$);
-- A view that passes a sequence to snowflake.nextval() makes it a floor too.
CREATE SEQUENCE block_t.sf_view_seq;
CREATE VIEW block_t.sf_view AS SELECT snowflake.nextval('block_t.sf_view_seq') AS id;
SELECT regress.err($$SELECT nextval_block('block_t.sf_view_seq', 1)$$);
-- A look-alike snowflake.nextval() of another schema is not chronoid's:
-- its sequence is an ordinary one.
CREATE FUNCTION block_t.nextval(regclass) RETURNS int8 LANGUAGE sql AS 'SELECT 1::int8';
CREATE SEQUENCE block_t.lookalike;
CREATE TABLE block_t.la_tbl (id int8 DEFAULT block_t.nextval('block_t.lookalike'));
SELECT * FROM nextval_block('block_t.lookalike', 3);
-- Sequences whose blocks would overlap or come back.
CREATE SEQUENCE block_t.by2 INCREMENT 2;
SELECT regress.err($$SELECT nextval_block('block_t.by2', 1)$$);
CREATE SEQUENCE block_t.down INCREMENT -1;
SELECT regress.err($$SELECT nextval_block('block_t.down', 1)$$);
CREATE SEQUENCE block_t.cyc MAXVALUE 10 CYCLE;
SELECT regress.err($$SELECT nextval_block('block_t.cyc', 1)$$);
CREATE UNLOGGED SEQUENCE block_t.unl;
SELECT regress.err($$SELECT nextval_block('block_t.unl', 1)$$);
-- MAXVALUE: a block fits or is refused whole, naming what is left.
CREATE SEQUENCE block_t.small MAXVALUE 20;
SELECT * FROM nextval_block('block_t.small', 15);
SELECT regress.err($$SELECT nextval_block('block_t.small', 10)$$);
SELECT * FROM nextval_block('block_t.small', 5);
SELECT regress.err($$SELECT nextval_block('block_t.small', 1)$$);
SELECT regress.err($$SELECT nextval('block_t.small')$$);
-- The type's bounds: int4 and the end of int8, before and after the
-- first call.
CREATE SEQUENCE block_t.i4 AS integer START 2147483640;
SELECT * FROM nextval_block('block_t.i4', 8);
SELECT regress.err($$SELECT nextval_block('block_t.i4', 1)$$);
CREATE SEQUENCE block_t.top START 9223372036854775807;
SELECT * FROM nextval_block('block_t.top', 1);
SELECT regress.err($$SELECT nextval_block('block_t.top', 1)$$);
CREATE SEQUENCE block_t.near_top START 9223372036854775800;
SELECT * FROM nextval_block('block_t.near_top', 3);
SELECT regress.err($$SELECT nextval_block('block_t.near_top', 1000)$$);
SELECT * FROM nextval_block('block_t.near_top', 5);
-- Negative values, from MINVALUE up.
CREATE SEQUENCE block_t.neg MINVALUE -9223372036854775808 START -9223372036854775808;
SELECT * FROM nextval_block('block_t.neg', 4);
SELECT nextval('block_t.neg');
-- A temporary sequence works; a read-only transaction cannot reserve.
CREATE TEMP SEQUENCE tmp_s;
SELECT * FROM nextval_block('tmp_s', 2);
BEGIN READ ONLY;
SELECT regress.err($$SELECT nextval_block('block_t.s', 1)$$);
ROLLBACK;
-- Privileges: a block of one as nextval() (USAGE or UPDATE), a larger
-- block as setval() (UPDATE); SELECT alone is not enough.
CREATE ROLE block_regress_user;
GRANT USAGE ON SCHEMA block_t TO block_regress_user;
CREATE SEQUENCE block_t.priv;
GRANT SELECT ON SEQUENCE block_t.priv TO block_regress_user;
SET ROLE block_regress_user;
SELECT regress.err($$SELECT nextval_block('block_t.priv', 1)$$);
RESET ROLE;
GRANT USAGE ON SEQUENCE block_t.priv TO block_regress_user;
SET ROLE block_regress_user;
SELECT * FROM nextval_block('block_t.priv', 1);
SELECT regress.err($$SELECT nextval_block('block_t.priv', 2)$$);
SELECT regress.err($$SELECT nextval_block('block_t.priv', 1000000000)$$);
RESET ROLE;
SELECT last_value FROM block_t.priv;
REVOKE USAGE ON SEQUENCE block_t.priv FROM block_regress_user;
GRANT UPDATE ON SEQUENCE block_t.priv TO block_regress_user;
SET ROLE block_regress_user;
SELECT * FROM nextval_block('block_t.priv', 2);
RESET ROLE;
-- The attack: a role with no grant at all, on the default sequence of
-- snowflake.nextval() (USAGE to PUBLIC), half a million billion-value
-- blocks in one statement.  Refused at the first; the sequence and the
-- ID space do not move.  And an integer serial to which the role has
-- USAGE is not used up in three calls: blocks of one, as nextval().
SELECT last_value AS id_seq_before FROM snowflake.id_seq \gset
SET ROLE block_regress_user;
SELECT regress.err($$SELECT count(*) FROM generate_series(1, 500000) g,
                     LATERAL nextval_block('snowflake.id_seq', 1000000000)$$);
RESET ROLE;
SELECT last_value = :id_seq_before AS id_seq_unmoved FROM snowflake.id_seq;
CREATE TABLE block_t.ser (id serial PRIMARY KEY);
GRANT USAGE ON SEQUENCE block_t.ser_id_seq TO block_regress_user;
SET ROLE block_regress_user;
SELECT regress.err($$SELECT nextval_block('block_t.ser_id_seq', 1000000000)$$);
RESET ROLE;
SELECT last_value, is_called FROM block_t.ser_id_seq;
-- With UPDATE (the right to setval() it to its end anyway), the block
-- that would pass an integer's end is refused whole, naming what is left.
SELECT * FROM nextval_block('block_t.ser_id_seq', 1000000000);
SELECT * FROM nextval_block('block_t.ser_id_seq', 1000000000);
SELECT regress.err($$SELECT nextval_block('block_t.ser_id_seq', 1000000000)$$);
-- Not SECURITY DEFINER, and no search_path lookup of its own.
SELECT p.prosecdef, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p WHERE p.oid = 'nextval_block(regclass, int8)'::regprocedure;
-- Many blocks in one statement never overlap.
CREATE SEQUENCE block_t.many;
SELECT count(*) AS blocks,
       bool_and(b.first_id = coalesce(b.prev_last, 0) + 1) AS consecutive
FROM (SELECT first_id, lag(last_id) OVER (ORDER BY first_id) AS prev_last
      FROM generate_series(1, 100) g, LATERAL nextval_block('block_t.many', g) ) b;
SET client_min_messages = warning;
DROP SCHEMA block_t CASCADE;
DROP ROLE block_regress_user;
RESET client_min_messages;
