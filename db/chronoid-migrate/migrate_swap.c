/*
 * migrate_swap.c — "chronoid migrate swap" (the new column becomes the
 * primary key in one short transaction), "rollback" (after the swap: the
 * old key back, the new one kept; before it: everything run added gone)
 * and "finish".
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"

static int
failed(mig_ctx *c)
{
	cli_error(c->o->sub, "%s", c->err);
	return MIG_EXIT_FAIL;
}

/* Validate the re-pointed foreign keys: a scan of each child that blocks no writer. */
static bool
validate_children(mig_ctx *c)
{
	int			i;

	for (i = 0; i < c->t.nchildren; i++)
	{
		const mig_child *ch = &c->t.children[i];
		mig_script	s = {0};
		bool		ok;

		mig_script_as(&s, i);
		mig_script_printf(&s, "ALTER TABLE %s VALIDATE CONSTRAINT %s", ch->qname, ch->con_q);
		ok = mig_ddl_script(c, "validating a foreign key", &s, false);
		mig_script_free(&s);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * Without --subscriber, the published table's subscribers need the mirror
 * of the step applied by hand: said after it.  false with c->err set.
 */
static bool
pub_note(mig_ctx *c, enum mig_sub_step step)
{
	static const char *const words[] = {"run", "swap", "rollback", "finish"};

	if (!c->t.in_pub)
		return true;
	fprintf(stderr, "chronoid: %s: note: %s is published: each logical subscriber stops at the first change "
			"of it from now on until it has the same DDL (chronoid migrate subscriber-ddl %s --table %s prints it; "
			"or pass --subscriber CONNINFO and the tool applies it)\n", c->o->sub, c->t.qname, words[step], c->o->table);
	return true;
}

int
mig_swap(mig_ctx *c)
{
	mig_script	b = {0};
	bool		ok;
	bool		resumed = c->st.step == MIG_SWAPPED;

	if (c->st.step == MIG_CONVERTED)
	{
		printf("%s: converted to snowflakes in place; there is nothing to swap\n", c->t.qname);
		return MIG_EXIT_OK;
	}
	if (c->st.step == MIG_ROLLING)
	{
		snprintf(c->err, sizeof(c->err), "a rollback of %s is unfinished: run chronoid migrate rollback first",
				 c->t.qname);
		return failed(c);
	}
	if (c->st.step < MIG_INDEXED)
	{
		snprintf(c->err, sizeof(c->err), "%s is not ready to swap (step %s): run chronoid migrate run "
				 "--table %s first", c->t.qname, mig_step_name(c->st.step), c->o->table);
		return failed(c);
	}
	if (c->st.step == MIG_INDEXED)
	{
		/* A foreign key added since run began would lose its index at the swap: say which. */
		mig_buf		q = {0};
		PGresult   *res;

		mig_buf_printf(&q, "SELECT pg_catalog.string_agg(pg_catalog.format('%%s (%%s)', f.conname, f.conrelid::pg_catalog.regclass), ', ')"
					   " FROM pg_catalog.pg_constraint f WHERE f.contype = 'f' AND f.confrelid = %u"
					   " AND NOT EXISTS (SELECT 1 FROM %s.migration_child m WHERE m.relid = %u AND m.child = f.conrelid"
					   " AND m.constraint_name = f.conname)", c->t.relid, c->state_q, c->t.relid);
		res = mig_query(c, q.s, 0, NULL);
		mig_buf_free(&q);
		if (res == NULL)
			return failed(c);
		if (!PQgetisnull(res, 0, 0))
		{
			snprintf(c->err, sizeof(c->err), "foreign keys added since run began reference %s: %s; "
					 "roll back (chronoid migrate rollback) and run again so that they move too",
					 c->t.qname, PQgetvalue(res, 0, 0));
			PQclear(res);
			return failed(c);
		}
		PQclear(res);
		if (!mig_views_ok(c, "the swap") || !mig_child_index_names(c, false))
			return failed(c);
		/* Twins of indexes made since run are built first, CONCURRENTLY (writers go on). */
		if (!mig_step_index(c))
			return failed(c);
		/* A subscriber that is not keeping up would stop at the renames, on a change it never applied. */
		if (!mig_slots_ok(c, "swap") || !mig_sub_prepare(c, MIG_SUB_SWAP))
			return failed(c);
		/* Rows that lost their new ID since run (set to NULL by hand) would fail SET NOT NULL: the CHECK stops that. */
		mig_sql_swap(c, &b);
		fprintf(stderr, "chronoid: %s: swapping %s's key (lock_timeout %lld ms, up to %d tries)\n",
				c->o->sub, c->t.qname, (long long) c->o->lock_timeout_ms, c->o->retries);
		ok = mig_ddl_framed(c, "swap", "swapping the key", &b);
		mig_script_free(&b);
		if (!ok)
			return failed(c);
		c->st.step = MIG_SWAPPED;
	}
	/*
	 * The materialized views the swap left empty are filled before any
	 * subscriber is waited for: their readers here would otherwise get "has
	 * not been populated" for as long as the subscribers take, and until
	 * the step is run again when one of them fails.
	 */
	if (c->st.step == MIG_SWAPPED && !mig_views_refresh(c, resumed))
		return failed(c);
	/* Each --subscriber's columns renamed as here (again: a subscriber already done is left alone). */
	if ((c->st.step == MIG_SWAPPED || c->st.step == MIG_DONE) && !mig_sub_mirror(c, MIG_SUB_SWAP))
		return failed(c);
	if (c->st.step == MIG_SWAPPED)
	{
		if (!validate_children(c) || !mig_set_step(c, MIG_DONE))
			return failed(c);
	}
	if (c->o->nsubscribers == 0 && !pub_note(c, MIG_SUB_SWAP))
		return failed(c);
	printf("%s: %s is the primary key, with %s IDs; the old key is %s (indexed, unique)\n",
		   c->t.qname, c->t.key_q, c->st.target, c->t.old_q);
	return MIG_EXIT_OK;
}

/*
 * What the owner made since run that depends on a column the rollback
 * drops (a generated column, a view): named, with its owner, before
 * anything is dropped.  false with c->err set.
 */
static bool
nothing_depends_on_new(mig_ctx *c, uint32_t relid, const char *qname, const char *col, const mig_owner *o)
{
	char		r[16];
	const char *params[2] = {r, col};
	PGresult   *res;
	bool		ok;

	snprintf(r, sizeof(r), "%u", relid);
	res = mig_query(c, "SELECT pg_catalog.string_agg(pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid), ', ')"
					" FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_attribute a"
					"   ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
					" WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = $1::pg_catalog.oid"
					"   AND a.attname = $2 AND d.deptype = 'n'"
					/*
					 * Not the foreign keys rollback re-points itself, nor the
					 * table's own constraints, which DROP COLUMN drops with it
					 * (said below).
					 */
					"   AND NOT (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass AND d.objid IN"
					"        (SELECT f.oid FROM pg_catalog.pg_constraint f WHERE f.contype = 'f' OR f.conrelid = $1::pg_catalog.oid))",
					2, params);
	if (res == NULL)
		return false;
	ok = PQgetisnull(res, 0, 0);
	if (!ok)
		snprintf(c->err, sizeof(c->err), "%s depends on %s.%s, which rollback drops (the migration added it); "
				 "%s made it since run: drop or change it first (as %s), then roll back",
				 PQgetvalue(res, 0, 0), qname, col, o->name_q, o->name_q);
	PQclear(res);
	if (!ok)
		return false;
	res = mig_query(c, "SELECT pg_catalog.string_agg(pg_catalog.quote_ident(n.conname), ', ')"
					" FROM pg_catalog.pg_constraint n JOIN pg_catalog.pg_attribute a"
					"   ON a.attrelid = n.conrelid AND a.attnum = ANY (n.conkey)"
					" WHERE n.conrelid = $1::pg_catalog.oid AND a.attname = $2 AND n.contype <> 'f'"
					"   AND n.conname !~ '^chronoid_mig_'", 2, params);
	if (res == NULL)
		return false;
	if (!PQgetisnull(res, 0, 0))
		fprintf(stderr, "chronoid: %s: note: %s's constraints on %s.%s (%s) go with the column, as DROP COLUMN does\n",
				c->o->sub, o->name_q, qname, col, PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
}

/* Everything run added, gone; each statement safe to repeat. */
static bool
drop_leftovers(mig_ctx *c)
{
	mig_script	s = {0};
	mig_buf		b = {0};
	int			i;
	bool		ok;

	if (!nothing_depends_on_new(c, c->t.relid, c->t.qname, c->t.new_raw, &c->t.owner))
		return false;
	for (i = 0; i < c->t.nchildren; i++)
	{
		char		col[MIG_NAME + 8];

		snprintf(col, sizeof(col), "%s_new", c->t.children[i].fk_raw);
		if (!nothing_depends_on_new(c, c->t.children[i].relid, c->t.children[i].qname, col,
									&c->t.children[i].owner))
			return false;
	}

	for (i = 0; i < c->t.nchildren; i++)
	{
		const mig_child *ch = &c->t.children[i];

		mig_script_as(&s, i);
		mig_script_printf(&s, "DROP TRIGGER IF EXISTS %s ON %s;\n", ch->trig_q, ch->qname);
		mig_script_as(&s, MIG_AS_ME);
		mig_script_printf(&s, "DROP FUNCTION IF EXISTS %s();\n", ch->fn_q);
		mig_script_as(&s, i);
		mig_script_printf(&s, "ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s;\n", ch->qname, ch->chk_q);
		mig_script_printf(&s, "ALTER TABLE %s DROP COLUMN IF EXISTS %s;\n", ch->qname, ch->new_q);
	}
	mig_script_as(&s, MIG_AS_TABLE);
	mig_script_printf(&s, "ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s;\n", c->t.qname, c->t.chk_q);
	mig_script_printf(&s, "ALTER TABLE %s DROP COLUMN IF EXISTS %s;\n", c->t.qname, c->t.new_q);
	mig_script_as(&s, MIG_AS_ME);
	mig_script_printf(&s, "DROP TABLE IF EXISTS %s;\n", c->t.map_q);
	mig_script_printf(&s, "DELETE FROM %s.migration_child WHERE relid = %u;\n", c->state_q, c->t.relid);
	mig_script_printf(&s, "DELETE FROM %s.migration WHERE relid = %u;\n", c->state_q, c->t.relid);
	mig_sql_state_drop(c, &s);
	ok = mig_ddl_framed(c, "drop", "dropping what the migration added", &s);
	mig_script_free(&s);
	if (ok)
	{
		/* Outside the transaction: DROP INDEX CONCURRENTLY. */
		mig_buf_printf(&b, "DROP INDEX CONCURRENTLY IF EXISTS %s.%s", c->t.nsp_q, c->t.idx_old_q);
		ok = mig_ddl_alone(c, "dropping the old key's extra index", b.s);
		mig_buf_free(&b);
	}
	return ok;
}

/*
 * After the swap: the old key back as the primary key, the new one kept
 * with every value minted (so another swap is again one short
 * transaction); step rolling_back, then indexed.  false with c->err set.
 */
static bool
unswap(mig_ctx *c)
{
	mig_script	b = {0};
	mig_buf		q = {0};
	PGresult   *res;
	long		n;
	bool		ok;

	/* Swap dropped NOT NULL where nothing fills the old key: rows written since may have none. */
	mig_buf_printf(&q, "SELECT ARRAY[pg_catalog.count(*)::pg_catalog.text] FROM ONLY %s WHERE %s IS NULL"
				   " AND NOT (SELECT a.attnotnull FROM pg_catalog.pg_attribute a WHERE a.attrelid = %u"
				   " AND a.attname = $1[1])", c->t.qname, c->t.old_q, c->t.relid);
	res = mig_read_as(c, MIG_AS_TABLE, q.s, 1, (const char *[]) {c->t.old_raw});
	if (res == NULL)
	{
		mig_buf_free(&q);
		return false;
	}
	n = strtol(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	if (n > 0)
	{
		snprintf(c->err, sizeof(c->err), "%ld rows of %s written since the swap have no old key "
				 "(%s IS NULL; it has no default): the old primary key cannot come back without them; "
				 "give them values first", n, c->t.qname, c->t.old_q);
		mig_buf_free(&q);
		return false;
	}
	if (!mig_views_ok(c, "the rollback"))
	{
		mig_buf_free(&q);
		return false;
	}
	/*
	 * The primary key's index goes with the constraint: the new key gets
	 * a unique index of its own first, built CONCURRENTLY (writers go on),
	 * under the name the swap will take it by again.
	 */
	mig_buf_reset(&q);
	mig_buf_printf(&q, "CREATE UNIQUE INDEX CONCURRENTLY %s ON %s (%s)", c->t.idx_new_q, c->t.qname, c->t.key_q);
	ok = mig_build_index(c, c->t.relid, c->t.idx_new_q, q.s);
	mig_buf_free(&q);
	if (!ok)
		return false;
	if (!mig_child_index_names(c, true) || !mig_index_load(c, true, false))
		return false;
	mig_sql_unswap(c, &b);
	fprintf(stderr, "chronoid: %s: restoring %s's old key (lock_timeout %lld ms)\n",
			c->o->sub, c->t.qname, (long long) c->o->lock_timeout_ms);
	ok = mig_ddl_framed(c, "rollback", "restoring the old key", &b);
	mig_script_free(&b);
	if (ok)
	{
		/* What follows compares the key, the old one again, with its own type's operator. */
		c->st.step = MIG_ROLLING;
		snprintf(c->t.keytype, sizeof(c->t.keytype), "%s", c->t.origtype);
	}
	return ok;
}

int
mig_rollback(mig_ctx *c)
{
	bool		resumed = c->st.step == MIG_ROLLING;

	if (c->st.step == MIG_CONVERTED)
	{
		snprintf(c->err, sizeof(c->err), "%s's sequence was converted to snowflakes in place and the IDs "
				 "minted since are snowflakes: there is no old key to go back to (to mint serial values "
				 "again, set the default back to nextval() of the sequence, above max(%s))",
				 c->t.qname, c->t.key_q);
		return failed(c);
	}
	if ((c->st.step == MIG_SWAPPED || c->st.step == MIG_DONE) &&
		(!mig_slots_ok(c, "rollback") || !mig_sub_prepare(c, MIG_SUB_ROLLBACK) || !unswap(c)))
		return failed(c);
	if (c->st.step == MIG_ROLLING)
	{
		/* Its materialized views filled first, as after the swap. */
		if (!mig_views_refresh(c, resumed) || !mig_sub_mirror(c, MIG_SUB_ROLLBACK))
			return failed(c);
		if (c->o->nsubscribers == 0)
			(void) pub_note(c, MIG_SUB_ROLLBACK);
		/* The names are the original ones again: as run left them, but for what follows. */
		fprintf(stderr, "chronoid: %s: validating the foreign keys and %s's CHECKs again, "
				"building %s's spare unique index\n", c->o->sub, c->t.new_q, c->t.key_q);
		if (!validate_children(c) || !mig_step_check(c) || !mig_step_index(c) ||
			!mig_set_step(c, MIG_INDEXED))
			return failed(c);
		printf("%s: rolled back; %s is the primary key as before; %s keeps the new IDs, "
			   "those handed out since the swap included (swap again: chronoid migrate swap "
			   "--table %s; drop them: chronoid migrate rollback --table %s)\n",
			   c->t.qname, c->t.key_q, c->t.new_q, c->o->table, c->o->table);
		return MIG_EXIT_OK;
	}
	if (!drop_leftovers(c))
		return failed(c);
	if (c->o->nsubscribers > 0)
		fprintf(stderr, "chronoid: %s: note: the subscribers' %s columns stay (nothing replicates into them "
				"any more): drop them there\n", c->o->sub, c->t.new_q);
	printf("%s: rolled back; %s is the primary key as before\n", c->t.qname, c->t.key_q);
	return MIG_EXIT_OK;
}

/*
 * Keys the default did not make: an application that makes its own
 * (uuid4() in an ORM) kept writing them into the new key.  Said, once, at
 * finish (a read of the whole table, as its owner, blocking no one).
 * false with c->err set.
 */
static bool
own_keys_note(mig_ctx *c)
{
	mig_buf		q = {0};
	PGresult   *res;
	long		n;

	mig_buf_printf(&q, "SELECT ARRAY[pg_catalog.count(*)::pg_catalog.text] FROM ONLY %s"
				   " WHERE %s.uuid_extract_version(%s) IS DISTINCT FROM 7",
				   c->t.qname, c->t.ext_q, c->t.key_q);
	res = mig_read_as(c, MIG_AS_TABLE, q.s, 0, NULL);
	mig_buf_free(&q);
	if (res == NULL)
		return false;
	n = strtol(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	if (n > 0)
		fprintf(stderr, "chronoid: %s: note: %ld row%s of %s %s a key that is not a UUIDv7: written with keys "
				"the application made itself, not by %s's default (find them: WHERE %s.uuid_extract_version(%s) "
				"<> 7)\n", c->o->sub, n, n == 1 ? "" : "s", c->t.qname, n == 1 ? "has" : "have", c->t.key_q,
				c->t.ext_q, c->t.key_q);
	return true;
}

int
mig_finish(mig_ctx *c)
{
	mig_script	b = {0};
	int			i;
	bool		ok;

	if (c->st.step != MIG_DONE && c->st.step != MIG_CONVERTED)
	{
		snprintf(c->err, sizeof(c->err), "%s is at step %s: finish comes after swap "
				 "(chronoid migrate status says what is next)", c->t.qname, mig_step_name(c->st.step));
		return failed(c);
	}
	if (c->st.step == MIG_DONE && strcmp(c->st.target, "uuidv7") == 0 && c->t.ext_q[0] != '\0' &&
		!own_keys_note(c))
		return failed(c);
	/*
	 * A subscriber stuck at the swap would be left behind for good; its
	 * mirror (children's old columns take NULL) goes first, harmless
	 * while the publisher still fills them.
	 */
	if (c->st.step == MIG_DONE &&
		(!mig_slots_ok(c, "finish") || !mig_sub_prepare(c, MIG_SUB_FINISH)))
		return failed(c);
	/* The old columns stay (data is never dropped by the tool); only the machinery goes. */
	for (i = 0; i < c->t.nchildren; i++)
	{
		const mig_child *ch = &c->t.children[i];

		mig_script_as(&b, i);
		mig_script_printf(&b, "DROP TRIGGER IF EXISTS %s ON %s;\n", ch->trig_q, ch->qname);
		if (ch->notnull)
			mig_script_printf(&b, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", ch->qname, ch->old_q);
		mig_script_as(&b, MIG_AS_ME);
		mig_script_printf(&b, "DROP FUNCTION IF EXISTS %s();\n", ch->fn_q);
	}
	mig_script_as(&b, MIG_AS_ME);
	mig_script_printf(&b, "DROP TABLE IF EXISTS %s;\n", c->t.map_q);
	mig_script_printf(&b, "DELETE FROM %s.migration_child WHERE relid = %u;\n", c->state_q, c->t.relid);
	mig_script_printf(&b, "DELETE FROM %s.migration WHERE relid = %u;\n", c->state_q, c->t.relid);
	mig_sql_state_drop(c, &b);
	ok = mig_ddl_script(c, "finishing the migration", &b, true);
	mig_script_free(&b);
	if (!ok)
		return failed(c);
	if (c->st.step == MIG_CONVERTED)
		printf("%s: finished (nothing was left to remove)\n", c->t.qname);
	else
		printf("%s: finished; %s and the children's old columns stay until you drop them "
			   "(rollback is no longer possible)\n", c->t.qname, c->t.old_q);
	return MIG_EXIT_OK;
}
