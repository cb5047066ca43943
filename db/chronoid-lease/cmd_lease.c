/*
 * cmd_lease.c — "chronoid lease": Snowflake node numbers leased from a
 * PostgreSQL table (libchronoid_lease) for shell use: init, acquire,
 * renew, release, list, and run (a command under a renewed lease).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chronoid_lease.h"
#include "clock_internal.h"
#include "cli_internal.h"
#include "cmd_lease_internal.h"

enum
{
	OPT_CONNINFO = 1,
	OPT_SCHEMA,
	OPT_TTL,
	OPT_GRACE,
	OPT_RANGE,
	OPT_LAYOUT,
	OPT_OWNER,
	OPT_NODE,
	OPT_JSON,
	OPT_KILL_AFTER,
	OPT_HELP
};

static const cli_option lease_options[] = {
	{"conninfo", 'd', true, OPT_CONNINFO},
	{"schema", 0, true, OPT_SCHEMA},
	{"ttl", 0, true, OPT_TTL},
	{"grace", 0, true, OPT_GRACE},
	{"range", 0, true, OPT_RANGE},
	{"layout", 0, true, OPT_LAYOUT},
	{"owner", 0, true, OPT_OWNER},
	{"node", 0, true, OPT_NODE},
	{"json", 0, false, OPT_JSON},
	{"kill-after", 0, true, OPT_KILL_AFTER},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

typedef struct lease_cmd
{
	const char *sub;			/* "lease init" etc., for messages */
	cid_lease_opts opts;
	cid_layout	layout;
	bool		json;
	bool		have_node;
	uint64_t	node;
	int64_t		kill_after_ms;	/* -1: default */
	const char *token;
	char	  **command;		/* run: COMMAND ARGS..., NULL-terminated */
	bool		header_done;	/* list: the table's header is out */
} lease_cmd;

static bool
parse_duration_opt(const char *sub, const char *what, const char *v, int64_t *ms)
{
	if (!cli_parse_duration(v, ms))
	{
		cli_error_value(sub, what, v, strlen(v),
						": expected a duration such as 30s, 500ms, 2m (at most 24h)");
		return false;
	}
	return true;
}

/* Parse the options after "lease SUB"; CLI_EXIT_OK to go on. */
static int
parse(lease_cmd *c, int argc, char **argv, bool want_token, bool want_command)
{
	cli_args	a;
	const char *v;
	const char *layout_text = NULL;
	int			id;

	cid_lease_opts_default(&c->opts);
	c->kill_after_ms = -1;
	cli_args_init(&a, argc, argv, 2, c->sub);
	while ((id = cli_next_arg(&a, lease_options, &v)) != CLI_ARG_END)
	{
		switch (id)
		{
			case CLI_ARG_ERROR:
				return CLI_EXIT_USAGE;
			case CLI_ARG_OPERAND:
				if (want_command)
				{
					c->command = &argv[a.next - 1];
					goto done;
				}
				if (want_token && c->token == NULL)
				{
					c->token = v;
					break;
				}
				cli_error_value(c->sub, "unexpected argument ", v, strlen(v), "%s", "");
				return CLI_EXIT_USAGE;
			case OPT_CONNINFO:
				c->opts.conninfo = v;
				break;
			case OPT_SCHEMA:
				c->opts.schema = v;
				break;
			case OPT_TTL:
				if (!parse_duration_opt(c->sub, "invalid --ttl ", v, &c->opts.ttl_ms))
					return CLI_EXIT_USAGE;
				if (c->opts.ttl_ms < 1000)
				{
					cli_error(c->sub, "--ttl must be at least 1s");
					return CLI_EXIT_USAGE;
				}
				break;
			case OPT_GRACE:
				if (!parse_duration_opt(c->sub, "invalid --grace ", v, &c->opts.grace_ms))
					return CLI_EXIT_USAGE;
				break;
			case OPT_KILL_AFTER:
				if (!parse_duration_opt(c->sub, "invalid --kill-after ", v, &c->kill_after_ms))
					return CLI_EXIT_USAGE;
				break;
			case OPT_RANGE:
				if (!cli_parse_range(v, &c->opts.lo, &c->opts.hi) || c->opts.lo == 0)
				{
					cli_error_value(c->sub, "invalid --range ", v, strlen(v),
									": expected N or LO-HI with 1 <= LO <= HI");
					return CLI_EXIT_USAGE;
				}
				break;
			case OPT_LAYOUT:
				layout_text = v;
				break;
			case OPT_OWNER:
				c->opts.owner = v;
				break;
			case OPT_NODE:
				if (!cli_parse_uint(v, INT32_MAX, &c->node))
				{
					cli_error_value(c->sub, "invalid --node ", v, strlen(v),
									": expected a non-negative integer");
					return CLI_EXIT_USAGE;
				}
				c->have_node = true;
				break;
			case OPT_JSON:
				c->json = true;
				break;
			case OPT_HELP:
				cmd_lease_usage(stdout);
				return -1;
			default:
				break;
		}
	}
done:
	if (!cli_resolve_layout(&c->layout, layout_text, c->sub))
		return CLI_EXIT_USAGE;
	c->opts.layout = &c->layout;
	if (c->opts.hi > cid_layout_max_node(&c->layout))
	{
		cli_error(c->sub, "--range goes past node %llu, the largest of layout %s",
				  (unsigned long long) cid_layout_max_node(&c->layout), c->layout.name);
		return CLI_EXIT_USAGE;
	}
	if (want_token && (c->token == NULL || !c->have_node))
	{
		cli_error(c->sub, "needs the holder TOKEN and --node N (what 'chronoid lease acquire' printed)");
		return CLI_EXIT_USAGE;
	}
	if (want_command && c->command == NULL)
	{
		cli_error(c->sub, "needs a command to run: chronoid lease run [OPTIONS] -- COMMAND [ARGS...]");
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

static int
fail(const lease_cmd *c, int rc, const char *err)
{
	cli_error(c->sub, "%s", err[0] != '\0' ? err : cid_lease_strerror(rc));
	return rc == CID_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

static int
sub_init(lease_cmd *c)
{
	char		err[512];
	int			rc = cid_lease_setup(&c->opts, err, sizeof(err));

	if (rc < 0)
		return fail(c, rc, err);
	return CLI_EXIT_OK;
}

static int
sub_acquire(lease_cmd *c)
{
	char		err[512];
	cid_lease  *l;
	int			rc;

	c->opts.no_renewer = true;
	rc = cid_lease_acquire(&l, &c->opts, err, sizeof(err));
	if (rc < 0)
		return fail(c, rc, err);
	if (c->json)
	{
		cli_out_str("{\"node\":");
		cli_out_u64(cid_lease_node(l));
		cli_out_str(",\"holder\":");
		cli_out_json_str(cid_lease_holder(l), strlen(cid_lease_holder(l)));
		cli_out_str(",\"ttl_ms\":");
		cli_out_i64(c->opts.ttl_ms);
		cli_out_str("}\n");
	}
	else
	{
		cli_out_u64(cid_lease_node(l));
		cli_out_char(' ');
		cli_out_str(cid_lease_holder(l));
		cli_out_char('\n');
	}
	/* The row stays: the script renews and releases it by token. */
	cid_lease_free(l);
	return cli_out_flush() ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

static int
sub_renew(lease_cmd *c)
{
	char		err[512];
	int64_t		left = 0;
	int			rc = cid_lease_renew_token(&c->opts, c->node, c->token, &left, err, sizeof(err));

	if (rc < 0)
		return fail(c, rc, err);
	cli_out_str("node ");
	cli_out_u64(c->node);
	cli_out_str(" renewed: expires in ");
	cli_out_i64(left);
	cli_out_str(" ms\n");
	return cli_out_flush() ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

static int
sub_release(lease_cmd *c)
{
	char		err[512];
	int			rc = cid_lease_release_token(&c->opts, c->node, c->token, err, sizeof(err));

	if (rc < 0)
		return fail(c, rc, err);
	return CLI_EXIT_OK;
}

static const char *
row_state(const cid_lease_row *r)
{
	if (r->holder[0] == '\0')
		return "released";
	if (r->expires_in_ms > 0)
		return "held";
	return r->live ? "lapsed" : "free";
}

/* The list's header, once, and only when the rows are there to follow. */
static void
list_header(lease_cmd *c)
{
	if (!c->json && !c->header_done)
		cli_out_str("  node  state     expires_in_ms  holder                            owner\n");
	c->header_done = true;
}

/* ,"key":"value" when value is not empty; nothing otherwise. */
static void
json_opt_str(const char *key, const char *value)
{
	if (value == NULL || value[0] == '\0')
		return;
	cli_out_str(",\"");
	cli_out_str(key);
	cli_out_str("\":");
	cli_out_json_str(value, strlen(value));
}

/*
 * A text column of the table, padded to width: "-" when empty, and as a
 * JSON string when it holds a control byte.  The table's rows are
 * whatever the lease table holds, and any role that may write it could
 * have put escape sequences there for the operator's terminal.
 */
static void
table_text(const char *text, int width)
{
	size_t		n = strlen(text);
	int			shown = (int) n;

	if (n == 0)
	{
		shown = 1;
		cli_out_char('-');
	}
	else
	{
		bool		plain = true;

		for (size_t i = 0; i < n && plain; i++)
			plain = (unsigned char) text[i] >= 0x20 && text[i] != 0x7f;
		if (plain)
			cli_out_bytes(text, n);
		else
			cli_out_json_str(text, n);
	}
	for (; shown < width; shown++)
		cli_out_char(' ');
}

static void
list_row(const cid_lease_row *r, void *ctx)
{
	lease_cmd  *c = ctx;

	list_header(c);

	if (c->json)
	{
		/*
		 * The CLI's one JSON rule (docs/cli.md): a key that does not apply
		 * is left out, never "" or null.  A released number has no holder
		 * and no expiry; a row may have no owner; last_ms is 0 until the
		 * holder has reported a timestamp.
		 */
		cli_out_str("{\"node\":");
		cli_out_u64(r->node);
		cli_out_str(",\"state\":\"");
		cli_out_str(row_state(r));
		cli_out_char('"');
		json_opt_str("holder", r->holder);
		json_opt_str("owner", r->owner);
		json_opt_str("acquired_at", r->acquired_at);
		json_opt_str("expires_at", r->expires_at);
		if (r->expires_in_ms != INT64_MIN)
		{
			cli_out_str(",\"expires_in_ms\":");
			cli_out_i64(r->expires_in_ms);
		}
		if (r->last_ms != 0)
		{
			cli_out_str(",\"last_ms\":");
			cli_out_i64(r->last_ms);
		}
		cli_out_str("}\n");
		return;
	}
	{
		char		line[128];
		char		exp[32];

		if (r->expires_in_ms == INT64_MIN)
			snprintf(exp, sizeof(exp), "-");
		else
			snprintf(exp, sizeof(exp), "%" PRId64, r->expires_in_ms);
		snprintf(line, sizeof(line), "%6" PRIu64 "  %-8s  %13s  ", r->node, row_state(r), exp);
		cli_out_str(line);
		table_text(r->holder, 32);
		cli_out_str("  ");
		table_text(r->owner, 0);
		cli_out_char('\n');
	}
}

static int
sub_list(lease_cmd *c)
{
	char		err[512];
	int			rc;

	/* nothing on stdout when the call fails (no header before the error) */
	rc = cid_lease_list(&c->opts, list_row, c, err, sizeof(err));
	if (rc < 0)
		return fail(c, rc, err);
	list_header(c);
	return cli_out_flush() ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* ------------------------------------------------------------------------
 * run: a command under a lease
 * ------------------------------------------------------------------------ */

static volatile sig_atomic_t got_signal;
static volatile pid_t child_pid;

static void
forward_signal(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int
sub_run(lease_cmd *c)
{
	char		err[512],
				num[24];
	cid_lease  *l;
	int			rc,
				status = 0,
				exit_code;
	pid_t		pid;
	bool		termed = false,
				killed = false;
	int64_t		kill_at = 0,
				margin;
	struct sigaction sa;

	c->opts.no_renewer = true;
	rc = cid_lease_acquire(&l, &c->opts, err, sizeof(err));
	if (rc < 0)
		return fail(c, rc, err);

	/*
	 * The child's environment is set before the renewer thread exists
	 * (setenv is not thread-safe).
	 */
	snprintf(num, sizeof(num), "%" PRIu64, cid_lease_node(l));
	if (setenv("CHRONOID_NODE", num, 1) != 0 ||
		setenv("CHRONOID_LEASE_TOKEN", cid_lease_holder(l), 1) != 0)
	{
		cli_error(c->sub, "cannot set the environment: %s", strerror(errno));
		(void) cid_lease_release(l, NULL, 0);
		return CLI_EXIT_FAIL;
	}
	rc = cid_lease_start(l);
	if (rc < 0)
	{
		(void) cid_lease_release(l, NULL, 0);
		return fail(c, rc, "cannot start the renewer thread");
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
	{
		cli_error(c->sub, "cannot fork: %s", strerror(errno));
		(void) cid_lease_release(l, NULL, 0);
		return CLI_EXIT_FAIL;
	}
	if (pid == 0)
	{
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(c->command[0], c->command);
		fprintf(stderr, "chronoid: lease run: cannot run \"%s\": %s\n", c->command[0],
				strerror(errno));
		_exit(127);
	}
	child_pid = pid;

	/*
	 * The child mints with CHRONOID_NODE and has no fence of its own, so
	 * it must be gone by the deadline: SIGTERM when only `margin` is left
	 * (a renewal every ttl/3 keeps about 2/3 of the ttl left), SIGKILL at
	 * the deadline.
	 */
	margin = c->kill_after_ms >= 0 ? c->kill_after_ms : c->opts.ttl_ms / 4;
	if (margin > c->opts.ttl_ms / 3)
		margin = c->opts.ttl_ms / 3;
	for (;;)
	{
		pid_t		w = waitpid(pid, &status, WNOHANG);
		int64_t		left_ms;
		struct timespec ts = {0, 20000000L};

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
		{
			cli_error(c->sub, "waitpid: %s", strerror(errno));
			status = 0;
			break;
		}
		left_ms = cid_lease_remaining_ns(l) / 1000000;
		if (!termed && left_ms <= margin)
		{
			char		why[256];

			cid_lease_errmsg(l, why, sizeof(why));
			cli_error(c->sub, "node %" PRIu64 ": the lease could not be renewed (%s); "
					  "stopping the command (SIGTERM)", cid_lease_node(l),
					  why[0] != '\0' ? why : cid_lease_strerror(cid_lease_status(l)));
			kill(pid, SIGTERM);
			termed = true;
			kill_at = cid_clock_monotonic_ms() + (left_ms > 0 ? left_ms : 0);
		}
		if (termed && !killed && cid_clock_monotonic_ms() >= kill_at)
		{
			kill(pid, SIGKILL);
			killed = true;
		}
		nanosleep(&ts, NULL);
	}
	child_pid = 0;

	if (WIFEXITED(status))
		exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		exit_code = 128 + WTERMSIG(status);
	else
		exit_code = CLI_EXIT_FAIL;
	if (termed)
		exit_code = CLI_EXIT_FAIL;
	rc = cid_lease_release(l, err, sizeof(err));
	if (rc < 0 && !termed)
		cli_error(c->sub, "releasing the lease: %s", err[0] != '\0' ? err : cid_lease_strerror(rc));
	return exit_code;
}

int
cmd_lease_main(int argc, char **argv)
{
	lease_cmd	c;
	const char *sub;
	int			rc;

	memset(&c, 0, sizeof(c));
	if (argc < 2)
	{
		cmd_lease_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0)
	{
		cmd_lease_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(sub, "init") == 0)
		c.sub = "lease init";
	else if (strcmp(sub, "acquire") == 0)
		c.sub = "lease acquire";
	else if (strcmp(sub, "renew") == 0)
		c.sub = "lease renew";
	else if (strcmp(sub, "release") == 0)
		c.sub = "lease release";
	else if (strcmp(sub, "list") == 0)
		c.sub = "lease list";
	else if (strcmp(sub, "run") == 0)
		c.sub = "lease run";
	else
	{
		cli_error_value("lease", "unknown subcommand ", sub, strlen(sub),
						" (init, acquire, renew, release, list, run; see 'chronoid lease --help')");
		return CLI_EXIT_USAGE;
	}
	rc = parse(&c, argc, argv, strcmp(sub, "renew") == 0 || strcmp(sub, "release") == 0,
			   strcmp(sub, "run") == 0);
	if (rc < 0)
		return CLI_EXIT_OK;		/* --help */
	if (rc != CLI_EXIT_OK)
		return rc;
	if (strcmp(sub, "init") == 0)
		return sub_init(&c);
	if (strcmp(sub, "acquire") == 0)
		return sub_acquire(&c);
	if (strcmp(sub, "renew") == 0)
		return sub_renew(&c);
	if (strcmp(sub, "release") == 0)
		return sub_release(&c);
	if (strcmp(sub, "run") == 0)
		return sub_run(&c);
	return sub_list(&c);
}
