-- CREATE EXTENSION chronoid SCHEMA other: every object lands in that
-- schema (snowflake's in schema snowflake), and works from there.
SELECT current_database() AS regress_db \gset
CREATE DATABASE chronoid_schema_test;
\c chronoid_schema_test
SET TimeZone = 'UTC';
CREATE SCHEMA other;
CREATE EXTENSION chronoid SCHEMA other;
SELECT extrelocatable, extnamespace::regnamespace FROM pg_extension WHERE extname = 'chronoid';
-- Functions land in other (and snowflake), none in public.
SELECT DISTINCT p.pronamespace::regnamespace AS schema
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
ORDER BY 1;
SELECT typnamespace::regnamespace AS ulid_schema FROM pg_type WHERE typname = 'ulid';
SELECT other.uuid_extract_version(other.uuidv7()) AS v,
       other.gen_ulid() IS NOT NULL AS ulid_ok,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::other.ulid::uuid AS cast_ok,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::other.ulid OPERATOR(other.<) '01GV5PA9EQG7D82Q3Y4PKBZSYV'::other.ulid AS qualified_lt;
-- As with any extension, bare operators need the schema on search_path.
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::other.ulid < '01GV5PA9EQG7D82Q3Y4PKBZSYV'::other.ulid;
-- With the schema on the path the operators and opclasses are found.
SET search_path = other, public;
CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_ulid(), u uuid DEFAULT uuidv7());
INSERT INTO t DEFAULT VALUES;
SELECT count(*) FROM t WHERE id < '7ZZZZZZZZZZZZZZZZZZZZZZZZZ';
-- Not relocatable afterwards.
CREATE SCHEMA another;
ALTER EXTENSION chronoid SET SCHEMA another;
\c :regress_db
DROP DATABASE chronoid_schema_test;
