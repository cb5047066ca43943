-- UUID functions: RFC 9562 vectors, extraction, uuidv4, function flags.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- RFC 9562 appendix A and B, nil and max.
SELECT v.section, u,
       uuid_extract_version(u) AS version,
       uuid_extract_timestamp(u) AS ts,
       chronoid_uuid_extract_version(u) IS NOT DISTINCT FROM uuid_extract_version(u) AS same_v,
       chronoid_uuid_extract_timestamp(u) IS NOT DISTINCT FROM uuid_extract_timestamp(u) AS same_ts
FROM (VALUES
	('A.1', 'C232AB00-9414-11EC-B3C8-9F6BDECED846'::uuid),
	('A.2', '5df41881-3aed-3515-88a7-2f4a814cf09e'),
	('A.3', '919108f7-52d1-4320-9bac-f847db4148a8'),
	('A.4', '2ed6657d-e927-568b-95e1-2665a8aea6a2'),
	('A.5', '1EC9414C-232A-6B00-B3C8-9F6BDECED846'),
	('A.6', '017F22E2-79B0-7CC3-98C4-DC0C0C07398F'),
	('B.1', '2489E9AD-2EE2-8E00-8EC9-32D5F69181C0'),
	('B.2', '5c146b14-3c52-8afd-938a-375d0df1fbf6'),
	('v7', '019535d9-3df7-79fb-b466-fa907fa17f9e'),
	('nil', '00000000-0000-0000-0000-000000000000'),
	('max', 'ffffffff-ffff-ffff-ffff-ffffffffffff')) AS v(section, u)
ORDER BY 1;

-- Millisecond precision, and Unix ms as the RFC gives them.
SELECT extract(epoch FROM uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F')) * 1000 AS a6_ms,
       extract(epoch FROM uuid_extract_timestamp('019535d9-3df7-79fb-b466-fa907fa17f9e')) * 1000 AS v7_ms;

-- Variant bits decide: a v7 nibble with the wrong (NCS/Microsoft) variant is no RFC UUID.
SELECT uuid_extract_version('017f22e2-79b0-7cc3-18c4-dc0c0c07398f') AS ncs_variant,
       uuid_extract_timestamp('017f22e2-79b0-7cc3-d8c4-dc0c0c07398f') AS microsoft_variant;

-- STRICT: NULL in, NULL out.
SELECT uuid_extract_version(NULL) IS NULL AS v_null,
       uuid_extract_timestamp(NULL) IS NULL AS ts_null,
       uuid_v7_to_timestamptz(NULL) IS NULL AS v7ts_null,
       uuidv7(NULL::interval) IS NULL AS shift_null;

-- uuidv4: version 4, RFC variant, distinct.
SELECT count(*) AS n,
       count(DISTINCT u) AS distinct_n,
       bool_and(uuid_extract_version(u) = 4) AS all_v4,
       bool_and(substr(u::text, 20, 1) IN ('8', '9', 'a', 'b')) AS all_rfc_variant,
       bool_and(uuid_extract_timestamp(u) IS NULL) AS no_time
FROM (SELECT uuidv4() AS u FROM generate_series(1, 10000)) s;

-- Flags of every UUID function (volatility, strictness, parallel safety).
SELECT p.oid::regprocedure AS function, p.provolatile, p.proisstrict, p.proparallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
WHERE p.proname ~ 'uuid' AND p.proname !~ 'ulid'
ORDER BY p.oid::regprocedure::text;
