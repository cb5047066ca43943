/*
 * bench_pk_pg.c — bench-pk's statements on the shared libpq layer, and
 * its clock.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_pk_internal.h"

/*
 * Connections and statements go through the shared libpq layer (db/pq):
 * search path pinned first, so key expressions (NAME=SQL) run under
 * pg_catalog too (qualify your own functions); one statement per call;
 * no time limit (an index build on a large table takes what it takes).
 */
PGconn *
bpk_connect(const char *conninfo, char *err, size_t errlen)
{
	return cid_pq_connect(conninfo, "chronoid-bench-pk", 0, err, errlen);
}

bool
bpk_exec(PGconn *conn, const char *sql, char *err, size_t errlen)
{
	return cid_pq_do(conn, sql, 0, err, errlen);
}

bool
bpk_query(PGconn *conn, const char *sql, char *out, size_t outlen,
		  char *err, size_t errlen)
{
	return cid_pq_value(conn, sql, 0, out, outlen, err, errlen);
}

bool
bpk_query_num(PGconn *conn, const char *sql, double *out, char *err, size_t errlen)
{
	char		buf[128];
	char	   *end;

	if (!bpk_query(conn, sql, buf, sizeof(buf), err, errlen))
		return false;
	*out = strtod(buf, &end);
	if (end == buf)
	{
		bpk_fmt(err, errlen, "not a number (\"%s\") from: %s", buf, sql);
		return false;
	}
	return true;
}
