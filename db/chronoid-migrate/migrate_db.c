/*
 * migrate_db.c — how "chronoid migrate" talks to the server: statements
 * with the state table's trust check, DDL that waits a bounded time for
 * its lock and tries again, one migrate per table at a time, and the
 * signals that stop a run between two batches.
 */
#define _GNU_SOURCE

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"
#include "pq_internal.h"

/* A statement waits at most this long; a batch or an index build longer. */
#define MIG_STMT_TIMEOUT_MS 0

void
mig_buf_printf(mig_buf *b, const char *fmt,...)
{
	va_list		ap;
	int			n;

	for (;;)
	{
		size_t		room = b->cap - b->len;

		va_start(ap, fmt);
		n = b->s == NULL ? -1 : vsnprintf(b->s + b->len, room, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t) n < room)
		{
			b->len += (size_t) n;
			return;
		}
		{
			size_t		want = b->cap * 2 + (n > 0 ? (size_t) n : 0) + 256;
			char	   *s = realloc(b->s, want);

			if (s == NULL)
			{
				/* Out of memory: keep what there is; the statement will fail visibly. */
				return;
			}
			b->s = s;
			b->cap = want;
			if (b->len == 0)
				b->s[0] = '\0';
		}
	}
}

void
mig_buf_reset(mig_buf *b)
{
	b->len = 0;
	if (b->s != NULL)
		b->s[0] = '\0';
}

void
mig_buf_free(mig_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void
mig_script_as(mig_script *s, int who)
{
	if (s->n > 0 && s->seg[s->n - 1].who == who)
		return;
	if (s->n == s->cap)
	{
		int			cap = s->cap ? s->cap * 2 : 8;
		mig_seg    *seg = realloc(s->seg, sizeof(*seg) * (size_t) cap);

		if (seg == NULL)
			return;				/* out of memory: the next printf goes to the last segment */
		s->seg = seg;
		s->cap = cap;
	}
	s->seg[s->n].who = who;
	memset(&s->seg[s->n].sql, 0, sizeof(mig_buf));
	s->n++;
}

void
mig_script_printf(mig_script *s, const char *fmt,...)
{
	va_list		ap;
	char	   *text = NULL;
	int			n;

	if (s->n == 0)
		mig_script_as(s, MIG_AS_ME);
	if (s->n == 0)
		return;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n >= 0)
		mig_buf_printf(&s->seg[s->n - 1].sql, "%s", text);
	free(text);
}

void
mig_script_free(mig_script *s)
{
	int			i;

	for (i = 0; i < s->n; i++)
		mig_buf_free(&s->seg[i].sql);
	free(s->seg);
	memset(s, 0, sizeof(*s));
}

const mig_owner *
mig_who(const mig_ctx *c, int who)
{
	if (who == MIG_AS_TABLE)
		return &c->t.owner;
	if (who >= 0 && who < c->t.nchildren)
		return &c->t.children[who].owner;
	if (who >= MIG_AS_VIEW0 && who - MIG_AS_VIEW0 < c->nviews)
		return &c->views[who - MIG_AS_VIEW0].owner;
	return NULL;
}

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void) sig;
	interrupted = 1;
}

void
mig_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool
mig_interrupted(void)
{
	return interrupted != 0;
}

bool
mig_connect(mig_ctx *c)
{
	c->conn = cid_pq_connect(c->o->conninfo, "chronoid-migrate", 10000, c->err, sizeof(c->err));
	if (c->conn == NULL)
		return false;
	if (!mig_check_session(c->conn, c->err, sizeof(c->err)))
		return false;
	/* The tool's own statements must not be cut short by a role's default. */
	return mig_do(c, "SET statement_timeout = 0") &&
		mig_do(c, "SET idle_in_transaction_session_timeout = 0");
}

PGresult *
mig_query(mig_ctx *c, const char *sql, int nparams, const char *const *params)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(c->conn, sql, nparams, params, MIG_STMT_TIMEOUT_MS, &broken,
								  c->err, sizeof(c->err));

	if (res != NULL && !cid_pq_ok(res))
	{
		PQclear(res);
		return NULL;
	}
	return res;
}

bool
mig_do(mig_ctx *c, const char *sql)
{
	PGresult   *res = mig_query(c, sql, 0, NULL);

	PQclear(res);
	return res != NULL;
}

/* Lock not available (55P03), deadlock (40P01), serialization (40001). */
static bool
retryable(const char *state)
{
	return strcmp(state, "55P03") == 0 || strcmp(state, "40P01") == 0 || strcmp(state, "40001") == 0;
}

/*
 * One try of a script; *again tells whether a failure was a lock wait
 * worth retrying.  In a transaction when txn (each segment as its role),
 * else a statement alone (CREATE INDEX CONCURRENTLY, as the tool: the
 * server builds an index as the table's owner).
 */
static bool
try_once(mig_ctx *c, const mig_script *s, bool txn, bool strong, bool *again)
{
	*again = false;
	if (txn)
	{
		mig_txn		x;
		int			i;
		bool		ok;

		/*
		 * Only the strong locks are bounded: while one waits, every writer
		 * queues behind it.  VALIDATE takes SHARE UPDATE EXCLUSIVE, which
		 * no writer waits for, and may wait as long as the longest open
		 * transaction.
		 */
		if (!mig_txn_begin(&x, c->conn, false, strong ? c->o->lock_timeout_ms : 0, c->err, sizeof(c->err)))
			return false;
		ok = true;
		for (i = 0; ok && i < s->n; i++)
		{
			if (s->seg[i].sql.s == NULL)
				continue;
			ok = mig_txn_do(&x, mig_who(c, s->seg[i].who), s->seg[i].sql.s);
		}
		if (ok)
			ok = mig_txn_commit(&x);
		else
		{
			*again = retryable(x.sqlstate);
			mig_txn_rollback(&x);
		}
		if (!ok && !*again)
			*again = retryable(x.sqlstate);
		return ok;
	}
	else
	{
		bool		broken;
		PGresult   *res;
		bool		ok;

		if (!mig_do(c, "SET lock_timeout = 0"))
			return false;
		res = cid_pq_script(c->conn, s->seg[0].sql.s, MIG_STMT_TIMEOUT_MS, &broken, c->err, sizeof(c->err));
		ok = cid_pq_ok(res);
		if (!ok && res != NULL)
			*again = retryable(cid_pq_sqlstate(res));
		PQclear(res);
		return ok;
	}
}

static bool
with_retries(mig_ctx *c, const char *what, const mig_script *s, bool txn, bool strong)
{
	int			i;
	bool		again;

	for (i = 1;; i++)
	{
		if (try_once(c, s, txn, strong, &again))
			return true;
		if (!again || i >= c->o->retries || mig_interrupted())
			break;
		fprintf(stderr, "chronoid: %s: %s: lock not granted within %lld ms (try %d of %d), "
				"trying again\n", c->o->sub, what, (long long) c->o->lock_timeout_ms, i, c->o->retries);
		/* Let the writers that queued behind the attempt through first. */
		mig_sleep_ms(200 + (int64_t) (i < 10 ? i : 10) * 100);
	}
	{
		mig_buf		w = {0};

		mig_buf_printf(&w, "%s: ", what);
		mig_err_around(c, w.s != NULL ? w.s : "",
					   again ? " (raise --lock-timeout or --retries, or run it when the table is quieter)" : "");
		mig_buf_free(&w);
	}
	return false;
}

/* sql as one segment of the tool's own. */
static bool
with_retries_sql(mig_ctx *c, const char *what, const char *sql, bool txn)
{
	mig_script	s = {0};
	bool		ok;

	mig_script_printf(&s, "%s", sql);
	ok = s.n == 1 && with_retries(c, what, &s, txn, true);
	mig_script_free(&s);
	return ok;
}

void
mig_err_around(mig_ctx *c, const char *before, const char *after)
{
	mig_buf		b = {0};

	mig_buf_printf(&b, "%s%s%s", before, c->err, after);
	if (b.s != NULL)
		snprintf(c->err, sizeof(c->err), "%.*s", (int) sizeof(c->err) - 1, b.s);
	mig_buf_free(&b);
}

bool
mig_ddl_txn(mig_ctx *c, const char *what, const char *sql)
{
	return with_retries_sql(c, what, sql, true);
}

bool
mig_ddl_alone(mig_ctx *c, const char *what, const char *sql)
{
	return with_retries_sql(c, what, sql, false);
}

bool
mig_ddl_script(mig_ctx *c, const char *what, const mig_script *s, bool strong)
{
	return with_retries(c, what, s, true, strong);
}

PGresult *
mig_read_as(mig_ctx *c, int who, const char *sql, int nargs, const char *const *args)
{
	mig_txn		x;
	PGresult   *res;

	if (!mig_txn_begin(&x, c->conn, false, -1, c->err, sizeof(c->err)))
		return NULL;
	res = mig_txn_rows(&x, mig_who(c, who), sql, nargs, args);
	mig_txn_rollback(&x);
	return res;
}

/*
 * The state schema and its tables must be the caller's or a superuser's
 * (not merely a role the caller is a member of: a superuser is a member
 * of every role): another role's table could carry a trigger or a policy
 * that runs its code with the caller's rights, or lie about where a
 * migration stands.
 */
bool
mig_state_trust(mig_ctx *c)
{
	const char *params[1] = {c->o->schema};
	PGresult   *res = mig_query(c,
								"WITH n AS (SELECT n.oid, n.nspowner FROM pg_catalog.pg_namespace n WHERE n.nspname = $1),"
								" t AS (SELECT c.* FROM pg_catalog.pg_class c, n WHERE c.relnamespace = n.oid"
								"        AND (c.relname IN ('migration', 'migration_child') OR c.relname ~ '^migration_map_[0-9]+$'))"
								" SELECT pg_catalog.format('schema %I is owned by %I', $1, pg_catalog.pg_get_userbyid(n.nspowner))"
								"   FROM n JOIN pg_catalog.pg_roles o ON o.oid = n.nspowner"
								"  WHERE NOT o.rolsuper AND o.rolname <> CURRENT_USER"
								" UNION ALL"
								" SELECT pg_catalog.format('%I.%I is owned by %I', $1, t.relname, pg_catalog.pg_get_userbyid(t.relowner))"
								"   FROM t JOIN pg_catalog.pg_roles o ON o.oid = t.relowner"
								"  WHERE NOT o.rolsuper AND o.rolname <> CURRENT_USER"
								" UNION ALL"
								" SELECT pg_catalog.format('%I.%I is not an ordinary table', $1, t.relname) FROM t WHERE t.relkind <> 'r'"
								" UNION ALL"
								" SELECT pg_catalog.format('%I.%I has triggers, rules or policies', $1, t.relname) FROM t"
								"  WHERE t.relhastriggers OR t.relhasrules OR t.relrowsecurity",
								1, params);
	bool		ok;

	if (res == NULL)
		return false;
	ok = PQntuples(res) == 0;
	if (!ok)
		snprintf(c->err, sizeof(c->err),
				 "refusing to keep state in schema %s: %s; it must belong to you or a superuser "
				 "(drop it, or pick another with --state-schema)", c->o->schema, PQgetvalue(res, 0, 0));
	PQclear(res);
	return ok;
}

bool
mig_state_setup(mig_ctx *c)
{
	mig_buf		b = {0};
	bool		ok;

	if (!mig_state_trust(c))
		return false;
	mig_buf_printf(&b,
				   "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('chronoid.migration'));"
				   "CREATE SCHEMA IF NOT EXISTS %s;"
				   "CREATE TABLE IF NOT EXISTS %s.migration ("
				   " relid pg_catalog.oid PRIMARY KEY,"
				   " table_name pg_catalog.text NOT NULL,"
				   " key_column pg_catalog.name NOT NULL,"
				   " target pg_catalog.text NOT NULL,"
				   " time_from pg_catalog.name,"
				   " step pg_catalog.text NOT NULL,"
				   " backfill_cursor pg_catalog.text,"
				   " rows_done pg_catalog.int8 NOT NULL DEFAULT 0,"
				   " node pg_catalog.int4,"
				   " cutoff pg_catalog.timestamptz,"
				   " started_at pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),"
				   " updated_at pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),"
				   " swapped_at pg_catalog.timestamptz);"
				   "COMMENT ON TABLE %s.migration IS 'chronoid migrate: where each table''s key move stands (docs/migrate.md)';"
				   "CREATE TABLE IF NOT EXISTS %s.migration_child ("
				   " relid pg_catalog.oid NOT NULL,"
				   " child pg_catalog.oid NOT NULL,"
				   " constraint_name pg_catalog.name NOT NULL,"
				   " fk_column pg_catalog.name NOT NULL,"
				   " actions pg_catalog.text NOT NULL,"
				   " fk_notnull pg_catalog.bool NOT NULL,"
				   " fk_indexed pg_catalog.bool NOT NULL,"
				   " tag pg_catalog.text NOT NULL,"
				   " next_block pg_catalog.int8 NOT NULL DEFAULT 0,"
				   " rows_done pg_catalog.int8 NOT NULL DEFAULT 0,"
				   " done pg_catalog.bool NOT NULL DEFAULT false,"
				   " PRIMARY KEY (relid, child, constraint_name));",
				   c->state_q, c->state_q, c->state_q, c->state_q);
	/* The check runs again inside: IF NOT EXISTS takes whatever another role made meanwhile. */
	ok = mig_do(c, "BEGIN");
	if (ok)
	{
		bool		broken;
		PGresult   *res = cid_pq_script(c->conn, b.s, 0, &broken, c->err, sizeof(c->err));

		ok = cid_pq_ok(res);
		PQclear(res);
	}
	ok = ok && mig_state_trust(c) && mig_do(c, "COMMIT");
	if (!ok)
		(void) cid_pq_do(c->conn, "ROLLBACK", 0, NULL, 0);
	mig_buf_free(&b);
	return ok;
}

bool
mig_lock_table(mig_ctx *c)
{
	char		relid[16];
	const char *params[1] = {relid};
	PGresult   *res;
	bool		ok;

	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	res = mig_query(c, "SELECT pg_catalog.pg_try_advisory_lock(pg_catalog.hashtext('chronoid.migrate'), $1::pg_catalog.int4)",
					1, params);
	if (res == NULL)
		return false;
	ok = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	if (!ok)
		snprintf(c->err, sizeof(c->err),
				 "another chronoid migrate is working on %s (one at a time per table); "
				 "wait for it, or stop it (it resumes later where it stopped)", c->t.qname);
	return ok;
}

bool
mig_state_load(mig_ctx *c)
{
	char		relid[16];
	const char *params[1] = {relid};
	mig_buf		b = {0};
	PGresult   *res;

	memset(&c->st, 0, sizeof(c->st));
	snprintf(relid, sizeof(relid), "%u", c->t.relid);
	{
		const char *p1[1] = {c->o->schema};

		/* No state table yet: no migration was ever started here. */
		res = mig_query(c, "SELECT pg_catalog.to_regclass(pg_catalog.quote_ident($1) || '.migration') IS NOT NULL",
						1, p1);
		if (res == NULL)
			return false;
		if (strcmp(PQgetvalue(res, 0, 0), "t") != 0)
		{
			PQclear(res);
			return true;
		}
		PQclear(res);
	}
	if (!mig_state_trust(c))
		return false;
	mig_buf_printf(&b, "SELECT step, target, key_column, coalesce(time_from, ''), backfill_cursor IS NOT NULL,"
				   " coalesce(backfill_cursor, ''), rows_done, coalesce(node, -1), coalesce(cutoff::pg_catalog.text, '')"
				   " FROM %s.migration WHERE relid = $1::pg_catalog.oid", c->state_q);
	res = mig_query(c, b.s, 1, params);
	mig_buf_free(&b);
	if (res == NULL)
		return false;
	if (PQntuples(res) == 1)
	{
		c->st.exists = true;
		if (!mig_step_parse(PQgetvalue(res, 0, 0), &c->st.step))
		{
			snprintf(c->err, sizeof(c->err), "the state table records an unknown step \"%s\" for %s",
					 PQgetvalue(res, 0, 0), c->t.qname);
			PQclear(res);
			return false;
		}
		snprintf(c->st.target, sizeof(c->st.target), "%s", PQgetvalue(res, 0, 1));
		snprintf(c->st.key, sizeof(c->st.key), "%s", PQgetvalue(res, 0, 2));
		snprintf(c->st.time_from, sizeof(c->st.time_from), "%s", PQgetvalue(res, 0, 3));
		c->st.has_cursor = strcmp(PQgetvalue(res, 0, 4), "t") == 0;
		snprintf(c->st.cursor, sizeof(c->st.cursor), "%s", PQgetvalue(res, 0, 5));
		c->st.rows_done = strtoll(PQgetvalue(res, 0, 6), NULL, 10);
		c->st.node = strtoll(PQgetvalue(res, 0, 7), NULL, 10);
		snprintf(c->st.cutoff, sizeof(c->st.cutoff), "%s", PQgetvalue(res, 0, 8));
	}
	PQclear(res);
	return true;
}

bool
mig_set_step(mig_ctx *c, enum mig_step s)
{
	mig_buf		b = {0};
	bool		ok;

	mig_buf_printf(&b, "UPDATE %s.migration SET step = '%s', updated_at = pg_catalog.now() WHERE relid = %u",
				   c->state_q, mig_step_name(s), c->t.relid);
	ok = mig_do(c, b.s);
	mig_buf_free(&b);
	if (ok)
		c->st.step = s;
	return ok;
}

static const char *const step_names[] = {
	"new", "added", "backfilled", "children", "checked", "indexed", "swapped", "done", "converted",
	"rolling_back"
};

const char *
mig_step_name(enum mig_step s)
{
	return step_names[s];
}

bool
mig_step_parse(const char *name, enum mig_step *out)
{
	size_t		i;

	for (i = 0; i < sizeof(step_names) / sizeof(step_names[0]); i++)
	{
		if (strcmp(step_names[i], name) == 0)
		{
			*out = (enum mig_step) i;
			return true;
		}
	}
	return false;
}
