/*
 * test_lease_block.c — the pure parts of the block allocator
 * (db/lease/block_core.c): options and their bounds, when the next block
 * is fetched, and the size that follows the rate (exact cases and a
 * simulated consumer at rates from 1 to 10^7 values per second).  The
 * allocator against a server: tests/scenarios/block.sh.
 */
#include <math.h>
#include <string.h>

#include "block_internal.h"
#include "lease_internal.h"
#include "tap.h"

#define MS INT64_C(1000000)
#define SEC INT64_C(1000000000)

static void
test_defaults(void)
{
	cid_block_opts o;
	cid_block_cfg c;
	char		err[200];

	cid_block_opts_default(&o);
	EXPECT_EQ_INT(o.target_ms, 60000);
	EXPECT_EQ_INT(o.min_size, 16);
	EXPECT_EQ_INT(o.max_size, 1000000);
	EXPECT_EQ_INT(o.prefetch_pct, 10);
	EXPECT_EQ_INT(o.wait_ms, 10000);
	EXPECT(o.sequence == NULL);
	/* no sequence: refused, and the message says what to give */
	EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_EINVAL);
	EXPECT(strstr(err, "schema-qualified") != NULL);
	EXPECT_EQ_INT(cid_block_get_cfg(&c, NULL, err, sizeof(err)), CID_EINVAL);
	o.sequence = "";
	EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_EINVAL);
	o.sequence = "public.s";
	EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_OK);
	EXPECT(c.conninfo == NULL);
	o.conninfo = "";
	EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_OK);
	EXPECT(c.conninfo == NULL);
	o.conninfo = "host=/tmp";
	EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_OK);
	EXPECT_STR(c.conninfo, "host=/tmp");
	cid_block_opts_default(NULL);	/* no-op */
}

/* Each bound: the edge passes, one past it is refused naming the value. */
static void
test_bounds(void)
{
	cid_block_opts o;
	cid_block_cfg c;
	char		err[200];

#define REFUSED(field, bad, needle) \
	do { \
		cid_block_opts_default(&o); \
		o.sequence = "public.s"; \
		o.field = (bad); \
		EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_EINVAL); \
		EXPECT(strstr(err, (needle)) != NULL); \
	} while (0)
#define ACCEPTED(field, good) \
	do { \
		cid_block_opts_default(&o); \
		o.sequence = "public.s"; \
		o.field = (good); \
		EXPECT_EQ_INT(cid_block_get_cfg(&c, &o, err, sizeof(err)), CID_OK); \
	} while (0)

	ACCEPTED(target_ms, 10);
	ACCEPTED(target_ms, 86400000);
	REFUSED(target_ms, 9, "target 9 ms");
	REFUSED(target_ms, 86400001, "target 86400001 ms");
	ACCEPTED(min_size, 1);
	REFUSED(min_size, 0, "block sizes 0 .. 1000000");
	REFUSED(min_size, 1000001, "block sizes 1000001 .. 1000000");
	ACCEPTED(max_size, 1000000000);
	REFUSED(max_size, 1000000001, "16 .. 1000000001");
	REFUSED(max_size, 15, "16 .. 15");
	ACCEPTED(initial_size, 0);
	ACCEPTED(initial_size, 1000000000);
	REFUSED(initial_size, -1, "initial block size -1");
	REFUSED(initial_size, 1000000001, "initial block size 1000000001");
	ACCEPTED(prefetch_pct, 0);
	ACCEPTED(prefetch_pct, 99);
	REFUSED(prefetch_pct, 100, "100 %");
	REFUSED(prefetch_pct, -1, "-1 %");
	ACCEPTED(wait_ms, 0);
	REFUSED(wait_ms, -1, "wait -1 ms");
	ACCEPTED(timeout_ms, 100);
	REFUSED(timeout_ms, 99, "timeout 99 ms");
#undef REFUSED
#undef ACCEPTED
}

static void
test_first_size(void)
{
	cid_block_opts o;

	cid_block_opts_default(&o);
	EXPECT_EQ_INT(cid_block_first_size(&o), 1000);
	o.initial_size = 5;
	EXPECT_EQ_INT(cid_block_first_size(&o), 16);	/* min */
	o.initial_size = 5000000;
	EXPECT_EQ_INT(cid_block_first_size(&o), 1000000);	/* max */
	o.initial_size = 0;
	o.max_size = 100;
	EXPECT_EQ_INT(cid_block_first_size(&o), 100);
}

static void
test_size_for(void)
{
	/* 1000 values in 1 s, target 60 s: 60000, but at most 4x prev */
	EXPECT_EQ_INT(cid_block_size_for(1000, SEC, 60000, 1000, 1, 1000000000), 4000);
	EXPECT_EQ_INT(cid_block_size_for(1000, SEC, 60000, 20000, 1, 1000000000), 60000);
	/* a lull: at least a quarter of prev */
	EXPECT_EQ_INT(cid_block_size_for(0, 100 * SEC, 60000, 20000, 1, 1000000000), 5000);
	EXPECT_EQ_INT(cid_block_size_for(10, 100 * SEC, 60000, 20, 1, 1000000000), 6);
	/* within [min, max] */
	EXPECT_EQ_INT(cid_block_size_for(0, SEC, 60000, 20, 16, 100), 16);
	EXPECT_EQ_INT(cid_block_size_for(1000000, SEC, 60000, 100, 16, 100), 100);
	/* elapsed under 1 ms counts as 1 ms; 0 and negative too */
	EXPECT_EQ_INT(cid_block_size_for(5, 0, 10, 100, 1, 1000), 50);
	EXPECT_EQ_INT(cid_block_size_for(5, -7, 10, 100, 1, 1000), 50);
	EXPECT_EQ_INT(cid_block_size_for(5, MS / 2, 10, 100, 1, 1000), 50);
	/* no overflow at absurd rates: the cap decides */
	EXPECT_EQ_INT(cid_block_size_for(INT64_MAX, 1, 86400000, 1000000000, 1, 1000000000),
				  1000000000);
	EXPECT_EQ_INT(cid_block_size_for(-5, SEC, 1000, 100, 1, 1000), 25);
}

/*
 * A consumer at a steady rate: whatever the start, the size settles where
 * a block lasts the target (within 1 %), and never leaves the bounds.
 */
static void
test_converges(void)
{
	const double rates[] = {1, 37, 1000, 123456, 1e7};
	const int64_t targets[] = {10, 1000, 60000};

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
		{
			int64_t		size = 1000;
			int64_t		want = (int64_t) (rates[r] * (double) targets[t] / 1000.0);

			for (int step = 0; step < 30; step++)
			{
				/* the window: this block's values at the rate */
				int64_t		elapsed = (int64_t) ((double) size / rates[r] * 1e9);

				size = cid_block_size_for(size, elapsed, targets[t], size, 1, 1000000000);
				EXPECT(size >= 1 && size <= 1000000000);
			}
			if (want < 1)
				want = 1;
			if (fabs((double) (size - want)) > 0.01 * (double) want + 1)
			{
				printf("#     rate %g target %lld: size %lld, want %lld\n", rates[r],
					   (long long) targets[t], (long long) size, (long long) want);
				EXPECT(false);
			}
		}
}

static void
test_prefetch_due(void)
{
	/* block 100..199: 10 % used once the next unused value is 110 */
	EXPECT(!cid_block_prefetch_due(100, 100, 109, 10));
	EXPECT(cid_block_prefetch_due(100, 100, 110, 10));
	/* 0 %: at once; 99 %: at the last value */
	EXPECT(cid_block_prefetch_due(100, 100, 100, 0));
	EXPECT(!cid_block_prefetch_due(100, 100, 198, 99));
	EXPECT(cid_block_prefetch_due(100, 100, 199, 99));
	/* a billion values, near the end of int64 and below zero */
	EXPECT(!cid_block_prefetch_due(INT64_MAX - 1000000000, 1000000000,
								   INT64_MAX - 1000000000 + 99999999, 10));
	EXPECT(cid_block_prefetch_due(INT64_MAX - 1000000000, 1000000000,
								  INT64_MAX - 1000000000 + 100000000, 10));
	EXPECT(cid_block_prefetch_due(INT64_MIN, 10, INT64_MIN + 5, 50));
	/* a block of one value: due once it is taken */
	EXPECT(!cid_block_prefetch_due(7, 1, 7, 10));
	EXPECT(cid_block_prefetch_due(7, 1, 8, 10));
}

static void
test_null_and_names(void)
{
	int64_t		id = 0;
	cid_block_stats st;
	char		buf[8] = "x";
	cid_block  *b = (cid_block *) &id;	/* never dereferenced below */

	EXPECT_EQ_INT(cid_block_next(NULL, &id), CID_EINVAL);
	EXPECT_EQ_INT(cid_block_next(b, NULL), CID_EINVAL);
	cid_block_get_stats(NULL, &st);
	EXPECT_EQ_U64(st.issued, 0);
	EXPECT_EQ_U64(st.blocks, 0);
	cid_block_errmsg(NULL, buf, sizeof(buf));
	EXPECT_STR(buf, "");
	cid_block_free(NULL);
	EXPECT_EQ_INT(cid_block_open(NULL, NULL, NULL, 0), CID_EINVAL);
	EXPECT_EQ_INT(cid_block_reserve(NULL, 1, &id, NULL, 0), CID_EINVAL);
	EXPECT_STR(cid_lease_strerror(CID_EBLOCK_DB), "the database gave no block of values");
	EXPECT_STR(cid_lease_strerror(CID_EBLOCK_EXHAUSTED), "the sequence has no value left");
	EXPECT(strstr(cid_lease_strerror(CID_EBLOCK_FORKED), "fork") != NULL);
}

/* Sizes outside 1 .. 10^9 are refused before anything connects. */
static void
test_reserve_sizes(void)
{
	cid_block_opts o;
	int64_t		first = 0;
	char		err[200];

	cid_block_opts_default(&o);
	o.sequence = "public.s";
	o.conninfo = "host=/nonexistent port=1";
	EXPECT_EQ_INT(cid_block_reserve(&o, 0, &first, err, sizeof(err)), CID_EINVAL);
	EXPECT(strstr(err, "block size 0 ") != NULL);
	EXPECT_EQ_INT(cid_block_reserve(&o, 1000000001, &first, err, sizeof(err)), CID_EINVAL);
	EXPECT(strstr(err, "1000000001") != NULL);
	EXPECT_EQ_INT(cid_block_reserve(&o, 5, NULL, err, sizeof(err)), CID_EINVAL);
	/* a good size reaches the connection, which fails */
	EXPECT_EQ_INT(cid_block_reserve(&o, 5, &first, err, sizeof(err)), CID_EBLOCK_DB);
	EXPECT(strstr(err, "connect") != NULL);
}

int
main(void)
{
	TAP_CASE(test_defaults);
	TAP_CASE(test_bounds);
	TAP_CASE(test_first_size);
	TAP_CASE(test_size_for);
	TAP_CASE(test_converges);
	TAP_CASE(test_prefetch_due);
	TAP_CASE(test_null_and_names);
	TAP_CASE(test_reserve_sizes);
	return tap_done();
}
