/*
 * test_lease_args.c — the values "chronoid lease" parses from its command
 * line (db/chronoid-lease/lease_args.c): durations and node ranges.
 */
#include "lease_cmd_internal.h"
#include "tap.h"

static void
test_parse_duration(void)
{
	int64_t		ms = -1;

	EXPECT(lease_parse_duration("30s", &ms));
	EXPECT_EQ_INT(ms, 30000);
	EXPECT(lease_parse_duration("500ms", &ms));
	EXPECT_EQ_INT(ms, 500);
	EXPECT(lease_parse_duration("2m", &ms));
	EXPECT_EQ_INT(ms, 120000);
	EXPECT(lease_parse_duration("1h", &ms));
	EXPECT_EQ_INT(ms, 3600000);
	EXPECT(lease_parse_duration("7", &ms));
	EXPECT_EQ_INT(ms, 7000);
	EXPECT(lease_parse_duration("24h", &ms));
	EXPECT_EQ_INT(ms, 86400000);
	ms = 42;
	EXPECT(!lease_parse_duration("", &ms));
	EXPECT(!lease_parse_duration("s", &ms));
	EXPECT(!lease_parse_duration("10x", &ms));
	EXPECT(!lease_parse_duration("-1s", &ms));
	EXPECT(!lease_parse_duration("25h", &ms));
	EXPECT(!lease_parse_duration("86400001ms", &ms));
	EXPECT(!lease_parse_duration("99999999999999999999s", &ms));
	EXPECT(!lease_parse_duration("1 s", &ms));
	EXPECT_EQ_INT(ms, 42);
}

static void
test_parse_range(void)
{
	uint64_t	lo = 0,
				hi = 0;

	EXPECT(lease_parse_range("5", &lo, &hi));
	EXPECT_EQ_U64(lo, 5);
	EXPECT_EQ_U64(hi, 5);
	EXPECT(lease_parse_range("1-1023", &lo, &hi));
	EXPECT_EQ_U64(lo, 1);
	EXPECT_EQ_U64(hi, 1023);
	EXPECT(!lease_parse_range("7-3", &lo, &hi));
	EXPECT(!lease_parse_range("", &lo, &hi));
	EXPECT(!lease_parse_range("-3", &lo, &hi));
	EXPECT(!lease_parse_range("3-", &lo, &hi));
	EXPECT(!lease_parse_range("a-b", &lo, &hi));
	EXPECT(!lease_parse_range("1-2-3", &lo, &hi));
	EXPECT(!lease_parse_range("4294967296", &lo, &hi));
	EXPECT_EQ_U64(lo, 1);
	EXPECT_EQ_U64(hi, 1023);
}

int
main(void)
{
	TAP_CASE(test_parse_duration);
	TAP_CASE(test_parse_range);
	return tap_done();
}
