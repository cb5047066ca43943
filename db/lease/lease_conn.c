/*
 * lease_conn.c — libchronoid_lease's connections: options checked and
 * completed, the trust check of the schema and table, the statements
 * through the shared libpq layer (db/pq) with the lease's error wording,
 * and what both acquire and release end with: giving a number back and
 * freeing the lease.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "lease_internal.h"
#include "pq_internal.h"

/*
 * The lease's statements through the shared libpq layer, their failures
 * worded for a lease user: a missing schema or table means setup never
 * ran.
 */
PGresult *
cid_lease_exec(PGconn *conn, const char *sql, int nparams, const char *const *params,
			   int64_t timeout_ms, bool *broken, char *errbuf, size_t errlen)
{
	char		msg[512];
	PGresult   *res = cid_pq_exec(conn, sql, nparams, params, timeout_ms, broken,
								  msg, sizeof(msg));

	if (res == NULL)
		cid_pq_seterr(errbuf, errlen, "%s", msg);
	else if (!cid_pq_ok(res))
	{
		const char *st = cid_pq_sqlstate(res);

		cid_pq_seterr(errbuf, errlen, "%s: %s",
						 strcmp(st, "3F000") == 0 || strcmp(st, "42P01") == 0 ?
						 "no lease table (run 'chronoid lease init' or cid_lease_setup first)" :
						 "statement failed", msg);
	}
	return res;
}

bool
cid_lease_do(PGconn *conn, const char *sql, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res = cid_lease_exec(conn, sql, 0, NULL, CID_LEASE_CALL_TIMEOUT_MS, &broken,
									 errbuf, errlen);
	bool		ok = cid_pq_ok(res);

	PQclear(res);
	return ok;
}

/*
 * Beyond cid_pq_trusted()'s rules: the table must have the shape setup
 * gives it, exactly its columns and its primary key.  One row per problem.
 */
static const char shape_sql[] =
"WITH t AS (SELECT c.* FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
"            WHERE n.nspname = $1 AND c.relname = 'node_lease')"
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

/*
 * Check conn's schema and table: whose they are and what hangs on them
 * (cid_pq_trusted), then their shape.  false with errbuf set (refusal or
 * failure).
 */
bool
cid_lease_trust(PGconn *conn, const char *schema, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res;
	const char *params[1] = {schema};
	char		why[512];
	int			trusted;

	trusted = cid_pq_trusted(conn, schema, "^node_lease$", CID_LEASE_CALL_TIMEOUT_MS,
							 why, sizeof(why), errbuf, errlen);
	if (trusted < 0)
		return false;
	if (trusted == 1)
	{
		res = cid_lease_exec(conn, shape_sql, 1, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
		if (!cid_pq_ok(res))
		{
			PQclear(res);
			return false;
		}
		trusted = PQntuples(res) == 0;
		if (!trusted)
			snprintf(why, sizeof(why), "%s", PQgetvalue(res, 0, 0));
		PQclear(res);
	}
	if (!trusted)
		cid_pq_seterr(errbuf, errlen, "refusing to use %s: %s (it must belong to you or a "
					  "superuser, as chronoid lease init creates it; drop it or change its owner)",
					  schema, why);
	return trusted;
}

/* A connection whose search path is pinned and whose schema is trusted. */
PGconn *
cid_lease_connect(const char *conninfo, const char *schema, int64_t timeout_ms,
		   char *errbuf, size_t errlen)
{
	PGconn	   *conn = cid_pq_connect(conninfo, "chronoid-lease", timeout_ms, errbuf, errlen);

	if (conn != NULL && !cid_lease_trust(conn, schema, errbuf, errlen))
	{
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

int64_t
cid_lease_wall_ms(const cid_lease_opts *opts)
{
	int64_t		ns;

	if (opts != NULL && opts->env != NULL && opts->env->clock != NULL)
		ns = opts->env->clock(opts->env->ctx);
	else
		ns = cid_platform_clock(NULL);
	return ns < 0 ? 0 : ns / 1000000;
}

int
cid_lease_get_cfg(cid_lease_cfg *c, const cid_lease_opts *opts, char *errbuf, size_t errlen)
{
	if (opts == NULL)
		cid_lease_opts_default(&c->o);
	else
		c->o = *opts;
	if (cid_lease_texts_ok(c->o.schema, c->o.owner, c->schema, errbuf, errlen) != CID_OK)
		return CID_EINVAL;
	if (c->o.ttl_ms < 1000 || c->o.ttl_ms > 86400000)
	{
		cid_pq_seterr(errbuf, errlen, "ttl must be 1 s .. 24 h");
		return CID_EINVAL;
	}
	if (c->o.grace_ms < 0)
		c->o.grace_ms = cid_lease_default_grace_ms(c->o.ttl_ms);
	if (c->o.clock_wait_ms < 0)
		c->o.clock_wait_ms = c->o.grace_ms;
	c->conninfo = (c->o.conninfo != NULL && c->o.conninfo[0] != '\0') ? c->o.conninfo : NULL;
	return CID_OK;
}

/*
 * The start of every one-shot call (setup, the by-token calls, list):
 * clear errbuf, check the options, then args_ok (the caller's own
 * arguments: CID_EINVAL), then connect (CID_ELEASE_DB).  NULL with *rc set
 * on failure.
 */
PGconn *
cid_lease_call_begin(cid_lease_cfg *c, const cid_lease_opts *opts, bool args_ok,
		   char *errbuf, size_t errlen, int *rc)
{
	PGconn	   *conn;

	cid_pq_seterr(errbuf, errlen, "%s", "");
	*rc = cid_lease_get_cfg(c, opts, errbuf, errlen);
	if (*rc < 0)
		return NULL;
	if (!args_ok)
	{
		*rc = CID_EINVAL;
		return NULL;
	}
	conn = cid_lease_connect(c->conninfo, c->schema, CID_LEASE_CALL_TIMEOUT_MS, errbuf, errlen);
	if (conn == NULL)
		*rc = CID_ELEASE_DB;
	return conn;
}

/*
 * Give a number back: the row stays with the highest timestamp its holder
 * used (last_ms) and ttl 0, so the next holder's IDs start after it; it
 * is free at once (expires_at = -infinity).
 */
int
cid_lease_release_on(PGconn *conn, const char *schema, uint64_t node, const char *holder,
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
	res = cid_lease_exec(conn, sql, 3, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
		rc = CID_ELEASE_DB;
	else if (PQntuples(res) == 0)
	{
		cid_pq_seterr(errbuf, errlen,
						 "node %" PRIu64 " is not held by this token (lapsed, released or taken)",
						 node);
		rc = CID_ELEASE_LOST;
	}
	else
		rc = CID_OK;
	PQclear(res);
	return rc;
}

/*
 * Free a lease (closing its connections when close_conns): acquire and
 * release both end a lease here.
 */
void
cid_lease_destroy(cid_lease *l, bool close_conns)
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
