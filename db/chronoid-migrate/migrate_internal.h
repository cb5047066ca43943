/*
 * migrate_internal.h — what the files of chronoid-migrate (the "chronoid
 * migrate" command) share.  Not installed.
 *
 * Two jobs: moving one live table's key to a time-ordered one
 * (plan/run/status/swap/rollback, docs/migrate.md "Moving a table"), and
 * switching a database from another ID extension in place
 * (from-extension, docs/migrate.md "Switching from another extension").
 * Every connection goes through db/pq (search path pinned to pg_catalog);
 * every name the tool writes into SQL is quoted (quote_ident) or passed as
 * a parameter, never pasted from the user.
 */
#ifndef CHRONOID_MIGRATE_INTERNAL_H
#define CHRONOID_MIGRATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <libpq-fe.h>

/* Exit statuses (as the rest of the CLI): done, failed or refused, usage. */
#define MIG_EXIT_OK 0
#define MIG_EXIT_FAIL 1
#define MIG_EXIT_USAGE 2

/* What the command line asked for. */
typedef struct mig_opts
{
	const char *sub;			/* "migrate plan" etc., for messages */
	const char *action;			/* plan, run, status, swap, rollback, from-extension */
	const char *table;			/* --table: [schema.]name as the user wrote it */
	const char *column;			/* --column (default "id") */
	const char *to;				/* --to: uuidv7, ulid or snowflake */
	const char *time_from;		/* --time-from: a timestamp(tz) column, or NULL */
	int64_t		batch;			/* --batch: rows per batch; 0 = adaptive */
	int64_t		max_lag_ms;		/* --max-lag; -1 = no limit */
	int64_t		lock_timeout_ms;	/* --lock-timeout (default 2 s) */
	int			retries;		/* --retries of a lock wait that timed out (default 30) */
	int64_t		pause_ms;		/* --pause between batches; -1 = adaptive */
	const char *conninfo;		/* --conninfo / -d */
	const char *schema;			/* --state-schema (default "chronoid") */
	const char *extension;		/* from-extension: snowflake, pg_uuidv7, pgx_ulid */
	bool		plan_only;		/* from-extension --plan: print, change nothing */
	int			progress;		/* -1 auto (a terminal), 0 plain lines, 1 bar */
	bool		json;			/* status --json */
	bool		fire_triggers;	/* --fire-triggers: let the table's triggers fire on the tool's UPDATEs */
	/* --subscriber CONNINFO (repeatable): logical subscribers that get the mirror DDL */
#define MIG_MAX_SUBSCRIBERS 16
	const char *subscribers[MIG_MAX_SUBSCRIBERS];
	int			nsubscribers;
	const char *sub_step;		/* subscriber-ddl: run, swap, rollback or finish */
	const char *before_change;	/* --before-row-type-change: a shell command, or NULL */
	const char *after_change;	/* --after-row-type-change: a shell command, or NULL */
	int64_t		max_rewrite_ms;	/* --max-rewrite-lock: the serial road's widening, at most (default 1 s) */
	bool		max_rewrite_given;
} mig_opts;

/*
 * The role whose code a statement may run: the owner of the table it
 * touches (docs/migrate.md "Trust").  wrap: the owner is neither the role
 * the tool logged in as nor a superuser, so the statement runs inside a
 * function owned by the owner (its rights, no SET ROLE back), never with
 * the tool's own rights.
 */
typedef struct mig_owner
{
	uint32_t	oid;
	char		name_q[200];	/* quoted */
	char		table[200];		/* the table it owns, for messages */
	bool		wrap;
} mig_owner;

/*
 * One transaction in which table owners' code may run
 * (migrate_as_owner.c).  Each statement sent as an owner runs in a
 * SECURITY DEFINER function owned by that owner, created for that one call
 * in the session's temporary schema and dropped right after it; then the
 * session is checked for what such code could leave behind to run later
 * with the tool's rights (a changed setting such as search_path, a cursor
 * WITH HOLD, a deferred trigger or constraint of someone else's code).
 * Anything found rolls the whole transaction back.
 */
typedef struct mig_txn
{
	PGconn	   *conn;
	char	   *settings;		/* the session's settings when it began */
	unsigned	calls;
	bool		own_begin;		/* began here (else the caller's transaction) */
	char		sqlstate[6];	/* of the last failure, "" when none */
	char	   *err;
	size_t		errlen;
} mig_txn;

/*
 * BEGIN (unless in_txn: the caller's open transaction), then SET LOCAL
 * lock_timeout (lock_timeout_ms < 0: left as it is) and a snapshot of
 * the settings.  false with err set (and the transaction rolled back).
 */
bool		mig_txn_begin(mig_txn *x, PGconn *conn, bool in_txn, int64_t lock_timeout_ms,
						  char *err, size_t errlen);

/*
 * mig_txn_begin, and SET LOCAL statement_timeout = statement_ms (< 0:
 * left as it is): a batch that runs longer is cancelled (SQLSTATE 57014
 * in x->sqlstate), rolled back, and so lets go of its row locks.
 */
bool		mig_txn_begin_capped(mig_txn *x, PGconn *conn, bool in_txn, int64_t lock_timeout_ms,
								 int64_t statement_ms, char *err, size_t errlen);

/* A script as as (NULL: the tool itself); false with err set. */
bool		mig_txn_do(mig_txn *x, const mig_owner *as, const char *sql);

/*
 * A statement returning one text[] column, as as, with args[] as its $1
 * (text[]: $1[1], $1[2], ...): the result has the array's first eight
 * elements as columns (NULL past its end).  NULL with err set.
 */
PGresult   *mig_txn_rows(mig_txn *x, const mig_owner *as, const char *sql,
						 int nargs, const char *const *args);

/*
 * A SET LOCAL of the tool's own (sql), sent as the tool, between two
 * calls: the snapshot of the settings is taken again, so that the next
 * owner's call is compared with the value set here.  false with err set.
 */
bool		mig_txn_set(mig_txn *x, const char *sql);

/* COMMIT; false with err set (then rolled back). */
bool		mig_txn_commit(mig_txn *x);

/* ROLLBACK (after a failure, or a plan's reads); frees the snapshot. */
void		mig_txn_rollback(mig_txn *x);

/*
 * Refuse a session whose current role is not the one it logged in as
 * (ALTER ROLE/DATABASE ... SET role, options=-crole=): code that runs as
 * the current role could RESET ROLE to the login role.  false with err set.
 */
bool		mig_check_session(PGconn *conn, char *err, size_t errlen);

/* Defaults filled in before parsing. */
void		mig_opts_default(mig_opts *o);

/* The command (cmd_migrate.c): argv[0] is "migrate". */
int			mig_cmd_main(int argc, char **argv);

/* Its --help text (migrate_usage.c). */
void		mig_usage(FILE *fp);

/*
 * "chronoid migrate from-extension NAME" (migrate_from_ext.c): the switch
 * from pgEdge snowflake, pg_uuidv7 or pgx_ulid in one transaction, or with
 * o->plan_only its plan.  Messages on stderr as "chronoid: migrate
 * from-extension: ..."; returns a MIG_EXIT_* status.
 */
int			mig_from_extension(const mig_opts *o);

#endif							/* CHRONOID_MIGRATE_INTERNAL_H */
