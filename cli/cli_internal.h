/*
 * cli_internal.h — shared pieces of the chronoid command: exit codes, the option
 * parser, buffered output and the per-command entry points.
 */
#ifndef CHRONOID_CLI_INTERNAL_H
#define CHRONOID_CLI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chronoid.h"
#include "compiler_internal.h"

/* The name messages start with, whichever program prints them. */
#define CLI_PROGNAME	"chronoid"

/* Exit statuses (docs/cli.md, chronoid(1) EXIT STATUS). */
#define CLI_EXIT_OK		0
#define CLI_EXIT_FAIL	1		/* invalid input ID, generator or write failure */
#define CLI_EXIT_USAGE	2		/* bad command line */

/* The largest -n COUNT that gen accepts. */
#define CLI_MAX_COUNT	UINT64_C(1000000000000)

/* ------------------------------------------------------------------------
 * Diagnostics (diag.c)
 * ------------------------------------------------------------------------ */


/* "chronoid: CMD: message\n" on stderr (CMD omitted when NULL). */
void		cli_error(const char *cmd, const char *fmt,...) CID_PRINTF(2, 3);

/*
 * The same with a piece of user input in it: "chronoid: CMD: WHAT" then
 * s in double quotes, with control characters, quotes, backslashes and
 * bytes above 0x7e as C escapes (the message stays one readable line),
 * then fmt's text and a newline.  At most CLI_ECHO_MAX bytes of s are
 * echoed; a longer value shows as its start, "...", and its length in
 * bytes.  The message goes out in one write.
 */
#define CLI_ECHO_MAX 64
void		cli_error_value(const char *cmd, const char *what, const char *s,
							size_t len, const char *fmt,...) CID_PRINTF(5, 6);

/* ------------------------------------------------------------------------
 * Option parsing (args.c): a small getopt_long without global state
 * ------------------------------------------------------------------------ */

typedef struct cli_option
{
	const char *long_name;		/* without the leading "--" */
	char		short_name;		/* 0 when none */
	bool		has_arg;
	int			id;				/* positive, returned by cli_next_arg */
} cli_option;

/* How many options with a value one command line may carry. */
#define CLI_MAX_SEEN 32

typedef struct cli_args
{
	int			argc;
	char	  **argv;
	int			next;			/* index of the next argv element */
	const char *cmd;			/* for messages, e.g. "gen" */
	bool		operands_only;	/* seen "--" */
	int			short_pos;		/* inside a cluster like -n5 */
	int			noperands;		/* gathered by cli_next_option */
	int			nseen;			/* options with a value seen so far */
	int			seen_id[CLI_MAX_SEEN];
	const char *seen_value[CLI_MAX_SEEN];
} cli_args;

#define CLI_ARG_END		0		/* no more arguments */
#define CLI_ARG_OPERAND	(-1)	/* *value is a non-option argument */
#define CLI_ARG_ERROR	(-2)	/* message already printed: exit 2 */

void		cli_args_init(cli_args *a, int argc, char **argv, int first,
						  const char *cmd);

/*
 * The next option (its id, with *value set when it takes one), operand or
 * the end.  "--name=value", "--name value", "-n value" and "-nvalue" all
 * work; "--" ends the options; "-" alone and a '-' followed by a digit
 * (a negative Snowflake of a 64-bit layout) are operands.  An option that
 * takes a value may be given once: a second one is an error naming both
 * values (silently taking the last would hide a mistake such as two
 * different --node numbers).
 */
int			cli_next_arg(cli_args *a, const cli_option *opts, const char **value);

/*
 * cli_next_arg() for commands whose operands are IDs: operands are gathered
 * into a->argv[0 .. a->noperands) (argv's own, already parsed slots: there
 * are never more operands than slots) and never returned.
 */
int			cli_next_option(cli_args *a, const cli_option *opts,
							const char **value);

/*
 * Parse a decimal unsigned integer (digits only, no sign, no spaces) no
 * larger than max.  Returns false for anything else.
 */
bool		cli_parse_uint(const char *s, uint64_t max, uint64_t *out);

/*
 * A duration (--ttl, --lock-timeout, ...): digits then "ms", "s", "m" or
 * "h", or digits alone (seconds), at most a day.  false for anything else.
 */
bool		cli_parse_duration(const char *s, int64_t *ms);

/*
 * A node range: "N" or "LO-HI", decimal, each at most 2^32-1.  false when
 * malformed or LO > HI.
 */
bool		cli_parse_range(const char *s, uint64_t *lo, uint64_t *hi);

/* Resolve --layout (NULL = "pgedge"); on failure print and return false. */
bool		cli_resolve_layout(cid_layout *out, const char *text, const char *cmd);

/* ------------------------------------------------------------------------
 * Buffered standard output (output.c)
 * ------------------------------------------------------------------------ */

/* Room for the longest thing one call appends. */
#define CLI_U64_DIGITS 20

void		cli_out_bytes(const char *s, size_t n);
void		cli_out_str(const char *s);
void		cli_out_char(char c);
void		cli_out_u64(uint64_t v);
void		cli_out_i64(int64_t v);

/* A JSON string literal, quotes included (RFC 8259 section 7 escapes). */
void		cli_out_json_str(const char *s, size_t n);

/* Canonical text of a UUID or a ULID, then a newline. */
void		cli_out_uuid_line(const cid_uuid *u);
void		cli_out_ulid_line(const cid_ulid *u);

/*
 * At least n bytes of buffer space for the caller to write into directly;
 * cli_out_commit(k) then adds the k bytes written.  n must not exceed
 * CLI_OUT_RESERVE_MAX.
 */
#define CLI_OUT_RESERVE_MAX (64 * 1024)
char	   *cli_out_reserve(size_t n);
void		cli_out_commit(size_t k);

/*
 * Write out what is buffered.  Returns false (after printing "write
 * error") when stdout failed now or earlier.
 */
bool		cli_out_flush(void);

/*
 * Write out what is buffered, remembering a failure for cli_out_flush():
 * messages on stderr then follow the output lines they concern.
 */
void		cli_out_sync(void);

/* Decimal text of v into buf (no NUL); returns its length (1..20). */
size_t		cli_u64_to_dec(char *buf, uint64_t v);

/* ------------------------------------------------------------------------
 * Input (input.c)
 * ------------------------------------------------------------------------ */

/*
 * Call fn for each ID: the operands argv[first..argc) when there are any,
 * else each line of standard input with surrounding whitespace trimmed,
 * empty lines skipped.  Returns false when reading stdin failed.
 */
typedef void (*cli_id_fn) (const char *s, size_t len, void *ctx);
bool		cli_for_each_id(char **ids, int nids, cli_id_fn fn, void *ctx,
							const char *cmd);

/*
 * The end of inspect and convert: fn over the operands cli_next_option()
 * gathered (or stdin's lines), then flush.  CLI_EXIT_FAIL when reading or
 * writing failed or when *bad, fn's count of refused IDs, is non-zero.
 */
int			cli_run_ids(const cli_args *a, cli_id_fn fn, void *ctx,
						const unsigned long *bad);

/*
 * Report an ID that the library refused: "chronoid: CMD: "VALUE": reason
 * (what was expected)".  status and errpos are what cid_inspect() returned
 * for the text under layout.
 */
void		cli_report_bad_id(const char *cmd, const char *s, size_t len,
							  int status, size_t errpos, const cid_layout *layout);

/* ------------------------------------------------------------------------
 * Commands: argv[0] is the command name; they return the exit status.
 * ------------------------------------------------------------------------ */

/*
 * " 'c' at position N" (N from 1; the character escaped as
 * cli_error_value does) into buf for the character at errpos of s, or ""
 * when errpos is not inside s.
 */
void		cli_bad_char_at(char *buf, size_t buflen, const char *s, size_t len,
							size_t errpos);

/* ------------------------------------------------------------------------
 * TypeIDs (typeid.c): what gen, inspect and convert share
 * ------------------------------------------------------------------------ */

/*
 * Check a --prefix value; false after a message naming the character, its
 * position and the rule.
 */
bool		cli_typeid_prefix_ok(const char *cmd, const char *prefix);

/*
 * Parse s as a TypeID into *uuid and *prefix_len; false after a message
 * (cid_typeid_parse's status, the character and position, the rule it
 * broke) on stderr.
 */
bool		cli_typeid_parse(const char *cmd, const char *s, size_t len, cid_uuid *uuid,
							 size_t *prefix_len);

/*
 * One line of inspect output for a parsed TypeID: text (id typeid prefix=
 * uuid= version= time= unix_ms=) or a JSON object; no prefix key for an
 * empty prefix.
 */
void		cli_typeid_inspect_line(const char *s, size_t len, size_t prefix_len,
									const cid_uuid *uuid, bool json);

/* Write uuid under prefix and a newline (the prefix already checked). */
void		cli_out_typeid_line(const char *prefix, size_t prefix_len, const cid_uuid *uuid);

int			cli_cmd_gen(int argc, char **argv);
int			cli_cmd_inspect(int argc, char **argv);
int			cli_cmd_convert(int argc, char **argv);

/* Usage texts (usage.c), written to fp. */
void		cli_usage_main(FILE *fp);
void		cli_usage_gen(FILE *fp);
void		cli_usage_inspect(FILE *fp);
void		cli_usage_convert(FILE *fp);

#endif							/* CHRONOID_CLI_INTERNAL_H */
