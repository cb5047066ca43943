-- The ulid type: I/O, spec vectors, errors, casts, operators, indexes,
-- binary COPY, generators.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- Spec vectors: text, the same 128 bits as uuid, the time.
SELECT u, u::uuid AS as_uuid, u::timestamptz AS ts, u::timestamp AS ts_utc,
       extract(epoch FROM u::timestamptz) * 1000 AS unix_ms
FROM (VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid),
             ('01AN4Z07BY79KA1307SR9X4MV3'),
             ('01GV5PA9EQG7D82Q3Y4PKBZSYV'),
             ('01GV5PA9EQ0000000000000000'),
             ('00000000000000000000000000'),
             ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')) v(u)
ORDER BY u;
SELECT '01563e3a-b5d3-d676-4c61-efb99302bd5b'::uuid::ulid AS a,
       '015549f0-1d7e-3a66-a08c-07ce13d25363'::uuid::ulid AS b,
       '0186cb65-25d7-81da-815c-7e25a6bfe7db'::uuid::ulid AS c,
       '00000000-0000-0000-0000-000000000000'::uuid::ulid AS nil,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid::ulid AS max;
-- A ULID's bits read as a UUID are not a v7 (here: version 8, no time).
SELECT uuid_extract_version('01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::uuid) AS version,
       uuid_extract_timestamp('01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::uuid) AS ts;
-- A UUIDv7 keeps its millisecond as a ULID.
SELECT '018570bb-4a7d-7000-8000-000000000000'::uuid::ulid::timestamptz AS v7_time;

-- Case-insensitive input, upper-case output; text casts both ways.
SELECT '01arz3ndektsv4rrffq69g5fav'::ulid AS lower,
       '01ArZ3NdEkTsV4RrFfQ69G5FaV'::ulid = '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid AS mixed_equal,
       ('01arz3ndektsv4rrffq69g5fav'::text)::ulid::text AS via_text;

-- Timestamps to ULID: the zero-tail range boundary (floored millisecond).
SELECT '2023-03-10 12:00:49.111+00'::timestamptz::ulid AS from_tz,
       '2023-03-10 12:00:49.111999'::timestamp::ulid AS from_ts_floored,
       '1970-01-01 00:00:00+00'::timestamptz::ulid AS first,
       '10889-08-02 05:31:50.655+00'::timestamptz::ulid AS last;
SET TimeZone = 'America/New_York';
SELECT '01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::timestamp AS ts_is_utc,
       '2023-03-10 12:00:49.111'::timestamp::ulid AS ts_read_as_utc;
SET TimeZone = 'UTC';

-- bytea: exactly 16 bytes, time first.
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::bytea AS bytes,
       '\x01563e3ab5d3d6764c61efb99302bd5b'::bytea::ulid AS back;

-- Every class of bad input, with SQLSTATE, message and detail.
SELECT regress.err($$SELECT ''::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FA'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAVV'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAI'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAl'::ulid$$);
SELECT regress.err($$SELECT 'O1ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSU4RRFFQ69G5FAV'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEK-SV4RRFFQ69G5FAV'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEK SV4RRFFQ69G5FAV'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FÄ'::ulid$$);
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAÄ'::ulid$$);
SELECT regress.err($$SELECT '8ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid$$);
SELECT regress.err($$SELECT 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid$$);
SELECT regress.err($$SELECT '01563e3a-b5d3-d676-4c61-efb99302bd5b'::ulid$$);
SELECT regress.err($$SELECT '\x01563e3ab5d3d6764c61efb99302bd'::bytea::ulid$$);
SELECT regress.err($$SELECT '\x01563e3ab5d3d6764c61efb99302bd5b00'::bytea::ulid$$);
SELECT regress.err($$SELECT '1969-12-31 23:59:59.999+00'::timestamptz::ulid$$);
SELECT regress.err($$SELECT '10889-08-02 05:31:50.656+00'::timestamptz::ulid$$);
SELECT regress.err($$SELECT 'infinity'::timestamptz::ulid$$);
SELECT regress.err($$SELECT '-infinity'::timestamp::ulid$$);
-- Input errors are ordinary errors in a table load too.
CREATE TABLE ulid_bad (id ulid);
SELECT regress.err($$INSERT INTO ulid_bad VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAU')$$);
DROP TABLE ulid_bad;

-- Fixed length 16, not a varlena.
SELECT typlen, typbyval, typalign, typstorage FROM pg_type WHERE typname = 'ulid';
SELECT pg_column_size(gen_ulid()) AS value_size;
CREATE TABLE ulid_t (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), n int NOT NULL);
INSERT INTO ulid_t (n) SELECT g FROM generate_series(1, 2000) g;
SELECT min(pg_column_size(id)) AS min_size, max(pg_column_size(id)) AS max_size FROM ulid_t;

-- Operators follow time order (memcmp order).
SELECT a, b, a = b AS eq, a <> b AS ne, a < b AS lt, a <= b AS le, a > b AS gt, a >= b AS ge
FROM (VALUES ('01AN4Z07BY79KA1307SR9X4MV3'::ulid, '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid),
             ('01ARZ3NDEKTSV4RRFFQ69G5FAV', '01ARZ3NDEKTSV4RRFFQ69G5FAV'),
             ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '00000000000000000000000000')) v(a, b);
SELECT u FROM (VALUES ('01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid), ('01ARZ3NDEKTSV4RRFFQ69G5FAV'),
                      ('01GV5PA9EQ0000000000000000'), ('01AN4Z07BY79KA1307SR9X4MV3')) v(u)
ORDER BY u;
-- Sort support and the btree comparison agree with the time order.
SELECT count(*) FILTER (WHERE id::timestamptz < prev::timestamptz) AS time_goes_back
FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM ulid_t) s;

-- Primary key: duplicates refused.
INSERT INTO ulid_t (id, n) VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV', -1);
SELECT regress.err($$INSERT INTO ulid_t (id, n) VALUES ('01arz3ndektsv4rrffq69g5fav', -2)$$);
DELETE FROM ulid_t WHERE n < 0;

-- btree and hash indexes are used.
CREATE TABLE ulid_h (id ulid NOT NULL, n int NOT NULL);
INSERT INTO ulid_h SELECT id, n FROM ulid_t;
CREATE INDEX ulid_h_hash ON ulid_h USING hash (id);
ANALYZE ulid_t;
ANALYZE ulid_h;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT n FROM ulid_t WHERE id = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
EXPLAIN (COSTS OFF) SELECT count(*) FROM ulid_t WHERE id >= '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid;
EXPLAIN (COSTS OFF) SELECT n FROM ulid_h WHERE id = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
SELECT count(*) AS found_by_hash FROM ulid_h h WHERE h.id = (SELECT id FROM ulid_t WHERE n = 1000);
SELECT count(*) AS found_by_btree FROM ulid_t WHERE id >= (SELECT id FROM ulid_t WHERE n = 1001);
RESET enable_seqscan;
RESET enable_bitmapscan;
-- Hash join and merge join.
SET enable_mergejoin = off;
SELECT count(*) AS hash_joined FROM ulid_t JOIN ulid_h USING (id);
RESET enable_mergejoin;
SET enable_hashjoin = off;
SELECT count(*) AS merge_joined FROM ulid_t JOIN ulid_h USING (id);
RESET enable_hashjoin;
-- Hash partitioning uses the extended hash function.
CREATE TABLE ulid_p (id ulid PRIMARY KEY) PARTITION BY HASH (id);
CREATE TABLE ulid_p0 PARTITION OF ulid_p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE ulid_p1 PARTITION OF ulid_p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO ulid_p SELECT id FROM ulid_t;
SELECT (SELECT count(*) FROM ulid_p0) > 0 AND (SELECT count(*) FROM ulid_p1) > 0 AS both_used,
       (SELECT count(*) FROM ulid_p) AS total;

-- Binary COPY round trip (send/recv).
-- (in pg_regress's output directory, written and read by psql's \copy:
-- the suite runs as any OS user, whatever the server's may write; \copy
-- takes its arguments literally, so the shell expands the path)
\copy ulid_t TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/ulid_copy.bin"' WITH (FORMAT binary)
CREATE TABLE ulid_t2 (LIKE ulid_t);
\copy ulid_t2 FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/ulid_copy.bin"' WITH (FORMAT binary)
SELECT count(*) AS copied,
       count(*) FILTER (WHERE a.n IS DISTINCT FROM b.n) AS mismatched
FROM ulid_t a FULL JOIN ulid_t2 b USING (id);

-- The monotonic generator: strictly increasing in call order.
SELECT count(*) FILTER (WHERE id <= prev) AS not_increasing, count(DISTINCT id) AS distinct_n
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, gen_monotonic_ulid() AS id FROM generate_series(1, 100000) n) g) s;
SELECT count(*) FILTER (WHERE id <= prev) AS table_not_increasing FROM
      (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ulid_t) s;
-- gen_ulid: distinct, current time.
SELECT count(DISTINCT id) AS distinct_n,
       bool_and(abs(extract(epoch FROM id::timestamptz - clock_timestamp())) < 5) AS now_ish
FROM (SELECT gen_ulid() AS id FROM generate_series(1, 100000)) s;

-- Casts: kinds (e = explicit, a = assignment, i = implicit).
SELECT format_type(castsource, NULL) AS source, format_type(casttarget, NULL) AS target,
       castcontext, castmethod
FROM pg_cast
WHERE castsource = 'ulid'::regtype OR casttarget = 'ulid'::regtype
ORDER BY 1, 2;
-- Assignment casts let uuid columns take ulids and back.
CREATE TABLE ulid_as_uuid (u uuid, l ulid, t text);
INSERT INTO ulid_as_uuid SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid, '01563e3a-b5d3-d676-4c61-efb99302bd5b'::uuid, '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid;
SELECT * FROM ulid_as_uuid;
-- No implicit cross-type comparison: ulid = uuid must be written with a cast.
SELECT regress.err($$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid = '01563e3a-b5d3-d676-4c61-efb99302bd5b'::uuid$$);
-- pgx_ulid declares its casts to and from uuid and timestamp IMPLICIT (its
-- src/lib.rs, block ulid_casts), so a time goes where a ulid is expected;
-- here that is 42804 with a HINT naming the one-line changes
-- docs/postgresql.md gives, and they work: gen_ulid() for a key, an
-- explicit cast for a boundary (one value per millisecond: the same for
-- every row of a transaction).  The refusal covers every assignment:
-- INSERT, UPDATE, a PL/pgSQL variable; a function argument finds no cast.
CREATE TABLE ulid_from_time (id ulid PRIMARY KEY);
SELECT regress.err($$INSERT INTO ulid_from_time (id) VALUES (localtimestamp)$$);
SELECT regress.err($$INSERT INTO ulid_from_time (id) VALUES (now())$$);
SELECT regress.err($$INSERT INTO ulid_from_time (id) SELECT clock_timestamp()$$);
SELECT regress.err($x$DO $$ DECLARE v ulid; BEGIN v := now(); END $$$x$);
SELECT regress.err($$SELECT ulid_to_uuid(now())$$);
SELECT regress.err($$SELECT now() = gen_ulid()$$);
INSERT INTO ulid_from_time (id) VALUES (now()::ulid);
SELECT regress.err($$UPDATE ulid_from_time SET id = now()$$);
UPDATE ulid_from_time SET id = CAST(now() - interval '1 day' AS ulid);
DELETE FROM ulid_from_time;
INSERT INTO ulid_from_time (id) VALUES (gen_ulid()), (gen_ulid());
SELECT count(*) AS keys FROM ulid_from_time;
SELECT now()::ulid = now()::ulid AS same_boundary_all_transaction,
       now()::ulid::timestamptz = date_trunc('milliseconds', now()) AS its_millisecond,
       localtimestamp::ulid = now()::ulid AS timestamp_reads_utc;
DROP TABLE ulid_from_time;

-- Flags of every ULID function.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proisstrict, p.proparallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
WHERE p.proname ~ 'ulid'
ORDER BY p.oid::regprocedure::text;

DROP TABLE ulid_t, ulid_t2, ulid_h, ulid_p, ulid_as_uuid;
