/*
 * test_mt_fill.c — four threads race on one UUIDv7 generator, then on one
 * monotonic ULID generator, on the real clock and random source, mixing
 * batches of every size from 1 to 512 (cid_uuidv7_fill, cid_ulid_fill)
 * with single calls: every ID unique, each thread's IDs strictly
 * increasing, every timestamp inside the run's window.  Run under TSan by
 * make check (test_mt_*).
 */
#define _POSIX_C_SOURCE 200809L

#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define MAX_BATCH 512

/*
 * Each thread hands out its IDs from a batch of its own; when that runs
 * dry it draws a new one of a pseudo-random size, or, one time in four,
 * makes a single call.
 */
typedef struct batch_cache
{
	cid_uuid	ids[MAX_BATCH];	/* cid_ulid has the same 16 bytes */
	size_t		have;
	size_t		pos;
	uint64_t	rng;
} batch_cache;

static _Thread_local batch_cache cache;

typedef int (*fill_fn) (void *gen, void *out, size_t n, size_t *done);
typedef int (*single_fn) (void *gen, void *out);

static int
refill_and_next(void *gen, uint8_t *out, fill_fn fill, single_fn single)
{
	if (cache.pos == cache.have)
	{
		uint64_t	r;
		int			rc;

		if (cache.rng == 0)
			cache.rng = (uint64_t) (uintptr_t) &cache | 1;
		r = tu_xorshift64(&cache.rng);
		cache.pos = cache.have = 0;
		if (r % 4 == 0)
		{
			rc = single(gen, cache.ids);
			cache.have = rc == CID_OK ? 1 : 0;
		}
		else
			rc = fill(gen, cache.ids, (size_t) (r >> 8) % MAX_BATCH + 1, &cache.have);
		if (rc != CID_OK)
			return rc;
	}
	memcpy(out, cache.ids[cache.pos++].bytes, 16);
	return CID_OK;
}

static int
v7_fill(void *gen, void *out, size_t n, size_t *done)
{
	return cid_uuidv7_fill(gen, out, n, done);
}

static int
v7_single(void *gen, void *out)
{
	return cid_uuidv7_next(gen, out);
}

static int
next_uuidv7(void *gen, uint8_t *out)
{
	return refill_and_next(gen, out, v7_fill, v7_single);
}

static int
ulid_fill(void *gen, void *out, size_t n, size_t *done)
{
	return cid_ulid_fill(gen, out, n, done);
}

static int
ulid_single(void *gen, void *out)
{
	return cid_ulid_next(gen, out);
}

static int
next_ulid(void *gen, uint8_t *out)
{
	return refill_and_next(gen, out, ulid_fill, ulid_single);
}

static void
test_uuidv7_batches_race(void)
{
	cid_uuidv7_gen gen;
	size_t		total = tu_scale(8000000, 200000);

	/*
	 * A UUID runs ahead of the clock by at most one fraction unit per UUID
	 * issued, counting those still unhanded in the threads' batches at
	 * the end (at most MAX_BATCH each): one more ms covers them.
	 */
	tu_mt_run	r = {
		.gen = &gen,
		.next = next_uuidv7,
		.valid = tu_is_uuidv7,
		.total = total,
		.allowed_ms = (int64_t) (total / 4096) + 2,
		.what = "UUIDs in batches",
	};

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	if (!tu_mt_share_generator(&r))
		return;
	TU_MT_EXPECT_CLEAN(r);
	/* the first 64 bits are the state: no position went out twice */
	EXPECT_EQ_INT(tu_count_adjacent_equal(r.ids, r.n, 8), 0);
	free(r.ids);
}

static void
test_ulid_batches_race(void)
{
	cid_ulid_gen gen;

	/* a monotonic ULID never runs ahead of the clock */
	tu_mt_run	r = {
		.gen = &gen,
		.next = next_ulid,
		.total = tu_scale(8000000, 200000),
		.allowed_ms = 0,
		.what = "monotonic ULIDs in batches",
	};

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, NULL), CID_OK);
	if (!tu_mt_share_generator(&r))
		return;
	TU_MT_EXPECT_CLEAN(r);
	/* the shared state is at or past the largest ULID handed out */
	EXPECT(memcmp(r.ids[r.n - 1], gen.last, 16) <= 0);
	free(r.ids);
}

int
main(void)
{
	TAP_CASE(test_uuidv7_batches_race);
	TAP_CASE(test_ulid_batches_race);
	return tap_done();
}
