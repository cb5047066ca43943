/*
 * test_fill.c — cid_uuidv7_fill, cid_ulid_fill and cid_uuidv4_fill with an
 * injected clock and random source: a batch is what as many single calls
 * make with the clock standing still, at every edge the single calls
 * have (clock stalled or back, a carry into the next millisecond, the
 * time field or the monotonic random part running out in the middle of a
 * batch, failing clock and random source, n = 0, a huge n).
 */
#define _POSIX_C_SOURCE 200809L

#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define NS_PER_MS INT64_C(1000000)
/* 2022-02-22T19:22:22Z, RFC 9562's example instant */
#define T0_MS INT64_C(1645557742000)
/* The largest UUIDv7 state: 2^48 - 1 ms with a full fraction. */
#define V7_STATE_MAX ((UINT64_C(1) << 60) - 1)

/* unix_ms of a UUIDv7 or ULID (bytes 0..5 in both). */
static int64_t
ms_of(const uint8_t *b)
{
	return (int64_t) (tu_be64(b) >> 16);
}

/* The 12-bit rand_a (fraction) of a generated UUIDv7. */
static int
frac_of(const cid_uuid *u)
{
	return (u->bytes[6] & 0x0f) << 8 | u->bytes[7];
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* IDs i and i + 1 out of order anywhere in recs[0..n). */
static size_t
count_not_increasing(const void *recs, size_t n)
{
	const uint8_t *p = recs;
	size_t		bad = 0;

	for (size_t i = 1; i < n; i++)
		if (memcmp(p + 16 * (i - 1), p + 16 * i, 16) >= 0)
			bad++;
	return bad;
}

/* ------------------------------------------------------------------------
 * UUIDv7
 * ------------------------------------------------------------------------ */

static void
test_v7_arguments(void)
{
	tu_fake		f = {-5, 0, false, 0};	/* a clock that fails */
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	cid_uuid	u[2];
	size_t		done = 99;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	/* n = 0 reads neither the clock nor the random source */
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 0, &done), CID_OK);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, NULL, 0, NULL), CID_OK);
	EXPECT_EQ_U64(f.random_calls, 0);
	done = 99;
	EXPECT_EQ_INT(cid_uuidv7_fill(NULL, u, 2, &done), CID_EINVAL);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, NULL, 2, &done), CID_EINVAL);
	/* more UUIDs than memory can hold is a bad argument, not an overflow */
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, SIZE_MAX / 16 + 1, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, SIZE_MAX, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 2, &done), CID_ECLOCK);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_U64(f.random_calls, 0);
}

static int
v7_fill(void *gen, uint8_t *out, size_t n, size_t *done)
{
	return cid_uuidv7_fill(gen, (cid_uuid *) (void *) out, n, done);
}

static int
v7_single(void *gen, uint8_t *out)
{
	return cid_uuidv7_next(gen, (cid_uuid *) (void *) out);
}

/* Version 7, above the one before. */
static bool
v7_valid(const uint8_t *id, const uint8_t *prev, int64_t reading)
{
	(void) reading;
	return cid_uuid_version((const cid_uuid *) (const void *) id) == 7 &&
		(prev == NULL || memcmp(prev, id, 16) < 0);
}

/*
 * The batch against single calls: two generators on the same clock and
 * the same random stream, one filling, one calling cid_uuidv7_next, must
 * give the same bytes, through steps, a carry into the next millisecond,
 * a stalled clock and a clock that goes back.
 */
static void
test_v7_same_as_single_calls(void)
{
	static const int64_t readings[] = {
		T0_MS * NS_PER_MS + 123456,	/* fraction 505 */
		T0_MS * NS_PER_MS + 123456,	/* stalled */
		T0_MS * NS_PER_MS + 999999,	/* fraction 4095: carries */
		T0_MS * NS_PER_MS - 1000 * NS_PER_MS,	/* a second back */
		(T0_MS + 50) * NS_PER_MS,	/* the clock passes the state */
	};
	static const size_t sizes[] = {1, 7, 300, 5000, 2};
	tu_fake		fa = {0, 0x10, false, 0},
				fb = {0, 0x10, false, 0};
	cid_env		ea = {tu_fake_clock, tu_fake_random, NULL, &fa},
				eb = {tu_fake_clock, tu_fake_random, NULL, &fb};
	cid_uuidv7_gen a,
				b;
	tu_batch_run run = {sizeof(cid_uuid), v7_fill, v7_single, &a, &b, &fa, &fb, v7_valid};

	EXPECT_EQ_INT(cid_uuidv7_init(&a, &ea), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_init(&b, &eb), CID_OK);
	EXPECT_EQ_U64(tu_batch_vs_single(&run, readings, sizes, 5), 0);
	/* one random request per batch, one per single call */
	EXPECT_EQ_U64(fa.random_calls, 5);
	EXPECT_EQ_U64(fb.random_calls, 1 + 7 + 300 + 5000 + 2);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&a.state)), atomic_load(cid_atomic_u64(&b.state)));
}

static void
test_v7_carry_and_clock_back(void)
{
	tu_fake		f = {T0_MS * NS_PER_MS + 999999, 0, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	cid_uuid	u[3];
	size_t		done = 0;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 3, &done), CID_OK);
	EXPECT_EQ_U64(done, 3);
	EXPECT_EQ_INT(ms_of(u[0].bytes), T0_MS);
	EXPECT_EQ_INT(frac_of(&u[0]), 4095);
	/* the fraction carries into the next ms: ahead of the clock */
	EXPECT_EQ_INT(ms_of(u[1].bytes), T0_MS + 1);
	EXPECT_EQ_INT(frac_of(&u[1]), 0);
	EXPECT_EQ_INT(frac_of(&u[2]), 1);
	/* an hour back, then 1970: the batch steps on from the last */
	f.now_ns -= 3600000 * NS_PER_MS;
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 2, &done), CID_OK);
	EXPECT_EQ_INT(ms_of(u[0].bytes), T0_MS + 1);
	EXPECT_EQ_INT(frac_of(&u[0]), 2);
	EXPECT_EQ_INT(frac_of(&u[1]), 3);
	f.now_ns = 0;
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 1, &done), CID_OK);
	EXPECT_EQ_INT(frac_of(&u[0]), 4);
	/* variant 10 over rand_b in every one */
	EXPECT_EQ_INT(u[0].bytes[8] & 0xc0, 0x80);
}

static void
test_v7_random_fails(void)
{
	tu_fake		f = {T0_MS * NS_PER_MS, 0, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	cid_uuid	u[4];
	size_t		done = 99;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	f.fail_random = true;
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 4, &done), CID_ERANDOM);
	EXPECT_EQ_U64(done, 0);
	/* nothing was reserved: the next UUID is the clock's own */
	f.fail_random = false;
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 1, &done), CID_OK);
	EXPECT_EQ_INT(ms_of(u[0].bytes), T0_MS);
	EXPECT_EQ_INT(frac_of(&u[0]), 0);
}

/* The 48-bit field runs out in the middle of a batch: what fits is issued. */
static void
test_v7_time_field_runs_out(void)
{
	tu_fake		f = {T0_MS * NS_PER_MS, 0, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	cid_uuid	u[5];
	size_t		done = 0;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	atomic_store(cid_atomic_u64(&gen.state), V7_STATE_MAX - 2);
	memset(u, 0, sizeof(u));
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 5, &done), CID_ETIME_RANGE);
	EXPECT_EQ_U64(done, 2);
	EXPECT_EQ_INT(ms_of(u[1].bytes), (INT64_C(1) << 48) - 1);
	EXPECT_EQ_INT(frac_of(&u[0]), 4094);
	EXPECT_EQ_INT(frac_of(&u[1]), 4095);
	EXPECT(memcmp(u[0].bytes, u[1].bytes, 16) < 0);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)), V7_STATE_MAX);
	/* nothing left: no UUID at all, as for a single call */
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, 5, &done), CID_ETIME_RANGE);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &u[0]), CID_ETIME_RANGE);
}

/*
 * A huge batch on the platform's clock and random source: strictly
 * increasing, version and variant right, no rand_b twice, and ahead of the
 * clock by at most one fraction unit per UUID.
 */
static void
test_v7_huge_batch(void)
{
	size_t		n = tu_scale((size_t) 1 << 21, (size_t) 1 << 16);
	cid_uuid   *u = malloc(n * sizeof(cid_uuid));
	uint64_t   *rand_b = malloc(n * sizeof(uint64_t));
	cid_uuidv7_gen gen;
	size_t		done = 0,
				bad = 0,
				dup = 0;
	int64_t		before,
				after;

	EXPECT(u != NULL && rand_b != NULL);
	if (u == NULL || rand_b == NULL)
	{
		free(u);
		free(rand_b);
		return;
	}
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	before = cid_platform_clock(NULL) / NS_PER_MS;
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, u, n, &done), CID_OK);
	after = cid_platform_clock(NULL) / NS_PER_MS;
	EXPECT_EQ_U64(done, n);
	EXPECT_EQ_U64(count_not_increasing(u, n), 0);
	for (size_t i = 0; i < n; i++)
	{
		if (cid_uuid_version(&u[i]) != 7 || ms_of(u[i].bytes) < before ||
			ms_of(u[i].bytes) > after + (int64_t) (n / 4096) + 1)
			bad++;
		rand_b[i] = tu_be64(u[i].bytes + 8);
	}
	EXPECT_EQ_U64(bad, 0);
	qsort(rand_b, n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (rand_b[i - 1] == rand_b[i])
			dup++;
	/* 62 random bits: a repeat among 2^21 has odds of about 2^-22 */
	EXPECT_EQ_U64(dup, 0);
	free(u);
	free(rand_b);
}

/* Batches and single calls in turn on one generator: one increasing run. */
static void
test_v7_mixed_with_single_calls(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	all[1 + 100 + 1 + 3];
	size_t		k = 0,
				done = 0;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &all[k++]), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, all + k, 100, &done), CID_OK);
	k += done;
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &all[k++]), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_fill(&gen, all + k, 3, &done), CID_OK);
	k += done;
	EXPECT_EQ_U64(k, sizeof(all) / sizeof(all[0]));
	EXPECT_EQ_U64(count_not_increasing(all, k), 0);
}

/* ------------------------------------------------------------------------
 * UUIDv4
 * ------------------------------------------------------------------------ */

static void
test_v4_fill(void)
{
	tu_fake		fa = {0, 0x30, false, 0},
				fb = {0, 0x30, false, 0};
	cid_env		ea = {NULL, tu_fake_random, NULL, &fa},
				eb = {NULL, tu_fake_random, NULL, &fb};
	cid_uuid	u[20];
	size_t		mismatch = 0;

	EXPECT_EQ_INT(cid_uuidv4_fill(u, 0, &ea), CID_OK);
	EXPECT_EQ_INT(cid_uuidv4_fill(NULL, 0, &ea), CID_OK);
	EXPECT_EQ_U64(fa.random_calls, 0);
	EXPECT_EQ_INT(cid_uuidv4_fill(NULL, 1, &ea), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv4_fill(u, SIZE_MAX / 16 + 1, &ea), CID_EINVAL);
	/* the same stream gives the single calls' UUIDs, in one request */
	EXPECT_EQ_INT(cid_uuidv4_fill(u, 20, &ea), CID_OK);
	EXPECT_EQ_U64(fa.random_calls, 1);
	for (int i = 0; i < 20; i++)
	{
		cid_uuid	one;

		EXPECT_EQ_INT(cid_uuidv4_new(&one, &eb), CID_OK);
		if (memcmp(one.bytes, u[i].bytes, 16) != 0 || cid_uuid_version(&u[i]) != 4)
			mismatch++;
	}
	EXPECT_EQ_U64(mismatch, 0);
	fa.fail_random = true;
	EXPECT_EQ_INT(cid_uuidv4_fill(u, 20, &ea), CID_ERANDOM);
	/* the platform's source */
	EXPECT_EQ_INT(cid_uuidv4_fill(u, 20, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuid_version(&u[19]), 4);
	EXPECT(memcmp(u[18].bytes, u[19].bytes, 16) != 0);
}

/* ------------------------------------------------------------------------
 * ULID
 * ------------------------------------------------------------------------ */

static void
test_ulid_arguments(void)
{
	tu_fake		f = {-5, 0, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_ulid_gen gen;
	cid_ulid	u[2];
	size_t		done = 99;

	for (int mono = 0; mono <= 1; mono++)
	{
		EXPECT_EQ_INT(cid_ulid_init(&gen, mono, &env), CID_OK);
		EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 0, &done), CID_OK);
		EXPECT_EQ_U64(done, 0);
		EXPECT_EQ_INT(cid_ulid_fill(&gen, NULL, 0, NULL), CID_OK);
		done = 99;
		EXPECT_EQ_INT(cid_ulid_fill(NULL, u, 1, &done), CID_EINVAL);
		EXPECT_EQ_U64(done, 0);
		EXPECT_EQ_INT(cid_ulid_fill(&gen, NULL, 1, &done), CID_EINVAL);
		EXPECT_EQ_INT(cid_ulid_fill(&gen, u, SIZE_MAX / 16 + 1, &done), CID_EINVAL);
		EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 2, &done), CID_ECLOCK);
		EXPECT_EQ_U64(done, 0);
	}
	EXPECT_EQ_U64(f.random_calls, 0);
	/* a failing random source: nothing issued, in either mode */
	f.now_ns = T0_MS * NS_PER_MS;
	f.fail_random = true;
	for (int mono = 0; mono <= 1; mono++)
	{
		EXPECT_EQ_INT(cid_ulid_init(&gen, mono, &env), CID_OK);
		done = 99;
		EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 2, &done), CID_ERANDOM);
		EXPECT_EQ_U64(done, 0);
	}
}

/* Both modes: a batch is the single calls' ULIDs, byte for byte. */
static void
test_ulid_same_as_single_calls(void)
{
	static const int64_t readings[] = {
		T0_MS * NS_PER_MS + 5,
		T0_MS * NS_PER_MS + 700000,	/* same ms: stalled */
		(T0_MS - 1000) * NS_PER_MS,	/* a second back */
		(T0_MS + 3) * NS_PER_MS,	/* a new ms */
	};
	static const size_t sizes[] = {3, 1, 400, 2000};
	cid_ulid   *batch = calloc(2000, sizeof(cid_ulid));

	EXPECT(batch != NULL);
	if (batch == NULL)
		return;
	for (int mono = 0; mono <= 1; mono++)
	{
		tu_fake		fa = {0, 0x20, false, 0},
					fb = {0, 0x20, false, 0};
		cid_env		ea = {tu_fake_clock, tu_fake_random, NULL, &fa},
					eb = {tu_fake_clock, tu_fake_random, NULL, &fb};
		cid_ulid_gen a,
					b;
		size_t		mismatch = 0;

		EXPECT_EQ_INT(cid_ulid_init(&a, mono, &ea), CID_OK);
		EXPECT_EQ_INT(cid_ulid_init(&b, mono, &eb), CID_OK);
		for (size_t r = 0; r < sizeof(readings) / sizeof(readings[0]); r++)
		{
			size_t		done = 0;

			fa.now_ns = fb.now_ns = readings[r];
			EXPECT_EQ_INT(cid_ulid_fill(&a, batch, sizes[r], &done), CID_OK);
			EXPECT_EQ_U64(done, sizes[r]);
			for (size_t i = 0; i < sizes[r]; i++)
			{
				cid_ulid	u;

				EXPECT_EQ_INT(cid_ulid_next(&b, &u), CID_OK);
				if (memcmp(u.bytes, batch[i].bytes, 16) != 0)
					mismatch++;
			}
			if (mono)
				EXPECT_EQ_U64(count_not_increasing(batch, sizes[r]), 0);
			/* a clock behind keeps the last ms (monotonic) */
			if (mono && r == 2)
				EXPECT_EQ_INT(ms_of(batch[0].bytes), T0_MS);
		}
		printf("# %s mode: %zu mismatches\n", mono ? "monotonic" : "plain", mismatch);
		EXPECT_EQ_U64(mismatch, 0);
		/* monotonic: random bytes only for a new ms, in both */
		if (mono)
		{
			EXPECT_EQ_U64(fa.random_calls, 2);
			EXPECT_EQ_U64(fb.random_calls, 2);
			EXPECT_EQ_INT(memcmp(a.last, b.last, 16), 0);
		}
		else
			EXPECT_EQ_U64(fa.random_calls, 4);
	}
	free(batch);
}

/* A random source that hands out the bytes of *ctx (10 of them). */
static int
fixed_random(void *ctx, void *buf, size_t len)
{
	memcpy(buf, ctx, len < 10 ? len : 10);
	if (len > 10)
		memset((uint8_t *) buf + 10, 0, len - 10);
	return 0;
}

/* A clock stopped at T0, beside fixed_random (which has the context). */
static int64_t
stopped_clock(void *ctx)
{
	(void) ctx;
	return T0_MS * NS_PER_MS;
}

/*
 * The monotonic random part runs out in the middle of a batch: the values
 * up to 2^80 - 1 are issued, then CID_EMONOTONIC_OVERFLOW, also for a
 * fresh millisecond whose random start is near the top; a later ms starts
 * afresh.  And the carry from the low 64 bits into the high 16.
 */
static void
test_ulid_monotonic_runs_out(void)
{
	uint8_t		start[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd};
	tu_fake		f = {T0_MS * NS_PER_MS, 0, false, 0};
	/*
	 * One millisecond throughout: on the real clock the second fill below
	 * met a fresh ms whenever the thread was preempted between the two.
	 */
	cid_env		env = {stopped_clock, fixed_random, NULL, start};
	cid_ulid_gen gen;
	cid_ulid	u[8];
	char		text[CID_ULID_STRLEN + 1];
	size_t		done = 0;

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, &env), CID_OK);
	/* a fresh ms: 2^80 - 3 .. 2^80 - 1, three of eight */
	EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 8, &done), CID_EMONOTONIC_OVERFLOW);
	EXPECT_EQ_U64(done, 3);
	EXPECT_EQ_INT(memcmp(u[2].bytes + 6, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 10), 0);
	EXPECT_EQ_U64(count_not_increasing(u, 3), 0);
	EXPECT_EQ_INT(memcmp(gen.last, u[2].bytes, 16), 0);
	/* used up within this ms: nothing more */
	EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 8, &done), CID_EMONOTONIC_OVERFLOW);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_ulid_next(&gen, u), CID_EMONOTONIC_OVERFLOW);

	/* in the middle of a batch, from a seeded state, on the fake clock */
	env = (cid_env) {tu_fake_clock, tu_fake_random, NULL, &f};
	EXPECT_EQ_INT(cid_ulid_init(&gen, true, &env), CID_OK);
	EXPECT_EQ_INT(cid_ulid_parse(u, "01BX5ZZKBKZZZZZZZZZZZZZZZV", CID_ULID_STRLEN, NULL), CID_OK);
	f.now_ns = cid_ulid_unix_ms(u) * NS_PER_MS;
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, cid_ulid_unix_ms(u), u[0].bytes + 6, &u[1]), CID_OK);
	EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 8, &done), CID_EMONOTONIC_OVERFLOW);
	EXPECT_EQ_U64(done, 4);
	cid_ulid_format(text, &u[3]);
	EXPECT_STR(text, "01BX5ZZKBKZZZZZZZZZZZZZZZZ");
	/* a later ms starts afresh */
	f.now_ns += NS_PER_MS;
	EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 8, &done), CID_OK);
	EXPECT_EQ_U64(done, 8);
	EXPECT_EQ_U64(count_not_increasing(u, 8), 0);

	/* the low 64 bits carry into the high 16 inside a batch */
	EXPECT_EQ_INT(cid_ulid_init(&gen, true, &env), CID_OK);
	EXPECT_EQ_INT(cid_ulid_parse(u, "01BX5ZZKBK000FZZZZZZZZZZZY", CID_ULID_STRLEN, NULL), CID_OK);
	f.now_ns = cid_ulid_unix_ms(u) * NS_PER_MS;
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, cid_ulid_unix_ms(u), u[0].bytes + 6, &u[1]), CID_OK);
	EXPECT_EQ_INT(cid_ulid_fill(&gen, u, 3, &done), CID_OK);
	cid_ulid_format(text, &u[0]);
	EXPECT_STR(text, "01BX5ZZKBK000FZZZZZZZZZZZZ");
	cid_ulid_format(text, &u[1]);
	EXPECT_STR(text, "01BX5ZZKBK000G000000000000");
	cid_ulid_format(text, &u[2]);
	EXPECT_STR(text, "01BX5ZZKBK000G000000000001");
}

/* Huge batches on the platform's clock and random source. */
static void
test_ulid_huge_batch(void)
{
	size_t		n = tu_scale((size_t) 1 << 21, (size_t) 1 << 16);
	cid_ulid   *u = malloc(n * sizeof(cid_ulid));
	cid_ulid_gen gen;
	size_t		done = 0,
				dup = 0;
	int64_t		before,
				after;

	EXPECT(u != NULL);
	if (u == NULL)
		return;
	for (int mono = 0; mono <= 1; mono++)
	{
		EXPECT_EQ_INT(cid_ulid_init(&gen, mono, NULL), CID_OK);
		before = cid_platform_clock(NULL) / NS_PER_MS;
		EXPECT_EQ_INT(cid_ulid_fill(&gen, u, n, &done), CID_OK);
		after = cid_platform_clock(NULL) / NS_PER_MS;
		EXPECT_EQ_U64(done, n);
		/* one clock reading for the whole batch */
		EXPECT(ms_of(u[0].bytes) >= before && ms_of(u[0].bytes) <= after);
		EXPECT_EQ_INT(ms_of(u[n - 1].bytes), ms_of(u[0].bytes));
		if (mono)
			EXPECT_EQ_U64(count_not_increasing(u, n), 0);
		else
		{
			qsort(u, n, sizeof(cid_ulid), tu_cmp_rec16);
			dup = tu_count_adjacent_equal((const tu_rec16 *) u, n, 16);
			EXPECT_EQ_U64(dup, 0);
		}
	}
	free(u);
}

int
main(void)
{
	TAP_CASE(test_v7_arguments);
	TAP_CASE(test_v7_same_as_single_calls);
	TAP_CASE(test_v7_carry_and_clock_back);
	TAP_CASE(test_v7_random_fails);
	TAP_CASE(test_v7_time_field_runs_out);
	TAP_CASE(test_v7_huge_batch);
	TAP_CASE(test_v7_mixed_with_single_calls);
	TAP_CASE(test_v4_fill);
	TAP_CASE(test_ulid_arguments);
	TAP_CASE(test_ulid_same_as_single_calls);
	TAP_CASE(test_ulid_monotonic_runs_out);
	TAP_CASE(test_ulid_huge_batch);
	return tap_done();
}
