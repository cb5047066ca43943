/*
 * migrate_from_ext_sql.c — the SQL of "chronoid migrate from-extension":
 * the inventory of everything that depends on the old extension, the
 * objects it cannot carry over, and the steps of the switch.
 *
 * The server does the work: each inventory statement fills a pg_temp
 * table (ON COMMIT DROP) from the catalogs, and the steps are text the
 * server builds with format('%I'), %L and regclass output, so every name
 * is quoted by PostgreSQL and qualified with its schema (the search path
 * is pinned to pg_catalog, pg_temp).  pg_temp.fx_ctx, made first by the
 * C, holds the old extension's OID, its schema, the schema chronoid goes
 * into (target), the kind (pgedge, uuidv7, ulid) and the scratch schema.
 *
 * What the switch carries over, and how:
 *   defaults   dropped first, set again last with the same expression
 *              (its text names the functions by schema and name, and
 *              chronoid's have the same names there)
 *   views      every view on the old extension, on a converted column or
 *              on such a view, dropped (dependents first) and re-created
 *              (in the other order) from pg_get_viewdef, with its options,
 *              owner, privileges (checked equal afterwards) and comments
 *   indexes    those whose expression or predicate uses the old
 *              extension's functions or operators: dropped, re-created
 *              from pg_get_indexdef with comment and CLUSTER mark; those
 *              on a converted column otherwise are rebuilt by the rewrite
 *   columns    of the old extension's types (pgx_ulid's ulid, ulid[]):
 *              ALTER ... TYPE chronoid's, USING the text form, which is
 *              the same 128 bits; one rewrite per table
 *   foreign keys between converted columns: dropped, added back
 *              (validated) after the rewrites
 *   sequences  (pgEdge) floored above the last ID of every sequence the
 *              defaults use and of snowflake.id_seq, as docs/postgresql.md,
 *              and above the highest ID in every column those defaults fill
 */
#include "migrate_from_ext_internal.h"

/* Rough rate of a rewrite or an index build, for the plan's estimates. */
#define FX_RATE "52428800.0"	/* 50 MB/s */

const char *const fx_inventory_sql[] = {
	/* The old extension's members, and the array types of its types. */
	"CREATE TEMP TABLE fx_member ON COMMIT DROP AS"
	" SELECT d.classid, d.objid FROM pg_catalog.pg_depend d, pg_temp.fx_ctx x"
	"  WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass"
	"    AND d.refobjid = x.ext AND d.deptype = 'e'"
	" UNION"
	" SELECT 'pg_catalog.pg_type'::pg_catalog.regclass::pg_catalog.oid, t.typarray"
	"   FROM pg_catalog.pg_type t, pg_catalog.pg_depend d, pg_temp.fx_ctx x"
	"  WHERE d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objid = t.oid"
	"    AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass"
	"    AND d.refobjid = x.ext AND d.deptype = 'e' AND t.typarray <> 0",

	/* What depends on them directly, and whether on code or on a type. */
	"CREATE TEMP TABLE fx_dep ON COMMIT DROP AS"
	" SELECT d.classid, d.objid, d.objsubid,"
	"        pg_catalog.bool_or(d.refclassid IN ('pg_catalog.pg_proc'::pg_catalog.regclass,"
	"                                            'pg_catalog.pg_operator'::pg_catalog.regclass)) AS uses_code,"
	"        pg_catalog.bool_or(d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass) AS uses_type"
	"   FROM pg_catalog.pg_depend d"
	"   JOIN pg_temp.fx_member m ON m.classid = d.refclassid AND m.objid = d.refobjid"
	"  WHERE d.deptype IN ('n', 'a')"
	"    AND NOT EXISTS (SELECT 1 FROM pg_temp.fx_member o"
	"                     WHERE o.classid = d.classid AND o.objid = d.objid)"
	/* parts of a member (an operator family's entries) go with it */
	"    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend p"
	"                      JOIN pg_temp.fx_member o ON o.classid = p.refclassid AND o.objid = p.refobjid"
	"                     WHERE p.classid = d.classid AND p.objid = d.objid AND p.deptype IN ('a', 'i'))"
	"  GROUP BY 1, 2, 3",

	/* Table columns of the old extension's types (inherited ones follow their parent). */
	"CREATE TEMP TABLE fx_column ON COMMIT DROP AS"
	" SELECT c.oid AS relid, a.attnum, c.oid::pg_catalog.regclass::pg_catalog.text AS rel,"
	"        a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) AS oldtype,"
	"        pg_catalog.format('%I.%I', x.target, t.typname) AS newtype,"
	"        c.reltuples::pg_catalog.int8 AS rows,"
	"        pg_catalog.pg_total_relation_size(c.oid) AS bytes"
	"   FROM pg_temp.fx_dep d"
	"   JOIN pg_catalog.pg_class c ON c.oid = d.objid"
	"   JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid"
	"   JOIN pg_catalog.pg_type t ON t.oid = a.atttypid, pg_temp.fx_ctx x"
	"  WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid > 0"
	"    AND d.uses_type AND c.relkind IN ('r', 'p') AND a.attinhcount = 0",

	/*
	 * Views: on the old extension, on a converted column, and every view
	 * (or materialized view, refused later) on those; depth orders them.
	 */
	"CREATE TEMP TABLE fx_view ON COMMIT DROP AS"
	" WITH RECURSIVE base AS ("
	"   SELECT r.ev_class AS oid FROM pg_temp.fx_dep d"
	"     JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid"
	"    WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
	"   UNION SELECT d.objid FROM pg_temp.fx_dep d JOIN pg_catalog.pg_class c ON c.oid = d.objid"
	"    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND c.relkind IN ('v', 'm')"
	"   UNION SELECT r.ev_class FROM pg_catalog.pg_depend d"
	"     JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid"
	"     JOIN pg_temp.fx_column k ON k.relid = d.refobjid AND k.attnum = d.refobjsubid"
	"    WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
	"      AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
	" ), tree (oid, depth) AS ("
	"   SELECT oid, 0 FROM base"
	"   UNION"
	"   SELECT r.ev_class, t.depth + 1 FROM tree t"
	"     JOIN pg_catalog.pg_depend d ON d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
	"          AND d.refobjid = t.oid AND d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
	"     JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid"
	"    WHERE r.ev_class <> t.oid AND t.depth < 50"
	" )"
	" SELECT c.oid, pg_catalog.max(t.depth) AS depth, c.relkind,"
	"        c.oid::pg_catalog.regclass::pg_catalog.text AS name,"
	"        pg_catalog.pg_get_userbyid(c.relowner) AS owner,"
	"        c.reloptions, pg_catalog.obj_description(c.oid, 'pg_class') AS comment,"
	"        pg_catalog.regexp_replace(pg_catalog.pg_get_viewdef(c.oid), ';\\s*$', '') AS def,"
	"        (SELECT pg_catalog.array_agg(a::pg_catalog.text ORDER BY a::pg_catalog.text)"
	"           FROM pg_catalog.unnest(COALESCE(c.relacl, pg_catalog.acldefault('r', c.relowner))) a) AS acl"
	"   FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.oid"
	"  GROUP BY c.oid",

	/* Indexes whose expression or predicate uses the old extension's code. */
	"CREATE TEMP TABLE fx_index ON COMMIT DROP AS"
	" SELECT i.indexrelid AS oid, c.oid::pg_catalog.regclass::pg_catalog.text AS name,"
	"        i.indrelid::pg_catalog.regclass::pg_catalog.text AS rel,"
	"        pg_catalog.pg_get_indexdef(i.indexrelid) AS def,"
	"        pg_catalog.obj_description(c.oid, 'pg_class') AS comment,"
	"        c.relname AS iname, i.indisclustered, i.indisreplident, c.reltablespace, c.relkind,"
	"        (SELECT k.conname FROM pg_catalog.pg_constraint k"
	"          WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x')) AS con,"
	"        t.reltuples::pg_catalog.int8 AS rows, pg_catalog.pg_total_relation_size(t.oid) AS bytes"
	"   FROM pg_temp.fx_dep d"
	"   JOIN pg_catalog.pg_index i ON i.indexrelid = d.objid"
	"   JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid"
	"   JOIN pg_catalog.pg_class t ON t.oid = i.indrelid"
	"  WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.uses_code",

	/* Foreign keys between converted columns (their operators are the extension's). */
	"CREATE TEMP TABLE fx_fk ON COMMIT DROP AS"
	" SELECT k.oid, k.conrelid::pg_catalog.regclass::pg_catalog.text AS rel,"
	"        k.confrelid::pg_catalog.regclass::pg_catalog.text AS refrel, k.conname,"
	"        pg_catalog.pg_get_constraintdef(k.oid) AS def,"
	"        pg_catalog.obj_description(k.oid, 'pg_constraint') AS comment,"
	"        t.reltuples::pg_catalog.int8 AS rows, pg_catalog.pg_total_relation_size(t.oid) AS bytes"
	"   FROM pg_temp.fx_dep d"
	"   JOIN pg_catalog.pg_constraint k ON k.oid = d.objid"
	"   JOIN pg_catalog.pg_class t ON t.oid = k.conrelid"
	"  WHERE d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
	"    AND k.contype = 'f' AND k.conparentid = 0",

	/* Column defaults on the old extension's functions or types. */
	"CREATE TEMP TABLE fx_default ON COMMIT DROP AS"
	" SELECT d.oid, d.adrelid::pg_catalog.regclass::pg_catalog.text AS rel, a.attname,"
	"        pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS expr, c.relkind, a.attgenerated, a.atttypid"
	"   FROM pg_temp.fx_dep x"
	"   JOIN pg_catalog.pg_attrdef d ON d.oid = x.objid"
	"   JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum"
	"   JOIN pg_catalog.pg_class c ON c.oid = d.adrelid"
	"  WHERE x.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass",

	/*
	 * pgEdge: the sequences its defaults mint from, and snowflake.id_seq;
	 * their last IDs are read just before the extension goes.
	 */
	"CREATE TEMP TABLE fx_seq ON COMMIT DROP AS"
	" SELECT DISTINCT s.oid::pg_catalog.regclass::pg_catalog.text AS seq, NULL::pg_catalog.int8 AS last_id"
	"   FROM pg_temp.fx_default f"
	"   JOIN pg_catalog.pg_depend x ON x.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
	"        AND x.objid = f.oid AND x.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
	"   JOIN pg_catalog.pg_class s ON s.oid = x.refobjid AND s.relkind = 'S', pg_temp.fx_ctx c"
	"  WHERE c.kind = 'pgedge' AND f.attgenerated = ''"
	" UNION SELECT 'snowflake.id_seq', NULL FROM pg_temp.fx_ctx c WHERE c.kind = 'pgedge'",

	/* pgEdge: the highest ID in each column its defaults fill (rows given their own IDs too). */
	"CREATE TEMP TABLE fx_top (top pg_catalog.int8, what pg_catalog.text) ON COMMIT DROP",
	NULL
};

const char	fx_refusals_sql[] =
"SELECT what, why FROM ("
/* dependents of no kind the switch handles */
" SELECT 1 AS o, pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) AS what,"
"   CASE d.classid"
"   WHEN 'pg_catalog.pg_attrdef'::pg_catalog.regclass THEN"
"     CASE WHEN f.attgenerated <> '' THEN 'a generated column on the old extension: drop the column''s"
" expression (ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION) or the column, switch, then add it again'"
"          ELSE 'a default on a relation that is not a table: drop it, switch, then set it again' END"
"   WHEN 'pg_catalog.pg_constraint'::pg_catalog.regclass THEN"
"     'a constraint on the old extension: drop it (ALTER TABLE ... DROP CONSTRAINT), switch, then add it again'"
"   WHEN 'pg_catalog.pg_proc'::pg_catalog.regclass THEN"
"     'a function whose signature or SQL-standard body uses the old extension: drop it, switch, then create it again'"
"   WHEN 'pg_catalog.pg_trigger'::pg_catalog.regclass THEN"
"     'a trigger whose WHEN clause uses the old extension: drop it, switch, then create it again'"
"   WHEN 'pg_catalog.pg_policy'::pg_catalog.regclass THEN"
"     'a row security policy on the old extension: drop it, switch, then create it again'"
"   WHEN 'pg_catalog.pg_type'::pg_catalog.regclass THEN"
"     'a type (domain, range or composite) built on the old extension''s type: drop it, switch, then create it again'"
"   ELSE 'not carried over by the switch: drop it, switch, then create it again' END AS why"
"   FROM pg_temp.fx_dep d"
"   LEFT JOIN pg_temp.fx_default f ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND f.oid = d.objid"
"  WHERE NOT ("
"        (d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND f.attgenerated = '' AND f.relkind IN ('r', 'p'))"
"     OR (d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
"         AND EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r JOIN pg_temp.fx_view v ON v.oid = r.ev_class"
"                      WHERE r.oid = d.objid AND r.rulename = '_RETURN'))"
"     OR (d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass"
"         AND (EXISTS (SELECT 1 FROM pg_temp.fx_view v WHERE v.oid = d.objid)"
"              OR EXISTS (SELECT 1 FROM pg_temp.fx_index i WHERE i.oid = d.objid)"
"              OR EXISTS (SELECT 1 FROM pg_temp.fx_column k WHERE k.relid = d.objid AND k.attnum = d.objsubid)"
"              OR EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = d.objid"
"                          AND a.attnum = d.objsubid AND a.attinhcount > 0)"
"              OR (d.objsubid = 0 AND NOT d.uses_code AND EXISTS (SELECT 1 FROM pg_catalog.pg_index i"
"                   JOIN pg_temp.fx_column k ON k.relid = i.indrelid WHERE i.indexrelid = d.objid))))"
"     OR (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
"         AND EXISTS (SELECT 1 FROM pg_temp.fx_fk k WHERE k.oid = d.objid))"
"     OR (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
"         AND EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.oid = d.objid AND k.conparentid <> 0)))"
/* views it cannot re-create as they were */
" UNION ALL SELECT 2, 'materialized view ' || v.name,"
"   'a materialized view on the old extension: drop it, switch, then create and refresh it again'"
"   FROM pg_temp.fx_view v WHERE v.relkind <> 'v'"
" UNION ALL SELECT 3, 'view ' || v.name, 'has a trigger (' || pg_catalog.quote_ident(g.tgname)"
"   || ') the switch does not re-create: drop it, switch, then create it again'"
"   FROM pg_temp.fx_view v JOIN pg_catalog.pg_trigger g ON g.tgrelid = v.oid"
" UNION ALL SELECT 4, 'view ' || v.name, 'has a rule (' || pg_catalog.quote_ident(r.rulename)"
"   || ') the switch does not re-create: drop it, switch, then create it again'"
"   FROM pg_temp.fx_view v JOIN pg_catalog.pg_rewrite r ON r.ev_class = v.oid AND r.rulename <> '_RETURN'"
" UNION ALL SELECT 5, 'view ' || v.name, 'has column privileges or column defaults the switch does not"
" carry over: revoke or drop them, switch, then grant or set them again'"
"   FROM pg_temp.fx_view v WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = v.oid"
"        AND a.attnum > 0 AND (a.attacl IS NOT NULL OR a.atthasdef))"
" UNION ALL SELECT 6, 'view ' || v.name, 'has privileges granted by ' || pg_catalog.quote_ident(g.rolname)"
"   || ', not by its owner: revoke them, switch, then grant them again'"
"   FROM pg_temp.fx_view v, pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a, pg_catalog.pg_roles g"
"  WHERE c.oid = v.oid AND a.grantor <> c.relowner AND g.oid = a.grantor"
/* what else depends on those views: DROP VIEW would refuse */
" UNION ALL SELECT 12, pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),"
"   'depends on view ' || v.name || ', which the switch drops and creates again: drop it, switch,"
" then create it again'"
"   FROM pg_temp.fx_view v JOIN pg_catalog.pg_class c ON c.oid = v.oid"
"   JOIN pg_catalog.pg_depend d"
"     ON (d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = v.oid)"
"     OR (d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.refobjid = c.reltype)"
"  WHERE d.deptype = 'n'"
"    AND NOT (d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
"             AND EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r JOIN pg_temp.fx_view w ON w.oid = r.ev_class"
"                          WHERE r.oid = d.objid))"
/* indexes it cannot re-create as they were */
" UNION ALL SELECT 7, 'index ' || i.name, CASE"
"   WHEN i.con IS NOT NULL THEN 'backs constraint ' || pg_catalog.quote_ident(i.con)"
"        || ', which uses the old extension: drop it, switch, then add it again'"
"   WHEN i.indisreplident THEN 'is its table''s replica identity: set REPLICA IDENTITY DEFAULT, switch, then set it again'"
"   WHEN i.reltablespace <> 0 THEN 'lies in tablespace ' || pg_catalog.quote_ident(s.spcname)"
"        || ': drop it, switch, then create it again there'"
"   ELSE 'is a partitioned index: drop it, switch, then create it again' END"
"   FROM pg_temp.fx_index i LEFT JOIN pg_catalog.pg_tablespace s ON s.oid = i.reltablespace"
"  WHERE i.con IS NOT NULL OR i.indisreplident OR i.reltablespace <> 0 OR i.relkind <> 'i'"
/* pgEdge: its schema goes, with whatever else is in it */
" UNION ALL SELECT 8, pg_catalog.pg_describe_object(d.classid, d.objid, 0),"
"   'lies in schema snowflake, which the switch drops with pgEdge''s extension: move it to another"
" schema (ALTER ... SET SCHEMA) or drop it first'"
"   FROM pg_catalog.pg_depend d, pg_temp.fx_ctx x"
"  WHERE x.kind = 'pgedge' AND d.refclassid = 'pg_catalog.pg_namespace'::pg_catalog.regclass"
"    AND d.refobjid = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'snowflake')"
"    AND d.deptype = 'n' AND d.classid <> 'pg_catalog.pg_extension'::pg_catalog.regclass"
"    AND NOT EXISTS (SELECT 1 FROM pg_temp.fx_member m WHERE m.classid = d.classid AND m.objid = d.objid)"
"    AND NOT (d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass"
"             AND EXISTS (SELECT 1 FROM pg_catalog.pg_type t WHERE t.oid = d.objid AND t.typrelid <> 0))"
/* chronoid creates schema snowflake; the scratch schema must be free */
" UNION ALL SELECT 9, 'schema snowflake', 'exists, and chronoid''s install script creates it: rename it"
" (ALTER SCHEMA snowflake RENAME TO ...) or drop it first'"
"   FROM pg_temp.fx_ctx x WHERE x.kind <> 'pgedge'"
"    AND EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'snowflake')"
" UNION ALL SELECT 10, 'schema ' || pg_catalog.quote_ident(x.scratch),"
"   'exists, and the switch needs that name for the old extension''s objects while it converts"
" columns: rename or drop it first'"
"   FROM pg_temp.fx_ctx x WHERE EXISTS (SELECT 1 FROM pg_temp.fx_column)"
"    AND EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = x.scratch)"
/* PostgreSQL will not put such a schema's name into an extension script */
" UNION ALL SELECT 11, 'schema ' || pg_catalog.quote_ident(x.target),"
"   'is where chronoid would go, and PostgreSQL refuses an extension schema whose name has any of"
" \" $ '' \\ in it: rename the schema (ALTER SCHEMA ... RENAME TO ...) first'"
"   FROM pg_temp.fx_ctx x WHERE x.target ~ '[\"$''\\\\]'"
") r ORDER BY o, what";

const char	fx_objects_sql[] =
"SELECT kind, name, detail FROM ("
" SELECT 1 AS o, 'default' AS kind, pg_catalog.format('%s.%I', rel, attname) AS name, expr AS detail"
"   FROM pg_temp.fx_default WHERE attgenerated = '' AND relkind IN ('r', 'p')"
" UNION ALL SELECT 2, 'column', pg_catalog.format('%s.%I', rel, attname),"
"   pg_catalog.format('%s -> %s (chronoid''s), %s rows, %s', oldtype, newtype,"
"     CASE WHEN rows < 0 THEN 'unknown (never analyzed)' ELSE rows::pg_catalog.text END,"
"     pg_catalog.pg_size_pretty(bytes))"
"   FROM pg_temp.fx_column"
" UNION ALL SELECT 3, 'index', i.name, 'on ' || i.rel || ' (uses the old extension''s functions)'"
"   FROM pg_temp.fx_index i"
" UNION ALL SELECT 4, 'index', c.oid::pg_catalog.regclass::pg_catalog.text,"
"   'on ' || k.rel || ', rebuilt with its column'"
"   FROM (SELECT DISTINCT relid, rel FROM pg_temp.fx_column) k"
"   JOIN pg_catalog.pg_index i ON i.indrelid = k.relid JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid"
"  WHERE NOT EXISTS (SELECT 1 FROM pg_temp.fx_index x WHERE x.oid = i.indexrelid)"
" UNION ALL SELECT 5, 'foreign key', pg_catalog.format('%I on %s', conname, rel), 'references ' || refrel"
"   FROM pg_temp.fx_fk"
" UNION ALL SELECT 6, 'view', name, pg_catalog.format('owner %I%s', owner,"
"   CASE WHEN depth > 0 THEN ', on views above' ELSE '' END)"
"   FROM pg_temp.fx_view"
" UNION ALL SELECT 7, 'sequence', seq, 'floored above the old IDs' FROM pg_temp.fx_seq"
") r ORDER BY o, name";

/*
 * The steps.  Each row: phase, order within it, what, the statement, the
 * lock it takes, its expected duration, and whether it is a check that
 * must return true.
 */
/*
 * The last columns: the owner of the table a step's statement runs code
 * on (a rewrite re-checks CHECKs and domains, an index evaluates its
 * expressions, a foreign key its check), whose code runs as that owner
 * (migrate_as_owner.c): its OID, quoted name, whether it is another role
 * than the one logged in and no superuser, and the table; 0, '', false,
 * '' for the others.
 */
#define STEP_COLS "what, sql, lock, duration, expect_true," \
	" COALESCE(ow.relowner, 0), COALESCE(pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(ow.relowner)), '')," \
	" COALESCE(ow.relowner <> (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = SESSION_USER)" \
	"   AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = ow.relowner), false)," \
	" COALESCE(s.orel, '')"
#define EST(bytes) \
	"CASE WHEN " bytes " < 52428800 THEN 'about a second or less' ELSE" \
	" pg_catalog.format('about %s s (at 50 MB/s)', pg_catalog.round(" bytes " / " FX_RATE "))" \
	" END"

const char	fx_steps_sql[] =
"SELECT " STEP_COLS " FROM ("
/* 10: the defaults go first, so that nothing needs CASCADE */
" SELECT 10 AS p, 0 AS n, rel || attname AS k, pg_catalog.format('drop the default of %s.%I', rel, attname) AS what,"
"   pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I DROP DEFAULT', rel, attname) AS sql,"
"   'ACCESS EXCLUSIVE on table ' || rel AS lock, 'milliseconds (catalog only)' AS duration, false AS expect_true, NULL::pg_catalog.text AS orel"
"   FROM pg_temp.fx_default WHERE attgenerated = '' AND relkind IN ('r', 'p')"
/* 20: foreign keys between converted columns */
" UNION ALL SELECT 20, 0, rel || conname, pg_catalog.format('drop foreign key %I on %s', conname, rel),"
"   pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', rel, conname),"
"   'ACCESS EXCLUSIVE on table ' || rel || ' and table ' || refrel, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_fk"
/* 30: indexes on the old extension's code */
" UNION ALL SELECT 30, 0, name, 'drop index ' || name, 'DROP INDEX ' || name,"
"   'ACCESS EXCLUSIVE on table ' || rel, 'milliseconds (catalog only)', false, NULL FROM pg_temp.fx_index"
/* 40: views, those on other views first */
" UNION ALL SELECT 40, -depth, name, 'drop view ' || name, 'DROP VIEW ' || name,"
"   'ACCESS EXCLUSIVE on view ' || name, 'milliseconds (catalog only)', false, NULL FROM pg_temp.fx_view"
/* 45: pgEdge: each sequence's last ID, now that no default mints */
" UNION ALL SELECT 45, 0, '', 'read the last ID of every pgEdge sequence',"
"   'UPDATE pg_temp.fx_seq SET last_id = pg_catalog.pg_sequence_last_value(seq::pg_catalog.regclass)',"
"   'none (reads the sequences)', 'milliseconds', false, NULL FROM pg_temp.fx_ctx WHERE kind = 'pgedge'"
" UNION ALL SELECT 45, 1, rel || attname, pg_catalog.format('read the highest ID in %s.%I', rel, attname),"
"   pg_catalog.format('INSERT INTO pg_temp.fx_top SELECT pg_catalog.max(%I), %L FROM %s', attname,"
"     rel || '.' || pg_catalog.quote_ident(attname), rel),"
"   'ACCESS SHARE on table ' || rel || ' (already held)',"
"   'milliseconds with an index on the column, else a scan of the table', false, NULL"
"   FROM pg_temp.fx_default, pg_temp.fx_ctx x"
"  WHERE x.kind = 'pgedge' AND attgenerated = '' AND relkind IN ('r', 'p')"
"    AND atttypid = 'pg_catalog.int8'::pg_catalog.regtype"
/* 50: no column to convert: the old extension goes now */
" UNION ALL SELECT 50, 0, '', pg_catalog.format('drop extension %I', extname),"
"   pg_catalog.format('DROP EXTENSION %I', extname),"
"   'ACCESS EXCLUSIVE on the extension''s objects', 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_ctx WHERE NOT EXISTS (SELECT 1 FROM pg_temp.fx_column)"
" UNION ALL SELECT 50, 1, '', 'drop schema snowflake (pgEdge''s, now empty)', 'DROP SCHEMA snowflake',"
"   'ACCESS EXCLUSIVE on schema snowflake', 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_ctx WHERE kind = 'pgedge'"
/* 50: columns to convert: the old extension's objects step aside until they are */
" UNION ALL SELECT 50, 0, '', pg_catalog.format('create schema %I for the old extension''s objects', scratch),"
"   pg_catalog.format('CREATE SCHEMA %I', scratch), 'none', 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_ctx WHERE EXISTS (SELECT 1 FROM pg_temp.fx_column)"
" UNION ALL SELECT 50, 1, '', pg_catalog.format('move the old extension''s %s objects in schema %I to schema %I',"
"     pg_catalog.count(*), x.target, x.scratch),"
"   pg_catalog.string_agg(pg_catalog.format('ALTER %s %s SET SCHEMA %I', pg_catalog.upper(o.type), o.identity, x.scratch),"
"     '; ' ORDER BY o.type = 'type', o.type, o.identity),"
"   'ACCESS EXCLUSIVE on each of those objects', 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_member m, pg_catalog.pg_identify_object(m.classid, m.objid, 0) o, pg_temp.fx_ctx x"
"  WHERE EXISTS (SELECT 1 FROM pg_temp.fx_column) AND o.schema = pg_catalog.quote_ident(x.target)"
"    AND o.type IN ('function', 'procedure', 'aggregate', 'type', 'operator', 'operator class', 'operator family')"
"    AND NOT (m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass"
"             AND EXISTS (SELECT 1 FROM pg_catalog.pg_type e WHERE e.typarray = m.objid))"
"  GROUP BY x.target, x.scratch"
/* 60: chronoid */
" UNION ALL SELECT 60, 0, '', pg_catalog.format('create extension chronoid in schema %I', target),"
"   pg_catalog.format('CREATE EXTENSION chronoid SCHEMA %I', target),"
"   'none on tables', 'milliseconds (catalog only)', false, NULL FROM pg_temp.fx_ctx"
/* 70: one rewrite per table for all its converted columns */
" UNION ALL SELECT 70, 0, rel, pg_catalog.format('convert %s of %s to chronoid''s type',"
"     pg_catalog.string_agg(pg_catalog.quote_ident(attname), ', ' ORDER BY attnum), rel),"
"   pg_catalog.format('ALTER TABLE %s %s', rel, pg_catalog.string_agg(pg_catalog.format("
"     'ALTER COLUMN %I TYPE %s USING %I::pg_catalog.text::%s', attname, newtype, attname, newtype), ', ' ORDER BY attnum)),"
"   pg_catalog.format('ACCESS EXCLUSIVE on table %s: rewrite of %s rows, %s, and of its indexes', rel,"
"     CASE WHEN pg_catalog.min(rows) < 0 THEN 'unknown (never analyzed)' ELSE pg_catalog.min(rows)::pg_catalog.text END,"
"     pg_catalog.pg_size_pretty(pg_catalog.min(bytes))),"
"   " EST("pg_catalog.min(bytes)") ", false, rel"
"   FROM pg_temp.fx_column GROUP BY rel"
" UNION ALL SELECT 75, 0, '', pg_catalog.format('drop extension %I', extname),"
"   pg_catalog.format('DROP EXTENSION %I', extname),"
"   'ACCESS EXCLUSIVE on the extension''s objects', 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_ctx WHERE EXISTS (SELECT 1 FROM pg_temp.fx_column)"
" UNION ALL SELECT 75, 1, '', pg_catalog.format('drop schema %I', scratch), pg_catalog.format('DROP SCHEMA %I', scratch),"
"   'none', 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_ctx WHERE EXISTS (SELECT 1 FROM pg_temp.fx_column)"
/* 80: views again, as they were */
" UNION ALL SELECT 80, depth * 10, name, 'create view ' || name,"
"   pg_catalog.format('CREATE VIEW %s%s AS %s', name, CASE WHEN reloptions IS NULL THEN '' ELSE"
"     pg_catalog.format(' WITH (%s)', pg_catalog.array_to_string(reloptions, ', ')) END, def),"
"   'ACCESS EXCLUSIVE on view ' || name, 'milliseconds (catalog only)', false, NULL FROM pg_temp.fx_view"
" UNION ALL SELECT 80, depth * 10 + 1, name, pg_catalog.format('give view %s to %I', name, owner),"
"   pg_catalog.format('ALTER VIEW %s OWNER TO %I', name, owner),"
"   'ACCESS EXCLUSIVE on view ' || name, 'milliseconds (catalog only)', false, NULL FROM pg_temp.fx_view"
" UNION ALL SELECT 80, v.depth * 10 + 2, v.name || a.privilege_type,"
"   pg_catalog.format('grant %s on view %s', a.privilege_type, v.name),"
"   pg_catalog.format('GRANT %s ON %s TO %s%s', a.privilege_type, v.name,"
"     CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,"
"     CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END),"
"   'ACCESS EXCLUSIVE on view ' || v.name, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_view v, pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a"
"  WHERE c.oid = v.oid AND a.grantee <> c.relowner"
" UNION ALL SELECT 80, depth * 10 + 3, name, 'comment on view ' || name,"
"   pg_catalog.format('COMMENT ON VIEW %s IS %L', name, comment),"
"   'ACCESS EXCLUSIVE on view ' || name, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_view WHERE comment IS NOT NULL"
" UNION ALL SELECT 80, v.depth * 10 + 4, v.name || a.attname,"
"   pg_catalog.format('comment on column %s.%I', v.name, a.attname),"
"   pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', v.name, a.attname, pg_catalog.col_description(v.oid, a.attnum)),"
"   'ACCESS EXCLUSIVE on view ' || v.name, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_view v JOIN pg_catalog.pg_attribute a ON a.attrelid = v.oid AND a.attnum > 0"
"  WHERE pg_catalog.col_description(v.oid, a.attnum) IS NOT NULL"
" UNION ALL SELECT 80, depth * 10 + 5, name, pg_catalog.format('check the privileges of view %s', name),"
"   pg_catalog.format('SELECT (SELECT pg_catalog.array_agg(a::pg_catalog.text ORDER BY a::pg_catalog.text)"
" FROM pg_catalog.pg_class c, pg_catalog.unnest(COALESCE(c.relacl, pg_catalog.acldefault(''r'', c.relowner))) a"
" WHERE c.oid = %L::pg_catalog.regclass) = %L::pg_catalog.text[]', name, acl),"
"   'none', 'milliseconds', true, NULL FROM pg_temp.fx_view"
/* 85: indexes again */
" UNION ALL SELECT 85, 0, name, 'create index ' || name, def,"
"   'SHARE on table ' || rel || ' (writes wait; reads go on): a scan of '"
"     || CASE WHEN rows < 0 THEN 'unknown' ELSE rows::pg_catalog.text END || ' rows, '"
"     || pg_catalog.pg_size_pretty(bytes),"
"   " EST("bytes") ", false, rel FROM pg_temp.fx_index"
" UNION ALL SELECT 85, 1, name, 'comment on index ' || name,"
"   pg_catalog.format('COMMENT ON INDEX %s IS %L', name, comment),"
"   'ACCESS EXCLUSIVE on index ' || name, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_index WHERE comment IS NOT NULL"
" UNION ALL SELECT 85, 2, name, pg_catalog.format('mark %s for CLUSTER', name),"
"   pg_catalog.format('ALTER TABLE %s CLUSTER ON %I', rel, iname),"
"   'ACCESS EXCLUSIVE on table ' || rel, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_index WHERE indisclustered"
/* 87: foreign keys again, validated */
" UNION ALL SELECT 87, 0, rel || conname, pg_catalog.format('add foreign key %I on %s again', conname, rel),"
"   pg_catalog.format('ALTER TABLE %s ADD CONSTRAINT %I %s', rel, conname, def),"
"   'SHARE ROW EXCLUSIVE on table ' || rel || ' and table ' || refrel || ': a check of '"
"     || CASE WHEN rows < 0 THEN 'unknown' ELSE rows::pg_catalog.text END || ' rows, '"
"     || pg_catalog.pg_size_pretty(bytes),"
"   " EST("bytes") ", false, rel FROM pg_temp.fx_fk"
" UNION ALL SELECT 87, 1, rel || conname, pg_catalog.format('comment on foreign key %I', conname),"
"   pg_catalog.format('COMMENT ON CONSTRAINT %I ON %s IS %L', conname, rel, comment),"
"   'ACCESS EXCLUSIVE on table ' || rel, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_fk WHERE comment IS NOT NULL"
/* 90: the defaults again, now resolving to chronoid's functions */
" UNION ALL SELECT 90, 0, rel || attname, pg_catalog.format('set the default of %s.%I again', rel, attname),"
"   pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s', rel, attname, expr),"
"   'ACCESS EXCLUSIVE on table ' || rel, 'milliseconds (catalog only)', false, NULL"
"   FROM pg_temp.fx_default WHERE attgenerated = '' AND relkind IN ('r', 'p')"
/* 95: pgEdge's sequences, as docs/postgresql.md */
" UNION ALL SELECT 95, 0, '', 'repair sequences pgEdge 2.4 and earlier left with a small MAXVALUE',"
"   'SELECT snowflake.repair_sequences()', 'ROW EXCLUSIVE on each sequence it alters', 'milliseconds', false, NULL"
"   FROM pg_temp.fx_ctx WHERE kind = 'pgedge'"
/*
 * The floor below refuses an ID too far ahead of the clock, naming only the
 * sequence and its internal value: say first which ID, where and when.
 */
" UNION ALL SELECT 95, 1, '', 'check: the highest old ID is not beyond snowflake.max_run_ahead',"
"   'DO $fx$DECLARE r record; lim pg_catalog.int8; ahead pg_catalog.int8; BEGIN"
" SELECT t.top, t.what INTO r FROM (SELECT top, what FROM pg_temp.fx_top UNION ALL"
" SELECT last_id, ''the last ID of sequence '' || seq FROM pg_temp.fx_seq) t"
" WHERE t.top IS NOT NULL ORDER BY t.top DESC LIMIT 1;"
" IF NOT FOUND THEN RETURN; END IF;"
" SELECT s.setting::pg_catalog.int8 INTO lim FROM pg_catalog.pg_settings s WHERE s.name = ''snowflake.max_run_ahead'';"
" lim := COALESCE(lim, 1000);"
" ahead := (pg_catalog.date_part(''epoch'', snowflake.to_timestamp(r.top)) * 1000)::pg_catalog.int8"
"   - (pg_catalog.date_part(''epoch'', pg_catalog.clock_timestamp()) * 1000)::pg_catalog.int8;"
" IF ahead > lim THEN RAISE EXCEPTION ''the highest old ID, % in %, was minted for % (node %, count %), % ms ahead"
" of the clock; snowflake.max_run_ahead allows % ms'', r.top, r.what, snowflake.to_timestamp(r.top),"
" snowflake.get_node(r.top), r.top & 4095, ahead, lim USING HINT = ''New IDs must lie above it: wait until the clock"
" passes it, or raise snowflake.max_run_ahead above that lead for the switch (ALTER SYSTEM, then"
" pg_reload_conf()).''; END IF; END$fx$',"
"   'none', 'milliseconds', false, NULL FROM pg_temp.fx_ctx WHERE kind = 'pgedge'"
" UNION ALL SELECT 95, 2, '', 'continue every sequence above the highest old ID',"
"   'SELECT pg_catalog.setval(s.seq::pg_catalog.regclass, (t.top >> 22 << 12) | (t.top & 4095))"
" FROM pg_temp.fx_seq s, (SELECT GREATEST(pg_catalog.max(last_id), (SELECT pg_catalog.max(top) FROM pg_temp.fx_top)) AS top"
" FROM pg_temp.fx_seq) t WHERE t.top IS NOT NULL',"
"   'none (each sequence''s value)', 'milliseconds', false, NULL FROM pg_temp.fx_ctx WHERE kind = 'pgedge'"
" UNION ALL SELECT 95, 3, '', 'check: a new ID lies above every old one',"
"   'SELECT snowflake.nextval() > (SELECT COALESCE(GREATEST(pg_catalog.max(last_id),"
" (SELECT pg_catalog.max(top) FROM pg_temp.fx_top)), 0) FROM pg_temp.fx_seq)',"
"   'none', 'milliseconds', true, NULL FROM pg_temp.fx_ctx WHERE kind = 'pgedge'"
") s LEFT JOIN pg_catalog.pg_class ow ON ow.oid = s.orel::pg_catalog.regclass ORDER BY p, n, k";

const char	fx_summary_sql[] =
"SELECT x.extname, x.extversion, x.extnsp, x.target, pg_catalog.current_database(),"
"       (SELECT pg_catalog.round(COALESCE(pg_catalog.sum(bytes), 0) / " FX_RATE ")"
"          FROM (SELECT pg_catalog.min(bytes) AS bytes FROM pg_temp.fx_column GROUP BY rel"
"                UNION ALL SELECT bytes FROM pg_temp.fx_index"
"                UNION ALL SELECT bytes FROM pg_temp.fx_fk) b)::pg_catalog.int8 AS secs"
"  FROM pg_temp.fx_ctx x";
