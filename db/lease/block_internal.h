/*
 * block_internal.h — the block allocator's object and its pure parts
 * (block_core.c: options, the adaptive size), shared with block.c (the
 * PostgreSQL side and the prefetching thread) and the unit tests.  Not
 * installed.
 */
#ifndef CID_BLOCK_INTERNAL_H
#define CID_BLOCK_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "chronoid_lease.h"

/* nextval_block()'s largest block (pg/src/sequence_block.c). */
#define CID_BLOCK_MAX_SIZE INT64_C(1000000000)

struct pg_conn;

/* Options checked and completed: the sizes, times and a copy of the strings. */
typedef struct cid_block_cfg
{
	cid_block_opts o;
	const char *conninfo;		/* NULL for the PG* variables */
} cid_block_cfg;

/* Check and complete opts into c; CID_EINVAL with errbuf set. */
int			cid_block_get_cfg(cid_block_cfg *c, const cid_block_opts *opts,
							  char *errbuf, size_t errlen);

/*
 * The size of the next block: `used` values were taken in `elapsed_ns`, so
 * at that rate a block of rate * target lasts target_ms.  It moves at most
 * 4x from prev per step (a burst does not reserve a huge block at once;
 * a lull does not starve the next one) and stays within [min, max].
 * elapsed below 1 ms counts as 1 ms.
 */
int64_t		cid_block_size_for(int64_t used, int64_t elapsed_ns, int64_t target_ms,
							   int64_t prev, int64_t min, int64_t max);

/* The size of the first block: initial_size (0 = 1000) within [min, max]. */
int64_t		cid_block_first_size(const cid_block_opts *o);

/* Whether the current block [first, first + n) with next unused is used past pct %. */
bool		cid_block_prefetch_due(int64_t first, int64_t n, int64_t next, int pct);

/*
 * What the allocator is bound to: the sequence and chronoid's
 * nextval_block() by OID, and the reservation statement (malloc'd), which
 * names the function by schema but calls it only while that name still
 * means fn_oid (block.c).
 */
typedef struct cid_block_bind
{
	char		seq_oid[24];
	char		fn_oid[24];
	char	   *sql;
} cid_block_bind;

struct cid_block
{
	pthread_mutex_t mu;
	pthread_cond_t have_block;	/* next() waits here for the prefetcher */
	pthread_cond_t wake;		/* the prefetcher waits here for work */
	unsigned	fork_gen;

	/*
	 * Under mu: the current block of cur_n values, cur_left of them left
	 * from cur on; counts rather than ends, because a block may end at
	 * INT64_MAX, whose successor does not exist.
	 */
	int64_t		cur;
	int64_t		cur_left;
	int64_t		cur_n;
	bool		have_next;		/* a prefetched block: next_n from next_first */
	int64_t		next_first;
	int64_t		next_n;
	bool		want;			/* a reservation is asked for */
	int64_t		size;			/* its size */
	int			sticky;			/* CID_EBLOCK_EXHAUSTED once nothing is left */
	bool		stop;
	char		errmsg[256];

	/* The rate window: since the start of the previous block. */
	uint64_t	win_issued;
	int64_t		win_t0;
	uint64_t	cur_issued;		/* issued when the current block began */
	int64_t		cur_t0;

	cid_block_stats st;

	cid_block_cfg cfg;
	char	   *conninfo;
	cid_block_bind bind;
	struct pg_conn *conn;		/* the prefetcher's (open's, before it starts) */
	pthread_t	thread;
	bool		thread_started;
	cid_lease_mono_fn mono;
	void	   *mono_ctx;
};

#endif							/* CID_BLOCK_INTERNAL_H */
