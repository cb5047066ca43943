/*
 * cmd_block.c — "chronoid block": reserve a block of a sequence's values
 * for a script (cid_block_reserve over the extension's nextval_block()) and
 * print the values, their bounds or a JSON line.
 */
#include <stdio.h>
#include <string.h>

#include "chronoid_lease.h"
#include "cli_internal.h"

int			block_cmd_main(int argc, char **argv);

enum
{
	OPT_CONNINFO = 1,
	OPT_BOUNDS,
	OPT_JSON,
	OPT_HELP
};

static const cli_option block_options[] = {
	{"conninfo", 'd', true, OPT_CONNINFO},
	{"bounds", 0, false, OPT_BOUNDS},
	{"json", 0, false, OPT_JSON},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

static void
block_usage(FILE *fp)
{
	fputs("usage: chronoid block [OPTIONS] SEQUENCE [N]\n"
		  "\n"
		  "Reserve the next N values (default 1, at most 1000000000) of a\n"
		  "PostgreSQL sequence in one round trip, with the chronoid extension's\n"
		  "nextval_block() (docs/block.md): never handed out again, by this or\n"
		  "any other caller, even after a rollback or a crash.  SEQUENCE is\n"
		  "schema-qualified (public.order_ids): no search path is used.  It must\n"
		  "have INCREMENT 1, NO CYCLE, and belong to you or a superuser.\n"
		  "\n"
		  "options:\n"
		  "  -d, --conninfo STR    libpq connection string or URI (default: PG*\n"
		  "                        environment variables)\n"
		  "      --bounds          print \"FIRST LAST\" instead of every value\n"
		  "      --json            print {\"sequence\", \"first\", \"last\", \"count\"}\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "Exit status: 0 success, 1 a failure (server unreachable, sequence\n"
		  "refused or exhausted), 2 a bad command line.\n", fp);
}

int
block_cmd_main(int argc, char **argv)
{
	const char *cmd = "block";
	cli_args	a;
	const char *v;
	const char *seq = NULL;
	uint64_t	n = 1;
	bool		have_n = false;
	bool		bounds = false;
	bool		json = false;
	cid_block_opts opts;
	int64_t		first = 0;
	char		err[512];
	int			id;
	int			rc;

	cid_block_opts_default(&opts);
	cli_args_init(&a, argc, argv, 1, cmd);
	while ((id = cli_next_arg(&a, block_options, &v)) != CLI_ARG_END)
	{
		switch (id)
		{
			case CLI_ARG_ERROR:
				return CLI_EXIT_USAGE;
			case CLI_ARG_OPERAND:
				if (seq == NULL)
					seq = v;
				else if (!have_n)
				{
					if (!cli_parse_uint(v, 1000000000, &n) || n == 0)
					{
						cli_error_value(cmd, "invalid count ", v, strlen(v),
										": expected 1 .. 1000000000");
						return CLI_EXIT_USAGE;
					}
					have_n = true;
				}
				else
				{
					cli_error_value(cmd, "unexpected argument ", v, strlen(v), "%s", "");
					return CLI_EXIT_USAGE;
				}
				break;
			case OPT_CONNINFO:
				opts.conninfo = v;
				break;
			case OPT_BOUNDS:
				bounds = true;
				break;
			case OPT_JSON:
				json = true;
				break;
			case OPT_HELP:
				block_usage(stdout);
				return CLI_EXIT_OK;
			default:
				break;
		}
	}
	if (seq == NULL)
	{
		cli_error(cmd, "needs a SEQUENCE (schema-qualified, such as public.order_ids)");
		return CLI_EXIT_USAGE;
	}
	if (bounds && json)
	{
		cli_error(cmd, "--bounds and --json exclude each other");
		return CLI_EXIT_USAGE;
	}
	opts.sequence = seq;
	rc = cid_block_reserve(&opts, (int64_t) n, &first, err, sizeof(err));
	if (rc < 0)
	{
		cli_error(cmd, "%s", err[0] != '\0' ? err : cid_lease_strerror(rc));
		return rc == CID_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	}
	if (json)
	{
		cli_out_str("{\"sequence\":");
		cli_out_json_str(seq, strlen(seq));
		cli_out_str(",\"first\":");
		cli_out_i64(first);
		cli_out_str(",\"last\":");
		cli_out_i64(first + (int64_t) (n - 1));
		cli_out_str(",\"count\":");
		cli_out_u64(n);
		cli_out_str("}\n");
	}
	else if (bounds)
	{
		cli_out_i64(first);
		cli_out_char(' ');
		cli_out_i64(first + (int64_t) (n - 1));
		cli_out_char('\n');
	}
	else
		for (uint64_t i = 0; i < n; i++)
		{
			cli_out_i64(first + (int64_t) i);
			cli_out_char('\n');
		}
	return cli_out_flush() ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
