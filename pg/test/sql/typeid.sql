-- TypeIDs: the spec's valid and invalid cases (tests/vectors.md), round
-- trips, prefixes, errors naming the character and its position,
-- generation, and the uuid column with its TypeID text that
-- docs/postgresql.md recommends.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;

-- valid.yml (spec 0.3.0): each decodes to its prefix and UUID and
-- encodes back to the same text.
SELECT name, typeid_prefix(t) AS prefix, typeid_to_uuid(t) AS uuid,
       uuid_to_typeid(typeid_prefix(t), typeid_to_uuid(t)) = t AS round_trip,
       typeid_is_valid(t) AS valid
FROM (VALUES ('nil', '00000000000000000000000000'),
             ('one', '00000000000000000000000001'),
             ('ten', '0000000000000000000000000a'),
             ('sixteen', '0000000000000000000000000g'),
             ('thirty-two', '00000000000000000000000010'),
             ('max-valid', '7zzzzzzzzzzzzzzzzzzzzzzzzz'),
             ('valid-alphabet', 'prefix_0123456789abcdefghjkmnpqrs'),
             ('valid-uuidv7', 'prefix_01h455vb4pex5vsknk084sn02q'),
             ('prefix-underscore', 'pre_fix_00000000000000000000000000')) v(name, t);

-- invalid.yml (spec 0.3.0): each is refused, with the SQLSTATE, the
-- message and a detail naming the character and its position.
CREATE TEMP TABLE invalid (name text, t text);
INSERT INTO invalid VALUES
    ('prefix-uppercase', 'PREFIX_00000000000000000000000000'),
    ('prefix-numeric', '12345_00000000000000000000000000'),
    ('prefix-period', 'pre.fix_00000000000000000000000000'),
    ('prefix-non-ascii', 'pr' || chr(233) || 'fix_00000000000000000000000000'),
    ('prefix-spaces', '  prefix_00000000000000000000000000'),
    ('prefix-64-chars', 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000'),
    ('separator-empty-prefix', '_00000000000000000000000000'),
    ('separator-empty', '_'),
    ('suffix-short', 'prefix_1234567890123456789012345'),
    ('suffix-long', 'prefix_123456789012345678901234567'),
    ('suffix-spaces', 'prefix_1234567890123456789012345 '),
    ('suffix-uppercase', 'prefix_0123456789ABCDEFGHJKMNPQRS'),
    ('suffix-hyphens', 'prefix_123456789-123456789-123456'),
    ('suffix-wrong-alphabet', 'prefix_ooooooiiiiiiuuuuuuulllllll'),
    ('suffix-ambiguous-crockford', 'prefix_i23456789ol23456789oi23456'),
    ('suffix-hyphens-crockford', 'prefix_123456789-0123456789-0123456'),
    ('suffix-overflow', 'prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz'),
    ('prefix-underscore-start', '_prefix_00000000000000000000000000'),
    ('prefix-underscore-end', 'prefix__00000000000000000000000000'),
    ('empty', ''),
    ('prefix-empty', 'prefix_');
SELECT count(*) AS cases, count(*) FILTER (WHERE typeid_is_valid(t)) AS accepted FROM invalid;
-- The non-ASCII case's message depends on the database encoding: only its
-- SQLSTATE is shown.
DO $$
DECLARE
	r record;
	st text;
	msg text;
	det text;
BEGIN
	FOR r IN SELECT * FROM invalid LOOP
		BEGIN
			PERFORM typeid_to_uuid(r.t);
			RAISE NOTICE '%: accepted', r.name;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
			IF r.name = 'prefix-non-ascii' THEN
				RAISE NOTICE '%: %', r.name, st;
			ELSE
				RAISE NOTICE '%: % % | %', r.name, st, msg, det;
			END IF;
		END;
	END LOOP;
END
$$;

-- One error as the client sees it.
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02Q');

-- The expected prefix: the same, another (22023), a bad one.
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'user') AS same;
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'order');
SELECT typeid_to_uuid('01h455vb4pex5vsknk084sn02q', 'user');
SELECT typeid_to_uuid('01h455vb4pex5vsknk084sn02q', '') AS bare;
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'User');
SELECT typeid_is_valid('user_01h455vb4pex5vsknk084sn02q', 'user') AS yes,
       typeid_is_valid('user_01h455vb4pex5vsknk084sn02q', 'use') AS shorter,
       typeid_is_valid('user_01h455vb4pex5vsknk084sn02q', 'users') AS longer,
       typeid_is_valid('01h455vb4pex5vsknk084sn02q', '') AS bare;

-- Prefix arguments: the rules, with the character and its position.
SELECT uuid_to_typeid('user', '01890a5d-ac96-774b-bcce-b302099a8057') AS user_id,
       uuid_to_typeid('', '01890a5d-ac96-774b-bcce-b302099a8057') AS bare,
       uuid_to_typeid('my__type', '00000000-0000-0000-0000-000000000000') AS double_underscore;
SELECT uuid_to_typeid('user_', '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT uuid_to_typeid('us3r', '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT uuid_to_typeid(repeat('a', 64), '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT length(uuid_to_typeid(repeat('a', 63), 'ffffffff-ffff-ffff-ffff-ffffffffffff')) AS longest;
-- NULLs in, NULL out.
SELECT typeid_to_uuid(NULL) IS NULL AS a, uuid_to_typeid(NULL, uuidv4()) IS NULL AS b,
       typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', NULL) IS NULL AS c;

-- Generation: UUIDv7s of uuidv7()'s generator, strictly increasing as
-- text under one prefix, each one valid; a bad prefix draws nothing.
CREATE TEMP TABLE gen AS
SELECT i, typeid_generate('user') AS t FROM generate_series(1, 2000) i;
SELECT count(*) AS n,
       count(*) FILTER (WHERE typeid_is_valid(t, 'user')) AS valid,
       count(DISTINCT t) AS distinct_ids,
       bool_and(uuid_extract_version(typeid_to_uuid(t)) = 7) AS all_v7,
       bool_and(abs(extract(epoch FROM uuid_extract_timestamp(typeid_to_uuid(t)) - now())) < 600) AS recent
FROM gen;
SELECT count(*) AS out_of_order
FROM (SELECT t, lag(t) OVER (ORDER BY i) AS prev FROM gen) s
WHERE prev IS NOT NULL AND NOT (prev COLLATE "C" < t COLLATE "C");
SELECT typeid_prefix(typeid_generate()) = '' AS bare_prefix, length(typeid_generate()) AS bare_length;
SELECT typeid_generate('User');

-- The recommended table: the key is a uuid (16 bytes, uuid's btree), the
-- TypeID text a generated column; a TypeID from a client is looked up
-- through typeid_to_uuid() with the column's prefix, using the index.
CREATE TEMP TABLE users (
	id uuid PRIMARY KEY DEFAULT chronoid_uuidv7(),
	name text NOT NULL,
	typeid text GENERATED ALWAYS AS (uuid_to_typeid('user', id)) STORED
);
INSERT INTO users (name) SELECT 'u' || i FROM generate_series(1, 500) i;
INSERT INTO users (id, name) VALUES ('01890a5d-ac96-774b-bcce-b302099a8057', 'spec');
SELECT name, typeid FROM users WHERE id = typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'user');
-- Text order and uuid order agree (one prefix, same width).
SELECT count(*) AS disagreements
FROM (SELECT typeid, row_number() OVER (ORDER BY id) AS by_uuid,
             row_number() OVER (ORDER BY typeid COLLATE "C") AS by_text FROM users) s
WHERE by_uuid <> by_text;
ANALYZE users;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT name FROM users WHERE id = typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'user');
RESET enable_seqscan;
DROP TABLE users, gen, invalid;
