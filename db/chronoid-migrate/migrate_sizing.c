/*
 * migrate_sizing.c — what a key move costs beside time: the WAL it writes
 * and the disk the tables keep, estimated from the table's and its
 * children's heaps and indexes, and the rate plan guesses before run
 * measures its own.
 *
 * Calibrated on a 200,000-row table with three indexes besides its primary
 * key, a trigger and row level security, and two children of 300,000 and
 * 100,000 rows with an index on their foreign key (92 MB in all), and on
 * the same tables with their primary keys only (59 MB): run wrote 4.5 and
 * 4.6 times their size in WAL (a checkpoint just before it, none during),
 * and 8.8 times with a checkpoint every 5 seconds (each page imaged again
 * at nearly every touch); the tables grew by
 * their heaps' size plus 1.6 times their indexes' (docs/migrate.md,
 * "What it costs").  Every row is written again (its new version whole,
 * the page it left as a full-page image), gets a second entry in every
 * index (small entries, page splits, full-page images of the leaves),
 * the new indexes are built, and VACUUM prunes every page and every index.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"

/* WAL per byte of the tables and their indexes (4.5 and 4.6 measured, a checkpoint before run). */
#define SIZE_WAL_FACTOR 4.5
/* With checkpoints close together each page is imaged more often (8.8 measured at one per 5 s). */
#define SIZE_WAL_FACTOR_HIGH 9.0
/* Growth: each heap about once more, each index 1.6 times more (new indexes included). */
#define SIZE_GROW_HEAP 1.0
#define SIZE_GROW_INDEX 1.6

/*
 * Rows a second for a table with one index (its primary key), and how
 * each more index slows the backfill (every row written again gets an
 * entry in each): 27,000 rows/s measured by make bench-migrate, rounded
 * down; a table with four indexes, a trigger and row level security went
 * at 8,500-8,800 (issue 34), 2/(1 + 4) of it.
 */
#define SIZE_RATE_ONE_INDEX 20000.0

bool
mig_size_read(mig_ctx *c, mig_size *z)
{
	mig_buf		rels = {0},
				q = {0};
	PGresult   *res;
	int			i;

	memset(z, 0, sizeof(*z));
	mig_buf_printf(&rels, "{%u", c->t.relid);
	for (i = 0; i < c->t.nchildren; i++)
		mig_buf_printf(&rels, ",%u", c->t.children[i].relid);
	mig_buf_printf(&rels, "}");
	/* Sizes as the catalogs know them: no table is read. */
	mig_buf_printf(&q, "SELECT u.rel, pg_catalog.pg_table_size(u.rel), pg_catalog.pg_indexes_size(u.rel),"
				   " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_index i WHERE i.indrelid = u.rel)"
				   " FROM pg_catalog.unnest($1::pg_catalog.oid[]) WITH ORDINALITY u (rel, n) ORDER BY u.n");
	res = mig_query(c, q.s, 1, (const char *[]) {rels.s});
	mig_buf_free(&q);
	mig_buf_free(&rels);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res) && i < MIG_MAX_CHILDREN + 1; i++)
	{
		z->rel[i].heap = strtoll(PQgetvalue(res, i, 1), NULL, 10);
		z->rel[i].index = strtoll(PQgetvalue(res, i, 2), NULL, 10);
		z->rel[i].nindexes = (int) strtol(PQgetvalue(res, i, 3), NULL, 10);
		z->heap += z->rel[i].heap;
		z->index += z->rel[i].index;
		z->n++;
	}
	PQclear(res);
	return true;
}

double
mig_size_rate(int nindexes)
{
	return SIZE_RATE_ONE_INDEX * 2.0 / (1.0 + (nindexes > 1 ? nindexes : 1));
}

double
mig_size_wal(const mig_size *z, bool high)
{
	return (double) (z->heap + z->index) * (high ? SIZE_WAL_FACTOR_HIGH : SIZE_WAL_FACTOR);
}

double
mig_size_growth(const mig_size *z)
{
	return (double) z->heap * SIZE_GROW_HEAP + (double) z->index * SIZE_GROW_INDEX;
}

void
mig_size_plan(const mig_ctx *c, const mig_size *z)
{
	const double mb = 1048576.0;

	printf("  - WAL: about %.0f MB (up to %.0f MB when checkpoints come often): %.1f times the %.0f MB\n"
		   "    that %s%s hold%s, indexes included (each row written again,\n"
		   "    with an entry in every index, the new indexes built, then VACUUM); archives and\n"
		   "    replicas receive it all\n",
		   mig_size_wal(z, false) / mb, mig_size_wal(z, true) / mb, SIZE_WAL_FACTOR,
		   (double) (z->heap + z->index) / mb, c->t.qname, c->t.nchildren ? " and its children" : "",
		   c->t.nchildren ? "" : "s");
	printf("  - disk: the tables and their indexes grow by about %.0f MB (their heaps are %.0f MB, their\n"
		   "    indexes %.0f MB) and stay so: the old row versions' space is free inside them for later\n"
		   "    writes, not given back (VACUUM FULL or pg_repack gives it back, under their own locks)\n",
		   mig_size_growth(z) / mb, (double) z->heap / mb, (double) z->index / mb);
}

double
mig_size_children_secs(const mig_ctx *c, const mig_size *z, int rel, double rate, int64_t *rows)
{
	double		secs = 0;
	int			i;

	*rows = 0;
	if (rate <= 0 || rel >= z->n)
		return -1;
	for (i = 0; i < c->t.nchildren && 1 + i < z->n; i++)
	{
		const mig_child *ch = &c->t.children[i];
		int64_t		left = ch->rows_est - ch->done_rows;

		if (ch->done || left <= 0 || i == rel - 1)
			continue;
		*rows += left;
		secs += (double) left / (rate * mig_size_rate(z->rel[1 + i].nindexes) / mig_size_rate(z->rel[rel].nindexes));
	}
	return secs;
}

/*
 * After a sample of the backfill (rel: 0 the table, 1 + i child i): its
 * measured rate, and what that makes of the rest, each child's rows at
 * that rate scaled by its indexes against the sampled table's (plan's
 * model).  Said once a run, on the first sample long enough.
 */
static bool forecast_said;

void
mig_size_forecast(mig_ctx *c, int rel, double rate, int64_t rows_left)
{
	mig_size	z;
	double		kids,
				mine;
	int64_t		kid_rows;
	char		ts[32],
				r[32],
				e1[32],
				e2[32],
				e3[32],
				n[32];

	if (forecast_said || rate <= 0)
		return;
	forecast_said = true;
	if (!mig_size_read(c, &z) || rel >= z.n)
	{
		c->err[0] = '\0';		/* a forecast is not worth failing a run for */
		return;
	}
	mine = (double) (rows_left > 0 ? rows_left : 0) / rate;
	/* The sampled child's own rows are in mine. */
	kids = mig_size_children_secs(c, &z, rel, rate, &kid_rows);
	mig_fmt_now(ts, sizeof(ts));
	mig_fmt_count(r, sizeof(r), (int64_t) rate);
	mig_fmt_secs(e1, sizeof(e1), mine);
	mig_fmt_secs(e2, sizeof(e2), kids);
	mig_fmt_secs(e3, sizeof(e3), mine + kids);
	mig_fmt_count(n, sizeof(n), kid_rows);
	fprintf(stderr, "%s chronoid: %s: measured %s rows/s on the first batches: %s more for %s, then ~%s rows of "
			"the children, about %s; about %s all told before the checks, indexes and VACUUM\n",
			ts, c->o->sub, r, e1, rel == 0 ? "the backfill" : "this child", n, e2, e3);
}
