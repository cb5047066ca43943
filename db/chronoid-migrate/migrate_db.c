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

/* A new segment as who; quiet ones are never shared with what follows. */
static void
script_seg(mig_script *s, int who, bool quiet)
{
	if (!quiet && s->n > 0 && s->seg[s->n - 1].who == who && !s->seg[s->n - 1].quiet)
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
	s->seg[s->n].quiet = quiet;
	memset(&s->seg[s->n].sql, 0, sizeof(mig_buf));
	s->n++;
}

void
mig_script_as(mig_script *s, int who)
{
	script_seg(s, who, false);
}

void
mig_script_quiet(mig_script *s, int who)
{
	script_seg(s, who, true);
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
	if (who >= MIG_AS_POLICY0 && who - MIG_AS_POLICY0 < c->npolicies)
		return &c->policies[who - MIG_AS_POLICY0].owner;
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
			const mig_seg *g = &s->seg[i];

			if (g->sql.s == NULL)
				continue;
			/* A segment that writes rows: no trigger fires on them (migrate_triggers.c). */
			ok = (!g->quiet || mig_trig_quiet(c, &x, true)) &&
				mig_txn_do(&x, mig_who(c, g->who), g->sql.s) &&
				(!g->quiet || (mig_trig_verify(c, &x) && mig_trig_quiet(c, &x, false)));
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

/* The table and its children, as an oid[] literal: the relations a strong lock is taken on. */
static void
relids(const mig_ctx *c, char *buf, size_t len)
{
	size_t		n;
	int			i;

	n = (size_t) snprintf(buf, len, "{%u", c->t.relid);
	for (i = 0; i < c->t.nchildren && n < len; i++)
		n += (size_t) snprintf(buf + n, len - n, ",%u", c->t.children[i].relid);
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

/* The slot of pid among those already spoken of (else a free one, else the last). */
static int
said_slot(const int *said, int pid)
{
	int			k;

	for (k = 0; k < 16; k++)
	{
		if (said[k] == pid)
			return k;
	}
	for (k = 0; k < 16; k++)
	{
		if (said[k] == 0)
			return k;
	}
	return 15;
}

/*
 * Autovacuum workers holding a lock on the table or a child.  PostgreSQL
 * cancels one that blocks a lock request for deadlock_timeout (1 s), but
 * the strong locks wait at most --lock-timeout, which stays below it (so
 * that a writer is never the one a deadlock aborts): run rewrites every
 * row, so the autovacuum that is due right after it would turn away every
 * try.  So the tool does what the lock manager would, before each try,
 * and only where PostgreSQL would: never a vacuum that prevents
 * wraparound, and only when the role may signal autovacuum (superuser;
 * pg_signal_autovacuum_worker from PostgreSQL 18).  Otherwise it waits
 * for the worker without holding or queueing for any lock, saying which
 * it waits for.  false (c->err set) only when interrupted or on an error.
 */
static bool
clear_autovacuum(mig_ctx *c, const char *what)
{
	char		oids[16 * (MIG_MAX_CHILDREN + 1) + 4];
	const char *params[1] = {oids};
	int			cancelled = 0;
	int			said_pid[16] = {0};
	int64_t		said_at[16] = {0};

	relids(c, oids, sizeof(oids));
	for (;;)
	{
		PGresult   *res;
		int			i,
					n;
		bool		waiting = false;

		res = mig_query(c,
						"SELECT a.pid, pg_catalog.string_agg(l.relation::pg_catalog.regclass::pg_catalog.text, ', '"
						"        ORDER BY l.relation::pg_catalog.regclass::pg_catalog.text),"
						"       COALESCE(a.query, ''),"
						/* Unseen (no pg_read_all_stats): taken for one that prevents wraparound. */
						"       COALESCE(a.query, '') !~ '^autovacuum: ' OR a.query ~ '[(]to prevent wraparound[)]$',"
						"       (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER)"
						"       OR CASE WHEN pg_catalog.to_regrole('pg_signal_autovacuum_worker') IS NULL THEN false"
						"          ELSE pg_catalog.pg_has_role('pg_signal_autovacuum_worker', 'USAGE') END"
						"  FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid"
						" WHERE a.backend_type = 'autovacuum worker' AND l.locktype = 'relation' AND l.granted"
						"   AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())"
						"   AND l.relation = ANY ($1::pg_catalog.oid[])"
						" GROUP BY a.pid, a.query ORDER BY a.pid", 1, params);
		if (res == NULL)
			return false;
		n = PQntuples(res);
		for (i = 0; i < n; i++)
		{
			int			pid = (int) strtol(PQgetvalue(res, i, 0), NULL, 10);
			const char *rels = PQgetvalue(res, i, 1);
			const char *query = PQgetvalue(res, i, 2);
			bool		wraparound = strcmp(PQgetvalue(res, i, 3), "t") == 0;
			bool		may = strcmp(PQgetvalue(res, i, 4), "t") == 0;
			bool		ok = false;
			int			k = said_slot(said_pid, pid);

			if (!wraparound && may && said_pid[k] == pid && cid_clock_monotonic_ms() - said_at[k] < 2000)
				continue;		/* cancelled just now: it is letting go */
			if (!wraparound && may && cancelled < 100)
			{
				char		p[16];
				const char *pp[1] = {p};
				PGresult   *r;

				snprintf(p, sizeof(p), "%d", pid);
				r = mig_query(c, "SELECT pg_catalog.pg_cancel_backend($1::pg_catalog.int4)", 1, pp);
				ok = r != NULL && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
				PQclear(r);
				if (ok)
				{
					cancelled++;
					said_pid[k] = pid;
					said_at[k] = cid_clock_monotonic_ms();
					fprintf(stderr, "chronoid: %s: %s: cancelled autovacuum pid %d (%s), which held a lock on %s, "
							"as PostgreSQL does after deadlock_timeout; autovacuum comes back to it later\n",
							c->o->sub, what, pid, query, rels);
				}
				c->err[0] = '\0';
			}
			if (ok)
				continue;
			if (!wraparound && may)
				continue;		/* cancelled again and again: let the try find out */
			waiting = true;
			/* Said once per worker, then every 30 s. */
			if (said_pid[k] != pid || cid_clock_monotonic_ms() - said_at[k] >= 30000)
			{
				if (wraparound)
					fprintf(stderr, "chronoid: %s: %s: waiting for autovacuum pid %d (%s), which holds a lock on %s; "
							"PostgreSQL never cancels a vacuum that prevents wraparound (nor does this tool one "
							"it cannot see); no lock is taken meanwhile, so writers go on\n",
							c->o->sub, what, pid, query, rels);
				else
					fprintf(stderr, "chronoid: %s: %s: waiting for autovacuum pid %d (%s), which holds a lock on %s; "
							"only a superuser (or, on PostgreSQL 18, a member of pg_signal_autovacuum_worker) may "
							"cancel it: SELECT pg_cancel_backend(%d) to go on at once; no lock is taken meanwhile, "
							"so writers go on\n", c->o->sub, what, pid, query, rels, pid);
				said_pid[k] = pid;
				said_at[k] = cid_clock_monotonic_ms();
			}
		}
		PQclear(res);
		if (n == 0)
			return true;
		if (mig_interrupted())
		{
			snprintf(c->err, sizeof(c->err), "interrupted while waiting for autovacuum");
			return false;
		}
		if (!waiting && cancelled >= 100)
			return true;
		/* A cancelled worker lets go within milliseconds; a waited-for one, when it is done. */
		mig_sleep_ms(waiting ? 500 : 20);
	}
}

/*
 * Who held a lock on the table or a child through a whole --lock-timeout
 * (their transaction is older than it): named after a try timed out, so
 * that the DBA sees what to wait for or stop.  "" when none is seen.
 */
static void
name_blockers(mig_ctx *c, char *out, size_t len)
{
	char		oids[16 * (MIG_MAX_CHILDREN + 1) + 4];
	char		ms[24];
	const char *params[2] = {oids, ms};
	PGresult   *res;
	char		keep[sizeof(c->err)];

	out[0] = '\0';
	relids(c, oids, sizeof(oids));
	snprintf(ms, sizeof(ms), "%lld", (long long) c->o->lock_timeout_ms);
	memcpy(keep, c->err, sizeof(keep));
	res = mig_query(c,
					"SELECT pg_catalog.string_agg(b, '; ' ORDER BY b) FROM (SELECT DISTINCT"
					"       pg_catalog.format('pid %s (%s)', l.pid, CASE WHEN a.backend_type IS NULL"
					/* Another role's session, without pg_read_all_stats: only its lock shows. */
					"         THEN l.mode || '; what it runs shows to a superuser or pg_read_all_stats'"
					"         ELSE pg_catalog.format('%s, %s, for %s s: %s', a.backend_type, COALESCE(a.state, 'state unknown'),"
					"              pg_catalog.round(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - a.xact_start)::pg_catalog.numeric, 1),"
					"              pg_catalog.left(pg_catalog.regexp_replace(COALESCE(a.query, '?'), '[[:space:]]+', ' ', 'g'), 80)) END) AS b"
					"  FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid"
					" WHERE l.locktype = 'relation' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()"
					"   AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())"
					"   AND l.relation = ANY ($1::pg_catalog.oid[])"
					"   AND (a.backend_type IS NULL"
					"        OR a.xact_start < pg_catalog.clock_timestamp() - $2::pg_catalog.int8 * interval '1 ms')"
					" LIMIT 3) s", 2, params);
	if (res != NULL && !PQgetisnull(res, 0, 0))
		snprintf(out, len, "; held by %s", PQgetvalue(res, 0, 0));
	PQclear(res);
	memcpy(c->err, keep, sizeof(keep));
}

static bool
with_retries(mig_ctx *c, const char *what, const mig_script *s, bool txn, bool strong)
{
	int			i;
	bool		again;
	char		held[1024] = "";
	mig_lockwait seen;

	memset(&seen, 0, sizeof(seen));
	for (i = 1;; i++)
	{
		if (txn && strong)
		{
			int			r;

			if (!clear_autovacuum(c, what))
				return false;
			/* A try that would only queue behind a long transaction is not made. */
			r = mig_lock_wait(c, &seen, s, what, i, held, sizeof(held));
			if (r < 0)
				return false;
			if (r == 0)
			{
				again = true;
				if (i >= c->o->retries)
					break;
				continue;
			}
		}
		if (try_once(c, s, txn, strong, &again))
			return true;
		held[0] = '\0';
		if (again && txn && strong)
			name_blockers(c, held, sizeof(held));
		if (!again || i >= c->o->retries || mig_interrupted())
			break;
		fprintf(stderr, "chronoid: %s: %s: lock not granted within %lld ms (try %d of %d%s), "
				"trying again\n", c->o->sub, what, (long long) c->o->lock_timeout_ms, i, c->o->retries, held);
		/* Let the writers that queued behind the attempt through first. */
		mig_sleep_ms(200 + (int64_t) (i < 10 ? i : 10) * 100);
	}
	{
		mig_buf		w = {0};
		mig_buf		a = {0};

		mig_buf_printf(&w, "%s: ", what);
		if (again)
			mig_buf_printf(&a, "%s (raise --lock-timeout or --retries, or run it when the table is quieter)", held);
		mig_err_around(c, w.s != NULL ? w.s : "", a.s != NULL ? a.s : "");
		mig_buf_free(&w);
		mig_buf_free(&a);
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
 * The state schema and its tables must be the caller's or a superuser's,
 * and plain tables with nothing hanging on them (cid_pq_trusted): another
 * role's table could carry a trigger or a policy that runs its code with
 * the caller's rights, or lie about where a migration stands.
 */
bool
mig_state_trust(mig_ctx *c)
{
	char		why[512];
	int			trusted = cid_pq_trusted(c->conn, c->o->schema,
										 "^(migration|migration_child|migration_map_[0-9]+)$", 0,
										 why, sizeof(why), c->err, sizeof(c->err));

	if (trusted == 0)
		snprintf(c->err, sizeof(c->err),
				 "refusing to keep state in schema %s: %s; it must belong to you or a superuser "
				 "(drop it, or pick another with --state-schema)", c->o->schema, why);
	return trusted == 1;
}

/*
 * The comment the tool puts on a state schema it creates: the last finish
 * or rollback drops such a schema (and no other) once nothing is in it.
 */
#define STATE_MARK "chronoid migrate: where its migrations stand (docs/migrate.md); dropped by the tool when the last is finished or rolled back"

bool
mig_db_owner(mig_ctx *c)
{
	PGresult   *res = mig_query(c, "SELECT pg_catalog.quote_ident(r.rolname) FROM pg_catalog.pg_database d"
								" JOIN pg_catalog.pg_roles r ON r.oid = d.datdba"
								" WHERE d.datname = pg_catalog.current_database() AND NOT r.rolsuper"
								"   AND r.rolname <> CURRENT_USER", 0, NULL);

	if (res == NULL)
		return false;
	snprintf(c->dbowner_q, sizeof(c->dbowner_q), "%s", PQntuples(res) == 1 ? PQgetvalue(res, 0, 0) : "");
	PQclear(res);
	return true;
}

void
mig_sql_state_drop(const mig_ctx *c, mig_script *s)
{
	char	   *lit = PQescapeLiteral(c->conn, c->o->schema, strlen(c->o->schema));

	/*
	 * Locked first: a run on another table that set the state up meanwhile
	 * has its row in, or finds the tables gone and fails before any change
	 * (its row goes in with its first change).
	 */
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "LOCK TABLE %s.migration, %s.migration_child IN ACCESS EXCLUSIVE MODE;\n"
					  "DO $chronoid_mig$DECLARE n pg_catalog.oid := (SELECT x.oid FROM pg_catalog.pg_namespace x"
					  " WHERE x.nspname = %s);\n"
					  "BEGIN\n"
					  "  IF EXISTS (SELECT FROM %s.migration) OR EXISTS (SELECT FROM %s.migration_child) THEN RETURN; END IF;\n"
					  "  DROP TABLE %s.migration_child, %s.migration;\n"
					  "  IF pg_catalog.obj_description(n, 'pg_namespace') = '" STATE_MARK "'\n"
					  "     AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d\n"
					  "       WHERE d.refclassid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.refobjid = n) THEN\n"
					  "    DROP SCHEMA %s;\n"
					  "  END IF;\n"
					  "END$chronoid_mig$;\n",
					  c->state_q, c->state_q, lit != NULL ? lit : "''", c->state_q, c->state_q,
					  c->state_q, c->state_q, c->state_q);
	PQfreemem(lit);
}

bool
mig_state_setup(mig_ctx *c)
{
	mig_buf		b = {0};
	bool		ok;
	char	   *lit;

	if (!mig_state_trust(c) || !mig_db_owner(c))
		return false;
	lit = PQescapeLiteral(c->conn, c->o->schema, strlen(c->o->schema));
	mig_buf_printf(&b,
				   "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('chronoid.migration'));"
				   /* Marked when the tool makes it: a schema the DBA made stays theirs. */
				   "DO $chronoid_mig$BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace x WHERE x.nspname = %s) THEN"
				   " CREATE SCHEMA %s; COMMENT ON SCHEMA %s IS '" STATE_MARK "'; END IF; END$chronoid_mig$;",
				   lit != NULL ? lit : "''", c->state_q, c->state_q);
	PQfreemem(lit);
	mig_buf_printf(&b,
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
				   " swapped_at pg_catalog.timestamptz,"
				   " rows_per_second pg_catalog.float8);"
				   /* State tables made before the rate was kept. */
				   "ALTER TABLE %s.migration ADD COLUMN IF NOT EXISTS rows_per_second pg_catalog.float8;"
				   /* And before the database was (a restore's stale rows: mig_state_load). */
				   "ALTER TABLE %s.migration ADD COLUMN IF NOT EXISTS database_oid pg_catalog.oid;"
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
				   c->state_q, c->state_q, c->state_q, c->state_q, c->state_q);
	/*
	 * The database's owner dumps every schema (pg_dump reads each table it
	 * dumps): it may read the state, never write it, nor create anything
	 * in the schema, so nothing the tool reads or runs is the owner's.
	 */
	if (c->dbowner_q[0] != '\0')
		mig_buf_printf(&b, "GRANT USAGE ON SCHEMA %s TO %s;"
					   "GRANT SELECT ON %s.migration, %s.migration_child TO %s;",
					   c->state_q, c->dbowner_q, c->state_q, c->state_q, c->dbowner_q);
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
				   " coalesce(backfill_cursor, ''), rows_done, coalesce(node, -1), coalesce(cutoff::pg_catalog.text, ''),"
				   " database_oid IS NULL OR database_oid = " MIG_DATABASE_OID ", table_name"
				   " FROM %s.migration WHERE relid = $1::pg_catalog.oid", c->state_q);
	res = mig_query(c, b.s, 1, params);
	mig_buf_free(&b);
	if (res == NULL)
		return false;
	if (PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 9), "t") != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s.migration holds a migration of %s recorded in another database "
				 "(restored from its dump?), under the OID %s has here: it is not this table's; "
				 "delete that row (DELETE FROM %s.migration WHERE relid = %u) and clean up what it left by hand "
				 "(docs/migrate.md, \"Backups\")", c->state_q, PQgetvalue(res, 0, 10), c->t.qname,
				 c->state_q, c->t.relid);
		PQclear(res);
		return false;
	}
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
