/*
 * cmd_migrate.c — "chronoid migrate": the command line (options, checks
 * of their values) and the dispatch to the actions.
 */
#define _GNU_SOURCE

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_internal.h"
#include "migrate_internal.h"
#include "migrate_steps_internal.h"

enum
{
	OPT_TABLE = 1,
	OPT_COLUMN,
	OPT_TO,
	OPT_TIME_FROM,
	OPT_BATCH,
	OPT_PAUSE,
	OPT_MAX_LAG,
	OPT_LOCK_TIMEOUT,
	OPT_RETRIES,
	OPT_SCHEMA,
	OPT_CONNINFO,
	OPT_PLAN,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_JSON,
	OPT_FIRE_TRIGGERS,
	OPT_SUBSCRIBER,
	OPT_BEFORE_CHANGE,
	OPT_AFTER_CHANGE,
	OPT_MAX_REWRITE,
	OPT_HELP
};

static const cli_option mig_options[] = {
	{"table", 't', true, OPT_TABLE},
	{"column", 'c', true, OPT_COLUMN},
	{"to", 0, true, OPT_TO},
	{"time-from", 0, true, OPT_TIME_FROM},
	{"batch", 0, true, OPT_BATCH},
	{"pause", 0, true, OPT_PAUSE},
	{"max-lag", 0, true, OPT_MAX_LAG},
	{"lock-timeout", 0, true, OPT_LOCK_TIMEOUT},
	{"retries", 0, true, OPT_RETRIES},
	{"state-schema", 0, true, OPT_SCHEMA},
	{"conninfo", 'd', true, OPT_CONNINFO},
	{"plan", 0, false, OPT_PLAN},
	{"progress", 0, false, OPT_PROGRESS},
	{"no-progress", 0, false, OPT_NO_PROGRESS},
	{"json", 0, false, OPT_JSON},
	{"fire-triggers", 0, false, OPT_FIRE_TRIGGERS},
	{"subscriber", 0, true, OPT_SUBSCRIBER},
	{"before-row-type-change", 0, true, OPT_BEFORE_CHANGE},
	{"after-row-type-change", 0, true, OPT_AFTER_CHANGE},
	{"max-rewrite-lock", 0, true, OPT_MAX_REWRITE},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

void
mig_opts_default(mig_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->column = "id";
	o->max_lag_ms = -1;
	o->lock_timeout_ms = 500;
	o->retries = 30;
	o->pause_ms = -1;
	o->schema = "chronoid";
	o->progress = -1;
	o->max_rewrite_ms = 1000;
}

static bool
duration_opt(const char *sub, const char *what, const char *v, int64_t *ms)
{
	if (!cli_parse_duration(v, ms))
	{
		cli_error_value(sub, what, v, strlen(v),
						": expected a duration such as 500ms, 30s, 2m (at most 24h)");
		return false;
	}
	return true;
}

static bool
name_ok(const char *s)
{
	size_t		n = strlen(s);

	/* Identifiers go to the server as parameters; only their length is ours to bound. */
	return n > 0 && n <= 63;
}

/* Parse argv[2..]; CLI_EXIT_OK to go on, -1 after --help. */
static int
parse(mig_opts *o, int argc, char **argv)
{
	cli_args	a;
	const char *v;
	int			id;
	uint64_t	n;

	cli_args_init(&a, argc, argv, 2, o->sub);
	while ((id = cli_next_arg(&a, mig_options, &v)) != CLI_ARG_END)
	{
		switch (id)
		{
			case CLI_ARG_ERROR:
				return MIG_EXIT_USAGE;
			case CLI_ARG_OPERAND:
				if (strcmp(o->action, "from-extension") == 0 && o->extension == NULL)
				{
					o->extension = v;
					break;
				}
				if (strcmp(o->action, "subscriber-ddl") == 0 && o->sub_step == NULL)
				{
					o->sub_step = v;
					break;
				}
				cli_error_value(o->sub, "unexpected argument ", v, strlen(v), "%s", "");
				return MIG_EXIT_USAGE;
			case OPT_TABLE:
				o->table = v;
				break;
			case OPT_COLUMN:
				if (!name_ok(v))
				{
					cli_error_value(o->sub, "invalid --column ", v, strlen(v),
									": expected a column name of 1 to 63 bytes");
					return MIG_EXIT_USAGE;
				}
				o->column = v;
				break;
			case OPT_TO:
				if (strcmp(v, "uuidv7") != 0 && strcmp(v, "ulid") != 0 && strcmp(v, "snowflake") != 0)
				{
					cli_error_value(o->sub, "invalid --to ", v, strlen(v),
									": expected uuidv7, ulid or snowflake");
					return MIG_EXIT_USAGE;
				}
				o->to = v;
				break;
			case OPT_TIME_FROM:
				if (!name_ok(v))
				{
					cli_error_value(o->sub, "invalid --time-from ", v, strlen(v),
									": expected a column name of 1 to 63 bytes");
					return MIG_EXIT_USAGE;
				}
				o->time_from = v;
				break;
			case OPT_BATCH:
				if (!cli_parse_uint(v, 1000000, &n) || n < 1)
				{
					cli_error_value(o->sub, "invalid --batch ", v, strlen(v),
									": expected a number of rows from 1 to 1000000");
					return MIG_EXIT_USAGE;
				}
				o->batch = (int64_t) n;
				break;
			case OPT_PAUSE:
				if (!duration_opt(o->sub, "invalid --pause ", v, &o->pause_ms))
					return MIG_EXIT_USAGE;
				break;
			case OPT_MAX_LAG:
				if (!duration_opt(o->sub, "invalid --max-lag ", v, &o->max_lag_ms))
					return MIG_EXIT_USAGE;
				break;
			case OPT_LOCK_TIMEOUT:
				if (!duration_opt(o->sub, "invalid --lock-timeout ", v, &o->lock_timeout_ms))
					return MIG_EXIT_USAGE;
				if (o->lock_timeout_ms < 1)
				{
					cli_error(o->sub, "--lock-timeout must be at least 1ms (0 would wait forever)");
					return MIG_EXIT_USAGE;
				}
				break;
			case OPT_RETRIES:
				if (!cli_parse_uint(v, 100000, &n) || n < 1)
				{
					cli_error_value(o->sub, "invalid --retries ", v, strlen(v),
									": expected a number from 1 to 100000");
					return MIG_EXIT_USAGE;
				}
				o->retries = (int) n;
				break;
			case OPT_SCHEMA:
				if (!name_ok(v))
				{
					cli_error_value(o->sub, "invalid --state-schema ", v, strlen(v),
									": expected a schema name of 1 to 63 bytes");
					return MIG_EXIT_USAGE;
				}
				o->schema = v;
				break;
			case OPT_CONNINFO:
				o->conninfo = v;
				break;
			case OPT_PLAN:
				o->plan_only = true;
				break;
			case OPT_PROGRESS:
				o->progress = 1;
				break;
			case OPT_NO_PROGRESS:
				o->progress = 0;
				break;
			case OPT_JSON:
				o->json = true;
				break;
			case OPT_FIRE_TRIGGERS:
				o->fire_triggers = true;
				break;
			case OPT_SUBSCRIBER:
				if (o->nsubscribers == MIG_MAX_SUBSCRIBERS)
				{
					cli_error(o->sub, "at most %d --subscriber options", MIG_MAX_SUBSCRIBERS);
					return MIG_EXIT_USAGE;
				}
				o->subscribers[o->nsubscribers++] = v;
				break;
			case OPT_BEFORE_CHANGE:
			case OPT_AFTER_CHANGE:
				if (v[0] == '\0')
				{
					cli_error(o->sub, "--%s needs a command (an empty one would do nothing)",
							  id == OPT_BEFORE_CHANGE ? "before-row-type-change" : "after-row-type-change");
					return MIG_EXIT_USAGE;
				}
				if (id == OPT_BEFORE_CHANGE)
					o->before_change = v;
				else
					o->after_change = v;
				break;
			case OPT_MAX_REWRITE:
				if (!duration_opt(o->sub, "invalid --max-rewrite-lock ", v, &o->max_rewrite_ms))
					return MIG_EXIT_USAGE;
				o->max_rewrite_given = true;
				break;
			case OPT_HELP:
				mig_usage(stdout);
				return -1;
			default:
				break;
		}
	}
	return MIG_EXIT_OK;
}

/* What each action needs, checked before anything connects. */
static int
check_needs(const mig_opts *o)
{
	bool		ext = strcmp(o->action, "from-extension") == 0;

	if (o->fire_triggers && strcmp(o->action, "plan") != 0 && strcmp(o->action, "run") != 0 &&
		strcmp(o->action, "rollback") != 0)
	{
		cli_error(o->sub, "--fire-triggers belongs to plan, run and rollback (the steps that write rows)");
		return MIG_EXIT_USAGE;
	}
	if (o->nsubscribers > 0 && strcmp(o->action, "run") != 0 && strcmp(o->action, "swap") != 0 &&
		strcmp(o->action, "rollback") != 0 && strcmp(o->action, "finish") != 0)
	{
		cli_error(o->sub, "--subscriber belongs to run, swap, rollback and finish (the steps whose DDL "
				  "subscribers mirror)");
		return MIG_EXIT_USAGE;
	}
	if (strcmp(o->action, "subscriber-ddl") == 0)
	{
		enum mig_sub_step st;

		if (o->sub_step == NULL)
		{
			cli_error(o->sub, "needs the step to print: run, swap, rollback or finish");
			return MIG_EXIT_USAGE;
		}
		if (!mig_sub_step_parse(o->sub_step, &st))
		{
			cli_error_value(o->sub, "no subscriber DDL for step ", o->sub_step, strlen(o->sub_step),
							": expected run, swap, rollback or finish");
			return MIG_EXIT_USAGE;
		}
	}
	if (o->max_rewrite_given && strcmp(o->action, "plan") != 0 && strcmp(o->action, "run") != 0)
	{
		cli_error(o->sub, "--max-rewrite-lock belongs to plan and run (the serial road's widening)");
		return MIG_EXIT_USAGE;
	}
	if ((o->before_change != NULL || o->after_change != NULL) && strcmp(o->action, "run") != 0 &&
		strcmp(o->action, "swap") != 0 && strcmp(o->action, "rollback") != 0)
	{
		cli_error(o->sub, "--before-row-type-change and --after-row-type-change belong to run, swap and "
				  "rollback (the steps that change the tables' row types)");
		return MIG_EXIT_USAGE;
	}
	if (ext)
	{
		if (o->extension == NULL)
		{
			cli_error(o->sub, "needs the extension to switch from: snowflake, pg_uuidv7 or pgx_ulid");
			return MIG_EXIT_USAGE;
		}
		if (strcmp(o->extension, "snowflake") != 0 && strcmp(o->extension, "pg_uuidv7") != 0 &&
			strcmp(o->extension, "pgx_ulid") != 0)
		{
			cli_error_value(o->sub, "cannot switch from ", o->extension, strlen(o->extension),
							": expected snowflake (pgEdge), pg_uuidv7 or pgx_ulid");
			return MIG_EXIT_USAGE;
		}
		if (o->table != NULL || o->to != NULL || o->time_from != NULL)
		{
			cli_error(o->sub, "takes no --table, --to or --time-from: it switches every use of the extension");
			return MIG_EXIT_USAGE;
		}
		return MIG_EXIT_OK;
	}
	if (o->plan_only)
	{
		cli_error(o->sub, "--plan belongs to from-extension; use 'chronoid migrate plan' here");
		return MIG_EXIT_USAGE;
	}
	if (o->table == NULL)
	{
		cli_error(o->sub, "needs --table [SCHEMA.]NAME");
		return MIG_EXIT_USAGE;
	}
	/* run may go on from the state without it; mig_table_action checks. */
	if (o->to == NULL && strcmp(o->action, "plan") == 0)
	{
		cli_error(o->sub, "needs --to uuidv7, ulid or snowflake");
		return MIG_EXIT_USAGE;
	}
	if (o->json && strcmp(o->action, "status") != 0)
	{
		cli_error(o->sub, "--json belongs to status");
		return MIG_EXIT_USAGE;
	}
	return MIG_EXIT_OK;
}

int
mig_cmd_main(int argc, char **argv)
{
	static const char *const actions[] = {"plan", "run", "status", "swap", "rollback", "finish",
	"from-extension", "subscriber-ddl", NULL};
	static char sub[64];
	mig_opts	o;
	const char *const *a;
	int			rc;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
	{
		mig_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? MIG_EXIT_USAGE : MIG_EXIT_OK;
	}
	for (a = actions; *a != NULL && strcmp(*a, argv[1]) != 0; a++)
		;
	if (*a == NULL)
	{
		cli_error_value("migrate", "unknown action ", argv[1], strlen(argv[1]),
						": expected plan, run, status, swap, rollback, finish, subscriber-ddl or from-extension");
		return MIG_EXIT_USAGE;
	}
	mig_opts_default(&o);
	o.action = *a;
	snprintf(sub, sizeof(sub), "migrate %s", *a);
	o.sub = sub;
	rc = parse(&o, argc, argv);
	if (rc < 0)
		return MIG_EXIT_OK;
	if (rc != MIG_EXIT_OK || (rc = check_needs(&o)) != MIG_EXIT_OK)
		return rc;
	if (o.progress < 0)
		o.progress = isatty(STDERR_FILENO) ? 1 : 0;

	if (strcmp(o.action, "from-extension") == 0)
		return mig_from_extension(&o);
	return mig_table_action(&o);
}
