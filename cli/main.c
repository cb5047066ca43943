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

/* A message being put together, written out in one piece. */
typedef struct msgbuf
{
	char		text[1024];
	size_t		len;
} msgbuf;

static void
msg_add(msgbuf *m, const char *fmt,...) CLI_PRINTF(2, 3);

static void
msg_add(msgbuf *m, const char *fmt,...)
{
	va_list		ap;
	int			n;

	if (m->len >= sizeof(m->text) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(m->text + m->len, sizeof(m->text) - m->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->len += (size_t) n < sizeof(m->text) - m->len ? (size_t) n : sizeof(m->text) - 1 - m->len;
}

/*
 * s quoted and escaped, at most CLI_ECHO_MAX of its bytes: a refused value
 * of a megabyte must not make a megabyte message (nor, on unbuffered
 * stderr, a write per byte).
 */
static void
msg_quote(msgbuf *m, const char *s, size_t len)
{
	size_t		i;

	msg_add(m, "\"");
	for (i = 0; i < len && i < CLI_ECHO_MAX; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
			msg_add(m, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			msg_add(m, "\\x%02x", c);
		else
			msg_add(m, "%c", c);
	}
	if (len > CLI_ECHO_MAX)
		msg_add(m, "...\" (%zu bytes)", len);
	else
		msg_add(m, "\"");
}

/* The message of cli_error() and cli_error_value() (what NULL: no value). */
static void
error_line(const char *cmd, const char *what, const char *s, size_t len,
		   const char *fmt, va_list ap)
{
	msgbuf		m;
	int			n;

	m.len = 0;
	m.text[0] = '\0';
	/* Keep stdout's lines ahead of the message when both go to one place. */
	cli_out_sync();
	msg_add(&m, "chronoid: ");
	if (cmd != NULL)
		msg_add(&m, "%s: ", cmd);
	if (what != NULL)
	{
		msg_add(&m, "%s", what);
		msg_quote(&m, s, len);
	}
	if (m.len < sizeof(m.text) - 1)
	{
		n = vsnprintf(m.text + m.len, sizeof(m.text) - 1 - m.len, fmt, ap);
		if (n > 0)
			m.len += (size_t) n < sizeof(m.text) - 1 - m.len ? (size_t) n : sizeof(m.text) - 2 - m.len;
	}
	m.text[m.len++] = '\n';
	fwrite(m.text, 1, m.len, stderr);
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
