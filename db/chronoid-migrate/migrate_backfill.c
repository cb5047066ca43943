/*
 * migrate_backfill.c — giving every old row its new ID, and every child
 * row its parent's: batches that each commit their rows and the cursor
 * together (so a run stopped anywhere resumes exactly there), paced, and
 * paused while replication lags.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"
#include "pq_internal.h"

/*
 * The worst lag of any standby or logical subscriber, in ms, into *lag
 * with a description of whom into who.  Senders report their replay lag
 * (pg_stat_replication.replay_lag); a slot without a connected sender
 * (a subscriber that is down) lags since the WAL position it confirmed,
 * whose age the samples of our own batches date.
 */
typedef struct lag_probe
{
	int64_t		t_ms[256];
	char		lsn[256][32];
	int			n;
} lag_probe;

static lag_probe probe;

static bool
replication_lag(mig_ctx *c, int64_t *lag, char *who, size_t wholen)
{
	PGresult   *res;
	int			i;

	*lag = 0;
	who[0] = '\0';
	res = mig_query(c,
					"SELECT COALESCE(pg_catalog.max(pg_catalog.date_part('epoch', s.replay_lag) * 1000), 0)::pg_catalog.int8,"
					" COALESCE((SELECT pg_catalog.format('%s (%s)', x.application_name, x.client_addr)"
					"   FROM pg_catalog.pg_stat_replication x ORDER BY x.replay_lag DESC NULLS LAST LIMIT 1), ''),"
					" CASE WHEN pg_catalog.pg_is_in_recovery() THEN NULL ELSE pg_catalog.pg_current_wal_lsn()::pg_catalog.text END"
					" FROM pg_catalog.pg_stat_replication s", 0, NULL);
	if (res == NULL)
		return false;
	*lag = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	snprintf(who, wholen, "%s", PQgetvalue(res, 0, 1));
	if (!PQgetisnull(res, 0, 2))
	{
		/* Record (now, current WAL position): a slot that confirmed it later lags by at most its age. */
		if (probe.n == 256)
		{
			memmove(&probe.t_ms[0], &probe.t_ms[1], sizeof(probe.t_ms[0]) * 255);
			memmove(&probe.lsn[0], &probe.lsn[1], sizeof(probe.lsn[0]) * 255);
			probe.n--;
		}
		probe.t_ms[probe.n] = cid_clock_monotonic_ms();
		snprintf(probe.lsn[probe.n], sizeof(probe.lsn[0]), "%s", PQgetvalue(res, 0, 2));
		probe.n++;
	}
	PQclear(res);

	/* Slots whose consumer is not connected. */
	res = mig_query(c,
					"SELECT s.slot_name, COALESCE(s.confirmed_flush_lsn, s.restart_lsn)::pg_catalog.text"
					"  FROM pg_catalog.pg_replication_slots s WHERE NOT s.active"
					"   AND COALESCE(s.confirmed_flush_lsn, s.restart_lsn) IS NOT NULL", 0, NULL);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		int			j;
		int64_t		since = -1;

		/* The oldest sample the slot has not confirmed: it lags at least since then. */
		for (j = 0; j < probe.n; j++)
		{
			const char *params[2] = {PQgetvalue(res, i, 1), probe.lsn[j]};
			PGresult   *r2 = mig_query(c, "SELECT $1::pg_catalog.pg_lsn < $2::pg_catalog.pg_lsn", 2, params);
			bool		behind = r2 != NULL && strcmp(PQgetvalue(r2, 0, 0), "t") == 0;

			PQclear(r2);
			if (behind)
			{
				/* Confirmed before sample j was taken: behind since sample j-1 at least. */
				since = j > 0 ? probe.t_ms[j - 1] : probe.t_ms[0];
				break;
			}
		}
		if (since >= 0 && cid_clock_monotonic_ms() - since > *lag)
		{
			*lag = cid_clock_monotonic_ms() - since;
			snprintf(who, wholen, "slot %s (not connected)", PQgetvalue(res, i, 0));
		}
	}
	PQclear(res);
	return true;
}

/* Wait while replication lags more than --max-lag; false when interrupted or on error. */
static bool
wait_for_replicas(mig_ctx *c, mig_progress *pr)
{
	int64_t		lag;
	char		who[256];
	bool		paused = false;

	if (c->o->max_lag_ms < 0)
		return true;
	for (;;)
	{
		char		note[400];

		if (!replication_lag(c, &lag, who, sizeof(who)))
			return false;
		if (lag <= c->o->max_lag_ms)
		{
			if (paused)
				mig_progress_update(pr, pr->done, "resumed: replication caught up");
			return true;
		}
		snprintf(note, sizeof(note), "paused: replication lag %.1fs > --max-lag %.1fs (%s)",
				 (double) lag / 1000.0, (double) c->o->max_lag_ms / 1000.0, who);
		if (!paused || pr->bar)
			mig_progress_update(pr, pr->done, note);
		paused = true;
		mig_sleep_ms(1000);
		if (mig_interrupted())
			return false;
	}
}

static bool
build_map(mig_ctx *c)
{
	mig_script	s = {0};
	bool		ok;
	PGresult   *res;

	/* Built in one transaction, so the map exists whole or not at all. */
	res = mig_query(c, "SELECT pg_catalog.to_regclass($1) IS NOT NULL", 1, (const char *[]) {c->t.map_q});
	if (res == NULL)
		return false;
	ok = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	if (ok)
		return true;
	fprintf(stderr, "chronoid: %s: numbering the old rows of %s by %s (one pass over the table)\n",
			c->o->sub, c->t.qname, c->t.ts_q);
	mig_sql_map(c, &s);
	ok = mig_ddl_script(c, "numbering the old rows", &s, false);
	mig_script_free(&s);
	return ok;
}

/*
 * After a batch begun at t0 failed in x: true when it ran into the pace's
 * time cap (statement_timeout) and the batch could be halved, saying so;
 * the caller tries again.  Otherwise false, c->err as it is.
 */
static bool
over_cap(mig_ctx *c, const mig_txn *x, int64_t t0, mig_pace *pace, mig_progress *pr)
{
	char		note[200];

	/* Not a cancel by hand (pg_cancel_backend): that one stops the run. */
	if (strcmp(x->sqlstate, "57014") != 0 || mig_interrupted() || cid_clock_monotonic_ms() - t0 < pace->cap_ms)
		return false;
	if (!mig_pace_shrink(pace))
	{
		snprintf(c->err, sizeof(c->err), "a batch of one row took more than %lld ms and was cancelled, "
				 "again and again: something holds the table (chronoid migrate status, pg_stat_activity)",
				 (long long) pace->cap_ms);
		return false;
	}
	snprintf(note, sizeof(note), "a batch took more than %lld ms (writers would wait as long on its rows): "
			 "rolled back, trying %lld rows", (long long) pace->cap_ms, (long long) pace->batch);
	mig_progress_update(pr, pr->done, note);
	c->err[0] = '\0';
	return true;
}

/*
 * The backfill's rate as status shows it: rows given an ID per second of
 * wall time (pauses and waits for replicas included), smoothed over the
 * last batches, stored with each batch so that status reads it at once.
 */
typedef struct batch_rate
{
	int64_t		last_ms;		/* the previous batch's commit (or the start) */
	double		smooth;			/* rows/s, 0 before the first batch */
} batch_rate;

/* The rate after a batch that set rows, as text for the state row. */
static void
batch_rate_step(batch_rate *r, int64_t rows, char *buf, size_t len)
{
	int64_t		now = cid_clock_monotonic_ms();
	double		inst = (double) rows * 1000.0 / (double) (now - r->last_ms > 0 ? now - r->last_ms : 1);

	r->smooth = r->smooth > 0 ? 0.7 * r->smooth + 0.3 * inst : inst;
	r->last_ms = now;
	snprintf(buf, len, "%.1f", r->smooth);
}

/*
 * One batch: the owner's rows, the tool's cursor and the rate committed
 * together.  *got rows read, *set given an ID, cursor the last old key
 * read.  false with c->err set.
 */
static bool
one_batch(mig_ctx *c, mig_txn *x, const char *sql, const char *state_sql, const mig_pace *pace,
		  batch_rate *rate, bool from_cursor, char *cursor, size_t cursorlen, int64_t *got, int64_t *set)
{
	char		n[24],
				r[32];
	const char *args[2] = {n, cursor};
	PGresult   *res;

	snprintf(n, sizeof(n), "%lld", (long long) pace->batch);
	if (!mig_txn_begin_capped(x, c->conn, false, -1, pace->cap_ms, c->err, sizeof(c->err)))
		return false;
	/* The table's triggers do not fire on the new column's values (migrate_triggers.c). */
	res = mig_trig_rows(c, x, &c->t.owner, sql, from_cursor ? 2 : 1, args);
	if (res == NULL)
	{
		mig_txn_rollback(x);
		return false;
	}
	*got = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	*set = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	if (*got > 0)
	{
		const char *params[3] = {PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 2), r};
		PGresult   *r2;

		batch_rate_step(rate, *set, r, sizeof(r));
		r2 = mig_query(c, state_sql, 3, params);

		if (r2 == NULL)
		{
			PQclear(res);
			mig_txn_rollback(x);
			return false;
		}
		PQclear(r2);
		snprintf(cursor, cursorlen, "%s", PQgetvalue(res, 0, 0));
	}
	PQclear(res);
	return mig_txn_commit(x);
}

bool
mig_backfill(mig_ctx *c)
{
	mig_buf		first = {0},
				next = {0},
				state = {0};
	mig_pace	pace;
	mig_progress pr;
	batch_rate	rate = {cid_clock_monotonic_ms(), 0};
	char		cursor[256];
	bool		have_cursor = c->st.has_cursor;
	int64_t		done = c->st.rows_done;
	int64_t		sample_ms = cid_clock_monotonic_ms(),
				sample_rows = done;
	bool		ok = true;
	char		what[300];

	if (c->t.ts_q[0] != '\0' && strcmp(c->st.target, "snowflake") == 0 && !build_map(c))
		return false;
	snprintf(cursor, sizeof(cursor), "%s", c->st.cursor);
	mig_sql_batch(c, &first, false);
	mig_sql_batch(c, &next, true);
	mig_sql_batch_state(c, &state);
	mig_pace_init(&pace, c->o->batch, c->o->pause_ms);
	snprintf(what, sizeof(what), "backfill %s", c->t.qname);
	mig_progress_start(&pr, what, c->t.rows_est > done ? c->t.rows_est : done, done, c->o->progress == 1);
	for (;;)
	{
		int64_t		t0,
					took,
					got,
					set;
		mig_txn		x;

		if (mig_interrupted())
		{
			mig_progress_end(&pr);
			snprintf(c->err, sizeof(c->err), "interrupted after %lld rows; run again to continue from there",
					 (long long) done);
			ok = false;
			break;
		}
		if (!wait_for_replicas(c, &pr))
		{
			if (c->err[0] == '\0' || mig_interrupted())
				snprintf(c->err, sizeof(c->err), "interrupted while waiting for replication; run again to continue");
			ok = false;
			break;
		}
		t0 = cid_clock_monotonic_ms();
		if (!one_batch(c, &x, have_cursor ? next.s : first.s, state.s, &pace, &rate, have_cursor,
					   cursor, sizeof(cursor), &got, &set))
		{
			/* The cursor moves only with a committed batch: the same rows again, fewer. */
			if (over_cap(c, &x, t0, &pace, &pr))
				continue;
			mig_err_around(c, "backfill batch failed: ",
						   " (run again to continue: the batches before it are kept)");
			ok = false;
			break;
		}
		took = cid_clock_monotonic_ms() - t0;
		if (got == 0)
			break;
		have_cursor = true;
		done += set;
		if (pr.total < done)
			pr.total = done;
		if (cid_clock_monotonic_ms() - sample_ms >= MIG_SAMPLE_MS)
			mig_size_forecast(c, 0, (double) (done - sample_rows) * 1000.0 / (double) (cid_clock_monotonic_ms() - sample_ms),
							  pr.total - done);
		mig_progress_update(&pr, done, NULL);
		mig_sleep_ms(mig_pace_after(&pace, got, took));
	}
	if (ok)
		mig_progress_end(&pr);
	c->st.rows_done = done;
	mig_buf_free(&first);
	mig_buf_free(&next);
	mig_buf_free(&state);
	return ok;
}

/*
 * A statement on ch's row of the state ($1 the table, $2 the child, $3
 * the constraint; fmt's %s the state schema).  NULL with c->err set.
 */
static PGresult *
child_state(mig_ctx *c, const mig_child *ch, const char *fmt)
{
	char		relid[16],
				child[16];
	const char *params[3] = {relid, child, ch->con_raw};
	mig_buf		b = {0};
	PGresult   *res;

	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	snprintf(child, sizeof(child), "%u", ch->relid);
	mig_buf_printf(&b, fmt, c->state_q);
	res = mig_query(c, b.s, 3, params);
	mig_buf_free(&b);
	return res;
}

static bool
child_blocks(mig_ctx *c, const mig_child *ch, int64_t *nblocks, int64_t *next)
{
	PGresult   *res = child_state(c, ch,
								  "SELECT pg_catalog.pg_relation_size($2::pg_catalog.oid)"
								  " / pg_catalog.current_setting('block_size')::pg_catalog.int8, m.next_block"
								  " FROM %s.migration_child m WHERE m.relid = $1::pg_catalog.oid"
								  " AND m.child = $2::pg_catalog.oid AND m.constraint_name = $3");

	if (res == NULL)
		return false;
	*nblocks = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	*next = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	PQclear(res);
	return true;
}

bool
mig_backfill_children(mig_ctx *c)
{
	int			i;

	for (i = 0; i < c->t.nchildren; i++)
	{
		mig_child  *ch = &c->t.children[i];
		mig_buf		sql = {0},
					state = {0};
		mig_pace	pace;
		mig_progress pr;
		batch_rate	rate = {cid_clock_monotonic_ms(), 0};
		char		what[300];
		int64_t		nblocks,
					next,
					done = ch->done_rows,
					sample_ms = cid_clock_monotonic_ms(),
					sample_rows = done;

		if (ch->done)
			continue;
		mig_sql_child_batch(c, ch, &sql);
		mig_sql_child_state(c, ch, &state);
		/* A batch is a range of pages: about 50 rows each. */
		mig_pace_init(&pace, c->o->batch, c->o->pause_ms);
		snprintf(what, sizeof(what), "backfill %s.%s", ch->qname, ch->new_q);
		mig_progress_start(&pr, what, ch->rows_est > done ? ch->rows_est : done, done, c->o->progress == 1);
		for (;;)
		{
			char		from[24],
						to[24];
			const char *args[2] = {from, to};
			mig_txn		x;
			PGresult   *res;
			int64_t		t0,
						took,
						set,
						pages;

			if (mig_interrupted())
			{
				mig_progress_end(&pr);
				snprintf(c->err, sizeof(c->err), "interrupted in %s; run again to continue from there", ch->qname);
				mig_buf_free(&sql);
				mig_buf_free(&state);
				return false;
			}
			if (!wait_for_replicas(c, &pr))
			{
				mig_buf_free(&sql);
				mig_buf_free(&state);
				if (c->err[0] == '\0')
					snprintf(c->err, sizeof(c->err), "interrupted while waiting for replication");
				return false;
			}
			if (!child_blocks(c, ch, &nblocks, &next))
			{
				mig_buf_free(&sql);
				mig_buf_free(&state);
				return false;
			}
			if (next >= nblocks)
				break;
			pages = pace.batch / 50 > 0 ? pace.batch / 50 : 1;
			snprintf(from, sizeof(from), "%lld", (long long) next);
			next += pages;
			snprintf(to, sizeof(to), "%lld", (long long) next);
			t0 = cid_clock_monotonic_ms();
			/* The owner's rows and the tool's page cursor, committed together. */
			res = NULL;
			if (mig_txn_begin_capped(&x, c->conn, false, -1, pace.cap_ms, c->err, sizeof(c->err)))
			{
				res = mig_trig_rows(c, &x, &ch->owner, sql.s, 2, args);
				if (res != NULL)
				{
					char		r[32];
					const char *params[4] = {to, PQgetvalue(res, 0, 0), ch->con_raw, r};
					PGresult   *r2;

					batch_rate_step(&rate, strtoll(PQgetvalue(res, 0, 0), NULL, 10), r, sizeof(r));
					r2 = mig_query(c, state.s, 4, params);

					if (r2 == NULL || !mig_txn_commit(&x))
					{
						PQclear(res);
						res = NULL;
					}
					PQclear(r2);
				}
				if (res == NULL)
					mig_txn_rollback(&x);
			}
			/* The page cursor moves only with a committed batch: the same pages again, fewer. */
			if (res == NULL && over_cap(c, &x, t0, &pace, &pr))
				continue;
			if (res == NULL)
			{
				mig_buf_free(&sql);
				mig_buf_free(&state);
				return false;
			}
			took = cid_clock_monotonic_ms() - t0;
			set = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
			PQclear(res);
			done += set;
			if (pr.total < done)
				pr.total = done;
			/* When the table's backfill was done before this run, the first child is the sample. */
			if (cid_clock_monotonic_ms() - sample_ms >= MIG_SAMPLE_MS)
				mig_size_forecast(c, 1 + i, (double) (done - sample_rows) * 1000.0 /
								  (double) (cid_clock_monotonic_ms() - sample_ms), pr.total - done);
			mig_progress_update(&pr, done, NULL);
			mig_sleep_ms(mig_pace_after(&pace, pages * 50, took));
		}
		mig_progress_end(&pr);
		mig_buf_free(&sql);
		mig_buf_free(&state);
		{
			PGresult   *res = child_state(c, ch, "UPDATE %s.migration_child SET done = true"
										  " WHERE relid = $1::pg_catalog.oid AND child = $2::pg_catalog.oid"
										  " AND constraint_name = $3");

			if (res == NULL)
				return false;
			PQclear(res);
			ch->done = true;
		}
	}
	return true;
}
