/*
 * pq.c — chronoid's one libpq layer (pq_internal.h): connections with a
 * pinned search path, statements with bounded waits, server messages on
 * one line.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock_internal.h"
#include "pq_internal.h"

/*
 * Pinned first on every connection, whatever the conninfo's options or
 * the role's settings say: with only pg_catalog (and pg_temp, which is
 * never searched for functions or operators) on the path, no function,
 * operator or type that a user created can be chosen for a name in our
 * SQL, however exact its match.  Our statements also qualify every name.
 */
static const char pin_sql[] =
"SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)";

void
cid_pq_seterr(char *errbuf, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	if (errbuf == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

void
cid_pq_one_line(char *dst, size_t dstlen, const char *msg)
{
	size_t		n = 0;
	bool		space = false;

	if (dst == NULL || dstlen == 0)
		return;
	for (; msg != NULL && *msg != '\0' && n + 1 < dstlen; msg++)
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

/* "what: message" on one line, "unknown error" when libpq said nothing. */
static void
set_pq_err(char *errbuf, size_t errlen, const char *what, const char *msg)
{
	char		line[512];

	cid_pq_one_line(line, sizeof(line), msg);
	cid_pq_seterr(errbuf, errlen, "%s: %s", what, line[0] != '\0' ? line : "unknown error");
}

void
cid_pq_result_message(char *errbuf, size_t errlen, PGconn *conn, const PGresult *res)
{
	const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	char		p[512],
				d[512];

	cid_pq_one_line(p, sizeof(p), primary != NULL ? primary : PQerrorMessage(conn));
	cid_pq_one_line(d, sizeof(d), detail);
	if (p[0] == '\0')
		cid_pq_seterr(errbuf, errlen, "unknown error");
	else if (d[0] != '\0')
		cid_pq_seterr(errbuf, errlen, "%s (%s)", p, d);
	else
		cid_pq_seterr(errbuf, errlen, "%s", p);
}

static void
quiet_notices(void *arg, const char *message)
{
	(void) arg;
	(void) message;
}

PGconn *
cid_pq_connect(const char *conninfo, const char *appname, int64_t timeout_ms,
			   char *errbuf, size_t errlen)
{
	char		tmo[24];
	const char *keys[] = {"dbname", "application_name", "connect_timeout", NULL};
	const char *vals[] = {conninfo != NULL ? conninfo : "", appname, tmo, NULL};
	PGconn	   *conn;

	/* libpq rounds connect_timeout up to 2 s at least; 0 means none */
	if (timeout_ms <= 0)
		keys[2] = NULL;
	snprintf(tmo, sizeof(tmo), "%" PRId64, timeout_ms / 1000 > 2 ? timeout_ms / 1000 : 2);
	conn = PQconnectdbParams(keys, vals, 1);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		set_pq_err(errbuf, errlen, "cannot connect",
				   conn != NULL ? PQerrorMessage(conn) : "out of memory");
		PQfinish(conn);
		return NULL;
	}
	PQsetNoticeProcessor(conn, quiet_notices, NULL);
	if (!cid_pq_do(conn, pin_sql, timeout_ms, errbuf, errlen))
	{
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

/* Wait for the result of what was sent; see cid_pq_exec(). */
static PGresult *
wait_result(PGconn *conn, int64_t timeout_ms, bool *broken, char *errbuf, size_t errlen)
{
	PGresult   *res,
			   *last = NULL;
	int64_t		end = cid_clock_monotonic_ms() + timeout_ms;
	struct pollfd pfd;

	for (;;)
	{
		int			wait_ms = 1000;

		if (!PQconsumeInput(conn))
		{
			set_pq_err(errbuf, errlen, "connection lost", PQerrorMessage(conn));
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
					set_pq_err(errbuf, errlen, "no result", PQerrorMessage(conn));
				else if (!cid_pq_ok(last))
					cid_pq_result_message(errbuf, errlen, conn, last);
				return last;
			}
			PQclear(last);
			last = res;
		}
		if (timeout_ms > 0)
		{
			int64_t		left = end - cid_clock_monotonic_ms();

			if (left <= 0)
			{
				cid_pq_seterr(errbuf, errlen, "no answer from the database within %" PRId64 " ms",
							  timeout_ms);
				*broken = true;
				PQclear(last);
				return NULL;
			}
			if (left < wait_ms)
				wait_ms = (int) left;
		}
		pfd.fd = PQsocket(conn);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (pfd.fd < 0 || (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR))
		{
			cid_pq_seterr(errbuf, errlen, "connection lost: cannot wait on its socket");
			*broken = true;
			PQclear(last);
			return NULL;
		}
	}
}

PGresult *
cid_pq_exec(PGconn *conn, const char *sql, int nparams, const char *const *params,
			int64_t timeout_ms, bool *broken, char *errbuf, size_t errlen)
{
	*broken = false;
	if (!PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0))
	{
		set_pq_err(errbuf, errlen, "cannot send", PQerrorMessage(conn));
		*broken = PQstatus(conn) != CONNECTION_OK;
		return NULL;
	}
	return wait_result(conn, timeout_ms, broken, errbuf, errlen);
}

PGresult *
cid_pq_script(PGconn *conn, const char *sql, int64_t timeout_ms, bool *broken,
			  char *errbuf, size_t errlen)
{
	*broken = false;
	if (!PQsendQuery(conn, sql))
	{
		set_pq_err(errbuf, errlen, "cannot send", PQerrorMessage(conn));
		*broken = PQstatus(conn) != CONNECTION_OK;
		return NULL;
	}
	return wait_result(conn, timeout_ms, broken, errbuf, errlen);
}

bool
cid_pq_ok(const PGresult *res)
{
	return res != NULL && (PQresultStatus(res) == PGRES_TUPLES_OK ||
						   PQresultStatus(res) == PGRES_COMMAND_OK);
}

bool
cid_pq_do(PGconn *conn, const char *sql, int64_t timeout_ms, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(conn, sql, 0, NULL, timeout_ms, &broken, errbuf, errlen);
	bool		ok = cid_pq_ok(res);

	PQclear(res);
	return ok;
}

bool
cid_pq_value(PGconn *conn, const char *sql, int64_t timeout_ms, char *out, size_t outlen,
			 char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(conn, sql, 0, NULL, timeout_ms, &broken, errbuf, errlen);

	if (!cid_pq_ok(res))
	{
		PQclear(res);
		return false;
	}
	if (PQntuples(res) < 1 || PQnfields(res) < 1)
	{
		cid_pq_seterr(errbuf, errlen, "no row from: %s", sql);
		PQclear(res);
		return false;
	}
	snprintf(out, outlen, "%s", PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
}

const char *
cid_pq_sqlstate(const PGresult *res)
{
	const char *st = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	return st != NULL ? st : "";
}

/* One row per problem, in the order cid_pq_trusted() documents. */
static const char trusted_sql[] =
"WITH me AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER),"
" n AS (SELECT n.oid, n.nspowner FROM pg_catalog.pg_namespace n WHERE n.nspname = $1),"
" t AS (SELECT c.* FROM pg_catalog.pg_class c, n"
"        WHERE c.relnamespace = n.oid AND c.relname OPERATOR(pg_catalog.~) $2)"
" SELECT 1, pg_catalog.format('schema %I is owned by %I, which is neither you (%I) nor a superuser',"
"               $1, pg_catalog.pg_get_userbyid(n.nspowner), CURRENT_USER)"
"   FROM n, pg_catalog.pg_roles o"
"  WHERE o.oid = n.nspowner AND n.nspowner <> (SELECT oid FROM me) AND NOT o.rolsuper"
" UNION ALL"
" SELECT 2, pg_catalog.format('table %I.%I is owned by %I, which is neither you (%I) nor a superuser',"
"               $1, t.relname, pg_catalog.pg_get_userbyid(t.relowner), CURRENT_USER)"
"   FROM t, pg_catalog.pg_roles o"
"  WHERE o.oid = t.relowner AND t.relowner <> (SELECT oid FROM me) AND NOT o.rolsuper"
" UNION ALL"
" SELECT 3, pg_catalog.format('%I.%I is not an ordinary table', $1, t.relname) FROM t WHERE t.relkind <> 'r'"
" UNION ALL"
" SELECT 4, pg_catalog.format('table %I.%I has row-level security', $1, t.relname) FROM t WHERE t.relrowsecurity"
" UNION ALL"
" SELECT 5, pg_catalog.format('table %I.%I has triggers (%s)', $1, t.relname,"
"                             pg_catalog.string_agg(g.tgname::pg_catalog.text, ', ' ORDER BY g.tgname))"
"   FROM t JOIN pg_catalog.pg_trigger g ON g.tgrelid = t.oid AND NOT g.tgisinternal"
"  WHERE $3::pg_catalog.bool GROUP BY t.relname"
" UNION ALL"
" SELECT 6, pg_catalog.format('table %I.%I has rules (%s)', $1, t.relname,"
"                             pg_catalog.string_agg(w.rulename::pg_catalog.text, ', ' ORDER BY w.rulename))"
"   FROM t JOIN pg_catalog.pg_rewrite w ON w.ev_class = t.oid GROUP BY t.relname"
" UNION ALL"
" SELECT 7, pg_catalog.format('table %I.%I has policies (%s)', $1, t.relname,"
"                             pg_catalog.string_agg(p.polname::pg_catalog.text, ', ' ORDER BY p.polname))"
"   FROM t JOIN pg_catalog.pg_policy p ON p.polrelid = t.oid GROUP BY t.relname"
" UNION ALL"
" SELECT 8, pg_catalog.format('table %I.%I takes part in inheritance', $1, t.relname)"
"   FROM t WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i"
"                        WHERE i.inhrelid = t.oid OR i.inhparent = t.oid)"
" ORDER BY 1, 2 LIMIT 1";

/*
 * Run a check whose rows are problems (its second column the message):
 * 1 when it returns none, 0 with the first in why, -1 with errbuf set.
 */
static int
first_problem(PGconn *conn, const char *sql, int nparams, const char *const *params,
			  int64_t timeout_ms, char *why, size_t whylen, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(conn, sql, nparams, params, timeout_ms, &broken,
								  errbuf, errlen);
	int			rc;

	if (!cid_pq_ok(res))
	{
		PQclear(res);
		return -1;
	}
	rc = PQntuples(res) == 0;
	if (rc == 0)
		snprintf(why, whylen, "%s", PQgetvalue(res, 0, 1));
	PQclear(res);
	return rc;
}

/* cid_pq_trusted() and cid_pq_trusted_read(): writes tells whether triggers count. */
static int
trusted_check(PGconn *conn, const char *schema, const char *relname_re, bool writes,
			  int64_t timeout_ms, char *why, size_t whylen, char *errbuf, size_t errlen)
{
	const char *params[3] = {schema, relname_re, writes ? "true" : "false"};

	return first_problem(conn, trusted_sql, 3, params, timeout_ms, why, whylen, errbuf, errlen);
}

int
cid_pq_trusted(PGconn *conn, const char *schema, const char *relname_re,
			   int64_t timeout_ms, char *why, size_t whylen,
			   char *errbuf, size_t errlen)
{
	return trusted_check(conn, schema, relname_re, true, timeout_ms, why, whylen, errbuf, errlen);
}

int
cid_pq_trusted_read(PGconn *conn, const char *schema, const char *relname_re,
					int64_t timeout_ms, char *why, size_t whylen,
					char *errbuf, size_t errlen)
{
	return trusted_check(conn, schema, relname_re, false, timeout_ms, why, whylen, errbuf, errlen);
}

/*
 * The roles trusted with the names in a schema, for the role running the
 * statement: itself, every superuser (whoever may SET ROLE to one is as
 * powerful already), and pg_database_owner when the database's owner is
 * one of those (its only member is that owner).  Not "a role the caller
 * is a member of": its other members are not the caller, and a superuser
 * is a member of every role.
 */
#define TRUSTED_ROLES \
" me AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER)," \
" db AS (SELECT d.datdba FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())," \
" tr AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolsuper OR r.oid = (SELECT oid FROM me)" \
"        UNION ALL SELECT r.oid FROM pg_catalog.pg_roles r, db" \
"         WHERE r.rolname = 'pg_database_owner'" \
"           AND (db.datdba = (SELECT oid FROM me)" \
"                OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles s WHERE s.oid = db.datdba AND s.rolsuper)))"

/* A role's name for a message: pg_database_owner says whom it stands for. */
#define ROLE_TEXT(oidexpr) \
"CASE WHEN " oidexpr " = 0 THEN 'PUBLIC (every role)'" \
"     WHEN pg_catalog.pg_get_userbyid(" oidexpr ") = 'pg_database_owner'" \
"     THEN pg_catalog.format('pg_database_owner (the database owner, %I)', pg_catalog.pg_get_userbyid((SELECT datdba FROM db)))" \
"     ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(" oidexpr ")) END"

/*
 * The schemas checked ($1: one schema by name; NULL: every schema that
 * holds a member of extension chronoid, its own and snowflake) and the
 * first problem with them, in the order cid_pq_schema_trusted() lists.
 */
static const char schema_trust_sql[] =
"WITH" TRUSTED_ROLES ","
" e AS (SELECT x.oid, x.extnamespace FROM pg_catalog.pg_extension x"
"        WHERE x.extname = 'chronoid' AND $1::pg_catalog.text IS NULL),"
" m AS (SELECT d.classid, d.objid FROM pg_catalog.pg_depend d, e"
"        WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass"
"          AND d.refobjid = e.oid AND d.deptype = 'e'),"
" ns AS (SELECT n.oid, n.nspname, n.nspowner, n.nspacl FROM pg_catalog.pg_namespace n"
"        WHERE n.nspname = $1::pg_catalog.text"
"           OR n.oid IN (SELECT extnamespace FROM e)"
"           OR n.oid IN (SELECT m.objid FROM m WHERE m.classid = 'pg_catalog.pg_namespace'::pg_catalog.regclass)"
"           OR n.oid IN (SELECT p.pronamespace FROM pg_catalog.pg_proc p, m"
"                         WHERE m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND m.objid = p.oid)"
"           OR n.oid IN (SELECT c.relnamespace FROM pg_catalog.pg_class c, m"
"                         WHERE m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND m.objid = c.oid)"
"           OR n.oid IN (SELECT t.typnamespace FROM pg_catalog.pg_type t, m"
"                         WHERE m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND m.objid = t.oid))"
" SELECT 1, pg_catalog.format('schema %I is owned by %s, which is neither you (%I) nor a superuser',"
"                             ns.nspname, " ROLE_TEXT("ns.nspowner") ", CURRENT_USER)"
"   FROM ns WHERE ns.nspowner NOT IN (SELECT oid FROM tr)"
" UNION ALL"
" SELECT 2, pg_catalog.format('%s, which is neither you (%I) nor a superuser, may create objects in schema %I',"
"                             " ROLE_TEXT("a.grantee") ", CURRENT_USER, ns.nspname)"
"   FROM ns, pg_catalog.aclexplode(ns.nspacl) a"
"  WHERE a.privilege_type = 'CREATE' AND a.grantee NOT IN (SELECT oid FROM tr)"
" UNION ALL"
" SELECT 3, pg_catalog.format('function %s of extension chronoid is owned by %s, which is neither you (%I) nor a superuser',"
"                             p.oid::pg_catalog.regprocedure, " ROLE_TEXT("p.proowner") ", CURRENT_USER)"
"   FROM pg_catalog.pg_proc p, m"
"  WHERE m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND m.objid = p.oid"
"    AND p.proowner NOT IN (SELECT oid FROM tr)"
" ORDER BY 1, 2 LIMIT 1";

int
cid_pq_schema_trusted(PGconn *conn, const char *schema, int64_t timeout_ms,
					  char *why, size_t whylen, char *errbuf, size_t errlen)
{
	const char *params[1] = {schema};

	return first_problem(conn, schema_trust_sql, 1, params, timeout_ms, why, whylen, errbuf, errlen);
}

int
cid_pq_ext_trusted(PGconn *conn, int64_t timeout_ms, cid_pq_ext *ext,
				   char *why, size_t whylen, char *errbuf, size_t errlen)
{
	bool		broken;
	PGresult   *res;

	memset(ext, 0, sizeof(*ext));
	res = cid_pq_exec(conn,
					  "SELECT pg_catalog.quote_ident(n.nspname)"
					  "  FROM pg_catalog.pg_extension e"
					  "  JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"
					  " WHERE e.extname = 'chronoid'",
					  0, NULL, timeout_ms, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
	{
		PQclear(res);
		return -1;
	}
	if (PQntuples(res) == 1)
	{
		ext->installed = true;
		snprintf(ext->schema_q, sizeof(ext->schema_q), "%s", PQgetvalue(res, 0, 0));
	}
	PQclear(res);
	if (!ext->installed)
		return 1;
	return cid_pq_schema_trusted(conn, NULL, timeout_ms, why, whylen, errbuf, errlen);
}
