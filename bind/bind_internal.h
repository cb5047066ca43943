/*
 * bind_internal.h — the language-neutral half of chronoid's packages: what
 * node/, python/ and any later glue (WebAssembly's) decide alike, decided
 * once here, so that a binding is only its language's calling convention.
 * Each package compiles the .c files here with the core's sources into its module;
 * nothing here is installed or exported (cid_bind_ names stay hidden).
 */
#ifndef CID_BIND_INTERNAL_H
#define CID_BIND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chronoid.h"
#include "chronoid_lease.h"

/*
 * Most IDs one batch call makes: 2^24 (256 MiB of UUIDs, 320 MiB of
 * KSUIDs).  Counts above it are refused before anything is allocated.
 */
#define CID_BIND_MAX_BATCH ((size_t) 1 << 24)

/*
 * The largest integer option a binding reads (block sizes, times): 2^53 - 1,
 * the largest integer a JavaScript number holds exactly.  Every option's
 * own range (cid_bind_block_opts) is far below it.
 */
#define CID_BIND_MAX_OPTION UINT64_C(9007199254740991)

/*
 * Where random bytes come from: the core's CSPRNG (src/random.c: a
 * buffered, fork-safe reader) over a raw source, OpenSSL's RAND_bytes in a
 * binding built with libcrypto (CID_BIND_OPENSSL), else getrandom(2).
 * bind/random_source.c installs it; the packages report this name.
 */
#ifdef CID_BIND_OPENSSL
#define CID_BIND_RANDOM_SOURCE "openssl"
#else
#define CID_BIND_RANDOM_SOURCE "getrandom"
#endif

/*
 * Install the raw source CID_BIND_RANDOM_SOURCE names in this copy of the
 * core (its symbols are the module's own: nothing else in the process
 * changes source).  cid_bind_start() calls it once, before any generator
 * draws a byte.
 */
void		cid_bind_random_start(void);

/* ------------------------------------------------------------------------
 * Statuses as errors
 * ------------------------------------------------------------------------ */

/* The kind of error a failed status raises, whatever the language. */
typedef enum cid_bind_class
{
	CID_BIND_VALUE_ERROR,		/* a bad value: an ID, layout, node, time */
	CID_BIND_GENERATOR_ERROR,	/* nothing could be issued: clock, random, claim */
	CID_BIND_WOULD_WAIT,		/* a pure step would have to wait */
	CID_BIND_FORK_ERROR			/* the parent's object used in a child */
} cid_bind_class;

/* One row of the status table. */
typedef struct cid_bind_status
{
	int			status;			/* CID_E* or CID_ELEASE_* / CID_EBLOCK_* */
	const char *code;			/* stable text: "CHRONOID_ENODE" */
	cid_bind_class cls;
	const char *class_name;		/* the Python class: "ChronoidValueError" */
} cid_bind_status;

/*
 * The row of status (core or lease library).  Never NULL: a status not in
 * the table (a later library's, or CID_OK) gets the row of code
 * "CHRONOID_ERROR", a generator error.
 */
const cid_bind_status *cid_bind_status_of(int status);

/*
 * What status means, in words: cid_lease_strerror's where the lease
 * library is compiled in (CID_BIND_LEASE), else cid_strerror's (a lease
 * status then reads "unknown status").
 */
const char *cid_bind_strerror(int status);

/*
 * A failure's words: status's, then the library's detail ("lease database
 * error: connection refused").  A detail that already says the whole, the
 * lease range's "no free node number in 1..8: 8 held by leases, ...", goes
 * alone rather than after its own summary.  Returns out.
 */
const char *cid_bind_failure(char *out, size_t len, int status, const char *detail);

/* ------------------------------------------------------------------------
 * The words of a bad argument, from C values (text.c)
 * ------------------------------------------------------------------------ */

/* Bytes cid_bind_quote writes at most, its NUL included. */
#define CID_BIND_QUOTE_MAX 300

/*
 * s (len bytes, any bytes) as a double-quoted literal for a message:
 * printable ASCII as it is, '"', '\\' and every other byte as \xNN; at
 * most 60 bytes shown, then "... (N bytes)".  out holds CID_BIND_QUOTE_MAX.
 */
void		cid_bind_quote(char *out, const char *s, size_t len);

/*
 * A number as a message shows it: NaN, Infinity and -Infinity spelled as
 * JavaScript does, any other in 17 significant digits (so that an
 * integer-looking one that is not an integer shows its fraction).  Into
 * buf; returns buf.
 */
const char *cid_bind_number_text(char *buf, size_t cap, double d);

/*
 * The words of a bad number argument, each into out (len outlen), each
 * returning out.  A number d shows as cid_bind_number_text shows it.
 */

/* A batch size d that is not an integer in 0 .. CID_BIND_MAX_BATCH. */
const char *cid_bind_bad_count(char *out, size_t outlen, double d);

/*
 * A time d, given as what ("time", or "Date" for a Date's value), that is
 * not an integer number of Unix ms a Date can hold.
 */
const char *cid_bind_bad_time(char *out, size_t outlen, const char *what, double d);

/* Any integer a JavaScript number holds exactly, as expected to be. */
#define CID_BIND_SAFE_INTEGER_EXPECTED "an integer from -9007199254740991 to 9007199254740991"

/*
 * An integer option what ("maxWaitMs") whose value d is outside what it
 * takes; expected says what that is ("a non-negative integer",
 * CID_BIND_SAFE_INTEGER_EXPECTED).
 */
const char *cid_bind_bad_integer(char *out, size_t outlen, const char *what, double d,
								 const char *expected);

/*
 * A node that is no node number of layout: a number d that is not an
 * integer in 0 .. 2^53 - 1, or (bigint) a BigInt outside 0 .. 2^64 - 1,
 * when d is not shown.
 */
const char *cid_bind_bad_node(char *out, size_t outlen, bool bigint, double d,
							  const cid_layout *layout);

/* A node number beyond the largest of layout (its node bits named). */
const char *cid_bind_node_outside(char *out, size_t outlen, uint64_t node,
								  const cid_layout *layout);

/*
 * A time of ms that the kind what cannot hold; span says the times it
 * holds (a cid_bind_kind's what and span).
 */
const char *cid_bind_time_outside(char *out, size_t outlen, int64_t ms, const char *what,
								  const char *span);

/*
 * A time of ms outside layout's span, its first and last instants shown
 * as text (an instant without text, past year 9999, shows as nothing).
 */
const char *cid_bind_time_outside_layout(char *out, size_t outlen, int64_t ms,
										 const cid_layout *layout);

/* What each text form may be, for a failed parse's "(expected ...)". */
#define CID_BIND_UUID_EXPECTED "36 characters 8-4-4-4-12 of hex digits, 32 hex digits, or either in braces"
#define CID_BIND_ULID_EXPECTED "26 characters of Crockford base32, at most 7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
#define CID_BIND_TYPEID_PREFIX_EXPECTED \
	"at most 63 characters of a-z and '_', starting and ending with a letter"
#define CID_BIND_TYPEID_EXPECTED "a prefix of a-z and '_' and a '_', then 26 lower-case base32 " \
	"digits (0-9, a-z without i, l, o, u), at most 7zzzzzzzzzzzzzzzzzzzzzzzzz"

/*
 * What an ID of len characters that inspect could not read was expected
 * to be: the kind its length points at (ObjectId, KSUID), else the rest.
 */
const char *cid_bind_inspect_expected(size_t len);

/*
 * The words of a failed parse of s (len bytes) as what ("UUID"): rc the
 * parser's status, pos where it stopped, expected the form.  A syntax
 * error names the character at pos (a byte as 0x.. when not printable; a
 * pos at the end reads as the status's words); a length error counts
 * characters, not UTF-8 bytes.  Into out (len outlen); returns out.
 */
const char *cid_bind_parse_failed(char *out, size_t outlen, int rc, const char *what,
								  const char *s, size_t len, size_t pos, const char *expected);

/* ------------------------------------------------------------------------
 * The process's generators and fork
 * ------------------------------------------------------------------------ */

/*
 * A set of the generators behind the module-level functions, and the
 * clock and random source that the kinds without state (UUIDv4, KSUID)
 * draw on.  The packages have one set per process, cid_bind_gen (started
 * by cid_bind_start()); the WebAssembly module has its own, on the host's
 * clock and random source.
 */
typedef struct cid_bind_gens
{
	cid_uuidv7_gen uuidv7;
	cid_ulid_gen ulid;
	cid_ulid_gen ulid_mono;
	cid_uuidv6_gen uuidv6;
	cid_objectid_gen objectid;
	const cid_env *env;			/* NULL: the platform's */
} cid_bind_gens;

/*
 * Start every generator of g on env (NULL: the platform's), which g keeps
 * for the kinds without state.  CID_OK, or the first failing init's status
 * (g is then not to be used).
 */
int			cid_bind_gens_init(cid_bind_gens *g, const cid_env *env);

/*
 * The process's set: shared by every thread, worker and interpreter of
 * the process (of this copy of the module).  Start it with
 * cid_bind_start().
 */
extern cid_bind_gens cid_bind_gen;

/*
 * Bumped in the child of every fork() (a pthread_atfork handler, so forks
 * made by C code count too).  An object that holds a claim, a lease or a
 * block remembers the value it was made under; a different value means it
 * now lives in a child, where it must not mint under the parent's
 * identity.
 */
extern uint64_t cid_bind_fork_generation;

/*
 * Start the generators and the fork handler, once per process however
 * often it is called (module init of every interpreter, every worker).
 * In a child of fork() the monotonic ULID starts afresh: one that went on
 * from the parent's last value would mint the parent's next ULIDs.
 * CID_OK, or the failing init's status (every later call returns it too).
 */
int			cid_bind_start(void);

/* ------------------------------------------------------------------------
 * Claims
 * ------------------------------------------------------------------------ */

/*
 * The process's generator of the lowest free node in [first, last] under
 * its claim (host-wide when host, else this process's own; scope NULL is
 * "default", dir NULL the claim directory in force): numbers held by
 * another process are skipped, any other failure (a directory the core
 * will not trust, a bad layout) returns at once.  CID_OK with *out and
 * *node set; otherwise the status with err saying why: for one number
 * the core's words (a held one gets the advice of what to do instead, and
 * *holder its holder's pid, 0 when unknown), for a range every number's
 * fate ("every node 0..7 of layout pgedge is claimed in scope default
 * (/dir)"); another failure names the node ("node 3: ...").
 */
int			cid_bind_claim(cid_claimed_snowflake **out, uint64_t *node, const char *scope,
						   uint64_t first, uint64_t last, const cid_layout *layout,
						   const cid_snowflake_opts *opts, bool host, const char *dir,
						   long *holder, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * The generated kinds
 * ------------------------------------------------------------------------ */

/*
 * A kind of ID the module-level functions make: one ID into its bytes, n
 * of them (the core's batch step: one clock reading and one random request
 * for the whole batch, so fill is what a binding calls, n = 1 included),
 * its text, and the smallest or largest ID of a time.  next and fill mint
 * from the kind's generator in the set g the binding passes
 * (&cid_bind_gen, or a set of its own): the table holds no generator, so
 * that it serves every set.
 */
typedef struct cid_bind_kind
{
	const char *what;			/* for messages: "UUIDv7" */
	int			(*next) (cid_bind_gens *g, uint8_t *out);
	int			(*fill) (cid_bind_gens *g, uint8_t *out, size_t n);
	size_t		size;			/* bytes of one ID */
	size_t		text_len;		/* characters of its text */
	void		(*format) (char *out, const uint8_t *bytes);	/* NUL-terminated */

	/*
	 * The smallest (rest NULL) or largest (rest 16 bytes of 0xff) ID of the
	 * time unit holding ms; NULL for a kind without time.
	 */
	int			(*at) (uint8_t *out, int64_t ms, const uint8_t *rest);
	const char *span;			/* the times it holds, for messages */
} cid_bind_kind;

extern const cid_bind_kind cid_bind_uuidv7;
extern const cid_bind_kind cid_bind_uuidv4;
extern const cid_bind_kind cid_bind_uuidv6;
extern const cid_bind_kind cid_bind_ulid;
extern const cid_bind_kind cid_bind_ulid_mono;
extern const cid_bind_kind cid_bind_objectid;
extern const cid_bind_kind cid_bind_ksuid;

/*
 * Bytes a JSON array of n texts of len characters takes with its NUL:
 * n * (len + 3) + 2 for n > 0, 3 for "[]" (one byte to spare otherwise).
 */
#define CID_BIND_JSON_BYTES(n, len) ((n) * ((len) + 3) + 3)

/*
 * The text of n IDs of kind k (their bytes, one after the other) as the
 * JSON array ["a","b",...] and a NUL, into json, which holds
 * CID_BIND_JSON_BYTES(n, k->text_len) bytes and must not overlap bytes.
 * No text needs escaping (every kind's is letters, digits and '-').
 * Returns the array's length; n = 0 gives "[]".
 */
size_t		cid_bind_json(const cid_bind_kind *k, char *json, const uint8_t *bytes, size_t n);

/* ------------------------------------------------------------------------
 * Block allocator options
 * ------------------------------------------------------------------------ */

/* The integer options of a block allocator, in the order of their names. */
#define CID_BIND_BLOCK_NOPTS 7

/* Each option's name in each language's spelling. */
typedef struct cid_bind_opt_name
{
	const char *snake;			/* Python: "target_ms" */
	const char *camel;			/* JavaScript: "targetMs" */
} cid_bind_opt_name;

extern const cid_bind_opt_name cid_bind_block_opt_names[CID_BIND_BLOCK_NOPTS];

#ifdef CID_BIND_LEASE

/* The defaults (cid_block_opts_default's), into v. */
void		cid_bind_block_defaults(uint64_t v[CID_BIND_BLOCK_NOPTS]);

/*
 * opts for sequence, conninfo (NULL: the PG* variables) and the values v
 * (each at most CID_BIND_MAX_OPTION), checked by the allocator's own rules
 * before any connection: CID_OK, or CID_EINVAL with the reason in err.
 * The strings are not copied.
 */
int			cid_bind_block_opts(cid_block_opts *opts, const char *sequence,
								const char *conninfo, const uint64_t v[CID_BIND_BLOCK_NOPTS],
								char *err, size_t errlen);

#endif							/* CID_BIND_LEASE: the lease library is compiled in */

/* ------------------------------------------------------------------------
 * Snowflake policy options (a generator's and a lease's)
 * ------------------------------------------------------------------------ */

/* An option not given: its default. */
#define CID_BIND_UNSET INT64_MIN

/* The policy options, the policies as the core's numbers (each language maps its names). */
typedef enum cid_bind_policy_opt
{
	CID_BIND_POLICY_ON_BEHIND,
	CID_BIND_POLICY_MAX_DRIFT_MS,
	CID_BIND_POLICY_MAX_WAIT_MS,
	CID_BIND_POLICY_ON_EXHAUSTED,
	CID_BIND_POLICY_MAX_BORROW_TICKS,
	CID_BIND_POLICY_NOPTS
} cid_bind_policy_opt;

extern const cid_bind_opt_name cid_bind_policy_opt_names[CID_BIND_POLICY_NOPTS];

/*
 * Whether v is within [lo, hi]; if not, err says "name v is out of range:
 * expected lo..hi" then unit and ctx, the name spelled as the caller's
 * language spells it (camel: JavaScript's).
 */
bool		cid_bind_in_range(int64_t v, int64_t lo, int64_t hi, const cid_bind_opt_name *name,
							  bool camel, const char *unit, const char *ctx, char *err,
							  size_t errlen);

/*
 * The policy values v (CID_BIND_UNSET: leave opts' value) checked and set
 * in opts: the policies the core's numbers, drift and wait 0 .. 2^63 / 10^6
 * ms (no overflow in ns), borrowed ticks 0 .. 2^32 - 1.  CID_OK, or
 * CID_EINVAL with err naming the value and what was expected; opts is
 * then unchanged.
 */
int			cid_bind_snowflake_policy(cid_snowflake_opts *opts,
									  const int64_t v[CID_BIND_POLICY_NOPTS], bool camel,
									  char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Lease options
 * ------------------------------------------------------------------------ */

/* The integer options of a lease, indexes into cid_bind_lease_opt_names. */
typedef enum cid_bind_lease_opt
{
	CID_BIND_LEASE_TTL_MS,
	CID_BIND_LEASE_GRACE_MS,
	CID_BIND_LEASE_CLOCK_WAIT_MS,
	CID_BIND_LEASE_LO,
	CID_BIND_LEASE_HI,
	CID_BIND_LEASE_NOPTS
} cid_bind_lease_opt;

extern const cid_bind_opt_name cid_bind_lease_opt_names[CID_BIND_LEASE_NOPTS];

#ifdef CID_BIND_LEASE

/*
 * A lease's options, checked: opts is what the library is given, and
 * points into layout and sf, so the struct must stay where it was filled
 * until the library call returns.
 */
typedef struct cid_bind_lease_args
{
	cid_lease_opts opts;
	cid_layout	layout;
	cid_snowflake_opts sf;
} cid_bind_lease_args;

/*
 * Check a lease's options before any connection and fill *a: layout (NULL:
 * "pgedge"), conninfo (NULL: the PG* variables), schema (NULL: "chronoid"),
 * owner (NULL: host:pid), the integer options v and the generator's
 * policy (CID_BIND_UNSET where not given; any other value is checked,
 * negatives included), renew (false: no background renewer).  Absent lo is 1, absent hi the layout's largest
 * node (at most 2^31 - 1); hi 0 is refused, since the library reads 0..0
 * as the whole range.  CID_OK, or CID_EINVAL with err naming the value
 * and what was expected, the option spelled as the caller's language
 * spells it (camel: JavaScript's).  The strings are not copied.
 */
int			cid_bind_lease_opts(cid_bind_lease_args *a, const cid_layout *layout,
								const char *conninfo, const char *schema, const char *owner,
								const int64_t v[CID_BIND_LEASE_NOPTS],
								const int64_t policy[CID_BIND_POLICY_NOPTS], bool renew,
								bool camel, char *err, size_t errlen);

#endif							/* CID_BIND_LEASE */

#endif							/* CID_BIND_INTERNAL_H */
