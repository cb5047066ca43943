-- Hostile input for schema snowflake: NULL, 0, -1, int8 min and max for
-- every decoder; the ends of the pgEdge layout (2023-01-01 and
-- 2092-09-06 15:47:35.551 UTC) and one millisecond past them, +-infinity,
-- times before 2023 for from_timestamp; relations that are not sequences,
-- OIDs that name nothing and an unset node for nextval/currval/convert.
-- One line per case: label | expected | got | pass | message names the
-- value | message.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

SELECT regress.hostile_begin();

CREATE TABLE hostile_tab (id serial PRIMARY KEY);
CREATE VIEW hostile_view AS SELECT 1 AS x;
CREATE SEQUENCE hostile_seq;
CREATE SEQUENCE hostile_fresh;
SET snowflake.node = 7;
-- Runs a statement with snowflake.node unset (undone with the case's
-- subtransaction).
CREATE FUNCTION pg_temp.node_unset(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	v text;
BEGIN
	RESET snowflake.node;
	-- A server whose configuration sets snowflake.node (every production
	-- server) cannot unset it in a session (0 is refused): the case then
	-- gives the answer it checks, and the unset case is checked where the
	-- configuration leaves it unset (pg/test/run.sh's clusters).
	IF current_setting('snowflake.node') <> '0' THEN
		RAISE EXCEPTION 'snowflake.node is not set' USING ERRCODE = '55000';
	END IF;
	EXECUTE q INTO v;
	RETURN v;
END $$;

INSERT INTO hostile (fn, label, q, expect, needle) VALUES
-- Decoders: STRICT, every non-negative bigint decodes, negatives refused.
('snowflake.get_epoch(bigint)', 'get_epoch: NULL', $q$SELECT snowflake.get_epoch(NULL)::text$q$, 'null', NULL),
('snowflake.get_epoch(bigint)', 'get_epoch: 0', $q$SELECT snowflake.get_epoch(0)::text$q$, '1672531200.000', NULL),
('snowflake.get_epoch(bigint)', 'get_epoch: int8 max', $q$SELECT snowflake.get_epoch(9223372036854775807)::text$q$, '3871554455.551', NULL),
('snowflake.get_epoch(bigint)', 'get_epoch: -1', $q$SELECT snowflake.get_epoch(-1)::text$q$, '22003', 'snowflake -1 '),
('snowflake.get_epoch(bigint)', 'get_epoch: int8 min', $q$SELECT snowflake.get_epoch(-9223372036854775808)::text$q$, '22003', '-9223372036854775808'),
('snowflake.get_count(bigint)', 'get_count: NULL', $q$SELECT snowflake.get_count(NULL)::text$q$, 'null', NULL),
('snowflake.get_count(bigint)', 'get_count: 0', $q$SELECT snowflake.get_count(0)::text$q$, '0', NULL),
('snowflake.get_count(bigint)', 'get_count: int8 max', $q$SELECT snowflake.get_count(9223372036854775807)::text$q$, '4095', NULL),
('snowflake.get_count(bigint)', 'get_count: -1', $q$SELECT snowflake.get_count(-1)::text$q$, '22003', 'snowflake -1 '),
('snowflake.get_count(bigint)', 'get_count: -4096', $q$SELECT snowflake.get_count(-4096)::text$q$, '22003', 'snowflake -4096 '),
('snowflake.get_node(bigint)', 'get_node: NULL', $q$SELECT snowflake.get_node(NULL)::text$q$, 'null', NULL),
('snowflake.get_node(bigint)', 'get_node: 0', $q$SELECT snowflake.get_node(0)::text$q$, '0', NULL),
('snowflake.get_node(bigint)', 'get_node: 4095 (counter only)', $q$SELECT snowflake.get_node(4095)::text$q$, '0', NULL),
('snowflake.get_node(bigint)', 'get_node: 4096', $q$SELECT snowflake.get_node(4096)::text$q$, '1', NULL),
('snowflake.get_node(bigint)', 'get_node: int8 max', $q$SELECT snowflake.get_node(9223372036854775807)::text$q$, '1023', NULL),
('snowflake.get_node(bigint)', 'get_node: int8 min', $q$SELECT snowflake.get_node(-9223372036854775808)::text$q$, '22003', '-9223372036854775808'),
('snowflake.to_timestamp(bigint)', 'to_timestamp: NULL', $q$SELECT snowflake.to_timestamp(NULL)::text$q$, 'null', NULL),
('snowflake.to_timestamp(bigint)', 'to_timestamp: 0 (the epoch)', $q$SELECT snowflake.to_timestamp(0)::text$q$, '2023-01-01 00:00:00+00', NULL),
('snowflake.to_timestamp(bigint)', 'to_timestamp: 1 ms', $q$SELECT snowflake.to_timestamp(4194304)::text$q$, '2023-01-01 00:00:00.001+00', NULL),
('snowflake.to_timestamp(bigint)', 'to_timestamp: int8 max (2092)', $q$SELECT snowflake.to_timestamp(9223372036854775807)::text$q$, '2092-09-06 15:47:35.551+00', NULL),
('snowflake.to_timestamp(bigint)', 'to_timestamp: -1', $q$SELECT snowflake.to_timestamp(-1)::text$q$, '22003', 'snowflake -1 '),
('snowflake.to_timestamp(bigint)', 'to_timestamp: int8 min', $q$SELECT snowflake.to_timestamp(-9223372036854775808)::text$q$, '22003', '-9223372036854775808'),
('snowflake.format(bigint)', 'format: NULL', $q$SELECT snowflake.format(NULL)::text$q$, 'null', NULL),
('snowflake.format(bigint)', 'format: 0', $q$SELECT snowflake.format(0)::text$q$, '{"id": 0, "ts": "2023-01-01 00:00:00+00", "node": 0, "count": 0}', NULL),
('snowflake.format(bigint)', 'format: int8 max', $q$SELECT snowflake.format(9223372036854775807)::text$q$, '{"id": 1023, "ts": "2092-09-06 15:47:35.551+00", "node": 1023, "count": 4095}', NULL),
('snowflake.format(bigint)', 'format: -1', $q$SELECT snowflake.format(-1)::text$q$, '22003', 'snowflake -1 '),
('snowflake.format(bigint)', 'format: int8 min', $q$SELECT snowflake.format(-9223372036854775808)::text$q$, '22003', '-9223372036854775808'),
-- from_timestamp: 2023-01-01 .. 2092-09-06 15:47:35.551 UTC, floored.
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: NULL', $q$SELECT snowflake.from_timestamp(NULL)::text$q$, 'null', NULL),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: the epoch', $q$SELECT snowflake.from_timestamp('2023-01-01 00:00:00+00')::text$q$, '0', NULL),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: epoch + 999 us', $q$SELECT snowflake.from_timestamp('2023-01-01 00:00:00.000999+00')::text$q$, '0', NULL),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: 1 us before 2023', $q$SELECT snowflake.from_timestamp('2022-12-31 23:59:59.999999+00')::text$q$, '22008', '"2022-12-31 23:59:59.999999+00"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: Unix epoch 0', $q$SELECT snowflake.from_timestamp('1970-01-01 00:00:00+00')::text$q$, '22008', '"1970-01-01 00:00:00+00"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: 4713 BC', $q$SELECT snowflake.from_timestamp('4713-01-01 00:00:00+00 BC')::text$q$, '22008', '"4713-01-01 00:00:00+00 BC"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: last ms of 2092', $q$SELECT snowflake.from_timestamp('2092-09-06 15:47:35.551999+00')::text$q$, '9223372036850581504', NULL),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: 1 ms past the end', $q$SELECT snowflake.from_timestamp('2092-09-06 15:47:35.552+00')::text$q$, '22008', '"2092-09-06 15:47:35.552+00"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: year 294276', $q$SELECT snowflake.from_timestamp('294276-12-31 23:59:59.999999+00')::text$q$, '22008', '"294276-12-31 23:59:59.999999+00"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: infinity', $q$SELECT snowflake.from_timestamp('infinity')::text$q$, '22008', '"infinity"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: -infinity', $q$SELECT snowflake.from_timestamp('-infinity')::text$q$, '22008', '"-infinity"'),
('snowflake.from_timestamp(timestamp with time zone)', 'from_timestamp: round trip at the end', $q$SELECT snowflake.to_timestamp(snowflake.from_timestamp('2092-09-06 15:47:35.551+00'))::text$q$, '2092-09-06 15:47:35.551+00', NULL),
-- nextval/currval: NULL is an error (not STRICT), bad relations named.
('snowflake.nextval(regclass)', 'nextval: NULL', $q$SELECT snowflake.nextval(NULL)::text$q$, '22004', 'snowflake.nextval'),
('snowflake.nextval(regclass)', 'nextval: OID 0', $q$SELECT snowflake.nextval(0)::text$q$, '42P01', 'OID 0 '),
('snowflake.nextval(regclass)', 'nextval: OID 4294967295', $q$SELECT snowflake.nextval(4294967295)::text$q$, '42P01', '4294967295'),
('snowflake.nextval(regclass)', 'nextval: a table', $q$SELECT snowflake.nextval('hostile_tab')::text$q$, '42809', '"hostile_tab"'),
('snowflake.nextval(regclass)', 'nextval: a view', $q$SELECT snowflake.nextval('hostile_view')::text$q$, '42809', '"hostile_view"'),
('snowflake.nextval(regclass)', 'nextval: an index', $q$SELECT snowflake.nextval('hostile_tab_pkey')::text$q$, '42809', '"hostile_tab_pkey"'),
('snowflake.nextval(regclass)', 'nextval: a name that does not exist', $q$SELECT snowflake.nextval('no_such_sequence')::text$q$, '42P01', '"no_such_sequence"'),
('snowflake.nextval(regclass)', 'nextval: 10000-character name', $q$SELECT snowflake.nextval(repeat('s', 10000))::text$q$, '42P01', 'sssss'),
('snowflake.nextval(regclass)', 'nextval: node 7 in the ID', $q$SELECT snowflake.get_node(snowflake.nextval('hostile_seq'))::text$q$, '7', NULL),
('snowflake.nextval(regclass)', 'nextval: node unset', $q$SELECT pg_temp.node_unset($$SELECT snowflake.nextval('hostile_seq')$$)$q$, '55000', 'snowflake.node'),
('snowflake.currval(regclass)', 'currval: NULL', $q$SELECT snowflake.currval(NULL)::text$q$, '22004', 'snowflake.currval'),
('snowflake.currval(regclass)', 'currval: OID 0', $q$SELECT snowflake.currval(0)::text$q$, '42P01', 'OID 0 '),
('snowflake.currval(regclass)', 'currval: a table', $q$SELECT snowflake.currval('hostile_tab')::text$q$, '42809', '"hostile_tab"'),
('snowflake.currval(regclass)', 'currval: before the first nextval', $q$SELECT snowflake.currval('hostile_fresh')::text$q$, '55000', '"hostile_fresh"'),
('snowflake.currval(regclass)', 'currval: after nextval', $q$SELECT (snowflake.currval('hostile_seq') > 0)::text$q$, 'true', NULL),
-- convert_sequence_to_snowflake: STRICT; only sequences.
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: NULL sequence', $q$SELECT snowflake.convert_sequence_to_snowflake(NULL)::text$q$, 'null', NULL),
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: NULL force', $q$SELECT snowflake.convert_sequence_to_snowflake('hostile_tab_id_seq', NULL)::text$q$, 'null', NULL),
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: OID 0', $q$SELECT snowflake.convert_sequence_to_snowflake(0)::text$q$, '42P01', '"0" '),
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: OID 4294967295', $q$SELECT snowflake.convert_sequence_to_snowflake(4294967295)::text$q$, '42P01', '4294967295'),
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: a table', $q$SELECT snowflake.convert_sequence_to_snowflake('hostile_tab')::text$q$, '42809', 'hostile_tab"'),
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: a view', $q$SELECT snowflake.convert_sequence_to_snowflake('hostile_view')::text$q$, '42809', 'hostile_view"'),
('snowflake.convert_sequence_to_snowflake(regclass,boolean)', 'convert: a serial (its type change; pgEdge 2.4+ counts no default)', $q$SELECT snowflake.convert_sequence_to_snowflake('hostile_tab_id_seq')::text$q$, '1', NULL),
('snowflake.repair_sequences()', 'repair: nothing left to repair', $q$SELECT count(*)::text FROM snowflake.repair_sequences()$q$, '0', NULL),
-- The node registry's functions.
('snowflake.server_label()', 'server_label: never NULL', $q$SELECT (snowflake.server_label() IS NOT NULL)::text$q$, 'true', NULL),
('snowflake.check_node()', 'check_node: node unset', $q$SELECT pg_temp.node_unset('SELECT snowflake.check_node()')$q$, '55000', 'snowflake.node'),
('snowflake.register_node(integer,boolean)', 'register_node: NULL', $q$SELECT snowflake.register_node(NULL, true)::text$q$, 'null', NULL),
('snowflake.register_node(integer,boolean)', 'register_node: 1024, no insert (nothing claimed)', $q$SELECT snowflake.register_node(1024, false)::text$q$, 'false', NULL),
('snowflake.claim_node(integer,bigint,text)', 'claim_node: 0', $q$SELECT snowflake.claim_node(0)::text$q$, '22003', 'node 0 '),
('snowflake.claim_node(integer,bigint,text)', 'claim_node: 1024', $q$SELECT snowflake.claim_node(1024)::text$q$, '22003', 'node 1024 '),
('snowflake.claim_node(integer,bigint,text)', 'claim_node: int4 min', $q$SELECT snowflake.claim_node(-2147483648)::text$q$, '22003', 'node -2147483648 '),
('snowflake.release_node(integer)', 'release_node: NULL', $q$SELECT snowflake.release_node(NULL)::text$q$, 'null', NULL),
('snowflake.release_node(integer)', 'release_node: int4 max (never claimed)', $q$SELECT snowflake.release_node(2147483647)::text$q$, 'false', NULL),
('snowflake.node_registry_dedup()', 'node_registry_dedup: called directly', $q$SELECT snowflake.node_registry_dedup()::text$q$, '0A000', NULL);

-- Every case, one line each: label | expected | got | pass | whether the
-- message names the value | message.  Then the totals: no case failed,
-- every refused value is named in its error.
SELECT line FROM regress.hostile_report();
SELECT * FROM regress.hostile_summary();

-- Coverage: every function in schema snowflake has at least one case
-- above (this list must be empty).
SELECT p.oid::regprocedure::text AS untested
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
 WHERE p.pronamespace = 'snowflake'::regnamespace
   AND p.oid::regprocedure::text NOT IN (SELECT fn FROM hostile)
 ORDER BY 1;

DROP VIEW hostile_view;
DROP TABLE hostile_tab;
DROP SEQUENCE hostile_seq, hostile_fresh;
RESET snowflake.node;
