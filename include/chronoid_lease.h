/*
 * chronoid_lease.h — libchronoid_lease: Snowflake node numbers leased from
 * a PostgreSQL table, renewed in the background, and fenced on the local
 * monotonic clock so that a paused or partitioned process stops minting
 * before its number can be handed to someone else (docs/cluster.md,
 * "Application servers: node leases"); and blocks of a sequence's values
 * handed out locally with prefetch (cid_block_*, docs/block.md).
 *
 * This part links libpq and does I/O; the core (chronoid.h) does not.
 * Link with pkg-config's chronoid-lease (-lchronoid_lease -lchronoid -lpq).
 *
 * Conventions, as the core's: int statuses (CID_OK, negative failures);
 * the lease-specific failures below are below -100 and
 * cid_lease_strerror() names them (and every core status).  Errors from
 * the database (libpq's text) go to a caller-supplied buffer (errbuf,
 * errlen: always NUL-terminated when errlen > 0; may be NULL) or, for the
 * background renewer, to cid_lease_errmsg().  Nothing here prints or
 * calls exit().
 */
#ifndef CHRONOID_LEASE_H
#define CHRONOID_LEASE_H

#include "chronoid.h"

#ifdef __cplusplus
extern "C"
{
#endif

enum
{
	CID_ELEASE_DB = -101,		/* the database could not be reached or a
								 * statement failed (text in errbuf) */
	CID_ELEASE_FULL = -102,		/* every number of the range is held (or
								 * claimed by a database server) */
	CID_ELEASE_EXPIRED = -103,	/* the local deadline passed: stop minting;
								 * the lease is dead for good */
	CID_ELEASE_LOST = -104,		/* the server no longer has this holder on
								 * the number (lapsed, released, taken) */
	CID_ELEASE_FORKED = -105,	/* called in a child after fork(): the
								 * lease belongs to the parent */
	CID_ELEASE_CLOCK = -106,	/* this host's wall clock is behind the
								 * previous holder's IDs by more than the
								 * allowed wait */
	CID_ELEASE_RELEASED = -107	/* the lease was released */
};

/* Name of a status: the lease ones above, else cid_strerror(status). */
CID_API const char *cid_lease_strerror(int status);

/*
 * Monotonic clock in ns (default CLOCK_BOOTTIME, which counts a suspended
 * machine's time, else CLOCK_MONOTONIC); tests inject their own.
 */
typedef int64_t (*cid_lease_mono_fn) (void *ctx);

/* The longest owner text a lease takes, in bytes. */
#define CID_LEASE_OWNER_MAX 255

typedef struct cid_lease_opts
{
	const char *conninfo;		/* libpq conninfo or URI; NULL or "" = the
								 * PG* environment variables */
	const char *schema;			/* schema of the node_lease table (NULL =
								 * "chronoid"); [a-z_][a-z0-9_]*, at most 63 */
	int64_t		ttl_ms;			/* lease length (default 30000; 1000 ..
								 * 86400000) */
	int64_t		grace_ms;		/* safety margin on the server clock before a
								 * lapsed number is handed on (negative =
								 * default max(2000, ttl/5)) */
	uint64_t	lo;				/* range of numbers, inclusive (lo = hi = 0:
								 * 1 .. the layout's largest node) */
	uint64_t	hi;
	const char *owner;			/* free text for people (NULL = host:pid):
								 * at most CID_LEASE_OWNER_MAX bytes, no
								 * control characters (else CID_EINVAL) */
	int64_t		clock_wait_ms;	/* how long acquire may wait for this host's
								 * wall clock to pass the previous holder's
								 * last IDs (negative = default: grace) */
	const cid_layout *layout;	/* NULL = "pgedge" */
	const cid_snowflake_opts *sf_opts;	/* NULL = defaults */
	const cid_env *env;			/* the generator's wall clock etc. (NULL =
								 * platform) */
	cid_lease_mono_fn monotonic;	/* NULL = CLOCK_BOOTTIME (Linux) or
									 * CLOCK_MONOTONIC */
	void	   *mono_ctx;
	bool		no_renewer;		/* true: no background thread (the caller
								 * calls cid_lease_renew itself) */
} cid_lease_opts;

/* Fill *opts with the defaults above. */
CID_API void	cid_lease_opts_default(cid_lease_opts *opts);

/*
 * Create the schema and table if they do not exist (CREATE ... IF NOT
 * EXISTS: safe to run from every process at start).  Needs CREATE rights
 * on the database; plain SQL, no extension.  CID_EINVAL for a bad schema
 * name, CID_ELEASE_DB otherwise on failure.
 */
CID_API int	cid_lease_setup(const cid_lease_opts *opts, char *errbuf,
							size_t errlen) CID_MUST_CHECK;

typedef struct cid_lease cid_lease;

/*
 * Lease the lowest free number of [lo, hi]: one that has no row, or whose
 * row expired more than grace ago on the database server's clock, and that
 * no database server has claimed in snowflake.node_registry (when that
 * table exists).  On success *out is a new lease (free it with
 * cid_lease_release or cid_lease_free), valid until ttl after the moment
 * the request was sent, measured on the monotonic clock; unless
 * opts->no_renewer, a background thread renews it every ttl/3 on its own
 * connection.  When the previous holder's IDs may carry timestamps ahead
 * of this host's wall clock, acquire waits (at most clock_wait_ms) and the
 * lease's generator never issues at or before that time.
 *
 * CID_EINVAL: NULL out, bad range (lo > hi, hi above the layout's largest
 * node), ttl or schema; CID_ELAYOUT; CID_ELEASE_FULL (errbuf names the
 * range and how many numbers are held); CID_ELEASE_CLOCK; CID_ELEASE_DB
 * (also when the table does not exist: run cid_lease_setup first);
 * CID_ERANDOM (holder token).
 */
CID_API int	cid_lease_acquire(cid_lease **out, const cid_lease_opts *opts,
							  char *errbuf, size_t errlen) CID_MUST_CHECK;

/*
 * Next ID under the leased number, or CID_ELEASE_EXPIRED once the local
 * deadline has passed (checked before and after the ID is made, so an ID
 * is never returned whose clock reading came after the deadline, even if
 * the thread was stopped in between), CID_ELEASE_LOST when a renewal found
 * the number gone, CID_ELEASE_FORKED in a child process after fork(),
 * CID_ELEASE_RELEASED; else as cid_snowflake_next.  Never waits for the
 * renewer: one monotonic clock read and atomic loads around the generator.
 * Thread-safe.
 */
CID_API int	cid_lease_next(cid_lease *lease, uint64_t *id) CID_MUST_CHECK;

/*
 * Fill ids[0..n) as cid_snowflake_fill does, under the same fence: when
 * the deadline passes during the batch, the whole batch is discarded
 * (*done = 0, done may be NULL; ids[] may hold burnt values that must not
 * be used) and the fence status returned.
 */
CID_API int	cid_lease_fill(cid_lease *lease, uint64_t *ids, size_t n,
						   size_t *done) CID_MUST_CHECK;

/*
 * Start the background renewer of a lease acquired with no_renewer (e.g.
 * after setting up what a child process needs).  CID_OK when it runs (or
 * already ran); CID_ELEASE_FORKED in a child; CID_EINVAL when the thread
 * cannot be created.
 */
CID_API int	cid_lease_start(cid_lease *lease) CID_MUST_CHECK;

/*
 * Renew now (the background thread calls the same): the server extends
 * expires_at only while the row still has this holder and has not expired
 * on its clock; a lapsed lease is never revived.  CID_ELEASE_EXPIRED when
 * the local deadline had already passed (nothing is sent), CID_ELEASE_LOST
 * (the lease is then fenced at once), CID_ELEASE_DB (the lease stays valid
 * until its deadline; try again), CID_ELEASE_FORKED, CID_ELEASE_RELEASED.
 * Uses the caller's connection: do not call it from two threads at once.
 */
CID_API int	cid_lease_renew(cid_lease *lease, char *errbuf, size_t errlen) CID_MUST_CHECK;

/*
 * 0 while the lease may mint, else the status cid_lease_next would return
 * now (CID_ELEASE_EXPIRED, _LOST, _FORKED, _RELEASED).
 */
CID_API int	cid_lease_status(const cid_lease *lease);

/* The leased number; the holder token (32 hex digits); owner text. */
CID_API uint64_t	cid_lease_node(const cid_lease *lease);
CID_API const char *cid_lease_holder(const cid_lease *lease);

/*
 * Nanoseconds until the local deadline (monotonic clock), 0 or less when
 * it has passed or the lease is otherwise fenced.
 */
CID_API int64_t	cid_lease_remaining_ns(const cid_lease *lease);

/*
 * The previous holder's last reported wall-clock ms plus its ttl (the
 * latest timestamp its IDs can carry), 0 when the number was never held;
 * the lease's IDs all come after it.
 */
CID_API int64_t	cid_lease_not_before_ms(const cid_lease *lease);

/*
 * The last background renewal error, copied into buf (empty when none).
 * Thread-safe.
 */
CID_API void	cid_lease_errmsg(const cid_lease *lease, char *buf, size_t len);

/*
 * Stop the renewer, give the number back at once (the row stays, marked
 * free, with the highest timestamp this process used, so that the next
 * holder's IDs come after it), close the connections and free the lease.
 * The lease is freed whatever happens; the status says whether the server
 * took the release (CID_ELEASE_LOST when it had already lapsed or been
 * taken; CID_ELEASE_DB).  In a child after fork() it only frees memory
 * (the parent's connections and row are left alone).  NULL is a no-op.
 */
CID_API int	cid_lease_release(cid_lease *lease, char *errbuf, size_t errlen);

/*
 * Stop the renewer and free the lease without giving the number back: the
 * row lapses after its ttl (what `chronoid lease acquire` does, for a
 * script that renews by token).  NULL is a no-op.
 */
CID_API void	cid_lease_free(cid_lease *lease);

/*
 * By token, for scripts (`chronoid lease renew/release`): renew or give
 * back number node held by holder, with the conditions above (opts gives
 * the connection, schema and, for renewal, the ttl).  Renewal reports the
 * new expiry in *expires_in_ms when not NULL.  Releasing by token says
 * that the holder has stopped minting: the row keeps the later of its
 * last_ms and this host's clock, with ttl 0.  CID_ELEASE_LOST when the row
 * is not this holder's or has lapsed (a lapsed lease is never revived).
 */
CID_API int	cid_lease_renew_token(const cid_lease_opts *opts, uint64_t node,
								  const char *holder, int64_t *expires_in_ms,
								  char *errbuf, size_t errlen) CID_MUST_CHECK;
CID_API int	cid_lease_release_token(const cid_lease_opts *opts, uint64_t node,
									const char *holder, char *errbuf,
									size_t errlen) CID_MUST_CHECK;

/* One row of the table, as cid_lease_list reports it. */
typedef struct cid_lease_row
{
	uint64_t	node;
	const char *holder;			/* "" for a released number */
	const char *owner;			/* may be "" */
	const char *acquired_at;	/* server text, UTC ("" when unknown) */
	const char *expires_at;		/* "" for a released number */
	int64_t		expires_in_ms;	/* negative: lapsed; INT64_MIN: released */
	int64_t		last_ms;		/* latest timestamp the holder reported
								 * for its IDs, Unix ms; 0: none yet */
	int64_t		ttl_ms;
	bool		live;			/* not lapsed, or within grace */
} cid_lease_row;

/*
 * Call fn for every row, by node.  The pointers in *row live until fn
 * returns.  opts->grace_ms decides "live".
 */
typedef void (*cid_lease_row_fn) (const cid_lease_row *row, void *ctx);
CID_API int	cid_lease_list(const cid_lease_opts *opts, cid_lease_row_fn fn,
						   void *ctx, char *errbuf, size_t errlen) CID_MUST_CHECK;

/* The default grace for a ttl: max(2000, ttl / 5) ms. */
CID_API int64_t	cid_lease_default_grace_ms(int64_t ttl_ms);

/* ------------------------------------------------------------------------
 * Blocks of a sequence's values (docs/block.md; symbol version
 * CHRONOID_LEASE_1.1).  An allocator reserves blocks of consecutive values
 * of a PostgreSQL sequence with the extension's nextval_block() (chronoid
 * 0.6.0 or later in that database), one round trip per block, and hands
 * them out locally.  A background thread fetches the next block once
 * prefetch_pct of the current one is used (double buffering), sized so
 * that a block lasts about target_ms at the rate IDs were taken lately.
 *
 * Guarantees: no value is returned twice, within or across processes and
 * threads (the server never gives a value to two blocks, nor one that
 * nextval() gave); values from one allocator increase.  A process that
 * dies loses what it held: the rest of its current block and, once
 * fetched, the next block (gaps, never repeats).  next() keeps answering
 * from the blocks in hand while the database is unreachable or paused; it
 * waits (at most wait_ms) only when both are used up.
 * ------------------------------------------------------------------------ */

enum
{
	CID_EBLOCK_DB = -111,		/* no value in hand and no block came from
								 * the database within wait_ms (why:
								 * cid_block_errmsg) */
	CID_EBLOCK_EXHAUSTED = -112,	/* the sequence has no value left before
									 * its MAXVALUE */
	CID_EBLOCK_FORKED = -113	/* called in a child after fork(): the
								 * allocator belongs to the parent */
};

typedef struct cid_block_opts
{
	const char *conninfo;		/* libpq conninfo or URI; NULL or "" = the
								 * PG* environment variables */
	const char *sequence;		/* the sequence, schema-qualified
								 * ("public.order_ids"): names are resolved
								 * with search_path = pg_catalog, pg_temp.
								 * Required */
	int64_t		target_ms;		/* how long a block should last (default
								 * 60000; 10 .. 86400000) */
	int64_t		min_size;		/* bounds of the adaptive block size
								 * (default 16 .. 1000000; 1 <= min <= max
								 * <= 1000000000) */
	int64_t		max_size;
	int64_t		initial_size;	/* the first block (0 = 1000, within the
								 * bounds) */
	int			prefetch_pct;	/* fetch the next block once this share of
								 * the current one is used (default 10;
								 * 0 .. 99) */
	int64_t		wait_ms;		/* how long next() waits for a block when
								 * none is in hand (default 10000; 0: fail at
								 * once) */
	int64_t		timeout_ms;		/* bound on connecting and on each
								 * statement (default 10000; >= 100) */
	cid_lease_mono_fn monotonic;	/* NULL = CLOCK_BOOTTIME or
									 * CLOCK_MONOTONIC (for the rate) */
	void	   *mono_ctx;
} cid_block_opts;

/* Fill *opts with the defaults above (sequence NULL: the caller sets it). */
CID_API void	cid_block_opts_default(cid_block_opts *opts);

typedef struct cid_block cid_block;

/*
 * Connect, check the sequence and the extension, reserve the first block
 * (so that next() has values at once) and start the prefetching thread
 * on that connection.  The sequence and its schema must belong to the
 * connecting role or a superuser (whoever owns them could set the
 * sequence back and make blocks repeat), and it is bound by OID: renamed,
 * it goes on; dropped and made again, the allocator fails instead of
 * starting over.
 *
 * CID_EINVAL: NULL out or sequence, bounds out of range (errbuf says
 * which); CID_EBLOCK_EXHAUSTED; CID_EBLOCK_DB: cannot connect, no such
 * sequence, refused (owner, INCREMENT, CYCLE, UNLOGGED, privileges), no
 * nextval_block() in the database; errbuf has the server's words.
 */
CID_API int	cid_block_open(cid_block **out, const cid_block_opts *opts,
						   char *errbuf, size_t errlen) CID_MUST_CHECK;

/*
 * The next value, into *id.  Thread-safe; takes a mutex for a few
 * instructions, and waits only when no value is in hand (at most wait_ms):
 * then CID_EBLOCK_DB (the last failure in cid_block_errmsg), or
 * CID_EBLOCK_EXHAUSTED once the sequence has nothing left.
 * CID_EBLOCK_FORKED in a child after fork(); CID_EINVAL for NULL.
 */
CID_API int	cid_block_next(cid_block *block, int64_t *id) CID_MUST_CHECK;

/* What an allocator did so far (for monitoring and the benchmarks). */
typedef struct cid_block_stats
{
	uint64_t	issued;			/* values next() returned */
	uint64_t	blocks;			/* blocks reserved: one round trip each */
	uint64_t	failures;		/* reservations that failed (retried) */
	uint64_t	waits;			/* next() calls that found nothing in hand */
	int64_t		in_hand;		/* values held: current rest + next block */
	int64_t		size;			/* the size the next reservation asks for */
} cid_block_stats;

/* Fill *out (zeroes for NULL block).  Thread-safe. */
CID_API void	cid_block_get_stats(cid_block *block, cid_block_stats *out);

/* The last reservation error, copied into buf ("" when none).  Thread-safe. */
CID_API void	cid_block_errmsg(cid_block *block, char *buf, size_t len);

/*
 * Stop the thread, close the connection, free the allocator.  The values
 * in hand are lost (gaps).  In a child after fork() it frees memory only,
 * leaving the parent's connection alone.  NULL is a no-op.
 */
CID_API void	cid_block_free(cid_block *block);

/*
 * One block of n values (1 .. 1000000000) without an allocator (for
 * scripts: `chronoid block`): connect, check as cid_block_open, reserve,
 * disconnect.  *first receives the first value; the block is
 * first .. first + n - 1.  Statuses as cid_block_open.
 */
CID_API int	cid_block_reserve(const cid_block_opts *opts, int64_t n, int64_t *first,
							  char *errbuf, size_t errlen) CID_MUST_CHECK;

#ifdef __cplusplus
}
#endif

#endif							/* CHRONOID_LEASE_H */
