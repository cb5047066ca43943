/*
 * migrate_policies.c — the row security policies that read the key (or a
 * child's foreign key), carried through the swap and rollback's swap back
 * in the swap's own transaction, as the views are (migrate_views.c).
 *
 * A policy stores the columns it reads by number: renamed, the old key
 * keeps its number, so a tenant policy on "order_id" would go on reading
 * "order_id_old" after the swap, which new rows leave NULL.  Each such
 * policy's expressions are read before the swap (pg_get_expr, the search
 * path pinned to pg_catalog, so every other name is qualified) and set
 * again from that text by ALTER POLICY once the columns carry their new
 * names: "order_id" then names the new column.  The policy itself stays
 * (its name, roles, command, permissive or restrictive, comment), and so
 * never is there a moment without it: the table's readers see the same
 * rows before and after, or wait for the swap's locks.  A policy whose
 * text cannot bind to the new key (it compares the key with a constant of
 * the old type) fails the swap, which changes nothing and names it.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"

#define REL(x) "'pg_catalog." x "'::pg_catalog.regclass"

/* The dollar quote of the DO block that sets each policy again; a text that holds it is refused. */
#define POL_TAG "$chronoid_policy$"

/*
 * The policies to carry, p (oid): those whose expressions read a column in
 * k (rel, att), but not those that rely on the primary key itself (a
 * GROUP BY in a subquery), which would keep it from being dropped: those
 * are refused (migrate_views.c).  First %s: k's rows; second: the primary
 * key's constraint OID.
 */
#define POLICIES_CTE \
"WITH k (rel, att) AS (VALUES %s)," \
" p AS (SELECT DISTINCT d.objid AS oid FROM pg_catalog.pg_depend d" \
"   JOIN k ON k.rel = d.refobjid AND k.att = d.refobjsubid" \
"  WHERE d.classid = " REL("pg_policy") " AND d.refclassid = " REL("pg_class") " AND d.deptype = 'n'" \
"    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend e WHERE e.classid = " REL("pg_policy") \
"        AND e.objid = d.objid AND e.refclassid = " REL("pg_constraint") " AND e.refobjid = %s::pg_catalog.oid)) "

/* Both expressions of policy y as ALTER POLICY takes them. */
#define POLICY_EXPRS \
"pg_catalog.concat(CASE WHEN y.polqual IS NOT NULL" \
"   THEN pg_catalog.format(' USING (%s)', pg_catalog.pg_get_expr(y.polqual, y.polrelid)) END," \
" CASE WHEN y.polwithcheck IS NOT NULL" \
"   THEN pg_catalog.format(' WITH CHECK (%s)', pg_catalog.pg_get_expr(y.polwithcheck, y.polrelid)) END)"

/* What the policies are, as the guard compares them: OIDs and texts. */
#define POLICIES_PRINT \
"SELECT COALESCE(pg_catalog.string_agg(pg_catalog.concat(y.oid, ':', pg_catalog.md5(" POLICY_EXPRS ")), ','" \
" ORDER BY y.oid), '') FROM p JOIN pg_catalog.pg_policy y ON y.oid = p.oid"

static const char policies_rows_sql[] =
"SELECT y.oid, pg_catalog.pg_describe_object(" REL("pg_policy") ", y.oid, 0),"
"       t.relowner, pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(t.relowner)),"
/* its owner's statements run in a function of the owner's unless that is you or a superuser */
"       (t.relowner <> (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = SESSION_USER)"
"        AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = t.relowner)),"
"       pg_catalog.format('ALTER POLICY %I ON %s%s', y.polname, t.oid::pg_catalog.regclass, " POLICY_EXPRS "),"
"       t.oid::pg_catalog.regclass::pg_catalog.text"
"  FROM p JOIN pg_catalog.pg_policy y ON y.oid = p.oid JOIN pg_catalog.pg_class t ON t.oid = y.polrelid"
" ORDER BY y.oid";

void
mig_policies_free(mig_ctx *c)
{
	int			i;

	for (i = 0; i < c->npolicies; i++)
		free(c->policies[i].alter);
	free(c->policies);
	free(c->policies_guard);
	c->policies = NULL;
	c->npolicies = 0;
	c->policies_guard = NULL;
}

/* Quote s as an SQL literal into b (E'' so backslashes stay themselves). */
static void
literal(mig_buf *b, const char *s)
{
	mig_buf_printf(b, "E'");
	for (; *s != '\0'; s++)
	{
		if (*s == '\'' || *s == '\\')
			mig_buf_printf(b, "%c", *s);
		mig_buf_printf(b, "%c", *s);
	}
	mig_buf_printf(b, "'");
}

bool
mig_policies_load(mig_ctx *c, const char *cols, const char *pk, bool ulid, mig_buf *refused)
{
	mig_buf		q = {0};
	PGresult   *res;
	int			i,
				n;

	mig_policies_free(c);
	mig_buf_printf(&q, POLICIES_CTE, cols, pk);
	mig_buf_printf(&q, "%s", policies_rows_sql);
	/* The text on the path the swap sets it with (ulid: chronoid's operators named as written). */
	if (ulid && !mig_views_ulid_path(c, true))
	{
		mig_buf_free(&q);
		return false;
	}
	res = mig_query(c, q.s, 0, NULL);
	if (ulid && !mig_views_ulid_path(c, false))
	{
		PQclear(res);
		res = NULL;
	}
	mig_buf_reset(&q);
	if (res == NULL)
		goto fail;
	n = PQntuples(res);
	c->policies = calloc((size_t) (n > 0 ? n : 1), sizeof(mig_policy));
	if (c->policies == NULL)
	{
		PQclear(res);
		snprintf(c->err, sizeof(c->err), "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++)
	{
		mig_policy *y = &c->policies[c->npolicies++];
		mig_buf		a = {0};

#define V(j) PQgetvalue(res, i, j)
		y->oid = (uint32_t) strtoul(V(0), NULL, 10);
		snprintf(y->what, sizeof(y->what), "%s", V(1));
		y->owner.oid = (uint32_t) strtoul(V(2), NULL, 10);
		snprintf(y->owner.name_q, sizeof(y->owner.name_q), "%s", V(3));
		snprintf(y->owner.table, sizeof(y->owner.table), "table %s", V(6));
		y->owner.wrap = strcmp(V(4), "t") == 0;
		if (strstr(V(5), POL_TAG) != NULL)
		{
			/* It could end the DO block below early. */
			mig_buf_printf(refused, "%s%s: its text holds %s", refused->len ? "; " : "", V(1), POL_TAG);
			y->alter = mig_dup("");
			continue;
		}

		/*
		 * A policy that cannot bind to the new key fails here, naming
		 * itself, and the swap with it.  EXECUTE: the statement is the
		 * policy's text, not this block's.
		 */
		mig_buf_printf(&a, "DO " POL_TAG "BEGIN\n  EXECUTE ");
		literal(&a, V(5));
		mig_buf_printf(&a, ";\nEXCEPTION WHEN OTHERS THEN\n  RAISE EXCEPTION USING MESSAGE = ");
		literal(&a, V(1));
		mig_buf_printf(&a, " || ' cannot follow the key: ' || SQLERRM || ' (drop it for the swap, as its table''s"
					   " owner, and create it again after)';\nEND" POL_TAG ";\n");
		y->alter = mig_dup(a.s);
		mig_buf_free(&a);
#undef V
	}
	PQclear(res);

	/* The guard: the policies, as read here, are those the locked swap finds. */
	mig_buf_printf(&q, POLICIES_CTE, cols, pk);
	c->policies_guard = mig_sql_guard(c, q.s, POLICIES_PRINT, "policies");
	mig_buf_free(&q);
	return c->policies_guard != NULL;
fail:
	mig_buf_free(&q);
	return false;
}

void
mig_sql_policies_guard(const mig_ctx *c, mig_script *s)
{
	if (c->npolicies == 0)
		return;
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "%s", c->policies_guard);
}

void
mig_sql_policies_set(const mig_ctx *c, mig_script *s, bool ulid)
{
	int			i;

	for (i = 0; i < c->npolicies; i++)
	{
		/* As the owner of its table (ALTER POLICY runs nothing; it needs the ownership). */
		mig_script_as(s, MIG_AS_POLICY(i));
		if (ulid)
			mig_script_printf(s, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, %s, pg_temp', true);\n",
							  c->t.ext_q);
		mig_script_printf(s, "%s", c->policies[i].alter);
		if (ulid)
			mig_script_printf(s, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);\n");
	}
}
