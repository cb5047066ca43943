/*
 * input.c — where inspect and convert get their IDs (arguments or lines of
 * standard input), and how an ID the library refused is reported.
 */
#define _POSIX_C_SOURCE 200809L	/* getline */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool
cli_for_each_id(char **ids, int nids, cli_id_fn fn, void *ctx, const char *cmd)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		got;
	bool		ok = true;
	int			i;

	if (nids > 0)
	{
		for (i = 0; i < nids; i++)
			fn(ids[i], strlen(ids[i]), ctx);
		return true;
	}
	while ((got = getline(&line, &cap, stdin)) >= 0)
	{
		const char *s = line;
		size_t		len = (size_t) got;

		while (len > 0 && is_space(s[len - 1]))
			len--;
		while (len > 0 && is_space(*s))
		{
			s++;
			len--;
		}
		if (len > 0)
			fn(s, len, ctx);
	}
	if (ferror(stdin))
	{
		cli_error(cmd, "reading standard input: %s", strerror(errno));
		ok = false;
	}
	free(line);
	return ok;
}

int
cli_run_ids(const cli_args *a, cli_id_fn fn, void *ctx, const unsigned long *bad)
{
	bool		read_ok = cli_for_each_id(a->argv, a->noperands, fn, ctx, a->cmd);

	if (!cli_out_flush() || !read_ok || *bad > 0)
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}

/*
 * What the refused text should have looked like.  cid_inspect() and
 * cid_inspect_id() pick the form by length (their header says how); the
 * hint follows the same rule so that it speaks of the form the library
 * tried.
 */
static const char *
expected_hint(const char *cmd, int status, size_t len, const cid_layout *layout, char *buf,
			  size_t buflen)
{
	bool		uuid_len = (len == 32 || len == 36 || len == 38);
	bool		ulid_len = (len == CID_ULID_STRLEN);

	/* inspect (cid_inspect_id) also knows ObjectIds and KSUIDs by length */
	if (status == CID_ESYNTAX && len == CID_OBJECTID_STRLEN)
		return "expected a hexadecimal digit, for a 24-character MongoDB ObjectId";
	if (status == CID_ESYNTAX && len == CID_KSUID_STRLEN)
		return "expected a base62 digit (0-9, A-Z, a-z), for a 27-character KSUID";
	if (status == CID_EOVERFLOW && len == CID_KSUID_STRLEN)
		return "the largest KSUID is aWgEPTl1tmebfsQzFP4bxwgy80V";
	if (status == CID_EUNKNOWN && strcmp(cmd, "inspect") == 0)
		return "expected a UUID, a 26-character ULID, a decimal snowflake, "
			"a 24-character ObjectId or a 27-character KSUID";

	switch (status)
	{
		case CID_ESYNTAX:
			if (uuid_len)
				return "expected a hexadecimal digit, in the form "
					"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, 32 digits alone, "
					"or either in braces";
			if (ulid_len)
				return "expected a Crockford base32 digit: 0-9 or A-Z "
					"except I, L, O, U";
			snprintf(buf, buflen, "expected a decimal digit for a snowflake "
					 "of layout %s", layout->name);
			return buf;
		case CID_EOVERFLOW:
			if (ulid_len)
				return "a ULID's first character is 0-7: the largest is "
					"7ZZZZZZZZZZZZZZZZZZZZZZZZZ";
			snprintf(buf, buflen, "too large for a snowflake of layout %s, "
					 "or sets bits the layout keeps zero", layout->name);
			return buf;
		case CID_ELENGTH:
			snprintf(buf, buflen, "%zu characters", len);
			return buf;
		case CID_EUNKNOWN:
			return "expected a UUID, a 26-character ULID or a decimal snowflake";
		default:
			return NULL;
	}
}

void
cli_bad_char_at(char *buf, size_t buflen, const char *s, size_t len, size_t errpos)
{
	unsigned char c;
	char		shown[8];

	buf[0] = '\0';
	if (errpos >= len)
		return;
	c = (unsigned char) s[errpos];
	if (c == '\'' || c == '\\')
		snprintf(shown, sizeof(shown), "\\%c", c);
	else if (c < 0x20 || c > 0x7e)
		snprintf(shown, sizeof(shown), "\\x%02x", c);
	else
		snprintf(shown, sizeof(shown), "%c", c);
	/* Positions count from 1, as an editor's columns do. */
	snprintf(buf, buflen, " '%s' at position %zu", shown, errpos + 1);
}

void
cli_report_bad_id(const char *cmd, const char *s, size_t len, int status,
				  size_t errpos, const cid_layout *layout)
{
	char		buf[160];
	const char *hint = expected_hint(cmd, status, len, layout, buf, sizeof(buf));
	char		at[64] = "";

	if (status == CID_ESYNTAX)
		cli_bad_char_at(at, sizeof(at), s, len, errpos);
	cli_error_value(cmd, "", s, len, ": %s%s%s%s%s", cid_strerror(status), at,
					hint != NULL ? " (" : "", hint != NULL ? hint : "",
					hint != NULL ? ")" : "");
}
