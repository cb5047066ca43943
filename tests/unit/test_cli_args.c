/*
 * test_cli_args.c — the values the chronoid commands parse from their
 * command lines (cli/args.c): unsigned numbers, durations and node ranges.
 */
#include "cli_internal.h"
#include "tap.h"

static void
test_parse_uint(void)
{
	uint64_t	v = 0;

	EXPECT(cli_parse_uint("0", 10, &v));
	EXPECT(v == 0);
	EXPECT(cli_parse_uint("10", 10, &v));
	EXPECT(v == 10);
	EXPECT(!cli_parse_uint("11", 10, &v));
	EXPECT(cli_parse_uint("18446744073709551615", UINT64_MAX, &v));
	EXPECT(v == UINT64_MAX);
	EXPECT(!cli_parse_uint("18446744073709551616", UINT64_MAX, &v));
	EXPECT(!cli_parse_uint("99999999999999999999", UINT64_MAX, &v));
	EXPECT(cli_parse_uint("1023", 1023, &v));
	EXPECT(!cli_parse_uint("1024", 1023, &v));
	EXPECT(cli_parse_uint("0", 0, &v));
	EXPECT(v == 0);
	EXPECT(!cli_parse_uint("1", 0, &v));
	EXPECT(!cli_parse_uint("10", 9, &v));
	EXPECT(cli_parse_uint("9", 9, &v));
	EXPECT(!cli_parse_uint("", 10, &v));
	EXPECT(!cli_parse_uint("+1", 10, &v));
	EXPECT(!cli_parse_uint("1 ", 10, &v));
}

static void
test_parse_duration(void)
{
	int64_t		ms = -1;

	EXPECT(cli_parse_duration("30s", &ms));
	EXPECT_EQ_INT(ms, 30000);
	EXPECT(cli_parse_duration("500ms", &ms));
	EXPECT_EQ_INT(ms, 500);
	EXPECT(cli_parse_duration("2m", &ms));
	EXPECT_EQ_INT(ms, 120000);
	EXPECT(cli_parse_duration("1h", &ms));
	EXPECT_EQ_INT(ms, 3600000);
	EXPECT(cli_parse_duration("7", &ms));
	EXPECT_EQ_INT(ms, 7000);
	EXPECT(cli_parse_duration("24h", &ms));
	EXPECT_EQ_INT(ms, 86400000);
	ms = 42;
	EXPECT(!cli_parse_duration("", &ms));
	EXPECT(!cli_parse_duration("s", &ms));
	EXPECT(!cli_parse_duration("10x", &ms));
	EXPECT(!cli_parse_duration("-1s", &ms));
	EXPECT(!cli_parse_duration("25h", &ms));
	EXPECT(!cli_parse_duration("86400001ms", &ms));
	EXPECT(!cli_parse_duration("99999999999999999999s", &ms));
	EXPECT(!cli_parse_duration("1 s", &ms));
	EXPECT_EQ_INT(ms, 42);
}

static void
test_parse_range(void)
{
	uint64_t	lo = 0,
				hi = 0;

	EXPECT(cli_parse_range("5", &lo, &hi));
	EXPECT_EQ_U64(lo, 5);
	EXPECT_EQ_U64(hi, 5);
	EXPECT(cli_parse_range("1-1023", &lo, &hi));
	EXPECT_EQ_U64(lo, 1);
	EXPECT_EQ_U64(hi, 1023);
	EXPECT(!cli_parse_range("7-3", &lo, &hi));
	EXPECT(!cli_parse_range("", &lo, &hi));
	EXPECT(!cli_parse_range("-3", &lo, &hi));
	EXPECT(!cli_parse_range("3-", &lo, &hi));
	EXPECT(!cli_parse_range("a-b", &lo, &hi));
	EXPECT(!cli_parse_range("1-2-3", &lo, &hi));
	EXPECT(!cli_parse_range("4294967296", &lo, &hi));
	EXPECT_EQ_U64(lo, 1);
	EXPECT_EQ_U64(hi, 1023);
}

int
main(void)
{
	TAP_CASE(test_parse_uint);
	TAP_CASE(test_parse_duration);
	TAP_CASE(test_parse_range);
	return tap_done();
}
