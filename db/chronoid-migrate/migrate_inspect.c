/*
 * migrate_inspect.c — what the catalogs say about the table to migrate:
 * its key, the tables whose foreign keys reference it, chronoid's schema,
 * and every reason to refuse before anything changes.  Names come back
 * from the server already quoted (quote_ident, regclass output with the
 * search path pinned to pg_catalog, so always schema-qualified).
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"
#include "pq_internal.h"

static void
copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/* --table to an OID: qualified as written, or the one table of that name. */
static bool
resolve(mig_ctx *c)
{
	const char *params[1] = {c->o->table};
	PGresult   *res = mig_query(c,
								"WITH p AS (SELECT pg_catalog.parse_ident($1) AS parts)"
								" SELECT k.oid, k.oid::pg_catalog.regclass::pg_catalog.text"
								"   FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace, p"
								"  WHERE k.relkind IN ('r', 'p', 'v', 'm', 'f')"
								"    AND CASE pg_catalog.array_length(p.parts, 1)"
								"        WHEN 2 THEN n.nspname = p.parts[1] AND k.relname = p.parts[2]"
								"        WHEN 1 THEN k.relname = p.parts[1] AND n.nspname <> 'information_schema'"
								"                    AND n.nspname !~ '^pg_'"
								"        ELSE false END"
								"  ORDER BY 2",
								1, params);
	int			n;

	if (res == NULL)
	{
		mig_buf		w = {0};

		mig_buf_printf(&w, "--table \"%.100s\": ", c->o->table);
		mig_err_around(c, w.s != NULL ? w.s : "", " (expected [schema.]name)");
		mig_buf_free(&w);
		return false;
	}
	n = PQntuples(res);
	if (n == 0)
		snprintf(c->err, sizeof(c->err), "no table \"%s\" in this database (check the name, "
				 "or qualify it with its schema)", c->o->table);
	else if (n > 1)
	{
		mig_buf		b = {0};
		int			i;

		for (i = 0; i < n; i++)
			mig_buf_printf(&b, "%s%s", i ? ", " : "", PQgetvalue(res, i, 1));
		snprintf(c->err, sizeof(c->err), "--table \"%s\" is ambiguous: %s; qualify it with its schema",
				 c->o->table, b.s);
		mig_buf_free(&b);
	}
	else
	{
		c->t.relid = (uint32_t) strtoul(PQgetvalue(res, 0, 0), NULL, 10);
		copy(c->t.qname, sizeof(c->t.qname), PQgetvalue(res, 0, 1));
	}
	PQclear(res);
	return n == 1;
}

/*
 * Whether k's owner runs its code in a function of its own: it is neither
 * the role the tool logged in as nor a superuser.
 */
#define WRAP_SQL \
"(k.relowner <> (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = SESSION_USER)" \
" AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = k.relowner))"

/*
 * What makes k impossible to move as its owner without lending the tool's
 * rights: code that would run at COMMIT, after the owner's function
 * returned (deferrable constraint triggers, deferrable constraints over
 * expressions), and policies that would hide rows from the owner.
 */
#define OWNER_BLOCKERS_SQL \
"COALESCE((SELECT pg_catalog.string_agg(w, '; ') FROM (" \
"  SELECT pg_catalog.format('deferrable trigger %I', t.tgname) AS w FROM pg_catalog.pg_trigger t" \
"   WHERE t.tgrelid = k.oid AND t.tgdeferrable AND NOT t.tgisinternal" \
"  UNION ALL SELECT pg_catalog.format('deferrable constraint %I over an expression', n.conname)" \
"    FROM pg_catalog.pg_constraint n JOIN pg_catalog.pg_index i ON i.indexrelid = n.conindid" \
"   WHERE n.conrelid = k.oid AND n.condeferrable AND (i.indexprs IS NOT NULL OR i.indpred IS NOT NULL)" \
"  UNION ALL SELECT 'FORCE ROW LEVEL SECURITY (its policies would hide rows from the backfill)'" \
"   WHERE k.relforcerowsecurity) b), '')"

/*
 * Rules on UPDATE: an INSTEAD rule turns the tool's UPDATEs into something
 * else (the backfill would count rows it never set), and PostgreSQL
 * refuses any rule on a table that a WITH ... UPDATE writes, which is how
 * every batch is sent.
 */
#define UPDATE_RULES_SQL \
"COALESCE((SELECT pg_catalog.string_agg(pg_catalog.quote_ident(w.rulename), ', ') FROM pg_catalog.pg_rewrite w" \
"   WHERE w.ev_class = k.oid AND w.ev_type = '2'), '')"

/*
 * The GRANTs a child's owner needs on the table ($1) when another role
 * owns it: USAGE on its schema, SELECT and REFERENCES on its key ($3),
 * "" when it has them.
 */
#define CHILD_GRANTS_SQL \
"CASE WHEN k.relowner = (SELECT x.relowner FROM pg_catalog.pg_class x WHERE x.oid = $1::pg_catalog.oid)" \
"       OR (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = k.relowner) THEN '' ELSE" \
" pg_catalog.concat_ws(' '," \
"  CASE WHEN NOT pg_catalog.has_schema_privilege(k.relowner, (SELECT x.relnamespace FROM pg_catalog.pg_class x" \
"        WHERE x.oid = $1::pg_catalog.oid), 'USAGE')" \
"   THEN pg_catalog.format('GRANT USAGE ON SCHEMA %I TO %I;', (SELECT n.nspname FROM pg_catalog.pg_class x" \
"        JOIN pg_catalog.pg_namespace n ON n.oid = x.relnamespace WHERE x.oid = $1::pg_catalog.oid)," \
"        pg_catalog.pg_get_userbyid(k.relowner)) END," \
"  CASE WHEN NOT pg_catalog.has_column_privilege(k.relowner, $1::pg_catalog.oid, $2::pg_catalog.int2, 'SELECT')" \
"        OR NOT pg_catalog.has_column_privilege(k.relowner, $1::pg_catalog.oid, $2::pg_catalog.int2, 'REFERENCES')" \
"   THEN pg_catalog.format('GRANT SELECT (%I), REFERENCES (%I) ON %s TO %I;'," \
"        (SELECT b.attname FROM pg_catalog.pg_attribute b WHERE b.attrelid = $1::pg_catalog.oid AND b.attnum = $2::pg_catalog.int2)," \
"        (SELECT b.attname FROM pg_catalog.pg_attribute b WHERE b.attrelid = $1::pg_catalog.oid AND b.attnum = $2::pg_catalog.int2)," \
"        $1::pg_catalog.oid::pg_catalog.regclass, pg_catalog.pg_get_userbyid(k.relowner)) END," \
"  CASE WHEN (SELECT x.relrowsecurity FROM pg_catalog.pg_class x WHERE x.oid = $1::pg_catalog.oid)" \
"        AND NOT (SELECT r.rolbypassrls FROM pg_catalog.pg_roles r WHERE r.oid = k.relowner)" \
"   THEN pg_catalog.format('a policy that lets %I read every row of %s, which has row level security" \
" (CREATE POLICY ... FOR SELECT TO %I USING (true))', pg_catalog.pg_get_userbyid(k.relowner)," \
"        $1::pg_catalog.oid::pg_catalog.regclass, pg_catalog.pg_get_userbyid(k.relowner)) END) END"

/*
 * The facts about table, key and time column in one row.  The key named
 * by the state (after "added") wins over --column, which the user may
 * have left out.
 */
static const char facts_sql[] =
"SELECT k.relname, k.relkind, pg_catalog.pg_has_role(k.relowner, 'USAGE'),"
"       pg_catalog.pg_get_userbyid(k.relowner),"
"       GREATEST(k.reltuples, -1)::pg_catalog.int8, pg_catalog.pg_relation_size(k.oid),"
"       EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = k.oid OR i.inhrelid = k.oid),"
"       a.attnum IS NOT NULL, pg_catalog.quote_ident($2),"
"       pg_catalog.format_type(a.atttypid, a.atttypmod), a.attidentity <> '',"
"       COALESCE(pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''),"
"       COALESCE((SELECT s.oid::pg_catalog.regclass::pg_catalog.text"
"          FROM pg_catalog.pg_depend x JOIN pg_catalog.pg_class s ON s.oid = x.refobjid AND s.relkind = 'S'"
"         WHERE x.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND x.objid = d.oid"
"           AND x.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
"        UNION ALL SELECT s.oid::pg_catalog.regclass::pg_catalog.text"
"          FROM pg_catalog.pg_depend x JOIN pg_catalog.pg_class s ON s.oid = x.objid AND s.relkind = 'S'"
"         WHERE x.refobjid = k.oid AND x.refobjsubid = a.attnum AND x.deptype = 'i'"
"           AND x.classid = 'pg_catalog.pg_class'::pg_catalog.regclass LIMIT 1), ''),"
"       COALESCE((SELECT pg_catalog.quote_ident(p.conname) FROM pg_catalog.pg_constraint p"
"          WHERE p.conrelid = k.oid AND p.contype = 'p'), ''),"
"       COALESCE((SELECT p.conkey = ARRAY[a.attnum] FROM pg_catalog.pg_constraint p"
"          WHERE p.conrelid = k.oid AND p.contype = 'p'), false),"
"       pg_catalog.quote_ident($2 || '_new'), pg_catalog.quote_ident($2 || '_old'),"
"       EXISTS (SELECT 1 FROM pg_catalog.pg_attribute b WHERE b.attrelid = k.oid AND NOT b.attisdropped"
"               AND b.attname IN ($2 || '_new', $2 || '_old')),"
"       pg_catalog.octet_length($2) <= 59,"
/* 18 */
"       COALESCE((SELECT pg_catalog.format_type(b.atttypid, b.atttypmod) FROM pg_catalog.pg_attribute b"
"          WHERE b.attrelid = k.oid AND b.attname = $3 AND b.attnum > 0 AND NOT b.attisdropped), ''),"
"       pg_catalog.quote_ident($3),"
"       COALESCE((SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e"
"          JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'chronoid'), ''),"
"       EXISTS (SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'chronoid'),"
"       (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER)"
"         OR pg_catalog.has_database_privilege(pg_catalog.current_database(), 'CREATE'),"
/* 23 */
"       EXISTS (SELECT 1 FROM pg_catalog.pg_publication_rel r WHERE r.prrelid = k.oid)"
"         OR EXISTS (SELECT 1 FROM pg_catalog.pg_publication p WHERE p.puballtables),"
/* 25: what binds the key column by number, not name (it follows the column to <key>_old) */
"       COALESCE((SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object(x.classid, x.objid, 0), ', ')"
"          FROM pg_catalog.pg_depend x"
"         WHERE x.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND x.refobjid = k.oid"
"           AND x.refobjsubid = a.attnum"
/* indexes: carried to the new key or refused (mig_index_load) */
"           AND x.deptype = 'n'"
"           AND x.classid <> 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
/* views, rules, policies, triggers and SQL-bodied functions: carried or refused (migrate_views.c) */
"           AND x.classid NOT IN ('pg_catalog.pg_rewrite'::pg_catalog.regclass, 'pg_catalog.pg_policy'::pg_catalog.regclass,"
"                'pg_catalog.pg_trigger'::pg_catalog.regclass, 'pg_catalog.pg_proc'::pg_catalog.regclass)"
"           AND NOT (x.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass AND x.objid IN"
"                (SELECT f.oid FROM pg_catalog.pg_constraint f WHERE f.contype IN ('p', 'f')))"
"           AND NOT (x.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND x.objid IN"
"                (SELECT w.oid FROM pg_catalog.pg_rewrite w WHERE w.ev_class = k.oid))), ''),"
"       pg_catalog.format('chronoid_mig_%s_new_key', k.oid), pg_catalog.format('chronoid_mig_%s_notnull', k.oid),"
"       pg_catalog.quote_ident(CASE WHEN pg_catalog.octet_length(k.relname || '_' || $2 || '_old_key') <= 63"
"         THEN k.relname || '_' || $2 || '_old_key' ELSE pg_catalog.format('chronoid_mig_%s_old_key', k.oid) END),"
"       EXISTS (SELECT 1 FROM pg_catalog.pg_class i WHERE i.relnamespace = k.relnamespace"
"               AND i.relname = CASE WHEN pg_catalog.octet_length(k.relname || '_' || $2 || '_old_key') <= 63"
"                 THEN k.relname || '_' || $2 || '_old_key' ELSE pg_catalog.format('chronoid_mig_%s_old_key', k.oid) END),"
"       pg_catalog.quote_ident(n.nspname), pg_catalog.current_setting('snowflake.node', true),"
/* 33: the key column's grants and comment, for the new column */
"       COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('GRANT %s (%I) ON %s TO %s%s;', p.privilege_type, $2 || '_new',"
"          k.oid::pg_catalog.regclass, CASE WHEN p.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(p.grantee)) END,"
"          CASE WHEN p.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\\n')"
"          FROM pg_catalog.aclexplode(a.attacl) p), '') || COALESCE((SELECT pg_catalog.format(E'\\nCOMMENT ON COLUMN %s.%I IS %L;',"
"          k.oid::pg_catalog.regclass, $2 || '_new', d.description) FROM pg_catalog.pg_description d"
"          WHERE d.objoid = k.oid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = a.attnum), ''),"
"       CURRENT_USER,"
/* 34: the owner, and whether its code must run in a function of its own (migrate_as_owner.c) */
"       k.relowner, pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(k.relowner)), " WRAP_SQL ","
/* 37: what a wrapped owner lacks for the move (deferred code, FORCE RLS), "" when nothing */
"       " OWNER_BLOCKERS_SQL ","
/* 38 */
"       " UPDATE_RULES_SQL ","
/* 39: after the swap, the old key's type (of <key>_old) */
"       COALESCE((SELECT pg_catalog.format_type(b.atttypid, b.atttypmod) FROM pg_catalog.pg_attribute b"
"          WHERE b.attrelid = k.oid AND b.attname = $2 || '_old' AND b.attnum > 0 AND NOT b.attisdropped), '')"
"  FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace"
"  LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = k.oid AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped"
"  LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = k.oid AND d.adnum = a.attnum"
" WHERE k.oid = $1::pg_catalog.oid";

/* The foreign keys that reference the table, from the catalogs. */
static const char children_sql[] =
"SELECT f.conrelid, f.conrelid::pg_catalog.regclass::pg_catalog.text, pg_catalog.quote_ident(f.conname), f.conname,"
"       a.attname, pg_catalog.quote_ident(a.attname), pg_catalog.quote_ident(a.attname || '_new'),"
"       pg_catalog.quote_ident(a.attname || '_old'), a.attnotnull,"
"       EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = f.conrelid AND i.indkey[0] = a.attnum),"
"       pg_catalog.pg_has_role(k.relowner, 'USAGE'), pg_catalog.pg_get_userbyid(k.relowner),"
"       pg_catalog.array_length(f.conkey, 1) = 1 AND f.confkey = ARRAY[$2::pg_catalog.int2],"
"       pg_catalog.concat_ws(' ', CASE f.confmatchtype WHEN 'f' THEN 'MATCH FULL' END,"
"         'ON UPDATE ' || CASE f.confupdtype WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'"
"           WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' ELSE 'NO ACTION' END,"
"         'ON DELETE ' || CASE f.confdeltype WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'"
"           WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' ELSE 'NO ACTION' END,"
"         CASE WHEN f.condeferrable THEN 'DEFERRABLE' END, CASE WHEN f.condeferred THEN 'INITIALLY DEFERRED' END),"
"       GREATEST(k.reltuples, -1)::pg_catalog.int8,"
"       EXISTS (SELECT 1 FROM pg_catalog.pg_attribute b WHERE b.attrelid = f.conrelid AND NOT b.attisdropped"
"               AND b.attname IN (a.attname || '_new', a.attname || '_old')),"
"       f.conrelid = f.confrelid, k.relkind, pg_catalog.format('%s_%s', f.conrelid, a.attnum),"
"       COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('GRANT %s (%I) ON %s TO %s%s;', p.privilege_type, a.attname || '_new',"
"          k.oid::pg_catalog.regclass, CASE WHEN p.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(p.grantee)) END,"
"          CASE WHEN p.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\\n')"
"          FROM pg_catalog.aclexplode(a.attacl) p), ''), 0, false,"
/* 22 */
"       k.relowner, pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(k.relowner)), " WRAP_SQL ","
"       " OWNER_BLOCKERS_SQL ","
/* 26: what the child's owner lacks on the table (its sync function and backfill read it; its key is re-pointed) */
"       " CHILD_GRANTS_SQL ","
/* 27 */
"       " UPDATE_RULES_SQL ""
"  FROM pg_catalog.pg_constraint f JOIN pg_catalog.pg_class k ON k.oid = f.conrelid"
"  JOIN pg_catalog.pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = f.conkey[1]"
" WHERE f.contype = 'f' AND f.confrelid = $1::pg_catalog.oid"
"   AND $2::pg_catalog.int2 = ANY (f.confkey)"
" ORDER BY f.conrelid, f.conname";

/* The names a child's helpers get, from its tag (child OID _ attnum at the start). */
static void
child_names(mig_child *ch, const char *tag, const char *state_q)
{
	snprintf(ch->chk_q, sizeof(ch->chk_q), "chronoid_mig_%s_notnull", tag);
	snprintf(ch->idx_q, sizeof(ch->idx_q), "chronoid_mig_%s_idx", tag);
	snprintf(ch->trig_q, sizeof(ch->trig_q), "chronoid_mig_%s_sync", tag);
	snprintf(ch->fn_q, sizeof(ch->fn_q), "%s.chronoid_mig_%s_sync", state_q, tag);
	snprintf(ch->tag, sizeof(ch->tag), "%s", tag);
}

/* Columns j (oid), j+1 (quoted name), j+2 (wrap) of row i into o, the owner of table. */
static void
owner_from_row(mig_owner *o, const PGresult *res, int i, int j, const char *table)
{
	o->oid = (uint32_t) strtoul(PQgetvalue(res, i, j), NULL, 10);
	copy(o->name_q, sizeof(o->name_q), PQgetvalue(res, i, j + 1));
	copy(o->table, sizeof(o->table), table);
	o->wrap = strcmp(PQgetvalue(res, i, j + 2), "t") == 0;
}

/* One row of children_sql (or of the state, in the same columns) into ch. */
static void
child_from_row(mig_child *ch, const PGresult *res, int i, const char *state_q)
{
#define V(j) PQgetvalue(res, i, j)
	memset(ch, 0, sizeof(*ch));
	ch->relid = (uint32_t) strtoul(V(0), NULL, 10);
	copy(ch->qname, sizeof(ch->qname), V(1));
	copy(ch->con_q, sizeof(ch->con_q), V(2));
	copy(ch->con_raw, sizeof(ch->con_raw), V(3));
	copy(ch->fk_raw, sizeof(ch->fk_raw), V(4));
	copy(ch->fk_q, sizeof(ch->fk_q), V(5));
	copy(ch->new_q, sizeof(ch->new_q), V(6));
	copy(ch->old_q, sizeof(ch->old_q), V(7));
	ch->notnull = strcmp(V(8), "t") == 0;
	ch->indexed = strcmp(V(9), "t") == 0;
	ch->owned = strcmp(V(10), "t") == 0;
	copy(ch->actions, sizeof(ch->actions), V(13));
	ch->rows_est = strtoll(V(14), NULL, 10);
	child_names(ch, V(18), state_q);
	copy(ch->grants, sizeof(ch->grants), V(19));
	ch->done_rows = strtoll(V(20), NULL, 10);
	ch->done = strcmp(V(21), "t") == 0;
	owner_from_row(&ch->owner, res, i, 22, ch->qname);
	copy(ch->blockers, sizeof(ch->blockers), V(25));
#undef V
}

static bool
children_from_catalog(mig_ctx *c, const char *keyattnum, bool for_new)
{
	char		relid[16];
	const char *params[2] = {relid, keyattnum};
	PGresult   *res;
	int			i,
				n;

	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	res = mig_query(c, children_sql, 2, params);
	if (res == NULL)
		return false;
	n = PQntuples(res);
	c->t.nchildren = 0;
	for (i = 0; i < n; i++)
	{
		mig_child  *ch;
#define V(j) PQgetvalue(res, i, j)

		if (strcmp(V(12), "t") != 0)
		{
			snprintf(c->err, sizeof(c->err), "foreign key %s of %s references %s together with other "
					 "columns; only single-column references to the key can be moved (drop or change it first)",
					 V(2), V(1), c->t.qname);
			PQclear(res);
			return false;
		}
		if (for_new && strcmp(V(16), "t") == 0)
		{
			snprintf(c->err, sizeof(c->err), "foreign key %s of %s references the table itself; "
					 "self-references are not moved by chronoid migrate (docs/migrate.md)", V(2), V(1));
			PQclear(res);
			return false;
		}
		if (for_new && strcmp(V(10), "t") != 0)
		{
			snprintf(c->err, sizeof(c->err), "table %s references %s (foreign key %s) and belongs to %s: "
					 "its column must move too, so run this as %s (or a member of it)",
					 V(1), c->t.qname, V(2), V(11), V(11));
			PQclear(res);
			return false;
		}
		/*
		 * The trigger fills <fk>_new when a child row is written, from its
		 * parent; a deferrable key lets the child come first in a
		 * transaction, and the CHECK (then the NOT NULL after the swap)
		 * would refuse the application's row.  The serial road has no
		 * trigger.
		 */
		if (for_new && !c->t.convert && strstr(V(13), "DEFERRABLE") != NULL)
		{
			snprintf(c->err, sizeof(c->err), "foreign key %s of %s is DEFERRABLE: a row of %s written before "
					 "its parent in one transaction would be refused during the move (its new column is filled "
					 "from the parent when the row is written); make it NOT DEFERRABLE for the move "
					 "(ALTER TABLE %s ALTER CONSTRAINT %s NOT DEFERRABLE) and back after finish",
					 V(2), V(1), V(1), V(1), V(2));
			PQclear(res);
			return false;
		}
		if (for_new && strcmp(V(17), "p") == 0)
		{
			snprintf(c->err, sizeof(c->err), "table %s (foreign key %s) is partitioned; moving the key of a "
					 "table referenced from a partitioned table is not supported", V(1), V(2));
			PQclear(res);
			return false;
		}
		if (for_new && strcmp(V(15), "t") == 0)
		{
			snprintf(c->err, sizeof(c->err), "table %s already has a column %s or %s, the names its "
					 "foreign key %s would take; rename it first", V(1), V(6), V(7), V(2));
			PQclear(res);
			return false;
		}
		if (for_new && !c->t.convert && V(27)[0] != '\0')
		{
			snprintf(c->err, sizeof(c->err), "table %s (owner %s), which references %s, has rules on UPDATE "
					 "(%s): filling its new column cannot go through them; drop them for the move (as %s), "
					 "and create them again after it", V(1), V(11), c->t.qname, V(27), V(11));
			PQclear(res);
			return false;
		}
		/* The sequence road reads no child: its grants do not matter there. */
		if (for_new && !c->t.convert && V(26)[0] != '\0')
		{
			snprintf(c->err, sizeof(c->err), "table %s references %s (foreign key %s) and belongs to %s, who "
					 "cannot read or reference %s's key: the move runs %s's part as %s, which needs first: %s",
					 V(1), c->t.qname, V(2), V(11), c->t.qname, V(1), V(11), V(26));
			PQclear(res);
			return false;
		}
		if (c->t.nchildren == MIG_MAX_CHILDREN)
		{
			snprintf(c->err, sizeof(c->err), "more than %d foreign keys reference %s",
					 MIG_MAX_CHILDREN, c->t.qname);
			PQclear(res);
			return false;
		}
		ch = &c->t.children[c->t.nchildren++];
		child_from_row(ch, res, i, c->state_q);
#undef V
	}
	PQclear(res);
	return true;
}

bool
mig_children_load(mig_ctx *c)
{
	char		relid[16];
	const char *params[1] = {relid};
	mig_buf		b = {0};
	PGresult   *res;
	int			i,
				n;

	/* The columns of children_sql, from what the state recorded when run began. */
	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	mig_buf_printf(&b,
				   "SELECT m.child, m.child::pg_catalog.regclass::pg_catalog.text, pg_catalog.quote_ident(m.constraint_name),"
				   " m.constraint_name, m.fk_column, pg_catalog.quote_ident(m.fk_column),"
				   " pg_catalog.quote_ident(m.fk_column || '_new'), pg_catalog.quote_ident(m.fk_column || '_old'),"
				   " m.fk_notnull, m.fk_indexed, true, '', true, m.actions, GREATEST(k.reltuples, -1)::pg_catalog.int8,"
				   " false, false, k.relkind, m.tag, '', m.rows_done, m.done,"
				   " k.relowner, pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(k.relowner)), %s, %s, ''"
				   " FROM %s.migration_child m JOIN pg_catalog.pg_class k ON k.oid = m.child"
				   " WHERE m.relid = $1::pg_catalog.oid ORDER BY m.child, m.constraint_name",
				   WRAP_SQL, OWNER_BLOCKERS_SQL, c->state_q);
	res = mig_query(c, b.s, 1, params);
	mig_buf_free(&b);
	if (res == NULL)
		return false;
	n = PQntuples(res);
	c->t.nchildren = 0;
	for (i = 0; i < n && i < MIG_MAX_CHILDREN; i++)
		child_from_row(&c->t.children[c->t.nchildren++], res, i, c->state_q);
	PQclear(res);
	return true;
}

/* The column type, the default and the backfill's generators for --to. */
static void
target_sql(mig_ctx *c)
{
	mig_table  *t = &c->t;
	const char *to = c->o->to != NULL ? c->o->to : c->st.target;

	if (strcmp(to, "uuidv7") == 0)
		copy(t->newtype, sizeof(t->newtype), "pg_catalog.uuid");
	else if (strcmp(to, "ulid") == 0)
		snprintf(t->newtype, sizeof(t->newtype), "%.190s.ulid", t->ext_target);
	else
		copy(t->newtype, sizeof(t->newtype), "pg_catalog.int8");
	snprintf(t->map_q, sizeof(t->map_q), "%.150s.migration_map_%u", c->state_q, t->relid);
}

/*
 * A table whose owner's code must run apart from the tool's rights but
 * cannot (code that would run at COMMIT, FORCE ROW LEVEL SECURITY): false
 * with c->err naming it, its owner and the ways out.
 */
bool
mig_owners_ok(mig_ctx *c)
{
	int			i;
	const mig_owner *o = &c->t.owner;
	const char *why = c->t.blockers;

	for (i = -1; i < c->t.nchildren; i++)
	{
		if (i >= 0)
		{
			o = &c->t.children[i].owner;
			why = c->t.children[i].blockers;
		}
		if (o->wrap && why[0] != '\0')
		{
			snprintf(c->err, sizeof(c->err), "%s belongs to %s, whose code the move runs as %s, never with "
					 "your rights; but %s has %s: that would run after %s's part, with your rights. "
					 "Run the move as %s, or change that for the move", o->table, o->name_q, o->name_q,
					 o->table, why, o->name_q, o->name_q);
			return false;
		}
	}
	return true;
}

bool
mig_ext_trust(mig_ctx *c)
{
	char		why[512];
	cid_pq_ext	ext;
	int			rc;

	if (!c->t.ext_installed)
	{
		rc = cid_pq_schema_trusted(c->conn, "public", 0, why, sizeof(why), c->err, sizeof(c->err));
		copy(c->t.ext_target, sizeof(c->t.ext_target), rc == 1 ? "public" : c->state_q);
		return rc >= 0;
	}
	copy(c->t.ext_target, sizeof(c->t.ext_target), c->t.ext_q);
	rc = cid_pq_ext_trusted(c->conn, 0, &ext, why, sizeof(why), c->err, sizeof(c->err));
	if (rc == 0)
		snprintf(c->err, sizeof(c->err), "refusing to call chronoid: %s; whoever controls that "
				 "schema could rename it and put its own functions under chronoid's names, which "
				 "this tool would run with your rights in the middle of the move.  Install chronoid "
				 "into a schema that only a superuser controls (docs/migrate.md, \"Trust\")", why);
	return rc == 1;
}

bool
mig_inspect(mig_ctx *c, bool for_new)
{
	char		relid[16];
	const char *key = c->st.exists ? c->st.key : c->o->column;
	const char *tcol = c->o->time_from != NULL ? c->o->time_from : (c->st.exists ? c->st.time_from : "");
	const char *params[3] = {relid, key, tcol};
	PGresult   *res;
	mig_table  *t = &c->t;
	bool		ok = false;
	const char *to = c->o->to != NULL ? c->o->to : c->st.target;
	char		keyattnum[16] = "0";

	if (t->relid == 0 && !resolve(c))
		return false;
	snprintf(relid, sizeof(relid), "%u", t->relid);
	res = mig_query(c, facts_sql, 3, params);
	if (res == NULL)
		return false;
	if (PQntuples(res) != 1)
	{
		snprintf(c->err, sizeof(c->err), "table %s went away", t->qname);
		goto out;
	}
#define V(j) PQgetvalue(res, 0, j)
	copy(t->relname, sizeof(t->relname), V(0));
	copy(t->nsp_q, sizeof(t->nsp_q), V(30));
	owner_from_row(&t->owner, res, 0, 34, t->qname);
	copy(t->blockers, sizeof(t->blockers), V(37));
	if (strcmp(V(1), "r") != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s is %s, not an ordinary table; chronoid migrate moves the key of "
				 "an ordinary table (partitioned tables are not supported yet)", t->qname,
				 strcmp(V(1), "p") == 0 ? "a partitioned table" : "a view or another kind of relation");
		goto out;
	}
	if (strcmp(V(2), "t") != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s belongs to %s and you are %s: ALTER TABLE needs its owner; "
				 "run this as %s (or a member of it)", t->qname, V(3), V(33), V(3));
		t->not_owner = true;
		goto out;
	}
	t->rows_est = strtoll(V(4), NULL, 10);
	t->bytes = strtoll(V(5), NULL, 10);
	if (V(38)[0] != '\0' && (!c->st.exists || c->st.step < MIG_CHILDREN))
	{
		snprintf(c->err, sizeof(c->err), "%s (owner %s) has rules on UPDATE (%s): the backfill's UPDATEs "
				 "cannot go through them; drop them for the move (as %s), and create them again after it",
				 t->qname, V(35), V(38), V(35));
		goto out;
	}
	if (for_new && strcmp(V(6), "t") == 0)
	{
		snprintf(c->err, sizeof(c->err), "%s takes part in table inheritance; not supported (docs/migrate.md)",
				 t->qname);
		goto out;
	}
	if (strcmp(V(7), "t") != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s has no column %s%s", t->qname, V(8),
				 c->st.exists ? "" : " (name the key with --column)");
		goto out;
	}
	copy(t->key_raw, sizeof(t->key_raw), key);
	copy(t->key_q, sizeof(t->key_q), V(8));
	copy(t->keytype, sizeof(t->keytype), V(9));
	copy(t->origtype, sizeof(t->origtype),
		 c->st.exists && (c->st.step == MIG_SWAPPED || c->st.step == MIG_DONE) && V(39)[0] != '\0' ? V(39) : V(9));
	t->identity = strcmp(V(10), "t") == 0;
	copy(t->keydefault, sizeof(t->keydefault), V(11));
	copy(t->keyseq, sizeof(t->keyseq), V(12));
	copy(t->pk_q, sizeof(t->pk_q), V(13));
	copy(t->new_q, sizeof(t->new_q), V(15));
	copy(t->old_q, sizeof(t->old_q), V(16));
	snprintf(t->new_raw, sizeof(t->new_raw), "%.190s_new", key);
	snprintf(t->old_raw, sizeof(t->old_raw), "%.190s_old", key);
	if (for_new && t->pk_q[0] == '\0')
	{
		snprintf(c->err, sizeof(c->err), "%s has no primary key; add one (or name the key with --column "
				 "once it is the primary key)", t->qname);
		goto out;
	}
	if (for_new && strcmp(V(14), "t") != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s is not %s's primary key by itself (the primary key %s has "
				 "other or different columns); chronoid migrate moves a one-column primary key",
				 V(8), t->qname, t->pk_q);
		goto out;
	}
	if (for_new && strcmp(V(18), "t") != 0)
	{
		snprintf(c->err, sizeof(c->err), "column name %s is too long: %s_new must fit in 63 bytes", V(8), key);
		goto out;
	}
	/* The time column. */
	t->ts_q[0] = '\0';
	if (tcol[0] != '\0')
	{
		const char *ty = V(19);

		if (ty[0] == '\0')
		{
			snprintf(c->err, sizeof(c->err), "%s has no column %s (--time-from)", t->qname, V(20));
			goto out;
		}
		if (strcmp(ty, "timestamp with time zone") != 0 && strcmp(ty, "timestamp without time zone") != 0)
		{
			snprintf(c->err, sizeof(c->err), "--time-from %s is %s; expected a timestamp or timestamptz column",
					 V(20), ty);
			goto out;
		}
		t->ts_is_tz = strcmp(ty, "timestamp with time zone") == 0;
		copy(t->ts_q, sizeof(t->ts_q), V(20));
	}
	copy(t->ext_q, sizeof(t->ext_q), V(21));
	t->ext_installed = t->ext_q[0] != '\0';
	if (!mig_ext_trust(c))
		goto out;
	t->ext_may_create = strcmp(V(22), "t") == 0 && strcmp(V(23), "t") == 0;
	t->in_pub = strcmp(V(24), "t") == 0;
	copy(t->binders, sizeof(t->binders), V(25));
	copy(t->grants, sizeof(t->grants), V(32));
	copy(t->idx_new_q, sizeof(t->idx_new_q), V(26));
	copy(t->chk_q, sizeof(t->chk_q), V(27));
	copy(t->idx_old_q, sizeof(t->idx_old_q), V(28));
	if (for_new && strcmp(V(17), "t") == 0)
	{
		snprintf(c->err, sizeof(c->err), "%s already has a column %s or %s, the names the migration "
				 "needs; rename it first", t->qname, t->new_q, t->old_q);
		goto out;
	}
	if (for_new && strcmp(V(29), "t") == 0)
	{
		snprintf(c->err, sizeof(c->err), "the name %s, which the index on the old key would take, "
				 "is in use in %s's schema; rename that object first", t->idx_old_q, t->qname);
		goto out;
	}
	if (!t->ext_installed && for_new && !t->ext_may_create)
	{
		snprintf(c->err, sizeof(c->err), "%s: as %s, cannot install it here; "
				 "ask a superuser to run: CREATE EXTENSION chronoid;",
				 strcmp(V(22), "t") != 0 ? "chronoid is not available on this server (install its files: "
				 "make install-ext, or the postgresql-NN-chronoid package)"
				 : "chronoid is not installed in this database", V(33));
		goto out;
	}
	t->convert = strcmp(to, "snowflake") == 0 && t->keyseq[0] != '\0' &&
		(strcmp(t->keytype, "bigint") == 0 || strcmp(t->keytype, "integer") == 0);
	if (t->convert && tcol[0] != '\0')
	{
		snprintf(c->err, sizeof(c->err), "%s takes its values from sequence %s: moved --to snowflake it keeps "
				 "its old IDs (the sequence is converted) and --time-from does not apply; leave it out",
				 V(8), t->keyseq);
		goto out;
	}
	if (strcmp(to, "snowflake") == 0 && for_new)
	{
		const char *node = PQgetisnull(res, 0, 31) ? "" : V(31);

		if (node[0] == '\0' || strcmp(node, "0") == 0)
		{
			snprintf(c->err, sizeof(c->err), "snowflake.node is not set on this server, and snowflakes "
					 "carry it: set it in postgresql.conf (snowflake.node = N, 1..1023, different on "
					 "every server) and reload (docs/postgresql.md)");
			goto out;
		}
	}
	{
		PGresult   *r2;
		const char *p2[2] = {relid, key};

		r2 = mig_query(c, "SELECT attnum FROM pg_catalog.pg_attribute WHERE attrelid = $1::pg_catalog.oid"
					   " AND attname = $2", 2, p2);
		if (r2 == NULL)
			goto out;
		if (PQntuples(r2) == 1)
			copy(keyattnum, sizeof(keyattnum), PQgetvalue(r2, 0, 0));
		PQclear(r2);
	}
#undef V
	target_sql(c);
	if (c->st.exists && c->st.step >= MIG_ADDED)
		ok = mig_children_load(c);
	else
		ok = children_from_catalog(c, keyattnum, for_new);
	if (ok && for_new && t->convert && strcmp(t->keytype, "integer") == 0)
	{
		int			i;

		/*
		 * convert_sequence_to_snowflake() widens the key and every foreign
		 * key to it in one call, which runs as the table's owner: a child
		 * of another role's it could not alter, and must not as you.
		 */
		for (i = 0; i < t->nchildren; i++)
		{
			const mig_child *ch = &t->children[i];

			if (ch->owner.oid != t->owner.oid && (ch->owner.wrap || t->owner.wrap))
			{
				snprintf(c->err, sizeof(c->err), "%s is integer: moving it to snowflakes widens it and %s.%s "
						 "to bigint in one call, run as %s (the owner of %s), but %s belongs to %s; widen it "
						 "first as %s (ALTER TABLE %s ALTER COLUMN %s TYPE bigint), or give both tables one owner",
						 t->key_q, ch->qname, ch->fk_q, t->owner.name_q, t->qname, ch->qname, ch->owner.name_q,
						 ch->owner.name_q, ch->qname, ch->fk_q);
				ok = false;
				break;
			}
		}
	}
	/*
	 * The views and policies that follow the key through the swap.  What
	 * cannot is refused by the swap, not here: run's hours of backfill
	 * need not go without it, and it may be gone by then.
	 */
	if (ok && !t->convert)
		ok = mig_views_load(c);
	if (ok && !t->convert && strcmp(c->o->action, "run") == 0 && c->st.step < MIG_SWAPPED &&
		c->views_refused[0] != '\0')
		fprintf(stderr, "chronoid: %s: note: the swap cannot carry these and refuses while they exist: %s\n",
				c->o->sub, c->views_refused);
	/* The indexes that include the key: carried to the new one, or refused (before any work). */
	if (ok && for_new && !t->convert)
		ok = mig_index_load(c, false, true);
out:
	PQclear(res);
	return ok;
}

bool
mig_child_index_names(mig_ctx *c, bool swapped)
{
	int			i;

	for (i = 0; i < c->t.nchildren; i++)
	{
		mig_child  *ch = &c->t.children[i];
		char		r[16];
		char		idx_raw[MIG_NAME];
		const char *params[4] = {r, ch->fk_raw, idx_raw, swapped ? "t" : "f"};
		PGresult   *res;

		ch->ix_nsp_q[0] = ch->ix_q[0] = ch->ix_old_q[0] = '\0';
		if (!ch->indexed)
			continue;
		snprintf(r, sizeof(r), "%u", ch->relid);
		/* chronoid's own names need no quoting: chronoid_mig_<digits>_<digits>_idx */
		snprintf(idx_raw, sizeof(idx_raw), "%s", ch->idx_q);
		res = mig_query(c, "SELECT pg_catalog.quote_ident(n.nspname), pg_catalog.quote_ident(i.relname),"
						" pg_catalog.quote_ident(i.relname || '_old')"
						" FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid"
						" JOIN pg_catalog.pg_namespace n ON n.oid = i.relnamespace"
						" JOIN pg_catalog.pg_am m ON m.oid = i.relam"
						" JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]"
						" WHERE x.indrelid = $1::pg_catalog.oid AND x.indnatts = 1 AND a.attname = $2"
						"   AND NOT x.indisunique AND x.indpred IS NULL AND x.indexprs IS NULL AND m.amname = 'btree'"
						"   AND i.relname <> $3 AND i.relname !~ '^chronoid_mig_'"
						"   AND pg_catalog.octet_length(i.relname || '_old') <= 63"
						/* renaming a relation takes CREATE on its schema, or a superuser */
						"   AND (pg_catalog.has_schema_privilege(n.oid, 'CREATE')"
						"        OR (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER))"
						/* before the swap <name>_old is free; after it, it is the old column's index */
						"   AND $4::pg_catalog.bool = EXISTS (SELECT 1 FROM pg_catalog.pg_index y"
						"        JOIN pg_catalog.pg_class o ON o.oid = y.indexrelid"
						"       WHERE o.relnamespace = i.relnamespace AND o.relname = i.relname || '_old'"
						"         AND y.indrelid = x.indrelid)"
						"   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class o WHERE o.relnamespace = i.relnamespace"
						"        AND o.relname = i.relname || '_old' AND NOT $4::pg_catalog.bool)",
						4, params);
		if (res == NULL)
			return false;
		/* Two candidates: which one is "the" index is a guess; the names stay as they are. */
		if (PQntuples(res) == 1)
		{
			copy(ch->ix_nsp_q, sizeof(ch->ix_nsp_q), PQgetvalue(res, 0, 0));
			copy(ch->ix_q, sizeof(ch->ix_q), PQgetvalue(res, 0, 1));
			copy(ch->ix_old_q, sizeof(ch->ix_old_q), PQgetvalue(res, 0, 2));
		}
		PQclear(res);
	}
	return true;
}

/* Whether ch may be part of an unquoted name. */
static bool
name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		ch == '_' || ch == '$' || (unsigned char) ch >= 0x80;
}

/* The quoted token at def + i (a name or a literal, its closing quote included): its length. */
static size_t
quoted_len(const char *def, size_t i)
{
	char		q = def[i];
	size_t		j = i + 1;

	/* a doubled quote stays inside */
	while (def[j] != '\0' && !(def[j] == q && def[j + 1] != q))
		j += def[j] == q ? 2 : 1;
	return j - i + (def[j] != '\0');
}

/*
 * The twin's CREATE from pg_get_indexdef's text: CONCURRENTLY, its own
 * name, and after the table's name each reference to the key's column
 * (key_q, quoted as the text quotes it) replaced by new_q, in the column
 * and INCLUDE lists, expressions and the WHERE alike.  A reference is the
 * name as a whole token: not qualified (".id") nor qualifying ("id."),
 * not a function's ("id("), a type's ("::id") or a named argument's
 * ("id =>"); literals and other quoted names are skipped whole.  false
 * when the text is not as expected or names the key nowhere.  The index
 * built from it is checked to read the new column only (mig_step_index).
 */
static bool
twin_def(const char *def, const char *name_q, const char *key_q, const char *new_q, const char *twin,
		 char *out, size_t len)
{
	static const char *const heads[] = {"CREATE INDEX ", "CREATE UNIQUE INDEX "};
	mig_buf		b = {0};
	size_t		i = 0,
				h,
				klen = strlen(key_q);
	int			n = 0;
	bool		ok;

	for (h = 0; h < 2; h++)
	{
		size_t		hl = strlen(heads[h]);

		if (strncmp(def, heads[h], hl) == 0 && strncmp(def + hl, name_q, strlen(name_q)) == 0 &&
			strncmp(def + hl + strlen(name_q), " ON ", 4) == 0)
		{
			mig_buf_printf(&b, "%.*sCONCURRENTLY %s", (int) hl, def, twin);
			i = hl + strlen(name_q);
			break;
		}
	}
	if (h == 2)
		return false;
	/* " ON table USING method " up to the column list: the table's name may read like the key's. */
	while (def[i] != '\0' && def[i] != '(')
	{
		size_t		l = def[i] == '"' ? quoted_len(def, i) : 1;

		mig_buf_printf(&b, "%.*s", (int) l, def + i);
		i += l;
	}
	while (def[i] != '\0')
	{
		bool		starts = i == 0 || !(name_char(def[i - 1]) || def[i - 1] == '.' || def[i - 1] == '"' ||
										 def[i - 1] == ':');

		if (starts && strncmp(def + i, key_q, klen) == 0)
		{
			const char *after = def + i + klen;
			const char *p = after;

			while (*p == ' ')
				p++;
			if ((key_q[0] == '"' || !name_char(*after)) && *after != '"' && *after != '.' &&
				*p != '(' && strncmp(p, "=>", 2) != 0)
			{
				mig_buf_printf(&b, "%s", new_q);
				i += klen;
				n++;
				continue;
			}
		}
		if (def[i] == '"' || def[i] == '\'')
		{
			size_t		l = quoted_len(def, i);

			mig_buf_printf(&b, "%.*s", (int) l, def + i);
			i += l;
			continue;
		}
		mig_buf_printf(&b, "%c", def[i++]);
	}
	ok = n > 0 && b.s != NULL && strlen(b.s) < len;
	if (ok)
		snprintf(out, len, "%s", b.s);
	mig_buf_free(&b);
	return ok;
}

bool
mig_index_load(mig_ctx *c, bool swapped, bool refuse)
{
	mig_table  *t = &c->t;
	char		r[16];
	const char *params[3] = {r, swapped ? t->old_raw : t->key_raw, t->idx_old_q};
	mig_buf		refused = {0};
	PGresult   *res;
	int			i;

	t->nindexes = 0;
	snprintf(r, sizeof(r), "%u", t->relid);
	res = mig_query(c,
					"SELECT x.indexrelid, pg_catalog.quote_ident(n.nspname), pg_catalog.quote_ident(i.relname),"
					"       pg_catalog.pg_get_indexdef(x.indexrelid),"
					/* why it cannot be carried; "" when it can */
					"       CASE WHEN k.contype IS NOT NULL"
					"            THEN pg_catalog.format('the index of constraint %I (%s)', k.conname,"
					"                 CASE k.contype WHEN 'u' THEN 'UNIQUE' ELSE 'EXCLUDE' END)"
					"            ELSE '' END,"
					/* before the swap: whether it may take <name>_old, and the right to rename */
					"       pg_catalog.octet_length(i.relname || '_old') <= 63"
					"         AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class o WHERE o.relnamespace = i.relnamespace"
					"                         AND o.relname = i.relname || '_old')"
					"         AND (pg_catalog.has_schema_privilege(n.oid, 'CREATE')"
					"              OR (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER)),"
					"       pg_catalog.quote_ident(i.relname || '_old'),"
					/* after it: the twin still under its own name, or the name it took */
					"       EXISTS (SELECT 1 FROM pg_catalog.pg_class w WHERE w.relnamespace = i.relnamespace"
					"               AND w.relname = pg_catalog.format('chronoid_mig_%s_%s_ix', x.indrelid, x.indexrelid)),"
					"       CASE WHEN i.relname ~ '_old$' AND EXISTS (SELECT 1 FROM pg_catalog.pg_index y"
					"                 JOIN pg_catalog.pg_class w ON w.oid = y.indexrelid"
					"                WHERE y.indrelid = x.indrelid AND w.relname = pg_catalog.left(i.relname, -4))"
					"            THEN pg_catalog.quote_ident(pg_catalog.left(i.relname, -4)) ELSE '' END"
					"  FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid"
					"  JOIN pg_catalog.pg_namespace n ON n.oid = i.relnamespace"
					"  JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attname = $2"
					"  LEFT JOIN pg_catalog.pg_constraint k ON k.conindid = x.indexrelid AND k.conrelid = x.indrelid"
					"        AND k.contype IN ('u', 'x')"
					" WHERE x.indrelid = $1::pg_catalog.oid AND NOT x.indisprimary"
					"   AND i.relname !~ '^chronoid_mig_' AND pg_catalog.quote_ident(i.relname) <> $3"
					"   AND (a.attnum = ANY (x.indkey) OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d"
					"        WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = x.indexrelid"
					"          AND d.refobjid = x.indrelid AND d.refobjsubid = a.attnum))"
					" ORDER BY i.relname", 3, params);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		mig_index  *ix = &t->indexes[t->nindexes];
		const char *why = PQgetvalue(res, i, 4);

		memset(ix, 0, sizeof(*ix));
		ix->oid = (uint32_t) strtoul(PQgetvalue(res, i, 0), NULL, 10);
		copy(ix->nsp_q, sizeof(ix->nsp_q), PQgetvalue(res, i, 1));
		snprintf(ix->twin, sizeof(ix->twin), "chronoid_mig_%u_%u_ix", t->relid, ix->oid);
		if (swapped)
		{
			/* The old index, on <key>_old: its twin known by either name, else none (made since). */
			if (strcmp(PQgetvalue(res, i, 7), "t") == 0)
				copy(ix->name_q, sizeof(ix->name_q), PQgetvalue(res, i, 2));
			else if (PQgetvalue(res, i, 8)[0] != '\0')
			{
				copy(ix->name_q, sizeof(ix->name_q), PQgetvalue(res, i, 8));
				copy(ix->old_q, sizeof(ix->old_q), PQgetvalue(res, i, 2));
				ix->renamed = true;
			}
			else
				continue;
		}
		else
		{
			copy(ix->name_q, sizeof(ix->name_q), PQgetvalue(res, i, 2));
			copy(ix->old_q, sizeof(ix->old_q), PQgetvalue(res, i, 6));
			ix->renamed = strcmp(PQgetvalue(res, i, 5), "t") == 0;
			if (why[0] == '\0' &&
				!twin_def(PQgetvalue(res, i, 3), ix->name_q, t->key_q, t->new_q, ix->twin,
						  ix->create, sizeof(ix->create)))
				why = "its definition names the key in a way the tool cannot rewrite";
			if (why[0] != '\0')
			{
				mig_buf_printf(&refused, "%s%s.%s (%s)", refused.s != NULL ? "; " : "", ix->nsp_q, ix->name_q, why);
				continue;
			}
		}
		if (t->nindexes == MIG_MAX_INDEXES)
		{
			mig_buf_printf(&refused, "%smore than %d indexes include the key", refused.s != NULL ? "; " : "",
						   MIG_MAX_INDEXES);
			break;
		}
		t->nindexes++;
	}
	PQclear(res);
	if (refuse && refused.s != NULL)
	{
		snprintf(c->err, sizeof(c->err), "%s has indexes on %s that the move cannot carry to the new key: %s; "
				 "drop them for the move and create them again on %s after the swap (a UNIQUE constraint's "
				 "may become a unique index, which is carried)", t->qname, t->key_q, refused.s, t->key_q);
		mig_buf_free(&refused);
		return false;
	}
	mig_buf_free(&refused);
	return true;
}
