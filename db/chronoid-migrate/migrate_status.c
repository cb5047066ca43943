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
	char		query[80];		/* the start of what it runs ("" when hidden) */
	double		rate;			/* rows/s over its last batches, < 0 unknown */
} running;

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
					" COALESCE(pg_catalog.left(pg_catalog.regexp_replace(a.query, '\\s+', ' ', 'g'), 72), '')"
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
	PQclear(res);
	if (c->st.step < MIG_BACKFILLED)
		stored_rate(c, relid, r);
}

int
mig_status(mig_ctx *c)
{
	const char *next = next_action(c->st.step);
	int			i;
	char		n[32],
				e[32];
	running		run;
	double		eta = -1;

	find_running(c, &run);
	if (run.yes)
		next = NULL;
	if (run.rate > 0 && c->t.rows_est > c->st.rows_done)
		eta = (double) (c->t.rows_est - c->st.rows_done) / run.rate;

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
			if (eta >= 0)
			{
				cli_out_str(",\"eta_seconds\":");
				cli_out_i64((int64_t) (eta + 0.5));
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
		printf("running:  pid %s, for %s%s%s\n", run.pid, e, run.query[0] ? "; now: " : "", run.query);
	}
	if (c->st.step != MIG_CONVERTED)
	{
		mig_fmt_count(n, sizeof(n), c->st.rows_done);
		mig_fmt_count(e, sizeof(e), c->t.rows_est);
		printf("backfill: %s rows%s%s%s", n, c->t.rows_est >= 0 ? " of ~" : "", c->t.rows_est >= 0 ? e : "",
			   c->st.step >= MIG_BACKFILLED ? " (done)" : "");
		if (run.rate > 0)
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
			printf("child:    %s (%s): %s rows%s\n", ch->qname, ch->con_raw, n, ch->done ? " (done)" : "");
		}
	}
	if (next != NULL)
		printf("next:     chronoid migrate %s\n", next);
	else if (run.yes)
		printf("next:     wait for pid %s (or stop it: Ctrl-C or SIGTERM; run resumes where it stopped)\n", run.pid);
	return MIG_EXIT_OK;
}
