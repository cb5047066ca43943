/*
 * migrate_usage.c — the --help text of "chronoid migrate".
 */
#include "migrate_internal.h"

void
mig_usage(FILE *fp)
{
	fputs("usage: chronoid migrate ACTION --table TABLE --to uuidv7|ulid|snowflake [OPTIONS]\n"
		  "       chronoid migrate from-extension snowflake|pg_uuidv7|pgx_ulid [--plan] [-d CONNINFO]\n"
		  "\n"
		  "Move a live table's primary key to time-ordered IDs (docs/migrate.md).\n"
		  "\n"
		  "actions:\n"
		  "  plan       print the steps as SQL, with their locks and estimates; change nothing\n"
		  "  run        do every step up to the swap: new column with a default for new rows,\n"
		  "             its unique index (CONCURRENTLY), backfill in batches, foreign keys'\n"
		  "             columns; resumable, and a second run of a finished step does nothing\n"
		  "  status     where a migration stands\n"
		  "  swap       make the new column the primary key (one short transaction); the old\n"
		  "             key stays as COLUMN_old, indexed\n"
		  "  rollback   undo: after the swap restore the old key, keeping the new one ready to\n"
		  "             swap again; before it drop what run added\n"
		  "  finish     after the swap: drop the triggers that keep the old columns filled (and\n"
		  "             with them the way back); the old columns stay for you to drop\n"
		  "\n"
		  "options:\n"
		  "  --table [SCHEMA.]NAME   the table (its primary key must be one column)\n"
		  "  --column NAME           the key column (default: id)\n"
		  "  --to KIND               uuidv7, ulid or snowflake\n"
		  "  --time-from COLUMN      give old rows IDs built from this timestamp column, so\n"
		  "                          history sorts by it (default: IDs minted at backfill time)\n"
		  "  --batch N               rows per backfill batch (default: adapted to ~200 ms)\n"
		  "  --pause DURATION        sleep between batches (default: as long as the batch took)\n"
		  "  --max-lag DURATION      pause the backfill while replication lags more than this\n"
		  "  --lock-timeout DURATION how long a step that blocks writers may wait for its lock\n"
		  "                          (default 500ms; keep it below deadlock_timeout)\n"
		  "  --retries N             tries of a step whose lock wait timed out (default 30)\n"
		  "  --state-schema NAME     where the state table lives (default: chronoid)\n"
		  "  --progress / --no-progress   a progress bar (default: on a terminal)\n"
		  "  --json                  status as JSON\n"
		  "  -d, --conninfo STR      libpq connection string (default: PG* variables)\n"
		  "  -h, --help              this text\n"
		  "\n"
		  "exit status: 0 done, 1 failed or refused (the message names the object and the\n"
		  "fix), 2 bad usage\n", fp);
}
