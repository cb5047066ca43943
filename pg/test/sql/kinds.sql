-- The IDs already in people's databases: MongoDB ObjectId and KSUID time
-- (tests/vectors.md), UUID v1 <-> v6 (RFC 9562 A.1 and A.5), the 100-ns
-- time of v1/v6 to the microsecond, chronoid_inspect(), the generators by
-- their properties, errors naming the character and position, validity
-- tests, range boundaries on indexed keys, flags.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- ObjectId: the manual's example and the specification's test plan.
SELECT o, objectid_time(o)
FROM (VALUES ('507f1f77bcf86cd799439011'), ('507F1F77BCF86CD799439011'),
	('000000000000000000000000'), ('7fffffff0000000000000000'),
	('800000000000000000000000'), ('ffffffffffffffffffffffff')) AS t(o);

-- KSUID: the reference's README and its limits.
SELECT k, ksuid_time(k)
FROM (VALUES ('0ujtsYcgvSTl8PAuAdqWYSMnLOv'), ('0ujzPyRiIAffKhBux4PvQdDqMHY'),
	('000000000000000000000000000'), ('aWgEPTl1tmebfsQzFP4bxwgy80V')) AS t(k);

-- Bad input: the value, what is wrong and where.
SELECT regress.err($$SELECT objectid_time('507f1f77bcf86cd79943901z')$$);
SELECT regress.err($$SELECT objectid_time('507f-f77bcf86cd799439011')$$);
SELECT regress.err($$SELECT objectid_time('507f1f77bcf86cd79943901')$$);
SELECT regress.err($$SELECT objectid_time('507f1f77bcf86cd79943901é')$$);
SELECT regress.err($$SELECT ksuid_time('aWgEPTl1tmebfsQzFP4bxwgy80W')$$);
SELECT regress.err($$SELECT ksuid_time('aWgEPTl1tmebfsQzFP4bxwgy80!')$$);
SELECT regress.err($$SELECT ksuid_time('0ujtsYcgvSTl8PAuAdqWYSMnLO')$$);
SELECT objectid_time(NULL) IS NULL AS strict_oid, ksuid_time(NULL) IS NULL AS strict_ksuid;

-- UUID v1 <-> v6: the RFC's two examples are each other's conversion.
SELECT uuidv1_to_v6('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v6,
       uuidv6_to_v1('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v1,
       uuidv6_to_v1(uuidv1_to_v6('C232AB00-9414-11EC-B3C8-9F6BDECED846')) AS back;
SELECT regress.err($$SELECT uuidv1_to_v6('1EC9414C-232A-6B00-B3C8-9F6BDECED846')$$);
SELECT regress.err($$SELECT uuidv6_to_v1('017F22E2-79B0-7CC3-98C4-DC0C0C07398F')$$);
SELECT regress.err($$SELECT uuidv1_to_v6('00000000-0000-0000-0000-000000000000')$$);

-- v1/v6 times to the microsecond (floor of the 100-ns steps), before 1970
-- too; 1582-10-15 is the field's start.
SELECT u, chronoid_uuid_extract_timestamp(u)
FROM (VALUES ('1ec9414c-232a-6b0c-8000-000000000000'::uuid),	-- +12 steps
	('c232ab0c-9414-11ec-8000-000000000000'),					-- the same as v1
	('1b21dd21-3813-6fff-8000-000000000000'),					-- 1 step before 1970
	('00000000-0000-6000-8000-000000000000'),					-- 1582-10-15
	('017F22E2-79B0-7CC3-98C4-DC0C0C07398F')) AS t(u);		-- v7: the ms

-- chronoid_inspect: kind, version, time, prefix, node and sequence, for
-- every form; a snowflake's node and sequence as snowflake.get_node() and
-- get_count() give them.
SELECT id, (chronoid_inspect(id)).*
FROM (VALUES ('507f1f77bcf86cd799439011'), ('0ujtsYcgvSTl8PAuAdqWYSMnLOv'),
	('C232AB00-9414-11EC-B3C8-9F6BDECED846'), ('1ec9414c-232a-6b0c-8000-000000000000'),
	('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'), ('919108f7-52d1-4320-9bac-f847db4148a8'),
	('01ARZ3NDEKTSV4RRFFQ69G5FAV'), ('104651375538868224'), ('9223372036854775807'),
	('user_01h455vb4pex5vsknk084sn02q'), ('a_b_01h455vb4pex5vsknk084sn02q')) AS t(id);
SELECT count(*) AS snowflakes, count(*) FILTER (WHERE i.node = snowflake.get_node(s)
		AND i.sequence = snowflake.get_count(s)) AS agree
FROM (SELECT (random() * 9223372036854775807)::int8 AS s FROM generate_series(1, 1000)) AS r,
	LATERAL chronoid_inspect(s::text) AS i;
SELECT regress.err($$SELECT chronoid_inspect('hello')$$);
SELECT regress.err($$SELECT chronoid_inspect('507f1f77bcf86cd79943901z')$$);
SELECT regress.err($$SELECT chronoid_inspect('0ujtsYcgvSTl8PAuAdqWYSMnLO!')$$);
SELECT regress.err($$SELECT chronoid_inspect('01ARZ3NDEKTSV4RRFFQ69G5FAI')$$);

-- Generators, by their properties: form, time now, distinct; v6 ordered.
SELECT count(*) AS n,
       count(DISTINCT o) AS distinct_oids,
       bool_and(o ~ '^[0-9a-f]{24}$') AS oid_form,
       bool_and(abs(extract(epoch FROM objectid_time(o) - now())) < 60) AS oid_now,
       count(DISTINCT substr(o, 9, 10)) AS process_bytes,
       count(DISTINCT k) AS distinct_ksuids,
       bool_and(k ~ '^[0-9A-Za-z]{27}$') AS ksuid_form,
       bool_and(abs(extract(epoch FROM ksuid_time(k) - now())) < 60) AS ksuid_now
FROM (SELECT objectid_generate() AS o, ksuid_generate() AS k
      FROM generate_series(1, 1000)) AS g;
SELECT count(*) AS n,
       bool_and(uuid_extract_version(u) = 6) AS v6,
       bool_and(abs(extract(epoch FROM chronoid_uuid_extract_timestamp(u) - now())) < 60) AS v6_now,
       bool_and(prev IS NULL OR prev < u) AS increasing
FROM (SELECT u, lag(u) OVER (ORDER BY i) AS prev
      FROM (SELECT i, uuidv6() AS u FROM generate_series(1, 1000) AS i) AS s) AS w;

-- Validity without an error: the same verdict as the parsers' errors,
-- for CHECK constraints and filters.
CREATE TEMP TABLE candidates (t text);
INSERT INTO candidates VALUES ('507f1f77bcf86cd799439011'), ('507F1F77BCF86CD799439011'),
	('507f1f77bcf86cd79943901z'), ('507f1f77bcf86cd79943901'), ('507f1f77bcf86cd7994390é'),
	('0ujtsYcgvSTl8PAuAdqWYSMnLOv'), ('0UJTSYCGVSTL8PAUADQWYSMNLOV'),
	('aWgEPTl1tmebfsQzFP4bxwgy80V'), ('aWgEPTl1tmebfsQzFP4bxwgy80W'),
	('0ujtsYcgvSTl8PAuAdqWYSMnLO!'), (''), (repeat('0', 1048576));
CREATE FUNCTION pg_temp.raises(q text) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN false;
EXCEPTION WHEN OTHERS THEN
	RETURN true;
END $$;
SELECT left(t, 30) AS t, objectid_is_valid(t) AS oid_valid, ksuid_is_valid(t) AS ksuid_valid,
       objectid_is_valid(t) = NOT pg_temp.raises(format('SELECT objectid_time(%L)', t)) AS oid_agrees,
       ksuid_is_valid(t) = NOT pg_temp.raises(format('SELECT ksuid_time(%L)', t)) AS ksuid_agrees
FROM candidates;
CREATE TEMP TABLE mongo_rows (id text PRIMARY KEY CHECK (objectid_is_valid(id)));
INSERT INTO mongo_rows VALUES ('507f1f77bcf86cd799439011');
SELECT regress.err($$INSERT INTO mongo_rows VALUES ('507f1f77bcf86cd79943901z')$$);
SELECT objectid_is_valid(NULL) IS NULL AS strict_oid, ksuid_is_valid(NULL) IS NULL AS strict_ksuid;

-- Mutants: the known IDs with one character replaced, inserted or
-- deleted at random (a fixed seed), from digits, letters of both cases,
-- "_", "-", braces, a space, a tab, DEL and multibyte characters.  Each
-- function accepts the text or refuses it with 22P02 or 22003, a message
-- naming the value and, where a character is at fault, a detail naming
-- that very character at its position; each validity test agrees with
-- its parser.  The counts of failures must be 0.
CREATE FUNCTION pg_temp.mutants(base text, n int) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	pool text := '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-{} ' || chr(9) || chr(127) || 'é€';
	pos int;
	c text;
	op float8;
BEGIN
	FOR i IN 1 .. n LOOP
		pos := 1 + floor(random() * length(base))::int;
		c := substr(pool, 1 + floor(random() * length(pool))::int, 1);
		op := random();
		IF op < 0.7 THEN
			RETURN NEXT overlay(base PLACING c FROM pos FOR 1);
		ELSIF op < 0.85 THEN
			RETURN NEXT overlay(base PLACING c FROM pos FOR 0);
		ELSE
			RETURN NEXT overlay(base PLACING '' FROM pos FOR 1);
		END IF;
	END LOOP;
END $$;
CREATE FUNCTION pg_temp.try(fn text, t text, OUT accepted bool, OUT state text,
							OUT named bool, OUT at int, OUT placed bool) LANGUAGE plpgsql AS $$
DECLARE
	msg text;
	det text;
	c text;
BEGIN
	EXECUTE format('SELECT %s(%L)', fn, t);
	accepted := true;
	named := true;
	placed := true;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	accepted := false;
	named := strpos(msg, '"' || t || '"') > 0;
	at := (regexp_match(det, 'at position (\d+)'))[1]::int;
	c := substr(t, at, 1);
	placed := at IS NULL
		OR strpos(det, '"' || c || '" at position ' || at) > 0
		OR strpos(det, 'Byte 0x' || upper(lpad(to_hex(ascii(c)), 2, '0')) || ' at position ' || at) > 0;
END $$;
SELECT setseed(0.27);
CREATE TEMP TABLE mutant AS
SELECT fn, t, (pg_temp.try(fn, t)).*
FROM (VALUES ('objectid_time', '507f1f77bcf86cd799439011'), ('ksuid_time', '0ujtsYcgvSTl8PAuAdqWYSMnLOv'),
	('typeid_to_uuid', 'user_01h455vb4pex5vsknk084sn02q'), ('chronoid_inspect', '507f1f77bcf86cd799439011'),
	('chronoid_inspect', '0ujtsYcgvSTl8PAuAdqWYSMnLOv'), ('chronoid_inspect', 'user_01h455vb4pex5vsknk084sn02q'),
	('chronoid_inspect', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), ('chronoid_inspect', '01ARZ3NDEKTSV4RRFFQ69G5FAV'),
	('chronoid_inspect', '104651375538868224')) AS b(fn, base),
	LATERAL pg_temp.mutants(base, 300) AS t;
SELECT fn, count(*) AS cases, count(*) FILTER (WHERE accepted) AS accepted,
       count(*) FILTER (WHERE NOT accepted AND state NOT IN ('22P02', '22003')) AS other_state,
       count(*) FILTER (WHERE NOT named) AS value_unnamed,
       count(*) FILTER (WHERE at IS NOT NULL) AS with_position,
       count(*) FILTER (WHERE NOT placed) AS character_misplaced,
       count(*) FILTER (WHERE fn = 'objectid_time' AND objectid_is_valid(t) <> accepted
                           OR fn = 'ksuid_time' AND ksuid_is_valid(t) <> accepted
                           OR fn = 'typeid_to_uuid' AND typeid_is_valid(t) <> accepted) AS validity_disagrees
FROM mutant GROUP BY fn ORDER BY fn;
DROP TABLE mutant;

-- The index condition of a query's plan: the boundary folded to a
-- constant, whichever index scan the planner picks.
CREATE FUNCTION pg_temp.index_cond(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line ~ 'Index Cond' THEN
			RETURN NEXT btrim(line);
		END IF;
	END LOOP;
END $$;

-- Range boundaries.  UUIDv6: the RFC's example lies between the
-- boundaries of its microsecond and the next; the boundary of any time
-- reads back as that time (to the microsecond), and boundaries sort as
-- their times do.
SELECT uuidv6_boundary('2022-02-22 19:22:22+00'::timestamptz) AS v6_from,
       '1EC9414C-232A-6B00-B3C8-9F6BDECED846'::uuid >= uuidv6_boundary('2022-02-22 19:22:22+00'::timestamptz)
       AND '1EC9414C-232A-6B00-B3C8-9F6BDECED846'::uuid < uuidv6_boundary('2022-02-22 19:22:22.000001+00'::timestamptz) AS rfc_inside,
       uuidv6_boundary('2022-02-22 19:22:22'::timestamp) = uuidv6_boundary('2022-02-22 19:22:22+00'::timestamptz) AS ts_is_utc;
SELECT count(*) AS times,
       count(*) FILTER (WHERE chronoid_uuid_extract_timestamp(uuidv6_boundary(t)) = t) AS read_back,
       count(*) FILTER (WHERE uuid_extract_version(uuidv6_boundary(t)) = 6) AS version_6,
       bool_and(prev IS NULL OR uuidv6_boundary(prev) < uuidv6_boundary(t)) AS ordered
FROM (SELECT t, lag(t) OVER (ORDER BY t) AS prev
      FROM (SELECT DISTINCT timestamptz '1582-10-15 00:00:00+00'
                   + make_interval(secs => ((i::numeric * 104729 * 2654435761) % 115000000000)::float8)
                   + (i * 7919 % 1000000) * interval '1 microsecond' AS t
            FROM generate_series(1, 1000) AS i) AS s) AS w;
-- uuidv6() keys minted around a known time: a boundary taken between two
-- batches (10 ms after the first, 10 ms before the second: the
-- generator's steps ahead of the clock are 100 ns a key) splits them
-- exactly, through the primary key's index.
CREATE TEMP TABLE v6_rows (id uuid PRIMARY KEY, batch int NOT NULL);
INSERT INTO v6_rows SELECT uuidv6(), 1 FROM generate_series(1, 500);
SELECT pg_sleep(0.01);
CREATE TEMP TABLE v6_mid AS SELECT clock_timestamp() AS t;
SELECT pg_sleep(0.01);
INSERT INTO v6_rows SELECT uuidv6(), 2 FROM generate_series(1, 500);
SELECT count(*) FILTER (WHERE id >= uuidv6_boundary(t)) AS at_or_after,
       count(*) FILTER (WHERE id >= uuidv6_boundary(t) AND batch = 2) AS second_batch,
       count(*) FILTER (WHERE id < uuidv6_boundary(t) AND batch = 1) AS first_batch
FROM v6_rows, v6_mid;
ANALYZE v6_rows;
SET enable_seqscan = off;
SELECT pg_temp.index_cond($$SELECT count(*) FROM v6_rows WHERE id >= uuidv6_boundary('2024-01-09'::timestamptz)$$);
RESET enable_seqscan;

-- ObjectId and KSUID: text of fixed width whose byte order is time
-- order, so a column under COLLATE "C" takes text boundaries.  The
-- known IDs lie between the boundaries of their second and the next; a
-- boundary reads back as its second.
SELECT objectid_boundary('2012-10-17 21:13:27+00'::timestamptz) AS oid_from,
       '507f1f77bcf86cd799439011' >= objectid_boundary('2012-10-17 21:13:27+00'::timestamptz)
       AND '507f1f77bcf86cd799439011' < objectid_boundary('2012-10-17 21:13:28+00'::timestamptz) AS oid_inside,
       ksuid_boundary('2017-10-10 04:00:47+00'::timestamptz) AS ksuid_from,
       '0ujtsYcgvSTl8PAuAdqWYSMnLOv' COLLATE "C" >= ksuid_boundary('2017-10-10 04:00:47+00'::timestamptz)
       AND '0ujtsYcgvSTl8PAuAdqWYSMnLOv' COLLATE "C" < ksuid_boundary('2017-10-10 04:00:48+00'::timestamptz) AS ksuid_inside;
SELECT count(*) AS seconds,
       count(*) FILTER (WHERE objectid_time(objectid_boundary(t)) = date_trunc('second', t)) AS oid_read_back,
       count(*) FILTER (WHERE ksuid_time(ksuid_boundary(t)) = date_trunc('second', t)) AS ksuid_read_back,
       bool_and(prev IS NULL OR (objectid_boundary(prev) COLLATE "C" < objectid_boundary(t)
                                 AND ksuid_boundary(prev) COLLATE "C" < ksuid_boundary(t))) AS ordered
FROM (SELECT t, lag(t) OVER (ORDER BY t) AS prev
      FROM (SELECT DISTINCT timestamptz '2014-05-13 16:53:20+00'
                   + make_interval(secs => ((i::numeric * 7919 * 2654435761) % 2890000000)::float8 + 0.5) AS t
            FROM generate_series(1, 1000) AS i) AS s) AS w;
CREATE TEMP TABLE text_rows (oid text COLLATE "C" PRIMARY KEY, ksuid text COLLATE "C" UNIQUE NOT NULL, batch int NOT NULL);
INSERT INTO text_rows SELECT objectid_generate(), ksuid_generate(), 1 FROM generate_series(1, 300);
-- The second batch starts at the next whole second, the boundary's.
CREATE TEMP TABLE text_mid AS SELECT date_trunc('second', clock_timestamp()) + interval '1 second' AS t;
SELECT pg_sleep(extract(epoch FROM t - clock_timestamp())::float8 + 0.01) FROM text_mid;
INSERT INTO text_rows SELECT objectid_generate(), ksuid_generate(), 2 FROM generate_series(1, 300);
SELECT count(*) FILTER (WHERE oid >= objectid_boundary(t)) AS oid_after,
       count(*) FILTER (WHERE oid >= objectid_boundary(t) AND batch = 2) AS oid_second_batch,
       count(*) FILTER (WHERE ksuid >= ksuid_boundary(t)) AS ksuid_after,
       count(*) FILTER (WHERE ksuid >= ksuid_boundary(t) AND batch = 2) AS ksuid_second_batch
FROM text_rows, text_mid;
ANALYZE text_rows;
SET enable_seqscan = off;
SELECT pg_temp.index_cond($$SELECT count(*) FROM text_rows WHERE oid >= objectid_boundary('2024-01-09'::timestamptz)$$);
SELECT pg_temp.index_cond($$SELECT count(*) FROM text_rows WHERE ksuid >= ksuid_boundary('2024-01-09'::timestamptz)$$);
RESET enable_seqscan;
DROP TABLE candidates, mongo_rows, v6_rows, v6_mid, text_rows, text_mid;

-- Flags: decoders immutable and strict, generators volatile; all parallel safe.
SELECT p.proname, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p
WHERE p.proname IN ('objectid_time', 'ksuid_time', 'objectid_generate', 'ksuid_generate',
	'uuidv1_to_v6', 'uuidv6_to_v1', 'uuidv6', 'chronoid_inspect', 'objectid_is_valid',
	'ksuid_is_valid', 'uuidv6_boundary', 'objectid_boundary', 'ksuid_boundary')
ORDER BY p.oid::regprocedure::text;
