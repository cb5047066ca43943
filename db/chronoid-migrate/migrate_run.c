/*
 * migrate_run.c — "chronoid migrate run": every step up to the swap, each
 * skipped when the state table says it is done, so a second run does
 * nothing and an interrupted one goes on where it stopped.
 */
#define _GNU_SOURCE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"
#include "pq_internal.h"

/* A line on stderr about what run is doing. */
static void say(const mig_ctx *c, const char *fmt,...) CID_PRINTF(2, 3);

static void
say(const mig_ctx *c, const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "chronoid: %s: ", c->o->sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * CREATE EXTENSION chronoid when it is missing (inspect checked the role
 * may): into public when public is trusted (mig_ext_trust), else into the
 * state schema, which is yours or a superuser's, and readable by every
 * role (the new column's default and the sync triggers call it).  Never
 * into a schema another role controls: it could rename it in the middle
 * of the backfill and put its own uuidv7() there.
 */
static bool
ensure_extension(mig_ctx *c)
{
	char		sql[MIG_NAME + 64];
	char		why[512];
	int			rc;

	if (c->t.ext_installed)
		return true;
	if (strcmp(c->t.ext_target, "public") != 0)
	{
		rc = cid_pq_schema_trusted(c->conn, c->o->schema, 0, why, sizeof(why), c->err, sizeof(c->err));
		if (rc == 0)
			snprintf(c->err, sizeof(c->err), "refusing to install chronoid in schema %s: %s "
					 "(docs/migrate.md, \"Trust\")", c->t.ext_target, why);
		if (rc != 1)
			return false;
		say(c, "schema public is not only yours or a superuser's: chronoid goes into schema %s",
			c->t.ext_target);
		snprintf(sql, sizeof(sql), "GRANT USAGE ON SCHEMA %s TO PUBLIC", c->t.ext_target);
		if (!mig_do(c, sql))
			return false;
	}
	say(c, "installing chronoid in this database (CREATE EXTENSION chronoid SCHEMA %s)",
		c->t.ext_target);
	snprintf(sql, sizeof(sql), "CREATE EXTENSION IF NOT EXISTS chronoid SCHEMA %s", c->t.ext_target);
	if (!mig_do(c, sql))
		return false;
	/* Its schema names the types and functions from here on. */
	return mig_inspect(c, true);
}

/* The state rows and the new columns, in one transaction. */
static bool
step_add(mig_ctx *c)
{
	mig_script	s = {0};
	mig_buf		b = {0};
	int			i;
	bool		ok;
	char	   *lit;

	mig_sql_add(c, &s);
	lit = PQescapeLiteral(c->conn, c->t.qname, strlen(c->t.qname));
	mig_buf_printf(&b, "INSERT INTO %s.migration (database_oid, relid, table_name, key_column, target, time_from, step, cutoff, node)"
				   " VALUES (" MIG_DATABASE_OID ", %u, %s, ", c->state_q, c->t.relid, lit != NULL ? lit : "''");
	PQfreemem(lit);
	lit = PQescapeLiteral(c->conn, c->t.key_raw, strlen(c->t.key_raw));
	mig_buf_printf(&b, "%s, '%s', ", lit != NULL ? lit : "''", c->o->to);
	PQfreemem(lit);
	if (c->o->time_from != NULL)
	{
		lit = PQescapeLiteral(c->conn, c->o->time_from, strlen(c->o->time_from));
		mig_buf_printf(&b, "%s, ", lit != NULL ? lit : "NULL");
		PQfreemem(lit);
	}
	else
		mig_buf_printf(&b, "NULL, ");
	/*
	 * The cutoff is taken under the table's lock, before any row gets the
	 * default: every old row was written before it, every ID minted live
	 * after it.
	 */
	mig_buf_printf(&b, "'added', pg_catalog.clock_timestamp(), %s);\n",
				   strcmp(c->o->to, "snowflake") == 0 ? "pg_catalog.current_setting('snowflake.node')::pg_catalog.int4" : "NULL");
	for (i = 0; i < c->t.nchildren; i++)
	{
		const mig_child *ch = &c->t.children[i];
		char	   *con = PQescapeLiteral(c->conn, ch->con_raw, strlen(ch->con_raw));
		char	   *fk = PQescapeLiteral(c->conn, ch->fk_raw, strlen(ch->fk_raw));
		char	   *act = PQescapeLiteral(c->conn, ch->actions, strlen(ch->actions));

		mig_buf_printf(&b, "INSERT INTO %s.migration_child (relid, child, constraint_name, fk_column, actions,"
					   " fk_notnull, fk_indexed, tag) VALUES (%u, %u, %s, %s, %s, %s, %s, '%s');\n",
					   c->state_q, c->t.relid, ch->relid, con ? con : "''", fk ? fk : "''", act ? act : "''",
					   ch->notnull ? "true" : "false", ch->indexed ? "true" : "false", ch->tag);
		PQfreemem(con);
		PQfreemem(fk);
		PQfreemem(act);
	}
	mig_script_as(&s, MIG_AS_ME);
	mig_script_printf(&s, "%s", b.s);
	ok = mig_ddl_framed(c, "add", "adding the new columns", &s);
	mig_buf_free(&b);
	mig_script_free(&s);
	return ok && mig_state_load(c);
}

/* Rows still without a new value (a missed or concurrently moved row): give them one. */
bool
mig_catch_up(mig_ctx *c)
{
	mig_buf		b = {0};
	bool		map = c->t.ts_q[0] != '\0' && strcmp(c->st.target, "snowflake") == 0;
	int			i;
	bool		ok = true;
	char		eqb[MIG_NAME + 16];
	const char *eq = mig_sql_op(c, c->t.keytype, "=", eqb, sizeof(eqb));

	mig_buf_printf(&b, "WITH b AS (SELECT r.%s AS k FROM ONLY %s r WHERE r.%s IS NULL LIMIT 10000),\n"
				   " u AS (UPDATE ONLY %s r SET %s = ", c->t.key_q, c->t.qname, c->t.new_q, c->t.qname, c->t.new_q);
	mig_sql_backfill_value(c, &b);
	mig_buf_printf(&b, " FROM b");
	if (map)
		mig_buf_printf(&b, " LEFT JOIN %s m ON m.k = b.k::pg_catalog.text", c->t.map_q);
	mig_buf_printf(&b, " WHERE r.%s %s b.k AND r.%s IS NULL RETURNING 1)\n"
				   "SELECT ARRAY[(SELECT pg_catalog.count(*) FROM u)::pg_catalog.text]", c->t.key_q, eq, c->t.new_q);
	for (;;)
	{
		mig_txn		x;
		PGresult   *res;
		long		n;

		if (!mig_txn_begin(&x, c->conn, false, -1, c->err, sizeof(c->err)))
		{
			ok = false;
			break;
		}
		res = mig_trig_rows(c, &x, &c->t.owner, b.s, 0, NULL);
		if (res == NULL || !mig_txn_commit(&x))
		{
			if (res == NULL)
				mig_txn_rollback(&x);
			PQclear(res);
			ok = false;
			break;
		}
		n = strtol(PQgetvalue(res, 0, 0), NULL, 10);
		PQclear(res);
		if (n == 0)
			break;
		fprintf(stderr, "chronoid: %s: %ld rows of %s had no new ID yet; given one\n", c->o->sub, n, c->t.qname);
	}
	mig_buf_free(&b);
	for (i = 0; ok && i < c->t.nchildren; i++)
	{
		const mig_child *ch = &c->t.children[i];
		mig_script	s = {0};

		mig_script_quiet(&s, i);
		mig_script_printf(&s, "UPDATE ONLY %s c SET %s = p.%s FROM ONLY %s p WHERE c.%s IS NULL AND c.%s IS NOT NULL"
						  " AND p.%s %s c.%s", ch->qname, ch->new_q, c->t.new_q, c->t.qname, ch->new_q, ch->fk_q,
						  c->t.key_q, eq, ch->fk_q);
		ok = mig_ddl_script(c, "giving child rows their parent's new ID", &s, false);
		mig_script_free(&s);
	}
	return ok;
}

/* Whether constraint name exists on relid. */
static bool
has_constraint(mig_ctx *c, uint32_t relid, const char *name, bool *validated, bool *exists)
{
	char		r[16];
	const char *params[2] = {r, name};
	PGresult   *res;

	snprintf(r, sizeof(r), "%u", relid);
	res = mig_query(c, "SELECT convalidated FROM pg_catalog.pg_constraint WHERE conrelid = $1::pg_catalog.oid"
					" AND conname = $2", 2, params);
	if (res == NULL)
		return false;
	*exists = PQntuples(res) == 1;
	*validated = *exists && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	return true;
}

/* CHECK ... NOT VALID (a short strong lock), then VALIDATE (a scan that blocks no writer). */
static bool
prove_not_null(mig_ctx *c, int who, uint32_t relid, const char *qname, const char *chk, const char *expr)
{
	bool		exists,
				valid;
	mig_script	s = {0};
	bool		ok;
	char		what[300];

	if (!has_constraint(c, relid, chk, &valid, &exists))
		return false;
	if (valid)
		return true;
	if (!exists)
	{
		mig_script_as(&s, who);
		mig_script_printf(&s, "ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s) NOT VALID", qname, chk, expr);
		snprintf(what, sizeof(what), "adding CHECK (%s) to %s", expr, qname);
		ok = mig_ddl_script(c, what, &s, true);
		mig_script_free(&s);
		if (!ok)
			return false;
	}
	/* As the owner: a constraint of that name is whatever the owner made it since. */
	mig_script_as(&s, who);
	mig_script_printf(&s, "ALTER TABLE %s VALIDATE CONSTRAINT %s", qname, chk);
	snprintf(what, sizeof(what), "validating CHECK (%s) on %s", expr, qname);
	ok = mig_ddl_script(c, what, &s, false);
	mig_script_free(&s);
	return ok;
}

bool
mig_step_check(mig_ctx *c)
{
	int			i,
				tries;
	mig_buf		e = {0};
	bool		ok = false;

	for (tries = 0; tries < 3 && !ok; tries++)
	{
		if (!mig_catch_up(c))
			return false;
		mig_buf_reset(&e);
		mig_sql_check_expr(c, MIG_AS_TABLE, &e);
		ok = prove_not_null(c, MIG_AS_TABLE, c->t.relid, c->t.qname, c->t.chk_q, e.s);
		for (i = 0; ok && i < c->t.nchildren; i++)
		{
			const mig_child *ch = &c->t.children[i];

			mig_buf_reset(&e);
			mig_sql_check_expr(c, i, &e);
			ok = prove_not_null(c, i, ch->relid, ch->qname, ch->chk_q, e.s);
		}
		/* A row that slipped through (23514) fails the validation: catch up and try again. */
	}
	mig_buf_free(&e);
	return ok;
}

/*
 * One index built CONCURRENTLY (name as quote_ident gives it); an invalid
 * one left by an interrupted build is dropped first, a valid one kept.
 */
bool
mig_build_index(mig_ctx *c, uint32_t relid, const char *name, const char *create)
{
	char		r[16];
	const char *params[2] = {r, name};
	PGresult   *res;
	bool		exists,
				valid;
	char		qualified[2 * MIG_NAME];

	snprintf(r, sizeof(r), "%u", relid);
	res = mig_query(c, "SELECT i.indisvalid, i.indexrelid::pg_catalog.regclass::pg_catalog.text"
					" FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class x ON x.oid = i.indexrelid"
					" WHERE i.indrelid = $1::pg_catalog.oid AND pg_catalog.quote_ident(x.relname) = $2", 2, params);
	if (res == NULL)
		return false;
	exists = PQntuples(res) == 1;
	valid = exists && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	if (exists)
		snprintf(qualified, sizeof(qualified), "%s", PQgetvalue(res, 0, 1));
	PQclear(res);
	if (valid)
		return true;
	if (exists)
	{
		mig_buf		b = {0};
		bool		ok;

		mig_buf_printf(&b, "DROP INDEX CONCURRENTLY %s", qualified);
		ok = mig_ddl_alone(c, "dropping an index an interrupted build left invalid", b.s);
		mig_buf_free(&b);
		if (!ok)
			return false;
	}
	say(c, "%s", create);
	return mig_ddl_alone(c, "building an index", create);
}

bool
mig_step_index(mig_ctx *c)
{
	mig_buf		b = {0};
	int			i;
	bool		ok;

	mig_buf_printf(&b, "CREATE UNIQUE INDEX CONCURRENTLY %s ON %s (%s)", c->t.idx_new_q, c->t.qname, c->t.new_q);
	ok = mig_build_index(c, c->t.relid, c->t.idx_new_q, b.s);
	mig_buf_reset(&b);
	mig_buf_printf(&b, "CREATE UNIQUE INDEX CONCURRENTLY %s ON %s (%s)", c->t.idx_old_q, c->t.qname, c->t.key_q);
	ok = ok && mig_build_index(c, c->t.relid, c->t.idx_old_q, b.s);
	for (i = 0; ok && i < c->t.nchildren; i++)
	{
		const mig_child *ch = &c->t.children[i];

		if (!ch->indexed)
			continue;
		mig_buf_reset(&b);
		mig_buf_printf(&b, "CREATE INDEX CONCURRENTLY %s ON %s (%s)", ch->idx_q, ch->qname, ch->new_q);
		ok = mig_build_index(c, ch->relid, ch->idx_q, b.s);
	}
	mig_buf_free(&b);
	/* The table's other indexes on the key, twinned on the new column (one made since run included). */
	ok = ok && mig_index_load(c, false, strcmp(c->o->action, "rollback") != 0);
	for (i = 0; ok && i < c->t.nindexes; i++)
	{
		const mig_index *ix = &c->t.indexes[i];
		char		r[16];
		const char *params[3] = {r, ix->twin, c->t.key_raw};
		PGresult   *res;

		ok = mig_build_index(c, c->t.relid, ix->twin, ix->create);
		if (!ok)
			break;
		/* Its text rewritten: the index must read the new column, and the old key nowhere. */
		snprintf(r, sizeof(r), "%u", c->t.relid);
		res = mig_query(c, "SELECT i.oid::pg_catalog.regclass::pg_catalog.text FROM pg_catalog.pg_class i"
						" JOIN pg_catalog.pg_index x ON x.indexrelid = i.oid"
						" WHERE x.indrelid = $1::pg_catalog.oid AND i.relname = $2"
						"   AND EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_attribute a"
						"         ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
						"       WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = i.oid"
						"         AND d.refobjid = x.indrelid AND a.attname = $3)", 3, params);
		ok = res != NULL;
		if (ok && PQntuples(res) > 0)
		{
			mig_buf		d = {0};

			mig_buf_printf(&d, "DROP INDEX CONCURRENTLY %s", PQgetvalue(res, 0, 0));
			snprintf(c->err, sizeof(c->err), "the twin of index %s.%s, built from its definition with %s for %s, "
					 "still reads %s: drop %s.%s for the move and create it again on %s after the swap",
					 ix->nsp_q, ix->name_q, c->t.new_q, c->t.key_q, c->t.key_q, ix->nsp_q, ix->name_q, c->t.key_q);
			{
				char		keep[sizeof(c->err)];

				memcpy(keep, c->err, sizeof(keep));
				(void) mig_ddl_alone(c, "dropping the twin", d.s);
				memcpy(c->err, keep, sizeof(keep));
			}
			mig_buf_free(&d);
			ok = false;
		}
		PQclear(res);
	}
	return ok;
}

void
mig_sql_vacuum(const mig_ctx *c, mig_buf *b)
{
	int			i;

	mig_buf_printf(b, "VACUUM (ANALYZE, TRUNCATE false) %s", c->t.qname);
	for (i = 0; i < c->t.nchildren; i++)
		mig_buf_printf(b, ", %s", c->t.children[i].qname);
}

/*
 * The backfill left a dead tuple for every row of the table and its
 * children, so autovacuum would be due on each right when the swap wants
 * its lock; vacuumed here, it is not.  Sent as the tool: VACUUM runs each
 * table's code (index expressions) as the table's owner, in a
 * security-restricted operation, as CREATE INDEX does.  It takes SHARE
 * UPDATE EXCLUSIVE: writers go on.  TRUNCATE false: giving back the
 * empty pages at the end would take ACCESS EXCLUSIVE, however briefly.
 */
static bool
step_vacuum(mig_ctx *c)
{
	mig_buf		b = {0};
	bool		ok;

	mig_sql_vacuum(c, &b);
	say(c, "%s (so that autovacuum is not due at the swap)", b.s);
	ok = mig_ddl_alone(c, "vacuuming", b.s);
	mig_buf_free(&b);
	return ok;
}

/* serial/identity -> snowflake: the sequence is converted; old IDs stay. */
static int
run_convert(mig_ctx *c)
{
	mig_script	s = {0};
	bool		ok;
	char	   *seq,
			   *lit,
			   *key;

	if (c->st.exists && c->st.step == MIG_CONVERTED)
	{
		say(c, "%s already converted to snowflakes; nothing to do", c->t.qname);
		return MIG_EXIT_OK;
	}
	seq = PQescapeLiteral(c->conn, c->t.keyseq, strlen(c->t.keyseq));
	lit = PQescapeLiteral(c->conn, c->t.qname, strlen(c->t.qname));
	key = PQescapeLiteral(c->conn, c->t.key_raw, strlen(c->t.key_raw));
	/* As the owner: widening integer columns re-checks their CHECKs and rebuilds their indexes. */
	mig_script_as(&s, MIG_AS_TABLE);
	mig_script_printf(&s, "SELECT snowflake.convert_sequence_to_snowflake(%s::pg_catalog.regclass, %s);\n",
					  seq ? seq : "''", c->t.identity ? "true" : "false");
	mig_script_as(&s, MIG_AS_ME);
	mig_script_printf(&s, "INSERT INTO %s.migration (database_oid, relid, table_name, key_column, target, step)"
					  " VALUES (" MIG_DATABASE_OID ", %u, %s, %s, 'snowflake', 'converted');\n",
					  c->state_q, c->t.relid, lit ? lit : "''", key ? key : "''");
	PQfreemem(seq);
	PQfreemem(lit);
	PQfreemem(key);
	/* Widening changes the type of the key and of the children's columns: framed like the swap. */
	if (mig_widens(c))
		ok = mig_ddl_framed(c, "widen", "converting the key's sequence to snowflakes", &s);
	else
		ok = mig_ddl_script(c, "converting the key's sequence to snowflakes", &s, true);
	mig_script_free(&s);
	if (!ok)
	{
		cli_error(c->o->sub, "%s", c->err);
		return MIG_EXIT_FAIL;
	}
	printf("%s: %s now defaults to snowflake.nextval(%s); its old IDs stay (no backfill, no swap)\n",
		   c->t.qname, c->t.key_q, c->t.keyseq);
	return MIG_EXIT_OK;
}

int
mig_run(mig_ctx *c)
{
	if (c->st.exists && c->st.step >= MIG_SWAPPED && c->st.step != MIG_ROLLING)
	{
		say(c, "%s: already %s; nothing to run", c->t.qname, mig_step_name(c->st.step));
		return MIG_EXIT_OK;
	}
	if (c->st.exists && c->st.step == MIG_ROLLING)
	{
		cli_error(c->o->sub, "a rollback of %s is unfinished: run 'chronoid migrate rollback --table %s' "
				  "to finish it first", c->t.qname, c->o->table);
		return MIG_EXIT_FAIL;
	}
	if (!ensure_extension(c))
		goto fail;
	if (c->t.convert)
		return run_convert(c);
	/* Subscribers first: a change that carries the new column stops one that lacks it. */
	if (!mig_sub_prepare(c, MIG_SUB_RUN))
		goto fail;
	mig_catch_signals();
	if (!c->st.exists)
	{
		say(c, "adding %s to %s, with a default for new rows", c->t.new_q, c->t.qname);
		if (!step_add(c))
			goto fail;
	}
	if (c->st.step < MIG_BACKFILLED)
	{
		if (!mig_backfill(c) || !mig_set_step(c, MIG_BACKFILLED))
			goto fail;
	}
	if (c->st.step < MIG_CHILDREN)
	{
		if (!mig_backfill_children(c) || !mig_set_step(c, MIG_CHILDREN))
			goto fail;
	}
	if (c->st.step < MIG_CHECKED)
	{
		say(c, "proving %s NOT NULL (CHECK ... NOT VALID, then VALIDATE)", c->t.new_q);
		if (!mig_step_check(c) || !mig_set_step(c, MIG_CHECKED))
			goto fail;
	}
	if (c->st.step < MIG_INDEXED)
	{
		if (!mig_step_index(c) || !mig_set_step(c, MIG_INDEXED) || !step_vacuum(c))
			goto fail;
	}
	printf("%s: ready to swap (%lld rows backfilled); next: chronoid migrate swap --table %s\n",
		   c->t.qname, (long long) c->st.rows_done, c->o->table);
	return MIG_EXIT_OK;
fail:
	cli_error(c->o->sub, "%s", c->err);
	return MIG_EXIT_FAIL;
}
