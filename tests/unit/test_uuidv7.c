/*
 * test_uuidv7.c — the UUIDv7 generator with an injected clock and random
 * source: the sub-millisecond fraction, stepping, clock rollback, the
 * carry into the next millisecond, shifts and their range errors.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define NS_PER_MS INT64_C(1000000)
/* 2022-02-22T19:22:22Z, RFC 9562's example instant */
#define T0_MS INT64_C(1645557742000)
#define MAX_MS ((INT64_C(1) << 48) - 1)

static const uint8_t zero8[8];

/* unix_ms of a generated UUID (bytes 0..5). */
static int64_t
ms_of(const cid_uuid *u)
{
	int64_t		ms = 0;

	for (int i = 0; i < 6; i++)
		ms = ms << 8 | u->bytes[i];
	return ms;
}

/* The 12-bit rand_a (fraction) of a generated UUID. */
static int
frac_of(const cid_uuid *u)
{
	return (u->bytes[6] & 0x0f) << 8 | u->bytes[7];
}

static void
test_fraction_exact(void)
{
	static const struct
	{
		int64_t		sub_ns;
		int			frac;
	}			cases[] = {
		{0, 0}, {244, 0}, {245, 1}, {123456, 505}, {500000, 2048},
		{999755, 4094}, {999756, 4095}, {999999, 4095},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_uuidv7_gen gen;
		cid_uuid	u;

		EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
		EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, T0_MS * NS_PER_MS + cases[i].sub_ns, 0,
										 zero8, &u), CID_OK);
		EXPECT_EQ_INT(ms_of(&u), T0_MS);
		EXPECT_EQ_INT(frac_of(&u), cases[i].frac);
		EXPECT_EQ_INT(cid_uuid_version(&u), 7);
	}
}

static void
test_layout_and_rand_b(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	u;
	char		buf[CID_UUID_STRLEN + 1];
	uint8_t		rand[8] = {0xff, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
	int64_t		ms;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, T0_MS * NS_PER_MS + 500000, 0, rand, &u),
				  CID_OK);
	cid_uuid_format(buf, &u);
	/* the A.6 instant, fraction 0x800, variant 10 over rand_b */
	EXPECT_STR(buf, "017f22e2-79b0-7800-bf11-223344556677");
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
	EXPECT_EQ_INT(ms, T0_MS);
}

static void
test_same_ns_steps_by_one(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	prev,
				u;
	int64_t		ns = T0_MS * NS_PER_MS + 123456;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &prev), CID_OK);
	for (int i = 1; i <= 10; i++)
	{
		EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &u), CID_OK);
		EXPECT_EQ_INT(ms_of(&u), T0_MS);
		EXPECT_EQ_INT(frac_of(&u), 505 + i);
		EXPECT(memcmp(prev.bytes, u.bytes, 16) < 0);
		prev = u;
	}
	/* a later reading inside the stepped range still steps */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns + 1000, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(frac_of(&u), 516);
	/* a reading past it jumps to the clock */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns + 100000, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(frac_of(&u), 223456 * 4096 / 1000000);
}

static void
test_clock_backwards(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	prev,
				u;
	int64_t		ns = T0_MS * NS_PER_MS + 500000;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &prev), CID_OK);
	/* one second, then one hour, back: still increasing, by one step */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns - 1000 * NS_PER_MS, 0, zero8, &u), CID_OK);
	EXPECT(memcmp(prev.bytes, u.bytes, 16) < 0);
	EXPECT_EQ_INT(ms_of(&u), T0_MS);
	EXPECT_EQ_INT(frac_of(&u), 2049);
	prev = u;
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns - 3600000 * NS_PER_MS, 0, zero8, &u), CID_OK);
	EXPECT(memcmp(prev.bytes, u.bytes, 16) < 0);
	EXPECT_EQ_INT(frac_of(&u), 2050);
	/* back to 1970 */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, 0, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS);
	EXPECT_EQ_INT(frac_of(&u), 2051);
}

static void
test_fraction_carries_into_next_ms(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	a,
				b,
				c;
	int64_t		ns = T0_MS * NS_PER_MS + 999999;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &a), CID_OK);
	EXPECT_EQ_INT(frac_of(&a), 4095);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &b), CID_OK);
	/* runs one millisecond ahead of the clock */
	EXPECT_EQ_INT(ms_of(&b), T0_MS + 1);
	EXPECT_EQ_INT(frac_of(&b), 0);
	EXPECT(memcmp(a.bytes, b.bytes, 16) < 0);
	/* the clock reaching that ms at fraction 0 still steps */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, (T0_MS + 1) * NS_PER_MS, 0, zero8, &c), CID_OK);
	EXPECT_EQ_INT(ms_of(&c), T0_MS + 1);
	EXPECT_EQ_INT(frac_of(&c), 1);
}

static void
test_time_range(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	u;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, -1, 0, zero8, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, INT64_MIN, 0, zero8, &u), CID_ETIME_RANGE);
	/* 1970 itself is fine; INT64_MAX ns (year 2262) is inside 48 bits */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, 0, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), 0);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, INT64_MAX, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), INT64_MAX / NS_PER_MS);
	EXPECT_EQ_INT(cid_uuidv7_next_at(NULL, 0, 0, zero8, &u), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, 0, 0, NULL, &u), CID_EINVAL);
}

static void
test_shift_exact(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	u;
	int64_t		ns = T0_MS * NS_PER_MS;

	/* whole milliseconds move only the ms field */
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns + 500000, 1000, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS + 1);
	EXPECT_EQ_INT(frac_of(&u), 2048);
	/* one day back */
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns + 500000, -INT64_C(86400000000), zero8, &u),
				  CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS - 86400000);
	EXPECT_EQ_INT(frac_of(&u), 2048);
	/* 1 us = 4.096 units, rounded down both ways */
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 1, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS);
	EXPECT_EQ_INT(frac_of(&u), 4);
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, -1, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS - 1);
	EXPECT_EQ_INT(frac_of(&u), 4091);
	/* the state is kept unshifted: a later plain call steps from it */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS);
	EXPECT_EQ_INT(frac_of(&u), 1);
}

/* Days from 1970-01-01 to y-01-01 (proleptic Gregorian). */
static int64_t
days_to_year(int64_t y)
{
	int64_t		days = 0;

	for (int64_t k = 1970; k < y; k++)
		days += (k % 4 == 0 && (k % 100 != 0 || k % 400 == 0)) ? 366 : 365;
	return days;
}

static void
test_shift_yearly_sweep(void)
{
	tu_fake		f = {T0_MS * NS_PER_MS + 777777, 0, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	cid_uuid	prev,
				u;
	int64_t		year_ms = 0;
	int			bad_order = 0,
				bad_ms = 0,
				bad_rc = 0;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	memset(prev.bytes, 0, 16);
	for (int64_t y = 1970; y <= 10888; y++)
	{
		int64_t		shift_us;

		year_ms = days_to_year(y) * 86400000;
		shift_us = (year_ms - T0_MS) * 1000;
		if (cid_uuidv7_next_shifted(&gen, shift_us, &u) != CID_OK)
		{
			bad_rc++;
			continue;
		}
		if (memcmp(prev.bytes, u.bytes, 16) >= 0)
			bad_order++;
		/* each call steps the state once: at most 8919 units, ~2 ms */
		if (ms_of(&u) < year_ms || ms_of(&u) > year_ms + 3)
			bad_ms++;
		prev = u;
	}
	EXPECT_EQ_INT(bad_rc, 0);
	EXPECT_EQ_INT(bad_order, 0);
	EXPECT_EQ_INT(bad_ms, 0);
	EXPECT_EQ_INT(year_ms, INT64_C(281424931200000));	/* 10888-01-01 */
}

static void
test_shift_out_of_range(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	u;
	int64_t		ns = T0_MS * NS_PER_MS;
	int64_t		to_max_us = (MAX_MS - T0_MS) * 1000;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	/* the last millisecond the field holds, then one past it */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, to_max_us, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), MAX_MS);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, to_max_us + 1000, zero8, &u),
				  CID_ETIME_RANGE);
	/* to 1970 exactly, then one ms before */
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, -T0_MS * 1000, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), 0);
	EXPECT_EQ_INT(frac_of(&u), 0);
	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, -T0_MS * 1000 - 1000, zero8, &u),
				  CID_ETIME_RANGE);
	/* extremes: no overflow (UBSan watches), a range error each */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, INT64_MAX, zero8, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, INT64_MIN, zero8, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, INT64_MAX / 2, zero8, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, -(INT64_C(1) << 62), zero8, &u),
				  CID_ETIME_RANGE);
	/* around the internal cut-off: 2^52 * 125 us and just past it */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, (INT64_C(1) << 52) * 125, zero8, &u),
				  CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, (INT64_C(1) << 52) * 125 + 125, zero8, &u),
				  CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, -(INT64_C(1) << 52) * 125 - 1, zero8, &u),
				  CID_ETIME_RANGE);
	/* none of the failures moved the state: this is the clock's value */
	EXPECT_EQ_INT(cid_uuidv7_next_at(&gen, ns, 0, zero8, &u), CID_OK);
	EXPECT_EQ_INT(ms_of(&u), T0_MS);
	EXPECT_EQ_INT(frac_of(&u), 0);
}

static void
test_next_reads_env(void)
{
	tu_fake		f = {T0_MS * NS_PER_MS + 245, 0x40, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	cid_uuid	u;
	char		buf[CID_UUID_STRLEN + 1];

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &u), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "017f22e2-79b0-7001-8041-424344454647");
	EXPECT_EQ_INT(f.next_byte, 0x48);	/* exactly 8 bytes taken */
	f.fail_random = true;
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &u), CID_ERANDOM);
	f.fail_random = false;
	f.now_ns = -5;				/* the clock reports failure */
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &u), CID_ECLOCK);
	/* the env was copied: changing ours later does not matter */
	env.clock = NULL;
	f.now_ns = T0_MS * NS_PER_MS + 245;
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &u), CID_OK);
	EXPECT_EQ_INT(frac_of(&u), 2);
}

static void
test_platform_default(void)
{
	cid_uuidv7_gen gen;
	cid_uuid	a,
				b;
	int64_t		ms;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &a), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next(&gen, &b), CID_OK);
	EXPECT(memcmp(a.bytes, b.bytes, 16) < 0);
	EXPECT_EQ_INT(cid_uuid_version(&b), 7);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &b), CID_OK);
	/* after 2025-01-01, before 2100-01-01 */
	EXPECT(ms > INT64_C(1735689600000) && ms < INT64_C(4102444800000));
}

int
main(void)
{
	TAP_CASE(test_fraction_exact);
	TAP_CASE(test_layout_and_rand_b);
	TAP_CASE(test_same_ns_steps_by_one);
	TAP_CASE(test_clock_backwards);
	TAP_CASE(test_fraction_carries_into_next_ms);
	TAP_CASE(test_time_range);
	TAP_CASE(test_shift_exact);
	TAP_CASE(test_shift_yearly_sweep);
	TAP_CASE(test_shift_out_of_range);
	TAP_CASE(test_next_reads_env);
	TAP_CASE(test_platform_default);
	return tap_done();
}
