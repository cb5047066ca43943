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
-- Not a sequence, no relation, snowflake's mark.
CREATE TABLE block_t.tbl (id int8);
SELECT regress.err($$SELECT nextval_block('block_t.tbl', 1)$$);
SELECT regress.err($$SELECT nextval_block(0, 1)$$);
SELECT regress.err($$SELECT nextval_block('snowflake.node_mark', 1)$$);
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
-- Privileges as nextval(): USAGE or UPDATE; SELECT alone is not enough.
CREATE ROLE block_regress_user;
GRANT USAGE ON SCHEMA block_t TO block_regress_user;
CREATE SEQUENCE block_t.priv;
GRANT SELECT ON SEQUENCE block_t.priv TO block_regress_user;
SET ROLE block_regress_user;
SELECT regress.err($$SELECT nextval_block('block_t.priv', 1)$$);
RESET ROLE;
GRANT USAGE ON SEQUENCE block_t.priv TO block_regress_user;
SET ROLE block_regress_user;
SELECT * FROM nextval_block('block_t.priv', 2);
RESET ROLE;
REVOKE USAGE ON SEQUENCE block_t.priv FROM block_regress_user;
GRANT UPDATE ON SEQUENCE block_t.priv TO block_regress_user;
SET ROLE block_regress_user;
SELECT * FROM nextval_block('block_t.priv', 2);
RESET ROLE;
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
