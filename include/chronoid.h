/*
 * chronoid.h — libchronoid: unique, time-sortable IDs of eight kinds
 * (Snowflake, UUIDv7, ULID, TypeID, UUIDv6 with v1 conversion, MongoDB
 * ObjectId, KSUID, UUIDv4): generators, encoders, decoders and inspection.
 *
 * Conventions
 *   - Every public name starts with cid_ / CID_.
 *   - Functions return an int status: CID_OK (0) on success, a positive
 *     CID_W... value for "succeeded, but" (the ID is valid), a negative
 *     CID_E... value on failure (outputs are then left unspecified).
 *     cid_strerror() names each one.
 *   - Output parameter first; text parsers take (const char *s, size_t len)
 *     and never read past len; they need no NUL terminator.
 *   - The core allocates nothing and does no I/O (node claims, at the end,
 *     are the one exception: they are lock files).  Time and randomness come
 *     from a cid_env (NULL means the platform's: CLOCK_REALTIME and a
 *     buffered, fork-safe getrandom()).  Every generator also has a pure
 *     "_at" step that takes the time and random bytes as arguments.
 *   - Generators are caller-owned structs.  Initialise them with their
 *     _init function; never copy one that is in use.  All generator calls
 *     are thread-safe; IDs from one generator strictly increase across
 *     all threads that use it.
 *   - The header compiles as C11 and as C++ (declarations in extern "C");
 *     the library itself is C11.
 */
#ifndef CHRONOID_H
#define CHRONOID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CID_MUST_CHECK __attribute__((warn_unused_result))
#else
#define CID_MUST_CHECK
#endif

/*
 * CID_API marks what the shared libraries export.  They are built with
 * -fvisibility=hidden and a linker version script (src/libchronoid.map,
 * db/lease/libchronoid_lease.map), so a function declared without it stays
 * inside the library; tests/abi/abi.sh checks that the exported symbols
 * are exactly the ones the public headers declare.  A program that
 * compiles the sources into itself may define CID_API first (e.g. empty).
 */
#ifndef CID_API
#if defined(__GNUC__) || defined(__clang__)
#define CID_API __attribute__((visibility("default")))
#else
#define CID_API
#endif
#endif

/*
 * The library's version, its one home: the Makefile, the pkg-config file,
 * `chronoid --version` and cid_version() all take it from here.  Semantic
 * versioning; the shared library's soname changes only with the ABI
 * (docs/design.md, "ABI").  CID_VERSION_STRING is "0.2.0";
 * CID_VERSION_NUMBER is 10000 * major + 100 * minor + patch (200), for
 * "#if CID_VERSION_NUMBER >= ..." tests.
 */
#define CID_VERSION_MAJOR 0
#define CID_VERSION_MINOR 2
#define CID_VERSION_PATCH 0
#define CID_VERSION_XSTR_(x) #x
#define CID_VERSION_STR_(x) CID_VERSION_XSTR_(x)
#define CID_VERSION_STRING CID_VERSION_STR_(CID_VERSION_MAJOR) "." \
	CID_VERSION_STR_(CID_VERSION_MINOR) "." CID_VERSION_STR_(CID_VERSION_PATCH)
#define CID_VERSION_NUMBER \
	(CID_VERSION_MAJOR * 10000 + CID_VERSION_MINOR * 100 + CID_VERSION_PATCH)

/*
 * Storage that the library reads and writes atomically (a generator's
 * state word, a spin lock).  Opaque: callers never touch it.  Declared as
 * aligned bytes rather than as _Atomic, which C++ does not have, so that
 * C++ programs can embed the generators too.
 */
typedef struct cid_atomic_word
{
#ifdef __cplusplus
	alignas(8) unsigned char opaque_[8];
#else
	_Alignas(8) unsigned char opaque_[8];
#endif
} cid_atomic_word;

/* ------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------ */

enum
{
	CID_OK = 0,

	/* Success with a remark: the ID is valid and unique. */
	CID_WCLOCK_BEHIND = 1,		/* clock behind the last tick: issued on the
								 * last tick, running ahead of the clock */
	CID_WTICK_BORROWED = 2,		/* sequence exhausted: issued on a future
								 * tick (borrow policy) */

	/* Failures. */
	CID_EINVAL = -1,			/* bad argument (NULL pointer, bad option) */
	CID_ENODE = -2,				/* node outside the layout's range */
	CID_ELAYOUT = -3,			/* invalid Snowflake layout */
	CID_ESYNTAX = -4,			/* text has a character that is not allowed
								 * at the reported position */
	CID_ELENGTH = -5,			/* text has the wrong length */
	CID_EOVERFLOW = -6,			/* value does not fit its format (ULID above
								 * 7ZZZZZZZZZZZZZZZZZZZZZZZZZ, decimal above
								 * the layout's bits, bits set that the
								 * layout keeps zero) */
	CID_ETIME_RANGE = -7,		/* time outside what the format can hold
								 * (before the epoch, after the field's end,
								 * outside 48-bit Unix ms) */
	CID_ECLOCK_BACKWARDS = -8,	/* clock behind the last tick (fail policy) */
	CID_EDRIFT = -9,			/* clock behind by more than the allowed
								 * drift (run-ahead policy) */
	CID_EWAIT_TIMEOUT = -10,	/* waited the allowed time, clock still
								 * behind the last tick (wait policy) */
	CID_EEXHAUSTED = -11,		/* sequence exhausted and the borrow limit
								 * reached (borrow policy) */
	CID_EMONOTONIC_OVERFLOW = -12,	/* monotonic ULID: random part would
									 * overflow within one millisecond */
	CID_ERANDOM = -13,			/* the random source failed */
	CID_ECLOCK = -14,			/* the clock could not be read */
	CID_ENOTIME = -15,			/* the ID carries no timestamp */
	CID_EUNKNOWN = -16,			/* text is no known ID form */
	CID_EAGAIN = -17,			/* pure step only: the generator must wait
								 * for the clock (the _next driver waits) */
	CID_ENODE_HELD = -18,		/* node claim: another live process on this
								 * host (or this one) holds the number */
	CID_ECLAIM = -19,			/* node claim: the claim directory or lock
								 * file cannot be used safely (message says
								 * why) */
	CID_EFORKED = -20			/* node claim: inherited through fork(); it
								 * belongs to the parent process */
};

/*
 * Name of a status code, e.g. "clock moved backwards".  Never NULL; unknown
 * codes give "unknown status".
 */
CID_API const char *cid_strerror(int status);

/*
 * The version of the library actually running, e.g. "0.2.0": the
 * CID_VERSION_STRING it was built with, which may differ from the one a
 * program was compiled against when the shared library was upgraded
 * underneath it.  Never NULL; static storage, not to be freed.
 */
CID_API const char *cid_version(void);

/*
 * The same as a number, CID_VERSION_NUMBER of the running library
 * (10000 * major + 100 * minor + patch: 200 for 0.2.0); compare it with
 * the CID_VERSION_NUMBER a program was compiled with to require a minimum.
 */
CID_API int	cid_version_number(void);

/* ------------------------------------------------------------------------
 * Environment: where time and randomness come from
 * ------------------------------------------------------------------------ */

/* Current Unix time in nanoseconds (CLOCK_REALTIME); negative on failure. */
typedef int64_t (*cid_clock_fn) (void *ctx);

/*
 * Fill buf with len cryptographically secure random bytes; 0 on success,
 * negative on failure.
 */
typedef int (*cid_random_fn) (void *ctx, void *buf, size_t len);

/*
 * Wait about ns nanoseconds.  Callers re-read the clock afterwards; the
 * Snowflake driver also counts the time asked for toward its wait budget
 * (so that a clock that never moves cannot hang it), so a sleep that
 * returns much earlier than asked shortens that budget.
 */
typedef void (*cid_sleep_fn) (void *ctx, int64_t ns);

/*
 * A generator's view of the world.  A NULL cid_env pointer, or a NULL
 * member, means the platform's default for that member.  Tests inject a
 * fake clock and a deterministic random source here.
 */
typedef struct cid_env
{
	cid_clock_fn clock;
	cid_random_fn random;
	cid_sleep_fn sleep;
	void	   *ctx;			/* passed to all three */
} cid_env;

/* The platform defaults (src/platform.c). */
CID_API int64_t	cid_platform_clock(void *ctx);
CID_API int	cid_platform_random(void *ctx, void *buf, size_t len);
CID_API void	cid_platform_sleep(void *ctx, int64_t ns);

/*
 * Buffered, fork-safe random bytes over any raw source.  The buffer is per
 * thread; a child process after fork() never reuses bytes its parent held
 * (the buffer is discarded in the child).  cid_platform_random() is this
 * over getrandom(2); the PostgreSQL extension plugs in pg_strong_random().
 * cid_random_set_source() replaces the raw source for the whole process
 * (call it before any generator runs); NULL restores getrandom().
 */
typedef int (*cid_raw_random_fn) (void *buf, size_t len);
CID_API void	cid_random_set_source(cid_raw_random_fn fill);
CID_API int	cid_random_bytes(void *buf, size_t len) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * Time text (UTC, proleptic Gregorian calendar)
 * ------------------------------------------------------------------------ */

#define CID_TIME_STRLEN 25		/* longest output, without the NUL */

/*
 * RFC 3339 UTC with milliseconds: "2022-02-22T19:22:22.000Z".  Years past
 * 9999 (ULIDs and UUIDv7s reach 10889) are written with five digits;
 * years before 0000 give CID_ETIME_RANGE.  out holds CID_TIME_STRLEN + 1.
 */
CID_API int	cid_time_format(char *out, int64_t unix_ms) CID_MUST_CHECK;

/*
 * Parse "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[.fff][Z]" (a space may stand for
 * T; only UTC: a trailing Z or nothing) or a plain integer of Unix ms.
 * CID_ESYNTAX with *errpos at the first bad character; CID_ETIME_RANGE for
 * impossible fields (month 13, February 30, hour 24).
 */
CID_API int	cid_time_parse(int64_t *unix_ms, const char *s, size_t len,
						   size_t *errpos) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * Snowflake layouts
 * ------------------------------------------------------------------------ */

typedef enum cid_field_kind
{
	CID_FIELD_TIME = 0,
	CID_FIELD_NODE = 1,
	CID_FIELD_SEQ = 2,
	CID_FIELD_RESERVED = 3
} cid_field_kind;

#define CID_LAYOUT_MAX_FIELDS 4
#define CID_LAYOUT_NAME_MAX 32

/*
 * A Snowflake bit layout.  Fields are listed from the most significant bit
 * down; the time field comes first (IDs must sort by time).  Widths add up
 * to 63 (bit 63 stays 0, IDs fit a signed bigint) or 64 (the time field may
 * reach bit 63: see cid_layout_negative_from_ms()).  Node and reserved
 * fields are optional (width 0 = absent).  Reserved bits are always 0 in
 * generated IDs.  Fill it with cid_layout_preset() or cid_layout_parse();
 * a hand-built one must pass cid_layout_validate().
 */
typedef struct cid_layout
{
	char		name[CID_LAYOUT_NAME_MAX];	/* preset name, or "custom" */
	int			nfields;
	cid_field_kind order[CID_LAYOUT_MAX_FIELDS];	/* MSB first */
	uint8_t		bits[4];		/* width, indexed by cid_field_kind */
	uint8_t		shift[4];		/* lowest bit, indexed by cid_field_kind
								 * (set by cid_layout_validate) */
	uint32_t	tick_ms;		/* length of one time unit: 1 .. 1000 ms */
	int64_t		epoch_ms;		/* Unix ms of tick 0 */
} cid_layout;

/*
 * Fill *out with a named preset: "pgedge" (the default: pgEdge snowflake
 * 2.6), "twitter", "sonyflake", "instagram", "discord".  CID_EINVAL for an
 * unknown name.
 */
CID_API int	cid_layout_preset(cid_layout *out, const char *name) CID_MUST_CHECK;

/* The preset names, NULL-terminated. */
extern CID_API const char *const cid_layout_preset_names[];

/*
 * Parse a layout text spec (docs/layouts.md has the grammar), e.g.
 *   "time:42,seq:12,reserved:10;epoch=2025-01-01;tick=1ms"
 * On failure returns CID_ELAYOUT (or CID_ESYNTAX) and, when err is not
 * NULL, writes a one-line message naming the offending part into err.
 */
CID_API int	cid_layout_parse(cid_layout *out, const char *spec, size_t len,
							 char *err, size_t errlen) CID_MUST_CHECK;

/* A preset name or else a spec: what the CLI's --layout accepts. */
CID_API int	cid_layout_resolve(cid_layout *out, const char *name_or_spec,
							   char *err, size_t errlen) CID_MUST_CHECK;

/* Check a hand-filled layout and compute its shifts; message as above. */
CID_API int	cid_layout_validate(cid_layout *layout, char *err, size_t errlen) CID_MUST_CHECK;

/* Largest node number of the layout (0 when it has no node field). */
CID_API uint64_t	cid_layout_max_node(const cid_layout *layout);

/* Last Unix ms the time field can represent (end of the last tick). */
CID_API int64_t	cid_layout_max_ms(const cid_layout *layout);

/*
 * For a 64-bit layout, the first Unix ms whose IDs have bit 63 set (they
 * read as negative signed bigints); INT64_MAX for a 63-bit layout.
 */
CID_API int64_t	cid_layout_negative_from_ms(const cid_layout *layout);

/* Write the canonical spec of a layout (parseable by cid_layout_parse). */
CID_API int	cid_layout_format(char *out, size_t outlen, const cid_layout *layout);

/* ------------------------------------------------------------------------
 * Snowflake values
 * ------------------------------------------------------------------------ */

typedef struct cid_snowflake_parts
{
	int64_t		unix_ms;		/* start of the tick, Unix ms */
	uint64_t	tick;			/* raw time field */
	uint64_t	node;
	uint64_t	sequence;
	uint64_t	reserved;
} cid_snowflake_parts;

/*
 * Split id under layout.  CID_EOVERFLOW when id has bits the layout cannot
 * have set (bit 63 of a 63-bit layout) or reserved bits that are not 0.
 */
CID_API int	cid_snowflake_decode(cid_snowflake_parts *out, const cid_layout *layout,
								 uint64_t id) CID_MUST_CHECK;

/*
 * Build an ID from its parts (parts->unix_ms is used, parts->tick
 * ignored).  CID_ETIME_RANGE when the instant is before the epoch or past
 * the time field; CID_ENODE / CID_EOVERFLOW when node or sequence is too wide.
 */
CID_API int	cid_snowflake_compose(uint64_t *id, const cid_layout *layout,
								  const cid_snowflake_parts *parts) CID_MUST_CHECK;

/*
 * Smallest / largest ID that any node can mint in the tick holding unix_ms:
 * bounds for time-range queries (WHERE id >= min AND id <= max).
 * CID_ETIME_RANGE outside the layout's time range.
 */
CID_API int	cid_snowflake_min_at(uint64_t *id, const cid_layout *layout, int64_t unix_ms) CID_MUST_CHECK;
CID_API int	cid_snowflake_max_at(uint64_t *id, const cid_layout *layout, int64_t unix_ms) CID_MUST_CHECK;

/*
 * Parse decimal text (digits only; a leading '-' only for 64-bit layouts,
 * read as a two's-complement bigint) and check it against the layout as
 * cid_snowflake_decode does.  errpos gets the first bad character.
 */
CID_API int	cid_snowflake_parse(uint64_t *id, const cid_layout *layout,
								const char *s, size_t len, size_t *errpos) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * Snowflake generator
 * ------------------------------------------------------------------------ */

/* What to do when the clock reads earlier than the last tick issued. */
typedef enum cid_behind_policy
{
	CID_BEHIND_RUN_AHEAD = 0,	/* default: keep issuing after the last
								 * tick (CID_WCLOCK_BEHIND) while the clock
								 * is at most max_drift_ms behind; beyond:
								 * CID_EDRIFT */
	CID_BEHIND_WAIT = 1,		/* sleep until the clock catches up, at most
								 * max_wait_ms; then CID_EWAIT_TIMEOUT */
	CID_BEHIND_FAIL = 2			/* CID_ECLOCK_BACKWARDS at once */
} cid_behind_policy;

/* What to do when a tick's sequence numbers are used up. */
typedef enum cid_exhaust_policy
{
	CID_EXHAUST_WAIT = 0,		/* default: wait for the clock's next tick */
	CID_EXHAUST_BORROW = 1		/* issue on the next tick now
								 * (CID_WTICK_BORROWED) while at most
								 * max_borrow_ticks ahead of the clock;
								 * beyond: CID_EEXHAUSTED */
} cid_exhaust_policy;

typedef struct cid_snowflake_opts
{
	cid_behind_policy on_behind;
	int64_t		max_drift_ms;	/* RUN_AHEAD bound (default 1000) */
	int64_t		max_wait_ms;	/* WAIT bound (default 1000) */
	cid_exhaust_policy on_exhausted;
	uint64_t	max_borrow_ticks;	/* BORROW bound (default 1000) */
} cid_snowflake_opts;

/* The defaults above. */
CID_API void	cid_snowflake_opts_default(cid_snowflake_opts *opts);

typedef struct cid_snowflake_gen
{
	cid_layout	layout;
	uint64_t	node;
	cid_snowflake_opts opts;
	cid_env		env;
	/* last issued (tick << seq bits | sequence); the only mutable state */
	cid_atomic_word state;
} cid_snowflake_gen;

/*
 * Prepare a generator.  layout NULL = "pgedge"; opts NULL = defaults; env
 * NULL = platform.  CID_ENODE when node > cid_layout_max_node(layout);
 * CID_ELAYOUT for an invalid layout.
 */
CID_API int	cid_snowflake_init(cid_snowflake_gen *gen, const cid_layout *layout,
							   uint64_t node, const cid_snowflake_opts *opts,
							   const cid_env *env) CID_MUST_CHECK;

/*
 * Next ID, reading the clock and waiting as the policies say.  Returns
 * CID_OK, CID_WCLOCK_BEHIND or CID_WTICK_BORROWED with *id set, or a
 * negative status (CID_EDRIFT, CID_EWAIT_TIMEOUT, CID_ECLOCK_BACKWARDS,
 * CID_EEXHAUSTED, CID_ETIME_RANGE before the epoch or past the time field,
 * CID_ECLOCK).
 */
CID_API int	cid_snowflake_next(cid_snowflake_gen *gen, uint64_t *id) CID_MUST_CHECK;

/*
 * Pure step: the next ID for clock reading now_ns, never waiting.  Where
 * the driver would wait (sequence exhausted under the wait policy, clock
 * behind under the wait policy) it returns CID_EAGAIN and issues nothing.
 */
CID_API int	cid_snowflake_next_at(cid_snowflake_gen *gen, int64_t now_ns,
								  uint64_t *id) CID_MUST_CHECK;

/* The position before any: what cid_snowflake_step() takes for "none yet". */
#define CID_SNOWFLAKE_NONE UINT64_MAX

/*
 * The pure decision of cid_snowflake_next_at, for callers that keep the
 * state themselves (in shared memory, on a database page) and make a step
 * stick with their own atomic operation or lock: the position to issue
 * after last (tick << sequence bits | sequence, as gen->state holds it;
 * CID_SNOWFLAKE_NONE when nothing was issued yet) for clock reading now_ns,
 * by gen's layout and policies.  gen->state is neither read nor written.
 * Returns as cid_snowflake_next_at, with *next set when the status is not
 * negative; CID_EAGAIN where the driver would wait.  A caller racing others
 * should load last before reading the clock, as the driver does: a reading
 * older than last otherwise looks like a clock that went back.
 */
CID_API int	cid_snowflake_step(const cid_snowflake_gen *gen, uint64_t last,
							   int64_t now_ns, uint64_t *next) CID_MUST_CHECK;

/*
 * Fill ids[0..n) with increasing IDs, reserving whole runs of a tick's
 * sequence numbers with one atomic operation.  Returns as cid_snowflake_next
 * for the whole batch (the first remark seen); on failure *done says how
 * many were written (done may be NULL).
 */
CID_API int	cid_snowflake_fill(cid_snowflake_gen *gen, uint64_t *ids, size_t n,
							   size_t *done) CID_MUST_CHECK;

/*
 * Make gen's next ID come from a tick after the one holding Unix
 * millisecond last_ms: what a new holder of a node number does with the
 * previous holder's last millisecond (a node claim's mark, a lease's
 * not-before), so that a handover never repeats the previous holder's last
 * tick, even when this host's clock is behind it (then the behind policy
 * applies).  Never moves gen back; a last_ms before the layout's epoch
 * changes nothing.  CID_ETIME_RANGE when last_ms lies past the time field;
 * CID_EINVAL for a NULL gen.  Thread-safe against concurrent minting.
 */
CID_API int	cid_snowflake_start_after(cid_snowflake_gen *gen, int64_t last_ms) CID_MUST_CHECK;

/*
 * The last Unix millisecond of the tick of gen's last issued position: no
 * ID gen issued lies after it.  INT64_MIN before the first ID (and for a
 * NULL gen).
 */
CID_API int64_t	cid_snowflake_last_ms(const cid_snowflake_gen *gen);

/* ------------------------------------------------------------------------
 * UUIDs (RFC 9562)
 * ------------------------------------------------------------------------ */

#define CID_UUID_STRLEN 36		/* canonical text, without the NUL */

/*
 * A cid_uuid (and a cid_ulid) is exactly its 16 bytes, aligned as bytes:
 * an array of n of them is any buffer of 16 * n bytes, which is what the
 * batch calls (cid_*_fill, cid_*_format_many, cid_*_parse_many) take, so
 * a language binding can hand them its own byte buffer.
 */
typedef struct cid_uuid
{
	uint8_t		bytes[16];		/* network byte order, as RFC 9562 */
} cid_uuid;

/*
 * Parse the canonical form (8-4-4-4-12 hex digits), either case, the
 * 32-digit form without hyphens, or either of those in braces.  CID_ELENGTH
 * for any other length, CID_ESYNTAX for a bad character (its index in
 * *errpos when errpos is not NULL).
 */
CID_API int	cid_uuid_parse(cid_uuid *out, const char *s, size_t len, size_t *errpos) CID_MUST_CHECK;

/* Canonical lower-case text; out must hold CID_UUID_STRLEN + 1 bytes. */
CID_API void	cid_uuid_format(char *out, const cid_uuid *uuid);

/*
 * Batch text: n UUIDs in canonical lower-case text, each followed by sep
 * ('\n' gives lines, '\0' C strings), CID_UUID_STRLEN + 1 bytes apart;
 * out must hold n * (CID_UUID_STRLEN + 1) bytes, which is what it returns.
 * No NUL is added after the last sep.  Table-driven, no locale.
 */
CID_API size_t	cid_uuid_format_many(char *out, const cid_uuid *uuids, size_t n, char sep);

/*
 * Batch parse: n texts of exactly CID_UUID_STRLEN characters in the
 * canonical form (8-4-4-4-12, either case; not the bare or braced forms),
 * the i-th at s + i * stride, whatever lies between them (a separator)
 * unread; stride >= CID_UUID_STRLEN.  Stops at the first bad text: its
 * status (CID_ESYNTAX), *done (when not NULL) the number decoded before it
 * (all n on success), *errpos (when not NULL) the bad character's offset
 * from s.  out[*done] onwards are unspecified after a failure.  n = 0
 * gives CID_OK; NULL out or s with n > 0, a short stride, or n * stride
 * beyond SIZE_MAX give CID_EINVAL.
 */
CID_API int	cid_uuid_parse_many(cid_uuid *out, const char *s, size_t n, size_t stride,
								size_t *done, size_t *errpos) CID_MUST_CHECK;

/*
 * Version nibble (0..15) for the RFC 9562 variant (10xx); -1 for any other
 * variant, nil and max included.
 */
CID_API int	cid_uuid_version(const cid_uuid *uuid);

/*
 * Creation time in Unix ms (floor) for versions 1, 6 and 7 of the RFC
 * variant; CID_ENOTIME for every other version or variant.  v1/v6 times
 * before 1970 give a negative value.
 */
CID_API int	cid_uuid_unix_ms(int64_t *unix_ms, const cid_uuid *uuid) CID_MUST_CHECK;

/* A v4 UUID from 16 random bytes (version and variant bits overwritten). */
CID_API void	cid_uuidv4_from_bytes(cid_uuid *out, const uint8_t rand[16]);

/* A fresh v4 UUID from env's random source (env NULL = platform). */
CID_API int	cid_uuidv4_new(cid_uuid *out, const cid_env *env) CID_MUST_CHECK;

/*
 * n fresh v4 UUIDs into out[0..n) (n * 16 bytes), their random bytes
 * drawn from env's source in one request.  All or nothing: CID_ERANDOM
 * (out unspecified), CID_EINVAL for out NULL with n > 0 or n above
 * SIZE_MAX / 16; n = 0 gives CID_OK and draws nothing.
 */
CID_API int	cid_uuidv4_fill(cid_uuid *out, size_t n, const cid_env *env) CID_MUST_CHECK;

/*
 * A v7 UUID for a given instant: unix_ms in the 48-bit field, rand_a 12
 * bits and rand_b 62 bits from rand[10] (2 + 8 bytes), or all zero when
 * rand is NULL (the smallest v7 of that millisecond: a range boundary).
 * CID_ETIME_RANGE outside 0 .. 2^48-1.
 */
CID_API int	cid_uuidv7_from_ms(cid_uuid *out, int64_t unix_ms, const uint8_t *rand) CID_MUST_CHECK;

/*
 * UUIDv7 generator (RFC 9562 section 6.2 method 3, as PostgreSQL 18): the
 * 12 rand_a bits hold the sub-millisecond fraction floor(ns * 4096 / 1e6);
 * when the clock has not advanced past the last UUID, the (ms, fraction)
 * pair steps by one (so it may run ahead of a stalled or backward clock);
 * rand_b is random.
 */
typedef struct cid_uuidv7_gen
{
	cid_env		env;
	/* last (unix_ms << 12 | fraction), before any shift */
	cid_atomic_word state;
} cid_uuidv7_gen;

CID_API int	cid_uuidv7_init(cid_uuidv7_gen *gen, const cid_env *env) CID_MUST_CHECK;
CID_API int	cid_uuidv7_next(cid_uuidv7_gen *gen, cid_uuid *out) CID_MUST_CHECK;

/*
 * As cid_uuidv7_next, with the embedded time moved by shift_us
 * microseconds (PostgreSQL 18's uuidv7(interval)).  Ordering holds among
 * calls with the same shift.  CID_ETIME_RANGE (nothing issued) when the
 * shifted time leaves 0 .. 2^48-1 ms.
 */
CID_API int	cid_uuidv7_next_shifted(cid_uuidv7_gen *gen, int64_t shift_us,
									cid_uuid *out) CID_MUST_CHECK;

/* Pure step: clock now_ns, 8 random bytes for rand_b. */
CID_API int	cid_uuidv7_next_at(cid_uuidv7_gen *gen, int64_t now_ns, int64_t shift_us,
							   const uint8_t rand_b[8], cid_uuid *out) CID_MUST_CHECK;

/*
 * Fill out[0..n) with n UUIDv7s (n * 16 bytes, contiguous), exactly as n
 * calls of cid_uuidv7_next would make them while the clock stands still:
 * one clock reading, and one compare-and-swap that reserves n consecutive
 * (ms, fraction) positions, so the batch strictly increases, sorts after
 * everything this generator issued before it and before everything after
 * it, in every thread.  A batch therefore runs up to n / 4096 ms ahead of
 * the clock, as single calls do when they come faster than 4,096 per ms;
 * a clock that stalls or goes back is stepped past in the same way.
 * rand_b is 8 bytes per UUID from env's random source, drawn in one
 * request into the back half of out before the UUIDs are written over it
 * (so no buffer of the library's own; out must not overlap anything else
 * the caller needs).  n = 0 returns CID_OK and reads nothing.
 * Returns CID_OK; CID_EINVAL (gen NULL, out NULL with n > 0, n above
 * SIZE_MAX / 16); CID_ECLOCK or CID_ERANDOM (nothing issued);
 * CID_ETIME_RANGE when the positions run past 2^48 - 1 ms (those that fit
 * are issued).  *done (done may be NULL) is the number of UUIDs written:
 * n on success, less on failure, and they are valid.
 */
CID_API int	cid_uuidv7_fill(cid_uuidv7_gen *gen, cid_uuid *out, size_t n,
							size_t *done) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * ULID (https://github.com/ulid/spec)
 * ------------------------------------------------------------------------ */

#define CID_ULID_STRLEN 26		/* Crockford base32 text, without the NUL */

typedef struct cid_ulid
{
	uint8_t		bytes[16];		/* 48-bit ms big-endian, then 80 random bits */
} cid_ulid;

/*
 * Decode 26 Crockford base32 characters, case-insensitive.  CID_ELENGTH for
 * another length; CID_ESYNTAX for a character outside the alphabet (I, L,
 * O and U included: no aliases), its index in *errpos; CID_EOVERFLOW when
 * the first character is above '7' (value above 2^128-1).
 */
CID_API int	cid_ulid_parse(cid_ulid *out, const char *s, size_t len, size_t *errpos) CID_MUST_CHECK;

/* Upper-case text; out must hold CID_ULID_STRLEN + 1 bytes. */
CID_API void	cid_ulid_format(char *out, const cid_ulid *ulid);

/*
 * Batch text, as cid_uuid_format_many: n ULIDs in upper case, each
 * followed by sep, CID_ULID_STRLEN + 1 bytes apart; returns (and out must
 * hold) n * (CID_ULID_STRLEN + 1) bytes.
 */
CID_API size_t	cid_ulid_format_many(char *out, const cid_ulid *ulids, size_t n, char sep);

/*
 * Batch parse, as cid_uuid_parse_many: n texts of CID_ULID_STRLEN
 * characters, stride bytes apart; CID_ESYNTAX or CID_EOVERFLOW (as
 * cid_ulid_parse) for the first bad one, with *done and *errpos.
 */
CID_API int	cid_ulid_parse_many(cid_ulid *out, const char *s, size_t n, size_t stride,
								size_t *done, size_t *errpos) CID_MUST_CHECK;

/* The 48-bit millisecond timestamp. */
CID_API int64_t	cid_ulid_unix_ms(const cid_ulid *ulid);

/*
 * A ULID for unix_ms with the 10 random bytes given, or a zero random part
 * when rand is NULL (range boundary).  CID_ETIME_RANGE outside 0 .. 2^48-1.
 */
CID_API int	cid_ulid_from_ms(cid_ulid *out, int64_t unix_ms, const uint8_t *rand) CID_MUST_CHECK;

/* The same 128 bits, retyped (a ULID as UUID is generally not a v7). */
CID_API void	cid_ulid_to_uuid(cid_uuid *out, const cid_ulid *ulid);
CID_API void	cid_ulid_from_uuid(cid_ulid *out, const cid_uuid *uuid);

/*
 * ULID generator.  Plain mode: fresh random bits every time (random order
 * within a millisecond, as the spec's default).  Monotonic mode: within
 * the same millisecond (or when the clock is behind the last ULID) the
 * random part of the last ULID plus one; CID_EMONOTONIC_OVERFLOW when that
 * would overflow 80 bits.  The 128-bit state needs a short spin lock in
 * monotonic mode (docs/uuid-ulid.md says why); plain mode takes no lock.
 */
typedef struct cid_ulid_gen
{
	cid_env		env;
	bool		monotonic;
	cid_atomic_word lock;		/* a spin lock over last */
	uint8_t		last[16];
} cid_ulid_gen;

CID_API int	cid_ulid_init(cid_ulid_gen *gen, bool monotonic, const cid_env *env) CID_MUST_CHECK;
CID_API int	cid_ulid_next(cid_ulid_gen *gen, cid_ulid *out) CID_MUST_CHECK;

/* Pure step: clock now_ms, 10 random bytes (used only when needed). */
CID_API int	cid_ulid_next_at(cid_ulid_gen *gen, int64_t now_ms, const uint8_t rand[10],
							 cid_ulid *out) CID_MUST_CHECK;

/*
 * Fill out[0..n) with n ULIDs (n * 16 bytes, contiguous), as n calls of
 * cid_ulid_next would make them within one clock reading.  Plain mode:
 * fresh random bits for each (10 bytes per ULID, drawn in one request,
 * staged in the back part of out), no shared state, no order within the
 * millisecond.  Monotonic mode: one pass through the spin lock reserves n
 * consecutive values (the last ULID's random part plus 1 .. n, or a fresh
 * random start in a new millisecond: 10 random bytes per batch, not per
 * ULID), so the batch strictly increases and sorts between what the
 * generator issued before and after it, in every thread; a clock that
 * stalls or goes back keeps the last ULID's millisecond, as single calls
 * do.  When the 80-bit random part runs out in the middle of a batch, the
 * values that fit are issued and CID_EMONOTONIC_OVERFLOW is returned.
 * n = 0 returns CID_OK and reads nothing.  Other statuses: CID_EINVAL
 * (gen NULL, out NULL with n > 0, n above SIZE_MAX / 16), CID_ECLOCK,
 * CID_ERANDOM, CID_ETIME_RANGE (nothing issued).  *done (done may be NULL)
 * is the number of ULIDs written, all valid.
 */
CID_API int	cid_ulid_fill(cid_ulid_gen *gen, cid_ulid *out, size_t n,
						  size_t *done) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * TypeID (github.com/jetify-com/typeid, spec 0.3.0): a type prefix, '_',
 * and a UUID's 128 bits in 26 lower-case Crockford base32 digits
 * ------------------------------------------------------------------------ */

#define CID_TYPEID_PREFIX_MAX 63	/* longest type prefix */
#define CID_TYPEID_SUFFIX_LEN 26	/* the base32 UUID */
#define CID_TYPEID_STRLEN_MAX 90	/* prefix, '_' and suffix, without the NUL */

/*
 * Check a type prefix: 0 to 63 characters of a-z and '_', neither the
 * first nor the last one '_' (runs of '_' inside are allowed; the empty
 * prefix is valid and means a TypeID of the bare 26 digits).  CID_ELENGTH
 * above 63 characters (*errpos = 63, the first one too many); CID_ESYNTAX
 * for a character not allowed there (digits, upper case, bytes above
 * 127, a leading or trailing '_'), its index in *errpos; CID_EINVAL for
 * prefix NULL with len > 0.  errpos may be NULL.
 */
CID_API int	cid_typeid_prefix_check(const char *prefix, size_t len, size_t *errpos) CID_MUST_CHECK;

/*
 * Write a TypeID: prefix, '_' and the 26 lower-case digits of uuid (no
 * '_' when prefix_len is 0), then a NUL, into out (outlen bytes:
 * prefix_len + 28 are enough, CID_TYPEID_STRLEN_MAX + 1 always).  Returns
 * the text's length (26 .. 90).  Any UUID is written (the spec lets
 * callers encode other versions than 7).  A bad prefix gives
 * cid_typeid_prefix_check's status (call it for the position); CID_EINVAL
 * for out or uuid NULL, or outlen too small.  On failure out is untouched.
 */
CID_API int	cid_typeid_format(char *out, size_t outlen, const char *prefix, size_t prefix_len,
							  const cid_uuid *uuid) CID_MUST_CHECK;

/*
 * Parse a TypeID: the separator is the last '_' of s; without one the
 * whole text is the suffix and the prefix is empty (so a bare 26-digit
 * TypeID reads the same digits as a ULID would, but in lower case only).
 * On success *out is the UUID (any version or variant) and *prefix_len
 * (when not NULL) the prefix's length: the prefix is s[0 .. *prefix_len).
 * Refusals, the first problem from the left, *errpos (when not NULL) its
 * index in s:
 *   CID_ELENGTH   empty text, a prefix above 63 characters (*errpos = 63)
 *                 or a suffix other than 26 characters (*errpos = where
 *                 the suffix starts, len for an empty one);
 *   CID_ESYNTAX   a character the prefix may not hold (as
 *                 cid_typeid_prefix_check), a '_' with no prefix before it
 *                 ("_0123..."), or a suffix character outside
 *                 0123456789abcdefghjkmnpqrstvwxyz (upper case, i, l, o,
 *                 u, '-' and spaces included: the spec is strict);
 *   CID_EOVERFLOW the suffix's first digit above '7' (more than 128 bits),
 *                 *errpos at that digit;
 *   CID_EINVAL    out NULL, or s NULL with len > 0.
 */
CID_API int	cid_typeid_parse(cid_uuid *out, size_t *prefix_len, const char *s, size_t len,
							 size_t *errpos) CID_MUST_CHECK;

/*
 * A fresh TypeID: the next UUIDv7 of gen (cid_uuidv7_next: ordered among
 * all the generator issues) written under prefix as cid_typeid_format
 * does; uuid (may be NULL) gets the UUID.  The prefix is checked first,
 * so a bad one consumes nothing from the generator.  Returns the text's
 * length, or the prefix's, the buffer's (CID_EINVAL) or the generator's
 * status (CID_ECLOCK, CID_ERANDOM, CID_ETIME_RANGE).
 */
CID_API int	cid_typeid_next(cid_uuidv7_gen *gen, char *out, size_t outlen,
							const char *prefix, size_t prefix_len, cid_uuid *uuid) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * UUID versions 1 and 6 (RFC 9562 sections 5.1 and 5.6): the Gregorian
 * time-based UUIDs (Cassandra's TimeUUID is version 1)
 * ------------------------------------------------------------------------ */

/* 100-ns intervals from 1582-10-15T00:00:00Z to the Unix epoch. */
#define CID_UUID_GREGORIAN_OFFSET INT64_C(0x01B21DD213814000)

/*
 * The 60-bit timestamp of a version 1 or 6 UUID of the RFC variant: the
 * count of 100-ns intervals since 1582-10-15T00:00:00Z, in *ticks.
 * CID_ENOTIME for every other version or variant.  Subtract
 * CID_UUID_GREGORIAN_OFFSET for 100-ns units since the Unix epoch
 * (negative before 1970); the field runs out in the year 5236.
 */
CID_API int	cid_uuid_gregorian_ticks(uint64_t *ticks, const cid_uuid *uuid) CID_MUST_CHECK;

/*
 * RFC 9562 section 5.6: the same timestamp, clock sequence and node with
 * the time's bits in most-significant-first order, so that v6 UUIDs sort
 * by time as bytes (and v6 -> v1 back).  in and out may be the same.
 * CID_EINVAL when in is not a version 1 (resp. 6) UUID of the RFC variant.
 */
CID_API int	cid_uuid_v1_to_v6(cid_uuid *out, const cid_uuid *in) CID_MUST_CHECK;
CID_API int	cid_uuid_v6_to_v1(cid_uuid *out, const cid_uuid *in) CID_MUST_CHECK;

/*
 * A v6 UUID for a given timestamp: ticks (100 ns since 1582-10-15, below
 * 2^60) and 8 bytes rand, whose first 2 give the 14-bit clock sequence
 * and whose last 6 the node, with the multicast bit set as RFC 9562
 * section 6.10 asks of a random node; rand NULL gives clock sequence and
 * node 0 (the smallest v6 of that 100-ns tick: a range boundary).
 * CID_ETIME_RANGE when ticks >= 2^60.
 */
CID_API int	cid_uuidv6_from_ticks(cid_uuid *out, uint64_t ticks, const uint8_t *rand) CID_MUST_CHECK;

/*
 * UUIDv6 generator: the clock in 100-ns ticks; when it has not advanced
 * past the last UUID (same tick, or a clock that went back) the tick steps
 * by one, so one generator's UUIDs strictly increase across threads
 * (lock-free, as the v7 generator); clock sequence and node random per
 * UUID (RFC 9562 section 5.6's SHOULD; section 6.10: a random node is as
 * good as a MAC address and leaks nothing).
 *
 * A clock that goes back: RFC 9562 keeps a v1 unique by a changed clock
 * sequence, but v6 sorts by the time field first, so a UUID with
 * the earlier time would sort below those already issued whatever its
 * clock sequence.  This generator instead issues the last tick + 1 (the
 * timestamp runs ahead of the clock, section 6.2's allowance) until the
 * clock passes it again, then the clock's own tick; the same for a clock
 * read many times within one tick.  The clock sequence is never bumped:
 * it is random each time.  The 60-bit field ends in the year 5236, which
 * no int64 clock reaches; steps past it fail with CID_ETIME_RANGE.
 */
typedef struct cid_uuidv6_gen
{
	cid_env		env;
	cid_atomic_word state;		/* last tick issued; 0 before any */
} cid_uuidv6_gen;

CID_API int	cid_uuidv6_init(cid_uuidv6_gen *gen, const cid_env *env) CID_MUST_CHECK;
CID_API int	cid_uuidv6_next(cid_uuidv6_gen *gen, cid_uuid *out) CID_MUST_CHECK;

/*
 * Pure step: clock now_ns (Unix ns, >= 0; CID_ETIME_RANGE before 1970),
 * 8 random bytes as cid_uuidv6_from_ticks takes them.
 */
CID_API int	cid_uuidv6_next_at(cid_uuidv6_gen *gen, int64_t now_ns, const uint8_t rand[8],
							   cid_uuid *out) CID_MUST_CHECK;

/*
 * Fill out[0..n) with n UUIDv6s (n * 16 bytes, contiguous), exactly as n
 * calls of cid_uuidv6_next would make them while the clock stands still:
 * one clock reading, and one compare-and-swap that reserves n consecutive
 * ticks from max(the clock's tick, the last one issued + 1), so the batch
 * strictly increases, sorts after everything this generator issued before
 * it and before everything after it, in every thread.  A batch therefore
 * runs up to n ticks (100 ns each) ahead of the clock, and a clock that
 * stalls or goes back is stepped past as by single calls.  Clock sequence
 * and node are 8 random bytes per UUID from env's source, drawn in one
 * request into the back half of out before the UUIDs are written over it
 * (out must not overlap anything else the caller needs).  n = 0 returns
 * CID_OK and reads nothing.  Returns CID_OK; CID_EINVAL (gen NULL, out
 * NULL with n > 0, n above SIZE_MAX / 16); CID_ECLOCK or CID_ERANDOM
 * (nothing issued); CID_ETIME_RANGE when the ticks run past 2^60 - 1 (those
 * that fit are issued; no int64 clock gets there).  *done (done may be
 * NULL) is the number of UUIDs written: n on success, less on failure, and
 * they are valid.  cid_uuidv6_next is this with n = 1.
 */
CID_API int	cid_uuidv6_fill(cid_uuidv6_gen *gen, cid_uuid *out, size_t n,
							size_t *done) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * MongoDB ObjectId (the BSON ObjectID specification)
 * ------------------------------------------------------------------------ */

#define CID_OBJECTID_STRLEN 24	/* hex text, without the NUL */

/*
 * 12 bytes: Unix seconds (32 bits, big-endian, unsigned: until
 * 2106-02-07T06:28:15Z), 5 bytes random per process, a 24-bit big-endian
 * counter.
 */
typedef struct cid_objectid
{
	uint8_t		bytes[12];
} cid_objectid;

/*
 * Decode 24 hex digits, either case.  CID_ELENGTH for another length,
 * CID_ESYNTAX for a non-hex character (its index in *errpos).
 */
CID_API int	cid_objectid_parse(cid_objectid *out, const char *s, size_t len,
							   size_t *errpos) CID_MUST_CHECK;

/* Lower-case hex, as MongoDB prints it; out must hold CID_OBJECTID_STRLEN + 1. */
CID_API void	cid_objectid_format(char *out, const cid_objectid *oid);

/* The creation time in Unix ms (the seconds times 1000; never negative). */
CID_API int64_t	cid_objectid_unix_ms(const cid_objectid *oid);

/*
 * An ObjectId for the second holding unix_ms (floor), with the 8 bytes
 * rest (5 process bytes, 3 counter bytes) after it, or zeros when rest is
 * NULL (the smallest ObjectId of that second: a range boundary, as
 * MongoDB's ObjectId.createFromTime).  CID_ETIME_RANGE outside
 * 1970-01-01 .. 2106-02-07T06:28:15.999Z.
 */
CID_API int	cid_objectid_from_ms(cid_objectid *out, int64_t unix_ms,
								 const uint8_t *rest) CID_MUST_CHECK;

/*
 * ObjectId generator, as the specification asks: 5 random bytes drawn
 * once (at init, and again in a child process after fork(), which must
 * never mint its parent's), and a counter that starts at a random value,
 * steps by one for every ObjectId and wraps from 0xffffff to 0.  Lock-free
 * and thread-safe: the process bytes and the counter are one atomic word.
 * ObjectIds do not strictly increase: the counter starts anywhere and
 * wraps, so only the seconds order them; they are unique while one
 * generator makes fewer than 2^24 in a second.
 *
 * A clock that goes back: the seconds follow it (the specification asks
 * for no order, and a second field ahead of the clock would misdate the
 * ObjectId), while the counter steps on, never back; so an ObjectId of a
 * second met again differs from the earlier ones of that second, unless
 * 2^24 ObjectIds were made in between.  A clock read many times within
 * one second: the counter alone tells them apart, and its 2^24 + 1st
 * value is its first again.
 */
typedef struct cid_objectid_gen
{
	cid_env		env;
	cid_atomic_word state;		/* process bytes << 24 | counter */
	cid_atomic_word epoch;		/* the process (fork) the state is of */
} cid_objectid_gen;

/* Draws the process bytes and the counter's start from env's random source. */
CID_API int	cid_objectid_init(cid_objectid_gen *gen, const cid_env *env) CID_MUST_CHECK;

/*
 * Next ObjectId: reads env's clock; in a child after fork() first draws new
 * process bytes and counter.  CID_ETIME_RANGE outside the 32-bit seconds,
 * CID_ECLOCK, CID_ERANDOM.
 */
CID_API int	cid_objectid_next(cid_objectid_gen *gen, cid_objectid *out) CID_MUST_CHECK;

/* Pure step: clock now_ns; the process bytes and counter of gen's state. */
CID_API int	cid_objectid_next_at(cid_objectid_gen *gen, int64_t now_ns,
								 cid_objectid *out) CID_MUST_CHECK;

/*
 * Fill out[0..n) with n ObjectIds (n * 12 bytes, contiguous: a cid_objectid
 * is exactly its 12 bytes, so any byte buffer does), exactly as n calls of
 * cid_objectid_next would make them while the clock stands still: one
 * clock reading (in a child after fork() first new process bytes and
 * counter, as the single call), and one compare-and-swap that reserves n
 * consecutive counter values, so the counter steps by one from each
 * ObjectId to the next, on from the last single call or batch, with no
 * other thread's in between; it wraps from 0xffffff to 0 inside a batch
 * as anywhere else (a batch of more than 2^24 repeats its own ObjectIds,
 * as that many single calls in one second would).  No random bytes.
 * n = 0 returns CID_OK and reads nothing.  Returns CID_OK; CID_EINVAL (gen
 * NULL, out NULL with n > 0, n above SIZE_MAX / 12); CID_ECLOCK,
 * CID_ERANDOM (the draw after fork()), CID_ETIME_RANGE outside the 32-bit
 * seconds: all or nothing, the counter untouched on failure.  *done (done
 * may be NULL) is the number written: n or 0.  cid_objectid_next is this
 * with n = 1.
 */
CID_API int	cid_objectid_fill(cid_objectid_gen *gen, cid_objectid *out, size_t n,
							  size_t *done) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * KSUID (segmentio/ksuid, the reference implementation)
 * ------------------------------------------------------------------------ */

#define CID_KSUID_STRLEN 27		/* base62 text, without the NUL */
#define CID_KSUID_EPOCH_S INT64_C(1400000000)	/* 2014-05-13T16:53:20Z */

/*
 * 20 bytes: seconds since CID_KSUID_EPOCH_S (32 bits, big-endian, until
 * 2150-06-19T23:21:35Z), then a 16-byte random payload.
 */
typedef struct cid_ksuid
{
	uint8_t		bytes[20];
} cid_ksuid;

/*
 * Decode 27 base62 characters (0-9, A-Z, a-z: case matters).  CID_ELENGTH
 * for another length; CID_ESYNTAX for a character outside the alphabet,
 * its index in *errpos; CID_EOVERFLOW (*errpos 0) for a value above
 * 2^160 - 1, the largest being "aWgEPTl1tmebfsQzFP4bxwgy80V".
 */
CID_API int	cid_ksuid_parse(cid_ksuid *out, const char *s, size_t len,
							size_t *errpos) CID_MUST_CHECK;

/* Base62 text, zero-padded to 27; out must hold CID_KSUID_STRLEN + 1. */
CID_API void	cid_ksuid_format(char *out, const cid_ksuid *ksuid);

/* The creation time in Unix ms (seconds, times 1000). */
CID_API int64_t	cid_ksuid_unix_ms(const cid_ksuid *ksuid);

/*
 * A KSUID for the second holding unix_ms (floor) with the 16-byte payload
 * given, or a zero payload when payload is NULL (the smallest KSUID of
 * that second: a range boundary).  This is the generator's pure step.
 * CID_ETIME_RANGE outside 2014-05-13T16:53:20Z .. 2150-06-19T23:21:35.999Z.
 */
CID_API int	cid_ksuid_from_ms(cid_ksuid *out, int64_t unix_ms,
							  const uint8_t *payload) CID_MUST_CHECK;

/*
 * A fresh KSUID: env's clock (seconds, floor) and 16 bytes from env's
 * random source (env NULL = platform), as the reference's New().  No
 * state, so no order within a second.  CID_ECLOCK, CID_ERANDOM,
 * CID_ETIME_RANGE.
 */
CID_API int	cid_ksuid_new(cid_ksuid *out, const cid_env *env) CID_MUST_CHECK;

/*
 * n fresh KSUIDs into out[0..n) (n * 20 bytes, contiguous: a cid_ksuid is
 * exactly its 20 bytes), as n calls of cid_ksuid_new while the clock
 * stands still: one clock reading, and the 16-byte payloads (as random as
 * the single call's) drawn from env's source (env NULL = platform) in one
 * request into the back of out before the KSUIDs are written over them.
 * No state, so no order within the second.  All or nothing: CID_ECLOCK,
 * CID_ETIME_RANGE (before the random source is asked), CID_ERANDOM (out
 * unspecified); CID_EINVAL for out NULL with n > 0 or n above SIZE_MAX /
 * 20; n = 0 gives CID_OK and reads nothing.  cid_ksuid_new is this with
 * n = 1.
 */
CID_API int	cid_ksuid_fill(cid_ksuid *out, size_t n, const cid_env *env) CID_MUST_CHECK;

/* ------------------------------------------------------------------------
 * Inspection of any ID
 * ------------------------------------------------------------------------ */

typedef enum cid_kind
{
	CID_KIND_SNOWFLAKE = 1,
	CID_KIND_UUID = 2,
	CID_KIND_ULID = 3,
	/* Only cid_inspect_id() gives these; cid_inspect() never does. */
	CID_KIND_OBJECTID = 4,
	CID_KIND_KSUID = 5,
	CID_KIND_TYPEID = 6			/* reserved for TypeID (prefix_ + base32) */
} cid_kind;

typedef struct cid_info
{
	cid_kind	kind;
	uint8_t		bytes[16];		/* UUID or ULID value */
	uint64_t	snowflake;		/* Snowflake value */
	int			version;		/* UUID: 0..15, or -1 (non-RFC variant) */
	bool		has_time;
	int64_t		unix_ms;
	bool		has_node;		/* Snowflake with a node field */
	uint64_t	node;
	bool		has_sequence;	/* Snowflake */
	uint64_t	sequence;
} cid_info;

/*
 * Classify text by its form and decode it: 36, 38 (braced), 32 or 34
 * (braced) characters → UUID; 26 → ULID; 1..20 decimal digits (or '-' and
 * digits) → Snowflake under layout (NULL = "pgedge").  CID_EUNKNOWN when no form
 * fits, otherwise that parser's status and errpos.
 */
CID_API int	cid_inspect(cid_info *out, const char *s, size_t len,
						const cid_layout *layout, size_t *errpos) CID_MUST_CHECK;

/*
 * What cid_inspect_id() finds: every kind, with room to grow.  The caller
 * passes sizeof(cid_id_info) as it was compiled; a later library that
 * appends fields writes only that many bytes, so this struct only ever
 * grows at its end and programs built against it keep working.
 */
#define CID_ID_INFO_BYTES 32	/* room for the value's bytes */
#define CID_ID_INFO_PREFIX_MAX 63	/* longest TypeID prefix, without NUL */

typedef struct cid_id_info
{
	cid_kind	kind;
	int			version;		/* UUID: 0..15, or -1 (non-RFC variant);
								 * -1 for every other kind */
	size_t		nbytes;			/* bytes[] in use: 16 (UUID, ULID, TypeID),
								 * 12 (ObjectId), 20 (KSUID), 0 (Snowflake) */
	uint8_t		bytes[CID_ID_INFO_BYTES];	/* the value, big-endian */
	uint64_t	snowflake;		/* Snowflake value */
	bool		has_time;
	int64_t		unix_ms;		/* creation time, floor to the ms */
	int32_t		sub_ms_ns;		/* 0..999999: what the ID holds below
								 * unix_ms (UUID v1/v6: 100-ns steps) */
	int64_t		precision_ns;	/* the time field's unit: 100 (UUID v1/v6),
								 * 10^6 (v7, ULID, TypeID), 10^9 (ObjectId,
								 * KSUID), the tick (Snowflake); 0 without
								 * a time */
	bool		has_node;		/* Snowflake node; UUID v1/v6 node (48
								 * bits); ObjectId process bytes (40) */
	uint64_t	node;
	bool		has_sequence;	/* Snowflake sequence; UUID v1/v6 clock
								 * sequence (14 bits); ObjectId counter */
	uint64_t	sequence;
	char		prefix[CID_ID_INFO_PREFIX_MAX + 1];	/* TypeID type prefix,
													 * NUL-terminated; "" */
} cid_id_info;

/*
 * Classify text by its form and decode it, as cid_inspect() does, and
 * more: text with a '_' and no '-' → TypeID (cid_typeid_parse: prefix[]
 * and the UUID's bytes, version and time; a bare 26-character TypeID is
 * a ULID's text and reads as a ULID); 24 characters → MongoDB ObjectId
 * (hex); 27 → KSUID (base62); the
 * UUID, ULID and Snowflake forms as cid_inspect(), with a UUID v1/v6's
 * full 100-ns time, node and clock sequence.  out_size is
 * sizeof(cid_id_info) of the caller's header: CID_EINVAL below this
 * version's size; out receives min(out_size, the library's size) bytes.
 * CID_EUNKNOWN when no form fits, otherwise that parser's status and
 * errpos.
 */
CID_API int	cid_inspect_id(cid_id_info *out, size_t out_size, const char *s, size_t len,
						   const cid_layout *layout, size_t *errpos) CID_MUST_CHECK;

/*
 * The kind's name as the faces print it: "snowflake", "uuid", "ulid",
 * "objectid", "ksuid", "typeid"; "unknown" for any other value.  Never
 * NULL; static storage.
 */
CID_API const char *cid_kind_name(cid_kind kind);

/* ------------------------------------------------------------------------
 * Node claims: one live holder per Snowflake node number on this host
 * ------------------------------------------------------------------------ */

/*
 * Two generators that mint Snowflakes with the same layout and node number
 * mint the same IDs.  A claim is a host-wide, crash-proof "this number is
 * mine": an open file description lock (fcntl F_OFD_SETLK) on the lock
 * file DIR/SCOPE.NODE.lock, which belongs to this user alone.  The kernel
 * drops it when its holder closes it, exits or is killed, so a crashed
 * holder never leaves a stale claim; anyone else asking for a held number,
 * in another process, another copy of this library in the same process or
 * the same copy, gets CID_ENODE_HELD and the holder's pid.
 *
 * A claim also carries its mark, the last Unix millisecond in which any
 * holder of the number may have issued an ID, kept in the lock file:
 * cid_node_claim_start() makes a new holder's generator begin after it and
 * cid_node_claim_cover() moves it before an ID leaves the holder.  So a
 * number handed over (released and claimed again in the same tick, by
 * this process or another, after a crash, or after the clock stepped back)
 * never repeats the previous holder's IDs.  The mark lives as long as the
 * file: a directory on a tmpfs (the default) forgets it at boot.
 *
 * This is the one part of libchronoid that does I/O and allocates
 * (src/node_claim.c); nothing else calls it.  Why these locks
 * (docs/node-claims.md has the whole story): an open file description
 * lock conflicts with every other description, whoever opened it, and is
 * never dropped by closing some other descriptor of the file; a forked
 * child's copies are closed in the child at once (pthread_atfork), so the
 * child holds nothing of its parent's and an inherited handle reports
 * CID_EFORKED.
 *
 * The directory: the dir argument, else $CHRONOID_CLAIM_DIR, else
 * CID_CLAIM_DIR_DEFAULT; an absolute path.  Only its last component is
 * created when missing: the default one shared by every user (mode 1777,
 * like /tmp), any other private (0700).  It must be local (locks over NFS
 * are not to be trusted), a real directory (not a symbolic link), owned by
 * root or by this process's effective user, and sticky if others may write
 * into it.  A lock file must be a regular file of this user with one link
 * (made 0600); otherwise CID_ECLAIM.  A hostile local user can deny
 * numbers (hold them, plant files under their names) but cannot remove,
 * replace, rewrite or alias a lock file of yours, so cannot make two
 * holders of one claim.  Processes in different containers see different
 * directories unless one is mounted into both.
 *
 * The scope names the ID space a number belongs to (an application, a
 * database, a layout): claims of different scopes never collide.  1 ..
 * CID_CLAIM_SCOPE_MAX characters of [A-Za-z0-9_.-], not starting with
 * '.'; NULL means "default".
 */
#define CID_CLAIM_SCOPE_MAX 64
#define CID_CLAIM_DIR_ENV "CHRONOID_CLAIM_DIR"
#ifdef __linux__
#define CID_CLAIM_DIR_DEFAULT "/run/lock/chronoid"
#else
#define CID_CLAIM_DIR_DEFAULT "/tmp/chronoid-claims"
#endif

typedef struct cid_node_claim cid_node_claim;

/*
 * Claim node under scope in dir (NULL: see above).  On success *out is a
 * new claim, held until cid_node_claim_release or the end of the process.
 * CID_ENODE_HELD when it is held: *holder_pid (when not NULL) gets the
 * holder's pid as its record says (0 when unknown), and err names the
 * number, the scope and the pid, with "(this process)" for a claim of this
 * process.  CID_EINVAL for a NULL out, a bad scope or a relative dir;
 * CID_ECLAIM when the directory or the lock file fails the rules above or
 * a system call fails (err says which and why).  err (errlen bytes, may be
 * NULL) always gets a NUL-terminated message on failure.  Thread-safe.
 */
CID_API int	cid_node_claim_acquire(cid_node_claim **out, const char *scope,
								   uint64_t node, const char *dir, long *holder_pid,
								   char *err, size_t errlen) CID_MUST_CHECK;

/*
 * A claim of node under scope within this process only (no file): for a
 * generator whose number the application keeps unique across processes
 * itself.  It refuses a second live claim of the key in this process
 * (CID_ENODE_HELD) and carries the mark from one holder to the next here,
 * as a host-wide claim does; other processes and other copies of the
 * library do not see it.  CID_EINVAL as cid_node_claim_acquire.
 */
CID_API int	cid_node_claim_local(cid_node_claim **out, const char *scope,
								 uint64_t node, char *err, size_t errlen) CID_MUST_CHECK;

/*
 * Give the number back and free the claim; its mark stays in the file and
 * in this process for the next holder.  In a child process after fork()
 * it only frees the memory: the parent's claim stands.  NULL is a no-op.
 */
CID_API void	cid_node_claim_release(cid_node_claim *claim);

/*
 * CID_OK while this process holds the claim; CID_EFORKED in a child after
 * fork() (a generator built on it must not mint there: the parent may).
 */
CID_API int	cid_node_claim_status(const cid_node_claim *claim);

/*
 * The claim's mark: the last Unix ms any holder may have issued in
 * (INT64_MIN when none ever did).
 */
CID_API int64_t	cid_node_claim_mark_ms(const cid_node_claim *claim);

/*
 * Make gen, which mints under this claim, begin after the mark
 * (cid_snowflake_start_after).  Call it once, before gen's first ID.
 * CID_EINVAL for NULL arguments; CID_ETIME_RANGE as start_after.
 */
CID_API int	cid_node_claim_start(cid_node_claim *claim, cid_snowflake_gen *gen) CID_MUST_CHECK;

/*
 * Record that gen (minting under this claim) issued up to its current
 * position: call it after every next or fill of gen and before the IDs
 * leave the caller.  It costs two atomic loads while gen stays within a
 * tick already recorded, and one write to the lock file when it enters a
 * new one.  CID_EFORKED for a claim inherited through fork(); CID_ECLAIM
 * when the file cannot be written (the IDs must then not be used);
 * CID_EINVAL for NULL arguments.  Thread-safe.
 */
CID_API int	cid_node_claim_cover(cid_node_claim *claim,
								 const cid_snowflake_gen *gen) CID_MUST_CHECK;

/*
 * The claimed number, and the lock file's path ("" for an in-process
 * claim; valid until release).
 */
CID_API uint64_t	cid_node_claim_node(const cid_node_claim *claim);
CID_API const char *cid_node_claim_path(const cid_node_claim *claim);

/*
 * The directory a NULL dir means now: $CHRONOID_CLAIM_DIR when set and not
 * empty, else CID_CLAIM_DIR_DEFAULT.  Never NULL.
 */
CID_API const char *cid_node_claim_dir(void);

/*
 * A claimed Snowflake generator: this process's one generator of (scope,
 * node), shared by everyone in the process who opens the key (threads, the
 * objects of a language package), holding its claim and covering every ID
 * with the claim's mark.  The language packages are built on it.
 */
typedef struct cid_claimed_snowflake cid_claimed_snowflake;

/*
 * Open the process's generator of (scope, node) (scope NULL = "default";
 * layout NULL = "pgedge"; opts NULL = defaults).  The first open makes it:
 * claims the number, host-wide in dir when host (cid_node_claim_acquire's
 * rules and errors, *holder_pid included) or in this process only
 * (cid_node_claim_local), and starts after the claim's mark.  Later opens
 * share it and count; one that asks for a host-wide claim of a generator
 * that holds a local one takes the host-wide claim first.  CID_ENODE_HELD
 * for an open with another layout or other policies than the generator's.
 * In a child after fork(), the parent's generators are not found: an open
 * makes the child's own.  err as cid_node_claim_acquire.  Thread-safe.
 */
CID_API int	cid_claimed_snowflake_open(cid_claimed_snowflake **out, const char *scope,
									   uint64_t node, const cid_layout *layout,
									   const cid_snowflake_opts *opts, bool host,
									   const char *dir, long *holder_pid,
									   char *err, size_t errlen) CID_MUST_CHECK;

/*
 * Close one open; the last close releases the claim (its mark stays for
 * the next holder) and frees the generator.  NULL is a no-op.
 */
CID_API void	cid_claimed_snowflake_close(cid_claimed_snowflake *g);

/*
 * Next ID and a batch, as cid_snowflake_next and cid_snowflake_fill, each
 * covered by the claim's mark before it returns; CID_EFORKED in a child
 * after fork() (the parent may be minting under the same number), and
 * CID_ECLAIM when the mark cannot be written (no ID may be used then).
 */
CID_API int	cid_claimed_snowflake_next(cid_claimed_snowflake *g, uint64_t *id) CID_MUST_CHECK;
CID_API int	cid_claimed_snowflake_fill(cid_claimed_snowflake *g, uint64_t *ids, size_t n,
									   size_t *done) CID_MUST_CHECK;

/*
 * For callers that drive the generator themselves (a pure step with a
 * clock of their own, a wait without a language's global lock): the
 * generator, and the cover every issue through it must end with.  cover
 * returns status when it is negative, else the cover's failure or status.
 */
CID_API cid_snowflake_gen *cid_claimed_snowflake_gen(cid_claimed_snowflake *g);
CID_API int	cid_claimed_snowflake_cover(cid_claimed_snowflake *g, int status) CID_MUST_CHECK;

/*
 * CID_OK while this process holds the claim; CID_EFORKED in a child after
 * fork().  The lock file's path ("" for an in-process claim) and the scope.
 */
CID_API int	cid_claimed_snowflake_status(const cid_claimed_snowflake *g);
CID_API const char *cid_claimed_snowflake_path(const cid_claimed_snowflake *g);
CID_API const char *cid_claimed_snowflake_scope(const cid_claimed_snowflake *g);

#ifdef __cplusplus
}
#endif

#endif							/* CHRONOID_H */
