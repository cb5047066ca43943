/*
 * migrate_sql.c — the SQL of each step of a key move, built in one place
 * so that "plan" prints exactly what "run", "swap" and "rollback" send.
 * Every name in it came back from the server quoted; every function is
 * schema-qualified (the connection's search path is pg_catalog only).
 */
#include <stdio.h>
#include <string.h>

#include "migrate_steps_internal.h"

static const char *
target(const mig_ctx *c)
{
	return c->o->to != NULL ? c->o->to : c->st.target;
}

static const char *
ext(const mig_ctx *c)
{
	/* Before CREATE EXTENSION the plan shows the schema it will get. */
	return c->t.ext_target[0] != '\0' ? c->t.ext_target : "public";
}

void
mig_sql_live(const mig_ctx *c, mig_buf *b)
{
	const char *to = target(c);

	if (strcmp(to, "uuidv7") == 0)
		mig_buf_printf(b, "%s.uuidv7()", ext(c));
	else if (strcmp(to, "ulid") == 0)
		mig_buf_printf(b, "%s.gen_ulid()", ext(c));
	else
		mig_buf_printf(b, "snowflake.nextval()");
}

/*
 * chronoid's ulid has its operators in the extension's schema, which the
 * tool's search path (pg_catalog only) and the sync triggers' do not
 * reach: "p.k = c.k" on two ulids is "operator does not exist".  Such
 * comparisons name the operator; the others keep pg_catalog's.
 */
static bool
is_ulid(const char *type)
{
	size_t		n = strlen(type);

	return n >= 4 && strcmp(type + n - 4, "ulid") == 0 && (n == 4 || type[n - 5] == '.');
}

const char *
mig_sql_op(const mig_ctx *c, const char *type, const char *o, char *buf, size_t len)
{
	if (!is_ulid(type))
		return o;
	snprintf(buf, len, "OPERATOR(%s.%s)", ext(c), o);
	return buf;
}

/* The time column as timestamptz (a timestamp without zone is read as UTC). */
static void
tsx(const mig_ctx *c, mig_buf *b)
{
	if (c->t.ts_is_tz)
		mig_buf_printf(b, "r.%s", c->t.ts_q);
	else
		mig_buf_printf(b, "pg_catalog.timezone('UTC', r.%s)", c->t.ts_q);
}

/*
 * The cutoff as a literal: the statements that use it run as the table's
 * owner, who cannot read the state table.  Before run has taken it (plan)
 * it reads as a psql variable.
 */
static void
cutoff(const mig_ctx *c, mig_buf *b)
{
	if (c->st.cutoff[0] == '\0')
		mig_buf_printf(b, "CAST(:'cutoff' AS pg_catalog.timestamptz)");
	else
		mig_buf_printf(b, "CAST('%s' AS pg_catalog.timestamptz)", c->st.cutoff);
}

void
mig_sql_backfill_value(const mig_ctx *c, mig_buf *b)
{
	const char *to = target(c);

	if (c->t.ts_q[0] == '\0')
	{
		mig_sql_live(c, b);
		return;
	}
	if (strcmp(to, "snowflake") == 0)
	{
		/* The map holds the old rows' IDs; the rest (crowded, too old, too new) are minted now. */
		mig_buf_printf(b, "COALESCE(m.sf, ");
		mig_sql_live(c, b);
		mig_buf_printf(b, ")");
		return;
	}
	/* A time at or after the cutoff would sort among the IDs minted live: mint it live too. */
	mig_buf_printf(b, "CASE WHEN ");
	tsx(c, b);
	mig_buf_printf(b, " IS NULL OR ");
	tsx(c, b);
	mig_buf_printf(b, " >= ");
	cutoff(c, b);
	mig_buf_printf(b, " THEN ");
	mig_sql_live(c, b);
	mig_buf_printf(b, " ELSE ");
	if (strcmp(to, "uuidv7") == 0)
	{
		/*
		 * Both arguments spelled out: a one-argument function of that name
		 * planted in chronoid's schema would otherwise be the better match.
		 */
		mig_buf_printf(b, "%s.uuid_timestamptz_to_v7(", ext(c));
		tsx(c, b);
		mig_buf_printf(b, ", false)");
	}
	else
	{
		/*
		 * A time cast to ulid is the smallest ULID of its millisecond; the
		 * 80 random bits come from a v4 UUID's fully random bytes (1-6,
		 * 11-14), drawn per row.
		 */
		mig_buf_printf(b, "(SELECT %s.bytea_to_ulid(pg_catalog.substr(%s.ulid_to_bytea(CAST(",
					   ext(c), ext(c));
		tsx(c, b);
		mig_buf_printf(b, " AS %s.ulid)), 1, 6) || pg_catalog.substr(x.r, 1, 6) || "
					   "pg_catalog.substr(x.r, 11, 4)) FROM (SELECT pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) AS r) x)",
					   ext(c));
	}
	mig_buf_printf(b, " END");
}

/* The child's trigger function: before the swap it fills <fk>_new from the parent's new key. */
static void
child_fn(const mig_ctx *c, const mig_child *ch, mig_script *s, bool swapped)
{
	const mig_table *t = &c->t;
	/*
	 * The child's fk is the source either way (before the swap it holds
	 * the old key, after it the new one); what it fills is <fk>_new before
	 * and <fk>_old after, from the parent's matching column, so that
	 * rollback stays possible.
	 */
	const char *src = ch->fk_q;
	const char *dst = swapped ? ch->old_q : ch->new_q;
	const char *pget = swapped ? t->old_q : t->new_q;
	const char *pkey = t->key_q;
	/* The column compared: the old key's type before the swap, the new one's after. */
	const char *ktype = swapped ? t->newtype : t->origtype;
	char		eqb[MIG_NAME + 16],
				neb[MIG_NAME + 16];
	const char *eq = mig_sql_op(c, ktype, "=", eqb, sizeof(eqb));
	const char *ne = mig_sql_op(c, ktype, "<>", neb, sizeof(neb));

	/*
	 * SECURITY DEFINER, owned by the child's owner (never by the tool's
	 * role: the child's owner controls the column's type, its domain
	 * checks and casts, which run inside), so that a writer who may insert
	 * into the child but not read the parent keeps working.  The search
	 * path is pinned to pg_catalog: a ulid's operators are named with
	 * their schema instead of widening the path (IS DISTINCT FROM cannot
	 * name its operator, hence the spelled-out test; NEW's fk is not NULL
	 * there).  CREATE OR REPLACE keeps the owner it has.
	 */
	mig_buf		missing = {0};

	/*
	 * A key the parent does not have: the foreign key would say so at the
	 * statement's end, but the CHECK or NOT NULL on the column filled here
	 * would fail first, naming a column the application never wrote.  So
	 * the function raises the foreign key's own error, with a hint after
	 * the swap, when clients may still send old keys.  Not for a
	 * deferrable key, whose parent may come later in the transaction.
	 */
	if (strstr(ch->actions, "DEFERRABLE") == NULL)
	{
		char	   *child = PQescapeLiteral(c->conn, ch->qname, strlen(ch->qname));
		char	   *con = PQescapeLiteral(c->conn, ch->con_q, strlen(ch->con_q));
		char	   *col = PQescapeLiteral(c->conn, ch->fk_q, strlen(ch->fk_q));
		char	   *parent = PQescapeLiteral(c->conn, t->qname, strlen(t->qname));
		char		hint[4 * MIG_NAME + 128];
		char	   *hint_lit;

		snprintf(hint, sizeof(hint), "since chronoid migrate swapped %s's key, %s holds its new IDs; "
				 "an old one is in %s.%s", t->qname, ch->fk_q, t->qname, t->old_q);
		hint_lit = PQescapeLiteral(c->conn, hint, strlen(hint));
		if (child != NULL && con != NULL && col != NULL && parent != NULL && hint_lit != NULL)
			mig_buf_printf(&missing,
						   "    IF NOT FOUND THEN\n"
						   "      RAISE foreign_key_violation USING MESSAGE = 'insert or update on table ' || %s"
						   " || ' violates foreign key constraint ' || %s,\n"
						   "        DETAIL = pg_catalog.format('Key (%%s)=(%%s) is not present in table %%s.', %s, NEW.%s, %s)%s%s;\n"
						   "    END IF;\n",
						   child, con, col, src, parent, swapped ? ", HINT = " : "", swapped ? hint_lit : "");
		PQfreemem(child);
		PQfreemem(con);
		PQfreemem(col);
		PQfreemem(parent);
		PQfreemem(hint_lit);
	}
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s,
				   "CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
				   " SET search_path = pg_catalog, pg_temp AS $chronoid$\n"
				   "BEGIN\n"
				   "  IF NEW.%s IS NULL THEN\n"
				   "    NEW.%s := NULL;\n"
				   "  ELSIF TG_OP = 'INSERT' OR NEW.%s IS NULL OR OLD.%s IS NULL OR NEW.%s %s OLD.%s THEN\n"
				   "    SELECT p.%s INTO NEW.%s FROM ONLY %s p WHERE p.%s %s NEW.%s;\n"
				   "%s"
				   "  END IF;\n"
				   "  RETURN NEW;\n"
				   "END\n$chronoid$;\n"
				   "COMMENT ON FUNCTION %s() IS 'chronoid migrate: keeps %s.%s in step with %s (dropped by swap''s end or rollback)';\n",
				   ch->fn_q, src, dst, dst, src, src, ne, src, pget, dst, t->qname, pkey, eq, src,
				   missing.s != NULL ? missing.s : "",
				   ch->fn_q, ch->qname, dst, t->qname);
	mig_buf_free(&missing);
	if (ch->owner.wrap)
		mig_script_printf(s, "ALTER FUNCTION %s() OWNER TO %s;\n", ch->fn_q, ch->owner.name_q);
}

void
mig_sql_add(const mig_ctx *c, mig_script *s)
{
	const mig_table *t = &c->t;
	mig_buf		live = {0};
	int			i;

	mig_sql_live(c, &live);
	/* No default value stored with the column (no rewrite); the default then applies to new rows. */
	mig_script_as(s, MIG_AS_TABLE);
	mig_script_printf(s, "ALTER TABLE %s ADD COLUMN %s %s;\n", t->qname, t->new_q, t->newtype);
	mig_script_printf(s, "ALTER TABLE %s ALTER COLUMN %s SET DEFAULT %s;\n", t->qname, t->new_q, live.s);
	/* Column privileges and the comment follow a column's number: give the new one the key's. */
	if (t->grants[0] != '\0')
		mig_script_printf(s, "%s\n", t->grants[0] == '\n' ? t->grants + 1 : t->grants);
	mig_buf_free(&live);
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];

		mig_script_as(s, i);
		mig_script_printf(s, "ALTER TABLE %s ADD COLUMN %s %s;\n", ch->qname, ch->new_q, t->newtype);
		if (ch->grants[0] != '\0')
			mig_script_printf(s, "%s\n", ch->grants);
		/*
		 * The trigger is created by the tool (it runs nothing; the owner
		 * could not name a function in the state schema); its function
		 * belongs to the child's owner.
		 */
		child_fn(c, ch, s, false);
		mig_script_printf(s, "CREATE TRIGGER %s BEFORE INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION %s();\n",
						  ch->trig_q, ch->qname, ch->fn_q);
	}
}

void
mig_sql_map(const mig_ctx *c, mig_script *s)
{
	const mig_table *t = &c->t;
	mig_buf		b = {0};

	/*
	 * The map is the tool's table; the owner, who reads its own rows into
	 * it, may insert while it is built and read it during the backfill.
	 * Keyed by the old key's text form: no cast to a type the owner
	 * controls runs with the tool's rights.
	 */
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "DROP TABLE IF EXISTS %s;\n"
					  "CREATE TABLE %s (k pg_catalog.text NOT NULL, sf pg_catalog.int8);\n",
					  t->map_q, t->map_q);
	if (t->owner.wrap)
		mig_script_printf(s, "GRANT USAGE ON SCHEMA %s TO %s;\nGRANT SELECT, INSERT ON %s TO %s;\n",
						  c->state_q, t->owner.name_q, t->map_q, t->owner.name_q);
	mig_script_as(s, MIG_AS_TABLE);
	mig_buf_printf(&b, "INSERT INTO %s (k, sf)\n"
				   "SELECT s.k::pg_catalog.text, CASE WHEN s.rn <= 4096 THEN s.base | (%lld::pg_catalog.int8 << 12) | (s.rn - 1) END\n"
				   "  FROM (SELECT r.%s AS k, snowflake.from_timestamp(",
				   t->map_q, (long long) (c->st.node > 0 ? c->st.node : 0), t->key_q);
	tsx(c, &b);
	mig_buf_printf(&b, ") AS base,\n               pg_catalog.row_number() OVER (PARTITION BY snowflake.from_timestamp(");
	tsx(c, &b);
	mig_buf_printf(&b, ") ORDER BY ");
	tsx(c, &b);
	mig_buf_printf(&b, ", r.%s) AS rn\n          FROM ONLY %s r\n         WHERE ", t->key_q, t->qname);
	tsx(c, &b);
	mig_buf_printf(&b, " >= snowflake.to_timestamp(0)\n           AND ");
	tsx(c, &b);
	mig_buf_printf(&b, " < pg_catalog.date_trunc('milliseconds', ");
	cutoff(c, &b);
	mig_buf_printf(&b, ")) s;\n");
	mig_script_printf(s, "%s", b.s);
	mig_buf_free(&b);
	mig_script_as(s, MIG_AS_ME);
	if (t->owner.wrap)
		mig_script_printf(s, "REVOKE INSERT ON %s FROM %s;\n", t->map_q, t->owner.name_q);
	mig_script_printf(s, "ALTER TABLE %s ADD PRIMARY KEY (k);\n", t->map_q);
	/* Its pg_dump reads it (mig_state_setup); a database owner that may not read the table gets no copy of its keys. */
	if (c->dbowner_q[0] != '\0')
		mig_script_printf(s, "DO $chronoid_mig$BEGIN IF pg_catalog.has_table_privilege(%s, %u, 'SELECT') THEN"
						  " GRANT SELECT ON %s TO %s; END IF; END$chronoid_mig$;\n",
						  "(SELECT d.datdba FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())",
						  t->relid, t->map_q, c->dbowner_q);
}

void
mig_sql_batch(const mig_ctx *c, mig_buf *b, bool from_cursor)
{
	const mig_table *t = &c->t;
	bool		map = t->ts_q[0] != '\0' && strcmp(target(c), "snowflake") == 0;
	char		eqb[MIG_NAME + 16],
				gtb[MIG_NAME + 16];
	const char *eq = mig_sql_op(c, t->keytype, "=", eqb, sizeof(eqb));

	mig_buf_printf(b, "WITH b AS (SELECT r.%s AS k FROM ONLY %s r", t->key_q, t->qname);
	if (from_cursor)
		mig_buf_printf(b, " WHERE r.%s %s CAST($1[2] AS %s)", t->key_q,
					   mig_sql_op(c, t->keytype, ">", gtb, sizeof(gtb)), t->keytype);
	mig_buf_printf(b, " ORDER BY r.%s LIMIT $1[1]::pg_catalog.int8),\n u AS (UPDATE ONLY %s r SET %s = ",
				   t->key_q, t->qname, t->new_q);
	mig_sql_backfill_value(c, b);
	mig_buf_printf(b, "\n        FROM b");
	/* The snowflake map joins beside b (LEFT: rows it does not hold are minted now). */
	if (map)
		mig_buf_printf(b, " LEFT JOIN %s m ON m.k = b.k::pg_catalog.text", t->map_q);
	mig_buf_printf(b, " WHERE r.%s %s b.k AND r.%s IS NULL RETURNING 1),\n"
				   " l AS (SELECT b.k::pg_catalog.text AS k FROM b ORDER BY b.k DESC LIMIT 1)\n"
				   "SELECT ARRAY[(SELECT l.k FROM l), (SELECT pg_catalog.count(*) FROM b)::pg_catalog.text,"
				   " (SELECT pg_catalog.count(*) FROM u)::pg_catalog.text]",
				   t->key_q, eq, t->new_q);
}

void
mig_sql_batch_state(const mig_ctx *c, mig_buf *b)
{
	/* $1 the last old key done, $2 the rows set, $3 the rate: committed with the batch. */
	mig_buf_printf(b, "UPDATE %s.migration SET backfill_cursor = $1, rows_done = rows_done + $2::pg_catalog.int8,"
				   " rows_per_second = $3::pg_catalog.float8, updated_at = pg_catalog.now() WHERE relid = %u",
				   c->state_q, c->t.relid);
}

void
mig_sql_child_batch(const mig_ctx *c, const mig_child *ch, mig_buf *b)
{
	const mig_table *t = &c->t;
	char		eqb[MIG_NAME + 16];

	mig_buf_printf(b, "WITH u AS (UPDATE ONLY %s c SET %s = p.%s FROM ONLY %s p\n"
				   "   WHERE c.ctid >= pg_catalog.format('(%%s,0)', $1[1]::pg_catalog.int8)::pg_catalog.tid"
				   " AND c.ctid < pg_catalog.format('(%%s,0)', $1[2]::pg_catalog.int8)::pg_catalog.tid\n"
				   "     AND c.%s IS NULL AND c.%s IS NOT NULL AND p.%s %s c.%s RETURNING 1)\n"
				   "SELECT ARRAY[(SELECT pg_catalog.count(*) FROM u)::pg_catalog.text]",
				   ch->qname, ch->new_q, t->new_q, t->qname, ch->new_q, ch->fk_q, t->key_q,
				   mig_sql_op(c, t->keytype, "=", eqb, sizeof(eqb)), ch->fk_q);
}

void
mig_sql_child_state(const mig_ctx *c, const mig_child *ch, mig_buf *b)
{
	/* $4: the rate, kept on the table's row as the backfill's is, for status. */
	mig_buf_printf(b, "WITH r AS (UPDATE %s.migration SET rows_per_second = $4::pg_catalog.float8,"
				   " updated_at = pg_catalog.now() WHERE relid = %u)\n"
				   "UPDATE %s.migration_child SET next_block = $1::pg_catalog.int8,"
				   " rows_done = rows_done + $2::pg_catalog.int8"
				   " WHERE relid = %u AND child = %u AND constraint_name = $3",
				   c->state_q, c->t.relid, c->state_q, c->t.relid, ch->relid);
}

void
mig_sql_check_expr(const mig_ctx *c, int who, mig_buf *e)
{
	const mig_child *ch;

	if (who == MIG_AS_TABLE)
	{
		mig_buf_printf(e, "%s IS NOT NULL", c->t.new_q);
		return;
	}
	ch = &c->t.children[who];
	if (ch->notnull)
		mig_buf_printf(e, "%s IS NOT NULL", ch->new_q);
	else
		mig_buf_printf(e, "%s IS NULL OR %s IS NOT NULL", ch->fk_q, ch->new_q);
}

/* ALTER TABLE ... ADD CONSTRAINT chk CHECK (...) NOT VALID for who. */
static void
add_check(const mig_ctx *c, int who, const char *qname, const char *chk, mig_script *s)
{
	mig_buf		e = {0};

	mig_sql_check_expr(c, who, &e);
	mig_script_printf(s, "ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s) NOT VALID;\n", qname, chk, e.s);
	mig_buf_free(&e);
}

void
mig_sql_swap(const mig_ctx *c, mig_script *s)
{
	const mig_table *t = &c->t;
	int			i;

	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->qname);
	for (i = 0; i < t->nchildren; i++)
		mig_script_printf(s, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->children[i].qname);
	/* Views on the key go before the old primary key and the renames; they come back after. */
	mig_sql_views_drop(c, s);
	/* The validated CHECK proves it: no scan under the lock. */
	mig_script_as(s, MIG_AS_TABLE);
	mig_script_printf(s, "ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;\n", t->qname, t->new_q);
	for (i = 0; i < t->nchildren; i++)
	{
		mig_script_as(s, i);
		mig_script_printf(s, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->children[i].qname, t->children[i].con_q);
	}
	mig_script_as(s, MIG_AS_TABLE);
	mig_script_printf(s, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->qname, t->pk_q);
	mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->key_q, t->old_q);
	mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->new_q, t->key_q);
	mig_script_printf(s, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY USING INDEX %s;\n",
					  t->qname, t->pk_q, t->idx_new_q);
	mig_script_printf(s, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->qname, t->chk_q);
	/* The table's indexes on the key hand their names to their twins on the new one, as the children's do. */
	for (i = 0; i < t->nindexes; i++)
	{
		const mig_index *ix = &t->indexes[i];

		if (!ix->renamed)
			continue;
		mig_script_as(s, MIG_AS_ME);
		mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ix->nsp_q, ix->name_q, ix->old_q);
		mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ix->nsp_q, ix->twin, ix->name_q);
		mig_script_as(s, MIG_AS_TABLE);
	}
	if (t->keydefault[0] == '\0' && !t->identity)
	{
		/* Nothing fills the old key of rows the application writes from now on. */
		mig_script_printf(s, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", t->qname, t->old_q);
	}
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];

		mig_script_as(s, i);
		mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->fk_q, ch->old_q);
		mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->new_q, ch->fk_q);
		if (ch->ix_q[0] != '\0')
		{
			/*
			 * The live column's index takes the name the application's DBA
			 * knows.  As the tool: renaming a relation needs CREATE on its
			 * schema, which an application's role often lacks, and runs no
			 * code of the owner's.
			 */
			mig_script_as(s, MIG_AS_ME);
			mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ch->ix_nsp_q, ch->ix_q, ch->ix_old_q);
			mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ch->ix_nsp_q, ch->idx_q, ch->ix_q);
			mig_script_as(s, i);
		}
		if (ch->notnull)
			mig_script_printf(s, "ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;\n", ch->qname, ch->fk_q);
		mig_script_printf(s, "ALTER TABLE %s DROP CONSTRAINT %s;\n", ch->qname, ch->chk_q);
		mig_script_printf(s, "ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) %s NOT VALID;\n",
						  ch->qname, ch->con_q, ch->fk_q, t->qname, t->key_q, ch->actions);
		child_fn(c, ch, s, true);
	}
	mig_sql_views_create(c, s);
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "UPDATE %s.migration SET step = 'swapped', swapped_at = pg_catalog.now(),"
					  " updated_at = pg_catalog.now() WHERE relid = %u;\n", c->state_q, t->relid);
}

void
mig_sql_unswap(const mig_ctx *c, mig_script *s)
{
	const mig_table *t = &c->t;
	int			i;

	/*
	 * Back to the shape run left before the swap (step indexed but for
	 * the old key's spare index, built again after): the new columns keep
	 * every value minted, including those handed out since the swap, with
	 * their CHECKs added again NOT VALID (validated after, without a
	 * strong lock), and the children's triggers fill <fk>_new again.  The
	 * new key's unique index was built before this transaction, so that
	 * dropping the primary key (and its index) leaves one.
	 */
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->qname);
	for (i = 0; i < t->nchildren; i++)
		mig_script_printf(s, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->children[i].qname);
	mig_sql_views_drop(c, s);
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];
		char		eqb[MIG_NAME + 16];

		mig_script_as(s, i);
		mig_script_printf(s, "ALTER TABLE %s DROP CONSTRAINT %s;\n", ch->qname, ch->con_q);
		/* After the swap the key is the new column, compared with the new type's operator. */
		/* The trigger kept the old column filled; a row it missed gets its value here. */
		mig_script_quiet(s, i);
		mig_script_printf(s, "UPDATE ONLY %s c SET %s = p.%s FROM ONLY %s p WHERE c.%s IS NULL AND c.%s IS NOT NULL"
						  " AND p.%s %s c.%s;\n", ch->qname, ch->old_q, t->old_q, t->qname, ch->old_q, ch->fk_q,
						  t->key_q, mig_sql_op(c, t->newtype, "=", eqb, sizeof(eqb)), ch->fk_q);
		mig_script_as(s, i);
		mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->fk_q, ch->new_q);
		mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->old_q, ch->fk_q);
		if (ch->ix_q[0] != '\0')
		{
			mig_script_as(s, MIG_AS_ME);
			mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ch->ix_nsp_q, ch->ix_q, ch->idx_q);
			mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ch->ix_nsp_q, ch->ix_old_q, ch->ix_q);
			mig_script_as(s, i);
		}
		mig_script_printf(s, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", ch->qname, ch->new_q);
		add_check(c, i, ch->qname, ch->chk_q, s);
	}
	mig_script_as(s, MIG_AS_TABLE);
	mig_script_printf(s, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->qname, t->pk_q);
	mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->key_q, t->new_q);
	mig_script_printf(s, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->old_q, t->key_q);
	mig_script_printf(s, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY USING INDEX %s;\n",
					  t->qname, t->pk_q, t->idx_old_q);
	mig_script_printf(s, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", t->qname, t->new_q);
	add_check(c, MIG_AS_TABLE, t->qname, t->chk_q, s);
	/* The old indexes serve the old key again under their names; the twins wait for the next swap. */
	for (i = 0; i < t->nindexes; i++)
	{
		const mig_index *ix = &t->indexes[i];

		if (!ix->renamed)
			continue;
		mig_script_as(s, MIG_AS_ME);
		mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ix->nsp_q, ix->name_q, ix->twin);
		mig_script_printf(s, "ALTER INDEX %s.%s RENAME TO %s;\n", ix->nsp_q, ix->old_q, ix->name_q);
		mig_script_as(s, MIG_AS_TABLE);
	}
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];

		mig_script_as(s, i);
		mig_script_printf(s, "ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) %s NOT VALID;\n",
						  ch->qname, ch->con_q, ch->fk_q, t->qname, t->key_q, ch->actions);
		/* The same trigger, its function turned round: it fills <fk>_new again. */
		child_fn(c, ch, s, false);
	}
	mig_sql_views_create(c, s);
	mig_script_as(s, MIG_AS_ME);
	mig_script_printf(s, "UPDATE %s.migration SET step = 'rolling_back', swapped_at = NULL, updated_at = pg_catalog.now()"
					  " WHERE relid = %u;\n", c->state_q, t->relid);
}

/* The role above a segment, for plan. */
void
mig_script_print(const mig_ctx *c, const mig_script *s)
{
	int			i;

	for (i = 0; i < s->n; i++)
	{
		const mig_owner *o = mig_who(c, s->seg[i].who);
		const char *p = s->seg[i].sql.s != NULL ? s->seg[i].sql.s : "";

		if (s->seg[i].quiet && c->trig_replica)
			printf("      SET LOCAL session_replication_role = replica;  -- as yourself: no trigger fires on these rows\n");
		if (o == NULL)
			printf("      -- as yourself\n");
		else if (o->wrap)
			printf("      -- as %s, the owner of %s (in a function of %s's: its code never runs with your rights)\n",
				   o->name_q, o->table, o->name_q);
		else
			printf("      -- as yourself (%s owns %s)\n", o->name_q, o->table);
		while (*p != '\0')
		{
			const char *nl = strchr(p, '\n');
			size_t		n = nl != NULL ? (size_t) (nl - p) : strlen(p);

			if (n > 0)
				printf("      %.*s\n", (int) n, p);
			p += n + (nl != NULL ? 1 : 0);
		}
		if (s->seg[i].quiet && c->trig_replica)
			printf("      SET LOCAL session_replication_role TO DEFAULT;  -- as yourself\n");
	}
}
