-- Hostile input for the ulid type: every function and cast of the
-- extension that takes or makes a ulid, with NULL, empty and overlong
-- input, every class of bad character and the boundary values.  One line
-- per case: label | expected | got | pass | message names the value |
-- message.  Every case must pass; the summary at the end says so.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
-- A scratch file for binary COPY in pg_regress's output directory,
-- written and read by psql (\copy), so the suite runs as any OS user that
-- may write there, whatever the server's OS user may do.
-- (\copy takes its arguments literally, so the path comes from the shell:
-- pg_regress exports PG_ABS_BUILDDIR to psql.)

SELECT regress.hostile_begin();

-- ulid_recv() runs only through the binary protocol or binary COPY: psql
-- writes a bytea of any length as one binary COPY field (\copy ... TO) and
-- reads it back as a ulid (\copy ... FROM); what each gave is kept in
-- recv_result, and the case table below checks it; a refusal is checked
-- there as 'refused', and its message (22P03, naming the length) is the
-- ERROR psql prints here.
CREATE TEMP TABLE recv_in (b bytea);
CREATE TEMP TABLE recv_out (u ulid);
CREATE TEMP TABLE recv_result (b bytea, u text, refused bool);
TRUNCATE recv_in, recv_out;
INSERT INTO recv_in VALUES ('\x01563e3ab5d3d6764c61efb99302bd5b'::bytea);
\copy recv_in TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
\copy recv_out FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
INSERT INTO recv_result SELECT '\x01563e3ab5d3d6764c61efb99302bd5b'::bytea, (SELECT u::text FROM recv_out),
	(SELECT count(*) FROM recv_out) = 0;
TRUNCATE recv_in, recv_out;
INSERT INTO recv_in VALUES ('\xffffffffffffffffffffffffffffffff'::bytea);
\copy recv_in TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
\copy recv_out FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
INSERT INTO recv_result SELECT '\xffffffffffffffffffffffffffffffff'::bytea, (SELECT u::text FROM recv_out),
	(SELECT count(*) FROM recv_out) = 0;
TRUNCATE recv_in, recv_out;
INSERT INTO recv_in VALUES (NULL);
\copy recv_in TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
\copy recv_out FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
INSERT INTO recv_result SELECT NULL, (SELECT u::text FROM recv_out),
	(SELECT count(*) FROM recv_out) = 0;
TRUNCATE recv_in, recv_out;
INSERT INTO recv_in VALUES ('\x'::bytea);
\copy recv_in TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
\copy recv_out FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
INSERT INTO recv_result SELECT '\x'::bytea, (SELECT u::text FROM recv_out),
	(SELECT count(*) FROM recv_out) = 0;
TRUNCATE recv_in, recv_out;
INSERT INTO recv_in VALUES ('\x01563e3ab5d3d6764c61efb99302bd'::bytea);
\copy recv_in TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
\copy recv_out FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
INSERT INTO recv_result SELECT '\x01563e3ab5d3d6764c61efb99302bd'::bytea, (SELECT u::text FROM recv_out),
	(SELECT count(*) FROM recv_out) = 0;
TRUNCATE recv_in, recv_out;
INSERT INTO recv_in VALUES ('\x01563e3ab5d3d6764c61efb99302bd5b00'::bytea);
\copy recv_in TO PROGRAM 'cat > "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
\copy recv_out FROM PROGRAM 'cat "$PG_ABS_BUILDDIR/results/hostile_ulid.bin"' WITH (FORMAT binary)
INSERT INTO recv_result SELECT '\x01563e3ab5d3d6764c61efb99302bd5b00'::bytea, (SELECT u::text FROM recv_out),
	(SELECT count(*) FROM recv_out) = 0;
CREATE FUNCTION pg_temp.recv_ulid(p bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r recv_result;
BEGIN
	SELECT * INTO STRICT r FROM recv_result WHERE b IS NOT DISTINCT FROM p;
	RETURN CASE WHEN r.refused THEN 'refused' ELSE r.u END;
END $$;

INSERT INTO hostile (fn, label, q, expect, needle) VALUES
-- Text input: NULL, empty, lengths.
('ulid_in(cstring)', 'in: NULL', $q$SELECT ulid_in(NULL)::text$q$, 'null', NULL),
('CAST (text AS ulid)', 'text cast: NULL', $q$SELECT NULL::text::ulid::text$q$, 'null', NULL),
('ulid_in(cstring)', 'in: empty', $q$SELECT ''::ulid::text$q$, '22P02', 'not 0'),
('ulid_in(cstring)', 'in: empty, by name', $q$SELECT ulid_in('')::text$q$, '22P02', 'not 0'),
('CAST (text AS ulid)', 'text cast: empty', $q$SELECT ''::text::ulid::text$q$, '22P02', 'not 0'),
('ulid_in(cstring)', 'in: 1 character', $q$SELECT '0'::ulid::text$q$, '22P02', 'not 1.'),
('ulid_in(cstring)', 'in: 25 characters', $q$SELECT '0123456789ABCDEFGHJKMNPQR'::ulid::text$q$, '22P02', '"0123456789ABCDEFGHJKMNPQR"'),
('ulid_in(cstring)', 'in: 27 characters', $q$SELECT '0123456789ABCDEFGHJKMNPQRST'::ulid::text$q$, '22P02', '"0123456789ABCDEFGHJKMNPQRST"'),
('ulid_in(cstring)', 'in: 10000 zeros', $q$SELECT repeat('0', 10000)::ulid::text$q$, '22P02', 'not 10000'),
('CAST (text AS ulid)', 'text cast: 10000 Z', $q$SELECT repeat('Z', 10000)::text::ulid::text$q$, '22P02', 'not 10000'),
('ulid_in(cstring)', 'in: 10000 invalid', $q$SELECT repeat('U', 10000)::ulid::text$q$, '22P02', 'not 10000'),
('ulid_in(cstring)', 'in: 1 MB', $q$SELECT repeat('7', 1048576)::ulid::text$q$, '22P02', 'not 1048576'),
('ulid_in(cstring)', 'in: valid + trailing space', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV '::ulid::text$q$, '22P02', '"01ARZ3NDEKTSV4RRFFQ69G5FAV "'),
('ulid_in(cstring)', 'in: valid + leading space', $q$SELECT ' 01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', 'not 27'),
-- Characters outside the alphabet, at the same length.
('ulid_in(cstring)', 'in: 26 spaces', $q$SELECT repeat(' ', 26)::ulid::text$q$, '22P02', 'position 1 '),
('ulid_in(cstring)', 'in: space inside', $q$SELECT '01ARZ3NDEK SV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', 'position 11 '),
('ulid_in(cstring)', 'in: tab inside', $q$SELECT E'01ARZ3NDEK\tSV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', 'Byte 0x09 at position 11 '),
('ulid_in(cstring)', 'in: newline at end', $q$SELECT E'01ARZ3NDEKTSV4RRFFQ69G5FA\n'::ulid::text$q$, '22P02', 'Byte 0x0A at position 26 '),
('ulid_in(cstring)', 'in: control 0x01 first', $q$SELECT E'\x0101ARZ3NDEKTSV4RRFFQ69G5FA'::ulid::text$q$, '22P02', 'Byte 0x01 at position 1 '),
('ulid_in(cstring)', 'in: DEL 0x7F', $q$SELECT E'01ARZ3NDEKTSV4RRFFQ69G5F\x7fV'::ulid::text$q$, '22P02', 'Byte 0x7F at position 25 '),
('ulid_in(cstring)', 'in: I', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAI'::ulid::text$q$, '22P02', '"I" at position 26'),
('ulid_in(cstring)', 'in: i', $q$SELECT 'i1ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', '"i" at position 1 '),
('ulid_in(cstring)', 'in: L', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAL'::ulid::text$q$, '22P02', '"L" at position 26'),
('ulid_in(cstring)', 'in: l', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAl'::ulid::text$q$, '22P02', '"l" at position 26'),
('ulid_in(cstring)', 'in: O', $q$SELECT '01ARZ3NDEKTSVORRFFQ69G5FAV'::ulid::text$q$, '22P02', '"O" at position 14'),
('ulid_in(cstring)', 'in: o', $q$SELECT '0oARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', '"o" at position 2 '),
('ulid_in(cstring)', 'in: U', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAU'::ulid::text$q$, '22P02', '"U" at position 26'),
('ulid_in(cstring)', 'in: u', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5uAV'::ulid::text$q$, '22P02', '"u" at position 24'),
('ulid_in(cstring)', 'in: hyphen', $q$SELECT '01ARZ3NDEK-SV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', '"-" at position 11'),
('ulid_in(cstring)', 'in: Crockford check symbol *', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FA*'::ulid::text$q$, '22P02', '"*" at position 26'),
('ulid_in(cstring)', 'in: Crockford check symbol ~', $q$SELECT '~1ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', '"~" at position 1 '),
('ulid_in(cstring)', 'in: quote and backslash', $q$SELECT E'01ARZ3NDEKTSV4RRFFQ69G5F''\\'::ulid::text$q$, '22P02', 'position 25'),
('ulid_in(cstring)', 'in: NUL-like "\0" text', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5F\0'::ulid::text$q$, '22P02', '"\" at position 25'),
('ulid_in(cstring)', 'in: UUID text', $q$SELECT '01563e3a-b5d3-d676-4c61-efb99302bd5b'::ulid::text$q$, '22P02', 'not 36'),
('ulid_in(cstring)', 'in: UUID in braces', $q$SELECT '{01563e3ab5d3d6764c61efb99302bd5b}'::ulid::text$q$, '22P02', 'not 34'),
-- Non-ASCII UTF-8 (lengths are in bytes: the type is 26 ASCII bytes).
('ulid_in(cstring)', 'in: Latin-1 letter (2 bytes)', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FÄ'::ulid::text$q$, '22P02', 'not 25'),
('ulid_in(cstring)', 'in: Cyrillic A look-alike', $q$SELECT 'А1ARZ3NDEKTSV4RRFFQ69G5FA'::ulid::text$q$, '22P02', 'not 25'),
('ulid_in(cstring)', 'in: fullwidth digit (3 bytes)', $q$SELECT '０1ARZ3NDEKTSV4RRFFQ69G5F'::ulid::text$q$, '22P02', 'not 24'),
('ulid_in(cstring)', 'in: emoji (4 bytes)', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G😀'::ulid::text$q$, '22P02', 'not 23'),
('ulid_in(cstring)', 'in: 26 non-ASCII characters', $q$SELECT repeat('é', 26)::ulid::text$q$, '22P02', 'Character "é" at position 1 '),
('ulid_in(cstring)', 'in: 26 characters, the last one 2 bytes', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAé'::ulid::text$q$, '22P02', 'Character "é" at position 26 '),
('ulid_in(cstring)', 'in: 26 characters, a Cyrillic look-alike first', $q$SELECT 'А1ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::text$q$, '22P02', 'Character "А" at position 1 '),
('ulid_in(cstring)', 'in: 27 characters, the last one 4 bytes', $q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV😀'::ulid::text$q$, '22P02', 'not 27'),
-- Case and the boundaries of the 128 bits.
('ulid_in(cstring)', 'in: lower case', $q$SELECT '01arz3ndektsv4rrffq69g5fav'::ulid::text$q$, '01ARZ3NDEKTSV4RRFFQ69G5FAV', NULL),
('ulid_in(cstring)', 'in: smallest', $q$SELECT '00000000000000000000000000'::ulid::text$q$, '00000000000000000000000000', NULL),
('ulid_in(cstring)', 'in: largest 7ZZ...Z', $q$SELECT '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid::text$q$, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL),
('ulid_in(cstring)', 'in: largest, lower case', $q$SELECT '7zzzzzzzzzzzzzzzzzzzzzzzzz'::ulid::text$q$, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL),
('ulid_in(cstring)', 'in: 800...0 (2^128)', $q$SELECT '80000000000000000000000000'::ulid::text$q$, '22003', '"80000000000000000000000000"'),
('ulid_in(cstring)', 'in: 800...1', $q$SELECT '80000000000000000000000001'::ulid::text$q$, '22003', '"80000000000000000000000001"'),
('CAST (text AS ulid)', 'text cast: 9ZZ...Z', $q$SELECT '9ZZZZZZZZZZZZZZZZZZZZZZZZZ'::text::ulid::text$q$, '22003', '"9ZZZZZZZZZZZZZZZZZZZZZZZZZ"'),
('ulid_in(cstring)', 'in: 8 then a bad character', $q$SELECT '8ZZZZZZZZZZZZZZZZZZZZZZZZU'::ulid::text$q$, '22P02', '"U" at position 26'),
-- Text output and the assignment cast to text.
('ulid_out(ulid)', 'out: NULL', $q$SELECT ulid_out(NULL)::text$q$, 'null', NULL),
('ulid_out(ulid)', 'out: all 128 bits set', $q$SELECT ulid_out('\xffffffffffffffffffffffffffffffff'::bytea::ulid)::text$q$, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL),
('CAST (ulid AS text)', 'text cast: smallest', $q$SELECT '00000000000000000000000000'::ulid::text$q$, '00000000000000000000000000', NULL),
('CAST (ulid AS text)', 'text cast: NULL', $q$SELECT NULL::ulid::text$q$, 'null', NULL),
-- Binary receive (binary COPY of a field of n bytes) and send.
('ulid_recv(internal)', 'recv: 16 bytes', $q$SELECT pg_temp.recv_ulid('\x01563e3ab5d3d6764c61efb99302bd5b')$q$, '01ARZ3NDEKTSV4RRFFQ69G5FAV', NULL),
('ulid_recv(internal)', 'recv: 16 x 0xff', $q$SELECT pg_temp.recv_ulid('\xffffffffffffffffffffffffffffffff')$q$, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL),
('ulid_recv(internal)', 'recv: NULL field', $q$SELECT pg_temp.recv_ulid(NULL)$q$, 'null', NULL),
('ulid_recv(internal)', 'recv: 0 bytes', $q$SELECT pg_temp.recv_ulid('\x')$q$, 'refused', NULL),
('ulid_recv(internal)', 'recv: 15 bytes', $q$SELECT pg_temp.recv_ulid('\x01563e3ab5d3d6764c61efb99302bd')$q$, 'refused', NULL),
('ulid_recv(internal)', 'recv: 17 bytes', $q$SELECT pg_temp.recv_ulid('\x01563e3ab5d3d6764c61efb99302bd5b00')$q$, 'refused', NULL),
('ulid_send(ulid)', 'send: NULL', $q$SELECT ulid_send(NULL)::text$q$, 'null', NULL),
('ulid_send(ulid)', 'send: largest', $q$SELECT ulid_send('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, '\xffffffffffffffffffffffffffffffff', NULL),
-- Comparison, hashing and sorting at the extremes; STRICT on NULL.
('ulid_eq(ulid,ulid)', 'eq: NULL', $q$SELECT ulid_eq(NULL, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, 'null', NULL),
('ulid_eq(ulid,ulid)', 'eq: case-folded', $q$SELECT ('7zzzzzzzzzzzzzzzzzzzzzzzzz'::ulid = '7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, 'true', NULL),
('ulid_ne(ulid,ulid)', 'ne: NULL', $q$SELECT ulid_ne('00000000000000000000000000', NULL)::text$q$, 'null', NULL),
('ulid_ne(ulid,ulid)', 'ne: min vs max', $q$SELECT ('00000000000000000000000000'::ulid <> '7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, 'true', NULL),
('ulid_lt(ulid,ulid)', 'lt: NULL', $q$SELECT ('00000000000000000000000000'::ulid < NULL)::text$q$, 'null', NULL),
('ulid_lt(ulid,ulid)', 'lt: max vs min (unsigned)', $q$SELECT ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid < '00000000000000000000000000')::text$q$, 'false', NULL),
('ulid_le(ulid,ulid)', 'le: NULL', $q$SELECT ulid_le(NULL, NULL)::text$q$, 'null', NULL),
('ulid_le(ulid,ulid)', 'le: max vs max', $q$SELECT ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid <= '7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, 'true', NULL),
('ulid_gt(ulid,ulid)', 'gt: NULL', $q$SELECT ulid_gt(NULL, '00000000000000000000000000')::text$q$, 'null', NULL),
('ulid_gt(ulid,ulid)', 'gt: 0x80 byte vs 0x7f (unsigned)', $q$SELECT ('\x80000000000000000000000000000000'::bytea::ulid > '\x7fffffffffffffffffffffffffffffff'::bytea::ulid)::text$q$, 'true', NULL),
('ulid_ge(ulid,ulid)', 'ge: NULL', $q$SELECT ulid_ge('00000000000000000000000000', NULL)::text$q$, 'null', NULL),
('ulid_ge(ulid,ulid)', 'ge: min vs max', $q$SELECT ('00000000000000000000000000'::ulid >= '7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, 'false', NULL),
('ulid_cmp(ulid,ulid)', 'cmp: NULL', $q$SELECT ulid_cmp(NULL, NULL)::text$q$, 'null', NULL),
('ulid_cmp(ulid,ulid)', 'cmp: max vs min', $q$SELECT ulid_cmp('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '00000000000000000000000000')::text$q$, '1', NULL),
('ulid_cmp(ulid,ulid)', 'cmp: min vs max', $q$SELECT ulid_cmp('00000000000000000000000000', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::text$q$, '-1', NULL),
('ulid_sortsupport(internal)', 'sort: extremes', $q$SELECT string_agg(left(u::text, 2), ',' ORDER BY u) FROM (VALUES ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid), ('00000000000000000000000000'), ('40000000000000000000000000'), ('3ZZZZZZZZZZZZZZZZZZZZZZZZZ')) v(u)$q$, '00,3Z,40,7Z', NULL),
('ulid_hash(ulid)', 'hash: NULL', $q$SELECT ulid_hash(NULL)::text$q$, 'null', NULL),
('ulid_hash(ulid)', 'hash: case-folded equal', $q$SELECT (ulid_hash('7zzzzzzzzzzzzzzzzzzzzzzzzz') = ulid_hash('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'))::text$q$, 'true', NULL),
('ulid_hash_extended(ulid,bigint)', 'hash64: NULL seed', $q$SELECT ulid_hash_extended('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL)::text$q$, 'null', NULL),
('ulid_hash_extended(ulid,bigint)', 'hash64: seed 0 extends hash', $q$SELECT ((ulid_hash_extended('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 0) & 4294967295) = (ulid_hash('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')::int8 & 4294967295))::text$q$, 'true', NULL),
('ulid_hash_extended(ulid,bigint)', 'hash64: int8 min and max seeds', $q$SELECT (ulid_hash_extended('00000000000000000000000000', -9223372036854775808) <> ulid_hash_extended('00000000000000000000000000', 9223372036854775807))::text$q$, 'true', NULL),
-- uuid <-> ulid: the same 128 bits, whatever they are.
('ulid_to_uuid(ulid)', 'to uuid: NULL', $q$SELECT ulid_to_uuid(NULL)::text$q$, 'null', NULL),
('CAST (ulid AS uuid)', 'uuid cast: largest', $q$SELECT '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid::uuid::text$q$, 'ffffffff-ffff-ffff-ffff-ffffffffffff', NULL),
('CAST (ulid AS uuid)', 'uuid cast: smallest', $q$SELECT '00000000000000000000000000'::ulid::uuid::text$q$, '00000000-0000-0000-0000-000000000000', NULL),
('uuid_to_ulid(uuid)', 'from uuid: NULL', $q$SELECT uuid_to_ulid(NULL)::text$q$, 'null', NULL),
('CAST (uuid AS ulid)', 'ulid cast: max uuid', $q$SELECT 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid::ulid::text$q$, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL),
('CAST (uuid AS ulid)', 'ulid cast: nil uuid', $q$SELECT '00000000-0000-0000-0000-000000000000'::uuid::ulid::text$q$, '00000000000000000000000000', NULL),
-- ulid -> time: every ULID has one (0 .. 2^48 - 1 ms).
('ulid_to_timestamptz(ulid)', 'to timestamptz: NULL', $q$SELECT ulid_to_timestamptz(NULL)::text$q$, 'null', NULL),
('CAST (ulid AS timestamp with time zone)', 'timestamptz cast: smallest (epoch 0)', $q$SELECT '00000000000000000000000000'::ulid::timestamptz::text$q$, '1970-01-01 00:00:00+00', NULL),
('CAST (ulid AS timestamp with time zone)', 'timestamptz cast: largest', $q$SELECT '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid::timestamptz::text$q$, '10889-08-02 05:31:50.655+00', NULL),
('ulid_to_timestamp(ulid)', 'to timestamp: NULL', $q$SELECT ulid_to_timestamp(NULL)::text$q$, 'null', NULL),
('CAST (ulid AS timestamp without time zone)', 'timestamp cast: largest', $q$SELECT '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid::timestamp::text$q$, '10889-08-02 05:31:50.655', NULL),
('CAST (ulid AS timestamp without time zone)', 'timestamp cast: epoch 0', $q$SELECT '00000000000000000000000000'::ulid::timestamp::text$q$, '1970-01-01 00:00:00', NULL),
-- time -> ulid: 1970-01-01 .. 10889-08-02 05:31:50.655 UTC, floored.
('timestamptz_to_ulid(timestamp with time zone)', 'from timestamptz: NULL', $q$SELECT timestamptz_to_ulid(NULL)::text$q$, 'null', NULL),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: epoch 0', $q$SELECT '1970-01-01 00:00:00+00'::timestamptz::ulid::text$q$, '00000000000000000000000000', NULL),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: epoch + 999 us', $q$SELECT '1970-01-01 00:00:00.000999+00'::timestamptz::ulid::text$q$, '00000000000000000000000000', NULL),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: 1 us before epoch', $q$SELECT '1969-12-31 23:59:59.999999+00'::timestamptz::ulid::text$q$, '22008', '"1969-12-31 23:59:59.999999+00"'),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: 4713 BC', $q$SELECT '4713-01-01 00:00:00+00 BC'::timestamptz::ulid::text$q$, '22008', '"4713-01-01 00:00:00+00 BC"'),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: last ms', $q$SELECT '10889-08-02 05:31:50.655999+00'::timestamptz::ulid::text$q$, '7ZZZZZZZZZ0000000000000000', NULL),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: 1 ms past the end', $q$SELECT '10889-08-02 05:31:50.656+00'::timestamptz::ulid::text$q$, '22008', '"10889-08-02 05:31:50.656+00"'),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: year 294276', $q$SELECT '294276-12-31 23:59:59.999999+00'::timestamptz::ulid::text$q$, '22008', '"294276-12-31 23:59:59.999999+00"'),
('CAST (timestamp with time zone AS ulid)', 'from timestamptz: infinity', $q$SELECT 'infinity'::timestamptz::ulid::text$q$, '22008', '"infinity"'),
('timestamptz_to_ulid(timestamp with time zone)', 'from timestamptz: -infinity', $q$SELECT timestamptz_to_ulid('-infinity')::text$q$, '22008', '"-infinity"'),
('timestamp_to_ulid(timestamp without time zone)', 'from timestamp: NULL', $q$SELECT timestamp_to_ulid(NULL)::text$q$, 'null', NULL),
('CAST (timestamp without time zone AS ulid)', 'from timestamp: epoch 0', $q$SELECT '1970-01-01 00:00:00'::timestamp::ulid::text$q$, '00000000000000000000000000', NULL),
('CAST (timestamp without time zone AS ulid)', 'from timestamp: 1 us before epoch', $q$SELECT '1969-12-31 23:59:59.999999'::timestamp::ulid::text$q$, '22008', '"1969-12-31 23:59:59.999999"'),
('CAST (timestamp without time zone AS ulid)', 'from timestamp: last ms', $q$SELECT '10889-08-02 05:31:50.655'::timestamp::ulid::text$q$, '7ZZZZZZZZZ0000000000000000', NULL),
('CAST (timestamp without time zone AS ulid)', 'from timestamp: 1 ms past the end', $q$SELECT '10889-08-02 05:31:50.656'::timestamp::ulid::text$q$, '22008', '"10889-08-02 05:31:50.656"'),
('CAST (timestamp without time zone AS ulid)', 'from timestamp: infinity', $q$SELECT 'infinity'::timestamp::ulid::text$q$, '22008', '"infinity"'),
('timestamp_to_ulid(timestamp without time zone)', 'from timestamp: -infinity', $q$SELECT timestamp_to_ulid('-infinity')::text$q$, '22008', '"-infinity"'),
-- The casts' three-argument functions: explicit converts, an assignment
-- is refused naming the type; NULL in any argument is NULL (STRICT); the
-- typmod is not used.
('timestamptz_to_ulid(timestamp with time zone,integer,boolean)', 'cast fn tz: NULL time', $q$SELECT timestamptz_to_ulid(NULL, -1, true)::text$q$, 'null', NULL),
('timestamptz_to_ulid(timestamp with time zone,integer,boolean)', 'cast fn tz: NULL flag', $q$SELECT timestamptz_to_ulid('2020-01-01+00', -1, NULL)::text$q$, 'null', NULL),
('timestamptz_to_ulid(timestamp with time zone,integer,boolean)', 'cast fn tz: explicit', $q$SELECT timestamptz_to_ulid('1970-01-01 00:00:00.001+00', 12345, true)::text$q$, '00000000010000000000000000', NULL),
('timestamptz_to_ulid(timestamp with time zone,integer,boolean)', 'cast fn tz: assignment', $q$SELECT timestamptz_to_ulid('2020-01-01+00', -1, false)::text$q$, '42804', 'timestamp with time zone'),
('timestamptz_to_ulid(timestamp with time zone,integer,boolean)', 'cast fn tz: out of range, explicit', $q$SELECT timestamptz_to_ulid('infinity', -1, true)::text$q$, '22008', '"infinity"'),
('timestamp_to_ulid(timestamp without time zone,integer,boolean)', 'cast fn: NULL time', $q$SELECT timestamp_to_ulid(NULL, -1, true)::text$q$, 'null', NULL),
('timestamp_to_ulid(timestamp without time zone,integer,boolean)', 'cast fn: explicit', $q$SELECT timestamp_to_ulid('1970-01-01 00:00:00.001', -1, true)::text$q$, '00000000010000000000000000', NULL),
('timestamp_to_ulid(timestamp without time zone,integer,boolean)', 'cast fn: assignment', $q$SELECT timestamp_to_ulid('2020-01-01', -1, false)::text$q$, '42804', 'timestamp without time zone'),
('timestamp_to_ulid(timestamp without time zone,integer,boolean)', 'cast fn: out of range, explicit', $q$SELECT timestamp_to_ulid('-infinity', -2147483648, true)::text$q$, '22008', '"-infinity"'),
-- bytea: exactly 16 bytes.
('ulid_to_bytea(ulid)', 'to bytea: NULL', $q$SELECT ulid_to_bytea(NULL)::text$q$, 'null', NULL),
('CAST (ulid AS bytea)', 'bytea cast: largest', $q$SELECT '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid::bytea::text$q$, '\xffffffffffffffffffffffffffffffff', NULL),
('bytea_to_ulid(bytea)', 'from bytea: NULL', $q$SELECT bytea_to_ulid(NULL)::text$q$, 'null', NULL),
('CAST (bytea AS ulid)', 'from bytea: 0 bytes', $q$SELECT '\x'::bytea::ulid::text$q$, '22P03', '0 bytes'),
('CAST (bytea AS ulid)', 'from bytea: 1 byte', $q$SELECT '\x01'::bytea::ulid::text$q$, '22P03', '1 bytes'),
('CAST (bytea AS ulid)', 'from bytea: 15 bytes', $q$SELECT '\x01563e3ab5d3d6764c61efb99302bd'::bytea::ulid::text$q$, '22P03', '15 bytes'),
('CAST (bytea AS ulid)', 'from bytea: 17 bytes', $q$SELECT '\x01563e3ab5d3d6764c61efb99302bd5b00'::bytea::ulid::text$q$, '22P03', '17 bytes'),
('bytea_to_ulid(bytea)', 'from bytea: 10000 bytes', $q$SELECT bytea_to_ulid(decode(repeat('00', 10000), 'hex'))::text$q$, '22P03', '10000 bytes'),
('bytea_to_ulid(bytea)', 'from bytea: 16 x 0xff', $q$SELECT bytea_to_ulid('\xffffffffffffffffffffffffffffffff')::text$q$, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', NULL),
('CAST (bytea AS ulid)', 'from bytea: 16 zero bytes', $q$SELECT '\x00000000000000000000000000000000'::bytea::ulid::text$q$, '00000000000000000000000000', NULL),
('CAST (bytea AS ulid)', 'from bytea: 16 bytes as text escapes', $q$SELECT E'\\000\\001\\002\\003\\004\\005\\006\\007\\010\\011\\012\\013\\014\\015\\016\\017'::bytea::ulid::bytea::text$q$, '\x000102030405060708090a0b0c0d0e0f', NULL),
-- Generators take no input: their output is in range and typed right.
('gen_ulid()', 'gen_ulid: within the type', $q$SELECT (gen_ulid() BETWEEN '00000000000000000000000000' AND '7ZZZZZZZZZZZZZZZZZZZZZZZZZ' AND length(gen_ulid()::text) = 26)::text$q$, 'true', NULL),
('gen_monotonic_ulid()', 'gen_monotonic_ulid: increases', $q$SELECT (gen_monotonic_ulid() < gen_monotonic_ulid())::text$q$, 'true', NULL);

-- Every case, one line each: label | expected | got | pass | whether the
-- message names the value | message.  Then the totals: no case failed,
-- every refused value is named in its error.
SELECT line FROM regress.hostile_report();
SELECT * FROM regress.hostile_summary();

-- Coverage: every function and cast of the extension that involves ulid
-- has at least one case above (the list of those without must be empty).
SELECT o AS untested FROM (
	SELECT p.oid::regprocedure::text AS o
	  FROM pg_proc p
	  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
	 WHERE p.oid::regprocedure::text ~ 'ulid'
	UNION
	SELECT format('CAST (%s AS %s)', format_type(c.castsource, NULL), format_type(c.casttarget, NULL))
	  FROM pg_cast c
	  JOIN pg_depend d ON d.classid = 'pg_cast'::regclass AND d.objid = c.oid AND d.deptype = 'e'
	  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
) ext
WHERE o NOT IN (SELECT fn FROM hostile)
ORDER BY 1;
