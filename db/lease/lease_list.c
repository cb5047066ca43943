/*
 * lease_list.c — cid_lease_list(): every row of the lease table, for
 * "chronoid lease list".
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

int
cid_lease_list(const cid_lease_opts *opts, cid_lease_row_fn fn, void *ctx,
			   char *errbuf, size_t errlen)
{
	cid_lease_cfg	c;
	PGconn	   *conn;
	char		sql[1536],
				p_grace[24];
	const char *params[1];
	PGresult   *res;
	bool		broken;
	int			rc,
				i;

	conn = cid_lease_call_begin(&c, opts, fn != NULL, errbuf, errlen, &rc);
	if (conn == NULL || fn == NULL)
		return conn == NULL ? rc : CID_EINVAL;	/* the second: for the analyzer */
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
	res = cid_lease_exec(conn, sql, 1, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
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
