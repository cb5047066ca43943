/*
 * test_migrate_pace.c — the pure parts of "chronoid migrate"'s pacing
 * (db/chronoid-migrate/migrate_pace.c): batch sizes move towards the
 * target time but never by more than a factor of two per batch and stay
 * within their bounds; a fixed --batch and --pause are kept; the pause
 * defaults to the batch's own time, at most 2 s; counts and durations as
 * printed.
 */
#include <string.h>

#include "migrate_steps_internal.h"
#include "tap.h"
#include "testutil.h"

static void
test_adaptive_bounds(void)
{
	mig_pace	p;
	int			i;

	mig_pace_init(&p, 0, -1);
	EXPECT_EQ_INT(p.batch, 1000);
	/* A fast batch (1,000 rows in 10 ms): the next is at most twice as big. */
	EXPECT_EQ_INT(mig_pace_after(&p, 1000, 10), 10);
	EXPECT_EQ_INT(p.batch, 2000);
	/* Very fast for long: the size stops at the ceiling. */
	for (i = 0; i < 20; i++)
		(void) mig_pace_after(&p, p.batch, 1);
	EXPECT_EQ_INT(p.batch, 50000);
	/* One slow batch halves it at most, and its pause stops at 2 s. */
	EXPECT_EQ_INT(mig_pace_after(&p, 50000, 60000), 2000);
	EXPECT_EQ_INT(p.batch, 25000);
	/* Very slow for long: the floor. */
	for (i = 0; i < 20; i++)
		(void) mig_pace_after(&p, p.batch, 100000);
	EXPECT_EQ_INT(p.batch, 100);
	/* On target: unchanged. */
	mig_pace_init(&p, 0, -1);
	(void) mig_pace_after(&p, 1000, 200);
	EXPECT_EQ_INT(p.batch, 1000);
	/* An empty batch changes nothing; a 0 ms batch counts as 1 ms. */
	(void) mig_pace_after(&p, 0, 0);
	EXPECT_EQ_INT(p.batch, 1000);
	(void) mig_pace_after(&p, 10, 0);
	EXPECT_EQ_INT(p.batch, 2000);
}

static void
test_fixed(void)
{
	mig_pace	p;

	mig_pace_init(&p, 37, 250);
	EXPECT_EQ_INT(p.batch, 37);
	EXPECT_EQ_INT(mig_pace_after(&p, 37, 1), 250);
	EXPECT_EQ_INT(mig_pace_after(&p, 37, 99999), 250);
	EXPECT_EQ_INT(p.batch, 37);
	mig_pace_init(&p, 0, 0);
	EXPECT_EQ_INT(mig_pace_after(&p, 1000, 500), 0);
}

static void
expect_count(int64_t n, const char *want)
{
	char		buf[32];

	mig_fmt_count(buf, sizeof(buf), n);
	EXPECT_STR(buf, want);
}

static void
expect_secs(double s, const char *want)
{
	char		buf[32];

	mig_fmt_secs(buf, sizeof(buf), s);
	EXPECT_STR(buf, want);
}

static void
test_format(void)
{
	char		small[4];

	expect_count(0, "0");
	expect_count(999, "999");
	expect_count(1000, "1,000");
	expect_count(1234567, "1,234,567");
	expect_count(-5, "0");
	/* Too small a buffer: cut, never overrun, always terminated. */
	mig_fmt_count(small, sizeof(small), 123456);
	EXPECT(strlen(small) < sizeof(small));
	expect_secs(-1, "--");
	expect_secs(0.4, "0s");
	expect_secs(59.4, "59s");
	expect_secs(61, "1m01s");
	expect_secs(3599, "59m59s");
	expect_secs(3600 * 5 + 120, "5h02m");
}

int
main(void)
{
	TAP_CASE(test_adaptive_bounds);
	TAP_CASE(test_fixed);
	TAP_CASE(test_format);
	return tap_done();
}
