/*
 * lease_release.c — giving a number back and freeing the lease; renewing
 * and releasing by token (the "chronoid lease" one-shot calls).
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "lease_internal.h"
#include "pq_internal.h"

int
cid_lease_release(cid_lease *l, char *errbuf, size_t errlen)
{
	int			rc;

	cid_pq_seterr(errbuf, errlen, "%s", "");
	if (l == NULL)
		return CID_OK;
	if (cid_lease_forked(l))
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
	cid_lease_stop_renewer(l);
	cid_lease_fence(l, CID_ELEASE_RELEASED);
	if (l->conn == NULL)
		l->conn = cid_lease_connect(l->conninfo, l->schema, CID_LEASE_CALL_TIMEOUT_MS, errbuf, errlen);
	if (l->conn == NULL)
		rc = CID_ELEASE_DB;
	else
		rc = cid_lease_release_on(l->conn, l->schema, l->node, l->holder, cid_lease_last_ms(l),
						errbuf, errlen);
	cid_lease_destroy(l, true);
	return rc;
}

void
cid_lease_free(cid_lease *l)
{
	if (l == NULL)
		return;
	if (cid_lease_forked(l))
	{
		free(l->conninfo);
		free(l);
		return;
	}
	cid_lease_stop_renewer(l);
	cid_lease_destroy(l, true);
}


static bool
holder_ok(const char *holder)
{
	return holder != NULL && holder[0] != '\0' && strlen(holder) <= 64;
}

int
cid_lease_renew_token(const cid_lease_opts *opts, uint64_t node, const char *holder,
					  int64_t *expires_in_ms, char *errbuf, size_t errlen)
{
	cid_lease_cfg	c;
	PGconn	   *conn;
	char		sql[1024],
				p_node[24],
				p_ttl[24],
				p_last[24];
	const char *params[4];
	PGresult   *res;
	bool		broken;
	int			rc;

	conn = cid_lease_call_begin(&c, opts, holder_ok(holder) && node <= INT32_MAX, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;
	snprintf(sql, sizeof(sql), cid_lease_renew_sql, c.schema);
	snprintf(p_node, sizeof(p_node), "%" PRIu64, node);
	snprintf(p_ttl, sizeof(p_ttl), "%" PRId64, c.o.ttl_ms);
	snprintf(p_last, sizeof(p_last), "%" PRId64, cid_lease_wall_ms(&c.o));
	params[0] = p_node;
	params[1] = holder;
	params[2] = p_ttl;
	params[3] = p_last;
	res = cid_lease_exec(conn, sql, 4, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
		rc = CID_ELEASE_DB;
	else if (PQntuples(res) == 0)
	{
		cid_pq_seterr(errbuf, errlen,
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
	cid_lease_cfg	c;
	PGconn	   *conn;
	int			rc;

	conn = cid_lease_call_begin(&c, opts, holder_ok(holder) && node <= INT32_MAX, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;
	rc = cid_lease_release_on(conn, c.schema, node, holder, cid_lease_wall_ms(&c.o), errbuf, errlen);
	PQfinish(conn);
	return rc;
}