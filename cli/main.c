/*
 * main.c — the chronoid command: global options, dispatch to a command,
 * and the diagnostics every command shares.
 */
#include <stdarg.h>
#include <string.h>

#include "cli.h"

typedef struct cli_command
{
	const char *name;
	int			(*run) (int argc, char **argv);
	void		(*usage) (FILE *fp);
} cli_command;

static const cli_command commands[] = {
	{"gen", cli_cmd_gen, cli_usage_gen},
	{"inspect", cli_cmd_inspect, cli_usage_inspect},
	{"convert", cli_cmd_convert, cli_usage_convert},
	{"bench-pk", cli_cmd_bench_pk, cli_usage_bench_pk},
	{"lease", cli_cmd_lease, cli_usage_lease},
	{NULL, NULL, NULL}
};

/* The message of cli_error() and cli_error_value() (what NULL: no value). */
static void
error_line(const char *cmd, const char *what, const char *s, size_t len,
		   const char *fmt, va_list ap)
{
	/* Keep stdout's lines ahead of the message when both go to one place. */
	cli_out_sync();
	fputs("chronoid: ", stderr);
	if (cmd != NULL)
		fprintf(stderr, "%s: ", cmd);
	if (what != NULL)
	{
		fputs(what, stderr);
		cli_quote(stderr, s, len);
	}
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
cli_error(const char *cmd, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	error_line(cmd, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

void
cli_error_value(const char *cmd, const char *what, const char *s, size_t len,
				const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	error_line(cmd, what, s, len, fmt, ap);
	va_end(ap);
}

void
cli_quote(FILE *fp, const char *s, size_t len)
{
	size_t		i;

	fputc('"', fp);
	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

bool
cli_resolve_layout(cid_layout *out, const char *text, const char *cmd)
{
	char		err[256];
	int			rc;

	err[0] = '\0';
	if (text == NULL)
		text = "pgedge";
	rc = cid_layout_resolve(out, text, err, sizeof(err));
	if (rc < 0)
	{
		cli_error_value(cmd, "invalid layout ", text, strlen(text), ": %s",
						err[0] != '\0' ? err : cid_strerror(rc));
		return false;
	}
	return true;
}

static const cli_command *
find_command(const char *name)
{
	const cli_command *c;

	for (c = commands; c->name != NULL; c++)
	{
		if (strcmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

static int
unknown_command(const char *name)
{
	cli_error_value(NULL, "unknown command ", name, strlen(name),
					" (commands: gen, inspect, convert, bench-pk, lease; see 'chronoid --help')");
	return CLI_EXIT_USAGE;
}

/* "chronoid help [COMMAND]": the same texts as --help. */
static int
run_help(int argc, char **argv)
{
	const cli_command *c;

	if (argc < 3)
	{
		cli_usage_main(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 3)
	{
		cli_error("help", "too many arguments");
		return CLI_EXIT_USAGE;
	}
	c = find_command(argv[2]);
	if (c == NULL)
		return unknown_command(argv[2]);
	c->usage(stdout);
	return CLI_EXIT_OK;
}

int
main(int argc, char **argv)
{
	const cli_command *c;
	const char *arg;

	if (argc < 2)
	{
		cli_usage_main(stderr);
		return CLI_EXIT_USAGE;
	}
	arg = argv[1];
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
	{
		cli_usage_main(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0)
	{
		printf("chronoid %s\n", CID_VERSION_STRING);
		return CLI_EXIT_OK;
	}
	if (strcmp(arg, "help") == 0)
		return run_help(argc, argv);
	if (arg[0] == '-')
	{
		cli_error_value(NULL, "unknown option ", arg, strlen(arg),
						" (see 'chronoid --help')");
		return CLI_EXIT_USAGE;
	}
	c = find_command(arg);
	if (c == NULL)
		return unknown_command(arg);
	return c->run(argc - 1, argv + 1);
}
