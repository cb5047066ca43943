/*
 * migrate_subscriber.c — logical subscribers of a migrated table: the
 * check that every replication slot of the database keeps up before a
 * step that renames columns, and the mirror DDL each subscriber needs at
 * run, swap, rollback and finish (applied with --subscriber, or printed by
 * "chronoid migrate subscriber-ddl STEP"), docs/migrate.md "Subscribers".
 *
 * DDL is not replicated, and the apply worker matches columns by name: a
 * subscriber keeps applying only while its table has every column the
 * publisher sends under the same names, and a primary key among the
 * columns the publisher sends as the row's identity.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "pq_internal.h"
#include "migrate_steps_internal.h"

/* How long swap, rollback and finish give every slot to confirm the WAL position of now. */
#define SUB_SLOT_BOUND_MS 10000
/* After the publisher's step: how long a subscriber may take to apply what came before it. */
#define SUB_BOUNDARY_MS 60000
/* After the mirror DDL: the apply worker tries again every wal_retrieve_retry_interval (5 s). */
#define SUB_RESUME_MS 30000
#define SUB_POLL_MS 200
#define SUB_MAX_SLOTS 64

/* One subscriber given with --subscriber, connected for one step. */
typedef struct sub_conn
{
	PGconn	   *conn;
	char		label[300];		/* "dbname on host:port": never the conninfo (it may hold a password) */
	char		slots[SUB_MAX_SLOTS][MIG_NAME];	/* its subscriptions' slots that are here */
	int			nslots;
	bool		disabled;		/* one of them is disabled */
} sub_conn;

/* What a subscriber's copy of the tables looks like, for the mirror DDL. */
typedef struct sub_shape
{
	char		pk_q[MIG_NAME];	/* its primary key's name (the publisher's when printed) */
	bool		child_here[MIG_MAX_CHILDREN];	/* the child is there, with the migration's column */
	bool		child_fk[MIG_MAX_CHILDREN];	/* and its foreign key to the table */
} sub_shape;

/* The shape of a table or child on a subscriber: which of key, new and old it has. */
enum sub_form
{
	SUB_ABSENT,					/* not there, or without the migration's column */
	SUB_BEFORE,					/* key and new: as before the swap */
	SUB_AFTER,					/* key and old: as after it */
	SUB_OTHER
};

static void
sub_sql_line(mig_buf *b, const char *fmt,...) CID_PRINTF(2, 3);

static void
sub_sql_line(mig_buf *b, const char *fmt,...)
{
	char		line[2048];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	mig_buf_printf(b, "%s\n", line);
}

static const char *
step_word(enum mig_sub_step step)
{
	switch (step)
	{
		case MIG_SUB_RUN:
			return "run";
		case MIG_SUB_SWAP:
			return "swap";
		case MIG_SUB_ROLLBACK:
			return "rollback";
		case MIG_SUB_FINISH:
			return "finish";
	}
	return "?";
}

bool
mig_sub_step_parse(const char *s, enum mig_sub_step *out)
{
	static const enum mig_sub_step all[] = {MIG_SUB_RUN, MIG_SUB_SWAP, MIG_SUB_ROLLBACK, MIG_SUB_FINISH};
	size_t		i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
	{
		if (strcmp(s, step_word(all[i])) == 0)
		{
			*out = all[i];
			return true;
		}
	}
	return false;
}

/*
 * The mirror of one step: prep (statements that run one by one, outside a
 * transaction, before the publisher's step: CONCURRENTLY, blocking no
 * reader) and txn (one transaction, after it).  Either may be left empty.
 */
static void
mirror_sql(const mig_ctx *c, enum mig_sub_step step, const sub_shape *sh, mig_buf *prep, mig_buf *txn)
{
	const mig_table *t = &c->t;
	int			i;

	switch (step)
	{
		case MIG_SUB_RUN:
			/* Before run: the columns the publisher is about to send, with no default (its values come replicated). */
			sub_sql_line(txn, "ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s;", t->qname, t->new_q, t->newtype);
			for (i = 0; i < t->nchildren; i++)
				if (sh->child_here[i])
					sub_sql_line(txn, "ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s;", t->children[i].qname,
								 t->children[i].new_q, t->newtype);
			break;
		case MIG_SUB_SWAP:
			/* The new primary key's index, and the old key's, which outlives the swap (for a rollback). */
			sub_sql_line(prep, "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS %s ON %s (%s);",
						 t->idx_new_q, t->qname, t->new_q);
			sub_sql_line(prep, "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS %s ON %s (%s);",
						 t->idx_old_q, t->qname, t->key_q);
			for (i = 0; i < t->nchildren; i++)
				if (sh->child_here[i] && sh->child_fk[i])
					sub_sql_line(txn, "ALTER TABLE %s DROP CONSTRAINT %s;", t->children[i].qname, t->children[i].con_q);
			sub_sql_line(txn, "ALTER TABLE %s DROP CONSTRAINT %s;", t->qname, sh->pk_q);
			sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", t->qname, t->key_q, t->old_q);
			sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", t->qname, t->new_q, t->key_q);
			/* SET NOT NULL with it: a scan of the subscriber's table, under the lock. */
			sub_sql_line(txn, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY USING INDEX %s;",
						 t->qname, sh->pk_q, t->idx_new_q);
			if (t->keydefault[0] == '\0' && !t->identity)
				sub_sql_line(txn, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;", t->qname, t->old_q);
			for (i = 0; i < t->nchildren; i++)
			{
				const mig_child *ch = &t->children[i];

				if (!sh->child_here[i])
					continue;
				sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", ch->qname, ch->fk_q, ch->old_q);
				sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", ch->qname, ch->new_q, ch->fk_q);
				if (sh->child_fk[i])
					sub_sql_line(txn, "ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) %s NOT VALID;",
								 ch->qname, ch->con_q, ch->fk_q, t->qname, t->key_q, ch->actions);
			}
			break;
		case MIG_SUB_ROLLBACK:
			/* The key is the new column here: its unique index survives the primary key's drop. */
			sub_sql_line(prep, "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS %s ON %s (%s);",
						 t->idx_new_q, t->qname, t->key_q);
			sub_sql_line(prep, "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS %s ON %s (%s);",
						 t->idx_old_q, t->qname, t->old_q);
			for (i = 0; i < t->nchildren; i++)
			{
				const mig_child *ch = &t->children[i];

				if (!sh->child_here[i])
					continue;
				if (sh->child_fk[i])
					sub_sql_line(txn, "ALTER TABLE %s DROP CONSTRAINT %s;", ch->qname, ch->con_q);
				sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", ch->qname, ch->fk_q, ch->new_q);
				sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", ch->qname, ch->old_q, ch->fk_q);
			}
			sub_sql_line(txn, "ALTER TABLE %s DROP CONSTRAINT %s;", t->qname, sh->pk_q);
			sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", t->qname, t->key_q, t->new_q);
			sub_sql_line(txn, "ALTER TABLE %s RENAME COLUMN %s TO %s;", t->qname, t->old_q, t->key_q);
			sub_sql_line(txn, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY USING INDEX %s;",
						 t->qname, sh->pk_q, t->idx_old_q);
			sub_sql_line(txn, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;", t->qname, t->new_q);
			for (i = 0; i < t->nchildren; i++)
				if (sh->child_here[i] && sh->child_fk[i])
					sub_sql_line(txn, "ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s) %s NOT VALID;",
								 t->children[i].qname, t->children[i].con_q, t->children[i].fk_q, t->qname,
								 t->key_q, t->children[i].actions);
			break;
		case MIG_SUB_FINISH:
			/* From finish on nothing fills the children's old columns: rows arrive with NULL there. */
			for (i = 0; i < t->nchildren; i++)
				if (sh->child_here[i] && t->children[i].notnull)
					sub_sql_line(txn, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;",
								 t->children[i].qname, t->children[i].old_q);
			break;
	}
}

/* The publications that hold the table or a child, "" when none; NULL on error. */
static char *
publications(mig_ctx *c)
{
	mig_buf		q = {0};
	PGresult   *res;
	char	   *out;
	int			i;

	mig_buf_printf(&q, "SELECT COALESCE(pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(p.pubname), ', '), '')"
				   " FROM pg_catalog.pg_publication_tables p JOIN pg_catalog.pg_namespace n ON n.nspname = p.schemaname"
				   " JOIN pg_catalog.pg_class k ON k.relnamespace = n.oid AND k.relname = p.tablename"
				   " WHERE k.oid IN (%u", c->t.relid);
	for (i = 0; i < c->t.nchildren; i++)
		mig_buf_printf(&q, ", %u", c->t.children[i].relid);
	mig_buf_printf(&q, ")");
	res = mig_query(c, q.s, 0, NULL);
	mig_buf_free(&q);
	if (res == NULL)
		return NULL;
	out = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (out == NULL)
		snprintf(c->err, sizeof(c->err), "out of memory");
	return out;
}

/* The publisher's WAL position now, into lsn; false with c->err set. */
static bool
wal_now(mig_ctx *c, char *lsn, size_t len)
{
	PGresult   *res = mig_query(c, "SELECT pg_catalog.pg_current_wal_lsn()::pg_catalog.text", 0, NULL);

	if (res == NULL)
		return false;
	snprintf(lsn, len, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
}

/*
 * The pgoutput slots of this database that have not confirmed lsn (or are
 * not in use), one "name (why)" each, comma-separated, into out; only
 * those named in only[] when nonly > 0.  false with c->err set.
 */
static bool
slots_behind(mig_ctx *c, const char *lsn, char only[][MIG_NAME], int nonly, mig_buf *out)
{
	const char *params[1] = {lsn};
	PGresult   *res;
	int			i,
				j;

	res = mig_query(c, "SELECT s.slot_name, s.active, COALESCE(s.confirmed_flush_lsn::pg_catalog.text, 'none'),"
					" pg_catalog.pg_size_pretty(pg_catalog.pg_wal_lsn_diff($1::pg_catalog.pg_lsn, s.confirmed_flush_lsn))"
					" FROM pg_catalog.pg_replication_slots s"
					" WHERE s.slot_type = 'logical' AND s.plugin = 'pgoutput' AND s.database = pg_catalog.current_database()"
					" AND NOT (s.active AND s.confirmed_flush_lsn >= $1::pg_catalog.pg_lsn) ORDER BY 1", 1, params);
	if (res == NULL)
		return false;
	mig_buf_reset(out);
	for (i = 0; i < PQntuples(res); i++)
	{
		bool		listed = nonly == 0;

		for (j = 0; j < nonly && !listed; j++)
			listed = strcmp(only[j], PQgetvalue(res, i, 0)) == 0;
		if (!listed)
			continue;
		if (strcmp(PQgetvalue(res, i, 1), "t") != 0)
			mig_buf_printf(out, "%s%s (not in use: its subscriber is not connected, or its apply worker fails "
						   "and retries; confirmed %s)", out->len > 0 ? ", " : "", PQgetvalue(res, i, 0),
						   PQgetvalue(res, i, 2));
		else
			mig_buf_printf(out, "%s%s (confirmed %s, %s behind)", out->len > 0 ? ", " : "",
						   PQgetvalue(res, i, 0), PQgetvalue(res, i, 2), PQgetvalue(res, i, 3));
	}
	PQclear(res);
	return true;
}

/* --max-lag, else the default bound for the steps that rename. */
static int64_t
slot_bound_ms(const mig_ctx *c)
{
	return c->o->max_lag_ms >= 0 ? c->o->max_lag_ms : SUB_SLOT_BOUND_MS;
}

/*
 * Wait up to bound_ms for every slot of only[] (all when nonly is 0) to be
 * in use and to confirm the WAL position of the moment the wait began;
 * *late gets those that did not.  false with c->err set on error.
 */
static bool
slots_wait(mig_ctx *c, int64_t bound_ms, char only[][MIG_NAME], int nonly, mig_buf *late)
{
	char		lsn[64];
	int64_t		t0 = cid_clock_monotonic_ms();

	if (!wal_now(c, lsn, sizeof(lsn)))
		return false;
	for (;;)
	{
		if (!slots_behind(c, lsn, only, nonly, late))
			return false;
		if (late->len == 0 || cid_clock_monotonic_ms() - t0 >= bound_ms || mig_interrupted())
			return true;
		mig_sleep_ms(SUB_POLL_MS);
	}
}

bool
mig_slots_ok(mig_ctx *c, const char *step)
{
	char	   *pubs = publications(c);
	mig_buf		late = {0};
	bool		ok;

	if (pubs == NULL)
		return false;
	if (pubs[0] == '\0')
	{
		free(pubs);
		return true;
	}

	/*
	 * The publisher cannot tell which publications a slot serves (the
	 * subscriber names them when it connects): every pgoutput slot of the
	 * database counts.  A subscriber stopped at an earlier swap shows here
	 * too: its worker fails on each attempt and never confirms.
	 */
	ok = slots_wait(c, slot_bound_ms(c), NULL, 0, &late);
	if (ok && late.len > 0)
	{
		char		b[32];

		mig_fmt_secs(b, sizeof(b), (double) slot_bound_ms(c) / 1000.0);
		snprintf(c->err, sizeof(c->err), "refusing the %s: %s %s published (%s), and replication slot %s did not "
				 "confirm the WAL position of now within %s (--max-lag): its subscriber would stop at the %s, "
				 "or has stopped at an earlier step (its log says missing replicated column). Bring it up to "
				 "date (apply chronoid migrate subscriber-ddl STEP --table %s there, for the step it missed), "
				 "drop the slot if it is abandoned, or raise --max-lag", step, c->t.qname,
				 c->t.nchildren > 0 ? "or a child is" : "is", pubs, late.s, b, step, c->o->table);
		ok = false;
	}
	mig_buf_free(&late);
	free(pubs);
	return ok;
}

/* --- the subscribers given with --subscriber ------------------------------ */

static sub_conn subs[MIG_MAX_SUBSCRIBERS];
static int	nsubs;

static void
subs_close(void)
{
	int			i;

	for (i = 0; i < nsubs; i++)
		if (subs[i].conn != NULL)
			PQfinish(subs[i].conn);
	nsubs = 0;
}

/* A result of one statement on subscriber s; NULL with c->err set (naming it). */
static PGresult *
sub_query(mig_ctx *c, sub_conn *s, const char *sql, int nparams, const char *const *params)
{
	char		err[2048];
	bool		broken;
	PGresult   *res = cid_pq_exec(s->conn, sql, nparams, params, 0, &broken, err, sizeof(err));

	if (res != NULL && cid_pq_ok(res))
		return res;
	PQclear(res);
	snprintf(c->err, sizeof(c->err), "subscriber %s: %s", s->label, err);
	return NULL;
}

/* Connect every --subscriber and find its subscriptions whose slots are here; false with c->err set. */
static bool
subs_open(mig_ctx *c)
{
	int			i,
				j;
	PGresult   *res;

	if (nsubs > 0)
		return true;
	for (i = 0; i < c->o->nsubscribers; i++)
	{
		sub_conn   *s = &subs[nsubs];
		char		err[2048];

		memset(s, 0, sizeof(*s));
		s->conn = cid_pq_connect(c->o->subscribers[i], "chronoid-migrate", 10000, err, sizeof(err));
		snprintf(s->label, sizeof(s->label), "%d", i + 1);
		if (s->conn == NULL)
		{
			snprintf(c->err, sizeof(c->err), "subscriber %d (--subscriber number %d): %s", i + 1, i + 1, err);
			return false;
		}
		nsubs++;
		snprintf(s->label, sizeof(s->label), "%s on %s:%s", PQdb(s->conn),
				 PQhost(s->conn) != NULL ? PQhost(s->conn) : "", PQport(s->conn));
		/* Code that runs as a role set for the session could RESET ROLE to the operator's. */
		if (!mig_check_session(s->conn, err, sizeof(err)))
		{
			snprintf(c->err, sizeof(c->err), "subscriber %s: %s", s->label, err);
			return false;
		}
		/* An index build must not be cut short by a role's default. */
		res = sub_query(c, s, "SET statement_timeout = 0", 0, NULL);
		if (res == NULL)
			return false;
		PQclear(res);
		res = sub_query(c, s, "SELECT s.subslotname, s.subenabled FROM pg_catalog.pg_subscription s"
						" WHERE s.subdbid = (SELECT d.oid FROM pg_catalog.pg_database d"
						"   WHERE d.datname = pg_catalog.current_database()) AND s.subslotname IS NOT NULL",
						0, NULL);
		if (res == NULL)
			return false;
		for (j = 0; j < PQntuples(res) && s->nslots < SUB_MAX_SLOTS; j++)
		{
			const char *params[1] = {PQgetvalue(res, j, 0)};
			PGresult   *here = mig_query(c, "SELECT 1 FROM pg_catalog.pg_replication_slots s WHERE s.slot_name = $1"
										 " AND s.database = pg_catalog.current_database()", 1, params);

			if (here == NULL)
			{
				PQclear(res);
				return false;
			}
			if (PQntuples(here) > 0)
			{
				snprintf(s->slots[s->nslots++], MIG_NAME, "%s", PQgetvalue(res, j, 0));
				if (strcmp(PQgetvalue(res, j, 1), "t") != 0)
					s->disabled = true;
			}
			PQclear(here);
		}
		PQclear(res);
		if (s->nslots == 0)
		{
			snprintf(c->err, sizeof(c->err), "subscriber %s has no subscription whose replication slot is in "
					 "this database: is --subscriber the subscriber of this publisher?", s->label);
			return false;
		}
	}
	return true;
}

/* The form of relation qname on subscriber s, by its columns key, new and old. */
static bool
sub_form(mig_ctx *c, sub_conn *s, const char *qname, const char *key, const char *new, const char *old,
		 enum sub_form *form, char *pk_q, size_t pklen)
{
	const char *params[4] = {qname, key, new, old};
	PGresult   *res;
	bool		k,
				n,
				o;

	res = sub_query(c, s, "SELECT r.oid IS NOT NULL,"
					" EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = r.oid AND a.attname = $2 AND NOT a.attisdropped),"
					" EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = r.oid AND a.attname = $3 AND NOT a.attisdropped),"
					" EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = r.oid AND a.attname = $4 AND NOT a.attisdropped),"
					" (SELECT pg_catalog.quote_ident(x.conname) FROM pg_catalog.pg_constraint x"
					"   WHERE x.conrelid = r.oid AND x.contype = 'p')"
					" FROM (SELECT pg_catalog.to_regclass($1) AS oid) r", 4, params);
	if (res == NULL)
		return false;
	k = strcmp(PQgetvalue(res, 0, 1), "t") == 0;
	n = strcmp(PQgetvalue(res, 0, 2), "t") == 0;
	o = strcmp(PQgetvalue(res, 0, 3), "t") == 0;
	if (strcmp(PQgetvalue(res, 0, 0), "t") != 0 || (!n && !o))
		*form = SUB_ABSENT;
	else if (k && n && !o)
		*form = SUB_BEFORE;
	else if (k && o && !n)
		*form = SUB_AFTER;
	else
		*form = SUB_OTHER;
	if (pk_q != NULL)
		snprintf(pk_q, pklen, "%s", PQgetisnull(res, 0, 4) ? "" : PQgetvalue(res, 0, 4));
	PQclear(res);
	return true;
}

/*
 * Subscriber s's shape for step: *todo false when its tables already are
 * as the step leaves them (a repeated step does nothing).  false with
 * c->err set when they are neither before nor after it.
 */
static bool
sub_shape_read(mig_ctx *c, sub_conn *s, enum mig_sub_step step, sub_shape *sh, bool *todo)
{
	const mig_table *t = &c->t;
	enum sub_form want_before = step == MIG_SUB_ROLLBACK ? SUB_AFTER : SUB_BEFORE;
	enum sub_form want_after = step == MIG_SUB_ROLLBACK ? SUB_BEFORE : SUB_AFTER;
	enum sub_form f;
	int			i;

	memset(sh, 0, sizeof(*sh));
	*todo = false;
	if (!sub_form(c, s, t->qname, t->key_raw, t->new_raw, t->old_raw, &f, sh->pk_q, sizeof(sh->pk_q)))
		return false;
	if (step == MIG_SUB_FINISH)
	{
		if (f != SUB_AFTER)
		{
			snprintf(c->err, sizeof(c->err), "subscriber %s: %s has not had the swap's DDL (it has no %s "
					 "beside %s): apply chronoid migrate subscriber-ddl swap --table %s there first",
					 s->label, t->qname, t->old_q, t->key_q, c->o->table);
			return false;
		}
		for (i = 0; i < t->nchildren; i++)
		{
			const mig_child *ch = &t->children[i];
			char		nw[MIG_NAME + 8],
						od[MIG_NAME + 8];
			PGresult   *res;
			const char *params[2];

			snprintf(nw, sizeof(nw), "%s_new", ch->fk_raw);
			snprintf(od, sizeof(od), "%s_old", ch->fk_raw);
			if (!sub_form(c, s, ch->qname, ch->fk_raw, nw, od, &f, NULL, 0))
				return false;
			sh->child_here[i] = f == SUB_AFTER;
			if (!sh->child_here[i] || !ch->notnull)
				continue;
			params[0] = ch->qname;
			params[1] = od;
			res = sub_query(c, s, "SELECT a.attnotnull FROM pg_catalog.pg_attribute a"
							" WHERE a.attrelid = pg_catalog.to_regclass($1) AND a.attname = $2", 2, params);
			if (res == NULL)
				return false;
			if (PQntuples(res) > 0 && strcmp(PQgetvalue(res, 0, 0), "t") == 0)
				*todo = true;
			PQclear(res);
		}
		return true;
	}
	if (step == MIG_SUB_RUN)
	{
		*todo = f != SUB_BEFORE;
		for (i = 0; i < t->nchildren; i++)
			sh->child_here[i] = true;
		return true;
	}
	if (f == want_after)
		return true;
	if (f != want_before || sh->pk_q[0] == '\0')
	{
		snprintf(c->err, sizeof(c->err), "subscriber %s: %s is neither as before the %s nor as after it "
				 "(expected the columns %s and %s%s): add the migration's columns there as chronoid migrate "
				 "subscriber-ddl run prints, or bring its schema in line with the publisher's",
				 s->label, t->qname, step_word(step), t->key_q, want_before == SUB_BEFORE ? t->new_q : t->old_q,
				 sh->pk_q[0] == '\0' && f == want_before ? ", and a primary key" : "");
		return false;
	}
	*todo = true;
	for (i = 0; i < t->nchildren; i++)
	{
		const mig_child *ch = &t->children[i];
		char		nw[MIG_NAME + 8],
					od[MIG_NAME + 8];
		const char *params[2] = {ch->qname, ch->con_raw};
		PGresult   *res;

		snprintf(nw, sizeof(nw), "%s_new", ch->fk_raw);
		snprintf(od, sizeof(od), "%s_old", ch->fk_raw);
		if (!sub_form(c, s, ch->qname, ch->fk_raw, nw, od, &f, NULL, 0))
			return false;
		if (f == SUB_ABSENT)
			continue;			/* a child this subscriber does not receive */
		if (f != want_before)
		{
			snprintf(c->err, sizeof(c->err), "subscriber %s: child %s is not as before the %s (it should "
					 "have %s and %s)", s->label, ch->qname, step_word(step), ch->fk_q,
					 want_before == SUB_BEFORE ? ch->new_q : ch->old_q);
			return false;
		}
		sh->child_here[i] = true;
		res = sub_query(c, s, "SELECT 1 FROM pg_catalog.pg_constraint x WHERE x.conrelid = pg_catalog.to_regclass($1)"
						" AND x.conname = $2 AND x.contype = 'f'", 2, params);
		if (res == NULL)
			return false;
		sh->child_fk[i] = PQntuples(res) > 0;
		PQclear(res);
	}
	return true;
}

/*
 * An index of the tool's name on qname left invalid by a build that was
 * cut short (CREATE INDEX CONCURRENTLY IF NOT EXISTS would keep it, and
 * USING INDEX refuse it): dropped, CONCURRENTLY.
 */
static bool
sub_drop_invalid(mig_ctx *c, sub_conn *s, const char *idx_q)
{
	char		name[2 * MIG_NAME + 2];
	const char *params[1] = {name};
	PGresult   *res;
	bool		invalid;

	snprintf(name, sizeof(name), "%s.%s", c->t.nsp_q, idx_q);
	res = sub_query(c, s, "SELECT NOT i.indisvalid FROM pg_catalog.pg_index i"
					" WHERE i.indexrelid = pg_catalog.to_regclass($1)", 1, params);
	if (res == NULL)
		return false;
	invalid = PQntuples(res) > 0 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	if (!invalid)
		return true;
	fprintf(stderr, "chronoid: %s: subscriber %s: dropping %s, left invalid by a build cut short\n",
			c->o->sub, s->label, name);
	{
		mig_buf		q = {0};

		mig_buf_printf(&q, "DROP INDEX CONCURRENTLY IF EXISTS %s", name);
		res = sub_query(c, s, q.s, 0, NULL);
		mig_buf_free(&q);
	}
	if (res == NULL)
		return false;
	PQclear(res);
	return true;
}

/*
 * Foreign keys on subscriber s to the table that no child here has (a
 * table only the subscriber has): dropping the primary key there would
 * fail on them after the publisher's step, so they are refused before
 * it, named.  false with c->err set.
 */
static bool
sub_foreign_keys(mig_ctx *c, sub_conn *s)
{
	const char *params[1] = {c->t.qname};
	PGresult   *res;
	mig_buf		extra = {0};
	int			i,
				j;
	bool		ok;

	res = sub_query(c, s, "SELECT x.conrelid::pg_catalog.text, x.conname, pg_catalog.format('%s on %s',"
					" pg_catalog.quote_ident(x.conname), x.conrelid::pg_catalog.regclass)"
					" FROM pg_catalog.pg_constraint x WHERE x.contype = 'f'"
					" AND x.confrelid = pg_catalog.to_regclass($1) ORDER BY 3", 1, params);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		bool		known = false;

		for (j = 0; j < c->t.nchildren && !known; j++)
		{
			const char *p2[1] = {c->t.children[j].qname};
			PGresult   *r2;

			if (strcmp(c->t.children[j].con_raw, PQgetvalue(res, i, 1)) != 0)
				continue;
			r2 = sub_query(c, s, "SELECT pg_catalog.to_regclass($1)::pg_catalog.oid::pg_catalog.text", 1, p2);
			if (r2 == NULL)
			{
				PQclear(res);
				mig_buf_free(&extra);
				return false;
			}
			known = strcmp(PQgetvalue(r2, 0, 0), PQgetvalue(res, i, 0)) == 0;
			PQclear(r2);
		}
		if (!known)
			mig_buf_printf(&extra, "%s%s", extra.len > 0 ? ", " : "", PQgetvalue(res, i, 2));
	}
	PQclear(res);
	ok = extra.len == 0;
	if (!ok)
		snprintf(c->err, sizeof(c->err), "subscriber %s: foreign keys there reference %s's key but none here "
				 "does: %s; the key move there would fail on them after the publisher's step: drop them there "
				 "for the move (add them again on the new key after it)", s->label, c->t.qname, extra.s);
	mig_buf_free(&extra);
	return ok;
}

/*
 * Views and materialized views on subscriber s that depend on the table's
 * primary key there (a GROUP BY on it, which selects the other columns
 * through it): the tool carries views here, not there, and dropping that
 * key there would fail on them after the publisher's step, so they are
 * refused before it, named.  false with c->err set.
 */
static bool
sub_key_views(mig_ctx *c, sub_conn *s)
{
	const char *params[1] = {c->t.qname};
	PGresult   *res;
	bool		ok;

	res = sub_query(c, s, "SELECT pg_catalog.string_agg(DISTINCT pg_catalog.format('%s %s',"
					" CASE v.relkind WHEN 'm' THEN 'materialized view' ELSE 'view' END, v.oid::pg_catalog.regclass), ', ')"
					" FROM pg_catalog.pg_depend d"
					" JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid"
					" JOIN pg_catalog.pg_class v ON v.oid = r.ev_class"
					" JOIN pg_catalog.pg_constraint x ON x.oid = d.refobjid"
					" WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
					" AND d.refclassid = 'pg_catalog.pg_constraint'::pg_catalog.regclass"
					" AND x.contype = 'p' AND x.conrelid = pg_catalog.to_regclass($1)", 1, params);
	if (res == NULL)
		return false;
	ok = PQgetisnull(res, 0, 0);
	if (!ok)
		snprintf(c->err, sizeof(c->err), "subscriber %s: views there depend on %s's primary key (they group "
				 "by it): %s; the key move there would fail on them after the publisher's step, and the tool "
				 "does not carry a subscriber's views: drop them there for the move (create them again after it)",
				 s->label, c->t.qname, PQgetvalue(res, 0, 0));
	PQclear(res);
	return ok;
}

/* Each statement of prep (one a line) alone, on subscriber s. */
static bool
sub_run_lines(mig_ctx *c, sub_conn *s, const char *prep)
{
	const char *p = prep;

	while (p != NULL && *p != '\0')
	{
		const char *nl = strchr(p, '\n');
		size_t		n = nl != NULL ? (size_t) (nl - p) : strlen(p);
		char	   *stmt = strndup(p, n);
		PGresult   *res;

		if (stmt == NULL)
		{
			snprintf(c->err, sizeof(c->err), "out of memory");
			return false;
		}
		res = sub_query(c, s, stmt, 0, NULL);
		free(stmt);
		if (res == NULL)
			return false;
		PQclear(res);
		p += n + (nl != NULL ? 1 : 0);
	}
	return true;
}

bool
mig_sub_prepare(mig_ctx *c, enum mig_sub_step step)
{
	int			i;

	if (c->o->nsubscribers == 0)
		return true;
	if (!subs_open(c))
		return false;
	for (i = 0; i < nsubs; i++)
	{
		sub_shape	sh;
		mig_buf		prep = {0},
					txn = {0};
		bool		todo,
					ok;

		if (!sub_shape_read(c, &subs[i], step, &sh, &todo))
			return false;
		if (!todo)
			continue;
		if ((step == MIG_SUB_SWAP || step == MIG_SUB_ROLLBACK) &&
			(!sub_foreign_keys(c, &subs[i]) || !sub_key_views(c, &subs[i])))
			return false;
		if ((step == MIG_SUB_SWAP || step == MIG_SUB_ROLLBACK) &&
			(!sub_drop_invalid(c, &subs[i], c->t.idx_new_q) || !sub_drop_invalid(c, &subs[i], c->t.idx_old_q)))
			return false;
		mirror_sql(c, step, &sh, &prep, &txn);
		if (step == MIG_SUB_RUN || step == MIG_SUB_FINISH)
		{
			/* Safe before the publisher's step: a column or a NULL the publisher does not send yet. */
			mig_buf_printf(&prep, "%s", txn.s != NULL ? txn.s : "");
		}
		else if (prep.len > 0)
			fprintf(stderr, "chronoid: %s: subscriber %s: building the unique indexes its %s needs (CONCURRENTLY)\n",
					c->o->sub, subs[i].label, step_word(step));
		ok = sub_run_lines(c, &subs[i], prep.s);
		mig_buf_free(&prep);
		mig_buf_free(&txn);
		if (!ok)
			return false;
		if (step == MIG_SUB_RUN || step == MIG_SUB_FINISH)
			fprintf(stderr, "chronoid: %s: subscriber %s: %s\n", c->o->sub, subs[i].label,
					step == MIG_SUB_RUN ? "added the migration's columns" : "the children's old columns take NULL");
	}
	return true;
}

/* The sum of the apply errors of s's subscriptions (15+; -1 before, or when not shown). */
static int64_t
sub_errors(mig_ctx *c, sub_conn *s)
{
	PGresult   *res;
	int64_t		n = -1;

	if (PQserverVersion(s->conn) < 150000)
		return -1;
	res = sub_query(c, s, "SELECT COALESCE(pg_catalog.sum(x.apply_error_count), 0)::pg_catalog.int8"
					" FROM pg_catalog.pg_stat_subscription_stats x JOIN pg_catalog.pg_subscription s ON s.oid = x.subid"
					" WHERE s.subdbid = (SELECT d.oid FROM pg_catalog.pg_database d"
					"   WHERE d.datname = pg_catalog.current_database())", 0, NULL);
	if (res == NULL)
		return -1;
	n = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return n;
}

/*
 * Wait until subscriber s has applied every change committed before the
 * publisher's step: its slots confirm a WAL position taken after it
 * (nothing of the table came since), or its apply worker failed since the
 * wait began (on the first change after the step: those before it apply
 * as the columns were).  false with c->err set when it does neither in
 * SUB_BOUNDARY_MS.
 */
static bool
sub_boundary(mig_ctx *c, sub_conn *s)
{
	int64_t		errors0 = sub_errors(c, s);
	int64_t		t0 = cid_clock_monotonic_ms();
	char		lsn[64];
	mig_buf		late = {0};

	if (s->disabled)
		return true;			/* stopped: nothing more applies until it is enabled */
	if (!wal_now(c, lsn, sizeof(lsn)))
		return false;
	for (;;)
	{
		int64_t		e;

		if (!slots_behind(c, lsn, s->slots, s->nslots, &late))
			break;
		if (late.len == 0)
		{
			fprintf(stderr, "chronoid: %s: subscriber %s: caught up with this step\n", c->o->sub, s->label);
			mig_buf_free(&late);
			return true;
		}
		e = sub_errors(c, s);

		/*
		 * Before 15 no count of apply errors: a slot that was in use
		 * before the step (mig_slots_ok) and is not now lost its worker,
		 * which exits on the error.
		 */
		if ((errors0 >= 0 && e > errors0) || (errors0 < 0 && strstr(late.s, "(not in use") != NULL))
		{
			fprintf(stderr, "chronoid: %s: subscriber %s: stopped at the first change after this step "
					"(every change before it applied)\n", c->o->sub, s->label);
			mig_buf_free(&late);
			return true;
		}
		if (cid_clock_monotonic_ms() - t0 >= SUB_BOUNDARY_MS || mig_interrupted())
		{
			snprintf(c->err, sizeof(c->err), "subscriber %s has not applied the changes made before this step "
					 "within %d s (slot %s), so renaming its columns now could stop it on one of them",
					 s->label, SUB_BOUNDARY_MS / 1000, late.s);
			break;
		}
		mig_sleep_ms(SUB_POLL_MS);
	}
	mig_buf_free(&late);
	return false;
}

bool
mig_sub_mirror(mig_ctx *c, enum mig_sub_step step)
{
	int			i;

	if (c->o->nsubscribers == 0)
		return true;
	if (!subs_open(c))
		goto fail;
	for (i = 0; i < nsubs; i++)
	{
		sub_conn   *s = &subs[i];
		sub_shape	sh;
		mig_buf		prep = {0},
					txn = {0},
					script = {0},
					late = {0};
		bool		todo,
					ok;

		if (!sub_shape_read(c, s, step, &sh, &todo))
			goto fail;
		if (todo)
		{
			char		err[2048];
			bool		broken;
			PGresult   *res;
			int			attempt;

			mirror_sql(c, step, &sh, &prep, &txn);

			/*
			 * The indexes the key move needs, when the subscriber did
			 * not get them before the step (a swap run without
			 * --subscriber, resumed with it): its columns still have
			 * their names from before it.
			 */
			if ((step == MIG_SUB_SWAP || step == MIG_SUB_ROLLBACK) &&
				(!sub_foreign_keys(c, s) || !sub_drop_invalid(c, s, c->t.idx_new_q) ||
				 !sub_drop_invalid(c, s, c->t.idx_old_q) || !sub_run_lines(c, s, prep.s)))
			{
				mig_buf_free(&prep);
				mig_buf_free(&txn);
				goto fail;
			}
			if (!sub_boundary(c, s))
			{
				mig_buf_free(&prep);
				mig_buf_free(&txn);
				goto fail;
			}

			/*
			 * Its readers queue behind the lock request as the
			 * publisher's writers do: the same bound and retries.
			 */
			mig_buf_printf(&script, "BEGIN;\nSET LOCAL lock_timeout = %lld;\n%sCOMMIT;\n",
						   (long long) c->o->lock_timeout_ms, txn.s != NULL ? txn.s : "");
			for (attempt = 1;; attempt++)
			{
				bool		again;

				res = cid_pq_script(s->conn, script.s, 0, &broken, err, sizeof(err));
				ok = res != NULL && cid_pq_ok(res);
				again = !ok && res != NULL && !broken && attempt < c->o->retries &&
					(strcmp(cid_pq_sqlstate(res), "55P03") == 0 || strcmp(cid_pq_sqlstate(res), "40P01") == 0);
				PQclear(res);
				if (ok)
					break;
				PQclear(PQexec(s->conn, "ROLLBACK"));
				if (!again || mig_interrupted())
				{
					snprintf(c->err, sizeof(c->err), "subscriber %s: %s", s->label, err);
					break;
				}
				if (attempt == 1)
					fprintf(stderr, "chronoid: %s: subscriber %s: another session holds a lock on %s there: "
							"trying again (lock_timeout %lld ms, up to %d tries)\n", c->o->sub, s->label,
							c->t.qname, (long long) c->o->lock_timeout_ms, c->o->retries);
				mig_sleep_ms(SUB_POLL_MS);
			}
			mig_buf_free(&prep);
			mig_buf_free(&txn);
			mig_buf_free(&script);
			if (!ok)
				goto fail;
			fprintf(stderr, "chronoid: %s: subscriber %s: %s's columns renamed and its key moved as here\n",
					c->o->sub, s->label, c->t.qname);
		}
		if (s->disabled)
		{
			fprintf(stderr, "chronoid: %s: subscriber %s: a subscription of its is disabled (disable_on_error?): "
					"enable it (ALTER SUBSCRIPTION ... ENABLE) to go on\n", c->o->sub, s->label);
			continue;
		}
		/* The apply worker tries again every wal_retrieve_retry_interval: see it go on. */
		if (!slots_wait(c, SUB_RESUME_MS, s->slots, s->nslots, &late))
			goto fail;
		ok = late.len == 0;
		if (!ok)
			snprintf(c->err, sizeof(c->err), "subscriber %s has its DDL but has not caught up within %d s "
					 "(slot %s): look at its server log", s->label, SUB_RESUME_MS / 1000, late.s);
		mig_buf_free(&late);
		if (!ok)
			goto fail;
		fprintf(stderr, "chronoid: %s: subscriber %s: replicating again\n", c->o->sub, s->label);
	}
	subs_close();
	return true;
fail:
	{
		char		why[2048];

		snprintf(why, sizeof(why), "%.2000s", c->err);
		snprintf(c->err, sizeof(c->err), "the %s is committed here, but not on every subscriber: %s. Its "
				 "subscription stops at the first change of %s until it is: run this again with the same "
				 "--subscriber options (safe to repeat: a subscriber already done is left alone), or apply "
				 "chronoid migrate subscriber-ddl %s --table %s there yourself", step_word(step), why,
				 c->t.qname, step_word(step), c->o->table);
	}
	subs_close();
	return false;
}

int
mig_sub_print(mig_ctx *c, enum mig_sub_step step)
{
	sub_shape	sh;
	mig_buf		prep = {0},
				txn = {0};
	int			i;

	memset(&sh, 0, sizeof(sh));
	snprintf(sh.pk_q, sizeof(sh.pk_q), "%s", c->t.pk_q);
	for (i = 0; i < c->t.nchildren; i++)
	{
		sh.child_here[i] = true;
		sh.child_fk[i] = true;
	}
	mirror_sql(c, step, &sh, &prep, &txn);
	printf("-- chronoid migrate %s --table %s: the DDL each logical subscriber of %s needs\n"
		   "-- (its tables as a copy of the publisher's schema: same names, same constraints;\n"
		   "-- leave out the statements on a child it does not receive, or on a foreign key it lacks)\n",
		   step_word(step), c->o->table, c->t.qname);
	if (prep.len > 0)
		printf("\n-- before the publisher's %s, on each subscriber (one at a time, outside a transaction;\n"
			   "-- blocks no writer):\n%s", step_word(step), prep.s);
	if (txn.len == 0)
		printf("\n-- nothing to do on subscribers at %s\n", step_word(step));
	else if (step == MIG_SUB_RUN)
		printf("\n-- before the publisher's run, on each subscriber:\n%s", txn.s);
	else if (step == MIG_SUB_FINISH)
		printf("\n-- before or right after the publisher's finish, on each subscriber:\n%s", txn.s);
	else
		printf("\n-- right after the publisher's %s commits, once the subscriber has applied every change\n"
			   "-- before it (its apply worker then fails with missing replicated column), in one\n"
			   "-- transaction; run twice, it fails at the first RENAME and changes nothing:\n"
			   "BEGIN;\n%sCOMMIT;\n", step_word(step), txn.s);
	mig_buf_free(&prep);
	mig_buf_free(&txn);
	return MIG_EXIT_OK;
}
