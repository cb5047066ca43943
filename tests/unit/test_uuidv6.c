/*
 * test_uuidv6.c — UUID versions 1 and 6: the 60-bit Gregorian timestamp
 * and the v1 <-> v6 conversion against RFC 9562's Appendix A examples,
 * refusals of other versions, the field's limits, and the v6 generator's
 * pure step (same tick, clock behind, end of the field) with an injected
 * clock and random source, a random walk of the clock against a model of
 * the step, and across threads.
 */
#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

/* RFC 9562 A.1 and A.5 (tests/vectors.md): the same instant and node. */
#define A1 "c232ab00-9414-11ec-b3c8-9f6bdeced846"
#define A5 "1ec9414c-232a-6b00-b3c8-9f6bdeced846"
#define A_TICKS UINT64_C(138648505420000000)	/* 2022-02-22T19:22:22Z */

static cid_uuid
uuid_of(const char *s)
{
	cid_uuid	u;

	memset(&u, 0, sizeof(u));
	if (cid_uuid_parse(&u, s, strlen(s), NULL) != CID_OK)
		printf("#     cannot parse %s\n", s);
	return u;
}

static const char *
text(const cid_uuid *u)
{
	static char buf[CID_UUID_STRLEN + 1];

	cid_uuid_format(buf, u);
	return buf;
}

static void
test_rfc_examples(void)
{
	cid_uuid	v1 = uuid_of(A1),
				v6 = uuid_of(A5),
				out;
	uint64_t	ticks = 0;
	int64_t		ms = 0;

	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&ticks, &v1), CID_OK);
	EXPECT_EQ_U64(ticks, A_TICKS);
	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&ticks, &v6), CID_OK);
	EXPECT_EQ_U64(ticks, A_TICKS);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &v6), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(cid_uuid_v1_to_v6(&out, &v1), CID_OK);
	EXPECT_STR(text(&out), A5);
	EXPECT_EQ_INT(cid_uuid_v6_to_v1(&out, &v6), CID_OK);
	EXPECT_STR(text(&out), A1);
	/* in place */
	EXPECT_EQ_INT(cid_uuid_v1_to_v6(&v1, &v1), CID_OK);
	EXPECT_STR(text(&v1), A5);
	/* the RFC's v6 is the same tick with its clock sequence and node */
	EXPECT_EQ_INT(cid_uuidv6_from_ticks(&out, A_TICKS, NULL), CID_OK);
	EXPECT_STR(text(&out), "1ec9414c-232a-6b00-8000-000000000000");
}

static void
test_refusals(void)
{
	static const char *const others[] = {
		"5df41881-3aed-3515-88a7-2f4a814cf09e",	/* v3 */
		"919108f7-52d1-4320-9bac-f847db4148a8",	/* v4 */
		"017f22e2-79b0-7cc3-98c4-dc0c0c07398f",	/* v7 */
		"00000000-0000-0000-0000-000000000000",	/* nil */
		"ffffffff-ffff-ffff-ffff-ffffffffffff",	/* max */
		"c232ab00-9414-11ec-33c8-9f6bdeced846",	/* v1 bits, NCS variant */
	};
	cid_uuid	v1 = uuid_of(A1),
				v6 = uuid_of(A5),
				out;
	uint64_t	ticks;

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
	{
		cid_uuid	u = uuid_of(others[i]);

		EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&ticks, &u), CID_ENOTIME);
		EXPECT_EQ_INT(cid_uuid_v1_to_v6(&out, &u), CID_EINVAL);
		EXPECT_EQ_INT(cid_uuid_v6_to_v1(&out, &u), CID_EINVAL);
	}
	/* each conversion takes its own version only */
	EXPECT_EQ_INT(cid_uuid_v1_to_v6(&out, &v6), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuid_v6_to_v1(&out, &v1), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuid_v1_to_v6(NULL, &v1), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(NULL, &v1), CID_EINVAL);
}

/* The field's ends: 1582-10-15 and 2^60 - 1 (year 5236), both ways. */
static void
test_limits(void)
{
	static const uint64_t ticks_cases[] = {0, 1, 0xfff, 0x1000, A_TICKS,
	(UINT64_C(1) << 60) - 1};
	cid_uuid	v6,
				v1,
				back;
	uint64_t	t;
	int64_t		ms;

	for (size_t i = 0; i < sizeof(ticks_cases) / sizeof(ticks_cases[0]); i++)
	{
		static const uint8_t r[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

		EXPECT_EQ_INT(cid_uuidv6_from_ticks(&v6, ticks_cases[i], r), CID_OK);
		EXPECT_EQ_INT(cid_uuid_version(&v6), 6);
		EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&t, &v6), CID_OK);
		EXPECT_EQ_U64(t, ticks_cases[i]);
		EXPECT_EQ_INT(cid_uuid_v6_to_v1(&v1, &v6), CID_OK);
		EXPECT_EQ_INT(cid_uuid_version(&v1), 1);
		EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&t, &v1), CID_OK);
		EXPECT_EQ_U64(t, ticks_cases[i]);
		EXPECT_EQ_INT(cid_uuid_v1_to_v6(&back, &v1), CID_OK);
		EXPECT(memcmp(back.bytes, v6.bytes, 16) == 0);
	}
	EXPECT_EQ_INT(cid_uuidv6_from_ticks(&v6, UINT64_C(1) << 60, NULL), CID_ETIME_RANGE);
	/* 1582-10-15 is before 1970: a negative Unix time */
	EXPECT_EQ_INT(cid_uuidv6_from_ticks(&v6, 0, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &v6), CID_OK);
	EXPECT_EQ_INT(ms, -INT64_C(12219292800000));
	EXPECT_STR(text(&v6), "00000000-0000-6000-8000-000000000000");
}

static void
test_random_bits(void)
{
	static const uint8_t r[8] = {0xff, 0x12, 0x00, 0x34, 0x56, 0x78, 0x9a, 0xbc};
	cid_uuid	v6;

	EXPECT_EQ_INT(cid_uuidv6_from_ticks(&v6, A_TICKS, r), CID_OK);
	/* variant 10 over the clock sequence; the node's multicast bit set */
	EXPECT_STR(text(&v6), "1ec9414c-232a-6b00-bf12-01345678" "9abc");
}

static void
test_generator_step(void)
{
	static const uint8_t r[8] = {0};
	tu_fake		f = {.now_ns = INT64_C(1645557742) * 1000 * TU_NS_PER_MS, .next_byte = 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv6_gen gen;
	cid_uuid	a,
				b;
	uint64_t	ta,
				tb;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, f.now_ns + 99, r, &a), CID_OK);
	EXPECT_STR(text(&a), "1ec9414c-232a-6b00-8000-010000000000");
	/* the same 100-ns tick: the next one */
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, f.now_ns, r, &b), CID_OK);
	EXPECT_STR(text(&b), "1ec9414c-232a-6b01-8000-010000000000");
	/* a clock 1 s behind: still after the last */
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, f.now_ns - INT64_C(1000000000), r, &b), CID_OK);
	EXPECT_STR(text(&b), "1ec9414c-232a-6b02-8000-010000000000");
	/* the driver: env's clock and random bytes */
	f.now_ns += 1000;
	EXPECT_EQ_INT(cid_uuidv6_next(&gen, &a), CID_OK);
	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&ta, &a), CID_OK);
	EXPECT_EQ_U64(ta, A_TICKS + 10);
	/* clock sequence 00 01, node 02..07 with the multicast bit: 03 */
	EXPECT_STR(text(&a) + 19, "8001-030304050607");
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, -1, r, &a), CID_ETIME_RANGE);
	f.fail_random = true;
	EXPECT_EQ_INT(cid_uuidv6_next(&gen, &a), CID_ERANDOM);
	/* a fresh generator issues the clock's tick, the Unix epoch here */
	EXPECT_EQ_INT(cid_uuidv6_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, 0, r, &b), CID_OK);
	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&tb, &b), CID_OK);
	EXPECT_EQ_U64(tb, (uint64_t) CID_UUID_GREGORIAN_OFFSET);
	EXPECT_EQ_INT(cid_uuidv6_next_at(NULL, 0, r, &b), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv6_init(NULL, &env), CID_EINVAL);
}

/* Unix ns of RFC 9562's example instant, and a v6's tick. */
#define A_NS (INT64_C(1645557742) * 1000 * TU_NS_PER_MS)

static uint64_t
ticks_of(const cid_uuid *u)
{
	uint64_t	t = 0;

	if (cid_uuid_gregorian_ticks(&t, u) != CID_OK)
		printf("#     not a v6: %s\n", text(u));
	return t;
}

/*
 * The clock steps back, stays behind for a while, then passes the last
 * tick issued: every UUID is one tick after the last until the clock's
 * own tick is ahead again, which is then used as it is.  The clock
 * sequence and node are rand's each time: the order never rests on them.
 */
static void
test_clock_back_and_rejoin(void)
{
	static const uint8_t r[8] = {0x3f, 0xff, 0, 0, 0, 0, 0, 0};
	cid_uuidv6_gen gen;
	cid_uuid	u,
				prev;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &u), CID_OK);
	EXPECT_STR(text(&u), "1ec9414c-232a-6b00-bfff-010000000000");
	prev = u;
	/* a minute back, then an hour back: still after the last */
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS - INT64_C(60000000000), r, &u), CID_OK);
	EXPECT_STR(text(&u), "1ec9414c-232a-6b01-bfff-010000000000");
	EXPECT(memcmp(prev.bytes, u.bytes, 16) < 0);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS - INT64_C(3600000000000), r, &u), CID_OK);
	EXPECT_EQ_U64(ticks_of(&u), A_TICKS + 2);
	/* the clock comes forward but is still behind the last tick issued */
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS + 100, r, &u), CID_OK);
	EXPECT_EQ_U64(ticks_of(&u), A_TICKS + 3);
	/* ahead of it: the clock's own tick, no longer stepped */
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS + 1000, r, &u), CID_OK);
	EXPECT_EQ_U64(ticks_of(&u), A_TICKS + 10);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS + 1000, r, &u), CID_OK);
	EXPECT_EQ_U64(ticks_of(&u), A_TICKS + 11);
	/* a refused reading (before 1970) leaves the state as it was */
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, -100, r, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, 0, r, &u), CID_OK);
	EXPECT_EQ_U64(ticks_of(&u), A_TICKS + 12);
}

/*
 * One clock reading repeated: tick t, t + 1, ... each UUID above the last
 * as bytes, through the carries of the 12-bit time_low into time_mid
 * (every 4096) and, from a state placed just below it, of the 16-bit
 * time_mid into time_high.
 */
static void
test_same_tick_many(void)
{
	static const uint8_t r[8] = {0};
	size_t		n = tu_scale(100000, 20000);
	size_t		bad_order = 0,
				bad_ticks = 0;
	cid_uuidv6_gen gen;
	cid_uuid	u,
				prev;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &prev), CID_OK);
	for (size_t i = 1; i < n; i++)
	{
		if (cid_uuidv6_next_at(&gen, A_NS, r, &u) != CID_OK ||
			ticks_of(&u) != A_TICKS + i)
			bad_ticks++;
		if (memcmp(prev.bytes, u.bytes, 16) >= 0)
			bad_order++;
		prev = u;
	}
	EXPECT_EQ_U64(bad_ticks, 0);
	EXPECT_EQ_U64(bad_order, 0);
	/* 0xb00 + 0x500: the first carry out of time_low */
	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	for (int i = 0; i < 0x500; i++)
		EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &u), CID_OK);
	EXPECT_STR(text(&u), "1ec9414c-232a-6fff-8000-010000000000");
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &u), CID_OK);
	EXPECT_STR(text(&u), "1ec9414c-232b-6000-8000-010000000000");
	/* the last tick of a time_mid: the next carries into time_high */
	atomic_store(cid_atomic_u64(&gen.state), UINT64_C(0x1ec9414cffffffe));
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &prev), CID_OK);
	EXPECT_STR(text(&prev), "1ec9414c-ffff-6fff-8000-010000000000");
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &u), CID_OK);
	EXPECT_STR(text(&u), "1ec9414d-0000-6000-8000-010000000000");
	EXPECT(memcmp(prev.bytes, u.bytes, 16) < 0);
}

/*
 * The end of the 60-bit field (year 5236): no clock reading reaches it
 * (int64 ns end in 2262), only a run of steps past a stalled clock; the
 * state is placed there.  The last tick is issued once, then every call
 * fails and nothing wraps to 1582.
 */
static void
test_field_end(void)
{
	static const uint8_t r[8] = {0};
	cid_uuidv6_gen gen;
	cid_uuid	u;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	atomic_store(cid_atomic_u64(&gen.state), (UINT64_C(1) << 60) - 2);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &u), CID_OK);
	EXPECT_STR(text(&u), "ffffffff-ffff-6fff-8000-010000000000");
	memset(&u, 0xaa, sizeof(u));
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, A_NS, r, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, INT64_MAX, r, &u), CID_ETIME_RANGE);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)), (UINT64_C(1) << 60) - 1);
	/* the largest clock reading is far inside the field */
	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, INT64_MAX, r, &u), CID_OK);
	EXPECT_EQ_U64(ticks_of(&u), (uint64_t) (INT64_MAX / 100 + CID_UUID_GREGORIAN_OFFSET));
}

/*
 * A clock that jumps back and forth (whole ticks, parts of a tick,
 * standing still) against the rule the header states: each UUID's tick is
 * the larger of the clock's and the last one's plus one, and the UUIDs
 * strictly increase as bytes whatever rand says.
 */
static void
test_clock_walk_model(void)
{
	uint64_t	rng = 0x9e3779b97f4a7c15u;
	size_t		n = tu_scale(200000, 20000);
	size_t		wrong = 0,
				unordered = 0,
				behind = 0;
	int64_t		now = A_NS;
	uint64_t	last = 0;
	cid_uuidv6_gen gen;
	cid_uuid	u,
				prev;

	memset(&prev, 0, sizeof(prev));
	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	x = tu_rng_next(&rng);
		uint8_t		r[8];
		uint64_t	want,
					clock_tick;

		switch (x % 4)
		{
			case 0:				/* stands still */
				break;
			case 1:				/* forward, up to 3 us */
				now += (int64_t) ((x >> 8) % 3000);
				break;
			case 2:				/* back, up to 3 us */
				now -= (int64_t) ((x >> 8) % 3000);
				break;
			default:			/* a rare big step back: 1 s */
				if ((x >> 8) % 64 == 0)
					now -= INT64_C(1000000000);
				break;
		}
		memcpy(r, &x, sizeof(r));
		clock_tick = (uint64_t) (now / 100) + (uint64_t) CID_UUID_GREGORIAN_OFFSET;
		want = clock_tick > last ? clock_tick : last + 1;
		if (clock_tick <= last)
			behind++;
		if (cid_uuidv6_next_at(&gen, now, r, &u) != CID_OK || ticks_of(&u) != want)
			wrong++;
		if (i > 0 && memcmp(prev.bytes, u.bytes, 16) >= 0)
			unordered++;
		last = want;
		prev = u;
	}
	EXPECT_EQ_U64(wrong, 0);
	EXPECT_EQ_U64(unordered, 0);
	/* the walk did spend time behind the last tick */
	EXPECT(behind > n / 4);
}

static int
next_v6(void *gen, uint8_t *out)
{
	return cid_uuidv6_next(gen, (cid_uuid *) (void *) out);
}

/* Threads share one generator: every UUID after its thread's last, none twice. */
static void
test_threads(void)
{
	cid_uuidv6_gen gen;
	tu_mt_run	run;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	memset(&run, 0, sizeof(run));
	run.gen = &gen;
	run.next = next_v6;
	run.total = tu_scale(400000, 40000);
	run.allowed_ms = 1000;
	run.what = "UUIDv6s";
	/* the window check reads a v7 time: not asserted for v6 */
	tu_mt_share_generator(&run);
	EXPECT_EQ_U64(run.errors, 0);
	EXPECT_EQ_U64(run.not_increasing, 0);
	EXPECT_EQ_U64(run.dup_full, 0);
	free(run.ids);
}

int
main(void)
{
	TAP_CASE(test_rfc_examples);
	TAP_CASE(test_refusals);
	TAP_CASE(test_limits);
	TAP_CASE(test_random_bits);
	TAP_CASE(test_generator_step);
	TAP_CASE(test_clock_back_and_rejoin);
	TAP_CASE(test_same_tick_many);
	TAP_CASE(test_field_end);
	TAP_CASE(test_clock_walk_model);
	TAP_CASE(test_threads);
	return tap_done();
}
