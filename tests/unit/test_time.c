/*
 * test_time.c — UTC time text: RFC 3339 output, the parser's forms and
 * errors, and the calendar arithmetic against a day-by-day count.
 */
#include "chronoid.h"
#include "time_internal.h"
#include "tap.h"
#include "testutil.h"

static void
expect_format(int64_t ms, const char *want)
{
	char		buf[CID_TIME_STRLEN + 1];

	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ_INT(cid_time_format(buf, ms), CID_OK);
	EXPECT_STR(buf, want);
}

static void
test_format_known(void)
{
	expect_format(0, "1970-01-01T00:00:00.000Z");
	/* RFC 9562 A.6 */
	expect_format(INT64_C(1645557742000), "2022-02-22T19:22:22.000Z");
	/* ULID spec example */
	expect_format(INT64_C(1469922850259), "2016-07-30T23:54:10.259Z");
	expect_format(INT64_C(1672531200000), "2023-01-01T00:00:00.000Z");
	expect_format(INT64_C(951782400000), "2000-02-29T00:00:00.000Z");
	expect_format(INT64_C(-2203891200000), "1900-03-01T00:00:00.000Z");
}

static void
test_format_negative_floor(void)
{
	/* one ms before the Unix epoch is the last ms of 1969, not 1970 */
	expect_format(-1, "1969-12-31T23:59:59.999Z");
	expect_format(-1000, "1969-12-31T23:59:59.000Z");
	expect_format(-86400000, "1969-12-31T00:00:00.000Z");
	expect_format(-86400001, "1969-12-30T23:59:59.999Z");
}

static void
test_format_range(void)
{
	char		buf[CID_TIME_STRLEN + 1];

	expect_format(INT64_C(-62167219200000), "0000-01-01T00:00:00.000Z");
	EXPECT_EQ_INT(cid_time_format(buf, INT64_C(-62167219200001)), CID_ETIME_RANGE);
	/* the largest 48-bit ms (ULID / UUIDv7 end) needs a 5-digit year */
	expect_format(INT64_C(281474976710655), "10889-08-02T05:31:50.655Z");
	EXPECT_EQ_INT(strlen("10889-08-02T05:31:50.655Z"), CID_TIME_STRLEN);
	EXPECT_EQ_INT(cid_time_format(buf, INT64_MAX), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_time_format(buf, INT64_MIN), CID_ETIME_RANGE);
}

static int
parse_str(int64_t *ms, const char *s, size_t *errpos)
{
	return cid_time_parse(ms, s, strlen(s), errpos);
}

static void
test_parse_forms(void)
{
	int64_t		ms = 0;
	size_t		ep = 99;

	EXPECT_EQ_INT(parse_str(&ms, "2023-01-01", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1672531200000));
	EXPECT_EQ_INT(parse_str(&ms, "2022-02-22T19:22:22Z", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(parse_str(&ms, "2022-02-22 19:22:22", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(parse_str(&ms, "2023-10-16T18:47:12.257Z", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1697482032257));
	EXPECT_EQ_INT(parse_str(&ms, "2023-10-16T18:47:12.5", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1697482032500));
	/* sub-millisecond digits are cut, not rounded */
	EXPECT_EQ_INT(parse_str(&ms, "2023-10-16T18:47:12.257999999Z", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1697482032257));
	EXPECT_EQ_INT(parse_str(&ms, "1645557742000", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(parse_str(&ms, "-1", &ep), CID_OK);
	EXPECT_EQ_INT(ms, -1);
	EXPECT_EQ_INT(parse_str(&ms, "-9223372036854775808", &ep), CID_OK);
	EXPECT(ms == INT64_MIN);
	EXPECT_EQ_INT(parse_str(&ms, "10889-08-02T05:31:50.655Z", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(281474976710655));
	EXPECT_EQ_INT(parse_str(&ms, "1969-12-31T23:59:59.999", &ep), CID_OK);
	EXPECT_EQ_INT(ms, -1);
}

static void
test_parse_no_nul_needed(void)
{
	int64_t		ms = 0;
	size_t		ep = 0;
	const char	text[] = "2023-01-01T00:00:00Zgarbage";

	/* only len characters are read */
	EXPECT_EQ_INT(cid_time_parse(&ms, text, 20, &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1672531200000));
	EXPECT_EQ_INT(cid_time_parse(&ms, text, 10, &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1672531200000));
}

static void
test_parse_syntax_errors(void)
{
	static const struct
	{
		const char *s;
		size_t		pos;
	}			cases[] = {
		{"", 0},
		{"2023/01/01", 4},
		{"2023-01-0x", 9},
		{"2023-1-01", 6},
		{"12a", 2},
		{"2023-01-01T00:00:00+01:00", 19},
		{"2023-01-01X00:00:00", 10},
		{"2023-01-01T00:00", 16},
		{"2023-01-01T00:00:00.", 20},
		{"2023-01-01T00:00:00.123Zx", 24},
		{"-", 1},
		{"-12x", 3},
		{"123456-01-01", 5},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int64_t		ms = 0;
		size_t		ep = 999;
		int			rc = parse_str(&ms, cases[i].s, &ep);

		EXPECT_EQ_INT(rc, CID_ESYNTAX);
		EXPECT_EQ_INT(ep, cases[i].pos);
		if (rc != CID_ESYNTAX || ep != cases[i].pos)
			printf("#     input \"%s\"\n", cases[i].s);
	}
}

static void
test_parse_range_errors(void)
{
	static const char *const cases[] = {
		"2023-13-01", "2023-00-10", "2023-02-29", "2023-02-30", "1900-02-29",
		"2023-04-31", "2023-01-00", "2023-01-01T24:00:00", "2023-01-01T23:60:00",
		"2023-01-01T23:59:60", "9223372036854775808", "-9223372036854775809",
	};
	int64_t		ms;
	size_t		ep;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int			rc = parse_str(&ms, cases[i], &ep);

		EXPECT_EQ_INT(rc, CID_ETIME_RANGE);
		if (rc != CID_ETIME_RANGE)
			printf("#     input \"%s\"\n", cases[i]);
	}
	/* leap days that do exist */
	EXPECT_EQ_INT(parse_str(&ms, "2000-02-29", &ep), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(951782400000));
	EXPECT_EQ_INT(parse_str(&ms, "2024-02-29T23:59:59.999Z", &ep), CID_OK);
}

/* Format then parse gives back the same instant, over a wide spread. */
static void
test_round_trip(void)
{
	uint64_t	x = 88172645463325252u;
	int			bad = 0;

	for (int i = 0; i < 200000; i++)
	{
		char		buf[CID_TIME_STRLEN + 1];
		int64_t		ms,
					back = 0;

		/* xorshift64 spread over years 0000 .. 10889 */
		ms = (int64_t) (tu_xorshift64(&x) % UINT64_C(343642195910655))
			- INT64_C(62167219200000);
		if (cid_time_format(buf, ms) != CID_OK ||
			cid_time_parse(&back, buf, strlen(buf), NULL) != CID_OK || back != ms)
			bad++;
	}
	EXPECT_EQ_INT(bad, 0);
}

/* The era arithmetic agrees with plainly counting days from 0000-01-01. */
static void
test_calendar_day_by_day(void)
{
	int64_t		days = cid_days_from_civil(0, 1, 1);
	int			bad = 0;

	EXPECT_EQ_INT(days, INT64_C(-719528));
	EXPECT_EQ_INT(cid_days_from_civil(1970, 1, 1), 0);
	for (int64_t y = 0; y <= 10000; y++)
	{
		for (int m = 1; m <= 12; m++)
		{
			for (int d = 1; d <= cid_days_in_month(y, m); d++)
			{
				int64_t		yy;
				int			mm,
							dd;

				if (cid_days_from_civil(y, m, d) != days)
					bad++;
				cid_civil_from_days(days, &yy, &mm, &dd);
				if (yy != y || mm != m || dd != d)
					bad++;
				days++;
			}
		}
	}
	EXPECT_EQ_INT(bad, 0);
	/* 10001 years hold 10001 * 365 + 2426 leap days (2501 - 101 + 26) */
	EXPECT_EQ_INT(days - cid_days_from_civil(0, 1, 1), INT64_C(3652791));
}

static void
test_floor_helpers(void)
{
	EXPECT_EQ_INT(cid_floor_div(-1, 1000), -1);
	EXPECT_EQ_INT(cid_floor_div(-1000, 1000), -1);
	EXPECT_EQ_INT(cid_floor_div(-1001, 1000), -2);
	EXPECT_EQ_INT(cid_floor_div(999, 1000), 0);
	EXPECT_EQ_INT(cid_floor_mod(-1, 1000), 999);
	EXPECT_EQ_INT(cid_floor_mod(1001, 1000), 1);
	EXPECT_EQ_INT(cid_floor_div(INT64_MIN, 1000), INT64_MIN / 1000 - 1);
	EXPECT_EQ_INT(cid_floor_mod(INT64_MIN, 1000), 192);
}

int
main(void)
{
	TAP_CASE(test_format_known);
	TAP_CASE(test_format_negative_floor);
	TAP_CASE(test_format_range);
	TAP_CASE(test_parse_forms);
	TAP_CASE(test_parse_no_nul_needed);
	TAP_CASE(test_parse_syntax_errors);
	TAP_CASE(test_parse_range_errors);
	TAP_CASE(test_round_trip);
	TAP_CASE(test_calendar_day_by_day);
	TAP_CASE(test_floor_helpers);
	return tap_done();
}
