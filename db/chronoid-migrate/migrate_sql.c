/*
 * migrate_sql.c — the SQL of each step of a key move, built in one place
 * so that "plan" prints exactly what "run", "swap" and "rollback" send.
 * Every name in it came back from the server quoted; every function is
 * schema-qualified (the connection's search path is pg_catalog only).
 */
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
	return c->t.ext_q[0] != '\0' ? c->t.ext_q : "public";
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

static void
cutoff(const mig_ctx *c, mig_buf *b)
{
	mig_buf_printf(b, "(SELECT g.cutoff FROM %s.migration g WHERE g.relid = %u)", c->state_q, c->t.relid);
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
child_fn(const mig_ctx *c, const mig_child *ch, mig_buf *b, bool swapped)
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
	const char *ktype = swapped ? t->newtype : t->keytype;
	char		eqb[MIG_NAME + 16],
				neb[MIG_NAME + 16];
	const char *eq = mig_sql_op(c, ktype, "=", eqb, sizeof(eqb));
	const char *ne = mig_sql_op(c, ktype, "<>", neb, sizeof(neb));

	/*
	 * SECURITY DEFINER with the search path pinned to pg_catalog: a ulid's
	 * operators are named with their schema instead of widening the path
	 * (IS DISTINCT FROM cannot name its operator, hence the spelled-out
	 * test; NEW's fk is not NULL there).
	 */
	mig_buf_printf(b,
				   "CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
				   " SET search_path = pg_catalog, pg_temp AS $chronoid$\n"
				   "BEGIN\n"
				   "  IF NEW.%s IS NULL THEN\n"
				   "    NEW.%s := NULL;\n"
				   "  ELSIF TG_OP = 'INSERT' OR NEW.%s IS NULL OR OLD.%s IS NULL OR NEW.%s %s OLD.%s THEN\n"
				   "    NEW.%s := (SELECT p.%s FROM ONLY %s p WHERE p.%s %s NEW.%s);\n"
				   "  END IF;\n"
				   "  RETURN NEW;\n"
				   "END\n$chronoid$;\n"
				   "COMMENT ON FUNCTION %s() IS 'chronoid migrate: keeps %s.%s in step with %s (dropped by swap''s end or rollback)';\n",
				   ch->fn_q, src, dst, dst, src, src, ne, src, dst, pget, t->qname, pkey, eq, src,
				   ch->fn_q, ch->qname, dst, t->qname);
}

void
mig_sql_add(const mig_ctx *c, mig_buf *b)
{
	const mig_table *t = &c->t;
	int			i;

	/* No default value stored with the column (no rewrite); the default then applies to new rows. */
	mig_buf_printf(b, "ALTER TABLE %s ADD COLUMN %s %s;\n", t->qname, t->new_q, t->newtype);
	mig_buf_printf(b, "ALTER TABLE %s ALTER COLUMN %s SET DEFAULT ", t->qname, t->new_q);
	mig_sql_live(c, b);
	mig_buf_printf(b, ";\n");
	/* Column privileges and the comment follow a column's number: give the new one the key's. */
	if (t->grants[0] != '\0')
		mig_buf_printf(b, "%s\n", t->grants[0] == '\n' ? t->grants + 1 : t->grants);
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];

		mig_buf_printf(b, "ALTER TABLE %s ADD COLUMN %s %s;\n", ch->qname, ch->new_q, t->newtype);
		if (ch->grants[0] != '\0')
			mig_buf_printf(b, "%s\n", ch->grants);
		child_fn(c, ch, b, false);
		mig_buf_printf(b, "CREATE TRIGGER %s BEFORE INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION %s();\n",
					   ch->trig_q, ch->qname, ch->fn_q);
	}
}

void
mig_sql_map(const mig_ctx *c, mig_buf *b)
{
	const mig_table *t = &c->t;

	mig_buf_printf(b, "DROP TABLE IF EXISTS %s;\n"
				   "CREATE TABLE %s AS\n"
				   "SELECT s.k, CASE WHEN s.rn <= 4096 THEN s.base | (%lld::pg_catalog.int8 << 12) | (s.rn - 1) END AS sf\n"
				   "  FROM (SELECT r.%s AS k, snowflake.from_timestamp(",
				   t->map_q, t->map_q, (long long) (c->st.node > 0 ? c->st.node : 0), t->key_q);
	tsx(c, b);
	mig_buf_printf(b, ") AS base,\n               pg_catalog.row_number() OVER (PARTITION BY snowflake.from_timestamp(");
	tsx(c, b);
	mig_buf_printf(b, ") ORDER BY ");
	tsx(c, b);
	mig_buf_printf(b, ", r.%s) AS rn\n          FROM ONLY %s r\n         WHERE ", t->key_q, t->qname);
	tsx(c, b);
	mig_buf_printf(b, " >= snowflake.to_timestamp(0)\n           AND ");
	tsx(c, b);
	mig_buf_printf(b, " < pg_catalog.date_trunc('milliseconds', ");
	cutoff(c, b);
	mig_buf_printf(b, ")) s;\nALTER TABLE %s ADD PRIMARY KEY (k);\n", t->map_q);
}

void
mig_sql_batch(const mig_ctx *c, mig_buf *b, bool from_cursor)
{
	const mig_table *t = &c->t;
	bool		map = t->ts_q[0] != '\0' && strcmp(target(c), "snowflake") == 0;
	char		eqb[MIG_NAME + 16],
				gtb[MIG_NAME + 16];
	const char *eq = mig_sql_op(c, t->keytype, "=", eqb, sizeof(eqb));

	/* $1 the batch size; $2 the last old key done (text, typed by the comparison). */
	mig_buf_printf(b, "WITH b AS (SELECT r.%s AS k FROM ONLY %s r", t->key_q, t->qname);
	if (from_cursor)
		mig_buf_printf(b, " WHERE r.%s %s $2", t->key_q, mig_sql_op(c, t->keytype, ">", gtb, sizeof(gtb)));
	mig_buf_printf(b, " ORDER BY r.%s LIMIT $1),\n u AS (UPDATE ONLY %s r SET %s = ", t->key_q, t->qname, t->new_q);
	mig_sql_backfill_value(c, b);
	mig_buf_printf(b, "\n        FROM b");
	/* The snowflake map joins beside b (LEFT: rows it does not hold are minted now). */
	if (map)
		mig_buf_printf(b, " LEFT JOIN %s m ON m.k %s b.k", t->map_q, eq);
	mig_buf_printf(b, " WHERE r.%s %s b.k AND r.%s IS NULL RETURNING 1),\n"
				   " l AS (SELECT b.k::pg_catalog.text AS k FROM b ORDER BY b.k DESC LIMIT 1),\n"
				   " s AS (UPDATE %s.migration SET backfill_cursor = (SELECT l.k FROM l),"
				   " rows_done = rows_done + (SELECT pg_catalog.count(*) FROM u), updated_at = pg_catalog.now()"
				   " WHERE relid = %u AND EXISTS (SELECT 1 FROM l) RETURNING 1)\n"
				   "SELECT (SELECT l.k FROM l), (SELECT pg_catalog.count(*) FROM b), (SELECT pg_catalog.count(*) FROM u),"
				   " (SELECT pg_catalog.count(*) FROM s)",
				   t->key_q, eq, t->new_q, c->state_q, t->relid);
}

void
mig_sql_child_batch(const mig_ctx *c, const mig_child *ch, mig_buf *b)
{
	const mig_table *t = &c->t;
	char		eqb[MIG_NAME + 16];

	mig_buf_printf(b, "WITH u AS (UPDATE ONLY %s c SET %s = p.%s FROM ONLY %s p\n"
				   "   WHERE c.ctid >= pg_catalog.format('(%%s,0)', $1::pg_catalog.int8)::pg_catalog.tid"
				   " AND c.ctid < pg_catalog.format('(%%s,0)', $2::pg_catalog.int8)::pg_catalog.tid\n"
				   "     AND c.%s IS NULL AND c.%s IS NOT NULL AND p.%s %s c.%s RETURNING 1),\n"
				   " s AS (UPDATE %s.migration_child SET next_block = $2::pg_catalog.int8,"
				   " rows_done = rows_done + (SELECT pg_catalog.count(*) FROM u)"
				   " WHERE relid = %u AND child = %u AND constraint_name = $3 RETURNING 1)\n"
				   "SELECT (SELECT pg_catalog.count(*) FROM u), (SELECT pg_catalog.count(*) FROM s)",
				   ch->qname, ch->new_q, t->new_q, t->qname, ch->new_q, ch->fk_q, t->key_q,
				   mig_sql_op(c, t->keytype, "=", eqb, sizeof(eqb)), ch->fk_q, c->state_q, t->relid, ch->relid);
}

void
mig_sql_swap(const mig_ctx *c, mig_buf *b)
{
	const mig_table *t = &c->t;
	int			i;

	mig_buf_printf(b, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->qname);
	for (i = 0; i < t->nchildren; i++)
		mig_buf_printf(b, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->children[i].qname);
	/* The validated CHECK proves it: no scan under the lock. */
	mig_buf_printf(b, "ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;\n", t->qname, t->new_q);
	for (i = 0; i < t->nchildren; i++)
		mig_buf_printf(b, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->children[i].qname, t->children[i].con_q);
	mig_buf_printf(b, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->qname, t->pk_q);
	mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->key_q, t->old_q);
	mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->new_q, t->key_q);
	mig_buf_printf(b, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY USING INDEX %s;\n",
				   t->qname, t->pk_q, t->idx_new_q);
	mig_buf_printf(b, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->qname, t->chk_q);
	if (t->keydefault[0] == '\0' && !t->identity)
	{
		/* Nothing fills the old key of rows the application writes from now on. */
		mig_buf_printf(b, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", t->qname, t->old_q);
	}
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];

		mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->fk_q, ch->old_q);
		mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->new_q, ch->fk_q);
		if (ch->notnull)
			mig_buf_printf(b, "ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;\n", ch->qname, ch->fk_q);
		mig_buf_printf(b, "ALTER TABLE %s DROP CONSTRAINT %s;\n", ch->qname, ch->chk_q);
		mig_buf_printf(b, "ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) %s NOT VALID;\n",
					   ch->qname, ch->con_q, ch->fk_q, t->qname, t->key_q, ch->actions);
		child_fn(c, ch, b, true);
	}
	mig_buf_printf(b, "UPDATE %s.migration SET step = 'swapped', swapped_at = pg_catalog.now(),"
				   " updated_at = pg_catalog.now() WHERE relid = %u;\n", c->state_q, t->relid);
}

void
mig_sql_unswap(const mig_ctx *c, mig_buf *b)
{
	const mig_table *t = &c->t;
	int			i;

	mig_buf_printf(b, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->qname);
	for (i = 0; i < t->nchildren; i++)
		mig_buf_printf(b, "LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE;\n", t->children[i].qname);
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];
		char		eqb[MIG_NAME + 16];

		mig_buf_printf(b, "ALTER TABLE %s DROP CONSTRAINT %s;\n", ch->qname, ch->con_q);
		/* After the swap the key is the new column, compared with the new type's operator. */
		/* The trigger kept the old column filled; a row it missed gets its value here. */
		mig_buf_printf(b, "UPDATE ONLY %s c SET %s = p.%s FROM ONLY %s p WHERE c.%s IS NULL AND c.%s IS NOT NULL"
					   " AND p.%s %s c.%s;\n", ch->qname, ch->old_q, t->old_q, t->qname, ch->old_q, ch->fk_q,
					   t->key_q, mig_sql_op(c, t->newtype, "=", eqb, sizeof(eqb)), ch->fk_q);
		mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->fk_q, ch->new_q);
		mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", ch->qname, ch->old_q, ch->fk_q);
		mig_buf_printf(b, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", ch->qname, ch->new_q);
	}
	mig_buf_printf(b, "ALTER TABLE %s DROP CONSTRAINT %s;\n", t->qname, t->pk_q);
	mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->key_q, t->new_q);
	mig_buf_printf(b, "ALTER TABLE %s RENAME COLUMN %s TO %s;\n", t->qname, t->old_q, t->key_q);
	mig_buf_printf(b, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY USING INDEX %s;\n",
				   t->qname, t->pk_q, t->idx_old_q);
	mig_buf_printf(b, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", t->qname, t->new_q);
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];

		mig_buf_printf(b, "ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) %s NOT VALID;\n",
					   ch->qname, ch->con_q, ch->fk_q, t->qname, t->key_q, ch->actions);
		mig_buf_printf(b, "DROP TRIGGER %s ON %s;\nDROP FUNCTION %s();\n", ch->trig_q, ch->qname, ch->fn_q);
	}
	mig_buf_printf(b, "UPDATE %s.migration SET step = 'rolling_back', updated_at = pg_catalog.now()"
				   " WHERE relid = %u;\n", c->state_q, t->relid);
}
