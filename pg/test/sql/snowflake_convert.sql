-- snowflake.convert_sequence_to_snowflake(): bigserial, int4 serial with
-- foreign keys (widened transitively), IDENTITY without and with force,
-- and a caller who does not own the table.  What it returns, echoes and
-- refuses follows pgEdge snowflake 2.4 and later (snowflake--2.3--2.4.sql,
-- convert_sequence_to_snowflake() and convert_column_to_int8()): the
-- column that owns the sequence counts only its type changes (and those of
-- the foreign keys that follow it), a column that merely defaults to the
-- sequence counts its default too; every statement is echoed as a NOTICE
-- "EXECUTE ..."; an owning column whose default is not nextval() of the
-- sequence is an error.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET snowflake.node = 1;
\pset null '(null)'

-- Column types, defaults and identity of the test tables.
CREATE FUNCTION pg_temp.cols() RETURNS TABLE (col text, type text, dflt text, ident "char")
LANGUAGE sql AS $$
	SELECT a.attrelid::regclass || '.' || a.attname, format_type(a.atttypid, a.atttypmod),
	       pg_get_expr(d.adbin, d.adrelid), a.attidentity
	  FROM pg_attribute a
	  JOIN pg_class c ON c.oid = a.attrelid AND c.relkind = 'r'
	  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	 WHERE c.relname LIKE 'sf\_%' AND a.attnum > 0 AND NOT a.attisdropped
	   AND a.attname <> 'v'
	 ORDER BY 1
$$;

-- bigserial: the default switches, the old rows stay, new IDs are above them.
CREATE TABLE sf_big (id bigserial PRIMARY KEY, v text);
INSERT INTO sf_big (v) VALUES ('one'), ('two');
SELECT snowflake.convert_sequence_to_snowflake('sf_big_id_seq') AS changes;
SELECT * FROM pg_temp.cols();
INSERT INTO sf_big (v) VALUES ('three'), ('four');
SELECT v, id > 2 AS above_old, snowflake.get_node(id) AS node
  FROM sf_big ORDER BY id;
SELECT snowflake.currval('sf_big_id_seq') = max(id) AS currval_ok FROM sf_big;
-- Converting again finds nothing left to change (the owning column already
-- defaults to snowflake.nextval() of it): 0, a documented no-op.
SELECT snowflake.convert_sequence_to_snowflake('sf_big_id_seq') AS changes_again;
DROP TABLE sf_big;

-- serial alone: 1 (its type), as pgEdge returns; the default is not counted.
CREATE TABLE sf_serial (id serial PRIMARY KEY, v text);
SELECT snowflake.convert_sequence_to_snowflake('sf_serial_id_seq') AS changes;
DROP TABLE sf_serial;

-- The owning column's default is not nextval() of the sequence: a constant,
-- or none at all.  pgEdge raises this error; nothing changes.
CREATE TABLE sf_const (id serial PRIMARY KEY, v text);
ALTER TABLE sf_const ALTER COLUMN id SET DEFAULT 42;
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('sf_const_id_seq')$$);
ALTER TABLE sf_const ALTER COLUMN id DROP DEFAULT;
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('sf_const_id_seq')$$);
SELECT * FROM pg_temp.cols();
SELECT s.seqtypid::regtype FROM pg_sequence s WHERE s.seqrelid = 'sf_const_id_seq'::regclass;
DROP TABLE sf_const;

-- A sequence no column owns, the default of two columns: each switched
-- default counts, and so does the int4 column's type (pgEdge: 1 + 1, then 1).
CREATE SEQUENCE sf_shared_seq AS int4;
CREATE TABLE sf_a (id int4 PRIMARY KEY DEFAULT nextval('sf_shared_seq'), v text);
CREATE TABLE sf_b (id int8 PRIMARY KEY DEFAULT nextval('sf_shared_seq'), v text);
SELECT snowflake.convert_sequence_to_snowflake('sf_shared_seq') AS changes;
SELECT * FROM pg_temp.cols();
DROP TABLE sf_a, sf_b;
-- A sequence nothing uses: converted, nothing else to change.
SELECT snowflake.convert_sequence_to_snowflake('sf_shared_seq') AS changes_unused;
DROP SEQUENCE sf_shared_seq;

-- int4 serial with foreign keys: the column and every column that
-- references it (transitively) become bigint.
CREATE TABLE sf_parent (id serial PRIMARY KEY, v text);
CREATE TABLE sf_child (parent_id int4 PRIMARY KEY REFERENCES sf_parent (id), v text);
CREATE TABLE sf_grand (child_ref int4 REFERENCES sf_child (parent_id), note int2, v text);
INSERT INTO sf_parent (v) VALUES ('p1');
INSERT INTO sf_child VALUES (1, 'c1');
INSERT INTO sf_grand VALUES (1, 7, 'g1');
SELECT snowflake.convert_sequence_to_snowflake('sf_parent_id_seq') AS changes;
SELECT * FROM pg_temp.cols();
SELECT s.seqtypid::regtype, s.seqincrement, s.seqcache, s.seqmax
  FROM pg_sequence s WHERE s.seqrelid = 'sf_parent_id_seq'::regclass;
INSERT INTO sf_parent (v) VALUES ('p2') RETURNING id > 2147483647 AS beyond_int4;
INSERT INTO sf_child SELECT id, 'c2' FROM sf_parent WHERE v = 'p2';
INSERT INTO sf_grand SELECT parent_id, 8, 'g2' FROM sf_child WHERE v = 'c2';
SELECT count(*) AS grand_rows FROM sf_grand JOIN sf_child ON child_ref = parent_id
                                           JOIN sf_parent ON parent_id = sf_parent.id;
SELECT regress.err($$INSERT INTO sf_grand VALUES (42, 0, 'dangling')$$);
DROP TABLE sf_grand, sf_child, sf_parent;

-- IDENTITY: refused with an explanation unless forced.
CREATE TABLE sf_ident (id int4 GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v text);
INSERT INTO sf_ident (v) VALUES ('one'), ('two'), ('three');
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('sf_ident_id_seq')$$);
SELECT * FROM pg_temp.cols();
SELECT snowflake.convert_sequence_to_snowflake('sf_ident_id_seq', force => true) AS changes;
SELECT * FROM pg_temp.cols();
-- The sequence keeps its name and position, now standalone and owned by
-- the column (dropped with the table, as a serial's).
SELECT last_value >= 3 AS kept_position FROM sf_ident_id_seq;
SELECT d.deptype FROM pg_depend d
 WHERE d.classid = 'pg_class'::regclass AND d.objid = 'sf_ident_id_seq'::regclass
   AND d.refobjid = 'sf_ident'::regclass;
INSERT INTO sf_ident (v) VALUES ('four');
SELECT v, snowflake.get_node(id) AS node FROM sf_ident ORDER BY id;
DROP TABLE sf_ident;
SELECT to_regclass('sf_ident_id_seq') AS seq_after_drop;

-- The sequence keeps its INCREMENT, as pgEdge 2.6 does: a sequence made
-- for Hibernate's pooled-lo optimizer (allocation size 50) keeps 50, and
-- its IDs step by 50 within a millisecond; so does a forced identity's.
-- Only a descending sequence (which snowflake.nextval() refuses) becomes
-- INCREMENT BY 1.
CREATE SEQUENCE sf_hib_seq INCREMENT BY 50;
CREATE TABLE sf_hib (id bigint PRIMARY KEY DEFAULT nextval('sf_hib_seq'), v text);
SELECT snowflake.convert_sequence_to_snowflake('sf_hib_seq') AS changes;
SELECT seqincrement, seqtypid::regtype, seqmax, seqcache FROM pg_sequence WHERE seqrelid = 'sf_hib_seq'::regclass;
SELECT bool_and(id - prev = 50) AS steps_of_50_within_a_ms, count(*) > 0 AS some_in_one_ms
  FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev
          FROM (SELECT snowflake.nextval('sf_hib_seq') AS id FROM generate_series(1, 200)) s) t
 WHERE id >> 22 = prev >> 22;
CREATE TABLE sf_hib_ident (id int4 GENERATED BY DEFAULT AS IDENTITY (INCREMENT BY 50), v text);
SELECT snowflake.convert_sequence_to_snowflake('sf_hib_ident_id_seq', force => true) AS changes;
SELECT seqincrement FROM pg_sequence WHERE seqrelid = 'sf_hib_ident_id_seq'::regclass;
CREATE SEQUENCE sf_desc_seq INCREMENT BY -1;
CREATE TABLE sf_desc (id bigint DEFAULT nextval('sf_desc_seq'));
SELECT snowflake.convert_sequence_to_snowflake('sf_desc_seq') AS changes;
SELECT seqincrement FROM pg_sequence WHERE seqrelid = 'sf_desc_seq'::regclass;
SELECT snowflake.nextval('sf_desc_seq') > 0 AS mints;
DROP TABLE sf_hib, sf_hib_ident, sf_desc;
DROP SEQUENCE sf_hib_seq, sf_desc_seq;

-- Not a sequence.
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('pg_class')$$);

-- What pgEdge snowflake 2.4 and earlier left behind (their conversion set
-- MAXVALUE to the last value + 1 and kept a serial's sequence AS integer):
-- snowflake.nextval() refuses it; snowflake.repair_sequences() makes it
-- AS bigint NO MAXVALUE, leaves alone what no snowflake default uses, and
-- finds nothing the second time.
CREATE SEQUENCE sf_pge_seq AS integer MAXVALUE 43;
SELECT setval('sf_pge_seq', 42) AS last;
CREATE TABLE sf_pge (id bigint PRIMARY KEY DEFAULT snowflake.nextval('sf_pge_seq'), v text);
CREATE SEQUENCE sf_other_small MAXVALUE 10;
SELECT regress.err($$INSERT INTO sf_pge (v) VALUES ('refused')$$);
SELECT snowflake.repair_sequences() AS repaired;
SELECT s.seqrelid::regclass AS seq, format_type(s.seqtypid, NULL) AS type, s.seqmax
  FROM pg_sequence s
 WHERE s.seqrelid IN ('sf_pge_seq'::regclass, 'sf_other_small'::regclass)
 ORDER BY 1::text;
INSERT INTO sf_pge (v) VALUES ('minted');
SELECT v, snowflake.get_node(id) AS node FROM sf_pge;
SELECT count(*) AS repaired_again FROM snowflake.repair_sequences();
-- Another role's sequence is skipped, naming its owner; nothing fails.
CREATE ROLE sf_regress_pge_owner;
CREATE ROLE sf_regress_pge_caller;
CREATE SEQUENCE sf_pge_theirs AS integer MAXVALUE 43;
ALTER SEQUENCE sf_pge_theirs OWNER TO sf_regress_pge_owner;
CREATE TABLE sf_pge2 (id bigint PRIMARY KEY DEFAULT snowflake.nextval('sf_pge_theirs'));
SET ROLE sf_regress_pge_caller;
SELECT count(*) AS repaired_by_other FROM snowflake.repair_sequences();
RESET ROLE;
SELECT format_type(s.seqtypid, NULL) AS still FROM pg_sequence s
 WHERE s.seqrelid = 'sf_pge_theirs'::regclass;
DROP TABLE sf_pge, sf_pge2;
DROP SEQUENCE sf_pge_seq, sf_other_small, sf_pge_theirs;
DROP ROLE sf_regress_pge_owner, sf_regress_pge_caller;

-- The caller must own what it changes; nothing is changed otherwise.
CREATE ROLE sf_regress_owner;
CREATE ROLE sf_regress_other;
CREATE TABLE sf_owned (id serial PRIMARY KEY, v text);
ALTER TABLE sf_owned OWNER TO sf_regress_owner;
SET ROLE sf_regress_other;
SELECT regress.err($$SELECT snowflake.convert_sequence_to_snowflake('sf_owned_id_seq')$$);
RESET ROLE;
SELECT * FROM pg_temp.cols();
-- Its owner may convert it.
SET ROLE sf_regress_owner;
SELECT snowflake.convert_sequence_to_snowflake('sf_owned_id_seq') AS changes;
RESET ROLE;
SELECT * FROM pg_temp.cols();
DROP TABLE sf_owned;
DROP ROLE sf_regress_owner;
DROP ROLE sf_regress_other;
RESET snowflake.node;
