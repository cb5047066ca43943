/*
 * migrate_steps_internal.h — moving one table's key (plan, run, status,
 * swap, rollback): what those files share.  Not installed.
 *
 * The steps, in order, each recorded in the state table when done (so a
 * second run skips it, and an interrupted one resumes at it):
 *
 *   added       the new column <key>_new (no default value stored: no
 *               rewrite) with chronoid's generator as the default for new
 *               rows; on each child table <fk>_new and a trigger that
 *               fills it from the parent
 *   backfilled  every old row's <key>_new set, in keyset batches on the
 *               old key, the cursor committed with each batch
 *   children    every child row's <fk>_new set from its parent
 *   checked     NOT NULL proven by validated CHECK constraints (so the
 *               swap's SET NOT NULL scans nothing)
 *   indexed     the unique index on <key>_new, a unique index on the old
 *               key (it outlives the swap), child indexes, and a twin on
 *               <key>_new of each other index on the key, all CONCURRENTLY
 *   swapped     (swap) one transaction: primary key and foreign keys moved,
 *               columns renamed: <key> is the new ID, <key>_old the old
 *   done        (swap) the re-pointed foreign keys validated
 *
 * finish then drops the triggers that kept the children's old columns
 * filled (so rollback stayed possible) and the state; the old columns
 * stay for the user to drop.
 *
 * A bigint key filled from a sequence and moved --to snowflake takes the
 * other road: snowflake.convert_sequence_to_snowflake() (step converted).
 */
#ifndef CHRONOID_MIGRATE_STEPS_INTERNAL_H
#define CHRONOID_MIGRATE_STEPS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "migrate_internal.h"

#include "clock_internal.h"
#include "compiler_internal.h"

/* A growing string for SQL text and messages. */
typedef struct mig_buf
{
	char	   *s;
	size_t		len;
	size_t		cap;
} mig_buf;

void		mig_buf_printf(mig_buf *b, const char *fmt,...) CID_PRINTF(2, 3);
void		mig_buf_reset(mig_buf *b);
void		mig_buf_free(mig_buf *b);

/*
 * A script whose parts run as different roles (docs/migrate.md "Trust"):
 * each segment as the tool itself (MIG_AS_ME), as the owner of the table
 * (MIG_AS_TABLE) or as the owner of child i (i >= 0).  Built in order;
 * run in one transaction (mig_ddl_script); plan prints it with the role
 * above each segment.
 */
#define MIG_AS_ME (-1)
#define MIG_AS_TABLE (-2)
#define MIG_AS_VIEW0 1000		/* view i: MIG_AS_VIEW(i), as the view's owner */
#define MIG_AS_VIEW(i) (MIG_AS_VIEW0 + (i))
#define MIG_AS_POLICY0 100000	/* policy i: MIG_AS_POLICY(i), as its table's owner */
#define MIG_AS_POLICY(i) (MIG_AS_POLICY0 + (i))

typedef struct mig_seg
{
	int			who;
	bool		quiet;			/* writes rows: the tables' triggers kept from firing (mig_trig_quiet) */
	mig_buf		sql;
} mig_seg;

typedef struct mig_script
{
	mig_seg    *seg;
	int			n;
	int			cap;
} mig_script;

/* What follows runs as who (a new segment when who changes). */
void		mig_script_as(mig_script *s, int who);

/*
 * What follows, up to the next mig_script_as, writes rows of a table as
 * who: a segment of its own, run with the tables' triggers kept from
 * firing (mig_trig_quiet) and checked after it (mig_trig_verify).
 */
void		mig_script_quiet(mig_script *s, int who);
void		mig_script_printf(mig_script *s, const char *fmt,...) CID_PRINTF(2, 3);
void		mig_script_free(mig_script *s);

#define MIG_NAME 200			/* a quoted identifier, or schema.name */
#define MIG_MAX_CHILDREN 64

enum mig_step
{
	MIG_NEW = 0,
	MIG_ADDED,
	MIG_BACKFILLED,
	MIG_CHILDREN,
	MIG_CHECKED,
	MIG_INDEXED,
	MIG_SWAPPED,
	MIG_DONE,
	MIG_CONVERTED,
	MIG_ROLLING					/* rollback: old key restored; CHECKs and spare index to redo */
};

const char *mig_step_name(enum mig_step s);
bool		mig_step_parse(const char *name, enum mig_step *out);

/* A table whose foreign key references the key. */
typedef struct mig_child
{
	uint32_t	relid;
	char		qname[MIG_NAME];	/* schema.table, quoted where needed */
	char		con_q[MIG_NAME];	/* the constraint's name, quoted */
	char		con_raw[MIG_NAME];
	char		fk_raw[MIG_NAME];	/* the referencing column */
	char		fk_q[MIG_NAME];
	char		new_q[MIG_NAME];	/* <fk>_new */
	char		old_q[MIG_NAME];	/* <fk>_old */
	char		chk_q[MIG_NAME];	/* its NOT NULL proof */
	char		idx_q[MIG_NAME];	/* index on <fk>_new, when the fk had one */
	/*
	 * The fk's own index, whose name the swap hands to idx_q's (and back):
	 * its schema, name and name with _old; "" when there is none to move
	 * (mig_child_index_names).
	 */
	char		ix_nsp_q[MIG_NAME];
	char		ix_q[MIG_NAME];
	char		ix_old_q[MIG_NAME];
	char		trig_q[MIG_NAME];	/* the sync trigger's name */
	char		fn_q[MIG_NAME];		/* its function, in the state schema */
	char		tag[32];		/* child OID _ fk attnum when the migration began */
	mig_owner	owner;
	char		blockers[512];
	char		actions[160];		/* ON UPDATE/DELETE, MATCH, DEFERRABLE */
	char		grants[1024];	/* column GRANTs for <fk>_new, as <fk> has */
	bool		notnull;
	bool		indexed;
	bool		owned;
	int64_t		rows_est;
	int64_t		done_rows;
	bool		done;
} mig_child;

/*
 * An index of the table's that includes the key (not the primary key's):
 * run builds its twin on <key>_new CONCURRENTLY, and the swap hands the
 * twin its name (the old one becomes <name>_old, on <key>_old); rollback
 * turns the names back (mig_index_load).
 */
#define MIG_MAX_INDEXES 32
typedef struct mig_index
{
	uint32_t	oid;			/* the original index, on the old key */
	char		nsp_q[MIG_NAME];
	char		name_q[MIG_NAME];	/* the name it had before the swap */
	char		old_q[MIG_NAME];	/* <name>_old */
	char		twin[MIG_NAME];		/* chronoid_mig_<table>_<index>_ix: no quoting needed */
	bool		renamed;		/* the swap moves (moved) the names; else they stay */
	char		create[4096];	/* the twin's CREATE INDEX CONCURRENTLY (before the swap) */
} mig_index;

/* The table, its key and what the migration will name things. */
typedef struct mig_table
{
	uint32_t	relid;
	char		qname[MIG_NAME];	/* schema.table, quoted where needed */
	char		nsp_q[MIG_NAME];	/* its schema, quoted */
	char		relname[MIG_NAME];	/* unquoted, for derived names */
	char		key_raw[MIG_NAME];
	char		key_q[MIG_NAME];
	char		keytype[64];		/* format_type of the key */
	char		origtype[64];		/* the old key's type: keytype, or <key>_old's after the swap */
	char		keydefault[512];	/* its default expression, "" when none */
	char		keyseq[MIG_NAME];	/* the sequence it takes values from, "" */
	bool		identity;
	char		pk_q[MIG_NAME];		/* the primary key constraint */
	char		new_raw[MIG_NAME];
	char		new_q[MIG_NAME];	/* <key>_new */
	char		old_raw[MIG_NAME];
	char		old_q[MIG_NAME];	/* <key>_old */
	char		chk_q[MIG_NAME];	/* NOT NULL proof on <key>_new */
	char		idx_new_q[MIG_NAME];	/* unique index, becomes the primary key */
	char		idx_old_q[MIG_NAME];	/* unique index on the old key */
	char		ts_q[MIG_NAME];		/* --time-from, quoted; "" when none */
	bool		ts_is_tz;
	char		ext_q[MIG_NAME];	/* chronoid's schema, quoted; "" when missing */
	char		ext_target[MIG_NAME];	/* ext_q, or where run installs it (mig_ext_trust) */
	bool		ext_installed;
	bool		ext_may_create;
	char		newtype[MIG_NAME];	/* uuid, <ext>.ulid or bigint */
	char		map_q[MIG_NAME];	/* snowflake --time-from: old key -> ID */
	mig_owner	owner;
	char		blockers[512];	/* why its owner's code cannot be run apart (migrate_as_owner.c), "" */
	int64_t		rows_est;		/* reltuples; -1 when never analyzed */
	int64_t		bytes;
	bool		in_pub;			/* published for logical replication */
	char		binders[1024];	/* objects that bind the key column by number */
	char		grants[2048];	/* GRANT/COMMENT for <key>_new, as the key has */
	bool		convert;			/* the sequence road (snowflake) */
	bool		not_owner;		/* the role may not act as its owner: refused first */
	int			nchildren;
	mig_child	children[MIG_MAX_CHILDREN];
	int			nindexes;
	mig_index	indexes[MIG_MAX_INDEXES];
} mig_table;

/*
 * A view that reads the key, the children's foreign keys or relies on the
 * primary key (or a view on such a view): the swap drops it and creates
 * it again from its text once the columns carry their new names
 * (migrate_views.c).
 */
typedef struct mig_view
{
	uint32_t	oid;
	int			depth;			/* 0 on the tables, n on views of depth n - 1 */
	char		qname[MIG_NAME];
	mig_owner	owner;			/* drops it, grants on it */
	bool		by_tool;		/* created by the tool (you own it, or are a superuser), then given to owner */
	bool		matview;		/* a materialized view: created WITH NO DATA, refreshed after */
	bool		populated;		/* it held rows when read */
	char	   *create;			/* CREATE VIEW ... AS <its text>; (a matview's indexes too) */
	char	   *after;			/* its GRANTs and COMMENTs */
	char	   *acl_check;		/* plpgsql: raise when its privileges came back different */
} mig_view;

/*
 * A row security policy whose expressions read the key or a child's
 * foreign key: the swap sets them again from their text once the columns
 * carry their new names (migrate_policies.c).
 */
typedef struct mig_policy
{
	uint32_t	oid;
	char		what[2 * MIG_NAME];	/* "policy p on table t", for messages */
	mig_owner	owner;			/* its table's: ALTER POLICY needs the ownership */
	char	   *alter;			/* a DO block: ALTER POLICY ... USING (<text>) WITH CHECK (<text>) */
} mig_policy;

/* The recorded state of one migration. */
typedef struct mig_state
{
	bool		exists;
	enum mig_step step;
	char		target[16];
	char		key[MIG_NAME];
	char		time_from[MIG_NAME];
	char		cursor[256];		/* the last old key backfilled, as text */
	bool		has_cursor;
	int64_t		rows_done;
	int64_t		node;			/* snowflake: the node backfilled IDs carry */
	char		cutoff[64];		/* when new rows started getting the default */
} mig_state;

typedef struct mig_ctx
{
	const mig_opts *o;
	PGconn	   *conn;
	char		state_q[MIG_NAME];	/* the state schema, quoted */
	mig_table	t;
	mig_state	st;
	mig_view   *views;			/* what the swap carries, shallowest first */
	int			nviews;
	char	   *views_guard;	/* plpgsql: raise unless the views are those read */
	char	   *views_refused;	/* what binds the key and cannot be carried, "" */
	mig_policy *policies;		/* the policies the swap carries */
	int			npolicies;
	char	   *policies_guard;	/* plpgsql: raise unless the policies are those read */
	/* The triggers on the tool's UPDATEs (migrate_triggers.c, mig_trig_check). */
	bool		trig_replica;	/* its UPDATEs run with session_replication_role = replica */
	bool		trig_may_set;	/* the role may set it (superuser; GRANT SET ON PARAMETER, 15+) */
	char	   *trig_fire;		/* what fires on them all the same, one a line; "" none */
	char	   *trig_skipped;	/* what replica keeps from firing, one a line; "" none */
	/* The database's owner, who reads the state for its pg_dump; "" when a superuser or you. */
	char		dbowner_q[MIG_NAME];
	char		err[4096];
} mig_ctx;

/* --- migrate_db.c: statements, locks, retries ------------------------- */

/* Connect, pin, set application_name; false with ctx->err set. */
bool		mig_connect(mig_ctx *c);

/* c->err becomes before + c->err + after (truncated to fit). */
void		mig_err_around(mig_ctx *c, const char *before, const char *after);

/* One statement (parameters as text); false with c->err set. */
bool		mig_do(mig_ctx *c, const char *sql);
PGresult   *mig_query(mig_ctx *c, const char *sql, int nparams, const char *const *params);

/*
 * A DDL transaction that takes a strong lock: BEGIN, SET LOCAL
 * lock_timeout, sql (a script), COMMIT; on a lock timeout or deadlock it
 * rolls back, waits a little and tries again, up to --retries times.
 */
bool		mig_ddl_txn(mig_ctx *c, const char *what, const char *sql);

/* A statement that cannot run in a transaction (CREATE INDEX CONCURRENTLY), retried likewise. */
bool		mig_ddl_alone(mig_ctx *c, const char *what, const char *sql);

/*
 * A script whose segments run as their roles, in one transaction, retried
 * like mig_ddl_txn; strong: its locks wait at most --lock-timeout (else
 * as long as needed: VALIDATE blocks no writer).
 */
bool		mig_ddl_script(mig_ctx *c, const char *what, const mig_script *s, bool strong);

/* The owner a segment runs as (NULL: the tool itself). */
const mig_owner *mig_who(const mig_ctx *c, int who);

/*
 * A read of a table as its owner (one text[] column; args as its $1), in a
 * transaction of its own that is rolled back: plan and rollback's checks.
 */
PGresult   *mig_read_as(mig_ctx *c, int who, const char *sql, int nargs, const char *const *args);

/*
 * The database's OID, which each state row records: a row restored from
 * another database's dump names that database's tables by OID, and is
 * refused (mig_state_load) rather than taken for a table here.
 */
#define MIG_DATABASE_OID "(SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())"

/* The state table: created when missing, trusted only if ours. */
bool		mig_state_setup(mig_ctx *c);
bool		mig_state_trust(mig_ctx *c);
bool		mig_state_load(mig_ctx *c);

/*
 * The database's owner (c->dbowner_q), to whom setup and the map grant
 * reads of the state so that its pg_dump works; false with c->err set.
 */
bool		mig_db_owner(mig_ctx *c);

/*
 * After this table's state rows are deleted (finish, rollback before the
 * swap): the state tables dropped when no migration is left in them, and
 * the schema with them when the tool made it and nothing else is in it.
 */
void		mig_sql_state_drop(const mig_ctx *c, mig_script *s);

/* Record step s as done (and in c->st). */
bool		mig_set_step(mig_ctx *c, enum mig_step s);

/* Hold the per-table advisory lock (one migrate at a time per table). */
bool		mig_lock_table(mig_ctx *c);

/* Ctrl-C and SIGTERM: stop after the current batch. */
void		mig_catch_signals(void);
bool		mig_interrupted(void);

/* --- migrate_inspect.c ------------------------------------------------ */

/*
 * Resolve --table and read everything the steps need.  for_new: a new
 * migration, so every refusal applies (names taken, privileges...).
 * false with c->err naming the object and the fix.
 */
bool		mig_inspect(mig_ctx *c, bool for_new);

/*
 * Whether every owner whose code the move runs apart can have it run so
 * (no deferred code, no FORCE ROW LEVEL SECURITY); false with c->err.
 */
bool		mig_owners_ok(mig_ctx *c);

/*
 * chronoid is called by schema name all through a move (each batch of the
 * backfill names uuidv7() again), so its schemas must stay what they were
 * checked to be: trusted by cid_pq_ext_trusted(), or refused with c->err.
 * When it is missing, sets c->t.ext_target to where run installs it:
 * public when public is trusted the same way, else the state schema.
 */
bool		mig_ext_trust(mig_ctx *c);

/* Read the recorded children (after "added") into c->t.children. */
bool		mig_children_load(mig_ctx *c);

/*
 * The table's indexes that include the key, other than the primary key's
 * and the tool's own, into c->t.indexes.  Before the swap (swapped false)
 * each with its twin's CREATE and whether the swap may rename it (<name>_old
 * free, and the right to rename); with refuse, false and c->err naming
 * each one that cannot be carried (a UNIQUE or EXCLUDE constraint's, or
 * one whose text the tool cannot rewrite).  After the swap (true)
 * the pairs the swap made, found by the twin's name or by <name>_old.
 */
bool		mig_index_load(mig_ctx *c, bool swapped, bool refuse);

/* --- migrate_views.c: views carried through the swap ------------------ */

/*
 * Read the views that follow the column now named as the key (and each
 * child's foreign key), and what binds them and cannot follow; the swap
 * script then carries them (mig_sql_views_drop before the renames,
 * mig_sql_views_create after).  false with c->err set.
 */
bool		mig_views_load(mig_ctx *c);

/* strdup, or exit on out of memory (NULL is ""). */
char	   *mig_dup(const char *s);

/*
 * plpgsql for the swap's transaction: raise ("the <what> that read the key
 * changed") unless print, after cte, returns what it returns now.  NULL
 * with c->err set.
 */
char	   *mig_sql_guard(mig_ctx *c, const char *cte, const char *print, const char *what);
bool		mig_views_ok(mig_ctx *c, const char *what);
void		mig_views_free(mig_ctx *c);
void		mig_sql_views_drop(const mig_ctx *c, mig_script *s);
void		mig_sql_views_create(const mig_ctx *c, mig_script *s);
bool		mig_views_refresh(mig_ctx *c, bool resumed);

/*
 * Whether the move goes to or from a ulid key, whose operators live in
 * chronoid's schema: the views' and policies' text is then read, and set
 * again, with that schema on the path (mig_views_ulid_path true; false
 * sets the tool's own path back).
 */
bool		mig_views_ulid(const mig_ctx *c);
bool		mig_views_ulid_path(mig_ctx *c, bool on);

/* --- migrate_policies.c: row security policies carried through the swap - */

/*
 * Read the policies whose expressions read a column of cols (the
 * "(rel, att), ..." rows of the key and the children's foreign keys), but
 * not those relying on the primary key (pk, its constraint's OID), which
 * migrate_views.c refuses; ulid: read on mig_views_ulid_path.  What
 * cannot be carried is appended to refused.  false with c->err set.
 */
bool		mig_policies_load(mig_ctx *c, const char *cols, const char *pk, bool ulid, mig_buf *refused);
void		mig_policies_free(mig_ctx *c);

/* In the swap, after the locks: raise unless the policies are those read. */
void		mig_sql_policies_guard(const mig_ctx *c, mig_script *s);

/* Once the columns carry their new names: each policy's expressions set again from their text. */
void		mig_sql_policies_set(const mig_ctx *c, mig_script *s, bool ulid);

/* --- migrate_triggers.c: the tool's UPDATEs fire no trigger ------------ */

/*
 * Which triggers of the table and its children would fire on the tool's
 * UPDATEs (the backfills, the catch-up, rollback's fill of the children's
 * old column), and whether session_replication_role = replica keeps them
 * from it: c->trig_*.  With refuse (run, rollback): false, c->err naming
 * each trigger that would fire all the same, unless --fire-triggers.
 */
bool		mig_trig_check(mig_ctx *c, bool refuse);

/*
 * In x, before a statement that writes rows (on, as the tool: SET LOCAL
 * session_replication_role = replica when c->trig_replica), and after it
 * (off: back to the session's value).  false with c->err set.
 */
bool		mig_trig_quiet(mig_ctx *c, mig_txn *x, bool on);

/*
 * In x, after the statement that wrote rows, before COMMIT: false (c->err
 * naming it) when a trigger not accepted at the start would have fired on
 * it (one created or enabled since: it holds the table's lock, so what it
 * sees is what the statement saw).  The caller rolls back.
 */
bool		mig_trig_verify(mig_ctx *c, mig_txn *x);

/*
 * mig_txn_rows of a statement that writes rows, between mig_trig_quiet on
 * and off, checked by mig_trig_verify.  NULL with c->err set.
 */
PGresult   *mig_trig_rows(mig_ctx *c, mig_txn *x, const mig_owner *as, const char *sql,
						  int nargs, const char *const *args);

/* plan: what fires on the tool's UPDATEs, and what does not, and why. */
void		mig_trig_plan(const mig_ctx *c);
void		mig_trig_free(mig_ctx *c);

/* --- migrate_plan.c --------------------------------------------------- */

int			mig_plan(mig_ctx *c);

/* --- migrate_sql.c: the statements of each step, for run and plan ----- */

/*
 * The operator o for comparing two values of type: o itself, or
 * OPERATOR(schema.o) for chronoid's ulid, whose operators live in the
 * extension's schema, beyond the tool's search path.  buf holds the
 * latter.
 */
const char *mig_sql_op(const mig_ctx *c, const char *type, const char *o, char *buf, size_t len);

/* chronoid's generator for new rows: the new column's default. */
void		mig_sql_live(const mig_ctx *c, mig_buf *b);

/*
 * The value of one old row r during the backfill ("m" is the snowflake
 * map joined beside it): its time's ID when --time-from applies, else a
 * freshly minted one.
 */
void		mig_sql_backfill_value(const mig_ctx *c, mig_buf *b);
void		mig_sql_add(const mig_ctx *c, mig_script *s);
void		mig_sql_map(const mig_ctx *c, mig_script *s);

/*
 * A batch of the backfill, as the table's owner: $1[1] the batch size,
 * $1[2] the last old key done (from_cursor); returns {last key, rows
 * read, rows set}.  The tool then records the cursor (mig_sql_batch_state).
 */
void		mig_sql_batch(const mig_ctx *c, mig_buf *b, bool from_cursor);
void		mig_sql_batch_state(const mig_ctx *c, mig_buf *b);

/*
 * A range of the child's pages, as its owner: $1[1] the first page, $1[2]
 * the page after the last; returns {rows set}.  The state's row for it:
 * mig_sql_child_state ($1 the next page, $2 rows set, $3 the constraint, $4
 * the rate in rows/s, kept on the table's row for status).
 */
void		mig_sql_child_batch(const mig_ctx *c, const mig_child *ch, mig_buf *b);
void		mig_sql_child_state(const mig_ctx *c, const mig_child *ch, mig_buf *b);
void		mig_sql_swap(const mig_ctx *c, mig_script *s);

/*
 * Each child's ix_* (above): before the swap (swapped false) its one plain
 * btree index on fk alone, when <name>_old is free; after it (true) the
 * index on fk that took that name, when <name>_old is there too.  false
 * with c->err set.
 */
bool		mig_child_index_names(mig_ctx *c, bool swapped);

/*
 * The swap turned round, keeping the new columns and their values: back
 * to run's shape before the swap (step rolling_back until the CHECKs are
 * validated and the old key's spare index is built again: then indexed).
 * Needs the new key's unique index <key>_new's name built first.
 */
void		mig_sql_unswap(const mig_ctx *c, mig_script *s);

/* The CHECK that proves NOT NULL of the new column: who MIG_AS_TABLE or child i. */
void		mig_sql_check_expr(const mig_ctx *c, int who, mig_buf *e);

/* Plan: each segment under the role it runs as, indented. */
void		mig_script_print(const mig_ctx *c, const mig_script *s);

/* --- migrate_run.c / migrate_backfill.c / migrate_swap.c -------------- */

int			mig_run(mig_ctx *c);

/*
 * run's steps checked and indexed, each safe to repeat: the CHECKs that
 * prove NOT NULL added (if missing) and validated; the unique indexes on
 * the new and the old key and the children's, built CONCURRENTLY where
 * missing or invalid.  Rollback after the swap uses them too.
 */
bool		mig_step_check(mig_ctx *c);
bool		mig_step_index(mig_ctx *c);
bool		mig_build_index(mig_ctx *c, uint32_t relid, const char *name, const char *create);

/* run's last statement: VACUUM (ANALYZE, TRUNCATE false) of the table and its children. */
void		mig_sql_vacuum(const mig_ctx *c, mig_buf *b);
bool		mig_backfill(mig_ctx *c);
bool		mig_backfill_children(mig_ctx *c);
bool		mig_catch_up(mig_ctx *c);
int			mig_swap(mig_ctx *c);
int			mig_rollback(mig_ctx *c);
int			mig_finish(mig_ctx *c);
int			mig_status(mig_ctx *c);

/* migrate_action.c: the entry point for every action on one table. */
int			mig_table_action(const mig_opts *o);

/* --- migrate_sizing.c: WAL, disk and rate estimates -------------------- */

/* The table (rel[0]) and each child's heap (with TOAST), index bytes and index count. */
typedef struct mig_size
{
	struct
	{
		int64_t		heap;
		int64_t		index;
		int			nindexes;
	}			rel[MIG_MAX_CHILDREN + 1];
	int			n;
	int64_t		heap;			/* sums */
	int64_t		index;
} mig_size;

/* Read from the catalogs (no table is scanned); false with c->err set. */
bool		mig_size_read(mig_ctx *c, mig_size *z);

/* plan's guess of the backfill's rows/s on a table with nindexes indexes (run measures its own). */
double		mig_size_rate(int nindexes);

/* The WAL run writes, in bytes (high: checkpoints close together); the disk the tables keep. */
double		mig_size_wal(const mig_size *z, bool high);
double		mig_size_growth(const mig_size *z);

/* plan's lines on WAL and disk. */
void		mig_size_plan(const mig_ctx *c, const mig_size *z);

/*
 * The seconds the children not done yet (but child rel - 1, when rel > 0)
 * take at rate, measured on rel (0 the table, 1 + i child i), each scaled
 * by its indexes against rel's; their rows in *rows.  -1 when unknown.
 */
double		mig_size_children_secs(const mig_ctx *c, const mig_size *z, int rel, double rate, int64_t *rows);

/*
 * Once a run, after a sample of the backfill of rel (0 the table, 1 + i
 * child i) went at rate rows/s with rows_left still to set: the time that
 * makes for the rest, the children's included, on stderr.
 */
void		mig_size_forecast(mig_ctx *c, int rel, double rate, int64_t rows_left);

/* A sample long enough to forecast from. */
#define MIG_SAMPLE_MS 10000

/* --- migrate_pace.c --------------------------------------------------- */

typedef struct mig_pace
{
	int64_t		batch;			/* rows in the next batch */
	int64_t		fixed_batch;	/* --batch, 0 adaptive */
	int64_t		pause_ms;		/* --pause, -1 adaptive */
	int64_t		target_ms;		/* a batch should take about this long */
	int64_t		cap_ms;			/* and is cancelled at this (statement_timeout) */
} mig_pace;

void		mig_pace_init(mig_pace *p, int64_t fixed_batch, int64_t pause_ms);

/*
 * A batch ran into cap_ms and was rolled back: halve the batch (--batch
 * too).  false when it is one row already.
 */
bool		mig_pace_shrink(mig_pace *p);

/* After a batch of took_ms: the next batch's size, and the sleep before it. */
int64_t		mig_pace_after(mig_pace *p, int64_t rows, int64_t took_ms);

void		mig_sleep_ms(int64_t ms);

/*
 * A step that changes the row type of the table or a child (run's first
 * step, swap, rollback, the serial road's widening) is framed by the
 * user's commands (migrate_hook.c), run through /bin/sh with
 * CHRONOID_MIGRATE_HOOK (before, after), _STEP, _TABLES and _CHANGE (and
 * _RESULT, done or failed, after) in the environment.  step: add, swap,
 * rollback (after the swap), drop (rollback before it) or widen; the
 * change is described from c->t.  mig_hook_before: false (c->err set)
 * when the command failed: the step must not be done.  mig_hook_after
 * runs whether or not the step was done (a command before it may have
 * paused the applications); false when the command failed, c->err then
 * says so when the step was done and keeps the step's error otherwise.
 * Without the option, both do nothing and return true.
 */
bool		mig_hook_before(mig_ctx *c, const char *step);
bool		mig_hook_after(mig_ctx *c, const char *step, bool done);

/*
 * Before each try of a strong lock (migrate_lockwait.c): the sessions
 * holding a lock on the relations the script acts on whose transactions
 * are older than --lock-timeout (or, where the role may not see their
 * start, that were seen holding it that long), which a try would only
 * queue behind, stalling every writer that queues behind the try.  While
 * there are any, it waits without requesting the lock, for as long as a
 * try and the pause after it would take.  1: try now; 0: still held
 * (said on stderr, naming each holder; held gets "; held by ..." and
 * c->err a reason, counted as try number tryno); -1 on an error or when
 * interrupted (c->err set).  w remembers, across the tries of one step,
 * the transactions it saw: zero it before the first.
 */
#define MIG_LOCKWAIT_SEEN 32
typedef struct mig_lockwait
{
	int			pid[MIG_LOCKWAIT_SEEN];
	char		vxid[MIG_LOCKWAIT_SEEN][32];
	int64_t		since[MIG_LOCKWAIT_SEEN];
} mig_lockwait;

int			mig_lock_wait(mig_ctx *c, mig_lockwait *w, const mig_script *s, const char *what, int tryno,
						  char *held, size_t len);

/*
 * The serial road's widening of an integer key (migrate_widen.c).
 * mig_widens: whether run would widen.  mig_widen_secs: the estimated
 * time under the lock from the table's and children's rows (their
 * statistics, or for one never analyzed the most rows its size can hold),
 * rows set to their sum; -1 (c->err set) on an error.  mig_widen_ok:
 * false (c->err set) when the estimate is over --max-rewrite-lock; true
 * when nothing is widened.  mig_widen_plan: the plan's lines on it.
 */
bool		mig_widens(const mig_ctx *c);
double		mig_widen_secs(mig_ctx *c, int64_t *rows);
bool		mig_widen_ok(mig_ctx *c);
void		mig_widen_plan(mig_ctx *c);

/*
 * mig_ddl_script(c, what, s, true) between the two commands (the after
 * one runs even when it failed); with a before command, the long
 * transactions the tries would wait for are waited for before it runs.
 */
bool		mig_ddl_framed(mig_ctx *c, const char *step, const char *what, const mig_script *s);

/* Progress: a bar on a terminal, else a plain line every few seconds. */
typedef struct mig_progress
{
	const char *what;
	int64_t		total;
	int64_t		done;
	int64_t		start_ms;
	int64_t		start_done;
	int64_t		last_ms;
	bool		bar;
	bool		drawn;
} mig_progress;

void		mig_progress_start(mig_progress *p, const char *what, int64_t total, int64_t done, bool bar);
void		mig_progress_update(mig_progress *p, int64_t done, const char *note);
void		mig_progress_end(mig_progress *p);

/* Formats a count with thousands separators. */
void		mig_fmt_count(char *buf, size_t len, int64_t n);
void		mig_fmt_secs(char *buf, size_t len, double secs);

/* The wall clock now, UTC, as 2026-01-02T03:04:05Z: progress lines start with it. */
void		mig_fmt_now(char *buf, size_t len);

/* --- migrate_subscriber.c: logical subscribers (docs/migrate.md "Subscribers") --- */

/* The steps whose DDL a subscriber mirrors. */
enum mig_sub_step
{
	MIG_SUB_RUN,
	MIG_SUB_SWAP,
	MIG_SUB_ROLLBACK,
	MIG_SUB_FINISH
};

/* "run", "swap", "rollback" or "finish"; false for anything else. */
bool		mig_sub_step_parse(const char *s, enum mig_sub_step *out);

/*
 * Before a step that renames the columns (swap, rollback after it,
 * finish): when the table or a child is published, wait up to --max-lag
 * (default 10 s) for every pgoutput slot of the database to be in use and
 * to confirm the WAL position of now; false with c->err naming each slot
 * that did not (step names the step in the message).
 */
bool		mig_slots_ok(mig_ctx *c, const char *step);

/*
 * Before the publisher's step, on each --subscriber: connect, check that
 * a subscription of its has its slot here and that its tables are as
 * before the step (or already after it), then what can go first: the
 * unique indexes the key moves need (CONCURRENTLY), and at run and
 * finish the whole mirror (columns added; NOT NULL dropped).  Nothing to
 * do without --subscriber.  false with c->err set.
 */
bool		mig_sub_prepare(mig_ctx *c, enum mig_sub_step step);

/*
 * After the publisher's step committed, on each --subscriber whose tables
 * are not yet as after it: wait until it has applied every change before
 * the step, apply the mirror in one transaction, and wait until its slots
 * confirm again.  Safe to repeat.  false with c->err saying what is
 * committed where and how to go on.
 */
bool		mig_sub_mirror(mig_ctx *c, enum mig_sub_step step);

/* "chronoid migrate subscriber-ddl STEP": the mirror DDL, printed. */
int			mig_sub_print(mig_ctx *c, enum mig_sub_step step);

#endif							/* CHRONOID_MIGRATE_STEPS_INTERNAL_H */
