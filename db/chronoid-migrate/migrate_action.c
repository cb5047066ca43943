/*
 * migrate_action.c — one table's action (plan, run, status, swap,
 * rollback, finish, subscriber-ddl): connect, resolve the table and its
 * state, check what every action needs, then hand over to the step's
 * file.  Above the steps: they never call back up here.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"
#include "pq_internal.h"

/*
 * Whether the action writes rows of the table or its children: run up to
 * the CHECKs (the backfills, the catch-up before them), rollback after a
 * swap (the children's old column, then the catch-up).  Rollback before
 * the swap drops columns and writes no row.
 */
static bool
writes_rows(const mig_ctx *c)
{
	if (strcmp(c->o->action, "run") == 0)
		return !c->st.exists || c->st.step < MIG_CHECKED;
	if (strcmp(c->o->action, "rollback") == 0)
		return c->st.exists && (c->st.step == MIG_SWAPPED || c->st.step == MIG_DONE || c->st.step == MIG_ROLLING);
	return false;
}

int
mig_table_action(const mig_opts *o)
{
	mig_ctx    *c = calloc(1, sizeof(*c));
	int			rc = MIG_EXIT_FAIL;
	bool		is_plan = strcmp(o->action, "plan") == 0;
	bool		is_status = strcmp(o->action, "status") == 0;
	/* subscriber-ddl: prints, reads only (like status) */
	bool		is_print = strcmp(o->action, "subscriber-ddl") == 0;
	enum mig_sub_step sub_step = MIG_SUB_SWAP;

	if (c == NULL)
	{
		cli_error(o->sub, "out of memory");
		return MIG_EXIT_FAIL;
	}
	c->o = o;
	if (!mig_connect(c))
		goto fail;
	{
		const char *params[1] = {o->schema};
		PGresult   *res = mig_query(c, "SELECT pg_catalog.quote_ident($1)", 1, params);

		if (res == NULL)
			goto fail;
		snprintf(c->state_q, sizeof(c->state_q), "%s", PQgetvalue(res, 0, 0));
		PQclear(res);
	}
	/*
	 * Resolve the table first (the state is keyed by its OID); the key may
	 * be named by the state.  A role that does not own the table hears so
	 * before the state schema, which it may not even read, is looked at.
	 */
	if (!mig_inspect(c, false) && (c->t.relid == 0 || c->t.not_owner))
		goto fail;
	c->err[0] = '\0';
	if (!mig_state_load(c))
		goto fail;
	if (c->st.exists && o->to != NULL && strcmp(o->to, c->st.target) != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s is being moved to %s, not %s (roll that back first: "
				 "chronoid migrate rollback --table %s)", c->t.qname, c->st.target, o->to, o->table);
		goto fail;
	}
	if (c->st.exists && o->column != NULL && strcmp(o->column, "id") != 0 && strcmp(o->column, c->st.key) != 0)
	{
		snprintf(c->err, sizeof(c->err), "%s's migration moves column %s, not %s", c->t.qname, c->st.key, o->column);
		goto fail;
	}
	if (is_print)
	{
		(void) mig_sub_step_parse(o->sub_step, &sub_step);
		if (!c->st.exists && sub_step == MIG_SUB_RUN && o->to == NULL)
		{
			cli_error(o->sub, "needs --to uuidv7, ulid or snowflake (no migration of %s is recorded)", c->t.qname);
			rc = MIG_EXIT_USAGE;
			goto out;
		}
	}
	if (!c->st.exists && !is_plan && !is_status && strcmp(o->action, "run") != 0 &&
		!(is_print && sub_step == MIG_SUB_RUN))
	{
		snprintf(c->err, sizeof(c->err), "no migration of %s is recorded in %s.migration (start one with "
				 "chronoid migrate run)", c->t.qname, c->state_q);
		goto fail;
	}
	if (!c->st.exists && o->to == NULL && strcmp(o->action, "run") == 0)
	{
		cli_error(o->sub, "needs --to uuidv7, ulid or snowflake (no migration of %s is recorded to go on with)",
				  c->t.qname);
		rc = MIG_EXIT_USAGE;
		goto out;
	}
	if (!c->st.exists && is_status)
	{
		printf("%s: no migration recorded\n", c->t.qname);
		rc = MIG_EXIT_OK;
		goto out;
	}
	if (!mig_inspect(c, !c->st.exists))
		goto fail;
	if (is_print)
	{
		rc = mig_sub_print(c, sub_step);
		goto out;
	}
	if (!is_status && !mig_owners_ok(c))
		goto fail;
	/* plan lists what would fire on the rows the steps write; run and rollback refuse it. */
	if (!c->t.convert && (is_plan || writes_rows(c)) && !mig_trig_check(c, !is_plan))
		goto fail;
	if (is_plan)
	{
		if (!mig_db_owner(c))
			goto fail;
		rc = mig_plan(c);
		goto out;
	}
	if (is_status)
	{
		rc = mig_status(c);
		goto out;
	}
	/* The serial road's widening is one long wait for everyone: bounded before any work. */
	if (strcmp(o->action, "run") == 0 && !c->st.exists && !mig_widen_ok(c))
		goto fail;
	if (!mig_state_setup(c) || !mig_lock_table(c))
		goto fail;
	if (strcmp(o->action, "run") == 0)
		rc = mig_run(c);
	else if (strcmp(o->action, "swap") == 0)
		rc = mig_swap(c);
	else if (strcmp(o->action, "finish") == 0)
		rc = mig_finish(c);
	else
		rc = mig_rollback(c);
	goto out;
fail:
	cli_error(o->sub, "%s", c->err);
	rc = MIG_EXIT_FAIL;
out:
	if (c->conn != NULL)
		PQfinish(c->conn);
	mig_views_free(c);
	mig_trig_free(c);
	free(c);
	return rc;
}
