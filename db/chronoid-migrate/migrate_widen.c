/*
 * migrate_widen.c — the serial road's widening of an integer key (and of
 * every foreign key column to it) to bigint: a rewrite of each table under
 * ACCESS EXCLUSIVE, so a wait for every reader and writer, estimated from
 * the rows and refused over --max-rewrite-lock.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"

/*
 * Rows (the table's and its children's together) rewritten a second with
 * their indexes: 128,000 to 220,000 a second on the shared 2-core test
 * machine (300,000 rows in migrate_widen.sh, 2,000,000 by hand); rounded
 * down for tables with more indexes, and said to be a guess.
 */
#define WIDEN_ROWS_PER_S 100000.0

bool
mig_widens(const mig_ctx *c)
{
	return c->t.convert && strcmp(c->t.keytype, "integer") == 0;
}

double
mig_widen_secs(mig_ctx *c, int64_t *rows)
{
	char		oids[16 * (MIG_MAX_CHILDREN + 1) + 4];
	const char *params[1] = {oids};
	PGresult   *res;
	size_t		n;
	int			i;

	*rows = -1;
	n = (size_t) snprintf(oids, sizeof(oids), "{%u", c->t.relid);
	for (i = 0; i < c->t.nchildren && n < sizeof(oids); i++)
		n += (size_t) snprintf(oids + n, sizeof(oids) - n, ",%u", c->t.children[i].relid);
	if (n < sizeof(oids))
		snprintf(oids + n, sizeof(oids) - n, "}");
	/*
	 * A table never analyzed holds at most its size over 32 bytes (a heap
	 * row's header and line pointer) rows.
	 */
	res = mig_query(c, "SELECT pg_catalog.sum(CASE WHEN k.reltuples >= 0 THEN k.reltuples::pg_catalog.int8"
					" ELSE pg_catalog.pg_relation_size(k.oid) / 32 END)"
					" FROM pg_catalog.pg_class k WHERE k.oid = ANY ($1::pg_catalog.oid[])", 1, params);
	if (res == NULL)
		return -1;
	*rows = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return (double) *rows / WIDEN_ROWS_PER_S;
}

bool
mig_widen_ok(mig_ctx *c)
{
	int64_t		rows;
	double		secs;
	char		n[32],
				e[32],
				r[32],
				lim[32];

	if (!mig_widens(c))
		return true;
	secs = mig_widen_secs(c, &rows);
	mig_fmt_secs(lim, sizeof(lim), (double) c->o->max_rewrite_ms / 1000.0);
	mig_fmt_count(r, sizeof(r), (int64_t) WIDEN_ROWS_PER_S);
	if (secs < 0)
		return false;
	if (secs * 1000.0 <= (double) c->o->max_rewrite_ms)
		return true;
	mig_fmt_count(n, sizeof(n), rows);
	mig_fmt_secs(e, sizeof(e), secs);
	snprintf(c->err, sizeof(c->err), "%s is integer: moving it to snowflakes widens it and every foreign key "
			 "column to it to bigint, a rewrite of ~%s rows under ACCESS EXCLUSIVE during which every reader "
			 "and writer of %s waits: about %s (at ~%s rows/s, a guess), over --max-rewrite-lock (%s); "
			 "raise --max-rewrite-lock to accept that wait", c->t.key_q, n, c->t.qname, e, r, lim);
	return false;
}

void
mig_widen_plan(mig_ctx *c)
{
	int64_t		rows;
	double		secs = mig_widen_secs(c, &rows);
	char		n[32],
				e[32],
				r[32],
				lim[32];
	int			i;

	mig_fmt_secs(lim, sizeof(lim), (double) c->o->max_rewrite_ms / 1000.0);
	mig_fmt_count(r, sizeof(r), (int64_t) WIDEN_ROWS_PER_S);
	printf("  %s is integer: it%s", c->t.key_q, c->t.nchildren > 0 ? " and every foreign key column to it" : "");
	for (i = 0; i < c->t.nchildren; i++)
		printf("%s%s.%s", i == 0 ? " (" : ", ", c->t.children[i].qname, c->t.children[i].fk_q);
	printf("%s %s widened to bigint,\n  a rewrite of %s and %s indexes under ACCESS EXCLUSIVE: every"
		   " reader and writer waits.\n", c->t.nchildren > 0 ? ")" : "", c->t.nchildren > 0 ? "are" : "is",
		   c->t.nchildren > 0 ? "each table" : "the table", c->t.nchildren > 0 ? "their" : "its");
	if (secs >= 0)
	{
		mig_fmt_count(n, sizeof(n), rows);
		mig_fmt_secs(e, sizeof(e), secs);
		printf("  ~%s rows: %s%s under the lock (at ~%s rows/s, a guess); run refuses\n"
			   "  it over --max-rewrite-lock (%s)%s.\n", n, secs < 1 ? "" : "about ", secs < 1 ? "under a second" : e, r,
			   lim, secs * 1000.0 > (double) c->o->max_rewrite_ms ? ", as here: raise it to accept the wait" : "");
	}
	printf("  Statements prepared on the server that return %s, a foreign key to it or whole rows fail\n"
		   "  on every execution after it until their connections are recycled: --before-row-type-change\n"
		   "  and --after-row-type-change give the cue (docs/migrate.md, \"What your application sees\").\n",
		   c->t.key_q);
}
