/*
 * lease_pg.c — the PostgreSQL side of libchronoid_lease: the node_lease
 * table, acquire (lowest free number under a table lock, decided on the
 * server's clock), renewal (by the caller or a background thread with its
 * own connection and bounded waits), release, and listing.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "lease_internal.h"

/* Statement budget for the caller's own calls (setup, acquire, list). */
#define CALL_TIMEOUT_MS 30000

/* ------------------------------------------------------------------------
 * libpq with bounded waits
 * ------------------------------------------------------------------------ */

static void
trim_newline(char *s)
{
	size_t		n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static void
pq_err(char *errbuf, size_t errlen, const char *what, const char *msg)
{
	char		tmp[512];

	snprintf(tmp, sizeof(tmp), "%s", msg != NULL ? msg : "");
	trim_newline(tmp);
	cid_lease_seterr(errbuf, errlen, "%s: %s", what, tmp[0] != '\0' ? tmp : "unknown error");
}

static PGconn *
pq_connect_raw(const char *conninfo, int64_t timeout_ms, char *errbuf, size_t errlen)
{
	char		tmo[24];
	const char *keys[] = {"dbname", "application_name", "connect_timeout", NULL};
	const char *vals[] = {conninfo, "chronoid-lease", tmo, NULL};
	PGconn	   *conn;

	/* libpq rounds connect_timeout up to 2 s at least */
	snprintf(tmo, sizeof(tmo), "%" PRId64, timeout_ms / 1000 > 2 ? timeout_ms / 1000 : 2);
	conn = PQconnectdbParams(keys, vals, 1);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		pq_err(errbuf, errlen, "cannot connect", conn != NULL ? PQerrorMessage(conn) : "out of memory");
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

/*
 * Run one statement, waiting at most timeout_ms for its result: a server
 * that stops answering (a partition) cannot hang the caller.  On timeout
 * or a broken connection *broken is set and the caller drops the
 * connection.  Returns the result (caller clears) or NULL with errbuf set.
 */
static PGresult *
pq_exec(PGconn *conn, const char *sql, int nparams, const char *const *params,
		int64_t timeout_ms, bool *broken, char *errbuf, size_t errlen)
{
	PGresult   *res,
			   *last = NULL;
	int64_t		end = cid_lease_default_mono(NULL) + timeout_ms * 1000000;
	struct pollfd pfd;

	*broken = false;
	/* Without parameters, a script of several statements (setup) */
	if (!(nparams == 0 ? PQsendQuery(conn, sql)
		  : PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0)))
	{
		pq_err(errbuf, errlen, "cannot send", PQerrorMessage(conn));
		*broken = PQstatus(conn) != CONNECTION_OK;
		return NULL;
	}
	for (;;)
	{
		int64_t		left;

		if (!PQconsumeInput(conn))
		{
			pq_err(errbuf, errlen, "connection lost", PQerrorMessage(conn));
			*broken = true;
			PQclear(last);
			return NULL;
		}
		while (!PQisBusy(conn))
		{
			res = PQgetResult(conn);
			if (res == NULL)
			{
				if (last == NULL)
					pq_err(errbuf, errlen, "no result", PQerrorMessage(conn));
				else if (PQresultStatus(last) != PGRES_TUPLES_OK &&
						 PQresultStatus(last) != PGRES_COMMAND_OK)
				{
					const char *st = PQresultErrorField(last, PG_DIAG_SQLSTATE);
					bool		missing = st != NULL && (strcmp(st, "3F000") == 0 ||
														 strcmp(st, "42P01") == 0);

					pq_err(errbuf, errlen, missing ? "no lease table (run 'chronoid lease init' "
						   "or cid_lease_setup first)" : "statement failed",
						   PQresultErrorMessage(last));
					/* the caller may look at the SQLSTATE: keep the result */
				}
				return last;
			}
			PQclear(last);
			last = res;
		}
		left = (end - cid_lease_default_mono(NULL)) / 1000000;
		if (left <= 0)
		{
			cid_lease_seterr(errbuf, errlen, "no answer from the database within %" PRId64 " ms",
							 timeout_ms);
			*broken = true;
			PQclear(last);
			return NULL;
		}
		pfd.fd = PQsocket(conn);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (pfd.fd < 0 || (poll(&pfd, 1, (int) (left > 1000 ? 1000 : left)) < 0 && errno != EINTR))
		{
			cid_lease_seterr(errbuf, errlen, "connection lost: cannot wait on its socket");
			*broken = true;
			PQclear(last);
			return NULL;
		}
	}
}

static bool
res_ok(const PGresult *res)
{
	return res != NULL && (PQresultStatus(res) == PGRES_TUPLES_OK ||
						   PQresultStatus(res) == PGRES_COMMAND_OK);
}

/* Simple statement on conn; false (errbuf set) on failure. */
static bool
pq_do(PGconn *conn, const char *sql, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res = pq_exec(conn, sql, 0, NULL, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	bool		ok = res_ok(res);

	PQclear(res);
	return ok;
}

/*
 * Every connection first pins its search path, whatever the conninfo's
 * options or the role's settings say: with only pg_catalog (and pg_temp,
 * which is never searched for functions or operators) on it, no function,
 * operator or type that a user created can be chosen for a name in our
 * SQL, however exact its match (a public.*(bigint, interval) once made a
 * superuser's acquire run an ordinary role's code).  The statements also
 * qualify every function and table.
 */
static const char pin_sql[] =
"SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)";

/*
 * Trust check: the schema and chronoid's table in it, when they exist,
 * must be owned by the connecting role or by a superuser (a role that
 * could alter them could add a trigger or rule that runs as whoever uses
 * the table), and the table must have the shape setup gives it: an
 * ordinary table with exactly its columns and primary key, no trigger,
 * rule, policy, row-level security or inheritance.  One row per problem.
 */
static const char trust_sql[] =
"WITH me AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER),"
" n AS (SELECT n.oid, n.nspowner FROM pg_catalog.pg_namespace n WHERE n.nspname = $1),"
" t AS (SELECT c.* FROM pg_catalog.pg_class c, n"
"        WHERE c.relnamespace = n.oid AND c.relname = 'node_lease')"
" SELECT pg_catalog.format('schema %s is owned by %s, which is neither you (%s) nor a superuser',"
"               $1, pg_catalog.pg_get_userbyid(n.nspowner), CURRENT_USER)"
"   FROM n, pg_catalog.pg_roles o"
"  WHERE o.oid = n.nspowner AND n.nspowner <> (SELECT oid FROM me) AND NOT o.rolsuper"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease is owned by %s, which is neither you (%s) nor a superuser',"
"               $1, pg_catalog.pg_get_userbyid(t.relowner), CURRENT_USER)"
"   FROM t, pg_catalog.pg_roles o"
"  WHERE o.oid = t.relowner AND t.relowner <> (SELECT oid FROM me) AND NOT o.rolsuper"
" UNION ALL"
" SELECT pg_catalog.format('%s.node_lease is not an ordinary table', $1) FROM t WHERE t.relkind <> 'r'"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease has row-level security', $1) FROM t WHERE t.relrowsecurity"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease has triggers (%s)', $1, pg_catalog.string_agg(g.tgname, ', '))"
"   FROM t JOIN pg_catalog.pg_trigger g ON g.tgrelid = t.oid AND NOT g.tgisinternal HAVING pg_catalog.count(*) > 0"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease has rules (%s)', $1, pg_catalog.string_agg(w.rulename, ', '))"
"   FROM t JOIN pg_catalog.pg_rewrite w ON w.ev_class = t.oid HAVING pg_catalog.count(*) > 0"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease has policies (%s)', $1, pg_catalog.string_agg(p.polname, ', '))"
"   FROM t JOIN pg_catalog.pg_policy p ON p.polrelid = t.oid HAVING pg_catalog.count(*) > 0"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease takes part in inheritance', $1)"
"   FROM t WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i"
"                        WHERE i.inhrelid = t.oid OR i.inhparent = t.oid)"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease has other columns than chronoid lease init makes: %s', $1, cols)"
"   FROM (SELECT pg_catalog.string_agg(a.attname || ' ' || pg_catalog.format_type(a.atttypid, NULL),"
"                                      ', ' ORDER BY a.attnum) AS cols"
"           FROM t JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid"
"          WHERE a.attnum > 0 AND NOT a.attisdropped) x"
"  WHERE cols IS NOT NULL AND cols <> 'node integer, holder text, owner text,"
" acquired_at timestamp with time zone, renewed_at timestamp with time zone,"
" expires_at timestamp with time zone, last_ms bigint, ttl_ms bigint'"
" UNION ALL"
" SELECT pg_catalog.format('table %s.node_lease has no primary key on node', $1)"
"   FROM t WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i"
"                            WHERE i.indrelid = t.oid AND i.indisprimary"
"                              AND i.indnatts = 1 AND i.indkey[0] = 1)";

/* Pin and check conn; false with errbuf set (refusal or failure). */
static bool
pq_trust(PGconn *conn, const char *schema, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res;
	const char *params[1] = {schema};
	bool		ok;

	if (!pq_do(conn, pin_sql, errbuf, errlen))
		return false;
	res = pq_exec(conn, trust_sql, 1, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
	{
		PQclear(res);
		return false;
	}
	ok = PQntuples(res) == 0;
	if (!ok)
		cid_lease_seterr(errbuf, errlen, "refusing to use %s: %s (it must belong to you or a "
						 "superuser, as chronoid lease init creates it; drop it or change its owner)",
						 schema, PQgetvalue(res, 0, 0));
	PQclear(res);
	return ok;
}

/* A connection whose search path is pinned and whose schema is trusted. */
static PGconn *
pq_connect(const char *conninfo, const char *schema, int64_t timeout_ms,
		   char *errbuf, size_t errlen)
{
	PGconn	   *conn = pq_connect_raw(conninfo, timeout_ms, errbuf, errlen);

	if (conn != NULL && !pq_trust(conn, schema, errbuf, errlen))
	{
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

static int64_t
wall_ms(const cid_lease_opts *opts)
{
	int64_t		ns;

	if (opts != NULL && opts->env != NULL && opts->env->clock != NULL)
		ns = opts->env->clock(opts->env->ctx);
	else
		ns = cid_platform_clock(NULL);
	return ns < 0 ? 0 : ns / 1000000;
}

/* Options checked and completed: schema, ttl, grace, range. */
typedef struct lease_cfg
{
	cid_lease_opts o;
	char		schema[CID_LEASE_SCHEMA_MAX + 1];
	const char *conninfo;		/* NULL for the PG* variables */
} lease_cfg;

static int
get_cfg(lease_cfg *c, const cid_lease_opts *opts, char *errbuf, size_t errlen)
{
	if (opts == NULL)
		cid_lease_opts_default(&c->o);
	else
		c->o = *opts;
	if (!cid_lease_schema_ok(c->o.schema, c->schema))
	{
		cid_lease_seterr(errbuf, errlen, "invalid schema name (lower-case letters, digits and _, at most 63)");
		return CID_EINVAL;
	}
	if (c->o.ttl_ms < 1000 || c->o.ttl_ms > 86400000)
	{
		cid_lease_seterr(errbuf, errlen, "ttl must be 1 s .. 24 h");
		return CID_EINVAL;
	}
	if (c->o.grace_ms < 0)
		c->o.grace_ms = cid_lease_default_grace_ms(c->o.ttl_ms);
	if (c->o.clock_wait_ms < 0)
		c->o.clock_wait_ms = c->o.grace_ms;
	c->conninfo = (c->o.conninfo != NULL && c->o.conninfo[0] != '\0') ? c->o.conninfo : NULL;
	return CID_OK;
}

/* ------------------------------------------------------------------------
 * Setup
 * ------------------------------------------------------------------------ */

/*
 * The start of every one-shot call (setup, the by-token calls, list):
 * clear errbuf, check the options, then args_ok (the caller's own
 * arguments: CID_EINVAL), then connect (CID_ELEASE_DB).  NULL with *rc set
 * on failure.
 */
static PGconn *
call_begin(lease_cfg *c, const cid_lease_opts *opts, bool args_ok,
		   char *errbuf, size_t errlen, int *rc)
{
	PGconn	   *conn;

	cid_lease_seterr(errbuf, errlen, "%s", "");
	*rc = get_cfg(c, opts, errbuf, errlen);
	if (*rc < 0)
		return NULL;
	if (!args_ok)
	{
		*rc = CID_EINVAL;
		return NULL;
	}
	conn = pq_connect(c->conninfo, c->schema, CALL_TIMEOUT_MS, errbuf, errlen);
	if (conn == NULL)
		*rc = CID_ELEASE_DB;
	return conn;
}

int
cid_lease_setup(const cid_lease_opts *opts, char *errbuf, size_t errlen)
{
	lease_cfg	c;
	PGconn	   *conn;
	char		sql[1536];
	int			rc;

	conn = call_begin(&c, opts, true, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;

	/*
	 * IF NOT EXISTS is not safe against itself: two sessions creating the
	 * same table at once can fail on the catalog's unique index; an
	 * advisory lock makes concurrent setups take turns.
	 */
	snprintf(sql, sizeof(sql),
			 "CREATE SCHEMA IF NOT EXISTS %s;"
			 "CREATE TABLE IF NOT EXISTS %s.node_lease ("
			 " node int PRIMARY KEY CHECK (node >= 0),"
			 " holder text NOT NULL,"
			 " owner text,"
			 " acquired_at timestamptz,"
			 " renewed_at timestamptz,"
			 " expires_at timestamptz NOT NULL,"
			 " last_ms bigint,"
			 " ttl_ms bigint NOT NULL DEFAULT 0);"
			 "COMMENT ON TABLE %s.node_lease IS "
			 "'chronoid node leases for application servers (docs/cluster.md)'",
			 c.schema, c.schema, c.schema);
	rc = CID_OK;

	/*
	 * The trust check ran at connect; it runs again after the CREATEs, in
	 * their transaction, since IF NOT EXISTS takes whatever someone else
	 * created meanwhile.
	 */
	if (!pq_do(conn, "BEGIN", errbuf, errlen) ||
		!pq_do(conn, "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('chronoid.node_lease'))", errbuf, errlen) ||
		!pq_do(conn, sql, errbuf, errlen) ||
		!pq_trust(conn, c.schema, errbuf, errlen) ||
		!pq_do(conn, "COMMIT", errbuf, errlen))
	{
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		rc = CID_ELEASE_DB;
	}
	PQfinish(conn);
	return rc;
}

/* ------------------------------------------------------------------------
 * Acquire
 * ------------------------------------------------------------------------ */

static bool
retryable(const PGresult *res)
{
	const char *st = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	return st != NULL && (strcmp(st, "40001") == 0 || strcmp(st, "40P01") == 0 ||
						  strcmp(st, "23505") == 0);
}

static int
make_holder(char *out)
{
	uint8_t		b[CID_LEASE_HOLDER_LEN / 2];
	static const char hex[] = "0123456789abcdef";
	size_t		i;

	if (cid_platform_random(NULL, b, sizeof(b)) != 0)
		return CID_ERANDOM;
	for (i = 0; i < sizeof(b); i++)
	{
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[CID_LEASE_HOLDER_LEN] = '\0';
	return CID_OK;
}

/*
 * One try of the acquire transaction.  Returns CID_OK with *node,
 * *not_before set and the transaction committed; CID_EAGAIN when a
 * retryable error happened; another status otherwise.
 */
static int
acquire_once(PGconn *conn, const lease_cfg *c, const char *holder, const char *owner,
			 uint64_t lo, uint64_t hi, uint64_t *node, int64_t *not_before, int64_t *t0,
			 const cid_lease *l, char *errbuf, size_t errlen)
{
	char		sql[1536];
	char		p_lo[24],
				p_hi[24],
				p_grace[24],
				p_ttl[24],
				p_node[24],
				p_wall[24];
	const char *params[7];
	PGresult   *res;
	bool		broken,
				registry;
	int64_t		wall,
				nb = 0;

	if (!pq_do(conn, "BEGIN", errbuf, errlen))
		return CID_ELEASE_DB;
	/* Acquisitions are rare: take them one at a time. */
	snprintf(sql, sizeof(sql), "LOCK TABLE %s.node_lease IN SHARE ROW EXCLUSIVE MODE", c->schema);
	res = pq_exec(conn, sql, 0, NULL, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
	{
		int			rc = retryable(res) ? CID_EAGAIN : CID_ELEASE_DB;

		PQclear(res);
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		return rc;
	}
	PQclear(res);
	res = pq_exec(conn, "SELECT pg_catalog.to_regclass('snowflake.node_registry') IS NOT NULL",
				  0, NULL, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
	{
		PQclear(res);
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_DB;
	}
	registry = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);

	snprintf(p_lo, sizeof(p_lo), "%" PRIu64, lo);
	snprintf(p_hi, sizeof(p_hi), "%" PRIu64, hi);
	snprintf(p_grace, sizeof(p_grace), "%" PRId64, c->o.grace_ms);
	params[0] = p_lo;
	params[1] = p_hi;
	params[2] = p_grace;
	/* The lapse test runs on the server's clock only (docs/cluster.md). */
	snprintf(sql, sizeof(sql),
			 "SELECT g.n, l.last_ms, l.ttl_ms FROM pg_catalog.generate_series($1::int, $2::int) AS g(n)"
			 " LEFT JOIN %s.node_lease l ON l.node = g.n"
			 " WHERE (l.node IS NULL OR l.expires_at + $3::bigint * interval '1 millisecond'"
			 "        < pg_catalog.clock_timestamp())"
			 "%s ORDER BY g.n LIMIT 1",
			 c->schema,
			 registry ? " AND NOT EXISTS (SELECT 1 FROM snowflake.node_registry r WHERE r.node = g.n)" : "");
	res = pq_exec(conn, sql, 3, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
	{
		PQclear(res);
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_DB;
	}
	if (PQntuples(res) == 0)
	{
		PGresult   *cnt;

		PQclear(res);
		snprintf(sql, sizeof(sql),
				 "SELECT (SELECT pg_catalog.count(*) FROM %s.node_lease WHERE node BETWEEN $1::int AND $2::int"
				 " AND expires_at + $3::bigint * interval '1 millisecond' >= pg_catalog.clock_timestamp()),"
				 " %s",
				 c->schema,
				 registry ? "(SELECT pg_catalog.count(DISTINCT node) FROM snowflake.node_registry"
				 " WHERE node BETWEEN $1::int AND $2::int)" : "0");
		cnt = pq_exec(conn, sql, 3, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
		if (res_ok(cnt))
			cid_lease_seterr(errbuf, errlen,
							 "no free node number in %" PRIu64 "..%" PRIu64 ": %s held by leases, "
							 "%s claimed by database servers (snowflake.node_registry)",
							 lo, hi, PQgetvalue(cnt, 0, 0), PQgetvalue(cnt, 0, 1));
		PQclear(cnt);
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_FULL;
	}
	*node = (uint64_t) strtoull(PQgetvalue(res, 0, 0), NULL, 10);
	if (!PQgetisnull(res, 0, 1))
		nb = strtoll(PQgetvalue(res, 0, 1), NULL, 10) + strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	PQclear(res);

	/*
	 * The previous holder's IDs carry timestamps up to nb on its clock.  If
	 * this host's clock is behind that by more than we may wait, give up
	 * now, before the row changes.
	 */
	wall = wall_ms(&c->o);
	if (nb >= wall && nb - wall >= c->o.clock_wait_ms)
	{
		cid_lease_seterr(errbuf, errlen,
						 "node %" PRIu64 ": the previous holder's IDs reach %" PRId64
						 " ms, %" PRId64 " ms ahead of this host's clock (wait allowed: %"
						 PRId64 " ms); check the clocks", *node, nb, nb - wall, c->o.clock_wait_ms);
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_CLOCK;
	}

	snprintf(p_node, sizeof(p_node), "%" PRIu64, *node);
	snprintf(p_ttl, sizeof(p_ttl), "%" PRId64, c->o.ttl_ms);
	snprintf(p_wall, sizeof(p_wall), "%" PRId64, wall);
	params[0] = p_node;
	params[1] = holder;
	params[2] = owner;
	params[3] = p_ttl;
	params[4] = p_wall;
	snprintf(sql, sizeof(sql),
			 "INSERT INTO %s.node_lease AS t"
			 " (node, holder, owner, acquired_at, renewed_at, expires_at, last_ms, ttl_ms)"
			 " VALUES ($1::int, $2, $3, pg_catalog.clock_timestamp(), pg_catalog.clock_timestamp(),"
			 "  pg_catalog.clock_timestamp() + $4::bigint * interval '1 millisecond', $5::bigint, $4::bigint)"
			 " ON CONFLICT (node) DO UPDATE SET holder = excluded.holder, owner = excluded.owner,"
			 "  acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at,"
			 "  expires_at = excluded.expires_at, last_ms = excluded.last_ms,"
			 "  ttl_ms = excluded.ttl_ms",
			 c->schema);
	/* The deadline counts from before the server read its clock. */
	*t0 = cid_lease_mono_now(l);
	res = pq_exec(conn, sql, 5, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
	{
		int			rc = retryable(res) ? CID_EAGAIN : CID_ELEASE_DB;

		PQclear(res);
		(void) pq_do(conn, "ROLLBACK", NULL, 0);
		return rc;
	}
	PQclear(res);
	if (!pq_do(conn, "COMMIT", errbuf, errlen))
		return CID_EAGAIN;
	*not_before = nb;
	return CID_OK;
}

static void *renewer_main(void *arg);
static int	release_on(PGconn *conn, const char *schema, uint64_t node, const char *holder,
					   int64_t last_ms, char *errbuf, size_t errlen);

/* Undo a successful acquire that cannot be used after all. */
static void
give_back(cid_lease *l)
{
	if (release_on(l->conn, l->schema, l->node, l->holder, 0, NULL, 0) != CID_OK)
		return;					/* it lapses after its ttl instead */
}

static void
lease_destroy(cid_lease *l, bool close_conns)
{
	if (close_conns)
	{
		PQfinish(l->conn);
		PQfinish(l->rconn);
	}
	if (l->sync_ready)
	{
		pthread_cond_destroy(&l->cv);
		pthread_mutex_destroy(&l->mu);
	}
	free(l->conninfo);
	free(l);
}

int
cid_lease_acquire(cid_lease **out, const cid_lease_opts *opts, char *errbuf, size_t errlen)
{
	lease_cfg	c;
	cid_lease  *l;
	cid_layout	layout;
	uint64_t	lo,
				hi,
				node = 0,
				maxnode;
	int64_t		nb = 0,
				t0 = 0,
				wall;
	char		owner[256],
				host[128];
	int			rc,
				tries;
	pthread_condattr_t ca;

	cid_lease_seterr(errbuf, errlen, "%s", "");
	if (out == NULL)
		return CID_EINVAL;
	*out = NULL;
	rc = get_cfg(&c, opts, errbuf, errlen);
	if (rc < 0)
		return rc;
	if (c.o.layout != NULL)
		layout = *c.o.layout;
	else if (cid_layout_preset(&layout, "pgedge") != CID_OK)
		return CID_ELAYOUT;
	if (cid_layout_validate(&layout, errbuf, errlen) != CID_OK)
		return CID_ELAYOUT;
	maxnode = cid_layout_max_node(&layout);
	lo = c.o.lo;
	hi = c.o.hi;
	if (lo == 0 && hi == 0)
	{
		lo = 1;
		hi = maxnode;
	}
	if (lo > hi || hi > maxnode || hi > INT32_MAX)
	{
		cid_lease_seterr(errbuf, errlen, "invalid range %" PRIu64 "..%" PRIu64
						 " (layout %s: nodes 0..%" PRIu64 ")", lo, hi, layout.name, maxnode);
		return CID_EINVAL;
	}

	l = calloc(1, sizeof(*l));
	if (l == NULL)
	{
		cid_lease_seterr(errbuf, errlen, "out of memory");
		return CID_EINVAL;
	}
	memcpy(l->schema, c.schema, sizeof(c.schema));
	l->grace_ms = c.o.grace_ms;
	if (c.conninfo != NULL && (l->conninfo = strdup(c.conninfo)) == NULL)
	{
		lease_destroy(l, true);
		return CID_EINVAL;
	}
	l->mono = c.o.monotonic != NULL ? c.o.monotonic : cid_lease_default_mono;
	l->mono_ctx = c.o.mono_ctx;
	if (make_holder(l->holder) != CID_OK)
	{
		lease_destroy(l, true);
		cid_lease_seterr(errbuf, errlen, "no random bytes for the holder token");
		return CID_ERANDOM;
	}
	if (c.o.owner != NULL)
		snprintf(owner, sizeof(owner), "%s", c.o.owner);
	else
	{
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "?");
		host[sizeof(host) - 1] = '\0';
		snprintf(owner, sizeof(owner), "%s:%ld", host, (long) getpid());
	}

	l->conn = pq_connect(l->conninfo, l->schema, CALL_TIMEOUT_MS, errbuf, errlen);
	if (l->conn == NULL)
	{
		lease_destroy(l, true);
		return CID_ELEASE_DB;
	}
	rc = CID_EAGAIN;
	for (tries = 0; tries < 10 && rc == CID_EAGAIN; tries++)
		rc = acquire_once(l->conn, &c, l->holder, owner, lo, hi, &node, &nb, &t0, l,
						  errbuf, errlen);
	if (rc == CID_EAGAIN)
		rc = CID_ELEASE_DB;
	if (rc < 0)
	{
		lease_destroy(l, true);
		return rc;
	}
	cid_lease_seterr(errbuf, errlen, "%s", "");
	l->node = node;
	rc = cid_lease_init_local(l, node, &c.o, nb, t0);
	if (rc < 0)
	{
		give_back(l);
		lease_destroy(l, true);
		return rc;
	}
	l->grace_ms = c.o.grace_ms;

	if (pthread_mutex_init(&l->mu, NULL) == 0)
	{
		if (pthread_condattr_init(&ca) == 0 &&
			pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
			pthread_cond_init(&l->cv, &ca) == 0)
			l->sync_ready = true;
		else
			pthread_mutex_destroy(&l->mu);
		pthread_condattr_destroy(&ca);
	}
	if (!l->sync_ready)
	{
		cid_lease_seterr(errbuf, errlen, "cannot set up the renewer's lock");
		give_back(l);
		lease_destroy(l, true);
		return CID_EINVAL;
	}
	if (!c.o.no_renewer)
	{
		if (pthread_create(&l->thread, NULL, renewer_main, l) != 0)
		{
			cid_lease_seterr(errbuf, errlen, "cannot start the renewer thread");
			give_back(l);
			lease_destroy(l, true);
			return CID_EINVAL;
		}
		l->thread_started = true;
	}
	*out = l;

	/* Wait (bounded above) until this host's clock passes the previous IDs. */
	wall = wall_ms(&c.o);
	if (nb >= wall)
	{
		int64_t		ns = (nb - wall + 1) * 1000000;

		if (c.o.env != NULL && c.o.env->sleep != NULL)
			c.o.env->sleep(c.o.env->ctx, ns);
		else
			cid_platform_sleep(NULL, ns);
	}
	return CID_OK;
}

/* ------------------------------------------------------------------------
 * Renewal
 * ------------------------------------------------------------------------ */

static bool
forked(const cid_lease *l)
{
	return cid_lease_fork_gen() != l->fork_gen;
}

/* The UPDATE shared by renewals: only an unexpired row of this holder. */
static const char renew_sql[] =
"UPDATE %s.node_lease SET renewed_at = pg_catalog.clock_timestamp(),"
" expires_at = pg_catalog.clock_timestamp() + $3::bigint * interval '1 millisecond',"
" last_ms = GREATEST(coalesce(last_ms, 0), $4::bigint), ttl_ms = $3::bigint"
" WHERE node = $1::int AND holder = $2 AND expires_at > pg_catalog.clock_timestamp()"
" RETURNING (extract(epoch FROM expires_at - pg_catalog.clock_timestamp()) * 1000)::bigint";

static int
renew_on(cid_lease *l, PGconn **connp, char *errbuf, size_t errlen)
{
	char		sql[1024],
				p_node[24],
				p_ttl[24],
				p_last[24];
	const char *params[4];
	PGresult   *res;
	bool		broken;
	int64_t		t0,
				left;
	int			st;

	t0 = cid_lease_mono_now(l);
	st = cid_lease_check_at(l, t0);
	if (st != CID_OK)
		return st;
	left = (atomic_load(&l->deadline_ns) - t0) / 1000000;
	if (*connp == NULL)
	{
		*connp = pq_connect(l->conninfo, l->schema, left < l->ttl_ms / 3 ? left : l->ttl_ms / 3,
							errbuf, errlen);
		if (*connp == NULL)
			return CID_ELEASE_DB;
		/* t0 must come before the server reads its clock: take it again */
		t0 = cid_lease_mono_now(l);
		st = cid_lease_check_at(l, t0);
		if (st != CID_OK)
			return st;
		left = (atomic_load(&l->deadline_ns) - t0) / 1000000;
	}
	snprintf(sql, sizeof(sql), renew_sql, l->schema);
	snprintf(p_node, sizeof(p_node), "%" PRIu64, l->node);
	snprintf(p_ttl, sizeof(p_ttl), "%" PRId64, l->ttl_ms);
	snprintf(p_last, sizeof(p_last), "%" PRId64, cid_lease_last_ms(l));
	params[0] = p_node;
	params[1] = l->holder;
	params[2] = p_ttl;
	params[3] = p_last;

	/*
	 * Wait no longer than the lease has left: an answer after the deadline
	 * is of no use (the lease is dead by then), and a partitioned server
	 * must not keep this thread past it.
	 */
	res = pq_exec(*connp, sql, 4, params, left > 100 ? left : 100, &broken, errbuf, errlen);
	if (!res_ok(res))
	{
		PQclear(res);
		if (broken)
		{
			PQfinish(*connp);
			*connp = NULL;
		}
		return CID_ELEASE_DB;
	}
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		cid_lease_fence(l, CID_ELEASE_LOST);
		cid_lease_seterr(errbuf, errlen,
						 "node %" PRIu64 ": the server no longer has this lease (it lapsed on "
						 "the server's clock, was released or was taken): stop minting", l->node);
		return CID_ELEASE_LOST;
	}
	PQclear(res);
	/* Dead already?  Then it stays dead (sticky), whatever the server said. */
	st = cid_lease_check_at(l, cid_lease_mono_now(l));
	if (st != CID_OK)
		return st;
	cid_lease_extend(l, t0);
	return CID_OK;
}

int
cid_lease_renew(cid_lease *l, char *errbuf, size_t errlen)
{
	cid_lease_seterr(errbuf, errlen, "%s", "");
	if (l == NULL)
		return CID_EINVAL;
	if (forked(l))
		return CID_ELEASE_FORKED;
	return renew_on(l, (PGconn **) &l->conn, errbuf, errlen);
}

static int64_t
mono_ns_plus(int64_t ns)
{
	return cid_lease_default_mono(NULL) + ns;
}

static void *
renewer_main(void *arg)
{
	cid_lease  *l = arg;
	int64_t		period = l->ttl_ms * 1000000 / 3;
	int64_t		retry = l->ttl_ms * 1000000 / 10;
	int64_t		next = mono_ns_plus(period);
	char		msg[256];
	int			st;

	if (retry < 200000000)
		retry = 200000000;
	if (retry > period)
		retry = period;
	pthread_mutex_lock(&l->mu);
	for (;;)
	{
		while (!l->stop)
		{
			struct timespec ts;

			ts.tv_sec = (time_t) (next / 1000000000);
			ts.tv_nsec = (long) (next % 1000000000);
			if (pthread_cond_timedwait(&l->cv, &l->mu, &ts) == ETIMEDOUT)
				break;
		}
		if (l->stop)
			break;
		pthread_mutex_unlock(&l->mu);
		msg[0] = '\0';
		st = renew_on(l, (PGconn **) &l->rconn, msg, sizeof(msg));
		pthread_mutex_lock(&l->mu);
		if (st == CID_OK)
		{
			l->errmsg[0] = '\0';
			next = mono_ns_plus(period);
			continue;
		}
		snprintf(l->errmsg, sizeof(l->errmsg), "%s",
				 msg[0] != '\0' ? msg : cid_lease_strerror(st));
		if (st != CID_ELEASE_DB)
			break;				/* fenced: nothing more to renew */
		next = mono_ns_plus(retry);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int
cid_lease_start(cid_lease *l)
{
	if (l == NULL)
		return CID_EINVAL;
	if (forked(l))
		return CID_ELEASE_FORKED;
	if (l->thread_started)
		return CID_OK;
	if (pthread_create(&l->thread, NULL, renewer_main, l) != 0)
		return CID_EINVAL;
	l->thread_started = true;
	return CID_OK;
}

static void
stop_renewer(cid_lease *l)
{
	if (!l->thread_started)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->thread, NULL);
	l->thread_started = false;
}

void
cid_lease_errmsg(const cid_lease *l, char *buf, size_t len)
{
	cid_lease  *m = (cid_lease *) l;

	if (buf == NULL || len == 0)
		return;
	buf[0] = '\0';
	if (l == NULL || !l->sync_ready || forked(l))
		return;
	pthread_mutex_lock(&m->mu);
	snprintf(buf, len, "%s", l->errmsg);
	pthread_mutex_unlock(&m->mu);
}

/* ------------------------------------------------------------------------
 * Release, free
 * ------------------------------------------------------------------------ */

/*
 * Give a number back: the row stays with the highest timestamp its holder
 * used (last_ms) and ttl 0, so the next holder's IDs start after it; it
 * is free at once (expires_at = -infinity).
 */
static int
release_on(PGconn *conn, const char *schema, uint64_t node, const char *holder,
		   int64_t last_ms, char *errbuf, size_t errlen)
{
	char		sql[768],
				p_node[24],
				p_last[24];
	const char *params[3];
	PGresult   *res;
	bool		broken;
	int			rc;

	snprintf(sql, sizeof(sql),
			 "UPDATE %s.node_lease SET holder = '', expires_at = '-infinity',"
			 " renewed_at = pg_catalog.clock_timestamp(),"
			 " last_ms = GREATEST(coalesce(last_ms, 0), $3::bigint), ttl_ms = 0"
			 " WHERE node = $1::int AND holder = $2 AND holder <> ''"
			 " AND expires_at > pg_catalog.clock_timestamp() RETURNING 1",
			 schema);
	snprintf(p_node, sizeof(p_node), "%" PRIu64, node);
	snprintf(p_last, sizeof(p_last), "%" PRId64, last_ms);
	params[0] = p_node;
	params[1] = holder;
	params[2] = p_last;
	res = pq_exec(conn, sql, 3, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
		rc = CID_ELEASE_DB;
	else if (PQntuples(res) == 0)
	{
		cid_lease_seterr(errbuf, errlen,
						 "node %" PRIu64 " is not held by this token (lapsed, released or taken)",
						 node);
		rc = CID_ELEASE_LOST;
	}
	else
		rc = CID_OK;
	PQclear(res);
	return rc;
}

int
cid_lease_release(cid_lease *l, char *errbuf, size_t errlen)
{
	int			rc;

	cid_lease_seterr(errbuf, errlen, "%s", "");
	if (l == NULL)
		return CID_OK;
	if (forked(l))
	{
		/*
		 * The parent's connections share their sockets with us: closing
		 * them with PQfinish would end the parent's sessions.  Leave them
		 * (and their memory); free only ours.
		 */
		free(l->conninfo);
		free(l);
		return CID_ELEASE_FORKED;
	}
	stop_renewer(l);
	cid_lease_fence(l, CID_ELEASE_RELEASED);
	if (l->conn == NULL)
		l->conn = pq_connect(l->conninfo, l->schema, CALL_TIMEOUT_MS, errbuf, errlen);
	if (l->conn == NULL)
		rc = CID_ELEASE_DB;
	else
		rc = release_on(l->conn, l->schema, l->node, l->holder, cid_lease_last_ms(l),
						errbuf, errlen);
	lease_destroy(l, true);
	return rc;
}

void
cid_lease_free(cid_lease *l)
{
	if (l == NULL)
		return;
	if (forked(l))
	{
		free(l->conninfo);
		free(l);
		return;
	}
	stop_renewer(l);
	lease_destroy(l, true);
}

/* ------------------------------------------------------------------------
 * By token, and the list
 * ------------------------------------------------------------------------ */

static bool
holder_ok(const char *holder)
{
	return holder != NULL && holder[0] != '\0' && strlen(holder) <= 64;
}

int
cid_lease_renew_token(const cid_lease_opts *opts, uint64_t node, const char *holder,
					  int64_t *expires_in_ms, char *errbuf, size_t errlen)
{
	lease_cfg	c;
	PGconn	   *conn;
	char		sql[1024],
				p_node[24],
				p_ttl[24],
				p_last[24];
	const char *params[4];
	PGresult   *res;
	bool		broken;
	int			rc;

	conn = call_begin(&c, opts, holder_ok(holder) && node <= INT32_MAX, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;
	snprintf(sql, sizeof(sql), renew_sql, c.schema);
	snprintf(p_node, sizeof(p_node), "%" PRIu64, node);
	snprintf(p_ttl, sizeof(p_ttl), "%" PRId64, c.o.ttl_ms);
	snprintf(p_last, sizeof(p_last), "%" PRId64, wall_ms(&c.o));
	params[0] = p_node;
	params[1] = holder;
	params[2] = p_ttl;
	params[3] = p_last;
	res = pq_exec(conn, sql, 4, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
		rc = CID_ELEASE_DB;
	else if (PQntuples(res) == 0)
	{
		cid_lease_seterr(errbuf, errlen,
						 "node %" PRIu64 " is not held by this token, or its lease has lapsed "
						 "(a lapsed lease is never revived: acquire a new one)", node);
		rc = CID_ELEASE_LOST;
	}
	else
	{
		if (expires_in_ms != NULL)
			*expires_in_ms = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		rc = CID_OK;
	}
	PQclear(res);
	PQfinish(conn);
	return rc;
}

int
cid_lease_release_token(const cid_lease_opts *opts, uint64_t node, const char *holder,
						char *errbuf, size_t errlen)
{
	lease_cfg	c;
	PGconn	   *conn;
	int			rc;

	conn = call_begin(&c, opts, holder_ok(holder) && node <= INT32_MAX, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;
	rc = release_on(conn, c.schema, node, holder, wall_ms(&c.o), errbuf, errlen);
	PQfinish(conn);
	return rc;
}

int
cid_lease_list(const cid_lease_opts *opts, cid_lease_row_fn fn, void *ctx,
			   char *errbuf, size_t errlen)
{
	lease_cfg	c;
	PGconn	   *conn;
	char		sql[1536],
				p_grace[24];
	const char *params[1];
	PGresult   *res;
	bool		broken;
	int			rc,
				i;

	conn = call_begin(&c, opts, fn != NULL, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;
	snprintf(sql, sizeof(sql),
			 "SELECT node, holder, coalesce(owner, ''),"
			 " coalesce(pg_catalog.to_char(acquired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), ''),"
			 " CASE WHEN pg_catalog.isfinite(expires_at) THEN"
			 "  pg_catalog.to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') ELSE '' END,"
			 " CASE WHEN pg_catalog.isfinite(expires_at) THEN"
			 "  (extract(epoch FROM expires_at - pg_catalog.clock_timestamp()) * 1000)::bigint END,"
			 " coalesce(last_ms, 0), ttl_ms,"
			 " expires_at + $1::bigint * interval '1 millisecond' >= pg_catalog.clock_timestamp()"
			 " FROM %s.node_lease ORDER BY node",
			 c.schema);
	snprintf(p_grace, sizeof(p_grace), "%" PRId64, c.o.grace_ms);
	params[0] = p_grace;
	res = pq_exec(conn, sql, 1, params, CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!res_ok(res))
		rc = CID_ELEASE_DB;
	else
	{
		for (i = 0; i < PQntuples(res); i++)
		{
			cid_lease_row row;

			row.node = (uint64_t) strtoull(PQgetvalue(res, i, 0), NULL, 10);
			row.holder = PQgetvalue(res, i, 1);
			row.owner = PQgetvalue(res, i, 2);
			row.acquired_at = PQgetvalue(res, i, 3);
			row.expires_at = PQgetvalue(res, i, 4);
			row.expires_in_ms = PQgetisnull(res, i, 5) ? INT64_MIN
				: strtoll(PQgetvalue(res, i, 5), NULL, 10);
			row.last_ms = strtoll(PQgetvalue(res, i, 6), NULL, 10);
			row.ttl_ms = strtoll(PQgetvalue(res, i, 7), NULL, 10);
			row.live = strcmp(PQgetvalue(res, i, 8), "t") == 0;
			fn(&row, ctx);
		}
	}
	PQclear(res);
	PQfinish(conn);
	return rc;
}
