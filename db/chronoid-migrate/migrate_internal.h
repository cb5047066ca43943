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
} mig_opts;

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
