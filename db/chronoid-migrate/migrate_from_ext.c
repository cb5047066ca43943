/*
 * migrate_from_ext.c — "chronoid migrate from-extension NAME [--plan]":
 * switch a database from pgEdge snowflake, pg_uuidv7 or pgx_ulid to
 * chronoid in place, in one transaction, from a fresh connection.
 *
 * Order of work: refuse what cannot work before touching anything (the
 * old extension missing, chronoid already there, the old library loaded,
 * no superuser, dependents the switch cannot carry over); then, in one
 * transaction, take the inventory (migrate_from_ext_sql.c), print the
 * plan, and either roll back (--plan) or run every step and commit.  Any
 * error rolls everything back: nothing has changed.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_internal.h"
#include "clock_internal.h"
#include "migrate_from_ext_internal.h"
#include "migrate_internal.h"
#include "pq_internal.h"

/* Bounded waits for the inventory; the steps themselves are not bounded. */
#define FX_QUERY_MS 60000

static const char *const pgedge_ext[] = {"snowflake", NULL};
static const char *const uuidv7_ext[] = {"pg_uuidv7", NULL};
static const char *const ulid_ext[] = {"ulid", "pgx_ulid", NULL};

static const fx_source fx_sources[] = {
	{"snowflake", "pgedge", pgedge_ext, pgedge_ext, "pgEdge snowflake"},
	{"pg_uuidv7", "uuidv7", uuidv7_ext, uuidv7_ext, "pg_uuidv7"},
	{"pgx_ulid", "ulid", ulid_ext, ulid_ext, "pgx_ulid"},
};

typedef struct fx_run
{
	const mig_opts *o;
	const fx_source *src;
	PGconn	   *conn;
	char		extname[64];
	char		err[4096];
} fx_run;

/* A server-provided string, on one line, for a message. */
static const char *
one_line(char *buf, size_t len, const char *s)
{
	cid_pq_one_line(buf, len, s);
	return buf;
}

/* One statement without parameters; false with r->err set. */
static bool
fx_do(fx_run *r, const char *sql)
{
	return cid_pq_do(r->conn, sql, FX_QUERY_MS, r->err, sizeof(r->err));
}

static PGresult *
fx_rows(fx_run *r, const char *sql, int nparams, const char *const *params)
{
	bool		broken = false;
	PGresult   *res = cid_pq_exec(r->conn, sql, nparams, params, FX_QUERY_MS,
								  &broken, r->err, sizeof(r->err));

	if (res != NULL && !cid_pq_ok(res))
	{
		PQclear(res);
		return NULL;
	}
	return res;
}

/* The first value of a one-row query, "" for NULL; false on error. */
static bool
fx_value(fx_run *r, const char *sql, int nparams, const char *const *params,
		 char *out, size_t outlen)
{
	PGresult   *res = fx_rows(r, sql, nparams, params);

	if (res == NULL)
		return false;
	snprintf(out, outlen, "%s", PQntuples(res) > 0 ? PQgetvalue(res, 0, 0) : "");
	PQclear(res);
	return true;
}

/* Whether a *_preload_libraries value names one of libs. */
static bool
lists_library(const char *setting, const char *const *libs)
{
	const char *p = setting;

	while (*p != '\0')
	{
		const char *start;
		const char *end;
		const char *base;
		size_t		n;

		while (*p == ' ' || *p == ',' || *p == '"' || *p == '\t')
			p++;
		start = p;
		while (*p != '\0' && *p != ',')
			p++;
		end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '"' || end[-1] == '\t'))
			end--;
		base = start;
		for (const char *q = start; q < end; q++)
			if (*q == '/')
				base = q + 1;
		n = (size_t) (end - base);
		if (n > 3 && strncmp(end - 3, ".so", 3) == 0)
			n -= 3;
		for (int i = 0; libs[i] != NULL; i++)
			if (n > 0 && strlen(libs[i]) == n && strncmp(base, libs[i], n) == 0)
				return true;
	}
	return false;
}

/*
 * Everything that makes the switch impossible from this connection, checked
 * before the transaction: one message each, naming the object and the fix.
 */
static int
fx_preflight(fx_run *r, bool *preloaded_old)
{
	static const char *const settings[] = {
		"shared_preload_libraries", "session_preload_libraries", "local_preload_libraries"
	};
	char		v[1024];
	char		db[256];
	char		line[512];
	char		names[256] = "{";
	const char *params[1];
	int			refused = 0;

	*preloaded_old = false;
	if (!fx_value(r, "SELECT pg_catalog.current_database()", 0, NULL, db, sizeof(db)))
		return MIG_EXIT_FAIL;
	one_line(db, sizeof(db), db);

	if (!fx_value(r, "SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER",
				  0, NULL, v, sizeof(v)))
		return MIG_EXIT_FAIL;
	if (strcmp(v, "t") != 0)
	{
		cli_error(FX_SUB, "role %s is not a superuser: the switch drops extension %s and creates "
				  "chronoid, which needs one; connect as a superuser (-d 'user=postgres ...')",
				  one_line(line, sizeof(line), PQuser(r->conn)), r->src->label);
		return MIG_EXIT_FAIL;
	}

	for (int i = 0; r->src->extnames[i] != NULL; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i > 0 ? "," : "", r->src->extnames[i]);
	strncat(names, "}", sizeof(names) - strlen(names) - 1);
	params[0] = names;
	if (!fx_value(r, "SELECT e.extname FROM pg_catalog.pg_extension e"
				  " WHERE e.extname = ANY ($1::pg_catalog.text[]) ORDER BY 1 LIMIT 1",
				  1, params, r->extname, sizeof(r->extname)))
		return MIG_EXIT_FAIL;
	if (r->extname[0] == '\0')
	{
		cli_error(FX_SUB, "extension %s is not installed in database %s: nothing to switch "
				  "(connect to the database that has it, -d 'dbname=...')",
				  r->src->extnames[0], db);
		return MIG_EXIT_FAIL;
	}

	if (!fx_value(r, "SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname = 'chronoid'",
				  0, NULL, v, sizeof(v)))
		return MIG_EXIT_FAIL;
	if (v[0] != '\0')
	{
		cli_error(FX_SUB, "extension chronoid is already installed in database %s: the switch "
				  "creates it; if nothing uses it yet, DROP EXTENSION chronoid and run the switch "
				  "again, else move the %s objects over by hand (docs/migrate-extensions.md)",
				  db, r->src->label);
		refused++;
	}
	if (!fx_value(r, "SELECT a.name FROM pg_catalog.pg_available_extensions a WHERE a.name = 'chronoid'",
				  0, NULL, v, sizeof(v)))
		return MIG_EXIT_FAIL;
	if (v[0] == '\0')
	{
		cli_error(FX_SUB, "chronoid's extension files are not installed on this server: install "
				  "them first (make -C pg install, or the postgresql-NN-chronoid package)");
		refused++;
	}

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
	{
		params[0] = settings[i];
		if (!fx_value(r, "SELECT pg_catalog.current_setting($1)", 1, params, v, sizeof(v)))
			return MIG_EXIT_FAIL;
		if (!lists_library(v, r->src->libraries))
			continue;
		if (strcmp(r->src->kind, "pgedge") == 0)
		{
			cli_error(FX_SUB, "%s lists pgEdge's library (%s): a backend that loaded it cannot "
					  "load chronoid (both define snowflake.node); remove it there%s, then run "
					  "the switch again", settings[i], one_line(line, sizeof(line), v),
					  i == 0 ? " and restart the server" : " (ALTER SYSTEM/ROLE/DATABASE ... RESET)");
			refused++;
		}
		else
			*preloaded_old = true;
	}
	if (strcmp(r->src->kind, "pgedge") == 0)
	{
		if (!fx_value(r, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_settings s"
					  " WHERE s.name = 'snowflake.node'"
					  "   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_settings m"
					  "                    WHERE m.name = 'snowflake.max_run_ahead')",
					  0, NULL, v, sizeof(v)))
			return MIG_EXIT_FAIL;
		if (strcmp(v, "0") != 0)
		{
			cli_error(FX_SUB, "pgEdge's library is loaded in this connection (it defines "
					  "snowflake.node), so chronoid's cannot be: run the switch from a new "
					  "connection that has not loaded it (not through a pooler's reused one)");
			refused++;
		}
	}
	return refused > 0 ? MIG_EXIT_FAIL : MIG_EXIT_OK;
}

/* Runs the inventory into pg_temp; false with r->err set. */
static bool
fx_inventory(fx_run *r)
{
	char		sql[1024];

	/* Only constants of fx_sources go into this text: no user input. */
	snprintf(sql, sizeof(sql),
			 "CREATE TEMP TABLE fx_ctx ON COMMIT DROP AS"
			 " SELECT e.oid AS ext, e.extname::pg_catalog.text AS extname, e.extversion,"
			 "        n.nspname::pg_catalog.text AS extnsp,"
			 "        %s AS target, '%s'::pg_catalog.text AS kind,"
			 "        'chronoid_migrate_old'::pg_catalog.text AS scratch"
			 "   FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"
			 "  WHERE e.extname = '%s'",
			 strcmp(r->src->kind, "pgedge") == 0 ? "'public'::pg_catalog.text" : "n.nspname::pg_catalog.text",
			 r->src->kind, r->extname);
	if (!fx_do(r, sql))
		return false;
	for (int i = 0; fx_inventory_sql[i] != NULL; i++)
		if (!fx_do(r, fx_inventory_sql[i]))
			return false;
	return true;
}

/* Runs every step; false (the caller rolls back) at the first failure. */
static bool
fx_run_steps(fx_run *r, PGresult *steps)
{
	int			n = PQntuples(steps);
	mig_txn		x;

	/*
	 * In the transaction begun by the caller.  A step that runs a table
	 * owner's code (a rewrite re-checks CHECKs and domains, an index
	 * evaluates its expressions, a foreign key its check) runs as that
	 * owner (migrate_as_owner.c).
	 */
	if (!mig_txn_begin(&x, r->conn, true, -1, r->err, sizeof(r->err)))
		return false;

	printf("\nSwitching:\n");
	for (int i = 0; i < n; i++)
	{
		const char *what = PQgetvalue(steps, i, 0);
		const char *sql = PQgetvalue(steps, i, 1);
		bool		expect = strcmp(PQgetvalue(steps, i, 4), "t") == 0;
		int64_t		t0 = cid_clock_monotonic_ms();
		bool		broken = false;
		PGresult   *res;
		char		line[512];
		mig_owner	as;

		memset(&as, 0, sizeof(as));
		as.oid = (uint32_t) strtoul(PQgetvalue(steps, i, 5), NULL, 10);
		snprintf(as.name_q, sizeof(as.name_q), "%s", PQgetvalue(steps, i, 6));
		as.wrap = strcmp(PQgetvalue(steps, i, 7), "t") == 0;
		snprintf(as.table, sizeof(as.table), "%s", PQgetvalue(steps, i, 8));
		fflush(stdout);
		if (as.wrap)
		{
			/* A statement, no rows: the checks run as the tool. */
			res = mig_txn_do(&x, &as, sql) ? PQmakeEmptyPGresult(r->conn, PGRES_COMMAND_OK) : NULL;
			if (res == NULL)
				res = PQmakeEmptyPGresult(r->conn, PGRES_FATAL_ERROR);
		}
		else
			res = cid_pq_script(r->conn, sql, 0, &broken, r->err, sizeof(r->err));
		if (res == NULL || !cid_pq_ok(res))
		{
			char		msg[2048];
			bool		timeout = res != NULL && (strcmp(cid_pq_sqlstate(res), "55P03") == 0 ||
											  strcmp(x.sqlstate, "55P03") == 0);

			snprintf(msg, sizeof(msg), "%.2000s", r->err);
			snprintf(r->err, sizeof(r->err), "step %d of %d (%s) failed: %s%s", i + 1, n,
					 one_line(line, sizeof(line), what), msg,
					 timeout ? "; another session holds a lock it needs: run it when that "
					 "table is quiet, or give it longer (--lock-timeout)" : "");
			PQclear(res);
			free(x.settings);
			return false;
		}
		if (expect && (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), "t") != 0))
		{
			snprintf(r->err, sizeof(r->err), "step %d of %d (%s) failed: the check returned %s",
					 i + 1, n, one_line(line, sizeof(line), what),
					 PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) ? PQgetvalue(res, 0, 0) : "no row");
			PQclear(res);
			free(x.settings);
			return false;
		}
		PQclear(res);
		printf("  %3d. %s (%" PRId64 " ms)\n", i + 1, one_line(line, sizeof(line), what), cid_clock_monotonic_ms() - t0);
	}
	/* The caller commits. */
	free(x.settings);
	return true;
}

/*
 * pgEdge: how many IDs already sit in more than one of the columns its
 * defaults fill.  pgEdge mints each sequence apart, so two tables can hold
 * one ID; chronoid mints every snowflake of a database from one ID space.
 * A read of each such column (as step 45 reads its highest ID); false with
 * r->err set.
 */
static bool
fx_print_repeats(fx_run *r)
{
	static const char head[] = "SELECT pg_catalog.count(*) FROM (SELECT id FROM (";
	static const char tail[] = ") u GROUP BY id HAVING pg_catalog.count(*) > 1) d";
	char		n[32];
	PGresult   *res;
	size_t		len;
	char	   *sql;
	bool		ok;

	res = fx_rows(r, "SELECT pg_catalog.count(*), pg_catalog.string_agg(pg_catalog.format("
				  "'SELECT DISTINCT %I AS id FROM %s WHERE %I IS NOT NULL', attname, rel, attname), ' UNION ALL ')"
				  " FROM pg_temp.fx_default, pg_temp.fx_ctx x"
				  " WHERE x.kind = 'pgedge' AND attgenerated = '' AND relkind IN ('r', 'p')"
				  "   AND atttypid = 'pg_catalog.int8'::pg_catalog.regtype", 0, NULL);
	if (res == NULL)
		return false;
	if (strtol(PQgetvalue(res, 0, 0), NULL, 10) < 2)
	{
		PQclear(res);
		return true;
	}
	len = sizeof(head) + strlen(PQgetvalue(res, 0, 1)) + sizeof(tail);
	sql = malloc(len);
	if (sql == NULL)
	{
		PQclear(res);
		snprintf(r->err, sizeof(r->err), "out of memory");
		return false;
	}
	snprintf(sql, len, "%s%s%s", head, PQgetvalue(res, 0, 1), tail);
	PQclear(res);
	ok = fx_value(r, sql, 0, NULL, n, sizeof(n));
	free(sql);
	if (!ok)
		return false;
	if (strcmp(n, "0") != 0)
		printf("\nNote: %s IDs already repeat across tables: pgEdge minted them from separate sequences, "
			   "and they stay as they are.  From the switch on, every snowflake of this database "
			   "comes from chronoid's one ID space (whatever sequence a default names), so no new ID "
			   "repeats another table's.\n", n);
	return true;
}

static const fx_source *
fx_find_source(const char *name)
{
	for (size_t i = 0; i < sizeof(fx_sources) / sizeof(fx_sources[0]); i++)
		if (name != NULL && strcmp(name, fx_sources[i].arg) == 0)
			return &fx_sources[i];
	return NULL;
}

/* Prints the refusals; true when there were any. */
/*
 * The schema chronoid goes into (the old extension's, so that the
 * defaults' text names chronoid's functions) must be trusted
 * (cid_pq_schema_trusted): the switch names it in every later step, and
 * whoever could rename it and make another could have the defaults bind
 * to functions of its own, run by every insert from then on.  False with
 * *refused (the refusal printed) or r->err set.
 */
static bool
fx_target_trusted(fx_run *r, bool *refused)
{
	char		target[128];
	char		why[1024];
	int			rc;

	*refused = false;
	if (!fx_value(r, "SELECT target FROM pg_temp.fx_ctx", 0, NULL, target, sizeof(target)))
		return false;
	rc = cid_pq_schema_trusted(r->conn, target, FX_QUERY_MS, why, sizeof(why), r->err, sizeof(r->err));
	if (rc != 0)
		return rc == 1;
	cli_error(FX_SUB, "cannot switch in schema %s: %s; whoever controls it could rename it during "
			  "the switch and have the defaults call functions of its own.  Run the switch as "
			  "that schema's owner, or make it a superuser's for it (docs/migrate.md, \"Trust\")",
			  target, why);
	cli_error(FX_SUB, "refused; nothing has changed in database %s", PQdb(r->conn));
	*refused = true;
	return false;
}

static bool
fx_refused(fx_run *r, PGresult *res)
{
	char		what[512];
	char		why[1024];

	for (int i = 0; i < PQntuples(res); i++)
		cli_error(FX_SUB, "cannot carry over %s: %s",
				  one_line(what, sizeof(what), PQgetvalue(res, i, 0)),
				  one_line(why, sizeof(why), PQgetvalue(res, i, 1)));
	if (PQntuples(res) > 0)
		cli_error(FX_SUB, "refused: %d object%s above; nothing has changed in database %s",
				  PQntuples(res), PQntuples(res) == 1 ? "" : "s", PQdb(r->conn));
	return PQntuples(res) > 0;
}

int
mig_from_extension(const mig_opts *o)
{
	fx_run		r;
	PGresult   *refusals = NULL;
	PGresult   *summary = NULL;
	PGresult   *objects = NULL;
	PGresult   *steps = NULL;
	bool		preloaded_old = false;
	bool		refused;
	int			rc = MIG_EXIT_FAIL;
	char		sql[128];

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.src = fx_find_source(o->extension);
	if (r.src == NULL)
	{
		const char *e = o->extension != NULL ? o->extension : "";

		cli_error_value(FX_SUB, "unknown extension ", e, strlen(e),
						": expected snowflake (pgEdge), pg_uuidv7 or pgx_ulid");
		return MIG_EXIT_USAGE;
	}
	r.conn = cid_pq_connect(o->conninfo, "chronoid migrate from-extension", 10000,
							r.err, sizeof(r.err));
	if (r.conn == NULL || !mig_check_session(r.conn, r.err, sizeof(r.err)))
	{
		cli_error(FX_SUB, "%s", r.err);
		PQfinish(r.conn);
		return MIG_EXIT_FAIL;
	}
	rc = fx_preflight(&r, &preloaded_old);
	if (rc != MIG_EXIT_OK)
	{
		if (r.err[0] != '\0')
			cli_error(FX_SUB, "%s", r.err);
		else
			cli_error(FX_SUB, "refused; nothing has changed");
		PQfinish(r.conn);
		return MIG_EXIT_FAIL;
	}
	rc = MIG_EXIT_FAIL;

	snprintf(sql, sizeof(sql), "SET LOCAL lock_timeout = %" PRId64,
			 o->lock_timeout_ms > 0 ? o->lock_timeout_ms : (int64_t) 0);
	if (!fx_do(&r, "BEGIN") || !fx_do(&r, sql) || !fx_inventory(&r))
		goto fail;
	if (!fx_target_trusted(&r, &refused))
	{
		if (!refused)
			goto fail;
		(void) fx_do(&r, "ROLLBACK");
		goto done;
	}
	if ((refusals = fx_rows(&r, fx_refusals_sql, 0, NULL)) == NULL)
		goto fail;
	if (fx_refused(&r, refusals))
	{
		(void) fx_do(&r, "ROLLBACK");
		goto done;
	}
	if ((summary = fx_rows(&r, fx_summary_sql, 0, NULL)) == NULL ||
		(objects = fx_rows(&r, fx_objects_sql, 0, NULL)) == NULL ||
		(steps = fx_rows(&r, fx_steps_sql, 0, NULL)) == NULL)
		goto fail;
	fx_print_plan(summary, objects, steps, r.src);
	if (strcmp(r.src->kind, "pgedge") == 0 && !fx_print_repeats(&r))
		goto fail;
	if (preloaded_old)
		printf("\nNote: a *_preload_libraries setting lists %s's library: remove it there "
			   "(and restart, for shared_preload_libraries) after the switch.\n", r.src->label);
	if (o->plan_only)
	{
		if (!fx_do(&r, "ROLLBACK"))
			goto fail;
		printf("\n--plan: nothing has changed.\n");
		rc = MIG_EXIT_OK;
		goto done;
	}
	if (!fx_run_steps(&r, steps) || !fx_do(&r, "COMMIT"))
		goto fail;
	printf("\nDone: database %s uses chronoid; extension %s is gone.\n"
		   "Recycle every pooled connection that called %s's functions: it keeps the old "
		   "library loaded%s.\n", PQdb(r.conn), r.extname, r.src->label,
		   strcmp(r.src->kind, "pgedge") == 0 ?
		   " and cannot load chronoid's (both define snowflake.node)" : "");
	rc = MIG_EXIT_OK;
	goto done;

fail:
	{
		char		msg[2048];

		snprintf(msg, sizeof(msg), "%.2000s", r.err);
		if (PQstatus(r.conn) == CONNECTION_OK)
			(void) cid_pq_do(r.conn, "ROLLBACK", FX_QUERY_MS, NULL, 0);
		cli_error(FX_SUB, "%s; rolled back: nothing has changed", msg);
	}
done:
	PQclear(refusals);
	PQclear(summary);
	PQclear(objects);
	PQclear(steps);
	PQfinish(r.conn);
	return rc;
}
