/*
 * bench_pk_pg.c — the libpq calls of "chronoid bench-pk": connections that
 * keep notices quiet, statements through the extended protocol (one
 * statement each) and server messages folded onto one line.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_pk.h"

double
bpk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

void
bpk_fmt(char *dst, size_t len, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* Whitespace runs (libpq's messages span lines) become one space. */
void
bpk_one_line(char *dst, size_t dstlen, const char *msg)
{
	size_t		n = 0;
	bool		space = false;

	if (dstlen == 0)
		return;
	for (; *msg != '\0' && n + 1 < dstlen; msg++)
	{
		if (*msg == ' ' || *msg == '\n' || *msg == '\t' || *msg == '\r')
		{
			space = n > 0;
			continue;
		}
		if (space && n + 2 < dstlen)
			dst[n++] = ' ';
		space = false;
		dst[n++] = *msg;
	}
	dst[n] = '\0';
}

static void
quiet_notices(void *arg, const char *message)
{
	(void) arg;
	(void) message;
}

PGconn *
bpk_connect(const char *conninfo, char *err, size_t errlen)
{
	const char *const keys[] = {"dbname", "fallback_application_name", NULL};
	const char *const vals[] = {conninfo, "chronoid-bench-pk", NULL};
	PGconn	   *conn = PQconnectdbParams(keys, vals, 1);

	if (conn == NULL)
	{
		bpk_fmt(err, errlen, "out of memory");
		return NULL;
	}
	if (PQstatus(conn) != CONNECTION_OK)
	{
		bpk_one_line(err, errlen, PQerrorMessage(conn));
		PQfinish(conn);
		return NULL;
	}
	PQsetNoticeProcessor(conn, quiet_notices, NULL);

	/*
	 * Pin the search path first, whatever the conninfo's options or the
	 * role's settings say: only pg_catalog (pg_temp is never searched for
	 * functions or operators), so no function, operator or type a user
	 * created can be chosen for a name in bench-pk's own SQL.  Key
	 * expressions (NAME=SQL) run under it too: qualify your own functions.
	 */
	{
		PGresult   *res = PQexec(conn, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)");

		if (PQresultStatus(res) != PGRES_TUPLES_OK)
		{
			bpk_result_error(conn, res, err, errlen);
			PQclear(res);
			PQfinish(conn);
			return NULL;
		}
		PQclear(res);
	}
	return conn;
}

void
bpk_result_error(PGconn *conn, PGresult *res, char *err, size_t errlen)
{
	const char *msg = NULL;

	if (res != NULL)
		msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	if (msg == NULL || *msg == '\0')
		msg = PQerrorMessage(conn);
	bpk_one_line(err, errlen, msg);
}

/* The extended protocol refuses a second statement in one string. */
static PGresult *
run_sql(PGconn *conn, const char *sql)
{
	return PQexecParams(conn, sql, 0, NULL, NULL, NULL, NULL, 0);
}

bool
bpk_exec(PGconn *conn, const char *sql, char *err, size_t errlen)
{
	PGresult   *res = run_sql(conn, sql);
	ExecStatusType st = PQresultStatus(res);
	bool		ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;

	if (!ok)
		bpk_result_error(conn, res, err, errlen);
	PQclear(res);
	return ok;
}

bool
bpk_query(PGconn *conn, const char *sql, char *out, size_t outlen,
		  char *err, size_t errlen)
{
	PGresult   *res = run_sql(conn, sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		bpk_result_error(conn, res, err, errlen);
		PQclear(res);
		return false;
	}
	if (PQntuples(res) < 1 || PQnfields(res) < 1)
	{
		bpk_fmt(err, errlen, "no row from: %s", sql);
		PQclear(res);
		return false;
	}
	bpk_fmt(out, outlen, "%s", PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
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
