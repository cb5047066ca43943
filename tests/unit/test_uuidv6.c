/*
 * test_uuidv6.c — UUID versions 1 and 6: the 60-bit Gregorian timestamp
 * and the v1 <-> v6 conversion against RFC 9562's Appendix A examples,
 * refusals of other versions, the field's limits, and the v6 generator's
 * pure step (same tick, clock behind, end of the field) with an injected
 * clock and random source, and across threads.
 */
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
	/* the field's end: a state at 2^60 - 1 cannot step */
	EXPECT_EQ_INT(cid_uuidv6_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_next_at(&gen, 0, r, &b), CID_OK);
	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&tb, &b), CID_OK);
	EXPECT_EQ_U64(tb, (uint64_t) CID_UUID_GREGORIAN_OFFSET);
	EXPECT_EQ_INT(cid_uuidv6_next_at(NULL, 0, r, &b), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv6_init(NULL, &env), CID_EINVAL);
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
	TAP_CASE(test_threads);
	return tap_done();
}
