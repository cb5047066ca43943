/*
 * migrate_views.c — the views that read the key, carried through the swap
 * (and rollback's swap back) in its own transaction; what binds the key
 * by column number and cannot be carried, refused before any work.
 *
 * A view stores the columns it reads by number: renamed, the old key
 * keeps its number, so a view on "id" would read "id_old" after the swap,
 * and a view that groups by the primary key (functional dependency)
 * keeps the old primary key from being dropped.  Each such view, every
 * view on those, is read before the swap (pg_get_viewdef, the search path
 * pinned to pg_catalog, so every other name is qualified), dropped after
 * the locks are taken, and created again from that text once the columns
 * carry their new names: "id" then names the new key.  Each view is
 * dropped and created by its owner (creating a view runs nothing; reading
 * it later runs its query with the owner's rights), with its options,
 * privileges and comments.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"

#define REL(x) "'pg_catalog." x "'::pg_catalog.regclass"

/*
 * The views to carry, v (oid, depth): those whose query reads a column
 * in k (rel, att) or relies on the primary key (%s, its constraint's
 * OID), and the views on those; depth orders them.  First %s: k's rows.
 */
#define VIEWS_CTE \
"WITH RECURSIVE k (rel, att) AS (VALUES %s)," \
" base AS (" \
"   SELECT r.ev_class AS oid FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid" \
"     JOIN k ON k.rel = d.refobjid AND k.att = d.refobjsubid" \
"    WHERE d.classid = " REL("pg_rewrite") " AND d.refclassid = " REL("pg_class") \
"      AND r.rulename = '_RETURN' AND d.deptype = 'n'" \
"   UNION SELECT r.ev_class FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid" \
"    WHERE d.classid = " REL("pg_rewrite") " AND d.refclassid = " REL("pg_constraint") \
"      AND d.refobjid = %s::pg_catalog.oid AND r.rulename = '_RETURN')," \
" tree (oid, depth) AS (" \
"   SELECT oid, 0 FROM base" \
"   UNION SELECT r.ev_class, t.depth + 1 FROM tree t" \
"     JOIN pg_catalog.pg_depend d ON d.refclassid = " REL("pg_class") " AND d.refobjid = t.oid" \
"          AND d.classid = " REL("pg_rewrite") \
"     JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid" \
"    WHERE r.ev_class <> t.oid AND r.rulename = '_RETURN' AND t.depth < 50)," \
" v AS (SELECT t.oid, pg_catalog.max(t.depth) AS depth FROM tree t GROUP BY t.oid) "

/* What a view is, as the guard compares it: its OID, its text, its options. */
#define VIEWS_PRINT \
"SELECT COALESCE(pg_catalog.string_agg(pg_catalog.concat(k.oid, ':', pg_catalog.md5(pg_catalog.pg_get_viewdef(k.oid))," \
" ':', k.reloptions), ',' ORDER BY k.oid), '') FROM v JOIN pg_catalog.pg_class k ON k.oid = v.oid"

/* The privileges of view k, table and columns, as one text. */
#define ACL_SQL \
"(COALESCE((SELECT pg_catalog.string_agg(a::pg_catalog.text, ',' ORDER BY a::pg_catalog.text)" \
"   FROM pg_catalog.unnest(COALESCE(k.relacl, pg_catalog.acldefault('r', k.relowner))) a), '') || '|' ||" \
" COALESCE((SELECT pg_catalog.string_agg(pg_catalog.concat(b.attname, '=', b.attacl), ',' ORDER BY b.attnum)" \
"   FROM pg_catalog.pg_attribute b WHERE b.attrelid = k.oid AND b.attacl IS NOT NULL), ''))"

#define GRANTEE_SQL \
"CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END," \
" CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END"

#define WRAP_SQL \
"(k.relowner <> (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = SESSION_USER)" \
" AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = k.relowner))"

#define KIND(w) ((w)->matview ? "MATERIALIZED VIEW" : "VIEW")

/* What CREATE, DROP, ALTER and COMMENT call relation k. */
#define KIND_SQL "CASE WHEN k.relkind = 'm' THEN 'MATERIALIZED VIEW' ELSE 'VIEW' END"

/* A view's query as pg_get_viewdef writes it, without its semicolon. */
#define VIEW_TEXT_SQL "pg_catalog.regexp_replace(pg_catalog.pg_get_viewdef(k.oid), ';\\s*$', '')"

static const char views_rows_sql[] =
"SELECT k.oid, v.depth, k.oid::pg_catalog.regclass::pg_catalog.text,"
"       k.relowner, pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(k.relowner)), " WRAP_SQL ","
/* 6 */
"       pg_catalog.format('CREATE %s %s%s AS ', " KIND_SQL ", k.oid::pg_catalog.regclass,"
"         CASE WHEN k.reloptions IS NULL THEN '' ELSE"
"           pg_catalog.format(' WITH (%s)', pg_catalog.array_to_string(k.reloptions, ', ')) END),"
/* 7: privileges (granted by the owner) and comments */
"       pg_catalog.concat_ws(pg_catalog.chr(10),"
"         (SELECT pg_catalog.string_agg(pg_catalog.format('GRANT %s ON %s TO %s%s;', a.privilege_type,"
"            k.oid::pg_catalog.regclass, " GRANTEE_SQL "), pg_catalog.chr(10))"
"            FROM pg_catalog.aclexplode(k.relacl) a WHERE a.grantee <> k.relowner),"
"         (SELECT pg_catalog.string_agg(pg_catalog.format('GRANT %s (%I) ON %s TO %s%s;', a.privilege_type,"
"            b.attname, k.oid::pg_catalog.regclass, " GRANTEE_SQL "), pg_catalog.chr(10))"
"            FROM pg_catalog.pg_attribute b, pg_catalog.aclexplode(b.attacl) a"
"           WHERE b.attrelid = k.oid AND b.attnum > 0 AND a.grantee <> k.relowner),"
"         (SELECT pg_catalog.format('COMMENT ON %s %s IS %L;', " KIND_SQL ", k.oid::pg_catalog.regclass, d.description)"
"            FROM pg_catalog.pg_description d WHERE d.objoid = k.oid AND d.classoid = " REL("pg_class")
"             AND d.objsubid = 0),"
"         (SELECT pg_catalog.string_agg(pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L;', k.oid::pg_catalog.regclass,"
"            b.attname, d.description), pg_catalog.chr(10) ORDER BY b.attnum)"
"            FROM pg_catalog.pg_description d JOIN pg_catalog.pg_attribute b ON b.attrelid = d.objoid AND b.attnum = d.objsubid"
"           WHERE d.objoid = k.oid AND d.classoid = " REL("pg_class") " AND d.objsubid > 0),"
"         (SELECT pg_catalog.string_agg(pg_catalog.format('COMMENT ON INDEX %s IS %L;', d.objoid::pg_catalog.regclass,"
"            d.description), pg_catalog.chr(10) ORDER BY d.objoid)"
"            FROM pg_catalog.pg_index i JOIN pg_catalog.pg_description d ON d.objoid = i.indexrelid"
"             AND d.classoid = " REL("pg_class") " AND d.objsubid = 0 WHERE i.indrelid = k.oid)),"
/* 8, 9: its privileges now, and the message when the new view's differ */
"       pg_catalog.quote_literal(" ACL_SQL "),"
"       pg_catalog.quote_literal(pg_catalog.format('view %s was created again with other privileges than it had"
" (default privileges of %s?); nothing was changed', k.oid::pg_catalog.regclass, pg_catalog.pg_get_userbyid(k.relowner))),"
"       pg_catalog.quote_literal(k.oid::pg_catalog.regclass::pg_catalog.text),"
/* 11: why it cannot be carried, NULL when it can */
"       CASE WHEN k.relkind NOT IN ('v', 'm') THEN 'not a view'"
"       ELSE NULLIF(pg_catalog.concat_ws('; ',"
/* made again as its owner (below): that takes CREATE on its schema */
"         (SELECT pg_catalog.format('its owner %I lacks CREATE on schema %I, which making it again needs"
" (GRANT CREATE ON SCHEMA %I TO %I for the move, or run this as a superuser)',"
"            pg_catalog.pg_get_userbyid(k.relowner), s.nspname, s.nspname, pg_catalog.pg_get_userbyid(k.relowner))"
"            FROM pg_catalog.pg_namespace s WHERE s.oid = k.relnamespace"
"             AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = SESSION_USER)"
"             AND NOT pg_catalog.has_schema_privilege(k.relowner, s.oid, 'CREATE')),"
"         (SELECT 'has triggers (' || pg_catalog.string_agg(pg_catalog.quote_ident(g.tgname), ', ') || ')'"
"            FROM pg_catalog.pg_trigger g WHERE g.tgrelid = k.oid),"
"         (SELECT 'has rules (' || pg_catalog.string_agg(pg_catalog.quote_ident(r.rulename), ', ') || ')'"
"            FROM pg_catalog.pg_rewrite r WHERE r.ev_class = k.oid AND r.rulename <> '_RETURN'),"
"         (SELECT 'has column defaults' WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_attribute b"
"            WHERE b.attrelid = k.oid AND b.atthasdef)),"
"         (SELECT 'has privileges granted by ' || pg_catalog.string_agg(DISTINCT"
"            pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantor)), ', ')"
"            FROM (SELECT x.grantor FROM pg_catalog.aclexplode(k.relacl) x"
"                  UNION ALL SELECT x.grantor FROM pg_catalog.pg_attribute b, pg_catalog.aclexplode(b.attacl) x"
"                   WHERE b.attrelid = k.oid) a WHERE a.grantor <> k.relowner),"
"         (SELECT 'belongs to extension ' || pg_catalog.string_agg(pg_catalog.quote_ident(x.extname), ', ')"
"            FROM pg_catalog.pg_depend e JOIN pg_catalog.pg_extension x ON x.oid = e.refobjid"
"           WHERE e.classid = " REL("pg_class") " AND e.objid = k.oid AND e.deptype = 'e'),"
"         (SELECT 'is used by ' || pg_catalog.string_agg(pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid), ', ')"
"            FROM pg_catalog.pg_depend d"
"           WHERE d.deptype = 'n' AND ((d.refclassid = " REL("pg_class") " AND d.refobjid = k.oid)"
"                 OR (d.refclassid = " REL("pg_type") " AND d.refobjid = k.reltype))"
"             AND NOT (d.classid = " REL("pg_rewrite") " AND EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r"
"                 JOIN v w ON w.oid = r.ev_class WHERE r.oid = d.objid AND r.rulename = '_RETURN')))), '') END,"
/* 12: a superuser makes it and gives it to its owner (no CREATE on the schema needed) */
"       (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = SESSION_USER),"
/* 13: its text, read again on the ulid path where that applies (view_text) */
"       " VIEW_TEXT_SQL ","
/* 14, 15: a materialized view, and whether it holds rows now */
"       k.relkind = 'm', k.relispopulated,"
/*
 * 16: what a materialized view has beside its text, made while it is
 * still empty (so building them reads no row): its tablespace, its
 * indexes (in theirs), which one it is clustered on
 */
"       pg_catalog.concat_ws(pg_catalog.chr(10),"
"         (SELECT pg_catalog.format('ALTER MATERIALIZED VIEW %s SET TABLESPACE %I;', k.oid::pg_catalog.regclass, s.spcname)"
"            FROM pg_catalog.pg_tablespace s WHERE s.oid = k.reltablespace),"
"         (SELECT pg_catalog.string_agg(pg_catalog.concat(pg_catalog.pg_get_indexdef(i.indexrelid), ';',"
"            (SELECT pg_catalog.format(' ALTER INDEX %s SET TABLESPACE %I;', i.indexrelid::pg_catalog.regclass, s.spcname)"
"               FROM pg_catalog.pg_tablespace s WHERE s.oid = x.reltablespace),"
"            CASE WHEN i.indisclustered THEN pg_catalog.format(' ALTER MATERIALIZED VIEW %s CLUSTER ON %I;',"
"              k.oid::pg_catalog.regclass, x.relname) END), pg_catalog.chr(10) ORDER BY i.indexrelid)"
"            FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class x ON x.oid = i.indexrelid WHERE i.indrelid = k.oid))"
"  FROM v JOIN pg_catalog.pg_class k ON k.oid = v.oid ORDER BY v.depth, k.oid";

/*
 * What else binds a column of k, or relies on the primary key, and would
 * go on with the old key after the swap, changing what it returns or
 * allows: rules, triggers' conditions, functions with an SQL body,
 * policies that rely on the primary key.  (Indexes and extended statistics stay on the old column and
 * change no result: plan lists them.)
 */
static const char others_sql[] =
"SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object(d.classid, d.objid, 0), '; ')"
"  FROM pg_catalog.pg_depend d LEFT JOIN k ON k.rel = d.refobjid AND k.att = d.refobjsubid"
"   AND d.refclassid = " REL("pg_class")
" WHERE d.deptype = 'n'"
"   AND (k.rel IS NOT NULL OR (d.refclassid = " REL("pg_constraint") " AND d.refobjid = %s::pg_catalog.oid))"
"   AND (d.classid IN (" REL("pg_proc") ", " REL("pg_trigger") ")"
/* policies on the key's columns are carried (migrate_policies.c), not on the primary key itself */
"        OR (d.classid = " REL("pg_policy") " AND k.rel IS NULL)"
"        OR (d.classid = " REL("pg_rewrite") " AND EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r"
"            WHERE r.oid = d.objid AND r.rulename <> '_RETURN')))";

char *
mig_dup(const char *s)
{
	char	   *p = strdup(s != NULL ? s : "");

	if (p == NULL)
	{
		fprintf(stderr, "chronoid: migrate: out of memory\n");
		exit(MIG_EXIT_FAIL);
	}
	return p;
}

void
mig_views_free(mig_ctx *c)
{
	int			i;

	for (i = 0; i < c->nviews; i++)
	{
		free(c->views[i].create);
		free(c->views[i].after);
		free(c->views[i].acl_check);
	}
	free(c->views);
	free(c->views_guard);
	free(c->views_refused);
	mig_policies_free(c);
	c->views = NULL;
	c->nviews = 0;
	c->views_guard = NULL;
	c->views_refused = NULL;
}

char *
mig_sql_guard(mig_ctx *c, const char *cte, const char *print, const char *what)
{
	mig_buf		q = {0};
	PGresult   *res;
	char	   *g;

	mig_buf_printf(&q, "%sSELECT pg_catalog.quote_literal((%s))", cte, print);
	res = mig_query(c, q.s, 0, NULL);
	mig_buf_reset(&q);
	if (res == NULL)
		return NULL;
	mig_buf_printf(&q, "DO $chronoid$BEGIN\n  IF (%s%s) IS DISTINCT FROM %s THEN\n"
				   "    RAISE EXCEPTION USING MESSAGE = 'the %s that read the key changed since the swap began;"
				   " run it again';\n  END IF;\nEND$chronoid$;\n", cte, print, PQgetvalue(res, 0, 0), what);
	PQclear(res);
	g = mig_dup(q.s);
	mig_buf_free(&q);
	return g;
}

/* "(rel, att), ..." for the key and each child's foreign key, and the primary key's OID. */
static bool
key_columns(mig_ctx *c, mig_buf *cols, char *pk, size_t pklen)
{
	char		relid[16];
	mig_buf		rels = {0},
				q = {0};
	const char **p = calloc((size_t) c->t.nchildren + 3, sizeof(char *));
	PGresult   *res;
	int			i;

	if (p == NULL)
	{
		snprintf(c->err, sizeof(c->err), "out of memory");
		return false;
	}
	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	mig_buf_printf(&rels, "{%u", c->t.relid);
	for (i = 0; i < c->t.nchildren; i++)
		mig_buf_printf(&rels, ",%u", c->t.children[i].relid);
	mig_buf_printf(&rels, "}");
	p[0] = relid;
	p[1] = rels.s;
	p[2] = c->t.key_raw;
	/* The column now named as the key (before the swap the old one, after it the new one). */
	mig_buf_printf(&q, "SELECT COALESCE(pg_catalog.string_agg(pg_catalog.format('(%%s::pg_catalog.oid, %%s::pg_catalog.int2)',"
				   " a.attrelid, a.attnum), ', '), '(0::pg_catalog.oid, 0::pg_catalog.int2)'),"
				   " COALESCE((SELECT p.oid FROM pg_catalog.pg_constraint p WHERE p.conrelid = $1::pg_catalog.oid"
				   "   AND p.contype = 'p'), 0)"
				   " FROM ROWS FROM (pg_catalog.unnest($2::pg_catalog.oid[]), pg_catalog.unnest(ARRAY[$3");
	for (i = 0; i < c->t.nchildren; i++)
	{
		p[3 + i] = c->t.children[i].fk_raw;
		mig_buf_printf(&q, ", $%d", 4 + i);
	}
	mig_buf_printf(&q, "]::pg_catalog.text[])) u (rel, col)"
				   " JOIN pg_catalog.pg_attribute a ON a.attrelid = u.rel AND a.attname = u.col"
				   " AND a.attnum > 0 AND NOT a.attisdropped");
	res = mig_query(c, q.s, 3 + c->t.nchildren, p);
	mig_buf_free(&q);
	mig_buf_free(&rels);
	free(p);
	if (res == NULL)
		return false;
	mig_buf_printf(cols, "%s", PQgetvalue(res, 0, 0));
	snprintf(pk, pklen, "%s", PQgetvalue(res, 0, 1));
	PQclear(res);
	return true;
}

static bool
ends_with(const char *s, const char *tail)
{
	size_t		n = strlen(s),
				t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/*
 * chronoid's ulid keeps its operators in the extension's schema, which is
 * not on the tool's path: a view comparing a ulid key reads, through
 * pg_get_viewdef, OPERATOR(public.=), which no uuid column has.  So when
 * the move goes to or from a ulid key, the views' text is read, and the
 * views made again, with that schema on the path after pg_catalog: a
 * comparison then reads as it was written (=) and binds by the column's
 * type, the key's new one included.
 */
bool
mig_views_ulid(const mig_ctx *c)
{
	return c->t.ext_q[0] != '\0' &&
		(ends_with(c->t.newtype, ".ulid") || strcmp(c->t.origtype, "ulid") == 0 ||
		 ends_with(c->t.origtype, ".ulid"));
}

bool
mig_views_ulid_path(mig_ctx *c, bool on)
{
	mig_buf		q = {0};
	bool		ok;

	mig_buf_printf(&q, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, %s%s pg_temp', false)",
				   on ? c->t.ext_q : "", on ? "," : "");
	ok = mig_do(c, q.s);
	mig_buf_free(&q);
	return ok;
}

/*
 * View oid's text read on the ulid path (mig_views_ulid), the tool's own path
 * set back after; NULL with c->err set.  Only the text: names qualified on
 * the tool's path are read on it.
 */
static char *
view_text(mig_ctx *c, uint32_t oid)
{
	char		o[16];
	const char *params[1] = {o};
	PGresult   *res;
	char	   *text = NULL;

	snprintf(o, sizeof(o), "%u", oid);
	if (!mig_views_ulid_path(c, true))
		return NULL;
	res = mig_query(c, "SELECT " VIEW_TEXT_SQL " FROM pg_catalog.pg_class k WHERE k.oid = $1::pg_catalog.oid",
					1, params);
	if (res != NULL && PQntuples(res) == 1)
		text = mig_dup(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!mig_views_ulid_path(c, false))
	{
		free(text);
		return NULL;
	}
	return text;
}

bool
mig_views_load(mig_ctx *c)
{
	mig_buf		cols = {0},
				q = {0},
				refused = {0};
	char		pk[16];
	PGresult   *res;
	int			i,
				n;

	mig_views_free(c);
	if (!key_columns(c, &cols, pk, sizeof(pk)))
		return false;

	mig_buf_printf(&q, VIEWS_CTE, cols.s, pk);
	mig_buf_printf(&q, "%s", views_rows_sql);
	res = mig_query(c, q.s, 0, NULL);
	mig_buf_reset(&q);
	if (res == NULL)
		goto fail;
	n = PQntuples(res);
	c->views = calloc((size_t) (n > 0 ? n : 1), sizeof(mig_view));
	if (c->views == NULL)
	{
		PQclear(res);
		snprintf(c->err, sizeof(c->err), "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++)
	{
		mig_view   *w = &c->views[c->nviews++];
		mig_buf		chk = {0};

#define V(j) PQgetvalue(res, i, j)
		w->oid = (uint32_t) strtoul(V(0), NULL, 10);
		w->depth = (int) strtol(V(1), NULL, 10);
		snprintf(w->qname, sizeof(w->qname), "%s", V(2));
		w->owner.oid = (uint32_t) strtoul(V(3), NULL, 10);
		snprintf(w->owner.name_q, sizeof(w->owner.name_q), "%s", V(4));
		snprintf(w->owner.table, sizeof(w->owner.table), "view %s", V(2));
		w->owner.wrap = strcmp(V(5), "t") == 0;
		w->by_tool = !w->owner.wrap || strcmp(V(12), "t") == 0;
		{
			mig_buf		cr = {0};
			char	   *text = mig_views_ulid(c) ? view_text(c, w->oid) : mig_dup(V(13));

			if (text == NULL)
			{
				PQclear(res);
				goto fail;
			}
			w->matview = strcmp(V(14), "t") == 0;
			w->populated = strcmp(V(15), "t") == 0;
			/* Empty: the swap's locks are not held while its query runs (mig_views_refresh). */
			mig_buf_printf(&cr, "%s%s%s;", V(6), text, w->matview ? " WITH NO DATA" : "");
			if (V(16)[0] != '\0')
				mig_buf_printf(&cr, "\n%s", V(16));
			free(text);
			w->create = mig_dup(cr.s);
			mig_buf_free(&cr);
		}
		w->after = mig_dup(V(7));
		mig_buf_printf(&chk, "  IF (SELECT %s FROM pg_catalog.pg_class k WHERE k.oid = %s::pg_catalog.regclass)"
					   " IS DISTINCT FROM %s THEN\n    RAISE EXCEPTION USING MESSAGE = %s;\n  END IF;\n",
					   ACL_SQL, V(10), V(8), V(9));
		w->acl_check = mig_dup(chk.s);
		mig_buf_free(&chk);
		if (!PQgetisnull(res, i, 11))
			mig_buf_printf(&refused, "%s%s %s: %s", refused.len ? "; " : "",
						   strcmp(V(11), "not a view") == 0 ? "relation" : "view", V(2), V(11));
#undef V
	}
	PQclear(res);

	/* The guard: the views, as read here, are those the locked swap finds. */
	mig_buf_printf(&q, VIEWS_CTE, cols.s, pk);
	c->views_guard = mig_sql_guard(c, q.s, VIEWS_PRINT, "views");
	if (c->views_guard == NULL)
		goto fail;
	mig_buf_reset(&q);

	mig_buf_printf(&q, "WITH k (rel, att) AS (VALUES %s) ", cols.s);
	mig_buf_printf(&q, others_sql, pk);
	res = mig_query(c, q.s, 0, NULL);
	if (res == NULL)
		goto fail;
	if (!PQgetisnull(res, 0, 0))
		mig_buf_printf(&refused, "%s%s (it reads the key by its column number and would go on with the old "
					   "key: drop it for the swap and create it again after)", refused.len ? "; " : "",
					   PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!mig_policies_load(c, cols.s, pk, mig_views_ulid(c), &refused))
		goto fail;
	{
		/*
		 * Views re-created around a ulid key get chronoid's schema on their
		 * path (its operators live there): an operator some role put in
		 * that schema could then bind where a comparison used an implicit
		 * cast.  Only the extensions' own operators may be there.
		 */
		if (c->nviews + c->npolicies > 0 && mig_views_ulid(c))
		{
			res = mig_query(c, "SELECT pg_catalog.string_agg(o.oid::pg_catalog.regoperator::pg_catalog.text, ', ')"
							" FROM pg_catalog.pg_operator o WHERE o.oprnamespace ="
							"   (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'chronoid')"
							" AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d"
							"   WHERE d.classid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND d.objid = o.oid"
							"   AND d.deptype = 'e')", 0, NULL);
			if (res == NULL)
				goto fail;
			if (!PQgetisnull(res, 0, 0))
				mig_buf_printf(&refused, "%sthe views (re-created with chronoid's schema on their path, where "
							   "a ulid's operators are) could bind operators there that no extension made: %s; "
							   "drop those, or move the views yourself", refused.len ? "; " : "",
							   PQgetvalue(res, 0, 0));
			PQclear(res);
		}
	}
	c->views_refused = mig_dup(refused.s);
	mig_buf_free(&cols);
	mig_buf_free(&q);
	mig_buf_free(&refused);
	return true;
fail:
	mig_buf_free(&cols);
	mig_buf_free(&q);
	mig_buf_free(&refused);
	return false;
}

/* What the swap (or its undoing) cannot carry: false with c->err naming each. */
bool
mig_views_ok(mig_ctx *c, const char *what)
{
	if (c->views_refused == NULL || c->views_refused[0] == '\0')
		return true;
	snprintf(c->err, sizeof(c->err), "%s cannot carry: %s", what, c->views_refused);
	return false;
}

/* After the locks: check the views are those read, then drop them, views on views first. */
void
mig_sql_views_drop(const mig_ctx *c, mig_script *s)
{
	int			i;

	mig_sql_policies_guard(c, s);
	if (c->nviews == 0)
		return;
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "%s", c->views_guard);
	for (i = c->nviews - 1; i >= 0; i--)
	{
		mig_script_as(s, MIG_AS_VIEW(i));
		mig_script_printf(s, "DROP %s %s;\n", KIND(&c->views[i]), c->views[i].qname);
	}
}

/* Once the columns carry their new names: each view again, from its text, as it was. */
void
mig_sql_views_create(const mig_ctx *c, mig_script *s)
{
	int			i;

	/* Only for these statements: the path the views' text was read with (mig_views_ulid). */
	bool		ulid = mig_views_ulid(c);

	if (c->nviews == 0)
	{
		mig_sql_policies_set(c, s, ulid);
		return;
	}
	for (i = 0; i < c->nviews; i++)
	{
		const mig_view *w = &c->views[i];

		/*
		 * Made by the tool when it is the owner or a superuser, then given
		 * back to its owner: CREATE VIEW runs nothing of anyone's, and a
		 * superuser needs no CREATE on the schema, which an application's
		 * role often lacks.  Otherwise by its owner.  Its grants and
		 * comments by its owner, who granted them.
		 */
		mig_script_as(s, w->by_tool ? MIG_AS_ME : MIG_AS_VIEW(i));
		if (ulid)
			mig_script_printf(s, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, %s, pg_temp', true);\n",
							  c->t.ext_q);
		mig_script_printf(s, "%s\n", w->create);
		if (ulid)
			mig_script_printf(s, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);\n");
		if (w->by_tool)
			mig_script_printf(s, "ALTER %s %s OWNER TO %s;\n", KIND(w), w->qname, w->owner.name_q);
		mig_script_as(s, MIG_AS_VIEW(i));
		if (w->after[0] != '\0')
			mig_script_printf(s, "%s\n", w->after);
	}
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "DO $chronoid$BEGIN\n");
	for (i = 0; i < c->nviews; i++)
		mig_script_printf(s, "%s", c->views[i].acl_check);
	mig_script_printf(s, "END$chronoid$;\n");
	mig_sql_policies_set(c, s, ulid);
}

/*
 * Once the swap (or its undoing) has committed: each materialized view it
 * carried (created empty) filled again by its owner, outside the swap's
 * locks, so that the table's writers never wait for its query; readers of
 * that view wait for the refresh instead.  The views read are those from
 * before the swap, and those that held rows are filled (an empty one is
 * left so, and said: a failed refresh may have left it so).  resumed: a run
 * again after one that stopped in between, whose views are those the swap
 * made: every empty one is filled (one that was empty before is too).
 * false with c->err set; the step stays, so running it again refreshes.
 */
bool
mig_views_refresh(mig_ctx *c, bool resumed)
{
	int			i;

	for (i = 0; i < c->nviews; i++)
	{
		const mig_view *w = &c->views[i];
		mig_script	s = {0};
		int64_t		t0;
		bool		ok;
		char		secs[32];

		if (!w->matview || (resumed && w->populated))
			continue;
		if (!resumed && !w->populated)
		{
			/* Empty by design, or left so by a refresh that failed: the DBA knows which. */
			fprintf(stderr, "chronoid: %s: note: materialized view %s was empty before, and is left empty "
					"(REFRESH MATERIALIZED VIEW %s as %s to fill it)\n", c->o->sub, w->qname, w->qname,
					w->owner.name_q);
			continue;
		}
		fprintf(stderr, "chronoid: %s: refreshing materialized view %s (as %s)\n",
				c->o->sub, w->qname, w->owner.name_q);
		t0 = cid_clock_monotonic_ms();
		mig_script_as(&s, MIG_AS_VIEW(i));
		mig_script_printf(&s, "REFRESH MATERIALIZED VIEW %s;\n", w->qname);
		ok = mig_ddl_script(c, "refreshing a materialized view", &s, true);
		mig_script_free(&s);
		if (!ok)
		{
			mig_err_around(c, "", "; it is empty until refreshed: run this step again, or REFRESH "
						   "MATERIALIZED VIEW as its owner");
			return false;
		}
		mig_fmt_secs(secs, sizeof(secs), (double) (cid_clock_monotonic_ms() - t0) / 1000.0);
		fprintf(stderr, "chronoid: %s: %s refreshed in %s\n", c->o->sub, w->qname, secs);
	}
	return true;
}
