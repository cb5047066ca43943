-- The IDs already in people's databases: MongoDB ObjectId and KSUID time
-- (tests/vectors.md), UUID v1 <-> v6 (RFC 9562 A.1 and A.5), the 100-ns
-- time of v1/v6 to the microsecond, chronoid_inspect(), the generators by
-- their properties, errors naming the character and position, validity
-- tests, flags.
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

-- chronoid_inspect: kind, version, time, for every form.
SELECT id, (chronoid_inspect(id)).*
FROM (VALUES ('507f1f77bcf86cd799439011'), ('0ujtsYcgvSTl8PAuAdqWYSMnLOv'),
	('C232AB00-9414-11EC-B3C8-9F6BDECED846'), ('1ec9414c-232a-6b0c-8000-000000000000'),
	('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'), ('919108f7-52d1-4320-9bac-f847db4148a8'),
	('01ARZ3NDEKTSV4RRFFQ69G5FAV'), ('104651375538868224')) AS t(id);
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

DROP TABLE candidates, mongo_rows;

-- Flags: decoders immutable and strict, generators volatile; all parallel safe.
SELECT p.proname, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p
WHERE p.proname IN ('objectid_time', 'ksuid_time', 'objectid_generate', 'ksuid_generate',
	'uuidv1_to_v6', 'uuidv6_to_v1', 'uuidv6', 'chronoid_inspect', 'objectid_is_valid',
	'ksuid_is_valid')
ORDER BY p.oid::regprocedure::text;
