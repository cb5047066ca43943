/*
 * migrate_plan.c — "chronoid migrate plan": the steps as the SQL run and
 * swap will send, each with the lock it takes and a duration estimate,
 * and what the user should know first.  It reads; it changes nothing
 * (not even the state table).
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"

/* The backfill's rates: mig_size_rate (migrate_sizing.c). */
#define PLAN_SCAN_BYTES_PER_S (100.0 * 1024 * 1024)

static void
est(char *buf, size_t len, double secs)
{
	char		s[32];

	if (secs < 1)
	{
		snprintf(buf, len, "under a second");
		return;
	}
	mig_fmt_secs(s, sizeof(s), secs);
	snprintf(buf, len, "about %s", s);
}

/* What --time-from will do with the rows it cannot date (a read-only scan). */
static bool
time_report(mig_ctx *c)
{
	mig_buf		b = {0};
	PGresult   *res;
	bool		sf = strcmp(c->o->to, "snowflake") == 0;
	const char *ts = c->t.ts_q;
	char		tsx[MIG_NAME + 40];

	if (c->t.ts_is_tz)
		snprintf(tsx, sizeof(tsx), "%s", ts);
	else
		snprintf(tsx, sizeof(tsx), "pg_catalog.timezone('UTC', %s)", ts);
	/*
	 * The epoch of chronoid's snowflakes (pgEdge's, snowflake.to_timestamp(0)),
	 * spelled out: the plan may run before chronoid is installed.
	 */
	/* Read as the table's owner: its column types are its own. */
	mig_buf_printf(&b, "SELECT ARRAY[pg_catalog.count(*) FILTER (WHERE %s IS NULL),"
				   " pg_catalog.count(*) FILTER (WHERE %s >= pg_catalog.now()),"
				   " pg_catalog.count(*) FILTER (WHERE %s AND %s < '2023-01-01 00:00:00+00'::pg_catalog.timestamptz)]::pg_catalog.text[]"
				   " FROM ONLY %s", tsx, tsx, sf ? "true" : "false", tsx, c->t.qname);
	res = mig_read_as(c, MIG_AS_TABLE, b.s, 0, NULL);
	mig_buf_reset(&b);
	if (res == NULL)
	{
		mig_buf_free(&b);
		return false;
	}
	if (strcmp(PQgetvalue(res, 0, 0), "0") != 0)
		printf("  - %s rows have no %s (NULL): they get IDs minted at backfill time\n", PQgetvalue(res, 0, 0), ts);
	if (strcmp(PQgetvalue(res, 0, 1), "0") != 0)
		printf("  - %s rows have %s in the future: they get IDs minted at backfill time (an ID from a\n"
			   "    future time would sort above the rows written after it)\n", PQgetvalue(res, 0, 1), ts);
	if (sf && strcmp(PQgetvalue(res, 0, 2), "0") != 0)
		printf("  - %s rows have %s before the snowflake epoch (snowflake.to_timestamp(0)), which a\n"
			   "    snowflake cannot hold: they get IDs minted at backfill time\n", PQgetvalue(res, 0, 2), ts);
	PQclear(res);
	if (sf)
	{
		mig_buf_printf(&b, "SELECT ARRAY[pg_catalog.count(*), COALESCE(pg_catalog.max(n), 0),"
					   " COALESCE(pg_catalog.sum(n - 4096), 0)]::pg_catalog.text[] FROM (SELECT pg_catalog.count(*) AS n"
					   " FROM ONLY %s WHERE %s IS NOT NULL GROUP BY pg_catalog.date_trunc('milliseconds', %s)"
					   " HAVING pg_catalog.count(*) > 4096) s", c->t.qname, tsx, tsx);
		res = mig_read_as(c, MIG_AS_TABLE, b.s, 0, NULL);
		if (res == NULL)
		{
			mig_buf_free(&b);
			return false;
		}
		if (strcmp(PQgetvalue(res, 0, 0), "0") != 0)
			printf("  - %s milliseconds of %s hold more than 4,096 rows (at most %s), more than one\n"
				   "    millisecond's counter: the first 4,096 of each (by %s, then key) get that millisecond's\n"
				   "    IDs, the other %s rows IDs minted at backfill time\n",
				   PQgetvalue(res, 0, 0), ts, PQgetvalue(res, 0, 1), ts, PQgetvalue(res, 0, 2));
		PQclear(res);
	}
	mig_buf_free(&b);
	return true;
}

static int
plan_convert(mig_ctx *c)
{
	printf("Plan: %s.%s (%s, values from sequence %s) to snowflake, in place\n\n", c->t.qname, c->t.key_q,
		   c->t.keytype, c->t.keyseq);
	printf("  Old IDs stay; the sequence's next values are snowflakes (no backfill, no swap).\n");
	if (c->t.identity)
		printf("  The identity is dropped (force => true): the column keeps the sequence as a default.\n");
	if (mig_widens(c))
	{
		int64_t		rows;
		double		secs = mig_widen_secs(c, &rows);
		char		e[64];

		mig_widen_plan(c);
		est(e, sizeof(e), secs);
		printf("\n  1. convert  [ACCESS EXCLUSIVE on %s and the tables referencing it: %s]\n", c->t.qname,
			   secs < 0 ? "unknown" : e);
	}
	else
		printf("\n  1. convert  [ACCESS EXCLUSIVE on %s: milliseconds]\n", c->t.qname);
	printf("      SELECT snowflake.convert_sequence_to_snowflake('%s'::regclass%s);\n", c->t.keyseq,
		   c->t.identity ? ", true" : "");
	printf("\n  rollback: not possible (the IDs minted after it are snowflakes)\n");
	return MIG_EXIT_OK;
}

int
mig_plan(mig_ctx *c)
{
	mig_table  *t = &c->t;
	mig_buf		b = {0};
	char		n[32],
				e[64];
	int			i,
				k = 1;
	double		scan = (double) t->bytes / PLAN_SCAN_BYTES_PER_S;
	enum mig_step at = c->st.exists ? c->st.step : MIG_NEW;
	mig_size	z;

	if (t->convert)
		return plan_convert(c);
	if (!mig_size_read(c, &z))
	{
		cli_error(c->o->sub, "%s", c->err);
		return MIG_EXIT_FAIL;
	}
	/* A migration under way: the indexes on the key as they are now (a new one's were read already). */
	if (c->st.exists && at < MIG_SWAPPED && !mig_index_load(c, false, false))
	{
		cli_error(c->o->sub, "%s", c->err);
		return MIG_EXIT_FAIL;
	}
	mig_fmt_count(n, sizeof(n), t->rows_est);
	printf("Plan: move %s.%s (%s%s%s) to %s%s%s\n", t->qname, t->key_q, t->keytype,
		   t->keydefault[0] ? ", default " : ", no default", t->keydefault, c->o->to,
		   t->ts_q[0] ? ", old rows dated by " : "", t->ts_q);
	printf("  rows: %s%s, %.1f MB; ", t->rows_est >= 0 ? "~" : "", t->rows_est >= 0 ? n : "unknown (never analyzed: run ANALYZE for estimates)",
		   (double) t->bytes / 1048576.0);
	if (t->nchildren == 0)
		printf("no foreign key references it\n");
	else
	{
		printf("referenced by:\n");
		for (i = 0; i < t->nchildren; i++)
		{
			mig_fmt_count(n, sizeof(n), t->children[i].rows_est);
			printf("    %s.%s (%s, ~%s rows)\n", t->children[i].qname, t->children[i].fk_q,
				   t->children[i].con_raw, n);
		}
	}
	if (c->st.exists)
		printf("  recorded: step %s, %lld rows backfilled (run continues from there)\n",
			   mig_step_name(at), (long long) c->st.rows_done);
	if (at < MIG_INDEXED)
	{
		/* Every part run still has to do, so that the sum is the run's, not the backfill's. */
		double		own = at < MIG_BACKFILLED && t->rows_est > 0 ?
			(double) t->rows_est / mig_size_rate(z.rel[0].nindexes) : 0,
					kids = 0,
					kid_rows = 0,
					rest;
		char		e1[64],
					e2[64],
					e3[64];

		for (i = 0; i < t->nchildren; i++)
		{
			if (at < MIG_CHILDREN && t->children[i].rows_est > 0)
				kids += (double) t->children[i].rows_est / mig_size_rate(z.rel[1 + i].nindexes);
			if (t->children[i].rows_est > 0)
				kid_rows += (double) t->children[i].rows_est;
		}
		/*
		 * The CHECK scans, the two unique indexes and VACUUM of the table;
		 * a child's CHECK, index and VACUUM guessed from its rows as if
		 * they were as wide as the table's.
		 */
		rest = 4 * scan + (t->rows_est > 0 ? 3 * scan * kid_rows / (double) t->rows_est : 0);
		est(e, sizeof(e), own + kids + rest);
		est(e1, sizeof(e1), own);
		est(e2, sizeof(e2), kids);
		est(e3, sizeof(e3), rest);
		mig_fmt_count(n, sizeof(n), (int64_t) mig_size_rate(z.rel[0].nindexes));
		printf("  run: %s all told (backfill %s, children %s, checks, indexes and VACUUM %s): a guess\n"
			   "    from the sizes at ~%s rows/s (fewer with each index: %s has %d), not a measure;\n"
			   "    run measures its rate on its first batches and says then how long it will take, and\n"
			   "    status shows the rate and ETA while it runs\n", e, e1, e2, e3, n, t->qname, z.rel[0].nindexes);
	}

	printf("\nBefore you start:\n");
	printf("  - outside references (URLs, other services, caches, exports) keep the old values of %s;\n"
		   "    after the swap they find rows through %s, which keeps them (unique, indexed)\n",
		   t->key_q, t->old_q);
	if (t->ts_q[0] == '\0')
		printf("  - old rows get IDs minted at backfill time (no --time-from): they sort by when the\n"
			   "    backfill reached them, not by when they were written; --time-from COLUMN dates them\n");
	else
	{
		printf("  - old rows get IDs built from %s%s, unique and in its order (below every ID minted\n"
			   "    after the migration starts)\n", t->ts_q, t->ts_is_tz ? "" : " (a timestamp without time zone, read as UTC)");
		if (!time_report(c))
		{
			mig_buf_free(&b);
			cli_error(c->o->sub, "%s", c->err);
			return MIG_EXIT_FAIL;
		}
	}
	if (c->nviews > 0)
	{
		printf("  - the swap carries these views to the new key in its own transaction (dropped, then\n"
			   "    created again from their text, as their owners, with their options, privileges and\n"
			   "    comments: the SQL is in step %d):\n", 6);
		for (i = 0; i < c->nviews; i++)
			printf("      %s (owner %s%s%s)\n", c->views[i].qname, c->views[i].owner.name_q,
				   c->views[i].depth > 0 ? ", on a view above" : "",
				   !c->views[i].matview ? "" : c->views[i].populated ?
				   "; materialized: made empty with its indexes,\n        refreshed right after the swap"
				   " commits, its readers waiting for the refresh" : "; materialized, not populated: made empty");
	}
	if (c->npolicies > 0)
	{
		printf("  - the swap sets these row security policies' expressions again from their text, in its\n"
			   "    own transaction, as their tables' owners (ALTER POLICY: the policy never goes away):\n");
		for (i = 0; i < c->npolicies; i++)
			printf("      %s (owner %s)\n", c->policies[i].what, c->policies[i].owner.name_q);
	}
	if (c->views_refused != NULL && c->views_refused[0] != '\0')
		printf("  - the swap cannot carry these and refuses while they exist (run goes ahead; drop them\n"
			   "    before the swap, create them again after): %s\n", c->views_refused);
	if (t->binders[0] != '\0')
		printf("  - these bind %s by its column number, not its name, so after the swap they stay on %s\n"
			   "    (the old key; what queries return does not change): %s; create them on %s after the\n"
			   "    swap if the new key should have them\n", t->key_q, t->old_q, t->binders, t->key_q);
	if (t->in_pub)
		printf("  - %s is published for logical replication, and DDL is not replicated: each subscriber\n"
			   "    stops at the first change after run adds the columns, and again after swap, rollback\n"
			   "    and finish rename them, until it has the same DDL; pass --subscriber CONNINFO to each\n"
			   "    step and the tool applies it there, or apply what chronoid migrate subscriber-ddl STEP\n"
			   "    prints; swap, rollback and finish refuse while a replication slot does not keep up\n",
			   t->qname);
	if (t->keydefault[0] == '\0' && !t->identity)
		printf("  - %s has no default (the application supplies keys): after the swap it writes them into\n"
			   "    the new %s, and %s is left NULL for those rows (rollback then needs values for them);\n"
			   "    keys the application makes (uuid4() in an ORM) stay what they were: let the default\n"
			   "    fill %s, or mint %s IDs in the application\n",
			   t->key_q, t->key_q, t->old_q, t->key_q, c->o->to);
	printf("  - after the swap %s is the table's last column and %s takes the old one's place:\n"
		   "    INSERT INTO %s VALUES (...) without a column list fills %s first; name the columns\n",
		   t->key_q, t->old_q, t->qname, t->old_q);
	printf("  - each step that changes the tables' columns (1, 6 and rollback) makes a statement\n"
		   "    prepared on the server before it that returns whole rows (SELECT *, RETURNING *)%s\n"
		   "    fail with \"cached plan must not change result type\" on every execution until its\n"
		   "    connection is recycled (psycopg 3, node-postgres named statements, pgbench -M prepared);\n"
		   "    --before-row-type-change and --after-row-type-change give the cue to recycle them\n"
		   "    (docs/migrate.md, \"What your application sees\")\n",
		   strcmp(c->o->to, "snowflake") == 0 || strcmp(c->o->to, "ulid") == 0 || strcmp(t->keytype, "uuid") != 0
		   ? " or the key" : "");
	{
		PGresult   *res;

		snprintf(n, sizeof(n), "%lld", (long long) c->o->lock_timeout_ms);
		res = mig_query(c, "SELECT pg_catalog.current_setting('deadlock_timeout'),"
						" (pg_catalog.current_setting('deadlock_timeout')::pg_catalog.interval"
						"  <= $1::pg_catalog.int8 * interval '1 ms')", 1, (const char *[]) {n});
		if (res != NULL && strcmp(PQgetvalue(res, 0, 1), "t") == 0)
			printf("  - --lock-timeout %s ms is not below deadlock_timeout (%s): a writer that deadlocks with\n"
				   "    the swap could be the one aborted; choose a shorter --lock-timeout\n", n, PQgetvalue(res, 0, 0));
		PQclear(res);
	}
	if (at < MIG_INDEXED)
		mig_size_plan(c, &z);
	mig_trig_plan(c);
	if (!t->ext_installed)
		printf("  - chronoid is not installed in this database: run installs it (CREATE EXTENSION chronoid SCHEMA %s)%s\n",
			   c->t.ext_target, strcmp(c->t.ext_target, "public") != 0 ?
			   ",\n    not into public, which a role other than you or a superuser controls" : "");

	printf("\nSteps (run does 1-%d, swap does %d-%d):\n", 5, 6, 7);
	if (at < MIG_ADDED)
	{
		printf("\n  %d. add the new columns  [ACCESS EXCLUSIVE on %s%s: milliseconds (no rewrite); waits at\n"
			   "     most --lock-timeout %lld ms for it, %d tries]\n", k, t->qname,
			   t->nchildren ? " and each child" : "", (long long) c->o->lock_timeout_ms, c->o->retries);
		{
			mig_script	s = {0};

			mig_sql_add(c, &s);
			mig_script_print(c, &s);
			mig_script_free(&s);
		}
	}
	k++;
	if (at < MIG_BACKFILLED)
	{
		est(e, sizeof(e), t->rows_est > 0 ? (double) t->rows_est / mig_size_rate(z.rel[0].nindexes) : 0);
		printf("\n  %d. backfill %s  [row locks on one batch at a time (~200 ms each, then a pause as long,\n"
			   "     at most 2 s); %s%s]\n", k, t->qname, e,
			   c->o->max_lag_ms >= 0 ? "; pauses while replication lags more than --max-lag" : "");
		if (t->ts_q[0] != '\0' && strcmp(c->o->to, "snowflake") == 0)
		{
			printf("     first, one pass numbering the old rows within each millisecond:\n");
			mig_script	s = {0};

			mig_sql_map(c, &s);
			mig_script_print(c, &s);
			mig_script_free(&s);
			printf("     then, per batch:\n");
		}
		{
			mig_script	s = {0};

			mig_sql_batch(c, &b, true);
			mig_script_quiet(&s, MIG_AS_TABLE);
			mig_script_printf(&s, "%s;\n", b.s);
			mig_buf_reset(&b);
			mig_script_as(&s, MIG_AS_ME);
			mig_sql_batch_state(c, &b);
			mig_script_printf(&s, "%s;  -- $1, $2: the last key and the count above, same transaction\n", b.s);
			mig_buf_reset(&b);
			mig_script_print(c, &s);
			mig_script_free(&s);
		}
	}
	k++;
	if (at < MIG_CHILDREN && t->nchildren > 0)
	{
		printf("\n  %d. backfill the children by join  [row locks on one range of pages at a time]\n", k);
		for (i = 0; i < t->nchildren; i++)
		{
			mig_script	s = {0};

			mig_sql_child_batch(c, &t->children[i], &b);
			mig_script_quiet(&s, i);
			mig_script_printf(&s, "%s;\n", b.s);
			mig_buf_reset(&b);
			mig_script_print(c, &s);
			mig_script_free(&s);
		}
	}
	k++;
	if (at < MIG_CHECKED)
	{
		est(e, sizeof(e), scan);
		printf("\n  %d. prove NOT NULL  [ACCESS EXCLUSIVE for milliseconds to add each CHECK; then\n"
			   "     SHARE UPDATE EXCLUSIVE while VALIDATE scans (writers go on): %s]\n", k, e);
		printf("      ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s IS NOT NULL) NOT VALID;\n"
			   "      ALTER TABLE %s VALIDATE CONSTRAINT %s;\n", t->qname, t->chk_q, t->new_q, t->qname, t->chk_q);
		for (i = 0; i < t->nchildren; i++)
			printf("      ALTER TABLE %s ADD CONSTRAINT %s CHECK (...) NOT VALID; ... VALIDATE ...;\n",
				   t->children[i].qname, t->children[i].chk_q);
	}
	k++;
	if (at < MIG_INDEXED)
	{
		est(e, sizeof(e), 2 * scan);
		printf("\n  %d. indexes, CONCURRENTLY  [SHARE UPDATE EXCLUSIVE: writers go on; %s]\n", k, e);
		printf("      CREATE UNIQUE INDEX CONCURRENTLY %s ON %s (%s);\n", t->idx_new_q, t->qname, t->new_q);
		printf("      CREATE UNIQUE INDEX CONCURRENTLY %s ON %s (%s);\n", t->idx_old_q, t->qname, t->key_q);
		for (i = 0; i < t->nchildren; i++)
		{
			if (t->children[i].indexed)
				printf("      CREATE INDEX CONCURRENTLY %s ON %s (%s);\n", t->children[i].idx_q,
					   t->children[i].qname, t->children[i].new_q);
		}
		/* Those that include the key, twinned on the new column; the swap hands them the names. */
		for (i = 0; i < t->nindexes; i++)
			printf("      %s;  -- %s.%s on %s%s\n", t->indexes[i].create, t->indexes[i].nsp_q,
				   t->indexes[i].name_q, t->new_q, t->indexes[i].renamed ? ", its name at the swap" : "");
		mig_sql_vacuum(c, &b);
		printf("      %s;  -- the backfill's dead rows, so that autovacuum is not due at the swap\n", b.s);
		mig_buf_reset(&b);
	}
	k++;
	if (at < MIG_SWAPPED)
	{
		printf("\n  %d. swap (chronoid migrate swap)  [ACCESS EXCLUSIVE on %s%s: milliseconds (nothing is\n"
			   "     scanned); waits at most --lock-timeout for it, then gives way and tries again]\n", k,
			   t->qname, t->nchildren ? " and each child" : "");
		{
			mig_script	s = {0};

			if (!mig_child_index_names(c, false))
			{
				mig_buf_free(&b);
				cli_error(c->o->sub, "%s", c->err);
				return MIG_EXIT_FAIL;
			}
			mig_sql_swap(c, &s);
			mig_script_print(c, &s);
			mig_script_free(&s);
		}
	}
	k++;
	if (at < MIG_DONE && t->nchildren > 0)
	{
		printf("\n  %d. validate the foreign keys  [SHARE UPDATE EXCLUSIVE on each child, ROW SHARE on %s:\n"
			   "     writers go on]\n", k, t->qname);
		for (i = 0; i < t->nchildren; i++)
			printf("      ALTER TABLE %s VALIDATE CONSTRAINT %s;\n", t->children[i].qname, t->children[i].con_q);
	}
	printf("\nrollback: after the swap restores %s as the primary key (ACCESS EXCLUSIVE for milliseconds)\n"
		   "and re-points the foreign keys, keeping the new key ready to swap again; before the swap, or\n"
		   "run a second time, drops what run added.  Nothing was changed.\n", t->key_q);
	mig_buf_free(&b);
	return MIG_EXIT_OK;
}
