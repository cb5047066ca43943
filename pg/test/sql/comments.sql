-- Every object the extension creates carries a COMMENT (the list of those
-- without one must be empty), and the objects are the expected kinds.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS uncommented
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'chronoid' AND d.deptype = 'e'
  AND obj_description(d.objid, d.classid::regclass::name) IS NULL
ORDER BY 1;
SELECT d.classid::regclass AS catalog, count(*) AS objects
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'chronoid' AND d.deptype = 'e'
GROUP BY 1 ORDER BY d.classid::regclass::text;
