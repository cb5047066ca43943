/*
 * args.c — the chronoid command's option parser: GNU-style long and short
 * options without getopt's global state, with messages in chronoid's form.
 */
#include <string.h>

#include "cli_internal.h"

void
cli_args_init(cli_args *a, int argc, char **argv, int first, const char *cmd)
{
	a->argc = argc;
	a->argv = argv;
	a->next = first;
	a->cmd = cmd;
	a->operands_only = false;
	a->short_pos = 0;
	a->noperands = 0;
	a->nseen = 0;
}

static const cli_option *
find_long(const cli_option *opts, const char *name, size_t len)
{
	for (; opts->id != 0; opts++)
	{
		if (opts->long_name != NULL && strlen(opts->long_name) == len &&
			memcmp(opts->long_name, name, len) == 0)
			return opts;
	}
	return NULL;
}

static const cli_option *
find_short(const cli_option *opts, char c)
{
	for (; opts->id != 0; opts++)
	{
		if (opts->short_name != 0 && opts->short_name == c)
			return opts;
	}
	return NULL;
}

static int
next_long(cli_args *a, const cli_option *opts, const char *arg,
		  const char **value)
{
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t		len = eq ? (size_t) (eq - name) : strlen(name);
	const cli_option *o = find_long(opts, name, len);

	if (o == NULL)
	{
		cli_error(a->cmd, "unknown option '--%.*s'", (int) len, name);
		return CLI_ARG_ERROR;
	}
	if (!o->has_arg)
	{
		if (eq != NULL)
		{
			cli_error(a->cmd, "option '--%s' takes no value", o->long_name);
			return CLI_ARG_ERROR;
		}
		return o->id;
	}
	if (eq != NULL)
		*value = eq + 1;
	else if (a->next < a->argc)
		*value = a->argv[a->next++];
	else
	{
		cli_error(a->cmd, "option '--%s' needs a value", o->long_name);
		return CLI_ARG_ERROR;
	}
	return o->id;
}

static int
next_short(cli_args *a, const cli_option *opts, const char **value)
{
	const char *arg = a->argv[a->next];
	char		c = arg[a->short_pos];
	const cli_option *o = find_short(opts, c);

	a->short_pos++;
	if (o == NULL)
	{
		a->short_pos = 0;
		a->next++;
		if ((unsigned char) c < 0x20 || (unsigned char) c > 0x7e)
			cli_error(a->cmd, "unknown option '-\\x%02x'", (unsigned char) c);
		else
			cli_error(a->cmd, "unknown option '-%c'", c);
		return CLI_ARG_ERROR;
	}
	if (o->has_arg)
	{
		/* "-n5" carries its value; "-n 5" takes the next argument. */
		if (arg[a->short_pos] != '\0')
			*value = arg + a->short_pos;
		else if (a->next + 1 < a->argc)
		{
			a->next++;
			*value = a->argv[a->next];
		}
		else
		{
			a->short_pos = 0;
			a->next++;
			cli_error(a->cmd, "option '-%c' needs a value", c);
			return CLI_ARG_ERROR;
		}
		a->short_pos = 0;
		a->next++;
		return o->id;
	}
	if (arg[a->short_pos] == '\0')
	{
		a->short_pos = 0;
		a->next++;
	}
	return o->id;
}

/* An option with a value, the second time: exit 2, naming both values. */
static int
check_repeat(cli_args *a, const cli_option *opts, int id, const char *value)
{
	const cli_option *o;
	int			i;

	for (o = opts; o->id != 0 && o->id != id; o++)
		;
	for (i = 0; i < a->nseen; i++)
	{
		if (a->seen_id[i] != id)
			continue;
		if (o->long_name != NULL)
			cli_error(a->cmd, "option '--%s' given twice (\"%.64s\" and \"%.64s\"): give it once",
					  o->long_name, a->seen_value[i], value);
		else
			cli_error(a->cmd, "option '-%c' given twice (\"%.64s\" and \"%.64s\"): give it once",
					  o->short_name, a->seen_value[i], value);
		return CLI_ARG_ERROR;
	}
	if (a->nseen < CLI_MAX_SEEN)
	{
		a->seen_id[a->nseen] = id;
		a->seen_value[a->nseen] = value;
		a->nseen++;
	}
	return id;
}

static int
next_arg(cli_args *a, const cli_option *opts, const char **value);

int
cli_next_arg(cli_args *a, const cli_option *opts, const char **value)
{
	int			id = next_arg(a, opts, value);

	if (id > 0 && *value != NULL)
		return check_repeat(a, opts, id, *value);
	return id;
}

static int
next_arg(cli_args *a, const cli_option *opts, const char **value)
{
	const char *arg;

	*value = NULL;
	if (a->short_pos > 0)
		return next_short(a, opts, value);
	if (a->next >= a->argc)
		return CLI_ARG_END;
	arg = a->argv[a->next];
	if (a->operands_only || arg[0] != '-' || arg[1] == '\0' ||
		(arg[1] >= '0' && arg[1] <= '9'))
	{
		a->next++;
		*value = arg;
		return CLI_ARG_OPERAND;
	}
	if (arg[1] == '-')
	{
		a->next++;
		if (arg[2] == '\0')
		{
			a->operands_only = true;
			return next_arg(a, opts, value);
		}
		return next_long(a, opts, arg, value);
	}
	a->short_pos = 1;
	return next_short(a, opts, value);
}

int
cli_next_option(cli_args *a, const cli_option *opts, const char **value)
{
	int			opt;

	while ((opt = cli_next_arg(a, opts, value)) == CLI_ARG_OPERAND)
		a->argv[a->noperands++] = (char *) *value;
	return opt;
}

/* s[0..len): digits only (at least one), no larger than max. */
static bool
parse_digits(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;
	size_t		i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
	{
		unsigned	d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned) (s[i] - '0');
		/* v * 10 + d <= max, without overflow (nor max - d wrapping) */
		if (d > max || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool
cli_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	return parse_digits(s, strlen(s), max, out);
}

bool
cli_parse_duration(const char *s, int64_t *ms)
{
	const uint64_t day = UINT64_C(86400000);
	size_t		n,
				d;
	uint64_t	v,
				unit;

	if (s == NULL || ms == NULL)
		return false;
	n = strlen(s);
	for (d = 0; d < n && s[d] >= '0' && s[d] <= '9'; d++)
		;
	if (d == n || strcmp(s + d, "s") == 0)
		unit = 1000;
	else if (strcmp(s + d, "ms") == 0)
		unit = 1;
	else if (strcmp(s + d, "m") == 0)
		unit = 60000;
	else if (strcmp(s + d, "h") == 0)
		unit = 3600000;
	else
		return false;
	if (!parse_digits(s, d, day, &v) || v > day / unit)
		return false;
	*ms = (int64_t) (v * unit);
	return true;
}

bool
cli_parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	const char *dash;
	uint64_t	a,
				b;

	if (s == NULL || lo == NULL || hi == NULL)
		return false;
	dash = strchr(s, '-');
	if (dash == NULL)
	{
		if (!parse_digits(s, strlen(s), UINT32_MAX, &a))
			return false;
		b = a;
	}
	else if (!parse_digits(s, (size_t) (dash - s), UINT32_MAX, &a) ||
			 !parse_digits(dash + 1, strlen(dash + 1), UINT32_MAX, &b))
		return false;
	if (a > b)
		return false;
	*lo = a;
	*hi = b;
	return true;
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
