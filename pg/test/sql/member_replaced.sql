-- A user's CREATE OR REPLACE FUNCTION of an extension function (seed 001's
-- playbook defines its own uuidv7() this way): it replaces the C function
-- in place and the function stays a member of the extension, so nothing
-- warns and ALTER EXTENSION UPDATE does not bring it back.  Pinned here
-- with the recovery docs/postgresql.md gives.  Only the function's owner
-- (the superuser who installed the extension) can do it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;

CREATE ROLE chronoid_replace_user;
GRANT CREATE ON SCHEMA public TO chronoid_replace_user;
SET ROLE chronoid_replace_user;
SELECT regress.err($$CREATE OR REPLACE FUNCTION public.uuidv7() RETURNS uuid
                      LANGUAGE sql AS 'SELECT gen_random_uuid()'$$) AS ordinary_role;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM chronoid_replace_user;
DROP ROLE chronoid_replace_user;

-- The superuser's replacement takes effect silently ...
CREATE OR REPLACE FUNCTION public.uuidv7() RETURNS uuid
LANGUAGE sql AS 'SELECT gen_random_uuid()';
SELECT uuid_extract_version(public.uuidv7()) AS replaced_version,
       l.lanname, e.extname AS still_member_of
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid
 WHERE p.oid = 'public.uuidv7()'::regprocedure;
-- ... the name core does not own still reaches the extension ...
SELECT uuid_extract_version(chronoid_uuidv7()) AS chronoid_uuidv7_version;
-- ... and the documented command puts the C function back.
CREATE OR REPLACE FUNCTION public.uuidv7() RETURNS uuid
AS '$libdir/chronoid', 'chronoid_uuidv7' LANGUAGE C VOLATILE PARALLEL SAFE;
SELECT uuid_extract_version(public.uuidv7()) AS restored_version,
       l.lanname, p.prosrc, p.probin, p.provolatile, p.proparallel
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.oid = 'public.uuidv7()'::regprocedure;
