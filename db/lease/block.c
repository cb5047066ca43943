/*
 * block.c — the block allocator's PostgreSQL side and its threads: the
 * sequence and the extension checked and bound once, reservations through
 * nextval_block() on the shared libpq layer (db/pq: search path pinned,
 * bounded waits), the prefetching thread, and next() over the blocks in
 * hand (docs/block.md).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "block_internal.h"
#include "lease_internal.h"
#include "pq_internal.h"

/*
 * The sequence by name ($1, resolved under the pinned search path), with
 * why it cannot be used ("" when it can): not a sequence, or a sequence or
 * schema that a role other than the caller or a superuser owns (it could
 * set the sequence back, or swap it for another, and make blocks repeat).
 * pg_database_owner (owner of schema public from PostgreSQL 15) counts as
 * the caller when the caller owns the database: it has no other member.
 * And the extension's nextval_block(), found as a member of the extension
 * rather than by name (NULL when the database has none): its OID and the
 * literal that names it for to_regprocedure() in each reservation.
 */
static const char resolve_sql[] =
"SELECT c.oid::pg_catalog.int8, f.nsp,"
"       CASE WHEN c.relkind <> 'S'"
"            THEN pg_catalog.format('%I.%I is not a sequence', sn.nspname, c.relname)"
"            WHEN c.relowner <> me.oid AND NOT co.rolsuper"
"                 AND NOT (co.rolname = 'pg_database_owner' AND me.dba)"
"            THEN pg_catalog.format('sequence %I.%I is owned by %s, which is neither you (%s) nor a superuser"
" and could set it back',"
"                                   sn.nspname, c.relname, co.rolname, CURRENT_USER)"
"            WHEN sn.nspowner <> me.oid AND NOT so.rolsuper"
"                 AND NOT (so.rolname = 'pg_database_owner' AND me.dba)"
"            THEN pg_catalog.format('schema %I is owned by %s, which is neither you (%s) nor a superuser"
" and could swap the sequence',"
"                                   sn.nspname, so.rolname, CURRENT_USER)"
"            WHEN NOT pg_catalog.has_sequence_privilege(c.oid, 'UPDATE')"
"            THEN pg_catalog.format('you (%s) lack UPDATE on it, which blocks need as setval() does:"
" GRANT UPDATE ON SEQUENCE %I.%I TO %I', CURRENT_USER, sn.nspname, c.relname, CURRENT_USER)"
"            ELSE '' END,"
"       f.oid, f.lit"
"  FROM pg_catalog.pg_class c"
"  JOIN pg_catalog.pg_namespace sn ON sn.oid = c.relnamespace"
"  JOIN pg_catalog.pg_roles co ON co.oid = c.relowner"
"  JOIN pg_catalog.pg_roles so ON so.oid = sn.nspowner,"
"       (SELECT r.oid, r.oid = (SELECT d.datdba FROM pg_catalog.pg_database d"
"                               WHERE d.datname = pg_catalog.current_database()) AS dba"
"          FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER) me"
"  LEFT JOIN (SELECT pg_catalog.quote_ident(fn.nspname) AS nsp, p.oid,"
"                    pg_catalog.quote_literal(pg_catalog.format("
"                        '%I.nextval_block(pg_catalog.regclass,pg_catalog.int8)', fn.nspname)) AS lit"
"               FROM pg_catalog.pg_proc p"
"               JOIN pg_catalog.pg_namespace fn ON fn.oid = p.pronamespace"
"               JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass"
"                                          AND d.objid = p.oid AND d.deptype = 'e'"
"               JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'"
"              WHERE p.proname = 'nextval_block') f ON true"
" WHERE c.oid = $1::pg_catalog.regclass";

/*
 * Check the sequence and the extension and bind both (cid_block_bind):
 * CID_EBLOCK_DB with errbuf set on refusal or failure.  The extension's
 * schemas must be trusted (cid_pq_ext_trusted): the reservation names
 * nextval_block() by schema, as SQL must, and whoever could rename that
 * schema or add to it could put their own function under that name, run
 * it with the caller's rights and hand out values again.
 */
static int
block_resolve(PGconn *conn, const cid_block_cfg *c, cid_block_bind *bind,
			  char *errbuf, size_t errlen)
{
	bool		broken;
	char		msg[512];
	char		why[512];
	const char *params[1] = {c->o.sequence};
	PGresult   *res = cid_pq_exec(conn, resolve_sql, 1, params, c->o.timeout_ms, &broken,
								  msg, sizeof(msg));
	cid_pq_ext	ext;
	int			rc = CID_EBLOCK_DB;
	int			trusted;

	if (res == NULL || !cid_pq_ok(res) || PQntuples(res) != 1)
		cid_pq_seterr(errbuf, errlen, "cannot use sequence %s: %s", c->o.sequence,
					  res == NULL || !cid_pq_ok(res) ? msg : "not found");
	else if (PQgetvalue(res, 0, 2)[0] != '\0')
		cid_pq_seterr(errbuf, errlen, "refusing sequence %s: %s", c->o.sequence,
					  PQgetvalue(res, 0, 2));
	else if (PQgetisnull(res, 0, 1))
		cid_pq_seterr(errbuf, errlen, "the database has no nextval_block(): "
					  "CREATE EXTENSION chronoid (0.6.0 or later), or ALTER EXTENSION chronoid UPDATE");
	else if ((trusted = cid_pq_ext_trusted(conn, c->o.timeout_ms, &ext, why, sizeof(why),
										   msg, sizeof(msg))) != 1)
	{
		if (trusted < 0)
			cid_pq_seterr(errbuf, errlen, "cannot check the extension chronoid: %s", msg);
		else
			cid_pq_seterr(errbuf, errlen, "refusing chronoid's nextval_block(): %s "
						  "(see docs/block.md, \"Trust\")", why);
	}
	else
	{
		const char *fmt = "SELECT first_id FROM %s.nextval_block($1::pg_catalog.oid::pg_catalog.regclass,"
			" $2::pg_catalog.int8) WHERE pg_catalog.to_regprocedure(%s)::pg_catalog.oid = $3::pg_catalog.oid";
		size_t		len = strlen(fmt) + strlen(PQgetvalue(res, 0, 1)) + strlen(PQgetvalue(res, 0, 4)) + 1;

		bind->sql = malloc(len);
		if (bind->sql == NULL)
			cid_pq_seterr(errbuf, errlen, "out of memory");
		else
		{
			snprintf(bind->sql, len, fmt, PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 4));
			snprintf(bind->seq_oid, sizeof(bind->seq_oid), "%s", PQgetvalue(res, 0, 0));
			snprintf(bind->fn_oid, sizeof(bind->fn_oid), "%s", PQgetvalue(res, 0, 3));
			rc = CID_OK;
		}
	}
	PQclear(res);
	return rc;
}

/*
 * Reserve n values: CID_OK with *first; CID_EBLOCK_EXHAUSTED when fewer
 * than n are left (2200H); CID_EBLOCK_DB with errbuf set, *broken when the
 * connection must be dropped.  The statement calls nextval_block() only
 * while its name still resolves to the function checked (bind->fn_oid):
 * no row otherwise, and a refusal.
 */
static int
block_fetch(PGconn *conn, const cid_block_bind *bind, int64_t n, int64_t timeout_ms,
			int64_t *first, bool *broken, char *errbuf, size_t errlen)
{
	char		nbuf[24];
	char		msg[512];
	const char *params[3] = {bind->seq_oid, nbuf, bind->fn_oid};
	PGresult   *res;
	int			rc = CID_EBLOCK_DB;

	snprintf(nbuf, sizeof(nbuf), "%" PRId64, n);
	*broken = false;
	res = cid_pq_exec(conn, bind->sql, 3, params, timeout_ms, broken, msg, sizeof(msg));
	if (res != NULL && cid_pq_ok(res) && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
	{
		char	   *end;

		errno = 0;
		*first = strtoll(PQgetvalue(res, 0, 0), &end, 10);
		if (errno == 0 && *end == '\0')
			rc = CID_OK;
		else
			cid_pq_seterr(errbuf, errlen, "nextval_block() returned \"%s\"", PQgetvalue(res, 0, 0));
	}
	else if (res != NULL && strcmp(cid_pq_sqlstate(res), "2200H") == 0)
	{
		cid_pq_seterr(errbuf, errlen, "%s", msg);
		rc = CID_EBLOCK_EXHAUSTED;
	}
	else if (res != NULL && cid_pq_ok(res) && PQntuples(res) == 0)
		cid_pq_seterr(errbuf, errlen, "refusing to reserve a block: chronoid's nextval_block() "
					  "is no longer the function checked at open (its schema changed): open the "
					  "allocator again");
	else
		cid_pq_seterr(errbuf, errlen, "cannot reserve a block: %s",
					  res == NULL || !cid_pq_ok(res) ? msg : "no row");
	PQclear(res);
	return rc;
}

/* Connect as chronoid-block and resolve; NULL with *rc and errbuf set. */
static PGconn *
block_connect(const cid_block_cfg *c, cid_block_bind *bind, char *errbuf, size_t errlen, int *rc)
{
	PGconn	   *conn = cid_pq_connect(c->conninfo, "chronoid-block", c->o.timeout_ms,
									  errbuf, errlen);

	*rc = CID_EBLOCK_DB;
	if (conn == NULL)
		return NULL;
	*rc = block_resolve(conn, c, bind, errbuf, errlen);
	if (*rc != CID_OK)
	{
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

/*
 * The prefetcher's new connection: checked again as at open (the
 * extension's schemas may have changed hands since), and bound to the
 * same sequence and the same nextval_block() or refused.
 */
static PGconn *
block_reconnect(const cid_block *b, char *errbuf, size_t errlen)
{
	cid_block_cfg c = b->cfg;
	cid_block_bind now = {0};
	PGconn	   *conn;
	int			rc;

	c.o.sequence = b->bind.seq_oid;
	conn = block_connect(&c, &now, errbuf, errlen, &rc);
	if (conn != NULL && (strcmp(now.fn_oid, b->bind.fn_oid) != 0 ||
						 strcmp(now.seq_oid, b->bind.seq_oid) != 0 ||
						 strcmp(now.sql, b->bind.sql) != 0))
	{
		cid_pq_seterr(errbuf, errlen, "refusing to reserve a block: chronoid's nextval_block() "
					  "is no longer the function checked at open: open the allocator again");
		PQfinish(conn);
		conn = NULL;
	}
	free(now.sql);
	return conn;
}

int
cid_block_reserve(const cid_block_opts *opts, int64_t n, int64_t *first,
				  char *errbuf, size_t errlen)
{
	cid_block_cfg c;
	cid_block_bind bind = {0};
	PGconn	   *conn;
	bool		broken;
	int			rc;

	cid_pq_seterr(errbuf, errlen, "%s", "");
	rc = cid_block_get_cfg(&c, opts, errbuf, errlen);
	if (rc < 0)
		return rc;
	if (first == NULL || n < 1 || n > CID_BLOCK_MAX_SIZE)
	{
		cid_pq_seterr(errbuf, errlen, "block size %lld is out of range (1 .. %lld)",
					  (long long) n, (long long) CID_BLOCK_MAX_SIZE);
		return CID_EINVAL;
	}
	conn = block_connect(&c, &bind, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;
	rc = block_fetch(conn, &bind, n, c.o.timeout_ms, first, &broken, errbuf, errlen);
	free(bind.sql);
	PQfinish(conn);
	return rc;
}

/* ------------------------------------------------------------------------
 * The allocator
 * ------------------------------------------------------------------------ */

static int64_t
block_now(const cid_block *b)
{
	return b->mono(b->mono_ctx);
}

/* Ask the prefetcher for a block sized on the rate since the window began. */
static void
block_request(cid_block *b)
{
	int64_t		now = block_now(b);

	b->size = cid_block_size_for((int64_t) (b->st.issued - b->win_issued), now - b->win_t0,
								 b->cfg.o.target_ms, b->size, b->cfg.o.min_size,
								 b->cfg.o.max_size);
	b->want = true;
	pthread_cond_signal(&b->wake);
}

/* The prefetched block becomes the current one; the window moves on. */
static void
block_switch(cid_block *b)
{
	b->win_issued = b->cur_issued;
	b->win_t0 = b->cur_t0;
	b->cur_issued = b->st.issued;
	b->cur_t0 = block_now(b);
	b->cur = b->next_first;
	b->cur_left = b->cur_n = b->next_n;
	b->have_next = false;
}

/* deadline = now + ms on CLOCK_MONOTONIC (the condition variables' clock). */
static struct timespec
block_deadline(int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t) (ms / 1000);
	ts.tv_nsec += (long) (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L)
	{
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/*
 * The prefetching thread: waits for a request, reserves with the
 * allocator's connection (made again after a failure that broke it), and
 * retries failures with a backoff of 50 ms doubling to 1 s.  An exhausted
 * sequence is asked for half as much, down to one value, before the
 * allocator calls it exhausted for good.
 */
static void *
block_main(void *arg)
{
	cid_block  *b = arg;
	int64_t		backoff_ms = 50;

	pthread_mutex_lock(&b->mu);
	for (;;)
	{
		int64_t		n;
		int64_t		first = 0;
		int			rc = CID_EBLOCK_DB;
		bool		broken = false;
		char		err[256];

		while (!b->stop && !b->want)
			pthread_cond_wait(&b->wake, &b->mu);
		if (b->stop)
			break;
		n = b->size;
		pthread_mutex_unlock(&b->mu);

		err[0] = '\0';
		if (b->conn == NULL)
			b->conn = block_reconnect(b, err, sizeof(err));
		if (b->conn != NULL)
			rc = block_fetch(b->conn, &b->bind, n, b->cfg.o.timeout_ms, &first,
							 &broken, err, sizeof(err));
		if (broken && b->conn != NULL)
		{
			PQfinish(b->conn);
			b->conn = NULL;
		}

		pthread_mutex_lock(&b->mu);
		if (rc == CID_OK)
		{
			b->next_first = first;
			b->next_n = n;
			b->have_next = true;
			b->want = false;
			b->st.blocks++;
			backoff_ms = 50;
			pthread_cond_broadcast(&b->have_block);
		}
		else if (rc == CID_EBLOCK_EXHAUSTED && b->size > 1)
			b->size = b->size / 2;
		else
		{
			snprintf(b->errmsg, sizeof(b->errmsg), "%s", err);
			if (rc == CID_EBLOCK_EXHAUSTED)
			{
				b->sticky = rc;
				b->want = false;
				pthread_cond_broadcast(&b->have_block);
				continue;
			}
			b->st.failures++;
			if (!b->stop)
			{
				struct timespec dl = block_deadline(backoff_ms);

				(void) pthread_cond_timedwait(&b->wake, &b->mu, &dl);
			}
			backoff_ms = backoff_ms >= 500 ? 1000 : backoff_ms * 2;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

static void
block_destroy(cid_block *b)
{
	free(b->bind.sql);
	free(b->conninfo);
	free(b);
}

int
cid_block_open(cid_block **out, const cid_block_opts *opts, char *errbuf, size_t errlen)
{
	cid_block  *b;
	pthread_condattr_t ca;
	int64_t		first = 0;
	bool		broken;
	int			rc;

	cid_pq_seterr(errbuf, errlen, "%s", "");
	if (out == NULL)
	{
		cid_pq_seterr(errbuf, errlen, "no place for the allocator (out is NULL)");
		return CID_EINVAL;
	}
	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
	{
		cid_pq_seterr(errbuf, errlen, "out of memory");
		return CID_EINVAL;
	}
	rc = cid_block_get_cfg(&b->cfg, opts, errbuf, errlen);
	if (rc < 0)
	{
		free(b);
		return rc;
	}
	/* the strings are the caller's: the thread keeps its own copy */
	if (b->cfg.conninfo != NULL && (b->conninfo = strdup(b->cfg.conninfo)) == NULL)
	{
		free(b);
		cid_pq_seterr(errbuf, errlen, "out of memory");
		return CID_EINVAL;
	}
	b->cfg.conninfo = b->conninfo;
	b->cfg.o.conninfo = b->conninfo;
	b->cfg.o.sequence = NULL;	/* bound by OID from here on */
	b->mono = opts->monotonic != NULL ? opts->monotonic : cid_lease_default_mono;
	b->mono_ctx = opts->monotonic != NULL ? opts->mono_ctx : NULL;
	b->fork_gen = cid_lease_fork_gen();

	{
		cid_block_cfg named = b->cfg;

		named.o.sequence = opts->sequence;
		b->conn = block_connect(&named, &b->bind, errbuf, errlen, &rc);
	}
	if (b->conn == NULL)
	{
		block_destroy(b);
		return rc;
	}
	b->size = cid_block_first_size(&b->cfg.o);
	for (;;)
	{
		rc = block_fetch(b->conn, &b->bind, b->size, b->cfg.o.timeout_ms, &first,
						 &broken, errbuf, errlen);
		if (rc != CID_EBLOCK_EXHAUSTED || b->size == 1)
			break;
		b->size /= 2;
	}
	if (rc != CID_OK)
	{
		PQfinish(b->conn);
		block_destroy(b);
		return rc;
	}
	b->st.blocks = 1;
	b->cur = first;
	b->cur_left = b->cur_n = b->size;
	b->cur_t0 = b->win_t0 = block_now(b);

	pthread_mutex_init(&b->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->have_block, &ca);
	pthread_cond_init(&b->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&b->thread, NULL, block_main, b) != 0)
	{
		PQfinish(b->conn);
		pthread_cond_destroy(&b->wake);
		pthread_cond_destroy(&b->have_block);
		pthread_mutex_destroy(&b->mu);
		block_destroy(b);
		cid_pq_seterr(errbuf, errlen, "cannot start the prefetching thread");
		return CID_EINVAL;
	}
	b->thread_started = true;
	*out = b;
	return CID_OK;
}

int
cid_block_next(cid_block *b, int64_t *id)
{
	bool		waited = false;
	struct timespec dl;

	if (b == NULL || id == NULL)
		return CID_EINVAL;
	if (cid_lease_fork_gen() != b->fork_gen)
		return CID_EBLOCK_FORKED;
	pthread_mutex_lock(&b->mu);
	for (;;)
	{
		if (b->cur_left > 0)
		{
			*id = b->cur;
			/* the last value of a block may be INT64_MAX: no step past it */
			if (--b->cur_left > 0)
				b->cur++;
			b->st.issued++;
			if (!b->have_next && !b->want && b->sticky == 0 &&
				cid_block_prefetch_due(0, b->cur_n, b->cur_n - b->cur_left,
									   b->cfg.o.prefetch_pct))
				block_request(b);
			pthread_mutex_unlock(&b->mu);
			return CID_OK;
		}
		if (b->have_next)
		{
			block_switch(b);
			continue;
		}
		if (b->sticky != 0)
			break;
		/* nothing in hand: wait for the prefetcher, at most wait_ms */
		if (!waited)
		{
			waited = true;
			b->st.waits++;
			if (!b->want)
				block_request(b);
			dl = block_deadline(b->cfg.o.wait_ms);
		}
		if (pthread_cond_timedwait(&b->have_block, &b->mu, &dl) == ETIMEDOUT &&
			!b->have_next && b->sticky == 0)
		{
			pthread_mutex_unlock(&b->mu);
			return CID_EBLOCK_DB;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return CID_EBLOCK_EXHAUSTED;
}

void
cid_block_get_stats(cid_block *b, cid_block_stats *out)
{
	if (out == NULL)
		return;
	memset(out, 0, sizeof(*out));
	if (b == NULL || cid_lease_fork_gen() != b->fork_gen)
		return;
	pthread_mutex_lock(&b->mu);
	*out = b->st;
	out->in_hand = b->cur_left + (b->have_next ? b->next_n : 0);
	out->size = b->size;
	pthread_mutex_unlock(&b->mu);
}

void
cid_block_errmsg(cid_block *b, char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return;
	buf[0] = '\0';
	if (b == NULL || cid_lease_fork_gen() != b->fork_gen)
		return;
	pthread_mutex_lock(&b->mu);
	snprintf(buf, len, "%s", b->errmsg);
	pthread_mutex_unlock(&b->mu);
}

void
cid_block_free(cid_block *b)
{
	if (b == NULL)
		return;
	/* In a child: no thread here, and the connection is the parent's. */
	if (cid_lease_fork_gen() != b->fork_gen)
	{
		block_destroy(b);
		return;
	}
	pthread_mutex_lock(&b->mu);
	b->stop = true;
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->mu);
	if (b->thread_started)
		pthread_join(b->thread, NULL);
	if (b->conn != NULL)
		PQfinish(b->conn);
	pthread_cond_destroy(&b->wake);
	pthread_cond_destroy(&b->have_block);
	pthread_mutex_destroy(&b->mu);
	block_destroy(b);
}
