/*
 * testutil.h — helpers shared by chronoid's unit tests: a fake cid_env with
 * a settable clock and counting random bytes, 16-byte records, the
 * CID_TEST_SCALE volume switch and the "threads share one generator" run.
 */
#ifndef CID_TESTUTIL_H
#define CID_TESTUTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chronoid.h"
#include "tap.h"

#define TU_NS_PER_MS INT64_C(1000000)

/*
 * Volume switch: full normally, small when CID_TEST_SCALE=small (the
 * sanitizer runs, which are many times slower).
 */
static inline size_t
tu_scale(size_t full, size_t small)
{
	const char *s = getenv("CID_TEST_SCALE");

	return (s != NULL && strcmp(s, "small") == 0) ? small : full;
}

/* Unix ms of an ISO 8601 text; INT64_MIN (and a diagnostic) if it fails. */
static inline int64_t
tu_parse_ms(const char *s)
{
	int64_t		ms = INT64_MIN;

	if (cid_time_parse(&ms, s, strlen(s), NULL) != CID_OK)
		printf("#     cannot parse \"%s\"\n", s);
	return ms;
}

/* xorshift64*: reproducible "random" test values from the caller's state. */
static inline uint64_t
tu_rng_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1Du;
}

/* Marsaglia's xorshift64 (13, 7, 17): the next value of *x (never 0). */
static inline uint64_t
tu_xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* ------------------------------------------------------------------------
 * A fake environment: the clock reads now_ns; the random source hands out
 * next_byte, next_byte + 1, ... and fails while fail_random is set.
 * ------------------------------------------------------------------------ */

typedef struct tu_fake
{
	int64_t		now_ns;
	uint8_t		next_byte;
	bool		fail_random;
	size_t		random_calls;
} tu_fake;

static inline int64_t
tu_fake_clock(void *ctx)
{
	return ((tu_fake *) ctx)->now_ns;
}

static inline int
tu_fake_random(void *ctx, void *buf, size_t len)
{
	tu_fake    *f = ctx;

	f->random_calls++;
	if (f->fail_random)
		return -1;
	for (size_t i = 0; i < len; i++)
		((uint8_t *) buf)[i] = f->next_byte++;
	return 0;
}

/* ------------------------------------------------------------------------
 * 16-byte records (UUIDs, ULIDs, raw random bytes).  Both 128-bit forms
 * are big-endian, so memcmp order is numeric and time order.
 * ------------------------------------------------------------------------ */

typedef uint8_t tu_rec16[16];

static inline int
tu_cmp_rec16(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(tu_rec16));
}

/* Big-endian 64-bit value of the first 8 bytes. */
static inline uint64_t
tu_be64(const uint8_t *b)
{
	uint64_t	v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

/* Neighbours of a sorted array whose first prefix bytes are equal. */
static inline size_t
tu_count_adjacent_equal(const tu_rec16 *recs, size_t n, size_t prefix)
{
	size_t		same = 0;

	for (size_t i = 1; i < n; i++)
		if (memcmp(recs[i - 1], recs[i], prefix) == 0)
			same++;
	return same;
}

/* ------------------------------------------------------------------------
 * Several threads share one generator on the real clock and random source
 * (tests/unit/test_mt_*.c).  Each thread records its IDs in order; after
 * the run every ID is checked against the clock readings taken before and
 * after it, and the whole set is sorted for the uniqueness check.
 * ------------------------------------------------------------------------ */

#define TU_MT_THREADS 4

/* One generator call: the next ID's bytes into out; a cid status. */
typedef int (*tu_next_fn) (void *gen, uint8_t *out);

typedef struct tu_mt_run
{
	/* set by the caller */
	void	   *gen;
	tu_next_fn	next;
	bool		(*valid) (const uint8_t *id);	/* per-ID check; may be NULL */
	size_t		total;			/* IDs over all threads */
	int64_t		allowed_ms;		/* how far past the end an ms may lie */
	const char *what;			/* e.g. "ULIDs", for the diagnostic */

	/* set by tu_mt_share_generator */
	tu_rec16   *ids;			/* every ID, sorted; the caller frees */
	size_t		n;
	size_t		errors;			/* calls that did not return CID_OK */
	size_t		not_increasing;	/* an ID <= the thread's previous one */
	size_t		invalid;		/* IDs that valid() refused */
	size_t		outside;		/* ms outside the run's window */
	size_t		dup_full;		/* IDs seen more than once */
} tu_mt_run;

typedef struct tu_mt_worker
{
	tu_mt_run  *run;
	tu_rec16   *out;
	size_t		n;
	size_t		errors;
	size_t		not_increasing;
	size_t		invalid;
} tu_mt_worker;

static inline void *
tu_mt_worker_main(void *arg)
{
	tu_mt_worker *w = arg;
	const tu_mt_run *r = w->run;

	for (size_t i = 0; i < w->n; i++)
	{
		/* a failed call counts as an all-zero ID, which fails the rest too */
		if (r->next(r->gen, w->out[i]) != CID_OK)
		{
			w->errors++;
			memset(w->out[i], 0, sizeof(tu_rec16));
		}
		if (r->valid != NULL && !r->valid(w->out[i]))
			w->invalid++;
		if (i > 0 && tu_cmp_rec16(w->out[i - 1], w->out[i]) >= 0)
			w->not_increasing++;
	}
	return NULL;
}

/* A clean run: no failed call, no invalid ID, none out of order, outside the window or twice. */
#define TU_MT_EXPECT_CLEAN(r) \
	do { \
		EXPECT_EQ_INT((r).errors, 0); \
		EXPECT_EQ_INT((r).invalid, 0); \
		EXPECT_EQ_INT((r).not_increasing, 0); \
		EXPECT_EQ_INT((r).outside, 0); \
		EXPECT_EQ_INT((r).dup_full, 0); \
	} while (0)

/* Version 7 of the RFC variant (RFC 9562 section 5.7): a valid() for UUIDv7 runs. */
static inline bool
tu_is_uuidv7(const uint8_t *id)
{
	cid_uuid	u;

	memcpy(u.bytes, id, sizeof(u.bytes));
	return cid_uuid_version(&u) == 7;
}

/*
 * Run r->total IDs through TU_MT_THREADS threads and fill in the counts.
 * An ID's ms (its first 48 bits, in both UUIDv7 and ULID) must lie between
 * the clock reading before the run and the one after plus r->allowed_ms.
 * False (after a failed EXPECT) when memory ran out.
 */
static inline bool
tu_mt_share_generator(tu_mt_run *r)
{
	size_t		per = r->total / TU_MT_THREADS;
	tu_mt_worker w[TU_MT_THREADS];
	pthread_t	tid[TU_MT_THREADS];
	int64_t		start_ms,
				end_ms,
				min_ms = INT64_MAX,
				max_ms = INT64_MIN;

	r->n = per * TU_MT_THREADS;
	r->ids = malloc(r->n * sizeof(tu_rec16));
	r->errors = r->not_increasing = r->invalid = r->outside = r->dup_full = 0;
	EXPECT(r->ids != NULL);
	if (r->ids == NULL)
		return false;

	start_ms = cid_platform_clock(NULL) / TU_NS_PER_MS;
	for (int t = 0; t < TU_MT_THREADS; t++)
	{
		w[t] = (tu_mt_worker) {r, r->ids + t * per, per, 0, 0, 0};
		EXPECT_EQ_INT(pthread_create(&tid[t], NULL, tu_mt_worker_main, &w[t]), 0);
	}
	for (int t = 0; t < TU_MT_THREADS; t++)
	{
		EXPECT_EQ_INT(pthread_join(tid[t], NULL), 0);
		r->errors += w[t].errors;
		r->not_increasing += w[t].not_increasing;
		r->invalid += w[t].invalid;
	}
	end_ms = cid_platform_clock(NULL) / TU_NS_PER_MS;

	for (size_t i = 0; i < r->n; i++)
	{
		int64_t		ms = (int64_t) (tu_be64(r->ids[i]) >> 16);

		if (ms < start_ms || ms > end_ms + r->allowed_ms)
			r->outside++;
		if (ms < min_ms)
			min_ms = ms;
		if (ms > max_ms)
			max_ms = ms;
	}
	printf("# %zu %s in %" PRId64 " ms; embedded ms %" PRId64 "..%" PRId64
		   " (run-ahead %" PRId64 " ms, allowed %" PRId64 ")\n",
		   r->n, r->what, end_ms - start_ms, min_ms - start_ms, max_ms - start_ms,
		   max_ms > end_ms ? max_ms - end_ms : 0, r->allowed_ms);

	qsort(r->ids, r->n, sizeof(tu_rec16), tu_cmp_rec16);
	r->dup_full = tu_count_adjacent_equal(r->ids, r->n, sizeof(tu_rec16));
	return true;
}

/* ------------------------------------------------------------------------
 * A batch against single calls (tests/unit/test_fill*.c): generator a
 * fills, generator b makes the same IDs one call at a time, each on its
 * fake environment (fa, fb, alike at the start).  Round r sets both
 * clocks to readings[r] and compares a batch of sizes[r] with as many
 * single calls, byte for byte.
 * ------------------------------------------------------------------------ */

typedef struct tu_batch_run
{
	size_t		size;			/* bytes of one ID */
	int			(*fill) (void *gen, uint8_t *out, size_t n, size_t *done);
	int			(*single) (void *gen, uint8_t *out);
	void	   *a;
	void	   *b;
	tu_fake    *fa;
	tu_fake    *fb;
	/* each batch ID, the one before it (NULL for the first) and the reading; may be NULL */
	bool		(*valid) (const uint8_t *id, const uint8_t *prev, int64_t reading);
} tu_batch_run;

/* The IDs that differed from the single calls' or that valid() refused. */
static inline size_t
tu_batch_vs_single(const tu_batch_run *run, const int64_t *readings, const size_t *sizes,
				   size_t rounds)
{
	size_t		max = 1,
				bad = 0;
	uint8_t    *buf,
			   *one,
			   *last;
	bool		have_last = false;

	for (size_t r = 0; r < rounds; r++)
		if (sizes[r] > max)
			max = sizes[r];
	buf = calloc(max, run->size);
	one = malloc(run->size);
	last = malloc(run->size);
	EXPECT(buf != NULL && one != NULL && last != NULL);
	for (size_t r = 0; r < rounds && buf != NULL && one != NULL && last != NULL; r++)
	{
		size_t		done = 0;

		run->fa->now_ns = run->fb->now_ns = readings[r];
		EXPECT_EQ_INT(run->fill(run->a, buf, sizes[r], &done), CID_OK);
		EXPECT_EQ_U64(done, sizes[r]);
		for (size_t i = 0; i < sizes[r]; i++)
		{
			const uint8_t *id = buf + run->size * i;
			const uint8_t *prev = i > 0 ? id - run->size : have_last ? last : NULL;

			EXPECT_EQ_INT(run->single(run->b, one), CID_OK);
			if (memcmp(one, id, run->size) != 0 ||
				(run->valid != NULL && !run->valid(id, prev, readings[r])))
				bad++;
		}
		if (sizes[r] > 0)
		{
			memcpy(last, buf + run->size * (sizes[r] - 1), run->size);
			have_last = true;
		}
	}
	free(buf);
	free(one);
	free(last);
	return bad;
}

#endif							/* CID_TESTUTIL_H */
