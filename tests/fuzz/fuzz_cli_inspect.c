/*
 * fuzz_cli_inspect.c — libFuzzer target for `chronoid inspect` reading
 * standard input: the CLI's own line splitting and trimming (cli/input.c),
 * its error report for refused IDs and its text and JSON output, linked
 * from the CLI's object files.  Byte 0 picks --json and --layout; the rest
 * is what stdin holds.  The exit status must say whether some line was
 * refused, which is checked against a separate reading of the lines.
 */
#define _POSIX_C_SOURCE 200809L	/* fmemopen */

#include <stdio.h>

#include "fuzz.h"
#include "cli_internal.h"
#include "typeid_internal.h"

int			LLVMFuzzerInitialize(int *argc, char ***argv);

static FILE *devnull;

/*
 * The command's output and messages go to /dev/null.  libFuzzer keeps its
 * own copy of the stderr stream from before this runs, and sanitizer
 * reports write to file descriptor 2 directly, so both stay visible.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(devnull != NULL);
	stdout = devnull;
	stderr = devnull;
	return 0;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/*
 * Whether the CLI refuses a line: a TypeID text (a '_', no '-') by
 * cid_typeid_parse(), anything else by cid_inspect_id().
 */
static bool
refused(const char *s, size_t len, const cid_layout *layout)
{
	cid_id_info info;
	cid_uuid	u;

	if (cid_typeid_shaped(s, len))
		return cid_typeid_parse(&u, NULL, s, len, NULL) < 0;
	return cid_inspect_id(&info, sizeof(info), s, len, layout, NULL) < 0;
}

/* How many of the lines, trimmed and non-empty, the CLI refuses. */
static unsigned long
count_refused(const char *s, size_t len, const cid_layout *layout)
{
	unsigned long bad = 0;
	size_t		start = 0;

	while (start < len)
	{
		const char *nl = memchr(s + start, '\n', len - start);
		size_t		end = nl != NULL ? (size_t) (nl - s) : len;
		size_t		a = start,
					b = end;

		while (b > a && is_space(s[b - 1]))
			b--;
		while (a < b && is_space(s[a]))
			a++;
		if (b > a && refused(s + a, b - a, layout))
			bad++;
		start = end + 1;
	}
	return bad;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		cmd[] = "inspect";
	char		json[] = "--json";
	char		opt_layout[] = "--layout";
	char		spec[64];
	char	   *argv[5];
	int			argc = 0;
	int			which;
	cid_layout	layout;
	char	   *s;
	size_t		len;
	FILE	   *in,
			   *saved_stdin = stdin;
	unsigned long bad;
	int			rc;

	if (size < 1)
		return 0;
	which = (data[0] >> 1) % (int) (FUZZ_NLAYOUTS + 1);
	argv[argc++] = cmd;
	if (data[0] & 1)
		argv[argc++] = json;
	if (which > 0)
	{
		snprintf(spec, sizeof(spec), "%s", fuzz_layout_specs[which - 1]);
		argv[argc++] = opt_layout;
		argv[argc++] = spec;
		fuzz_layout(&layout, (uint8_t) (which - 1));
	}
	else
		FUZZ_CHECK(cid_layout_preset(&layout, "pgedge") == CID_OK);
	argv[argc] = NULL;

	len = size - 1;
	s = fuzz_copy(data + 1, len);
	in = len > 0 ? fmemopen(s, len, "r") : fopen("/dev/null", "r");
	FUZZ_CHECK(in != NULL);
	stdin = in;
	rc = cli_cmd_inspect(argc, argv);
	stdin = saved_stdin;
	fclose(in);

	bad = count_refused(s, len, &layout);
	FUZZ_CHECK(rc == (bad > 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK));
	free(s);
	return 0;
}
