-- Every object the extension creates carries a COMMENT (the list of those
-- without one must be empty), and the objects are the expected kinds.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
-- The members the install script creates.  PostgreSQL 18 also records the
-- types core makes implicitly (ulid[], the registry table's row type and
-- its array) as members; they take no COMMENT of their own.
CREATE TEMP VIEW members AS
SELECT d.classid, d.objid, d.objsubid
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'chronoid' AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass AND EXISTS (
      SELECT FROM pg_type t
      WHERE t.oid = d.objid
        AND (t.typrelid <> 0 OR EXISTS (SELECT FROM pg_type el WHERE el.typarray = t.oid))));
SELECT pg_describe_object(classid, objid, objsubid) AS uncommented
FROM members
WHERE obj_description(objid, classid::regclass::name) IS NULL
ORDER BY 1;
SELECT classid::regclass AS catalog, count(*) AS objects
FROM members
GROUP BY 1 ORDER BY classid::regclass::text;
