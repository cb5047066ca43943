/*
 * migrate_triggers.c — the tool's UPDATEs change nothing but the columns
 * the migration added: the tables' own triggers (a touch of updated_at, a
 * version counter, an outbox row, a NOTIFY) do not fire for them
 * (docs/migrate.md, "The table's triggers").
 *
 * The statements that write rows of the user's tables: the backfill's
 * batches and its catch-up (the table's new column), the children's
 * batches and catch-up (<fk>_new), and rollback's fill of the children's
 * old column.  Each runs in a transaction that first sets, as the tool,
 * SET LOCAL session_replication_role = replica: ordinary (ENABLE)
 * triggers do not fire, ENABLE REPLICA and ENABLE ALWAYS ones do, and
 * those are refused unless --fire-triggers.  So are all of them when the
 * role may not set it (only a superuser, or from PostgreSQL 15 a role
 * granted SET ON PARAMETER, may).  Nobody's code gains a right by it: the
 * setting only keeps code from running.
 *
 * replica also keeps the foreign keys' internal triggers from firing for
 * those statements.  None of them would act: each statement sets only a
 * column the migration added, which no foreign key of the table's
 * involves while it is written (the children's keys move to the new
 * columns in the swap's transaction; rollback drops a child's key before
 * its fill and adds it again NOT VALID, then validates it, a scan that no
 * setting skips), and a foreign key's trigger acts on an UPDATE only when
 * the key's own columns change.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"
#include "pq_internal.h"

/*
 * The triggers on UPDATE of the tables in $1 (oid[]), a line naming each
 * (in byte order) and how it is enabled (O, R, A; D, off, is left out).
 * Not the tool's own: the children's sync triggers, named for the child
 * and column, calling the function of that name in the state schema ($2),
 * which fill only the new columns; not any function there, as the state
 * schema may be one the application uses too.  Internal triggers (foreign
 * keys) are above.  A trigger with a column list (UPDATE OF) is listed
 * whatever its columns: a generated column over the new one would be
 * among those the UPDATE changes.
 */
#define TRIGGERS_SQL \
"SELECT pg_catalog.format('%s: trigger %s, function %s%s', t.tgrelid::pg_catalog.regclass," \
"       pg_catalog.quote_ident(t.tgname), t.tgfoid::pg_catalog.regprocedure," \
"       CASE t.tgenabled WHEN 'A' THEN ' (ENABLE ALWAYS)' WHEN 'R' THEN ' (ENABLE REPLICA)' ELSE '' END)" \
"       COLLATE pg_catalog.\"C\"," \
"       t.tgenabled::pg_catalog.text" \
"  FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid" \
" WHERE t.tgrelid = ANY ($1::pg_catalog.oid[]) AND NOT t.tgisinternal AND t.tgenabled <> 'D'" \
"   AND (t.tgtype::pg_catalog.int4 & 16) <> 0" \
"   AND NOT (t.tgname OPERATOR(pg_catalog.~) '^chronoid_mig_[0-9]+_[0-9]+_sync$' AND p.proname = t.tgname" \
"        AND p.pronamespace = COALESCE(pg_catalog.to_regnamespace($2)::pg_catalog.oid, '0'::pg_catalog.oid))"

/* Those that fire now, in this transaction, with its session_replication_role. */
#define FIRING_SQL TRIGGERS_SQL \
"   AND (t.tgenabled = 'A' OR t.tgenabled = CASE pg_catalog.current_setting('session_replication_role')" \
"        WHEN 'replica' THEN 'R' ELSE 'O' END)" \
" ORDER BY 1"

/* The table and its children, as an oid[] literal. */
static void
tables(const mig_ctx *c, mig_buf *b)
{
	int			i;

	mig_buf_printf(b, "{%u", c->t.relid);
	for (i = 0; i < c->t.nchildren; i++)
		mig_buf_printf(b, ",%u", c->t.children[i].relid);
	mig_buf_printf(b, "}");
}

/* Whether this role may SET session_replication_role: tried in a transaction rolled back. */
static bool
may_set(mig_ctx *c, bool *may)
{
	PGresult   *res;

	if (!mig_do(c, "BEGIN"))
		return false;
	res = mig_query(c, "SELECT pg_catalog.set_config('session_replication_role', 'replica', true)", 0, NULL);
	*may = res != NULL;
	PQclear(res);
	/* The refusal is the answer, not an error. */
	c->err[0] = '\0';
	return mig_do(c, "ROLLBACK");
}

/* The lines of lines joined by "; ", malloc'd (NULL when out of memory). */
static char *
joined(const char *lines)
{
	char	   *s = malloc(2 * strlen(lines) + 1);
	char	   *o = s;
	const char *p;

	if (s == NULL)
		return NULL;
	for (p = lines; *p != '\0'; p++)
	{
		if (*p != '\n')
			*o++ = *p;
		else if (p[1] != '\0')
		{
			*o++ = ';';
			*o++ = ' ';
		}
	}
	*o = '\0';
	return s;
}

void
mig_trig_free(mig_ctx *c)
{
	free(c->trig_fire);
	free(c->trig_skipped);
	c->trig_fire = c->trig_skipped = NULL;
}

bool
mig_trig_check(mig_ctx *c, bool refuse)
{
	mig_buf		oids = {0},
				fire_o = {0},
				fire_r = {0},
				off_r = {0};
	const char *params[2];
	PGresult   *res;
	bool		replica_now = false;
	int			i;

	mig_trig_free(c);
	c->trig_replica = false;
	if (!may_set(c, &c->trig_may_set))
		return false;
	res = mig_query(c, "SELECT pg_catalog.current_setting('session_replication_role') = 'replica'", 0, NULL);
	if (res == NULL)
		return false;
	replica_now = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	tables(c, &oids);
	params[0] = oids.s;
	params[1] = c->state_q;
	res = mig_query(c, TRIGGERS_SQL " ORDER BY 1", 2, params);
	mig_buf_free(&oids);
	if (res == NULL)
		return false;
	/* What fires with each value of session_replication_role, and what replica keeps off. */
	for (i = 0; i < PQntuples(res); i++)
	{
		const char *line = PQgetvalue(res, i, 0);
		char		how = PQgetvalue(res, i, 1)[0];

		if (how != 'R')
			mig_buf_printf(&fire_o, "%s\n", line);
		if (how != 'O')
			mig_buf_printf(&fire_r, "%s\n", line);
		else
			mig_buf_printf(&off_r, "%s\n", line);
	}
	PQclear(res);
	/*
	 * The session's own value, when nothing fires with it; else replica
	 * where the role may set it; else what fires as the session is.
	 */
	if ((replica_now ? fire_r.len : fire_o.len) == 0 || replica_now || !c->trig_may_set)
	{
		c->trig_fire = strdup(replica_now ? (fire_r.s ? fire_r.s : "") : (fire_o.s ? fire_o.s : ""));
		c->trig_skipped = strdup(replica_now && off_r.s ? off_r.s : "");
	}
	else
	{
		c->trig_replica = true;
		c->trig_fire = strdup(fire_r.s ? fire_r.s : "");
		c->trig_skipped = strdup(off_r.s ? off_r.s : "");
	}
	mig_buf_free(&fire_o);
	mig_buf_free(&fire_r);
	mig_buf_free(&off_r);
	if (c->trig_fire == NULL || c->trig_skipped == NULL)
	{
		snprintf(c->err, sizeof(c->err), "out of memory");
		return false;
	}
	if (c->trig_fire[0] == '\0' || !refuse || c->o->fire_triggers)
		return true;
	{
		char	   *list = joined(c->trig_fire);

		snprintf(c->err, sizeof(c->err), "these triggers would fire on every row the migration writes "
				 "(the backfill's UPDATE of %s, the children's, rollback's), changing what they change "
				 "(a timestamp, a version, a NOTIFY, an outbox row): %s; %s; disable them for the move "
				 "(ALTER TABLE ... DISABLE TRIGGER), or pass --fire-triggers to let them fire (they then run "
				 "with search_path pg_catalog, pg_temp: a function that names a table without its schema fails)",
				 c->t.new_q, list != NULL ? list : "?",
				 c->trig_replica || replica_now ? "ENABLE ALWAYS and ENABLE REPLICA triggers fire even with "
				 "session_replication_role = replica, which the tool sets for its own UPDATEs" :
				 "session_replication_role = replica would keep the ordinary ones from firing, but this role may "
				 "not set it (a superuser may; on PostgreSQL 15 and later: GRANT SET ON PARAMETER "
				 "session_replication_role TO the role running the tool)");
		free(list);
	}
	return false;
}

bool
mig_trig_quiet(mig_ctx *c, mig_txn *x, bool on)
{
	if (!c->trig_replica)
		return true;
	/* Never set by the owner's code: a SET is checked against the role current at it. */
	return mig_txn_set(x, on ? "SET LOCAL session_replication_role = replica"
					   : "SET LOCAL session_replication_role TO DEFAULT");
}

bool
mig_trig_verify(mig_ctx *c, mig_txn *x)
{
	mig_buf		oids = {0};
	const char *params[2];
	bool		broken;
	PGresult   *res;
	bool		ok;

	if (c->o->fire_triggers)
		return true;
	tables(c, &oids);
	params[0] = oids.s;
	params[1] = c->state_q;
	res = cid_pq_exec(x->conn, FIRING_SQL, 2, params, 0, &broken, x->err, x->errlen);
	mig_buf_free(&oids);
	if (!cid_pq_ok(res))
	{
		snprintf(x->sqlstate, sizeof(x->sqlstate), "%s", res != NULL ? cid_pq_sqlstate(res) : "");
		PQclear(res);
		return false;
	}
	ok = PQntuples(res) == 0;
	if (!ok)
		snprintf(x->err, x->errlen, "a trigger created or enabled since the migration began fired on the rows "
				 "it wrote: %s; nothing of this transaction was kept (run again: it refuses, naming each, "
				 "or takes --fire-triggers)", PQgetvalue(res, 0, 0));
	PQclear(res);
	return ok;
}

PGresult *
mig_trig_rows(mig_ctx *c, mig_txn *x, const mig_owner *as, const char *sql, int nargs, const char *const *args)
{
	PGresult   *res;

	if (!mig_trig_quiet(c, x, true))
		return NULL;
	res = mig_txn_rows(x, as, sql, nargs, args);
	if (res != NULL && (!mig_trig_verify(c, x) || !mig_trig_quiet(c, x, false)))
	{
		PQclear(res);
		res = NULL;
	}
	return res;
}

void
mig_trig_plan(const mig_ctx *c)
{
	const char *fire = c->trig_fire != NULL ? c->trig_fire : "";
	const char *off = c->trig_skipped != NULL ? c->trig_skipped : "";
	const char *p;

	if (fire[0] == '\0' && off[0] == '\0')
	{
		printf("  - no trigger of %s%s fires on UPDATE: the migration's UPDATEs change only the new columns\n",
			   c->t.qname, c->t.nchildren > 0 ? " or its children" : "");
		return;
	}
	if (off[0] != '\0')
	{
		printf("  - the migration's UPDATEs (backfill, children, catch-up, rollback) run with\n"
			   "    session_replication_role = replica, set for each of their transactions: these\n"
			   "    triggers do not fire on them, and the rows keep what they hold but for the new columns:\n");
		for (p = off; *p != '\0'; p += strcspn(p, "\n") + 1)
			printf("      %.*s\n", (int) strcspn(p, "\n"), p);
	}
	if (fire[0] != '\0')
	{
		printf("  - these triggers fire on every row the migration's UPDATEs write (backfill, children,\n"
			   "    catch-up, rollback):\n");
		for (p = fire; *p != '\0'; p += strcspn(p, "\n") + 1)
			printf("      %.*s\n", (int) strcspn(p, "\n"), p);
		if (!c->trig_replica && !c->trig_may_set)
			printf("    session_replication_role = replica would keep ordinary triggers from firing, but\n"
				   "    this role may not set it (a superuser may; on PostgreSQL 15 and later, GRANT SET ON\n"
				   "    PARAMETER session_replication_role TO the role);");
		else
			printf("    ENABLE ALWAYS and ENABLE REPLICA triggers fire even with session_replication_role\n"
				   "    = replica;");
		printf(" %s\n", c->o->fire_triggers ? "--fire-triggers lets them: they run with search_path\n"
			   "    pg_catalog, pg_temp (a function that names a table without its schema fails)"
			   : "run and rollback refuse, naming each, unless --fire-triggers");
	}
}
