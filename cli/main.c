/*
 * main.c — the chronoid command: its command table, global options and
 * main().
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_internal.h"

/* Where "make install" puts the database tools (Makefile: LIBEXECDIR). */
#ifndef CID_LIBEXECDIR
#define CID_LIBEXECDIR "/usr/local/libexec/chronoid"
#endif

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
	{NULL, NULL, NULL}
};

/*
 * The commands that talk to PostgreSQL are programs of their own,
 * chronoid-NAME, so that this one never links libpq (and builds where
 * libpq is not installed).  Named here to tell "not installed" from
 * "unknown".
 */
static const char *const db_tools[] = {"bench-pk", "block", "lease", "migrate", NULL};

static bool
is_db_tool(const char *name)
{
	const char *const *t;

	for (t = db_tools; *t != NULL; t++)
	{
		if (strcmp(*t, name) == 0)
			return true;
	}
	return false;
}

/*
 * dir/chronoid-name into path when it is an executable file.  Names are
 * lower-case letters, digits and '-': nothing that could leave dir.
 */
static bool
tool_in(char *path, size_t len, const char *dir, size_t dirlen, const char *name)
{
	const char *p;
	int			n;

	for (p = name; *p != '\0'; p++)
	{
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	}
	n = snprintf(path, len, "%.*s/chronoid-%s", (int) dirlen, dir, name);
	return n > 0 && (size_t) n < len && access(path, X_OK) == 0;
}

/*
 * Where chronoid-name is: only in $CHRONOID_EXEC_PATH when that is set;
 * else beside this program (a build tree, where "make" puts them all in
 * one directory), else in the libexec directory chronoid was built for.
 */
static bool
find_tool(char *path, size_t len, const char *name)
{
	const char *env = getenv("CHRONOID_EXEC_PATH");
	char		self[PATH_MAX];
	ssize_t		n;
	char	   *slash;

	if (env != NULL && env[0] != '\0')
		return tool_in(path, len, env, strlen(env), name);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
	{
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL &&
			tool_in(path, len, self, (size_t) (slash - self), name))
			return true;
	}
	return tool_in(path, len, CID_LIBEXECDIR, strlen(CID_LIBEXECDIR), name);
}

/*
 * Run chronoid-name with args (argv[0] replaced): on success exec does not
 * return.  Exit 2 when there is no such tool, 1 when it cannot be run.
 */
static int
run_tool(const char *name, char **args)
{
	char		path[PATH_MAX];
	const char *env = getenv("CHRONOID_EXEC_PATH");

	if (!find_tool(path, sizeof(path), name))
	{
		if (!is_db_tool(name))
			return -1;
		cli_error_value(NULL, "", name, strlen(name),
						" is not installed: it is a database tool (chronoid-%s), built "
						"where libpq is present, looked for in %s",
						name, env != NULL && env[0] != '\0' ? env : CID_LIBEXECDIR);
		return CLI_EXIT_USAGE;
	}
	fflush(NULL);
	args[0] = path;
	execv(path, args);
	cli_error_value(NULL, "cannot run ", path, strlen(path), ": %s", strerror(errno));
	return CLI_EXIT_FAIL;
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
					" (commands: gen, inspect, convert, bench-pk, block, lease, migrate; see 'chronoid --help')");
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
	{
		static char help[] = "--help";
		char	   *args[] = {NULL, help, NULL};
		int			rc = run_tool(argv[2], args);

		return rc >= 0 ? rc : unknown_command(argv[2]);
	}
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
		printf("chronoid %s\n", cid_version());
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
	{
		int			rc = run_tool(arg, argv + 1);

		return rc >= 0 ? rc : unknown_command(arg);
	}
	return c->run(argc - 1, argv + 1);
}
