-- UUIDv7: generator order and shift (PostgreSQL 18 semantics), pg_uuidv7
-- names, the zero-tail boundary and its use in indexes.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- Ten consecutive calls sort in call order; so do 100000 (many per ms).
SELECT array_agg(u ORDER BY n) = array_agg(u ORDER BY u) AS ten_in_order
FROM (SELECT n, uuidv7() AS u FROM generate_series(1, 10) n) s;
SELECT count(*) FILTER (WHERE u <= prev) AS out_of_order,
       count(DISTINCT u) AS distinct_n,
       bool_and(uuid_extract_version(u) = 7) AS all_v7,
       bool_and(substr(u::text, 20, 1) IN ('8', '9', 'a', 'b')) AS all_rfc_variant
FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuidv7() AS u FROM generate_series(1, 100000) n) g) s;

-- All of chronoid's names share the session's generator: interleaved calls
-- still increase.  Schema-qualified: on PostgreSQL 18 the bare uuidv7() is
-- core's, a generator of its own (pg/test/scenarios/core_names.sh).
SELECT bool_and(b > a AND c > b AND d > c) AS interleaved_in_order
FROM (SELECT public.uuidv7() a, uuid_generate_v7() b, chronoid_uuidv7() c, public.uuidv7() d
      FROM generate_series(1, 1000)) s;

-- The embedded time is the clock's (within a few seconds of now).
SELECT abs(extract(epoch FROM uuid_extract_timestamp(uuidv7()) - clock_timestamp())) < 5 AS now_ish,
       abs(extract(epoch FROM uuid_extract_timestamp(chronoid_uuidv7(interval '-1 day'))
                   - (clock_timestamp() - interval '1 day'))) < 5 AS shifted_day;

-- Shift sweep, one per year from 1970 to 10888: never decreasing, right year.
SELECT count(*) AS n,
       count(*) FILTER (WHERE u <= prev) AS decreasing,
       count(*) FILTER (WHERE extract(year FROM uuid_extract_timestamp(u)) <> y) AS wrong_year
FROM (SELECT y, u, lag(u) OVER (ORDER BY y) AS prev
      FROM (SELECT y, uuidv7(make_interval(years => y - extract(year FROM now())::int)) AS u
            FROM generate_series(1970, 10888) y) g) s;

-- Shifts that leave the 48-bit range, or PostgreSQL's timestamp range.
SELECT regress.err($$SELECT uuidv7(interval '9000 years')$$);
SELECT regress.err($$SELECT uuidv7(interval '-100 years')$$);
SELECT regress.err($$SELECT chronoid_uuidv7(interval '300000 years')$$);
-- Infinite intervals exist from PostgreSQL 17; 15 rejects them at input.
-- (On 18 the bare name is core's: chronoid_uuidv7() is chronoid's there.)
SELECT regress.err($$SELECT uuidv7('infinity'::interval)$$);
SELECT regress.err($$SELECT chronoid_uuidv7('-infinity'::interval)$$);

-- pg_uuidv7's known constant, both directions, both timestamp types.
SELECT uuid_v7_to_timestamptz('018570bb-4a7d-7000-8000-000000000000') AS tz,
       uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000') AS ts;
SELECT uuid_v7_to_timestamptz('018570bb-4a7d-7000-8000-000000000000') = '2023-01-02 04:26:40.637+00' AS tz_equal,
       uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000') = '2023-01-02 04:26:40.637' AS ts_equal;
SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00', true) AS tz_zero,
       uuid_timestamp_to_v7('2023-01-02 04:26:40.637', true) AS ts_zero,
       uuidv7_boundary('2023-01-02 04:26:40.637+00'::timestamptz) AS boundary_tz,
       uuidv7_boundary('2023-01-02 04:26:40.637'::timestamp) AS boundary_ts;
-- A random tail is larger than the boundary and below the next millisecond's.
SELECT bool_and(r > '018570bb-4a7d-7000-8000-000000000000' AND r < '018570bb-4a7e-7000-8000-000000000000') AS tz_random_in_ms,
       bool_and(uuid_extract_version(r) = 7) AS v7,
       count(DISTINCT r) AS distinct_n
FROM (SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00') AS r FROM generate_series(1, 100)) s;
SELECT bool_and(r > '018570bb-4a7d-7000-8000-000000000000' AND r < '018570bb-4a7e-7000-8000-000000000000') AS ts_random_in_ms
FROM (SELECT uuid_timestamp_to_v7('2023-01-02 04:26:40.637', zero => false) AS r FROM generate_series(1, 100)) s;
-- The boundary floors to the millisecond; the timestamp form reads UTC.
SET TimeZone = 'Asia/Kolkata';
SELECT uuidv7_boundary('2023-01-02 04:26:40.637999+00'::timestamptz) AS floored,
       uuidv7_boundary('2023-01-02 04:26:40.637'::timestamp) AS utc_wall_clock,
       uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000') AS ts_is_utc;
SET TimeZone = 'UTC';

-- The edges of the 48-bit range, and just outside (floored, not truncated).
SELECT uuidv7_boundary('1970-01-01 00:00:00+00'::timestamptz) AS first,
       uuidv7_boundary('1970-01-01 00:00:00.0009+00'::timestamptz) AS first_floored,
       uuidv7_boundary('10889-08-02 05:31:50.655+00'::timestamptz) AS last,
       uuid_extract_timestamp(uuidv7_boundary('10889-08-02 05:31:50.655+00'::timestamptz)) AS last_ts;
SELECT regress.err($$SELECT uuidv7_boundary('1969-12-31 23:59:59.9995+00'::timestamptz)$$);
SELECT regress.err($$SELECT uuidv7_boundary('10889-08-02 05:31:50.656+00'::timestamptz)$$);
SELECT regress.err($$SELECT uuidv7_boundary('infinity'::timestamptz)$$);
SELECT regress.err($$SELECT uuid_timestamp_to_v7('-infinity'::timestamp)$$);
SELECT regress.err($$SELECT uuid_timestamptz_to_v7('1960-01-01+00', true)$$);

-- uuid_v7_to_* refuse UUIDs that are not version 7.
SELECT regress.err($$SELECT uuid_v7_to_timestamptz('919108f7-52d1-4320-9bac-f847db4148a8')$$);
SELECT regress.err($$SELECT uuid_v7_to_timestamp('00000000-0000-0000-0000-000000000000')$$);

-- The boundary is IMMUTABLE: folded to a constant in WHERE, usable in an index.
CREATE TABLE v7t (id uuid PRIMARY KEY DEFAULT uuidv7(), at timestamptz NOT NULL);
INSERT INTO v7t (id, at)
SELECT uuid_timestamptz_to_v7(t), t
FROM generate_series('2024-01-01'::timestamptz, '2024-01-10', '1 hour') t;
CREATE INDEX v7t_at_boundary ON v7t (uuidv7_boundary(at));
ANALYZE v7t;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v7t WHERE id >= uuidv7_boundary('2024-01-09'::timestamptz);
SELECT count(*) FROM v7t WHERE id >= uuidv7_boundary('2024-01-09'::timestamptz);
EXPLAIN (COSTS OFF) SELECT count(*) FROM v7t WHERE uuidv7_boundary(at) = uuidv7_boundary('2024-01-05'::timestamptz);
SELECT count(*) FROM v7t WHERE uuidv7_boundary(at) = uuidv7_boundary('2024-01-05'::timestamptz);
RESET enable_seqscan;
DROP TABLE v7t;

-- A shift moves only its own UUID's time: the generator's state stays at
-- the clock (when preloaded, so does the durable mark), so the next
-- unshifted UUIDv7 is not pushed 1000 years ahead, and still increases.
SELECT abs(extract(epoch FROM uuid_extract_timestamp(b) - clock_timestamp())) < 5 AS next_at_clock,
       c > b AS still_increasing
FROM (SELECT uuidv7(interval '1000 years') a, uuidv7() b, chronoid_uuidv7() c) s;
