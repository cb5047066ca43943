-- Hostile input for the UUID functions: NULL, nil and max UUIDs, every
-- version and variant, the edges of the 48-bit millisecond field (epoch 0,
-- 10889-08-02), times before 1970, +-infinity and huge or contradictory
-- intervals for uuidv7(shift).  UUID text itself is parsed by core's uuid
-- type, not by this extension.  One line per case: label | expected | got |
-- pass | message names the value | message.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';

SELECT regress.hostile_begin();
CREATE TEMP SEQUENCE hostile_block_seq;

INSERT INTO hostile (fn, label, q, expect, needle) VALUES
-- Generators without arguments: right version and variant.
('uuidv7()', 'uuidv7: version 7', $q$SELECT uuid_extract_version(uuidv7())::text$q$, '7', NULL),
('chronoid_uuidv7()', 'chronoid_uuidv7: version 7', $q$SELECT uuid_extract_version(chronoid_uuidv7())::text$q$, '7', NULL),
('uuid_generate_v7()', 'uuid_generate_v7: version 7', $q$SELECT uuid_extract_version(uuid_generate_v7())::text$q$, '7', NULL),
('uuidv4()', 'uuidv4: version 4, RFC variant', $q$SELECT (uuid_extract_version(u) = 4 AND substr(u::text, 20, 1) IN ('8', '9', 'a', 'b'))::text FROM uuidv4() u$q$, 'true', NULL),
-- uuidv7(shift): STRICT, the range edges, huge and contradictory shifts.
('uuidv7(interval)', 'shift: NULL', $q$SELECT uuidv7(NULL::interval)::text$q$, 'null', NULL),
('chronoid_uuidv7(interval)', 'chronoid shift: NULL', $q$SELECT chronoid_uuidv7(NULL::interval)::text$q$, 'null', NULL),
('uuidv7(interval)', 'shift: zero', $q$SELECT uuid_extract_version(uuidv7(interval '0'))::text$q$, '7', NULL),
('uuidv7(interval)', 'shift: to 1 s after epoch 0', $q$SELECT (uuid_extract_timestamp(uuidv7('1970-01-01 00:00:01+00' - clock_timestamp())) BETWEEN '1970-01-01 00:00:00+00' AND '1970-01-01 00:00:02+00')::text$q$, 'true', NULL),
('uuidv7(interval)', 'shift: to 1 s before epoch 0 (now-relative)', $q$SELECT uuidv7('1969-12-31 23:59:59+00' - clock_timestamp())::text$q$, '22008', 'The shift "-'),
('chronoid_uuidv7(interval)', 'chronoid shift: to 1 s before the end', $q$SELECT (uuid_extract_timestamp(chronoid_uuidv7('10889-08-02 05:31:49.655+00' - clock_timestamp())) BETWEEN '10889-08-02 05:31:48.655+00' AND '10889-08-02 05:31:50.655+00')::text$q$, 'true', NULL),
('chronoid_uuidv7(interval)', 'chronoid shift: to 1 s past the end (now-relative)', $q$SELECT chronoid_uuidv7('10889-08-02 05:31:51.656+00' - clock_timestamp())::text$q$, '22008', 'The shift "'),
('uuidv7(interval)', 'shift: 178000000 years', $q$SELECT uuidv7(interval '178000000 years')::text$q$, '22008', '"178000000 years"'),
('uuidv7(interval)', 'shift: -178000000 years', $q$SELECT uuidv7(interval '-178000000 years')::text$q$, '22008', '"-178000000 years"'),
('uuidv7(interval)', 'shift: 2147483647 days', $q$SELECT uuidv7(interval '2147483647 days')::text$q$, '22008', '"2147483647 days"'),
('uuidv7(interval)', 'shift: largest time part', $q$SELECT uuidv7(interval '2562047788 hours')::text$q$, '22008', '"2562047788:00:00"'),
('chronoid_uuidv7(interval)', 'chronoid shift: smallest time part', $q$SELECT chronoid_uuidv7(interval '-2562047788 hours')::text$q$, '22008', '"-2562047788:00:00"'),
('uuidv7(interval)', 'shift: 178000000 years -1 day', $q$SELECT uuidv7(interval '178000000 years -1 day')::text$q$, '22008', '"178000000 years -1 days"'),
('uuidv7(interval)', 'shift: -178000000 years +1 day', $q$SELECT uuidv7(interval '-178000000 years 1 day')::text$q$, '22008', '"-178000000 years +1 day"'),
('chronoid_uuidv7(interval)', 'chronoid shift: 2147483647 days -1 us', $q$SELECT chronoid_uuidv7(interval '2147483647 days -1 microsecond')::text$q$, '22008', '"2147483647 days -00:00:00.000001"'),
('chronoid_uuidv7(interval)', 'chronoid shift: int32 min months, max days', $q$SELECT chronoid_uuidv7(make_interval(months => -2147483648, days => 2147483647))::text$q$, '22008', '"-178956970 years -8 mons +2147483647 days"'),
('uuidv7(interval)', 'shift: 9000 years -1 month', $q$SELECT uuidv7(interval '9000 years -1 month')::text$q$, '22008', '"8999 years 11 mons"'),
('uuidv7(interval)', 'shift: -1 day +1 ms (mixed, in range)', $q$SELECT uuid_extract_version(uuidv7(interval '-1 day +00:00:00.001'))::text$q$, '7', NULL),
-- Extraction: NULL, nil, max, each version, variants, extreme times.
('uuid_extract_timestamp(uuid)', 'extract ts: NULL', $q$SELECT uuid_extract_timestamp(NULL)::text$q$, 'null', NULL),
('uuid_extract_timestamp(uuid)', 'extract ts: nil', $q$SELECT uuid_extract_timestamp('00000000-0000-0000-0000-000000000000')::text$q$, 'null', NULL),
('uuid_extract_timestamp(uuid)', 'extract ts: max', $q$SELECT uuid_extract_timestamp('ffffffff-ffff-ffff-ffff-ffffffffffff')::text$q$, 'null', NULL),
('uuid_extract_timestamp(uuid)', 'extract ts: v7 epoch 0', $q$SELECT uuid_extract_timestamp('00000000-0000-7000-8000-000000000000')::text$q$, '1970-01-01 00:00:00+00', NULL),
('uuid_extract_timestamp(uuid)', 'extract ts: v7 last ms', $q$SELECT uuid_extract_timestamp('ffffffff-ffff-7fff-bfff-ffffffffffff')::text$q$, '10889-08-02 05:31:50.655+00', NULL),
('chronoid_uuid_extract_timestamp(uuid)', 'chronoid extract ts: NULL', $q$SELECT chronoid_uuid_extract_timestamp(NULL)::text$q$, 'null', NULL),
('chronoid_uuid_extract_timestamp(uuid)', 'chronoid extract ts: v1 smallest (1582)', $q$SELECT chronoid_uuid_extract_timestamp('00000000-0000-1000-8000-000000000000')::text$q$, '1582-10-15 00:00:00+00', NULL),
('chronoid_uuid_extract_timestamp(uuid)', 'chronoid extract ts: v1 largest', $q$SELECT chronoid_uuid_extract_timestamp('ffffffff-ffff-1fff-bfff-ffffffffffff')::text$q$, '5236-03-31 21:21:00.684697+00', NULL),
('chronoid_uuid_extract_timestamp(uuid)', 'chronoid extract ts: v6 largest', $q$SELECT chronoid_uuid_extract_timestamp('ffffffff-ffff-6fff-bfff-ffffffffffff')::text$q$, '5236-03-31 21:21:00.684697+00', NULL),
('chronoid_uuid_extract_timestamp(uuid)', 'chronoid extract ts: v4', $q$SELECT chronoid_uuid_extract_timestamp('919108f7-52d1-4320-9bac-f847db4148a8')::text$q$, 'null', NULL),
('chronoid_uuid_extract_timestamp(uuid)', 'chronoid extract ts: v7, Microsoft variant', $q$SELECT chronoid_uuid_extract_timestamp('017f22e2-79b0-7cc3-d8c4-dc0c0c07398f')::text$q$, 'null', NULL),
('uuid_extract_version(uuid)', 'extract version: NULL', $q$SELECT uuid_extract_version(NULL)::text$q$, 'null', NULL),
('uuid_extract_version(uuid)', 'extract version: nil', $q$SELECT uuid_extract_version('00000000-0000-0000-0000-000000000000')::text$q$, 'null', NULL),
('uuid_extract_version(uuid)', 'extract version: 15, RFC variant', $q$SELECT uuid_extract_version('ffffffff-ffff-ffff-bfff-ffffffffffff')::text$q$, '15', NULL),
('uuid_extract_version(uuid)', 'extract version: 0, RFC variant', $q$SELECT uuid_extract_version('ffffffff-ffff-0fff-bfff-ffffffffffff')::text$q$, '0', NULL),
('chronoid_uuid_extract_version(uuid)', 'chronoid extract version: NULL', $q$SELECT chronoid_uuid_extract_version(NULL)::text$q$, 'null', NULL),
('chronoid_uuid_extract_version(uuid)', 'chronoid extract version: max', $q$SELECT chronoid_uuid_extract_version('ffffffff-ffff-ffff-ffff-ffffffffffff')::text$q$, 'null', NULL),
('chronoid_uuid_extract_version(uuid)', 'chronoid extract version: NCS variant', $q$SELECT chronoid_uuid_extract_version('017f22e2-79b0-7cc3-18c4-dc0c0c07398f')::text$q$, 'null', NULL),
-- pg_uuidv7 decoders: version 7 only, an error naming the UUID otherwise.
('uuid_v7_to_timestamptz(uuid)', 'v7 to tz: NULL', $q$SELECT uuid_v7_to_timestamptz(NULL)::text$q$, 'null', NULL),
('uuid_v7_to_timestamptz(uuid)', 'v7 to tz: nil', $q$SELECT uuid_v7_to_timestamptz('00000000-0000-0000-0000-000000000000')::text$q$, '22023', '"00000000-0000-0000-0000-000000000000"'),
('uuid_v7_to_timestamptz(uuid)', 'v7 to tz: max', $q$SELECT uuid_v7_to_timestamptz('ffffffff-ffff-ffff-ffff-ffffffffffff')::text$q$, '22023', '"ffffffff-ffff-ffff-ffff-ffffffffffff"'),
('uuid_v7_to_timestamptz(uuid)', 'v7 to tz: v7 nibble, NCS variant', $q$SELECT uuid_v7_to_timestamptz('017f22e2-79b0-7cc3-18c4-dc0c0c07398f')::text$q$, '22023', '"017f22e2-79b0-7cc3-18c4-dc0c0c07398f"'),
('uuid_v7_to_timestamptz(uuid)', 'v7 to tz: v1', $q$SELECT uuid_v7_to_timestamptz('c232ab00-9414-11ec-b3c8-9f6bdeced846')::text$q$, '22023', '"c232ab00-9414-11ec-b3c8-9f6bdeced846"'),
('uuid_v7_to_timestamptz(uuid)', 'v7 to tz: last ms', $q$SELECT uuid_v7_to_timestamptz('ffffffff-ffff-7fff-bfff-ffffffffffff')::text$q$, '10889-08-02 05:31:50.655+00', NULL),
('uuid_v7_to_timestamp(uuid)', 'v7 to ts: NULL', $q$SELECT uuid_v7_to_timestamp(NULL)::text$q$, 'null', NULL),
('uuid_v7_to_timestamp(uuid)', 'v7 to ts: v4', $q$SELECT uuid_v7_to_timestamp('919108f7-52d1-4320-9bac-f847db4148a8')::text$q$, '22023', '"919108f7-52d1-4320-9bac-f847db4148a8"'),
('uuid_v7_to_timestamp(uuid)', 'v7 to ts: epoch 0', $q$SELECT uuid_v7_to_timestamp('00000000-0000-7000-8000-000000000000')::text$q$, '1970-01-01 00:00:00', NULL),
-- Time -> v7: STRICT on both arguments, floored, 1970 .. 10889 only.
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: NULL time', $q$SELECT uuid_timestamptz_to_v7(NULL, true)::text$q$, 'null', NULL),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: NULL zero flag', $q$SELECT uuid_timestamptz_to_v7('2023-01-01+00', NULL)::text$q$, 'null', NULL),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: epoch 0', $q$SELECT uuid_timestamptz_to_v7('1970-01-01 00:00:00+00', true)::text$q$, '00000000-0000-7000-8000-000000000000', NULL),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: 1 us before epoch', $q$SELECT uuid_timestamptz_to_v7('1969-12-31 23:59:59.999999+00', true)::text$q$, '22008', '"1969-12-31 23:59:59.999999+00"'),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: last ms, floored', $q$SELECT uuid_timestamptz_to_v7('10889-08-02 05:31:50.655999+00', true)::text$q$, 'ffffffff-ffff-7000-8000-000000000000', NULL),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: 1 ms past the end', $q$SELECT uuid_timestamptz_to_v7('10889-08-02 05:31:50.656+00')::text$q$, '22008', '"10889-08-02 05:31:50.656+00"'),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: infinity', $q$SELECT uuid_timestamptz_to_v7('infinity')::text$q$, '22008', '"infinity"'),
('uuid_timestamptz_to_v7(timestamp with time zone,boolean)', 'tz to v7: -infinity', $q$SELECT uuid_timestamptz_to_v7('-infinity', true)::text$q$, '22008', '"-infinity"'),
('uuid_timestamp_to_v7(timestamp without time zone,boolean)', 'ts to v7: NULL', $q$SELECT uuid_timestamp_to_v7(NULL)::text$q$, 'null', NULL),
('uuid_timestamp_to_v7(timestamp without time zone,boolean)', 'ts to v7: epoch 0, random tail', $q$SELECT uuid_extract_timestamp(uuid_timestamp_to_v7('1970-01-01 00:00:00'))::text$q$, '1970-01-01 00:00:00+00', NULL),
('uuid_timestamp_to_v7(timestamp without time zone,boolean)', 'ts to v7: 4713 BC', $q$SELECT uuid_timestamp_to_v7('4713-01-01 00:00:00 BC')::text$q$, '22008', '"4713-01-01 00:00:00 BC"'),
('uuid_timestamp_to_v7(timestamp without time zone,boolean)', 'ts to v7: year 294276', $q$SELECT uuid_timestamp_to_v7('294276-12-31 23:59:59.999999', true)::text$q$, '22008', '"294276-12-31 23:59:59.999999"'),
('uuid_timestamp_to_v7(timestamp without time zone,boolean)', 'ts to v7: infinity', $q$SELECT uuid_timestamp_to_v7('infinity', true)::text$q$, '22008', '"infinity"'),
('uuidv7_boundary(timestamp with time zone)', 'boundary tz: NULL', $q$SELECT uuidv7_boundary(NULL::timestamptz)::text$q$, 'null', NULL),
('uuidv7_boundary(timestamp with time zone)', 'boundary tz: epoch 0', $q$SELECT uuidv7_boundary('1970-01-01 00:00:00+00'::timestamptz)::text$q$, '00000000-0000-7000-8000-000000000000', NULL),
('uuidv7_boundary(timestamp with time zone)', 'boundary tz: 1960', $q$SELECT uuidv7_boundary('1960-01-01 00:00:00+00'::timestamptz)::text$q$, '22008', '"1960-01-01 00:00:00+00"'),
('uuidv7_boundary(timestamp with time zone)', 'boundary tz: -infinity', $q$SELECT uuidv7_boundary('-infinity'::timestamptz)::text$q$, '22008', '"-infinity"'),
('uuidv7_boundary(timestamp with time zone)', 'boundary tz: last ms', $q$SELECT uuidv7_boundary('10889-08-02 05:31:50.655+00'::timestamptz)::text$q$, 'ffffffff-ffff-7000-8000-000000000000', NULL),
('uuidv7_boundary(timestamp without time zone)', 'boundary ts: NULL', $q$SELECT uuidv7_boundary(NULL::timestamp)::text$q$, 'null', NULL),
('uuidv7_boundary(timestamp without time zone)', 'boundary ts: 1 us before epoch', $q$SELECT uuidv7_boundary('1969-12-31 23:59:59.999999'::timestamp)::text$q$, '22008', '"1969-12-31 23:59:59.999999"'),
('uuidv7_boundary(timestamp without time zone)', 'boundary ts: 1 ms past the end', $q$SELECT uuidv7_boundary('10889-08-02 05:31:50.656'::timestamp)::text$q$, '22008', '"10889-08-02 05:31:50.656"'),
('uuidv7_boundary(timestamp without time zone)', 'boundary ts: infinity', $q$SELECT uuidv7_boundary('infinity'::timestamp)::text$q$, '22008', '"infinity"'),
('uuidv7_boundary(timestamp without time zone)', 'boundary ts: epoch + 999 us', $q$SELECT uuidv7_boundary('1970-01-01 00:00:00.000999'::timestamp)::text$q$, '00000000-0000-7000-8000-000000000000', NULL),
-- TypeIDs: STRICT, the spec's edges, bytes outside ASCII, a control
-- character, the prefix limits, another prefix than the one expected.
('typeid_to_uuid(text)', 'typeid: NULL', $q$SELECT typeid_to_uuid(NULL)::text$q$, 'null', NULL),
('typeid_to_uuid(text)', 'typeid: the largest', $q$SELECT typeid_to_uuid('7zzzzzzzzzzzzzzzzzzzzzzzzz')::text$q$, 'ffffffff-ffff-ffff-ffff-ffffffffffff', NULL),
('typeid_to_uuid(text)', 'typeid: 129 bits', $q$SELECT typeid_to_uuid('a_8zzzzzzzzzzzzzzzzzzzzzzzzz')::text$q$, '22003', '"a_8zzzzzzzzzzzzzzzzzzzzzzzzz"'),
('typeid_to_uuid(text)', 'typeid: a tab in the suffix', $q$SELECT typeid_to_uuid(E'a_0000000000000\t000000000000')::text$q$, '22P02', 'position 16'),
('typeid_to_uuid(text)', 'typeid: 90 characters', $q$SELECT length(typeid_to_uuid(repeat('x', 63) || '_7zzzzzzzzzzzzzzzzzzzzzzzzz')::text)::text$q$, '36', NULL),
('typeid_to_uuid(text)', 'typeid: 10000 characters', $q$SELECT typeid_to_uuid(repeat('x', 9973) || '_7zzzzzzzzzzzzzzzzzzzzzzzzz')::text$q$, '22P02', 'The prefix has 9973 characters'),
('typeid_to_uuid(text)', 'typeid: only underscores', $q$SELECT typeid_to_uuid(repeat('_', 27))::text$q$, '22P02', 'position 1'),
('typeid_to_uuid(text,text)', 'typeid expected: NULL prefix', $q$SELECT typeid_to_uuid('a_00000000000000000000000000', NULL)::text$q$, 'null', NULL),
('typeid_to_uuid(text,text)', 'typeid expected: another prefix', $q$SELECT typeid_to_uuid('a_00000000000000000000000000', 'b')::text$q$, '22023', '"a_00000000000000000000000000"'),
('typeid_to_uuid(text,text)', 'typeid expected: a bad prefix', $q$SELECT typeid_to_uuid('a_00000000000000000000000000', 'A')::text$q$, '22023', '"A"'),
('uuid_to_typeid(text,uuid)', 'to typeid: NULL', $q$SELECT uuid_to_typeid('a', NULL)::text$q$, 'null', NULL),
('uuid_to_typeid(text,uuid)', 'to typeid: the max UUID', $q$SELECT uuid_to_typeid('', 'ffffffff-ffff-ffff-ffff-ffffffffffff')$q$, '7zzzzzzzzzzzzzzzzzzzzzzzzz', NULL),
('uuid_to_typeid(text,uuid)', 'to typeid: a 64-character prefix', $q$SELECT uuid_to_typeid(repeat('q', 64), uuidv4())$q$, '22023', 'It has 64 characters'),
('uuid_to_typeid(text,uuid)', 'to typeid: a prefix ending in _', $q$SELECT uuid_to_typeid('q_', uuidv4())$q$, '22023', 'position 2'),
('typeid_generate(text)', 'generate: NULL', $q$SELECT typeid_generate(NULL)$q$, 'null', NULL),
('typeid_generate(text)', 'generate: a UUIDv7', $q$SELECT uuid_extract_version(typeid_to_uuid(typeid_generate('q'), 'q'))::text$q$, '7', NULL),
('typeid_generate(text)', 'generate: a digit in the prefix', $q$SELECT typeid_generate('q1')$q$, '22023', '"q1"'),
('typeid_prefix(text)', 'prefix: NULL', $q$SELECT typeid_prefix(NULL)$q$, 'null', NULL),
('typeid_prefix(text)', 'prefix: runs of _', $q$SELECT typeid_prefix('a__b_00000000000000000000000000')$q$, 'a__b', NULL),
('typeid_prefix(text)', 'prefix: upper case suffix', $q$SELECT typeid_prefix('a_0000000000000000000000000A')$q$, '22P02', '"A" at position 28'),
('typeid_is_valid(text)', 'is valid: NULL', $q$SELECT typeid_is_valid(NULL)::text$q$, 'null', NULL),
('typeid_is_valid(text)', 'is valid: 129 bits', $q$SELECT typeid_is_valid('8zzzzzzzzzzzzzzzzzzzzzzzzz')::text$q$, 'false', NULL),
('typeid_is_valid(text,text)', 'is valid: NULL prefix', $q$SELECT typeid_is_valid('00000000000000000000000000', NULL)::text$q$, 'null', NULL),
('typeid_is_valid(text,text)', 'is valid: no prefix expected', $q$SELECT typeid_is_valid('00000000000000000000000000', '')::text$q$, 'true', NULL),
-- nextval_block(): sizes, nulls, a relation that is not a sequence.
('nextval_block(regclass,bigint)', 'block: 3 of a new sequence', $q$SELECT (nextval_block('hostile_block_seq', 3)).last_id::text$q$, '3', NULL),
('nextval_block(regclass,bigint)', 'block: NULL size', $q$SELECT nextval_block('hostile_block_seq', NULL)::text$q$, 'null', NULL),
('nextval_block(regclass,bigint)', 'block: NULL sequence', $q$SELECT nextval_block(NULL, 1)::text$q$, 'null', NULL),
('nextval_block(regclass,bigint)', 'block: size 0', $q$SELECT nextval_block('hostile_block_seq', 0)::text$q$, '22023', 'block size 0 '),
('nextval_block(regclass,bigint)', 'block: size int8 min', $q$SELECT nextval_block('hostile_block_seq', -9223372036854775808)::text$q$, '22023', '-9223372036854775808'),
('nextval_block(regclass,bigint)', 'block: size int8 max', $q$SELECT nextval_block('hostile_block_seq', 9223372036854775807)::text$q$, '22023', '9223372036854775807'),
('nextval_block(regclass,bigint)', 'block: a table', $q$SELECT nextval_block('pg_class', 1)::text$q$, '42809', '"pg_class"'),
('chronoid_version()', 'version: the installed one', $q$SELECT chronoid_version() = (SELECT extversion FROM pg_extension WHERE extname = 'chronoid')$q$, 'true', NULL);

-- The IDs already in people's databases (issue 27): NULL, the limits, and
-- errors that name the value, the character and its position.
INSERT INTO hostile (fn, label, q, expect, needle) VALUES
('objectid_time(text)', 'objectid time: NULL', $q$SELECT objectid_time(NULL)::text$q$, 'null', NULL),
('objectid_time(text)', 'objectid time: empty', $q$SELECT objectid_time('')::text$q$, '22P02', 'not 0'),
('objectid_time(text)', 'objectid time: largest (2106)', $q$SELECT objectid_time('ffffffffffffffffffffffff')::text$q$, '2106-02-07 06:28:15+00', NULL),
('objectid_time(text)', 'objectid time: NUL-free control byte', $q$SELECT objectid_time('507f1f77bcf86cd7994390' || chr(1) || '1')::text$q$, '22P02', 'Byte 0x01 at position 23'),
('objectid_time(text)', 'objectid time: 24 characters, one multibyte', $q$SELECT objectid_time('507f1f77bcf86cd79943901ü')::text$q$, '22P02', '"ü" at position 24'),
('objectid_time(text)', 'objectid time: braces (UUID-like)', $q$SELECT objectid_time('{507f1f77bcf86cd7994390}')::text$q$, '22P02', '"{" at position 1'),
('ksuid_time(text)', 'ksuid time: NULL', $q$SELECT ksuid_time(NULL)::text$q$, 'null', NULL),
('ksuid_time(text)', 'ksuid time: all z (above the largest)', $q$SELECT ksuid_time(repeat('z', 27))::text$q$, '22003', '"zzzzzzzzzzzzzzzzzzzzzzzzzzz"'),
('ksuid_time(text)', 'ksuid time: space inside', $q$SELECT ksuid_time('0ujtsYcgvSTl8PAu dqWYSMnLOv')::text$q$, '22P02', '" " at position 17'),
('ksuid_time(text)', 'ksuid time: 28 characters', $q$SELECT ksuid_time('0ujtsYcgvSTl8PAuAdqWYSMnLOvx')::text$q$, '22P02', 'not 28'),
('objectid_generate()', 'objectid generate: 24 hex, second now', $q$SELECT (o ~ '^[0-9a-f]{24}$' AND abs(extract(epoch FROM objectid_time(o) - now())) < 60)::text FROM objectid_generate() o$q$, 'true', NULL),
('ksuid_generate()', 'ksuid generate: 27 base62, second now', $q$SELECT (k ~ '^[0-9A-Za-z]{27}$' AND abs(extract(epoch FROM ksuid_time(k) - now())) < 60)::text FROM ksuid_generate() k$q$, 'true', NULL),
('uuidv1_to_v6(uuid)', 'v1 to v6: NULL', $q$SELECT uuidv1_to_v6(NULL)::text$q$, 'null', NULL),
('uuidv1_to_v6(uuid)', 'v1 to v6: largest', $q$SELECT uuidv1_to_v6('ffffffff-ffff-1fff-bfff-ffffffffffff')::text$q$, 'ffffffff-ffff-6fff-bfff-ffffffffffff', NULL),
('uuidv1_to_v6(uuid)', 'v1 to v6: max UUID', $q$SELECT uuidv1_to_v6('ffffffff-ffff-ffff-ffff-ffffffffffff')::text$q$, '22023', '"ffffffff-ffff-ffff-ffff-ffffffffffff"'),
('uuidv1_to_v6(uuid)', 'v1 to v6: v1 nibble, NCS variant', $q$SELECT uuidv1_to_v6('c232ab00-9414-11ec-33c8-9f6bdeced846')::text$q$, '22023', '"c232ab00-9414-11ec-33c8-9f6bdeced846"'),
('uuidv6_to_v1(uuid)', 'v6 to v1: NULL', $q$SELECT uuidv6_to_v1(NULL)::text$q$, 'null', NULL),
('uuidv6_to_v1(uuid)', 'v6 to v1: 1582-10-15', $q$SELECT uuidv6_to_v1('00000000-0000-6000-8000-000000000000')::text$q$, '00000000-0000-1000-8000-000000000000', NULL),
('uuidv6_to_v1(uuid)', 'v6 to v1: v1', $q$SELECT uuidv6_to_v1('c232ab00-9414-11ec-b3c8-9f6bdeced846')::text$q$, '22023', 'It is version 1'),
('uuidv6()', 'uuidv6: version 6, RFC variant', $q$SELECT (uuid_extract_version(u) = 6 AND substr(u::text, 20, 1) IN ('8', '9', 'a', 'b'))::text FROM uuidv6() u$q$, 'true', NULL),
('chronoid_inspect(text)', 'inspect: NULL', $q$SELECT chronoid_inspect(NULL)::text$q$, 'null', NULL),
('chronoid_inspect(text)', 'inspect: empty', $q$SELECT chronoid_inspect('')::text$q$, '22P02', '""'),
('chronoid_inspect(text)', 'inspect: v1 largest to the us', $q$SELECT chronoid_inspect('ffffffff-ffff-1fff-bfff-ffffffffffff')::text$q$, '(uuid,1,"5236-03-31 21:21:00.684697+00")', NULL),
('chronoid_inspect(text)', 'inspect: nil UUID, no version, no time', $q$SELECT chronoid_inspect('00000000-0000-0000-0000-000000000000')::text$q$, '(uuid,,)', NULL),
('chronoid_inspect(text)', 'inspect: snowflake with bit 63', $q$SELECT chronoid_inspect('9223372036854775808')::text$q$, '22003', '"9223372036854775808"'),
('chronoid_inspect(text)', 'inspect: ULID overflow', $q$SELECT chronoid_inspect('80000000000000000000000000')::text$q$, '22003', '"80000000000000000000000000"'),
('chronoid_inspect(text)', 'inspect: bad UUID character', $q$SELECT chronoid_inspect('017F22E2-79B0-7CC3-98C4-DC0C0C07398G')::text$q$, '22P02', 'position 36');

-- The text kinds' every refusal (issue 27): empty, 1 MB, characters
-- outside ASCII, control bytes, case variants; the validity tests that
-- answer the same without an error.
INSERT INTO hostile (fn, label, q, expect, needle) VALUES
('typeid_to_uuid(text)', 'typeid: empty', $q$SELECT typeid_to_uuid('')::text$q$, '22P02', 'has 0 characters, not 26'),
('typeid_to_uuid(text)', 'typeid: 1 MB, no prefix', $q$SELECT typeid_to_uuid(repeat('0', 1048576))::text$q$, '22P02', 'has 1048576 characters, not 26'),
('typeid_to_uuid(text)', 'typeid: 1 MB prefix', $q$SELECT typeid_to_uuid(repeat('a', 1048576) || '_00000000000000000000000000')::text$q$, '22P02', 'The prefix has 1048576 characters'),
('typeid_to_uuid(text)', 'typeid: prefix only', $q$SELECT typeid_to_uuid('user_')::text$q$, '22P02', 'has 0 characters, not 26'),
('typeid_to_uuid(text)', 'typeid: 25-digit suffix', $q$SELECT typeid_to_uuid('user_0000000000000000000000000')::text$q$, '22P02', 'has 25 characters, not 26'),
('typeid_to_uuid(text)', 'typeid: non-ASCII prefix', $q$SELECT typeid_to_uuid('ü_00000000000000000000000000')::text$q$, '22P02', '"ü" at position 1'),
('typeid_to_uuid(text)', 'typeid: 26 characters, one multibyte', $q$SELECT typeid_to_uuid('a_0000000000000000000000000ü')::text$q$, '22P02', '"ü" at position 28'),
('typeid_to_uuid(text)', 'typeid: control byte in the prefix', $q$SELECT typeid_to_uuid(E'a\tb_00000000000000000000000000')::text$q$, '22P02', 'Byte 0x09 at position 2'),
('typeid_to_uuid(text)', 'typeid: DEL in the suffix', $q$SELECT typeid_to_uuid('a_' || chr(127) || '0000000000000000000000000')::text$q$, '22P02', 'Byte 0x7F at position 3'),
('typeid_to_uuid(text)', 'typeid: capitalised prefix', $q$SELECT typeid_to_uuid('User_01h455vb4pex5vsknk084sn02q')::text$q$, '22P02', '"U" at position 1'),
('typeid_to_uuid(text)', 'typeid: one upper-case suffix digit', $q$SELECT typeid_to_uuid('user_01H455vb4pex5vsknk084sn02q')::text$q$, '22P02', '"H" at position 8'),
('typeid_to_uuid(text)', 'typeid: lower case', $q$SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q')::text$q$, '01890a5d-ac96-774b-bcce-b302099a8057', NULL),
('typeid_to_uuid(text,text)', 'typeid expected: none, has one', $q$SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', '')::text$q$, '22023', '"user_01h455vb4pex5vsknk084sn02q" has prefix "user", not ""'),
('typeid_to_uuid(text,text)', 'typeid expected: empty text', $q$SELECT typeid_to_uuid('', 'user')::text$q$, '22P02', 'has 0 characters'),
('typeid_prefix(text)', 'prefix: empty', $q$SELECT typeid_prefix('')$q$, '22P02', 'has 0 characters'),
('typeid_prefix(text)', 'prefix: 1 MB', $q$SELECT typeid_prefix(repeat('z', 1048576))$q$, '22P02', 'has 1048576 characters'),
('typeid_prefix(text)', 'prefix: non-ASCII suffix', $q$SELECT typeid_prefix('a_000000000000000000000000éé')$q$, '22P02', '"é" at position 27'),
('typeid_is_valid(text)', 'is valid: empty', $q$SELECT typeid_is_valid('')::text$q$, 'false', NULL),
('typeid_is_valid(text)', 'is valid: 1 MB', $q$SELECT typeid_is_valid(repeat('0', 1048576))::text$q$, 'false', NULL),
('typeid_is_valid(text)', 'is valid: non-ASCII', $q$SELECT typeid_is_valid('a_0000000000000000000000000ü')::text$q$, 'false', NULL),
('typeid_is_valid(text)', 'is valid: upper case', $q$SELECT typeid_is_valid('USER_01H455VB4PEX5VSKNK084SN02Q')::text$q$, 'false', NULL),
('objectid_time(text)', 'objectid time: 1 MB', $q$SELECT objectid_time(repeat('0', 1048576))::text$q$, '22P02', 'not 1048576'),
('objectid_time(text)', 'objectid time: 25 characters', $q$SELECT objectid_time('507f1f77bcf86cd7994390110')::text$q$, '22P02', 'Expected 24 characters, not 25'),
('objectid_time(text)', 'objectid time: 24 bytes, 23 characters', $q$SELECT objectid_time('507f1f77bcf86cd7994390é')::text$q$, '22P02', 'Expected 24 characters, not 23'),
('objectid_time(text)', 'objectid time: mixed case', $q$SELECT objectid_time('507F1f77BCf86cd799439011')::text$q$, '2012-10-17 21:13:27+00', NULL),
('objectid_time(text)', 'objectid time: leading space', $q$SELECT objectid_time(' 507f1f77bcf86cd79943901')::text$q$, '22P02', '" " at position 1'),
('objectid_time(text)', 'objectid time: 0x prefix', $q$SELECT objectid_time('0x507f1f77bcf86cd7994390')::text$q$, '22P02', '"x" at position 2'),
('objectid_time(text)', 'objectid time: DEL', $q$SELECT objectid_time(chr(127) || '07f1f77bcf86cd799439011')::text$q$, '22P02', 'Byte 0x7F at position 1'),
('objectid_is_valid(text)', 'objectid valid: NULL', $q$SELECT objectid_is_valid(NULL)::text$q$, 'null', NULL),
('objectid_is_valid(text)', 'objectid valid: lower case', $q$SELECT objectid_is_valid('507f1f77bcf86cd799439011')::text$q$, 'true', NULL),
('objectid_is_valid(text)', 'objectid valid: upper case', $q$SELECT objectid_is_valid('507F1F77BCF86CD799439011')::text$q$, 'true', NULL),
('objectid_is_valid(text)', 'objectid valid: empty', $q$SELECT objectid_is_valid('')::text$q$, 'false', NULL),
('objectid_is_valid(text)', 'objectid valid: 1 MB', $q$SELECT objectid_is_valid(repeat('0', 1048576))::text$q$, 'false', NULL),
('objectid_is_valid(text)', 'objectid valid: 24 bytes, one multibyte', $q$SELECT objectid_is_valid('507f1f77bcf86cd7994390é')::text$q$, 'false', NULL),
('objectid_is_valid(text)', 'objectid valid: g', $q$SELECT objectid_is_valid('507f1f77bcf86cd79943901g')::text$q$, 'false', NULL),
('ksuid_time(text)', 'ksuid time: empty', $q$SELECT ksuid_time('')::text$q$, '22P02', 'Expected 27 characters, not 0'),
('ksuid_time(text)', 'ksuid time: 1 MB', $q$SELECT ksuid_time(repeat('0', 1048576))::text$q$, '22P02', 'not 1048576'),
('ksuid_time(text)', 'ksuid time: 27 characters, one multibyte', $q$SELECT ksuid_time('0ujtsYcgvSTl8PAuAdqWYSMnLOé')::text$q$, '22P02', '"é" at position 27'),
('ksuid_time(text)', 'ksuid time: DEL', $q$SELECT ksuid_time('0ujtsYcgvSTl8PAuAdqWYSMnLO' || chr(127))::text$q$, '22P02', 'Byte 0x7F at position 27'),
('ksuid_time(text)', 'ksuid time: hyphen', $q$SELECT ksuid_time('0ujtsYcgvSTl8-AuAdqWYSMnLOv')::text$q$, '22P02', '"-" at position 14'),
('ksuid_time(text)', 'ksuid time: upper-cased (another value)', $q$SELECT ksuid_time(upper('0ujtsYcgvSTl8PAuAdqWYSMnLOv'))::text$q$, '2016-03-09 02:31:53+00', NULL),
('ksuid_time(text)', 'ksuid time: the largest, lower-cased', $q$SELECT ksuid_time(lower('aWgEPTl1tmebfsQzFP4bxwgy80V'))::text$q$, '22003', '"awgeptl1tmebfsqzfp4bxwgy80v"'),
('ksuid_time(text)', 'ksuid time: the largest, upper-cased', $q$SELECT ksuid_time(upper('aWgEPTl1tmebfsQzFP4bxwgy80V'))::text$q$, '2053-07-24 23:59:33+00', NULL),
('ksuid_is_valid(text)', 'ksuid valid: NULL', $q$SELECT ksuid_is_valid(NULL)::text$q$, 'null', NULL),
('ksuid_is_valid(text)', 'ksuid valid: the largest', $q$SELECT ksuid_is_valid('aWgEPTl1tmebfsQzFP4bxwgy80V')::text$q$, 'true', NULL),
('ksuid_is_valid(text)', 'ksuid valid: one above the largest', $q$SELECT ksuid_is_valid('aWgEPTl1tmebfsQzFP4bxwgy80W')::text$q$, 'false', NULL),
('ksuid_is_valid(text)', 'ksuid valid: upper-cased (another value)', $q$SELECT ksuid_is_valid(upper('0ujtsYcgvSTl8PAuAdqWYSMnLOv'))::text$q$, 'true', NULL),
('ksuid_is_valid(text)', 'ksuid valid: empty', $q$SELECT ksuid_is_valid('')::text$q$, 'false', NULL),
('ksuid_is_valid(text)', 'ksuid valid: 1 MB', $q$SELECT ksuid_is_valid(repeat('0', 1048576))::text$q$, 'false', NULL),
('ksuid_is_valid(text)', 'ksuid valid: 27 characters, one multibyte', $q$SELECT ksuid_is_valid('0ujtsYcgvSTl8PAuAdqWYSMnLOé')::text$q$, 'false', NULL),
('uuidv1_to_v6(uuid)', 'v1 to v6: v4', $q$SELECT uuidv1_to_v6('919108f7-52d1-4320-9bac-f847db4148a8')::text$q$, '22023', 'It is version 4'),
('uuidv1_to_v6(uuid)', 'v1 to v6: nil', $q$SELECT uuidv1_to_v6('00000000-0000-0000-0000-000000000000')::text$q$, '22023', 'not of the RFC 9562 variant'),
('uuidv6_to_v1(uuid)', 'v6 to v1: v7', $q$SELECT uuidv6_to_v1('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')::text$q$, '22023', '"017f22e2-79b0-7cc3-98c4-dc0c0c07398f"'),
('uuidv6_to_v1(uuid)', 'v6 to v1: v6 nibble, Microsoft variant', $q$SELECT uuidv6_to_v1('1ec9414c-232a-6b00-d3c8-9f6bdeced846')::text$q$, '22023', 'not of the RFC 9562 variant'),
('chronoid_inspect(text)', 'inspect: 1 MB', $q$SELECT chronoid_inspect(repeat('x', 1048576))::text$q$, '22P02', 'It has 1048576 characters'),
('chronoid_inspect(text)', 'inspect: 1 MB of digits', $q$SELECT chronoid_inspect(repeat('7', 1048576))::text$q$, '22P02', 'It has 1048576 characters'),
('chronoid_inspect(text)', 'inspect: one character', $q$SELECT chronoid_inspect('x')::text$q$, '22P02', 'It has 1 character.'),
('chronoid_inspect(text)', 'inspect: 21 digits', $q$SELECT chronoid_inspect('104651375538868224000')::text$q$, '22P02', 'It has 21 characters'),
('chronoid_inspect(text)', 'inspect: negative snowflake', $q$SELECT chronoid_inspect('-104651375538868224')::text$q$, '22P02', '"-" at position 1'),
('chronoid_inspect(text)', 'inspect: 24 bytes, 23 characters', $q$SELECT chronoid_inspect('507f1f77bcf86cd7994390é')::text$q$, '22P02', '"é" at position 23'),
('chronoid_inspect(text)', 'inspect: ObjectId, upper case', $q$SELECT chronoid_inspect('507F1F77BCF86CD799439011')::text$q$, '(objectid,,"2012-10-17 21:13:27+00")', NULL),
('chronoid_inspect(text)', 'inspect: ObjectId, a g', $q$SELECT chronoid_inspect('507f1f77bcf86cd79943901g')::text$q$, '22P02', '"g" at position 24'),
('chronoid_inspect(text)', 'inspect: KSUID above the largest', $q$SELECT chronoid_inspect('zzzzzzzzzzzzzzzzzzzzzzzzzzz')::text$q$, '22003', '"zzzzzzzzzzzzzzzzzzzzzzzzzzz"'),
('chronoid_inspect(text)', 'inspect: ULID, lower case', $q$SELECT chronoid_inspect('01arz3ndektsv4rrffq69g5fav')::text$q$, '(ulid,,"2016-07-30 23:54:10.259+00")', NULL),
('chronoid_inspect(text)', 'inspect: TypeID', $q$SELECT chronoid_inspect('user_01h455vb4pex5vsknk084sn02q')::text$q$, '(typeid,7,"2023-06-30 03:34:18.518+00")', NULL),
('chronoid_inspect(text)', 'inspect: TypeID, upper-case digit', $q$SELECT chronoid_inspect('user_01h455vb4pex5vsknk084sn02Q')::text$q$, '22P02', '"Q" at position 31'),
('chronoid_inspect(text)', 'inspect: TypeID, non-ASCII prefix', $q$SELECT chronoid_inspect('üser_01h455vb4pex5vsknk084sn02q')::text$q$, '22P02', '"ü" at position 1'),
('chronoid_inspect(text)', 'inspect: UUID, hyphen out of place', $q$SELECT chronoid_inspect('017F22E279-B0-7CC3-98C4-DC0C0C07398F')::text$q$, '22P02', 'position 9');

-- Every case, one line each: label | expected | got | pass | whether the
-- message names the value | message.  Then the totals: no case failed,
-- every refused value is named in its error.
SELECT line FROM regress.hostile_report();
SELECT * FROM regress.hostile_summary();

-- Coverage: every function of the extension outside the ulid type and
-- schema snowflake has at least one case above (this list must be empty).
SELECT p.oid::regprocedure::text AS untested
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
 WHERE p.oid::regprocedure::text !~ 'ulid'
   AND p.pronamespace <> 'snowflake'::regnamespace
   AND p.oid::regprocedure::text NOT IN (SELECT fn FROM hostile)
 ORDER BY 1;
