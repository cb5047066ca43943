/*
 * test_mt_ulid.c — one monotonic ULID generator shared by four threads on
 * the real clock and random source: every ULID unique, each thread's
 * sequence strictly increasing, every timestamp inside the run's window.
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static int
next_ulid(void *gen, uint8_t *out)
{
	cid_ulid	u;
	int			rc = cid_ulid_next(gen, &u);

	if (rc == CID_OK)
		memcpy(out, u.bytes, sizeof(u.bytes));
	return rc;
}

static void
test_four_threads_share_one_generator(void)
{
	cid_ulid_gen gen;

	/*
	 * The window.  A monotonic ULID takes the clock's ms or keeps the last
	 * ULID's ms, which came from an earlier clock reading; it never moves
	 * ahead of the clock.  So no run-ahead is allowed: every ms lies
	 * between the readings taken before and after the run (as long as the
	 * system clock is not stepped back meanwhile).
	 */
	tu_mt_run	r = {
		.gen = &gen,
		.next = next_ulid,
		.total = tu_scale(10000000, 200000),
		.allowed_ms = 0,
		.what = "ULIDs",
	};

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, NULL), CID_OK);
	if (!tu_mt_share_generator(&r))
		return;

	TU_MT_EXPECT_CLEAN(r);
	/* the shared state ends at the largest ULID handed out */
	EXPECT_EQ_INT(memcmp(r.ids[r.n - 1], gen.last, 16), 0);
	free(r.ids);
}

int
main(void)
{
	TAP_CASE(test_four_threads_share_one_generator);
	return tap_done();
}
