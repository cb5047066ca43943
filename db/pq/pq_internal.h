/*
 * pq_internal.h — the one libpq layer of chronoid's database parts
 * (libchronoid_lease and the chronoid-* database tools).  Not installed.
 *
 * Every connection it makes has its search path pinned to pg_catalog
 * before any other statement runs, and every statement waits a bounded
 * time, so neither an object planted by another role nor a server that
 * stops answering can take over or hang a caller.  Statements go through
 * the extended protocol (one statement per call) unless sent as a script.
 */
#ifndef CHRONOID_PQ_INTERNAL_H
#define CHRONOID_PQ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "compiler_internal.h"

/* errbuf (may be NULL or 0 long) set from a format; always terminated. */
void		cid_pq_seterr(char *errbuf, size_t errlen, const char *fmt,...) CID_PRINTF(3, 4);

/* msg on one line: every run of whitespace (libpq's messages span lines) one space. */
void		cid_pq_one_line(char *dst, size_t dstlen, const char *msg);

/*
 * Connect (conninfo NULL or "": the PG* environment variables) as
 * application appname, waiting at most timeout_ms (0: libpq's default),
 * then pin search_path to "pg_catalog, pg_temp".  Notices are not
 * printed: a library has no business writing on the caller's stderr.
 * NULL with errbuf set ("cannot connect: ...") on failure.
 */
PGconn	   *cid_pq_connect(const char *conninfo, const char *appname,
						   int64_t timeout_ms, char *errbuf, size_t errlen);

/*
 * Run one statement with parameters (text format), waiting at most
 * timeout_ms for its result (0 or less: no bound).  Returns the last
 * result, which the caller clears, even when it is an error (its SQLSTATE
 * may matter): errbuf then holds the server's message (and detail).
 * NULL with errbuf set when nothing came back; *broken tells whether the
 * connection is unusable (timeout, lost connection) and must be dropped.
 */
PGresult   *cid_pq_exec(PGconn *conn, const char *sql, int nparams,
						const char *const *params, int64_t timeout_ms,
						bool *broken, char *errbuf, size_t errlen);

/* A script of several statements (simple protocol, no parameters). */
PGresult   *cid_pq_script(PGconn *conn, const char *sql, int64_t timeout_ms,
						  bool *broken, char *errbuf, size_t errlen);

/* Whether res is a success (command or rows). */
bool		cid_pq_ok(const PGresult *res);

/* cid_pq_exec() without parameters, result dropped: true on success. */
bool		cid_pq_do(PGconn *conn, const char *sql, int64_t timeout_ms,
					  char *errbuf, size_t errlen);

/*
 * The first column of the first row as text ("" for NULL) into out; false
 * with errbuf set on failure or when no row came back.
 */
bool		cid_pq_value(PGconn *conn, const char *sql, int64_t timeout_ms,
						 char *out, size_t outlen, char *errbuf, size_t errlen);

/*
 * The server's message for a failed res on one line: its primary text,
 * then its detail in parentheses; libpq's message when res has none.
 */
void		cid_pq_result_message(char *errbuf, size_t errlen, PGconn *conn,
								  const PGresult *res);

/* The SQLSTATE of res, "" when none. */
const char *cid_pq_sqlstate(const PGresult *res);

/*
 * May the caller keep its state in schema, in the tables there whose
 * names match relname_re (a POSIX regular expression; anchor it)?  Each
 * that exists must be owned by the connecting role itself or by a
 * superuser (not merely a role it is a member of: a superuser is a member
 * of every role): whoever could alter it could add a trigger, rule or
 * policy that runs as whoever uses it, or lie about what it holds.  Each
 * table must also be an ordinary table with no trigger, rule, policy,
 * row-level security or inheritance.  A schema or table that does not
 * exist yet is no problem.  Returns 1 when trusted; 0 with the first
 * problem in why ("table s.t has triggers (trg)"); -1 with errbuf set
 * when the check itself failed.
 */
int			cid_pq_trusted(PGconn *conn, const char *schema, const char *relname_re,
						   int64_t timeout_ms, char *why, size_t whylen,
						   char *errbuf, size_t errlen);

/*
 * cid_pq_trusted() for tables the caller only reads: their triggers
 * never run for it, so they are allowed (chronoid's node registry has
 * one); everything else is checked the same.
 */
int			cid_pq_trusted_read(PGconn *conn, const char *schema, const char *relname_re,
								int64_t timeout_ms, char *why, size_t whylen,
								char *errbuf, size_t errlen);

/*
 * May the caller send a function of schema by name, or install one there
 * (schema NULL: every schema that holds a member of extension chronoid,
 * its own and snowflake)?  A schema's names stay what they were checked
 * to be only while nobody else can rename the schema, replace it or add
 * to it: so its owner must be the caller, a superuser, or
 * pg_database_owner where the database's owner is one of those (not
 * merely a role the caller is a member of: its other members are not the
 * caller), every role with CREATE on it likewise, and (schema NULL) the
 * owner of every function of chronoid (who could replace its body).
 * PostgreSQL 15+ gives schema public to pg_database_owner: a superuser
 * calling into public of a database owned by a weaker role is refused.
 * A schema that does not exist is no problem.  Returns 1 when trusted; 0
 * with the first problem in why ("schema public is owned by ..."); -1
 * with errbuf set when the check itself failed.
 */
int			cid_pq_schema_trusted(PGconn *conn, const char *schema, int64_t timeout_ms,
								  char *why, size_t whylen, char *errbuf, size_t errlen);

/* Extension chronoid as found and checked by cid_pq_ext_trusted(). */
typedef struct cid_pq_ext
{
	bool		installed;
	char		schema_q[132];	/* its schema, quoted for SQL */
} cid_pq_ext;

/*
 * Find extension chronoid and check its schemas with
 * cid_pq_schema_trusted(conn, NULL, ...).  1: trusted, or not installed
 * (ext->installed false); 0: refused, why set; -1: errbuf set.  Callers refuse on 0 with why and what to do.
 */
int			cid_pq_ext_trusted(PGconn *conn, int64_t timeout_ms, cid_pq_ext *ext,
							   char *why, size_t whylen, char *errbuf, size_t errlen);

#endif							/* CHRONOID_PQ_INTERNAL_H */
