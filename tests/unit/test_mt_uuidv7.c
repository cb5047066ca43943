/*
 * test_mt_uuidv7.c — one UUIDv7 generator shared by four threads on the
 * real clock and random source: every UUID unique, each thread's sequence
 * strictly increasing, every timestamp inside the run's time window.
 */
#define _POSIX_C_SOURCE 200809L

#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static int
next_uuidv7(void *gen, uint8_t *out)
{
	cid_uuid	u;
	int			rc = cid_uuidv7_next(gen, &u);

	if (rc == CID_OK)
		memcpy(out, u.bytes, sizeof(u.bytes));
	return rc;
}

static void
test_four_threads_share_one_generator(void)
{
	cid_uuidv7_gen gen;
	size_t		total = tu_scale(10000000, 200000);

	/*
	 * The window.  Each UUID takes either the clock's own (ms, fraction) or
	 * the last state plus one unit of 1/4096 ms, so the state can be at
	 * most one unit per UUID ahead of the latest clock reading: with N
	 * UUIDs the run-ahead is at most N / 4096 ms.  Any larger ms would mean
	 * a step of more than one unit; any smaller one, a time from before
	 * the run.
	 */
	tu_mt_run	r = {
		.gen = &gen,
		.next = next_uuidv7,
		.valid = tu_is_uuidv7,
		.total = total,
		.allowed_ms = (int64_t) (total / 4096) + 1,
		.what = "UUIDs",
	};
	uint64_t	last_hi;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	if (!tu_mt_share_generator(&r))
		return;

	TU_MT_EXPECT_CLEAN(r);
	/* the first 64 bits are ms, version and fraction: the state */
	EXPECT_EQ_INT(tu_count_adjacent_equal(r.ids, r.n, 8), 0);
	/* the atomic state ends at the largest value handed out */
	last_hi = tu_be64(r.ids[r.n - 1]);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)),
				  (last_hi >> 16) << 12 | (last_hi & 0x0fff));
	free(r.ids);
}

int
main(void)
{
	TAP_CASE(test_four_threads_share_one_generator);
	return tap_done();
}
