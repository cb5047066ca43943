/*
 * test_bench_pk.c — the pure output pieces of "chronoid bench-pk"
 * (db/chronoid-bench-pk/bench_pk_format.c): counts and durations, the
 * progress frame (no ETA before a rate is known; the last frame shows the
 * report's figures), the chart's rate axis, and the small-run test.
 */
#include <math.h>
#include <string.h>

#include "bench_pk_internal.h"
#include "tap.h"
#include "testutil.h"

static void
expect_count(double v, const char *want)
{
	char		buf[16];

	bpk_fmt_count(buf, sizeof(buf), v);
	EXPECT_STR(buf, want);
}

static void
test_count(void)
{
	expect_count(0, "0");
	expect_count(999, "999");
	expect_count(999.4, "999");
	/* the prefix follows the rounded value: never "1000" or "1000.0k" */
	expect_count(999.96, "1.0k");
	expect_count(1000, "1.0k");
	expect_count(45600, "45.6k");
	expect_count(999949, "999.9k");
	expect_count(999999, "1.00M");
	expect_count(1234567, "1.23M");
	expect_count(-1, "--");
}

static void
expect_duration(double s, const char *want)
{
	char		buf[16];

	bpk_fmt_duration(buf, sizeof(buf), s);
	EXPECT_STR(buf, want);
}

static void
test_duration(void)
{
	expect_duration(0, "0:00");
	expect_duration(0.4, "0:00");
	expect_duration(59.6, "1:00");
	expect_duration(61, "1:01");
	expect_duration(3599, "59:59");
	expect_duration(3600, "1:00:00");
	expect_duration(359999, "99:59:59");
	expect_duration(360000, "--");
	expect_duration(-1, "--");
	expect_duration(NAN, "--");
	expect_duration(INFINITY, "--");
}

static void
test_rate_as_the_report(void)
{
	/* the report's rows/s: rows over the end of the last batch */
	EXPECT(bpk_rate(20000, 0.5) == 40000);
	/* nothing finished yet: unknown, not 0 (which would read as "stalled") */
	EXPECT(bpk_rate(0, 0) < 0);
	EXPECT(bpk_rate(0, 1.5) < 0);
	EXPECT(bpk_rate(100, 0) < 0);
}

static void
test_first_frame_has_no_eta(void)
{
	char		buf[256];

	bpk_progress_text(buf, sizeof(buf), "uuidv7", 0, 2000000, -1, -1);
	EXPECT_STR(buf, "uuidv7           [..............................] 0/2.00M rows  -- rows/s  ETA --");
	EXPECT(strstr(buf, "0:00") == NULL);
}

static void
test_frame_with_rate(void)
{
	char		buf[256];

	/* 1.2M of 2M at 25,000 rows/s: 800,000 rows left, 32 s */
	bpk_progress_text(buf, sizeof(buf), "bigserial", 1200000, 2000000, 25000, -1);
	EXPECT_STR(buf, "bigserial        [##################............] 1.20M/2.00M rows  25.0k rows/s  ETA 0:32");
}

static void
test_last_frame(void)
{
	char		buf[256];

	/* the last frame: full bar, the final rate, the time taken */
	bpk_progress_text(buf, sizeof(buf), "ulid", 20000, 20000, 41234.5, 0.485);
	EXPECT_STR(buf, "ulid             [##############################] 20.0k/20.0k rows  41.2k rows/s  in 0:00");
	/* more done than planned cannot overflow the bar */
	bpk_progress_text(buf, sizeof(buf), "k", 30, 20, 10, -1);
	EXPECT(strstr(buf, "[##############################] 20/20 rows") != NULL);
}

/* The labels gnuplot will print: k * step / unit with the decimals. */
static void
expect_axis(double max, double step, const char *prefix, int decimals, const char *labels)
{
	bpk_axis	ax;
	char		buf[256] = "",
				one[32];
	int			k;

	bpk_axis_for(&ax, max);
	EXPECT(fabs(ax.step - step) < step * 1e-9);
	EXPECT_STR(ax.prefix, prefix);
	EXPECT_EQ_INT(ax.decimals, decimals);
	for (k = 0; k * ax.step <= max + ax.step / 2 && k < 12; k++)
	{
		bpk_fmt(one, sizeof(one), "%s%.*f%s", k > 0 ? " " : "", ax.decimals,
				k * ax.step / ax.unit, ax.prefix);
		strncat(buf, one, sizeof(buf) - strlen(buf) - 1);
	}
	EXPECT_STR(buf, labels);
}

static void
test_axis(void)
{
	/* the bug: rates around 1.3M gave "1M 1M 1M" */
	expect_axis(1.4e6, 500000, "M", 1, "0.0M 0.5M 1.0M 1.5M");
	expect_axis(1.3e6, 500000, "M", 1, "0.0M 0.5M 1.0M 1.5M");
	/* the top tick decides the prefix: 1.0M, not 1000k */
	expect_axis(0.9e6, 200000, "M", 1, "0.0M 0.2M 0.4M 0.6M 0.8M 1.0M");
	expect_axis(0.7e6, 200000, "k", 0, "0k 200k 400k 600k 800k");
	expect_axis(1.05e6, 500000, "M", 1, "0.0M 0.5M 1.0M");
	expect_axis(2.2e6, 500000, "M", 1, "0.0M 0.5M 1.0M 1.5M 2.0M");
	expect_axis(5.5e6, 2e6, "M", 0, "0M 2M 4M 6M");
	expect_axis(45000, 10000, "k", 0, "0k 10k 20k 30k 40k 50k");
	expect_axis(1200, 500, "k", 1, "0.0k 0.5k 1.0k");
	expect_axis(600, 200, "", 0, "0 200 400 600");
	expect_axis(3, 1, "", 0, "0 1 2 3");
	expect_axis(1.0e6, 200000, "M", 1, "0.0M 0.2M 0.4M 0.6M 0.8M 1.0M");
	/* a step of a twentieth of the unit: two decimals */
	expect_axis(2.4e5, 50000, "k", 0, "0k 50k 100k 150k 200k 250k");
	expect_axis(1.2e8, 5e7, "M", 0, "0M 50M 100M");
	expect_axis(0.24, 0.05, "", 2, "0.00 0.05 0.10 0.15 0.20 0.25");
	/* nothing measured: the axis of 0 .. 1, no division by zero */
	expect_axis(0, 0.2, "", 1, "0.0");
}

static void
test_rows_to_outgrow(void)
{
	/* 20,000 rows made 1 MiB; shared_buffers 128 MiB: 2,560,000 rows */
	EXPECT(bpk_rows_to_outgrow(20000, 1048576, 134217728) == 2560000);
	/* an index at or above shared_buffers: a real run */
	EXPECT(bpk_rows_to_outgrow(5000000, 134217728, 134217728) < 0);
	EXPECT(bpk_rows_to_outgrow(5000000, 2e8, 134217728) < 0);
	/* unknown sizes: no verdict */
	EXPECT(bpk_rows_to_outgrow(20000, -1, 134217728) < 0);
	EXPECT(bpk_rows_to_outgrow(20000, 0, 134217728) < 0);
	EXPECT(bpk_rows_to_outgrow(20000, 1048576, -1) < 0);
	/* rounded up: never a figure that would still be too small */
	EXPECT(bpk_rows_to_outgrow(3, 2, 3) == 5);
}

int
main(void)
{
	TAP_CASE(test_count);
	TAP_CASE(test_duration);
	TAP_CASE(test_rate_as_the_report);
	TAP_CASE(test_first_frame_has_no_eta);
	TAP_CASE(test_frame_with_rate);
	TAP_CASE(test_last_frame);
	TAP_CASE(test_axis);
	TAP_CASE(test_rows_to_outgrow);
	return tap_done();
}
