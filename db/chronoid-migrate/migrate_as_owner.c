/*
 * migrate_as_owner.c — running a table owner's code with the owner's
 * rights, never with the tool's (docs/migrate.md "Trust").
 *
 * A DBA runs chronoid migrate as a superuser; the tables belong to
 * application roles, whose triggers, index expressions, CHECKs, domains,
 * defaults, policies and rules run inside any statement that writes or
 * alters the table.  PostgreSQL's own maintenance commands (VACUUM,
 * CREATE INDEX, REFRESH MATERIALIZED VIEW) switch to the table owner for
 * that; from SQL the same switch is a SECURITY DEFINER function owned by
 * the owner.  Inside it the owner's code runs as the owner and cannot SET
 * ROLE or SET SESSION AUTHORIZATION back ("cannot set parameter within
 * security-definer function").
 *
 * Such a function must never be one the owner could change before the
 * tool calls it again, nor one another role could call: each is created
 * in the session's temporary schema (no other session can reach it),
 * handed to the owner, called once, and dropped before anything else
 * runs.  What the owner's code could leave behind to run later with the
 * tool's rights is dealt with right after each call, before the tool
 * sends another statement it parses: a session setting it changed
 * (search_path decides which operator "=" means) is set back, a cursor
 * WITH HOLD (its query would run at COMMIT) is closed, and a deferrable
 * trigger or constraint whose code would fire at COMMIT (PostgreSQL
 * before 18 runs it as the role current then) rolls the whole
 * transaction back.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_internal.h"
#include "pq_internal.h"

/*
 * The session's settings, one "name=value" a line.  Free of operators and
 * of unqualified names: it runs right after an owner's code, before the
 * check that its search path is still the tool's.  Placeholder settings
 * of other modules ("app.user", with a dot) are left out: the tool's
 * statements do not read them, and applications set them in triggers.
 */
static const char settings_sql[] =
"SELECT pg_catalog.string_agg(pg_catalog.concat(s.name, '=', s.setting), pg_catalog.chr(10))"
"  FROM pg_catalog.pg_settings s WHERE pg_catalog.strpos(s.name, '.') OPERATOR(pg_catalog.=) 0";

/*
 * What would run at COMMIT, after the owner's function returned:
 * deferrable triggers or constraints carrying code that is not a
 * superuser's, on tables written in this transaction (all tables
 * when the server does not count writes).  Foreign keys are absent on
 * purpose: PostgreSQL checks them as the referenced table's owner.
 */
static const char leftovers_sql[] =
"WITH written AS (SELECT x.relid FROM pg_catalog.pg_stat_xact_all_tables x"
"                  WHERE x.n_tup_ins + x.n_tup_upd + x.n_tup_del > 0),"
"     su AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolsuper)"
" SELECT pg_catalog.format('deferrable trigger %I on %s (owner %I) may run at COMMIT',"
"        t.tgname, k.oid::pg_catalog.regclass, pg_catalog.pg_get_userbyid(k.relowner))"
"   FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class k ON k.oid = t.tgrelid"
"   JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid"
"  WHERE t.tgdeferrable AND NOT t.tgisinternal"
"    AND (k.relowner NOT IN (SELECT oid FROM su) OR p.proowner NOT IN (SELECT oid FROM su))"
"    AND (k.oid IN (SELECT relid FROM written) OR pg_catalog.current_setting('track_counts') = 'off')"
" UNION ALL"
" SELECT pg_catalog.format('deferrable constraint %I on %s (owner %I) evaluates expressions at COMMIT',"
"        n.conname, k.oid::pg_catalog.regclass, pg_catalog.pg_get_userbyid(k.relowner))"
"   FROM pg_catalog.pg_constraint n JOIN pg_catalog.pg_class k ON k.oid = n.conrelid"
"   JOIN pg_catalog.pg_index i ON i.indexrelid = n.conindid"
"  WHERE n.condeferrable AND n.contype IN ('p', 'u', 'x')"
"    AND (i.indexprs IS NOT NULL OR i.indpred IS NOT NULL)"
"    AND k.relowner NOT IN (SELECT oid FROM su)"
"    AND (k.oid IN (SELECT relid FROM written) OR pg_catalog.current_setting('track_counts') = 'off')";

/* Said once per run: an owner's code sets a session setting (restored each time). */
static void
restored_note(const mig_owner *as, const char *name)
{
	static bool said;

	if (said)
		return;
	said = true;
	fprintf(stderr, "chronoid: migrate: note: code of %s (owner of %s) changes the session's setting %s; "
			"the tool sets it back after each of its statements\n", as->name_q, as->table, name);
}

static void
set_err(mig_txn *x, const PGresult *res)
{
	snprintf(x->sqlstate, sizeof(x->sqlstate), "%s", res != NULL ? cid_pq_sqlstate(res) : "");
}

/* The settings now, malloc'd; NULL with err set. */
static char *
settings_now(mig_txn *x)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(x->conn, settings_sql, 0, NULL, 0, &broken, x->err, x->errlen);
	char	   *s = NULL;

	if (cid_pq_ok(res) && PQntuples(res) == 1)
		s = strdup(PQgetvalue(res, 0, 0));
	else
		set_err(x, res);
	PQclear(res);
	return s;
}

void
mig_txn_rollback(mig_txn *x)
{
	if (x->conn != NULL)
		(void) cid_pq_do(x->conn, "ROLLBACK", 0, NULL, 0);
	free(x->settings);
	x->settings = NULL;
}

bool
mig_txn_begin(mig_txn *x, PGconn *conn, bool in_txn, int64_t lock_timeout_ms, char *err, size_t errlen)
{
	return mig_txn_begin_capped(x, conn, in_txn, lock_timeout_ms, -1, err, errlen);
}

bool
mig_txn_begin_capped(mig_txn *x, PGconn *conn, bool in_txn, int64_t lock_timeout_ms, int64_t statement_ms,
					 char *err, size_t errlen)
{
	memset(x, 0, sizeof(*x));
	x->conn = conn;
	x->err = err;
	x->errlen = errlen;
	x->own_begin = !in_txn;
	if (!in_txn && !cid_pq_do(conn, "BEGIN", 0, err, errlen))
		return false;
	if (lock_timeout_ms >= 0)
	{
		char		set[64];

		snprintf(set, sizeof(set), "SET LOCAL lock_timeout = %lld", (long long) lock_timeout_ms);
		if (!cid_pq_do(conn, set, 0, err, errlen))
		{
			mig_txn_rollback(x);
			return false;
		}
	}
	if (statement_ms >= 0)
	{
		char		set[64];

		snprintf(set, sizeof(set), "SET LOCAL statement_timeout = %lld", (long long) statement_ms);
		if (!cid_pq_do(conn, set, 0, err, errlen))
		{
			mig_txn_rollback(x);
			return false;
		}
	}
	x->settings = settings_now(x);
	if (x->settings == NULL)
	{
		mig_txn_rollback(x);
		return false;
	}
	return true;
}

bool
mig_txn_set(mig_txn *x, const char *sql)
{
	char	   *now;

	x->sqlstate[0] = '\0';
	if (!cid_pq_do(x->conn, sql, 0, x->err, x->errlen))
		return false;
	/* The tool's own change: what the next owner's call is compared with. */
	now = settings_now(x);
	if (now == NULL)
		return false;
	free(x->settings);
	x->settings = now;
	return true;
}

/* The value of setting name (a line "name=value") in snapshot, or NULL. */
static const char *
value_in(const char *snapshot, const char *name, size_t namelen, size_t *vlen)
{
	const char *p = snapshot;

	while (*p != '\0')
	{
		size_t		n = strcspn(p, "\n");

		if (n > namelen && p[namelen] == '=' && strncmp(p, name, namelen) == 0)
		{
			*vlen = n - namelen - 1;
			return p + namelen + 1;
		}
		p += n + (p[n] == '\n');
	}
	return NULL;
}

/*
 * Every setting of now that differs from before set back to before's value
 * (set_config: a qualified function, no operator, safe whatever the
 * search path is); *changed receives the first one's name.  false with
 * err set when one cannot be.
 */
static bool
restore_settings(mig_txn *x, const mig_owner *as, const char *now, char *changed, size_t changedlen)
{
	const char *p = now;

	changed[0] = '\0';
	while (*p != '\0')
	{
		size_t		n = strcspn(p, "\n");
		size_t		namelen = strcspn(p, "=");
		size_t		vlen = 0;
		const char *was;

		if (namelen < n)
		{
			was = value_in(x->settings, p, namelen, &vlen);
			if (was == NULL || vlen != n - namelen - 1 || strncmp(was, p + namelen + 1, vlen) != 0)
			{
				char	   *name = strndup(p, namelen);
				char	   *value = was != NULL ? strndup(was, vlen) : NULL;
				const char *params[2] = {name, value};
				bool		broken;
				PGresult   *res;

				if (changed[0] == '\0')
					snprintf(changed, changedlen, "%s", name != NULL ? name : "?");
				res = value == NULL ? NULL :
					cid_pq_exec(x->conn, "SELECT pg_catalog.set_config($1, $2, false)", 2, params, 0,
								&broken, x->err, x->errlen);
				if (!cid_pq_ok(res))
				{
					char		msg[512];

					snprintf(msg, sizeof(msg), "%s", value == NULL ? "it was not set before" : x->err);
					snprintf(x->err, x->errlen, "code of %s (owner of %s) changed the session's setting %s, "
							 "which cannot be set back (%s); nothing of this step was kept",
							 as->name_q, as->table, name != NULL ? name : "?", msg);
					snprintf(x->sqlstate, sizeof(x->sqlstate), "42501");
					PQclear(res);
					free(name);
					free(value);
					return false;
				}
				PQclear(res);
				free(name);
				free(value);
			}
		}
		p += n + (p[n] == '\n');
	}
	return true;
}

/*
 * Cursors WITH HOLD the owner's code left open: closed (their query would
 * go on at COMMIT with the tool's rights).  false with err set.
 */
static bool
close_held_cursors(mig_txn *x)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(x->conn, "SELECT pg_catalog.quote_ident(c.name) FROM pg_catalog.pg_cursors c"
								  " WHERE c.is_holdable", 0, NULL, 0, &broken, x->err, x->errlen);
	int			i;

	if (!cid_pq_ok(res))
	{
		set_err(x, res);
		PQclear(res);
		return false;
	}
	for (i = 0; i < PQntuples(res); i++)
	{
		char		sql[300];

		snprintf(sql, sizeof(sql), "CLOSE %s", PQgetvalue(res, i, 0));
		if (!cid_pq_do(x->conn, sql, 0, x->err, x->errlen))
		{
			PQclear(res);
			return false;
		}
	}
	PQclear(res);
	return true;
}

/*
 * After as's code ran, before anything of the tool's is parsed: every
 * setting it changed set back, the wrapper dropped, its cursors WITH HOLD
 * closed, and nothing of someone else's code left to run at COMMIT.
 * false with err set; the caller rolls back.
 */
static bool
after_owner_code(mig_txn *x, const mig_owner *as, const char *fn)
{
	char	   *now = settings_now(x);
	char	   *sql = NULL;
	bool		broken;
	PGresult   *res;

	if (now == NULL)
		return false;
	if (strcmp(now, x->settings) != 0)
	{
		char		changed[128];
		bool		ok = restore_settings(x, as, now, changed, sizeof(changed));

		free(now);
		if (!ok)
			return false;
		now = settings_now(x);
		if (now == NULL)
			return false;
		if (strcmp(now, x->settings) != 0)
		{
			free(now);
			snprintf(x->err, x->errlen, "code of %s (owner of %s) changed the session's setting %s, which "
					 "could not be set back; nothing of this step was kept", as->name_q, as->table, changed);
			snprintf(x->sqlstate, sizeof(x->sqlstate), "42501");
			return false;
		}
		restored_note(as, changed);
	}
	free(now);
	if (!close_held_cursors(x))
		return false;
	if (asprintf(&sql, "DROP FUNCTION %s(pg_catalog.text, pg_catalog.text[]);\n%s", fn, leftovers_sql) < 0)
	{
		snprintf(x->err, x->errlen, "out of memory");
		return false;
	}
	res = cid_pq_script(x->conn, sql, 0, &broken, x->err, x->errlen);
	free(sql);
	if (!cid_pq_ok(res))
	{
		set_err(x, res);
		PQclear(res);
		return false;
	}
	if (PQntuples(res) > 0)
	{
		snprintf(x->err, x->errlen, "after running as %s (owner of %s): %s; it would run with the tool's "
				 "rights, so nothing of this step was kept (make it NOT DEFERRABLE for the move, or run "
				 "the move as %s)", as->name_q, as->table, PQgetvalue(res, 0, 0), as->name_q);
		snprintf(x->sqlstate, sizeof(x->sqlstate), "42501");
		PQclear(res);
		return false;
	}
	PQclear(res);
	return true;
}

/*
 * The function for one call, owned by as when as->wrap (else the tool's
 * own, an invoker's function: no other role's code can be in it); fn
 * receives its name.  false with err set.
 */
static bool
make_fn(mig_txn *x, const mig_owner *as, char *fn, size_t fnlen)
{
	bool		wrap = as != NULL && as->wrap;
	char		sql[1024];
	bool		broken;
	PGresult   *res;

	snprintf(fn, fnlen, "pg_temp.chronoid_as_%u", ++x->calls);
	/*
	 * SET search_path: the statements the tool hands it are written for
	 * pg_catalog first.  row_security = off: a policy that would hide rows
	 * from the owner (FORCE ROW LEVEL SECURITY) is an error, not a
	 * backfill that silently skips rows.
	 */
	snprintf(sql, sizeof(sql),
			 "CREATE FUNCTION %s(q pg_catalog.text, a pg_catalog.text[]) RETURNS SETOF pg_catalog.text[]"
			 " LANGUAGE plpgsql%s SET search_path = pg_catalog, pg_temp SET row_security = off"
			 " AS $chronoid$BEGIN IF a IS NULL THEN EXECUTE q; ELSE RETURN QUERY EXECUTE q USING a; END IF; END$chronoid$",
			 fn, wrap ? " SECURITY DEFINER" : "");
	if (wrap)
		snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql),
				 ";\nALTER FUNCTION %s(pg_catalog.text, pg_catalog.text[]) OWNER TO %s", fn, as->name_q);
	res = cid_pq_script(x->conn, sql, 0, &broken, x->err, x->errlen);
	if (!cid_pq_ok(res))
	{
		char		msg[1024];

		set_err(x, res);
		snprintf(msg, sizeof(msg), "%s", x->err);
		if (wrap)
			snprintf(x->err, x->errlen, "cannot act as %s, the owner of %s: %s (it needs the TEMPORARY "
					 "privilege on this database, and you must be able to SET ROLE to it)", as->name_q,
					 as->table, msg);
		PQclear(res);
		return false;
	}
	PQclear(res);
	return true;
}

/*
 * Runs sql through a fresh function as as: a script (no rows) or, when
 * rows, a query of one text[] column given args as its $1.  NULL with err
 * set.
 */
static PGresult *
call_as(mig_txn *x, const mig_owner *as, const char *sql, int nargs, const char *const *args, bool rows)
{
	char		fn[64];
	char		call[1024];
	const char *params[9];
	bool		broken;
	PGresult   *res;
	int			i;
	size_t		off;

	if (nargs > 8)
		nargs = 8;
	if (!make_fn(x, as, fn, sizeof(fn)))
		return NULL;
	params[0] = sql;
	if (!rows)
		snprintf(call, sizeof(call), "SELECT 1 FROM %s($1, NULL)", fn);
	else
	{
		off = (size_t) snprintf(call, sizeof(call),
								"SELECT r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8] FROM %s($1, ARRAY[", fn);
		for (i = 0; i < nargs; i++)
		{
			params[i + 1] = args[i];
			off += (size_t) snprintf(call + off, sizeof(call) - off, "%s$%d", i ? ", " : "", i + 2);
		}
		snprintf(call + off, sizeof(call) - off, "]::pg_catalog.text[]) r");
	}
	res = cid_pq_exec(x->conn, call, rows ? nargs + 1 : 1, params, 0, &broken, x->err, x->errlen);
	if (!cid_pq_ok(res))
	{
		char		msg[1024];

		set_err(x, res);
		if (as != NULL && as->wrap)
		{
			snprintf(msg, sizeof(msg), "%s", x->err);
			snprintf(x->err, x->errlen, "as %s (owner of %s): %s", as->name_q, as->table, msg);
		}
		PQclear(res);
		return NULL;
	}
	if (as != NULL && as->wrap)
	{
		if (!after_owner_code(x, as, fn))
		{
			PQclear(res);
			return NULL;
		}
	}
	else
	{
		snprintf(call, sizeof(call), "DROP FUNCTION %s(pg_catalog.text, pg_catalog.text[])", fn);
		if (!cid_pq_do(x->conn, call, 0, x->err, x->errlen))
		{
			PQclear(res);
			return NULL;
		}
	}
	return res;
}

bool
mig_txn_do(mig_txn *x, const mig_owner *as, const char *sql)
{
	PGresult   *res;
	bool		broken;

	x->sqlstate[0] = '\0';
	if (as != NULL && as->wrap)
		res = call_as(x, as, sql, 0, NULL, false);
	else
	{
		res = cid_pq_script(x->conn, sql, 0, &broken, x->err, x->errlen);
		if (!cid_pq_ok(res))
		{
			set_err(x, res);
			PQclear(res);
			res = NULL;
		}
	}
	PQclear(res);
	return res != NULL;
}

PGresult *
mig_txn_rows(mig_txn *x, const mig_owner *as, const char *sql, int nargs, const char *const *args)
{
	x->sqlstate[0] = '\0';
	return call_as(x, as, sql, nargs, args, true);
}

bool
mig_txn_commit(mig_txn *x)
{
	bool		ok = true;

	if (x->own_begin)
	{
		PGresult   *res;
		bool		broken;

		res = cid_pq_exec(x->conn, "COMMIT", 0, NULL, 0, &broken, x->err, x->errlen);
		ok = cid_pq_ok(res);
		if (!ok)
			set_err(x, res);
		PQclear(res);
		if (!ok)
			(void) cid_pq_do(x->conn, "ROLLBACK", 0, NULL, 0);
	}
	free(x->settings);
	x->settings = NULL;
	return ok;
}

bool
mig_check_session(PGconn *conn, char *err, size_t errlen)
{
	bool		broken;
	PGresult   *res = cid_pq_exec(conn, "SELECT CURRENT_USER OPERATOR(pg_catalog.=) SESSION_USER,"
									" pg_catalog.quote_ident(CURRENT_USER), pg_catalog.quote_ident(SESSION_USER)",
									0, NULL, 0, &broken, err, errlen);
	bool		ok;

	if (!cid_pq_ok(res))
	{
		PQclear(res);
		return false;
	}
	ok = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	if (!ok)
		snprintf(err, errlen, "this session acts as role %s but logged in as %s (a role set by ALTER ROLE "
				 "or ALTER DATABASE ... SET role, or options=-crole=): code of %s that the tool runs could "
				 "RESET ROLE to %s; log in as %s instead, or as %s without that setting",
				 PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2), PQgetvalue(res, 0, 1),
				 PQgetvalue(res, 0, 2), PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2));
	PQclear(res);
	return ok;
}
