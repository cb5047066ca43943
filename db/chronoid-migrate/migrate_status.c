/*
 * migrate_status.c — "chronoid migrate status": where a key move stands,
 * and whether a run is at it now (its pid, what it runs, its rate), as
 * lines or as JSON (keys that do not apply are left out).
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"

static const char *
next_action(enum mig_step s)
{
	switch (s)
	{
		case MIG_INDEXED:
			return "swap";
		case MIG_SWAPPED:
			return "swap (to validate the foreign keys)";
		case MIG_DONE:
			return "finish (when rollback is no longer wanted)";
		case MIG_CONVERTED:
			return NULL;
		case MIG_ROLLING:
			return "rollback (to finish it)";
		default:
			return "run";
	}
}

/* A run that holds the table's advisory lock (mig_lock_table) right now. */
typedef struct running
{
	bool		yes;
	char		pid[16];
	double		secs;			/* since its session began */
	char		query[120];		/* the start of what it runs ("" when hidden) */
	bool		idle;			/* between two statements (a batch's pause) */
	double		rate;			/* rows/s over its last batches, < 0 unknown */
} running;

/* The rows the children's backfill has still to set (estimates; 0 when done). */
static int64_t
children_left(const mig_ctx *c)
{
	int64_t		left = 0;
	int			i;

	for (i = 0; i < c->t.nchildren; i++)
		if (!c->t.children[i].done && c->t.children[i].rows_est > c->t.children[i].done_rows)
			left += c->t.children[i].rows_est - c->t.children[i].done_rows;
	return left;
}

/*
 * What a run in a backfill step is at: the batch's statement, not what
 * the session last sent (the COMMIT after a batch, while it pauses, or
 * the call that runs the batch as the table's owner).  Built here as run
 * builds it; "" in the other steps.
 */
static void
batch_statement(const mig_ctx *c, char *buf, size_t len)
{
	mig_buf		b = {0};
	const char *u,
			   *p;
	size_t		o = 0;
	int			i;

	buf[0] = '\0';
	if (c->st.step == MIG_ADDED)
		mig_sql_batch(c, &b, true);
	else if (c->st.step == MIG_BACKFILLED)
	{
		for (i = 0; i < c->t.nchildren && c->t.children[i].done; i++)
			;
		if (i == c->t.nchildren)
			return;
		mig_sql_child_batch(c, &c->t.children[i], &b);
	}
	else
		return;
	u = strstr(b.s, "UPDATE ONLY");
	/* One line, spaces folded, cut with an ellipsis. */
	for (p = u != NULL ? u : b.s; *p != '\0' && o + 4 < len; p++)
	{
		bool		sp = *p == ' ' || *p == '\n' || *p == '\t';

		if (sp && (o == 0 || buf[o - 1] == ' '))
			continue;
		buf[o++] = sp ? ' ' : *p;
	}
	if (*p != '\0')
		o += (size_t) snprintf(buf + o, len - o, "...");
	buf[o] = '\0';
	mig_buf_free(&b);
}

/*
 * The rate the run stored with its last batch (rows/s, smoothed): read,
 * not measured, so that status answers at once.  Unknown when that batch
 * committed more than STALE_S seconds ago (the run is paused for its
 * replicas, or blocked: an old rate would promise a wrong time), and
 * read through to_jsonb so that a state table older than the column
 * reads as unknown too.
 */
#define STALE_S 10
static void
stored_rate(mig_ctx *c, const char *relid, running *r)
{
	mig_buf		q = {0};
	PGresult   *res;

	r->rate = -1;
	mig_buf_printf(&q, "SELECT CASE WHEN m.updated_at > pg_catalog.now() - interval '%d s'"
				   " THEN COALESCE(pg_catalog.to_jsonb(m) ->> 'rows_per_second', '-1') ELSE '-1' END"
				   " FROM %s.migration m WHERE m.relid = $1::pg_catalog.oid", STALE_S, c->state_q);
	res = mig_query(c, q.s, 1, (const char *[]) {relid});
	if (res != NULL && PQntuples(res) == 1)
		r->rate = strtod(PQgetvalue(res, 0, 0), NULL);
	PQclear(res);
	mig_buf_free(&q);
	c->err[0] = '\0';
}

static void
find_running(mig_ctx *c, running *r)
{
	char		relid[16];
	PGresult   *res;

	memset(r, 0, sizeof(*r));
	r->rate = -1;
	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	/* pg_try_advisory_lock(int4, int4): classid the first key, objid the second, objsubid 2. */
	res = mig_query(c, "SELECT l.pid, COALESCE(pg_catalog.date_part('epoch', pg_catalog.now() - a.backend_start), -1),"
					" COALESCE(pg_catalog.left(pg_catalog.regexp_replace(a.query, '\\s+', ' ', 'g'), 112), ''),"
					" COALESCE(a.state <> 'active', false)"
					" FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid"
					" WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
					"   AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d"
					"                     WHERE d.datname = pg_catalog.current_database())"
					"   AND l.classid::pg_catalog.int8 = (pg_catalog.hashtext('chronoid.migrate')::pg_catalog.int8 & 4294967295)"
					"   AND l.objid::pg_catalog.int8 = $1::pg_catalog.int8 AND l.pid <> pg_catalog.pg_backend_pid()",
					1, (const char *[]) {relid});
	if (res == NULL || PQntuples(res) != 1)
	{
		/* Not knowing is not an error for status: it says what the state says. */
		PQclear(res);
		c->err[0] = '\0';
		return;
	}
	r->yes = true;
	snprintf(r->pid, sizeof(r->pid), "%s", PQgetvalue(res, 0, 0));
	r->secs = strtod(PQgetvalue(res, 0, 1), NULL);
	snprintf(r->query, sizeof(r->query), "%s", PQgetvalue(res, 0, 2));
	r->idle = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
	PQclear(res);
	/* The parent's backfill and the children's both keep their rate on the table's row. */
	if (c->st.step < MIG_CHILDREN)
	{
		stored_rate(c, relid, r);
		batch_statement(c, r->query, sizeof(r->query));
	}
}

int
mig_status(mig_ctx *c)
{
	const char *next = next_action(c->st.step);
	int			i;
	char		n[32],
				e[32];
	running		run;
	double		eta = -1,
				kids_eta = -1;
	int64_t		kids_left = children_left(c);

	find_running(c, &run);
	if (run.yes)
		next = NULL;
	/*
	 * The rate of the rows being set now: the parent's batches' in the
	 * backfill, the children's after it.  The children's ETA during the
	 * parent's backfill assumes the same rate per row (plan's guess does).
	 */
	if (run.rate > 0 && c->st.step == MIG_ADDED && c->t.rows_est > c->st.rows_done)
		eta = (double) (c->t.rows_est - c->st.rows_done) / run.rate;
	if (run.rate > 0 && c->st.step == MIG_ADDED)
	{
		mig_size	z;

		/* plan's model: each child at the table's rate, scaled by its indexes. */
		if (mig_size_read(c, &z))
			kids_eta = mig_size_children_secs(c, &z, 0, run.rate, &kids_left);
		c->err[0] = '\0';
	}
	else if (run.rate > 0 && c->st.step == MIG_BACKFILLED)
		kids_eta = (double) kids_left / run.rate;

	if (c->o->json)
	{
		cli_out_str("{\"table\":");
		cli_out_json_str(c->t.qname, strlen(c->t.qname));
		cli_out_str(",\"column\":");
		cli_out_json_str(c->st.key, strlen(c->st.key));
		cli_out_str(",\"to\":");
		cli_out_json_str(c->st.target, strlen(c->st.target));
		if (c->st.time_from[0] != '\0')
		{
			cli_out_str(",\"time_from\":");
			cli_out_json_str(c->st.time_from, strlen(c->st.time_from));
		}
		cli_out_str(",\"step\":");
		cli_out_json_str(mig_step_name(c->st.step), strlen(mig_step_name(c->st.step)));
		if (run.yes)
		{
			cli_out_str(",\"running\":{\"pid\":");
			cli_out_str(run.pid);
			cli_out_str(",\"seconds\":");
			cli_out_i64((int64_t) run.secs);
			if (run.query[0] != '\0')
			{
				cli_out_str(",\"query\":");
				cli_out_json_str(run.query, strlen(run.query));
			}
			if (run.rate > 0)
			{
				cli_out_str(",\"rows_per_second\":");
				cli_out_i64((int64_t) run.rate);
			}
			if (run.idle)
				cli_out_str(",\"idle\":true");
			if (eta >= 0)
			{
				cli_out_str(",\"eta_seconds\":");
				cli_out_i64((int64_t) (eta + 0.5));
			}
			if (kids_eta >= 0 && kids_left > 0)
			{
				cli_out_str(",\"children_rows_left\":");
				cli_out_i64(kids_left);
				cli_out_str(",\"children_eta_seconds\":");
				cli_out_i64((int64_t) (kids_eta + 0.5));
			}
			cli_out_str("}");
		}
		if (c->st.step != MIG_CONVERTED)
		{
			cli_out_str(",\"rows_backfilled\":");
			cli_out_i64(c->st.rows_done);
			if (c->t.rows_est >= 0)
			{
				cli_out_str(",\"rows_estimated\":");
				cli_out_i64(c->t.rows_est);
			}
			cli_out_str(",\"children\":[");
			for (i = 0; i < c->t.nchildren; i++)
			{
				const mig_child *ch = &c->t.children[i];

				cli_out_str(i ? ",{\"table\":" : "{\"table\":");
				cli_out_json_str(ch->qname, strlen(ch->qname));
				cli_out_str(",\"foreign_key\":");
				cli_out_json_str(ch->con_raw, strlen(ch->con_raw));
				cli_out_str(",\"rows_backfilled\":");
				cli_out_i64(ch->done_rows);
				if (ch->rows_est >= 0)
				{
					cli_out_str(",\"rows_estimated\":");
					cli_out_i64(ch->rows_est);
				}
				cli_out_str(ch->done ? ",\"backfilled\":true}" : ",\"backfilled\":false}");
			}
			cli_out_str("]");
		}
		if (next != NULL)
		{
			cli_out_str(",\"next\":");
			cli_out_json_str(next, strlen(next));
		}
		cli_out_str("}\n");
		return cli_out_flush() ? MIG_EXIT_OK : MIG_EXIT_FAIL;
	}
	printf("table:    %s\n", c->t.qname);
	printf("key:      %s -> %s%s%s\n", c->st.key, c->st.target,
		   c->st.time_from[0] ? ", old rows by " : "", c->st.time_from);
	printf("step:     %s\n", mig_step_name(c->st.step));
	if (run.yes)
	{
		mig_fmt_secs(e, sizeof(e), run.secs);
		printf("running:  pid %s, for %s%s%s%s\n", run.pid, e, run.query[0] ? "; now: " : "",
			   run.query[0] && run.idle && c->st.step < MIG_CHILDREN ? "(pausing between batches) " : "", run.query);
	}
	if (c->st.step != MIG_CONVERTED)
	{
		mig_fmt_count(n, sizeof(n), c->st.rows_done);
		mig_fmt_count(e, sizeof(e), c->t.rows_est);
		printf("backfill: %s rows%s%s%s", n, c->t.rows_est >= 0 ? " of ~" : "", c->t.rows_est >= 0 ? e : "",
			   c->st.step >= MIG_BACKFILLED ? " (done)" : "");
		if (run.rate > 0 && c->st.step == MIG_ADDED)
		{
			mig_fmt_count(n, sizeof(n), (int64_t) run.rate);
			mig_fmt_secs(e, sizeof(e), eta);
			printf(", %s rows/s, ETA %s", n, e);
		}
		printf("\n");
		for (i = 0; i < c->t.nchildren; i++)
		{
			const mig_child *ch = &c->t.children[i];

			mig_fmt_count(n, sizeof(n), ch->done_rows);
			mig_fmt_count(e, sizeof(e), ch->rows_est);
			printf("child:    %s (%s): %s rows%s%s%s\n", ch->qname, ch->con_raw, n,
				   ch->rows_est >= 0 && !ch->done ? " of ~" : "", ch->rows_est >= 0 && !ch->done ? e : "",
				   ch->done ? " (done)" : "");
		}
		if (kids_eta >= 0 && kids_left > 0)
		{
			mig_fmt_count(n, sizeof(n), kids_left);
			mig_fmt_secs(e, sizeof(e), kids_eta);
			if (c->st.step == MIG_ADDED)
				printf("children: ~%s rows after the backfill, about %s at its rate (scaled by their indexes)\n", n, e);
			else
			{
				char		r[32];

				mig_fmt_count(r, sizeof(r), (int64_t) run.rate);
				printf("children: ~%s rows left, %s rows/s, ETA %s\n", n, r, e);
			}
		}
	}
	if (next != NULL)
		printf("next:     chronoid migrate %s\n", next);
	else if (run.yes)
		printf("next:     wait for pid %s (or stop it: Ctrl-C or SIGTERM; run resumes where it stopped)\n", run.pid);
	return MIG_EXIT_OK;
}
